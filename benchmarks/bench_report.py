"""Benchmark: the whole RSMTool evaluation (``df.scoring.report``) on 1,000,000 responses.

1,000,000 responses, a subgroup column with 4 groups, a second human score on half of
them: ``report()`` end to end (post-processing, eval, eval_short, consistency,
true_score_eval, eval_by/consistency_by, degradation, disattenuated correlations, the
score-fairness regressions, confusion matrices, score distribution), and
``score_fairness`` alone. When ``rsmtool`` is importable, times RSMTool's by-group
metrics (``Analyzer.compute_metrics_by_group``) and fairness analyses
(``get_fairness_analyses``) on the same data and prints the ratios.

    python benchmarks/bench_report.py [--rows 1000000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from timing import median_time

import pdmetrics  # noqa: F401


def simulate(rows: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    group = rng.choice(
        np.array(["Arabic", "Hindi", "Mandarin", "Spanish"]), size=rows, p=[0.2, 0.1, 0.3, 0.4]
    )
    true = rng.normal(3.5, 1.0, rows)
    human = np.clip(np.rint(true + rng.normal(0, 0.5, rows)), 1, 6)
    second = np.clip(np.rint(true + rng.normal(0, 0.5, rows)), 1, 6)
    second[rng.random(rows) < 0.5] = np.nan
    system = true + rng.normal(0, 0.5, rows) + np.where(group == "Arabic", 0.1, 0.0)
    return pd.DataFrame({"L1": group, "sc1": human, "sc2": second, "raw": system})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    frame = simulate(args.rows)
    warnings.simplefilter("ignore")

    def report():
        return frame.scoring.report(
            human="sc1", system="raw", second_human="sc2", by="L1", trim_min=1, trim_max=6
        )

    def fairness():
        return frame.fairness.score_fairness(human="sc1", system="raw", by="L1")

    report()  # warm-up
    ours_report = median_time(report, args.repeats)[0]
    ours_fairness = median_time(fairness, args.repeats)[0]
    print(f"rows: {args.rows:,}, 4 groups, second human on half")
    print(
        f"pdmetrics report() end to end ({len(report())} tables): median {ours_report:.3f} s "
        f"over {args.repeats} runs"
    )
    print(f"pdmetrics score_fairness alone: median {ours_fairness:.3f} s")
    try:
        from rsmtool.analyzer import Analyzer
        from rsmtool.fairness_utils import get_fairness_analyses
    except ImportError:
        print("rsmtool not installed: no reference timing (pip install rsmtool to compare)")
        return
    processed = frame.scoring.postprocess(system="raw", trim_min=1, trim_max=6)
    data = processed[["sc1", "raw", "raw_trim", "raw_trim_round", "sc2", "L1"]]
    start = time.perf_counter()
    Analyzer().compute_metrics_by_group(data, "L1", include_second_score=True)
    by_group = time.perf_counter() - start
    fair_input = data.assign(spkitemid=np.arange(len(data)).astype(str))
    start = time.perf_counter()
    get_fairness_analyses(fair_input, "L1", "raw_trim")
    fairness_ref = time.perf_counter() - start
    print(f"rsmtool compute_metrics_by_group (eval_by + consistency_by): {by_group:.1f} s (1 run)")
    print(f"rsmtool get_fairness_analyses: {fairness_ref:.2f} s (1 run)")
    print(
        f"ratios: by-group tables alone vs whole pdmetrics report {by_group / ours_report:.0f}x; "
        f"fairness {fairness_ref / ours_fairness:.0f}x"
    )


if __name__ == "__main__":
    main()
