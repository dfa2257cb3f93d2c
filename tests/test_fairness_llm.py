"""LLM evaluation tables: context association, LLM fairness, counterfactual, language accuracy, averages."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import assert_close, assert_frame_unchanged, conformance_path
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import pdmetrics  # noqa: F401
from pdmetrics.errors import ColumnNotFoundError, InvalidInputError, UndefinedMetricWarning
from pdmetrics.fairness import (
    average_metrics,
    classification,
    context_association,
    context_association_scores,
    counterfactual,
    language_accuracy,
    language_scores,
    parse_option,
)

pytestmark = pytest.mark.filterwarnings("error::pdmetrics.errors.PdmetricsWarning")


def _vectors() -> dict:
    return json.loads(conformance_path("fai3", "expected.json").read_text())


# --------------------------------------------------------------------------------------
# context association tests
# --------------------------------------------------------------------------------------
def _cat_frame(counts: dict, errors: int = 0) -> pd.DataFrame:
    """Rows whose answers produce the given counts; options shuffled per row."""
    rows = []
    permutations = [(1, 2, 3), (2, 3, 1), (3, 1, 2), (1, 3, 2)]
    kinds = (
        ["stereotype"] * counts["stereotype"]
        + ["anti_stereotype"] * counts["anti_stereotype"]
        + ["unrelated"] * counts["neutral"]
        + ["other"] * counts["other"]
        + ["error"] * errors
    )
    for i, kind in enumerate(kinds):
        st, an, un = permutations[i % 4]
        answer = {
            "stereotype": f" {st}. because",
            "anti_stereotype": f"<think>hmm 1</think>{an}",
            "unrelated": f"{un}\n",
            "other": "I cannot answer",
            "error": None,
        }[kind]
        rows.append({"answer": answer, "st": st, "an": an, "un": un, "failed": kind == "error"})
    return pd.DataFrame(rows, columns=["answer", "st", "an", "un", "failed"])


@pytest.mark.parametrize("index", range(5))
def test_context_association_vectors(index):
    case = _vectors()["context_association"][index]
    counts, expected = case["counts"], case["expected"]
    scores = context_association_scores(
        counts["stereotype"], counts["anti_stereotype"], counts["neutral"], counts["other"], np.nan
    )
    for name, value in expected.items():
        assert_close(scores[name], value, what=name)
    frame = _cat_frame(counts, errors=3)
    before = frame.copy()
    undefined_ss = counts["stereotype"] + counts["anti_stereotype"] == 0
    if undefined_ss:
        with pytest.warns(UndefinedMetricWarning, match="ss .no stereotypical or anti-stereotypical"):
            table = frame.fairness.context_association(
                response="answer", stereotype="st", anti_stereotype="an", unrelated="un", error="failed"
            )
    else:
        table = frame.fairness.context_association(
            response="answer", stereotype="st", anti_stereotype="an", unrelated="un", error="failed"
        )
    assert list(table.columns) == [
        "N",
        "N_error",
        "N_stereotype",
        "N_anti_stereotype",
        "N_unrelated",
        "N_other",
        "lms",
        "ss",
        "icat",
    ]
    assert table.loc[
        0, ["N_error", "N_stereotype", "N_anti_stereotype", "N_unrelated", "N_other"]
    ].tolist() == [3, counts["stereotype"], counts["anti_stereotype"], counts["neutral"], counts["other"]]
    for name, value in expected.items():
        assert_close(table.loc[0, name], value, what=name)
    assert_frame_unchanged(before, frame)


def test_parse_option_rules():
    responses = [
        "1",
        "  2  ",
        "\n3",
        "<think>I pick 2</think> 1",
        "<think>\nlong\n</think>\n\n3 is it",
        "4",
        "",
        "one",
        None,
        "12",
        "a1",
    ]
    assert parse_option(responses).tolist() == [1, 2, 3, 1, 3, 0, 0, 0, 0, 1, 0]


def test_context_association_by_group_and_errors():
    frame = pd.DataFrame(
        {
            "answer": ["1", "2", "3", "1", "x", "2"],
            "st": [1, 1, 1, 2, 2, 2],
            "an": [2, 2, 2, 1, 1, 1],
            "un": [3, 3, 3, 3, 3, 3],
            "bias": ["race", "race", "race", "gender", "gender", "gender"],
            "err": ["", None, "", "", "", "HTTP 500"],
        }
    )
    table = frame.fairness.context_association(
        response="answer", stereotype="st", anti_stereotype="an", unrelated="un", error="err", by="bias"
    )
    assert table["bias"].tolist() == ["gender", "race", "(all)"]
    assert table["N_error"].tolist() == [1, 0, 1]
    gender = table.iloc[0]
    assert (gender["N_stereotype"], gender["N_anti_stereotype"], gender["N_other"]) == (0, 1, 1)
    assert table.iloc[2]["N"] == 6


#: The column arguments of the context association items of :func:`_items`.
_ITEMS = dict(response="response", stereotype="st", anti_stereotype="an", unrelated="un")


def _items(response, stereotype, anti_stereotype, unrelated) -> pd.DataFrame:
    return pd.DataFrame({"response": response, "st": stereotype, "an": anti_stereotype, "un": unrelated})


def test_context_association_bad_options():
    with pytest.raises(InvalidInputError, match="same option number"):
        context_association(_items(["1"], [1], [1], [3]), **_ITEMS)
    with pytest.raises(InvalidInputError, match="1, 2 or 3"):
        context_association(_items(["1"], [1], [2], [4]), **_ITEMS)
    frame = pd.DataFrame({"answer": ["1"], "st": [1], "an": [2]})
    with pytest.raises(ColumnNotFoundError, match="unrelated='un'"):
        frame.fairness.context_association(
            response="answer", stereotype="st", anti_stereotype="an", unrelated="un"
        )


def test_context_association_empty_and_all_errors():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = context_association(_items([None, None], [1, 2], [2, 3], [3, 1]), **_ITEMS)
    messages = [str(w.message) for w in caught]
    assert any(m.startswith("lms (no answer without a call error)") for m in messages), messages
    assert all(len(m) < 300 for m in messages)
    assert table.loc[0, "N_error"] == 2 and table[["lms", "ss", "icat"]].isna().all(axis=None)


# --------------------------------------------------------------------------------------
# LLM fairness on the PISA sample
# --------------------------------------------------------------------------------------
@pytest.fixture
def pisa():
    frame = pd.read_csv(conformance_path("fai3", "pisa_curated.csv"), index_col=0)
    rng = np.random.default_rng(4)
    n = len(frame)
    flipped = np.where(frame["readingScore"] == "H", "L", "H")
    answer = np.where(rng.random(n) < 0.7, frame["readingScore"], flipped)
    answer = answer.astype(object)
    answer[[2, 7]] = ["<think>it depends</think>I don't know", " h "]  # invalid (case-sensitive)
    answer[[5, 11]] = [None, "L"]
    return frame.assign(
        answer=answer,
        failed=np.isin(np.arange(n), [11]),
        answer_cf=np.where(rng.random(n) < 0.8, answer, "H"),
    )


def test_llm_fairness_equals_classification_on_valid_answers(pisa):
    before = pisa.copy()
    table = pisa.fairness.llm_fairness(
        y_true="readingScore", response="answer", by="male", positive="H", negative="L", error="failed"
    )
    assert table.loc[0, ["N_invalid", "N_error"]].tolist() == [2, 2]
    kept = pisa.drop(index=pisa.index[[2, 5, 7, 11]])
    expected = classification(kept, y_true="readingScore", y_pred="answer", by="male", pos_label="H")
    shared = [c for c in expected.columns]
    pd.testing.assert_frame_equal(table[shared], expected, check_exact=False, rtol=1e-12)
    assert list(table.columns[:7]) == [
        "by",
        "N",
        "N_privileged",
        "N_unprivileged",
        "N_missing",
        "N_invalid",
        "N_error",
    ]
    assert_frame_unchanged(before, pisa)


def test_llm_fairness_errors(pisa):
    with pytest.raises(InvalidInputError, match="both"):
        pisa.fairness.llm_fairness(
            y_true="readingScore", response="answer", by="male", positive="H", negative="H"
        )
    with pytest.raises(InvalidInputError, match="never occurs"):
        pisa.fairness.llm_fairness(
            y_true="readingScore", response="answer", by="male", positive="High", negative="Low"
        )


# --------------------------------------------------------------------------------------
# counterfactual fairness
# --------------------------------------------------------------------------------------
def test_counterfactual_rules():
    """The document's rule, case by case."""
    original = ["H", "H", "L", "x", "x", "H", None, "L", " L "]
    twin = ["H", "L", "y", "y", "H", None, "H", "L", "L"]
    errors = [False, False, False, False, False, False, False, True, False]
    pairs = pd.DataFrame({"a": original, "b": twin, "failed": errors})
    table = counterfactual(pairs, prediction="a", counterfactual="b", valid=["H", "L"], error="failed")
    # counted: rows 0-4 and 8 (5: twin missing, 6: original missing, 7: error flag)
    # changed: 1 (both valid, differ), 2 (valid vs invalid), 4 (invalid vs valid);
    # unchanged: 0, 3 (both invalid, different texts), 8 (same after trimming)
    assert table.loc[0, ["N", "N_error", "N_changed"]].tolist() == [9, 3, 3]
    assert table.loc[0, "change_rate"] == 0.5


def test_counterfactual_by_group_matches_slow_reference(pisa):
    before = pisa.copy()
    table = pisa.fairness.counterfactual(
        prediction="answer", counterfactual="answer_cf", by="male", valid=["H", "L"], error="failed"
    )
    assert table["male"].tolist() == [0, 1, "(all)"]

    def slow(rows):
        counted = changed = 0
        for a, b, failed in rows:
            if pd.isna(a) or pd.isna(b) or failed:
                continue
            counted += 1
            va, vb = a.strip() in ("H", "L"), b.strip() in ("H", "L")
            changed += (va != vb) or (va and vb and a.strip() != b.strip())
        return counted, changed

    for i, value in enumerate([0, 1]):
        part = pisa[pisa.male == value]
        counted, changed = slow(zip(part.answer, part.answer_cf, part.failed))
        assert table.loc[i, "N"] - table.loc[i, "N_error"] == counted
        assert table.loc[i, "N_changed"] == changed
        assert_close(table.loc[i, "change_rate"], changed / counted)
    assert_frame_unchanged(before, pisa)


def test_counterfactual_all_errors_warns():
    with pytest.warns(UndefinedMetricWarning, match="change_rate"):
        table = counterfactual(pd.DataFrame({"a": [None], "b": ["H"]}), prediction="a", counterfactual="b")
    assert np.isnan(table.loc[0, "change_rate"])


# --------------------------------------------------------------------------------------
# language evaluations
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("index", range(5))
def test_language_vectors(index):
    case = _vectors()["language_evaluation"][index]
    scores = language_scores(case["correct"], case["incorrect"], case["invalid"], np.nan)
    for name, value in case["expected"].items():
        assert_close(scores[name], np.nan if value is None else value, what=name)
    # the same counts from responses
    kinds = (
        ["correct"] * case["correct"]
        + ["incorrect"] * case["incorrect"]
        + ["invalid"] * case["invalid"]
        + ["error"] * case["errors"]
    )
    text = {"correct": " paris", "incorrect": "Rome ", "invalid": "no idea", "error": None}
    frame = pd.DataFrame(
        {
            "response": [text[k] for k in kinds],
            "answer": "Paris",
            "options": [["Paris", "Rome", "Lyon"]] * len(kinds),
        }
    )
    undefined = any(v is None for v in case["expected"].values()) or case["correct"] + case["incorrect"] == 0
    if undefined:
        with pytest.warns(UndefinedMetricWarning, match="zero denominator.*zero_division=0"):
            table = frame.fairness.language_accuracy(response="response", answer="answer", options="options")
    else:
        table = frame.fairness.language_accuracy(response="response", answer="answer", options="options")
    assert table.loc[0, ["N", "N_error", "N_correct", "N_incorrect", "N_invalid"]].tolist() == [
        len(kinds),
        case["errors"],
        case["correct"],
        case["incorrect"],
        case["invalid"],
    ]
    for name, value in case["expected"].items():
        assert_close(table.loc[0, name], np.nan if value is None else value, what=name)


def test_language_by_language_and_fixed_options():
    frame = pd.DataFrame(
        {
            "lang": ["en", "en", "fr", "fr", "fr"],
            "response": ["B", "c", "b", "<think>?</think> a ", "z"],
            "answer": ["b", "b", "B", "A", "A"],
            "err": [False, False, False, False, True],
        }
    )
    before = frame.copy()
    table = frame.fairness.language_accuracy(
        response="response", answer="answer", options=["A", "B", "C"], error="err", by="lang"
    )
    assert_frame_unchanged(before, frame)
    assert table["lang"].tolist() == ["en", "fr", "(all)"]
    assert table[["N_correct", "N_incorrect", "N_invalid", "N_error"]].values.tolist() == [
        [1, 1, 0, 0],
        [2, 0, 0, 1],
        [3, 1, 0, 1],
    ]
    assert_close(table["accuracy_on_valid"], [0.5, 1.0, 0.75])


def test_language_ragged_options_column():
    frame = pd.DataFrame(
        {
            "response": ["x", "y", "q", None],
            "answer": ["x", "x", "x", "x"],
            "options": [["x", "y"], ["x", "y", "z"], [], ["x"]],
        }
    )
    table = language_accuracy(frame, response="response", answer="answer", options="options")
    assert table.loc[0, ["N_correct", "N_incorrect", "N_invalid", "N_error"]].tolist() == [1, 1, 1, 1]
    with pytest.raises(InvalidInputError, match="`options=` is required"):
        language_accuracy(frame, response="response", answer="answer", options=None)


# --------------------------------------------------------------------------------------
# averages across data sets
# --------------------------------------------------------------------------------------
def test_average_skips_undefined():
    tables = pd.DataFrame(
        {
            "dataset": ["pisa", "compas", "other"],
            "by": ["male", "race", "male"],
            "N": [19, 100, 7],
            "statistical_parity_difference": [-0.2, np.nan, 0.1],
            "accuracy": [0.7, 0.5, 0.6],
        }
    )
    before = tables.copy()
    out = tables.fairness.average_metrics()
    assert list(out.columns) == ["N", "statistical_parity_difference", "accuracy"]
    assert_close(out.loc[0, ["statistical_parity_difference", "accuracy"]].astype(float), [-0.05, 0.6])
    with pytest.warns(UndefinedMetricWarning, match="statistical_parity_difference"):
        grouped = tables.fairness.average_metrics(by="by")
    assert grouped["by"].tolist() == ["male", "race"] and grouped["N"].tolist() == [2, 1]
    with pytest.warns(UndefinedMetricWarning, match="statistical_parity_difference"):
        grouped = average_metrics(tables, metrics=["statistical_parity_difference"], by="by")
    assert np.isnan(grouped.loc[1, "statistical_parity_difference"])
    with pytest.raises(ColumnNotFoundError):
        tables.fairness.average_metrics(metrics=["nope"])
    assert_frame_unchanged(before, tables)


def test_average_of_real_tables(pisa):
    one = pisa.fairness.llm_fairness(
        y_true="readingScore", response="answer", by="male", positive="H", negative="L", error="failed"
    )
    two = pisa.fairness.llm_fairness(
        y_true="readingScore", response="answer_cf", by="male", positive="H", negative="L"
    )
    both = pd.concat([one.tail(1), two.tail(1)], ignore_index=True)
    out = both.fairness.average_metrics()
    assert_close(out.loc[0, "accuracy"], (one.loc[0, "accuracy"] + two.loc[0, "accuracy"]) / 2)
    assert "N_invalid" not in out.columns


# --------------------------------------------------------------------------------------
# review fixes
# --------------------------------------------------------------------------------------
def test_counterfactual_numeric_answers():
    """Numeric answers: 1.0 is the valid answer 1 (it used to be invalid, so nothing 'changed')."""
    pairs = pd.DataFrame({"a": [1.0, 0.0, 2.0, 1.0], "b": pd.Series([1.0, 1.0, 2.0, 1], dtype=object)})
    table = counterfactual(pairs, prediction="a", counterfactual="b", valid=[0, 1])
    # changed: row 1 (0 vs 1); unchanged: row 0, row 2 (both invalid), row 3 (1.0 and 1 are the same)
    assert table.loc[0, ["N", "N_error", "N_changed"]].tolist() == [4, 0, 1]


def test_counterfactual_core_function_ignores_the_frames_index():
    pairs = pd.DataFrame({"a": ["H", "L"], "b": ["H", "H"]}, index=[5, 6])
    table = counterfactual(pairs, prediction="a", counterfactual="b", valid=["H", "L"])
    assert table.loc[0, "N_changed"] == 1


def test_language_options_as_text_is_an_error():
    frame = pd.DataFrame(
        {"response": ["Paris", "Rome"], "answer": ["Paris", "Paris"], "options": ["Paris|Rome", "Paris|Rome"]}
    )
    with pytest.raises(InvalidInputError, match="str.split"):
        frame.fairness.language_accuracy(response="response", answer="answer", options="options")


def test_unhashable_error_flags_and_text_metric_columns_are_clear_errors():
    frame = pd.DataFrame({"answer": ["1", "2"], "st": [1, 2], "an": [2, 1], "un": [3, 3], "err": [[1], []]})
    with pytest.raises(InvalidInputError, match="error='err'"):
        frame.fairness.context_association(
            response="answer", stereotype="st", anti_stereotype="an", unrelated="un", error="err"
        )
    tables = pd.DataFrame({"dataset": ["a", "b"], "lms": [1.0, 2.0]})
    with pytest.raises(InvalidInputError, match="not numeric"):
        tables.fairness.average_metrics(metrics=["dataset"])


def test_language_core_function_pairs_rows_by_position():
    """Review: Series with different indexes used to raise pandas' 'identically-labeled' ValueError."""
    frame = pd.DataFrame({"response": ["a", "b"], "answer": ["a", "a"], "lang": ["x", "y"]}, index=[3, 4])
    table = language_accuracy(frame, response="response", answer="answer", options=["a", "b"], by="lang")
    assert table[["lang", "N_correct", "N_incorrect"]].values.tolist() == [
        ["x", 1, 0],
        ["y", 0, 1],
        ["(all)", 1, 1],
    ]


def test_llm_fairness_every_answer_invalid():
    """Review: the error used to say 'there are no rows' on a 4-row table of invalid answers."""
    frame = pd.DataFrame(
        {"y": ["H", "L", "H", "L"], "answer": ["?", "maybe", "x", None], "male": [1, 1, 0, 0]}
    )
    kwargs = dict(y_true="y", response="answer", by="male", positive="H", negative="L")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = frame.fairness.llm_fairness(**kwargs)
    assert any("invalid answers and call errors are left out" in str(w.message) for w in caught)
    assert table[["accuracy", "precision", "recall"]].isna().all(axis=None)
    with pytest.warns(UndefinedMetricWarning, match="both groups need rows"):
        table = frame.fairness.llm_fairness(**kwargs, zero_division=0)
    assert (table["accuracy"] == 0).all()
    assert table.loc[0, ["N", "N_invalid", "N_error"]].tolist() == [0, 3, 1]


# --------------------------------------------------------------------------------------
# properties: parsing and counting rules against slow, obviously-correct references
# --------------------------------------------------------------------------------------
_PIECES = ["1", "2", "3", "4", "x", " ", "\n", "\t", "<think>", "</think>", "2.", "Paris", "PARIS", "rome"]


def _slow_first_option(text):
    if text is None:
        return 0
    while "<think>" in text and "</think>" in text[text.index("<think>") :]:
        start = text.index("<think>")
        end = text.index("</think>", start) + len("</think>")
        text = text[:start] + text[end:]
    text = text.strip()
    return int(text[0]) if text[:1] in ("1", "2", "3") else 0


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.one_of(st.none(), st.lists(st.sampled_from(_PIECES), max_size=6).map("".join)), max_size=15)
)
def test_parse_option_matches_slow_reference(responses):
    assert parse_option(responses).tolist() == [_slow_first_option(r) for r in responses]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(st.none(), st.sampled_from(["Paris", " paris ", "ROME", "Lyon", "x"])),
            st.sampled_from(["Paris", "Rome"]),
            st.booleans(),
            st.sampled_from(["en", "fr"]),
        ),
        max_size=20,
    )
)
def test_language_counts_match_slow_reference(rows):
    frame = pd.DataFrame(rows, columns=["response", "answer", "failed", "lang"])
    options = ["Paris", "Rome"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        table = language_accuracy(
            frame, response="response", answer="answer", options=options, error="failed"
        )
    counts = {"N_error": 0, "N_correct": 0, "N_incorrect": 0, "N_invalid": 0}
    for response, answer, failed, _ in rows:
        if response is None or failed:
            counts["N_error"] += 1
        elif response.strip().lower() == answer.lower():
            counts["N_correct"] += 1
        elif response.strip().lower() in [o.lower() for o in options]:
            counts["N_incorrect"] += 1
        else:
            counts["N_invalid"] += 1
    assert table.loc[0, list(counts)].tolist() == list(counts.values())


def test_language_missing_answer_is_an_error_unless_the_call_failed():
    """Review: a missing correct answer used to count the response as incorrect, silently."""
    frame = pd.DataFrame(
        {
            "response": ["Paris", "Rome", None],
            "answer": ["Paris", None, None],
            "options": [["Paris", "Rome"]] * 3,
        }
    )
    with pytest.raises(InvalidInputError, match="answer='answer'.*1 row"):
        frame.fairness.language_accuracy(response="response", answer="answer", options="options")
    table = frame.iloc[[0, 2]].fairness.language_accuracy(
        response="response", answer="answer", options="options"
    )
    assert table.loc[0, ["N_correct", "N_error"]].tolist() == [1, 1]


# --------------------------------------------------------------------------------------
# issue 10: group names and values that look like result columns or the pooled label
# --------------------------------------------------------------------------------------
_LLM_TABLES = {
    "context_association": [
        "N",
        "N_error",
        "N_stereotype",
        "N_anti_stereotype",
        "N_unrelated",
        "N_other",
        "lms",
    ],
    "counterfactual": ["N", "N_error", "N_changed", "change_rate"],
    "language_accuracy": ["N", "N_error", "N_correct", "N_invalid", "overall_accuracy"],
}


def _call(method, frame, by):
    calls = {
        "context_association": lambda: frame.fairness.context_association(
            response="resp", stereotype="st", anti_stereotype="an", unrelated="un", by=by
        ),
        "counterfactual": lambda: frame.fairness.counterfactual(
            prediction="resp", counterfactual="cf", by=by
        ),
        "language_accuracy": lambda: frame.fairness.language_accuracy(
            response="resp", answer="ans", options=["1", "2", "3"], by=by
        ),
    }
    return calls[method]()


_ALL_NAMES = sorted({name for names in _LLM_TABLES.values() for name in names})


@settings(max_examples=60, deadline=None)
@given(
    method=st.sampled_from(sorted(_LLM_TABLES)),
    name=st.sampled_from([*_ALL_NAMES, "(all)", "g", "resp"]),
    values=st.lists(st.sampled_from([*_ALL_NAMES, "(all)", "a"]), min_size=3, max_size=9),
)
def test_llm_tables_names_and_values_never_collide(method, name, values):
    assume(name != "resp")  # the group column would replace the responses
    n = len(values)
    frame = pd.DataFrame(
        {
            "resp": (["1", "2", "3", "x"] * n)[:n],
            "cf": (["1", "1", "2"] * n)[:n],
            "st": 1,
            "an": 2,
            "un": 3,
            "ans": "1",
            name: values,
        }
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        if name in _LLM_TABLES[method]:
            with pytest.raises(InvalidInputError, match="column of the result table"):
                _call(method, frame, name)
        elif "(all)" in values:
            with pytest.raises(InvalidInputError, match="holds the value '\\(all\\)'"):
                _call(method, frame, name)
        else:
            table = _call(method, frame, name)
            assert table.columns.is_unique and table.columns[:2].tolist() == [name, "N"]
            assert table[name].tolist() == [*sorted(set(values)), "(all)"]
            assert table["N"].iloc[-1] == n and table["N"].iloc[:-1].sum() == n


def test_counterfactual_valid_must_be_a_list_of_answers():
    frame = pd.DataFrame({"a": ["H", "L"], "b": ["H", "H"]})
    for bad in (5, {"H": 1}, [["H"]]):
        with pytest.raises(InvalidInputError, match="`valid=.*list of valid answers"):
            frame.fairness.counterfactual(prediction="a", counterfactual="b", valid=bad)


def test_zero_division_number_fills_llm_tables():
    frame = pd.DataFrame({"resp": [None, "1"], "st": [1, 1], "an": [2, 2], "un": [3, 3], "g": ["a", "b"]})
    table = frame.fairness.context_association(
        response="resp", stereotype="st", anti_stereotype="an", unrelated="un", by="g", zero_division=0
    )
    assert table.loc[0, ["lms", "ss", "icat"]].tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(InvalidInputError, match="zero_division=None.*not an option"):
        frame.fairness.counterfactual(prediction="resp", counterfactual="resp", zero_division=None)
