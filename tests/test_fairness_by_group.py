"""Per-group classification rates, disparities and bootstrap intervals."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import assert_close, assert_frame_unchanged
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import pdmetrics  # noqa: F401
from pdmetrics.errors import (
    ColumnNotFoundError,
    ExcludedRowsWarning,
    InvalidInputError,
    UndefinedMetricWarning,
)
from pdmetrics.fairness import bootstrap_counts, by_group, group_disparity

pytestmark = pytest.mark.filterwarnings("error::pdmetrics.errors.PdmetricsWarning")

RATES = ["selection_rate", "tpr", "fpr", "tnr", "fnr", "accuracy", "precision", "recall"]


def _slow_rates(group: pd.DataFrame) -> dict:
    """Rates of one group, row by row."""
    t, p = group["y"].tolist(), group["pred"].tolist()
    tp = sum(1 for a, b in zip(t, p) if a == 1 and b == 1)
    fp = sum(1 for a, b in zip(t, p) if a == 0 and b == 1)
    fn = sum(1 for a, b in zip(t, p) if a == 1 and b == 0)
    tn = sum(1 for a, b in zip(t, p) if a == 0 and b == 0)

    def ratio(a, b):
        return a / b if b else np.nan

    return {
        "N": len(t),
        "TP": tp,
        "FP": fp,
        "FN": fn,
        "TN": tn,
        "selection_rate": ratio(tp + fp, len(t)),
        "tpr": ratio(tp, tp + fn),
        "fpr": ratio(fp, fp + tn),
        "tnr": ratio(tn, tn + fp),
        "fnr": ratio(fn, fn + tp),
        "accuracy": ratio(tp + tn, len(t)),
        "precision": ratio(tp, tp + fp),
        "recall": ratio(tp, tp + fn),
    }


@pytest.fixture
def frame():
    rng = np.random.default_rng(7)
    n = 400
    return pd.DataFrame(
        {
            "y": rng.integers(0, 2, n),
            "pred": rng.integers(0, 2, n),
            "race": rng.choice(["b", "a", "c"], n),
            "sex": rng.choice(["F", "M"], n),
        }
    )


def test_columns_and_values_match_slow_reference(frame):
    before = frame.copy()
    table = frame.fairness.by_group(y_true="y", y_pred="pred", by=["race", "sex"])
    assert list(table.columns) == ["race", "sex", "N", "TP", "FP", "FN", "TN", *RATES]
    assert isinstance(table.index, pd.RangeIndex)
    expected = pd.DataFrame(
        [{"race": r, "sex": s, **_slow_rates(g)} for (r, s), g in frame.groupby(["race", "sex"], sort=True)]
    )
    assert table[["race", "sex"]].astype(str).values.tolist() == expected[["race", "sex"]].values.tolist()
    for name in ["N", "TP", "FP", "FN", "TN", *RATES]:
        assert_close(table[name], expected[name], what=name)
    assert_frame_unchanged(before, frame)


def test_only_present_intersections_and_categories():
    df = pd.DataFrame(
        {
            "y": [1, 0, 1, 0],
            "pred": [1, 0, 0, 1],
            "g": pd.Categorical(["x", "x", "z", "z"], categories=["z", "y", "x"]),
            "h": [2, 2, 1, 1],
        }
    )
    table = df.fairness.by_group(y_true="y", y_pred="pred", by=["g", "h"])
    assert table["g"].astype(str).tolist() == ["z", "x"]  # category order, unused "y" left out
    assert table["h"].tolist() == [1, 2]
    assert table["N"].tolist() == [2, 2]


def test_missing_group_values_left_out():
    df = pd.DataFrame({"y": [1, 0, 1, 0, 1], "pred": [1, 0, 0, 1, 1], "g": ["a", "a", None, "b", "b"]})
    with pytest.warns(ExcludedRowsWarning, match="1 of 5 rows"):
        table = df.fairness.by_group(y_true="y", y_pred="pred", by="g")
    assert table["g"].tolist() == ["a", "b"] and table["N"].sum() == 4
    assert table.attrs["pdmetrics"]["rows_missing_group"] == 1


def test_undefined_rates_nan_or_zero_division():
    df = pd.DataFrame({"y": [1, 1, 0, 0], "pred": [1, 0, 0, 0], "g": ["a", "a", "b", "b"]})
    with pytest.warns(UndefinedMetricWarning, match="zero_division"):
        table = df.fairness.by_group(y_true="y", y_pred="pred", by="g")
    assert np.isnan(table.loc[1, "tpr"]) and np.isnan(table.loc[1, "precision"])
    filled = df.fairness.by_group(y_true="y", y_pred="pred", by="g", zero_division=0.0)
    assert filled.loc[1, "tpr"] == 0.0 and filled.loc[1, "tnr"] == 1.0


def test_errors(frame):
    with pytest.raises(ColumnNotFoundError, match="by='nope'"):
        frame.fairness.by_group(y_true="y", y_pred="pred", by="nope")
    with pytest.raises(InvalidInputError, match="n_resamples"):
        frame.fairness.by_group(y_true="y", y_pred="pred", by="sex", n_resamples=-3)
    with pytest.raises(InvalidInputError, match="confidence"):
        frame.fairness.by_group(y_true="y", y_pred="pred", by="sex", n_resamples=10, confidence=95)
    with pytest.raises(InvalidInputError, match="never occurs"):
        frame.fairness.by_group(y_true="y", y_pred="pred", by="sex", pos_label="yes")


def test_empty_frame():
    df = pd.DataFrame(
        {"y": pd.Series([], dtype=int), "pred": pd.Series([], dtype=int), "g": pd.Series([], dtype=str)}
    )
    table = df.fairness.by_group(y_true="y", y_pred="pred", by="g")
    assert len(table) == 0 and list(table.columns)[:3] == ["g", "N", "TP"]


def test_bootstrap_intervals(frame):
    a = frame.fairness.by_group(y_true="y", y_pred="pred", by="race", n_resamples=300, random_state=3)
    b = frame.fairness.by_group(y_true="y", y_pred="pred", by="race", n_resamples=300, random_state=3)
    pd.testing.assert_frame_equal(a, b)
    for name in RATES:
        assert (a[f"{name}_low"] <= a[name] + 1e-12).all() and (a[name] <= a[f"{name}_high"] + 1e-12).all()
        assert a[f"{name}_low"].between(0, 1).all() and a[f"{name}_high"].between(0, 1).all()
    # the width shrinks like 1/sqrt(n): a standard-error check on selection_rate
    p, n = a["selection_rate"], a["N"]
    width = a["selection_rate_high"] - a["selection_rate_low"]
    assert_close(width, 2 * 1.96 * np.sqrt(p * (1 - p) / n), rtol=0.25)


def test_bootstrap_counts_keep_group_sizes():
    counts = np.array([[5, 1, 2, 12], [0, 0, 0, 7]])
    replicates = bootstrap_counts(counts, 50, random_state=0)
    assert (replicates.sum(axis=2) == counts.sum(axis=1)).all()
    assert (replicates[:, 1] == counts[1]).all()  # a one-cell group cannot vary


def test_disparity_matches_rates(frame):
    rates = frame.fairness.by_group(y_true="y", y_pred="pred", by="race")
    overall = frame.assign(all=1).fairness.by_group(y_true="y", y_pred="pred", by="all")
    table = frame.fairness.group_disparity(y_true="y", y_pred="pred", by="race")
    assert list(table.columns) == [
        "metric",
        "N_groups",
        "overall",
        "min",
        "max",
        "difference",
        "ratio",
        "difference_to_overall",
        "ratio_to_overall",
    ]
    for i, name in enumerate(RATES):
        values, o = rates[name], overall.loc[0, name]
        row = table.iloc[i]
        assert row["metric"] == name and row["N_groups"] == 3
        assert_close(row["overall"], o)
        assert_close(row["difference"], values.max() - values.min())
        assert_close(row["ratio"], values.min() / values.max())
        assert_close(row["difference_to_overall"], (values - o).abs().max())
        assert_close(row["ratio_to_overall"], np.minimum(values / o, o / values).min())


def test_disparity_bootstrap(frame):
    before = frame.copy()
    table = frame.fairness.group_disparity(
        y_true="y", y_pred="pred", by="race", n_resamples=200, random_state=1
    )
    for key in ("difference", "ratio", "difference_to_overall", "ratio_to_overall"):
        assert (table[f"{key}_low"] <= table[f"{key}_high"]).all()
    assert_frame_unchanged(before, frame)


def test_disparity_equal_zero_rates_and_undefined_rates():
    df = pd.DataFrame({"y": [1, 0, 1, 0], "pred": [1, 0, 1, 0], "g": ["a", "a", "b", "b"]})
    table = df.fairness.group_disparity(y_true="y", y_pred="pred", by="g").set_index("metric")
    assert table.loc["fpr", "difference"] == 0.0 and table.loc["fpr", "ratio"] == 1.0  # parity at 0
    df = pd.DataFrame({"y": [0, 0, 0, 0], "pred": [1, 0, 1, 0], "g": ["a", "a", "b", "b"]})
    with pytest.warns(UndefinedMetricWarning, match="tpr"):
        table = df.fairness.group_disparity(y_true="y", y_pred="pred", by="g").set_index("metric")
    assert table.loc["tpr", "N_groups"] == 0 and np.isnan(table.loc["tpr", "difference"])


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1), st.integers(0, 3)), min_size=1, max_size=40),
    st.randoms(use_true_random=False),
)
def test_by_group_row_order_invariant(rows, random):
    df = pd.DataFrame(rows, columns=["y", "pred", "g"])
    assume((df.y == 1).any() or (df.pred == 1).any())
    order = list(range(len(df)))
    random.shuffle(order)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        a = df.fairness.by_group(y_true="y", y_pred="pred", by="g")
        b = df.iloc[order].fairness.by_group(y_true="y", y_pred="pred", by="g")
    pd.testing.assert_frame_equal(a, b)
    expected = pd.DataFrame([{"g": g, **_slow_rates(part)} for g, part in df.groupby("g")])
    for name in ["N", *RATES]:
        assert_close(a[name], expected[name], what=name)


def test_core_functions_take_the_frame_first():
    frame = pd.DataFrame({"y": [1, 0, 1, 0], "pred": [1, 1, 0, 0], "g": ["a", "a", "b", "b"]})
    with pytest.warns(UndefinedMetricWarning, match="precision"):
        table = by_group(frame, y_true="y", y_pred="pred", by="g")
    assert table["selection_rate"].tolist() == [1.0, 0.0]
    out = group_disparity(frame.assign(pred=[1, 1, 1, 0]), y_true="y", y_pred="pred", by="g")
    assert out.loc[0, "difference"] == 0.5


def test_bootstrap_without_groups_and_bad_zero_division():
    """Review: an empty table with n_resamples, and a non-numeric zero_division, used to raise ValueError."""
    empty = pd.DataFrame(
        {
            "y": pd.Series([], dtype="int64"),
            "pred": pd.Series([], dtype="int64"),
            "g": pd.Series([], dtype="object"),
        }
    )
    table = empty.fairness.by_group(y_true="y", y_pred="pred", by="g", n_resamples=20, random_state=0)
    assert len(table) == 0 and "tpr_low" in table.columns
    frame = pd.DataFrame({"y": [1, 0, 1, 0], "pred": [1, 1, 0, 0], "g": ["a", "a", "b", "b"]})
    with pytest.raises(InvalidInputError, match="zero_division='zero'"):
        frame.fairness.by_group(y_true="y", y_pred="pred", by="g", zero_division="zero")


def test_unhashable_group_values_and_bad_random_state_are_clear_errors():
    """Review: list-valued group cells and a text random_state used to raise TypeError."""
    frame = pd.DataFrame(
        {"y": [1, 0, 1, 0], "pred": [1, 1, 0, 0], "g": [[1], [0], [1], [0]], "h": ["a", "a", "b", "b"]}
    )
    with pytest.raises(InvalidInputError, match="by='g'.*holds list values.*explode"):
        frame.fairness.by_group(y_true="y", y_pred="pred", by="g")
    with pytest.raises(InvalidInputError, match="random_state='seed'"):
        frame.fairness.by_group(
            y_true="y", y_pred="pred", by="h", n_resamples=10, random_state="seed", zero_division=0.0
        )


# --------------------------------------------------------------------------------------
# issue 10: identifier names and values that look like result columns; bad input first
# --------------------------------------------------------------------------------------
_BY_GROUP_COLUMNS = ["N", "TP", "FP", "FN", "TN", "selection_rate", "tpr", "fpr", "tnr", "fnr", "accuracy"]


@settings(max_examples=40, deadline=None)
@given(
    name=st.sampled_from([*_BY_GROUP_COLUMNS, "(all)", "g", "sensitive"]),
    values=st.lists(st.sampled_from([*_BY_GROUP_COLUMNS, "(all)", "a"]), min_size=4, max_size=12),
)
def test_by_group_names_and_values_never_collide(name, values):
    n = len(values)
    frame = pd.DataFrame({"y": ([1, 0] * n)[:n], "pred": ([1, 1, 0] * n)[:n], name: values})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        if name in _BY_GROUP_COLUMNS:
            with pytest.raises(InvalidInputError, match="column of the result table"):
                frame.fairness.by_group(y_true="y", y_pred="pred", by=name)
        else:
            table = frame.fairness.by_group(y_true="y", y_pred="pred", by=name)
            assert list(table.columns[:2]) == [name, "N"] and table.columns.is_unique
            assert sorted(table[name]) == sorted(set(values))
            assert table["N"].sum() == n


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"n_resamples": "many"}, "n_resamples='many'"),
        ({"n_resamples": -1}, "n_resamples=-1"),
        ({"confidence": 95}, "confidence=95"),
        ({"zero_division": None}, "zero_division=None.*not an option"),
    ],
)
def test_by_group_options_refused_before_any_work(kwargs, message):
    """Review: by_group(n_resamples='many') warned about missing labels before refusing the option."""
    frame = pd.DataFrame({"y": [1, 0, None, 1], "pred": [1, 0, 1, 1], "g": ["a", "a", "b", "b"]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(InvalidInputError, match=message):
            frame.fairness.by_group(y_true="y", y_pred="pred", by="g", **kwargs)
    assert not caught


@pytest.mark.parametrize(
    "column, value",
    [("pred", [1]), ("y", {"a": 1}), ("g", ["a"])],
)
def test_list_and_dict_cells_are_clear_errors(column, value):
    frame = pd.DataFrame({"y": [1, 0, 1, 0], "pred": [1, 1, 0, 0], "g": ["a", "a", "b", "b"]})
    frame[column] = [value] * 4
    argument = {"pred": "y_pred", "y": "y_true", "g": "by"}[column]
    for method in (frame.fairness.by_group, frame.fairness.group_disparity):
        with pytest.raises(InvalidInputError, match=f"`{argument}='{column}'` holds .* values"):
            method(y_true="y", y_pred="pred", by="g")


def test_multiindex_columns_work_or_say_flatten():
    frame = pd.DataFrame({("a", "y"): [1, 0, 1, 0], ("a", "p"): [1, 1, 0, 0], ("b", "g"): [1, 1, 0, 0]})
    with pytest.raises(InvalidInputError, match="MultiIndex column.*flatten"):
        frame.fairness.by_group(y_true=("a", "y"), y_pred=("a", "p"), by=("b", "g"))
    table = frame.fairness.classification(y_true=("a", "y"), y_pred=("a", "p"), by=("b", "g"))
    assert table["by"].tolist() == [("b", "g"), "(all)"]


def test_undefined_rate_warning_is_short_with_many_groups():
    frame = pd.DataFrame({"y": [1] * 5000, "pred": 1, "g": np.arange(5000)})
    with pytest.warns(UndefinedMetricWarning, match="5000 group.*zero_division=0") as caught:
        frame.fairness.by_group(y_true="y", y_pred="pred", by="g")
    assert all(len(str(w.message)) < 400 for w in caught)
