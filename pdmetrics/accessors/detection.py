"""The ``df.detection`` accessor: each method one line over its public core function."""

from __future__ import annotations

from pdmetrics.accessors.base import Accessor, method, namespace


class DetectionAccessor(Accessor):
    """Detection and classification metrics on a DataFrame: ``df.detection.<method>(...)``.

    The accessor holds only the DataFrame; every method returns a new DataFrame and
    leaves the caller's frame unchanged.

    Object-detection methods are called on the detections table (one row per detected
    box) with the ground-truth table passed as ``ground_truth=`` (on dask a dask or a pandas
    DataFrame); see :func:`pdmetrics.detection.evaluate` for the shared arguments.
    """

    _domain = "detection"

    plot = namespace(
        """Figures: ``df.detection.plot.<name>(...)`` computes a table and draws it (matplotlib).

        The methods (``pr_curve``, ``operating_points``, ``average_precision``, ``errors``, ``confusion``,
        ``classification_confusion``, ``roc_curve``, ``classification_pr_curve``, ``segmentation``,
        ``masks``, ``skeletons``) are those of :class:`pdmetrics.plotting.detection.DetectionPlots`;
        each returns the matplotlib Axes.
        """,
    )

    # object detection
    evaluate = method("pdmetrics.detection.evaluation")
    average_precision = method("pdmetrics.detection.evaluation")
    average_recall = method("pdmetrics.detection.evaluation")
    match = method("pdmetrics.detection.evaluation")
    compare = method("pdmetrics.detection.comparison")
    pr_curve = method("pdmetrics.detection.curves")
    confusion = method("pdmetrics.detection.box_confusion")
    operating_points = method("pdmetrics.detection.operating")
    per_image = method("pdmetrics.detection.image_results")
    errors = method("pdmetrics.detection.error_types")
    keypoint_similarity = method("pdmetrics.detection.joints")
    # classification and segmentation
    classification = method("pdmetrics.detection.label_tables")
    segmentation = method("pdmetrics.detection.semantic")
