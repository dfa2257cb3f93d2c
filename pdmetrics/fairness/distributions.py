"""The t and F distribution functions of the fairness regressions, without SciPy.

``import scipy.special`` costs 0.3-0.5 s (its array-API layer loads ``numpy.f2py`` and
more), and :func:`pdmetrics.fairness.score_fairness` needs three of its functions a handful
of times per table: the p-values and 95% confidence intervals. They are computed here, in
plain Python floats, from the regularized incomplete beta function ``I_x(a, b)``:

- :func:`fdtrc` ``(d1, d2, f)``: the F distribution's survival function
  ``I_{d2 / (d2 + d1 f)}(d2 / 2, d1 / 2)`` (``scipy.special.fdtrc``);
- :func:`stdtr` ``(df, t)``: the t distribution's CDF, ``I_{df / (df + t^2)}(df / 2, 1 / 2) / 2``
  in the lower tail (``scipy.special.stdtr``);
- :func:`stdtrit` ``(df, p)``: its quantile, by Newton's method on the upper tail
  (``scipy.special.stdtrit``).

``I_x(a, b)`` is the continued fraction of Numerical Recipes' ``betacf`` (modified Lentz),
evaluated on whichever of ``x`` and ``1 - x`` converges, times the prefactor
``x^a (1 - x)^b / B(a, b)`` taken in logarithms. ``log B(a, b)`` comes from Stirling's series
when an argument is large, written so that no two large terms cancel: the result keeps its
digits at 10^5 degrees of freedom and at p-values down to 1e-300.

Accuracy: ``tests/test_fairness_distributions.py`` checks all three against
``scipy.special`` at a relative tolerance of 1e-11 over degrees of freedom from 1 to
:data:`pdmetrics.fairness.cell_ols.EXACT_DF_LIMIT` and statistics down to p-values of
1e-300. Above that limit the fairness regressions call ``scipy.special`` (the error here grows
with the degrees of freedom: about 1e-10 at 10^7).

NaN, infinite and out-of-domain inputs give what ``scipy.special`` gives (NaN for a
non-positive degree of freedom or a probability outside [0, 1]; an infinite ``df`` of the t
distribution is the normal distribution, of the F distribution NaN), with one exception:
``stdtrit(df, 0)`` is ``-inf`` (SciPy 1.17 returns ``+inf``).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["fdtrc", "stdtr", "stdtrit"]

#: The continued fraction stops when a factor is within this of 1 (about one ulp).
_CONVERGED = 3e-16
_MAX_TERMS = 100_000
_MAX_NEWTON_STEPS = 500
_TINY = 1e-300
_SQRT2 = math.sqrt(2.0)
#: Stirling's series of log Gamma: B_2n / (2n (2n - 1)), n = 1..8.
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156, -3617 / 122400)
#: From here on, Stirling's series (8 terms) is exact to double precision.
_STIRLING_FROM = 10.0


def _stirling_correction(x: float) -> float:
    """``lgamma(x) - ((x - 1/2) log x - x + log(2 pi) / 2)`` for ``x >= 10``."""
    inverse_square = 1.0 / (x * x)
    total, power = 0.0, 1.0 / x
    for coefficient in _STIRLING:
        total += coefficient * power
        power *= inverse_square
    return total


def _log_gamma_ratio(a: float, b: float) -> float:
    """``lgamma(a + b) - lgamma(a)``, without the cancellation of two large lgammas."""
    if a < _STIRLING_FROM:
        return math.lgamma(a + b) - math.lgamma(a)
    return (
        (a - 0.5) * math.log1p(b / a)
        + b * math.log(a + b)
        - b
        + _stirling_correction(a + b)
        - _stirling_correction(a)
    )


def _log_beta(a: float, b: float) -> float:
    """``log B(a, b)``, the larger argument through :func:`_log_gamma_ratio`."""
    small, large = (a, b) if a <= b else (b, a)
    return math.lgamma(small) - _log_gamma_ratio(large, small)


def _fraction_terms(a: float, b: float, x: float, m: int) -> tuple[float, float]:
    """The ``m``-th even and odd numerators of the continued fraction of ``I_x(a, b)``."""
    m2 = 2 * m
    even = m * (b - m) * x / ((a - 1.0 + m2) * (a + m2))
    odd = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1.0 + m2))
    return even, odd


def _continued_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of ``I_x(a, b)`` (Numerical Recipes' ``betacf``).

    ``1 / (1 + d_1 / (1 + d_2 / (1 + ...)))``: the modified Lentz method finds how many terms
    it needs; the fraction is then summed again backwards over those terms, which loses
    fewer digits than Lentz's running product when ``x`` is close to 1 with many terms
    (about 6x fewer at 10^5 degrees of freedom).
    """
    first = -(a + b) * x / (a + 1.0)
    c, d = 1.0, 1.0 + first
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    for m in range(1, _MAX_TERMS):
        for numerator in _fraction_terms(a, b, x, m):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _TINY else _TINY
        if abs(d * c - 1.0) <= _CONVERGED:
            break
    else:
        raise ArithmeticError(f"incomplete beta: no convergence for a={a}, b={b}, x={x}")
    value = 1.0
    for k in range(m + 2, 0, -1):
        even, odd = _fraction_terms(a, b, x, k)
        value = 1.0 + even / (1.0 + odd / value)
    return 1.0 / (1.0 + first / value)


def _split(ratio: float, log_ratio: float) -> tuple[float, float]:
    """``(log x, log y)`` of ``x = 1 / (1 + r)`` and ``y = r / (1 + r)``.

    ``ratio`` is ``r`` (possibly 0 or inf after under- or overflow), ``log_ratio`` its
    logarithm, used only when ``r`` is not a positive finite float.
    """
    if 0.0 < ratio < math.inf:
        log_x = -math.log1p(ratio)
        return log_x, math.log(ratio) + log_x
    if log_ratio > 0:  # r overflowed: x = 1 / r to double precision
        return -log_ratio, 0.0
    return 0.0, log_ratio  # r underflowed: y = r


def _incomplete_beta(a: float, b: float, log_x: float, log_y: float) -> tuple[float, float]:
    """``(I_x(a, b), 1 - I_x(a, b))`` with ``y = 1 - x``, both given by their logarithms.

    The smaller of the two is computed directly (to full relative precision), the other as
    one minus it.
    """
    if log_y == -math.inf:
        return 1.0, 0.0
    if log_x == -math.inf:
        return 0.0, 1.0
    x, y = math.exp(log_x), math.exp(log_y)
    log_front = a * log_x + b * log_y - _log_beta(a, b)
    if x < (a + 1.0) / (a + b + 2.0):
        lower = math.exp(log_front) * _continued_fraction(a, b, x) / a
        return lower, 1.0 - lower
    upper = math.exp(log_front) * _continued_fraction(b, a, y) / b
    return 1.0 - upper, upper


def _t_upper_tail(df: float, t: float) -> float:
    """P(T > t) for ``t > 0`` and a finite ``df > 0``."""
    ratio = t * t / df  # x = df / (df + t^2) = 1 / (1 + ratio)
    log_x, log_y = _split(ratio, 2.0 * math.log(t) - math.log(df))
    return 0.5 * _incomplete_beta(df / 2.0, 0.5, log_x, log_y)[0]


def _t_lower_tail(df: float, t: float) -> float:
    """P(T <= t) for the t distribution with ``df`` degrees of freedom."""
    if math.isnan(df) or math.isnan(t) or df <= 0:
        return math.nan
    if math.isinf(t):
        return 0.0 if t < 0 else 1.0
    if df == math.inf:
        return 0.5 * math.erfc(-t / _SQRT2)
    if t == 0:
        return 0.5
    tail = _t_upper_tail(df, abs(t))
    return tail if t < 0 else 1.0 - tail


def _f_upper_tail(d1: float, d2: float, f: float) -> float:
    """P(F > f) for the F distribution with ``d1`` and ``d2`` degrees of freedom."""
    if math.isnan(d1) or math.isnan(d2) or math.isnan(f) or d1 <= 0 or d2 <= 0 or f < 0:
        return math.nan
    if f == math.inf:
        return 0.0
    if d1 == math.inf or d2 == math.inf:
        return math.nan
    if f == 0:
        return 1.0
    ratio = d1 * f / d2  # I_x(d2/2, d1/2) with x = d2 / (d2 + d1 f) = 1 / (1 + ratio)
    log_x, log_y = _split(ratio, math.log(d1) + math.log(f) - math.log(d2))
    return _incomplete_beta(d2 / 2.0, d1 / 2.0, log_x, log_y)[0]


def _t_log_density(df: float, t: float) -> float:
    """The logarithm of the t distribution's density at ``t > 0``."""
    log_norm = _log_gamma_ratio(df / 2.0, 0.5) - 0.5 * math.log(df * math.pi)
    ratio = t * t / df
    log1p_ratio = math.log1p(ratio) if ratio < 1e300 else 2.0 * math.log(t) - math.log(df)
    return log_norm - (df + 1.0) / 2.0 * log1p_ratio


def _inverse_erfc(q: float) -> float:
    """``erfc^-1(q)`` for ``0 < q <= 1``: bisection, then Newton's method."""
    low, high = 0.0, 1.0
    while math.erfc(high) > q:
        high *= 2.0
    for _ in range(60):
        middle = 0.5 * (low + high)
        low, high = (middle, high) if math.erfc(middle) > q else (low, middle)
    z = 0.5 * (low + high)
    for _ in range(3):
        z += (math.erfc(z) - q) / (2.0 / math.sqrt(math.pi) * math.exp(-z * z))
    return z


def _t_quantile(df: float, p: float) -> float:
    """The ``p`` quantile of the t distribution."""
    if math.isnan(df) or math.isnan(p) or df <= 0 or not 0 <= p <= 1:
        return math.nan
    if p in (0.0, 1.0):
        return math.copysign(math.inf, p - 0.5)
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -_t_upper_quantile(df, p)
    return _t_upper_quantile(df, 1.0 - p)  # 1 - p is exact for p in [0.5, 1]


def _t_upper_quantile(df: float, q: float) -> float:
    """The ``t > 0`` with ``P(T > t) = q``, for ``0 < q < 1/2``."""
    t = _SQRT2 * _inverse_erfc(2.0 * q)  # the normal quantile
    if df == math.inf:
        return t
    # Newton's method on log P(T > t) as a function of log t: nearly linear in the tail
    # (a power law), so a few steps reach quantiles of 1e60 from the normal quantile.
    log_q = math.log(q)
    previous = t
    for _ in range(_MAX_NEWTON_STEPS):
        tail = _t_upper_tail(df, t)
        if tail == 0.0:  # a step far past the root: back off halfway (in log t)
            t = math.sqrt(previous * t)
            continue
        # -d log tail / d log t, in logarithms: the density underflows before the tail
        slope = math.exp(math.log(t) + _t_log_density(df, t) - math.log(tail))
        step = min((math.log(tail) - log_q) / slope, 5.0)
        previous, t = t, t * math.exp(step)
        if abs(step) <= 1e-12:  # quadratic convergence: t is now exact to rounding
            return t
    raise ArithmeticError(f"t quantile: no convergence for df={df}, q={q}")


def _elementwise(function):
    ufunc = np.frompyfunc(lambda *args: function(*map(float, args)), function.__code__.co_argcount, 1)

    def call(*args):
        with np.errstate(all="ignore"):  # t * t may overflow to inf on purpose: see _split
            result = ufunc(*(np.asarray(arg, dtype=np.float64) for arg in args))
        return np.asarray(result, dtype=np.float64)[()]

    return call


_fdtrc = _elementwise(_f_upper_tail)
_stdtr = _elementwise(_t_lower_tail)
_stdtrit = _elementwise(_t_quantile)


def fdtrc(d1, d2, f):
    """Survival function of the F distribution, as ``scipy.special.fdtrc``.

    Parameters
    ----------
    d1, d2 : float or array_like
        Degrees of freedom of the numerator and the denominator (positive, finite).
    f : float or array_like
        The F statistic (non-negative).

    Returns
    -------
    numpy.float64 or numpy.ndarray
        ``P(F > f)``, broadcast over the arguments; NaN where an argument is NaN or out of
        its domain.

    Examples
    --------
    >>> from pdmetrics.fairness.distributions import fdtrc
    >>> float(fdtrc(1, 1, 1.0))
    0.5
    >>> round(float(fdtrc(3, 100_000, 2.6049)), 6)
    0.05
    >>> fdtrc(2, 10, [0.0, float("inf"), -1.0]).tolist()
    [1.0, 0.0, nan]
    """
    return _fdtrc(d1, d2, f)


def stdtr(df, t):
    """Cumulative distribution function of Student's t distribution, as ``scipy.special.stdtr``.

    Parameters
    ----------
    df : float or array_like
        Degrees of freedom (positive; ``inf`` gives the normal distribution).
    t : float or array_like
        The t statistic.

    Returns
    -------
    numpy.float64 or numpy.ndarray
        ``P(T <= t)``, broadcast over the arguments; NaN where an argument is NaN or
        ``df <= 0``.

    Examples
    --------
    >>> from pdmetrics.fairness.distributions import stdtr
    >>> float(stdtr(1, -1.0))
    0.25
    >>> round(float(2 * stdtr(100_000, -1.959993)), 6)
    0.05
    >>> stdtr(5, [0.0, float("inf"), float("nan")]).tolist()
    [0.5, 1.0, nan]
    """
    return _stdtr(df, t)


def stdtrit(df, p):
    """Quantile function of Student's t distribution, as ``scipy.special.stdtrit``.

    Parameters
    ----------
    df, p : float or array_like
        Degrees of freedom (as for :func:`stdtr`) and probability (in [0, 1]).

    Returns
    -------
    numpy.float64 or numpy.ndarray
        The ``t`` with ``stdtr(df, t) == p``, broadcast over the arguments: ``-inf`` at 0,
        ``inf`` at 1, NaN where an argument is NaN or out of its domain.

    Examples
    --------
    >>> from pdmetrics.fairness.distributions import stdtrit
    >>> float(stdtrit(1, 0.75))
    1.0
    >>> round(float(stdtrit(30, 0.975)), 6)
    2.042272
    >>> stdtrit(4, [0.5, 1.0, 1.5]).tolist()
    [0.0, inf, nan]
    """
    return _stdtrit(df, p)
