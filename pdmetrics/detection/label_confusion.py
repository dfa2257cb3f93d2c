"""Confusion matrix of true against predicted labels at score thresholds (valor-lite)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdmetrics._tables import result_table
from pdmetrics.detection.label_state import LabelState, example_ids, label_rows, rows_state

__all__ = ["classification_confusion"]


@label_rows(score_thresholds=(0.0,), hardmax=True)
def classification_confusion(rows: dict, max_examples: int = 0) -> pd.DataFrame:
    """Confusion matrix of true against predicted labels at score thresholds (valor-lite).

    Cell ``(truth=g, prediction=p)`` counts the datums with truth ``g`` on which label ``p``
    is a positive prediction (with ``hardmax=False`` a datum can fill several cells);
    the row with a missing ``prediction`` counts the datums of truth ``g`` with no
    positive prediction at all (valor's ``unmatched_ground_truths``).

    Parameters
    ----------
    score_thresholds : float or sequence of float, default (0.0,)
    hardmax : bool, default True
    max_examples : int, default 0
        Up to this many example datum ids per cell, in an ``examples`` column (valor's
        confusion matrix "with examples"); 0 leaves the column out.
    {label_filter}

    Returns
    -------
    DataFrame
        ``score_threshold, truth, prediction, count[, examples]``: for each threshold,
        every (truth, prediction) pair of labels, then one row per truth label with
        ``prediction`` missing (None). Pivot it with
        ``table.pivot_table(index="truth", columns="prediction", values="count", dropna=False)``.

    Examples
    --------
    >>> from pdmetrics.detection.label_confusion import classification_confusion
    >>> table = classification_confusion(["cat", "cat", "dog", "dog"], ["cat", "dog", "cat", "dog"],
    ...                                  [0.7, 0.3, 0.6, 0.4], [1, 1, 2, 2])
    >>> table.fillna({"prediction": "(none)"})
       score_threshold truth prediction  count
    0              0.0   cat        cat      1
    1              0.0   cat        dog      0
    2              0.0   dog        cat      1
    3              0.0   dog        dog      0
    4              0.0   cat     (none)      0
    5              0.0   dog     (none)      0
    """
    state, thresholds = rows_state("confusion", rows, max_examples)
    return confusion_from_state(state, thresholds)


def confusion_from_state(state: LabelState, thresholds: np.ndarray) -> pd.DataFrame:
    """The :func:`classification_confusion` table of a finalized :class:`LabelState` (with the
    ``examples`` column when the state was made with ``max_examples > 0``)."""
    n_labels, n_thr = state.n_labels, thresholds.size
    cells = state.counts["cells"].reshape(n_labels * n_labels, n_thr)
    unmatched = state.counts["unmatched"]
    n_rows = n_labels * (n_labels + 1)
    thr_code = np.repeat(np.arange(n_thr), n_rows)
    cell_code = np.tile(np.arange(n_rows), n_thr)
    is_cell = cell_code < n_labels * n_labels
    width = max(n_labels, 1)
    truth_code = np.where(is_cell, cell_code // width, cell_code - n_labels * n_labels)
    pred_code = np.where(is_cell, cell_code % width, -1)
    count = np.vstack([cells, unmatched]).T.reshape(-1)
    labels = np.asarray(state.labels, dtype=object)
    prediction = np.empty(cell_code.size, dtype=object)
    prediction[is_cell] = labels[pred_code[is_cell]]
    columns = {
        "score_threshold": thresholds[thr_code],
        "truth": labels[truth_code] if labels.size else np.empty(0, object),
        "prediction": prediction,
        "count": count,
    }
    if state.max_examples > 0:
        columns["examples"] = [
            example_ids(state, (0, int(t), int(p), int(j)) if inside else (1, int(t), -1, int(j)))
            for t, p, j, inside in zip(truth_code, pred_code, thr_code, is_cell)
        ]
    return result_table(columns, integer_columns=("count",))
