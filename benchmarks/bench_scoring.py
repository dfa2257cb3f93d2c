"""Benchmark: RSMTool's eval + consistency tables on 1,000,000 responses.

Builds 1,000,000 responses (human scores 1..6, a second human score on half of them, a
continuous system score), then times ``postprocess`` + ``evaluate`` (raw, trim,
trim_round) + ``consistency``. When ``rsmtool`` is importable it times RSMTool's
``Analyzer.compute_metrics`` on the same data and prints the ratio and the largest
difference in any cell.

    python benchmarks/bench_scoring.py [--rows 1000000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import tracemalloc
import warnings

import numpy as np
import pandas as pd
from timing import median_time

import pdmetrics  # noqa: F401


def simulate(rows: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    true = rng.normal(3.5, 1.0, rows)
    human = np.clip(np.rint(true + rng.normal(0, 0.6, rows)), 1, 6)
    second = np.clip(np.rint(true + rng.normal(0, 0.6, rows)), 1, 6)
    second[rng.random(rows) < 0.5] = np.nan
    system = true + rng.normal(0, 0.5, rows)
    return pd.DataFrame({"sc1": human, "sc2": second, "raw": system})


def pdmetrics_tables(frame: pd.DataFrame):
    processed = frame.scoring.postprocess(system="raw", trim_min=1, trim_max=6)
    evaluation = processed.scoring.evaluate(human="sc1", system=["raw", "raw_trim", "raw_trim_round"])
    consistency = processed.scoring.consistency(human="sc1", second_human="sc2")
    return evaluation, consistency


def rsmtool_tables(frame: pd.DataFrame):
    from rsmtool.analyzer import Analyzer

    processed = frame.scoring.postprocess(system="raw", trim_min=1, trim_max=6)
    data = processed[["sc1", "raw", "raw_trim", "raw_trim_round", "sc2"]]
    evaluation, _, consistency = Analyzer().compute_metrics(data, include_second_score=True)
    return evaluation, consistency


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rsmtool-repeats", type=int, default=1)
    args = parser.parse_args()

    frame = simulate(args.rows)
    warnings.simplefilter("ignore")
    pdmetrics_tables(frame)  # warm-up
    ours, (evaluation, consistency) = median_time(lambda: pdmetrics_tables(frame), args.repeats)

    tracemalloc.start()
    pdmetrics_tables(frame)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    used = frame[["sc1", "sc2", "raw"]].memory_usage(index=False).sum()

    print(f"rows: {args.rows:,}")
    print(
        f"pdmetrics postprocess + evaluate(3 score types) + consistency: median {ours:.3f} s "
        f"over {args.repeats} runs"
    )
    print(
        f"pdmetrics peak traced memory: {peak / 2**20:.0f} MiB = {peak / used:.2f}x the "
        f"{used / 2**20:.0f} MiB of input columns"
    )
    try:
        import rsmtool  # noqa: F401
    except ImportError:
        print("rsmtool not installed: no reference timing (pip install rsmtool to compare)")
        return
    theirs, (ref_eval, ref_consistency) = median_time(lambda: rsmtool_tables(frame), args.rsmtool_repeats)
    ours_eval = evaluation.set_index("system")[ref_eval.columns]
    diff_eval = np.nanmax(
        np.abs(ours_eval.to_numpy(float) - ref_eval.to_numpy(float))
        / np.maximum(np.abs(ref_eval.to_numpy(float)), 1e-12)
    )
    ours_cons = consistency[ref_consistency.columns].to_numpy(float)
    diff_cons = np.nanmax(
        np.abs(ours_cons - ref_consistency.to_numpy(float))
        / np.maximum(np.abs(ref_consistency.to_numpy(float)), 1e-12)
    )
    print(
        f"rsmtool Analyzer.compute_metrics (same tables): median {theirs:.3f} s over "
        f"{args.rsmtool_repeats} run(s)"
    )
    print(
        f"speed-up: {theirs / ours:.0f}x; largest relative difference: eval {diff_eval:.1e}, "
        f"consistency {diff_cons:.1e}"
    )


if __name__ == "__main__":
    main()
