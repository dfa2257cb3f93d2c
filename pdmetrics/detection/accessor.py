"""The ``df.detection`` accessor."""

from __future__ import annotations

import pandas as pd

from pdmetrics.detection import confusion, curves, evaluation


@pd.api.extensions.register_dataframe_accessor("detection")
class DetectionAccessor:
    """Detection and classification metrics on a DataFrame: ``df.detection.<method>(...)``.

    The accessor holds only the DataFrame; every method returns a new DataFrame and
    leaves the caller's frame unchanged.

    Object-detection methods are called on the detections table (one row per detected
    box) with the ground-truth table passed as ``ground_truth=``; see
    :func:`pdmetrics.detection.evaluate_detections` for the shared arguments.
    """

    def __init__(self, frame: pd.DataFrame) -> None:
        self._frame = frame

    # ------------------------------------------------------------------------------
    # object detection
    # ------------------------------------------------------------------------------
    def evaluate(self, *, ground_truth: pd.DataFrame, image="image", label="label", box=None,
                 score="score", box_format: str = "xywh", iscrowd=None, area=None, ignore=None,
                 images=None, iou_thresholds=None, max_dets=(1, 10, 100), area_ranges=None,
                 matching: str = "coco", interpolation: str = "coco",
                 labels_without_ground_truth: str = "exclude") -> pd.DataFrame:
        """The 12 COCO summary numbers; see :func:`pdmetrics.detection.evaluate_detections`.

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> gt = pd.DataFrame({"image": [1, 2], "label": [0, 0], "x": [0, 5], "y": [0, 5],
        ...                    "w": [20, 20], "h": [20, 20]})
        >>> dt = pd.DataFrame({"image": [1, 2], "label": [0, 0], "x": [1, 5], "y": [0, 5],
        ...                    "w": [20, 20], "h": [20, 20], "score": [0.9, 0.4]})
        >>> dt.detection.evaluate(ground_truth=gt, area_ranges={"all": (0, 1e10)}).round(3)
          metric        iou area  max_dets  value
        0     AP  0.50:0.95  all       100  0.925
        1     AP       0.50  all       100  1.000
        2     AP       0.75  all       100  1.000
        3     AR  0.50:0.95  all         1  0.950
        4     AR  0.50:0.95  all        10  0.950
        5     AR  0.50:0.95  all       100  0.950
        """
        return evaluation.evaluate_detections(
            self._frame, ground_truth, image=image, label=label, box=box, score=score,
            box_format=box_format, iscrowd=iscrowd, area=area, ignore=ignore, images=images,
            iou_thresholds=iou_thresholds, max_dets=max_dets, area_ranges=area_ranges, matching=matching,
            interpolation=interpolation, labels_without_ground_truth=labels_without_ground_truth)

    def average_precision(self, *, ground_truth: pd.DataFrame, image="image", label="label", box=None,
                          score="score", box_format: str = "xywh", iscrowd=None, area=None, ignore=None,
                          images=None, iou_thresholds=None, max_dets=100, area_ranges=None,
                          matching: str = "coco", interpolation: str = "coco",
                          labels_without_ground_truth: str = "exclude", by="label") -> pd.DataFrame:
        """AP per label and IoU threshold plus the mAP row; see
        :func:`pdmetrics.detection.average_precision`."""
        return evaluation.average_precision(
            self._frame, ground_truth, image=image, label=label, box=box, score=score,
            box_format=box_format, iscrowd=iscrowd, area=area, ignore=ignore, images=images,
            iou_thresholds=iou_thresholds, max_dets=max_dets, area_ranges=area_ranges, matching=matching,
            interpolation=interpolation, labels_without_ground_truth=labels_without_ground_truth, by=by)

    def average_recall(self, *, ground_truth: pd.DataFrame, image="image", label="label", box=None,
                       score="score", box_format: str = "xywh", iscrowd=None, area=None, ignore=None,
                       images=None, iou_thresholds=None, max_dets=100, area_ranges=None,
                       matching: str = "coco", score_threshold=None,
                       labels_without_ground_truth: str = "exclude", by="label") -> pd.DataFrame:
        """Recall per label and IoU threshold plus the mAR row; see
        :func:`pdmetrics.detection.average_recall`."""
        return evaluation.average_recall(
            self._frame, ground_truth, image=image, label=label, box=box, score=score,
            box_format=box_format, iscrowd=iscrowd, area=area, ignore=ignore, images=images,
            iou_thresholds=iou_thresholds, max_dets=max_dets, area_ranges=area_ranges, matching=matching,
            score_threshold=score_threshold, labels_without_ground_truth=labels_without_ground_truth, by=by)

    def match(self, *, ground_truth: pd.DataFrame, image="image", label="label", box=None,
              score="score", box_format: str = "xywh", iscrowd=None, area=None, ignore=None, images=None,
              iou_thresholds=None, max_dets=100, area_range=(0.0, 1e10),
              matching: str = "coco") -> pd.DataFrame:
        """One row per detection and IoU threshold with its match; see
        :func:`pdmetrics.detection.match_detections`."""
        return evaluation.match_detections(
            self._frame, ground_truth, image=image, label=label, box=box, score=score,
            box_format=box_format, iscrowd=iscrowd, area=area, ignore=ignore, images=images,
            iou_thresholds=iou_thresholds, max_dets=max_dets, area_range=area_range, matching=matching)

    def pr_curve(self, *, ground_truth: pd.DataFrame, image="image", label="label", box=None,
                 score="score", box_format: str = "xywh", iscrowd=None, area=None, ignore=None, images=None,
                 style: str = "coco", iou_thresholds=None, max_dets=100, area_range=(0.0, 1e10),
                 matching: str = "coco", interpolation: str = "coco", score_thresholds=None,
                 labels_without_ground_truth: str = "exclude") -> pd.DataFrame:
        """Precision-recall curves (COCO's 101 points or valor's score thresholds); see
        :func:`pdmetrics.detection.precision_recall_curve`."""
        return curves.precision_recall_curve(
            self._frame, ground_truth, image=image, label=label, box=box, score=score,
            box_format=box_format, iscrowd=iscrowd, area=area, ignore=ignore, images=images, style=style,
            iou_thresholds=iou_thresholds, max_dets=max_dets, area_range=area_range, matching=matching,
            interpolation=interpolation, score_thresholds=score_thresholds,
            labels_without_ground_truth=labels_without_ground_truth)

    def confusion(self, *, ground_truth: pd.DataFrame, image="image", label="label", box=None,
                  score="score", box_format: str = "xywh", images=None, kind: str = "breakdown",
                  iou_threshold: float = 0.5, score_thresholds=None, max_examples: int = 1) -> pd.DataFrame:
        """valor's detailed error breakdown or the label x label matrix; see
        :func:`pdmetrics.detection.detection_confusion`."""
        return confusion.detection_confusion(
            self._frame, ground_truth, image=image, label=label, box=box, score=score,
            box_format=box_format, images=images, kind=kind, iou_threshold=iou_threshold,
            score_thresholds=score_thresholds, max_examples=max_examples)
