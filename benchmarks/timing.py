"""Shared timing helper for the benchmark scripts (run as ``python benchmarks/bench_*.py``)."""

from __future__ import annotations

import statistics
import time


def median_time(function, repeat: int) -> tuple[float, object]:
    """Call ``function()`` ``repeat`` times; return the median wall time (s) and the last result."""
    times, result = [], None
    for _ in range(max(int(repeat), 1)):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result
