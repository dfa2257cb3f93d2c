"""COCO's accumulation (precision at 101 recall points, recall) and its 12 summary numbers.

Given the matching (:mod:`pdmetrics.detection.matching`), for every label, area range,
IoU threshold and ``max_dets`` value the kept detections are ranked by descending score
over all images; with cumulative true and false positives ``tp_i`` and ``fp_i`` and
``P`` the number of ground truths that are not ignored:

- recall ``rc_i = tp_i / P``; precision ``pr_i = tp_i / (tp_i + fp_i + eps)`` (``eps`` is
  ``np.spacing(1)``, as in pycocotools);
- the precision envelope ``max(pr_j, j >= i)``;
- ``interpolation="coco"``: at each recall threshold ``r`` of ``linspace(0, 1, 101)`` the
  envelope at the first ``i`` with ``rc_i >= r`` (``searchsorted(..., 'left')``), 0 when
  recall never reaches ``r``; ``interpolation="valor"``: precision ``tp_i / (tp_i + fp_i)``
  binned at ``floor(100 * rc_i)``, the envelope taken over the bins;
- AP = the mean of those 101 values; the recall = ``tp / P`` at the last detection.

Labels with ``P = 0`` have no AP or recall (pycocotools stores -1 and leaves them out of
every mean). The work is vectorized over labels and thresholds: only true positives can
raise the envelope, so it is computed on the true positives alone.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdmetrics._validation import as_float_array, plain
from pdmetrics._warnings import warn_undefined
from pdmetrics.detection.matching import MatchResult
from pdmetrics.detection.options import (
    COCO_AREA_RANGES,
    COCO_IOU_THRESHOLDS,
    COCO_MAX_DETS,
    COCO_RECALL_THRESHOLDS,
    INTERPOLATIONS,
    check_choice,
)
from pdmetrics.errors import InvalidInputError

__all__ = [
    "COCO_IOU_THRESHOLDS",
    "COCO_RECALL_THRESHOLDS",
    "COCO_AREA_RANGES",
    "COCO_MAX_DETS",
    "Accumulation",
    "accumulate",
    "coco_summary",
    "interpolated_average_precision",
]


@dataclass(frozen=True)
class Accumulation:
    """Precision at the recall points and final recall, like pycocotools' ``eval`` dict.

    ``precision`` and ``scores`` have shape ``(T, R, K, A, M)`` (IoU threshold, recall
    point, label, area range, max_dets), ``recall`` ``(T, K, A, M)``; precision and recall
    are NaN where the label has no ground truth in that area range. ``n_positive`` is
    ``(A, K)``.
    """

    labels: np.ndarray
    iou_thresholds: np.ndarray
    recall_thresholds: np.ndarray
    area_names: list
    max_dets: list
    precision: np.ndarray
    recall: np.ndarray
    scores: np.ndarray
    n_positive: np.ndarray


def _envelope_at(pr: np.ndarray, first: np.ndarray, n_tp: np.ndarray, index: np.ndarray, ok) -> np.ndarray:
    """``max(pr[index:end])`` of each read-out (0 where not ``ok``), ``end`` the end of its segment.

    ``pr`` holds consecutive segments (one per ``(t, k)``, starting at ``first`` with ``n_tp``
    values); ``index`` and ``ok`` are ``(T, K, R)``, ``index`` nondecreasing along ``R``. The
    maxima of the blocks between consecutive read-outs (one ``reduceat``), then a running
    maximum from the last block back, give the envelope at the read-outs only.
    """
    end = first + n_tp  # (T, K)
    index = np.where(ok, index, np.maximum(end - 1, first)[:, :, None])
    bounds = np.concatenate([index, end[:, :, None]], axis=2)
    blocks = np.maximum.reduceat(np.append(pr, 0.0), bounds.reshape(-1)).reshape(bounds.shape)
    envelope = np.maximum.accumulate(blocks[:, :, -2::-1], axis=2)[:, :, ::-1]
    return np.where(ok, envelope, 0.0)


def first_count_reaching(n_positive: np.ndarray, points: np.ndarray, interpolation: str) -> np.ndarray:
    """Smallest true-positive count ``k`` whose recall ``k / P`` reaches each point.

    Shape ``(R, K)``. The comparison is done in float64 exactly as the reference does
    (``k / P >= r`` for COCO, ``floor(100 * (k / P)) >= 100 * r`` for valor).
    """
    n = n_positive.astype("float64")[None, :]
    if interpolation == "coco":
        target = points[:, None]

        def reached(k):
            with np.errstate(divide="ignore", invalid="ignore"):
                return (k / n) >= target
    else:
        target = np.rint(points * 100.0)[:, None]

        def reached(k):
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.floor((k / n) * 100.0) >= target

    with np.errstate(invalid="ignore"):
        k = np.ceil(points[:, None] * n)
    k = np.where(np.isfinite(k), k, 0.0)
    for _ in range(2):
        k = np.where((k >= 1) & reached(k - 1), k - 1, k)
        k = np.where(~reached(k), k + 1, k)
    # no ground truth: recall is 0 (valor) -- only the recall point 0 is reached, at once
    big = np.iinfo("int64").max // 4
    k = np.where(n == 0, np.where(points[:, None] <= 0, 0.0, float(big)), k)
    return k.astype("int64")


def accumulate(
    matches: MatchResult,
    max_dets,
    *,
    interpolation: str = "coco",
    area_names=None,
    recall_thresholds=COCO_RECALL_THRESHOLDS,
) -> Accumulation:
    """Precision at the recall points and recall per threshold, label, area and max_dets.

    Parameters
    ----------
    matches : MatchResult
        Output of :func:`pdmetrics.detection.matching.match_boxes`.
    max_dets : sequence of int
        Per-image detection limits (each at most ``matches.max_det``).
    interpolation : {"coco", "valor"}
        How precision is read at the recall points (module docstring).
    area_names : list of str, optional
        Names of the area ranges (for the tables).
    recall_thresholds : array-like
        Recall points (default COCO's 101).

    Returns
    -------
    Accumulation
    """
    check_choice(interpolation, "interpolation", INTERPOLATIONS)
    data = matches.data
    points = np.asarray(recall_thresholds, dtype="float64")
    max_dets = [int(m) for m in max_dets]
    n_thr, n_rec = matches.iou_thresholds.size, points.size
    n_lab, n_area, n_max = data.labels.size, matches.area_ranges.shape[0], len(max_dets)
    # filled as (A, M, ...) blocks and handed out as (T, R, K, A, M) views
    precision = np.zeros((n_area, n_max, n_thr, n_rec, n_lab))
    scores = np.zeros_like(precision)
    recall = np.zeros((n_area, n_max, n_thr, n_lab))

    all_label = data.dt_label[matches.det]
    all_score = data.dt_score[matches.det]
    # the true positives of every area range and threshold, found once (full positions)
    n_det = matches.rank.size
    flat = np.flatnonzero(matches.tp)
    tp_area, rest = np.divmod(flat, n_thr * n_det) if n_det else (flat, flat)
    tp_thr, tp_pos = np.divmod(rest, n_det) if n_det else (flat, flat)
    area_bounds = np.searchsorted(tp_area, np.arange(n_area + 1))
    k_min = [first_count_reaching(matches.n_positive[a], points, interpolation) for a in range(n_area)]
    full_start = np.searchsorted(all_label, np.arange(n_lab), side="left")
    # the detections counted (true + false positives) at every threshold, and the few counted at
    # some thresholds only (matched to an ignored ground truth at some, not at others): running
    # counts of the first plus those of the second give the counts so far at every threshold
    ignored_any = matches.ignored.any(axis=1)  # (A, n)
    always = ~ignored_any
    sometimes = [np.flatnonzero(ignored_any[a] & ~matches.ignored[a].all(axis=0)) for a in range(n_area)]
    for m_index, max_det in enumerate(max_dets):
        # only the detections within the per-image limit take part
        within = matches.rank < max_det
        full = bool(within.all())
        cols = np.flatnonzero(within)
        label = all_label[cols]
        score = all_score[cols]
        label_start = np.searchsorted(label, np.arange(n_lab), side="left")
        label_count = np.bincount(label, minlength=n_lab)
        for a in range(n_area):
            positive = matches.n_positive[a]
            t_of, pos = (
                tp_thr[area_bounds[a] : area_bounds[a + 1]],
                tp_pos[area_bounds[a] : area_bounds[a + 1]],
            )
            if not full:
                inside = within[pos]
                t_of, pos = t_of[inside], pos[inside]
            det_label = all_label[pos]
            steady = np.concatenate(([0], np.cumsum(always[a] & within)))  # counted before each position
            some = sometimes[a] if full else sometimes[a][within[sometimes[a]]]
            varying = np.zeros((n_thr, some.size + 1), dtype="int64")
            np.cumsum(~matches.ignored[a][:, some], axis=1, out=varying[:, 1:])
            before_label = steady[full_start] + varying[:, np.searchsorted(some, full_start, side="left")]
            upto = steady[pos + 1] + varying[t_of, np.searchsorted(some, pos, side="right")]
            keys = t_of * n_lab + det_label
            n_tp = np.bincount(keys, minlength=n_thr * n_lab)
            first = np.cumsum(n_tp) - n_tp
            k = (np.arange(keys.size) - first[keys] + 1).astype("float64")  # true positives so far
            f = (upto - before_label[t_of, det_label]) - k  # false positives so far
            if interpolation == "coco":
                pr = k / (f + k + np.spacing(1))
            else:
                pr = k / (f + k)
            n_tp = n_tp.reshape(n_thr, n_lab)
            first = first.reshape(n_thr, n_lab)
            k_eff = np.maximum(k_min[a], 1).T[None, :, :]  # (1, K, R)
            ok = k_eff <= n_tp[:, :, None]  # (T, K, R)
            index = np.where(ok, first[:, :, None] + k_eff - 1, 0)
            q = _envelope_at(pr, first, n_tp, index, ok)
            # score at the read-out point (COCO's `scores` array)
            s = np.where(ok, all_score[pos[index]] if pos.size else 0.0, 0.0)
            # a recall point reached with zero true positives (recall 0) reads the label's first
            # detection, whether or not it is a true positive
            if label.size and (k_min[a] == 0).any():
                zero_k = (k_min[a] == 0).T[None, :, :] & (label_count > 0)[None, :, None]
                s = np.where(zero_k, score[np.minimum(label_start, label.size - 1)][None, :, None], s)
            with np.errstate(divide="ignore", invalid="ignore"):
                rc = n_tp / positive[None, :].astype("float64")
            missing = positive == 0
            q = np.where(missing[None, :, None], np.nan, q)
            rc = np.where(missing[None, :], np.nan, rc)
            precision[a, m_index] = q.transpose(0, 2, 1)
            scores[a, m_index] = s.transpose(0, 2, 1)
            recall[a, m_index] = rc
    precision = precision.transpose(2, 3, 4, 0, 1)
    scores = scores.transpose(2, 3, 4, 0, 1)
    recall = recall.transpose(2, 3, 0, 1)
    names = list(area_names) if area_names is not None else [str(i) for i in range(n_area)]
    return Accumulation(
        labels=data.labels,
        iou_thresholds=matches.iou_thresholds,
        recall_thresholds=points,
        area_names=names,
        max_dets=max_dets,
        precision=precision,
        recall=recall,
        scores=scores,
        n_positive=matches.n_positive,
    )


def _mean_defined(values: np.ndarray) -> float:
    defined = values[~np.isnan(values)]
    return float(np.mean(defined)) if defined.size else float("nan")


def coco_summary(acc: Accumulation, keypoints: bool = False) -> pd.DataFrame:
    """The 12 COCO summary numbers (pycocotools' ``summarize``) as a tidy table.

    ``keypoints=True``: also the AR at 0.5 and 0.75 after the overall AR (pycocotools'
    ``_summarizeKps``: with its keypoint defaults, its 10 numbers).

    AP rows average ``precision`` over IoU thresholds, recall points and labels with
    ground truth (the last ``max_dets``); AR rows average ``recall``. ``AP50``/``AP75``
    rows appear when 0.5 / 0.75 are among the thresholds; area rows for every area range
    after the first (``"all"``). A number with no defined input (no label has ground
    truth in that area range) is NaN, where pycocotools prints -1.
    """
    rows = []
    thresholds = acc.iou_thresholds
    last = len(acc.max_dets) - 1
    if thresholds.size:
        label = f"{thresholds[0]:.2f}:{thresholds[-1]:.2f}" if thresholds.size > 1 else f"{thresholds[0]:.2f}"
    else:
        label = ""

    def ap(t_sel, a, m):
        return _mean_defined(acc.precision[t_sel][:, :, :, a, m])

    def ar(a, m, t_sel=slice(None)):
        return _mean_defined(acc.recall[t_sel][:, :, a, m])

    rows.append(("AP", label, acc.area_names[0], acc.max_dets[last], ap(slice(None), 0, last)))
    for special in (0.5, 0.75):
        hit = np.flatnonzero(thresholds == special)
        if hit.size:
            rows.append(("AP", f"{special:.2f}", acc.area_names[0], acc.max_dets[last], ap(hit, 0, last)))
    for a in range(1, len(acc.area_names)):
        rows.append(("AP", label, acc.area_names[a], acc.max_dets[last], ap(slice(None), a, last)))
    for m in range(len(acc.max_dets)):
        rows.append(("AR", label, acc.area_names[0], acc.max_dets[m], ar(0, m)))
    for special in (0.5, 0.75) if keypoints else ():
        hit = np.flatnonzero(thresholds == special)
        if hit.size:
            rows.append(("AR", f"{special:.2f}", acc.area_names[0], acc.max_dets[last], ar(0, last, hit)))
    for a in range(1, len(acc.area_names)):
        rows.append(("AR", label, acc.area_names[a], acc.max_dets[last], ar(a, last)))
    frame = pd.DataFrame(rows, columns=["metric", "iou", "area", "max_dets", "value"])
    frame["max_dets"] = frame["max_dets"].astype("int64")
    return frame


def interpolated_average_precision(
    tp, score, n_positive: int, *, ignored=None, interpolation: str = "coco"
) -> float:
    """101-point interpolated AP of one ranked list of detections (COCO's definition).

    The building block for AP over any grouping of the ``df.detection.match(...)`` table:
    pass a group's ``tp``, ``score`` and ``ignored`` columns and its number of ground
    truths that are not ignored.

    Parameters
    ----------
    tp : array-like of bool
        Whether each detection is a true positive.
    score : array-like of float
        Detection scores; detections are ranked by descending score (ties keep the
        given order).
    n_positive : int
        Number of ground truths (not ignored) the detections could find.
    ignored : array-like of bool, optional
        Detections that count neither as true nor false positives.
    interpolation : {"coco", "valor"}
        As in :func:`pdmetrics.detection.evaluate`.

    Returns
    -------
    float
        The mean over the recall points 0, 0.01, ..., 1 of the best precision at that
        recall or beyond (0 where the recall is never reached). NaN with an
        :class:`~pdmetrics.errors.UndefinedMetricWarning` when ``n_positive`` is 0.

    Examples
    --------
    >>> from pdmetrics.detection import interpolated_average_precision
    >>> round(interpolated_average_precision([True, False, True], [0.9, 0.8, 0.3], 2), 4)
    0.835
    """
    check_choice(interpolation, "interpolation", INTERPOLATIONS)
    hits = np.asarray(tp, dtype=bool).reshape(-1)
    scores = as_float_array(score, "score")
    if hits.shape != scores.shape:
        raise InvalidInputError(
            f"`tp` has {hits.size} values but `score` has {scores.size}; pass one per detection."
        )
    if not np.isfinite(scores).all():
        row = int(np.flatnonzero(~np.isfinite(scores))[0])
        raise InvalidInputError(
            f"`score` must hold finite numbers; position {row} has {plain(scores[row])!r}."
        )
    skip = np.zeros(hits.size, dtype=bool) if ignored is None else np.asarray(ignored, dtype=bool).reshape(-1)
    if skip.shape != hits.shape:
        raise InvalidInputError(
            f"`ignored` has {skip.size} values but `tp` has {hits.size}; pass one per detection."
        )
    try:
        valid_count = float(n_positive) == int(n_positive) and int(n_positive) >= 0
    except (TypeError, ValueError):
        valid_count = False
    if not valid_count:
        raise InvalidInputError(
            f"`n_positive` must be a whole number >= 0 (the ground truths that are not "
            f"ignored); got {plain(n_positive)!r}."
        )
    if n_positive <= 0:
        warn_undefined("AP is undefined without ground truth (`n_positive` is 0): returning NaN.")
        return float("nan")
    if int((hits & ~skip).sum()) > int(n_positive):
        raise InvalidInputError(
            f"{int((hits & ~skip).sum())} counted true positives but `n_positive` is {int(n_positive)}: "
            f"a ground truth can be matched once. Pass the group's number of non-ignored ground truths."
        )
    order = np.argsort(-scores, kind="stable")
    keep = ~skip[order]
    ranked = hits[order][keep]
    k = np.cumsum(ranked).astype("float64")
    f = np.cumsum(~ranked).astype("float64")
    if interpolation == "coco":
        precision = k / (f + k + np.spacing(1))
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            precision = np.where(f + k > 0, k / np.maximum(f + k, 1), 0.0)
    envelope = np.maximum.accumulate(precision[::-1])[::-1] if precision.size else precision
    k_min = first_count_reaching(np.array([int(n_positive)]), COCO_RECALL_THRESHOLDS, interpolation)[:, 0]
    tp_positions = np.flatnonzero(ranked)
    k_eff = np.maximum(k_min, 1)
    ok = k_eff <= tp_positions.size
    values = np.where(
        ok, envelope[tp_positions[np.where(ok, k_eff - 1, 0)]] if tp_positions.size else 0.0, 0.0
    )
    return float(np.mean(values))
