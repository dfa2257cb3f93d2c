"""Fairness of scores, classifiers and LLMs (``df.fairness``)."""

from pdmetrics._lazy import lazy_attributes

# the modules load on first use (see pdmetrics._lazy)


#: The module defining each public name: imported when the name is first looked up.
_WHERE = {
    "average_abs_odds_difference": "pdmetrics.fairness.parity",
    "average_odds_difference": "pdmetrics.fairness.parity",
    "bootstrap_counts": "pdmetrics.fairness.bootstrap",
    "classification": "pdmetrics.fairness.parity",
    "compare": "pdmetrics.fairness.comparison",
    "confusion_counts": "pdmetrics.fairness.confusion",
    "disparate_impact": "pdmetrics.fairness.parity",
    "disparity_from_rates": "pdmetrics.fairness.group_rates",
    "equal_opportunity_difference": "pdmetrics.fairness.parity",
    "fairness_from_counts": "pdmetrics.fairness.parity",
    "group_disparity": "pdmetrics.fairness.group_rates",
    "gap_tests": "pdmetrics.fairness.gap_significance",
    "intersections": "pdmetrics.fairness.crossed_groups",
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
    "score_distributions": "pdmetrics.fairness.score_groups",
    "inequality": "pdmetrics.fairness.inequality_indices",
    "consistency": "pdmetrics.fairness.neighbours",
    "differential_fairness": "pdmetrics.fairness.differential",
}

__getattr__, __dir__, __all__ = lazy_attributes(__name__, _WHERE)
