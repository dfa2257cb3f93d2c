"""Text generation metrics (``df.textgen``)."""

from pdmetrics.textgen import accessor  # noqa: F401  (registers df.textgen)
from pdmetrics.textgen.verdicts import (
    answer_correctness,
    answer_relevance,
    bias,
    context_precision,
    context_recall,
    context_relevance,
    faithfulness,
    hallucination,
    metric_means,
    summary_coherence,
    toxicity,
)

__all__ = [
    "answer_correctness",
    "answer_relevance",
    "bias",
    "context_precision",
    "context_recall",
    "context_relevance",
    "faithfulness",
    "hallucination",
    "metric_means",
    "summary_coherence",
    "toxicity",
]
