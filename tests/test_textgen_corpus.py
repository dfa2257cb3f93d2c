"""Corpus BLEU, chrF/chrF++ and TER against sacrebleu 2.6 (its default settings), additivity of
the per-segment statistics, and the input errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pdmetrics import textgen
from pdmetrics.errors import ColumnNotFoundError, ExcludedRowsWarning, InvalidInputError
from pdmetrics.textgen import metric_signature, scores_from_statistics, segment_statistics
from tests.textgen_frames import on_texts

sacrebleu = pytest.importorskip("sacrebleu")
if sacrebleu.__version__ != "2.6.0":  # the definitions and signatures reproduced are 2.6.0's
    pytest.skip(
        f"cross-checks pinned to sacrebleu 2.6.0, found {sacrebleu.__version__}", allow_module_level=True
    )


def corpus_bleu(prediction, reference, **options):
    """``pdmetrics.textgen.corpus_bleu`` of the texts, put in a frame (so are chrf and ter)."""
    return on_texts(textgen.corpus_bleu, prediction, reference, **options)


def chrf(prediction, reference, **options):
    return on_texts(textgen.chrf, prediction, reference, **options)


def ter(prediction, reference, **options):
    return on_texts(textgen.ter, prediction, reference, **options)


METRICS = {
    "bleu": (lambda: sacrebleu.metrics.BLEU(), lambda p, r: corpus_bleu(p, r)),
    "chrf": (lambda: sacrebleu.metrics.CHRF(), lambda p, r: chrf(p, r)),
    "chrf++": (lambda: sacrebleu.metrics.CHRF(word_order=2), lambda p, r: chrf(p, r, word_order=2)),
    "ter": (lambda: sacrebleu.metrics.TER(), lambda p, r: ter(p, r)),
}

HYPOTHESES = [
    "The Commission proposed new rules on data protection last week.",
    'Mr. Smith said: "We won\'t accept it" (at least not in 2024).',
    "Prices rose by 3.5% to $1,200 - the highest since 2008-09.",
    "Die Katze saß auf der Matte, und es regnete.",
    "Il a dit qu'il viendrait demain à 10h.",
    "東京は日本の首都です。",
    "",
    "It's a well-known fact &amp; nobody <skipped> denies it.",
    "Rain,rain... go away!!",
    "The results were  published\tin the journal\nNature.",
    "He read the book the book the book.",
    "A B C",
]
REFERENCES = [
    "The Commission proposed new data protection rules last week.",
    'Mr Smith said: "We will not accept it" (not in 2024, at least).',
    "Prices increased 3.5% to $1,200, the highest since 2008-09.",
    "Die Katze saß auf der Matte, während es regnete.",
    "Il a dit qu'il viendrait demain à 10 heures.",
    "東京は日本の首都である。",
    "Nothing was said.",
    "It is a well-known fact & nobody denies it.",
    "Rain, rain, go away!",
    "The results were published in the journal Nature.",
    "He read the book.",
    "C B A",
]
SECOND = [
    "Last week the Commission proposed new rules on data protection.",
    None,
    "Prices went up by 3.5 percent to 1,200 dollars.",
    "",
    None,
    "日本の首都は東京です。",
    None,
    "Everybody knows it.",
    "Go away, rain!",
    None,
    "He read the book again and again.",
    "A B C",
]


def sacrebleu_score(metric, hypotheses, references):
    scorer = METRICS[metric][0]()
    score = scorer.corpus_score(list(hypotheses), [list(r) for r in references])
    return score, str(scorer.get_signature())


@pytest.mark.parametrize("metric", list(METRICS))
def test_realistic_sentences_one_reference(metric):
    expected, signature = sacrebleu_score(metric, HYPOTHESES, [REFERENCES])
    result = METRICS[metric][1](pd.Series(HYPOTHESES), pd.Series(REFERENCES))
    assert result.loc[0, "score"] == pytest.approx(expected.score, rel=1e-12, abs=1e-12)
    assert result.loc[0, "signature"] == signature
    assert result.loc[0, "N"] == len(HYPOTHESES)


@pytest.mark.parametrize("metric", list(METRICS))
def test_several_references_with_missing_cells(metric):
    expected, signature = sacrebleu_score(metric, HYPOTHESES, [REFERENCES, SECOND])
    frame = pd.DataFrame({"ref": REFERENCES, "alt": SECOND})
    by_columns = METRICS[metric][1](HYPOTHESES, frame)
    listed = pd.Series([[a, b] for a, b in zip(REFERENCES, SECOND)])
    by_lists = METRICS[metric][1](HYPOTHESES, listed)
    assert by_columns.loc[0, "score"] == pytest.approx(expected.score, rel=1e-12, abs=1e-12)
    assert by_lists.loc[0, "score"] == by_columns.loc[0, "score"]
    assert signature.startswith("nrefs:var|") and by_columns.loc[0, "signature"] == signature


def test_nan_reference_cells_are_dropped_like_sacrebleu_none():
    frame = pd.DataFrame({"ref": REFERENCES, "alt": [np.nan if v is None else v for v in SECOND]})
    expected, _ = sacrebleu_score("bleu", HYPOTHESES, [REFERENCES, SECOND])
    assert corpus_bleu(HYPOTHESES, frame).loc[0, "score"] == pytest.approx(expected.score, rel=1e-12)
    variable = pd.Series([[r] if s is None else [r, s] for r, s in zip(REFERENCES, SECOND)])
    assert corpus_bleu(HYPOTHESES, variable).loc[0, "score"] == pytest.approx(expected.score, rel=1e-12)


def test_bleu_components_equal_sacrebleu():
    expected, _ = sacrebleu_score("bleu", HYPOTHESES, [REFERENCES, SECOND])
    row = corpus_bleu(HYPOTHESES, pd.DataFrame({"a": REFERENCES, "b": SECOND})).iloc[0]
    assert [row[f"precision_{n}"] for n in range(1, 5)] == pytest.approx(expected.precisions, rel=1e-12)
    assert row["bp"] == pytest.approx(expected.bp, rel=1e-12)
    assert (row["sys_len"], row["ref_len"]) == (expected.sys_len, expected.ref_len)
    assert row["ratio"] == pytest.approx(expected.ratio, rel=1e-12)


def test_ter_components_equal_sacrebleu():
    expected, _ = sacrebleu_score("ter", HYPOTHESES, [REFERENCES, SECOND])
    row = ter(HYPOTHESES, pd.DataFrame({"a": REFERENCES, "b": SECOND})).iloc[0]
    assert row["num_edits"] == expected.num_edits
    assert row["ref_length"] == pytest.approx(expected.ref_length, rel=1e-12)


def test_ter_shift_search_on_reordered_sentences():
    # long reorderings exercise the shift search, its beam and its 1000-candidate limit
    rng = np.random.default_rng(3)
    words = np.array("the a of to in cat dog sat mat on and it was is , .".split())
    references = [" ".join(rng.choice(words, size=rng.integers(5, 45))) for _ in range(12)]
    hypotheses = [" ".join(np.roll(r.split(), k)) for k, r in enumerate(references)]
    hypotheses[0] = " ".join(references[0].split()[::-1])
    hypotheses[1] = references[1] + " " + references[2]
    expected, _ = sacrebleu_score("ter", hypotheses, [references])
    assert ter(hypotheses, references).loc[0, "score"] == pytest.approx(expected.score, rel=1e-12)


def test_ter_extreme_lengths_and_candidate_limit():
    # a length ratio above 50 widens the beam; long repetitive texts exhaust the 1000 candidates
    rng = np.random.default_rng(11)
    words = np.array("a b c d the of".split())
    long_ref = " ".join(rng.choice(words, size=150))
    long_hyp = " ".join(np.roll(long_ref.split(), 37)[::-1])
    hypotheses = ["a", " ".join(["b"] * 130), long_hyp, long_ref[::-1], "x y z"]
    references = [long_ref, "b a", long_ref, long_ref, long_ref]
    for k in range(len(hypotheses)):
        expected, _ = sacrebleu_score("ter", hypotheses[k : k + 1], [references[k : k + 1]])
        got = ter(hypotheses[k : k + 1], references[k : k + 1]).iloc[0]
        assert got["num_edits"] == expected.num_edits, k
        assert got["score"] == pytest.approx(expected.score, rel=1e-12)


PIECES = list("abcAB xy.,-!?'\"&;:()$%0123456789\n\t\u3000\xa0éß東京кот") + [
    "&amp;",
    "&quot;",
    "<skipped>",
    " the ",
    " cat ",
    "-\n",
    "3.5",
    "1,000",
]
TEXT = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


@settings(max_examples=60, deadline=None)
@given(
    segments=st.lists(st.tuples(TEXT, TEXT, st.one_of(st.none(), TEXT)), min_size=1, max_size=6),
)
def test_generated_texts_equal_sacrebleu(segments):
    hypotheses = [h for h, _, _ in segments]
    first = [r for _, r, _ in segments]
    second = [s for _, _, s in segments]
    frame = pd.DataFrame({"first": first, "second": second})
    for metric in METRICS:
        expected, signature = sacrebleu_score(metric, hypotheses, [first, second])
        result = METRICS[metric][1](hypotheses, frame)
        assert result.loc[0, "score"] == pytest.approx(expected.score, rel=1e-12, abs=1e-12), metric
        assert result.loc[0, "signature"] == signature


@settings(max_examples=25, deadline=None)
@given(texts=st.lists(TEXT, min_size=1, max_size=5))
def test_identical_texts(texts):
    for metric in METRICS:
        expected, _ = sacrebleu_score(metric, texts, [texts])
        assert METRICS[metric][1](texts, texts).loc[0, "score"] == pytest.approx(expected.score, abs=1e-12)


@pytest.mark.parametrize("metric", list(METRICS))
def test_statistics_add_up_over_chunks(metric):
    frame = pd.DataFrame({"a": REFERENCES, "b": SECOND})
    stats = segment_statistics(HYPOTHESES, frame, metric=metric)
    assert len(stats) == len(HYPOTHESES)
    chunks = [
        segment_statistics(HYPOTHESES[lo : lo + 5], frame.iloc[lo : lo + 5], metric=metric).to_numpy()
        for lo in range(0, len(HYPOTHESES), 5)
    ]
    pooled = np.concatenate(chunks)
    np.testing.assert_array_equal(pooled, stats.to_numpy())
    whole = METRICS[metric][1](HYPOTHESES, frame).loc[0, "score"]
    summed = scores_from_statistics(np.cumsum(pooled, axis=0)[-1], metric=metric)[0]
    assert summed == pytest.approx(whole, rel=1e-12)
    assert stats.attrs["signature"] == metric_signature(metric, "var")


def test_signature_matches_sacrebleu_for_each_metric():
    for metric in METRICS:
        _, signature = sacrebleu_score(metric, ["a b"], [["a b"], ["b a"]])
        assert metric_signature(metric, nrefs=2) == signature


def test_empty_reference_and_empty_prediction():
    for metric in METRICS:
        expected, _ = sacrebleu_score(metric, ["", "a b c"], [["", ""]])
        got = METRICS[metric][1](["", "a b c"], ["", ""]).loc[0, "score"]
        assert got == pytest.approx(expected.score, abs=1e-12), metric


# --------------------------------------------------------------------------- bad input


def test_missing_prediction_is_left_out_with_a_warning():
    with pytest.warns(ExcludedRowsWarning, match=r"1 of 2 rows left out: 1 without a prediction.*rows 'b'"):
        got = corpus_bleu(pd.Series(["x y z w", None], index=["a", "b"]), ["x y z w", "y"])
    assert got.loc[0, "N"] == 1
    assert got.loc[0, "score"] == corpus_bleu(["x y z w"], ["x y z w"]).loc[0, "score"]
    with (
        pytest.warns(ExcludedRowsWarning, match="left out"),
        pytest.raises(InvalidInputError, match="No segment left"),
    ):
        chrf(pd.Series([None, np.nan]), ["x", "y"])


def test_non_text_prediction_names_row_and_value():
    with pytest.raises(
        InvalidInputError, match=r"`prediction` row 1 holds 3 \(int\), not a text.*astype\(str\)"
    ):
        chrf(["x", 3], ["x", "y"])


def test_non_text_reference_cell():
    with pytest.raises(InvalidInputError, match=r"`reference` column 'b' row 0 holds 1.5 \(float\)"):
        ter(["x"], pd.DataFrame({"a": ["x"], "b": [1.5]}))
    with pytest.raises(InvalidInputError, match=r"`reference` row 1 holds \{'x'\} \(set\)"):
        corpus_bleu(["x", "y"], pd.Series([["x"], [{"x"}]]))


def test_row_without_any_reference_is_left_out_with_a_warning():
    frame = pd.DataFrame({"a": ["x", None], "b": [None, np.nan]}, index=["s1", "s2"])
    with pytest.warns(ExcludedRowsWarning, match=r"1 of 2 rows left out: 1 without any reference.*'s2'"):
        got = corpus_bleu(pd.Series(["x", "y"], index=["s1", "s2"]), frame)
    assert got.loc[0, "N"] == 1
    with pytest.warns(ExcludedRowsWarning, match="rows 1"):
        assert chrf(["x", "y"], pd.Series([["x"], []])).loc[0, "N"] == 1


def test_wrong_columns_name_the_argument():
    frame = pd.DataFrame({"hyp": ["x", "y"], "ref": ["x", "z"]})
    with pytest.raises(ColumnNotFoundError, match="prediction"):
        textgen.corpus_bleu(frame, prediction="nope", reference="ref")
    with pytest.raises(ColumnNotFoundError, match="reference"):
        textgen.ter(frame, prediction="hyp", reference=["ref", "nope"])
    with pytest.raises(InvalidInputError, match="`frame` must be a pandas DataFrame"):
        textgen.chrf(["x", "y"], prediction="hyp", reference="ref")


def test_wrong_shapes_and_options():
    with pytest.raises(InvalidInputError, match="`prediction` is empty"):
        corpus_bleu([], [])
    with pytest.raises(InvalidInputError, match=r"`word_order=1` is not supported"):
        chrf(["x"], ["x"], word_order=1)
    with pytest.raises(InvalidInputError, match=r"`metric='rouge'` is not supported"):
        segment_statistics(["x"], ["x"], metric="rouge")
    with pytest.raises(InvalidInputError, match=r"`statistics` has 3 columns but bleu needs 10"):
        scores_from_statistics(np.ones(3), metric="bleu")
