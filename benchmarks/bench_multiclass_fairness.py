"""Benchmark: multiclass fairness, ``classes="all"`` — 1,000,000 rows x 5 classes x 10 groups.

Times ``df.fairness.classification(classes="all")`` (SPD, DI, AOD, EOD of every class one vs
rest, the privileged group being 5 of the 10 groups, plus the macro rows) and
``df.fairness.by_group(classes="all")`` (selection rate, TPR, FPR, precision... of every class
in each of the 10 groups), medians of ``--repeats`` runs, for integer and for string classes.
The reference is what a user must write today: fairlearn's ``MetricFrame`` (selection rate,
TPR, FPR, precision per group) once per class on the binarised labels, on the same data in
the same run (on the integer classes only: fairlearn sees the same 0/1 labels either way, and
one run takes minutes); the ratio is printed. Check that both give the same numbers is in the tests
(``tests/test_fairness_multiclass.py``), not here.

    python benchmarks/bench_multiclass_fairness.py [--rows 1000000] [--repeats 5]
        [--reference-repeats 5] [--skip-fairlearn]
"""

from __future__ import annotations

import argparse
import warnings
from functools import partial

import numpy as np
import pandas as pd
from timing import median_time

import pdmetrics  # noqa: F401

CLASSES = 5
GROUPS = 10


def simulate(rows: int, seed: int = 0, text: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    group = rng.integers(0, GROUPS, rows)
    y = rng.integers(0, CLASSES, rows)
    pred = np.where(rng.random(rows) < 0.6 + 0.02 * group, y, rng.integers(0, CLASSES, rows))
    frame = pd.DataFrame({"y": y, "pred": pred, "group": group})
    if text:
        names = np.array([f"class_{i}" for i in range(CLASSES)], dtype=object)
        frame = frame.assign(y=names[y], pred=names[pred])
    return frame


def fairlearn_per_class(frame: pd.DataFrame) -> list:
    """What a user writes with fairlearn 0.15 (which rejects a multiclass label): one
    MetricFrame per class, on the labels binarised one vs rest."""
    import fairlearn.metrics as fl
    from sklearn.metrics import precision_score

    metrics = {
        "selection_rate": fl.selection_rate,
        "tpr": fl.true_positive_rate,
        "fpr": fl.false_positive_rate,
        "precision": partial(precision_score, zero_division=0),
    }
    frames = []
    for c in pd.unique(frame["y"]):
        frames.append(
            fl.MetricFrame(
                metrics=metrics,
                y_true=(frame["y"] == c).to_numpy(dtype=int),
                y_pred=(frame["pred"] == c).to_numpy(dtype=int),
                sensitive_features=frame["group"],
            ).by_group
        )
    return frames


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--reference-repeats", type=int, default=5)
    parser.add_argument("--skip-fairlearn", action="store_true")
    args = parser.parse_args()
    print(f"{args.rows:,} rows x {CLASSES} classes x {GROUPS} groups; medians of {args.repeats} runs")
    for text in (False, True):
        frame = simulate(args.rows, text=text)
        kind = "string" if text else "integer"
        calls = {
            "classification(classes='all')": partial(
                frame.fairness.classification,
                y_true="y",
                y_pred="pred",
                by="group",
                threshold=4.5,
                classes="all",
            ),
            "by_group(classes='all')": partial(
                frame.fairness.by_group, y_true="y", y_pred="pred", by="group", classes="all", zero_division=0
            ),
        }
        times = {}
        for name, call in calls.items():
            call()  # imports and first-use costs out of the timing
            times[name], _ = median_time(call, args.repeats)
            print(f"{kind:>7} classes  pdmetrics {name:<31} {times[name]:8.3f} s", flush=True)
        if args.skip_fairlearn or text:
            continue
        try:
            import fairlearn  # noqa: F401
        except ImportError:
            print("fairlearn is not installed: no reference timing")
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fairlearn_per_class(frame.head(1000))
            reference, _ = median_time(partial(fairlearn_per_class, frame), args.reference_repeats)
        print(f"{kind:>7} classes  fairlearn MetricFrame x {CLASSES} classes      {reference:8.3f} s")
        for name, seconds in times.items():
            print(f"{kind:>7} classes  ratio fairlearn / pdmetrics {name:<31} {reference / seconds:8.1f}x")


if __name__ == "__main__":
    main()
