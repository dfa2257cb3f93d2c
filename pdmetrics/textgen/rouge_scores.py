"""ROUGE-N, ROUGE-L and ROUGE-Lsum, equal to Google's ``rouge-score`` 0.1.2, for all rows at once.

Counts: every n-gram gets an integer id (:func:`~pdmetrics.textgen.tokens.ngram_ids`), and the
clipped overlap of a prediction and a reference is one sorted ``(text, n-gram)`` count table
for all texts. Longest common subsequence: the bit-parallel algorithm of Allison and Dix
(1986) in Hyyrö's form, ``V <- (V + (V & M)) | (V & ~M)``, with the reference along the bits
of ``uint64`` words and one loop step per prediction token, vectorized over all pairs.
ROUGE-Lsum needs the positions rouge-score's LCS backtrack picks (its union LCS is taken over
those), so the same loop keeps every column ``V`` and a backtrack, again vectorized over
pairs, replays rouge-score's tie rule on the DP values read back from those columns.
"""

from __future__ import annotations

import re
from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._table_spec import table
from pdmetrics.errors import InvalidInputError
from pdmetrics.textgen.per_row import per_row_spec
from pdmetrics.textgen.tokens import (
    Tokens,
    compact_ids,
    factorize_texts,
    ngram_ids,
    rouge_tokens,
    text_rows,
    warn_empty_tokens,
)

__all__ = ["rouge", "rouge_rows", "lcs_length"]

_ONES = np.uint64(0xFFFF_FFFF_FFFF_FFFF)
_KEY_LIMIT = 1 << 62
_ROUGE_N = re.compile(r"rouge([0-9])$")


def _ragged(starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``starts[p] + arange(lengths[p])`` for every ``p``, with the owner ``p`` and the offset."""
    lengths = np.asarray(lengths, dtype=np.int64)
    owner = np.repeat(np.arange(len(lengths)), lengths)
    offset = np.arange(int(lengths.sum()), dtype=np.int64) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    return np.asarray(starts, dtype=np.int64)[owner] + offset, owner, offset


def _low_bits(count: np.ndarray, words: int) -> np.ndarray:
    """``(len(count), words)`` masks holding the lowest ``count`` bits of a multi-word number."""
    left = np.clip(count[:, None] - 64 * np.arange(words)[None, :], 0, 64).astype(np.uint64)
    partial = (np.left_shift(np.uint64(1), left % np.uint64(64)) - np.uint64(1)).astype(np.uint64)
    return np.where(left >= 64, _ONES, partial)


def _add(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Multi-word unsigned sum (word 0 lowest), wrapping at the top word.

    The carries out of the words are added to the words above all at once, again while an
    added carry wraps a word to 0 (a loop over the longest chain of carries, not the words;
    a word takes at most one carry in all)."""
    total = first + second
    if total.shape[1] > 1:
        carry = total[:, :-1] < first[:, :-1]
        while carry.any():
            total[:, 1:] += carry
            carry = carry & (total[:, 1:] == 0)
            carry = np.concatenate([np.zeros((len(carry), 1), dtype=bool), carry[:, :-1]], axis=1)
    return total


def _match_masks(codes, a_start, a_len, b_start, b_len, words) -> np.ndarray:
    """``(pairs, max b_len, words)`` uint64: bit ``i`` of column ``j`` is set where ``a[i] == b[j]``
    (one broadcast comparison of the padded token matrices, packed to bits)."""
    pairs, width = len(a_len), int(b_len.max())
    a = np.full((pairs, 64 * words), -1, dtype=np.int64)
    index, owner, offset = _ragged(a_start, a_len)
    a[owner, offset] = codes[index]
    b = np.full((pairs, width), -2, dtype=np.int64)
    index, owner, offset = _ragged(b_start, b_len)
    b[owner, offset] = codes[index]
    packed = np.packbits(b[:, :, None] == a[:, None, :], axis=2, bitorder="little")
    return packed.view("<u8").astype(np.uint64, copy=False)


def _lcs_chunk(codes, a_start, a_len, b_start, b_len, words, history):
    """Bit-parallel LCS of pairs whose ``a`` fits in ``words`` words, sorted by ``b_len``
    descending. Returns the LCS lengths and, with ``history``, the matched ``a`` positions."""
    match = _match_masks(codes, a_start, a_len, b_start, b_len, words)
    width = match.shape[1]
    active = np.searchsorted(-b_len, -np.arange(width), side="left")  # pairs with b_len > step
    state = np.full((len(a_len), words), _ONES, dtype=np.uint64)
    if history:
        kept = np.empty((width + 1, len(a_len), words), dtype=np.uint64)  # kept[j]: the column V_j
        kept[0] = _ONES
    for step, count in enumerate(active.tolist()):
        column = match[:count, step]
        current = state[:count]
        state[:count] = _add(current, current & column) | (current & ~column)
        if history:
            kept[step + 1, :count] = state[:count]
    lengths = a_len - np.bitwise_count(state & _low_bits(a_len, words)).sum(axis=1).astype(np.int64)
    if not history:
        return lengths, None
    return lengths, _backtrack(codes, a_start, a_len, b_start, b_len, kept, words)


def _dp_value(columns, i, words):
    """DP value ``t[i][j]`` from the columns ``V_j`` of the pairs: zeros in the low ``i`` bits."""
    return i - np.bitwise_count(columns & _low_bits(i, words)).sum(axis=1).astype(np.int64)


def _backtrack(codes, a_start, a_len, b_start, b_len, kept, words) -> np.ndarray:
    """Flat token indices of ``a`` on the LCS rouge-score's ``_backtrack_norec`` reads out."""
    i, j = a_len.copy(), b_len.copy()
    live = np.arange(len(a_len))
    matched = []
    while live.size:
        ii, jj = i[live], j[live]
        same = codes[a_start[live] + ii - 1] == codes[b_start[live] + jj - 1]
        matched.append(a_start[live[same]] + ii[same] - 1)
        other = live[~same]
        io, jo = i[other], j[other]
        left = _dp_value(kept[jo - 1, other], io, words)
        up = _dp_value(kept[jo, other], io - 1, words)
        go_left = left > up
        i[live[same]] -= 1
        j[live[same]] -= 1
        j[other[go_left]] -= 1
        i[other[~go_left]] -= 1
        live = live[(i[live] > 0) & (j[live] > 0)]
    return np.concatenate(matched) if matched else np.zeros(0, dtype=np.int64)


#: bytes of the comparison matrix built per chunk of pairs (at least 64 pairs); a pair whose
#: matrix would take more than 1/16 of it goes to the linear-memory path
#: (:func:`_long_lcs_length`, :func:`_long_lcs_positions`)
_CHUNK_BYTES = 1 << 24
#: match masks of one long pair kept in memory: this many bits per token of ``a``
_MASK_BITS_PER_TOKEN = 1024
#: bits of DP columns the backtrack of one long pair keeps at a time
_COLUMN_BITS = 1 << 26


class _Masks:
    """Match masks of the tokens of one long sequence ``a`` as Python ints (bit ``i`` set where
    ``a[i]`` is the token): the masks of the tokens most used by ``b`` are kept (at most
    :data:`_MASK_BITS_PER_TOKEN` bits per token of ``a`` in all), the others built when needed
    from the token's positions, so memory stays linear in the length of ``a``."""

    def __init__(self, a: np.ndarray, b: np.ndarray) -> None:
        order = np.argsort(a, kind="stable")
        tokens, first, counts = np.unique(a[order], return_index=True, return_counts=True)
        self._positions = dict(zip(tokens.tolist(), np.split(order, first[1:]) if len(a) else []))
        self._cache: dict = {}
        used, uses = np.unique(b, return_counts=True)
        shared = np.isin(used, tokens)
        used, uses = used[shared], uses[shared]
        budget = _MASK_BITS_PER_TOKEN * len(a)
        for token in used[np.argsort(-uses, kind="stable")].tolist():  # most used first
            positions = self._positions[token]
            size = int(positions[-1]) + 1
            if size > budget:
                break
            if len(positions) > 16:  # a rare token's mask is cheap to rebuild
                budget -= size
                self._cache[token] = self._built(positions)

    @staticmethod
    def _built(positions: np.ndarray) -> int:
        if len(positions) > 1024:
            bits = np.zeros(int(positions[-1]) + 1, dtype=bool)
            bits[positions] = True
            return int.from_bytes(np.packbits(bits, bitorder="little").tobytes(), "little")
        packed = bytearray(int(positions[-1]) // 8 + 1)
        for position in positions.tolist():  # at most 1024 bits: cheaper than numpy's calls
            packed[position >> 3] |= 1 << (position & 7)
        return int.from_bytes(packed, "little")

    def __call__(self, token: int) -> int:
        mask = self._cache.get(token)
        if mask is not None:
            return mask
        positions = self._positions.get(token)
        if positions is None:
            return 0
        return self._built(positions)


def _columns(masks: _Masks, b: list, start: int, stop: int, column: int, keep: bool = False):
    """Run the bit-parallel LCS over ``b[start:stop]`` from ``column`` (the DP column before
    ``b[start]``, zeros where the LCS grows); the last column, or every column with ``keep``."""
    kept = []
    for token in b[start:stop]:
        match = masks(token)
        if match:
            step = column & match
            column = (column + step) | (column - step)
        if keep:
            kept.append(column)
    return kept if keep else column


def _long_lcs_length(a: np.ndarray, b: np.ndarray) -> int:
    """LCS length of one long pair in memory linear in ``len(a)``: one DP column as a Python int.
    Tokens absent from the other side never match, so they are dropped first."""
    a, b = a[np.isin(a, b)], b[np.isin(b, a)]
    masks = _Masks(a, b)
    ones = (1 << len(a)) - 1
    column = _columns(masks, b.tolist(), 0, len(b), ones)
    return len(a) - (column & ones).bit_count()


def _long_lcs_positions(a: np.ndarray, b: np.ndarray) -> list:
    """Positions in ``a`` of the LCS rouge-score's ``_backtrack_norec`` reads out, in linear memory.

    rouge-score walks back from the corner: diagonally on a match, else left when that keeps a
    longer LCS than going up, else up. Within DP column ``j`` this walk goes up from row ``i`` to
    the top of its run of equal values, unless a match in that run comes first (the lowest
    match below ``i``), so each column needs only the column's bits. The columns are replayed
    right to left by halving (Hirschberg's recursion): a column half-way is recomputed from a
    kept one, the right half walked first, and only blocks of at most :data:`_COLUMN_BITS` bits
    are kept whole. Rows above the walk's current row are never needed (the DP bits of rows
    below ``i`` do not depend on tokens above it), so each column is cut to ``i`` bits.
    """
    masks = _Masks(a, b)
    tokens = b.tolist()
    found: list = []

    def walk(lo: int, column: int, hi: int, row: int) -> int:
        """Walk from row ``row`` of column ``hi`` back to column ``lo`` (whose DP column is
        ``column``); the row reached."""
        if row == 0 or hi == lo:
            return row
        column &= (1 << row) - 1
        if (hi - lo) * row > _COLUMN_BITS and hi - lo > 1:
            middle = (lo + hi) // 2
            row = walk(middle, _columns(masks, tokens, lo, middle, column), hi, row)
            return walk(lo, column, middle, row)
        kept = _columns(masks, tokens, lo, hi, column, keep=True)
        for j in range(hi, lo, -1):  # the columns of this block, right to left
            low = (1 << row) - 1
            zeros = ~kept[j - lo - 1] & low
            top = zeros.bit_length() - 1  # the highest row below `row` where the LCS grows, or -1
            start = max(top, 0)
            candidates = (masks(tokens[j - 1]) & low) >> start
            if candidates:
                row = start + candidates.bit_length() - 1
                found.append(row)
            else:
                row = top + 1
            if row == 0:
                break
        return row

    walk(0, (1 << len(a)) - 1, len(b), len(a))
    return found


def _is_long(a_len: np.ndarray, b_len: np.ndarray) -> np.ndarray:
    """Pairs whose comparison matrix takes more than 1/16 of :data:`_CHUNK_BYTES` (about 1,000 x
    1,000 tokens): one by one over Python ints they are faster, and memory stays linear (a
    chunk of 64 shorter pairs takes at most 4 x :data:`_CHUNK_BYTES`)."""
    return 64 * ((a_len + 63) // 64) * b_len > _CHUNK_BYTES // 16


def _lcs(codes, n_codes, a_start, a_len, b_start, b_len, on_union=None):
    """LCS lengths of token spans ``a`` and ``b`` (all non-empty); with ``on_union`` (a bool
    array over the flat tokens) also mark the ``a`` tokens on rouge-score's backtracked LCS.

    Pairs are vectorized in chunks whose comparison matrices take :data:`_CHUNK_BYTES`; a pair
    too long for that (see :func:`_is_long`) is scored alone in linear memory."""
    history = on_union is not None
    lengths = np.zeros(len(a_len), dtype=np.int64)
    long = _is_long(a_len, b_len)
    for pair in np.flatnonzero(long).tolist():  # a loop over the (few) very long pairs
        a = codes[a_start[pair] : a_start[pair] + a_len[pair]]
        b = codes[b_start[pair] : b_start[pair] + b_len[pair]]
        if history:
            positions = np.asarray(_long_lcs_positions(a, b), dtype=np.int64)
            on_union[a_start[pair] + positions] = True
            lengths[pair] = len(positions)
        else:
            lengths[pair] = _long_lcs_length(a, b)
    words = (a_len + 63) // 64
    for size in np.unique(words[~long]).tolist():  # a loop over word counts (a handful)
        chosen = np.flatnonzero((words == size) & ~long)
        chosen = chosen[np.argsort(-b_len[chosen], kind="stable")]
        start = 0
        while start < len(chosen):  # a loop over chunks of pairs, longest first
            step = max(64, _CHUNK_BYTES // (int(b_len[chosen[start]]) * 64 * size))
            part = chosen[start : start + step]
            found, positions = _lcs_chunk(
                codes, a_start[part], a_len[part], b_start[part], b_len[part], size, history
            )
            lengths[part] = found
            if history:
                on_union[positions] = True
            start += step
    return lengths


def lcs_length(first, second) -> np.ndarray:
    """Length of the longest common subsequence of each pair of token sequences.

    Parameters
    ----------
    first, second : sequence of sequences of hashable
        Token sequences, paired by position (for example lists of words).

    Returns
    -------
    numpy.ndarray
        One int64 length per pair, from a bit-parallel algorithm vectorized over the pairs.

    Examples
    --------
    >>> lcs_length([["a", "b", "c", "d"], ["x"]], [["a", "c", "d", "b"], []]).tolist()
    [3, 0]
    """
    first, second = list(first), list(second)
    if len(first) != len(second):
        raise InvalidInputError(f"lcs_length: {len(first)} first sequences but {len(second)} second ones.")
    a_len = np.array([len(s) for s in first], dtype=np.int64)
    b_len = np.array([len(s) for s in second], dtype=np.int64)
    flat = [token for s in first for token in s] + [token for s in second for token in s]
    codes = factorize_texts(flat)[0].astype(np.int64)
    a_start = np.cumsum(a_len) - a_len
    b_start = a_len.sum() + np.cumsum(b_len) - b_len
    lengths = np.zeros(len(a_len), dtype=np.int64)
    both = np.flatnonzero((a_len > 0) & (b_len > 0))
    if both.size:
        n_codes = int(codes.max()) + 1
        lengths[both] = _lcs(codes, n_codes, a_start[both], a_len[both], b_start[both], b_len[both])
    return lengths


def _scores(hits, n_prediction, n_reference):
    """rouge-score's Score: precision, recall and their harmonic mean (0 when both are 0)."""
    precision = hits / np.maximum(n_prediction, 1)
    recall = hits / np.maximum(n_reference, 1)
    total = precision + recall
    with np.errstate(invalid="ignore", divide="ignore"):
        fmeasure = np.where(total > 0, 2 * precision * recall / total, 0.0)
    return precision, recall, fmeasure


def _token_counts(tokens: Tokens, ids: np.ndarray, size: int):
    """Sorted ``text * size + id`` keys of the valid ids, with their counts."""
    valid = ids >= 0
    return np.unique(tokens.text[valid] * size + ids[valid], return_counts=True)


def _clipped_overlap(keys, counts, size, n_rows, pair_row, selected=None):
    """Per reference pair: sum over n-grams of min(count in the reference, count in its prediction).

    ``keys``/``counts`` hold the prediction texts (text < n_rows) first; ``selected`` optionally
    replaces the reference part (keys of reference texts with their counts)."""
    split = np.searchsorted(keys, n_rows * size)
    pred_keys, pred_counts = keys[:split], counts[:split]
    ref_keys, ref_counts = (keys[split:], counts[split:]) if selected is None else selected
    pair = ref_keys // size - n_rows
    wanted = pair_row[pair] * size + ref_keys % size
    where = np.minimum(np.searchsorted(pred_keys, wanted), max(len(pred_keys) - 1, 0))
    found = pred_keys[where] == wanted if len(pred_keys) else np.zeros(len(wanted), dtype=bool)
    overlap = np.where(found, np.minimum(ref_counts, pred_counts[where] if len(pred_keys) else 0), 0)
    return np.bincount(pair, weights=overlap, minlength=len(pair_row)).astype(np.int64)


def _rouge_n(tokens, n, n_rows, pair_row, m, k):
    ids = ngram_ids(tokens, n)
    size = int(ids.max(initial=-1)) + 1
    if max(size, 1) * (len(tokens.lengths) + 1) >= _KEY_LIMIT:
        ids, size = compact_ids(ids)
    size = max(size, 1)
    keys, counts = _token_counts(tokens, ids, size)
    hits = _clipped_overlap(keys, counts, size, n_rows, pair_row)
    return _scores(hits, np.maximum(k - n + 1, 0), np.maximum(m - n + 1, 0))


def _lcs_hits(tokens, n_rows, pair_row, m, k):
    """LCS length of every (reference, prediction) pair."""
    hits = np.zeros(len(pair_row), dtype=np.int64)
    both = np.flatnonzero((m > 0) & (k > 0))
    if both.size:
        ref = tokens.starts[n_rows + both]
        pred = tokens.starts[pair_row[both]]
        hits[both] = _lcs(tokens.codes, tokens.n_codes, ref, m[both], pred, k[both])
    return hits


def _rouge_lsum(tokens, n_rows, pair_row, m, k, lcs_hits=None):
    """Summary-level LCS (rouge-score ``_summary_level_lcs``): for each reference sentence the
    union of its backtracked LCS with every prediction sentence, hits clipped by token counts
    (``lcs_hits``: rougeL's LCS lengths, when already computed)."""
    boundary = (
        np.r_[True, tokens.sentence[1:] != tokens.sentence[:-1]] if len(tokens.codes) else np.zeros(0, bool)
    )
    sent_start = np.flatnonzero(boundary)
    sent_len = np.diff(np.r_[sent_start, len(tokens.codes)])
    sent_text = tokens.text[sent_start]
    n_sent = np.bincount(sent_text, minlength=len(tokens.lengths))
    sent_first = np.cumsum(n_sent) - n_sent
    ref_text = n_rows + np.arange(len(pair_row))
    both = (m > 0) & (k > 0)
    several = both & ((n_sent[ref_text] > 1) | (n_sent[pair_row] > 1))
    # one sentence on each side: the union LCS is the LCS (rougeL's hits)
    hits = np.zeros(len(pair_row), dtype=np.int64)
    simple = np.flatnonzero(both & ~several)
    if simple.size and lcs_hits is not None:
        hits[simple] = lcs_hits[simple]
    elif simple.size:
        hits[simple] = _lcs(
            tokens.codes, tokens.n_codes, tokens.starts[ref_text[simple]], m[simple],
            tokens.starts[pair_row[simple]], k[simple],
        )  # fmt: skip
    chosen = np.flatnonzero(several)
    if chosen.size:
        ref_sent, ref_owner, _ = _ragged(sent_first[ref_text[chosen]], n_sent[ref_text[chosen]])
        rows = pair_row[chosen][ref_owner]
        pred_sent, owner, _ = _ragged(sent_first[rows], n_sent[rows])
        a_sent = ref_sent[owner]
        on_union = np.zeros(len(tokens.codes), dtype=bool)
        _lcs(
            tokens.codes, tokens.n_codes, sent_start[a_sent], sent_len[a_sent],
            sent_start[pred_sent], sent_len[pred_sent], on_union,
        )  # fmt: skip
        size = max(tokens.n_codes, 1)
        keys, counts = _token_counts(tokens, np.where(tokens.text < n_rows, tokens.codes, -1), size)
        union = np.where(on_union, tokens.codes, -1)
        selected = _token_counts(tokens, union, size)
        overlap = _clipped_overlap(keys, counts, size, n_rows, pair_row, selected)
        hits[chosen] = overlap[chosen]
    return _scores(hits, k, m)


def _check_types(rouge_types) -> list[str]:
    types = [rouge_types] if isinstance(rouge_types, str) else list(rouge_types)
    if not types:
        raise InvalidInputError(
            "rouge_types is empty: pass e.g. ('rouge1', 'rouge2', 'rougeL', 'rougeLsum')."
        )
    for name in types:
        valid = name in ("rougeL", "rougeLsum") or (
            isinstance(name, str) and _ROUGE_N.match(name) and name != "rouge0"
        )
        if not valid:
            raise InvalidInputError(
                f"rouge_types: {name!r} is not a ROUGE type: use 'rouge1'-'rouge9', 'rougeL', 'rougeLsum'."
            )
    return list(dict.fromkeys(types))


@table
def rouge(
    frame,
    *,
    prediction,
    reference,
    rouge_types=("rouge1", "rouge2", "rougeL", "rougeLsum"),
    use_stemmer: bool = False,
    tokenizer: str = "rouge-score",
    details: bool = False,
    datum=None,
    by=None,
):
    """ROUGE of each prediction against its reference(s), as valor and ``rouge-score`` compute it.

    Valor computes ROUGE through Hugging Face ``evaluate``, which calls Google's
    ``rouge-score`` 0.1.2 (``RougeScorer(rouge_types, use_stemmer).score_multi``) and keeps
    the F-measure. The numbers here equal ``rouge-score`` exactly (``==``), computed for all
    rows at once.

    - ``rougeN``: overlap of n-grams (counts clipped), precision over the prediction's
      n-grams, recall over the reference's.
    - ``rougeL``: longest common subsequence (LCS) of the two token sequences (newlines are
      plain separators). Memory grows linearly with the text length: a pair too long for the
      vectorized path is scored alone, one DP column at a time.
    - ``rougeLsum``: summary-level LCS: the texts are split into sentences at newlines
      (``"\\n"``), and each reference sentence is matched with the union of its LCS with every
      prediction sentence; without newlines it equals ``rougeL``.

    Parameters
    ----------
    frame : DataFrame
        One row per generated answer (pandas; dask and polars frames run the same table).
    prediction : str
        The column of generated texts.
    reference : str or list of str
        The reference column (its cells a str, or a list of str for several references), or
        a list of columns (one reference each). Missing cells (None/NaN) are left out; with
        several references each ROUGE type keeps the reference with the highest F-measure
        (the first one on a tie), as ``score_multi`` does.
    rouge_types : sequence of str, default ("rouge1", "rouge2", "rougeL", "rougeLsum")
        ``"rouge1"`` ... ``"rouge9"``, ``"rougeL"``, ``"rougeLsum"``.
    use_stemmer : bool, default False
        Stem the tokens longer than 3 characters with nltk's Porter stemmer (needs the
        ``text`` extra: ``pip install "pdmetrics[text]"``).
    tokenizer : {"rouge-score", "unicode"}, default "rouge-score"
        ``"rouge-score"`` keeps only the ASCII letters and digits (lower-cased) as rouge-score
        does: text in other scripts has no tokens and scores 0 (a warning names the rows).
        ``"unicode"`` keeps Unicode letters, marks and digits, and gives the same tokens on
        ASCII text (needs the ``regex`` package of the ``text`` extra).
    details : bool, default False
        Also return ``<type>_precision`` and ``<type>_recall`` after each F-measure column.
    datum : str, optional
        A column of row ids, copied first into the table as ``datum``.
    by : str, optional
        A group column: the table is then the mean of each column by group, with an
        ``"(all)"`` row first (an error when no row is left to average).

    Returns
    -------
    pandas.DataFrame
        One row per scored prediction, indexed like the frame's rows (its labels and order,
        so ``frame.join(result)`` is right; a lazy dask DataFrame on dask), one F-measure
        column per ROUGE type, named by the type (plus precision and recall with
        ``details=True``). With ``by``: the group column, ``N`` and the means.

    Raises
    ------
    InvalidInputError
        A prediction or a reference cell that is neither a str nor missing, an unknown ROUGE
        type or tokenizer.

    Warns
    -----
    ExcludedRowsWarning
        Rows whose prediction is missing (None/NaN/pd.NA) or whose every reference is missing
        are left out of the table; the warning counts them and names the first.
    EmptyTokensWarning
        A non-blank text produced no tokens (for the default tokenizer: no ASCII letter or
        digit, e.g. Russian or Japanese text); it scores 0.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.textgen import rouge
    >>> df = pd.DataFrame({"pred": ["the cat sat on the mat", "a dog"],
    ...                    "r1": ["the cat is on the mat", "the dog barks"], "r2": [None, "a dog"]})
    >>> rouge(df, prediction="pred", reference="r1").round(4)
       rouge1  rouge2  rougeL  rougeLsum
    0  0.8333     0.6  0.8333     0.8333
    1  0.4000     0.0  0.4000     0.4000

    Several references per row: the best one counts.

    >>> df.textgen.rouge(prediction="pred", reference=["r1", "r2"], rouge_types=["rouge1"])
         rouge1
    0  0.833333
    1  1.000000
    """
    score = partial(
        rouge_rows, rouge_types=rouge_types, use_stemmer=use_stemmer, tokenizer=tokenizer, details=details
    )
    spec = per_row_spec(frame, score, prediction, reference, datum, by)
    _check_options(rouge_types, tokenizer)
    return spec


def _check_options(rouge_types, tokenizer) -> list[str]:
    types = _check_types(rouge_types)
    if tokenizer not in ("rouge-score", "unicode"):
        raise InvalidInputError(f"tokenizer={tokenizer!r}: use 'rouge-score' (exact default) or 'unicode'.")
    return types


def rouge_rows(prediction, reference, rouge_types, use_stemmer, tokenizer, details):
    """:func:`rouge`'s table of the texts ``prediction`` (a Series) and ``reference`` (a Series,
    or a DataFrame of several) and its :class:`~pdmetrics.textgen.tokens.TextRows` (no warning)."""
    types = _check_options(rouge_types, tokenizer)
    rows = text_rows(prediction, reference)
    predictions, references, index = rows.predictions, rows.references, rows.index
    n_rows = len(predictions)
    present = np.not_equal(references, None)
    pair_row, pair_col = np.nonzero(present)
    texts = np.concatenate([predictions, references[present]]).astype(object)
    tokens = rouge_tokens(texts, tokenizer, bool(use_stemmer), sentences="rougeLsum" in types)
    hint = (
        "rouge-score keeps only the ASCII letters and digits a-z, 0-9: pass tokenizer='unicode' "
        "to score text in other scripts."
        if tokenizer == "rouge-score"
        else "tokenizer='unicode' keeps letters, marks and digits only."
    )
    rows_of_text = np.concatenate([np.arange(n_rows), pair_row])
    warn_empty_tokens(texts, tokens.lengths, rows_of_text, index, hint)
    m = tokens.lengths[n_rows:]  # reference lengths, per pair
    k = tokens.lengths[pair_row]  # prediction lengths, per pair
    columns = {}
    lcs_hits = None  # rougeL's LCS lengths, reused by rougeLsum
    width = references.shape[1]
    for name in types:
        if name == "rougeL":
            lcs_hits = _lcs_hits(tokens, n_rows, pair_row, m, k)
            scores = _scores(lcs_hits, k, m)
        elif name == "rougeLsum":
            scores = _rouge_lsum(tokens, n_rows, pair_row, m, k, lcs_hits)
        else:
            scores = _rouge_n(tokens, int(name[5:]), n_rows, pair_row, m, k)
        table = np.full((n_rows, width), -np.inf)
        table[pair_row, pair_col] = scores[2]
        best = np.argmax(table, axis=1)  # first maximum, as np.argmax in score_multi
        pick = np.full((n_rows, width), -1, dtype=np.int64)
        pick[pair_row, pair_col] = np.arange(len(pair_row))
        chosen = pick[np.arange(n_rows), best]
        columns[name] = scores[2][chosen]
        if details:
            columns[f"{name}_precision"] = scores[0][chosen]
            columns[f"{name}_recall"] = scores[1][chosen]
    return pd.DataFrame(columns, index=index), rows
