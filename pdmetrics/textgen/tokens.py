"""Text input checks, tokenizers and n-gram ids shared by the lexical text metrics.

Every text of a call (predictions and references) is tokenized in one regular-expression
pass over the texts joined by a separator character, and the tokens are encoded against one
vocabulary (:func:`pandas.factorize`), so the metrics work on integer arrays for all rows at
once:

- ``"rouge-score"``: Google's ``rouge-score`` 0.1.2 tokenizer, reproduced exactly: the text
  is lower-cased (:meth:`str.lower`), every run of characters other than ``a-z0-9`` is a
  separator, and with ``use_stemmer=True`` nltk's Porter stemmer (its default
  ``NLTK_EXTENSIONS`` mode, as rouge-score builds it) stems the tokens longer than 3
  characters. Every non-ASCII letter is a separator, so two identical Russian texts have no
  tokens and score 0.
- ``"unicode"``: the same rule with Unicode letters, marks and digits (``[\\p{L}\\p{M}\\p{N}]``,
  third-party ``regex`` engine) in place of ``a-z0-9``. On ASCII text the tokens are the
  same as ``"rouge-score"``.
- BLEU: valor's ``RegexpTokenizer(r"\\w+|\\$[\\d]+|[^\\s\\.]+")``, run with the ``regex`` engine
  and flags nltk (3.9 and later) compiles it with; case is kept. On ASCII text without the
  separators ``\\x1c``-``\\x1f`` the standard ``re`` engine gives the same tokens; there no
  branch of the pattern matches a space or a period, so the joined text is split into its
  ``[^\\s.]+`` runs (:meth:`str.split`), which are encoded with :func:`pandas.factorize`, and
  only each distinct run is tokenized.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdmetrics._optional import optional_module
from pdmetrics._validation import preview
from pdmetrics._warnings import emit, warn_excluded
from pdmetrics.errors import EmptyTokensWarning, InvalidInputError

__all__ = [
    "TOKENIZERS",
    "Tokens",
    "bleu_tokens",
    "compact_ids",
    "factorize_texts",
    "ngram_ids",
    "ngram_orders",
    "rouge_tokens",
    "TextRows",
    "text_rows",
    "warn_left_out",
    "added_exclusions",
    "warn_empty_tokens",
]

#: Tokenizer names accepted by :func:`pdmetrics.textgen.rouge`.
TOKENIZERS = ("rouge-score", "unicode")

_ROUGE_PATTERN = "[a-z0-9]+"
_UNICODE_PATTERN = r"[\p{L}\p{M}\p{N}]+"
_VALID_ROUGE_TOKEN = re.compile("[a-z0-9]+")
#: valor-lite 0.39 ``calculate_sentence_bleu``: "regex tokenizer that ignores periods"
_BLEU_PATTERN = r"\w+|\$[\d]+|[^\s\.]+"
#: the flags nltk's RegexpTokenizer compiles its pattern with
_BLEU_FLAGS = re.UNICODE | re.MULTILINE | re.DOTALL
#: largest n-gram id bound kept before renumbering (leaves room for row x reference)
_ID_LIMIT = 1 << 40
_BLEU_RE = re.compile(_BLEU_PATTERN, _BLEU_FLAGS)
#: the only ASCII characters on which `re` and `regex` disagree (``re`` counts them as ``\s``)
_RE_ONLY_SPACES = "\x1c\x1d\x1e\x1f"
_SEPARATORS = ("\x00", "\x01", "\x02", "\ufdd0", "\ufdd1", "\U0010fffe")
_STEMMER_CACHE: dict = {}


@dataclass(frozen=True)
class Tokens:
    """Tokens of ``n_texts`` texts, flat, in text order.

    ``codes`` are vocabulary ids (equal ids, equal tokens), ``text`` the text each token
    belongs to, ``sentence`` a running sentence number (a new sentence at every newline and
    at every new text; only filled when sentences were asked for), ``starts``/``lengths``
    where each text's tokens sit in the flat arrays.
    """

    codes: np.ndarray
    text: np.ndarray
    sentence: np.ndarray | None
    starts: np.ndarray
    lengths: np.ndarray
    n_codes: int


def _describe(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_missing(value) -> bool:
    return (
        value is None or value is pd.NA or value is pd.NaT or (isinstance(value, float) and np.isnan(value))
    )


def _prediction_cells(prediction, argument: str = "prediction") -> tuple[np.ndarray, pd.Index, np.ndarray]:
    """The predictions as an object array, their index and a mask of the missing ones.

    Raises :class:`InvalidInputError` naming the row of the first cell that is neither a str
    nor missing (None/NaN/pd.NA).
    """
    if isinstance(prediction, pd.DataFrame) or np.ndim(prediction) != 1:
        raise InvalidInputError(f"`{argument}=` must be one column of texts (a Series), not a table.")
    series = prediction if isinstance(prediction, pd.Series) else pd.Series(list(prediction), dtype=object)
    name = f"`{argument}=`" if series.name is None else f"column {series.name!r}"
    values = series.to_numpy(dtype=object)
    is_text = np.fromiter((isinstance(v, str) for v in values), dtype=bool, count=len(values))
    missing = np.zeros(len(values), dtype=bool)
    missing[~is_text] = np.fromiter(
        map(_is_missing, values[~is_text]), dtype=bool, count=int((~is_text).sum())
    )
    bad = ~is_text & ~missing
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InvalidInputError(
            f"{name}: row {series.index[row]!r} is not text ({_describe(values[row])}); every prediction "
            "must be a str (use '' for an empty answer; a missing one, None/NaN, is left out)."
        )
    return values, series.index, missing


def _reference_cells(reference, index: pd.Index, argument: str = "reference") -> np.ndarray:
    """References as an ``(n_rows, n_refs)`` object array, ``None`` where a cell is missing.

    ``reference`` is a Series of str, a Series of lists of str (several references per row),
    a DataFrame (one reference per column) or an array-like of str. Missing cells (None/NaN)
    become None; a non-text cell raises :class:`InvalidInputError` naming the row.
    """
    if isinstance(reference, pd.DataFrame):
        table = reference.to_numpy(dtype=object)
        names = [f"column {c!r}" for c in reference.columns]
    else:
        series = reference if isinstance(reference, pd.Series) else pd.Series(list(reference), dtype=object)
        values = series.to_numpy(dtype=object)
        listed = np.fromiter(
            (isinstance(v, (list, tuple, np.ndarray)) for v in values), dtype=bool, count=len(values)
        )
        label = f"`{argument}=`" if series.name is None else f"column {series.name!r}"
        if listed.any():
            width = max((len(v) for v in values[listed]), default=0)
            table = np.full((len(values), max(width, 1)), None, dtype=object)
            table[~listed, 0] = values[~listed]
            for row in np.flatnonzero(listed):  # ragged lists: a loop over list-valued cells
                cells = list(values[row])
                table[row, : len(cells)] = cells
        else:
            table = values.reshape(-1, 1).copy()
        names = [label] * table.shape[1]
    if len(table) != len(index):
        raise InvalidInputError(
            f"`{argument}=` has {len(table)} rows but `prediction=` has {len(index)}: pass one "
            "reference (or one list of references) per prediction."
        )
    flat = table.ravel()
    missing = np.fromiter(map(_is_missing, flat), dtype=bool, count=len(flat)).reshape(table.shape)
    is_text = np.fromiter((isinstance(v, str) for v in flat), dtype=bool, count=len(flat)).reshape(
        table.shape
    )
    bad = ~missing & ~is_text
    if bad.any():
        row, col = (int(i[0]) for i in np.nonzero(bad))
        raise InvalidInputError(
            f"{names[col]}: row {index[row]!r} holds {_describe(table[row, col])}, not text; every "
            "reference must be a str (None/NaN marks a missing reference)."
        )
    table = table.copy()
    table[missing] = None
    return table


def warn_left_out(no_prediction: int, no_reference: int, total: int, labels=None, missing=None) -> None:
    """The :class:`~pdmetrics.ExcludedRowsWarning` of rows left out of a text metric: counts
    of rows without a prediction and of rows (with one) without any reference. ``missing``
    (``(count, what)`` pairs) replaces the "without a prediction" reason, e.g. to tell the two
    systems of a paired comparison apart; ``no_prediction`` still counts those rows once."""
    if not no_prediction and not no_reference:
        return
    reasons = []
    if missing is not None:
        reasons.extend(f"{count} without {what}" for count, what in missing if count)
    elif no_prediction:
        reasons.append(f"{no_prediction} without a prediction")
    if no_reference:
        reasons.append(f"{no_reference} without any reference")
    shown = [] if labels is None else list(labels)[:10]
    more = ", ..." if len(shown) < no_prediction + no_reference else ""
    where = f"; rows {preview(shown, 10)}{more}" if shown else ""
    warn_excluded(no_prediction + no_reference, total, f"{' and '.join(reasons)} (None/NaN{where})")


def added_exclusions(parts) -> tuple:
    """``(no prediction, no reference, first labels)`` of several parts, added."""
    parts = list(parts)
    labels = tuple(label for part in parts for label in part[2])[:10]
    return (sum(p[0] for p in parts), sum(p[1] for p in parts), labels)


@dataclass(frozen=True)
class TextRows:
    """The rows a per-row text metric scores: ``predictions`` (str), ``references`` (an
    ``(rows, n_refs)`` object array, None where a cell is missing), their ``index`` labels and
    their ``positions`` among the caller's ``total`` rows; ``no_prediction`` and
    ``no_reference`` count the rows left out, ``dropped`` holds their labels."""

    predictions: np.ndarray
    references: np.ndarray
    index: pd.Index
    positions: np.ndarray
    total: int
    no_prediction: int
    no_reference: int
    dropped: pd.Index

    def warn(self) -> None:
        """Warn about the rows left out (nothing when none was)."""
        warn_left_out(self.no_prediction, self.no_reference, self.total, self.dropped)


def text_rows(prediction, reference) -> TextRows:
    """The usable rows of ``prediction`` and ``reference`` (no warning: see :meth:`TextRows.warn`).

    A row whose prediction is missing (None/NaN/pd.NA: e.g. a generation that timed out) or
    whose every reference is missing is left out; a cell that is neither text nor missing
    raises :class:`InvalidInputError` naming the row.
    """
    values, index, no_prediction = _prediction_cells(prediction)
    table = _reference_cells(reference, index)
    no_reference = (table == None).all(axis=1) if table.shape[1] else np.ones(len(table), bool)  # noqa: E711
    dropped = no_prediction | no_reference
    kept = np.flatnonzero(~dropped)
    return TextRows(
        values[kept],
        table[kept],
        index if kept.size == len(index) else index[kept],  # pandas 2 makes a RangeIndex an Index
        kept,
        len(dropped),
        int(no_prediction.sum()),
        int((no_reference & ~no_prediction).sum()),
        index[dropped],
    )


def _joined(texts) -> tuple[str, str]:
    """Join ``texts`` with a separator character that none of them contains."""
    texts = list(texts)
    for separator in _SEPARATORS:
        joined = separator.join(texts)
        if joined.count(separator) == max(len(texts) - 1, 0):
            return joined, separator
    raise InvalidInputError(  # pragma: no cover - needs every separator character in the texts
        "the texts contain every separator character pdmetrics can use to tokenize them in one pass."
    )


#: pandas 2 hashes a str holding a lone surrogate by a lossy UTF-8 copy: pd.factorize merges
#: "\ud83d\ude00" with "\ud83d", and "a\udc00b" with "a?b" (pandas 3 keeps them apart)
_LOSSY_STRING_HASH = int(pd.__version__.split(".", 1)[0]) < 3
_SURROGATE = re.compile("[\ud800-\udfff]")


def factorize_texts(values) -> tuple[np.ndarray, np.ndarray]:
    r""":func:`pandas.factorize` of str values (codes in order of first appearance, uniques) that
    keeps texts with lone surrogates apart on pandas 2 too.

    >>> factorize_texts(["\ud83d\ude00", "\ud83d", "a\udc00b", "a?b", "\ud83d"])[0].tolist()
    [0, 1, 2, 3, 1]
    """
    if not isinstance(values, np.ndarray):
        values = pd.Series(list(values), dtype=object).to_numpy()
    try:
        lossy = _LOSSY_STRING_HASH and _SURROGATE.search("".join(values.tolist())) is not None
    except TypeError:  # not all str: pandas hashes the objects themselves
        lossy = False
    if lossy:
        # with a None among them pandas hashes the str objects themselves; None gets code -1
        codes, uniques = pd.factorize(np.append(values, None))
        return codes[:-1], uniques
    return pd.factorize(values)


def _split(found: list, separator: str, n_texts: int, sentences: bool) -> tuple:
    """Vocabulary ids, text number and sentence number of the tokens ``findall`` returned."""
    codes, vocabulary = factorize_texts(found)
    codes = codes.astype(np.int64)
    marks = np.zeros(len(vocabulary), dtype=np.int8)
    words = pd.Series(vocabulary, dtype=object)  # numpy would strip a NUL separator
    marks[(words == separator).to_numpy()] = 1
    if sentences:
        marks[(words == "\n").to_numpy()] = 2
    kind = marks[codes]
    text = np.cumsum(kind == 1)
    sentence = np.cumsum(kind > 0) if sentences else None
    keep = kind == 0
    return codes[keep], vocabulary, text[keep], None if sentence is None else sentence[keep]


def _tokens(codes, text, sentence, n_texts: int) -> Tokens:
    codes = codes.astype(np.int64)
    n_codes = int(codes.max()) + 1 if len(codes) else 0
    lengths = np.bincount(text, minlength=n_texts).astype(np.int64)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64)
    return Tokens(codes, text.astype(np.int64), sentence, starts, lengths, n_codes)


def _stemmed(vocabulary: np.ndarray, tokenizer: str) -> tuple[np.ndarray, np.ndarray]:
    """Porter stems of the vocabulary (tokens longer than 3 characters) and a keep flag."""
    porter = optional_module("nltk.stem.porter", "text", "ROUGE with use_stemmer=True")
    stemmer = _STEMMER_CACHE.setdefault("porter", porter.PorterStemmer())
    # a loop over the distinct words (the vocabulary), not over rows
    stems = np.array([stemmer.stem(w) if len(w) > 3 else w for w in vocabulary.tolist()], dtype=object)
    if tokenizer == "rouge-score":
        keep = np.fromiter((_VALID_ROUGE_TOKEN.fullmatch(s) is not None for s in stems), bool, len(stems))
    else:
        keep = np.fromiter((len(s) > 0 for s in stems), bool, len(stems))
    return stems, keep


def rouge_tokens(texts, tokenizer: str = "rouge-score", use_stemmer: bool = False, sentences=False) -> Tokens:
    """Tokenize ``texts`` as rouge-score 0.1.2 does (see the module docstring).

    >>> t = rouge_tokens(["The cat, the CAT!", "Кот cat"])
    >>> t.codes.tolist(), t.lengths.tolist()
    ([0, 1, 0, 1, 1], [4, 1])
    >>> rouge_tokens(["Кот cat"], tokenizer="unicode").lengths.tolist()
    [2]
    """
    if tokenizer not in TOKENIZERS:
        raise InvalidInputError(f"tokenizer={tokenizer!r} is not one of {list(TOKENIZERS)}.")
    texts = list(texts)
    joined, separator = _joined(texts)
    alternatives = [re.escape(separator)] + (["\n"] if sentences else [])
    if tokenizer == "rouge-score":
        pattern = re.compile("|".join([_ROUGE_PATTERN, *alternatives]))
    else:
        engine = optional_module("regex", "text", 'ROUGE with tokenizer="unicode"')
        pattern = engine.compile("|".join([_UNICODE_PATTERN, *alternatives]))
    found = pattern.findall(joined.lower())
    codes, vocabulary, text, sentence = _split(found, separator, len(texts), sentences)
    if use_stemmer and len(codes):
        stems, keep = _stemmed(vocabulary, tokenizer)
        valid = keep[codes]
        codes, text = pd.factorize(stems)[0][codes[valid]], text[valid]
        sentence = None if sentence is None else sentence[valid]
    return _tokens(codes, text, sentence, len(texts))


def _bleu_chunk_tokens(chunks: list, separator: str) -> tuple[np.ndarray, np.ndarray]:
    """Token codes and text numbers from the ``[^\\s.]+`` runs (chunks) of their joined ASCII text.

    No branch of the pattern matches a space or a period, so every match lies inside one
    chunk and ``findall`` restarts at each chunk: the chunk tokens are those of the whole
    text. Each distinct chunk is tokenized once (a loop over the vocabulary of chunks, not
    over rows), then the per-chunk tokens are laid out for every occurrence.
    """
    chunk_codes, distinct = pd.factorize(
        np.asarray(chunks, dtype=object) if chunks else np.array([], dtype=object)
    )
    pieces = [[] if c == separator else _BLEU_RE.findall(c) for c in distinct.tolist()]
    per_chunk = np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces))
    flat = [token for piece in pieces for token in piece]
    token_codes, _ = pd.factorize(np.asarray(flat, dtype=object) if flat else np.array([], dtype=object))
    first = np.concatenate(([0], np.cumsum(per_chunk)[:-1])).astype(np.int64)
    counts = per_chunk[chunk_codes]
    ends = np.cumsum(counts)
    separator_code = np.flatnonzero((pd.Series(distinct, dtype=object) == separator).to_numpy())
    boundaries = np.flatnonzero(chunk_codes == separator_code[0]) if len(separator_code) else []
    # tokens per text: the token count up to each separator, differenced
    upto = np.concatenate(([0], ends[boundaries], ends[-1:] if len(ends) else [0]))
    text = np.repeat(np.arange(len(upto) - 1, dtype=np.int64), np.diff(upto))
    if (per_chunk <= 1).all():  # the common case: one token per chunk
        return token_codes[first[chunk_codes[counts == 1]]], text
    # token j of an occurrence whose chunk's tokens start at `first` sits at first + j
    shift = first[chunk_codes] - (ends - counts)
    codes = token_codes[np.repeat(shift, counts) + np.arange(int(ends[-1]), dtype=np.int64)]
    return codes, text


def bleu_tokens(texts) -> Tokens:
    """Tokenize ``texts`` with valor's BLEU tokenizer (see the module docstring).

    >>> bleu_tokens(["It costs $30. Done", "a.b"]).lengths.tolist()
    [4, 2]
    >>> bleu_tokens([",ab$5x $$5 a_b$3,c$"]).lengths.tolist()
    [5]
    """
    texts = list(texts)
    joined, separator = _joined(texts)
    # the separator stands alone between spaces, so the pattern's last branch sees it as a token
    joined = joined.replace(separator, f" {separator} ")
    if joined.isascii() and not any(c in joined for c in _RE_ONLY_SPACES):  # `in`: a fast scan
        # ASCII: `str.split` splits on exactly the characters `\s` matches (\x1c-\x1f excluded above)
        codes, text = _bleu_chunk_tokens(joined.replace(".", " ").split(), separator)
        return _tokens(codes, text, None, len(texts))
    pattern = optional_module("regex", "text", "BLEU").compile(_BLEU_PATTERN, _BLEU_FLAGS)
    found = pattern.findall(joined)
    codes, _, text, _ = _split(found, separator, len(texts), False)
    return _tokens(codes, text, None, len(texts))


def ngram_ids(tokens: Tokens, n: int) -> np.ndarray:
    """Id of the ``n``-gram starting at each token (equal ids, equal n-grams); -1 where fewer
    than ``n`` tokens of the same text remain.

    >>> ids = ngram_ids(rouge_tokens(["a b a b", "a b"]), 2)
    >>> bool(ids[0] == ids[2] == ids[4] != ids[1]), ids[[3, 5]].tolist()
    (True, [-1, -1])
    """
    *_, ids = ngram_orders(tokens, n)
    return ids


def ngram_orders(tokens: Tokens, n_max: int, limit: int = _ID_LIMIT):
    """Yield :func:`ngram_ids` for n = 1, 2, ..., ``n_max`` (each order extends the last); the
    ids are renumbered (a sort) only when they would reach ``limit``."""
    ids = tokens.codes.copy()
    size = max(tokens.n_codes, 1)
    bound = size  # ids < bound
    yield ids
    for k in range(1, n_max):
        if bound * size > limit:  # keep ids small enough to combine with row numbers
            valid = ids >= 0
            ids[valid] = np.unique(ids[valid], return_inverse=True)[1]
            bound = int(ids.max()) + 1
        nxt = np.full(len(ids), -1, dtype=np.int64)
        same = tokens.text[k:] == tokens.text[:-k] if k < len(ids) else np.zeros(0, dtype=bool)
        ok = np.flatnonzero(same & (ids[:-k] >= 0)) if len(same) else np.zeros(0, dtype=np.int64)
        nxt[ok] = ids[ok] * size + tokens.codes[ok + k]
        ids, bound = nxt, bound * size
        yield ids


def compact_ids(ids: np.ndarray) -> tuple[np.ndarray, int]:
    """``ids`` renumbered 0..count-1 in sorted order (-1 stays -1), and the count."""
    ids = ids.copy()
    valid = ids >= 0
    unique, ids[valid] = np.unique(ids[valid], return_inverse=True)
    return ids, len(unique)


def warn_empty_tokens(texts: np.ndarray, lengths: np.ndarray, rows: np.ndarray, index: pd.Index, hint: str):
    """Warn (:class:`EmptyTokensWarning`) about rows holding a non-blank text without tokens."""
    blank = np.fromiter((not t.strip() for t in texts), dtype=bool, count=len(texts))
    lost = (lengths == 0) & ~blank
    if lost.any():
        where = index[np.unique(rows[lost])]
        emit(
            f"{lost.sum()} non-blank text(s) produced no tokens and score 0 (rows {preview(where, 10)}). "
            + hint,
            EmptyTokensWarning,
        )
