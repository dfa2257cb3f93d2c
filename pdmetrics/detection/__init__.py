"""Classification, object detection and segmentation metrics (``df.detection``)."""

from pdmetrics.detection.accessor import DetectionAccessor

__all__ = ["DetectionAccessor"]
