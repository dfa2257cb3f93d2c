"""The ``df.detection`` accessor."""

from __future__ import annotations

import pandas as pd

from pdmetrics import detection

# packages, not modules: their modules load on first use (pdmetrics._lazy), not with `import pdmetrics`
from pdmetrics._renamed import renamed
from pdmetrics.accessors.base import Accessor, namespace


class DetectionAccessor(Accessor):
    """Detection and classification metrics on a DataFrame: ``df.detection.<method>(...)``.

    The accessor holds only the DataFrame; every method returns a new DataFrame and
    leaves the caller's frame unchanged.

    Object-detection methods are called on the detections table (one row per detected
    box) with the ground-truth table passed as ``ground_truth=``; see
    :func:`pdmetrics.detection.evaluate` for the shared arguments.
    """

    _domain = "detection"

    plot = namespace(
        "pdmetrics.plotting.detection",
        "DetectionPlots",
        """Figures: ``df.detection.plot.<name>(...)`` computes a table and draws it (matplotlib).

        The methods (``pr_curve``, ``average_precision``, ``confusion``,
        ``classification_confusion``, ``roc_curve``, ``classification_pr_curve``,
        ``segmentation``) are those of :class:`pdmetrics.plotting.detection.DetectionPlots`;
        each returns the matplotlib Axes.
        """,
    )

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
        iou_type: str | None = None,
        segmentation=None,
        image_sizes=None,
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
        return detection.evaluation.evaluate(
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
            iou_type=iou_type,
            segmentation=segmentation,
            image_sizes=image_sizes,
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
        iou_type: str | None = None,
        segmentation=None,
        image_sizes=None,
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
        return detection.evaluation.average_precision(
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
            iou_type=iou_type,
            segmentation=segmentation,
            image_sizes=image_sizes,
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
        iou_type: str | None = None,
        segmentation=None,
        image_sizes=None,
        iou_thresholds=None,
        max_dets=100,
        area_ranges=None,
        matching: str = "coco",
        score_threshold=None,
        labels_without_ground_truth: str = "exclude",
        by="label",
    ) -> pd.DataFrame:
        """Recall per label and IoU threshold plus the mean over labels (mAR, row ``(all)``); see
        :func:`pdmetrics.detection.average_recall`. ``score_threshold`` takes one number or,
        as valor's ``score_thresholds``, a list (one row per label and threshold).

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
        return detection.evaluation.average_recall(
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
            iou_type=iou_type,
            segmentation=segmentation,
            image_sizes=image_sizes,
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
        iou_type: str | None = None,
        segmentation=None,
        image_sizes=None,
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
        return detection.evaluation.match(
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
            iou_type=iou_type,
            segmentation=segmentation,
            image_sizes=image_sizes,
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
        iou_type: str | None = None,
        segmentation=None,
        image_sizes=None,
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
        return detection.curves.pr_curve(
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
            iou_type=iou_type,
            segmentation=segmentation,
            image_sizes=image_sizes,
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

    @renamed("kind")
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
        iou_type: str | None = None,
        segmentation=None,
        image_sizes=None,
        table: str = "breakdown",
        iou_threshold: float = 0.5,
        score_thresholds=None,
        max_examples: int | None = None,
    ) -> pd.DataFrame:
        """valor's detailed error breakdown or the label x label matrix; see
        :func:`pdmetrics.detection.confusion`.

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> gt = pd.DataFrame({"image": [1, 2], "label": [0, 0], "x": [0, 5], "y": [0, 5],
        ...                    "w": [20, 20], "h": [20, 20]})
        >>> dt = pd.DataFrame({"image": [1, 2], "label": [0, 0], "x": [1, 5], "y": [0, 5],
        ...                    "w": [20, 20], "h": [20, 20], "score": [0.9, 0.4]})
        >>> dt.detection.confusion(ground_truth=gt, table="matrix")
           score_threshold truth prediction  count
        0              0.5     0          0      1
        1              0.5     0       None      1
        2              0.5  None          0      0
        """
        return detection.box_confusion.confusion(
            self._frame,
            ground_truth,
            image=image,
            label=label,
            box=box,
            score=score,
            box_format=box_format,
            images=images,
            iou_type=iou_type,
            segmentation=segmentation,
            image_sizes=image_sizes,
            table=table,
            iou_threshold=iou_threshold,
            score_thresholds=score_thresholds,
            max_examples=max_examples,
        )

    # classification and segmentation
    def classification(
        self,
        *,
        y_true,
        score,
        label=None,
        datum=None,
        table: str = "labels",
        score_thresholds=None,
        hardmax: bool | None = None,
        zero_division="warn",
        max_examples: int = 1,
        labels=None,
        top_prediction: str = "filtered",
    ) -> pd.DataFrame:
        """Classification metrics as valor-lite computes them, as a tidy table; see
        :func:`pdmetrics.detection.classification`. ``labels=`` evaluates only some labels;
        ``top_prediction="original"`` keeps each datum's top prediction from before that
        filter (valor's filter).

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> df = pd.DataFrame({"truth": ["cat", "dog", "dog"], "cat": [0.8, 0.3, 0.6],
        ...                    "dog": [0.2, 0.7, 0.4]})
        >>> df.detection.classification(y_true="truth", score=["cat", "dog"]).round(3)
          label  score_threshold  N  tp  fp  fn  tn  precision  recall     f1  roc_auc
        0   cat              0.0  1   1   1   0   1        0.5     1.0  0.667      1.0
        1   dog              0.0  2   1   0   1   1        1.0     0.5  0.667      1.0
        """
        return detection.label_tables.classification(
            self._frame,
            y_true=y_true,
            score=score,
            label=label,
            datum=datum,
            table=table,
            score_thresholds=score_thresholds,
            hardmax=hardmax,
            zero_division=zero_division,
            max_examples=max_examples,
            labels=labels,
            top_prediction=top_prediction,
        )

    def segmentation(
        self,
        *,
        y_true,
        y_pred,
        background: int | None = None,
        ignore_index: int | None = None,
        labels=None,
        table: str = "labels",
        zero_division="warn",
    ) -> pd.DataFrame:
        """Semantic segmentation IoU from one pixel confusion matrix over all images; see
        :func:`pdmetrics.detection.segmentation`.

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> masks = pd.DataFrame({"gt": [np.array([[0, 1], [1, 1]]), np.array([[2, 2], [0, 0]])],
        ...                       "pred": [np.array([[0, 1], [0, 1]]), np.array([[2, 2], [2, 0]])]})
        >>> masks.detection.segmentation(y_true="gt", y_pred="pred", background=0).round(3)
           label  N  tp  fp  fn    iou  precision  recall   f1
        0      1  3   2   0   1  0.667      1.000   0.667  0.8
        1      2  2   2   1   0  0.667      0.667   1.000  0.8
        """
        return detection.semantic.segmentation(
            self._frame,
            y_true=y_true,
            y_pred=y_pred,
            background=background,
            ignore_index=ignore_index,
            labels=labels,
            table=table,
            zero_division=zero_division,
        )


#: The classes registered on dask and polars frames while these methods do not run through specs.
ENGINES = {
    "dask": "pdmetrics._dask.detection:DaskDetectionAccessor",
    "polars": "pdmetrics.engines.polars:forwarding_class",
}
