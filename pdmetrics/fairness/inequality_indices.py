"""AIF360's inequality indices of the benefit ``b = y_pred - y_true + 1``: generalized entropy,
Theil index, coefficient of variation, and their between- and within-group decomposition.

A row's benefit takes three values (0 for a false negative, 1 for a correct prediction, 2 for
a false positive), so the counts per group and confusion cell are the whole additive state:
one bincount over ``group x cell``, combined over partitions, and every index is a weighted
sum over three values.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._additive import Additive
from pdmetrics._groups import POOLED_LABEL
from pdmetrics._table_spec import table
from pdmetrics._tables import attach_info
from pdmetrics._validation import finite_number, plain
from pdmetrics._warnings import warn_excluded, warn_undefined
from pdmetrics.errors import InvalidInputError
from pdmetrics.fairness._inputs import (
    CategoryCounts,
    binary_label_rows,
    category_state,
    check_label_summaries,
    check_usable_rows,
    column_table,
    label_columns,
    plain_keys,
)
from pdmetrics.fairness.confusion import FN, FP, TN, TP, cell_codes

__all__ = ["INDICES", "DECOMPOSITION", "BenefitCounts", "benefit_state", "generalized_entropy", "inequality"]

#: The index columns of every row of :func:`inequality`, in table order.
INDICES = ("generalized_entropy", "theil_index", "coefficient_of_variation")
#: The decomposition columns :func:`inequality` adds with ``by=``, in table order.
DECOMPOSITION = (
    "between_group_generalized_entropy",
    "within_group_generalized_entropy",
    "between_group_theil_index",
    "within_group_theil_index",
)
#: The benefit of each confusion cell (``[TN, FP, FN, TP]``): 1 - truth + prediction.
_BENEFIT_OF_CELL = {TN: 1, FP: 2, FN: 0, TP: 1}
#: The category of a row whose label or prediction is missing (after the four cells).
_MISSING = 4


@dataclass(frozen=True)
class BenefitCounts(Additive):
    """The additive state of :func:`inequality` over some rows.

    Attributes
    ----------
    labels : tuple of LabelSummary
        What the checks of the whole ``y_true`` and ``y_pred`` columns need.
    counts : CategoryCounts
        Rows per group (or overall, without groups) and category: the confusion cells
        ``[TN, FP, FN, TP]``, then rows missing a label or prediction.
    """

    labels: tuple
    counts: CategoryCounts


def benefit_state(y_true, y_pred, by, pos_label, result_columns=()) -> BenefitCounts:
    """The :class:`BenefitCounts` of one chunk of rows (no warning, no whole-column check)."""
    t_pos, p_pos, missing, summaries = binary_label_rows(y_true, y_pred, pos_label)
    category = cell_codes(t_pos, p_pos).astype(np.intp)
    category[missing] = _MISSING
    return BenefitCounts(summaries, category_state(category, _MISSING + 1, by, result_columns))


def _benefit_counts(cells: np.ndarray) -> np.ndarray:
    """Rows of benefit 0, 1 and 2 from confusion counts (last axis ``[TN, FP, FN, TP]``)."""
    return np.stack([cells[..., FN], cells[..., TN] + cells[..., TP], cells[..., FP]], axis=-1)


def _entropy_terms(ratio: np.ndarray, alpha: float) -> np.ndarray:
    """The generalized entropy's term of each ratio ``x = b / mu``: ``(x**alpha - 1) /
    (alpha (alpha - 1))``, ``x ln x`` (0 at 0) for alpha 1, ``-ln x`` for alpha 0."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if alpha == 1:
            return np.where(ratio > 0, ratio * np.log(np.where(ratio > 0, ratio, 1.0)), 0.0)
        if alpha == 0:
            return -np.log(ratio)
        return (ratio**alpha - 1.0) / (alpha * (alpha - 1.0))


def _weighted(counts: np.ndarray, terms: np.ndarray) -> np.ndarray:
    """``sum(counts * terms)`` over the last axis, a zero count adding nothing (not ``0 * inf``)."""
    with np.errstate(invalid="ignore"):
        return np.where(counts > 0, counts * terms, 0.0).sum(axis=-1)


def generalized_entropy(counts, alpha: float = 2.0, mean=None) -> np.ndarray:
    """AIF360's generalized entropy index of benefits given as counts of 0, 1 and 2.

    ``GE(alpha) = 1 / (n alpha (alpha - 1)) sum((b / mu)**alpha - 1)``; alpha 1 is the Theil
    index ``1/n sum(b/mu ln(b/mu))``, alpha 0 the mean log deviation ``-1/n sum(ln(b/mu))``.

    Parameters
    ----------
    counts : array of shape ``(..., 3)``
        Rows of benefit 0, 1 and 2 (per group along the leading axes).
    alpha : float, default 2
    mean : array, optional
        The mean benefit ``mu`` the ratios are taken against (default each row's own mean).

    Returns
    -------
    ndarray
        One index per leading position: NaN where ``mu`` is 0 or undefined (no row, or only
        false negatives), ``inf`` where alpha <= 0 and a benefit is 0.

    Examples
    --------
    >>> import numpy as np
    >>> from pdmetrics.fairness.inequality_indices import generalized_entropy
    >>> round(float(generalized_entropy(np.array([1, 2, 1]), alpha=2)), 6)  # benefits 0, 1, 1, 2
    0.25
    """
    counts = np.asarray(counts, dtype="float64")
    n = counts.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        if mean is None:
            mean = (counts[..., 1] + 2.0 * counts[..., 2]) / n
        mean = np.asarray(mean, dtype="float64")
        ratio = np.array([0.0, 1.0, 2.0]) / mean[..., None]
        total = _weighted(counts, _entropy_terms(ratio, alpha)) / n
    return np.where((mean > 0) & (n > 0), total, np.nan)


def _decomposition(counts: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Each group's share of the between- and within-group terms of ``GE(alpha)`` of all rows.

    ``between_g = n_g / n f(mu_g / mu)``, ``within_g = 1/n sum_{i in g} f(b_i / mu) - between_g``
    (``f`` the term of :func:`_entropy_terms`): the shares add up to the two terms, which add
    up to the index of every row.
    """
    n_group = counts.sum(axis=1).astype("float64")
    n = n_group.sum()
    mean = (counts[:, 1] + 2.0 * counts[:, 2]).sum() / n
    with np.errstate(divide="ignore", invalid="ignore"):
        group_mean = (counts[:, 1] + 2.0 * counts[:, 2]) / n_group
        between = np.where(n_group > 0, n_group * _entropy_terms(group_mean / mean, alpha), 0.0) / n
        share = _weighted(counts, _entropy_terms(np.array([0.0, 1.0, 2.0]) / mean, alpha)) / n
        within = share - between
    within = np.where(share == between, 0.0, within)  # (a group of false negatives only: inf - inf)
    if not mean > 0:
        return np.full(len(counts), np.nan), np.full(len(counts), np.nan)
    return between, within


def _indices(counts: np.ndarray, alpha: float) -> dict:
    """The index columns of :func:`inequality` for rows of benefit counts ``(rows, 3)``."""
    n = counts.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = (counts[:, 1] + 2.0 * counts[:, 2]) / n
    return {
        "N": n.astype(np.int64),
        "benefit_mean": np.where(n > 0, mean, np.nan),
        "generalized_entropy": generalized_entropy(counts, alpha),
        "theil_index": generalized_entropy(counts, 1.0),
        "coefficient_of_variation": np.sqrt(2.0 * generalized_entropy(counts, 2.0)),
    }


@table
def inequality(frame, *, y_true, y_pred, by=None, pos_label=1, alpha=2) -> pd.DataFrame:
    """AIF360's inequality indices of the benefit ``b = y_pred - y_true + 1``, and with ``by=``
    their split into inequality between and within groups.

    Each row's benefit is 0 (a false negative), 1 (a correct prediction) or 2 (a false
    positive); the indices measure how unequally the benefits are spread over the rows
    (Speicher et al., KDD 2018, as AIF360's ``ClassificationMetric`` computes them), 0 when
    every row has the same benefit. With ``mu`` the mean benefit of the rows:

    - ``generalized_entropy``: ``GE(alpha) = 1 / (n alpha (alpha - 1)) sum((b/mu)**alpha - 1)``;
      alpha 1 gives the Theil index, alpha 0 the mean log deviation ``-1/n sum(ln(b/mu))``;
    - ``theil_index``: ``GE(1) = 1/n sum(b/mu ln(b/mu))`` (``0 ln 0 = 0``);
    - ``coefficient_of_variation``: ``sqrt(2 GE(2))``, the standard deviation of the benefits
      over their mean (AIF360's ``coefficient_of_variation``).

    With ``by=``, replacing each row's benefit by its group's mean gives the between-group
    index (AIF360's ``between_group_generalized_entropy_index`` with the two groups privileged
    and unprivileged, ``between_all_groups_...`` with every intersection of the protected
    attributes); what is left, ``GE - between``, is the within-group index, the groups' own
    indices weighted by ``n_g / n (mu_g / mu)**alpha``.

    Parameters
    ----------
    frame : DataFrame
        The labelled rows (pandas; dask and polars frames run the same table: the counts of
        each partition add up).
    y_true, y_pred : str
        Columns of true and predicted binary labels (one of them ``pos_label``); rows with a
        missing value are left out with an :class:`~pdmetrics.ExcludedRowsWarning`.
    by : str or list of str, optional
        Group column(s); several columns give their intersections. Rows with a missing group
        value are then left out of every row of the table (so that the between and within
        terms add up to the index of the rows used), with an ``ExcludedRowsWarning``. A group
        column named like a result column is refused.
    pos_label : scalar, default 1
        The positive (favourable) outcome; it must occur in the data.
    alpha : float, default 2
        The generalized entropy's parameter: larger values weigh the rows of high benefit
        (false positives) more, smaller ones the rows of low benefit (false negatives).

    Returns
    -------
    pandas.DataFrame
        Without ``by``: one row, columns ``N, benefit_mean, generalized_entropy, theil_index,
        coefficient_of_variation``. With ``by``: the group columns first, one row per group
        in sorted order with the indices of that group's rows alone, then a row labelled
        ``"(all)"`` with the indices of every row used, and the columns
        ``between_group_generalized_entropy, within_group_generalized_entropy,
        between_group_theil_index, within_group_theil_index``: in the ``"(all)"`` row the two
        terms of ``GE(alpha)`` and of the Theil index (each pair adds up to the row's
        ``generalized_entropy`` and ``theil_index``), in a group's row that group's share of
        each term (the groups' shares add up to the ``"(all)"`` row; a share of the between
        term is negative for a group whose mean benefit is below ``mu``, when alpha > 0).
        ``table.attrs["pdmetrics"]`` records ``alpha``, ``pos_label`` and the rows used and
        left out.

    Notes
    -----
    - **Where it is undefined**: a group whose rows are all false negatives has mean benefit
      0, so its own indices are NaN (with a :class:`~pdmetrics.UndefinedMetricWarning`); if
      every row is one, every index is. With alpha <= 0, a single false negative makes
      ``GE(alpha)`` infinite (``ln 0``, or ``0`` to a negative power): ``inf``, as AIF360
      returns (the Theil index and the coefficient of variation stay finite).
    - **alpha = 0**: the value is AIF360's documented formula, the mean log deviation
      ``-1/n sum(ln(b/mu))``. AIF360 0.6.1's code divides that sum by ``mu`` once more
      (``-mean(ln(b/mu) / mu)``), so its value is this one divided by the mean benefit; the
      decomposition above only holds for the documented formula.
    - A group with one row has indices 0 (one benefit, equal to its mean).

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> df = pd.DataFrame({"sex": ["F", "F", "F", "M", "M", "M"],
    ...                    "y": [1, 0, 1, 1, 0, 0], "pred": [1, 0, 0, 1, 1, 0]})
    >>> df.fairness.inequality(y_true="y", y_pred="pred").round(4)
       N  benefit_mean  generalized_entropy  theil_index  coefficient_of_variation
    0  6           1.0               0.1667       0.2310                    0.5774
    >>> out = df.fairness.inequality(y_true="y", y_pred="pred", by="sex")
    >>> out[["sex", "N", "generalized_entropy", "between_group_generalized_entropy"]].round(4)
         sex  N  generalized_entropy  between_group_generalized_entropy
    0      F  3               0.2500                            -0.1389
    1      M  3               0.0625                             0.1944
    2  (all)  6               0.1667                             0.0556
    """
    columns = label_columns(frame, y_true, y_pred, by)
    alpha = finite_number(alpha, "alpha")
    result_columns = ("N", "benefit_mean", *INDICES, *(DECOMPOSITION if by is not None else ()))
    options = {"pos_label": pos_label, "result_columns": result_columns}
    finalize = partial(inequality_from_state, pos_label=pos_label, alpha=alpha)
    return column_table(benefit_state, columns, options, finalize)


def inequality_from_state(state: BenefitCounts, pos_label, alpha: float) -> pd.DataFrame:
    """The :func:`inequality` table from its state (options already checked)."""
    check_label_summaries(state.labels, pos_label)
    counts = state.counts
    rows = int(counts.overall.sum())
    missing_label = int(counts.overall[_MISSING])
    summaries = dict(zip(("y_true", "y_pred"), state.labels))
    check_usable_rows(rows, summaries, missing_label, "the inequality indices")
    warn_excluded(missing_label, rows, "the label or the prediction is missing")
    if counts.keys is None:
        benefits = _benefit_counts(counts.overall[None, :_MISSING])
        table = pd.DataFrame(_indices(benefits, alpha))
        missing_group = 0
    else:
        per_group = _benefit_counts(counts.counts[:, :_MISSING])
        missing_group = rows - missing_label - int(per_group.sum())
        warn_excluded(missing_group, rows, "a group value is missing")
        if not per_group.sum():
            raise InvalidInputError(
                f"No row with a label and a prediction has a value in every `by` column "
                f"({', '.join(repr(plain(name)) for name in counts.keys.columns)}), so no usable rows: "
                f"fill the missing group values first, e.g. `df.fillna({{column: 'unknown'}})`."
            )
        keys = plain_keys(counts.keys)
        table = pd.DataFrame(
            {name: pd.array([*keys[name].tolist(), POOLED_LABEL], dtype=object) for name in keys}
        )
        benefits = np.vstack([per_group, per_group.sum(axis=0)])
        for name, values in _indices(benefits, alpha).items():
            table[name] = values
        for suffix, exponent in (("generalized_entropy", alpha), ("theil_index", 1.0)):
            between, within = _decomposition(per_group, exponent)
            table[f"between_group_{suffix}"] = np.append(between, between.sum())
            table[f"within_group_{suffix}"] = np.append(within, within.sum())
    _warn_undefined(table, counts.keys)
    table.index = pd.RangeIndex(len(table))
    return attach_info(
        table,
        alpha=alpha,
        pos_label=pos_label,
        rows=rows,
        rows_used=int(table["N"].iloc[-1]),
        rows_missing_label=missing_label,
        rows_missing_group=missing_group,
    )


def _warn_undefined(table: pd.DataFrame, keys) -> None:
    """One warning naming the rows whose mean benefit is 0 (only false negatives) or undefined."""
    undefined = ~(table["benefit_mean"].to_numpy(dtype="float64") > 0)
    if not undefined.any():
        return
    if keys is None or undefined[-1]:
        where = "every row used is a false negative"
    else:
        names = list(keys.columns)
        groups = [
            ", ".join(f"{plain(name)}={plain(table[name].iloc[i])!r}" for name in names)
            for i in np.flatnonzero(undefined)
        ]
        where = f"in the group(s) {'; '.join(groups)} every row is a false negative or none is used"
    warn_undefined(
        f"The inequality indices are NaN where the mean benefit is 0: {where} (benefit = "
        f"y_pred - y_true + 1 is 0 for a false negative), so b / mean is undefined."
    )
