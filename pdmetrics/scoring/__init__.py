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
from pdmetrics.scoring.degradation import degradation_table, disattenuated_correlation_table
from pdmetrics.scoring.model import (
    LinearScoringModel,
    relative_influence,
    weighted_score_sd,
)
from pdmetrics.scoring.postprocess import (
    postprocess_scores,
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
from pdmetrics.scoring.reporting import EvaluationReport, report
from pdmetrics.scoring.subgroups import consistency_by_group_table, evaluation_by_group_table
from pdmetrics.scoring.tables import (
    confusion_matrix_table,
    consistency_table,
    evaluation_table,
    score_distribution_table,
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
    "postprocess_scores",
    "round_scores",
    "scale_scores",
    "scaling_parameters",
    "trim_scores",
    "confusion_matrix_table",
    "consistency_table",
    "evaluation_table",
    "score_distribution_table",
    "consistency_by_group_table",
    "evaluation_by_group_table",
    "degradation_table",
    "disattenuated_correlation_table",
    "LinearScoringModel",
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
    "true_score_evaluation",
    "true_score_variance",
    "variance_of_errors",
    "EvaluationReport",
    "report",
]
