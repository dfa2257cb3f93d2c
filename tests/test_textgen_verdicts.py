"""LLM-guided text-generation metrics from verdict tables (issue 14).

The formulas and edge rules are valor-lite 0.39's (``valor_lite.text_generation.computation``);
valor's own functions are called with a scripted judge (no LLM) that answers the verdicts of
each random case, and must give the same numbers as pdmetrics on the long table.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pdmetrics import ExcludedRowsWarning, InvalidInputError, UndefinedMetricWarning, textgen
from pdmetrics.textgen import metric_means
from tests.textgen_frames import on_verdicts


def on_a_frame(metric: str):
    """``pdmetrics.textgen.<metric>`` of verdict columns given as arrays, put in a frame (each
    column named after its argument, or a named Series after its name)."""

    def call(datum, verdict=None, rank=None, **options):
        return on_verdicts(getattr(textgen, metric), datum, verdict, rank, **options)

    call.__name__ = metric
    return call


answer_correctness = on_a_frame("answer_correctness")
answer_relevance = on_a_frame("answer_relevance")
bias = on_a_frame("bias")
context_precision = on_a_frame("context_precision")
context_recall = on_a_frame("context_recall")
context_relevance = on_a_frame("context_relevance")
faithfulness = on_a_frame("faithfulness")
hallucination = on_a_frame("hallucination")
toxicity = on_a_frame("toxicity")


def summary_coherence(datum, score, **options):
    return on_verdicts(textgen.summary_coherence, datum, score=score, **options)


YES_NO_METRICS = [bias, toxicity, context_relevance, hallucination, faithfulness]


def column(table: pd.DataFrame) -> dict:
    """The metric column of a per-datum table as {datum: value}."""
    return dict(zip(table["datum"], table.iloc[:, 2]))


# --- the seed's worked examples ----------------------------------------------------------


def test_context_precision_seed_examples():
    table = context_precision(
        ["a"] * 4 + ["b"] * 4, ["yes", "no", "no", "yes", "no", "yes", "no", "yes"], [1, 2, 3, 4] * 2
    )
    assert column(table) == {"a": pytest.approx(0.75), "b": pytest.approx(0.5)}
    assert table.columns.tolist() == ["datum", "N", "context_precision"]
    assert table["N"].tolist() == [4, 4]


def test_context_precision_row_order_and_rank_order_do_not_matter():
    table = context_precision(["a", "a", "a", "a"], ["yes", "yes", "no", "no"], rank=[4, 1, 3, 2])
    assert column(table)["a"] == pytest.approx(0.75)


def test_context_precision_all_no_is_zero():
    assert column(context_precision(["a", "a"], ["no", "no"], [1, 2]))["a"] == 0.0


def test_context_precision_several_ground_truths_any_yes():
    # g1: [yes, no, no], g2: [no, no, yes] -> aggregate [yes, no, yes] -> (1 + 2/3) / 2
    table = context_precision(
        ["q"] * 6,
        ["yes", "no", "no", "no", "no", "yes"],
        rank=[1, 2, 3, 1, 2, 3],
        ground_truth=["g1"] * 3 + ["g2"] * 3,
    )
    assert column(table)["q"] == pytest.approx((1 + 2 / 3) / 2)
    # not the maximum of the two scores (1.0 for g1 alone)
    assert column(table)["q"] != pytest.approx(1.0)


def test_context_precision_empty_rules_through_counts():
    table = context_precision(
        ["a", "a"],
        ["yes", "no"],
        [1, 2],
        data=["a", "none", "no_gt", "no_ctx"],
        n_contexts=[2, 0, 3, 0],
        n_ground_truths=[1, 0, 0, 2],
    )
    assert column(table) == {"a": 1.0, "none": 1.0, "no_gt": 0.0, "no_ctx": 0.0}
    assert table["N"].tolist() == [2, 0, 0, 0]


def test_answer_correctness_seed_water_example():
    # TP: boiling point 100C; FP: melting point; FN: changes with altitude -> 1 / (1 + 0.5 * 2)
    table = answer_correctness(["w", "w", "w"], ["TP", "FP", "FN"])
    assert column(table)["w"] == pytest.approx(0.5)


def test_answer_correctness_max_over_ground_truths_and_no_tp_is_zero():
    table = answer_correctness(
        ["a", "a", "a", "a", "a", "b", "b"],
        ["TP", "FP", "FN", "TP", "TP", "FP", "FN"],
        ground_truth=[1, 1, 1, 2, 2, 1, 1],
        data=["a", "b", "c"],
    )
    assert column(table) == {"a": 1.0, "b": 0.0, "c": 0.0}
    assert table["N"].tolist() == [5, 2, 0]


def test_answer_correctness_ground_truths_judge_the_same_answer_statements():
    with pytest.raises(
        InvalidInputError, match=r"'a' has 1 answer statements \(TP \+ FP\) for one ground truth but 2"
    ):
        answer_correctness(["a"] * 4, ["TP", "FP", "TP", "FN"], ground_truth=[1, 1, 2, 2])


def test_answer_relevance_idk_counts_as_not_relevant_and_no_statements_zero():
    table = answer_relevance(["q", "q", "q", "q"], ["yes", "idk", "idk", "yes"], data=["q", "empty"])
    assert column(table) == {"q": 0.5, "empty": 0.0}


@pytest.mark.parametrize("metric", [bias, toxicity])
def test_bias_and_toxicity_without_opinions_are_zero(metric):
    table = metric(["x", "x", "x"], ["yes", "no", "yes"], data=["x", "y"])
    assert column(table) == {"x": pytest.approx(2 / 3), "y": 0.0}
    assert table.columns.tolist() == ["datum", "N", metric.__name__]


def test_context_relevance_without_contexts_is_zero():
    assert column(context_relevance(["q"], ["yes"], data=["q", "r"])) == {"q": 1.0, "r": 0.0}


def test_context_recall_max_over_ground_truths():
    table = context_recall(
        ["q"] * 5, ["yes", "no", "no", "no", "yes"], ground_truth=["a", "a", "a", "b", "b"]
    )
    assert column(table)["q"] == pytest.approx(0.5)


def test_context_recall_empty_rules_and_undefined():
    table = context_recall(
        ["q"],
        ["yes"],
        data=["q", "neither", "no_ctx", "no_gt"],
        n_contexts=[1, 0, 0, 2],
        n_ground_truths=[1, 0, 3, 0],
    )
    assert column(table) == {"q": 1.0, "neither": 1.0, "no_ctx": 0.0, "no_gt": 0.0}
    with pytest.warns(UndefinedMetricWarning, match="zero_division"):
        table = context_recall(
            ["q"], ["yes"], data=["q", "silent"], n_contexts=[1, 2], n_ground_truths=[1, 1]
        )
    assert np.isnan(column(table)["silent"])
    table = context_recall(
        ["q"], ["yes"], data=["q", "silent"], n_contexts=[1, 2], n_ground_truths=[1, 1], zero_division=0
    )
    assert column(table)["silent"] == 0.0


def test_faithfulness_edge_rules():
    table = faithfulness(
        ["a", "a"], ["yes", "no"], data=["a", "no_claims", "no_contexts"], n_contexts=[1, 2, 0]
    )
    assert column(table) == {"a": 0.5, "no_claims": 1.0, "no_contexts": 0.0}


def test_faithfulness_without_counts_needs_rows():
    with pytest.raises(InvalidInputError, match=r"'b' has no verdict rows.*n_contexts="):
        faithfulness(["a"], ["yes"], data=["a", "b"])


def test_hallucination_without_contexts_is_an_error_naming_the_datum():
    assert column(hallucination(["a", "a"], ["yes", "no"]))["a"] == 0.5
    with pytest.raises(InvalidInputError, match=r"hallucination: datum 'b' has no verdict rows"):
        hallucination(["a", "a"], ["yes", "no"], data=["a", "b"])


def test_summary_coherence_scores_and_range():
    table = summary_coherence(pd.Series(["s2", "s1"]), pd.Series([5, 1]))
    assert table["datum"].tolist() == ["s1", "s2"]
    assert table["summary_coherence"].tolist() == [1.0, 5.0]
    for bad in (0, 6, 3.5):
        with pytest.raises(
            InvalidInputError, match=r"row 1: summary coherence score .* not one of \[1, 2, 3, 4, 5\]"
        ):
            summary_coherence(["a", "b"], [3, bad])
    with pytest.raises(InvalidInputError, match="not one of"):
        summary_coherence(["a"], ["4"])
    with pytest.raises(InvalidInputError, match="'a' has 2 scores"):
        summary_coherence(["a", "a"], [3, 4])
    with pytest.raises(InvalidInputError, match="'b' has no verdict rows"):
        summary_coherence(["a"], [3], data=["a", "b"])


def test_data_order_is_kept_and_ids_keep_their_type():
    table = bias([3, 1, 3], ["yes", "no", "no"], data=[3, 2, 1])
    assert table["datum"].tolist() == [3, 2, 1]
    assert table.index.equals(pd.RangeIndex(3))
    assert table["N"].dtype == np.int64


# --- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, text",
    [
        ("Yes", "'Yes'"),
        ("YES", "'YES'"),
        (1, "1"),
        (True, "True"),
        ("maybe", "'maybe'"),
    ],
)
def test_bad_verdict_names_column_value_row_and_allowed_set(value, text):
    verdicts = pd.Series(["yes", value, "no"], index=[10, 11, 12], name="judge", dtype=object)
    with pytest.raises(
        InvalidInputError,
        match=rf"`verdict='judge'`, row 11: bias verdict {text} is not one of \['yes', 'no'\]",
    ):
        bias(["a", "a", "b"], verdicts)


def test_bad_verdict_hints():
    with pytest.raises(InvalidInputError, match=r"case-sensitive.*str\.lower"):
        answer_relevance(["a"], ["Yes"])
    with pytest.raises(InvalidInputError, match=r"case-sensitive.*str\.upper"):
        answer_correctness(["a"], ["tp"])
    with pytest.warns(ExcludedRowsWarning, match="1 of 1 rows left out: the verdict is missing"):
        assert len(toxicity(pd.Series(["a"]), pd.Series([None], dtype="str"))) == 0
    with pytest.raises(InvalidInputError, match=r"not one of \['yes', 'no'\]"):
        hallucination(["a"], ["idk"])  # idk is for answer relevance only


def test_list_cells_are_refused():
    with pytest.raises(InvalidInputError, match=r"row 0: bias verdict \['yes', 'no'\].*explode"):
        bias(["a", "a"], [["yes", "no"], "no"])
    with pytest.raises(InvalidInputError, match="`datum='datum'` holds list values"):
        bias([["a"], "a"], ["yes", "no"])
    with pytest.raises(InvalidInputError, match="`ground_truth='ground_truth'` holds list values"):
        answer_correctness(["a", "a"], ["TP", "FN"], ground_truth=[["x"], "y"])


def test_string_dtype_verdicts_are_accepted():
    verdicts = pd.Series(["yes", "no"], dtype="string")
    assert column(bias(["a", "a"], verdicts))["a"] == 0.5


@pytest.mark.parametrize(
    "ranks",
    [[1, 2, 4], [1, 2, 2], [2, 3, 4], [1, 1, 1]],
)
def test_context_precision_rank_gaps_and_duplicates_name_the_datum(ranks):
    with pytest.raises(InvalidInputError, match=r"datum 'q' has context ranks .*no gap and no duplicate"):
        context_precision(["p", "q", "q", "q"], ["yes", "yes", "no", "yes"], rank=[1, *ranks])


@pytest.mark.parametrize("rank", [1.5, np.nan, "first", -1, 0, True])
def test_context_precision_rank_must_be_a_whole_number(rank):
    with pytest.raises(InvalidInputError, match=r"`rank`, row 1: rank .* whole number >= 1"):
        context_precision(["q", "q"], ["yes", "no"], rank=pd.Series([1, rank], dtype=object))


def test_context_precision_ground_truths_rank_the_same_list():
    with pytest.raises(
        InvalidInputError, match="'q' ranks 3 contexts for one ground truth but 2 for another"
    ):
        context_precision(["q"] * 5, ["yes"] * 5, [1, 2, 3, 1, 2], ground_truth=["a"] * 3 + ["b"] * 2)


def test_context_precision_counts_must_match_rows():
    with pytest.raises(InvalidInputError, match=r"ranks 1..2 but `n_contexts` is 3"):
        context_precision(["q", "q"], ["yes", "no"], [1, 2], data=["q"], n_contexts=[3], n_ground_truths=[1])
    with pytest.raises(InvalidInputError, match="has 2 verdict rows but `n_ground_truths` is 0"):
        context_precision(["q", "q"], ["yes", "no"], [1, 2], data=["q"], n_contexts=[2], n_ground_truths=[0])
    with pytest.raises(InvalidInputError, match=r"'r' has no verdict rows.*n_ground_truths="):
        context_precision(["q"], ["yes"], [1], data=["q", "r"])


def test_missing_datum_ids():
    with pytest.raises(InvalidInputError, match=r"`datum='id'`, row 1: missing datum id"):
        bias(pd.Series(["a", None], name="id"), ["yes", "no"])
    with pytest.raises(InvalidInputError, match=r"row 1: datum 'z' is not in `data`"):
        bias(["a", "z"], ["yes", "no"], data=["a", "b"])
    with pytest.raises(InvalidInputError, match="lists datum 'a' more than once"):
        bias(["a"], ["yes"], data=["a", "a"])
    with pytest.raises(InvalidInputError, match="missing ground-truth id"):
        answer_correctness(["a", "a"], ["TP", "FN"], ground_truth=["g", None])


def test_count_checks():
    with pytest.raises(InvalidInputError, match="pass `data=`"):
        faithfulness(["a"], ["yes"], n_contexts=[1])
    with pytest.raises(InvalidInputError, match="`n_contexts` for datum 'b' is -1"):
        faithfulness(["a"], ["yes"], data=["a", "b"], n_contexts=[1, -1])
    with pytest.raises(InvalidInputError, match="`n_contexts` has 1 values but `data` has 2"):
        faithfulness(["a"], ["yes"], data=["a", "b"], n_contexts=[1])


def test_inputs_are_not_modified():
    frame = pd.DataFrame({"datum": ["b", "a", "b"], "verdict": ["yes", "no", "no"], "rank": [2, 1, 1]})
    before = frame.copy()
    textgen.context_precision(frame, datum="datum", verdict="verdict", rank="rank")
    pd.testing.assert_frame_equal(frame, before)


# --- metric_means -------------------------------------------------------------------------


def test_metric_means_overall_and_by_group():
    table = toxicity(["a", "a", "b", "c"], ["yes", "no", "no", "yes"])
    overall = metric_means(table)
    assert overall.columns.tolist() == ["N", "toxicity"]
    assert overall.iloc[0].tolist() == [3, 0.5]
    groups = metric_means(table, by=pd.Series({"a": "x", "b": "y", "c": "x"}, name="topic"))
    assert groups["topic"].tolist() == ["(all)", "x", "y"]
    assert groups["N"].tolist() == [3, 2, 1]
    assert groups["toxicity"].tolist() == [0.5, 0.75, 0.0]


def test_metric_means_from_a_long_tables_group_column_and_positional():
    long = pd.DataFrame(
        {"id": ["a", "a", "b", "c"], "v": ["yes", "no", "no", "yes"], "grp": ["x", "x", "y", "x"]}
    )
    table = bias(long["id"], long["v"])
    by_long = metric_means(table, by=long.set_index("id")["grp"])
    positional = metric_means(table, by=["x", "y", "x"])
    assert by_long["bias"].tolist() == positional["bias"].tolist() == [0.5, 0.75, 0.0]
    assert positional.columns.tolist() == ["group", "N", "bias"]
    with pytest.raises(InvalidInputError, match="datum 'a' belongs to more than one group"):
        metric_means(table, by=pd.Series(["x", "y", "y"], index=["a", "a", "b"]))
    with pytest.raises(InvalidInputError, match="no group for datum 'c'"):
        metric_means(table, by=pd.Series({"a": "x", "b": "y"}))
    with pytest.raises(InvalidInputError, match="names a column that is also a column of the result"):
        metric_means(table, by=pd.Series({"a": "x", "b": "y", "c": "x"}, name="N"))


def test_metric_means_of_merged_tables_with_nan_and_several_group_columns():
    with pytest.warns(UndefinedMetricWarning, match="zero_division"):
        recall = context_recall(["a"], ["yes"], data=["a", "b"], n_contexts=[1, 1], n_ground_truths=[1, 1])
    merged = recall.merge(bias(["a", "b"], ["no", "yes"]).drop(columns="N"), on="datum")
    groups = pd.DataFrame({"sex": ["f", "m"], "age": ["old", "old"]}, index=["a", "b"])
    result = metric_means(merged, by=groups)
    assert result.columns.tolist() == ["sex", "age", "N", "context_recall", "bias"]
    assert result["context_recall"].tolist()[0] == 1.0  # NaN left out of the mean
    assert np.isnan(result["context_recall"].tolist()[2])


# --- valor-lite's own computation, with a scripted judge -----------------------------------


class ScriptedJudge:
    """A valor ``ClientWrapper`` that answers a fixed list of responses in order."""

    def __init__(self, responses):
        self.responses = list(responses)

    def __call__(self, messages):
        return self.responses.pop(0)


def verdicts_json(values):
    return json.dumps({"verdicts": [{"verdict": v, "analysis": ""} for v in values]})


def items(name, n):
    return json.dumps({name: [f"{name} {i}" for i in range(n)]})


@pytest.fixture(scope="module")
def valor():
    return pytest.importorskip("valor_lite.text_generation.computation")


@pytest.mark.parametrize("seed", range(5))
def test_proportion_metrics_equal_valor(valor, seed):
    rng = np.random.default_rng(seed)
    n_data = 40
    sizes = rng.integers(0, 6, n_data)
    contexts = np.where(rng.random(n_data) < 0.15, 0, rng.integers(1, 5, n_data))
    rows = [(d, v) for d in range(n_data) for v in rng.choice(["yes", "no"], sizes[d])]
    datum = [d for d, _ in rows]
    verdict = [v for _, v in rows]
    with_idk = [v if rng.random() < 0.7 else "idk" for v in verdict]
    data = list(range(n_data))
    ours = {
        "bias": column(bias(datum, verdict, data=data)),
        "toxicity": column(toxicity(datum, verdict, data=data)),
        "answer_relevance": column(answer_relevance(datum, with_idk, data=data)),
        "context_relevance": column(context_relevance(datum, verdict, data=data)),
    }
    # faithfulness: a datum with claim verdicts has contexts (the judge saw them)
    faith_data = [d for d in data if not (sizes[d] > 0 and contexts[d] == 0)]
    ours["faithfulness"] = column(
        faithfulness(
            [d for d in datum if d in set(faith_data)],
            [v for d, v in zip(datum, verdict) if d in set(faith_data)],
            data=faith_data,
            n_contexts=contexts[faith_data],
        )
    )
    ours["hallucination"] = column(hallucination(datum, verdict))
    for d in data:
        mine = [v for dd, v in zip(datum, verdict) if dd == d]
        idk = [v for dd, v in zip(datum, with_idk) if dd == d]
        for name, fn in (("bias", valor.calculate_bias), ("toxicity", valor.calculate_toxicity)):
            script = [items("opinions", len(mine))] + ([verdicts_json(mine)] if mine else [])
            assert ours[name][d] == pytest.approx(fn(ScriptedJudge(script), "", "answer"), abs=1e-15)
        expected = valor.calculate_answer_relevance(
            ScriptedJudge([items("statements", len(idk)), verdicts_json(idk)]), "", "query", "answer"
        )
        assert ours["answer_relevance"][d] == pytest.approx(expected, abs=1e-15)
        context_list = [f"c{i}" for i in range(len(mine))]
        expected = valor.calculate_context_relevance(
            ScriptedJudge([verdicts_json(mine)]), "", "query", context_list
        )
        assert ours["context_relevance"][d] == pytest.approx(expected, abs=1e-15)
        if d in set(faith_data):
            retrieved = [f"c{i}" for i in range(contexts[d])]
            expected = valor.calculate_faithfulness(
                ScriptedJudge([items("claims", len(mine)), verdicts_json(mine)]), "", "answer", retrieved
            )
            assert ours["faithfulness"][d] == pytest.approx(expected, abs=1e-15)
        if mine:
            expected = valor.calculate_hallucination(
                ScriptedJudge([verdicts_json(mine)]), "", "answer", context_list
            )
            assert ours["hallucination"][d] == pytest.approx(expected, abs=1e-15)
        else:
            with pytest.raises(ValueError, match="requires context"):
                valor.calculate_hallucination(ScriptedJudge([]), "", "answer", [])


@pytest.mark.parametrize("seed", range(5))
def test_ground_truth_metrics_equal_valor(valor, seed):
    rng = np.random.default_rng(100 + seed)
    n_data = 30
    correctness, recall, precision = [], [], []  # long rows
    n_ctx = rng.integers(0, 5, n_data)
    n_gt = rng.integers(0, 4, n_data)
    expected = {"answer_correctness": {}, "context_recall": {}, "context_precision": {}}
    for d in range(n_data):
        # answer correctness: the prediction's statements are TP or FP for every ground truth
        n_pred = int(rng.integers(0, 5))
        script = [items("statements", n_pred)]
        for g in range(n_gt[d]):
            n_truth = int(rng.integers(0, 5))
            tp = int(rng.integers(0, n_pred + 1))
            fn = int(rng.integers(0, n_truth + 1))
            kinds = ["TP"] * tp + ["FP"] * (n_pred - tp) + ["FN"] * fn
            correctness += [(d, g, k) for k in rng.permutation(kinds)]
            script += [
                items("statements", n_truth),
                json.dumps({"TP": ["s"] * tp, "FP": ["s"] * (n_pred - tp), "FN": ["s"] * fn}),
            ]
        truths = [f"g{g}" for g in range(n_gt[d])]
        expected["answer_correctness"][d] = valor.calculate_answer_correctness(
            ScriptedJudge(script), "", "q", "answer", truths
        )
        # context recall: every ground truth has at least one statement (valor divides by zero otherwise)
        context_list = [f"c{i}" for i in range(n_ctx[d])]
        script = []
        if n_ctx[d] and n_gt[d]:
            for g in range(n_gt[d]):
                v = list(rng.choice(["yes", "no"], int(rng.integers(1, 5))))
                recall += [(d, g, x) for x in v]
                script += [items("statements", len(v)), verdicts_json(v)]
        expected["context_recall"][d] = valor.calculate_context_recall(
            ScriptedJudge(script), "", context_list, truths
        )
        # context precision: one verdict per context and ground truth
        script = []
        if n_ctx[d] and n_gt[d]:
            for g in range(n_gt[d]):
                v = list(rng.choice(["yes", "no"], n_ctx[d], p=[0.3, 0.7]))
                precision += [(d, g, r + 1, x) for r, x in enumerate(v)]
                script.append(verdicts_json(v))
        expected["context_precision"][d] = valor.calculate_context_precision(
            ScriptedJudge(script), "", "q", context_list, truths
        )
    data = np.arange(n_data)
    frame = pd.DataFrame(correctness, columns=["d", "g", "v"]).sample(frac=1, random_state=seed)
    ours = column(answer_correctness(frame["d"], frame["v"], ground_truth=frame["g"], data=data))
    assert ours == pytest.approx(expected["answer_correctness"], abs=1e-12)
    frame = pd.DataFrame(recall, columns=["d", "g", "v"]).sample(frac=1, random_state=seed)
    ours = column(
        context_recall(
            frame["d"], frame["v"], ground_truth=frame["g"], data=data, n_contexts=n_ctx, n_ground_truths=n_gt
        )
    )
    assert ours == pytest.approx(expected["context_recall"], abs=1e-12)
    frame = pd.DataFrame(precision, columns=["d", "g", "r", "v"]).sample(frac=1, random_state=seed)
    ours = column(
        context_precision(
            frame["d"],
            frame["v"],
            frame["r"],
            ground_truth=frame["g"],
            data=data,
            n_contexts=n_ctx,
            n_ground_truths=n_gt,
        )
    )
    assert ours == pytest.approx(expected["context_precision"], abs=1e-12)


def test_summary_coherence_equals_valor(valor):
    scores = [1, 3, 5, 2]
    ours = summary_coherence(["a", "b", "c", "d"], scores)["summary_coherence"].tolist()
    assert ours == [
        float(valor.calculate_summary_coherence(ScriptedJudge([str(s)]), "", "text", "summary"))
        for s in scores
    ]


# --- properties -----------------------------------------------------------------------------

verdict_rows = st.lists(st.tuples(st.integers(0, 6), st.sampled_from(["yes", "no"])), max_size=40)


@settings(max_examples=60, deadline=None)
@given(rows=verdict_rows, seed=st.integers(0, 2**31 - 1))
def test_proportions_in_unit_interval_and_order_free(rows, seed):
    assume(rows)
    frame = pd.DataFrame(rows, columns=["d", "v"])
    shuffled = frame.sample(frac=1, random_state=seed)
    for metric in (bias, toxicity, context_relevance, hallucination):
        a = metric(frame["d"], frame["v"])
        b = metric(shuffled["d"], shuffled["v"])
        pd.testing.assert_frame_equal(a, b)
        assert a.iloc[:, 2].between(0, 1).all()


@settings(max_examples=60, deadline=None)
@given(
    lists=st.lists(st.lists(st.sampled_from(["yes", "no"]), min_size=1, max_size=8), min_size=1, max_size=6),
    seed=st.integers(0, 2**31 - 1),
)
def test_context_precision_order_free_bounded_and_local(lists, seed):
    rows = [(d, r + 1, v) for d, values in enumerate(lists) for r, v in enumerate(values)]
    frame = pd.DataFrame(rows, columns=["d", "r", "v"])
    table = context_precision(frame["d"], frame["v"], frame["r"])
    assert table["context_precision"].between(0, 1).all()
    shuffled = frame.sample(frac=1, random_state=seed)
    pd.testing.assert_frame_equal(table, context_precision(shuffled["d"], shuffled["v"], shuffled["r"]))
    # a datum's value depends only on its own rows
    for d, values in enumerate(lists):
        alone = context_precision([d] * len(values), values, range(1, len(values) + 1))
        assert alone["context_precision"].iloc[0] == table["context_precision"].iloc[d]


@st.composite
def correctness_rows(draw, first_datum: int, n_data: int):
    """Long answer-correctness rows of ``n_data`` data: per ground truth, every answer statement
    is a TP or an FP, plus some FN."""
    rows = []
    for d in range(first_datum, first_datum + n_data):
        n_pred = draw(st.integers(0, 4))
        for g in range(draw(st.integers(0, 3))):
            tp = draw(st.integers(0, n_pred))
            fn = draw(st.integers(0, 3))
            rows += [(d, g, k) for k in ["TP"] * tp + ["FP"] * (n_pred - tp) + ["FN"] * fn]
    return draw(st.permutations(rows))


@settings(max_examples=60, deadline=None)
@given(rows=correctness_rows(0, 5), extra=correctness_rows(5, 3))
def test_answer_correctness_bounded_and_local(rows, extra):
    assume(rows)
    frame = pd.DataFrame(rows, columns=["d", "g", "v"])
    both = pd.DataFrame(extra + rows, columns=["d", "g", "v"])
    alone = answer_correctness(frame["d"], frame["v"], ground_truth=frame["g"])
    together = answer_correctness(both["d"], both["v"], ground_truth=both["g"])
    assert alone["answer_correctness"].between(0, 1).all()
    pd.testing.assert_frame_equal(alone, together[together["datum"] <= 4].reset_index(drop=True))
