"""AIF360's individual and inequality measures: ``df.fairness.inequality``, ``.consistency`` and
``.differential_fairness``, exact against AIF360 0.6.1 (skipped when it is not installed), their
edge cases, invariants and engines."""

from __future__ import annotations

import logging
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import assert_close, assert_frame_unchanged
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import pdmetrics
from pdmetrics import ColumnNotFoundError, ExcludedRowsWarning, InvalidInputError, UndefinedMetricWarning
from pdmetrics.errors import NotPartitionableError
from pdmetrics.fairness.inequality_indices import generalized_entropy

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning")

EXACT = {"rtol": 1e-12, "atol": 1e-12}


def aif360():
    """AIF360's datasets and metrics modules (the test skips, saying why, without them)."""
    logging.getLogger().setLevel(logging.ERROR)  # aif360 logs about optional extras on import
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        datasets = pytest.importorskip(
            "aif360.datasets", reason="AIF360 (the `reference` extra) is not installed"
        )
        metrics = pytest.importorskip(
            "aif360.metrics", reason="AIF360 (the `reference` extra) is not installed"
        )
    return datasets, metrics


def labelled(n: int, seed: int) -> pd.DataFrame:
    """Labels, predictions, string groups (one group of one row, one predicting only 1) and
    continuous features."""
    rng = np.random.default_rng(seed)
    race = rng.choice(["asian", "black", "white"], n, p=[0.2, 0.3, 0.5])
    y = (rng.random(n) < 0.4 + 0.1 * (race == "white")).astype(int)
    pred = np.where(rng.random(n) < 0.7, y, 1 - y)
    frame = pd.DataFrame(
        {"y": y, "pred": pred, "race": race, "sex": rng.choice(["F", "M"], n), "x1": rng.normal(size=n)}
    )
    frame["x2"] = rng.normal(size=n) + frame["pred"]
    frame.loc[n - 1, ["race", "y", "pred"]] = ["solo", 0, 0]  # a group of one row
    frame.loc[frame["race"] == "asian", "pred"] = 1  # a group predicting one class only
    return frame


def codes(series: pd.Series) -> pd.Series:
    """A string group column as the numbers AIF360 needs (sorted order)."""
    return pd.Series(pd.factorize(series, sort=True)[0].astype(float), index=series.index)


def binary_dataset(data: pd.DataFrame, label: str, protected: list[str]):
    """AIF360's BinaryLabelDataset of the numeric columns ``data`` (favourable label 1)."""
    datasets, _ = aif360()
    return datasets.BinaryLabelDataset(
        df=data,
        label_names=[label],
        protected_attribute_names=protected,
        favorable_label=1.0,
        unfavorable_label=0.0,
    )


def groups_and(frame: pd.DataFrame, protected: list[str], outcome: str) -> pd.DataFrame:
    """The ``protected`` columns as AIF360's numbers, and ``outcome`` as the float column ``y``."""
    return pd.DataFrame({name: codes(frame[name]) for name in protected}).assign(
        y=frame[outcome].astype(float)
    )


def classification_metric(frame: pd.DataFrame, protected: list[str]):
    """AIF360's ClassificationMetric of ``y``/``pred`` with every intersection of ``protected``."""
    _, metrics = aif360()
    truth = binary_dataset(groups_and(frame, protected, "y"), "y", protected)
    predicted = truth.copy()
    predicted.labels = frame[["pred"]].to_numpy(dtype=float)
    first = protected[0]
    return metrics.ClassificationMetric(
        truth, predicted, unprivileged_groups=[{first: 0.0}], privileged_groups=[{first: 1.0}]
    )


# --------------------------------------------------------------------------------------
# inequality: exact against AIF360
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("alpha", [2, 1, 0.5, 3, -1.5])
@pytest.mark.parametrize("seed", [0, 1])
def test_inequality_equals_aif360(seed, alpha):
    frame = labelled(300, seed)
    metric = classification_metric(frame, ["race", "sex"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (AIF360's log(0) and 0**-alpha)
        expected_ge = metric.generalized_entropy_index(alpha=alpha)
        expected_between = metric.between_all_groups_generalized_entropy_index(alpha=alpha)
    crossed = frame.fairness.inequality(y_true="y", y_pred="pred", by=["race", "sex"], alpha=alpha)
    total = crossed.iloc[-1]
    assert_close(total["generalized_entropy"], expected_ge, **EXACT)
    assert_close(total["theil_index"], metric.theil_index(), **EXACT)
    assert_close(total["coefficient_of_variation"], metric.coefficient_of_variation(), **EXACT)
    if np.isfinite(expected_between):
        assert_close(total["between_group_generalized_entropy"], expected_between, **EXACT)
    else:
        assert total["between_group_generalized_entropy"] == expected_between
    assert_close(total["between_group_theil_index"], metric.between_all_groups_theil_index(), **EXACT)
    alone = frame.fairness.inequality(y_true="y", y_pred="pred", alpha=alpha).iloc[0]
    assert_close(alone["generalized_entropy"], expected_ge, **EXACT)


def test_between_group_indices_of_two_groups_equal_aif360():
    frame = labelled(400, 2).assign(white=lambda d: (d["race"] == "white").map({True: "yes", False: "no"}))
    metric = classification_metric(frame, ["white"])
    table = frame.fairness.inequality(y_true="y", y_pred="pred", by="white", alpha=2)
    total = table.iloc[-1]
    assert_close(
        total["between_group_generalized_entropy"], metric.between_group_generalized_entropy_index(), **EXACT
    )
    assert_close(total["between_group_theil_index"], metric.between_group_theil_index(), **EXACT)
    assert_close(
        np.sqrt(2 * total["between_group_generalized_entropy"]),
        metric.between_group_coefficient_of_variation(),
        **EXACT,
    )


def test_each_groups_own_indices_equal_aif360_on_its_rows():
    frame = labelled(300, 3)
    table = frame.fairness.inequality(y_true="y", y_pred="pred", by="race", alpha=2.5)
    for i, group in enumerate(table["race"].iloc[:-1]):
        rows = frame[frame["race"] == group].reset_index(drop=True)
        metric = classification_metric(rows.assign(flag="a"), ["flag"])
        assert_close(
            table["generalized_entropy"].iloc[i], metric.generalized_entropy_index(alpha=2.5), **EXACT
        )
        assert_close(table["theil_index"].iloc[i], metric.theil_index(), **EXACT)
    assert table.loc[table["race"] == "solo", "generalized_entropy"].item() == 0.0  # one row: equality


def test_alpha_zero_is_the_documented_mean_log_deviation_aif360_divides_by_the_mean():
    frame = labelled(200, 4)
    frame["pred"] = np.where(frame["y"] == 1, 1, frame["pred"])  # no false negative: finite
    metric = classification_metric(frame, ["race"])
    row = frame.fairness.inequality(y_true="y", y_pred="pred", by="race", alpha=0).iloc[-1]
    mean = row["benefit_mean"]
    b = 1 + frame["pred"].to_numpy(float) - frame["y"].to_numpy(float)
    assert_close(row["generalized_entropy"], -np.mean(np.log(b / b.mean())), **EXACT)
    assert_close(row["generalized_entropy"] / mean, metric.generalized_entropy_index(alpha=0), **EXACT)
    between = metric.between_all_groups_generalized_entropy_index(alpha=0)
    assert_close(row["between_group_generalized_entropy"] / mean, between, **EXACT)
    with_false_negatives = labelled(200, 4).fairness.inequality(y_true="y", y_pred="pred", alpha=0)
    assert with_false_negatives["generalized_entropy"].item() == np.inf  # ln 0, as AIF360


def test_a_constant_prediction_equals_aif360():
    frame = labelled(150, 5).assign(pred=1)
    metric = classification_metric(frame, ["race"])
    row = frame.fairness.inequality(y_true="y", y_pred="pred", by="race").iloc[-1]
    assert_close(row["generalized_entropy"], metric.generalized_entropy_index(), **EXACT)
    assert_close(
        row["between_group_generalized_entropy"],
        metric.between_all_groups_generalized_entropy_index(),
        **EXACT,
    )


# --------------------------------------------------------------------------------------
# inequality: the decomposition, the edge cases, the invariants
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("alpha", [2, 1, 0.5, 0])
def test_between_and_within_add_up_and_the_groups_shares_add_up(alpha):
    frame = labelled(500, 6)
    frame["pred"] = np.where(frame["y"] == 1, 1, frame["pred"])  # alpha 0 stays finite
    table = frame.fairness.inequality(y_true="y", y_pred="pred", by=["race", "sex"], alpha=alpha)
    groups, total = table.iloc[:-1], table.iloc[-1]
    for name in ("generalized_entropy", "theil_index"):
        between, within = total[f"between_group_{name}"], total[f"within_group_{name}"]
        assert_close(between + within, total[name], **EXACT)
        assert_close(groups[f"between_group_{name}"].sum(), between, **EXACT)
        assert_close(groups[f"within_group_{name}"].sum(), within, **EXACT)
    # the within share is the group's own index weighted by n_g / n (mu_g / mu)**alpha
    weight = groups["N"] / total["N"] * (groups["benefit_mean"] / total["benefit_mean"]) ** alpha
    assert_close(groups["within_group_generalized_entropy"], weight * groups["generalized_entropy"], **EXACT)


def test_inequality_table_layout_and_attrs():
    frame = labelled(100, 7)
    table = frame.fairness.inequality(y_true="y", y_pred="pred", by="race")
    assert list(table.columns) == [
        "race",
        "N",
        "benefit_mean",
        "generalized_entropy",
        "theil_index",
        "coefficient_of_variation",
        "between_group_generalized_entropy",
        "within_group_generalized_entropy",
        "between_group_theil_index",
        "within_group_theil_index",
    ]
    assert table["race"].tolist() == ["asian", "black", "solo", "white", "(all)"]
    assert isinstance(table.index, pd.RangeIndex)
    assert table.attrs["pdmetrics"]["alpha"] == 2.0 and table.attrs["pdmetrics"]["rows_used"] == 100
    assert table["N"].iloc[-1] == table["N"].iloc[:-1].sum() == 100


def test_inequality_leaves_out_missing_rows_and_never_changes_the_input():
    frame = labelled(120, 8)
    frame["pred"] = frame["pred"].astype(float)
    frame.loc[[3, 4], "pred"] = np.nan
    frame.loc[[5], "race"] = None
    before = frame.copy()
    with pytest.warns(ExcludedRowsWarning, match="2 of 120 rows left out: the label or the prediction"):
        with pytest.warns(ExcludedRowsWarning, match="1 of 120 rows left out: a group value is missing"):
            table = frame.fairness.inequality(y_true="y", y_pred="pred", by="race")
    assert_frame_unchanged(before, frame)
    expected = frame.drop(index=[3, 4, 5]).fairness.inequality(y_true="y", y_pred="pred", by="race")
    pd.testing.assert_frame_equal(table, expected)


def test_a_group_of_false_negatives_only_is_nan_with_a_warning():
    frame = pd.DataFrame({"y": [1, 1, 1, 0, 1], "pred": [0, 0, 1, 0, 1], "g": ["a", "a", "b", "b", "b"]})
    with pytest.warns(UndefinedMetricWarning, match="g='a'.*false negative"):
        table = frame.fairness.inequality(y_true="y", y_pred="pred", by="g")
    assert np.isnan(table["generalized_entropy"].iloc[0])
    assert table["within_group_generalized_entropy"].iloc[0] == 0.0
    total = table.iloc[-1]
    assert_close(total["between_group_generalized_entropy"] + total["within_group_generalized_entropy"],
                 total["generalized_entropy"], **EXACT)  # fmt: skip
    every = pd.DataFrame({"y": [1, 1], "pred": [0, 0]})
    with pytest.warns(UndefinedMetricWarning, match="every row used is a false negative"):
        assert np.isnan(every.fairness.inequality(y_true="y", y_pred="pred")["generalized_entropy"].item())


@pytest.mark.parametrize(
    "frame, options, error, match",
    [
        (pd.DataFrame({"y": [], "pred": []}), {}, InvalidInputError, "no rows"),
        (
            pd.DataFrame({"y": [1, 0], "pred": [np.nan, np.nan]}),
            {},
            InvalidInputError,
            "`y_pred='pred'` has no value",
        ),
        (pd.DataFrame({"y": [1, 0, 2], "pred": [1, 0, 1]}), {}, InvalidInputError, "more than two values"),
        (pd.DataFrame({"y": [1, 0], "pred": [1, 0]}), {"y_pred": "p"}, ColumnNotFoundError, "`y_pred='p'`"),
        (pd.DataFrame({"y": [1, 0], "pred": [1, 0]}), {"alpha": "two"}, InvalidInputError, "`alpha='two'`"),
        (pd.DataFrame({"y": [1, 0], "pred": [1, 0]}), {"alpha": np.inf}, InvalidInputError, "finite"),
        (pd.DataFrame({"y": ["a", "b"], "pred": ["a", "b"]}), {}, InvalidInputError, "pos_label=1"),
        (
            pd.DataFrame({"y": [1, 0], "pred": [1, 0], "N": ["a", "b"]}),
            {"by": "N"},
            InvalidInputError,
            "`by='N'`",
        ),
        (
            pd.DataFrame({"y": [1, 0], "pred": [1, 0], "g": [None, None]}),
            {"by": "g"},
            InvalidInputError,
            "`by`",
        ),
    ],
)
def test_inequality_refuses_bad_input_naming_it(frame, options, error, match):
    kwargs = {"y_true": "y", "y_pred": "pred", **options}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExcludedRowsWarning)
        with pytest.raises(error, match=match):
            frame.fairness.inequality(**kwargs)


benefit_counts = st.lists(st.integers(0, 40), min_size=3, max_size=3)


@settings(max_examples=60, deadline=None)
@given(benefit_counts, st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.0, 3.0]), st.integers(1, 5))
def test_generalized_entropy_is_non_negative_scale_free_and_zero_at_equality(counts, alpha, scale):
    counts = np.array(counts)
    assume(counts.sum() > 0 and counts[1] + counts[2] > 0)
    value = generalized_entropy(counts, alpha)
    assert value >= -1e-12 or np.isinf(value)
    # the same benefits repeated `scale` times: the same index (it depends on shares only)
    assert_close(generalized_entropy(counts * scale, alpha), value, **EXACT)
    for level in (1, 2):  # every row with one benefit
        equal = np.zeros(3, dtype=int)
        equal[level] = counts.sum()
        assert generalized_entropy(equal, alpha) == 0.0


# --------------------------------------------------------------------------------------
# differential fairness
# --------------------------------------------------------------------------------------
def dataset_metric(frame: pd.DataFrame, protected: list[str], outcome: str = "pred"):
    _, metrics = aif360()
    return metrics.BinaryLabelDatasetMetric(
        binary_dataset(groups_and(frame, protected, outcome), "y", protected)
    )


@pytest.mark.parametrize("concentration", [1.0, 0.5, 4.0, 0.0])
@pytest.mark.parametrize("by", [["race"], ["race", "sex"], ["sex"]])
def test_differential_fairness_equals_aif360(by, concentration):
    frame = labelled(300, 9)  # "asian" predicts 1 only, "solo" 0 only: inf unsmoothed
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = dataset_metric(frame, by).smoothed_empirical_differential_fairness(concentration)
    row = frame.fairness.differential_fairness(y_pred="pred", by=by, concentration=concentration).iloc[0]
    if np.isinf(expected):
        assert row["differential_fairness"] == np.inf
    else:
        assert_close(row["differential_fairness"], expected, **EXACT)
    # the pair and outcome shown give the value
    with np.errstate(divide="ignore"):
        assert_close(np.log(row["rate"] / row["versus_rate"]), row["differential_fairness"], **EXACT)
    group = frame[by].eq(pd.Series({name: row[name] for name in by})).all(axis=1)
    positive = frame.loc[group, "pred"].eq(1)
    rate = (positive.sum() + concentration / 2) / (len(positive) + concentration)
    assert_close(row["rate"], rate if row["outcome"] == "positive" else 1 - rate, **EXACT)


def test_differential_fairness_unsmoothed_is_inf_when_a_group_predicts_one_class():
    frame = labelled(200, 10)
    row = frame.fairness.differential_fairness(y_pred="pred", by="race", concentration=0).iloc[0]
    assert row["differential_fairness"] == np.inf
    # "solo" predicts 0 only, "asian" 1 only: a tie of two infinite ratios goes to the positive outcome
    assert row["outcome"] == "positive" and row["versus_race"] == "solo" and row["versus_rate"] == 0.0
    smoothed = frame.fairness.differential_fairness(y_pred="pred", by="race")
    assert np.isfinite(smoothed["differential_fairness"].item())


def test_differential_fairness_layout():
    frame = labelled(200, 11)
    table = frame.fairness.differential_fairness(y_pred="pred", by=["race", "sex"])
    assert list(table.columns) == [
        "race", "sex", "versus_race", "versus_sex", "N", "N_groups", "outcome", "rate", "versus_rate",
        "differential_fairness",
    ]  # fmt: skip
    assert table["N_groups"].item() == frame.groupby(["race", "sex"]).ngroups
    assert table.attrs["pdmetrics"]["concentration"] == 1.0


def test_differential_fairness_of_one_group_is_nan_and_equal_rates_give_zero():
    frame = pd.DataFrame({"pred": [1, 0, 1], "g": ["a", "a", "a"]})
    with pytest.warns(UndefinedMetricWarning, match="single group"):
        assert np.isnan(
            frame.fairness.differential_fairness(y_pred="pred", by="g")["differential_fairness"].item()
        )
    equal = pd.DataFrame({"pred": [1, 0, 1, 0], "g": ["a", "a", "b", "b"]})
    assert (
        equal.fairness.differential_fairness(y_pred="pred", by="g", concentration=0)[
            "differential_fairness"
        ].item()
        == 0
    )


@pytest.mark.parametrize(
    "options, error, match",
    [
        ({"concentration": -1}, InvalidInputError, "`concentration=-1` must be 0 or more"),
        ({"concentration": "a"}, InvalidInputError, "`concentration='a'`"),
        ({"by": "nope"}, ColumnNotFoundError, "`by='nope'`"),
        ({"by": "N"}, InvalidInputError, "`by='N'`"),
        ({"pos_label": 7}, InvalidInputError, "pos_label=7"),
    ],
)
def test_differential_fairness_refuses_bad_input(options, error, match):
    frame = pd.DataFrame({"pred": [1, 0, 1, 0], "g": ["a", "a", "b", "b"], "N": [1, 2, 3, 4]})
    with pytest.raises(error, match=match):
        frame.fairness.differential_fairness(**{"y_pred": "pred", "by": "g", **options})


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), min_size=2, max_size=5), st.floats(0.1, 5))
def test_differential_fairness_is_non_negative_and_symmetric_in_the_outcome(groups, concentration):
    assume(all(pos + neg > 0 for pos, neg in groups))
    pred = np.concatenate([np.r_[np.ones(pos), np.zeros(neg)] for pos, neg in groups]).astype(int)
    g = np.repeat(np.arange(len(groups)), [pos + neg for pos, neg in groups])
    frame = pd.DataFrame({"pred": pred, "g": g})
    assume(frame["pred"].eq(1).any() and frame["pred"].eq(0).any())
    value = frame.fairness.differential_fairness(y_pred="pred", by="g", concentration=concentration)
    flipped = frame.assign(pred=1 - frame["pred"]).fairness.differential_fairness(
        y_pred="pred", by="g", concentration=concentration
    )
    assert value["differential_fairness"].item() >= 0
    assert_close(value["differential_fairness"], flipped["differential_fairness"], **EXACT)


# --------------------------------------------------------------------------------------
# consistency
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("n_neighbors", [1, 3, 5, 10])
@pytest.mark.parametrize("seed", [0, 1])
def test_consistency_equals_aif360(seed, n_neighbors):
    frame = labelled(250, seed).assign(female=lambda d: (d["sex"] == "F").astype(float))
    _, metrics = aif360()
    dataset = binary_dataset(frame[["x1", "x2", "female", "pred"]].astype(float), "pred", ["female"])
    expected = float(
        np.ravel(metrics.BinaryLabelDatasetMetric(dataset).consistency(n_neighbors=n_neighbors))[0]
    )
    table = frame.fairness.consistency(
        features=["x1", "x2", "female"], y_pred="pred", n_neighbors=n_neighbors
    )
    assert_close(table["consistency"], expected, **EXACT)
    assert table["N"].item() == 250 and table["n_neighbors"].item() == n_neighbors


def test_consistency_leaves_out_missing_rows_and_refuses_bad_input():
    frame = labelled(60, 12)
    frame.loc[[1, 2], "x1"] = np.nan
    before = frame.copy()
    with pytest.warns(ExcludedRowsWarning, match="2 of 60 rows left out: a feature or the prediction"):
        table = frame.fairness.consistency(features=["x1", "x2"], y_pred="pred")
    assert_frame_unchanged(before, frame)
    assert table["N"].item() == 58
    with pytest.raises(InvalidInputError, match="`n_neighbors=0` must be a whole number"):
        frame.fairness.consistency(features=["x2"], y_pred="pred", n_neighbors=0)
    with pytest.raises(InvalidInputError, match="`n_neighbors=61` is more than the 60 usable rows"):
        frame.fairness.consistency(features=["x2"], y_pred="pred", n_neighbors=61)
    with pytest.raises(ColumnNotFoundError, match="`features='nope'`"):
        frame.fairness.consistency(features=["nope"], y_pred="pred")
    with pytest.raises(InvalidInputError, match="`features='race'` has no numeric values"):
        frame.fairness.consistency(features=["race"], y_pred="pred")
    with pytest.raises(InvalidInputError, match="no rows"):
        frame.iloc[:0].fairness.consistency(features=["x2"], y_pred="pred")
    with pytest.raises(InvalidInputError, match="more than two values"):
        frame.assign(pred=np.arange(60) % 3).fairness.consistency(features=["x2"], y_pred="pred")


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.floats(-10, 10), st.booleans()), min_size=2, max_size=30), st.integers(1, 4))
def test_consistency_lies_in_0_1_and_is_1_for_a_constant_prediction(rows, k):
    frame = pd.DataFrame(rows, columns=["x", "pred"]).assign(pred=lambda d: d["pred"].astype(int))
    assume(k <= len(frame) and frame["pred"].eq(1).any())
    value = frame.fairness.consistency(features=["x"], y_pred="pred", n_neighbors=k)["consistency"].item()
    assert -1e-12 <= value <= 1 + 1e-12
    assert (
        frame.assign(pred=1)
        .fairness.consistency(features=["x"], y_pred="pred", n_neighbors=k)["consistency"]
        .item()
        == 1.0
    )


# --------------------------------------------------------------------------------------
# engines
# --------------------------------------------------------------------------------------
def test_dask_partitions_give_the_pandas_tables():
    dd = pytest.importorskip("dask.dataframe")
    frame = labelled(400, 13)
    frame["pred"] = frame["pred"].astype(float)
    frame.loc[[7, 8], "pred"] = np.nan
    frame.loc[[9], "race"] = None
    ddf = dd.from_pandas(frame, npartitions=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExcludedRowsWarning)
        for method, options in [
            ("inequality", {"y_true": "y", "y_pred": "pred", "by": ["race", "sex"], "alpha": 1.5}),
            ("inequality", {"y_true": "y", "y_pred": "pred"}),
            ("differential_fairness", {"y_pred": "pred", "by": ["race", "sex"]}),
        ]:
            expected = getattr(frame.fairness, method)(**options)
            result = getattr(ddf.fairness, method)(**options)
            pd.testing.assert_frame_equal(result, expected, rtol=1e-12)
    with pytest.raises(NotPartitionableError, match="compute the columns it needs first"):
        ddf.fairness.consistency(features=["x1"], y_pred="pred")


def test_the_core_functions_are_the_accessor_methods():
    frame = labelled(80, 14)
    pd.testing.assert_frame_equal(
        pdmetrics.fairness.inequality(frame, y_true="y", y_pred="pred", by="race"),
        frame.fairness.inequality(y_true="y", y_pred="pred", by="race"),
    )


def test_wrong_kinds_of_values_are_refused_naming_the_argument():
    lists = pd.DataFrame({"y": [[1], [0]], "pred": [1, 0], "g": ["a", "b"]})
    with pytest.raises(InvalidInputError, match="`y_true='y'` holds list values"):
        lists.fairness.inequality(y_true="y", y_pred="pred")
    mixed = pd.DataFrame({"pred": [1, 0, 1], "g": pd.Series([1, "1", 2], dtype=object)})
    with pytest.raises(InvalidInputError, match="`by='g'` mixes numbers and text"):
        mixed.fairness.differential_fairness(y_pred="pred", by="g")
    flags = pd.DataFrame({"x": [True, False, True], "pred": [1, 0, 1]})
    with pytest.raises(InvalidInputError, match="`features='x'` is a boolean column"):
        flags.fairness.consistency(features="x", y_pred="pred", n_neighbors=2)


def test_differential_fairness_takes_text_outcomes_and_leaves_the_input_unchanged():
    frame = labelled(300, 15).assign(decision=lambda d: d["pred"].map({1: "hire", 0: "reject"}))
    frame.loc[[0, 1], "decision"] = None
    before = frame.copy()
    with pytest.warns(ExcludedRowsWarning, match="2 of 300 rows left out: the prediction is missing"):
        text = frame.fairness.differential_fairness(y_pred="decision", by="race", pos_label="hire")
    assert_frame_unchanged(before, frame)
    numbers = frame.drop(index=[0, 1]).fairness.differential_fairness(y_pred="pred", by="race")
    pd.testing.assert_frame_equal(text, numbers)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 20), min_size=4, max_size=4), min_size=1, max_size=5),
    st.sampled_from([0.5, 1.0, 2.0, 3.0]),
)
def test_the_decomposition_adds_up_for_any_counts(cells, alpha):
    rows = [(g, c) for g, counts in enumerate(cells) for c, k in enumerate(counts) for _ in range(k)]
    assume(len(rows) > 0)
    frame = pd.DataFrame(rows, columns=["g", "cell"])
    frame = frame.assign(y=frame["cell"] // 2, pred=frame["cell"] % 2)
    assume(((frame["y"] == 1) | (frame["pred"] == 1)).any() and (frame["pred"] - frame["y"] + 1).sum() > 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)  # (a group of false negatives only)
        table = frame.fairness.inequality(y_true="y", y_pred="pred", by="g", alpha=alpha)
    total = table.iloc[-1]
    parts = total["between_group_generalized_entropy"] + total["within_group_generalized_entropy"]
    assert_close(parts, total["generalized_entropy"], rtol=1e-9, atol=1e-12)
    assert (
        total["between_group_generalized_entropy"] >= -1e-12
        and total["within_group_generalized_entropy"] >= -1e-12
    )


def test_consistency_of_huge_features_equals_the_same_features_scaled():
    """Features near 1e300 overflowed the squared distances: the k-d tree found no neighbour
    and the table was an IndexError. A power of two scales them exactly."""
    rng = np.random.default_rng(9)
    frame = pd.DataFrame({"f1": rng.random(40), "f2": rng.random(40), "p": rng.integers(0, 2, 40)})
    huge = frame.assign(f1=np.ldexp(frame["f1"], 1000), f2=np.ldexp(frame["f2"], 1000))
    options = {"features": ["f1", "f2"], "y_pred": "p", "n_neighbors": 3}
    pd.testing.assert_frame_equal(huge.fairness.consistency(**options), frame.fairness.consistency(**options))
