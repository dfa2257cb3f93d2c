"""Fairness of scores, classifiers and LLMs (``df.fairness``)."""

from pdmetrics.fairness.accessor import FairnessAccessor
from pdmetrics.fairness.bootstrap import bootstrap_counts, percentile_interval
from pdmetrics.fairness.by_group import disparity_from_rates, group_disparity, group_rates
from pdmetrics.fairness.classification import (
    average_abs_odds_difference,
    average_odds_difference,
    classification_fairness,
    disparate_impact,
    equal_opportunity_difference,
    fairness_from_counts,
    statistical_parity_difference,
)
from pdmetrics.fairness.confusion import confusion_counts, rates_from_counts
from pdmetrics.fairness.groups import privileged_groups

__all__ = [
    "FairnessAccessor",
    "average_abs_odds_difference",
    "average_odds_difference",
    "bootstrap_counts",
    "disparity_from_rates",
    "group_disparity",
    "group_rates",
    "percentile_interval",
    "classification_fairness",
    "confusion_counts",
    "disparate_impact",
    "equal_opportunity_difference",
    "fairness_from_counts",
    "privileged_groups",
    "rates_from_counts",
    "statistical_parity_difference",
]
