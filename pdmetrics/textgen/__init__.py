"""Text generation metrics: corpus BLEU, chrF/chrF++ and TER as sacrebleu defines them, and the
paired bootstrap comparison of two systems."""

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

__all__ = [
    "corpus_bleu",
    "chrf",
    "ter",
    "segment_statistics",
    "scores_from_statistics",
    "metric_signature",
    "SACREBLEU_VERSION",
    "paired_bootstrap",
]
