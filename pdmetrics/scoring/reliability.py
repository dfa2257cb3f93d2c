"""Reliability and sample-size planning for on-the-fly (PP) scoring (Attali, 2007).

How many benchmark essays, rated by how many raters, does a predetermined-parameter
(PP) scoring model need? The scaling of PP scores rests on the mean human score of a
small scaling sample, and the precision of that mean depends on how well the machine
scores predict the human scores, which in turn depends on the number of raters. These
functions implement Equations 5 to 9 of the paper and are vectorized: every argument may
be an array, and the arguments broadcast against each other (so ``n[:, None]`` and
``k[None, :]`` give the whole grid of the paper's Figure 1 in one call).

Scalar inputs give a Python float; any array input gives a NumPy array.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdmetrics._tables import result_table
from pdmetrics.errors import InvalidInputError

__all__ = [
    "spearman_brown",
    "attenuated_correlation",
    "rating_sd",
    "scaling_standard_error",
    "ep_pp_sample_size_ratio",
    "scaling_precision_table",
]


def _array(value, argument: str) -> np.ndarray:
    try:
        array = np.asarray(value, dtype="float64")
    except (TypeError, ValueError):
        raise InvalidInputError(f"`{argument}={value!r}` must be a number or an array of numbers.") from None
    if np.isnan(array).any():
        raise InvalidInputError(f"`{argument}` contains NaN; pass numbers only.")
    return array


def _check(array: np.ndarray, argument: str, ok: np.ndarray, rule: str) -> None:
    if not np.all(ok):
        bad = array[~ok] if array.ndim else array
        raise InvalidInputError(f"`{argument}` must be {rule}; got {float(np.ravel(bad)[0])!r}.")


def _broadcastable(**arrays: np.ndarray) -> None:
    """Raise a clear error when array arguments cannot be broadcast against each other."""
    try:
        np.broadcast_shapes(*(a.shape for a in arrays.values()))
    except ValueError:
        shapes = ", ".join(f"{name} {a.shape}" for name, a in arrays.items() if a.ndim)
        raise InvalidInputError(
            f"The array arguments have shapes that do not broadcast together ({shapes}). "
            "Give them the same length, or use `n[:, None]` and `k[None, :]` for a "
            "grid."
        ) from None


def _reliability(value, argument: str) -> np.ndarray:
    array = _array(value, argument)
    _check(array, argument, (array >= 0) & (array <= 1), "a reliability between 0 and 1")
    return array


def _raters(value, argument: str = "k") -> np.ndarray:
    array = _array(value, argument)
    _check(array, argument, np.isfinite(array) & (array > 0), "a positive number of raters")
    return array


def _result(value: np.ndarray, *inputs) -> float | np.ndarray:
    if all(np.ndim(x) == 0 for x in inputs):
        return float(value)
    return np.asarray(value, dtype="float64")


def _attenuated(rho: np.ndarray, rel: np.ndarray, k: np.ndarray) -> np.ndarray:
    if np.any(rho**2 > rel * (1 + 1e-12)):
        raise InvalidInputError(
            "`rho_single` cannot exceed sqrt(`reliability_single`): the correlation of machine scores "
            "with one rating is bounded by the square root of that rating's reliability (Equation 6). "
            f"Got rho_single={np.ravel(rho)[0]!r} with reliability_single={np.ravel(rel)[0]!r}."
        )
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.minimum(rho * np.sqrt(k / (1.0 + (k - 1.0) * rel)), 1.0)


def spearman_brown(reliability, k):
    r"""Reliability of the average of ``k`` parallel ratings (Spearman-Brown, Equation 7).

    .. math:: \rho_{HH} = \frac{k \rho_{SS}}{1 + (k - 1) \rho_{SS}}

    Parameters
    ----------
    reliability : float or array-like
        Reliability of a single rating, :math:`\rho_{SS}` (the correlation between two
        raters), between 0 and 1.
    k : float or array-like
        Number of raters whose ratings are averaged (any positive number: the formula
        also gives the reliability of a test lengthened by a factor ``k``).

    Returns
    -------
    float or numpy.ndarray
        The reliability of the average; an array when any input is an array (inputs
        broadcast).

    Raises
    ------
    InvalidInputError
        For a reliability outside [0, 1], a non-positive ``k`` or NaN.

    Examples
    --------
    >>> from pdmetrics.scoring import spearman_brown
    >>> round(spearman_brown(0.64, 2), 4)
    0.7805
    >>> spearman_brown(0.64, [1, 2, 5]).round(3)
    array([0.64 , 0.78 , 0.899])
    """
    rel = _reliability(reliability, "reliability")
    kk = _raters(k)
    _broadcastable(reliability=rel, k=kk)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.where(rel == 0, 0.0, kk * rel / (1.0 + (kk - 1.0) * rel))
    return _result(value, reliability, k)


def attenuated_correlation(rho_single, reliability_single, k):
    r"""Correlation of machine scores with the average of ``k`` human ratings (Equation 8).

    The true-score correlation of machine and human scores does not depend on the number
    of raters; only the reliability of the human score does (Spearman-Brown). Correcting
    for attenuation (Equation 6) gives

    .. math:: \rho_{HE} = \rho_{SE} \sqrt{\frac{k}{1 + (k - 1) \rho_{SS}}}

    where :math:`\rho_{SE}` is the correlation of machine scores with a single rating and
    :math:`\rho_{SS}` the reliability of a single rating.

    Parameters
    ----------
    rho_single : float or array-like
        :math:`\rho_{SE}`, correlation of machine scores with one human rating (the paper's
        typical value is 0.80).
    reliability_single : float or array-like
        :math:`\rho_{SS}`, reliability of one rating (0.64 in the paper).
    k : float or array-like
        Number of raters averaged.

    Returns
    -------
    float or numpy.ndarray
        :math:`\rho_{HE}`; inputs broadcast.

    Raises
    ------
    InvalidInputError
        When ``rho_single ** 2 > reliability_single`` (impossible: a correlation cannot
        exceed the square root of a reliability), or for out-of-range values.

    Examples
    --------
    The paper's values for 2, 3, 4 and 10 raters:

    >>> from pdmetrics.scoring import attenuated_correlation
    >>> attenuated_correlation(0.80, 0.64, [2, 3, 4, 10]).round(2)
    array([0.88, 0.92, 0.94, 0.97])
    """
    rho = _array(rho_single, "rho_single")
    _check(rho, "rho_single", (rho >= -1) & (rho <= 1), "a correlation between -1 and 1")
    rel = _reliability(reliability_single, "reliability_single")
    kk = _raters(k)
    _broadcastable(rho_single=rho, reliability_single=rel, k=kk)
    return _result(_attenuated(rho, rel, kk), rho_single, reliability_single, k)


def rating_sd(sigma_single, reliability_single, k):
    r"""SD of the average of ``k`` parallel ratings.

    Each rating is a true score plus independent error; averaging ``k`` ratings keeps the
    true-score variance :math:`\rho_{SS}\sigma_1^2` and divides the error variance
    :math:`(1-\rho_{SS})\sigma_1^2` by ``k``:

    .. math:: \sigma_H = \sigma_1 \sqrt{\frac{1 + (k - 1)\rho_{SS}}{k}}

    Parameters
    ----------
    sigma_single : float or array-like
        SD of a single rating, :math:`\sigma_1`.
    reliability_single : float or array-like
        Reliability of a single rating.
    k : float or array-like
        Number of raters averaged.

    Examples
    --------
    >>> from pdmetrics.scoring import rating_sd
    >>> round(rating_sd(1.0, 0.64, 5), 4)
    0.8438
    """
    sigma = _array(sigma_single, "sigma_single")
    _check(sigma, "sigma_single", np.isfinite(sigma) & (sigma >= 0), "a finite, non-negative SD")
    rel = _reliability(reliability_single, "reliability_single")
    kk = _raters(k)
    _broadcastable(sigma_single=sigma, reliability_single=rel, k=kk)
    return _result(sigma * np.sqrt((1.0 + (kk - 1.0) * rel) / kk), sigma_single, reliability_single, k)


def scaling_standard_error(n, k, sigma_h=1.0, rho_single=0.80, reliability_single=0.64):
    r"""Standard error of the scaling mean under PP scoring (Equations 5 and 9).

    In PP scoring every human score of the scaling sample is paired with a machine score,
    so the uncertainty of the human mean is that of the human scores *given* the machine
    scores: the standard error of estimate :math:`\sigma_{H.E} = \sigma_H
    \sqrt{1 - \rho_{HE}^2}` (Equation 5), divided by :math:`\sqrt{n}` (Equation 9):

    .. math:: \sigma_M = \frac{\sigma_H \sqrt{1 - \rho_{HE}^2}}{\sqrt{n}}

    with :math:`\rho_{HE}` from :func:`attenuated_correlation` and :math:`\sigma_H`, the
    SD of the average of ``k`` ratings, from :func:`rating_sd`.

    Parameters
    ----------
    n : int or array-like
        Number of essays in the scaling sample (positive).
    k : int or array-like
        Number of raters per essay (positive).
    sigma_h : float or array-like, default 1.0
        SD of a *single* rating (the paper's Figure 1 uses 1.0 point).
    rho_single : float or array-like, default 0.80
        Correlation of machine scores with a single rating.
    reliability_single : float or array-like, default 0.64
        Reliability of a single rating.

    Returns
    -------
    float or numpy.ndarray
        :math:`\sigma_M`; inputs broadcast, so ``n[:, None]`` and ``k[None, :]`` give a
        grid. See :func:`scaling_precision_table` for the same as a tidy table.

    Examples
    --------
    The paper's two quoted values (20 and 50 essays, 5 raters):

    >>> import numpy as np
    >>> from pdmetrics.scoring import scaling_standard_error
    >>> round(scaling_standard_error(20, 5), 2), round(scaling_standard_error(50, 5), 2)
    (0.06, 0.04)
    >>> n = np.array([1, 2, 5, 10, 20, 50])
    >>> scaling_standard_error(n[:, None], np.arange(1, 11)[None, :]).shape  # Figure 1
    (6, 10)
    """
    nn = _array(n, "n")
    _check(nn, "n", np.isfinite(nn) & (nn > 0), "a positive number of essays")
    kk = _raters(k)
    sigma = _array(sigma_h, "sigma_h")
    _check(sigma, "sigma_h", np.isfinite(sigma) & (sigma >= 0), "a finite, non-negative SD")
    rho = _array(rho_single, "rho_single")
    _check(rho, "rho_single", (rho >= -1) & (rho <= 1), "a correlation between -1 and 1")
    rel = _reliability(reliability_single, "reliability_single")
    _broadcastable(n=nn, k=kk, sigma_h=sigma, rho_single=rho, reliability_single=rel)
    rho_he = _attenuated(rho, rel, kk)
    sd_h = sigma * np.sqrt((1.0 + (kk - 1.0) * rel) / kk)
    value = sd_h * np.sqrt(np.maximum(1.0 - rho_he**2, 0.0)) / np.sqrt(nn)
    return _result(value, n, k, sigma_h, rho_single, reliability_single)


def ep_pp_sample_size_ratio(k, rho_single=0.80, reliability_single=0.64):
    r"""How many times more essays EP scaling needs than PP scaling for the same precision.

    Under EP scoring the scaling mean comes from a random sample of human scores, with
    standard error :math:`\sigma_H / \sqrt{n}` (Equation 4); under PP scoring it is
    :math:`\sigma_H \sqrt{1-\rho_{HE}^2} / \sqrt{n}` (Equation 9). Equal precision needs

    .. math:: \frac{n_{EP}}{n_{PP}} = \frac{\sigma_H^2}{\sigma_{H.E}^2} = \frac{1}{1 - \rho_{HE}^2}

    essays, with :math:`\rho_{HE}` from :func:`attenuated_correlation`. The square root of
    this ratio is the paper's ":math:`\sigma_H` is 2.1 (3.2) times larger than
    :math:`\sigma_{H.E}`".

    Parameters
    ----------
    k : int or array-like
        Number of raters per essay.
    rho_single, reliability_single : float or array-like
        As in :func:`scaling_standard_error`.

    Returns
    -------
    float or numpy.ndarray
        The ratio (``inf`` when :math:`\rho_{HE} = 1`).

    Notes
    -----
    The paper quotes "4.5 times (2.1 squared)" for two raters and "more than 10 (3.2
    squared)" for five. The exact values are 4.56 (square root 2.13) and 9.89 (square root
    3.14). The paper's 4.5 is 4.56 cut to one decimal (rounded it is 4.6); its 3.2 and
    "more than 10" come from first rounding :math:`\rho_{HE}` to two decimals (0.95 for
    five raters): ``1 / (1 - 0.95**2) = 10.26``.

    Examples
    --------
    >>> from pdmetrics.scoring import ep_pp_sample_size_ratio
    >>> ep_pp_sample_size_ratio([2, 5]).round(2)
    array([4.56, 9.89])
    """
    kk = _raters(k)
    rho = _array(rho_single, "rho_single")
    _check(rho, "rho_single", (rho >= -1) & (rho <= 1), "a correlation between -1 and 1")
    rel = _reliability(reliability_single, "reliability_single")
    _broadcastable(k=kk, rho_single=rho, reliability_single=rel)
    rho_he = _attenuated(rho, rel, kk)
    with np.errstate(divide="ignore"):
        value = 1.0 / np.maximum(1.0 - rho_he**2, 0.0)
    return _result(value, k, rho_single, reliability_single)


def scaling_precision_table(
    n=(1, 2, 5, 10, 20, 50), k=tuple(range(1, 11)), sigma_h=1.0, rho_single=0.80, reliability_single=0.64
) -> pd.DataFrame:
    r"""Precision of the scaling mean for every combination of essays ``n`` and raters ``k``.

    The defaults are the grid of the paper's Figure 1. One row per ``(n, k)``, ``n``
    varying slowest.

    Parameters
    ----------
    n, k : sequence of numbers
        Numbers of essays and of raters per essay.
    sigma_h, rho_single, reliability_single : float
        As in :func:`scaling_standard_error`.

    Returns
    -------
    pandas.DataFrame
        Columns ``n, k`` (identifiers), then

        - ``h_reliability``: reliability of the average of ``k`` ratings (Equation 7);
        - ``h_sd``: SD of the average of ``k`` ratings (:func:`rating_sd`);
        - ``corr``: :math:`\rho_{HE}`, correlation of machine scores with that average
          (Equation 8);
        - ``se_pp``: standard error of the scaling mean under PP scoring (Equation 9);
        - ``se_ep``: standard error under EP-style scaling from a random sample of human
          scores, :math:`\sigma_H/\sqrt{n}` (Equation 4);
        - ``ep_pp_ratio``: essays EP needs per PP essay for equal precision.

    Examples
    --------
    >>> from pdmetrics.scoring import scaling_precision_table
    >>> table = scaling_precision_table(n=[20, 50], k=[5])
    >>> table[["n", "k", "corr", "se_pp", "se_ep"]].round(2)
        n  k  corr  se_pp  se_ep
    0  20  5  0.95   0.06   0.19
    1  50  5  0.95   0.04   0.12
    >>> grid = scaling_precision_table().pivot(index="k", columns="n", values="se_pp")  # Figure 1
    >>> grid.shape
    (10, 6)
    """
    nn = _array(n, "n").reshape(-1)
    kk = _raters(k, "k").reshape(-1)
    for scalar, name in (
        (sigma_h, "sigma_h"),
        (rho_single, "rho_single"),
        (reliability_single, "reliability_single"),
    ):
        if np.ndim(scalar) != 0:
            raise InvalidInputError(
                f"`{name}=` must be a single number in scaling_precision_table; "
                "call scaling_standard_error for arrays of it."
            )
    n_grid = np.repeat(nn, kk.size)
    k_grid = np.tile(kk, nn.size)
    se_pp = np.asarray(scaling_standard_error(n_grid, k_grid, sigma_h, rho_single, reliability_single))
    sd_h = np.asarray(rating_sd(sigma_h, reliability_single, k_grid))
    columns = {
        "n": n_grid,
        "k": k_grid,
        "h_reliability": np.asarray(spearman_brown(reliability_single, k_grid)),
        "h_sd": sd_h,
        "corr": np.asarray(attenuated_correlation(rho_single, reliability_single, k_grid)),
        "se_pp": se_pp,
        "se_ep": sd_h / np.sqrt(n_grid),
        "ep_pp_ratio": np.asarray(ep_pp_sample_size_ratio(k_grid, rho_single, reliability_single)),
    }
    integer = [c for c in ("n", "k") if np.all(columns[c] == np.rint(columns[c]))]
    return result_table(columns, integer_columns=integer)
