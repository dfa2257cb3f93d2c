"""pdmetrics.fairness.distributions against scipy.special (and mpmath where they disagree)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special

from pdmetrics.fairness import distributions
from pdmetrics.fairness.cell_ols import EXACT_DF_LIMIT, EXACT_NUMERATOR_DF_LIMIT, special_functions

mpmath = pytest.importorskip("mpmath")

RTOL = 1e-11
DFS = [1, 1.5, 2, 3, 5, 10, 30, 100, 1e3, 1e4, 5e4, 1e5, EXACT_DF_LIMIT]
D1S = list(range(1, EXACT_NUMERATOR_DF_LIMIT + 1))
QUANTILES = [0.5, 0.9, 0.975, 0.995, 0.999999]
#: p-values the grid aims its statistics at, down to 1e-300.
TARGETS = np.geomspace(1e-300, 0.5, 25)


def _exact_t_cdf(df: float, t: float) -> float:
    with mpmath.workdps(40):
        df, t = mpmath.mpf(df), mpmath.mpf(t)
        tail = mpmath.betainc(df / 2, mpmath.mpf(0.5), 0, df / (df + t * t), regularized=True) / 2
        return float(tail if t < 0 else 1 - tail)


def _exact_f_sf(d1: float, d2: float, f: float) -> float:
    with mpmath.workdps(40):
        d1, d2, f = mpmath.mpf(d1), mpmath.mpf(d2), mpmath.mpf(f)
        return float(mpmath.betainc(d2 / 2, d1 / 2, 0, d2 / (d2 + d1 * f), regularized=True))


def _check(ours, theirs, exact) -> float:
    """The largest relative difference from SciPy; where it exceeds RTOL, mpmath must side with us."""
    ours, theirs = np.broadcast_arrays(np.asarray(ours, float), np.asarray(theirs, float))
    assert np.array_equal(np.isnan(ours), np.isnan(theirs))
    with np.errstate(divide="ignore", invalid="ignore"):
        relative = np.where(ours == theirs, 0.0, np.abs(ours - theirs) / np.abs(theirs))
    for index in zip(*np.nonzero(relative > RTOL), strict=True):
        truth = exact(index)
        assert ours[index] == pytest.approx(truth, rel=RTOL, abs=0), (index, ours[index], theirs[index])
        assert abs(theirs[index] - truth) > abs(ours[index] - truth)
    return float(np.nanmax(np.where(relative > RTOL, 0.0, relative)))


def _t_statistics(df: float) -> np.ndarray:
    rng = np.random.default_rng(int(df * 10))
    aimed = -distributions.stdtrit(df, TARGETS)  # only picks the points
    positive = np.concatenate([np.geomspace(1e-12, 1e3, 120), rng.uniform(0, 6, 60), aimed])
    return np.concatenate([positive, -positive, [0.0]])


@pytest.mark.parametrize("df", DFS)
def test_stdtr_agrees_with_scipy(df):
    t = _t_statistics(df)
    ours = distributions.stdtr(df, t)
    worst = _check(ours, special.stdtr(df, t), lambda i: _exact_t_cdf(df, t[i]))
    assert worst < RTOL
    assert np.nanmin(ours[ours > 0]) < 1e-290  # the grid does reach tiny p-values


@pytest.mark.parametrize("d2", DFS)
def test_fdtrc_agrees_with_scipy(d2):
    rng = np.random.default_rng(int(d2 * 10))
    d1 = np.array(D1S, dtype=float)[:, None]
    f = np.concatenate([np.geomspace(1e-12, 1e3, 40), rng.uniform(0, 5, 20)])[None, :]
    ours = distributions.fdtrc(d1, d2, f)
    assert ours.shape == (len(D1S), 60)
    worst = _check(ours, special.fdtrc(d1, d2, f), lambda i: _exact_f_sf(d1[i[0], 0], d2, f[0, i[1]]))
    assert worst < RTOL


@pytest.mark.parametrize("d2", DFS)
def test_fdtrc_agrees_with_scipy_at_tiny_p_values(d2):
    # F statistics whose p-values are 1e-300 .. 1e-5, from the t distribution for d1 = 1
    d1 = 1.0
    t = distributions.stdtrit(d2, TARGETS[TARGETS < 1e-5] / 2)
    f = (t[np.abs(t) < 1e150]) ** 2
    ours = distributions.fdtrc(d1, d2, f)
    worst = _check(ours, special.fdtrc(d1, d2, f), lambda i: _exact_f_sf(d1, d2, f[i]))
    assert worst < RTOL


@pytest.mark.parametrize("df", DFS)
def test_stdtrit_agrees_with_scipy_and_inverts_stdtr(df):
    q = np.array(QUANTILES)
    ours = distributions.stdtrit(df, q)
    assert _check(ours, special.stdtrit(df, q), lambda i: np.nan) < RTOL
    np.testing.assert_allclose(distributions.stdtr(df, ours), q, rtol=1e-13)
    np.testing.assert_array_equal(distributions.stdtrit(df, 1 - q), -ours)


def test_scipy_is_the_one_that_is_off_where_they_disagree():
    # Cauchy's far tail and F tails below 1e-266: scipy.special underflows to 0
    assert distributions.stdtr(1, -1e160) == pytest.approx(1 / (np.pi * 1e160), rel=1e-14)
    assert special.stdtr(1, -1e160) == 0.0
    assert distributions.fdtrc(48, 1e5, 29.8247) == pytest.approx(_exact_f_sf(48, 1e5, 29.8247), rel=1e-12)
    assert distributions.fdtrc(1, 1, 3.2e-12) == pytest.approx(
        1 - 2 / np.pi * np.arctan(np.sqrt(3.2e-12)), rel=1e-15
    )


EDGES_T = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-300, -1e-200, 5e-324, 1e308, -1e308, 2.5]
EDGES_DF = [np.nan, np.inf, -np.inf, -1.0, 0.0, 0.5, 1.0, 7.0, EXACT_DF_LIMIT]


def _same(ours, theirs):
    ours, theirs = np.asarray(ours, float), np.asarray(theirs, float)
    both_nan = np.isnan(ours) & np.isnan(theirs)
    with np.errstate(invalid="ignore"):
        close = np.isclose(ours, theirs, rtol=1e-11, atol=0)
    return both_nan | close


def test_edge_inputs_behave_as_scipy():
    df, t = np.meshgrid(EDGES_DF, EDGES_T)
    df, t = df.ravel(), t.ravel()
    same = _same(distributions.stdtr(df, t), special.stdtr(df, t))
    # scipy underflows to 0 in the far tail where the answer is representable (see above)
    far = (np.abs(t) >= 1e308) & (df < 2)
    assert same[~far].all(), list(zip(df[~same & ~far], t[~same & ~far], strict=True))
    d1, d2, f = np.meshgrid(EDGES_DF, EDGES_DF, [np.nan, np.inf, -1.0, 0.0, -0.0, 5e-324, 1e-300, 1.0, 1e308])
    same = _same(distributions.fdtrc(d1, d2, f), special.fdtrc(d1, d2, f))
    # same far-tail underflow of scipy's, for F statistics of 1e308
    far = (f == 1e308) & (d2 <= 1) & np.isfinite(d1) & (d1 > 0)
    # numerators beyond EXACT_NUMERATOR_DF_LIMIT go to scipy (6e-11 here at d1 = 2e5)
    far |= (d1 > EXACT_NUMERATOR_DF_LIMIT) & np.isfinite(d1) & (f == 1.0)
    assert same[~far].all(), list(zip(d1[~same & ~far], d2[~same & ~far], f[~same & ~far], strict=True))
    df, p = np.meshgrid(EDGES_DF, [np.nan, -0.1, 1.0, 1.1, 0.5, 0.75, 0.999, 1e-10])
    assert _same(distributions.stdtrit(df, p), special.stdtrit(df, p)).all()


def test_edge_quantiles():
    # scipy.special.stdtrit(df, 0) is +inf (SciPy 1.17); the quantile at 0 is -inf
    assert distributions.stdtrit(3, 0.0) == -np.inf
    assert distributions.stdtrit(3, 1.0) == np.inf
    assert distributions.stdtrit(np.inf, 0.975) == pytest.approx(special.ndtri(0.975), rel=1e-14)
    assert isinstance(distributions.stdtr(3, 1.0), np.float64)
    assert distributions.stdtr([[1, 2]], [[0.0], [1.0]]).shape == (2, 2)


def test_chooser_uses_scipy_only_above_the_limits():
    assert special_functions(EXACT_DF_LIMIT) is distributions
    assert special_functions(EXACT_DF_LIMIT, EXACT_NUMERATOR_DF_LIMIT) is distributions
    assert special_functions(EXACT_DF_LIMIT + 1) is special
    assert special_functions(10, EXACT_NUMERATOR_DF_LIMIT + 1) is special
