"""Where a detector goes wrong: valor's detailed breakdown and the label x label matrix.

Detections and ground truths are paired one-to-one within each image regardless of
label, greedily by descending detection score (each detection takes the free ground
truth it overlaps most, the earlier one in input order on an exact IoU tie; valor-lite's
``ConfusionMatrix`` rule). At an IoU threshold ``t``
and a score threshold ``s`` a pair counts when its IoU is at least ``t`` and the score at
least ``s``:

- same label: a true positive;
- different labels: a misclassification, i.e. a false positive of the predicted label
  *and* a false negative of the ground-truth label;
- a detection (score at least ``s``) in no counted pair: a hallucination (false positive);
- a ground truth in no counted pair: a missed detection (false negative).

As in valor, a detection scoring 1e-9 or less is never counted (at any score threshold,
0 included), as AP, AR and the PR curve under ``matching="valor"`` leave it out; it pairs
like any other (last, its score being the lowest), so a ground truth it alone overlaps is
missed.

Exact score ties (valor-lite 0.39): valor ranks every candidate (detection, ground truth)
pair by descending score, then descending IoU, and pairs greedily in that order, so among
detections with the same score the pair with the higher IoU is taken first, whichever
detection it belongs to. pdmetrics takes tied detections in input order, each pairing
with the free ground truth it overlaps most (pycocotools' order). The two differ only when
two detections in one image have exactly the same score and compete for a ground truth;
then the counts can differ (break the tie, e.g. by adding ``1e-12 * rank`` to the scores,
to make both agree). Labels never name columns: the matrix is a long table (``truth``,
``prediction``, ``count``), so a class called ``label`` or ``unmatched_predictions`` is
just a value.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from pdmetrics._renamed import renamed
from pdmetrics._table_spec import table
from pdmetrics._tables import result_table
from pdmetrics._validation import plain
from pdmetrics.detection.inputs import BoxColumns, box_columns
from pdmetrics.detection.match_state import (
    added_counts,
    aligned_ids,
    box_spec,
    check_ground_truth_or_images,
    row_arrays,
)
from pdmetrics.detection.matching import match_boxes
from pdmetrics.detection.options import VALOR_EPSILON, VALOR_SCORE_THRESHOLDS, check_choice, number_array
from pdmetrics.errors import InvalidInputError

__all__ = ["confusion", "ConfusionTable", "PairingState", "pairing_state"]

KINDS = ("breakdown", "matrix")


@table
@renamed("kind")
@box_columns(without=("iscrowd", "area", "ignore"))
def confusion(
    frame: pd.DataFrame,
    *,
    ground_truth: pd.DataFrame,
    columns: BoxColumns,
    table: str = "breakdown",
    iou_threshold: float = 0.5,
    score_thresholds=None,
    max_examples: int | None = None,
) -> pd.DataFrame:
    """valor's detailed error breakdown per label, or the label x label confusion matrix.

    Parameters
    ----------
    {box_inputs}
    table : {"breakdown", "matrix"}
        The per-label breakdown (one row per label and score threshold) or the matrix.
    iou_threshold : float
        Minimum IoU of a counted pair, in [0, 1] (valor's ``pr_curve_iou_threshold``,
        default 0.5).
    score_thresholds : float or sequence of float, optional
        Minimum detection score; default 0.05, 0.10, ..., 0.95 for the breakdown and 0.5
        for the matrix.
    max_examples : int, optional
        Examples kept per cell: index labels of the detections for ``tp``/``fp``, of the
        ground truths for ``fn``, and (ground-truth id, detection id) pairs. Default 1 for
        the breakdown and 0 (no ``examples`` column) for the matrix. Set the index of both
        tables to your annotation ids (e.g. ``set_index("id")`` on the tables of
        :func:`pdmetrics.io.read_coco`) to see them.

    Returns
    -------
    DataFrame
        ``table="breakdown"``: ``label, score_threshold, tp, fp, fp_misclassification,
        fp_hallucination, fn, fn_misclassification, fn_missed`` and one
        ``<count>_examples`` list column per count (``fp = fp_misclassification +
        fp_hallucination``, ``fn = fn_misclassification + fn_missed``), then
        ``tp_pairs, fp_misclassification_pairs, fn_misclassification_pairs``: the same
        paired examples as ``(ground-truth id, detection id)`` tuples, valor's form (the
        detection ids are those of ``tp_examples`` / ``fp_misclassification_examples``, the
        ground-truth ids those of ``fn_misclassification_examples``, in the same order).
        ``table="matrix"``: the long table ``score_threshold, truth, prediction, count``:
        per threshold, one row per (ground-truth label, predicted label) with the number of
        counted pairs, then one row per ground-truth label with ``prediction`` missing (its
        ground truths in no counted pair: valor's ``unmatched_ground_truths``), then one row
        per predicted label with ``truth`` missing (its detections in no counted pair:
        valor's ``unmatched_predictions``). With ``max_examples > 0`` an ``examples``
        column follows ``count``: up to that many ``(ground-truth id, detection id)``
        tuples per row (valor's confusion matrix with examples), with ``None`` for the
        missing side of an unmatched ground truth or detection. As a matrix:
        ``table.pivot_table(index="truth", columns="prediction", values="count", dropna=False)``.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.detection import confusion
    >>> gt = pd.DataFrame({"image": [1, 1], "label": ["cat", "dog"], "x": [0, 50], "y": [0, 0],
    ...                    "w": [10, 10], "h": [10, 10]})
    >>> dt = pd.DataFrame({"image": [1, 1], "label": ["cat", "cat"], "x": [0, 50], "y": [0, 0],
    ...                    "w": [10, 10], "h": [10, 10], "score": [0.9, 0.6]})
    >>> matrix = confusion(dt, ground_truth=gt, table="matrix")
    >>> print(matrix.fillna({"truth": "-", "prediction": "-"}).to_string())
       score_threshold truth prediction  count
    0              0.5   cat        cat      1
    1              0.5   cat        dog      0
    2              0.5   dog        cat      1
    3              0.5   dog        dog      0
    4              0.5   cat          -      0
    5              0.5   dog          -      0
    6              0.5     -        cat      0
    7              0.5     -        dog      0
    >>> table = confusion(dt, ground_truth=gt, score_thresholds=[0.5, 0.7])
    >>> print(table[["label", "score_threshold", "tp", "fp_misclassification", "fn_misclassification",
    ...              "fn_missed"]].to_string())
      label  score_threshold  tp  fp_misclassification  fn_misclassification  fn_missed
    0   cat              0.5   1                     1                     0          0
    1   cat              0.7   1                     0                     0          0
    2   dog              0.5   0                     0                     1          0
    3   dog              0.7   0                     0                     0          1
    """
    check_choice(table, "table", KINDS)
    kind = table
    if score_thresholds is None:
        score_thresholds = VALOR_SCORE_THRESHOLDS if kind == "breakdown" else [0.5]
    scores_at = number_array(score_thresholds, "score_thresholds")
    iou_at = number_array(iou_threshold, "iou_threshold")
    if iou_at.size != 1 or not 0 <= iou_at[0] <= 1:
        raise InvalidInputError(
            f"`iou_threshold=` must be one number in [0, 1]; got {plain(iou_threshold)!r}."
        )
    if max_examples is None:
        max_examples = 1 if kind == "breakdown" else 0
    if (
        isinstance(max_examples, (bool, np.bool_))
        or not isinstance(max_examples, (int, np.integer))
        or max_examples < 0
    ):
        raise InvalidInputError(
            f"`max_examples=` must be a non-negative integer; got {plain(max_examples)!r}."
        )
    spec = ConfusionTable(columns, kind, scores_at, float(iou_at[0]), int(max_examples))
    return box_spec(frame, ground_truth, spec)


@dataclass(frozen=True)
class PairingState:
    """The one-to-one pairing (across labels) of a chunk holding every box of its images.

    Per detection: image and label codes, score, rank in its image, source ``(part, pos)``,
    index label, and its paired ground truth's ``(part, pos)`` (-1: none) and IoU. Per ground
    truth: label code, ``(part, pos)``, index label. ``combine`` concatenates.
    """

    images: np.ndarray
    labels: np.ndarray
    dt_rows: np.ndarray
    gt_rows: np.ndarray
    dt_image: np.ndarray
    dt_label: np.ndarray
    dt_score: np.ndarray
    dt_rank: np.ndarray
    dt_part: np.ndarray
    dt_pos: np.ndarray
    dt_ids: np.ndarray
    dt_gt_part: np.ndarray
    dt_gt_pos: np.ndarray
    dt_iou: np.ndarray
    gt_label: np.ndarray
    gt_part: np.ndarray
    gt_pos: np.ndarray
    gt_ids: np.ndarray

    def combine(self, *others: PairingState) -> PairingState:
        states = (self, *others)
        images, image_codes = aligned_ids([s.images for s in states], "image")
        labels, label_codes = aligned_ids([s.labels for s in states], "label")

        def cat(name):
            return np.concatenate([getattr(s, name) for s in states])

        return PairingState(
            images=images,
            labels=labels,
            dt_rows=added_counts([s.dt_rows for s in states]),
            gt_rows=added_counts([s.gt_rows for s in states]),
            dt_image=np.concatenate([c[s.dt_image] for s, c in zip(states, image_codes)]),
            dt_label=np.concatenate([c[s.dt_label] for s, c in zip(states, label_codes)]),
            gt_label=np.concatenate([c[s.gt_label] for s, c in zip(states, label_codes)]),
            **{
                name: cat(name)
                for name in (
                    "dt_score",
                    "dt_rank",
                    "dt_part",
                    "dt_pos",
                    "dt_ids",
                    "dt_gt_part",
                    "dt_gt_pos",
                    "dt_iou",
                    "gt_part",
                    "gt_pos",
                    "gt_ids",
                )
            },
        )


def pairing_state(
    detections, ground_truth, columns: BoxColumns, *, dt_rows=None, gt_rows=None
) -> PairingState:
    """The chunk step of :func:`confusion`: pair the boxes of each image (see the module docstring)."""
    data = columns.prepare(detections, ground_truth, partition=dt_rows is not None)
    dt_part, dt_pos = row_arrays(dt_rows, data.n_dt)
    gt_part, gt_pos = row_arrays(gt_rows, data.n_gt)
    # one-to-one pairing across labels: every box gets the same label for the matching. On an
    # exact IoU tie valor-lite takes the earlier ground truth, the COCO rule used here the later
    # one: the pairing sees the ground truths in reverse order (``flip`` maps back)
    flip = np.arange(data.n_gt)[::-1]
    agnostic = replace(
        data,
        labels=np.zeros(1, dtype="int64"),
        gt_image=data.gt_image[flip],
        gt_label=np.zeros(data.n_gt, dtype="int64"),
        gt_boxes=data.gt_boxes[flip],
        gt_area=data.gt_area[flip],
        gt_crowd=data.gt_crowd[flip],
        gt_ignore=data.gt_ignore[flip],
        gt_masks=None if data.gt_masks is None else data.gt_masks.take(flip),
        gt_keypoints=None if data.gt_keypoints is None else data.gt_keypoints[flip],
        dt_label=np.zeros(data.n_dt, dtype="int64"),
    )
    gt_of = np.full(data.n_dt, -1, dtype="int64")
    iou_of = np.zeros(data.n_dt)
    rank = np.zeros(data.n_dt, dtype="int64")
    if data.n_gt:
        limit = np.iinfo("int64").max
        paired = match_boxes(agnostic, [VALOR_EPSILON], np.array([[-np.inf, np.inf]]), limit, matching="coco")
        flipped = paired.gt_match[0, 0]
        gt_of[paired.det] = np.where(flipped >= 0, flip[np.maximum(flipped, 0)], -1)
        iou_of[paired.det] = np.nan_to_num(paired.matched_iou(0)[0], nan=0.0)
        rank[paired.det] = paired.rank
    matched = gt_of >= 0
    safe = np.maximum(gt_of, 0)
    return PairingState(
        images=np.asarray(data.images),
        labels=np.asarray(data.labels),
        dt_rows=np.bincount(dt_part, minlength=1),
        gt_rows=np.bincount(gt_part, minlength=1),
        dt_image=data.dt_image,
        dt_label=data.dt_label,
        dt_score=data.dt_score,
        dt_rank=rank,
        dt_part=dt_part,
        dt_pos=dt_pos,
        dt_ids=detections.index.to_numpy(),
        dt_gt_part=np.where(matched, gt_part[safe] if gt_part.size else 0, -1),
        dt_gt_pos=np.where(matched, gt_pos[safe] if gt_pos.size else 0, -1),
        dt_iou=iou_of,
        gt_label=data.gt_label,
        gt_part=gt_part,
        gt_pos=gt_pos,
        gt_ids=ground_truth.index.to_numpy(),
    )


@dataclass(frozen=True)
class ConfusionTable:
    """:func:`confusion` with its options checked: ``chunk`` -> :class:`PairingState` ->
    ``combine`` -> ``finalize``. Called on two pandas frames it is the pandas path."""

    columns: BoxColumns
    kind: str
    scores_at: np.ndarray
    iou_at: float
    max_examples: int

    def chunk(self, detections, ground_truth, dt_rows=None, gt_rows=None) -> PairingState:
        return pairing_state(detections, ground_truth, self.columns, dt_rows=dt_rows, gt_rows=gt_rows)

    def finalize(self, state: PairingState) -> pd.DataFrame:
        check_ground_truth_or_images(state.gt_label.size, self.columns, len(state.images))
        return _confusion_from_state(state, self.kind, self.scores_at, self.iou_at, self.max_examples)

    def __call__(self, detections: pd.DataFrame, ground_truth: pd.DataFrame) -> pd.DataFrame:
        return self.finalize(self.chunk(detections, ground_truth))


def _whole_table_order(rows: np.ndarray, part: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """Positions of the rows in the caller's whole frame."""
    offsets = np.cumsum(rows) - rows
    return offsets[part] + pos if part.size else np.zeros(0, dtype="int64")


def _confusion_from_state(state: PairingState, kind, scores_at, iou_at, max_examples) -> pd.DataFrame:
    """The finalize step: rows in the whole frames' order, then the tables."""
    dt_row = _whole_table_order(state.dt_rows, state.dt_part, state.dt_pos)
    gt_row = _whole_table_order(state.gt_rows, state.gt_part, state.gt_pos)
    dt_sorted = np.argsort(dt_row, kind="stable")  # detections and ground truths in input order
    gt_sorted = np.argsort(gt_row, kind="stable")
    gt_position = np.empty(gt_sorted.size, dtype="int64")
    gt_position[gt_sorted] = np.arange(gt_sorted.size)
    n_gt = int(gt_sorted.size)
    score = state.dt_score[dt_sorted]
    if n_gt:  # the pairing's ranking order: descending score, image, rank in the image
        det = np.lexsort((state.dt_rank[dt_sorted], state.dt_image[dt_sorted], -score))
    else:  # no ground truth: every detection is unmatched
        det = np.argsort(-score, kind="stable")
    paired_part = state.dt_gt_part[dt_sorted][det]
    paired_row = _whole_table_order(
        state.gt_rows, np.maximum(paired_part, 0), state.dt_gt_pos[dt_sorted][det]
    )
    gt_order_of_row = np.full(max(int(gt_row.max(initial=-1)) + 1, 1), -1, dtype="int64")
    gt_order_of_row[gt_row] = gt_position
    gt_of = np.where(paired_part >= 0, gt_order_of_row[np.where(paired_part >= 0, paired_row, 0)], -1)
    iou_of = state.dt_iou[dt_sorted][det]
    data = _Paired(
        labels=state.labels, gt_label=state.gt_label[gt_sorted], dt_label=state.dt_label[dt_sorted]
    )
    box_ids = BoxIds(state.dt_ids[dt_sorted], state.gt_ids[gt_sorted])
    return _confusion_tables(
        data, det, gt_of, iou_of, score[det], kind, scores_at, iou_at, max_examples, box_ids
    )


@dataclass(frozen=True)
class _Paired:
    labels: np.ndarray
    gt_label: np.ndarray
    dt_label: np.ndarray

    @property
    def n_gt(self) -> int:
        return int(self.gt_label.size)


def _confusion_tables(data, det, gt_of, iou_of, score_of, kind, scores_at, iou_at, max_examples, box_ids):
    pd_label = data.dt_label[det]
    gt_label = np.full(gt_of.size, -1, dtype="int64")
    gt_label[gt_of >= 0] = data.gt_label[gt_of[gt_of >= 0]]

    n_lab, n_s = data.labels.size, scores_at.size
    # valor counts no detection scoring 1e-9 or less (as AP, AR and the curves drop them); such a
    # detection still pairs (last, as the lowest score), so its ground truth is missed
    passes = (score_of[None, :] >= scores_at[:, None]) & (score_of > VALOR_EPSILON)[None, :]  # (S, n)
    counted = passes & (gt_of >= 0)[None, :] & (iou_of >= iou_at)[None, :]
    same = (pd_label == gt_label)[None, :]
    gt_counted = np.zeros((n_s, data.n_gt), dtype=bool)
    s_idx, d_idx = np.nonzero(counted)
    gt_counted[s_idx, gt_of[d_idx]] = True

    if kind == "matrix":
        cells = np.zeros((n_s, n_lab, n_lab), dtype="int64")
        np.add.at(cells, (s_idx, gt_label[d_idx], pd_label[d_idx]), 1)
        unmatched_pd = _count(passes & ~counted, pd_label, n_s, n_lab)
        unmatched_gt = _count(~gt_counted, data.gt_label, n_s, n_lab)
        # per threshold: K*K cells, K unmatched ground-truth rows, K unmatched-prediction rows
        labels = np.asarray(data.labels, dtype=object)
        grid = np.arange(n_lab * n_lab)
        none = np.full(n_lab, None, dtype=object)
        truth = np.concatenate([labels[grid // max(n_lab, 1)], labels, none])
        prediction = np.concatenate([labels[grid % max(n_lab, 1)], none, labels])
        count = np.concatenate([cells.reshape(n_s, -1), unmatched_gt, unmatched_pd], axis=1)
        per = truth.size
        columns = {
            "score_threshold": np.repeat(scores_at, per),
            "truth": np.tile(truth, n_s),
            "prediction": np.tile(prediction, n_s),
            "count": count.reshape(-1),
        }
        if max_examples:
            columns["examples"] = _matrix_examples(
                counted,
                passes,
                gt_counted,
                gt_label,
                pd_label,
                gt_of,
                det,
                data.gt_label,
                n_lab,
                max_examples,
                box_ids,
            )
        return result_table(columns, integer_columns=["count"])

    det_ids = box_ids.detection[det]
    gt_ids = box_ids.ground_truth
    groups = {
        "tp": (counted & same, pd_label, det_ids),
        "fp_misclassification": (counted & ~same, pd_label, det_ids),
        "fp_hallucination": (passes & ~counted, pd_label, det_ids),
        "fn_misclassification": (_gt_flags(counted & ~same, gt_of, data.n_gt), data.gt_label, gt_ids),
        "fn_missed": (~gt_counted, data.gt_label, gt_ids),
    }
    counts, examples = {}, {}
    for name, (flags, labels_of, ids) in groups.items():
        counts[name] = _count(flags, labels_of, n_s, n_lab)
        examples[name] = _examples(flags, labels_of, ids, n_s, n_lab, max_examples)
    lab = np.repeat(np.arange(n_lab), n_s)
    s_rows = np.tile(np.arange(n_s), n_lab)
    columns = {
        "label": data.labels[lab],
        "score_threshold": scores_at[s_rows],
        "tp": counts["tp"][s_rows, lab],
        "fp": (counts["fp_misclassification"] + counts["fp_hallucination"])[s_rows, lab],
        "fp_misclassification": counts["fp_misclassification"][s_rows, lab],
        "fp_hallucination": counts["fp_hallucination"][s_rows, lab],
        "fn": (counts["fn_misclassification"] + counts["fn_missed"])[s_rows, lab],
        "fn_misclassification": counts["fn_misclassification"][s_rows, lab],
        "fn_missed": counts["fn_missed"][s_rows, lab],
    }
    for name in groups:
        columns[f"{name}_examples"] = [examples[name].get((s, k), []) for s, k in zip(s_rows, lab)]
    # the same paired examples as (ground-truth id, detection id) tuples
    by_gt = np.argsort(gt_of, kind="stable")  # fn_misclassification: in ground-truth order
    paired = {
        "tp": (counted & same, pd_label, np.arange(det.size)),
        "fp_misclassification": (counted & ~same, pd_label, np.arange(det.size)),
        "fn_misclassification": ((counted & ~same)[:, by_gt], gt_label[by_gt], by_gt),
    }
    for name, (flags, labels_of, position) in paired.items():
        chosen = _examples(flags, labels_of, position, n_s, n_lab, max_examples)
        columns[f"{name}_pairs"] = [
            box_ids.pairs(gt_of[chosen.get((s, k), [])], det[chosen.get((s, k), [])])
            for s, k in zip(s_rows, lab)
        ]
    return result_table(
        columns,
        integer_columns=[
            "tp",
            "fp",
            "fp_misclassification",
            "fp_hallucination",
            "fn",
            "fn_misclassification",
            "fn_missed",
        ],
    )


@dataclass(frozen=True)
class BoxIds:
    """Index labels of the detection and ground-truth rows (by row position)."""

    detection: np.ndarray
    ground_truth: np.ndarray

    def pairs(self, gt_rows, dt_rows) -> list:
        """``(ground-truth id, detection id)`` tuples; row -1 on either side gives ``None``."""
        # a trailing None: row -1 reads it
        gt = np.append(np.asarray(self.ground_truth, dtype=object), None)[np.asarray(gt_rows, dtype="int64")]
        dt = np.append(np.asarray(self.detection, dtype=object), None)[np.asarray(dt_rows, dtype="int64")]
        return list(zip(gt.tolist(), dt.tolist()))


def _matrix_examples(
    counted, passes, gt_counted, gt_label, pd_label, gt_of, det, gt_labels, n_lab, max_examples, ids
):
    """Per matrix row, the first ``max_examples`` (ground-truth id, detection id) tuples.

    Rows are those of the matrix table: per score threshold, the ``K*K`` cells, then one
    row per ground-truth label (unmatched ground truths, in input order), then one row per
    predicted label (unmatched detections, in ranking order).
    """
    n_s, n_cells = counted.shape[0], n_lab * (n_lab + 2)
    keys = [
        (counted, gt_label * n_lab + pd_label, gt_of, det),
        (~gt_counted, n_lab * n_lab + gt_labels, np.arange(gt_labels.size), np.full(gt_labels.size, -1)),
        (passes & ~counted, n_lab * (n_lab + 1) + pd_label, np.full(pd_label.size, -1), det),
    ]
    out = [[] for _ in range(n_s * n_cells)]
    for flags, codes, gt_rows, dt_rows in keys:
        chosen = _examples(flags, codes, np.arange(codes.size), n_s, n_cells, max_examples)
        for (s, cell), positions in chosen.items():
            out[s * n_cells + cell] = ids.pairs(gt_rows[positions], dt_rows[positions])
    return out


def _gt_flags(pair_flags: np.ndarray, gt_of: np.ndarray, n_gt: int) -> np.ndarray:
    """(S, n_gt): ground truths in a flagged pair."""
    flags = np.zeros((pair_flags.shape[0], n_gt), dtype=bool)
    s_idx, d_idx = np.nonzero(pair_flags)
    flags[s_idx, gt_of[d_idx]] = True
    return flags


def _count(flags: np.ndarray, labels_of: np.ndarray, n_s: int, n_lab: int) -> np.ndarray:
    s_idx, i_idx = np.nonzero(flags)
    return np.bincount(s_idx * n_lab + labels_of[i_idx], minlength=n_s * n_lab).reshape(n_s, n_lab)


def _examples(flags, labels_of, ids, n_s, n_lab, max_examples) -> dict:
    """The first ``max_examples`` ids per (score threshold, label), in ranking order."""
    if max_examples == 0:
        return {}
    s_idx, i_idx = np.nonzero(flags)
    if s_idx.size == 0:
        return {}
    frame = pd.DataFrame({"s": s_idx, "k": labels_of[i_idx], "id": ids[i_idx]})
    frame = frame[frame.groupby(["s", "k"], sort=False).cumcount() < max_examples]
    return frame.groupby(["s", "k"], sort=False)["id"].agg(list).to_dict()
