"""Benchmark: score fairness (OSA/OSD/CSD) on simulated data, against RSMTool when installed.

Usage: python benchmarks/bench_score_fairness.py [--rows 1000000] [--groups 4] [--repeat 5]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd
from timing import median_time

import pdmetrics  # noqa: F401  (registers the accessors)
from pdmetrics.fairness import score_fairness, score_fairness_tables


def simulate(rows: int, groups: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    human = rng.integers(1, 7, size=rows).astype("float64")
    labels = np.array([f"L1.{i}" for i in range(groups)])
    group = labels[rng.integers(0, groups, size=rows)]
    system = np.clip(human + rng.normal(0, 0.8, size=rows) + 0.05 * (group == labels[0]), 0.5002, 6.4998)
    return pd.DataFrame({"sc1": human, "raw_trim": system, "L1": group})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--groups", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--reference-repeat", type=int, default=3)
    args = parser.parse_args()

    frame = simulate(args.rows, args.groups)
    print(f"{args.rows:,} rows, {args.groups} groups, median of {args.repeat} runs")
    core = median_time(lambda: score_fairness(frame["sc1"], frame["raw_trim"], frame["L1"]), args.repeat)[0]
    both = median_time(
        lambda: score_fairness_tables(frame["sc1"], frame["raw_trim"], frame["L1"]), args.repeat
    )[0]
    accessor = median_time(
        lambda: frame.fairness.score_fairness(human="sc1", system="raw_trim", by="L1"), args.repeat
    )[0]
    print(f"pdmetrics score_fairness (core)          {core:8.3f} s")
    print(f"pdmetrics score_fairness_tables (both)   {both:8.3f} s")
    print(f"pdmetrics df.fairness.score_fairness     {accessor:8.3f} s")
    try:
        from rsmtool.fairness_utils import get_fairness_analyses
    except ImportError:
        print("rsmtool not installed: no reference timing (pip install rsmtool==12.0.0)")
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = median_time(
            lambda: get_fairness_analyses(frame.copy(), "L1", "raw_trim"), args.reference_repeat
        )[0]
    print(f"rsmtool get_fairness_analyses            {reference:8.3f} s (median of {args.reference_repeat})")
    print(f"ratio rsmtool / pdmetrics core           {reference / core:8.1f} x")
    print(f"ratio rsmtool / pdmetrics both tables    {reference / both:8.1f} x")


if __name__ == "__main__":
    main()
