"""The ``df.scoring`` accessor: thin wrappers over the core functions of
:mod:`pdmetrics.scoring`."""

from __future__ import annotations

import pandas as pd

from pdmetrics._validation import one_column, require_columns
from pdmetrics.accessors.base import Accessor, method, namespace
from pdmetrics.scoring.model import fit_ep, fit_pp, weighted_score
from pdmetrics.scoring.postprocessing import DEFAULT_TRIM_TOLERANCE, postprocess
from pdmetrics.scoring.true_scores import true_score


class ScoringAccessor(Accessor):
    """Scoring-engine evaluation on a DataFrame: ``df.scoring.<method>(...)``.

    The accessor holds only the DataFrame; every method takes column names as keyword
    arguments, returns a new DataFrame and leaves the caller's frame unchanged.
    """

    _domain = "scoring"

    def _columns(self, argument: str, names) -> pd.DataFrame:
        """The named columns, checked (``ColumnNotFoundError`` naming the argument)."""
        return self._frame[require_columns(self._frame, argument, names)]

    def _column(self, argument: str, name) -> pd.Series:
        """The one named column, checked."""
        return one_column(self._frame, argument, name)

    plot = namespace(
        "pdmetrics.plotting.scoring",
        "ScoringPlots",
        """Figures of the scoring tables: ``df.scoring.plot.<name>(...)`` computes a table
        and draws it (see :class:`pdmetrics.plotting.scoring.ScoringPlots`; needs matplotlib,
        ``pip install "pdmetrics[plot]"``).""",
    )

    # ----------------------------------------------------------------------------------
    # post-processing
    # ----------------------------------------------------------------------------------
    def postprocess(
        self,
        *,
        system,
        trim_min: float,
        trim_max: float,
        trim_tolerance: float = DEFAULT_TRIM_TOLERANCE,
        scale_with=None,
        human=None,
    ) -> pd.DataFrame:
        """Add RSMTool's trimmed, rounded and (optionally) scaled score columns.

        Parameters
        ----------
        system : str or list of str
            Raw system score column(s).
        trim_min, trim_max : float
            Lowest and highest score points of the scale.
        trim_tolerance : float, default 0.4998
            Trimmed scores lie in ``[trim_min - trim_tolerance, trim_max + trim_tolerance]``.
        scale_with : {None, "asis"}, DataFrame or mapping, optional
            ``None``: add ``<system>_trim`` and ``<system>_trim_round``. ``"asis"``: the
            scores are already on the human scale; also add ``<system>_scale`` (a copy),
            ``<system>_scale_trim`` and ``<system>_scale_trim_round``. A training DataFrame
            with the same ``human`` and ``system`` columns: scale linearly so that its
            system scores would have its human mean and SD (RSMTool's ``scale_with``). A
            mapping: those means and SDs themselves (:func:`pdmetrics.scoring.scaling_parameters`).
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
        new = postprocess(
            self._columns("system", system), trim_min, trim_max, trim_tolerance, scale_with, human
        )
        kept = self._frame.drop(columns=[c for c in new.columns if c in self._frame.columns])
        return pd.concat([kept, new], axis=1)

    # ----------------------------------------------------------------------------------
    # evaluation tables
    # ----------------------------------------------------------------------------------
    evaluate = method("pdmetrics.scoring.tables")

    consistency = method("pdmetrics.scoring.tables")

    report = method("pdmetrics.rsmeval.reporting")

    degradation = method("pdmetrics.scoring.human_baseline")

    disattenuated_correlations = method("pdmetrics.scoring.human_baseline")

    confusion_matrix = method("pdmetrics.scoring.tables")

    score_distribution = method("pdmetrics.scoring.tables")

    # on-the-fly scoring models (Attali 2007)
    def weighted_score(self, *, features, means=None, sds=None, name: str = "Z") -> pd.DataFrame:
        r"""Append the standardized weighted score :math:`Z = \sum_i w_i (x_i - \mu_i)/\sigma_i`.

        Parameters
        ----------
        features : mapping of str to float, or LinearScoringModel
            Feature column -> weight (made relative: divided by the sum), or a model whose
            weights, means and SDs are used.
        means, sds : mapping, sequence or float, optional
            Feature means and SDs for standardization. Default: this frame's own means and
            SDs (``ddof=1``). Not allowed together with a model.
        name : str, default "Z"
            Name of the new column.

        Returns
        -------
        pandas.DataFrame
            A copy of the frame with the column appended (a column of the same name is
            replaced). Rows with a missing feature get NaN.

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics
        >>> df = pd.DataFrame({"A": [110.0, 90.0], "B": [0.35, 0.30]})
        >>> df.scoring.weighted_score(features={"A": 0.7, "B": 0.3}, means={"A": 100, "B": 0.3},
        ...                           sds={"A": 10, "B": 0.1})
               A     B     Z
        0  110.0  0.35  0.85
        1   90.0  0.30 -0.70
        """
        return weighted_score(self._frame, features=features, means=means, sds=sds, name=name)

    def fit_pp(self, *, human, model=None, weights=None, means=None, sds=None):
        """Fit the scaling of a predetermined-parameter (PP) model on this scaling sample.

        Keeps the predetermined weights and feature distributions and estimates only the
        scaling (Equations 2-3), so that this frame's scaled scores have its human mean
        and SD. See :meth:`pdmetrics.scoring.LinearScoringModel.fit_scaling`.

        Parameters
        ----------
        human : str or list of str
            Human score column, or rater columns averaged per essay.
        model : LinearScoringModel, optional
            The predetermined parameters (from an earlier EP model or expert judgment).
        weights, means, sds : mapping, optional
            Instead of ``model``: feature column -> weight, and the assumed feature means
            and SDs (mappings, sequences in weight order, or single numbers).

        Returns
        -------
        LinearScoringModel
            The scaled model; score new essays with ``model.predict(new_df)``.

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics
        >>> bench = pd.DataFrame({"A": [95, 110, 102, 120], "B": [0.2, 0.35, 0.3, 0.5],
        ...                       "h1": [2, 4, 3, 6], "h2": [3, 5, 3, 5]})
        >>> pp = bench.scoring.fit_pp(weights={"A": 70, "B": 30}, means={"A": 100, "B": 0.3},
        ...                           sds={"A": 10, "B": 0.1}, human=["h1", "h2"])
        >>> round(pp.scale_mean, 3), round(pp.scale_sd, 3)
        (3.875, 1.377)
        >>> pp.predict(bench).round(2)
             A     B  h1  h2  e_score
        0   95  0.20   2   3     2.36
        1  110  0.35   4   5     4.20
        2  102  0.30   3   3     3.33
        3  120  0.50   6   5     5.61
        """
        return fit_pp(self._frame, human=human, model=model, weights=weights, means=means, sds=sds)

    def fit_ep(self, *, features, human, weights=None):
        """Fit an estimated-parameter (EP) model on this training sample.

        Means, SDs, intercorrelations, OLS relative weights (or the fixed ``weights=``)
        and the scaling all come from this frame. See
        :meth:`pdmetrics.scoring.LinearScoringModel.fit_ep`.

        Parameters
        ----------
        features : list of str
            Feature columns.
        human : str or list of str
            Human score column, or rater columns averaged per essay.
        weights : mapping, optional
            Fixed weights (the paper's semi-optimal EP model); default OLS.

        Returns
        -------
        LinearScoringModel

        Examples
        --------
        >>> import pdmetrics
        >>> from pdmetrics.datasets import simulate_essays
        >>> df = simulate_essays(2000, n_features=3, true_weights=[0.5, 0.3, 0.2], seed=1)
        >>> ep = df.scoring.fit_ep(features=["f1", "f2", "f3"], human=["h1", "h2"])
        >>> ep.weights.round(1).tolist()
        [0.5, 0.3, 0.2]
        """
        return fit_ep(self._frame, features=features, human=human, weights=weights)

    # true scores (PRMSE)
    def true_score(self, *, system, raters, rater_error_variance=None, exclude_zero=True) -> pd.DataFrame:
        """Evaluation against true scores (RSMTool's ``true_score_eval``), one row per system column.

        Parameters
        ----------
        system : str or list of str
            System score column(s).
        raters : list of str
            Human rating columns (any number; a missing rating is NaN). With a single
            rater column, pass ``rater_error_variance``.
        rater_error_variance : float, optional
            Rater error variance estimated elsewhere (RSMTool's ``rater_error_variance``);
            default: estimated from the responses with two or more ratings.
        exclude_zero : bool, default True
            Treat a rating of 0 as missing (RSMTool's ``exclude_zero_scores``).

        Returns
        -------
        pandas.DataFrame
            ``system, N, N raters, N single, N multiple, Variance of errors, True score var,
            MSE true, PRMSE true`` (see :func:`pdmetrics.scoring.true_score`).
            Responses with a missing system score or without any rating are left out, with
            an :class:`~pdmetrics.ExcludedRowsWarning`; ``N`` counts the rest. Unlike RSMTool,
            which drops every response without a first human score, a response rated only by
            a later rater is kept (as a single rating).

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> df = pd.DataFrame({"h1": [1, 2, 3, 4, 5], "h2": [2, 2, None, 4, 4],
        ...                    "raw": [1.2, 2.1, 2.9, 4.2, 4.4]})
        >>> df.scoring.true_score(system="raw", raters=["h1", "h2"]).round(4).T
                                 0
        system                 raw
        N                        5
        N raters                 2
        N single                 1
        N multiple               4
        Variance of errors    0.25
        True score var      1.6875
        MSE true           -0.1044
        PRMSE true          1.0619
        """
        return true_score(
            self._columns("system", system),
            self._columns("raters", raters),
            rater_error_variance=rater_error_variance,
            exclude_zero=exclude_zero,
        )


#: The classes registered on dask and polars frames while these methods do not run through specs.
ENGINES = {
    "dask": "pdmetrics._dask.scoring:DaskScoringAccessor",
    "polars": "pdmetrics.engines.polars:forwarding_class",
}
