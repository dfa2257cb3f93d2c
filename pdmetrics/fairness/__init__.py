"""Fairness of scores, classifiers and LLMs (``df.fairness``)."""

from pdmetrics.fairness.association import (
    context_association,
    context_association_scores,
    parse_option,
)
from pdmetrics.fairness.averages import average_metrics
from pdmetrics.fairness.bootstrap import bootstrap_counts, percentile_interval
from pdmetrics.fairness.confusion import confusion_counts, rates_from_counts
from pdmetrics.fairness.group_rates import by_group, disparity_from_rates, group_disparity
from pdmetrics.fairness.groups import privileged_groups
from pdmetrics.fairness.language import language_accuracy, language_scores
from pdmetrics.fairness.llm import call_errors, counterfactual, llm_fairness
from pdmetrics.fairness.parity import (
    average_abs_odds_difference,
    average_odds_difference,
    classification,
    disparate_impact,
    equal_opportunity_difference,
    fairness_from_counts,
    statistical_parity_difference,
)
from pdmetrics.fairness.regression import (
    rsmtool_coefficient_label,
    rsmtool_fairness_tables,
    score_fairness,
    score_fairness_estimates,
    score_fairness_tables,
)

__all__ = [
    # classification fairness
    "average_abs_odds_difference",
    "average_odds_difference",
    "bootstrap_counts",
    "classification",
    "confusion_counts",
    "disparate_impact",
    "disparity_from_rates",
    "equal_opportunity_difference",
    "fairness_from_counts",
    "group_disparity",
    "by_group",
    "percentile_interval",
    "privileged_groups",
    "rates_from_counts",
    "statistical_parity_difference",
    # LLM evaluation tables
    "average_metrics",
    "call_errors",
    "context_association",
    "context_association_scores",
    "counterfactual",
    "language_accuracy",
    "language_scores",
    "llm_fairness",
    "parse_option",
    # score fairness (RSMTool)
    "rsmtool_coefficient_label",
    "rsmtool_fairness_tables",
    "score_fairness",
    "score_fairness_estimates",
    "score_fairness_tables",
]
