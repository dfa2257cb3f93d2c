"""``ddf.textgen``: the text-generation tables on dask DataFrames, partition by partition.

Every partition runs the pandas accessor's own method (the same code with one chunk):

- ROUGE and BLEU per row: without ``by=`` a lazy dask DataFrame, one row per input row
  (indexed like the input rows; the rows left out are counted in one eager pass over the text
  columns, without scoring, and warned about once when the method is called); with ``by=``
  the group means, from each partition's sums and counts per group
  (:class:`pdmetrics.textgen.verdicts.MeansState`).
- Corpus BLEU, chrF and TER: each partition's summed segment statistics
  (:class:`pdmetrics.textgen.corpus.CorpusState`), added, then scored.
- The verdict metrics: the rows are first shuffled on the datum (a datum's verdicts may start
  in any partitions), then per datum as the pandas path: a lazy dask DataFrame without
  ``by=``, the group means with it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial

import pandas as pd

from pdmetrics._dask.base import DaskAccessor
from pdmetrics._table_spec import PART, POS, source_order
from pdmetrics._validation import one_column, require_columns
from pdmetrics.accessors.textgen import TextgenAccessor
from pdmetrics.engines.dask import SHARD, partition_table, shuffled_on
from pdmetrics.errors import NotPartitionableError
from pdmetrics.textgen.bleu_scores import bleu_rows
from pdmetrics.textgen.corpus import corpus_state, corpus_table
from pdmetrics.textgen.rouge_scores import rouge_rows
from pdmetrics.textgen.tokens import text_rows, warn_left_out
from pdmetrics.textgen.verdicts import means_state, means_table

__all__ = ["DaskTextgenAccessor"]

#: The helper columns of the shuffle on the datum.
LOCATION = [PART, POS, SHARD]


class DaskTextgenAccessor(DaskAccessor):
    """``ddf.textgen``: the tables of :class:`pdmetrics.accessors.textgen.TextgenAccessor` on a dask
    DataFrame, with the pandas method's arguments plus ``compute=``.

    Tables with one row per input row or per datum (``rouge``, ``bleu`` and the verdict
    metrics without ``by=``) come back as lazy dask DataFrames (call ``.compute()``; the rows
    of the verdict metrics are in no particular order across partitions: sort by ``datum``).
    The other tables are pandas DataFrames equal to the pandas path's (``compute=False``: a
    :class:`dask.delayed.Delayed` of one).
    """

    _name = "textgen"
    _pandas_accessor = TextgenAccessor

    # ------------------------------------------------------------------ per row
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
        compute: bool = True,
    ):
        """ROUGE per row (a lazy dask DataFrame), or its means by group; see
        :meth:`pdmetrics.accessors.textgen.TextgenAccessor.rouge`."""
        options = dict(rouge_types=rouge_types, use_stemmer=use_stemmer, tokenizer=tokenizer, details=details)
        return self._per_row("rouge", prediction, reference, options, datum, by, compute)

    def bleu(
        self,
        *,
        prediction,
        reference,
        weights=(0.25, 0.25, 0.25, 0.25),
        details: bool = False,
        datum=None,
        by=None,
        compute: bool = True,
    ):
        """Sentence BLEU per row (a lazy dask DataFrame), or its means by group; see
        :meth:`pdmetrics.accessors.textgen.TextgenAccessor.bleu`."""
        options = dict(weights=weights, details=details)
        return self._per_row("bleu", prediction, reference, options, datum, by, compute)

    def _per_row(self, method, prediction, reference, options, datum, by, compute):
        names = self._text_names(prediction, reference)
        options = dict(options, prediction=prediction, reference=reference, datum=datum)
        if datum is not None:
            names.append(self._one_name("datum", datum))
        if by is None:
            # the rows left out, counted in one eager pass over the text columns (no scoring) and
            # warned about once, here, with the totals; the partitions themselves do not warn
            counts = partial(_exclusions_of, prediction, reference)
            partition_table(self._frame, names, counts, Exclusions.warn)
            run = partial(_scored_rows, method, options)
            return self._frame[names].map_partitions(run, meta=run(self._frame._meta[names]))
        names.append(self._one_name("by", by))
        chunk = partial(_row_means, method, options, by)
        return partition_table(self._frame, names, chunk, means_table, compute)

    def _text_names(self, prediction, reference) -> list:
        names = [self._one_name("prediction", prediction)]
        if isinstance(reference, list):
            return names + self._names("reference", reference)
        return names + [self._one_name("reference", reference)]

    # ------------------------------------------------------------------ corpus scores
    def corpus_bleu(self, *, prediction, reference, compute: bool = True):
        """Corpus BLEU of all rows (segment statistics added over the partitions); see
        :meth:`pdmetrics.accessors.textgen.TextgenAccessor.corpus_bleu`."""
        return self._corpus("bleu", prediction, reference, compute)

    def chrf(self, *, prediction, reference, word_order: int = 0, compute: bool = True):
        """Corpus chrF / chrF++ of all rows; see :meth:`pdmetrics.accessors.textgen.TextgenAccessor.chrf`."""
        if word_order not in (0, 2) or isinstance(word_order, bool):  # the pandas method's message
            self._frame._meta.textgen.chrf(prediction=prediction, reference=reference, word_order=word_order)
        return self._corpus("chrf++" if word_order == 2 else "chrf", prediction, reference, compute)

    def ter(self, *, prediction, reference, compute: bool = True):
        """Corpus TER of all rows; see :meth:`pdmetrics.accessors.textgen.TextgenAccessor.ter`."""
        return self._corpus("ter", prediction, reference, compute)

    def _corpus(self, metric, prediction, reference, compute):
        names = self._text_names(prediction, reference)
        chunk = partial(_corpus_chunk, metric, prediction, reference)
        return partition_table(self._frame, names, chunk, corpus_table, compute)

    def paired_bootstrap(self, **_):
        """Not on dask: resampling needs every segment's statistics at once."""
        raise NotPartitionableError(
            "`ddf.textgen.paired_bootstrap` does not run on dask DataFrames: its resamples draw from "
            "every segment at once. Compute it on the columns it needs, or on a random sample of rows "
            "when they do not fit in memory: `ddf[columns].compute().textgen.paired_bootstrap(...)` "
            "(or `ddf[columns].sample(frac=...).compute()...`)."
        )

    # ------------------------------------------------------------------ per datum
    def _per_datum(self, method, datum, by, compute, columns: dict, options: dict):
        """A verdict metric: rows shuffled on the datum, the pandas method per partition."""
        if options.get("data") is not None or any(
            options.get(k) is not None for k in ("n_contexts", "n_ground_truths")
        ):
            raise NotPartitionableError(
                f"`ddf.textgen.{method}(data=...)` does not run on dask DataFrames: the data without "
                f"verdict rows are not in any partition. Leave `data=` (and the counts aligned with it) "
                f"out to score the data present, or compute the columns first: "
                f"`ddf[columns].compute().textgen.{method}(...)`."
            )
        names = [self._one_name("datum", datum)]
        for argument, name in columns.items():
            if name is not None:
                names.append(self._one_name(argument, name))
        options = dict(options, datum=datum, **columns)
        if by is not None:
            names.append(self._one_name("by", by))
        names = list(dict.fromkeys(names))
        meta = self._frame._meta[names]
        run = partial(_datum_table, method, options, by)
        run(meta.assign(**{c: pd.Series(dtype="int64") for c in LOCATION}))  # checks on no rows
        shuffled = shuffled_on(self._frame[names], names[0], self._frame.npartitions)
        if by is None:
            return shuffled.map_partitions(run, meta=_rows_of(method, options, meta))
        return partition_table(shuffled, [*names, *LOCATION], run, means_table, compute)

    def answer_relevance(self, *, datum, verdict, data=None, by=None, compute: bool = True):
        """Answer relevance per datum, or its means by group; see
        :meth:`pdmetrics.accessors.textgen.TextgenAccessor.answer_relevance`."""
        return self._per_datum("answer_relevance", datum, by, compute, {"verdict": verdict}, {"data": data})

    def bias(self, *, datum, verdict, data=None, by=None, compute: bool = True):
        """Bias per datum, or its means by group; see
        :meth:`pdmetrics.accessors.textgen.TextgenAccessor.bias`."""
        return self._per_datum("bias", datum, by, compute, {"verdict": verdict}, {"data": data})

    def toxicity(self, *, datum, verdict, data=None, by=None, compute: bool = True):
        """Toxicity per datum, or its means by group; see
        :meth:`pdmetrics.accessors.textgen.TextgenAccessor.toxicity`."""
        return self._per_datum("toxicity", datum, by, compute, {"verdict": verdict}, {"data": data})

    def context_relevance(self, *, datum, verdict, data=None, by=None, compute: bool = True):
        """Context relevance per datum, or its means by group; see
        :meth:`pdmetrics.accessors.textgen.TextgenAccessor.context_relevance`."""
        return self._per_datum("context_relevance", datum, by, compute, {"verdict": verdict}, {"data": data})

    def hallucination(self, *, datum, verdict, data=None, by=None, compute: bool = True):
        """Hallucination per datum, or its means by group; see
        :meth:`pdmetrics.accessors.textgen.TextgenAccessor.hallucination`."""
        return self._per_datum("hallucination", datum, by, compute, {"verdict": verdict}, {"data": data})

    def faithfulness(self, *, datum, verdict, data=None, n_contexts=None, by=None, compute: bool = True):
        """Faithfulness per datum, or its means by group; see
        :meth:`pdmetrics.accessors.textgen.TextgenAccessor.faithfulness`."""
        options = {"data": data, "n_contexts": n_contexts}
        return self._per_datum("faithfulness", datum, by, compute, {"verdict": verdict}, options)

    def answer_correctness(
        self, *, datum, verdict, ground_truth=None, data=None, by=None, compute: bool = True
    ):
        """Answer correctness per datum, or its means by group; see
        :meth:`pdmetrics.accessors.textgen.TextgenAccessor.answer_correctness`."""
        columns = {"verdict": verdict, "ground_truth": ground_truth}
        return self._per_datum("answer_correctness", datum, by, compute, columns, {"data": data})

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
        compute: bool = True,
    ):
        """Context recall per datum, or its means by group; see
        :meth:`pdmetrics.accessors.textgen.TextgenAccessor.context_recall`."""
        columns = {"verdict": verdict, "ground_truth": ground_truth}
        options = {
            "data": data,
            "n_contexts": n_contexts,
            "n_ground_truths": n_ground_truths,
            "zero_division": zero_division,
        }
        return self._per_datum("context_recall", datum, by, compute, columns, options)

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
        compute: bool = True,
    ):
        """Context precision per datum, or its means by group; see
        :meth:`pdmetrics.accessors.textgen.TextgenAccessor.context_precision`."""
        columns = {"verdict": verdict, "rank": rank, "ground_truth": ground_truth}
        options = {"data": data, "n_contexts": n_contexts, "n_ground_truths": n_ground_truths}
        return self._per_datum("context_precision", datum, by, compute, columns, options)

    def summary_coherence(self, *, datum, score, data=None, by=None, compute: bool = True):
        """The judge's summary coherence per datum, or its means by group; see
        :meth:`pdmetrics.accessors.textgen.TextgenAccessor.summary_coherence`."""
        return self._per_datum("summary_coherence", datum, by, compute, {"score": score}, {"data": data})


def _rows_of(method: str, options: dict, part: pd.DataFrame) -> pd.DataFrame:
    """The pandas method's table of one partition (one row per row, indexed like the rows; or
    one row per datum)."""
    return getattr(part.textgen, method)(**options)  # rouge, bleu: indexed like the rows kept


@dataclass(frozen=True)
class Exclusions:
    """The rows a per-row text metric leaves out, over some partitions: counts of rows without a
    prediction and without any reference, the first labels, and the number of rows seen."""

    no_prediction: int
    no_reference: int
    labels: tuple
    total: int

    def combine(self, other: Exclusions) -> Exclusions:
        return Exclusions(
            self.no_prediction + other.no_prediction,
            self.no_reference + other.no_reference,
            (self.labels + other.labels)[:10],
            self.total + other.total,
        )

    def warn(self) -> None:
        """The pandas path's :class:`~pdmetrics.ExcludedRowsWarning`, with the totals."""
        warn_left_out(self.no_prediction, self.no_reference, self.total, self.labels)


def _texts(part: pd.DataFrame, prediction, reference) -> tuple:
    """A partition's prediction column and reference column(s) (a DataFrame for several)."""
    if isinstance(reference, list):
        references = part[require_columns(part, "reference", reference)]
    else:
        references = one_column(part, "reference", reference)
    return one_column(part, "prediction", prediction), references


def _exclusions_of(prediction, reference, part: pd.DataFrame) -> Exclusions:
    """The rows of one partition that the per-row metric leaves out (the texts are not scored)."""
    rows = text_rows(*_texts(part, prediction, reference))
    return Exclusions(rows.no_prediction, rows.no_reference, tuple(rows.dropped[:10]), rows.total)


def _scored(method: str, options: dict, part: pd.DataFrame):
    """The per-row table of one partition and its ``TextRows``, without a warning."""
    options = dict(options)
    prediction, reference, datum = options.pop("prediction"), options.pop("reference"), options.pop("datum")
    prediction, reference = _texts(part, prediction, reference)
    if datum is not None:
        one_column(part, "datum", datum)
    if method == "rouge":
        return rouge_rows(prediction, reference, **options)
    return bleu_rows(prediction, reference, **options)


def _scored_rows(method: str, options: dict, part: pd.DataFrame) -> pd.DataFrame:
    """The pandas method's per-row table of one partition (indexed like the rows kept, the
    ``datum`` ids first), without its warning: the rows left out are warned about once, by
    the caller (:class:`Exclusions`)."""
    table, kept = _scored(method, options, part)
    if options["datum"] is not None:
        datum = one_column(part, "datum", options["datum"])
        table.insert(0, "datum", datum.to_numpy()[kept.positions])
    return table


def _row_means(method: str, options: dict, by, part: pd.DataFrame):
    """The group sums of a per-row table (each row its own datum, as the pandas path); the rows
    left out are counted in the state, and the warning is raised once, by ``means_table``."""
    table, kept = _scored(method, options, part)
    rows = pd.RangeIndex(len(table))
    groups = one_column(part, "by", by).iloc[kept.positions].set_axis(rows)
    state = means_state(table.set_axis(rows).assign(datum=rows), by=groups)
    return replace(state, excluded=(kept.no_prediction, kept.no_reference, tuple(kept.dropped[:10])))


def _datum_table(method: str, options: dict, by, part: pd.DataFrame):
    """A shuffled partition's per-datum table, or (``by``) its group sums."""
    part, _ = source_order(part)
    table = getattr(part.textgen, method)(**options)
    if by is None:
        return table.reset_index(drop=True)
    datum = one_column(part, "datum", options["datum"])
    return means_state(table, by=one_column(part, "by", by).set_axis(datum.to_numpy()))


def _corpus_chunk(metric: str, prediction, reference, part: pd.DataFrame):
    if isinstance(reference, list):
        references = part[require_columns(part, "reference", reference)]
    else:
        references = one_column(part, "reference", reference)
    return corpus_state(one_column(part, "prediction", prediction), references, metric, allow_empty=True)
