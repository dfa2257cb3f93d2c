"""Precision-recall curves of each label as its own binary problem, and the detailed breakdown.

The older valor's ``PrecisionRecallCurve`` and the classification part of its
``DetailedPrecisionRecallCurve``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdmetrics._division import check_zero_division
from pdmetrics._tables import result_table
from pdmetrics.detection.label_metrics import counts_table
from pdmetrics.detection.label_pairs import DEFAULT_CURVE_THRESHOLDS
from pdmetrics.detection.label_state import LabelState, example_ids, label_rows, rows_state

__all__ = ["classification_pr_curve", "classification_errors"]


@label_rows(score_thresholds=DEFAULT_CURVE_THRESHOLDS, hardmax=False)
def classification_pr_curve(rows: dict, zero_division="warn") -> pd.DataFrame:
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
    {label_filter}

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
    state, thresholds = rows_state("pr_curve", rows)
    return pr_curve_table(state, thresholds, zero_division)


def pr_curve_table(state: LabelState, thresholds: np.ndarray, zero_division) -> pd.DataFrame:
    """The :func:`classification_pr_curve` table of a finalized :class:`LabelState`."""
    tp, fp = state.counts["tp"], state.counts["fp"]
    fn = state.counts["fn_misclassified"] + state.counts["fn_no_prediction"]
    n_true = state.counts["n_true"][:, None]
    tn = state.n_datums - n_true - fp
    return counts_table(state, thresholds, n_true[:, 0], tp, fp, fn, tn, zero_division)


@label_rows(score_thresholds=DEFAULT_CURVE_THRESHOLDS, hardmax=False)
def classification_errors(rows: dict, max_examples: int = 1) -> pd.DataFrame:
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
    {label_filter}

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
    state, thresholds = rows_state("errors", rows, max_examples)
    return errors_table(state, thresholds)


def errors_table(state: LabelState, thresholds: np.ndarray) -> pd.DataFrame:
    """The :func:`classification_errors` table of a finalized :class:`LabelState`."""
    n_labels, n_thr = state.n_labels, thresholds.size
    kinds = 4
    names = ("tp", "fp", "fn_misclassified", "fn_no_prediction")
    counts = np.stack([state.counts[name] for name in names], axis=2)  # (K, T, 4)
    label_code = np.repeat(np.arange(n_labels), n_thr * kinds)
    thr_code = np.tile(np.repeat(np.arange(n_thr), kinds), n_labels)
    kind_code = np.tile(np.arange(kinds), n_labels * n_thr)
    examples = [
        example_ids(state, (int(c), int(lc), -1, int(tc)))
        for lc, tc, c in zip(label_code, thr_code, kind_code)
    ]
    outcome = np.array(["tp", "fp", "fn", "fn"], dtype=object)
    observation = np.array(
        ["all", "misclassifications", "misclassifications", "no_predictions"], dtype=object
    )
    return result_table(
        {
            "label": state.labels[label_code],
            "score_threshold": thresholds[thr_code],
            "outcome": outcome[kind_code],
            "observation": observation[kind_code],
            "count": counts.reshape(-1),
            "examples": examples,
        },
        integer_columns=("count",),
    )
