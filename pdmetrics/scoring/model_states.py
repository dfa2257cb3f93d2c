"""The additive statistics of the linear scoring models (:mod:`pdmetrics.scoring.model`).

A fit reads its columns from a frame (:func:`feature_matrix`, :func:`human_mean`) and sums
its rows into a state that combines exactly over chunks of rows: :class:`SampleState` (means
and centred cross-products of complete rows: EP fitting, PP scaling) and :class:`FeatureState`
(each feature's mean and SD: :func:`pdmetrics.scoring.weighted_score`). The pandas path is the
one-chunk case; dask sums partitions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdmetrics._additive import Additive
from pdmetrics._stats import Moments
from pdmetrics._validation import as_list, numeric_values, require_columns
from pdmetrics._warnings import emit
from pdmetrics.errors import ExcludedRowsWarning, InvalidInputError
from pdmetrics.scoring.true_scores import columns_matrix

__all__ = [
    "SampleState",
    "sample_state",
    "FeatureState",
    "feature_state",
    "feature_distribution_from_state",
    "ep_state",
    "feature_matrix",
    "human_mean",
    "complete_rows",
    "report_complete",
]


# --------------------------------------------------------------------------------------
# data extraction
# --------------------------------------------------------------------------------------
def numeric_matrix(frame: pd.DataFrame, names: list, argument: str) -> np.ndarray:
    """The columns as one new float64 matrix (rows x columns), non-numeric entries and inf as NaN."""
    if not isinstance(frame, pd.DataFrame):
        refuse_frame(frame)
    out = np.empty((len(frame), len(names)), dtype="float64", order="F")
    for j, name in enumerate(names):
        column = frame[name]
        dtype = column.dtype
        if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype):
            out[:, j] = column.to_numpy(dtype="float64", na_value=np.nan)
        else:  # strings, objects, booleans: the shared conversion and its error messages
            out[:, j] = numeric_values(column, argument)
    out[np.isinf(out)] = np.nan
    return out


def refuse_frame(frame) -> None:
    kind = f"{type(frame).__module__.split('.')[0]}.{type(frame).__name__}"
    lazy = (
        " On a dask DataFrame use its accessor: `ddf.scoring.predict(model=...)`, "
        "`ddf.scoring.weighted_score(...)`, `ddf.scoring.fit_pp(...)` or `ddf.scoring.fit_ep(...)`; "
        "for anything else, compute the columns it needs first: `ddf[columns].compute()`."
        if kind.startswith("dask.")
        else ""
    )
    raise InvalidInputError(f"The model works on a pandas DataFrame of essays; got a {kind}.{lazy}")


def feature_matrix(frame: pd.DataFrame, features, argument: str = "features") -> np.ndarray:
    names = require_columns(frame, argument, list(features))
    return numeric_matrix(frame, names, argument)


def human_mean(frame: pd.DataFrame, human) -> np.ndarray:
    """Average of the available human ratings per row (NaN when a row has none)."""
    names = require_columns(frame, "human", as_list(human, "human"))
    ratings = numeric_matrix(frame, names, "human")
    if len(names) == 1:
        return ratings[:, 0]
    present = np.isfinite(ratings)
    counts = present.sum(axis=1)
    totals = np.where(present, ratings, 0.0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, totals / np.where(counts > 0, counts, 1), np.nan)


def complete_rows(keep: np.ndarray, what: str, minimum: int, need: str) -> None:
    report_complete(int(np.count_nonzero(keep)), keep.size, what, minimum, need)


def report_complete(n_kept: int, n_input: int, what: str, minimum: int, need: str) -> None:
    """Warn about the rows left out (``n_input - n_kept``) and refuse fewer than ``minimum`` kept."""
    if n_input - n_kept:
        emit(
            f"Left out {n_input - n_kept} of {n_input} rows with a missing or non-numeric {what}.",
            ExcludedRowsWarning,
        )
    if n_kept < minimum:
        raise InvalidInputError(
            f"{need} needs at least {minimum} complete rows (no missing {what}); got {n_kept} of {n_input}."
        )


@dataclass(frozen=True)
class SampleState:
    """The additive state of a fit on the complete rows of some columns (features and human
    score for EP fitting; standardized and human score for PP scaling).

    Rows seen, and over the rows with every column present: their number, the column means,
    the centred cross-products ``(X - mean).T @ (X - mean)`` and each column's smallest and
    largest value. States of disjoint chunks of rows combine exactly (:meth:`combine`: Chan,
    Golub & LeVeque's pairwise update of the means and cross-products), so a fit on a dask
    DataFrame is the same fit as on the whole frame, from one pass.
    """

    n_input: int
    n: int
    means: np.ndarray
    cross: np.ndarray
    low: np.ndarray
    high: np.ndarray

    def combine(self, other: SampleState) -> SampleState:
        """The state of the union of two disjoint row sets."""
        n_input = self.n_input + other.n_input
        if not (self.n and other.n):
            return SampleState(n_input, *_fields(self if self.n else other)[1:])
        n = self.n + other.n
        delta = other.means - self.means
        return SampleState(
            n_input,
            n,
            self.means + delta * (other.n / n),
            self.cross + other.cross + np.outer(delta, delta) * (self.n * other.n / n),
            np.minimum(self.low, other.low),
            np.maximum(self.high, other.high),
        )

    def sds(self) -> np.ndarray:
        """Column SDs (``ddof=1``; NaN for fewer than two rows)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return (
                np.sqrt(np.diag(self.cross) / (self.n - 1))
                if self.n > 1
                else np.full(self.means.size, np.nan)
            )

    def largest_magnitude(self) -> np.ndarray:
        """Each column's largest absolute value (0 without rows)."""
        return np.maximum(np.abs(self.low), np.abs(self.high)) if self.n else np.zeros(self.means.size)


def _fields(state: SampleState) -> tuple:
    return state.n_input, state.n, state.means, state.cross, state.low, state.high


def sample_state(columns: list[np.ndarray]) -> SampleState:
    """The :class:`SampleState` of the rows of ``columns`` (1-D float arrays of one length).

    Examples
    --------
    >>> import numpy as np
    >>> from pdmetrics.scoring.model_states import sample_state
    >>> state = sample_state([np.array([1.0, 2.0, np.nan, 4.0]), np.array([2.0, 2.0, 5.0, 5.0])])
    >>> state.n_input, state.n, state.means.round(3).tolist(), state.cross.round(3).tolist()
    (4, 3, [2.333, 3.0], [[4.667, 5.0], [5.0, 6.0]])
    """
    n_input = columns[0].size
    keep = np.logical_and.reduce([np.isfinite(column) for column in columns])
    complete = columns_matrix(columns if keep.all() else [column[keep] for column in columns])
    n, k = complete.shape
    if n == 0:
        return SampleState(n_input, 0, np.zeros(k), np.zeros((k, k)), np.full(k, np.inf), np.full(k, -np.inf))
    low, high = complete.min(axis=0), complete.max(axis=0)
    means = complete.mean(axis=0)
    complete -= means  # the matrix is a new one: centred in place
    return SampleState(n_input, n, means, complete.T @ complete, low, high)


def ep_state(frame: pd.DataFrame, features: list, human) -> SampleState:
    """The :class:`SampleState` of a chunk of an EP training sample: the feature columns
    (``features``, checked) and the (mean) human score, for :func:`ep_model_from_state`."""
    return sample_state([*feature_matrix(frame, features).T, human_mean(frame, human)])


@dataclass(frozen=True)
class FeatureState(Additive):
    """The additive state of the feature means and SDs :func:`weighted_score` estimates:
    rows seen, rows with every feature, and each feature's count, mean and centred sum of
    squares over its own present values (a :class:`~pdmetrics._stats.Moments` with one
    entry per feature), combined exactly over chunks of rows."""

    n_input: int
    n_complete: int
    moments: Moments


def feature_state(frame: pd.DataFrame, features: list) -> FeatureState:
    """The :class:`FeatureState` of the rows of ``frame`` (``features``: its checked columns).

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.scoring.model_states import feature_distribution_from_state, feature_state
    >>> df = pd.DataFrame({"A": [1.0, 2.0, 6.0, None], "B": [0.3, None, 0.5, 0.4]})
    >>> state = feature_state(df.iloc[:2], ["A", "B"]).combine(feature_state(df.iloc[2:], ["A", "B"]))
    >>> means, sds = feature_distribution_from_state(state, ["A", "B"])
    >>> means.round(3).tolist(), sds.round(3).tolist()
    ([3.0, 0.4], [2.646, 0.1])
    """
    x = feature_matrix(frame, features)
    present = np.isfinite(x)
    complete = int(np.count_nonzero(present.all(axis=1)))
    if x.shape[0] and complete == x.shape[0]:  # every value present: no masking
        n = np.full(x.shape[1], x.shape[0])
        mean = x.mean(axis=0)
        deviations = np.subtract(x, mean, out=x)  # the matrix is a new one
    else:
        n = present.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(present, x, 0.0).sum(axis=0) / n
        deviations = np.where(present, x - mean, 0.0)
    m2 = np.einsum("ij,ij->j", deviations, deviations)
    return FeatureState(x.shape[0], complete, Moments(n, mean, mean, m2, m2, m2))


def feature_distribution_from_state(state: FeatureState, features: list) -> tuple[pd.Series, pd.Series]:
    """The feature means and SDs (``ddof=1``) of a :class:`FeatureState`, indexed by feature;
    fewer than two rows with every feature are refused."""
    if state.n_complete < 2:
        raise InvalidInputError(
            "weighted_score estimates the feature means and SDs from the frame, which needs "
            f"at least 2 rows with every feature; got {state.n_complete} of {state.n_input} rows. "
            "Pass `means=` and `sds=`."
        )
    moments = state.moments
    return pd.Series(moments.mean_x, index=features), pd.Series(np.sqrt(moments.variance_x()), index=features)
