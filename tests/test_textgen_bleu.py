"""Sentence BLEU (pdmetrics.textgen.bleu): equal (==) to valor's recipe on nltk."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pdmetrics.errors import InvalidInputError
from pdmetrics.textgen import bleu as bleu_table
from tests.textgen_frames import on_texts


def bleu(prediction, reference, **options):
    """``pdmetrics.textgen.bleu`` of the texts, put in a frame."""
    return on_texts(bleu_table, prediction, reference, **options)


WORDS = [
    "the",
    "The",
    "cat",
    "sat",
    "on",
    "mat",
    "a",
    "dog",
    "x.",
    "y..",
    "...",
    "$30",
    "$",
    "3.5",
    "_",
    "don't",
]
PIECES = WORDS + ["Кот", "東京", "é", "\n", "\x1c", "İ", "a\u0301", "  "]


def expected_bleu(predictions, references, weights=(0.25, 0.25, 0.25, 0.25)):
    """valor-lite 0.39 calculate_sentence_bleu, row by row."""
    tokenize = pytest.importorskip("nltk.tokenize")
    bleu_score = pytest.importorskip("nltk.translate.bleu_score")
    tokenizer = tokenize.RegexpTokenizer(r"\w+|\$[\d]+|[^\s\.]+")
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nltk warns on every order without a match
        for prediction, refs in zip(predictions, references):
            value = float(
                bleu_score.sentence_bleu(
                    [tokenizer.tokenize(r) for r in refs], tokenizer.tokenize(prediction), weights=weights
                )
            )
            out.append(value if value >= 1e-9 else 0.0)
    return np.array(out)


def similar_pairs():
    """A prediction and references that share most of their words (so BLEU-4 is often > 0)."""
    words = st.lists(st.sampled_from(PIECES), min_size=0, max_size=30)
    return words.flatmap(
        lambda w: st.tuples(
            st.just(" ".join(w)),
            st.lists(
                st.lists(st.booleans(), min_size=len(w), max_size=len(w)).map(
                    lambda keep: " ".join(x for x, k in zip(w, keep) if k or len(w) < 3)
                )
                | st.lists(st.sampled_from(PIECES), max_size=30).map(" ".join)
                | st.text(max_size=20),
                min_size=1,
                max_size=3,
            ),
        )
    )


WEIGHTS = st.sampled_from(
    [(0.25,) * 4, (0.5, 0.5), (1.0,), (0.0, 1.0), (0.2,) * 5, (0.999, 0.001), (0.1, 0.3, 0.5, 0.1)]
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(similar_pairs(), min_size=1, max_size=8), WEIGHTS)
def test_equal_to_nltk_on_generated_texts(pairs, weights):
    predictions = [p for p, _ in pairs]
    references = [r for _, r in pairs]
    got = bleu(pd.Series(predictions), pd.Series(references), weights=weights)["bleu"].to_numpy()
    np.testing.assert_array_equal(got, expected_bleu(predictions, references, weights))


def test_long_texts_and_a_mostly_matching_corpus():
    rng = np.random.default_rng(5)
    vocabulary = np.array([f"w{k}" for k in range(40)] + ["the", "a", "."])
    predictions, references = [], []
    for length in rng.integers(0, 400, 60).tolist():
        words = rng.choice(vocabulary, length)
        predictions.append(" ".join(words))
        keep = rng.random(length) > 0.2
        references.append([" ".join(words[keep]), " ".join(rng.choice(vocabulary, max(length // 2, 1)))])
    got = bleu(pd.Series(predictions), pd.Series(references), details=True)
    np.testing.assert_array_equal(got["bleu"].to_numpy(), expected_bleu(predictions, references))
    assert (got["bleu"] > 0).sum() > 30


VALOR_CASES = [  # (prediction, references, weights, expected)
    ("Mary loves Joe", ["Mary loves Joe"], (1,), 1.0),
    ("MARY LOVES JOE", ["Mary loves Joe"], (1,), 0.0),
    ("Mary loves Joe", ["MARY LOVES JOE"], (0.0, 1.0), 0.0),
    ("Mary loves Joe", ["Mary loves Joe"], (0, 1), 1.0),
    ("Mary loves Joe", ["Mary loves Joe"], (0.25,) * 4, 0.0),
    ("Mary loves Joe", ["Mary loves Jane"], (1,), 2 / 3),
    ("Mary loves Joe", ["Mary loves Jane"], (0, 1), 0.5),
    ("Mary loves Joe", ["Mary loves Jane"], (0, 0, 1), 0.0),
    ("mary loves joe", ["MARY LOVES JOE"], (0,) * 9 + (1,), 0.0),
    (
        "flip the roaring white dolphin",
        [
            "some random sentence",
            "some other sentence",
            "some final reference",
            "flip the roaring white dolphin",
        ],
        (0, 1),
        1.0,
    ),
]


@pytest.mark.parametrize("case", VALOR_CASES, ids=range(len(VALOR_CASES)))
def test_valor_worked_examples(case):
    prediction, references, weights, value = case
    assert bleu(pd.Series([prediction]), pd.Series([references]), weights=weights).loc[0, "bleu"] == value


def test_nltk_docstring_example_and_details():
    """nltk's sentence_bleu example (its three references), whitespace-joined."""
    hypothesis = (
        "It is a guide to action which ensures that the military always obeys the commands of the party"
    )
    references = [
        "It is a guide to action that ensures that the military will forever heed Party commands",
        "It is the guiding principle which guarantees the military forces always being under the command of "
        "the Party",
        "It is the practical guide for the army always to heed the directions of the party",
    ]
    got = bleu(pd.Series([hypothesis]), pd.DataFrame([references]), details=True)
    assert round(got.loc[0, "bleu"], 4) == 0.5046
    assert got.loc[0, "bleu"] == expected_bleu([hypothesis], [references])[0]
    assert list(got.columns) == [
        "bleu",
        "precision_1",
        "precision_2",
        "precision_3",
        "precision_4",
        "brevity_penalty",
        "prediction_length",
        "reference_length",
    ]
    assert got.loc[0, "precision_1"] == 17 / 18 and got.loc[0, "reference_length"] == 18


def test_closest_reference_length_ties_to_the_shorter_and_missing_cells_are_dropped():
    prediction = pd.Series(["a b c d e f g h i j k l"])  # 12 tokens; references of 11 and 13
    refs = pd.DataFrame({"r1": ["a b c d e f g h i j k l m"], "r2": [None], "r3": ["a b c d e f g h i j k"]})
    got = bleu(prediction, refs, details=True)
    assert got.loc[0, "reference_length"] == 11
    assert got.loc[0, "bleu"] == expected_bleu(prediction, [[refs.r1[0], refs.r3[0]]])[0]
    # a missing cell is dropped, not scored as an empty reference (which would be closest)
    listed = bleu(prediction, pd.Series([["a b c d e f g h i j k l m", None]]), details=True)
    assert listed.loc[0, "reference_length"] == 13


@pytest.mark.parametrize(
    ("prediction", "reference", "kwargs", "message"),
    [
        (pd.Series(["a", "b"]), pd.Series(["a", b"b"], name="gold"), {}, r"column 'gold': row 1 holds b'b'"),
        (pd.Series(["a"]), pd.Series(["a"]), {"weights": []}, r"at least one weight"),
        (pd.Series(["a"]), pd.Series(["a"]), {"weights": ["x"]}, r"pass a sequence of numbers"),
        (pd.Series(["a"]), pd.Series(["a"]), {"weights": [np.nan]}, r"finite number"),
    ],
)
def test_bad_input_names_the_row_and_the_fix(prediction, reference, kwargs, message):
    with pytest.raises(InvalidInputError, match=message):
        bleu(prediction, reference, **kwargs)


def test_empty_input_gives_an_empty_table():
    table = bleu(pd.Series([], dtype=object), pd.Series([], dtype=object))
    assert list(table.columns) == ["bleu"] and len(table) == 0


def test_ascii_fast_tokenizer_counts_tokens_as_nltk_does():
    # every text of up to 4 characters over the characters where the pattern's alternatives meet
    tokenize = pytest.importorskip("nltk.tokenize")
    tokenizer = tokenize.RegexpTokenizer(r"\w+|\$[\d]+|[^\s\.]+")
    alphabet = list("a5$,. _\n'")
    texts = [""]
    for _ in range(4):
        texts += [t + c for t in texts if len(t) == len(texts[-1]) for c in alphabet]
    texts = sorted(set(texts) - {""})
    table = bleu(pd.Series(texts), pd.Series(["a"] * len(texts)), details=True)
    assert table["prediction_length"].tolist() == [len(tokenizer.tokenize(t)) for t in texts]
