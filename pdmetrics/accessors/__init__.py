"""The accessors: ``df.scoring``, ``df.fairness``, ``df.detection`` and ``df.textgen``.

The top floor of the package: one class per domain, each method one line over the domain's
public core function of the same name (:class:`pdmetrics.accessors.base.method`). The same
four classes are registered on pandas DataFrames (when ``pdmetrics`` is imported), on dask
DataFrames (when dask.dataframe is imported) and on polars DataFrames and LazyFrames (when
polars is imported); the frame's engine (:mod:`pdmetrics.engines`) runs each call. Neither dask
nor polars is ever imported by ``import pdmetrics``: an import hook waits for each
(:func:`pdmetrics._import_hook.when_imported`).
"""

from __future__ import annotations

import importlib

import pandas as pd

from pdmetrics._import_hook import when_imported
from pdmetrics.accessors.detection import DetectionAccessor
from pdmetrics.accessors.fairness import FairnessAccessor
from pdmetrics.accessors.scoring import ScoringAccessor
from pdmetrics.accessors.textgen import TextgenAccessor

__all__ = ["DetectionAccessor", "FairnessAccessor", "ScoringAccessor", "TextgenAccessor", "install"]

#: The four accessors, by their name on a frame.
ACCESSORS = {
    "scoring": ScoringAccessor,
    "fairness": FairnessAccessor,
    "detection": DetectionAccessor,
    "textgen": TextgenAccessor,
}

#: The engines whose accessors are registered (registering twice would warn about overriding).
_registered: set = set()


def install() -> None:
    """Register the accessors on pandas now, on dask and polars when they are imported."""
    if "pandas" not in _registered:
        for name, accessor in ACCESSORS.items():
            pd.api.extensions.register_dataframe_accessor(name)(accessor)
        _registered.add("pandas")
    when_imported("dask.dataframe", register_dask)
    when_imported("polars", register_polars, ready=lambda polars: hasattr(polars, "api"))


def register_dask() -> None:
    """Register the accessors on dask DataFrames (and the dask engine that runs them)."""
    _register("dask", _dask_registrations)


def register_polars() -> None:
    """Register the accessors on polars DataFrames and LazyFrames (and the polars engine)."""
    _register("polars", _polars_registrations)


def _register(engine: str, registrations) -> None:
    """Import the engine module (which imports its library: only now) and register every accessor
    with each of the library's ``registrations`` (once per engine)."""
    if engine in _registered:
        return
    _registered.add(engine)
    importlib.import_module(f"pdmetrics.engines.{engine}")
    for register in registrations():
        for name, accessor in ACCESSORS.items():
            register(name)(accessor)


def _dask_registrations() -> list:
    from dask.dataframe.extensions import register_dataframe_accessor

    return [register_dataframe_accessor]


def _polars_registrations() -> list:
    import polars as pl

    return [pl.api.register_dataframe_namespace, pl.api.register_lazyframe_namespace]
