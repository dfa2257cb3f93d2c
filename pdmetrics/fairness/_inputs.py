"""Turning the columns of a fairness evaluation into arrays: labels, flags, responses, groups.

Private helpers shared by the classification and LLM modules. Everything here is one
vectorized pass over a column; nothing modifies its input.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pandas as pd

from pdmetrics._validation import warn_undefined
from pdmetrics.errors import ExcludedRowsWarning, InvalidInputError

_THINK_BLOCK = r"(?s)<think>.*?</think>"


def as_series(values, argument: str) -> pd.Series:
    """Return ``values`` as a Series (a Series is returned as it is, never copied)."""
    if isinstance(values, pd.Series):
        return values if values.name is not None else values.rename(argument)
    if isinstance(values, (pd.Index, pd.api.extensions.ExtensionArray)):
        return pd.Series(values, name=argument)
    array = np.asarray(values)
    if array.ndim == 0:
        array = array.reshape(1)
    if array.ndim != 1:
        raise InvalidInputError(f"`{argument}` must be one-dimensional; got shape {array.shape}.")
    return pd.Series(array, name=argument)


def _distinct_preview(series: pd.Series, limit: int = 6) -> str:
    try:
        values = pd.unique(series.dropna())[:limit]
    except TypeError:  # unhashable values (lists, dicts): show the first ones as they are
        values = series.dropna().head(limit).tolist()
    return ", ".join(repr(_plain(v)) for v in values)


def _plain(value):
    """A numpy scalar as the Python value it holds (for readable messages)."""
    return value.item() if isinstance(value, np.generic) else value


def check_zero_division(zero_division, argument: str = "zero_division"):
    """Return ``zero_division`` as a float (or None); raise a clear error for anything else."""
    if zero_division is None:
        return None
    if isinstance(zero_division, (bool, np.bool_)) or not isinstance(zero_division, (int, float, np.number)):
        raise InvalidInputError(f"`{argument}={zero_division!r}` must be a number (e.g. 0.0, 1.0 or "
                                f"float('nan')) or None.")
    return float(zero_division)


def binary_outcome(series: pd.Series, pos_label, argument: str) -> tuple[np.ndarray, np.ndarray]:
    """Binarize a label column: ``(is_positive, is_missing)`` boolean arrays.

    A value equal to ``pos_label`` is positive, any other non-missing value negative.
    """
    if isinstance(pos_label, (list, tuple, set, np.ndarray)):
        raise InvalidInputError(f"`pos_label={pos_label!r}` must be a single value (the positive class).")
    missing = series.isna().to_numpy(dtype=bool)
    positive = np.asarray((series == pos_label).to_numpy(dtype=bool, na_value=False), dtype=bool)
    return positive, missing


def check_binary(series: pd.Series, positive: np.ndarray, missing: np.ndarray, pos_label,
                 argument: str) -> None:
    """Raise :class:`InvalidInputError` when a label column holds a third value besides two."""
    negative = ~positive & ~missing
    if negative.any():
        first = series.iloc[int(np.argmax(negative))]
        other = (series != first).to_numpy(dtype=bool, na_value=False) & negative
        if other.any():
            first, third = (_plain(v) for v in (first, series.iloc[int(np.argmax(other))]))
            if not positive.any() and series.nunique(dropna=True) == 2:
                raise InvalidInputError(
                    f"`{argument}={series.name!r}` never holds pos_label={pos_label!r} (its values: "
                    f"{_distinct_preview(series)}). Pass the positive class as it is spelled in this "
                    f"column, e.g. `pos_label={first!r}`, or convert the column to the type of pos_label."
                )
            raise InvalidInputError(
                f"`{argument}={series.name!r}` holds more than two values ({_distinct_preview(series)}"
                f", ... e.g. {first!r} and {third!r} besides pos_label={pos_label!r}); fairness metrics "
                f"need a binary outcome. Binarize it first, e.g. `df.assign(pred=df['score'] >= 0.5)`."
            )


def check_pos_label_present(positives: list[np.ndarray], series: list[pd.Series], pos_label) -> None:
    """Raise when ``pos_label`` occurs in none of the label columns (fairlearn silently gives 0)."""
    if any(p.any() for p in positives):
        return
    if all(s.isna().all() for s in series):
        return  # no labels at all: the empty-data policy applies instead
    seen = ", ".join(f"{s.name!r}: {_distinct_preview(s)}" for s in series)
    raise InvalidInputError(
        f"`pos_label={pos_label!r}` never occurs in the labels or predictions (values seen: {seen}). "
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
    return (text.str.replace(_THINK_BLOCK, "", regex=True)
            .str.replace(r"[\r\n]", " ", regex=True)
            .str.strip())


def _caller_level() -> int:
    """``stacklevel`` (as seen from a function in this module) of the first frame outside pdmetrics."""
    frame = sys._getframe(2)
    level = 2
    while frame is not None and frame.f_globals.get("__name__", "").startswith("pdmetrics"):
        frame = frame.f_back
        level += 1
    return level


def warn_excluded(count: int, total: int, what: str) -> None:
    """Emit an :class:`ExcludedRowsWarning` for ``count`` rows left out of ``total``.

    The warning points at the user's line that called pdmetrics.
    """
    if count:
        warnings.warn(f"{count} of {total} rows left out: {what}.", ExcludedRowsWarning,
                      stacklevel=_caller_level())


def undefined(message: str) -> None:
    """Emit an :class:`UndefinedMetricWarning` pointing at the user's line that called pdmetrics."""
    warn_undefined(message, stacklevel=_caller_level() + 1)


def _sorted_codes_one(series: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Codes ``0..k-1`` of a column in sorted order of its present values; -1 for missing."""
    dtype = series.dtype
    if (pd.api.types.is_integer_dtype(dtype) and isinstance(dtype, np.dtype)) or dtype == np.bool_:
        values = series.to_numpy()
        if values.size == 0:
            return np.zeros(0, dtype=np.intp), pd.Index(values)
        low, high = values.min(), values.max()
        span = int(high) - int(low) + 1
        if span <= max(4 * values.size, 1 << 16):
            shifted = (values.astype(np.int64, copy=False) - int(low)).astype(np.intp, copy=False)
            present = np.flatnonzero(np.bincount(shifted, minlength=span))
            lookup = np.full(span, -1, dtype=np.intp)
            lookup[present] = np.arange(present.size, dtype=np.intp)
            uniques = (present + int(low)).astype(values.dtype)
            return lookup[shifted], pd.Index(uniques, name=series.name)
    try:
        codes, uniques = pd.factorize(series, sort=True, use_na_sentinel=True)
    except TypeError:  # unhashable (lists, dicts) or unorderable mixed values
        raise InvalidInputError(
            f"group column {series.name!r} holds values that cannot be grouped and sorted "
            f"({_distinct_preview(series, 3)}); use one scalar value of one type per row, e.g. "
            f"`df[{series.name!r}].astype(str)`."
        ) from None
    return codes.astype(np.intp, copy=False), pd.Index(uniques, name=series.name)


def group_codes(columns: list[pd.Series]) -> tuple[np.ndarray, pd.DataFrame]:
    """Factorize one or several group columns into codes of the present combinations.

    Returns ``(codes, keys)``: ``codes[i]`` is the row's group (``-1`` when any group
    value is missing) and ``keys`` has one row per group, in sorted order, with the group
    values in the original columns' names.
    """
    parts = [_sorted_codes_one(s) for s in columns]
    if len(parts) == 1:
        codes, uniques = parts[0]
        return codes, pd.DataFrame({columns[0].name: uniques}).reset_index(drop=True)
    sizes = [max(len(u), 1) for _, u in parts]
    missing = np.zeros(len(columns[0]), dtype=bool)
    combined = np.zeros(len(columns[0]), dtype=np.int64)
    for (codes, _), size in zip(parts, sizes):
        missing |= codes < 0
        combined = combined * size + codes
    total = int(np.prod(sizes, dtype=np.float64))
    valid = combined[~missing]
    if total <= max(4 * combined.size, 1 << 16):
        present = np.flatnonzero(np.bincount(valid, minlength=total))
        lookup = np.full(total, -1, dtype=np.intp)
        lookup[present] = np.arange(present.size, dtype=np.intp)
        out = np.where(missing, -1, lookup[np.where(missing, 0, combined)])
    else:
        present, inverse = np.unique(valid, return_inverse=True)
        out = np.full(combined.size, -1, dtype=np.intp)
        out[~missing] = inverse
    keys = {}
    rest = present
    for (_codes, uniques), size, series in reversed(list(zip(parts, sizes, columns))):
        keys[series.name] = uniques.take(rest % size) if len(uniques) else uniques
        rest = rest // size
    frame = pd.DataFrame({s.name: pd.Series(keys[s.name]) for s in columns})
    return out.astype(np.intp, copy=False), frame


#: Label of the row that pools every group in the LLM evaluation tables.
ALL_LABEL = "(all)"


def category_counts(category: np.ndarray, n_categories: int, by: list[pd.Series] | None,
                    names: list[str]) -> tuple[pd.DataFrame, np.ndarray]:
    """Count rows per category, per group of ``by`` and overall, in one bincount.

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
    codes, keys = group_codes(by)
    missing = codes < 0
    warn_excluded(int(missing.sum()), codes.size,
                  f"the group value is missing (they count in the {ALL_LABEL!r} row only)")
    keep = ~missing
    per_group = np.bincount(codes[keep] * n_categories + category[keep], minlength=len(keys) * n_categories)
    per_group = per_group.astype(np.int64).reshape(len(keys), n_categories)
    counts = np.vstack([per_group, overall])
    table = pd.DataFrame({name: pd.array([*keys[name].tolist(), ALL_LABEL], dtype=object) for name in keys})
    for i, name in enumerate(names):
        table[name] = counts[:, i]
    return table, counts
