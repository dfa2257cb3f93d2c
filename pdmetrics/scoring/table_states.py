"""What a chunk of rows contributes to a scoring table, and how chunks combine.

A table that can run partition by partition is computed in three steps: a *state* from one
chunk of rows (the columns in, additive statistics out, no warning raised), the states of
disjoint chunks combined (``state.combine(other)``: counts and sums add, centred moments
combine exactly, groups and score labels align on their values), and the table *finalized*
from the state (the checks on the whole column, the warnings and the row-count errors are
raised there, once). The pandas path is the same code with one chunk; the dask path
(:mod:`pdmetrics._dask`) maps the first step over the partitions.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from pdmetrics._groups import as_series
from pdmetrics._tables import attach_info, result_table
from pdmetrics._validation import numeric_values
from pdmetrics.scoring.metrics import agreement_metrics, kappa_labels, pair_statistics_many
from pdmetrics.scoring.scored_rows import (
    EVAL_COLUMNS,
    RowCounts,
    ScoredRows,
    check_whole_columns,
    named_columns,
    numeric_count,
    select_scored_rows,
    warn_undefined_cells,
)
from pdmetrics.scoring.subgroups import (
    MISSING_GROUP,
    check_lengths,
    grouped_evaluation_table,
    grouped_statistics,
    subgroup_codes,
)

__all__ = [
    "evaluation_by_group_table",
    "EvaluationState",
    "evaluation_state",
    "evaluation_from_state",
    "evaluation_table",
]


@dataclass(frozen=True)
class EvaluationState:
    """The additive state of the ``eval`` table (and its subgroup table) over some rows.

    Attributes
    ----------
    rows : RowCounts
        Rows seen, left out (and why) and used.
    human_numeric, system_numeric : tuple, dict
        ``(values, numeric values)`` of the human column and of each system column.
    pooled : dict
        System column -> :class:`~pdmetrics.scoring.PairStatistics` of the used rows.
    groups : dict
        Subgroup column -> :class:`~pdmetrics.scoring.subgroups.GroupStatistics` (empty
        without ``by``).
    """

    rows: RowCounts
    human_numeric: tuple
    system_numeric: dict
    pooled: dict
    groups: dict

    def combine(self, other: EvaluationState) -> EvaluationState:
        """The state of the union of two disjoint row sets."""
        return EvaluationState(
            self.rows.combine(other.rows),
            _add(self.human_numeric, other.human_numeric),
            {name: _add(count, other.system_numeric[name]) for name, count in self.system_numeric.items()},
            {name: stats.combine(other.pooled[name]) for name, stats in self.pooled.items()},
            {by: group.combine(other.groups[by]) for by, group in self.groups.items()},
        )


def _add(a: tuple, b: tuple) -> tuple:
    return tuple(x + y for x, y in zip(a, b))


def evaluation_by_group_table(human, system, groups, exclude_zero: bool = True) -> pd.DataFrame:
    """RSMTool's ``eval_by_<group>`` content: the ``eval`` metrics per subgroup, with DSM.

    Parameters
    ----------
    human : Series
        Human scores.
    system : Series, DataFrame or mapping
        System score column(s).
    groups : Series, DataFrame or mapping
        One or more subgroup columns; each is evaluated separately (not their
        intersections: make a combined column for that).
    exclude_zero : bool, default True
        Leave out human scores of 0.

    Returns
    -------
    pandas.DataFrame
        One row per system column x subgroup column x group, the ``"(all)"`` row (the
        whole evaluation set) first: ``system, by`` (the subgroup column), ``group`` (its
        value; missing values are the group "No info"), then the ``eval`` columns and
        ``DSM``, the difference of standardized means: ``mean(z_M - z_H)`` over the group
        with ``z`` computed from the whole evaluation set's mean and SD (``ddof=1``).
        Groups are sorted; groups of one or two responses are kept (their undefined
        metrics are NaN, with a warning).

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.scoring import evaluation_by_group_table
    >>> df = pd.DataFrame({"sc1": [1, 2, 3, 4, 5, 3], "raw": [1.4, 2.2, 2.6, 4.5, 4.4, 3.5],
    ...                    "L1": ["a", "a", "a", "b", "b", "b"]})
    >>> table = evaluation_by_group_table(df["sc1"], df["raw"], df["L1"])
    >>> table[["system", "by", "group", "N", "corr", "DSM"]].round(3)
      system  by  group  N   corr    DSM
    0    raw  L1  (all)  6  0.942  0.000
    1    raw  L1      a  3  0.982 -0.122
    2    raw  L1      b  3  0.817  0.122
    """
    human = as_series(human, "human")
    state = evaluation_state(human, named_columns(system), named_columns(groups, "group"), exclude_zero)
    return evaluation_from_state(state, human.name, exclude_zero)


def evaluation_state(human: pd.Series, systems: dict, by: dict | None, exclude_zero: bool) -> EvaluationState:
    """The :class:`EvaluationState` of one chunk of rows.

    ``human`` is a named Series, ``systems`` and ``by`` map column names to Series of the same
    rows (``by`` None or empty: no subgroup table). No warning is raised here and a chunk may
    have no usable row: :func:`evaluation_from_state` checks the whole.
    """
    h = numeric_values(human, "human")
    values = {name: numeric_values(series, "system") for name, series in systems.items()}
    by = by or {}
    check_lengths(h, {**values, **by})
    rows = select_scored_rows(h, list(values.values()), exclude_zero)
    every_row = rows.n_used == rows.n_input  # then no copies of the score columns are needed
    h_used = h if every_row else h[rows.mask]
    used = {name: array if every_row else array[rows.mask] for name, array in values.items()}
    h_labels = kappa_labels(h_used, "human")
    groups = {}
    if by:
        encoded = {name: subgroup_codes(series, rows.mask) for name, series in by.items()}
        pooled, groups = grouped_statistics(h_used, used, encoded, h_labels)
        groups = {
            name: replace(
                group, missing_last=_missing_only(by[name], rows.mask, group.labels), dtype=by[name].dtype
            )
            for name, group in groups.items()
        }
    else:
        pooled = pair_statistics_many(h_used, used, human_labels=h_labels)
    return EvaluationState(
        rows.counts(),
        numeric_count(h),
        {name: numeric_count(v) for name, v in values.items()},
        pooled,
        groups,
    )


def _missing_only(series: pd.Series, mask: np.ndarray, labels: np.ndarray) -> bool:
    """Whether the ``"No info"`` group (if any) holds only missing values, not the value itself."""
    if not (labels == MISSING_GROUP).any():
        return True
    return not bool((series[mask] == MISSING_GROUP).any())


def evaluation_from_state(state: EvaluationState, human_name, exclude_zero: bool) -> pd.DataFrame:
    """The ``eval`` table (with subgroups: the ``eval_by`` table) from its state.

    Raises the errors and warnings about the whole column: no numeric score at all, rows left
    out, no row left to evaluate.
    """
    check_whole_columns(state, human_name, state.pooled)
    if not state.groups:
        return evaluation_table(state.pooled, state.rows, exclude_zero)
    groups = {name: group.in_order() for name, group in state.groups.items()}
    table = grouped_evaluation_table(state.pooled, groups)
    return attach_info(table, **state.rows.info("system"), exclude_zero=exclude_zero)


def evaluation_table(stats: dict, rows: ScoredRows, exclude_zero: bool) -> pd.DataFrame:
    """The ``eval`` table from each system column's :class:`PairStatistics` (name -> statistics)."""
    metrics = {column: [] for column in EVAL_COLUMNS}
    for column_stats in stats.values():
        row = agreement_metrics(column_stats)
        for column in EVAL_COLUMNS:
            metrics[column].append(row[column][0])
    table = result_table({"system": list(stats), **metrics}, integer_columns=["N"])
    warn_undefined_cells(table, "system", EVAL_COLUMNS)
    return attach_info(table, **rows.info("system"), exclude_zero=exclude_zero)
