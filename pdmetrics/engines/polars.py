"""The polars engine: how a spec runs on a polars DataFrame or LazyFrame.

There is no polars code per method: ``pl_df.scoring`` is the pandas accessor class itself, and
its methods run the same specs. A call

1. builds the spec on the frame's schema (an empty pandas frame of its columns), then turns the
   columns the spec reads into pandas with ``DataFrame.to_pandas()`` (pyarrow's conversion: the
   columns arrive as ``pandas.read_parquet`` would read the same data: text as pandas' strings,
   nulls as NaN/None, an integer column with nulls as float, categoricals and enums as
   categoricals (a ``Categorical``'s categories sorted, as pandas sorts the categories it
   finds in ``pd.Categorical(values)``; an ``Enum`` keeps its order), lists as arrays, structs
   as dicts), with a RangeIndex, so the row labels the pandas path names in messages are the
   polars row numbers; a LazyFrame is collected first. Polars frames passed as arguments
   (``ground_truth=``, ``data=``, ``scale_with=``) are converted alike;
2. runs the spec as pandas does, in one chunk;
3. hands the result back as polars: a table becomes a ``polars.DataFrame`` (a table indexed
   by labels, such as a wide matrix, gets its index as its first column(s); the column labels
   become strings; pandas' missing values become nulls, as ``polars.from_pandas`` makes
   them; a tuple of tables, such as ``score_fairness_tables``', each); a per-row result has
   the caller's height and row order, with nulls in the rows the pandas path left out (in the
   metric columns: an identifier column such as ``datum`` keeps the caller's values there), so
   ``pl.concat([df, result], how="horizontal")`` is right; new columns (``postprocess``) are
   added to the caller's frame. Anything else (a report, a number, a fitted model) is returned
   as is.

The frames of this module are inside the package, so the pandas path's warnings still point
at the user's line.
"""

from __future__ import annotations

import pandas as pd
import polars as pl

from pdmetrics._table_spec import Engine, NewColumns, register_engine

__all__ = ["PolarsEngine", "polars_result", "to_pandas"]

#: The name of the caller's row index in the pandas frame: a result carrying it is per row.
ROWS = "__pdmetrics_row__"


class PolarsEngine(Engine):
    """Runs specs on polars DataFrames and LazyFrames: the columns a spec reads, as pandas, in
    one chunk; the result handed back as polars (see the module docstring)."""

    name = "polars"

    def owns(self, frame) -> bool:
        return isinstance(frame, (pl.DataFrame, pl.LazyFrame))

    def schema(self, frame) -> pd.DataFrame:
        return to_pandas(frame.head(0))

    def argument(self, value):
        return pandas_argument(value)

    def run(self, spec, frame, function: str):
        if isinstance(frame, pl.LazyFrame):
            frame = frame.collect()
        columns = list(dict.fromkeys([*spec.columns, *getattr(spec, "identifiers", {}).values()]))
        part = to_pandas(frame.select(columns), rows=True)
        if isinstance(spec, NewColumns):
            new = polars_result(spec.new_columns(part), frame.height)
            return frame.drop([name for name in new.columns if name in frame.columns]).hstack(new)
        result = spec.run(part)
        identifiers = {column: part[name] for column, name in getattr(spec, "identifiers", {}).items()}
        return polars_result(result, frame.height, identifiers)


# ----------------------------------------------------------------------------------------------
# polars -> pandas
# ----------------------------------------------------------------------------------------------
def to_pandas(frame: pl.DataFrame | pl.LazyFrame, rows: bool = False) -> pd.DataFrame:
    """The frame as pandas reads it (``rows``: its RangeIndex marks the caller's rows)."""
    if isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    converted = frame.to_pandas()
    for name, dtype in frame.schema.items():
        if dtype == pl.Categorical:  # categories in the order they were met: as pandas finds them
            categories = converted[name].cat.categories
            converted[name] = converted[name].cat.reorder_categories(sorted(categories))
    if rows:
        converted.index = pd.RangeIndex(len(converted), name=ROWS)
    return converted


def pandas_argument(value):
    """A polars frame or series given as an argument, as pandas; anything else unchanged."""
    if isinstance(value, (pl.DataFrame, pl.LazyFrame)):
        return to_pandas(value)
    if isinstance(value, pl.Series):
        return value.to_pandas()
    return value


# ----------------------------------------------------------------------------------------------
# pandas -> polars
# ----------------------------------------------------------------------------------------------
def polars_result(result, height: int, identifiers: dict | None = None):
    """The pandas path's result as polars (see the module docstring); other results as they are.
    ``identifiers``: the caller's whole column of each identifier column of a per-row result
    (e.g. ``datum``), kept in the rows the pandas path left out."""
    if isinstance(result, pd.DataFrame):
        return _polars_frame(result, height, identifiers)
    if isinstance(result, pd.Series):
        return _polars_frame(result.to_frame(), height).to_series()
    if isinstance(result, tuple) and result and all(isinstance(one, pd.DataFrame) for one in result):
        return tuple(_polars_frame(one, height) for one in result)  # several tables of one pass
    return result


def _kept_identifiers(table: pl.DataFrame, identifiers: dict) -> pl.DataFrame:
    """``table`` with each identifier column replaced by the caller's whole column (its dtype
    kept when the caller's values convert to it)."""
    for column, values in identifiers.items():
        full = pl.from_pandas(values.reset_index(drop=True)).alias(column)
        if full.dtype != table.schema[column]:
            try:
                full = full.cast(table.schema[column])
            except pl.exceptions.PolarsError:
                pass
        table = table.with_columns(full)
    return table


def _polars_frame(table: pd.DataFrame, height: int, identifiers: dict | None = None) -> pl.DataFrame:
    per_row = table.index.name == ROWS and table.index.is_unique
    if per_row:
        every_row = table.index.equals(pd.RangeIndex(height))  # the caller's rows, in order
        positions = table.index.to_numpy()
        table = table.reset_index(drop=True)
    elif _plain_range(table.index):
        table = table.reset_index(drop=True)
    else:  # labels as the first column(s), named after the index (levels)
        table = table.reset_index(names=[_label(name, "index") for name in table.index.names])
    table.columns = [_flat(label) for label in table.columns]
    converted = _from_pandas(table)
    if not per_row or every_row:
        return converted
    # the caller's rows in their order, nulls where the pandas path left a row out
    position = "__pdmetrics_position__"
    located = converted.with_columns(pl.Series(position, positions, dtype=pl.Int64))
    rows = pl.DataFrame({position: pl.int_range(height, eager=True, dtype=pl.Int64)})
    joined = rows.join(located, on=position, how="left").sort(position).drop(position)
    return _kept_identifiers(joined, identifiers or {})


def _from_pandas(table: pd.DataFrame) -> pl.DataFrame:
    """``polars.from_pandas``; a column polars cannot type (labels of several types, such as a
    ``group`` column of text and integer groups) becomes text, missing values null."""
    try:
        return pl.from_pandas(table)
    except (TypeError, ValueError, pl.exceptions.PolarsError):  # pyarrow's errors subclass these
        pass
    columns = []
    for name in table.columns:
        try:
            columns.append(pl.from_pandas(table[name]))
        except (TypeError, ValueError, pl.exceptions.PolarsError):
            text = [None if _missing(value) else str(value) for value in table[name].tolist()]
            columns.append(pl.Series(name, text, dtype=pl.String))
    return pl.DataFrame(columns)


def _missing(value) -> bool:
    return value is None or value is pd.NA or value is pd.NaT or (isinstance(value, float) and value != value)


def _plain_range(index: pd.Index) -> bool:
    return isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1 and index.name is None


def _label(name, default: str) -> str:
    return default if name is None or name == ROWS else str(name)  # the caller's rows: unnamed


def _flat(label) -> str:
    """A column label as a polars column name (a tuple of levels joined with ``_``)."""
    if isinstance(label, tuple):
        return "_".join(str(part) for part in label if part != "")
    return str(label)


register_engine(PolarsEngine())
