"""Per-datum (or per-row) metrics averaged overall and by group: :func:`metric_means`, and its
additive state (:class:`MeansState`: sums and counts per group, combined over parts)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdmetrics._division import divide
from pdmetrics._groups import POOLED_LABEL, as_series, check_identifier_names, check_not_pooled, group_codes
from pdmetrics._tables import result_table
from pdmetrics._validation import plain
from pdmetrics._warnings import emit
from pdmetrics.errors import ExcludedRowsWarning, InvalidInputError
from pdmetrics.textgen.tokens import added_exclusions, warn_left_out

__all__ = ["MeansState", "means_state", "means_table", "metric_means"]


def _groups_of_data(table: pd.DataFrame, by) -> list[pd.Series]:
    """One group Series per ``by`` column, aligned with the rows of ``table``."""
    datum = table["datum"]
    if isinstance(by, (pd.Series, pd.DataFrame)):
        frame = by.to_frame() if isinstance(by, pd.Series) else by
        if frame.columns.has_duplicates:
            raise InvalidInputError("`by` has duplicated column names; rename them first.")
        if frame.index.has_duplicates:  # a long table: one group per datum, checked constant
            varies = frame.groupby(level=0, sort=False).nunique(dropna=False).gt(1).any(axis=1)
            if varies.any():
                raise InvalidInputError(
                    f"`by`: datum {plain(varies.index[varies.to_numpy()][0])!r} belongs to more than one "
                    f"group; a datum's rows must share its group."
                )
            frame = frame[~frame.index.duplicated()]
        located = frame.index.get_indexer(datum)
        if (located < 0).any():
            missing = datum.iloc[int(np.argmax(located < 0))]
            raise InvalidInputError(
                f"`by` has no group for datum {plain(missing)!r}; `by` is indexed by "
                f"datum id (e.g. `df.set_index('datum')['group']`) and must cover every datum of the table."
            )
        return [frame.iloc[located, i].reset_index(drop=True) for i in range(frame.shape[1])]
    series = as_series(by, "group")
    if len(series) != len(table):
        raise InvalidInputError(
            f"`by` has {len(series)} values but the table has {len(table)} data; pass one group per row "
            f"of the table, or a Series indexed by datum id."
        )
    return [series.reset_index(drop=True)]


def metric_means(table: pd.DataFrame, by=None) -> pd.DataFrame:
    """Average per-datum metrics overall and by group ("is toxicity higher for group X?").

    Parameters
    ----------
    table : DataFrame
        A per-datum table from this module (``datum``, ``N``, metric columns), or several
        merged on ``datum``.
    by : Series, DataFrame or array-like, optional
        The group of each datum: a Series (or a DataFrame for several group columns) indexed by
        datum id, possibly with repeated ids (a long table's group column, constant within a
        datum); or an array-like aligned with the rows of ``table``.

    Returns
    -------
    DataFrame
        The group columns (under their names; the pooled row labelled ``"(all)"``), ``N`` (data)
        and the mean of every metric column. A datum with a missing group is counted in the
        pooled row only (with an :class:`~pdmetrics.ExcludedRowsWarning` that counts them); NaN
        metric values are left out of the means.

    Examples
    --------
    >>> from pdmetrics.textgen import metric_means, toxicity
    >>> judged = pd.DataFrame({"id": ["a", "a", "b", "c"], "verdict": ["yes", "no", "no", "yes"]})
    >>> table = toxicity(judged, datum="id", verdict="verdict")
    >>> metric_means(table, by=pd.Series({"a": "x", "b": "y", "c": "x"}, name="topic"))
       topic  N  toxicity
    0  (all)  3       0.5
    1      x  2       0.75
    2      y  1       0.0
    """
    return means_table(means_state(table, by))


@dataclass(frozen=True)
class MeansState:
    """Sums and counts of per-datum metric values, overall and by group: :func:`metric_means`
    as chunk -> state -> combine -> finalize (datums of different chunks are different datums).

    Row 0 of ``size``, ``total`` and ``count`` is the pooled row, then one row per group
    of ``keys`` (None without ``by``).
    """

    metrics: list
    keys: pd.DataFrame | None
    size: np.ndarray  # data per row
    total: np.ndarray  # (rows, metrics): sums of the defined values
    count: np.ndarray  # (rows, metrics): number of defined values
    #: input rows left out before the table was made (per-row text metrics on dask): without a
    #: prediction, without any reference, the first labels; :func:`means_table` warns about them
    excluded: tuple = (0, 0, ())

    def combine(self, *others: MeansState) -> MeansState:
        states = (self, *others)
        excluded = added_exclusions(s.excluded for s in states)
        if self.keys is None:
            return MeansState(
                self.metrics,
                None,
                sum(s.size for s in states),
                sum(s.total for s in states),
                sum(s.count for s in states),
                excluded,
            )
        keys = pd.concat([s.keys for s in states], ignore_index=True)
        codes, merged = group_codes([keys[name] for name in keys.columns], "by")
        k = len(merged)

        def added(name: str) -> np.ndarray:
            arrays = [getattr(s, name) for s in states]
            pooled = sum(a[0] for a in arrays)
            width = int(np.prod(arrays[0].shape[1:]))
            rows = np.concatenate([a[1:].reshape(len(a) - 1, width) for a in arrays])
            groups = np.stack(
                [np.bincount(codes, weights=rows[:, j], minlength=k) for j in range(rows.shape[1])], axis=1
            )
            return np.r_[np.reshape(pooled, (1, width)), groups].reshape((k + 1, *arrays[0].shape[1:]))

        size = added("size").astype("int64")
        return MeansState(self.metrics, merged, size, added("total"), added("count"), excluded)


def means_state(table: pd.DataFrame, by=None) -> MeansState:
    """The :class:`MeansState` of a per-datum table (see :func:`metric_means`).

    Examples
    --------
    The states of two parts of the data, combined, give the means of all of it:

    >>> from pdmetrics.textgen import toxicity
    >>> from pdmetrics.textgen.means import means_state, means_table
    >>> judged = pd.DataFrame({"id": ["a", "a", "b", "c"], "verdict": ["yes", "no", "no", "yes"]})
    >>> table = toxicity(judged, datum="id", verdict="verdict")
    >>> groups = pd.Series({"a": "x", "b": "y", "c": "x"}, name="topic")
    >>> parts = means_state(table[:2], by=groups).combine(means_state(table[2:], by=groups))
    >>> means_table(parts)
       topic  N  toxicity
    0  (all)  3       0.5
    1      x  2       0.75
    2      y  1       0.0
    """
    if not isinstance(table, pd.DataFrame) or "datum" not in table.columns:
        raise InvalidInputError(
            "`table` must be a per-datum table of pdmetrics.textgen (columns `datum`, `N` and metrics)."
        )
    metrics = [c for c in table.columns if c not in ("datum", "N")]
    values = table[metrics].to_numpy(dtype="float64", na_value=np.nan)
    present = ~np.isnan(values)
    filled = np.where(present, values, 0.0)
    if by is None:
        return MeansState(
            metrics, None, np.array([len(table)]), filled.sum(axis=0)[None, :], present.sum(axis=0)[None, :]
        )
    groups = _groups_of_data(table, by)
    names = [g.name for g in groups]
    check_identifier_names(names, ["N", *metrics], "by")
    for g in groups:
        check_not_pooled(g.dropna().unique(), "by")
    codes, keys = group_codes(groups, "by")
    k = len(keys)
    kept = codes >= 0
    size = np.r_[len(table), np.bincount(codes[kept], minlength=k)]
    total = np.empty((k + 1, len(metrics)))
    count = np.empty((k + 1, len(metrics)))
    for i in range(len(metrics)):  # a handful of metric columns
        total[:, i] = np.r_[
            filled[:, i].sum(), np.bincount(codes[kept], weights=filled[kept, i], minlength=k)
        ]
        count[:, i] = np.r_[
            present[:, i].sum(), np.bincount(codes[kept], weights=present[kept, i], minlength=k)
        ]
    return MeansState(metrics, keys, size, total, count)


def means_table(state: MeansState) -> pd.DataFrame:
    """The :func:`metric_means` table of a (combined) :class:`MeansState`.

    No data at all (an empty frame, or every row left out) is an error: there is nothing to
    average, and a pooled row of NaN would look like a result."""
    no_prediction, no_reference, labels = state.excluded
    warn_left_out(no_prediction, no_reference, int(state.size[0]) + no_prediction + no_reference, labels)
    if int(state.size[0]) == 0:
        raise InvalidInputError(
            "No rows to average: the table is empty (an empty frame, or every row was left out as "
            "missing); check the filter that produced the frame, or drop `by=` to get the empty "
            "per-row table."
        )
    means = divide(state.total, state.count, zero_division=np.nan)
    columns = {m: means[:, i] for i, m in enumerate(state.metrics)}
    if state.keys is not None:
        ungrouped = int(state.size[0]) - int(state.size[1:].sum())
        if ungrouped:
            emit(
                f"{ungrouped} of {int(state.size[0])} rows of the table have a missing `by` value: they are "
                f"left out of the group rows and count in the {POOLED_LABEL!r} row only.",
                ExcludedRowsWarning,
            )
    if state.keys is None:
        return result_table({"N": state.size, **columns}, integer_columns=["N"])
    ids = {
        name: np.concatenate(
            [np.array([POOLED_LABEL], dtype=object), state.keys[name].to_numpy(dtype=object)]
        )
        for name in state.keys.columns
    }
    return result_table({**ids, "N": state.size, **columns}, integer_columns=["N"])
