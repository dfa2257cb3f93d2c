"""System performance relative to human-human agreement: RSMTool's ``degradation`` and
``disattenuated_correlations`` tables, built from the ``eval`` and ``consistency`` tables."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._additive import Additive
from pdmetrics._docstrings import fill
from pdmetrics._groups import as_series
from pdmetrics._table_spec import Table, table
from pdmetrics._tables import result_table
from pdmetrics._validation import numeric_values
from pdmetrics.errors import InvalidInputError
from pdmetrics.scoring.scored_rows import (
    EXCLUDE_ZERO_PARAMETER,
    TWO_HUMANS_PARAMETERS,
    check_distinct_columns,
    score_columns,
)
from pdmetrics.scoring.table_states import (
    ConsistencyState,
    EvaluationState,
    consistency_from_state,
    consistency_state,
    evaluation_from_state,
    evaluation_state,
)

__all__ = [
    "DEGRADATION_METRICS",
    "degradation",
    "disattenuated_correlations",
    "HumanBaselineState",
    "human_baseline_state",
]

#: Metrics compared in the ``degradation`` table, in RSMTool's order.
DEGRADATION_METRICS = ("corr", "kappa", "wtkappa", "exact_agr", "adj_agr", "SMD")


def _require(table: pd.DataFrame, columns, what: str) -> None:
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise InvalidInputError(
            f"The {what} table lacks the columns {missing}; pass the output of "
            f"`df.scoring.{'evaluate' if what == 'evaluation' else 'consistency'}`."
        )


def degradation_from_tables(evaluation: pd.DataFrame, human_human: pd.DataFrame) -> pd.DataFrame:
    """The ``degradation`` table from an ``eval`` table and a one-row ``consistency`` table."""
    _require(evaluation, ["system", *DEGRADATION_METRICS], "evaluation")
    _require(human_human, DEGRADATION_METRICS, "consistency")
    baseline = human_human[list(DEGRADATION_METRICS)].iloc[0].to_numpy(dtype=float)
    differences = evaluation[list(DEGRADATION_METRICS)].to_numpy(dtype=float) - baseline
    return result_table(
        {
            "system": evaluation["system"].to_numpy(),
            **{m: differences[:, i] for i, m in enumerate(DEGRADATION_METRICS)},
        }
    )


def disattenuated_from_tables(evaluation: pd.DataFrame, human_human: pd.DataFrame, on=None) -> pd.DataFrame:
    """The ``disattenuated_correlations`` table from an ``eval`` and a ``consistency`` table.

    ``on`` (e.g. ``["by", "group"]``) pairs the rows of subgroup tables; without it the one
    human-human correlation applies to every system row.
    """
    if on is None:
        _require(evaluation, ["system", "corr"], "evaluation")
        ids = {"system": evaluation["system"].to_numpy()}
        corr_hm = evaluation["corr"].to_numpy(dtype=float)
        corr_hh = np.full(corr_hm.shape, float(human_human["corr"].iloc[0]))
    else:
        on = list(on)
        keys = (["system"] if "system" in evaluation.columns else []) + on
        merged = evaluation[[*keys, "corr"]].merge(
            human_human[[*on, "corr"]], on=on, how="left", suffixes=("_HM", "_HH"), sort=False
        )
        ids = {name: merged[name].to_numpy() for name in keys}
        corr_hm = merged["corr_HM"].to_numpy(dtype=float)
        corr_hh = merged["corr_HH"].to_numpy(dtype=float)
    with np.errstate(invalid="ignore"):
        sqrt_hh = np.sqrt(corr_hh)
        return result_table(
            {
                **ids,
                "corr_HM": corr_hm,
                "corr_HH": corr_hh,
                "sqrt_HH": sqrt_hh,
                "corr_disattenuated": corr_hm / sqrt_hh,
            }
        )


def human_pair_on_system_rows(human: pd.Series, second_human, systems: dict) -> tuple[pd.Series, pd.Series]:
    """Both human scores, with the first set to NaN where a system score is missing.

    RSMTool computes human-human agreement after dropping responses without a numeric
    system score; blanking the first score leaves those rows out the same way.
    """
    second_human = as_series(second_human, "second_human")
    check_distinct_columns(human=human.name, second_human=second_human.name, system=list(systems))
    h1 = numeric_values(human, "human")
    valid = np.ones(h1.size, dtype=bool)
    for series in systems.values():
        valid &= np.isfinite(numeric_values(series, "system"))
    return pd.Series(np.where(valid, h1, np.nan), name=human.name, index=human.index), second_human


@table
@fill(parameters=TWO_HUMANS_PARAMETERS, exclude_zero=EXCLUDE_ZERO_PARAMETER)
def degradation(frame, *, human, second_human, system, exclude_zero: bool = True):
    """How much worse each system score agrees with humans than two humans agree.

    ``system metric - human-human metric`` for ``corr, kappa, wtkappa, exact_agr,
    adj_agr, SMD`` (the human-human SMD is the pooled one), as RSMTool's ``degradation``.
    Negative values mean the system agrees less with the first rater than the second rater
    does. The human-human figures come from the double-scored responses that also have
    every system score, as in RSMTool.

    Parameters
    ----------
    {parameters}
    {exclude_zero}

    Returns
    -------
    pandas.DataFrame
        ``system, corr, kappa, wtkappa, exact_agr, adj_agr, SMD``.

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> df = pd.DataFrame({"sc1": [1, 2, 3, 4, 5, 3], "sc2": [1, 3, 3, 4, 5, 3],
    ...                    "raw": [1.4, 2.2, 2.6, 4.5, 4.4, 3.5]})
    >>> df.scoring.degradation(human="sc1", second_human="sc2", system="raw").round(3)
      system   corr  kappa  wtkappa  exact_agr  adj_agr    SMD
    0    raw -0.015 -0.192   -0.016    -83.333      0.0 -0.051
    """
    return _human_baseline(frame, human, second_human, system, None, exclude_zero, degradation_from_state)


@table
@fill(parameters=TWO_HUMANS_PARAMETERS, exclude_zero=EXCLUDE_ZERO_PARAMETER)
def disattenuated_correlations(frame, *, human, second_human, system, by=None, exclude_zero: bool = True):
    """Human-system correlations corrected for the unreliability of human scores.

    ``corr_disattenuated = corr_HM / sqrt(corr_HH)``: the human-system correlation
    divided by the square root of the human-human correlation (NaN when the latter is
    negative or missing), as RSMTool's ``disattenuated_correlations``. The human-human
    correlation uses the double-scored responses that also have every system score.

    Parameters
    ----------
    {parameters}
    by : str or list of str, optional
        Subgroup column(s): one row per system x subgroup column x group (RSMTool's
        ``disattenuated_correlations_by_<G>``).
    {exclude_zero}

    Returns
    -------
    pandas.DataFrame
        ``system`` (with ``by``: then ``by, group``), then ``corr_HM, corr_HH, sqrt_HH,
        corr_disattenuated``.

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> df = pd.DataFrame({"sc1": [1, 2, 3, 4, 5, 3], "sc2": [1, 3, 3, 4, 5, 2],
    ...                    "raw": [1.4, 2.2, 2.6, 4.5, 4.4, 3.5]})
    >>> df.scoring.disattenuated_correlations(human="sc1", second_human="sc2", system="raw").round(3)
      system  corr_HM  corr_HH  sqrt_HH  corr_disattenuated
    0    raw    0.942      0.9    0.949               0.993
    """
    return _human_baseline(frame, human, second_human, system, by, exclude_zero, disattenuated_from_state)


def _human_baseline(frame, human, second_human, system, by, exclude_zero, from_state) -> Table:
    names = score_columns(frame, exclude_zero, human=human, second_human=second_human, system=system, by=by)
    human, second, systems, groups = names["human"], names["second_human"], names["system"], names["by"]
    return Table(
        [human, second, *systems, *groups],
        partial(_human_baseline_chunk, human, second, systems, groups, exclude_zero),
        partial(from_state, human_name=human, second_name=second, exclude_zero=exclude_zero),
    )


def _human_baseline_chunk(human, second, systems: list, groups: list, exclude_zero: bool, part):
    by = {name: part[name] for name in groups} or None
    return human_baseline_state(
        part[human], part[second], {name: part[name] for name in systems}, by, exclude_zero
    )


@dataclass(frozen=True)
class HumanBaselineState(Additive):
    """The additive state of :func:`degradation` and :func:`disattenuated_correlations`: the
    ``eval`` table's and the ``consistency`` table's (on the rows with every system score)."""

    evaluation: EvaluationState
    human_human: ConsistencyState


def human_baseline_state(human: pd.Series, second_human: pd.Series, systems: dict, by, exclude_zero: bool):
    """The :class:`HumanBaselineState` of one chunk of rows (named Series in; no warning raised)."""
    first, second = human_pair_on_system_rows(human, second_human, systems)
    return HumanBaselineState(
        evaluation_state(human, systems, by, exclude_zero), consistency_state(first, second, exclude_zero, by)
    )


def degradation_from_state(
    state: HumanBaselineState, human_name, second_name, exclude_zero: bool
) -> pd.DataFrame:
    """The ``degradation`` table from its :class:`HumanBaselineState` (without groups)."""
    return degradation_from_tables(
        evaluation_from_state(state.evaluation, human_name, exclude_zero),
        consistency_from_state(state.human_human, human_name, second_name, exclude_zero),
    )


def disattenuated_from_state(
    state: HumanBaselineState, human_name, second_name, exclude_zero: bool
) -> pd.DataFrame:
    """The ``disattenuated_correlations`` table from its :class:`HumanBaselineState`."""
    evaluation = evaluation_from_state(state.evaluation, human_name, exclude_zero)
    human_human = consistency_from_state(state.human_human, human_name, second_name, exclude_zero)
    return disattenuated_from_tables(
        evaluation, human_human, on=["by", "group"] if state.evaluation.groups else None
    )
