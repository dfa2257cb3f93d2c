"""Is system B better than baseline A? Generated texts, or a judge's verdicts, compared on the
same prompts (``compare``).

Both systems answer the same prompts, so the comparison is *paired*: for each metric the two
values, their difference ``system - baseline``, a confidence interval and the p-value of "no
difference" (the table of :mod:`pdmetrics._comparison`).

- Corpus metrics (``"bleu"``, ``"chrf"``, ``"chrf++"``, ``"ter"``): the two corpus scores as
  :func:`~pdmetrics.textgen.corpus_bleu`, :func:`~pdmetrics.textgen.chrf` and
  :func:`~pdmetrics.textgen.ter` give them. sacrebleu's statistics add up over segments, so a
  resample's score is the score of the weighted sums of the segments' statistics.
- Per-answer metrics (``"rouge1"`` ... ``"rougeLsum"``, ``"sentence_bleu"``): the mean over the
  answers of :func:`~pdmetrics.textgen.rouge`'s F-measure or :func:`~pdmetrics.textgen.bleu`.
- Verdict metrics (``"faithfulness"``, ``"answer_relevance"``, ...): the mean over the data of
  the per-datum values of the judge's verdicts, one long table holding every system's verdict
  rows (a ``system=`` column says whose answer a row judges).

The test is the paired Poisson bootstrap (``test="paired_bootstrap"``): every resample weights
each segment (or answer; with ``datum=``, each datum: all its rows together) with a Poisson(1)
draw from ``random_state`` and its row number (or datum id) only, the same weight for every
system, and all resamples are scored at once from the buckets' summed statistics
(:mod:`pdmetrics._resampling`); the percentile interval, and the share of centred resampled
differences at least as large as the observed one. pandas, dask and polars give the same
table. For the corpus metrics ``test="paired_bootstrap_sacrebleu"`` draws sacrebleu's resamples
instead (:func:`~pdmetrics.textgen.paired_bootstrap`'s, all segments at once: not on dask).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._comparison import (
    COMPARISON_OPTIONS,
    compared_pairs,
    comparison_settings,
    comparison_table,
)
from pdmetrics._docstrings import fill
from pdmetrics._groups import check_scalar_cells
from pdmetrics._resampling import (
    key_buckets,
    paired_interval,
    poisson_weights,
    resampled_sums,
    row_buckets,
)
from pdmetrics._table_spec import Table, Whole, row_numbers, source_order, table
from pdmetrics._validation import one_column, one_name, plain, preview, refuse_missing, require_columns
from pdmetrics._warnings import warn_excluded
from pdmetrics.errors import InvalidInputError
from pdmetrics.textgen.bleu_scores import bleu_rows
from pdmetrics.textgen.corpus import (
    compared_segments,
    scores_from_statistics,
    statistic_names,
    statistics_array,
)
from pdmetrics.textgen.paired import (
    checked_options,
    corpus_score,
    resample_indices,
    resampled_scores,
    sacrebleu_interval,
    sacrebleu_p_value,
)
from pdmetrics.textgen.rouge_scores import rouge_rows
from pdmetrics.textgen.tokens import warn_left_out
from pdmetrics.textgen.verdicts import PER_DATUM

__all__ = ["compare"]

#: Corpus metrics (sacrebleu's): scored from the segments' summed statistics.
CORPUS_METRICS = ("bleu", "chrf", "chrf++", "ter")
#: Per-answer metrics: the mean of one value per answer (``rouge1``-``rouge9`` too).
ANSWER_METRICS = ("rouge1", "rouge2", "rougeL", "rougeLsum", "sentence_bleu")
#: Verdict metrics: the per-datum function of :mod:`~pdmetrics.textgen.verdicts` and the optional
#: columns it reads besides ``datum`` and ``verdict``.
VERDICT_METRICS = PER_DATUM
#: ``test=``: the paired Poisson bootstrap (every metric, every engine), or sacrebleu's
#: resampling of the segments (corpus metrics; all rows at once).
TESTS = ("paired_bootstrap", "paired_bootstrap_sacrebleu")
_ROUGE = re.compile(r"rouge[1-9]|rougeL|rougeLsum")


# ----------------------------------------------------------------------------------------------
# options
# ----------------------------------------------------------------------------------------------
def _metrics(metric) -> tuple[list[str], str]:
    """The metrics (deduplicated, in order) and their kind: ``"text"`` (corpus and per-answer
    metrics, from system outputs) or ``"verdict"`` (from a judge's verdict table)."""
    if isinstance(metric, str):
        names = [metric]
    else:
        try:
            names = list(metric)
        except TypeError:
            names = [metric]
    if not names:
        raise InvalidInputError("`metric=` is empty; pass a metric name or a list of them, e.g. 'bleu'.")
    out, kinds = [], set()
    for name in names:
        if isinstance(name, str) and name.lower() in CORPUS_METRICS:
            name, kind = name.lower(), "text"
        elif isinstance(name, str) and (_ROUGE.fullmatch(name) or name == "sentence_bleu"):
            kind = "text"
        elif isinstance(name, str) and name in VERDICT_METRICS:
            kind = "verdict"
        else:
            raise InvalidInputError(
                f"`metric={plain(name)!r}` is not a metric `compare` knows; choose corpus metrics "
                f"{list(CORPUS_METRICS)}, per-answer metrics {list(ANSWER_METRICS)} (also 'rouge3' to "
                f"'rouge9') or verdict metrics {list(VERDICT_METRICS)}."
            )
        kinds.add(kind)
        if name not in out:
            out.append(name)
    if len(kinds) > 1:
        raise InvalidInputError(
            f"`metric={names!r}` mixes metrics of system outputs with verdict metrics; they read different "
            f"tables (outputs and references, or a judge's verdict rows): compare them in two calls."
        )
    return out, kinds.pop()


def _check_test(test, metrics: list, kind: str, datum) -> None:
    if not isinstance(test, str) or test not in TESTS:
        raise InvalidInputError(
            f"`test={plain(test)!r}` is not a test of `compare`; pass one of {list(TESTS)}."
        )
    if test == "paired_bootstrap_sacrebleu":
        others = [m for m in metrics if m not in CORPUS_METRICS]
        if kind != "text" or others:
            raise InvalidInputError(
                f"`test='paired_bootstrap_sacrebleu'` resamples sacrebleu's corpus metrics "
                f"{list(CORPUS_METRICS)} only, not {others!r}; compare those with "
                f"`test='paired_bootstrap'` (the default), or in a separate call."
            )
        if datum is not None:
            raise InvalidInputError(
                "`test='paired_bootstrap_sacrebleu'` resamples single segments, as sacrebleu does; "
                "`datum=` (resampling whole data) needs `test='paired_bootstrap'` (the default)."
            )


def _refuse(arguments: dict, why: str) -> None:
    """Refuse the arguments given (not None) that the kind of comparison does not read."""
    for argument, value in arguments.items():
        if value is not None:
            raise InvalidInputError(f"`{argument}={plain(value)!r}` is not used here: {why}")


# ----------------------------------------------------------------------------------------------
# the table
# ----------------------------------------------------------------------------------------------
@table
@fill(comparison_options=COMPARISON_OPTIONS)
def compare(
    frame,
    *,
    metric: str | list = "bleu",
    prediction: list | None = None,
    reference: str | list | None = None,
    datum: str | None = None,
    verdict: str | None = None,
    system: str | None = None,
    ground_truth: str | None = None,
    rank: str | None = None,
    use_stemmer: bool = False,
    test: str = "paired_bootstrap",
    pairs: str = "baseline",
    correction=None,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    random_state=12345,
):
    """Is system B better than baseline A? Text-generation metrics of several systems compared
    on the same prompts, with paired intervals and p-values.

    Two layouts, chosen by the metric:

    - **System outputs** (corpus and per-answer metrics): one row per segment (prompt, source
      sentence), one column per system's output (``prediction=[baseline, system, ...]``) and
      the reference column(s).
    - **A judge's verdicts** (verdict metrics): the long verdict table of
      :mod:`pdmetrics.textgen.verdicts` holding every system's rows, with a column naming the
      system whose answer each row judges (``system=``).

    Parameters
    ----------
    frame : DataFrame
        pandas; dask and polars frames run the same table and give the same numbers for the
        same ``random_state`` (``test="paired_bootstrap_sacrebleu"`` needs all rows at once:
        not on dask).
    metric : str or list of str, default "bleu"
        Corpus metrics as sacrebleu computes them: ``"bleu"`` (corpus BLEU, 0-100, as
        :func:`corpus_bleu` and :func:`paired_bootstrap`), ``"chrf"``, ``"chrf++"``, ``"ter"``
        (lower is better). Per-answer metrics, averaged over the answers: ``"rouge1"`` ...
        ``"rouge9"``, ``"rougeL"``, ``"rougeLsum"`` (the F-measure of :func:`rouge`) and
        ``"sentence_bleu"`` (:func:`bleu`, 0-1). Verdict metrics, averaged over the data:
        ``"answer_correctness"``, ``"answer_relevance"``, ``"bias"``, ``"context_precision"``,
        ``"context_recall"``, ``"context_relevance"``, ``"faithfulness"``,
        ``"hallucination"``, ``"summary_coherence"``, ``"toxicity"``. One call compares metrics
        of one layout.
    prediction : list of str
        System outputs: two or more columns of texts, the baseline first. A row missing any of
        them (None/NaN) or every reference is left out of every comparison (an
        :class:`~pdmetrics.ExcludedRowsWarning` counts them), so all systems are compared on
        the same segments.
    reference : str or list of str
        System outputs: the reference column(s), as in :func:`corpus_bleu` and :func:`rouge`.
    datum : str, optional
        System outputs: a column grouping the rows (e.g. several answers per prompt, segments of
        one document): the bootstrap then resamples whole data, the rows of a datum together.
        Verdict tables: the datum id of each verdict row (required).
    verdict : str
        Verdict tables: the judge's verdict column (for ``"summary_coherence"``, its 1-5 score).
    system : str
        Verdict tables: the column naming the system whose answer each row judges. The systems
        are its categories in order when it is categorical, else its values in the order they
        first appear: put the baseline's rows first (or make the column categorical).
    ground_truth, rank : str, optional
        Verdict tables: the columns the metric reads besides ``datum`` and ``verdict``
        (``ground_truth`` for answer correctness, context recall and context precision; ``rank``
        for context precision), as in the metric's own function.
    use_stemmer : bool, default False
        ROUGE: stem the tokens as :func:`rouge` does.
    test : {"paired_bootstrap", "paired_bootstrap_sacrebleu"}, default "paired_bootstrap"
        The paired Poisson bootstrap (partitions: the same numbers on every engine), or, for the
        corpus metrics only, sacrebleu's paired bootstrap: the resampled segments of
        :func:`paired_bootstrap` (its p-value; the interval of the difference by sacrebleu's
        percentile rule, the ``n_resamples * (1 - confidence) / 2``-th smallest and largest
        resampled differences).
    {comparison_options}
    random_state : int, numpy.random.Generator or None, default 12345
        Seed of the bootstrap (sacrebleu's ``SACREBLEU_SEED`` with the sacrebleu test; None:
        fresh entropy, so the intervals change per call).

    Returns
    -------
    pandas.DataFrame
        One row per pair of systems and metric: ``metric, baseline, system, N`` (segments,
        answers or data compared), ``baseline_value, system_value`` (equal to the metric of
        each system alone on those rows), ``difference`` (system minus baseline), ``ci_low,
        ci_high`` (its interval), ``p_value`` (of no difference), ``p_adjusted`` and ``test``.

    Notes
    -----
    A resample that draws no segment (possible for tiny data) is left out of the interval and
    the p-value. For a verdict metric a datum is compared when every system has a value for
    it: a datum without verdict rows of some system is left out (an
    :class:`~pdmetrics.ExcludedRowsWarning` counts them), and so, for that metric, is a datum
    whose value is undefined (NaN) for a system; when no datum is left, the row has ``N`` 0 and
    NaN values. ``data=`` and the per-datum counts of the verdict functions are not offered
    here: "nothing judged" data have no rows to compare.

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> rows = [  # reference, then the old and the new system's output for each prompt
    ...     ("the bridge opens at nine", "the bridge opened at nine", "the bridge opens at nine"),
    ...     ("two trains leave each hour", "two train leaves every hour", "two trains leave every hour"),
    ...     ("tickets cost five euros", "tickets are five euro", "tickets cost five euros"),
    ...     ("the museum is closed on monday", "museum closed monday", "the museum is closed monday"),
    ...     ("take the second exit", "take second exit", "take the second exit")]
    >>> df = pd.DataFrame(rows, columns=["ref", "old", "new"])
    >>> table = df.textgen.compare(prediction=["old", "new"], reference="ref",
    ...                            metric=["bleu", "rouge1"], n_resamples=500)
    >>> shown = ["metric", "baseline_value", "system_value", "difference", "ci_low", "ci_high", "p_value"]
    >>> table[shown].round(3)
       metric  baseline_value  system_value  difference  ci_low  ci_high  p_value
    0    bleu          11.198        75.332      64.134  38.386   87.009    0.002
    1  rouge1           0.645         0.942       0.297   0.176    0.456    0.002
    """
    metrics, kind = _metrics(metric)
    if kind == "verdict":
        _refuse(
            {"prediction": prediction, "reference": reference},
            f"`metric={metric!r}` compares a judge's verdicts (`datum=`, `verdict=`, `system=`).",
        )
        spec = _verdict_spec(frame, metrics, datum, verdict, system, ground_truth, rank)
    else:
        _refuse(
            {"verdict": verdict, "system": system, "ground_truth": ground_truth, "rank": rank},
            f"`metric={metric!r}` compares system outputs (`prediction=[baseline, system, ...]`, "
            f"`reference=`); the verdict columns are for the verdict metrics, e.g. `metric='faithfulness'`.",
        )
        spec = _text_spec(frame, metrics, prediction, reference, datum, use_stemmer, test)
    _check_test(test, metrics, kind, datum)
    if test == "paired_bootstrap_sacrebleu":
        checked_options(metrics, n_resamples, confidence, random_state)
    keyed = test == "paired_bootstrap"  # sacrebleu's resamples draw from random_state itself
    return spec(comparison_settings(pairs, correction, n_resamples, confidence, random_state, keyed=keyed))


# ----------------------------------------------------------------------------------------------
# system outputs: corpus and per-answer metrics
# ----------------------------------------------------------------------------------------------
def _text_spec(frame, metrics, prediction, reference, datum, use_stemmer, test):
    """The spec maker (options -> spec) of a comparison of system output columns."""
    if prediction is None:
        raise InvalidInputError(
            f"`metric={metrics[0]!r}` compares system outputs: pass `prediction=[baseline, system, ...]` "
            f"(two or more columns of texts, the baseline first) and `reference=`; to compare a judge's "
            f"verdicts name a verdict metric, e.g. `metric='faithfulness'`."
        )
    systems = require_columns(frame, "prediction", prediction)
    repeated = [name for i, name in enumerate(systems) if name in systems[:i]]
    if repeated:
        raise InvalidInputError(
            f"`prediction=` names the column {repeated[0]!r} twice; list each system once, the "
            f"baseline first."
        )
    if reference is None:
        raise InvalidInputError("`reference=None`: name the reference column(s), e.g. `reference='ref'`.")
    references = (
        require_columns(frame, "reference", reference)
        if isinstance(reference, list)
        else [one_name(frame, "reference", reference)]
    )
    group = [] if datum is None else [one_name(frame, "datum", datum)]
    columns = list(dict.fromkeys([*systems, *references, *group]))
    read = dict(systems=systems, reference=reference, datum=datum)

    def spec(options):
        compared = compared_pairs(systems, options["pairs"], argument="prediction")
        if test == "paired_bootstrap_sacrebleu":
            return Whole(
                columns,
                partial(_sacrebleu_table, read, metrics, compared, options),
                instead="Its resamples draw from every segment at once: pass `test='paired_bootstrap'` (the "
                "default, which partitions), or compute the columns first: "
                "`ddf[columns].compute().textgen.compare(...)`.",
            )
        return Table(
            columns,
            partial(_text_chunk, read, metrics, bool(use_stemmer), options["key"]),
            partial(_text_table, systems=systems, metrics=metrics, compared=compared, options=options),
            numbered=True,
        )

    return spec


def _system_texts(read: dict, part: pd.DataFrame):
    """The systems' texts on the segments all of them answered and that have a reference, the
    segments, and the rows each system lacks (no warning)."""
    reference = read["reference"]
    references = part[reference] if isinstance(reference, list) else one_column(part, "reference", reference)
    outputs = {f"prediction={s!r}": one_column(part, "prediction", s) for s in read["systems"]}
    texts, segments, missing = compared_segments(outputs, references)
    return list(texts.values()), segments, list(missing.values())


def _warn_left_out(excluded: tuple, systems: list) -> None:
    missing, no_prediction, no_reference, labels, total = excluded
    reasons = [(count, f"an output of `prediction={s!r}`") for s, count in zip(systems, missing)]
    warn_left_out(no_prediction, no_reference, total, labels, reasons)


def _no_segment(excluded: tuple) -> InvalidInputError:
    total = excluded[-1]
    if total == 0:
        return InvalidInputError("The frame has no rows: there is nothing to compare.")
    return InvalidInputError(
        f"No row left to compare: all {total} rows lack an output of some system or every reference "
        f"(None/NaN); fill or fix them."
    )


@dataclass(frozen=True)
class TextState:
    """The additive state of a comparison of system outputs over some rows: ``n`` segments,
    the ``totals`` of their features (added row after row), and per bootstrap bucket (``buckets``,
    sorted) the sums of the features (``sums``: a count, then each metric's statistics or values
    for each system); ``excluded``: rows lacking each system's output, lacking some output,
    lacking every reference, the first labels, all rows seen."""

    n: int
    totals: np.ndarray | None
    buckets: np.ndarray
    sums: np.ndarray | None
    excluded: tuple

    def combine(self, *others: TextState) -> TextState:
        states = [s for s in (self, *others) if s.sums is not None]
        missing, no_prediction, no_reference, labels, total = self.excluded
        for other in others:
            m, p, r, lab, t = other.excluded
            missing = tuple(a + b for a, b in zip(missing, m))
            no_prediction, no_reference, total = no_prediction + p, no_reference + r, total + t
            labels = (labels + lab)[:10]
        excluded = (missing, no_prediction, no_reference, labels, total)
        if not states:
            return replace(self, excluded=excluded)
        buckets, sums = _bucket_sums(
            np.concatenate([s.buckets for s in states]), np.concatenate([s.sums for s in states])
        )
        totals = states[0].totals
        for s in states[1:]:
            totals = totals + s.totals
        return TextState(sum(s.n for s in states), totals, buckets, sums, excluded)


def _bucket_sums(buckets: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct buckets (sorted) and the column sums of ``values`` in each."""
    order = np.argsort(buckets, kind="stable")
    ordered = buckets[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    return ordered[starts], np.add.reduceat(values[order], starts, axis=0)


def _features(metrics: list, texts: list, matrix: np.ndarray, use_stemmer: bool) -> np.ndarray:
    """Per segment: 1, then for each metric and system its statistics (corpus metrics) or value."""
    rouge_types = [m for m in metrics if m.startswith("rouge")]
    columns = [np.ones((matrix.shape[0], 1))]
    references = pd.DataFrame(matrix)
    per_answer = []
    for hypotheses in texts:
        outputs = pd.Series(hypotheses, dtype=object)
        found = {}
        if rouge_types:
            found.update(rouge_rows(outputs, references, rouge_types, use_stemmer, "rouge-score", False)[0])
        if "sentence_bleu" in metrics:
            found["sentence_bleu"] = bleu_rows(outputs, references, (0.25,) * 4, False)[0]["bleu"]
        per_answer.append(found)
    for m in metrics:
        for hypotheses, found in zip(texts, per_answer):
            if m in CORPUS_METRICS:
                columns.append(statistics_array(m, hypotheses, matrix)[0])
            else:
                columns.append(np.asarray(found[m], dtype="float64").reshape(-1, 1))
    return np.concatenate(columns, axis=1)


def _layout(metrics: list, n_systems: int) -> dict:
    """Each (metric, system number)'s columns among the features (column 0: the count)."""
    layout, at = {}, 1
    for m in metrics:
        width = len(statistic_names(m)) if m in CORPUS_METRICS else 1
        for i in range(n_systems):
            layout[(m, i)] = slice(at, at + width)
            at += width
    return layout


def _labels(values: pd.Series, argument: str, why: str) -> pd.Series:
    """The ids in an id column (``datum=``, ``system=``), checked: one scalar, present id per row;
    ``why``: what a missing id breaks, for the message."""
    check_scalar_cells(values, argument)
    refuse_missing(values, f"`{argument}={values.name!r}`", f"missing {why}.")
    return values


def _text_chunk(read: dict, metrics: list, use_stemmer: bool, key: int, part: pd.DataFrame) -> TextState:
    texts, segments, missing = _system_texts(read, part)
    excluded = (
        tuple(missing),
        segments.no_prediction,
        segments.no_reference,
        tuple(segments.dropped[:10]),
        segments.total,
    )
    kept = segments.kept
    if read["datum"] is not None:
        why = "datum id; every row must name the datum it belongs to (or leave `datum=` out)"
        ids = _labels(one_column(part, "datum", read["datum"]), "datum", why).iloc[kept]
    if kept.size == 0:
        return TextState(0, None, np.zeros(0, dtype=np.intp), None, excluded)
    if read["datum"] is None:
        buckets = row_buckets(row_numbers(part)[kept], key)
    else:
        buckets = key_buckets(ids, key)
    features = _features(metrics, texts, segments.matrix, use_stemmer)
    totals = np.cumsum(features, axis=0)[-1]  # row after row, as sacrebleu adds segments
    buckets, sums = _bucket_sums(buckets, features)
    return TextState(int(kept.size), totals, buckets, sums, excluded)


def _text_table(state: TextState, systems, metrics, compared, options) -> pd.DataFrame:
    _warn_left_out(state.excluded, systems)
    if state.n == 0:
        raise _no_segment(state.excluded)
    k = int(state.buckets.max()) + 1
    dense = np.zeros((k, state.sums.shape[1]))
    dense[state.buckets] = state.sums
    weights = poisson_weights(options["key"], k, options["n_resamples"])
    resampled = resampled_sums(weights, dense)  # (resamples, features)
    layout = _layout(metrics, len(systems))
    values, samples = {}, {}
    for (m, i), columns in layout.items():
        drawn = resampled[:, 0] > 0  # a resample that draws no segment scores nothing
        if m in CORPUS_METRICS:
            values[(m, i)] = float(_corpus_scores(state.totals[columns], m)[0])
            samples[(m, i)] = np.where(drawn, _corpus_scores(resampled[:, columns], m), np.nan)
        else:
            values[(m, i)] = float(state.totals[columns][0] / state.n)
            with np.errstate(invalid="ignore", divide="ignore"):
                samples[(m, i)] = np.where(drawn, resampled[:, columns][:, 0] / resampled[:, 0], np.nan)
    index = {name: i for i, name in enumerate(systems)}
    return _pair_table(
        [(a, b, m) for a, b in compared for m in metrics],
        lambda a, b, m: (values[(m, index[a])], values[(m, index[b])]),
        lambda a, b, m: samples[(m, index[b])] - samples[(m, index[a])],
        lambda m: state.n,
        options,
    )


def _corpus_scores(statistics: np.ndarray, metric: str) -> np.ndarray:
    """Corpus scores of summed statistics (one corpus per row), in float64."""
    scores = scores_from_statistics(np.asarray(statistics, dtype="float64"), metric)
    return np.asarray(scores, dtype="float64")


def _pair_table(rows: list, values, differences, n, options) -> pd.DataFrame:
    """The comparison table of ``rows`` (baseline, system, metric): ``values`` gives the two
    values, ``differences`` the resampled differences, ``n`` the units compared for a metric."""
    if not rows:
        return comparison_table([], [], options["correction"])
    pairs = np.array([values(*row) for row in rows], dtype="float64")
    observed = pairs[:, 1] - pairs[:, 0]
    resampled = np.stack([differences(*row) for row in rows], axis=1)  # (resamples, rows)
    low, high, p = paired_interval(resampled, observed, options["confidence"])
    table = pd.DataFrame(
        {
            "metric": [m for _, _, m in rows],
            "baseline": [a for a, _, _ in rows],
            "system": [b for _, b, _ in rows],
            "N": [n(m) for _, _, m in rows],
            "baseline_value": pairs[:, 0],
            "system_value": pairs[:, 1],
            "difference": observed,
            "ci_low": low,
            "ci_high": high,
            "p_value": p,
            "test": "paired_bootstrap",
        }
    )
    return comparison_table([table], [], options["correction"])


def _sacrebleu_table(read: dict, metrics: list, compared: list, options: dict, frame: pd.DataFrame):
    """The comparison with sacrebleu's resamples (all segments at once)."""
    texts, segments, missing = _system_texts(read, frame)
    excluded = (missing, segments.no_prediction, segments.no_reference, segments.dropped[:10], segments.total)
    _warn_left_out(excluded, read["systems"])
    if segments.hypotheses.size == 0:
        raise _no_segment(excluded)
    n = int(segments.hypotheses.size)
    indices = resample_indices(n, options["n_resamples"], options["random_state"])
    index = {name: i for i, name in enumerate(read["systems"])}
    used = sorted({index[name] for pair in compared for name in pair})
    found = {}
    for m in metrics:
        for i in used:
            stats = statistics_array(m, texts[i], segments.matrix)[0]
            found[(m, i)] = (corpus_score(stats, m), resampled_scores(stats, indices, m))
    records = []
    for a, b in compared:
        for m in metrics:
            (score_a, resampled_a), (score_b, resampled_b) = found[(m, index[a])], found[(m, index[b])]
            _, _, low, high = sacrebleu_interval(resampled_b - resampled_a, float(options["confidence"]))
            records.append(
                {
                    "metric": m,
                    "baseline": a,
                    "system": b,
                    "N": n,
                    "baseline_value": score_a,
                    "system_value": score_b,
                    "difference": score_b - score_a,
                    "ci_low": low,
                    "ci_high": high,
                    "p_value": sacrebleu_p_value(resampled_a, resampled_b, score_a, score_b),
                    "test": "paired_bootstrap_sacrebleu",
                }
            )
    return comparison_table([pd.DataFrame(records)], [], options["correction"])


# ----------------------------------------------------------------------------------------------
# a judge's verdicts: the verdict metrics
# ----------------------------------------------------------------------------------------------
def _verdict_spec(frame, metrics, datum, verdict, system, ground_truth, rank):
    """The spec maker (options -> spec) of a comparison of the systems of a verdict table."""
    for argument, value in (("datum", datum), ("verdict", verdict), ("system", system)):
        if value is None:
            raise InvalidInputError(
                f"`{argument}=None`: `metric={metrics[0]!r}` compares the systems of a judge's verdict "
                f"table; name its `datum=` (datum id), `verdict=` and `system=` (the system whose answer "
                f"each row judges) columns."
            )
    reads = {m: VERDICT_METRICS[m][1] for m in metrics}
    if rank is None and "context_precision" in metrics:
        raise InvalidInputError(
            "`rank=None`: context precision needs the rank of each context (1 = first); name its column."
        )
    for argument, value in (("ground_truth", ground_truth), ("rank", rank)):
        if value is not None and not any(argument in extra for extra in reads.values()):
            raise InvalidInputError(
                f"`{argument}={plain(value)!r}` is not read by {metrics}; leave it out (it is read by "
                f"{[m for m, (_, extra) in VERDICT_METRICS.items() if argument in extra]})."
            )
    columns = {
        "datum": datum,
        "verdict": verdict,
        "system": system,
        "ground_truth": ground_truth,
        "rank": rank,
    }
    names = {
        argument: one_name(frame, argument, name) for argument, name in columns.items() if name is not None
    }

    def spec(options):
        return Table(
            list(dict.fromkeys(names.values())),
            partial(_verdict_chunk, names, metrics),
            partial(_verdict_table, metrics=metrics, system=system, options=options),
            key=names["datum"],
        )

    return spec


@dataclass(frozen=True)
class VerdictState:
    """The per-datum values of every system over some data (all rows of a datum in one part):
    ``values`` (columns ``datum``, ``system`` and one per metric), the position ``(partition,
    row)`` where each system first appears, and the system column's categories (None unless
    categorical)."""

    values: pd.DataFrame
    first: dict
    categories: tuple | None

    def combine(self, *others: VerdictState) -> VerdictState:
        states = (self, *others)
        first = {}
        for state in states:
            for label, where in state.first.items():
                first[label] = min(where, first.get(label, where))
        categories = next((s.categories for s in states if s.categories is not None), None)
        values = pd.concat([s.values for s in states if len(s.values)] or [self.values], ignore_index=True)
        return VerdictState(values, first, categories)


def _verdict_chunk(names: dict, metrics: list, part: pd.DataFrame) -> VerdictState:
    part, (partition, position) = source_order(part)
    why = "system; every verdict row must name the system whose answer it judges"
    systems = _labels(one_column(part, "system", names["system"]), "system", why)
    categories = tuple(systems.cat.categories) if isinstance(systems.dtype, pd.CategoricalDtype) else None
    codes, labels = pd.factorize(systems.to_numpy(dtype=object), sort=False)
    first_rows = np.unique(codes, return_index=True)[1]  # labels are in order of first appearance
    first = {label: (int(partition[i]), int(position[i])) for label, i in zip(labels, first_rows)}
    frames = [pd.DataFrame({"datum": pd.Series(dtype=object), "system": pd.Series(dtype=object)})]
    for code, label in enumerate(labels):  # a handful of systems
        rows = part[codes == code]
        columns = {argument: one_column(rows, argument, name) for argument, name in names.items()}
        found = None
        for m in metrics:
            function, extra = VERDICT_METRICS[m]
            options = {argument: columns[argument] for argument in extra if argument in columns}
            per_datum = function(columns["datum"], columns["verdict"], **options)
            series = pd.Series(per_datum[m].to_numpy(dtype="float64"), index=pd.Index(per_datum["datum"]))
            found = series.to_frame(m) if found is None else found.join(series.rename(m), how="outer")
        found = found.rename_axis("datum").reset_index()
        found.insert(1, "system", pd.Series([label] * len(found), dtype=object))
        frames.append(found)
    values = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    for m in metrics:
        if m not in values.columns:
            values[m] = pd.Series(dtype="float64")
    return VerdictState(values, first, categories)


def _verdict_table(state: VerdictState, metrics, system, options) -> pd.DataFrame:
    if state.categories is not None:
        labels = [c for c in state.categories if c in state.first]
    else:
        labels = sorted(state.first, key=state.first.get)
    if len(labels) < 2:
        raise InvalidInputError(
            f"`system={system!r}` holds {len(labels)} system(s) ({preview(labels, 5)}); a comparison needs "
            f"the verdict rows of two or more systems in one table, the baseline's first (e.g. "
            f"`pd.concat([old.assign(system='old'), new.assign(system='new')])`)."
        )
    compared = compared_pairs(labels, options["pairs"], argument="system")
    values = state.values
    data_codes, data = pd.factorize(values["datum"].to_numpy(dtype=object))
    system_codes = pd.Index(labels, dtype=object).get_indexer(values["system"].to_numpy(dtype=object))
    present = np.zeros((len(data), len(labels)), dtype=bool)
    present[data_codes, system_codes] = True
    complete = present.all(axis=1)
    if not complete.all():
        warn_excluded(
            int((~complete).sum()),
            len(data),
            f"data without the verdict rows of every system (e.g. {preview(data[~complete], 5)}) are left "
            f"out of the comparison",
        )
    buckets = key_buckets(pd.Series(data, dtype=object).infer_objects(), options["key"])
    k = int(buckets.max()) + 1 if len(data) else 0
    weights = poisson_weights(options["key"], k, options["n_resamples"])
    per_metric, counts = {}, {}
    for m in metrics:
        matrix = np.full((len(data), len(labels)), np.nan)
        matrix[data_codes, system_codes] = values[m].to_numpy(dtype="float64")
        used = np.isfinite(matrix).all(axis=1)
        features = np.column_stack([np.ones(int(used.sum())), matrix[used]])
        sums = np.zeros((k, features.shape[1]))
        if used.any():
            at, summed = _bucket_sums(buckets[used], features)
            sums[at] = summed
        resampled = resampled_sums(weights, sums)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = resampled[:, 1:] / resampled[:, :1]
        per_metric[m] = (matrix[used].mean(axis=0) if used.any() else np.full(len(labels), np.nan), means)
        counts[m] = int(used.sum())
    index = {label: i for i, label in enumerate(labels)}
    return _pair_table(
        [(a, b, m) for a, b in compared for m in metrics],
        lambda a, b, m: (per_metric[m][0][index[a]], per_metric[m][0][index[b]]),
        lambda a, b, m: per_metric[m][1][:, index[b]] - per_metric[m][1][:, index[a]],
        counts.get,
        options,
    )
