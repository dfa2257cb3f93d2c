"""What every figure shares: matplotlib on first use, the Axes to draw on, a labelled heatmap,
the check of the table a figure draws and the choice of the value it draws."""

from __future__ import annotations

import math
from collections.abc import Sequence
from types import ModuleType

import numpy as np
import pandas as pd

from pdmetrics._optional import optional_module
from pdmetrics._validation import plain, preview
from pdmetrics.errors import InvalidInputError

__all__ = ["pyplot", "axes_for", "panel_axes", "heatmap", "check_table", "choose"]

#: The ``ax`` parameter and the Returns section of a figure drawn on one Axes, for the
#: ``{axes}`` line of its docstring (:func:`pdmetrics._docstrings.fill`); what the Axes shows
#: follows it, indented as a return description.
AXES_DOC = """
ax : matplotlib.axes.Axes, optional
    Axes to draw on; default a new figure.

Returns
-------
matplotlib.axes.Axes
"""


def pyplot() -> ModuleType:
    """``matplotlib.pyplot``, imported on first use (``pip install "pdmetrics[plot]"``)."""
    return optional_module("matplotlib.pyplot", "plot", "Plotting")


def axes_for(ax=None, figsize: tuple[float, float] = (6.4, 4.8)):
    """``ax`` itself, or the Axes of a new figure when ``ax`` is None.

    A new figure uses matplotlib's constrained layout, so long tick labels, legends and
    colour bars stay inside it; a given ``ax`` is used as it is.
    """
    if ax is not None:
        return ax
    _, ax = pyplot().subplots(figsize=figsize, layout="constrained")
    return ax


def panel_axes(ax, count: int, *, ncols: int = 3, panel_size: tuple[float, float] = (4.0, 3.6)) -> np.ndarray:
    """A flat numpy array of ``count`` Axes, one per panel of a figure.

    ``ax=None``: a new figure (constrained layout) with a grid of ``min(count, ncols)``
    columns, each panel ``panel_size`` inches; cells past ``count`` are hidden. Otherwise
    ``ax`` is any sequence (or array) of exactly ``count`` Axes, used in its order; another
    length raises :class:`~pdmetrics.errors.InvalidInputError`.
    """
    if ax is not None:
        axes = np.asarray(ax, dtype=object).ravel()
        if axes.size != count:
            raise InvalidInputError(
                f"`ax=` holds {axes.size} Axes but this figure draws {count} panel(s): pass {count} Axes "
                f"(one per panel, in order) or None."
            )
        return axes
    columns = max(min(count, ncols), 1)
    rows = max(math.ceil(count / columns), 1)
    _, grid = pyplot().subplots(
        rows,
        columns,
        figsize=(panel_size[0] * columns, panel_size[1] * rows),
        squeeze=False,
        layout="constrained",
    )
    for extra in grid.ravel()[count:]:
        extra.set_visible(False)
    return grid.ravel()[:count]


def heatmap(
    ax,
    matrix,
    row_labels,
    column_labels,
    *,
    row_title: str,
    column_title: str,
    fmt: str = "{:g}",
    cmap: str = "Blues",
    norm=None,
):
    """Draw ``matrix`` (2-D, NaN allowed) as a heatmap with every cell annotated, row labels on
    the y axis (first row at the top) and column labels on the x axis; returns ``ax``.

    Cell text is white on dark cells and black on light ones; long column labels are rotated.
    ``norm``: a matplotlib norm for a diverging ``cmap`` (light in the middle, dark at both ends).
    """
    values = np.asarray(matrix, dtype=float)
    image = ax.imshow(values, cmap=cmap, norm=norm, aspect="auto")
    ax.set_xticks(np.arange(values.shape[1]), [str(label) for label in column_labels])
    ax.set_yticks(np.arange(values.shape[0]), [str(label) for label in row_labels])
    if any(len(str(label)) > 3 for label in column_labels):
        ax.tick_params(axis="x", labelrotation=45)
    ax.set_xlabel(column_title)
    ax.set_ylabel(row_title)
    finite = values[np.isfinite(values)]
    middle = (finite.min() + finite.max()) / 2 if finite.size else 0.0
    for (row, column), value in np.ndenumerate(values):
        if not np.isnan(value):  # an infinite ratio is annotated "inf"
            if norm is not None:
                position = float(np.ma.filled(np.ma.asarray(norm(value), dtype=float), np.nan))
                dark = not np.isfinite(position) or abs(position - 0.5) > 0.3  # inf: the darkest
            else:
                dark = value > middle
            color = "white" if dark else "black"
            ax.text(column, row, fmt.format(value), ha="center", va="center", color=color, fontsize="small")
    ax.figure.colorbar(image, ax=ax)
    return ax


def check_table(table, columns: Sequence, producer: str, *, argument: str = "table") -> None:
    """Check that ``table`` is a DataFrame holding every one of ``columns``.

    Raises :class:`~pdmetrics.errors.InvalidInputError` naming ``argument``, the missing
    columns, the columns the table has and ``producer``, the pdmetrics call whose table the
    figure draws (e.g. ``"`df.scoring.evaluate(human=, system=, by=)`"``).
    """
    if not isinstance(table, pd.DataFrame):
        raise InvalidInputError(
            f"`{argument}=` must be the DataFrame that {producer} returns; got a {type(table).__name__}."
        )
    missing = [column for column in columns if column not in table.columns]
    if missing:
        raise InvalidInputError(
            f"`{argument}=` lacks the column(s) {preview(missing)} (it has {preview(list(table.columns))}): "
            f"pass the table that {producer} returns."
        )


def _same(a, b) -> bool:
    """Equal values; numbers within floating-point noise (0.9 matches COCO's 0.8999999999999999)."""
    if isinstance(a, (int, float, np.number)) and isinstance(b, (int, float, np.number)):
        return bool(np.isclose(a, b, rtol=1e-9, atol=1e-12))
    return bool(a == b)


def choose(table: pd.DataFrame, column: str, value, argument: str, *, default=None, only: bool = False):
    """The value of ``column`` a figure draws, as the table spells it.

    ``value`` given: the table's value equal to it (numbers within floating-point noise), or
    :class:`~pdmetrics.errors.InvalidInputError` naming ``argument`` and the table's values.
    ``value=None``: ``default`` when the table has it; else, with ``only=True``, the table's
    single value (an error asking for ``argument=`` when it has several), and otherwise its
    first value.
    """
    available = list(pd.unique(table[column]))
    wanted = default if value is None else value
    found = [candidate for candidate in available if _same(candidate, wanted)]
    if found:
        return found[0]
    shown = preview([round(v, 6) if isinstance(v, float) else v for v in available])
    if value is not None:
        raise InvalidInputError(
            f"`{argument}={plain(value)!r}` is not in the table's {column!r} column; pass one of {shown}."
        )
    if not available:
        raise InvalidInputError(f"The table has no {column!r} value to draw: it has no rows.")
    if only and len(available) > 1:
        raise InvalidInputError(
            f"The table holds several {column} values ({shown}); choose one with `{argument}=`."
        )
    return available[0]
