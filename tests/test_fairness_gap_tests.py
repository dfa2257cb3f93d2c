"""``df.fairness.gap_tests``: is each group's gap to the reference group real?

Every number equals its reference computed one 2x2 table at a time, to 1e-12: Fisher's exact
test ``scipy.stats.fisher_exact``, chi-square with Yates' correction
``scipy.stats.chi2_contingency``, the pooled z-test statsmodels' ``proportions_ztest``,
Newcombe's interval ``confint_proportions_2indep(method="newcomb")``, the adjusted p-values and
decisions ``multipletests``; the group size needed is the root of statsmodels'
``NormalIndPower().power`` (to 1e-12) and agrees with its ``solve_power`` within that solver's
tolerance (it stops at ``xtol=1e-5``). Data of our own with a one-row group, a group without
predicted positives and a constant prediction; dask (3 partitions) and polars give the pandas
table.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq
from scipy.stats import chi2_contingency, fisher_exact
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import confint_proportions_2indep, proportion_effectsize, proportions_ztest

import pdmetrics  # noqa: F401
from pdmetrics import ColumnNotFoundError, InvalidInputError, UndefinedMetricWarning
from pdmetrics.fairness import gap_tests
from pdmetrics.fairness.gap_significance import PROPORTIONS, fisher_exact_tests, gap_tests_from_counts

TOL = {"rtol": 1e-12, "atol": 1e-12}
METRICS = ["selection_rate", "tpr", "fpr", "precision", "accuracy"]


def labelled(n: int = 900, seed: int = 0) -> pd.DataFrame:
    """Labels and predictions with group-dependent rates; group ``e`` has one row, group ``d``
    never predicts the positive class."""
    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b", "c", "d"], n - 1, p=[0.5, 0.3, 0.15, 0.05])
    y = (rng.random(n - 1) < 0.4).astype(int)
    lift = pd.Series(g).map({"a": 0.0, "b": 0.15, "c": -0.1, "d": 0.0}).to_numpy()
    pred = (rng.random(n - 1) < np.clip(0.3 + 0.4 * y + lift, 0, 1)).astype(int)
    pred[g == "d"] = 0
    frame = pd.DataFrame({"y": y, "pred": pred, "g": g, "k": rng.integers(0, 2, n - 1)})
    return pd.concat([frame, pd.DataFrame({"y": [1], "pred": [1], "g": ["e"], "k": [0]})], ignore_index=True)


def proportion(rows: pd.DataFrame, metric: str) -> tuple[int, int]:
    """``(count, N)`` of a rate, straight from the rows."""
    y, p = rows["y"].to_numpy() == 1, rows["pred"].to_numpy() == 1
    base = {
        "selection_rate": (p, np.ones_like(p)),
        "tpr": (p & y, y),
        "fpr": (p & ~y, ~y),
        "precision": (p & y, p),
        "accuracy": (p == y, np.ones_like(p)),
    }[metric]
    numerator, denominator = base
    return int((numerator & denominator).sum()), int(denominator.sum())


def reference_table(df, by, reference, metrics, test, correction, alpha=0.05, power=0.8, confidence=0.95):
    """The table from scipy and statsmodels, one 2x2 table at a time."""
    rows = []
    for group in sorted(df[by].unique()):
        if group == reference:
            continue
        for metric in metrics:
            a, n1 = proportion(df[df[by] == group], metric)
            c, n2 = proportion(df[df[by] == reference], metric)
            row = {by: group, "metric": metric, "N": n1, "count": a, "N_reference": n2, "count_reference": c}
            if n1 and n2:
                table = [[a, n1 - a], [c, n2 - c]]
                low, high = confint_proportions_2indep(a, n1, c, n2, method="newcomb", alpha=1 - confidence)
                kind = test
                if test == "auto":
                    with np.errstate(divide="ignore", invalid="ignore"):
                        small = (a + c) * (n1 - a + n2 - c) == 0 or min(
                            r * k / (n1 + n2) for r in (n1, n2) for k in (a + c, n1 + n2 - a - c)
                        ) < 5
                    kind = "exact" if small else "z"
                constant = (a + c == 0) or (a + c == n1 + n2)
                if kind == "exact":
                    result = fisher_exact(table)
                    statistic, p = result.statistic, result.pvalue
                elif constant:
                    statistic, p = np.nan, 1.0
                elif kind == "chi2":
                    result = chi2_contingency(table)
                    statistic, p = result.statistic, result.pvalue
                else:
                    statistic, p = proportions_ztest([a, c], [n1, n2])
                name = {"exact": "fisher_exact", "chi2": "chi2_yates", "z": "z_pooled"}[kind]
                row.update(ci_low=low, ci_high=high, test=name, statistic=statistic, p_value=p)
                r1, r2 = a / n1, c / n2
                if r1 != r2:
                    h = proportion_effectsize(r1, r2)

                    def gap(x, h=h, ratio=n2 / n1):
                        return NormalIndPower().power(h, x, alpha, ratio=ratio) - power

                    row["root"] = brentq(gap, 1e-9, 1e12, xtol=1e-300, rtol=8.9e-16, maxiter=500)
            rows.append(row)
    out = pd.DataFrame(rows)
    out["metric"] = pd.Categorical(out["metric"], categories=metrics)
    out = out.sort_values(["metric", by], kind="stable", ignore_index=True)
    out["metric"] = out["metric"].astype(str)
    p = out["p_value"].to_numpy(float)
    finite = np.isfinite(p)
    out["p_adjusted"], out["reject"] = p.copy(), finite & (p <= alpha)
    if correction is not None:
        reject, adjusted = multipletests(p[finite], alpha=alpha, method=correction)[:2]
        out.loc[finite, "p_adjusted"], out.loc[finite, "reject"] = adjusted, reject
    return out


def run(df, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return df.fairness.gap_tests(y_true="y", y_pred="pred", by="g", **options)


# ------------------------------------------------------------------------------------------
# equal to scipy and statsmodels
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("test", ["auto", "exact", "chi2", "z"])
@pytest.mark.parametrize("correction", ["holm", "fdr_bh", None])
def test_equals_scipy_and_statsmodels_table_by_table(test, correction):
    df = labelled(900, seed=1)
    out = run(df, privileged="a", metrics=METRICS, test=test, correction=correction)
    expected = reference_table(df, "g", "a", METRICS, test, correction)
    assert list(out[["g", "metric"]].itertuples(index=False)) == list(
        expected[["g", "metric"]].itertuples(index=False)
    )
    for column in ["N", "count", "N_reference", "count_reference"]:
        np.testing.assert_array_equal(out[column].to_numpy(), expected[column].to_numpy(), err_msg=column)
    for column in ["ci_low", "ci_high", "statistic", "p_value", "p_adjusted"]:
        np.testing.assert_allclose(
            out[column].to_numpy(float), expected[column].to_numpy(float), **TOL, err_msg=column
        )
    assert out["reject"].tolist() == expected["reject"].astype(bool).tolist()
    assert out["test"].fillna("-").tolist() == expected["test"].fillna("-").tolist()
    rate = expected["count"] / expected["N"].where(expected["N"] > 0)
    rate_ref = expected["count_reference"] / expected["N_reference"]
    np.testing.assert_allclose(out["rate"], rate, **TOL)
    np.testing.assert_allclose(out["difference"], rate - rate_ref, **TOL)
    # the size needed: the root of statsmodels' power function, rounded up
    root = expected["root"].to_numpy(float)
    needed = out["N_needed"].to_numpy(dtype="float64", na_value=np.nan)
    np.testing.assert_array_equal(np.isnan(needed), np.isnan(root))
    np.testing.assert_array_equal(needed[~np.isnan(root)], np.ceil(root[~np.isnan(root)]))


def test_the_edge_groups_one_row_no_predicted_positive():
    df = labelled(900, seed=2)
    with pytest.warns(UndefinedMetricWarning, match="precision"):
        out = df.fairness.gap_tests(y_true="y", y_pred="pred", by="g", privileged="a")
    one = out[out["g"] == "e"].set_index("metric")
    assert one.loc["selection_rate", "N"] == 1 and one.loc["selection_rate", "test"] == "fisher_exact"
    assert np.isnan(one.loc["fpr", "p_value"])  # no actual negative in the one-row group
    never = out[out["g"] == "d"].set_index("metric")
    assert never.loc["selection_rate", "rate"] == 0
    assert np.isnan(never.loc["precision", "rate"]) and pd.isna(never.loc["precision", "N_needed"])
    assert never.loc["tpr", "ratio"] == 0


def test_a_constant_prediction_gives_p_one_for_the_rates_it_fixes():
    df = labelled(600, seed=3).assign(pred=1)
    for test in ("auto", "exact", "chi2", "z"):
        out = run(df, privileged="a", test=test, correction=None)
        fixed = out[out["metric"].isin(["selection_rate", "tpr", "fpr"]) & out["rate"].notna()]
        assert (fixed["p_value"] == 1.0).all() and fixed["statistic"].isna().all()
        assert fixed["N_needed"].isna().all() and (fixed["difference"] == 0).all()


def test_the_default_reference_is_the_largest_group_and_intersections_cross():
    df = labelled(900, seed=4)
    out = run(df)
    assert out.attrs["pdmetrics"]["reference"] == {"g": "a"} and "a" not in set(out["g"])
    crossed = run_crossed(df)
    assert crossed.attrs["pdmetrics"]["reference"] == {"g": "b", "k": 1}
    same = run_crossed(df, privileged={"k": 1, "g": "b"})
    pd.testing.assert_frame_equal(crossed, same)
    cell = df[(df.g == "c") & (df.k == 0)]
    base = df[(df.g == "b") & (df.k == 1)]
    row = crossed[(crossed.g == "c") & (crossed.k == 0)].iloc[0]
    assert (row["count"], row["N"]) == proportion(cell, "selection_rate")
    assert (row["count_reference"], row["N_reference"]) == proportion(base, "selection_rate")


def run_crossed(df, privileged=("b", 1)):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return df.fairness.gap_tests(
            y_true="y", y_pred="pred", by=["g", "k"], privileged=privileged, metrics="selection_rate"
        )


def test_fisher_exact_on_many_tables_equals_scipy():
    rng = np.random.default_rng(5)
    n1, n2 = rng.integers(0, 400, 3000), rng.integers(0, 400, 3000)
    a, c = rng.binomial(n1, rng.random(3000)), rng.binomial(n2, rng.random(3000))
    odds, p = fisher_exact_tests(a, n1 - a, c, n2 - c)
    expected = np.array(
        [tuple(fisher_exact([[a[i], n1[i] - a[i]], [c[i], n2[i] - c[i]]])) for i in range(3000)]
    )
    np.testing.assert_allclose(p, expected[:, 1], **TOL)
    np.testing.assert_allclose(odds, expected[:, 0], **TOL)


def test_n_needed_agrees_with_solve_power():
    df = labelled(2000, seed=6)
    out = run(df, privileged="a", correction=None)
    for row in out.dropna(subset=["N_needed"]).itertuples():
        h = proportion_effectsize(row.rate, row.rate_reference)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            solved = NormalIndPower().solve_power(h, alpha=0.05, power=0.8, ratio=row.N_reference / row.N)
        if np.isfinite(solved):  # statsmodels' solver gives up below 2 rows
            assert abs(np.ceil(solved) - row.N_needed) <= 1


# ------------------------------------------------------------------------------------------
# one block per identifier of the counts (per class once the counts have a class column)
# ------------------------------------------------------------------------------------------
def test_every_other_identifier_column_gives_its_own_block():
    df = labelled(900, seed=7)
    counts = []
    for k in (0, 1):
        part = df[df.k == k].fairness.by_group(y_true="y", y_pred="pred", by="g", zero_division=0)
        counts.append(part[["g", "TN", "FP", "FN", "TP"]].assign(**{"class": k}))
    frame = pd.concat(counts, ignore_index=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        both = gap_tests_from_counts(frame, ["g"], privileged="a", correction=None)
        for k in (0, 1):
            alone = run(df[df.k == k], privileged="a", correction=None)
            mine = both[both["class"] == k].drop(columns="class").reset_index(drop=True)
            pd.testing.assert_frame_equal(mine, alone, check_like=False, check_exact=False, rtol=1e-12)
        holm = gap_tests_from_counts(frame, ["g"], privileged="a", correction="holm")
    p = holm["p_value"].to_numpy(float)
    finite = np.isfinite(p)
    np.testing.assert_allclose(holm["p_adjusted"][finite], multipletests(p[finite], method="holm")[1], **TOL)


# ------------------------------------------------------------------------------------------
# properties
# ------------------------------------------------------------------------------------------
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.integers(0, 1), st.integers(0, 1), st.sampled_from("abc")), min_size=2, max_size=80
    ),
    st.sampled_from(["auto", "exact", "chi2", "z"]),
    st.sampled_from(["holm", "fdr_bh", None]),
)
def test_p_values_in_unit_interval_adjusted_not_below_raw_interval_holds_difference(rows, test, correction):
    df = pd.DataFrame(rows, columns=["y", "pred", "g"])
    assume(1 in set(df["y"]) | set(df["pred"]))  # pos_label must occur
    out = run(df, test=test, correction=correction)
    p, adjusted = out["p_value"].to_numpy(float), out["p_adjusted"].to_numpy(float)
    ok = np.isfinite(p)
    assert ((p[ok] >= 0) & (p[ok] <= 1)).all()
    assert (adjusted[ok] >= p[ok] - 1e-15).all() and (adjusted[ok] <= 1).all()
    assert np.array_equal(np.isnan(adjusted), np.isnan(p))
    d, low, high = (out[c].to_numpy(float) for c in ("difference", "ci_low", "ci_high"))
    ok = np.isfinite(d)
    assert ((low[ok] <= d[ok] + 1e-12) & (d[ok] <= high[ok] + 1e-12)).all()
    assert ((low[ok] >= -1 - 1e-12) & (high[ok] <= 1 + 1e-12)).all()


# ------------------------------------------------------------------------------------------
# errors
# ------------------------------------------------------------------------------------------
def test_a_missing_privileged_group_is_refused_naming_it_and_the_groups():
    df = labelled(300, seed=8)
    with pytest.raises(
        InvalidInputError, match=r"`privileged='z'` is not a group of `by='g'`.*'a'.*privileged=None"
    ):
        df.fairness.gap_tests(y_true="y", y_pred="pred", by="g", privileged="z")
    with pytest.raises(InvalidInputError, match=r"one value\s+per column"):
        df.fairness.gap_tests(y_true="y", y_pred="pred", by=["g", "k"], privileged="a")
    with pytest.raises(InvalidInputError, match=r"one value for each `by=` column"):
        df.fairness.gap_tests(y_true="y", y_pred="pred", by=["g", "k"], privileged={"g": "a"})


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"test": "fisher"}, r"`test='fisher'` is not a test"),
        ({"correction": "sidak"}, r"`correction='sidak'`"),
        ({"metrics": ["tpr", "f1"]}, r"`metrics=\['tpr', 'f1'\]`: choose"),
        ({"metrics": []}, r"`metrics=\[\]`"),
        ({"confidence": 1.5}, r"`confidence=1.5` must be a number between 0 and 1"),
        ({"alpha": 0}, r"`alpha=0`"),
        ({"power": 0.01}, r"`power=0.01` must be above `alpha=0.05`"),
        ({"by": None}, r"`by=None`: name the group column"),
    ],
)
def test_bad_options_are_refused_before_any_work(options, match):
    df = labelled(100)
    with pytest.raises(InvalidInputError, match=match):
        df.fairness.gap_tests(**{"y_true": "y", "y_pred": "pred", "by": "g", **options})


def test_missing_columns_and_a_multiclass_label_are_refused():
    df = labelled(100)
    with pytest.raises(ColumnNotFoundError, match="`by='sex'`"):
        df.fairness.gap_tests(y_true="y", y_pred="pred", by="sex")
    with pytest.raises(InvalidInputError, match="more than two values"):
        df.assign(y=np.arange(len(df)) % 3).fairness.gap_tests(y_true="y", y_pred="pred", by="g")


def test_the_input_is_left_unchanged_and_the_core_function_equals_the_accessor():
    df = labelled(300)
    before = df.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        core = gap_tests(df, y_true="y", y_pred="pred", by="g")
    pd.testing.assert_frame_equal(run(df), core)
    pd.testing.assert_frame_equal(df, before)
    assert set(PROPORTIONS) >= set(METRICS)


# ------------------------------------------------------------------------------------------
# engines
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("classes", [None, "all"], ids=["binary", "classes"])
def test_dask_and_polars_give_the_pandas_table(classes):
    if classes is None:
        df = labelled(900, seed=9)
        options = {"y_true": "y", "y_pred": "pred", "by": ["g", "k"], "privileged": ("a", 0), "test": "auto"}
    else:  # string classes, one absent from a group, a one-row group, the ordinal splits
        df = multiclass(900, seed=6)
        options = {"y_true": "y", "y_pred": "pred", "by": "g", "classes": "all", "ordinal": True}
    with pytest.warns(UndefinedMetricWarning, match="precision"):
        expected = df.fairness.gap_tests(**options)
    dd = pytest.importorskip("dask.dataframe")
    with pytest.warns(UndefinedMetricWarning, match="precision"):
        on_dask = dd.from_pandas(df, npartitions=3).fairness.gap_tests(**options)
    # dask reads text columns as its own string dtype: the values and numbers are the same
    pd.testing.assert_frame_equal(
        on_dask, expected, check_dtype=False, check_exact=False, rtol=1e-12, atol=1e-14
    )
    assert on_dask.attrs == expected.attrs
    pl = pytest.importorskip("polars")
    from test_polars import assert_same  # labels of several types arrive as text from polars

    with pytest.warns(UndefinedMetricWarning, match="precision"):
        assert_same(pl.from_pandas(df).fairness.gap_tests(**options), expected)


def test_holm_equals_multipletests_exactly_with_ties_and_many_values():
    from pdmetrics._comparison import multiple_tests

    rng = np.random.default_rng(11)
    for size in (1, 2, 7, 500):
        p = np.round(rng.random(size) ** 3, 3)  # ties, tiny values, values adjusted past 1
        p[rng.random(size) < 0.1] = np.nan
        finite = np.isfinite(p)
        for alpha in (0.05, 0.2):
            adjusted, reject = multiple_tests(p, "holm", alpha)
            if finite.any():
                expected_reject, expected = multipletests(p[finite], alpha=alpha, method="holm")[:2]
                np.testing.assert_array_equal(adjusted[finite], expected)
                np.testing.assert_array_equal(reject[finite], expected_reject)
            assert np.isnan(adjusted[~finite]).all() and not reject[~finite].any()


# ------------------------------------------------------------------------------------------
# classes: one block per class (one vs rest) and per cumulative split, one correction
# ------------------------------------------------------------------------------------------
def multiclass(n: int = 1200, seed: int = 0, values=("low", "mid", "high")) -> pd.DataFrame:
    """Three classes with group-dependent errors; group ``d`` never has the last class in
    ``y`` nor in ``pred``, group ``e`` has one row."""
    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b", "c", "d"], n - 1, p=[0.45, 0.3, 0.15, 0.1])
    y = rng.integers(0, 3, n - 1)
    wrong = rng.random(n - 1) < pd.Series(g).map({"a": 0.2, "b": 0.35, "c": 0.5, "d": 0.3}).to_numpy()
    pred = np.where(wrong, (y + rng.integers(1, 3, n - 1)) % 3, y)
    y[g == "d"], pred[g == "d"] = y[g == "d"] % 2, pred[g == "d"] % 2
    lookup = np.asarray(values, dtype=object)
    frame = pd.DataFrame({"y": lookup[y], "pred": lookup[pred], "g": g})
    last = pd.DataFrame({"y": [values[0]], "pred": [values[1]], "g": ["e"]}, dtype=object)
    return pd.concat([frame, last], ignore_index=True).astype(
        {"y": frame["y"].dtype, "pred": frame["pred"].dtype}
    )


def binarised(df: pd.DataFrame, positive) -> pd.DataFrame:
    return df.assign(y=(df["y"] == positive).astype(int), pred=(df["pred"] == positive).astype(int))


def per_class(out: pd.DataFrame, value) -> pd.DataFrame:
    return out[(out["class"] == value).to_numpy()].drop(columns="class").reset_index(drop=True)


@pytest.mark.parametrize("values", [("low", "mid", "high"), (3, 7, 9)], ids=["strings", "integers"])
@pytest.mark.parametrize("test", ["auto", "exact", "chi2", "z"])
def test_each_class_equals_the_binary_table_on_the_binarised_labels(values, test):
    df = multiclass(values=values)
    options = {"metrics": METRICS, "test": test, "privileged": "a"}
    out = run(df, classes="all", correction=None, **options)
    assert list(out.columns[:3]) == ["g", "class", "metric"]
    assert out.attrs["pdmetrics"]["classes"] == sorted(values)
    for value in sorted(values):
        alone = run(binarised(df, value), correction=None, **options)
        pd.testing.assert_frame_equal(per_class(out, value), alone, check_exact=False, rtol=1e-12, atol=1e-14)
        # and straight from scipy and statsmodels, one 2x2 table at a time
        expected = reference_table(binarised(df, value), "g", "a", METRICS, test, None)
        mine = per_class(out, value)
        for column in ["N", "count", "N_reference", "count_reference"]:
            np.testing.assert_array_equal(
                mine[column].to_numpy(), expected[column].to_numpy(), err_msg=column
            )
        for column in ["ci_low", "ci_high", "statistic", "p_value"]:
            np.testing.assert_allclose(
                mine[column].to_numpy(float), expected[column].to_numpy(float), **TOL, err_msg=column
            )
    # the class absent from group d: its rates of actual/predicted positives are undefined
    absent = out[(out["g"] == "d") & (out["class"] == values[2]) & (out["metric"] == "tpr")]
    assert absent["N"].tolist() == [0] and absent["p_value"].isna().all()
    assert (out.loc[out["g"] == "e", "N"] <= 1).all()


@pytest.mark.parametrize("correction", ["holm", "fdr_bh", "bonferroni"])
def test_the_correction_runs_over_every_group_class_and_metric(correction):
    df = multiclass(seed=3)
    out = run(df, classes="all", ordinal=True, correction=correction, metrics=METRICS, alpha=0.1)
    assert out["class"].tolist()[-1] == ">= mid" and len(out) == 4 * 5 * (3 + 2)
    p = out["p_value"].to_numpy(float)
    finite = np.isfinite(p)
    reject, adjusted = multipletests(p[finite], alpha=0.1, method=correction)[:2]
    np.testing.assert_allclose(out["p_adjusted"].to_numpy(float)[finite], adjusted, **TOL)
    np.testing.assert_array_equal(out["reject"].to_numpy(bool)[finite], reject)


def test_ordinal_splits_equal_the_binary_table_of_each_cumulative_split():
    df = multiclass(seed=4, values=(1, 2, 3))
    out = run(df, classes=[1, 2, 3], ordinal=True, correction=None, privileged="b")
    for k in (2, 3):
        split = df.assign(y=(df["y"] >= k).astype(int), pred=(df["pred"] >= k).astype(int))
        alone = run(split, correction=None, privileged="b")
        pd.testing.assert_frame_equal(per_class(out, f">= {k}"), alone, check_exact=False, rtol=1e-12)


def test_categorical_classes_keep_their_order_and_a_listed_order_is_kept():
    df = multiclass(seed=5)
    order = ["mid", "low", "high"]
    df = df.assign(
        y=pd.Categorical(df["y"], categories=order), pred=pd.Categorical(df["pred"], categories=order)
    )
    out = run(df, classes="all")
    assert list(pd.unique(out["class"])) == order
    listed = run(df.astype({"y": object, "pred": object}), classes=["high", "low"])
    assert list(pd.unique(listed["class"])) == ["high", "low"]
    pd.testing.assert_frame_equal(
        per_class(listed, "low"),
        per_class(run(df, classes="all"), "low").assign(
            p_adjusted=per_class(listed, "low")["p_adjusted"], reject=per_class(listed, "low")["reject"]
        ),
        check_exact=False,
        rtol=1e-12,
    )


def test_classes_none_keeps_the_binary_table():
    df = labelled(600, seed=2)
    pd.testing.assert_frame_equal(run(df, classes=None), run(df))
    assert "class" not in run(df).columns
    # a group column named like a confusion count would have been overwritten by it: refused
    for classes in (None, "all"):
        with pytest.raises(InvalidInputError, match=r"`by='TP'` names a column that is also a column"):
            df.rename(columns={"g": "TP"}).fairness.gap_tests(
                y_true="y", y_pred="pred", by="TP", classes=classes
            )


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"classes": "all", "pos_label": "high"}, r"`pos_label='high'` and `classes=` together"),
        ({"classes": ["low", "top"]}, r"`classes=` lists 'top', which occur in neither"),
        ({"classes": "every"}, r"`classes='every'`: pass \"all\""),
        ({"ordinal": True}, r"`ordinal=True` needs `classes=\"all\"`"),
        ({"classes": ["low", "high"], "ordinal": True}, r"must list every value.*'mid' are not listed"),
    ],
)
def test_bad_class_options_are_refused_with_the_classification_messages(options, match):
    df = multiclass(300)
    with pytest.raises(InvalidInputError, match=match):
        df.fairness.gap_tests(**{"y_true": "y", "y_pred": "pred", "by": "g", **options})
    with pytest.raises(InvalidInputError, match=match):
        df.fairness.classification(
            **{"y_true": "y", "y_pred": "pred", "by": "g", "privileged": "a", **options}
        )


@pytest.mark.parametrize("classes", [None, "all"])
def test_no_group_left_gives_an_empty_table_or_names_privileged(classes):
    """Every group value missing: an empty table (reference = largest group), and a clear
    refusal naming `privileged=` rather than an argmax or index error."""
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"y": rng.integers(0, 3, 40), "p": rng.integers(0, 3, 40), "g": np.nan})
    if classes is None:
        frame = frame.assign(y=frame["y"] > 0, p=frame["p"] > 0)
    options = {"y_true": "y", "y_pred": "p", "by": "g", "classes": classes}
    if classes is None:
        options["pos_label"] = True
    with pytest.warns(UserWarning, match="40 of 40 rows left out"):
        table = frame.fairness.gap_tests(**options)
    assert table.empty and "metric" in table.columns
    refused = pytest.raises(InvalidInputError, match="privileged='a'.*no group")
    with pytest.warns(UserWarning, match="rows left out"), refused:
        frame.fairness.gap_tests(privileged="a", **options)


def test_a_tuple_privileged_for_one_group_column_is_refused_naming_it():
    """`privileged=("a",)` with one `by=` column was pandas' NotImplementedError."""
    frame = pd.DataFrame({"y": [1, 0, 1, 0] * 3, "p": [1, 1, 0, 0] * 3, "g": ["a", "b", "c"] * 4})
    with pytest.raises(InvalidInputError, match=r"`privileged=\('a',\)` is not a group of `by='g'`"):
        frame.fairness.gap_tests(y_true="y", y_pred="p", by="g", privileged=("a",))
