"""The dask engine: a spec run partition by partition on a dask DataFrame.

A :class:`~pdmetrics._table_spec.Table` is checked on the frame's empty ``meta`` first (a wrong
column name or dtype fails before any data is read); ``chunk`` is mapped over the partitions
(after a shuffle on the spec's ``key``, which puts the rows of one image or datum, of every
frame the table reads, in one partition, each row carrying its source order); the states are
combined in a tree (eight at a time, so no task holds many states) and finalized in the
caller's process, so warnings reach the user's line. ``compute=False`` returns a
:class:`dask.delayed.Delayed` of the result instead (for ``dask.compute(a, b, ...)`` over
several tables in one pass). :class:`~pdmetrics._table_spec.Rows` and
:class:`~pdmetrics._table_spec.NewColumns` give lazy dask DataFrames;
:class:`~pdmetrics._table_spec.Whole` raises :class:`~pdmetrics.errors.NotPartitionableError`.
"""

from __future__ import annotations

import importlib
import inspect
from functools import reduce

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pyarrow as pa

from pdmetrics._table_spec import (
    PART,
    POS,
    ROW,
    ColumnsAfterTable,
    Engine,
    NewColumns,
    Rows,
    Table,
    Whole,
    register_engine,
)
from pdmetrics.errors import InvalidInputError

__all__ = [
    "DaskEngine",
    "RUNNERS",
    "SPLIT_EVERY",
    "combined_state",
    "is_dask_frame",
    "partition_table",
    "shuffled_on",
]

#: States combined per task of the tree reduction.
SPLIT_EVERY = 8

#: The column of the shuffle's target partition (a hash of the key).
SHARD = "__pdmetrics_shard__"

#: Runners of the specs of the applications above the domains, by the spec's class (module and
#: name) -> "module:function" run as ``function(spec, frame, function_name, compute)``; the
#: module is imported when such a spec first runs (``import pdmetrics`` stays light).
RUNNERS = {
    "pdmetrics.rsmeval.reporting.ReportTable": "pdmetrics.engines.dask_report:run_report",
}


class DaskEngine(Engine):
    """Runs specs on dask DataFrames (see the module docstring)."""

    name = "dask"
    splits_rows = True
    parameters = (
        inspect.Parameter("compute", inspect.Parameter.KEYWORD_ONLY, default=True, annotation=bool),
    )

    def owns(self, frame) -> bool:
        return isinstance(frame, dd.DataFrame)

    def schema(self, frame) -> pd.DataFrame:
        return frame._meta

    def run(self, spec, frame, function: str, compute: bool = True):
        runner = _runner(spec)
        if runner is not None:
            return runner(spec, frame, function, compute)
        if isinstance(spec, ColumnsAfterTable):  # the whole frame's table first, then the columns
            return self.run(spec.then(self.run(spec.statistics, frame, function)), frame, function)
        if isinstance(spec, Whole):
            raise spec.refuse("dask DataFrames", f"ddf.{function}")
        if isinstance(spec, NewColumns):
            return frame.map_partitions(spec.run, meta=spec.run(frame._meta))
        if isinstance(spec, Rows):
            return _rows(spec, frame)
        if isinstance(spec, Table):
            if spec.key is None and not spec.frames:
                return partition_table(frame, spec.columns, spec.chunk, spec.finalize, compute, spec.numbered)
            return _keyed_table(spec, frame, compute)
        raise TypeError(f"the dask engine cannot run a {type(spec).__name__}")


def _runner(spec):
    """The runner of ``spec``'s class in :data:`RUNNERS` (None: one of the spec kinds)."""
    found = RUNNERS.get(f"{type(spec).__module__}.{type(spec).__qualname__}")
    if found is None:
        return None
    module, name = found.split(":")
    return getattr(importlib.import_module(module), name)


def partition_table(frame, columns: list, chunk, finalize, compute: bool = True, numbered: bool = False):
    """The table ``finalize(combine(chunk(p) for p in partitions))`` of ``frame[columns]``.

    ``compute=False`` returns a :class:`dask.delayed.Delayed` of the table instead; warnings
    then arise where it is computed. ``numbered``: each part carries its rows' numbers in the
    whole frame (column :data:`~pdmetrics._table_spec.ROW`; the partitions' lengths are counted
    in the same graph).
    """
    columns = list(dict.fromkeys(columns))
    meta = frame._meta[columns]
    chunk(meta.assign(**{ROW: np.int64(0)}) if numbered else meta)  # checked on no rows, before any work
    parts = frame[columns].to_delayed()
    if numbered:
        lengths = [dask.delayed(len, pure=True)(part) for part in parts]
        starts = dask.delayed(_starts, pure=True)(*lengths)
        parts = [dask.delayed(_numbered, pure=True)(part, starts, i) for i, part in enumerate(parts)]
    states = [dask.delayed(chunk, pure=True)(part) for part in parts]
    state = combined_state(states)
    if not compute:
        return dask.delayed(finalize, pure=True)(state)
    return finalize(state.compute())


def _starts(*lengths: int) -> np.ndarray:
    """The number of each partition's first row in the whole frame."""
    return np.concatenate([[0], np.cumsum(lengths[:-1], dtype="int64")]).astype("int64")


def _numbered(part: pd.DataFrame, starts: np.ndarray, i: int) -> pd.DataFrame:
    return part.assign(**{ROW: np.arange(starts[i], starts[i] + len(part), dtype="int64")})


def combined_state(states: list):
    """One delayed state from many, combined in a tree of :data:`SPLIT_EVERY`-way tasks."""
    while len(states) > 1:
        states = [
            dask.delayed(_combine, pure=True)(*states[i : i + SPLIT_EVERY])
            for i in range(0, len(states), SPLIT_EVERY)
        ]
    return states[0]


def is_dask_frame(value) -> bool:
    """Whether ``value`` is a dask DataFrame."""
    return isinstance(value, dd.DataFrame)


def _combine(*states):
    return reduce(lambda a, b: a.combine(b), states)


# ----------------------------------------------------------------------------------------------
# tables keyed on an image or a datum: shuffled first
# ----------------------------------------------------------------------------------------------
def _keyed_table(spec: Table, frame, compute: bool):
    columns = list(dict.fromkeys(spec.columns))
    others = {name: _as_dask(other, name) for name, (other, _) in spec.frames.items()}
    other_columns = {name: list(dict.fromkeys(names)) for name, (_, names) in spec.frames.items()}
    metas = [frame._meta[columns], *(other._meta[other_columns[name]] for name, other in others.items())]
    n_parts = max([frame.npartitions, *(other.npartitions for other in others.values())])
    method = _shuffle_method(*metas)
    located = shuffled_on(frame[columns], spec.key, n_parts, method)
    located_others = {
        name: shuffled_on(other[other_columns[name]], spec.key, n_parts, method)
        for name, other in others.items()
    }
    # the arguments and dtypes checked on no rows, as the chunks see them (located)
    spec.chunk(located._meta, **{name: other._meta for name, other in located_others.items()})
    parts = located.to_delayed()
    other_parts = {name: other.to_delayed() for name, other in located_others.items()}
    states = [
        dask.delayed(spec.chunk, pure=True)(part, **{name: found[i] for name, found in other_parts.items()})
        for i, part in enumerate(parts)
    ]
    state = combined_state(states)
    if not compute:
        return dask.delayed(spec.finalize, pure=True)(state)
    return spec.finalize(state.compute())


def _as_dask(other, name: str):
    if isinstance(other, dd.DataFrame):
        return other
    if isinstance(other, pd.DataFrame):  # split as it is: its object columns (masks) stay objects
        with dask.config.set({"dataframe.convert-string": False}):
            return dd.from_pandas(other, npartitions=1, sort=False)
    raise InvalidInputError(f"`{name}=` must be a DataFrame (pandas or dask); got {type(other).__name__}.")


def _shuffle_method(*metas: pd.DataFrame):
    """dask's shuffle method: as tasks when a column holds Python objects (masks, lists, mixed
    types) or nested arrow values (lists, structs: masks read from parquet), which the
    arrow-based p2p shuffle of a distributed cluster cannot carry."""
    objects = any(_object_like(meta[name].dtype) for meta in metas for name in meta.columns)
    return "tasks" if objects else None


def _object_like(dtype) -> bool:
    if dtype == np.dtype(object):
        return True
    arrow = getattr(dtype, "pyarrow_dtype", None)  # pandas.ArrowDtype
    return arrow is not None and pa.types.is_nested(arrow)


def shuffled_on(frame, key, n_parts: int, method=None):
    """``frame`` with each row's partition and position (:data:`~pdmetrics._table_spec.PART`,
    :data:`~pdmetrics._table_spec.POS`), shuffled on the hash of its ``key`` value. ``method``:
    dask's shuffle method (None: dask's choice). ``key=POS``: every row is its own key, so the
    rows are located and stay in their partitions."""
    meta = frame._meta.assign(**{PART: np.int64(0), POS: np.int64(0), SHARD: np.int64(0)})
    located = frame.map_partitions(_located, key, n_parts, meta=meta)
    if isinstance(key, str) and key == POS:
        return located
    return located.shuffle(on=SHARD, npartitions=n_parts, shuffle_method=method)


def _located(part: pd.DataFrame, key, n_parts: int, partition_info=None) -> pd.DataFrame:
    number = partition_info["number"] if partition_info else 0
    if isinstance(key, str) and key == POS:
        shard = np.int64(number)
    else:
        shard = (_id_hash(part[key]) % np.uint64(n_parts)).astype("int64")
    return part.assign(**{PART: np.int64(number), POS: np.arange(len(part), dtype="int64"), SHARD: shard})


def _id_hash(ids: pd.Series) -> np.ndarray:
    """A hash of each id that is the same for 7, 7.0 and an object 7 (the ids the pandas path
    treats as one image or datum); other ids hash their string form."""
    if isinstance(ids.dtype, pd.CategoricalDtype):
        ids = pd.Series(np.asarray(ids), index=ids.index)
    if pd.api.types.is_numeric_dtype(ids.dtype) and not pd.api.types.is_bool_dtype(ids.dtype):
        values = ids.to_numpy(dtype="float64", na_value=np.nan)
        whole = np.isfinite(values) & (values == np.round(values))
        return pd.util.hash_array(np.where(whole, values, 0).astype("int64"))
    if ids.size and pd.api.types.infer_dtype(ids, skipna=False) == "integer":
        return pd.util.hash_array(ids.to_numpy(dtype="int64"))
    return pd.util.hash_array(ids.astype(str).to_numpy(dtype=object))


# ----------------------------------------------------------------------------------------------
# one row per input row (or per datum)
# ----------------------------------------------------------------------------------------------
def _rows(spec: Rows, frame):
    columns = list(dict.fromkeys(spec.columns))
    if spec.exclusions is not None:  # counted in one eager pass, warned about once, here
        ex = spec.exclusions
        partition_table(frame, ex.columns, ex.chunk, ex.finalize)
    meta = spec.compute(frame._meta[columns])
    if spec.key is None:
        return frame[columns].map_partitions(spec.compute, meta=meta)
    method = _shuffle_method(frame._meta[columns])
    located = shuffled_on(frame[columns], spec.key, frame.npartitions, method)
    return located.map_partitions(spec.compute, meta=meta)


register_engine(DaskEngine())
