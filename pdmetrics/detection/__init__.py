"""Classification, object detection and segmentation metrics (``df.detection``)."""

from pdmetrics.detection.accessor import DetectionAccessor
from pdmetrics.detection.classification import (
    binary_roc_auc,
    classification_accuracy,
    classification_confusion,
    classification_errors,
    classification_metrics,
    classification_pr_curve,
    mean_roc_auc,
    roc_auc,
    roc_curve,
)

__all__ = [
    "DetectionAccessor",
    # classification and segmentation
    "binary_roc_auc",
    "roc_curve",
    "roc_auc",
    "mean_roc_auc",
    "classification_metrics",
    "classification_accuracy",
    "classification_pr_curve",
    "classification_errors",
    "classification_confusion",
]
