"""Classification, object detection and segmentation metrics (``df.detection``)."""

from pdmetrics.detection.accessor import DetectionAccessor
from pdmetrics.detection.box_confusion import confusion
from pdmetrics.detection.coco import interpolated_average_precision
from pdmetrics.detection.curves import pr_curve
from pdmetrics.detection.evaluation import (
    average_precision,
    average_recall,
    evaluate,
    match,
)
from pdmetrics.detection.iou import box_area, box_iou, paired_box_iou
from pdmetrics.detection.label_metrics import classification_accuracy
from pdmetrics.detection.label_tables import classification
from pdmetrics.detection.roc import binary_roc_auc, mean_roc_auc, roc_auc, roc_curve
from pdmetrics.detection.semantic import mean_iou, pixel_confusion_matrix, segmentation, segmentation_iou

__all__ = [
    "DetectionAccessor",
    # object detection
    "average_precision",
    "average_recall",
    "box_area",
    "box_iou",
    "confusion",
    "evaluate",
    "interpolated_average_precision",
    "match",
    "paired_box_iou",
    "pr_curve",
    # classification and segmentation
    "classification",
    "binary_roc_auc",
    "roc_curve",
    "roc_auc",
    "mean_roc_auc",
    "classification_accuracy",
    "pixel_confusion_matrix",
    "segmentation_iou",
    "mean_iou",
    "segmentation",
]
