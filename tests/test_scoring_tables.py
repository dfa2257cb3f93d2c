"""df.scoring: edge cases, bad input, invariants and agreement with slow references."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import assert_close, assert_frame_unchanged
from hypothesis import given, settings
from hypothesis import strategies as st

import pdmetrics
from pdmetrics import scoring
from pdmetrics.errors import ColumnNotFoundError, InvalidInputError


@pytest.fixture
def frame():
    rng = np.random.default_rng(1)
    n = 60
    human = rng.integers(1, 7, n).astype(float)
    return pd.DataFrame(
        {
            "sc1": human,
            "sc2": np.where(rng.random(n) < 0.5, np.nan, human),
            "raw": human + rng.normal(0, 0.7, n),
            "grade": rng.choice(["8", "9"], n),
        }
    )


# --------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------
def test_missing_column_names_argument_and_lists_columns(frame):
    with pytest.raises(ColumnNotFoundError, match=r"`system='score'`.*'sc1', 'sc2', 'raw'"):
        frame.scoring.evaluate(human="sc1", system="score")
    with pytest.raises(KeyError):
        frame.scoring.consistency(human="sc1", second_human="h2")


def test_strings_in_a_score_column_are_left_out_and_counted(frame):
    data = frame.astype({"sc1": object})
    data.loc[[0, 1], "sc1"] = "TD"
    before = data.copy()
    with pytest.warns(pdmetrics.ExcludedRowsWarning, match="2 with a missing or non-numeric human"):
        table = data.scoring.evaluate(human="sc1", system="raw")
    assert table.loc[0, "N"] == 58
    assert table.attrs["pdmetrics"]["excluded"]["missing_human"] == 2
    assert_frame_unchanged(before, data)


def test_column_with_no_numbers_is_an_error(frame):
    data = frame.assign(grade=["abc"] * len(frame))
    with pytest.raises(InvalidInputError, match=r"`system='grade'` has no numeric values \(e.g. 'abc'\)"):
        data.scoring.evaluate(human="sc1", system="grade")


def test_boolean_column_is_an_error(frame):
    with pytest.raises(InvalidInputError, match="boolean column"):
        frame.assign(flag=frame["sc1"] > 3).scoring.evaluate(human="sc1", system="flag")


def test_object_dtype_numbers_are_used(frame):
    as_objects = frame.assign(sc1=frame["sc1"].astype(str).astype(object))
    expected = frame.scoring.evaluate(human="sc1", system="raw")
    pd.testing.assert_frame_equal(as_objects.scoring.evaluate(human="sc1", system="raw"), expected)


def test_duplicate_column_names_are_an_error(frame):
    data = pd.concat([frame, frame[["raw"]]], axis=1)
    with pytest.raises(InvalidInputError, match="2 columns named 'raw'"):
        data.scoring.evaluate(human="sc1", system="raw")


def test_empty_after_exclusion_is_an_error(frame):
    with pytest.raises(InvalidInputError, match="No rows left to evaluate"):
        frame.assign(sc1=0.0).scoring.evaluate(human="sc1", system="raw")
    with pytest.raises(InvalidInputError, match="`system='raw'`: all 60 values are missing"):
        frame.assign(raw=np.nan).scoring.evaluate(human="sc1", system="raw")
    with pytest.raises(InvalidInputError, match="No rows left"):
        frame.iloc[:0].scoring.evaluate(human="sc1", system="raw")


def test_no_double_scored_rows_is_an_error(frame):
    with pytest.raises(InvalidInputError, match="`second_human='sc2'`: all 60 values are missing"):
        frame.assign(sc2=np.nan).scoring.consistency(human="sc1", second_human="sc2")
    with pytest.raises(InvalidInputError, match="No double-scored responses"):
        frame.assign(
            sc1=np.r_[np.zeros(30), np.ones(30)], sc2=np.r_[np.ones(30), np.full(30, np.nan)]
        ).scoring.consistency(human="sc1", second_human="sc2")


def test_bad_trim_arguments(frame):
    with pytest.raises(InvalidInputError, match=r"^trim_min \(6\) must be smaller than trim_max \(1\)"):
        frame.scoring.postprocess(system="raw", trim_min=6, trim_max=1)
    with pytest.raises(InvalidInputError, match="trim_max=None"):
        frame.scoring.postprocess(system="raw", trim_min=1, trim_max=None)
    with pytest.raises(InvalidInputError, match="needs `human=`"):
        frame.scoring.postprocess(system="raw", trim_min=1, trim_max=6, scale_with=frame)
    with pytest.raises(InvalidInputError, match="'asis', a training"):
        frame.scoring.postprocess(system="raw", trim_min=1, trim_max=6, scale_with="train.csv")
    with pytest.raises(InvalidInputError, match="SD 0.0"):
        frame.scoring.postprocess(
            system="raw", human="sc1", trim_min=1, trim_max=6, scale_with=frame.assign(raw=1.0)
        )


def test_length_mismatch_in_core_functions():
    with pytest.raises(InvalidInputError, match="3 values.*2"):
        scoring.pearson_r([1, 2, 3], [1, 2])
    with pytest.raises(InvalidInputError, match="must hold numbers"):
        scoring.pearson_r(["a", "b"], [1, 2])


# --------------------------------------------------------------------------------------
# edge cases
# --------------------------------------------------------------------------------------
def test_one_row_gives_nan_with_a_warning():
    data = pd.DataFrame({"h": [3.0], "s": [2.4]})
    with pytest.warns(pdmetrics.UndefinedMetricWarning, match="corr"):
        row = data.scoring.evaluate(human="h", system="s").iloc[0]
    assert row["N"] == 1 and np.isnan(row["corr"]) and row["adj_agr"] == 100.0


def test_constant_system_score():
    data = pd.DataFrame({"h": [1.0, 2, 3, 4], "s": [2.5] * 4})
    with pytest.warns(pdmetrics.UndefinedMetricWarning, match="corr"):
        row = data.scoring.evaluate(human="h", system="s").iloc[0]
    assert np.isnan(row["corr"]) and row["sys_sd"] == 0 and row["wtkappa"] == 0


def test_empty_core_input_is_nan_with_warning():
    with pytest.warns(pdmetrics.UndefinedMetricWarning, match="kappa"):
        assert np.isnan(scoring.cohen_kappa([], []))
    with pytest.warns(pdmetrics.UndefinedMetricWarning, match="QWK"):
        assert np.isnan(scoring.quadratic_weighted_kappa([], []))


def test_zero_scores_kept_when_asked(frame):
    data = frame.assign(sc1=frame["sc1"].where(frame.index % 10 != 0, 0.0))
    with pytest.warns(
        pdmetrics.ExcludedRowsWarning,
        match=r"Left out 6 of 60 rows: 6 with a human score of 0 .*exclude_zero=False",
    ):
        excluded = data.scoring.evaluate(human="sc1", system="raw")
    kept = data.scoring.evaluate(
        human="sc1", system="raw", exclude_zero=False
    )  # no warning: nothing left out
    assert excluded.loc[0, "N"] == 54 and kept.loc[0, "N"] == 60
    assert excluded.attrs["pdmetrics"]["excluded"]["zero_human"] == 6


def test_infinite_scores_are_left_out(frame):
    data = frame.assign(raw=frame["raw"].where(frame.index != 3, np.inf))
    with pytest.warns(pdmetrics.ExcludedRowsWarning, match="1 of 60 rows"):
        assert data.scoring.evaluate(human="sc1", system="raw").loc[0, "N"] == 59


def test_postprocess_returns_new_frame_and_keeps_nan(frame):
    data = frame.assign(raw=frame["raw"].where(frame.index != 0))
    before = data.copy()
    out = data.scoring.postprocess(system="raw", trim_min=1, trim_max=6, scale_with="asis")
    assert_frame_unchanged(before, data)
    assert list(out.columns[-5:]) == [
        "raw_trim",
        "raw_trim_round",
        "raw_scale",
        "raw_scale_trim",
        "raw_scale_trim_round",
    ]
    assert np.isnan(out.loc[0, "raw_trim_round"])
    assert (out["raw_trim"].dropna().between(0.5002, 6.4998)).all()
    again = out.scoring.postprocess(system="raw", trim_min=1, trim_max=6)  # re-running a cell is fine
    assert not again.columns.duplicated().any()
    pd.testing.assert_series_equal(again["raw_trim_round"], out["raw_trim_round"])


def test_postprocess_scale_with_frame_missing_column_names_the_training_frame(frame):
    train = frame.rename(columns={"sc1": "human"})
    with pytest.raises(ColumnNotFoundError, match=r"scale_with` training frame: `human='sc1'`.*'human'"):
        frame.scoring.postprocess(system="raw", trim_min=1, trim_max=6, human="sc1", scale_with=train)
    with pytest.raises(ColumnNotFoundError, match=r"scale_with` training frame: `system='raw'`"):
        frame.scoring.report(
            human="sc1", system="raw", trim_min=1, trim_max=6, scale_with=frame.drop(columns="raw")
        )


def test_every_accessor_call_leaves_the_frame_unchanged(frame):
    before = frame.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.PdmetricsWarning)
        frame.scoring.postprocess(system="raw", trim_min=1, trim_max=6, human="sc1", scale_with=frame)
        frame.scoring.evaluate(human="sc1", system=["raw", "sc2"])
        frame.scoring.consistency(human="sc1", second_human="sc2")
        frame.scoring.confusion_matrix(human="sc1", system="raw")
        frame.scoring.score_distribution(human="sc1", system="raw")
    assert_frame_unchanged(before, frame)


def test_table_layout(frame):
    table = frame.assign(other=frame["raw"] + 1).scoring.evaluate(human="sc1", system=["raw", "other"])
    assert list(table.columns) == ["system", *scoring.tables.EVAL_COLUMNS]
    assert isinstance(table.index, pd.RangeIndex)
    assert table["N"].dtype == np.int64
    assert list(table["system"]) == ["raw", "other"]


# --------------------------------------------------------------------------------------
# properties
# --------------------------------------------------------------------------------------
scores = st.lists(st.integers(1, 6), min_size=3, max_size=40)


def slow_cohen_kappa(h, s):
    """Textbook kappa over the full min..max label range (SKLL's definition)."""
    h = [int(round(x)) for x in h]
    s = [int(round(x)) for x in s]
    low, high = min(h + s), max(h + s)
    k = high - low + 1
    observed = np.zeros((k, k))
    for a, b in zip(h, s):
        observed[a - low, b - low] += 1
    observed /= len(h)
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    weights = 1 - np.eye(k)
    if not weights.any():
        return 1.0
    return 1 - (weights * observed).sum() / (weights * expected).sum()


@settings(max_examples=50, deadline=None)
@given(data=st.data(), n=st.integers(3, 40))
def test_kappa_matches_slow_reference(data, n):
    h = data.draw(st.lists(st.integers(-3, 6), min_size=n, max_size=n))
    s = data.draw(st.lists(st.integers(-3, 6), min_size=n, max_size=n))
    assert_close(scoring.cohen_kappa(h, s), slow_cohen_kappa(h, s))


@settings(max_examples=50, deadline=None)
@given(h=scores, noise=st.lists(st.floats(-2, 2), min_size=40, max_size=40), seed=st.integers(0, 10**6))
def test_evaluate_is_invariant_to_row_order_and_bounded(h, noise, seed):
    data = pd.DataFrame({"h": np.array(h, float), "s": np.array(h) + np.array(noise[: len(h)])})
    shuffled = data.sample(frac=1, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.UndefinedMetricWarning)
        a = data.scoring.evaluate(human="h", system="s")
        b = shuffled.scoring.evaluate(human="h", system="s")
    assert_close(
        a.drop(columns="system").to_numpy(float),
        b.drop(columns="system").to_numpy(float),
        rtol=1e-9,
        atol=1e-9,
    )
    row = a.iloc[0]
    assert 0 <= row["exact_agr"] <= row["adj_agr"] <= 100
    assert np.isnan(row["corr"]) or -1 <= row["corr"] <= 1
    assert row["R2"] <= 1


@settings(max_examples=50, deadline=None)
@given(h=scores, s=scores)
def test_metrics_agree_with_numpy_definitions(h, s):
    n = min(len(h), len(s))
    h, s = np.array(h[:n], float), np.array(s[:n], float)
    denominator = np.var(h) + np.var(s) + (h.mean() - s.mean()) ** 2
    if denominator > 0:
        expected = 2 * np.cov(h, s, ddof=0)[0, 1] / denominator
        assert_close(scoring.quadratic_weighted_kappa(h, s), expected, atol=1e-12)
    assert_close(scoring.root_mean_squared_error(h, s), np.sqrt(np.mean((h - s) ** 2)))
    if np.ptp(h) > 0 and np.ptp(s) > 0:
        assert_close(scoring.pearson_r(h, s), np.corrcoef(h, s)[0, 1], atol=1e-12)
    # symmetry: agreement and kappa do not depend on which side is "human"
    assert scoring.exact_agreement(h, s) == scoring.exact_agreement(s, h)
    assert_close(scoring.cohen_kappa(h, s), scoring.cohen_kappa(s, h))


@settings(max_examples=30, deadline=None)
@given(values=st.lists(st.floats(-10, 20, allow_nan=False), min_size=1, max_size=30))
def test_trim_and_round_bounds(values):
    trimmed = scoring.trim_scores(values, 1, 6)
    assert (trimmed >= 1 - 0.4998).all() and (trimmed <= 6 + 0.4998).all()
    rounded = scoring.round_scores(trimmed)
    assert set(np.unique(rounded)) <= {1.0, 2.0, 3.0, 4.0, 5.0, 6.0}


def test_scores_too_large_for_integer_labels_raise_a_clear_error(frame):
    # kappa and the confusion matrix round scores to integer labels; 1e20 would overflow int64
    data = frame.assign(raw=frame["raw"].where(frame.index != 5, 1e20))
    with pytest.raises(InvalidInputError, match=r"contains 1e\+20, too large to round"):
        data.scoring.evaluate(human="sc1", system="raw")
    with pytest.raises(InvalidInputError, match="too large to round"):
        data.scoring.confusion_matrix(human="sc1", system="raw")
    with pytest.raises(InvalidInputError, match="too large to round"):
        scoring.cohen_kappa([1, 2], [1, -1e300])
    trimmed = data.scoring.postprocess(system="raw", trim_min=1, trim_max=6)
    assert trimmed.scoring.evaluate(human="sc1", system="raw_trim_round").loc[0, "N"] == 60


@pytest.mark.parametrize("call", ["evaluate", "consistency", "confusion_matrix", "report"])
def test_exclude_zero_must_be_a_boolean(frame, call):
    arguments = {
        "evaluate": {"system": "raw"},
        "consistency": {"second_human": "sc2"},
        "confusion_matrix": {"system": "raw"},
        "report": {"system": "raw", "trim_min": 1, "trim_max": 6},
    }
    with pytest.raises(InvalidInputError, match="`exclude_zero='no'` must be True or False"):
        getattr(frame.scoring, call)(human="sc1", exclude_zero="no", **arguments[call])


# --------------------------------------------------------------------------------------
# issue 10: same column twice, plain messages, thin accessor over same-named core functions
# --------------------------------------------------------------------------------------
SAME_COLUMN_CALLS = {
    "evaluate": lambda df: df.scoring.evaluate(human="sc1", system=["raw", "sc1"]),
    "evaluate_by": lambda df: df.scoring.evaluate(human="sc1", system="sc1", by="grade"),
    "consistency": lambda df: df.scoring.consistency(human="sc1", second_human="sc1"),
    "degradation": lambda df: df.scoring.degradation(human="sc1", second_human="sc1", system="raw"),
    "disattenuated": lambda df: df.scoring.disattenuated_correlations(
        human="sc1", second_human="sc2", system="sc2"
    ),
    "confusion_matrix": lambda df: df.scoring.confusion_matrix(human="sc1", system="sc1"),
    "score_distribution": lambda df: df.scoring.score_distribution(human="sc1", system="sc1"),
    "true_score_rater_twice": lambda df: df.scoring.true_score(system="raw", raters=["sc1", "sc1"]),
    "true_score_system_rater": lambda df: df.scoring.true_score(system="sc1", raters=["sc1", "sc2"]),
    "report": lambda df: df.scoring.report(human="sc1", system="sc1", trim_min=1, trim_max=6),
    "report_second": lambda df: df.scoring.report(
        human="sc1", second_human="sc1", system="raw", trim_min=1, trim_max=6
    ),
    "core_evaluate": lambda df: scoring.evaluate(df, human="sc1", system=["raw", "sc1"]),
    "system_twice": lambda df: df.scoring.evaluate(human="sc1", system=["raw", "raw"]),
}


@pytest.mark.parametrize("call", SAME_COLUMN_CALLS, ids=list(SAME_COLUMN_CALLS))
def test_same_column_twice_is_refused(frame, call):
    """Today these reported perfect agreement of a column with itself."""
    with pytest.raises(InvalidInputError, match="'(sc1|sc2|raw)'.*(twice|more than once|itself)"):
        SAME_COLUMN_CALLS[call](frame)


def test_messages_print_plain_numbers(frame):
    with pytest.raises(InvalidInputError, match=r"^trim_min \(6\.5\) must be smaller than trim_max \(1\.5\)"):
        frame.scoring.postprocess(system="raw", trim_min=np.float64(6.5), trim_max=np.float64(1.5))
    with pytest.raises(InvalidInputError, match=r"^`exclude_zero=1` must be True or False"):
        frame.scoring.evaluate(human="sc1", system="raw", exclude_zero=np.int64(1))
    with pytest.raises(InvalidInputError, match=r"^`rater_error_variance=-1\.5` must be"):
        frame.scoring.true_score(system="raw", raters=["sc1"], rater_error_variance=np.float64(-1.5))
    with pytest.raises(InvalidInputError, match=r"^`scale_with=1\.5`: pass None"):
        frame.scoring.postprocess(system="raw", trim_min=1, trim_max=6, scale_with=np.float64(1.5))


def test_all_missing_column_is_named(frame):
    with pytest.raises(InvalidInputError, match="`system='empty'`: all 60 values are missing"):
        frame.assign(empty=np.nan).scoring.evaluate(human="sc1", system=["raw", "empty"])
    with pytest.raises(InvalidInputError, match="`human='sc1'` has no numeric values"):
        frame.assign(sc1="n/a").scoring.confusion_matrix(human="sc1", system="raw")
    with pytest.raises(InvalidInputError, match="`system='empty'`: all 60 values are missing"):
        frame.assign(empty=np.nan).scoring.true_score(system="empty", raters=["sc1", "sc2"])


def test_options_are_checked_before_any_work(frame):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ExcludedRowsWarning before the option error
        with pytest.raises(InvalidInputError, match="exclude_zero='no'"):
            frame.assign(raw=np.where(frame.index < 5, np.nan, frame["raw"])).scoring.true_score(
                system="raw", raters=["sc1", "sc2"], exclude_zero="no"
            )
        with pytest.raises(InvalidInputError, match="exclude_zero='no'"):
            frame.scoring.consistency(human="sc1", second_human="sc2", exclude_zero="no")


METHOD_CALLS = {
    "evaluate": lambda df, v: df.scoring.evaluate(human=v, system="raw"),
    "consistency": lambda df, v: df.scoring.consistency(human="sc1", second_human=v),
    "degradation": lambda df, v: df.scoring.degradation(human="sc1", second_human="sc2", system=v),
    "disattenuated": lambda df, v: df.scoring.disattenuated_correlations(
        human="sc1", second_human="sc2", system=v
    ),
    "confusion_matrix": lambda df, v: df.scoring.confusion_matrix(human="sc1", system=v),
    "score_distribution": lambda df, v: df.scoring.score_distribution(human=v, system="raw"),
    "postprocess": lambda df, v: df.scoring.postprocess(system=v, trim_min=1, trim_max=6),
    "true_score": lambda df, v: df.scoring.true_score(system="raw", raters=v),
    "by": lambda df, v: df.scoring.evaluate(human="sc1", system="raw", by=v),
}


@pytest.mark.parametrize("call", METHOD_CALLS, ids=list(METHOD_CALLS))
def test_series_where_a_name_is_expected_says_so(frame, call):
    with pytest.raises(InvalidInputError, match="takes a column name, not a Series"):
        METHOD_CALLS[call](frame, frame["sc2"])


def test_multiindex_columns_work_or_say_flatten(frame):
    wide = frame.copy()
    wide.columns = pd.MultiIndex.from_tuples([("s", c) for c in frame.columns])
    table = wide.scoring.evaluate(human=("s", "sc1"), system=[("s", "raw")])
    flat = frame.scoring.evaluate(human="sc1", system="raw")
    assert table["system"].tolist() == [("s", "raw")]
    pd.testing.assert_frame_equal(table.drop(columns="system"), flat.drop(columns="system"))
    matrix = wide.scoring.confusion_matrix(human=("s", "sc1"), system=("s", "raw"))
    assert matrix["N"].tolist() == frame.scoring.confusion_matrix(human="sc1", system="raw")["N"].tolist()
    with pytest.raises(InvalidInputError, match="flatten the columns first|Flatten the columns first"):
        wide.scoring.postprocess(system=("s", "raw"), trim_min=1, trim_max=6)
    with pytest.raises(InvalidInputError, match="Flatten the columns first"):
        wide.scoring.evaluate(human=("s", "sc1"), system=("s", "raw"), by=("s", "grade"))


def test_accessor_methods_are_thin_wrappers_over_same_named_core_functions(frame):
    pairs = [
        (
            lambda: frame.scoring.degradation(human="sc1", second_human="sc2", system="raw"),
            lambda: scoring.degradation(frame, human="sc1", second_human="sc2", system="raw"),
        ),
        (
            lambda: frame.scoring.disattenuated_correlations(
                human="sc1", second_human="sc2", system="raw", by="grade"
            ),
            lambda: scoring.disattenuated_correlations(
                frame, human="sc1", second_human="sc2", system="raw", by="grade"
            ),
        ),
        (
            lambda: frame.scoring.evaluate(human="sc1", system="raw", by="grade"),
            lambda: scoring.evaluate(frame, human="sc1", system="raw", by="grade"),
        ),
        (
            lambda: frame.scoring.true_score(system="raw", raters=["sc1", "sc2"]),
            lambda: scoring.true_score(frame, system="raw", raters=["sc1", "sc2"]),
        ),
        (
            lambda: frame.scoring.postprocess(system="raw", trim_min=1, trim_max=6),
            lambda: scoring.postprocess(frame, system="raw", trim_min=1, trim_max=6),
        ),
        (
            lambda: frame.scoring.weighted_score(features={"raw": 1.0, "sc1": 1.0}),
            lambda: scoring.weighted_score(frame, features={"raw": 1.0, "sc1": 1.0}),
        ),
    ]
    for method, core in pairs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pd.testing.assert_frame_equal(method(), core())


names_from_tables = st.sampled_from([*scoring.tables.EVAL_COLUMNS, "system", "(all)", "human", "N", "sc1"])


@settings(max_examples=40, deadline=None)
@given(human_name=names_from_tables, system_names=st.lists(names_from_tables, min_size=1, max_size=3))
def test_score_column_names_drawn_from_result_columns(human_name, system_names):
    """A score column named like a result column is a value of the ``system`` column, never a column."""
    rng = np.random.default_rng(0)
    h = rng.integers(1, 7, 30).astype(float)
    systems = {name: h + rng.normal(0, 0.5, 30) for name in system_names}
    frame = pd.DataFrame({human_name: h, **{name: systems[name] for name in systems if name != human_name}})
    if human_name in system_names or len(set(system_names)) < len(system_names):
        with pytest.raises(InvalidInputError, match="twice|both name|more than once"):
            scoring.evaluate(frame, human=human_name, system=system_names)
    else:
        table = scoring.evaluate(frame, human=human_name, system=system_names)
        assert list(table.columns) == ["system", *scoring.tables.EVAL_COLUMNS]
        assert table["system"].tolist() == system_names
        assert table["N"].tolist() == [30] * len(system_names)


@pytest.mark.parametrize("bad", ["a", "1", None, [1], np.nan])
def test_trim_bounds_that_are_not_numbers_are_a_clear_error(frame, bad):
    with pytest.raises(InvalidInputError, match="`trim_min=.*` must be a finite number"):
        frame.scoring.postprocess(system="raw", trim_min=bad, trim_max=6)
