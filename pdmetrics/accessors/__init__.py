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


def _engine_class(name: str, accessor: type, engine: str):
    """The class registered on ``engine``: the accessor itself, unless its module names another
    (``"module:attribute"``: a class, or a function of the accessor and its name that makes
    one), which is then looked up when the first frame asks for it."""
    other = getattr(importlib.import_module(accessor.__module__), "ENGINES", {}).get(engine)
    if other is None:
        return accessor

    def resolved():
        module, _, attribute = other.partition(":")
        found = getattr(importlib.import_module(module), attribute)
        return found if isinstance(found, type) else found(accessor, name)

    class Namespace:
        def __new__(cls, frame):
            return resolved()(frame)

    Namespace.__doc__ = accessor.__doc__
    return Namespace


def register_dask() -> None:
    """Register the accessors on dask DataFrames (and the dask engine that runs them)."""
    if "dask" in _registered:
        return
    _registered.add("dask")
    importlib.import_module("pdmetrics.engines.dask")  # imports dask: only now
    from dask.dataframe.extensions import register_dataframe_accessor

    for name, accessor in ACCESSORS.items():
        register_dataframe_accessor(name)(_engine_class(name, accessor, "dask"))


def register_polars() -> None:
    """Register the accessors on polars DataFrames and LazyFrames (and the polars engine)."""
    if "polars" in _registered:
        return
    _registered.add("polars")
    importlib.import_module("pdmetrics.engines.polars")  # imports polars: only now
    import polars as pl

    for name, accessor in ACCESSORS.items():
        namespace = _engine_class(name, accessor, "polars")
        pl.api.register_dataframe_namespace(name)(namespace)
        pl.api.register_lazyframe_namespace(name)(namespace)
