"""Text generation metrics (``df.textgen``): ROUGE and BLEU against reference texts (as valor
computes them), corpus BLEU, chrF/chrF++ and TER (as sacrebleu does), the LLM-guided metrics
from a judge's verdict table, the judges' agreement (``judge_agreement``), and the paired
comparison of systems on any of them (``compare``; sacrebleu's own paired bootstrap: ``paired_bootstrap``)."""

from pdmetrics._lazy import lazy_attributes

# the metric modules load on first use (see pdmetrics._lazy)

#: Each public name (the package's ``__all__``, in this order) and the module defining it: imported
#: when the name is first looked up.
_WHERE = {
    "EmptyTokensWarning": "pdmetrics.errors",
    "bleu": "pdmetrics.textgen.bleu_scores",
    "rouge": "pdmetrics.textgen.rouge_scores",
    "answer_correctness": "pdmetrics.textgen.verdicts",
    "answer_relevance": "pdmetrics.textgen.verdicts",
    "bias": "pdmetrics.textgen.verdicts",
    "context_precision": "pdmetrics.textgen.verdicts",
    "context_recall": "pdmetrics.textgen.verdicts",
    "context_relevance": "pdmetrics.textgen.verdicts",
    "faithfulness": "pdmetrics.textgen.verdicts",
    "hallucination": "pdmetrics.textgen.verdicts",
    "metric_means": "pdmetrics.textgen.means",
    "summary_coherence": "pdmetrics.textgen.verdicts",
    "toxicity": "pdmetrics.textgen.verdicts",
    "corpus_bleu": "pdmetrics.textgen.corpus",
    "chrf": "pdmetrics.textgen.corpus",
    "ter": "pdmetrics.textgen.corpus",
    "segment_statistics": "pdmetrics.textgen.corpus",
    "scores_from_statistics": "pdmetrics.textgen.corpus",
    "metric_signature": "pdmetrics.textgen.corpus",
    "SACREBLEU_VERSION": "pdmetrics.textgen.corpus",
    "paired_bootstrap": "pdmetrics.textgen.paired",
    "compare": "pdmetrics.textgen.comparison",
    "judge_agreement": "pdmetrics.textgen.judges",
}

__getattr__, __dir__, __all__ = lazy_attributes(__name__, _WHERE)
