"""Docstring text shared by several functions: written once, filled in where it stands.

A docstring names a shared piece as ``{name}`` on a line of its own; :func:`fill` puts the
piece there, each of its lines indented as the ``{name}`` line is. Only the names given are
replaced, so other braces in the docstring (dict literals in examples) are left alone.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable

__all__ = ["fill"]


def fill(**pieces: str) -> Callable:
    """A decorator that replaces ``{name}`` in the function's docstring by ``pieces[name]``.

    Put it under ``@table`` (and any other decorator that copies the docstring)."""

    def decorate(function: Callable) -> Callable:
        doc = function.__doc__
        for name, text in pieces.items():
            place = re.compile(r"^( *)\{" + name + r"\}$", re.MULTILINE)
            if not place.search(doc):
                raise ValueError(f"{function.__qualname__}'s docstring has no {{{name}}} line")
            lines = textwrap.dedent(text).strip("\n")
            doc = place.sub(lambda found, lines=lines: textwrap.indent(lines, found.group(1)), doc)
        function.__doc__ = doc
        return function

    return decorate
