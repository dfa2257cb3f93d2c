"""The accessors on dask DataFrames: ``ddf.scoring``, ``ddf.fairness``, ``ddf.detection``, ``ddf.textgen``.

Importing dask.dataframe takes more than a second, so ``import pdmetrics`` never does: it
calls :func:`install`, which registers the dask accessors at once when dask.dataframe is
already imported, and otherwise when it is first imported (an import hook that only waits
for that one module). Without dask installed nothing happens. The accessors and the
partition driver live in :mod:`pdmetrics._dask.accessors` and :mod:`pdmetrics._dask.driver`.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys

_MODULE = "dask.dataframe"
_ACCESSORS = "pdmetrics._dask.accessors"


def install() -> None:
    """Register the dask accessors now (dask.dataframe imported) or when dask.dataframe is imported."""
    if _MODULE in sys.modules:
        register()
    elif not any(isinstance(finder, _DaskFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _DaskFinder())


def register() -> None:
    """Register ``scoring``, ``fairness``, ``detection`` and ``textgen`` on dask DataFrames."""
    accessors = sys.modules.get(_ACCESSORS)
    if accessors is not None and not hasattr(accessors, "register"):
        return  # that module is being imported (it imported dask.dataframe): it registers at its end
    # the accessors module imports dask: loaded here, once dask.dataframe is imported
    importlib.import_module(_ACCESSORS).register()


class _DaskFinder(importlib.abc.MetaPathFinder):
    """Finds nothing itself: when dask.dataframe is imported, it lets the other finders
    find it and wraps the loader so the accessors are registered once the module has run."""

    def find_spec(self, fullname, path, target=None):
        if fullname != _MODULE:
            return None
        sys.meta_path.remove(self)  # once is enough
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _RegisteringLoader(spec.loader)
        return spec


class _RegisteringLoader(importlib.abc.Loader):
    """The module's own loader, which then registers the accessors."""

    def __init__(self, loader) -> None:
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        self._loader.exec_module(module)
        register()

    def __getattr__(self, name):  # get_resource_reader, is_package, ...: the real loader's
        return getattr(self._loader, name)
