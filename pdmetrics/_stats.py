"""Additive sufficient statistics: counts, sums, centred moments and histograms by group.

Every metric in pdmetrics is finalized from statistics that can be computed per chunk of
rows and combined (counts and sums add; centred moments combine with Chan et al.'s
pairwise update). Here they are computed for all groups of a factorized key at once with
``np.bincount``: no Python loop over rows or groups.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def smallest_integer_type(low: float, high: float) -> type:
    """The narrowest signed integer type holding ``low..high`` (codes or labels of 10M rows
    take 10 MB as int8 instead of 80 MB as int64; arithmetic on them must widen first)."""
    for dtype in (np.int8, np.int16, np.int32):
        if np.iinfo(dtype).min <= low and high <= np.iinfo(dtype).max:
            return dtype
    return np.int64


def group_sum(codes: np.ndarray, values: np.ndarray, n_groups: int) -> np.ndarray:
    """Sum of ``values`` per group code (0..n_groups-1), as float64."""
    return np.bincount(codes, weights=values, minlength=n_groups).astype("float64", copy=False)


#: Rows per block of a blocked sum: the rounding error of a sequential sum grows with its
#: length; blocks keep each short and their totals are few.
_SUM_BLOCK = 1 << 13


def accurate_group_sum(codes: np.ndarray | None, values: np.ndarray, n_groups: int = 1) -> np.ndarray:
    """Sum of ``values`` per group (one entry when ``codes`` is None), accurate enough that the
    sums of a column cut into partitions and added equal the one-pass sums to ~1e-15 relative.

    ``np.bincount`` adds a group's values one after the other, so its rounding error grows with
    the rows (1e-13 relative at 10M rows, and more for a difference of two sums); here it adds
    blocks of :data:`_SUM_BLOCK` rows and then the blocks' totals (numpy's pairwise ``sum``
    when there are no groups). A loop over blocks of rows, not over rows.
    """
    if codes is None:
        return np.array([np.add.reduce(values)], dtype="float64")
    if values.size <= _SUM_BLOCK:
        return group_sum(codes, values, n_groups)
    total = np.zeros(n_groups)
    for start in range(0, values.size, _SUM_BLOCK):
        end = start + _SUM_BLOCK
        total += np.bincount(codes[start:end], weights=values[start:end], minlength=n_groups)
    return total


def group_count(codes: np.ndarray, n_groups: int) -> np.ndarray:
    """Number of rows per group code."""
    return np.bincount(codes, minlength=n_groups)


def group_min_max(
    codes: np.ndarray | None, values: np.ndarray, n_groups: int = 1, counts: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Minimum and maximum of ``values`` per group (NaN for an empty group); ``counts``
    (``group_count(codes, n_groups)``) may be passed when already known."""
    if codes is None:
        if values.size == 0:
            return np.array([np.nan]), np.array([np.nan])
        return np.array([values.min()]), np.array([values.max()])
    low = np.full(n_groups, np.inf)
    high = np.full(n_groups, -np.inf)
    np.minimum.at(low, codes, values)
    np.maximum.at(high, codes, values)
    empty = (group_count(codes, n_groups) if counts is None else counts) == 0
    low[empty] = np.nan
    high[empty] = np.nan
    return low, high


def histogram_min_max(histograms: np.ndarray, first_label: int) -> tuple[np.ndarray, np.ndarray]:
    """Smallest and largest label per group of label histograms (``histograms[g, j]``: rows of
    group g with label ``first_label + j``), as floats; NaN for an empty group."""
    filled = histograms > 0
    any_filled = filled.any(axis=1)
    low = np.where(any_filled, first_label + np.argmax(filled, axis=1), np.nan)
    high = np.where(
        any_filled, first_label + filled.shape[1] - 1 - np.argmax(filled[:, ::-1], axis=1), np.nan
    )
    return low.astype("float64"), high.astype("float64")


def group_count_where(codes: np.ndarray | None, condition: np.ndarray, n_groups: int = 1) -> np.ndarray:
    """Number of rows per group where ``condition`` is true."""
    if codes is None:
        return np.array([int(np.count_nonzero(condition))])
    return np.bincount(codes, weights=condition, minlength=n_groups).astype("int64")


def group_total(codes: np.ndarray | None, values: np.ndarray, n_groups: int = 1) -> np.ndarray:
    """Sum of ``values`` per group (one entry when ``codes`` is None)."""
    if codes is None:
        return np.array([values.sum()], dtype="float64")
    return group_sum(codes, values, n_groups)


@dataclass(frozen=True)
class Centred:
    """Count, mean, deviations from the mean and centred sum of squares of one array, per group.

    One side of :class:`Moments`: computed once for a column paired with several others.
    """

    n: np.ndarray
    mean: np.ndarray
    deviations: np.ndarray
    m2: np.ndarray

    @classmethod
    def from_array(
        cls,
        x: np.ndarray,
        codes: np.ndarray | None = None,
        n_groups: int = 1,
        *,
        out: np.ndarray | None = None,
        scratch: np.ndarray | None = None,
        counts: np.ndarray | None = None,
    ) -> Centred:
        """Mean per group, then the deviations from it and their sum of squares.

        ``out`` (a float array of ``x``'s size) receives the deviations and ``scratch`` (the
        same) holds their squares, so a caller centring many columns reuses two buffers
        instead of allocating large temporaries for each. ``counts``
        (``group_count(codes, n_groups)``) may be passed when already known.
        """
        if codes is None:
            n = np.array([x.size])
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = accurate_group_sum(None, x) / x.size if x.size else np.array([np.nan])
            deviations = np.subtract(x, mean[0], out=out)
        else:
            n = group_count(codes, n_groups) if counts is None else counts
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = accurate_group_sum(codes, x, n_groups) / n
            deviations = np.take(mean, codes, out=out, mode="clip")  # codes are in range: no bounds check
            np.subtract(x, deviations, out=deviations)
        squares = np.multiply(deviations, deviations, out=scratch)
        return cls(n, mean, deviations, accurate_group_sum(codes, squares, n_groups))


@dataclass(frozen=True)
class Moments:
    """Count, mean and centred second moments of paired values ``x`` and ``y`` per group.

    ``m2_x = sum((x - mean_x)**2)``, ``m2_y`` likewise and ``c_xy = sum((x - mean_x) *
    (y - mean_y))``. Arrays have one entry per group. Two ``Moments`` of disjoint row sets
    combine with :meth:`combine` (Chan, Golub & LeVeque's pairwise update), which is what
    lets the same metrics run partition by partition.
    """

    n: np.ndarray
    mean_x: np.ndarray
    mean_y: np.ndarray
    m2_x: np.ndarray
    m2_y: np.ndarray
    c_xy: np.ndarray

    @classmethod
    def from_arrays(
        cls, x: np.ndarray, y: np.ndarray, codes: np.ndarray | None = None, n_groups: int = 1
    ) -> Moments:
        """Two-pass (mean, then centred sums) moments of ``x`` and ``y`` per group."""
        return cls.from_centred(
            Centred.from_array(x, codes, n_groups), Centred.from_array(y, codes, n_groups), codes
        )

    @classmethod
    def from_centred(
        cls, x: Centred, y: Centred, codes: np.ndarray | None = None, scratch: np.ndarray | None = None
    ) -> Moments:
        """The moments of two :class:`Centred` sides of the same rows (adds their cross-products,
        in ``scratch`` when given)."""
        products = np.multiply(x.deviations, y.deviations, out=scratch)
        c_xy = accurate_group_sum(codes, products, x.n.size)
        return cls(x.n, x.mean, y.mean, x.m2, y.m2, c_xy)

    def placed(self, positions: np.ndarray, n_groups: int) -> Moments:
        """These groups' moments at ``positions`` among ``n_groups`` groups; the other groups
        have no rows (count 0, NaN means, zero sums)."""

        def spread(values, fill):
            out = np.full((n_groups, *values.shape[1:]), fill, dtype=values.dtype)
            out[positions] = values
            return out

        fields = (self.n, self.mean_x, self.mean_y, self.m2_x, self.m2_y, self.c_xy)
        return Moments(
            *(spread(values, fill) for values, fill in zip(fields, (0, *[np.nan] * 2, *[0.0] * 3)))
        )

    def combine(self, other: Moments) -> Moments:
        """Moments of the union of two disjoint row sets (group by group)."""
        n = self.n + other.n
        with np.errstate(invalid="ignore", divide="ignore"):
            wa = np.where(n > 0, self.n / n, 0.0)
            wb = np.where(n > 0, other.n / n, 0.0)
            dxm = other.mean_x - self.mean_x
            dym = other.mean_y - self.mean_y
            cross = self.n * other.n / np.where(n > 0, n, 1)
        mean_x = np.where(
            self.n == 0,
            other.mean_x,
            np.where(other.n == 0, self.mean_x, wa * self.mean_x + wb * other.mean_x),
        )
        mean_y = np.where(
            self.n == 0,
            other.mean_y,
            np.where(other.n == 0, self.mean_y, wa * self.mean_y + wb * other.mean_y),
        )
        safe = (self.n > 0) & (other.n > 0)
        m2_x = self.m2_x + other.m2_x + np.where(safe, dxm * dxm * cross, 0.0)
        m2_y = self.m2_y + other.m2_y + np.where(safe, dym * dym * cross, 0.0)
        c_xy = self.c_xy + other.c_xy + np.where(safe, dxm * dym * cross, 0.0)
        return Moments(n, mean_x, mean_y, m2_x, m2_y, c_xy)

    def variance_x(self, ddof: int = 1) -> np.ndarray:
        """Variance of ``x`` with divisor ``n - ddof`` (NaN where ``n <= ddof``)."""
        return _divide(self.m2_x, self.n - ddof)

    def variance_y(self, ddof: int = 1) -> np.ndarray:
        """Variance of ``y`` with divisor ``n - ddof`` (NaN where ``n <= ddof``)."""
        return _divide(self.m2_y, self.n - ddof)


def _divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    denominator = np.asarray(denominator, dtype="float64")
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1.0), np.nan)


def label_histograms(
    labels_x: np.ndarray,
    labels_y: np.ndarray,
    codes: np.ndarray | None = None,
    n_groups: int = 1,
    out: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Histograms of two integer label arrays over their common label range, per group.

    Returns ``(hist_x, hist_y, agree, labels)``: ``hist_*`` have shape
    ``(n_groups, n_labels)`` (label ``labels[j]`` in column ``j``), ``agree`` counts the
    rows with ``labels_x == labels_y`` per group. Labels are shifted by the minimum, so
    negative labels are fine; a label range wider than the data is compressed to the
    labels actually present, so memory stays proportional to the distinct labels.
    ``out`` (an ``intp`` array of the labels' size) is a work array for the joint codes.
    """
    if labels_x.size == 0:
        empty = np.zeros((n_groups, 0), dtype="int64")
        return empty, empty, np.zeros(n_groups, dtype="int64"), np.zeros(0, dtype="int64")
    offset = int(min(labels_x.min(), labels_y.min()))
    span = int(max(labels_x.max(), labels_y.max())) - offset + 1
    dense = span <= 4 * labels_x.size + 1024
    if dense:
        ix, iy, n_labels = labels_x, labels_y, span  # shifted by the offset below
    else:  # sparse labels over a huge range: index the distinct labels only
        distinct, inverse = np.unique(np.concatenate([labels_x, labels_y]), return_inverse=True)
        ix, iy = inverse[: labels_x.size], inverse[labels_x.size :]
        n_labels = distinct.size
    labels = np.arange(offset, offset + span, dtype="int64") if dense else distinct.astype("int64")
    shift = offset if dense else 0
    if shift and (abs(offset) + span) * (n_labels + 1) >= 2**62:  # labels * n could overflow: shift first
        ix, iy, shift = (
            np.subtract(labels_x, offset, dtype=np.int64),
            np.subtract(labels_y, offset, dtype=np.int64),
            0,
        )
    if n_groups * n_labels * n_labels <= max(labels_x.size, 1 << 16):
        # one bincount of the joint (group, x label, y label) counts gives both histograms and the
        # agreements: one pass instead of three. The code (group * n + x) * n + y is built in place
        # in one integer array (codes and labels may be narrow integers), subtracting the offset once
        if codes is None:
            joint = np.multiply(ix, n_labels, out=out, dtype=np.intp)
        else:
            joint = np.multiply(codes, n_labels, out=out, dtype=np.intp)
            joint += ix
            joint *= n_labels
        joint += iy
        if shift:
            joint -= shift * (n_labels + 1)
        counts = np.bincount(joint, minlength=n_groups * n_labels * n_labels)
        counts = counts.reshape(n_groups, n_labels, n_labels)
        return counts.sum(axis=2), counts.sum(axis=1), np.trace(counts, axis1=1, axis2=2), labels
    if shift:
        ix, iy = np.subtract(ix, shift, dtype=np.intp), np.subtract(iy, shift, dtype=np.intp)
    if codes is None:
        hist_x = np.bincount(ix, minlength=n_labels)[None, :]
        hist_y = np.bincount(iy, minlength=n_labels)[None, :]
        return hist_x, hist_y, np.array([np.count_nonzero(ix == iy)]), labels
    start = np.multiply(codes, n_labels, dtype=np.intp)
    hist_x = np.bincount(start + ix, minlength=n_groups * n_labels).reshape(n_groups, n_labels)
    hist_y = np.bincount(start + iy, minlength=n_groups * n_labels).reshape(n_groups, n_labels)
    agree = np.bincount(codes, weights=(ix == iy), minlength=n_groups).astype("int64")
    return hist_x, hist_y, agree, labels


def _shift_type(dtype: np.dtype, low: int, high: int) -> np.dtype:
    """``dtype`` when ``low``, ``high`` and ``high - low`` fit in it, else ``intp``."""
    info = np.iinfo(dtype)
    return dtype if info.min <= low and high - low <= info.max and high <= info.max else np.dtype(np.intp)


def as_intp(values: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``values`` as an ``intp`` array, as ``np.bincount`` needs them: narrow integers are
    copied into ``out`` (an ``intp`` array of at least their size) when given, instead of
    the new array (80 MB at 10M rows) bincount would make on each call."""
    if values.dtype == np.intp or out is None:
        return values
    copy = out[: values.size]
    np.copyto(copy, values)
    return copy


def _label_counts(arrays, out) -> tuple[int, list[np.ndarray] | None, list[np.ndarray] | None]:
    """The lowest label, the arrays shifted by it and each one's label counts over the label
    range (None, None when the range is too sparse to count)."""
    sizes = [a.size for a in arrays]
    low = int(min(a.min() for a in arrays if a.size))
    high = int(max(a.max() for a in arrays if a.size))
    span = high - low + 1
    if span > 4 * sum(sizes) + 1024:  # sparse labels over a huge range: sort instead
        return low, None, None
    # shifted by the lowest label in each array's own type when the shifted labels fit in it
    shifted = [np.subtract(a, low, dtype=_shift_type(a.dtype, low, high)) if low else a for a in arrays]
    # one pass per array (two: human and system)
    return low, shifted, [np.bincount(as_intp(values, out), minlength=span) for values in shifted]


def label_index(*arrays: np.ndarray, out: np.ndarray | None = None) -> tuple[np.ndarray, list[np.ndarray]]:
    """The sorted integer labels present in any of ``arrays``, and each array's label positions
    (narrow integers when the labels are few: widen before arithmetic).

    Equal to ``labels = np.union1d(a, b)`` and ``np.searchsorted(labels, a)``, with one
    ``bincount`` over the label range instead of a sort when the range is small. ``out``
    (an ``intp`` work array of the largest array's size) saves bincount's copies.

    >>> labels, (a, b) = label_index(np.array([3, 1, 3]), np.array([5, 1]))
    >>> labels.tolist(), a.tolist(), b.tolist()
    ([1, 3, 5], [1, 0, 1], [2, 0])
    """
    dtype = np.result_type(*arrays, np.int64)  # narrow integer labels are returned as int64
    if sum(a.size for a in arrays) == 0:
        return np.concatenate(arrays).astype(dtype), [np.zeros(0, dtype=np.intp) for _ in arrays]
    low, shifted, counts = _label_counts(arrays, out)
    if counts is None:
        labels = np.unique(np.concatenate(arrays))
        return labels.astype(dtype), [np.searchsorted(labels, a) for a in arrays]
    seen = np.logical_or.reduce([c > 0 for c in counts])
    present = np.flatnonzero(seen)
    lookup = (np.cumsum(seen) - 1).astype(smallest_integer_type(-1, seen.size))  # narrow positions
    return (present + low).astype(dtype), [lookup[values] for values in shifted]


def label_counts(*arrays: np.ndarray, out: np.ndarray | None = None) -> tuple[np.ndarray, list[np.ndarray]]:
    """The sorted integer labels present in any of ``arrays`` and each array's count of each:
    ``label_index`` then ``np.bincount`` of the positions, in one pass per array.

    >>> labels, (a, b) = label_counts(np.array([3, 1, 3]), np.array([5, 1]))
    >>> labels.tolist(), a.tolist(), b.tolist()
    ([1, 3, 5], [1, 2, 0], [1, 0, 1])
    """
    low, counts = 0, None
    if sum(a.size for a in arrays):
        low, _, counts = _label_counts(arrays, out)
    if counts is None:  # no labels, or sparse labels
        labels, positions = label_index(*arrays, out=out)
        return labels, [np.bincount(as_intp(p, out), minlength=labels.size) for p in positions]
    seen = np.logical_or.reduce([c > 0 for c in counts])
    dtype = np.result_type(*arrays, np.int64)
    return (np.flatnonzero(seen) + low).astype(dtype), [c[seen] for c in counts]
