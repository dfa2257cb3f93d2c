"""States that add up field by field: the ``combine`` of most table states, written once.

A table's state (:mod:`pdmetrics._table_spec`) must combine with the state of other rows. Most
states are a few counts, arrays and smaller states side by side, and combine field by field:
:class:`Additive` gives such a dataclass its ``combine``, each field combined by
:func:`combined` unless the field's metadata names another rule (``field(metadata={"combine":
first})``: a setting every chunk shares).
"""

from __future__ import annotations

from dataclasses import fields

import pandas as pd

__all__ = ["Additive", "combined", "first"]


def combined(mine, theirs):
    """Two chunks' values of one state field, combined: a state (anything with ``combine``)
    combines, a dict combines key by key (the keys of ``mine``), a tuple item by item, a
    DataFrame of rows concatenates, ``None`` (a part the table does not use) stays None, and
    numbers and arrays add.

    Examples
    --------
    >>> import numpy as np
    >>> from pdmetrics._additive import combined
    >>> combined({"a": (1, np.array([1, 2]))}, {"a": (2, np.array([10, 20]))})
    {'a': (3, array([11, 22]))}
    """
    if mine is None:
        return None
    if isinstance(mine, pd.DataFrame):  # (a DataFrame's own ``combine`` is another thing)
        return pd.concat([mine, theirs], ignore_index=True)
    if hasattr(mine, "combine"):
        return mine.combine(theirs)
    if isinstance(mine, dict):
        return {key: combined(value, theirs[key]) for key, value in mine.items()}
    if isinstance(mine, tuple):
        return tuple(combined(a, b) for a, b in zip(mine, theirs))
    return mine + theirs


def first(mine, theirs):
    """The rule of a field every chunk holds alike (an option): the first chunk's value."""
    return mine


class Additive:
    """A dataclass state whose ``combine`` (the state of the union of two disjoint row sets)
    combines its fields one by one (:func:`combined`, or the field's ``"combine"`` metadata)."""

    def combine(self, other):
        parts = []
        for item in fields(self):
            rule = item.metadata.get("combine", combined)
            parts.append(rule(getattr(self, item.name), getattr(other, item.name)))
        return type(self)(*parts)
