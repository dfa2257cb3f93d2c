"""Benchmark: true-score evaluation (PRMSE table) on simulated data, against RSMTool when installed.

Usage: python benchmarks/bench_true_score.py [--rows 1000000] [--raters 2] [--repeat 5]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd
from timing import median_time

import pdmetrics  # noqa: F401  (registers the accessors)


def simulate(rows: int, raters: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    true = rng.normal(3.5, 1.0, size=rows)
    frame = {}
    for j in range(raters):
        rating = np.clip(np.rint(true + rng.normal(0, 0.6, size=rows)), 1, 6)
        if j:  # later raters score about half of the responses
            rating[rng.random(rows) < 0.5] = np.nan
        frame[f"h{j + 1}"] = rating
    frame["raw_trim"] = np.clip(true + rng.normal(0, 0.5, size=rows), 0.5002, 6.4998)
    frame["raw_trim_round"] = np.rint(frame["raw_trim"])
    return pd.DataFrame(frame)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--raters", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    frame = simulate(args.rows, args.raters)
    raters = [f"h{j + 1}" for j in range(args.raters)]
    systems = ["raw_trim", "raw_trim_round"]
    print(f"{args.rows:,} rows, {args.raters} raters, 2 system columns, median of {args.repeat} runs")
    ours = median_time(lambda: frame.scoring.true_score(system=systems, raters=raters), args.repeat)[0]
    print(f"pdmetrics df.scoring.true_score            {ours:8.3f} s")
    try:
        from rsmtool.utils.prmse import get_true_score_evaluations
    except ImportError:
        print("rsmtool not installed: no reference timing (pip install rsmtool==12.0.0)")
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = median_time(lambda: get_true_score_evaluations(frame, systems, raters), args.repeat)[0]
    print(f"rsmtool get_true_score_evaluations         {reference:8.3f} s")
    print(f"ratio rsmtool / pdmetrics                  {reference / ours:8.1f} x")


if __name__ == "__main__":
    main()
