"""Every default and choice of the object-detection functions, and the checks of their options.

A bottom module: it imports nothing from :mod:`pdmetrics.detection`, so every other detection
module can take its defaults from here.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from pdmetrics._validation import plain, preview
from pdmetrics.errors import InvalidInputError

__all__ = [
    "COCO_IOU_THRESHOLDS",
    "COCO_RECALL_THRESHOLDS",
    "COCO_AREA_RANGES",
    "COCO_MAX_DETS",
    "VALOR_SCORE_THRESHOLDS",
    "VALOR_EPSILON",
    "BOX_FORMATS",
    "DEFAULT_BOX",
    "MATCHING_RULES",
    "INTERPOLATIONS",
    "CURVE_STYLES",
    "LABELS_WITHOUT_GT",
    "COCO_ATTRS",
    "IOU_TYPES",
    "COCO_KEYPOINT_SIGMAS",
    "KEYPOINT_AREA_RANGES",
    "KEYPOINT_MAX_DETS",
    "iou_threshold_array",
    "max_dets_list",
    "area_range_table",
    "check_choice",
    "number_array",
    "one_number",
]

COCO_IOU_THRESHOLDS = np.linspace(0.5, 0.95, int(np.round((0.95 - 0.5) / 0.05)) + 1, endpoint=True)
COCO_RECALL_THRESHOLDS = np.linspace(0.0, 1.00, int(np.round((1.00 - 0.0) / 0.01)) + 1, endpoint=True)
COCO_AREA_RANGES = {
    "all": (0.0, 1e5**2),
    "small": (0.0, 32.0**2),
    "medium": (32.0**2, 96.0**2),
    "large": (96.0**2, 1e5**2),
}
COCO_MAX_DETS = (1, 10, 100)
#: valor's confidence thresholds for counts and curves: 0.05, 0.10, ..., 0.95.
VALOR_SCORE_THRESHOLDS = np.round(np.arange(1, 20) * 0.05, 2)
#: valor's ``EPSILON``: under its options a detection scoring at most this is never counted,
#: and a pair of boxes with an IoU below it never matches (even at ``iou_threshold=0``).
VALOR_EPSILON = 1e-9
BOX_FORMATS = ("xywh", "xyxy")
DEFAULT_BOX = {"xywh": ("x", "y", "w", "h"), "xyxy": ("xmin", "ymin", "xmax", "ymax")}
MATCHING_RULES = ("coco", "valor")
INTERPOLATIONS = ("coco", "valor")
CURVE_STYLES = ("coco", "valor")
LABELS_WITHOUT_GT = ("exclude", "zero")
#: What IoU compares: ``"bbox"`` the boxes, ``"segm"`` the masks, ``"keypoints"`` the
#: keypoints by their object keypoint similarity (OKS; COCO's ``iouType``).
IOU_TYPES = ("bbox", "segm", "keypoints")
#: pycocotools' ``kpt_oks_sigmas``: COCO's 17 person keypoints (nose, eyes, ears, shoulders,
#: elbows, wrists, hips, knees, ankles).
COCO_KEYPOINT_SIGMAS = (
    np.array(
        [0.26, 0.25, 0.25, 0.35, 0.35, 0.79, 0.79, 0.72, 0.72, 0.62, 0.62, 1.07, 1.07, 0.87, 0.87, 0.89, 0.89]
    )
    / 10.0
)
#: pycocotools' area ranges for keypoints: no "small" range (small people carry no keypoints).
KEYPOINT_AREA_RANGES = {
    "all": (0.0, 1e5**2),
    "medium": (32.0**2, 96.0**2),
    "large": (96.0**2, 1e5**2),
}
#: pycocotools' ``maxDets`` for keypoints.
KEYPOINT_MAX_DETS = (20,)
#: Key of ``DataFrame.attrs`` where :func:`pdmetrics.io.read_coco` records what pycocotools
#: uses beyond the boxes: the file's image list and the crowd and area column names.
COCO_ATTRS = "pdmetrics.coco"
UNLIMITED = np.iinfo("int64").max


def check_choice(value, argument: str, choices) -> str:
    if not isinstance(value, str) or value not in choices:
        listed = " or ".join(repr(c) for c in choices)
        raise InvalidInputError(f"`{argument}={plain(value)!r}` is not supported: use {listed}.")
    return value


def _shown(values) -> str:
    """A user's option value for a message: plain numbers, long lists cut short."""
    if isinstance(values, (list, tuple, np.ndarray)):
        return "[" + preview([plain(v) for v in np.asarray(values, dtype=object).reshape(-1)], 10) + "]"
    return repr(plain(values))


def number_array(values, argument: str) -> np.ndarray:
    """A non-empty float64 array of non-NaN numbers from ``values`` (a number or a list)."""
    try:
        array = np.asarray(values, dtype="float64").reshape(-1)
    except (TypeError, ValueError):
        raise InvalidInputError(f"`{argument}=` must be numbers; got {_shown(values)}.") from None
    if array.size == 0 or np.isnan(array).any():
        raise InvalidInputError(f"`{argument}=` must be a non-empty list of numbers; got {_shown(values)}.")
    return array


def one_number(value, argument: str) -> float:
    """One number (not NaN) from ``value``."""
    values = number_array(value, argument)
    if values.size != 1:
        raise InvalidInputError(f"`{argument}=` must be one number; got {_shown(value)}.")
    return float(values[0])


def iou_threshold_array(iou_thresholds) -> np.ndarray:
    """IoU thresholds as float64 (COCO's ``linspace(0.5, 0.95, 10)`` by default), each once."""
    if iou_thresholds is None:
        return COCO_IOU_THRESHOLDS.copy()
    if isinstance(iou_thresholds, (str, bytes)):
        values = None
    else:
        try:
            values = np.asarray(iou_thresholds, dtype="float64").reshape(-1)
        except (TypeError, ValueError):
            values = None
    if values is None or values.size == 0 or not np.all((values >= 0) & (values <= 1)):
        raise InvalidInputError(
            f"`iou_thresholds=` must be a non-empty list of numbers in [0, 1]; got {_shown(iou_thresholds)}."
        )
    if np.unique(values).size != values.size:
        raise InvalidInputError(
            f"`iou_thresholds=` lists a threshold twice ({_shown(values)}); pass each threshold once."
        )
    return values


def max_dets_list(max_dets) -> list:
    """Per-image detection limits, increasing; ``None`` means no limit."""
    if max_dets is None:
        return [UNLIMITED]
    values = [max_dets] if np.isscalar(max_dets) else list(max_dets)
    if not values:
        raise InvalidInputError("`max_dets=` is empty: pass positive integers, e.g. (1, 10, 100).")
    for value in values:
        if value is None:
            continue
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
            raise InvalidInputError(
                f"`max_dets=` must be positive integers (detections kept per image and label); "
                f"got {plain(value)!r}."
            )
    return [UNLIMITED if v is None else int(v) for v in values]


def area_range_table(area_ranges) -> tuple[list, np.ndarray]:
    """Names and ``[low, high]`` bounds of the area ranges (COCO's four by default)."""
    if area_ranges is None:
        area_ranges = COCO_AREA_RANGES
    if not isinstance(area_ranges, Mapping) or not area_ranges:
        raise InvalidInputError(
            "`area_ranges=` must be a dict {name: (low, high)}, e.g. {'all': (0, 1e10), 'small': (0, 1024)}."
        )
    names = list(area_ranges)
    try:
        bounds = np.array([tuple(area_ranges[n]) for n in names], dtype="float64").reshape(len(names), 2)
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"`area_ranges=` values must be (low, high) pairs of numbers; got {_shown_ranges(area_ranges)}."
        ) from None
    if np.isnan(bounds).any() or (bounds[:, 0] > bounds[:, 1]).any():
        raise InvalidInputError(
            f"`area_ranges=` needs low <= high for every range; got {_shown_ranges(area_ranges)}."
        )
    return names, bounds


def _shown_ranges(area_ranges) -> str:
    return "{" + ", ".join(f"{plain(k)!r}: {_shown(v)}" for k, v in area_ranges.items()) + "}"


def one_area_range(area_range) -> dict:
    """``area_range=(low, high)`` as a one-entry ``area_ranges`` dict."""
    try:
        low, high = (float(v) for v in area_range)
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"`area_range=` must be a (low, high) pair such as (0, 1e10); got {_shown(area_range)}."
        ) from None
    return {"range": (low, high)}
