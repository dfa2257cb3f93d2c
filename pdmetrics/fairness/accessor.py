"""The ``df.fairness`` accessor."""

from __future__ import annotations

import pandas as pd


@pd.api.extensions.register_dataframe_accessor("fairness")
class FairnessAccessor:
    """Fairness metrics on a DataFrame: ``df.fairness.<method>(...)``.

    The accessor holds only the DataFrame; every method returns a new DataFrame and
    leaves the caller's frame unchanged.
    """

    def __init__(self, frame: pd.DataFrame) -> None:
        self._frame = frame

    # score fairness (RSMTool)
    def score_fairness(self, *, human, system, group, base_group=None) -> pd.DataFrame:
        """Score fairness metrics (OSA, OSD, CSD) per group column, as RSMTool's ``fairness_metrics_by_<G>``.

        Parameters
        ----------
        human, system : str
            Columns of human scores and system scores (RSMTool uses the trimmed system
            score, ``raw_trim`` or ``scale_trim``).
        group : str or list of str
            Group column(s); one block of three rows per column.
        base_group : optional
            Reference group (for every group column). Default: the largest group, ties
            broken alphabetically.

        Returns
        -------
        pandas.DataFrame
            ``by`` (the group column), then the columns of
            :func:`pdmetrics.fairness.score_fairness`: ``model, metric, base_category, N,
            R2, sig, F, df_num, df_denom, R2_unadjusted``. ``R2`` is RSMTool's: the
            adjusted R2 (can be negative).

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> df = pd.DataFrame({"sc1": [1, 2, 3, 4, 2, 3, 4, 5, 3, 3, 2, 4, 3],
        ...                    "raw": [1.2, 2.2, 2.9, 3.7, 2.5, 3.1, 3.6, 4.4, 3.3, 2.8, 2.1, 4.3, 3.0],
        ...                    "L1": ["big"] * 5 + ["x.y"] * 4 + ["z"] * 4})
        >>> table = df.fairness.score_fairness(human="sc1", system="raw", group="L1")
        >>> table[["by", "model", "R2", "sig"]].round(4)
           by model      R2     sig
        0  L1   osa  0.0523  0.3072
        1  L1   osd -0.0494  0.5115
        2  L1   csd -0.2050  0.9523
        """
        return self._score_fairness(human, system, group, base_group)[0]

    def score_fairness_estimates(self, *, human, system, group, base_group=None) -> pd.DataFrame:
        """Coefficients of the score fairness models, as RSMTool's ``estimates_{osa,osd,csd}_by_<G>``.

        Parameters are those of :meth:`score_fairness`.

        Returns
        -------
        pandas.DataFrame
            ``by`` (the group column), then the columns of
            :func:`pdmetrics.fairness.score_fairness_estimates`: ``model, term, group,
            rsmtool_label, N, estimate, P>[t], [0.025, 0.975]``. ``group`` holds the full
            label; ``rsmtool_label`` the row label RSMTool writes (cut at the first ``"."``).

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> df = pd.DataFrame({"sc1": [2, 3, 2, 3], "raw": [1, 1.5, 3, 3.5],
        ...                    "L1": ["Klingon", "Klingon", "Esperanto", "Esperanto"]})
        >>> table = df.fairness.score_fairness_estimates(human="sc1", system="raw", group="L1")
        >>> table.loc[table["model"] == "osd", ["group", "rsmtool_label", "estimate"]]
               group          rsmtool_label  estimate
        2  Esperanto  Intercept (Esperanto)      0.75
        3    Klingon                Klingon     -2.00
        """
        return self._score_fairness(human, system, group, base_group)[1]

    def _score_fairness(self, human, system, group, base_group) -> tuple[pd.DataFrame, pd.DataFrame]:
        from pdmetrics._tables import attach_info
        from pdmetrics._validation import numeric_values, require_columns
        from pdmetrics.fairness.regression import score_fairness_tables

        frame = self._frame
        (human,) = require_columns(frame, "human", human)
        (system,) = require_columns(frame, "system", system)
        groups = require_columns(frame, "group", group)
        h = numeric_values(frame[human], "human")
        s = numeric_values(frame[system], "system")
        metrics, estimates, rows_used = [], [], {}
        for name in groups:
            m, e = score_fairness_tables(h, s, frame[name], base_group)
            rows_used[name] = m.attrs["pdmetrics"]["rows_used"]
            metrics.append(m.assign(by=name)[["by", *m.columns]])
            estimates.append(e.assign(by=name)[["by", *e.columns]])
        info = {"human": human, "system": system, "group": groups, "base_group": base_group,
                "rows_used": rows_used}
        return (attach_info(pd.concat(metrics, ignore_index=True), **info),
                attach_info(pd.concat(estimates, ignore_index=True), **info))
