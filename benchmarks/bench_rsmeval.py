"""Benchmark: ``pdmetrics rsmeval`` against RSMTool's ``rsmeval``, end to end, in one run.

Writes a seeded rsmeval experiment (``simulate_scores``: human ``sc1``, second human ``sc2`` on
half the responses, system ``raw``, subgroup columns ``L1`` (4 groups) and ``grade`` (10)), then
times, as separate processes (Python start, imports, reading the file, every table, the HTML
report):

- ``pdmetrics rsmeval CONFIG OUT`` (this venv's console script), median of ``--repeats`` runs,
  as pip installs pdmetrics: a copy of the package with its bytecode compiled (RSMTool's venv
  has its own); and, to compare, from this checkout as the environment gives it (with
  ``PYTHONDONTWRITEBYTECODE`` set, every run compiles pdmetrics' modules again), run in turns;
- ``rsmeval CONFIG OUT`` from RSMTool's own venv (``--rsmeval``, default ``$RSMEVAL`` or
  ``rsmeval`` on PATH; RSMTool pins numpy<2, so it cannot share pdmetrics' venv), median of
  ``--reference-repeats`` runs;

checks that every table file both wrote agrees (rtol 1e-9), and prints the ratio. Then times
``report()`` + ``to_html()`` in process on ``--report-rows`` responses with ``by="L1"`` (4 groups).

    python benchmarks/bench_rsmeval.py [--rows 100000] [--repeats 5]
        [--rsmeval /path/to/rsmtool-venv/bin/rsmeval] [--reference-repeats 3] [--report-rows 1000000]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from timing import median_time

import pdmetrics  # noqa: F401
from pdmetrics.datasets import simulate_scores


def write_experiment(directory: Path, rows: int, seed: int = 0) -> Path:
    """The predictions CSV and the rsmeval config; returns the config path."""
    frame = simulate_scores(rows, seed=seed)
    rng = np.random.default_rng(seed + 1)
    frame["grade"] = rng.integers(3, 13, rows).astype(str)
    frame.to_csv(directory / "predictions.csv", index=False)
    config = {
        "experiment_id": "bench",
        "description": f"pdmetrics benchmark, {rows} simulated responses",
        "predictions_file": "predictions.csv",
        "system_score_column": "raw",
        "human_score_column": "sc1",
        "second_human_score_column": "sc2",
        "id_column": "id",
        "subgroups": ["L1", "grade"],
        "trim_min": 1,
        "trim_max": 6,
    }
    path = directory / "bench.json"
    path.write_text(json.dumps(config, indent=2))
    return path


def installed(directory: Path) -> dict:
    """The environment of a pdmetrics installed by pip: a copy of the package in ``directory``
    with its bytecode compiled, first on ``PYTHONPATH``."""
    site = directory / "site"
    package = Path(pdmetrics.__file__).parent
    shutil.copytree(package, site / "pdmetrics", ignore=shutil.ignore_patterns("__pycache__"))
    compileall.compile_dir(site / "pdmetrics", quiet=1)
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *([path] if path else [])])}


def run(command: list[str], out: Path, env: dict | None = None) -> float:
    """Wall time of one run of ``command + [out]`` in a fresh output directory."""
    shutil.rmtree(out, ignore_errors=True)
    start = time.perf_counter()
    done = subprocess.run([*command, str(out)], capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return seconds


def median_run(command: list[str], out: Path, repeats: int, env: dict | None = None) -> float:
    return statistics.median(run(command, out, env) for _ in range(max(repeats, 1)))


def median_runs(command: list[str], outs: list[Path], envs: list, repeats: int) -> list[float]:
    """The median of each environment's runs, taken in turns (a busy spell slows them alike)."""
    times = [[run(command, out, env) for out, env in zip(outs, envs)] for _ in range(max(repeats, 1))]
    return [statistics.median(column) for column in zip(*times)]


def compare_tables(ours: Path, theirs: Path) -> tuple[int, list[str]]:
    """Compare every CSV both wrote; returns (files compared, files that differ)."""
    differ, compared = [], 0
    for path in sorted((theirs / "output").glob("*.csv")):
        mine = ours / "output" / path.name
        if not mine.exists():
            differ.append(f"{path.name} (not written by pdmetrics)")
            continue
        compared += 1
        a, b = pd.read_csv(mine, index_col=0), pd.read_csv(path, index_col=0)
        try:
            b = b[a.columns] if set(a.columns) == set(b.columns) else b
            pd.testing.assert_frame_equal(
                a.sort_index(axis=1), b.sort_index(axis=1), check_dtype=False, rtol=1e-9, atol=1e-12
            )
        except (AssertionError, KeyError, ValueError, TypeError) as error:
            differ.append(f"{path.name}: {str(error).splitlines()[0][:120]}")
    return compared, differ


def find_rsmeval(given: str | None) -> str | None:
    candidate = given or os.environ.get("RSMEVAL") or shutil.which("rsmeval")
    return candidate if candidate and Path(candidate).exists() else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rsmeval", default=None)
    parser.add_argument("--reference-repeats", type=int, default=3)
    parser.add_argument("--report-rows", type=int, default=1_000_000)
    args = parser.parse_args()
    pdmetrics_command = str(Path(sys.executable).with_name("pdmetrics"))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        config = write_experiment(tmp, args.rows)
        env = installed(tmp)
        python_start = median_run([sys.executable, "-c", "pass", "#"], tmp / "x", args.repeats)
        importing = median_run([sys.executable, "-c", "import pdmetrics", "#"], tmp / "x", args.repeats, env)
        command = [pdmetrics_command, "rsmeval", str(config)]
        ours, from_source = median_runs(
            command, [tmp / "pdmetrics", tmp / "source"], [env, None], args.repeats
        )
        print(
            f"{args.rows:,} responses, second human on half, subgroups L1 (4) and grade (10); "
            f"end to end, as a separate process:"
        )
        print(
            f"  pdmetrics rsmeval: median {ours:.2f} s over {args.repeats} runs, bytecode compiled as pip "
            f"installs it (of which Python start {python_start:.2f} s, python -c 'import pdmetrics' "
            f"{importing:.2f} s)"
        )
        bytecode = "not written" if sys.dont_write_bytecode else "written on first import"
        print(f"  from this checkout (bytecode {bytecode}): median {from_source:.2f} s")
        rsmeval = find_rsmeval(args.rsmeval)
        if rsmeval is None:
            print("  rsmeval: not found (pass --rsmeval PATH or set RSMEVAL): no reference timing")
        else:
            theirs = median_run([rsmeval, str(config)], tmp / "rsmeval", args.reference_repeats)
            compared, differ = compare_tables(tmp / "pdmetrics", tmp / "rsmeval")
            print(f"  rsmeval ({rsmeval}): median {theirs:.2f} s over {args.reference_repeats} runs")
            print(
                f"  ratio: pdmetrics is {theirs / ours:.0f}x faster ({theirs / from_source:.0f}x from this "
                "checkout)"
            )
            print(f"  tables: {compared} files compared at rtol 1e-9; differing: {differ or 'none'}")
    warnings.simplefilter("ignore")
    frame = simulate_scores(args.report_rows, seed=0)

    def report_and_html():
        report = frame.scoring.report(
            human="sc1", system="raw", second_human="sc2", by="L1", trim_min=1, trim_max=6
        )
        return report, report.to_html()

    seconds, (report, page) = median_time(report_and_html, 3)
    print(
        f"report() + to_html() on {args.report_rows:,} responses, by='L1' (4 groups), second human: "
        f"median {seconds:.2f} s over 3 runs ({len(report)} tables, {len(page) / 1e3:.0f} kB of HTML)"
    )


if __name__ == "__main__":
    main()
