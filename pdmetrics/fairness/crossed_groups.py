"""Which intersections drive a gap: each crossed cell's rate, its gap and its contribution.

:func:`intersections` crosses the group columns of ``by`` (``["sex", "race"]``: one cell per
combination present) and ranks the cells by how much each moves the overall rate of a metric.
A cell's rate is a proportion ``count / N`` of its confusion counts (``N`` the rate's
denominator in the cell: rows for the selection rate, actual positives for TPR, ...), and

``contribution = N_cell * (rate_cell - rate_overall) / N_all``

is how far the overall rate would move back if the cell had the overall rate: the
contributions of all cells add up to 0, a large positive one marks a cell that lifts the
overall rate, a large negative one a cell that pulls it down. Cells whose ``N`` is below
``min_size`` are flagged (their rate is too noisy to read on its own) or, with
``small="pool"``, pooled into one ``"(small cells)"`` row (its contribution is the sum of
theirs). One additive pass: the confusion counts of every crossed cell
(:func:`~pdmetrics.fairness.group_rates.group_counts_state`).
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._division import divide
from pdmetrics._docstrings import fill
from pdmetrics._table_spec import table
from pdmetrics._tables import attach_info
from pdmetrics._validation import plain
from pdmetrics._warnings import warn_undefined
from pdmetrics.errors import InvalidInputError
from pdmetrics.fairness._inputs import column_table, label_columns
from pdmetrics.fairness.gap_significance import PROPORTIONS
from pdmetrics.fairness.group_rates import (
    RATES,
    class_state_counts,
    group_classes_state,
    group_counts_from_state,
    group_counts_state,
)
from pdmetrics.fairness.multiclass import (
    CLASS,
    CLASSES_OPTIONS,
    LABELLED_ROWS,
    check_class_options,
    class_column,
    class_counts,
)

__all__ = ["INTERSECTION_COLUMNS", "SMALL_CELLS", "SMALL_LABEL", "intersections"]

#: The label of the pooled row of small cells (``small="pool"``), in every group column.
SMALL_LABEL = "(small cells)"
#: ``small=``: flag the small cells, or pool them into one row.
SMALL_CELLS = ("flag", "pool")
#: The result columns after the group columns.
INTERSECTION_COLUMNS = ["N", "count", "rate", "rate_overall", "gap", "contribution", "rank", "small"]


@table
@fill(labelled_rows=LABELLED_ROWS, classes_options=CLASSES_OPTIONS)
def intersections(
    frame,
    *,
    y_true,
    y_pred,
    by,
    metric: str = "selection_rate",
    min_size: int = 30,
    pos_label=1,
    classes=None,
    ordinal: bool = False,
    small: str = "flag",
) -> pd.DataFrame:
    """Which crossed groups drive a gap: each cell's rate, gap to the overall rate and contribution.

    Parameters
    ----------
    {labelled_rows}
    by : str or list of str
        Group columns, crossed: one cell per combination of values present in the data.
        Rows with a missing group value are left out (of the overall rate too).
    metric : str, default "selection_rate"
        The rate: one of ``selection_rate, tpr, fpr, tnr, fnr, accuracy, precision, recall``.
    min_size : int, default 30
        Cells whose ``N`` (the rate's denominator in the cell) is below it are small.
    pos_label : scalar, default 1
        The positive outcome. Leave it at its default with ``classes=``.
    {classes_options}
    small : {"flag", "pool"}, default "flag"
        Flag the small cells (column ``small``), or pool them into one row labelled
        ``"(small cells)"`` in every group column.

    Returns
    -------
    pandas.DataFrame
        The group columns, then ``N, count, rate, rate_overall, gap, contribution, rank,
        small``, one row per cell, ranked by ``|contribution|`` (rank 1 first; ties keep the
        sorted order of the groups). ``N`` and ``count`` are the rate's denominator and
        numerator in the cell, ``gap = rate - rate_overall`` and ``contribution = N * (rate -
        rate_overall) / N_all`` (the contributions add up to 0). A cell with ``N = 0`` has
        no rate (NaN gap, contribution 0).

        With ``classes=``: a ``class`` column after the group columns and one block of rows
        per class (one vs rest), then per split ``">= k"`` (``ordinal=True``), each block its
        own table (the class's overall rate, its contributions adding up to 0, its ranks from 1,
        its small cells pooled apart); ``attrs["pdmetrics"]["N_all"]`` holds each block's
        ``N_all``.

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> cells = [("F", "a", 50, 40), ("M", "a", 50, 25), ("F", "b", 40, 20), ("M", "b", 10, 1)]
    >>> df = pd.DataFrame([(sex, race, int(i < k)) for sex, race, n, k in cells for i in range(n)],
    ...                   columns=["sex", "race", "pred"]).assign(y=1)
    >>> out = df.fairness.intersections(y_true="y", y_pred="pred", by=["sex", "race"], min_size=20)
    >>> out[["sex", "race", "N", "rate", "gap", "contribution", "rank", "small"]].round(3)
      sex race   N  rate    gap  contribution  rank  small
    0   F    a  50   0.8  0.227         0.076     1  False
    1   M    b  10   0.1 -0.473        -0.032     2   True
    2   M    a  50   0.5 -0.073        -0.024     3  False
    3   F    b  40   0.5 -0.073        -0.020     4  False
    >>> pooled = pdmetrics.fairness.intersections(df, y_true="y", y_pred="pred", by=["sex", "race"],
    ...                                           min_size=20, small="pool")
    >>> pooled[["sex", "race", "N", "rate", "small"]].round(3)
                 sex           race   N  rate  small
    0              F              a  50   0.8  False
    1  (small cells)  (small cells)  10   0.1   True
    2              M              a  50   0.5  False
    3              F              b  40   0.5  False
    """
    columns = label_columns(frame, y_true, y_pred, by)
    if columns["by"] is None:
        raise InvalidInputError("`by=None`: name the group columns to cross, e.g. `by=['sex', 'race']`.")
    if not isinstance(metric, str) or metric not in PROPORTIONS:
        raise InvalidInputError(
            f"`metric={plain(metric)!r}`: choose one of {', '.join(map(repr, RATES))}, e.g. `metric='tpr'`."
        )
    if isinstance(min_size, bool) or not isinstance(min_size, (int, np.integer)) or min_size < 0:
        raise InvalidInputError(f"`min_size={plain(min_size)!r}` must be a whole number of rows, e.g. 30.")
    if not isinstance(small, str) or small not in SMALL_CELLS:
        raise InvalidInputError(f"`small={plain(small)!r}`: choose 'flag' or 'pool'.")
    chosen = check_class_options(classes, ordinal, pos_label)
    options = {"metric": metric, "min_size": int(min_size), "small": small}
    if chosen is not None:
        finalize = partial(_classes_from_state, classes=chosen, ordinal=ordinal, **options)
        state_options = {"result_columns": [CLASS, *INTERSECTION_COLUMNS]}
        return column_table(group_classes_state, columns, state_options, finalize)
    state_options = {"pos_label": pos_label, "result_columns": INTERSECTION_COLUMNS}
    finalize = partial(_from_state, pos_label=pos_label, **options)
    return column_table(group_counts_state, columns, state_options, finalize)


def _from_state(state, pos_label, metric: str, min_size: int, small: str) -> pd.DataFrame:
    counts, keys, info = group_counts_from_state(state, pos_label)
    result, n_all = _ranked_cells(keys, counts, metric, min_size, small)
    if not n_all:
        warn_undefined(f"`metric={metric!r}` has no row in its denominator: every rate is NaN.")
    return attach_info(
        result, metric=metric, min_size=min_size, small=small, N_all=n_all, pos_label=pos_label, **info
    )


def _classes_from_state(
    state, classes, ordinal: bool, metric: str, min_size: int, small: str
) -> pd.DataFrame:
    keys, found, info = class_state_counts(state, classes, ordinal, "intersections")
    per_class = class_counts(state.counts.counts, len(state.keys), found)  # (cells, classes, 4)
    blocks, totals = [], {}
    labels = class_column(found, macro=False)
    # no class at all (every row left out): one empty block keeps the table's columns
    for i, label in enumerate(labels or [None]):  # a few classes, not rows
        cells = per_class[:, i] if labels else np.zeros((len(keys), 4), dtype=np.int64)
        block, n_all = _ranked_cells(keys, cells, metric, min_size, small)
        block.insert(len(keys.columns), CLASS, pd.array([label] * len(block), dtype=object))
        blocks.append(block)
        if labels:
            totals[label] = n_all
    empty = [label for label, n_all in totals.items() if not n_all]
    if empty:
        warn_undefined(
            f"`metric={metric!r}` has no row in its denominator for the class(es) {empty!r}: "
            f"their rates are NaN."
        )
    result = pd.concat(blocks, ignore_index=True)
    return attach_info(result, metric=metric, min_size=min_size, small=small, N_all=totals, **info)


def _ranked_cells(keys: pd.DataFrame, counts: np.ndarray, metric: str, min_size: int, small: str) -> tuple:
    """The cells' rates, gaps and contributions from their confusion counts, ranked; and ``N_all``."""
    numerator, denominator = PROPORTIONS[metric]
    n = counts[:, list(denominator)].sum(axis=1)
    count = counts[:, list(numerator)].sum(axis=1)
    is_small = n < min_size
    if small == "pool":
        for name in keys.columns:  # the few group columns
            if (keys[name].astype(object) == SMALL_LABEL).any():
                raise InvalidInputError(
                    f"`by=` column {plain(name)!r} holds the value {SMALL_LABEL!r}, which "
                    f"`small='pool'` uses to label the pooled small cells; rename that value first, "
                    f"e.g. `.replace({{{SMALL_LABEL!r}: 'small cells'}})`, or pass `small='flag'`."
                )
    if small == "pool" and is_small.any():
        pooled = pd.DataFrame({name: pd.array([SMALL_LABEL], dtype=object) for name in keys.columns})
        keep = ~is_small
        keys = pd.concat([keys[keep].astype(object), pooled], ignore_index=True)
        n = np.append(n[keep], n[is_small].sum())
        count = np.append(count[keep], count[is_small].sum())
        is_small = np.append(np.zeros(int(keep.sum()), dtype=bool), True)
    n_all, count_all = int(n.sum()), int(count.sum())
    overall = count_all / n_all if n_all else np.nan
    result = keys.reset_index(drop=True).copy()
    result["N"] = n
    result["count"] = count
    result["rate"] = divide(count, n, np.nan)
    result["rate_overall"] = overall
    result["gap"] = result["rate"] - overall
    contribution = (count - n * overall) / n_all if n_all else np.full(n.size, np.nan)
    result["contribution"] = contribution
    order = np.argsort(-np.abs(np.nan_to_num(contribution, nan=0.0)), kind="stable")
    result = result.iloc[order].reset_index(drop=True)
    result["rank"] = np.arange(1, len(result) + 1, dtype=np.int64)
    result["small"] = is_small[order]
    result.index = pd.RangeIndex(len(result))
    return result, n_all
