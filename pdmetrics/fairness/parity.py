"""Group fairness of a binary classifier: SPD, DI, AOD, EOD between privileged and unprivileged rows.

Definitions follow the seed document (a fairness-audit project) and AIF360's
``ClassificationMetric``: differences are *unprivileged minus privileged*, ratios
*unprivileged over privileged*. Everything is finalized from confusion counts
``[TN, FP, FN, TP]`` of the two groups (:func:`confusion_counts`), counted in one bincount
per sensitive column.

The average odds difference is signed, as the document and AIF360 define it;
``average_abs_odds_difference`` is the form with absolute values that the reference project
actually computes (AIF360's ``average_abs_odds_difference``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._additive import Additive
from pdmetrics._division import WARN, check_zero_division, divide
from pdmetrics._docstrings import fill
from pdmetrics._groups import POOLED_LABEL, as_series, check_not_pooled, named_columns
from pdmetrics._renamed import renamed
from pdmetrics._table_spec import table
from pdmetrics._tables import attach_info
from pdmetrics._validation import plain, preview
from pdmetrics._warnings import warn_excluded, warn_undefined
from pdmetrics.errors import InvalidInputError
from pdmetrics.fairness._inputs import (
    binary_label_rows,
    binary_labels,
    check_label_summaries,
    check_usable_rows,
    column_table,
    label_columns,
)
from pdmetrics.fairness.bootstrap import (
    INTERVAL_OPTIONS,
    bootstrap_counts,
    bootstrap_options,
    check_bootstrap_options,
    percentile_interval,
)
from pdmetrics.fairness.confusion import FN, FP, TN, TP, cell_codes, confusion_counts, rates_from_counts
from pdmetrics.fairness.groups import (
    is_midrange,
    midrange_threshold,
    privileged_groups,
    resolve_group_options,
    sensitive_values,
    split_at_threshold,
)
from pdmetrics.fairness.multiclass import (
    CLASS,
    ClassState,
    check_class_table,
    class_column,
    class_counts,
    class_label_rows,
    outcome_columns,
    resolve_classes,
    seen_values,
    worst_class,
)

__all__ = [
    "FAIRNESS_METRICS",
    "statistical_parity_difference",
    "disparate_impact",
    "average_odds_difference",
    "average_abs_odds_difference",
    "equal_opportunity_difference",
    "fairness_from_counts",
    "classification",
    "ClassificationState",
    "classification_state",
    "classification_from_state",
]

#: Fairness columns of :func:`classification`, in table order.
FAIRNESS_METRICS = (
    "statistical_parity_difference",
    "disparate_impact",
    "average_odds_difference",
    "average_abs_odds_difference",
    "equal_opportunity_difference",
)
_WORST = 1.0
#: The fairness tables' extra ``zero_division`` choice: an undefined odds/opportunity difference is 1.0.
WORST = "worst"


def check_fairness_zero_division(zero_division):
    """``zero_division`` of the fairness tables: ``"worst"``, ``"warn"`` or a Python float."""
    if isinstance(zero_division, str) and zero_division == WORST:
        return WORST
    try:
        return check_zero_division(zero_division)
    except InvalidInputError:
        raise InvalidInputError(
            f'`zero_division={plain(zero_division)!r}` is not an option: pass "worst" (an undefined '
            f"odds/opportunity difference is 1.0, its worst value, with a warning; the default), "
            f'"warn" (NaN with a warning) or the number to report, e.g. `zero_division=0`.'
        ) from None


def _listing(items: list[str], limit: int = 5) -> str:
    """Items joined by "; ", cut after ``limit`` with the total, so warnings stay short."""
    return "; ".join(items[:limit]) + (f"; ... ({len(items)} in all)" if len(items) > limit else "")


def _apply_policy(
    values: np.ndarray, is_undefined: np.ndarray, zero_division, metric: str, labels, reason: np.ndarray
) -> np.ndarray:
    """Replace undefined entries by the worst value (1.0) or NaN, warning; or by a number, silently."""
    if not is_undefined.any():
        return values
    if zero_division not in (WORST, WARN):
        return np.where(is_undefined, zero_division, values)
    where = _listing([f"{labels[i]} ({reason[i]})" for i in np.flatnonzero(is_undefined)])
    fill = _WORST if zero_division == WORST else np.nan
    other = "'warn' for NaN" if zero_division == WORST else "'worst' for 1.0"
    warn_undefined(
        f"{metric} is undefined for {where}; set to {fill} "
        f"(zero_division={zero_division!r}; pass {other}, or a number to report it silently)."
    )
    return np.where(is_undefined, fill, values)


def _missing_side(no_priv: np.ndarray, no_unpriv: np.ndarray, what: str) -> np.ndarray:
    both = np.where(no_priv & no_unpriv, f"neither group has {what}", "")
    priv = np.where(no_priv & ~no_unpriv, f"the privileged group has no {what}", "")
    unpriv = np.where(no_unpriv & ~no_priv, f"the unprivileged group has no {what}", "")
    return np.char.add(np.char.add(both.astype(str), priv.astype(str)), unpriv.astype(str))


@renamed("on_undefined")
def fairness_from_counts(
    privileged, unprivileged, zero_division="worst", labels=None, metrics=FAIRNESS_METRICS
) -> dict[str, np.ndarray]:
    """SPD, DI, AOD (signed and absolute) and EOD from the two groups' confusion counts.

    Parameters
    ----------
    privileged, unprivileged : array-like of int, shape ``(..., 4)``
        Confusion counts ``[TN, FP, FN, TP]`` of each group (one row per comparison).
    zero_division : "worst", "warn" or float, default "worst"
        What the odds and opportunity differences become when a group has no actual
        positives (TPR undefined) or, for the odds, no actual negatives (FPR undefined):
        ``"worst"`` gives 1.0, the worst value, as the seed document says; ``"warn"`` NaN;
        both warn (:class:`~pdmetrics.UndefinedMetricWarning`; to stop on it instead, turn
        that warning into an error with :func:`warnings.simplefilter`). A number is reported
        instead, silently.
    labels : list of str, optional
        How warnings name each comparison (default ``"comparison i"``).
    metrics : sequence of str, optional
        The metrics to return (default all of :data:`FAIRNESS_METRICS`); warnings
        concern only these.

    Returns
    -------
    dict of ndarray
        Keys :data:`FAIRNESS_METRICS`. An empty group makes every metric NaN (with an
        :class:`~pdmetrics.UndefinedMetricWarning`). Disparate impact is ``inf`` when the
        privileged selection rate is 0 and the unprivileged one is not, NaN (with a warning)
        when both are 0.

    Examples
    --------
    >>> from pdmetrics.fairness import fairness_from_counts
    >>> result = fairness_from_counts([[1, 0, 0, 1]], [[0, 1, 0, 1]])
    >>> float(result["statistical_parity_difference"][0]), float(result["disparate_impact"][0])
    (0.5, 2.0)
    """
    zero_division = check_fairness_zero_division(zero_division)
    priv = np.atleast_2d(np.asarray(privileged, dtype=np.int64))
    unpriv = np.atleast_2d(np.asarray(unprivileged, dtype=np.int64))
    labels = [f"comparison {i}" for i in range(priv.shape[0])] if labels is None else list(labels)
    p, u = rates_from_counts(priv), rates_from_counts(unpriv)
    empty = (p["N"] == 0) | (u["N"] == 0)
    spd = u["selection_rate"] - p["selection_rate"]
    with np.errstate(invalid="ignore", divide="ignore"):
        di = u["selection_rate"] / p["selection_rate"]
        aod = ((u["fpr"] - p["fpr"]) + (u["tpr"] - p["tpr"])) / 2
        aod_abs = (np.abs(u["fpr"] - p["fpr"]) + np.abs(u["tpr"] - p["tpr"])) / 2
    eod = u["tpr"] - p["tpr"]
    unknown = [m for m in metrics if m not in FAIRNESS_METRICS]
    if unknown:
        raise InvalidInputError(f"Unknown fairness metric(s) {unknown!r}; choose from {FAIRNESS_METRICS}.")
    if empty.any():
        reason = _missing_side(p["N"] == 0, u["N"] == 0, "rows")
        where = _listing([f"{labels[i]} ({reason[i]})" for i in np.flatnonzero(empty)])
        warn_undefined(
            f"Fairness metrics are undefined for {where}: both groups need rows. "
            f"They are NaN; check the `threshold=`/`privileged=` definition."
        )
    pos_p, pos_u = priv[..., TP] + priv[..., FN], unpriv[..., TP] + unpriv[..., FN]
    neg_p, neg_u = priv[..., TN] + priv[..., FP], unpriv[..., TN] + unpriv[..., FP]
    no_pos = ~empty & ((pos_p == 0) | (pos_u == 0))
    no_neg = ~empty & ((neg_p == 0) | (neg_u == 0))
    both_zero = ~empty & np.isnan(di)
    if both_zero.any() and zero_division not in (WORST, WARN):
        di = np.where(both_zero, zero_division, di)
    elif both_zero.any() and "disparate_impact" in metrics:
        where = _listing([labels[i] for i in np.flatnonzero(both_zero)])
        warn_undefined(
            f"Disparate impact is undefined (0/0: neither group has a predicted positive) for "
            f"{where}; it is NaN (pass `zero_division=` a number to report that number). "
            f"Statistical parity difference (0) is still defined."
        )
    pos_reason = _missing_side(pos_p == 0, pos_u == 0, "actual positives")
    neg_reason = _missing_side(neg_p == 0, neg_u == 0, "actual negatives")
    odds_reason = np.where(no_pos, pos_reason, neg_reason)
    values = dict(zip(FAIRNESS_METRICS, (spd, di, aod, aod_abs, eod)))
    for name, is_undefined, reason, title in (
        ("average_odds_difference", no_pos | no_neg, odds_reason, "Average odds difference"),
        ("average_abs_odds_difference", no_pos | no_neg, odds_reason, "Average absolute odds difference"),
        ("equal_opportunity_difference", no_pos, pos_reason, "Equal opportunity difference"),
    ):
        if name in metrics:
            values[name] = _apply_policy(values[name], is_undefined, zero_division, title, labels, reason)
    return {name: np.where(empty, np.nan, values[name]) for name in metrics}


def quiet_fairness(privileged: np.ndarray, unprivileged: np.ndarray, zero_division) -> dict:
    """:func:`fairness_from_counts` without warnings or errors, for bootstrap replicates.

    Undefined odds/opportunity differences are 1.0 with ``"worst"``, NaN with ``"warn"``, else the number.
    """
    p, u = rates_from_counts(privileged), rates_from_counts(unprivileged)
    fill = {WORST: _WORST, WARN: np.nan}.get(zero_division, zero_division)
    empty = (p["N"] == 0) | (u["N"] == 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        d_fpr, d_tpr = u["fpr"] - p["fpr"], u["tpr"] - p["tpr"]
        values = {
            "statistical_parity_difference": u["selection_rate"] - p["selection_rate"],
            "disparate_impact": u["selection_rate"] / p["selection_rate"],
            "average_odds_difference": (d_fpr + d_tpr) / 2,
            "average_abs_odds_difference": (np.abs(d_fpr) + np.abs(d_tpr)) / 2,
            "equal_opportunity_difference": d_tpr,
        }
    no_pos = np.isnan(d_tpr)
    no_odds = no_pos | np.isnan(d_fpr)
    for name, undefined_here in (
        ("average_odds_difference", no_odds),
        ("average_abs_odds_difference", no_odds),
        ("equal_opportunity_difference", no_pos),
    ):
        values[name] = np.where(undefined_here, fill, values[name])
    if zero_division not in (WORST, WARN):  # disparate impact 0/0
        both_zero = (u["selection_rate"] == 0) & (p["selection_rate"] == 0)
        values["disparate_impact"] = np.where(both_zero, zero_division, values["disparate_impact"])
    return {name: np.where(empty, np.nan, value) for name, value in values.items()}


def nanmean_last(values: np.ndarray) -> np.ndarray:
    """Mean over the last axis of the non-NaN entries (NaN when there is none)."""
    defined = ~np.isnan(values)
    with np.errstate(invalid="ignore", divide="ignore"):
        total = np.where(defined, values, 0.0).sum(axis=-1)
        count = defined.sum(axis=-1)
        return np.where(count > 0, total / np.where(count > 0, count, 1), np.nan)


def _bootstrap_fairness(
    counts: np.ndarray, zero_division, n_resamples: int, confidence: float, random_state
) -> dict:
    """Percentile intervals of the fairness metrics (rows: sensitive columns, then their average)."""
    k = counts.shape[0]
    replicates = bootstrap_counts(counts[:, :2].reshape(2 * k, 4), n_resamples, random_state)
    replicates = replicates.reshape(n_resamples, k, 2, 4)  # (replicate, column, unpriv/priv, cell)
    values = quiet_fairness(replicates[:, :, 1], replicates[:, :, 0], zero_division)
    out = {}
    for name in FAIRNESS_METRICS:
        per_column = values[name]  # (n_resamples, k)
        samples = np.concatenate([per_column, nanmean_last(per_column)[:, None]], axis=1)
        out[f"{name}_low"], out[f"{name}_high"] = percentile_interval(samples, confidence)
    return out


# --------------------------------------------------------------------------------------
# counting
# --------------------------------------------------------------------------------------
def check_options(zero_division, n_resamples, confidence, random_state):
    """Validate the options of the classification-fairness table before any work.

    Returns ``zero_division`` as ``"worst"``, ``"warn"`` or a float.
    """
    check_bootstrap_options(n_resamples, confidence, random_state)
    return check_fairness_zero_division(zero_division)


def sensitive_columns(by, n_rows: int) -> dict:
    """The sensitive columns by name; a name used twice or equal to the pooled label is refused."""
    columns = named_columns(by, n_rows, "by")
    names = [series.name for series in columns]
    check_not_pooled(pd.Index(names, dtype=object), "by")
    if len(set(names)) < len(names):
        twice = next(name for name in names if names.count(name) > 1)
        raise InvalidInputError(f"`by=` names the column {plain(twice)!r} twice; pass each column once.")
    return dict(zip(names, columns))


@dataclass(frozen=True)
class SensitiveCounts:
    """Confusion counts of each sensitive column's groups over some rows; additive.

    Attributes
    ----------
    names : tuple
        The sensitive columns.
    counts : ndarray of int64, shape ``(K, 3, 4)``
        ``[TN, FP, FN, TP]`` of the unprivileged, privileged and missing-value rows of
        each column (rows left out of the metrics are not counted).
    midrange : dict
        Column index -> ``(values, counts)`` for a column split at its midrange, which is
        known only once every row is seen: its distinct present values (sorted) and the
        counts of each, shape ``(m, 4)``; its unprivileged and privileged counts stay 0
        until :meth:`resolved`.
    invert : tuple of bool
        Per column: privileged below the threshold.
    n_rows, n_missing_label : int
        Rows seen, and rows with a missing label or prediction.
    named : dict
        Column index -> :class:`NamedPrivileged`, for a column whose privileged values are
        named (``privileged=``): whether any row holds one.
    """

    names: tuple
    counts: np.ndarray
    midrange: dict
    invert: tuple
    n_rows: int
    n_missing_label: int
    named: dict = field(default_factory=dict)

    def combine(self, other: SensitiveCounts) -> SensitiveCounts:
        """The counts of the union of two disjoint row sets."""
        midrange = {}
        for k, (values, per_value) in self.midrange.items():
            other_values, other_counts = other.midrange[k]
            merged, inverse = np.unique(np.concatenate([values, other_values]), return_inverse=True)
            total = np.zeros((merged.size, per_value.shape[-1]), dtype=np.int64)
            np.add.at(total, inverse, np.concatenate([per_value, other_counts]))
            midrange[k] = (merged, total)
        return SensitiveCounts(
            self.names,
            self.counts + other.counts,
            midrange,
            self.invert,
            self.n_rows + other.n_rows,
            self.n_missing_label + other.n_missing_label,
            {k: named.combine(other.named[k]) for k, named in self.named.items()},
        )

    def map_cells(self, function) -> SensitiveCounts:
        """The counts with ``function`` applied to every array of cells (the last axis), e.g.
        to realign the cells of multiclass labels (:class:`~pdmetrics.fairness.multiclass.ClassState`)."""
        midrange = {k: (values, function(per_value)) for k, (values, per_value) in self.midrange.items()}
        return replace(self, counts=function(self.counts), midrange=midrange)

    def check_named(self) -> None:
        """Refuse a ``privileged=`` naming no value of its column (the privileged group would
        be empty whatever the labels), listing the values the column has."""
        for k, named in self.named.items():
            if not named.found:
                raise unnamed_privileged(self.names[k], named.given, named.sorted_values())

    def resolved(self) -> np.ndarray:
        """The ``(K, 3, 4)`` counts, the midrange columns split at their whole-data midrange."""
        counts = self.counts.copy()
        for k, (values, per_value) in self.midrange.items():
            threshold = midrange_threshold(values)
            is_priv = split_at_threshold(values, np.zeros(values.size, dtype=bool), threshold, self.invert[k])
            counts[k, 1] = per_value[is_priv].sum(axis=0)
            counts[k, 0] = per_value[~is_priv].sum(axis=0)
        return counts


def unnamed_privileged(name, given: str, values: list) -> InvalidInputError:
    """The error of a ``privileged=`` (as the user wrote it, ``given``) naming none of the
    ``values`` of its column ``name``: the privileged group would be empty."""
    has = f"it has {preview(values, _SHOWN_VALUES)}" if values else "it has no value"
    example = f" Pass one of its values, e.g. `privileged={values[-1]!r}`." if values else ""
    return InvalidInputError(
        f"`{given}` is not a value of column {plain(name)!r} ({has}), so the privileged "
        f"group would be empty.{example} Values compare as they are stored: 1 and '1' differ."
    )


def privileged_option(name, privileged, values) -> str:
    """``privileged=`` as the user wrote it for column ``name`` (``values``: its entry)."""
    if isinstance(privileged, Mapping):
        return f"privileged={{{plain(name)!r}: {plain(values)!r}}}"
    return f"privileged={plain(values)!r}"


def check_option_columns(columns, privileged, threshold, invert) -> None:
    """Refuse a per-column option (a dict) naming a column that is not one of ``columns`` (of ``by=``)."""
    for option, value in (("privileged", privileged), ("threshold", threshold), ("invert", invert)):
        if isinstance(value, Mapping):
            unknown = [name for name in value if name not in columns]
            if unknown:
                raise InvalidInputError(
                    f"`{option}=` names {unknown!r}, which are not among the `by=` columns {list(columns)!r}."
                )


#: Distinct values of a sensitive column a :class:`NamedPrivileged` keeps (the message shows
#: them, and says when there are more).
_SHOWN_VALUES = 10


@dataclass(frozen=True)
class NamedPrivileged:
    """Whether some rows hold one of the privileged values named for a column; additive.

    ``given`` is the option as the user wrote it (for the message); ``values``: the
    column's first distinct present values (kept only while none matched, at most one more
    than :data:`_SHOWN_VALUES`).
    """

    given: str
    found: bool
    values: tuple

    def combine(self, other: NamedPrivileged) -> NamedPrivileged:
        if self.found or other.found:
            return NamedPrivileged(self.given, True, ())
        values = list(self.values)
        for value in other.values:
            if len(values) > _SHOWN_VALUES:
                break
            if not any(value is kept or (type(value) is type(kept) and value == kept) for kept in values):
                values.append(value)
        return NamedPrivileged(self.given, False, tuple(values))

    def sorted_values(self) -> list:
        values = [plain(value) for value in self.values]
        try:
            return sorted(values)
        except TypeError:  # values of several types: as they came
            return values


def _named_privileged(series: pd.Series, is_priv: np.ndarray, given: str) -> NamedPrivileged:
    if is_priv.any():
        return NamedPrivileged(given, True, ())
    present = series.dropna()
    values = pd.unique(present.astype(object) if isinstance(series.dtype, pd.CategoricalDtype) else present)
    return NamedPrivileged(given, False, tuple(values[: _SHOWN_VALUES + 1]))


def check_privileged_found(name, series: pd.Series, is_priv: np.ndarray, privileged, values) -> None:
    """Refuse a ``privileged=`` (``values``: its entry for column ``name``, None for none) that
    names no value of the column (``series``: its values; ``is_priv``: the privileged ones)."""
    if values is not None:
        named = _named_privileged(series, is_priv, privileged_option(name, privileged, values))
        if not named.found:
            raise unnamed_privileged(name, named.given, named.sorted_values())


def sensitive_counts(
    t_pos, p_pos, label_missing, columns: dict, threshold, invert, privileged, dropped=None, cells=None
) -> SensitiveCounts:
    """The :class:`SensitiveCounts` of one chunk of rows; ``dropped`` rows are not counted either.

    ``cells``: ``(cell of each row, number of cells)`` to count other cells than the four of the
    binary ``t_pos`` and ``p_pos`` (which are then unused), e.g. the ``V x V`` cells of
    multiclass labels.
    """
    single = len(columns) == 1
    check_option_columns(columns, privileged, threshold, invert)
    counted_out = label_missing if dropped is None else label_missing | dropped
    cell, n_cells = (cell_codes(t_pos, p_pos), 4) if cells is None else cells
    counts = np.zeros((len(columns), 3, n_cells), dtype=np.int64)
    any_counted_out = bool(counted_out.any())
    midrange, inverts, named = {}, [], {}
    for k, (name, series) in enumerate(columns.items()):  # one pass per sensitive column
        thr, inv, values = resolve_group_options(name, threshold, invert, privileged, single)
        inverts.append(inv)
        if values is None and is_midrange(thr):  # the threshold needs every row: count per value
            numbers, missing = sensitive_values(series)
            is_priv = np.zeros(missing.size, dtype=bool)
            present = ~missing
            distinct, inverse = np.unique(numbers[present], return_inverse=True)
            kept = ~counted_out[present]
            key = inverse.reshape(-1)[kept].astype(np.intp) * n_cells + cell[present][kept]
            midrange[k] = (
                distinct,
                np.bincount(key, minlength=n_cells * distinct.size)[: n_cells * distinct.size]
                .reshape(distinct.size, n_cells)
                .astype(np.int64),
            )
        else:
            is_priv, missing = privileged_groups(series, thr, inv, values)
            if values is not None:
                named[k] = _named_privileged(series, is_priv, privileged_option(name, privileged, values))
        # group 0 unprivileged, 1 privileged, 2 missing sensitive value, 3 not counted
        group = is_priv.view(np.uint8) | (missing.view(np.uint8) << 1)
        if any_counted_out:
            group[counted_out] = 3
        if n_cells == 4:
            key = cell | (group << 2)
        else:
            key = group.astype(np.intp) * n_cells + cell
        counts[k] = np.bincount(key, minlength=4 * n_cells)[: 3 * n_cells].reshape(3, n_cells)
        if k in midrange:
            counts[k, :2] = 0
    return SensitiveCounts(
        tuple(columns), counts, midrange, tuple(inverts), int(cell.size), int(label_missing.sum()), named
    )


def _overall(counts: np.ndarray, zero_division) -> dict[str, float]:
    """Accuracy, precision and recall of all rows; an empty denominator gives ``zero_division``
    (``"worst"`` is ``"warn"`` here: a rate has no worst value in the seed document)."""
    tn, fp, fn, tp = (int(c) for c in counts)
    out = {}
    for name, num, den, what in (
        (
            "accuracy",
            tp + tn,
            tp + tn + fp + fn,
            "accuracy (no row left: rows with a missing label or prediction, invalid answers and "
            "call errors are left out)",
        ),
        ("precision", tp, tp + fp, "precision (no predicted positive)"),
        ("recall", tp, tp + fn, "recall (no actual positive)"),
    ):
        out[name] = float(divide(num, den, WARN if zero_division == WORST else zero_division, what=what))
    return out


def fairness_table(
    t_pos,
    p_pos,
    label_missing,
    columns,
    *,
    threshold,
    invert,
    privileged,
    zero_division,
    extra_counts: dict | None = None,
    dropped: np.ndarray | None = None,
    n_resamples: int = 0,
    confidence: float = 0.95,
    random_state=None,
) -> pd.DataFrame:
    """The classification-fairness table; ``dropped`` rows are left out without a warning.

    ``columns`` maps each sensitive column's name to its Series (:func:`sensitive_columns`);
    the options must have been checked with :func:`check_options`.
    """
    counts = sensitive_counts(t_pos, p_pos, label_missing, columns, threshold, invert, privileged, dropped)
    return fairness_table_from_counts(
        counts,
        zero_division=zero_division,
        extra_counts=extra_counts,
        n_resamples=n_resamples,
        confidence=confidence,
        random_state=random_state,
    )


def fairness_table_from_counts(
    state: SensitiveCounts,
    *,
    zero_division,
    extra_counts: dict | None = None,
    n_resamples: int = 0,
    confidence: float = 0.95,
    random_state=None,
) -> pd.DataFrame:
    """The classification-fairness table from the :class:`SensitiveCounts` of every row."""
    n_rows, n_missing_label = state.n_rows, state.n_missing_label
    state.check_named()
    counts = state.resolved()
    warn_excluded(n_missing_label, n_rows, "the label or the prediction is missing")
    names = list(state.names)
    for name, c in zip(names, counts):
        warn_excluded(int(c[2].sum()), int(c.sum()), f"column {plain(name)!r} of `by=` is missing")
    overall_counts = counts[0].sum(axis=0)
    overall = _overall(overall_counts, zero_division)
    labels = [f"column {plain(name)!r} of `by=`" for name in names]
    metrics = fairness_from_counts(counts[:, 1], counts[:, 0], zero_division, labels)
    k = len(names)
    stacked = {m: np.append(v, nanmean_last(v)) for m, v in metrics.items()}
    table = pd.DataFrame(
        {
            "by": pd.array([*names, POOLED_LABEL], dtype=object),
            "N": np.append(counts[:, :2].sum(axis=(1, 2)), overall_counts.sum()).astype(np.int64),
            "N_privileged": pd.array([*counts[:, 1].sum(axis=1), None], dtype="Int64"),
            "N_unprivileged": pd.array([*counts[:, 0].sum(axis=1), None], dtype="Int64"),
            "N_missing": pd.array([*counts[:, 2].sum(axis=1), None], dtype="Int64"),
        }
    )
    for name, values in (extra_counts or {}).items():
        table[name] = np.full(k + 1, values, dtype=np.int64)
    for name in FAIRNESS_METRICS:
        table[name] = stacked[name]
    for name in ("accuracy", "precision", "recall"):
        table[name] = np.full(k + 1, overall[name])
    if n_resamples:
        intervals = _bootstrap_fairness(counts, zero_division, n_resamples, confidence, random_state)
        for name, values in intervals.items():
            table[name] = values
    table.index = pd.RangeIndex(k + 1)
    return attach_info(
        table,
        rows=n_rows,
        rows_used=int(overall_counts.sum()),
        rows_missing_label=n_missing_label,
        zero_division=zero_division,
        confusion_privileged=counts[:, 1].tolist(),
        confusion_unprivileged=counts[:, 0].tolist(),
        n_resamples=n_resamples,
    )


@table
@renamed("sensitive", "on_undefined", "n_boot")
@outcome_columns(classes=True)
@bootstrap_options
@fill(interval_options=INTERVAL_OPTIONS)
def classification(
    frame,
    *,
    outcome,
    privileged=None,
    threshold=0.0,
    invert=False,
    table: str = "metrics",
    zero_division="worst",
    resampling,
) -> pd.DataFrame:
    """Fairness of binary (or, with ``classes=``, multiclass) predictions per sensitive attribute.

    For each sensitive column the rows split into privileged and unprivileged (see
    :func:`privileged_groups`), and the table reports statistical parity difference,
    disparate impact, average odds difference (signed and absolute) and equal opportunity
    difference, unprivileged minus (over) privileged; a final row ``"(all)"`` holds
    their unweighted mean over the sensitive columns (undefined values skipped), the
    reference project's "average over the privileged index definitions". Accuracy,
    precision and recall are over all rows and repeat on every row.

    Parameters
    ----------
    frame : DataFrame
        The labelled rows (pandas; dask and polars frames run the same table, and
        ``threshold="midrange"`` splits at the midrange of the whole column).
    y_true, y_pred : str
        Columns of true and predicted labels: two distinct values, one of them ``pos_label``.
        Rows with a missing label or prediction are left out (with an
        :class:`~pdmetrics.ExcludedRowsWarning`).
    by : str or list of str
        The group column(s), e.g. sensitive attributes, one row each. Rows with a missing
        value are left out of that column's groups only, and counted in ``N_missing``.
    pos_label : scalar, default 1
        The positive (favourable) outcome. It must occur in the data. Leave it at its
        default with ``classes=``.
    {classes_options}
    privileged : scalar, list or dict, optional
        The privileged value(s) of a categorical column (``{column: value(s)}`` for
        several columns). Columns without an entry use the threshold.
    threshold : float, "midrange" or dict, default 0.0
        Privileged means a value greater than ``threshold`` (per column with a dict).
        ``"midrange"`` uses ``(min + max) / 2`` of the column, the reference code's default.
    invert : bool or dict, default False
        Privileged means a value *less than* the threshold. Values equal to the
        threshold are unprivileged either way.
    table : {"metrics", "worst"}, default "metrics"
        ``"worst"`` (with ``classes=``): for each row ``by`` and each fairness metric, the
        class furthest from parity (see Returns).
    zero_division : "worst", "warn" or float, default "worst"
        What an undefined metric becomes: the odds/opportunity differences when a group has
        no actual positives (or, for the odds, negatives), and accuracy/precision/recall
        when their denominator is 0 (no row left, no predicted positive, no actual
        positive). ``"worst"``: an undefined difference is 1.0 (the document's "worst
        possible" value) and an undefined rate NaN; ``"warn"``: NaN; both with an
        :class:`~pdmetrics.UndefinedMetricWarning` naming this option. A number: that
        number, silently. See :func:`fairness_from_counts`.
    n_resamples : int, default 0
        Bootstrap replicates; when positive, ``<metric>_low`` and ``<metric>_high``
        columns give percentile intervals of the five fairness metrics, rows resampled
        within the privileged and unprivileged groups (see :func:`bootstrap_counts`).
        Replicates where a metric is undefined are skipped (with ``zero_division="worst"``
        they count 1.0, with a number that number).
    {interval_options}

    Returns
    -------
    pandas.DataFrame
        Columns ``by, N, N_privileged, N_unprivileged, N_missing,
        statistical_parity_difference, disparate_impact, average_odds_difference,
        average_abs_odds_difference, equal_opportunity_difference, accuracy, precision,
        recall``; one row per sensitive column, then the ``"(all)"`` row (its group
        counts are ``<NA>``; its ``N`` counts every labelled row), then the interval
        columns when ``n_resamples`` is given.

        With ``classes=``: a ``class`` column after ``by``, and for each row of ``by`` (the
        sensitive columns, then ``"(all)"``) one row per class (one vs rest: the class is the
        favourable outcome, every other value unfavourable), then with ``ordinal=True`` one
        row per cumulative split ``">= k"``, then a ``"macro"`` row: the unweighted mean over
        the classes (not the splits) of each metric, undefined values skipped (accuracy,
        precision and recall: the macro averages of scikit-learn). Accuracy, precision and
        recall are those of the class over all rows. ``table="worst"``: columns ``by, metric,
        class, value``, one row per row of ``by`` and fairness metric: the class furthest from
        parity, i.e. with the largest ``|value|`` (differences) or ``|ln value|`` (disparate
        impact: 0.5 is as far as 2), undefined values skipped, ties to the first class; class
        ``<NA>`` when no class has the metric defined.

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> df = pd.DataFrame({"y": [1, 0, 1, 1, 0, 0], "pred": [1, 0, 1, 0, 1, 1],
    ...                    "male": [1, 1, 1, 0, 0, 0], "age": [30, 50, 45, 20, 60, 35]})
    >>> table = df.fairness.classification(y_true="y", y_pred="pred", by=["male", "age"],
    ...                                    threshold={"age": 40})
    >>> table[["by", "N_privileged", "equal_opportunity_difference"]]
          by  N_privileged  equal_opportunity_difference
    0   male             3                         -1.00
    1    age             3                         -0.50
    2  (all)          <NA>                         -0.75
    >>> table = pdmetrics.fairness.classification(df, y_true="y", y_pred="pred", by="male")
    >>> table[["by", "N", "statistical_parity_difference", "disparate_impact"]]
          by  N  statistical_parity_difference  disparate_impact
    0   male  6                            0.0               1.0
    1  (all)  6                            0.0               1.0

    Three classes, one vs rest:

    >>> df = pd.DataFrame({"y": ["a", "b", "c", "a", "b", "c"], "pred": ["a", "b", "b", "a", "c", "c"],
    ...                    "male": [1, 1, 1, 0, 0, 0]})
    >>> table = df.fairness.classification(y_true="y", y_pred="pred", by="male", classes="all")
    >>> table[["by", "class", "statistical_parity_difference", "recall"]].head(4).round(3)
         by  class  statistical_parity_difference  recall
    0  male      a                          0.000   1.000
    1  male      b                         -0.667   0.500
    2  male      c                          0.667   0.500
    3  male  macro                          0.000   0.667
    """
    y_true, y_pred, by, pos_label, classes, ordinal = outcome
    columns = label_columns(frame, y_true, y_pred, by)
    zero_division = check_options(zero_division, **resampling)
    chosen = check_class_table(
        classes, ordinal, pos_label, table, ("metrics", "worst"), resampling["n_resamples"]
    )
    if chosen is not None:
        options = {"privileged": privileged, "threshold": threshold, "invert": invert}
        finalize = partial(
            classes_from_state, classes=chosen, ordinal=ordinal, table=table, zero_division=zero_division
        )
        return column_table(classes_state, columns, options, finalize)
    options = {"pos_label": pos_label, "privileged": privileged, "threshold": threshold, "invert": invert}
    finalize = partial(
        classification_from_state, pos_label=pos_label, zero_division=zero_division, **resampling
    )
    return column_table(classification_state, columns, options, finalize)


@dataclass(frozen=True)
class ClassificationState(Additive):
    """The additive state of :func:`classification` over some rows: the summaries of the two
    label columns (:class:`~pdmetrics.fairness._inputs.LabelSummary`) and the
    :class:`SensitiveCounts`."""

    labels: tuple
    counts: SensitiveCounts


def classification_state(
    y_true, y_pred, by, *, pos_label=1, privileged=None, threshold=0.0, invert=False
) -> ClassificationState:
    """The :class:`ClassificationState` of one chunk of rows (no warning, no whole-column check).

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.fairness.parity import classification_from_state, classification_state
    >>> df = pd.DataFrame({"y": [1, 0, 1, 1, 0, 1], "pred": [1, 0, 1, 0, 1, 1], "male": [1, 1, 1, 0, 0, 0]})
    >>> halves = [classification_state(part["y"], part["pred"], part[["male"]]) for part in (df[:4], df[4:])]
    >>> table = classification_from_state(halves[0].combine(halves[1]))
    >>> table[["by", "N", "statistical_parity_difference"]]
          by  N  statistical_parity_difference
    0   male  6                            0.0
    1  (all)  6                            0.0
    """
    t_pos, p_pos, label_missing, labels = binary_label_rows(y_true, y_pred, pos_label)
    columns = sensitive_columns(by, t_pos.size)
    counts = sensitive_counts(t_pos, p_pos, label_missing, columns, threshold, invert, privileged)
    return ClassificationState(labels, counts)


def classification_from_state(
    state: ClassificationState,
    *,
    pos_label=1,
    zero_division="worst",
    n_resamples: int = 0,
    confidence: float = 0.95,
    random_state=None,
) -> pd.DataFrame:
    """The :func:`classification` table from its state (options checked with :func:`check_options`):
    the checks of the whole label columns and the warnings are raised here."""
    _check_rows(state.labels, state.counts)
    check_label_summaries(state.labels, pos_label)
    return fairness_table_from_counts(
        state.counts,
        zero_division=zero_division,
        n_resamples=n_resamples,
        confidence=confidence,
        random_state=random_state,
    )


def _check_rows(labels: tuple, counts: SensitiveCounts) -> None:
    """Refuse data without a usable row (``labels``: the two label columns' summaries)."""
    check_usable_rows(
        counts.n_rows,
        dict(zip(("y_true", "y_pred"), labels)),
        counts.n_missing_label,
        "classification fairness",
    )


def classes_state(y_true, y_pred, by, *, privileged=None, threshold=0.0, invert=False) -> ClassState:
    """The state of :func:`classification` with ``classes=`` over one chunk of rows: the
    :class:`SensitiveCounts` of the ``V x V`` truth x prediction cells of the values seen."""
    cells, n_values, missing, state = class_label_rows(y_true, y_pred)
    columns = sensitive_columns(by, cells.size)
    counts = sensitive_counts(
        None, None, missing, columns, threshold, invert, privileged, cells=(cells, n_values * n_values)
    )
    return state.with_counts(counts)


def classes_from_state(
    state: ClassState, *, classes, ordinal: bool, table: str, zero_division
) -> pd.DataFrame:
    """The :func:`classification` table with ``classes=`` from the state of every row."""
    sensitive = state.counts
    _check_rows(state.labels, sensitive)
    sensitive.check_named()
    counts = sensitive.resolved()  # (columns, unpriv/priv/missing, V * V)
    warn_excluded(sensitive.n_missing_label, sensitive.n_rows, "the label or the prediction is missing")
    names = list(sensitive.names)
    for name, c in zip(names, counts):
        warn_excluded(int(c[2].sum()), int(c.sum()), f"column {plain(name)!r} of `by=` is missing")
    n_values = len(state.keys)
    found = resolve_classes(state.values(), seen_values(counts[0], n_values), classes, ordinal)
    per_class = class_counts(counts, n_values, found)  # (columns, 3, rows per column, 4)
    k, n_rows = len(names), per_class.shape[2]
    n_classes = len(found.labels)
    shown = class_column(found, macro=False)
    labels = [f"class {plain(c)!r} of column {plain(name)!r} of `by=`" for name in names for c in shown]
    flat = fairness_from_counts(
        per_class[:, 1].reshape(-1, 4), per_class[:, 0].reshape(-1, 4), zero_division, labels
    )
    overall = per_class[0].sum(axis=0)  # (rows per column, 4): every labelled row
    option = WARN if zero_division == WORST else zero_division
    tn, fp, fn, tp = (overall[:, i] for i in range(4))
    rates = {
        "accuracy": divide(tp + tn, tp + tn + fp + fn, option, what="accuracy (no row left)"),
        "precision": divide(tp, tp + fp, option, what="precision (a class never predicted)"),
        "recall": divide(tp, tp + fn, option, what="recall (a class with no actual row)"),
    }
    values = {}
    for name in FAIRNESS_METRICS:
        per_column = flat[name].reshape(k, n_rows)
        values[name] = np.vstack([per_column, nanmean_last(per_column.T)[None, :]])  # (K + 1, rows)
    if table == "worst":
        return _worst_table(names, values, found.labels)
    macro = {name: nanmean_last(v[:, :n_classes]) for name, v in values.items()}
    width = n_rows + 1
    group_n = counts[:, :2].sum(axis=2)  # (K, 2)
    repeat = partial(np.repeat, repeats=width)
    out = pd.DataFrame(
        {
            "by": pd.array(repeat(np.array([*names, POOLED_LABEL], dtype=object)), dtype=object),
            CLASS: pd.array(class_column(found, macro=True) * (k + 1), dtype=object),
            "N": repeat(np.append(group_n.sum(axis=1), overall[0].sum())).astype(np.int64),
            "N_privileged": pd.array(repeat([*group_n[:, 1], None]), dtype="Int64"),
            "N_unprivileged": pd.array(repeat([*group_n[:, 0], None]), dtype="Int64"),
            "N_missing": pd.array(repeat([*counts[:, 2].sum(axis=1), None]), dtype="Int64"),
        }
    )
    for name in FAIRNESS_METRICS:
        out[name] = np.column_stack([values[name], macro[name]]).reshape(-1)
    for name, rate in rates.items():
        out[name] = np.tile(np.append(rate, nanmean_last(rate[:n_classes])), k + 1)
    return attach_info(
        out,
        rows=sensitive.n_rows,
        rows_used=int(overall[0].sum()),
        rows_missing_label=sensitive.n_missing_label,
        zero_division=zero_division,
        classes=list(found.labels),
    )


def _worst_table(names: list, values: dict, classes: list) -> pd.DataFrame:
    """``table="worst"``: per row of ``by`` and metric, the class furthest from parity."""
    n_classes = len(classes)
    rows_by, rows_metric, rows_class, rows_value = [], [], [], []
    labels = np.array([*classes, None], dtype=object)
    for name in FAIRNESS_METRICS:
        per_class = values[name][:, :n_classes]
        worst = worst_class(per_class, ratio=name in _RATIOS)
        rows_by.extend([*names, POOLED_LABEL])
        rows_metric.extend([name] * len(worst))
        rows_class.extend(labels[worst])
        rows_value.extend(np.where(worst >= 0, per_class[np.arange(len(worst)), worst], np.nan))
    out = pd.DataFrame(
        {
            "by": pd.array(rows_by, dtype=object),
            "metric": rows_metric,
            CLASS: pd.array([None if c is None else c for c in rows_class], dtype=object),
            "value": np.asarray(rows_value, dtype="float64"),
        }
    )
    order = np.argsort(np.tile(np.arange(len(names) + 1), len(FAIRNESS_METRICS)), kind="stable")
    return out.iloc[order].reset_index(drop=True)


#: The fairness metrics that are ratios (fair value 1); the others are differences (fair value 0).
_RATIOS = ("disparate_impact",)


# --------------------------------------------------------------------------------------
# scalar functions
# --------------------------------------------------------------------------------------
def _pair_counts(y_true, y_pred, privileged, pos_label):
    t_pos, p_pos, label_missing = binary_labels(y_true, y_pred, pos_label)
    mask = as_series(privileged, "privileged")
    if len(mask) != t_pos.size:
        raise InvalidInputError(f"`privileged` has {len(mask)} values but the labels have {t_pos.size}.")
    is_priv, missing = privileged_groups(mask, 0.0, False, None)
    codes = np.where(label_missing | missing, -1, is_priv.astype(np.intp))
    counts = confusion_counts(t_pos, p_pos, codes, 2)
    return counts[1:2], counts[0:1]


def _scalar_metric(name, y_true, y_pred, privileged, pos_label, zero_division="worst") -> float:
    priv, unpriv = _pair_counts(y_true, y_pred, privileged, pos_label)
    return float(fairness_from_counts(priv, unpriv, zero_division, ["the data"], (name,))[name][0])


#: The Parameters section of the scalar metrics' docstrings, and the ``zero_division`` of the two
#: odds differences (filled in by :func:`pdmetrics._docstrings.fill`).
_SCALAR_DOC = """
Parameters
----------
y_true, y_pred : array-like
    True and predicted binary labels.
privileged : array-like of bool
    True for a privileged row (numbers: greater than 0); a missing value leaves the row out.
pos_label : scalar, default 1
    The positive (favourable) outcome.
"""
_ODDS_ZERO_DIVISION_DOC = """
zero_division : "worst", "warn" or float, default "worst"
    When a group has no actual positives or negatives: 1.0 or NaN (both warn), or the number.
"""


@fill(params=_SCALAR_DOC)
def statistical_parity_difference(y_true, y_pred, privileged, *, pos_label=1) -> float:
    """``P(y_pred = pos | unprivileged) - P(y_pred = pos | privileged)``; fair value 0.

    {params}

    Returns
    -------
    float
        NaN (with a warning) when a group is empty.

    Examples
    --------
    >>> from pdmetrics.fairness import statistical_parity_difference
    >>> statistical_parity_difference([1, 0, 1, 0], [1, 0, 1, 1], [True, True, False, False])
    0.5
    """
    return _scalar_metric("statistical_parity_difference", y_true, y_pred, privileged, pos_label)


@fill(params=_SCALAR_DOC)
def disparate_impact(y_true, y_pred, privileged, *, pos_label=1) -> float:
    """``P(y_pred = pos | unprivileged) / P(y_pred = pos | privileged)``; fair value 1.

    {params}

    Returns
    -------
    float
        ``inf`` when only the privileged selection rate is 0; NaN (with a warning) when
        both are 0 or a group is empty.

    Examples
    --------
    >>> from pdmetrics.fairness import disparate_impact
    >>> disparate_impact([1, 0, 1, 0], [1, 0, 1, 1], [True, True, False, False])
    2.0
    """
    return _scalar_metric("disparate_impact", y_true, y_pred, privileged, pos_label)


@renamed("on_undefined")
@fill(params=_SCALAR_DOC, zero_division=_ODDS_ZERO_DIVISION_DOC)
def average_odds_difference(y_true, y_pred, privileged, *, pos_label=1, zero_division="worst") -> float:
    """``((FPR_u - FPR_p) + (TPR_u - TPR_p)) / 2``, signed as the document and AIF360; fair value 0.

    {params}
    {zero_division}

    Examples
    --------
    >>> from pdmetrics.fairness import average_odds_difference
    >>> average_odds_difference([1, 0, 1, 0], [1, 0, 0, 0], [True, True, False, False])
    -0.5
    """
    return _scalar_metric("average_odds_difference", y_true, y_pred, privileged, pos_label, zero_division)


@renamed("on_undefined")
@fill(params=_SCALAR_DOC, zero_division=_ODDS_ZERO_DIVISION_DOC)
def average_abs_odds_difference(y_true, y_pred, privileged, *, pos_label=1, zero_division="worst") -> float:
    """``(|FPR_u - FPR_p| + |TPR_u - TPR_p|) / 2``, the form the reference project computes.

    {params}
    {zero_division}

    Examples
    --------
    >>> from pdmetrics.fairness import average_abs_odds_difference
    >>> average_abs_odds_difference([1, 0, 1, 0], [1, 0, 0, 0], [True, True, False, False])
    0.5
    """
    return _scalar_metric("average_abs_odds_difference", y_true, y_pred, privileged, pos_label, zero_division)


@renamed("on_undefined")
@fill(params=_SCALAR_DOC)
def equal_opportunity_difference(y_true, y_pred, privileged, *, pos_label=1, zero_division="worst") -> float:
    """``TPR_unprivileged - TPR_privileged`` (difference in recall); fair value 0.

    {params}
    zero_division : "worst", "warn" or float, default "worst"
        When a group has no actual positives: 1.0 (the document's "worst possible EOD")
        or NaN (both warn), or the number.

    Examples
    --------
    >>> from pdmetrics.fairness import equal_opportunity_difference
    >>> equal_opportunity_difference([1, 1, 1, 1], [1, 1, 1, 0], [True, True, False, False])
    -0.5
    """
    return _scalar_metric(
        "equal_opportunity_difference", y_true, y_pred, privileged, pos_label, zero_division
    )
