"""Group columns: reading them from a frame, encoding them as integer codes, the pooled row.

One encoder (:func:`group_codes`) turns one or several group columns into codes ``0..k-1``
of the combinations present, in sorted order, with ``-1`` for a row whose group value is
missing. Every per-group table in pdmetrics is built from these codes with one
``bincount`` pass.

Every table that adds a row pooling all groups (or averaging over labels or columns)
labels it :data:`POOLED_LABEL`; a data value equal to that label is refused, so the pooled
row can never be confused with a group.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Mapping

import numpy as np
import pandas as pd

from pdmetrics._validation import plain, preview, require_columns
from pdmetrics.errors import InvalidInputError

#: Label of the row that pools (or averages over) every group, label or column of a table.
POOLED_LABEL = "(all)"


def group_columns(frame: pd.DataFrame, by, argument: str = "by") -> list[pd.Series]:
    """The columns named by ``by`` (one name or a list) as Series, checked and named."""
    names = require_columns(frame, argument, by)
    return [frame[name] for name in names]


def as_series(values, argument: str) -> pd.Series:
    """Return ``values`` as a Series (a Series is returned as it is, never copied).

    A nameless Series or array is named ``argument``.
    """
    if isinstance(values, pd.Series):
        return values if values.name is not None else values.rename(argument)
    if isinstance(values, (pd.Index, pd.api.extensions.ExtensionArray)):
        return pd.Series(values, name=argument)
    array = np.asarray(values)
    if array.ndim == 0:
        array = array.reshape(1)
    if array.ndim != 1:
        raise InvalidInputError(
            f"`{argument}` must be one value per row (one-dimensional); got shape {array.shape}. Pass "
            "several columns as a dict {name: values} or a DataFrame."
        )
    return pd.Series(array, name=argument)


def named_columns(
    columns,
    n_rows: int | None,
    argument: str = "by",
    *,
    unnamed: Hashable | None = None,
    rows_of: str = "the other columns have",
) -> list[pd.Series]:
    """One or several columns as a list of named Series of ``n_rows`` values each.

    ``columns`` is a DataFrame, a dict ``{name: values}``, a list of Series, or one Series or
    array-like. A nameless Series or array is named ``unnamed`` (default: ``argument``).
    ``rows_of`` names what the length is checked against, with its verb, for the message
    (``"`human` has"``); ``n_rows=None`` skips the length check.

    >>> [s.name for s in named_columns({"sex": ["f", "m"], "age": [30, 40]}, 2)]
    ['sex', 'age']
    >>> named_columns(["f", "m"], 2, unnamed="group")[0].name
    'group'
    """
    default = argument if unnamed is None else unnamed
    if isinstance(columns, pd.DataFrame):
        out = [columns.iloc[:, i] for i in range(columns.shape[1])]
    elif isinstance(columns, Mapping):
        out = [as_series(values, str(name)).rename(name) for name, values in columns.items()]
    elif isinstance(columns, (list, tuple)) and columns and all(isinstance(c, pd.Series) for c in columns):
        out = [c if c.name is not None else c.rename(default) for c in columns]
    else:
        named = isinstance(columns, pd.Series) and columns.name is not None
        out = [columns if named else as_series(columns, argument).rename(default)]
    if not out:
        raise InvalidInputError(f"`{argument}=` is empty: pass at least one column.")
    for series in out:
        if n_rows is not None and len(series) != n_rows:
            raise InvalidInputError(
                f"`{argument}` column {plain(series.name)!r} has {len(series)} values but {rows_of} "
                f"{n_rows}; pass one {argument} value per row (one group label per response)."
            )
    return out


def check_not_pooled(values, argument: str) -> None:
    """Refuse a group, label or column name equal to :data:`POOLED_LABEL`."""
    values = pd.Index(values) if not isinstance(values, pd.Index) else values
    if values.dtype == object or pd.api.types.is_string_dtype(values.dtype):
        if (values == POOLED_LABEL).any():
            raise InvalidInputError(
                f"`{argument}` holds the value {POOLED_LABEL!r}, which pdmetrics uses to label the row "
                f"that pools every group; rename that value first, e.g. "
                f"`.replace({{{POOLED_LABEL!r}: 'all'}})`."
            )


def check_identifier_names(names, result_columns, argument: str) -> None:
    """Refuse identifier columns (``by=``, ...) named like a result column.

    A tidy table keeps its identifier columns under the caller's names, beside fixed metric
    columns (``N``, ``lms``, ...); a group column called ``N`` would overwrite the counts.

    >>> check_identifier_names(["sex"], ["N", "tpr"], "by")
    >>> check_identifier_names(["N"], ["N", "tpr"], "by")
    Traceback (most recent call last):
    ...
    pdmetrics.errors.InvalidInputError: `by='N'` names a column that is also a column of the result table ...
    """
    clashes = [name for name in names if name in set(result_columns)]
    if clashes:
        name = clashes[0]
        raise InvalidInputError(
            f"`{argument}={plain(name)!r}` names a column that is also a column of the result table "
            f"({preview(list(result_columns), 12)}), so the two would overwrite each other. Rename it "
            f"first, e.g. `df.rename(columns={{{plain(name)!r}: '{plain(name)}_group'}})`."
        )


def check_scalar_cells(series: pd.Series, argument: str) -> None:
    """Refuse list-, dict-, set- or array-valued cells in a group or label column."""
    if series.dtype != object:
        return
    sample = series.dropna()
    kinds = sample.map(type)
    bad = kinds.isin([list, dict, set, tuple, np.ndarray])
    if bad.any():
        example = sample[bad.to_numpy()].iloc[0]
        raise InvalidInputError(
            f"`{argument}={series.name!r}` holds {type(example).__name__} values (e.g. {example!r}); "
            f"group and label columns need one scalar per row. Explode or join them first, e.g. "
            f"`df.explode({series.name!r})` or `df[{series.name!r}].map(str)`."
        )


def _kind_of_type(kind: type) -> str | None:
    """``"booleans"``, ``"numbers"`` or ``"text"`` for the type of a group value; None for others."""
    if issubclass(kind, (bool, np.bool_)):
        return "booleans"
    if issubclass(kind, numbers.Number):
        return "numbers"
    if issubclass(kind, (str, bytes)):
        return "text"
    return None


def check_one_kind(series: pd.Series, argument: str, *, rows: bool = True) -> None:
    """Refuse a group column mixing booleans with numbers, or numbers or booleans with text.

    pandas takes ``True``, ``1`` and ``1.0`` for one group and ``1`` and ``"1"`` for two
    that print alike; dask partitions may split them otherwise. Every value is checked in
    one vectorized pass (the column's inferred kind; only for a mixed column, the type of
    each value); missing values are no kind. The message names two values of different
    kinds and their row labels (``rows=False``: ``series`` holds the groups found in several
    parts of a dask frame, which have no row label of their own).

    >>> check_one_kind(pd.Series([1, 2.5, None], dtype=object, name="g"), "by")
    >>> check_one_kind(pd.Series([1, "1"], dtype=object, name="g"), "by")
    Traceback (most recent call last):
    ...
    pdmetrics.errors.InvalidInputError: `by='g'` mixes numbers and text (e.g. 1 at row 0 and '1' ...
    """
    if isinstance(series.dtype, pd.CategoricalDtype):
        if not pd.api.types.infer_dtype(series.cat.categories).startswith("mixed"):
            return
        series = series.astype(object)
    if series.dtype != object:
        return
    if pd.api.types.infer_dtype(series, skipna=True) not in ("mixed", "mixed-integer"):
        return
    present = series[series.notna().to_numpy()]
    types = present.map(type)
    kinds = types.map({kind: _kind_of_type(kind) for kind in types.unique()}).to_numpy(dtype=object)
    known = np.flatnonzero(pd.notna(kinds))
    found, first = np.unique(kinds[known].astype(str), return_index=True)
    if found.size < 2:
        return
    order = np.argsort(first)[:2]
    at = known[first[order]]
    (kind_a, kind_b), (row_a, row_b) = found[order], at
    if rows:
        example = " and ".join(
            f"{plain(present.iloc[i])!r} at row {plain(present.index[i])!r}" for i in (row_a, row_b)
        )
    else:
        values = (plain(present.iloc[row_a]), plain(present.iloc[row_b]))
        example = f"{values[0]!r} and {values[1]!r}, in different partitions"
    name = plain(series.name)
    why = (
        "True and 1 (False and 0) would be one group"
        if {kind_a, kind_b} == {"booleans", "numbers"}
        else "1 and '1' (True and 'True') would be two groups that print alike"
    )
    raise InvalidInputError(
        f"`{argument}={name!r}` mixes {kind_a} and {kind_b} (e.g. {example}): {why}. Use one type "
        f"per group column, e.g. `df[{name!r}].astype(str)`."
    )


def _sorted_codes_one(series: pd.Series, argument: str) -> tuple[np.ndarray, pd.Index]:
    """Codes ``0..k-1`` of a column in sorted order of its present values; -1 for missing."""
    check_one_kind(series, argument)
    dtype = series.dtype
    if (pd.api.types.is_integer_dtype(dtype) and isinstance(dtype, np.dtype)) or dtype == np.bool_:
        values = series.to_numpy()
        if values.size == 0:
            return np.zeros(0, dtype=np.intp), pd.Index(values, name=series.name)
        low, high = values.min(), values.max()
        span = int(high) - int(low) + 1
        if span <= max(4 * values.size, 1 << 16):
            shifted = (values.astype(np.int64, copy=False) - int(low)).astype(np.intp, copy=False)
            present = np.flatnonzero(np.bincount(shifted, minlength=span))
            lookup = np.full(span, -1, dtype=np.intp)
            lookup[present] = np.arange(present.size, dtype=np.intp)
            uniques = (present + int(low)).astype(values.dtype)
            return lookup[shifted], pd.Index(uniques, name=series.name)
    if isinstance(dtype, pd.CategoricalDtype):
        # the categories' codes, compressed to the categories present, in category order
        raw = series.cat.codes.to_numpy().astype(np.intp)
        n_categories = len(dtype.categories)
        used = np.flatnonzero(np.bincount(raw + 1, minlength=n_categories + 1)[1:])
        if used.size < n_categories:  # renumber; the extra last entry keeps a missing value's -1
            lookup = np.full(n_categories + 1, -1, dtype=np.intp)
            lookup[used] = np.arange(used.size, dtype=np.intp)
            raw = lookup[raw]
        return raw, pd.Index(dtype.categories.take(used), name=series.name)
    try:
        codes, uniques = pd.factorize(series, sort=True, use_na_sentinel=True)
    except TypeError:  # unhashable cells (lists, dicts) or unorderable mixed values (e.g. 1 and "a")
        check_scalar_cells(series, argument)
        raise InvalidInputError(
            f"`{argument}={series.name!r}` mixes values that cannot be sorted together "
            f"({preview([plain(v) for v in pd.unique(series.dropna())], 3)}); use one type per column, "
            f"e.g. `df[{series.name!r}].astype(str)`."
        ) from None
    # hashable non-scalar cells (tuples) factorize: check the distinct values only, not every row
    check_scalar_cells(pd.Series(uniques, dtype=object, name=series.name), argument)
    return codes.astype(np.intp, copy=False), pd.Index(uniques, name=series.name)


def group_codes(columns: list[pd.Series], argument: str = "by") -> tuple[np.ndarray, pd.DataFrame]:
    """Encode one or several group columns as codes of the combinations present.

    Returns ``(codes, keys)``: ``codes[i]`` is row ``i``'s group (``-1`` when any of its
    group values is missing) and ``keys`` has one row per group present, in sorted order
    (category order for categoricals), with the group values under the columns' names.

    >>> codes, keys = group_codes([pd.Series(["b", "a", None, "b"], name="sex")])
    >>> codes.tolist(), keys["sex"].tolist()
    ([1, 0, -1, 1], ['a', 'b'])
    """
    parts = [_sorted_codes_one(s, argument) for s in columns]
    if len(parts) == 1:
        codes, uniques = parts[0]
        return codes, pd.DataFrame({columns[0].name: uniques}).reset_index(drop=True)
    sizes = [max(len(u), 1) for _, u in parts]
    n_rows = len(columns[0])
    missing = np.zeros(n_rows, dtype=bool)
    for codes, _ in parts:
        missing |= codes < 0
    total = float(np.prod(sizes, dtype=np.float64))
    if total >= 2.0**62:  # a combined code would overflow int64: rank the code tuples instead
        stacked = np.column_stack([codes for codes, _ in parts])
        present_rows, inverse = np.unique(stacked[~missing], axis=0, return_inverse=True)
        out = np.full(n_rows, -1, dtype=np.intp)
        out[~missing] = inverse.reshape(-1)
        frame = pd.DataFrame(
            {
                s.name: uniques.take(present_rows[:, i])
                for i, ((_, uniques), s) in enumerate(zip(parts, columns))
            }
        )
        return out, frame.reset_index(drop=True)
    combined = np.zeros(n_rows, dtype=np.int64)
    for (codes, _), size in zip(parts, sizes):
        combined = combined * size + codes
    valid = combined[~missing]
    if total <= max(4 * n_rows, 1 << 16):
        present = np.flatnonzero(np.bincount(valid, minlength=int(total)))
        lookup = np.full(int(total), -1, dtype=np.intp)
        lookup[present] = np.arange(present.size, dtype=np.intp)
        out = np.where(missing, -1, lookup[np.where(missing, 0, combined)])
    else:
        present, inverse = np.unique(valid, return_inverse=True)
        out = np.full(n_rows, -1, dtype=np.intp)
        out[~missing] = inverse
    keys = {}
    rest = present
    for (_codes, uniques), size, series in reversed(list(zip(parts, sizes, columns))):
        keys[series.name] = uniques.take(rest % size) if len(uniques) else uniques
        rest = rest // size
    frame = pd.DataFrame({s.name: pd.Series(keys[s.name]) for s in columns})
    return out.astype(np.intp, copy=False), frame
