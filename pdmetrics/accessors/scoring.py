"""The ``df.scoring`` accessor: thin wrappers over the core functions of
:mod:`pdmetrics.scoring`."""

from __future__ import annotations

from pdmetrics.accessors.base import Accessor, method, namespace
from pdmetrics.rsmeval.reporting import report
from pdmetrics.scoring.postprocessing import DEFAULT_TRIM_TOLERANCE


class ScoringAccessor(Accessor):
    """Scoring-engine evaluation on a DataFrame: ``df.scoring.<method>(...)``.

    The accessor holds only the DataFrame; every method takes column names as keyword
    arguments, returns a new DataFrame and leaves the caller's frame unchanged.
    """

    _domain = "scoring"

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
    postprocess = method("pdmetrics.scoring.postprocessing")

    # ----------------------------------------------------------------------------------
    # evaluation tables
    # ----------------------------------------------------------------------------------
    evaluate = method("pdmetrics.scoring.tables")

    consistency = method("pdmetrics.scoring.tables")

    def report(
        self,
        *,
        human,
        system,
        second_human=None,
        by=None,
        id=None,
        candidate=None,
        min_items_per_candidate: int | None = None,
        flag: dict | None = None,
        min_n_per_group: int | dict | None = None,
        trim_min: float,
        trim_max: float,
        trim_tolerance: float = DEFAULT_TRIM_TOLERANCE,
        scale_with=None,
        exclude_zero: bool = True,
        rater_error_variance: float | None = None,
        layout: str = "tidy",
    ):
        """Run RSMTool's whole evaluation and return every table in one report object.

        See :func:`pdmetrics.rsmeval.report` for the parameters and the tables (the same
        keywords: ``id``, ``candidate``, ``min_items_per_candidate``, ``flag`` and
        ``min_n_per_group`` as rsmeval's options of the same meaning);
        ``report[name]`` gives a tidy table (the scores named by your columns, as
        :meth:`postprocess` names them; ``layout="rsmtool"``: by RSMTool's names),
        ``report.to_csv(directory, prefix)`` writes rsmeval's files (always RSMTool's names).

        Examples
        --------
        >>> import pdmetrics
        >>> from pdmetrics.datasets import simulate_scores
        >>> report = simulate_scores(1000, seed=2).scoring.report(
        ...     human="sc1", system="raw", second_human="sc2", trim_min=1, trim_max=6)
        >>> report["true_score_eval"][["system", "PRMSE true"]].round(2)
                   system  PRMSE true
        0             raw        0.73
        1        raw_trim        0.73
        2  raw_trim_round        0.66
        """
        return report(
            self._frame,
            human=human,
            system=system,
            second_human=second_human,
            by=by,
            id=id,
            candidate=candidate,
            min_items_per_candidate=min_items_per_candidate,
            flag=flag,
            min_n_per_group=min_n_per_group,
            trim_min=trim_min,
            trim_max=trim_max,
            trim_tolerance=trim_tolerance,
            scale_with=scale_with,
            exclude_zero=exclude_zero,
            rater_error_variance=rater_error_variance,
            layout=layout,
        )

    degradation = method("pdmetrics.scoring.human_baseline")

    disattenuated_correlations = method("pdmetrics.scoring.human_baseline")

    confusion_matrix = method("pdmetrics.scoring.tables")

    score_distribution = method("pdmetrics.scoring.tables")

    # on-the-fly scoring models (Attali 2007)
    weighted_score = method("pdmetrics.scoring.model_tables")

    predict = method("pdmetrics.scoring.model_tables")

    fit_pp = method("pdmetrics.scoring.model_tables")

    fit_ep = method("pdmetrics.scoring.model_tables")

    # true scores (PRMSE)
    true_score = method("pdmetrics.scoring.true_scores")


#: The classes registered on dask and polars frames while these methods do not run through specs.
ENGINES = {
    "dask": "pdmetrics._dask.scoring:DaskScoringAccessor",
    "polars": "pdmetrics.engines.polars:forwarding_class",
}
