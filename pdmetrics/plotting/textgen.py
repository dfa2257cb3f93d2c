"""Figures of the text-generation tables (``df.textgen.plot``).

:class:`TextgenPlots`, reached as ``df.textgen.plot``, computes a table from the frame's columns
and draws it in one call; ``compare`` draws the forest plot of
:func:`pdmetrics.textgen.compare` (:func:`pdmetrics.plotting.comparison.compare`);
:func:`judge_stability` the judges' verdict rate per run (:func:`pdmetrics.textgen.judge_agreement`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdmetrics._docstrings import fill
from pdmetrics.errors import InvalidInputError
from pdmetrics.plotting.axes import AXES_DOC, axes_for, check_table
from pdmetrics.plotting.comparison import comparison_method
from pdmetrics.textgen.judges import judge_agreement

__all__ = ["TextgenPlots", "judge_stability"]


@fill(axes=AXES_DOC)
def judge_stability(table: pd.DataFrame, *, ax=None):
    """Per judge, its verdict rate in each run (dots) and their mean +/- SD (a bar and its error bar).

    Parameters
    ----------
    table : pandas.DataFrame
        The table of :meth:`df.textgen.judge_agreement
        <pdmetrics.accessors.TextgenAccessor.judge_agreement>`: its ``comparison="spread"``
        rows (numeric verdicts, or ``positive=``).
    {axes}
        The judges on the x axis (in the table's order); per judge one bar at the mean of its
        runs' rates with an error bar of one SD (none with one run), and one dot per run.

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> from pdmetrics.plotting.textgen import judge_stability
    >>> verdicts = pd.DataFrame({"datum": [1, 2, 3] * 4, "judge": ["a"] * 6 + ["b"] * 6,
    ...                          "run": [1, 1, 1, 2, 2, 2] * 2,
    ...                          "verdict": [1, 0, 1, 1, 1, 1, 0, 0, 1, 0, 1, 1]})
    >>> table = verdicts.textgen.judge_agreement(datum="datum", judge="judge", verdict="verdict",
    ...                                          run="run", n_resamples=0)
    >>> ax = judge_stability(table)
    >>> [round(float(bar.get_height()), 3) for bar in ax.patches]
    [0.833, 0.5]
    >>> [len(c.get_offsets()) for c in ax.collections if c.get_label() == "one run"]
    [4]
    """
    check_table(
        table, ("comparison", "judge", "statistic", "raters", "value"), "`df.textgen.judge_agreement()`"
    )
    spread = table[table["comparison"] == "spread"]
    runs = spread[spread["statistic"] == "verdict_rate"]
    if runs.empty:
        raise InvalidInputError(
            "The table has no spread rows: the verdict rate needs numeric verdicts, or text verdicts "
            "with `positive=` (e.g. positive='yes') in `df.textgen.judge_agreement(...)`."
        )
    judges = list(pd.unique(runs["judge"]))
    x = pd.Index(judges, dtype=object).get_indexer(pd.Index(runs["judge"], dtype=object)).astype(float)

    def per_judge(statistic: str) -> np.ndarray:
        rows = spread[spread["statistic"] == statistic]
        found = pd.Index(rows["judge"], dtype=object).get_indexer(pd.Index(judges, dtype=object))
        return rows["value"].to_numpy(dtype=float)[found]

    means, sds = per_judge("verdict_rate_mean"), per_judge("verdict_rate_sd")
    # the runs of a judge side by side, within its bar
    rank = runs.groupby("judge", sort=False).cumcount().to_numpy()
    count = runs.groupby("judge", sort=False)["value"].transform("size").to_numpy()
    offset = np.where(count > 1, (rank / np.maximum(count - 1, 1) - 0.5) * 0.5, 0.0)
    ax = axes_for(ax)
    positions = np.arange(len(judges), dtype=float)
    ax.bar(positions, means, width=0.7, color="tab:blue", alpha=0.3, label="mean over runs")
    ax.errorbar(
        positions, means, yerr=np.nan_to_num(sds), fmt="none", ecolor="black", capsize=6, label="± SD"
    )
    ax.scatter(x + offset, runs["value"].to_numpy(dtype=float), color="tab:blue", zorder=3, label="one run")
    ax.set_xticks(positions, [str(judge) for judge in judges])
    ax.set_xlabel("Judge")
    ax.set_ylabel("Verdict rate")
    ax.set_title("Verdict rate per run")
    ax.legend(fontsize="small")
    return ax


class TextgenPlots:
    """``df.textgen.plot``: compute a text-generation table from the frame and draw it.

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> df = pd.DataFrame({"ref": ["the cat sat on the mat", "a dog ran in the park"] * 20,
    ...                    "old": ["the cat sat", "a dog ran"] * 20,
    ...                    "new": ["the cat sat on a mat", "a dog ran in a park"] * 20})
    >>> axes = df.textgen.plot.compare(prediction=["old", "new"], reference="ref",
    ...                                metric=["rouge1", "rougeL"], n_resamples=200)
    >>> [a.get_title() for a in axes]
    ['rouge1', 'rougeL']
    """

    def __init__(self, frame: pd.DataFrame) -> None:
        self._frame = frame

    compare = comparison_method("pdmetrics.textgen.comparison")

    def judge_stability(self, *, datum, judge, verdict, run=None, positive=None, ax=None):
        """Each judge's verdict rate per run and its spread (from
        :func:`pdmetrics.textgen.judge_agreement`, no bootstrap); see
        :func:`pdmetrics.plotting.textgen.judge_stability`."""
        table = judge_agreement(
            self._frame, datum=datum, judge=judge, verdict=verdict, run=run, positive=positive, n_resamples=0
        )
        return judge_stability(table, ax=ax)
