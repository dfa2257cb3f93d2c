"""Classification fairness (SPD, DI, AOD, EOD): conformance, undefined cases, properties."""

from __future__ import annotations

import json
import re
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from conftest import assert_close, assert_frame_unchanged, conformance_path
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import pdmetrics  # noqa: F401
from pdmetrics.errors import (
    ColumnNotFoundError,
    ExcludedRowsWarning,
    InvalidInputError,
    UndefinedMetricWarning,
)
from pdmetrics.fairness import (
    average_abs_odds_difference,
    average_odds_difference,
    classification,
    disparate_impact,
    equal_opportunity_difference,
    fairness_from_counts,
    statistical_parity_difference,
)

pytestmark = pytest.mark.filterwarnings("error::pdmetrics.errors.PdmetricsWarning")

COLUMNS = [
    "by",
    "N",
    "N_privileged",
    "N_unprivileged",
    "N_missing",
    "statistical_parity_difference",
    "disparate_impact",
    "average_odds_difference",
    "average_abs_odds_difference",
    "equal_opportunity_difference",
    "accuracy",
    "precision",
    "recall",
]


def _vectors() -> dict:
    return json.loads(conformance_path("fai3", "expected.json").read_text())


@pytest.fixture
def twenty():
    case = _vectors()["classification_20_rows"]
    frame = pd.DataFrame({"male": case["male"], "y": case["y_true"], "pred": case["y_pred"]})
    return frame, case


# --------------------------------------------------------------------------------------
# conformance: fai3/expected.json
# --------------------------------------------------------------------------------------
# The reference prints 7 significant digits (f32); the exact values are these fractions
# (counts: privileged TN, FP, FN, TP = 2, 2, 1, 6; unprivileged 3, 2, 1, 3).
EXACT_20 = {
    "accuracy": Fraction(14, 20),
    "precision": Fraction(9, 13),
    "recall": Fraction(9, 11),
    "statistical_parity_difference": Fraction(5, 9) - Fraction(8, 11),
    "disparate_impact": Fraction(5, 9) / Fraction(8, 11),
    "average_odds_difference": ((Fraction(2, 5) - Fraction(2, 4)) + (Fraction(3, 4) - Fraction(6, 7))) / 2,
    "average_abs_odds_difference": (Fraction(1, 10) + Fraction(3, 28)) / 2,
    "equal_opportunity_difference": Fraction(3, 4) - Fraction(6, 7),
}
REFERENCE_NAME = {"average_odds_difference": "average_odds_difference_signed"}


@pytest.mark.parametrize("threshold", [0.0, 0.5, "midrange"])
def test_twenty_rows_vector(twenty, threshold):
    frame, case = twenty
    table = frame.fairness.classification(y_true="y", y_pred="pred", by="male", threshold=threshold)
    assert list(table.columns) == COLUMNS
    assert table["by"].tolist() == ["male", "(all)"]
    assert table.loc[0, ["N", "N_privileged", "N_unprivileged", "N_missing"]].tolist() == [20, 11, 9, 0]
    for name, exact in EXACT_20.items():
        assert_close(table[name], [float(exact)] * 2, rtol=1e-12, what=name)
        expected = case["expected"][REFERENCE_NAME.get(name, name)]
        # the reference's printed digits: equal within the vector's stated tolerance
        assert abs(table.loc[0, name] - expected) <= case["tolerance"], name
        decimals = len(repr(expected).split(".")[1])  # the exact value rounds to the printed digits
        assert abs(float(exact) - expected) <= 0.5 * 10.0**-decimals, name


def test_twenty_rows_signed_and_absolute_aod(twenty):
    frame, case = twenty
    args = (frame["y"], frame["pred"], frame["male"] > 0)
    assert average_odds_difference(*args) == pytest.approx(-0.10357142857142857, rel=1e-12)
    assert average_abs_odds_difference(*args) == pytest.approx(0.10357142857142857, rel=1e-12)
    expected = case["expected"]
    assert expected["average_odds_difference_signed"] < 0 < expected["average_abs_odds_difference"]


def _pairs_to_arrays(privileged, unprivileged):
    y_true = [p[0] for p in privileged] + [u[0] for u in unprivileged]
    y_pred = [p[1] for p in privileged] + [u[1] for u in unprivileged]
    mask = [True] * len(privileged) + [False] * len(unprivileged)
    return y_true, y_pred, mask


def test_unit_case_spd_di():
    case = _vectors()["unit_cases"][0]
    y_true, y_pred, mask = _pairs_to_arrays(case["privileged"], case["unprivileged"])
    expected = case["expected"]
    assert statistical_parity_difference(y_true, y_pred, mask) == expected["statistical_parity_difference"]
    assert disparate_impact(y_true, y_pred, mask) == case["expected"]["disparate_impact"]


def test_unit_case_eod():
    case = _vectors()["unit_cases"][1]
    y_true, y_pred, mask = _pairs_to_arrays(case["privileged"], case["unprivileged"])
    expected = case["expected"]["equal_opportunity_difference"]
    assert equal_opportunity_difference(y_true, y_pred, mask) == expected


def test_unit_case_aod_identical_groups():
    case = _vectors()["unit_cases"][2]
    rows = [(1, 1), (1, 0), (0, 0), (0, 1)]
    y_true, y_pred, mask = _pairs_to_arrays(rows, rows)
    assert average_odds_difference(y_true, y_pred, mask) == case["expected"]["average_odds_difference_signed"]
    assert average_abs_odds_difference(y_true, y_pred, mask) == 0.0


@pytest.mark.parametrize(
    "index, metric, y_true, y_pred",
    [
        (3, "precision", [1, 1, 0, 0], [1, 1, 1, 1]),
        (4, "recall", [1, 1, 0, 0], [1, 0, 0, 0]),
    ],
)
def test_unit_case_precision_recall(index, metric, y_true, y_pred):
    case = _vectors()["unit_cases"][index]
    sensitive = pd.Series([1, 0, 1, 0], name="g")
    frame = pd.DataFrame(
        {"y": y_true + y_true, "pred": y_pred + y_pred, "g": pd.concat([sensitive, sensitive])}
    )
    table = classification(frame.reset_index(drop=True), y_true="y", y_pred="pred", by="g")
    assert table.loc[0, metric] == case["expected"][metric]


def test_unit_case_empty_data_and_single_group():
    """unit case 5: the reference traps; we raise clearly or follow the undefined-value policy."""
    empty = pd.DataFrame(
        {
            "y": pd.Series([], dtype="int64"),
            "pred": pd.Series([], dtype="int64"),
            "g": pd.Series([], dtype="float64"),
        }
    )
    with pytest.raises(InvalidInputError, match=r"The data has no rows, so no usable rows"):
        empty.fairness.classification(y_true="y", y_pred="pred", by="g")
    with pytest.raises(InvalidInputError, match=r"The data has no rows, so no usable rows"):
        empty.fairness.classification(y_true="y", y_pred="pred", by="g", zero_division=0.5)
    single = pd.DataFrame({"y": [1, 0, 1], "pred": [1, 0, 0], "g": [1, 1, 1]})
    with pytest.warns(UndefinedMetricWarning, match="the unprivileged group has no rows"):
        table = single.fairness.classification(y_true="y", y_pred="pred", by="g")
    assert table.loc[0, list(COLUMNS[5:10])].isna().all()
    assert table.loc[0, "accuracy"] == pytest.approx(2 / 3)


# --------------------------------------------------------------------------------------
# undefined cases and the options that control them
# --------------------------------------------------------------------------------------
@pytest.fixture
def two_columns():
    return pd.DataFrame(
        {
            "y": [1, 0, 1, 0, 1, 0, 1, 0],
            "pred": [1, 0, 1, 1, 0, 0, 1, 1],
            "a": [1, 1, 1, 1, 0, 0, 0, 0],
            "b": [5, 5, 5, 5, 5, 5, 5, 5],  # everybody privileged: empty unprivileged group
        }
    )


def test_empty_group_is_nan_and_spares_other_columns(two_columns):
    before = two_columns.copy()
    with pytest.warns(UndefinedMetricWarning, match="column 'b' of `by=`"):
        table = two_columns.fairness.classification(y_true="y", y_pred="pred", by=["a", "b"])
    assert table.loc[1, list(COLUMNS[5:10])].isna().all()
    assert table.loc[0, list(COLUMNS[5:10])].notna().all()
    # the average skips the undefined column
    assert_close(table.loc[2, COLUMNS[5:10]].astype(float), table.loc[0, COLUMNS[5:10]].astype(float))
    assert table["N_privileged"].dtype == "Int64" and pd.isna(table.loc[2, "N_privileged"])
    assert_frame_unchanged(before, two_columns)


def test_disparate_impact_inf_and_nan():
    priv_zero = [[2, 0, 2, 0]]  # privileged: nobody selected
    unpriv = [[1, 1, 1, 1]]
    out = fairness_from_counts(priv_zero, unpriv, metrics=("disparate_impact",))
    assert out["disparate_impact"][0] == np.inf
    with pytest.warns(UndefinedMetricWarning, match="0/0"):
        out = fairness_from_counts(priv_zero, [[2, 0, 2, 0]], metrics=("disparate_impact",))
    assert np.isnan(out["disparate_impact"][0])


@pytest.mark.parametrize("policy, expected", [("worst", 1.0), ("warn", np.nan)])
def test_no_positives_policy(policy, expected):
    priv = [[2, 1, 0, 0]]  # privileged group has no actual positives
    unpriv = [[1, 1, 1, 1]]
    with pytest.warns(UndefinedMetricWarning, match=f"zero_division={policy!r}"):
        out = fairness_from_counts(priv, unpriv, zero_division=policy)
    for name in ("equal_opportunity_difference", "average_odds_difference", "average_abs_odds_difference"):
        assert_close(out[name], [expected], what=name)
    assert_close(out["statistical_parity_difference"], [0.5 - 1 / 3])


def test_no_positives_number_or_error():
    out = fairness_from_counts([[2, 1, 0, 0]], [[1, 1, 1, 1]], zero_division=0.25)  # silently
    assert_close(out["equal_opportunity_difference"], [0.25])
    with pytest.raises(InvalidInputError, match="zero_division='zero'.*worst"):
        fairness_from_counts([[2, 1, 0, 0]], [[1, 1, 1, 1]], zero_division="zero")
    with warnings.catch_warnings():  # an error instead of a value: the warning filter
        warnings.simplefilter("error", UndefinedMetricWarning)
        with pytest.raises(UndefinedMetricWarning, match="privileged group has no actual positives"):
            fairness_from_counts([[2, 1, 0, 0]], [[1, 1, 1, 1]])


def test_no_negatives_affects_odds_not_opportunity():
    with pytest.warns(UndefinedMetricWarning, match="odds difference is undefined"):
        out = fairness_from_counts([[0, 0, 1, 2]], [[1, 1, 1, 1]])
    assert out["average_odds_difference"][0] == 1.0
    assert out["equal_opportunity_difference"][0] == pytest.approx(0.5 - 2 / 3)


@pytest.mark.parametrize(
    "y_true, y_pred, message",
    [
        ([0, 0, 0, 0], [1, 0, 1, 0], "recall (no actual positive)"),
        ([1, 0, 1, 0], [0, 0, 0, 0], "precision (no predicted positive)"),
    ],
)
def test_overall_metrics_nan_with_warning_unless_zero_division(y_true, y_pred, message):
    """DESIGN: an undefined result is NaN + UndefinedMetricWarning naming zero_division (it raised)."""
    frame = pd.DataFrame({"y": y_true, "pred": y_pred, "g": [1, 0, 1, 0]})
    name = message.split()[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = frame.fairness.classification(y_true="y", y_pred="pred", by="g")
    messages = " | ".join(str(w.message) for w in caught)
    assert re.search(re.escape(message) + ".*zero_division=0", messages), messages
    assert table[name].isna().all()
    with warnings.catch_warnings(record=True) as caught:  # the fairness metrics may still warn
        warnings.simplefilter("always")
        table = frame.fairness.classification(y_true="y", y_pred="pred", by="g", zero_division=0.0)
    assert name not in " | ".join(str(w.message) for w in caught)
    assert (table[name] == 0.0).all()


def test_missing_sensitive_rows_left_out_and_counted():
    frame = pd.DataFrame(
        {"y": [1, 0, 1, 0, 1, 0, 1], "pred": [1, 0, 0, 1, 1, 0, 1], "g": [1, 1, 0, 0, np.nan, 1, 0]}
    )
    before = frame.copy()
    with pytest.warns(ExcludedRowsWarning, match="1 of 7 rows"):
        table = frame.fairness.classification(y_true="y", y_pred="pred", by="g")
    assert table.loc[0, ["N", "N_privileged", "N_unprivileged", "N_missing"]].tolist() == [6, 3, 3, 1]
    assert table.loc[1, "N"] == 7  # overall metrics use every labelled row
    kept = frame.dropna()
    expected = classification(kept, y_true="y", y_pred="pred", by="g")
    assert_close(table.loc[0, COLUMNS[5:10]].astype(float), expected.loc[0, COLUMNS[5:10]].astype(float))
    assert_frame_unchanged(before, frame)


def test_missing_labels_left_out():
    frame = pd.DataFrame({"y": [1, 0, None, 0, 1, 0], "pred": [1, 0, 1, 1, None, 0], "g": [1, 1, 1, 0, 0, 0]})
    with (
        pytest.warns(ExcludedRowsWarning, match="2 of 6 rows"),
        pytest.warns(UndefinedMetricWarning, match="(odds|opportunity) difference"),
    ):
        table = frame.fairness.classification(y_true="y", y_pred="pred", by="g", zero_division="warn")
    assert table.loc[0, "N"] == 4
    assert table.attrs["pdmetrics"]["rows_missing_label"] == 2


def test_pos_label_that_never_occurs_is_an_error():
    frame = pd.DataFrame({"y": ["H", "L", "H"], "pred": ["H", "H", "L"], "g": [1, 0, 1]})
    with pytest.raises(InvalidInputError, match="pos_label=1.*never occurs"):
        frame.fairness.classification(y_true="y", y_pred="pred", by="g")


def test_string_labels_with_pos_label():
    frame = pd.DataFrame({"y": ["H", "L", "H", "L"], "pred": ["H", "L", "L", "H"], "g": [1, 1, 0, 0]})
    numeric = frame.assign(y=(frame.y == "H").astype(int), pred=(frame.pred == "H").astype(int))
    a = frame.fairness.classification(y_true="y", y_pred="pred", by="g", pos_label="H")
    b = numeric.fairness.classification(y_true="y", y_pred="pred", by="g")
    pd.testing.assert_frame_equal(a, b)


def test_more_than_two_label_values_is_an_error():
    with pytest.raises(InvalidInputError, match="more than two values"):
        classification(
            pd.DataFrame({"y": [1, 0, 2], "pred": [1, 0, 1], "g": [1, 0, 1]}),
            y_true="y",
            y_pred="pred",
            by="g",
        )


def test_categorical_sensitive_needs_privileged():
    frame = pd.DataFrame({"y": [1, 0, 1, 0], "pred": [1, 0, 0, 1], "sex": ["M", "F", "F", "M"]})
    with pytest.raises(InvalidInputError, match="privileged="):
        frame.fairness.classification(y_true="y", y_pred="pred", by="sex")
    by_name = frame.fairness.classification(y_true="y", y_pred="pred", by="sex", privileged="M")
    coded = frame.assign(sex=(frame.sex == "M").astype(int))
    by_code = coded.fairness.classification(y_true="y", y_pred="pred", by="sex")
    pd.testing.assert_frame_equal(by_name, by_code)
    as_dict = frame.fairness.classification(y_true="y", y_pred="pred", by=["sex"], privileged={"sex": ["M"]})
    pd.testing.assert_frame_equal(as_dict, by_code)


def test_threshold_boundary_and_invert():
    frame = pd.DataFrame(
        {"y": [1, 0, 1, 0, 1, 0], "pred": [1, 0, 1, 1, 0, 0], "age": [30, 40, 50, 30, 40, 50]}
    )
    up = frame.fairness.classification(y_true="y", y_pred="pred", by="age", threshold=40)
    assert up.loc[0, ["N_privileged", "N_unprivileged"]].tolist() == [2, 4]  # 40 is unprivileged
    down = frame.fairness.classification(y_true="y", y_pred="pred", by="age", threshold=40, invert=True)
    assert down.loc[0, ["N_privileged", "N_unprivileged"]].tolist() == [2, 4]  # 40 still unprivileged


def test_boolean_sensitive_column():
    frame = pd.DataFrame({"y": [1, 0, 1, 0], "pred": [1, 0, 0, 1], "g": [True, True, False, False]})
    a = frame.fairness.classification(y_true="y", y_pred="pred", by="g")
    b = frame.assign(g=frame.g.astype(int)).fairness.classification(y_true="y", y_pred="pred", by="g")
    pd.testing.assert_frame_equal(a, b)


def test_missing_column_and_bad_privileged_mapping(two_columns):
    with pytest.raises(ColumnNotFoundError, match="by='zzz'"):
        two_columns.fairness.classification(y_true="y", y_pred="pred", by="zzz")
    with pytest.raises(ColumnNotFoundError, match="y_true="):
        two_columns.fairness.classification(y_true="nope", y_pred="pred", by="a")
    with pytest.raises(InvalidInputError, match="not among the `by=` columns"):
        two_columns.fairness.classification(y_true="y", y_pred="pred", by="a", privileged={"c": 1})
    with pytest.raises(InvalidInputError, match="as a dict"):
        two_columns.fairness.classification(y_true="y", y_pred="pred", by=["a", "b"], privileged=1)
    with pytest.raises(InvalidInputError, match="one column name"):
        two_columns.fairness.classification(y_true=["y"], y_pred="pred", by="a")


def test_one_row():
    with pytest.warns(UndefinedMetricWarning, match="zero denominator|undefined|no rows"):
        table = classification(
            pd.DataFrame({"y": [1], "pred": [1], "g": [1]}), y_true="y", y_pred="pred", by="g"
        )
    assert table.loc[0, "accuracy"] == 1.0 and np.isnan(table.loc[0, "statistical_parity_difference"])


# --------------------------------------------------------------------------------------
# properties: agreement with a slow, obviously-correct reference; row order
# --------------------------------------------------------------------------------------
def _slow_reference(y_true, y_pred, privileged):
    """AIF360's ClassificationMetric definitions, row by row in plain Python."""

    def rate(rows, numerator, denominator):
        den = [r for r in rows if denominator(r)]
        return sum(1 for r in den if numerator(r)) / len(den)

    rows = list(zip(y_true, y_pred, privileged))
    groups = {flag: [(t, p) for t, p, f in rows if f == flag] for flag in (True, False)}
    sel = {f: rate(g, lambda r: r[1] == 1, lambda r: True) for f, g in groups.items()}
    tpr = {f: rate(g, lambda r: r[1] == 1, lambda r: r[0] == 1) for f, g in groups.items()}
    fpr = {f: rate(g, lambda r: r[1] == 1, lambda r: r[0] == 0) for f, g in groups.items()}
    return {
        "statistical_parity_difference": sel[False] - sel[True],
        "disparate_impact": sel[False] / sel[True],
        "average_odds_difference": ((fpr[False] - fpr[True]) + (tpr[False] - tpr[True])) / 2,
        "average_abs_odds_difference": (abs(fpr[False] - fpr[True]) + abs(tpr[False] - tpr[True])) / 2,
        "equal_opportunity_difference": tpr[False] - tpr[True],
    }


@st.composite
def _data(draw):
    n = draw(st.integers(8, 60))
    levels = draw(st.integers(2, 5))
    rows = draw(
        st.lists(
            st.tuples(st.integers(0, 1), st.integers(0, 1), st.integers(0, levels - 1)),
            min_size=n,
            max_size=n,
        )
    )
    threshold = draw(st.integers(0, levels - 2))
    invert = draw(st.booleans())
    threshold = threshold + 0.5 * draw(st.integers(0, 1))
    return pd.DataFrame(rows, columns=["y", "pred", "level"]), threshold, invert


def _defined(frame, privileged):
    for flag in (True, False):
        group = frame[privileged == flag]
        if group.empty or group.y.nunique() < 2 or (group.pred == 1).sum() == 0:
            return False
    return True


@settings(max_examples=50, deadline=None)
@given(_data())
def test_matches_slow_reference(case):
    frame, threshold, invert = case
    privileged = (frame.level < threshold) if invert else (frame.level > threshold)
    assume(_defined(frame, privileged))
    before = frame.copy()
    table = frame.fairness.classification(
        y_true="y", y_pred="pred", by="level", threshold=threshold, invert=invert
    )
    expected = _slow_reference(frame.y.tolist(), frame.pred.tolist(), privileged.tolist())
    for name, value in expected.items():
        assert_close(table.loc[0, name], value, what=name)
    assert_close(table.loc[0, "accuracy"], (frame.y == frame.pred).mean())
    assert_frame_unchanged(before, frame)


@settings(max_examples=30, deadline=None)
@given(_data(), st.randoms(use_true_random=False))
def test_row_order_does_not_matter(case, random):
    frame, threshold, invert = case
    assume((frame.y == 1).any() or (frame.pred == 1).any())
    order = list(range(len(frame)))
    random.shuffle(order)
    shuffled = frame.iloc[order]
    kwargs = dict(
        y_true="y",
        y_pred="pred",
        by="level",
        threshold=threshold,
        invert=invert,
        zero_division=np.nan,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        a = frame.fairness.classification(**kwargs)
        b = shuffled.fairness.classification(**kwargs)
    pd.testing.assert_frame_equal(a, b, check_exact=False, rtol=1e-12)


def test_probabilities_instead_of_labels_is_an_error():
    frame = pd.DataFrame({"y": [1, 0, 1], "score": [0.9, 0.2, 0.6], "g": [1, 0, 1]})
    with pytest.raises(InvalidInputError, match="Binarize it first"):
        frame.fairness.classification(y_true="y", y_pred="score", by="g")


def test_bad_threshold_and_nullable_sensitive():
    frame = pd.DataFrame(
        {"y": [1, 0, 0, 1, 1], "pred": [1, 0, 0, 1, 1], "g": pd.array([1, 0, 1, 0, None], dtype="Int64")}
    )
    with pytest.raises(InvalidInputError, match="threshold='high'"):
        frame.fairness.classification(y_true="y", y_pred="pred", by="g", threshold="high")
    with pytest.warns(ExcludedRowsWarning, match="1 of 5"):
        table = frame.fairness.classification(y_true="y", y_pred="pred", by="g")
    assert table.loc[0, ["N_privileged", "N_unprivileged", "N_missing"]].tolist() == [2, 2, 1]


def test_average_row_is_mean_of_columns():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "y": rng.integers(0, 2, 200),
            "pred": rng.integers(0, 2, 200),
            "a": rng.integers(0, 2, 200),
            "b": rng.normal(size=200),
            "c": rng.integers(0, 5, 200),
        }
    )
    table = frame.fairness.classification(y_true="y", y_pred="pred", by=["a", "b", "c"], threshold={"c": 2})
    for name in COLUMNS[5:10]:
        assert_close(table.loc[3, name], table.loc[:2, name].mean(), what=name)
    single = frame.fairness.classification(y_true="y", y_pred="pred", by="c", threshold=2)
    pd.testing.assert_series_equal(single.iloc[0, 5:], table.iloc[2, 5:], check_names=False)


def test_bootstrap_intervals_of_fairness_metrics():
    rng = np.random.default_rng(11)
    n = 4000
    frame = pd.DataFrame({"y": rng.integers(0, 2, n), "a": rng.integers(0, 2, n), "b": rng.integers(0, 4, n)})
    frame["pred"] = np.where(rng.random(n) < 0.7, frame.y, 1 - frame.y)
    kwargs = dict(
        y_true="y", y_pred="pred", by=["a", "b"], threshold={"b": 1}, n_resamples=400, random_state=5
    )
    table = frame.fairness.classification(**kwargs)
    pd.testing.assert_frame_equal(table, frame.fairness.classification(**kwargs))
    assert list(table.columns[len(COLUMNS) :]) == [f"{m}_{s}" for m in COLUMNS[5:10] for s in ("low", "high")]
    for name in COLUMNS[5:10]:
        assert (table[f"{name}_low"] <= table[f"{name}_high"]).all()
    # SPD interval width ~ 2 * 1.96 * its standard error
    counts = table.attrs["pdmetrics"]
    for i in range(2):
        priv = np.array(counts["confusion_privileged"][i])
        unpriv = np.array(counts["confusion_unprivileged"][i])
        p1, n1 = (priv[1] + priv[3]) / priv.sum(), priv.sum()
        p2, n2 = (unpriv[1] + unpriv[3]) / unpriv.sum(), unpriv.sum()
        se = np.sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)
        row = table.loc[i]
        width = row["statistical_parity_difference_high"] - row["statistical_parity_difference_low"]
        assert_close(width, 2 * 1.959964 * se, rtol=0.2)


def test_midrange_threshold():
    frame = pd.DataFrame(
        {"y": [1, 0, 1, 0, 1, 0], "pred": [1, 0, 1, 1, 0, 0], "age": [20, 30, 40, 50, 60, 60]}
    )
    mid = frame.fairness.classification(y_true="y", y_pred="pred", by="age", threshold="midrange")
    explicit = frame.fairness.classification(y_true="y", y_pred="pred", by="age", threshold=40)
    pd.testing.assert_frame_equal(mid, explicit)


# --------------------------------------------------------------------------------------
# option validation (review): clear errors instead of numpy/Python exceptions or silent groups
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"zero_division": "x"}, "zero_division='x'.*not an option"),
        ({"zero_division": None}, "zero_division=None.*not an option"),
        ({"n_resamples": "many"}, "n_resamples='many'.*integer"),
        ({"confidence": 95}, "confidence=95.*between 0 and 1"),
        ({"random_state": "seed"}, "random_state='seed'"),
        ({"threshold": float("nan")}, "threshold=nan.*'g'"),
        ({"invert": "yes"}, "invert='yes'.*True or False"),
        ({"by": ["g", "h"], "threshold": {"gg": 1}}, "threshold=.*names \\['gg'\\]"),
        ({"by": ["g", "h"], "invert": {"hh": True}}, "invert=.*names \\['hh'\\]"),
    ],
)
def test_bad_options_are_clear_errors(kwargs, message):
    frame = pd.DataFrame({"y": [1, 0, 1, 0], "pred": [1, 0, 0, 1], "g": [1, 1, 0, 0], "h": [3, 1, 2, 0]})
    before = frame.copy()
    with pytest.raises(InvalidInputError, match=message):
        frame.fairness.classification(**{"y_true": "y", "y_pred": "pred", "by": "g", **kwargs})
    assert_frame_unchanged(before, frame)


@pytest.mark.parametrize(
    "column, pos_label, suggestion",
    [
        (["1", "0", "1", "0"], 1, "pos_label='1'"),  # numbers stored as text
        ([True, False, True, False], "H", "pos_label=True"),
    ],
)
def test_pos_label_of_another_type_names_the_column_not_a_third_value(column, pos_label, suggestion):
    frame = pd.DataFrame(
        {"y": column, "pred": [pos_label, pos_label, column[1], column[1]], "g": [1, 1, 0, 0]}
    )
    with pytest.raises(InvalidInputError, match="never holds pos_label") as info:
        frame.fairness.classification(y_true="y", y_pred="pred", by="g", pos_label=pos_label)
    assert suggestion in str(info.value) and "more than two values" not in str(info.value)


def test_invert_accepts_zero_and_one():
    frame = pd.DataFrame({"y": [1, 0, 1, 0], "pred": [1, 0, 0, 1], "g": [1, 1, 0, 0]})
    kwargs = dict(y_true="y", y_pred="pred", by="g", threshold=0.5)
    pd.testing.assert_frame_equal(
        frame.fairness.classification(**kwargs, invert=1),
        frame.fairness.classification(**kwargs, invert=True),
    )


_CLASSIFICATION_COLUMNS = ["by", "N", "N_privileged", "statistical_parity_difference", "(average)"]


@settings(max_examples=30, deadline=None)
@given(
    names=st.lists(
        st.sampled_from([*_CLASSIFICATION_COLUMNS, "(all)", "male"]), min_size=1, max_size=3, unique=True
    )
)
def test_sensitive_names_never_collide_with_the_pooled_row(names):
    """Review: a sensitive column named '(average)' gave two '(average)' rows."""
    frame = pd.DataFrame({"y": [1, 0, 1, 0, 1, 0], "pred": [1, 1, 0, 0, 1, 0]})
    for name in names:
        frame[name] = [1, 1, 1, 0, 0, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        if "(all)" in names:
            with pytest.raises(InvalidInputError, match="holds the value '\\(all\\)'"):
                frame.fairness.classification(y_true="y", y_pred="pred", by=names)
        else:
            table = frame.fairness.classification(y_true="y", y_pred="pred", by=names)
            assert table["by"].tolist() == [*names, "(all)"]
            assert table.columns.is_unique


_BY_FRAME = pd.DataFrame(
    {
        "y": [1, 0, 1, 0, 1, 0],
        "pred": [1, 1, 0, 0, 1, 0],
        "g": [1, 1, 1, 0, 0, 0],
        "h": [2, 2, 0, 0, 0, 0],
        "word": ["M", "F", "M", "F", "M", "F"],
    }
)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"by": "word"}, r"^`by='word'`: the group column holds 'M', which is not a number"),
        ({"by": "g", "threshold": "high"}, r"`threshold='high'` for column 'g' of `by=` must be a number"),
        ({"by": "g", "threshold": float("nan")}, r"`threshold=nan` for column 'g' of `by=`: every row"),
        ({"by": "g", "invert": "yes"}, r"`invert='yes'` for column 'g' of `by=` must be True or False"),
        ({"by": ["g", "h"], "privileged": 1}, r"With several columns in `by=` pass `privileged=` as a dict"),
        ({"by": "g", "privileged": {"c": 1}}, r"`privileged=` names \['c'\], which are not among the `by=`"),
        ({"by": ["g", "g"]}, r"`by=` names the column 'g' twice; pass each column once\."),
    ],
)
def test_group_column_errors_name_the_by_option(options, message):
    """The option is `by=` (it was `sensitive=`): every message about a group column names it."""
    with pytest.raises(InvalidInputError, match=message) as caught:
        _BY_FRAME.fairness.classification(y_true="y", y_pred="pred", **options)
    assert "sensitive" not in str(caught.value)


def test_group_column_warnings_name_the_by_option():
    frame = _BY_FRAME.assign(g=[1, 1, 0, 0, 1, None])
    with pytest.warns(ExcludedRowsWarning, match=r"^1 of 6 rows left out: column 'g' of `by=` is missing\.$"):
        frame.fairness.classification(y_true="y", y_pred="pred", by="g")
    undefined = r"undefined for column 'h' of `by=` \(the privileged group"
    with pytest.warns(UndefinedMetricWarning, match=undefined):
        _BY_FRAME.assign(h=0).fairness.classification(y_true="y", y_pred="pred", by=["g", "h"])
