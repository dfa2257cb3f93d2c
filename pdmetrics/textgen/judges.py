"""Can the LLM judges be trusted? Inter-rater agreement from a long verdict table.

One row per datum, judge and run: ``verdict`` is the judge's label or score for the datum in
that run. The table is pivoted (vectorised, per datum) to the wide layout of
:func:`pdmetrics.scoring.agreement`, one column per rater, and the statistics are that
function's, computed by the same code (:mod:`pdmetrics._rater_agreement`: ``agreement_rows``)
on the same additive state (``RatingPatterns``). A datum's rows must share a part: on dask the
rows are shuffled on ``datum`` first.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._additive import Additive
from pdmetrics._groups import POOLED_LABEL
from pdmetrics._rater_agreement import (
    AGREEMENT_COLUMNS,
    RatingPatterns,
    agreement_rows,
    check_ratings,
    rater_values,
    rating_codes,
    rating_patterns,
)
from pdmetrics._resampling import bootstrap_key, check_bootstrap_options, key_buckets, poisson_weights
from pdmetrics._table_spec import Table, table
from pdmetrics._validation import one_name, plain, refuse_missing
from pdmetrics._warnings import warn_undefined
from pdmetrics.errors import InvalidInputError

__all__ = ["COMPARISONS", "JUDGE_AGREEMENT_COLUMNS", "judge_agreement"]

#: The kinds of rows, in the table's order: between judges, each judge against the human
#: column, between the runs of each judge, and the spread of each judge's verdict rate over runs.
COMPARISONS = ("judges", "human", "runs", "spread")

#: The columns of the table.
JUDGE_AGREEMENT_COLUMNS = ["comparison", "judge", *AGREEMENT_COLUMNS]

#: The statistics of the spread rows (after the per-run ``verdict_rate`` rows).
SPREAD_STATISTICS = ("verdict_rate_mean", "verdict_rate_sd", "verdict_rate_min", "verdict_rate_max")


# ----------------------------------------------------------------------------------------------
# the state: rating patterns whose rater columns carry labels (judges, runs)
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LabelledPatterns:
    """Rating patterns whose last rater columns are labelled by ``names`` (sorted): the
    judges, or the runs; the ``lead`` rater columns before them (the human column) are not.
    Combining aligns the labelled columns on the union of the names (-1: not rated)."""

    names: np.ndarray
    lead: int
    patterns: RatingPatterns

    def combine(self, other: LabelledPatterns) -> LabelledPatterns:
        names = _sorted_union(self.names, other.names)
        return LabelledPatterns(names, self.lead, self.aligned(names).combine(other.aligned(names)))

    def aligned(self, names: np.ndarray) -> RatingPatterns:
        """The patterns with the labelled columns at their places among ``names``."""
        rows = self.patterns.rows
        start = rows.shape[1] - self.names.size
        out = np.full((rows.shape[0], start + names.size), -1, dtype=np.int64)
        out[:, :start] = rows[:, :start]
        out[:, start + pd.Index(names, dtype=object).get_indexer(self.names)] = rows[:, start:]
        p = self.patterns
        return RatingPatterns(p.categories, p.labels, out, p.counts)


@dataclass(frozen=True)
class JudgeState(Additive):
    """The additive state of :func:`judge_agreement`: the first-run verdicts per datum
    (judges, led by the human column), the verdicts per (datum, judge) by run (``None``
    without ``run=``), and per (judge, run) the verdicts' sum, the positive verdicts and the
    verdict count, with the data each judge judged."""

    judges: LabelledPatterns
    runs: LabelledPatterns | None
    rates: pd.DataFrame
    data: pd.DataFrame


def _sorted_union(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return _sorted_labels(pd.unique(np.concatenate([a, b]).astype(object)), "judge")


def _sorted_labels(values, argument: str) -> np.ndarray:
    try:
        return np.array(sorted(values), dtype=object)
    except TypeError:
        raise InvalidInputError(
            f"`{argument}` mixes kinds of labels ({', '.join(sorted({type(v).__name__ for v in values}))}): "
            f"they cannot be ordered. Give the column one type, e.g. `df[{argument!r}].astype(str)`."
        ) from None


def _require_labels(series: pd.Series, argument: str, column) -> None:
    """A missing datum id, judge or run label is an error naming the row."""
    refuse_missing(
        series,
        f"`{argument}={plain(column)!r}`",
        f"missing {argument} label; every verdict row names its datum, judge and run (drop or fill "
        f"such rows first).",
    )


def _codes_of(series: pd.Series, argument: str, column) -> tuple[np.ndarray, np.ndarray]:
    """Each row's code among the column's sorted labels, and the labels."""
    _require_labels(series, argument, column)
    codes, uniques = pd.factorize(series)  # pandas' hash table on the column's own type
    uniques = np.asarray(uniques, dtype=object)
    labels = _sorted_labels(uniques, argument)
    order = pd.Index(labels, dtype=object).get_indexer(pd.Index(uniques, dtype=object))
    return order[codes].astype(np.int64), labels


# ----------------------------------------------------------------------------------------------
# one part: the pivot to the wide layouts
# ----------------------------------------------------------------------------------------------
def _chunk(columns: dict, level: str, positive, resampled: bool, key: int, part: pd.DataFrame) -> JudgeState:
    datum_col, judge_col, verdict_col = columns["datum"], columns["judge"], columns["verdict"]
    run_col, human_col = columns["run"], columns["human"]
    datum = part[datum_col]
    _require_labels(datum, "datum", datum_col)
    d, data_ids = pd.factorize(datum)
    data_ids = data_ids.to_numpy(dtype=object) if datum.dtype == object else data_ids.to_numpy()
    j, judges = _codes_of(part[judge_col], "judge", judge_col)
    if run_col is None:
        r, runs = np.zeros(len(part), dtype=np.int64), np.array([POOLED_LABEL], dtype=object)
    else:
        r, runs = _codes_of(part[run_col], "run", run_col)
    n_data, n_judges, n_runs = len(data_ids), judges.size, runs.size
    # the (datum, judge) pairs, numbered by a hash table (no sort), and one verdict per run of each
    pair, pair_keys = pd.factorize(d.astype(np.int64) * n_judges + j)
    n_pairs = pair_keys.size
    cell = pair.astype(np.int64) * n_runs + r
    if np.bincount(cell, minlength=n_pairs * n_runs).max(initial=0) > 1:
        at = int(np.flatnonzero(pd.Index(cell).duplicated())[0])  # the first row that repeats one
        where = f"datum {plain(data_ids[d[at]])!r}, judge {plain(judges[j[at]])!r}"
        fix = (
            "give each run its own label in `run=`, or keep one verdict per run"
            if run_col is not None
            else "name the column of the runs with `run=`, or keep one verdict per datum and judge"
        )
        raise InvalidInputError(
            f"`verdict={plain(verdict_col)!r}`: {where}"
            + (f", run {plain(runs[r[at]])!r}" if run_col is not None else "")
            + f" has more than one verdict row; {fix}."
        )
    values = [rater_values(part[verdict_col], verdict_col, level, "verdict")]
    if human_col is not None:
        values.append(rater_values(part[human_col], human_col, level, "human"))
    categories, codes = rating_codes(values)
    verdict, present = codes[:, 0], codes[:, 0] >= 0
    buckets = key_buckets(data_ids, key) if resampled else np.zeros(n_data, dtype=np.intp)
    # the verdicts of each pair by run: one scatter into a preallocated table
    by_run = np.full((n_pairs, n_runs), -1, dtype=np.int64)
    by_run.reshape(-1)[cell[present]] = verdict[present]
    judged_runs = by_run >= 0
    # (a) and (c): each pair's verdict of its first run with one (the runs' labels are sorted)
    first = np.full(n_pairs, -1, dtype=np.int64)  # -1: no verdict in any run
    if by_run.size:
        first = by_run[np.arange(n_pairs), judged_runs.argmax(axis=1)]
    wide = np.full((n_data, n_judges), -1, dtype=np.int64)
    wide[pair_keys // max(n_judges, 1), pair_keys % max(n_judges, 1)] = first
    lead = []
    if human_col is not None:
        human = np.full(n_data, -1, dtype=np.int64)
        human[d] = codes[:, 1]
        varies = human[d] != codes[:, 1]
        if varies.any():
            at = int(np.flatnonzero(varies)[0])
            raise InvalidInputError(
                f"`human={plain(human_col)!r}`: datum {plain(data_ids[d[at]])!r} has more than one human "
                f"rating; the human column holds one rating per datum, repeated on each of its rows."
            )
        lead = [human[:, None]]
    judged = rating_patterns(categories, np.hstack([*lead, wide]), [], [], buckets)
    state_judges = LabelledPatterns(judges, len(lead), judged)
    # (b): the verdicts of each datum and judge by run
    state_runs = None
    if run_col is not None:
        kept = judged_runs.any(axis=1)
        pairs = pair_keys[kept]
        runs_patterns = rating_patterns(
            categories, by_run[kept], [pairs % max(n_judges, 1)], [judges], buckets[pairs // max(n_judges, 1)]
        )
        state_runs = LabelledPatterns(runs, 0, runs_patterns)
    # (d): per judge and run, the verdicts' sum, the positive ones and their count
    numeric = isinstance(values[0], np.ndarray)  # else text, as the column
    numbers = values[0] if numeric else np.zeros(len(part))
    hits = np.zeros(len(part), dtype=bool)
    if positive is not None:  # the verdicts equal to it: their categories' codes
        hits = np.isin(verdict, np.flatnonzero(pd.Index(categories, dtype=object) == positive))
    at = j[present] * n_runs + r[present]
    size = n_judges * n_runs
    rates = pd.DataFrame(
        {
            "judge": np.repeat(judges, n_runs),
            "run": np.tile(runs, n_judges),
            "sum": np.bincount(at, np.where(present, numbers, 0.0)[present], size),
            "hits": np.bincount(at, hits[present].astype("float64"), size),
            "n": np.bincount(at, minlength=size).astype(np.int64),
        }
    )
    data = pd.DataFrame({"judge": judges, "n": (wide >= 0).sum(axis=0).astype(np.int64)})
    return JudgeState(state_judges, state_runs, rates[rates["n"] > 0], data)


# ----------------------------------------------------------------------------------------------
# the table
# ----------------------------------------------------------------------------------------------
def _projected(patterns: RatingPatterns, lead: int, columns, keep=None) -> RatingPatterns:
    """The patterns of the rater ``columns`` only (positions after the ``lead`` columns: the
    groups, the bucket), on the rows ``keep``; the items none of them rated left out and the
    categories those raters used kept (coded as :func:`rating_codes` codes them)."""
    rows = patterns.rows if keep is None else patterns.rows[keep]
    counts = patterns.counts if keep is None else patterns.counts[keep]
    codes = rows[:, [lead + c for c in columns]]
    rated = (codes >= 0).any(axis=1)
    codes, counts, bucket = codes[rated], counts[rated], rows[rated, lead - 1]
    used = np.unique(codes[codes >= 0])
    recode = np.full(patterns.categories.size + 1, -1, dtype=np.int64)
    recode[used] = np.arange(used.size)
    codes = recode[codes]  # -1 stays -1 (the last entry)
    rows = np.column_stack([bucket, codes]).astype(np.int64)
    return RatingPatterns(patterns.categories[used], (), rows, counts).reduced()


def _labelled(table: pd.DataFrame, comparison: str, judge) -> pd.DataFrame:
    table.insert(0, "judge", [judge] * len(table))
    table.insert(0, "comparison", comparison)
    return table


def _finalize(columns, level, positive, n_resamples, confidence, key, state: JudgeState) -> pd.DataFrame:
    judges, lead = state.judges.names, state.judges.lead
    patterns = state.judges.patterns.reduced()
    if patterns.counts.sum() == 0:
        raise InvalidInputError(
            f"`verdict={plain(columns['verdict'])!r}` holds no verdict (the frame is empty or every verdict "
            f"is missing); pass the judges' verdicts (a missing value means not judged)."
        )
    # the buckets' Poisson weights, drawn once for every table
    buckets = [patterns.rows[:, 0]] + ([] if state.runs is None else [state.runs.patterns.rows[:, 1]])
    highest = max(int(b.max()) if b.size else 0 for b in buckets)
    weights = poisson_weights(key, highest + 1, n_resamples) if n_resamples else None
    rows = partial(
        agreement_rows,
        by=[],
        level=level,
        n_resamples=n_resamples,
        confidence=confidence,
        key=key,
        weights=weights,
    )
    names = [plain(name) for name in judges]
    tables = []
    if judges.size >= 2:
        judged = _projected(patterns, 1, list(range(lead, lead + judges.size)))
        tables.append(_labelled(rows(names, state=judged), "judges", POOLED_LABEL))
    if lead:
        human = plain(columns["human"])
        for i, name in enumerate(names):
            pair = _projected(patterns, 1, [0, lead + i])
            if pair.counts.size:
                tables.append(_labelled(rows([human, name], state=pair), "human", name))
    if state.runs is not None:
        by_run = state.runs.patterns.reduced()
        runs = [plain(name) for name in state.runs.names]
        group = by_run.labels[0] if by_run.labels else np.array([], dtype=object)
        for name in names:
            at = np.flatnonzero(pd.Index(group, dtype=object) == name) if group.size else []
            if len(at) == 0:
                continue
            keep = by_run.rows[:, 0] == at[0]
            used = np.flatnonzero((by_run.rows[keep, 2:] >= 0).any(axis=0))
            if used.size >= 2:
                one = _projected(by_run, 2, list(used), keep)
                tables.append(_labelled(rows([runs[u] for u in used], state=one), "runs", name))
    tables.append(_spread(state, positive, patterns.categories, columns))
    result = pd.concat([t for t in tables if len(t)], ignore_index=True)
    result = result[JUDGE_AGREEMENT_COLUMNS]
    undefined = result.loc[result["value"].isna(), "statistic"].unique().tolist()
    if undefined:
        warn_undefined(
            f"judge_agreement: {', '.join(undefined)} undefined (NaN) for some rows: too few data judged "
            f"by enough judges or runs, a single category, no variance, or one run only (the SD)."
        )
    return result.reset_index(drop=True)


def _spread(state: JudgeState, positive, categories: np.ndarray, columns: dict) -> pd.DataFrame:
    """The spread rows: per judge, the verdict rate of each run, then its mean, SD, min and max."""
    empty = pd.DataFrame(columns=JUDGE_AGREEMENT_COLUMNS)
    if positive is None and categories.dtype == object:
        return empty  # text verdicts: the rate of which verdict? (``positive=``)
    if positive is not None and not (pd.Index(categories, dtype=object) == positive).any():
        raise InvalidInputError(
            f"`positive={plain(positive)!r}` is not one of the verdicts "
            f"({[plain(c) for c in categories][:10]}); "
            f"pass the verdict whose share per run is the verdict rate (verdicts are compared exactly)."
        )
    rates = state.rates.groupby(["judge", "run"], sort=True, as_index=False)[["sum", "hits", "n"]].sum()
    rates["rate"] = (rates["hits"] if positive is not None else rates["sum"]) / rates["n"]
    per_run = pd.DataFrame(
        {
            "comparison": "spread",
            "judge": rates["judge"].map(plain),
            "statistic": "verdict_rate",
            "raters": [str(plain(run)) for run in rates["run"]],
            "value": rates["rate"].astype("float64"),
            "ci_low": np.nan,
            "ci_high": np.nan,
            "N_items": rates["n"].astype(np.int64),
            "N_raters": np.int64(1),
        }
    )
    summary = rates.groupby("judge", sort=True)["rate"].agg(["mean", "std", "min", "max"])
    data = state.data.groupby("judge", sort=True)["n"].sum().reindex(summary.index)
    n_runs = rates.groupby("judge", sort=True).size().reindex(summary.index)
    frames = []
    for statistic, column in zip(SPREAD_STATISTICS, ("mean", "std", "min", "max")):
        frames.append(
            pd.DataFrame(
                {
                    "comparison": "spread",
                    "judge": [plain(name) for name in summary.index],
                    "statistic": statistic,
                    "raters": POOLED_LABEL,
                    "value": summary[column].to_numpy(dtype="float64"),
                    "ci_low": np.nan,
                    "ci_high": np.nan,
                    "N_items": data.to_numpy(dtype=np.int64),
                    "N_raters": n_runs.to_numpy(dtype=np.int64),
                }
            )
        )
    table = pd.concat([per_run, *frames], ignore_index=True)
    judge_order = pd.Index(summary.index, dtype=object).get_indexer(pd.Index(table["judge"], dtype=object))
    order = np.lexsort((np.arange(len(table)), judge_order))
    return table.iloc[order].reset_index(drop=True)


@table
def judge_agreement(
    frame,
    *,
    datum,
    judge,
    verdict,
    run=None,
    human=None,
    level: str = "nominal",
    positive=None,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    random_state=12345,
):
    """How far do LLM judges agree with each other, with themselves over runs, and with humans?

    Parameters
    ----------
    frame : DataFrame
        The verdict table in long form: one row per datum, judge and run (pandas; dask and
        polars frames run the same table, shuffled on ``datum``).
    datum : str
        The datum id column (the item judged).
    judge : str
        The column naming the judge (any labels of one type: they are sorted).
    verdict : str
        The judge's verdict: a label (text, booleans, categories) at ``level="nominal"``, or a
        number at every level. A missing verdict means not judged (the row is left out).
    run : str, optional
        The column of the run (repeated judgements of the same datum by the same judge; labels
        of one type, sorted). Without it, each datum and judge has one verdict row.
    human : str, optional
        A column of human ratings, one per datum (constant on the datum's rows; missing: not
        rated), on the verdicts' scale.
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        The verdicts' level of measurement, as :func:`pdmetrics.scoring.agreement`'s.
    positive : scalar, optional
        The verdict whose share per run is the judge's verdict rate (e.g. ``"yes"``). Default:
        the mean of numeric verdicts (the share of 1 for 0/1 verdicts); text verdicts without
        ``positive=`` get no spread rows.
    n_resamples : int, default 1000
        Bootstrap resamples of the data for the intervals (0: none but the ICCs').
    confidence : float, default 0.95
        The intervals' coverage.
    random_state : int, numpy.random.Generator or None, default 12345
        The bootstrap's seed; a datum's weights depend only on it and the datum's id, so every
        engine gives the same intervals.

    Returns
    -------
    pandas.DataFrame
        Columns ``comparison, judge, statistic, raters, value, ci_low, ci_high, N_items,
        N_raters`` (the columns of :func:`pdmetrics.scoring.agreement` after ``comparison,
        judge``), the rows in this order:

        - ``comparison="judges"`` (``judge="(all)"``), with two judges or more: the statistics
          of :func:`~pdmetrics.scoring.agreement` with the judges as raters, one row per datum
          holding each judge's verdict **of its first run**: the lowest ``run`` label in which
          the judge gave the datum a verdict (a datum a judge never judged: not rated by it).
          ``raters`` names the judges (``"j1 vs j2"`` for Cohen's kappa).
        - ``comparison="human"``, per judge (``judge``), with ``human=``: the statistics of
          ``agreement(raters=[human, judge])`` on the same wide table (the human rating and
          the judge's first-run verdict per datum): Cohen's kappa of the pair (weighted from
          ``level="ordinal"`` on), the pair's percent agreement, and the others for two raters.
        - ``comparison="runs"``, per judge with two runs or more: its stability, the statistics
          of ``agreement`` with the judge's runs as raters, one row per datum it judged
          (``raters`` names the runs).
        - ``comparison="spread"``, per judge (numeric verdicts, or with ``positive=``): the
          uncertainty judge disagreement puts on a verdict metric. ``verdict_rate`` per run
          (``raters``: the run; the share of ``positive`` verdicts, or their mean, over the data
          the judge judged in that run; ``N_items``: those data), then over the runs
          ``verdict_rate_mean``, ``verdict_rate_sd`` (the SD of the runs' rates, ``ddof=1``:
          NaN with one run), ``verdict_rate_min`` and ``verdict_rate_max`` (``N_items``: the
          data the judge judged; ``N_raters``: its runs); no intervals.

        A statistic that is undefined for the data (NaN) comes with one
        :class:`~pdmetrics.UndefinedMetricWarning`.

    Notes
    -----
    The agreement rows equal :func:`pdmetrics.scoring.agreement` on the wide table that
    ``frame.pivot`` gives (their intervals differ: here a datum's bootstrap weights follow its
    id, not its row number, so a datum keeps them on every engine, whatever the shuffle).

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> verdicts = pd.DataFrame({
    ...     "datum": [1, 1, 2, 2, 3, 3, 4, 4] * 2,
    ...     "judge": ["a", "b"] * 8,
    ...     "run": [1] * 8 + [2] * 8,
    ...     "verdict": [1, 1, 0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0],
    ...     "human": [1, 1, 0, 0, 1, 1, 0, 0] * 2})
    >>> table = verdicts.textgen.judge_agreement(
    ...     datum="datum", judge="judge", verdict="verdict", run="run", human="human", n_resamples=0)
    >>> rows = table.query("statistic in ['cohen_kappa', 'verdict_rate_mean', 'verdict_rate_sd']")
    >>> rows[["comparison", "judge", "raters", "statistic", "value"]].round(3)
       comparison  judge      raters          statistic  value
    4      judges  (all)      a vs b        cohen_kappa  0.500
    9       human      a  human vs a        cohen_kappa  1.000
    14      human      b  human vs b        cohen_kappa  0.500
    19       runs      a      1 vs 2        cohen_kappa  1.000
    24       runs      b      1 vs 2        cohen_kappa  0.200
    27     spread      a       (all)  verdict_rate_mean  0.500
    28     spread      a       (all)    verdict_rate_sd  0.000
    33     spread      b       (all)  verdict_rate_mean  0.500
    34     spread      b       (all)    verdict_rate_sd  0.354
    """
    names = {"datum": datum, "judge": judge, "verdict": verdict, "run": run, "human": human}
    columns = {arg: None if name is None else one_name(frame, arg, name) for arg, name in names.items()}
    given = [(arg, name) for arg, name in columns.items() if name is not None]
    seen = {}
    for arg, name in given:
        if name in seen:
            raise InvalidInputError(
                f"`{arg}={plain(name)!r}` is also `{seen[name]}=`; each role needs its own column."
            )
        seen[name] = arg
    check_ratings(
        frame, [(arg, columns[arg]) for arg in ("verdict", "human") if columns[arg] is not None], level
    )
    if positive is not None and not pd.api.types.is_scalar(positive):
        raise InvalidInputError(
            f"`positive={positive!r}` must be one verdict (a scalar such as 'yes' or 1), or None."
        )
    check_bootstrap_options(n_resamples, confidence, random_state)
    key = bootstrap_key(random_state)
    return Table(
        [name for _, name in given],
        partial(_chunk, columns, level, positive, n_resamples > 0, key),
        partial(_finalize, columns, level, positive, n_resamples, confidence, key),
        key=columns["datum"],
    )
