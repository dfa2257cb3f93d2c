"""Per-subgroup evaluation tables: RSMTool's ``eval_by_<G>`` and ``consistency_by_<G>``.

Every group of every ``by`` column is evaluated in the same vectorized pass (bincounts over
the group codes), plus a row pooling the whole evaluation set, labelled ``"(all)"``
(:data:`pdmetrics._groups.POOLED_LABEL`; RSMTool's files call it "All data"). Subgroup
differences are measured with the difference of standardized means (DSM), which z-scores
both sides with the means and SDs of the whole evaluation set.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdmetrics._groups import POOLED_LABEL, check_not_pooled, group_codes
from pdmetrics._tables import attach_info, result_table
from pdmetrics._validation import numeric_values
from pdmetrics._warnings import warn_undefined
from pdmetrics.errors import InvalidInputError
from pdmetrics.scoring.agreement import agreement_metrics, dsm_from_means, kappa_labels, pair_statistics
from pdmetrics.scoring.tables import (
    CONSISTENCY_COLUMNS,
    EVAL_COLUMNS,
    _as_named_series,
    _named_columns,
    _report_exclusions,
    select_scored_rows,
)

__all__ = ["MISSING_GROUP", "evaluation_by_group_table", "consistency_by_group_table"]

#: Label given to rows whose group value is missing (RSMTool's label for empty values).
MISSING_GROUP = "No info"


def subgroup_codes(series: pd.Series, mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each used row's group code ``0..k-1`` and the ``k`` group labels of a subgroup column.

    ``mask`` selects the used rows (all rows when None); only the groups present on them
    are kept, in sorted order (category order for a categorical). Rows whose value is
    missing form RSMTool's group ``"No info"`` (the last group, unless the column already
    has that value). A value equal to the pooled row's label ``"(all)"`` is refused.
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
    missing = codes < 0
    if missing.any():
        known = np.flatnonzero(labels == MISSING_GROUP)
        if len(known) == 0:
            labels = np.append(labels, np.array([MISSING_GROUP], dtype=object))
        codes = np.where(missing, known[0] if len(known) else labels.size - 1, codes)
    return codes, labels


def _population(values: np.ndarray) -> tuple[float, float]:
    finite = values[np.isfinite(values)]
    if finite.size < 2:
        return (float(finite.mean()) if finite.size else np.nan), np.nan
    return float(finite.mean()), float(np.std(finite, ddof=1))


def _stack(overall: dict, by_group: dict, columns) -> dict:
    return {c: np.concatenate([np.atleast_1d(overall[c]), by_group[c]]) for c in columns}


def _check_lengths(reference: np.ndarray, named: dict[str, np.ndarray]) -> None:
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
            f"constant scores, or a whole-set SD of zero for DSM): {listed} rows."
        )


def evaluation_by_group_table(human, system, groups, exclude_zero: bool = True) -> pd.DataFrame:
    """RSMTool's ``eval_by_<group>`` content: the ``eval`` metrics per subgroup, with DSM.

    Parameters
    ----------
    human : Series
        Human scores.
    system : Series, DataFrame or mapping
        System score column(s).
    groups : Series, DataFrame or mapping
        One or more subgroup columns; each is evaluated separately (not their
        intersections: make a combined column for that).
    exclude_zero : bool, default True
        Leave out human scores of 0.

    Returns
    -------
    pandas.DataFrame
        One row per system column x subgroup column x group, the ``"(all)"`` row (the
        whole evaluation set) first: ``system, by`` (the subgroup column), ``group`` (its
        value; missing values are the group "No info"), then the ``eval`` columns and
        ``DSM``, the difference of standardized means: ``mean(z_M - z_H)`` over the group
        with ``z`` computed from the whole evaluation set's mean and SD (``ddof=1``).
        Groups are sorted; groups of one or two responses are kept (their undefined
        metrics are NaN, with a warning).

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.scoring import evaluation_by_group_table
    >>> df = pd.DataFrame({"sc1": [1, 2, 3, 4, 5, 3], "raw": [1.4, 2.2, 2.6, 4.5, 4.4, 3.5],
    ...                    "L1": ["a", "a", "a", "b", "b", "b"]})
    >>> table = evaluation_by_group_table(df["sc1"], df["raw"], df["L1"])
    >>> table[["system", "by", "group", "N", "corr", "DSM"]].round(3)
      system  by  group  N   corr    DSM
    0    raw  L1  (all)  6  0.942  0.000
    1    raw  L1      a  3  0.982 -0.122
    2    raw  L1      b  3  0.817  0.122
    """
    human = _as_named_series(human, "human")
    systems = _named_columns(system)
    group_columns = _named_columns(groups, "group")
    h = numeric_values(human, "human")
    values = {name: numeric_values(series, "system") for name, series in systems.items()}
    _check_lengths(h, {**values, **group_columns})
    rows = select_scored_rows(h, list(values.values()), exclude_zero)
    _report_exclusions(rows, "system score", human.name, ", ".join(repr(n) for n in values))
    h_used = h[rows.mask]
    h_labels = kappa_labels(h_used, "human")
    h_mean, h_sd = _population(h_used)
    columns = [*EVAL_COLUMNS, "DSM"]
    used = {name: array[rows.mask] for name, array in values.items()}
    whole = {}  # per score column: its population mean and SD, and the pooled row's metrics
    for name, s_used in used.items():  # a handful of score columns
        s_mean, s_sd = _population(s_used)
        overall = agreement_metrics(pair_statistics(h_used, s_used, human_labels=h_labels))
        overall["DSM"] = dsm_from_means(
            overall["h_mean"], overall["sys_mean"], overall["N"], h_mean, h_sd, s_mean, s_sd
        )
        whole[name] = (s_mean, s_sd, overall)
    parts = []
    for by, series in group_columns.items():
        codes, labels = subgroup_codes(series, rows.mask)
        for name, s_used in used.items():
            s_mean, s_sd, overall = whole[name]
            grouped = agreement_metrics(
                pair_statistics(h_used, s_used, codes, labels.size, human_labels=h_labels)
            )
            grouped["DSM"] = dsm_from_means(
                grouped["h_mean"], grouped["sys_mean"], grouped["N"], h_mean, h_sd, s_mean, s_sd
            )
            parts.append(
                pd.DataFrame(
                    {
                        "system": name,
                        "by": by,
                        "group": np.concatenate([np.array([POOLED_LABEL], dtype=object), labels]),
                        **_stack(overall, grouped, columns),
                    }
                )
            )
    table = result_table(pd.concat(parts, ignore_index=True), integer_columns=["N"])
    _warn_nan_cells(table, [*EVAL_COLUMNS, "DSM"])
    return attach_info(table, **rows.info("system"), exclude_zero=exclude_zero)


def consistency_by_group_table(human, second_human, groups, exclude_zero: bool = True) -> pd.DataFrame:
    """RSMTool's ``consistency_by_<group>``: human-human agreement per subgroup, with DSM.

    The groups are those of the responses with a (non-zero) first human score; a group
    with no double-scored response gets a row with ``N = 0`` and NaN metrics, as in
    RSMTool. ``DSM`` z-scores the first rater with the mean and SD over all responses
    with a first score and the second rater over all double-scored responses (RSMTool's
    population values), then averages ``z_H2 - z_H1`` over the group's double-scored
    responses.

    Returns
    -------
    pandas.DataFrame
        ``by, group, N, h1_mean, h1_sd, h1_min, h1_max, h2_mean, h2_sd, h2_min, h2_max,
        corr, wtkappa, kappa, exact_agr, adj_agr, SMD, DSM``; the ``"(all)"`` row (all responses) first.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.scoring import consistency_by_group_table
    >>> df = pd.DataFrame({"sc1": [1, 2, 3, 4, 5, 3], "sc2": [1, 3, 3, 4, 5, None],
    ...                    "L1": ["a", "a", "a", "b", "b", "c"]})
    >>> consistency_by_group_table(df["sc1"], df["sc2"], df["L1"])[["group", "N", "exact_agr"]]
       group  N   exact_agr
    0  (all)  5   80.000000
    1      a  3   66.666667
    2      b  2  100.000000
    3      c  0         NaN
    """
    human = _as_named_series(human, "human")
    second_human = _as_named_series(second_human, "second_human")
    group_columns = _named_columns(groups, "group")
    h1 = numeric_values(human, "human")
    h2 = numeric_values(second_human, "second_human")
    _check_lengths(h1, {second_human.name: h2, **group_columns})
    if exclude_zero:
        h2 = np.where(h2 == 0, np.nan, h2)
    scored = select_scored_rows(h1, [], exclude_zero)  # the evaluation set: a usable first score
    double = select_scored_rows(h1, [h2], exclude_zero)
    if double.n_used == 0:
        raise InvalidInputError(f"No double-scored responses in {human.name!r} and {second_human.name!r}.")
    h1_mean, h1_sd = _population(h1[scored.mask])
    h2_mean, h2_sd = _population(h2[double.mask])
    in_double = double.mask[scored.mask]  # double-scored rows among the evaluation set
    a, b = h1[double.mask], h2[double.mask]
    columns = [*CONSISTENCY_COLUMNS, "DSM"]
    parts = []
    for by, series in group_columns.items():
        codes, labels = subgroup_codes(series, scored.mask)
        metrics = []
        for stats in (pair_statistics(a, b), pair_statistics(a, b, codes[in_double], labels.size)):
            m = agreement_metrics(stats, smd_method="pooled")
            m = {name.replace("h_", "h1_").replace("sys_", "h2_"): value for name, value in m.items()}
            m["DSM"] = dsm_from_means(m["h1_mean"], m["h2_mean"], m["N"], h1_mean, h1_sd, h2_mean, h2_sd)
            metrics.append(m)
        parts.append(
            pd.DataFrame(
                {
                    "by": by,
                    "group": np.concatenate([np.array([POOLED_LABEL], dtype=object), labels]),
                    **_stack(metrics[0], metrics[1], columns),
                }
            )
        )
    table = result_table(pd.concat(parts, ignore_index=True), integer_columns=["N"])
    _warn_nan_cells(table, columns)
    info = double.info("second_human")
    info["excluded"]["no_second_human"] = info["excluded"].pop("missing_second_human")
    return attach_info(table, **info, exclude_zero=exclude_zero)
