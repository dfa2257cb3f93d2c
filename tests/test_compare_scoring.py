"""``df.scoring.compare``: paired intervals and tests of two score columns on the same responses.

The two values are ``evaluate``'s; the closed-form tests equal statsmodels' and the published
examples; the intervals cover and the tests reject at their nominal rates on simulated data;
swapping the systems flips the sign, a system against itself differs by 0 with p = 1; dask gives
the pandas table (polars: ``tests/test_polars.py``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.contingency_tables import mcnemar

import pdmetrics
from pdmetrics.errors import ColumnNotFoundError, InvalidInputError
from pdmetrics.scoring.comparison import EXACT_BELOW, METRICS, mcnemar_test, williams_test

VALUES = ["baseline_value", "system_value", "difference", "ci_low", "ci_high", "p_value"]


def scores(n: int, seed: int = 0, noise=(1.0, 0.7), groups: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    human = rng.integers(1, 7, n).astype(float)
    frame = pd.DataFrame({"sc1": human})
    for name, sd in zip(["old", "new"], noise):
        frame[name] = human + rng.normal(0, sd, n)
    if groups:
        frame["g"] = rng.integers(0, groups, n).astype(str)
    return frame


def test_the_two_values_are_those_of_evaluate():
    df = scores(800, groups=3)
    df.loc[[3, 10], "old"] = np.nan  # left out of both systems, as evaluate does
    df.loc[5, "sc1"] = 0
    with pytest.warns(pdmetrics.ExcludedRowsWarning, match="Left out 3 of 800 rows"):
        table = df.scoring.compare(human="sc1", system=["old", "new"], n_resamples=50)
    with pytest.warns(pdmetrics.ExcludedRowsWarning, match="Left out 3 of 800 rows"):
        expected = df.scoring.evaluate(human="sc1", system=["old", "new"]).set_index("system")
    assert list(table["metric"]) == list(METRICS)
    for column, name in (("baseline_value", "old"), ("system_value", "new")):
        np.testing.assert_allclose(table[column], expected.loc[name, list(METRICS)].astype(float), rtol=1e-12)
    assert (table["N"] == 797).all()
    np.testing.assert_allclose(
        table["difference"], table["system_value"] - table["baseline_value"], rtol=1e-12
    )


def test_by_gives_the_pooled_rows_then_each_group_as_evaluate():
    df = scores(900, groups=3)
    table = df.scoring.compare(human="sc1", system=["old", "new"], by="g", n_resamples=50)
    expected = df.scoring.evaluate(human="sc1", system=["old", "new"], by="g")
    assert list(table.columns[:3]) == ["by", "group", "metric"]
    assert list(dict.fromkeys(table["group"])) == ["(all)", "0", "1", "2"]
    for _, row in table.iterrows():
        found = expected[(expected["group"] == row["group"]) & (expected["system"] == "new")]
        np.testing.assert_allclose(row["system_value"], found[row["metric"]].iloc[0], rtol=1e-12)


def test_a_system_against_itself_differs_by_zero_with_p_one():
    df = scores(400)
    df["copy"] = df["old"]
    table = df.scoring.compare(human="sc1", system=["old", "copy"], n_resamples=200)
    np.testing.assert_array_equal(table["difference"], 0.0)
    np.testing.assert_array_equal(table["p_value"], 1.0)
    np.testing.assert_allclose(table[["ci_low", "ci_high"]].to_numpy(), 0.0, atol=1e-12)


def test_swapping_the_systems_flips_the_sign_and_keeps_the_p_value():
    df = scores(500, seed=3)
    ab = df.scoring.compare(human="sc1", system=["old", "new"], n_resamples=300)
    ba = df.scoring.compare(human="sc1", system=["new", "old"], n_resamples=300)
    np.testing.assert_allclose(ba["difference"], -ab["difference"], rtol=1e-12)
    np.testing.assert_allclose(ba["ci_low"], -ab["ci_high"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ba["ci_high"], -ab["ci_low"], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ba["p_value"], ab["p_value"], rtol=1e-12)


def test_all_pairs_and_the_correction_equal_statsmodels():
    from statsmodels.stats.multitest import multipletests

    df = scores(600, seed=4)
    df["third"] = df["sc1"] + np.random.default_rng(9).normal(0, 0.85, len(df))
    table = df.scoring.compare(human="sc1", system=["old", "new", "third"], pairs="all", correction="holm")
    assert list(dict.fromkeys(zip(table["baseline"], table["system"]))) == [
        ("old", "new"),
        ("old", "third"),
        ("new", "third"),
    ]
    expected = multipletests(table["p_value"], method="holm")[1]
    np.testing.assert_allclose(table["p_adjusted"], expected, rtol=1e-12)
    baseline_only = df.scoring.compare(human="sc1", system=["old", "new", "third"], correction="fdr_bh")
    assert set(baseline_only["baseline"]) == {"old"}
    np.testing.assert_allclose(
        baseline_only["p_adjusted"], multipletests(baseline_only["p_value"], method="fdr_bh")[1], rtol=1e-12
    )


def test_dask_gives_the_pandas_table():
    dd = pytest.importorskip("dask.dataframe")
    df = scores(3000, seed=5, groups=4)
    df.loc[::7, "new"] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.ExcludedRowsWarning)
        expected = df.scoring.compare(human="sc1", system=["old", "new"], by="g", n_resamples=100)
        lazy = dd.from_pandas(df, npartitions=3).scoring.compare(
            human="sc1", system=["old", "new"], by="g", n_resamples=100, compute=False
        )
        result = lazy.compute()
    pd.testing.assert_frame_equal(result, expected, rtol=1e-12)


def test_rows_beyond_the_own_buckets_share_weights_and_still_partition():
    dd = pytest.importorskip("dask.dataframe")
    df = scores(70_000, seed=6)  # more rows than buckets with their own weights
    expected = df.scoring.compare(human="sc1", system=["old", "new"], n_resamples=30)
    result = dd.from_pandas(df, npartitions=4).scoring.compare(
        human="sc1", system=["old", "new"], n_resamples=30
    )
    pd.testing.assert_frame_equal(result, expected, rtol=1e-12)


# ----------------------------------------------------------------------------------------------
# the closed-form tests
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
def test_mcnemar_equals_statsmodels(seed):
    rng = np.random.default_rng(seed)
    only_a, only_b = rng.integers(0, 40, 2)
    both = rng.integers(0, 100, 2)
    n = only_a + only_b + both.sum()
    p, _, _, exact = mcnemar_test(only_a, only_b, n)
    expected = mcnemar([[both[0], only_a], [only_b, both[1]]], exact=bool(exact), correction=False).pvalue
    assert bool(exact) == (only_a + only_b < EXACT_BELOW)
    np.testing.assert_allclose(p, expected, rtol=1e-12)


def test_williams_equals_the_published_example():
    # Steiger (1980) as psych::r.test(n = 103, r12 = .4, r13 = .5, r23 = .1): t = 0.89, p = .37
    t, p, _, _ = williams_test(0.4, 0.5, 0.1, 103)
    assert round(float(t), 2) == 0.89 and round(float(p), 2) == 0.37


def test_exact_agreement_uses_mcnemar_on_the_responses_where_one_system_is_exact():
    df = scores(300, seed=7).round()
    table = df.scoring.compare(human="sc1", system=["old", "new"]).set_index("metric")
    only_old = int(((df.old == df.sc1) & (df.new != df.sc1)).sum())
    only_new = int(((df.new == df.sc1) & (df.old != df.sc1)).sum())
    exact = only_old + only_new < EXACT_BELOW
    expected = mcnemar([[0, only_old], [only_new, 0]], exact=exact, correction=False).pvalue
    np.testing.assert_allclose(table.loc["exact_agr", "p_value"], expected, rtol=1e-12)
    assert table.loc["exact_agr", "test"] == ("mcnemar_exact" if exact else "mcnemar_chi2")


# ----------------------------------------------------------------------------------------------
# valid, not just computed: simulated data sets as the groups of one table
# ----------------------------------------------------------------------------------------------
def simulated(n_sets: int, n: int, noise, seed: int) -> pd.DataFrame:
    frame = scores(n_sets * n, seed=seed, noise=noise)
    frame[["old", "new"]] = frame[["old", "new"]].round()  # whole-number systems: exact_agr varies
    frame["set"] = np.repeat(np.arange(n_sets), n)
    return frame


def test_the_intervals_cover_the_true_difference():
    noise = (1.0, 0.8)
    population = simulated(1, 2_000_000, noise, seed=11).scoring.evaluate(human="sc1", system=["old", "new"])
    truth = (
        population.set_index("system").loc["new", list(METRICS)]
        - population.set_index("system").loc["old", list(METRICS)]
    )
    table = simulated(400, 400, noise, seed=12).scoring.compare(
        human="sc1", system=["old", "new"], by="set", n_resamples=400
    )
    sets = table[table["group"] != "(all)"]
    for metric, rows in sets.groupby("metric"):
        covered = ((rows["ci_low"] <= truth[metric]) & (truth[metric] <= rows["ci_high"])).mean()
        assert 0.93 <= covered <= 0.97, (metric, covered)


def test_p_below_005_in_about_5_percent_of_data_sets_under_the_null():
    table = simulated(400, 400, (0.9, 0.9), seed=13).scoring.compare(
        human="sc1", system=["old", "new"], by="set", n_resamples=400
    )
    sets = table[table["group"] != "(all)"]
    for metric, rows in sets.groupby("metric"):
        rate = (rows["p_value"] < 0.05).mean()
        assert 0.025 <= rate <= 0.08, (metric, rate)


# ----------------------------------------------------------------------------------------------
# bad input: a clear error before any work
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"system": "old"}, "comparison needs two or more"),
        ({"system": ["old"]}, "comparison needs two or more"),
        ({"system": ["old", "missing"]}, "missing"),
        ({"pairs": "every"}, "`pairs='every'`"),
        ({"correction": "sidak2"}, "`correction='sidak2'`"),
        ({"n_resamples": 0}, "`n_resamples=0`"),
        ({"confidence": 1.5}, "`confidence=1.5`"),
        ({"random_state": "seed"}, "`random_state='seed'`"),
        ({"by": "nope"}, "nope"),
    ],
)
def test_bad_options_are_refused_naming_the_argument(kwargs, message):
    df = scores(50, groups=2)
    before = df.copy()
    options = {"human": "sc1", "system": ["old", "new"], **kwargs}
    with pytest.raises((InvalidInputError, ColumnNotFoundError), match=message):
        df.scoring.compare(**options)
    pd.testing.assert_frame_equal(df, before)


def test_no_usable_row_is_refused_as_evaluate_refuses_it():
    df = scores(10)
    df["new"] = np.nan
    with pytest.raises(InvalidInputError, match="no response can be evaluated"):
        df.scoring.compare(human="sc1", system=["old", "new"])


def test_one_row_and_a_constant_system_give_nan_not_a_crash():
    one = scores(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = one.scoring.compare(human="sc1", system=["old", "new"], n_resamples=20)
    assert len(table) == len(METRICS) and table.loc[table.metric == "corr", "p_value"].isna().all()
    constant = scores(200, seed=8)
    constant["new"] = 3.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = constant.scoring.compare(human="sc1", system=["old", "new"], n_resamples=50).set_index(
            "metric"
        )
    assert np.isnan(table.loc["corr", "system_value"]) and np.isnan(table.loc["corr", "p_value"])
    assert np.isfinite(table.loc["RMSE", "p_value"])


def test_the_result_does_not_depend_on_the_frame_s_index_or_other_columns():
    df = scores(300, seed=10)
    shuffled_index = df.set_axis(np.random.default_rng(0).permutation(300) * 7)
    shuffled_index["extra"] = "x"
    pd.testing.assert_frame_equal(
        df.scoring.compare(human="sc1", system=["old", "new"], n_resamples=100),
        shuffled_index.scoring.compare(human="sc1", system=["old", "new"], n_resamples=100),
    )


def test_a_second_human_adds_prmse_equal_to_the_true_score_table():
    from pdmetrics.datasets import simulate_scores

    df = simulate_scores(3000, seed=2)
    df["new"] = df["sc1"] + np.random.default_rng(1).normal(0, 0.6, len(df))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.ExcludedRowsWarning)
        table = df.scoring.compare(
            human="sc1", second_human="sc2", system=["raw", "new"], by="L1", n_resamples=100
        )
    used = df.dropna(subset=["raw", "new"])
    prmse = table[table["metric"] == "PRMSE"].set_index("group")
    assert list(table["metric"].unique()) == [*METRICS, "PRMSE"]
    for group, rows in [("(all)", used), *((g, used[used["L1"] == g]) for g in used["L1"].unique())]:
        expected = rows.scoring.true_score(system=["raw", "new"], raters=["sc1", "sc2"])["PRMSE true"]
        found = prmse.loc[group, ["baseline_value", "system_value"]].to_numpy(dtype=float)
        np.testing.assert_allclose(found, expected.to_numpy(dtype=float), rtol=1e-12)
    assert (prmse["test"] == "paired_bootstrap").all()
