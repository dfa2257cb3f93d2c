"""Paired bootstrap comparison of two systems on the same segments, as sacrebleu 2.6 runs it.

sacrebleu's ``--paired-bs`` (Koehn 2004, as in Moses' ``bootstrap-hypothesis-difference-
significance.pl``) draws ``n_resamples`` resamples of the segment indices with replacement
from ``numpy.random.default_rng(random_state)`` (sacrebleu's ``SACREBLEU_SEED``, default 12345),
scores both systems on every resample, and reports for each system the mean of its resampled
scores with a 95% interval (``confidence=``), and for the compared system a p-value: the share
of centred resampled absolute differences that exceed the observed absolute difference,
``(c + 1) / (n_resamples + 1)``.

Here every resample is scored from the summed per-segment statistics of
:func:`pdmetrics.textgen.segment_statistics`, all resamples at once. The sums are taken in
float32 and the scores finalized in float32 where sacrebleu does so, so the numbers (and the
comparisons behind the p-value) are sacrebleu's.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._renamed import renamed
from pdmetrics._resampling import check_bootstrap_options, is_confidence
from pdmetrics._table_spec import Whole, table
from pdmetrics._validation import one_column, one_name
from pdmetrics.errors import InvalidInputError
from pdmetrics.textgen.corpus import (
    checked_texts,
    metric_signature,
    paired_inputs,
    scores_from_statistics,
    statistics_array,
)
from pdmetrics.textgen.per_row import text_names, texts

__all__ = [
    "checked_options",
    "corpus_score",
    "paired_bootstrap",
    "paired_bootstrap_table",
    "resample_indices",
    "resampled_scores",
    "sacrebleu_interval",
    "sacrebleu_p_value",
]

_METRICS = ("bleu", "chrf", "chrf++", "ter")
# float32 cells gathered per block of resamples (bounds memory at about 64 MB)
_BLOCK_CELLS = 2**24


def _metrics(metric) -> list[str]:
    names = [metric] if isinstance(metric, str) else list(metric)
    if not names:
        raise InvalidInputError("`metric=` is empty; pass 'bleu', 'chrf', 'chrf++', 'ter' or a list of them.")
    out = []
    for name in names:
        key = str(name).lower()
        if key not in _METRICS:
            raise InvalidInputError(f"`metric={name!r}` is not supported; choose from {list(_METRICS)}.")
        if key not in out:
            out.append(key)
    return out


def _resampled_sums(stats: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Column sums of ``stats`` (as float32, row after row) for every row of ``indices``."""
    stats32 = stats.astype(np.float32)
    per_block = max(1, _BLOCK_CELLS // max(1, stats32.size))
    sums = np.empty((indices.shape[0], stats32.shape[1]), dtype=np.float32)
    for lo in range(0, indices.shape[0], per_block):
        sums[lo : lo + per_block] = stats32[indices[lo : lo + per_block]].sum(axis=1)
    return sums


def sacrebleu_interval(scores: np.ndarray, confidence: float) -> tuple[float, float, float, float]:
    """Mean of the resampled scores, half-width of the ``confidence`` interval, its bounds (sacrebleu,
    95%: the n//40-th smallest and largest scores)."""
    ordered = np.sort(scores)
    lower_at = int(np.floor(ordered.size * (1 - confidence) / 2 + 1e-9))
    lower, upper = ordered[lower_at], ordered[ordered.size - lower_at - 1]
    return float(ordered.mean()), float(0.5 * (upper - lower)), float(lower), float(upper)


def resample_indices(n: int, n_resamples: int, random_state) -> np.ndarray:
    """sacrebleu's resamples: ``n_resamples`` rows of ``n`` segment indices drawn with
    replacement from ``numpy.random.default_rng(random_state)``."""
    rng = np.random.default_rng(random_state)
    return rng.choice(n, size=(int(n_resamples), n), replace=True) if n else np.zeros((0, 0), int)


def corpus_score(stats: np.ndarray, metric: str) -> float:
    """The corpus score of per-segment statistics, added segment after segment in float64 (as
    sacrebleu adds them)."""
    return float(scores_from_statistics(np.cumsum(stats, axis=0)[-1], metric)[0])


def resampled_scores(stats: np.ndarray, indices: np.ndarray, metric: str) -> np.ndarray:
    """The score of every resample (rows of ``indices``), in sacrebleu's float32 arithmetic."""
    return scores_from_statistics(_resampled_sums(stats, indices), metric)


def sacrebleu_p_value(resampled_a, resampled_b, score_a: float, score_b: float) -> float:
    """sacrebleu's p-value of "no difference": the share of centred resampled absolute
    differences strictly greater than the observed one, ``(c + 1) / (n + 1)``; 1.0 when no
    resample differs and the scores are equal."""
    differences = np.abs(resampled_b - resampled_a)
    if not differences.any() and score_a == score_b:
        return 1.0
    centred = differences - differences.mean()
    return (int(np.sum(centred > abs(score_a - score_b))) + 1) / (differences.size + 1)


def _names(prediction_a, prediction_b) -> tuple[str, str]:
    a, b = getattr(prediction_a, "name", None), getattr(prediction_b, "name", None)
    if a is not None and b is not None and a != b:
        return a, b
    return "prediction_a", "prediction_b"


def _seed_label(seed) -> str:
    """The signature's ``seed`` field: the integer, ``none``, or ``generator`` (state not shown)."""
    if seed is None or isinstance(seed, (int, np.integer)):
        return str(seed).lower()
    return "generator"


@table
@renamed("n_samples", "seed")
def paired_bootstrap(
    frame,
    *,
    prediction,
    baseline,
    reference,
    metric="bleu",
    n_resamples: int = 1000,
    confidence: float = 0.95,
    random_state=12345,
):
    """Compare system B with baseline A on the same segments by paired bootstrap resampling.

    Reproduces sacrebleu 2.6's paired bootstrap test (``sacrebleu -t ... --paired-bs``) on its
    default metric settings: same resampled indices for a given seed, same scores, same
    mean, 95% interval and p-value.

    Parameters
    ----------
    frame : DataFrame
        One row per segment (pandas or polars: the resamples draw from every segment at
        once, so it does not run on dask).
    prediction : str
        The column of the compared system's outputs (system B).
    baseline : str
        The column of the baseline system's outputs (system A), for the same segments.
    reference : str or list of str
        The references, as in :func:`pdmetrics.textgen.corpus_bleu` (one, several, or a
        variable number per segment). A segment missing in either system (None/NaN) or
        without any reference is left out of both, with an
        :class:`~pdmetrics.ExcludedRowsWarning` that counts it.
    metric : str or list of str
        ``"bleu"``, ``"chrf"``, ``"chrf++"`` and/or ``"ter"``. Every metric uses the same
        resamples, as sacrebleu does.
    n_resamples : int
        Bootstrap resamples (sacrebleu's default 1000).
    confidence : float
        Coverage of the interval, in (0, 1) (sacrebleu's 0.95: the ``n_resamples // 40``-th
        smallest and largest resampled scores). Each tail must hold at least one resample
        (``n_resamples * (1 - confidence) / 2 >= 1``, e.g. 40 resamples at 0.95), otherwise
        :class:`~pdmetrics.errors.InvalidInputError` asks for more resamples.
    random_state : int, numpy.random.Generator or None
        Seed of ``numpy.random.default_rng`` (sacrebleu's ``SACREBLEU_SEED``, default 12345;
        an integer seed draws sacrebleu's resamples), a Generator to draw from (the signature
        then says ``seed:generator``), or None for fresh entropy; the same rule as the fairness
        bootstrap.

    Returns
    -------
    DataFrame
        Two rows per metric (the baseline first): ``metric, system, baseline, N, score`` (on
        all segments), ``mean`` (of the resampled scores), ``ci`` (half-width of the
        ``confidence`` interval, sacrebleu's "±"), ``ci_low, ci_high`` (its bounds), ``p_value`` (NaN for the
        baseline) and ``signature`` (sacrebleu's, with ``bs`` and ``seed``).

    Notes
    -----
    sacrebleu counts a resample as "more extreme" only when its centred difference is
    strictly greater than the observed one, so a system compared with an identical copy of
    itself gets its smallest p-value, ``1 / (n_resamples + 1)``. Here, when every resampled
    difference is exactly zero (the two systems have the same statistics on every segment)
    the p-value is 1.0: no difference was observed, so none is significant. All other cases
    equal sacrebleu. The sign of a difference is not tested (``abs(B - A)``): for TER lower is
    better, for the others higher.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({
    ...     "ref": ["the cat sat on the mat", "a dog barked loudly", "it rained all day",
    ...             "we went home early", "she reads a book"],
    ...     "old": ["the cat sat on a mat", "the dog barked", "it rained today",
    ...             "we went home", "she is reading a book"],
    ...     "new": ["the cat sat on the mat", "a dog barked loudly", "it rained all day",
    ...             "we went home early", "she reads books"]})
    >>> table = paired_bootstrap(df, prediction="new", baseline="old", reference="ref", n_resamples=200)
    >>> table[["system", "score", "p_value"]].round(3)
      system   score  p_value
    0    old  35.614      NaN
    1    new  90.504    0.005
    """
    for argument, name in (("baseline", baseline), ("prediction", prediction)):
        if name is None:
            raise InvalidInputError(
                f"`{argument}=None`: name the column of the "
                f"{'baseline system (system A)' if argument == 'baseline' else 'compared system'}'s "
                f"outputs, e.g. `{argument}='{'old' if argument == 'baseline' else 'new'}'`."
            )
    names = [one_name(frame, "baseline", baseline), *text_names(frame, prediction, reference)]
    metrics = checked_options(metric, n_resamples, confidence, random_state)
    options = dict(metrics=metrics, n_resamples=n_resamples, confidence=confidence, random_state=random_state)
    return Whole(
        names,
        partial(_compared, baseline, prediction, reference, options),
        instead="Its resamples draw from every segment at once: compute it on the columns it needs, or "
        "on a random sample of rows when they do not fit in memory: "
        "`ddf[columns].compute().textgen.paired_bootstrap(...)` "
        "(or `ddf[columns].sample(frac=...).compute()...`).",
    )


def _compared(baseline, prediction, reference, options: dict, frame: pd.DataFrame) -> pd.DataFrame:
    for argument, name in (("baseline", baseline), ("prediction", prediction)):
        checked_texts(one_column(frame, argument, name), f"{argument}={name!r}")  # names the argument
    outputs, references = texts(frame, prediction, reference)
    arguments = (f"baseline={baseline!r}", f"prediction={prediction!r}")
    return paired_bootstrap_table(
        one_column(frame, "baseline", baseline), outputs, references, **options, arguments=arguments
    )


def checked_options(metric, n_resamples, confidence, random_state) -> list[str]:
    """The metrics, and the resampling options checked."""
    metrics = _metrics(metric)
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 1:
        raise InvalidInputError(
            f"`n_resamples={n_resamples!r}` must be a positive integer (sacrebleu uses 1000)."
        )
    if not is_confidence(confidence):
        raise InvalidInputError(f"`confidence={confidence!r}` must be a number in (0, 1), e.g. 0.95.")
    if n_resamples * (1 - confidence) / 2 + 1e-9 < 1:
        # each tail of the interval must hold at least one resample, or the bounds are the extremes
        needed = int(np.ceil(2 / (1 - confidence) - 1e-9))
        raise InvalidInputError(
            f"`n_resamples={n_resamples!r}` is too few for `confidence={confidence!r}`: each tail of the "
            f"interval would hold less than one resample; pass `n_resamples={needed}` or more "
            f"(or a lower `confidence`)."
        )
    # the random_state rule of the fairness bootstrap: a seed, a numpy Generator or None
    check_bootstrap_options(n_resamples, confidence, random_state, required=True)
    return metrics


def paired_bootstrap_table(
    prediction_a,
    prediction_b,
    reference,
    metrics: list,
    n_resamples: int,
    confidence: float,
    random_state,
    arguments: tuple[str, str] | None = None,
) -> pd.DataFrame:
    """:func:`paired_bootstrap` of the texts of two systems (Series) and their references (a
    Series, or a DataFrame of several), options checked; ``arguments`` names the two systems in
    the warning about missing outputs (e.g. ``("baseline='old'", "prediction='new'")``)."""
    seed = random_state
    name_a, name_b = _names(prediction_a, prediction_b)
    # a segment missing in either system (or without a reference) is left out of both
    hypotheses_a, hypotheses_b, matrix = paired_inputs(prediction_a, prediction_b, reference, arguments)
    n = len(hypotheses_a)
    indices = resample_indices(n, n_resamples, seed)
    rows = []
    for key in metrics:
        stats_a, nrefs = statistics_array(key, hypotheses_a, matrix)
        signature = metric_signature(key, nrefs, bs=int(n_resamples), seed=_seed_label(seed))
        arrays = [stats_a, statistics_array(key, hypotheses_b, matrix)[0]]
        score_a, score_b = (corpus_score(s, key) for s in arrays)
        resampled_a, resampled_b = (resampled_scores(s, indices, key) for s in arrays)
        p_value = sacrebleu_p_value(resampled_a, resampled_b, score_a, score_b)
        for system, score, resampled, p in (
            (name_a, score_a, resampled_a, np.nan),
            (name_b, score_b, resampled_b, p_value),
        ):
            mean, half, low, high = sacrebleu_interval(resampled, float(confidence))
            rows.append(
                {
                    "metric": key,
                    "system": system,
                    "baseline": system == name_a,
                    "N": n,
                    "score": score,
                    "mean": mean,
                    "ci": half,
                    "ci_low": low,
                    "ci_high": high,
                    "p_value": p,
                    "signature": signature,
                }
            )
    return pd.DataFrame(rows)
