"""The ``df.fairness`` accessor: one line per method over the core functions of
:mod:`pdmetrics.fairness`."""

from __future__ import annotations

from pdmetrics.accessors.base import Accessor, method, namespace


class FairnessAccessor(Accessor):
    """Fairness metrics on a DataFrame: ``df.fairness.<method>(...)``.

    The accessor holds only the DataFrame; every method returns a new DataFrame and
    leaves the caller's frame unchanged. Each method is the function of the same name in
    :mod:`pdmetrics.fairness` on the accessor's frame (pandas, dask or polars).
    """

    _domain = "fairness"

    plot = namespace(
        """Figures of the fairness tables: ``df.fairness.plot.by_group(...)``, ``.classification(...)``,
        ``.class_gaps(...)``, ``.group_disparity(...)``, ``.gap_tests(...)``, ``.inequality(...)`` (see
        :class:`pdmetrics.plotting.fairness.FairnessPlots`).""",
    )

    # classification fairness (seed 003: SPD, DI, AOD, EOD; per-group rates)
    classification = method("pdmetrics.fairness.parity")
    by_group = method("pdmetrics.fairness.group_rates")
    group_disparity = method("pdmetrics.fairness.group_rates")
    compare = method("pdmetrics.fairness.comparison")

    # is the gap real? tests, intervals and power per group and rate (issue 26)
    gap_tests = method("pdmetrics.fairness.gap_significance")
    intersections = method("pdmetrics.fairness.crossed_groups")

    # continuous scores by group (issue 26: KS, Wasserstein, ROC AUC, calibration)
    score_distributions = method("pdmetrics.fairness.score_groups")

    # AIF360's individual and inequality measures (issue 26: generalized entropy, consistency,
    # differential fairness)
    inequality = method("pdmetrics.fairness.inequality_indices")
    consistency = method("pdmetrics.fairness.neighbours")
    differential_fairness = method("pdmetrics.fairness.differential")

    # LLM evaluation tables (seed 003)
    llm_fairness = method("pdmetrics.fairness.llm")
    context_association = method("pdmetrics.fairness.association")
    counterfactual = method("pdmetrics.fairness.llm")
    language_accuracy = method("pdmetrics.fairness.language")
    average_metrics = method("pdmetrics.fairness.averages")

    # score fairness (RSMTool)
    score_fairness = method("pdmetrics.fairness.regression")
    score_fairness_estimates = method("pdmetrics.fairness.regression")
