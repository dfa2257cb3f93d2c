"""Turning the columns of a fairness evaluation into arrays: labels, flags, responses, groups.

Private helpers shared by the classification and LLM modules. Everything here is one
vectorized pass over a column; nothing modifies its input.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._additive import Additive
from pdmetrics._groups import (
    POOLED_LABEL,
    as_series,
    check_identifier_names,
    check_not_pooled,
    check_one_kind,
    check_scalar_cells,
    group_codes,
)
from pdmetrics._table_spec import Table
from pdmetrics._validation import check_not_complex, one_name, plain, require_columns
from pdmetrics._warnings import warn_excluded
from pdmetrics.errors import InvalidInputError

_THINK_BLOCK = r"(?s)<think>.*?</think>"


# --------------------------------------------------------------------------------------
# the column arguments of a table: names checked on the frame's schema, columns read per chunk
# --------------------------------------------------------------------------------------
def optional_name(frame: pd.DataFrame, argument: str, name):
    """The one column ``name`` of ``frame``, checked (see :func:`~pdmetrics._validation.one_name`);
    None stays None."""
    return None if name is None else one_name(frame, argument, name)


def group_names(frame: pd.DataFrame, by, argument: str = "by"):
    """The group columns ``by`` (one name or a list) of ``frame``, checked; None stays None."""
    return None if by is None else require_columns(frame, argument, by)


def label_columns(frame: pd.DataFrame, y_true, y_pred, by) -> dict:
    """The checked names of the label, prediction and group columns, by argument."""
    return {
        "y_true": one_name(frame, "y_true", y_true),
        "y_pred": one_name(frame, "y_pred", y_pred),
        "by": group_names(frame, by),
    }


def column_table(state, columns: dict, options: dict, finalize) -> Table:
    """The :class:`~pdmetrics._table_spec.Table` that calls ``state(**arguments, **options)`` on
    each chunk, every argument of ``columns`` (argument -> checked column name, list of names
    or None) given as that chunk's column (list of columns, or None), then ``finalize``."""
    names = [name for value in columns.values() if value is not None for name in _as_list(value)]
    return Table(names, partial(columns_chunk, state, columns, options), finalize)


def _as_list(value) -> list:
    return value if isinstance(value, list) else [value]


def columns_chunk(state, columns: dict, options: dict, part: pd.DataFrame):
    """One chunk's state (see :func:`column_table`)."""
    arguments = {
        argument: None
        if name is None
        else [part[[one]].iloc[:, 0] for one in name]
        if isinstance(name, list)
        else part[[name]].iloc[:, 0]
        for argument, name in columns.items()
    }
    return state(**arguments, **options)


def _distinct_preview(series: pd.Series, limit: int = 6) -> str:
    try:
        values = pd.unique(series.dropna())[:limit]
    except TypeError:  # unhashable values (lists, dicts): show the first ones as they are
        values = series.dropna().head(limit).tolist()
    return ", ".join(repr(plain(v)) for v in values)


def check_group_names(columns: list[pd.Series], result_columns, argument: str = "by") -> None:
    """Refuse group columns whose names cannot head a column of a flat result table.

    A name equal to a result column (``N``, ``tpr``, ...) would overwrite it; a tuple (a
    MultiIndex column) would turn the table's columns into a MultiIndex, and is refused by
    every fairness table's ``by=`` alike (pass no ``result_columns`` where the names are
    values of the table, as in the score fairness tables).
    """
    names = [series.name for series in columns]
    for name in names:
        if isinstance(name, tuple):
            raise InvalidInputError(
                f"`{argument}={name!r}` is a MultiIndex column; the fairness tables take flat group column "
                f"names, so flatten the names first, e.g. "
                f"`df.columns = ['_'.join(map(str, c)) for c in df.columns]`."
            )
    check_identifier_names(names, result_columns, argument)


def binary_labels(y_true, y_pred, pos_label) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Binarized truth and prediction, and the rows where either is missing."""
    t_pos, p_pos, missing, summaries = binary_label_rows(y_true, y_pred, pos_label)
    check_label_summaries(summaries, pos_label)
    return t_pos, p_pos, missing


def binary_label_rows(y_true, y_pred, pos_label) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple]:
    """:func:`binary_labels` of one chunk of rows, without the checks on the whole columns.

    Returns ``(t_pos, p_pos, missing, summaries)``: the two :class:`LabelSummary` (combine
    them over chunks, then :func:`check_label_summaries`).
    """
    t_series, p_series = as_series(y_true, "y_true"), as_series(y_pred, "y_pred")
    if len(t_series) != len(p_series):
        raise InvalidInputError(
            f"`y_true` has {len(t_series)} values but `y_pred` has {len(p_series)}; "
            f"pass paired labels of equal length."
        )
    t_pos, t_missing = binary_outcome(t_series, pos_label, "y_true")
    p_pos, p_missing = binary_outcome(p_series, pos_label, "y_pred")
    summaries = (label_summary(t_series, t_pos, t_missing), label_summary(p_series, p_pos, p_missing))
    return t_pos, p_pos, t_missing | p_missing, summaries


def check_label_summaries(summaries: tuple, pos_label) -> None:
    """The checks of the whole ``y_true`` and ``y_pred`` columns, from their summaries."""
    t_summary, p_summary = summaries
    check_pos_label_summaries([t_summary, p_summary], pos_label)
    check_binary_summary(t_summary, pos_label, "y_true")
    check_binary_summary(p_summary, pos_label, "y_pred")


def binary_outcome(series: pd.Series, pos_label, argument: str) -> tuple[np.ndarray, np.ndarray]:
    """Binarize a label column: ``(is_positive, is_missing)`` boolean arrays.

    A value equal to ``pos_label`` is positive, any other non-missing value negative.
    """
    if isinstance(pos_label, (list, tuple, set, np.ndarray)):
        raise InvalidInputError(
            f"`pos_label={plain(pos_label)!r}` must be a single value (the positive class)."
        )
    check_scalar_cells(series, argument)
    missing = series.isna().to_numpy(dtype=bool)
    positive = np.asarray((series == pos_label).to_numpy(dtype=bool, na_value=False), dtype=bool)
    return positive, missing


#: What the binary-label messages add when a column holds several classes.
MULTICLASS_HINT = (
    "for several classes, `classes='all'` (or a list) in classification, by_group, gap_tests and "
    "intersections gives one row per class, one against the rest."
)

#: Distinct values a :class:`LabelSummary` keeps: the six an error message shows, and one
#: more to tell two distinct values from more.
_KEPT_VALUES = 7


@dataclass(frozen=True)
class LabelSummary:
    """What the checks of a whole label column need, from some of its rows; additive.

    Attributes
    ----------
    name : hashable
        The column's name.
    n_present : int
        Rows with a value.
    any_positive : bool
        Whether a value equals ``pos_label``.
    values : tuple
        ``(value, is_positive)`` of its first distinct values in order of appearance (at
        most :data:`_KEPT_VALUES`; a chunk with no third value keeps just its first positive
        and its first negative value).
    """

    name: object
    n_present: int
    any_positive: bool
    values: tuple

    def combine(self, other: LabelSummary) -> LabelSummary:
        """The summary of the rows of ``self`` followed by those of ``other``."""
        values = list(self.values)
        for value, positive in other.values:
            if len(values) < _KEPT_VALUES and not any(_same(value, kept) for kept, _ in values):
                values.append((value, positive))
        return LabelSummary(
            self.name,
            self.n_present + other.n_present,
            self.any_positive or other.any_positive,
            tuple(values),
        )

    def preview(self) -> str:
        """The first distinct values, as :func:`_distinct_preview` shows them."""
        return ", ".join(repr(plain(value)) for value, _ in self.values[: _KEPT_VALUES - 1])


def _same(a, b) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return a is b


def label_summary(series: pd.Series, positive: np.ndarray, missing: np.ndarray) -> LabelSummary:
    """The :class:`LabelSummary` of a label column's rows (``positive``/``missing`` per row)."""
    negative = ~positive & ~missing
    rows = []
    if negative.any():
        first = series.iloc[int(np.argmax(negative))]
        other = (series != first).to_numpy(dtype=bool, na_value=False) & negative
        if other.any():  # a third value (an error follows): its first distinct values, in order
            present = ~missing
            firsts = np.flatnonzero(present)[~series[present].duplicated().to_numpy(dtype=bool)]
            return _summary(series, positive, missing, firsts[:_KEPT_VALUES])
        rows = [int(np.argmax(negative))]
    if positive.any():
        rows = sorted([*rows, int(np.argmax(positive))])
    return _summary(series, positive, missing, rows)


def presence_summary(series: pd.Series, positive: np.ndarray) -> LabelSummary:
    """A :class:`LabelSummary` for :func:`check_pos_label_summaries` only: its values are
    read only when the rows have no positive (they are shown only when no row of the whole
    column has one)."""
    if positive.any():
        return LabelSummary(series.name, int(series.notna().sum()), True, ())
    return label_summary(series, positive, series.isna().to_numpy(dtype=bool))


def _summary(series: pd.Series, positive: np.ndarray, missing: np.ndarray, rows) -> LabelSummary:
    values = tuple((series.iloc[row], bool(positive[row])) for row in rows)
    return LabelSummary(series.name, int((~missing).sum()), bool(positive.any()), values)


def check_usable_rows(n_rows: int, summaries: dict, n_missing: int | None, what: str) -> None:
    """Refuse data with no usable row: no row at all, a label column (``summaries``:
    argument -> :class:`LabelSummary`) without any value, or (``n_missing``: rows missing
    one of them) no row with every one of them."""
    arguments = " and ".join(f"`{argument}`" for argument in summaries)
    if not n_rows:
        raise InvalidInputError(
            f"The data has no rows, so no usable rows: {what} needs rows with a {arguments} value."
        )
    for argument, summary in summaries.items():
        if not summary.n_present:
            raise InvalidInputError(
                f"`{argument}={plain(summary.name)!r}` has no value (all {n_rows} rows are missing), so no "
                f"usable rows: {what} needs rows with a {arguments} value. Check the column (a failed "
                f"join or read leaves it empty)."
            )
    if n_missing is not None and n_missing >= n_rows:
        both = " and a ".join(f"`{argument}` ({plain(s.name)!r})" for argument, s in summaries.items())
        raise InvalidInputError(
            f"No row has both a {both} value, so no usable rows: {what} needs rows with both."
        )


def check_binary_summary(summary: LabelSummary, pos_label, argument: str) -> None:
    """:func:`check_binary` from the column's :class:`LabelSummary`."""
    negatives = [value for value, positive in summary.values if not positive]
    if len(negatives) < 2:
        return
    first, third = (plain(v) for v in negatives[:2])
    if not summary.any_positive and len(summary.values) == 2:
        raise InvalidInputError(
            f"`{argument}={summary.name!r}` never holds pos_label={plain(pos_label)!r} (its values: "
            f"{summary.preview()}). Pass the positive class as it is spelled in this "
            f"column, e.g. `pos_label={first!r}`, or convert the column to the type of pos_label."
        )
    raise InvalidInputError(
        f"`{argument}={summary.name!r}` holds more than two values ({summary.preview()}"
        f", ... e.g. {first!r} and {third!r} besides pos_label={plain(pos_label)!r}); fairness "
        f"metrics need a binary outcome. Binarize it first, e.g. "
        f"`df.assign(pred=df['score'] >= 0.5)`; {MULTICLASS_HINT}"
    )


def check_pos_label_summaries(summaries: list[LabelSummary], pos_label) -> None:
    """:func:`check_pos_label_present` from the columns' :class:`LabelSummary`."""
    if any(s.any_positive for s in summaries):
        return
    if all(s.n_present == 0 for s in summaries):
        return  # no labels at all: the empty-data policy applies instead
    seen = ", ".join(f"{s.name!r}: {s.preview()}" for s in summaries)
    raise InvalidInputError(
        f"`pos_label={plain(pos_label)!r}` never occurs in the labels or predictions (values seen: {seen}). "
        f"Pass the positive class as it is spelled in the data, e.g. `pos_label=1` or `pos_label='H'`"
        + (f"; {MULTICLASS_HINT}" if any(len(s.values) > 2 for s in summaries) else ".")
    )


def flag_values(series: pd.Series, argument: str) -> np.ndarray:
    """Read an error-flag column: True (or a non-empty message, or a non-zero number) marks a row.

    Missing values mean "no error".
    """
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return np.asarray(series.to_numpy(dtype=bool, na_value=False), dtype=bool)
    if pd.api.types.is_numeric_dtype(dtype):
        check_not_complex(series, argument)
        values = series.to_numpy(dtype="float64", na_value=np.nan)
        with np.errstate(invalid="ignore"):
            return np.asarray((values != 0) & ~np.isnan(values), dtype=bool)
    present = series.notna().to_numpy(dtype=bool)
    kind = pd.api.types.infer_dtype(series, skipna=True)
    if kind == "boolean":
        return np.asarray(series.eq(True).to_numpy(dtype=bool, na_value=False), dtype=bool)
    if kind in ("string", "empty"):
        length = series.astype("string").str.strip().str.len()
        return np.asarray((length > 0).to_numpy(dtype=bool, na_value=False), dtype=bool) & present
    raise InvalidInputError(
        f"`{argument}={series.name!r}` must flag failed calls with True/False, 0/1 or an error message "
        f"(empty or missing = no error); it holds {_distinct_preview(series)}."
    )


def clean_responses(series: pd.Series) -> pd.Series:
    """Normalize model responses: drop ``<think>...</think>`` blocks, newlines to spaces, trim.

    Missing responses stay missing. Returns a pandas ``string`` Series.
    """
    text = series.astype("string")
    return text.str.replace(_THINK_BLOCK, "", regex=True).str.replace(r"[\r\n]", " ", regex=True).str.strip()


def group_keys(columns: list[pd.Series]) -> tuple[np.ndarray, pd.DataFrame]:
    """:func:`~pdmetrics._groups.group_codes` whose keys keep a categorical column's dtype
    (so its category order when groups of several chunks are aligned)."""
    codes, keys = group_codes(columns)
    for series in columns:
        if isinstance(series.dtype, pd.CategoricalDtype):
            keys[series.name] = pd.Categorical(keys[series.name], dtype=series.dtype)
    return codes, keys


def aligned_counts(keys, counts, other_keys, other_counts) -> tuple[pd.DataFrame, np.ndarray]:
    """The union of two sets of groups (from :func:`group_keys`), sorted as
    :func:`~pdmetrics._groups.group_codes` sorts them, with their counts (rows) added."""
    merged, mine, theirs = aligned_keys(keys, other_keys)
    if theirs is None:
        return merged, counts
    if mine is None:
        return merged, other_counts
    total = np.zeros((len(merged), *counts.shape[1:]), dtype=counts.dtype)
    np.add.at(total, np.concatenate([mine, theirs]), np.concatenate([counts, other_counts]))
    return merged, total


def aligned_keys(keys, other_keys) -> tuple[pd.DataFrame, np.ndarray | None, np.ndarray | None]:
    """The union of two sets of groups (from :func:`group_keys`), sorted as
    :func:`~pdmetrics._groups.group_codes` sorts them, and where each side's groups are in it
    (None for a side that is the union already, the other side having no group)."""
    keys, other_keys = _common_categories(keys, other_keys)
    if not len(other_keys):
        return keys, np.arange(len(keys)), None
    if not len(keys):
        return other_keys, None, np.arange(len(other_keys))
    union = pd.concat([keys, other_keys], ignore_index=True)
    for name in union.columns:  # the groups of several partitions together
        check_one_kind(union[name], "by", rows=False)
    codes, merged = group_keys([union[name] for name in union.columns])
    return merged, codes[: len(keys)], codes[len(keys) :]


def _common_categories(keys: pd.DataFrame, other_keys: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Both keys with one dtype per categorical column: the categories of ``keys``, then the
    new ones of ``other_keys`` (as concatenating the two chunks' columns gives them, e.g. the
    partitions of a parquet folder whose categories differ by file)."""
    keys, other_keys = keys.copy(), other_keys.copy()
    for name in keys.columns:
        mine, theirs = keys[name].dtype, other_keys[name].dtype
        if (
            isinstance(mine, pd.CategoricalDtype)
            and isinstance(theirs, pd.CategoricalDtype)
            and mine != theirs
        ):
            new = theirs.categories[~theirs.categories.isin(mine.categories)]
            dtype = pd.CategoricalDtype(mine.categories.append(new), ordered=mine.ordered)
            keys[name] = keys[name].astype(dtype)
            other_keys[name] = other_keys[name].astype(dtype)
    return keys, other_keys


def plain_keys(keys: pd.DataFrame) -> pd.DataFrame:
    """Keys of :func:`group_keys` as :func:`~pdmetrics._groups.group_codes` gives them (a
    categorical column as its categories' values)."""
    return pd.DataFrame(
        {
            name: pd.Series(values.cat.categories.take(values.cat.codes))
            if isinstance(values.dtype, pd.CategoricalDtype)
            else values
            for name, values in keys.items()
        }
    )


@dataclass(frozen=True)
class RowProblems:
    """The first row (and the number of rows) of each problem found in some rows; additive.

    A check that names "row i" of the whole data cannot raise on one chunk: the chunk
    records its first offending row here, the states combine in row order (positions
    shift by the rows before), and :meth:`first` gives the problem to raise at finalize.
    """

    rows: int
    found: dict

    def combine(self, other: RowProblems) -> RowProblems:
        """The problems of the rows of ``self`` followed by those of ``other``."""
        found = dict(self.found)
        for name, (row, detail, count) in other.found.items():
            if name in found:
                first, first_detail, total = found[name]
                found[name] = (first, first_detail, total + count)
            else:
                found[name] = (self.rows + row, detail, count)
        return RowProblems(self.rows + other.rows, found)

    def first(self, name):
        """``(row, detail, count)`` of the problem ``name``, or None."""
        return self.found.get(name)


def row_problems(rows: int, **checks) -> RowProblems:
    """Record each check's offending rows: ``name=(mask, detail_of_row)``, ``detail_of_row``
    a function of the first offending row's position."""
    found = {}
    for name, (mask, detail) in checks.items():
        if mask.any():
            row = int(np.argmax(mask))
            found[name] = (row, detail(row), int(mask.sum()))
    return RowProblems(rows, found)


@dataclass(frozen=True)
class CategoryCounts:
    """Rows per category, per group and overall, over some rows; additive.

    ``keys`` (None without groups) and ``counts`` ``(groups, categories)`` as
    :func:`group_keys` gives them; ``overall`` counts every row, ``rows_missing_group``
    those without a group.
    """

    keys: pd.DataFrame | None
    counts: np.ndarray
    overall: np.ndarray
    rows_missing_group: int

    def combine(self, other: CategoryCounts) -> CategoryCounts:
        """The counts of the union of two disjoint row sets (groups aligned on their values)."""
        if self.keys is None:
            keys, counts = None, self.counts + other.counts
        else:
            keys, counts = aligned_counts(self.keys, self.counts, other.keys, other.counts)
        return CategoryCounts(
            keys, counts, self.overall + other.overall, self.rows_missing_group + other.rows_missing_group
        )


def category_state(
    category: np.ndarray, n_categories: int, by: list[pd.Series] | None, result_columns
) -> CategoryCounts:
    """The :class:`CategoryCounts` of one chunk of rows (see :func:`category_counts`)."""
    category = np.asarray(category, dtype=np.intp)
    overall = np.bincount(category, minlength=n_categories).astype(np.int64)
    if not by:
        return CategoryCounts(None, overall[None, :], overall, 0)
    check_group_names(by, result_columns)
    codes, keys = group_keys(by)
    for name in keys:
        check_not_pooled(plain_keys(keys[[name]])[name], f"by={plain(name)!r}")
    missing = codes < 0
    keep = ~missing
    per_group = np.bincount(codes[keep] * n_categories + category[keep], minlength=len(keys) * n_categories)
    per_group = per_group.astype(np.int64).reshape(len(keys), n_categories)
    return CategoryCounts(keys, per_group, overall, int(missing.sum()))


def category_table(state: CategoryCounts, names: list[str]) -> tuple[pd.DataFrame, np.ndarray]:
    """The table and counts of :func:`category_counts` from the state of every row (the
    warning about rows without a group is raised here)."""
    overall = state.overall[None, :]
    if state.keys is None:
        return pd.DataFrame(overall, columns=names), overall
    warn_excluded(
        state.rows_missing_group,
        int(state.overall.sum()),
        f"the group value is missing (they count in the {POOLED_LABEL!r} row only)",
    )
    counts = np.vstack([state.counts, overall])
    keys = plain_keys(state.keys)
    table = pd.DataFrame(
        {name: pd.array([*keys[name].tolist(), POOLED_LABEL], dtype=object) for name in keys}
    )
    for i, name in enumerate(names):
        table[name] = counts[:, i]
    return table, counts


def scored_category_table(state: CategoryCounts, names: list[str], score, score_names) -> pd.DataFrame:
    """:func:`category_table` with an ``N`` column before the counts and, after them, the
    columns ``score_names`` of ``score(counts)`` (a mapping of arrays, one entry per row)."""
    table, counts = category_table(state, names)
    table.insert(len(table.columns) - len(names), "N", counts.sum(axis=1))
    scores = score(counts)
    for name in score_names:
        table[name] = scores[name]
    table.index = pd.RangeIndex(len(table))
    return table


def category_counts(
    category: np.ndarray, n_categories: int, by: list[pd.Series] | None, names: list[str], result_columns
) -> tuple[pd.DataFrame, np.ndarray]:
    """Count rows per category, per group of ``by`` and overall, in one bincount.

    A group column named like one of ``result_columns`` (the table's other columns), or
    holding the pooled label ``"(all)"``, is refused.

    ``category`` holds ``0..n_categories-1`` per row. Returns ``(table, counts)``: the table
    has the group columns (if any) and one count column per name; one row per group in
    sorted order, then a final row labelled ``"(all)"`` with every row (rows whose group
    value is missing count there only). Without ``by`` there is just the overall row.
    ``counts`` is the same numbers as an int64 array ``(rows, n_categories)``.
    """
    return category_table(category_state(category, n_categories, by, result_columns), names)


@dataclass(frozen=True)
class AnswerState(Additive):
    """The additive state of a table of answer counts (context association, counterfactual
    change, language accuracy) over some rows: the counts per category
    (:class:`CategoryCounts`), the rows with a call error, and the rows seen with the first
    row of each problem refused at finalize (:class:`RowProblems`)."""

    counts: CategoryCounts
    rows_error: int
    problems: RowProblems
