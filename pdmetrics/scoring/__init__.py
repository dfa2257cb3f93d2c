"""Automated scores against human scores (``df.scoring``), as RSMTool defines them."""

from pdmetrics.scoring.accessor import ScoringAccessor
from pdmetrics.scoring.agreement import (
    adjacent_agreement,
    agreement,
    cohen_kappa,
    difference_of_standardized_means,
    exact_agreement,
    mean_squared_error,
    pearson_r,
    quadratic_weighted_kappa,
    r2_score,
    root_mean_squared_error,
    standardized_mean_difference,
)

__all__ = [
    "ScoringAccessor",
    "adjacent_agreement",
    "agreement",
    "cohen_kappa",
    "difference_of_standardized_means",
    "exact_agreement",
    "mean_squared_error",
    "pearson_r",
    "quadratic_weighted_kappa",
    "r2_score",
    "root_mean_squared_error",
    "standardized_mean_difference",
]
