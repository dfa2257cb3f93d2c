"""Figures of the fairness tables: per-group rates with a disparity band, and the parity metrics.

The drawing functions take the tables of :func:`pdmetrics.fairness.by_group`,
:func:`pdmetrics.fairness.classification` (with ``classes=``: :func:`class_gaps`),
:func:`pdmetrics.fairness.group_disparity`, :func:`pdmetrics.fairness.gap_tests` (a forest plot),
:func:`pdmetrics.fairness.score_distributions` (``table="cdf"`` and ``table="reliability"``) and
:func:`pdmetrics.fairness.inequality` (the between- and within-group decomposition);
``df.fairness.plot.<name>(...)`` (:class:`FairnessPlots`) computes the table from a frame and
draws it in one call.

The shaded "fair" ranges are conventions, not law or a statistical test: a ratio between
0.8 and 1.25 echoes the four-fifths rule of the US Uniform Guidelines on Employee Selection
Procedures (1978; a selection rate under 4/5 of the highest group's is taken as evidence of
adverse impact) and its reciprocal; a difference within 0.1 of the fair value is the range
commonly read as fair in AIF360's tutorials. Pass other limits to draw others.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from pdmetrics._docstrings import fill
from pdmetrics._groups import POOLED_LABEL
from pdmetrics._validation import plain, preview
from pdmetrics.errors import InvalidInputError
from pdmetrics.fairness.confusion import CELLS, rates_from_counts
from pdmetrics.fairness.group_rates import RATES
from pdmetrics.fairness.multiclass import CLASS, MACRO
from pdmetrics.fairness.parity import FAIRNESS_METRICS
from pdmetrics.plotting.axes import AXES_DOC, axes_for, check_table, heatmap, panel_axes, pyplot
from pdmetrics.plotting.comparison import comparison_method

__all__ = [
    "FOUR_FIFTHS",
    "DIFFERENCE_TOLERANCE",
    "by_group",
    "class_gaps",
    "classification",
    "gap_tests",
    "group_disparity",
    "inequality",
    "reliability",
    "score_cdf",
    "FairnessPlots",
]

#: Default ratio band: the four-fifths rule (0.8) and its reciprocal (1.25).
FOUR_FIFTHS = (0.8, 1.25)
#: Default difference band: ``|difference| <= 0.1`` around the fair value 0.
DIFFERENCE_TOLERANCE = 0.1
#: Parity metrics that are ratios (fair value 1); the others are differences (fair value 0).
_RATIO_METRICS = ("disparate_impact",)
_INSIDE, _OUTSIDE, _BAND = "C0", "C3", "0.85"
#: Colours of the rows of a parity figure (red, C3, is kept for values outside the band).
_SERIES = ("C0", "C1", "C2", "C4", "C5", "C6", "C7", "C8", "C9")

#: The frame the examples of the rate and parity figures draw: binary truth and prediction,
#: two groups of three (for the ``{example_frame}`` line of a docstring, :func:`pdmetrics._docstrings.fill`).
_EXAMPLE_FRAME = """
>>> import pandas as pd
>>> import pdmetrics
>>> df = pd.DataFrame({"y": [1, 0, 1, 1, 0, 0], "pred": [1, 0, 0, 1, 1, 0],
...                    "sex": ["F", "F", "F", "M", "M", "M"]})
"""


def _names(value, argument: str, choices: Sequence[str]) -> list[str]:
    names = [value] if isinstance(value, str) else list(value)
    unknown = [name for name in names if name not in choices]
    if not names or unknown:
        raise InvalidInputError(
            f"`{argument}={plain(value)!r}`: choose one or more of {preview(list(choices))}."
        )
    return names


def _ratio_band(band, argument: str) -> tuple[float, float] | None:
    if band is None:
        return None
    try:
        low, high = (float(value) for value in band)
    except (TypeError, ValueError):
        low = high = math.nan
    if not (0 < low <= 1 <= high < math.inf):
        raise InvalidInputError(
            f"`{argument}={plain(band)!r}`: pass (low, high) with 0 < low <= 1 <= high (e.g. (0.8, 1.25), "
            f"the four-fifths rule and its reciprocal), or None for no band."
        )
    return low, high


def _difference_band(band, argument: str) -> tuple[float, float] | None:
    if band is None:
        return None
    if (
        isinstance(band, (bool, np.bool_))
        or not isinstance(band, (int, float, np.number))
        or not (math.isfinite(band) and band > 0)
    ):
        raise InvalidInputError(
            f"`{argument}={plain(band)!r}`: pass a positive tolerance (e.g. 0.1 for |difference| <= 0.1), "
            f"or None for no band."
        )
    return -float(band), float(band)


def _band_limits(band, reference: float) -> tuple[float, float] | None:
    """The shaded range around ``reference``: (low, high) ratios, or a difference tolerance."""
    if band is None:
        return None
    if isinstance(band, (int, float, np.number)) and not isinstance(band, (bool, np.bool_)):
        low, high = _difference_band(band, "band")
        return reference + low, reference + high
    low, high = _ratio_band(band, "band")
    return reference * low, reference * high


def _band_label(band) -> str:
    if isinstance(band, (int, float, np.number)):
        return f"reference ± {float(band):g}"
    low, high = band
    return f"{float(low):g}-{float(high):g} × reference"


def _group_labels(table: pd.DataFrame, columns: list) -> list[str]:
    values = table[columns].astype(object).to_numpy()
    return [", ".join(str(value) for value in row) for row in values]


def _error_bars(table: pd.DataFrame, metric: str, values: np.ndarray) -> np.ndarray | None:
    """Distances from each value to its interval ends, when the table has the interval."""
    low, high = f"{metric}_low", f"{metric}_high"
    if low not in table.columns or high not in table.columns:
        return None
    lows = table[low].to_numpy(dtype="float64")
    highs = table[high].to_numpy(dtype="float64")
    return np.vstack([np.clip(values - lows, 0, None), np.clip(highs - values, 0, None)])


@fill(example_frame=_EXAMPLE_FRAME)
def by_group(table: pd.DataFrame, *, metrics="selection_rate", reference=None, band=FOUR_FIFTHS, ax=None):
    """Per-group rates as bars, the pooled rate as a line and the disparity band, as fairlearn's bar plots.

    Draws one bar per group (with the bootstrap interval as an error bar when the table has
    ``<metric>_low``/``<metric>_high``, i.e. ``n_resamples`` was given), a dashed horizontal line at
    the pooled rate (label ``"(all)"``: the rate of the summed confusion counts of the groups,
    so rows without a group are not in it), and a shaded band: the range of rates accepted as
    close enough to the reference. Bars whose rate is outside the band are drawn in red.

    Parameters
    ----------
    table : pandas.DataFrame
        The table of :func:`pdmetrics.fairness.by_group` (``df.fairness.by_group``): group
        columns, ``N, TP, FP, FN, TN`` and the rates.
    metrics : str or list of str, default "selection_rate"
        The rate(s) to draw: one of ``selection_rate, tpr, fpr, tnr, fnr, accuracy,
        precision, recall``. A list draws one panel per rate.
    reference : optional
        The rate the band is built around: ``None`` (default) the pooled rate; or a group's
        label (a tuple of values for intersections) to compare with that group, e.g. the
        group with the highest selection rate for the four-fifths rule.
    band : (float, float), float or None, default (0.8, 1.25)
        ``(low, high)``: the band is ``[low, high] x reference`` (default: the four-fifths
        rule and its reciprocal); a number ``d``: the band is ``reference ± d`` (a difference
        tolerance, e.g. 0.1); ``None``: no band. The band is clipped to [0, 1]. A convention
        for reading the figure, not a test.
    ax : matplotlib.axes.Axes or sequence of Axes, optional
        Where to draw (one Axes per metric); default a new figure.

    Returns
    -------
    matplotlib.axes.Axes or numpy.ndarray of Axes
        The Axes when ``metrics`` is one name; an array of one Axes per metric for a list.

    Examples
    --------
    {example_frame}
    >>> from pdmetrics.plotting.fairness import by_group
    >>> ax = by_group(df.fairness.by_group(y_true="y", y_pred="pred", by="sex"), metrics="selection_rate")
    >>> [round(float(bar.get_height()), 3) for bar in ax.containers[0]]
    [0.333, 0.667]
    """
    check_table(table, ["N", *CELLS], "`df.fairness.by_group(...)` (pdmetrics.fairness.by_group)")
    names = _names(metrics, "metrics", [name for name in RATES if name in table.columns])
    group_columns = list(table.columns[: table.columns.get_loc("N")])
    if not group_columns:
        raise InvalidInputError(
            "`table=` has no group column before `N`: pass the table that `df.fairness.by_group(...)` "
            "returns."
        )
    labels = _group_labels(table, group_columns)
    pooled = rates_from_counts(table[list(CELLS)].to_numpy(dtype="int64").sum(axis=0))
    if reference is not None:
        key = reference if isinstance(reference, tuple) else (reference,)
        same = len(key) == len(group_columns)
        if same:  # the rows whose group columns equal the key, in one comparison
            same = table[group_columns].eq(pd.Series(key, index=group_columns)).all(axis=1).to_numpy()
        matches = np.flatnonzero(same)
        if len(matches) == 0:
            raise InvalidInputError(
                f"`reference={plain(reference)!r}` is not a group of the table; its groups are "
                f"{preview(labels)} (pass a tuple for intersections), or None for the pooled rate."
            )
    axes = (
        np.array([axes_for(ax, (4.8, 3.6))])
        if isinstance(metrics, str)
        else panel_axes(ax, len(names), panel_size=(4.8, 3.6))
    )
    positions = np.arange(len(labels))
    for panel, metric in zip(axes, names):
        values = table[metric].to_numpy(dtype="float64")
        overall = float(pooled[metric])
        centre = overall if reference is None else float(values[matches[0]])
        limits = None if not math.isfinite(centre) else _band_limits(band, centre)
        if limits is not None:
            low, high = max(limits[0], 0.0), min(limits[1], 1.0)
            panel.axhspan(low, high, color=_BAND, zorder=0, label=_band_label(band), gid="band")
            outside = (values < low) | (values > high)
        else:
            outside = np.zeros(values.size, dtype=bool)
        colors = [_OUTSIDE if flag else _INSIDE for flag in outside]
        errors = _error_bars(table, metric, values)
        panel.bar(
            positions, values, color=colors, yerr=errors, capsize=4 if errors is not None else 0, zorder=2
        )
        panel.set_xticks(positions, labels)
        if math.isfinite(overall):
            panel.axhline(overall, color="black", linestyle="--", linewidth=1, label=POOLED_LABEL, zorder=3)
        panel.set_title(metric)
        panel.set_xlabel(", ".join(str(column) for column in group_columns))
        panel.set_ylabel("rate")
        panel.set_ylim(0, 1.05)
        if len(labels) > 4 or any(len(label) > 8 for label in labels):
            panel.tick_params(axis="x", labelrotation=45)
        panel.legend(fontsize="small", loc="upper right")
    return axes[0] if isinstance(metrics, str) else axes


def _parity_bars(ax, metrics: list[str], series: list, fair: list[float], bands: list):
    """Horizontal bars from each metric's fair value to its value, one bar per series and metric.

    ``series`` holds ``(label, values, errors)`` per series (``errors``: a 2 x metrics array of
    distances to the interval ends, or None). Each metric gets its fair value as a short black
    line and its band (``(low, high)`` or None) shaded; a value outside the band is hatched
    and edged in red; an infinite value is written as text instead of a bar.
    """
    height = 0.8 / len(series)
    for i, (centre, limits) in enumerate(zip(fair, bands)):
        if limits is not None:
            ax.fill_betweenx([i - 0.45, i + 0.45], limits[0], limits[1], color=_BAND, zorder=0, gid="band")
        ax.plot([centre, centre], [i - 0.45, i + 0.45], color="black", linewidth=1, zorder=3, gid="fair")
    for j, (label, values, errors) in enumerate(series):
        values = np.asarray(values, dtype="float64")
        finite = np.where(np.isfinite(values), values, np.nan)
        positions = np.arange(len(metrics)) - 0.4 + height * (j + 0.5)
        bars = ax.barh(
            positions,
            finite - np.asarray(fair),
            left=fair,
            height=height,
            color=_SERIES[j % len(_SERIES)],
            xerr=errors,
            capsize=3 if errors is not None else 0,
            label=str(label),
            zorder=2,
        )
        for bar, value, limits, position, centre in zip(bars, values, bands, positions, fair):
            if limits is not None and not np.isnan(value) and not limits[0] <= value <= limits[1]:
                bar.set_hatch("//")
                bar.set_edgecolor(_OUTSIDE)
                bar.set_linewidth(1.5)
            if np.isinf(value):
                ax.text(centre, position, f" {value:g}", va="center", color=_OUTSIDE, fontsize="small")
    ax.set_yticks(np.arange(len(metrics)), metrics)
    ax.set_ylim(len(metrics) - 0.5, -0.5)
    return ax


@fill(axes=AXES_DOC, example_frame=_EXAMPLE_FRAME)
def classification(
    table: pd.DataFrame,
    *,
    metrics=None,
    difference_band=DIFFERENCE_TOLERANCE,
    ratio_band=FOUR_FIFTHS,
    ax=None,
):
    """The parity metrics of each sensitive column as bars from their fair value, with the fair band.

    One row of bars per metric, one bar per row of the table (each sensitive column and the
    ``"(all)"`` average), drawn from the metric's fair value (0 for the differences, 1 for
    disparate impact, marked by a short black line) to its value, with the bootstrap interval
    as an error bar when the table has ``<metric>_low``/``<metric>_high``. The grey band is the
    range commonly read as fair: ``|difference| <= 0.1`` and ``0.8 <= ratio <= 1.25`` (the
    four-fifths rule and its reciprocal); bars outside it are hatched and edged in red. These
    limits are conventions (AIF360's tutorials, the US four-fifths rule of thumb), not a
    legal standard or a test; pass others. An infinite disparate impact (no privileged
    selection) is written as text; an undefined (NaN) value has no bar.

    Parameters
    ----------
    table : pandas.DataFrame
        The table of :func:`pdmetrics.fairness.classification` (``df.fairness.classification``).
    metrics : list of str, optional
        The metrics to draw, in order; default every fairness metric of the table
        (``statistical_parity_difference, disparate_impact, average_odds_difference,
        average_abs_odds_difference, equal_opportunity_difference``).
    difference_band : float or None, default 0.1
        Half-width of the band around 0 for the differences; None for no band.
    ratio_band : (float, float) or None, default (0.8, 1.25)
        The band of disparate impact; None for no band.
    {axes}
        One bar container per row of the table (its label is the ``by`` value).

    Examples
    --------
    {example_frame}
    >>> from pdmetrics.plotting.fairness import classification
    >>> table = df.fairness.classification(y_true="y", y_pred="pred", by="sex", privileged={"sex": "M"})
    >>> ax = classification(table)
    >>> len(ax.containers), [label.get_text() for label in ax.get_yticklabels()][:2]
    (2, ['statistical_parity_difference', 'disparate_impact'])
    """
    producer = "`df.fairness.classification(...)` (pdmetrics.fairness.classification)"
    check_table(table, ["by"], producer)
    present = [name for name in FAIRNESS_METRICS if name in table.columns]
    names = present if metrics is None else _names(metrics, "metrics", present)
    if not names:
        check_table(table, ["by", *FAIRNESS_METRICS], producer)
    differences = _difference_band(difference_band, "difference_band")
    ratios = _ratio_band(ratio_band, "ratio_band")
    fair = [1.0 if name in _RATIO_METRICS else 0.0 for name in names]
    bands = [ratios if name in _RATIO_METRICS else differences for name in names]
    series = []
    for _, row in table.iterrows():
        values = row[names].to_numpy(dtype="float64")
        errors = None
        if all(f"{name}_{end}" in table.columns for name in names for end in ("low", "high")):
            lows = row[[f"{name}_low" for name in names]].to_numpy(dtype="float64")
            highs = row[[f"{name}_high" for name in names]].to_numpy(dtype="float64")
            finite = np.isfinite(values)
            errors = np.where(
                finite, np.vstack([np.clip(values - lows, 0, None), np.clip(highs - values, 0, None)]), np.nan
            )
        series.append((row["by"], values, errors))
    ax = axes_for(ax, (7.0, 1.0 + 0.8 * len(names)))
    _parity_bars(ax, names, series, fair, bands)
    ax.set_xlabel("unprivileged vs privileged (fair: 0 for differences, 1 for ratios)")
    ax.set_title("Group fairness")
    handles = [  # plain swatches: the first bar of a series may be hatched
        pyplot().Rectangle((0, 0), 1, 1, color=_SERIES[j % len(_SERIES)]) for j in range(len(series))
    ]
    ax.legend(handles, [str(label) for label, _, _ in series], title="by", fontsize="small")
    return ax


def _log_of_ratio(values):
    """``log`` of ratios, a ratio of 0 taken as the smallest float (the darkest blue, no warning)."""
    return np.log(np.maximum(values, np.finfo("float64").tiny))


@fill(axes=AXES_DOC)
def class_gaps(table: pd.DataFrame, *, metric: str = "statistical_parity_difference", ax=None):
    """One fairness metric per class and sensitive column, as a heatmap centred on parity.

    Rows are the table's ``by`` values (each sensitive column, then the ``"(all)"`` average),
    columns its classes (the ``"macro"`` rows and the cumulative ``">= k"`` splits of ordinal
    classes are left out); each cell is annotated with its value. The colour map diverges
    from the fair value: white at 0 for a difference, at 1 for disparate impact (on a log
    scale, so 0.5 and 2 are equally dark), red above and blue below, the limits symmetric
    around it. An undefined (NaN) cell is left blank; an infinite disparate impact takes the
    darkest red.

    Parameters
    ----------
    table : pandas.DataFrame
        The table of :func:`pdmetrics.fairness.classification` with ``classes=``.
    metric : str, default "statistical_parity_difference"
        One of its fairness metrics.
    {axes}
        Its image is the matrix drawn (rows ``by``, columns classes).

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> from pdmetrics.plotting.fairness import class_gaps
    >>> df = pd.DataFrame({"y": ["a", "b", "c", "a", "b", "c"], "pred": ["a", "b", "b", "a", "c", "c"],
    ...                    "male": [1, 1, 1, 0, 0, 0]})
    >>> table = df.fairness.classification(y_true="y", y_pred="pred", by="male", classes="all")
    >>> ax = class_gaps(table)
    >>> ax.images[0].get_array().shape, [label.get_text() for label in ax.get_xticklabels()]
    ((2, 3), ['a', 'b', 'c'])
    """
    producer = '`df.fairness.classification(..., classes="all")` (pdmetrics.fairness.classification)'
    check_table(table, ["by", CLASS], producer)
    (name,) = _names(metric, "metric", [m for m in FAIRNESS_METRICS if m in table.columns])
    classes = table.attrs.get("classes")
    kept = table[table[CLASS] != MACRO] if classes is None else table[table[CLASS].isin(classes)]
    rows = list(pd.unique(kept["by"]))
    columns = list(pd.unique(kept[CLASS])) if classes is None else list(classes)
    matrix = kept.pivot_table(
        index="by", columns=CLASS, values=name, aggfunc="first", dropna=False, sort=False
    )
    values = matrix.reindex(index=rows, columns=columns).to_numpy(dtype="float64")
    ratio = name in _RATIO_METRICS
    with np.errstate(divide="ignore", invalid="ignore"):
        distance = np.abs(np.log(values)) if ratio else np.abs(values)
    finite = distance[np.isfinite(distance)]
    limit = (
        float(finite.max())
        if finite.size and finite.max() > 0
        else (np.log(FOUR_FIFTHS[1]) if ratio else DIFFERENCE_TOLERANCE)
    )
    plt = pyplot()
    norm = plt.Normalize(-limit, limit)
    if ratio:
        import matplotlib.colors  # noqa: PLC0415  (matplotlib loads on first use)

        norm = matplotlib.colors.FuncNorm((_log_of_ratio, np.exp), vmin=np.exp(-limit), vmax=np.exp(limit))
    ax = axes_for(ax, (1.6 + 0.9 * len(columns), 1.4 + 0.6 * len(rows)))
    heatmap(
        ax,
        values,
        rows,
        columns,
        row_title="by",
        column_title="class",
        fmt="{:.2f}",
        cmap="RdBu_r",
        norm=norm,
    )
    ax.set_title(f"{name} by class (fair: {1 if ratio else 0})")
    return ax


@fill(example_frame=_EXAMPLE_FRAME)
def group_disparity(
    table: pd.DataFrame,
    *,
    metrics=None,
    difference_band=DIFFERENCE_TOLERANCE,
    ratio_band=FOUR_FIFTHS,
    ax=None,
):
    """How far apart the groups' rates are: differences and ratios per rate, in two panels.

    Left panel: ``difference`` (max - min over the groups) per rate as bars from 0, with the
    band ``[0, difference_band]``; right panel: ``ratio`` (min / max) as bars from 1, with the
    band ``[ratio_band[0], 1]``. Bars outside the band are hatched and edged in red; bootstrap
    intervals (``difference_low``/``_high``, ``ratio_low``/``_high``, when ``n_resamples`` was
    given) are drawn as error bars. The bands are conventions, as in :func:`classification`.

    Parameters
    ----------
    table : pandas.DataFrame
        The table of :func:`pdmetrics.fairness.group_disparity` (``df.fairness.group_disparity``).
    metrics : list of str, optional
        The rates to draw (values of the ``metric`` column); default all of them.
    difference_band : float or None, default 0.1
        Largest difference drawn as fair; None for no band.
    ratio_band : (float, float) or None, default (0.8, 1.25)
        Ratio band; the ratio min/max never exceeds 1, so only its lower end shows.
    ax : sequence of two matplotlib.axes.Axes, optional
        Where to draw; default a new figure with two panels.

    Returns
    -------
    numpy.ndarray of Axes
        The difference panel and the ratio panel.

    Examples
    --------
    {example_frame}
    >>> from pdmetrics.plotting.fairness import group_disparity
    >>> table = pdmetrics.fairness.group_disparity(df, y_true="y", y_pred="pred", by="sex")
    >>> difference, ratio = group_disparity(table, metrics=["selection_rate", "tpr"])
    >>> [round(float(bar.get_width()), 3) for bar in difference.containers[0]]
    [0.333, 0.5]
    """
    producer = "`df.fairness.group_disparity(...)` (pdmetrics.fairness.group_disparity)"
    check_table(table, ["metric", "difference", "ratio"], producer)
    available = [str(name) for name in table["metric"]]
    names = available if metrics is None else _names(metrics, "metrics", available)
    rows = table.set_index(table["metric"].astype(str)).loc[names]
    differences = _difference_band(difference_band, "difference_band")
    ratios = _ratio_band(ratio_band, "ratio_band")
    axes = panel_axes(ax, 2, panel_size=(4.6, 1.0 + 0.55 * len(names)))
    for panel, column, centre, limits in (
        (axes[0], "difference", 0.0, None if differences is None else (0.0, differences[1])),
        (axes[1], "ratio", 1.0, None if ratios is None else (ratios[0], 1.0)),
    ):
        values = rows[column].to_numpy(dtype="float64")
        errors = _error_bars(rows, column, values)
        _parity_bars(panel, names, [(column, values, errors)], [centre] * len(names), [limits] * len(names))
        panel.set_title(f"{column} between groups")
        panel.set_xlabel("max - min" if column == "difference" else "min / max")
    axes[1].tick_params(axis="y", labelleft=False)
    return axes


#: Colours of the forest plot: gaps the table rejects (significant) and the others.
_SIGNIFICANT, _NOT_SIGNIFICANT = "C3", "C0"


def gap_tests(table: pd.DataFrame, *, metrics=None, ax=None):
    """A forest plot of the gaps: each group's difference to the reference with its interval.

    One panel per rate: a row per group, a dot at ``difference`` and a line from ``ci_low`` to
    ``ci_high``; the gaps the table rejects (``reject``: adjusted p-value at most ``alpha``)
    are filled red dots, the others hollow blue ones; a dashed line marks no gap (0). A table
    with a ``class`` column (``classes=``) gives one row of panels per class (then split), one
    column per rate, each panel titled ``"class <c>: <rate>"``.

    Parameters
    ----------
    table : pandas.DataFrame
        The table of :func:`pdmetrics.fairness.gap_tests` (``df.fairness.gap_tests``).
    metrics : str or list of str, optional
        The rates to draw (values of the ``metric`` column); default all of them.
    ax : matplotlib.axes.Axes or sequence of Axes, optional
        Where to draw: one Axes per panel (rate, or class and rate), in order (a new figure
        when None).

    Returns
    -------
    matplotlib.axes.Axes, or numpy.ndarray of Axes with several panels

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> from pdmetrics.plotting.fairness import gap_tests
    >>> df = pd.DataFrame({"y": [1, 0] * 30, "pred": [1] * 24 + [0] * 6 + [1, 0] * 15,
    ...                    "sex": ["M"] * 30 + ["F"] * 30})
    >>> table = pdmetrics.fairness.gap_tests(df, y_true="y", y_pred="pred", by="sex", privileged="M")
    >>> ax = gap_tests(table, metrics="selection_rate")
    >>> ax.get_title(), [label.get_text() for label in ax.get_yticklabels()]
    ('selection_rate', ['F'])
    >>> table = pdmetrics.fairness.gap_tests(df, y_true="y", y_pred="pred", by="sex", privileged="M",
    ...                                      classes="all")
    >>> axes = gap_tests(table, metrics=["selection_rate", "tpr"])
    >>> [panel.get_title() for panel in axes]
    ['class 0: selection_rate', 'class 0: tpr', 'class 1: selection_rate', 'class 1: tpr']
    """
    producer = "`df.fairness.gap_tests(...)` (pdmetrics.fairness.gap_tests)"
    check_table(table, ["metric", "difference", "ci_low", "ci_high", "reject"], producer)
    identifiers = list(table.columns[: list(table.columns).index("metric")])
    groups = [name for name in identifiers if name != CLASS]
    available = [str(name) for name in pd.unique(table["metric"])]
    names = available if metrics is None else _names(metrics, "metrics", available)
    metric = table["metric"].astype(str)
    if CLASS in identifiers:
        classes = list(pd.unique(table[CLASS]))
        panels = [
            (f"class {plain(value)}: {name}", (table[CLASS] == value) & (metric == name))
            for value in classes
            for name in names
        ]
    else:
        panels = [(name, metric == name) for name in names]
    size = int(panels[0][1].sum()) if panels else 0
    axes = (
        np.array([axes_for(ax, (5.2, 1.2 + 0.45 * size))])
        if len(panels) == 1
        else panel_axes(ax, len(panels), ncols=len(names), panel_size=(4.6, 1.2 + 0.45 * size))
    )
    reference = (table.attrs.get("pdmetrics") or {}).get("reference")
    shown = ", ".join(str(value) for value in reference.values()) if reference else "the reference"
    for panel, (title, chosen_rows) in zip(axes, panels):
        rows = table[chosen_rows.to_numpy(dtype=bool)]
        where = np.arange(len(rows))[::-1].astype("float64")
        difference = rows["difference"].to_numpy(dtype="float64")
        low, high = rows["ci_low"].to_numpy(dtype="float64"), rows["ci_high"].to_numpy(dtype="float64")
        reject = rows["reject"].to_numpy(dtype=bool)
        for chosen, colour, face, label in (
            (reject, _SIGNIFICANT, _SIGNIFICANT, "significant"),
            (~reject, _NOT_SIGNIFICANT, "white", "not significant"),
        ):
            keep = chosen & ~np.isnan(difference)
            if not keep.any():
                continue
            errors = np.vstack([difference[keep] - low[keep], high[keep] - difference[keep]])
            panel.errorbar(
                difference[keep],
                where[keep],
                xerr=np.clip(np.nan_to_num(errors), 0, None),
                fmt="o",
                color=colour,
                markerfacecolor=face,
                capsize=3,
                label=label,
            )
        panel.axvline(0.0, color="black", linestyle="--", linewidth=1)
        panel.set_yticks(where, _group_labels(rows, groups))
        panel.set_ylim(-0.7, len(rows) - 0.3)
        panel.set_title(title)
        panel.set_xlabel(f"difference to {shown}")
        panel.legend(fontsize="small", loc="best")
    return axes[0] if len(panels) == 1 else axes


def _score_panels(table: pd.DataFrame, ax) -> tuple[list, np.ndarray]:
    """The group columns of a :func:`pdmetrics.fairness.score_distributions` table (its
    ``by`` values but the pooled row's) and one Axes per column."""
    columns = [
        name for name in pd.unique(table["by"]) if not (isinstance(name, str) and name == POOLED_LABEL)
    ]
    if not columns:
        raise InvalidInputError("The table has no group to draw: pass a table computed with `by=`.")
    axes = np.array([axes_for(ax, (5.2, 4.0))]) if len(columns) == 1 else panel_axes(ax, len(columns))
    return columns, axes


def _pooled_rows(table: pd.DataFrame) -> pd.DataFrame:
    return table[(table["by"].astype(str) == POOLED_LABEL).to_numpy()]


#: The ``ax`` parameter and the Returns section of the score figures.
_SCORE_AXES_DOC = """
ax : matplotlib.axes.Axes or sequence of Axes, optional
    Where to draw: one Axes per group column (a new figure when None).

Returns
-------
matplotlib.axes.Axes, or numpy.ndarray of Axes with several group columns
"""


@fill(axes=_SCORE_AXES_DOC)
def score_cdf(table: pd.DataFrame, *, ax=None):
    """Each group's empirical CDF of the scores, one panel per group column.

    Draws a step line per group (label ``"group (n=N)"``) and the pooled CDF as a dashed black
    line labelled ``"(all)"``.

    Parameters
    ----------
    table : pandas.DataFrame
        The table of ``df.fairness.score_distributions(..., table="cdf")``: columns ``by,
        group, score, N, cdf``.
    {axes}

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> from pdmetrics.plotting.fairness import score_cdf
    >>> df = pd.DataFrame({"p": [0.1, 0.4, 0.35, 0.8, 0.2, 0.7], "sex": ["F", "F", "F", "M", "M", "M"]})
    >>> ax = score_cdf(pdmetrics.fairness.score_distributions(df, score="p", by="sex", table="cdf"))
    >>> [line.get_label() for line in ax.get_lines()]
    ['F (n=3)', 'M (n=3)', '(all)']
    """
    check_table(
        table, ["by", "group", "score", "N", "cdf"], '`df.fairness.score_distributions(..., table="cdf")`'
    )
    columns, axes = _score_panels(table, ax)
    pooled = _pooled_rows(table)
    for panel, column in zip(axes, columns):
        rows = table[(table["by"] == column).to_numpy()]
        for group in pd.unique(rows["group"]):
            one = rows[(rows["group"] == group).to_numpy()]
            _ecdf_steps(panel, one, f"{group} (n={int(one['N'].iloc[0])})", {})
        if len(pooled):
            _ecdf_steps(panel, pooled, POOLED_LABEL, {"color": "black", "linestyle": "--", "linewidth": 1})
        panel.set_title(f"score distribution by {column}")
        panel.set_xlabel("score")
        panel.set_ylabel("cumulative proportion")
        panel.set_ylim(0, 1.02)
        panel.legend(fontsize="small", loc="lower right")
    return axes[0] if len(columns) == 1 else axes


def _ecdf_steps(panel, rows: pd.DataFrame, label: str, style: dict) -> None:
    """An ECDF from its jump points: 0 before the first score, a step up at each."""
    x = rows["score"].to_numpy(dtype="float64")
    y = rows["cdf"].to_numpy(dtype="float64")
    panel.step(np.concatenate([[x[0]], x]), np.concatenate([[0.0], y]), where="post", label=label, **style)


@fill(axes=_SCORE_AXES_DOC)
def reliability(table: pd.DataFrame, *, ax=None):
    """Calibration by group: observed positive rate against mean score per bin, one panel per
    group column, with the diagonal of perfect calibration.

    Draws one line with markers per group through its non-empty bins (``mean score``,
    ``observed rate``), the pooled curve dashed black (``"(all)"``) and the diagonal dotted grey.

    Parameters
    ----------
    table : pandas.DataFrame
        The table of ``df.fairness.score_distributions(..., y_true=..., table="reliability")``:
        columns ``by, group, bin, N, score_mean, observed_rate``.
    {axes}

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> from pdmetrics.plotting.fairness import reliability
    >>> df = pd.DataFrame({"p": [0.1, 0.4, 0.35, 0.8, 0.2, 0.7, 0.9, 0.6],
    ...                    "y": [0, 0, 1, 1, 0, 1, 1, 0],
    ...                    "sex": ["F", "F", "F", "F", "M", "M", "M", "M"]})
    >>> curve = pdmetrics.fairness.score_distributions(df, score="p", by="sex", y_true="y",
    ...                                                n_bins=2, table="reliability")
    >>> ax = reliability(curve)
    >>> [round(float(y), 3) for y in ax.get_lines()[0].get_ydata()]
    [0.333, 1.0]
    """
    producer = '`df.fairness.score_distributions(..., y_true=, table="reliability")`'
    check_table(table, ["by", "group", "bin", "N", "score_mean", "observed_rate"], producer)
    columns, axes = _score_panels(table, ax)
    pooled = _pooled_rows(table)
    for panel, column in zip(axes, columns):
        rows = table[(table["by"] == column).to_numpy() & (table["N"] > 0).to_numpy()]
        for group in pd.unique(rows["group"]):
            one = rows[(rows["group"] == group).to_numpy()]
            panel.plot(one["score_mean"], one["observed_rate"], marker="o", label=str(group))
        used = pooled[(pooled["N"] > 0).to_numpy()]
        if len(used):
            panel.plot(
                used["score_mean"], used["observed_rate"], color="black", linestyle="--", linewidth=1,
                label=POOLED_LABEL,
            )  # fmt: skip
        panel.plot([0, 1], [0, 1], color="0.6", linestyle=":", linewidth=1, gid="diagonal")
        panel.set_title(f"calibration by {column}")
        panel.set_xlabel("mean score in bin")
        panel.set_ylabel("observed positive rate")
        panel.set_xlim(0, 1)
        panel.set_ylim(0, 1)
        panel.legend(fontsize="small", loc="upper left")
    return axes[0] if len(columns) == 1 else axes


def inequality(table: pd.DataFrame, *, index="generalized_entropy", ax=None):
    """Where the inequality of benefits comes from: each group's share of the between- and
    within-group terms, as two bars per group, and the two terms of every row in the last pair.

    Parameters
    ----------
    table : pandas.DataFrame
        The table of :func:`pdmetrics.fairness.inequality` with ``by=``
        (``df.fairness.inequality(y_true=, y_pred=, by=)``).
    index : {"generalized_entropy", "theil_index"}, default "generalized_entropy"
        The index whose decomposition is drawn (the generalized entropy at the table's alpha).
    ax : matplotlib.axes.Axes, optional
        Where to draw; default a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        One bar container per term (``between`` then ``within``), one bar per row of the table
        (the groups, then ``"(all)"``); a dotted line marks the index of every row.

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> from pdmetrics.plotting.fairness import inequality
    >>> df = pd.DataFrame({"sex": ["F", "F", "F", "M", "M", "M"],
    ...                    "y": [1, 0, 1, 1, 0, 0], "pred": [1, 0, 0, 1, 1, 0]})
    >>> ax = inequality(df.fairness.inequality(y_true="y", y_pred="pred", by="sex"))
    >>> [round(float(bar.get_width()), 4) for bar in ax.containers[0]]
    [-0.1389, 0.1944, 0.0556]
    """
    if index not in ("generalized_entropy", "theil_index"):
        raise InvalidInputError(f"`index={plain(index)!r}`: choose 'generalized_entropy' or 'theil_index'.")
    terms = [f"between_group_{index}", f"within_group_{index}"]
    check_table(table, ["N", index, *terms], "`df.fairness.inequality(y_true=, y_pred=, by=)`")
    group_columns = list(table.columns[: table.columns.get_loc("N")])
    labels = [*_group_labels(table.iloc[:-1], group_columns), POOLED_LABEL]
    positions = np.arange(len(table), dtype="float64")[::-1]
    ax = axes_for(ax, (6.0, 1.2 + 0.5 * len(table)))
    height = 0.38
    for offset, term, colour, name in (
        (height / 2, terms[0], "C0", "between"),
        (-height / 2, terms[1], "C1", "within"),
    ):
        ax.barh(positions + offset, table[term].to_numpy(dtype="float64"), height, color=colour, label=name)
    ax.axvline(float(table[index].iloc[-1]), color="0.3", linestyle=":", linewidth=1, label=f"{index} (all)")
    ax.axvline(0.0, color="0.6", linewidth=0.8)
    ax.set_yticks(positions, labels)
    alpha = table.attrs.get("pdmetrics", {}).get("alpha")
    suffix = f" (alpha={alpha:g})" if index == "generalized_entropy" and alpha is not None else ""
    ax.set_title(f"{index}{suffix}: shares by group")
    ax.set_xlabel("share of the index")
    ax.legend(fontsize="small", loc="upper right")
    return ax


@fill(example_frame=_EXAMPLE_FRAME)
class FairnessPlots:
    """``df.fairness.plot``: compute a fairness table from the frame and draw it in one call.

    Each method takes the drawing options of the function of the same name in
    :mod:`pdmetrics.plotting.fairness` (``metrics=``, the bands, ``ax=``) and passes every
    other keyword (the columns ``y_true=``, ``y_pred=``, ``by=`` and the
    table's options such as ``n_resamples=``) to the ``df.fairness`` method of the same name;
    it returns what the drawing function returns.

    Examples
    --------
    {example_frame}
    >>> ax = df.fairness.plot.by_group(y_true="y", y_pred="pred", by="sex", metrics="tpr")
    >>> ax.get_title()
    'tpr'
    """

    def __init__(self, frame: pd.DataFrame) -> None:
        self._frame = frame

    compare = comparison_method("pdmetrics.fairness.comparison")

    def by_group(self, *, metrics="selection_rate", reference=None, band=FOUR_FIFTHS, ax=None, **table):
        """``df.fairness.by_group(**table)`` drawn by :func:`by_group` (rates, pooled line, band)."""
        rates = self._frame.fairness.by_group(**table)
        return by_group(rates, metrics=metrics, reference=reference, band=band, ax=ax)

    def classification(
        self, *, metrics=None, difference_band=DIFFERENCE_TOLERANCE, ratio_band=FOUR_FIFTHS, ax=None, **table
    ):
        """``df.fairness.classification(**table)`` drawn by :func:`classification` (parity metrics, bands)."""
        parity = self._frame.fairness.classification(**table)
        bands = {"difference_band": difference_band, "ratio_band": ratio_band}
        return classification(parity, metrics=metrics, ax=ax, **bands)

    def class_gaps(self, *, metric="statistical_parity_difference", ax=None, **table):
        """``df.fairness.classification(classes="all", **table)`` drawn by :func:`class_gaps`
        (one metric per class and sensitive column; pass ``classes=`` to choose the classes)."""
        table.setdefault("classes", "all")
        parity = self._frame.fairness.classification(**table)
        return class_gaps(parity, metric=metric, ax=ax)

    def group_disparity(
        self, *, metrics=None, difference_band=DIFFERENCE_TOLERANCE, ratio_band=FOUR_FIFTHS, ax=None, **table
    ):
        """``df.fairness.group_disparity(**table)`` drawn by :func:`group_disparity` (differences, ratios)."""
        summary = self._frame.fairness.group_disparity(**table)
        bands = {"difference_band": difference_band, "ratio_band": ratio_band}
        return group_disparity(summary, metrics=metrics, ax=ax, **bands)

    def gap_tests(self, *, metrics=None, ax=None, **table):
        """``df.fairness.gap_tests(**table)`` drawn by :func:`gap_tests` (a forest plot of the gaps)."""
        return gap_tests(self._frame.fairness.gap_tests(**table), metrics=metrics, ax=ax)

    def score_distributions(self, *, kind="cdf", ax=None, **table):
        """``df.fairness.score_distributions(**table)`` drawn as each group's score CDF
        (``kind="cdf"``, :func:`score_cdf`) or calibration curve (``kind="reliability"``,
        :func:`reliability`; needs ``y_true=``)."""
        if kind not in ("cdf", "reliability"):
            raise InvalidInputError(f"`kind={plain(kind)!r}`: choose 'cdf' or 'reliability'.")
        drawn = self._frame.fairness.score_distributions(table=kind, **table)
        return score_cdf(drawn, ax=ax) if kind == "cdf" else reliability(drawn, ax=ax)

    def inequality(self, *, index="generalized_entropy", ax=None, **table):
        """``df.fairness.inequality(**table)`` (with ``by=``) drawn by :func:`inequality` (each
        group's share of the between- and within-group terms)."""
        if table.get("by") is None:
            raise InvalidInputError(
                "`df.fairness.plot.inequality` draws each group's share, so it needs `by=` (the "
                "sensitive column(s)), e.g. `df.fairness.plot.inequality(y_true=..., y_pred=..., by='sex')`."
            )
        return inequality(self._frame.fairness.inequality(**table), index=index, ax=ax)
