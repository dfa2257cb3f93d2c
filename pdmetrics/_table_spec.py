"""The table protocol: every table is one spec, and every engine runs the same spec.

A public core function of a domain (``pdmetrics.scoring.evaluate``, ...) is written as a
*builder*: it takes the frame's schema (an empty pandas DataFrame with the caller's columns and
dtypes, or on pandas the frame itself) and the keyword arguments, checks them (column names,
options) and returns a spec, one of:

- :class:`Table`: the columns it reads, ``chunk(part) -> state`` (additive statistics, no
  warning), ``state.combine(other)`` and ``finalize(state) -> result`` (where the warnings and
  the errors about the whole data are raised, once). ``key`` names the column whose rows must
  share a chunk (an image, a datum): an engine that splits the rows shuffles on it first.
- :class:`Rows`: a result with one row per input row (or per datum), computed part by part and
  concatenated; its optional ``exclusions`` table counts and warns about the rows left out.
- :class:`NewColumns`: columns computed row by row and appended to the caller's frame.
- :class:`Whole`: a table that needs all its rows at once; ``instead`` says what runs on an
  engine that splits the rows (which raises :class:`~pdmetrics.errors.NotPartitionableError`).

:func:`table` turns a builder into the public function ``f(frame, **options)``: it finds the
engine of ``frame`` (pandas here: one chunk; dask and polars register themselves when they are
imported, see :mod:`pdmetrics.engines`), builds the spec on the schema and runs it. The builder
itself stays reachable as ``f.spec``, so an accessor method is one line over it and the engines
add their own options (dask's ``compute=``) without any per-method code.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from pdmetrics._wrappers import in_module_of
from pdmetrics.errors import InvalidInputError, NotPartitionableError

__all__ = [
    "Engine",
    "NewColumns",
    "PANDAS",
    "Rows",
    "Several",
    "Table",
    "Whole",
    "PART",
    "POS",
    "ROW",
    "ColumnsAfterTable",
    "appended",
    "engine_of",
    "register_engine",
    "row_numbers",
    "run_spec",
    "source_order",
    "table",
]


# ----------------------------------------------------------------------------------------------
# the specs
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Table:
    """A partitionable table: ``finalize(chunk(a).combine(chunk(b)) ...)``.

    ``columns``: the caller's columns it reads (each part an engine hands to ``chunk`` has them).
    ``key``: a column whose equal values must fall in one part (engines that split rows
    shuffle on it); :data:`POS`: every row is its own key (the rows stay in their parts, each
    located by its source order, see :func:`source_order`). ``frames``: other frames the table
    reads, by argument name, each with the columns it reads; ``chunk`` then takes their
    matching parts as keywords (an engine that splits rows shuffles them on ``key`` alike).
    ``numbered``: ``chunk`` needs each row's number in the caller's frame (``0..n-1``, see
    :func:`row_numbers`), e.g. to draw its bootstrap weights; an engine that splits the rows
    gives each part the column :data:`ROW`.
    """

    columns: Sequence
    chunk: Callable[..., Any]
    finalize: Callable[[Any], Any]
    key: Any = None
    frames: dict = field(default_factory=dict)
    numbered: bool = False

    def run(self, frame: pd.DataFrame):
        """The one-chunk case: the whole frame is one part."""
        others = {name: other for name, (other, _) in self.frames.items()}
        return self.finalize(self.chunk(frame, **others))


@dataclass(frozen=True)
class Rows:
    """A result with one row per input row (or per datum, with ``key``), made part by part.

    ``compute(part)`` gives the rows of one part and raises no warning about rows it leaves
    out; ``exclusions`` (a :class:`Table`, optional) counts those rows and warns once, in its
    ``finalize``. An engine that splits the rows concatenates the parts' results.
    ``identifiers``: the result's identifier columns that copy a caller's column (result column
    -> the caller's column name, e.g. ``{"datum": "doc"}``), so an engine that hands back every
    caller's row (polars) can fill them in the rows the result left out.
    """

    columns: Sequence
    compute: Callable[[pd.DataFrame], pd.DataFrame]
    exclusions: Table | None = None
    key: Any = None
    identifiers: dict = field(default_factory=dict)

    def run(self, frame: pd.DataFrame):
        if self.exclusions is not None:
            self.exclusions.run(frame)
        return self.compute(frame)


@dataclass(frozen=True)
class NewColumns:
    """Columns computed row by row and appended to the caller's frame (a column of the same
    name is replaced): ``compute(part)`` returns the new columns, indexed like ``part``."""

    columns: Sequence
    compute: Callable[[pd.DataFrame], pd.DataFrame] | None

    def new_columns(self, frame: pd.DataFrame) -> pd.DataFrame:
        """The new columns of ``frame`` (all its rows one chunk)."""
        return self.compute(frame)

    def run(self, frame: pd.DataFrame) -> pd.DataFrame:
        return appended(frame, self.new_columns(frame))


@dataclass(frozen=True)
class ColumnsAfterTable(NewColumns):
    """New columns that need a table of the whole frame first (e.g. the feature means and SDs
    a weighted score standardizes with): ``then(result of statistics) -> NewColumns``. On one
    chunk both run on it; an engine that splits the rows runs ``statistics`` in one pass, then
    the columns of ``then`` part by part (``compute`` is unused: pass None)."""

    statistics: Table | None = None
    then: Callable | None = None

    def new_columns(self, frame: pd.DataFrame) -> pd.DataFrame:
        return self.then(self.statistics.run(frame)).new_columns(frame)


@dataclass(frozen=True)
class Whole:
    """A table that needs all its rows at once: ``compute(frame)``.

    ``instead``: what to run on an engine that splits the rows (the message of its
    :class:`~pdmetrics.errors.NotPartitionableError`).
    """

    columns: Sequence
    compute: Callable[[pd.DataFrame], Any]
    instead: str = ""

    def run(self, frame: pd.DataFrame):
        return self.compute(frame)

    def refuse(self, where: str, function: str):
        """The :class:`~pdmetrics.errors.NotPartitionableError` of running it on ``where``."""
        return NotPartitionableError(
            f"`{function}` needs all its rows at once and does not run on {where}. {self.instead}".rstrip()
        )


class Several(tuple):
    """Several states of one chunk (e.g. one per score column), combined element by element."""

    def combine(self, other: Several) -> Several:
        return Several(a.combine(b) for a, b in zip(self, other))


#: The columns an engine that shuffles on a spec's ``key`` adds to each part: every row's
#: partition number and position in the caller's frame (its source order).
PART = "__pdmetrics_part__"
POS = "__pdmetrics_pos__"
#: The column of each row's number in the caller's frame, which an engine that splits the rows
#: adds to the parts of a ``numbered`` :class:`Table`.
ROW = "__pdmetrics_row__"


def row_numbers(part: pd.DataFrame) -> np.ndarray:
    """Each row's number in the caller's frame: the :data:`ROW` column an engine added, or
    ``0..n-1`` for the one chunk of the whole frame."""
    if ROW in part.columns:
        return part[ROW].to_numpy(dtype="int64")
    return np.arange(len(part), dtype="int64")


def source_order(part: pd.DataFrame) -> tuple[pd.DataFrame, tuple]:
    """A part in its rows' source order, and each row's ``(partition, position)`` in the caller's
    frame. A part no engine shuffled (the pandas path's one chunk) is in order already: its rows
    are ``(0, 0..n-1)``."""
    if PART not in part.columns:
        n = len(part)
        return part, (np.zeros(n, "int64"), np.arange(n, dtype="int64"))
    order = np.lexsort((part[POS].to_numpy(), part[PART].to_numpy()))
    part = part.iloc[order]
    return part, (part[PART].to_numpy(dtype="int64"), part[POS].to_numpy(dtype="int64"))


def appended(frame: pd.DataFrame, new: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the columns of ``new`` appended (those of the same name replaced)."""
    kept = frame.drop(columns=[name for name in new.columns if name in frame.columns])
    return pd.concat([kept, new], axis=1)


# ----------------------------------------------------------------------------------------------
# the engines
# ----------------------------------------------------------------------------------------------
class Engine:
    """How a spec runs on one library's frames. This one is pandas: the frame is one chunk.

    An engine for another library subclasses it and registers with :func:`register_engine`:
    ``owns`` (is this frame mine?), ``schema`` (the empty pandas frame a builder checks),
    ``argument`` (another frame given as an option, as the builder takes it), ``run`` and
    ``parameters`` (the keywords it adds to every method, e.g. dask's ``compute=``).
    """

    name = "pandas"
    parameters: tuple = ()
    #: Whether the engine splits the rows into parts (then a :class:`Whole` spec is refused).
    splits_rows = False

    def owns(self, frame) -> bool:
        return isinstance(frame, pd.DataFrame)

    def schema(self, frame) -> pd.DataFrame:
        return frame

    def argument(self, value):
        return value

    def run(self, spec, frame, function: str, **options):
        return spec.run(frame)


#: The pandas engine (always there).
PANDAS = Engine()

#: The engines of other libraries, registered when the library is imported.
_ENGINES: list = []


def register_engine(engine: Engine) -> None:
    """Run the specs on the frames ``engine.owns`` (once per engine name)."""
    if all(known.name != engine.name for known in _ENGINES):
        _ENGINES.append(engine)


def engine_of(frame) -> Engine:
    """The engine that runs ``frame``; anything else is refused naming what is accepted."""
    if isinstance(frame, pd.DataFrame):
        return PANDAS
    for engine in _ENGINES:
        if engine.owns(frame):
            return engine
    raise InvalidInputError(
        f"`frame` must be a pandas DataFrame (or a dask or polars DataFrame with those "
        f"libraries installed); got {type(frame).__name__}. Build one with "
        f"`pandas.DataFrame(...)` or read one with `pandas.read_csv(...)`."
    )


def run_spec(frame, builder: Callable, options: dict, function: str = "", **engine_options):
    """Build the spec of ``builder`` for ``frame`` and run it on the frame's engine."""
    engine = engine_of(frame)
    options = {name: engine.argument(value) for name, value in options.items()}
    spec = builder(engine.schema(frame), **options)
    return engine.run(spec, frame, function or builder.__name__, **engine_options)


def table(builder: Callable) -> Callable:
    """The public core function of the spec ``builder``: ``f(frame, **options)`` runs it.

    The function keeps the builder's name, docstring and signature (the frame first, then the
    builder's keyword arguments) and lives in the builder's module (so its Examples run as
    doctests there); ``f.spec`` is the builder.
    """

    def make(builder, run_spec):
        def public(frame, /, **options):
            return run_spec(frame, builder, options)

        return public

    public = in_module_of(builder, make(builder, run_spec))
    signature = inspect.signature(builder)
    first, *options = signature.parameters.values()
    parameters = [first.replace(kind=inspect.Parameter.POSITIONAL_ONLY), *options]
    public.__signature__ = signature.replace(parameters=parameters, return_annotation=inspect.Signature.empty)
    public.spec = builder
    return public
