"""Greedy matching of detections to ground truths, vectorized across images and labels.

COCO's rule (``matching="coco"``), per image, label, area range and IoU threshold ``t``:
detections are taken in order of descending score (ties keep input order) and only the
first ``max_det`` of them are kept; each detection takes, among the ground truths still
free (a crowd region is never used up) whose IoU is at least ``min(t, 1 - 1e-10)``, the
one that is not ignored if there is one, and among those the highest IoU (on an exact
tie the later ground truth in input order). A ground truth is ignored when it is a crowd
region, flagged ``ignore``, or its area is outside the area range. A detection matched
to an ignored ground truth, or unmatched with its own area outside the range, is
ignored (neither true nor false positive).

valor's rule (``matching="valor"``): each detection is bound once to the ground truth of
its label with the highest IoU (whether or not that one is still free; on an exact IoU tie
the earlier ground truth in input order), among those it overlaps with an IoU of at least
valor's ``EPSILON`` (1e-9: without overlap there is no match, even at ``t = 0``);
detections are taken by descending score, then descending IoU (for a detection that
overlaps no ground truth of its label: its best IoU with a ground truth of another label,
as valor ranks it), then image (in sorted id order, where valor uses the order images were
added) and input order, and a detection is
a true positive when its IoU reaches ``t`` and no earlier detection bound to the same
ground truth did. There are no crowd regions, ignore flags or per-image limits in valor.
Detections scoring at most ``EPSILON`` are dropped before matching (by
:func:`pdmetrics.detection.evaluate` and friends), as valor never counts them.

Instead of looping over images, every (image, label) group advances one detection rank
at a time: iteration ``r`` matches the ``r``-th detection of all groups at once, for all
area ranges and thresholds, so there are at most ``max_det`` iterations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pdmetrics.detection.inputs import BoxData
from pdmetrics.detection.options import MATCHING_RULES, VALOR_EPSILON, check_choice

__all__ = ["MatchResult", "match_boxes", "rank_within_groups"]


@dataclass(frozen=True)
class MatchResult:
    """Matching of every kept detection, for each area range and IoU threshold.

    Detection arrays have one entry per kept detection (its ``rank`` within its image
    and label is below ``max_det``), in ranking order: by label, then descending score,
    then image, then rank (the order COCO accumulates them in; valor: by label, descending
    score, descending ``sort_iou``, image, rank). Arrays of shape ``(A, T, n)`` are per
    area range and IoU threshold. ``sort_iou`` is valor's ranking IoU (0 for COCO).
    """

    data: BoxData
    iou_thresholds: np.ndarray
    area_ranges: np.ndarray
    max_det: int
    det: np.ndarray
    rank: np.ndarray
    gt_match: np.ndarray
    ignored: np.ndarray
    tp: np.ndarray
    gt_ignored: np.ndarray
    n_positive: np.ndarray
    sort_iou: np.ndarray

    @property
    def fp(self) -> np.ndarray:
        return ~self.tp & ~self.ignored

    def matched_iou(self, area_index: int = 0) -> np.ndarray:
        """IoU of each detection with its matched ground truth, ``(T, n)``; NaN if unmatched."""
        match = self.gt_match[area_index]
        rows, cols = np.nonzero(match >= 0)
        out = np.full(match.shape, np.nan)
        if rows.size:
            out[rows, cols] = self.data.pair_iou(self.det[cols], match[rows, cols])
        return out


def rank_within_groups(groups: np.ndarray, keys: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Order rows by ``groups`` then ``keys`` (lexsort, stable); return order and rank."""
    order = np.lexsort((np.arange(groups.size),) + tuple(reversed(keys)) + (groups,))
    sorted_groups = groups[order]
    start = np.ones(sorted_groups.size, dtype=bool)
    start[1:] = sorted_groups[1:] != sorted_groups[:-1]
    first = np.maximum.accumulate(np.where(start, np.arange(sorted_groups.size), 0))
    rank = np.empty(groups.size, dtype="int64")
    rank[order] = np.arange(sorted_groups.size) - first
    return order, rank


def _coco_ranking(data: BoxData, groups: np.ndarray, max_det: int) -> tuple[np.ndarray, np.ndarray]:
    """COCO's ranks and ranking order, from one sort of the scores.

    ``rank``: each detection's rank within its image and label by descending score (ties in
    input order). ``order``: the detections with ``rank < max_det`` by label, descending
    score, image, rank. Both come from stable sorts of integer keys made of the images,
    labels and the scores' codes in descending order (the same orders as lexsorts on
    ``-score``); keys that could overflow fall back to lexsorts.
    """
    n = data.n_dt
    by_score = np.argsort(-data.dt_score)  # equal scores get one code: no stable sort needed
    ranked = data.dt_score[by_score]
    code = np.empty(n, dtype="int64")
    code[by_score] = np.cumsum(np.r_[False, ranked[1:] != ranked[:-1]])  # 0 for the highest score
    n_codes = int(code.max()) + 1 if n else 1
    n_groups = int(groups.max()) + 1 if n else 1
    n_images, n_labels = max(int(data.images.size), 1), max(int(data.labels.size), 1)
    limit = np.iinfo("int64").max // 2
    if n_groups * n_codes < limit and n_labels * n_codes * n_images < limit:
        within = np.argsort(groups * n_codes + code, kind="stable")
        ranking = np.argsort((data.dt_label * n_codes + code) * n_images + data.dt_image, kind="stable")
    else:
        within = np.lexsort((np.arange(n), code, groups))
        ranking = np.lexsort((np.arange(n), data.dt_image, code, data.dt_label))
    sorted_groups = groups[within]
    start = np.ones(n, dtype=bool)
    start[1:] = sorted_groups[1:] != sorted_groups[:-1]
    first = np.maximum.accumulate(np.where(start, np.arange(n), 0))
    rank = np.empty(n, dtype="int64")
    rank[within] = np.arange(n) - first
    return rank, ranking[rank[ranking] < max_det]


def _pairs(data: BoxData, dets: np.ndarray, groups_dt: np.ndarray, groups_gt: np.ndarray):
    """All (detection, ground truth) pairs in the same image and label, in ``dets`` order."""
    gt_order = np.argsort(groups_gt, kind="stable")
    sorted_gt = groups_gt[gt_order]
    left = np.searchsorted(sorted_gt, groups_dt[dets], side="left")
    right = np.searchsorted(sorted_gt, groups_dt[dets], side="right")
    counts = right - left
    total = int(counts.sum())
    pair_det = np.repeat(dets, counts)
    offsets = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
    pair_gt = gt_order[np.repeat(left, counts) + offsets]
    return pair_det, pair_gt, data.pair_iou(pair_det, pair_gt)


def match_boxes(
    data: BoxData, iou_thresholds, area_ranges, max_det: int, matching: str = "coco"
) -> MatchResult:
    """Match detections to ground truths for every area range and IoU threshold.

    Parameters
    ----------
    data : BoxData
        Checked boxes (see :func:`pdmetrics.detection.inputs.prepare_boxes`).
    iou_thresholds : array-like of float
        IoU thresholds ``T``.
    area_ranges : array-like of shape (A, 2)
        Inclusive ``[low, high]`` ground-truth area ranges.
    max_det : int
        Detections kept per image and label (by descending score).
    matching : {"coco", "valor"}
        The matching rule (see the module docstring).

    Returns
    -------
    MatchResult
    """
    check_choice(matching, "matching", MATCHING_RULES)
    thresholds = np.asarray(iou_thresholds, dtype="float64").reshape(-1)
    ranges = np.asarray(area_ranges, dtype="float64").reshape(-1, 2)
    n_labels = max(int(data.labels.size), 1)
    n_thr, n_area = thresholds.size, ranges.shape[0]
    effective = np.minimum(thresholds, 1 - 1e-10)

    groups_dt = data.dt_image * n_labels + data.dt_label
    groups_gt = data.gt_image * n_labels + data.gt_label
    gt_ignored = (
        (data.gt_crowd | data.gt_ignore)[None, :]
        | (data.gt_area[None, :] < ranges[:, :1])
        | (data.gt_area[None, :] > ranges[:, 1:])
    )
    dt_outside = (data.dt_area[None, :] < ranges[:, :1]) | (data.dt_area[None, :] > ranges[:, 1:])

    if matching == "coco":
        rank, det = _coco_ranking(data, groups_dt, max_det)
        kept = np.flatnonzero(rank < max_det)
        small = "int16" if max_det <= np.iinfo("int16").max else "int64"  # a radix sort when small
        by_rank = kept[np.argsort(rank[kept].astype(small), kind="stable")]
        pair_det, pair_gt, pair_iou = _pairs(data, by_rank, groups_dt, groups_gt)
    else:
        all_dets = np.arange(data.n_dt)
        pair_det, pair_gt, pair_iou = _pairs(data, all_dets, groups_dt, groups_gt)
        # valor pairs boxes only when they overlap (IoU >= its EPSILON), so even at
        # iou_threshold=0 a match needs some overlap
        overlapping = pair_iou >= VALOR_EPSILON
        pair_det, pair_gt, pair_iou = pair_det[overlapping], pair_gt[overlapping], pair_iou[overlapping]
        # bind each detection to its best-IoU ground truth (first one on a tie)
        best = np.lexsort((np.arange(pair_det.size), -pair_iou, pair_det))
        first = np.ones(best.size, dtype=bool)
        first[1:] = pair_det[best][1:] != pair_det[best][:-1]
        best = best[first]
        bound_iou = np.zeros(data.n_dt)
        bound_iou[pair_det[best]] = pair_iou[best]
        pair_det, pair_gt, pair_iou = pair_det[best], pair_gt[best], pair_iou[best]
        # valor ranks a detection that overlaps no ground truth of its label by its best IoU
        # with a ground truth of another label in the same image (never a match)
        lone = np.ones(data.n_dt, dtype=bool)
        lone[pair_det] = False
        if lone.any() and data.n_gt:
            cross_det, cross_gt, cross_iou = _pairs(data, np.flatnonzero(lone), data.dt_image, data.gt_image)
            other = (data.gt_label[cross_gt] != data.dt_label[cross_det]) & (cross_iou >= VALOR_EPSILON)
            np.maximum.at(bound_iou, cross_det[other], cross_iou[other])
        _, rank = rank_within_groups(groups_dt, (-data.dt_score, -bound_iou))
        kept = np.flatnonzero(rank < max_det)
        order = np.argsort(rank[pair_det], kind="stable")
        pair_det, pair_gt, pair_iou = pair_det[order], pair_gt[order], pair_iou[order]

    # pairs that can never match are dropped up front
    pair_rank = rank[pair_det]
    useful = (pair_rank < max_det) & (pair_iou >= (effective.min() if thresholds.size else np.inf))
    pair_det, pair_gt = pair_det[useful], pair_gt[useful]
    pair_iou, pair_rank = pair_iou[useful], pair_rank[useful]

    # ranking order of the kept detections: label, score desc, (valor: IoU desc), image, rank;
    # results are written straight into that order
    if matching == "valor":
        order = np.lexsort(
            (rank[kept], data.dt_image[kept], -bound_iou[kept], -data.dt_score[kept], data.dt_label[kept])
        )
        det = kept[order]
    position_of = np.full(data.n_dt, -1, dtype="int64")
    position_of[det] = np.arange(det.size)

    used = np.zeros((n_area, n_thr, data.n_gt), dtype=bool)
    n_ranks = int(pair_rank.max()) + 1 if pair_rank.size else 0
    bounds = np.searchsorted(pair_rank, np.arange(n_ranks + 1), side="left")
    nonignored = ~gt_ignored  # (A, n_gt)
    crowd = data.gt_crowd
    # each detection's pairs in the order it prefers them, per area range: not ignored first,
    # then the highest IoU, then the later ground truth; it takes the first one still valid
    n_pairs = pair_det.size
    segment = np.cumsum(np.r_[False, pair_det[1:] != pair_det[:-1]]) if n_pairs else pair_det
    base = np.lexsort((-np.arange(n_pairs), -pair_iou, segment))
    preference = (
        np.stack(
            [
                base[np.argsort(segment[base] * 2 + gt_ignored[a, pair_gt[base]], kind="stable")]
                for a in range(n_area)
            ]
        )
        if n_area
        else np.zeros((0, n_pairs), dtype="int64")
    )
    found = []
    for r in range(bounds.size - 1):
        lo, hi = bounds[r], bounds[r + 1]
        if lo == hi:
            continue
        p_det = pair_det[lo:hi]
        p_gt = pair_gt[lo:hi]
        starts = np.flatnonzero(np.r_[True, p_det[1:] != p_det[:-1]])
        valid = pair_iou[None, None, lo:hi] >= effective[None, :, None]
        valid = valid & ~(used[:, :, p_gt] & ~crowd[p_gt])
        prefer = preference[:, lo:hi] - lo  # (A, p)
        ranked = np.take_along_axis(valid, prefer[:, None, :], axis=2)
        first_valid = np.minimum.reduceat(
            np.where(ranked, np.arange(hi - lo), hi - lo), starts, axis=-1
        )  # (A, T, n_segments)
        hit = np.flatnonzero(first_valid < hi - lo)
        aa, tt = np.divmod(hit // starts.size, n_thr)
        pos = prefer[aa, first_valid.reshape(-1)[hit]]
        used[aa, tt, p_gt[pos]] = True
        found.append((aa, tt, p_det[pos], p_gt[pos]))

    # unmatched detections are ignored when outside the area range; matched ones when their
    # ground truth is
    aa, tt, dd, gg = (
        (np.concatenate(parts) for parts in zip(*found)) if found else (np.zeros(0, dtype="int64"),) * 4
    )
    flat = (aa * n_thr + tt) * det.size + position_of[dd]  # into the (A, T, n) arrays
    gt_match = np.full((n_area, n_thr, det.size), -1, dtype="int32")
    gt_match.reshape(-1)[flat] = gg
    ignored = np.repeat(dt_outside[:, det][:, None, :], n_thr, axis=1)
    matched_ignored = gt_ignored[aa, gg]
    ignored.reshape(-1)[flat] = matched_ignored
    tp = np.zeros(gt_match.shape, dtype=bool)
    tp.reshape(-1)[flat] = ~matched_ignored
    n_positive = (
        np.stack(
            [np.bincount(data.gt_label[nonignored[a]], minlength=data.labels.size) for a in range(n_area)]
        )
        if n_area
        else np.zeros((0, data.labels.size), "int64")
    )
    return MatchResult(
        data=data,
        iou_thresholds=thresholds,
        area_ranges=ranges,
        max_det=int(max_det),
        det=det,
        rank=rank[det],
        gt_match=gt_match,
        ignored=ignored,
        tp=tp,
        gt_ignored=gt_ignored,
        n_positive=n_positive,
        sort_iou=bound_iou[det] if matching == "valor" else np.zeros(det.size),
    )
