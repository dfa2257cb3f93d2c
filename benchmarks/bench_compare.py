"""Benchmark: ``df.scoring.compare`` — 1,000,000 responses, 2 systems, 1,000 resamples.

Times the paired comparison (every ``eval`` metric, the closed-form tests and 1,000 paired
Poisson-bootstrap resamples) in process, median of ``--repeats`` runs, with and without a
10-group ``by=`` column. The reference is what a user writes without it: resample the rows
with replacement (numpy) and recompute both systems' ``eval`` metrics with scikit-learn and
scipy per resample (``--reference-resamples`` of them, timed, then scaled to 1,000 — said so
in the output), on the same data in the same run.

    python benchmarks/bench_compare.py [--rows 1000000] [--resamples 1000] [--repeats 3]
        [--reference-resamples 20]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from timing import median_time

import pdmetrics  # noqa: F401


def simulate(rows: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    true = rng.normal(3.5, 1.0, rows)
    human = np.clip(np.rint(true + rng.normal(0, 0.6, rows)), 1, 6)
    return pd.DataFrame(
        {
            "sc1": human,
            "old": true + rng.normal(0, 0.6, rows),
            "new": true + rng.normal(0, 0.5, rows),
            "group": rng.integers(0, 10, rows).astype(str),
        }
    )


def naive_resample(frame: pd.DataFrame, rng: np.random.Generator):
    """One resample of rows with replacement and both systems' eval metrics (scikit-learn)."""
    from scipy.stats import pearsonr
    from sklearn.metrics import cohen_kappa_score, mean_squared_error, r2_score

    rows = rng.integers(0, len(frame), len(frame))
    h = frame["sc1"].to_numpy()[rows]
    out = {}
    for name in ("old", "new"):
        s = frame[name].to_numpy()[rows]
        out[name] = (
            pearsonr(h, s)[0],
            cohen_kappa_score(h.astype(int), np.rint(s).astype(int)),
            cohen_kappa_score(h.astype(int), np.rint(s).astype(int), weights="quadratic"),
            np.mean(np.abs(h - s) <= 1),
            r2_score(h, s),
            np.sqrt(mean_squared_error(h, s)),
            (s.mean() - h.mean()) / h.std(ddof=1),
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--reference-resamples", type=int, default=20)
    args = parser.parse_args()

    frame = simulate(args.rows)
    options = dict(human="sc1", system=["old", "new"], n_resamples=args.resamples)
    frame.scoring.compare(**{**options, "n_resamples": 10})  # imports (scipy.stats) out of the timing
    seconds, table = median_time(lambda: frame.scoring.compare(**options), args.repeats)
    by_seconds, _ = median_time(lambda: frame.scoring.compare(**options, by="group"), args.repeats)
    print(f"pdmetrics compare: {args.rows:,} responses, 2 systems, {args.resamples} resamples")
    print(f"  median of {args.repeats}: {seconds:.2f} s (target < 5 s); by= (10 groups): {by_seconds:.2f} s")
    shown = table[["metric", "difference", "ci_low", "ci_high", "p_value", "test"]]
    print(shown.round(4).to_string(index=False))

    rng = np.random.default_rng(0)
    naive_resample(frame.head(100), rng)  # imports out of the timing
    start = time.perf_counter()
    for _ in range(args.reference_resamples):  # the reference: one Python pass per resample
        naive_resample(frame, rng)
    per_resample = (time.perf_counter() - start) / args.reference_resamples
    reference = per_resample * args.resamples
    print(
        f"row-resampling loop (numpy + scikit-learn + scipy): {per_resample:.3f} s per resample, "
        f"timed over {args.reference_resamples} resamples -> {reference:.0f} s for {args.resamples}"
    )
    print(f"ratio: {reference / seconds:.0f}x")


if __name__ == "__main__":
    main()
