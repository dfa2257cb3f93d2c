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
import importlib.abc
import importlib.machinery
import sys

__all__ = ["install"]

_MODULE = "polars"
_ENGINE = "pdmetrics.engines.polars"


def install() -> None:
    """Register the polars namespaces now (polars imported) or when polars is imported."""
    if _MODULE in sys.modules and hasattr(sys.modules[_MODULE], "api"):
        register()
    elif not any(isinstance(finder, _ImportHook) for finder in sys.meta_path):
        sys.meta_path.insert(0, _ImportHook())


def register() -> None:
    """Register ``scoring``, ``fairness``, ``detection`` and ``textgen`` on polars frames."""
    engine = sys.modules.get(_ENGINE)
    if engine is not None and not hasattr(engine, "register"):
        return  # the engine is being imported (it imported polars): it registers at its end
    importlib.import_module(_ENGINE).register()  # the engine imports polars: loaded only now


class _ImportHook(importlib.abc.MetaPathFinder):
    """Finds nothing itself: when polars is imported, it lets the other finders find it and
    wraps the loader so the namespaces are registered once the module has run."""

    def find_spec(self, fullname, path, target=None):
        if fullname != _MODULE:
            return None
        sys.meta_path.remove(self)  # once is enough
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _RegisteringLoader(spec.loader)
        return spec


class _RegisteringLoader(importlib.abc.Loader):
    """The module's own loader, which then registers the namespaces."""

    def __init__(self, loader) -> None:
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        self._loader.exec_module(module)
        register()

    def __getattr__(self, name):  # get_resource_reader, is_package, ...: the real loader's
        return getattr(self._loader, name)
