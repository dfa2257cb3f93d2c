"""Classification, object detection and segmentation metrics (``df.detection``)."""

from pdmetrics.detection.accessor import DetectionAccessor
from pdmetrics.detection.classification import (
    binary_roc_auc,
    classification_accuracy,
    classification_confusion,
    classification_errors,
    classification_metrics,
    classification_pr_curve,
    classification_summary,
    mean_roc_auc,
    roc_auc,
    roc_curve,
)
from pdmetrics.detection.coco import interpolated_average_precision
from pdmetrics.detection.confusion import detection_confusion
from pdmetrics.detection.curves import pr_curve
from pdmetrics.detection.evaluation import (
    average_precision,
    average_recall,
    evaluate,
    match,
)
from pdmetrics.detection.iou import box_area, box_iou, paired_box_iou
from pdmetrics.detection.segmentation import (
    mean_iou,
    pixel_confusion_matrix,
    segmentation_iou,
    segmentation_summary,
)

__all__ = [
    "DetectionAccessor",
    # object detection
    "average_precision",
    "average_recall",
    "box_area",
    "box_iou",
    "detection_confusion",
    "evaluate",
    "interpolated_average_precision",
    "match",
    "paired_box_iou",
    "pr_curve",
    # classification and segmentation
    "binary_roc_auc",
    "roc_curve",
    "roc_auc",
    "mean_roc_auc",
    "classification_metrics",
    "classification_accuracy",
    "classification_summary",
    "classification_pr_curve",
    "classification_errors",
    "classification_confusion",
    "pixel_confusion_matrix",
    "segmentation_iou",
    "mean_iou",
    "segmentation_summary",
]
