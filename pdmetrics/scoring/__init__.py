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
from pdmetrics.scoring.true_score import (
    mse_true,
    prmse_true,
    true_score_evaluation,
    true_score_variance,
    variance_of_errors,
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
    "mse_true",
    "prmse_true",
    "true_score_evaluation",
    "true_score_variance",
    "variance_of_errors",
]
