"""``ddf.detection``: the detection tables on dask DataFrames, partition by partition.

COCO's matching needs every box of an image together, so both tables are first shuffled on
the image (the same number of partitions and the same hash of the image id: one image's
boxes, detected and true, meet in one partition), each row carrying where it came from
(its partition and position, for the input order of score ties and the row positions of
``match``). Each pair of partitions then gives the matches of its images
(:class:`pdmetrics.detection.match_state.MatchState`), the states are concatenated in a
tree, and the core's own finalize ranks and accumulates them: the pandas path with more
than one chunk. The ground truth may be a pandas DataFrame (it is split the same way).
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

from pdmetrics._dask.base import DaskAccessor
from pdmetrics._renamed import renamed
from pdmetrics._validation import require_columns
from pdmetrics.accessors.detection import DetectionAccessor
from pdmetrics.detection.box_confusion import ConfusionTable, confusion_table
from pdmetrics.detection.curves import pr_curve_table
from pdmetrics.detection.evaluation import (
    average_precision_table,
    average_recall_table,
    evaluation_table,
    match_table,
)
from pdmetrics.detection.inputs import BoxColumns, coco_mask_roles, coco_roles, default_box_columns
from pdmetrics.detection.label_tables import ClassificationTable, classification_table
from pdmetrics.detection.match_state import BoxTable
from pdmetrics.detection.options import COCO_ATTRS
from pdmetrics.detection.semantic import check_segmentation_options, pixel_state, segmentation_from_state
from pdmetrics.engines.dask import SPLIT_EVERY, combined_state, partition_table
from pdmetrics.errors import InvalidInputError

__all__ = ["DaskDetectionAccessor", "box_table", "label_table", "shuffled_on", "source_order"]

#: Columns added to both tables: the source partition and position of each row, and the
#: hash of its image id (the shuffle key).
PART, POS, SHARD = "__pdmetrics_part__", "__pdmetrics_pos__", "__pdmetrics_shard__"


class DaskDetectionAccessor(DaskAccessor):
    """``ddf.detection``: the box tables of :class:`pdmetrics.accessors.detection.DetectionAccessor`,
    computed partition by partition (same arguments, same numbers, plus ``compute=``).

    ``ground_truth=`` may be a dask or a pandas DataFrame. ``compute=False`` returns a
    :class:`dask.delayed.Delayed` of the table.
    """

    _name = "detection"
    _pandas_accessor = DetectionAccessor

    def evaluate(
        self,
        *,
        ground_truth,
        image="image",
        label="label",
        box=None,
        score="score",
        box_format: str = "xywh",
        iscrowd=None,
        area=None,
        ignore=None,
        images=None,
        iou_type: str | None = None,
        segmentation=None,
        image_sizes=None,
        iou_thresholds=None,
        max_dets=(1, 10, 100),
        area_ranges=None,
        matching: str = "coco",
        interpolation: str = "coco",
        labels_without_ground_truth: str = "exclude",
        compute: bool = True,
    ):
        """The 12 COCO summary numbers of a dask DataFrame of detections; see
        :meth:`pdmetrics.accessors.detection.DetectionAccessor.evaluate`."""
        table = evaluation_table(
            BoxColumns.pick(locals()),
            iou_thresholds=iou_thresholds,
            max_dets=max_dets,
            area_ranges=area_ranges,
            matching=matching,
            interpolation=interpolation,
            labels_without_ground_truth=labels_without_ground_truth,
        )
        return box_table(self._frame, ground_truth, table, compute)

    def average_precision(
        self,
        *,
        ground_truth,
        image="image",
        label="label",
        box=None,
        score="score",
        box_format: str = "xywh",
        iscrowd=None,
        area=None,
        ignore=None,
        images=None,
        iou_type: str | None = None,
        segmentation=None,
        image_sizes=None,
        iou_thresholds=None,
        max_dets=100,
        area_ranges=None,
        matching: str = "coco",
        interpolation: str = "coco",
        labels_without_ground_truth: str = "exclude",
        by="label",
        compute: bool = True,
    ):
        """AP per label and the mean over labels, of a dask DataFrame of detections; see
        :meth:`pdmetrics.accessors.detection.DetectionAccessor.average_precision`."""
        table = average_precision_table(
            BoxColumns.pick(locals()),
            iou_thresholds=iou_thresholds,
            max_dets=max_dets,
            area_ranges=area_ranges,
            matching=matching,
            interpolation=interpolation,
            labels_without_ground_truth=labels_without_ground_truth,
            by=by,
        )
        return box_table(self._frame, ground_truth, table, compute)

    def average_recall(
        self,
        *,
        ground_truth,
        image="image",
        label="label",
        box=None,
        score="score",
        box_format: str = "xywh",
        iscrowd=None,
        area=None,
        ignore=None,
        images=None,
        iou_type: str | None = None,
        segmentation=None,
        image_sizes=None,
        iou_thresholds=None,
        max_dets=100,
        area_ranges=None,
        matching: str = "coco",
        score_threshold=None,
        labels_without_ground_truth: str = "exclude",
        by="label",
        compute: bool = True,
    ):
        """Recall per label and the mean over labels, of a dask DataFrame of detections; see
        :meth:`pdmetrics.accessors.detection.DetectionAccessor.average_recall`."""
        table = average_recall_table(
            BoxColumns.pick(locals()),
            iou_thresholds=iou_thresholds,
            max_dets=max_dets,
            area_ranges=area_ranges,
            matching=matching,
            score_threshold=score_threshold,
            labels_without_ground_truth=labels_without_ground_truth,
            by=by,
        )
        return box_table(self._frame, ground_truth, table, compute)

    def match(
        self,
        *,
        ground_truth,
        image="image",
        label="label",
        box=None,
        score="score",
        box_format: str = "xywh",
        iscrowd=None,
        area=None,
        ignore=None,
        images=None,
        iou_type: str | None = None,
        segmentation=None,
        image_sizes=None,
        iou_thresholds=None,
        max_dets=100,
        area_range=(0.0, 1e10),
        matching: str = "coco",
        compute: bool = True,
    ):
        """One row per detection and IoU threshold with its match (a pandas DataFrame, rows in
        the pandas path's order, row positions in the whole frames); see
        :meth:`pdmetrics.accessors.detection.DetectionAccessor.match`."""
        table = match_table(
            BoxColumns.pick(locals()),
            iou_thresholds=iou_thresholds,
            max_dets=max_dets,
            area_range=area_range,
            matching=matching,
        )
        return box_table(self._frame, ground_truth, table, compute)

    def pr_curve(
        self,
        *,
        ground_truth,
        image="image",
        label="label",
        box=None,
        score="score",
        box_format: str = "xywh",
        iscrowd=None,
        area=None,
        ignore=None,
        images=None,
        iou_type: str | None = None,
        segmentation=None,
        image_sizes=None,
        style: str = "coco",
        iou_thresholds=None,
        max_dets=100,
        area_range=(0.0, 1e10),
        matching: str = "coco",
        interpolation: str = "coco",
        score_thresholds=None,
        labels_without_ground_truth: str = "exclude",
        zero_division="warn",
        compute: bool = True,
    ):
        """Precision-recall curves of a dask DataFrame of detections; see
        :meth:`pdmetrics.accessors.detection.DetectionAccessor.pr_curve`."""
        table = pr_curve_table(
            BoxColumns.pick(locals()),
            style=style,
            iou_thresholds=iou_thresholds,
            max_dets=max_dets,
            area_range=area_range,
            matching=matching,
            interpolation=interpolation,
            score_thresholds=score_thresholds,
            labels_without_ground_truth=labels_without_ground_truth,
            zero_division=zero_division,
        )
        return box_table(self._frame, ground_truth, table, compute)

    @renamed("kind")
    def confusion(
        self,
        *,
        ground_truth,
        image="image",
        label="label",
        box=None,
        score="score",
        box_format: str = "xywh",
        images=None,
        iou_type: str | None = None,
        segmentation=None,
        image_sizes=None,
        table: str = "breakdown",
        iou_threshold: float = 0.5,
        score_thresholds=None,
        max_examples: int | None = None,
        compute: bool = True,
    ):
        """valor's error breakdown or the label x label matrix of a dask DataFrame of detections
        (examples: the first ones in the pandas path's order); see
        :meth:`pdmetrics.accessors.detection.DetectionAccessor.confusion`."""
        spec = confusion_table(
            BoxColumns.pick(locals()),
            table=table,
            iou_threshold=iou_threshold,
            score_thresholds=score_thresholds,
            max_examples=max_examples,
        )
        return box_table(self._frame, ground_truth, spec, compute)

    def classification(
        self,
        *,
        y_true,
        score,
        label=None,
        datum=None,
        table: str = "labels",
        score_thresholds=None,
        hardmax: bool | None = None,
        zero_division="warn",
        max_examples: int = 1,
        labels=None,
        top_prediction: str = "filtered",
        compute: bool = True,
    ):
        """valor's classification tables of a dask DataFrame (long or wide layout; a datum's
        rows may sit in any partitions); see
        :meth:`pdmetrics.accessors.detection.DetectionAccessor.classification`."""
        spec = classification_table(
            y_true=y_true,
            score=score,
            label=label,
            datum=datum,
            table=table,
            score_thresholds=score_thresholds,
            hardmax=hardmax,
            zero_division=zero_division,
            max_examples=max_examples,
            labels=labels,
            top_prediction=top_prediction,
        )
        return label_table(self._frame, spec, compute)

    def segmentation(
        self,
        *,
        y_true,
        y_pred,
        background: int | None = None,
        ignore_index: int | None = None,
        labels=None,
        table: str = "labels",
        zero_division="warn",
        compute: bool = True,
    ):
        """Semantic segmentation IoU of a dask DataFrame of masks (one pixel confusion matrix:
        counts added over the partitions); see
        :meth:`pdmetrics.accessors.detection.DetectionAccessor.segmentation`."""
        truth = self._one_name("y_true", y_true)
        prediction = self._one_name("y_pred", y_pred)
        check_segmentation_options(background, ignore_index, labels, table, zero_division)
        for argument, name in (("y_true", truth), ("y_pred", prediction)):
            if pd.api.types.is_string_dtype(
                self._frame._meta[name].dtype
            ) and not pd.api.types.is_object_dtype(self._frame._meta[name].dtype):
                raise InvalidInputError(
                    f"`{argument}={name!r}` holds text on this dask frame, not mask arrays: dask turned the "
                    f"column of arrays into strings. Make the frame with "
                    f"`dask.config.set({{'dataframe.convert-string': False}})` in effect."
                )
        chunk = partial(_pixel_chunk, truth, prediction, ignore_index)
        finalize = partial(
            segmentation_from_state,
            background=background,
            labels=labels,
            table=table,
            zero_division=zero_division,
        )
        return partition_table(self._frame, [truth, prediction], chunk, finalize, compute)


def label_table(frame, spec: ClassificationTable, compute: bool = True):
    """The classification table ``spec`` of a dask DataFrame.

    Columns and dtypes are checked on the frame's metadata first. The rows are shuffled on
    the datum (one datum's rows meet in one partition; in the wide layout without ``datum=``
    every row is its own datum and nothing moves), each partition gives the table's
    :class:`~pdmetrics.detection.label_state.LabelState` with its rows in their source
    order (each datum's first row keyed by its partition and position, for the order of the
    examples), the states are combined in a tree and the table is finalized here.
    """
    spec.chunk(frame._meta, strict=False)  # columns, dtypes and options checked on no rows
    scores = [spec.score] if isinstance(spec.score, (str, int)) else list(spec.score)
    names = [spec.y_true, *([] if spec.label is None else [spec.label]), *scores]
    names = list(dict.fromkeys([*names, *([] if spec.datum is None else [spec.datum])]))
    if spec.datum is None and spec.label is None:  # wide, one datum per row: no shuffle
        parts = frame[names].to_delayed()
        states = [dask.delayed(_row_label_chunk, pure=True)(spec, i, p) for i, p in enumerate(parts)]
        lengths = [dask.delayed(len, pure=True)(p) for p in parts]
        finalize = partial(_finalize_rows, spec)
    else:
        # p2p (arrow) cannot carry an object column mixing types, which the chunks refuse by name
        objects = any(frame._meta[name].dtype == object for name in names)
        method = "tasks" if objects else None
        located = shuffled_on(frame[names], spec.datum, frame.npartitions, method).to_delayed()
        states = [dask.delayed(_label_chunk, pure=True)(spec, p) for p in located]
        lengths, finalize = None, spec.finalize
    state = combined_state(states)
    if not compute:
        return dask.delayed(finalize, pure=True)(state, *([lengths] if lengths is not None else []))
    if lengths is None:
        return finalize(state.compute())
    return finalize(*dask.compute(state, lengths))


#: A row's key in the whole frame: its partition number times this, plus its position.
ROW_KEY = 1 << 40
#: The row-key column of the wide layout without ``datum=`` (each row its own datum).
ROW = "__pdmetrics_row__"


def _label_chunk(spec: ClassificationTable, part: pd.DataFrame):
    part, (number, position) = source_order(part)
    return spec.chunk(part, order=number * ROW_KEY + position, strict=False)


def _row_label_chunk(spec: ClassificationTable, number: int, part: pd.DataFrame):
    keys = number * ROW_KEY + np.arange(len(part), dtype="int64")
    return replace(spec, datum=ROW).chunk(part.assign(**{ROW: keys}), order=keys, strict=False)


def _finalize_rows(spec: ClassificationTable, state, lengths: list) -> pd.DataFrame:
    """The table, the examples' row keys turned into row positions in the whole frame."""
    if state.examples:
        offsets = np.r_[0, np.cumsum(lengths)]
        examples = {
            cell: [(key, int(offsets[key // ROW_KEY] + key % ROW_KEY)) for key, _ in found]
            for cell, found in state.examples.items()
        }
        state = replace(state, examples=examples)
    return spec.finalize(state)


def _pixel_chunk(truth, prediction, ignore_index, part: pd.DataFrame):
    return pixel_state(part[truth], part[prediction], ignore_index)


def box_table(detections, ground_truth, table: BoxTable | ConfusionTable, compute: bool = True):
    """``table`` of a dask frame of detections and a (dask or pandas) ground-truth frame.

    Columns and options are checked on the frames' metadata before any data is read; the
    two frames are shuffled on the image into the same partitions, each pair of partitions
    gives the table's state (:class:`~pdmetrics.detection.match_state.MatchState`; for
    ``confusion`` a :class:`~pdmetrics.detection.box_confusion.PairingState`), the states are
    concatenated in a tree of :data:`~pdmetrics.engines.dask.SPLIT_EVERY`-way tasks (one
    concatenation per task, not one per pair) and the table is finalized here
    (``compute=False``: a Delayed of it).
    """
    if not isinstance(ground_truth, (pd.DataFrame, dd.DataFrame)):
        raise InvalidInputError(
            f"`ground_truth=` must be a DataFrame (pandas or dask) with one row per ground-truth box; "
            f"got {type(ground_truth).__name__}."
        )
    columns = table.columns
    gt_local = ground_truth if isinstance(ground_truth, pd.DataFrame) else ground_truth._meta
    iscrowd, area, images = coco_roles(gt_local, columns.image, columns.iscrowd, columns.area, columns.images)
    if images is not None:
        images = list(images)
    dt_meta, gt_meta = detections._meta, gt_local.iloc[:0]
    masks = columns.iou_type == "segm"
    # the sizes and the detections' area a read_coco table carries: its partitions lose them
    image_sizes, dt_area = coco_mask_roles(gt_local, dt_meta, columns.image_sizes)
    columns = replace(columns, iscrowd=iscrowd, area=area, images=images, image_sizes=image_sizes)
    table = replace(table, columns=columns)
    boxes = default_box_columns(columns.box, columns.box_format)
    extra = [columns.segmentation or "segmentation"] if masks else []
    dt_boxes = boxes if not masks or any(c in dt_meta.columns for c in boxes) else []
    gt_boxes = boxes if not masks or any(c in gt_meta.columns for c in boxes) else []
    dt_names = [
        columns.image,
        columns.label,
        *dt_boxes,
        columns.score,
        *extra,
        *([dt_area] if dt_area else []),
    ]
    gt_names = [
        columns.image,
        columns.label,
        *gt_boxes,
        *[c for c in (iscrowd, area, columns.ignore) if c is not None],
        *extra,
    ]
    for frame, which in ((dt_meta, "detections"), (gt_meta, "ground-truth")):
        dtype = frame[extra[0]].dtype if masks and extra[0] in frame.columns else None
        if isinstance(dtype, pd.StringDtype) or str(dtype) in ("string[pyarrow]", "large_string[pyarrow]"):
            raise InvalidInputError(
                f"`segmentation={extra[0]!r}` of the {which} frame has dtype {dtype}: dask "
                f"turned the masks into text (its 'dataframe.convert-string' option converts object "
                f"columns). Build the frame inside `dask.config.set({{'dataframe.convert-string': False}})`, "
                f"or read it from parquet, where polygons and RLEs stay lists and structs."
            )
    for argument, name in [("image", columns.image), ("label", columns.label), ("box", boxes)]:
        if argument != "box" or not masks:
            require_columns(gt_meta, argument, name)
            require_columns(dt_meta, argument, name)
    require_columns(dt_meta, "score", columns.score)
    for argument, name in [("iscrowd", iscrowd), ("area", area), ("ignore", columns.ignore)]:
        if name is not None:
            require_columns(gt_meta, argument, name)
    dt_names, gt_names = list(dict.fromkeys(dt_names)), list(dict.fromkeys(gt_names))
    # dtypes and options checked on no rows, before any work
    no_rows = (np.zeros(0, "int64"), np.zeros(0, "int64"))
    table.chunk(_with_area(dt_meta[dt_names], dt_area), gt_meta[gt_names], dt_rows=no_rows, gt_rows=no_rows)
    # the default's warning (boxes of a masks-only result file) is given once, above
    table = replace(table, columns=replace(columns, iou_type=columns.iou_type or "bbox"))
    if isinstance(ground_truth, pd.DataFrame):
        ground_truth = dd.from_pandas(ground_truth[gt_names], npartitions=1, sort=False)
    n_parts = max(detections.npartitions, ground_truth.npartitions)
    # masks are Python objects (polygon lists, RLE dicts, arrays, mixed in one column), which
    # the arrow-based p2p shuffle of a distributed cluster cannot carry: shuffle them as tasks
    method = "tasks" if masks else None
    dt_parts = shuffled_on(detections[dt_names], columns.image, n_parts, method).to_delayed()
    gt_parts = shuffled_on(ground_truth[gt_names], columns.image, n_parts, method).to_delayed()
    states = [dask.delayed(_chunk, pure=True)(table, d, g, dt_area) for d, g in zip(dt_parts, gt_parts)]
    while len(states) > 1:
        states = [
            dask.delayed(_combine, pure=True)(*states[i : i + SPLIT_EVERY])
            for i in range(0, len(states), SPLIT_EVERY)
        ]
    if not compute:
        return dask.delayed(table.finalize, pure=True)(states[0])
    return table.finalize(states[0].compute())


def shuffled_on(frame, image, n_parts: int, method=None):
    """``frame`` with each row's partition and position, shuffled on the hash of its image id
    (or of any id column: the datum of the classification and text tables). ``method``:
    dask's shuffle method (None: dask's choice)."""
    meta = frame._meta.assign(**{PART: np.int64(0), POS: np.int64(0), SHARD: np.int64(0)})
    located = frame.map_partitions(_located, image, n_parts, meta=meta)
    return located.shuffle(on=SHARD, npartitions=n_parts, shuffle_method=method)


def _located(part: pd.DataFrame, image, n_parts: int, partition_info=None) -> pd.DataFrame:
    number = partition_info["number"] if partition_info else 0
    shard = (_id_hash(part[image]) % np.uint64(n_parts)).astype("int64")
    return part.assign(**{PART: np.int64(number), POS: np.arange(len(part), dtype="int64"), SHARD: shard})


def _id_hash(ids: pd.Series) -> np.ndarray:
    """A hash of each image id that is the same for 7, 7.0 and an object 7 (the ids the
    pandas path treats as one image); other ids hash their string form."""
    if isinstance(ids.dtype, pd.CategoricalDtype):
        ids = pd.Series(np.asarray(ids), index=ids.index)
    if pd.api.types.is_numeric_dtype(ids.dtype) and not pd.api.types.is_bool_dtype(ids.dtype):
        values = ids.to_numpy(dtype="float64", na_value=np.nan)
        whole = np.isfinite(values) & (values == np.round(values))
        return pd.util.hash_array(np.where(whole, values, 0).astype("int64"))
    if ids.size and pd.api.types.infer_dtype(ids, skipna=False) == "integer":
        return pd.util.hash_array(ids.to_numpy(dtype="int64"))
    return pd.util.hash_array(ids.astype(str).to_numpy(dtype=object))


def source_order(part: pd.DataFrame):
    """The partition in its source order, and the ``(part, pos)`` of each row."""
    order = np.lexsort((part[POS].to_numpy(), part[PART].to_numpy()))
    part = part.iloc[order]
    return part, (part[PART].to_numpy(dtype="int64"), part[POS].to_numpy(dtype="int64"))


def _with_area(detections: pd.DataFrame, dt_area) -> pd.DataFrame:
    """A partition of detections (our own copy) marked with read_coco's area column, if any."""
    if dt_area is not None:
        detections.attrs[COCO_ATTRS] = {**detections.attrs.get(COCO_ATTRS, {}), "area": dt_area}
    return detections


def _chunk(table: BoxTable, detections: pd.DataFrame, ground_truth: pd.DataFrame, dt_area=None):
    detections, dt_rows = source_order(_with_area(detections, dt_area))
    ground_truth, gt_rows = source_order(ground_truth)
    return table.chunk(detections, ground_truth, dt_rows=dt_rows, gt_rows=gt_rows)


def _combine(*states):
    return states[0].combine(*states[1:])
