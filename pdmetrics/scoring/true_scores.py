"""Evaluation against true scores: rater error variance, true score variance, MSE and PRMSE.

Test theory sees each human rating as the response's true score plus a rater error. With
several ratings of some responses, the error variance, the variance of the true scores and
the mean squared error of a system score against the true score can be estimated. The
formulas are Matt S. Johnson's general multi-rater estimators that RSMTool 12 implements
(Loukina et al., 2020): any number of rater columns, any pattern of missing ratings.

Notation, for response ``i`` with ``c_i`` ratings of mean ``Hbar_i`` and system score
``M_i``; ``N`` responses, ``c. = sum c_i`` ratings, ``Hbar`` the mean of all ratings:

* rater error variance ``s2_e = sum_i sum_j (H_ij - Hbar_i)**2 / sum_i (c_i - 1)``, over the
  responses with two or more ratings (the pooled within-response variance);
* true score variance ``s2_T = (sum_i c_i (Hbar_i - Hbar)**2 - (N - 1) s2_e)
  / (c. - sum_i c_i**2 / c.)``;
* ``MSE(T|M) = (sum_i c_i (Hbar_i - M_i)**2 - N s2_e) / c.``;
* ``PRMSE = 1 - MSE(T|M) / s2_T``.

The single-metric functions take ratings as a 2-D array-like (one row per response, one
column per rater, NaN for a missing rating) or as a DataFrame of rater columns; a 1-D array is
one rater. :func:`true_score` (``df.scoring.true_score``) takes the frame and its column names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._docstrings import fill
from pdmetrics._table_spec import Table, table
from pdmetrics._tables import attach_info, result_table
from pdmetrics._validation import as_float_array, numeric_values, plain, require_columns
from pdmetrics._warnings import emit, warn_undefined
from pdmetrics.errors import ExcludedRowsWarning, InvalidInputError
from pdmetrics.scoring.scored_rows import (
    check_distinct_columns,
    check_exclude_zero,
    check_listed_once,
    column_names,
    named_columns,
    numeric_count,
    require_scores,
)

__all__ = [
    "variance_of_errors",
    "true_score_variance",
    "mse_true",
    "prmse_true",
    "true_score",
    "RatingStatistics",
    "rating_statistics",
    "TrueScoreState",
    "true_score_state",
    "true_score_from_state",
    "true_score_table_state",
    "true_score_table_from_state",
    "TRUE_SCORE_COLUMNS",
]

#: Column order of :func:`true_score` (RSMTool's ``true_score_eval``).
TRUE_SCORE_COLUMNS = [
    "system",
    "N",
    "N raters",
    "N single",
    "N multiple",
    "Variance of errors",
    "True score var",
    "MSE true",
    "PRMSE true",
]

_VE_OPTION = (
    "pass the rater error variance estimated on another sample "
    "(`rater_error_variance=` in `true_score`; `variance_errors=` in the single-metric functions)"
)


# --------------------------------------------------------------------------------------
# statistics
# --------------------------------------------------------------------------------------
#: The ``ratings`` and ``variance_errors`` parameters, as the array-level functions' docstrings
#: describe them (filled in by :func:`pdmetrics._docstrings.fill`).
RATINGS_PARAMETERS = """
ratings : array-like, shape (n_responses, n_raters)
    Human ratings, NaN for a missing rating.
variance_errors : float, optional
    Rater error variance; default: :func:`variance_of_errors` of ``ratings``.
"""


def _ratings_matrix(ratings, argument: str = "ratings") -> np.ndarray:
    """Ratings as a new 2-D float array (responses x raters), NaN for a missing rating
    (``argument``: the name errors give them)."""
    if isinstance(ratings, pd.DataFrame):
        if ratings.shape[1] == 0:
            raise InvalidInputError(f"`{argument}` has no columns: pass at least one rater column.")
        return columns_matrix(
            [
                numeric_values(ratings.iloc[:, j].rename(ratings.columns[j]), argument)
                for j in range(ratings.shape[1])
            ]
        )
    if isinstance(ratings, pd.Series):
        return as_float_array(ratings, argument).reshape(-1, 1)
    try:
        matrix = np.array(ratings, dtype="float64", order="F")  # column-major: fast row reductions
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"`{argument}` must hold numbers (NaN or None for a missing rating); "
            "convert them with `pd.to_numeric` first."
        ) from None
    if matrix.ndim == 1:
        matrix = matrix.reshape(-1, 1)
    if matrix.ndim != 2:
        raise InvalidInputError(f"`{argument}` must be 2-D (responses x raters); got shape {matrix.shape}.")
    matrix[np.isinf(matrix)] = np.nan
    return matrix


def columns_matrix(columns) -> np.ndarray:
    """Stack 1-D float arrays as the columns of a new column-major (Fortran-order) matrix."""
    matrix = np.empty((columns[0].size if columns else 0, len(columns)), dtype="float64", order="F")
    for j, column in enumerate(columns):
        matrix[:, j] = column
    return matrix


@dataclass(frozen=True)
class RatingStatistics:
    """Sums over responses of the ratings matrix that the true-score formulas need.

    Attributes
    ----------
    n : int
        Responses (rows, rated or not).
    n_unrated : int
        Responses without any rating.
    n_raters : int
        Largest number of ratings of one response.
    n_single, n_multiple : int
        Responses with exactly one rating / with two or more.
    n_ratings : int
        Total number of ratings ``c.``.
    sum_c_squared : float
        ``sum_i c_i**2``.
    within_ss : float
        ``sum_i sum_j (H_ij - Hbar_i)**2`` over responses with two or more ratings.
    within_df : int
        ``sum_i (c_i - 1)`` over the same responses.
    between_ss : float
        ``sum_i c_i (Hbar_i - Hbar)**2`` (NaN if a response has no rating).
    counts, means : ndarray
        ``c_i`` and ``Hbar_i`` per response (NaN mean for an unrated response; empty when
        the statistics were combined from chunks of responses, :class:`TrueScoreState`).
    ratings_mean : float
        ``Hbar``, the mean of all ratings (NaN without any).
    per_count : ndarray
        Responses per number of ratings (``per_count[k]``: responses with ``k`` ratings).
    """

    n: int
    n_unrated: int
    n_raters: int
    n_single: int
    n_multiple: int
    n_ratings: int
    sum_c_squared: float
    within_ss: float
    within_df: int
    between_ss: float
    counts: np.ndarray
    means: np.ndarray
    ratings_mean: float = np.nan
    per_count: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def variance_of_errors(self) -> float:
        """Pooled within-response variance; NaN when no response has two ratings."""
        return float(self.within_ss / self.within_df) if self.within_df > 0 else np.nan


def rating_statistics(ratings) -> RatingStatistics:
    """Compute :class:`RatingStatistics` of a ratings matrix (one vectorized pass).

    Examples
    --------
    >>> from pdmetrics.scoring.true_scores import rating_statistics
    >>> stats = rating_statistics([[1, 2], [2, 2], [3, None], [4, 4], [5, 4]])
    >>> stats.n, stats.n_single, stats.n_multiple, stats.n_ratings, stats.within_ss
    (5, 1, 4, 9, 1.0)
    """
    plain_matrix = isinstance(ratings, np.ndarray) and ratings.ndim == 2 and ratings.dtype == np.float64
    matrix = ratings if plain_matrix else _ratings_matrix(ratings)  # a plain matrix is only read: no copy
    return column_statistics([matrix[:, j] for j in range(matrix.shape[1])], matrix.shape[0])


def _histogram(counts: np.ndarray) -> np.ndarray:
    """``np.bincount(counts)``; one byte counts (few raters) are counted value by value, as
    bincount would first convert them to a new ``intp`` array (80 MB at 10M responses)."""
    if counts.dtype != np.uint8 or counts.size == 0:
        return np.bincount(counts)
    return np.array([np.count_nonzero(counts == k) for k in range(int(counts.max()) + 1)], dtype=np.intp)


def column_statistics(
    columns: list[np.ndarray], n: int, buffers: np.ndarray | None = None
) -> RatingStatistics:
    """:func:`rating_statistics` of the ratings given as one 1-D float array per rater (NaN
    for a missing rating; an infinite rating counts as missing), none copied.

    ``buffers`` (float rows of at least ``n`` values) are the work arrays: the first then
    holds the result's ``means``, valid until the caller reuses it.

    One rater column at a time: the same sums, in the same order, as reducing the rows of
    the ratings matrix, without (responses x raters) temporaries.
    """
    columns = [
        np.where(np.isinf(column), np.nan, column) if np.isinf(column).any() else column for column in columns
    ]
    rated = [~np.isnan(column) for column in columns]
    rated = [None if mask.all() else mask for mask in rated]  # None: every response rated (no mask)
    # few raters: one byte per count (large temporaries cost more than the arithmetic)
    counts = np.zeros(n, dtype=np.uint8 if len(columns) < 256 else np.intp)
    means, deviation = (np.empty(n), np.empty(n)) if buffers is None else buffers[:2, :n]
    means.fill(0.0)  # the totals, then divided in place
    for column, mask in zip(columns, rated):
        counts += True if mask is None else mask
        np.add(means, column, out=means, where=True if mask is None else mask)
    total = means.sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        np.divide(means, counts, out=means)
    # sum of squared deviations from the response's mean, rater by rater: a response with one
    # rating adds exactly 0, so the sum is the one over responses with two or more ratings
    within_ss = 0.0
    for column, mask in zip(columns, rated):
        np.subtract(column, means, out=deviation)
        np.multiply(deviation, deviation, out=deviation)
        within_ss += float(np.sum(deviation, where=True if mask is None else mask))
    # responses per number of ratings: every count below is exact integer arithmetic on it
    per_count = _histogram(counts)
    n_ratings = int(np.arange(per_count.size) @ per_count)
    grand_mean = total / n_ratings if n_ratings else np.nan
    if n_ratings and not per_count[0]:
        np.subtract(means, grand_mean, out=deviation)  # counts * (means - grand_mean)**2, in place
        np.multiply(deviation, deviation, out=deviation)
        between_ss = float(np.sum(np.multiply(counts, deviation, out=deviation)))
    else:
        between_ss = np.nan
    return summary_statistics(per_count, within_ss, float(grand_mean), between_ss, counts, means)


def summary_statistics(
    per_count: np.ndarray,
    within_ss: float,
    ratings_mean: float,
    between_ss: float,
    counts: np.ndarray | None = None,
    means: np.ndarray | None = None,
) -> RatingStatistics:
    """:class:`RatingStatistics` from the responses per number of ratings (``per_count[k]``:
    responses with ``k`` ratings) and the sums of squares; ``counts``/``means`` per response
    when known (empty otherwise)."""
    ratings_per = np.arange(per_count.size)
    empty = np.zeros(0)
    return RatingStatistics(
        n=int(per_count.sum()),
        n_unrated=int(per_count[0]) if per_count.size else 0,
        n_raters=int(per_count.size - 1) if per_count.size else 0,
        n_single=int(per_count[1]) if per_count.size > 1 else 0,
        n_multiple=int(per_count[2:].sum()),
        n_ratings=int(ratings_per @ per_count),
        sum_c_squared=float((ratings_per * ratings_per) @ per_count),
        within_ss=float(within_ss),
        within_df=int((ratings_per[2:] - 1) @ per_count[2:]),
        between_ss=float(between_ss) if per_count.size and not per_count[0] else np.nan,
        counts=empty if counts is None else counts,
        means=empty if means is None else means,
        ratings_mean=float(ratings_mean),
        per_count=per_count.astype(np.int64, copy=False),
    )


# --------------------------------------------------------------------------------------
# formulas
# --------------------------------------------------------------------------------------
def _resolve_variance(stats: RatingStatistics, variance_errors) -> float:
    if variance_errors is not None:
        return check_error_variance(variance_errors)
    value = stats.variance_of_errors()
    if np.isnan(value):
        warn_undefined(
            "True score evaluations need the rater error variance, but no response has "
            f"two or more ratings; returning NaN. Add a second rater's scores, or "
            f"{_VE_OPTION}."
        )
    return value


def check_error_variance(value, argument: str = "variance_errors") -> float:
    """Validate a rater error variance given by the user: a finite number >= 0."""
    if isinstance(value, (bool, str, bytes)) or not np.isscalar(value):
        raise InvalidInputError(f"`{argument}={plain(value)!r}` must be a number (the rater error variance).")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"`{argument}={plain(value)!r}` must be a number (the rater error variance)."
        ) from None
    if not np.isfinite(number) or number < 0:
        raise InvalidInputError(
            f"`{argument}={plain(value)!r}` must be a finite number >= 0 (the rater "
            "error variance, e.g. from `variance_of_errors` on another sample)."
        )
    return number


def _warn_unrated(stats: RatingStatistics, what: str) -> None:
    if stats.n_unrated:
        warn_undefined(
            f"{stats.n_unrated} of {stats.n} responses have no rating, so {what} is NaN "
            "(as RSMTool). Drop the unrated responses first (df.scoring.true_score does)."
        )


def _true_variance(stats: RatingStatistics, variance: float) -> float:
    denominator = stats.n_ratings - (stats.sum_c_squared / stats.n_ratings if stats.n_ratings else np.nan)
    if np.isnan(variance) or np.isnan(stats.between_ss) or not denominator > 0:
        return np.nan
    return float((stats.between_ss - (stats.n - 1) * variance) / denominator)


def _system_sse(
    stats: RatingStatistics, systems: list[np.ndarray], buffer: np.ndarray | None = None
) -> np.ndarray:
    """``sum_i c_i (Hbar_i - M_i)**2`` for each array of ``systems`` (NaN if any value is missing).

    ``buffer`` (a float array of at least ``stats.n`` values, not ``stats.means``) is the work array."""
    # one work array for every system column
    work = np.empty_like(stats.means) if buffer is None else buffer[: stats.means.size]
    sse = []
    with np.errstate(invalid="ignore"):
        for column in systems:
            np.subtract(stats.means, column, out=work)
            np.multiply(work, work, out=work)
            sse.append(np.sum(np.multiply(stats.counts, work, out=work)))
    return np.array(sse)


def _mse(stats: RatingStatistics, sse: np.ndarray, variance: float) -> np.ndarray:
    if not stats.n_ratings:
        return np.full(sse.shape, np.nan)
    return (sse - stats.n * variance) / stats.n_ratings


def _prmse(mse: np.ndarray, true_variance: float) -> np.ndarray:
    if not (np.isfinite(true_variance) and true_variance != 0):
        return np.full(np.shape(mse), np.nan)
    return 1.0 - mse / true_variance


def _system_columns(system, n: int, argument: str = "system") -> list[np.ndarray]:
    values = as_float_array(system, argument)
    if values.size != n:
        raise InvalidInputError(
            f"`{argument}` has {values.size} values but `ratings` has {n} rows; pass "
            "one system score per response."
        )
    return [values]


def _warn_system(missing, names) -> None:
    """Warn for each system column with a missing score (``missing``: one count or bool per column)."""
    for name, count in zip(names, missing):
        if count:
            warn_undefined(
                f"System scores `{name}` contain missing values, so its MSE true and PRMSE "
                "are NaN (as RSMTool). Drop those responses first."
            )


def _warn_true_variance(true_variance: float, variance: float, stats: RatingStatistics) -> None:
    if (
        not np.isnan(variance)
        and not stats.n_unrated
        and not (np.isfinite(true_variance) and true_variance != 0)
    ):
        warn_undefined(
            "The true score variance is 0 or undefined (fewer than two responses, or all "
            "ratings equal), so PRMSE is NaN. PRMSE needs at least two responses whose ratings "
            "differ; no option changes it."
        )


# --------------------------------------------------------------------------------------
# public functions
# --------------------------------------------------------------------------------------
def variance_of_errors(ratings) -> float:
    """Rater error variance: the pooled within-response variance of the ratings.

    ``sum_i sum_j (H_ij - Hbar_i)**2 / sum_i (c_i - 1)`` over the responses with two or
    more ratings, which is RSMTool's weighted average of the per-response variances
    (``ddof=1``) with weights ``c_i - 1``. With two raters it is half the mean squared
    difference between them.

    Parameters
    ----------
    ratings : array-like, shape (n_responses, n_raters)
        Human ratings, NaN (or None) for a missing rating.

    Returns
    -------
    float
        The variance; NaN with an :class:`~pdmetrics.UndefinedMetricWarning` when no
        response has two ratings (RSMTool returns None).

    Examples
    --------
    >>> from pdmetrics.scoring import variance_of_errors
    >>> variance_of_errors([[1, 2], [2, 2], [3, None], [4, 4], [5, 4]])
    0.25
    """
    return _resolve_variance(rating_statistics(ratings), None)


@fill(ratings=RATINGS_PARAMETERS)
def true_score_variance(ratings, variance_errors: float | None = None) -> float:
    """Variance of the true scores, from ratings with any number of raters per response.

    ``(sum_i c_i (Hbar_i - Hbar)**2 - (N - 1) s2_e) / (c. - sum_i c_i**2 / c.)`` with
    ``c_i`` the number of ratings of response ``i``, ``Hbar_i`` their mean, ``Hbar`` the
    mean of all ratings, ``c.`` their number and ``s2_e`` the rater error variance.

    Parameters
    ----------
    {ratings}

    Returns
    -------
    float
        The variance; NaN (with a warning) when the error variance cannot be estimated
        (only single ratings and no ``variance_errors``; RSMTool returns None), when a
        response has no rating, or for fewer than two ratings.

    Examples
    --------
    >>> from pdmetrics.scoring import true_score_variance
    >>> true_score_variance([[1, 2], [2, 2], [3, None], [4, 4], [5, 4]])
    1.6875
    """
    stats = rating_statistics(ratings)
    variance = _resolve_variance(stats, variance_errors)
    _warn_unrated(stats, "the true score variance")
    value = _true_variance(stats, variance)
    if np.isnan(value) and not np.isnan(variance) and not stats.n_unrated:
        warn_undefined(
            "The true score variance is undefined for fewer than two ratings; returning NaN. "
            "Pass the ratings of at least two responses."
        )
    return value


@fill(ratings=RATINGS_PARAMETERS)
def mse_true(system, ratings, variance_errors: float | None = None) -> float:
    """Mean squared error of system scores as predictions of the true scores.

    ``MSE(T|M) = (sum_i c_i (Hbar_i - M_i)**2 - N s2_e) / c.``

    Parameters
    ----------
    system : array-like, shape (n_responses,)
        System scores.
    {ratings}

    Returns
    -------
    float
        The MSE (can be negative in small samples); NaN (with a warning) when the error
        variance cannot be estimated, or a system score or a response's ratings are all
        missing.

    Examples
    --------
    >>> from pdmetrics.scoring import mse_true
    >>> round(mse_true([1.2, 2.1, 2.9, 4.2, 4.4], [[1, 2], [2, 2], [3, None], [4, 4], [5, 4]]), 6)
    -0.104444
    """
    stats = rating_statistics(ratings)
    systems = _system_columns(system, stats.n)
    variance = _resolve_variance(stats, variance_errors)
    _warn_unrated(stats, "MSE true")
    _warn_system([np.isnan(systems[0]).any()], ["system"])
    return float(_mse(stats, _system_sse(stats, systems), variance)[0])


def prmse_true(system, ratings, variance_errors: float | None = None) -> float:
    """Proportional reduction in mean squared error for true scores (PRMSE).

    ``PRMSE = 1 - MSE(T|M) / s2_T``: the share of true-score variance the system scores
    explain. It is usually between 0 and 1, but is negative for a very poor system and
    can exceed 1 when the rater error variance is poorly estimated (small samples); no
    clipping is applied, as in RSMTool.

    Parameters
    ----------
    system : array-like, shape (n_responses,)
        System scores.
    ratings : array-like, shape (n_responses, n_raters) or (n_responses,)
        Human ratings, NaN for a missing rating; a 1-D array is a single rater (then
        ``variance_errors`` is needed).
    variance_errors : float, optional
        Rater error variance; default: :func:`variance_of_errors` of ``ratings``.

    Returns
    -------
    float
        PRMSE; NaN with an :class:`~pdmetrics.UndefinedMetricWarning` where RSMTool returns
        None (only single ratings and no ``variance_errors``) or NaN (a missing system
        score, an unrated response), and when the true score variance is 0.

    Examples
    --------
    >>> from pdmetrics.scoring import prmse_true
    >>> round(prmse_true([1, 2, 3, 4], [[1, 1, 2], [2, 3, None], [3, 3, 3], [4, 5, 4]]), 6)
    0.993198
    >>> round(prmse_true([1, 2, 5], [2, 3, 5], variance_errors=0.5), 6)
    0.909091
    """
    stats = rating_statistics(ratings)
    systems = _system_columns(system, stats.n)
    variance = _resolve_variance(stats, variance_errors)
    _warn_unrated(stats, "PRMSE")
    _warn_system([np.isnan(systems[0]).any()], ["system"])
    true_variance = _true_variance(stats, variance)
    _warn_true_variance(true_variance, variance, stats)
    mse = _mse(stats, _system_sse(stats, systems), variance)
    return float(_prmse(mse, true_variance)[0])


def true_score_table(systems, ratings, variance_errors: float | None = None) -> pd.DataFrame:
    """The ``true_score_eval`` table of every response given (see :func:`true_score`).

    ``systems``: a DataFrame, mapping of name -> array-like, or one array; ``ratings``: 2-D
    (responses x raters), NaN for a missing rating. No row is left out: an unrated
    response makes the table NaN (with a warning), as in RSMTool.
    """
    return true_score_table_from_state(true_score_table_state(systems, ratings), variance_errors)


def true_score_table_state(systems, ratings) -> TrueScoreState:
    """The :class:`TrueScoreState` of :func:`true_score_table` for one chunk of responses
    (every response kept; no warning raised here)."""
    stats = rating_statistics(ratings)
    names, columns = _systems(systems, stats.n)
    return _state_of_statistics(stats, names, columns)


def true_score_table_from_state(state: TrueScoreState, variance_errors=None) -> pd.DataFrame:
    """:func:`true_score_table` from its :class:`TrueScoreState` (the warnings raised here, once)."""
    return _table_from_state(state, list(state.system_numeric), variance_errors)


def true_score_table_of_statistics(
    systems, stats: RatingStatistics, variance_errors=None, buffer: np.ndarray | None = None
) -> pd.DataFrame:
    """:func:`true_score_table` of ratings already summed (:func:`column_statistics`);
    ``buffer`` (a float array of at least ``stats.n`` values, not ``stats.means``) is the work array."""
    names, columns = _systems(systems, stats.n)
    return true_score_table_from_state(_state_of_statistics(stats, names, columns, buffer), variance_errors)


@dataclass(frozen=True)
class TrueScoreState:
    """The additive state of the ``true_score_eval`` table over some responses.

    Computed per chunk of rows (:func:`true_score_state`), combined over disjoint chunks
    (:meth:`combine`: counts add; the between-response sum of squares combines with Chan,
    Golub and LeVeque's update of the rating means weighted by their counts) and finalized
    once (:func:`true_score_from_state`).

    Attributes
    ----------
    n_input : int
        Responses seen.
    n_no_system, n_unrated : int
        Responses left out for a missing system score, and (more) for having no rating.
    system_numeric : dict
        System column -> ``(values, numeric values)`` over every response seen.
    per_count : ndarray
        Kept responses per number of ratings (``per_count[k]``: responses with ``k`` ratings).
    within_ss : float
        ``sum_i sum_j (H_ij - Hbar_i)**2``.
    ratings_mean, between_ss : float
        ``Hbar`` and ``sum_i c_i (Hbar_i - Hbar)**2`` (NaN without ratings, or when a kept
        response has none).
    sse : ndarray
        Per system column, ``sum_i c_i (Hbar_i - M_i)**2``.
    system_missing : ndarray
        Per system column, kept responses without a system score.
    """

    n_input: int
    n_no_system: int
    n_unrated: int
    system_numeric: dict
    per_count: np.ndarray
    within_ss: float
    ratings_mean: float
    between_ss: float
    sse: np.ndarray
    system_missing: np.ndarray

    @property
    def n_ratings(self) -> int:
        """Total number of ratings of the kept responses."""
        return int(np.arange(self.per_count.size) @ self.per_count)

    def statistics(self) -> RatingStatistics:
        """The :class:`RatingStatistics` of the kept responses (no per-response arrays)."""
        return summary_statistics(self.per_count, self.within_ss, self.ratings_mean, self.between_ss)

    def combine(self, other: TrueScoreState) -> TrueScoreState:
        """The state of the union of two disjoint sets of responses."""
        n_a, n_b = self.n_ratings, other.n_ratings
        if n_a and n_b:
            n = n_a + n_b
            delta = other.ratings_mean - self.ratings_mean
            mean = self.ratings_mean + delta * (n_b / n)
            between = self.between_ss + other.between_ss + delta * delta * (n_a * n_b / n)
        else:
            rated = self if n_a else other  # one side has no rating: the other's mean and sum
            mean, between = rated.ratings_mean, rated.between_ss
        size = max(self.per_count.size, other.per_count.size)
        per_count = np.zeros(size, dtype=np.int64)
        per_count[: self.per_count.size] += self.per_count
        per_count[: other.per_count.size] += other.per_count
        return TrueScoreState(
            self.n_input + other.n_input,
            self.n_no_system + other.n_no_system,
            self.n_unrated + other.n_unrated,
            {name: _add(count, other.system_numeric[name]) for name, count in self.system_numeric.items()},
            per_count,
            self.within_ss + other.within_ss,
            mean,
            between,
            self.sse + other.sse,
            self.system_missing + other.system_missing,
        )


def _add(a: tuple, b: tuple) -> tuple:
    return tuple(x + y for x, y in zip(a, b))


def _state_of_statistics(
    stats: RatingStatistics,
    names: list,
    columns: list[np.ndarray],
    buffer: np.ndarray | None = None,
    dropped: tuple[int, int] = (0, 0),
    system_numeric: dict | None = None,
) -> TrueScoreState:
    """The :class:`TrueScoreState` of responses summed in ``stats`` with system scores ``columns``."""
    return TrueScoreState(
        n_input=stats.n + sum(dropped),
        n_no_system=dropped[0],
        n_unrated=dropped[1],
        system_numeric=system_numeric or {name: numeric_count(c) for name, c in zip(names, columns)},
        per_count=stats.per_count,
        within_ss=stats.within_ss,
        ratings_mean=stats.ratings_mean,
        between_ss=stats.between_ss,
        sse=_system_sse(stats, columns, buffer),
        system_missing=np.array([int(np.count_nonzero(np.isnan(c))) for c in columns], dtype=np.int64),
    )


def _table_from_state(state: TrueScoreState, names: list, variance_errors) -> pd.DataFrame:
    """The ``true_score_eval`` table (the warnings about the whole data raised here, once)."""
    stats = state.statistics()
    variance = _resolve_variance(stats, variance_errors)
    _warn_unrated(stats, "the true score variance, MSE true and PRMSE")
    _warn_system(state.system_missing, names)
    true_variance = _true_variance(stats, variance)
    _warn_true_variance(true_variance, variance, stats)
    mse = _mse(stats, state.sse, variance)
    k = len(names)
    return result_table(
        {
            "system": names,
            "N": [stats.n] * k,
            "N raters": [stats.n_raters] * k,
            "N single": [stats.n_single] * k,
            "N multiple": [stats.n_multiple] * k,
            "Variance of errors": [variance] * k,
            "True score var": [true_variance] * k,
            "MSE true": mse,
            "PRMSE true": _prmse(mse, true_variance),
        },
        TRUE_SCORE_COLUMNS,
        integer_columns=("N", "N raters", "N single", "N multiple"),
    )


def _systems(systems, n: int) -> tuple[list, list[np.ndarray]]:
    if isinstance(systems, pd.DataFrame):
        names = list(systems.columns)
        columns = [numeric_values(systems.iloc[:, j].rename(names[j]), "systems") for j in range(len(names))]
    elif isinstance(systems, Mapping):
        names = list(systems)
        columns = [as_float_array(systems[name], f"systems[{name!r}]") for name in names]
    else:
        names = ["system"]
        columns = [as_float_array(systems, "systems")]
    if not names:
        raise InvalidInputError("`systems` is empty: pass at least one column of system scores.")
    for name, column in zip(names, columns):
        if column.size != n:
            raise InvalidInputError(
                f"System scores {name!r} have {column.size} values but `ratings` has "
                f"{n} rows; pass one score per response."
            )
    return names, columns


def rater_names(raters) -> list | None:
    """The rater column names of a DataFrame or mapping (None for an array)."""
    if isinstance(raters, (pd.DataFrame, Mapping)):
        return list(raters.keys())
    return None


def ratings_from(raters) -> np.ndarray:
    """Rater columns (DataFrame, mapping of name -> values, or 2-D array-like) as a new matrix."""
    if isinstance(raters, Mapping) and not isinstance(raters, pd.DataFrame):
        if not raters:
            raise InvalidInputError("`raters` is empty: pass at least one rater column.")
        return columns_matrix([numeric_values(column, "raters") for column in named_columns(raters).values()])
    return _ratings_matrix(raters, "raters")


@table
def true_score(frame, *, system, raters, rater_error_variance=None, exclude_zero: bool = True):
    """Evaluation against true scores (RSMTool's ``true_score_eval``), one row per system column.

    Parameters
    ----------
    frame : DataFrame
        The scored responses (pandas; dask: one pass over the partitions; or polars).
    system : str or list of str
        System score column(s).
    raters : str or list of str
        Human rating columns (any number; a missing rating is NaN). With a single rater
        column, pass ``rater_error_variance``.
    rater_error_variance : float, optional
        Rater error variance estimated elsewhere (RSMTool's ``rater_error_variance``);
        default: estimated from the responses with two or more ratings.
    exclude_zero : bool, default True
        Treat a rating of 0 as missing (RSMTool's ``exclude_zero_scores``).

    Returns
    -------
    pandas.DataFrame
        ``system, N, N raters, N single, N multiple, Variance of errors, True score var,
        MSE true, PRMSE true``: ``N`` responses, ``N raters`` the largest number of ratings
        of one response, ``N single``/``N multiple`` the responses with one / two or more
        ratings. Responses with a missing system score or without any rating are left out,
        with an :class:`~pdmetrics.ExcludedRowsWarning`. Unlike RSMTool, which drops every
        response without a first human score, a response rated only by a later rater is
        kept (as a single rating). ``attrs["pdmetrics"]`` records the rows used.

    Raises
    ------
    InvalidInputError
        A rater column named twice, or a system column among the raters.

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> df = pd.DataFrame({"h1": [1, 2, 3, 4, 5], "h2": [2, 2, None, 4, 4],
    ...                    "raw": [1.2, 2.1, 2.9, 4.2, 4.4], "rounded": [1, 2, 3, 4, 4]})
    >>> table = df.scoring.true_score(system=["raw", "rounded"], raters=["h1", "h2"])
    >>> table[["system", "N", "N single", "N multiple", "PRMSE true"]].round(4)
        system  N  N single  N multiple  PRMSE true
    0      raw  5         1           4      1.0619
    1  rounded  5         1           4      1.0165

    The function takes the frame first and the accessor's keywords:

    >>> pdmetrics.scoring.true_score(df, system="raw", raters=["h1", "h2"])["PRMSE true"].round(4).tolist()
    [1.0619]
    """
    systems = require_columns(frame, "system", system)
    rater_columns = require_columns(frame, "raters", raters)
    check_exclude_zero(exclude_zero)
    if rater_error_variance is not None:
        rater_error_variance = check_error_variance(rater_error_variance, "rater_error_variance")
    check_listed_once(systems, "system")
    check_distinct_columns(raters=rater_columns, system=systems)
    finalize = partial(
        true_score_from_state,
        raters=rater_columns,
        rater_error_variance=rater_error_variance,
        exclude_zero=exclude_zero,
    )
    return Table(
        [*systems, *rater_columns], partial(_true_score_chunk, systems, rater_columns, exclude_zero), finalize
    )


def _true_score_chunk(systems: list, raters: list, exclude_zero: bool, part) -> TrueScoreState:
    # mappings of name -> Series: one column at a time costs less than selecting sub-frames
    return true_score_state(
        {name: part[name] for name in systems}, {name: part[name] for name in raters}, exclude_zero
    )


def true_score_state(system, raters, exclude_zero: bool = True) -> TrueScoreState:
    """The :class:`TrueScoreState` of one chunk of responses (no warning raised here).

    ``system`` and ``raters`` as in :func:`true_score`. A chunk may have no usable response:
    :func:`true_score_from_state` checks the whole.
    """
    systems = named_columns(system)
    check_distinct_columns(raters=rater_names(raters), system=list(systems))
    ratings = ratings_from(raters)
    if exclude_zero:
        ratings[ratings == 0] = np.nan
    system_values = {name: numeric_values(series, "system") for name, series in systems.items()}
    if not system_values:
        raise InvalidInputError("`system` is empty: pass at least one column of system scores.")
    scores = columns_matrix(list(system_values.values()))
    if scores.shape[0] != ratings.shape[0]:
        raise InvalidInputError(
            f"The system scores have {scores.shape[0]} rows but `raters` has {ratings.shape[0]}; "
            "pass one score per response (and one row of ratings)."
        )
    no_system = np.isnan(scores).any(axis=1)
    unrated = np.isnan(ratings).all(axis=1) & ~no_system
    keep = ~(no_system | unrated)
    if not keep.all():
        scores, ratings = scores[keep], ratings[keep]
    return _state_of_statistics(
        rating_statistics(ratings),
        list(system_values),
        [scores[:, j] for j in range(scores.shape[1])],
        dropped=(int(np.count_nonzero(no_system)), int(np.count_nonzero(unrated))),
        system_numeric={name: numeric_count(values) for name, values in system_values.items()},
    )


def true_score_from_state(
    state: TrueScoreState, raters=None, rater_error_variance=None, exclude_zero: bool = True
) -> pd.DataFrame:
    """The :func:`true_score` table from its :class:`TrueScoreState` (``raters``: the rater
    column names, or None; ``rater_error_variance`` already checked).

    Raises the errors and warnings about the whole data, once: a system column without any
    numeric score, responses left out, no response left.
    """
    require_scores(state.system_numeric, "system")
    dropped = state.n_no_system + state.n_unrated
    if dropped:
        emit(
            f"{dropped} of {state.n_input} responses were left out of the true score evaluation: "
            f"{state.n_no_system} with a missing or non-numeric system score, "
            f"{state.n_unrated} (more) without any rating"
            + (" (zeros count as missing: exclude_zero=True)" if exclude_zero else "")
            + ".",
            ExcludedRowsWarning,
        )
    if state.n_input and dropped == state.n_input:
        raise InvalidInputError(
            "No response has both a system score and a rating; check the "
            f"`system` ({column_names(state.system_numeric)}) and `raters` columns."
        )
    table = _table_from_state(state, list(state.system_numeric), rater_error_variance)
    return attach_info(
        table,
        rows_used=state.n_input - dropped,
        rows_excluded=dropped,
        raters=raters,
        exclude_zero=bool(exclude_zero),
        rater_error_variance=rater_error_variance,
    )
