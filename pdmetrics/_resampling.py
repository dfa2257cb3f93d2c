"""The resampling trio (``n_resamples=``, ``confidence=``, ``random_state=``): one check for every
domain that resamples (fairness' bootstrap intervals, text generation's paired bootstrap)."""

from __future__ import annotations

import numpy as np

from pdmetrics._validation import plain
from pdmetrics.errors import InvalidInputError

__all__ = ["check_bootstrap_options", "is_confidence"]


def is_confidence(value) -> bool:
    """Whether ``value`` can be an interval's coverage: a number (not a bool) strictly between 0 and 1."""
    return (
        not isinstance(value, (bool, np.bool_))
        and isinstance(value, (int, float, np.number))
        and 0 < value < 1
    )


def check_bootstrap_options(n_resamples, confidence, random_state, *, required: bool = False) -> None:
    """Refuse a bad ``n_resamples``, ``confidence`` or ``random_state`` before any work.

    ``n_resamples=0`` (no bootstrap) is allowed unless ``required``.
    """
    low = 1 if required else 0
    if (
        not isinstance(n_resamples, (int, np.integer))
        or isinstance(n_resamples, (bool, np.bool_))
        or n_resamples < low
    ):
        raise InvalidInputError(
            f"`n_resamples={plain(n_resamples)!r}` must be a "
            f"{'positive' if required else 'non-negative'} integer "
            f"(e.g. 1000; 0 for no intervals)."
        )
    if not is_confidence(confidence):
        raise InvalidInputError(f"`confidence={plain(confidence)!r}` must be between 0 and 1 (e.g. 0.95).")
    try:
        if isinstance(random_state, (bool, np.bool_)):
            raise TypeError  # default_rng would take True as the seed 1
        np.random.default_rng(random_state)
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"`random_state={plain(random_state)!r}` must be a non-negative integer seed, a "
            f"numpy.random.Generator, or None."
        ) from None
