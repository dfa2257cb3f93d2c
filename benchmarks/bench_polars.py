"""Benchmark: ``pl_df.scoring`` on polars against ``df.scoring`` on pandas: the conversion cost.

Seeded scored responses (``simulate_scores``: ``id`` and ``L1`` text, ``sc1``, ``sc2`` and ``raw``
floats, plus an integer ``grade``) written to one parquet file, read once by each library
(``pd.read_parquet``, ``pl.read_parquet``; reading is not timed). Then, for each table:

- ``evaluate``: ``evaluate(human="sc1", system="raw", by=["L1", "grade"])``;
- ``report``: ``report(human="sc1", system="raw", second_human="sc2", by=["L1", "grade"],
  trim_min=1, trim_max=6)`` (every summary table, the report object);
- ``postprocess``: ``postprocess(system="raw", trim_min=1, trim_max=6)``, a per-row result
  (the whole frame back as polars).

prints the median wall time on pandas and on polars, the ratio, and the time of the
polars-to-pandas conversion of the whole frame alone (``to_pandas()``; a polars call converts
only the columns its table reads), and checks that the two tables agree (rtol 1e-12).

    python benchmarks/bench_polars.py [--rows 1000000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
from timing import median_time

import pdmetrics  # noqa: F401
from pdmetrics.datasets import simulate_scores

TABLES = {
    "evaluate": {"human": "sc1", "system": "raw", "by": ["L1", "grade"]},
    "report": {
        "human": "sc1",
        "system": "raw",
        "second_human": "sc2",
        "by": ["L1", "grade"],
        "trim_min": 1,
        "trim_max": 6,
    },
    "postprocess": {"system": "raw", "trim_min": 1, "trim_max": 6},
}


def same(polars_result, pandas_result, name: str) -> None:
    if name == "report":
        polars_result, pandas_result = polars_result["eval"], pandas_result["eval"]
    else:
        polars_result = polars_result.to_pandas()
    for column in pandas_result.columns:
        if pd.api.types.is_float_dtype(pandas_result[column].dtype):
            np.testing.assert_allclose(
                polars_result[str(column)].to_numpy(float), pandas_result[column].to_numpy(float), rtol=1e-12
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    frame = simulate_scores(args.rows, seed=0)
    frame["grade"] = np.random.default_rng(0).integers(6, 16, args.rows)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "responses.parquet"
        frame.to_parquet(path)
        pd_frame, pl_frame = pd.read_parquet(path), pl.read_parquet(path)
    print(f"{args.rows:,} rows; median of {args.repeats}; polars {pl.__version__}, pandas {pd.__version__}")
    convert, _ = median_time(pl_frame.to_pandas, args.repeats)
    print(f"{'to_pandas() of the whole frame':32s} {convert:8.3f} s")
    print(f"{'table':14s} {'pandas s':>9s} {'polars s':>9s} {'ratio':>6s}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, kwargs in TABLES.items():
            on_pandas, expected = median_time(
                lambda n=name, k=kwargs: getattr(pd_frame.scoring, n)(**k), args.repeats
            )
            on_polars, result = median_time(
                lambda n=name, k=kwargs: getattr(pl_frame.scoring, n)(**k), args.repeats
            )
            same(result, expected, name)
            print(f"{name:14s} {on_pandas:9.3f} {on_polars:9.3f} {on_polars / on_pandas:6.2f}")


if __name__ == "__main__":
    main()
