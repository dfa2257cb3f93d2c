"""Figures of ``df.detection``'s tables: detector PR curves, per-label AP bars, confusion
heatmaps (detection and classification), ROC curves, classification PR curves,
segmentation IoU bars, the masks of one image (instance segmentation) and its skeletons
(keypoints).

Every drawing function takes the tidy table the accessor returns, keyword-only options and
``ax=None``, returns the Axes it drew on and never changes the table. ``df.detection.plot``
(:class:`DetectionPlots`) computes the table and draws it in one call.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from pdmetrics._docstrings import fill
from pdmetrics._groups import POOLED_LABEL
from pdmetrics._optional import optional_module
from pdmetrics._validation import plain, preview
from pdmetrics.detection.box_confusion import confusion as box_confusion_table
from pdmetrics.detection.curves import pr_curve as pr_curve_table
from pdmetrics.detection.error_types import MAIN_ERRORS, SPECIAL_ERRORS
from pdmetrics.detection.error_types import errors as errors_table
from pdmetrics.detection.evaluation import average_precision as average_precision_table
from pdmetrics.detection.evaluation import match as match_table
from pdmetrics.detection.inputs import BoxColumns
from pdmetrics.detection.label_tables import classification
from pdmetrics.detection.operating import one_iou_threshold
from pdmetrics.detection.operating import operating_points as operating_points_table
from pdmetrics.detection.options import COCO_ATTRS, one_number
from pdmetrics.detection.semantic import segmentation as segmentation_table
from pdmetrics.errors import InvalidInputError
from pdmetrics.plotting.axes import AXES_DOC, axes_for, check_table, choose, heatmap
from pdmetrics.plotting.comparison import comparison_method

__all__ = [
    "pr_curve",
    "operating_points",
    "average_precision",
    "errors",
    "confusion",
    "classification_confusion",
    "roc_curve",
    "classification_pr_curve",
    "segmentation",
    "masks",
    "skeletons",
    "DetectionPlots",
    "MAX_LABELS",
    "UNMATCHED",
]

#: Labels drawn by the curve figures when ``labels=`` is not given (the first ones in the table).
MAX_LABELS = 10
#: Row/column name of the unmatched cells in the confusion heatmaps.
UNMATCHED = "(none)"
#: Above this many labels the bar figures turn horizontal.
HORIZONTAL_FROM = 9
NORMALIZE = (None, "true", "pred", "all")
LINE_STYLES = ("-", "--", ":", "-.")
LABEL_BOX = {"facecolor": "white", "edgecolor": "none", "alpha": 0.8, "pad": 1.0}


def selected_labels(table: pd.DataFrame, labels, max_labels: int) -> list:
    """``labels`` (checked against the table) or the first ``max_labels`` labels of the table."""
    available = list(pd.unique(table["label"]))
    if labels is None:
        return available[:max_labels]
    labels = [labels] if isinstance(labels, (str, int, np.integer)) else list(labels)
    unknown = [label for label in labels if label not in available]
    if unknown:
        raise InvalidInputError(
            f"`labels=` holds {preview(unknown)}, not in the table's 'label' column; pass labels among "
            f"{preview(available)}."
        )
    return labels


def draw_lines(ax, groups, x: str, y: str, marker=None) -> None:
    """One line per ``(legend text, rows, style)`` of ``groups``; colors by label, a legend."""
    for text, rows, color, style in groups:
        ax.plot(
            rows[x].to_numpy(float), rows[y].to_numpy(float), label=text, color=color, ls=style, marker=marker
        )
    if groups:
        ax.legend(fontsize="small", loc="best")


def unit_square(ax, xlabel: str, ylabel: str, title: str):
    """Both axes on [0, 1] with labels and a title; returns ``ax``."""
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    return ax


def color(index: int) -> str:
    """The ``index``-th color of matplotlib's default cycle (tab10)."""
    return f"C{index % 10}"


@fill(axes=AXES_DOC)
def pr_curve(table: pd.DataFrame, *, labels=None, iou_thresholds=None, max_labels: int = MAX_LABELS, ax=None):
    """Precision-recall curves of a detector: one line per label and IoU threshold.

    Parameters
    ----------
    table : DataFrame
        :func:`pdmetrics.detection.pr_curve` (``df.detection.pr_curve``), either style:
        columns ``label, iou, recall, precision``.
    labels : label or list of labels, optional
        The labels to draw, in this order. Default: the first ``max_labels`` labels of the
        table (all of them when there are at most ``max_labels``).
    iou_thresholds : float or list of float, optional
        The IoU thresholds to draw. Default: every threshold of the table when it has at
        most three, otherwise 0.5 and 0.75 (COCO's two named ones; the first and the last
        threshold when the table lacks them).
    max_labels : int, default 10
    {axes}
        Recall on x, precision on y, both on [0, 1]; one color per label and one line style
        per IoU threshold, with a legend.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.plotting.detection import pr_curve
    >>> table = pd.DataFrame({"label": ["cat"] * 3 + ["dog"] * 3, "iou": 0.5,
    ...                       "recall": [0, 0.5, 1] * 2, "precision": [1, 1, 0.5, 1, 0.5, 0.2]})
    >>> ax = pr_curve(table)
    >>> [line.get_label() for line in ax.get_lines()]
    ['cat', 'dog']
    """
    check_table(table, ("label", "iou", "recall", "precision"), "`df.detection.pr_curve(...)`")
    available = sorted(pd.unique(table["iou"]))
    if iou_thresholds is None:
        named = [t for t in available if np.isclose(t, 0.5) or np.isclose(t, 0.75)]
        iou_thresholds = available if len(available) <= 3 else named or [available[0], available[-1]]
    thresholds = [choose(table, "iou", t, "iou_thresholds") for t in np.atleast_1d(iou_thresholds)]
    chosen = selected_labels(table, labels, max_labels)
    groups = []
    for i, label in enumerate(chosen):
        for j, threshold in enumerate(thresholds):
            rows = table[(table["label"] == label) & (table["iou"] == threshold)]
            text = str(label) if len(thresholds) == 1 else f"{label}, IoU {threshold:.2f}"
            groups.append((text, rows, color(i), LINE_STYLES[j % len(LINE_STYLES)]))
    ax = axes_for(ax)
    draw_lines(ax, groups, "recall", "precision", marker="." if "score_threshold" in table.columns else None)
    title = "Precision-recall" + (f" at IoU {thresholds[0]:.2f}" if len(thresholds) == 1 else "")
    return unit_square(ax, "recall", "precision", title)


@fill(axes=AXES_DOC)
def operating_points(table: pd.DataFrame, *, curve=None, labels=None, max_labels: int = MAX_LABELS, ax=None):
    """The chosen operating point of each label, on its precision-recall curve.

    Parameters
    ----------
    table : DataFrame
        :func:`pdmetrics.detection.operating_points` (``df.detection.operating_points``):
        columns ``label, score_threshold, precision, recall``.
    curve : DataFrame, optional
        :func:`pdmetrics.detection.pr_curve` at the same IoU threshold, either style, drawn
        under the points (``df.detection.plot.operating_points`` draws valor's counts at
        thresholds 0, 0.01, ..., 1 and the chosen ones, so every point lies on its curve).
    labels : label or list of labels, optional
        The labels to draw; default the first ``max_labels`` of the table.
    max_labels : int, default 10
    {axes}
        Recall on x, precision on y: one marker per label (the label's color) with its
        score threshold written beside it, the pooled ``"(all)"`` point as a black star;
        a label without a chosen point has no marker.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.plotting.detection import operating_points
    >>> table = pd.DataFrame({"label": ["cat", "dog", "(all)"], "score_threshold": [0.6, 0.3, 0.5],
    ...                       "precision": [0.9, 0.7, 0.8], "recall": [0.8, 0.6, 0.7]})
    >>> ax = operating_points(table)
    >>> [text.get_text() for text in ax.texts]
    ['0.6', '0.3', '0.5']
    """
    producer = "`df.detection.operating_points(...)`"
    check_table(table, ("label", "score_threshold", "precision", "recall"), producer)
    per_label = table[table["label"] != POOLED_LABEL]
    chosen = selected_labels(per_label, labels, max_labels)
    ax = axes_for(ax)
    if curve is not None:
        check_table(curve, ("label", "recall", "precision"), "`df.detection.pr_curve(...)`", argument="curve")
        if "score_threshold" in curve.columns:
            curve = curve.sort_values("score_threshold", ascending=False, kind="stable")
        drawn = set(pd.unique(curve["label"]))
        groups = [
            (str(label), curve[curve["label"] == label], color(i), "-")
            for i, label in enumerate(chosen)
            if label in drawn
        ]
        draw_lines(ax, groups, "recall", "precision")
    marks = [(label, color(i), "o") for i, label in enumerate(chosen)]
    marks += [(POOLED_LABEL, "black", "*")] if (table["label"] == POOLED_LABEL).any() else []
    for label, tint, marker in marks:
        point = table[table["label"] == label].iloc[0]
        if pd.isna(point["score_threshold"]):
            continue
        recall, precision = float(point["recall"]), float(point["precision"])
        text = str(label) if curve is None or label == POOLED_LABEL else None
        ax.plot([recall], [precision], marker=marker, color=tint, ls="none", ms=9, label=text)
        ax.annotate(
            f"{float(point['score_threshold']):.3g}",
            (recall, precision),
            xytext=(5, 5),
            textcoords="offset points",
            fontsize="small",
            bbox=LABEL_BOX,
        )
    if ax.get_lines():
        ax.legend(fontsize="small", loc="best")
    iou = table["iou"].iloc[0] if "iou" in table.columns and len(table) else None
    title = "Operating points" + (f" at IoU {iou:.2f}" if iou is not None else "")
    return unit_square(ax, "recall", "precision", title)


def bars(ax, names, values, *, metric: str, reference: float, reference_text: str, horizontal):
    """Bars of ``values`` sorted from the highest (NaN last), a reference line; returns ``ax``."""
    values = np.asarray(values, dtype=float)
    order = np.argsort(np.where(np.isnan(values), np.inf, -values), kind="stable")
    names = [str(names[i]) for i in order]
    values = values[order]
    if horizontal is None:
        horizontal = len(names) >= HORIZONTAL_FROM
    positions = np.arange(len(names))
    if horizontal:
        container = ax.barh(positions, values, color="C0")
        ax.set_yticks(positions, names)
        ax.invert_yaxis()  # the best label on top
        ax.set_xlim(0.0, 1.0)
        ax.set_xlabel(metric)
        line = ax.axvline
    else:
        container = ax.bar(positions, values, color="C0")
        ax.set_xticks(positions, names)
        if any(len(name) > 3 for name in names):
            ax.tick_params(axis="x", labelrotation=45)
        ax.set_ylim(0.0, 1.0)
        ax.set_ylabel(metric)
        line = ax.axhline
    # a white box under each value keeps it readable where the reference line crosses it
    ax.bar_label(container, fmt="%.3f", fontsize="small", zorder=4, bbox=LABEL_BOX)
    if np.isfinite(reference):
        line(reference, color="C3", ls="--", label=f"{reference_text} = {reference:.3f}")
        # the lowest bar is at the right (vertical) or at the bottom (horizontal): the legend goes there
        ax.legend(fontsize="small", loc="lower right" if horizontal else "upper right")
    return ax


@fill(axes=AXES_DOC)
def average_precision(table: pd.DataFrame, *, iou_threshold=None, area=None, horizontal=None, ax=None):
    """Per-label average precision as bars, sorted from the best label, with mAP as a line.

    Parameters
    ----------
    table : DataFrame
        :func:`pdmetrics.detection.average_precision` (``df.detection.average_precision``):
        columns ``label, AP`` (and ``area``, ``AP@<t>``); the pooled row ``"(all)"`` is
        drawn as the mAP line.
    iou_threshold : float, optional
        Draw ``AP@<t>`` (e.g. ``0.5`` for AP50); default ``AP``, the mean over the table's
        IoU thresholds.
    area : str, optional
        The area range to draw when the table has several; default ``"all"`` (else the first).
    horizontal : bool, optional
        Horizontal bars; default when there are 9 labels or more.
    {axes}
        One bar per label (labels without ground truth, NaN, last and empty), the value on
        each bar, and a dashed mAP line when the table has the ``"(all)"`` row.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.plotting.detection import average_precision
    >>> table = pd.DataFrame({"label": ["cat", "dog", "(all)"], "AP": [0.4, 0.8, 0.6],
    ...                       "AP@0.50": [0.7, 0.9, 0.8]})
    >>> ax = average_precision(table, iou_threshold=0.5)
    >>> [float(bar.get_height()) for bar in ax.patches], ax.get_ylabel()
    ([0.9, 0.7], 'AP@0.50')
    """
    check_table(table, ("label", "AP"), "`df.detection.average_precision(...)`")
    column = "AP" if iou_threshold is None else f"AP@{float(iou_threshold):.2f}"
    if column not in table.columns:
        available = [c for c in table.columns if str(c).startswith("AP@")]
        raise InvalidInputError(
            f"`iou_threshold={plain(iou_threshold)!r}`: the table has no {column!r} column; pass one of "
            f"{preview([float(c[3:]) for c in available])}, or None for the mean over thresholds ('AP')."
        )
    if "area" in table.columns:
        table = table[table["area"] == choose(table, "area", area, "area", default="all")]
    pooled = table["label"] == POOLED_LABEL
    reference = float(table.loc[pooled, column].iloc[0]) if pooled.any() else float("nan")
    rows = table[~pooled]
    ax = axes_for(
        ax, figsize=(6.4, max(4.8, 0.3 * len(rows))) if len(rows) >= HORIZONTAL_FROM else (6.4, 4.8)
    )
    bars(
        ax,
        rows["label"].tolist(),
        rows[column],
        metric=column,
        reference=reference,
        reference_text="mAP",
        horizontal=horizontal,
    )
    ax.set_title(f"{column} per label")
    return ax


#: Colors of TIDE's error types (main errors, then the two special ones in grey).
ERROR_COLORS = dict(
    zip([*MAIN_ERRORS, *SPECIAL_ERRORS], ["C0", "C1", "C2", "C3", "C4", "C5", "0.45", "0.65"])
)


@fill(axes=AXES_DOC)
def errors(table: pd.DataFrame, *, label=None, ax=None):
    """TIDE's error breakdown as tidecv's summary draws it: the dAP of each error type as
    bars, and the share of each main error in a pie.

    Parameters
    ----------
    table : DataFrame
        :func:`pdmetrics.detection.errors` (``df.detection.errors``): columns ``label, error,
        kind, ap, dap``.
    label : label, optional
        The label whose rows to draw; default the overall rows ``"(all)"``.
    {axes}
        One bar per error type (the six main errors in color, ``FalsePos`` and ``FalseNeg``
        in grey) with its dAP written on it, and, in the upper right corner, a pie of the
        main errors' dAP (their shares of the AP the main errors cost; no pie when they
        cost nothing). The title gives the AP the dAPs add to.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.plotting.detection import errors
    >>> table = pd.DataFrame({"label": "(all)", "error": ["Cls", "Loc", "Both", "Dupe", "Bkg",
    ...                       "Miss", "FalsePos", "FalseNeg"], "kind": ["main"] * 6 + ["special"] * 2,
    ...                       "ap": 0.5, "dap": [0.02, 0.08, 0.01, 0.0, 0.05, 0.04, 0.2, 0.15]})
    >>> ax = errors(table)
    >>> [round(float(bar.get_height()), 2) for bar in ax.patches]
    [0.02, 0.08, 0.01, 0.0, 0.05, 0.04, 0.2, 0.15]
    >>> ax.get_title()
    'TIDE errors (AP 0.500 at IoU 0.50)'
    """
    check_table(table, ("label", "error", "kind", "ap", "dap"), "`df.detection.errors(...)`")
    chosen = choose(table, "label", label, "label", default=POOLED_LABEL)
    rows = table[table["label"] == chosen]
    names = [str(name) for name in rows["error"]]
    values = rows["dap"].to_numpy(dtype=float)
    ax = axes_for(ax, figsize=(8.0, 4.8))
    positions = np.arange(len(names))
    container = ax.bar(positions, values, color=[ERROR_COLORS.get(name, "C7") for name in names])
    ax.bar_label(container, fmt="%.3f", fontsize="small")
    ax.set_xticks(positions, names)
    ax.set_ylabel("dAP (AP gained by fixing it)")
    top = np.nanmax(values, initial=0.0)
    ax.set_ylim(0.0, max(top * 2.2, 0.01))  # room for the pie above the bars
    main = (rows["kind"] == "main").to_numpy() & np.isfinite(values) & (values > 0)
    if main.any():
        pie = ax.inset_axes([0.6, 0.52, 0.38, 0.46])
        _, texts = pie.pie(
            values[main],
            labels=[names[i] for i in np.flatnonzero(main)],
            colors=[ERROR_COLORS.get(names[i], "C7") for i in np.flatnonzero(main)],
            textprops={"fontsize": "x-small"},
            startangle=90,
            counterclock=False,
        )
        for text, share in zip(texts, values[main] / values[main].sum()):
            text.set_visible(share >= 0.03)  # a sliver's name would overlap its neighbour's; its bar names it
        pie.set_title("main errors", fontsize="small")
    ap = float(rows["ap"].iloc[0]) if len(rows) else float("nan")
    iou = table.attrs.get("pdmetrics", {}).get("foreground_threshold", 0.5)
    where = "" if chosen == POOLED_LABEL else f" of {plain(chosen)}"
    ax.set_title(f"TIDE errors{where} (AP {ap:.3f} at IoU {iou:.2f})")
    return ax


def matrix_of(table: pd.DataFrame, score_threshold, normalize):
    """The (truth x prediction) count matrix of one threshold, unmatched last; row and column names."""
    if normalize not in NORMALIZE:
        raise InvalidInputError(
            f"`normalize={plain(normalize)!r}`: pass None (counts), 'true' (rows sum to 1), 'pred' "
            f"(columns sum to 1) or 'all' (as scikit-learn's confusion_matrix)."
        )
    threshold = choose(table, "score_threshold", score_threshold, "score_threshold", default=0.5)
    rows = table[table["score_threshold"] == threshold]
    truth, prediction = rows["truth"], rows["prediction"]
    labels = pd.unique(pd.concat([truth.dropna(), prediction.dropna()], ignore_index=True))
    index = pd.Index(labels)
    has_row = int(truth.isna().any())
    has_column = int(prediction.isna().any())
    n = len(index)
    counts = np.full((n + has_row, n + has_column), np.nan)
    r = np.where(truth.isna(), n, index.get_indexer(truth.fillna(labels[0] if n else 0)))
    c = np.where(prediction.isna(), n, index.get_indexer(prediction.fillna(labels[0] if n else 0)))
    counts[r, c] = rows["count"].to_numpy(float)
    if normalize == "true":
        counts = counts / np.nansum(counts, axis=1, keepdims=True)
    elif normalize == "pred":
        counts = counts / np.nansum(counts, axis=0, keepdims=True)
    elif normalize == "all":
        counts = counts / np.nansum(counts)
    names = [str(label) for label in labels]
    return counts, names + [UNMATCHED] * has_row, names + [UNMATCHED] * has_column, threshold


def draw_confusion(table, producer, score_threshold, normalize, ax, titles):
    """Check the table, build the matrix and draw the heatmap with ``titles`` (row, column)."""
    check_table(table, ("score_threshold", "truth", "prediction", "count"), producer)
    with np.errstate(invalid="ignore", divide="ignore"):
        counts, row_names, column_names, threshold = matrix_of(table, score_threshold, normalize)
    ax = axes_for(ax, figsize=(1.0 + 0.7 * len(column_names), 0.8 + 0.6 * len(row_names)))
    ax = heatmap(
        ax,
        counts,
        row_names,
        column_names,
        row_title=titles[0],
        column_title=titles[1],
        fmt="{:.0f}" if normalize is None else "{:.2f}",
    )
    ax.set_title(
        f"Score threshold {plain(threshold):g}" + ("" if normalize is None else f", normalized ({normalize})")
    )
    return ax


@fill(axes=AXES_DOC)
def confusion(table: pd.DataFrame, *, score_threshold=None, normalize=None, ax=None):
    """The detection confusion matrix as an annotated heatmap, unmatched boxes included.

    Rows are ground-truth labels plus a ``"(none)"`` row (detections paired with no ground
    truth: hallucinations); columns are predicted labels plus a ``"(none)"`` column (ground
    truths paired with no detection: missed). The ``("(none)", "(none)")`` cell is empty.

    Parameters
    ----------
    table : DataFrame
        ``df.detection.confusion(..., table="matrix")`` (:func:`pdmetrics.detection.confusion`):
        columns ``score_threshold, truth, prediction, count``.
    score_threshold : float, optional
        The threshold to draw when the table has several; default 0.5 (else the first).
    normalize : {None, "true", "pred", "all"}
        As scikit-learn's ``confusion_matrix``: counts, or fractions of each row, each
        column or the total.
    {axes}

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.plotting.detection import confusion
    >>> table = pd.DataFrame({"score_threshold": 0.5,
    ...                       "truth": ["cat", "cat", "dog", "dog", "cat", "dog", None, None],
    ...                       "prediction": ["cat", "dog", "cat", "dog", None, None, "cat", "dog"],
    ...                       "count": [5, 1, 0, 4, 2, 1, 3, 0]})
    >>> ax = confusion(table)
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['cat', 'dog', '(none)']
    >>> [t.get_text() for t in ax.texts]
    ['5', '1', '2', '0', '4', '1', '3', '0']
    """
    producer = '`df.detection.confusion(..., table="matrix")`'
    return draw_confusion(table, producer, score_threshold, normalize, ax, ("ground truth", "detection"))


def classification_confusion(table: pd.DataFrame, *, score_threshold=None, normalize=None, ax=None):
    """The classification confusion matrix as an annotated heatmap.

    Rows are true labels, columns predicted labels plus a ``"(none)"`` column (datums
    with no positive prediction at the threshold).

    Parameters
    ----------
    table : DataFrame
        ``df.detection.classification(..., table="confusion")``: columns
        ``score_threshold, truth, prediction, count``.
    score_threshold, normalize, ax
        As in :func:`confusion` (the default threshold is 0.5 when the table has it, else
        its first one: valor's default table has only 0.0).

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.plotting.detection import classification_confusion
    >>> table = pd.DataFrame({"score_threshold": 0.0, "truth": ["cat", "cat", "dog", "dog"],
    ...                       "prediction": ["cat", "dog", "cat", "dog"], "count": [3, 1, 0, 4]})
    >>> ax = classification_confusion(table, normalize="true")
    >>> [t.get_text() for t in ax.texts]
    ['0.75', '0.25', '0.00', '1.00']
    """
    producer = '`df.detection.classification(..., table="confusion")`'
    return draw_confusion(table, producer, score_threshold, normalize, ax, ("true label", "predicted label"))


def curve_auc(rows: pd.DataFrame) -> float:
    """Trapezoid area under one label's ROC points; NaN when the curve does not reach (1, 1)."""
    fpr, tpr = rows["fpr"].to_numpy(float), rows["tpr"].to_numpy(float)
    if fpr.size == 0 or fpr[-1] != 1.0 or tpr[-1] != 1.0:
        return float("nan")
    return float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1])) / 2.0)


@fill(axes=AXES_DOC)
def roc_curve(table: pd.DataFrame, *, labels=None, max_labels: int = MAX_LABELS, ax=None):
    """One-vs-rest ROC curves, one line per label with its AUC in the legend, and the chance line.

    Parameters
    ----------
    table : DataFrame
        ``df.detection.classification(..., table="roc_curve")``
        (:func:`pdmetrics.detection.roc_curve`): columns ``label, fpr, tpr``. The AUC is the
        ``roc_auc`` column when the table has one, else the trapezoid area under the
        label's points (the same number as :func:`pdmetrics.detection.roc_auc`); ``n/a``
        for a label without positive or negative datums.
    labels : label or list of labels, optional
        Default: the first ``max_labels`` labels of the table.
    max_labels : int, default 10
    {axes}
        False positive rate on x, true positive rate on y, both on [0, 1]; the dashed
        diagonal is the last line.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.plotting.detection import roc_curve
    >>> table = pd.DataFrame({"label": ["cat"] * 3, "fpr": [0, 0, 1], "tpr": [0, 0.5, 1]})
    >>> [line.get_label() for line in roc_curve(table).get_lines()]
    ['cat (AUC 0.750)', 'chance']
    """
    check_table(table, ("label", "fpr", "tpr"), '`df.detection.classification(..., table="roc_curve")`')
    groups = []
    for i, label in enumerate(selected_labels(table, labels, max_labels)):
        rows = table[table["label"] == label]
        auc = float(rows["roc_auc"].iloc[0]) if "roc_auc" in table.columns else curve_auc(rows)
        text = f"{label} (AUC {auc:.3f})" if np.isfinite(auc) else f"{label} (AUC n/a)"
        groups.append((text, rows, color(i), "-"))
    ax = axes_for(ax)
    draw_lines(ax, groups, "fpr", "tpr")
    ax.plot([0.0, 1.0], [0.0, 1.0], color="grey", ls="--", lw=1, label="chance")
    ax.legend(fontsize="small", loc="lower right")
    return unit_square(ax, "false positive rate", "true positive rate", "ROC (one vs rest)")


@fill(axes=AXES_DOC)
def classification_pr_curve(table: pd.DataFrame, *, labels=None, max_labels: int = MAX_LABELS, ax=None):
    """Precision-recall curves of each label at the table's score thresholds, one line per label.

    Parameters
    ----------
    table : DataFrame
        ``df.detection.classification(..., table="pr_curve")``: columns
        ``label, score_threshold, precision, recall``.
    labels : label or list of labels, optional
        Default: the first ``max_labels`` labels of the table.
    max_labels : int, default 10
    {axes}
        Recall on x, precision on y, both on [0, 1], a marker per threshold (a 0/0
        precision, NaN, leaves a gap).

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.plotting.detection import classification_pr_curve
    >>> table = pd.DataFrame({"label": ["cat", "cat"], "score_threshold": [0.1, 0.9],
    ...                       "precision": [0.5, 1.0], "recall": [1.0, 0.4]})
    >>> classification_pr_curve(table).get_lines()[0].get_xdata().tolist()
    [1.0, 0.4]
    """
    producer = '`df.detection.classification(..., table="pr_curve")`'
    check_table(table, ("label", "score_threshold", "precision", "recall"), producer)
    groups = [
        (str(label), table[table["label"] == label], color(i), "-")
        for i, label in enumerate(selected_labels(table, labels, max_labels))
    ]
    ax = axes_for(ax)
    draw_lines(ax, groups, "recall", "precision", marker=".")
    return unit_square(ax, "recall", "precision", "Precision-recall (each label vs rest)")


@fill(axes=AXES_DOC)
def segmentation(table: pd.DataFrame, *, metric: str = "iou", horizontal=None, ax=None):
    """Per-class segmentation IoU (or another per-class metric) as bars, with the mean as a line.

    Parameters
    ----------
    table : DataFrame
        ``df.detection.segmentation(...)`` (:func:`pdmetrics.detection.segmentation`):
        columns ``label`` and ``metric``.
    metric : {"iou", "precision", "recall", "f1"}
        The column to draw; the line is its mean over the classes where it is defined
        (for ``"iou"``: :func:`pdmetrics.detection.mean_iou`).
    horizontal : bool, optional
        Horizontal bars; default when there are 9 classes or more.
    {axes}

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.plotting.detection import segmentation
    >>> table = pd.DataFrame({"label": [1, 2], "iou": [0.5, 0.9]})
    >>> [float(bar.get_height()) for bar in segmentation(table).patches]
    [0.9, 0.5]
    """
    if metric not in ("iou", "precision", "recall", "f1"):
        raise InvalidInputError(f"`metric={plain(metric)!r}`: pass 'iou', 'precision', 'recall' or 'f1'.")
    check_table(table, ("label", metric), "`df.detection.segmentation(...)`")
    values = table[metric].to_numpy(float)
    mean = float(np.nanmean(values)) if np.isfinite(values).any() else float("nan")
    ax = axes_for(ax)
    bars(
        ax,
        table["label"].tolist(),
        values,
        metric=metric,
        reference=mean,
        reference_text=f"mean {metric}",
        horizontal=horizontal,
    )
    ax.set_title(f"{metric} per class")
    return ax


def masks(
    detections: pd.DataFrame,
    ground_truth: pd.DataFrame,
    *,
    image,
    iou_threshold: float = 0.5,
    score_threshold: float = 0.0,
    ax=None,
    **options,
):
    """The masks of one image: ground truths filled, detections outlined (instance segmentation).

    Each ground truth is filled in its label's color; each detection scoring at least
    ``score_threshold`` is outlined in its label's color, solid when it is a true positive
    at ``iou_threshold`` (COCO's matching, see :func:`pdmetrics.detection.match`) and dashed
    otherwise, and tagged with its label, score and IoU with the ground truth it matched.

    Parameters
    ----------
    detections, ground_truth : DataFrame
        The two tables of :func:`pdmetrics.detection.evaluate` with ``iou_type="segm"``.
    image : image id
        The image to draw.
    iou_threshold : float, default 0.5
    score_threshold : float, default 0.0
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new figure.
    **options
        Columns and options of :func:`pdmetrics.detection.match` (``label=``,
        ``segmentation=``, ``image_sizes=``, ``score=``, ``iscrowd=`` ...).

    Returns
    -------
    matplotlib.axes.Axes
        The image's pixel grid (y down), one filled image per ground truth, one contour per
        detection.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.plotting.detection import masks
    >>> square = [[1, 1, 7, 1, 7, 7, 1, 7]]
    >>> gt = pd.DataFrame({"image": [1], "label": ["cell"], "segmentation": [square]})
    >>> dt = gt.assign(segmentation=[[[2, 1, 8, 1, 8, 7, 2, 7]]], score=0.9)
    >>> ax = masks(dt, gt, image=1, image_sizes={1: (10, 10)})
    >>> [text.get_text() for text in ax.texts]
    ['cell 0.90 IoU 0.71']
    """
    data, matched = _one_image(detections, ground_truth, image, "segm", iou_threshold, None, options)
    ax = axes_for(ax)
    labels = list(data.labels)
    height = int(max(data.gt_masks.height.max(initial=1), data.dt_masks.height.max(initial=1)))
    width = int(max(data.gt_masks.width.max(initial=1), data.dt_masks.width.max(initial=1)))
    colors = optional_module("matplotlib.colors", "plot", "Plotting")
    canvas = np.ones((height, width, 4))
    for mask, code in zip(data.gt_masks.to_masks(), data.gt_label):
        canvas[mask] = 0.55 * canvas[mask] + 0.45 * np.r_[colors.to_rgb(color(int(code))), 1.0]
    ax.imshow(canvas, interpolation="nearest")
    shown = np.flatnonzero(data.dt_score >= one_number(score_threshold, "score_threshold"))
    for i in shown.tolist():
        mask = data.dt_masks.take([i]).to_masks()[0]
        code = int(data.dt_label[i])
        row = matched.loc[i] if i in matched.index else None
        tp = bool(row is not None and row["tp"])
        if mask.any():
            ax.contour(mask.astype(float), levels=[0.5], colors=[color(code)], linestyles="-" if tp else "--")
            ys, xs = np.nonzero(mask)
            iou = "" if row is None or pd.isna(row["iou"]) else f" IoU {row['iou']:.2f}"
            ax.text(
                xs.min(),
                ys.min(),
                f"{plain(labels[code])} {data.dt_score[i]:.2f}{iou}",
                fontsize="small",
                va="bottom",
                bbox=LABEL_BOX,
            )
    ax.set_xlim(-0.5, width - 0.5)
    ax.set_ylim(height - 0.5, -0.5)
    ax.set_title(
        f"image {plain(image)}: ground truths filled, detections outlined\n"
        f"(solid: true positive at IoU {iou_threshold:g})"
    )
    return ax


def _one_image(detections, ground_truth, image, iou_type: str, iou_threshold, max_dets, options: dict):
    """The checked rows of one image (:class:`~pdmetrics.detection.inputs.BoxData`) and their
    match table at ``iou_threshold`` indexed by detection; ``options``: the columns and options
    of :func:`pdmetrics.detection.match`."""
    iou_threshold = one_iou_threshold(
        iou_threshold, "oks_threshold" if iou_type == "keypoints" else "iou_threshold"
    )
    for table, name in ((detections, "detections"), (ground_truth, "ground_truth")):
        if not isinstance(table, pd.DataFrame):
            raise InvalidInputError(f"`{name}=` must be a DataFrame; got {type(table).__name__}.")
    hidden = ("dt_area", "num_keypoints")
    named = [k for k in list(options) if k in BoxColumns.__dataclass_fields__ and k not in hidden]
    columns = BoxColumns(**{k: options.pop(k) for k in named})
    columns = dataclasses.replace(columns, iou_type=iou_type)
    image_column = columns.image
    if image_column in ground_truth.columns and image_column in detections.columns:
        in_gt = ground_truth[image_column] == image
        in_dt = detections[image_column] == image
        if not (in_gt.any() or in_dt.any()):
            raise InvalidInputError(
                f"`image={plain(image)!r}` has no row in either table; pass an id of the "
                f"{image_column!r} column, e.g. {plain(ground_truth[image_column].iloc[0])!r}."
                if len(ground_truth)
                else f"`image={plain(image)!r}` has no row in either table."
            )
        ground_truth, detections = ground_truth[in_gt.to_numpy()], detections[in_dt.to_numpy()]
    data = columns.prepare(detections, ground_truth)
    matched = match_table(
        detections,
        ground_truth=ground_truth,
        iou_thresholds=[iou_threshold],
        max_dets=max_dets,
        **{k: v for k, v in dataclasses.asdict(columns).items() if k not in hidden},
        **options,
    ).set_index("detection")
    return data, matched


def skeletons(
    detections: pd.DataFrame,
    ground_truth: pd.DataFrame,
    *,
    image,
    oks_threshold: float = 0.5,
    score_threshold: float = 0.0,
    skeleton=None,
    max_dets=20,
    ax=None,
    **options,
):
    """The poses of one image: ground-truth skeletons solid, detected ones dashed (keypoints).

    Each ground truth's labelled keypoints (``v > 0``) are drawn as dots joined by the
    ``skeleton``'s edges, in its label's color; each detection scoring at least
    ``score_threshold`` as crosses joined by the same edges, dashed when it is a true positive
    at ``oks_threshold`` (COCO's matching by OKS, see :func:`pdmetrics.detection.match`
    with ``iou_type="keypoints"``) and dotted otherwise, tagged with its label, score and OKS.

    Parameters
    ----------
    detections, ground_truth : DataFrame
        The two tables of :func:`pdmetrics.detection.evaluate` with ``iou_type="keypoints"``.
    image : image id
        The image to draw.
    oks_threshold : float, default 0.5
    score_threshold : float, default 0.0
    skeleton : list of (int, int), optional
        The edges, as COCO's categories list them (keypoints numbered from 1); default the
        skeleton of a :func:`pdmetrics.io.read_coco` file (when its categories share one), else
        the keypoints alone.
    max_dets : int or None, default 20
        Detections matched per image and label (pycocotools' 20 for keypoints).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new figure.
    **options
        Columns and options of :func:`pdmetrics.detection.match` (``keypoints=``, ``sigmas=``,
        ``label=``, ``score=``, ``iscrowd=``, ``area=`` ...).

    Returns
    -------
    matplotlib.axes.Axes
        Image coordinates (y down): one line per skeleton edge, one marker set per pose.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.plotting.detection import skeletons
    >>> gt = pd.DataFrame({"image": [1], "label": ["person"], "x": [0], "y": [0], "w": [20], "h": [40],
    ...                    "keypoints": [[10, 5, 2, 10, 20, 2, 10, 38, 1]]})
    >>> dt = pd.DataFrame({"image": [1], "label": ["person"], "score": [0.9],
    ...                    "keypoints": [[11, 5, 1, 10, 21, 1, 12, 37, 1]]})
    >>> ax = skeletons(dt, gt, image=1, sigmas=[0.05, 0.1, 0.1], skeleton=[(1, 2), (2, 3)])
    >>> [text.get_text() for text in ax.texts]
    ['person 0.90 OKS 0.95']
    """
    edges = _skeleton_edges(skeleton, ground_truth)
    data, matched = _one_image(detections, ground_truth, image, "keypoints", oks_threshold, max_dets, options)
    k = data.sigmas.size
    if edges.size and (edges.min() < 0 or edges.max() >= k):
        raise InvalidInputError(
            f"`skeleton=` joins keypoints {preview(sorted(set((edges + 1).ravel().tolist())), 8)}, but the "
            f"poses have K={k} keypoints (numbered 1 to {k}, as COCO's categories number them)."
        )
    ax = axes_for(ax)
    labels = list(data.labels)
    for pose, code in zip(data.gt_keypoints, data.gt_label):
        _pose(ax, pose, pose[:, 2] > 0, edges, color(int(code)), "o", "-", 2.0)
    for i in np.flatnonzero(data.dt_score >= one_number(score_threshold, "score_threshold")).tolist():
        pose, code = data.dt_keypoints[i], int(data.dt_label[i])
        row = matched.loc[i] if i in matched.index else None
        tp = bool(row is not None and row["tp"])
        _pose(ax, pose, np.ones(k, dtype=bool), edges, color(code), "x", "--" if tp else ":", 1.2)
        oks = "" if row is None or pd.isna(row["iou"]) else f" OKS {row['iou']:.2f}"
        ax.text(
            pose[:, 0].min(),
            pose[:, 1].min(),
            f"{plain(labels[code])} {data.dt_score[i]:.2f}{oks}",
            fontsize="small",
            va="bottom",
            bbox=LABEL_BOX,
        )
    ax.set_aspect("equal")
    if not ax.yaxis_inverted():
        ax.invert_yaxis()
    ax.set_title(
        f"image {plain(image)}: ground truths solid (dots), detections dashed (crosses)\n"
        f"(dashed: true positive at OKS {oks_threshold:g}; dotted: not matched)"
    )
    return ax


def _skeleton_edges(skeleton, ground_truth) -> np.ndarray:
    """The skeleton's edges as 0-based pairs ``(E, 2)``: given, or a read_coco file's."""
    if skeleton is None:
        roles = ground_truth.attrs.get(COCO_ATTRS) if isinstance(ground_truth, pd.DataFrame) else None
        known = roles.get("skeleton") if isinstance(roles, dict) else None
        distinct = {tuple(map(tuple, v)) for v in known.values()} if known else set()
        skeleton = list(distinct.pop()) if len(distinct) == 1 else []
    try:
        edges = np.asarray(skeleton, dtype="int64").reshape(-1, 2) - 1
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"`skeleton=` must be pairs of keypoint numbers such as [(1, 2), (2, 3)]; got "
            f"{plain(skeleton)!r}."
        ) from None
    return edges


def _pose(ax, pose: np.ndarray, shown: np.ndarray, edges: np.ndarray, tint: str, marker, style, width):
    """One pose: its ``shown`` keypoints as markers, the edges between two shown keypoints."""
    for a, b in edges.tolist():
        if shown[a] and shown[b]:
            ax.plot(pose[[a, b], 0], pose[[a, b], 1], linestyle=style, color=tint, linewidth=width)
    ax.plot(pose[shown, 0], pose[shown, 1], linestyle="none", marker=marker, color=tint, markersize=5)


class DetectionPlots:
    """``df.detection.plot``: compute a table of ``df.detection`` and draw it in one call.

    Each method takes the keywords of the accessor method that makes the table (``ground_truth=``
    or ``y_true=``/``score=`` by name; the columns ``image=``, ``label=``, ``box=``, ``score=``,
    ``datum=``, ``y_pred=`` and every other option of that method pass through ``**options``),
    the drawing options of the same-named function of :mod:`pdmetrics.plotting.detection`, and
    ``ax=None``; it returns the Axes.
    """

    def __init__(self, frame: pd.DataFrame) -> None:
        self._frame = frame

    compare = comparison_method("pdmetrics.detection.comparison")

    def pr_curve(
        self, *, ground_truth, labels=None, iou_thresholds=None, max_labels=MAX_LABELS, ax=None, **options
    ):
        """:func:`pdmetrics.detection.pr_curve` drawn by :func:`pdmetrics.plotting.detection.pr_curve`."""
        table = pr_curve_table(
            self._frame, ground_truth=ground_truth, iou_thresholds=iou_thresholds, **options
        )
        return pr_curve(table, labels=labels, iou_thresholds=iou_thresholds, max_labels=max_labels, ax=ax)

    def operating_points(self, *, ground_truth, labels=None, max_labels=MAX_LABELS, ax=None, **options):
        """:func:`pdmetrics.detection.operating_points` drawn on each label's PR curve (valor's
        counts at score thresholds 0, 0.01, ..., 1 and the chosen ones, at the same IoU and
        matching options) by :func:`pdmetrics.plotting.detection.operating_points`."""
        table = operating_points_table(self._frame, ground_truth=ground_truth, **options)
        shared = {k: v for k, v in options.items() if k not in ("objective", "by", "iou_threshold")}
        thresholds = np.unique(np.r_[np.linspace(0.0, 1.0, 101), table["score_threshold"].dropna()])
        curve = pr_curve_table(
            self._frame,
            ground_truth=ground_truth,
            style="valor",
            iou_thresholds=[options.get("iou_threshold", 0.5)],
            score_thresholds=thresholds,
            zero_division=np.nan,
            **shared,
        )
        return operating_points(table, curve=curve, labels=labels, max_labels=max_labels, ax=ax)

    def average_precision(
        self, *, ground_truth, iou_threshold=None, area=None, horizontal=None, ax=None, **options
    ):
        """:func:`pdmetrics.detection.average_precision` drawn as per-label bars."""
        table = average_precision_table(self._frame, ground_truth=ground_truth, **options)
        return average_precision(table, iou_threshold=iou_threshold, area=area, horizontal=horizontal, ax=ax)

    def errors(self, *, ground_truth, label=None, ax=None, **options):
        """:func:`pdmetrics.detection.errors` drawn by :func:`pdmetrics.plotting.detection.errors`."""
        table = errors_table(self._frame, ground_truth=ground_truth, **options)
        return errors(table, label=label, ax=ax)

    def confusion(self, *, ground_truth, score_threshold=0.5, normalize=None, ax=None, **options):
        """:func:`pdmetrics.detection.confusion` (``table="matrix"``) drawn as a heatmap."""
        table = box_confusion_table(
            self._frame,
            ground_truth=ground_truth,
            table="matrix",
            score_thresholds=[score_threshold],
            **options,
        )
        return confusion(table, normalize=normalize, ax=ax)

    def classification_confusion(
        self, *, y_true, score, score_threshold=0.0, normalize=None, ax=None, **options
    ):
        """``df.detection.classification(table="confusion")`` drawn as a heatmap."""
        table = classification(
            self._frame,
            y_true=y_true,
            score=score,
            table="confusion",
            score_thresholds=[score_threshold],
            **options,
        )
        return classification_confusion(table, normalize=normalize, ax=ax)

    def roc_curve(self, *, y_true, score, labels=None, max_labels=MAX_LABELS, ax=None, **options):
        """``df.detection.classification(table="roc_curve")`` drawn as ROC curves."""
        table = classification(self._frame, y_true=y_true, score=score, table="roc_curve", **options)
        return roc_curve(table, labels=labels, max_labels=max_labels, ax=ax)

    def classification_pr_curve(
        self, *, y_true, score, labels=None, max_labels=MAX_LABELS, ax=None, **options
    ):
        """``df.detection.classification(table="pr_curve")`` drawn as PR curves."""
        table = classification(self._frame, y_true=y_true, score=score, table="pr_curve", **options)
        return classification_pr_curve(table, labels=labels, max_labels=max_labels, ax=ax)

    def segmentation(self, *, y_true, y_pred, metric="iou", horizontal=None, ax=None, **options):
        """:func:`pdmetrics.detection.segmentation` drawn as per-class bars."""
        table = segmentation_table(self._frame, y_true=y_true, y_pred=y_pred, **options)
        return segmentation(table, metric=metric, horizontal=horizontal, ax=ax)

    def skeletons(self, *, ground_truth, image, oks_threshold=0.5, score_threshold=0.0, ax=None, **options):
        """The poses of one image drawn by :func:`pdmetrics.plotting.detection.skeletons`."""
        return skeletons(
            self._frame,
            ground_truth,
            image=image,
            oks_threshold=oks_threshold,
            score_threshold=score_threshold,
            ax=ax,
            **options,
        )

    def masks(self, *, ground_truth, image, iou_threshold=0.5, score_threshold=0.0, ax=None, **options):
        """The masks of one image drawn by :func:`pdmetrics.plotting.detection.masks`."""
        return masks(
            self._frame,
            ground_truth,
            image=image,
            iou_threshold=iou_threshold,
            score_threshold=score_threshold,
            ax=ax,
            **options,
        )
