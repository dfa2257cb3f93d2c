"""Reliability and sample-size planning for PP scoring (Attali 2007, Equations 4-9, Figure 1)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import assert_close
from hypothesis import given, settings
from hypothesis import strategies as st

from pdmetrics.datasets import simulate_essays
from pdmetrics.errors import InvalidInputError
from pdmetrics.scoring import (
    attenuated_correlation,
    ep_pp_sample_size_ratio,
    rating_sd,
    scaling_precision_table,
    scaling_standard_error,
    spearman_brown,
)

N_GRID = [1, 2, 5, 10, 20, 50]
K_GRID = list(range(1, 11))


# --------------------------------------------------------------------------------------
# slow, obviously-correct references written from the paper's equations
# --------------------------------------------------------------------------------------
def ref_rho_he(rho_se, rho_ss, k):
    rho_hh = k * rho_ss / (1 + (k - 1) * rho_ss)  # Equation 7
    rho_te = rho_se / math.sqrt(rho_ss)  # Equation 6 for one rater (rho_EE = 1)
    return rho_te * math.sqrt(rho_hh)  # Equation 6 for k raters == Equation 8


def ref_se(n, k, sigma_1=1.0, rho_se=0.8, rho_ss=0.64):
    variance_k = sigma_1**2 * (rho_ss + (1 - rho_ss) / k)  # true variance + error variance / k
    rho = ref_rho_he(rho_se, rho_ss, k)
    return math.sqrt(variance_k) * math.sqrt(1 - rho**2) / math.sqrt(n)  # Equations 5 and 9


# --------------------------------------------------------------------------------------
# the paper's printed numbers
# --------------------------------------------------------------------------------------
def test_correlations_for_2_3_4_10_raters_as_printed():
    rho = attenuated_correlation(0.80, 0.64, [2, 3, 4, 10])
    assert np.round(rho, 2).tolist() == [0.88, 0.92, 0.94, 0.97]
    assert attenuated_correlation(0.80, 0.64, 1) == pytest.approx(0.80, abs=1e-15)


def test_standard_errors_for_20_and_50_essays_with_5_raters_as_printed():
    assert round(scaling_standard_error(20, 5), 2) == 0.06
    assert round(scaling_standard_error(50, 5), 2) == 0.04


def test_ep_pp_ratio_two_raters_about_4_5():
    ratio = ep_pp_sample_size_ratio(2)
    assert round(math.sqrt(ratio), 1) == 2.1  # "sigma_H is more than two times (2.1) larger"
    assert abs(ratio - 4.5) < 0.1  # "a random sample 4.5 times larger" (exact: 4.56)
    assert_close(ratio, 1.64 / 0.36)  # (1 + rho_SS) / (1 + rho_SS - 2 rho_SE^2)
    # the printed 4.5 is 4.56 cut to one decimal (documented): not 2.1^2 = 4.41, and not the
    # 4.43 that rounding rho_HE to .88 first would give
    assert math.floor(ratio * 10) / 10 == 4.5 and round(ratio, 1) == 4.6


def test_ep_pp_ratio_five_raters_about_10():
    ratio = ep_pp_sample_size_ratio(5)
    assert round(ratio) == 10  # exact: 9.89
    assert round(math.sqrt(ratio), 2) == 3.14
    assert_close(ratio, 3.56 / 0.36)  # (1 + 4 rho_SS) / (1 + 4 rho_SS - 5 rho_SE^2)
    # The paper's "3.2" and "more than 10 (3.2 squared)" follow when rho_HE is first rounded
    # to the two decimals it prints (.95): documented in ep_pp_sample_size_ratio's Notes.
    rho_printed = round(float(attenuated_correlation(0.80, 0.64, 5)), 2)
    assert rho_printed == 0.95
    assert round(1 / math.sqrt(1 - rho_printed**2), 1) == 3.2
    assert 1 / (1 - rho_printed**2) > 10


def test_figure_1_grid_matches_reference_and_shape():
    table = scaling_precision_table()
    assert list(table.columns) == ["n", "k", "h_reliability", "h_sd", "corr", "se_pp", "se_ep", "ep_pp_ratio"]
    assert len(table) == 60 and table["n"].dtype == "int64" and table["k"].dtype == "int64"
    expected = [ref_se(n, k) for n in N_GRID for k in K_GRID]
    assert_close(table["se_pp"], expected)
    grid = table.pivot(index="k", columns="n", values="se_pp")
    assert grid.shape == (10, 6)
    # Figure 1's curves: one essay and one rater gives sqrt(1 - .8^2) = .6, the top of the plot
    assert grid.loc[1, 1] == pytest.approx(0.6, abs=1e-12)
    # more essays and more raters always help; beyond 20 essays / 5 raters the gain is small
    assert (np.diff(grid.to_numpy(), axis=0) < 0).all() and (np.diff(grid.to_numpy(), axis=1) < 0).all()
    assert grid.loc[5, 20] - grid.loc[10, 20] < 0.02
    assert grid.loc[5, 20] - grid.loc[5, 50] < 0.03


def test_grid_by_broadcasting_equals_table():
    n = np.array(N_GRID)[:, None]
    k = np.array(K_GRID)[None, :]
    grid = scaling_standard_error(n, k)
    assert grid.shape == (6, 10)
    assert_close(grid.ravel(), scaling_precision_table()["se_pp"])


def test_table_columns_follow_their_formulas():
    t = scaling_precision_table(n=[7], k=[3], sigma_h=0.9, rho_single=0.7, reliability_single=0.6)
    row = t.iloc[0]
    assert_close(row["h_reliability"], 3 * 0.6 / (1 + 2 * 0.6))
    assert_close(row["h_sd"], 0.9 * math.sqrt(0.6 + 0.4 / 3))
    assert_close(row["corr"], ref_rho_he(0.7, 0.6, 3))
    assert_close(row["se_pp"], ref_se(7, 3, 0.9, 0.7, 0.6))
    assert_close(row["se_ep"], row["h_sd"] / math.sqrt(7))
    assert_close(row["ep_pp_ratio"], (row["se_ep"] / row["se_pp"]) ** 2)


# --------------------------------------------------------------------------------------
# formulas and properties
# --------------------------------------------------------------------------------------
def test_spearman_brown_values():
    assert spearman_brown(0.64, 1) == pytest.approx(0.64)
    assert_close(spearman_brown(0.5, 2), 2 / 3)
    assert spearman_brown(0.0, 5) == 0.0
    assert spearman_brown(1.0, 5) == 1.0
    assert isinstance(spearman_brown(0.5, 2), float)
    assert isinstance(spearman_brown(0.5, [2]), np.ndarray)


def test_rating_sd_values():
    assert rating_sd(1.0, 0.64, 1) == pytest.approx(1.0)
    assert_close(rating_sd(2.0, 0.5, 4), 2.0 * math.sqrt(0.5 + 0.5 / 4))


@settings(max_examples=50, deadline=None)
@given(
    rel=st.floats(0.01, 1.0),
    k=st.integers(1, 30),
    rho_frac=st.floats(0.0, 1.0),
    n=st.integers(1, 500),
    sigma=st.floats(0.1, 5.0),
)
def test_vectorized_equals_reference(rel, k, rho_frac, n, sigma):
    rho = rho_frac * math.sqrt(rel)
    assert_close(attenuated_correlation(rho, rel, k), ref_rho_he(rho, rel, k), rtol=1e-9, atol=1e-12)
    # the SE carries sqrt(1 - rho_HE**2): when rho_HE rounds to 1 the two formulas meet a float
    # residue of order sqrt(machine epsilon) * sigma, not a difference in the algebra
    assert_close(
        scaling_standard_error(n, k, sigma, rho, rel),
        ref_se(n, k, sigma, rho, rel),
        rtol=1e-9,
        atol=2e-8 * sigma,
    )
    sb = spearman_brown(rel, k)
    assert rel - 1e-12 <= sb <= 1.0 + 1e-12
    assert spearman_brown(rel, k + 1) >= sb - 1e-12


@settings(max_examples=30, deadline=None)
@given(rel=st.floats(0.05, 0.95), rho_frac=st.floats(0.0, 0.99))
def test_pp_never_needs_more_essays_than_ep(rel, rho_frac):
    ratio = ep_pp_sample_size_ratio(np.arange(1, 11), rho_frac * math.sqrt(rel), rel)
    assert (ratio >= 1.0).all() and (np.diff(ratio) >= -1e-12).all()


def test_perfect_correlation_gives_infinite_ratio_without_warning():
    assert ep_pp_sample_size_ratio(1, 1.0, 1.0) == math.inf
    assert scaling_standard_error(10, 3, 1.0, 1.0, 1.0) == 0.0


def test_attenuated_correlation_agrees_with_simulation():
    df = simulate_essays(20000, n_raters=5, score_range=None, seed=3)
    composite = df[[f"f{i}" for i in range(1, 11)]].sum(axis=1)
    for k in (1, 2, 5):
        human = df[[f"h{j}" for j in range(1, k + 1)]].mean(axis=1)
        assert np.corrcoef(human, composite)[0, 1] == pytest.approx(
            attenuated_correlation(0.8, 0.64, k), abs=0.01
        )


def test_standard_error_agrees_with_simulated_scaling_samples():
    # the scatter of the PP scaling mean around its expectation, given the machine scores
    rng = np.random.default_rng(11)
    n, k, reps = 20, 5, 4000
    rho_he = attenuated_correlation(0.8, 0.64, k)
    sd_h = rating_sd(1.0, 0.64, k)
    residual = sd_h * np.sqrt(1 - rho_he**2) * rng.standard_normal((reps, n))
    assert residual.mean(axis=1).std() == pytest.approx(scaling_standard_error(n, k), rel=0.05)


# --------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call",
    [
        lambda: spearman_brown(1.2, 2),
        lambda: spearman_brown(-0.1, 2),
        lambda: spearman_brown(0.5, 0),
        lambda: spearman_brown(np.nan, 2),
        lambda: spearman_brown("high", 2),
        lambda: attenuated_correlation(0.9, 0.64, 2),  # rho_single > sqrt(reliability)
        lambda: attenuated_correlation(1.5, 0.64, 2),
        lambda: scaling_standard_error(0, 5),
        lambda: scaling_standard_error(10, -1),
        lambda: scaling_standard_error(10, 2, sigma_h=-1),
        lambda: ep_pp_sample_size_ratio([1, 0]),
        lambda: scaling_precision_table(sigma_h=[1, 2]),
        lambda: rating_sd(-1, 0.5, 2),
        lambda: rating_sd(np.inf, 0.5, 2),
        lambda: scaling_standard_error(10, 2, sigma_h=np.inf),
        lambda: spearman_brown([0.5, 0.6], [1, 2, 3]),  # shapes that do not broadcast
        lambda: attenuated_correlation(0.8, [0.64, 0.7], [1, 2, 3]),
        lambda: rating_sd(1.0, [0.6, 0.7], [1, 2, 3]),
        lambda: scaling_standard_error([10, 20], [1, 2, 3]),
        lambda: ep_pp_sample_size_ratio([1, 2, 3], [0.7, 0.8]),
    ],
)
def test_bad_input_raises_invalid_input(call):
    with pytest.raises(InvalidInputError):
        call()


def test_error_message_names_argument_and_value():
    with pytest.raises(InvalidInputError, match=r"reliability.*1\.2"):
        spearman_brown(1.2, 2)
    with pytest.raises(InvalidInputError, match=r"got 0\.0\.$"):  # a plain number, not np.float64(...)
        scaling_standard_error(0, 5)
    with pytest.raises(InvalidInputError, match=r"n \(2,\), k \(3,\)"):
        scaling_standard_error([10, 20], [1, 2, 3])
