"""The ``df.textgen`` accessor: each method one line over its core function in :mod:`pdmetrics.textgen`.

ROUGE and BLEU take one row per generated answer: ``prediction=`` names the answer column and
``reference=`` the reference column (a list of columns, or a column of lists, for several
references); the per-row table keeps the frame's index (``df.join`` is right), with the
``datum=`` column first when given; a row without a prediction or any reference is left out
with an :class:`~pdmetrics.ExcludedRowsWarning`; ``by=`` averages the per-row values by
group, with an ``"(all)"`` row first (an error when no row is left to average). The
LLM-guided metrics take the judge's verdict table in long form (one row per judged
statement, claim, opinion or context): ``datum=`` names the datum id column and ``verdict=``
the verdict column; ``by=`` (a column constant within each datum) averages the per-datum
values by group, with an ``"(all)"`` row first.
"""

from __future__ import annotations

from pdmetrics.accessors.base import Accessor, method, namespace


class TextgenAccessor(Accessor):
    """Text-generation metrics on a DataFrame: ``df.textgen.<method>(...)``.

    The accessor holds only the DataFrame; every method takes column names as keyword
    arguments, returns a new DataFrame and leaves the caller's frame unchanged.
    """

    _domain = "textgen"

    plot = namespace(
        """Figures: ``df.textgen.plot.compare(...)`` draws the forest plot of
        :meth:`compare` (see :class:`pdmetrics.plotting.textgen.TextgenPlots`).""",
    )

    # one row per generated answer
    rouge = method("pdmetrics.textgen.rouge_scores")
    bleu = method("pdmetrics.textgen.bleu_scores")
    # corpus scores (sacrebleu) and the paired comparison of two systems
    corpus_bleu = method("pdmetrics.textgen.corpus")
    chrf = method("pdmetrics.textgen.corpus")
    ter = method("pdmetrics.textgen.corpus")
    paired_bootstrap = method("pdmetrics.textgen.paired")
    # is system B better than baseline A? every metric above, paired intervals and p-values
    compare = method("pdmetrics.textgen.comparison")
    # the LLM-guided metrics, from the judge's verdict table
    answer_correctness = method("pdmetrics.textgen.verdicts")
    answer_relevance = method("pdmetrics.textgen.verdicts")
    bias = method("pdmetrics.textgen.verdicts")
    context_precision = method("pdmetrics.textgen.verdicts")
    context_recall = method("pdmetrics.textgen.verdicts")
    context_relevance = method("pdmetrics.textgen.verdicts")
    faithfulness = method("pdmetrics.textgen.verdicts")
    hallucination = method("pdmetrics.textgen.verdicts")
    summary_coherence = method("pdmetrics.textgen.verdicts")
    toxicity = method("pdmetrics.textgen.verdicts")
    # can the judges be trusted? agreement between judges, runs and with humans
    judge_agreement = method("pdmetrics.textgen.judges")
