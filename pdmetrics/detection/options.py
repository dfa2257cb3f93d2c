"""Checking the evaluation options shared by the object-detection functions."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from pdmetrics.detection.coco import COCO_AREA_RANGES, COCO_IOU_THRESHOLDS
from pdmetrics.errors import InvalidInputError

__all__ = [
    "iou_threshold_array",
    "max_dets_list",
    "area_range_table",
    "LABELS_WITHOUT_GT",
    "check_choice",
    "number_array",
]

LABELS_WITHOUT_GT = ("exclude", "zero")
UNLIMITED = np.iinfo("int64").max


def check_choice(value, argument: str, choices) -> str:
    if value not in choices:
        listed = " or ".join(repr(c) for c in choices)
        raise InvalidInputError(f"`{argument}={value!r}` is not supported: use {listed}.")
    return value


def number_array(values, argument: str) -> np.ndarray:
    """A non-empty float64 array of non-NaN numbers from ``values`` (a number or a list)."""
    try:
        array = np.asarray(values, dtype="float64").reshape(-1)
    except (TypeError, ValueError):
        raise InvalidInputError(f"`{argument}=` must be numbers; got {values!r}.") from None
    if array.size == 0 or np.isnan(array).any():
        raise InvalidInputError(f"`{argument}=` must be a non-empty list of numbers; got {values!r}.")
    return array


def iou_threshold_array(iou_thresholds) -> np.ndarray:
    """IoU thresholds as float64 (COCO's ``linspace(0.5, 0.95, 10)`` by default)."""
    if iou_thresholds is None:
        return COCO_IOU_THRESHOLDS.copy()
    try:
        values = np.asarray(iou_thresholds, dtype="float64").reshape(-1)
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"`iou_thresholds=` must be numbers in [0, 1]; got {iou_thresholds!r}."
        ) from None
    if values.size == 0 or not np.all((values >= 0) & (values <= 1)):
        raise InvalidInputError(
            f"`iou_thresholds=` must be a non-empty list of numbers in [0, 1]; got {iou_thresholds!r}."
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
                f"`max_dets=` must be positive integers (detections kept per image and label); got {value!r}."
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
            f"`area_ranges=` values must be (low, high) pairs of numbers; got {area_ranges!r}."
        ) from None
    if np.isnan(bounds).any() or (bounds[:, 0] > bounds[:, 1]).any():
        raise InvalidInputError(f"`area_ranges=` needs low <= high for every range; got {area_ranges!r}.")
    return names, bounds
