"""Bootstrap confidence intervals computed from resampled confusion counts.

Resampling the rows of a group with replacement and recounting its confusion cells is the
same, in distribution, as drawing the four cell counts from a multinomial with the group's
size and its observed cell proportions. So a bootstrap replicate of every group costs one
multinomial draw of 4 numbers per group, whatever the number of rows: the metrics are then
finalized from the replicate counts with the same vectorized formulas as the estimate.
Rows are resampled *within* each group (a stratified bootstrap), so group sizes stay fixed.
"""

from __future__ import annotations

import warnings

import numpy as np

from pdmetrics.errors import InvalidInputError

__all__ = ["bootstrap_counts", "percentile_interval"]


def bootstrap_counts(counts: np.ndarray, n_boot: int, random_state=None) -> np.ndarray:
    """Bootstrap replicates of per-group confusion counts.

    Parameters
    ----------
    counts : array-like of int, shape ``(n_groups, 4)``
        Observed counts ``[TN, FP, FN, TP]`` per group.
    n_boot : int
        Number of replicates.
    random_state : int or numpy.random.Generator, optional
        Seed for reproducible intervals.

    Returns
    -------
    ndarray of int64, shape ``(n_boot, n_groups, 4)``
        Each group's replicate has the same total as the group.

    Examples
    --------
    >>> from pdmetrics.fairness import bootstrap_counts
    >>> replicates = bootstrap_counts([[5, 1, 2, 12], [3, 3, 0, 4]], n_boot=100, random_state=0)
    >>> replicates.shape, replicates.sum(axis=2).min(axis=0).tolist()
    ((100, 2, 4), [20, 10])
    """
    if not isinstance(n_boot, (int, np.integer)) or isinstance(n_boot, bool) or n_boot < 1:
        raise InvalidInputError(f"`n_boot={n_boot!r}` must be a positive integer (e.g. 1000).")
    counts = np.asarray(counts, dtype=np.int64)
    sizes = counts.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        proportions = np.where(sizes[:, None] > 0, counts / np.where(sizes > 0, sizes, 1)[:, None], 0.25)
    try:
        rng = np.random.default_rng(random_state)
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"`random_state={random_state!r}` must be an integer seed, a numpy.random.Generator, or None."
        ) from None
    return rng.multinomial(sizes, proportions, size=(int(n_boot), counts.shape[0])).astype(np.int64)


def percentile_interval(samples: np.ndarray, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval over the first axis, ignoring NaN replicates (NaN if all are NaN).

    Examples
    --------
    >>> import numpy as np
    >>> from pdmetrics.fairness import percentile_interval
    >>> low, high = percentile_interval(np.arange(101.0)[:, None], confidence=0.9)
    >>> float(low[0]), float(high[0])
    (5.0, 95.0)
    """
    if not 0 < confidence < 1:
        raise InvalidInputError(f"`confidence={confidence!r}` must be between 0 and 1 (e.g. 0.95).")
    alpha = (1 - confidence) / 2
    samples = np.asarray(samples, dtype="float64")
    if samples.size == 0:  # no replicate or no group: nothing to summarize
        empty = np.full(samples.shape[1:], np.nan)
        return empty, empty.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices give NaN, on purpose
        low, high = np.nanquantile(samples, [alpha, 1 - alpha], axis=0)
    return low, high
