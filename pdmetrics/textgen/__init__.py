"""Text generation metrics (``df.textgen``): ROUGE and BLEU against reference texts (as valor
computes them), corpus BLEU, chrF/chrF++ and TER (as sacrebleu does), the paired bootstrap
comparison of two systems, and the LLM-guided metrics from a judge's verdict table."""

from pdmetrics.errors import EmptyTokensWarning
from pdmetrics.textgen.bleu_scores import bleu
from pdmetrics.textgen.corpus import (
    SACREBLEU_VERSION,
    chrf,
    corpus_bleu,
    metric_signature,
    scores_from_statistics,
    segment_statistics,
    ter,
)
from pdmetrics.textgen.paired import paired_bootstrap
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
    "corpus_bleu",
    "chrf",
    "ter",
    "segment_statistics",
    "scores_from_statistics",
    "metric_signature",
    "SACREBLEU_VERSION",
    "paired_bootstrap",
]
