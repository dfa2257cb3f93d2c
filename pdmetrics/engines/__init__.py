"""Engines other than pandas: how an accessor's call runs on another library's frames.

The one engine here is polars (:mod:`pdmetrics.engines.polars`): ``pl_df.scoring``,
``pl_df.fairness``, ``pl_df.detection`` and ``pl_df.textgen`` forward every public method of
the pandas accessor of the same name. Importing polars takes a while, so ``import pdmetrics``
never does: it calls :func:`install`, which registers the polars namespaces at once when
polars is already imported, and otherwise when it is first imported (an import hook that only
waits for that one module). Without polars installed nothing happens. This package and
``pdmetrics._dask`` are the only places that import polars or dask.
"""

from __future__ import annotations

import importlib
import sys

from pdmetrics._import_hook import when_imported

__all__ = ["install"]

_MODULE = "polars"
_ENGINE = "pdmetrics.engines.polars"


def install() -> None:
    """Register the polars namespaces now (polars imported) or when polars is imported."""
    when_imported(_MODULE, register, ready=lambda polars: hasattr(polars, "api"))


def register() -> None:
    """Register ``scoring``, ``fairness``, ``detection`` and ``textgen`` on polars frames."""
    engine = sys.modules.get(_ENGINE)
    if engine is not None and not hasattr(engine, "register"):
        return  # the engine is being imported (it imported polars): it registers at its end
    importlib.import_module(_ENGINE).register()  # the engine imports polars: loaded only now
