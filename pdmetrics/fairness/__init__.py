"""Fairness of scores and classifiers (``df.fairness``)."""

from pdmetrics.fairness.accessor import FairnessAccessor
from pdmetrics.fairness.regression import (
    rsmtool_coefficient_label,
    rsmtool_fairness_tables,
    score_fairness,
    score_fairness_estimates,
    score_fairness_tables,
)

__all__ = [
    "FairnessAccessor",
    "rsmtool_coefficient_label",
    "rsmtool_fairness_tables",
    "score_fairness",
    "score_fairness_estimates",
    "score_fairness_tables",
]
