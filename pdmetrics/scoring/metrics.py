"""Agreement between two sets of scores, as RSMTool defines it.

Each public function takes two paired array-likes (human scores first, system or second
human scores second) and returns a Python float. The same numbers for many score columns
and groups at once come from :func:`pair_statistics` and :func:`agreement_metrics`, which
is what ``df.scoring.evaluate`` and ``df.scoring.consistency`` use: one pass of additive
statistics (counts, sums, centred moments, label histograms), then vectorized formulas.

Definitions follow RSMTool 12's "Evaluation Metrics" page; where RSMTool returns ``None``
pdmetrics returns ``NaN`` with a :class:`pdmetrics.UndefinedMetricWarning`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pdmetrics._division import WARN, check_zero_division
from pdmetrics._stats import (
    Centred,
    Moments,
    accurate_group_sum,
    group_count,
    group_count_where,
    group_min_max,
    histogram_min_max,
    label_histograms,
    smallest_integer_type,
)
from pdmetrics._validation import paired_arrays
from pdmetrics._warnings import emit, warn_undefined
from pdmetrics.errors import InvalidInputError, PdmetricsWarning

__all__ = [
    "agreement",
    "exact_agreement",
    "adjacent_agreement",
    "cohen_kappa",
    "quadratic_weighted_kappa",
    "pearson_r",
    "standardized_mean_difference",
    "difference_of_standardized_means",
    "mean_squared_error",
    "root_mean_squared_error",
    "r2_score",
    "PairStatistics",
    "pair_statistics",
    "pair_statistics_many",
    "agreement_metrics",
]

_NAMES = ("human", "system")


# --------------------------------------------------------------------------------------
# statistics
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PairStatistics:
    """Additive statistics of paired scores ``(h, s)``, one entry per group.

    Attributes
    ----------
    moments : Moments
        Count, means and centred (co)moments of ``h`` and ``s``.
    h_min, h_max, s_min, s_max : ndarray
        Extremes per group.
    sse : ndarray
        Sum of squared differences ``sum((h - s)**2)``.
    n_exact, n_adjacent : ndarray
        Rows with ``|h - s| <= 0`` and ``|h - s| <= 1``.
    hist_h, hist_s : ndarray
        Histograms of the rounded scores (shape ``(groups, labels)``), for Cohen's kappa.
    n_same_label : ndarray
        Rows whose rounded scores are equal.
    hist_labels : ndarray
        The score label of each histogram column (sorted integers).

    Statistics of disjoint row sets combine with :meth:`combine` (what runs the tables
    partition by partition on dask); :meth:`placed` spreads them over a larger set of groups.
    """

    moments: Moments
    h_min: np.ndarray
    h_max: np.ndarray
    s_min: np.ndarray
    s_max: np.ndarray
    sse: np.ndarray
    n_exact: np.ndarray
    n_adjacent: np.ndarray
    hist_h: np.ndarray
    hist_s: np.ndarray
    n_same_label: np.ndarray
    hist_labels: np.ndarray

    @property
    def n(self) -> np.ndarray:
        return self.moments.n

    def combine(self, other: PairStatistics) -> PairStatistics:
        """The statistics of the union of two disjoint row sets (the same groups, group by
        group): moments with Chan et al.'s update, extremes, counts and histograms (aligned
        on their labels) added."""
        labels = np.union1d(self.hist_labels, other.hist_labels).astype("int64")
        hist_h = _on_labels(self.hist_h, self.hist_labels, labels) + _on_labels(
            other.hist_h, other.hist_labels, labels
        )
        hist_s = _on_labels(self.hist_s, self.hist_labels, labels) + _on_labels(
            other.hist_s, other.hist_labels, labels
        )
        return PairStatistics(
            self.moments.combine(other.moments),
            np.fmin(self.h_min, other.h_min),
            np.fmax(self.h_max, other.h_max),
            np.fmin(self.s_min, other.s_min),
            np.fmax(self.s_max, other.s_max),
            self.sse + other.sse,
            self.n_exact + other.n_exact,
            self.n_adjacent + other.n_adjacent,
            hist_h,
            hist_s,
            self.n_same_label + other.n_same_label,
            labels,
        )

    def placed(self, positions: np.ndarray, n_groups: int) -> PairStatistics:
        """These groups' statistics at ``positions`` among ``n_groups`` groups; the other
        groups are empty (no rows)."""

        def spread(values, fill):
            out = np.full((n_groups, *values.shape[1:]), fill, dtype=values.dtype)
            out[positions] = values
            return out

        return PairStatistics(
            self.moments.placed(positions, n_groups),
            spread(self.h_min, np.nan),
            spread(self.h_max, np.nan),
            spread(self.s_min, np.nan),
            spread(self.s_max, np.nan),
            spread(self.sse, 0.0),
            spread(self.n_exact, 0),
            spread(self.n_adjacent, 0),
            spread(self.hist_h, 0),
            spread(self.hist_s, 0),
            spread(self.n_same_label, 0),
            self.hist_labels,
        )


def _on_labels(histograms: np.ndarray, labels: np.ndarray, all_labels: np.ndarray) -> np.ndarray:
    """Histograms (columns: ``labels``) as columns of the sorted superset ``all_labels``."""
    out = np.zeros((histograms.shape[0], all_labels.size), dtype="int64")
    out[:, np.searchsorted(all_labels, labels)] = histograms
    return out


def pair_statistics(
    human: np.ndarray,
    system: np.ndarray,
    codes: np.ndarray | None = None,
    n_groups: int = 1,
    human_labels: np.ndarray | None = None,
    system_labels: np.ndarray | None = None,
    buffers: np.ndarray | None = None,
) -> PairStatistics:
    """Compute :class:`PairStatistics` of finite paired float arrays, per group code.

    ``codes`` (int array, values ``0..n_groups-1``) assigns rows to groups; ``None`` puts
    every row in one group. The arrays must not contain NaN (drop such rows first).
    ``human_labels`` (``kappa_labels(human)``) and ``system_labels`` may be passed to reuse
    them across passes, and ``buffers`` (see :func:`pair_statistics_many`).
    """
    labels = None if system_labels is None else {0: system_labels}
    return pair_statistics_many(human, {0: system}, codes, n_groups, human_labels, labels, buffers)[0]


def pair_statistics_many(
    human: np.ndarray,
    systems: dict,
    codes: np.ndarray | None = None,
    n_groups: int = 1,
    human_labels: np.ndarray | None = None,
    system_labels: dict | None = None,
    buffers: np.ndarray | None = None,
) -> dict:
    """:func:`pair_statistics` of ``human`` with each array of ``systems`` (name -> array).

    The human side (centred moments, extremes, score labels) is computed once for all
    system columns. ``system_labels`` (name -> ``kappa_labels``) may be passed to reuse them.
    ``buffers`` (:func:`work_buffers` of at least ``human``'s size) are the work arrays; a
    caller making several passes shares them (large new arrays are slow to allocate).
    """
    if buffers is None:
        buffers = work_buffers(human.size)
    human_deviations, deviations, work = buffers[:, : human.size]
    counts = None if codes is None else group_count(codes, n_groups)  # once for every column
    human_side = Centred.from_array(human, codes, n_groups, out=human_deviations, scratch=work, counts=counts)
    if human_labels is None:
        human_labels = kappa_labels(human, "human")
    # whole-number scores (the usual human scores): extremes from the label histograms below
    human_whole = codes is not None and _whole_numbers(human, human_labels)
    if not human_whole:
        h_min, h_max = group_min_max(codes, human, n_groups, counts)
    statistics = {}
    # the two other work arrays serve every system column
    for name, system in systems.items():  # a handful of score columns
        system_side = Centred.from_array(system, codes, n_groups, out=deviations, scratch=work, counts=counts)
        moments = Moments.from_centred(human_side, system_side, codes, scratch=work)
        labels = kappa_labels(system, "system") if system_labels is None else system_labels[name]
        system_whole = codes is not None and _whole_numbers(system, labels)
        if not system_whole:
            s_min, s_max = group_min_max(codes, system, n_groups, counts)
        diff = np.abs(np.subtract(human, system, out=work), out=work)
        # the conditions as 0.0 / 1.0 in the deviations' buffer (no longer needed)
        n_exact = group_count_where(codes, np.less_equal(diff, 0, out=deviations), n_groups)
        n_adjacent = group_count_where(codes, np.less_equal(diff, 1, out=deviations), n_groups)
        sse = accurate_group_sum(codes, np.square(diff, out=diff), n_groups)
        # the work array is free again: it holds the joint label codes
        hist_h, hist_s, same, hist_labels = label_histograms(
            human_labels, labels, codes, n_groups, out=work.view(np.intp)
        )
        first = int(hist_labels[0]) if hist_labels.size else 0
        if human_whole or system_whole:
            # histogram column j is label first + j unless the labels were compressed (sparse)
            span = int(max(human_labels.max(), labels.max())) - first + 1 if human.size else 0
            if hist_h.shape[1] != span:
                human_whole = system_whole = False
                h_min, h_max = group_min_max(codes, human, n_groups, counts)
                s_min, s_max = group_min_max(codes, system, n_groups, counts)
            if human_whole:
                h_min, h_max = histogram_min_max(hist_h, first)
                human_whole = False  # the same for every system column
            if system_whole:
                s_min, s_max = histogram_min_max(hist_s, first)
        statistics[name] = PairStatistics(
            moments, h_min, h_max, s_min, s_max, sse, n_exact, n_adjacent, hist_h, hist_s, same, hist_labels
        )
    return statistics


def _whole_numbers(values: np.ndarray, labels: np.ndarray) -> bool:
    """Whether float ``values`` equal their integer ``labels`` (``kappa_labels``) everywhere."""
    return values.size > 0 and values[0] == labels[0] and bool(np.equal(values, labels).all())


def work_buffers(n: int) -> np.ndarray:
    """The three float work arrays (rows) of :func:`pair_statistics_many` for ``n`` rows."""
    return np.empty((3, n))


def kappa_labels(values: np.ndarray, argument: str, buffer: np.ndarray | None = None) -> np.ndarray:
    """Round scores to integer labels (half to even), as SKLL's kappa does, in the narrowest
    integer type holding them (so arithmetic on labels must widen first).

    ``buffer`` (a float array of at least ``values``' size) holds the rounded floats instead
    of a new array."""
    rounded = np.rint(values, out=None if buffer is None else buffer[: values.size])
    # the extremes of the rounded scores (NaN propagates) check every value in two passes
    low, high = (float(rounded.min()), float(rounded.max())) if rounded.size else (0.0, 0.0)
    if not (np.isfinite(low) and np.isfinite(high)):
        bad = values[~np.isfinite(values)][0]
        raise InvalidInputError(
            f"Cohen's kappa needs a score for every response, but `{argument}` contains {bad!r}. "
            f"Drop the rows with missing scores first (the DataFrame methods do this for you)."
        )
    if max(-low, high) > _LARGEST_LABEL:
        bad = values[np.abs(rounded) > _LARGEST_LABEL][0]
        raise InvalidInputError(
            f"`{argument}` contains {float(bad)!r}, too large to round to an integer score label "
            f"(at most {_LARGEST_LABEL:.0e} in absolute value). Check the column for corrupt "
            f"values, or trim the scores first (`df.scoring.postprocess`)."
        )
    return rounded.astype(smallest_integer_type(low, high))


#: Largest score label (in absolute value) rounded exactly: floats are exact integers up to 2**53.
_LARGEST_LABEL = float(2**53)


# --------------------------------------------------------------------------------------
# formulas on statistics (vectorized over groups)
# --------------------------------------------------------------------------------------
def _ratio(numerator, denominator) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(numerator, dtype="float64") / np.asarray(denominator, dtype="float64")


def _sd(m2: np.ndarray, n: np.ndarray, ddof: int = 1) -> np.ndarray:
    return np.sqrt(_ratio(m2, np.where(n - ddof > 0, n - ddof, np.nan)))


def kappa_from_histograms(
    hist_h: np.ndarray, hist_s: np.ndarray, n_same: np.ndarray, n: np.ndarray
) -> np.ndarray:
    """Unweighted Cohen's kappa from label histograms, SKLL's way.

    ``1 - (1 - p_o) / (1 - p_e)`` with observed agreement ``p_o`` and chance agreement
    ``p_e = sum_k p_h(k) p_s(k)``; 1.0 when every score has the same label (SKLL's
    all-zero weight matrix); NaN for an empty group.
    """
    n = np.asarray(n, dtype="float64")
    p_o = _ratio(n_same, n)
    p_e = _ratio((hist_h * hist_s).sum(axis=1), n * n)
    one_label = np.count_nonzero((hist_h + hist_s) > 0, axis=1) <= 1
    kappa = 1.0 - _ratio(1.0 - p_o, 1.0 - p_e)
    return np.where(n == 0, np.nan, np.where(one_label, 1.0, kappa))


def qwk_from_moments(m: Moments, ddof: int = 0) -> np.ndarray:
    """Haberman's continuous QWK: ``2 cov / (var_h + var_s + (mean_h - mean_s)**2)``."""
    dof = np.where(m.n - ddof > 0, m.n - ddof, np.nan)
    cov = _ratio(m.c_xy, dof)
    denominator = _ratio(m.m2_x, dof) + _ratio(m.m2_y, dof) + (m.mean_x - m.mean_y) ** 2
    return _ratio(2.0 * cov, denominator)


def pearson_from_moments(m: Moments, h_constant: np.ndarray, s_constant: np.ndarray) -> np.ndarray:
    """Pearson r; NaN for fewer than two rows or a constant side (as RSMTool)."""
    r = np.clip(_ratio(m.c_xy, np.sqrt(m.m2_x * m.m2_y)), -1.0, 1.0)
    return np.where((m.n <= 1) | h_constant | s_constant, np.nan, r)


def r2_from_sums(sse: np.ndarray, m2_h: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``1 - SSE / sum((h - mean_h)**2)``; scikit-learn's 1.0 / 0.0 when ``h`` is constant."""
    r2 = 1.0 - _ratio(sse, m2_h)
    r2 = np.where(m2_h == 0, np.where(sse == 0, 1.0, 0.0), r2)
    return np.where(n <= 1, np.nan, r2)


def smd_from_moments(
    m: Moments, method: str = "unpooled", population_h_sd=None, population_s_sd=None, ddof: int = 1
) -> np.ndarray:
    """Standardized mean difference ``(mean_s - mean_h) / denominator`` (see the public function)."""
    method = _smd_method(method)
    numerator = m.mean_y - m.mean_x
    if method == "unpooled":
        denominator = _sd(m.m2_x, m.n, ddof)
    elif method == "pooled":
        denominator = np.sqrt((_sd(m.m2_x, m.n, ddof) ** 2 + _sd(m.m2_y, m.n, ddof) ** 2) / 2)
    elif method == "johnson":
        if population_h_sd is None:
            raise InvalidInputError(
                "method='johnson' needs `population_human_sd=`: pass the SD "
                "of the human scores over the whole population."
            )
        denominator = np.asarray(population_h_sd, dtype="float64")
    else:
        if population_h_sd is None or population_s_sd is None:
            raise InvalidInputError(
                "method='williamson' needs both `population_human_sd=` and "
                "`population_system_sd=` (SDs over the whole population)."
            )
        denominator = np.sqrt(
            (
                np.asarray(population_h_sd, dtype="float64") ** 2
                + np.asarray(population_s_sd, dtype="float64") ** 2
            )
            / 2
        )
    return np.where(denominator == 0, np.nan, _ratio(numerator, denominator))


def _smd_method(method: str) -> str:
    methods = ("unpooled", "pooled", "johnson", "williamson")
    if not isinstance(method, str) or method.lower() not in methods:
        raise InvalidInputError(f"method={method!r} is not an SMD method; use one of {methods}.")
    return method.lower()


def agreement_metrics(stats: PairStatistics, smd_method: str = "unpooled") -> dict[str, np.ndarray]:
    """RSMTool's ``eval`` metrics from :class:`PairStatistics`, one entry per group.

    Keys: ``N, h_mean, h_sd, h_min, h_max, sys_mean, sys_sd, sys_min, sys_max, corr,
    wtkappa, R2, kappa, exact_agr, adj_agr, SMD, RMSE``.
    """
    m = stats.moments
    n = m.n
    with np.errstate(invalid="ignore"):
        h_constant = stats.h_min == stats.h_max
        s_constant = stats.s_min == stats.s_max
    return {
        "N": n,
        "h_mean": np.where(n > 0, m.mean_x, np.nan),
        "h_sd": _sd(m.m2_x, n),
        "h_min": stats.h_min,
        "h_max": stats.h_max,
        "sys_mean": np.where(n > 0, m.mean_y, np.nan),
        "sys_sd": _sd(m.m2_y, n),
        "sys_min": stats.s_min,
        "sys_max": stats.s_max,
        "corr": pearson_from_moments(m, h_constant, s_constant),
        "wtkappa": qwk_from_moments(m),
        "R2": r2_from_sums(stats.sse, m.m2_x, n),
        "kappa": kappa_from_histograms(stats.hist_h, stats.hist_s, stats.n_same_label, n),
        "exact_agr": _ratio(stats.n_exact, n) * 100,
        "adj_agr": _ratio(stats.n_adjacent, n) * 100,
        "SMD": smd_from_moments(m, smd_method),
        "RMSE": np.sqrt(_ratio(stats.sse, n)),
    }


# --------------------------------------------------------------------------------------
# public scalar functions
# --------------------------------------------------------------------------------------
def _scalar(values: np.ndarray, metric: str, when: str, zero_division="warn") -> float:
    """The one value of ``values``; undefined (NaN ``when``) it follows ``zero_division``."""
    value = float(np.asarray(values).reshape(-1)[0])
    if np.isnan(value) and when:
        if zero_division != WARN:
            return zero_division
        warn_undefined(
            f"{metric} is undefined {when}; returning NaN. "
            f"Pass `zero_division=0` (or another number) to return that number instead."
        )
    return value


def _pairs(human, system) -> tuple[np.ndarray, np.ndarray]:
    return paired_arrays(human, system, _NAMES)


def agreement(human, system, tolerance: float = 0.0, *, zero_division="warn") -> float:
    """Percentage of pairs whose scores differ by at most ``tolerance``.

    Parameters
    ----------
    human, system : array-like
        Paired scores.
    tolerance : float, default 0
        Largest absolute difference that still counts as agreement: 0 gives exact
        agreement, 1 exact-plus-adjacent agreement.
    zero_division : "warn" or float, default "warn"
        The value when the metric is undefined: NaN with an
        :class:`~pdmetrics.UndefinedMetricWarning` naming this option, or the number given.

    Returns
    -------
    float
        ``100 * mean(|human - system| <= tolerance)``. A pair with a missing score counts
        as a disagreement, as in RSMTool (with a warning); NaN for empty input.

    Examples
    --------
    >>> from pdmetrics.scoring import agreement
    >>> agreement([1, 2, 3, 4], [1, 2, 4, 6])
    50.0
    >>> agreement([1, 2, 3, 4], [1, 2, 4, 6], tolerance=1)
    75.0
    """
    zero_division = check_zero_division(zero_division)
    h, s = _pairs(human, system)
    if h.size == 0:
        return _scalar([np.nan], "Agreement", "for empty input", zero_division)
    missing = int(np.count_nonzero(np.isnan(h) | np.isnan(s)))
    if missing:
        emit(
            f"{missing} of {h.size} pairs have a missing score; they count as "
            "disagreements, as in RSMTool. Drop those rows to leave them out.",
            PdmetricsWarning,
        )
    with np.errstate(invalid="ignore"):
        agree = np.count_nonzero(np.abs(h - s) <= tolerance)
    return float(agree / h.size * 100)


def exact_agreement(human, system, *, zero_division="warn") -> float:
    """Percentage of pairs with identical scores (:func:`agreement` with tolerance 0).

    Examples
    --------
    >>> from pdmetrics.scoring import exact_agreement
    >>> exact_agreement([1, 2, 3, 4], [1, 2, 4, 6])
    50.0
    """
    return agreement(human, system, 0, zero_division=zero_division)


def adjacent_agreement(human, system, *, zero_division="warn") -> float:
    """Percentage of pairs within one score point (:func:`agreement` with tolerance 1).

    Examples
    --------
    >>> from pdmetrics.scoring import adjacent_agreement
    >>> adjacent_agreement([1, 2, 3, 4], [1, 2, 4, 6])
    75.0
    """
    return agreement(human, system, 1, zero_division=zero_division)


def cohen_kappa(human, system, *, zero_division="warn") -> float:
    """Unweighted Cohen's kappa on scores rounded to integers, as SKLL computes it.

    Scores are rounded half to even, the label set is the full range from the lowest to
    the highest label of both sides (labels missing from the data included; negative
    labels fine), and kappa is ``1 - (1 - p_o) / (1 - p_e)``.

    Parameters
    ----------
    human, system : array-like
        Paired scores; numbers or numeric strings such as ``"4.0"``.
    zero_division : "warn" or float, default "warn"
        The value when the metric is undefined: NaN with an
        :class:`~pdmetrics.UndefinedMetricWarning` naming this option, or the number given.

    Returns
    -------
    float
        Kappa; 1.0 when every rounded score has the same label; NaN (with an
        :class:`~pdmetrics.UndefinedMetricWarning`) for empty input.

    Raises
    ------
    InvalidInputError
        When a score is missing: kappa needs every pair (RSMTool raises too).

    Examples
    --------
    >>> from pdmetrics.scoring import cohen_kappa
    >>> round(cohen_kappa([1, 2, 3, 4, 2], [1, 3, 3, 2, 2]), 4)
    0.4444
    >>> cohen_kappa([-2, -1, 0, 1], [-2, 0, 0, 1])  # doctest: +ELLIPSIS
    0.666...
    """
    zero_division = check_zero_division(zero_division)
    h, s = _pairs(human, system)
    if h.size == 0:
        return _scalar([np.nan], "Cohen's kappa", "for empty input", zero_division)
    hist_h, hist_s, same, _ = label_histograms(kappa_labels(h, "human"), kappa_labels(s, "system"))
    return _scalar(kappa_from_histograms(hist_h, hist_s, same, np.array([h.size])), "kappa", "")


def quadratic_weighted_kappa(human, system, ddof: int = 0, *, zero_division="warn") -> float:
    """Quadratic weighted kappa for continuous scores (Haberman, 2019).

    ``QWK = 2 Cov(H, M) / (Var(H) + Var(M) + (mean(M) - mean(H))**2)``, with variances
    and covariance divided by ``N - ddof`` (``ddof=0``, RSMTool's choice, equals the
    discrete quadratic-weighted kappa on integer scores). ``zero_division="warn"`` or a
    number: the value when QWK is undefined (NaN with a warning, or that number).

    Returns
    -------
    float
        QWK; NaN (with a warning) when the denominator is 0 (a single identical pair,
        or both sides constant and equal) or the input is empty. A missing score makes
        the result NaN.

    Examples
    --------
    >>> from pdmetrics.scoring import quadratic_weighted_kappa
    >>> round(quadratic_weighted_kappa([1, 2, 3, 4, 2], [1, 3, 3, 2, 2]), 4)
    0.3902
    >>> round(quadratic_weighted_kappa([1, 2, 3, 4], [1.2, 2.7, 2.9, 4.4]), 4)
    0.9333
    """
    zero_division = check_zero_division(zero_division)
    h, s = _pairs(human, system)
    if h.size == 0:
        return _scalar([np.nan], "QWK", "for empty input", zero_division)
    value = qwk_from_moments(Moments.from_arrays(h, s), ddof)
    return _scalar(
        value,
        "QWK",
        "" if np.isnan(h).any() or np.isnan(s).any() else "when both sides are constant and equal",
        zero_division,
    )


def pearson_r(human, system, *, zero_division="warn") -> float:
    """Pearson correlation coefficient.

    ``zero_division="warn"`` or a number: the value when r is undefined (NaN with a warning,
    or that number).

    Returns
    -------
    float
        r; NaN (with a warning) for fewer than two pairs or when either side is constant,
        where RSMTool returns None. A missing score makes the result NaN.

    Examples
    --------
    >>> from pdmetrics.scoring import pearson_r
    >>> round(pearson_r([1, 2, 3, 4, 5, 3], [1.4, 2.2, 2.6, 4.5, 4.4, 3.5]), 4)
    0.9422
    """
    h, s = _pairs(human, system)
    m = Moments.from_arrays(h, s)
    h_min, h_max = group_min_max(None, h)
    s_min, s_max = group_min_max(None, s)
    value = pearson_from_moments(m, h_min == h_max, s_min == s_max)
    return _scalar(
        value,
        "Pearson r",
        "" if np.isnan(h).any() or np.isnan(s).any() else "for fewer than two pairs or a constant side",
        check_zero_division(zero_division),
    )


def standardized_mean_difference(
    human,
    system,
    method: str = "unpooled",
    population_human_sd: float | None = None,
    population_system_sd: float | None = None,
    ddof: int = 1,
    *,
    zero_division="warn",
) -> float:
    """Standardized mean difference ``(mean(system) - mean(human)) / denominator``.

    Parameters
    ----------
    human, system : array-like or float
        Scores of the group (a scalar is a one-value group).
    method : {"unpooled", "pooled", "johnson", "williamson"}
        Denominator: ``"unpooled"`` (RSMTool's human-system SMD) the SD of ``human``;
        ``"pooled"`` (RSMTool's human-human SMD) ``sqrt((sd_h**2 + sd_s**2) / 2)``;
        ``"johnson"`` ``population_human_sd``; ``"williamson"``
        ``sqrt((population_human_sd**2 + population_system_sd**2) / 2)``.
    population_human_sd, population_system_sd : float, optional
        Population SDs for the ``"johnson"`` and ``"williamson"`` methods.
    ddof : int, default 1
        Divisor ``N - ddof`` for the group SDs.
    zero_division : "warn" or float, default "warn"
        The value when the metric is undefined: NaN with an
        :class:`~pdmetrics.UndefinedMetricWarning` naming this option, or the number given.

    Returns
    -------
    float
        SMD; NaN (with a warning) when the denominator is 0 or undefined (one response).

    Examples
    --------
    >>> from pdmetrics.scoring import standardized_mean_difference
    >>> round(standardized_mean_difference([8, 4, 6, 3], [9, 4, 5, 12], ddof=0), 4)
    1.1717
    >>> round(standardized_mean_difference([8, 4, 6, 3], [9, 4, 5, 12], method="pooled", ddof=0), 4)
    0.8523
    >>> standardized_mean_difference(8, 9, method="williamson",
    ...                              population_human_sd=4, population_system_sd=4)
    0.25
    """
    h, s = _pairs(human, system)
    value = smd_from_moments(
        Moments.from_arrays(h, s), method, population_human_sd, population_system_sd, ddof
    )
    return _scalar(value, "SMD", "when its denominator is 0 or undefined", check_zero_division(zero_division))


def difference_of_standardized_means(
    human,
    system,
    population_human_mean: float | None = None,
    population_system_mean: float | None = None,
    population_human_sd: float | None = None,
    population_system_sd: float | None = None,
    ddof: int = 1,
    *,
    zero_division="warn",
) -> float:
    """Difference of standardized means (DSM) of a subgroup.

    Both score sets are z-scored with the population (whole evaluation set) mean and SD,
    then ``DSM = mean(z_system - z_human)`` over the group. Without population values the
    group's own mean and SD (``ddof``) are used, which makes DSM 0 (with a warning).
    ``zero_division="warn"`` or a number: the value when DSM is undefined (NaN with a
    warning, or that number).

    Returns
    -------
    float
        DSM; NaN (with a warning; RSMTool returns None) when a population SD is within
        1e-7 of zero.

    Raises
    ------
    InvalidInputError
        When only one of a mean/SD pair is given.

    Examples
    --------
    >>> from pdmetrics.scoring import difference_of_standardized_means
    >>> round(difference_of_standardized_means([8, 4, 6, 3], [9, 4, 5, 12],
    ...       population_human_mean=4.5, population_system_mean=5.1,
    ...       population_human_sd=1.2, population_system_sd=1.8), 4)
    0.7083
    """
    zero_division = check_zero_division(zero_division)
    h, s = _pairs(human, system)
    for side, mean, sd in (
        ("human", population_human_mean, population_human_sd),
        ("system", population_system_mean, population_system_sd),
    ):
        if (mean is None) != (sd is None):
            raise InvalidInputError(
                f"Pass both `population_{side}_mean=` and `population_{side}_sd=`, or neither."
            )
    if population_human_mean is None or population_system_mean is None:
        emit(
            "No population mean and SD given: the group's own are used, so the "
            "z-scores centre on zero and DSM is 0.",
            PdmetricsWarning,
        )
    m = Moments.from_arrays(h, s)
    h_mean = m.mean_x[0] if population_human_mean is None else population_human_mean
    h_sd = _sd(m.m2_x, m.n, ddof)[0] if population_human_sd is None else population_human_sd
    s_mean = m.mean_y[0] if population_system_mean is None else population_system_mean
    s_sd = _sd(m.m2_y, m.n, ddof)[0] if population_system_sd is None else population_system_sd
    value = dsm_from_means(m.mean_x, m.mean_y, m.n, h_mean, h_sd, s_mean, s_sd)
    return _scalar(value, "DSM", "when a population SD is zero", zero_division)


def dsm_from_means(
    mean_h, mean_s, n, population_h_mean, population_h_sd, population_s_mean, population_s_sd
) -> np.ndarray:
    """DSM per group from group means: ``(mean_s - M_s)/SD_s - (mean_h - M_h)/SD_h``."""
    zero_sd = np.isclose(population_h_sd, 0, atol=1e-7) or np.isclose(population_s_sd, 0, atol=1e-7)
    if zero_sd:
        return np.full(np.shape(mean_h), np.nan)
    value = _ratio(mean_s - population_s_mean, population_s_sd) - _ratio(
        mean_h - population_h_mean, population_h_sd
    )
    return np.where(np.asarray(n) > 0, value, np.nan)


def mean_squared_error(human, system, *, zero_division="warn") -> float:
    """Mean squared error ``mean((human - system)**2)``; for empty input ``zero_division``
    (``"warn"``: NaN with a warning, or the number given).

    Examples
    --------
    >>> from pdmetrics.scoring import mean_squared_error
    >>> mean_squared_error([1, 2, 3], [1, 2, 5])
    1.3333333333333333
    """
    zero_division = check_zero_division(zero_division)
    h, s = _pairs(human, system)
    if h.size == 0:
        return _scalar([np.nan], "MSE", "for empty input", zero_division)
    return float(np.mean((h - s) ** 2))


def root_mean_squared_error(human, system, *, zero_division="warn") -> float:
    """Root mean squared error ``sqrt(mean((human - system)**2))``; for empty input
    ``zero_division`` (``"warn"``: NaN with a warning, or the number given).

    Examples
    --------
    >>> from pdmetrics.scoring import root_mean_squared_error
    >>> root_mean_squared_error([1, 2, 3, 4], [1, 2, 3, 6])
    1.0
    """
    zero_division = check_zero_division(zero_division)
    h, s = _pairs(human, system)
    if h.size == 0:
        return _scalar([np.nan], "RMSE", "for empty input", zero_division)
    return float(np.sqrt(mean_squared_error(h, s)))


def r2_score(human, system, *, zero_division="warn") -> float:
    """Proportional reduction in mean squared error, ``1 - MSE / Var(human)``.

    Computed as scikit-learn's ``r2_score(human, system)``: ``1 - SSE / SS_human``; when
    the human scores are constant, 1.0 for a perfect match and 0.0 otherwise.
    ``zero_division="warn"`` or a number: the value when R2 is undefined (NaN with a
    warning, or that number).

    Returns
    -------
    float
        R2 (can be negative); NaN (with a warning) for fewer than two responses.

    Examples
    --------
    >>> from pdmetrics.scoring import r2_score
    >>> round(r2_score([1, 2, 3, 4, 5, 3], [1.4, 2.2, 2.6, 4.5, 4.4, 3.5]), 4)
    0.878
    """
    h, s = _pairs(human, system)
    m = Moments.from_arrays(h, s)
    value = r2_from_sums(np.array([np.sum((h - s) ** 2)]), m.m2_x, m.n)
    return _scalar(value, "R2", "for fewer than two responses", check_zero_division(zero_division))
