"""Turning the two long box tables into checked, factorized numpy arrays.

Ground truths and detections are DataFrames with one row per box. Both use the same
column names for the image id, the label and the four box coordinates. Image and label
ids may be integers or strings, but not a mix (pycocotools silently treats ``"2299"``
and ``2299`` as different images; here that is an error with a clear message).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields

import numpy as np
import pandas as pd

from pdmetrics._docstrings import fill
from pdmetrics._validation import plain, require_columns
from pdmetrics._warnings import emit
from pdmetrics._wrappers import in_module_of
from pdmetrics.detection.iou import box_edges, check_box_values, check_format, iou_from_edges
from pdmetrics.detection.mask_inputs import image_size_arrays, segmentation_runs
from pdmetrics.detection.masks import MaskRuns, mask_bbox, paired_mask_iou
from pdmetrics.detection.oks import keypoint_array, keypoint_extent, oks_of_pairs, sigma_array
from pdmetrics.detection.options import COCO_ATTRS, DEFAULT_BOX, IOU_TYPES, check_choice
from pdmetrics.errors import InvalidInputError, PdmetricsWarning

__all__ = ["BoxColumns", "BoxData", "box_columns", "prepare_boxes", "default_box_columns", "row_ids"]


def row_ids(index: pd.Index, positions) -> pd.Series:
    """The index labels at row ``positions`` of a table; position -1 gives a missing value.

    The labels keep their type, in a dtype that can hold a missing value: integer labels
    become the nullable ``Int64`` (``<NA>``), booleans ``boolean``; floats, strings and
    datetimes keep their dtype (NaN, NaT), other objects stay objects.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.detection.inputs import row_ids
    >>> row_ids(pd.Index([10, 11, 12]), [2, -1, 0]).tolist()
    [12, <NA>, 10]
    """
    values = pd.Series(index, copy=False)
    if pd.api.types.is_bool_dtype(values.dtype):
        values = values.astype("boolean")
    elif pd.api.types.is_integer_dtype(values.dtype) and not isinstance(
        values.dtype, pd.api.extensions.ExtensionDtype
    ):
        values = values.astype("Int64")
    return values.reindex(np.asarray(positions, dtype="int64")).reset_index(drop=True)


def default_box_columns(box, box_format: str) -> list:
    """The four box column names: ``box`` if given, else the default of ``box_format``."""
    check_format(box_format)
    if box is None:
        return list(DEFAULT_BOX[box_format])
    names = [box] if isinstance(box, str) else list(box)
    if len(names) != 4:
        raise InvalidInputError(
            f"`box=` must name 4 columns ({', '.join(DEFAULT_BOX[box_format])} for "
            f"box_format={box_format!r}); got {names!r}."
        )
    return names


@dataclass(frozen=True)
class BoxColumns:
    """The column arguments every box method takes, in one object.

    ``image``, ``label``, ``box`` and ``score`` name the columns of the two tables;
    ``iscrowd``, ``area`` and ``ignore`` name optional ground-truth columns; ``images`` lists
    every evaluated image. ``None`` for ``iscrowd``, ``area`` and ``images`` means: what a
    ground-truth table read by :func:`pdmetrics.io.read_coco` carries, else nothing.
    ``iou_type="segm"`` compares the masks of the ``segmentation`` column (default
    ``"segmentation"``), drawing polygons on images of ``image_sizes`` (default: the sizes a
    :func:`~pdmetrics.io.read_coco` table carries). ``dt_area``: the detections' column of
    pycocotools' area of each result (default: the one a read_coco result table names).
    ``iou_type="keypoints"`` compares the poses of the ``keypoints`` column (default
    ``"keypoints"``; COCO's flat ``[x, y, v] * K``) by OKS with ``sigmas`` (default COCO's 17
    person sigmas); ``num_keypoints``: the ground truth's column of labelled keypoints (default:
    the one a read_coco table names, else the count of ``v > 0``).
    """

    image: object = "image"
    label: object = "label"
    box: object = None
    score: object = "score"
    box_format: str = "xywh"
    iscrowd: object = None
    area: object = None
    ignore: object = None
    images: object = None
    iou_type: str | None = None
    segmentation: object = None
    image_sizes: object = None
    dt_area: object = None
    keypoints: object = None
    sigmas: object = None
    num_keypoints: object = None

    def prepare(
        self, detections: pd.DataFrame, ground_truth: pd.DataFrame, partition: bool = False
    ) -> BoxData:
        """:func:`prepare_boxes` with these columns (``partition``: a chunk of a larger table)."""
        return prepare_boxes(detections, ground_truth, self, partition=partition)


#: The column arguments of every box method, in the order its signature lists them (after
#: ``ground_truth``); ``dt_area`` and ``num_keypoints`` are not among them (a
#: :func:`~pdmetrics.io.read_coco` table names them).
BOX_ARGUMENTS = (
    "image",
    "label",
    "box",
    "score",
    "box_format",
    "iscrowd",
    "area",
    "ignore",
    "images",
    "iou_type",
    "segmentation",
    "image_sizes",
    "keypoints",
    "sigmas",
)


def box_columns(*, without: tuple = ()) -> Callable:
    """Give a box method the column arguments of :class:`BoxColumns`, written once.

    The decorated builder takes ``columns`` (a :class:`BoxColumns`) right after
    ``ground_truth``; its public signature lists the column arguments themselves in that place
    (:data:`BOX_ARGUMENTS` but ``without``), with :class:`BoxColumns`' defaults, and a call's
    column keywords are gathered into the ``columns`` the builder receives. A ``{box_columns}``
    line of the builder's docstring becomes their description (``{box_inputs}``: with
    ``frame`` and ``ground_truth``).

    Examples
    --------
    >>> import inspect
    >>> from pdmetrics.detection.inputs import box_columns
    >>> @box_columns(without=("iscrowd", "area", "ignore"))
    ... def boxes(frame, *, ground_truth, columns, top=1):
    ...     return columns.image, columns.box_format, top
    >>> list(inspect.signature(boxes).parameters)[:5]
    ['frame', 'ground_truth', 'image', 'label', 'box']
    >>> boxes(None, ground_truth=None, image="img", top=2)
    ('img', 'xywh', 2)
    """
    names = [name for name in BOX_ARGUMENTS if name not in without]
    declared = {field.name: field for field in fields(BoxColumns)}
    masks = ("iou_type", "segmentation", "image_sizes", "keypoints", "sigmas")
    described = f"""
    {", ".join(name for name in names if name not in masks)}
        The columns (and images), as in :func:`pdmetrics.detection.evaluate`.
    {", ".join(name for name in masks if name in names)}
        Masks or keypoints instead of boxes, as in :func:`pdmetrics.detection.evaluate`.
    """
    inputs = """
    frame, ground_truth
        The detections and the ground truth, as in :func:`pdmetrics.detection.evaluate`.
    """
    gathered = BoxColumns  # read through the closure: the wrapper lives in the builder's module

    def parameter(name: str) -> inspect.Parameter:
        field = declared[name]
        annotation = inspect.Parameter.empty if field.type == "object" else field.type
        kind = inspect.Parameter.KEYWORD_ONLY
        return inspect.Parameter(name, kind, default=field.default, annotation=annotation)

    def decorate(builder: Callable) -> Callable:
        pieces = {"box_inputs": inputs + described, "box_columns": described}
        for name, text in pieces.items():
            if f"{{{name}}}" in (builder.__doc__ or ""):
                builder = fill(**{name: text})(builder)

        def wrapper(frame, /, **options):
            given = {name: options.pop(name) for name in names if name in options}
            return builder(frame, columns=gathered(**given), **options)

        signature = inspect.signature(builder)
        parameters = []
        for item in signature.parameters.values():
            parameters.extend([parameter(name) for name in names] if item.name == "columns" else [item])
        public = in_module_of(builder, wrapper)
        public.__signature__ = signature.replace(parameters=parameters)
        del public.__wrapped__
        return public

    return decorate


@dataclass(frozen=True)
class BoxData:
    """Checked ground truths and detections, with image and label ids factorized.

    ``images`` and ``labels`` hold the sorted distinct ids; the ``*_image`` and
    ``*_label`` arrays hold codes into them. Boxes are float64 arrays of shape (n, 4) in
    ``box_format``. ``gt_area`` is the area used for area ranges (the ``area=`` column
    when given, else the box area); ``dt_area`` is always the box area (COCO does the
    same for bbox results). With masks (``iou_type="segm"``) ``gt_masks``/``dt_masks``
    hold them, the boxes are the masks' boxes when the tables have none, and ``dt_area`` is
    the mask area (or the detections' ``area`` column of a :func:`pdmetrics.io.read_coco`
    result file, as pycocotools sets it). With keypoints (``iou_type="keypoints"``)
    ``gt_keypoints``/``dt_keypoints`` hold the ``(n, K, 3)`` poses and ``sigmas`` their K
    sigmas; detections without boxes get their keypoints' extent (pycocotools' ``loadRes``).
    """

    images: np.ndarray
    labels: np.ndarray
    box_format: str
    gt_image: np.ndarray
    gt_label: np.ndarray
    gt_boxes: np.ndarray
    gt_area: np.ndarray
    gt_crowd: np.ndarray
    gt_ignore: np.ndarray
    dt_image: np.ndarray
    dt_label: np.ndarray
    dt_boxes: np.ndarray
    dt_area: np.ndarray
    dt_score: np.ndarray
    gt_masks: MaskRuns | None = None
    dt_masks: MaskRuns | None = None
    gt_keypoints: np.ndarray | None = None
    dt_keypoints: np.ndarray | None = None
    sigmas: np.ndarray | None = None

    def pair_iou(self, det: np.ndarray, gt: np.ndarray) -> np.ndarray:
        """IoU of detections ``det[p]`` and ground truths ``gt[p]`` (boxes or masks; COCO's crowd
        rule), or their OKS (keypoints)."""
        if self.gt_keypoints is not None:
            return oks_of_pairs(
                self.dt_keypoints[det], self.gt_keypoints[gt], self.gt_xywh(gt), self.gt_area[gt], self.sigmas
            )
        if self.dt_masks is not None:
            return paired_mask_iou(
                self.dt_masks,
                self.gt_masks,
                self.gt_crowd[gt],
                detection_index=det,
                ground_truth_index=gt,
            )
        de = box_edges(self.dt_boxes[det], self.box_format)
        ge = box_edges(self.gt_boxes[gt], self.box_format)
        return iou_from_edges(de, ge, self.gt_crowd[gt])

    def gt_xywh(self, gt: np.ndarray) -> np.ndarray:
        """The ground-truth boxes ``gt`` as ``(x, y, w, h)``."""
        boxes = self.gt_boxes[gt]
        if self.box_format == "xywh":
            return boxes
        return np.concatenate([boxes[:, :2], boxes[:, 2:] - boxes[:, :2]], axis=1)

    @property
    def n_gt(self) -> int:
        return int(self.gt_image.size)

    @property
    def n_dt(self) -> int:
        return int(self.dt_image.size)


def _id_kind(series: pd.Series, argument: str, table: str) -> str:
    """'int' or 'str' for an id column; raises for mixed or unusable ids."""
    if series.isna().any():
        raise InvalidInputError(
            f"`{argument}={series.name!r}` in the {table} table has missing values "
            f"(row {int(np.flatnonzero(series.isna().to_numpy())[0])}); every box needs an id."
        )
    if series.size == 0:
        return "empty"
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype):
        raise InvalidInputError(f"`{argument}={series.name!r}` is boolean; ids must be integers or strings.")
    if pd.api.types.is_integer_dtype(dtype):
        return "int"
    if pd.api.types.is_float_dtype(dtype):
        values = series.to_numpy(dtype="float64")
        if np.all(values == np.round(values)):
            return "int"
        raise InvalidInputError(
            f"`{argument}={series.name!r}` in the {table} table holds non-integer numbers "
            f"(e.g. {plain(values[values != np.round(values)][0])!r}); ids must be integers or strings."
        )
    inferred = pd.api.types.infer_dtype(series, skipna=False)
    if inferred == "string":
        return "str"
    if inferred == "integer":
        return "int"
    types = series.map(lambda v: type(v).__name__)
    examples = series.groupby(types.to_numpy(), sort=True).first()
    shown = ", ".join(f"{plain(value)!r} ({kind})" for kind, value in examples.items())
    raise InvalidInputError(
        f"`{argument}={series.name!r}` in the {table} table mixes value types: {shown}. Ids such as "
        f"'2299' (a string) and 2299 (an integer) would be two different images. Convert the column "
        f"to one type first, e.g. `.astype(int)` or `.astype(str)`."
    )


def _ids(series: pd.Series, kind: str) -> np.ndarray:
    if kind == "int":
        return series.to_numpy(dtype="int64")
    return series.astype(str).to_numpy(dtype=object)


def _decategorize(series: pd.Series | None) -> pd.Series | None:
    """A categorical id column as a column of its categories' type (ints stay ints)."""
    if series is not None and isinstance(series.dtype, pd.CategoricalDtype):
        return pd.Series(np.asarray(series), index=series.index, name=series.name)
    return series


def _factorize_ids(parts: list[tuple[pd.Series | None, str, str]], argument: str):
    """Factorize the same id column of both tables (and extra ids) with sorted codes."""
    kinds = {}
    parts = [(_decategorize(series), table, extra) for series, table, extra in parts]
    for series, table, _ in parts:
        if series is None:
            continue
        kind = _id_kind(series, argument, table)
        if kind != "empty":
            kinds[table] = kind
    if len(set(kinds.values())) > 1:
        described = ", ".join(f"{kind} in the {table} table" for table, kind in kinds.items())
        raise InvalidInputError(
            f"`{argument}=` ids have different types ({described}): '2299' and 2299 would never "
            f"match. Convert both columns to the same type first, e.g. `.astype(int)`."
        )
    kind = next(iter(kinds.values()), "int")
    arrays = [_ids(s, kind) if s is not None else np.zeros(0, dtype="int64") for s, _, _ in parts]
    if kind == "str":
        arrays = [a.astype(object) for a in arrays]
    combined = np.concatenate(arrays) if arrays else np.zeros(0)
    codes, uniques = pd.factorize(combined, sort=True)
    out, start = [], 0
    for array in arrays:
        out.append(codes[start : start + array.size].astype("int64"))
        start += array.size
    return np.asarray(uniques), out


def _box_array(frame: pd.DataFrame, columns: list, table: str, box_format: str) -> np.ndarray:
    boxes = np.empty((len(frame), 4), dtype="float64")
    for j, name in enumerate(columns):
        series = frame[name]
        if pd.api.types.is_bool_dtype(series.dtype):
            raise InvalidInputError(
                f"`box=` column {name!r} in the {table} table is boolean; box coordinates must be numbers."
            )
        if not pd.api.types.is_numeric_dtype(series.dtype):
            converted = pd.to_numeric(series.astype(object), errors="coerce")
            if (converted.isna() & series.notna()).any():
                bad = series[converted.isna() & series.notna()].iloc[0]
                raise InvalidInputError(
                    f"`box=` column {name!r} in the {table} table holds a non-number ({bad!r}); "
                    f"box coordinates must be numbers."
                )
            series = converted
        boxes[:, j] = series.to_numpy(dtype="float64", na_value=np.nan)
    check_box_values(boxes, box_format, f"The {table} table (box columns {columns!r})")
    return boxes


def _as_float(series: pd.Series) -> np.ndarray:
    """A column as a float64 array; entries that are not numbers become NaN."""
    dtype = series.dtype
    if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype):
        return series.to_numpy(dtype="float64", na_value=np.nan)
    converted = pd.to_numeric(series.astype(object), errors="coerce")
    return converted.to_numpy(dtype="float64", na_value=np.nan)


def _flag(frame: pd.DataFrame, name, argument: str) -> np.ndarray:
    if name is None:
        return np.zeros(len(frame), dtype=bool)
    require_columns(frame, argument, name)
    values = _as_float(frame[name])
    if np.isnan(values).any():
        row = int(np.flatnonzero(np.isnan(values))[0])
        raise InvalidInputError(
            f"`{argument}={name!r}` must hold 0/1 or True/False; row {row} has "
            f"{plain(frame[name].iloc[row])!r}."
        )
    return values != 0


def coco_roles(ground_truth: pd.DataFrame, image, iscrowd, area, images):
    """``iscrowd``, ``area`` and ``images`` with the defaults a :func:`read_coco` table carries.

    :func:`pdmetrics.io.read_coco` stores the file's image list and the names of its crowd and
    area columns in ``ground_truth.attrs``; an argument given explicitly wins, and a column
    the frame no longer has is not used. The image list is used only while its ids have the
    type of the ``image`` column (a table whose ids were rewritten, e.g. to strings, no longer
    matches the file's list; images listed but absent from both tables change no number).
    """
    roles = ground_truth.attrs.get(COCO_ATTRS)
    if not isinstance(roles, Mapping):
        return iscrowd, area, images
    if iscrowd is None and roles.get("iscrowd") in ground_truth.columns:
        iscrowd = roles["iscrowd"]
    if area is None and roles.get("area") in ground_truth.columns:
        area = roles["area"]
    if images is None and roles.get("images"):
        listed = pd.Series(list(roles["images"]), name="images")
        try:
            same = _id_kind(listed, "image", "images") == _id_kind(
                ground_truth[image], "image", "ground-truth"
            )
        except InvalidInputError:
            same = False
        if same or len(ground_truth) == 0:
            images = listed
    return iscrowd, area, images


def coco_keypoint_roles(ground_truth: pd.DataFrame, num_keypoints):
    """The ground truth's ``num_keypoints`` column: the one given, else the one a
    :func:`~pdmetrics.io.read_coco` table names (while the frame still has it), else None."""
    roles = ground_truth.attrs.get(COCO_ATTRS)
    if num_keypoints is None and isinstance(roles, Mapping):
        named = roles.get("num_keypoints")
        return named if named in ground_truth.columns else None
    return num_keypoints


def coco_mask_roles(ground_truth: pd.DataFrame, detections: pd.DataFrame, image_sizes):
    """``image_sizes`` and the detections' area column, as tables read by :func:`read_coco` carry them.

    The file's image sizes (its ``images`` entries' ``height`` and ``width``) are used unless
    ``image_sizes`` is given; the area column is the one pycocotools computes for each result.
    """
    roles = ground_truth.attrs.get(COCO_ATTRS)
    if image_sizes is None and isinstance(roles, Mapping) and roles.get("heights"):
        listed = roles.get("images") or ()
        image_sizes = {i: (h, w) for i, h, w in zip(listed, roles["heights"], roles["widths"]) if h and w}
    dt_roles = detections.attrs.get(COCO_ATTRS)
    area = dt_roles.get("area") if isinstance(dt_roles, Mapping) else None
    return image_sizes, area if area in detections.columns else None


def warn_boxes_of_masks(detections: pd.DataFrame) -> None:
    """Warn when boxes are evaluated by default on a result file that holds masks only.

    :func:`pdmetrics.io.read_coco` gives such results their masks' boxes (as pycocotools'
    ``loadRes``), so ``evaluate`` without ``iou_type`` scores boxes, while pycocotools'
    ``COCOeval`` scores masks by default: say which was computed and how to get the other.
    """
    roles = detections.attrs.get(COCO_ATTRS)
    if isinstance(roles, Mapping) and roles.get("boxes_from_masks"):
        emit(
            "These detections come from a COCO result file with masks and no boxes: without "
            "`iou_type=` their boxes (the masks' boxes) are evaluated, as pycocotools' "
            "iouType='bbox'. Pass iou_type='segm' for the mask numbers (what COCOeval computes by "
            "default), or iou_type='bbox' to keep the box numbers without this warning.",
            PdmetricsWarning,
        )


def _empty_masks(table: pd.DataFrame, segmentation) -> pd.DataFrame:
    """An empty table without the segmentation column, given an empty one (a copy)."""
    if len(table) == 0 and isinstance(segmentation, str) and segmentation not in table.columns:
        return table.assign(**{segmentation: pd.Series([], dtype=object)})
    return table


def prepare_boxes(
    detections: pd.DataFrame, ground_truth: pd.DataFrame, columns: BoxColumns, *, partition: bool = False
) -> BoxData:
    """Check the two box tables and convert them to :class:`BoxData`.

    ``partition=True``: the tables are a chunk of larger ones (a dask partition holding every
    box of its images), which may have no ground truth.

    Raises :class:`~pdmetrics.errors.ColumnNotFoundError` for a missing column and
    :class:`~pdmetrics.errors.InvalidInputError` for an empty ground-truth table, missing or
    negative box sizes, missing scores, mixed id types, or a detection on an image that
    is neither in the ground-truth table nor in ``images``.
    """
    (
        image,
        label,
        box,
        score,
        box_format,
        iscrowd,
        area,
        ignore,
        images,
        iou_type,
        segmentation,
        image_sizes,
        dt_area,
        keypoints,
        sigmas,
        num_keypoints,
    ) = (getattr(columns, field.name) for field in fields(BoxColumns))
    if not isinstance(ground_truth, pd.DataFrame):
        raise InvalidInputError(
            f"`ground_truth=` must be a DataFrame with one row per ground-truth box; got "
            f"{type(ground_truth).__name__}."
        )
    if not isinstance(detections, pd.DataFrame):
        raise InvalidInputError(
            f"The detections must be a DataFrame with one row per detected box; got "
            f"{type(detections).__name__}."
        )
    if iou_type is None:
        iou_type = "bbox"
        warn_boxes_of_masks(detections)
    check_choice(iou_type, "iou_type", IOU_TYPES)
    columns = default_box_columns(box, box_format)
    masks = iou_type == "segm"
    poses = iou_type == "keypoints"
    segmentation = "segmentation" if masks and segmentation is None else segmentation
    keypoints = "keypoints" if poses and keypoints is None else keypoints
    if masks or poses:
        argument, shapes = ("segmentation", segmentation) if masks else ("keypoints", keypoints)
        # an empty table has no masks (poses) to read (a COCO file listing images without annotations)
        ground_truth = _empty_masks(ground_truth, shapes)
        detections = _empty_masks(detections, shapes)
        require_columns(ground_truth, argument, shapes)
        require_columns(detections, argument, shapes)
    require_columns(ground_truth, "image", image)
    require_columns(ground_truth, "label", label)
    require_columns(detections, "image", image)
    require_columns(detections, "label", label)
    # with masks, boxes are optional (all four columns, or none: then the masks' boxes)
    gt_has_boxes = not masks or any(c in ground_truth.columns for c in columns)
    dt_has_boxes = not (masks or poses) or any(c in detections.columns for c in columns)
    if gt_has_boxes:
        require_columns(ground_truth, "box", columns)
    if dt_has_boxes:
        require_columns(detections, "box", columns)
    require_columns(detections, "score", score)
    iscrowd, area, images = coco_roles(ground_truth, image, iscrowd, area, images)
    num_keypoints = coco_keypoint_roles(ground_truth, num_keypoints) if poses else None
    # a read_coco result file with masks carries pycocotools' area of each result (boxes too)
    image_sizes, dt_area_column = coco_mask_roles(ground_truth, detections, image_sizes)
    dt_area_column = dt_area_column if dt_area is None else dt_area
    if len(ground_truth) == 0 and images is None and not partition:
        raise InvalidInputError(
            "The ground-truth table is empty: there is nothing to evaluate against. Pass the "
            "ground-truth boxes (or `images=` to evaluate detections on images without objects)."
        )
    extra = None
    if images is not None:
        extra = pd.Series(list(images) if not isinstance(images, pd.Series) else images, name="images")
    (image_ids, (gt_image, dt_image, extra_image)) = _factorize_ids(
        [
            (ground_truth[image], "ground-truth", "gt"),
            (detections[image], "detections", "dt"),
            (extra, "images=", "extra"),
        ],
        "image",
    )
    known = np.zeros(image_ids.size, dtype=bool)
    known[gt_image] = True
    known[extra_image] = True
    unknown = ~known[dt_image]
    if unknown.any():
        example = image_ids[dt_image[np.flatnonzero(unknown)[0]]]
        example = plain(example)
        raise InvalidInputError(
            f"{int(unknown.sum())} detection(s) are on images that are not in the ground-truth "
            f"table (e.g. image {example!r}). If those images really have no objects, list every "
            f"evaluated image with `images=` (for a COCO file, `images=pdmetrics.io.coco_image_ids(...)`, "
            f"or read it with `pdmetrics.io.read_coco`, whose table carries them); otherwise check "
            f"the `image=` ids of both tables."
        )
    label_ids, (gt_label, dt_label) = _factorize_ids(
        [(ground_truth[label], "ground-truth", "gt"), (detections[label], "detections", "dt")], "label"
    )
    gt_boxes = _box_array(ground_truth, columns, "ground-truth", box_format) if gt_has_boxes else None
    dt_boxes = _box_array(detections, columns, "detections", box_format) if dt_has_boxes else None
    gt_masks = dt_masks = gt_keypoints = dt_keypoints = None
    if poses:
        gt_keypoints = keypoint_array(ground_truth[keypoints], "keypoints", "ground-truth")
        dt_keypoints = keypoint_array(detections[keypoints], "keypoints", "detections")
        k = {a.shape[1] for a in (gt_keypoints, dt_keypoints) if a.shape[0]}
        if len(k) > 1:
            raise InvalidInputError(
                f"`keypoints={keypoints!r}` holds {gt_keypoints.shape[1]} keypoints per ground truth but "
                f"{dt_keypoints.shape[1]} per detection; both tables need the same keypoints."
            )
        sigmas = sigma_array(sigmas, next(iter(k), 0))
        k = sigmas.size
        gt_keypoints, dt_keypoints = (
            a if a.shape[0] else np.zeros((0, k, 3)) for a in (gt_keypoints, dt_keypoints)
        )
        if dt_boxes is None:
            dt_boxes = keypoint_extent(dt_keypoints)
            if box_format == "xyxy":
                dt_boxes = np.concatenate([dt_boxes[:, :2], dt_boxes[:, :2] + dt_boxes[:, 2:]], axis=1)
    if masks:
        heights, widths = image_size_arrays(image_ids, image_sizes)
        gt_masks = segmentation_runs(
            ground_truth,
            segmentation,
            "ground-truth",
            image_ids,
            gt_image,
            heights,
            widths,
            gt_boxes,
            box_format,
        )
        dt_masks = segmentation_runs(
            detections, segmentation, "detections", image_ids, dt_image, heights, widths, dt_boxes, box_format
        )
        if gt_boxes is None or dt_boxes is None:
            box_format = "xywh"
            gt_boxes, dt_boxes = mask_bbox(gt_masks), mask_bbox(dt_masks)
    if masks:
        gt_box_area = gt_masks.area().astype("float64")
        dt_area = dt_masks.area().astype("float64")
    elif box_format == "xywh":
        gt_box_area = gt_boxes[:, 2] * gt_boxes[:, 3]
        dt_area = dt_boxes[:, 2] * dt_boxes[:, 3]
    else:
        gt_box_area = (gt_boxes[:, 2] - gt_boxes[:, 0]) * (gt_boxes[:, 3] - gt_boxes[:, 1])
        dt_area = (dt_boxes[:, 2] - dt_boxes[:, 0]) * (dt_boxes[:, 3] - dt_boxes[:, 1])
    if dt_area_column is not None:
        dt_area = _as_float(detections[dt_area_column])
    if area is None:
        gt_area = gt_box_area
    else:
        require_columns(ground_truth, "area", area)
        gt_area = _as_float(ground_truth[area])
        if not (np.isfinite(gt_area) & (gt_area >= 0)).all():  # inf: an OKS of 0/0 with far keypoints
            row = int(np.flatnonzero(~(np.isfinite(gt_area) & (gt_area >= 0)))[0])
            raise InvalidInputError(
                f"`area={area!r}` must hold finite non-negative numbers; row {row} has "
                f"{plain(ground_truth[area].iloc[row])!r}."
            )
    if pd.api.types.is_bool_dtype(detections[score].dtype):
        raise InvalidInputError(
            f"`score={score!r}` is a boolean column; scores must be numbers. If True/False really are "
            f"the scores 1/0, pass `df.assign({score}=df[{score!r}].astype(int))`."
        )
    scores = _as_float(detections[score])
    if not np.isfinite(scores).all():
        row = int(np.flatnonzero(~np.isfinite(scores))[0])
        raise InvalidInputError(
            f"`score={score!r}` must hold finite numbers; row {row} of the detections has "
            f"{plain(detections[score].iloc[row])!r}. Drop or fix such rows first."
        )
    return BoxData(
        images=image_ids,
        labels=label_ids,
        box_format=box_format,
        gt_image=gt_image,
        gt_label=gt_label,
        gt_boxes=gt_boxes,
        gt_area=gt_area,
        gt_crowd=_flag(ground_truth, iscrowd, "iscrowd"),
        gt_ignore=_flag(ground_truth, ignore, "ignore")
        | (_unlabelled(ground_truth, num_keypoints, gt_keypoints) if poses else False),
        dt_image=dt_image,
        dt_label=dt_label,
        dt_boxes=dt_boxes,
        dt_area=dt_area,
        dt_score=scores,
        gt_masks=gt_masks,
        dt_masks=dt_masks,
        gt_keypoints=gt_keypoints,
        dt_keypoints=dt_keypoints,
        sigmas=sigmas if poses else None,
    )


def _unlabelled(ground_truth: pd.DataFrame, num_keypoints, keypoints: np.ndarray) -> np.ndarray:
    """Ground truths without labelled keypoints, which pycocotools ignores: its ``num_keypoints``
    is 0 (the column ``num_keypoints`` names), else no keypoint has ``v > 0``."""
    if num_keypoints is None:
        return ~(keypoints[:, :, 2] > 0).any(axis=1)
    return ~_flag(ground_truth, num_keypoints, "num_keypoints")  # a count, not NaN: 0 is unlabelled
