"""``df.textgen``: each method is its core function over the frame's columns."""

import numpy as np
import pandas as pd
import pytest

import pdmetrics  # noqa: F401
from pdmetrics import ColumnNotFoundError, InvalidInputError
from pdmetrics import textgen as core


@pytest.fixture
def judged():
    rng = np.random.default_rng(0)
    n = 60
    datum = np.repeat(np.arange(12), 5)
    return pd.DataFrame(
        {
            "id": datum,
            "verdict": rng.choice(["yes", "no"], n),
            "rank": np.tile(np.arange(1, 6), 12),
            "topic": np.where(datum % 3 == 0, "health", "sport"),
        }
    )


@pytest.mark.parametrize("metric", ["bias", "toxicity", "context_relevance", "hallucination", "faithfulness"])
def test_yes_no_methods_equal_the_core(judged, metric):
    before = judged.copy()
    table = getattr(judged.textgen, metric)(datum="id", verdict="verdict")
    pd.testing.assert_frame_equal(table, getattr(core, metric)(judged, datum="id", verdict="verdict"))
    pd.testing.assert_frame_equal(judged, before)
    share = judged.assign(yes=judged["verdict"] == "yes").groupby("id")["yes"].mean()
    assert table[metric].tolist() == share.tolist()  # the share of "yes" per datum


def test_context_precision_and_answer_correctness_equal_the_core(judged):
    table = judged.textgen.context_precision(datum="id", verdict="verdict", rank="rank")
    pd.testing.assert_frame_equal(
        table, core.context_precision(judged, datum="id", verdict="verdict", rank="rank")
    )
    tp = judged.assign(verdict=np.where(judged["verdict"] == "yes", "TP", "FN"))
    table = tp.textgen.answer_correctness(datum="id", verdict="verdict")
    pd.testing.assert_frame_equal(table, core.answer_correctness(tp, datum="id", verdict="verdict"))


def test_by_averages_per_datum_values_by_group(judged):
    table = judged.textgen.bias(datum="id", verdict="verdict", by="topic")
    per_datum = core.bias(judged, datum="id", verdict="verdict")
    topic = judged.groupby("id")["topic"].first()
    assert table["topic"].tolist() == ["(all)", "health", "sport"]
    assert table["bias"].iloc[0] == pytest.approx(per_datum["bias"].mean())
    health = per_datum["datum"].map(topic) == "health"
    assert table["bias"].iloc[1] == pytest.approx(per_datum.loc[health, "bias"].mean())


def test_bad_arguments_name_the_column(judged):
    with pytest.raises(ColumnNotFoundError, match=r"`verdict='nope'`"):
        judged.textgen.bias(datum="id", verdict="nope")
    with pytest.raises(InvalidInputError, match="takes one column name"):
        judged.textgen.bias(datum=["id", "rank"], verdict="verdict")


def test_rouge_and_bleu_equal_the_core_with_several_references():
    df = pd.DataFrame(
        {
            "answer": ["the cat sat on the mat", "a dog ran far away", "hello there friend"],
            "gold": ["the cat sat down on the mat", "the dog ran away", "hi there"],
            "silver": ["a cat was on a mat", None, "hello friend"],
            "topic": ["pets", "pets", "greeting"],
        }
    )
    table = df.textgen.rouge(prediction="answer", reference=["gold", "silver"])
    pd.testing.assert_frame_equal(table, core.rouge(df, prediction="answer", reference=["gold", "silver"]))
    table = df.textgen.bleu(prediction="answer", reference="gold", weights=(0.5, 0.5), datum="topic")
    expected = core.bleu(df, prediction="answer", reference="gold", weights=(0.5, 0.5))
    assert table.columns[0] == "datum" and table["bleu"].tolist() == expected["bleu"].tolist()
    means = df.textgen.rouge(prediction="answer", reference="gold", rouge_types=["rouge1"], by="topic")
    per_row = core.rouge(df, prediction="answer", reference="gold", rouge_types=["rouge1"])["rouge1"]
    assert means["topic"].tolist() == ["(all)", "greeting", "pets"]
    assert means["rouge1"].tolist() == pytest.approx([per_row.mean(), per_row[2], per_row[:2].mean()])
