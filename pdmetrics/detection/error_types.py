"""Why the AP is what it is: TIDE's error breakdown (Bolya et al., ECCV 2020; tidecv 1.0.1).

Every detection that is not a true positive gets one error type, every ground truth that no
detection found and no error could recover is *missed*; each type's *dAP* is the AP gained
when an oracle fixes all the errors of that type and nothing else.

The definitions follow tidecv 1.0.1, which differ from COCO's evaluation in a few places:

- One IoU threshold, the *foreground* threshold (0.5 by default), and TIDE's own AP: 101
  recall points, each taking the precision (made non-increasing) of the first point of the
  curve whose recall reaches it, averaged; the mean over labels counts every label that has
  a ground truth or a counted detection (a label with detections but no ground truth has
  AP 0 and pulls the mean down).
- The detections of an image are ranked by descending score over all labels and only the
  first ``max_dets`` of the image are kept (COCO keeps ``max_dets`` per image *and label*).
- Matching, per image, in that order: a detection takes the free ground truth of its label
  with the highest IoU (the first in input order on a tie) when that IoU is at least the
  foreground threshold. Crowd regions are not matched: an unmatched detection whose crowd
  IoU (intersection over the detection's area) with a crowd of its label is *above* the
  threshold is ignored (it is neither a true nor a false positive).
- An unmatched (or ignored) detection is, in this order of tests: ``Bkg`` when its image
  has no ground truth (crowds aside); ``Loc`` when its best IoU with a ground truth of its
  label lies in ``[background, foreground]``; ``Cls`` when its best IoU with a ground truth
  of another label reaches the foreground threshold; ``Dupe`` when its best IoU with a
  matched ground truth of its label reaches it; ``Bkg`` when its best IoU with any ground
  truth is at most the background threshold; ``Both`` otherwise. A ground truth is ``Miss``
  when it is unmatched and no ``Loc`` or ``Cls`` error points at it.
- Fixing ``Loc`` (``Cls``) errors: among the errors pointing at one unmatched ground truth
  (``Loc`` and ``Cls`` together), the highest-scoring one becomes a true positive (of its
  own label for ``Loc``, of the ground truth's label for ``Cls``); the others, and those
  pointing at a matched ground truth, are removed. Fixing ``Both``, ``Dupe`` or ``Bkg``
  removes those false positives; fixing ``Miss`` removes those ground truths. Each type is
  fixed alone, from the original detections (tidecv's default, non-progressive oracle), and
  a negative gain (a quirk of the 101-point sampling) counts as 0.
- The special errors: ``FalsePos`` gives every false positive the lowest score (perfect
  precision at the same recall); ``FalseNeg`` removes every unmatched ground truth (perfect
  recall at the same precision). Their gains are not clipped at 0.

The matching needs the boxes of one image only; a chunk holding every box of its images
computes each detection's status, error type and what fixing it gives, and the per-label
ground-truth counts. The APs need every image: the chunks' arrays are concatenated and the
APs computed once, in finalize.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdmetrics._groups import POOLED_LABEL, check_not_pooled
from pdmetrics._table_spec import table
from pdmetrics._tables import attach_info, result_table
from pdmetrics._validation import plain
from pdmetrics._warnings import warn_undefined
from pdmetrics.detection.inputs import BoxColumns, box_columns
from pdmetrics.detection.match_state import (
    BoxTable,
    added_by_id,
    added_counts,
    aligned_ids,
    box_spec,
    check_ground_truth_or_images,
    row_arrays,
)
from pdmetrics.detection.matching import rank_within_groups
from pdmetrics.detection.operating import check_by_label, one_iou_threshold
from pdmetrics.detection.options import one_number
from pdmetrics.errors import InvalidInputError

__all__ = [
    "errors",
    "MAIN_ERRORS",
    "SPECIAL_ERRORS",
    "ErrorState",
    "error_state",
    "tide_ap",
    "ErrorTable",
    "TypedMatches",
    "typed_matches",
]

#: TIDE's main error types, in tidecv's order (its short names).
MAIN_ERRORS = ("Cls", "Loc", "Both", "Dupe", "Bkg", "Miss")
#: TIDE's special error types.
SPECIAL_ERRORS = ("FalsePos", "FalseNeg")

# a detection's status at a threshold
TP, FP, IGNORED = 0, 1, 2
# error codes of detections: their index in MAIN_ERRORS (Miss is a ground truth's); -1: none
CLS, LOC, BOTH, DUPE, BKG = range(5)


def _thresholds(background_threshold, foreground_threshold) -> tuple[float, float]:
    """Check the two IoU thresholds: ``0 <= background <= foreground``, ``0 < foreground <= 1``."""
    values = [
        one_iou_threshold(value, name)
        for name, value in (
            ("background_threshold", background_threshold),
            ("foreground_threshold", foreground_threshold),
        )
    ]
    background, foreground = values
    if foreground == 0 or background > foreground:
        raise InvalidInputError(
            f"TIDE needs 0 <= background_threshold <= foreground_threshold and a positive "
            f"foreground_threshold; got background_threshold={plain(background_threshold)!r}, "
            f"foreground_threshold={plain(foreground_threshold)!r} (tidecv's defaults: 0.1 and 0.5)."
        )
    return background, foreground


def _max_dets(max_dets) -> int:
    """``max_dets=``: one positive integer (detections kept per image, over all labels)."""
    try:
        value = one_number(max_dets, "max_dets")
    except InvalidInputError:
        value = np.nan
    if not (np.isfinite(value) and value >= 1 and value == int(value)):
        raise InvalidInputError(
            f"`max_dets=` must be one positive integer (detections kept per image, tidecv's 100); "
            f"got {plain(max_dets)!r}."
        )
    return int(value)


# ----------------------------------------------------------------------------------------------
# the chunk: matching and error types of every image of a chunk
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ErrorState:
    """The TIDE status of the detections of a chunk, for ``T`` foreground thresholds.

    Detection arrays hold the detections kept by the per-image limit: ids codes ``dt_image``
    and ``dt_label``, ``dt_score``, ``dt_rank`` (rank in its image), ``dt_part``/``dt_pos``
    (the row in the caller's frame); ``status`` ``(T, n)`` (0 true positive, 1 false
    positive, 2 ignored), ``error`` ``(T, n)`` (an index into :data:`MAIN_ERRORS`, -1 for a
    true positive) and ``fixed`` ``(T, n)`` (the label code a fix turns it into a true
    positive of, -1 when fixing removes it). Per label: ``n_positive`` (ground truths that
    are not crowds), ``missed`` and ``unmatched`` ``(T, L)``. ``combine`` concatenates.
    """

    images: np.ndarray
    labels: np.ndarray
    n_gt: int
    dt_rows: np.ndarray
    n_positive: np.ndarray
    missed: np.ndarray
    unmatched: np.ndarray
    dt_image: np.ndarray
    dt_label: np.ndarray
    dt_score: np.ndarray
    dt_rank: np.ndarray
    dt_part: np.ndarray
    dt_pos: np.ndarray
    status: np.ndarray
    error: np.ndarray
    fixed: np.ndarray

    def combine(self, *others: ErrorState) -> ErrorState:
        """The state of all the chunks: arrays concatenated, ids aligned on their values."""
        states = (self, *others)
        images, image_codes = aligned_ids([s.images for s in states], "image")
        n_thr = self.status.shape[0]
        counts = [np.concatenate([s.n_positive[None], s.missed, s.unmatched]) for s in states]
        labels, total, label_codes = added_by_id([s.labels for s in states], counts, "label")

        def cat(name):
            return np.concatenate([getattr(s, name) for s in states], axis=-1)

        fixed = [
            np.where(s.fixed >= 0, c[np.maximum(s.fixed, 0)] if c.size else -1, -1)
            for s, c in zip(states, label_codes)
        ]
        return ErrorState(
            images=images,
            labels=labels,
            n_gt=sum(s.n_gt for s in states),
            dt_rows=added_counts([s.dt_rows for s in states]),
            n_positive=total[0],
            missed=total[1 : 1 + n_thr],
            unmatched=total[1 + n_thr :],
            dt_image=np.concatenate([c[s.dt_image] for s, c in zip(states, image_codes)]),
            dt_label=np.concatenate([c[s.dt_label] for s, c in zip(states, label_codes)]),
            dt_score=cat("dt_score"),
            dt_rank=cat("dt_rank"),
            dt_part=cat("dt_part"),
            dt_pos=cat("dt_pos"),
            status=cat("status"),
            error=cat("error"),
            fixed=np.concatenate(fixed, axis=-1),
        )


def _first_best(det: np.ndarray, values: np.ndarray, gt: np.ndarray, n_dt: int):
    """Per detection, the highest value over its pairs and the first ground truth (in input
    order) holding it: numpy's ``argmax`` over a row. The pairs come grouped by detection,
    ground truths in input order within a detection. Detections without pairs get (0, -1)."""
    best_value = np.zeros(n_dt)
    best_gt = np.full(n_dt, -1, dtype="int64")
    if det.size:
        starts = np.flatnonzero(np.r_[True, det[1:] != det[:-1]])
        top = np.maximum.reduceat(values, starts)
        segment = np.cumsum(np.r_[True, det[1:] != det[:-1]]) - 1
        at_top = np.where(values == top[segment], np.arange(det.size), det.size)
        first = np.minimum.reduceat(at_top, starts)
        best_value[det[starts]] = top
        best_gt[det[starts]] = gt[first]
    return best_value, best_gt


def error_state(
    detections: pd.DataFrame,
    ground_truth: pd.DataFrame,
    columns: BoxColumns,
    foreground: np.ndarray,
    background: float,
    max_dets: int,
    *,
    dt_rows=None,
) -> ErrorState:
    """The chunk step: TIDE's matching and error types of the boxes of a chunk holding every
    box of its images, at each foreground threshold of ``foreground``."""
    data = columns.prepare(detections, ground_truth, partition=dt_rows is not None)
    dt_part, dt_pos = row_arrays(dt_rows, data.n_dt)
    n_thr, n_lab = foreground.size, data.labels.size
    crowd = data.gt_crowd
    real = ~crowd
    # the first max_dets detections of each image, by descending score over all labels
    _, image_rank = rank_within_groups(data.dt_image, (-data.dt_score,))
    kept = np.flatnonzero(image_rank < max_dets)
    n = kept.size
    label = data.dt_label[kept]
    score = data.dt_score[kept]
    image = data.dt_image[kept]
    # every (kept detection, ground truth) pair of one image
    gt_order = np.argsort(data.gt_image, kind="stable")
    sorted_image = data.gt_image[gt_order]
    left = np.searchsorted(sorted_image, image, side="left")
    counts = np.searchsorted(sorted_image, image, side="right") - left
    p_det = np.repeat(np.arange(n), counts)
    p_gt = gt_order[
        np.repeat(left, counts) + np.arange(p_det.size) - np.repeat(np.cumsum(counts) - counts, counts)
    ]
    p_iou = data.pair_iou(kept[p_det], p_gt) if p_det.size else np.zeros(0)
    same = data.gt_label[p_gt] == label[p_det]
    p_real = real[p_gt]
    image_has_gt = np.zeros(data.images.size, dtype=bool)
    image_has_gt[data.gt_image[real]] = True
    has_gt = image_has_gt[image]
    # what does not depend on the threshold: the best IoUs of tidecv's error tests
    r_det, r_gt, r_iou, r_same = p_det[p_real], p_gt[p_real], p_iou[p_real], same[p_real]
    loc_iou, loc_gt = _first_best(r_det, np.where(r_same, r_iou, 0.0), r_gt, n)
    cls_iou, cls_gt = _first_best(r_det, np.where(r_same, 0.0, r_iou), r_gt, n)
    any_iou, _ = _first_best(r_det, r_iou, r_gt, n)
    _, group_rank = rank_within_groups(image * max(n_lab, 1) + label, (-score,))
    # matching candidates (non-crowd, same label), by rank in the group, detection, IoU, input order
    cand = np.flatnonzero(p_real & same)
    c_order = np.lexsort((p_gt[cand], -p_iou[cand], p_det[cand], group_rank[p_det[cand]]))
    cand = cand[c_order]
    n_positive = np.bincount(data.gt_label[real], minlength=n_lab).astype("int64")
    crowd_pairs = np.flatnonzero(crowd[p_gt] & same)
    s_det, s_gt, s_iou = r_det[r_same], r_gt[r_same], r_iou[r_same]  # grouped by detection
    s_starts = np.flatnonzero(np.r_[True, s_det[1:] != s_det[:-1]]) if s_det.size else s_det
    status = np.full((n_thr, n), FP, dtype="int8")
    error = np.full((n_thr, n), -1, dtype="int8")
    fixed = np.full((n_thr, n), -1, dtype="int64")
    missed = np.zeros((n_thr, n_lab), dtype="int64")
    unmatched = np.zeros((n_thr, n_lab), dtype="int64")
    for t, fg in enumerate(foreground):
        matched_gt = _greedy(cand[p_iou[cand] >= fg], p_det, p_gt, group_rank, n, data.n_gt)
        used = np.zeros(data.n_gt, dtype=bool)
        used[matched_gt[matched_gt >= 0]] = True
        matched = matched_gt >= 0
        # an unmatched detection over a crowd of its label (crowd IoU above the threshold): ignored
        over_crowd = np.zeros(n, dtype=bool)
        over_crowd[p_det[crowd_pairs[p_iou[crowd_pairs] > fg]]] = True
        st = np.where(matched, TP, np.where(over_crowd, IGNORED, FP)).astype("int8")
        # the best IoU with a matched ground truth of the detection's label
        dupe_iou = np.zeros(n)
        if s_det.size:
            dupe_iou[s_det[s_starts]] = np.maximum.reduceat(np.where(used[s_gt], s_iou, 0.0), s_starts)
        kind = np.select(
            [
                matched,
                ~has_gt,
                (loc_iou >= background) & (loc_iou <= fg),
                cls_iou >= fg,
                dupe_iou >= fg,
                any_iou <= background,
            ],
            [-1, BKG, LOC, CLS, DUPE, BKG],
            BOTH,
        ).astype("int8")
        target = np.where(kind == LOC, loc_gt, np.where(kind == CLS, cls_gt, -1))
        # errors pointing at a free ground truth: the highest-scoring one per ground truth is fixable
        live = np.flatnonzero(~np.r_[used, True][target])  # target -1 (none) reads True
        usable = np.zeros(data.n_gt, dtype=bool)
        usable[target[live]] = True
        best = live[np.lexsort((image_rank[kept[live]], -score[live], target[live]))]
        best = best[np.r_[True, target[best][1:] != target[best][:-1]]] if best.size else best
        fix = np.full(n, -1, dtype="int64")
        fix[best] = np.where(kind[best] == LOC, label[best], data.gt_label[target[best]])
        lost = real & ~used
        status[t], error[t], fixed[t] = st, kind, fix
        missed[t] = np.bincount(data.gt_label[lost & ~usable], minlength=n_lab)
        unmatched[t] = np.bincount(data.gt_label[lost], minlength=n_lab)
    return ErrorState(
        images=np.asarray(data.images),
        labels=np.asarray(data.labels),
        n_gt=data.n_gt,
        dt_rows=np.bincount(dt_part, minlength=1),
        n_positive=n_positive,
        missed=missed,
        unmatched=unmatched,
        dt_image=image,
        dt_label=label,
        dt_score=score,
        dt_rank=image_rank[kept],
        dt_part=dt_part[kept],
        dt_pos=dt_pos[kept],
        status=status,
        error=error,
        fixed=fixed,
    )


def _greedy(cand, p_det, p_gt, group_rank, n: int, n_gt: int) -> np.ndarray:
    """Greedy matching over the candidate pairs (sorted by rank in the group, detection,
    descending IoU, input order): rank by rank, each detection takes its first free ground
    truth. Detections of one rank are in different groups, so they never compete."""
    matched_gt = np.full(n, -1, dtype="int64")
    if not cand.size:
        return matched_gt
    used = np.zeros(n_gt, dtype=bool)
    c_det, c_gt = p_det[cand], p_gt[cand]
    c_rank = group_rank[c_det]
    bounds = np.flatnonzero(np.r_[True, c_rank[1:] != c_rank[:-1], True])
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        d, g = c_det[lo:hi], c_gt[lo:hi]
        starts = np.flatnonzero(np.r_[True, d[1:] != d[:-1]])
        position = np.where(used[g], hi - lo, np.arange(hi - lo))
        chosen = np.minimum.reduceat(position, starts)
        chosen = chosen[chosen < hi - lo]
        matched_gt[d[chosen]] = g[chosen]
        used[g[chosen]] = True
    return matched_gt


# ----------------------------------------------------------------------------------------------
# finalize: TIDE's AP of every scenario
# ----------------------------------------------------------------------------------------------
def tide_ap(label, tp, n_positive) -> tuple[np.ndarray, np.ndarray]:
    """TIDE's AP (0–1) of each label and whether the label counts in the mean.

    ``label`` (codes ``0..L-1``) and ``tp`` (bool) describe the points of the
    precision-recall curves, in ranking order (descending score, ties broken); ``n_positive``
    the ground truths of each label. The curve of a label is its points in that order; the
    precision is made non-increasing from the right; at each of the 101 recall levels
    ``0, 0.01, ..., 1`` the precision of the first point whose recall reaches the level
    (0 when none does) is read; the AP is their mean, 0 for a label without ground truth. A
    label counts in the mean when it has a point or a ground truth.
    """
    n_lab = n_positive.size
    order = np.argsort(label, kind="stable")
    lab, hit = label[order], tp[order].astype("int64")
    starts = np.searchsorted(lab, np.arange(n_lab))
    sizes = np.bincount(lab, minlength=n_lab)
    cum = np.cumsum(hit)
    before = np.r_[0, cum][starts]
    n_true = cum - before[lab]
    seen = np.arange(lab.size) - starts[lab] + 1
    precision = n_true / seen
    # precision made non-increasing within each label: a running max from the right, labels apart
    lift = 2.0 * (n_lab - lab[::-1])
    smooth = (np.maximum.accumulate(precision[::-1] + lift) - lift)[::-1] if lab.size else precision
    # the first point whose recall n_true / N reaches level x is where n_true first reaches m,
    # the least count with m / N >= x (as computed in floating point; m = 0 is the first point)
    levels = np.arange(101) / 100
    positives = np.maximum(n_positive, 1).astype("float64")[:, None, None]
    guess = np.ceil(levels[None, :, None] * positives) + np.array([-1.0, 0.0, 1.0])
    reaches = (guess >= 0) & (guess / positives >= levels[None, :, None])
    least = np.where(reaches, guess, np.inf).min(axis=2).astype("int64")  # (L, 101)
    tp_positions = np.flatnonzero(hit)
    n_tp = np.bincount(lab[hit.astype(bool)], minlength=n_lab)
    tp_start = np.cumsum(n_tp) - n_tp
    reached = (least <= n_tp[:, None]) & (sizes[:, None] > 0)
    nth = np.clip(tp_start[:, None] + least - 1, 0, max(tp_positions.size - 1, 0))
    at = np.where(least == 0, starts[:, None], tp_positions[nth] if tp_positions.size else 0)
    value = np.where(reached, smooth[np.minimum(at, max(lab.size - 1, 0))] if lab.size else 0.0, 0.0)
    ap = value.reshape(n_lab, levels.size).sum(axis=1) / levels.size
    ap = np.where(n_positive > 0, ap, 0.0)
    counted = (sizes > 0) | (n_positive > 0)
    return ap, counted


def _mean(ap: np.ndarray, counted: np.ndarray) -> float:
    return float(ap[counted].mean()) if counted.any() else np.nan


def _scenarios(state: ErrorState, t: int) -> dict:
    """Per scenario (base, each main error fixed, each special error): AP per label and mean."""
    st, err, fix = state.status[t], state.error[t], state.fixed[t]
    label, score = state.dt_label, state.dt_score
    n_pos = state.n_positive
    counted_pts = st != IGNORED
    is_tp = st == TP
    # ranking order: descending score; equal scores keep tidecv's order of points: by image (in
    # id order), then rank in the image; a fixed scenario lists its errors' points first
    base_rank = np.lexsort((state.dt_rank, state.dt_image, -score))
    fixed_rank = np.lexsort((state.dt_rank, state.dt_image, is_tp, -score))

    def run(keep, labels, tp, n_positive, rank=fixed_rank):
        chosen = rank[keep[rank]]
        return tide_ap(labels[chosen], tp[chosen], n_positive)

    out = {"base": run(counted_pts, label, is_tp, n_pos, rank=base_rank)}
    for code, name in enumerate(MAIN_ERRORS):
        if name == "Miss":
            out[name] = run(counted_pts, label, is_tp, n_pos - state.missed[t])
            continue
        this = err == code
        # others as they are; this type's: a fixable one becomes a true positive, the rest go
        keep = (counted_pts & ~this) | (this & (fix >= 0))
        labels = np.where(this & (fix >= 0), fix, label)
        out[name] = run(keep, labels, is_tp | (this & (fix >= 0)), n_pos)
    # every false positive scored below every true positive
    perfect = fixed_rank[np.argsort(~is_tp[fixed_rank], kind="stable")]
    out["FalsePos"] = run(counted_pts, label, is_tp, n_pos, rank=perfect)
    out["FalseNeg"] = run(counted_pts, label, is_tp, n_pos - state.unmatched[t])
    return out


def _errors_table(state: ErrorState, columns: BoxColumns, background, foreground, by) -> pd.DataFrame:
    check_ground_truth_or_images(state.n_gt, columns, len(state.images))
    labels = state.labels
    check_not_pooled(labels, "label")
    n_lab = labels.size
    scen = _scenarios(state, 0)
    base_ap, base_counted = scen["base"]
    base_mean = _mean(base_ap, base_counted)
    rows_label = np.flatnonzero(base_counted)
    names = [*MAIN_ERRORS, *SPECIAL_ERRORS]
    err, st = state.error[0], state.status[0]
    count = np.zeros((len(names), n_lab), dtype="int64")
    for code in range(len(MAIN_ERRORS) - 1):
        count[code] = np.bincount(state.dt_label[err == code], minlength=n_lab)
    count[MAIN_ERRORS.index("Miss")] = state.missed[0]
    count[len(MAIN_ERRORS)] = np.bincount(state.dt_label[st == FP], minlength=n_lab)
    count[len(MAIN_ERRORS) + 1] = state.unmatched[0]
    dap = np.zeros((len(names), n_lab))
    dap_all = np.zeros(len(names))
    for i, name in enumerate(names):
        ap, counted = scen[name]
        gain, gain_all = ap - base_ap, _mean(ap, counted) - base_mean
        if name in MAIN_ERRORS:  # tidecv counts a loss (a sampling quirk) as no gain
            gain, gain_all = np.maximum(gain, 0.0), np.maximum(gain_all, 0.0)
        dap[i], dap_all[i] = gain, gain_all
    if np.isnan(base_mean):
        warn_undefined("No label has a ground truth or a counted detection: the AP and the dAPs are NaN.")
    n_err = len(names)
    k = rows_label.size if by == "label" else 0
    chosen = rows_label[:k] if k else np.zeros(0, dtype="int64")
    label_col = [*np.repeat(labels[chosen], n_err).tolist(), *[POOLED_LABEL] * n_err]
    table = result_table(
        {
            "label": pd.Series(label_col, dtype=object),
            "error": np.tile(np.array(names, dtype=object), k + 1),
            "kind": np.tile(np.array(["main"] * 6 + ["special"] * 2, dtype=object), k + 1),
            "N": np.r_[np.repeat(state.n_positive[chosen], n_err), np.full(n_err, state.n_positive.sum())],
            "count": np.r_[count[:, chosen].T.reshape(-1), count.sum(axis=1)],
            "ap": np.r_[np.repeat(base_ap[chosen], n_err), np.full(n_err, base_mean)],
            "dap": np.r_[dap[:, chosen].T.reshape(-1), dap_all],
        },
        integer_columns=["N", "count"],
    )
    return attach_info(
        table,
        foreground_threshold=foreground,
        background_threshold=background,
        n_detections=int(st.size),
        n_ignored=int((st == IGNORED).sum()),
    )


@dataclass(frozen=True)
class ErrorTable:
    """:func:`errors` with its options checked: ``chunk`` -> :class:`ErrorState` -> ``combine``
    -> ``finalize``. Called on two pandas frames it is the pandas path."""

    columns: BoxColumns
    background: float
    foreground: float
    max_dets: int
    by: object

    def chunk(self, detections, ground_truth, dt_rows=None, gt_rows=None) -> ErrorState:
        return error_state(
            detections,
            ground_truth,
            self.columns,
            np.array([self.foreground]),
            self.background,
            self.max_dets,
            dt_rows=dt_rows,
        )

    def finalize(self, state: ErrorState) -> pd.DataFrame:
        return _errors_table(state, self.columns, self.background, self.foreground, self.by)

    def __call__(self, detections: pd.DataFrame, ground_truth: pd.DataFrame) -> pd.DataFrame:
        return self.finalize(self.chunk(detections, ground_truth))


@table
@box_columns(without=("area", "ignore"))
def errors(
    frame: pd.DataFrame,
    *,
    ground_truth: pd.DataFrame,
    columns: BoxColumns,
    background_threshold=0.1,
    foreground_threshold=0.5,
    max_dets=100,
    by="label",
) -> pd.DataFrame:
    """TIDE's error breakdown: the AP each error type costs, overall and per label.

    Equal to tidecv 1.0.1's ``TIDE().evaluate(gt, preds, mode=TIDE.BOX)`` (``TIDE.MASK`` with
    ``iou_type="segm"``): its six main errors and two special errors, its own AP and matching
    (see :mod:`pdmetrics.detection.error_types` for the definitions). Unlike tidecv, it also
    runs on ground truth without masks (box-only data).

    Parameters
    ----------
    {box_inputs}
    background_threshold : float, default 0.1
        A false positive whose IoU with every ground truth is at most this is ``Bkg``; a
        localisation error (``Loc``) has an IoU of at least this with a ground truth of its label.
    foreground_threshold : float, default 0.5
        The IoU of a true positive (tidecv's ``pos_threshold``), in (0, 1]; a detection
        overlapping a crowd region of its label by more than this (intersection over the
        detection's area) is ignored.
    max_dets : int, default 100
        Detections kept per image over all labels, by descending score (tidecv's limit).
    by : "label" or None
        Rows per label and the overall rows (default), or the overall rows only.

    Returns
    -------
    DataFrame
        Columns ``label, error, kind, N, count, ap, dap``: for each label (sorted; those with a
        ground truth or a counted detection), then ``label="(all)"``, one row per error type in
        tidecv's order: ``Cls`` (right box, wrong label), ``Loc`` (right label, IoU between the
        two thresholds), ``Both`` (wrong label and poor box), ``Dupe`` (a second detection of an
        already matched object), ``Bkg`` (detection on background), ``Miss`` (object never
        detected), ``kind="main"``; then ``FalsePos`` (all false positives) and ``FalseNeg``
        (all missed objects), ``kind="special"``. ``N``: ground truths that are not crowds;
        ``count``: detections with that error (by the detection's label), ground truths for
        ``Miss`` and ``FalseNeg``, false positives for ``FalsePos``. ``ap``: TIDE's AP at the
        foreground threshold (the label's, or the mean over labels), and ``dap`` the AP fixing
        that error type alone adds to it. Both are on the 0–1 scale of pdmetrics' AP: tidecv
        prints AP points (100 times these). A label with detections but no ground truth has
        AP 0 (tidecv counts it in the mean so). With no label to average, ``ap`` and ``dap``
        of the overall rows are NaN, with an :class:`~pdmetrics.UndefinedMetricWarning`.

        Equal scores are ranked as tidecv ranks them when its file lists the images in
        increasing id order: by image, then by rank in the image; in the AP with an error type
        fixed, the points of that scenario's false positives and fixed errors come before
        the true positives of the same score.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.detection import errors
    >>> gt = pd.DataFrame({"image": [1, 1, 2], "label": ["cat", "dog", "cat"],
    ...                    "x": [0, 50, 0], "y": 0, "w": 20, "h": 20})
    >>> dt = pd.DataFrame({"image": [1, 1, 1, 2], "label": ["cat", "cat", "cat", "dog"],
    ...                    "x": [0, 1, 52, 0], "y": 0, "w": 20, "h": [20, 20, 20, 20],
    ...                    "score": [0.9, 0.8, 0.7, 0.6]})
    >>> table = errors(dt, ground_truth=gt, by=None)
    >>> table.round(3)
       label     error     kind  N  count     ap    dap
    0  (all)       Cls     main  3      2  0.252  0.665
    1  (all)       Loc     main  3      0  0.252  0.000
    2  (all)      Both     main  3      0  0.252  0.000
    3  (all)      Dupe     main  3      1  0.252  0.000
    4  (all)       Bkg     main  3      0  0.252  0.000
    5  (all)      Miss     main  3      0  0.252  0.000
    6  (all)  FalsePos  special  3      3  0.252  0.000
    7  (all)  FalseNeg  special  3      2  0.252  0.248

    The first cat is found; the second cat detection in image 1 is a duplicate, the third
    lies on the dog (a classification error), and the dog detection of image 2 lies on a cat.
    """
    background, foreground = _thresholds(background_threshold, foreground_threshold)
    limit = _max_dets(max_dets)
    check_by_label(by)
    return box_spec(frame, ground_truth, ErrorTable(columns, background, foreground, limit, by))


# ----------------------------------------------------------------------------------------------
# the match table's error column
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TypedMatches(BoxTable):
    """The match table (a :class:`~pdmetrics.detection.match_state.BoxTable`) with each row's
    TIDE error type: the chunk is the pair (match state, :class:`ErrorState` at each IoU
    threshold as foreground threshold)."""

    background: float = 0.1

    def chunk(self, detections, ground_truth, dt_rows=None, gt_rows=None):
        matches = super().chunk(detections, ground_truth, dt_rows=dt_rows, gt_rows=gt_rows)
        types = error_state(
            detections,
            ground_truth,
            self.columns,
            self.options.iou_thresholds,
            self.background,
            int(max(self.options.max_dets)),
            dt_rows=dt_rows,
        )
        return _MatchesAndTypes(matches, types)

    def finalize(self, state) -> pd.DataFrame:
        table = super().finalize(state.matches)
        types = state.types
        offsets = np.cumsum(types.dt_rows) - types.dt_rows
        rows = offsets[types.dt_part] + types.dt_pos if types.dt_part.size else np.zeros(0, "int64")
        n_rows = int(types.dt_rows.sum())
        n_thr = self.options.iou_thresholds.size
        codes = np.full((n_thr, max(n_rows, 1)), -1, dtype="int8")
        codes[:, rows] = types.error
        per_threshold = len(table) // max(n_thr, 1)  # the table: one block of rows per threshold
        t_index = np.repeat(np.arange(n_thr), per_threshold)
        code = codes[t_index, table["detection"].to_numpy()] if len(table) else np.zeros(0, "int8")
        names = np.array([*MAIN_ERRORS[:-1], None], dtype=object)
        table["error"] = pd.Series(names[code], dtype=object)  # None where TIDE gives no type
        return table


@dataclass(frozen=True)
class _MatchesAndTypes:
    """The state of the typed match table: the match state and the :class:`ErrorState`."""

    matches: object
    types: ErrorState

    def combine(self, *others):
        return _MatchesAndTypes(
            self.matches.combine(*(o.matches for o in others)), self.types.combine(*(o.types for o in others))
        )


def typed_matches(table: BoxTable, background_threshold) -> TypedMatches:
    """The match ``table`` with the error column, at ``background_threshold``."""
    background = one_iou_threshold(background_threshold, "background_threshold")
    return TypedMatches(table.columns, table.options, table.finish, background=background)
