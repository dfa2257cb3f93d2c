"""Writing large frames as CSV/TSV fast, byte for byte as pandas' ``to_csv`` writes them.

pandas formats every float with NumPy's ``astype(str)`` (Dragon4, about 2 µs a value) and
passes each row through :mod:`csv`; rsmeval's per-response files (100k rows and more) spend
most of their writing time there. :func:`write_delimited` formats each column once and joins
the rows as text: a column's distinct values only once when it has few (human scores), a float
column mostly equal to an earlier one (``raw_trim`` and ``raw``) only where they differ, other
floats with the digits of Python's shortest round-trip ``repr`` (NumPy's follow it). With
pyarrow (pandas 3 imports it when it is installed) the columns are arrow text, formatted by
arrow's compute functions and written by its CSV writer (arrow's shortest float digits are
``repr``'s; only the exponent notation differs, and the few values written with an exponent are
formatted by ``repr``); without it (or before pyarrow 13), Python strings. Anything it cannot
reproduce exactly (quoted fields, float32, nullable or datetime columns, MultiIndex, an empty
field alone on its row, small frames) is written by pandas itself.
"""

from __future__ import annotations

import functools
import weakref

import numpy as np
import pandas as pd

__all__ = ["write_delimited"]

#: Frames with fewer rows are written by pandas (nothing to gain).
FAST_MIN_ROWS = 2_000
#: Characters that make the csv module quote a field (QUOTE_MINIMAL, besides the separator).
_QUOTED = ('"', "\n", "\r")
#: Rows written at a time by arrow's CSV writer (bounds the memory of one piece of text).
_CHUNK_ROWS = 1 << 20
#: The first values of a column looked at to tell whether it has few distinct values.
_SAMPLE = 1_000


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
    with open(path, "wb") as handle:
        _text().write(handle, header, columns, sep)


def _formatted_columns(frame: pd.DataFrame, sep: str, index: bool) -> list | None:
    """Each field of the body as text, column by column; None when pandas must write it."""
    if len(frame) < FAST_MIN_ROWS or isinstance(frame.columns, pd.MultiIndex):
        return None
    if frame.columns.duplicated().any() or frame.shape[1] + bool(index) < 1:
        return None
    if index and isinstance(frame.index, pd.MultiIndex):
        return None
    text = _text()
    done: list[tuple[np.ndarray, object]] = []  # float columns formatted so far, and their text
    columns = [frame.index] if index else []
    columns += [frame.iloc[:, position] for position in range(frame.shape[1])]
    cells = []
    for values in columns:
        column = _cells(text, values, sep, done)
        if column is None:
            return None
        cells.append(column)
    if len(cells) == 1 and text.has_empty(cells[0]):  # the csv module writes a lone empty field as ""
        return None
    return cells


def _cells(text, values: pd.Series | pd.Index, sep: str, done: list):
    """One column's fields as pandas writes them (missing values empty), as ``text``'s
    columns, or None.

    ``done`` holds the float columns formatted before (array, text): a float column equal to
    one of them in most rows (``raw_trim`` and ``raw``) copies their text.
    """
    dtype = values.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "iub":
        return _by_distinct_values(text, values.to_numpy(), str)
    if isinstance(dtype, np.dtype) and dtype == np.float64:
        array = values.to_numpy()
        for before, formatted in done:
            same = (array == before) & (np.signbit(array) == np.signbit(before))
            if np.count_nonzero(same) * 2 > len(array):
                cells = text.replace(
                    formatted, ~same, _by_distinct_values(text, array[~same], float.__repr__)
                )
                break
        else:
            cells = _by_distinct_values(text, array, float.__repr__)
        done.append((array, cells))
        return cells
    is_object = isinstance(dtype, np.dtype) and dtype.kind == "O"
    if not (isinstance(dtype, pd.StringDtype) or is_object):
        return None
    if is_object and pd.api.types.infer_dtype(values, skipna=True) not in ("string", "empty"):
        return None
    return text.strings(values, (sep, *_QUOTED))


def _by_distinct_values(text, array: np.ndarray, format_one):
    """``format_one`` of every value (missing values empty) as ``text``'s column, each
    distinct value formatted once when the column has few of them."""
    # factorize takes -0.0 for 0.0: a column holding -0.0 is formatted value by value
    negative_zero = array.dtype.kind == "f" and bool(np.any(np.signbit(array) & (array == 0)))
    sample = array[:_SAMPLE]  # distinct in most of its first values (raw scores): not worth factorizing
    if negative_zero or (len(array) > _SAMPLE and len(np.unique(sample)) * 4 > len(sample)):
        return text.each(array, format_one)
    codes, uniques = pd.factorize(array, use_na_sentinel=True)
    if len(uniques) * 4 > len(array):
        return text.each(array, format_one)
    return text.take([*map(format_one, uniques.tolist()), ""], codes)  # code -1 (missing): ""


class _PythonText:
    """Columns of text as object arrays of Python strings (without pyarrow)."""

    @staticmethod
    def each(array: np.ndarray, format_one) -> np.ndarray:
        cells = np.array(list(map(format_one, array.tolist())), dtype=object)
        if array.dtype.kind == "f":
            cells[np.isnan(array)] = ""
        return cells

    @staticmethod
    def take(texts: list, codes: np.ndarray) -> np.ndarray:
        return np.array(texts, dtype=object)[codes]

    @staticmethod
    def replace(cells: np.ndarray, where: np.ndarray, new: np.ndarray) -> np.ndarray:
        cells = cells.copy()
        cells[where] = new
        return cells

    @staticmethod
    def strings(values, quoted) -> np.ndarray | None:
        cells = values.to_numpy(dtype=object, na_value="")
        joined = "\x00".join(cells.tolist())  # one substring search each instead of one per field
        return None if any(char in joined for char in quoted) else cells

    @staticmethod
    def has_empty(cells: np.ndarray) -> bool:
        return bool((cells == "").any())

    @staticmethod
    def write(handle, header: str, columns: list, sep: str) -> None:
        rows = "\n".join(map(sep.join, zip(*(column.tolist() for column in columns))))
        handle.write(f"{header}{rows}\n".encode())


class _ArrowText:
    """Columns of text as pyarrow ``large_string`` arrays (missing values null), formatted
    by arrow's compute functions, written by its CSV writer."""

    def __init__(self, pa, pc, csv) -> None:
        self.pa, self.pc, self.csv = pa, pc, csv
        self.type = pa.large_string()
        # (weak reference to an Index, the characters it was checked for, its text): the files
        # of a report share one Index
        self._index = (None, (), None)

    def each(self, array: np.ndarray, format_one):
        pa, pc = self.pa, self.pc
        if array.dtype.kind in "iu":
            return pc.cast(pa.array(array), self.type)  # the digits of str(int)
        if array.dtype.kind != "f":
            return pa.array(_PythonText.each(array, format_one), self.type)
        # arrow writes repr's shortest digits, as repr without an exponent from 1e-4 to 1e10
        # (and 0), but a whole number without repr's ".0"; the others (exponents, inf) are repr's
        size = np.abs(array)
        plain = ((size >= 1e-4) & (size < 1e10)) | (array == 0)
        cells = pc.cast(pa.array(array, from_pandas=True), self.type)  # NaN: null
        whole = plain & (array == np.floor(array))
        if whole.any():
            cells = pc.if_else(pa.array(whole), self._join(cells, self._scalar(".0"), ""), cells)
        other = ~plain & ~np.isnan(array)
        if other.any():
            cells = self.replace(cells, other, list(map(float.__repr__, array[other].tolist())))
        return cells

    def take(self, texts: list, codes: np.ndarray):
        return self.pa.array(texts, self.type).take(self.pa.array(np.where(codes < 0, len(texts) - 1, codes)))

    def replace(self, cells, where: np.ndarray, new):
        new = new if isinstance(new, self.pa.Array) else self.pa.array(new, self.type)
        return self.pc.replace_with_mask(cells, self.pa.array(where), new)

    def strings(self, values, quoted):
        known, checked, cells = self._index
        if known is not None and known() is values and checked == quoted:  # an Index cannot change
            return cells
        cells = self._strings(values, quoted)
        if isinstance(values, pd.Index):
            self._index = (weakref.ref(values), quoted, cells)
        return cells

    def _strings(self, values, quoted):
        pa = self.pa
        if isinstance(values.dtype, pd.StringDtype):
            cells = pa.array(values.array, self.type)
        else:
            cells = pa.array(values.to_numpy(dtype=object, na_value=None), self.type, from_pandas=True)
        if isinstance(cells, pa.ChunkedArray):
            cells = cells.combine_chunks()
        data = bytes(self._data(cells))  # UTF-8: these ASCII characters are never part of another
        return None if any(char.encode() in data for char in quoted) else cells

    def has_empty(self, cells) -> bool:
        return cells.null_count > 0 or self.pc.any(self.pc.equal(self.pc.binary_length(cells), 0)).as_py()

    def write(self, handle, header: str, columns: list, sep: str) -> None:
        # arrow's CSV writer, quoting nothing (no field needs it: checked before)
        handle.write(header.encode())
        table = self.pa.table(columns, names=[str(k) for k in range(len(columns))])
        options = self.csv.WriteOptions(include_header=False, delimiter=sep, quoting_style="none")
        for start in range(0, table.num_rows, _CHUNK_ROWS):
            text = self.pa.BufferOutputStream()
            self.csv.write_csv(table.slice(start, _CHUNK_ROWS), text, options)
            handle.write(text.getvalue())

    def _join(self, *parts_and_separator):
        *parts, separator = parts_and_separator
        return self.pc.binary_join_element_wise(
            *parts, self._scalar(separator), null_handling="replace", null_replacement=""
        )

    def _scalar(self, value: str):
        return self.pa.scalar(value, self.type)

    def _data(self, cells) -> memoryview:
        """The characters of ``cells`` one after another (a view of its data buffer)."""
        offsets = np.frombuffer(cells.buffers()[1], dtype=np.int64)[
            cells.offset : cells.offset + len(cells) + 1
        ]
        data = cells.buffers()[2]
        return memoryview(b"") if data is None else memoryview(data)[int(offsets[0]) : int(offsets[-1])]


@functools.cache
def _text():
    """The arrow columns with pyarrow, else Python strings."""
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.csv as csv

        csv.WriteOptions(quoting_style="none")  # pyarrow 13 and later
    except (ImportError, TypeError):
        return _PythonText()
    return _ArrowText(pa, pc, csv)
