"""Two scoring systems' score fairness estimates compared on the same responses.

The table of :func:`~pdmetrics.fairness.compare` called with ``human=`` and ``system=``: for
every group column and pair of systems, the coefficients of RSMTool's score fairness models
(:func:`~pdmetrics.fairness.score_fairness_estimates`: OSA, OSD, CSD) and the variance they
explain (:func:`~pdmetrics.fairness.score_fairness`'s adjusted ``R2``), both systems' values,
their difference ``system - baseline``, its interval and the p-value of "no difference":

- OSD and CSD coefficients: least squares is linear in the response, and both systems share
  the design (the groups, the human score), so the difference of the two systems' estimates
  *is* the estimate of the same model fitted to the difference of their errors,
  ``(system_b - human) - (system_a - human) = system_b - system_a``. Its exact OLS t-test
  and interval are those of that fit (``test="ols_t"``).
- OSA coefficients and every ``R2``: OSA regresses the *squared* error, which is not linear
  in the scores, and R2 is a ratio: the paired Poisson bootstrap (``test="paired_bootstrap"``),
  both systems weighted alike, every resample's fits from weighted sums per group x human
  score cell (the group means for OSA and OSD; one batched solve of ``X'WX b = X'Wy`` per
  resample for CSD); the interval's ends are the ``(B + 1) * alpha``-th smallest and largest of
  the ``B`` resampled differences (:data:`~pdmetrics._resampling.ORDER_STATISTIC`).

The state is additive over chunks of rows: each system's :class:`~pdmetrics.fairness.regression.
ScoreFairnessState`, the cell moments of each compared pair's difference, and per (group,
human score, bootstrap bucket) the sums of 1, ``e``, ``e**2`` and ``e**4`` of every system's
error ``e``, so pandas, dask and polars give the same table for the same ``random_state``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._additive import Additive
from pdmetrics._comparison import comparison_columns, comparison_table, repeated
from pdmetrics._groups import POOLED_LABEL
from pdmetrics._resampling import (
    paired_interval,
    poisson_weights,
    resampled_sums,
    row_buckets,
)
from pdmetrics._table_spec import Table, row_numbers
from pdmetrics._validation import paired_arrays, plain
from pdmetrics._warnings import warn_excluded
from pdmetrics.errors import InvalidInputError
from pdmetrics.fairness import cell_ols
from pdmetrics.fairness.regression import (
    Cells,
    ScoreFairnessState,
    Scores,
    cell_moments,
    encoded_groups,
    score_fairness_from_state,
    score_fairness_state,
)

__all__ = ["score_comparison_spec"]

#: The models compared, as the table's ``metric`` names them.
MODELS = ("osa", "osd", "csd")


@dataclass(frozen=True)
class ScoreComparisonState(Additive):
    """The additive state of the score comparison over some rows.

    ``systems``: each system's :class:`ScoreFairnessState` (on the rows where the human and
    every system score are numbers); ``differences``: per compared pair, the state whose
    "error" is the difference of the two systems' scores; ``sums``: per group column, the
    sums per (group, human score, bucket) of 1 and of every system's ``e``, ``e**2``, ``e**4``;
    ``rows``: the rows seen and the rows with every score.
    """

    systems: tuple
    differences: tuple
    sums: tuple = field(metadata={"combine": lambda mine, theirs: _added_sums(mine, theirs)})
    rows: tuple


def _summed(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.groupby(["group", "level", "bucket"], sort=False, dropna=True).sum().reset_index()


def _added_sums(mine: tuple, theirs: tuple) -> tuple:
    """Two chunks' sums per (group, human score, bucket) of each group column, added."""
    return tuple(_summed(pd.concat([a, b])) for a, b in zip(mine, theirs))


def _chunk(part: pd.DataFrame, *, human, systems, by, compared, key) -> ScoreComparisonState:
    """The state of one chunk of rows."""
    arrays = [paired_arrays(part[human], part[name], ("human", "system")) for name in systems]
    h = arrays[0][0]
    kept = np.isfinite(h)
    for _, s in arrays:
        kept &= np.isfinite(s)
    rows = part.loc[kept]
    h_kept = h[kept]
    scores = [s[kept] for _, s in arrays]
    groups = rows[by]
    states = tuple(score_fairness_state(rows[human], rows[name], groups) for name in systems)
    differences = []
    for a, b in compared:
        moments = Scores(scores[systems.index(a)], scores[systems.index(b)])
        # the cells are those of the human score (the design both systems share)
        moments.levels, moments.level_values = cell_ols.factorize(h_kept, moments.cells)
        moments.level_or_missing = moments.levels
        differences.append(
            ScoreFairnessState(
                {
                    name: cell_moments(moments, name, *encoded_groups(groups[name]))
                    for name in states[0].columns  # the names as the states spell them
                }
            )
        )
    buckets = row_buckets(row_numbers(part)[kept], key)
    sums = []
    for name in states[0].columns:
        columns = {"group": groups[name].to_numpy(dtype=object), "level": h_kept, "bucket": buckets}
        columns["n"] = np.ones(h_kept.size)
        for i, s in enumerate(scores):
            e = s - h_kept
            columns[f"e{i}"], columns[f"q{i}"], columns[f"f{i}"] = e, e * e, (e * e) ** 2
        sums.append(_summed(pd.DataFrame(columns)))
    return ScoreComparisonState(states, tuple(differences), tuple(sums), (len(part), int(kept.sum())))


def score_comparison_spec(frame, human, systems, by, base_group, compared, options) -> Table:
    """The :class:`~pdmetrics._table_spec.Table` of the score comparison (arguments checked)."""
    columns = list(dict.fromkeys([human, *systems, *by]))
    chunk = partial(_chunk, human=human, systems=systems, by=by, compared=compared, key=options["key"])
    finalize = partial(
        _table, human=human, systems=systems, compared=compared, base_group=base_group, options=options
    )
    return Table(columns, chunk, finalize, numbered=True)


# ----------------------------------------------------------------------------------------------
# the table
# ----------------------------------------------------------------------------------------------
def _table(state: ScoreComparisonState, human, systems, compared, base_group, options) -> pd.DataFrame:
    seen, kept = state.rows
    if seen == 0:
        raise InvalidInputError(
            "The data has no rows (no usable rows): comparing score fairness needs responses."
        )
    if kept == 0:
        raise InvalidInputError(
            f"No response has a numeric `human={plain(human)!r}` score and a numeric score of every "
            f"`system=` column ({[plain(s) for s in systems]!r}): comparing score fairness needs such rows."
        )
    warn_excluded(seen - kept, seen, "the human score or a system score is missing")
    tables = []
    for i, (name, one) in enumerate(zip(systems, state.systems)):
        with warnings.catch_warnings():
            if i:  # each system's warnings about the groups are those of the first
                warnings.simplefilter("ignore")
            tables.append(score_fairness_from_state(one, base_group, human, name))
    names = list(state.systems[0].columns)
    parts = []
    for k, name in enumerate(names):
        metrics = [t[0][t[0]["by"] == name].reset_index(drop=True) for t in tables]
        estimates = [t[1][t[1]["by"] == name].reset_index(drop=True) for t in tables]
        labels = estimates[0].loc[estimates[0]["model"] == "osa", "group"].tolist()
        resampled = _resampled(state.sums[k], len(systems), labels, options)
        for p, (a, b) in enumerate(compared):
            i, j = systems.index(a), systems.index(b)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cells = Cells(state.differences[p].columns[name], base_group)
            exact = _difference_fits(cells, options["confidence"])
            parts.append(_rows(name, a, b, i, j, metrics, estimates, exact, resampled, options))
    return comparison_table(parts, ["by", "group"], options["correction"])


def _difference_fits(one: Cells, confidence: float) -> dict:
    """The OSD and CSD coefficients of the difference column, with their exact OLS t-test and
    interval at ``confidence``."""
    k = len(one.labels)
    tolerance = cell_ols.noise_tolerance(one.n, one.size)
    zeros = np.zeros(one.cell_n.size, dtype="int64")
    gn, g_mean, g_m2 = cell_ols.pool(one.cell_n, one.err_mean, one.err_m2, one.cell_group, k)
    _, _, tss = cell_ols.pool(one.cell_n, one.err_mean, one.err_m2, zeros, 1)
    fits = {
        "osd": cell_ols.CellFit(
            cell_ols.treatment_design(np.arange(k), k),
            gn,
            g_mean,
            float(g_m2.sum()),
            tss[0],
            one.n,
            tolerance,
        ),
        "csd": cell_ols.CellFit(
            cell_ols.treatment_design(one.cell_group, k, one.cell_level, one.n_levels),
            one.cell_n,
            one.err_mean,
            float(one.err_m2.sum()),
            tss[0],
            one.n,
            tolerance,
        ),
    }
    out = {}
    for model, fit in fits.items():
        coefficients = fit.coefficients(k)
        estimate, p = coefficients["estimate"], coefficients["P>[t]"]
        with np.errstate(invalid="ignore"):
            bse = np.sqrt(np.diag(fit.normalized_cov)[:k] * fit.scale)
        q = (
            cell_ols.special_functions(fit.df_resid).stdtrit(fit.df_resid, 0.5 + confidence / 2)
            if fit.df_resid > 0
            else np.nan
        )
        low, high = estimate - q * bse, estimate + q * bse
        if fit.constant or fit.ssr == 0:  # the difference is exactly a function of the design
            low, high = estimate.copy(), estimate.copy()
            p = np.where(np.abs(estimate) <= np.sqrt(tolerance / max(one.n, 1)), 1.0, 0.0)
            estimate = np.where(p == 1.0, 0.0, estimate)
        out[model] = (estimate, low, high, p)
    return out


def _resampled(sums: pd.DataFrame, n_systems: int, labels: list, options) -> dict:
    """Every system's OSA coefficients ``(resample, system, group)`` and model R2 ``(resample,
    system, model)`` in each resample of the paired Poisson bootstrap."""
    n_resamples = options["n_resamples"]
    group = pd.Index(pd.Series(labels, dtype=object)).get_indexer(pd.Series(sums["group"], dtype=object))
    sums = sums[group >= 0]
    group = group[group >= 0]
    level_values, level = np.unique(sums["level"].to_numpy(dtype="float64"), return_inverse=True)
    k, n_levels = len(labels), level_values.size
    cell_code = group * n_levels + level.reshape(-1)
    cells, cell = np.unique(cell_code, return_inverse=True)
    cell = cell.reshape(-1)
    used, bucket = np.unique(sums["bucket"].to_numpy(dtype=np.int64), return_inverse=True)
    weights = poisson_weights(options["key"], int(used[-1]) + 1, n_resamples, buckets=used)  # (buckets, B)
    column = {name: sums[name].to_numpy(dtype="float64") for name in sums.columns[3:]}
    # per used bucket: the rows and errors per group x human score cell (the CSD fits need
    # them), the squared error and its square per group (OSA, and every model's total sum of
    # squares); one dense block (at most 65,536 buckets), all resamples' sums at once
    at = bucket.reshape(-1)
    per_cell = np.zeros((used.size, cells.size, 1 + n_systems))
    np.add.at(
        per_cell, (at, cell), np.column_stack([column["n"], *(column[f"e{s}"] for s in range(n_systems))])
    )
    per_group = np.zeros((used.size, k, 2 * n_systems))
    squares = [column[f"{x}{s}"] for s in range(n_systems) for x in "qf"]
    np.add.at(per_group, (at, group), np.column_stack(squares))
    flat = np.concatenate([per_cell.reshape(used.size, -1), per_group.reshape(used.size, -1)], axis=1)
    totals = resampled_sums(weights, flat)
    cell_totals = totals[:, : per_cell[0].size].reshape(n_resamples, cells.size, 1 + n_systems)
    group_totals = totals[:, per_cell[0].size :].reshape(n_resamples, k, n_systems, 2)
    c_group, c_level = cells // n_levels, cells % n_levels
    w_cell = cell_totals[:, :, 0]
    osa = np.empty((n_resamples, n_systems, k))
    r2 = np.empty((n_resamples, n_systems, 3))
    group_onehot = np.eye(k)[c_group]  # (cells, k)
    level_onehot = np.eye(n_levels)[c_level]
    design = cell_ols.treatment_design(c_group, k, c_level, n_levels)  # (cells, p)
    with np.errstate(invalid="ignore", divide="ignore"):
        w_group = w_cell @ group_onehot
        w_level = w_cell @ level_onehot
        xtwx = np.einsum("cp,bc,cq->bpq", design, w_cell, design)
        pinv = np.linalg.pinv(xtwx, hermitian=True)
        rank = np.linalg.matrix_rank(xtwx, hermitian=True)
        nobs = w_cell.sum(axis=1)
        for s in range(n_systems):
            e = cell_totals[:, :, 1 + s]
            q_group, f_group = group_totals[:, :, s, 0], group_totals[:, :, s, 1]
            q, f = q_group.sum(1), f_group.sum(1)
            means = q_group / w_group
            osa[:, s] = np.column_stack([means[:, 0], means[:, 1:] - means[:, :1]])
            # OSA: squared error ~ group; OSD: error ~ group; CSD: error ~ group + level vs ~ level
            r2[:, s, 0] = _adjusted_r2(f, q, nobs, q_group**2 / w_group, w_group)
            r2[:, s, 1] = _adjusted_r2(q, e.sum(1), nobs, (e @ group_onehot) ** 2 / w_group, w_group)
            xtwy = np.einsum("cp,bc->bp", design, e)
            explained = np.einsum("bp,bpq,bq->b", xtwy, pinv, xtwy)  # b'X'Wy, b = pinv(X'WX) X'Wy
            full = _r2_from(q, e.sum(1), nobs, explained, rank)
            null = _adjusted_r2(q, e.sum(1), nobs, (e @ level_onehot) ** 2 / w_level, w_level)
            r2[:, s, 2] = full - null
    return {"osa": osa, "r2": r2}


def _adjusted_r2(yy, y, nobs, explained_per_cat, w_cat):
    """Adjusted R2 of a one-factor model from weighted sums (categories without weight left out)."""
    explained = np.where(w_cat > 0, explained_per_cat, 0.0).sum(axis=1)
    return _r2_from(yy, y, nobs, explained, (w_cat > 0).sum(axis=1))


def _r2_from(yy, y, nobs, explained, rank):
    """Adjusted R2 from ``sum w y**2``, ``sum w y``, ``sum w``, ``b' X'Wy`` and the rank."""
    tss = yy - y**2 / nobs
    ssr = yy - explained
    r2 = 1.0 - ssr / tss
    return 1.0 - (nobs - 1) / (nobs - rank) * (1.0 - r2)


def _rows(name, a, b, i, j, metrics, estimates, exact, resampled, options) -> pd.DataFrame:
    """The rows of one group column and pair: each model's coefficients, then its R2."""
    confidence = options["confidence"]
    pieces = []
    for model in MODELS:
        mine = [t[t["model"] == model] for t in estimates]
        value_a, value_b = (mine[x]["estimate"].to_numpy(dtype="float64") for x in (i, j))
        size = len(value_a)
        if model == "osa":
            samples = resampled["osa"][:, j] - resampled["osa"][:, i]
            low, high, p = paired_interval(samples, value_b - value_a, confidence)
        else:
            _, low, high, p = exact[model]
        test = "paired_bootstrap" if model == "osa" else "ols_t"
        group = mine[i]["group"].to_numpy(dtype=object)
        metric = repeated(model.upper(), size)
        n = mine[i]["N"].to_numpy(dtype="int64")
        pieces.append(
            comparison_columns(
                name, group, metric, a, b, n, value_a, value_b, low, high, p, repeated(test, size)
            )
        )
    value_a, value_b = (
        metrics[x].set_index("model").loc[list(MODELS), "R2"].to_numpy("float64") for x in (i, j)
    )
    samples = resampled["r2"][:, j] - resampled["r2"][:, i]
    low, high, p = paired_interval(samples, value_b - value_a, confidence)
    metric = np.array([f"{model.upper()}_R2" for model in MODELS], dtype=object)
    n = metrics[i]["N"].to_numpy(dtype="int64")
    group, test = repeated(POOLED_LABEL, 3), repeated("paired_bootstrap", 3)
    pieces.append(comparison_columns(name, group, metric, a, b, n, value_a, value_b, low, high, p, test))
    return pd.DataFrame({column: np.concatenate([piece[column] for piece in pieces]) for column in pieces[0]})
