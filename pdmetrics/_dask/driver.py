"""The partition driver: chunk -> additive state -> combine -> finalize on a dask DataFrame.

A table that can run partition by partition is given as two functions of the core: ``chunk``
(a pandas partition -> the table's state: additive statistics, no warning) and ``finalize``
(the combined state -> the table, raising the warnings and errors about the whole data).
The driver checks the arguments on the frame's empty ``meta`` first (a wrong column name or
dtype fails before any data is read), maps ``chunk`` over the partitions, combines the states
in a tree (``state.combine(other)``; eight at a time, so no task holds many states) and
finalizes in the caller's process, so warnings reach the user's line.
"""

from __future__ import annotations

from functools import reduce

import dask
import dask.dataframe as dd
import pandas as pd

#: States combined per task of the tree reduction.
SPLIT_EVERY = 8


def partition_table(frame, columns: list, chunk, finalize, compute: bool = True):
    """The table ``finalize(combine(chunk(p) for p in partitions))`` of ``frame[columns]``.

    ``compute=False`` returns a :class:`dask.delayed.Delayed` of the table instead (for
    ``dask.compute(a, b, ...)`` over several tables in one pass); warnings then arise where
    it is computed.
    """
    columns = list(dict.fromkeys(columns))
    chunk(_meta(frame)[columns])  # the arguments and dtypes checked on no rows, before any work
    states = [dask.delayed(chunk, pure=True)(part) for part in frame[columns].to_delayed()]
    state = combined_state(states)
    if not compute:
        return dask.delayed(finalize, pure=True)(state)
    return finalize(state.compute())


def combined_state(states: list):
    """One delayed state from many, combined in a tree of :data:`SPLIT_EVERY`-way tasks."""
    while len(states) > 1:
        states = [
            dask.delayed(_combine, pure=True)(*states[i : i + SPLIT_EVERY])
            for i in range(0, len(states), SPLIT_EVERY)
        ]
    return states[0]


class Several(tuple):
    """Several states of one chunk (e.g. one per score column), combined element by element."""

    def combine(self, other: Several) -> Several:
        return Several(a.combine(b) for a, b in zip(self, other))


def is_dask_frame(value) -> bool:
    """Whether ``value`` is a dask DataFrame."""
    return isinstance(value, dd.DataFrame)


def _combine(*states):
    return reduce(lambda a, b: a.combine(b), states)


def _meta(frame) -> pd.DataFrame:
    """The frame's empty pandas DataFrame (its columns and dtypes)."""
    return frame._meta
