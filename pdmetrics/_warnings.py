"""Warnings that point at the user's line.

Every warning pdmetrics emits goes through :func:`emit`, which finds the first stack frame
outside the package, so the warning shows the user's call whether they called an accessor
method or a core function, however deep the helper that noticed the problem sits.
"""

from __future__ import annotations

import sys
import warnings

from pdmetrics.errors import ExcludedRowsWarning, UndefinedMetricWarning


def caller_stacklevel() -> int:
    """``stacklevel`` for a ``warnings.warn`` call made by this function's caller.

    Counts the frames from that caller up to the first frame whose module is not part of
    pdmetrics (the user's line, a notebook cell or a doctest).
    """
    frame = sys._getframe(1)  # the function that will call warnings.warn
    level = 1
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] == "pdmetrics":
        frame = frame.f_back
        level += 1
    return level


def emit(message: str, category: type[Warning]) -> None:
    """Warn with ``category``, attributed to the user's line."""
    warnings.warn(message, category, stacklevel=caller_stacklevel())


def warn_undefined(message: str) -> None:
    """Emit an :class:`~pdmetrics.UndefinedMetricWarning` at the user's line."""
    emit(message, UndefinedMetricWarning)


def warn_excluded(count: int, total: int, what: str) -> None:
    """Emit an :class:`~pdmetrics.ExcludedRowsWarning` for ``count`` of ``total`` rows left out."""
    if count:
        emit(f"{count} of {total} rows left out: {what}.", ExcludedRowsWarning)
