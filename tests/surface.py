"""The accessors' surface on every engine: frames of each engine and their bound methods.

Shared by the tests of the one surface (``test_one_surface.py``) and of the one vocabulary
(``test_vocabulary.py``).
"""

from __future__ import annotations

import inspect

import pandas as pd
import pytest

import pdmetrics  # noqa: F401  (registers the accessors)
from pdmetrics.accessors import ACCESSORS

DOMAINS = tuple(ACCESSORS)
ENGINES = ("pandas", "dask", "polars")


def frame_of(engine: str):
    """A one-row frame of ``engine`` (skips when the library is not installed)."""
    frame = pd.DataFrame({"x": [1.0]})
    if engine == "dask":
        dd = pytest.importorskip("dask.dataframe")
        return dd.from_pandas(frame, npartitions=1)
    if engine == "polars":
        pl = pytest.importorskip("polars")
        return pl.from_pandas(frame)
    return frame


def method_names(domain: str) -> list:
    """The public methods of the accessor ``domain`` (its ``plot`` namespace aside)."""
    accessor = ACCESSORS[domain]
    return sorted(
        name
        for name in dir(accessor)
        if not name.startswith("_") and name != "plot" and callable(getattr(accessor, name))
    )


def bound_methods(engine: str) -> list:
    """``(where, bound method)`` of every accessor method on a frame of ``engine``."""
    frame = frame_of(engine)
    return [
        (f"{engine} df.{domain}.{name}", getattr(getattr(frame, domain), name))
        for domain in DOMAINS
        for name in method_names(domain)
    ]


def parameters(function) -> list:
    """``(name, kind, default)`` of each parameter of ``function``."""
    return [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]
