"""Averages of evaluation tables across data sets, skipping undefined values.

The reference project averages each metric over the data sets it was evaluated on,
leaving out a data set where the metric is not set. Here the evaluation tables of several
data sets are concatenated (``pd.concat``) and each metric column is averaged, NaN
skipped, optionally per group.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._table_spec import Table, table
from pdmetrics._tables import attach_info
from pdmetrics._validation import require_columns
from pdmetrics._warnings import warn_undefined
from pdmetrics.errors import InvalidInputError
from pdmetrics.fairness._inputs import aligned_counts, group_keys, plain_keys

__all__ = ["AverageState", "average_from_state", "average_metrics", "average_sums"]


def _default_metrics(table: pd.DataFrame, exclude) -> list:
    return [
        name
        for name in table.columns
        if name not in exclude
        and pd.api.types.is_float_dtype(table[name].dtype)
        and not str(name).startswith("N")
    ]


@table
def average_metrics(frame, *, metrics=None, by=None) -> pd.DataFrame:
    """Unweighted mean of each metric column, undefined (NaN) values skipped.

    Parameters
    ----------
    frame : pandas.DataFrame
        Several evaluation tables concatenated (one row per data set, or per data set and
        group); dask and polars frames run the same table (the columns are chosen from the
        frame's dtypes).
    metrics : list of str, optional
        Columns to average. Default: every float column whose name does not start with
        ``N`` (the counts).
    by : str or list of str, optional
        Average within each group of these columns (e.g. ``"by"`` of concatenated
        classification tables), in sorted order.

    Returns
    -------
    pandas.DataFrame
        The group columns, ``N`` (rows averaged), then one column per metric: the mean of
        its defined values. A metric with no defined value is NaN with an
        :class:`~pdmetrics.UndefinedMetricWarning`. ``inf`` values (e.g. a disparate impact
        with a zero privileged rate) are defined and make the mean ``inf``.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> import pdmetrics
    >>> tables = pd.DataFrame({"dataset": ["pisa", "compas"], "accuracy": [0.8, 0.6],
    ...                        "disparate_impact": [0.9, np.nan]})
    >>> tables.fairness.average_metrics()
       N  accuracy  disparate_impact
    0  2       0.7               0.9
    >>> pdmetrics.fairness.average_metrics(tables, metrics=["accuracy"])
       N  accuracy
    0  2       0.7
    """
    by_names, names = _chosen_columns(frame, metrics, by)
    return Table([*by_names, *names], partial(_average_chunk, names, by_names), average_from_state)


def _average_chunk(names: list, by_names: list, part: pd.DataFrame) -> AverageState:
    return average_sums(part, names, by_names)


@dataclass(frozen=True)
class AverageState:
    """The additive state of :func:`average_metrics` over some rows.

    ``sums`` has one row per group (one row without ``by``): the totals of the defined values
    of each metric, then their counts, then the number of rows; ``keys`` are the groups
    (:func:`~pdmetrics.fairness._inputs.group_keys`; None without ``by``).
    """

    names: list
    by: list
    keys: pd.DataFrame | None
    sums: np.ndarray

    def combine(self, other: AverageState) -> AverageState:
        """The state of the union of two disjoint row sets (groups aligned on their values)."""
        if self.keys is None:
            return AverageState(self.names, self.by, None, self.sums + other.sums)
        keys, sums = aligned_counts(self.keys, self.sums, other.keys, other.sums)
        return AverageState(self.names, self.by, keys, sums)


def _chosen_columns(table: pd.DataFrame, metrics, by) -> tuple[list, list]:
    """The group columns and the metric columns (checked; the default chosen from the dtypes)."""
    by_names = [] if by is None else require_columns(table, "by", by)
    names = (
        _default_metrics(table, by_names) if metrics is None else require_columns(table, "metrics", metrics)
    )
    not_numeric = [
        name
        for name in names
        if not (
            pd.api.types.is_numeric_dtype(table[name].dtype)
            and not pd.api.types.is_bool_dtype(table[name].dtype)
        )
    ]
    if not_numeric:
        raise InvalidInputError(
            f"`metrics=` names column(s) {not_numeric!r} that are not numeric "
            f"(dtype {table[not_numeric[0]].dtype}); average only metric columns, e.g. "
            f"`metrics=['statistical_parity_difference', 'accuracy']`."
        )
    return by_names, list(names)


def average_sums(table: pd.DataFrame, names: list, by_names: list) -> AverageState:
    """The :class:`AverageState` of the checked metric columns ``names`` (and group columns
    ``by_names``) of one chunk of rows (no warning).

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.fairness.averages import average_from_state, average_sums
    >>> tables = pd.DataFrame({"dataset": ["pisa", "compas", "bbq"], "lms": [80.0, 70.0, 60.0]})
    >>> first, second = (average_sums(part, ["lms"], []) for part in (tables[:1], tables[1:]))
    >>> average_from_state(first.combine(second))
       N   lms
    0  3  70.0
    """
    values = (
        np.column_stack(
            [
                pd.to_numeric(table[name], errors="coerce").to_numpy(dtype="float64", na_value=np.nan)
                for name in names
            ]
        )
        if names
        else np.zeros((len(table), 0))
    )
    defined = ~np.isnan(values)
    filled = np.where(defined, values, 0.0)
    if by_names:
        codes, keys = group_keys([table[name] for name in by_names])
        keep = codes >= 0
        sums = np.zeros((len(keys), 2 * len(names) + 1))
        np.add.at(sums[:, : len(names)], codes[keep], filled[keep])
        np.add.at(sums[:, len(names) : 2 * len(names)], codes[keep], defined[keep])
        sums[:, -1] = np.bincount(codes[keep], minlength=len(keys))
        return AverageState(list(names), by_names, keys, sums)
    with np.errstate(invalid="ignore"):
        totals = filled.sum(axis=0)
    sums = np.concatenate([totals, defined.sum(axis=0), [len(table)]])[None, :].astype("float64")
    return AverageState(list(names), by_names, None, sums)


def average_from_state(state: AverageState) -> pd.DataFrame:
    """The :func:`average_metrics` table from the state of every row (its warning raised here)."""
    names, m = state.names, len(state.names)
    totals, counts, rows = state.sums[:, :m], state.sums[:, m : 2 * m], state.sums[:, -1]
    result = pd.DataFrame(index=range(1)) if state.keys is None else plain_keys(state.keys)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(counts > 0, totals / np.where(counts > 0, counts, 1), np.nan)
    if len(names) and (counts == 0).any():
        empty = [names[j] for j in np.flatnonzero((counts == 0).any(axis=0))]
        warn_undefined(
            f"No defined value to average for {', '.join(map(str, empty))} (in at least one row of "
            f"the result); it is NaN there."
        )
    result["N"] = rows.astype(np.int64)
    for j, name in enumerate(names):
        result[name] = means[:, j]
    result.index = pd.RangeIndex(len(result))
    return attach_info(result, metrics=list(names), by=state.by)
