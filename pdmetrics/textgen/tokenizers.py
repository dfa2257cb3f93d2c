"""The tokenizers of sacrebleu 2.6's corpus metrics, applied to every text at once.

- ``13a`` (mteval-v13a, BLEU's default): punctuation and symbols padded with spaces, period
  and comma split off unless they touch a digit, a dash split off after a digit.
- chrF's characters (whitespace removed, as dense ids) and chrF++'s words (whitespace split,
  one punctuation mark split off each word's end, else its start).
- TER's words: lowercased, split on whitespace (no normalization, punctuation kept).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

__all__ = ["char_codes", "chrf_words", "explode", "ter_tokens", "tokenize_13a"]

# chrF++ splits one punctuation mark off the end (else the start) of each word.
_PUNCTUATION = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

# The 13a tokenizer (mteval-v13a): pad punctuation and symbols, split period/comma unless
# they touch a digit, split a dash after a digit.
_SYMBOLS_13A = re.compile(r"[\{-\~\[-\` -\&\(-\+\:-\@\/]")
# the symbols are ASCII, so "pad each with spaces" is a translation table (C speed)
_PAD_13A = {c: f" {chr(c)} " for c in range(128) if _SYMBOLS_13A.fullmatch(chr(c))}
_PERIOD_AFTER = re.compile(r"([^0-9])([\.,])")
_PERIOD_BEFORE = re.compile(r"([\.,])([^0-9])")
_DASH_AFTER_DIGIT = re.compile(r"([0-9])(-)")


def explode(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``Series.explode`` of an object array whose cells are lists (or single values): the row of
    every item and the items, as object. pandas 3 would store the items as its string dtype,
    which cannot hold a lone surrogate (``"\\ud83d"``) that sacrebleu scores."""
    listed = np.fromiter(
        (isinstance(v, (list, tuple, np.ndarray, pd.Series)) for v in cells), dtype=bool, count=len(cells)
    )
    lengths = np.ones(len(cells), dtype=np.int64)
    lengths[listed] = np.fromiter(map(len, cells[listed]), dtype=np.int64, count=int(listed.sum()))
    values = np.empty(int(lengths.sum()), dtype=object)
    pieces = (cell if many else [cell] for cell, many in zip(cells.tolist(), listed.tolist()))
    values[:] = [item for piece in pieces for item in piece]
    return np.repeat(np.arange(len(cells), dtype=np.int64), lengths), values


def tokenize_13a(texts: pd.Series) -> pd.Series:
    """sacrebleu's default BLEU tokenizer, applied to every text; returns lists of tokens."""
    texts = texts.str.rstrip()
    texts = texts.str.replace("<skipped>", "", regex=False).str.replace("-\n", "", regex=False)
    texts = texts.str.replace("\n", " ", regex=False)
    for entity, char in (("&quot;", '"'), ("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">")):
        texts = texts.str.replace(entity, char, regex=False)
    texts = (" " + texts + " ").str.translate(_PAD_13A)
    texts = texts.str.replace(_PERIOD_AFTER, r"\1 \2 ", regex=True)
    texts = texts.str.replace(_PERIOD_BEFORE, r" \1 \2", regex=True)
    texts = texts.str.replace(_DASH_AFTER_DIGIT, r"\1 \2 ", regex=True)
    return texts.str.split()


def chrf_words(texts: pd.Series) -> pd.Series:
    """chrF++'s words: whitespace split, then one punctuation mark split off each word's end
    (or, failing that, its start); single characters stay whole. Returns a flat Series of
    words indexed by the text's position."""
    owner, items = explode(texts.str.split().to_numpy(dtype=object))
    words = pd.Series(items, index=owner, dtype=object)
    if words.empty:
        return words.astype(object)
    long = words.str.len().to_numpy() > 1
    last = words.str[-1].isin(list(_PUNCTUATION)).to_numpy() & long
    first = words.str[0].isin(list(_PUNCTUATION)).to_numpy() & long & ~last
    head = np.where(last, words.str[:-1], np.where(first, words.str[:1], words)).astype(object)
    tail = np.where(last, words.str[-1], np.where(first, words.str[1:], None)).astype(object)
    index = words.index.to_numpy()
    pairs = np.stack([head, tail], axis=1).ravel()
    owners = np.repeat(index, 2)
    keep = pairs != None  # noqa: E711
    return pd.Series(pairs[keep], index=owners[keep], dtype=object)


def _whitespace_table() -> np.ndarray:
    """True at the code points Python's ``str.split()`` treats as whitespace (all below U+3001)."""
    table = np.zeros(0x110000, dtype=bool)
    table[[c for c in range(0x3001) if chr(c).isspace()]] = True
    return table


_IS_SPACE = _whitespace_table()


def char_codes(texts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dense ids of the characters of all texts with whitespace removed, and the text each
    belongs to (equal characters get equal ids)."""
    lengths = pd.Series(texts, dtype=object).str.len().to_numpy(dtype=np.int64)
    joined = "".join(texts.tolist()).encode("utf-32-le", errors="surrogatepass")
    codes = np.frombuffer(joined, dtype=np.uint32)
    owner = np.repeat(np.arange(texts.size, dtype=np.int64), lengths)
    keep = ~_IS_SPACE[codes]
    codes, owner = codes[keep], owner[keep]
    present = np.zeros(0x110000, dtype=bool)
    present[codes] = True
    return (np.cumsum(present) - 1)[codes], owner


def ter_tokens(texts: pd.Series) -> pd.Series:
    return texts.str.rstrip().str.lower().str.split()
