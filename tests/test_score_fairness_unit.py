"""Score fairness: exactness against a full-row statsmodels fit, edge cases, accessor behaviour."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from conftest import assert_close, assert_frame_unchanged
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from statsmodels.stats.anova import anova_lm

import pdmetrics  # noqa: F401
from pdmetrics.errors import (
    ColumnNotFoundError,
    ExcludedRowsWarning,
    InvalidInputError,
    UndefinedMetricWarning,
)
from pdmetrics.fairness import rsmtool_coefficient_label, rsmtool_fairness_tables
from pdmetrics.fairness.regression import FAIRNESS_ESTIMATES_COLUMNS, FAIRNESS_METRICS_COLUMNS


def score_fairness_tables(human, system, by, base_group=None):
    """The score fairness tables of score arrays and group labels (a list or array: one
    column named "group"; a named Series, a dict, a DataFrame or a list of Series: a column
    each), through a frame and the frame-first function."""
    if isinstance(by, pd.DataFrame):
        groups = dict(by.items())
    elif isinstance(by, dict):
        groups = dict(by)
    elif isinstance(by, list) and by and all(isinstance(column, pd.Series) for column in by):
        groups = {column.name: column for column in by}
    elif isinstance(by, pd.Series) and by.name is not None:
        groups = {by.name: by}
    else:
        groups = {"group": by}
    columns = {"human": human, "system": system, **groups}
    frame = pd.DataFrame(
        {
            name: values.reset_index(drop=True) if isinstance(values, pd.Series) else pd.Series(list(values))
            for name, values in columns.items()
        }
    )
    return pdmetrics.fairness.score_fairness_tables(
        frame, human="human", system="system", by=list(groups), base_group=base_group
    )


LABELS = ["L1 group.a", "b", "c]", "x.y.z", "spa ce"]


def _simulate(n, k, levels=5, seed=0):
    rng = np.random.default_rng(seed)
    group = rng.choice(LABELS[:k], size=n)
    human = rng.integers(1, levels + 1, size=n).astype(float)
    system = human + rng.normal(0, 0.8, size=n) + 0.2 * (group == LABELS[0])
    return human, system, group


def _dummies(values, order):
    return (
        np.column_stack([(values == v).astype(float) for v in order[1:]])
        if len(order) > 1
        else np.empty((len(values), 0))
    )


def _order(values):
    counts = pd.Series(values).value_counts()
    frame = pd.DataFrame({"label": counts.index, "count": counts.to_numpy()})
    return frame.sort_values(["count", "label"], ascending=[False, True])["label"].tolist()


def _full_row_fits(human, system, group):
    """The slow, obviously-correct reference: statsmodels OLS on the full N-row design."""
    error = system - human
    groups, levels = _order(group), _order(human)
    g, lv = _dummies(group, groups), _dummies(human, levels)
    ones = np.ones((len(error), 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        osa = sm.OLS(error**2, np.hstack([ones, g])).fit()
        osd = sm.OLS(error, np.hstack([ones, g])).fit()
        csd = sm.OLS(error, np.hstack([ones, g, lv])).fit()
        null = sm.OLS(error, np.hstack([ones, lv])).fit()
        anova = anova_lm(null, csd)
    return groups, {"osa": osa, "osd": osd, "csd": csd}, null, anova


def _check_against_full_rows(human, system, group):
    groups, fits, null, anova = _full_row_fits(human, system, group)
    metrics, estimates = score_fairness_tables(human, system, group)
    assert metrics["base_category"].iat[0] == groups[0]
    k = len(groups)
    for name, fit in fits.items():
        part = estimates[estimates["model"] == name]
        assert part["group"].tolist() == groups
        assert_close(part["estimate"], fit.params[:k], what=f"{name} params")
        assert_close(part["P>[t]"], fit.pvalues[:k], what=f"{name} p")
        ci = fit.conf_int()
        assert_close(part["[0.025"], ci[:k, 0], what=f"{name} ci low")
        assert_close(part["0.975]"], ci[:k, 1], what=f"{name} ci high")
        row = metrics[metrics["model"] == name].iloc[0]
        assert row["df_denom"] == fit.df_resid
    osa, osd = metrics.iloc[0], metrics.iloc[1]
    assert_close([osa["R2"], osd["R2"]], [fits["osa"].rsquared_adj, fits["osd"].rsquared_adj])
    assert_close([osa["sig"], osd["sig"]], [fits["osa"].f_pvalue, fits["osd"].f_pvalue])
    assert_close([osa["F"], osd["F"]], [fits["osa"].fvalue, fits["osd"].fvalue])
    csd = metrics.iloc[2]
    assert_close(csd["R2"], fits["csd"].rsquared_adj - null.rsquared_adj)
    assert_close(csd["R2_unadjusted"], fits["csd"].rsquared - null.rsquared)
    assert_close(csd["sig"], anova.values[1][-1])
    assert csd["df_num"] == anova["df_diff"].iat[1]


def test_matches_full_row_statsmodels_fit():
    _check_against_full_rows(*_simulate(5000, 5, seed=1))


@settings(max_examples=25, deadline=None)
@given(n=st.integers(30, 300), k=st.integers(2, 5), levels=st.integers(2, 6), seed=st.integers(0, 10_000))
def test_matches_full_row_statsmodels_property(n, k, levels, seed):
    human, system, group = _simulate(n, k, levels, seed)
    assume(len(set(group)) >= 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)  # rare rank-deficient draws
        _check_against_full_rows(human, system, group)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_row_permutation_invariance(seed):
    human, system, group = _simulate(120, 3, seed=seed)
    order = np.random.default_rng(seed).permutation(human.size)
    a_metrics, a_estimates = score_fairness_tables(human, system, group)
    b_metrics, b_estimates = score_fairness_tables(human[order], system[order], group[order])
    numeric = ["R2", "sig", "F", "R2_unadjusted"]
    assert_close(a_metrics[numeric], b_metrics[numeric])
    assert_close(a_estimates[["estimate", "P>[t]"]], b_estimates[["estimate", "P>[t]"]], atol=1e-10)


def test_large_errors_are_flagged():
    rng = np.random.default_rng(3)
    n = 2000
    group = rng.choice(["a", "b"], size=n)
    human = rng.integers(1, 6, size=n).astype(float)
    system = human + rng.normal(0, 0.5, size=n) + 0.5 * (group == "b")
    metrics = score_fairness_tables(human, system, group)[0]
    assert metrics.loc[metrics["model"] == "osd", "sig"].iat[0] < 1e-10
    assert metrics.loc[metrics["model"] == "osd", "R2"].iat[0] > 0.1


def test_base_group_and_order():
    human, system, group = _simulate(400, 4, seed=5)
    estimates = score_fairness_tables(human, system, group, base_group="c]")[1]
    assert estimates["group"].iat[0] == "c]"
    assert estimates["rsmtool_label"].iat[0] == "Intercept (c])"
    others = estimates.loc[(estimates["model"] == "osa") & (estimates["term"] == "group"), "group"].tolist()
    sizes = pd.Series(group).value_counts()
    assert others == sorted(others, key=lambda v: (-sizes[v], v))
    with pytest.raises(InvalidInputError, match="base_group='nope'"):
        score_fairness_tables(human, system, group, base_group="nope")[0]


def test_labels_with_dots_survive_and_rsmtool_labels():
    human, system, group = _simulate(300, 5, seed=7)
    metrics, estimates = score_fairness_tables(human, system, group)
    assert set(estimates["group"]) == set(LABELS)
    assert rsmtool_coefficient_label("x.y.z") == "x"
    assert rsmtool_coefficient_label("L1 group.a") == "L1 group"
    assert rsmtool_coefficient_label("c]") == "c"
    full = rsmtool_fairness_tables(metrics, estimates, "L1", labels="full")["estimates_osa_by_L1"]
    assert set(full.index[1:]) | {metrics["base_category"].iat[0]} == set(LABELS)
    with pytest.raises(InvalidInputError, match="labels"):
        rsmtool_fairness_tables(metrics, estimates, "L1", labels="short")


def test_numeric_group_labels():
    human, system, _ = _simulate(200, 2, seed=2)
    group = np.where(np.arange(200) % 3 == 0, 2.5, 10.0)
    metrics, estimates = score_fairness_tables(human, system, group)
    assert metrics["base_category"].iat[0] == 10.0
    assert estimates["rsmtool_label"].tolist()[:2] == ["Intercept (10.0)", "2"]


# ---------------------------------------------------------------------------- edge cases
def test_empty_input_raises():
    with pytest.raises(InvalidInputError, match="at least one"):
        score_fairness_tables([], [], [])[0]


def test_one_row_and_one_group_warn():
    with pytest.warns(UndefinedMetricWarning, match="two groups"):
        metrics = score_fairness_tables([1.0], [2.0], ["a"])[0]
    assert metrics["sig"].isna().all()
    with pytest.warns(UndefinedMetricWarning, match="two groups"):
        metrics = score_fairness_tables([1, 2, 3, 4, 1, 2], [1.5, 2.1, 2.7, 4.4, 1, 2.5], ["a"] * 6)[0]
    assert metrics["sig"].isna().all()
    assert_close(metrics["R2"].iloc[:2], [0.0, 0.0])


def test_constant_error_is_undefined():
    with pytest.warns(UndefinedMetricWarning, match="same for every response"):
        metrics, estimates = score_fairness_tables([1, 2, 3, 4, 1, 2], [2, 3, 4, 5, 2, 3], list("aabbab"))
    assert metrics["sig"].isna().all() and metrics["R2"].isna().all()
    assert estimates["P>[t]"].isna().all()
    assert_close(estimates.loc[estimates["term"] == "Intercept", "estimate"].iloc[:2], [1.0, 1.0])


def test_no_effect_gives_p_one():
    metrics = score_fairness_tables([1, 1, 4, 4], [0.9, 0.99, 3.99, 3.9], ["K", "E", "K", "E"])[0]
    assert_close(metrics["sig"], [1.0, 1.0, 1.0])


def test_missing_values_are_left_out():
    human, system, group = _simulate(100, 3, seed=4)
    human_nan = human.copy()
    human_nan[:3] = np.nan
    group_nan = group.astype(object)
    group_nan[3:5] = None
    with pytest.warns(ExcludedRowsWarning, match="5 of 100"):
        with_nan = score_fairness_tables(human_nan, system, group_nan)[0]
    reference = score_fairness_tables(human[5:], system[5:], group[5:])[0]
    assert (with_nan["N"] == 95).all()
    assert_close(with_nan[["R2", "sig"]], reference[["R2", "sig"]])


def test_bad_input():
    with pytest.raises(InvalidInputError, match="distinct scores"):
        rng = np.random.default_rng(0)
        score_fairness_tables(rng.normal(size=3000), rng.normal(size=3000), np.repeat(["a", "b"], 1500))[0]


# ------------------------------------------------------------------------------ accessor
def _frame(n=300, seed=0):
    human, system, group = _simulate(n, 3, seed=seed)
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {"human score": human, "sys.trim": system, "L1.group": group, "Q": rng.choice(["q1", "q2"], size=n)}
    )


def test_accessor_matches_core_and_leaves_frame_unchanged():
    df = _frame()
    before = df.copy()
    table = df.fairness.score_fairness(human="human score", system="sys.trim", by=["L1.group", "Q"])
    assert_frame_unchanged(before, df)
    assert list(table.columns) == [
        "by",
        "model",
        "metric",
        "base_category",
        "N",
        "R2",
        "sig",
        "F",
        "df_num",
        "df_denom",
        "R2_unadjusted",
    ]
    assert table["by"].tolist() == ["L1.group"] * 3 + ["Q"] * 3
    assert isinstance(table.index, pd.RangeIndex)
    core = pdmetrics.fairness.score_fairness(df, human="human score", system="sys.trim", by="L1.group")
    assert_close(table[["R2", "sig"]].iloc[:3], core[["R2", "sig"]])
    estimates = df.fairness.score_fairness_estimates(human="human score", system="sys.trim", by="L1.group")
    assert_frame_unchanged(before, df)
    assert estimates.columns[0] == "by" and len(estimates) == 9


def test_accessor_errors():
    df = _frame()
    with pytest.raises(ColumnNotFoundError, match="human='sc1'"):
        df.fairness.score_fairness(human="sc1", system="sys.trim", by="L1.group")
    with pytest.raises(ColumnNotFoundError, match="by='nope'"):
        df.fairness.score_fairness(human="human score", system="sys.trim", by="nope")
    with pytest.raises(InvalidInputError, match="no numeric values"):
        df.fairness.score_fairness(human="L1.group", system="sys.trim", by="Q")
    with pytest.raises(TypeError):
        df.fairness.score_fairness("human score", "sys.trim", "Q")


def test_accessor_string_and_categorical_groups():
    df = _frame()
    as_category = df.assign(**{"L1.group": df["L1.group"].astype("category")})
    a = df.fairness.score_fairness(human="human score", system="sys.trim", by="L1.group")
    b = as_category.fairness.score_fairness(human="human score", system="sys.trim", by="L1.group")
    assert_close(a[["R2", "sig"]], b[["R2", "sig"]])
    assert a["base_category"].tolist() == b["base_category"].tolist()


def test_against_rsmtool_if_installed():
    fairness_utils = pytest.importorskip("rsmtool.fairness_utils")
    human, system, group = _simulate(500, 4, seed=11)
    frame = pd.DataFrame({"sc1": human, "raw": system, "grp": group})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, container = fairness_utils.get_fairness_analyses(frame.copy(), "grp", "raw")
    metrics, estimates = score_fairness_tables(human, system, group)
    ours = rsmtool_fairness_tables(metrics, estimates, "grp")
    for name in container.keys():
        expected = container[name]
        assert list(ours[name].index) == list(expected.index)
        numeric = [c for c in expected.columns if c != "base_category"]
        assert_close(ours[name][numeric], expected[numeric], what=name)


def test_rank_deficient_csd_matches_statsmodels_minimum_norm():
    """Group b is exactly the responses with human score 3: the CSD design is rank-deficient."""
    rng = np.random.default_rng(1)
    human = rng.integers(1, 4, 60).astype(float)
    group = np.where(human == 3, "b", np.where(rng.random(60) < 0.5, "a", "c"))
    system = human + rng.normal(0, 0.5, 60)
    with pytest.warns(UndefinedMetricWarning, match="not unique"):
        _check_against_full_rows(human, system, group)


# ------------------------------------------------------------------ degenerate fits (issue 10)
@pytest.mark.parametrize("n", [50, 1000])
@pytest.mark.parametrize("offset", [0.0, 7.0, 1e3])
@pytest.mark.parametrize("scale", [1e-6, 1.0, 1e6])
def test_constant_difference_is_undefined_at_any_scale(scale, offset, n):
    """system = human + c: every sum of squares is rounding noise, so no test is 'significant'."""
    rng = np.random.default_rng(0)
    human = np.rint(rng.uniform(1, 6, n)) * scale + offset
    system = human + 0.37 * scale
    group = rng.choice(["a", "b", "c"], n)
    with pytest.warns(UndefinedMetricWarning, match="same for every response"):
        metrics, estimates = score_fairness_tables(human, system, group)
    assert metrics[["R2", "sig", "F", "R2_unadjusted"]].isna().all().all()
    assert estimates[["P>[t]", "[0.025", "0.975]"]].isna().all().all()
    size = scale * 6 + offset
    intercepts = estimates.loc[(estimates["term"] == "Intercept") & (estimates["model"] != "osa"), "estimate"]
    assert np.allclose(intercepts, 0.37 * scale, rtol=0, atol=1e-9 * size)
    differences = estimates.loc[(estimates["term"] == "group") & (estimates["model"] != "osa"), "estimate"]
    assert np.allclose(differences, 0.0, rtol=0, atol=1e-9 * size)


def test_csd_whose_models_both_fit_exactly_is_undefined():
    """The error is a function of the human score: the nested CSD test is 0/0 up to rounding."""
    rng = np.random.default_rng(1)
    human = rng.integers(1, 6, 200).astype(float)
    system = human * 1.1 + 0.3
    group = rng.choice(["a", "b"], 200)
    with pytest.warns(UndefinedMetricWarning, match="compares 0 with 0"):
        metrics = score_fairness_tables(human, system, group)[0]
    csd = metrics.iloc[2]
    assert np.isnan(csd["F"]) and np.isnan(csd["sig"])
    assert np.isfinite(metrics["sig"].iloc[:2]).all()  # OSA and OSD are ordinary fits


def test_exact_group_fit_is_significant_not_noise():
    """The error differs by group only (no spread within groups): F is infinite and p is 0."""
    human = np.tile([1.0, 2.0, 3.0, 4.0], 25)
    group = np.repeat(["a", "b"], 50)
    system = human + np.where(group == "a", 0.1, 0.3)
    metrics = score_fairness_tables(human, system, group)[0]
    osd = metrics.iloc[1]
    assert osd["F"] == np.inf and osd["sig"] == 0.0


# ------------------------------------------------------------------------- bad input (issue 10)
def test_list_and_dict_cells_in_the_group_column_are_refused():
    df = _frame(60)
    for bad in ([1, 2], {"a": 1}):
        cells = df.assign(**{"L1.group": [bad] * len(df)})
        with pytest.raises(InvalidInputError, match=r"`by='L1.group'` holds (list|dict) values"):
            cells.fairness.score_fairness(human="human score", system="sys.trim", by="L1.group")


def test_a_list_where_one_column_is_expected_is_refused():
    df = _frame(60)
    with pytest.raises(InvalidInputError, match=r"`human=` takes one column name"):
        df.fairness.score_fairness(human=["human score", "sys.trim"], system="sys.trim", by="Q")
    with pytest.raises(InvalidInputError, match=r"`system=` takes one column name"):
        df.fairness.score_fairness_estimates(human="human score", system=["sys.trim"], by="Q")


def test_id_like_group_column_names_the_groups():
    rng = np.random.default_rng(0)
    human = rng.integers(1, 6, 3000).astype(float)
    ids = np.arange(3000)
    with pytest.raises(InvalidInputError, match=r"`by='id'` has 3000 groups"):
        score_fairness_tables(human, human + rng.normal(size=3000), {"id": ids})[0]


@pytest.mark.filterwarnings("ignore:Group membership:pdmetrics.UndefinedMetricWarning")
def test_one_group_per_response_names_the_groups():
    human = np.tile([1.0, 2.0], 10)
    system = human + np.linspace(0, 1, 20)
    with pytest.warns(UndefinedMetricWarning, match=r"`by='id'` has 20 groups among 20 responses"):
        metrics = score_fairness_tables(human, system, pd.Series(np.arange(20), name="id"))[0]
    assert metrics["sig"].isna().all()


def test_messages_print_plain_numbers():
    human, system, _ = _simulate(60, 2)
    with pytest.raises(InvalidInputError, match=r"`base_group=1.5` is not a value of `by='g'`"):
        score_fairness_tables(human, system, {"g": np.repeat([1.0, 2.0], 30)}, base_group=np.float64(1.5))[0]


def test_options_are_checked_before_any_fit():
    """A bad second group column is refused before the first is fitted (no warning first)."""
    human, system, group = _simulate(60, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InvalidInputError, match="list values"):
            score_fairness_tables(human, system, {"one": [None] + ["a"] * 59, "two": pd.Series([[1]] * 60)})[
                0
            ]


# --------------------------------------------------------------------- several group columns
def test_several_group_columns_in_the_core():
    df = _frame()
    both = score_fairness_tables(df["human score"], df["sys.trim"], df[["L1.group", "Q"]])
    one = score_fairness_tables(df["human score"], df["sys.trim"], df["Q"])
    assert both[0]["by"].tolist() == ["L1.group"] * 3 + ["Q"] * 3
    assert_close(both[0][["R2", "sig"]].iloc[3:], one[0][["R2", "sig"]])
    assert set(both[1]["by"]) == {"L1.group", "Q"}
    files = rsmtool_fairness_tables(*both, "Q")
    assert_close(
        files["fairness_metrics_by_Q"][list(files["fairness_metrics_by_Q"].columns[:3])],
        rsmtool_fairness_tables(*one, "Q")["fairness_metrics_by_Q"].iloc[:, :3],
    )
    with pytest.raises(InvalidInputError, match="group_name='nope'"):
        rsmtool_fairness_tables(*both, "nope")
    assert (
        score_fairness_tables([1, 2, 1, 2], [1, 3, 2, 2], ["a", "a", "b", "b"])[0]["by"].tolist()
        == ["group"] * 3
    )


_RESULT_NAMES = sorted(
    set(FAIRNESS_METRICS_COLUMNS) | set(FAIRNESS_ESTIMATES_COLUMNS) | {"(all)", "Intercept"}
)


@settings(max_examples=30, deadline=None)
@given(
    name=st.sampled_from(_RESULT_NAMES),
    labels=st.lists(st.sampled_from(_RESULT_NAMES), min_size=2, max_size=2, unique=True),
)
def test_group_names_and_values_like_result_columns(name, labels):
    """Group column names and values never become column names: the tables keep their layout."""
    df = _frame(120)
    df = df.assign(**{name: np.where(df["Q"] == "q1", labels[0], labels[1])})
    table = df.fairness.score_fairness(human="human score", system="sys.trim", by=name)
    estimates = df.fairness.score_fairness_estimates(human="human score", system="sys.trim", by=name)
    assert list(table.columns) == FAIRNESS_METRICS_COLUMNS
    assert list(estimates.columns) == FAIRNESS_ESTIMATES_COLUMNS
    assert table["by"].tolist() == [name] * 3
    assert set(estimates["group"]) == set(labels)
    reference = score_fairness_tables(df["human score"], df["sys.trim"], df["Q"])[0]
    assert_close(table[["R2", "sig", "F"]], reference[["R2", "sig", "F"]])


# ------------------------------------------------------------------------------ import cost
def _heavy_modules_loaded_by(statement: str) -> str:
    """The heavy modules a fresh interpreter holds after ``statement`` (this checkout first)."""
    heavy = ("statsmodels", "scipy.stats", "matplotlib", "dask")
    code = f"import sys, warnings; warnings.simplefilter('ignore'); {statement}; " + (
        f"print(' '.join(m for m in {heavy!r} if m in sys.modules))"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(pdmetrics.__file__).parents[1])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    return out.stdout.strip()


def test_import_pdmetrics_leaves_heavy_modules_unloaded():
    loaded = _heavy_modules_loaded_by("import pdmetrics")
    assert loaded == "", f"`import pdmetrics` loaded: {loaded}"


def test_the_fits_load_neither_statsmodels_nor_scipy_stats():
    """The fits solve their small least squares with numpy and take t and F from scipy.special."""
    loaded = _heavy_modules_loaded_by(
        "import pandas as pd; from pdmetrics.fairness import score_fairness_tables; "
        "df = pd.DataFrame({'h': [1, 2, 3, 4, 2, 3], 's': [1.2, 2.5, 2.9, 4.4, 1.8, 3.3]}); "
        "score_fairness_tables(df.assign(g=list('aabbab')), human='h', system='s', by='g')"
    )
    assert loaded == "", f"a score fairness fit loaded: {loaded}"


def test_a_list_of_series_is_several_group_columns():
    df = _frame()
    from_list = score_fairness_tables(df["human score"], df["sys.trim"], [df["L1.group"], df["Q"]])[0]
    from_dict = score_fairness_tables(
        df["human score"], df["sys.trim"], {"L1.group": df["L1.group"], "Q": df["Q"]}
    )[0]
    assert from_list["by"].tolist() == ["L1.group"] * 3 + ["Q"] * 3
    assert_close(from_list[["R2", "sig", "F"]], from_dict[["R2", "sig", "F"]])


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    kind=st.sampled_from(["gaps", "halves", "negative", "wide"]),
    missing=st.sampled_from(["none", "human", "system", "group", "all"]),
)
def test_rows_left_out_equal_rows_dropped_first(seed, kind, missing):
    """Every kind of human score (integers with gaps, half points, negative, a wide range) and
    every kind of missing value: the same numbers as the full-row fit on the rows kept."""
    rng = np.random.default_rng(seed)
    n = 240
    base = rng.integers(0, 4, n).astype(float)
    human = {"gaps": base * 3 + 1, "halves": base / 2, "negative": base - 10, "wide": base * 20_000}[kind]
    group = rng.choice(LABELS[:3], size=n).astype(object)
    system = human + rng.normal(0, 0.8, n) + 0.3 * (group == LABELS[0])
    rows = rng.random(n) < 0.1
    if missing in ("human", "all"):
        human = np.where(rows, np.nan, human)
    if missing in ("system", "all"):
        system = np.where(np.roll(rows, 1), np.inf, system)
    if missing in ("group", "all"):
        group = np.where(np.roll(rows, 2), None, group)
    kept = np.isfinite(human) & np.isfinite(system) & pd.notna(group)
    assume(len(set(group[kept])) >= 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExcludedRowsWarning)
        left_out = score_fairness_tables(human, system, group)
    dropped = score_fairness_tables(human[kept], system[kept], group[kept].astype(str))
    numeric = ["R2", "sig", "F", "R2_unadjusted"]
    assert_close(left_out[0][numeric], dropped[0][numeric])
    assert_close(left_out[1][["estimate", "P>[t]"]], dropped[1][["estimate", "P>[t]"]])
    _check_against_full_rows(human[kept], system[kept], group[kept].astype(str))


def test_groups_only_in_rows_left_out_do_not_count():
    """An ID-like column whose 2100 groups all sit in rows without a human score: the rows kept
    have two groups, so the design is small and the fit runs."""
    human, system, group = _simulate(2400, 2, seed=5)
    human[:2100] = np.nan
    labels = group.astype(object)
    labels[:2100] = [f"id{i}" for i in range(2100)]
    with pytest.warns(ExcludedRowsWarning, match="2,?100 of 2,?400"):
        metrics = score_fairness_tables(human, system, {"g": labels})[0]
    reference = score_fairness_tables(human[2100:], system[2100:], {"g": group[2100:]})[0]
    assert_close(metrics[["R2", "sig", "F"]], reference[["R2", "sig", "F"]])
    assert (metrics["N"] == 300).all()


def test_both_tables_of_one_pass_on_every_engine():
    """score_fairness_tables runs on dask and polars frames like the other tables (polars gets
    polars tables back)."""
    dd = pytest.importorskip("dask.dataframe")
    pl = pytest.importorskip("polars")
    df = _frame()
    columns = dict(human="human score", system="sys.trim", by=["L1.group", "Q"])
    expected = pdmetrics.fairness.score_fairness_tables(df, **columns)
    on_dask = pdmetrics.fairness.score_fairness_tables(dd.from_pandas(df, npartitions=3), **columns)
    on_polars = pdmetrics.fairness.score_fairness_tables(pl.from_pandas(df), **columns)
    for mine, dasks, polars in zip(expected, on_dask, on_polars):
        pd.testing.assert_frame_equal(dasks, mine, rtol=1e-12)
        assert isinstance(polars, pl.DataFrame) and polars.columns == list(mine.columns)
        assert_close(
            polars["R2" if "R2" in mine else "estimate"].to_numpy(),
            mine["R2" if "R2" in mine else "estimate"],
        )
