"""The paired comparison of systems, one vocabulary for every domain (``compare``).

Every domain's ``compare`` answers "is system B better than baseline A on the same rows?" with
one tidy table: its identifier columns (the domain's: a subgroup, a label, ...), then
:data:`COLUMNS` — the metric, the two systems, the rows (or images, segments) compared, both
values, their difference ``system - baseline`` with a confidence interval, the p-value of "no
difference" and the test behind it, and the p-value adjusted for the many comparisons of the
table (``correction=``, as statsmodels' ``multipletests``; equal to ``p_value`` without one).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdmetrics._resampling import bootstrap_key, check_bootstrap_options
from pdmetrics._validation import plain
from pdmetrics.errors import InvalidInputError

__all__ = [
    "COLUMNS",
    "COMPARISON_OPTIONS",
    "CORRECTIONS",
    "EXACT_BELOW",
    "PAIRS",
    "adjusted_p_values",
    "check_comparison_options",
    "check_correction",
    "compared_pairs",
    "comparison_columns",
    "comparison_settings",
    "comparison_table",
    "mcnemar_test",
    "multiple_tests",
    "repeated",
]

#: The columns of every comparison table after the domain's identifier columns.
COLUMNS = [
    "metric",
    "baseline",
    "system",
    "N",
    "baseline_value",
    "system_value",
    "difference",
    "ci_low",
    "ci_high",
    "p_value",
    "p_adjusted",
    "test",
]

#: The options every ``compare`` docstring describes alike (:func:`pdmetrics._docstrings.fill`).
COMPARISON_OPTIONS = """
pairs : {"baseline", "all"}, default "baseline"
    Each system against the first (the baseline), or every pair of systems.
correction : {"holm", "fdr_bh", "bonferroni"}, optional
    Adjust the p-values for the number of comparisons in the table (every row: metric, pair and
    unit), as statsmodels' ``multipletests``: column ``p_adjusted``.
n_resamples : int, default 1000
    Resamples of the paired bootstrap (at least 1).
confidence : float, default 0.95
    Coverage of the intervals.
"""

#: ``correction=``: statsmodels' ``multipletests`` methods offered (None: no correction).
CORRECTIONS = ("holm", "fdr_bh", "bonferroni")

#: ``pairs=``: each system against the first (the baseline), or every pair in order.
PAIRS = ("baseline", "all")


def check_comparison_options(pairs, correction) -> None:
    """Refuse an unknown ``pairs=`` or ``correction=`` before any work."""
    if not isinstance(pairs, str) or pairs not in PAIRS:
        raise InvalidInputError(
            f"`pairs={plain(pairs)!r}` is not a way to pair systems; pass 'baseline' (each system "
            f"against the first) or 'all' (every pair)."
        )
    check_correction(correction)


def check_correction(correction) -> None:
    """Refuse an unknown ``correction=`` (one of :data:`CORRECTIONS`, or None) before any work."""
    if correction is not None and (not isinstance(correction, str) or correction not in CORRECTIONS):
        raise InvalidInputError(
            f"`correction={plain(correction)!r}` is not a correction for many comparisons; pass one of "
            f"{list(CORRECTIONS)} or None."
        )


def comparison_settings(
    pairs, correction, n_resamples, confidence, random_state, *, keyed: bool = True
) -> dict:
    """The options every ``compare`` takes, checked once, as the one dict its table reads.

    :func:`check_comparison_options` and
    :func:`~pdmetrics._resampling.check_bootstrap_options` refuse a wrong value before any
    work; the dict holds ``pairs``, ``correction``, ``n_resamples``, ``confidence``,
    ``random_state`` and ``key``, the Poisson bootstrap's key of ``random_state``
    (:func:`~pdmetrics._resampling.bootstrap_key`; None unless ``keyed``: a table that draws
    its resamples another way leaves a generator ``random_state`` untouched).

    Examples
    --------
    >>> from pdmetrics._comparison import comparison_settings
    >>> settings = comparison_settings("baseline", "holm", 1000, 0.95, 12345)
    >>> sorted(settings)
    ['confidence', 'correction', 'key', 'n_resamples', 'pairs', 'random_state']
    """
    check_comparison_options(pairs, correction)
    check_bootstrap_options(n_resamples, confidence, random_state, required=True)
    return {
        "pairs": pairs,
        "correction": correction,
        "n_resamples": int(n_resamples),
        "confidence": confidence,
        "random_state": random_state,
        "key": bootstrap_key(random_state) if keyed else None,
    }


def compared_pairs(systems: list, pairs: str, argument: str = "system") -> list[tuple]:
    """The ``(baseline, system)`` pairs compared: the first against each other (``"baseline"``)
    or every pair in the given order (``"all"``); at least two systems are needed."""
    if len(systems) < 2:
        raise InvalidInputError(
            f"`{argument}=` names {len(systems)} system; a comparison needs two or more, the "
            f"baseline first, e.g. `{argument}=['old', 'new']`."
        )
    if pairs == "baseline":
        return [(systems[0], other) for other in systems[1:]]
    return [(a, b) for i, a in enumerate(systems) for b in systems[i + 1 :]]


def adjusted_p_values(p_values, correction) -> np.ndarray:
    """``p_values`` adjusted for their number by ``correction`` (statsmodels' ``multipletests``;
    NaN p-values are left out of the family and stay NaN); unchanged for None."""
    return multiple_tests(p_values, correction)[0]


def multiple_tests(p_values, correction, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    """The adjusted p-values and the rejections at ``alpha`` of statsmodels' ``multipletests``
    (``correction`` its method; None: the p-values unchanged, rejected where ``p <= alpha``).
    NaN p-values are left out of the family: their adjusted value is NaN, never rejected.

    Examples
    --------
    >>> from pdmetrics._comparison import multiple_tests
    >>> adjusted, reject = multiple_tests([0.01, 0.04, float("nan")], "holm")
    >>> adjusted.round(3).tolist(), reject.tolist()
    ([0.02, 0.04, nan], [True, True, False])
    """
    p = np.asarray(p_values, dtype="float64")
    finite = np.isfinite(p)
    if correction is None:
        return p.copy(), finite & (p <= alpha)
    out = np.full(p.shape, np.nan)
    reject = np.zeros(p.shape, dtype=bool)
    if finite.any():
        if correction == "holm":
            reject[finite], out[finite] = _holm(p[finite], alpha)
        else:
            from statsmodels.stats.multitest import multipletests

            reject[finite], out[finite] = multipletests(p[finite], alpha=alpha, method=correction)[:2]
    return out, reject


def _holm(p: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """``multipletests(p, alpha, method="holm")[:2]``, the same operations in the same order
    (statsmodels' Holm branch ends with a full garbage collection, a tenth of a second in a
    large session, for nothing here)."""
    order = np.argsort(p)
    ordered = np.take(p, order)
    steps = np.arange(p.size, 0, -1)
    keep = ordered > alpha / steps
    first = np.nonzero(keep)[0]
    keep[(np.min(first) if first.size else p.size) :] = True
    corrected = np.maximum.accumulate(ordered * steps)
    corrected[corrected > 1] = 1
    adjusted, reject = np.empty_like(corrected), np.empty_like(keep)
    adjusted[order], reject[order] = corrected, ~keep
    return reject, adjusted


def comparison_table(parts: list[pd.DataFrame], identifiers: list, correction) -> pd.DataFrame:
    """The comparison table from its parts (each with ``identifiers`` and :data:`COLUMNS` but
    ``p_adjusted``): one RangeIndex, the fixed column order, ``p_adjusted`` over all its rows."""
    columns = [*identifiers, *COLUMNS]
    parts = [part for part in parts if len(part)]
    if not parts:
        table = pd.DataFrame({name: pd.Series(dtype=object) for name in columns})
    else:
        table = pd.concat(parts, ignore_index=True)
    table["p_adjusted"] = adjusted_p_values(table["p_value"].to_numpy(dtype="float64"), correction)
    table["N"] = table["N"].astype("int64")
    for name in ("baseline_value", "system_value", "difference", "ci_low", "ci_high", "p_value"):
        table[name] = table[name].astype("float64")
    return table[columns].reset_index(drop=True)


#: Fewer discordant responses than this: McNemar's exact binomial test, else the chi-square one.
EXACT_BELOW = 25


def mcnemar_test(only_a, only_b, n, confidence: float = 0.95):
    """McNemar's test of two paired proportions, with the Wald interval of their difference.

    ``only_a``: rows where only A succeeds (e.g. agrees exactly with the human score);
    ``only_b``: where only B does; ``n``: all rows (arrays broadcast). Below
    :data:`EXACT_BELOW` discordant rows the exact binomial test (statsmodels'
    ``mcnemar(exact=True)``), else the chi-square test without continuity correction
    (``mcnemar(exact=False, correction=False)``; the corrected test is conservative).

    Returns
    -------
    p_value, ci_low, ci_high, exact : ndarray
        The two-sided p-value (1.0 without a discordant row), the interval of the difference
        of the proportions ``(only_b - only_a) / n`` and whether the exact test was used.

    Examples
    --------
    >>> from pdmetrics._comparison import mcnemar_test
    >>> p, low, high, exact = mcnemar_test(10, 25, 200)
    >>> round(float(p), 4), round(float(low), 3), round(float(high), 3), bool(exact)
    (0.0112, 0.018, 0.132, False)
    """
    from scipy import stats as scipy_stats

    a, b, n = (np.asarray(v, dtype="float64") for v in (only_a, only_b, n))
    discordant = a + b
    exact = discordant < EXACT_BELOW
    with np.errstate(invalid="ignore", divide="ignore"):
        binomial = np.minimum(1.0, 2 * scipy_stats.binom.cdf(np.minimum(a, b), discordant, 0.5))
        chi2 = (a - b) ** 2 / discordant
        p = np.where(exact, binomial, scipy_stats.chi2.sf(chi2, 1))
        p = np.where(discordant == 0, 1.0, p)
        difference = (b - a) / n
        variance = (discordant - (b - a) ** 2 / n) / n**2
        half = scipy_stats.norm.ppf(0.5 + confidence / 2) * np.sqrt(np.maximum(variance, 0.0))
    p = np.where(n > 0, p, np.nan)
    return p, np.where(n > 0, difference - half, np.nan), np.where(n > 0, difference + half, np.nan), exact


def repeated(value, size: int) -> np.ndarray:
    """``size`` copies of one label (a name, a model) as an object array (a tuple stays whole)."""
    out = np.empty(size, dtype=object)
    out[:] = [value] * size
    return out


def comparison_columns(by, group, metric, a, b, n, value_a, value_b, low, high, p, test) -> dict:
    """The columns of some rows of a comparison table (:data:`COLUMNS` but ``p_adjusted``, after
    ``by`` and ``group``), the labels repeated and the difference taken."""
    size = len(value_a)
    return {
        "by": repeated(by, size),
        "group": group,
        "metric": metric,
        "baseline": repeated(a, size),
        "system": repeated(b, size),
        "N": np.broadcast_to(np.asarray(n, dtype=np.int64), (size,)),
        "baseline_value": value_a,
        "system_value": value_b,
        "difference": value_b - value_a,
        "ci_low": low,
        "ci_high": high,
        "p_value": p,
        "test": test,
    }
