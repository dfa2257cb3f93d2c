"""``ddf.detection``: the detection tables on dask DataFrames, partition by partition."""

from __future__ import annotations

from pdmetrics._dask.base import DaskAccessor
from pdmetrics.detection.accessor import DetectionAccessor

__all__ = ["DaskDetectionAccessor"]


class DaskDetectionAccessor(DaskAccessor):
    """``ddf.detection``: the detection tables computed partition by partition."""

    _name = "detection"
    _pandas_accessor = DetectionAccessor
