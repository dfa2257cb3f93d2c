"""True-score evaluation: formulas, invariances, edge cases and the df.scoring.true_score accessor."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import assert_close, assert_frame_unchanged, slow_true_scores, true_score_of
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import pdmetrics  # noqa: F401
from pdmetrics.errors import (
    ColumnNotFoundError,
    ExcludedRowsWarning,
    InvalidInputError,
    UndefinedMetricWarning,
)
from pdmetrics.scoring import (
    mse_true,
    prmse_true,
    true_score,
    true_score_variance,
    variance_of_errors,
)
from pdmetrics.scoring.true_scores import true_score_table


def _simulate(n, raters=2, missing=0.3, seed=0):
    rng = np.random.default_rng(seed)
    true = rng.normal(3, 1, size=n)
    ratings = np.clip(np.rint(true[:, None] + rng.normal(0, 0.6, size=(n, raters))), 1, 6)
    holes = rng.random((n, raters)) < missing
    holes[:, 0] = False  # every response keeps at least one rating
    ratings[holes] = np.nan
    system = true + rng.normal(0, 0.5, size=n)
    return system, ratings


def test_two_raters_all_double_scored_match_simple_formulas():
    """The seed's simple case.

    s2_e = mean((H1-H2)^2)/2, MSE = MSE(Hhat|M) - s2_e/2, s2_T = var(Hhat) - s2_e/2.
    """
    system, ratings = _simulate(500, 2, missing=0.0, seed=3)
    h1, h2 = ratings.T
    hhat = (h1 + h2) / 2
    ve = np.mean((h1 - h2) ** 2) / 2
    assert_close(variance_of_errors(ratings), ve)
    assert_close(true_score_variance(ratings), np.var(hhat, ddof=1) - ve / 2)
    assert_close(mse_true(system, ratings), np.mean((hhat - system) ** 2) - ve / 2)
    assert_close(
        prmse_true(system, ratings),
        1 - (np.mean((hhat - system) ** 2) - ve / 2) / (np.var(hhat, ddof=1) - ve / 2),
    )


@settings(max_examples=40, deadline=None)
@given(n=st.integers(3, 200), raters=st.integers(2, 5), missing=st.floats(0, 0.7), seed=st.integers(0, 9999))
def test_agrees_with_reference_and_is_invariant(n, raters, missing, seed):
    system, ratings = _simulate(n, raters, missing, seed)
    assume(((~np.isnan(ratings)).sum(axis=1) > 1).any())
    expected = list(slow_true_scores(system, ratings))
    # a true-score variance at float-noise level (not exactly 0) makes PRMSE = 1 - mse / noise: any
    # two summation orders disagree in the leading digit there, so such draws say nothing
    assume(expected[1] == 0 or abs(expected[1]) > 1e-9 * np.nanvar(ratings))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)  # degenerate draws (true var 0)
        values = [
            variance_of_errors(ratings),
            true_score_variance(ratings),
            mse_true(system, ratings),
            prmse_true(system, ratings),
        ]
        if expected[1] == 0:  # zero true-score variance: PRMSE is NaN here (the reference divides by 0)
            expected[3] = np.nan
        assert_close(values, expected)
        rng = np.random.default_rng(seed)
        rows = rng.permutation(n)
        # rows permuted, raters permuted, and each row's ratings shuffled between raters
        shuffled = np.array([rng.permutation(row) for row in ratings[rows][:, rng.permutation(raters)]])
        assert_close(prmse_true(system[rows], shuffled), values[3])
        assert_close(true_score_variance(shuffled), values[1])


def test_given_error_variance_is_used():
    system, ratings = _simulate(100, 2, seed=1)
    assert_close(prmse_true(system, ratings, variance_errors=0.3), slow_true_scores(system, ratings, 0.3)[3])
    assert_close(
        prmse_true(system, ratings[:, 0], variance_errors=0.0),
        1 - np.mean((ratings[:, 0] - system) ** 2) / np.var(ratings[:, 0], ddof=1),
    )
    for bad in (-1, np.nan, "0.5", True, [0.1]):
        with pytest.raises(InvalidInputError, match="variance_errors"):
            prmse_true(system, ratings, variance_errors=bad)


def test_single_ratings_only_give_nan_with_warning():
    ratings = [[1, None], [2, None], [None, 3]]
    for function in (variance_of_errors, true_score_variance):
        with pytest.warns(UndefinedMetricWarning, match="variance_errors="):
            assert np.isnan(function(ratings))
    with pytest.warns(UndefinedMetricWarning, match="variance_errors="):
        assert np.isnan(mse_true([1, 2, 3], ratings))
    with pytest.warns(UndefinedMetricWarning, match="variance_errors="):
        table = true_score_of({"a": [1, 2, 3], "b": [1, 1, 1]}, ratings)
    assert table[["Variance of errors", "True score var", "MSE true", "PRMSE true"]].isna().all().all()
    assert table["N single"].tolist() == [3, 3] and table["N multiple"].tolist() == [0, 0]


def test_unrated_response_and_missing_system():
    with pytest.warns(UndefinedMetricWarning, match="no rating"):
        assert np.isnan(prmse_true([1, 2, 3], [[1, 1], [2, 3], [None, None]]))
    with pytest.warns(UndefinedMetricWarning, match="missing values"):
        assert np.isnan(prmse_true([1, None, 3], [[1, 1], [2, 3], [3, 3]]))


def test_constant_ratings_and_tiny_input():
    with pytest.warns(UndefinedMetricWarning, match="0 or undefined"):
        assert np.isnan(prmse_true([1, 2], [[3, 3], [3, 3]]))
    with pytest.warns(UndefinedMetricWarning, match="rater error variance"):
        assert np.isnan(prmse_true([], np.empty((0, 2))))
    table = true_score_of([2.0, 3.0], [[2, 3], [3, 4]])
    assert table["N"].iat[0] == 2


def test_table_columns_and_shapes():
    system, ratings = _simulate(50, 3, seed=2)
    table = true_score_of(pd.DataFrame({"s1": system, "s2": system + 1}), ratings)
    assert list(table.columns) == [
        "system",
        "N",
        "N raters",
        "N single",
        "N multiple",
        "Variance of errors",
        "True score var",
        "MSE true",
        "PRMSE true",
    ]
    assert table["system"].tolist() == ["s1", "s2"]
    assert isinstance(table.index, pd.RangeIndex)
    assert table["N"].dtype == "int64"
    with pytest.raises(InvalidInputError, match="one system score per response|one score per response"):
        true_score_table({"s": [1, 2]}, ratings)
    with pytest.raises(InvalidInputError, match="2-D"):
        prmse_true([1], np.zeros((1, 1, 1)))
    with pytest.raises(InvalidInputError, match="numbers"):
        variance_of_errors([["a", "b"]])


# ------------------------------------------------------------------------------ accessor
def _frame(n=200, seed=0):
    system, ratings = _simulate(n, 2, missing=0.5, seed=seed)
    return pd.DataFrame(
        {"human 1": ratings[:, 0], "human.2": ratings[:, 1], "raw": system, "raw_round": np.rint(system)}
    )


def test_accessor_matches_core_and_leaves_frame_unchanged():
    df = _frame()
    before = df.copy()
    table = df.scoring.true_score(system=["raw", "raw_round"], raters=["human 1", "human.2"])
    assert_frame_unchanged(before, df)
    core = true_score(df, system=["raw", "raw_round"], raters=["human 1", "human.2"])
    pd.testing.assert_frame_equal(table, core)


def test_accessor_exclude_zero_and_left_out_rows():
    df = _frame()
    df.loc[0, "human.2"] = 0.0
    df.loc[1, ["human 1", "human.2"]] = [0.0, np.nan]
    df.loc[2, "raw"] = np.nan
    before = df.copy()
    with pytest.warns(ExcludedRowsWarning, match="2 of 200"):
        table = df.scoring.true_score(system="raw", raters=["human 1", "human.2"])
    assert_frame_unchanged(before, df)
    assert table["N"].iat[0] == 198
    cleaned = df.drop(index=[1, 2]).replace({"human.2": {0.0: np.nan}})
    expected = true_score(cleaned, system="raw", raters=["human 1", "human.2"])
    pd.testing.assert_frame_equal(table, expected)
    with pytest.warns(ExcludedRowsWarning, match="1 of 200"):
        kept = df.scoring.true_score(system="raw", raters=["human 1", "human.2"], exclude_zero=False)
    assert kept["N"].iat[0] == 199


def test_accessor_single_rater():
    df = _frame()
    with pytest.warns(UndefinedMetricWarning, match="rater_error_variance="):
        table = df.scoring.true_score(system="raw", raters=["human 1"])
    assert np.isnan(table["PRMSE true"].iat[0])
    table = df.scoring.true_score(system="raw", raters=["human 1"], rater_error_variance=0)
    assert table["N raters"].iat[0] == 1 and table["Variance of errors"].iat[0] == 0


def test_accessor_errors():
    df = _frame()
    with pytest.raises(ColumnNotFoundError, match="raters='h2'"):
        df.scoring.true_score(system="raw", raters=["human 1", "h2"])
    with pytest.raises(ColumnNotFoundError, match="system='sys'"):
        df.scoring.true_score(system="sys", raters=["human 1"])
    for bad in (-0.5, "x", np.inf):
        with pytest.raises(InvalidInputError, match="rater_error_variance"):
            df.scoring.true_score(system="raw", raters=["human 1"], rater_error_variance=bad)
    with pytest.raises(InvalidInputError, match="exclude_zero"):
        df.scoring.true_score(system="raw", raters=["human 1"], exclude_zero="yes")
    # the same column twice would pass for two perfectly agreeing raters (error variance 0)
    with pytest.raises(InvalidInputError, match="`raters=` names 'human 1' twice"):
        df.scoring.true_score(system="raw", raters=["human 1", "human 1"])
    with pytest.raises(InvalidInputError, match="no numeric values"):
        df.assign(text="TD").scoring.true_score(system="raw", raters=["text"])
    with pytest.raises(InvalidInputError, match="`system='raw'`: all 200 values are missing"):
        df.assign(raw=np.nan).scoring.true_score(system="raw", raters=["human 1"])
    with pytest.raises(InvalidInputError, match="No response"):
        with pytest.warns(ExcludedRowsWarning, match="left out of the true score evaluation"):
            odd = np.arange(len(df)) % 2 == 1
            df.assign(raw=np.where(odd, 3.0, np.nan), r=np.where(odd, np.nan, 2.0)).scoring.true_score(
                system="raw", raters=["r"]
            )


def test_accessor_non_numeric_ratings_are_missing():
    df = _frame(20).astype({"human.2": object})
    df.loc[0, "human.2"] = "TD"
    table = df.scoring.true_score(system="raw", raters=["human 1", "human.2"])
    assert table["N"].iat[0] == 20


def test_against_rsmtool_if_installed():
    prmse = pytest.importorskip("rsmtool.utils.prmse")
    df = _frame(300, seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = prmse.get_true_scores(df, ["raw", "raw_round"], ["human 1", "human.2"])
    table = df.scoring.true_score(system=["raw", "raw_round"], raters=["human 1", "human.2"])
    assert_close(table.set_index("system").astype(float), expected.astype(float))
