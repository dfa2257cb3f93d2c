"""Benchmark: ``df.fairness.compare`` — 1,000,000 rows, 10 groups, 2 models, 1,000 resamples.

Times the paired comparison of two classifiers' fairness (the five gaps of one sensitive column,
each group's selection rate, TPR, FPR and precision; McNemar's tests and 1,000 paired
bootstrap resamples) in process, median of ``--repeats`` runs, then with three sensitive
columns. The reference is what a user writes without it: resample the rows with replacement
(numpy) and recompute both models' group rates and gaps with pandas per resample
(``--reference-resamples`` of them, timed, then scaled to 1,000 — said so in the output), on
the same data in the same run.

    python benchmarks/bench_compare_fairness.py [--rows 1000000] [--resamples 1000] [--repeats 3]
        [--reference-resamples 5]
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from timing import compare_arguments, median_time, row_resampling_reference

import pdmetrics  # noqa: F401


def simulate(rows: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 10, rows)
    y = rng.random(rows) < 0.5
    chance = 0.3 + 0.3 * y + 0.02 * group
    u = rng.random(rows)
    return pd.DataFrame(
        {
            "y": y.astype(int),
            "group": pd.Series(group).map(lambda g: f"g{g}"),
            "sex": rng.choice(["F", "M"], rows),
            "age": rng.integers(18, 80, rows),
            "old": (u < chance).astype(int),
            "new": (np.where(rng.random(rows) < 0.7, u, rng.random(rows)) < chance + 0.02).astype(int),
        }
    )


def naive_resample(frame: pd.DataFrame, rng: np.random.Generator) -> dict:
    """One resample of rows with replacement and both models' group rates and gaps (pandas)."""
    sample = frame.iloc[rng.integers(0, len(frame), len(frame))]
    out = {}
    for name in ("old", "new"):
        grouped = sample.groupby("group")
        selection = grouped[name].mean()
        tpr = sample[sample.y == 1].groupby("group")[name].mean()
        fpr = sample[sample.y == 0].groupby("group")[name].mean()
        precision = sample[sample[name] == 1].groupby("group")["y"].mean()
        privileged = sample["group"] == "g0"
        gap = sample.loc[~privileged, name].mean() - sample.loc[privileged, name].mean()
        out[name] = (selection, tpr, fpr, precision, gap)
    return out


def main() -> None:
    args = compare_arguments(__doc__, reference_resamples=5)

    frame = simulate(args.rows)
    options = dict(y_true="y", y_pred=["old", "new"], by="group", privileged="g0", n_resamples=args.resamples)
    frame.fairness.compare(**{**options, "n_resamples": 10})  # imports (scipy.stats) out of the timing
    seconds, table = median_time(lambda: frame.fairness.compare(**options), args.repeats)
    three = {
        **options,
        "by": ["group", "sex", "age"],
        "privileged": {"group": "g0", "sex": "M"},
        "threshold": 40,
    }
    three_seconds, three_table = median_time(lambda: frame.fairness.compare(**three), args.repeats)
    print(f"pdmetrics fairness.compare: {args.rows:,} rows, 10 groups, 2 models, {args.resamples} resamples")
    print(
        f"  median of {args.repeats}: {seconds:.3f} s (target < 5 s); 3 sensitive columns "
        f"(10 groups, 2, 62 ages; {len(three_table)} rows): {three_seconds:.3f} s"
    )
    shown = table[table["group"] == "(all)"][["metric", "difference", "ci_low", "ci_high", "p_value", "test"]]
    print(shown.round(4).to_string(index=False))

    reference = row_resampling_reference(
        naive_resample, frame, args.reference_resamples, args.resamples, "numpy + pandas groupby"
    )
    print(f"ratio: {reference / seconds:.0f}x")


if __name__ == "__main__":
    main()
