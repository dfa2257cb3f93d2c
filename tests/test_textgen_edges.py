"""df.textgen at the edges: weights, lone surrogates, the row policy (index kept, missing rows
left out with a warning), empty frames with ``by=``, and the input messages."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

import pdmetrics  # noqa: F401
from pdmetrics.errors import InvalidInputError
from pdmetrics.textgen import bleu

# --------------------------------------------------------------------------- BLEU weights


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ((1, -1), r"weights=\(1, -1\): weight -1.0 is negative"),
        ((0.5, 0.5, -0.25, 0.25), r"is negative"),
        ((0, 0, 0, 0), r"weights=\(0, 0, 0, 0\): the weights sum to 0"),
        ((0.0,), r"sum to 0"),
    ],
)
def test_bleu_refuses_negative_weights_and_a_zero_sum(weights, message):
    frame = pd.DataFrame({"answer": ["the cat sat on the mat", "a dog"], "gold": ["the cat sat", "a cat"]})
    with pytest.raises(InvalidInputError, match=message):
        frame.textgen.bleu(prediction="answer", reference="gold", weights=weights)
    with pytest.raises(InvalidInputError, match="give at least one order a positive weight|non-negative"):
        bleu(frame["answer"], frame["gold"], weights=weights)


def test_bleu_weights_summing_to_other_than_one_are_used_as_given_as_nltk_does():
    sentence_bleu = pytest.importorskip("nltk.translate.bleu_score").sentence_bleu
    prediction, reference = "the cat sat on the mat today", "the cat sat on a mat"
    for weights in [(0.5, 0.5, 0.5, 0.5), (0.1, 0.1), (2.0,), (0.0, 1.0)]:
        got = bleu(pd.Series([prediction]), pd.Series([reference]), weights=weights).loc[0, "bleu"]
        expected = sentence_bleu([reference.split()], prediction.split(), weights=weights)
        assert got == expected
        assert 0.0 <= got <= 1.0


# --------------------------------------------------------------------------- lone surrogates

SURROGATE_PREDICTIONS = [
    "a \ud83d",
    "b c \ud83d\ude00 x \u0301",
    "\ud83d",
    "\u05e9\u05dc\u05d5\u05dd e\u0301 .",
]
SURROGATE_REFERENCES = [["a \ud83d x", "q"], ["b c"], ["y \ud83d."], ["\u05e9\u05dc\u05d5\u05dd \ud83d"]]


def _sacrebleu_streams(references):
    width = max(map(len, references))
    return [[r[k] if k < len(r) else None for r in references] for k in range(width)]


@pytest.mark.parametrize("listed", [False, True])
def test_a_lone_surrogate_is_scored_as_sacrebleu_scores_it(listed):
    sacrebleu = pytest.importorskip("sacrebleu")
    references = SURROGATE_REFERENCES if listed else [[r[0]] for r in SURROGATE_REFERENCES]
    answers = pd.Series(SURROGATE_PREDICTIONS, dtype=object)
    frame = pd.DataFrame({"answer": answers, "gold": pd.Series(references, dtype=object)})
    if not listed:
        frame["gold"] = pd.Series([r[0] for r in references], dtype=object)
    streams = _sacrebleu_streams(references)
    hyps = SURROGATE_PREDICTIONS
    got = frame.textgen.corpus_bleu(prediction="answer", reference="gold").loc[0, "score"]
    assert got == sacrebleu.corpus_bleu(hyps, streams).score
    for word_order in (0, 2):
        got = frame.textgen.chrf(prediction="answer", reference="gold", word_order=word_order).loc[0, "score"]
        assert got == sacrebleu.corpus_chrf(hyps, streams, word_order=word_order).score
    got = frame.textgen.ter(prediction="answer", reference="gold").loc[0, "score"]
    assert got == sacrebleu.corpus_ter(hyps, streams).score


def test_a_lone_surrogate_per_row_equals_rouge_score_and_nltk():
    rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
    sentence_bleu = pytest.importorskip("nltk.translate.bleu_score").sentence_bleu
    tokenizer = pytest.importorskip("nltk.tokenize").RegexpTokenizer(r"\w+|\$[\d]+|[^\s\.]+")
    predictions = pd.Series(["a \ud83d b c", "x \ud83d\ude00 y z w"], dtype=object)
    references = pd.Series(["a \ud83d b c d", "x \ud83d y z w"], dtype=object)
    frame = pd.DataFrame({"p": predictions, "r": references})
    got = frame.textgen.rouge(prediction="p", reference="r")
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"])
    for row, (p, r) in enumerate(zip(predictions, references)):
        expected = scorer.score(r, p)
        assert [got.iloc[row][k] for k in expected] == [v.fmeasure for v in expected.values()]
    got = frame.textgen.bleu(prediction="p", reference="r")["bleu"].tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # nltk's "0 counts of 4-gram overlaps"
        expected = [
            sentence_bleu([tokenizer.tokenize(r)], tokenizer.tokenize(p))
            for p, r in zip(predictions, references)
        ]
    assert got == [value if value >= 1e-9 else 0.0 for value in expected]  # valor's floor
