"""Is system B better than system A? Two score columns compared on the same responses.

Both systems score the same responses, so the comparison is *paired*: each difference of an
``eval`` metric (``system - baseline``) comes with a confidence interval and the p-value of "no
difference", from the test that fits the metric:

- ``corr``: Williams' t for two correlations that share the human score (Steiger 1980, eq. 14;
  ``n - 3`` degrees of freedom), with Zou's (2007) interval for the difference;
- ``exact_agr``: McNemar's test on the responses where exactly one system agrees with the
  human score (the exact binomial test below 25 such responses, the chi-square test from 25 on,
  without continuity correction: with it the test rejects a true null in about 2% of data sets
  at the 5% level instead of 5%), with the Wald interval of a paired difference;
- ``wtkappa``, ``kappa``, ``adj_agr``, ``R2``, ``RMSE``, ``SMD``: the paired Poisson bootstrap —
  every resample weights each response with a Poisson(1) draw (the same weight for both
  systems), all resamples at once from the responses' additive statistics; the percentile
  interval, and the share of centred resampled differences at least as large as the observed one.

The weights of a response come from ``random_state`` and its row number only
(:mod:`pdmetrics._resampling`), so pandas, dask and polars give the same intervals.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd
from scipy import stats as scipy_stats

from pdmetrics._comparison import (
    COMPARISON_OPTIONS,
    EXACT_BELOW,  # noqa: F401  (the rule of mcnemar_test, which moved to the shared module)
    compared_pairs,
    comparison_settings,
    comparison_table,
    mcnemar_test,
)
from pdmetrics._docstrings import fill
from pdmetrics._groups import POOLED_LABEL
from pdmetrics._resampling import (
    N_BUCKETS,
    paired_interval,
    poisson_weights,
    resampled_sums,
    row_buckets,
)
from pdmetrics._stats import Moments
from pdmetrics._table_spec import Table, row_numbers, table
from pdmetrics._validation import numeric_values
from pdmetrics.scoring.metrics import PairStatistics, agreement_metrics, kappa_labels, pair_statistics_many
from pdmetrics.scoring.scored_rows import score_columns, select_scored_rows
from pdmetrics.scoring.subgroups import subgroup_codes
from pdmetrics.scoring.table_states import EvaluationState, evaluation_from_state, evaluation_state

__all__ = ["compare", "mcnemar_test", "williams_test"]

#: The metrics compared, in the table's order, and the test of each.
METRICS = {
    "corr": "williams_t",
    "wtkappa": "paired_bootstrap",
    "kappa": "paired_bootstrap",
    "exact_agr": "mcnemar",
    "adj_agr": "paired_bootstrap",
    "R2": "paired_bootstrap",
    "RMSE": "paired_bootstrap",
    "SMD": "paired_bootstrap",
}


# ----------------------------------------------------------------------------------------------
# the closed-form tests
# ----------------------------------------------------------------------------------------------
def williams_test(r_a, r_b, r_ab, n, confidence: float = 0.95):
    """Williams' t test of two dependent correlations that share a variable, with Zou's interval.

    ``r_a`` = corr(human, A), ``r_b`` = corr(human, B), ``r_ab`` = corr(A, B), on ``n`` rows
    (arrays broadcast). Williams' t (Steiger 1980, eq. 14) has ``n - 3`` degrees of freedom; the
    interval of ``r_b - r_a`` is Zou's (2007), from the Fisher-z intervals of each correlation
    and their correlation.

    Returns
    -------
    t, p_value, ci_low, ci_high : ndarray
        The statistic, its two-sided p-value (1.0 when ``r_a == r_b``) and the interval of
        ``r_b - r_a``; NaN with fewer than 4 rows or an undefined correlation.

    Examples
    --------
    >>> from pdmetrics.scoring.comparison import williams_test
    >>> t, p, low, high = williams_test(0.50, 0.60, 0.70, 200)
    >>> round(float(t), 3), round(float(p), 4), round(float(low), 3), round(float(high), 3)
    (2.273, 0.0241, 0.013, 0.191)
    """
    r_a, r_b, r_ab, n = (np.asarray(v, dtype="float64") for v in (r_a, r_b, r_ab, n))
    with np.errstate(invalid="ignore", divide="ignore"):
        determinant = 1 - r_a**2 - r_b**2 - r_ab**2 + 2 * r_a * r_b * r_ab
        mean = (r_a + r_b) / 2
        denominator = 2 * (n - 1) / (n - 3) * determinant + mean**2 * (1 - r_ab) ** 3
        t = (r_b - r_a) * np.sqrt((n - 1) * (1 + r_ab) / denominator)
        t = np.where(r_a == r_b, 0.0, t)
        p = 2 * scipy_stats.t.sf(np.abs(t), n - 3)
        # Zou (2007): each correlation's Fisher-z interval, back-transformed
        z = scipy_stats.norm.ppf(0.5 + confidence / 2)
        low_a, high_a = _fisher_interval(r_a, n, z)
        low_b, high_b = _fisher_interval(r_b, n, z)
        # the correlation of the two estimates (Dunn & Clark 1969, as Zou uses it)
        c = ((r_ab - 0.5 * r_a * r_b) * (1 - r_a**2 - r_b**2 - r_ab**2) + r_ab**3) / (
            (1 - r_a**2) * (1 - r_b**2)
        )
        low = (
            r_b
            - r_a
            - np.sqrt((r_b - low_b) ** 2 + (high_a - r_a) ** 2 - 2 * c * (r_b - low_b) * (high_a - r_a))
        )
        high = (
            r_b
            - r_a
            + np.sqrt((high_b - r_b) ** 2 + (r_a - low_a) ** 2 - 2 * c * (high_b - r_b) * (r_a - low_a))
        )
    undefined = (n < 4) | ~np.isfinite(r_a) | ~np.isfinite(r_b) | ~np.isfinite(r_ab)
    same = r_a == r_b
    return tuple(
        np.where(undefined, np.nan, value)
        for value in (
            t,
            np.where(same, 1.0, p),
            np.where(same & (r_ab >= 1), 0.0, low),
            np.where(same & (r_ab >= 1), 0.0, high),
        )
    )


def _fisher_interval(r, n, z):
    centre = np.arctanh(np.clip(r, -1 + 1e-15, 1 - 1e-15))
    half = z / np.sqrt(n - 3)
    return np.tanh(centre - half), np.tanh(centre + half)


# ----------------------------------------------------------------------------------------------
# the state: the eval table's, and the responses' statistics by bootstrap bucket
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BucketGroups:
    """The groups of one subgroup column (or the one pooled group) over some rows.

    ``labels``: the groups; ``cells``: the (group, bucket) cells with rows, sorted, each
    ``group * N_BUCKETS + bucket``; ``buckets``: system -> :class:`PairStatistics` of those
    cells; ``pairs``: (A, B) -> :class:`~pdmetrics._stats.Moments` of A with B per group;
    ``discordant``: (A, B) -> rows per group where only A, and only B, equals the human score
    (shape ``(groups, 2)``); ``ratings``: with a second human score, the true-score sums of
    each cell (:func:`rating_sums`; None without).
    """

    labels: np.ndarray
    cells: np.ndarray
    buckets: dict
    pairs: dict
    discordant: dict
    ratings: np.ndarray | None = None

    def combine(self, other: BucketGroups) -> BucketGroups:
        mine, theirs = pd.Index(self.labels, dtype=object), pd.Index(other.labels, dtype=object)
        labels = mine.append(theirs[~theirs.isin(mine)])
        n = labels.size
        at_mine, at_theirs = labels.get_indexer(mine), labels.get_indexer(theirs)
        cells_mine, cells_theirs = _relabelled(self.cells, at_mine), _relabelled(other.cells, at_theirs)
        cells = np.union1d(cells_mine, cells_theirs)
        in_mine, in_theirs = np.searchsorted(cells, cells_mine), np.searchsorted(cells, cells_theirs)
        return BucketGroups(
            labels.to_numpy(dtype=object),
            cells,
            {
                name: stats.placed(in_mine, cells.size).combine(
                    other.buckets[name].placed(in_theirs, cells.size)
                )
                for name, stats in self.buckets.items()
            },
            {
                pair: m.placed(at_mine, n).combine(other.pairs[pair].placed(at_theirs, n))
                for pair, m in self.pairs.items()
            },
            {
                pair: _placed_counts(c, at_mine, n) + _placed_counts(other.discordant[pair], at_theirs, n)
                for pair, c in self.discordant.items()
            },
            None
            if self.ratings is None
            else _placed_rows(self.ratings, in_mine, cells.size)
            + _placed_rows(other.ratings, in_theirs, cells.size),
        )


def _relabelled(cells: np.ndarray, at: np.ndarray) -> np.ndarray:
    """``cells`` with their groups moved to positions ``at``."""
    return at[cells // N_BUCKETS].astype(np.int64) * N_BUCKETS + cells % N_BUCKETS


def _placed_counts(counts: np.ndarray, at: np.ndarray, n: int) -> np.ndarray:
    return _placed_rows(counts, at, n)


def _placed_rows(values: np.ndarray, at: np.ndarray, n: int) -> np.ndarray:
    """The rows of ``values`` at positions ``at`` among ``n`` rows (the others zero)."""
    out = np.zeros((n, *values.shape[1:]), dtype=values.dtype)
    out[at] = values
    return out


#: The sums :func:`rating_sums` gives each cell, in its columns' order (then one ``sse`` per system).
RATING_SUMS = (
    "n",
    "n_ratings",
    "sum_c_squared",
    "within_ss",
    "within_df",
    "sum_c_mean",
    "sum_c_mean_squared",
)


def rating_sums(h: np.ndarray, h2: np.ndarray, systems: list, cells: np.ndarray, n_cells: int) -> np.ndarray:
    """The true-score sums of each cell (columns :data:`RATING_SUMS`, then per system
    ``sum c_i (Hbar_i - M_i)**2``) of responses rated ``h`` (every one) and ``h2`` (NaN: not
    rated twice): what RSMTool's true-score evaluation needs, additive over responses."""
    c = np.where(np.isfinite(h2), 2.0, 1.0)
    mean = np.where(c == 2, (h + np.where(c == 2, h2, 0.0)) / 2, h)
    within = np.where(c == 2, (h - np.where(c == 2, h2, 0.0)) ** 2 / 2, 0.0)
    columns = [np.ones_like(h), c, c * c, within, c - 1, c * mean, c * mean * mean]
    columns += [c * (mean - system) ** 2 for system in systems]
    return np.column_stack([np.bincount(cells, column, n_cells) for column in columns])


def prmse_of_sums(sums: np.ndarray) -> np.ndarray:
    """PRMSE of each system (last axis) from :func:`rating_sums` added over responses (any
    leading shape), as RSMTool's ``true_score_eval`` computes it."""
    n, n_ratings, c2, within_ss, within_df, c_mean, c_mean2 = (sums[..., i] for i in range(len(RATING_SUMS)))
    sse = sums[..., len(RATING_SUMS) :]
    with np.errstate(invalid="ignore", divide="ignore"):
        variance = np.where(within_df > 0, within_ss / within_df, np.nan)
        between = c_mean2 - c_mean * c_mean / n_ratings
        true_variance = (between - (n - 1) * variance) / (n_ratings - c2 / n_ratings)
        mse = (sse - (n * variance)[..., None]) / n_ratings[..., None]
        prmse = 1.0 - mse / true_variance[..., None]
    return np.where(np.isfinite(true_variance) & (true_variance != 0), 1.0, np.nan)[..., None] * prmse


@dataclass(frozen=True)
class ComparisonState:
    """The additive state of :func:`compare`: the ``eval`` table's (the two values of each
    metric, the rows and warnings) and, per subgroup column (None: all rows), the groups'
    :class:`BucketGroups`."""

    evaluation: EvaluationState
    groups: dict

    def combine(self, other: ComparisonState) -> ComparisonState:
        return ComparisonState(
            self.evaluation.combine(other.evaluation),
            {by: groups.combine(other.groups[by]) for by, groups in self.groups.items()},
        )


def comparison_state(
    part: pd.DataFrame, human, systems: list, by: list, pairs: list, exclude_zero, key, second=None
) -> ComparisonState:
    """The :class:`ComparisonState` of one chunk of rows (``part`` numbered, see
    :func:`~pdmetrics._table_spec.row_numbers`)."""
    evaluation = evaluation_state(
        part[human], {s: part[s] for s in systems}, {b: part[b] for b in by} or None, exclude_zero
    )
    h = numeric_values(part[human], "human")
    values = {s: numeric_values(part[s], "system") for s in systems}
    rows = select_scored_rows(h, list(values.values()), exclude_zero)
    h = h[rows.mask]
    values = {s: v[rows.mask] for s, v in values.items()}
    buckets = row_buckets(row_numbers(part)[rows.mask], key)
    if second is not None:  # a rating of 0 is no rating, as the true-score table reads it
        h2 = numeric_values(part[second], "second_human")[rows.mask]
        h2 = np.where(h2 == 0, np.nan, h2) if exclude_zero else h2
    h_labels = kappa_labels(h, "human")
    s_labels = {s: kappa_labels(v, "system") for s, v in values.items()}
    encoded = {None: (np.zeros(h.size, dtype=np.intp), np.array([POOLED_LABEL], dtype=object))}
    encoded.update({b: subgroup_codes(part[b], rows.mask) for b in by})
    groups = {}
    for name, (codes, labels) in encoded.items():  # the pooled rows, then each subgroup column
        cells, in_cell = np.unique(codes.astype(np.int64) * N_BUCKETS + buckets, return_inverse=True)
        statistics = pair_statistics_many(h, values, in_cell.astype(np.intp), cells.size, h_labels, s_labels)
        exact = {s: h == v for s, v in values.items()}
        groups[name] = BucketGroups(
            labels,
            cells,
            statistics,
            {(a, b): Moments.from_arrays(values[a], values[b], codes, labels.size) for a, b in pairs},
            {
                (a, b): np.stack(
                    [
                        np.bincount(codes, exact[a] & ~exact[b], labels.size),
                        np.bincount(codes, exact[b] & ~exact[a], labels.size),
                    ],
                    axis=1,
                ).astype("int64")
                for a, b in pairs
            },
            None if second is None else rating_sums(h, h2, list(values.values()), in_cell, cells.size),
        )
    return ComparisonState(evaluation, groups)


# ----------------------------------------------------------------------------------------------
# the resampled metrics
# ----------------------------------------------------------------------------------------------
def _resampled_metrics(
    statistics: dict, cells: np.ndarray, n_groups: int, weights: np.ndarray, ratings=None, systems=()
) -> dict:
    """System -> the ``eval`` metrics of every resample (rows) and group (columns), from each
    system's statistics of the (group, bucket) ``cells`` and the buckets' Poisson weights
    (``weights``: one row per bucket ``0..``); with the cells' ``ratings`` sums
    (:func:`rating_sums` of the ``systems`` in order), PRMSE too. Every system's sums come from
    one matrix product per group."""
    group = cells // N_BUCKETS
    sides = {name: _cell_features(stats, group, n_groups) for name, stats in statistics.items()}
    features = np.column_stack([side[0] for side in sides.values()] + ([] if ratings is None else [ratings]))
    bounds = np.searchsorted(cells, np.arange(n_groups + 1) * N_BUCKETS)
    buckets = cells % N_BUCKETS
    sums = np.stack(  # (resamples, groups, features)
        [resampled_sums(weights[buckets[lo:hi]], features[lo:hi]) for lo, hi in zip(bounds[:-1], bounds[1:])],
        axis=1,
    )
    out, start = {}, 0
    for name, (own, mean_x, mean_y) in sides.items():
        r = sums[..., start : start + own.shape[1]]
        start += own.shape[1]
        out[name] = _metrics_of_sums(r, statistics[name], mean_x, mean_y, group, n_groups)
    if ratings is not None:
        prmse = prmse_of_sums(sums[..., start:])
        for name in out:
            out[name]["PRMSE"] = prmse[..., list(systems).index(name)]
    return out


def _cell_features(stats: PairStatistics, group: np.ndarray, n_groups: int) -> tuple:
    """The additive features of each cell (deviations from its group's mean, so the resampled
    moments lose no precision) and the groups' means of ``h`` and the system."""
    m = stats.moments
    n = m.n.astype("float64")
    total = np.bincount(group, n, n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_x = np.bincount(group, np.where(n > 0, m.mean_x * n, 0.0), n_groups) / total
        mean_y = np.bincount(group, np.where(n > 0, m.mean_y * n, 0.0), n_groups) / total
    dx = np.where(n > 0, m.mean_x - mean_x[group], 0.0)
    dy = np.where(n > 0, m.mean_y - mean_y[group], 0.0)
    labels = stats.hist_labels.size
    features = np.column_stack(
        [
            n,
            n * dx,
            n * dy,
            m.m2_x + n * dx * dx,
            m.m2_y + n * dy * dy,
            m.c_xy + n * dx * dy,
            stats.sse,
            stats.n_exact,
            stats.n_adjacent,
            stats.n_same_label,
            stats.hist_h.reshape(-1, labels),
            stats.hist_s.reshape(-1, labels),
        ]
    )
    return features, mean_x, mean_y


def _metrics_of_sums(r, stats: PairStatistics, mean_x, mean_y, group, n_groups: int) -> dict:
    """The ``eval`` metrics (resamples x groups) from the resampled sums ``r`` of the features
    of :func:`_cell_features`."""
    n_resamples = r.shape[0]
    labels = stats.hist_labels.size
    size, sx, sy = r[..., 0], r[..., 1], r[..., 2]
    with np.errstate(invalid="ignore", divide="ignore"):
        moments = Moments(
            size.ravel(),
            (mean_x + sx / size).ravel(),
            (mean_y + sy / size).ravel(),
            (r[..., 3] - sx * sx / size).ravel(),
            (r[..., 4] - sy * sy / size).ravel(),
            (r[..., 5] - sx * sy / size).ravel(),
        )

    def extreme(values, reduce):  # the whole set's extremes for every resample
        per_group = np.full(n_groups, np.nan)
        reduce.at(per_group, group, values)
        return np.broadcast_to(per_group, (n_resamples, n_groups)).ravel()

    resampled = PairStatistics(
        moments,
        extreme(stats.h_min, np.fmin),
        extreme(stats.h_max, np.fmax),
        extreme(stats.s_min, np.fmin),
        extreme(stats.s_max, np.fmax),
        r[..., 6].ravel(),
        r[..., 7].ravel(),
        r[..., 8].ravel(),
        r[..., 10 : 10 + labels].reshape(-1, labels),
        r[..., 10 + labels :].reshape(-1, labels),
        r[..., 9].ravel(),
        stats.hist_labels,
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        metrics = agreement_metrics(resampled)
    return {name: np.asarray(values).reshape(n_resamples, n_groups) for name, values in metrics.items()}


# ----------------------------------------------------------------------------------------------
# the table
# ----------------------------------------------------------------------------------------------
@table
@fill(comparison_options=COMPARISON_OPTIONS)
def compare(
    frame,
    *,
    human,
    system,
    second_human=None,
    by=None,
    pairs: str = "baseline",
    correction=None,
    exclude_zero: bool = True,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    random_state=12345,
):
    """Is system B better than baseline A? The ``eval`` metrics of score columns compared on
    the same responses, with paired intervals and tests.

    Parameters
    ----------
    frame : DataFrame
        The scored responses (pandas; dask and polars frames run the same table and give the
        same numbers for the same ``random_state``).
    human : str
        Human score column.
    second_human : str, optional
        A second human score column (missing where a response was scored once): adds ``PRMSE``
        (RSMTool's true-score PRMSE of each system, ``human`` and ``second_human`` the raters,
        as :func:`~pdmetrics.scoring.true_score` on the same responses), by paired bootstrap.
    system : list of str
        Two or more system score columns, the baseline first. A response missing any of them
        (or the human score; or with a human score of 0, with ``exclude_zero``) is left out of
        every comparison, so all systems are compared on the same responses, as
        :func:`~pdmetrics.scoring.evaluate` evaluates them.
    by : str or list of str, optional
        Subgroup column(s): the comparison in every group of each (not their intersections),
        after the ``"(all)"`` rows.
    exclude_zero : bool, default True
        Leave out responses with a human score of 0 (RSMTool's ``exclude_zero_scores``).
    {comparison_options}
    random_state : int, numpy.random.Generator or None, default 12345
        Seed of the bootstrap weights (None: fresh entropy, so the intervals change per call).

    Returns
    -------
    pandas.DataFrame
        One row per pair of systems and metric (``corr, wtkappa, kappa, exact_agr, adj_agr,
        R2, RMSE, SMD``, and ``PRMSE`` with ``second_human``; with ``by``: per group too,
        after columns ``by, group``): ``metric,
        baseline, system, N, baseline_value, system_value, difference`` (system minus
        baseline), ``ci_low, ci_high`` (its interval), ``p_value`` (of no difference),
        ``p_adjusted`` and ``test`` (``williams_t``, ``mcnemar_exact``, ``mcnemar_chi2`` or
        ``paired_bootstrap``). The two values are those of :func:`~pdmetrics.scoring.evaluate`
        on the same responses.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import pdmetrics
    >>> rng = np.random.default_rng(0)
    >>> human = rng.integers(1, 7, 500).astype(float)
    >>> df = pd.DataFrame({"sc1": human,
    ...                    "old": human + rng.normal(0, 1.0, 500),
    ...                    "new": human + rng.normal(0, 0.7, 500)})
    >>> table = df.scoring.compare(human="sc1", system=["old", "new"], n_resamples=500)
    >>> table[["metric", "difference", "ci_low", "ci_high", "p_value", "test"]].round(3).head(3)
        metric  difference  ci_low  ci_high  p_value              test
    0     corr       0.067   0.048    0.088    0.000        williams_t
    1  wtkappa       0.072   0.050    0.094    0.002  paired_bootstrap
    2    kappa       0.199   0.129    0.275    0.002  paired_bootstrap
    """
    if second_human is None:
        names = score_columns(frame, exclude_zero, human=human, system=system, by=by)
    else:
        names = score_columns(
            frame, exclude_zero, human=human, second_human=second_human, system=system, by=by
        )
    human, systems, groups = names["human"], names["system"], names["by"]
    second = names.get("second_human")
    options = comparison_settings(pairs, correction, n_resamples, confidence, random_state)
    compared = compared_pairs(systems, pairs)
    chunk = partial(_comparison_chunk, human, systems, groups, compared, exclude_zero, options["key"], second)
    finalize = partial(
        _comparison_from_state, human, compared, groups, exclude_zero, options | {"systems": systems}
    )
    return Table(
        [human, *systems, *groups, *([] if second is None else [second])], chunk, finalize, numbered=True
    )


def _comparison_chunk(human, systems, by, compared, exclude_zero, key, second, part):
    return comparison_state(part, human, systems, by, compared, exclude_zero, key, second)


def _comparison_from_state(
    human, compared, groups, exclude_zero, options, state: ComparisonState
) -> pd.DataFrame:
    evaluation = evaluation_from_state(state.evaluation, human_name=human, exclude_zero=exclude_zero)
    parts = []
    for by, bucket_groups in state.groups.items():
        if by is None and groups:  # with subgroups, the pooled rows come with each column's groups
            continue
        parts.extend(_group_rows(evaluation, by, bucket_groups, state.groups[None], compared, options))
    identifiers = ["by", "group"] if groups else []
    return comparison_table(parts, identifiers, options["correction"])


def _group_rows(evaluation, by, bucket_groups: BucketGroups, pooled: BucketGroups, compared, options) -> list:
    """The rows of one subgroup column (None: the whole set), pooled row first."""
    confidence = options["confidence"]
    if by is not None:  # the "(all)" row, then the groups
        sets = [(pooled, np.array([POOLED_LABEL], dtype=object)), (bucket_groups, bucket_groups.labels)]
        in_table = evaluation[evaluation["by"] == by]
    else:
        sets = [(bucket_groups, bucket_groups.labels)]
        in_table = evaluation
    parts = []
    for groups, labels in sets:
        n_groups = labels.size
        k = int((groups.cells % N_BUCKETS).max()) + 1 if groups.cells.size else 0
        weights = poisson_weights(options["key"], k, options["n_resamples"])
        needed = {name for pair in compared for name in pair}
        systems = options["systems"]
        resampled = _resampled_metrics(
            {name: groups.buckets[name] for name in needed},
            groups.cells,
            n_groups,
            weights,
            groups.ratings,
            systems,
        )
        metrics = dict(METRICS)
        if groups.ratings is not None:  # PRMSE of each system on the groups' rows, as true_score
            group = groups.cells // N_BUCKETS
            sums = np.column_stack([np.bincount(group, column, n_groups) for column in groups.ratings.T])
            prmse = prmse_of_sums(sums)
            metrics["PRMSE"] = "paired_bootstrap"
        for a, b in compared:
            rows_a = _table_rows(in_table, a, labels, by)
            rows_b = _table_rows(in_table, b, labels, by)
            if groups.ratings is not None:
                rows_a["PRMSE"], rows_b["PRMSE"] = prmse[:, systems.index(a)], prmse[:, systems.index(b)]
            parts.append(_pair_rows(a, b, rows_a, rows_b, labels, groups, resampled, by, confidence, metrics))
    return parts


def _table_rows(evaluation: pd.DataFrame, system, labels, by) -> pd.DataFrame:
    """The ``eval`` rows of ``system`` for ``labels`` (in their order)."""
    rows = evaluation[evaluation["system"] == system].assign(position=lambda t: np.arange(len(t)))
    if by is None:
        return rows.reset_index(drop=True)
    index = pd.Index(rows["group"].to_numpy(dtype=object), dtype=object)
    return rows.iloc[index.get_indexer(pd.Index(labels, dtype=object))].reset_index(drop=True)


def _ranks(rows: pd.DataFrame) -> np.ndarray:
    """The place of each of ``rows`` (taken from the ``eval`` table) in that table."""
    return np.argsort(np.argsort(rows["position"].to_numpy(), kind="stable"), kind="stable")


def _pair_rows(
    a, b, rows_a, rows_b, labels, groups: BucketGroups, resampled, by, confidence, metrics: dict
) -> pd.DataFrame:
    n = rows_a["N"].to_numpy(dtype="float64")
    frames = []
    for metric, test in metrics.items():
        value_a = rows_a[metric].to_numpy(dtype="float64")
        value_b = rows_b[metric].to_numpy(dtype="float64")
        difference = value_b - value_a
        tests = np.full(labels.size, test, dtype=object)
        if test == "williams_t":
            m = groups.pairs[(a, b)]
            with np.errstate(invalid="ignore", divide="ignore"):
                r_ab = m.c_xy / np.sqrt(m.m2_x * m.m2_y)
            _, p, low, high = williams_test(value_a, value_b, np.clip(r_ab, -1, 1), n, confidence)
        elif test == "mcnemar":
            only = groups.discordant[(a, b)]
            p, low, high, exact = mcnemar_test(only[:, 0], only[:, 1], n, confidence)
            low, high = low * 100, high * 100  # percentages, as exact_agr
            tests = np.where(exact, "mcnemar_exact", "mcnemar_chi2").astype(object)
        else:
            samples = resampled[b][metric] - resampled[a][metric]
            low, high, p = paired_interval(samples, difference, confidence)
        frames.append(
            pd.DataFrame(
                {
                    **({"by": by, "group": labels} if by is not None else {}),
                    "metric": metric,
                    "baseline": a,
                    "system": b,
                    "N": n.astype("int64"),
                    "baseline_value": value_a,
                    "system_value": value_b,
                    "difference": difference,
                    "ci_low": low,
                    "ci_high": high,
                    "p_value": p,
                    "test": tests,
                }
            )
        )
    out = pd.concat(frames, ignore_index=True)
    if by is not None:  # group by group, metrics in order within each
        order = np.argsort(np.tile(_ranks(rows_a), len(metrics)), kind="stable")
        out = out.iloc[order].reset_index(drop=True)
    return out
