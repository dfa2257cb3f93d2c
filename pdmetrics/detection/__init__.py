"""Classification, object detection and segmentation metrics (``df.detection``)."""

from pdmetrics.detection.accessor import DetectionAccessor
from pdmetrics.detection.coco import interpolated_average_precision
from pdmetrics.detection.confusion import detection_confusion
from pdmetrics.detection.curves import precision_recall_curve
from pdmetrics.detection.evaluation import (
    average_precision,
    average_recall,
    evaluate_detections,
    match_detections,
)
from pdmetrics.detection.iou import box_area, box_iou, paired_box_iou

__all__ = [
    "DetectionAccessor",
    "average_precision",
    "average_recall",
    "box_area",
    "box_iou",
    "detection_confusion",
    "evaluate_detections",
    "interpolated_average_precision",
    "match_detections",
    "paired_box_iou",
    "precision_recall_curve",
]
