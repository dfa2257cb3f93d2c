"""Automated scores against human scores (``df.scoring``), as RSMTool defines them."""

from pdmetrics.scoring.human_baseline import degradation, disattenuated_correlations
from pdmetrics.scoring.metrics import (
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
    fit_ep,
    fit_pp,
    relative_influence,
    weighted_score,
    weighted_score_sd,
)
from pdmetrics.scoring.postprocessing import (
    postprocess,
    round_scores,
    scale_scores,
    scaling_parameters,
    trim_scores,
)
from pdmetrics.scoring.reliability import (
    attenuated_correlation,
    ep_pp_sample_size_ratio,
    rating_sd,
    scaling_precision_table,
    scaling_standard_error,
    spearman_brown,
)
from pdmetrics.scoring.table_states import consistency_by_group_table, evaluation_by_group_table
from pdmetrics.scoring.tables import confusion_matrix, consistency, evaluate, score_distribution
from pdmetrics.scoring.true_scores import (
    mse_true,
    prmse_true,
    true_score,
    true_score_variance,
    variance_of_errors,
)

__all__ = [
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
    "postprocess",
    "round_scores",
    "scale_scores",
    "scaling_parameters",
    "trim_scores",
    "confusion_matrix",
    "consistency",
    "evaluate",
    "score_distribution",
    "consistency_by_group_table",
    "evaluation_by_group_table",
    "degradation",
    "disattenuated_correlations",
    "LinearScoringModel",
    "fit_ep",
    "fit_pp",
    "weighted_score",
    "relative_influence",
    "weighted_score_sd",
    "attenuated_correlation",
    "ep_pp_sample_size_ratio",
    "rating_sd",
    "scaling_precision_table",
    "scaling_standard_error",
    "spearman_brown",
    "mse_true",
    "prmse_true",
    "true_score",
    "true_score_variance",
    "variance_of_errors",
]
