"""Text generation metrics (``df.textgen``): ROUGE and BLEU against reference texts, and the
LLM-guided metrics from a judge's verdict table."""

from pdmetrics.errors import EmptyTokensWarning
from pdmetrics.textgen import accessor  # noqa: F401  (registers df.textgen)
from pdmetrics.textgen.bleu_scores import bleu
from pdmetrics.textgen.rouge_scores import rouge
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
    "EmptyTokensWarning",
    "bleu",
    "rouge",
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
