"""Intersection over union of axis-aligned boxes, vectorized.

Boxes are rows ``(x, y, w, h)`` (``box_format="xywh"``, COCO) or ``(x1, y1, x2, y2)``
(``box_format="xyxy"``, valor). The arithmetic is the closed form COCO's ``bbIou`` uses,
in float64 and in the same order of operations, so the IoUs are bit-identical to
pycocotools': ``w = min(right_d, right_g) - max(x_d, x_g)`` (likewise ``h``), zero when
either is ``<= 0``, ``inter = w * h``, ``union = area_d + area_g - inter``, and for a crowd
ground truth ``union = area_d`` (the detection's area: a detection that lies inside a
crowd region scores 1).
"""

from __future__ import annotations

import numpy as np

from pdmetrics.detection.options import BOX_FORMATS
from pdmetrics.errors import InvalidInputError

__all__ = ["box_iou", "paired_box_iou", "box_area"]

#: Largest box area accepted: two areas still add up to a finite float64.
MAX_AREA = 1e300


def _as_boxes(boxes, argument: str) -> np.ndarray:
    try:
        array = np.asarray(boxes, dtype="float64")
    except (TypeError, ValueError):
        raise InvalidInputError(f"`{argument}` must hold numbers (4 box coordinates per row).") from None
    if array.ndim == 1 and array.size == 0:
        array = array.reshape(0, 4)
    if array.ndim == 1 and array.size == 4:
        array = array.reshape(1, 4)
    if array.ndim != 2 or array.shape[1] != 4:
        raise InvalidInputError(f"`{argument}` must have shape (n, 4); got shape {array.shape}.")
    return array


def check_box_values(boxes: np.ndarray, box_format: str, source: str) -> None:
    """Raise for a box with a missing/infinite coordinate or a negative size.

    ``source`` starts the message, e.g. ``"The detections table"``.
    """
    _refuse(
        ~np.isfinite(boxes).all(axis=1),
        lambda row: (
            f"{source} has a missing or infinite box coordinate in row {row} "
            f"({boxes[row].tolist()!r}). Drop or fix such rows first."
        ),
    )
    if box_format == "xywh":
        size, what = boxes[:, 2:], "width/height"
    else:
        size, what = boxes[:, 2:] - boxes[:, :2], "x_max - x_min / y_max - y_min"
    _refuse(
        (size < 0).any(axis=1),
        lambda row: (
            f"{source} has a box with a negative size in row {row} ({what} = "
            f"{size[row].tolist()!r}, box_format={box_format!r}). Check the box columns and "
            f"`box_format=` ('xywh' is x, y, width, height; 'xyxy' is x_min, y_min, x_max, y_max)."
        ),
    )
    with np.errstate(over="ignore", invalid="ignore"):
        edges = box_edges(boxes, box_format)
        huge = ~(np.isfinite(edges[2]) & np.isfinite(edges[3]) & (edges[4] <= MAX_AREA))
    _refuse(
        huge,
        lambda row: (
            f"{source} has a box too large for float64 arithmetic in row {row} "
            f"({boxes[row].tolist()!r}): its area or far edge exceeds {MAX_AREA:g}. Rescale the "
            f"coordinates (e.g. divide them all by the same factor: IoU does not change)."
        ),
    )


def _refuse(bad: np.ndarray, message) -> None:
    """Raise ``InvalidInputError(message(row))`` for the first row flagged in ``bad``."""
    if bad.any():
        raise InvalidInputError(message(int(np.flatnonzero(bad)[0])))


def _checked_boxes(boxes, argument: str, box_format: str) -> np.ndarray:
    """:func:`_as_boxes` refusing missing/infinite coordinates and negative sizes."""
    array = _as_boxes(boxes, argument)
    check_box_values(array, box_format, f"`{argument}`")
    return array


def check_format(box_format: str) -> None:
    if box_format not in BOX_FORMATS:
        raise InvalidInputError(
            f"`box_format={box_format!r}` is not supported: use 'xywh' (x, y, width, height; COCO) "
            f"or 'xyxy' (x_min, y_min, x_max, y_max; valor)."
        )


def box_edges(boxes: np.ndarray, box_format: str) -> tuple[np.ndarray, ...]:
    """Left, top, right, bottom and area of each box, computed as COCO does."""
    x, y = boxes[:, 0], boxes[:, 1]
    if box_format == "xywh":
        w, h = boxes[:, 2], boxes[:, 3]
        return x, y, w + x, h + y, w * h
    right, bottom = boxes[:, 2], boxes[:, 3]
    return x, y, right, bottom, (right - x) * (bottom - y)


def box_area(boxes, box_format: str = "xywh") -> np.ndarray:
    """Area of each box (``w * h``).

    Parameters
    ----------
    boxes : array-like of shape (n, 4)
        Boxes in ``box_format``.
    box_format : {"xywh", "xyxy"}
        ``(x, y, width, height)`` or ``(x_min, y_min, x_max, y_max)``.

    Returns
    -------
    numpy.ndarray
        One area per box (float64).

    Examples
    --------
    >>> from pdmetrics.detection import box_area
    >>> box_area([[0, 0, 2, 3], [1, 1, 2, 2]], box_format="xyxy").tolist()
    [6.0, 1.0]
    """
    check_format(box_format)
    return box_edges(_checked_boxes(boxes, "boxes", box_format), box_format)[4]


def iou_from_edges(d, g, crowd) -> np.ndarray:
    """IoU of broadcastable detection edges ``d`` and ground-truth edges ``g``."""
    dx1, dy1, dx2, dy2, da = d
    gx1, gy1, gx2, gy2, ga = g
    # boxes are checked (finite, area <= MAX_AREA); far-apart boxes can still overflow the
    # negative overlap, which is then simply "no overlap"
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        w = np.minimum(dx2, gx2) - np.maximum(dx1, gx1)
        h = np.minimum(dy2, gy2) - np.maximum(dy1, gy1)
        overlap = (w > 0) & (h > 0)
        inter = np.where(overlap, w * h, 0.0)
        union = np.where(crowd, da, da + ga - inter)
        iou = np.where(overlap, inter / np.where(overlap, union, 1.0), 0.0)
    return iou


def paired_box_iou(detections, ground_truths, iscrowd=None, box_format: str = "xywh") -> np.ndarray:
    """IoU of row-aligned pairs: ``detections[i]`` against ``ground_truths[i]``.

    Parameters
    ----------
    detections, ground_truths : array-like of shape (n, 4)
        Paired boxes in ``box_format``.
    iscrowd : array-like of bool, optional
        Per pair, whether the ground truth is a crowd region: then the union is the
        detection's area (COCO's rule).
    box_format : {"xywh", "xyxy"}
        Box convention of both arrays.

    Returns
    -------
    numpy.ndarray
        ``n`` IoUs in ``[0, 1]`` (0 for boxes that do not overlap).

    Examples
    --------
    >>> from pdmetrics.detection import paired_box_iou
    >>> paired_box_iou([[0, 0, 2, 2], [0, 0, 1, 1]], [[1, 0, 2, 2], [0, 0, 4, 4]],
    ...                iscrowd=[False, True]).round(4).tolist()
    [0.3333, 1.0]
    """
    check_format(box_format)
    d = _checked_boxes(detections, "detections", box_format)
    g = _checked_boxes(ground_truths, "ground_truths", box_format)
    if d.shape[0] != g.shape[0]:
        raise InvalidInputError(
            f"`detections` has {d.shape[0]} boxes but `ground_truths` has {g.shape[0]}; "
            f"pass row-aligned pairs (use `box_iou` for all pairs)."
        )
    crowd = np.zeros(d.shape[0], dtype=bool) if iscrowd is None else np.asarray(iscrowd, dtype=bool)
    return iou_from_edges(box_edges(d, box_format), box_edges(g, box_format), crowd)


def box_iou(detections, ground_truths, iscrowd=None, box_format: str = "xywh") -> np.ndarray:
    """IoU matrix of every detection against every ground truth (pycocotools' ``iou``).

    Parameters
    ----------
    detections : array-like of shape (n, 4)
        Detected boxes in ``box_format``.
    ground_truths : array-like of shape (m, 4)
        Ground-truth boxes in ``box_format``.
    iscrowd : array-like of bool of length m, optional
        Crowd flag of each ground truth: the union becomes the detection's area, so a
        detection inside a crowd region has IoU 1 with it.
    box_format : {"xywh", "xyxy"}
        ``(x, y, width, height)`` (COCO) or ``(x_min, y_min, x_max, y_max)`` (valor).

    Returns
    -------
    numpy.ndarray of shape (n, m)
        ``iou[i, j]`` between detection ``i`` and ground truth ``j``.

    Examples
    --------
    >>> from pdmetrics.detection import box_iou
    >>> box_iou([[0, 0, 10, 10]], [[5, 0, 10, 10], [0, 0, 20, 20]], iscrowd=[0, 1]).round(4)
    array([[0.3333, 1.    ]])
    """
    check_format(box_format)
    d = _checked_boxes(detections, "detections", box_format)
    g = _checked_boxes(ground_truths, "ground_truths", box_format)
    crowd = np.zeros(g.shape[0], dtype=bool) if iscrowd is None else np.asarray(iscrowd, dtype=bool)
    if crowd.shape != (g.shape[0],):
        raise InvalidInputError(
            f"`iscrowd` has {crowd.size} flags but there are {g.shape[0]} ground truths; pass one per row."
        )
    de = tuple(v[:, None] for v in box_edges(d, box_format))
    ge = tuple(v[None, :] for v in box_edges(g, box_format))
    return iou_from_edges(de, ge, crowd[None, :])
