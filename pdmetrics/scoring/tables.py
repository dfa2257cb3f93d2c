"""RSMTool's evaluation tables from score columns: ``eval``, ``consistency``, ``confMatrix``
and ``score_dist``.

Each table is a spec (:mod:`pdmetrics._table_spec`): the public function takes the frame and the
column names, ``df.scoring.<table>(...)`` is the same function on the accessor's frame, and dask
and polars frames run the same spec. Rows whose human or system
score is missing or not numeric are left out, as are human scores of 0 when
``exclude_zero=True`` (RSMTool's preprocessing); what was left out is recorded in
``table.attrs["pdmetrics"]`` and rows left out for missing scores raise an
:class:`~pdmetrics.ExcludedRowsWarning`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._docstrings import fill
from pdmetrics._stats import label_counts, label_index
from pdmetrics._table_spec import Table, table
from pdmetrics._tables import attach_info, result_table
from pdmetrics._validation import numeric_values, plain
from pdmetrics.errors import InvalidInputError
from pdmetrics.scoring.metrics import kappa_labels
from pdmetrics.scoring.scored_rows import (
    CONSISTENCY_COLUMNS,
    EVAL_COLUMNS,
    SCORE_PAIR_PARAMETERS,
    RowCounts,
    ScoredRows,
    check_whole_columns,
    numeric_count,
    score_columns,
    select_scored_rows,
)
from pdmetrics.scoring.table_states import (
    consistency_from_state,
    consistency_state,
    evaluation_from_state,
    evaluation_state,
)

__all__ = [
    "EVAL_COLUMNS",
    "CONSISTENCY_COLUMNS",
    "evaluate",
    "consistency",
    "confusion_matrix",
    "score_distribution",
]


def score_arrays(human: pd.Series, systems: dict) -> tuple[np.ndarray, dict]:
    """The human and system scores as float arrays of equal length (``require_scores`` checks
    that none is all missing)."""
    h = numeric_values(human, "human")
    values = {name: numeric_values(series, "system") for name, series in systems.items()}
    for name, array in values.items():
        if array.size != h.size:
            raise InvalidInputError(
                f"System column {plain(name)!r} has {array.size} values but the human scores "
                f"have {h.size}; pass paired scores."
            )
    return h, values


# --------------------------------------------------------------------------------------
# tables
# --------------------------------------------------------------------------------------
@table
def evaluate(frame, *, human, system, by=None, exclude_zero: bool = True):
    """RSMTool's ``eval`` table: agreement of each system score column with the human scores.

    Parameters
    ----------
    frame : DataFrame
        The scored responses (pandas; dask and polars frames run the same table).
    human : str
        Human score column. Missing or non-numeric entries are left out, as are zeros when
        ``exclude_zero`` is true.
    system : str or list of str
        System score column(s), one table row each. A row missing any system score is left
        out of every row of the table (listwise), so all system columns are evaluated on the
        same responses, as in RSMTool. The ``human`` column is refused here (it would agree
        perfectly with itself).
    by : str or list of str, optional
        Subgroup column(s): evaluate every group of each (RSMTool's ``eval_by_<G>``), with an
        "(all)" row and the difference of standardized means ``DSM``; see
        :func:`pdmetrics.scoring.evaluation_by_group_table`.
    exclude_zero : bool, default True
        Leave out responses with a human score of 0 (RSMTool's ``exclude_zero_scores``).

    Returns
    -------
    pandas.DataFrame
        One row per system column: ``system`` (the column name), then RSMTool's columns
        ``N, h_mean, h_sd, h_min, h_max, sys_mean, sys_sd, sys_min, sys_max, corr, wtkappa,
        R2, kappa, exact_agr, adj_agr, SMD, RMSE``. With ``by``: ``system, by, group``, the
        same metrics and ``DSM``. Rows with a missing or non-numeric score (or a human score
        of 0, with ``exclude_zero=True``) are left out, with an
        :class:`~pdmetrics.ExcludedRowsWarning`; ``attrs["pdmetrics"]`` records the rows used
        and left out.

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> df = pd.DataFrame({"sc1": [1, 2, 3, 4, 5, 3],
    ...                    "raw": [1.4, 2.2, 2.6, 4.5, 4.4, 3.5]})
    >>> table = (df.scoring.postprocess(system="raw", trim_min=1, trim_max=5)
    ...            .scoring.evaluate(human="sc1", system=["raw", "raw_trim_round"]))
    >>> table[["system", "N", "corr", "wtkappa", "exact_agr", "SMD"]].round(3)
               system  N   corr  wtkappa  exact_agr    SMD
    0             raw  6  0.942    0.932      0.000  0.071
    1  raw_trim_round  6  0.894    0.889     66.667  0.000

    The function takes the frame first and the accessor's keywords:

    >>> pdmetrics.scoring.evaluate(df, human="sc1", system="raw")[["N", "kappa"]].round(4)
       N   kappa
    0  6  0.5862
    """
    names = score_columns(frame, exclude_zero, human=human, system=system, by=by)
    human, systems, groups = names["human"], names["system"], names["by"]
    return Table(
        [human, *systems, *groups],
        partial(_evaluation_chunk, human, systems, groups, exclude_zero),
        partial(evaluation_from_state, human_name=human, exclude_zero=exclude_zero),
    )


def _evaluation_chunk(human, systems: list, groups: list, exclude_zero: bool, part):
    by = {name: part[name] for name in groups} or None
    return evaluation_state(part[human], {name: part[name] for name in systems}, by, exclude_zero)


@table
def consistency(frame, *, human, second_human, by=None, exclude_zero: bool = True):
    """RSMTool's ``consistency`` table: agreement between two human raters.

    Computed on the double-scored responses: both scores numeric (and non-zero when
    ``exclude_zero``). The SMD uses the pooled SD of both raters,
    ``(mean(h2) - mean(h1)) / sqrt((sd_h1**2 + sd_h2**2) / 2)``. With ``by`` (subgroup
    column(s)), one row per group of each plus "(all)", with ``DSM`` (RSMTool's
    ``consistency_by_<G>``; see :func:`pdmetrics.scoring.consistency_by_group_table`).

    Parameters
    ----------
    frame : DataFrame
        The scored responses.
    human, second_human : str
        First and second human score columns.
    by : str or list of str, optional
        Subgroup column(s).
    exclude_zero : bool, default True
        Leave out human scores of 0.

    Returns
    -------
    pandas.DataFrame
        One row: ``human``, ``second_human`` (the column names), then ``N, h1_mean, h1_sd,
        h1_min, h1_max, h2_mean, h2_sd, h2_min, h2_max, corr, wtkappa, kappa, exact_agr,
        adj_agr, SMD``.

    Raises
    ------
    InvalidInputError
        When no response is double-scored, or both arguments name the same column.

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> df = pd.DataFrame({"sc1": [1, 2, 3, 4, 5, 3], "sc2": [1, 3, 3, 4, 4, None]})
    >>> table = df.scoring.consistency(human="sc1", second_human="sc2")
    >>> table[["N", "corr", "kappa", "exact_agr", "SMD"]].round(4)
       N    corr  kappa  exact_agr  SMD
    0  5  0.9037    0.5       60.0  0.0
    """
    names = score_columns(frame, exclude_zero, human=human, second_human=second_human, by=by)
    human, second, groups = names["human"], names["second_human"], names["by"]
    return Table(
        [human, second, *groups],
        partial(_consistency_chunk, human, second, groups, exclude_zero),
        partial(consistency_from_state, human_name=human, second_name=second, exclude_zero=exclude_zero),
    )


def _consistency_chunk(human, second, groups: list, exclude_zero: bool, part):
    by = {name: part[name] for name in groups} or None
    return consistency_state(part[human], part[second], exclude_zero, by)


@dataclass(frozen=True)
class ScorePairState:
    """Counts of the rounded (human, system) score pairs of each system column over some rows:
    the additive state of :func:`confusion_matrix` and :func:`score_distribution`.

    ``labels[name]`` are the sorted score points seen on either side and ``counts[name][i, j]``
    the responses with human score ``labels[i]`` and system score ``labels[j]``. States of
    disjoint row sets combine with :meth:`combine` (aligned on the score points).
    """

    rows: RowCounts
    human_numeric: tuple
    system_numeric: dict
    labels: dict
    counts: dict

    def combine(self, other: ScorePairState) -> ScorePairState:
        labels, counts = {}, {}
        for name, mine in self.labels.items():
            theirs = other.labels[name]
            labels[name] = union = np.union1d(mine, theirs)
            counts[name] = _on_points(self.counts[name], mine, union) + _on_points(
                other.counts[name], theirs, union
            )
        return ScorePairState(
            self.rows.combine(other.rows),
            tuple(a + b for a, b in zip(self.human_numeric, other.human_numeric)),
            {
                name: tuple(a + b for a, b in zip(count, other.system_numeric[name]))
                for name, count in self.system_numeric.items()
            },
            labels,
            counts,
        )


def _on_points(counts: np.ndarray, labels: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Pair counts over ``labels`` placed in the matrix over the sorted superset ``points``."""
    out = np.zeros((points.size, points.size), dtype="int64")
    at = np.searchsorted(points, labels)
    out[np.ix_(at, at)] = counts
    return out


def pair_counts(
    h: np.ndarray, s: np.ndarray, buffer: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The score points seen in integer labels ``h`` or ``s`` and the (human, system) pair counts.

    ``buffer`` (an ``intp`` array of at least ``h``'s size) is the work array."""
    labels, (ih, js) = label_index(h, s, out=buffer)
    n_labels = labels.size
    # the positions may be narrow integers
    pairs = np.multiply(ih, n_labels, dtype=np.intp, out=None if buffer is None else buffer[: ih.size])
    pairs += js
    return labels, np.bincount(pairs, minlength=n_labels * n_labels).reshape(n_labels, n_labels)


def score_pair_state(human: pd.Series, systems: dict, exclude_zero: bool) -> ScorePairState:
    """The :class:`ScorePairState` of one chunk of rows (named Series in; no warning raised)."""
    h, values = score_arrays(human, systems)
    rows = select_scored_rows(h, list(values.values()), exclude_zero)
    h_round = kappa_labels(h[rows.mask], "human")
    labels, counts = {}, {}
    for name, v in values.items():
        labels[name], counts[name] = pair_counts(h_round, kappa_labels(v[rows.mask], repr(plain(name))))
    numeric = {name: numeric_count(v) for name, v in values.items()}
    return ScorePairState(rows.counts(), numeric_count(h), numeric, labels, counts)


@table
@fill(parameters=SCORE_PAIR_PARAMETERS)
def confusion_matrix(frame, *, human, system, exclude_zero: bool = True):
    """RSMTool's ``confMatrix`` as a tidy table: counts of (human, system) score pairs.

    Both scores are rounded half to even first. Every combination of the score points
    seen on either side appears, zeros included, so pivoting gives RSMTool's matrix::

        table.pivot(index="human_score", columns="system_score", values="N")

    (rows: human scores, columns: system scores).

    {parameters}

    Returns
    -------
    pandas.DataFrame
        Columns ``system`` (the system column's name), ``human_score``, ``system_score``,
        ``N``; sorted by system, human score, system score.

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> df = pd.DataFrame({"sc1": [1, 2, 2, 3], "raw": [1.2, 2.4, 2.6, 3.1]})
    >>> (df.scoring.confusion_matrix(human="sc1", system="raw")
    ...    .pivot(index="human_score", columns="system_score", values="N"))
    system_score  1  2  3
    human_score
    1             1  0  0
    2             0  1  1
    3             0  0  1
    """
    return _score_pair_table(frame, human, system, exclude_zero, confusion_from_state)


def confusion_from_state(state: ScorePairState, human_name, exclude_zero: bool) -> pd.DataFrame:
    """The ``confMatrix`` table from its :class:`ScorePairState`."""
    check_whole_columns(state, human_name, state.labels)
    pairs = {name: (state.labels[name], state.counts[name]) for name in state.labels}
    return _confusion_rows(pairs, state.rows, exclude_zero)


def confusion_table(
    h: np.ndarray, systems: dict, rows: ScoredRows, exclude_zero: bool, buffer: np.ndarray | None = None
) -> pd.DataFrame:
    """The ``confMatrix`` table from integer score labels (``kappa_labels``; name -> labels).

    ``buffer`` (an ``intp`` array of at least ``h``'s size) is the work array."""
    pairs = {name: pair_counts(h, s, buffer) for name, s in systems.items()}
    return _confusion_rows(pairs, rows, exclude_zero)


def _confusion_rows(pairs: dict, rows, exclude_zero: bool) -> pd.DataFrame:
    """The ``confMatrix`` rows of each system column's ``(score points, pair counts)``."""
    parts = []
    for name, (labels, counts) in pairs.items():
        n_labels = labels.size
        parts.append(
            pd.DataFrame(
                {
                    "system": [name] * counts.size,  # a list: a tuple name (MultiIndex) is one value
                    "human_score": np.repeat(labels, n_labels),
                    "system_score": np.tile(labels, n_labels),
                    "N": counts.reshape(-1),
                }
            )
        )
    table = result_table(pd.concat(parts, ignore_index=True), integer_columns=["N"])
    return attach_info(table, **rows.info("system"), exclude_zero=exclude_zero)


@table
@fill(parameters=SCORE_PAIR_PARAMETERS)
def score_distribution(frame, *, human, system, exclude_zero: bool = True):
    """RSMTool's ``score_dist``: percentage of responses at each (rounded) score point.

    {parameters}

    Returns
    -------
    pandas.DataFrame
        Columns ``system`` (the system column's name), ``score``, ``human`` (percent of
        responses with that rounded human score), ``sys`` (percent with that rounded system
        score; RSMTool's ``sys_<score type>``) and ``difference`` (``sys - human``). One row
        per score point seen on either side, sorted.

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> df = pd.DataFrame({"sc1": [1, 2, 2, 3], "raw": [1, 2, 3, 3]})
    >>> df.scoring.score_distribution(human="sc1", system="raw")
      system  score  human   sys  difference
    0    raw      1   25.0  25.0         0.0
    1    raw      2   50.0  25.0       -25.0
    2    raw      3   25.0  50.0        25.0
    """
    return _score_pair_table(frame, human, system, exclude_zero, distribution_from_state)


def _score_pair_table(frame, human, system, exclude_zero: bool, from_state) -> Table:
    names = score_columns(frame, exclude_zero, human=human, system=system)
    human, systems = names["human"], names["system"]
    return Table(
        [human, *systems],
        partial(_score_pair_chunk, human, systems, exclude_zero),
        partial(from_state, human_name=human, exclude_zero=exclude_zero),
    )


def _score_pair_chunk(human, systems: list, exclude_zero: bool, part):
    return score_pair_state(part[human], {name: part[name] for name in systems}, exclude_zero)


def distribution_from_state(state: ScorePairState, human_name, exclude_zero: bool) -> pd.DataFrame:
    """The ``score_dist`` table from its :class:`ScorePairState`."""
    check_whole_columns(state, human_name, state.labels)
    counts = {name: (state.labels[name], c.sum(axis=1), c.sum(axis=0)) for name, c in state.counts.items()}
    return _distribution_rows(counts, state.rows, exclude_zero)


def distribution_table(
    h: np.ndarray, systems: dict, rows: ScoredRows, exclude_zero: bool, buffer: np.ndarray | None = None
) -> pd.DataFrame:
    """The ``score_dist`` table from integer score labels (``kappa_labels``; name -> labels).

    ``buffer`` (an ``intp`` array of at least ``h``'s size) is the work array."""
    counts = {}
    for name, s in systems.items():
        labels, (h_counts, s_counts) = label_counts(h, s, out=buffer)
        counts[name] = (labels, h_counts, s_counts)
    return _distribution_rows(counts, rows, exclude_zero)


def _distribution_rows(counts: dict, rows, exclude_zero: bool) -> pd.DataFrame:
    """The ``score_dist`` rows of each system column's ``(score points, human counts, system counts)``."""
    parts = []
    for name, (labels, h_counts, s_counts) in counts.items():
        n = h_counts.sum()
        human_pct = h_counts / n * 100
        sys_pct = s_counts / n * 100
        parts.append(
            pd.DataFrame(
                {
                    "system": [name] * labels.size,
                    "score": labels,
                    "human": human_pct,
                    "sys": sys_pct,
                    "difference": sys_pct - human_pct,
                }
            )
        )
    table = result_table(pd.concat(parts, ignore_index=True))
    return attach_info(table, **rows.info("system"), exclude_zero=exclude_zero)
