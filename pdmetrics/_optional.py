"""Optional dependencies: import one on first use, or say which extra installs it."""

from __future__ import annotations

import importlib
from types import ModuleType

from pdmetrics.errors import MissingDependencyError

__all__ = ["optional_module"]


def optional_module(name: str, extra: str, purpose: str) -> ModuleType:
    """Import ``name``; if it is missing, raise :class:`MissingDependencyError` naming the
    ``pip install "pdmetrics[<extra>]"`` command.

    >>> optional_module("json", "plot", "Reading JSON").__name__
    'json'
    >>> optional_module("nosuchmod", "plot", "Plotting")
    Traceback (most recent call last):
    ...
    pdmetrics.errors.MissingDependencyError: Plotting needs nosuchmod, ...: pip install "pdmetrics[plot]"
    """
    try:
        return importlib.import_module(name)
    except ImportError as error:
        root = name.split(".")[0]
        raise MissingDependencyError(
            f'{purpose} needs {root}, which is not installed: pip install "pdmetrics[{extra}]"'
        ) from error
