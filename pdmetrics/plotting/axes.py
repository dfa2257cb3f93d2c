"""What every figure shares: matplotlib on first use, the Axes to draw on, a labelled heatmap."""

from __future__ import annotations

from types import ModuleType

import numpy as np

from pdmetrics._optional import optional_module

__all__ = ["pyplot", "axes_for", "heatmap"]


def pyplot() -> ModuleType:
    """``matplotlib.pyplot``, imported on first use (``pip install "pdmetrics[plot]"``)."""
    return optional_module("matplotlib.pyplot", "plot", "Plotting")


def axes_for(ax=None, figsize: tuple[float, float] = (6.4, 4.8)):
    """``ax`` itself, or the Axes of a new figure when ``ax`` is None."""
    if ax is not None:
        return ax
    _, ax = pyplot().subplots(figsize=figsize)
    return ax


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
):
    """Draw ``matrix`` (2-D, NaN allowed) as a heatmap with every cell annotated, row labels on
    the y axis (first row at the top) and column labels on the x axis; returns ``ax``.

    Cell text is white on dark cells and black on light ones; long column labels are rotated.
    """
    values = np.asarray(matrix, dtype=float)
    image = ax.imshow(values, cmap=cmap, aspect="auto")
    ax.set_xticks(np.arange(values.shape[1]), [str(label) for label in column_labels])
    ax.set_yticks(np.arange(values.shape[0]), [str(label) for label in row_labels])
    if any(len(str(label)) > 3 for label in column_labels):
        ax.tick_params(axis="x", labelrotation=45)
    ax.set_xlabel(column_title)
    ax.set_ylabel(row_title)
    finite = values[np.isfinite(values)]
    middle = (finite.min() + finite.max()) / 2 if finite.size else 0.0
    for (row, column), value in np.ndenumerate(values):
        if np.isfinite(value):
            color = "white" if value > middle else "black"
            ax.text(column, row, fmt.format(value), ha="center", va="center", color=color, fontsize="small")
    ax.figure.colorbar(image, ax=ax)
    return ax
