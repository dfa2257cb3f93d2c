"""Precision-recall curves of a detector, COCO style and valor style, as long tables."""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._division import check_zero_division, divide
from pdmetrics._table_spec import table
from pdmetrics._tables import result_table
from pdmetrics.detection.inputs import BoxColumns, box_columns
from pdmetrics.detection.match_state import BoxTable, box_spec, run_options_of
from pdmetrics.detection.options import (
    CURVE_STYLES,
    LABELS_WITHOUT_GT,
    VALOR_SCORE_THRESHOLDS,
    check_choice,
    number_array,
)

__all__ = ["pr_curve", "VALOR_SCORE_THRESHOLDS"]


@table
@box_columns()
def pr_curve(
    frame: pd.DataFrame,
    *,
    ground_truth: pd.DataFrame,
    columns: BoxColumns,
    style: str = "coco",
    iou_thresholds=None,
    max_dets=100,
    area_range=(0.0, 1e10),
    matching: str = "coco",
    interpolation: str = "coco",
    score_thresholds=None,
    labels_without_ground_truth: str = "exclude",
    zero_division="warn",
) -> pd.DataFrame:
    """Precision-recall curve per label and IoU threshold.

    Parameters
    ----------
    {box_inputs}
    style : {"coco", "valor"}
        ``"coco"``: the interpolated curve behind AP, 101 recall points per label and IoU
        threshold. ``"valor"``: counts and rates at confidence thresholds (valor's
        ``PrecisionRecallCurve`` / ``Counts``).
    iou_thresholds : sequence of float, optional
        Default COCO's ten (``style="coco"``) or ``[0.5]`` (``style="valor"``).
    max_dets : int or None
        Detections kept per image and label (``None``: all).
    area_range : (float, float)
        Ground truths with an area outside are ignored.
    matching, interpolation : {"coco", "valor"}
        As in :func:`pdmetrics.detection.evaluate`.
    score_thresholds : sequence of float, optional
        Confidence thresholds for ``style="valor"`` (default 0.05, 0.10, ..., 0.95).
    labels_without_ground_truth : {"exclude", "zero"}
        ``style="coco"``: leave labels without ground truth out, or keep them with
        precision 0 (valor's curve: recall stays 0, the score at recall 0 is the label's
        top score).
    zero_division : "warn" or float, default "warn"
        ``style="valor"``: the value of a 0/0 precision, recall or F1 (no detection at
        or above the threshold, or a label without ground truth). ``"warn"``: NaN with
        an :class:`~pdmetrics.UndefinedMetricWarning`; ``0`` gives valor's numbers.

    Returns
    -------
    DataFrame
        ``style="coco"``: ``label, iou, recall, precision, score`` — at each recall point
        the interpolated precision (the best precision at that recall or beyond; 0 when
        the recall is never reached) and the score of the detection where the recall
        is first reached.
        ``style="valor"``: ``label, iou, score_threshold, N, tp, fp, fn, precision,
        recall, f1`` counting detections with ``score >= score_threshold``: ``tp`` matched,
        ``fp`` not matched (and not ignored), ``fn = N - tp``, ``precision = tp / (tp + fp)``,
        ``recall = tp / N``, ``f1 = 2 tp / (2 tp + fp + fn)`` (valor's ``2 p r / (p + r)``);
        a 0/0 ratio is NaN with a warning, or ``zero_division`` (valor: 0).

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.detection import pr_curve
    >>> gt = pd.DataFrame({"image": [1, 1], "label": [0, 0], "x": [0, 50], "y": [0, 0], "w": [10, 10],
    ...                    "h": [10, 10]})
    >>> dt = pd.DataFrame({"image": [1, 1, 1], "label": [0, 0, 0], "x": [0, 90, 50], "y": [0, 0, 0],
    ...                    "w": [10, 10, 10], "h": [10, 10, 10], "score": [0.9, 0.8, 0.3]})
    >>> curve = pr_curve(dt, ground_truth=gt, iou_thresholds=[0.5])
    >>> curve.iloc[[0, 50, 51, 100]].round(3)
         label  iou  recall  precision  score
    0        0  0.5    0.00      1.000    0.9
    50       0  0.5    0.50      1.000    0.9
    51       0  0.5    0.51      0.667    0.3
    100      0  0.5    1.00      0.667    0.3
    >>> valor = pr_curve(dt, ground_truth=gt, style="valor", score_thresholds=[0.5, 0.1])
    >>> valor[["score_threshold", "tp", "fp", "fn", "precision", "recall"]].round(3)
       score_threshold  tp  fp  fn  precision  recall
    0              0.5   1   1   1      0.500     0.5
    1              0.1   2   1   0      0.667     1.0
    """
    check_choice(style, "style", CURVE_STYLES)
    check_zero_division(zero_division)
    check_choice(labels_without_ground_truth, "labels_without_ground_truth", LABELS_WITHOUT_GT)
    if style == "valor":
        iou_thresholds = [0.5] if iou_thresholds is None else iou_thresholds
        thresholds = (
            VALOR_SCORE_THRESHOLDS
            if score_thresholds is None
            else number_array(score_thresholds, "score_thresholds")
        )
    options = run_options_of(locals())
    if style == "coco":
        finish = partial(_coco_curve, keep_missing=labels_without_ground_truth == "zero")
    else:
        finish = partial(_valor_curve, thresholds=thresholds, zero_division=zero_division)
    return box_spec(frame, ground_truth, BoxTable(columns, options, finish))


def _coco_curve(result, keep_missing: bool) -> pd.DataFrame:
    acc = result.accumulation
    precision = np.nan_to_num(acc.precision[:, :, :, 0, -1], nan=0.0)  # (T, R, K)
    scores = acc.scores[:, :, :, 0, -1]
    n_thr, n_rec, n_lab = precision.shape
    keep = (acc.n_positive[0] > 0) | keep_missing
    labels = np.flatnonzero(keep)
    # rows ordered by label, then IoU threshold, then recall point
    lab = np.repeat(labels, n_thr * n_rec)
    thr = np.tile(np.repeat(np.arange(n_thr), n_rec), labels.size)
    rec = np.tile(np.arange(n_rec), labels.size * n_thr)
    return result_table(
        {
            "label": acc.labels[lab] if lab.size else np.zeros(0, dtype=acc.labels.dtype),
            "iou": acc.iou_thresholds[thr],
            "recall": acc.recall_thresholds[rec],
            "precision": precision[thr, rec, lab],
            "score": scores[thr, rec, lab],
        }
    )


def _valor_curve(result, thresholds: np.ndarray, zero_division) -> pd.DataFrame:
    m = result.matches
    data = result.data
    n_thr, n_lab, n_s = m.iou_thresholds.size, data.labels.size, thresholds.size
    order = np.argsort(thresholds, kind="stable")
    sorted_thresholds = thresholds[order]
    score = data.dt_score[m.det]
    label = data.dt_label[m.det]
    bucket = np.searchsorted(sorted_thresholds, score, side="right")  # thresholds passed: 0..bucket-1

    def counts(flags: np.ndarray) -> np.ndarray:
        """(T, K, S) number of flagged detections with score >= each sorted threshold."""
        t_idx, d_idx = np.nonzero(flags)
        key = (t_idx * n_lab + label[d_idx]) * (n_s + 1) + bucket[d_idx]
        hist = np.bincount(key, minlength=n_thr * n_lab * (n_s + 1)).reshape(n_thr, n_lab, n_s + 1)
        at_least = np.cumsum(hist[:, :, ::-1], axis=2)[:, :, ::-1]  # detections in bucket >= b
        return at_least[:, :, 1:]

    tp = counts(m.tp[0])
    fp = counts(m.fp[0])
    n_gt = m.n_positive[0]
    fn = n_gt[None, :, None] - tp
    precision = divide(
        tp, tp + fp, zero_division, what="Precision (no detection at or above the score threshold)"
    )
    recall = divide(
        tp,
        np.broadcast_to(n_gt[None, :, None], tp.shape),
        zero_division,
        what="Recall (a label without ground truth)",
    )
    f1 = divide(2 * tp, 2 * tp + fp + fn, zero_division, what="F1")
    back = np.empty_like(order)
    back[order] = np.arange(n_s)  # column of each requested threshold
    # rows ordered by label, IoU threshold, then the requested score thresholds
    lab = np.repeat(np.arange(n_lab), n_thr * n_s)
    thr = np.tile(np.repeat(np.arange(n_thr), n_s), n_lab)
    col = np.tile(back, n_lab * n_thr)
    return result_table(
        {
            "label": data.labels[lab] if lab.size else np.zeros(0, dtype=data.labels.dtype),
            "iou": m.iou_thresholds[thr],
            "score_threshold": thresholds[np.tile(np.arange(n_s), n_lab * n_thr)],
            "N": n_gt[lab],
            "tp": tp[thr, lab, col],
            "fp": fp[thr, lab, col],
            "fn": fn[thr, lab, col],
            "precision": precision[thr, lab, col],
            "recall": recall[thr, lab, col],
            "f1": f1[thr, lab, col],
        },
        integer_columns=["N", "tp", "fp", "fn"],
    )
