"""Multiclass and ordinal labels in ``classification`` and ``by_group`` (``classes=``, ``ordinal=``).

Each class is checked one vs rest against fairlearn's ``MetricFrame`` on the binarised labels
and AIF360's ``ClassificationMetric`` with ``favorable_label=c`` (both skipped when missing), on
data with a class absent from one group, a group of one row and a constant prediction.
"""

from __future__ import annotations

import logging
import warnings
from functools import partial

import numpy as np
import pandas as pd
import pytest
from conftest import assert_close, assert_frame_unchanged
from hypothesis import given, settings
from hypothesis import strategies as st

import pdmetrics  # noqa: F401
from pdmetrics.errors import ExcludedRowsWarning, InvalidInputError, UndefinedMetricWarning
from pdmetrics.fairness import by_group, classification, confusion_counts
from pdmetrics.fairness.multiclass import cumulative_splits, one_vs_rest, worst_class
from pdmetrics.fairness.parity import FAIRNESS_METRICS

#: The classes of each kind of label column, in the order ``classes="all"`` reports them.
VALUES = {
    "int": [10, 20, 30, 40],
    "str": ["a", "b", "c", "d"],
    "category": ["low", "mid", "high", "top"],  # category order, not the sorted one
}


def labels(n: int, seed: int, kind: str = "int", constant: bool = False) -> pd.DataFrame:
    """4 classes; class 4 never occurs in group "c" (truth or prediction); group "solo" has one row."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, n)
    pred = np.where(rng.random(n) < 0.6, y, rng.integers(0, 4, n))
    g = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
    y = np.where((g == "c") & (y == 3), 2, y)
    pred = np.where((g == "c") & (pred == 3), 1, pred)
    if constant:
        pred = np.full(n, 1)
    y, pred, g = np.append(y, 0), np.append(pred, 1 if constant else 2), np.append(g, "solo")
    values = np.array(VALUES[kind], dtype=object)
    frame = pd.DataFrame({"y": values[y], "pred": values[pred], "g": g, "sex": rng.integers(0, 2, n + 1)})
    if kind == "int":
        frame = frame.astype({"y": "int64", "pred": "int64"})
    if kind == "category":
        dtype = pd.CategoricalDtype(VALUES[kind])
        frame = frame.astype({"y": dtype, "pred": dtype})
    return frame


CASES = [(0, "int", False), (1, "str", False), (2, "category", False), (3, "int", True)]


@pytest.mark.parametrize(("seed", "kind", "constant"), CASES)
def test_by_group_equals_fairlearn_metricframe_per_class(seed, kind, constant):
    fl = pytest.importorskip("fairlearn.metrics")
    from sklearn.metrics import precision_score

    frame = labels(600, seed, kind, constant)
    before = frame.copy()
    table = frame.fairness.by_group(y_true="y", y_pred="pred", by="g", classes="all", zero_division=0)
    assert_frame_unchanged(before, frame)
    assert list(table.columns[:8]) == ["g", "class", "N", "TP", "FP", "FN", "TN", "selection_rate"]
    present = [v for v in VALUES[kind] if v in set(frame["y"]) | set(frame["pred"])]
    assert table["class"].tolist()[: len(present)] == present
    for c in present:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # sklearn warns about its own zero divisions
            reference = fl.MetricFrame(
                metrics={
                    "selection_rate": fl.selection_rate,
                    "tpr": fl.true_positive_rate,
                    "fpr": fl.false_positive_rate,
                    "precision": partial(precision_score, zero_division=0),
                },
                y_true=(frame["y"] == c).astype(int),
                y_pred=(frame["pred"] == c).astype(int),
                sensitive_features=frame["g"],
            ).by_group
        ours = table[table["class"] == c].set_index("g")
        assert ours.index.tolist() == reference.index.tolist()
        for name in ("selection_rate", "tpr", "fpr", "precision"):
            assert_close(ours[name], reference[name], rtol=1e-12, what=f"{c} {name}")


def _aif360_metric(frame: pd.DataFrame, c, privileged: np.ndarray):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        logging.getLogger().setLevel(logging.ERROR)  # aif360 logs about optional extras on import
        datasets = pytest.importorskip("aif360.datasets")
        metrics = pytest.importorskip("aif360.metrics")
    codes = {value: float(i) for i, value in enumerate(pd.unique(pd.concat([frame["y"], frame["pred"]])))}
    favourable = codes[c]

    def binarised(column: str) -> np.ndarray:
        numbers = frame[column].astype(object).map(codes).to_numpy(dtype=float)
        return np.where(numbers == favourable, favourable, -1.0)[:, None]

    truth = datasets.BinaryLabelDataset(
        df=pd.DataFrame({"y": binarised("y")[:, 0], "priv": privileged.astype(float)}),
        label_names=["y"],
        protected_attribute_names=["priv"],
        favorable_label=favourable,
        unfavorable_label=-1.0,
    )
    predicted = truth.copy()
    predicted.labels = binarised("pred")
    return metrics.ClassificationMetric(
        truth, predicted, unprivileged_groups=[{"priv": 0.0}], privileged_groups=[{"priv": 1.0}]
    )


@pytest.mark.parametrize(("seed", "kind", "constant"), CASES)
def test_classification_equals_aif360_with_each_favourable_class(seed, kind, constant):
    frame = labels(500, seed, kind, constant)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        table = frame.fairness.classification(
            y_true="y",
            y_pred="pred",
            by=["g", "sex"],
            privileged={"g": "c"},
            classes="all",
            zero_division="warn",
        )
    assert list(table.columns[:3]) == ["by", "class", "N"]
    for column, privileged in (("g", frame["g"].eq("c").to_numpy()), ("sex", frame["sex"].gt(0).to_numpy())):
        rows = table[table["by"] == column].set_index("class")
        for c in rows.index.drop("macro"):
            metric = _aif360_metric(frame, c, privileged)
            with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = {
                    "statistical_parity_difference": metric.statistical_parity_difference(),
                    "disparate_impact": metric.disparate_impact(),
                    "average_odds_difference": metric.average_odds_difference(),
                    "average_abs_odds_difference": metric.average_abs_odds_difference(),
                    "equal_opportunity_difference": metric.equal_opportunity_difference(),
                    "precision": metric.precision(),
                    "recall": metric.recall(),
                }
            if not (frame["pred"] == c).any():  # no predicted positive: AIF360 0.0, ours NaN (zero_division)
                assert np.isnan(rows.loc[c, "precision"]) and expected.pop("precision") == 0
            for name, value in expected.items():
                assert_close(rows.loc[c, name], value, rtol=1e-12, what=f"{column} {c} {name}")


def test_class_absent_from_a_group_gives_the_documented_values():
    frame = labels(400, 5, "int")
    # class 40 occurs in neither the truth nor the prediction of group "c" (the privileged one)
    with pytest.warns(UndefinedMetricWarning, match="zero_division"):
        table = frame.fairness.classification(
            y_true="y", y_pred="pred", by="g", privileged="c", classes="all", zero_division="warn"
        )
    row = table[(table["by"] == "g") & (table["class"] == 40)].iloc[0]
    assert np.isnan(row["equal_opportunity_difference"]) and np.isnan(row["average_odds_difference"])
    assert np.isinf(row["disparate_impact"])  # privileged selection rate 0, unprivileged not
    worst = table[(table["by"] == "g") & (table["class"] == 40)]
    assert len(worst) == 1
    with pytest.warns(UndefinedMetricWarning, match="zero_division"):
        table = frame.fairness.classification(
            y_true="y", y_pred="pred", by="g", privileged="c", classes="all"
        )
    row = table[(table["by"] == "g") & (table["class"] == 40)].iloc[0]
    assert row["equal_opportunity_difference"] == 1.0  # "worst", the default
    rates = frame.fairness.by_group(y_true="y", y_pred="pred", by="g", classes="all", zero_division=0)
    c40 = rates[(rates["g"] == "c") & (rates["class"] == 40)].iloc[0]
    assert (c40["TP"], c40["FP"], c40["FN"], c40["selection_rate"], c40["tpr"]) == (0, 0, 0, 0.0, 0.0)
    solo = rates[rates["g"] == "solo"]
    assert solo["N"].tolist() == [1, 1, 1, 1] and solo["TP"].sum() == 0


def test_macro_rows_average_the_classes_and_worst_is_furthest_from_parity():
    frame = labels(800, 7, "str")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        table = frame.fairness.classification(
            y_true="y", y_pred="pred", by=["g", "sex"], privileged={"g": "a"}, classes="all"
        )
        worst = frame.fairness.classification(
            y_true="y", y_pred="pred", by=["g", "sex"], privileged={"g": "a"}, classes="all", table="worst"
        )
    assert table["by"].unique().tolist() == ["g", "sex", "(all)"]
    assert list(worst.columns) == ["by", "metric", "class", "value"]
    for by, rows in table.groupby("by", sort=False):
        classes = rows[rows["class"] != "macro"]
        macro = rows[rows["class"] == "macro"].iloc[0]
        for name in (*FAIRNESS_METRICS, "accuracy", "precision", "recall"):
            assert_close(macro[name], np.nanmean(classes[name]), rtol=1e-12, what=name)
        for name in FAIRNESS_METRICS:
            values = classes[name].to_numpy(float)
            distance = np.abs(np.log(values)) if name == "disparate_impact" else np.abs(values)
            expected = classes["class"].iloc[int(np.nanargmax(distance))]
            found = worst[(worst["by"] == by) & (worst["metric"] == name)].iloc[0]
            assert (
                found["class"] == expected
                and found["value"] == classes[name].iloc[int(np.nanargmax(distance))]
            )
    rows = table[table["by"] == "(all)"].set_index("class")
    for name in FAIRNESS_METRICS:
        expected = table[table["by"].isin(["g", "sex"])].groupby("class", sort=False)[name].mean()
        assert_close(rows.loc[expected.index, name], expected, rtol=1e-12, what=name)


def test_by_group_macro_table():
    frame = labels(500, 8, "int")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        rates = frame.fairness.by_group(y_true="y", y_pred="pred", by="g", classes="all")
        macro = frame.fairness.by_group(y_true="y", y_pred="pred", by="g", classes="all", table="macro")
    assert list(macro.columns[:3]) == ["g", "class", "N"] and set(macro["class"]) == {"macro"}
    expected = rates.groupby("g")[["selection_rate", "tpr", "fpr", "precision"]].mean()
    assert_close(macro.set_index("g").loc[expected.index, expected.columns], expected, rtol=1e-12)


@pytest.mark.parametrize("kind", ["int", "str", "category"])
def test_ordinal_cumulative_splits_and_levels(kind):
    frame = labels(700, 11, kind)
    order = VALUES[kind]
    rank = {value: i for i, value in enumerate(order)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        rates = frame.fairness.by_group(y_true="y", y_pred="pred", by="g", classes=order, ordinal=True)
        parity = frame.fairness.classification(
            y_true="y", y_pred="pred", by="sex", classes=order, ordinal=True, zero_division="warn"
        )
    assert rates["class"].tolist()[:7] == [*order, *(f">= {v}" for v in order[1:])]
    truth = frame["y"].astype(object).map(rank)
    predicted = frame["pred"].astype(object).map(rank)
    for k, value in enumerate(order[1:], start=1):
        binary = frame.assign(t=(truth >= k).astype(int), p=(predicted >= k).astype(int))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            expected = binary.fairness.by_group(y_true="t", y_pred="p", by="g")
            split = rates[rates["class"] == f">= {value}"].reset_index(drop=True)
            assert_close(split[["N", "TP", "FP", "FN", "TN"]], expected[["N", "TP", "FP", "FN", "TN"]])
            expected = binary.fairness.classification(y_true="t", y_pred="p", by="sex", zero_division="warn")
        row = parity[(parity["by"] == "sex") & (parity["class"] == f">= {value}")].iloc[0]
        for name in FAIRNESS_METRICS:
            assert_close(row[name], expected[name].iloc[0], rtol=1e-12, what=name)
    levels = frame.fairness.by_group(
        y_true="y", y_pred="pred", by="g", classes=order, ordinal=True, table="levels"
    )
    assert list(levels.columns) == ["g", "N", "mean_true", "mean_pred", "mean_difference"]
    level = frame.assign(
        t=frame["y"].astype(object).map(rank) + (0 if kind == "int" else 1),
        p=frame["pred"].astype(object).map(rank) + (0 if kind == "int" else 1),
    )
    if kind == "int":  # numbers: the level is the class value
        level = frame.assign(t=frame["y"], p=frame["pred"])
    expected = level.groupby("g")[["t", "p"]].mean()
    assert_close(levels["mean_true"], expected["t"], rtol=1e-12)
    assert_close(levels["mean_pred"], expected["p"], rtol=1e-12)
    assert_close(levels["mean_difference"], expected["p"] - expected["t"], rtol=1e-12)


def test_a_list_of_classes_keeps_its_order_and_others_are_rest():
    frame = labels(300, 4, "str")
    rates = frame.fairness.by_group(y_true="y", y_pred="pred", by="g", classes=["d", "a"], zero_division=0)
    assert rates["class"].tolist()[:2] == ["d", "a"]
    assert (rates.groupby("g")["N"].first() == frame.groupby("g").size()).all()


def test_engines_give_the_pandas_table():
    dd = pytest.importorskip("dask.dataframe")
    from tests.test_dask_fairness import assert_same_table

    frame = labels(900, 12, "int").sort_values("y", ignore_index=True)  # partitions see different classes
    calls = [
        ("classification", dict(by=["g", "sex"], privileged={"g": "a"}, classes="all", ordinal=True)),
        ("classification", dict(by="sex", threshold="midrange", classes="all", table="worst")),
        ("by_group", dict(by=["g", "sex"], classes="all", ordinal=True)),
        ("by_group", dict(by="g", classes=[30, 10], table="macro")),
        ("by_group", dict(by="g", classes="all", ordinal=True, table="levels")),
    ]
    for name, options in calls:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            expected = getattr(frame.fairness, name)(y_true="y", y_pred="pred", **options)
            result = getattr(dd.from_pandas(frame, npartitions=3).fairness, name)(
                y_true="y", y_pred="pred", **options
            )
        # (dask reads text columns as pyarrow strings, whichever the table: compare their values)
        text = {name: object for name in expected.columns if pd.api.types.is_string_dtype(expected[name])}
        assert_same_table(result.astype(text), expected.astype(text))


@pytest.mark.parametrize(
    ("options", "match"),
    [
        (dict(classes="all", pos_label=2), "pos_label=2"),
        (dict(classes="some"), "classes='some'"),
        (dict(classes=[]), "non-empty list"),
        (dict(classes=[10, 10]), "twice"),
        (dict(classes=[10, 99]), "99"),
        (dict(classes=["10"]), '1 and "1" differ'),
        (dict(ordinal=True), "ordinal=True"),
        (dict(classes=[10, 20], ordinal=True), "not listed"),
        (dict(classes="all", n_resamples=10), "n_resamples"),
        (dict(table="worst"), "per-class table"),
        (dict(classes="all", table="nope"), "table='nope'"),
    ],
)
def test_wrong_options_are_refused_clearly(options, match):
    frame = labels(100, 0, "int")
    with pytest.raises(InvalidInputError, match=match):
        frame.fairness.classification(y_true="y", y_pred="pred", by="g", privileged="a", **options)


def test_by_group_refusals():
    frame = labels(100, 0, "int")
    with pytest.raises(InvalidInputError, match="ordinal=True"):
        frame.fairness.by_group(y_true="y", y_pred="pred", by="g", classes="all", table="levels")
    with pytest.raises(InvalidInputError, match="per-class table"):
        frame.fairness.by_group(y_true="y", y_pred="pred", by="g", table="macro")
    with pytest.raises(InvalidInputError, match="class"):
        frame.rename(columns={"g": "class"}).fairness.by_group(
            y_true="y", y_pred="pred", by="class", classes="all"
        )
    with pytest.raises(InvalidInputError, match="no rows"):
        frame.iloc[:0].fairness.by_group(y_true="y", y_pred="pred", by="g", classes="all")


def test_count_helpers():
    square = np.array([[2, 1, 0], [0, 3, 1], [1, 0, 2]])
    per_class = one_vs_rest(square, np.arange(3))
    assert (per_class.sum(axis=1) == square.sum()).all()
    assert per_class[:, 3].tolist() == [2, 3, 2]
    assert cumulative_splits(square)[:, 3].tolist() == [6, 2]
    assert worst_class(np.array([np.nan, np.nan]), ratio=False) == -1


def test_binary_tables_are_unchanged_without_classes():
    frame = labels(200, 3, "int").assign(
        y=lambda d: (d["y"] > 20).astype(int), pred=lambda d: (d["pred"] > 20).astype(int)
    )
    table = classification(frame, y_true="y", y_pred="pred", by="sex")
    assert "class" not in table.columns
    assert "class" not in by_group(frame, y_true="y", y_pred="pred", by="g", zero_division=0).columns


def test_confusion_counts_per_class_equal_the_by_group_counts():
    frame = labels(400, 9, "str")
    codes = frame["g"].map({"a": 0, "b": 1, "c": 2, "solo": 3}).to_numpy()
    counts = confusion_counts(frame["y"].to_numpy(), frame["pred"].to_numpy(), codes, 4, classes=["b", "d"])
    rates = frame.fairness.by_group(y_true="y", y_pred="pred", by="g", classes=["b", "d"], zero_division=0)
    expected = rates[["TN", "FP", "FN", "TP"]].to_numpy().reshape(4, 2, 4)
    assert counts.shape == (4, 2, 4) and (counts == expected).all()


def test_label_columns_are_checked_by_name():
    frame = pd.DataFrame({"y": [1, 2], "pred": ["1", "2"], "g": ["a", "b"]})
    with pytest.raises(InvalidInputError, match="`y_true='y'` with `y_pred='pred'` mixes numbers and text"):
        frame.fairness.classification(y_true="y", y_pred="pred", by="g", classes="all")
    with pytest.raises(InvalidInputError, match="`y_true='y'` holds list values"):
        frame.assign(y=[[1], [2]]).fairness.by_group(y_true="y", y_pred="pred", by="g", classes="all")
    with pytest.raises(InvalidInputError, match="no value"):
        frame.assign(y=None).fairness.by_group(y_true="y", y_pred="pred", by="g", classes="all")


def test_rows_missing_a_label_are_left_out_with_a_warning():
    frame = labels(200, 2, "int").astype({"y": "float64"})
    frame.loc[[3, 7], "y"] = np.nan
    with pytest.warns(ExcludedRowsWarning, match="2 of 201 rows left out"):
        rates = frame.fairness.by_group(y_true="y", y_pred="pred", by="g", classes="all", zero_division=0)
    assert rates.groupby("g")["N"].first().sum() == 199


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.sampled_from("abc")), min_size=1, max_size=40)
)
def test_each_class_is_the_binary_table_of_its_binarised_labels(rows):
    frame = pd.DataFrame(rows, columns=["y", "pred", "g"])
    rates = frame.fairness.by_group(
        y_true="y", y_pred="pred", by="g", classes="all", ordinal=True, zero_division=0
    )
    present = sorted(set(frame["y"]) | set(frame["pred"]))
    for k, c in enumerate(present):
        for label, t, p in (
            (c, frame["y"] == c, frame["pred"] == c),
            (f">= {c}", frame["y"] >= c, frame["pred"] >= c),
        ):
            if k == 0 and label != c:
                continue
            binary = frame.assign(t=t.astype(int), p=p.astype(int), one=1)
            counts = binary.groupby("g").apply(
                lambda d: pd.Series(
                    {
                        "TP": int((d.t & d.p).sum()),
                        "FP": int((~d.t.astype(bool) & d.p.astype(bool)).sum()),
                        "FN": int((d.t.astype(bool) & ~d.p.astype(bool)).sum()),
                        "N": len(d),
                    }
                ),
                include_groups=False,
            )
            ours = rates[rates["class"] == label].set_index("g")[["TP", "FP", "FN", "N"]]
            assert (ours.loc[counts.index].to_numpy() == counts.to_numpy()).all()


def test_ordinal_classes_with_no_group_left_give_an_empty_table():
    """Every group value missing with `ordinal=True`: an empty table, not an index error."""
    frame = labels(60, 7).assign(g=np.nan)
    with pytest.warns(ExcludedRowsWarning, match="61 of 61 rows left out"):
        table = frame.fairness.by_group(y_true="y", y_pred="pred", by="g", classes="all", ordinal=True)
    assert table.empty and list(table.columns[:3]) == ["g", "class", "N"]
    assert cumulative_splits(np.zeros((2, 0, 0), dtype=np.int64)).shape == (2, 0, 4)


def test_a_class_spelled_like_the_macro_or_a_split_row_is_refused():
    """A class "macro" printed like the macro average row; ">= b" like the split at b."""
    frame = pd.DataFrame({"y": ["a", "b", "macro"] * 4, "pred": ["a", "macro", "b"] * 4, "g": ["u", "v"] * 6})
    with pytest.raises(
        InvalidInputError, match=r"The class 'macro' is spelled like a row the `class` column adds"
    ):
        frame.fairness.classification(y_true="y", y_pred="pred", by="g", privileged="u", classes="all")
    split = frame.replace({"macro": ">= b"})
    with pytest.raises(InvalidInputError, match=r"The class '>= b' is spelled like a row"):
        split.fairness.by_group(y_true="y", y_pred="pred", by="g", classes=["a", "b", ">= b"], ordinal=True)
    table = split.fairness.by_group(y_true="y", y_pred="pred", by="g", classes="all")  # no split rows
    assert table["class"].tolist()[:3] == [">= b", "a", "b"]


def test_a_binary_call_on_several_classes_points_to_classes():
    frame = pd.DataFrame({"g": list("aabbcc"), "y": list("xyzxyz"), "p": list("xyyxzz")})
    with pytest.raises(InvalidInputError, match=r"never occurs.*`classes='all'`"):
        frame.fairness.by_group(y_true="y", y_pred="p", by="g")
    with pytest.raises(InvalidInputError, match=r"more than two values.*`classes='all'`"):
        frame.fairness.gap_tests(y_true="y", y_pred="p", by="g", pos_label="x")
