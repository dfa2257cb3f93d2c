"""Turning the columns of a fairness evaluation into arrays: labels, flags, responses, groups.

Private helpers shared by the classification and LLM modules. Everything here is one
vectorized pass over a column; nothing modifies its input.
"""

from __future__ import annotations

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
    t_series, p_series = as_series(y_true, "y_true"), as_series(y_pred, "y_pred")
    if len(t_series) != len(p_series):
        raise InvalidInputError(
            f"`y_true` has {len(t_series)} values but `y_pred` has {len(p_series)}; "
            f"pass paired labels of equal length."
        )
    t_pos, t_missing = binary_outcome(t_series, pos_label, "y_true")
    p_pos, p_missing = binary_outcome(p_series, pos_label, "y_pred")
    check_pos_label_present([t_pos, p_pos], [t_series, p_series], pos_label)
    check_binary(t_series, t_pos, t_missing, pos_label, "y_true")
    check_binary(p_series, p_pos, p_missing, pos_label, "y_pred")
    return t_pos, p_pos, t_missing | p_missing


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


def check_binary(
    series: pd.Series, positive: np.ndarray, missing: np.ndarray, pos_label, argument: str
) -> None:
    """Raise :class:`InvalidInputError` when a label column holds a third value besides two."""
    negative = ~positive & ~missing
    if negative.any():
        first = series.iloc[int(np.argmax(negative))]
        other = (series != first).to_numpy(dtype=bool, na_value=False) & negative
        if other.any():
            first, third = (plain(v) for v in (first, series.iloc[int(np.argmax(other))]))
            if not positive.any() and series.nunique(dropna=True) == 2:
                raise InvalidInputError(
                    f"`{argument}={series.name!r}` never holds pos_label={plain(pos_label)!r} (its values: "
                    f"{_distinct_preview(series)}). Pass the positive class as it is spelled in this "
                    f"column, e.g. `pos_label={first!r}`, or convert the column to the type of pos_label."
                )
            raise InvalidInputError(
                f"`{argument}={series.name!r}` holds more than two values ({_distinct_preview(series)}"
                f", ... e.g. {first!r} and {third!r} besides pos_label={plain(pos_label)!r}); fairness "
                f"metrics need a binary outcome. Binarize it first, e.g. "
                f"`df.assign(pred=df['score'] >= 0.5)`."
            )


def check_pos_label_present(positives: list[np.ndarray], series: list[pd.Series], pos_label) -> None:
    """Raise when ``pos_label`` occurs in none of the label columns (fairlearn silently gives 0)."""
    if any(p.any() for p in positives):
        return
    if all(s.isna().all() for s in series):
        return  # no labels at all: the empty-data policy applies instead
    seen = ", ".join(f"{s.name!r}: {_distinct_preview(s)}" for s in series)
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
