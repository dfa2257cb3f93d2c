"""Wrappers that live in the module of the function they wrap.

A decorator's wrapper is defined in the decorator's module, so :mod:`doctest` (which collects a
module's functions by their globals) would skip the Examples of every decorated function.
:func:`in_module_of` makes the wrapper a function of the wrapped one's module instead;
:func:`keyword_group` is such a decorator: keyword arguments several builders share, written once.
"""

from __future__ import annotations

import functools
import inspect
import types
from collections.abc import Callable

__all__ = ["in_module_of", "keyword_group"]


def in_module_of(wrapped: Callable, wrapper: Callable) -> Callable:
    """``wrapper`` (a closure that reads no global of its own module) as a function of the module
    of ``wrapped``, with its name, docstring and signature (``functools.update_wrapper``)."""
    home = inspect.unwrap(wrapped).__globals__
    code, closure = wrapper.__code__, wrapper.__closure__
    moved = types.FunctionType(code, home, wrapped.__name__, wrapper.__defaults__, closure)
    moved.__kwdefaults__ = wrapper.__kwdefaults__
    return functools.update_wrapper(moved, wrapped)


def keyword_group(name: str, gather: Callable) -> Callable:
    """A decorator: the builder's keyword ``name`` stands for the keyword-only arguments of ``gather``.

    The public signature lists ``gather``'s arguments (with their defaults and annotations) in the
    place of ``name``; a call's values of them go to ``gather``, and what it returns reaches the
    builder as ``name``. An unknown keyword (``name`` too), then a missing one, raises Python's
    usual ``TypeError`` naming the builder.

    Examples
    --------
    >>> import inspect
    >>> from pdmetrics._wrappers import keyword_group
    >>> def columns(*, y_true, y_pred="pred"):
    ...     return (y_true, y_pred)
    >>> @keyword_group("labels", columns)
    ... def rates(frame, *, labels, top=1):
    ...     return labels, top
    >>> str(inspect.signature(rates))
    "(frame, *, y_true, y_pred='pred', top=1)"
    >>> rates(None, y_true="y", top=2)
    (('y', 'pred'), 2)
    >>> rates(None, y_true="y", labels=1)
    Traceback (most recent call last):
    TypeError: rates() got an unexpected keyword argument 'labels'
    >>> rates(None, top=2)
    Traceback (most recent call last):
    TypeError: rates() missing 1 required keyword-only argument: 'y_true'
    """
    shared = list(inspect.signature(gather).parameters.values())
    names = [item.name for item in shared]

    def decorate(builder: Callable) -> Callable:
        signature = inspect.signature(builder)
        parameters = []
        for item in signature.parameters.values():
            parameters.extend(shared if item.name == name else [item])
        known = {item.name for item in parameters}
        code, closure = gather.__code__, gather.__closure__
        named = types.FunctionType(code, gather.__globals__, builder.__name__, None, closure)
        named.__kwdefaults__ = gather.__kwdefaults__
        named.__qualname__ = builder.__qualname__  # Python's message of a missing keyword names it

        def wrapper(frame, /, **options):
            for key in options:  # first, as Python refuses an unknown keyword before a missing one
                if key not in known:
                    raise TypeError(f"{builder.__qualname__}() got an unexpected keyword argument {key!r}")
            options[name] = named(**{key: options.pop(key) for key in names if key in options})
            return builder(frame, **options)

        public = in_module_of(builder, wrapper)
        public.__signature__ = signature.replace(parameters=parameters)
        del public.__wrapped__
        return public

    return decorate
