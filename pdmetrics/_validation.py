"""Column checks and the wording of input errors.

Accessors and core functions call these helpers so that every error message has the
same shape: what is wrong, with which argument/column and value, and how to fix it.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence

import numpy as np
import pandas as pd

from pdmetrics.errors import ColumnNotFoundError, InvalidInputError


def plain(value):
    """A numpy scalar as the Python value it holds, so messages print ``1.5``, not ``np.float64(1.5)``."""
    return value.item() if isinstance(value, np.generic) else value


def as_list(value, argument: str) -> list:
    """Return ``value`` as a list of column names (a single name becomes a 1-list).

    A tuple is one name when it labels a column of a MultiIndex frame; ``require_columns``
    handles that case before calling this.
    """
    if value is None:
        raise InvalidInputError(f"`{argument}=` is required: pass a column name or a list of names.")
    if isinstance(value, (pd.Series, pd.DataFrame, np.ndarray, pd.Index)):
        raise InvalidInputError(
            f"`{argument}=` takes a column name, not a {type(value).__name__} of values. Add the values "
            f"as a column and pass its name, e.g. `df.assign(my_col=values).<accessor>.<method>("
            f"{argument}='my_col')`."
        )
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        return [value]
    values = list(value)
    if not values:
        raise InvalidInputError(f"`{argument}=` is an empty list: pass at least one column name.")
    return values


def preview(names: Sequence[Hashable], limit: int = 20) -> str:
    """The first ``limit`` values, repr'd and comma-separated, with the total when cut."""
    names = list(names)
    shown = ", ".join(repr(plain(n)) for n in names[:limit])
    return shown + (f", ... ({len(names)} in all)" if len(names) > limit else "")


def require_columns(frame: pd.DataFrame, argument: str, names) -> list:
    """Check that every name in ``names`` is exactly one column of ``frame``.

    Returns the names as a list. Raises :class:`ColumnNotFoundError` naming the argument
    and listing the available columns, or :class:`InvalidInputError` for a name that
    labels more than one column.
    """
    multi = isinstance(frame.columns, pd.MultiIndex)
    if isinstance(names, tuple) and multi and not all(isinstance(n, tuple) for n in names):
        names = [names]  # one column's name, whole or not (a list of them is a list of tuples)
    elif isinstance(names, tuple) and not multi and names in frame.columns:
        refuse_tuple_name(argument, names)
    names = as_list(names, argument)
    for name in names:
        if isinstance(name, (list, dict, set, pd.Series, np.ndarray)):
            raise InvalidInputError(
                f"`{argument}=` holds a {type(name).__name__} where a column name is expected; pass "
                f"column names, e.g. `{argument}=['a', 'b']`."
            )
        if name not in frame.columns:
            raise ColumnNotFoundError(
                f"`{argument}={name!r}`: no such column. Available columns: {preview(list(frame.columns))}."
            )
        if multi:
            check_whole_key(frame, argument, name)
        if int(np.sum(frame.columns == name)) > 1:
            raise InvalidInputError(
                f"`{argument}={name!r}`: the DataFrame has {int(np.sum(frame.columns == name))} "
                f"columns named {name!r}. Rename or drop the duplicates first "
                f"(e.g. `df.loc[:, ~df.columns.duplicated()]`)."
            )
    return names


def refuse_tuple_name(argument: str, name: tuple, why: str = "", what: str = "column") -> None:
    """Refuse a column of flat columns named by a tuple: ``argument=`` given a tuple reads it
    as a list of names (``why``, if given, says what else the name would name)."""
    flat = "_".join(map(str, name))
    why = why or f"a tuple passed as `{argument}=` is read as a list of column names"
    raise InvalidInputError(
        f"`{argument}={name!r}`: the {what} is named by a tuple (a MultiIndex-like column), and {why}: "
        f"rename it to a string first, e.g. df.rename(columns={{{name!r}: {flat!r}}}) and "
        f"{argument}={flat!r}."
    )


def check_whole_key(frame: pd.DataFrame, argument: str, name) -> None:
    """Refuse a name that selects several columns of a MultiIndex (one of its levels, or a
    tuple shorter than the levels): pandas would hand over a DataFrame, or its first column."""
    if isinstance(name, tuple) and len(name) == frame.columns.nlevels:
        return  # a whole key (a repeated one is refused as repeated)
    if isinstance(frame.iloc[:0][name], pd.Series):  # pandas drops the last levels when they are ''
        return
    columns = frame.columns[frame.columns.get_loc(name)]
    raise InvalidInputError(
        f"`{argument}={plain(name)!r}` names a level of the MultiIndex columns, not one column (it "
        f"selects {preview(list(columns), 6)}); pass one column's full name, e.g. "
        f"`{argument}={columns[0]!r}`, or flatten the columns first: "
        f"`df.columns = ['_'.join(map(str, c)) for c in df.columns]`."
    )


def refuse_missing(series: pd.Series, where: str, problem: str) -> None:
    """Refuse a missing value in ``series`` (an id column): ``"<where>, row <label>: <problem>"``,
    naming the first row that holds one.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics._validation import refuse_missing
    >>> refuse_missing(pd.Series(["q1", None], index=[10, 11]), "`datum='id'`", "missing datum id.")
    Traceback (most recent call last):
    pdmetrics.errors.InvalidInputError: `datum='id'`, row 11: missing datum id.
    """
    missing = series.isna().to_numpy()
    if missing.any():
        row = series.index[int(np.flatnonzero(missing)[0])]
        raise InvalidInputError(f"{where}, row {plain(row)!r}: {problem}")


def one_name(frame: pd.DataFrame, argument: str, name):
    """The one column name ``name`` of ``frame`` (a tuple names a MultiIndex column), checked as
    :func:`require_columns` checks; a list of names is refused."""
    names = require_columns(frame, argument, name)
    if isinstance(name, list) or len(names) != 1:
        raise InvalidInputError(f"`{argument}=` takes one column name; got {names!r}.")
    return names[0]


def one_column(frame: pd.DataFrame, argument: str, name) -> pd.Series:
    """The one column ``name`` of ``frame`` (a tuple names a MultiIndex column), checked as
    :func:`require_columns` checks; a list of names is refused."""
    names = require_columns(frame, argument, name)
    if isinstance(name, list) or len(names) != 1:
        raise InvalidInputError(f"`{argument}=` takes one column name; got {names!r}.")
    return frame[names].iloc[:, 0]


#: What :func:`pandas.api.types.infer_dtype` says of a column that holds no boolean.
_KINDS_WITHOUT_BOOLEANS = frozenset(
    {"empty", "floating", "integer", "mixed-integer-float", "decimal", "string", "bytes"}
)


def _refuse_complex(
    values: np.ndarray, labels, argument: str, name, where: str = "row", what: str = "scores"
) -> None:
    """Refuse complex scores: ``values`` (complex) name the first one with an imaginary part
    (else the first one) by its label in ``labels``."""
    imaginary = np.flatnonzero(np.imag(values) != 0)
    present = np.flatnonzero(~np.isnan(values))
    shown = f"`{argument}={plain(name)!r}`" if name is not None else f"`{argument}`"
    column = plain(name) if name is not None else argument
    example = f" (dtype {values.dtype})"
    if imaginary.size or present.size:  # (a dask frame's empty sample has no value to show)
        first = int(imaginary[0] if imaginary.size else present[0])
        example = f" (e.g. {plain(values[first])!r} at {where} {plain(labels[first])!r})"
    raise InvalidInputError(
        f"{shown} holds complex numbers{example}; {what} must be real numbers. Keep the part you "
        f"mean first, e.g. its real part: `np.real(pd.to_numeric(df[{column!r}]))`."
    )


def check_no_booleans(series: pd.Series, argument: str) -> None:
    """Refuse an object (or categorical) column holding a ``True``/``False`` among its values.

    Every value is checked (one vectorized pass: the column's inferred kind, then, only
    for a mixed column, the type of each value); the message names the argument, the
    column, the first boolean and its row label, and the fix.
    """
    if isinstance(series.dtype, pd.CategoricalDtype):
        series = series.astype(object)
    if series.dtype != object or pd.api.types.infer_dtype(series, skipna=True) in _KINDS_WITHOUT_BOOLEANS:
        return
    booleans = series.map(type).isin([bool, np.bool_]).to_numpy(dtype=bool)
    if not booleans.any():
        return
    first, count = int(np.argmax(booleans)), int(booleans.sum())
    name = series.name
    raise InvalidInputError(
        f"`{argument}={name!r}` holds booleans ({count} value{'s' * (count > 1)}, e.g. "
        f"{plain(series.iloc[first])!r} at row {plain(series.index[first])!r}); scores must be numbers. "
        f"If True/False really are the scores 1/0, convert the column first: "
        f"`df.assign({name}=df[{name!r}].astype(float))`; otherwise replace them with NaN to leave "
        f"those rows out."
    )


def numeric_values(series: pd.Series, argument: str) -> np.ndarray:
    """Return a column as a float64 array, non-numeric entries as NaN.

    The array may share memory with the frame (and be read-only): never write into it.

    Numbers stored as strings or objects (``"3"``, ``Decimal``) are converted, as RSMTool
    does; entries that are not numbers (``"TD"``, ``None``) become NaN so the caller can
    leave those rows out and count them. Raises :class:`InvalidInputError` for boolean
    columns and for a boolean anywhere in an object column (ambiguous as scores: every
    value is checked), and for columns with no numeric value at all.
    """
    name = series.name
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype):
        raise InvalidInputError(
            f"`{argument}={name!r}` is a boolean column; scores must be numbers. "
            f"If True/False really are the scores 1/0, pass `df.assign({name}=df[{name!r}].astype(int))`."
        )
    if pd.api.types.is_complex_dtype(dtype):
        _refuse_complex(series.to_numpy(), series.index, argument, name)
    if pd.api.types.is_numeric_dtype(dtype):
        values = series.to_numpy(dtype="float64", na_value=np.nan)
    else:
        check_no_booleans(series, argument)
        converted = pd.to_numeric(series.astype("object"), errors="coerce")
        if pd.api.types.is_complex_dtype(converted.dtype):
            _refuse_complex(_complex_cells(series, converted), series.index, argument, name)
        values = np.asarray(converted, dtype="float64").copy()
        if series.notna().any() and not np.isfinite(values).any():
            example = series[series.notna()].iloc[0]
            raise InvalidInputError(
                f"`{argument}={name!r}` has no numeric values (e.g. {example!r}). "
                f"Pass a column of scores, or convert it with `pd.to_numeric`."
            )
    if np.isinf(values).any():
        values = np.where(np.isinf(values), np.nan, values)
    return values


def check_not_complex(series: pd.Series, argument: str, what: str = "its values") -> None:
    """Refuse a column of numbers holding a complex value (a complex dtype, or a complex
    number in an object column: every value is checked, the types read only when the
    column's inferred kind is complex or mixed)."""
    if pd.api.types.is_complex_dtype(series.dtype):
        _refuse_complex(series.to_numpy(), series.index, argument, series.name, what=what)
    if series.dtype != object:
        return
    kind = pd.api.types.infer_dtype(series, skipna=True)
    if kind == "complex" or kind.startswith("mixed"):
        cells = _complex_cells(series, pd.to_numeric(series, errors="coerce"))
        if not np.isnan(cells).all():
            _refuse_complex(cells, series.index, argument, series.name, what=what)


def _complex_cells(series: pd.Series, converted: pd.Series) -> np.ndarray:
    """The converted values, NaN where the cell was not a complex number (``"3"`` becomes
    ``3+0j`` too), so that a complex cell with no imaginary part is the one named."""
    values = converted.to_numpy(dtype="complex128")
    types = series.map(type)
    is_complex = types.map({kind: issubclass(kind, complex | np.complexfloating) for kind in types.unique()})
    return np.where(is_complex.to_numpy(dtype=bool), values, np.nan)


def as_float_array(values, argument: str) -> np.ndarray:
    """Convert an array-like of scores (list, ndarray, Series) to a 1-D float64 array."""
    if isinstance(values, pd.Series):
        return numeric_values(values.rename(argument) if values.name is None else values, argument)
    if not isinstance(values, np.ndarray) or values.dtype.kind in "cO":
        raw = np.asarray(values) if not isinstance(values, np.ndarray) else values
        if raw.dtype.kind == "O" and raw.ndim == 1:
            raw = pd.to_numeric(pd.Series(raw), errors="coerce").to_numpy()
        if raw.dtype.kind == "c":
            flat = raw.reshape(-1)
            _refuse_complex(flat, np.arange(flat.size), argument, None, "position")
    try:
        array = np.asarray(values, dtype="float64")
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"`{argument}` must hold numbers; got {np.asarray(values, dtype=object)[:3].tolist()!r}..."
            " Convert it with `pd.to_numeric` first."
        ) from None
    if array.ndim == 0:
        array = array.reshape(1)
    if array.ndim != 1:
        raise InvalidInputError(f"`{argument}` must be one-dimensional; got shape {array.shape}.")
    return array


def paired_arrays(first, second, names: tuple[str, str]) -> tuple[np.ndarray, np.ndarray]:
    """Convert two array-likes to float arrays of equal length."""
    a = as_float_array(first, names[0])
    b = as_float_array(second, names[1])
    if a.shape != b.shape:
        raise InvalidInputError(
            f"`{names[0]}` has {a.size} values but `{names[1]}` has {b.size}; pass paired scores "
            f"of equal length."
        )
    return a, b


def finite_number(value, argument: str) -> float:
    """A scalar argument as a Python float; InvalidInputError naming it unless it is a finite number."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InvalidInputError(f"`{argument}={plain(value)!r}` must be a number.") from None
    if not np.isfinite(number):
        raise InvalidInputError(f"`{argument}={plain(value)!r}` must be a finite number.")
    return number
