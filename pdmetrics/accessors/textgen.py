"""The ``df.textgen`` accessor: thin wrappers over the core functions of :mod:`pdmetrics.textgen`.

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

import pandas as pd

from pdmetrics._renamed import renamed
from pdmetrics._validation import one_column, require_columns
from pdmetrics.accessors.base import Accessor
from pdmetrics.errors import InvalidInputError
from pdmetrics.textgen import verdicts
from pdmetrics.textgen.bleu_scores import bleu_rows
from pdmetrics.textgen.corpus import checked_texts, chrf, corpus_bleu, ter
from pdmetrics.textgen.paired import compare
from pdmetrics.textgen.rouge_scores import rouge_rows


class TextgenAccessor(Accessor):
    """Text-generation metrics on a DataFrame: ``df.textgen.<method>(...)``.

    The accessor holds only the DataFrame; every method takes column names as keyword
    arguments, returns a new DataFrame and leaves the caller's frame unchanged.
    """

    _domain = "textgen"

    def _column(self, argument: str, name) -> pd.Series | None:
        return None if name is None else one_column(self._frame, argument, name)

    def _by_datum(self, table: pd.DataFrame, datum, by) -> pd.DataFrame:
        """The per-datum table, or its means by the groups of column ``by`` (constant within a datum)."""
        if by is None:
            return table
        groups = self._column("by", by)
        return verdicts.metric_means(table, by=groups.set_axis(self._column("datum", datum).to_numpy()))

    def _references(self, reference):
        """One reference column as a Series; several as a DataFrame."""
        if isinstance(reference, list):
            return self._frame[require_columns(self._frame, "reference", reference)]
        return self._column("reference", reference)

    def _by_row(self, scored: tuple, datum, by) -> pd.DataFrame:
        """The per-row table (the caller's index; the ``datum`` ids first when given), or its
        means by group. ``scored`` is the table and its ``TextRows`` (the rows left out are not in
        the table; they are counted in a warning)."""
        table, rows = scored
        rows.warn()
        positions = rows.positions
        if datum is not None:
            table.insert(0, "datum", self._column("datum", datum).to_numpy()[positions])
        if by is None:
            return table
        rows = pd.RangeIndex(len(table))  # each row its own datum for the means
        groups = self._column("by", by).iloc[positions].set_axis(rows)
        return verdicts.metric_means(table.set_axis(rows).assign(datum=rows), by=groups)

    def rouge(
        self,
        *,
        prediction,
        reference,
        rouge_types=("rouge1", "rouge2", "rougeL", "rougeLsum"),
        use_stemmer: bool = False,
        tokenizer: str = "rouge-score",
        details: bool = False,
        datum=None,
        by=None,
    ) -> pd.DataFrame:
        """ROUGE F-measures per row (rouge-score 0.1.2's numbers), or their means by group; see
        :func:`pdmetrics.textgen.rouge`.

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> df = pd.DataFrame({"answer": ["the cat sat", "a dog ran"],
        ...                    "gold": ["the cat sat down", "the dog ran"]})
        >>> df.textgen.rouge(prediction="answer", reference="gold", rouge_types=["rouge1", "rougeL"]).round(3)
           rouge1  rougeL
        0   0.857   0.857
        1   0.667   0.667
        """
        self._column("datum", datum), self._column("by", by)  # wrong names fail before the work
        scored = rouge_rows(
            self._column("prediction", prediction),
            self._references(reference),
            rouge_types,
            use_stemmer,
            tokenizer,
            details,
        )
        return self._by_row(scored, datum, by)

    def bleu(
        self,
        *,
        prediction,
        reference,
        weights=(0.25, 0.25, 0.25, 0.25),
        details: bool = False,
        datum=None,
        by=None,
    ) -> pd.DataFrame:
        """Sentence BLEU per row as valor computes it (nltk's numbers), or its means by group; see
        :func:`pdmetrics.textgen.bleu`."""
        self._column("datum", datum), self._column("by", by)  # wrong names fail before the work
        scored = bleu_rows(
            self._column("prediction", prediction), self._references(reference), weights, details
        )
        return self._by_row(scored, datum, by)

    def corpus_bleu(self, *, prediction, reference) -> pd.DataFrame:
        """Corpus BLEU of all rows as sacrebleu 2.6 computes it, with its signature; see
        :func:`pdmetrics.textgen.corpus_bleu`."""
        return corpus_bleu(self._column("prediction", prediction), self._references(reference))

    def chrf(self, *, prediction, reference, word_order: int = 0) -> pd.DataFrame:
        """Corpus chrF (``word_order=2``: chrF++) as sacrebleu 2.6 computes it; see
        :func:`pdmetrics.textgen.chrf`."""
        return chrf(
            self._column("prediction", prediction), self._references(reference), word_order=word_order
        )

    def ter(self, *, prediction, reference) -> pd.DataFrame:
        """Corpus TER as sacrebleu 2.6 computes it; see :func:`pdmetrics.textgen.ter`."""
        return ter(self._column("prediction", prediction), self._references(reference))

    @renamed("n_samples", "seed")
    def paired_bootstrap(
        self,
        *,
        prediction,
        baseline,
        reference,
        metric="bleu",
        n_resamples: int = 1000,
        confidence: float = 0.95,
        random_state=12345,
    ) -> pd.DataFrame:
        """Two systems' outputs on the same rows compared as sacrebleu's paired bootstrap does
        (``baseline`` is system A); see :func:`pdmetrics.textgen.paired_bootstrap`.

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> df = pd.DataFrame({"new": ["the cat sat on the mat", "a dog ran away"],
        ...                    "old": ["the cat sat on the mat", "a dog ran away"],
        ...                    "gold": ["the cat sat on the mat", "the dog ran away"]})
        >>> out = df.textgen.paired_bootstrap(prediction="new", baseline="old", reference="gold",
        ...                                   n_resamples=50)
        >>> out[["system", "p_value"]]
          system  p_value
        0    old      NaN
        1    new      1.0
        """
        for argument, name in (("baseline", baseline), ("prediction", prediction)):
            if name is None:
                raise InvalidInputError(
                    f"`{argument}=None`: name the column of the "
                    f"{'baseline system (system A)' if argument == 'baseline' else 'compared system'}'s "
                    f"outputs, e.g. `{argument}='{'old' if argument == 'baseline' else 'new'}'`."
                )
            checked_texts(self._column(argument, name), f"{argument}={name!r}")  # names the argument
        return compare(
            self._column("baseline", baseline),
            self._column("prediction", prediction),
            self._references(reference),
            metric=metric,
            n_resamples=n_resamples,
            confidence=confidence,
            random_state=random_state,
            arguments=(f"baseline={baseline!r}", f"prediction={prediction!r}"),
        )

    def _yes_share(self, metric, datum, verdict, data, by) -> pd.DataFrame:
        table = metric(self._column("datum", datum), self._column("verdict", verdict), data=data)
        return self._by_datum(table, datum, by)

    def answer_relevance(self, *, datum, verdict, data=None, by=None) -> pd.DataFrame:
        """Answer relevance per datum (``"yes"`` share of the answer's statements; ``"idk"`` is
        not relevant); see :func:`pdmetrics.textgen.answer_relevance`.

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> judged = pd.DataFrame({"id": [1, 1, 1, 2], "verdict": ["yes", "idk", "yes", "no"]})
        >>> judged.textgen.answer_relevance(datum="id", verdict="verdict").round(3)
           datum  N  answer_relevance
        0      1  3             0.667
        1      2  1             0.000
        """
        return self._yes_share(verdicts.answer_relevance, datum, verdict, data, by)

    def bias(self, *, datum, verdict, data=None, by=None) -> pd.DataFrame:
        """Bias per datum (share of biased opinions); see :func:`pdmetrics.textgen.bias`."""
        return self._yes_share(verdicts.bias, datum, verdict, data, by)

    def toxicity(self, *, datum, verdict, data=None, by=None) -> pd.DataFrame:
        """Toxicity per datum (share of toxic opinions), or its means by group.

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> judged = pd.DataFrame({"id": ["a", "a", "b", "c"], "verdict": ["yes", "no", "no", "yes"],
        ...                        "topic": ["x", "x", "y", "x"]})
        >>> judged.textgen.toxicity(datum="id", verdict="verdict", by="topic")
           topic  N  toxicity
        0  (all)  3      0.50
        1      x  2      0.75
        2      y  1      0.00
        """
        return self._yes_share(verdicts.toxicity, datum, verdict, data, by)

    def context_relevance(self, *, datum, verdict, data=None, by=None) -> pd.DataFrame:
        """Context relevance per datum; see :func:`pdmetrics.textgen.context_relevance`."""
        return self._yes_share(verdicts.context_relevance, datum, verdict, data, by)

    def hallucination(self, *, datum, verdict, data=None, by=None) -> pd.DataFrame:
        """Hallucination per datum (share of contradicted contexts); see
        :func:`pdmetrics.textgen.hallucination`."""
        return self._yes_share(verdicts.hallucination, datum, verdict, data, by)

    def faithfulness(self, *, datum, verdict, data=None, n_contexts=None, by=None) -> pd.DataFrame:
        """Faithfulness per datum (share of claims the contexts support); see
        :func:`pdmetrics.textgen.faithfulness`."""
        table = verdicts.faithfulness(
            self._column("datum", datum), self._column("verdict", verdict), data=data, n_contexts=n_contexts
        )
        return self._by_datum(table, datum, by)

    def answer_correctness(self, *, datum, verdict, ground_truth=None, data=None, by=None) -> pd.DataFrame:
        """Answer correctness per datum (F1 of the TP/FP/FN statements, best ground truth); see
        :func:`pdmetrics.textgen.answer_correctness`."""
        table = verdicts.answer_correctness(
            self._column("datum", datum),
            self._column("verdict", verdict),
            ground_truth=self._column("ground_truth", ground_truth),
            data=data,
        )
        return self._by_datum(table, datum, by)

    def context_recall(
        self,
        *,
        datum,
        verdict,
        ground_truth=None,
        data=None,
        n_contexts=None,
        n_ground_truths=None,
        zero_division="warn",
        by=None,
    ) -> pd.DataFrame:
        """Context recall per datum (share of ground-truth statements the contexts support, best
        ground truth); see :func:`pdmetrics.textgen.context_recall`."""
        table = verdicts.context_recall(
            self._column("datum", datum),
            self._column("verdict", verdict),
            ground_truth=self._column("ground_truth", ground_truth),
            data=data,
            n_contexts=n_contexts,
            n_ground_truths=n_ground_truths,
            zero_division=zero_division,
        )
        return self._by_datum(table, datum, by)

    def context_precision(
        self,
        *,
        datum,
        verdict,
        rank,
        ground_truth=None,
        data=None,
        n_contexts=None,
        n_ground_truths=None,
        by=None,
    ) -> pd.DataFrame:
        """Context precision per datum (precision@k over the useful ranked contexts); see
        :func:`pdmetrics.textgen.context_precision`.

        Examples
        --------
        >>> import pandas as pd
        >>> import pdmetrics  # noqa: F401
        >>> judged = pd.DataFrame({"id": 7, "rank": [1, 2, 3, 4], "verdict": ["yes", "no", "no", "yes"]})
        >>> judged.textgen.context_precision(datum="id", verdict="verdict", rank="rank")
           datum  N  context_precision
        0      7  4               0.75
        """
        table = verdicts.context_precision(
            self._column("datum", datum),
            self._column("verdict", verdict),
            self._column("rank", rank),
            ground_truth=self._column("ground_truth", ground_truth),
            data=data,
            n_contexts=n_contexts,
            n_ground_truths=n_ground_truths,
        )
        return self._by_datum(table, datum, by)

    def summary_coherence(self, *, datum, score, data=None, by=None) -> pd.DataFrame:
        """The judge's 1-5 summary coherence score per datum; see
        :func:`pdmetrics.textgen.summary_coherence`."""
        table = verdicts.summary_coherence(
            self._column("datum", datum), self._column("score", score), data=data
        )
        return self._by_datum(table, datum, by)


#: The classes registered on dask and polars frames while these methods do not run through specs.
ENGINES = {
    "dask": "pdmetrics._dask.textgen:DaskTextgenAccessor",
    "polars": "pdmetrics.engines.polars:forwarding_class",
}
