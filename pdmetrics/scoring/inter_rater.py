"""Can the raters be trusted? Inter-rater agreement from a wide table of ratings.

One column per rater, one row per rated item, a missing value = not rated. The state and the
statistics (percent agreement, Cohen's kappa per pair, Fleiss' kappa, Krippendorff's alpha,
Gwet's AC1/AC2, the ICCs; each as its reference library computes it) are those of
:mod:`pdmetrics._rater_agreement`, shared with :func:`pdmetrics.textgen.judge_agreement`.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from pdmetrics._groups import check_identifier_names
from pdmetrics._rater_agreement import (
    AGREEMENT_COLUMNS,
    LEVELS,
    RatingPatterns,
    agreement_rows,
    check_ratings,
    rater_values,
    rating_codes,
    rating_patterns,
)
from pdmetrics._resampling import bootstrap_key, check_bootstrap_options, row_buckets
from pdmetrics._table_spec import Table, row_numbers, table
from pdmetrics._validation import as_list, plain, require_columns
from pdmetrics._warnings import warn_undefined
from pdmetrics.errors import InvalidInputError
from pdmetrics.scoring.subgroups import MISSING_GROUP, subgroup_codes

__all__ = ["AGREEMENT_COLUMNS", "LEVELS", "agreement"]


def _chunk(raters: list, by: list, level: str, resampled: bool, key: int, part) -> RatingPatterns:
    categories, codes = rating_codes([rater_values(part[r], r, level) for r in raters])
    groups, labels = [], []
    for name in by:
        g, found = subgroup_codes(part[name])
        groups.append(g.astype(np.int64))
        labels.append(found)
    buckets = row_buckets(row_numbers(part), key) if resampled else np.zeros(len(part), dtype=np.intp)
    return rating_patterns(categories, codes, groups, labels, buckets)


def _finalize(raters: list, by: list, level: str, n_resamples: int, confidence: float, key: int, state):
    result = agreement_rows(raters, by, level, n_resamples, confidence, key, state, MISSING_GROUP)
    undefined = result.loc[result["value"].isna(), "statistic"].unique().tolist()
    if undefined:
        warn_undefined(
            f"agreement: {', '.join(undefined)} undefined (NaN) for some rows: too few items rated by "
            f"enough raters, a single category, or no variance."
        )
    return result


@table
def agreement(
    frame,
    *,
    raters,
    level: str = "nominal",
    by=None,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    random_state=12345,
):
    """Inter-rater agreement: kappas, Krippendorff's alpha, Gwet's AC1/AC2 and ICCs, with intervals.

    Parameters
    ----------
    frame : DataFrame
        One row per rated item, one column per rater (pandas; dask and polars frames run the
        same table). A missing value means the rater did not rate the item.
    raters : list of str
        The rater columns (at least two). Numbers at every level; text, booleans or categories
        too at ``level="nominal"``.
    level : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        The ratings' level of measurement: Krippendorff's alpha uses its metric; from
        ``"ordinal"`` on, the table adds the linear and quadratic weighted Cohen's kappa and
        Gwet's AC2; at ``"interval"`` and ``"ratio"`` the intraclass correlations.
    by : str or list of str, optional
        Subgroup column(s): every statistic per group of each, after an ``"(all)"`` row.
    n_resamples : int, default 1000
        Bootstrap resamples of the items for the intervals (0: no interval but the ICCs').
    confidence : float, default 0.95
        The intervals' coverage.
    random_state : int, numpy.random.Generator or None, default 12345
        The bootstrap's seed; an item's weights depend only on it and the item's row number, so
        every engine gives the same intervals.

    Returns
    -------
    pandas.DataFrame
        Columns ``statistic, raters, value, ci_low, ci_high, N_items, N_raters`` (after ``by,
        group`` with ``by=``): one row per statistic over all raters (``raters="(all)"``) and,
        for Cohen's kappa, one per pair of raters (``raters="r1 vs r2"``). ``N_items``: the items
        the statistic uses (see the Notes); ``N_raters``: the raters with a rating on them. A
        statistic that is undefined for the data (one category, no item rated twice, no
        variance) is NaN, with an :class:`~pdmetrics.UndefinedMetricWarning`.

    Notes
    -----
    The categories are the values rated (their union over raters; numbers as given).

    - ``percent_agreement``: the share of agreeing rater pairs per item, averaged over the items
      rated at least twice (irrCAC's ``pa``; a proportion, 0 to 1).
    - ``cohen_kappa`` (``_linear``, ``_quadratic``): each pair on the items both rated, as
      scikit-learn's ``cohen_kappa_score``: the weights are the distances of the categories'
      *ranks* among the labels the two raters used (RSMTool's ``wtkappa`` uses the score values:
      the same number when the pair used every integer score of the scale).
    - ``fleiss_kappa``: statsmodels' ``fleiss_kappa`` on the items every rater rated (Fleiss'
      formula needs the same number of ratings per item).
    - ``krippendorff_alpha``: the ``krippendorff`` package's, every item rated at least twice
      (an item rated once is not pairable).
    - ``gwet_ac1`` / ``gwet_ac2_*``: irrCAC's ``gwet()``: its chance agreement counts every item
      rated at least once; the AC2 weights use the category values (``1 - |x_k - x_l| / range``,
      squared for quadratic).
    - ``ICC1`` ... ``ICC3k``: pingouin's ICC(1,1), ICC(A,1), ICC(C,1) and k-rater forms on the
      items every rater rated, with pingouin's F-based intervals.

    The other intervals are percentile intervals of a Poisson bootstrap over items; within a
    resample the category ranks, Gwet's weights and the ordinal metric stay those of the data.

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> df = pd.DataFrame({"r1": [1, 2, 3, 3, 2, 1, 4],
    ...                    "r2": [1, 2, 3, 4, 2, 2, 4],
    ...                    "r3": [1, 2, None, 3, 2, 1, 4]})
    >>> table = df.scoring.agreement(raters=["r1", "r2", "r3"], level="ordinal", n_resamples=0)
    >>> table[["statistic", "raters", "value", "N_items"]].round(3).head(7)
                statistic    raters  value  N_items
    0   percent_agreement     (all)  0.810        7
    1        fleiss_kappa     (all)  0.687        6
    2  krippendorff_alpha     (all)  0.920        7
    3            gwet_ac1     (all)  0.747        7
    4     gwet_ac2_linear     (all)  0.851        7
    5  gwet_ac2_quadratic     (all)  0.927        7
    6         cohen_kappa  r1 vs r2  0.622        7
    """
    names = require_columns(frame, "raters", as_list(raters, "raters"))
    if len(set(names)) < 2:
        raise InvalidInputError(
            f"`raters={[plain(r) for r in names]!r}` names {len(set(names))} distinct column(s); "
            f"agreement needs at least two raters (one column each)."
        )
    if len(set(names)) != len(names):
        raise InvalidInputError(
            f"`raters={[plain(r) for r in names]!r}` names a column twice; name each rater once."
        )
    check_ratings(frame, [("raters", name) for name in names], level)
    groups = [] if by is None else require_columns(frame, "by", as_list(by, "by"))
    overlap = [g for g in groups if g in names]
    if overlap:
        raise InvalidInputError(
            f"`by={plain(overlap[0])!r}` is also a rater column; group by another column."
        )
    check_identifier_names(groups, ["by", "group", *AGREEMENT_COLUMNS], "by")
    check_bootstrap_options(n_resamples, confidence, random_state)
    key = bootstrap_key(random_state)
    return Table(
        [*names, *groups],
        partial(_chunk, names, groups, level, n_resamples > 0, key),
        partial(_finalize, names, groups, level, n_resamples, confidence, key),
        numbered=n_resamples > 0,
    )
