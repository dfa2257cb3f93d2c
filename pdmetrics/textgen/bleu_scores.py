"""Sentence BLEU as valor computes it (nltk ``sentence_bleu``, no smoothing), for all rows at once.

Per row and n-gram order: the modified precision is the prediction's n-gram count clipped by
the largest count in any one reference, over the prediction's n-grams (at least 1); the
brevity penalty uses the reference length closest to the prediction's (the shorter one on a
tie). Counting is one sort per order of ``(row, n-gram, owner)`` keys of all rows. nltk combines
the precisions with ``math.log``, ``math.fsum`` and ``math.exp``; numpy has no correctly
rounded sum and its ``exp``/``log`` may differ from the C library by an ulp, so the same
standard-library functions are applied (``map``, no Python code per row): ``log`` once per
distinct precision, ``fsum`` and ``exp`` once per row.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Set
from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._table_spec import table
from pdmetrics.errors import InvalidInputError
from pdmetrics.textgen.per_row import per_row_spec
from pdmetrics.textgen.tokens import bleu_tokens, text_rows

__all__ = ["bleu", "bleu_rows"]

#: valor reports a BLEU below this as 0
_FLOOR = 1e-9


#: the smallest sum of BLEU weights accepted: below it every text with a shared word scores 1.0
#: (``p ** sum`` rounds to 1), which hides a mistake rather than measuring anything
_MIN_WEIGHT_SUM = 1e-6


def _weights(weights) -> np.ndarray:
    if isinstance(weights, (str, bytes, Mapping, Set)):
        raise InvalidInputError(
            f"weights={weights!r}: pass a sequence of numbers, one per n-gram order, e.g. (0.25,) * 4 "
            f"(not a {type(weights).__name__})."
        )
    try:
        items = list(weights)
    except TypeError as error:
        raise InvalidInputError(
            f"weights={weights!r}: pass a sequence of numbers, e.g. (0.25,) * 4."
        ) from error
    if any(isinstance(item, (bool, np.bool_)) for item in items):
        raise InvalidInputError(
            f"weights={weights!r}: a weight is a boolean; pass numbers, e.g. (1.0, 0.0) rather than "
            "(True, False)."
        )
    try:
        values = np.asarray(items, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise InvalidInputError(
            f"weights={weights!r}: pass a sequence of numbers, e.g. (0.25,) * 4."
        ) from error
    if values.ndim != 1 or values.size == 0:
        raise InvalidInputError(f"weights={weights!r}: at least one weight (one per n-gram order) is needed.")
    if not np.isfinite(values).all():
        raise InvalidInputError(f"weights={weights!r}: every weight must be a finite number.")
    if (values < 0).any():
        raise InvalidInputError(
            f"weights={weights!r}: weight {float(values[values < 0][0])!r} is negative; BLEU's weights "
            "are non-negative (a negative weight rewards missing n-grams and gives scores above 1), "
            "e.g. (0.25,) * 4."
        )
    if values.sum() <= 0:
        raise InvalidInputError(
            f"weights={weights!r}: the weights sum to 0, which scores every text with a shared word 1.0; "
            "give at least one order a positive weight, e.g. (0.25,) * 4."
        )
    if not values.sum() >= _MIN_WEIGHT_SUM:
        raise InvalidInputError(
            f"weights={weights!r}: the weights sum to {float(values.sum())!r}, below {_MIN_WEIGHT_SUM!r}, "
            "which scores every text with a shared word (about) 1.0; weights usually sum to 1, "
            "e.g. (0.25,) * 4."
        )
    return values


def _owners(tokens, n_rows, pair_row, pair_col):
    """Per token: its row, and 0 for the prediction or 1 + the reference's column."""
    text_row = np.concatenate([np.arange(n_rows, dtype=np.int64), pair_row])
    text_owner = np.concatenate([np.zeros(n_rows, dtype=np.int64), pair_col + 1])
    return text_row[tokens.text], text_owner[tokens.text]


def _sorted_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``keys`` sorted and the permutation that sorts them.

    A plain sort of int64 is several times faster than an argsort, so when the keys leave
    room the element's position is packed into the low bits and read back after the sort.
    """
    n = len(keys)
    bits = max(n - 1, 1).bit_length()
    top = int(keys.max(initial=0))
    if top < (1 << (62 - bits)):
        packed = np.sort((keys << bits) | np.arange(n, dtype=np.int64))
        return packed >> bits, packed & ((1 << bits) - 1)
    order = np.argsort(keys)
    return keys[order], order


def _clipped_counts(tokens, row, owner, n_rows: int, width: int, orders: int) -> np.ndarray:
    """Per row and n-gram order: the prediction's n-gram counts clipped by the largest count in
    one reference, summed over its n-grams (``(n_rows, orders)`` int64).

    Order k sorts the ``(row, n-gram, owner)`` keys of the positions where a k-gram starts; an
    n-gram is numbered densely among those that occur in both the prediction and a reference
    of its row (``prefix``), and only positions whose k-gram is such a match are extended to
    order k + 1, since an n-gram whose prefix is not shared cannot be shared either. Keys are
    ``(prefix * vocabulary + next token) << owner_bits | owner`` with the prefix number of
    order 1 being the row, so they stay below the number of tokens times the vocabulary.
    """
    numerators = np.zeros((n_rows, orders), dtype=np.int64)
    codes, text = tokens.codes, tokens.text
    vocabulary = max(tokens.n_codes, 1)
    position = np.arange(len(codes), dtype=np.int64)
    prefix = row.copy()
    shift = int(width).bit_length()  # owners 0..width fit in the low `shift` bits
    for k in range(orders):
        if not len(position):
            break
        keys = ((prefix * vocabulary + codes[position + k]) << shift) | owner[position]
        keys, order = _sorted_keys(keys)
        # runs of equal (n-gram, owner) keys; an n-gram's runs are its owners in order, the
        # prediction (owner 0) first
        run = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        run_size = np.diff(np.append(run, len(keys)))
        run_gram = keys[run] >> shift
        from_reference = (keys[run] & ((1 << shift) - 1)) > 0
        first_run = np.flatnonzero(np.r_[True, run_gram[1:] != run_gram[:-1]])
        first = run[first_run]
        sizes = np.diff(np.append(first, len(keys)))
        own = np.where(from_reference[first_run], 0, run_size[first_run])
        best = np.maximum.reduceat(np.where(from_reference, run_size, 0), first_run)
        hits = np.minimum(own, best)
        numerators[:, k] = np.bincount(row[position[order[first]]], weights=hits, minlength=n_rows)
        if k == orders - 1:
            break  # no longer n-grams needed
        shared = hits > 0
        # each position's n-gram number, back in position order (so the next order reads the
        # token arrays in sequence); the number is the next order's prefix
        number = np.empty(len(keys), dtype=np.int64)
        number[order] = np.repeat(np.arange(len(first), dtype=np.int64), sizes)
        keep = shared[number]
        position, prefix = position[keep], number[keep]
        # extend to order k + 2 only where the next token belongs to the same text
        nxt = position + k + 1
        inside = nxt < len(codes)
        inside[inside] = text[nxt[inside]] == text[position[inside]]
        position, prefix = position[inside], prefix[inside]
    return numerators


@table
def bleu(
    frame,
    *,
    prediction,
    reference,
    weights=(0.25, 0.25, 0.25, 0.25),
    details: bool = False,
    datum=None,
    by=None,
):
    """Sentence BLEU of each prediction against its reference(s), as valor computes it.

    Valor tokenizes with nltk's ``RegexpTokenizer(r"\\w+|\\$[\\d]+|[^\\s\\.]+")`` (words,
    dollar amounts and runs of other non-space characters; periods dropped; case kept), calls
    nltk's ``sentence_bleu`` without smoothing and reports values below 1e-9 as 0. The numbers
    here equal that exactly (``==``), computed for all rows at once.

    BLEU is the brevity penalty times the weighted geometric mean of the modified n-gram
    precisions: n-gram counts of the prediction clipped by their largest count in any one
    reference. As in nltk: no unigram match gives 0; an order with no match counts as the
    smallest float precision (so BLEU-4 is 0 once an order has no match, without nltk's
    warning); the brevity penalty is ``exp(1 - r / c)`` when the prediction (length c) is not
    longer than the closest reference length r (the shorter reference on a tie).

    Parameters
    ----------
    frame, prediction, reference
        As in :func:`pdmetrics.textgen.rouge`: the frame, the column of generated texts and
        the reference column(s). Missing reference cells (None/NaN) are dropped, not scored as
        empty text.
    weights : sequence of float, default (0.25, 0.25, 0.25, 0.25)
        Weight of each n-gram order (BLEU-4); ``(1/5,) * 5`` gives BLEU-5. The weights must be
        numbers (not booleans, a mapping or a set), finite, non-negative, and sum to at least
        ``1e-6`` (a smaller sum scores every text with a shared word 1.0 within rounding). They
        are used as given, as nltk does (``exp(sum(w_n * log p_n))``), not normalised: with
        weights summing to 1 this is the weighted geometric mean of the precisions; a sum above
        1 gives a smaller score (the mean raised to that power), a sum below 1 a larger one,
        always between 0 and 1.
    details : bool, default False
        Also return ``precision_1`` ... (modified precisions), ``brevity_penalty``,
        ``prediction_length`` and ``reference_length`` (closest reference length).
    datum, by : str, optional
        As in :func:`pdmetrics.textgen.rouge`: a column of row ids copied first into the
        table, a group column to average by.

    Returns
    -------
    pandas.DataFrame
        As :func:`pdmetrics.textgen.rouge` (one row per scored prediction, indexed like the
        frame's rows), with the column ``bleu`` (and the details).

    Raises
    ------
    InvalidInputError
        A prediction or a reference cell that is neither a str nor missing, empty or
        non-numeric or boolean weights, a mapping or set of weights, a negative weight, weights
        summing to less than ``1e-6``.

    Warns
    -----
    ExcludedRowsWarning
        As in :func:`pdmetrics.textgen.rouge`: a row without a prediction or any reference is
        left out.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.textgen import bleu
    >>> df = pd.DataFrame({"pred": ["the cat sat on the mat today", "hello there"],
    ...                    "r1": ["the cat sat on the mat", "general kenobi"],
    ...                    "r2": ["a cat sat on a mat", None]})
    >>> bleu(df, prediction="pred", reference=["r1", "r2"]).round(4)
         bleu
    0  0.8091
    1  0.0000
    """
    spec = per_row_spec(
        frame, partial(bleu_rows, weights=weights, details=details), prediction, reference, datum, by
    )
    _weights(weights)
    return spec


def bleu_rows(prediction, reference, weights, details):
    """:func:`bleu`'s table of the texts ``prediction`` (a Series) and ``reference`` (a Series,
    or a DataFrame of several) and its :class:`~pdmetrics.textgen.tokens.TextRows` (no warning)."""
    weights = _weights(weights)
    rows = text_rows(prediction, reference)
    predictions, references, index = rows.predictions, rows.references, rows.index
    n_rows = len(predictions)
    present = np.not_equal(references, None)
    pair_row, pair_col = np.nonzero(present)
    tokens = bleu_tokens(np.concatenate([predictions, references[present]]).astype(object))
    hyp = tokens.lengths[:n_rows]
    ref = tokens.lengths[n_rows:]
    # closest reference length, ties to the shorter: minimise (|r - c|, r) per row
    closeness = np.abs(ref - hyp[pair_row]) * (int(ref.max(initial=0)) + 1) + ref
    order = np.lexsort((closeness, pair_row))
    first = np.flatnonzero(np.r_[len(order) > 0, pair_row[order][1:] != pair_row[order][:-1]])
    closest = np.zeros(n_rows, dtype=np.int64)
    closest[pair_row[order][first]] = ref[order][first]

    orders, width = len(weights), references.shape[1]
    row, owner = _owners(tokens, n_rows, pair_row, pair_col)
    numerators = _clipped_counts(tokens, row, owner, n_rows, width, orders)
    denominators = np.maximum(hyp[:, None] - np.arange(orders)[None, :], 1)
    with np.errstate(divide="ignore"):
        precision = np.where(numerators > 0, numerators / denominators, sys.float_info.min)
    distinct, inverse = np.unique(precision, return_inverse=True)
    logs = np.fromiter(map(math.log, distinct.tolist()), dtype=np.float64, count=len(distinct))
    terms = weights[None, :] * logs[inverse.reshape(precision.shape)]
    exponent = np.fromiter(map(math.fsum, terms.tolist()), dtype=np.float64, count=n_rows)
    geometric = np.fromiter(map(math.exp, exponent.tolist()), dtype=np.float64, count=n_rows)
    # brevity penalty: 1 if the prediction is longer, 0 if it is empty, else exp(1 - r / c)
    short = (hyp <= closest) & (hyp > 0)
    ratio = np.ones(n_rows)
    ratio[short] = 1 - closest[short] / hyp[short]
    penalty = np.where(short, np.fromiter(map(math.exp, ratio.tolist()), dtype=np.float64, count=n_rows), 1.0)
    penalty[hyp == 0] = 0.0
    score = np.where(numerators[:, 0] == 0, 0.0, penalty * geometric)
    score[score < _FLOOR] = 0.0
    columns = {"bleu": score}
    if details:
        for n in range(orders):
            columns[f"precision_{n + 1}"] = numerators[:, n] / denominators[:, n]
        columns["brevity_penalty"] = penalty
        columns["prediction_length"] = hyp
        columns["reference_length"] = closest
    return pd.DataFrame(columns, index=index), rows
