"""Benchmark: ``df.fairness.score_distributions`` — 1,000,000 rows, 10 groups.

Times the groups table in process (median of ``--repeats`` runs) with labels (KS statistic and
p-value, Wasserstein, ROC AUC, ECE per group, against the largest group and against the rest)
and without (the distances only), and the references on the same data in the same run: per
group ``scipy.stats.ks_2samp``, ``scipy.stats.wasserstein_distance`` (against the same reference
group), ``sklearn.metrics.roc_auc_score`` and ``sklearn.calibration.calibration_curve`` (the
ECE's bins), the groups selected with a pandas ``groupby``. Scores: probabilities rounded to
4 decimals (heavy ties: about 10,000 distinct values) or, with ``--continuous``, unrounded
(about 1M distinct values).

    python benchmarks/bench_score_distributions.py [--repeats 3] [--rows 1000000] [--continuous]
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from timing import median_time

import pdmetrics  # noqa: F401


def simulate(rows: int, groups: int = 10, continuous: bool = False, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    group = rng.integers(0, groups, rows)
    y = (rng.random(rows) < 0.3).astype(np.int8)
    p = np.clip(0.2 + 0.4 * y + 0.01 * group + rng.normal(0, 0.15, rows), 0, 1)
    if not continuous:
        p = np.round(p, 4)
    return pd.DataFrame({"p": p, "y": y, "g": pd.Series(group).map(lambda k: f"g{k}")})


def references(frame: pd.DataFrame, labelled: bool) -> float:
    """Seconds of the references, one group at a time, against the largest group."""
    from scipy import stats
    from sklearn.calibration import calibration_curve
    from sklearn.metrics import roc_auc_score

    def run():
        parts = dict(tuple(frame.groupby("g", sort=True)))
        base = max(parts, key=lambda g: (len(parts[g]), g))
        reference = parts[base]["p"].to_numpy()
        for part in parts.values():
            p = part["p"].to_numpy()
            stats.ks_2samp(p, reference)
            stats.wasserstein_distance(p, reference)
            if labelled:
                roc_auc_score(part["y"], p)
                calibration_curve(part["y"], p, n_bins=10, strategy="uniform")

    seconds, _ = median_time(run, 1)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--continuous", action="store_true")
    args = parser.parse_args()
    frame = simulate(args.rows, continuous=args.continuous)
    print(f"== {args.rows:,} rows x 10 groups, {frame['p'].nunique():,} distinct scores")
    frame.head(1000).fairness.score_distributions(score="p", by="g", y_true="y")  # imports out of the timing
    for labelled in (False, True):
        options = {"score": "p", "by": "g", **({"y_true": "y"} if labelled else {})}
        what = "KS, p-value, Wasserstein, ROC AUC, ECE" if labelled else "KS, p-value, Wasserstein"
        ours, _ = median_time(
            lambda options=options: frame.fairness.score_distributions(**options), args.repeats
        )
        rest, _ = median_time(
            lambda options=options: frame.fairness.score_distributions(against="rest", **options),
            args.repeats,
        )
        theirs = min(references(frame, labelled) for _ in range(args.repeats))
        print(f"pdmetrics score_distributions ({what}), against the largest group: {ours:.3f} s")
        print(f"pdmetrics score_distributions ({what}), against the rest: {rest:.3f} s")
        print(f"scipy/sklearn per group ({what}): {theirs:.3f} s ({theirs / ours:.1f}x pdmetrics)")


if __name__ == "__main__":
    main()
