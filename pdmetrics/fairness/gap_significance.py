"""Is the gap real? A test, an interval and a power check for every group's gap to a reference.

:func:`gap_tests` compares each group's rate (selection rate, TPR, FPR, precision, ...) with the
same rate of a reference (privileged) group. Every rate is a proportion ``count / N`` of the
group's confusion counts, so each comparison is the 2x2 table ``[[count, N - count],
[count_reference, N_reference - count_reference]]`` (the group's row first), and:

- ``test="exact"``: Fisher's exact test, two-sided, as :func:`scipy.stats.fisher_exact` (the
  statistic is its sample odds ratio);
- ``test="chi2"``: Pearson's chi-square test of the table with Yates' continuity correction, as
  :func:`scipy.stats.chi2_contingency` (``correction=True``, its default);
- ``test="z"``: the two-proportion z-test with the pooled variance, as statsmodels'
  ``proportions_ztest`` (the same p-value as the chi-square test *without* Yates' correction);
- ``test="auto"`` (default): Fisher's exact test where an expected cell count of the table is
  below 5 (Cochran's rule), the z-test elsewhere; the ``test`` column names the one used.

The interval of the difference is Newcombe's hybrid score interval (from the two Wilson score
intervals), as statsmodels' ``confint_proportions_2indep(method="newcomb")``. The p-values of
all the table's rows (groups x metrics, x classes with ``classes=``) are adjusted together by
``correction=`` as statsmodels' ``multipletests``. ``N_needed`` is the smallest size of the
group's denominator at which a two-sided z-test at ``alpha`` detects the observed gap with
probability ``power``, the reference growing in proportion (Cohen's effect size ``h = 2
asin(sqrt(rate)) - 2 asin(sqrt(rate_reference))``, statsmodels' ``NormalIndPower``): a group
whose ``N`` is below it is too small to judge a gap of that size.

How it is computed
------------------
One additive state, the confusion counts of every group (one bincount over group x truth x
prediction, :func:`~pdmetrics.fairness.group_rates.group_counts_state`; with ``classes=`` group
x true class x predicted class, :func:`~pdmetrics.fairness.group_rates.group_classes_state`,
turned into one-vs-rest counts per class at finalize); the tests run on the few rows of the
result, vectorised: SciPy's distributions take arrays, and the two-sided Fisher p-value is
SciPy's own algorithm (the tail beyond the mode found by binary search on the hypergeometric
pmf) run on all tables at once, so the same floating-point operations give the same numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._comparison import check_correction, multiple_tests
from pdmetrics._division import divide
from pdmetrics._table_spec import table
from pdmetrics._tables import attach_info
from pdmetrics._validation import plain, preview
from pdmetrics._warnings import warn_undefined
from pdmetrics.errors import InvalidInputError
from pdmetrics.fairness._inputs import column_table, label_columns
from pdmetrics.fairness.confusion import CELLS, FN, FP, TN, TP
from pdmetrics.fairness.group_rates import (
    RATES,
    class_count_rows,
    class_state_counts,
    group_classes_state,
    group_counts_from_state,
    group_counts_state,
)
from pdmetrics.fairness.multiclass import CLASS, check_class_options, class_counts, outcome_columns

__all__ = [
    "GAP_COLUMNS",
    "GAP_TESTS",
    "PROPORTIONS",
    "fisher_exact_tests",
    "gap_tests",
    "gap_tests_from_counts",
    "minimum_group_size",
]

#: ``test=``: the tests of two proportions offered.
GAP_TESTS = ("auto", "exact", "chi2", "z")
#: The name of each test in the table's ``test`` column.
_TEST_NAMES = {"exact": "fisher_exact", "chi2": "chi2_yates", "z": "z_pooled"}
#: Smallest expected cell count at which ``test="auto"`` uses the z-test (Cochran's rule).
AUTO_MIN_EXPECTED = 5

#: Each rate as a proportion: the confusion cells of its numerator and of its denominator.
PROPORTIONS = {
    "selection_rate": ((FP, TP), (TN, FP, FN, TP)),
    "tpr": ((TP,), (FN, TP)),
    "fpr": ((FP,), (TN, FP)),
    "tnr": ((TN,), (TN, FP)),
    "fnr": ((FN,), (FN, TP)),
    "accuracy": ((TN, TP), (TN, FP, FN, TP)),
    "precision": ((TP,), (FP, TP)),
    "recall": ((TP,), (FN, TP)),
}

#: The result columns after the group (and other identifier) columns.
GAP_COLUMNS = [
    "metric",
    "N",
    "count",
    "rate",
    "N_reference",
    "count_reference",
    "rate_reference",
    "difference",
    "ratio",
    "ci_low",
    "ci_high",
    "test",
    "statistic",
    "p_value",
    "p_adjusted",
    "reject",
    "N_needed",
]


# --------------------------------------------------------------------------------------
# the tests, vectorised over 2x2 tables [[a, b], [c, d]]
# --------------------------------------------------------------------------------------
def _hypergeom(name: str, x, total, rows, columns) -> np.ndarray:
    from scipy.stats import hypergeom

    return np.asarray(getattr(hypergeom, name)(x, total, rows, columns), dtype="float64")


def _binary_search(sign, target, lo, hi, pmf) -> np.ndarray:
    """SciPy's binary search (``_binary_search_for_binom_tst``) of ``sign * pmf``, on arrays:
    each entry takes the very steps the scalar search takes, so it ends on the same index."""
    lo, hi = lo.copy(), hi.copy()
    result = np.zeros(lo.shape, dtype=np.int64)
    found = np.zeros(lo.shape, dtype=bool)
    active = lo < hi
    while active.any():
        mid = lo + (hi - lo) // 2
        value = np.where(active, sign * pmf(np.where(active, mid, lo)), 0.0)
        below, above = active & (value < target), active & (value > target)
        equal = active & ~below & ~above
        lo = np.where(below, mid + 1, lo)
        hi = np.where(above, mid - 1, hi)
        result = np.where(equal, mid, result)
        found |= equal
        active &= ~equal & (lo < hi)
    last = sign * pmf(lo)
    return np.where(found, result, np.where(last <= target, lo, lo - 1))


def fisher_exact_tests(a, b, c, d) -> tuple[np.ndarray, np.ndarray]:
    """Fisher's exact test (two-sided) of the 2x2 tables ``[[a, b], [c, d]]``, all at once.

    Returns the sample odds ratios and the p-values that :func:`scipy.stats.fisher_exact`
    gives table by table (a table with an empty row or column has odds ratio NaN and p-value
    1): the same algorithm, run on arrays.

    Examples
    --------
    >>> from pdmetrics.fairness.gap_significance import fisher_exact_tests
    >>> odds, p = fisher_exact_tests([8, 1], [2, 5], [1, 8], [5, 2])
    >>> odds.round(3).tolist(), p.round(6).tolist()
    ([20.0, 0.05], [0.034965, 0.034965])
    """
    a, b, c, d = (np.asarray(v, dtype=np.int64) for v in (a, b, c, d))
    n1, n2, n = a + b, c + d, a + c
    total = n1 + n2
    empty = (n1 == 0) | (n2 == 0) | (n == 0) | (b + d == 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        odds = np.where((c > 0) & (b > 0), a * d / np.where((c > 0) & (b > 0), c * b, 1), np.inf)
    odds = np.where(empty, np.nan, odds)
    p = np.ones(a.shape)
    live = ~empty
    if live.any():
        p[live] = _fisher_two_sided(a[live], n1[live], n[live], total[live])
    return odds, p


def _fisher_two_sided(a, n1, n, total) -> np.ndarray:
    """The two-sided p-value of :func:`scipy.stats.fisher_exact` on tables without an empty
    margin (``a``: top-left count; ``n1`` first row, ``n`` first column, ``total`` all)."""

    def pmf(x):
        return _hypergeom("pmf", x, total, n1, n)

    mode = np.floor((n + 1) * (n1 + 1) / (total + 2)).astype(np.int64)
    exact, at_mode = pmf(a), pmf(mode)
    epsilon = 1e-14
    gamma = 1 + epsilon
    at_top = np.abs(exact - at_mode) / np.maximum(exact, at_mode) <= epsilon
    lower = a < mode
    sign = np.where(lower, -1.0, 1.0)
    tail = np.where(lower, _hypergeom("cdf", a, total, n1, n), _hypergeom("sf", a - 1, total, n1, n))
    far_end = pmf(np.where(lower, n, 0))
    one_tail = far_end > exact * gamma
    search = ~at_top & ~one_tail
    p = np.where(at_top, 1.0, tail)
    if search.any():
        s = sign[search]
        guess = _binary_search(
            s,
            s * exact[search] * gamma,
            np.where(lower[search], mode[search], 0),
            np.where(lower[search], n[search], mode[search]),
            partial(_hypergeom, "pmf", total=total[search], rows=n1[search], columns=n[search]),
        )
        other = np.where(
            lower[search],
            _hypergeom("sf", guess, total[search], n1[search], n[search]),
            _hypergeom("cdf", guess, total[search], n1[search], n[search]),
        )
        p[search] = tail[search] + other
    return np.minimum(p, 1.0)


def _expected(a, b, c, d) -> np.ndarray:
    """Expected cell counts ``(..., 4)`` under independence, as SciPy's ``expected_freq``."""
    rows = (a + b, c + d)
    columns = (a + c, b + d)
    total = a + b + c + d
    return np.stack([rows[i] * columns[j] / total for i in (0, 1) for j in (0, 1)], axis=-1)


def _chi2_yates(a, b, c, d) -> tuple[np.ndarray, np.ndarray]:
    """Pearson's chi-square with Yates' correction, as ``chi2_contingency(correction=True)``
    (tables with an expected count of 0 are NaN: SciPy refuses them)."""
    from scipy.special import chdtrc

    observed = np.stack([a, b, c, d], axis=-1)
    expected = _expected(a, b, c, d)
    with np.errstate(divide="ignore", invalid="ignore"):
        diff = expected - observed
        observed = observed + np.minimum(0.5, np.abs(diff)) * np.sign(diff)
        stat = ((observed - expected) ** 2 / expected).sum(axis=-1)
    stat = np.where((expected == 0).any(axis=-1), np.nan, stat)
    return stat, chdtrc(1, stat)


def _z_pooled(a, n1, c, n2) -> tuple[np.ndarray, np.ndarray]:
    """The pooled two-proportion z-test of ``a / n1`` against ``c / n2``, as statsmodels'
    ``proportions_ztest`` (NaN when the pooled variance is 0)."""
    from scipy.stats import norm

    with np.errstate(divide="ignore", invalid="ignore"):
        diff = a * 1.0 / n1 - c * 1.0 / n2 - 0
        pooled = (a + c) * 1.0 / (n1 + n2)
        std = np.sqrt(pooled * (1 - pooled) * (1.0 / n1 + 1.0 / n2))
        z = diff / std
    return z, norm.sf(np.abs(z)) * 2


def _newcombe(a, n1, c, n2, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's hybrid score interval of ``a / n1 - c / n2`` (statsmodels' method)."""
    from statsmodels.stats.proportion import confint_proportions_2indep

    low, high = confint_proportions_2indep(
        a, n1, c, n2, method="newcomb", compare="diff", alpha=1 - confidence
    )
    return np.asarray(low, dtype="float64"), np.asarray(high, dtype="float64")


def minimum_group_size(rate, rate_reference, ratio, alpha: float = 0.05, power: float = 0.8) -> np.ndarray:
    """Smallest group size at which a two-sided z-test at ``alpha`` detects the gap between
    ``rate`` and ``rate_reference`` with probability ``power``, the reference group being
    ``ratio`` times as large: the ``nobs1`` of statsmodels'
    ``NormalIndPower().solve_power(proportion_effectsize(rate, rate_reference), alpha=alpha,
    power=power, ratio=ratio)``, solved to machine precision (statsmodels' root finder stops
    within about 1e-5). NaN where there is no gap (or a rate is undefined).

    Examples
    --------
    >>> from pdmetrics.fairness.gap_significance import minimum_group_size
    >>> minimum_group_size([0.5, 0.3], [0.6, 0.3], [1.0, 2.0]).round(2).tolist()
    [387.17, nan]
    """
    from scipy.stats import norm

    p1, p2 = np.asarray(rate, dtype="float64"), np.asarray(rate_reference, dtype="float64")
    ratio = np.asarray(ratio, dtype="float64")
    h = np.abs(2 * (np.arcsin(np.sqrt(p1)) - np.arcsin(np.sqrt(p2))))
    crit = norm.isf(alpha / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = (crit + norm.isf(1 - power)) / h  # sqrt of the effective size, one tail
        for _ in range(50):  # Newton on both tails: power(s) = sf(c - h s) + cdf(-c - h s)
            f = norm.sf(crit - h * s) + norm.cdf(-crit - h * s) - power
            slope = h * (norm.pdf(crit - h * s) - norm.pdf(-crit - h * s))
            step = f / slope
            s = s - step
            if not np.any(np.abs(step) > 1e-15 * np.abs(s)):
                break
        n1 = s**2 * (1 + ratio) / ratio
    return np.where((h > 0) & np.isfinite(n1), n1, np.nan)


# --------------------------------------------------------------------------------------
# the table
# --------------------------------------------------------------------------------------
def _checked_options(by, metrics, test, correction, confidence, alpha, power) -> dict:
    if by is None:
        raise InvalidInputError(
            "`by=None`: name the group column(s), e.g. `by='sex'` or `by=['sex', 'race']`."
        )
    names = [metrics] if isinstance(metrics, str) else list(metrics) if metrics is not None else []
    unknown = [name for name in names if not isinstance(name, str) or name not in PROPORTIONS]
    if not names or unknown:
        raise InvalidInputError(
            f"`metrics={plain(metrics)!r}`: choose one or more of {', '.join(map(repr, RATES))}, "
            f"e.g. `metrics=['selection_rate', 'tpr']`."
        )
    if not isinstance(test, str) or test not in GAP_TESTS:
        raise InvalidInputError(
            f"`test={plain(test)!r}` is not a test of two proportions; pass one of "
            f"{', '.join(map(repr, GAP_TESTS))}."
        )
    check_correction(correction)
    for argument, value in (("confidence", confidence), ("alpha", alpha), ("power", power)):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or not 0 < value < 1:
            raise InvalidInputError(
                f"`{argument}={plain(value)!r}` must be a number between 0 and 1, e.g. 0.95."
            )
    if power <= alpha:
        raise InvalidInputError(
            f"`power={plain(power)!r}` must be above `alpha={plain(alpha)!r}` (a test detects a real gap "
            f"more often than it flags none); e.g. `power=0.8`."
        )
    return {
        "metrics": list(dict.fromkeys(names)),
        "test": test,
        "correction": correction,
        "confidence": float(confidence),
        "alpha": float(alpha),
        "power": float(power),
    }


@table
@outcome_columns(classes=True)
def gap_tests(
    frame,
    *,
    outcome,
    privileged=None,
    metrics=("selection_rate", "tpr", "fpr", "precision"),
    test: str = "auto",
    correction="holm",
    confidence: float = 0.95,
    alpha: float = 0.05,
    power: float = 0.8,
) -> pd.DataFrame:
    """Is each group's gap to the reference group real? A test, an interval and a power check.

    For every group other than the reference (privileged) group and every rate of ``metrics``:
    both rates, their difference (group minus reference) and ratio, a confidence interval of
    the difference, a test of "no difference" with its p-value, the p-value adjusted across
    all the table's rows, and the group size needed to detect such a gap.

    Parameters
    ----------
    {labelled_rows}
        Binary labels, or any labels with ``classes=``.
    by : str or list of str
        Group column(s); several columns give their intersections (the combinations present
        in the data), as :func:`by_group`. Rows with a missing group value are left out.
    pos_label : scalar, default 1
        The positive outcome. Leave it at its default with ``classes=``.
    {classes_options}
    privileged : scalar, tuple or dict, optional
        The reference group: a value of ``by`` (a tuple of values in ``by`` order, or
        ``{column: value}``, when ``by`` names several columns). Default: the largest group,
        ties broken by the sorted order.
    metrics : str or list of str, default ("selection_rate", "tpr", "fpr", "precision")
        Rates compared, any of ``selection_rate, tpr, fpr, tnr, fnr, accuracy, precision,
        recall`` (each a proportion of the group's rows, actual positives, actual negatives
        or predicted positives).
    test : {"auto", "exact", "chi2", "z"}, default "auto"
        ``"exact"``: Fisher's exact test (:func:`scipy.stats.fisher_exact`, two-sided);
        ``"chi2"``: chi-square with Yates' correction (:func:`scipy.stats.chi2_contingency`);
        ``"z"``: the pooled two-proportion z-test (statsmodels' ``proportions_ztest``, equal
        to the chi-square test without correction); ``"auto"``: the exact test where an
        expected count of the 2x2 table is below 5, the z-test elsewhere.
    correction : {"holm", "fdr_bh", "bonferroni"} or None, default "holm"
        Adjustment of the p-values for the number of rows of the table (groups x metrics, x
        classes and splits with ``classes=``), as statsmodels' ``multipletests``; None leaves
        them as they are.
    confidence : float, default 0.95
        Coverage of Newcombe's score interval of the difference (statsmodels'
        ``confint_proportions_2indep(method="newcomb")``).
    alpha : float, default 0.05
        Level of the ``reject`` column (``multipletests``' decision) and of ``N_needed``.
    power : float, default 0.8
        Power of ``N_needed``.

    Returns
    -------
    pandas.DataFrame
        The group columns (and any other identifier column), then ``metric, N, count, rate,
        N_reference, count_reference, rate_reference, difference, ratio, ci_low, ci_high,
        test, statistic, p_value, p_adjusted, reject, N_needed``: one row per group other
        than the reference and metric, by metric in the order given, groups in sorted order.
        ``N`` and ``count`` are the rate's denominator and numerator in the group (e.g.
        actual positives and true positives for ``tpr``); ``difference = rate -
        rate_reference``; ``ratio = rate / rate_reference`` (for ``selection_rate`` the
        disparate impact; inf when only the reference rate is 0, NaN when both are);
        ``test`` is ``"fisher_exact"``, ``"chi2_yates"`` or ``"z_pooled"`` and ``statistic``
        its odds ratio, chi-square or z; ``N_needed`` the smallest ``N`` at which a
        two-sided z-test at ``alpha`` would detect this gap with the given ``power`` (the
        reference growing in proportion, statsmodels' ``NormalIndPower`` with Cohen's h),
        NA when the rates are equal. ``attrs["pdmetrics"]["reference"]`` holds the
        reference group.

        With ``classes=``: a ``class`` column after the group columns, and the rows of each
        class (one vs rest: the class positive, every other value negative), then of each split
        ``">= k"`` (``ordinal=True``), one block after the other, each block compared with the
        reference group's rates of the same class; ``attrs["pdmetrics"]["classes"]`` lists the
        classes.

        A rate without a denominator in the group or the reference is NaN, and so are its
        test columns (left out of the correction), with one
        :class:`~pdmetrics.UndefinedMetricWarning`. When both rates are 0 (or both 1), every
        test gives p-value 1 and no statistic (SciPy's chi-square refuses the table and
        statsmodels' z-test divides by a zero variance).

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> df = pd.DataFrame({"y": [1, 0] * 30, "pred": [1] * 24 + [0] * 6 + [1, 0] * 15,
    ...                    "sex": ["M"] * 30 + ["F"] * 30})
    >>> out = df.fairness.gap_tests(y_true="y", y_pred="pred", by="sex", privileged="M")
    >>> out[["sex", "metric", "rate", "rate_reference", "test", "p_value", "p_adjusted"]].round(3)
      sex          metric  rate  rate_reference          test  p_value  p_adjusted
    0   F  selection_rate   0.5             0.8      z_pooled    0.015       0.030
    1   F             tpr   1.0             0.8  fisher_exact    0.224       0.224
    2   F             fpr   0.0             0.8      z_pooled    0.000       0.000
    3   F       precision   1.0             0.5  fisher_exact    0.001       0.003
    >>> out[["metric", "difference", "ci_low", "ci_high", "N", "N_needed"]].round(3).head(2)
               metric  difference  ci_low  ci_high   N  N_needed
    0  selection_rate        -0.3  -0.498   -0.058  30        38
    1             tpr         0.2  -0.042    0.452  15        19

    Three classes, one vs rest, the p-values adjusted over every class and rate:

    >>> df = pd.DataFrame({"y": ["A", "B", "C"] * 40,
    ...                    "pred": ["A", "B", "C"] * 30 + ["A", "A", "C"] * 10,
    ...                    "sex": ["M"] * 60 + ["F"] * 60})
    >>> out = df.fairness.gap_tests(y_true="y", y_pred="pred", by="sex", privileged="M",
    ...                             classes="all", metrics=["selection_rate", "tpr"])
    >>> out[["sex", "class", "metric", "rate", "rate_reference", "p_adjusted"]].round(3)
      sex class          metric   rate  rate_reference  p_adjusted
    0   F     A  selection_rate  0.500           0.333       0.256
    1   F     A             tpr  1.000           1.000       1.000
    2   F     B  selection_rate  0.167           0.333       0.175
    3   F     B             tpr  0.500           1.000       0.002
    4   F     C  selection_rate  0.333           0.333       1.000
    5   F     C             tpr  1.000           1.000       1.000
    """
    y_true, y_pred, by, pos_label, classes, ordinal = outcome
    columns = label_columns(frame, y_true, y_pred, by)
    options = _checked_options(columns["by"], metrics, test, correction, confidence, alpha, power)
    chosen = check_class_options(classes, ordinal, pos_label)
    if chosen is not None:
        result_columns = [CLASS, *CELLS, *GAP_COLUMNS]
        finalize = partial(
            _classes_from_state, classes=chosen, ordinal=ordinal, privileged=privileged, **options
        )
        return column_table(group_classes_state, columns, {"result_columns": result_columns}, finalize)
    # the counts are columns of the frame the table is built from: a group column may not take their names
    state_options = {"pos_label": pos_label, "result_columns": [*CELLS, *GAP_COLUMNS]}
    finalize = partial(_from_state, pos_label=pos_label, privileged=privileged, **options)
    return column_table(group_counts_state, columns, state_options, finalize)


def _from_state(state, pos_label, privileged, **options) -> pd.DataFrame:
    counts, keys, info = group_counts_from_state(state, pos_label)
    frame = keys.copy()
    for i, cell in enumerate(CELLS):
        frame[cell] = counts[:, i]
    result = gap_tests_from_counts(frame, list(keys.columns), privileged=privileged, **options)
    result.attrs["pdmetrics"] = {**info, **result.attrs["pdmetrics"], "pos_label": pos_label}
    return result


def _classes_from_state(state, classes, ordinal: bool, privileged, **options) -> pd.DataFrame:
    keys, found, info = class_state_counts(state, classes, ordinal, "gap_tests")
    counts = class_count_rows(keys, class_counts(state.counts.counts, len(state.keys), found), found)
    result = gap_tests_from_counts(counts, list(keys.columns), privileged=privileged, **options)
    result.attrs["pdmetrics"] = {**info, **result.attrs["pdmetrics"]}
    return result


def _reference_mask(frame: pd.DataFrame, by: list, privileged, sizes: np.ndarray) -> np.ndarray:
    """The rows of the reference group: ``privileged`` (checked), else the largest group."""
    if privileged is None:
        # the group's rows over every block (class) of the counts; the first largest in order
        group = frame[by].groupby(by, sort=False, dropna=False).ngroup().to_numpy()
        totals = np.bincount(group, weights=sizes)
        return group == int(np.argmax(totals)) if totals.size else np.zeros(len(frame), dtype=bool)
    elif isinstance(privileged, Mapping):
        if sorted(map(str, privileged)) != sorted(map(str, by)) or any(name not in privileged for name in by):
            raise InvalidInputError(
                f"`privileged={plain(privileged)!r}` must give one value for each `by=` column {by!r}, "
                f"e.g. `privileged={{{', '.join(f'{name!r}: ...' for name in by)}}}`."
            )
        wanted = dict(privileged)
    elif len(by) > 1:
        if not isinstance(privileged, tuple) or len(privileged) != len(by):
            raise InvalidInputError(
                f"`privileged={plain(privileged)!r}`: with several `by=` columns {by!r} pass one value "
                f"per column, as a tuple in that order or a dict, e.g. "
                f"`privileged={{{', '.join(f'{name!r}: ...' for name in by)}}}`."
            )
        wanted = dict(zip(by, privileged))
    else:
        wanted = {by[0]: privileged}
    mask = np.ones(len(frame), dtype=bool)
    for name, value in wanted.items():
        try:
            mask &= np.asarray((frame[name] == value).to_numpy(dtype=bool, na_value=False), dtype=bool)
        except (TypeError, ValueError, NotImplementedError):  # e.g. a tuple for one `by=` column
            mask[:] = False
    if not mask.any():
        shown = privileged if len(by) == 1 or isinstance(privileged, Mapping) else tuple(privileged)
        groups = frame[by].drop_duplicates()
        labels = [
            tuple(plain(v) for v in row) if len(by) > 1 else plain(row[0])
            for row in groups.itertuples(index=False)
        ]
        if not labels:
            raise InvalidInputError(
                f"`privileged={plain(shown)!r}`: `by={plain(by if len(by) > 1 else by[0])!r}` has no group "
                f"(no usable rows left); check the group column (a failed join or read leaves it empty)."
            )
        raise InvalidInputError(
            f"`privileged={plain(shown)!r}` is not a group of `by={plain(by if len(by) > 1 else by[0])!r}` "
            f"(its groups: {preview(labels, 10)}); pass one of them, e.g. `privileged={labels[-1]!r}`, "
            f"or leave `privileged=None` to compare with the largest group."
        )
    return mask


def gap_tests_from_counts(
    counts: pd.DataFrame,
    by: list,
    *,
    privileged=None,
    metrics=("selection_rate", "tpr", "fpr", "precision"),
    test="auto",
    correction="holm",
    confidence=0.95,
    alpha=0.05,
    power=0.8,
) -> pd.DataFrame:
    """The :func:`gap_tests` table from a frame of confusion counts (options already checked).

    ``counts`` has the group columns ``by``, the cells ``TN, FP, FN, TP`` and any other
    identifier columns (e.g. a ``class`` column of one-vs-rest counts): every combination of
    those gives its own block of comparisons, each against the reference group's row of the
    same block; the correction runs over all the rows.
    """
    skip = {*by, *CELLS, "N", *RATES}
    strata = [name for name in counts.columns if name not in skip]
    cells = counts[list(CELLS)].to_numpy(dtype=np.int64)
    is_reference = _reference_mask(counts, by, privileged, cells.sum(axis=1))
    stratum = (
        counts[strata].groupby(strata, sort=False, dropna=False).ngroup().to_numpy()
        if strata
        else np.zeros(len(counts), dtype=np.intp)
    )
    n_strata = int(stratum.max()) + 1 if len(stratum) else 0
    reference_cells = np.zeros((n_strata, 4), dtype=np.int64)
    np.add.at(reference_cells, stratum[is_reference], cells[is_reference])
    compared = np.flatnonzero(~is_reference)
    rows = counts.iloc[compared][[*by, *strata]].reset_index(drop=True)
    mine, theirs = cells[compared], reference_cells[stratum[compared]]

    parts = []
    for metric in metrics:
        numerator, denominator = PROPORTIONS[metric]
        part = rows.copy()
        part["metric"] = metric
        part["N"] = mine[:, list(denominator)].sum(axis=1)
        part["count"] = mine[:, list(numerator)].sum(axis=1)
        part["N_reference"] = theirs[:, list(denominator)].sum(axis=1)
        part["count_reference"] = theirs[:, list(numerator)].sum(axis=1)
        parts.append(part)
    table = pd.concat(parts, ignore_index=True)
    # block (class) by block, then metric by metric, the groups in their order within each
    block = np.tile(stratum[compared], len(metrics))
    metric_number = np.repeat(np.arange(len(metrics)), compared.size)
    table = table.iloc[np.lexsort((metric_number, block))].reset_index(drop=True)
    _finish(table, test, correction, confidence, alpha, power)
    table = table[[*by, *strata, *GAP_COLUMNS]]
    table.index = pd.RangeIndex(len(table))
    reference = counts.loc[is_reference, by].iloc[0] if is_reference.any() else None
    return attach_info(
        table,
        reference={name: plain(reference[name]) for name in by} if reference is not None else None,
        test=test,
        correction=correction,
        confidence=confidence,
        alpha=alpha,
        power=power,
    )


def _finish(table: pd.DataFrame, test, correction, confidence, alpha, power) -> None:
    """Fill the rates, tests, intervals, adjusted p-values and sizes of the table's rows."""
    n1, a = table["N"].to_numpy(np.int64), table["count"].to_numpy(np.int64)
    n2, c = table["N_reference"].to_numpy(np.int64), table["count_reference"].to_numpy(np.int64)
    b, d = n1 - a, n2 - c
    rate, rate_ref = divide(a, n1, np.nan), divide(c, n2, np.nan)
    defined = (n1 > 0) & (n2 > 0)
    table["rate"], table["rate_reference"] = rate, rate_ref
    table["difference"] = rate - rate_ref
    ratio = divide(rate, rate_ref, np.nan)
    table["ratio"] = np.where((rate_ref == 0) & (rate > 0), np.inf, ratio)

    size = len(table)
    low, high = np.full(size, np.nan), np.full(size, np.nan)
    names = np.full(size, None, dtype=object)
    statistic, p = np.full(size, np.nan), np.full(size, np.nan)
    if defined.any():
        i = np.flatnonzero(defined)
        low[i], high[i] = _newcombe(a[i], n1[i], c[i], n2[i], confidence)
        if test == "auto":
            small = _expected(a[i], b[i], c[i], d[i]).min(axis=-1) < AUTO_MIN_EXPECTED
            chosen = np.where(small, "exact", "z")
        else:
            chosen = np.full(i.size, test)
        for kind in ("exact", "chi2", "z"):
            j = i[chosen == kind]
            if not j.size:
                continue
            if kind == "exact":
                statistic[j], p[j] = fisher_exact_tests(a[j], b[j], c[j], d[j])
            elif kind == "chi2":
                statistic[j], p[j] = _chi2_yates(a[j], b[j], c[j], d[j])
            else:
                statistic[j], p[j] = _z_pooled(a[j], n1[j], c[j], n2[j])
            names[j] = _TEST_NAMES[kind]
        constant = defined & (((a == 0) & (c == 0)) | ((b == 0) & (d == 0)))
        statistic[constant], p[constant] = np.nan, 1.0
    table["test"] = pd.array(names, dtype=object)
    table["statistic"], table["p_value"] = statistic, p
    table["ci_low"], table["ci_high"] = low, high
    adjusted, reject = multiple_tests(p, correction, alpha)
    table["p_adjusted"], table["reject"] = adjusted, reject
    with np.errstate(divide="ignore", invalid="ignore"):
        needed = minimum_group_size(rate, rate_ref, divide(n2, n1, np.nan), alpha, power)
    table["N_needed"] = pd.array(
        np.where(np.isnan(needed), 0, np.ceil(needed)).astype(np.int64), dtype="Int64"
    )
    table.loc[np.isnan(needed), "N_needed"] = pd.NA
    if not defined.all():
        undefined = table.loc[~defined, "metric"].value_counts(sort=False)
        warn_undefined(
            "Gaps without a rate are NaN (a group or the reference has no row in the rate's "
            "denominator): "
            + "; ".join(f"{name} ({count} comparison(s))" for name, count in undefined.items())
            + ". They are left out of the correction; see `df.fairness.by_group` for the counts."
        )
