"""Wrappers that live in the module of the function they wrap.

A decorator's wrapper is defined in the decorator's module, so :mod:`doctest` (which collects a
module's functions by their globals) would skip the Examples of every decorated function.
:func:`in_module_of` makes the wrapper a function of the wrapped one's module instead.
"""

from __future__ import annotations

import functools
import inspect
import types
from collections.abc import Callable

__all__ = ["in_module_of"]


def in_module_of(wrapped: Callable, wrapper: Callable) -> Callable:
    """``wrapper`` (a closure that reads no global of its own module) as a function of the module
    of ``wrapped``, with its name, docstring and signature (``functools.update_wrapper``)."""
    home = inspect.unwrap(wrapped).__globals__
    code, closure = wrapper.__code__, wrapper.__closure__
    moved = types.FunctionType(code, home, wrapped.__name__, wrapper.__defaults__, closure)
    moved.__kwdefaults__ = wrapper.__kwdefaults__
    return functools.update_wrapper(moved, wrapped)
