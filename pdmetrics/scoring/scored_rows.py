"""The score columns a scoring table evaluates, and the rows it uses.

Shared by the RSMTool tables (:mod:`pdmetrics.scoring.tables`), the subgroup tables and the
report: the tables' column layouts, one or more columns as named Series, the check that
no column is compared with itself, and which rows are scored (with the warning or error
that says what was left out).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import astuple, dataclass

import numpy as np
import pandas as pd

from pdmetrics._groups import named_columns as group_named_columns
from pdmetrics._validation import one_name, plain, preview, require_columns
from pdmetrics._warnings import emit, warn_undefined
from pdmetrics.errors import ExcludedRowsWarning, InvalidInputError

__all__ = ["EVAL_COLUMNS", "CONSISTENCY_COLUMNS"]

#: The Parameters section of the tables of human and system scores' docstrings (filled in by
#: :func:`pdmetrics._docstrings.fill`).
SCORE_PAIR_PARAMETERS = """
Parameters
----------
frame : DataFrame
    The scored responses.
human : str
    Human score column.
system : str or list of str
    System score column(s).
exclude_zero : bool, default True
    Leave out human scores of 0.
"""
#: The parameters of the tables that also read a second human score.
TWO_HUMANS_PARAMETERS = """
frame : DataFrame
    The scored responses.
human, second_human : str
    First and second human score columns.
system : str or list of str
    System score column(s).
"""
EXCLUDE_ZERO_PARAMETER = """
exclude_zero : bool, default True
    Leave out human scores of 0.
"""

#: Metric columns of the ``eval`` table, in RSMTool's order.
EVAL_COLUMNS = (
    "N",
    "h_mean",
    "h_sd",
    "h_min",
    "h_max",
    "sys_mean",
    "sys_sd",
    "sys_min",
    "sys_max",
    "corr",
    "wtkappa",
    "R2",
    "kappa",
    "exact_agr",
    "adj_agr",
    "SMD",
    "RMSE",
)

#: Metric columns of the ``consistency`` table, in RSMTool's order.
CONSISTENCY_COLUMNS = (
    "N",
    "h1_mean",
    "h1_sd",
    "h1_min",
    "h1_max",
    "h2_mean",
    "h2_sd",
    "h2_min",
    "h2_max",
    "corr",
    "wtkappa",
    "kappa",
    "exact_agr",
    "adj_agr",
    "SMD",
)


# --------------------------------------------------------------------------------------
# choosing the rows to evaluate
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ScoredRows:
    """The rows an evaluation uses, and why the others were left out."""

    mask: np.ndarray
    n_input: int
    n_missing_human: int
    n_zero_human: int
    n_missing_other: int

    @property
    def n_used(self) -> int:
        return int(self.mask.sum())

    def counts(self) -> RowCounts:
        """The counts without the mask (what a chunk of rows adds to a table's state)."""
        return RowCounts(
            self.n_input, self.n_missing_human, self.n_zero_human, self.n_missing_other, self.n_used
        )

    def info(self, other: str) -> dict:
        return {
            "n_input": self.n_input,
            "n_used": self.n_used,
            "excluded": {
                "missing_human": self.n_missing_human,
                "zero_human": self.n_zero_human,
                f"missing_{other}": self.n_missing_other,
            },
        }

    def second_human_info(self) -> dict:
        """:meth:`info` of the double-scored rows (rows without a second score: ``no_second_human``)."""
        info = self.info("second_human")
        info["excluded"]["no_second_human"] = info["excluded"].pop("missing_second_human")
        return info


@dataclass(frozen=True)
class RowCounts:
    """:class:`ScoredRows` as counts only; counts of disjoint row sets add (:meth:`combine`)."""

    n_input: int
    n_missing_human: int
    n_zero_human: int
    n_missing_other: int
    n_used: int

    def combine(self, other: RowCounts) -> RowCounts:
        return RowCounts(*(a + b for a, b in zip(astuple(self), astuple(other))))

    info = ScoredRows.info
    second_human_info = ScoredRows.second_human_info


def check_exclude_zero(exclude_zero) -> None:
    """``exclude_zero`` must be a boolean: a string such as "no" would silently mean True."""
    if not isinstance(exclude_zero, (bool, np.bool_)):
        raise InvalidInputError(f"`exclude_zero={plain(exclude_zero)!r}` must be True or False.")


def select_scored_rows(human: np.ndarray, others: list[np.ndarray], exclude_zero: bool) -> ScoredRows:
    """Rows with a numeric human score (non-zero if asked) and numeric other scores.

    Exclusions are counted in RSMTool's order: missing human score, then human score of
    zero, then a missing score in any of ``others``.
    """
    check_exclude_zero(exclude_zero)
    valid_human = np.isfinite(human)
    keep = valid_human.copy()
    n_zero = 0
    if exclude_zero:
        zero = keep & (human == 0)
        n_zero = int(zero.sum())
        keep &= ~zero
    n_after_human = int(keep.sum())
    for values in others:
        keep &= np.isfinite(values)
    return ScoredRows(
        keep, human.size, int(human.size - valid_human.sum()), n_zero, n_after_human - int(keep.sum())
    )


def report_exclusions(rows: ScoredRows, what: str, human_name, other_name) -> None:
    """Count the rows left out in one :class:`~pdmetrics.ExcludedRowsWarning` (a human score
    of 0 too: rsmeval leaves those out by default), or refuse when no row is left (the
    error counts them instead)."""
    if rows.n_used == 0:
        raise InvalidInputError(
            f"No rows left to evaluate: of {rows.n_input} rows, {rows.n_missing_human} have a missing or "
            f"non-numeric human score ({plain(human_name)!r}), {rows.n_zero_human} a human score of 0 "
            f"(left out because exclude_zero=True) and {rows.n_missing_other} a missing {what} "
            f"({other_name}). Check the column names, or pass exclude_zero=False to keep zeros."
        )
    if rows.n_missing_human or rows.n_zero_human or rows.n_missing_other:
        parts = []
        if rows.n_missing_human:
            parts.append(
                f"{rows.n_missing_human} with a missing or non-numeric human score ({plain(human_name)!r})"
            )
        if rows.n_zero_human:
            parts.append(
                f"{rows.n_zero_human} with a human score of 0 ({plain(human_name)!r}; `exclude_zero=True`, "
                "as rsmeval; pass `exclude_zero=False` to keep them)"
            )
        if rows.n_missing_other:
            parts.append(f"{rows.n_missing_other} with a missing or non-numeric {what} ({other_name})")
        emit(
            f"Left out {rows.n_input - rows.n_used} of {rows.n_input} rows: "
            + "; ".join(parts)
            + ". Details in result.attrs['pdmetrics'].",
            ExcludedRowsWarning,
        )


def check_listed_once(names, argument: str) -> None:
    """Refuse a column named more than once by one argument (``by=["L1", "L1"]``); the
    pandas and the dask accessors share it."""
    names = pd.Index(list(names), dtype=object, tupleize_cols=False)
    repeated = names[names.duplicated()]
    if len(repeated):
        raise InvalidInputError(
            f"`{argument}=` names {preview(repeated.unique())} more than once; pass each column once."
        )


#: The score-column arguments that take one column name; the others take one or several.
SINGLE_COLUMNS = ("human", "second_human")


def score_columns(frame: pd.DataFrame, exclude_zero, **arguments) -> dict:
    """The checked column names of a scoring table's arguments (``human=``, ``second_human=``,
    ``system=``, ``by=``; ``None`` for an absent ``by``): each one column of ``frame`` (the
    ``human`` ones exactly one), each listed once, no column under two arguments, and with
    ``by`` flat names (they label the subgroup table's rows). Lists for ``system`` and ``by``."""
    check_exclude_zero(exclude_zero)
    names = {}
    for argument, value in arguments.items():
        if argument in SINGLE_COLUMNS:
            names[argument] = one_name(frame, argument, value)
        else:
            names[argument] = [] if value is None else require_columns(frame, argument, value)
            check_listed_once(names[argument], argument)
    check_distinct_columns(**{key: value for key, value in names.items() if key != "by"})
    if names.get("by"):
        check_flat_names(names.get("system", []), "system", "the subgroup table")
        check_flat_names(names["by"], "by", "the subgroup table")
    return names


def named_columns(values, default_name: str = "system") -> dict[str, pd.Series]:
    """One or more columns (DataFrame, mapping of name -> values, list of Series, or one
    Series/array) as a dict of named Series; a column named twice is refused."""
    if isinstance(values, pd.DataFrame):
        check_listed_once(values.columns, default_name)
    return {series.name: series for series in group_named_columns(values, None, default_name)}


def check_distinct_columns(**columns) -> None:
    """Refuse a column compared with itself: a name given twice across (or within) arguments.

    ``columns`` maps each argument (``human``, ``second_human``, ``system``, ``raters``) to a
    name, a list of names, or None (not given). The same scores on both sides would report
    perfect agreement; rsmeval refuses this too.
    """
    seen: dict = {}
    for argument, names in columns.items():
        if names is None:
            continue
        listed = names if isinstance(names, list) else [names]
        for name in listed:
            if not isinstance(name, Hashable):
                continue
            if name in seen:
                where = seen[name]
                clash = (
                    f"`{argument}=` names {plain(name)!r} twice"
                    if where == argument
                    else (f"`{where}=` and `{argument}=` both name {plain(name)!r}")
                )
                raise InvalidInputError(
                    f"{clash}: a column compared with itself agrees perfectly by construction. "
                    "Pass different columns (rsmeval refuses this too)."
                )
            seen[name] = argument


def column_names(columns: Mapping) -> str:
    """The names of a few score columns, for messages (capped)."""
    return preview(list(columns), limit=10)


def numeric_count(values: np.ndarray) -> tuple[int, int]:
    """``(number of values, number of numeric values)`` of a score array, for :func:`require_scores`."""
    return values.size, int(np.count_nonzero(np.isfinite(values)))


def require_scores(columns: Mapping, argument: str) -> None:
    """Refuse a score column with no numeric value at all, naming it (``columns``: name ->
    array, or name -> ``numeric_count`` of the array)."""
    for name, values in columns.items():
        size, numeric = values if isinstance(values, tuple) else (values.size, int(np.isfinite(values).any()))
        if size and not numeric:
            raise InvalidInputError(
                f"`{argument}={plain(name)!r}`: all {size} values are missing or not numbers, so "
                "no response can be evaluated. Check the column name, or fill in the scores."
            )


def check_whole_columns(state, human_name, system_names) -> None:
    """The checks on whole columns, from a table state's counts (``rows``, ``human_numeric``,
    ``system_numeric``): no numeric score at all, rows left out (a warning), no row left."""
    require_scores({human_name: state.human_numeric}, "human")
    require_scores(state.system_numeric, "system")
    report_exclusions(state.rows, "system score", human_name, column_names(system_names))


def check_flat_names(names, argument: str, what: str) -> None:
    """Refuse a tuple (MultiIndex) column name where ``what`` builds text labels from it."""
    for name in names:
        if isinstance(name, tuple):
            raise InvalidInputError(
                f"`{argument}={name!r}`: {what} needs flat column names, not MultiIndex tuples. Flatten "
                "the columns first, e.g. `df.columns = ['_'.join(map(str, c)) for c in df.columns]`."
            )


def warn_undefined_cells(table: pd.DataFrame, id_column: str, metrics: tuple[str, ...]) -> None:
    """Warn once about the NaN metric cells of a table (``id_column`` names each row)."""
    cells = []
    for _, row in table.iterrows():  # one row per evaluated score column, not per response
        nan = [m for m in metrics if m != "N" and pd.isna(row[m])]
        if nan:
            cells.append(f"{plain(row[id_column])!r}: {', '.join(nan)}")
    if cells:
        warn_undefined(
            "Some metrics are undefined and are NaN (fewer than two responses, or constant "
            "scores): " + "; ".join(cells) + ". They stay NaN, as in RSMTool's tables (no option "
            "changes them): check those score columns, or fill the cells, e.g. `table.fillna({'corr': 0})`."
        )
