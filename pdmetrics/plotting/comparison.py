"""The forest plot of a comparison table (``df.<domain>.plot.compare``).

Every accessor's ``compare`` returns the same layout (:mod:`pdmetrics._comparison`): one row per
metric, pair of systems and unit (a group, a label). :func:`compare` draws one panel per metric
(the metrics have their own scales: a correlation, a percentage, an RMSE), a row per pair and
unit with the difference ``system - baseline`` and its interval, the zero line, and — when a
``tolerance`` is given — the band of differences too small to act on.
"""

from __future__ import annotations

import importlib

import numpy as np
import pandas as pd

from pdmetrics._comparison import COLUMNS
from pdmetrics._validation import plain
from pdmetrics.errors import InvalidInputError
from pdmetrics.plotting.axes import check_table, panel_axes

__all__ = ["compare", "comparison_method"]

#: Significant rows (adjusted p below this) are drawn filled, the others hollow.
ALPHA = 0.05


def compare(table: pd.DataFrame, *, metrics=None, tolerance=None, alpha: float = ALPHA, ax=None):
    """Forest plot of a comparison table: each difference with its interval, per metric.

    Parameters
    ----------
    table : pandas.DataFrame
        The table of a ``compare`` method (``df.scoring.compare``, ``df.fairness.compare``,
        ``df.detection.compare``, ``df.textgen.compare``).
    metrics : str or list of str, optional
        The metrics to draw, one panel each (default: every metric of the table, in its order).
    tolerance : float or dict, optional
        The smallest difference worth acting on (one number, or metric -> number): a shaded
        band ``[-tolerance, tolerance]`` around 0. An interval inside the band says the systems
        are equivalent for practical purposes; one outside it, that the difference matters.
    alpha : float, default 0.05
        Rows whose ``p_adjusted`` is below it are drawn filled, the others hollow.
    ax : matplotlib.axes.Axes or sequence of Axes, optional
        One Axes per panel (metric), or None for a new figure.

    Returns
    -------
    numpy.ndarray of matplotlib.axes.Axes
        One panel per metric: a row per pair of systems (and group or label), the difference as
        a point, its interval as a line, a dashed line at 0.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import pdmetrics
    >>> from pdmetrics.plotting.comparison import compare
    >>> rng = np.random.default_rng(0)
    >>> human = rng.integers(1, 7, 400).astype(float)
    >>> df = pd.DataFrame({"sc1": human, "old": human + rng.normal(0, 1, 400),
    ...                    "new": human + rng.normal(0, 0.8, 400)})
    >>> table = df.scoring.compare(human="sc1", system=["old", "new"], n_resamples=200)
    >>> axes = compare(table, metrics=["corr", "RMSE"], tolerance={"corr": 0.02, "RMSE": 0.05})
    >>> [a.get_title() for a in axes]
    ['corr', 'RMSE']
    """
    check_table(table, COLUMNS, "a `compare` method (e.g. `df.scoring.compare(...)`)")
    available = list(dict.fromkeys(table["metric"]))
    chosen = available if metrics is None else ([metrics] if isinstance(metrics, str) else list(metrics))
    unknown = [m for m in chosen if m not in available]
    if unknown or not chosen:
        raise InvalidInputError(
            f"`metrics={plain(metrics)!r}` names no metric of the table; choose from {available}."
        )
    tolerances = _tolerances(tolerance, chosen)
    identifiers = list(table.columns[: list(table.columns).index("metric")])
    rows = int(table["metric"].isin(chosen).groupby(table["metric"]).sum().max())  # the tallest panel's rows
    axes = panel_axes(
        ax, len(chosen), ncols=min(len(chosen), 4), panel_size=(3.6, max(1.8, 0.7 + 0.35 * rows))
    )
    for axis, metric in zip(axes, chosen):
        rows = table[table["metric"] == metric].reset_index(drop=True)
        _draw_panel(axis, rows, identifiers, tolerances.get(metric), alpha)
        axis.set_title(str(metric))
    return axes


def _tolerances(tolerance, metrics: list) -> dict:
    if tolerance is None:
        return {}
    if isinstance(tolerance, dict):
        values = tolerance
    else:
        values = dict.fromkeys(metrics, tolerance)
    for metric, value in values.items():
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or not value >= 0:
            raise InvalidInputError(
                f"`tolerance=` must be a non-negative number (or metric -> number); got {plain(value)!r} "
                f"for {metric!r}."
            )
    return {metric: float(value) for metric, value in values.items()}


def _labels(rows: pd.DataFrame, identifiers: list) -> list[str]:
    """Each row's label: the identifiers that vary among the rows (a constant ``by`` column
    says nothing), then ``system − baseline``."""
    shown = [name for name in identifiers if rows[name].nunique(dropna=False) > 1]
    parts = [rows[name].astype(str) for name in shown] + [
        rows["system"].astype(str) + " − " + rows["baseline"].astype(str)
    ]
    return [" · ".join(values) for values in zip(*parts)]


def _draw_panel(ax, rows: pd.DataFrame, identifiers: list, tolerance, alpha: float) -> None:
    y = np.arange(len(rows))[::-1]
    difference = rows["difference"].to_numpy(dtype="float64")
    low = rows["ci_low"].to_numpy(dtype="float64")
    high = rows["ci_high"].to_numpy(dtype="float64")
    significant = rows["p_adjusted"].to_numpy(dtype="float64") < alpha
    if tolerance:
        ax.axvspan(-tolerance, tolerance, color="0.9", zorder=0, label=f"±{tolerance:g}")
    ax.axvline(0.0, color="0.4", linestyle="--", linewidth=1)
    ax.hlines(y, low, high, color="C0", linewidth=2)
    ax.scatter(difference[significant], y[significant], color="C0", zorder=3)
    ax.scatter(difference[~significant], y[~significant], facecolor="white", edgecolor="C0", zorder=3)
    ax.set_yticks(y, _labels(rows, identifiers))
    ax.set_xlabel("difference (system − baseline)")


def comparison_method(module: str):
    """The ``compare`` method of a domain's plot namespace (``df.<domain>.plot.compare``): the
    ``compare`` table of ``module`` computed on the frame with the caller's keywords, then
    drawn by :func:`compare` (its ``metrics``, ``tolerance``, ``alpha`` and ``ax``)."""

    def compare_method(self, *, metrics=None, tolerance=None, alpha: float = ALPHA, ax=None, **options):
        table = importlib.import_module(module).compare(self._frame, **options)
        return compare(table, metrics=metrics, tolerance=tolerance, alpha=alpha, ax=ax)

    compare_method.__name__ = compare_method.__qualname__ = "compare"
    compare_method.__doc__ = (
        f"Forest plot of ``{module}.compare`` on the frame: its keywords, then those of "
        f":func:`pdmetrics.plotting.comparison.compare` (``metrics``, ``tolerance``, ``alpha``, ``ax``)."
    )
    return compare_method
