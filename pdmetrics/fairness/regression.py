"""Score fairness regressions (Loukina, Madnani & Zechner, 2019), as RSMTool 12 fits them.

Three ordinary-least-squares analyses of the error ``e = system - human``:

* **overall score accuracy** (OSA): squared error ``e**2 ~ group``;
* **overall score difference** (OSD): error ``e ~ group``;
* **conditional score difference** (CSD): ``e ~ group + C(human)`` against the null model
  ``e ~ C(human)`` (human score as a categorical factor), compared with a nested F-test.

Groups and human score levels enter as treatment (dummy) codes. The reference group is
the largest group, ties broken alphabetically, unless ``base_group`` names one; the
reference human score level is the most frequent score, ties broken by the lowest score.

How it is fitted
----------------
Every model here has only categorical regressors: pdmetrics encodes the group and the human
score as integer codes once, computes per group x human score cell the count and the mean and
within-cell sum of squares of the error and of its square with ``np.bincount`` (two passes:
means, then centred sums; :class:`CellMoments`, additive over chunks of rows), and fits each
model from those moments (:mod:`pdmetrics.fairness.cell_ols`): the full-data OLS numbers of
statsmodels' ``OLS.fit(method="pinv")`` (RSMTool's fit), without statsmodels, nor SciPy up to
:data:`~pdmetrics.fairness.cell_ols.EXACT_DF_LIMIT` residual degrees of freedom (and 61
groups). No formula strings are involved, so any column name or group label works.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._additive import Additive
from pdmetrics._groups import check_one_kind, group_codes, named_columns
from pdmetrics._table_spec import table
from pdmetrics._tables import attach_info, result_table
from pdmetrics._validation import one_name, paired_arrays, plain, preview, require_columns
from pdmetrics._warnings import warn_excluded, warn_undefined
from pdmetrics.errors import InvalidInputError
from pdmetrics.fairness._inputs import check_group_names, column_table
from pdmetrics.fairness.cell_ols import (
    CellFit,
    factorize,
    noise_tolerance,
    pool,
    special_functions,
    treatment_design,
)

__all__ = [
    "CellMoments",
    "ScoreFairnessState",
    "score_fairness_state",
    "score_fairness_from_state",
    "score_fairness",
    "score_fairness_estimates",
    "score_fairness_tables",
    "rsmtool_fairness_tables",
    "rsmtool_coefficient_label",
    "FAIRNESS_METRICS_COLUMNS",
    "FAIRNESS_ESTIMATES_COLUMNS",
]

#: Column order of :func:`score_fairness`.
FAIRNESS_METRICS_COLUMNS = [
    "by",
    "model",
    "metric",
    "base_category",
    "N",
    "R2",
    "sig",
    "F",
    "df_num",
    "df_denom",
    "R2_unadjusted",
]
#: Column order of :func:`score_fairness_estimates`.
FAIRNESS_ESTIMATES_COLUMNS = [
    "by",
    "model",
    "term",
    "group",
    "rsmtool_label",
    "N",
    "estimate",
    "P>[t]",
    "[0.025",
    "0.975]",
]

_MODELS = ("osa", "osd", "csd")
_METRIC_NAMES = {
    "osa": "Overall score accuracy",
    "osd": "Overall score difference",
    "csd": "Conditional score difference",
}
#: Largest number of columns of the CSD design (groups + human score levels).
MAX_DESIGN_COLUMNS = 2000
#: Name of an unnamed group column in the ``by`` column of the tables.
UNNAMED_GROUP = "group"


# --------------------------------------------------------------------------------------
# categories
# --------------------------------------------------------------------------------------
def _category_order(
    counts: np.ndarray, uniques, base=None, argument: str = "group"
) -> tuple[np.ndarray, list, np.ndarray]:
    """Order categories by size, ties by label.

    Sizes descend; equal sizes are ordered by ascending label (RSMTool's rule). ``base``
    moves that label to the front. Returns ``(rank, labels, counts)``: the new code of each
    category, the labels in category order (reference first) and their counts.
    """
    table = pd.DataFrame({"label": pd.Series(uniques, dtype=object), "count": counts})
    try:
        order = table.sort_values(["count", "label"], ascending=[False, True], kind="mergesort").index
    except TypeError:  # labels of mixed types: compare their text
        table["text"] = table["label"].map(str)
        order = table.sort_values(["count", "text"], ascending=[False, True], kind="mergesort").index
    order = np.asarray(order)
    if base is not None:
        matches = [i for i in order if _same_label(table["label"].iat[i], base)]
        if not matches:
            raise InvalidInputError(
                f"`base_group={plain(base)!r}` is not a value of `{argument}`; pass one of the groups "
                f"present in the data: {preview([table['label'].iat[i] for i in order], 20)}."
            )
        order = np.concatenate([[matches[0]], [i for i in order if i != matches[0]]]).astype("int64")
    rank = np.empty(len(order), dtype=np.intp)
    rank[order] = np.arange(len(order))
    labels = [table["label"].iat[i] for i in order]
    return rank, labels, np.asarray(counts)[order]


def _same_label(label, base) -> bool:
    try:
        return bool(label == base)
    except (TypeError, ValueError):
        return False


def rsmtool_coefficient_label(label) -> str:
    """The row label RSMTool 12 writes for a group's coefficient.

    RSMTool names the coefficient of group ``label`` by splitting statsmodels' term name
    ``group[T.<label>]`` on ``"."`` and keeping the second piece, so a label containing a
    dot is cut at its first dot (``"x.y"`` becomes ``"x"``) and a trailing ``"]"`` is
    stripped. Numbers are written as their ``repr``.

    Examples
    --------
    >>> from pdmetrics.fairness import rsmtool_coefficient_label
    >>> rsmtool_coefficient_label("Klingon"), rsmtool_coefficient_label("x.y")
    ('Klingon', 'x')
    >>> rsmtool_coefficient_label(2.0)
    '2'
    """
    return f"group[T.{_readable(label)}]".split(".")[1].strip("]")


def _readable(label) -> str:
    if isinstance(label, str):
        return label
    if isinstance(label, bytes):
        return label.decode("utf-8", errors="replace")
    if isinstance(label, np.generic):
        label = label.item()
    return repr(label)


def _intercept_label(base) -> str:
    return f"Intercept ({base})"


# --------------------------------------------------------------------------------------
# input
# --------------------------------------------------------------------------------------
class Scores:
    """The score columns' per-row arrays, computed once for every group column.

    ``error`` is ``system - human`` (0 where a score is missing, so that no NaN reaches a
    sum), ``levels`` the human score's raw level codes (distinct values ascending).
    """

    def __init__(self, h: np.ndarray, s: np.ndarray, buffers: np.ndarray | None = None) -> None:
        # buffers: three float rows of at least h's size for the error, its square and the work array
        error, squared, scratch = (
            (np.empty(h.size) for _ in range(3)) if buffers is None else buffers[:, : h.size]
        )
        self.size = h.size
        self.valid = np.isfinite(h) & np.isfinite(s)
        self.every_valid = bool(self.valid.all())
        self.n_missing = int(self.size - np.count_nonzero(self.valid))
        # rows with a numeric human, and a numeric system score (to name a column without any)
        self.n_human = int(np.count_nonzero(np.isfinite(h))) if self.n_missing else self.size
        self.n_system = int(np.count_nonzero(np.isfinite(s))) if self.n_missing else self.size
        with np.errstate(all="ignore"):  # missing or huge scores: their rows are set aside below
            self.error = np.subtract(s, h, out=error)
            if not self.every_valid:
                np.putmask(self.error, ~self.valid, 0.0)
            self.squared = np.multiply(self.error, self.error, out=squared)
        self.system = s if self.every_valid else np.where(self.valid, s, 0.0)
        # rows of the largest and smallest system score and error (rounding noise scales with them)
        self.system_extremes = _extreme_rows(self.system)
        self.error_extremes = _extreme_rows(self.error)
        # the cell codes of every group column in turn, as intp: bincount would otherwise
        # convert narrow codes to a new 80 MB array (at 10M rows) on each of its calls
        self.cells = np.empty(h.size, dtype=np.intp)
        self.levels, self.level_values = factorize(h, self.cells)
        # a missing score sends the row below every cell code (it is then set aside)
        self.level_or_missing = (
            self.levels if self.every_valid else np.where(self.valid, self.levels.astype(np.intp), -(2**40))
        )
        self.scratch = scratch  # one work array for the cell sums of every group column


def _extreme_rows(values: np.ndarray) -> tuple[int, ...]:
    return (int(np.argmax(values)), int(np.argmin(values))) if values.size else ()


def _largest_kept(values: np.ndarray, rows: tuple[int, ...], cell: np.ndarray, set_aside: int) -> float:
    """The largest ``|values|`` on the rows kept, given the rows of the largest and smallest value."""
    top = max(rows, key=lambda row: abs(values[row]))
    if cell[top] != set_aside:
        return float(abs(values[top]))
    return float(np.max(np.abs(values[cell != set_aside])))


def _cell_moments(cell: np.ndarray, n_cells: int, scores: Scores) -> tuple[np.ndarray, ...]:
    """Per cell: the count, and the mean and within-cell sum of squares of the error and its square.

    Two passes (means, then centred sums) in the one scratch array.
    """
    count = np.bincount(cell, minlength=n_cells)
    scratch = scores.scratch
    out = [count]
    for values in (scores.error, scores.squared):
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.bincount(cell, weights=values, minlength=n_cells) / count
        np.take(mean, cell, out=scratch, mode="clip")  # codes are in range: no bounds check
        np.subtract(values, scratch, out=scratch)
        np.multiply(scratch, scratch, out=scratch)
        out += [mean, np.bincount(cell, weights=scratch, minlength=n_cells)]
    return tuple(out)


@dataclass(frozen=True)
class CellMoments:
    """One group column's group x human score cells over some rows: the additive state of the
    score fairness models.

    Attributes
    ----------
    name : hashable
        The group column.
    groups : ndarray of object
        The group labels of the cells' rows (each has a row kept).
    levels : ndarray of float64
        The human scores of the cells' rows (distinct, ascending).
    cell_group, cell_level : ndarray of intp
        Each cell's group and human score (positions in ``groups`` and ``levels``).
    n : ndarray of int64
        Rows per cell.
    err_mean, err_m2, sq_mean, sq_m2 : ndarray of float64
        Per cell, the mean and centred sum of squares of the error ``system - human`` and of
        its square.
    rows, n_missing : int
        Rows seen, and rows without a numeric human and system score.
    n_human, n_system : int
        Rows with a numeric human score, and with a numeric system score.
    largest_system, largest_error : float
        The largest ``|system|`` and ``|error|`` on the rows kept (0 without any).
    """

    name: object
    groups: np.ndarray
    levels: np.ndarray
    cell_group: np.ndarray
    cell_level: np.ndarray
    n: np.ndarray
    err_mean: np.ndarray
    err_m2: np.ndarray
    sq_mean: np.ndarray
    sq_m2: np.ndarray
    rows: int
    n_missing: int
    largest_system: float
    largest_error: float
    n_human: int = 0
    n_system: int = 0

    def combine(self, other: CellMoments) -> CellMoments:
        """The cells of the union of two disjoint row sets (aligned on group and score; the
        moments pooled as Chan, Golub and LeVeque's pairwise update does)."""
        mine = pd.Index(self.groups, dtype=object)
        theirs = pd.Index(other.groups, dtype=object)
        if len(mine) and len(theirs):  # before 1 and True (hash-equal) are taken for one group
            both = pd.Series(np.concatenate([self.groups, other.groups]), dtype=object, name=self.name)
            check_one_kind(both, "by", rows=False)
        groups = mine.append(theirs[~theirs.isin(mine)])
        levels = np.union1d(self.levels, other.levels)
        group = np.concatenate(
            [groups.get_indexer(mine)[self.cell_group], groups.get_indexer(theirs)[other.cell_group]]
        )
        level = np.concatenate(
            [
                np.searchsorted(levels, self.levels)[self.cell_level],
                np.searchsorted(levels, other.levels)[other.cell_level],
            ]
        )
        keys, parent = np.unique(group * max(levels.size, 1) + level, return_inverse=True)
        parent = parent.reshape(-1)
        n = np.concatenate([self.n, other.n]).astype("float64")
        pooled = {}
        for mean, m2 in (("err_mean", "err_m2"), ("sq_mean", "sq_m2")):
            values = np.concatenate([getattr(self, mean), getattr(other, mean)])
            spread = np.concatenate([getattr(self, m2), getattr(other, m2)])
            _, pooled[mean], pooled[m2] = pool(n, values, spread, parent, keys.size)
        return CellMoments(
            self.name,
            groups.to_numpy(dtype=object),
            levels,
            (keys // max(levels.size, 1)).astype(np.intp),
            (keys % max(levels.size, 1)).astype(np.intp),
            np.bincount(parent, weights=n, minlength=keys.size).astype("int64"),
            rows=self.rows + other.rows,
            n_missing=self.n_missing + other.n_missing,
            n_human=self.n_human + other.n_human,
            n_system=self.n_system + other.n_system,
            largest_system=max(self.largest_system, other.largest_system),
            largest_error=max(self.largest_error, other.largest_error),
            **pooled,
        )


def cell_moments(scores: Scores, name, codes: np.ndarray, uniques: np.ndarray) -> CellMoments:
    """The :class:`CellMoments` of one chunk of rows (no row kept is not an error here)."""
    argument = f"by={plain(name)!r}"
    level_codes, level_values = scores.level_or_missing, scores.level_values
    if len(uniques) + len(level_values) - 1 > MAX_DESIGN_COLUMNS:
        # too many groups or scores in all: count those of the rows kept before making cells
        codes, uniques, level_codes, level_values = _compact(scores, codes, uniques, argument)
    k_raw, n_raw_levels = len(uniques), max(len(level_values), 1)
    n_raw_cells = k_raw * n_raw_levels
    # in the scores' cell array (the caller's codes stay)
    cell = np.multiply(codes, n_raw_levels, out=scores.cells, dtype=np.intp)
    cell += level_codes
    np.putmask(cell, cell < 0, n_raw_cells)  # no group (code -1) or no score: one extra cell
    counts, err_mean, err_m2, sq_mean, sq_m2 = _cell_moments(cell, n_raw_cells + 1, scores)
    present = np.flatnonzero(counts[:n_raw_cells])
    raw_group, raw_level = present // n_raw_levels, present % n_raw_levels
    groups, cell_group = np.unique(raw_group, return_inverse=True)
    levels, cell_level = np.unique(raw_level, return_inverse=True)
    kept = present.size > 0
    return CellMoments(
        name,
        np.asarray(uniques, dtype=object)[groups],
        np.asarray(level_values, dtype="float64")[levels],
        cell_group.reshape(-1).astype(np.intp),
        cell_level.reshape(-1).astype(np.intp),
        counts[present].astype("int64"),
        err_mean[present],
        err_m2[present],
        sq_mean[present],
        sq_m2[present],
        rows=int(scores.size),
        n_missing=scores.n_missing,
        n_human=scores.n_human,
        n_system=scores.n_system,
        largest_system=_largest_kept(scores.system, scores.system_extremes, cell, n_raw_cells)
        if kept
        else 0.0,
        largest_error=_largest_kept(scores.error, scores.error_extremes, cell, n_raw_cells) if kept else 0.0,
    )


class Cells:
    """One group column's group x human score cells in category order, checked before any
    model is fitted (from its :class:`CellMoments`, the state of every row).

    Every row adds to one cell (its group and human score, in category order); a row with
    a missing score or group is set aside. Per cell: ``n``, and the mean and within-cell sum
    of squares of the error and of the squared error.
    """

    def __init__(self, moments: CellMoments, base_group, human_name=None, system_name=None) -> None:
        self.name = moments.name
        argument = f"by={plain(self.name)!r}"
        n_kept = int(moments.n.sum())
        self.rows_excluded = int(moments.rows - n_kept)
        self.excluded_because = (
            f"the score fairness analyses by {plain(self.name)!r} need a numeric human and system score "
            f"({moments.n_missing} rows have none) and a group "
            f"({self.rows_excluded - moments.n_missing} more have none)"
        )
        if not n_kept:
            _refuse_no_rows(moments, argument, human_name, system_name)
        cell_n = moments.n
        group_counts = np.bincount(moments.cell_group, weights=cell_n, minlength=moments.groups.size).astype(
            "int64"
        )
        level_counts = np.bincount(moments.cell_level, weights=cell_n, minlength=moments.levels.size).astype(
            "int64"
        )
        rank, self.labels, self.counts = _category_order(group_counts, moments.groups, base_group, argument)
        c_group = rank[moments.cell_group]
        rank, level_labels, _ = _category_order(level_counts, moments.levels, None, "human")
        c_level = rank[moments.cell_level]
        self.n_levels = len(level_labels)
        k = len(self.labels)
        _check_width(k, self.n_levels, argument)
        # cells in category order: group-major, then human score level
        order = np.argsort(c_group * self.n_levels + c_level, kind="stable")
        self.n = n_kept
        self.cell_n = cell_n[order].astype("float64")
        self.cell_group, self.cell_level = c_group[order], c_level[order]
        self.err_mean, self.err_m2 = moments.err_mean[order], moments.err_m2[order]
        self.sq_mean, self.sq_m2 = moments.sq_mean[order], moments.sq_m2[order]
        # the largest |human|, |system| and |error| on the rows kept (rounding noise scales with them)
        largest_human = float(np.max(np.abs(moments.levels)))
        self.size = max(largest_human, moments.largest_system)
        self.largest_error = moments.largest_error


def _refuse_no_rows(moments: CellMoments, argument: str, human_name, system_name) -> None:
    """The error when no row has a numeric human and system score and a group: naming the
    column without any value when there is one."""
    why = "the score fairness analyses need at least one"
    if not moments.rows:
        raise InvalidInputError(f"The data has no rows (no usable rows): {why} response.")
    for which, name, count in (
        ("human", human_name, moments.n_human),
        ("system", system_name, moments.n_system),
    ):
        if not count:
            column = f"`{which}={plain(name)!r}`" if name is not None else f"`{which}`"
            raise InvalidInputError(
                f"{column} has no numeric value (all {moments.rows} rows are missing or not numbers), so no "
                f"row is usable: {why} numeric {which} score. Pass a column of scores, or convert it "
                f"with `pd.to_numeric`."
            )
    raise InvalidInputError(
        f"No response has a numeric human score, a numeric system score and a value in `{argument}`; {why}."
    )


def _check_width(k: int, n_levels: int, argument: str) -> None:
    """Refuse more than ``MAX_DESIGN_COLUMNS`` columns in the CSD design, naming the cause."""
    width = k + n_levels - 1
    if width <= MAX_DESIGN_COLUMNS:
        return
    if k >= n_levels:
        raise InvalidInputError(
            f"`{argument}` has {k} groups (and `human` {n_levels} distinct scores): the "
            f"score fairness models need one column per group and score, {width} in all (at most "
            f"{MAX_DESIGN_COLUMNS}). Pass a coarser group column (this one looks like an ID), or "
            "merge the small groups first, e.g. into 'other'."
        )
    raise InvalidInputError(
        f"`human` has {n_levels} distinct scores; the conditional score difference model treats "
        f"each as a category, which needs {width} columns (at most {MAX_DESIGN_COLUMNS}). "
        "Round the human scores (e.g. `np.rint`) or bin them first."
    )


def _compact(scores: Scores, codes: np.ndarray, uniques: np.ndarray, argument: str):
    """Group and level codes renumbered over the groups and scores of the rows kept.

    Used when the group column and the human score have too many distinct values in all for
    a table of every cell: the checks run on the rows kept first (and usually refuse them).
    """
    kept = (codes >= 0) & scores.valid
    group_counts = np.bincount(codes[kept], minlength=len(uniques))
    level_counts = np.bincount(scores.levels[kept], minlength=len(scores.level_values))
    groups, levels = np.flatnonzero(group_counts), np.flatnonzero(level_counts)
    _check_width(groups.size, levels.size, argument)
    group_lookup = np.full(len(uniques) + 1, -1, dtype=np.intp)  # last entry: -1 stays -1
    group_lookup[groups] = np.arange(groups.size)
    level_lookup = np.full(len(scores.level_values), -1, dtype=np.intp)
    level_lookup[levels] = np.arange(levels.size)
    level_codes = np.where(kept, level_lookup[scores.levels], -(2**40))
    return group_lookup[codes], uniques[groups], level_codes, scores.level_values[levels]


# --------------------------------------------------------------------------------------
# the analyses
# --------------------------------------------------------------------------------------
@table
def score_fairness_tables(frame, *, human, system, by, base_group=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fit the OSA, OSD and CSD models once per group column and return both result tables.

    Takes the arguments of :func:`score_fairness`. Returns ``(metrics, estimates)``: the
    tables of :func:`score_fairness` and :func:`score_fairness_estimates` (see those for the
    columns), from one pass over the rows; :func:`rsmtool_fairness_tables` lays them out as
    RSMTool's files.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.fairness import score_fairness_tables
    >>> df = pd.DataFrame({"sc1": [2, 3, 2, 3, 4, 3, 4, 2], "raw": [1.5, 2.5, 3, 3.5, 4, 3, 3.8, 2.4],
    ...                    "L1": ["K", "K", "E", "E", "E", "K", "E", "K"]})
    >>> metrics, estimates = score_fairness_tables(df, human="sc1", system="raw", by="L1")
    >>> metrics[["by", "model", "R2", "sig"]].round(3)
       by model     R2    sig
    0  L1   osa -0.088  0.536
    1  L1   osd  0.112  0.219
    2  L1   csd  0.693  0.052
    >>> estimates[["model", "term", "group", "estimate"]].head(2).round(2)
      model       term group  estimate
    0   osa  Intercept     E      0.32
    1   osa      group     K     -0.16
    """
    return _score_fairness_table(frame, human, system, by, base_group, None)


@dataclass(frozen=True)
class ScoreFairnessState(Additive):
    """The additive state of the score fairness tables: group column name -> its
    :class:`CellMoments`."""

    columns: dict


def score_fairness_state(human, system, by) -> ScoreFairnessState:
    """The :class:`ScoreFairnessState` of one chunk of rows (no warning; a chunk may have no
    row kept).

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.fairness.regression import score_fairness_from_state, score_fairness_state
    >>> df = pd.DataFrame({"sc1": [2, 3, 2, 3, 4, 3, 4, 2], "raw": [1.5, 2.5, 3, 3.5, 4, 3, 3.8, 2.4],
    ...                    "L1": ["K", "K", "E", "E", "E", "K", "E", "K"]})
    >>> first, second = (score_fairness_state(p["sc1"], p["raw"], p[["L1"]]) for p in (df[:5], df[5:]))
    >>> metrics, estimates = score_fairness_from_state(first.combine(second))
    >>> metrics[["model", "N", "R2"]].round(3)
      model  N     R2
    0   osa  8 -0.088
    1   osd  8  0.112
    2   csd  8  0.693
    """
    h, s = paired_arrays(human, system, ("human", "system"))
    columns = named_columns(by, h.size, "by", unnamed=UNNAMED_GROUP, rows_of="`human` has")
    check_group_names(columns, ())
    scores = Scores(h, s)
    return ScoreFairnessState(
        {series.name: cell_moments(scores, series.name, *encoded_groups(series)) for series in columns}
    )


def score_fairness_from_state(
    state: ScoreFairnessState, base_group=None, human_name=None, system_name=None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The ``(metrics, estimates)`` of :func:`score_fairness_tables` from the state of every row;
    the checks of the whole data (no row kept, the design's width, ``base_group`` present)
    and the warnings are raised here."""
    # every group column is checked before the first model is fitted
    inputs = [Cells(moments, base_group, human_name, system_name) for moments in state.columns.values()]
    n_rows = next(iter(state.columns.values())).rows
    return _tables(inputs, n_rows, human_name, system_name)


def score_fairness_state_of_codes(
    human: pd.Series, system: pd.Series, encoded: dict, buffers=None
) -> ScoreFairnessState:
    """:func:`score_fairness_state` of group columns already encoded (``encoded``: group column
    name -> ``(codes, labels)``, as :func:`score_fairness_tables_of_codes` takes them); ``buffers``
    (three float rows of at least the scores' size) are the work arrays."""
    h, s = paired_arrays(human, system, ("human", "system"))
    scores = Scores(h, s, buffers)
    return ScoreFairnessState(
        {
            name: cell_moments(scores, name, codes, np.asarray(labels, dtype=object))
            for name, (codes, labels) in encoded.items()
        }
    )


def score_fairness_tables_of_codes(human: pd.Series, system: pd.Series, encoded: dict, buffers=None) -> dict:
    """The tables of :func:`score_fairness_tables` (default reference group) of score arrays and
    group columns already encoded.

    ``encoded``: group column name -> ``(codes, labels)`` (codes ``0..k-1`` of the rows,
    ``-1`` for a missing group; ``labels`` the ``k`` group values in order), as
    ``report()`` encodes them once for every subgroup table. Returns name -> ``(metrics,
    estimates)``, the tables of each group column on its own. ``buffers`` (three float rows
    of at least the scores' size) are used as the work arrays.
    """
    h, s = paired_arrays(human, system, ("human", "system"))
    scores = Scores(h, s, buffers)
    inputs = [
        Cells(cell_moments(scores, name, codes, np.asarray(labels, dtype=object)), None)
        for name, (codes, labels) in encoded.items()
    ]
    return {one.name: _tables([one], h.size, human.name, system.name) for one in inputs}


def encoded_groups(series: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    codes, keys = group_codes([series], "by")
    return codes, np.asarray(keys.iloc[:, 0], dtype=object)


def _tables(inputs: list[Cells], n_rows: int, human_name, system_name) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The metrics and estimates tables of checked group columns, with their info."""
    for one in inputs:
        warn_excluded(one.rows_excluded, n_rows, one.excluded_because)
    metrics, estimates = zip(*(_analyse(one) for one in inputs))
    info = {
        "human": human_name,
        "system": system_name,
        "by": [one.name for one in inputs],
        "base_group": {one.name: one.labels[0] for one in inputs},
        "rows_used": {one.name: one.n for one in inputs},
        "rows_excluded": {one.name: one.rows_excluded for one in inputs},
        "human_levels": {one.name: one.n_levels for one in inputs},
    }
    return (
        attach_info(pd.concat(metrics, ignore_index=True), **info),
        attach_info(pd.concat(estimates, ignore_index=True), **info),
    )


def _analyse(one: Cells) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The metrics and estimates tables of one group column."""
    n_levels, labels, n = one.n_levels, one.labels, one.n
    k = len(labels)
    # rounding noise: the error's sums of squares are of numbers of the size of the scores, the
    # squared error's of |e| * (2 * size + |e|) (the rounding of e, magnified by squaring)
    tolerance = noise_tolerance(n, one.size)
    tolerance_squared = noise_tolerance(n, one.largest_error * (2.0 * one.size + one.largest_error))

    # cells: group x human score level
    c_n, c_group, c_level = one.cell_n, one.cell_group, one.cell_level
    err_mean, err_m2, sq_mean, sq_m2 = one.err_mean, one.err_m2, one.sq_mean, one.sq_m2

    # pooled statistics per group, per level and overall
    zeros = np.zeros(c_n.size, dtype="int64")
    gn, g_err_mean, g_err_m2 = pool(c_n, err_mean, err_m2, c_group, k)
    _, g_sq_mean, g_sq_m2 = pool(c_n, sq_mean, sq_m2, c_group, k)
    ln, l_err_mean, l_err_m2 = pool(c_n, err_mean, err_m2, c_level, n_levels)
    _, _, tss_err = pool(c_n, err_mean, err_m2, zeros, 1)
    _, _, tss_sq = pool(c_n, sq_mean, sq_m2, zeros, 1)

    group_design = treatment_design(np.arange(k), k)
    fits = {
        "osa": CellFit(group_design, gn, g_sq_mean, float(g_sq_m2.sum()), tss_sq[0], n, tolerance_squared),
        "osd": CellFit(group_design, gn, g_err_mean, float(g_err_m2.sum()), tss_err[0], n, tolerance),
        "csd": CellFit(
            treatment_design(c_group, k, c_level, n_levels),
            c_n,
            err_mean,
            float(err_m2.sum()),
            tss_err[0],
            n,
            tolerance,
        ),
    }
    null = CellFit(
        treatment_design(np.arange(n_levels), n_levels),
        ln,
        l_err_mean,
        float(l_err_m2.sum()),
        tss_err[0],
        n,
        tolerance,
    )

    # metrics table
    csd = fits["csd"]
    df_diff = null.df_resid - csd.df_resid
    # nested F-test (statsmodels' anova_lm): the extra sum of squares of the full model is
    # sum n_c (fitted_full - fitted_null)**2 over cells, the null fit being the level means
    null_fitted = null.fitted[c_level]
    ss_diff = float(np.sum(c_n * (csd.fitted - null_fitted) ** 2))
    if ss_diff <= tolerance:  # the groups add nothing, up to rounding
        ss_diff = 0.0
    # both sums of squares 0 up to rounding: the human score alone fits the error exactly
    csd_zero_by_zero = df_diff > 0 and not csd.constant and csd.ssr == 0 and ss_diff == 0
    with np.errstate(invalid="ignore", divide="ignore"):
        usable = df_diff > 0 and not csd.constant and not csd_zero_by_zero
        csd_f = ss_diff / df_diff / csd.scale if usable else np.nan
    csd_p = (
        float(special_functions(csd.df_resid, df_diff).fdtrc(df_diff, csd.df_resid, csd_f))
        if not np.isnan(csd_f)
        else np.nan
    )
    with np.errstate(invalid="ignore"):
        r2 = [fits["osa"].rsquared_adj, fits["osd"].rsquared_adj, csd.rsquared_adj - null.rsquared_adj]
        r2_plain = [fits["osa"].rsquared, fits["osd"].rsquared, csd.rsquared - null.rsquared]
    sig = [fits["osa"].f_pvalue, fits["osd"].f_pvalue, csd_p]
    metrics = result_table(
        {
            "by": [one.name] * 3,
            "model": list(_MODELS),
            "metric": [_METRIC_NAMES[name] for name in _MODELS],
            "base_category": [labels[0]] * 3,
            "N": [n] * 3,
            "R2": r2,
            "sig": sig,
            "F": [fits["osa"].fvalue, fits["osd"].fvalue, csd_f],
            "df_num": [fits["osa"].df_model, fits["osd"].df_model, df_diff],
            "df_denom": [fits["osa"].df_resid, fits["osd"].df_resid, csd.df_resid],
            "R2_unadjusted": r2_plain,
        },
        FAIRNESS_METRICS_COLUMNS,
        integer_columns=("N", "df_num", "df_denom"),
    )
    for column in ("by", "base_category"):
        metrics[column] = metrics[column].astype(object)

    # coefficient table
    pieces = []
    for name in _MODELS:
        coefficients = fits[name].coefficients(k)
        pieces.append(
            {
                "by": [one.name] * k,
                "model": [name] * k,
                "term": ["Intercept"] + ["group"] * (k - 1),
                "group": labels,
                "rsmtool_label": [_intercept_label(labels[0])]
                + [rsmtool_coefficient_label(v) for v in labels[1:]],
                "N": one.counts,
                **coefficients,
            }
        )
    estimates = result_table(
        {
            column: np.concatenate(
                [np.asarray(p[column], dtype=object if column in ("by", "group") else None) for p in pieces]
            )
            for column in FAIRNESS_ESTIMATES_COLUMNS
        },
        FAIRNESS_ESTIMATES_COLUMNS,
        integer_columns=("N",),
    )
    for column in ("estimate", "P>[t]", "[0.025", "0.975]"):
        estimates[column] = estimates[column].astype("float64")

    _warn_undefined_results(one, fits, csd_zero_by_zero, metrics)
    return metrics, estimates


def _warn_undefined_results(one: Cells, fits: dict, csd_zero_by_zero: bool, metrics: pd.DataFrame) -> None:
    k, n = len(one.labels), one.n
    argument = f"`by={plain(one.name)!r}`"
    if k < 2:
        warn_undefined(
            f"The score fairness tests need at least two groups, but every response is in group "
            f"{plain(one.labels[0])!r} of {argument}: `sig` is NaN. Pass a group column with two or more "
            "values."
        )
    elif fits["osd"].constant:
        warn_undefined(
            "The error (system - human) is the same for every response (up to rounding), so R2, F, "
            f"`sig` and the coefficient p-values and intervals by {plain(one.name)!r} are undefined (NaN)."
        )
    elif any(fit.df_resid <= 0 for fit in fits.values()):
        models = ", ".join(name.upper() for name, fit in fits.items() if fit.df_resid <= 0)
        warn_undefined(
            f"{argument} has {k} groups among {n} responses (and `human` {one.n_levels} distinct scores): "
            f"the {models} model has as many parameters as responses, so its R2, p-values and confidence "
            "intervals are NaN. Pass a coarser group column or merge the small groups first."
        )
    elif csd_zero_by_zero:
        warn_undefined(
            "The human score alone determines the error (system - human) exactly (up to rounding), so "
            f"the conditional score difference test by {plain(one.name)!r} compares 0 with 0: its F and "
            "`sig` are NaN."
        )
    elif metrics["sig"].isna().any() or metrics["R2"].isna().any():
        warn_undefined(
            f"Some score fairness statistics by {plain(one.name)!r} are undefined (NaN): the squared "
            "error is constant, or group membership is fully determined by the human score (no degrees "
            "of freedom for the conditional test). See `F`, `df_num` and `df_denom`."
        )
    if not fits["csd"].full_rank and k >= 2:
        warn_undefined(
            f"Group membership in {argument} is partly determined by the human score, so the "
            "conditional score difference coefficients are not unique (the minimum-norm "
            "solution is reported, as RSMTool's statsmodels fit does)."
        )


@table
def score_fairness(frame, *, human, system, by, base_group=None) -> pd.DataFrame:
    """Loukina et al.'s (2019) score fairness metrics, as RSMTool's ``fairness_metrics_by_<G>``.

    Three OLS regressions of the error ``e = system - human`` on group membership
    (treatment-coded, reference group first): overall score accuracy ``e**2 ~ group``,
    overall score difference ``e ~ group``, and conditional score difference
    ``e ~ group + C(human)`` compared with ``e ~ C(human)``.

    Parameters
    ----------
    frame : DataFrame
        The scored responses (pandas; dask and polars frames run the same table: the models
        are fitted once, from the moments of each group x human score cell of every chunk).
    human, system : str
        Columns of paired human and system scores (RSMTool uses the trimmed system score,
        ``raw_trim`` or ``scale_trim``). Rows where either is missing are left out, with an
        :class:`~pdmetrics.ExcludedRowsWarning`.
    by : str or list of str
        Group column(s) (any hashable values; labels containing dots, spaces or brackets are
        kept intact); each is analysed on its own, one block of three rows each. Rows with a
        missing label are left out.
    base_group : optional
        Reference group (for every group column). Default: the largest group, ties
        broken alphabetically.

    Returns
    -------
    pandas.DataFrame
        One row per group column and model: ``by`` (the group column's name, or
        ``"group"`` for unnamed labels), ``model`` (``osa``, ``osd``, ``csd``), ``metric``
        (RSMTool's name), ``base_category``, ``N`` (rows used), ``R2`` (RSMTool's ``R2``:
        the *adjusted* R2, which can be negative; for CSD the difference of the adjusted R2
        of the two models), ``sig`` (p-value of the model's F-test; for CSD of the nested
        F-test), ``F``, ``df_num``, ``df_denom`` (its statistic and degrees of freedom) and
        ``R2_unadjusted`` (the plain R2, or its difference for CSD). The p-values come
        from :mod:`pdmetrics.fairness.distributions` (no SciPy import) when the residual
        degrees of freedom are at most ``EXACT_DF_LIMIT`` (200,000) and the groups at most
        61, and from ``scipy.special`` otherwise.

    Raises
    ------
    InvalidInputError
        When ``base_group`` is not a group in the data, no row is usable, a group column
        holds lists or dicts, or the groups and human scores together need more than 2000
        columns of the CSD model (an ID-like group column, or unrounded human scores).

    Warns
    -----
    UndefinedMetricWarning
        When ``sig`` (or ``R2``) is undefined: a single group, as many groups (or group x
        score cells) as responses, an error ``system - human`` that is the same for every
        response, or a CSD test whose two models both fit the error exactly (0/0). Sums of
        squares below ``eps * N * scale**2`` (``scale`` the largest absolute score) are
        rounding noise and count as 0, so a constant error gives NaN, not a "significant"
        result made of rounding noise.

    See Also
    --------
    score_fairness_estimates : the coefficient tables of the same models.

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> df = pd.DataFrame({"sc1": [1, 2, 3, 4, 2, 3, 4, 5, 3, 3, 2, 4, 3],
    ...                    "raw": [1.2, 2.2, 2.9, 3.7, 2.5, 3.1, 3.6, 4.4, 3.3, 2.8, 2.1, 4.3, 3.0],
    ...                    "L1": ["big"] * 5 + ["x.y"] * 4 + ["z"] * 4})
    >>> table = df.fairness.score_fairness(human="sc1", system="raw", by="L1")
    >>> table[["by", "model", "base_category", "N", "R2", "sig"]].round(4)
       by model base_category   N      R2     sig
    0  L1   osa           big  13  0.0523  0.3072
    1  L1   osd           big  13 -0.0494  0.5115
    2  L1   csd           big  13 -0.2050  0.9523
    >>> pdmetrics.fairness.score_fairness(df, human="sc1", system="raw", by="L1")["N"].tolist()
    [13, 13, 13]
    """
    return _score_fairness_table(frame, human, system, by, base_group, 0)


@table
def score_fairness_estimates(frame, *, human, system, by, base_group=None) -> pd.DataFrame:
    """Coefficients of the score fairness models, as RSMTool's ``estimates_<model>_by_<G>``.

    Parameters are those of :func:`score_fairness`.

    Returns
    -------
    pandas.DataFrame
        One row per group column, model and group: ``by`` (the group column),
        ``model`` (``osa``, ``osd``, ``csd``), ``term``
        (``"Intercept"`` for the reference group, ``"group"`` for the others), ``group``
        (the full label), ``rsmtool_label`` (the row label RSMTool writes:
        ``"Intercept (<base>)"``, and group labels cut at their first ``"."``), ``N`` (rows
        in the group), ``estimate`` (the intercept: the reference group's mean of the
        response, at the reference human score for CSD; the others: difference from the
        reference group), ``P>[t]`` (two-sided t-test p-value), ``[0.025`` and ``0.975]``
        (95% confidence interval). Groups follow the category order (reference first,
        then by size, ties alphabetically).

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> df = pd.DataFrame({"sc1": [2, 3, 2, 3], "raw": [1, 1.5, 3, 3.5],
    ...                    "L1": ["Klingon", "Klingon", "Esperanto", "Esperanto"]})
    >>> table = df.fairness.score_fairness_estimates(human="sc1", system="raw", by="L1")
    >>> table[["model", "term", "group", "estimate"]].round(4)
      model       term      group  estimate
    0   osa  Intercept  Esperanto     0.625
    1   osa      group    Klingon     1.000
    2   osd  Intercept  Esperanto     0.750
    3   osd      group    Klingon    -2.000
    4   csd  Intercept  Esperanto     1.000
    5   csd      group    Klingon    -2.000
    >>> table = pdmetrics.fairness.score_fairness_estimates(df, human="sc1", system="raw", by="L1")
    >>> table.loc[table["model"] == "osd", ["group", "rsmtool_label", "estimate"]]
           group          rsmtool_label  estimate
    2  Esperanto  Intercept (Esperanto)      0.75
    3    Klingon                Klingon     -2.00
    """
    return _score_fairness_table(frame, human, system, by, base_group, 1)


def _score_fairness_table(frame, human, system, by, base_group, which: int | None):
    """The spec of :func:`score_fairness` (``which=0``), :func:`score_fairness_estimates` (1) or
    :func:`score_fairness_tables` (None: both)."""
    columns = {
        "human": one_name(frame, "human", human),
        "system": one_name(frame, "system", system),
        "by": require_columns(frame, "by", by),
    }
    finalize = partial(
        _one_of_the_tables,
        which=which,
        base_group=base_group,
        human=columns["human"],
        system=columns["system"],
    )
    return column_table(score_fairness_state, columns, {}, finalize)


def _one_of_the_tables(state: ScoreFairnessState, which: int | None, base_group, human, system):
    tables = score_fairness_from_state(state, base_group, human, system)
    return tables if which is None else tables[which]


def rsmtool_fairness_tables(
    metrics: pd.DataFrame, estimates: pd.DataFrame, group_name: Hashable, labels: str = "rsmtool"
) -> dict[str, pd.DataFrame]:
    """Lay the score fairness tables out as RSMTool writes its files.

    Parameters
    ----------
    metrics, estimates : pandas.DataFrame
        Results of :func:`score_fairness` and :func:`score_fairness_estimates` (or of
        :func:`score_fairness_tables`).
    group_name : str
        Name of the group column: the table names use it, and when the tables hold
        several group columns (``by``) the rows of this one are laid out.
    labels : {"rsmtool", "full"}, default "rsmtool"
        Row labels of the coefficient tables: RSMTool's (group labels cut at their first
        ``"."``) or the full group labels.

    Returns
    -------
    dict of pandas.DataFrame
        ``fairness_metrics_by_<G>`` (index ``R2``, ``sig``; columns the three metric names
        and ``base_category``) and ``estimates_{osa,osd,csd}_by_<G>`` (index the
        coefficient labels; columns ``estimate, P>[t], [0.025, 0.975]``). Write them with
        ``frame.to_csv(path)`` (index included) to get RSMTool's files.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.fairness import score_fairness_tables, rsmtool_fairness_tables
    >>> df = pd.DataFrame({"sc1": [2, 3, 2, 3, 4], "raw": [1, 1.5, 3, 3.5, 4],
    ...                    "L1": ["K", "K", "E", "E", "E"]})
    >>> metrics, estimates = score_fairness_tables(df, human="sc1", system="raw", by="L1")
    >>> tables = rsmtool_fairness_tables(metrics, estimates, "L1")
    >>> sorted(tables)
    ['estimates_csd_by_L1', 'estimates_osa_by_L1', 'estimates_osd_by_L1', 'fairness_metrics_by_L1']
    >>> tables["estimates_osd_by_L1"].index.tolist()
    ['Intercept (E)', 'K']
    """
    if labels not in ("rsmtool", "full"):
        raise InvalidInputError(f"labels={labels!r}: use 'rsmtool' (RSMTool's row labels) or 'full'.")
    if "by" in metrics.columns and metrics["by"].nunique(dropna=False) > 1:
        if not (metrics["by"] == group_name).any():
            raise InvalidInputError(
                f"`group_name={plain(group_name)!r}` is not one of the group columns of the tables "
                f"({preview(pd.unique(metrics['by']), 10)}); pass one of them."
            )
        metrics = metrics[metrics["by"] == group_name]
        estimates = estimates[estimates["by"] == group_name]
    layout = metrics.set_index("metric")[["R2", "sig"]].T
    layout = layout[[_METRIC_NAMES[name] for name in _MODELS]]
    layout.columns.name = None
    layout["base_category"] = metrics["base_category"].iat[0]
    tables = {}
    for name in _MODELS:
        part = estimates[estimates["model"] == name]
        if labels == "rsmtool":
            index = part["rsmtool_label"].tolist()
        else:
            index = [
                _intercept_label(g) if t == "Intercept" else _readable(g)
                for t, g in zip(part["term"], part["group"])
            ]
        frame = part[["estimate", "P>[t]", "[0.025", "0.975]"]].copy()
        frame.index = pd.Index(index, dtype=object)
        tables[f"estimates_{name}_by_{group_name}"] = frame
    tables[f"fairness_metrics_by_{group_name}"] = layout
    return tables
