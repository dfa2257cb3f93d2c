"""Benchmark: the scoring tables on dask DataFrames against the pandas path, from parquet.

Writes seeded scored responses as parquet files of ``--file-rows`` rows each (generated file by
file, so 100M rows never sit in memory): human ``sc1`` (1-6), second human ``sc2`` on half the
responses, system ``raw``, group columns ``L1`` (4 languages, text) and ``grade`` (10 grades).
Then, each in a fresh child process (so its peak RSS is its own), computes the tables that run
on dask today: ``evaluate`` (``raw_trim`` and ``raw_trim_round`` after ``postprocess``, with
``by=["L1", "grade"]``), ``consistency`` (by both), ``confusion_matrix``, ``score_distribution``
and ``degradation``:

- ``pandas``: ``pd.read_parquet`` then the ``df.scoring`` calls (only up to ``--pandas-max`` rows:
  the frame must fit in memory);
- ``dask``: ``dd.read_parquet`` then the same ``ddf.scoring`` calls with ``compute=False`` and
  one ``dask.compute`` (one pass over the files), dask's threaded scheduler.

Prints the median wall time and peak RSS of each, the dask/pandas time ratio, checks that the
tables agree (rtol 1e-12; SMD and DSM also atol 1e-13), and a cost table over the sizes.

``--job report`` times ``report()`` instead (``human="sc1", second_human="sc2", system="raw",
by=["L1", "grade"]``, trim 1-6: every summary table, the report object; ``pdmetrics evaluate``'s
computation): ``df.scoring.report`` after ``pd.read_parquet`` against ``ddf.scoring.report`` on
``dd.read_parquet`` (one pass over the files). ``--with-files`` also times ``report.to_csv``
(on dask: the per-response files written partition by partition, one more pass); the summary
tables are compared as above (degradation, R2 and the fairness estimates near 0 also atol 1e-13).

    python benchmarks/bench_dask.py [--job tables|report] [--rows 1000000 10000000] [--repeats 3]
        [--pandas-max 10000000] [--file-rows 1000000] [--folder /tmp/pdmetrics-bench-dask]
        [--with-files]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

LANGUAGES = np.array(["Arabic", "Chinese", "Spanish", "Korean"], dtype=object)


def write_parquet(folder: Path, rows: int, file_rows: int, seed: int = 0) -> Path:
    """``rows`` scored responses as parquet files in ``folder/<rows>`` (reused when present)."""
    target = folder / str(rows)
    done = target / "_complete"
    if done.exists():
        return target
    target.mkdir(parents=True, exist_ok=True)
    for i, start in enumerate(range(0, rows, file_rows)):
        n = min(file_rows, rows - start)
        rng = np.random.default_rng([seed, i])
        truth = rng.normal(3.5, 1.1, n)
        sc1 = np.clip(np.rint(truth + rng.normal(0, 0.6, n)), 1, 6)
        sc2 = np.clip(np.rint(truth + rng.normal(0, 0.6, n)), 1, 6)
        frame = pd.DataFrame(
            {
                "sc1": sc1,
                "sc2": np.where(rng.random(n) < 0.5, sc2, np.nan),
                "raw": truth + rng.normal(0, 0.5, n),
                "L1": pd.Categorical.from_codes(rng.integers(0, 4, n), categories=LANGUAGES).astype(str),
                "grade": rng.integers(3, 13, n).astype("int16"),
            }
        )
        frame.to_parquet(target / f"part-{i:04d}.parquet", index=False)
    done.touch()
    return target


def tables(accessor, compute: bool = True) -> dict:
    """The scoring tables that run on dask today, from a frame with ``raw_trim`` columns."""
    kwargs = {} if compute else {"compute": False}
    return {
        "eval": accessor.evaluate(
            human="sc1", system=["raw_trim", "raw_trim_round"], by=["L1", "grade"], **kwargs
        ),
        "consistency": accessor.consistency(human="sc1", second_human="sc2", by=["L1", "grade"], **kwargs),
        "confMatrix": accessor.confusion_matrix(human="sc1", system="raw_trim_round", **kwargs),
        "score_dist": accessor.score_distribution(human="sc1", system="raw_trim_round", **kwargs),
        "degradation": accessor.degradation(human="sc1", second_human="sc2", system="raw_trim", **kwargs),
    }


#: Differences of nearly equal numbers: compared with an absolute 1e-13 besides 1e-12 relative
#: (group estimates and their intervals are differences of group means).
NEAR_ZERO = ("SMD", "DSM", "R2", "R2_unadjusted", "estimate", "[0.025", "0.975]")
#: Test statistics and p-values of fits whose R2 is near 0: an absolute 1e-9 besides.
TEST_STATISTICS = ("F", "sig", "P>[t]")
#: report()'s arguments in the ``report`` job.
REPORT = dict(human="sc1", second_human="sc2", system="raw", by=["L1", "grade"], trim_min=1, trim_max=6)
#: Tables with one row per response (only written, with --with-files).
PER_RESPONSE = ("pred_processed", "test_")


def run_report(engine: str, folder: Path, with_files: bool) -> dict:
    """One timed report() in this process: read the files, the report, (the files)."""
    import shutil  # noqa: PLC0415
    import tempfile  # noqa: PLC0415

    import pdmetrics  # noqa: F401, PLC0415

    warnings.simplefilter("ignore")
    if engine == "dask":  # imported before the clock starts, as pandas is
        import dask  # noqa: PLC0415
        import dask.dataframe as dd  # noqa: PLC0415
    start = time.perf_counter()
    output = Path(tempfile.mkdtemp(prefix="bench-report-", dir=folder.parent))
    if engine == "pandas":
        result = pd.read_parquet(folder).scoring.report(**REPORT)
        if with_files:
            result.to_csv(output)
    else:
        with dask.config.set(scheduler="threads"):
            result = dd.read_parquet(str(folder / "*.parquet")).scoring.report(**REPORT)
            if with_files:
                result.to_csv(output)
    seconds = time.perf_counter() - start
    shutil.rmtree(output)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux -> MB
    summary = {name: result[name] for name in result if not name.startswith(PER_RESPONSE)}
    tables_file = folder.parent / f"report-{folder.name}-{engine}.pickle"  # for the comparison
    pd.to_pickle(summary, tables_file)
    return {"seconds": seconds, "peak_mb": peak, "tables": str(tables_file)}


def run_child(engine: str, folder: Path) -> dict:
    """One timed run in this process: read the files, postprocess, every table."""
    import pdmetrics  # noqa: F401, PLC0415

    warnings.simplefilter("ignore")
    if engine == "dask":  # imported before the clock starts, as pandas is
        import dask  # noqa: PLC0415
        import dask.dataframe as dd  # noqa: PLC0415
    start = time.perf_counter()
    if engine == "pandas":
        frame = pd.read_parquet(folder)
        frame = frame.scoring.postprocess(system="raw", trim_min=1, trim_max=6)
        result = tables(frame.scoring)
    else:
        ddf = dd.read_parquet(str(folder / "*.parquet"))
        ddf = ddf.scoring.postprocess(system="raw", trim_min=1, trim_max=6)
        lazy = tables(ddf.scoring, compute=False)
        with dask.config.set(scheduler="threads"):
            result = dict(zip(lazy, dask.compute(*lazy.values())))
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux -> MB
    tables_file = folder.parent / f"tables-{folder.name}-{engine}.pickle"  # for the comparison
    pd.to_pickle(result, tables_file)
    return {"seconds": seconds, "peak_mb": peak, "tables": str(tables_file)}


def child(engine: str, folder: Path, job: str = "tables", with_files: bool = False) -> dict:
    command = [sys.executable, __file__, "--child", engine, "--folder", str(folder), "--job", job]
    out = subprocess.run(command + ["--with-files"] * with_files, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def same_tables(a: str, b: str) -> bool:
    a, b = pd.read_pickle(a), pd.read_pickle(b)
    if list(a) != list(b):
        print(f"  the tables differ: {list(a)} and {list(b)}")
        return False
    for name in a:
        left, right = a[name], b[name]
        for column in right.columns:
            if pd.api.types.is_float_dtype(right[column]):
                # differences of means or of metrics, 1 - SSR/TSS and group estimates: near 0 they
                # carry the float64 rounding of the numbers they are differences of
                near_zero = column in NEAR_ZERO or str(column).startswith(("SMD.", "R2."))
                floor = 1e-13 if near_zero or name == "degradation" else 0.0
                if column in TEST_STATISTICS:  # F = n R2 / (1 - R2) with R2 near 0 (and t of an
                    # estimate near 0): the rounding of R2 (1e-16) times n (1e7 rows) moves them by 1e-9
                    floor = 1e-9
                if not np.allclose(left[column], right[column], rtol=1e-12, atol=floor, equal_nan=True):
                    print(f"  {name}.{column} differs")
                    return False
            elif left[column].tolist() != right[column].tolist():
                print(f"  {name}.{column} differs")
                return False
    return True


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pandas-max", type=int, default=10_000_000)
    parser.add_argument("--file-rows", type=int, default=1_000_000)
    parser.add_argument("--folder", type=Path, default=Path("/tmp/pdmetrics-bench-dask"))
    parser.add_argument("--child", choices=["pandas", "dask"])
    parser.add_argument("--job", choices=["tables", "report"], default="tables")
    parser.add_argument("--with-files", action="store_true", help="report job: time report.to_csv too")
    args = parser.parse_args()
    if args.child:
        if args.job == "report":
            print(json.dumps(run_report(args.child, args.folder, args.with_files)))
        else:
            print(json.dumps(run_child(args.child, args.folder)))
        return
    print(f"job: {args.job}" + (" (with the files)" if args.with_files else ""))
    cost = []
    for rows in args.rows:
        start = time.perf_counter()
        folder = write_parquet(args.folder, rows, args.file_rows)
        print(f"{rows:,} rows: parquet in {folder} ({time.perf_counter() - start:.1f} s to write or find)")
        job = (args.job, args.with_files)
        runs = {"dask": [child("dask", folder, *job) for _ in range(args.repeats)]}
        if rows <= args.pandas_max:
            runs["pandas"] = [child("pandas", folder, *job) for _ in range(args.repeats)]
        summary = {
            engine: (statistics.median(r["seconds"] for r in rs), max(r["peak_mb"] for r in rs))
            for engine, rs in runs.items()
        }
        for engine, (seconds, peak) in summary.items():
            print(
                f"  {engine:6s} median {seconds:7.2f} s   peak RSS {peak:7.0f} MB  ({len(runs[engine])} runs)"
            )
        if "pandas" in runs:
            equal = same_tables(runs["dask"][-1]["tables"], runs["pandas"][-1]["tables"])
            ratio = summary["dask"][0] / summary["pandas"][0]
            print(f"  dask / pandas time: {ratio:.2f}x   tables equal: {equal}")
        cost.append((rows, *summary["dask"], *summary.get("pandas", (np.nan, np.nan))))
    print("\nrows          dask s   dask peak MB   pandas s   pandas peak MB")
    for rows, ds, dm, ps, pm in cost:
        print(f"{rows:>12,}  {ds:7.2f}  {dm:13.0f}  {ps:9.2f}  {pm:15.0f}")


if __name__ == "__main__":
    main()
