"""Ordinary least squares from additive per-cell moments, for models with only categorical regressors.

When every regressor is categorical, all rows of one cell (a combination of categories) share
the same design row. The OLS normal equations then need, per cell, only the number of rows,
the mean of the response and the within-cell (centred) sum of squares: moments that add up
over chunks of rows (:func:`pool`). :class:`CellFit` solves the least squares on the compact
design (one row per cell, rows and response weighted by ``sqrt(n_cell)``, which has exactly the
``X'X`` and ``X'y`` of the full design, hence the same singular values, rank, pseudo-inverse and
estimates) with the pseudo-inverse as statsmodels' ``OLS.fit(method="pinv")`` does, and adds the
within-cell sum of squares back to the residual sum of squares. Standard errors, t and F
statistics, p-values, confidence intervals and (adjusted) R2 are then the full-data OLS numbers,
with the full-data degrees of freedom. The t and F distributions come from
:mod:`pdmetrics.fairness.distributions` up to :data:`EXACT_DF_LIMIT` residual degrees of
freedom, and from ``scipy.special`` above (see :func:`special_functions`).

The score fairness models (:mod:`pdmetrics.fairness.regression`) are fitted this way.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdmetrics._stats import as_intp, smallest_integer_type
from pdmetrics.fairness import distributions

__all__ = [
    "EXACT_DF_LIMIT",
    "EXACT_NUMERATOR_DF_LIMIT",
    "CellFit",
    "factorize",
    "least_squares",
    "noise_tolerance",
    "pool",
    "special_functions",
    "treatment_design",
]


def least_squares(endog: np.ndarray, exog: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Minimum-norm least squares by the pseudo-inverse, as statsmodels' ``OLS.fit(method="pinv")``.

    Returns ``(params, normalized_cov, rank)``: the estimates ``pinv(X) @ y``, the unscaled
    covariance ``pinv(X) @ pinv(X).T`` and the rank of ``X``. Singular values at or below
    ``1e-15`` times the largest count as zero in the pseudo-inverse, and the rank counts
    those above ``largest * min(shape) * eps`` (statsmodels' and numpy's rules).
    """
    u, singular, vt = np.linalg.svd(exog, full_matrices=False)
    largest = np.max(singular) if singular.size else 0.0
    with np.errstate(divide="ignore"):
        inverse = np.where(singular > 1e-15 * largest, 1.0 / singular, 0.0)
    pinv = np.dot(vt.T, inverse[:, None] * u.T)
    rank = int(np.count_nonzero(singular > largest * singular.size * np.finfo(np.float64).eps))
    return np.dot(pinv, endog), np.dot(pinv, pinv.T), rank


#: Largest degrees of freedom for which the p-values and confidence intervals come from
#: :mod:`pdmetrics.fairness.distributions` (pure Python, checked against ``scipy.special`` to
#: 1e-11 relative up to here); above it they come from ``scipy.special``.
EXACT_DF_LIMIT = 2e5
#: Largest numerator degrees of freedom of an F-test (groups - 1) checked to that precision.
EXACT_NUMERATOR_DF_LIMIT = 60


def special_functions(df_resid: float, df_numerator: float = 1.0):
    """The module whose ``fdtrc``, ``stdtr`` and ``stdtrit`` compute the p-values and CIs.

    ``fdtrc(d1, d2, F)`` is the F distribution's survival function, ``stdtr(df, t)`` the t
    distribution's CDF and ``stdtrit(df, q)`` its quantile (what ``scipy.stats.f.sf``,
    ``t.sf`` and ``t.ppf`` evaluate). With ``df_resid`` at most :data:`EXACT_DF_LIMIT` and
    ``df_numerator`` (of an F-test) at most :data:`EXACT_NUMERATOR_DF_LIMIT` that is
    :mod:`pdmetrics.fairness.distributions` (no SciPy import: ``import scipy.special`` alone
    takes 0.3-0.5 s); otherwise ``scipy.special``, imported on first use.
    """
    if df_resid <= EXACT_DF_LIMIT and df_numerator <= EXACT_NUMERATOR_DF_LIMIT:
        return distributions
    from scipy import special

    return special


def factorize(values: np.ndarray, out: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Codes (-1 for missing) and distinct values of floats; integer values take a fast path
    (``out``, an ``intp`` work array of the values' size, saves bincount's copy of narrow codes)."""
    finite = np.isfinite(values)
    every = bool(finite.all())
    present_values = values if every else values[finite]
    if present_values.size:
        low, high = present_values.min(), present_values.max()
        if high - low <= 100_000 and float(low).is_integer():
            filled = values if every else np.where(finite, values, low)
            # the narrowest integers holding the values and their offsets (no 80 MB codes at 10M rows)
            offset = filled.astype(smallest_integer_type(min(low, -1.0), max(high, high - low + 1)))
            if np.array_equal(offset, filled):  # integer values: the offsets from the lowest are codes
                offset -= int(low)
                if not every:
                    np.putmask(offset, ~finite, -1)
                span = int(high - low) + 1
                present = np.flatnonzero(
                    np.bincount(as_intp(offset if every else offset[finite], out), minlength=span)
                )
                if present.size == span:  # every value in the range occurs: the offsets are the codes
                    return offset, present + low
                remap = np.full(span + 1, -1, dtype=offset.dtype)  # last entry: -1 stays -1
                remap[present] = np.arange(present.size)
                return remap[offset], present + low
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    return codes.astype(np.intp, copy=False), np.asarray(uniques, dtype="float64")


def pool(
    n: np.ndarray, mean: np.ndarray, m2: np.ndarray, parent: np.ndarray, n_parents: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Count, mean and centred sum of squares of unions of cells (``parent`` code per cell)."""
    total = np.bincount(parent, weights=n, minlength=n_parents)
    with np.errstate(invalid="ignore", divide="ignore"):
        pooled_mean = np.bincount(parent, weights=n * mean, minlength=n_parents) / total
    between = n * (mean - pooled_mean[parent]) ** 2
    pooled_m2 = np.bincount(parent, weights=m2 + between, minlength=n_parents)
    return total, pooled_mean, pooled_m2


class CellFit:
    """Full-data OLS numbers of a categorical-design model fitted on its cells.

    ``tolerance`` is the size of rounding noise in the model's sums of squares (see
    :func:`noise_tolerance`): a total sum of squares at or below it is a constant response
    (R2, F and the tests are undefined), a residual sum of squares at or below it an exact
    fit (taken as exactly 0, as the algebra gives).
    """

    def __init__(
        self,
        design: np.ndarray,
        n: np.ndarray,
        mean: np.ndarray,
        within_ss: float,
        centered_tss: float,
        nobs: int,
        tolerance: float,
    ) -> None:
        weight = np.sqrt(n)
        self.params, self.normalized_cov, self.rank = least_squares(mean * weight, design * weight[:, None])
        self.full_rank = self.rank == design.shape[1]
        self.nobs = nobs
        # fitted cell means; the explained sum of squares is summed directly (not TSS - SSR) so
        # that a model explaining nothing gives exactly F = 0 and p = 1
        self.fitted = design @ self.params
        grand_mean = np.sum(n * mean) / np.sum(n)
        self.centered_tss = np.float64(centered_tss)
        # a constant response (e.g. system = human + c) has sums of squares of rounding noise
        # only: F, R2 and the t-tests are undefined (not noise over noise)
        self.constant = not self.centered_tss > tolerance
        if self.constant:
            self.ess = self.ssr = np.float64(0.0)
        else:
            self.ess = np.float64(np.sum(n * (self.fitted - grand_mean) ** 2))
            self.ssr = np.float64(within_ss + np.sum(n * (mean - self.fitted) ** 2))
            if self.ssr <= tolerance:  # an exact fit up to rounding
                self.ssr = np.float64(0.0)
        self.df_resid = nobs - self.rank
        self.df_model = self.rank - 1
        with np.errstate(invalid="ignore", divide="ignore"):
            self.scale = self.ssr / self.df_resid if self.df_resid > 0 else np.nan
            self.rsquared = np.nan if self.constant else 1.0 - self.ssr / self.centered_tss
            self.rsquared_adj = (
                1.0 - (self.nobs - 1) / self.df_resid * (1.0 - self.rsquared) if self.df_resid > 0 else np.nan
            )
            if self.df_model > 0 and self.df_resid > 0 and not self.constant:
                mse_model = self.ess / self.df_model
                self.fvalue = mse_model / self.scale
                self.f_pvalue = float(
                    special_functions(self.df_resid, self.df_model).fdtrc(
                        self.df_model, self.df_resid, self.fvalue
                    )
                )
            else:
                self.fvalue = np.nan
                self.f_pvalue = np.nan

    def coefficients(self, count: int) -> dict[str, np.ndarray]:
        """Estimate, p-value and 95% CI of the first ``count`` parameters."""
        params = self.params[:count]
        with np.errstate(invalid="ignore", divide="ignore"):
            bse = np.sqrt(np.diag(self.normalized_cov)[:count] * self.scale)
            t = params / bse
        if self.df_resid > 0:
            special = special_functions(self.df_resid)
            p = np.where(bse > 0, special.stdtr(self.df_resid, -np.abs(t)) * 2, np.nan)
            q = special.stdtrit(self.df_resid, 0.975)
        else:
            p = np.full(count, np.nan)
            q = np.nan
        if self.constant:  # no spread at all: the intervals are undefined, not [estimate, estimate]
            q = np.nan
        return {"estimate": params, "P>[t]": p, "[0.025": params - q * bse, "0.975]": params + q * bse}


def noise_tolerance(nobs: int, scale: float) -> float:
    """Sums of squares of ``nobs`` values whose size is about ``scale`` that are rounding noise.

    Differences of numbers of size ``scale`` carry a rounding error of a few ``eps * scale``
    each; a sum of squares below ``eps * scale**2 * nobs`` (a spread below ``sqrt(eps)``, about
    1.5e-8, of the scale) cannot be told from that noise and is taken as exactly 0.
    """
    return float(np.finfo(np.float64).eps * nobs * scale * scale)


def treatment_design(
    codes_a: np.ndarray, k_a: int, codes_b: np.ndarray | None = None, k_b: int = 0
) -> np.ndarray:
    """Design rows ``[1, dummies of a (k_a - 1), dummies of b (k_b - 1)]`` for given cell codes."""
    width = k_a + (k_b - 1 if codes_b is not None else 0)
    design = np.zeros((codes_a.size, width))
    design[:, 0] = 1.0
    rows = np.arange(codes_a.size)
    has_a = codes_a > 0
    design[rows[has_a], codes_a[has_a]] = 1.0
    if codes_b is not None:
        has_b = codes_b > 0
        design[rows[has_b], k_a - 1 + codes_b[has_b]] = 1.0
    return design
