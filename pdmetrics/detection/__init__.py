"""Classification, object detection and segmentation metrics (``df.detection``)."""

from pdmetrics._lazy import lazy_attributes

# registers df.detection; the metric modules load on first use (see pdmetrics._lazy)

#: Each public name (the package's ``__all__``, in this order) and the module defining it: imported
#: when the name is first looked up.
_WHERE = {
    # object detection
    "average_precision": "pdmetrics.detection.evaluation",
    "average_recall": "pdmetrics.detection.evaluation",
    "box_area": "pdmetrics.detection.iou",
    "box_iou": "pdmetrics.detection.iou",
    "compare": "pdmetrics.detection.comparison",
    "confusion": "pdmetrics.detection.box_confusion",
    "errors": "pdmetrics.detection.error_types",
    "evaluate": "pdmetrics.detection.evaluation",
    "interpolated_average_precision": "pdmetrics.detection.coco",
    "keypoint_similarity": "pdmetrics.detection.joints",
    "match": "pdmetrics.detection.evaluation",
    "operating_points": "pdmetrics.detection.operating",
    "per_image": "pdmetrics.detection.image_results",
    "paired_box_iou": "pdmetrics.detection.iou",
    "paired_oks": "pdmetrics.detection.oks",
    "pr_curve": "pdmetrics.detection.curves",
    # instance segmentation masks (COCO run-length encoding)
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
    # classification and segmentation
    "classification": "pdmetrics.detection.label_tables",
    "binary_roc_auc": "pdmetrics.detection.roc",
    "roc_curve": "pdmetrics.detection.roc",
    "roc_auc": "pdmetrics.detection.roc",
    "mean_roc_auc": "pdmetrics.detection.roc",
    "classification_accuracy": "pdmetrics.detection.label_metrics",
    "pixel_confusion_matrix": "pdmetrics.detection.semantic",
    "segmentation_iou": "pdmetrics.detection.semantic",
    "mean_iou": "pdmetrics.detection.semantic",
    "segmentation": "pdmetrics.detection.semantic",
}

__getattr__, __dir__, __all__ = lazy_attributes(__name__, _WHERE)
