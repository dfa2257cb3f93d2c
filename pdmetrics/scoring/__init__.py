"""Automated scores against human scores (``df.scoring``), as RSMTool defines them."""

from pdmetrics._lazy import lazy_attributes

# df.scoring is registered by pdmetrics.accessors; the modules load on first use (see pdmetrics._lazy)


#: The module defining each public name: imported when the name is first looked up.
_WHERE = {
    "adjacent_agreement": "pdmetrics.scoring.metrics",
    "agreement": "pdmetrics.scoring.metrics",
    "cohen_kappa": "pdmetrics.scoring.metrics",
    "difference_of_standardized_means": "pdmetrics.scoring.metrics",
    "exact_agreement": "pdmetrics.scoring.metrics",
    "mean_squared_error": "pdmetrics.scoring.metrics",
    "pearson_r": "pdmetrics.scoring.metrics",
    "quadratic_weighted_kappa": "pdmetrics.scoring.metrics",
    "r2_score": "pdmetrics.scoring.metrics",
    "root_mean_squared_error": "pdmetrics.scoring.metrics",
    "standardized_mean_difference": "pdmetrics.scoring.metrics",
    "postprocess": "pdmetrics.scoring.postprocessing",
    "round_scores": "pdmetrics.scoring.postprocessing",
    "scale_scores": "pdmetrics.scoring.postprocessing",
    "scaling_parameters": "pdmetrics.scoring.postprocessing",
    "trim_scores": "pdmetrics.scoring.postprocessing",
    "compare": "pdmetrics.scoring.comparison",
    "mcnemar_test": "pdmetrics.scoring.comparison",
    "williams_test": "pdmetrics.scoring.comparison",
    "confusion_matrix": "pdmetrics.scoring.tables",
    "consistency": "pdmetrics.scoring.tables",
    "evaluate": "pdmetrics.scoring.tables",
    "score_distribution": "pdmetrics.scoring.tables",
    "consistency_by_group_table": "pdmetrics.scoring.table_states",
    "evaluation_by_group_table": "pdmetrics.scoring.table_states",
    "degradation": "pdmetrics.scoring.human_baseline",
    "disattenuated_correlations": "pdmetrics.scoring.human_baseline",
    "LinearScoringModel": "pdmetrics.scoring.model",
    "fit_ep": "pdmetrics.scoring.model_tables",
    "fit_pp": "pdmetrics.scoring.model_tables",
    "weighted_score": "pdmetrics.scoring.model_tables",
    "predict": "pdmetrics.scoring.model_tables",
    "relative_influence": "pdmetrics.scoring.model",
    "weighted_score_sd": "pdmetrics.scoring.model",
    "attenuated_correlation": "pdmetrics.scoring.reliability",
    "ep_pp_sample_size_ratio": "pdmetrics.scoring.reliability",
    "rating_sd": "pdmetrics.scoring.reliability",
    "scaling_precision_table": "pdmetrics.scoring.reliability",
    "scaling_standard_error": "pdmetrics.scoring.reliability",
    "spearman_brown": "pdmetrics.scoring.reliability",
    "mse_true": "pdmetrics.scoring.true_scores",
    "prmse_true": "pdmetrics.scoring.true_scores",
    "true_score": "pdmetrics.scoring.true_scores",
    "true_score_variance": "pdmetrics.scoring.true_scores",
    "variance_of_errors": "pdmetrics.scoring.true_scores",
}

__getattr__, __dir__, __all__ = lazy_attributes(__name__, _WHERE)
