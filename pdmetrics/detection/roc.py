"""One-vs-rest ROC curves and ROC AUC of classification scores (valor-lite's ``ROCAUC``).

For label ``L`` the datums whose truth is ``L`` are the positives, all other datums the
negatives, and ``L``'s score ranks them. Every distinct score is a threshold (tied scores
form one point), the curve runs from (0, 0) to (1, 1) and its area is the trapezoid rule,
computed on integer counts and divided once.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdmetrics._division import WARN, check_zero_division, divide
from pdmetrics._tables import result_table
from pdmetrics._validation import as_float_array
from pdmetrics._warnings import warn_undefined
from pdmetrics.detection.label_pairs import Pairs, prepare_pairs
from pdmetrics.errors import InvalidInputError

__all__ = ["binary_roc_auc", "roc_curve", "roc_auc", "mean_roc_auc"]


def score_histogram(label: np.ndarray, score: np.ndarray, positive: np.ndarray, negative: np.ndarray):
    """Per distinct (label, score): the ``positive`` and ``negative`` weights summed.

    Entries come sorted by label, then decreasing score: each one is a point of the label's
    ROC curve (tied scores form one point). Histograms of parts of the data concatenated and
    passed through again give the histogram of the whole data.
    """
    order = np.lexsort((-score, label))
    label, score, positive, negative = label[order], score[order], positive[order], negative[order]
    if label.size == 0:
        return label, score, positive, negative
    start = np.flatnonzero(np.r_[True, (label[1:] != label[:-1]) | (score[1:] != score[:-1])])
    return label[start], score[start], np.add.reduceat(positive, start), np.add.reduceat(negative, start)


def pairs_histogram(pairs: Pairs):
    """:func:`score_histogram` of the rows: the rows of datums of the label's truth are positive."""
    match = pairs.match.astype("int64")
    return score_histogram(pairs.label, pairs.score, match, 1 - match)


def roc_points(pairs: Pairs):
    """ROC points of every label at once (label, score, fp, tp), ties as one point; see
    :func:`histogram_points`."""
    positives = (
        np.bincount(pairs.truth, minlength=pairs.n_labels)
        if pairs.n_datums
        else np.zeros(pairs.n_labels, int)
    )
    return histogram_points(pairs_histogram(pairs), pairs.n_labels, positives, pairs.n_datums - positives)


def histogram_points(histogram, n_labels: int, positives: np.ndarray, negatives: np.ndarray):
    """ROC points of every label from its :func:`score_histogram`, preceded by (0, 0).

    The points are the cumulative counts at each distinct score, in decreasing order. A
    datum without a row for a label is scored below every score for that label, so a
    closing point ``(negatives, positives)`` is added where the last score does not reach it.
    """
    p_label, p_score, positive, negative = histogram
    points_per_label = np.bincount(p_label, minlength=n_labels)
    first_point = np.cumsum(points_per_label) - points_per_label
    p_tp, p_fp = np.cumsum(positive), np.cumsum(negative)
    p_tp = p_tp - np.repeat(np.r_[0, p_tp][first_point], points_per_label)  # counts of earlier labels
    p_fp = p_fp - np.repeat(np.r_[0, p_fp][first_point], points_per_label)
    last_fp = np.zeros(n_labels, "int64")
    last_tp = np.zeros(n_labels, "int64")
    has = points_per_label > 0
    last_idx = np.cumsum(points_per_label) - 1
    last_fp[has] = p_fp[last_idx[has]]
    last_tp[has] = p_tp[last_idx[has]]
    close = (last_fp != negatives) | (last_tp != positives)
    # layout per label: start point, its score points, the closing point if any
    size = 1 + points_per_label + close
    offset = np.cumsum(size) - size
    total = int(size.sum())
    out_label = np.repeat(np.arange(n_labels), size)
    out_score = np.empty(total)
    out_fp = np.empty(total, dtype="int64")
    out_tp = np.empty(total, dtype="int64")
    out_score[offset], out_fp[offset], out_tp[offset] = np.inf, 0, 0
    where = offset[p_label] + 1 + np.arange(p_label.size) - first_point[p_label]
    out_score[where], out_fp[where], out_tp[where] = p_score, p_fp, p_tp
    where = (offset + 1 + points_per_label)[close]
    out_score[where], out_fp[where], out_tp[where] = -np.inf, negatives[close], positives[close]
    return out_label, out_score, out_fp, out_tp, positives, negatives


def roc_auc_per_label(pairs: Pairs, zero_division) -> np.ndarray:
    """Trapezoid areas on integer counts, divided once: ``sum(dfp * (tp + tp_prev)) / (2 P N)``."""
    return points_auc(roc_points(pairs), pairs.n_labels, zero_division)


def points_auc(points, n_labels: int, zero_division) -> np.ndarray:
    """The ROC AUC of every label from its :func:`histogram_points`."""
    lab, _, fp, tp, positives, negatives = points
    same = np.r_[False, lab[1:] == lab[:-1]] if lab.size else np.zeros(0, bool)
    prev_fp = np.r_[0, fp[:-1]] if lab.size else fp
    prev_tp = np.r_[0, tp[:-1]] if lab.size else tp
    twice_area = np.where(same, (fp - prev_fp) * (tp + prev_tp), 0).astype("float64")
    numerator = np.bincount(lab, weights=twice_area, minlength=n_labels) if lab.size else np.zeros(n_labels)
    denominator = 2.0 * positives.astype("float64") * negatives
    return divide(
        numerator, denominator, zero_division, what="ROC AUC (a label without positive or negative datums)"
    )


def binary_roc_auc(y_true, y_score) -> float:
    """Area under the ROC curve of one binary problem (ties form one point, trapezoid rule).

    Every distinct score is a threshold; the curve runs from (0, 0) through one point per
    distinct score, in decreasing order, to (1, 1), and its area is summed with the
    trapezoid rule. This is valor's (and scikit-learn's ``roc_auc_score``) definition.

    Parameters
    ----------
    y_true : array-like of bool or 0/1
        Whether each item is a positive.
    y_score : array-like of float
        The items' scores (higher means more likely positive).

    Returns
    -------
    float
        ROC AUC; NaN with an :class:`~pdmetrics.UndefinedMetricWarning` when there is no
        positive or no negative item.

    Examples
    --------
    >>> from pdmetrics.detection import binary_roc_auc
    >>> binary_roc_auc([1, 0, 1, 0], [0.9, 0.8, 0.4, 0.1])
    0.75
    >>> binary_roc_auc([1, 0, 1, 0], [0.5, 0.5, 0.5, 0.5])  # one tied point: the diagonal
    0.5
    """
    truth = np.asarray(y_true)
    if truth.dtype != bool:
        values = as_float_array(truth, "y_true")
        if not np.isin(values, (0.0, 1.0)).all():
            raise InvalidInputError(
                "`y_true` must hold booleans or 0/1; convert it with `== positive_label`."
            )
        truth = values == 1.0
    scores = as_float_array(y_score, "y_score")
    if truth.shape != scores.shape:
        raise InvalidInputError(f"`y_true` has {truth.size} values but `y_score` has {scores.size}.")
    n = truth.size
    pairs = prepare_pairs(np.where(truth, 1, 0), np.ones(n, dtype="int64"), scores, np.arange(n))
    label_one = int(np.flatnonzero(np.asarray(pairs.labels) == 1)[0]) if (pairs.labels == 1).any() else None
    if label_one is None or pairs.n_labels < 2 or n == 0:
        warn_undefined("ROC AUC is undefined without both positive and negative items; returning NaN.")
        return float("nan")
    return float(roc_auc_per_label(pairs, WARN)[label_one])


def roc_curve(y_true, label, score, datum, *, labels=None, top_prediction: str = "filtered") -> pd.DataFrame:
    """One-vs-rest ROC curve points of every label.

    Parameters
    ----------
    y_true, label, score, datum : array-like
        One entry per (datum, candidate label) row: the datum's true label (repeated on
        each of its rows), the candidate label, its score and the datum id.
    labels, top_prediction
        valor's label filter: see :func:`~pdmetrics.detection.classification`.

    Returns
    -------
    DataFrame
        ``label, score, fpr, tpr``: one row per point, from ``(0, 0)`` (score ``inf``)
        through one point per distinct score of the label (decreasing) to ``(1, 1)``; a
        last point with score ``-inf`` holds the datums that have no row for the label.
        A rate is 0 when the label has no positive (or no negative) datum.

    Examples
    --------
    >>> from pdmetrics.detection import roc_curve
    >>> curve = roc_curve(["a", "b"] * 2 + ["b", "b"], ["a", "a", "b", "b", "a", "b"],
    ...                   [0.9, 0.4, 0.2, 0.7, 0.3, 0.8], [1, 2, 1, 2, 3, 3])
    >>> curve.round(2)
      label  score  fpr  tpr
    0     a    inf  0.0  0.0
    1     a    0.9  0.0  1.0
    2     a    0.4  0.5  1.0
    3     a    0.3  1.0  1.0
    4     b    inf  0.0  0.0
    5     b    0.8  0.0  0.5
    6     b    0.7  0.0  1.0
    7     b    0.2  1.0  1.0
    """
    pairs = prepare_pairs(y_true, label, score, datum, labels=labels, top_prediction=top_prediction)
    return curve_table(pairs.labels, roc_points(pairs))


def curve_table(labels: pd.Index, points) -> pd.DataFrame:
    """The ``label, score, fpr, tpr`` table of :func:`roc_curve` from the points of every label."""
    lab, sc, fp, tp, positives, negatives = points
    return result_table(
        {
            "label": labels[lab],
            "score": sc,
            "fpr": divide(fp, negatives[lab], 0.0),
            "tpr": divide(tp, positives[lab], 0.0),
        }
    )


def roc_auc(y_true, label, score, datum, zero_division="warn") -> pd.DataFrame:
    """One-vs-rest ROC AUC of every label (valor's ``ROCAUC``).

    For label ``L`` the datums whose truth is ``L`` are the positives, all other datums
    the negatives, and ``L``'s score ranks them; see :func:`binary_roc_auc`. A datum with
    no row for ``L`` ranks below every score.

    Parameters
    ----------
    y_true, label, score, datum : array-like
        One entry per (datum, candidate label) row (see :func:`roc_curve`).
    zero_division : "warn" or float, default "warn"
        Value for a label without positive or without negative datums: ``"warn"`` gives
        NaN with an :class:`~pdmetrics.UndefinedMetricWarning`; valor uses 0.

    Returns
    -------
    DataFrame
        ``label, N, n_true, roc_auc`` with ``N`` the datums and ``n_true`` the datums
        whose truth is the label; labels sorted.

    Examples
    --------
    >>> from pdmetrics.detection import roc_auc
    >>> roc_auc(["a", "a", "b", "b"], ["a", "b", "a", "b"], [0.8, 0.2, 0.3, 0.7], [1, 1, 2, 2])
      label  N  n_true  roc_auc
    0     a  2       1      1.0
    1     b  2       1      1.0
    """
    zero_division = check_zero_division(zero_division)
    pairs = prepare_pairs(y_true, label, score, datum)
    auc = roc_auc_per_label(pairs, zero_division)
    n_true = np.bincount(pairs.truth, minlength=pairs.n_labels)
    return result_table(
        {
            "label": pairs.labels,
            "N": np.full(pairs.n_labels, pairs.n_datums),
            "n_true": n_true,
            "roc_auc": auc,
        },
        integer_columns=("N", "n_true"),
    )


def mean_roc_auc(y_true, label, score, datum, zero_division="warn") -> float:
    """Mean of the labels' one-vs-rest ROC AUCs (valor's ``mROCAUC``).

    With ``zero_division="warn"`` labels whose AUC is undefined are left out of the mean
    (with a warning); with a number (valor: 0) they count with that value. Without any
    label the mean is undefined: NaN with a warning, or ``zero_division``.

    Examples
    --------
    >>> from pdmetrics.detection import mean_roc_auc
    >>> truth = ["bird", "bird", "bird", "dog", "dog", "dog", "cat", "cat", "cat"]
    >>> label = ["bird", "dog", "cat"] * 3
    >>> score = [0.6, 0.2, 0.2, 0.1, 0.5, 0.4, 0.3, 0.3, 0.4]
    >>> round(mean_roc_auc(truth, label, score, [1, 1, 1, 2, 2, 2, 3, 3, 3]), 4)
    1.0
    """
    zero_division = check_zero_division(zero_division)
    pairs = prepare_pairs(y_true, label, score, datum)
    auc = roc_auc_per_label(pairs, zero_division)
    return mean_of_defined(auc, zero_division, "Mean ROC AUC", "no label has a defined ROC AUC")


def mean_of_defined(values: np.ndarray, zero_division, what: str, reason: str) -> float:
    """Mean of the non-NaN ``values``; ``zero_division`` when there is none (NaN + warning for "warn")."""
    defined = values[~np.isnan(values)]
    if defined.size:
        return float(defined.mean())
    if zero_division == WARN:
        warn_undefined(
            f"{what} is undefined ({reason}); returning NaN. Pass `zero_division=0` (or another number) "
            f"to report that number instead."
        )
        return float("nan")
    return float(zero_division)
