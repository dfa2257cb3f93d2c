"""Command line: ``pdmetrics demo``."""

from __future__ import annotations

import argparse
import sys

import pandas as pd

import pdmetrics


def _show(title: str, table: pd.DataFrame) -> None:
    print(f"\n== {title}")
    print(table.round(3).to_string(index=False))


def demo(rows: int, seed: int) -> int:
    """Simulate double-scored essays, post-process the system score, print the tables."""
    from pdmetrics.datasets import simulate_scores

    df = simulate_scores(rows, seed=seed)
    print(f"pdmetrics {pdmetrics.__version__} demo: {len(df):,} simulated responses "
          f"({int(df['sc2'].notna().sum()):,} double-scored), subgroup column 'L1'.")
    print("df.scoring.postprocess(system='raw', trim_min=1, trim_max=6)")
    scored = df.scoring.postprocess(system="raw", trim_min=1, trim_max=6)
    systems = ["raw", "raw_trim", "raw_trim_round"]
    _show("eval: df.scoring.evaluate(human='sc1', system=['raw', 'raw_trim', 'raw_trim_round'])",
          scored.scoring.evaluate(human="sc1", system=systems))
    _show("consistency: df.scoring.consistency(human='sc1', second_human='sc2')",
          scored.scoring.consistency(human="sc1", second_human="sc2"))
    matrix = (scored.scoring.confusion_matrix(human="sc1", system="raw_trim_round")
              .pivot(index="human_score", columns="system_score", values="N"))
    print("\n== confMatrix (rows: human score, columns: system score)")
    print(matrix.to_string())
    _show("score_dist (percent of responses)",
          scored.scoring.score_distribution(human="sc1", system="raw_trim_round"))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pdmetrics", description="Evaluate automated scores with pandas.")
    commands = parser.add_subparsers(dest="command", required=True)
    demo_parser = commands.add_parser("demo", help="evaluate simulated double-scored essays")
    demo_parser.add_argument("--rows", type=int, default=5000, help="number of simulated responses")
    demo_parser.add_argument("--seed", type=int, default=0, help="random seed")
    args = parser.parse_args(argv)
    if args.command == "demo":
        return demo(args.rows, args.seed)
    return 2  # pragma: no cover - argparse rejects unknown commands


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
