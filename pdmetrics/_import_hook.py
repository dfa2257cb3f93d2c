"""Run a registration when a module is imported: at once when it already is, otherwise right
after its first import.

``import pdmetrics`` registers the accessors of dask and polars this way, so that pdmetrics
itself never imports either (each takes a second or more). The hook waits for that one module:
it finds nothing itself, lets the other finders find the module, and wraps the module's own
loader so that the registration runs once the module has run. Without the library installed
nothing happens.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Callable

__all__ = ["when_imported"]


def when_imported(module: str, register: Callable[[], None], ready: Callable = lambda module: True) -> None:
    """Call ``register()`` now if ``module`` is imported (and ``ready(module)``), else after its import."""
    loaded = sys.modules.get(module)
    if loaded is not None and ready(loaded):
        register()
    elif not any(isinstance(finder, _ImportHook) and finder.module == module for finder in sys.meta_path):
        sys.meta_path.insert(0, _ImportHook(module, register))


class _ImportHook(importlib.abc.MetaPathFinder):
    """Finds nothing itself: when ``module`` is imported, wraps the loader the other finders
    give it so that ``register`` runs once the module has run."""

    def __init__(self, module: str, register: Callable[[], None]) -> None:
        self.module = module
        self.register = register

    def find_spec(self, fullname, path, target=None):
        if fullname != self.module:
            return None
        sys.meta_path.remove(self)  # once is enough
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = _RegisteringLoader(spec.loader, self.register)
        return spec


class _RegisteringLoader(importlib.abc.Loader):
    """The module's own loader, which then calls ``register``."""

    def __init__(self, loader, register: Callable[[], None]) -> None:
        self._loader = loader
        self._register = register

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        self._loader.exec_module(module)
        self._register()

    def __getattr__(self, name):  # get_resource_reader, is_package, ...: the real loader's
        return getattr(self._loader, name)
