"""The ``df.scoring`` accessor: thin wrappers over the core functions of
:mod:`pdmetrics.scoring`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdmetrics._validation import as_list, numeric_values, require_columns
from pdmetrics.errors import InvalidInputError
from pdmetrics.scoring.degradation import degradation_table, disattenuated_correlation_table
from pdmetrics.scoring.postprocess import DEFAULT_TRIM_TOLERANCE, postprocess_scores, scaling_from_frame
from pdmetrics.scoring.subgroups import consistency_by_group_table, evaluation_by_group_table
from pdmetrics.scoring.tables import (
    confusion_matrix_table,
    consistency_table,
    evaluation_table,
    score_distribution_table,
)


@pd.api.extensions.register_dataframe_accessor("scoring")
class ScoringAccessor:
    """Scoring-engine evaluation on a DataFrame: ``df.scoring.<method>(...)``.

    The accessor holds only the DataFrame; every method takes column names as keyword
    arguments, returns a new DataFrame and leaves the caller's frame unchanged.
    """

    def __init__(self, frame: pd.DataFrame) -> None:
        self._frame = frame

    def _columns(self, argument: str, names) -> list:
        return require_columns(self._frame, argument, names)

    def _column(self, argument: str, name):
        names = as_list(name, argument)
        if len(names) != 1:
            raise InvalidInputError(f"`{argument}=` takes one column name; got {names!r}.")
        return require_columns(self._frame, argument, names)[0]

    # ----------------------------------------------------------------------------------
    # post-processing
    # ----------------------------------------------------------------------------------
    def postprocess(self, *, system, trim_min: float, trim_max: float,
                    trim_tolerance: float = DEFAULT_TRIM_TOLERANCE, scale_with=None,
                    human=None) -> pd.DataFrame:
        """Add RSMTool's trimmed, rounded and (optionally) scaled score columns.

        Parameters
        ----------
        system : str or list of str
            Raw system score column(s).
        trim_min, trim_max : float
            Lowest and highest score points of the scale.
        trim_tolerance : float, default 0.4998
            Trimmed scores lie in ``[trim_min - trim_tolerance, trim_max + trim_tolerance]``.
        scale_with : {None, "asis"} or DataFrame, optional
            ``None``: add ``<system>_trim`` and ``<system>_trim_round``. ``"asis"``: the
            scores are already on the human scale; also add ``<system>_scale`` (a copy),
            ``<system>_scale_trim`` and ``<system>_scale_trim_round``. A training DataFrame
            with the same ``human`` and ``system`` columns: scale linearly so that its
            system scores would have its human mean and SD (RSMTool's ``scale_with``).
        human : str, optional
            Human score column of the training frame; required when ``scale_with`` is a
            DataFrame.

        Returns
        -------
        pandas.DataFrame
            A copy of the frame with the new columns appended (existing columns of the
            same name are replaced). Rounding is half to even; rounded columns are float
            so that missing scores stay NaN.

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics
        >>> df = pd.DataFrame({"sc1": [1, 3, 6], "raw": [0.3, 3.5, 6.8]})
        >>> df.scoring.postprocess(system="raw", trim_min=1, trim_max=6)
           sc1  raw  raw_trim  raw_trim_round
        0    1  0.3    0.5002             1.0
        1    3  3.5    3.5000             4.0
        2    6  6.8    6.4998             6.0
        """
        systems = self._columns("system", system)
        scaling = scale_with
        if isinstance(scale_with, pd.DataFrame):
            if human is None:
                raise InvalidInputError("`scale_with=<DataFrame>` needs `human=`: the human score column "
                                        "of the training frame.")
        elif scale_with is not None and not (isinstance(scale_with, str) and scale_with == "asis"):
            raise InvalidInputError(f"`scale_with={scale_with!r}`: pass None, 'asis' or a training "
                                    "DataFrame with the same human and system columns.")
        added = []
        for name in systems:
            if isinstance(scale_with, pd.DataFrame):
                scaling = scaling_from_frame(scale_with, human, name)
            values = numeric_values(self._frame[name], "system")
            added.append(postprocess_scores(pd.Series(values, index=self._frame.index), trim_min, trim_max,
                                            trim_tolerance, scaling, name=str(name)))
        new = pd.concat(added, axis=1)
        kept = self._frame.drop(columns=[c for c in new.columns if c in self._frame.columns])
        return pd.concat([kept, new], axis=1)

    # ----------------------------------------------------------------------------------
    # evaluation tables
    # ----------------------------------------------------------------------------------
    def evaluate(self, *, human, system, by=None, exclude_zero: bool = True) -> pd.DataFrame:
        """RSMTool's ``eval`` table: each system score column against the human scores.

        Parameters
        ----------
        human : str
            Human score column.
        system : str or list of str
            System score column(s); one table row each.
        by : str or list of str, optional
            Subgroup column(s): evaluate every group of each (RSMTool's ``eval_by_<G>``),
            with an "All data" row and the difference of standardized means ``DSM``; see
            :func:`pdmetrics.scoring.evaluation_by_group_table`.
        exclude_zero : bool, default True
            Leave out responses with a human score of 0, as RSMTool does by default.

        Returns
        -------
        pandas.DataFrame
            ``system, N, h_mean, h_sd, h_min, h_max, sys_mean, sys_sd, sys_min, sys_max,
            corr, wtkappa, R2, kappa, exact_agr, adj_agr, SMD, RMSE``; see
            :func:`pdmetrics.scoring.evaluation_table`. With ``by``: ``system, by, group``,
            the same metrics and ``DSM``. Rows with a missing or non-numeric score are left
            out (with an :class:`~pdmetrics.ExcludedRowsWarning`); the counts are in
            ``result.attrs["pdmetrics"]``.

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
        """
        human_name = self._column("human", human)
        systems = {s: self._frame[s] for s in self._columns("system", system)}
        if by is not None:
            groups = {g: self._frame[g] for g in self._columns("by", by)}
            return evaluation_by_group_table(self._frame[human_name], systems, groups,
                                             exclude_zero=exclude_zero)
        return evaluation_table(self._frame[human_name], systems, exclude_zero=exclude_zero)

    def consistency(self, *, human, second_human, by=None, exclude_zero: bool = True) -> pd.DataFrame:
        """RSMTool's ``consistency`` table: agreement between two human raters.

        Uses the double-scored rows only; the SMD is the pooled one. See
        :func:`pdmetrics.scoring.consistency_table`. With ``by``, one row per group of
        each subgroup column plus "All data", with ``DSM`` (RSMTool's
        ``consistency_by_<G>``; see :func:`pdmetrics.scoring.consistency_by_group_table`).

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics
        >>> df = pd.DataFrame({"sc1": [1, 2, 3, 4, 5, 3], "sc2": [1, 3, 3, 4, 4, None]})
        >>> df.scoring.consistency(human="sc1", second_human="sc2")[["N", "corr", "exact_agr"]].round(3)
           N   corr  exact_agr
        0  5  0.904       60.0
        """
        h1 = self._column("human", human)
        h2 = self._column("second_human", second_human)
        if by is not None:
            groups = {g: self._frame[g] for g in self._columns("by", by)}
            return consistency_by_group_table(self._frame[h1], self._frame[h2], groups,
                                              exclude_zero=exclude_zero)
        return consistency_table(self._frame[h1], self._frame[h2], exclude_zero=exclude_zero)

    def _human_pair_on_system_rows(self, human, second_human, systems):
        """Both human scores, with the first set to NaN where a system score is missing.

        RSMTool computes human-human agreement after dropping responses without a numeric
        system score; blanking the first score leaves those rows out the same way.
        """
        valid = np.ones(len(self._frame), dtype=bool)
        for name in systems:
            valid &= np.isfinite(numeric_values(self._frame[name], "system"))
        h1 = numeric_values(self._frame[human], "human")
        return (pd.Series(np.where(valid, h1, np.nan), name=human, index=self._frame.index),
                self._frame[second_human])

    def degradation(self, *, human, second_human, system, exclude_zero: bool = True) -> pd.DataFrame:
        """RSMTool's ``degradation``: system-human agreement minus human-human agreement.

        The human-human figures come from the double-scored responses that also have every
        system score, as in RSMTool. See :func:`pdmetrics.scoring.degradation_table`.

        Examples
        --------
        >>> import pdmetrics
        >>> from pdmetrics.datasets import simulate_scores
        >>> df = simulate_scores(2000, seed=3)
        >>> df.scoring.degradation(human="sc1", second_human="sc2", system="raw")[["system", "corr"]].round(2)
          system  corr
        0    raw  -0.0
        """
        h1 = self._column("human", human)
        h2 = self._column("second_human", second_human)
        systems = self._columns("system", system)
        evaluation = self.evaluate(human=h1, system=systems, exclude_zero=exclude_zero)
        first, second = self._human_pair_on_system_rows(h1, h2, systems)
        return degradation_table(evaluation, consistency_table(first, second, exclude_zero=exclude_zero))

    def disattenuated_correlations(self, *, human, second_human, system, by=None,
                                   exclude_zero: bool = True) -> pd.DataFrame:
        """RSMTool's ``disattenuated_correlations`` (and ``..._by_<G>`` with ``by``).

        ``corr_HM / sqrt(corr_HH)``: the human-system correlation corrected for the
        unreliability of the human scores. See
        :func:`pdmetrics.scoring.disattenuated_correlation_table`.

        Examples
        --------
        >>> import pdmetrics
        >>> from pdmetrics.datasets import simulate_scores
        >>> df = simulate_scores(2000, seed=3)
        >>> df.scoring.disattenuated_correlations(human="sc1", second_human="sc2", system="raw").round(2)
          system  corr_HM  corr_HH  sqrt_HH  corr_disattenuated
        0    raw     0.79     0.78     0.88                 0.9
        """
        h1 = self._column("human", human)
        h2 = self._column("second_human", second_human)
        systems = self._columns("system", system)
        first, second = self._human_pair_on_system_rows(h1, h2, systems)
        if by is None:
            evaluation = self.evaluate(human=h1, system=systems, exclude_zero=exclude_zero)
            return disattenuated_correlation_table(
                evaluation, consistency_table(first, second, exclude_zero=exclude_zero))
        groups = {g: self._frame[g] for g in self._columns("by", by)}
        evaluation = self.evaluate(human=h1, system=systems, by=by, exclude_zero=exclude_zero)
        consistency = consistency_by_group_table(first, second, groups, exclude_zero=exclude_zero)
        return disattenuated_correlation_table(evaluation, consistency, on=["by", "group"])

    def confusion_matrix(self, *, human, system, exclude_zero: bool = True) -> pd.DataFrame:
        """RSMTool's ``confMatrix`` as a tidy table of (human, system) score-pair counts.

        See :func:`pdmetrics.scoring.confusion_matrix_table`; ``.pivot(index="human_score",
        columns="system_score", values="N")`` gives RSMTool's layout.

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
        h = self._column("human", human)
        systems = self._columns("system", system)
        return confusion_matrix_table(self._frame[h], {s: self._frame[s] for s in systems},
                                      exclude_zero=exclude_zero)

    def score_distribution(self, *, human, system, exclude_zero: bool = True) -> pd.DataFrame:
        """RSMTool's ``score_dist``: percent of responses at each rounded score point.

        See :func:`pdmetrics.scoring.score_distribution_table`.

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics
        >>> df = pd.DataFrame({"sc1": [1, 2, 2, 3], "raw": [1.2, 2.4, 2.6, 3.1]})
        >>> df.scoring.score_distribution(human="sc1", system="raw")
          system  score  human   sys  difference
        0    raw      1   25.0  25.0         0.0
        1    raw      2   50.0  25.0       -25.0
        2    raw      3   25.0  50.0        25.0
        """
        h = self._column("human", human)
        systems = self._columns("system", system)
        return score_distribution_table(self._frame[h], {s: self._frame[s] for s in systems},
                                        exclude_zero=exclude_zero)

