"""Figures of the scoring tables (``df.scoring.plot``).

Each drawing function takes the tidy table a ``df.scoring`` method (or a core function of
:mod:`pdmetrics.scoring`) returns, draws it on ``ax`` (or on a new figure) and returns the
Axes; a grid of panels returns a flat numpy array of Axes. :class:`ScoringPlots`, reached as
``df.scoring.plot``, computes the table from the frame's columns and draws it in one call.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from pdmetrics._docstrings import fill
from pdmetrics._validation import as_list, require_columns
from pdmetrics.errors import InvalidInputError
from pdmetrics.fairness.regression import score_fairness_estimates
from pdmetrics.plotting.axes import AXES_DOC, axes_for, check_table, choose, heatmap, panel_axes
from pdmetrics.plotting.comparison import comparison_method
from pdmetrics.scoring.inter_rater import agreement as agreement_table
from pdmetrics.scoring.tables import confusion_matrix as confusion_matrix_table
from pdmetrics.scoring.tables import evaluate
from pdmetrics.scoring.tables import score_distribution as score_distribution_table
from pdmetrics.scoring.true_scores import true_score as true_score_table

__all__ = [
    "ScoringPlots",
    "score_distribution",
    "confusion_matrix",
    "evaluation_by_group",
    "score_fairness",
    "true_score",
    "scaling_standard_error",
    "agreement",
    "REFERENCE_LINES",
]

#: The dashed reference lines of RSMTool's subgroup evaluation figure, from
#: rsmtool/notebooks/evaluation_by_group.ipynb (RSMTool 12, its ``basic_metrics``): QWK and
#: correlation at 0.7, DSM at +/-0.1; none for R2 and RMSE.
REFERENCE_LINES: dict[str, tuple[float, ...]] = {
    "corr": (0.7,),
    "wtkappa": (0.7,),
    "DSM": (0.1, -0.1),
    "R2": (),
    "RMSE": (),
}

_FAIRNESS_MODELS = ("osa", "osd", "csd")  # RSMTool's panel order (fairness_analyses.ipynb)
_FAIRNESS_TITLES = {
    "osa": "Overall score accuracy",
    "osd": "Overall score difference",
    "csd": "Conditional score difference",
}


# ----------------------------------------------------------------------------------------
# drawing functions
# ----------------------------------------------------------------------------------------
@fill(axes=AXES_DOC)
def score_distribution(table: pd.DataFrame, *, ax=None):
    """Grouped bars of the percentage of responses at each score point, human vs system.

    Parameters
    ----------
    table : pandas.DataFrame
        The table of ``df.scoring.score_distribution(human=, system=)``
        (:meth:`~pdmetrics.accessors.ScoringAccessor.score_distribution`; columns ``system,
        score, human, sys``). The human bars come from the first system's rows (they are
        the same for every system); each system adds its own bars.
    {axes}
        One bar per score point and series (human, then each system), a legend, the score
        points on the x axis and percentages on the y axis.

    Examples
    --------
    >>> from pdmetrics.datasets import simulate_scores  # imports pdmetrics: df.scoring
    >>> from pdmetrics.plotting.scoring import score_distribution
    >>> df = simulate_scores(500, seed=1).scoring.postprocess(system="raw", trim_min=1, trim_max=6)
    >>> ax = score_distribution(df.scoring.score_distribution(human="sc1", system="raw_trim_round"))
    >>> len(ax.patches), [t.get_text() for t in ax.get_legend().get_texts()]
    (12, ['human', 'raw_trim_round'])
    """
    producer = "`df.scoring.score_distribution(human=, system=)`"
    check_table(table, ("system", "score", "human", "sys"), producer)
    systems = list(pd.unique(table["system"]))
    if not systems:
        raise InvalidInputError(f"`table=` has no rows; pass the table that {producer} returns.")
    first = table[table["system"] == systems[0]]
    scores = first["score"].to_numpy()
    series = [("human", first["human"].to_numpy(dtype=float))]
    for system in systems:
        rows = table[table["system"] == system].set_index("score")["sys"]
        series.append((str(system), rows.reindex(scores).to_numpy(dtype=float)))
    ax = axes_for(ax)
    positions = np.arange(len(scores))
    width = 0.8 / len(series)
    for index, (label, values) in enumerate(series):
        ax.bar(positions + (index - (len(series) - 1) / 2) * width, values, width, label=label)
    ax.set_xticks(positions, [str(score) for score in scores])
    ax.set_xlabel("Score")
    ax.set_ylabel("Percent of responses")
    ax.set_title("Score distribution")
    ax.legend()
    return ax


@fill(axes=AXES_DOC)
def confusion_matrix(table: pd.DataFrame, *, system=None, normalize=None, cmap: str = "Blues", ax=None):
    """Heatmap of the human x system score confusion matrix (RSMTool's ``confMatrix``).

    Parameters
    ----------
    table : pandas.DataFrame
        The table of
        :meth:`df.scoring.confusion_matrix <pdmetrics.accessors.ScoringAccessor.confusion_matrix>`
        (columns ``system, human_score, system_score, N``).
    system : str, optional
        The system score column to draw when the table holds several.
    normalize : {None, "true", "pred", "all"}, default None
        As scikit-learn's ``ConfusionMatrixDisplay``: counts (None), or proportions of each
        human score's row ("true"), of each system score's column ("pred") or of all
        responses ("all"); a row or column without responses shows 0.
    cmap : str, default "Blues"
        Colour map.
    {axes}
        Human scores on the y axis (lowest at the top), system scores on the x axis, every
        cell annotated with its count or proportion.

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> from pdmetrics.plotting.scoring import confusion_matrix
    >>> df = pd.DataFrame({"sc1": [1, 2, 2, 3], "raw": [1.2, 2.4, 2.6, 3.1]})
    >>> ax = confusion_matrix(df.scoring.confusion_matrix(human="sc1", system="raw"), normalize="true")
    >>> [t.get_text() for t in ax.texts]
    ['1.00', '0.00', '0.00', '0.00', '0.50', '0.50', '0.00', '0.00', '1.00']
    """
    producer = "`df.scoring.confusion_matrix(human=, system=)`"
    check_table(table, ("system", "human_score", "system_score", "N"), producer)
    if normalize not in (None, "true", "pred", "all"):
        raise InvalidInputError(
            f'`normalize={normalize!r}` is not an option; use None, "true", "pred" or "all".'
        )
    system = choose(table, "system", system, "system", only=True)
    rows = table[table["system"] == system]
    matrix = rows.pivot_table(
        index="human_score", columns="system_score", values="N", aggfunc="sum", fill_value=0
    )
    counts = matrix.to_numpy(dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        if normalize == "true":
            counts = counts / counts.sum(axis=1, keepdims=True)
        elif normalize == "pred":
            counts = counts / counts.sum(axis=0, keepdims=True)
        elif normalize == "all":
            counts = counts / counts.sum()
    counts = np.nan_to_num(counts)
    ax = axes_for(ax)
    heatmap(
        ax,
        counts,
        list(matrix.index),
        list(matrix.columns),
        row_title="Human score",
        column_title=f"System score ({system})",
        fmt="{:g}" if normalize is None else "{:.2f}",
        cmap=cmap,
    )
    ax.set_title("Confusion matrix" if normalize is None else f"Confusion matrix (normalize={normalize!r})")
    return ax


def _rsmtool_limits(ax, metric: str, values: np.ndarray) -> None:
    """RSMTool's y limits and zero line for ``metric`` (evaluation_by_group.ipynb)."""
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return
    low, high = float(finite.min()), float(finite.max())
    if metric in ("corr", "wtkappa"):
        ax.set_ylim((-1.0, 1.0) if low < 0 else (0.0, 1.0))
    elif metric == "R2":
        ax.set_ylim((low - 0.1, 1.0) if low < 0 else (0.0, 1.0))
    elif metric == "RMSE":
        ax.set_ylim(0.0, max(high + 0.1, 1.0))
    if low < 0 and metric in ("corr", "wtkappa", "R2", "DSM"):
        ax.axhline(0.0, linestyle="--", linewidth=0.5, color="black")


def evaluation_by_group(
    table: pd.DataFrame,
    *,
    metrics: Sequence[str] = ("corr", "wtkappa", "DSM"),
    by=None,
    reference_lines: bool = True,
    ax=None,
):
    """RSMTool's subgroup evaluation figure: one bar panel per metric, one bar per group.

    Parameters
    ----------
    table : pandas.DataFrame
        The table of ``df.scoring.evaluate(human=, system=, by=)``
        (:meth:`~pdmetrics.accessors.ScoringAccessor.evaluate`; columns ``system, by, group``
        and the metrics). The pooled "(all)" row is the first bar, as RSMTool's "All data".
        Several system columns give grouped bars, one colour per system, with a legend.
    metrics : sequence of str, default ("corr", "wtkappa", "DSM")
        Metric columns to draw, one panel each (any numeric column of the table).
    by : str, optional
        The group column to draw when the table holds several. Default: every one, a row
        of panels per group column.
    reference_lines : bool, default True
        Draw RSMTool's dashed reference lines (:data:`REFERENCE_LINES`: 0.7 for ``corr``
        and ``wtkappa``, +/-0.1 for ``DSM``) and its y limits (0 to 1 for ``corr``,
        ``wtkappa`` and ``R2``, or -1 to 1 when a value is negative; 0 to at least 1 for
        ``RMSE``).
    ax : sequence of matplotlib.axes.Axes, optional
        One Axes per panel (group columns x metrics, in that order); default a new figure.

    Returns
    -------
    numpy.ndarray of matplotlib.axes.Axes
        Flat, one per panel: for each group column (in the table's order), each metric.
        Panel titles read ``"<metric> by <group column>"``.

    Examples
    --------
    >>> from pdmetrics.datasets import simulate_scores  # imports pdmetrics: df.scoring
    >>> from pdmetrics.plotting.scoring import evaluation_by_group
    >>> table = simulate_scores(2000, seed=1).scoring.evaluate(human="sc1", system="raw", by="L1")
    >>> axes = evaluation_by_group(table)
    >>> [a.get_title() for a in axes], len(axes[0].patches)
    (['corr by L1', 'wtkappa by L1', 'DSM by L1'], 5)
    """
    metrics = as_list(metrics, "metrics")
    producer = "`df.scoring.evaluate(human=, system=, by=)`"
    check_table(table, ["system", "by", "group", *metrics], producer)
    table = table if by is None else table[table["by"] == choose(table, "by", by, "by")]
    by_values = list(pd.unique(table["by"]))
    systems = list(pd.unique(table["system"]))
    axes = panel_axes(ax, len(by_values) * len(metrics), ncols=max(len(metrics), 1), panel_size=(4.0, 3.6))
    width = 0.8 / max(len(systems), 1)
    for row, by_value in enumerate(by_values):
        rows = table[table["by"] == by_value]
        groups = list(pd.unique(rows["group"]))
        positions = np.arange(len(groups))
        for column, metric in enumerate(metrics):
            panel = axes[row * len(metrics) + column]
            for index, system in enumerate(systems):
                values = rows[rows["system"] == system].set_index("group")[metric].reindex(groups)
                panel.bar(
                    positions + (index - (len(systems) - 1) / 2) * width,
                    values.to_numpy(dtype=float),
                    width,
                    color="grey" if len(systems) == 1 else f"C{index}",
                    label=str(system),
                )
            if reference_lines:
                for level in REFERENCE_LINES.get(metric, ()):
                    panel.axhline(level, linestyle="--", linewidth=0.8, color="black")
                _rsmtool_limits(panel, metric, rows[metric].to_numpy(dtype=float))
            panel.set_xticks(positions, [str(group) for group in groups], rotation=90)
            panel.set_title(f"{metric} by {by_value}")
            if len(systems) > 1 and row == 0 and column == len(metrics) - 1:
                panel.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0))
    return axes


def score_fairness(table: pd.DataFrame, *, by=None, estimate: str = "error", ax=None):
    """Score fairness coefficients with their 95% confidence intervals, one panel per model.

    RSMTool's fairness figure (rsmtool/notebooks/fairness_analyses.ipynb): for overall
    score accuracy (OSA, squared error), overall score difference (OSD, error) and
    conditional score difference (CSD, error given the human score), a point per group at
    its estimate and a horizontal bar for its 95% confidence interval, with a vertical line
    at 0.

    Parameters
    ----------
    table : pandas.DataFrame
        The table of :func:`pdmetrics.fairness.score_fairness_estimates` (or
        ``df.fairness.score_fairness_estimates``; columns ``by, model, term, group,
        estimate, [0.025, 0.975]``).
    by : str, optional
        The group column to draw when the table holds several. Default: every one, a row
        of three panels per group column.
    estimate : {"error", "difference"}, default "error"
        ``"error"``: as RSMTool, each group's own error estimate (the intercept plus the
        group's coefficient; the reference group is the intercept), its interval shifted
        with it. ``"difference"``: the coefficients themselves, each group's difference
        from the reference group (which is not drawn); an interval that crosses the line
        at 0 is a difference that is not significant at 5%.
    ax : sequence of matplotlib.axes.Axes, optional
        One Axes per panel (group columns x models); default a new figure.

    Returns
    -------
    numpy.ndarray of matplotlib.axes.Axes
        Flat, one per panel: for each group column, the models ``osa``, ``osd``, ``csd``
        present in the table. Groups are on the y axis (reference group at the top).

    Examples
    --------
    >>> from pdmetrics.datasets import simulate_scores  # imports pdmetrics: df.scoring
    >>> from pdmetrics.plotting.scoring import score_fairness
    >>> df = simulate_scores(2000, seed=1)
    >>> table = df.fairness.score_fairness_estimates(human="sc1", system="raw", by="L1")
    >>> axes = score_fairness(table)
    >>> [a.get_title().splitlines()[0] for a in axes]
    ['Overall score accuracy', 'Overall score difference', 'Conditional score difference']
    >>> [t.get_text() for t in axes[0].get_yticklabels()]
    ['Spanish (reference)', 'Mandarin', 'Arabic', 'Hindi']
    """
    producer = "`df.fairness.score_fairness_estimates(human=, system=, by=)`"
    check_table(table, ("by", "model", "term", "group", "estimate", "[0.025", "0.975]"), producer)
    if estimate not in ("error", "difference"):
        raise InvalidInputError(f'`estimate={estimate!r}` is not an option; use "error" or "difference".')
    table = table if by is None else table[table["by"] == choose(table, "by", by, "by")]
    by_values = list(pd.unique(table["by"]))
    models = [model for model in _FAIRNESS_MODELS if model in set(table["model"])]
    axes = panel_axes(ax, len(by_values) * len(models), ncols=max(len(models), 1), panel_size=(4.0, 3.2))
    for row, by_value in enumerate(by_values):
        for column, model in enumerate(models):
            rows = table[(table["by"] == by_value) & (table["model"] == model)]
            is_base = (rows["term"] == "Intercept").to_numpy()
            values = rows["estimate"].to_numpy(dtype=float)
            low = rows["[0.025"].to_numpy(dtype=float)
            high = rows["0.975]"].to_numpy(dtype=float)
            labels = [
                f"{group} (reference)" if base else str(group) for group, base in zip(rows["group"], is_base)
            ]
            if estimate == "error":
                shift = np.where(is_base, 0.0, values[is_base].sum())
                values, low, high = values + shift, low + shift, high + shift
            else:
                keep = ~is_base
                values, low, high = values[keep], low[keep], high[keep]
                labels = [label for label, kept in zip(labels, keep) if kept]
            panel = axes[row * len(models) + column]
            positions = np.arange(len(values))
            panel.errorbar(
                values, positions, xerr=[values - low, high - values], fmt="o", color="black", capsize=3
            )
            panel.axvline(0.0, linestyle="--", linewidth=0.8, color="grey")
            panel.set_yticks(positions, labels)
            panel.set_ylim(len(values) - 0.5, -0.5)
            panel.set_xlabel("Error estimate" if estimate == "error" else "Difference from reference")
            panel.set_title(f"{_FAIRNESS_TITLES[model]}\nby {by_value}")
    if axes.size:
        return axes


@fill(axes=AXES_DOC)
def true_score(table: pd.DataFrame, *, ax=None):
    """Bars of PRMSE (how well each system score predicts the true score).

    Parameters
    ----------
    table : pandas.DataFrame
        The table of :meth:`df.scoring.true_score <pdmetrics.accessors.ScoringAccessor.true_score>`
        (or the report's ``true_score_eval``; columns ``system, PRMSE true``). When it also
        has ``R2`` (e.g. merged with :meth:`~pdmetrics.accessors.ScoringAccessor.evaluate` on
        ``system``), each system gets a second bar: R2 against the observed human score.
    {axes}
        One bar per system (two with ``R2``), values written above the bars, y from 0 to 1
        (wider when a value lies outside). Reference line, when the table has ``Variance of
        errors`` and ``True score var``: the PRMSE of a single human rater,
        ``True score var / (True score var + Variance of errors)`` (the reliability of one
        rating, Loukina et al. 2020): a system above it predicts the true score better than
        one human rater does.

    Examples
    --------
    The core function gives the same table as ``df.scoring.true_score``:

    >>> from pdmetrics.datasets import simulate_scores
    >>> from pdmetrics.scoring import true_score as true_score_table
    >>> from pdmetrics.plotting.scoring import true_score
    >>> df = simulate_scores(2000, seed=1).assign(rounded=lambda d: d["raw"].round())
    >>> table = true_score_table(df, system=["raw", "rounded"], raters=["sc1", "sc2"])
    >>> ax = true_score(table)
    >>> [round(float(bar.get_height()), 2) for bar in ax.patches], ax.get_xticklabels()[1].get_text()
    ([0.73, 0.66], 'rounded')
    """
    producer = "`df.scoring.true_score(system=, raters=)`"
    check_table(table, ("system", "PRMSE true"), producer)
    systems = [str(system) for system in table["system"]]
    series = [("PRMSE (true score)", table["PRMSE true"].to_numpy(dtype=float))]
    if "R2" in table.columns:
        series.append(("R2 (observed score)", table["R2"].to_numpy(dtype=float)))
    ax = axes_for(ax)
    positions = np.arange(len(systems))
    width = 0.8 / len(series)
    for index, (label, values) in enumerate(series):
        bars = ax.bar(positions + (index - (len(series) - 1) / 2) * width, values, width, label=label)
        ax.bar_label(bars, fmt="%.2f", fontsize="small")
    if {"Variance of errors", "True score var"} <= set(table.columns):
        true_var = float(table["True score var"].iloc[0])
        reliability = true_var / (true_var + float(table["Variance of errors"].iloc[0]))
        ax.axhline(reliability, linestyle="--", linewidth=0.8, color="black", label="one human rater")
    finite = np.concatenate([values for _, values in series])
    finite = finite[np.isfinite(finite)]
    ax.set_ylim(
        min(0.0, finite.min() - 0.05) if finite.size else 0.0,
        max(1.0, finite.max() + 0.05) if finite.size else 1.0,
    )
    ax.set_xticks(positions, systems)
    ax.set_xlabel("System score")
    ax.set_ylabel("Proportion of variance")
    ax.set_title("Evaluation against true scores")
    ax.legend(fontsize="small")
    return ax


@fill(axes=AXES_DOC)
def scaling_standard_error(table: pd.DataFrame, *, value: str = "se_pp", ax=None):
    """Attali (2007) Figure 1: standard error of the scaling mean by raters ``k`` and essays ``n``.

    Parameters
    ----------
    table : pandas.DataFrame
        The table of :func:`pdmetrics.scoring.scaling_precision_table` (columns ``n, k`` and
        ``value``); its defaults are the paper's grid.
    value : {"se_pp", "se_ep"} or str, default "se_pp"
        Column to draw: the PP standard error of the paper's figure, or the EP one (or any
        numeric column of the table).
    {axes}
        One line per number of essays ``n`` (legend ``N=1``, ``N=2``, ...), raters ``k`` on the
        x axis, as the paper's figure.

    Examples
    --------
    >>> from pdmetrics.scoring import scaling_precision_table
    >>> from pdmetrics.plotting.scoring import scaling_standard_error
    >>> ax = scaling_standard_error(scaling_precision_table())
    >>> len(ax.lines), [t.get_text() for t in ax.get_legend().get_texts()]
    (6, ['N=1', 'N=2', 'N=5', 'N=10', 'N=20', 'N=50'])
    """
    producer = "`pdmetrics.scoring.scaling_precision_table(n=, k=)`"
    check_table(table, ("n", "k", value), producer)
    ax = axes_for(ax)
    for n in pd.unique(table["n"]):
        rows = table[table["n"] == n].sort_values("k")
        ax.plot(rows["k"].to_numpy(), rows[value].to_numpy(dtype=float), marker="o", label=f"N={n:g}")
    ax.set_xticks(np.sort(pd.unique(table["k"])))
    ax.set_xlabel("Raters (K)")
    ax.set_ylabel("Std error of the mean")
    ax.set_ylim(bottom=0.0)
    ax.set_title("Standard error of the scaling mean")
    ax.legend()
    return ax


#: The pairwise statistics of the agreement table a heatmap can draw.
PAIRWISE_STATISTICS = ("cohen_kappa", "cohen_kappa_linear", "cohen_kappa_quadratic")


@fill(axes=AXES_DOC)
def agreement(
    table: pd.DataFrame, *, statistic: str = "cohen_kappa", group=None, cmap: str = "Blues", ax=None
):
    """Rater-by-rater heatmap of the pairwise Cohen's kappa of an agreement table.

    Parameters
    ----------
    table : pandas.DataFrame
        The table of :meth:`df.scoring.agreement <pdmetrics.accessors.ScoringAccessor.agreement>`
        (columns ``statistic, raters, value``; its pairwise rows ``raters="r1 vs r2"``), or of
        :meth:`df.textgen.judge_agreement <pdmetrics.accessors.TextgenAccessor.judge_agreement>`
        (its ``comparison="judges"`` rows: judge by judge).
    statistic : {"cohen_kappa", "cohen_kappa_linear", "cohen_kappa_quadratic"}, default "cohen_kappa"
        The pairwise statistic to draw (the weighted ones from ``level="ordinal"`` on).
    group : optional
        With ``by=``: the group to draw (default the pooled ``"(all)"`` rows).
    cmap : str, default "Blues"
        Colour map.
    {axes}
        The raters on both axes (in the table's order), every cell annotated with the pair's
        value (two decimals), the diagonal 1 and a pair without a value (undefined) blank.

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> from pdmetrics.plotting.scoring import agreement
    >>> df = pd.DataFrame({"r1": [1, 2, 3, 3, 2, 1], "r2": [1, 2, 3, 2, 2, 1], "r3": [1, 1, 3, 3, 2, 1]})
    >>> ax = agreement(df.scoring.agreement(raters=["r1", "r2", "r3"], n_resamples=0))
    >>> [t.get_text() for t in ax.texts]
    ['1.00', '0.75', '0.75', '0.75', '1.00', '0.52', '0.75', '0.52', '1.00']
    """
    producer = "`df.scoring.agreement(raters=)`"
    check_table(table, ("statistic", "raters", "value"), producer)
    if statistic not in PAIRWISE_STATISTICS:
        raise InvalidInputError(
            f"`statistic={statistic!r}` is not a pairwise statistic; use one of {list(PAIRWISE_STATISTICS)}."
        )
    rows = table
    if "comparison" in rows.columns:  # a judge_agreement table: the judges' rows
        rows = rows[rows["comparison"] == "judges"]
    if "group" in rows.columns:
        rows = rows[rows["group"] == choose(rows, "group", group, "group", default="(all)")]
    rows = rows[rows["statistic"] == statistic]
    if rows.empty:
        raise InvalidInputError(
            f"The table has no {statistic!r} rows: pass the table of {producer} with two raters or more"
            + (
                " and level='ordinal' or above for the weighted kappas."
                if statistic != "cohen_kappa"
                else "."
            )
        )
    pairs = [str(raters).split(" vs ") for raters in rows["raters"]]
    if any(len(pair) != 2 for pair in pairs):
        raise InvalidInputError(
            "The pairwise rows' `raters` must read 'r1 vs r2' (rater names without ' vs '); "
            "rename the raters."
        )
    names = list(dict.fromkeys(name for pair in pairs for name in pair))
    position = {name: i for i, name in enumerate(names)}
    matrix = np.eye(len(names))
    first = np.array([position[a] for a, _ in pairs], dtype=np.intp)
    second = np.array([position[b] for _, b in pairs], dtype=np.intp)
    values = rows["value"].to_numpy(dtype=float)
    matrix[first, second] = values
    matrix[second, first] = values
    ax = axes_for(ax)
    heatmap(ax, matrix, names, names, row_title="Rater", column_title="Rater", fmt="{:.2f}", cmap=cmap)
    ax.set_title(f"Pairwise agreement ({statistic})")
    return ax


# ----------------------------------------------------------------------------------------
# df.scoring.plot
# ----------------------------------------------------------------------------------------
class ScoringPlots:
    """``df.scoring.plot``: compute a scoring table from the frame's columns and draw it.

    Each method takes the column keywords of the ``df.scoring`` method that makes the
    table, the drawing options of the same-named function of :mod:`pdmetrics.plotting.scoring`
    and ``ax=None``, and returns what that function returns.
    """

    def __init__(self, frame: pd.DataFrame) -> None:
        self._frame = frame

    compare = comparison_method("pdmetrics.scoring.comparison")

    def _column(self, argument: str, name) -> pd.Series:
        names = require_columns(self._frame, argument, name)
        if len(names) != 1:
            raise InvalidInputError(f"`{argument}=` takes one column name for this figure; got {names!r}.")
        return self._frame[names[0]]

    def _columns(self, argument: str, names) -> pd.DataFrame:
        return self._frame[require_columns(self._frame, argument, names)]

    def score_distribution(self, *, human, system, exclude_zero: bool = True, ax=None):
        """Human vs system score distribution; see :func:`pdmetrics.plotting.scoring.score_distribution`."""
        table = score_distribution_table(self._frame, human=human, system=system, exclude_zero=exclude_zero)
        return score_distribution(table, ax=ax)

    def confusion_matrix(
        self, *, human, system, exclude_zero: bool = True, normalize=None, cmap="Blues", ax=None
    ):
        """Confusion-matrix heatmap of one system column; see
        :func:`pdmetrics.plotting.scoring.confusion_matrix`."""
        self._column("system", system)  # one system column: one matrix
        table = confusion_matrix_table(self._frame, human=human, system=system, exclude_zero=exclude_zero)
        return confusion_matrix(table, normalize=normalize, cmap=cmap, ax=ax)

    def evaluation_by_group(
        self,
        *,
        human,
        system,
        by,
        exclude_zero: bool = True,
        metrics=("corr", "wtkappa", "DSM"),
        reference_lines: bool = True,
        ax=None,
    ):
        """Subgroup metric grid; see :func:`pdmetrics.plotting.scoring.evaluation_by_group`."""
        table = evaluate(self._frame, human=human, system=system, by=by, exclude_zero=exclude_zero)
        return evaluation_by_group(table, metrics=metrics, reference_lines=reference_lines, ax=ax)

    def score_fairness(self, *, human, system, by, base_group=None, estimate: str = "error", ax=None):
        """Score fairness coefficients with 95% CIs (from
        :func:`pdmetrics.fairness.score_fairness_estimates`); see
        :func:`pdmetrics.plotting.scoring.score_fairness`."""
        table = score_fairness_estimates(
            self._frame, human=human, system=system, by=by, base_group=base_group
        )
        return score_fairness(table, estimate=estimate, ax=ax)

    def true_score(self, *, system, raters, rater_error_variance=None, exclude_zero: bool = True, ax=None):
        """PRMSE bars; see :func:`pdmetrics.plotting.scoring.true_score`."""
        table = true_score_table(
            self._frame,
            system=system,
            raters=raters,
            rater_error_variance=rater_error_variance,
            exclude_zero=exclude_zero,
        )
        return true_score(table, ax=ax)

    def agreement(
        self,
        *,
        raters,
        level: str = "nominal",
        by=None,
        statistic: str = "cohen_kappa",
        group=None,
        cmap: str = "Blues",
        ax=None,
    ):
        """Pairwise Cohen's kappa heatmap (from :func:`pdmetrics.scoring.agreement`, no
        bootstrap); see :func:`pdmetrics.plotting.scoring.agreement`."""
        table = agreement_table(self._frame, raters=raters, level=level, by=by, n_resamples=0)
        return agreement(table, statistic=statistic, group=group, cmap=cmap, ax=ax)
