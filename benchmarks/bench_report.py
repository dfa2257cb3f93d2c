"""Benchmark: the whole RSMTool evaluation (``df.scoring.report``) at 1M and 10M responses.

Data: ``pdmetrics.datasets.simulate_scores`` (human ``sc1``, second human ``sc2`` on half the
responses, system ``raw``, subgroup column ``L1`` with 4 groups) plus a second subgroup
column ``grade`` (10 groups as text, 1% missing: RSMTool's "No info" group). ``report()`` end
to end: post-processing, eval, eval_short, consistency, true_score_eval, degradation,
disattenuated correlations, eval_by / consistency_by / disattenuated_correlations_by and the
score-fairness regressions for both subgroup columns, confusion matrices, score distribution.
Prints the median of ``--repeats`` runs per size. When ``rsmtool`` is importable, also times
RSMTool's by-group metrics (``Analyzer.compute_metrics_by_group``) on the smallest size.

    python benchmarks/bench_report.py [--rows 1000000 10000000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from timing import median_time

import pdmetrics  # noqa: F401
from pdmetrics.datasets import simulate_scores


def simulate(rows: int, seed: int = 0) -> pd.DataFrame:
    """simulate_scores plus a text subgroup column ``grade`` with 1% missing values."""
    frame = simulate_scores(rows, seed=seed)
    rng = np.random.default_rng(seed + 1)
    grade = rng.integers(3, 13, rows).astype(str).astype(object)
    grade[rng.random(rows) < 0.01] = None
    return frame.assign(grade=grade)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    for rows in args.rows:
        frame = simulate(rows)

        def report(frame=frame):
            return frame.scoring.report(
                human="sc1", system="raw", second_human="sc2", by=["L1", "grade"], trim_min=1, trim_max=6
            )

        seconds, result = median_time(report, args.repeats)
        print(
            f"rows: {rows:,}, by=['L1', 'grade'], second human on half: report() ({len(result)} tables) "
            f"median {seconds:.2f} s over {args.repeats} runs"
        )
    try:
        from rsmtool.analyzer import Analyzer
    except ImportError:
        print("rsmtool not installed: no reference timing (pip install rsmtool to compare)")
        return
    frame = simulate(min(args.rows))
    processed = frame.scoring.postprocess(system="raw", trim_min=1, trim_max=6)
    data = processed[["sc1", "raw", "raw_trim", "raw_trim_round", "sc2", "L1"]]
    start = time.perf_counter()
    Analyzer().compute_metrics_by_group(data, "L1", include_second_score=True)
    seconds = time.perf_counter() - start
    print(f"rsmtool compute_metrics_by_group (eval_by + consistency_by, L1 only): {seconds:.1f} s")


if __name__ == "__main__":
    main()
