"""Turning the columns of a fairness evaluation into arrays: labels, flags, responses, groups.

Private helpers shared by the classification and LLM modules. Everything here is one
vectorized pass over a column; nothing modifies its input.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdmetrics._groups import (
    POOLED_LABEL,
    as_series,
    check_identifier_names,
    check_not_pooled,
    check_scalar_cells,
    group_codes,
)
from pdmetrics._validation import plain
from pdmetrics._warnings import warn_excluded
from pdmetrics.errors import InvalidInputError

_THINK_BLOCK = r"(?s)<think>.*?</think>"


def _distinct_preview(series: pd.Series, limit: int = 6) -> str:
    try:
        values = pd.unique(series.dropna())[:limit]
    except TypeError:  # unhashable values (lists, dicts): show the first ones as they are
        values = series.dropna().head(limit).tolist()
    return ", ".join(repr(plain(v)) for v in values)


def check_group_names(columns: list[pd.Series], result_columns, argument: str = "by") -> None:
    """Refuse group columns whose names cannot head a column of a flat result table.

    A name equal to a result column (``N``, ``tpr``, ...) would overwrite it; a tuple (a
    MultiIndex column) would turn the table's columns into a MultiIndex.
    """
    names = [series.name for series in columns]
    for name in names:
        if isinstance(name, tuple):
            raise InvalidInputError(
                f"`{argument}={name!r}` is a MultiIndex column; group columns head a column of the result "
                f"table, so flatten the names first, e.g. "
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


def _summary(series: pd.Series, positive: np.ndarray, missing: np.ndarray, rows) -> LabelSummary:
    values = tuple((series.iloc[row], bool(positive[row])) for row in rows)
    return LabelSummary(series.name, int((~missing).sum()), bool(positive.any()), values)


def check_binary(
    series: pd.Series, positive: np.ndarray, missing: np.ndarray, pos_label, argument: str
) -> None:
    """Raise :class:`InvalidInputError` when a label column holds a third value besides two."""
    check_binary_summary(label_summary(series, positive, missing), pos_label, argument)


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
        f"`df.assign(pred=df['score'] >= 0.5)`."
    )


def check_pos_label_present(positives: list[np.ndarray], series: list[pd.Series], pos_label) -> None:
    """Raise when ``pos_label`` occurs in none of the label columns (fairlearn silently gives 0)."""
    if any(p.any() for p in positives):
        return
    summaries = [
        label_summary(s, np.asarray(p, dtype=bool), s.isna().to_numpy(dtype=bool))
        for p, s in zip(positives, series)
    ]
    check_pos_label_summaries(summaries, pos_label)


def check_pos_label_summaries(summaries: list[LabelSummary], pos_label) -> None:
    """:func:`check_pos_label_present` from the columns' :class:`LabelSummary`."""
    if any(s.any_positive for s in summaries):
        return
    if all(s.n_present == 0 for s in summaries):
        return  # no labels at all: the empty-data policy applies instead
    seen = ", ".join(f"{s.name!r}: {s.preview()}" for s in summaries)
    raise InvalidInputError(
        f"`pos_label={plain(pos_label)!r}` never occurs in the labels or predictions (values seen: {seen}). "
        f"Pass the positive class as it is spelled in the data, e.g. `pos_label=1` or `pos_label='H'`."
    )


def flag_values(series: pd.Series, argument: str) -> np.ndarray:
    """Read an error-flag column: True (or a non-empty message, or a non-zero number) marks a row.

    Missing values mean "no error".
    """
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return np.asarray(series.to_numpy(dtype=bool, na_value=False), dtype=bool)
    if pd.api.types.is_numeric_dtype(dtype):
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
    category = np.asarray(category, dtype=np.intp)
    overall = np.bincount(category, minlength=n_categories).astype(np.int64)[None, :]
    if not by:
        return pd.DataFrame(overall, columns=names), overall
    check_group_names(by, result_columns)
    codes, keys = group_codes(by)
    for name in keys:
        check_not_pooled(keys[name], f"by={plain(name)!r}")
    missing = codes < 0
    warn_excluded(
        int(missing.sum()),
        codes.size,
        f"the group value is missing (they count in the {POOLED_LABEL!r} row only)",
    )
    keep = ~missing
    per_group = np.bincount(codes[keep] * n_categories + category[keep], minlength=len(keys) * n_categories)
    per_group = per_group.astype(np.int64).reshape(len(keys), n_categories)
    counts = np.vstack([per_group, overall])
    table = pd.DataFrame(
        {name: pd.array([*keys[name].tolist(), POOLED_LABEL], dtype=object) for name in keys}
    )
    for i, name in enumerate(names):
        table[name] = counts[:, i]
    return table, counts
