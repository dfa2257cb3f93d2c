"""The ``df.scoring`` accessor: each method the core function of the same name in
:mod:`pdmetrics.scoring` (``report``: :mod:`pdmetrics.rsmeval`) on the accessor's frame."""

from __future__ import annotations

from pdmetrics.accessors.base import Accessor, method, namespace


class ScoringAccessor(Accessor):
    """Scoring-engine evaluation on a DataFrame: ``df.scoring.<method>(...)``.

    The accessor holds only the DataFrame; every method takes column names as keyword
    arguments, returns a new DataFrame and leaves the caller's frame unchanged.
    """

    _domain = "scoring"

    plot = namespace(
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
    #: is system B better than baseline A? paired intervals and tests of the eval metrics
    compare = method("pdmetrics.scoring.comparison")

    consistency = method("pdmetrics.scoring.tables")
    #: can the raters be trusted? kappas, Krippendorff's alpha, Gwet's AC1/AC2, ICCs
    agreement = method("pdmetrics.scoring.inter_rater")

    report = method("pdmetrics.rsmeval.reporting")

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
