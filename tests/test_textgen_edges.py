"""df.textgen at the edges: weights, lone surrogates, the row policy (index kept, missing rows
left out with a warning), empty frames with ``by=``, and the input messages."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import pdmetrics  # noqa: F401
from pdmetrics.errors import ExcludedRowsWarning, InvalidInputError
from pdmetrics.textgen import bleu, paired_bootstrap
from pdmetrics.textgen.rouge_scores import lcs_length
from tests.textgen_frames import on_texts

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
        bleu(frame, prediction="answer", reference="gold", weights=weights)


@pytest.mark.parametrize(
    ("weights", "message"),
    [
        ((1e-320,), r"weights=\(1e-320,\): the weights sum to 1e-320, below 1e-06"),
        ((1e-9, 0.0), r"the weights sum to 1e-09, below 1e-06"),
        ((True, False), r"weights=\(True, False\): a weight is a boolean"),
        ([np.True_], r"a weight is a boolean"),
        ({1: 1}, r"weights=\{1: 1\}: pass a sequence of numbers.*not a dict"),
        ({0.5}, r"not a set"),
        ("0.5", r"not a str"),
    ],
)
def test_bleu_refuses_degenerate_boolean_and_mapping_weights(weights, message):
    # each of these was taken as numbers: (1e-320,) scored every text with a shared word 1.0
    frame = pd.DataFrame({"answer": ["the cat sat on the mat", "a dog"], "gold": ["the cat sat", "a cat"]})
    with pytest.raises(InvalidInputError, match=message):
        frame.textgen.bleu(prediction="answer", reference="gold", weights=weights)
    with pytest.raises(InvalidInputError, match=message):
        bleu(frame, prediction="answer", reference="gold", weights=weights)


def test_bleu_weights_summing_to_other_than_one_are_used_as_given_as_nltk_does():
    sentence_bleu = pytest.importorskip("nltk.translate.bleu_score").sentence_bleu
    prediction, reference = "the cat sat on the mat today", "the cat sat on a mat"
    for weights in [(0.5, 0.5, 0.5, 0.5), (0.1, 0.1), (2.0,), (0.0, 1.0)]:
        got = on_texts(bleu, [prediction], [reference], weights=weights).loc[0, "bleu"]
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


def test_a_lone_surrogate_keeps_tokens_apart_from_lookalikes():
    """pandas 2's string hashing merged "\ud83d\ude00" with "\ud83d" and "a\udc00b" with "a?b"."""
    sacrebleu = pytest.importorskip("sacrebleu")
    sentence_bleu = pytest.importorskip("nltk.translate.bleu_score").sentence_bleu
    tokenizer = pytest.importorskip("nltk.tokenize").RegexpTokenizer(r"\w+|\$[\d]+|[^\s\.]+")
    hyps = ["a\udc00b c d e f", "x \ud83d\ude00 y z w"]
    refs = ["a?b c d e f", "x \ud83d y z w"]
    frame = pd.DataFrame({"p": pd.Series(hyps, dtype=object), "r": pd.Series(refs, dtype=object)})
    got = frame.textgen.bleu(prediction="p", reference="r")["bleu"].tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # nltk's "0 counts of 4-gram overlaps"
        expected = [sentence_bleu([tokenizer.tokenize(r)], tokenizer.tokenize(p)) for p, r in zip(hyps, refs)]
    assert got == [value if value >= 1e-9 else 0.0 for value in expected] and got[0] < 1.0
    assert frame.textgen.corpus_bleu(prediction="p", reference="r").loc[0, "score"] == (
        sacrebleu.corpus_bleu(hyps, [refs]).score
    )
    got = frame.textgen.chrf(prediction="p", reference="r", word_order=2).loc[0, "score"]
    assert got == sacrebleu.corpus_chrf(hyps, [refs], word_order=2).score
    assert (
        frame.textgen.ter(prediction="p", reference="r").loc[0, "score"]
        == sacrebleu.corpus_ter(hyps, [refs]).score
    )
    assert lcs_length([["\ud83d\ude00", "a\udc00b"]], [["\ud83d", "a?b"]]).tolist() == [0]


# --------------------------------------------------------------------------- the row policy


def answers() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "answer": ["the cat sat", None, "a dog ran far away", "a dog ran far", np.nan, "the end"],
            "gold": ["the cat sat down", "x", "a dog ran far away", None, "y", "the end"],
            "gold2": [None, None, "a cat", None, "z", None],
            "topic": ["t", "u", "t", "u", "t", np.nan],
            "id": [10, 11, 12, 13, 14, 15],
        },
        index=pd.Index([5, 3, 9, 1, 7, 2], name="key"),
    )


@pytest.mark.parametrize("method", ["rouge", "bleu"])
def test_per_row_results_keep_the_callers_index_so_join_is_right(method):
    frame = answers().dropna(subset=["answer", "gold"])  # labels 5, 9, 2: not 0..n
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scores = getattr(frame.textgen, method)(prediction="answer", reference="gold")
    assert scores.index.tolist() == [5, 9, 2] and scores.index.name == "key"
    one = frame.loc[[9]]
    alone = getattr(one.textgen, method)(prediction="answer", reference="gold")
    joined = frame.join(scores)
    assert joined.loc[9, scores.columns[0]] == alone.loc[9, scores.columns[0]] == 1.0
    assert joined.loc[5, scores.columns[0]] < 1.0
    with_id = getattr(frame.textgen, method)(prediction="answer", reference="gold", datum="id")
    assert with_id.index.tolist() == [5, 9, 2] and with_id["datum"].tolist() == [10, 12, 15]


@pytest.mark.parametrize("method", ["rouge", "bleu"])
def test_a_missing_prediction_or_reference_is_left_out_with_a_warning(method):
    frame = answers()
    with pytest.warns(
        ExcludedRowsWarning, match=r"3 of 6 rows left out: 2 without a prediction and 1 without"
    ):
        scores = getattr(frame.textgen, method)(prediction="answer", reference=["gold", "gold2"], datum="id")
    assert scores.index.tolist() == [5, 9, 2] and scores["datum"].tolist() == [10, 12, 15]
    clean = frame.loc[[5, 9, 2]]
    expected = getattr(clean.textgen, method)(prediction="answer", reference=["gold", "gold2"], datum="id")
    pd.testing.assert_frame_equal(scores, expected)
    core = getattr(pdmetrics.textgen, method)
    with pytest.warns(ExcludedRowsWarning, match=r"rows 3, 1, 7"):
        table = core(frame, prediction="answer", reference=["gold", "gold2"])
    assert table.index.tolist() == [5, 9, 2]
    with pytest.warns(ExcludedRowsWarning, match=r"by|rows left out"):
        means = getattr(frame.textgen, method)(prediction="answer", reference=["gold", "gold2"], by="topic")
    with pytest.warns(ExcludedRowsWarning, match=r"1 of 3 rows of the table have a missing `by` value"):
        expected = getattr(clean.textgen, method)(
            prediction="answer", reference=["gold", "gold2"], by="topic"
        )
    pd.testing.assert_frame_equal(means, expected)
    assert means["N"].tolist() == [3, 2]  # (all), t: label 2 has no topic


@pytest.mark.parametrize("method", ["rouge", "bleu"])
def test_every_row_missing_gives_an_empty_table_and_an_error_with_by(method):
    frame = answers().assign(answer=None)
    with pytest.warns(ExcludedRowsWarning, match="6 of 6 rows left out"):
        table = getattr(frame.textgen, method)(prediction="answer", reference="gold")
    assert len(table) == 0 and table.index.name == "key"
    with (
        pytest.warns(ExcludedRowsWarning, match="left out"),
        pytest.raises(InvalidInputError, match="No rows to average"),
    ):
        getattr(frame.textgen, method)(prediction="answer", reference="gold", by="topic")


@pytest.mark.parametrize(
    ("method", "kwargs"),
    [
        ("rouge", {"prediction": "answer", "reference": "gold"}),
        ("bleu", {"prediction": "answer", "reference": "gold"}),
        ("toxicity", {"datum": "id", "verdict": "verdict"}),
        ("answer_relevance", {"datum": "id", "verdict": "verdict"}),
        ("bias", {"datum": "id", "verdict": "verdict"}),
        ("hallucination", {"datum": "id", "verdict": "verdict"}),
        ("context_relevance", {"datum": "id", "verdict": "verdict"}),
        ("faithfulness", {"datum": "id", "verdict": "verdict"}),
        ("summary_coherence", {"datum": "id", "score": "score"}),
        ("context_precision", {"datum": "id", "verdict": "verdict", "rank": "score"}),
        ("context_recall", {"datum": "id", "verdict": "verdict"}),
        ("answer_correctness", {"datum": "id", "verdict": "tp"}),
    ],
)
def test_an_empty_frame_with_by_is_an_error_not_a_row_of_nan(method, kwargs):
    frame = pd.DataFrame(
        {
            "answer": ["a b"],
            "gold": ["a b"],
            "id": [1],
            "verdict": ["yes"],
            "tp": ["TP"],
            "score": [1],
            "topic": ["t"],
        }
    )
    full = getattr(frame.textgen, method)(**kwargs, by="topic")
    assert full["topic"].tolist() == ["(all)", "t"]
    with pytest.raises(InvalidInputError, match="No rows to average: the table is empty"):
        getattr(frame.iloc[:0].textgen, method)(**kwargs, by="topic")
    assert len(getattr(frame.iloc[:0].textgen, method)(**kwargs)) == 0  # without by=: an empty table


CORPUS = [("corpus_bleu", {}), ("chrf", {}), ("chrf", {"word_order": 2}), ("ter", {})]


@pytest.mark.parametrize(("method", "kwargs"), CORPUS)
def test_corpus_metrics_leave_out_missing_rows_with_a_warning(method, kwargs):
    frame = answers()
    with pytest.warns(
        ExcludedRowsWarning, match=r"3 of 6 rows left out: 2 without a prediction and 1 without"
    ):
        got = getattr(frame.textgen, method)(prediction="answer", reference=["gold", "gold2"], **kwargs)
    expected = getattr(frame.loc[[5, 9, 2]].textgen, method)(
        prediction="answer", reference=["gold", "gold2"], **kwargs
    )
    pd.testing.assert_frame_equal(got, expected)
    assert got.loc[0, "N"] == 3


def test_paired_bootstrap_leaves_out_a_row_missing_in_either_system_and_names_the_baseline():
    frame = pd.DataFrame(
        {
            "new": ["the cat sat on the mat", "a dog ran away", None, "it rained all day", "we went home"],
            "old": ["the cat sat on a mat", None, "x", "it rained", "we went home early"],
            "gold": ["the cat sat on the mat", "the dog ran away", "y", "it rained all day", "we went home"],
        },
        index=list("abcde"),
    )
    with pytest.warns(
        ExcludedRowsWarning,
        match=r"2 of 5 rows left out: 1 without a baseline output \(`baseline='old'`\) and "
        r"1 without a compared output \(`prediction='new'`\).*'b', 'c'",
    ):
        got = frame.textgen.paired_bootstrap(
            prediction="new", baseline="old", reference="gold", n_resamples=50
        )
    expected = frame.loc[["a", "d", "e"]].textgen.paired_bootstrap(
        prediction="new", baseline="old", reference="gold", n_resamples=50
    )
    pd.testing.assert_frame_equal(got, expected)
    assert got["N"].tolist() == [3, 3]
    bad = frame.assign(old=["x", 5, "y", "z", "w"])
    with pytest.raises(InvalidInputError, match=r"`baseline='old'` row 'b' holds 5 \(int\)"):
        bad.textgen.paired_bootstrap(prediction="new", baseline="old", reference="gold")
    with pytest.raises(InvalidInputError, match=r"`baseline=None`: name the column of the baseline system"):
        frame.textgen.paired_bootstrap(prediction="new", baseline=None, reference="gold")


def test_summary_coherence_accepts_whole_numbers_in_an_object_column():
    scores = pd.Series([4, np.int64(5), 1.0, np.float32(3)], dtype=object)
    frame = pd.DataFrame({"id": ["a", "b", "c", "d"], "score": scores, "topic": list("xxyy")})
    got = frame.textgen.summary_coherence(datum="id", score="score")
    assert got["summary_coherence"].tolist() == [4.0, 5.0, 1.0, 3.0]
    for value, shown in [(3.5, "3.5"), ("4", "'4'"), (True, "True"), (6, "6")]:
        bad = frame.assign(score=pd.Series([4, value, 1, 2], dtype=object))
        with pytest.raises(InvalidInputError, match=rf"row 1: summary coherence score {shown} is not"):
            bad.textgen.summary_coherence(datum="id", score="score")


@pytest.mark.parametrize(
    ("method", "kwargs"),
    [("rouge", {"prediction": "p", "reference": "r"}), ("toxicity", {"datum": "id", "verdict": "v"})],
)
def test_a_missing_by_value_counts_in_the_pooled_row_only_with_a_warning(method, kwargs):
    frame = pd.DataFrame(
        {"p": ["a b", "a c", "x"], "r": ["a b", "a b", "x"], "id": [1, 2, 3], "v": ["yes", "no", "yes"]}
    ).assign(g=["u", None, np.nan])
    with pytest.warns(ExcludedRowsWarning, match=r"2 of 3 rows of the table have a missing `by` value"):
        table = getattr(frame.textgen, method)(**kwargs, by="g")
    assert table["g"].tolist() == ["(all)", "u"] and table["N"].tolist() == [3, 1]


def test_a_missing_verdict_or_score_is_left_out_with_a_warning_and_so_is_a_datum_without_any():
    judged = pd.DataFrame(
        {
            "id": ["a", "a", "a", "b", "c"],
            "verdict": ["yes", None, "no", np.nan, "yes"],
            "rank": [1, 3, 2, 1, 1],
            "topic": ["x", "x", "x", "y", "y"],
        }
    )
    with pytest.warns(
        ExcludedRowsWarning, match=r"2 of 5 rows left out: the verdict is missing .*1 data .*'b'"
    ):
        got = judged.textgen.toxicity(datum="id", verdict="verdict")
    assert got["datum"].tolist() == ["a", "c"] and got["N"].tolist() == [2, 1]
    assert got["toxicity"].tolist() == [0.5, 1.0]
    with pytest.warns(ExcludedRowsWarning, match="left out"):  # b is not scored as "no opinions: 0.0"
        listed = judged.textgen.toxicity(datum="id", verdict="verdict", data=["a", "b", "c", "d"])
    assert listed["datum"].tolist() == ["a", "c", "d"] and listed["toxicity"].tolist() == [0.5, 1.0, 0.0]
    with pytest.warns(ExcludedRowsWarning, match="left out"):
        ranked = judged.textgen.context_precision(datum="id", verdict="verdict", rank="rank")
    assert ranked["datum"].tolist() == ["a", "c"]
    with pytest.warns(ExcludedRowsWarning, match="left out"):
        faithful = judged.textgen.faithfulness(
            datum="id", verdict="verdict", data=["a", "b", "c"], n_contexts=[2, 1, 1]
        )
    assert faithful["datum"].tolist() == ["a", "c"]
    scores = pd.DataFrame({"id": ["s1", "s2", "s3"], "score": [4, None, 2]})
    with pytest.warns(ExcludedRowsWarning, match=r"1 of 3 rows left out: the score is missing"):
        coherence = scores.textgen.summary_coherence(datum="id", score="score")
    assert coherence["datum"].tolist() == ["s1", "s3"] and coherence["summary_coherence"].tolist() == [
        4.0,
        2.0,
    ]


def test_paired_bootstrap_names_the_system_whose_output_is_missing():
    df = pd.DataFrame(
        {
            "new": ["a b c", "d e f", None, "j k"],
            "old": [None, "d e", "g", "j"],
            "ref": ["a b c", "d e f", "g h i", "j k"],
        }
    )
    with pytest.warns(
        ExcludedRowsWarning,
        match=r"^2 of 4 rows left out: 1 without a baseline output \(`baseline='old'`\) and 1 without a "
        r"compared output \(`prediction='new'`\) \(None/NaN; rows 0, 2\)\.$",
    ) as caught:
        table = df.textgen.paired_bootstrap(prediction="new", baseline="old", reference="ref", n_resamples=40)
    assert caught[0].filename == __file__
    assert table["N"].tolist() == [2, 2]
    frame = pd.DataFrame({"a": [None, "x y"], "b": ["x y", "x y"], "r": ["x y", "x y"]})
    with pytest.warns(ExcludedRowsWarning, match=r"1 without a baseline output \(`baseline='a'`\) \("):
        paired_bootstrap(frame, prediction="b", baseline="a", reference="r", n_resamples=40)


def test_empty_and_blank_answers_are_scored_zero_and_only_missing_cells_are_left_out():
    # "" is an answer (the empty one): scored 0 as rouge-score, nltk and sacrebleu do, no warning
    frame = pd.DataFrame({"pred": ["", "   ", "the cat sat"], "ref": ["a cat", "a cat", "the cat sat"]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rouge = frame.textgen.rouge(prediction="pred", reference="ref")
        scores = frame.textgen.bleu(prediction="pred", reference="ref", weights=(1.0,))
    assert rouge["rouge1"].tolist() == [0.0, 0.0, 1.0]
    assert scores["bleu"].tolist() == [0.0, 0.0, 1.0]
    # the guide's recipe: "" as missing
    with pytest.warns(ExcludedRowsWarning, match=r"^1 of 3 rows left out: 1 without a prediction"):
        dropped = frame.replace({"pred": {"": None}}).textgen.rouge(prediction="pred", reference="ref")
    assert dropped.index.tolist() == [1, 2]
