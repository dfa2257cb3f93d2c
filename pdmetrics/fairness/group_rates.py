"""Classification rates per group (intersections of several columns) and their disparities.

One bincount over ``group x truth x prediction`` gives every group's confusion counts;
rates, differences, ratios and bootstrap intervals are all finalized from those counts.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._division import WARN, check_zero_division, divide
from pdmetrics._docstrings import fill
from pdmetrics._groups import named_columns
from pdmetrics._renamed import renamed
from pdmetrics._resampling import check_bootstrap_options
from pdmetrics._table_spec import table
from pdmetrics._tables import attach_info
from pdmetrics._warnings import warn_excluded, warn_undefined
from pdmetrics.fairness._inputs import (
    aligned_counts,
    binary_label_rows,
    check_group_names,
    check_label_summaries,
    check_usable_rows,
    column_table,
    group_keys,
    label_columns,
    plain_keys,
)
from pdmetrics.fairness.bootstrap import (
    INTERVAL_OPTIONS,
    add_intervals,
    bootstrap_counts,
    bootstrap_options,
)
from pdmetrics.fairness.confusion import CELLS, cell_codes, counts_from_cells, rates_from_counts
from pdmetrics.fairness.multiclass import (
    CLASS,
    MACRO,
    Classes,
    ClassState,
    check_class_table,
    class_column,
    class_counts,
    class_label_rows,
    level_sums,
    outcome_columns,
    resolve_classes,
    seen_values,
)
from pdmetrics.fairness.parity import nanmean_last

__all__ = [
    "RATES",
    "GroupCountsState",
    "by_group",
    "by_group_columns",
    "by_group_from_state",
    "class_count_rows",
    "class_state_counts",
    "disparity_from_rates",
    "group_classes_state",
    "group_counts_state",
    "group_disparity",
    "group_disparity_from_state",
]

#: Rate columns of :func:`by_group`, in table order.
RATES = ("selection_rate", "tpr", "fpr", "tnr", "fnr", "accuracy", "precision", "recall")
_DENOMINATORS = {
    "tpr": "actual positives",
    "fnr": "actual positives",
    "recall": "actual positives",
    "fpr": "actual negatives",
    "tnr": "actual negatives",
    "precision": "predicted positives",
    "selection_rate": "rows",
    "accuracy": "rows",
}

#: The opening of the Examples of :func:`by_group` and :func:`group_disparity`: six labelled rows
#: in two groups (filled in by :func:`pdmetrics._docstrings.fill`).
EXAMPLE_ROWS = """
>>> import pandas as pd
>>> import pdmetrics
>>> df = pd.DataFrame({"y": [1, 0, 1, 1, 0, 0], "pred": [1, 0, 0, 1, 1, 0],
...                    "sex": ["F", "F", "F", "M", "M", "M"]})
"""


@dataclass(frozen=True)
class GroupCountsState:
    """The additive state of :func:`by_group` and :func:`group_disparity` over some rows.

    Attributes
    ----------
    labels : tuple of LabelSummary
        What the checks of the whole ``y_true`` and ``y_pred`` columns need.
    keys : pandas.DataFrame
        The groups present, one column per group column, sorted as :func:`group_codes`
        sorts them (a categorical column keeps its dtype, so its category order).
    counts : ndarray of int64, shape ``(len(keys), 4)``
        Confusion counts ``[TN, FP, FN, TP]`` per group.
    rows, rows_missing_label, rows_missing_group : int
        Rows seen, and left out for a missing label or prediction, or a missing group value.
    """

    labels: tuple
    keys: pd.DataFrame
    counts: np.ndarray
    rows: int
    rows_missing_label: int
    rows_missing_group: int

    def combine(self, other: GroupCountsState) -> GroupCountsState:
        """The state of the union of two disjoint row sets (groups aligned on their values)."""
        keys, counts = aligned_counts(self.keys, self.counts, other.keys, other.counts)
        return GroupCountsState(
            tuple(a.combine(b) for a, b in zip(self.labels, other.labels)),
            keys,
            counts,
            self.rows + other.rows,
            self.rows_missing_label + other.rows_missing_label,
            self.rows_missing_group + other.rows_missing_group,
        )

    def map_cells(self, function) -> GroupCountsState:
        """The state with ``function`` applied to the counts (cells on the last axis)."""
        return replace(self, counts=function(self.counts))

    def info(self) -> dict:
        """Row counts for the table's attrs."""
        return {
            "rows": self.rows,
            "rows_used": int(self.counts.sum()),
            "rows_missing_label": self.rows_missing_label,
            "rows_missing_group": self.rows_missing_group,
        }


def group_counts_state(y_true, y_pred, by, pos_label, result_columns=()) -> GroupCountsState:
    """The :class:`GroupCountsState` of one chunk of rows (no warning, no whole-column check).

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.fairness.group_rates import by_group_from_state, group_counts_state
    >>> df = pd.DataFrame({"y": [1, 0, 1, 1, 0, 0], "pred": [1, 0, 0, 1, 1, 0],
    ...                    "sex": ["F", "F", "F", "M", "M", "M"]})
    >>> first, second = (group_counts_state(p["y"], p["pred"], p["sex"], 1) for p in (df[:2], df[2:]))
    >>> table = by_group_from_state(first.combine(second), 1, "warn", 0, 0.95, None)
    >>> table[["sex", "N", "TP", "tpr"]]
      sex  N  TP  tpr
    0   F  3   1  0.5
    1   M  3   1  1.0
    """
    t_pos, p_pos, label_missing, labels = binary_label_rows(y_true, y_pred, pos_label)
    return cells_state(labels, cell_codes(t_pos, p_pos), 4, label_missing, by, result_columns)


def cells_state(labels, cell, n_cells: int, label_missing, by, result_columns) -> GroupCountsState:
    """The :class:`GroupCountsState` of rows whose cells (``0..n_cells-1``) are known."""
    columns = named_columns(by, cell.size, "by")
    check_group_names(columns, result_columns)
    codes, keys = group_keys(columns)
    missing_group = codes < 0
    if label_missing.any():
        codes = np.where(label_missing, -1, codes)
    return GroupCountsState(
        labels,
        keys,
        counts_from_cells(cell, codes, len(keys), n_cells),
        int(cell.size),
        int(label_missing.sum()),
        int((missing_group & ~label_missing).sum()),
    )


def group_classes_state(y_true, y_pred, by, result_columns=()) -> ClassState:
    """The state of :func:`by_group` with ``classes=`` over one chunk of rows: the
    :class:`GroupCountsState` of the ``V x V`` truth x prediction cells of the values seen."""
    cells, n_values, missing, state = class_label_rows(y_true, y_pred)
    return state.with_counts(cells_state((), cells, n_values * n_values, missing, by, result_columns))


def group_counts_from_state(state: GroupCountsState, pos_label) -> tuple[np.ndarray, pd.DataFrame, dict]:
    """The counts, the group keys (as the pandas path gives them) and the row counts; the
    checks of the whole label columns and the warnings about rows left out are raised here."""
    check_label_summaries(state.labels, pos_label)
    warn_excluded(state.rows_missing_label, state.rows, "the label or the prediction is missing")
    warn_excluded(state.rows_missing_group, state.rows, "a group value is missing")
    return state.counts, plain_keys(state.keys), state.info()


def fill_undefined(rates: dict, keys: pd.DataFrame | None, zero_division, warn: bool = True) -> dict:
    """NaN rates (empty denominators): the ``zero_division`` value, or NaN with one warning."""
    out = {}
    problems = []
    for name in RATES:
        values = np.asarray(rates[name], dtype="float64")
        is_nan = np.isnan(values)
        if is_nan.any():
            if zero_division != WARN:
                values = np.where(is_nan, zero_division, values)
            elif warn:
                problems.append(f"{name} ({int(is_nan.sum())} group(s) without {_DENOMINATORS[name]})")
        out[name] = values
    if problems:
        warn_undefined(
            "Undefined rates are NaN: "
            + "; ".join(problems)
            + ". Pass `zero_division=0` (or another number) to report that number instead."
        )
    return out


@table
@renamed("sensitive", "n_boot")
@outcome_columns(classes=True)
@bootstrap_options
@fill(interval_options=INTERVAL_OPTIONS, example_rows=EXAMPLE_ROWS)
def by_group(
    frame,
    *,
    outcome,
    table: str = "rates",
    zero_division="warn",
    resampling,
) -> pd.DataFrame:
    """Confusion counts and classification rates per group (intersections when ``by`` is a list).

    Parameters
    ----------
    frame : DataFrame
        The labelled rows (pandas; dask and polars frames run the same table, the bootstrap
        intervals coming from the combined counts: the same seed gives the same intervals).
    y_true, y_pred : str
        Columns of true and predicted binary labels (one of them ``pos_label``); rows with a
        missing value are left out with an :class:`~pdmetrics.ExcludedRowsWarning`.
    by : str or list of str
        Group column(s); several columns give their intersections (only the combinations
        present in the data). Rows with a missing group value are left out. A group column
        named like a result column (``N``, ``tpr``, ...) is refused.
    pos_label : scalar, default 1
        The positive outcome; it must occur in the data. Leave it at its default with ``classes=``.
    {classes_options}
    table : {"rates", "macro", "levels"}, default "rates"
        With ``classes=``, which table to return (see Returns).
    zero_division : "warn" or float, default "warn"
        Value of a rate whose denominator is 0 in a group (e.g. ``tpr`` without actual
        positives): NaN with one :class:`~pdmetrics.UndefinedMetricWarning` naming this
        option, or the number given.
    n_resamples : int, default 0
        Number of bootstrap replicates; when positive, ``<rate>_low`` and ``<rate>_high``
        columns give percentile intervals (see :func:`bootstrap_counts`).
    {interval_options}

    Returns
    -------
    pandas.DataFrame
        The group columns, ``N, TP, FP, FN, TN``, then ``selection_rate, tpr, fpr, tnr,
        fnr, accuracy, precision, recall`` (then the interval columns), one row per group
        in sorted order.

        With ``classes=`` (``table="rates"``): a ``class`` column after the group columns,
        one row per group and class (the one-vs-rest counts and rates of the class), then with
        ``ordinal=True`` per group one row per cumulative split ``">= k"``; the count columns
        are those of the binary table, so any per-group computation on them works per class.
        ``table="macro"``: the group columns, ``class`` (``"macro"``), ``N`` and the
        unweighted mean over the classes of each rate (undefined rates skipped with
        ``zero_division="warn"``, counted as the number given otherwise), one row per group.
        ``table="levels"`` (``ordinal=True``): the group columns, ``N, mean_true, mean_pred,
        mean_difference`` (predicted minus true): the mean level, a class's level being its
        value when every class is a number, else its position 1..C in the order.

    Examples
    --------
    {example_rows}
    >>> df.fairness.by_group(y_true="y", y_pred="pred", by="sex")[["sex", "N", "tpr"]]
      sex  N  tpr
    0   F  3  0.5
    1   M  3  1.0
    >>> table = pdmetrics.fairness.by_group(df, y_true="y", y_pred="pred", by="sex")
    >>> table[["sex", "selection_rate", "fpr"]].round(3)
      sex  selection_rate  fpr
    0   F           0.333  0.0
    1   M           0.667  0.5

    Ordinal grades, one vs rest and cumulative:

    >>> df = pd.DataFrame({"y": [1, 2, 3, 3, 2, 1], "pred": [1, 3, 3, 2, 2, 2],
    ...                    "sex": ["F", "F", "F", "M", "M", "M"]})
    >>> rates = df.fairness.by_group(y_true="y", y_pred="pred", by="sex", classes="all", ordinal=True,
    ...                              zero_division=0)
    >>> rates[["sex", "class", "N", "TP", "selection_rate", "tpr"]].head(5).round(3)
      sex class  N  TP  selection_rate  tpr
    0   F     1  3   1           0.333  1.0
    1   F     2  3   0           0.000  0.0
    2   F     3  3   1           0.667  1.0
    3   F  >= 2  3   2           0.667  1.0
    4   F  >= 3  3   1           0.667  1.0
    >>> df.fairness.by_group(y_true="y", y_pred="pred", by="sex", classes="all", ordinal=True,
    ...                      table="levels").round(3)
      sex  N  mean_true  mean_pred  mean_difference
    0   F  3        2.0      2.333            0.333
    1   M  3        2.0      2.000            0.000
    """
    y_true, y_pred, by, pos_label, classes, ordinal = outcome
    columns = label_columns(frame, y_true, y_pred, by)
    zero_division = check_zero_division(zero_division)
    check_bootstrap_options(**resampling)
    chosen = check_class_table(
        classes, ordinal, pos_label, table, ("rates", "macro", "levels"), resampling["n_resamples"]
    )
    if chosen is not None:
        result_columns = ["N", CLASS, *CELLS, *RATES, "mean_true", "mean_pred", "mean_difference"]
        finalize = partial(
            classes_by_group_from_state,
            classes=chosen,
            ordinal=ordinal,
            table=table,
            zero_division=zero_division,
        )
        return column_table(group_classes_state, columns, {"result_columns": result_columns}, finalize)
    options = {"pos_label": pos_label, "result_columns": by_group_columns(resampling["n_resamples"])}
    finalize = partial(by_group_from_state, pos_label=pos_label, zero_division=zero_division, **resampling)
    return column_table(group_counts_state, columns, options, finalize)


def by_group_columns(n_resamples: int) -> list[str]:
    """The result columns of :func:`by_group` (group columns may not take these names)."""
    intervals = [f"{name}_{end}" for name in RATES for end in ("low", "high")] if n_resamples else []
    return ["N", *CELLS, *RATES, *intervals]


def by_group_from_state(
    state: GroupCountsState, pos_label, zero_division, n_resamples: int, confidence: float, random_state
) -> pd.DataFrame:
    """The :func:`by_group` table from its state (options already checked)."""
    counts, keys, info = group_counts_from_state(state, pos_label)
    rates = fill_undefined(rates_from_counts(counts), keys, zero_division)
    table = keys.copy()
    table["N"] = counts.sum(axis=1)
    for i, cell in sorted(enumerate(CELLS), key=lambda item: ("TP", "FP", "FN", "TN").index(item[1])):
        table[cell] = counts[:, i]
    for name in RATES:
        table[name] = rates[name]
    if n_resamples:
        replicates = fill_undefined(
            rates_from_counts(bootstrap_counts(counts, n_resamples, random_state)),
            None,
            zero_division,
            warn=False,
        )
        add_intervals(table, replicates, RATES, confidence)
    table.index = pd.RangeIndex(len(table))
    return attach_info(table, pos_label=pos_label, n_resamples=n_resamples, confidence=confidence, **info)


def class_state_counts(state: ClassState, classes, ordinal: bool, caller: str) -> tuple:
    """The group keys, the classes (resolved from ``classes=`` and the values seen) and the row
    counts of a by-group class state (:func:`group_classes_state`); the checks of usable rows
    and the warnings about rows left out are raised here, for ``caller`` (the table's name)."""
    inner = state.counts
    check_usable_rows(
        inner.rows, dict(zip(("y_true", "y_pred"), state.labels)), inner.rows_missing_label, caller
    )
    warn_excluded(inner.rows_missing_label, inner.rows, "the label or the prediction is missing")
    warn_excluded(inner.rows_missing_group, inner.rows, "a group value is missing")
    found = resolve_classes(state.values(), seen_values(inner.counts, len(state.keys)), classes, ordinal)
    return plain_keys(inner.keys), found, {**inner.info(), "classes": list(found.labels)}


def class_count_rows(keys: pd.DataFrame, per_class: np.ndarray, found: Classes) -> pd.DataFrame:
    """One row per group and class (then split): the group columns, ``class``, ``N, TP, FP, FN,
    TN`` from the one-vs-rest counts ``per_class`` (groups x classes x 4, :func:`class_counts`)."""
    n_groups, width = per_class.shape[:2]
    out = keys.take(np.repeat(np.arange(n_groups), width)).reset_index(drop=True)
    out[CLASS] = pd.array(class_column(found, macro=False) * n_groups, dtype=object)
    flat = per_class.reshape(-1, 4)
    out["N"] = flat.sum(axis=1)
    for cell in ("TP", "FP", "FN", "TN"):
        out[cell] = flat[:, CELLS.index(cell)]
    return out


def classes_by_group_from_state(state: ClassState, *, classes, ordinal: bool, table: str, zero_division):
    """The :func:`by_group` table with ``classes=`` from the state of every row."""
    keys, found, info = class_state_counts(state, classes, ordinal, "by_group")
    inner, n_values = state.counts, len(state.keys)
    if table == "levels":
        n, true_sum, pred_sum = level_sums(inner.counts, n_values, found)
        out = keys.copy()
        out["N"] = n
        out["mean_true"] = divide(true_sum, n, zero_division, what="the mean level of a group without rows")
        out["mean_pred"] = divide(pred_sum, n, zero_division, what="the mean level of a group without rows")
        out["mean_difference"] = out["mean_pred"] - out["mean_true"]
        out.index = pd.RangeIndex(len(out))
        return attach_info(out, **info)
    per_class = class_counts(inner.counts, n_values, found)  # (groups, rows per group, 4)
    n_groups, width = per_class.shape[:2]
    rates = fill_undefined(rates_from_counts(per_class.reshape(-1, 4)), None, zero_division)
    if table == "macro":
        out = keys.copy()
        out[CLASS] = pd.array([MACRO] * n_groups, dtype=object)
        out["N"] = inner.counts.sum(axis=1)
        n_classes = len(found.labels)
        for name in RATES:
            out[name] = nanmean_last(rates[name].reshape(n_groups, width)[:, :n_classes])
    else:
        out = class_count_rows(keys, per_class, found)
        for name in RATES:
            out[name] = rates[name]
    out.index = pd.RangeIndex(len(out))
    return attach_info(out, **info)


def _extremes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Min, max and count of the non-NaN entries along the last axis (NaN when none)."""
    defined = ~np.isnan(values)
    n = defined.sum(axis=-1)
    low = np.where(defined, values, np.inf).min(axis=-1, initial=np.inf)
    high = np.where(defined, values, -np.inf).max(axis=-1, initial=-np.inf)
    return np.where(n > 0, low, np.nan), np.where(n > 0, high, np.nan), n


def disparity_from_rates(values, overall) -> dict[str, np.ndarray]:
    """Between-group and to-overall summaries of per-group values (last axis = groups).

    ``difference = max - min``, ``ratio = min / max``, ``difference_to_overall =
    max |value - overall|``, ``ratio_to_overall = min(min(value / overall, overall /
    value))``, each over the groups where the value is defined (two equal values, zeros
    included, have ratio 1).

    Examples
    --------
    >>> import numpy as np
    >>> from pdmetrics.fairness import disparity_from_rates
    >>> out = disparity_from_rates(np.array([0.2, 0.5, 0.4]), 0.4)
    >>> [round(float(out[k]), 3) for k in ("difference", "ratio", "difference_to_overall",
    ...                                     "ratio_to_overall")]
    [0.3, 0.4, 0.2, 0.5]
    """
    values = np.asarray(values, dtype="float64")
    overall = np.asarray(overall, dtype="float64")[..., None]
    low, high, _ = _extremes(values)
    ratio = np.where((low == high) & ~np.isnan(low), 1.0, divide(low, high, np.nan))
    with np.errstate(invalid="ignore"):
        gap = np.abs(values - overall)
        _, furthest, _ = _extremes(gap)
        a, b = np.minimum(values, overall), np.maximum(values, overall)
    pair_ratio = np.where((a == b) & ~np.isnan(a), 1.0, divide(a, b, np.nan))
    pair_ratio = np.where(np.isnan(values) | np.isnan(overall), np.nan, pair_ratio)
    closest, _, _ = _extremes(pair_ratio)
    return {
        "min": low,
        "max": high,
        "difference": high - low,
        "ratio": ratio,
        "difference_to_overall": furthest,
        "ratio_to_overall": closest,
    }


_SUMMARIES = ("difference", "ratio", "difference_to_overall", "ratio_to_overall")


@table
@renamed("sensitive", "n_boot")
@outcome_columns(classes=False)
@bootstrap_options
@fill(example_rows=EXAMPLE_ROWS)
def group_disparity(
    frame,
    *,
    outcome,
    resampling,
) -> pd.DataFrame:
    """How far apart the groups' rates are: one row per rate (fairlearn's difference/ratio).

    Parameters
    ----------
    frame, y_true, y_pred, by, pos_label
        As :func:`by_group`.
    n_resamples, confidence, random_state
        Bootstrap percentile intervals of the four summaries (``<summary>_low``,
        ``<summary>_high``), from resampled confusion counts.

    Returns
    -------
    pandas.DataFrame
        Columns ``metric, N_groups, overall, min, max, difference, ratio,
        difference_to_overall, ratio_to_overall``: ``N_groups`` counts the groups where
        the rate is defined (the summaries skip the others), ``overall`` is the rate on
        all rows. ``difference`` is max - min (fairlearn's ``method="between_groups"``),
        ``ratio`` min / max; the ``_to_overall`` forms compare each group with the
        overall value (fairlearn's ``method="to_overall"``).

    Examples
    --------
    {example_rows}
    >>> out = df.fairness.group_disparity(y_true="y", y_pred="pred", by="sex")
    >>> out[["metric", "difference", "ratio"]].head(2).round(3)
               metric  difference  ratio
    0  selection_rate       0.333    0.5
    1             tpr       0.500    0.5
    >>> table = pdmetrics.fairness.group_disparity(df, y_true="y", y_pred="pred", by="sex")
    >>> table.loc[table.metric == "selection_rate", ["difference", "ratio"]].round(3)
       difference  ratio
    0       0.333    0.5
    """
    columns = label_columns(frame, outcome.y_true, outcome.y_pred, outcome.by)
    check_bootstrap_options(**resampling)
    finalize = partial(group_disparity_from_state, pos_label=outcome.pos_label, **resampling)
    return column_table(group_counts_state, columns, {"pos_label": outcome.pos_label}, finalize)


def group_disparity_from_state(
    state: GroupCountsState, pos_label, n_resamples: int, confidence: float, random_state
) -> pd.DataFrame:
    """The :func:`group_disparity` table from its state (options already checked)."""
    counts, _, info = group_counts_from_state(state, pos_label)
    rates = rates_from_counts(counts)
    overall = rates_from_counts(counts.sum(axis=0))
    values = np.stack([np.asarray(rates[name], dtype="float64") for name in RATES])
    summary = disparity_from_rates(values, np.array([overall[name] for name in RATES], dtype="float64"))
    n_defined = (~np.isnan(values)).sum(axis=1)
    no_group = [name for name, n in zip(RATES, n_defined) if n == 0]
    if no_group:
        warn_undefined(
            f"Disparity summaries are NaN for {', '.join(no_group)}: no group where the rate is "
            f"defined (see `df.fairness.by_group`)."
        )
    table = pd.DataFrame(
        {
            "metric": list(RATES),
            "N_groups": n_defined.astype(np.int64),
            "overall": [float(overall[name]) for name in RATES],
            **{key: summary[key] for key in ("min", "max", *_SUMMARIES)},
        }
    )
    if n_resamples:
        boot_counts = bootstrap_counts(counts, n_resamples, random_state)
        replicates = rates_from_counts(boot_counts)
        boot_values = np.stack([replicates[name] for name in RATES], axis=1)  # (B, metrics, groups)
        boot_overall = rates_from_counts(boot_counts.sum(axis=1))
        boot_summary = disparity_from_rates(
            boot_values, np.stack([boot_overall[name] for name in RATES], axis=1)
        )
        add_intervals(table, boot_summary, _SUMMARIES, confidence)
    table.index = pd.RangeIndex(len(table))
    return attach_info(table, pos_label=pos_label, n_resamples=n_resamples, confidence=confidence, **info)
