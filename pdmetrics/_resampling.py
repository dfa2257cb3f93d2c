"""The resampling trio (``n_resamples=``, ``confidence=``, ``random_state=``): one check for every
domain that resamples (fairness' bootstrap intervals, text generation's paired bootstrap)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from pdmetrics._validation import plain
from pdmetrics.errors import InvalidInputError

__all__ = [
    "N_BUCKETS",
    "ORDER_STATISTIC",
    "POISSON_TABLE",
    "bootstrap_key",
    "bootstrap_p_value",
    "check_bootstrap_options",
    "is_confidence",
    "key_buckets",
    "paired_interval",
    "percentile_interval",
    "poisson_weights",
    "resampled_sums",
    "row_buckets",
]


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
            f"(e.g. 1000{'' if required else '; 0 for no intervals'})."
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


# ----------------------------------------------------------------------------------------------
# the Poisson bootstrap that partitions (every engine draws the same weights)
# ----------------------------------------------------------------------------------------------
#: Rows (or keys) with their own bootstrap weights: the rows numbered ``0..N_BUCKETS-1`` each
#: have theirs; a later row shares the weights of one of them, drawn from the seed and its
#: number (a random grouping of rows, which keeps the resampling valid and its work bounded).
N_BUCKETS = 2**16

#: Poisson(1) as a table of 65,536 equally likely values (each count ``k`` takes its share
#: ``e^-1 / k!`` of the table, to within 1/65,536): a weight is one 16-bit random number looked up.
_POISSON_CDF = np.cumsum([np.exp(-1.0) / np.prod(np.arange(1, k + 1, dtype="float64")) for k in range(16)])
POISSON_TABLE = np.searchsorted(_POISSON_CDF, (np.arange(2**16) + 0.5) / 2**16).astype(np.uint8)

# resamples whose weights are multiplied at once (bounds the float64 copy at ~64 MB)
_BLOCK_CELLS = 2**23


def bootstrap_key(random_state) -> int:
    """The 63-bit key every engine draws the same weights from: the seed itself, a number drawn
    from a :class:`numpy.random.Generator`, or fresh entropy for None."""
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, (bool, np.bool_)):
        return int(random_state) % 2**63
    return int(np.random.default_rng(random_state).integers(2**63))


def _mixed(values: np.ndarray, key: int) -> np.ndarray:
    """SplitMix64's finalizer of ``values ^ key`` (uint64): well-spread bits from row numbers."""
    z = np.bitwise_xor(values.astype(np.uint64), np.uint64(key))
    with np.errstate(over="ignore"):
        z = z + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def row_buckets(rows: np.ndarray, key: int) -> np.ndarray:
    """The bucket of each row from its number in the caller's frame (``0..``): its own below
    :data:`N_BUCKETS`, a random one (from ``key``) beyond."""
    rows = np.asarray(rows, dtype=np.int64)
    spread = (_mixed(rows, key) % np.uint64(N_BUCKETS)).astype(np.intp)
    return np.where(rows < N_BUCKETS, rows, spread).astype(np.intp)


def key_buckets(values, key: int) -> np.ndarray:
    """The bucket of each row from the value of its key (an image, a datum): rows of one key
    share their weights in every resample (pandas' value hash, then ``key``)."""
    hashed = pd.util.hash_array(np.asarray(values, dtype=object) if _is_text(values) else np.asarray(values))
    return (_mixed(hashed, key) % np.uint64(N_BUCKETS)).astype(np.intp)


def _is_text(values) -> bool:
    dtype = getattr(values, "dtype", None)
    return dtype is None or dtype.kind not in "iufb"


def poisson_weights(key: int, n_buckets: int, n_resamples: int, buckets=None) -> np.ndarray:
    """Poisson(1) weights of buckets ``0..n_buckets-1`` (rows) in each resample (columns),
    uint8, from ``key``; the weights of a bucket do not depend on ``n_buckets``.

    ``buckets`` (sorted bucket numbers below ``n_buckets``): only those rows, the same values,
    drawn a slab of buckets at a time (the memory of the rows kept, e.g. the few buckets that
    :func:`key_buckets` spreads some images over)."""
    n_buckets, n_resamples = int(n_buckets), int(n_resamples)
    per_bucket = -(-n_resamples // 4) * 4  # whole 64-bit words per bucket
    generator = np.random.SFC64(key)
    if buckets is None:
        raw = generator.random_raw(n_buckets * per_bucket // 4)
        return POISSON_TABLE[raw.view(np.uint16)].reshape(n_buckets, per_bucket)[:, :n_resamples]
    buckets = np.asarray(buckets, dtype=np.intp)
    out = np.empty((buckets.size, n_resamples), dtype=np.uint8)
    slab = max(1, _BLOCK_CELLS // per_bucket)
    for lo in range(0, n_buckets, slab):  # slabs of buckets, in the stream's order
        raw = generator.random_raw((min(n_buckets, lo + slab) - lo) * per_bucket // 4)
        kept = np.flatnonzero((buckets >= lo) & (buckets < lo + slab))
        draws = raw.view(np.uint16).reshape(-1, per_bucket)[buckets[kept] - lo, :n_resamples]
        out[kept] = POISSON_TABLE[draws]
    return out


def resampled_sums(weights: np.ndarray, per_bucket: np.ndarray, rows=None) -> np.ndarray:
    """``weights[rows].T @ per_bucket``: each resample's weighted sums of the buckets' statistics
    (``per_bucket``: one row per bucket, any trailing shape; ``rows``: the row of ``weights`` of
    each of them, default the first ones in order), float64, in blocks of resamples.

    The columns of non-negative whole numbers (counts) are summed in float32: exact while a
    sum stays below 2**24 (every partial sum is then a smaller whole number), so the same
    numbers as float64's at half the memory traffic; a column whose sum reaches 2**24 in some
    resample is summed again in float64."""
    per_bucket = np.asarray(per_bucket, dtype="float64")
    flat = per_bucket.reshape(per_bucket.shape[0], -1)
    n, n_resamples = flat.shape[0], weights.shape[1]
    out = np.zeros((n_resamples, flat.shape[1]))
    if rows is not None:
        rows = np.asarray(rows, dtype=np.intp)
        if rows.size and rows[-1] - rows[0] == rows.size - 1 and (np.diff(rows) == 1).all():
            weights, rows = weights[rows[0] : rows[-1] + 1], None  # consecutive rows: a view, no copy
    if n == 0 or n_resamples == 0 or flat.shape[1] == 0:
        return out.reshape(n_resamples, *per_bucket.shape[1:])
    single = np.empty(flat.shape, dtype=np.float32)
    whole = np.ones(flat.shape[1], dtype=bool)
    for lo in range(0, n, _SLAB_ROWS):  # slabs that stay in cache: the float32 copy and the check
        slab = flat[lo : lo + _SLAB_ROWS]
        single[lo : lo + _SLAB_ROWS] = slab
        whole &= ((slab >= 0) & (slab == np.trunc(slab))).all(axis=0)
    exact = np.flatnonzero(whole)
    if exact.size:
        counts = single if exact.size == flat.shape[1] else single[:, exact]
        _products(weights, rows, counts, out, exact, 2 * _BLOCK_CELLS)
        exact = exact[~(out[:, exact] < 2.0**24).all(axis=0)]  # reached 2**24 (or not finite)
    rest = np.union1d(np.flatnonzero(~whole), exact)
    if rest.size:
        _products(weights, rows, flat[:, rest], out, rest, _BLOCK_CELLS)
    return out.reshape(n_resamples, *per_bucket.shape[1:])


# rows of the per-bucket statistics converted and checked at once (a slab that stays in cache)
_SLAB_ROWS = 1024


def _products(weights, rows, part: np.ndarray, out: np.ndarray, columns: np.ndarray, cells: int) -> None:
    """``out[:, columns] = weights[rows].T @ part`` in ``part``'s dtype, in blocks of resamples whose
    converted weights hold at most ``cells`` numbers (64 MB)."""
    step = max(1, cells // part.shape[0])
    for lo in range(0, weights.shape[1], step):  # blocks of resamples, each one matrix product
        block = weights[:, lo : lo + step] if rows is None else weights[rows, lo : lo + step]
        out[lo : lo + step, columns] = block.astype(part.dtype).T @ part


#: The percentile rule of the paired comparisons: the ``(B + 1) * alpha``-th smallest of ``B``
#: replicates (Davison & Hinkley 1997, sec. 5.2.1; numpy's ``method="weibull"``, interpolated).
ORDER_STATISTIC = "weibull"


def percentile_interval(
    samples: np.ndarray, confidence: float = 0.95, *, method: str = "linear"
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval over the first axis, ignoring NaN replicates (NaN if all are NaN).

    ``method``: how the tails' quantiles are read off the replicates, as in
    :func:`numpy.quantile`. ``"linear"`` (default) puts the ``alpha`` quantile of ``B``
    replicates at the ``alpha * (B - 1) + 1``-th smallest, which sits inside the bootstrap
    distribution when ``B`` is small (with 100 replicates, 95% intervals about 4% too narrow);
    ``"weibull"`` (:data:`ORDER_STATISTIC`, which the paired comparisons use) at the
    ``alpha * (B + 1)``-th, whose expected share of the distribution below it is ``alpha``
    whatever ``B`` (Davison & Hinkley 1997, sec. 5.2.1).

    Examples
    --------
    >>> import numpy as np
    >>> from pdmetrics.fairness import percentile_interval
    >>> low, high = percentile_interval(np.arange(101.0)[:, None], confidence=0.9)
    >>> float(low[0]), float(high[0])
    (5.0, 95.0)
    >>> low, high = percentile_interval(np.arange(99.0)[:, None], confidence=0.9, method="weibull")
    >>> float(low[0]), float(high[0])  # the 5th smallest and the 5th largest of 99
    (4.0, 94.0)
    """
    check_bootstrap_options(1, confidence, None)
    alpha = (1 - confidence) / 2
    samples = np.asarray(samples, dtype="float64")
    if samples.size == 0:  # no replicate or no group: nothing to summarize
        empty = np.full(samples.shape[1:], np.nan)
        return empty, empty.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices give NaN, on purpose
        low, high = np.nanquantile(samples, [alpha, 1 - alpha], axis=0, method=method)
    return low, high


def bootstrap_p_value(differences: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """Two-sided p-value of "no difference" from resampled differences (first axis): the share
    of the resampled differences, centred on their mean, at least as far from 0 as the observed
    one, ``(c + 1) / (B + 1)`` over the finite resamples (Koehn 2004, as sacrebleu's paired
    bootstrap). 1.0 when nothing differs; NaN without a finite resample or observation."""
    differences = np.asarray(differences, dtype="float64")
    observed = np.abs(np.asarray(observed, dtype="float64"))
    finite = np.isfinite(differences)
    count = finite.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        centre = np.where(finite, differences, 0.0).sum(axis=0) / count
        far = finite & (np.abs(differences - centre) >= observed * (1 - 1e-12))
        p = (far.sum(axis=0) + 1.0) / (count + 1.0)
    return np.where((count == 0) | ~np.isfinite(observed), np.nan, np.minimum(p, 1.0))


def paired_interval(differences: np.ndarray, observed, confidence: float) -> tuple:
    """The interval and p-value of a paired comparison from its resampled differences (first
    axis): the percentile interval with :data:`ORDER_STATISTIC` ends and the centred bootstrap
    p-value (:func:`bootstrap_p_value`), as ``(low, high, p)``; what every ``compare`` reports
    for a bootstrapped difference.

    Examples
    --------
    >>> import numpy as np
    >>> from pdmetrics._resampling import paired_interval
    >>> differences = np.linspace(-1.0, 3.0, 399)[:, None]
    >>> low, high, p = paired_interval(differences, [1.0], 0.95)
    >>> float(low[0]), float(high[0]), float(p[0])
    (-0.9, 2.9, 0.5)
    """
    low, high = percentile_interval(differences, confidence, method=ORDER_STATISTIC)
    return low, high, bootstrap_p_value(differences, observed)
