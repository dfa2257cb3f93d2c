"""Individual fairness as consistency: do similar rows get similar predictions? (Zemel et al.
2013, as AIF360's ``BinaryLabelDatasetMetric.consistency`` computes it.)

Each row's nearest neighbours in the feature space come from one k-d tree query over all
rows (scipy's ``cKDTree``), so the table needs every row at once: a :class:`Whole` spec.
"""

from __future__ import annotations

import numbers
from functools import partial

import numpy as np
import pandas as pd
from scipy.spatial import cKDTree

from pdmetrics._table_spec import Whole, table
from pdmetrics._tables import attach_info
from pdmetrics._validation import numeric_values, one_name, plain, require_columns
from pdmetrics._warnings import warn_excluded
from pdmetrics.errors import InvalidInputError
from pdmetrics.fairness._inputs import (
    binary_outcome,
    check_binary_summary,
    check_pos_label_summaries,
    check_usable_rows,
    label_summary,
)

__all__ = ["consistency"]


def _check_neighbours(n_neighbors) -> int:
    if (
        isinstance(n_neighbors, (bool, np.bool_))
        or not isinstance(n_neighbors, numbers.Integral)
        or n_neighbors < 1
    ):
        raise InvalidInputError(
            f"`n_neighbors={plain(n_neighbors)!r}` must be a whole number of 1 or more (the number of "
            f"nearest rows, the row itself included, each prediction is compared with), e.g. 5."
        )
    return int(n_neighbors)


@table
def consistency(frame, *, features, y_pred, n_neighbors=5, pos_label=1) -> pd.DataFrame:
    """How alike the predictions of similar rows are: 1 minus the mean gap between each row's
    prediction and the mean prediction of its ``n_neighbors`` nearest rows.

    ``consistency = 1 - 1/n sum_i |y_i - mean(y_j for j in kNN(x_i))|``, with ``y`` the binary
    prediction (1 for ``pos_label``) and ``kNN(x_i)`` the ``n_neighbors`` rows nearest to row
    ``i`` in the Euclidean space of the ``features`` columns, row ``i`` itself included (it is
    at distance 0): AIF360's ``BinaryLabelDatasetMetric.consistency``, which queries
    scikit-learn's ``NearestNeighbors`` for the rows it was fitted on. 1 when every row's
    neighbourhood predicts alike; it cannot be below 0.

    Parameters
    ----------
    frame : DataFrame
        The rows (pandas or polars; a dask frame is refused with what to run instead: every
        row's neighbours may be in any partition).
    features : list of str
        Numeric columns spanning the space the neighbours are found in, as they are (scale
        them first when their units differ: the distance adds their squared differences;
        AIF360 uses every feature of its data set, the protected attributes included).
    y_pred : str
        Column of binary predictions (one of them ``pos_label``).
    n_neighbors : int, default 5
        The number of nearest rows, the row itself included.
    pos_label : scalar, default 1
        The positive prediction; it must occur in ``y_pred``.

    Returns
    -------
    pandas.DataFrame
        One row: ``N`` (rows used), ``n_neighbors``, ``consistency``. Rows with a missing
        (or non-numeric) feature or prediction are left out of the rows searched and scored,
        with an :class:`~pdmetrics.ExcludedRowsWarning`.

    Notes
    -----
    **Ties.** When more rows than fit are at the same distance as the ``n_neighbors``-th
    nearest, which of them count is up to the tree search (scipy's and scikit-learn's may
    choose differently), and so is the value. Exact duplicates are the usual case: with more
    than ``n_neighbors`` copies of a row, its own copy may not be among those chosen. Data
    with continuous features have no ties; with discrete ones, add the columns that tell
    rows apart, or compare with ``n_neighbors`` large enough to take whole ties.

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> df = pd.DataFrame({"x": [0.0, 0.1, 0.2, 5.0, 5.1, 5.3], "pred": [1, 1, 0, 0, 0, 0]})
    >>> df.fairness.consistency(features=["x"], y_pred="pred", n_neighbors=3).round(4)
       N  n_neighbors  consistency
    0  6            3       0.7778
    """
    names = require_columns(frame, "features", features)
    label = one_name(frame, "y_pred", y_pred)
    k = _check_neighbours(n_neighbors)
    columns = list(dict.fromkeys([*names, label]))
    return Whole(
        columns,
        partial(_consistency, names, label, k, pos_label),
        instead="Every row's nearest rows may lie in any partition: compute the columns it needs first, "
        "e.g. `ddf[features + [y_pred]].compute().fairness.consistency(...)` (or on a random sample of "
        "rows, `ddf.sample(frac=...)`, when they do not fit in memory).",
    )


def _consistency(names: list, label, k: int, pos_label, frame: pd.DataFrame) -> pd.DataFrame:
    """The :func:`consistency` table of all the rows of ``frame``."""
    series = frame[[label]].iloc[:, 0]
    positive, missing = binary_outcome(series, pos_label, "y_pred")
    summary = label_summary(series, positive, missing)
    check_pos_label_summaries([summary], pos_label)
    check_binary_summary(summary, pos_label, "y_pred")
    check_usable_rows(len(frame), {"y_pred": summary}, None, "consistency")
    points = np.column_stack(
        [numeric_values(frame[[name]].iloc[:, 0], "features") for name in names]
    ).reshape(len(frame), len(names))
    usable = ~missing & ~np.isnan(points).any(axis=1)
    warn_excluded(
        int((~usable).sum()), len(frame), "a feature or the prediction is missing (or not a number)"
    )
    n = int(usable.sum())
    if not n:
        raise InvalidInputError(
            "No row has both every `features` value and a `y_pred` value, so no usable rows: consistency "
            "needs rows with both. Check the columns (a failed join or read leaves them empty)."
        )
    if k > n:
        raise InvalidInputError(
            f"`n_neighbors={k}` is more than the {n} usable rows: pass at most `n_neighbors={n}` (each row's "
            f"neighbourhood is taken among the rows used)."
        )
    points, predicted = points[usable], positive[usable].astype("float64")
    largest = float(np.abs(points).max())
    if largest > 2.0**500:  # squared distances would overflow (no neighbour found): scaled exactly
        points = np.ldexp(points, -int(np.frexp(largest)[1]))
    _, nearest = cKDTree(points).query(points, k=k)
    nearest = np.asarray(nearest).reshape(n, k)
    gap = np.abs(predicted - predicted[nearest].mean(axis=1))
    table = pd.DataFrame({"N": [n], "n_neighbors": [k], "consistency": [1.0 - float(gap.mean())]})
    return attach_info(table, pos_label=pos_label, rows=len(frame), rows_used=n)
