"""The command line's input: one file of responses, or a folder or glob of parquet files,
read by pandas or (``engine="dask"``) as a dask DataFrame, partition by partition."""

from __future__ import annotations

import glob
from pathlib import Path

import pandas as pd

from pdmetrics._optional import optional_module
from pdmetrics.errors import InvalidInputError
from pdmetrics.io import as_text_columns, read_table

__all__ = ["ENGINES", "is_pattern", "parquet_files", "read_responses"]

#: The engines of ``pdmetrics evaluate`` and ``pdmetrics rsmeval`` (``--engine``).
ENGINES = ("pandas", "dask")

_GLOB_CHARACTERS = ("*", "?", "[")


def is_pattern(text) -> bool:
    """Whether ``text`` is a glob pattern (``*``, ``?`` or ``[``) rather than a path."""
    return any(character in str(text) for character in _GLOB_CHARACTERS)


def parquet_files(path) -> list[Path] | None:
    """The parquet files a folder or a glob pattern names, sorted; None for one file.

    Raises
    ------
    InvalidInputError
        A pattern matching no file, a folder without parquet files, or a match that is not
        a parquet file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import pandas as pd
    >>> with tempfile.TemporaryDirectory() as directory:
    ...     for name in ("b.parquet", "a.parquet"):
    ...         pd.DataFrame({"x": [1]}).to_parquet(pathlib.Path(directory) / name)
    ...     [path.name for path in parquet_files(directory)]
    ['a.parquet', 'b.parquet']
    """
    text = str(path)
    if is_pattern(text):
        files = sorted(Path(match) for match in glob.glob(text))
        if not files:
            raise InvalidInputError(
                f"{text!r}: no file matches this pattern; pass a folder or a glob of parquet files."
            )
        others = [file for file in files if file.suffix.lower() != ".parquet"]
        if others:
            raise InvalidInputError(
                f"{text!r} matches {str(others[0])!r}, which is not a parquet file; a pattern must "
                "match parquet files only (e.g. 'responses/*.parquet')."
            )
        return files
    folder = Path(path)
    if not folder.is_dir():
        return None
    files = sorted(file for file in folder.iterdir() if file.suffix.lower() == ".parquet" and file.is_file())
    if not files:
        raise InvalidInputError(
            f"{text!r}: a folder without parquet files; pass a file, or a folder of .parquet files."
        )
    return files


def read_responses(path, text_columns=(), engine: str = "pandas"):
    """The responses in ``path``: a file, or a folder or glob of parquet files.

    ``engine="pandas"`` reads every file into one DataFrame (rows numbered from 0);
    ``engine="dask"`` returns a dask DataFrame of the parquet files (nothing read yet; one
    partition per file or row group). ``text_columns`` are read as text, as
    :func:`pdmetrics.io.read_table` reads them.
    """
    if engine not in ENGINES:
        raise InvalidInputError(f"engine={engine!r}: pass one of {', '.join(map(repr, ENGINES))}.")
    files = parquet_files(path)
    if engine == "pandas":
        if files is None:
            return read_table(path, text_columns=text_columns)
        return pd.concat([read_table(file, text_columns=text_columns) for file in files], ignore_index=True)
    dd = optional_module("dask.dataframe", "dask", "--engine dask")
    if files is None:
        file = Path(path)
        if file.suffix.lower() != ".parquet" or not file.is_file():
            raise InvalidInputError(
                f"{str(path)!r}: --engine dask reads parquet files; pass a .parquet file, a folder of them "
                "or a glob such as 'responses/*.parquet' (or use --engine pandas)."
            )
        files = [file]
    optional_module("pyarrow", "dask", "Reading parquet files")
    return as_text_columns(dd.read_parquet([str(file) for file in files]), text_columns)
