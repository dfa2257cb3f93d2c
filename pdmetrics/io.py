"""Reading evaluation data from files into tidy DataFrames.

``read_table`` reads one row per response from the file formats RSMTool reads (CSV, TSV,
xlsx, jsonlines, nested jsonlines) and parquet. ``read_coco`` turns COCO annotation and
result files into the two long tables that ``df.detection`` methods take: one row per
ground-truth box and one row per detection.
"""

from __future__ import annotations

import gc
import importlib
import json
import warnings
from contextlib import contextmanager
from itertools import chain
from numbers import Integral, Real
from os import PathLike
from pathlib import Path

import numpy as np
import pandas as pd

from pdmetrics._optional import optional_module
from pdmetrics._validation import plain
from pdmetrics._warnings import emit
from pdmetrics.errors import ExcludedRowsWarning, InvalidInputError

__all__ = ["read_table", "as_text_columns", "TABLE_FORMATS", "read_coco", "coco_image_ids"]

#: File-name extensions ``read_table`` reads, and the format each one means.
TABLE_FORMATS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".xlsx": "xlsx",
    ".jsonlines": "jsonlines",
    ".jsonl": "jsonlines",
    ".parquet": "parquet",
    ".pq": "parquet",
}


def read_table(path, text_columns=()) -> pd.DataFrame:
    """Read a table of responses from a CSV, TSV, xlsx, jsonlines or parquet file.

    The format comes from the file's extension (:data:`TABLE_FORMATS`), as RSMTool reads
    its input files. Nested jsonlines objects are flattened as RSMTool does: a field whose
    values are objects is replaced by one column per key of those objects (deeper levels
    joined with ``"."``).

    Parameters
    ----------
    path : str or path-like
        The file.
    text_columns : sequence of str, default ()
        Columns read as text, as RSMTool reads its id, candidate and subgroup columns: a
        group ``1`` is the label ``"1"``, not the number ``1.0``. Columns absent from the
        file are ignored.

    Returns
    -------
    DataFrame

    Raises
    ------
    InvalidInputError
        The file is missing, empty, unreadable or has an unknown extension.
    MissingDependencyError
        An xlsx file without openpyxl (``pip install "pdmetrics[excel]"``) or a parquet file
        without pyarrow.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from pdmetrics.io import read_table
    >>> with tempfile.TemporaryDirectory() as directory:
    ...     path = pathlib.Path(directory) / "scores.jsonlines"
    ...     _ = path.write_text('{"id": 1, "scores": {"h1": 3, "h2": 4}}\\n'
    ...                         '{"id": 2, "scores": {"h1": 5, "h2": 5}}\\n')
    ...     read_table(path, text_columns=["id"])
      id  h1  h2
    0  1   3   4
    1  2   5   5
    """
    path = Path(path)
    kind = TABLE_FORMATS.get(path.suffix.lower())
    if path.is_dir():
        raise InvalidInputError(
            f"{str(path)!r}: not a file; pass a file ending in {', '.join(TABLE_FORMATS)}."
        )
    if kind is None:
        raise InvalidInputError(
            f"{str(path)!r}: unknown file type {path.suffix!r}; pass a file ending in "
            f"{', '.join(TABLE_FORMATS)}."
        )
    kind = _FORMAT_NAMES.get(kind, kind)
    if not path.exists():
        raise InvalidInputError(f"{str(path)!r}: no such file; pass a {kind} file.")
    text = {name: str for name in text_columns}
    try:
        if kind in ("CSV", "TSV"):
            return _read_delimited(path, "\t" if kind == "TSV" else ",", text)
        if kind == "xlsx":
            optional_module("openpyxl", "excel", "Reading xlsx files")
            return pd.read_excel(path, dtype=text or None)
        if kind == "parquet":
            optional_module("pyarrow", "parquet", "Reading parquet files")
            return as_text_columns(pd.read_parquet(path), text_columns)
        return _read_jsonlines(path, text)
    except pd.errors.EmptyDataError:
        raise InvalidInputError(
            f"{str(path)!r}: the file is empty; pass a {kind} file with a header row."
        ) from None
    except (pd.errors.ParserError, UnicodeDecodeError) as error:
        raise InvalidInputError(
            f"{str(path)!r}: not a readable {kind} file ({str(error).strip()})."
        ) from None


def _read_delimited(path: Path, sep: str, text: dict) -> pd.DataFrame:
    """``pd.read_csv(path, sep=sep, dtype=text or None)``, the same frame, faster.

    pandas reads a column it is told is text about 2.5 times slower than one it finds is
    text (100k distinct response ids: 25 ms more), and a column it finds is text holds the
    same strings. So the file is read as pandas infers it, and only the text columns it read
    otherwise (numbers, booleans, all missing) are read again, as text. A column whose
    chunks pandas infers differently (its ``DtypeWarning``) has the file read as told.
    """
    if not text:
        return pd.read_csv(path, sep=sep)
    with warnings.catch_warnings():
        warnings.simplefilter("error", pd.errors.DtypeWarning)
        try:
            frame = pd.read_csv(path, sep=sep)
        except pd.errors.DtypeWarning:
            frame = None
    if frame is None:
        return pd.read_csv(path, sep=sep, dtype=text)
    again = [name for name in text if name in frame.columns and not _holds_text(frame[name])]
    if again:
        try:
            columns = pd.read_csv(path, sep=sep, usecols=again, dtype=text)
        except ValueError:  # a name pandas made for a repeated column name (x.1): not in the file
            return pd.read_csv(path, sep=sep, dtype=text)
        frame = frame.assign(**{name: columns[name] for name in again})
    return frame


def _holds_text(column: pd.Series) -> bool:
    """Whether a column read from a file is text (strings or missing values) only."""
    if isinstance(column.dtype, pd.StringDtype):
        return True
    return column.dtype == object and pd.api.types.infer_dtype(column, skipna=True) == "string"


def as_text_columns(frame, names):
    """``frame`` (pandas or dask) with the columns ``names`` as text, missing values kept missing.

    That is what ``read_csv(dtype=str)`` gives, so a missing subgroup is "No info" whatever the
    file's format (``astype(str)`` alone would make it the group ``"None"`` or ``"<NA>"`` on
    pandas 2). Columns the frame lacks are skipped.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.io import as_text_columns
    >>> frame = pd.DataFrame({"grade": [6, None]}, dtype=object)
    >>> as_text_columns(frame, ["grade", "other"])["grade"].tolist()
    ['6', nan]
    """
    names = [name for name in names if name in frame.columns]
    if not names:
        return frame
    return frame.assign(**{name: frame[name].astype(str).where(~frame[name].isna()) for name in names})


_FORMAT_NAMES = {"csv": "CSV", "tsv": "TSV"}


def _read_jsonlines(path: Path, text: dict) -> pd.DataFrame:
    """A jsonlines file, one level of nested objects flattened (RSMTool's ``read_jsonlines``)."""
    try:
        frame = pd.read_json(path, orient="records", lines=True, dtype=text or None)
    except ValueError as error:
        raise InvalidInputError(
            f"{str(path)!r}: not a readable jsonlines file (one JSON object per line) ({error})."
        ) from None
    parts = []
    for name in frame.columns:
        column = frame[name]
        nested = column.dtype == object and column.map(lambda value: isinstance(value, dict)).any()
        parts.append(pd.json_normalize(column.tolist()).set_axis(frame.index) if nested else column)
    return pd.concat(parts, axis=1) if parts else frame


GROUND_TRUTH_COLUMNS = ["id", "image", "label", "category", "x", "y", "w", "h", "area", "iscrowd"]
DETECTION_COLUMNS = ["id", "image", "label", "category", "x", "y", "w", "h", "score"]


class _Shared(tuple):
    """A tuple that deep-copies as itself (it is immutable and holds only ids and numbers).

    pandas deep-copies ``DataFrame.attrs`` on most operations on a frame; the file's image list
    and sizes kept there (thousands of values) are then not copied value by value each time.
    """

    __slots__ = ()

    def __deepcopy__(self, memo):
        return self

    def __copy__(self):
        return self

    def __reduce__(self):
        return (_Shared, (tuple(self),))


@contextmanager
def _collector_paused():
    """Python's cycle collector off while a JSON file is parsed (as it was before, after).

    Parsing builds hundreds of thousands of dicts and lists, none of them in a cycle; the
    collector would walk them over and over as they are created (a third of the parsing time
    on COCO files, more when many other objects are alive).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _load(source, what: str):
    if isinstance(source, (dict, list)):
        return source
    if isinstance(source, (str, PathLike)):
        try:
            with open(source, encoding="utf-8") as handle, _collector_paused():
                return json.load(handle)
        except FileNotFoundError:
            raise InvalidInputError(f"{what}: no such file {str(source)!r}.") from None
        except json.JSONDecodeError as error:
            raise InvalidInputError(f"{what}: {str(source)!r} is not valid JSON ({error}).") from None
    raise InvalidInputError(
        f"{what} must be a path to a COCO JSON file or its parsed content; got {type(source).__name__}."
    )


def _entries(content, key: str, what: str) -> list:
    """``content[key]`` as a list of objects (dicts), or an error naming the first bad entry."""
    entries = content[key] if isinstance(content, dict) else content
    if not isinstance(entries, list):
        where = f"'{key}'" if isinstance(content, dict) else "the file"
        raise InvalidInputError(f"{what}: {where} must be a list of objects; got {type(entries).__name__}.")
    bad = next((i for i, entry in enumerate(entries) if not isinstance(entry, dict)), None)
    if bad is not None:
        raise InvalidInputError(
            f"{what}: entry {bad} (0-based) of {key!r} is {_kind(entries[bad])}; every entry must be an "
            f"object such as {{'image_id': 1, 'category_id': 3, 'bbox': [x, y, width, height], ...}}."
        )
    return entries


def _kind(value) -> str:
    """How a JSON value is described in a message."""
    if isinstance(value, dict):
        return "an object (dict)"
    if isinstance(value, list):
        return f"a list of {len(value)} values"
    return f"{value!r} ({type(value).__name__})"


def _bbox_problem(value) -> str | None:
    """Why ``value`` is not a COCO bbox, or None when it is one."""
    if not isinstance(value, (list, tuple)):
        return f"is {_kind(value)}"
    if len(value) != 4:
        return f"has {len(value)} values"
    for item in value:
        if isinstance(item, bool) or not isinstance(item, Real):
            return f"holds {_kind(item)}, which is not a number"
    return None


def _plain_boxes(values: list) -> bool:
    """Every value a list of 4 plain ints/floats (the common case, checked at C speed)."""
    return (
        bool(values)
        and set(map(type, values)) == {list}
        and set(map(len, values)) == {4}
        and set(map(type, chain.from_iterable(values))) <= {int, float}
    )


def _boxes(records: list, what: str, key: str) -> np.ndarray:
    missing = next((i for i, r in enumerate(records) if "bbox" not in r), None)
    if missing is not None:
        raise InvalidInputError(
            f"{what}: entry {missing} (0-based) of {key!r} has no 'bbox'; every entry needs "
            f"'bbox': [x, y, width, height]."
        )
    values = [r["bbox"] for r in records]
    position = (
        None if _plain_boxes(values) else next((i for i, v in enumerate(values) if _bbox_problem(v)), None)
    )
    if position is not None:
        raise InvalidInputError(
            f"{what}: entry {position} (0-based) of {key!r} has a 'bbox' that "
            f"{_bbox_problem(values[position])}; it must be a list of 4 numbers [x, y, width, height]."
        )
    return np.array(values, dtype="float64").reshape(-1, 4)


def _field(records: list, name: str, default=None) -> list:
    return [r.get(name, default) for r in records]


def _number_field(
    records: list, name: str, default, dtype: str, what: str, key: str, *, finite: bool = False
) -> np.ndarray:
    """A numeric field of every record (``default`` when absent) as an array, or a clear error.

    ``default=None`` makes the field required; ``finite=True`` refuses NaN and infinities.
    """
    if default is None:
        missing = next((i for i, r in enumerate(records) if name not in r), None)
        if missing is not None:
            raise InvalidInputError(
                f"{what}: entry {missing} (0-based) of {key!r} has no {name!r}; every entry needs a "
                f"numeric {name!r}."
            )
    values = _field(records, name, default)
    plain_types = {int, float, type(None)} if dtype == "float64" else {int}
    position = (
        None
        if set(map(type, values)) <= plain_types
        else next((i for i, v in enumerate(values) if not _number(v, dtype)), None)
    )
    if position is not None:
        raise InvalidInputError(
            f"{what}: entry {position} (0-based) of {key!r} has {name!r} = {_kind(values[position])}; "
            f"it must be a number."
        )
    array = np.array(values, dtype=dtype)
    if finite and array.size and not np.isfinite(array).all():
        position = int(np.flatnonzero(~np.isfinite(array))[0])
        raise InvalidInputError(
            f"{what}: entry {position} (0-based) of {key!r} has {name!r} = {plain(array[position])}; "
            f"it must be a finite number."
        )
    return array


def _number(value, dtype: str) -> bool:
    """A JSON number for ``dtype`` (null reads as NaN in a float field; true/false only in an int one)."""
    if dtype == "float64":
        return value is None or (isinstance(value, Real) and not isinstance(value, bool))
    return isinstance(value, Real) and float(value) == int(value)


def _id_field(records: list, name: str, what: str, key: str) -> list:
    values = _field(records, name)
    position = (
        None
        if set(map(type, values)) <= {int, str}
        else next(
            (i for i, v in enumerate(values) if isinstance(v, bool) or not isinstance(v, (Integral, str))),
            None,
        )
    )
    if position is not None:
        problem = f"no {name!r}" if values[position] is None else f"{name!r} = {_kind(values[position])}"
        raise InvalidInputError(
            f"{what}: entry {position} (0-based) of {key!r} has {problem}; every entry needs an "
            f"integer or string {name!r}."
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
        One row per annotation: ``id, image, label, category, x, y, w, h, area, iscrowd``
        (plus ``ignore`` when the file has that field). ``label`` is the ``category_id``,
        ``category`` its name from the file's ``categories`` (the id as a string when the
        file names none). ``area`` is the file's ``area`` (the mask area for COCO), which is
        what COCO's area ranges use; ``w * h`` when absent. ``segmentation`` (polygons or
        RLE dicts, as the file holds them) when the file has segmentations (an empty
        ``segmentation`` column when it has no annotation, so that ``iou_type="segm"``
        evaluates it as well). ``keypoints`` and ``num_keypoints`` when the file has keypoints
        (``num_keypoints`` counted from ``v > 0`` where an annotation has none).
    detections : DataFrame
        One row per result: ``id, image, label, category, x, y, w, h, score`` (``id``
        numbers the results from 1 in file order, as pycocotools does). Results with a
        ``segmentation`` add ``area`` and ``segmentation`` as pycocotools' ``loadRes`` sets
        them: a file whose first result has no ``bbox`` gets each mask's box and area, else
        the area is ``w * h`` (what pycocotools uses for area ranges, also with
        ``iou_type="segm"``). An empty result file gives an empty ``segmentation``
        column too. Results with ``keypoints`` keep them; a file whose first result has no
        ``bbox`` (nor ``segmentation``) gives each result its keypoints' extent as box (and
        ``w * h`` as area), as pycocotools' ``loadRes`` does.

    Notes
    -----
    ``ground_truth.attrs["pdmetrics.coco"]`` records what pycocotools uses beyond the
    boxes: the file's image list (images without annotations included), their sizes
    (``height``/``width``, where polygons are drawn) and the crowd and area columns (and the
    ``num_keypoints`` column, the categories' keypoint names ``keypoint_names`` and
    ``skeleton``, ``{category id: list}``, for keypoint files).
    ``df.detection`` methods use them when ``images=``, ``iscrowd=``, ``area=`` and
    ``image_sizes=`` are not given, so ``dt.detection.evaluate(ground_truth=gt)`` alone
    gives pycocotools' 12 numbers (``iou_type="segm"`` for the masks). Pass
    ``label="category"`` for tables by category name. A table built by hand has no such
    record and uses the arguments given.

    As pycocotools evaluates only the images and categories an annotation file lists,
    annotations and results whose ``image_id`` is not in ``images`` or whose
    ``category_id`` is not in ``categories`` are left out, with an
    :class:`~pdmetrics.ExcludedRowsWarning` that counts them (pycocotools refuses a result
    file with such images). A file without an ``images`` (or ``categories``) list, or whose
    listed ids and annotation ids mix strings and numbers, keeps every annotation.

    Examples
    --------
    >>> from pdmetrics.io import read_coco
    >>> gt, dt = read_coco(
    ...     {"images": [{"id": 1}], "categories": [{"id": 3}],
    ...      "annotations": [{"id": 7, "image_id": 1, "category_id": 3, "bbox": [0, 0, 10, 10],
    ...                       "area": 90.0, "iscrowd": 0}]},
    ...     [{"image_id": 1, "category_id": 3, "bbox": [1, 1, 10, 10], "score": 0.9}])
    >>> gt[["image", "label", "category", "w", "area"]]
       image  label category     w  area
    0      1      3        3  10.0  90.0
    >>> dt[["id", "label", "score"]]
       id  label  score
    0   1      3    0.9
    """
    content = _load(annotations_json, "annotations_json")
    if not isinstance(content, dict) or "annotations" not in content:
        raise InvalidInputError("annotations_json must be a COCO annotation file with an 'annotations' list.")
    what, key = "annotations_json", "annotations"
    annotations = _entries(content, key, what)
    names = _category_names(content)
    images = _image_ids(content) if "images" in content else None
    heights, widths = _image_sizes(content) if images is not None else ((), ())
    boxes = _boxes(annotations, what, key)
    width, height = boxes[:, 2], boxes[:, 3]
    area = _number_field(annotations, "area", np.nan, "float64", what, key)
    area = np.where(np.isnan(area), width * height, area)
    labels = _id_field(annotations, "category_id", what, key)
    ground_truth = pd.DataFrame(
        {
            "id": _field(annotations, "id"),
            "image": _id_field(annotations, "image_id", what, key),
            "label": labels,
            "category": _names_of(labels, names),
            "x": boxes[:, 0],
            "y": boxes[:, 1],
            "w": width,
            "h": height,
            "area": area,
            "iscrowd": _number_field(annotations, "iscrowd", 0, "int64", what, key),
        },
        columns=GROUND_TRUTH_COLUMNS,
    )
    if any("ignore" in a for a in annotations):
        ground_truth["ignore"] = _number_field(annotations, "ignore", 0, "int64", what, key)
    if not annotations or any("segmentation" in a for a in annotations):
        # an empty table can hold masks: iou_type="segm" then evaluates it too
        ground_truth["segmentation"] = pd.Series(_field(annotations, "segmentation"), dtype=object)
    poses = any("keypoints" in a for a in annotations)
    if poses:
        ground_truth["keypoints"] = pd.Series(_field(annotations, "keypoints"), dtype=object)
        ground_truth["num_keypoints"] = _keypoint_counts(annotations, what, key)
    coco_attrs = importlib.import_module("pdmetrics.detection.options").COCO_ATTRS  # on first use
    ground_truth.attrs[coco_attrs] = {
        "images": None if images is None else _Shared(images),
        "iscrowd": "iscrowd",
        "area": "area",
        "heights": _Shared(heights),
        "widths": _Shared(widths),
        **({"num_keypoints": "num_keypoints"} if poses else {}),
        **_skeletons(content),
    }
    if results_json is None:
        results, rkey = [], "results"
    else:
        results = _load(results_json, "results_json")
        rkey = "annotations" if isinstance(results, dict) and "annotations" in results else "results"
        if isinstance(results, dict) and rkey != "annotations":
            raise InvalidInputError(
                "results_json must be a COCO result file: a list of detections; got an object without "
                "an 'annotations' list."
            )
        results = _entries(results, rkey, "results_json")
    segmentations = det_keypoints = None
    if any("segmentation" in r for r in results):
        segmentations = pd.Series(_field(results, "segmentation"), dtype=object)
    if any("keypoints" in r for r in results):
        det_keypoints = pd.Series(_field(results, "keypoints"), dtype=object)
    det_images = _id_field(results, "image_id", "results_json", rkey)
    det_labels = _id_field(results, "category_id", "results_json", rkey)
    gt_listed = _listed(ground_truth["image"], ground_truth["label"], images, content)
    dt_listed = _listed(
        pd.Series(det_images, dtype=object), pd.Series(det_labels, dtype=object), images, content
    )
    _warn_unlisted(gt_listed, dt_listed)
    if segmentations is not None and not results[0].get("bbox"):
        # pycocotools' loadRes: results without boxes get their mask's box and area (results
        # left out for an unlisted image or category need none)
        det_boxes, det_area = _mask_boxes(
            results, segmentations, images, heights, widths, keep=dt_listed.all(axis=1).to_numpy()
        )
    elif det_keypoints is not None and not results[0].get("bbox"):
        # pycocotools' loadRes: keypoint results without boxes get their keypoints' extent
        oks = importlib.import_module("pdmetrics.detection.oks")
        try:
            det_boxes = oks.keypoint_extent(oks.keypoint_array(det_keypoints, "keypoints", "results"))
        except InvalidInputError as error:
            raise InvalidInputError(f"results_json: {error}") from None
        det_area = det_boxes[:, 2] * det_boxes[:, 3]
    else:
        det_boxes = _boxes(results, "results_json", rkey)
        det_area = det_boxes[:, 2] * det_boxes[:, 3]
    det_scores = _number_field(results, "score", None, "float64", "results_json", rkey, finite=True)
    detections = pd.DataFrame(
        {
            "id": np.arange(1, len(results) + 1, dtype="int64"),
            "image": det_images,
            "label": det_labels,
            "category": _names_of(det_labels, names),
            "x": det_boxes[:, 0],
            "y": det_boxes[:, 1],
            "w": det_boxes[:, 2],
            "h": det_boxes[:, 3],
            "score": det_scores,
        },
        columns=DETECTION_COLUMNS,
    )
    if segmentations is not None:
        detections["area"] = det_area
        detections["segmentation"] = segmentations
        detections.attrs[coco_attrs] = {"area": "area", "boxes_from_masks": not results[0].get("bbox")}
    if det_keypoints is not None:
        detections["keypoints"] = det_keypoints
    if results_json is not None and not results:
        # an empty result file can be evaluated with iou_type="segm" (no masks to read)
        detections["segmentation"] = pd.Series([], dtype=object)
    return _listed_rows(ground_truth, gt_listed), _listed_rows(detections, dt_listed)


def _listed(images: pd.Series, labels: pd.Series, listed_images, content: dict) -> pd.DataFrame:
    """Whether each annotation's image is in the file's ``images`` and its category in ``categories``.

    pycocotools evaluates only the listed images and categories; a file without ``images`` (or
    ``categories``) leaves every annotation in, and so does a file mixing string and number
    ids for them (evaluating it then says so).
    """
    categories = content.get("categories")
    listed_labels = None
    if isinstance(categories, list):
        listed_labels = [c["id"] for c in categories if isinstance(c, dict) and "id" in c]
    return pd.DataFrame(
        {"image": _is_listed(images, listed_images), "category": _is_listed(labels, listed_labels)},
        index=images.index,
    )


def _is_listed(ids: pd.Series, listed) -> np.ndarray | bool:
    if listed is None:
        return True
    if not all(isinstance(v, (str, Real)) for v in listed):
        return True
    if len({isinstance(v, str) for v in chain(listed, ids.unique().tolist())}) > 1:
        return True
    return ids.isin(listed).to_numpy()


def _warn_unlisted(gt_listed: pd.DataFrame, dt_listed: pd.DataFrame) -> None:
    """One warning counting the annotations and results left out for an unlisted image or category."""
    parts = []
    for listed, what in ((gt_listed, "ground-truth annotations"), (dt_listed, "results")):
        on_image = int((~listed["image"]).sum())
        on_category = int((listed["image"] & ~listed["category"]).sum())
        if on_image or on_category:
            parts.append(
                f"{on_image + on_category:,} of {len(listed):,} {what} ({on_image:,} on an image_id not in "
                f"'images', {on_category:,} more on a category_id not in 'categories')"
            )
    if parts:
        emit(
            f"read_coco left out {' and '.join(parts)}: pycocotools evaluates only the images and "
            f"categories the annotation file lists. List them there to evaluate them.",
            ExcludedRowsWarning,
        )


def _listed_rows(table: pd.DataFrame, listed: pd.DataFrame) -> pd.DataFrame:
    keep = listed.all(axis=1).to_numpy()
    if keep.all():
        return table
    kept = table[keep].reset_index(drop=True)
    kept.attrs = table.attrs
    return kept


def _image_sizes(content: dict) -> tuple[tuple, tuple]:
    """Each listed image's ``height`` and ``width`` (0 when the file gives none).

    A size that is given must be a positive whole number of pixels, and an image listed twice
    must have one size: otherwise the error names the image, the entry and the value.
    """
    images = content["images"]
    sizes = {}
    for name in ("height", "width"):
        values = [image.get(name) for image in images]
        position = next((i for i, v in enumerate(values) if v is not None and not _pixels(v)), None)
        if position is not None:
            raise InvalidInputError(
                f"annotations_json: image {plain(images[position]['id'])!r} (entry {position} (0-based) of "
                f"'images') has {name!r} = {_kind(values[position])}, which is not a positive whole number "
                f"of pixels; give its {name} as a number such as 480, or leave it out when unknown."
            )
        sizes[name] = [0 if v is None else int(v) for v in values]
    _listed_once(images, sizes["height"], sizes["width"])
    return tuple(sizes["height"]), tuple(sizes["width"])


def _pixels(value) -> bool:
    """A JSON number that is a whole number of pixels, at least 1 (60 or 60.0; not "60", -60, 60.5)."""
    return (
        isinstance(value, Real)
        and not isinstance(value, bool)
        and bool(np.isfinite(value))
        and value >= 1
        and float(value) == int(value)
    )


def _listed_once(images: list, heights: list, widths: list) -> None:
    """Refuse an image listed twice with two sizes (the same size twice is harmless)."""
    ids = [image["id"] for image in images]
    try:
        table = pd.DataFrame({"id": ids, "height": heights, "width": widths})
        twice = table.drop_duplicates()["id"].duplicated(keep=False)
    except TypeError:  # unhashable ids: evaluating says so
        return
    if twice.any():
        rows = table[twice.reindex(table.index, fill_value=False)]
        first = rows["id"].iloc[0]
        same = rows[rows["id"] == first]
        shown = " and ".join(
            f"{h} x {w} (entry {i})" for i, h, w in zip(same.index, same["height"], same["width"])
        )
        raise InvalidInputError(
            f"annotations_json: image {plain(first)!r} is listed twice in 'images' with two sizes "
            f"(height x width {shown}); list each image once, with its size."
        )


def _mask_boxes(results: list, segmentations: pd.Series, images, heights, widths, keep: np.ndarray):
    """Box and area of each result from its segmentation (``pycocotools`` ``toBbox`` and ``area``).

    A polygon left out for an unlisted image (``keep`` False) is drawn on a 1 x 1 image: its box
    and area are dropped with it, and its entry is still checked.
    """
    missing = np.flatnonzero(segmentations.isna().to_numpy())
    if missing.size:
        raise InvalidInputError(
            f"results_json: entry {int(missing[0])} (0-based) has neither a 'bbox' nor a 'segmentation'; "
            f"in a result file without boxes every entry needs its 'segmentation'."
        )
    # the mask kernels load on first use: `import pdmetrics` stays light
    masks = importlib.import_module("pdmetrics.detection.masks")
    mask_inputs = importlib.import_module("pdmetrics.detection.mask_inputs")
    image_ids = pd.Series(_field(results, "image_id"))
    sizes = None if images is None else {i: (h, w) for i, h, w in zip(images, heights, widths) if h and w}
    h, w = mask_inputs.image_size_arrays(image_ids.to_numpy(), sizes)
    cells = segmentations.tolist()
    try:
        if (h == 0).any():
            # polygons need their image's size; RLEs carry theirs
            own = np.array(
                [c.get("size", (0, 0)) if isinstance(c, dict) else (0, 0) for c in cells], dtype="int64"
            ).reshape(-1, 2)
            unknown = h == 0
            h, w = np.where(unknown, own[:, 0], h), np.where(unknown, own[:, 1], w)
            h, w = np.where((h == 0) & ~keep, 1, h), np.where((w == 0) & ~keep, 1, w)
            if (h == 0).any():
                row = int(np.flatnonzero(h == 0)[0])
                raise InvalidInputError(
                    f"entry {row} (0-based) is a polygon on image {plain(image_ids[row])!r}, which has no "
                    f"'height'/'width' in the annotation file's 'images'; a polygon is drawn on its image."
                )
        runs = masks.shared_mask_runs(cells, h, w)
        return masks.mask_bbox(runs), runs.area().astype("float64")
    except InvalidInputError as error:
        raise InvalidInputError(f"results_json: {error}") from None


def _keypoint_counts(annotations: list, what: str, key: str) -> np.ndarray:
    """Each annotation's ``num_keypoints``; where absent, its keypoints with ``v > 0``."""
    counts = _number_field(annotations, "num_keypoints", -1, "int64", what, key)
    for row in np.flatnonzero(counts < 0):
        cell = annotations[row].get("keypoints")
        counts[row] = int((np.asarray(cell if cell is not None else [], dtype="float64")[2::3] > 0).sum())
    return counts


def _skeletons(content: dict) -> dict:
    """The categories' keypoint names and skeletons (``{category id: ...}``), where the file has them."""
    categories = content.get("categories") or []
    found = {}
    for field, name in (("keypoints", "keypoint_names"), ("skeleton", "skeleton")):
        values = {
            c["id"]: list(c[field]) for c in categories if isinstance(c, dict) and "id" in c and c.get(field)
        }
        if values:
            found[name] = values
    return found


def _category_names(content: dict) -> dict:
    """``{category id: name}`` from the file's ``categories`` (ids without a name map to nothing)."""
    categories = content.get("categories") or []
    if not isinstance(categories, list):
        return {}
    return {c["id"]: str(c["name"]) for c in categories if isinstance(c, dict) and "id" in c and "name" in c}


def _names_of(labels: list, names: dict) -> pd.Series:
    """The category name of each label id; the id as a string when the file names no such category."""
    return pd.Series([names.get(label, str(label)) for label in labels], dtype=object)


def _image_ids(content: dict) -> list:
    images = content["images"]
    if not isinstance(images, list):
        raise InvalidInputError(
            f"annotations_json: 'images' must be a list of objects; got {type(images).__name__}."
        )
    position = next(
        (i for i, image in enumerate(images) if not isinstance(image, dict) or "id" not in image), None
    )
    if position is not None:
        raise InvalidInputError(
            f"annotations_json: entry {position} (0-based) of 'images' is {_kind(images[position])} "
            f"without an 'id'; every image needs one."
        )
    return [image["id"] for image in images]


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
    return _image_ids(content)
