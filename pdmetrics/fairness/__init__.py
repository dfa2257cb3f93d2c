"""Fairness of scores, classifiers and LLMs (``df.fairness``)."""

from pdmetrics._lazy import lazy_attributes

# the modules load on first use (see pdmetrics._lazy)

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

#: The module defining each public name: imported when the name is first looked up.
_WHERE = {
    "average_abs_odds_difference": "pdmetrics.fairness.parity",
    "average_odds_difference": "pdmetrics.fairness.parity",
    "bootstrap_counts": "pdmetrics.fairness.bootstrap",
    "classification": "pdmetrics.fairness.parity",
    "confusion_counts": "pdmetrics.fairness.confusion",
    "disparate_impact": "pdmetrics.fairness.parity",
    "disparity_from_rates": "pdmetrics.fairness.group_rates",
    "equal_opportunity_difference": "pdmetrics.fairness.parity",
    "fairness_from_counts": "pdmetrics.fairness.parity",
    "group_disparity": "pdmetrics.fairness.group_rates",
    "by_group": "pdmetrics.fairness.group_rates",
    "percentile_interval": "pdmetrics.fairness.bootstrap",
    "privileged_groups": "pdmetrics.fairness.groups",
    "rates_from_counts": "pdmetrics.fairness.confusion",
    "statistical_parity_difference": "pdmetrics.fairness.parity",
    "average_metrics": "pdmetrics.fairness.averages",
    "call_errors": "pdmetrics.fairness.llm",
    "context_association": "pdmetrics.fairness.association",
    "context_association_scores": "pdmetrics.fairness.association",
    "counterfactual": "pdmetrics.fairness.llm",
    "language_accuracy": "pdmetrics.fairness.language",
    "language_scores": "pdmetrics.fairness.language",
    "llm_fairness": "pdmetrics.fairness.llm",
    "parse_option": "pdmetrics.fairness.association",
    "rsmtool_coefficient_label": "pdmetrics.fairness.regression",
    "rsmtool_fairness_tables": "pdmetrics.fairness.regression",
    "score_fairness": "pdmetrics.fairness.regression",
    "score_fairness_estimates": "pdmetrics.fairness.regression",
    "score_fairness_tables": "pdmetrics.fairness.regression",
}

__getattr__, __dir__ = lazy_attributes(__name__, _WHERE)
