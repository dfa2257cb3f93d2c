"""What a chunk of rows contributes to a scoring table, and how chunks combine.

A table that can run partition by partition is computed in three steps: a *state* from one
chunk of rows (the columns in, additive statistics out, no warning raised), the states of
disjoint chunks combined (``state.combine(other)``: counts and sums add, centred moments
combine exactly, groups and score labels align on their values), and the table *finalized*
from the state (the checks on the whole column, the warnings and the row-count errors are
raised there, once). The tables' specs (:mod:`pdmetrics.scoring.tables`) are built on these
states: pandas runs them as one chunk, dask (:mod:`pdmetrics.engines.dask`) over partitions.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from pdmetrics._additive import Additive
from pdmetrics._groups import as_series
from pdmetrics._renamed import renamed
from pdmetrics._stats import Moments
from pdmetrics._tables import attach_info, result_table
from pdmetrics._validation import numeric_values, plain
from pdmetrics.errors import InvalidInputError
from pdmetrics.scoring.metrics import (
    PairStatistics,
    agreement_metrics,
    kappa_labels,
    pair_statistics,
    pair_statistics_many,
)
from pdmetrics.scoring.scored_rows import (
    CONSISTENCY_COLUMNS,
    EVAL_COLUMNS,
    RowCounts,
    ScoredRows,
    check_whole_columns,
    named_columns,
    numeric_count,
    require_scores,
    select_scored_rows,
    warn_undefined_cells,
)
from pdmetrics.scoring.subgroups import (
    MISSING_GROUP,
    check_lengths,
    grouped_consistency_statistics,
    grouped_consistency_table,
    grouped_evaluation_table,
    grouped_statistics,
    subgroup_codes,
)

__all__ = [
    "consistency_by_group_table",
    "ConsistencyState",
    "consistency_state",
    "consistency_from_state",
    "evaluation_by_group_table",
    "EvaluationState",
    "evaluation_state",
    "evaluation_from_state",
    "evaluation_table",
    "consistency_table",
]


@dataclass(frozen=True)
class EvaluationState(Additive):
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


def _add(a: tuple, b: tuple) -> tuple:
    return tuple(x + y for x, y in zip(a, b))


@renamed("groups")
def evaluation_by_group_table(human, system, by, exclude_zero: bool = True) -> pd.DataFrame:
    """RSMTool's ``eval_by_<group>`` content: the ``eval`` metrics per subgroup, with DSM.

    Parameters
    ----------
    human : Series
        Human scores.
    system : Series, DataFrame or mapping
        System score column(s).
    by : Series, DataFrame or mapping
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
    state = evaluation_state(human, named_columns(system), named_columns(by, "group"), exclude_zero)
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
        groups = _named_groups(groups, by, rows.mask)
    else:
        pooled = pair_statistics_many(h_used, used, human_labels=h_labels)
    return EvaluationState(
        rows.counts(),
        numeric_count(h),
        {name: numeric_count(v) for name, v in values.items()},
        pooled,
        groups,
    )


def _named_groups(groups: dict, by: dict, mask: np.ndarray) -> dict:
    """Each subgroup column's statistics (``groups``) with its name, dtype and whether its
    ``"No info"`` group holds only missing values (``mask``: the rows the statistics used)."""
    return {
        name: replace(
            group,
            missing_last=_missing_only(by[name], mask, group.labels),
            dtype=by[name].dtype,
            name=name,
        )
        for name, group in groups.items()
    }


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


# --------------------------------------------------------------------------------------
# consistency (human-human agreement)
# --------------------------------------------------------------------------------------
@renamed("groups")
def consistency_by_group_table(human, second_human, by, exclude_zero: bool = True) -> pd.DataFrame:
    """RSMTool's ``consistency_by_<group>``: human-human agreement per subgroup, with DSM.

    The groups are those of the responses with a (non-zero) first human score; a group
    with no double-scored response gets a row with ``N = 0`` and NaN metrics, as in
    RSMTool. ``DSM`` z-scores the first rater with the mean and SD over all responses
    with a first score and the second rater over all double-scored responses (RSMTool's
    population values), then averages ``z_H2 - z_H1`` over the group's double-scored
    responses. ``by``: one or more subgroup columns, as in :func:`evaluation_by_group_table`.

    Returns
    -------
    pandas.DataFrame
        ``by, group, N, h1_mean, h1_sd, h1_min, h1_max, h2_mean, h2_sd, h2_min, h2_max,
        corr, wtkappa, kappa, exact_agr, adj_agr, SMD, DSM``; the ``"(all)"`` row (all responses) first.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.scoring import consistency_by_group_table
    >>> df = pd.DataFrame({"sc1": [1, 2, 3, 4, 5, 3], "sc2": [1, 3, 3, 4, 5, None],
    ...                    "L1": ["a", "a", "a", "b", "b", "c"]})
    >>> consistency_by_group_table(df["sc1"], df["sc2"], df["L1"])[["group", "N", "exact_agr"]]
       group  N   exact_agr
    0  (all)  5   80.000000
    1      a  3   66.666667
    2      b  2  100.000000
    3      c  0         NaN
    """
    human = as_series(human, "human")
    second_human = as_series(second_human, "second_human")
    state = consistency_state(human, second_human, exclude_zero, named_columns(by, "group"))
    return consistency_from_state(state, human.name, second_human.name, exclude_zero)


@dataclass(frozen=True)
class ConsistencyState(Additive):
    """The additive state of the ``consistency`` table (and its subgroup table).

    ``statistics``: the double-scored responses' :class:`~pdmetrics.scoring.PairStatistics`;
    ``first``: the moments of the first human score over every response with one (the
    population of DSM's first side; only with groups); ``groups``: subgroup column ->
    :class:`~pdmetrics.scoring.subgroups.GroupStatistics` of the double-scored responses,
    with the groups of every response that has a first score.
    """

    rows: RowCounts
    human_numeric: tuple
    second_numeric: tuple
    statistics: PairStatistics
    first: Moments | None = None
    groups: dict = field(default_factory=dict)


def consistency_state(
    human: pd.Series, second_human: pd.Series, exclude_zero: bool, by: dict | None = None
) -> ConsistencyState:
    """The :class:`ConsistencyState` of one chunk of rows (named Series in; no warning raised)."""
    h1 = numeric_values(human, "human")
    h2 = numeric_values(second_human, "second_human")
    if h1.size != h2.size:
        raise InvalidInputError(f"`human` has {h1.size} values but `second_human` has {h2.size}.")
    by = by or {}
    check_lengths(h1, by)
    numeric = numeric_count(h1), numeric_count(h2)
    if exclude_zero:
        h2 = np.where(h2 == 0, np.nan, h2)
    double = select_scored_rows(h1, [h2], exclude_zero)
    pair = h1[double.mask], h2[double.mask]
    if not by:
        return ConsistencyState(double.counts(), *numeric, pair_statistics(*pair))
    scored = select_scored_rows(h1, [], exclude_zero)  # the evaluation set: a usable first score
    encoded = {name: subgroup_codes(series, scored.mask) for name, series in by.items()}
    pooled, groups = grouped_consistency_statistics(*pair, double.mask[scored.mask], encoded)
    groups = _named_groups(groups, by, scored.mask)
    first = h1[scored.mask]
    return ConsistencyState(double.counts(), *numeric, pooled, Moments.from_arrays(first, first), groups)


def consistency_from_state(
    state: ConsistencyState, human_name, second_name, exclude_zero: bool
) -> pd.DataFrame:
    """The ``consistency`` table (with groups: ``consistency_by``) from its :class:`ConsistencyState`."""
    require_scores({human_name: state.human_numeric}, "human")
    require_scores({second_name: state.second_numeric}, "second_human")
    rows = state.rows
    if rows.n_used == 0:
        raise InvalidInputError(
            f"No double-scored responses: of {rows.n_input} rows none has numeric scores in both "
            f"{plain(human_name)!r} and {plain(second_name)!r}"
            + (" (zeros are left out because exclude_zero=True)" if exclude_zero else "")
            + "."
        )
    if not state.groups:
        return consistency_table(state.statistics, human_name, second_name, rows, exclude_zero)
    first, second = state.first, state.statistics.moments
    population = (
        first.mean_x[0],
        float(np.sqrt(first.variance_x()[0])),
        second.mean_y[0],
        float(np.sqrt(second.variance_y()[0])),
    )
    groups = {name: group.in_order() for name, group in state.groups.items()}
    table = grouped_consistency_table(state.statistics, groups, population)
    return attach_info(table, **rows.second_human_info(), exclude_zero=exclude_zero)


def consistency_table(stats, human_name, second_name, rows: ScoredRows, exclude_zero: bool) -> pd.DataFrame:
    """The ``consistency`` table from the double-scored responses' :class:`PairStatistics`."""
    metrics = agreement_metrics(stats, smd_method="pooled")
    renamed = {name.replace("h_", "h1_").replace("sys_", "h2_"): value for name, value in metrics.items()}
    table = result_table(
        {
            "human": [human_name],
            "second_human": [second_name],
            **{c: renamed[c] for c in CONSISTENCY_COLUMNS},
        },
        integer_columns=["N"],
    )
    warn_undefined_cells(table, "human", CONSISTENCY_COLUMNS)
    return attach_info(table, **rows.second_human_info(), exclude_zero=exclude_zero)
