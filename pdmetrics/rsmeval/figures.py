"""The evaluation report's figures as inline SVG, written in Python (no matplotlib).

A handful of generic panels (grouped bars, horizontal error bars, lines, a heatmap), each
drawn into a box of an ``<svg>`` element, so the HTML report is written in milliseconds and
on machines without the ``plot`` extra. Every label is escaped; every number is a Python
float formatted by :func:`tick`.
"""

from __future__ import annotations

import html
import math
import unicodedata
from collections.abc import Callable, Sequence

__all__ = [
    "PALETTE",
    "Box",
    "svg",
    "bar_panel",
    "box_panel",
    "error_bar_panel",
    "forest_panel",
    "line_panel",
    "heatmap_panel",
    "legend",
    "legend_chart",
    "nice_limits",
    "tick",
    "category_label_room",
    "legend_height",
    "CHAR_WIDTH",
    "text_width",
    "LABEL_CHARS",
]

#: Series colours (colour-blind safe, Okabe-Ito), in the order series are given.
PALETTE = ("#4d4d4d", "#56b4e9", "#e69f00", "#009e73", "#cc79a7", "#0072b2", "#d55e00", "#f0e442")

#: A panel's place in its ``<svg>``: left, top, width, height (pixels).
Box = tuple[float, float, float, float]

_MARGIN = (46.0, 26.0, 10.0, 34.0)  # left, top, right, bottom: room for ticks and the title
#: Width of a wide character (capitals, digits, most lower-case letters are narrower) at the
#: figures' font size (11 px sans-serif); :func:`text_width` estimates a label from it.
CHAR_WIDTH = 7.2
#: Labels longer than this (or wider than this many capitals) are cut with an ellipsis; their
#: full text is the ``<title>`` tooltip.
LABEL_CHARS = 20
#: Colour of a marker that says a value lies beyond the axis.
_CLIPPED = "#d55e00"


def svg(width: float, height: float, parts: Sequence[str], *, label: str) -> str:
    """An inline ``<svg>`` element of the given size holding the ``parts`` (panels, legends).

    No ``xmlns``: HTML puts inline SVG in the SVG namespace itself, and the page then holds no
    URL at all besides its documentation links."""
    return (
        f'<svg width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="{_text(label)}" '
        f'font-family="sans-serif" font-size="11">' + "".join(parts) + "</svg>"
    )


def tick(value: float) -> str:
    """A tick or value label: integers without decimals, others with at most 3."""
    if not math.isfinite(value):
        return "—"
    if value == int(value):
        return str(int(value))
    return f"{value:.3f}".rstrip("0")


def nice_limits(values: Sequence[float], include: Sequence[float] = ()) -> tuple[float, float]:
    """Axis limits covering the finite ``values`` and ``include``, padded and rounded out."""
    finite = [float(v) for v in (*values, *include) if v is not None and math.isfinite(v)]
    if not finite:
        return 0.0, 1.0
    low, high = min(finite), max(finite)
    if low == high:
        low, high = low - 0.5, high + 0.5
    step = _step(high - low)
    return math.floor(low / step) * step, math.ceil(high / step) * step


def category_label_room(width: float, categories: Sequence[str]) -> float:
    """Extra height a :func:`bar_panel` of this width needs below its axis for the category
    labels: 0 when they fit side by side, else the length of the longest label, which is then
    written vertically (RSMTool rotates long subgroup labels the same way)."""
    slot = (width - _MARGIN[0] - _MARGIN[2]) / max(len(categories), 1)
    longest = max((text_width(_label(c)) for c in categories), default=0)
    return 0.0 if longest + 6 <= slot else longest - 12


def bar_panel(
    box: Box,
    categories: Sequence[str],
    series: dict[str, Sequence[float]],
    *,
    title: str = "",
    x_title: str = "",
    y_title: str = "",
    limits: tuple[float, float] | None = None,
    reference_lines: Sequence[float] = (),
    small: Sequence[bool] | None = None,
) -> str:
    """Grouped vertical bars: one group of bars per category, one bar per series.

    Bars carry ``data-value`` (the value drawn) and a ``<title>`` tooltip; dashed
    horizontal lines mark ``reference_lines``; missing values draw no bar. Category labels
    that do not fit side by side are written vertically, in the room
    :func:`category_label_room` adds below the axis (the box's height includes it).

    ``small`` (one flag per category) marks categories whose values do not set the axis
    range (groups of a few responses): their bars are hollow (``data-small``), and a value
    beyond the axis is drawn to its edge with a marker and the value written
    (``data-clipped``).
    """
    small = list(small) if small is not None else [False] * len(categories)
    values = [v for column in series.values() for v, tiny in zip(column, small) if not tiny]
    low, high = limits if limits is not None else nice_limits(values, (0.0, *reference_lines))
    room = category_label_room(box[2], categories)
    inner, parts = _frame(box, low, high, title, x_title, y_title, room=room)
    x0, y0, width, height = inner
    slot = width / max(len(categories), 1)
    bar = slot * 0.8 / max(len(series), 1)
    scale = _scale(low, high, y0 + height, y0)
    base = scale(min(max(0.0, low), high))
    for position, category in enumerate(categories):
        left = x0 + position * slot + slot * 0.1
        for k, (name, column) in enumerate(series.items()):
            value = column[position]
            if value is None or not math.isfinite(value):
                continue
            top = scale(min(max(value, low), high))
            colour = PALETTE[k % len(PALETTE)]
            clipped = not low <= value <= high
            parts.append(
                f'<rect class="bar" x="{left + k * bar:.1f}" y="{min(top, base):.1f}" width="{bar:.1f}" '
                f'height="{abs(base - top):.1f}" {_fill(colour, small[position], clipped)} '
                f'data-series="{_text(name)}" data-category="{_text(category)}" data-value="{value!r}">'
                f"<title>{_text(category)}, {_text(name)}: {tick(value)}</title></rect>"
            )
            if clipped:
                middle, up = left + (k + 0.5) * bar, value > high
                tip, back = (top - 6, top + 2) if up else (top + 6, top - 2)
                parts.append(
                    f'<path class="clipped" d="M{middle - 4:.1f},{back:.1f}L{middle:.1f},{tip:.1f}'
                    f'L{middle + 4:.1f},{back:.1f}Z" fill="{_CLIPPED}"/>'
                    f'<text class="clipped" x="{middle:.1f}" y="{(top + 14) if up else (top - 6):.1f}" '
                    f'text-anchor="middle" font-size="10" fill="{_CLIPPED}">{tick(value)}</text>'
                )
        parts.append(_x_label(x0 + (position + 0.5) * slot, y0 + height, category, vertical=room > 0))
    parts += [_reference(x0, width, scale(line), line) for line in reference_lines if low <= line <= high]
    return "".join(parts)


def box_panel(
    box: Box,
    categories: Sequence[str],
    boxes: dict[str, Sequence[float]],
    fliers: Sequence[Sequence[float]] = (),
    *,
    title: str = "",
    y_title: str = "",
    reference_lines: Sequence[float] = (),
) -> str:
    """Box plots: one box per category from its ``boxes`` statistics (equal-length sequences
    ``low``, ``q1``, ``median``, ``q3``, ``high``: whisker ends, quartiles and median), the
    values beyond the whiskers (``fliers``, one sequence per category) as small circles, and
    dashed horizontal ``reference_lines``. Boxes carry ``data-median``; a category without
    values (NaN median) draws nothing."""
    columns = [list(map(float, boxes[key])) for key in ("low", "q1", "median", "q3", "high")]
    fliers = [list(map(float, points)) for points in fliers] or [[] for _ in categories]
    values = [v for column in columns for v in column] + [v for points in fliers for v in points]
    low, high = nice_limits([v for v in values if math.isfinite(v)], tuple(reference_lines))
    room = category_label_room(box[2], categories)
    inner, parts = _frame(box, low, high, title, "", y_title, room=room)
    x0, y0, width, height = inner
    slot = width / max(len(categories), 1)
    scale = _scale(low, high, y0 + height, y0)
    for position, category in enumerate(categories):
        bottom, q1, median, q3, top = (column[position] for column in columns)
        middle, half = x0 + (position + 0.5) * slot, slot * 0.3
        if math.isfinite(median):
            parts.append(
                f'<path d="M{middle:.1f},{scale(bottom):.1f}V{scale(q1):.1f}M{middle:.1f},{scale(q3):.1f}'
                f"V{scale(top):.1f}M{middle - half / 2:.1f},{scale(bottom):.1f}h{half:.1f}"
                f'M{middle - half / 2:.1f},{scale(top):.1f}h{half:.1f}" stroke="#555" fill="none"/>'
                f'<rect class="box" x="{middle - half:.1f}" y="{scale(q3):.1f}" width="{2 * half:.1f}" '
                f'height="{abs(scale(q1) - scale(q3)):.1f}" fill="#b3b3b3" stroke="#555" '
                f'data-category="{_text(category)}" data-median="{median!r}">'
                f"<title>{_text(category)}: median {tick(median)}, quartiles {tick(q1)} to {tick(q3)}, "
                f"whiskers {tick(bottom)} to {tick(top)}</title></rect>"
                f'<line x1="{middle - half:.1f}" x2="{middle + half:.1f}" y1="{scale(median):.1f}" '
                f'y2="{scale(median):.1f}" stroke="#000" stroke-width="1.5"/>'
            )
            parts += [
                f'<circle class="flier" cx="{middle:.1f}" cy="{scale(v):.1f}" r="2" fill="none" '
                'stroke="#555"/>'
                for v in fliers[position]
            ]
        parts.append(_x_label(middle, y0 + height, category, vertical=room > 0))
    parts += [_threshold(x0, width, scale(line), line) for line in reference_lines if low <= line <= high]
    return "".join(parts)


def _threshold(x: float, width: float, y: float, value: float) -> str:
    return (
        f'<line class="reference" x1="{x:.1f}" x2="{x + width:.1f}" y1="{y:.1f}" y2="{y:.1f}" '
        f'stroke="{_CLIPPED}" stroke-dasharray="4 3" stroke-width="0.8" data-value="{value!r}"/>'
    )


def error_bar_panel(
    box: Box,
    labels: Sequence[str],
    estimates: Sequence[float],
    lower: Sequence[float],
    upper: Sequence[float],
    *,
    title: str = "",
    x_title: str = "",
    reference: float | None = 0.0,
    colours: Sequence[str] | None = None,
    small: Sequence[bool] | None = None,
) -> str:
    """Horizontal bars of ``estimates`` (one row per label, top to bottom) with error bars
    from ``lower`` to ``upper``; a dashed vertical line at ``reference``. ``colours``: one
    per row (default: the palette in order).

    ``small`` (one flag per row) marks rows that do not set the axis range (groups of a few
    responses, whose intervals are wide): their bars are hollow (``data-small``); a bar or
    interval beyond the axis is drawn to its edge, where a marker points on
    (``data-clipped``), and a clipped estimate is written next to the marker."""
    small = list(small) if small is not None else [False] * len(labels)
    if all(small):
        small = [False] * len(labels)
    kept = [i for i in range(len(labels)) if not small[i]]
    low, high = nice_limits(
        [v for i in kept for v in (lower[i], upper[i], estimates[i])],
        () if reference is None else (reference,),
    )
    x0, y0, width, height = box
    # room for the row labels: as long as the longest (cut at LABEL_CHARS + 4), at most 55%
    longest = max((text_width(_short(label, LABEL_CHARS + 4)) for label in labels), default=0)
    left = x0 + min(max(longest + 10, 60.0), width * 0.55)
    inner = (left, y0 + _MARGIN[1], x0 + width - left - _MARGIN[2], height - _MARGIN[1] - _MARGIN[3])
    parts = [_title(x0 + width / 2, y0, title, width)]
    ix, iy, iw, ih = inner
    scale = _scale(low, high, ix, ix + iw)
    parts.append(_x_axis(inner, low, high, scale, x_title))
    row = ih / max(len(labels), 1)
    origin = scale(min(max(0.0 if reference is None else reference, low), high))

    def at(value: float) -> float:
        return scale(min(max(value, low), high))

    for i, label in enumerate(labels):
        middle = iy + (i + 0.5) * row
        value, lo, hi = estimates[i], lower[i], upper[i]
        parts.append(_row_label(ix - 4, middle + 4, label, left - x0 - 8))
        if not math.isfinite(value):
            continue
        end = at(value)
        clipped = not low <= value <= high
        colour = colours[i] if colours else PALETTE[(i + 1) % len(PALETTE)]
        parts.append(
            f'<rect class="bar" x="{min(origin, end):.1f}" y="{middle - row * 0.3:.1f}" '
            f'width="{abs(end - origin):.1f}" height="{row * 0.6:.1f}" '
            f"{_fill(colour, small[i], clipped)} "
            f'data-category="{_text(label)}" data-value="{value!r}"><title>{_text(label)}: {tick(value)} '
            f"[{tick(lo)}, {tick(hi)}]</title></rect>"
        )
        if math.isfinite(lo) and math.isfinite(hi):
            ends = f"M{at(lo):.1f},{middle - 4:.1f}v8" * (lo >= low) + f"M{at(hi):.1f},{middle - 4:.1f}v8" * (
                hi <= high
            )
            flag = ' data-clipped="true"' if lo < low or hi > high else ""
            parts.append(
                f'<path class="errorbar" d="M{at(lo):.1f},{middle:.1f}H{at(hi):.1f}{ends}" '
                f'stroke="#000" fill="none" data-lower="{lo!r}" data-upper="{hi!r}"{flag}/>'
            )
            for edge, beyond, sign in ((ix, lo < low, -1), (ix + iw, hi > high, 1)):
                if beyond:
                    parts.append(_arrow(edge, middle, sign))
        if clipped:
            sign = 1 if value > high else -1
            anchor = "end" if sign > 0 else "start"
            parts.append(
                f'<text class="clipped" x="{end - sign * 8:.1f}" y="{middle - row * 0.3 - 2:.1f}" '
                f'text-anchor="{anchor}" fill="{_CLIPPED}">{tick(value)}</text>'
            )
    if reference is not None and low <= reference <= high:
        parts.append(
            f'<line x1="{scale(reference):.1f}" x2="{scale(reference):.1f}" y1="{iy:.1f}" y2="{iy + ih:.1f}" '
            f'stroke="#000" stroke-dasharray="4 3" stroke-width="0.8"/>'
        )
    return "".join(parts)


#: Colour of an interval that excludes zero in :func:`forest_panel` (one that includes it is grey).
_APART = "#0072b2"
_TOGETHER = "#8c8c8c"


def forest_panel(
    box: Box,
    labels: Sequence[str],
    differences: Sequence[float],
    lower: Sequence[float],
    upper: Sequence[float],
    *,
    title: str = "",
    x_title: str = "difference (system − baseline); each row on its own scale, 0 in the middle",
) -> str:
    """A forest plot of differences: one row per label, the difference as a dot and its
    interval as a line, a dashed line at zero, the numbers written on the right.

    The differences of several metrics live on different scales (a correlation moves by 0.02,
    exact agreement by 5 percentage points), so each row has its own axis, symmetric around
    zero and written at its ends: every row shows where its interval lies against zero. A row
    whose interval excludes zero is drawn in colour, one that includes it in grey; a missing
    difference draws nothing (its numbers read "—"). Rows carry ``data-value``,
    ``data-lower``, ``data-upper`` and ``data-apart`` (the interval excludes zero).
    """
    x0, y0, width, height = box
    longest = max((text_width(_short(label, LABEL_CHARS + 10)) for label in labels), default=0)
    left = x0 + min(max(longest + 12, 70.0), width * 0.35)
    numbers = [f"{tick(d)} [{tick(lo)}, {tick(hi)}]" for d, lo, hi in zip(differences, lower, upper)]
    right = x0 + width - max((text_width(text) for text in numbers), default=0) - 16
    top, bottom = y0 + _MARGIN[1] + 4, y0 + height - _MARGIN[3]
    row = (bottom - top) / max(len(labels), 1)
    middle_x = (left + right) / 2
    half = (right - left) / 2 - 6
    parts = [_title(x0 + width / 2, y0, title, width)]
    parts += [  # every other row shaded, under everything else
        f'<rect x="{x0:.1f}" y="{top + i * row:.1f}" width="{width:.1f}" height="{row:.1f}" fill="#f3f5f8"/>'
        for i in range(0, len(labels), 2)
    ]
    parts.append(
        f'<line class="zero" x1="{middle_x:.1f}" x2="{middle_x:.1f}" y1="{top - 4:.1f}" y2="{bottom:.1f}" '
        f'stroke="#000" stroke-dasharray="4 3" stroke-width="0.8"/>'
    )
    for i, label in enumerate(labels):
        y = top + (i + 0.5) * row
        value, lo, hi = (float(v) for v in (differences[i], lower[i], upper[i]))
        parts.append(_row_label(left - 6, y + 4, label, left - x0 - 10))
        parts.append(f'<text class="number" x="{right + 10:.1f}" y="{y + 4:.1f}">{_text(numbers[i])}</text>')
        finite = [abs(v) for v in (value, lo, hi) if math.isfinite(v)]
        if not math.isfinite(value):
            continue
        extent = max(finite) * 1.15 or 1.0
        scale = _scale(-extent, extent, middle_x - half, middle_x + half)
        apart = math.isfinite(lo) and math.isfinite(hi) and (lo > 0 or hi < 0)
        colour = _APART if apart else _TOGETHER
        parts.append(
            f'<text class="end" x="{middle_x - half:.1f}" y="{y - row * 0.22:.1f}" font-size="8" '
            f'fill="#999" text-anchor="start">−{tick(extent)}</text>'
            f'<text class="end" x="{middle_x + half:.1f}" y="{y - row * 0.22:.1f}" font-size="8" '
            f'fill="#999" text-anchor="end">{tick(extent)}</text>'
        )
        if math.isfinite(lo) and math.isfinite(hi):
            parts.append(
                f'<path class="interval" d="M{scale(lo):.1f},{y:.1f}H{scale(hi):.1f}'
                f"M{scale(lo):.1f},{y - 4:.1f}v8"
                f'M{scale(hi):.1f},{y - 4:.1f}v8" stroke="{colour}" stroke-width="1.6" fill="none"/>'
            )
        parts.append(
            f'<circle class="difference" cx="{scale(value):.1f}" cy="{y:.1f}" r="4" fill="{colour}" '
            f'data-category="{_text(label)}" data-value="{value!r}" data-lower="{lo!r}" data-upper="{hi!r}" '
            f'data-apart="{str(apart).lower()}"><title>{_text(label)}: {_text(numbers[i])}</title></circle>'
        )
    parts.append(
        f'<text x="{middle_x:.1f}" y="{bottom + 22:.1f}" text-anchor="middle">'
        f"{_fitted(x_title, width - 20)}</text>"
    )
    return "".join(parts)


def line_panel(
    box: Box,
    x: Sequence[float],
    series: dict[str, Sequence[float]],
    *,
    title: str = "",
    x_title: str = "",
    y_title: str = "",
) -> str:
    """One line with point markers per series over the common ``x`` values (a missing value
    breaks the line)."""
    low, high = nice_limits([v for column in series.values() for v in column])
    inner, parts = _frame(box, low, high, title, x_title, y_title, vertical_grid=False)
    x0, y0, width, height = inner
    x_low, x_high = (min(x), max(x)) if len(x) else (0.0, 1.0)
    if x_low == x_high:
        x_low, x_high = x_low - 1, x_high + 1
    pad = (x_high - x_low) * 0.05
    sx = _scale(x_low - pad, x_high + pad, x0, x0 + width)
    sy = _scale(low, high, y0 + height, y0)
    for value in x:
        parts.append(_x_label(sx(value), y0 + height, tick(value)))
    for k, (name, column) in enumerate(series.items()):
        colour = PALETTE[k % len(PALETTE)]
        path, pen = [], "M"
        for xv, yv in zip(x, column):
            if yv is None or not math.isfinite(yv):
                pen = "M"
                continue
            path.append(f"{pen}{sx(xv):.1f},{sy(yv):.1f}")
            pen = "L"
        parts.append(
            f'<path class="line" d="{"".join(path)}" stroke="{colour}" fill="none" stroke-width="1.8" '
            f'data-series="{_text(name)}"/>'
        )
        parts += [
            f'<circle class="point" cx="{sx(xv):.1f}" cy="{sy(yv):.1f}" r="3" fill="{colour}" '
            f'data-series="{_text(name)}" data-x="{xv!r}" data-value="{yv!r}"><title>{_text(name)}, '
            f"{tick(xv)}: {tick(yv)}</title></circle>"
            for xv, yv in zip(x, column)
            if yv is not None and math.isfinite(yv)
        ]
    return "".join(parts)


def heatmap_panel(
    box: Box,
    matrix: Sequence[Sequence[float]],
    row_labels: Sequence[str],
    column_labels: Sequence[str],
    *,
    title: str = "",
    row_title: str = "",
    column_title: str = "",
) -> str:
    """An annotated heatmap: one cell per value, shaded by its share of the largest value."""
    x0, y0, width, height = box
    left, top = x0 + 58.0, y0 + 54.0
    cell_w = (width - 58.0 - 10.0) / max(len(column_labels), 1)
    cell_h = (height - 54.0 - 10.0) / max(len(row_labels), 1)
    largest = max([v for row in matrix for v in row if math.isfinite(v)] or [1.0]) or 1.0
    parts = [
        _title(x0 + width / 2, y0, title, width),
        f'<text x="{left + cell_w * len(column_labels) / 2:.1f}" y="{top - 22:.1f}" '
        f'text-anchor="middle">{_text(column_title)}</text>',
        f'<text transform="translate({x0 + 12:.1f},{top + cell_h * len(row_labels) / 2:.1f}) rotate(-90)" '
        f'text-anchor="middle">{_text(row_title)}</text>',
    ]
    for j, label in enumerate(column_labels):
        parts.append(
            f'<text x="{left + (j + 0.5) * cell_w:.1f}" y="{top - 5:.1f}" text-anchor="middle">'
            f"{_text(label)}</text>"
        )
    for i, label in enumerate(row_labels):
        parts.append(
            f'<text x="{left - 5:.1f}" y="{top + (i + 0.5) * cell_h + 4:.1f}" text-anchor="end">'
            f"{_text(label)}</text>"
        )
        for j, value in enumerate(matrix[i]):
            share = value / largest if math.isfinite(value) else 0.0
            shade = round(255 - 200 * share)
            colour = f"rgb({shade},{round(255 - 130 * share)},255)"
            ink = "#fff" if share > 0.6 else "#000"
            parts.append(
                f'<rect class="cell" x="{left + j * cell_w:.1f}" y="{top + i * cell_h:.1f}" '
                f'width="{cell_w:.1f}" '
                f'height="{cell_h:.1f}" fill="{colour}" stroke="#fff" data-value="{value!r}"/>'
                f'<text x="{left + (j + 0.5) * cell_w:.1f}" y="{top + (i + 0.5) * cell_h + 4:.1f}" '
                f'text-anchor="middle" fill="{ink}">{tick(value) if math.isfinite(value) else ""}</text>'
            )
    return "".join(parts)


def legend_chart(
    width: float,
    height: float,
    draw: Callable[[Box], str],
    names: Sequence[str],
    *,
    label: str,
    marker="rect",
) -> str:
    """An ``<svg>`` of one panel (``draw(box)``) under a legend of its series ``names``; a
    legend wider than the figure wraps onto more lines, and the figure grows by their height."""
    extra = legend_height(width, names) - _LEGEND_LINE
    return svg(
        width,
        height + extra,
        [draw((0, 24 + extra, width, height - 24)), legend(50, 16, names, marker=marker, width=width)],
        label=label,
    )


_LEGEND_LINE = 16.0


def _legend_entries(x: float, width: float | None, names: Sequence[str]) -> list[tuple[float, int, str]]:
    """(x, line, shown text) of each legend entry, wrapped before ``width``."""
    entries, position, line = [], x, 0
    for name in names:
        shown = _label(name)
        size = 24 + text_width(shown)
        if width is not None and position > x and position + size > width - 4:
            position, line = x, line + 1
        entries.append((position, line, shown))
        position += size
    return entries


def legend_height(width: float, names: Sequence[str], x: float = 50) -> float:
    """The height of :func:`legend`'s lines for these names in a figure ``width`` wide."""
    entries = _legend_entries(x, width, names)
    return _LEGEND_LINE * (1 + max((line for _, line, _ in entries), default=0))


def legend(
    x: float, y: float, names: Sequence[str], *, marker: str = "rect", width: float | None = None
) -> str:
    """A horizontal legend: one colour swatch and name per series, from ``(x, y)``, wrapped onto
    further lines before ``width``; a cut name keeps its full text as a ``<title>``."""
    parts = ['<g class="legend">']
    for k, (position, line, shown) in enumerate(_legend_entries(x, width, names)):
        colour, top = PALETTE[k % len(PALETTE)], y + line * _LEGEND_LINE
        if marker == "rect":
            parts.append(
                f'<rect x="{position:.1f}" y="{top - 9:.1f}" width="10" height="10" fill="{colour}"/>'
            )
        else:
            parts.append(f'<circle cx="{position + 5:.1f}" cy="{top - 4:.1f}" r="4" fill="{colour}"/>')
        tooltip = f"<title>{_text(names[k])}</title>" if shown != str(names[k]) else ""
        parts.append(f'<text x="{position + 14:.1f}" y="{top:.1f}">{tooltip}{_text(shown)}</text>')
    return "".join(parts) + "</g>"


# --------------------------------------------------------------------------------------
# axes
# --------------------------------------------------------------------------------------
def _frame(box, low, high, title, x_title, y_title, vertical_grid=True, room: float = 0.0):
    """The inner plotting box, the title, the y axis with grid lines and the axis titles
    (``room``: extra height below the axis, for vertical category labels)."""
    x0, y0, width, height = box
    inner = (
        x0 + _MARGIN[0],
        y0 + _MARGIN[1],
        width - _MARGIN[0] - _MARGIN[2],
        height - _MARGIN[1] - _MARGIN[3] - room,
    )
    ix, iy, iw, ih = inner
    scale = _scale(low, high, iy + ih, iy)
    parts = [_title(x0 + width / 2, y0, title, width)]
    for value in _ticks(low, high):
        y = scale(value)
        parts.append(
            f'<line x1="{ix:.1f}" x2="{ix + iw:.1f}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e3e3e3"/>'
            f'<text x="{ix - 4:.1f}" y="{y + 4:.1f}" text-anchor="end">{tick(value)}</text>'
        )
    parts.append(
        f'<path d="M{ix:.1f},{iy:.1f}V{iy + ih:.1f}H{ix + iw:.1f}" stroke="#555" fill="none"/>'
        f'<text x="{ix + iw / 2:.1f}" y="{iy + ih + room + 30:.1f}" text-anchor="middle">'
        f"{_fitted(x_title, iw)}</text>"
        f'<text transform="translate({x0 + 10:.1f},{iy + ih / 2:.1f}) rotate(-90)" text-anchor="middle">'
        f"{_fitted(y_title, ih)}</text>"
    )
    return inner, parts


def _x_axis(inner, low, high, scale, x_title) -> str:
    ix, iy, iw, ih = inner
    parts = [f'<path d="M{ix:.1f},{iy + ih:.1f}H{ix + iw:.1f}" stroke="#555" fill="none"/>']
    for value in _ticks(low, high):
        x = scale(value)
        parts.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{iy:.1f}" y2="{iy + ih:.1f}" stroke="#e3e3e3"/>'
            f'<text x="{x:.1f}" y="{iy + ih + 13:.1f}" text-anchor="middle">{tick(value)}</text>'
        )
    parts.append(
        f'<text x="{ix + iw / 2:.1f}" y="{iy + ih + 28:.1f}" text-anchor="middle">'
        f"{_fitted(x_title, iw)}</text>"
    )
    return "".join(parts)


def _scale(low, high, start, end):
    span = (high - low) or 1.0
    return lambda value: start + (float(value) - low) / span * (end - start)


def _step(span: float) -> float:
    raw = span / 5
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)


def _ticks(low: float, high: float) -> list[float]:
    step = _step(high - low)
    first = math.ceil(low / step - 1e-9)
    return [round(k * step, 10) for k in range(first, int(math.floor(high / step + 1e-9)) + 1)]


#: Bold text is about this much wider than :func:`text_width`'s estimate.
_BOLD = 1.1


def _title(x: float, y: float, title: str, width: float) -> str:
    """A panel's title centred on ``x``, cut with an ellipsis to fit the panel's ``width`` (side
    by side panels would otherwise print over each other); a cut title keeps its full text as a
    ``<title>`` tooltip."""
    shown = _fit(title, (width - 8) / _BOLD)
    tooltip = f"<title>{_text(title)}</title>" if shown != str(title) else ""
    return (
        f'<text class="title" x="{x:.1f}" y="{y + 15:.1f}" text-anchor="middle" font-weight="bold">'
        f"{tooltip}{_text(shown)}</text>"
    )


def _x_label(x: float, y: float, label: str, *, vertical: bool = False) -> str:
    """A category label under the axis, horizontal or (``vertical``) reading upwards; a cut
    label keeps its full text as a ``<title>`` tooltip."""
    shown = _label(label)
    tooltip = f"<title>{_text(label)}</title>" if shown != str(label) else ""
    if vertical:
        return (
            f'<text class="category" transform="translate({x + 4:.1f},{y + 6:.1f}) rotate(-90)" '
            f'text-anchor="end">{tooltip}{_text(shown)}</text>'
        )
    return (
        f'<text class="category" x="{x:.1f}" y="{y + 13:.1f}" text-anchor="middle">'
        f"{tooltip}{_text(shown)}</text>"
    )


def _row_label(x: float, y: float, label: str, room: float) -> str:
    shown = _fit(label, room)
    tooltip = f"<title>{_text(label)}</title>" if shown != str(label) else ""
    return f'<text class="category" x="{x:.1f}" y="{y:.1f}" text-anchor="end">{tooltip}{_text(shown)}</text>'


def _fill(colour: str, small: bool, clipped: bool) -> str:
    """A bar's paint: solid, or hollow for a small group; the data flags tests and readers use."""
    paint = (
        f'fill="#fff" stroke="{colour}" stroke-width="1.5" data-small="true"' if small else f'fill="{colour}"'
    )
    return paint + (' data-clipped="true"' if clipped else "")


def _arrow(x: float, y: float, sign: int) -> str:
    """A small triangle at the axis edge ``x`` pointing outwards (``sign`` +1 right, -1 left)."""
    return (
        f'<path class="clipped" d="M{x - sign * 6:.1f},{y - 4:.1f}L{x:.1f},{y:.1f}'
        f'L{x - sign * 6:.1f},{y + 4:.1f}Z" '
        f'fill="{_CLIPPED}"/>'
    )


def _reference(x: float, width: float, y: float, value: float) -> str:
    return (
        f'<line class="reference" x1="{x:.1f}" x2="{x + width:.1f}" y1="{y:.1f}" y2="{y:.1f}" stroke="#000" '
        f'stroke-dasharray="4 3" stroke-width="0.8" data-value="{value!r}"/>'
    )


def text_width(text) -> float:
    """Estimated width in pixels of ``text`` at 11 px sans-serif, on the generous side (so
    that labels judged to fit do fit): narrow, middle, capital, widest and wide (East Asian,
    emoji) characters."""
    text = str(text)
    narrow = sum(c in "ijlrtfI.,:;'|!() " for c in text)
    widest = sum(c in "mwMW" for c in text)
    capital = sum(c.isupper() or c in "_" for c in text) - sum(c in "IMW" for c in text)
    # Chinese, Japanese and Korean characters take a whole em, colour emoji about 1.25 em
    wide = sum(unicodedata.east_asian_width(c) in "WF" for c in text)
    emoji = sum(ord(c) >= 0x1F000 for c in text)
    middle = len(text) - narrow - widest - capital - wide
    return CHAR_WIDTH * (0.45 * narrow + 1.4 * widest + capital + 1.6 * wide + 0.35 * emoji + 0.88 * middle)


def _fitted(label, room: float) -> str:
    """The escaped content of a ``<text>``: ``label`` cut to fit ``room`` pixels, with its full
    text as a ``<title>`` tooltip when cut."""
    shown = _fit(label, room)
    return (f"<title>{_text(label)}</title>" if shown != str(label) else "") + _text(shown)


def _fit(label, room: float) -> str:
    """``label``, cut with an ellipsis to the longest start that fits in ``room`` pixels."""
    label = str(label)
    if text_width(label) <= room:
        return label
    size = len(label)
    while size > 2 and text_width(label[: size - 1] + "…") > room:
        size -= 1
    return label[: size - 1] + "…"


def _label(label) -> str:
    """A category or legend label as shown: at most :data:`LABEL_CHARS` characters and as wide
    as that many capitals (20 Chinese characters or emoji would be half as wide again)."""
    return _fit(_short(label, LABEL_CHARS), LABEL_CHARS * CHAR_WIDTH)


def _short(label, size: int) -> str:
    label = str(label)
    return label if len(label) <= size else label[: size - 1] + "…"


def _text(value) -> str:
    return html.escape(str(value))
