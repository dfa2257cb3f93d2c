"""Continuous scores by group: distribution distances, ROC AUC and calibration per group.

:func:`score_distributions` compares each group's distribution of a continuous score (a risk
estimate, a probability, any real number) with a reference group's, or with all the other
rows of its group column:

- the two-sample Kolmogorov-Smirnov statistic ``D = max_x |F_group(x) - F_reference(x)|`` and
  its p-value, as :func:`scipy.stats.ks_2samp` (two-sided, ``method="auto"``) gives them: the
  exact distribution when both samples have at most 10,000 rows, Smirnov's asymptotic one
  (``scipy.stats.kstwo``) otherwise; in the exact case ``D`` is the multiple of
  ``1 / lcm(n1, n2)`` SciPy rounds it to;
- the Wasserstein-1 distance ``integral |F_group(x) - F_reference(x)| dx``
  (:func:`scipy.stats.wasserstein_distance`);
- with binary labels ``y_true``: the ROC AUC of each group (:func:`sklearn.metrics.roc_auc_score`:
  the Mann-Whitney statistic, tied scores counting one half) and its calibration over
  ``n_bins`` equal-width bins of [0, 1] (the bins of :func:`sklearn.calibration.calibration_curve`
  with ``strategy="uniform"``): the expected calibration error ``ECE = sum over bins of
  (n_bin / n) * |mean(y in bin) - mean(score in bin)|``.

How it is computed
------------------
The state is additive and exact: per group column, the number of rows of every
``(group, distinct score, label)`` cell (and the same per ``(distinct score, label)`` for the
pooled row). Chunks of rows combine by adding the counts of equal cells. ``finalize`` sorts the
distinct scores of a group column once, lays the cells out as a groups x distinct scores count
matrix (in blocks of groups, to bound its memory) and takes every statistic from the cumulative
counts of each row of that matrix, vectorised over the groups: the empirical CDFs are
``cumulative count / n`` (the very numbers ``ks_2samp`` and ``wasserstein_distance`` compare),
the AUC is ``sum(positives x (negatives below + negatives tied / 2)) / (P N)``, exact in
floating point. The p-values are the only per-group step: SciPy's exact distribution is a
recursion on ``(n1, n2, D)``, computed by :func:`scipy.stats.ks_2samp` itself on two samples
of the same sizes whose one ECDF gap is ``D``.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._additive import Additive
from pdmetrics._groups import POOLED_LABEL, check_not_pooled, named_columns
from pdmetrics._table_spec import table
from pdmetrics._tables import attach_info
from pdmetrics._validation import numeric_values, plain, preview
from pdmetrics._warnings import warn_excluded, warn_undefined
from pdmetrics.errors import InvalidInputError
from pdmetrics.fairness._inputs import (
    LabelSummary,
    aligned_keys,
    binary_outcome,
    check_binary_summary,
    check_pos_label_summaries,
    column_table,
    group_keys,
    group_names,
    label_summary,
    optional_name,
    plain_keys,
)

__all__ = [
    "AGAINST",
    "REST_LABEL",
    "SCORE_TABLES",
    "ScoreCells",
    "ScoreState",
    "ks_pvalue",
    "score_distributions",
    "score_state",
]

#: The tables of :func:`score_distributions` (its ``table=`` option).
SCORE_TABLES = ("groups", "reliability", "cdf")
#: What each group is compared with (its ``against=`` option).
AGAINST = ("reference", "rest")
#: The ``reference`` of every row with ``against="rest"``.
REST_LABEL = "(rest)"
#: Largest sample size of SciPy's exact KS distribution under ``method="auto"``.
EXACT_KS_MAX_N = 10_000
#: Most cells of one block of the groups x distinct scores count matrix.
_BLOCK_CELLS = 1 << 22


# --------------------------------------------------------------------------------------
# the additive state
# --------------------------------------------------------------------------------------
def _reduced(group: np.ndarray, value: np.ndarray, label: np.ndarray, count: np.ndarray, ranked=None):
    """The cells ``(group, value, label)`` with equal cells' counts added, sorted by group,
    then value, then label. ``ranked``: ``(rank, distinct values)`` of ``value`` when known."""
    if not value.size:
        empty = np.zeros(0, dtype=np.int64)
        return empty.astype(np.intp), np.zeros(0), empty.astype(np.int8), empty
    # a hash pass, then only the distinct values sorted
    rank, values = pd.factorize(value, sort=True) if ranked is None else ranked
    key = (group.astype(np.int64) * values.size + rank) * 2 + label
    size = (int(group.max()) + 1) * values.size * 2
    if size <= max(4 * key.size, 1 << 16):  # few cells: count them in place
        counts = np.bincount(key, weights=count, minlength=size)
        keys = np.flatnonzero(counts)
        counts = counts[keys].astype(np.int64)
    else:
        keys, inverse = np.unique(key, return_inverse=True)
        counts = np.bincount(inverse.reshape(-1), weights=count, minlength=keys.size).astype(np.int64)
    label_out = (keys % 2).astype(np.int8)
    rest = keys // 2
    return (rest // values.size).astype(np.intp), values[rest % values.size], label_out, counts


@dataclass(frozen=True)
class ScoreCells:
    """Rows per ``(group, distinct score, label)`` of one group column; additive.

    Attributes
    ----------
    name : hashable
        The group column's name (:data:`~pdmetrics._groups.POOLED_LABEL` for every row).
    keys : pandas.DataFrame
        The groups, as :func:`~pdmetrics.fairness._inputs.group_keys` gives them (one row for
        the pooled cells).
    group, value, label, count : ndarray
        The cells, sorted by group, then score, then label (0, or 1 for a positive ``y_true``;
        0 when there is no label).
    rows_missing_group : int
        Rows with a score (and label) left out for a missing group value.
    """

    name: object
    keys: pd.DataFrame
    group: np.ndarray
    value: np.ndarray
    label: np.ndarray
    count: np.ndarray
    rows_missing_group: int

    def combine(self, other: ScoreCells) -> ScoreCells:
        """The cells of the union of two disjoint row sets (groups aligned on their values)."""
        keys, mine, theirs = aligned_keys(self.keys, other.keys)
        group = np.concatenate(
            [
                self.group if mine is None else mine[self.group],
                other.group if theirs is None else theirs[other.group],
            ]
        )
        cells = _reduced(
            group,
            np.concatenate([self.value, other.value]),
            np.concatenate([self.label, other.label]),
            np.concatenate([self.count, other.count]),
        )
        return ScoreCells(self.name, keys, *cells, self.rows_missing_group + other.rows_missing_group)


@dataclass(frozen=True)
class ScoreState(Additive):
    """The additive state of :func:`score_distributions` over some rows.

    ``columns``: one :class:`ScoreCells` per group column; ``overall``: the pooled cells;
    ``labels``: the :class:`~pdmetrics.fairness._inputs.LabelSummary` of ``y_true`` (None
    without labels); ``rows``: the rows seen and those left out for a missing score or label.
    """

    columns: tuple
    overall: ScoreCells
    labels: LabelSummary | None
    rows: tuple


def score_state(score, by, y_true=None, *, pos_label=1) -> ScoreState:
    """The :class:`ScoreState` of one chunk of rows (no warning, no whole-column check).

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.fairness.score_groups import score_state
    >>> df = pd.DataFrame({"s": [0.1, 0.4, 0.4, 0.9], "sex": ["F", "F", "M", "M"]})
    >>> state = score_state(df["s"], [df["sex"]]).combine(score_state(df["s"], [df["sex"]]))
    >>> state.columns[0].count.tolist(), state.overall.count.tolist()
    ([2, 2, 2, 2], [2, 4, 2])
    """
    values = numeric_values(score, "score")
    missing_score = np.isnan(values)
    n = values.size
    if y_true is None:
        positive, missing_label, labels = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool), None
    else:
        positive, missing_label = binary_outcome(y_true, pos_label, "y_true")
        labels = label_summary(y_true, positive, missing_label)
    used = ~missing_score & ~missing_label
    kept, label = values[used], positive[used].astype(np.int8)
    ones = np.ones(kept.size, dtype=np.int64)
    pooled = pd.DataFrame({POOLED_LABEL: [POOLED_LABEL]})
    ranked = pd.factorize(kept, sort=True)
    zeros = np.zeros(kept.size, np.intp)
    overall = ScoreCells(POOLED_LABEL, pooled, *_reduced(zeros, kept, label, ones, ranked), 0)
    columns = []
    for series in named_columns(by, n, "by"):
        codes, keys = group_keys([series])
        check_not_pooled(plain_keys(keys)[series.name], f"by={plain(series.name)!r}")
        codes = codes[used]
        present = codes >= 0
        rank, values = ranked
        cells = _reduced(
            codes[present], kept[present], label[present], ones[present], (rank[present], values)
        )
        columns.append(ScoreCells(series.name, keys, *cells, int((~present).sum())))
    return ScoreState(
        tuple(columns),
        overall,
        labels,
        (n, int(missing_score.sum()), int((missing_label & ~missing_score).sum())),
    )


# --------------------------------------------------------------------------------------
# the statistics
# --------------------------------------------------------------------------------------
def ks_pvalue(c1: int, n1: int, c2: int, n2: int) -> tuple[float, float, str]:
    """``(D, p-value, method)`` of the two-sided two-sample KS test whose statistic is the
    ECDF gap ``|c1 / n1 - c2 / n2|``, exactly as :func:`scipy.stats.ks_2samp` (``method="auto"``)
    reports it for samples of sizes ``n1`` and ``n2``.

    Up to :data:`EXACT_KS_MAX_N` rows per sample, SciPy's exact distribution (``D`` rounded to a
    multiple of ``1 / lcm(n1, n2)``; when SciPy's exact recursion fails it falls back to the
    asymptotic one and ``method`` says so); above, ``scipy.stats.kstwo.sf(D, round(n1 n2 /
    (n1 + n2)))``.

    Examples
    --------
    >>> from pdmetrics.fairness.score_groups import ks_pvalue
    >>> d, p, method = ks_pvalue(3, 4, 1, 4)
    >>> round(d, 6), round(p, 6), method
    (0.5, 0.771429, 'exact')
    """
    from scipy import stats

    if max(n1, n2) <= EXACT_KS_MAX_N:
        first = np.repeat(np.array([0.0, 1.0]), [c1, n1 - c1])
        second = np.repeat(np.array([0.0, 1.0]), [c2, n2 - c2])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = stats.ks_2samp(first, second)
        method = "asymp" if any("Switching to method=asymp" in str(w.message) for w in caught) else "exact"
        return float(result.statistic), float(result.pvalue), method
    d = abs(c1 / n1 - c2 / n2)
    m, n = sorted([float(n1), float(n2)], reverse=True)
    return d, float(np.clip(stats.kstwo.sf(d, np.round(m * n / (m + n))), 0, 1)), "asymp"


@dataclass(frozen=True)
class _Column:
    """One group column's cells laid out for the statistics."""

    labels: np.ndarray  # the group labels (object)
    values: np.ndarray  # the column's distinct scores, sorted
    position: np.ndarray  # each cell's score as an index into ``values``
    cells: ScoreCells
    n: np.ndarray  # rows per group
    positives: np.ndarray

    @classmethod
    def of(cls, cells: ScoreCells) -> _Column:
        labels = plain_keys(cells.keys).iloc[:, 0].to_numpy(dtype=object)
        position, values = pd.factorize(cells.value, sort=True)
        n = np.bincount(cells.group, weights=cells.count, minlength=labels.size).astype(np.int64)
        positives = np.bincount(cells.group, weights=cells.count * cells.label, minlength=labels.size)
        return cls(
            labels, np.asarray(values, dtype=np.float64), position, cells, n, positives.astype(np.int64)
        )

    def counts(self, start: int, stop: int, positive: bool | None = None) -> np.ndarray:
        """The count matrix of groups ``start..stop-1`` x distinct scores (only the positive or
        negative rows with ``positive``)."""
        cells = self.cells
        chosen = (cells.group >= start) & (cells.group < stop)
        if positive is not None:
            chosen &= cells.label == int(positive)
        width = self.values.size
        at = (cells.group[chosen] - start) * width + self.position[chosen]
        flat = np.bincount(at, weights=cells.count[chosen], minlength=(stop - start) * width)
        return flat.astype(np.int64).reshape(stop - start, width)

    def blocks(self):
        step = max(1, _BLOCK_CELLS // max(self.values.size, 1))
        for start in range(0, self.labels.size, step):
            yield start, min(start + step, self.labels.size)


def _distances(column: _Column, reference: int | None) -> dict:
    """KS (with the cumulative counts at its location) and Wasserstein per group, against the
    group ``reference`` or (None) against the rest of the column."""
    g = column.labels.size
    out = {
        "ks": np.full(g, np.nan),
        "at_group": np.zeros(g, np.int64),
        "at_other": np.zeros(g, np.int64),
        "wasserstein": np.full(g, np.nan),
        "n_other": np.zeros(g, np.int64),
    }
    deltas = np.diff(column.values)
    total = column.n.sum()
    if reference is not None:
        other_cumulative = np.cumsum(column.counts(reference, reference + 1)[0])
    else:
        cells = column.cells
        totals = np.bincount(column.position, weights=cells.count, minlength=column.values.size)
        all_cumulative = np.cumsum(totals.astype(np.int64))
    for start, stop in column.blocks():
        cumulative = np.cumsum(column.counts(start, stop), axis=1)
        n = column.n[start:stop]
        if reference is not None:
            other = np.broadcast_to(other_cumulative, cumulative.shape)
            n_other = np.full(stop - start, column.n[reference])
        else:
            other = all_cumulative[None, :] - cumulative
            n_other = total - n
        defined = (n > 0) & (n_other > 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            gap = cumulative / n[:, None] - other / n_other[:, None]
        gap[~defined] = 0.0
        high, low = gap.argmax(axis=1), gap.argmin(axis=1)
        rows = np.arange(stop - start)
        max_s, min_s = gap[rows, high], np.clip(-gap[rows, low], 0, 1)
        at = np.where(min_s > max_s, low, high)
        out["ks"][start:stop] = np.where(defined, np.maximum(max_s, min_s), np.nan)
        out["at_group"][start:stop] = cumulative[rows, at]
        out["at_other"][start:stop] = other[rows, at]
        out["n_other"][start:stop] = n_other
        wasserstein = np.abs(gap[:, :-1]) @ deltas if deltas.size else np.zeros(stop - start)
        out["wasserstein"][start:stop] = np.where(defined, wasserstein, np.nan)
    return out


def _auc(column: _Column) -> np.ndarray:
    """ROC AUC per group (NaN for a group without both classes)."""
    auc = np.full(column.labels.size, np.nan)
    negatives_total = column.n - column.positives
    for start, stop in column.blocks():
        positive = column.counts(start, stop, True).astype(np.float64)
        negative = column.counts(start, stop, False).astype(np.float64)
        below = np.cumsum(negative, axis=1) - negative
        wins = (positive * (below + 0.5 * negative)).sum(axis=1)
        pairs = column.positives[start:stop] * negatives_total[start:stop]
        with np.errstate(invalid="ignore", divide="ignore"):
            auc[start:stop] = np.where(pairs > 0, wins / np.where(pairs > 0, pairs, 1), np.nan)
    return auc


def _bins(column: _Column, n_bins: int) -> dict:
    """Rows, summed scores and positives per group x bin (``(groups, n_bins)`` arrays)."""
    cells = column.cells
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    which = np.searchsorted(edges[1:-1], cells.value)  # sklearn's calibration_curve bins
    at = cells.group * n_bins + which
    size = column.labels.size * n_bins

    def total(weights):
        return np.bincount(at, weights=weights, minlength=size).reshape(-1, n_bins)

    return {
        "edges": edges,
        "n": total(cells.count).astype(np.int64),
        "score": total(cells.count * cells.value),
        "positives": total(cells.count * cells.label),
    }


def _ece(binned: dict, n: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = np.abs(binned["positives"] - binned["score"]) / n[:, None]
    return np.where(n > 0, np.where(binned["n"] > 0, gap, 0.0).sum(axis=1), np.nan)


# --------------------------------------------------------------------------------------
# the public table
# --------------------------------------------------------------------------------------
@table
def score_distributions(
    frame,
    *,
    score,
    by,
    y_true=None,
    pos_label=1,
    base_group=None,
    against: str = "reference",
    n_bins: int | None = 10,
    table: str = "groups",
) -> pd.DataFrame:
    """How each group's scores are distributed: KS, Wasserstein, ROC AUC and calibration by group.

    Each group of each group column is compared with the column's reference group
    (``against="reference"``) or with all the column's other rows (``against="rest"``): the
    two-sample Kolmogorov-Smirnov statistic and p-value (:func:`scipy.stats.ks_2samp`,
    two-sided, ``method="auto"``) and the Wasserstein-1 distance
    (:func:`scipy.stats.wasserstein_distance`). With binary labels ``y_true`` the table adds
    each group's ROC AUC (:func:`sklearn.metrics.roc_auc_score`) and expected calibration
    error over ``n_bins`` equal-width bins of [0, 1].

    Parameters
    ----------
    frame : DataFrame
        The scored rows (pandas; dask and polars frames give the same table).
    score : str
        Column of continuous scores (probabilities, risk estimates, any numbers). Rows with
        a missing or infinite score are left out with an :class:`~pdmetrics.ExcludedRowsWarning`.
    by : str or list of str
        Group column(s), each compared on its own. A row with a missing value is left out of
        that column's groups (it counts in the ``"(all)"`` row).
    y_true : str, optional
        Column of binary labels (one of them ``pos_label``): adds ``N_positive``, ``roc_auc``
        and ``ece``. Rows with a missing label are left out.
    pos_label : scalar, default 1
        The positive outcome of ``y_true``.
    base_group : scalar or dict, optional
        The reference group of ``against="reference"`` (one value for every group column, or
        ``{column: value}``). Default: the largest group, ties broken by the sorted order
        (as :func:`score_fairness` chooses its base group).
    against : {"reference", "rest"}, default "reference"
        Compare each group with the reference group, or with every other row of its column.
    n_bins : int or None, default 10
        Equal-width bins of [0, 1] for the calibration: bin 1 is ``[0, 1/n_bins]``, bin ``k``
        ``((k-1)/n_bins, k/n_bins]`` (the bins of scikit-learn's ``calibration_curve``). With
        ``y_true`` the scores must then lie in [0, 1]; ``None`` leaves calibration out (and
        the scores free).
    table : {"groups", "reliability", "cdf"}, default "groups"
        Which table to return (see Returns).

    Returns
    -------
    pandas.DataFrame
        ``table="groups"``: ``by, group, N, [N_positive,] score_mean, reference, N_reference,
        ks_statistic, ks_pvalue, ks_method, wasserstein, [roc_auc, ece]``: one row per group
        of each column, in sorted order, then one ``"(all)"`` row of every used row (its
        comparison columns empty). ``reference`` is the reference group's label
        (``"(rest)"`` with ``against="rest"``); ``ks_method`` is ``"exact"`` or ``"asymp"``,
        the method SciPy's ``method="auto"`` uses; ``ece = sum over bins of (n_bin / n) *
        |mean(y in bin) - mean(score in bin)|``.

        ``table="reliability"`` (needs ``y_true`` and ``n_bins``): ``by, group, bin, bin_low,
        bin_high, N, score_mean, observed_rate``, one row per group and bin (an empty bin
        has ``N = 0`` and NaN means).

        ``table="cdf"``: ``by, group, score, N, cdf``: each group's empirical CDF at each of
        its distinct scores.

        A comparison that cannot be made (an empty group, an empty reference, a column with
        one group against the rest) and the AUC of a group with one class are NaN, with one
        :class:`~pdmetrics.UndefinedMetricWarning`.

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> df = pd.DataFrame({"p": [0.1, 0.4, 0.35, 0.8, 0.2, 0.7, 0.9, 0.6],
    ...                    "y": [0, 0, 1, 1, 0, 1, 1, 0],
    ...                    "sex": ["F", "F", "F", "F", "M", "M", "M", "M"]})
    >>> out = df.fairness.score_distributions(score="p", by="sex", y_true="y", base_group="F")
    >>> out[["by", "group", "N", "ks_statistic", "ks_pvalue", "roc_auc"]].round(3)
          by  group  N  ks_statistic  ks_pvalue  roc_auc
    0    sex      F  4           0.0      1.000    0.750
    1    sex      M  4           0.5      0.771    1.000
    2  (all)  (all)  8           NaN        NaN    0.875
    >>> curve = pdmetrics.fairness.score_distributions(df, score="p", by="sex", y_true="y",
    ...                                                n_bins=2, table="reliability")
    >>> curve[["group", "bin", "N", "score_mean", "observed_rate"]].round(3)
      group  bin  N  score_mean  observed_rate
    0     F    1  3       0.283          0.333
    1     F    2  1       0.800          1.000
    2     M    1  1       0.200          0.000
    3     M    2  3       0.733          0.667
    4  (all)   1  4       0.262          0.250
    5  (all)   2  4       0.750          0.750
    """
    columns = {
        "score": optional_name(frame, "score", score),
        "by": group_names(frame, by),
        "y_true": optional_name(frame, "y_true", y_true),
    }
    if columns["score"] is None:
        raise InvalidInputError("`score=None`: name the column of scores, e.g. `score='probability'`.")
    if columns["by"] is None:
        raise InvalidInputError(
            "`by=None`: name the group column(s), e.g. `by='sex'` or `by=['sex', 'race']`."
        )
    options = _checked_options(columns["by"], y_true, base_group, against, n_bins, table)
    options.update(pos_label=pos_label, score_name=columns["score"])
    finalize = partial(score_distributions_from_state, **options)
    return column_table(partial(score_state, pos_label=pos_label), columns, {}, finalize)


def _checked_options(by: list, y_true, base_group, against, n_bins, table) -> dict:
    if table not in SCORE_TABLES:
        raise InvalidInputError(
            f"`table={plain(table)!r}`: choose one of {', '.join(map(repr, SCORE_TABLES))}."
        )
    if against not in AGAINST:
        raise InvalidInputError(f"`against={plain(against)!r}`: choose 'reference' or 'rest'.")
    if n_bins is not None and (
        isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 1
    ):
        raise InvalidInputError(f"`n_bins={plain(n_bins)!r}` must be a positive integer (e.g. 10), or None.")
    if table == "reliability" and (y_true is None or n_bins is None):
        raise InvalidInputError(
            "`table='reliability'` needs labels and bins: pass `y_true=` (the binary outcome) and `n_bins=`."
        )
    if isinstance(base_group, Mapping):
        unknown = [name for name in base_group if name not in by]
        if unknown:
            raise InvalidInputError(
                f"`base_group=` names {unknown!r}, which are not among the `by=` columns {by!r}."
            )
    if base_group is not None and against == "rest":
        raise InvalidInputError(
            "`base_group=` chooses the reference of `against='reference'`; with `against='rest'` each "
            "group is compared with all the other rows. Pass one of the two."
        )
    return {
        "labelled": y_true is not None,
        "base_group": base_group,
        "against": against,
        "n_bins": None if n_bins is None else int(n_bins),
        "table": table,
    }


def _reference_index(column: _Column, base_group) -> int:
    """The reference group: ``base_group`` (for this column), else the largest group."""
    wanted = base_group.get(column.cells.name) if isinstance(base_group, Mapping) else base_group
    if wanted is None:
        return int(np.argmax(column.n)) if column.labels.size else -1
    found = [i for i, label in enumerate(column.labels) if _equal(label, wanted)]
    if not found:
        raise InvalidInputError(
            f"`base_group={plain(wanted)!r}` is not a group of `by={plain(column.cells.name)!r}`; pass "
            f"one of {preview([plain(label) for label in column.labels], 20)}."
        )
    return found[0]


def _equal(label, wanted) -> bool:
    try:
        return bool(label == wanted)
    except (TypeError, ValueError):
        return False


def _check_rows(state: ScoreState, labelled: bool, n_bins, pos_label, score_name) -> None:
    if labelled:
        check_pos_label_summaries([state.labels], pos_label)
        check_binary_summary(state.labels, pos_label, "y_true")
    seen, missing_score, missing_label = state.rows
    warn_excluded(missing_score, seen, "the score is missing or not a finite number")
    warn_excluded(missing_label, seen, "the label `y_true` is missing")
    used = int(state.overall.count.sum())
    if not used:
        raise InvalidInputError(
            f"No usable rows: all {seen} rows lack a finite score"
            + (" or a label" if labelled else "")
            + ". `score_distributions` needs rows with a numeric `score`."
        )
    for cells in state.columns:
        warn_excluded(
            cells.rows_missing_group,
            used,
            f"the group value of {plain(cells.name)!r} is missing "
            f"(they count in the {POOLED_LABEL!r} row only)",
        )
    values = state.overall.value
    if labelled and n_bins is not None and (values.min() < 0 or values.max() > 1):
        bad = values.min() if values.min() < 0 else values.max()
        raise InvalidInputError(
            f"`score={plain(score_name)!r}` holds {plain(float(bad))!r}, outside [0, 1]: calibration "
            f"(`n_bins=`) needs probabilities. Pass scores in [0, 1], or `n_bins=None` for the "
            f"distributions and ROC AUC only."
        )


def score_distributions_from_state(
    state: ScoreState,
    *,
    labelled: bool,
    base_group,
    against: str,
    n_bins,
    table: str,
    pos_label=1,
    score_name="score",
) -> pd.DataFrame:
    """The :func:`score_distributions` table from its state (options already checked)."""
    _check_rows(state, labelled, n_bins, pos_label, score_name)
    columns = [_Column.of(cells) for cells in state.columns]
    overall = _Column.of(state.overall)
    info = {"rows": state.rows[0], "rows_used": int(overall.n.sum()), "against": against, "n_bins": n_bins}
    if table == "cdf":
        return attach_info(_cdf_table(columns, overall), **info)
    if table == "reliability":
        return attach_info(_reliability_table(columns, overall, n_bins), **info)
    return attach_info(_groups_table(columns, overall, labelled, base_group, against, n_bins), **info)


def _identifiers(column: _Column, pooled: bool) -> dict:
    name = POOLED_LABEL if pooled else column.cells.name
    return {
        "by": pd.array([name] * column.labels.size, dtype=object),
        "group": pd.array(list(column.labels) if not pooled else [POOLED_LABEL], dtype=object),
    }


def _groups_table(columns, overall, labelled, base_group, against, n_bins) -> pd.DataFrame:
    parts, undefined = [], []
    for column in [*columns, overall]:
        pooled = column is overall
        part = pd.DataFrame(_identifiers(column, pooled))
        part["N"] = column.n
        if labelled:
            part["N_positive"] = column.positives
        with np.errstate(invalid="ignore", divide="ignore"):
            part["score_mean"] = np.bincount(
                column.cells.group,
                weights=column.cells.count * column.cells.value,
                minlength=column.labels.size,
            ) / np.where(column.n > 0, column.n, np.nan)
        _comparisons(part, column, None if pooled else (base_group, against), undefined)
        if labelled:
            auc = _auc(column)
            one_class = (column.n > 0) & np.isnan(auc)
            undefined += [
                f"roc_auc of {_where(column, i)} (one class only)" for i in np.flatnonzero(one_class)
            ]
            part["roc_auc"] = auc
            if n_bins is not None:
                part["ece"] = _ece(_bins(column, n_bins), column.n)
        parts.append(part)
    result = pd.concat(parts, ignore_index=True)
    result["N_reference"] = result["N_reference"].astype("Int64")
    if undefined:
        warn_undefined(
            "Undefined values are NaN: "
            + "; ".join(undefined[:10])
            + (f"; and {len(undefined) - 10} more" if len(undefined) > 10 else "")
            + "."
        )
    result.index = pd.RangeIndex(len(result))
    return result


def _where(column: _Column, i: int) -> str:
    if column.cells.name == POOLED_LABEL:
        return f"the {POOLED_LABEL!r} row"
    return f"{plain(column.cells.name)}={plain(column.labels[i])!r}"


def _comparisons(part: pd.DataFrame, column: _Column, how, undefined: list) -> None:
    g = column.labels.size
    nan = np.full(g, np.nan)
    if how is None:
        part["reference"] = pd.array([None] * g, dtype=object)
        part["N_reference"] = pd.array([None] * g, dtype="Int64")
        for name in ("ks_statistic", "ks_pvalue"):
            part[name] = nan
        part["ks_method"] = pd.array([None] * g, dtype=object)
        part["wasserstein"] = nan
        return
    base_group, against = how
    reference = _reference_index(column, base_group) if against == "reference" else None
    found = _distances(column, reference)
    label = REST_LABEL if reference is None else column.labels[reference]
    part["reference"] = pd.array([label] * g, dtype=object)
    part["N_reference"] = found["n_other"]
    statistic, pvalue, method = nan.copy(), nan.copy(), [None] * g
    for i in range(g):  # one scalar p-value per group (SciPy's exact recursion)
        if np.isnan(found["ks"][i]):
            why = "an empty group" if column.n[i] == 0 else "nothing to compare with"
            undefined.append(f"the comparisons of {_where(column, i)} ({why})")
            continue
        statistic[i], pvalue[i], method[i] = ks_pvalue(
            int(found["at_group"][i]), int(column.n[i]), int(found["at_other"][i]), int(found["n_other"][i])
        )
    part["ks_statistic"] = statistic
    part["ks_pvalue"] = pvalue
    part["ks_method"] = pd.array(method, dtype=object)
    part["wasserstein"] = found["wasserstein"]


def _reliability_table(columns, overall, n_bins) -> pd.DataFrame:
    parts = []
    for column in [*columns, overall]:
        binned = _bins(column, n_bins)
        g = column.labels.size
        ids = _identifiers(column, column is overall)
        edges = binned["edges"]
        with np.errstate(invalid="ignore", divide="ignore"):
            n = binned["n"]
            parts.append(
                pd.DataFrame(
                    {
                        "by": np.repeat(np.asarray(ids["by"], dtype=object), n_bins),
                        "group": np.repeat(np.asarray(ids["group"], dtype=object), n_bins),
                        "bin": np.tile(np.arange(1, n_bins + 1), g),
                        "bin_low": np.tile(edges[:-1], g),
                        "bin_high": np.tile(edges[1:], g),
                        "N": n.reshape(-1),
                        "score_mean": (binned["score"] / np.where(n > 0, n, np.nan)).reshape(-1),
                        "observed_rate": (binned["positives"] / np.where(n > 0, n, np.nan)).reshape(-1),
                    }
                )
            )
    return _concatenated(parts)


def _cdf_table(columns, overall) -> pd.DataFrame:
    parts = []
    for column in [*columns, overall]:
        cells = column.cells
        # the cells without their label: one count per (group, score)
        start = np.ones(cells.group.size, dtype=bool)
        start[1:] = (cells.group[1:] != cells.group[:-1]) | (cells.value[1:] != cells.value[:-1])
        first = np.flatnonzero(start)
        group, value = cells.group[first], cells.value[first]
        count = np.add.reduceat(cells.count, first) if first.size else np.zeros(0, np.int64)
        cumulative = np.cumsum(count)
        offsets = np.concatenate([[0], np.cumsum(column.n)])[group]
        ids = _identifiers(column, column is overall)
        parts.append(
            pd.DataFrame(
                {
                    "by": np.asarray(ids["by"], dtype=object)[group],
                    "group": np.asarray(ids["group"], dtype=object)[group],
                    "score": value,
                    "N": column.n[group],
                    "cdf": (cumulative - offsets) / column.n[group],
                }
            )
        )
    return _concatenated(parts)


def _concatenated(parts: list) -> pd.DataFrame:
    result = pd.concat(parts, ignore_index=True)
    for name in ("by", "group"):
        result[name] = result[name].astype(object)
    result.index = pd.RangeIndex(len(result))
    return result
