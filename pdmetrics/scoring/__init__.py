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
from pdmetrics.scoring.model import (
    LinearScoringModel,
    relative_influence,
    weighted_score_sd,
)
from pdmetrics.scoring.reliability import (
    attenuated_correlation,
    ep_pp_sample_size_ratio,
    rating_sd,
    scaling_precision_table,
    scaling_standard_error,
    spearman_brown,
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
    "LinearScoringModel",
    "relative_influence",
    "weighted_score_sd",
    "attenuated_correlation",
    "ep_pp_sample_size_ratio",
    "rating_sd",
    "scaling_precision_table",
    "scaling_standard_error",
    "spearman_brown",
]
