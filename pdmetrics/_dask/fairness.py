"""``ddf.fairness``: the fairness tables on dask DataFrames, partition by partition."""

from __future__ import annotations

from pdmetrics._dask.base import DaskAccessor
from pdmetrics.fairness.accessor import FairnessAccessor

__all__ = ["DaskFairnessAccessor"]


class DaskFairnessAccessor(DaskAccessor):
    """``ddf.fairness``: the fairness tables computed partition by partition."""

    _name = "fairness"
    _pandas_accessor = FairnessAccessor
