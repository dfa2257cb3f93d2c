"""Per-subgroup evaluation tables: RSMTool's ``eval_by_<G>`` and ``consistency_by_<G>``.

Every group of every ``by`` column is evaluated in the same vectorized pass (bincounts over
the group codes), plus a row pooling the whole evaluation set, labelled ``"(all)"``
(:data:`pdmetrics._groups.POOLED_LABEL`; RSMTool's files call it "All data"). Subgroup
differences are measured with the difference of standardized means (DSM), which z-scores
both sides with the means and SDs of the whole evaluation set.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdmetrics._groups import POOLED_LABEL, check_not_pooled, check_one_kind, group_codes
from pdmetrics._stats import Moments
from pdmetrics._tables import result_table
from pdmetrics._warnings import warn_undefined
from pdmetrics.errors import InvalidInputError
from pdmetrics.scoring.metrics import (
    PairStatistics,
    agreement_metrics,
    dsm_from_means,
    kappa_labels,
    pair_statistics,
    pair_statistics_many,
    work_buffers,
)
from pdmetrics.scoring.scored_rows import (
    CONSISTENCY_COLUMNS,
    EVAL_COLUMNS,
)

__all__ = ["MISSING_GROUP"]

#: Label given to rows whose group value is missing (RSMTool's label for empty values).
MISSING_GROUP = "No info"


def subgroup_codes(series: pd.Series, mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each used row's group code ``0..k-1`` and the ``k`` group labels of a subgroup column.

    ``mask`` selects the used rows (all rows when None); only the groups present on them
    are kept, in sorted order (category order for a categorical). Rows whose value is
    missing, empty or only whitespace form RSMTool's group ``"No info"`` (the last group,
    unless the column already has that value), as RSMTool reads its subgroup columns. A value
    equal to the pooled row's label ``"(all)"`` is refused.

    >>> import pandas as pd
    >>> codes, labels = subgroup_codes(pd.Series(["b", " ", None, "a", ""]))
    >>> codes.tolist(), labels.tolist()
    ([1, 2, 2, 0, 2], ['a', 'b', 'No info'])
    """
    codes, keys = group_codes([series], "by")
    labels = keys.iloc[:, 0].to_numpy(dtype=object)
    check_not_pooled(labels, "by")
    if mask is not None and not mask.all():
        codes = codes[mask]
        present = np.bincount(codes[codes >= 0], minlength=labels.size) > 0
        if not present.all():
            lookup = np.cumsum(present) - 1
            codes = np.where(codes >= 0, lookup[np.maximum(codes, 0)], -1)
            labels = labels[present]
    blank = np.fromiter((isinstance(v, str) and not v.strip() for v in labels), bool, labels.size)
    if blank.any():  # blank labels join the missing values (few labels: a loop over labels)
        lookup = np.where(blank, -1, np.cumsum(~blank) - 1)
        codes = np.where(codes >= 0, lookup[np.maximum(codes, 0)], -1)
        labels = labels[~blank]
    missing = codes < 0
    if missing.any():
        known = np.flatnonzero(labels == MISSING_GROUP)
        if len(known) == 0:
            labels = np.append(labels, np.array([MISSING_GROUP], dtype=object))
        codes = np.where(missing, known[0] if len(known) else labels.size - 1, codes)
    return codes, labels


#: Most combinations of groups evaluated in one pass (beyond it, one pass per group column).
_MAX_CELLS = 1 << 16


def _cells(encoded: list[tuple[np.ndarray, np.ndarray]]) -> list[tuple[np.ndarray, int, list]]:
    """Passes over the rows: ``(cell codes, number of cells, maps)``, with per group column
    its ``(cell -> group map, number of groups)`` (map None: the cells are its groups).

    A cell is a combination of groups present (one per group column), so one pass of
    statistics over the cells serves every group column and the pooled row; when the
    combinations are too many, each column is its own pass.
    """
    sizes = [labels.size for _, labels in encoded]
    if len(encoded) > 1 and float(np.prod(sizes, dtype=np.float64)) <= _MAX_CELLS:
        total = int(np.prod(sizes))
        # built in place in the one intp array that becomes the cell codes (bincount needs intp)
        combined = np.zeros(encoded[0][0].size, dtype=np.intp)
        for (codes, _), size in zip(encoded, sizes):
            combined *= size
            combined += codes
        present = np.flatnonzero(np.bincount(combined, minlength=total))
        lookup = np.full(total, -1, dtype=np.intp)
        lookup[present] = np.arange(present.size, dtype=np.intp)
        maps, rest = [], present
        for size in reversed(sizes):
            maps.append((rest % size, size))
            rest = rest // size
        # each combination's cell code, in place (every combination is in range)
        return [(np.take(lookup, combined, out=combined, mode="clip"), present.size, maps[::-1])]
    return [(codes, size, [(None, size)]) for (codes, _), size in zip(encoded, sizes)]


def group_passes(encoded: dict) -> list[tuple[np.ndarray, int, list]]:
    """The passes over the rows for the group columns ``encoded`` (name -> ``subgroup_codes``),
    as :func:`grouped_evaluation` and :func:`grouped_consistency` make them: computed once,
    they serve both."""
    return _cells(list(encoded.values()))


def _merge_cells(stats: PairStatistics, groups: np.ndarray, n_groups: int) -> PairStatistics:
    """The statistics of groups of cells (``groups[c]`` is cell c's group), merged exactly:
    counts and sums add, centred moments add with the between-cell term (Chan et al.)."""
    m = stats.moments

    def total(values):
        return np.bincount(groups, weights=values, minlength=n_groups)

    n = np.bincount(groups, weights=m.n, minlength=n_groups).astype("int64")
    filled = m.n > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_x = total(np.where(filled, m.mean_x * m.n, 0.0)) / n
        mean_y = total(np.where(filled, m.mean_y * m.n, 0.0)) / n
        dx = np.where(filled, m.mean_x - mean_x[groups], 0.0)
        dy = np.where(filled, m.mean_y - mean_y[groups], 0.0)
    low = np.full((4, n_groups), np.inf)
    high = np.full((4, n_groups), -np.inf)
    np.fmin.at(low[0], groups, stats.h_min)
    np.fmax.at(high[0], groups, stats.h_max)
    np.fmin.at(low[1], groups, stats.s_min)
    np.fmax.at(high[1], groups, stats.s_max)
    empty = n == 0
    low[:, empty] = np.nan
    high[:, empty] = np.nan
    moments = Moments(
        n,
        mean_x,
        mean_y,
        total(m.m2_x + m.n * dx * dx),
        total(m.m2_y + m.n * dy * dy),
        total(m.c_xy + m.n * dx * dy),
    )
    hist_h = np.zeros((n_groups, stats.hist_h.shape[1]), dtype=stats.hist_h.dtype)
    hist_s = np.zeros((n_groups, stats.hist_s.shape[1]), dtype=stats.hist_s.dtype)
    np.add.at(hist_h, groups, stats.hist_h)
    np.add.at(hist_s, groups, stats.hist_s)

    def count(values):
        return total(values).astype("int64")

    return PairStatistics(
        moments,
        low[0],
        high[0],
        low[1],
        high[1],
        total(stats.sse),
        count(stats.n_exact),
        count(stats.n_adjacent),
        hist_h,
        hist_s,
        count(stats.n_same_label),
        stats.hist_labels,
    )


@dataclass(frozen=True)
class GroupStatistics:
    """The groups of one subgroup column: their labels and, per score column, their
    :class:`PairStatistics` (one entry per label).

    Statistics of disjoint row sets combine with :meth:`combine`, aligned on the labels (a
    group may be present in one set only); :meth:`in_order` then sorts the groups as
    :func:`subgroup_codes` does. ``missing_last`` says that a ``"No info"`` group holds only
    missing values (so it sorts last) and ``dtype`` is the column's (its sort order).
    """

    labels: np.ndarray
    statistics: dict
    missing_last: bool = True
    dtype: object = None
    name: object = None

    def combine(self, other: GroupStatistics) -> GroupStatistics:
        """The groups of the union of two disjoint row sets."""
        mine = pd.Index(self.labels, dtype=object)
        theirs = pd.Index(other.labels, dtype=object)
        if len(mine) and len(theirs):  # before 1 and True (hash-equal) are taken for one group
            both = np.concatenate([self._present_labels(), other._present_labels()])
            check_one_kind(pd.Series(both, dtype=object, name=self.name), "by", rows=False)
        labels = mine.append(theirs[~theirs.isin(mine)])
        n = labels.size
        at_mine, at_theirs = labels.get_indexer(mine), labels.get_indexer(theirs)
        statistics = {
            name: stats.placed(at_mine, n).combine(other.statistics[name].placed(at_theirs, n))
            for name, stats in self.statistics.items()
        }
        return GroupStatistics(
            labels.to_numpy(dtype=object),
            statistics,
            self.missing_last and other.missing_last,
            self.dtype,
            self.name,
        )

    def _present_labels(self) -> np.ndarray:
        """The labels, without ``"No info"`` when it holds only missing values."""
        return self.labels[~(self.missing_last & (self.labels == MISSING_GROUP))]

    def in_order(self) -> GroupStatistics:
        """The groups sorted as :func:`subgroup_codes` sorts a column's groups."""
        labels = self.labels
        last = self.missing_last & (labels == MISSING_GROUP)
        present = pd.Series(labels[~last], dtype=self.dtype, name=self.name)
        check_one_kind(present, "by", rows=False)  # groups of several partitions together
        _, ordered = subgroup_codes(present)
        ordered = np.concatenate([ordered, labels[last]])
        positions = pd.Index(labels, dtype=object).get_indexer(ordered)
        at = np.argsort(positions)
        statistics = {name: stats.placed(at, labels.size) for name, stats in self.statistics.items()}
        return GroupStatistics(ordered, statistics, self.missing_last, self.dtype, self.name)


def _grouped_statistics(
    h, systems: dict, passes, rows=None, human_labels=None, system_labels=None, buffers=None
) -> dict:
    """Pair statistics of every group of every group column, per system column (name -> one
    entry per group column).

    ``rows`` (a mask) restricts the statistics to some of the rows the cells were coded on;
    ``buffers``: the work arrays (``work_buffers``), shared by the passes.
    """
    by_column = {name: [] for name in systems}
    for cells, n_cells, maps in passes:
        codes = cells if rows is None else cells[rows]
        statistics = pair_statistics_many(h, systems, codes, n_cells, human_labels, system_labels, buffers)
        for name, stats in statistics.items():
            by_column[name] += [
                stats if groups is None else _merge_cells(stats, groups, size) for groups, size in maps
            ]
    return by_column


def _consistency_metrics(stats: PairStatistics, h1_mean, h1_sd, h2_mean, h2_sd) -> dict:
    """Human-human agreement (pooled SMD) named ``h1_*``/``h2_*``, and DSM."""
    m = agreement_metrics(stats, smd_method="pooled")
    m = {name.replace("h_", "h1_").replace("sys_", "h2_"): value for name, value in m.items()}
    m["DSM"] = dsm_from_means(m["h1_mean"], m["h2_mean"], m["N"], h1_mean, h1_sd, h2_mean, h2_sd)
    return m


def mean_and_sd(values: np.ndarray, buffer: np.ndarray | None = None) -> tuple[float, float]:
    """Mean and SD (``ddof=1``) of the finite values: the whole set's, for DSM.

    The same sums as ``values.mean()`` and ``np.std(values, ddof=1)``; ``buffer`` (a float
    array of at least ``values``' size) holds the squared deviations instead of a new array.
    """
    total = np.add.reduce(values)  # finite unless a value is not: then those are left out
    if not np.isfinite(total):
        values = values[np.isfinite(values)]
        total = np.add.reduce(values)
    n = values.size
    if n < 2:
        return (float(total / n) if n else np.nan), np.nan
    mean = total / n
    squares = np.subtract(values, mean, out=None if buffer is None else buffer[:n])
    np.multiply(squares, squares, out=squares)
    return float(mean), float(np.sqrt(np.add.reduce(squares) / (n - 1)))


def _stack(overall: dict, by_group: dict, columns) -> dict:
    return {c: np.concatenate([np.atleast_1d(overall[c]), by_group[c]]) for c in columns}


def check_lengths(reference: np.ndarray, named: dict[str, np.ndarray]) -> None:
    for name, values in named.items():
        if len(values) != reference.size:
            raise InvalidInputError(
                f"Column {name!r} has {len(values)} values but the human scores have "
                f"{reference.size}; pass columns of the same frame."
            )


def _warn_nan_cells(table: pd.DataFrame, metrics) -> None:
    nan = table[[m for m in metrics if m != "N"]].isna() & (table["N"] > 0).to_numpy()[:, None]
    if nan.to_numpy().any():
        counts = nan.sum()
        listed = ", ".join(f"{name} ({int(n)})" for name, n in counts[counts > 0].items())
        warn_undefined(
            f"Some subgroup metrics are undefined and are NaN (groups with one response or "
            f"constant scores, or a whole-set SD of zero for DSM): {listed} rows. They stay NaN, "
            f"as in RSMTool's tables (no option changes them): merge or drop the small groups, or "
            f"fill the cells, e.g. `table.fillna({{'corr': 0}})`."
        )


def grouped_evaluation(
    h, systems: dict, encoded: dict, human_labels, system_labels=None, pooled=None, buffers=None, passes=None
):
    """The ``eval_by`` rows of finite paired scores, every group column in one pass per score column.

    ``systems``: name -> scores; ``encoded``: group column -> ``subgroup_codes``. The system
    score labels (name -> ``kappa_labels``), the whole set's statistics (name ->
    :class:`PairStatistics`, the ``eval`` table's) and the work arrays (``work_buffers``)
    are reused when given, and so are the ``passes`` over the rows (``group_passes(encoded)``).
    """
    pooled, groups = grouped_statistics(
        h, systems, encoded, human_labels, system_labels, pooled, buffers, passes
    )
    return grouped_evaluation_table(pooled, groups)


def grouped_statistics(
    h, systems: dict, encoded: dict, human_labels, system_labels=None, pooled=None, buffers=None, passes=None
) -> tuple[dict, dict]:
    """The statistics behind :func:`grouped_evaluation`: the whole set's (score column ->
    :class:`PairStatistics`) and each group column's (name -> :class:`GroupStatistics`)."""
    if buffers is None:
        buffers = work_buffers(h.size)
    passes = group_passes(encoded) if passes is None else passes
    if system_labels is None:
        system_labels = {name: kappa_labels(s, "system") for name, s in systems.items()}
    if not pooled:
        # the pooled row in its own pass: sums over all rows are pairwise (more accurate than bincount's)
        pooled = pair_statistics_many(
            h, systems, human_labels=human_labels, system_labels=system_labels, buffers=buffers
        )
    grouped = _grouped_statistics(
        h, systems, passes, human_labels=human_labels, system_labels=system_labels, buffers=buffers
    )
    groups = {
        by: GroupStatistics(labels, {name: grouped[name][i] for name in systems})
        for i, (by, (_, labels)) in enumerate(encoded.items())
    }
    return pooled, groups


def grouped_evaluation_table(pooled: dict, groups: dict) -> pd.DataFrame:
    """The ``eval_by`` rows from the whole set's statistics (score column ->
    :class:`PairStatistics`) and each group column's (name -> :class:`GroupStatistics`).

    DSM standardizes both sides with the whole set's mean and SD (``ddof=1``)."""
    columns = [*EVAL_COLUMNS, "DSM"]
    parts = {by: [] for by in groups}
    for name, whole in pooled.items():  # a handful of score columns
        overall = agreement_metrics(whole)
        h_mean, s_mean = overall["h_mean"][0], overall["sys_mean"][0]
        h_sd, s_sd = overall["h_sd"][0], overall["sys_sd"][0]
        for by, group in groups.items():
            metrics = [overall, agreement_metrics(group.statistics[name])]
            for m in metrics:
                m["DSM"] = dsm_from_means(m["h_mean"], m["sys_mean"], m["N"], h_mean, h_sd, s_mean, s_sd)
            parts[by].append(
                pd.DataFrame(
                    {
                        "system": name,
                        "by": by,
                        "group": np.concatenate([np.array([POOLED_LABEL], dtype=object), group.labels]),
                        **_stack(metrics[0], metrics[1], columns),
                    }
                )
            )
    parts = [part for by in groups for part in parts[by]]
    table = result_table(pd.concat(parts, ignore_index=True), integer_columns=["N"])
    _warn_nan_cells(table, columns)
    return table


def grouped_consistency(
    h1, h2, in_double, encoded: dict, population, pooled=None, labels=(None, None), buffers=None, passes=None
):
    """The ``consistency_by`` rows of the double-scored responses' scores ``h1``, ``h2``.

    ``in_double`` marks them among the rows ``encoded`` (group column -> ``subgroup_codes``)
    was coded on; ``population`` is ``(h1_mean, h1_sd, h2_mean, h2_sd)`` for DSM. The
    whole set's statistics (the ``consistency`` table's) and the score labels
    (``kappa_labels`` of ``h1``, ``h2``) and the work arrays (``work_buffers``) are reused
    when given, and so are the ``passes`` over the rows (``group_passes(encoded)``).
    """
    pooled, groups = grouped_consistency_statistics(
        h1, h2, in_double, encoded, pooled, labels, buffers, passes
    )
    return grouped_consistency_table(pooled, groups, population)


def grouped_consistency_statistics(
    h1, h2, in_double, encoded: dict, pooled=None, labels=(None, None), buffers=None, passes=None
) -> tuple[PairStatistics, dict]:
    """The statistics behind :func:`grouped_consistency`: the double-scored responses'
    :class:`PairStatistics` and each group column's :class:`GroupStatistics` (one score
    column, key 0; groups without a double-scored response have no rows)."""
    h1_labels, h2_labels = labels
    if pooled is None:
        pooled = pair_statistics(h1, h2, human_labels=h1_labels, system_labels=h2_labels, buffers=buffers)
    passes = group_passes(encoded) if passes is None else passes
    by_column = _grouped_statistics(
        h1, {0: h2}, passes, in_double, h1_labels, None if h2_labels is None else {0: h2_labels}, buffers
    )[0]
    groups = {
        by: GroupStatistics(labels, {0: stats})
        for (by, (_, labels)), stats in zip(encoded.items(), by_column)
    }
    return pooled, groups


def grouped_consistency_table(pooled: PairStatistics, groups: dict, population) -> pd.DataFrame:
    """The ``consistency_by`` rows from the double-scored responses' statistics and each group
    column's :class:`GroupStatistics`; ``population`` is ``(h1_mean, h1_sd, h2_mean, h2_sd)``."""
    columns = [*CONSISTENCY_COLUMNS, "DSM"]
    overall = _consistency_metrics(pooled, *population)
    parts = []
    for by, group in groups.items():
        grouped = _consistency_metrics(group.statistics[0], *population)
        parts.append(
            pd.DataFrame(
                {
                    "by": by,
                    "group": np.concatenate([np.array([POOLED_LABEL], dtype=object), group.labels]),
                    **_stack(overall, grouped, columns),
                }
            )
        )
    table = result_table(pd.concat(parts, ignore_index=True), integer_columns=["N"])
    _warn_nan_cells(table, columns)
    return table
