"""Is model B fairer than model A? Two classifiers' fairness compared on the same rows.

Both models predict the same rows, so the comparison is *paired*. For every sensitive column
(``by=``) the table compares the gaps of :func:`~pdmetrics.fairness.classification`
(statistical parity difference, disparate impact, average odds differences, equal
opportunity difference) and, for every group of the column, the rates of
:func:`~pdmetrics.fairness.by_group` (selection rate, TPR, FPR, precision): both values,
their difference ``system - baseline``, an interval and the p-value of "no difference":

- a group's ``selection_rate``, ``tpr`` and ``fpr``: McNemar's test on the rows (of the group;
  its actual positives; its actual negatives) where exactly one model predicts positive (the
  exact binomial test below 25 such rows, the chi-square test with continuity correction from
  25 on), with the Wald interval of a paired difference;
- ``precision`` and the gaps (a ratio, for disparate impact): the paired Poisson bootstrap.

Called with ``human=`` and ``system=`` instead, it compares scoring systems' score fairness
analyses (OSA, OSD, CSD): see :mod:`pdmetrics.fairness.score_comparison`.

Every number here is a function of the counts of rows per cell ``(groups of every sensitive
column) x y_true x (prediction of each model)``: the table's state is those counts (additive
over chunks of rows). The bootstrap draws each cell's resampled count from a Poisson
distribution with the observed count as its mean: giving every row a Poisson(1) weight makes
a cell's total a sum of independent Poisson(1) draws, which *is* Poisson(count), independently
across cells, so this is the row-level Poisson bootstrap, equal in distribution, at the cost
of one draw per occupied cell and resample. The draws happen once, from the combined counts,
with a generator seeded by :func:`~pdmetrics._resampling.bootstrap_key` of ``random_state``, so
pandas, dask and polars give the same intervals.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._comparison import (
    COMPARISON_OPTIONS,
    compared_pairs,
    comparison_columns,
    comparison_settings,
    comparison_table,
    mcnemar_test,
    repeated,
)
from pdmetrics._division import WARN
from pdmetrics._docstrings import fill
from pdmetrics._groups import POOLED_LABEL, check_not_pooled
from pdmetrics._resampling import (
    paired_interval,
)
from pdmetrics._table_spec import table
from pdmetrics._validation import one_name, plain, require_columns
from pdmetrics._warnings import warn_excluded
from pdmetrics.errors import InvalidInputError
from pdmetrics.fairness._inputs import (
    LabelSummary,
    aligned_keys,
    binary_outcome,
    check_label_summaries,
    check_usable_rows,
    column_table,
    group_keys,
    label_summary,
    plain_keys,
)
from pdmetrics.fairness.bootstrap import check_resample_size
from pdmetrics.fairness.confusion import rates_from_counts
from pdmetrics.fairness.group_rates import fill_undefined
from pdmetrics.fairness.groups import checked_threshold, is_midrange, privileged_groups, resolve_group_options
from pdmetrics.fairness.parity import (
    FAIRNESS_METRICS,
    WORST,
    check_fairness_zero_division,
    check_option_columns,
    check_privileged_found,
    fairness_from_counts,
    nanmean_last,
    quiet_fairness,
    sensitive_columns,
)
from pdmetrics.fairness.score_comparison import score_comparison_spec

__all__ = ["RATES_COMPARED", "JointCounts", "compare"]

#: The group rates compared, in the table's order, and the rows a paired (McNemar) test counts
#: for each: every row of the group (None), its actual positives (1) or negatives (0); a rate
#: without an entry (precision: its denominator differs between the models) is bootstrapped.
RATES_COMPARED = ("selection_rate", "tpr", "fpr", "precision")
_MCNEMAR_ROWS = {"selection_rate": None, "tpr": 1, "fpr": 0}

#: What the checks of the whole label columns call the table.
_WHAT = "comparing classification fairness"

#: Floats a block of resamples may hold at once (bounds the memory at ~64 MB).
_BLOCK_FLOATS = 2**23


# ----------------------------------------------------------------------------------------------
# the state: rows per cell (groups of every sensitive column, y_true, each model's prediction)
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class JointCounts:
    """The additive state of :func:`compare` over some rows.

    Attributes
    ----------
    truth, predictions : LabelSummary, tuple of LabelSummary
        What the checks of the whole ``y_true`` and ``y_pred`` columns need.
    keys : tuple of pandas.DataFrame
        Per sensitive column, its values present (in every row, as
        :func:`~pdmetrics.fairness._inputs.group_keys` gives them, sorted).
    cells : ndarray of int64, shape ``(C, K)``
        The occupied cells: each one's group (a row of ``keys[k]``) in every sensitive column
        (-1: a missing value), sorted.
    counts : ndarray of int64, shape ``(C, 2 ** (S + 1))``
        Rows per cell and outcome code ``y_true * 2**S + sum(pred_s * 2**(S - 1 - s))`` of the
        ``S`` models (rows with a missing label or prediction are not counted).
    n_rows, n_missing_label : int
        Rows seen, and rows with a missing label or prediction.
    """

    truth: LabelSummary
    predictions: tuple
    keys: tuple
    cells: np.ndarray
    counts: np.ndarray
    n_rows: int
    n_missing_label: int

    def combine(self, other: JointCounts) -> JointCounts:
        """The state of the union of two disjoint row sets (groups aligned on their values)."""
        keys, cells = [], []
        for k, (mine, theirs) in enumerate(zip(self.keys, other.keys)):
            merged, at_mine, at_theirs = aligned_keys(mine, theirs)
            keys.append(merged)
            cells.append(
                np.concatenate([_recoded(self.cells[:, k], at_mine), _recoded(other.cells[:, k], at_theirs)])
            )
        stacked = np.column_stack(cells) if cells else np.zeros((0, 0), dtype=np.int64)
        unique, inverse = _unique_cells(stacked, [len(k) for k in keys])
        counts = np.zeros((len(unique), self.counts.shape[1]), dtype=np.int64)
        np.add.at(counts, inverse, np.concatenate([self.counts, other.counts]))
        return JointCounts(
            self.truth.combine(other.truth),
            tuple(a.combine(b) for a, b in zip(self.predictions, other.predictions)),
            tuple(keys),
            unique,
            counts,
            self.n_rows + other.n_rows,
            self.n_missing_label + other.n_missing_label,
        )


def _recoded(codes: np.ndarray, at: np.ndarray | None) -> np.ndarray:
    """Group codes moved to their place in the union of groups (-1 stays -1)."""
    if at is None:
        return codes
    return np.append(np.asarray(at, dtype=np.int64), -1)[codes]


def _unique_cells(cells: np.ndarray, sizes: list) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``cells`` (codes ``-1..size-1`` per column), sorted column by column,
    and the index of each row's cell."""
    shifted = cells.astype(np.int64) + 1
    radix = [size + 1 for size in sizes]
    if float(np.prod(radix, dtype=np.float64)) >= 2.0**62:  # a combined code would overflow
        unique, inverse = np.unique(shifted, axis=0, return_inverse=True)
        return unique - 1, inverse.reshape(-1)
    code = np.zeros(len(cells), dtype=np.int64)
    for k, size in enumerate(radix):
        code = code * size + shifted[:, k]
    total = int(np.prod(radix, dtype=np.int64))
    if total <= max(4 * len(cells), 1 << 16):  # small: a bincount finds the cells present
        present = np.flatnonzero(np.bincount(code, minlength=total))
        lookup = np.zeros(total, dtype=np.intp)
        lookup[present] = np.arange(present.size)
        inverse = lookup[code]
    else:
        present, inverse = np.unique(code, return_inverse=True)
    unique = np.empty((present.size, len(radix)), dtype=np.int64)
    rest = present
    for k in reversed(range(len(radix))):
        unique[:, k] = rest % radix[k] - 1
        rest = rest // radix[k]
    return unique, inverse.reshape(-1)


def joint_counts(y_true: pd.Series, y_pred: list, by: list, *, pos_label=1) -> JointCounts:
    """The :class:`JointCounts` of one chunk of rows (no warning, no whole-column check)."""
    n_systems = len(y_pred)
    t_pos, t_missing = binary_outcome(y_true, pos_label, "y_true")
    missing = t_missing.copy()
    outcome = t_pos.astype(np.int64) << n_systems
    predictions = []
    for s, series in enumerate(y_pred):
        p_pos, p_missing = binary_outcome(series, pos_label, "y_pred")
        predictions.append(label_summary(series, p_pos, p_missing))
        missing |= p_missing
        outcome |= p_pos.astype(np.int64) << (n_systems - 1 - s)
    columns = sensitive_columns(by, len(y_true))
    keys, codes = [], []
    for series in columns.values():
        column_codes, column_keys = group_keys([series])
        keys.append(column_keys)
        codes.append(column_codes)
    kept = ~missing
    cells, inverse = _unique_cells(np.column_stack(codes)[kept], [len(k) for k in keys])
    n_outcomes = 2 ** (n_systems + 1)
    counts = np.bincount(inverse * n_outcomes + outcome[kept], minlength=len(cells) * n_outcomes)
    return JointCounts(
        label_summary(y_true, t_pos, t_missing),
        tuple(predictions),
        tuple(keys),
        cells,
        counts.reshape(len(cells), n_outcomes).astype(np.int64),
        int(len(y_true)),
        int(missing.sum()),
    )


# ----------------------------------------------------------------------------------------------
# every model's confusion counts per group, for any weights of the occupied cells
# ----------------------------------------------------------------------------------------------
class _Groups:
    """How the weighted entries (occupied cell x outcome) of the state add up to each model's
    confusion counts per group of each sensitive column and per privileged/unprivileged side."""

    def __init__(self, state: JointCounts, privileged: list) -> None:
        n_systems = len(state.predictions)
        self.n_outcomes = 2 ** (n_systems + 1)
        cell, outcome = np.nonzero(state.counts)
        self.lam = state.counts[cell, outcome]
        self.sizes = [len(keys) for keys in state.keys]
        self.privileged = privileged
        self.sums = []  # per column: (kept entries in target order, their targets, first of each)
        for k in range(len(state.keys)):
            group = state.cells[cell, k]
            kept = np.flatnonzero(group >= 0)
            target = group[kept] * self.n_outcomes + outcome[kept]
            order = np.argsort(target, kind="stable")
            targets, starts = np.unique(target[order], return_index=True)
            self.sums.append((kept[order], targets, starts))
        # the confusion cell [TN, FP, FN, TP] of each outcome code for each model
        codes = np.arange(self.n_outcomes)
        truth = (codes >> n_systems) & 1
        self.to_confusion = np.zeros((n_systems, self.n_outcomes, 4))
        for s in range(n_systems):
            self.to_confusion[s, codes, 2 * truth + ((codes >> (n_systems - 1 - s)) & 1)] = 1.0
        self.outcome_codes = codes

    def totals(self, weights: np.ndarray, k: int) -> np.ndarray:
        """Weighted rows per group of column ``k`` and outcome: ``(resamples, groups, outcomes)``."""
        entries, targets, starts = self.sums[k]
        out = np.zeros((weights.shape[0], self.sizes[k] * self.n_outcomes))
        if entries.size:
            out[:, targets] = np.add.reduceat(weights[:, entries], starts, axis=1)
        return out.reshape(weights.shape[0], self.sizes[k], self.n_outcomes)

    def confusion(self, weights: np.ndarray) -> tuple[list, np.ndarray, np.ndarray]:
        """Each column's per-group confusion counts ``(resamples, models, groups, 4)``, and the
        unprivileged and privileged sides' ``(resamples, models, columns, 4)``."""
        per_group, sides = [], []
        for k, is_priv in enumerate(self.privileged):
            counts = self.totals(weights, k)[:, None] @ self.to_confusion  # (b, models, groups, 4)
            per_group.append(counts)
            sides.append(
                np.stack([counts[:, :, ~is_priv].sum(axis=2), counts[:, :, is_priv].sum(axis=2)], axis=2)
            )
        stacked = np.stack(sides, axis=2)  # (b, models, columns, side, 4)
        return per_group, stacked[:, :, :, 0], stacked[:, :, :, 1]


# ----------------------------------------------------------------------------------------------
# the table
# ----------------------------------------------------------------------------------------------
@table
@fill(comparison_options=COMPARISON_OPTIONS)
def compare(
    frame,
    *,
    y_true=None,
    y_pred=None,
    by,
    human=None,
    system=None,
    base_group=None,
    pos_label=1,
    privileged=None,
    threshold=0.0,
    invert=False,
    zero_division="worst",
    pairs: str = "baseline",
    correction=None,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    random_state=12345,
):
    """Is model B fairer than baseline A? The fairness gaps and group rates of classifiers
    compared on the same rows, with paired intervals and tests.

    Parameters
    ----------
    frame : DataFrame
        The labelled rows (pandas; dask and polars frames run the same table and give the same
        numbers for the same ``random_state``).
    y_true : str
        Column of true labels.
    y_pred : list of str
        Two or more columns of predicted labels, the baseline first. A row missing its label
        or any prediction is left out of every comparison (with an
        :class:`~pdmetrics.ExcludedRowsWarning`), so all models are compared on the same rows.
    by : str or list of str
        The sensitive column(s). Rows with a missing value are left out of that column's groups
        only.
    human, system : str, list of str
        Instead of ``y_true`` and ``y_pred``: compare the score fairness analyses of scoring
        systems (:func:`~pdmetrics.fairness.score_fairness_estimates` and
        :func:`~pdmetrics.fairness.score_fairness`): the human score column and two or more
        system score columns, the baseline first. A row missing the human score or any system
        score is left out of every system. The options of classifiers (``pos_label``,
        ``privileged``, ``threshold``, ``invert``, ``zero_division``) do not apply.
    base_group : optional
        With ``human=``: the reference group of the score fairness models (every group column),
        as :func:`~pdmetrics.fairness.score_fairness` takes it.
    pos_label, privileged, threshold, invert
        The positive (favourable) outcome, and the privileged rows of each sensitive column, as
        :func:`~pdmetrics.fairness.classification` takes them.
    zero_division : "worst", "warn" or float, default "worst"
        An undefined value, as :func:`~pdmetrics.fairness.classification` reports it: the odds
        and opportunity differences 1.0 with ``"worst"``, NaN with ``"warn"`` (both warn); an
        undefined rate NaN with a warning; a number: that number, silently.
    {comparison_options}
    random_state : int, numpy.random.Generator or None, default 12345
        Seed of the bootstrap (None: fresh entropy, so the intervals change per call).

    Returns
    -------
    pandas.DataFrame
        Columns ``by, group``, then ``metric, baseline, system, N, baseline_value,
        system_value, difference`` (system minus baseline), ``ci_low, ci_high`` (its
        interval), ``p_value`` (of no difference), ``p_adjusted`` and ``test``
        (``mcnemar_exact``, ``mcnemar_chi2`` or ``paired_bootstrap``). For each sensitive
        column and pair of models: the rows ``group == "(all)"`` of the five gaps of
        :func:`~pdmetrics.fairness.classification` (``N``: the rows in either group), then
        each group's ``selection_rate, tpr, fpr, precision`` as
        :func:`~pdmetrics.fairness.by_group` gives them (``N``: the group's rows); with
        several sensitive columns, last, the rows ``by == "(all)"`` of the gaps' mean over the
        columns (``classification``'s ``"(all)"`` row). Each model's value is that of the
        table of the model alone on the same rows. A difference the data cannot tell (no row
        in the group, no actual positive) is NaN, with its interval and p-value.

        With ``human=`` and ``system=``, for each group column and pair of systems: each score
        fairness model's coefficients (``metric`` ``"OSA"``, ``"OSD"``, ``"CSD"``, ``group``
        the group, the reference group first: its row is the intercept, as
        :func:`~pdmetrics.fairness.score_fairness_estimates` gives them; ``N``: the group's
        responses), then the models' adjusted R2 (``"OSA_R2"``, ``"OSD_R2"``, ``"CSD_R2"``,
        ``group == "(all)"``, as :func:`~pdmetrics.fairness.score_fairness`'s ``R2``). OSD
        and CSD differences are the coefficients of the same model fitted to the difference
        ``system - baseline`` of the two systems' scores (least squares is linear in the
        response and both systems share the design), with that fit's exact OLS interval and
        t-test (``test="ols_t"``); OSA (the squared error) and R2 use the paired Poisson
        bootstrap (``"paired_bootstrap"``). A difference the design fits exactly (e.g. a
        system compared with a copy of itself) has a zero-width interval and p = 1 where it
        is 0 (p = 0 elsewhere).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import pdmetrics
    >>> rng = np.random.default_rng(0)
    >>> n = 4000
    >>> df = pd.DataFrame({"y": rng.integers(0, 2, n), "sex": rng.choice(["F", "M"], n)})
    >>> favoured = (df["sex"] == "M") & (rng.random(n) < 0.2)  # the old model favours men
    >>> df["old"] = ((df["y"] == 1) & (rng.random(n) < 0.8)) | favoured
    >>> df["new"] = (df["y"] == 1) & (rng.random(n) < 0.8)
    >>> table = df.fairness.compare(y_true="y", y_pred=["old", "new"], by="sex", privileged="M")
    >>> gaps = table[table.group == "(all)"].set_index("metric")
    >>> gaps[["difference", "ci_low", "ci_high", "p_value"]].round(3)
                                   difference  ci_low  ci_high  p_value
    metric
    statistical_parity_difference       0.109   0.079    0.134    0.001
    disparate_impact                    0.194   0.135    0.250    0.001
    average_odds_difference             0.112   0.083    0.137    0.001
    average_abs_odds_difference        -0.112  -0.130   -0.084    0.001
    equal_opportunity_difference        0.028  -0.025    0.074    0.246

    Two scoring systems' score fairness estimates, against the human score:

    >>> from pdmetrics.datasets import simulate_scores
    >>> scores = simulate_scores(2000, seed=0)
    >>> scores["new"] = scores["sc1"] + rng.normal(0, 0.6, len(scores))
    >>> table = scores.fairness.compare(human="sc1", system=["raw", "new"], by="L1")
    >>> osd = table[table.metric == "OSD"].set_index("group")
    >>> osd[["baseline_value", "system_value", "difference", "ci_low", "p_value", "test"]].round(3)
              baseline_value  system_value  difference  ci_low  p_value   test
    group
    Spanish           -0.019        -0.018       0.001  -0.063    0.980  ols_t
    Mandarin           0.018         0.037       0.019  -0.080    0.701  ols_t
    Arabic             0.206         0.025      -0.181  -0.291    0.001  ols_t
    Hindi              0.042        -0.001      -0.043  -0.187    0.558  ols_t
    """
    settings = comparison_settings(pairs, correction, n_resamples, confidence, random_state)
    if human is not None or system is not None or base_group is not None:
        classifier_only = {
            "pos_label": pos_label != 1,
            "privileged": privileged is not None,
            "threshold": not (isinstance(threshold, float) and threshold == 0.0),
            "invert": invert is not False,
            "zero_division": zero_division != "worst",
        }
        given = [name for name, changed in classifier_only.items() if changed]
        if given:
            raise InvalidInputError(
                f"`{given[0]}=` is an option of comparing classifiers (`y_true=`, `y_pred=`); comparing "
                "scoring systems (`human=`, `system=`) does not take it: leave it out."
            )
        columns = {"y_true": y_true, "y_pred": y_pred, "human": human, "system": system, "by": by}
        return _score_compare(frame, columns, base_group, settings)
    truth = one_name(frame, "y_true", y_true)
    systems, groups, compared = _compared_columns(frame, "y_pred", y_pred, by, pairs)
    zero_division = check_fairness_zero_division(zero_division)
    check_option_columns(groups, privileged, threshold, invert)
    for name in groups:
        column_threshold, _, chosen = resolve_group_options(
            name, threshold, invert, privileged, len(groups) == 1
        )
        if chosen is None and not is_midrange(column_threshold):
            checked_threshold(column_threshold, name)
    # the models' outcome bits in one order whatever the order given, so that the bootstrap draws
    # of the cells do not depend on it (swapped models give the mirrored intervals)
    canonical = sorted(systems, key=lambda name: (str(name), type(name).__name__))
    finalize = partial(
        comparison_from_state,
        systems=canonical,
        compared=compared,
        pos_label=pos_label,
        sides={"privileged": privileged, "threshold": threshold, "invert": invert},
        zero_division=zero_division,
        options=settings,
    )
    columns = {"y_true": truth, "y_pred": canonical, "by": groups}
    return column_table(joint_counts, columns, {"pos_label": pos_label}, finalize)


def _score_compare(frame, columns: dict, base_group, settings: dict):
    """The spec of the score form of :func:`compare` (``human=``, ``system=``)."""
    y_true, y_pred, human, system, by = (
        columns[name] for name in ("y_true", "y_pred", "human", "system", "by")
    )
    if y_true is not None or y_pred is not None:
        raise InvalidInputError(
            "`compare` takes either classifiers (`y_true=`, `y_pred=[baseline, ...]`) or scoring "
            "systems (`human=`, `system=[baseline, ...]`, optionally `base_group=`), not both: pass "
            "one form."
        )
    if human is None or system is None:
        missing = "human" if human is None else "system"
        raise InvalidInputError(
            f"`{missing}=` is missing: comparing scoring systems needs `human=` (the human score "
            "column) and `system=[baseline, ...]` (two or more system score columns)."
        )
    human = one_name(frame, "human", human)
    systems, groups, compared = _compared_columns(frame, "system", system, by, settings["pairs"])
    return score_comparison_spec(frame, human, systems, groups, base_group, compared, settings)


def _compared_columns(frame, argument: str, names, by, pairs) -> tuple[list, list, list]:
    """The systems (``argument=``), the sensitive columns and the pairs compared, checked."""
    systems = _listed_once(require_columns(frame, argument, names), argument)
    groups = _listed_once(require_columns(frame, "by", by), "by")
    check_not_pooled(pd.Index(groups, dtype=object), "by")
    return systems, groups, compared_pairs(systems, pairs, argument)


def _listed_once(names: list, argument: str) -> list:
    """``names``, refused when one is listed twice."""
    twice = [name for i, name in enumerate(names) if name in names[:i]]
    if twice:
        name = plain(twice[0])
        copy = (
            f" (to check a model against itself, compare it with a copy: `df.assign(copy=df[{name!r}])`)"
            if argument in ("y_pred", "system")
            else ""
        )
        raise InvalidInputError(
            f"`{argument}=` names the column {name!r} twice; pass each column once{copy}."
        )
    return names


def comparison_from_state(
    state: JointCounts, *, systems, compared, pos_label, sides, zero_division, options
) -> pd.DataFrame:
    """The :func:`compare` table from the state of every row (options already checked)."""
    for summary in state.predictions:
        check_usable_rows(state.n_rows, {"y_true": state.truth, "y_pred": summary}, None, _WHAT)
        check_label_summaries((state.truth, summary), pos_label)
    if state.n_missing_label >= state.n_rows:
        raise InvalidInputError(
            f"No row has a `y_true` value and a prediction of every `y_pred` column "
            f"({[plain(s) for s in systems]!r}), so no usable rows: {_WHAT} needs rows with all of them."
        )
    warn_excluded(state.n_missing_label, state.n_rows, "the label or a prediction is missing")
    names = [keys.columns[0] for keys in state.keys]
    values, privileged = [], []
    used = int(state.counts.sum())
    for k, name in enumerate(names):
        column = plain_keys(state.keys[k])[name]
        check_not_pooled(pd.Index(column, dtype=object), f"by={plain(name)!r}")
        threshold, invert, chosen = resolve_group_options(
            name, sides["threshold"], sides["invert"], sides["privileged"], len(names) == 1
        )
        is_priv, _ = privileged_groups(column, threshold, invert, chosen)
        check_privileged_found(name, column, is_priv, sides["privileged"], chosen)
        values.append(column.tolist())
        privileged.append(is_priv)
        missing = int(state.counts[state.cells[:, k] < 0].sum()) if len(state.cells) else 0
        warn_excluded(missing, used, f"column {plain(name)!r} of `by=` is missing")
    groups = _Groups(state, privileged)
    observed = _observed(groups, state, names, systems, zero_division)
    resampled = _resampled(groups, len(systems), len(names), zero_division, options)
    n_groups = [len(v) for v in values]
    parts = []
    for k, name in enumerate(names):
        totals = groups.totals(groups.lam[None].astype("float64"), k)[0]
        for a, b in compared:
            i, j = systems.index(a), systems.index(b)
            parts.append(
                _gap_rows(
                    name,
                    a,
                    b,
                    observed["gaps"][:, :, k],
                    resampled["gaps"][:, :, :, k],
                    i,
                    j,
                    int(observed["sides_n"][k]),
                    options,
                )
            )
            parts.append(
                _rate_rows(
                    name,
                    values[k],
                    a,
                    b,
                    observed,
                    resampled,
                    totals,
                    groups,
                    k,
                    i,
                    j,
                    sum(n_groups[:k]),
                    options,
                )
            )
    if len(names) > 1:  # the gaps' mean over the sensitive columns
        for a, b in compared:
            i, j = systems.index(a), systems.index(b)
            parts.append(
                _gap_rows(POOLED_LABEL, a, b, observed["mean"], resampled["mean"], i, j, used, options)
            )
    rows = pd.DataFrame({name: np.concatenate([part[name] for part in parts]) for name in parts[0]})
    return comparison_table([rows], ["by", "group"], options["correction"])


def _rates_policy(zero_division):
    """What an undefined group rate becomes: NaN with a warning, or the number given."""
    return WARN if zero_division in (WORST, WARN) else zero_division


def _observed(groups: _Groups, state: JointCounts, names, systems, zero_division) -> dict:
    """Every model's rates per group and gaps per column (and their mean), with the warnings of
    :func:`~pdmetrics.fairness.by_group` and :func:`~pdmetrics.fairness.classification`."""
    per_group, unprivileged, privileged = groups.confusion(groups.lam[None].astype("float64"))
    counts = np.concatenate([c[0] for c in per_group], axis=1).astype(np.int64)  # (models, groups, 4)
    rates = fill_undefined(rates_from_counts(counts), None, _rates_policy(zero_division))
    n_systems, n_columns = len(systems), len(names)
    labels = [f"column {plain(n)!r} of `by=` for `y_pred={plain(s)!r}`" for s in systems for n in names]
    gaps = fairness_from_counts(
        privileged[0].reshape(-1, 4).astype(np.int64),
        unprivileged[0].reshape(-1, 4).astype(np.int64),
        zero_division,
        labels,
    )
    stacked = np.stack(
        [gaps[m].reshape(n_systems, n_columns) for m in FAIRNESS_METRICS]
    )  # (metric, model, column)
    return {
        "counts": counts,
        "rates": rates,
        "gaps": stacked,
        "mean": nanmean_last(stacked),
        "sides_n": (privileged[0, 0] + unprivileged[0, 0]).sum(axis=-1),
    }


def _resampled(groups: _Groups, n_systems: int, n_columns: int, zero_division, options) -> dict:
    """Every model's precision per group and gaps per column (and their mean) in each resample,
    the cells' counts drawn from Poisson distributions, in blocks of resamples."""
    n_resamples = options["n_resamples"]
    n_groups = sum(groups.sizes)
    check_resample_size(n_resamples, n_systems * (n_groups + 6 * n_columns))
    precision = np.empty((n_resamples, n_systems, n_groups))
    gaps = np.empty((len(FAIRNESS_METRICS), n_resamples, n_systems, n_columns))
    per_resample = (
        groups.lam.size + n_groups * (groups.n_outcomes + 12 * n_systems) + 50 * n_systems * n_columns
    )
    step = max(1, _BLOCK_FLOATS // max(1, per_resample))
    rng = np.random.default_rng(options["key"])
    fill = np.nan if zero_division in (WORST, WARN) else zero_division
    for lo in range(0, n_resamples, step):  # blocks of resamples, each drawn and finalized at once
        size = min(step, n_resamples - lo)
        weights = rng.poisson(groups.lam.astype("float64"), size=(size, groups.lam.size)).astype("float64")
        per_group, unprivileged, privileged = groups.confusion(weights)
        counts = np.concatenate(per_group, axis=2)
        values = rates_from_counts(counts)["precision"]
        precision[lo : lo + size] = np.where(np.isnan(values), fill, values)
        quiet = quiet_fairness(privileged, unprivileged, zero_division)
        for m, name in enumerate(FAIRNESS_METRICS):
            gaps[m, lo : lo + size] = quiet[name]
    return {"precision": precision, "gaps": gaps, "mean": nanmean_last(gaps)}


def _gap_rows(by, a, b, observed, resampled, i, j, n, options) -> dict:
    """The five gaps of one column (or their mean): ``observed`` (metric, model), ``resampled``
    (metric, resample, model)."""
    value_a, value_b = observed[:, i], observed[:, j]
    samples = (resampled[:, :, j] - resampled[:, :, i]).T  # (resample, metric)
    low, high, p = paired_interval(samples, value_b - value_a, options["confidence"])
    size = len(FAIRNESS_METRICS)
    metrics = np.array(FAIRNESS_METRICS, dtype=object)
    test = repeated("paired_bootstrap", size)
    return comparison_columns(
        by, repeated(POOLED_LABEL, size), metrics, a, b, n, value_a, value_b, low, high, p, test
    )


def _rate_rows(by, values, a, b, observed, resampled, totals, groups: _Groups, k, i, j, first, options):
    """The rates of every group of column ``k`` (``totals``: its rows per group and outcome),
    group by group, the metrics in :data:`RATES_COMPARED` order within each."""
    size = len(values)
    confidence = options["confidence"]
    codes = groups.outcome_codes
    n_systems = len(groups.to_confusion)
    truth = (codes >> n_systems) & 1
    says_a = ((codes >> (n_systems - 1 - i)) & 1) == 1
    says_b = ((codes >> (n_systems - 1 - j)) & 1) == 1
    n = observed["counts"][i, first : first + size].sum(axis=1)
    value_a = np.stack(
        [observed["rates"][metric][i, first : first + size] for metric in RATES_COMPARED], axis=1
    )
    value_b = np.stack(
        [observed["rates"][metric][j, first : first + size] for metric in RATES_COMPARED], axis=1
    )
    low, high, p = (np.full((size, len(RATES_COMPARED)), np.nan) for _ in range(3))
    test = np.full((size, len(RATES_COMPARED)), "paired_bootstrap", dtype=object)
    # McNemar's test of the rates of paired proportions, all groups and rates at once
    paired = [m for m, metric in enumerate(RATES_COMPARED) if metric in _MCNEMAR_ROWS]
    rows = np.stack(
        [
            np.ones(codes.size, dtype=bool) if kept is None else truth == kept
            for kept in _MCNEMAR_ROWS.values()
        ]
    )  # (rates, outcomes)
    tested = mcnemar_test(
        totals @ (says_a & ~says_b & rows).T,
        totals @ (says_b & ~says_a & rows).T,
        totals @ rows.T,
        confidence,
    )
    defined = ~np.isnan(value_a[:, paired]) & ~np.isnan(value_b[:, paired])
    for values_of, result in zip((p, low, high), tested[:3]):
        values_of[:, paired] = np.where(defined, result, np.nan)
    test[:, paired] = np.where(tested[3], "mcnemar_exact", "mcnemar_chi2")
    # the paired bootstrap of the others (precision)
    for m, metric in enumerate(RATES_COMPARED):
        if metric not in _MCNEMAR_ROWS:
            samples = (
                resampled[metric][:, j, first : first + size] - resampled[metric][:, i, first : first + size]
            )
            low[:, m], high[:, m], p[:, m] = paired_interval(
                samples, value_b[:, m] - value_a[:, m], confidence
            )
    columns = {"value_a": value_a, "value_b": value_b, "low": low, "high": high, "p": p, "test": test}
    width = len(RATES_COMPARED)
    arranged = {name: column.ravel() for name, column in columns.items()}  # group by group
    group = np.empty(size * width, dtype=object)
    group[:] = [value for value in values for _ in range(width)]
    return comparison_columns(
        by,
        group,
        np.tile(np.array(RATES_COMPARED, dtype=object), size),
        a,
        b,
        np.repeat(n, width),
        arranged["value_a"],
        arranged["value_b"],
        arranged["low"],
        arranged["high"],
        arranged["p"],
        arranged["test"],
    )
