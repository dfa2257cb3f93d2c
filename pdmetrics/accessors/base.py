"""What every accessor is made of: the frame, and methods that are one line over a core function.

An accessor method is declared as ``evaluate = method("pdmetrics.scoring.tables")``: the public
core function of that name in that module (made by :func:`pdmetrics._table_spec.table`) gives
its signature (without the frame), its docstring and its spec, and the method runs that spec on
the accessor's frame through the frame's engine. The module is imported the first time the
method is looked up, so ``import pdmetrics`` imports no domain. The accessor's signature is
the core function's plus the keywords the engine adds (dask's ``compute=``); nothing is written
twice, so the accessor can never lose an option of its core function.
"""

from __future__ import annotations

import importlib
import inspect

from pdmetrics._table_spec import engine_of, run_spec
from pdmetrics.errors import NotPartitionableError

__all__ = ["Accessor", "method", "namespace"]


class Accessor:
    """A domain's accessor: it holds only the frame (pandas, dask or polars).

    pandas 3 builds a new accessor object on every attribute access, so nothing is cached on it.
    """

    #: The accessor's name on a frame (``df.<domain>``).
    _domain = ""

    def __init__(self, frame) -> None:
        self._frame = frame


class method:  # noqa: N801  (a descriptor used as a decorator-like declaration)
    """The accessor method over the public core function of the same name in ``module``."""

    def __init__(self, module: str) -> None:
        self.module = module
        self.name = ""
        self._signatures: dict = {}

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def core(self):
        """The public core function (its module imported on first use)."""
        return getattr(importlib.import_module(self.module), self.name)

    def __get__(self, accessor, owner=None):
        core = self.core()
        if accessor is None:
            return self._unbound(core, owner)
        frame = accessor._frame
        engine = engine_of(frame)
        extra = {parameter.name for parameter in engine.parameters}
        name, function = self.name, f"{accessor._domain}.{self.name}"

        def call(*args, **options):
            if args:
                raise TypeError(
                    f"{name}() takes keyword arguments only (column names and options, e.g. "
                    f"`{name}(human=...)`); got {len(args)} positional argument(s)."
                )
            engine_options = {key: options.pop(key) for key in list(options) if key in extra}
            return run_spec(frame, core.spec, options, function, **engine_options)

        call.__name__ = name
        call.__qualname__ = f"{type(accessor).__name__}.{name}"
        call.__doc__ = core.__doc__
        call.__signature__ = self._signature(core, engine)
        return call

    def _signature(self, core, engine) -> inspect.Signature:
        """The core function's signature without the frame, plus the engine's keywords."""
        if engine.name not in self._signatures:
            signature = inspect.signature(core)
            parameters = list(signature.parameters.values())[1:]
            self._signatures[engine.name] = signature.replace(parameters=[*parameters, *engine.parameters])
        return self._signatures[engine.name]

    def _unbound(self, core, owner):
        name = self.name

        def unbound(self, /, **options):
            return getattr(self, name)(**options)

        unbound.__name__ = name
        unbound.__qualname__ = f"{owner.__name__}.{name}" if owner else name
        unbound.__doc__ = core.__doc__
        unbound.__module__ = owner.__module__ if owner else __name__
        signature = inspect.signature(core)
        first = inspect.Parameter("self", inspect.Parameter.POSITIONAL_ONLY)
        options = list(signature.parameters.values())[1:]
        unbound.__signature__ = signature.replace(parameters=[first, *options])
        return unbound


class namespace:  # noqa: N801
    """A namespace over the accessor's frame (``df.scoring.plot``): ``cls(frame)`` of the
    domain's figures class (``ScoringPlots`` in :mod:`pdmetrics.plotting.scoring` for the
    accessor of ``_domain = "scoring"``), imported on first use. A polars frame is handed over
    as pandas; an engine that splits the rows (dask) refuses, naming what to do instead."""

    def __init__(self, doc: str = "") -> None:
        self.__doc__ = doc
        self.module = self.name = self.attribute = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.attribute = name
        self.module = f"pdmetrics.plotting.{owner._domain}"
        self.name = f"{owner._domain.capitalize()}Plots"

    def __get__(self, accessor, owner=None):
        cls = getattr(importlib.import_module(self.module), self.name)
        if accessor is None:
            return cls
        frame = accessor._frame
        engine = engine_of(frame)
        if engine.splits_rows:
            where = f"ddf.{accessor._domain}.{self.attribute}"
            tables = sorted(
                name for name in dir(owner) if isinstance(inspect.getattr_static(owner, name), method)
            )
            raise NotPartitionableError(
                f"`{where}` does not run on {engine.name} DataFrames: compute the table first "
                f"(e.g. `ddf.{accessor._domain}.<table>(...)`, a pandas DataFrame; the tables: "
                f"{', '.join(tables)}) and draw it with the function of the same name in `{self.module}`."
            )
        return cls(engine.argument(frame))
