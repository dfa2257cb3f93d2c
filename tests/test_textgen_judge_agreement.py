"""df.textgen.judge_agreement: the agreement statistics of a long verdict table.

The judges' and the runs' rows equal ``df.scoring.agreement`` on the wide tables a pandas
pivot gives (1e-12); the judge-vs-human kappa equals scikit-learn's ``cohen_kappa_score``; the
spread rows equal a pandas groupby; dask (3 partitions) and polars give the pandas table.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import pdmetrics
from pdmetrics.errors import ColumnNotFoundError, InvalidInputError
from pdmetrics.scoring.inter_rater import agreement
from pdmetrics.textgen.judges import JUDGE_AGREEMENT_COLUMNS, judge_agreement

JUDGES = ["gpt", "claude", "llama"]
COMPARED = ["statistic", "raters", "value", "N_items", "N_raters"]


def long_verdicts(seed: int = 0, n_data: int = 40, runs=(1, 2, 3), judges=JUDGES) -> pd.DataFrame:
    """One row per datum, judge and run: scores 1-4 that follow the human rating, with missing
    verdicts, (datum, judge) pairs never judged and a datum judged by one judge only."""
    rng = np.random.default_rng(seed)
    human = rng.integers(1, 5, n_data).astype(float)
    index = pd.MultiIndex.from_product([range(n_data), judges, runs], names=["datum", "judge", "run"])
    frame = index.to_frame(index=False)
    noise = rng.integers(-1, 2, len(frame)) * (rng.random(len(frame)) < 0.4)
    frame["verdict"] = np.clip(human[frame["datum"]] + noise, 1, 4)
    frame.loc[rng.random(len(frame)) < 0.1, "verdict"] = np.nan
    frame["human"] = human[frame["datum"]]
    frame.loc[frame["datum"] == 3, "human"] = np.nan  # a datum without a human rating
    never = (frame["datum"] % 7 == 1) & (frame["judge"] == judges[-1])  # pairs never judged
    only_one = (frame["datum"] == 5) & (frame["judge"] != judges[0])  # judged by one judge only
    frame = frame[~never & ~only_one]
    frame["datum"] = "d" + frame["datum"].astype(str)
    return frame.sample(frac=1, random_state=seed).reset_index(drop=True)


def run(frame, **options):
    options = {"datum": "datum", "judge": "judge", "verdict": "verdict", "n_resamples": 0, **options}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.UndefinedMetricWarning)
        return judge_agreement(frame, **options)


def reference(frame, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.UndefinedMetricWarning)
        return agreement(frame, n_resamples=0, **options)


def first_run_wide(frame: pd.DataFrame) -> pd.DataFrame:
    """Each judge's verdict of its first run with a verdict, one row per datum, and the human."""
    judged = frame.dropna(subset=["verdict"]).sort_values("run")
    wide = judged.groupby(["datum", "judge"])["verdict"].first().unstack("judge")
    human = frame.groupby("datum")["human"].first()
    return wide.join(human, how="outer").sort_index()


def rows(table: pd.DataFrame, comparison: str, judge=None) -> pd.DataFrame:
    found = table[(table["comparison"] == comparison) & ((table["judge"] == judge) if judge else True)]
    return found[COMPARED].reset_index(drop=True)


def assert_same(ours: pd.DataFrame, expected: pd.DataFrame) -> None:
    expected = expected[COMPARED].reset_index(drop=True)
    pd.testing.assert_frame_equal(ours, expected, rtol=1e-12, check_dtype=False)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_judges_rows_are_agreement_on_the_first_runs_pivot(level):
    frame = long_verdicts()
    table = run(frame, run="run", level=level)
    wide = first_run_wide(frame)
    assert_same(rows(table, "judges"), reference(wide, raters=sorted(JUDGES), level=level))
    assert list(table.columns) == JUDGE_AGREEMENT_COLUMNS


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_human_rows_are_agreement_of_the_pair(level):
    frame = long_verdicts(1)
    table = run(frame, run="run", human="human", level=level)
    wide = first_run_wide(frame)
    for judge in JUDGES:
        assert_same(rows(table, "human", judge), reference(wide, raters=["human", judge], level=level))


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_judge_against_human_kappa_is_scikit_learns(weights):
    metrics = pytest.importorskip("sklearn.metrics")
    frame = long_verdicts(2)
    table = run(frame, run="run", human="human", level="ordinal")
    wide = first_run_wide(frame)
    name = "cohen_kappa" if weights is None else f"cohen_kappa_{weights}"
    for judge in JUDGES:
        both = wide[["human", judge]].dropna()
        expected = metrics.cohen_kappa_score(both["human"], both[judge], weights=weights)
        pair = table[(table["comparison"] == "human") & (table["judge"] == judge)]
        found = pair[pair["statistic"] == name]
        assert found["value"].iloc[0] == pytest.approx(expected, abs=1e-12)
        assert found["N_items"].iloc[0] == len(both)
        agreeing = (both["human"] == both[judge]).mean()
        share = pair.loc[pair["statistic"] == "percent_agreement", "value"].iloc[0]
        assert share == pytest.approx(agreeing, abs=1e-12)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_runs_rows_are_agreement_over_the_runs_of_each_judge(level):
    frame = long_verdicts(3)
    table = run(frame, run="run", level=level)
    for judge in JUDGES:
        wide = frame[frame["judge"] == judge].pivot(index="datum", columns="run", values="verdict")
        expected = reference(wide.rename(columns=str), raters=["1", "2", "3"], level=level)
        assert_same(rows(table, "runs", judge), expected)


def test_spread_rows_are_the_groupby_of_the_per_run_rates():
    frame = long_verdicts(4)
    table = run(frame, run="run")
    per_run = frame.groupby(["judge", "run"])["verdict"].agg(["mean", "count"])
    spread = table[table["comparison"] == "spread"]
    rates = spread[spread["statistic"] == "verdict_rate"]
    np.testing.assert_allclose(rates["value"], per_run["mean"], rtol=1e-12)
    np.testing.assert_array_equal(rates["N_items"], per_run["count"])
    assert rates["raters"].tolist() == [str(r) for r in per_run.index.get_level_values("run")]
    summary = per_run["mean"].groupby("judge").agg(["mean", "std", "min", "max"])
    for statistic, column in [("mean", "mean"), ("sd", "std"), ("min", "min"), ("max", "max")]:
        found = spread[spread["statistic"] == f"verdict_rate_{statistic}"]
        assert found["judge"].tolist() == summary.index.tolist()
        np.testing.assert_allclose(found["value"], summary[column], rtol=1e-12)
    judged = frame.dropna(subset=["verdict"]).groupby("judge")["datum"].nunique()
    np.testing.assert_array_equal(spread[spread["statistic"] == "verdict_rate_mean"]["N_items"], judged)


def test_text_verdicts_rate_of_positive_and_none_without_it():
    frame = long_verdicts(5)
    frame["verdict"] = np.where(frame["verdict"].isna(), None, np.where(frame["verdict"] >= 3, "yes", "no"))
    table = run(frame, run="run", positive="yes")
    shares = frame.dropna(subset=["verdict"]).assign(hit=lambda f: f["verdict"] == "yes")
    expected = shares.groupby(["judge", "run"])["hit"].mean()
    got = table[table["statistic"] == "verdict_rate"]["value"]
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert "spread" not in set(run(frame, run="run")["comparison"])
    with pytest.raises(InvalidInputError, match="positive='Yes'"):
        run(frame, run="run", positive="Yes")


# ----------------------------------------------------------------------------------------------
# edge cases
# ----------------------------------------------------------------------------------------------
def test_one_judge_has_no_judges_rows():
    frame = long_verdicts(6, judges=["solo"])
    table = run(frame, run="run")
    assert set(table["comparison"]) == {"runs", "spread"}


def test_one_run_has_no_runs_rows_and_an_undefined_sd():
    frame = long_verdicts(7, runs=(1,))
    with pytest.warns(pdmetrics.UndefinedMetricWarning, match="verdict_rate_sd"):
        table = judge_agreement(frame, datum="datum", judge="judge", verdict="verdict", n_resamples=0)
    assert "runs" not in set(table["comparison"])
    sd = table[table["statistic"] == "verdict_rate_sd"]
    assert sd["value"].isna().all() and (sd["N_raters"] == 1).all()
    wide = first_run_wide(frame)
    assert_same(rows(table, "judges"), reference(wide, raters=sorted(JUDGES)))


def test_a_missing_verdict_is_not_judged_and_the_first_run_with_one_counts():
    frame = pd.DataFrame(
        {
            "datum": ["a", "a", "a", "a", "b", "b"],
            "judge": ["x", "x", "y", "y", "x", "y"],
            "run": [1, 2, 1, 2, 1, 1],
            "verdict": [np.nan, "no", "no", "yes", "yes", "yes"],
        }
    )
    table = run(frame, run="run")
    kappa = table[(table["comparison"] == "judges") & (table["statistic"] == "percent_agreement")]
    assert kappa["value"].iloc[0] == 1.0  # x's run 2 ("no") against y's run 1 ("no"); b agrees
    assert kappa["N_items"].iloc[0] == 2


def test_input_is_not_changed():
    frame = long_verdicts(8)
    before = frame.copy()
    run(frame, run="run", human="human")
    pd.testing.assert_frame_equal(frame, before)


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"verdict": "score"}, ColumnNotFoundError, "score"),
        ({"human": "sc1"}, ColumnNotFoundError, "sc1"),
        ({"run": "judge"}, InvalidInputError, "own column"),
        ({"level": "cardinal"}, InvalidInputError, "level"),
        ({"positive": ["yes"]}, InvalidInputError, "positive"),
    ],
)
def test_bad_arguments_are_named(options, error, match):
    with pytest.raises(error, match=match):
        run(long_verdicts(), **options)


def test_a_human_rating_that_varies_within_a_datum_is_an_error():
    frame = long_verdicts(9)
    frame.loc[frame.index[frame["datum"] == "d0"][0], "human"] = 99.0
    with pytest.raises(InvalidInputError, match="datum 'd0' has more than one human rating"):
        run(frame, run="run", human="human")


def test_repeated_verdicts_without_run_are_an_error():
    with pytest.raises(InvalidInputError, match="more than one verdict row.*run="):
        run(long_verdicts(10))


def test_missing_labels_and_no_verdicts_are_errors():
    frame = long_verdicts(11)
    with pytest.raises(InvalidInputError, match="missing judge label"):
        run(frame.assign(judge=frame["judge"].where(frame.index != 3)), run="run")
    with pytest.raises(InvalidInputError, match="missing datum label"):
        run(frame.assign(datum=frame["datum"].where(frame.index != 3)), run="run")
    with pytest.raises(InvalidInputError, match="holds no verdict"):
        run(frame.assign(verdict=np.nan), run="run")
    with pytest.raises(InvalidInputError, match="holds no verdict"):
        run(frame.iloc[:0], run="run")


def test_text_verdicts_need_the_nominal_level():
    frame = long_verdicts(12).assign(verdict="yes")
    with pytest.raises(InvalidInputError, match="`verdict` column 'verdict'"):
        run(frame, run="run", level="ordinal")


# ----------------------------------------------------------------------------------------------
# engines, intervals
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("level", ["nominal", "interval"])
def test_dask_and_polars_give_the_pandas_table(level):
    frame = long_verdicts(13)
    options = {"run": "run", "human": "human", "level": level, "n_resamples": 40}
    expected = run(frame, **options)
    assert expected["ci_low"].notna().any()
    dd = pytest.importorskip("dask.dataframe")
    got = run(dd.from_pandas(frame, npartitions=3), **options)
    got = got.compute() if hasattr(got, "compute") else got
    pd.testing.assert_frame_equal(got.reset_index(drop=True), expected, rtol=1e-12)
    pl = pytest.importorskip("polars")
    got = run(pl.from_pandas(frame), **options)
    got = got.to_pandas() if hasattr(got, "to_pandas") else got
    expected = expected.assign(judge=expected["judge"].astype(str))
    pd.testing.assert_frame_equal(got, expected, rtol=1e-12, check_dtype=False)


def test_the_rows_order_does_not_change_the_table():
    frame = long_verdicts(14)
    options = {"run": "run", "human": "human", "level": "ordinal", "n_resamples": 30}
    expected = run(frame, **options)
    shuffled = frame.sample(frac=1, random_state=1).reset_index(drop=True)
    pd.testing.assert_frame_equal(run(shuffled, **options), expected, rtol=1e-12)


def test_the_accessor_is_the_core_function():
    frame = long_verdicts(15)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.UndefinedMetricWarning)
        got = frame.textgen.judge_agreement(
            datum="datum", judge="judge", verdict="verdict", run="run", n_resamples=0
        )
    pd.testing.assert_frame_equal(got, run(frame, run="run"))


def test_dask_with_empty_partitions_and_text_verdicts():
    dd = pytest.importorskip("dask.dataframe")
    frame = long_verdicts(16, n_data=4)
    frame["verdict"] = np.where(frame["verdict"].isna(), None, np.where(frame["verdict"] >= 3, "yes", "no"))
    frame["human"] = np.where(frame["human"] >= 3, "yes", "no")
    options = {"run": "run", "human": "human", "positive": "yes", "n_resamples": 30}
    expected = run(frame, **options)
    got = run(dd.from_pandas(frame, npartitions=8), **options)
    got = got.compute() if hasattr(got, "compute") else got
    pd.testing.assert_frame_equal(got.reset_index(drop=True), expected, rtol=1e-12)


verdict_tables = st.lists(
    st.tuples(
        st.integers(0, 8),  # datum
        st.sampled_from(["a", "b", "c"]),  # judge
        st.integers(1, 3),  # run
        st.one_of(st.none(), st.integers(0, 3)),  # verdict
    ),
    min_size=1,
    max_size=60,
    unique_by=lambda row: row[:3],
)


@settings(max_examples=60, deadline=None)
@given(
    rows=verdict_tables,
    cut=st.lists(st.integers(0, 8), max_size=3),
    level=st.sampled_from(["nominal", "ordinal"]),
)
def test_any_split_by_datum_combines_to_the_whole(rows, cut, level):
    """Parts that see different judges, runs and verdicts combine to the whole table's state."""
    frame = pd.DataFrame(rows, columns=["datum", "judge", "run", "verdict"]).astype({"verdict": "float64"})
    frame["human"] = (frame["datum"] % 3).astype("float64")
    assume(frame["verdict"].notna().any())
    options = {"datum": "datum", "judge": "judge", "verdict": "verdict", "run": "run", "human": "human"}
    spec = judge_agreement.spec(frame, **options, level=level, n_resamples=20)
    part = np.searchsorted(np.sort(cut), frame["datum"].to_numpy(), side="right")
    states = [spec.chunk(frame[part == p]) for p in np.unique(part)]
    combined = states[0]
    for state in states[1:]:
        combined = combined.combine(state)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.UndefinedMetricWarning)
        pd.testing.assert_frame_equal(spec.finalize(combined), spec.run(frame), rtol=1e-12)
