"""Smoothed empirical differential fairness (Foulds et al. 2018, as AIF360 computes it), with
the pair of groups and the outcome that drive it.

Each group's Dirichlet-smoothed rate of the positive outcome comes from two counts per group
(positives, rows): one bincount over ``group x outcome``, combined over partitions. Since the
logarithm is increasing, the largest ``|ln(p_i / p_j)|`` over pairs of groups is that of the
groups with the highest and the lowest rate, for each outcome: no loop over pairs.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._additive import Additive
from pdmetrics._groups import as_series, check_identifier_names
from pdmetrics._table_spec import table
from pdmetrics._tables import attach_info
from pdmetrics._validation import finite_number, one_name, plain, require_columns
from pdmetrics._warnings import warn_excluded, warn_undefined
from pdmetrics.errors import InvalidInputError
from pdmetrics.fairness._inputs import (
    CategoryCounts,
    LabelSummary,
    binary_outcome,
    category_state,
    check_binary_summary,
    check_pos_label_summaries,
    check_usable_rows,
    column_table,
    label_summary,
    plain_keys,
)

__all__ = ["OutcomeCounts", "differential_fairness", "outcome_state", "smoothed_rates"]

#: The result columns after the groups' columns, in table order.
_COLUMNS = ("N", "N_groups", "outcome", "rate", "versus_rate", "differential_fairness")
#: The category of a row whose prediction is missing (after negative 0 and positive 1).
_MISSING = 2


@dataclass(frozen=True)
class OutcomeCounts(Additive):
    """The additive state of :func:`differential_fairness` over some rows: what the checks of
    the whole ``y_pred`` column need, and the rows per group and outcome (negative, positive,
    missing)."""

    label: LabelSummary
    counts: CategoryCounts


def outcome_state(y_pred, by, pos_label) -> OutcomeCounts:
    """The :class:`OutcomeCounts` of one chunk of rows (no warning, no whole-column check)."""
    series = as_series(y_pred, "y_pred")
    positive, missing = binary_outcome(series, pos_label, "y_pred")
    category = positive.astype(np.intp)
    category[missing] = _MISSING
    return OutcomeCounts(label_summary(series, positive, missing), category_state(category, 3, by, ()))


def smoothed_rates(positives, rows, concentration: float = 1.0) -> np.ndarray:
    """Dirichlet-smoothed positive rates ``(positives + c/2) / (rows + c)`` (AIF360's
    ``_smoothed_base_rates`` for a binary outcome).

    Examples
    --------
    >>> from pdmetrics.fairness.differential import smoothed_rates
    >>> smoothed_rates([0, 3], [2, 3], concentration=1.0).round(3).tolist()
    [0.167, 0.875]
    """
    positives = np.asarray(positives, dtype="float64")
    with np.errstate(divide="ignore", invalid="ignore"):
        return (positives + concentration / 2.0) / (np.asarray(rows, dtype="float64") + concentration)


def _log_gap(high: float, low: float) -> float:
    """``|ln high - ln low|``, 0 for two equal rates (two rates of 0 included)."""
    if high == low:
        return 0.0
    with np.errstate(divide="ignore"):
        return float(abs(np.log(high) - np.log(low)))


@table
def differential_fairness(frame, *, y_pred, by, pos_label=1, concentration=1.0) -> pd.DataFrame:
    """Smoothed empirical differential fairness of the predictions over the groups of ``by``,
    and the pair of groups and the outcome that drive it.

    Differential fairness (Foulds, Islam, Keya and Pan, "An Intersectional Definition of
    Fairness", 2018) is the smallest ``epsilon`` with ``exp(-epsilon) <= P(y | g_i) / P(y |
    g_j) <= exp(epsilon)`` for every outcome ``y`` and every pair of groups: 0 when every group
    has the same rates, larger the further apart they are (``epsilon = ln 2``: one group is
    twice as likely as another to receive an outcome). Each group's rate is smoothed with a
    symmetric Dirichlet prior: ``p_g = (positives_g + concentration / 2) / (N_g +
    concentration)``, as AIF360's ``BinaryLabelDatasetMetric.smoothed_empirical_differential_fairness``
    computes it (its groups are every combination of the protected attributes present; here
    those of the ``by`` columns).

    Parameters
    ----------
    frame : DataFrame
        The rows (pandas; dask and polars frames run the same table: the counts of each
        partition add up).
    y_pred : str
        Column of binary outcomes (one of them ``pos_label``): the predictions (or any
        binary outcome, e.g. the labels of a data set); rows with a missing value are left
        out with an :class:`~pdmetrics.ExcludedRowsWarning`.
    by : str or list of str
        Group column(s); several columns give their intersections (the combinations
        present). Rows with a missing group value are left out with an
        ``ExcludedRowsWarning``.
    pos_label : scalar, default 1
        The positive outcome; it must occur in ``y_pred``.
    concentration : float, default 1.0
        The Dirichlet prior's total weight (``concentration / 2`` pseudo-rows of each
        outcome per group); 0 gives the unsmoothed empirical rates.

    Returns
    -------
    pandas.DataFrame
        One row. First the pair of groups that drives the value: the group columns (the
        group with the higher rate of the outcome) and ``versus_<column>`` for each group
        column (the group with the lower rate); then ``N`` (rows used), ``N_groups``,
        ``outcome`` (``"positive"``: ``y_pred == pos_label``, or ``"negative"``), ``rate`` and
        ``versus_rate`` (the two groups' smoothed rates of that outcome) and
        ``differential_fairness`` (``ln(rate / versus_rate)``, the largest over every pair of
        groups and both outcomes). A tie goes to the positive outcome, then to the groups
        first in sorted order. ``table.attrs["pdmetrics"]`` records ``concentration``,
        ``pos_label`` and the rows used and left out.

    Notes
    -----
    - **A group that predicts one class only**: without smoothing (``concentration=0``) its
      rate of the other outcome is 0 and its ratio to any group with a non-zero rate is
      unbounded: the value is ``inf``, as AIF360 returns, and the pair and outcome show where
      it comes from. We return ``inf`` rather than refuse because it is the true value of the
      definition (no finite ``epsilon`` bounds the ratio); the default smoothing
      (``concentration=1``) keeps every rate above 0 and the value finite, and is what the
      definition's authors recommend for small groups. Two groups that both have rate 0 have
      ratio 1 here (``ln`` of the ratio 0), where AIF360's ``|ln 0 - ln 0|`` is NaN.
    - With a single group there is no pair: the value is NaN, with a
      :class:`~pdmetrics.UndefinedMetricWarning` (AIF360 raises an error).

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> df = pd.DataFrame({"pred": [1, 0, 0, 1, 1, 0, 1, 1],
    ...                    "sex": ["F", "F", "F", "F", "M", "M", "M", "M"]})
    >>> out = df.fairness.differential_fairness(y_pred="pred", by="sex")
    >>> out[["sex", "versus_sex", "outcome", "rate", "versus_rate", "differential_fairness"]].round(4)
      sex versus_sex   outcome  rate  versus_rate  differential_fairness
    0   F          M  negative   0.5          0.3                 0.5108
    """
    name = one_name(frame, "y_pred", y_pred)
    groups = require_columns(frame, "by", by)
    given, concentration = concentration, finite_number(concentration, "concentration")
    if concentration < 0:
        raise InvalidInputError(
            f"`concentration={plain(given)!r}` must be 0 or more (the Dirichlet prior's weight; "
            f"0 for the unsmoothed rates)."
        )
    check_identifier_names(groups, [*(f"versus_{plain(g)}" for g in groups), *_COLUMNS], "by")
    finalize = partial(_table_from_state, pos_label=pos_label, concentration=concentration)
    return column_table(outcome_state, {"y_pred": name, "by": groups}, {"pos_label": pos_label}, finalize)


def _table_from_state(state: OutcomeCounts, pos_label, concentration: float) -> pd.DataFrame:
    """The :func:`differential_fairness` table from its state (options already checked)."""
    check_pos_label_summaries([state.label], pos_label)
    check_binary_summary(state.label, pos_label, "y_pred")
    counts = state.counts
    rows = int(counts.overall.sum())
    missing_label = int(counts.overall[_MISSING])
    check_usable_rows(rows, {"y_pred": state.label}, None, "differential fairness")
    per_group = counts.counts[:, :_MISSING]
    totals = per_group.sum(axis=1)
    warn_excluded(missing_label, rows, "the prediction is missing")
    warn_excluded(rows - missing_label - int(totals.sum()), rows, "a group value is missing")
    present = totals > 0  # (a group whose rows all miss the prediction is no group)
    keys = plain_keys(counts.keys).loc[present].reset_index(drop=True)
    positive_rate = smoothed_rates(per_group[present, 1], totals[present], concentration)
    if not present.any():
        raise InvalidInputError(
            "No row with a prediction has a value in every `by` column, so no usable rows: fill the "
            "missing group values first, e.g. `df.fillna({column: 'unknown'})`."
        )
    best = None
    for outcome, rates in (("positive", positive_rate), ("negative", 1.0 - positive_rate)):
        high, low = int(np.argmax(rates)), int(np.argmin(rates))
        gap = _log_gap(rates[high], rates[low])
        if best is None or gap > best[0]:
            best = (gap, outcome, high, low, rates)
    gap, outcome, high, low, rates = best
    if len(keys) < 2:
        warn_undefined(
            "Differential fairness is NaN: the rows used form a single group, so there is no pair "
            "of groups to compare. Check `by` (or the rows left out)."
        )
        gap = np.nan
    table = pd.DataFrame(index=pd.RangeIndex(1))
    for column in keys.columns:
        table[column] = pd.array([keys[column].iloc[high]], dtype=object)
    for column in keys.columns:
        table[f"versus_{plain(column)}"] = pd.array([keys[column].iloc[low]], dtype=object)
    values = [int(totals.sum()), len(keys), outcome, float(rates[high]), float(rates[low]), float(gap)]
    for column, value in zip(_COLUMNS, values):
        table[column] = [value]
    return attach_info(
        table,
        pos_label=pos_label,
        concentration=concentration,
        rows=rows,
        rows_used=int(totals.sum()),
        rows_missing_label=missing_label,
        rows_missing_group=rows - missing_label - int(totals.sum()),
    )
