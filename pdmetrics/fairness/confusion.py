"""Confusion counts per group, in one bincount, and the rates computed from them.

Counts are arrays whose last axis holds the four cells ``[TN, FP, FN, TP]`` (cell index
``2 * truth + prediction``). Every formula here works on any leading shape, so the same
code finalizes one group, all groups, or ``n_resamples`` bootstrap replicates of all groups.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdmetrics._division import divide
from pdmetrics.fairness.multiclass import one_vs_rest

__all__ = ["CELLS", "cell_codes", "confusion_counts", "counts_from_cells", "rates_from_counts"]

#: Names of the four cells along the last axis of a confusion-count array.
CELLS = ("TN", "FP", "FN", "TP")
TN, FP, FN, TP = range(4)


def confusion_counts(
    y_true: np.ndarray,
    y_pred: np.ndarray,
    codes: np.ndarray | None = None,
    n_groups: int = 1,
    *,
    classes=None,
) -> np.ndarray:
    """Confusion counts ``[TN, FP, FN, TP]`` per group, from boolean truth and prediction
    (or, with ``classes``, per group and class one vs rest, from multiclass labels).

    Parameters
    ----------
    y_true, y_pred : bool ndarray
        Positive (True) or negative outcome per row; with ``classes``, the labels.
    codes : int ndarray, optional
        Group of each row, ``0..n_groups-1``; a negative code leaves the row out. ``None``
        puts every row in one group.
    n_groups : int
        Number of groups.
    classes : list, optional
        The classes, each counted one vs rest (a label that is none of them, or missing, is
        "rest" for every class), from one bincount over group x truth x prediction.

    Returns
    -------
    ndarray of int64, shape ``(n_groups, 4)``, or ``(n_groups, len(classes), 4)`` with ``classes``

    Examples
    --------
    >>> import numpy as np
    >>> from pdmetrics.fairness import confusion_counts
    >>> confusion_counts(np.array([1, 1, 0, 0], bool), np.array([1, 0, 1, 0], bool),
    ...                  np.array([0, 0, 1, 1]), 2)
    array([[0, 0, 1, 1],
           [1, 1, 0, 0]])
    >>> confusion_counts(np.array(["a", "b", "c"]), np.array(["a", "c", "c"]), classes=["a", "c"])
    array([[[2, 0, 0, 1],
            [1, 1, 0, 1]]])
    """
    if classes is None:
        return counts_from_cells(cell_codes(y_true, y_pred), codes, n_groups)
    index = pd.Index(list(classes), dtype=object)
    size = len(index) + 1  # the classes, then "rest"
    truth, pred = (
        np.where(i < 0, size - 1, i)
        for i in (index.get_indexer(np.asarray(v, dtype=object)) for v in (y_true, y_pred))
    )
    counts = counts_from_cells(truth * size + pred, codes, n_groups, size * size)
    return one_vs_rest(counts.reshape(-1, size, size), np.arange(size - 1))


def cell_codes(y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
    """Cell index ``2 * truth + prediction`` of each row, as uint8 (0 TN, 1 FP, 2 FN, 3 TP)."""
    t = np.asarray(y_true, dtype=bool)
    p = np.asarray(y_pred, dtype=bool)
    return (t.view(np.uint8) << 1) | p.view(np.uint8)


def counts_from_cells(
    cell: np.ndarray, codes: np.ndarray | None = None, n_groups: int = 1, n_cells: int = 4
) -> np.ndarray:
    """Counts per group and cell, shape ``(n_groups, n_cells)``, from each row's cell
    (:func:`cell_codes`, or ``truth * V + prediction`` of multiclass labels); negative codes
    leave rows out."""
    if codes is None:
        return np.bincount(cell, minlength=n_cells).astype(np.int64).reshape(1, n_cells)
    codes = np.asarray(codes, dtype=np.intp)
    keep = codes >= 0
    if not keep.all():
        codes, cell = codes[keep], cell[keep]
    key = (codes << 2) | cell if n_cells == 4 else codes * n_cells + cell
    return np.bincount(key, minlength=n_cells * n_groups).astype(np.int64).reshape(n_groups, n_cells)


def _ratio(numerator, denominator) -> np.ndarray:
    """``numerator / denominator`` as float64, NaN where the denominator is 0, silently.

    The tables that finalize these rates decide how undefined values are reported.
    """
    return divide(numerator, denominator, np.nan)


def rates_from_counts(counts: np.ndarray) -> dict[str, np.ndarray]:
    """Per-group rates from confusion counts (NaN where a denominator is 0).

    Keys: ``N, selection_rate, tpr, fpr, tnr, fnr, accuracy, precision, recall``.
    ``selection_rate = (TP + FP) / N``, ``tpr = recall = TP / (TP + FN)``, ``fpr = FP /
    (FP + TN)``, ``tnr = TN / (TN + FP)``, ``fnr = FN / (FN + TP)``, ``accuracy = (TP +
    TN) / N``, ``precision = TP / (TP + FP)``.

    Examples
    --------
    >>> from pdmetrics.fairness import rates_from_counts
    >>> rates = rates_from_counts([[3, 1, 2, 4], [5, 0, 0, 0]])  # [TN, FP, FN, TP] per group
    >>> rates["N"].tolist(), rates["tpr"].round(3).tolist(), rates["precision"].tolist()
    ([10, 5], [0.667, nan], [0.8, nan])
    """
    counts = np.asarray(counts)
    tn, fp, fn, tp = (counts[..., i] for i in range(4))
    n = tn + fp + fn + tp
    positives = tp + fn
    negatives = tn + fp
    tpr = _ratio(tp, positives)
    return {
        "N": n,
        "selection_rate": _ratio(tp + fp, n),
        "tpr": tpr,
        "fpr": _ratio(fp, negatives),
        "tnr": _ratio(tn, negatives),
        "fnr": _ratio(fn, positives),
        "accuracy": _ratio(tp + tn, n),
        "precision": _ratio(tp, tp + fp),
        "recall": tpr,
    }
