"""True and false positives, misses, precision and recall of each image, to find the hard ones.

Per-image counts are additive: a chunk holding every box of its images (the whole pandas frame,
or a dask partition shuffled on the image) matches its boxes and counts per image; combining
adds the counts of the images, aligned on their ids.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdmetrics._division import check_zero_division, divide
from pdmetrics._table_spec import table
from pdmetrics._tables import attach_info, result_table
from pdmetrics.detection.inputs import BoxColumns, box_columns
from pdmetrics.detection.match_state import (
    RunOptions,
    added_by_id,
    box_spec,
    check_ground_truth_or_images,
    matched_boxes,
    run_options_of,
)
from pdmetrics.detection.operating import check_one_max_dets, one_iou_threshold

__all__ = ["per_image", "PerImageTable", "ImageCounts"]

#: The counts of :class:`ImageCounts`, in the order of its ``counts`` rows.
COUNTS = ("N", "n_detections", "tp", "fp")


@dataclass(frozen=True)
class ImageCounts:
    """Per image (sorted ``images`` ids): the :data:`COUNTS` as rows of ``counts`` ``(4, n)``,
    and ``n_gt`` the ground-truth rows seen (the whole table's check). ``combine`` adds."""

    images: np.ndarray
    counts: np.ndarray
    n_gt: int

    def combine(self, *others: ImageCounts) -> ImageCounts:
        states = (self, *others)
        images, counts, _ = added_by_id([s.images for s in states], [s.counts for s in states], "image")
        return ImageCounts(images, counts, sum(s.n_gt for s in states))


def image_counts(
    detections: pd.DataFrame,
    ground_truth: pd.DataFrame,
    columns: BoxColumns,
    options: RunOptions,
    partition: bool,
) -> ImageCounts:
    """Match the boxes of a chunk holding every box of its images and count per image."""
    data = columns.prepare(detections, ground_truth, partition=partition)
    data, _, m = matched_boxes(data, options)
    n = data.images.size
    image = data.dt_image[m.det]
    counts = np.stack(
        [
            np.bincount(data.gt_image[~m.gt_ignored[0]], minlength=n),
            np.bincount(image, minlength=n),
            np.bincount(image[m.tp[0, 0]], minlength=n),
            np.bincount(image[m.fp[0, 0]], minlength=n),
        ]
    ).astype("int64")
    return ImageCounts(np.asarray(data.images), counts, data.n_gt)


@dataclass(frozen=True)
class PerImageTable:
    """:func:`per_image` with its options checked: ``chunk`` -> :class:`ImageCounts` ->
    ``combine`` -> ``finalize``. Called on two pandas frames it is the pandas path."""

    columns: BoxColumns
    options: RunOptions
    zero_division: object

    def chunk(self, detections, ground_truth, dt_rows=None, gt_rows=None) -> ImageCounts:
        return image_counts(detections, ground_truth, self.columns, self.options, dt_rows is not None)

    def finalize(self, state: ImageCounts) -> pd.DataFrame:
        check_ground_truth_or_images(state.n_gt, self.columns, len(state.images))
        n_positive, n_det, tp, fp = state.counts
        fn = n_positive - tp
        zero = self.zero_division
        precision = divide(tp, tp + fp, zero, what="Precision (an image without a counted detection)")
        recall = divide(tp, n_positive, zero, what="Recall (an image without ground truth)")
        f1 = divide(2 * tp, 2 * tp + fp + fn, zero, what="F1 (an image without ground truth or detection)")
        result = result_table(
            {
                "image": state.images,
                "N": n_positive,
                "n_detections": n_det,
                "tp": tp,
                "fp": fp,
                "fn": fn,
                "precision": precision,
                "recall": recall,
                "f1": f1,
            },
            integer_columns=["N", "n_detections", "tp", "fp", "fn"],
        )
        return attach_info(
            result,
            iou_threshold=float(self.options.iou_thresholds[0]),
            score_threshold=self.options.score_threshold,
            matching=self.options.matching,
        )

    def __call__(self, detections: pd.DataFrame, ground_truth: pd.DataFrame) -> pd.DataFrame:
        return self.finalize(self.chunk(detections, ground_truth))


@table
@box_columns()
def per_image(
    frame: pd.DataFrame,
    *,
    ground_truth: pd.DataFrame,
    columns: BoxColumns,
    iou_threshold=0.5,
    score_threshold=0.5,
    max_dets=100,
    area_range=(0.0, 1e10),
    matching: str = "coco",
    zero_division="warn",
) -> pd.DataFrame:
    """True positives, false positives, misses, precision, recall and F1 of each image.

    One row per image, so the hard images can be sorted and filtered:
    ``per_image(...).sort_values("f1")``. The detections scoring at least ``score_threshold``
    are matched as by :func:`match` at ``iou_threshold``, every label of the image at once.

    Parameters
    ----------
    frame, ground_truth, iou_threshold, max_dets, area_range, matching
        As in :func:`pdmetrics.detection.operating_points`; the column arguments (``image``,
        ``label``, ``box``, ``score``, ``box_format``, ``iscrowd``, ``area``, ``ignore``,
        ``images``) and the masks' (``iou_type``, ``segmentation``, ``image_sizes``) as in
        :func:`pdmetrics.detection.evaluate`.
    score_threshold : float or None, default 0.5
        Detections scoring less are left out (``None``: every detection).
    zero_division : "warn" or float, default "warn"
        The value of a 0/0 ratio: precision of an image without a counted detection, recall
        of an image without ground truth (``N = 0``), F1 of an image with neither.
        ``"warn"``: NaN with an :class:`~pdmetrics.UndefinedMetricWarning`.

    Returns
    -------
    DataFrame
        Columns ``image, N, n_detections, tp, fp, fn, precision, recall, f1``, one row per
        image of the ground truth, the detections and ``images=``, in sorted id order. ``N``
        counts the image's ground truths that are not ignored (crowds, ``ignore``, outside
        ``area_range``), ``n_detections`` its detections at or above the threshold (within
        ``max_dets``); a detection matched to an ignored ground truth is neither a true nor a
        false positive (so ``tp + fp <= n_detections``). ``fn = N - tp``,
        ``precision = tp / (tp + fp)``, ``recall = tp / N``, ``f1 = 2 tp / (2 tp + fp + fn)``.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.detection import per_image
    >>> boxes = {"label": "car", "y": 0, "w": 10, "h": 10}
    >>> gt = pd.DataFrame({"image": ["a", "a", "b"], "x": [0, 50, 0], **boxes})
    >>> dt = pd.DataFrame({"image": ["a", "a", "a", "b"], "x": [0, 90, 50, 0],
    ...                    "score": [0.9, 0.8, 0.3, 0.6], **boxes})
    >>> per_image(dt, ground_truth=gt).round(3)
       image  N  n_detections  tp  fp  fn  precision  recall     f1
    0     a  2             2   1   1   1        0.5     0.5  0.500
    1     b  1             1   1   0   0        1.0     1.0  1.000
    """
    threshold = one_iou_threshold(iou_threshold)
    check_zero_division(zero_division)
    check_one_max_dets(max_dets)
    options = run_options_of(locals(), iou_thresholds=[threshold], score_threshold=score_threshold)
    return box_spec(frame, ground_truth, PerImageTable(columns, options, zero_division))
