"""System performance relative to human-human agreement: RSMTool's ``degradation`` and
``disattenuated_correlations`` tables, built from the ``eval`` and ``consistency`` tables."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdmetrics._tables import result_table
from pdmetrics.errors import InvalidInputError

__all__ = ["DEGRADATION_METRICS", "degradation_table", "disattenuated_correlation_table"]

#: Metrics compared in the ``degradation`` table, in RSMTool's order.
DEGRADATION_METRICS = ("corr", "kappa", "wtkappa", "exact_agr", "adj_agr", "SMD")


def _require(table: pd.DataFrame, columns, what: str) -> None:
    missing = [c for c in columns if c not in table.columns]
    if missing:
        raise InvalidInputError(
            f"The {what} table lacks the columns {missing}; pass the output of "
            f"`df.scoring.{'evaluate' if what == 'evaluation' else 'consistency'}`."
        )


def degradation_table(evaluation: pd.DataFrame, consistency: pd.DataFrame) -> pd.DataFrame:
    """How much worse each system score agrees with humans than two humans agree.

    ``system metric - human-human metric`` for ``corr, kappa, wtkappa, exact_agr,
    adj_agr, SMD`` (the human-human SMD is the pooled one), as RSMTool's ``degradation``.
    Negative values mean the system agrees less with the first rater than the second rater
    does.

    Parameters
    ----------
    evaluation : DataFrame
        Output of ``evaluate`` / :func:`evaluation_table`.
    consistency : DataFrame
        Output of ``consistency`` / :func:`consistency_table` (one row).

    Returns
    -------
    pandas.DataFrame
        ``system, corr, kappa, wtkappa, exact_agr, adj_agr, SMD``.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.scoring import consistency_table, degradation_table, evaluation_table
    >>> df = pd.DataFrame({"sc1": [1, 2, 3, 4, 5, 3], "sc2": [1, 3, 3, 4, 5, 3],
    ...                    "raw": [1.4, 2.2, 2.6, 4.5, 4.4, 3.5]})
    >>> evaluation = evaluation_table(df["sc1"], df[["raw"]])
    >>> degradation_table(evaluation, consistency_table(df["sc1"], df["sc2"])).round(3)
      system   corr  kappa  wtkappa  exact_agr  adj_agr    SMD
    0    raw -0.015 -0.192   -0.016    -83.333      0.0 -0.051
    """
    _require(evaluation, ["system", *DEGRADATION_METRICS], "evaluation")
    _require(consistency, DEGRADATION_METRICS, "consistency")
    human_human = consistency[list(DEGRADATION_METRICS)].iloc[0].to_numpy(dtype=float)
    differences = evaluation[list(DEGRADATION_METRICS)].to_numpy(dtype=float) - human_human
    return result_table(
        {
            "system": evaluation["system"].to_numpy(),
            **{m: differences[:, i] for i, m in enumerate(DEGRADATION_METRICS)},
        }
    )


def disattenuated_correlation_table(
    evaluation: pd.DataFrame, consistency: pd.DataFrame, on=None
) -> pd.DataFrame:
    """Human-system correlations corrected for the unreliability of human scores.

    ``corr_disattenuated = corr_HM / sqrt(corr_HH)``: the human-system correlation
    divided by the square root of the human-human correlation (NaN when the latter is
    negative or missing), as RSMTool's ``disattenuated_correlations``.

    Parameters
    ----------
    evaluation, consistency : DataFrame
        Outputs of ``evaluate`` and ``consistency``; with subgroups, their ``by=`` outputs
        (then ``on`` is ``["by", "group"]``).
    on : list of str, optional
        Columns that pair the rows of the two tables (subgroup tables). Without it the
        single human-human correlation applies to every system row.

    Returns
    -------
    pandas.DataFrame
        The identifier columns (``system``, then ``on``), then ``corr_HM, corr_HH,
        sqrt_HH, corr_disattenuated``.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.scoring import consistency_table, disattenuated_correlation_table, evaluation_table
    >>> df = pd.DataFrame({"sc1": [1, 2, 3, 4, 5, 3], "sc2": [1, 3, 3, 4, 5, 2],
    ...                    "raw": [1.4, 2.2, 2.6, 4.5, 4.4, 3.5]})
    >>> evaluation = evaluation_table(df["sc1"], df[["raw"]])
    >>> disattenuated_correlation_table(evaluation, consistency_table(df["sc1"], df["sc2"])).round(3)
      system  corr_HM  corr_HH  sqrt_HH  corr_disattenuated
    0    raw    0.942      0.9    0.949               0.993
    """
    if on is None:
        _require(evaluation, ["system", "corr"], "evaluation")
        ids = {"system": evaluation["system"].to_numpy()}
        corr_hm = evaluation["corr"].to_numpy(dtype=float)
        corr_hh = np.full(corr_hm.shape, float(consistency["corr"].iloc[0]))
    else:
        on = list(on)
        keys = (["system"] if "system" in evaluation.columns else []) + on
        merged = evaluation[[*keys, "corr"]].merge(
            consistency[[*on, "corr"]], on=on, how="left", suffixes=("_HM", "_HH"), sort=False
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
