"""Shared timing helper for the benchmark scripts (run as ``python benchmarks/bench_*.py``)."""

from __future__ import annotations

import gc
import statistics
import time


def median_time(function, repeat: int) -> tuple[float, object]:
    """Call ``function()`` ``repeat`` times; return the median wall time (s) and the last result.

    Garbage left by earlier calls is collected before each one, out of the timing."""
    times, result = [], None
    for _ in range(max(int(repeat), 1)):
        gc.collect()
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def paired_times(first, second, repeat: int) -> tuple[dict, dict, object, object]:
    """Call ``first()`` then ``second()``, ``repeat`` times in turn (so that both see the same
    load of the machine); return the times of each (``{"wall": [...], "cpu": [...]}``, seconds;
    cpu is this process's user + system time, steadier than wall time on a loaded machine) and
    their last results. Garbage left by earlier calls is collected before each one, out of the
    timing: neither pays for the other's."""
    times = ({"wall": [], "cpu": []}, {"wall": [], "cpu": []})
    results = [None, None]
    for _ in range(max(int(repeat), 1)):
        for k, function in enumerate((first, second)):
            gc.collect()
            wall, cpu = time.perf_counter(), time.process_time()
            results[k] = function()
            times[k]["cpu"].append(time.process_time() - cpu)
            times[k]["wall"].append(time.perf_counter() - wall)
    return times[0], times[1], results[0], results[1]


def row_resampling_reference(resample, frame, timed: int, total: int, what: str) -> float:
    """The reference of the ``compare`` benchmarks: ``resample(frame, rng)`` (one resample of the
    rows and the metrics recomputed) timed ``timed`` times, scaled to ``total`` resamples and
    printed (``what`` names the libraries it uses); returns the scaled seconds."""
    import numpy as np

    rng = np.random.default_rng(0)
    resample(frame.head(100), rng)  # imports out of the timing
    start = time.perf_counter()
    for _ in range(timed):  # the reference: one pass over the rows per resample
        resample(frame, rng)
    per_resample = (time.perf_counter() - start) / timed
    print(
        f"row-resampling loop ({what}): {per_resample:.3f} s per resample, "
        f"timed over {timed} resamples -> {per_resample * total:.0f} s for {total}"
    )
    return per_resample * total


def compare_arguments(description: str, reference_resamples: int):
    """The command line of the ``compare`` benchmarks: ``--rows``, ``--resamples``, ``--repeats``
    and ``--reference-resamples`` (the resamples of the reference loop actually timed)."""
    import argparse

    parser = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--reference-resamples", type=int, default=reference_resamples)
    return parser.parse_args()
