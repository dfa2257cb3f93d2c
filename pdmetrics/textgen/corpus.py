"""Corpus BLEU, chrF/chrF++ and TER as sacrebleu 2.6 defines them, from one row per segment.

sacrebleu scores a corpus from per-segment *sufficient statistics* that add up: BLEU from
n-gram match counts and lengths, chrF from character (and word) n-gram hypothesis / reference /
match counts, TER from edit counts and reference lengths. This module computes the same
statistics for every segment at once (tokens and n-grams become integer codes; counts come
from sorting and ``bincount``), sums them, and finalizes the score with sacrebleu's formulas.
Because the statistics add, a corpus can be split into chunks (dask partitions, groups,
bootstrap resamples) and scored from the summed chunks.

Only sacrebleu's default settings are reproduced (BLEU: ``13a`` tokenizer, ``exp``
smoothing, mixed case; chrF: 6 character orders, beta 2, whitespace removed, optionally 2
word orders for chrF++; TER: lowercased, no normalization, punctuation kept). The
tokenizers (:mod:`pdmetrics.textgen.tokenizers`) and TER's shift search
(:mod:`pdmetrics.textgen.ter_edits`, a Python loop over the segments and their search steps)
are reimplemented, so sacrebleu is not needed at run time. Each result carries sacrebleu's
reproducibility signature. Everything but TER's shift search is vectorized over segments.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._table_spec import Table, table
from pdmetrics.errors import InvalidInputError
from pdmetrics.textgen.per_row import text_names, texts
from pdmetrics.textgen.ter_edits import translation_edits
from pdmetrics.textgen.tokenizers import char_codes, chrf_words, explode, ter_tokens, tokenize_13a
from pdmetrics.textgen.tokens import added_exclusions, factorize_texts, warn_left_out

__all__ = [
    "corpus_bleu",
    "chrf",
    "ter",
    "segment_statistics",
    "scores_from_statistics",
    "metric_signature",
    "SACREBLEU_VERSION",
    "CorpusState",
    "compared_segments",
    "corpus_state",
    "corpus_table",
    "statistic_names",
]

#: The sacrebleu version whose definitions (and signature strings) this module reproduces.
SACREBLEU_VERSION = "2.6.0"

_BLEU_ORDER = 4
_CHAR_ORDER = 6
_BETA = 2
_METRICS = ("bleu", "chrf", "chrf++", "ter")
# sacrebleu's floor for log(0) in BLEU's geometric mean.
_LOG_ZERO = -9999999999.0

# --------------------------------------------------------------------------- input checks


def _labels(values) -> pd.Index:
    return values.index if isinstance(values, pd.Series) else pd.RangeIndex(len(values))


def _as_series(values, argument: str) -> pd.Series:
    if isinstance(values, pd.DataFrame):
        raise InvalidInputError(
            f"`{argument}` is a DataFrame; pass one column of texts (a Series), e.g. `df['{argument}']`."
        )
    if isinstance(values, str):
        raise InvalidInputError(
            f"`{argument}` is a single string; pass one text per segment (a Series or list of str)."
        )
    if isinstance(values, pd.Series):
        return values
    try:
        array = np.empty(len(values), dtype=object)
        array[:] = list(values)
    except TypeError:
        raise InvalidInputError(
            f"`{argument}` must be a Series or list of texts, one per segment; got {type(values).__name__}."
        ) from None
    return pd.Series(array, dtype=object)


def _describe(value) -> str:
    return f"{value!r} ({type(value).__name__})"


def _text_array(values, argument: str) -> np.ndarray:
    """One text per segment as an object array, missing cells (None/NaN) kept: the caller leaves
    their rows out. Any other cell that is not a str raises InvalidInputError naming the row."""
    series = _as_series(values, argument)
    array = series.to_numpy(dtype=object)
    if pd.api.types.infer_dtype(array, skipna=False) in ("string", "empty"):
        return array
    bad = ~np.fromiter((isinstance(v, str) for v in array), dtype=bool, count=array.size) & ~_is_missing(
        array
    )
    if not bad.any():
        return array
    row = int(np.flatnonzero(bad)[0])
    raise InvalidInputError(
        f"`{argument}` row {series.index[row]!r} holds {_describe(array[row])}, not a text "
        f"({int(bad.sum())} such row(s)); convert the column to text (e.g. `.astype(str)`) or fix "
        "that row (a missing text, None/NaN, is left out)."
    )


def _is_missing(array: np.ndarray) -> np.ndarray:
    return np.asarray(pd.isna(array), dtype=bool)


def _check_reference_cells(values: np.ndarray, rows: np.ndarray, labels: pd.Index, where: str) -> None:
    """Every non-missing reference cell must be a str."""
    present = ~_is_missing(values)
    if pd.api.types.infer_dtype(values[present], skipna=False) in ("string", "empty"):
        return
    bad = present & ~np.fromiter((isinstance(v, str) for v in values), dtype=bool, count=values.size)
    first = int(np.flatnonzero(bad)[0])
    raise InvalidInputError(
        f"`reference`{where} row {labels[rows[first]]!r} holds {_describe(values[first])}, not a text "
        f"({int(bad.sum())} such cell(s)). References must be str (missing cells, NaN/None, are "
        f"dropped); convert them, e.g. `.astype(str)`, or fix those rows."
    )


def _reference_matrix(reference, n: int, labels: pd.Index) -> np.ndarray:
    """References as an (n, R) object array; None marks a missing reference.

    Accepts a Series/list of str (one reference per segment), a DataFrame (one reference per
    column) or a Series/list whose cells are lists of str (several references per segment).
    """
    if isinstance(reference, pd.DataFrame):
        if reference.shape[1] == 0:
            raise InvalidInputError(
                "`reference` is a DataFrame with no columns; pass one column per reference."
            )
        matrix = reference.to_numpy(dtype=object)
        if matrix.shape[0] != n:
            raise InvalidInputError(
                f"`reference` has {matrix.shape[0]} rows but `prediction` has {n}; pass one row per segment."
            )
        for column, name in enumerate(reference.columns):
            _check_reference_cells(matrix[:, column], np.arange(n), labels, f" column {name!r}")
    else:
        series = _as_series(reference, "reference")
        if len(series) != n:
            raise InvalidInputError(
                f"`reference` has {len(series)} rows but `prediction` has {n}; pass one row per segment."
            )
        cells = series.to_numpy(dtype=object)
        listed = np.fromiter(
            (isinstance(v, (list, tuple, np.ndarray, pd.Series)) for v in cells), dtype=bool, count=n
        )
        if not listed.any():
            _check_reference_cells(cells, np.arange(n), labels, "")
            matrix = cells.reshape(n, 1)
        else:
            rows, values = explode(cells)
            _check_reference_cells(values, rows, labels, "")
            counts = np.bincount(rows, minlength=n)
            within = np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts)
            matrix = np.full((n, int(within.max()) + 1), None, dtype=object)
            matrix[rows, within] = values
    matrix = matrix.copy()
    matrix[_is_missing(matrix)] = None
    return matrix


@dataclass(frozen=True)
class _Segments:
    """The usable segments: ``hypotheses``, the reference ``matrix`` (None where missing), their
    ``labels``, and the rows left out (``no_prediction``, ``no_reference`` of ``total``)."""

    hypotheses: np.ndarray
    matrix: np.ndarray
    labels: pd.Index
    total: int
    no_prediction: int
    no_reference: int
    dropped: pd.Index
    kept: np.ndarray

    def warn(self) -> None:
        warn_left_out(self.no_prediction, self.no_reference, self.total, self.dropped)


def _segments(prediction, reference, also_missing=None) -> _Segments:
    """The segments with a prediction and at least one reference (``also_missing``: more rows to
    leave out, counted as without a prediction; e.g. the other system's missing outputs)."""
    hypotheses = _text_array(prediction, "prediction")
    labels = _labels(_as_series(prediction, "prediction"))
    matrix = _reference_matrix(reference, hypotheses.size, labels)
    no_prediction = _is_missing(hypotheses)
    if also_missing is not None:
        no_prediction = no_prediction | also_missing
    no_reference = (matrix == None).all(axis=1) & ~no_prediction  # noqa: E711
    kept = ~(no_prediction | no_reference)
    return _Segments(
        hypotheses[kept],
        matrix[kept],
        labels[kept],
        len(kept),
        int(no_prediction.sum()),
        int(no_reference.sum()),
        labels[~kept],
        np.flatnonzero(kept),
    )


def _inputs(prediction, reference) -> tuple[np.ndarray, np.ndarray]:
    """The usable segments' texts (the rows left out warned about); at least one is needed."""
    segments = _segments(prediction, reference)
    segments.warn()
    _require_segments(segments)
    return segments.hypotheses, segments.matrix


def checked_texts(values, argument: str) -> np.ndarray:
    """``values`` as an object array of texts, missing cells kept (for another module's checks);
    a cell that is neither a str nor missing raises :class:`InvalidInputError` naming
    ``argument`` and the row."""
    return _text_array(values, argument)


def compared_segments(predictions: dict, reference) -> tuple[dict, _Segments, dict]:
    """Several systems' outputs on the same segments, without a warning.

    ``predictions``: how each system is named in messages (e.g. ``"prediction='new'"``) -> its
    texts, one per segment. Returns each system's texts (object arrays) on the segments every
    system answered and that have a reference, those segments (their reference ``matrix``,
    ``kept`` positions and the rows left out) and the number of rows each system lacks."""
    arrays = {argument: _text_array(values, argument) for argument, values in predictions.items()}
    missing = {argument: _is_missing(array) for argument, array in arrays.items()}
    first = next(iter(predictions.values()))
    segments = _segments(first, reference, also_missing=np.logical_or.reduce(list(missing.values())))
    texts = {argument: array[segments.kept] for argument, array in arrays.items()}
    return texts, segments, {argument: int(mask.sum()) for argument, mask in missing.items()}


def paired_inputs(
    prediction_a, prediction_b, reference, arguments=None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The two systems' texts and the reference matrix of the segments both systems answered
    and that have a reference (the others left out with one warning, which names the system
    each missing output belongs to: ``arguments``, e.g. ``("baseline='old'", "prediction='new'")``)."""
    for value, argument in ((prediction_a, "prediction_a"), (prediction_b, "prediction_b")):
        if value is None:
            raise InvalidInputError(
                f"`{argument}=None`: pass the {'baseline' if argument == 'prediction_a' else 'compared'} "
                "system's outputs, one text per segment (a Series or list of str)."
            )
    texts_a = _text_array(prediction_a, "prediction_a")
    texts_b = _text_array(prediction_b, "prediction_b")
    if len(texts_a) != len(texts_b):
        raise InvalidInputError(
            f"`prediction_a` has {len(texts_a)} segments but `prediction_b` has {len(texts_b)}; "
            f"a paired comparison needs both systems' outputs for the same segments, in the same order."
        )
    segments = _segments(prediction_a, reference, also_missing=_is_missing(texts_b))
    name_a, name_b = arguments or ("prediction_a", "prediction_b")
    missing = [
        (int(_is_missing(texts_a).sum()), f"a baseline output (`{name_a}`)"),
        (int(_is_missing(texts_b).sum()), f"a compared output (`{name_b}`)"),
    ]
    warn_left_out(segments.no_prediction, segments.no_reference, segments.total, segments.dropped, missing)
    _require_segments(segments)
    return segments.hypotheses, texts_b[segments.kept], segments.matrix


def statistics_array(metric: str, hypotheses: np.ndarray, matrix: np.ndarray) -> tuple[np.ndarray, object]:
    """Per-segment statistics of checked texts (:func:`paired_inputs`) as an array, and the
    ``nrefs`` of the signature."""
    return _statistics(_metric_name(metric), hypotheses, matrix), _nrefs(matrix)


def _require_segments(segments: _Segments) -> None:
    if segments.hypotheses.size == 0:
        if segments.total == 0:
            raise InvalidInputError("`prediction` is empty; pass at least one segment.")
        raise InvalidInputError(
            f"No segment left to score: all {segments.total} rows lack a prediction or every reference "
            "(None/NaN); fill or fix them."
        )


def _metric_name(metric: str) -> str:
    name = str(metric).lower()
    if name not in _METRICS:
        raise InvalidInputError(f"`metric={metric!r}` is not supported; choose one of {list(_METRICS)}.")
    return name


def _nrefs(matrix: np.ndarray) -> int | str:
    counts = np.unique((matrix != None).sum(axis=1))  # noqa: E711  (elementwise test on objects)
    return int(counts[0]) if counts.size == 1 else "var"


def metric_signature(metric: str, nrefs: int | str = 1, **extra) -> str:
    """sacrebleu 2.6's reproducibility signature of a metric on its default settings.

    Parameters
    ----------
    metric : {"bleu", "chrf", "chrf++", "ter"}
    nrefs : int or "var"
        References per segment (``"var"`` when it varies).
    **extra
        Bootstrap fields sacrebleu adds in a paired test (``bs=1000, seed=12345``).

    Returns
    -------
    str

    Examples
    --------
    >>> metric_signature("bleu")
    'nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0'
    >>> metric_signature("chrf++", nrefs=2)
    'nrefs:2|case:mixed|eff:yes|nc:6|nw:2|space:no|version:2.6.0'
    """
    name = _metric_name(metric)
    fields: dict[str, object] = {"nrefs": nrefs}
    for key in ("bs", "ar", "seed"):
        if extra.get(key) is not None:
            fields[key] = extra[key]
    if name == "bleu":
        fields.update(case="mixed", eff="no", tok="13a", smooth="exp")
    elif name == "ter":
        fields.update(case="lc", tok="tercom", norm="no", punct="yes", asian="no")
    else:
        fields.update(case="mixed", eff="yes", nc=_CHAR_ORDER, nw=2 if name == "chrf++" else 0, space="no")
    fields["version"] = SACREBLEU_VERSION
    return "|".join(f"{key}:{value}" for key, value in fields.items())


# --------------------------------------------------------------------------- n-gram counting


def _ngram_keys(
    codes: np.ndarray, doc: np.ndarray, max_order: int, n_docs: int
) -> list[tuple[np.ndarray, np.ndarray]]:
    """For n = 1..max_order: (document, n-gram id) of every n-gram inside one document.

    ``codes`` are dense token ids in text order, ``doc`` the (non-decreasing) document of each
    token, ``n_docs`` the number of documents. Ids of order n are equal for equal n-grams
    across all documents and stay below 2**62 / n_docs: an n-gram is packed as a
    base-``vocabulary`` number while that fits, and renumbered densely (hashing) when not.
    """
    out = []
    size = codes.size
    base = int(codes.max()) + 1 if size else 1
    limit = 2**62 // max(n_docs, 1)
    previous, bound = codes, base
    for n in range(1, max_order + 1):
        count = max(size - n + 1, 0)
        keys = previous[:count]
        if n > 1:
            if bound > limit // base:
                keys, uniques = pd.factorize(keys)
                keys, bound = keys.astype(np.int64), max(len(uniques), 1)
            keys = keys * base + codes[n - 1 : n - 1 + count]
            bound *= base
        inside = doc[:count] == doc[n - 1 : n - 1 + count]
        out.append((doc[:count][inside], keys[inside]))
        previous = keys
    return out


def _side_counts(grams: tuple[np.ndarray, np.ndarray], n_seg: int, n_sides: int):
    """Count every distinct (segment, n-gram) on every side with one sort.

    Returns the segment of each distinct pair and an (n_sides, pairs) matrix of its counts
    (side 0: hypotheses, side r: the r-th references)."""
    doc, keys = grams
    side, segment = np.divmod(doc, n_seg)
    values = np.sort(keys * (n_seg * n_sides) + segment * n_sides + side)
    if values.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros((n_sides, 0), dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
    run_values = values[starts]
    run_counts = np.diff(np.r_[starts, values.size])
    pair_of_run = run_values // n_sides
    new_pair = np.r_[True, pair_of_run[1:] != pair_of_run[:-1]]
    pair_index = np.cumsum(new_pair) - 1
    counts = np.zeros((n_sides, int(pair_index[-1]) + 1), dtype=np.int64)
    counts[run_values % n_sides, pair_index] = run_counts
    return pair_of_run[new_pair] % n_seg, counts


def _matches(segment: np.ndarray, hyp: np.ndarray, ref: np.ndarray, n_seg: int) -> np.ndarray:
    """Per segment: sum over the distinct n-grams of min(hypothesis count, reference count)."""
    return np.bincount(segment, weights=np.minimum(hyp, ref), minlength=n_seg).astype(np.int64)


def _documents(hypotheses: np.ndarray, matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All texts as one stream of documents: side 0 holds the hypotheses, side r the r-th
    references (a missing reference becomes an empty document, never matched)."""
    references = np.where(matrix == None, "", matrix)  # noqa: E711
    texts = np.concatenate([hypotheses, references.T.ravel()]).astype(object)
    present = np.concatenate([np.ones(hypotheses.size, dtype=bool), (matrix != None).T.ravel()])  # noqa: E711
    return texts, present


def _token_codes(tokens: pd.Series, n_docs: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Flat token ids, their document, and the token count of every document."""
    doc = tokens.index.to_numpy(dtype=np.int64)
    codes = factorize_texts(tokens.to_numpy(dtype=object))[0].astype(np.int64)
    lengths = np.bincount(doc, minlength=n_docs)
    return codes, doc, lengths


# --------------------------------------------------------------------------- statistics


def _bleu_statistics(hypotheses: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    n_seg, n_ref = matrix.shape
    texts, present = _documents(hypotheses, matrix)
    owner, items = explode(tokenize_13a(pd.Series(texts, dtype=object)).to_numpy(dtype=object))
    tokens = pd.Series(items, index=owner, dtype=object)
    codes, doc, lengths = _token_codes(tokens, texts.size)
    grams = _ngram_keys(codes, doc, _BLEU_ORDER, texts.size)
    hyp_len = lengths[:n_seg]
    ref_lens = np.where(present[n_seg:].reshape(n_ref, n_seg).T, lengths[n_seg:].reshape(n_ref, n_seg).T, -1)
    # closest reference length; ties go to the shorter reference
    distance = np.where(ref_lens >= 0, np.abs(ref_lens - hyp_len[:, None]), np.iinfo(np.int64).max)
    order = np.lexsort((np.where(ref_lens >= 0, ref_lens, np.iinfo(np.int64).max), distance), axis=-1)
    ref_len = np.take_along_axis(ref_lens, order[:, :1], axis=1)[:, 0]
    correct = np.zeros((n_seg, _BLEU_ORDER), dtype=np.int64)
    for n, gram in enumerate(grams):
        segment, counts = _side_counts(gram, n_seg, n_ref + 1)
        # the reference count of an n-gram is its largest count in any one reference
        correct[:, n] = _matches(segment, counts[0], counts[1:].max(axis=0), n_seg)
    total = np.maximum(hyp_len[:, None] - np.arange(_BLEU_ORDER)[None, :], 0)
    return np.column_stack([hyp_len, ref_len, correct, total]).astype(np.float64)


def _chrf_side_stats(hypotheses, matrix, word_order: int) -> np.ndarray:
    """(n_seg, R, 3 * orders) statistics [hyp count, ref count, matches] of each reference."""
    n_seg, n_ref = matrix.shape
    texts, _ = _documents(hypotheses, matrix)
    n_docs = texts.size
    streams = []
    codes, owner = char_codes(texts)
    streams.append((codes, owner, np.bincount(owner, minlength=n_docs), _CHAR_ORDER))
    if word_order:
        words = chrf_words(pd.Series(texts, dtype=object))
        streams.append(_token_codes(words, n_docs) + (word_order,))
    stats = []
    for codes, doc, lengths, orders in streams:
        grams = _ngram_keys(codes, doc, orders, n_docs)
        for n, gram in enumerate(grams):
            sizes = np.maximum(lengths - n, 0).reshape(n_ref + 1, n_seg)
            segment, counts = _side_counts(gram, n_seg, n_ref + 1)
            for side in range(1, n_ref + 1):
                ref_total = sizes[side]
                hyp_total = np.where(ref_total > 0, sizes[0], 0)
                match = _matches(segment, counts[0], counts[side], n_seg)
                stats.append(np.column_stack([hyp_total, ref_total, match]))
    orders = len(stats) // n_ref
    return np.stack(stats).reshape(orders, n_ref, n_seg, 3).transpose(2, 1, 0, 3).reshape(n_seg, n_ref, -1)


def _chrf_statistics(hypotheses: np.ndarray, matrix: np.ndarray, word_order: int) -> np.ndarray:
    per_ref = _chrf_side_stats(hypotheses, matrix, word_order).astype(np.float64)
    f = _chrf_from_stats(per_ref)
    f = np.where(matrix != None, f, -np.inf)  # noqa: E711
    best = np.argmax(f, axis=1)  # first reference with the best F-score
    return per_ref[np.arange(matrix.shape[0]), best]


def _ter_statistics(hypotheses: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    n_seg, n_ref = matrix.shape
    hyp_words = ter_tokens(pd.Series(hypotheses, dtype=object)).tolist()
    present = matrix != None  # noqa: E711
    ref_words = ter_tokens(pd.Series(np.where(present, matrix, "").ravel(), dtype=object)).tolist()
    stats = np.zeros((n_seg, 2), dtype=np.float64)
    # sequential per segment: each accepted shift changes the next shift search
    for row in range(n_seg):
        refs = [ref_words[row * n_ref + k] for k in range(n_ref) if present[row, k]]
        edits = min(translation_edits(hyp_words[row], words) for words in refs)
        stats[row] = edits, sum(len(words) for words in refs) / len(refs)
    return stats


_COLUMNS = {
    "bleu": ["sys_len", "ref_len"]
    + [f"correct_{n}" for n in range(1, 5)]
    + [f"total_{n}" for n in range(1, 5)],
    "ter": ["edits", "ref_length"],
}


def statistic_names(metric: str) -> list[str]:
    """The column names of :func:`segment_statistics` for ``metric`` (its statistics, in order)."""
    return _stat_columns(_metric_name(metric))


def _stat_columns(name: str) -> list[str]:
    if name in _COLUMNS:
        return _COLUMNS[name]
    labels = [f"char_{n}" for n in range(1, _CHAR_ORDER + 1)]
    if name == "chrf++":
        labels += ["word_1", "word_2"]
    return [f"{label}_{part}" for label in labels for part in ("hyp", "ref", "match")]


def _statistics(name: str, hypotheses: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    if name == "bleu":
        return _bleu_statistics(hypotheses, matrix)
    if name == "ter":
        return _ter_statistics(hypotheses, matrix)
    return _chrf_statistics(hypotheses, matrix, 2 if name == "chrf++" else 0)


def segment_statistics(prediction, reference, metric: str = "bleu") -> pd.DataFrame:
    """Per-segment sufficient statistics of a sacrebleu metric; they add up over segments.

    Parameters
    ----------
    prediction : Series or list of str
        One system output per segment.
    reference : Series, list or DataFrame
        One reference per segment (a Series/list of str), several (a DataFrame with one
        column per reference, or cells holding lists of str). Missing references (NaN/None)
        are dropped; each segment needs at least one.
    metric : {"bleu", "chrf", "chrf++", "ter"}

    Returns
    -------
    DataFrame
        One row per segment, same order and index (a row without a prediction or without any
        reference is left out, with an :class:`~pdmetrics.ExcludedRowsWarning`). BLEU:
        ``sys_len, ref_len, correct_1..4, total_1..4``; chrF: ``<order>_hyp, <order>_ref,
        <order>_match`` per character order (and word order for chrF++); TER: ``edits,
        ref_length`` (the average over references).
        Sum any subset of rows and pass it to :func:`scores_from_statistics`. ``attrs`` holds
        ``nrefs`` and sacrebleu's ``signature``.

    Examples
    --------
    >>> stats = segment_statistics(["the cat sat"], ["the cat sat down"], metric="bleu")
    >>> stats[["sys_len", "ref_len", "correct_1", "total_1"]].iloc[0].tolist()
    [3.0, 4.0, 3.0, 3.0]
    """
    name = _metric_name(metric)
    segments = _segments(prediction, reference)
    segments.warn()
    _require_segments(segments)
    hypotheses, matrix = segments.hypotheses, segments.matrix
    table = pd.DataFrame(
        _statistics(name, hypotheses, matrix), columns=_stat_columns(name), index=segments.labels
    )
    table.attrs.update(nrefs=_nrefs(matrix), signature=metric_signature(name, _nrefs(matrix)))
    return table


# --------------------------------------------------------------------------- finalizing


def _bleu_parts(stats: np.ndarray) -> dict[str, np.ndarray]:
    """BLEU from summed statistics, one corpus per row, in the dtype of ``stats``.

    float64 statistics reproduce sacrebleu's corpus score; float32 ones reproduce the
    arithmetic of its bootstrap resamples (it sums them as float32)."""
    stats = np.atleast_2d(stats)
    dtype = stats.dtype.type
    sys_len = stats[:, 0].astype(np.int64)
    ref_len = stats[:, 1].astype(np.int64)
    correct = stats[:, 2 : 2 + _BLEU_ORDER]
    total = stats[:, 2 + _BLEU_ORDER :]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ratio = ref_len / np.where(sys_len > 0, sys_len, 1)
        bp = np.where(sys_len < ref_len, np.where(sys_len > 0, np.exp(1 - ratio), 0.0), 1.0)
        # exp smoothing: the k-th order without a match gets 100 / (2**k * total)
        unmatched = (correct == 0) & (total > 0)
        halvings = np.cumsum(unmatched, axis=1).astype(dtype)
        hundred = dtype(100.0)
        smoothed = hundred / (np.exp2(halvings).astype(dtype) * total)
        matched = hundred * correct / total
        precisions = np.where(total > 0, np.where(correct == 0, smoothed, matched), dtype(0.0))
        logs = np.where(precisions == 0, _LOG_ZERO, np.log(precisions.astype(np.float64)))
    log_sum = logs[:, 0]
    for n in range(1, _BLEU_ORDER):
        log_sum = log_sum + logs[:, n]
    any_match = (correct != 0).any(axis=1)
    score = np.where(any_match, bp * np.exp(log_sum / _BLEU_ORDER), 0.0)
    precisions = np.where(any_match[:, None], precisions.astype(np.float64), 0.0)
    return {"score": score, "precisions": precisions, "bp": bp, "sys_len": sys_len, "ref_len": ref_len}


def _chrf_from_stats(stats: np.ndarray) -> np.ndarray:
    """chrF (beta 2, effective-order averaging) along the last axis of ``stats``, in its dtype.

    Where sacrebleu returns its Python-float zero (no usable order) the result is 0.0."""
    dtype = stats.dtype.type
    factor = _BETA**2
    orders = stats.shape[-1] // 3
    avg_prec = np.zeros(stats.shape[:-1], dtype=dtype)
    avg_rec = np.zeros(stats.shape[:-1], dtype=dtype)
    effective = np.zeros(stats.shape[:-1], dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(orders):
            n_hyp, n_ref, n_match = stats[..., 3 * i], stats[..., 3 * i + 1], stats[..., 3 * i + 2]
            used = (n_hyp > 0) & (n_ref > 0)
            avg_prec = avg_prec + np.where(used, n_match / n_hyp, dtype(0))
            avg_rec = avg_rec + np.where(used, n_match / n_ref, dtype(0))
            effective += used
        divisor = np.maximum(effective, 1).astype(dtype)
        avg_prec = np.where(effective > 0, avg_prec / divisor, dtype(0))
        avg_rec = np.where(effective > 0, avg_rec / divisor, dtype(0))
        score = dtype(1 + factor) * avg_prec * avg_rec
        score = score / (dtype(factor) * avg_prec + avg_rec)
        score = dtype(100) * score
    usable = avg_prec + avg_rec != 0
    return _promoted(np.where(usable, score, dtype(0)), usable)


def _promoted(scores: np.ndarray, computed: np.ndarray) -> np.ndarray:
    """float32 scores become float64 when some row took sacrebleu's Python-float shortcut
    (numpy then builds sacrebleu's list of scores as float64, which changes its mean)."""
    if scores.dtype == np.float32 and not computed.all():
        return scores.astype(np.float64)
    return scores


def _ter_from_stats(stats: np.ndarray) -> np.ndarray:
    stats = np.atleast_2d(stats)
    dtype = stats.dtype.type
    edits, length = stats[:, 0], stats[:, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = edits / length
    rate = np.where(length > 0, rate, np.where(edits > 0, dtype(1.0), dtype(0.0)))
    return _promoted(dtype(100) * rate, length > 0)


def scores_from_statistics(statistics, metric: str = "bleu") -> np.ndarray:
    """Corpus scores from summed sufficient statistics, one corpus per row.

    Parameters
    ----------
    statistics : DataFrame or array of shape (k, n_statistics) or (n_statistics,)
        Column sums of :func:`segment_statistics` (one row per corpus, resample or chunk).
        The arithmetic runs in the array's dtype: float64 gives sacrebleu's corpus score;
        float32 reproduces sacrebleu's bootstrap resamples, which it sums in float32.
    metric : {"bleu", "chrf", "chrf++", "ter"}

    Returns
    -------
    ndarray of float
        One score (0-100) per row.

    Examples
    --------
    >>> stats = segment_statistics(["the cat sat on the mat", "a dog"],
    ...                            ["the cat sat on a mat", "a dog barked"], metric="chrf")
    >>> round(float(scores_from_statistics(stats.sum().to_numpy(), metric="chrf")[0]), 4)
    55.9539
    """
    name = _metric_name(metric)
    array = np.asarray(statistics)
    if array.dtype not in (np.float32, np.float64):
        array = array.astype(np.float64)
    array = np.atleast_2d(array)
    expected = len(_stat_columns(name))
    if array.shape[-1] != expected:
        raise InvalidInputError(
            f"`statistics` has {array.shape[-1]} columns but {name} needs {expected} "
            f"({', '.join(_stat_columns(name)[:4])}, ...): pass column sums of "
            f"`segment_statistics(..., metric={name!r})`."
        )
    if name == "bleu":
        return _bleu_parts(array)["score"]
    if name == "ter":
        return _ter_from_stats(array)
    return _chrf_from_stats(array)


def _sequential_sum(stats: np.ndarray) -> np.ndarray:
    """Column sums added row after row, as sacrebleu adds segment statistics."""
    return np.cumsum(stats, axis=0)[-1]


# --------------------------------------------------------------------------- public scores


@table
def corpus_bleu(frame, *, prediction, reference):
    """Corpus BLEU as sacrebleu 2.6 computes it on its defaults (13a tokens, exp smoothing).

    Parameters
    ----------
    frame : DataFrame
        One row per segment (pandas; on dask the segment statistics of the partitions add up).
    prediction : str
        The column of system outputs.
    reference : str or list of str
        The reference column (its cells a str, or a list of str for several references), or
        a list of columns (one reference each). Missing references (NaN/None) are dropped, as
        sacrebleu drops ``None``. A segment without a prediction or without any reference is
        left out, with an :class:`~pdmetrics.ExcludedRowsWarning` that counts it.

    Returns
    -------
    DataFrame
        One row: ``N`` (segments), ``score`` (0-100), ``precision_1..4`` (percent), ``bp``
        (brevity penalty), ``ratio``, ``sys_len``, ``ref_len``, ``signature`` (sacrebleu's).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"hyp": ["The cat sat on the mat.", "It rained today."],
    ...                    "ref": ["The cat sat on a mat.", "It rained all day today."]})
    >>> result = corpus_bleu(df, prediction="hyp", reference="ref")
    >>> round(float(result.loc[0, "score"]), 4), int(result.loc[0, "sys_len"]), int(result.loc[0, "ref_len"])
    (35.9672, 11, 13)
    >>> result.loc[0, "signature"]
    'nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0'
    """
    return _corpus_spec(frame, "bleu", prediction, reference)


@table
def chrf(frame, *, prediction, reference, word_order: int = 0):
    """Corpus chrF (``word_order=0``) or chrF++ (``word_order=2``) as sacrebleu 2.6 computes it.

    Character n-grams of orders 1-6 with whitespace removed (plus word unigrams and bigrams
    for chrF++), beta 2, precision and recall averaged over the orders that occur. With
    several references each segment keeps the statistics of its best-scoring reference.

    Parameters
    ----------
    frame, prediction, reference
        As in :func:`corpus_bleu`.
    word_order : {0, 2}
        0 for chrF, 2 for chrF++.

    Returns
    -------
    DataFrame
        One row: ``N``, ``score`` (0-100), ``char_order``, ``word_order``, ``beta``,
        ``signature``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"hyp": ["The cat sat on the mat."], "ref": ["The cat sat on a mat."]})
    >>> result = chrf(df, prediction="hyp", reference="ref", word_order=2)
    >>> round(float(result.loc[0, "score"]), 4), result.loc[0, "signature"]
    (72.6591, 'nrefs:1|case:mixed|eff:yes|nc:6|nw:2|space:no|version:2.6.0')
    """
    spec = _corpus_spec(frame, "chrf++" if word_order == 2 else "chrf", prediction, reference)
    if word_order not in (0, 2) or isinstance(word_order, bool):
        raise InvalidInputError(
            f"`word_order={word_order!r}` is not supported; use 0 (chrF) or 2 (chrF++, sacrebleu's -cw 2)."
        )
    return spec


@table
def ter(frame, *, prediction, reference):
    """Corpus TER (translation edit rate) as sacrebleu 2.6 computes it on its defaults.

    Texts are lowercased and split on whitespace (no normalization, punctuation kept). The
    edits of a segment are the fewest over its references (word shifts found by Tercom's
    greedy search, then insertions, deletions and substitutions); the reference length is
    the references' average. TER = 100 * edits / reference length, summed over segments.
    The shift search runs segment by segment (a Python loop over segments and search steps;
    each step scores all its candidate shifts at once), the slowest part of this module.

    Parameters
    ----------
    frame, prediction, reference
        As in :func:`corpus_bleu`.

    Returns
    -------
    DataFrame
        One row: ``N``, ``score`` (0-100, lower is better; may exceed 100), ``num_edits``,
        ``ref_length``, ``signature``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"hyp": ["the mat sat on the cat"], "ref": ["The cat sat on the mat"]})
    >>> result = ter(df, prediction="hyp", reference="ref")
    >>> row = result.iloc[0]
    >>> round(float(row["score"]), 4), int(row["num_edits"]), float(row["ref_length"])
    (33.3333, 2, 6.0)
    """
    return _corpus_spec(frame, "ter", prediction, reference)


def _corpus_spec(frame, metric: str, prediction, reference) -> Table:
    """A corpus metric as a table: each part's summed segment statistics, added, then scored."""
    names = text_names(frame, prediction, reference)
    return Table(names, partial(_corpus_chunk, metric, prediction, reference), corpus_table)


def _corpus_chunk(metric: str, prediction, reference, part: pd.DataFrame) -> CorpusState:
    return corpus_state(*texts(part, prediction, reference), metric, allow_empty=True)


# --------------------------------------------------------------------------- additive state


@dataclass(frozen=True)
class CorpusState:
    """A corpus metric's statistics summed over some segments: ``n`` segments, the column
    sums ``totals`` of :func:`segment_statistics` (added segment after segment, as sacrebleu
    does) and the numbers of references the segments have. States of disjoint segments
    combine by adding; :func:`corpus_table` finalizes one."""

    metric: str
    n: int
    totals: np.ndarray
    nrefs: frozenset
    #: rows left out: without a prediction, without any reference (warned by corpus_table)
    excluded: tuple = (0, 0, ())

    def combine(self, *others: CorpusState) -> CorpusState:
        states = (self, *others)
        nrefs = frozenset().union(*(s.nrefs for s in states))
        excluded = added_exclusions(s.excluded for s in states)
        return CorpusState(
            self.metric, sum(s.n for s in states), sum(s.totals for s in states), nrefs, excluded
        )


def corpus_state(prediction, reference, metric: str, allow_empty: bool = False) -> CorpusState:
    """The :class:`CorpusState` of the segments (``allow_empty``: no segment is a zero state,
    for a part of the data; the whole data needs one segment at least).

    Examples
    --------
    Two halves' states, combined, give the score of the whole corpus:

    >>> from pdmetrics.textgen.corpus import corpus_state, corpus_table
    >>> hyp, ref = ["the cat sat on the mat", "a dog ran"], ["the cat sat on a mat", "the dog ran"]
    >>> halves = corpus_state(hyp[:1], ref[:1], "bleu").combine(corpus_state(hyp[1:], ref[1:], "bleu"))
    >>> whole = corpus_state(hyp, ref, "bleu")
    >>> bool(corpus_table(halves)["score"][0] == corpus_table(whole)["score"][0])
    True
    """
    name = _metric_name(metric)
    segments = _segments(prediction, reference)
    excluded = (segments.no_prediction, segments.no_reference, tuple(segments.dropped[:10]))
    if segments.hypotheses.size == 0 and (allow_empty or segments.total):  # corpus_table says why
        return CorpusState(name, 0, np.zeros(len(_stat_columns(name))), frozenset(), excluded)
    _require_segments(segments)
    hypotheses, matrix = segments.hypotheses, segments.matrix
    counts = frozenset(np.unique((matrix != None).sum(axis=1)).tolist())  # noqa: E711  (elementwise)
    totals = _sequential_sum(_statistics(name, hypotheses, matrix))
    return CorpusState(name, hypotheses.size, totals, counts, excluded)


def corpus_table(state: CorpusState) -> pd.DataFrame:
    """The one-row table of :func:`corpus_bleu`, :func:`chrf` or :func:`ter` of a (combined) state."""
    no_prediction, no_reference, labels = state.excluded
    warn_left_out(no_prediction, no_reference, state.n + no_prediction + no_reference, labels)
    if state.n == 0:
        if no_prediction + no_reference:
            raise InvalidInputError(
                f"No segment left to score: all {no_prediction + no_reference} rows lack a prediction or "
                "every reference (None/NaN); fill or fix them."
            )
        raise InvalidInputError("`prediction` is empty; pass at least one segment.")
    nrefs = next(iter(state.nrefs)) if len(state.nrefs) == 1 else "var"
    totals, name = state.totals, state.metric
    if name == "bleu":
        parts = _bleu_parts(totals)
        sys_len, ref_len = int(parts["sys_len"][0]), int(parts["ref_len"][0])
        row: dict[Hashable, object] = {"N": state.n, "score": float(parts["score"][0])}
        for n in range(_BLEU_ORDER):
            row[f"precision_{n + 1}"] = float(parts["precisions"][0, n])
        row.update(
            bp=float(parts["bp"][0]),
            ratio=sys_len / ref_len if ref_len else 0.0,
            sys_len=sys_len,
            ref_len=ref_len,
            signature=metric_signature("bleu", nrefs),
        )
    elif name == "ter":
        row = {
            "N": state.n,
            "score": float(_ter_from_stats(totals)[0]),
            "num_edits": int(totals[0]),
            "ref_length": float(totals[1]),
            "signature": metric_signature("ter", nrefs),
        }
    else:
        row = {
            "N": state.n,
            "score": float(_chrf_from_stats(totals)),
            "char_order": _CHAR_ORDER,
            "word_order": 2 if name == "chrf++" else 0,
            "beta": _BETA,
            "signature": metric_signature(name, nrefs),
        }
    return pd.DataFrame([row])
