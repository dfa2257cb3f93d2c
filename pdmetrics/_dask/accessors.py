"""Registration of ``ddf.scoring``, ``ddf.fairness``, ``ddf.detection`` and ``ddf.textgen`` on dask
DataFrames.

Each method checks its column names on the frame's meta, then runs the core's table state
partition by partition through :func:`pdmetrics._dask.driver.partition_table`: the same
functions as the pandas accessor, with one chunk per partition. Results are ordinary pandas
DataFrames (``compute=False``: a dask Delayed of one). A method of the pandas accessor that
does not run partition by partition raises :class:`pdmetrics.errors.NotPartitionableError`
saying so and what to do. One module per accessor: :mod:`pdmetrics._dask.scoring`,
:mod:`pdmetrics._dask.fairness`, :mod:`pdmetrics._dask.detection`, :mod:`pdmetrics._dask.textgen`.
"""

from __future__ import annotations

from dask.dataframe.extensions import register_dataframe_accessor

from pdmetrics._dask.detection import DaskDetectionAccessor
from pdmetrics._dask.fairness import DaskFairnessAccessor
from pdmetrics._dask.scoring import DaskScoringAccessor
from pdmetrics._dask.textgen import DaskTextgenAccessor

__all__ = ["register"]


#: Whether the accessors are registered (registering twice would warn about overriding).
_registered: list = []


def register() -> None:
    """Register the four accessors on dask DataFrames (dask's own registration), once."""
    if _registered:
        return
    for accessor in (DaskScoringAccessor, DaskFairnessAccessor, DaskDetectionAccessor, DaskTextgenAccessor):
        register_dataframe_accessor(accessor._name)(accessor)
    _registered.append(True)


register()  # importing this module registers them (it imports dask.dataframe)
