"""Object keypoint similarity (OKS), vectorized: what IoU is for keypoints.

A pose is ``K`` keypoints, stored as COCO does: a flat ``[x1, y1, v1, x2, y2, v2, ...]`` of
length ``3 * K``, where ``v > 0`` marks a labelled keypoint of a ground truth (a detection's
``v`` is not read). pycocotools' ``COCOeval.computeOks``, in the same float64 arithmetic: with
``var = (2 * sigma) ** 2`` per keypoint, ``e = (dx ** 2 + dy ** 2) / var / (area + eps) / 2``
(``area`` the ground truth's, ``eps`` = ``np.spacing(1)``) and OKS the mean of ``exp(-e)`` over
the ground truth's labelled keypoints. A ground truth without any labelled keypoint measures,
for every keypoint, how far the detected point lies outside its box extended by twice its size
on each side (0 inside). OKS has no crowd rule: a crowd ground truth only changes the matching.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdmetrics._validation import plain
from pdmetrics.detection.options import COCO_KEYPOINT_SIGMAS
from pdmetrics.errors import InvalidInputError

__all__ = ["paired_oks", "keypoint_array", "sigma_array", "keypoint_similarities", "keypoint_extent"]


def keypoint_array(values, argument: str, table: str) -> np.ndarray:
    """The ``(n, K, 3)`` float64 array of a column (or list) of flat ``[x, y, v] * K`` lists.

    Raises :class:`~pdmetrics.errors.InvalidInputError` naming the row for a missing cell, a
    cell that is not numbers, a length that is not a multiple of 3 or differs between rows, and
    a missing or infinite coordinate.
    """
    cells = values.tolist() if isinstance(values, pd.Series) else list(values)
    if not cells:
        return np.zeros((0, 0, 3))
    try:  # the usual case at once: every cell K numbers long; else each cell is looked at
        array = np.array(cells, dtype="float64")
    except (TypeError, ValueError):
        array = None
    if array is not None and array.ndim == 2 and array.shape[1] % 3 == 0 and array.shape[1]:
        return _finite(array.reshape(len(cells), -1, 3), argument, values, table)
    lengths = np.array([np.size(c) if _is_list(c) else -1 for c in cells])
    where = _described(values, argument)
    bad = np.flatnonzero(lengths < 0)
    if bad.size:
        row = int(bad[0])
        raise InvalidInputError(
            f"{where} of the {table} table has {plain(cells[row])!r} in row {row}; every row needs "
            f"a list of keypoints [x1, y1, v1, x2, y2, v2, ...] (COCO's format). Drop or fix such rows."
        )
    bad = np.flatnonzero((lengths % 3 != 0) | (lengths == 0) | (lengths != lengths[0]))
    if bad.size:
        row = int(bad[0])
        against = (
            ", not a positive multiple of 3"
            if lengths[row] % 3 or not lengths[row]
            else f" where row 0 holds {lengths[0]}"
        )
        raise InvalidInputError(
            f"{where} of the {table} table holds {lengths[row]} numbers in row {row}{against}; every "
            f"row needs the same 3 * K numbers [x, y, v] per keypoint."
        )
    try:
        array = np.array(cells, dtype="float64").reshape(len(cells), -1, 3)
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"{where} of the {table} table holds a value that is not a number; keypoints are "
            f"numbers [x, y, v] per keypoint."
        ) from None
    return _finite(array, argument, values, table)


def _finite(array: np.ndarray, argument: str, values, table: str) -> np.ndarray:
    """``array`` (n, K, 3), refusing a missing or infinite coordinate."""
    where = _described(values, argument)
    missing = ~np.isfinite(array[:, :, :2]).all(axis=(1, 2))
    if missing.any():
        row = int(np.flatnonzero(missing)[0])
        raise InvalidInputError(
            f"{where} of the {table} table has a missing or infinite coordinate in row {row} "
            f"({array[row].reshape(-1).tolist()!r}). Put an unlabelled keypoint as 0, 0, 0 (COCO's "
            f"convention), or drop the row."
        )
    return array


def _described(values, argument: str) -> str:
    """How a message names the keypoints: the argument, and the column when it is one."""
    if isinstance(values, pd.Series):
        return f"`{argument}=` column {values.name!r}"
    return f"`{argument}`"


def _is_list(cell) -> bool:
    return isinstance(cell, (list, tuple, np.ndarray, pd.Series))


def sigma_array(sigmas, k: int) -> np.ndarray:
    """The ``K`` per-keypoint sigmas: ``sigmas``, or COCO's 17 person sigmas by default."""
    if sigmas is None:
        values = COCO_KEYPOINT_SIGMAS
    else:
        try:
            values = np.asarray(sigmas, dtype="float64").reshape(-1)
        except (TypeError, ValueError):
            raise InvalidInputError(
                f"`sigmas=` must be numbers, one per keypoint; got {plain(sigmas)!r}."
            ) from None
        with np.errstate(over="ignore", under="ignore"):
            usable = np.isfinite(values) & (values > 0) & ((values * 2) ** 2 > 0)
        if values.size == 0 or not usable.all():
            raise InvalidInputError(
                f"`sigmas=` must be positive numbers, one per keypoint (not so small that their "
                f"squares are 0); got {values.tolist()!r}."
            )
    if k and values.size != k:
        given = "COCO's 17 person sigmas (the default)" if sigmas is None else f"{values.size} values"
        raise InvalidInputError(
            f"The keypoints hold K={k} keypoints per row but `sigmas=` has {given}; pass `sigmas=` "
            f"with {k} values (one per keypoint, in the keypoints' order)."
        )
    return values


def keypoint_extent(keypoints: np.ndarray) -> np.ndarray:
    """pycocotools' ``loadRes`` box ``(x, y, w, h)`` of results without one: the keypoints' extent."""
    if keypoints.shape[0] == 0:
        return np.zeros((0, 4))
    x, y = keypoints[:, :, 0], keypoints[:, :, 1]
    x0, x1, y0, y1 = x.min(axis=1), x.max(axis=1), y.min(axis=1), y.max(axis=1)
    return np.stack([x0, y0, x1 - x0, y1 - y0], axis=1)


def _exponents(dt, gt, gt_boxes, gt_area, sigmas) -> tuple[np.ndarray, np.ndarray]:
    """``e`` of each pair and keypoint ``(n, K)``, and the keypoints OKS averages over."""
    variances = (sigmas * 2) ** 2
    visible = gt[:, :, 2] > 0
    labelled = visible.any(axis=1)
    xd, yd = dt[:, :, 0], dt[:, :, 1]
    x, y, w, h = (gt_boxes[:, i : i + 1] for i in range(4))
    x0, x1, y0, y1 = x - w, x + w * 2, y - h, y + h * 2
    zero = np.zeros(1)
    outside_x = np.maximum(zero, x0 - xd) + np.maximum(zero, xd - x1)
    outside_y = np.maximum(zero, y0 - yd) + np.maximum(zero, yd - y1)
    dx = np.where(labelled[:, None], xd - gt[:, :, 0], outside_x)
    dy = np.where(labelled[:, None], yd - gt[:, :, 1], outside_y)
    e = (dx**2 + dy**2) / variances / (gt_area[:, None] + np.spacing(1)) / 2
    return e, np.where(labelled[:, None], visible, True)


def oks_of_pairs(dt, gt, gt_boxes, gt_area, sigmas) -> np.ndarray:
    """OKS of row-aligned ``(n, K, 3)`` keypoint arrays (``gt_boxes`` in ``xywh``)."""
    if dt.shape[0] == 0:
        return np.zeros(0)
    e, used = _exponents(dt, gt, gt_boxes, gt_area, sigmas)
    counts = used.sum(axis=1)
    # pycocotools sums only the keypoints used (``np.sum(np.exp(-e[vg > 0]))``): they are moved
    # to the front of each row and the rows of each count summed over that many columns, so
    # numpy adds the same numbers in the same order (the same bits)
    order = np.argsort(~used, axis=1, kind="stable")
    values = np.exp(-np.take_along_axis(e, order, axis=1))
    total = np.empty(counts.size)
    for count in np.unique(counts):
        rows = counts == count
        total[rows] = values[rows, :count].sum(axis=1)
    return total / counts


def keypoint_similarities(dt, gt, gt_boxes, gt_area, sigmas) -> tuple[np.ndarray, np.ndarray]:
    """Per pair and keypoint: the keypoint's similarity ``exp(-e)`` ``(n, K)`` and whether the
    ground truth labels it (``v > 0``)."""
    e, _ = _exponents(dt, gt, gt_boxes, gt_area, sigmas)
    return np.exp(-e), gt[:, :, 2] > 0


def paired_oks(detections, ground_truths, *, boxes, areas, sigmas=None) -> np.ndarray:
    """OKS of row-aligned pairs: ``detections[i]`` against ``ground_truths[i]`` (pycocotools' ``computeOks``).

    Parameters
    ----------
    detections, ground_truths : sequence of keypoint lists
        One flat ``[x1, y1, v1, ..., xK, yK, vK]`` per pose (COCO's format); a ground truth's
        ``v > 0`` marks its labelled keypoints.
    boxes : array-like of shape (n, 4)
        The ground truths' boxes ``(x, y, w, h)``: a ground truth without labelled keypoints
        measures the distance to this box extended by twice its size.
    areas : array-like of shape (n,)
        The ground truths' areas (COCO's ``area``: the object's segment area).
    sigmas : sequence of K float, optional
        Per-keypoint sigmas; default COCO's 17 person sigmas (pycocotools' ``kpt_oks_sigmas``).

    Returns
    -------
    numpy.ndarray
        ``n`` similarities in ``[0, 1]``.

    Examples
    --------
    >>> from pdmetrics.detection import paired_oks
    >>> gt = [[10, 10, 2, 20, 20, 2], [10, 10, 2, 20, 20, 0]]
    >>> dt = [[11, 10, 1, 20, 22, 1], [11, 10, 1, 50, 50, 1]]
    >>> paired_oks(dt, gt, boxes=[[5, 5, 20, 20]] * 2, areas=[400, 400], sigmas=[0.1, 0.1]).round(4)
    array([0.9259, 0.9692])
    """
    dt = keypoint_array(detections, "detections", "detections")
    gt = keypoint_array(ground_truths, "ground_truths", "ground-truth")
    if dt.shape[0] != gt.shape[0] or (dt.size and dt.shape[1] != gt.shape[1]):
        raise InvalidInputError(
            f"`detections` has shape {dt.shape[:2]} (poses, keypoints) but `ground_truths` has "
            f"{gt.shape[:2]}; pass row-aligned pairs with the same keypoints."
        )
    try:
        box = np.asarray(boxes, dtype="float64")
        area = np.asarray(areas, dtype="float64").reshape(-1)
    except (TypeError, ValueError):
        raise InvalidInputError("`boxes` and `areas` must be numbers.") from None
    if box.size == 0:
        box = box.reshape(0, 4)
    if box.ndim != 2 or box.shape[1] != 4:
        raise InvalidInputError(
            f"`boxes` must have shape (n, 4), one [x, y, w, h] per pair; got {box.shape}."
        )
    if not (np.isfinite(area) & (area >= 0)).all():
        bad = int(np.flatnonzero(~(np.isfinite(area) & (area >= 0)))[0])
        raise InvalidInputError(
            f"`areas` must be finite numbers of 0 or more; entry {bad} is {float(area[bad])!r}."
        )
    if box.shape[0] != gt.shape[0] or area.size != gt.shape[0]:
        raise InvalidInputError(
            f"`boxes` and `areas` need one row per pair ({gt.shape[0]}); got {box.shape[0]} and {area.size}."
        )
    return oks_of_pairs(dt, gt, box, area, sigma_array(sigmas, gt.shape[1]))
