"""Per-label counts, precision, recall, F1, accuracy and their summary at score thresholds.

valor-lite's ``Counts``, ``Precision``, ``Recall``, ``F1`` and ``Accuracy`` (see
:mod:`pdmetrics.detection.label_pairs` for the counting rules).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdmetrics._division import check_zero_division, divide
from pdmetrics._tables import result_table
from pdmetrics.detection.label_pairs import label_counts, prepare_pairs, threshold_array
from pdmetrics.detection.label_state import LabelState, label_rows, rows_state
from pdmetrics.detection.roc import mean_of_defined

__all__ = ["classification_metrics", "classification_accuracy", "classification_summary"]


def long_by_label(pairs, thresholds: np.ndarray) -> dict:
    """``label`` and ``score_threshold`` columns, one row per label and threshold (Pairs or LabelState)."""
    n_labels, n_thr = pairs.n_labels, thresholds.size
    return {"label": pairs.labels.repeat(n_thr), "score_threshold": np.tile(thresholds, n_labels)}


def counts_table(
    state, thresholds: np.ndarray, n_true, tp, fp, fn, tn, zero_division, **after
) -> pd.DataFrame:
    """``label, score_threshold, N, tp, fp, fn, tn, precision, recall, f1``, then the columns
    ``after``: one row per label (``n_true`` datums of it) and threshold (counts of shape (K, T))."""
    columns = long_by_label(state, thresholds)
    columns.update(
        {
            "N": np.repeat(n_true, thresholds.size),
            "tp": tp.ravel(),
            "fp": fp.ravel(),
            "fn": fn.ravel(),
            "tn": tn.ravel(),
            "precision": divide(tp, tp + fp, zero_division, what="precision").ravel(),
            "recall": divide(tp, tp + fn, zero_division, what="recall").ravel(),
            "f1": divide(2 * tp, 2 * tp + fp + fn, zero_division, what="F1").ravel(),
            **after,
        }
    )
    return result_table(columns, integer_columns=("N", "tp", "fp", "fn", "tn"))


@label_rows(score_thresholds=(0.0,), hardmax=True)
def classification_metrics(rows: dict, zero_division="warn") -> pd.DataFrame:
    """Per-label counts, precision, recall, F1 and ROC AUC at score thresholds (valor-lite).

    Parameters
    ----------
    y_true, label, score, datum : array-like
        One entry per (datum, candidate label) row: the datum's true label (the same on
        each of its rows), the candidate label, its score and the datum id. A label with
        no row on a datum is not a candidate there.
    score_thresholds : float or sequence of float, default (0.0,)
        A row is a positive prediction at threshold ``t`` when ``score >= t`` and the
        score is not zero. Results come in increasing threshold order.
    hardmax : bool, default True
        Only the datum's top-scored row can be positive (valor's default); ties go to the
        row that comes first. ``False`` lets every row above the threshold be positive.
    zero_division : "warn" or float, default "warn"
        Value of a 0/0 precision, recall, F1 or ROC AUC: ``"warn"`` gives NaN with an
        :class:`~pdmetrics.UndefinedMetricWarning`; valor uses 0.
    {label_filter}

    Returns
    -------
    DataFrame
        ``label, score_threshold, N, tp, fp, fn, tn, precision, recall, f1, roc_auc``:
        one row per label and threshold; ``N`` datums whose truth is the label;
        ``precision = tp/(tp+fp)``, ``recall = tp/(tp+fn)``, ``f1 = 2tp/(2tp+fp+fn)``;
        ``roc_auc`` (threshold-free, see :func:`roc_auc`) repeated on each threshold row.
        The counting rules are valor-lite's (module docstring): with ``hardmax=False`` a
        datum can count a ``tp`` and an ``fn`` for its label at once, and a datum with no
        row for its true label and no positive row counts no ``fn``.

    Examples
    --------
    >>> from pdmetrics.detection.label_metrics import classification_metrics
    >>> truth = ["cat", "cat", "dog", "dog"]
    >>> label = ["cat", "dog", "cat", "dog"]
    >>> score = [0.7, 0.3, 0.6, 0.4]
    >>> classification_metrics(truth, label, score, [1, 1, 2, 2], zero_division=0).round(3)
      label  score_threshold  N  tp  fp  fn  tn  precision  recall     f1  roc_auc
    0   cat              0.0  1   1   1   0   0        0.5     1.0  0.667      1.0
    1   dog              0.0  1   0   0   1   1        0.0     0.0  0.000      1.0
    """
    zero_division = check_zero_division(zero_division)
    state, thresholds = rows_state("labels", rows)
    return metrics_table(state, thresholds, zero_division)


def metrics_table(state: LabelState, thresholds: np.ndarray, zero_division) -> pd.DataFrame:
    """The :func:`classification_metrics` table of a finalized :class:`LabelState`."""
    tp, fp, fn, tn = (state.counts[name] for name in ("tp", "fp", "fn", "tn"))
    auc = state.roc_auc(zero_division)
    roc_auc = np.repeat(auc, thresholds.size)
    return counts_table(
        state, thresholds, state.counts["n_true"], tp, fp, fn, tn, zero_division, roc_auc=roc_auc
    )


def classification_accuracy(
    y_true, label, score, datum, score_thresholds=(0.0,), hardmax: bool = True, zero_division="warn"
) -> pd.DataFrame:
    """Accuracy at score thresholds: the share of datums whose true label is predicted.

    valor-lite's ``Accuracy``: the true positives of all labels over the number of
    datums. With ``hardmax=True`` (one prediction per datum) this is top-1 accuracy
    among the datums whose top score passes the threshold.

    Returns
    -------
    DataFrame
        ``score_threshold, N, accuracy`` with ``N`` the number of datums; accuracy is
        undefined for empty input (``zero_division``: NaN with a warning, or the number).

    Examples
    --------
    >>> from pdmetrics.detection import classification_accuracy
    >>> classification_accuracy(["cat", "cat", "dog", "dog"], ["cat", "dog", "cat", "dog"],
    ...                         [0.7, 0.3, 0.6, 0.4], [1, 1, 2, 2], score_thresholds=[0.0, 0.65])
       score_threshold  N  accuracy
    0             0.00  2       0.5
    1             0.65  2       0.5
    """
    zero_division = check_zero_division(zero_division)
    thresholds = threshold_array(score_thresholds)
    pairs = prepare_pairs(y_true, label, score, datum)
    tp, _, _, _ = label_counts(pairs, thresholds, bool(hardmax))
    accuracy = divide(
        tp.sum(axis=0), np.full(thresholds.size, pairs.n_datums), zero_division, what="accuracy"
    )
    return result_table(
        {"score_threshold": thresholds, "N": np.full(thresholds.size, pairs.n_datums), "accuracy": accuracy},
        integer_columns=("N",),
    )


@label_rows(score_thresholds=(0.0,), hardmax=True)
def classification_summary(rows: dict, zero_division="warn") -> pd.DataFrame:
    """Accuracy and mean ROC AUC per score threshold, from one pass over the rows.

    Parameters
    ----------
    {label_filter}

    Returns
    -------
    DataFrame
        ``score_threshold, N, accuracy, mean_roc_auc``: ``N`` datums, ``accuracy`` as
        :func:`classification_accuracy`, ``mean_roc_auc`` as :func:`mean_roc_auc` (the
        same on every row).

    Examples
    --------
    >>> from pdmetrics.detection.label_metrics import classification_summary
    >>> classification_summary(["cat", "cat", "dog", "dog"], ["cat", "dog", "cat", "dog"],
    ...                        [0.7, 0.3, 0.6, 0.4], [1, 1, 2, 2])
       score_threshold  N  accuracy  mean_roc_auc
    0              0.0  2       0.5           1.0
    """
    zero_division = check_zero_division(zero_division)
    state, thresholds = rows_state("summary", rows)
    return summary_table(state, thresholds, zero_division)


def summary_table(state: LabelState, thresholds: np.ndarray, zero_division) -> pd.DataFrame:
    """The :func:`classification_summary` table of a finalized :class:`LabelState`."""
    auc = state.roc_auc(zero_division)
    n_datums = np.full(thresholds.size, state.n_datums)
    accuracy = divide(state.counts["tp"].sum(axis=0), n_datums, zero_division, what="accuracy")
    mean = mean_of_defined(auc, zero_division, "Mean ROC AUC", "no label has a defined ROC AUC")
    return result_table(
        {
            "score_threshold": thresholds,
            "N": n_datums,
            "accuracy": accuracy,
            "mean_roc_auc": np.full(thresholds.size, mean),
        },
        integer_columns=("N",),
    )
