"""Precision-recall curves of each label as its own binary problem, and the detailed breakdown.

The older valor's ``PrecisionRecallCurve`` and the classification part of its
``DetailedPrecisionRecallCurve``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdmetrics._division import check_zero_division, divide
from pdmetrics._tables import result_table
from pdmetrics.detection.label_metrics import long_by_label
from pdmetrics.detection.label_pairs import (
    DEFAULT_CURVE_THRESHOLDS,
    Pairs,
    datum_max,
    first_examples,
    interval_counts,
    positive_counts,
    positive_until,
    prepare_pairs,
    threshold_array,
)
from pdmetrics.errors import InvalidInputError

__all__ = ["classification_pr_curve", "classification_errors"]


def binary_parts(pairs: Pairs, thresholds: np.ndarray, hardmax: bool):
    """Each label as its own binary problem: tp, fp, fn split, per (label, threshold)."""
    n_labels, n_thr = pairs.n_labels, thresholds.size
    k = positive_until(pairs, thresholds, hardmax)
    match, other = pairs.match, ~pairs.match
    tp = positive_counts(pairs.label[match], k[match], n_labels, n_thr)
    fp = positive_counts(pairs.label[other], k[other], n_labels, n_thr)
    a = datum_max(pairs, k, other, 0)  # another label positive at j < a
    b = np.zeros(pairs.n_datums, dtype="int64")  # own label positive at j < b
    b[pairs.datum[match]] = k[match]
    end = np.full(pairs.n_datums, n_thr, dtype="int64")
    fn_misclassified = interval_counts(pairs.truth, b, a, n_labels, n_thr)
    fn_no_prediction = interval_counts(pairs.truth, np.maximum(a, b), end, n_labels, n_thr)
    return k, a, b, tp, fp, fn_misclassified, fn_no_prediction


def classification_pr_curve(
    y_true,
    label,
    score,
    datum,
    score_thresholds=DEFAULT_CURVE_THRESHOLDS,
    hardmax: bool = False,
    zero_division="warn",
    *,
    labels=None,
    top_prediction: str = "filtered",
) -> pd.DataFrame:
    """Precision-recall curve of each label as its own binary problem (valor's ``PrecisionRecallCurve``).

    At threshold ``t`` a datum predicts label ``L`` when its ``L`` score is ``>= t`` (and
    not zero); ``tp``/``fp`` are the datums that predict ``L`` with/without truth ``L``,
    ``fn`` the datums with truth ``L`` that do not predict it and ``tn`` the rest, so the
    four counts add up to the number of datums.

    Parameters
    ----------
    score_thresholds : sequence of float, default 0.05, 0.10, ..., 0.95
    hardmax : bool, default False
        Valor computes its curves without hardmax; ``True`` lets only the top-scored row of
        each datum count.
    zero_division : "warn" or float, default "warn"
    labels, top_prediction
        valor's label filter: see :func:`~pdmetrics.detection.classification`.

    Returns
    -------
    DataFrame
        ``label, score_threshold, N, tp, fp, fn, tn, precision, recall, f1``.

    Examples
    --------
    >>> from pdmetrics.detection.label_curves import classification_pr_curve
    >>> curve = classification_pr_curve(["cat", "cat", "dog", "dog"], ["cat", "dog", "cat", "dog"],
    ...                                 [0.7, 0.3, 0.6, 0.4], [1, 1, 2, 2], score_thresholds=[0.5],
    ...                                 zero_division=0)
    >>> curve[["label", "tp", "fp", "fn", "tn", "precision", "recall"]]
      label  tp  fp  fn  tn  precision  recall
    0   cat   1   1   0   0        0.5     1.0
    1   dog   0   0   1   1        0.0     0.0
    """
    zero_division = check_zero_division(zero_division)
    thresholds = threshold_array(score_thresholds)
    pairs = prepare_pairs(y_true, label, score, datum, labels=labels, top_prediction=top_prediction)
    _, _, _, tp, fp, fn_m, fn_n = binary_parts(pairs, thresholds, bool(hardmax))
    fn = fn_m + fn_n
    n_true = np.bincount(pairs.truth, minlength=pairs.n_labels)[:, None]
    tn = pairs.n_datums - n_true - fp
    columns = long_by_label(pairs, thresholds)
    columns.update(
        {
            "N": np.repeat(n_true[:, 0], thresholds.size),
            "tp": tp.ravel(),
            "fp": fp.ravel(),
            "fn": fn.ravel(),
            "tn": tn.ravel(),
            "precision": divide(tp, tp + fp, zero_division, what="precision").ravel(),
            "recall": divide(tp, tp + fn, zero_division, what="recall").ravel(),
            "f1": divide(2 * tp, 2 * tp + fp + fn, zero_division, what="F1").ravel(),
        }
    )
    return result_table(columns, integer_columns=("N", "tp", "fp", "fn", "tn"))


def classification_errors(
    y_true,
    label,
    score,
    datum,
    score_thresholds=DEFAULT_CURVE_THRESHOLDS,
    hardmax: bool = False,
    max_examples: int = 1,
    *,
    labels=None,
    top_prediction: str = "filtered",
) -> pd.DataFrame:
    """Detailed breakdown of true positives, false positives and false negatives, with examples.

    Valor's ``DetailedPrecisionRecallCurve`` for classification: per label and threshold,
    each label as its own binary problem (see :func:`classification_pr_curve`), with

    * ``tp / all``: datums with truth ``L`` that predict ``L``;
    * ``fp / misclassifications``: datums with another truth that predict ``L`` (every
      datum has a truth, so a classification false positive is never a hallucination);
    * ``fn / misclassifications``: datums with truth ``L`` that do not predict ``L`` but
      predict another label;
    * ``fn / no_predictions``: datums with truth ``L`` where no label passes the threshold.

    Parameters
    ----------
    max_examples : int, default 1
        Up to this many example datum ids per row (the first ones in input order).
    labels, top_prediction
        valor's label filter: see :func:`~pdmetrics.detection.classification`.

    Returns
    -------
    DataFrame
        ``label, score_threshold, outcome, observation, count, examples``: four rows per
        label and threshold, in that order.

    Examples
    --------
    >>> from pdmetrics.detection.label_curves import classification_errors
    >>> errors = classification_errors(["cat", "cat", "dog", "dog"], ["cat", "dog", "cat", "dog"],
    ...                                [0.7, 0.3, 0.6, 0.4], ["img1", "img1", "img2", "img2"],
    ...                                score_thresholds=[0.5])
    >>> errors
      label  score_threshold outcome        observation  count examples
    0   cat              0.5      tp                all      1   [img1]
    1   cat              0.5      fp  misclassifications      1   [img2]
    2   cat              0.5      fn  misclassifications      0       []
    3   cat              0.5      fn     no_predictions      0       []
    4   dog              0.5      tp                all      0       []
    5   dog              0.5      fp  misclassifications      0       []
    6   dog              0.5      fn  misclassifications      1   [img2]
    7   dog              0.5      fn     no_predictions      0       []
    """
    if not isinstance(max_examples, (int, np.integer)) or max_examples < 0:
        raise InvalidInputError(f"max_examples={max_examples!r}: pass a whole number >= 0.")
    thresholds = threshold_array(score_thresholds)
    pairs = prepare_pairs(y_true, label, score, datum, labels=labels, top_prediction=top_prediction)
    n_labels, n_thr = pairs.n_labels, thresholds.size
    k, a, b, tp, fp, fn_m, fn_n = binary_parts(pairs, thresholds, bool(hardmax))
    match, other = pairs.match, ~pairs.match
    kinds = 4
    counts = np.stack([tp, fp, fn_m, fn_n], axis=2)  # (K, T, 4)
    label_code = np.repeat(np.arange(n_labels), n_thr * kinds)
    thr_code = np.tile(np.repeat(np.arange(n_thr), kinds), n_labels)
    kind_code = np.tile(np.arange(kinds), n_labels * n_thr)
    examples = [[] for _ in range(label_code.size)]
    if max_examples > 0:
        zeros_rows = np.zeros(pairs.score.size, dtype="int64")
        end = np.full(pairs.n_datums, n_thr, dtype="int64")
        found = [
            first_examples(
                pairs.label[match],
                pairs.datum[match],
                zeros_rows[match],
                k[match],
                n_labels,
                n_thr,
                max_examples,
            ),
            first_examples(
                pairs.label[other],
                pairs.datum[other],
                zeros_rows[other],
                k[other],
                n_labels,
                n_thr,
                max_examples,
            ),
            first_examples(pairs.truth, np.arange(pairs.n_datums), b, a, n_labels, n_thr, max_examples),
            first_examples(
                pairs.truth, np.arange(pairs.n_datums), np.maximum(a, b), end, n_labels, n_thr, max_examples
            ),
        ]
        values = np.asarray(pairs.datums, dtype=object)
        examples = [
            values[found[c].get((int(lc), int(tc)), [])].tolist()
            for lc, tc, c in zip(label_code, thr_code, kind_code)
        ]
    outcome = np.array(["tp", "fp", "fn", "fn"], dtype=object)
    observation = np.array(
        ["all", "misclassifications", "misclassifications", "no_predictions"], dtype=object
    )
    return result_table(
        {
            "label": pairs.labels[label_code],
            "score_threshold": thresholds[thr_code],
            "outcome": outcome[kind_code],
            "observation": observation[kind_code],
            "count": counts.reshape(-1),
            "examples": examples,
        },
        integer_columns=("count",),
    )
