"""Reading evaluation data from files into tidy DataFrames.

``read_coco`` turns COCO annotation and result files into the two long tables that
``df.detection`` methods take: one row per ground-truth box and one row per detection.
"""

from __future__ import annotations

import json
from os import PathLike

import numpy as np
import pandas as pd

from pdmetrics.errors import InvalidInputError

__all__ = ["read_coco", "coco_image_ids"]

GROUND_TRUTH_COLUMNS = ["id", "image", "label", "x", "y", "w", "h", "area", "iscrowd"]
DETECTION_COLUMNS = ["id", "image", "label", "x", "y", "w", "h", "score"]


def _load(source, what: str):
    if isinstance(source, (dict, list)):
        return source
    if isinstance(source, (str, PathLike)):
        try:
            with open(source, encoding="utf-8") as handle:
                return json.load(handle)
        except FileNotFoundError:
            raise InvalidInputError(f"{what}: no such file {str(source)!r}.") from None
        except json.JSONDecodeError as error:
            raise InvalidInputError(f"{what}: {str(source)!r} is not valid JSON ({error}).") from None
    raise InvalidInputError(
        f"{what} must be a path to a COCO JSON file or its parsed content; got {type(source).__name__}."
    )


def _boxes(records: list, what: str) -> np.ndarray:
    try:
        boxes = np.array([r["bbox"] for r in records], dtype="float64")
    except KeyError:
        raise InvalidInputError(f"{what}: every entry needs a 'bbox' [x, y, width, height].") from None
    except (TypeError, ValueError):
        raise InvalidInputError(f"{what}: every 'bbox' must be 4 numbers [x, y, width, height].") from None
    if boxes.size == 0:
        return boxes.reshape(0, 4)
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise InvalidInputError(f"{what}: every 'bbox' must be 4 numbers [x, y, width, height].")
    return boxes


def _field(records: list, name: str, default=None) -> list:
    return [r.get(name, default) for r in records]


def _number_field(records: list, name: str, default, dtype: str, what: str) -> np.ndarray:
    """A numeric field of every record (``default`` when absent) as an array, or a clear error."""
    values = _field(records, name, default)
    try:
        return np.array(values, dtype=dtype)
    except (TypeError, ValueError):
        position = next((i for i, v in enumerate(values) if not _converts(v, dtype)), 0)
        raise InvalidInputError(
            f"{what}: entry {position} (0-based) has {name!r} = {values[position]!r}; it must be a number."
        ) from None


def _converts(value, dtype: str) -> bool:
    try:
        np.array(value, dtype=dtype)
    except (TypeError, ValueError):
        return False
    return True


def _id_field(records: list, name: str, what: str) -> list:
    values = _field(records, name)
    missing = [i for i, v in enumerate(values) if v is None]
    if missing:
        raise InvalidInputError(
            f"{what}: entry {missing[0]} (0-based) has no {name!r}; every entry needs one."
        )
    return values


def read_coco(annotations_json, results_json=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Read COCO ground truths (and detection results) into two long tables.

    Parameters
    ----------
    annotations_json : path or dict
        A COCO annotation file (``images``, ``annotations``, ``categories``) or its parsed
        content.
    results_json : path or list, optional
        A COCO result file (a list of ``{image_id, category_id, bbox, score}``) or its
        parsed content. Without it the detections table is empty.

    Returns
    -------
    ground_truth : DataFrame
        One row per annotation: ``id, image, label, x, y, w, h, area, iscrowd`` (plus
        ``ignore`` when the file has that field). ``area`` is the file's ``area`` (the mask
        area for COCO), which is what COCO's area ranges use; ``w * h`` when absent.
    detections : DataFrame
        One row per result: ``id, image, label, x, y, w, h, score`` (``id`` numbers the
        results from 1 in file order, as pycocotools does).

    Notes
    -----
    Pass ``image="image", label="label", box=["x", "y", "w", "h"], iscrowd="iscrowd",
    area="area"`` (the defaults of ``df.detection`` methods, except ``iscrowd`` and
    ``area`` which must be named) to reproduce pycocotools. Images listed in the file
    without any annotation are returned by :func:`coco_image_ids`; pass them as
    ``images=`` so that detections on them count as false positives.

    Examples
    --------
    >>> from pdmetrics.io import read_coco
    >>> gt, dt = read_coco(
    ...     {"images": [{"id": 1}], "categories": [{"id": 3}],
    ...      "annotations": [{"id": 7, "image_id": 1, "category_id": 3, "bbox": [0, 0, 10, 10],
    ...                       "area": 90.0, "iscrowd": 0}]},
    ...     [{"image_id": 1, "category_id": 3, "bbox": [1, 1, 10, 10], "score": 0.9}])
    >>> gt[["image", "label", "w", "area"]]
       image  label     w  area
    0      1      3  10.0  90.0
    >>> dt[["id", "label", "score"]]
       id  label  score
    0   1      3    0.9
    """
    content = _load(annotations_json, "annotations_json")
    if not isinstance(content, dict) or "annotations" not in content:
        raise InvalidInputError("annotations_json must be a COCO annotation file with an 'annotations' list.")
    annotations = content["annotations"]
    boxes = _boxes(annotations, "annotations_json")
    width, height = boxes[:, 2], boxes[:, 3]
    area = _number_field(annotations, "area", np.nan, "float64", "annotations_json")
    area = np.where(np.isnan(area), width * height, area)
    ground_truth = pd.DataFrame(
        {
            "id": _field(annotations, "id"),
            "image": _id_field(annotations, "image_id", "annotations_json"),
            "label": _id_field(annotations, "category_id", "annotations_json"),
            "x": boxes[:, 0],
            "y": boxes[:, 1],
            "w": width,
            "h": height,
            "area": area,
            "iscrowd": _number_field(annotations, "iscrowd", 0, "int64", "annotations_json"),
        },
        columns=GROUND_TRUTH_COLUMNS,
    )
    if any("ignore" in a for a in annotations):
        ground_truth["ignore"] = _number_field(annotations, "ignore", 0, "int64", "annotations_json")
    if results_json is None:
        results = []
    else:
        results = _load(results_json, "results_json")
        if isinstance(results, dict) and "annotations" in results:
            results = results["annotations"]
        if not isinstance(results, list):
            raise InvalidInputError("results_json must be a COCO result file: a list of detections.")
    det_boxes = _boxes(results, "results_json")
    try:
        det_scores = np.array(_field(results, "score"), dtype="float64")
    except (TypeError, ValueError):
        raise InvalidInputError("results_json: every detection needs a numeric 'score'.") from None
    if np.isnan(det_scores).any():
        position = int(np.flatnonzero(np.isnan(det_scores))[0])
        raise InvalidInputError(
            f"results_json: detection {position} (0-based, in file order) has no "
            f"'score'; every detection needs a numeric 'score'."
        )
    detections = pd.DataFrame(
        {
            "id": np.arange(1, len(results) + 1, dtype="int64"),
            "image": _id_field(results, "image_id", "results_json"),
            "label": _id_field(results, "category_id", "results_json"),
            "x": det_boxes[:, 0],
            "y": det_boxes[:, 1],
            "w": det_boxes[:, 2],
            "h": det_boxes[:, 3],
            "score": det_scores,
        },
        columns=DETECTION_COLUMNS,
    )
    return ground_truth, detections


def coco_image_ids(annotations_json) -> list:
    """Every image id listed in a COCO annotation file (including images without objects).

    Examples
    --------
    >>> from pdmetrics.io import coco_image_ids
    >>> coco_image_ids({"images": [{"id": 2}, {"id": 1}], "annotations": []})
    [2, 1]
    """
    content = _load(annotations_json, "annotations_json")
    if not isinstance(content, dict) or "images" not in content:
        raise InvalidInputError("annotations_json must be a COCO annotation file with an 'images' list.")
    return [image["id"] for image in content["images"]]
