"""Writing large frames as CSV/TSV fast, byte for byte as pandas' ``to_csv`` writes them.

pandas formats every float with NumPy's ``astype(str)`` (Dragon4, about 2 µs a value) and
passes each row through :mod:`csv`; rsmeval's per-response files (100k rows and more) spend
most of their writing time there. :func:`write_delimited` formats each column once with
Python's shortest round-trip ``repr`` (the same digits as NumPy's, which follows ``repr``),
formats a column's distinct values only once when it has few (human scores), and joins the
rows as text. Anything it cannot reproduce exactly (quoted fields, float32, nullable or
datetime columns, MultiIndex, one field a row, small frames) is written by pandas itself.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["write_delimited"]

#: Frames with fewer rows are written by pandas (nothing to gain).
FAST_MIN_ROWS = 2_000
#: Characters that make the csv module quote a field (QUOTE_MINIMAL, besides the separator).
_QUOTED = ('"', "\n", "\r")


def write_delimited(frame: pd.DataFrame, path, sep: str = ",", index: bool = True) -> None:
    """Write ``frame`` to ``path`` as ``frame.to_csv(path, sep=sep, index=index)`` does.

    The file is the same, byte for byte: the header is pandas' own, and a frame whose cells
    the fast path cannot reproduce exactly is handed to ``to_csv``. ``path`` is written as
    given: to write a user's file whole or not at all, pass the temporary path of
    :func:`pdmetrics._files.atomic_path`.
    """
    columns = _formatted_columns(frame, sep, index)
    if columns is None:
        frame.to_csv(path, sep=sep, index=index)
        return
    header = frame.iloc[:0].to_csv(sep=sep, index=index)
    body = "\n".join(map(sep.join, zip(*columns)))
    with open(path, "w", encoding="utf-8", newline="") as handle:
        handle.write(header)
        handle.write(body)
        handle.write("\n")


def _formatted_columns(frame: pd.DataFrame, sep: str, index: bool) -> list[list[str]] | None:
    """Each field of the body as text, column by column; None when pandas must write it."""
    if len(frame) < FAST_MIN_ROWS or isinstance(frame.columns, pd.MultiIndex):
        return None
    if frame.columns.duplicated().any() or frame.shape[1] + bool(index) < 2:
        return None
    if index and isinstance(frame.index, pd.MultiIndex):
        return None
    done: list[tuple[np.ndarray, np.ndarray]] = []  # float columns formatted so far, and their text
    columns = [frame.index] if index else []
    columns += [frame.iloc[:, position] for position in range(frame.shape[1])]
    text = []
    for values in columns:
        cells = _cells(values, sep, done)
        if cells is None:
            return None
        text.append(cells)
    return text


def _cells(values: pd.Series | pd.Index, sep: str, done: list) -> list[str] | None:
    """One column's fields as pandas writes them (missing values empty), or None.

    ``done`` holds the float columns formatted before (array, text): a float column equal to
    one of them in most rows (``raw_trim`` and ``raw``) copies their text.
    """
    dtype = values.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "iub":
        return _by_distinct_values(values.to_numpy(), str).tolist()
    if isinstance(dtype, np.dtype) and dtype == np.float64:
        array = values.to_numpy()
        for before, text in done:
            same = (array == before) & (np.signbit(array) == np.signbit(before))
            if np.count_nonzero(same) * 2 > len(array):
                cells = text.copy()
                cells[~same] = _by_distinct_values(array[~same], float.__repr__)
                break
        else:
            cells = _by_distinct_values(array, float.__repr__)
        done.append((array, cells))
        return cells.tolist()
    is_object = isinstance(dtype, np.dtype) and dtype.kind == "O"
    if not (isinstance(dtype, pd.StringDtype) or is_object):
        return None
    if is_object and pd.api.types.infer_dtype(values, skipna=True) not in ("string", "empty"):
        return None
    text = values.to_numpy(dtype=object, na_value="").tolist()
    joined = "\x00".join(text)  # one substring search each instead of one per field
    return None if any(char in joined for char in (sep, *_QUOTED)) else text


def _by_distinct_values(array: np.ndarray, format_one) -> np.ndarray:
    """``format_one`` of every value (missing values empty) as an object array, each
    distinct value formatted once when the column has few of them."""
    # factorize takes -0.0 for 0.0: a column holding -0.0 is formatted value by value
    negative_zero = array.dtype.kind == "f" and bool(np.any(np.signbit(array) & (array == 0)))
    codes, uniques = pd.factorize(array, use_na_sentinel=True)
    if negative_zero or len(uniques) * 4 > len(array):
        cells = np.array(list(map(format_one, array.tolist())), dtype=object)
        if array.dtype.kind == "f":
            cells[np.isnan(array)] = ""
        return cells
    text = np.array([*map(format_one, uniques.tolist()), ""], dtype=object)
    return text[codes]  # code -1 (missing) takes the last entry, ""
