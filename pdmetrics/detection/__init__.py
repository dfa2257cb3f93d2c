"""Classification, object detection and segmentation metrics (``df.detection``)."""

from pdmetrics._lazy import lazy_attributes

# registers df.detection; the metric modules load on first use (see pdmetrics._lazy)

__all__ = [
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
    # instance segmentation masks (COCO run-length encoding)
    "MaskRuns",
    "mask_runs",
    "rle_encode",
    "rle_decode",
    "polygon_to_rle",
    "polygon_to_mask",
    "mask_area",
    "mask_bbox",
    "box_to_rle",
    "mask_iou",
    "paired_mask_iou",
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

#: The module defining each public name: imported when the name is first looked up.
_WHERE = {
    "confusion": "pdmetrics.detection.box_confusion",
    "interpolated_average_precision": "pdmetrics.detection.coco",
    "pr_curve": "pdmetrics.detection.curves",
    "average_precision": "pdmetrics.detection.evaluation",
    "average_recall": "pdmetrics.detection.evaluation",
    "evaluate": "pdmetrics.detection.evaluation",
    "match": "pdmetrics.detection.evaluation",
    "MaskRuns": "pdmetrics.detection.masks",
    "mask_runs": "pdmetrics.detection.masks",
    "rle_encode": "pdmetrics.detection.masks",
    "rle_decode": "pdmetrics.detection.masks",
    "polygon_to_rle": "pdmetrics.detection.masks",
    "polygon_to_mask": "pdmetrics.detection.masks",
    "mask_area": "pdmetrics.detection.masks",
    "mask_bbox": "pdmetrics.detection.masks",
    "box_to_rle": "pdmetrics.detection.masks",
    "mask_iou": "pdmetrics.detection.masks",
    "paired_mask_iou": "pdmetrics.detection.masks",
    "box_area": "pdmetrics.detection.iou",
    "box_iou": "pdmetrics.detection.iou",
    "paired_box_iou": "pdmetrics.detection.iou",
    "classification_accuracy": "pdmetrics.detection.label_metrics",
    "classification": "pdmetrics.detection.label_tables",
    "binary_roc_auc": "pdmetrics.detection.roc",
    "mean_roc_auc": "pdmetrics.detection.roc",
    "roc_auc": "pdmetrics.detection.roc",
    "roc_curve": "pdmetrics.detection.roc",
    "mean_iou": "pdmetrics.detection.semantic",
    "pixel_confusion_matrix": "pdmetrics.detection.semantic",
    "segmentation": "pdmetrics.detection.semantic",
    "segmentation_iou": "pdmetrics.detection.semantic",
}

__getattr__, __dir__ = lazy_attributes(__name__, _WHERE)
