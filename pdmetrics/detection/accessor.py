"""The ``df.detection`` accessor."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdmetrics._validation import numeric_values, require_columns
from pdmetrics.detection import confusion, curves, evaluation
from pdmetrics.errors import InvalidInputError


@pd.api.extensions.register_dataframe_accessor("detection")
class DetectionAccessor:
    """Detection and classification metrics on a DataFrame: ``df.detection.<method>(...)``.

    The accessor holds only the DataFrame; every method returns a new DataFrame and
    leaves the caller's frame unchanged.

    Object-detection methods are called on the detections table (one row per detected
    box) with the ground-truth table passed as ``ground_truth=``; see
    :func:`pdmetrics.detection.evaluate` for the shared arguments.
    """

    def __init__(self, frame: pd.DataFrame) -> None:
        self._frame = frame

    # ------------------------------------------------------------------------------
    # object detection
    # ------------------------------------------------------------------------------
    def evaluate(
        self,
        *,
        ground_truth: pd.DataFrame,
        image="image",
        label="label",
        box=None,
        score="score",
        box_format: str = "xywh",
        iscrowd=None,
        area=None,
        ignore=None,
        images=None,
        iou_thresholds=None,
        max_dets=(1, 10, 100),
        area_ranges=None,
        matching: str = "coco",
        interpolation: str = "coco",
        labels_without_ground_truth: str = "exclude",
    ) -> pd.DataFrame:
        """The 12 COCO summary numbers; see :func:`pdmetrics.detection.evaluate`.

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> gt = pd.DataFrame({"image": [1, 2], "label": [0, 0], "x": [0, 5], "y": [0, 5],
        ...                    "w": [20, 20], "h": [20, 20]})
        >>> dt = pd.DataFrame({"image": [1, 2], "label": [0, 0], "x": [1, 5], "y": [0, 5],
        ...                    "w": [20, 20], "h": [20, 20], "score": [0.9, 0.4]})
        >>> dt.detection.evaluate(ground_truth=gt, area_ranges={"all": (0, 1e10)}).round(3)
          metric        iou area  max_dets  value
        0     AP  0.50:0.95  all       100  0.925
        1     AP       0.50  all       100  1.000
        2     AP       0.75  all       100  1.000
        3     AR  0.50:0.95  all         1  0.950
        4     AR  0.50:0.95  all        10  0.950
        5     AR  0.50:0.95  all       100  0.950
        """
        return evaluation.evaluate(
            self._frame,
            ground_truth,
            image=image,
            label=label,
            box=box,
            score=score,
            box_format=box_format,
            iscrowd=iscrowd,
            area=area,
            ignore=ignore,
            images=images,
            iou_thresholds=iou_thresholds,
            max_dets=max_dets,
            area_ranges=area_ranges,
            matching=matching,
            interpolation=interpolation,
            labels_without_ground_truth=labels_without_ground_truth,
        )

    def average_precision(
        self,
        *,
        ground_truth: pd.DataFrame,
        image="image",
        label="label",
        box=None,
        score="score",
        box_format: str = "xywh",
        iscrowd=None,
        area=None,
        ignore=None,
        images=None,
        iou_thresholds=None,
        max_dets=100,
        area_ranges=None,
        matching: str = "coco",
        interpolation: str = "coco",
        labels_without_ground_truth: str = "exclude",
        by="label",
    ) -> pd.DataFrame:
        """AP per label and IoU threshold plus the mean over labels (mAP, row ``(all)``); see
        :func:`pdmetrics.detection.average_precision`.

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> gt = pd.DataFrame({"image": [1, 2], "label": [0, 0], "x": [0, 5], "y": [0, 5],
        ...                    "w": [20, 20], "h": [20, 20]})
        >>> dt = pd.DataFrame({"image": [1, 2], "label": [0, 0], "x": [1, 5], "y": [0, 5],
        ...                    "w": [20, 20], "h": [20, 20], "score": [0.9, 0.4]})
        >>> table = dt.detection.average_precision(ground_truth=gt, area_ranges={"all": (0, 1e10)})
        >>> table[["label", "area", "N", "n_detections", "AP", "AP@0.50"]].round(3)
          label area  N  n_detections     AP  AP@0.50
        0     0  all  2             2  0.925      1.0
        1  (all)  all  2             2  0.925      1.0
        """
        return evaluation.average_precision(
            self._frame,
            ground_truth,
            image=image,
            label=label,
            box=box,
            score=score,
            box_format=box_format,
            iscrowd=iscrowd,
            area=area,
            ignore=ignore,
            images=images,
            iou_thresholds=iou_thresholds,
            max_dets=max_dets,
            area_ranges=area_ranges,
            matching=matching,
            interpolation=interpolation,
            labels_without_ground_truth=labels_without_ground_truth,
            by=by,
        )

    def average_recall(
        self,
        *,
        ground_truth: pd.DataFrame,
        image="image",
        label="label",
        box=None,
        score="score",
        box_format: str = "xywh",
        iscrowd=None,
        area=None,
        ignore=None,
        images=None,
        iou_thresholds=None,
        max_dets=100,
        area_ranges=None,
        matching: str = "coco",
        score_threshold=None,
        labels_without_ground_truth: str = "exclude",
        by="label",
    ) -> pd.DataFrame:
        """Recall per label and IoU threshold plus the mean over labels (mAR, row ``(all)``); see
        :func:`pdmetrics.detection.average_recall`.

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> gt = pd.DataFrame({"image": [1, 2], "label": [0, 0], "x": [0, 5], "y": [0, 5],
        ...                    "w": [20, 20], "h": [20, 20]})
        >>> dt = pd.DataFrame({"image": [1, 2], "label": [0, 0], "x": [1, 5], "y": [0, 5],
        ...                    "w": [20, 20], "h": [20, 20], "score": [0.9, 0.4]})
        >>> table = dt.detection.average_recall(ground_truth=gt, area_ranges={"all": (0, 1e10)})
        >>> table[["label", "area", "N", "n_detections", "AR", "AR@0.50"]].round(3)
          label area  N  n_detections    AR  AR@0.50
        0     0  all  2             2  0.95      1.0
        1  (all)  all  2             2  0.95      1.0
        """
        return evaluation.average_recall(
            self._frame,
            ground_truth,
            image=image,
            label=label,
            box=box,
            score=score,
            box_format=box_format,
            iscrowd=iscrowd,
            area=area,
            ignore=ignore,
            images=images,
            iou_thresholds=iou_thresholds,
            max_dets=max_dets,
            area_ranges=area_ranges,
            matching=matching,
            score_threshold=score_threshold,
            labels_without_ground_truth=labels_without_ground_truth,
            by=by,
        )

    def match(
        self,
        *,
        ground_truth: pd.DataFrame,
        image="image",
        label="label",
        box=None,
        score="score",
        box_format: str = "xywh",
        iscrowd=None,
        area=None,
        ignore=None,
        images=None,
        iou_thresholds=None,
        max_dets=100,
        area_range=(0.0, 1e10),
        matching: str = "coco",
    ) -> pd.DataFrame:
        """One row per detection and IoU threshold with its match; see
        :func:`pdmetrics.detection.match`.

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> gt = pd.DataFrame({"image": [1, 2], "label": [0, 0], "x": [0, 5], "y": [0, 5],
        ...                    "w": [20, 20], "h": [20, 20]})
        >>> dt = pd.DataFrame({"image": [1, 2], "label": [0, 0], "x": [1, 5], "y": [0, 5],
        ...                    "w": [20, 20], "h": [20, 20], "score": [0.9, 0.4]})
        >>> matches = dt.detection.match(ground_truth=gt, iou_thresholds=[0.5, 0.95])
        >>> matches[["image", "score", "iou_threshold", "ground_truth", "iou", "tp"]].round(3)
           image  score  iou_threshold  ground_truth    iou     tp
        0      1    0.9           0.50             0  0.905   True
        1      2    0.4           0.50             1  1.000   True
        2      1    0.9           0.95            -1    NaN  False
        3      2    0.4           0.95             1  1.000   True
        """
        return evaluation.match(
            self._frame,
            ground_truth,
            image=image,
            label=label,
            box=box,
            score=score,
            box_format=box_format,
            iscrowd=iscrowd,
            area=area,
            ignore=ignore,
            images=images,
            iou_thresholds=iou_thresholds,
            max_dets=max_dets,
            area_range=area_range,
            matching=matching,
        )

    def pr_curve(
        self,
        *,
        ground_truth: pd.DataFrame,
        image="image",
        label="label",
        box=None,
        score="score",
        box_format: str = "xywh",
        iscrowd=None,
        area=None,
        ignore=None,
        images=None,
        style: str = "coco",
        iou_thresholds=None,
        max_dets=100,
        area_range=(0.0, 1e10),
        matching: str = "coco",
        interpolation: str = "coco",
        score_thresholds=None,
        labels_without_ground_truth: str = "exclude",
        zero_division="warn",
    ) -> pd.DataFrame:
        """Precision-recall curves (COCO's 101 points or valor's score thresholds); see
        :func:`pdmetrics.detection.pr_curve`.

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> gt = pd.DataFrame({"image": [1, 2], "label": [0, 0], "x": [0, 5], "y": [0, 5],
        ...                    "w": [20, 20], "h": [20, 20]})
        >>> dt = pd.DataFrame({"image": [1, 2], "label": [0, 0], "x": [1, 5], "y": [0, 5],
        ...                    "w": [20, 20], "h": [20, 20], "score": [0.9, 0.4]})
        >>> curve = dt.detection.pr_curve(ground_truth=gt, iou_thresholds=[0.5])
        >>> curve.shape
        (101, 5)
        >>> curve.head(2)
           label  iou  recall  precision  score
        0      0  0.5    0.00        1.0    0.9
        1      0  0.5    0.01        1.0    0.9
        """
        return curves.pr_curve(
            self._frame,
            ground_truth,
            image=image,
            label=label,
            box=box,
            score=score,
            box_format=box_format,
            iscrowd=iscrowd,
            area=area,
            ignore=ignore,
            images=images,
            style=style,
            iou_thresholds=iou_thresholds,
            max_dets=max_dets,
            area_range=area_range,
            matching=matching,
            interpolation=interpolation,
            score_thresholds=score_thresholds,
            labels_without_ground_truth=labels_without_ground_truth,
            zero_division=zero_division,
        )

    def confusion(
        self,
        *,
        ground_truth: pd.DataFrame,
        image="image",
        label="label",
        box=None,
        score="score",
        box_format: str = "xywh",
        images=None,
        kind: str = "breakdown",
        iou_threshold: float = 0.5,
        score_thresholds=None,
        max_examples: int = 1,
    ) -> pd.DataFrame:
        """valor's detailed error breakdown or the label x label matrix; see
        :func:`pdmetrics.detection.detection_confusion`.

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> gt = pd.DataFrame({"image": [1, 2], "label": [0, 0], "x": [0, 5], "y": [0, 5],
        ...                    "w": [20, 20], "h": [20, 20]})
        >>> dt = pd.DataFrame({"image": [1, 2], "label": [0, 0], "x": [1, 5], "y": [0, 5],
        ...                    "w": [20, 20], "h": [20, 20], "score": [0.9, 0.4]})
        >>> dt.detection.confusion(ground_truth=gt, kind="matrix")
           label  score_threshold  0  unmatched_predictions  unmatched_ground_truths
        0      0              0.5  1                      0                        1
        """
        return confusion.detection_confusion(
            self._frame,
            ground_truth,
            image=image,
            label=label,
            box=box,
            score=score,
            box_format=box_format,
            images=images,
            kind=kind,
            iou_threshold=iou_threshold,
            score_thresholds=score_thresholds,
            max_examples=max_examples,
        )

    # classification and segmentation
    def classification(
        self,
        *,
        truth,
        score,
        label=None,
        datum=None,
        table: str = "labels",
        score_thresholds=None,
        hardmax: bool | None = None,
        zero_division="warn",
        max_examples: int = 1,
    ) -> pd.DataFrame:
        """Classification metrics as valor-lite computes them, as a tidy table.

        Two layouts are accepted. *Long*: one row per datum and candidate label, with
        ``label=`` (the candidate), ``score=`` (one column), ``datum=`` (the datum id) and
        ``truth=`` (the datum's true label, repeated on its rows). *Wide*: one row per
        datum, ``score=`` a list of score columns whose names are the labels, ``truth=``
        the true label (``label=`` not given; ``datum=`` optional, default the row
        position); a missing score means the label is not a candidate for that row.

        Parameters
        ----------
        truth, score, label, datum : column names
            See above.
        table : {"labels", "summary", "roc_curve", "pr_curve", "errors", "confusion"}
            ``"labels"``: per label and threshold ``label, score_threshold, N, tp, fp, fn,
            tn, precision, recall, f1, roc_auc``
            (:func:`~pdmetrics.detection.classification_metrics`); ``"summary"``: per
            threshold ``score_threshold, N, accuracy, mean_roc_auc``
            (:func:`~pdmetrics.detection.classification_summary`); ``"roc_curve"``:
            :func:`~pdmetrics.detection.roc_curve`; ``"pr_curve"``:
            :func:`~pdmetrics.detection.classification_pr_curve`; ``"errors"``:
            :func:`~pdmetrics.detection.classification_errors`; ``"confusion"``:
            :func:`~pdmetrics.detection.classification_confusion`.
        score_thresholds : float or sequence, optional
            Default ``[0.0]`` (valor's) for ``labels``, ``summary`` and ``confusion``;
            0.05, 0.10, ..., 0.95 for ``pr_curve`` and ``errors``.
        hardmax : bool, optional
            Default True for ``labels``, ``summary`` and ``confusion`` (valor's default),
            False for ``pr_curve`` and ``errors`` (valor's curves treat each label as its
            own binary problem).
        zero_division : "warn" or float, default "warn"
            Value of 0/0 ratios: NaN with a warning, or a number (valor: 0).
        max_examples : int, default 1
            Example datum ids per row of the ``errors`` and ``confusion`` tables.

        Returns
        -------
        DataFrame
            A new table (see ``table``); the caller's frame is not changed.

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> df = pd.DataFrame({"truth": ["cat", "dog", "dog"], "cat": [0.8, 0.3, 0.6],
        ...                    "dog": [0.2, 0.7, 0.4]})
        >>> df.detection.classification(truth="truth", score=["cat", "dog"]).round(3)
          label  score_threshold  N  tp  fp  fn  tn  precision  recall   f1  roc_auc
        0   cat              0.0  1   1   1   0   1        0.5     1.0  0.667      1.0
        1   dog              0.0  2   1   0   1   1        1.0     0.5  0.667      1.0
        """
        from pdmetrics.detection import classification as core

        tables = ("labels", "summary", "roc_curve", "pr_curve", "errors", "confusion")
        if table not in tables:
            raise InvalidInputError(f"table={table!r} is not a classification table; use one of {tables}.")
        truth_v, label_v, score_v, datum_v = _classification_arrays(self._frame, truth, score, label, datum)
        curve = table in ("pr_curve", "errors")
        if score_thresholds is None:
            score_thresholds = core.DEFAULT_CURVE_THRESHOLDS if curve else (0.0,)
        if hardmax is None:
            hardmax = not curve
        if not isinstance(hardmax, (bool, np.bool_)):
            raise InvalidInputError(
                f"hardmax={hardmax!r}: pass True (one prediction per datum, valor's "
                f"default) or False (every label scored above the threshold)."
            )
        args = (truth_v, label_v, score_v, datum_v)
        if table == "labels":
            return core.classification_metrics(
                *args, score_thresholds=score_thresholds, hardmax=hardmax, zero_division=zero_division
            )
        if table == "summary":
            return core.classification_summary(
                *args, score_thresholds=score_thresholds, hardmax=hardmax, zero_division=zero_division
            )
        if table == "roc_curve":
            return core.roc_curve(*args)
        if table == "pr_curve":
            return core.classification_pr_curve(
                *args, score_thresholds=score_thresholds, hardmax=hardmax, zero_division=zero_division
            )
        if table == "errors":
            return core.classification_errors(
                *args, score_thresholds=score_thresholds, hardmax=hardmax, max_examples=max_examples
            )
        return core.classification_confusion(
            *args, score_thresholds=score_thresholds, hardmax=hardmax, max_examples=max_examples
        )

    def segmentation(
        self,
        *,
        truth,
        prediction,
        background: int | None = None,
        ignore_index: int | None = None,
        labels=None,
        table: str = "labels",
        zero_division="warn",
    ) -> pd.DataFrame:
        """Semantic segmentation IoU from one pixel confusion matrix over all images.

        Each cell of the ``truth`` and ``prediction`` columns holds a 2-D integer array of
        class labels (one row per image; shapes must agree row by row).

        Parameters
        ----------
        truth, prediction : column names
        background : int, optional
            Value of unlabeled pixels: counted (a class predicted on background is a false
            positive, background predicted on a class a false negative) but not reported
            and not in the mean IoU, as valor treats pixels without a label. Default: every
            value, 0 included, is a class.
        ignore_index : int, optional
            Pixels whose truth has this value are removed (e.g. 255).
        labels : sequence of int, optional
            Classes to report (default: every value present except ``background``).
        table : {"labels", "summary", "confusion"}
            ``"labels"``: :func:`~pdmetrics.detection.segmentation_iou` (``label, N, tp,
            fp, fn, iou, precision, recall, f1``); ``"summary"``:
            :func:`~pdmetrics.detection.segmentation_summary` (``N, n_classes,
            pixel_accuracy, mean_iou``); ``"confusion"``:
            :func:`~pdmetrics.detection.pixel_confusion_matrix`.
        zero_division : "warn" or float, default "warn"

        Returns
        -------
        DataFrame

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> masks = pd.DataFrame({"gt": [np.array([[0, 1], [1, 1]]), np.array([[2, 2], [0, 0]])],
        ...                       "pred": [np.array([[0, 1], [0, 1]]), np.array([[2, 2], [2, 0]])]})
        >>> masks.detection.segmentation(truth="gt", prediction="pred", background=0).round(3)
           label  N  tp  fp  fn    iou  precision  recall   f1
        0      1  3   2   0   1  0.667      1.000   0.667  0.8
        1      2  2   2   1   0  0.667      0.667   1.000  0.8
        """
        from pdmetrics.detection import segmentation as core

        tables = ("labels", "summary", "confusion")
        if table not in tables:
            raise InvalidInputError(f"table={table!r} is not a segmentation table; use one of {tables}.")
        require_columns(self._frame, "truth", truth)
        require_columns(self._frame, "prediction", prediction)
        truth_masks, prediction_masks = self._frame[truth], self._frame[prediction]
        if table == "confusion":
            return core.pixel_confusion_matrix(truth_masks, prediction_masks, ignore_index=ignore_index)
        function = core.segmentation_iou if table == "labels" else core.segmentation_summary
        return function(
            truth_masks,
            prediction_masks,
            background=background,
            ignore_index=ignore_index,
            labels=labels,
            zero_division=zero_division,
        )


def _wide_scores(series: pd.Series) -> np.ndarray:
    """One wide score column as floats: missing means "not a candidate"; text or inf is an error."""
    values = numeric_values(series, "score")
    bad = ~np.isfinite(values) & series.notna().to_numpy()
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InvalidInputError(
            f"`score=` column {series.name!r} holds {series.iloc[row]!r} (row {row}), not a finite number; "
            f"leave a cell missing (NaN) when the label is not a candidate, otherwise give a number."
        )
    return values


def _classification_arrays(frame: pd.DataFrame, truth, score, label, datum):
    """Long (truth, label, score, datum) arrays from the long or the wide layout."""
    require_columns(frame, "truth", truth)
    if label is not None:
        if not isinstance(score, (str, int)) and not (isinstance(score, list) and len(score) == 1):
            raise InvalidInputError(
                "With `label=` (long layout) pass one score column as `score=`; "
                "for one score column per class leave `label=` out (wide layout)."
            )
        score = score[0] if isinstance(score, list) else score
        require_columns(frame, "label", label)
        require_columns(frame, "score", score)
        if datum is None:
            raise InvalidInputError(
                "The long layout (one row per datum and candidate label) needs `datum=`: "
                "the column that says which rows belong to the same datum."
            )
        require_columns(frame, "datum", datum)
        return frame[truth], frame[label], numeric_values(frame[score], "score"), frame[datum]
    columns = require_columns(frame, "score", score)
    if datum is not None:
        require_columns(frame, "datum", datum)
    n, k = len(frame), len(columns)
    matrix = np.column_stack([_wide_scores(frame[c]) for c in columns]) if n else np.zeros((0, k))
    keep = np.isfinite(matrix).reshape(-1)
    # categoricals: the core factorizes their codes instead of a million Python objects
    datum_codes = np.repeat(np.arange(n), k)[keep]
    datum_names = frame[datum].to_numpy(dtype=object) if datum is not None else np.arange(n)
    truth_codes, truth_names = pd.factorize(frame[truth].to_numpy(dtype=object), use_na_sentinel=True)
    truth_long = pd.Categorical.from_codes(
        np.repeat(truth_codes, k)[keep], pd.Index(np.asarray(truth_names, dtype=object))
    )
    label_long = pd.Categorical.from_codes(
        np.tile(np.arange(k), n)[keep], pd.Index(pd.Series(columns, dtype=object))
    )
    if datum is not None and pd.Index(datum_names).has_duplicates:
        datum_long = np.repeat(datum_names, k)[keep]
    else:
        datum_long = pd.Categorical.from_codes(datum_codes, pd.Index(pd.Series(datum_names, dtype=object)))
    return truth_long, label_long, matrix.reshape(-1)[keep], datum_long
