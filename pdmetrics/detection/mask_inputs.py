"""Segmentation columns of the two box tables, as :class:`~pdmetrics.detection.masks.MaskRuns`.

With ``iou_type="segm"`` every ground truth and detection is a mask: a cell of the
``segmentation=`` column holding a COCO polygon, an RLE (compressed or not) or a 2-D boolean
array. Polygons are drawn on their image, whose size comes from ``image_sizes=`` (or the
``height``/``width`` of a file read by :func:`pdmetrics.io.read_coco`); an RLE or an array
carries its own size, which must equal the image's when that is known. A missing cell (None or
NaN) falls back to the row's box, drawn as COCO draws boxes
(:func:`~pdmetrics.detection.masks.box_to_rle`): the conversion that compares a box with a mask.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import numpy as np
import pandas as pd

from pdmetrics._validation import plain
from pdmetrics.detection.masks import MAX_SIDE, MaskRuns, box_to_rle, shared_mask_runs
from pdmetrics.errors import InvalidInputError

__all__ = ["image_size_arrays", "segmentation_runs"]


def image_size_arrays(image_ids: np.ndarray, image_sizes) -> tuple[np.ndarray, np.ndarray]:
    """Height and width of each image in ``image_ids`` (0 where unknown).

    ``image_sizes`` maps an image id to ``(height, width)``: a mapping, or a DataFrame with
    ``height`` and ``width`` columns indexed by image id; None knows no size.
    """
    n = int(np.asarray(image_ids).size)
    heights, widths = np.zeros(n, dtype="int64"), np.zeros(n, dtype="int64")
    if image_sizes is None:
        return heights, widths
    if isinstance(image_sizes, pd.DataFrame):
        missing = [c for c in ("height", "width") if c not in image_sizes.columns]
        if missing:
            raise InvalidInputError(
                f"`image_sizes=` as a DataFrame needs 'height' and 'width' columns indexed by image id; "
                f"it has no {missing[0]!r} column (its columns: {list(image_sizes.columns)!r})."
            )
        table = image_sizes[["height", "width"]]
    elif isinstance(image_sizes, Mapping):
        pairs = list(image_sizes.values())
        bad = next((i for i, p in enumerate(pairs) if p is not None and np.ndim(p) != 1), None)
        if bad is not None or any(p is not None and len(p) != 2 for p in pairs):
            key = list(image_sizes)[bad if bad is not None else 0]
            raise InvalidInputError(
                f"`image_sizes=` must map each image id to (height, width); image {plain(key)!r} maps to "
                f"{image_sizes[key]!r}."
            )
        table = pd.DataFrame(
            [(np.nan, np.nan) if p is None else tuple(p) for p in pairs],
            index=list(image_sizes),
            columns=["height", "width"],
        )
    else:
        raise InvalidInputError(
            f"`image_sizes=` must map image ids to (height, width) (a dict, or a DataFrame with 'height' "
            f"and 'width' columns indexed by image id); got {type(image_sizes).__name__}."
        )
    if table.index.has_duplicates:
        table = _listed_once(table)
    index = table.index
    if len(index) and pd.api.types.infer_dtype(index) == "string":
        keys = pd.Index(np.asarray(image_ids).astype(str), dtype=object)
    else:
        keys = pd.Index(np.asarray(image_ids))
    found = table.reindex(keys)
    values = found.apply(pd.to_numeric, errors="coerce").to_numpy(dtype="float64", na_value=np.nan)
    given = found.notna().to_numpy()
    known = ~np.isnan(values).any(axis=1)
    bad = (given & np.isnan(values)).any(axis=1) | (
        known & ((values < 1) | (values != np.round(values))).any(axis=1)
    )
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InvalidInputError(
            f"`image_sizes=`: image {plain(np.asarray(image_ids)[i])!r} has size "
            f"{[plain(v) for v in found.iloc[i].tolist()]!r}; a size is (height, width) in whole "
            f"pixels, at least 1."
        )
    large = known & (values > MAX_SIDE).any(axis=1)
    if large.any():
        i = int(np.flatnonzero(large)[0])
        raise InvalidInputError(
            f"Image {plain(np.asarray(image_ids)[i])!r} has size (height, width) "
            f"{tuple(int(v) for v in values[i])!r} (from `image_sizes=`, or the annotation file's "
            f"'height'/'width' for a read_coco table): masks are drawn on images of at most {MAX_SIDE} "
            f"pixels a side."
        )
    heights[known], widths[known] = values[known, 0].astype("int64"), values[known, 1].astype("int64")
    return heights, widths


def _listed_once(table: pd.DataFrame) -> pd.DataFrame:
    """One size per image: the same size listed twice is kept once; two sizes are refused."""
    rows = pd.DataFrame(
        {"image": table.index, "height": table["height"].to_numpy(), "width": table["width"].to_numpy()}
    )
    unique = table[~rows.duplicated().to_numpy()]
    if unique.index.has_duplicates:
        image = unique.index[unique.index.duplicated()][0]
        sizes = unique.loc[[image]].to_numpy().tolist()
        raise InvalidInputError(
            f"`image_sizes=` lists image {plain(image)!r} twice, with two sizes "
            f"({' and '.join(repr(tuple(plain(v) for v in size)) for size in sizes)}); give each image one "
            f"(height, width)."
        )
    return unique


def _missing(cells: pd.Series) -> np.ndarray:
    """Cells that hold no segmentation (None or a float NaN)."""
    if set(map(type, cells)) <= {list, dict, np.ndarray}:
        return np.zeros(len(cells), dtype=bool)
    return np.fromiter(
        (c is None or (isinstance(c, float) and c != c) for c in cells), dtype=bool, count=len(cells)
    )


def _own_size(cell) -> tuple[int, int]:
    """The size an RLE or an array carries; (0, 0) for a polygon."""
    if isinstance(cell, Mapping):
        size = cell.get("size")
        if size is not None and np.ndim(size) == 1 and len(size) == 2:
            return int(size[0]), int(size[1])
        return 0, 0
    if isinstance(cell, np.ndarray) and cell.dtype != object and cell.ndim == 2:
        return cell.shape
    return 0, 0


def segmentation_runs(
    frame: pd.DataFrame,
    column,
    table: str,
    image_ids: np.ndarray,
    image_code: np.ndarray,
    heights: np.ndarray,
    widths: np.ndarray,
    boxes: np.ndarray | None,
    box_format: str,
) -> MaskRuns:
    """The masks of one table's rows (see the module docstring), or an error naming the row."""
    cells = frame[column]
    h, w = heights[image_code], widths[image_code]
    missing = _missing(cells)
    items = cells.tolist()
    if missing.any():
        if boxes is None:
            row = int(np.flatnonzero(missing)[0])
            raise InvalidInputError(
                f"Row {row} (0-based) of the {table} table has no segmentation in `segmentation="
                f"{column!r}` and the table has no box columns to fall back on; give every row a polygon, "
                f"an RLE or a boolean mask."
            )
        rows = np.flatnonzero(missing)
        unsized = rows[h[rows] == 0]
        if unsized.size:
            row = int(unsized[0])
            raise InvalidInputError(
                f"Row {row} (0-based) of the {table} table has no segmentation, so its box is drawn as "
                f"a mask, but image {plain(image_ids[image_code[row]])!r} has no size: pass "
                f"`image_sizes={{image: (height, width)}}` (a file read with read_coco carries them)."
            )
        drawn = box_to_rle(boxes[rows], h[rows], w[rows], box_format)
        for row, rle in zip(rows.tolist(), drawn):
            items[row] = rle
    unsized = np.flatnonzero(h == 0)
    if unsized.size:
        own = np.array([_own_size(items[i]) for i in unsized.tolist()], dtype="int64").reshape(-1, 2)
        polygon = own[:, 0] == 0
        if polygon.any():
            row = int(unsized[np.flatnonzero(polygon)[0]])
            raise InvalidInputError(
                f"Row {row} (0-based) of the {table} table holds a polygon on image "
                f"{plain(image_ids[image_code[row]])!r}, which has no size: a polygon is drawn on its "
                f"image. Pass `image_sizes={{image: (height, width)}}` (a file read with read_coco "
                f"carries them), or give the segmentation as an RLE or a boolean mask."
            )
        h, w = h.copy(), w.copy()
        h[unsized], w[unsized] = own[:, 0], own[:, 1]
    try:
        return shared_mask_runs(items, h, w)
    except InvalidInputError as error:
        # the kernels number the masks; here mask N is row N of the table
        message = re.sub(r"^segmentation (\d+)(:?)", r"row \1 (0-based)\2", str(error))
        raise InvalidInputError(f"The {table} table, `segmentation={column!r}`, {message}") from None
