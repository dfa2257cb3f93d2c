"""Benchmark: score fairness (OSA/OSD/CSD) on simulated data, against RSMTool when installed.

Data: human scores 1-6 (integers), a float system score, and two group columns: ``L1`` (4
groups) and ``grade`` (10 groups as text, 1% missing), as ``report()`` meets them. Times the
first call in the process (it imports ``scipy.special``), then the median of ``--repeat``
runs of: ``score_fairness`` on ``L1``, ``score_fairness_tables`` on both columns (text, and
categorical as ``report()`` passes them) and the accessor.

Usage: python benchmarks/bench_score_fairness.py [--rows 1000000 10000000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from timing import median_time

import pdmetrics  # noqa: F401  (registers the accessors)
from pdmetrics.fairness import score_fairness, score_fairness_tables


def simulate(rows: int, groups: int = 4, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    human = rng.integers(1, 7, size=rows)
    labels = np.array([f"L1.{i}" for i in range(groups)])
    group = labels[rng.integers(0, groups, size=rows)]
    grade = rng.integers(3, 13, size=rows).astype(str).astype(object)
    grade[rng.random(rows) < 0.01] = None
    system = np.clip(human + rng.normal(0, 0.8, size=rows) + 0.05 * (group == labels[0]), 0.5002, 6.4998)
    return pd.DataFrame({"sc1": human, "raw_trim": system, "L1": group, "grade": grade})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--groups", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--reference-repeat", type=int, default=3)
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # the 1% missing grades: an ExcludedRowsWarning per call
    first = None
    for rows in args.rows:
        frame = simulate(rows, args.groups)
        if first is None:
            start = time.perf_counter()
            score_fairness_tables(frame, human="sc1", system="raw_trim", by=["L1", "grade"])
            first = time.perf_counter() - start
            print(f"first call ({rows:,} rows, both columns; imports what the fits need) {first:8.3f} s")
        print(f"{rows:,} rows, by L1 ({args.groups} groups), grade (10, 1% missing); median of {args.repeat}")
        core = time_one_size(frame, args.repeat)
        reference(frame, core, args.reference_repeat)


def time_one_size(frame: pd.DataFrame, repeat: int) -> float:
    """Print the medians for one frame; return the core score_fairness median."""
    scores = dict(human="sc1", system="raw_trim")
    both = dict(scores, by=["L1", "grade"])
    categorical = frame.astype({"L1": "category", "grade": "category"})
    core = median_time(lambda: score_fairness(frame, **scores, by="L1"), repeat)[0]
    tables = median_time(lambda: score_fairness_tables(frame, **both), repeat)[0]
    tables_cat = median_time(lambda: score_fairness_tables(categorical, **both), repeat)[0]
    accessor = median_time(
        lambda: frame.fairness.score_fairness(human="sc1", system="raw_trim", by=["L1", "grade"]), repeat
    )[0]
    print(f"  score_fairness by L1 (core)                      {core:8.3f} s")
    print(f"  score_fairness_tables by L1, grade (text)        {tables:8.3f} s")
    print(f"  score_fairness_tables by L1, grade (categorical) {tables_cat:8.3f} s")
    print(f"  df.fairness.score_fairness by L1, grade          {accessor:8.3f} s")
    return core


def reference(frame: pd.DataFrame, core: float, repeat: int) -> None:
    try:
        from rsmtool.fairness_utils import get_fairness_analyses
    except ImportError:
        print("  rsmtool not installed: no reference timing (pip install rsmtool==12.0.0)")
        return
    data = frame[["sc1", "raw_trim", "L1"]].astype({"sc1": "float64"})
    seconds = median_time(lambda: get_fairness_analyses(data.copy(), "L1", "raw_trim"), repeat)[0]
    print(f"  rsmtool get_fairness_analyses by L1              {seconds:8.3f} s (median of {repeat})")
    print(f"  ratio rsmtool / pdmetrics core                   {seconds / core:8.1f} x")


if __name__ == "__main__":
    main()
