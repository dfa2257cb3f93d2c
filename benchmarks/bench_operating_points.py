"""Benchmark: ``operating_points`` and ``per_image`` on a COCO-scale synthetic set.

The simulated boxes of ``bench_detection.py`` (seeded; ``--images`` images, ``--classes``
classes, about 7 ground truths and up to 100 detections per image). Times, against the
``match`` table at the same IoU threshold (the matching both reuse):

- ``operating_points`` (best F1 per label and pooled) and with a precision target;
- ``per_image`` at a score threshold of 0.5;
- ``match`` itself, and choosing the best-F1 threshold of each label from its table with a
  pandas scan over every candidate (the way one would without the table).

    python benchmarks/bench_operating_points.py --repeat 5
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd
from bench_detection import simulate
from timing import median_time

import pdmetrics  # noqa: F401  (registers the accessors)


def best_f1_from_match(table: pd.DataFrame) -> pd.DataFrame:
    """The best-F1 threshold per label from ``match``'s table: counts at every candidate score."""
    counted = table[~table["ignored"]].sort_values(["label", "score"], ascending=[True, False], kind="stable")
    positives = pd.Series(table.attrs["pdmetrics"]["n_positive"], index=table.attrs["pdmetrics"]["labels"])
    grouped = counted.groupby("label")
    counted = counted.assign(tp_cum=grouped["tp"].cumsum(), n_cum=grouped.cumcount() + 1)
    last = counted.groupby(["label", "score"], sort=False).tail(1)
    n = last["label"].map(positives)
    f1 = 2 * last["tp_cum"] / (last["n_cum"] + n)  # 2 tp / (2 tp + fp + fn)
    best = last.assign(f1=f1).sort_values(["label", "f1", "score"], ascending=[True, False, False])
    return best.groupby("label").head(1)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--images", type=int, default=5000)
    parser.add_argument("--classes", type=int, default=80)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # labels missing the precision target, images without boxes

    gt, det = simulate(args.images, args.classes, args.seed)
    images = np.arange(1, args.images + 1)
    common = {"ground_truth": gt, "iscrowd": "iscrowd", "area": "area", "images": images}
    print(f"{args.images} images, {args.classes} classes, {len(gt)} ground truths, {len(det)} detections")

    timings = {
        "operating_points (f1)": lambda: det.detection.operating_points(**common),
        "operating_points (precision 0.9)": lambda: det.detection.operating_points(
            objective={"precision": 0.9}, **common
        ),
        "per_image (score 0.5)": lambda: det.detection.per_image(**common),
        "per_image (every detection)": lambda: det.detection.per_image(score_threshold=None, **common),
        "match (IoU 0.5)": lambda: det.detection.match(iou_thresholds=[0.5], **common),
    }
    results = {}
    for name, call in timings.items():
        seconds, results[name] = median_time(call, args.repeat)
        print(f"{name:34s} median {seconds:7.3f} s")
    matches = results["match (IoU 0.5)"]
    seconds, best = median_time(lambda: best_f1_from_match(matches), args.repeat)
    print(f"{'best F1 from match (pandas scan)':34s} median {seconds:7.3f} s  (after match)")
    points = results["operating_points (f1)"].iloc[:-1].dropna(subset=["score_threshold"]).set_index("label")
    same = np.array_equal(points.loc[best["label"], "score_threshold"].to_numpy(), best["score"].to_numpy())
    print(f"best-F1 thresholds equal to the pandas scan: {same}")


if __name__ == "__main__":
    main()
