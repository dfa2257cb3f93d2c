"""Semantic segmentation: per-class IoU from one pixel confusion matrix.

Each image is a 2-D integer array of class labels (one per pixel) for the truth and one
for the prediction. All pixels of all images go into one confusion matrix with a single
``np.bincount`` of ``truth * n + prediction``; every metric is a ratio of its cells:

* ``tp`` = pixels of class ``c`` predicted ``c`` (the diagonal), ``fp`` = pixels predicted
  ``c`` whose truth is another value, ``fn`` = pixels of truth ``c`` predicted otherwise;
* ``iou = tp / (tp + fp + fn)`` (intersection over union of the two pixel sets), and
  ``precision``, ``recall``, ``f1`` from the same counts; the mean IoU averages ``iou``
  over the reported classes (valor's ``mIOU``).

Background: ``background=`` names the value of unlabeled pixels (valor's "no label"). Those
pixels stay in the matrix (predicting ``c`` on background is a false positive of ``c``,
predicting background on ``c`` a false negative of ``c``, background predicted as
background counts towards pixel accuracy) but background is not a class: it has no row
and is left out of the mean IoU. ``ignore_index=`` (e.g. 255) instead removes the pixels
whose truth has that value altogether, as mmsegmentation and torchmetrics do.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial, wraps

import numpy as np
import pandas as pd

from pdmetrics._division import WARN, check_zero_division, divide
from pdmetrics._docstrings import fill
from pdmetrics._table_spec import Table, table
from pdmetrics._tables import result_table
from pdmetrics._validation import plain, require_columns
from pdmetrics._warnings import warn_undefined
from pdmetrics.errors import InvalidInputError

__all__ = [
    "segmentation",
    "pixel_confusion_matrix",
    "segmentation_iou",
    "mean_iou",
    "PixelConfusion",
    "pixel_state",
    "pixel_confusion_from_state",
    "segmentation_from_state",
    "check_segmentation_options",
]

TABLES = ("labels", "summary", "confusion")

_DENSE_SPAN = 2048  # label ranges up to this width use a dense bincount


def _images(values, argument: str) -> list[np.ndarray]:
    if isinstance(values, pd.Series):
        values = values.tolist()
    elif isinstance(values, np.ndarray) and values.ndim == 2 and values.dtype != object:
        values = [values]
    images = []
    for position, image in enumerate(values):
        array = np.asarray(image)
        if array.ndim != 2:
            raise InvalidInputError(
                f"`{argument}` entry {position} has shape {array.shape}; each image must "
                f"be a 2-D array of integer class labels."
            )
        if array.dtype.kind not in "iub":
            if (
                array.dtype.kind == "f"
                and array.size
                and np.all(np.isfinite(array))
                and np.all(array == np.round(array))
            ):
                array = array.astype("int64")
            elif array.size:
                raise InvalidInputError(
                    f"`{argument}` entry {position} holds {array.dtype} values; class labels must be "
                    f"integers. Convert the mask, e.g. `mask.astype(int)` (after filling missing pixels)."
                )
            else:
                array = array.astype("int64")
        images.append(array)
    return images


def _pixels(y_true, y_pred, ignore_index):
    truth_images = _images(y_true, "y_true")
    prediction_images = _images(y_pred, "y_pred")
    if len(truth_images) != len(prediction_images):
        raise InvalidInputError(
            f"`y_true` has {len(truth_images)} images but `y_pred` has "
            f"{len(prediction_images)}; pass one prediction per image."
        )
    for position, (t, p) in enumerate(zip(truth_images, prediction_images)):
        if t.shape != p.shape:
            raise InvalidInputError(
                f"Image {position}: y_true has shape {t.shape} but y_pred {p.shape}; "
                f"resize the prediction to the truth's shape first."
            )
    if truth_images:
        # native dtypes (e.g. uint8/uint16 masks) until the bincount key is built
        t = np.concatenate([image.reshape(-1) for image in truth_images])
        p = np.concatenate([image.reshape(-1) for image in prediction_images])
        if t.dtype.kind == "b" or p.dtype.kind == "b":
            t, p = t.astype("int64"), p.astype("int64")
    else:
        t = p = np.zeros(0, dtype="int64")
    if ignore_index is not None:
        keep = t != ignore_index
        t, p = t[keep], p[keep]
    return t, p


def _class_list(labels) -> np.ndarray | None:
    """``labels=`` as an int64 array of distinct class values (None: every class present)."""
    if labels is None:
        return None
    if isinstance(labels, (str, bytes, dict)) or np.isscalar(labels):
        raise InvalidInputError(
            f"`labels={plain(labels)!r}` must be a list of integer class values, e.g. `labels=[1, 2, 3]`."
        )
    values = list(labels)
    bad = [v for v in values if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer))]
    if bad:
        raise InvalidInputError(
            f"`labels=` holds {plain(bad[0])!r}, not an integer class value; pass the mask values to "
            f"report, e.g. `labels=[1, 2, 3]`."
        )
    array = np.asarray(values, dtype="int64")
    if np.unique(array).size != array.size:
        raise InvalidInputError(
            f"`labels=` lists a class twice ({[plain(v) for v in values]}); list each once."
        )
    return array


def _check_index(value, argument: str):
    if value is not None and (
        isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer))
    ):
        raise InvalidInputError(f"`{argument}={plain(value)!r}` must be an integer mask value or None.")
    return value


def _confusion(t: np.ndarray, p: np.ndarray, labels=None) -> tuple[np.ndarray, np.ndarray]:
    """Confusion counts over the values present (plus ``labels``), as (matrix, values)."""
    extra = np.asarray([] if labels is None else list(labels), dtype="int64")
    if t.size == 0:
        values = np.unique(extra)
        return np.zeros((values.size, values.size), dtype="int64"), values
    low = int(min(t.min(), p.min(), extra.min(initial=t.min())))
    high = int(max(t.max(), p.max(), extra.max(initial=t.max())))
    span = high - low + 1
    if span <= _DENSE_SPAN:
        key = t.astype("int64")
        key -= low
        key *= span
        key += p
        key -= low
        full = np.bincount(key, minlength=span * span).reshape(span, span)
        present = (full.sum(axis=0) + full.sum(axis=1)) > 0
        present[extra - low] = True
        values = np.flatnonzero(present) + low
        return full[np.ix_(present, present)], values
    values, inverse = np.unique(
        np.concatenate([t.astype("int64"), p.astype("int64"), extra]), return_inverse=True
    )
    n = values.size
    codes_t, codes_p = inverse[: t.size], inverse[t.size : t.size + p.size]
    return np.bincount(codes_t * n + codes_p, minlength=n * n).reshape(n, n), values


def pixel_confusion_matrix(y_true, y_pred, ignore_index: int | None = None) -> pd.DataFrame:
    """Pixel counts of every (true value, predicted value) pair over all images.

    Parameters
    ----------
    y_true, y_pred : sequence of 2-D int arrays (or one 2-D array)
        Class label per pixel; image ``i`` of ``y_pred`` must have the shape of image
        ``i`` of ``y_true``.
    ignore_index : int, optional
        Pixels whose truth has this value are left out.

    Returns
    -------
    DataFrame
        ``truth, prediction, count``: one row per pair of values present, zero cells
        included, truth-major.

    Examples
    --------
    >>> import numpy as np
    >>> from pdmetrics.detection import pixel_confusion_matrix
    >>> pixel_confusion_matrix(np.array([[0, 1], [1, 1]]), np.array([[0, 1], [0, 1]]))
       truth  prediction  count
    0      0           0      1
    1      0           1      0
    2      1           0      1
    3      1           1      2
    """
    _check_index(ignore_index, "ignore_index")
    return pixel_confusion_from_state(pixel_state(y_true, y_pred, ignore_index))


def pixel_confusion_from_state(state: PixelConfusion) -> pd.DataFrame:
    """The long ``truth, prediction, count`` table of a (combined) pixel confusion state."""
    matrix, values = state.matrix, state.values
    n = values.size
    return result_table(
        {"truth": np.repeat(values, n), "prediction": np.tile(values, n), "count": matrix.reshape(-1)},
        integer_columns=("truth", "prediction", "count"),
    )


@dataclass(frozen=True)
class PixelConfusion:
    """The additive state of the segmentation tables: pixel counts of every (truth value,
    predicted value) pair over the mask values present (sorted ``values``)."""

    values: np.ndarray
    matrix: np.ndarray

    def combine(self, *others: PixelConfusion) -> PixelConfusion:
        """The counts of all the chunks, aligned on the mask values."""
        states = (self, *others)
        values = np.unique(np.concatenate([s.values for s in states]))
        matrix = np.zeros((values.size, values.size), dtype="int64")
        for s in states:
            at = np.searchsorted(values, s.values)
            matrix[np.ix_(at, at)] += s.matrix
        return PixelConfusion(values, matrix)


def pixel_state(y_true, y_pred, ignore_index=None) -> PixelConfusion:
    """The chunk step: the pixel confusion counts of some images."""
    t, p = _pixels(y_true, y_pred, ignore_index)
    matrix, values = _confusion(t, p)
    return PixelConfusion(values.astype("int64"), matrix.astype("int64"))


def _class_table(y_true, y_pred, background, ignore_index, labels, zero_division):
    _check_index(background, "background")
    _check_index(ignore_index, "ignore_index")
    labels = _class_list(labels)
    zero_division = check_zero_division(zero_division)
    return _class_table_from(pixel_state(y_true, y_pred, ignore_index), background, labels, zero_division)


def _class_table_from(state: PixelConfusion, background, labels, zero_division):
    if labels is not None:  # the listed classes have a row even without pixels
        listed = np.unique(labels)
        state = state.combine(PixelConfusion(listed, np.zeros((listed.size, listed.size), dtype="int64")))
    matrix, values = state.matrix, state.values
    row, col, diag = matrix.sum(axis=1), matrix.sum(axis=0), np.diag(matrix)
    if labels is None:
        report = values != background if background is not None else np.ones(values.size, bool)
        chosen = np.flatnonzero(report)
    else:
        chosen = np.searchsorted(values, labels)
    tp = diag[chosen]
    fp = col[chosen] - tp
    fn = row[chosen] - tp
    table = result_table(
        {
            "label": values[chosen],
            "N": row[chosen],
            "tp": tp,
            "fp": fp,
            "fn": fn,
            "iou": divide(
                tp, tp + fp + fn, zero_division, what="IoU (a class absent from truth and prediction)"
            ),
            "precision": divide(tp, tp + fp, zero_division, what="precision (a class never predicted)"),
            "recall": divide(tp, tp + fn, zero_division, what="recall (a class absent from the truth)"),
            "f1": divide(
                2 * tp, 2 * tp + fp + fn, zero_division, what="F1 (a class absent from truth and prediction)"
            ),
        },
        integer_columns=("label", "N", "tp", "fp", "fn"),
    )
    return table, int(np.trace(matrix)), int(matrix.sum()), zero_division


def _mean_iou(table: pd.DataFrame, zero_division) -> float:
    """Mean of the defined IoUs; with no class to average, ``zero_division`` (valor: 0)."""
    iou = table["iou"].to_numpy()
    defined = iou[~np.isnan(iou)]
    if defined.size:
        return float(defined.mean())
    if zero_division == WARN:
        warn_undefined(
            "Mean IoU is undefined: no class has a defined IoU (no foreground in truth or prediction); "
            "returning NaN. Pass `zero_division=0` (valor's value) or another number to report it instead."
        )
        return float("nan")
    return float(zero_division)


#: The options of :func:`segmentation_iou` and :func:`mean_iou` (after ``y_true, y_pred``): their
#: defaults and annotations.
_CLASS_OPTIONS = {"background": None, "ignore_index": None, "labels": None, "zero_division": "warn"}
_CLASS_ANNOTATIONS = {"background": "int | None", "ignore_index": "int | None"}
#: The masks of the examples of :func:`segmentation_iou` and :func:`mean_iou`.
_EXAMPLE_MASKS = """
>>> import numpy as np
>>> truth = np.array([[0, 0, 1], [0, 1, 1], [2, 2, 2]])
>>> pred = np.array([[0, 1, 1], [0, 1, 1], [2, 2, 0]])
"""


def _class_arguments(builder: Callable) -> Callable:
    """``builder(table, zero_division)`` as a function of the masks and the class options,
    written once: its signature is ``y_true, y_pred`` and :data:`_CLASS_OPTIONS`, and a call
    gives the builder the per-class table of its arguments and the checked ``zero_division``."""
    positional, empty = inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.empty
    parameters = [inspect.Parameter("y_true", positional), inspect.Parameter("y_pred", positional)]
    for name, default in _CLASS_OPTIONS.items():
        annotation = _CLASS_ANNOTATIONS.get(name, empty)
        parameters.append(inspect.Parameter(name, positional, default=default, annotation=annotation))
    signature = inspect.signature(builder).replace(parameters=parameters)

    @wraps(builder)
    def public(*arguments, **options):
        bound = signature.bind(*arguments, **options)
        bound.apply_defaults()
        table, _, _, zero_division = _class_table(**bound.arguments)
        return builder(table, zero_division)

    public.__signature__ = signature
    del public.__wrapped__
    return public


@_class_arguments
@fill(example_masks=_EXAMPLE_MASKS)
def segmentation_iou(table: pd.DataFrame, zero_division) -> pd.DataFrame:
    """Per-class IoU, precision, recall and F1 of semantic segmentation masks.

    Parameters
    ----------
    y_true, y_pred : sequence of 2-D int arrays (or one 2-D array)
        Class label per pixel, one array per image (shapes must agree image by image).
    background : int, optional
        Value of unlabeled pixels: kept in the pixel counts (so it adds false positives
        and false negatives to the classes) but not reported as a class nor averaged in
        the mean IoU (valor's handling of pixels without a label). Default: every value,
        0 included, is a class.
    ignore_index : int, optional
        Pixels whose truth has this value are removed before counting (e.g. 255).
    labels : sequence of int, optional
        Classes to report, in this order; by default every value present in the truth or
        the prediction (except ``background``), sorted.
    zero_division : "warn" or float, default "warn"
        Value for a class with no pixel in either mask (0/0): NaN with a warning, or a
        number (valor: 0).

    Returns
    -------
    DataFrame
        ``label, N, tp, fp, fn, iou, precision, recall, f1``, ``N`` the class's truth
        pixels, ``iou = tp / (tp + fp + fn)``.

    Examples
    --------
    {example_masks}
    >>> from pdmetrics.detection import segmentation_iou
    >>> segmentation_iou(truth, pred).round(3)
       label  N  tp  fp  fn    iou  precision  recall     f1
    0      0  3   2   1   1  0.500      0.667   0.667  0.667
    1      1  3   3   1   0  0.750      0.750   1.000  0.857
    2      2  3   2   0   1  0.667      1.000   0.667  0.800
    >>> segmentation_iou(truth, pred, background=0)["label"].tolist()
    [1, 2]
    """
    return table


@_class_arguments
@fill(example_masks=_EXAMPLE_MASKS)
def mean_iou(table: pd.DataFrame, zero_division) -> float:
    """Mean of the per-class IoUs of :func:`segmentation_iou` (valor's ``mIOU``).

    Classes whose IoU is undefined (NaN, ``zero_division="warn"``) are left out of the
    mean. With no class left (e.g. no foreground pixel in truth or prediction with
    ``background=0``) the mean is undefined: NaN with a warning by default, or
    ``zero_division`` (valor-lite reports 0 there: pass ``zero_division=0``).

    Examples
    --------
    {example_masks}
    >>> from pdmetrics.detection import mean_iou
    >>> round(mean_iou(truth, pred), 4)
    0.6389
    >>> round(mean_iou(truth, pred, background=0), 4)
    0.7083
    """
    return _mean_iou(table, zero_division)


@table
def segmentation(
    frame: pd.DataFrame,
    *,
    y_true,
    y_pred,
    background: int | None = None,
    ignore_index: int | None = None,
    labels=None,
    table: str = "labels",
    zero_division="warn",
) -> pd.DataFrame:
    """Semantic segmentation IoU from one pixel confusion matrix over all images.

    Each cell of the ``y_true`` and ``y_pred`` columns holds a 2-D integer array of class
    labels (one row per image; shapes must agree row by row).

    Parameters
    ----------
    frame : DataFrame
    y_true, y_pred : column names
    background : int, optional
        Value of unlabeled pixels: counted (a class predicted on background is a false
        positive, background predicted on a class a false negative) but not reported
        and not in the mean IoU, as valor treats pixels without a label. Default: every
        value, 0 included, is a class.
    ignore_index : int, optional
        Pixels whose truth has this value are removed (e.g. 255).
    labels : sequence of int, optional
        Classes to report, in this order (default: every value present except ``background``).
    table : {"labels", "summary", "confusion"}
        ``"labels"``: :func:`segmentation_iou` (``label, N, tp, fp, fn, iou, precision,
        recall, f1``); ``"summary"``: one row ``N, n_classes, pixel_accuracy, mean_iou``
        (``N`` pixels counted, ``n_classes`` classes reported, ``pixel_accuracy`` the share
        of pixels, background included, whose prediction equals the truth (valor's
        ``Accuracy``), ``mean_iou`` as :func:`mean_iou`); ``"confusion"``:
        :func:`pixel_confusion_matrix`.
    zero_division : "warn" or float, default "warn"
        Value of an undefined ratio: the IoU of a class with no pixel in either mask, the
        mean IoU when no class is reported (e.g. an image without foreground), the pixel
        accuracy without pixels. ``"warn"``: NaN with a warning (the documented
        definition: 0/0 is undefined); a number is used silently (valor-lite reports 0:
        ``zero_division=0`` gives valor's numbers).

    Returns
    -------
    DataFrame

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from pdmetrics.detection import segmentation
    >>> masks = pd.DataFrame({"gt": [np.array([[0, 0, 1], [0, 1, 1], [2, 2, 2]])],
    ...                       "pred": [np.array([[0, 1, 1], [0, 1, 1], [2, 2, 0]])]})
    >>> segmentation(masks, y_true="gt", y_pred="pred", background=0, table="summary").round(4)
       N  n_classes  pixel_accuracy  mean_iou
    0  9          2          0.7778    0.7083
    """
    check_segmentation_options(background, ignore_index, labels, table, zero_division)
    names = {
        argument: require_columns(frame, argument, given)
        for argument, given in (("y_true", y_true), ("y_pred", y_pred))
    }
    for argument, name in ((argument, name) for argument, found in names.items() for name in found):
        dtype = frame.dtypes[name]
        if pd.api.types.is_string_dtype(dtype) and not pd.api.types.is_object_dtype(dtype):
            raise InvalidInputError(
                f"`{argument}={name!r}` holds text (dtype {dtype}), not mask arrays. On dask, the "
                f"'dataframe.convert-string' option turns a column of arrays into strings: make the frame "
                f"with `dask.config.set({{'dataframe.convert-string': False}})` in effect."
            )
    finalize = partial(
        segmentation_from_state,
        background=background,
        labels=labels,
        table=table,
        zero_division=zero_division,
    )
    return Table(
        [*names["y_true"], *names["y_pred"]], partial(_pixel_chunk, y_true, y_pred, ignore_index), finalize
    )


def _pixel_chunk(y_true, y_pred, ignore_index, part: pd.DataFrame) -> PixelConfusion:
    return pixel_state(part[y_true], part[y_pred], ignore_index)


def check_segmentation_options(background, ignore_index, labels, table: str, zero_division) -> None:
    """Check the options of :func:`segmentation` (before any pixel is read)."""
    if table not in TABLES:
        raise InvalidInputError(f"`table={table!r}` is not a segmentation table; use one of {TABLES}.")
    check_zero_division(zero_division)
    _check_index(background, "background")
    _check_index(ignore_index, "ignore_index")
    _class_list(labels)


def segmentation_from_state(
    state: PixelConfusion, *, background=None, labels=None, table: str = "labels", zero_division="warn"
) -> pd.DataFrame:
    """The finalize step of :func:`segmentation`: its table from the (combined) pixel counts."""
    if table == "confusion":
        return pixel_confusion_from_state(state)
    classes, n_correct, n_pixels, zero_division = _class_table_from(
        state, background, _class_list(labels), check_zero_division(zero_division)
    )
    if table == "labels":
        return classes
    accuracy = float(divide(n_correct, n_pixels, zero_division, what="pixel accuracy (no pixels)"))
    return result_table(
        {
            "N": [n_pixels],
            "n_classes": [len(classes)],
            "pixel_accuracy": [accuracy],
            "mean_iou": [_mean_iou(classes, zero_division)],
        },
        integer_columns=("N", "n_classes"),
    )
