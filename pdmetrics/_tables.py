"""Building result tables: tidy, fixed column order, RangeIndex."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd


def result_table(
    columns: Mapping[str, object], order: Sequence[str] | None = None, integer_columns: Sequence[str] = ()
) -> pd.DataFrame:
    """Assemble a result table from a mapping of column name -> values.

    ``order`` fixes the column order (default: the mapping's order); the index is a fresh
    RangeIndex; ``integer_columns`` (counts) are stored as int64.
    """
    order = list(columns) if order is None else list(order)
    table = pd.DataFrame({name: columns[name] for name in order})
    for name in integer_columns:
        if name in table.columns:
            table[name] = np.asarray(table[name], dtype="int64")
    table.index = pd.RangeIndex(len(table))
    return table


def attach_info(table: pd.DataFrame, **info) -> pd.DataFrame:
    """Record provenance (rows used and left out, options) in ``table.attrs['pdmetrics']``."""
    table.attrs["pdmetrics"] = dict(info)
    return table
