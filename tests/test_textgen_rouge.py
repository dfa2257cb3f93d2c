"""ROUGE (pdmetrics.textgen.rouge): equal (==) to rouge-score 0.1.2 and to valor's cases."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from pdmetrics import ExcludedRowsWarning
from pdmetrics.errors import InvalidInputError, MissingDependencyError
from pdmetrics.textgen import EmptyTokensWarning
from pdmetrics.textgen import rouge as rouge_table
from pdmetrics.textgen.rouge_scores import lcs_length
from tests.textgen_frames import on_texts

TYPES = ["rouge1", "rouge2", "rouge3", "rougeL", "rougeLsum"]
WORDS = ["the", "a", "cat", "cats", "running", "runs", "dog", "Dog", "mat", "x1", "flipping", "flip"]
PIECES = WORDS + [
    " ",
    "  ",
    "\n",
    "\n\n",
    ".",
    ",",
    "!",
    "don't",
    "$30",
    "3.5",
    "Кот",
    "東京",
    "é",
    "İ",
    "\t",
]


def text_strategy(max_pieces: int = 40):
    return st.lists(st.sampled_from(PIECES), max_size=max_pieces).map(" ".join) | st.text(max_size=30)


def expected_rouge(predictions, references, types, use_stemmer=False):
    scorer_module = pytest.importorskip("rouge_score.rouge_scorer")
    scorer = scorer_module.RougeScorer(types, use_stemmer=use_stemmer)
    rows = []
    for prediction, refs in zip(predictions, references):
        scores = scorer.score_multi(refs, prediction)
        row = {}
        for t in types:
            row[t] = max(scores[t].fmeasure, 0.0)  # valor keeps max(F, 0.0)
            row[f"{t}_precision"] = scores[t].precision
            row[f"{t}_recall"] = scores[t].recall
        rows.append(row)
    return pd.DataFrame(rows)


def rouge(prediction, reference, **options):
    """``pdmetrics.textgen.rouge`` of the texts, put in a frame."""
    return on_texts(rouge_table, prediction, reference, **options)


def quiet_rouge(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmptyTokensWarning)
        return rouge(*args, **kwargs)


def assert_equal_to_rouge_score(predictions, references, use_stemmer=False, types=TYPES):
    expected = expected_rouge(predictions, references, types, use_stemmer)
    options = {"rouge_types": types, "use_stemmer": use_stemmer, "details": True}
    got = quiet_rouge(pd.Series(predictions), pd.Series(references), **options)
    for column in expected.columns:
        np.testing.assert_array_equal(got[column].to_numpy(), expected[column].to_numpy(), err_msg=column)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(text_strategy(), st.lists(text_strategy(), min_size=1, max_size=3)), min_size=1, max_size=8
    ),
    st.booleans(),
)
def test_equal_to_rouge_score_on_generated_texts(pairs, use_stemmer):
    predictions = [p for p, _ in pairs]
    references = [r for _, r in pairs]
    assert_equal_to_rouge_score(predictions, references, use_stemmer)


@settings(max_examples=15, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "c", "a b", "\n", "d"]), min_size=100, max_size=400),
    st.integers(0, 10**6),
)
def test_equal_to_rouge_score_on_long_texts_with_repeated_words(words, seed):
    """Several uint64 words per reference (LCS carries across words) and many LCS ties."""
    rng = np.random.default_rng(seed)
    prediction = " ".join(words)
    shuffled = list(rng.permutation(words))
    assume(len(shuffled) > 0)
    references = [" ".join(shuffled), " ".join(words[::2])]
    assert_equal_to_rouge_score([prediction, prediction], [references, references[:1]])


def test_identical_and_empty_texts():
    predictions = ["same text here", "", "only prediction", "   ", "a\nb\nc"]
    references = [["same text here"], ["something"], [""], ["   "], ["a\nb\nc"]]
    assert_equal_to_rouge_score(predictions, references)
    got = rouge(pd.Series(predictions), pd.Series(references))
    assert got.loc[0].tolist() == [1.0] * 4
    assert got.loc[4].tolist() == [1.0] * 4
    assert got.loc[1:3].to_numpy().sum() == 0


VALOR_CASES = [  # (prediction, references, use_stemmer, rouge1, rouge2, rougeL, rougeLsum)
    ("Mary loves Joe", ["Mary loves Joe"], False, 1.0, 1.0, 1.0, 1.0),
    ("MARY LOVES JOE", ["Mary loves Joe"], False, 1.0, 1.0, 1.0, 1.0),
    ("Mary loves Joe", ["Mary loves Jane"], False, 2 / 3, 0.5, 2 / 3, 2 / 3),
    (
        "flipping the roaring white dolphin",
        ["flip the roaring white dolphin"],
        False,
        0.8000000000000002,
        0.75,
        0.8000000000000002,
        0.8000000000000002,
    ),
    ("flipping the roaring white dolphin", ["flip the roaring white dolphin"], True, 1.0, 1.0, 1.0, 1.0),
    (
        "flipping the roaring white dolphin",
        [
            "some random sentence",
            "some other sentence",
            "some final reference",
            "flip the roaring white dolphin",
        ],
        True,
        1.0,
        1.0,
        1.0,
        1.0,
    ),
]


@pytest.mark.parametrize("case", VALOR_CASES, ids=range(len(VALOR_CASES)))
def test_valor_worked_examples(case):
    prediction, references, stem, *values = case
    got = rouge(pd.Series([prediction]), pd.Series([references]), use_stemmer=stem)
    assert got.loc[0].tolist() == values


def test_reference_layouts_agree_and_missing_cells_are_dropped():
    pred = pd.Series(["the cat sat", "a dog ran", "x"])
    wide = pd.DataFrame({"r1": ["the cat", None, "x y"], "r2": [np.nan, "a dog ran far", "x"]})
    listed = pd.Series([["the cat"], ["a dog ran far"], ["x y", "x"]])
    a, b = rouge(pred, wide, details=True), rouge(pred, listed, details=True)
    pd.testing.assert_frame_equal(a, b)
    assert list(a.columns[:3]) == ["rouge1", "rouge1_precision", "rouge1_recall"]
    assert isinstance(a.index, pd.RangeIndex)  # nothing dropped: the caller's index, on pandas 2 and 3
    assert a.loc[2, "rouge1"] == 1.0  # the second reference wins
    # a dropped row: the caller's labels of the kept rows, in order
    with pytest.warns(ExcludedRowsWarning, match="left out"):
        kept = rouge(pred.set_axis(["p", "q", "r"]), wide.set_axis(["p", "q", "r"]).assign(r2=[None] * 3))
    assert kept.index.tolist() == ["p", "r"]
    with pytest.warns(ExcludedRowsWarning, match="left out"):
        kept = rouge(pd.Series(["a", None, "b"]), pd.Series(["a", "b", "b"]))
    assert kept.index.tolist() == [0, 2] and kept["rouge1"].tolist() == [1.0, 1.0]


def test_best_reference_per_type_first_on_ties():
    """score_multi picks the reference per type by F-measure (first one on a tie)."""
    predictions = ["a b c d", "a b c d"]
    references = [["a b x d", "d c b a"], ["d c b a", "a b x d"]]
    assert_equal_to_rouge_score(predictions, references, types=["rouge1", "rouge2", "rougeL"])
    got = rouge(pd.Series(predictions), pd.Series(references), rouge_types=["rouge1", "rouge2"], details=True)
    assert got["rouge1"].tolist() == [1.0, 1.0]
    assert got["rouge2_recall"].tolist() == [1 / 3, 1 / 3]
    # equal F-measures (2/3) from different precision/recall: the first reference is kept
    tie = rouge(
        pd.Series(["a b c d"] * 2),
        pd.Series([["a b", "a b c d e f g h"], ["a b c d e f g h", "a b"]]),
        rouge_types=["rouge1"],
        details=True,
    )
    assert tie["rouge1"].tolist() == [2 / 3, 2 / 3]
    assert tie["rouge1_precision"].tolist() == [0.5, 1.0]


def test_non_ascii_scores_zero_with_a_warning_and_unicode_tokenizer_fixes_it():
    pred = pd.Series(["привет мир", "hello world"])
    ref = pd.Series(["привет мир", "hello world"])
    with pytest.warns(EmptyTokensWarning, match=r"2 non-blank text\(s\) produced no tokens .*rows 0\b"):
        got = rouge(pred, ref)
    assert got.loc[0].tolist() == [0.0] * 4
    assert got.loc[1].tolist() == [1.0] * 4
    unicode = rouge(pred, ref, tokenizer="unicode")
    assert unicode.to_numpy().tolist() == [[1.0] * 4] * 2


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text(alphabet="abcXYZ019 .,!?\n-", max_size=40),
            st.text(alphabet="abcXYZ019 .,!?\n-", max_size=40),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_unicode_tokenizer_equals_default_on_ascii(pairs):
    pred = pd.Series([p for p, _ in pairs])
    ref = pd.Series([r for _, r in pairs])
    pd.testing.assert_frame_equal(quiet_rouge(pred, ref), quiet_rouge(pred, ref, tokenizer="unicode"))


def test_stemmer_needs_nltk(monkeypatch):
    monkeypatch.setitem(sys.modules, "nltk.stem.porter", None)
    with pytest.raises(MissingDependencyError, match=r'pip install "pdmetrics\[text\]"'):
        rouge(pd.Series(["running"]), pd.Series(["runs"]), use_stemmer=True)


@pytest.mark.parametrize(
    ("prediction", "reference", "kwargs", "message"),
    [
        (pd.Series(["a", 3]), pd.Series(["a", "b"]), {}, r"row 1 is not text \(3\)"),
        (
            pd.Series(["a", "b"]),
            pd.Series(["a", 5], name="gold"),
            {},
            r"column 'gold': row 1 holds 5, not text",
        ),
        (pd.Series(["a"]), pd.Series(["a"]), {"rouge_types": ["rouge0"]}, r"'rouge0' is not a ROUGE type"),
        (pd.Series(["a"]), pd.Series(["a"]), {"rouge_types": ["rougeX"]}, r"'rougeX' is not a ROUGE type"),
        (pd.Series(["a"]), pd.Series(["a"]), {"rouge_types": []}, r"rouge_types is empty"),
        (pd.Series(["a"]), pd.Series(["a"]), {"tokenizer": "spacy"}, r"tokenizer='spacy'"),
    ],
)
def test_bad_input_names_the_row_and_the_fix(prediction, reference, kwargs, message):
    with pytest.raises(InvalidInputError, match=message):
        rouge(prediction, reference, **kwargs)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(st.lists(st.integers(0, 3), max_size=150), st.lists(st.integers(0, 3), max_size=150)),
        min_size=1,
        max_size=5,
    )
)
def test_lcs_length_equals_dynamic_programming(pairs):
    def dp(a, b):
        table = np.zeros((len(a) + 1, len(b) + 1), dtype=int)
        for i in range(1, len(a) + 1):
            for j in range(1, len(b) + 1):
                table[i, j] = (
                    table[i - 1, j - 1] + 1 if a[i - 1] == b[j - 1] else max(table[i - 1, j], table[i, j - 1])
                )
        return table[-1, -1]

    got = lcs_length([a for a, _ in pairs], [b for _, b in pairs])
    assert got.tolist() == [dp(a, b) for a, b in pairs]


# --------------------------------------------------------------------------- long texts, linear memory

TIED = st.lists(st.sampled_from(["a", "b", "c", "a", "b", "\n"]), max_size=160).map(" ".join)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(TIED, TIED), min_size=1, max_size=6))
def test_linear_memory_lcs_path_equals_rouge_score_on_texts_with_many_ties(pairs):
    """Every pair through the long-pair path (tiny thresholds): rougeLsum's union needs the very
    LCS rouge-score's backtrack picks among the many equally long ones."""
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
    from pdmetrics.textgen import rouge_scores

    types = ["rougeL", "rougeLsum"]
    scorer = rouge_scorer.RougeScorer(types)
    expected = [[scorer.score(r, p)[t].fmeasure for t in types] for p, r in pairs]
    saved = rouge_scores._CHUNK_BYTES, rouge_scores._COLUMN_BITS, rouge_scores._MASK_BITS_PER_TOKEN
    try:
        rouge_scores._CHUNK_BYTES, rouge_scores._COLUMN_BITS, rouge_scores._MASK_BITS_PER_TOKEN = 1, 40, 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", EmptyTokensWarning)
            got = rouge(pd.Series([p for p, _ in pairs]), pd.Series([r for _, r in pairs]), rouge_types=types)
    finally:
        rouge_scores._CHUNK_BYTES, rouge_scores._COLUMN_BITS, rouge_scores._MASK_BITS_PER_TOKEN = saved
    assert got[types].to_numpy().tolist() == expected


def test_long_pair_positions_follow_rouge_scores_backtrack():
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
    from pdmetrics.textgen import rouge_scores

    rng = np.random.default_rng(3)
    for size in [1, 2, 5, 40, 300]:
        for _ in range(20):
            a = rng.integers(0, 3, rng.integers(1, size + 1))
            b = rng.integers(0, 3, rng.integers(1, size + 1))
            table = rouge_scorer._lcs_table(a.tolist(), b.tolist())
            expected = rouge_scorer._backtrack_norec(table, a.tolist(), b.tolist())
            saved = rouge_scores._COLUMN_BITS
            for bits in (1, 7, 1 << 26):
                rouge_scores._COLUMN_BITS = bits
                try:
                    got = sorted(rouge_scores._long_lcs_positions(a, b))
                finally:
                    rouge_scores._COLUMN_BITS = saved
                assert got == expected
            assert rouge_scores._long_lcs_length(a, b) == len(expected)


LONG_TEXTS = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1536 << 20, resource.RLIM_INFINITY))
import numpy as np, pandas as pd
from pdmetrics.textgen import rouge
rng = np.random.default_rng(0)
vocabulary = np.array([f"w{k}" for k in range(20000)] + ["the", "a", "of", "and"])
weights = 1.0 / np.arange(1, len(vocabulary) + 1)
def text(size):
    words = rng.choice(vocabulary, size // 4, p=weights / weights.sum())
    return " ".join(words)[:size].rsplit(" ", 1)[0]
prediction, reference = text(1 << 20), text(1 << 20)
table = rouge(pd.DataFrame({"p": [prediction], "r": [reference]}), prediction="p", reference="r")
print(len(prediction), len(reference), *table.iloc[0].tolist())
"""


@pytest.mark.skipif(sys.platform == "win32", reason="uses resource.setrlimit")
def test_a_pair_of_one_megabyte_texts_in_bounded_memory():
    """rougeL of two 1 MB texts (about 230,000 tokens each) needed a 49 GiB token x token
    matrix; in a process limited to 1.5 GiB of address space it runs in linear memory."""
    import os
    import subprocess
    from pathlib import Path

    import pdmetrics

    root = str(Path(pdmetrics.__file__).resolve().parents[1])  # this checkout's pdmetrics
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run(
        [sys.executable, "-c", LONG_TEXTS], capture_output=True, text=True, timeout=120, env=env
    )
    assert run.returncode == 0, run.stderr[-2000:]
    size_p, size_r, rouge1, rouge2, rouge_l, rouge_lsum = map(float, run.stdout.split())
    assert size_p > 1_000_000 and size_r > 1_000_000
    assert 0 < rouge_l == rouge_lsum < rouge2 < rouge1 < 1  # one sentence: rougeLsum is rougeL
