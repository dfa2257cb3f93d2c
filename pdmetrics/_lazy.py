"""Package attributes loaded on first use (PEP 562), so that ``import pdmetrics`` stays light.

A package lists which module defines each of its public names; :func:`lazy_attributes`
returns the module-level ``__getattr__`` and ``__dir__`` that import that module the first
time the name is looked up (and any submodule when it is reached as an attribute, e.g.
``pdmetrics.plotting.scoring``). Nothing changes for the user: ``pdmetrics.detection.evaluate``
and ``from pdmetrics.detection import evaluate`` work as before.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping


def lazy_attributes(package: str, where: Mapping[str, str]) -> tuple[Callable, Callable, list]:
    """``(__getattr__, __dir__, __all__)`` for ``package``: ``where`` maps each public name to the
    module (full dotted name) that defines it."""

    def __getattr__(name: str):
        namespace = sys.modules[package].__dict__
        if name in where:
            value = getattr(importlib.import_module(where[name]), name)
            namespace[name] = value  # looked up once
            return value
        if not name.startswith("__"):
            try:
                return importlib.import_module(f"{package}.{name}")
            except ModuleNotFoundError as error:
                if error.name != f"{package}.{name}":
                    raise
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(set(sys.modules[package].__dict__) | set(where))

    return __getattr__, __dir__, list(where)
