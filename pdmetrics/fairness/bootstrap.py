"""Bootstrap confidence intervals computed from resampled confusion counts.

Resampling the rows of a group with replacement and recounting its confusion cells is the
same, in distribution, as drawing the four cell counts from a multinomial with the group's
size and its observed cell proportions. So a bootstrap replicate of every group costs one
multinomial draw of 4 numbers per group, whatever the number of rows: the metrics are then
finalized from the replicate counts with the same vectorized formulas as the estimate.
Rows are resampled *within* each group (a stratified bootstrap), so group sizes stay fixed.
"""

from __future__ import annotations

import os

import numpy as np

from pdmetrics._renamed import renamed
from pdmetrics._resampling import check_bootstrap_options, percentile_interval
from pdmetrics._wrappers import keyword_group
from pdmetrics.errors import InvalidInputError

__all__ = ["add_intervals", "bootstrap_counts", "bootstrap_options", "percentile_interval"]

#: The interval options of the tables with bootstrap intervals, as their docstrings describe them
#: (filled in by :func:`pdmetrics._docstrings.fill`).
INTERVAL_OPTIONS = """
confidence : float, default 0.95
    Coverage of the intervals.
random_state : int or numpy.random.Generator, optional
    Seed of the bootstrap.
"""


def _resampling(*, n_resamples: int = 0, confidence: float = 0.95, random_state=None) -> dict:
    return {"n_resamples": n_resamples, "confidence": confidence, "random_state": random_state}


#: A decorator: the builder's ``resampling`` (a dict of them) stands for the bootstrap options
#: ``n_resamples: int = 0, confidence: float = 0.95, random_state=None`` of its public signature
#: (:func:`pdmetrics._wrappers.keyword_group`); each table describes them in its own docstring.
bootstrap_options = keyword_group("resampling", _resampling)


@renamed("n_boot")
def bootstrap_counts(counts: np.ndarray, n_resamples: int, random_state=None) -> np.ndarray:
    """Bootstrap replicates of per-group confusion counts.

    Parameters
    ----------
    counts : array-like of int, shape ``(n_groups, 4)``
        Observed counts ``[TN, FP, FN, TP]`` per group.
    n_resamples : int
        Number of replicates.
    random_state : int or numpy.random.Generator, optional
        Seed for reproducible intervals.

    Returns
    -------
    ndarray of int64, shape ``(n_resamples, n_groups, 4)``
        Each group's replicate has the same total as the group.

    Examples
    --------
    >>> from pdmetrics.fairness import bootstrap_counts
    >>> replicates = bootstrap_counts([[5, 1, 2, 12], [3, 3, 0, 4]], n_resamples=100, random_state=0)
    >>> replicates.shape, replicates.sum(axis=2).min(axis=0).tolist()
    ((100, 2, 4), [20, 10])
    """
    check_bootstrap_options(n_resamples, 0.95, random_state, required=True)
    counts = np.asarray(counts, dtype=np.int64)
    sizes = counts.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        proportions = np.where(sizes[:, None] > 0, counts / np.where(sizes > 0, sizes, 1)[:, None], 0.25)
    rng = np.random.default_rng(random_state)
    shape = (int(n_resamples), counts.shape[0])
    check_resample_size(shape[0], shape[1])
    try:
        return rng.multinomial(sizes, proportions, size=shape).astype(np.int64)
    except MemoryError:
        raise _too_many_resamples(shape[0], shape[1], "does not fit in the memory left") from None


#: Arrays of the size of the resampled counts a bootstrap holds at once (the draw, its int64
#: copy, the metrics finalized from them): the estimate of its memory.
_RESAMPLE_ARRAYS = 4


def _memory_bytes() -> int | None:
    """This machine's physical memory in bytes (None where the OS does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def _too_many_resamples(n_resamples: int, n_groups: int, why: str) -> InvalidInputError:
    size = n_resamples * n_groups * 4 * 8 * _RESAMPLE_ARRAYS
    return InvalidInputError(
        f"`n_resamples={n_resamples}`: the bootstrap would hold about {_bytes(size)} of resampled "
        f"counts ({n_resamples} resamples x {n_groups} groups x 4 cells), which {why}; pass a smaller "
        "n_resamples, e.g. n_resamples=1000."
    )


def _bytes(size: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:.0f} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    return ""  # unreachable


def check_resample_size(n_resamples: int, n_groups: int) -> None:
    """Refuse, before any allocation, a bootstrap whose resampled counts (``n_resamples`` x
    ``n_groups`` x 4 cells of int64, a few arrays of that size) exceed this machine's memory."""
    memory = _memory_bytes()
    if memory is not None and n_resamples * n_groups * 4 * 8 * _RESAMPLE_ARRAYS > memory:
        raise _too_many_resamples(n_resamples, n_groups, f"exceeds this machine's memory ({_bytes(memory)})")


def add_intervals(table, replicates, names, confidence: float) -> None:
    """Add to ``table`` the columns ``<name>_low`` and ``<name>_high`` of each of ``names``: the
    percentile interval of its replicates ``replicates[name]`` (replicates along the first axis)."""
    for name in names:
        table[f"{name}_low"], table[f"{name}_high"] = percentile_interval(replicates[name], confidence)
