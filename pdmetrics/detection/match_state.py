"""The box tables as chunk -> state -> combine -> finalize (one chunk: the pandas path).

COCO's accumulation ranks every detection of a label by score over all images, so its
state is not a handful of sums: it is the per-detection *match results* of a chunk
(:class:`MatchState`): label, score, image, rank within the image and label, the true
positive and ignored flags per area range and IoU threshold, and the original row of each
detection, plus the number of ground truths per label and area range. The matching itself
only needs the boxes of one image, so a chunk holding every box of its images (a dask
partition after a shuffle on the image, or the whole pandas frame) matches exactly as the
whole table would. Combining concatenates (labels and images aligned on their values);
:func:`run_from_state` sorts the detections in the order of the whole table (label,
descending score, valor's IoU, image, rank: a total order, so the result does not depend
on the chunks) and hands the matches to the accumulation, unchanged.

Rows are identified by ``(part, pos)``: the partition of the caller's frame they come from
and their position in it. A chunk is given its rows in that order (ties by score keep the
input order), and positions in the whole table are ``rows before the partition + pos``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._table_spec import PART, Table, engine_of, source_order
from pdmetrics._validation import require_columns
from pdmetrics.detection.coco import Accumulation, accumulate
from pdmetrics.detection.inputs import (
    BoxColumns,
    BoxData,
    coco_keypoint_roles,
    coco_mask_roles,
    coco_roles,
    default_box_columns,
    row_ids,
    warn_boxes_of_masks,
)
from pdmetrics.detection.matching import MatchResult, match_boxes
from pdmetrics.detection.options import (
    INTERPOLATIONS,
    IOU_TYPES,
    MATCHING_RULES,
    VALOR_EPSILON,
    area_range_table,
    check_choice,
    iou_threshold_array,
    max_dets_list,
    one_area_range,
    one_number,
)
from pdmetrics.errors import InvalidInputError

__all__ = [
    "BoxTable",
    "box_spec",
    "RunOptions",
    "run_options",
    "run_options_of",
    "MatchedData",
    "MatchState",
    "Run",
    "match_state",
    "matched_boxes",
    "run_from_state",
    "keep_detections",
    "check_ground_truth",
    "check_ground_truth_or_images",
    "aligned_ids",
    "added_by_id",
    "added_counts",
    "row_arrays",
    "cat_pairs",
]


@dataclass(frozen=True)
class RunOptions:
    """The checked matching and accumulation options of a box table."""

    iou_thresholds: np.ndarray
    max_dets: list
    area_names: list
    area_bounds: np.ndarray
    matching: str
    interpolation: str
    score_threshold: float | None
    pairs: bool = False  # keep each match's ground truth, IoU and row ids (the match table)


def run_options(
    *,
    iou_thresholds=None,
    max_dets=100,
    area_ranges=None,
    matching="coco",
    interpolation="coco",
    score_threshold=None,
    pairs: bool = False,
) -> RunOptions:
    """Check every option of a box table (before any data is read)."""
    check_choice(matching, "matching", MATCHING_RULES)
    check_choice(interpolation, "interpolation", INTERPOLATIONS)
    thresholds = iou_threshold_array(iou_thresholds)
    limits = max_dets_list(max_dets)
    names, bounds = area_range_table(area_ranges)
    minimum = None if score_threshold is None else one_number(score_threshold, "score_threshold")
    return RunOptions(thresholds, limits, names, bounds, matching, interpolation, minimum, pairs)


#: The arguments of a box method that :func:`run_options_of` reads.
RUN_ARGUMENTS = ("iou_thresholds", "max_dets", "area_ranges", "area_range", "matching", "interpolation")


def run_options_of(arguments: Mapping, **more) -> RunOptions:
    """:func:`run_options` of a box method's arguments (its ``locals()``): those of
    :data:`RUN_ARGUMENTS` it takes (``area_range=(low, high)``, one range, stands for
    ``area_ranges``), and ``more``."""
    options = {name: arguments[name] for name in RUN_ARGUMENTS if name in arguments}
    if "area_range" in options:
        options["area_ranges"] = one_area_range(options.pop("area_range"))
    return run_options(**options, **more)


@dataclass(frozen=True)
class MatchedData:
    """What the tables read of the boxes once matched: ids, every kept-by-score detection's
    image, label and score (codes into ``images`` / ``labels``), and the ground-truth count."""

    images: np.ndarray
    labels: np.ndarray
    dt_image: np.ndarray
    dt_label: np.ndarray
    dt_score: np.ndarray
    n_gt: int

    @property
    def n_dt(self) -> int:
        return int(self.dt_image.size)


@dataclass(frozen=True)
class Run:
    """Everything one evaluation computes (internal)."""

    data: MatchedData
    matches: MatchResult
    accumulation: Accumulation
    area_names: list
    options: RunOptions
    pairs: dict = field(default_factory=dict)


def keep_detections(data: BoxData, keep: np.ndarray) -> BoxData:
    """``data`` with only the detections where ``keep`` is True (every image and label stays)."""
    if keep.all():
        return data
    return replace(
        data,
        dt_image=data.dt_image[keep],
        dt_label=data.dt_label[keep],
        dt_boxes=data.dt_boxes[keep],
        dt_area=data.dt_area[keep],
        dt_score=data.dt_score[keep],
        dt_masks=None if data.dt_masks is None else data.dt_masks.take(np.flatnonzero(keep)),
        dt_keypoints=None if data.dt_keypoints is None else data.dt_keypoints[keep],
    )


def _kind(ids: np.ndarray) -> str | None:
    if ids.size == 0:
        return None
    return "str" if ids.dtype == object else "int"


def aligned_ids(arrays: list, argument: str) -> tuple[np.ndarray, list]:
    """The sorted union of several sorted id arrays and, per array, its codes into the union."""
    kinds = {_kind(a) for a in arrays} - {None}
    if len(kinds) > 1:
        raise InvalidInputError(
            f"`{argument}=` ids have different types in different rows (integers in some, strings in "
            f"others): '2299' and 2299 would never match. Convert the columns to one type first, "
            f"e.g. `.astype(int)`."
        )
    kind = next(iter(kinds), "int")
    arrays = [a.astype(object) if kind == "str" else a.astype("int64") for a in arrays]
    union = np.unique(np.concatenate(arrays)) if arrays else np.zeros(0, dtype="int64")
    return union, [np.searchsorted(union, a).astype("int64") for a in arrays]


def added_by_id(ids: list, counts: list, argument: str) -> tuple[np.ndarray, np.ndarray, list]:
    """The sorted union of several sorted id arrays and each array's codes into it (as
    :func:`aligned_ids`), with their counts (integer arrays whose last axis follows the ids)
    added up on the union."""
    union, codes = aligned_ids(ids, argument)
    total = np.zeros((*counts[0].shape[:-1], union.size), dtype="int64")
    for count, code in zip(counts, codes):
        np.add.at(total, (..., code), count)
    return union, total, codes


def added_counts(counts: list) -> np.ndarray:
    """Row counts per partition (arrays of different lengths), added."""
    out = np.zeros(max((c.size for c in counts), default=0), dtype="int64")
    for c in counts:
        out[: c.size] += c
    return out


@dataclass(frozen=True)
class MatchState:
    """The matches of one chunk of boxes (see the module docstring); ``combine`` concatenates.

    Detection arrays (``dt_*``) hold every detection kept by the score filters; ``det``
    indexes the ones within the per-image limit, whose ``rank``, ``sort_iou`` (valor's
    ranking IoU), ``tp`` and ``ignored`` ``(A, T, n)`` follow. ``dt_part``/``dt_pos`` and
    ``gt_part``/``gt_pos`` locate rows in the caller's frames; ``dt_rows``/``gt_rows`` count
    the rows per partition. ``pairs`` (the match table only): the matched ground truth's
    ``(part, pos)``, IoU, and the index labels of both rows.
    """

    images: np.ndarray
    labels: np.ndarray
    n_gt: int
    n_positive: np.ndarray
    dt_rows: np.ndarray
    gt_rows: np.ndarray
    dt_image: np.ndarray
    dt_label: np.ndarray
    dt_score: np.ndarray
    dt_part: np.ndarray
    dt_pos: np.ndarray
    det: np.ndarray
    rank: np.ndarray
    sort_iou: np.ndarray
    tp: np.ndarray
    ignored: np.ndarray
    pairs: dict

    def combine(self, *others: MatchState) -> MatchState:
        """The state of all the chunks: arrays concatenated, ids aligned on their values."""
        states = (self, *others)
        images, image_codes = aligned_ids([s.images for s in states], "image")
        labels, n_positive, label_codes = added_by_id(
            [s.labels for s in states], [s.n_positive for s in states], "label"
        )
        starts = np.cumsum([0] + [s.dt_score.size for s in states])[:-1]

        def cat(name):
            return np.concatenate([getattr(s, name) for s in states], axis=-1)

        pairs = {}
        if self.pairs:
            pairs = {key: cat_pairs([s.pairs[key] for s in states]) for key in self.pairs}
        return MatchState(
            images=images,
            labels=labels,
            n_gt=sum(s.n_gt for s in states),
            n_positive=n_positive,
            dt_rows=added_counts([s.dt_rows for s in states]),
            gt_rows=added_counts([s.gt_rows for s in states]),
            dt_image=np.concatenate([c[s.dt_image] for s, c in zip(states, image_codes)]),
            dt_label=np.concatenate([c[s.dt_label] for s, c in zip(states, label_codes)]),
            dt_score=cat("dt_score"),
            dt_part=cat("dt_part"),
            dt_pos=cat("dt_pos"),
            det=np.concatenate([s.det + start for s, start in zip(states, starts)]),
            rank=cat("rank"),
            sort_iou=cat("sort_iou"),
            tp=cat("tp"),
            ignored=cat("ignored"),
            pairs=pairs,
        )


def cat_pairs(values: list):
    """Concatenate per-chunk pair columns: arrays on their last axis, pandas objects by rows."""
    if isinstance(values[0], (pd.Series, pd.DataFrame)):
        return pd.concat(values, ignore_index=True)
    return np.concatenate(values, axis=-1)


def row_arrays(rows, n: int) -> tuple[np.ndarray, np.ndarray]:
    if rows is None:
        return np.zeros(n, dtype="int64"), np.arange(n, dtype="int64")
    part, pos = rows
    return np.asarray(part, dtype="int64"), np.asarray(pos, dtype="int64")


def matched_boxes(data: BoxData, options: RunOptions) -> tuple[BoxData, np.ndarray, MatchResult]:
    """Keep the detections the options count (``score_threshold``; valor: above its
    ``EPSILON``) and match them: the kept data, the mask of kept detections and the matches."""
    keep = np.ones(data.n_dt, dtype=bool)
    if options.score_threshold is not None:
        keep &= data.dt_score >= options.score_threshold
    if options.matching == "valor":
        keep &= data.dt_score > VALOR_EPSILON
    data = keep_detections(data, keep)
    m = match_boxes(
        data, options.iou_thresholds, options.area_bounds, max(options.max_dets), matching=options.matching
    )
    return data, keep, m


def match_state(
    detections: pd.DataFrame,
    ground_truth: pd.DataFrame,
    columns: BoxColumns,
    options: RunOptions,
    *,
    dt_rows=None,
    gt_rows=None,
) -> MatchState:
    """The chunk step: check and match the boxes of a chunk holding every box of its images.

    ``dt_rows`` / ``gt_rows`` are ``(part, pos)`` arrays locating each row in the caller's
    frame (default: one frame, positions ``0, 1, ...``); the rows must come in that order.
    A chunk of a larger table may have no ground truth (checked on the whole table by
    :func:`run_from_state`).
    """
    data = columns.prepare(detections, ground_truth, partition=dt_rows is not None)
    dt_part, dt_pos = row_arrays(dt_rows, data.n_dt)
    gt_part, gt_pos = row_arrays(gt_rows, data.n_gt)
    local = np.arange(data.n_dt)
    data, keep, m = matched_boxes(data, options)
    pairs = {}
    if options.pairs:
        matched = m.gt_match[0]  # (T, n) local ground-truth rows, -1 when unmatched
        safe = np.maximum(matched, 0)
        rows = local[keep][m.det]
        pairs = {
            "gt_part": np.where(matched >= 0, gt_part[safe] if gt_part.size else 0, -1),
            "gt_pos": np.where(matched >= 0, gt_pos[safe] if gt_pos.size else 0, -1),
            "iou": m.matched_iou(0),
            "detection_id": row_ids(detections.index, rows),
            "ground_truth_id": pd.DataFrame(
                {t: row_ids(ground_truth.index, matched[t]) for t in range(matched.shape[0])}
            ),
        }
    return MatchState(
        images=np.asarray(data.images),
        labels=np.asarray(data.labels),
        n_gt=data.n_gt,
        n_positive=m.n_positive.astype("int64"),
        dt_rows=np.bincount(dt_part, minlength=1),
        gt_rows=np.bincount(gt_part, minlength=1),
        dt_image=data.dt_image,
        dt_label=data.dt_label,
        dt_score=data.dt_score,
        dt_part=dt_part[keep],
        dt_pos=dt_pos[keep],
        det=m.det,
        rank=m.rank,
        sort_iou=m.sort_iou,
        tp=m.tp,
        ignored=m.ignored,
        pairs=pairs,
    )


def check_ground_truth(state: MatchState, columns: BoxColumns) -> None:
    """The whole table's check that a chunk cannot make: some ground truth (or listed images)."""
    check_ground_truth_or_images(state.n_gt, columns, len(state.images))


def check_ground_truth_or_images(n_gt: int, columns: BoxColumns, n_images: int = 0) -> None:
    """Raise when there is no ground truth and no image list (nothing to evaluate against).

    ``n_images`` counts the images the chunks saw: with no ground truth, those are the ones
    listed by ``images=`` or by a :func:`~pdmetrics.io.read_coco` table (a file listing images
    without annotations gives pycocotools' undefined results, not an error).
    """
    if n_gt == 0 and columns.images is None and n_images == 0:
        raise InvalidInputError(
            "The ground-truth table is empty: there is nothing to evaluate against. Pass the "
            "ground-truth boxes (or `images=` to evaluate detections on images without objects)."
        )


def _in_lexsort_order(keys: tuple) -> bool:
    """Whether ``np.lexsort(keys)`` is the identity (the last key is the primary one)."""
    tie = None
    for key in reversed(keys):
        before, after = key[:-1], key[1:]
        down = after < before
        if (down if tie is None else down & tie).any():
            return False
        tie = (after == before) if tie is None else tie & (after == before)
    return True


def run_from_state(state: MatchState, options: RunOptions, columns: BoxColumns) -> Run:
    """The finalize step: the combined matches in the whole table's ranking order, accumulated."""
    check_ground_truth(state, columns)
    det = state.det
    keys = [state.rank, state.dt_image[det]]
    if options.matching == "valor":
        keys.append(-state.sort_iou)
    keys = (*keys, -state.dt_score[det], state.dt_label[det])
    # one chunk (the pandas path) is in the ranking order already: no reordering
    order = slice(None) if _in_lexsort_order(keys) else np.lexsort(keys)
    offsets = np.cumsum(state.dt_rows) - state.dt_rows
    gt_offsets = np.cumsum(state.gt_rows) - state.gt_rows
    data = MatchedData(
        images=state.images,
        labels=state.labels,
        dt_image=state.dt_image,
        dt_label=state.dt_label,
        dt_score=state.dt_score,
        n_gt=state.n_gt,
    )
    kept = det[order]
    matches = MatchResult(
        data=data,
        iou_thresholds=options.iou_thresholds,
        area_ranges=options.area_bounds,
        max_det=int(max(options.max_dets)),
        det=kept,
        rank=state.rank[order],
        gt_match=np.zeros((0, 0, 0), dtype="int32"),
        ignored=state.ignored[:, :, order],
        tp=state.tp[:, :, order],
        gt_ignored=np.zeros((0, 0), dtype=bool),
        n_positive=state.n_positive,
        sort_iou=state.sort_iou[order],
    )
    pairs = {}
    if options.pairs:
        p = state.pairs
        gt_part = p["gt_part"][:, order]
        gt_row = np.where(gt_part >= 0, gt_offsets[np.maximum(gt_part, 0)] + p["gt_pos"][:, order], -1)
        ids = p["ground_truth_id"].iloc[order]
        pairs = {
            "detection": offsets[state.dt_part[kept]] + state.dt_pos[kept],
            "ground_truth": gt_row,
            "iou": p["iou"][:, order],
            "detection_id": p["detection_id"].iloc[order].reset_index(drop=True),
            "ground_truth_id": pd.concat([ids[c] for c in ids.columns], ignore_index=True)
            if ids.shape[1]
            else pd.Series([], dtype="Int64"),
        }
    acc = accumulate(
        matches, options.max_dets, interpolation=options.interpolation, area_names=options.area_names
    )
    return Run(data, matches, acc, options.area_names, options, pairs)


@dataclass(frozen=True)
class BoxTable:
    """A box table with its options checked: ``chunk`` -> :class:`MatchState` -> ``combine`` ->
    ``finalize``. Called on two pandas frames it is the pandas path (one chunk)."""

    columns: BoxColumns
    options: RunOptions
    finish: Callable[[Run], pd.DataFrame]

    def chunk(self, detections, ground_truth, dt_rows=None, gt_rows=None) -> MatchState:
        """The matches of a chunk holding every box of its images (see :func:`match_state`)."""
        return match_state(
            detections, ground_truth, self.columns, self.options, dt_rows=dt_rows, gt_rows=gt_rows
        )

    def finalize(self, state: MatchState) -> pd.DataFrame:
        """The table from the combined state of every chunk."""
        return self.finish(run_from_state(state, self.options, self.columns))

    def __call__(self, detections: pd.DataFrame, ground_truth: pd.DataFrame) -> pd.DataFrame:
        return self.finalize(self.chunk(detections, ground_truth))


def box_spec(detections: pd.DataFrame, ground_truth, table) -> Table:
    """The :class:`~pdmetrics._table_spec.Table` of a box ``table`` (a :class:`BoxTable` or a
    :class:`~pdmetrics.detection.box_confusion.ConfusionTable`) of ``detections``, keyed on the
    image, with ``ground_truth`` as a second frame.

    ``detections`` is the detections' schema (the frame itself on pandas); the ground truth's
    is read through its engine. The column names are checked here, and what a
    :func:`~pdmetrics.io.read_coco` table carries in its ``attrs`` (crowd and area columns,
    the image list and sizes, the results' area) is resolved here, once: the parts an engine
    hands to the chunks do not carry it. The default ``iou_type``'s warning is given here too.
    """
    try:
        gt_schema = engine_of(ground_truth).schema(ground_truth)
    except InvalidInputError:
        raise InvalidInputError(
            f"`ground_truth=` must be a DataFrame with one row per ground-truth box; got "
            f"{type(ground_truth).__name__}."
        ) from None
    columns = table.columns
    if columns.iou_type is None:
        warn_boxes_of_masks(detections)
        columns = replace(columns, iou_type="bbox")
    check_choice(columns.iou_type, "iou_type", IOU_TYPES)
    boxes = default_box_columns(columns.box, columns.box_format)
    masks = columns.iou_type == "segm"
    poses = columns.iou_type == "keypoints"
    for argument in ("keypoints", "sigmas"):
        if not poses and getattr(columns, argument) is not None:
            raise InvalidInputError(
                f"`{argument}=` is read only with iou_type='keypoints' (got iou_type="
                f"{columns.iou_type!r}): pass iou_type='keypoints' to compare the poses by OKS."
            )
    segmentation = (columns.segmentation or "segmentation") if masks else None
    keypoints = (columns.keypoints or "keypoints") if poses else None
    # with masks the boxes are optional (all four columns, or none: the masks' boxes), and an
    # empty table may have no masks (a COCO file listing images without annotations); with
    # keypoints the detections' boxes are optional (none: the keypoints' extent)
    names = {}
    for frame, which in ((gt_schema, "gt"), (detections, "dt")):
        shape = segmentation if masks else keypoints
        if shape is not None and len(frame) and shape not in frame.columns:
            require_columns(frame, "segmentation" if masks else "keypoints", shape)
        names[which] = [shape] if shape is not None and shape in frame.columns else []
    for frame in (gt_schema, detections):
        require_columns(frame, "image", columns.image)
        require_columns(frame, "label", columns.label)
    for frame, which in ((gt_schema, "gt"), (detections, "dt")):
        if not (masks or (poses and which == "dt")) or any(c in frame.columns for c in boxes):
            names[which] += require_columns(frame, "box", boxes)
    names["dt"] += require_columns(detections, "score", columns.score)
    iscrowd, area, images = coco_roles(
        gt_schema, columns.image, columns.iscrowd, columns.area, columns.images
    )
    image_sizes, dt_area = coco_mask_roles(gt_schema, detections, columns.image_sizes)
    num_keypoints = coco_keypoint_roles(gt_schema, columns.num_keypoints) if poses else None
    for argument, name in (
        ("iscrowd", iscrowd),
        ("area", area),
        ("ignore", columns.ignore),
        ("num_keypoints", num_keypoints),
    ):
        if name is not None:
            names["gt"] += require_columns(gt_schema, argument, name)
    columns = replace(
        columns,
        iscrowd=iscrowd,
        area=area,
        images=None if images is None else list(images),
        image_sizes=image_sizes,
        dt_area=dt_area,
        num_keypoints=num_keypoints,
    )
    table = replace(table, columns=columns)
    dt_names = [columns.image, columns.label, *names["dt"], *([dt_area] if dt_area else [])]
    gt_names = [columns.image, columns.label, *names["gt"]]
    return Table(
        dt_names,
        partial(_box_chunk, table, segmentation or keypoints),
        table.finalize,
        key=columns.image,
        frames={"ground_truth": (ground_truth, gt_names)},
    )


def _box_chunk(table, shapes, detections: pd.DataFrame, ground_truth: pd.DataFrame):
    """The state of a part holding every box of its images: the whole frames (one chunk), or
    parts an engine shuffled on the image (each row located in the caller's frame).
    ``shapes``: the column of the masks (``iou_type="segm"``) or of the poses (``"keypoints"``)."""
    if PART not in detections.columns:
        return table.chunk(detections, ground_truth)
    if shapes is not None:
        argument, what, kept = (
            ("keypoints", "poses", "lists")
            if table.columns.iou_type == "keypoints"
            else ("segmentation", "masks", "lists and structs")
        )
        for frame, which in ((detections, "detections"), (ground_truth, "ground-truth")):
            dtype = frame[shapes].dtype if shapes in frame.columns else None
            if isinstance(dtype, pd.StringDtype) or str(dtype) in (
                "string[pyarrow]",
                "large_string[pyarrow]",
            ):
                raise InvalidInputError(
                    f"`{argument}={shapes!r}` of the {which} frame has dtype {dtype}: dask "
                    f"turned the {what} into text (its 'dataframe.convert-string' option converts object "
                    f"columns). Build the frame inside `dask.config.set({{'dataframe.convert-string': "
                    f"False}})`, or read it from parquet, where they stay {kept}."
                )
    detections, dt_rows = source_order(detections)
    ground_truth, gt_rows = source_order(ground_truth)
    return table.chunk(detections, ground_truth, dt_rows=dt_rows, gt_rows=gt_rows)
