"""Object-detection metrics from two long tables: COCO summary, per-label AP/AR, matches.

Every function takes the detections table first and the ground-truth table as
``ground_truth=``, both with one row per box and the same column names (``image=``,
``label=``, ``box=``), plus ``score=`` for detections. Each is a table spec keyed on the image
(:func:`~pdmetrics.detection.match_state.box_spec`), run by every engine: the functions behind
``df.detection.evaluate``, ``average_precision``, ``average_recall`` and ``match``.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._groups import POOLED_LABEL, check_not_pooled
from pdmetrics._table_spec import table
from pdmetrics._tables import attach_info, result_table
from pdmetrics._validation import plain
from pdmetrics._warnings import warn_undefined
from pdmetrics.detection.coco import coco_summary
from pdmetrics.detection.error_types import typed_matches
from pdmetrics.detection.inputs import BoxColumns, box_columns
from pdmetrics.detection.match_state import (
    BoxTable,
    Run,
    box_spec,
    match_state,
    run_from_state,
    run_options,
    run_options_of,
)
from pdmetrics.detection.options import (
    COCO_MAX_DETS,
    KEYPOINT_AREA_RANGES,
    KEYPOINT_MAX_DETS,
    LABELS_WITHOUT_GT,
    UNLIMITED,
    check_choice,
    number_array,
)
from pdmetrics.errors import InvalidInputError

__all__ = [
    "evaluate",
    "average_precision",
    "average_recall",
    "match",
]


def run(detections, ground_truth, columns: BoxColumns, **options) -> Run:
    """Check every option (the keywords of :func:`run_options`), then match and accumulate two
    pandas tables (one chunk).

    With ``matching="valor"`` detections scoring at most valor's ``EPSILON`` (1e-9) are
    dropped from every count, as valor does; ``score_threshold`` keeps detections scoring
    at least that much.
    """
    options = run_options(**options)
    return run_from_state(match_state(detections, ground_truth, columns, options), options, columns)


def _threshold_names(thresholds: np.ndarray) -> list[str]:
    """Column suffixes: two decimals, more when two thresholds would share a name."""
    for decimals in range(2, 17):
        names = [f"{t:.{decimals}f}" for t in thresholds]
        if len(set(names)) == len(names):
            return names
    return [repr(float(t)) for t in thresholds]


def fill_missing_labels(values: np.ndarray, labels_without_ground_truth: str) -> np.ndarray:
    """AP or recall values with the labels without ground truth (NaN) as
    ``labels_without_ground_truth`` says: left NaN (``"exclude"``) or counted as 0 (``"zero"``)."""
    if labels_without_ground_truth == "zero":
        return np.where(np.isnan(values), 0.0, values)
    return values


def _max_dets_column(values) -> pd.Series:
    return pd.Series([pd.NA if v == UNLIMITED else int(v) for v in values], dtype="Int64")


@table
@box_columns()
def evaluate(
    frame: pd.DataFrame,
    *,
    ground_truth: pd.DataFrame,
    columns: BoxColumns,
    iou_thresholds=None,
    max_dets=COCO_MAX_DETS,
    area_ranges=None,
    matching: str = "coco",
    interpolation: str = "coco",
    labels_without_ground_truth: str = "exclude",
) -> pd.DataFrame:
    """The 12 COCO summary numbers (AP, AP50, AP75, AP by area, AR@1/10/100, AR by area).

    With the defaults the numbers are pycocotools' ``COCOeval.summarize()`` for
    ``iouType="bbox"`` (identical to 1e-12 on the COCO fixtures).

    Parameters
    ----------
    frame : DataFrame
        The detections: one row per detected box: image id, label, 4 box coordinates, score.
    ground_truth : DataFrame
        One row per ground-truth box: image id, label, 4 box coordinates, and optionally a
        crowd flag, an area and an ignore flag.
    image, label, score : str
        Column names (the same names in both tables; ``score`` only in ``detections``).
    box : list of 4 str, optional
        Box columns; default ``["x", "y", "w", "h"]`` for ``box_format="xywh"`` and
        ``["xmin", "ymin", "xmax", "ymax"]`` for ``"xyxy"``.
    box_format : {"xywh", "xyxy"}
        ``(x, y, width, height)`` as COCO, or ``(x_min, y_min, x_max, y_max)`` as valor.
    iscrowd, area, ignore : str, optional
        Ground-truth columns: crowd regions (matched any number of times, IoU relative to
        the detection's area, never counted as positives), the area used for area ranges
        (default the box area; COCO files carry the mask area), and boxes to ignore
        (pycocotools overwrites a file's ``ignore`` field with ``iscrowd``: leave
        ``ignore`` out to reproduce it).
    images : sequence, optional
        Every evaluated image id, when some images have no ground-truth box (their
        detections are false positives). Default: the images of ``ground_truth``.
    iou_type : {"bbox", "segm", "keypoints"}, optional
        Compare boxes, masks or keypoints (COCO's ``iouType``). Masks (``"segm"``): mask IoU
        with COCO's crowd rule, each detection's area from its mask (for a result file read by
        :func:`pdmetrics.io.read_coco`: the ``area`` pycocotools gives it). Default boxes; on
        a read_coco result file that holds masks and no boxes the default warns (its boxes are
        the masks', and pycocotools' ``COCOeval`` scores masks by default).
    segmentation : str, optional
        With ``iou_type="segm"``: the column of both tables holding each row's mask, a COCO
        polygon, an RLE (``counts`` a string or a list) or a 2-D boolean array; a missing
        cell falls back to the row's box drawn as a mask. Default ``"segmentation"`` (the
        name :func:`pdmetrics.io.read_coco` uses).
    image_sizes : dict or DataFrame, optional
        ``{image: (height, width)}``, or a frame with ``height`` and ``width`` columns
        indexed by image: where polygons are drawn. Default: the sizes in the file read by
        :func:`pdmetrics.io.read_coco`. RLEs and arrays carry their size.
    keypoints : str, optional
        With ``iou_type="keypoints"``: the column of both tables holding each row's pose, COCO's
        flat ``[x1, y1, v1, ..., xK, yK, vK]`` (``v > 0``: a labelled ground-truth keypoint).
        Poses are compared by their object keypoint similarity (OKS, pycocotools'
        ``computeOks``, in place of the IoU); ground truths with no labelled keypoint (their
        ``num_keypoints`` is 0) are ignored, detections without boxes take their keypoints'
        extent, and the defaults become pycocotools': ``max_dets=20`` and the area ranges
        all/medium/large, giving its 10 keypoint numbers. Default ``"keypoints"``.
    sigmas : sequence of float, optional
        With ``iou_type="keypoints"``: the K per-keypoint sigmas of OKS (pycocotools'
        ``kpt_oks_sigmas``); default COCO's 17 person sigmas (0.026 for the nose, ...).
    iou_thresholds : sequence of float, optional
        Default COCO's ``linspace(0.5, 0.95, 10)``.
    max_dets : sequence of int or None
        Detections kept per image and label, by descending score; AP rows use the last
        one. ``None``: no limit.
    area_ranges : dict, optional
        ``{name: (low, high)}``, inclusive bounds on the ground-truth area; the first one
        is the overall range. Default COCO's all/small/medium/large (all/medium/large with
        ``iou_type="keypoints"``, as pycocotools).
    matching : {"coco", "valor"}
        Greedy COCO matching, or valor's best-IoU binding (see the user guide).
    interpolation : {"coco", "valor"}
        COCO's 101-point read-out, or valor's ``floor(100 * recall)`` bins.
    labels_without_ground_truth : {"exclude", "zero"}
        Leave labels without ground truth out of the means (COCO), or count them as 0 (valor).

    Returns
    -------
    DataFrame
        Columns ``metric, iou, area, max_dets, value``: ``metric`` is ``"AP"`` or ``"AR"``,
        ``iou`` the threshold(s) (``"0.50:0.95"``, ``"0.50"``, ``"0.75"``), ``area`` the
        area range name, ``max_dets`` the per-image limit (``<NA>`` for none). A value
        with nothing to average (no ground truth in that area range) is NaN (pycocotools
        prints -1) with an :class:`~pdmetrics.errors.UndefinedMetricWarning`.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.detection import evaluate
    >>> gt = pd.DataFrame({"image": [1, 1], "label": ["cat", "dog"], "x": [0, 50], "y": [0, 50],
    ...                    "w": [40, 40], "h": [40, 40]})
    >>> dt = pd.DataFrame({"image": [1, 1], "label": ["cat", "dog"], "x": [2, 90], "y": [0, 90],
    ...                    "w": [40, 40], "h": [40, 40], "score": [0.9, 0.8]})
    >>> table = evaluate(dt, ground_truth=gt, area_ranges={"all": (0, 1e10)})
    >>> table.round(3)
      metric        iou area  max_dets  value
    0     AP  0.50:0.95  all       100   0.45
    1     AP       0.50  all       100   0.50
    2     AP       0.75  all       100   0.50
    3     AR  0.50:0.95  all         1   0.45
    4     AR  0.50:0.95  all        10   0.45
    5     AR  0.50:0.95  all       100   0.45
    """
    check_choice(labels_without_ground_truth, "labels_without_ground_truth", LABELS_WITHOUT_GT)
    poses = columns.iou_type == "keypoints"
    if poses:
        # pycocotools' keypoint defaults: 20 detections per image, no "small" range
        area_ranges = KEYPOINT_AREA_RANGES if area_ranges is None else area_ranges
        max_dets = KEYPOINT_MAX_DETS if max_dets is COCO_MAX_DETS else max_dets
    options = run_options_of(locals())
    finish = partial(
        _evaluation_from_run, labels_without_ground_truth=labels_without_ground_truth, keypoints=poses
    )
    return box_spec(frame, ground_truth, BoxTable(columns, options, finish))


def _evaluation_from_run(
    result: Run, labels_without_ground_truth: str, keypoints: bool = False
) -> pd.DataFrame:
    acc = result.accumulation
    filled = replace(
        acc,
        precision=fill_missing_labels(acc.precision, labels_without_ground_truth),
        recall=fill_missing_labels(acc.recall, labels_without_ground_truth),
    )
    summary = coco_summary(filled, keypoints=keypoints)
    table = result_table(
        {
            "metric": summary["metric"].to_numpy(),
            "iou": summary["iou"].to_numpy(),
            "area": summary["area"].to_numpy(),
            "max_dets": _max_dets_column(summary["max_dets"]),
            "value": summary["value"].to_numpy(dtype="float64"),
        }
    )
    if table["value"].isna().any():
        missing = table[table["value"].isna()]
        described = ", ".join(sorted({f"{m} area={a!r}" for m, a in zip(missing["metric"], missing["area"])}))
        warn_undefined(
            f"No label has ground truth for {described}: the value is NaN (pycocotools prints -1). "
            f"Change `area_ranges=` or add ground truth in that range."
        )
    return attach_info(
        table,
        n_ground_truth=result.data.n_gt,
        n_detections=result.data.n_dt,
        n_images=int(result.data.images.size),
        n_labels=int(result.data.labels.size),
        matching=result.options.matching,
        interpolation=result.options.interpolation,
    )


def _check_per_label(by, max_dets, labels_without_ground_truth) -> None:
    """Check the options only the per-label tables take."""
    if by not in ("label", None):
        raise InvalidInputError(
            f"`by={plain(by)!r}` is not supported: use by='label' (one row per label plus the mean over "
            f"labels, labelled {POOLED_LABEL!r}) or by=None (the mean only). For other groupings, "
            f"start from `df.detection.match(...)`."
        )
    check_choice(labels_without_ground_truth, "labels_without_ground_truth", LABELS_WITHOUT_GT)
    if max_dets is not None and not np.isscalar(max_dets):
        raise InvalidInputError(
            f"`max_dets=` must be one positive integer or None here; got {plain(max_dets)!r}."
        )


def _finish_per_label(table: pd.DataFrame, kind: str, pooled: np.ndarray, by) -> pd.DataFrame:
    """Keep only the mean rows for ``by=None``; warn when a label's value is undefined."""
    undefined = bool(table.loc[~pooled, kind].isna().any())
    if by is None:
        table = table[pooled].reset_index(drop=True)
    if not (~pooled).any() and table[kind].isna().any():
        warn_undefined(
            f"There is no label to evaluate (no ground truth and no detection): the {kind} of row "
            f"{POOLED_LABEL!r} is NaN (pycocotools prints -1)."
        )
    elif undefined:
        warn_undefined(
            f"Some labels have no ground truth (N = 0): their {kind} is NaN and they are left out "
            f"of the mean (row {POOLED_LABEL!r}). Pass `labels_without_ground_truth='zero'` to count "
            f"them as 0 (valor)."
        )
    return table


def _per_label_table(
    kind: str, columns: BoxColumns, *, by, max_dets, labels_without_ground_truth, **options
) -> BoxTable:
    """The AP or AR table per label, with its options checked."""
    _check_per_label(by, max_dets, labels_without_ground_truth)
    checked = run_options(max_dets=max_dets, **options)
    finish = partial(_per_label, kind, by=by, labels_without_ground_truth=labels_without_ground_truth)
    return BoxTable(columns, checked, finish)


def _per_label(kind: str, result: Run, *, by, labels_without_ground_truth) -> pd.DataFrame:
    check_not_pooled(result.data.labels, "label")
    acc = result.accumulation
    n_area = len(acc.area_names)
    n_lab = acc.labels.size
    thresholds = acc.iou_thresholds
    if kind == "AP":
        with np.errstate(invalid="ignore"):
            per = acc.precision[:, :, :, :, -1].mean(axis=1)  # (T, K, A); NaN for labels without GT
    else:
        per = acc.recall[:, :, :, -1]
    per = fill_missing_labels(per, labels_without_ground_truth)
    rows_label, rows_area, rows_n, rows_nd, rows_values, rows_pooled = [], [], [], [], [], []
    n_det = np.bincount(result.data.dt_label, minlength=n_lab)
    for a in range(n_area):
        rows_label.extend(acc.labels.tolist())
        rows_area.extend([acc.area_names[a]] * n_lab)
        rows_n.extend(acc.n_positive[a].tolist())
        rows_nd.extend(n_det.tolist())
        rows_values.append(per[:, :, a].T)  # (K, T)
        rows_pooled.extend([False] * n_lab + [True])
        # the mean over labels (mAP / mAR), labelled POOLED_LABEL
        rows_label.append(POOLED_LABEL)
        rows_area.append(acc.area_names[a])
        rows_n.append(int(acc.n_positive[a].sum()))
        rows_nd.append(int(n_det.sum()))
        with np.errstate(invalid="ignore"):
            defined = ~np.isnan(per[:, :, a])
            counts = defined.sum(axis=1)
            sums = np.where(defined, per[:, :, a], 0.0).sum(axis=1)
            mean = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
        rows_values.append(mean[None, :])
    values = np.vstack(rows_values) if rows_values else np.zeros((0, thresholds.size))
    columns = {
        "label": pd.Series(rows_label, dtype=object),
        "area": rows_area,
        "N": rows_n,
        "n_detections": rows_nd,
    }
    with np.errstate(invalid="ignore"):
        defined = ~np.isnan(values)
        averaged = np.where(defined.all(axis=1), values.mean(axis=1) if values.shape[1] else np.nan, np.nan)
    columns[kind] = averaged
    for t, name in enumerate(_threshold_names(thresholds)):
        columns[f"{kind}@{name}"] = values[:, t]
    table = result_table(columns, integer_columns=["N", "n_detections"])
    return _finish_per_label(table, kind, np.array(rows_pooled, dtype=bool), by)


def _recall_by_score_table(
    columns: BoxColumns, *, by, max_dets, labels_without_ground_truth, score_thresholds, **options
) -> BoxTable:
    """AR per label, area range and score threshold (valor's ``score_thresholds``), one matching.

    A detection's match never depends on the detections ranked after it, and every
    detection scoring below a threshold is ranked after every one scoring at or above it,
    so the detections are matched once (those scoring at least the lowest threshold) and
    the true positives at each threshold are those scoring at least that much.
    """
    levels = number_array(score_thresholds, "score_threshold")
    _check_per_label(by, max_dets, labels_without_ground_truth)
    checked = run_options(max_dets=max_dets, score_threshold=float(levels.min()), **options)
    finish = partial(
        _recall_by_score, levels=levels, by=by, labels_without_ground_truth=labels_without_ground_truth
    )
    return BoxTable(columns, checked, finish)


def _recall_by_score(result: Run, *, levels: np.ndarray, by, labels_without_ground_truth) -> pd.DataFrame:
    check_not_pooled(result.data.labels, "label")
    m, data = result.matches, result.data
    n_area, n_thr, n_lab, n_s = m.area_ranges.shape[0], m.iou_thresholds.size, data.labels.size, levels.size
    order = np.argsort(levels, kind="stable")
    back = np.empty_like(order)
    back[order] = np.arange(n_s)  # sorted position of each requested threshold

    def at_least(keys: np.ndarray, scores: np.ndarray, n_keys: int) -> np.ndarray:
        """(n_keys, S) number of items per key scoring at least each requested threshold."""
        passed = np.searchsorted(levels[order], scores, side="right")  # sorted thresholds passed
        hist = np.bincount(keys * (n_s + 1) + passed, minlength=n_keys * (n_s + 1)).reshape(n_keys, n_s + 1)
        return np.cumsum(hist[:, ::-1], axis=1)[:, ::-1][:, 1:][:, back]

    a_idx, t_idx, d_idx = np.nonzero(m.tp)
    det = m.det[d_idx]
    keys = (a_idx * n_thr + t_idx) * n_lab + data.dt_label[det]
    tp = at_least(keys, data.dt_score[det], n_area * n_thr * n_lab).reshape(n_area, n_thr, n_lab, n_s)
    n_det = at_least(data.dt_label, data.dt_score, n_lab)  # (K, S)
    positives = m.n_positive  # (A, K)
    with np.errstate(invalid="ignore", divide="ignore"):
        recall = np.where(positives[:, None, :, None] > 0, tp / positives[:, None, :, None], np.nan)
    recall = fill_missing_labels(recall, labels_without_ground_truth).transpose(0, 2, 3, 1)  # (A, K, S, T)
    defined = ~np.isnan(recall)
    counts = defined.sum(axis=1)
    sums = np.where(defined, recall, 0.0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        pooled = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)  # (A, S, T)
    per = np.concatenate([recall, pooled[:, None]], axis=1)  # (A, K+1, S, T)
    # valor's "averaged over scores": the plain mean over the score thresholds
    per = np.concatenate([per, per.mean(axis=2, keepdims=True)], axis=2)  # (A, K+1, S+1, T)
    n_rows_label = n_s + 1
    values = per.reshape(-1, n_thr)
    labels = np.asarray(data.labels, dtype=object).tolist() + [POOLED_LABEL]
    n_pos = np.concatenate([positives, positives.sum(axis=1, keepdims=True)], axis=1)  # (A, K+1)
    n_det = np.vstack([n_det, n_det.sum(axis=0, keepdims=True)])  # (K+1, S)
    n_det = np.hstack([n_det, n_det.max(axis=1, keepdims=True)])  # mean row: at the lowest threshold
    table_columns = {
        "label": pd.Series(
            np.tile(np.repeat(np.array(labels, dtype=object), n_rows_label), n_area), dtype=object
        ),
        "area": np.repeat(np.array(result.area_names, dtype=object), (n_lab + 1) * n_rows_label).tolist(),
        "score_threshold": np.tile(np.r_[levels, np.nan], n_area * (n_lab + 1)),
        "N": np.repeat(n_pos.reshape(-1), n_rows_label),
        "n_detections": np.tile(n_det.reshape(-1), n_area),
    }
    with np.errstate(invalid="ignore"):
        table_columns["AR"] = np.where(
            ~np.isnan(values).any(axis=1), values.mean(axis=1) if n_thr else np.nan, np.nan
        )
    for t, name in enumerate(_threshold_names(m.iou_thresholds)):
        table_columns[f"AR@{name}"] = values[:, t]
    table = result_table(table_columns, integer_columns=["N", "n_detections"])
    return _finish_per_label(table, "AR", (table["label"] == POOLED_LABEL).to_numpy(), by)


@table
@box_columns()
def average_precision(
    frame: pd.DataFrame,
    *,
    ground_truth: pd.DataFrame,
    columns: BoxColumns,
    iou_thresholds=None,
    max_dets=100,
    area_ranges=None,
    matching: str = "coco",
    interpolation: str = "coco",
    labels_without_ground_truth: str = "exclude",
    by="label",
) -> pd.DataFrame:
    """Average precision per label and IoU threshold, with the mean over labels (mAP).

    Same inputs and options as :func:`evaluate`, except ``max_dets`` (one
    limit, default 100, ``None`` for none) and ``area_ranges`` (default only
    ``{"all": (0, 1e10)}``). ``by="label"`` (default) gives one row per label plus the
    mean row; ``by=None`` only the mean row.

    Returns
    -------
    DataFrame
        One row per label and area range, then the mAP row ``label="(all)"`` (the mean over
        labels with ground truth, or over all labels with ``labels_without_ground_truth="zero"``).
        Label values never become column names, so a class named ``"mAP"`` or ``"AP"`` is
        just a row; a label equal to ``"(all)"`` is refused.
        Columns ``label, area, N, n_detections, AP, AP@0.50, ..., AP@0.95``: ``N`` counts
        the ground truths that are not ignored, ``AP`` is the mean over the IoU
        thresholds, ``AP@t`` the 101-point AP at threshold ``t``. NaN for a label without
        ground truth (with an :class:`~pdmetrics.errors.UndefinedMetricWarning`).

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.detection import average_precision
    >>> gt = pd.DataFrame({"image": [1, 1], "label": ["cat", "dog"], "x": [0, 50], "y": [0, 50],
    ...                    "w": [40, 40], "h": [40, 40]})
    >>> dt = pd.DataFrame({"image": [1, 1], "label": ["cat", "dog"], "x": [2, 60], "y": [0, 50],
    ...                    "w": [40, 40], "h": [40, 40], "score": [0.9, 0.8]})
    >>> average_precision(dt, ground_truth=gt, iou_thresholds=[0.5, 0.75]).round(3)
      label area  N  n_detections    AP  AP@0.50  AP@0.75
    0   cat  all  1             1  1.00      1.0      1.0
    1   dog  all  1             1  0.50      1.0      0.0
    2  (all)  all  2             2  0.75      1.0      0.5
    """
    table = _per_label_table(
        "AP",
        columns,
        by=by,
        iou_thresholds=iou_thresholds,
        max_dets=max_dets,
        area_ranges={"all": (0.0, 1e10)} if area_ranges is None else area_ranges,
        matching=matching,
        interpolation=interpolation,
        labels_without_ground_truth=labels_without_ground_truth,
    )
    return box_spec(frame, ground_truth, table)


@table
@box_columns()
def average_recall(
    frame: pd.DataFrame,
    *,
    ground_truth: pd.DataFrame,
    columns: BoxColumns,
    iou_thresholds=None,
    max_dets=100,
    area_ranges=None,
    matching: str = "coco",
    score_threshold=None,
    labels_without_ground_truth: str = "exclude",
    by="label",
) -> pd.DataFrame:
    """Recall per label and IoU threshold, averaged over thresholds (AR), with the mean (mAR).

    Recall is the share of ground truths (not ignored) matched by a kept detection.
    Same inputs and options as :func:`average_precision`, plus ``score_threshold``.

    Parameters
    ----------
    score_threshold : float or sequence of float, optional
        One number: keep only detections scoring at least that much (valor's AR at one
        score threshold). A sequence (a list, tuple or array, as valor's
        ``score_thresholds``): one row per label and threshold, in the order given. As in
        valor, AR is averaged over the IoU thresholds and reported per score threshold
        (valor's ``AR`` and ``mAR``); a last row per label with a missing
        ``score_threshold`` averages the score thresholds (valor's
        ``ARAveragedOverScores`` and ``mARAveragedOverScores``). The detections are matched
        once: a detection's match never depends on lower-scored ones, so each threshold
        gives what a separate call with that number gives.

    Returns
    -------
    DataFrame
        Columns ``label, area, N, n_detections, AR, AR@0.50, ..., AR@0.95``, then the mean
        over labels in the row ``label="(all)"`` (mAR: what COCO calls AR). With a sequence
        of score thresholds, ``score_threshold`` comes after ``area``
        (``label, area, score_threshold, N, n_detections, AR, AR@...``): per label, one row per
        threshold, then the mean over them (``score_threshold`` NaN, ``n_detections`` at
        the lowest threshold). ``AR@t`` is the recall at IoU threshold ``t`` (valor's
        ``Recall``).

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.detection import average_recall
    >>> gt = pd.DataFrame({"image": [1, 1], "label": ["cat", "dog"], "x": [0, 50], "y": [0, 50],
    ...                    "w": [40, 40], "h": [40, 40]})
    >>> dt = pd.DataFrame({"image": [1, 1], "label": ["cat", "dog"], "x": [2, 60], "y": [0, 50],
    ...                    "w": [40, 40], "h": [40, 40], "score": [0.9, 0.8]})
    >>> average_recall(dt, ground_truth=gt, iou_thresholds=[0.5, 0.75]).round(3)
      label area  N  n_detections    AR  AR@0.50  AR@0.75
    0   cat  all  1             1  1.00      1.0      1.0
    1   dog  all  1             1  0.50      1.0      0.0
    2  (all)  all  2             2  0.75      1.0      0.5
    >>> average_recall(dt, ground_truth=gt, iou_thresholds=[0.5, 0.75], score_threshold=[0.5, 0.85],
    ...                by=None).round(3)
       label area  score_threshold  N  n_detections     AR  AR@0.50  AR@0.75
    0  (all)  all             0.50  2             2  0.750     1.00     0.50
    1  (all)  all             0.85  2             1  0.500     0.50     0.50
    2  (all)  all              NaN  2             2  0.625     0.75     0.50
    """
    options = dict(
        by=by,
        iou_thresholds=iou_thresholds,
        max_dets=max_dets,
        area_ranges={"all": (0.0, 1e10)} if area_ranges is None else area_ranges,
        matching=matching,
        interpolation="coco",
        labels_without_ground_truth=labels_without_ground_truth,
    )
    if score_threshold is not None and np.ndim(score_threshold) > 0:
        table = _recall_by_score_table(columns, score_thresholds=score_threshold, **options)
    else:
        table = _per_label_table("AR", columns, score_threshold=score_threshold, **options)
    return box_spec(frame, ground_truth, table)


@table
@box_columns()
def match(
    frame: pd.DataFrame,
    *,
    ground_truth: pd.DataFrame,
    columns: BoxColumns,
    iou_thresholds=None,
    max_dets=100,
    area_range=(0.0, 1e10),
    matching: str = "coco",
    background_threshold=0.1,
) -> pd.DataFrame:
    """One row per detection and IoU threshold: its matched ground truth, IoU and TP flag.

    The tidy intermediate of every AP: group it by any column (image metadata, box size)
    and compute precision/recall with plain pandas.

    Parameters
    ----------
    {box_inputs}
    iou_thresholds : sequence of float, optional
        Default COCO's ten.
    max_dets : int or None
        Detections kept per image and label (default 100); the others get no row.
    area_range : (float, float)
        Ground truths outside it are ignored (COCO's area range; default all).
    matching : {"coco", "valor"}
        Matching rule.
    background_threshold : float, default 0.1
        TIDE's background threshold, for the ``error`` column.

    Returns
    -------
    DataFrame
        Columns ``detection, image, label, score, rank, iou_threshold, ground_truth,
        detection_id, ground_truth_id, iou, tp, ignored, error``: ``detection`` and
        ``ground_truth`` are row positions in the two input tables (``ground_truth`` is -1
        when unmatched, then ``iou`` is NaN), ``detection_id`` and ``ground_truth_id`` the
        index labels of those rows (missing when unmatched: ``<NA>`` for integer labels;
        ``set_index("id")`` first to see the annotation ids of
        :func:`pdmetrics.io.read_coco`, as valor's (ground-truth id, prediction id) pairs),
        ``rank`` the detection's rank by score within its image and label, ``tp`` whether
        it is a true positive, ``ignored`` whether it matched an ignored ground truth
        (crowd, ``ignore``, or outside the area range) or is unmatched outside the area
        range; ignored detections count neither as true nor as false positives. Rows are
        ordered by IoU threshold, then label, descending score, image. ``error``: the
        detection's TIDE error type (``"Cls"``, ``"Loc"``, ``"Both"``, ``"Dupe"`` or
        ``"Bkg"``, see :func:`errors`) with the row's IoU threshold as TIDE's foreground
        threshold, missing (``None``) for a detection TIDE counts as a true positive or does
        not keep (beyond ``max_dets`` in its image over all labels). TIDE's matching is
        COCO's but for crowd regions (matched after the other ground truths, by a crowd IoU
        above the threshold), exact IoU ties and its per-image limit, so ``error`` is set on
        the false positives and, where TIDE gives them a type too, on ignored detections.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.detection import match
    >>> gt = pd.DataFrame({"image": [1], "label": [0], "x": [0], "y": [0], "w": [10], "h": [10]})
    >>> dt = pd.DataFrame({"image": [1, 1], "label": [0, 0], "x": [0, 1], "y": [0, 0], "w": [10, 10],
    ...                    "h": [10, 10], "score": [0.6, 0.9]})
    >>> matches = match(dt, ground_truth=gt, iou_thresholds=[0.5])
    >>> matches[["detection", "score", "rank", "ground_truth", "iou", "tp"]].round(3)
       detection  score  rank  ground_truth    iou     tp
    0          1    0.9     0             0  0.818   True
    1          0    0.6     1            -1    NaN  False

    With identifiers as the index, the table names each (ground truth, detection) pair:

    >>> pairs = match(dt.set_axis([101, 102]), ground_truth=gt.set_axis([7]), iou_thresholds=[0.5])
    >>> pairs[["detection_id", "ground_truth_id", "tp"]]
       detection_id  ground_truth_id     tp
    0           102                7   True
    1           101             <NA>  False
    """
    options = run_options_of(locals(), pairs=True)
    typed = typed_matches(BoxTable(columns, options, _matches), background_threshold)
    return box_spec(frame, ground_truth, typed)


def _matches(result: Run) -> pd.DataFrame:
    m, data, pairs = result.matches, result.data, result.pairs
    n_thr, n = m.iou_thresholds.size, m.det.size
    det = np.tile(m.det, n_thr)
    table = result_table(
        {
            "detection": np.tile(pairs["detection"], n_thr),
            "image": data.images[data.dt_image[det]] if n else np.zeros(0, dtype="int64"),
            "label": data.labels[data.dt_label[det]] if n else np.zeros(0, dtype="int64"),
            "score": data.dt_score[det],
            "rank": np.tile(m.rank, n_thr),
            "iou_threshold": np.repeat(m.iou_thresholds, n),
            "ground_truth": pairs["ground_truth"].reshape(-1),
            "detection_id": pd.concat([pairs["detection_id"]] * n_thr, ignore_index=True)
            if n_thr
            else pairs["detection_id"],
            "ground_truth_id": pairs["ground_truth_id"],
            "iou": pairs["iou"].reshape(-1),
            "tp": m.tp[0].reshape(-1),
            "ignored": m.ignored[0].reshape(-1),
        },
        integer_columns=["detection", "rank", "ground_truth"],
    )
    return attach_info(
        table, n_ground_truth=data.n_gt, n_positive=m.n_positive[0].tolist(), labels=data.labels.tolist()
    )
