"""``df.fairness.score_distributions``: continuous scores by group.

KS statistic and p-value equal ``scipy.stats.ks_2samp`` (two-sided, ``method="auto"``: the same
exact-or-asymptotic choice), the Wasserstein distance ``scipy.stats.wasserstein_distance``, the
per-group ROC AUC ``sklearn.metrics.roc_auc_score`` and the reliability curve
``sklearn.calibration.calibration_curve(strategy="uniform")``, to 1e-12, on random data with
ties and heavy duplicates; dask (3 partitions) and polars give the pandas table.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.calibration import calibration_curve
from sklearn.metrics import roc_auc_score

import pdmetrics  # noqa: F401
from pdmetrics import ColumnNotFoundError, ExcludedRowsWarning, InvalidInputError, UndefinedMetricWarning
from pdmetrics.fairness import score_distributions
from pdmetrics.fairness.score_groups import score_distributions_from_state, score_state

TOL = {"rtol": 1e-12, "atol": 1e-12}


def scored(n: int = 600, seed: int = 0, distinct: int | None = None) -> pd.DataFrame:
    """Scores in [0, 1] (rounded to ``distinct`` levels for ties), labels and two group columns."""
    rng = np.random.default_rng(seed)
    group = rng.choice(["a", "b", "c", "d"], n, p=[0.4, 0.3, 0.2, 0.1])
    shift = pd.Series(group).map({"a": 0.0, "b": 0.05, "c": 0.1, "d": -0.1}).to_numpy()
    p = np.clip(rng.beta(2, 3, n) + shift, 0, 1)
    if distinct is not None:
        p = np.round(p * distinct) / distinct
    y = (rng.random(n) < p).astype(int)
    return pd.DataFrame({"p": p, "y": y, "g": group, "k": rng.integers(0, 3, n)})


def reference_rows(df, column, against="reference", base=None):
    """The groups table's numbers from scipy and scikit-learn, one group at a time."""
    groups = sorted(df[column].dropna().unique())
    sizes = df[column].value_counts()
    base = base if base is not None else sorted(groups, key=lambda g: (-sizes[g], g))[0]
    rows = []
    for g in groups:
        mine = df.loc[df[column] == g]
        other = df.loc[df[column] == base] if against == "reference" else df.loc[df[column] != g]
        other = other[other[column].notna()]
        ks = stats.ks_2samp(mine["p"].to_numpy(), other["p"].to_numpy())
        auc = roc_auc_score(mine["y"], mine["p"]) if mine["y"].nunique() == 2 else np.nan
        rows.append(
            {
                "group": g,
                "N": len(mine),
                "ks_statistic": float(ks.statistic),
                "ks_pvalue": float(ks.pvalue),
                "wasserstein": stats.wasserstein_distance(mine["p"], other["p"]),
                "roc_auc": auc,
                "ece": ece(mine["y"].to_numpy(), mine["p"].to_numpy(), 10),
            }
        )
    return pd.DataFrame(rows)


def ece(y, p, n_bins):
    """ECE from sklearn's calibration curve bins: sum (n_bin / n) |rate - mean score|."""
    edges = np.linspace(0, 1, n_bins + 1)
    which = np.searchsorted(edges[1:-1], p)
    n = np.bincount(which, minlength=n_bins)
    true, pred = calibration_curve(y, p, n_bins=n_bins, strategy="uniform")
    return float(np.sum(n[n > 0] / len(p) * np.abs(true - pred)))


@pytest.mark.parametrize("distinct", [None, 20, 3])
@pytest.mark.parametrize("against", ["reference", "rest"])
def test_equals_scipy_and_sklearn_per_group(distinct, against):
    df = scored(700, seed=distinct or 1, distinct=distinct)
    table = score_distributions(df, score="p", by="g", y_true="y", against=against)
    expected = reference_rows(df, "g", against)
    mine = table[table["by"] == "g"].reset_index(drop=True)
    assert mine["group"].tolist() == expected["group"].tolist()
    assert mine["N"].tolist() == expected["N"].tolist()
    for name in ("ks_statistic", "ks_pvalue", "wasserstein", "roc_auc", "ece"):
        np.testing.assert_allclose(
            mine[name].to_numpy(float), expected[name].to_numpy(float), **TOL, err_msg=name
        )
    pooled = table.iloc[-1]
    assert pooled["by"] == pooled["group"] == "(all)"
    assert pooled["roc_auc"] == pytest.approx(roc_auc_score(df["y"], df["p"]), rel=1e-12)
    assert pooled["ece"] == pytest.approx(ece(df["y"].to_numpy(), df["p"].to_numpy(), 10), rel=1e-12)
    assert np.isnan(pooled["ks_statistic"]) and pd.isna(pooled["N_reference"])


def test_columns_and_reference_choice():
    df = scored(300)
    table = score_distributions(df, score="p", by=["g", "k"], y_true="y", base_group={"k": 2})
    assert list(table.columns) == [
        "by", "group", "N", "N_positive", "score_mean", "reference", "N_reference", "ks_statistic",
        "ks_pvalue", "ks_method", "wasserstein", "roc_auc", "ece",
    ]  # fmt: skip
    assert table.loc[table["by"] == "g", "reference"].unique().tolist() == ["a"]  # the largest group
    assert table.loc[table["by"] == "k", "reference"].unique().tolist() == [2]
    k = table[table["by"] == "k"].reset_index(drop=True)
    expected = reference_rows(df, "k", base=2)
    np.testing.assert_allclose(k["ks_pvalue"].to_numpy(float), expected["ks_pvalue"], **TOL)
    rest = score_distributions(df, score="p", by="g", against="rest")
    assert rest["reference"].iloc[0] == "(rest)"
    assert "roc_auc" not in rest.columns and "N_positive" not in rest.columns


def test_exact_and_asymptotic_p_values_follow_scipys_auto_choice():
    rng = np.random.default_rng(3)
    sizes = {"a": 12_000, "b": 9_000, "c": 300}
    df = pd.DataFrame(
        {"p": np.round(rng.random(21_300), 3), "g": np.repeat(list(sizes), list(sizes.values()))}
    )
    table = score_distributions(df, score="p", by="g", base_group="b")
    methods = dict(zip(table["group"], table["ks_method"]))
    assert methods == {"a": "asymp", "b": "exact", "c": "exact", "(all)": None}
    for g in sizes:
        ks = stats.ks_2samp(df.loc[df.g == g, "p"], df.loc[df.g == "b", "p"])
        row = table[table["group"] == g].iloc[0]
        assert row["ks_statistic"] == pytest.approx(ks.statistic, rel=1e-12, abs=1e-15)
        assert row["ks_pvalue"] == pytest.approx(ks.pvalue, rel=1e-12, abs=1e-300)


def test_reliability_table_equals_calibration_curve():
    df = scored(500, seed=4)
    curve = score_distributions(df, score="p", by="g", y_true="y", n_bins=8, table="reliability")
    assert list(curve.columns) == [
        "by",
        "group",
        "bin",
        "bin_low",
        "bin_high",
        "N",
        "score_mean",
        "observed_rate",
    ]
    for g, rows in curve[curve["by"] == "g"].groupby("group"):
        mine = df[df["g"] == g]
        true, pred = calibration_curve(mine["y"], mine["p"], n_bins=8, strategy="uniform")
        kept = rows[rows["N"] > 0]
        np.testing.assert_allclose(kept["observed_rate"], true, **TOL)
        np.testing.assert_allclose(kept["score_mean"], pred, **TOL)
        assert rows["N"].sum() == len(mine)
    assert (curve.groupby("group").size() == 8).all()


def test_cdf_table_is_each_groups_ecdf():
    df = scored(200, seed=5, distinct=10)
    cdf = score_distributions(df, score="p", by="g", table="cdf")
    for g, rows in cdf[cdf["by"] == "g"].groupby("group"):
        values = np.sort(df.loc[df.g == g, "p"].to_numpy())
        np.testing.assert_array_equal(rows["score"], np.unique(values))
        np.testing.assert_allclose(
            rows["cdf"], np.searchsorted(values, rows["score"], side="right") / values.size
        )


# ------------------------------------------------------------------------------------------
# properties
# ------------------------------------------------------------------------------------------
samples = st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.7, 1.0, 0.33]), min_size=1, max_size=30)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(samples, samples)
def test_ks_in_unit_interval_and_symmetric(a, b):
    df = pd.DataFrame({"p": a + b, "g": ["a"] * len(a) + ["b"] * len(b)})
    ab = score_distributions(df, score="p", by="g", base_group="a").iloc[1]
    ba = score_distributions(df, score="p", by="g", base_group="b").iloc[0]
    assert 0 <= ab["ks_statistic"] <= 1
    assert ab["ks_statistic"] == ba["ks_statistic"] and ab["ks_pvalue"] == ba["ks_pvalue"]
    assert ab["wasserstein"] == pytest.approx(ba["wasserstein"], abs=1e-15)
    with warnings.catch_warnings():  # scipy's exact recursion may fall back to asymp, and warn
        warnings.simplefilter("ignore", RuntimeWarning)
        ks = stats.ks_2samp(b, a)
    assert ab["ks_statistic"] == pytest.approx(ks.statistic, abs=1e-15)
    assert ab["ks_pvalue"] == pytest.approx(ks.pvalue, rel=1e-12, abs=1e-300)
    assert ab["wasserstein"] == pytest.approx(stats.wasserstein_distance(b, a), abs=1e-14)


def test_scipys_fallback_from_the_exact_method_is_reported():
    df = pd.DataFrame({"p": [0.0] * 9 + [0.1], "g": ["a"] * 5 + ["b"] * 5})
    row = score_distributions(df, score="p", by="g", base_group="a").iloc[1]
    with pytest.warns(RuntimeWarning, match="Exact calculation unsuccessful"):
        ks = stats.ks_2samp(df.p[5:], df.p[:5])
    assert row["ks_method"] == "asymp" and row["ks_pvalue"] == pytest.approx(ks.pvalue, rel=1e-12)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(samples, st.integers(1, 4))
def test_identical_distributions_have_zero_distance(a, copies):
    df = pd.DataFrame({"p": a * (copies + 1), "g": ["a"] * len(a) + ["b"] * (len(a) * copies)})
    row = score_distributions(df, score="p", by="g", base_group="a").iloc[1]
    assert row["ks_statistic"] == 0 and row["wasserstein"] == 0 and row["ks_pvalue"] == 1


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.lists(st.integers(1, 299), min_size=1, max_size=4, unique=True))
def test_any_partition_gives_the_same_table(seed, cuts):
    df = scored(300, seed=seed, distinct=7)
    options = {"score": "p", "by": ["g", "k"], "y_true": "y"}
    whole = score_distributions(df, **options)
    bounds = [0, *sorted(cuts), len(df)]
    states = [score_state(df["p"].iloc[a:b], [df["g"].iloc[a:b], df["k"].iloc[a:b]], df["y"].iloc[a:b])
              for a, b in zip(bounds, bounds[1:])]  # fmt: skip
    state = states[0]
    for other in states[1:]:
        state = state.combine(other)
    parts = score_distributions_from_state(
        state, labelled=True, base_group=None, against="reference", n_bins=10, table="groups"
    )
    pd.testing.assert_frame_equal(whole, parts, check_exact=False, rtol=1e-12, atol=1e-14)


# ------------------------------------------------------------------------------------------
# engines
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("table", ["groups", "reliability", "cdf"])
def test_dask_and_polars_give_the_pandas_table(table):
    df = scored(900, seed=8, distinct=50)
    df.loc[::37, "p"] = np.nan
    options = {"score": "p", "by": ["g", "k"], "y_true": "y", "table": table}
    with pytest.warns(ExcludedRowsWarning, match="score is missing"):
        expected = df.fairness.score_distributions(**options)
    dd = pytest.importorskip("dask.dataframe")
    with pytest.warns(ExcludedRowsWarning, match="score is missing"):
        on_dask = dd.from_pandas(df, npartitions=3).fairness.score_distributions(**options)
    pd.testing.assert_frame_equal(on_dask, expected, check_exact=False, rtol=1e-12, atol=1e-14)
    pl = pytest.importorskip("polars")
    from test_polars import assert_same  # labels of several types arrive as text from polars

    with pytest.warns(ExcludedRowsWarning, match="score is missing"):
        assert_same(pl.from_pandas(df).fairness.score_distributions(**options), expected)


def test_dask_groups_in_one_partition_only_and_categorical_groups():
    dd = pytest.importorskip("dask.dataframe")
    df = scored(600, seed=9, distinct=30).sort_values("g", kind="stable").reset_index(drop=True)
    df["cat"] = pd.Categorical(df["g"], categories=["d", "c", "b", "a"])
    options = {"score": "p", "by": ["g", "cat"], "y_true": "y", "against": "rest"}
    expected = df.fairness.score_distributions(**options)
    assert expected.loc[expected["by"] == "cat", "group"].tolist() == ["d", "c", "b", "a"]
    on_dask = dd.from_pandas(df, npartitions=3).fairness.score_distributions(**options)
    pd.testing.assert_frame_equal(on_dask, expected, check_exact=False, rtol=1e-12, atol=1e-14)


# ------------------------------------------------------------------------------------------
# edge cases
# ------------------------------------------------------------------------------------------
def test_one_row_group_and_constant_scores():
    df = pd.DataFrame({"p": [0.5, 0.5, 0.5, 0.2], "y": [0, 1, 1, 0], "g": ["a", "a", "a", "b"]})
    with pytest.warns(UndefinedMetricWarning, match="one class only"):
        table = score_distributions(df, score="p", by="g", y_true="y")
    b = table.iloc[1]
    ks = stats.ks_2samp([0.2], [0.5, 0.5, 0.5])
    assert (b["N"], b["ks_statistic"], b["ks_pvalue"]) == (
        1,
        ks.statistic,
        pytest.approx(ks.pvalue, rel=1e-12),
    )
    assert b["wasserstein"] == pytest.approx(0.3, rel=1e-12)
    assert table.iloc[0]["roc_auc"] == 0.5  # constant scores: every pair tied
    assert np.isnan(b["roc_auc"])  # one class


def test_nan_scores_are_left_out_and_an_emptied_group_is_nan():
    df = pd.DataFrame({"p": [0.1, 0.4, np.nan, np.nan], "g": ["a", "a", "b", "b"]})
    with pytest.warns(ExcludedRowsWarning, match="2 of 4 rows left out: the score is missing"):
        with pytest.warns(UndefinedMetricWarning, match="b'.*empty group"):
            table = score_distributions(df, score="p", by="g")
    assert table["N"].tolist() == [2, 0, 2]
    assert np.isnan(table.loc[1, "ks_statistic"]) and np.isnan(table.loc[1, "wasserstein"])


def test_one_group_against_the_rest_is_nan():
    df = pd.DataFrame({"p": [0.1, 0.4], "g": ["a", "a"]})
    with pytest.warns(UndefinedMetricWarning, match="nothing to compare with"):
        table = score_distributions(df, score="p", by="g", against="rest")
    assert np.isnan(table.loc[0, "ks_pvalue"])


def test_missing_group_values_count_in_the_pooled_row_only():
    df = pd.DataFrame({"p": [0.1, 0.4, 0.3], "g": ["a", None, "b"]})
    with pytest.warns(ExcludedRowsWarning, match="group value of 'g' is missing"):
        table = score_distributions(df, score="p", by="g")
    assert table["N"].tolist() == [1, 1, 3]


def test_wrong_inputs_give_clear_errors():
    df = scored(400)
    with pytest.raises(ColumnNotFoundError, match="score"):
        score_distributions(df, score="nope", by="g")
    with pytest.raises(InvalidInputError, match="no numeric values"):
        score_distributions(df.assign(p="x"), score="p", by="g")
    with pytest.raises(InvalidInputError, match=r"`score='p'` holds \d\.\d+, outside \[0, 1\].*n_bins=None"):
        score_distributions(df.assign(p=df["p"] * 3), score="p", by="g", y_true="y")
    free = score_distributions(df.assign(p=df["p"] * 3), score="p", by="g", y_true="y", n_bins=None)
    assert "ece" not in free.columns and free["roc_auc"].notna().all()
    with pytest.raises(InvalidInputError, match="base_group='z'"):
        score_distributions(df, score="p", by="g", base_group="z")
    with pytest.raises(InvalidInputError, match="against='both'"):
        score_distributions(df, score="p", by="g", against="both")
    with pytest.raises(InvalidInputError, match="table='reliability'"):
        score_distributions(df, score="p", by="g", table="reliability")
    with pytest.raises(InvalidInputError, match="n_bins=0"):
        score_distributions(df, score="p", by="g", n_bins=0)
    with pytest.raises(InvalidInputError, match="more than two values"):
        score_distributions(df.assign(y=df["k"]), score="p", by="g", y_true="y")
    with pytest.raises(InvalidInputError, match="'\\(all\\)'"):
        score_distributions(df.assign(g="(all)"), score="p", by="g")
    with pytest.raises(InvalidInputError, match="No usable rows"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ExcludedRowsWarning)
            score_distributions(df.assign(p=np.nan), score="p", by="g")


def test_the_callers_frame_is_unchanged():
    df = scored(80)
    before = df.copy()
    score_distributions(df, score="p", by=["g", "k"], y_true="y")
    pd.testing.assert_frame_equal(df, before)
