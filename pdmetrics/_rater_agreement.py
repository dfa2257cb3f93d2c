"""Inter-rater agreement from rating patterns: the additive state and the statistics shared by
:func:`pdmetrics.scoring.agreement` (a wide table of ratings) and
:func:`pdmetrics.textgen.judge_agreement` (a long table of verdicts, pivoted per datum).

One rater per column of codes, one row per rated item, a missing value = not rated. Every statistic is
computed from one additive state: the counts of the distinct *rating patterns* (the categories
each rater gave an item) per group and bootstrap bucket. Per-item features of the patterns
(agreeing rater pairs, category counts, disagreement by the level's metric) are summed per group
in one ``bincount`` pass, and each statistic is a closed form of those sums:

- percent agreement and Gwet's AC1/AC2 as irrCAC 0.4.4 (``irrCAC.raw.CAC``) computes them;
- Cohen's kappa of every pair of raters as scikit-learn's ``cohen_kappa_score`` on the items both
  rated (unweighted, linear and quadratic weights);
- Fleiss' kappa as statsmodels' ``fleiss_kappa(method="fleiss")`` on the items every rater rated;
- Krippendorff's alpha as the ``krippendorff`` package (0.9.0) at the four levels;
- the intraclass correlations ICC1, ICC2, ICC3, ICC1k, ICC2k, ICC3k as pingouin's
  ``intraclass_corr`` on the items every rater rated, with its F-based intervals.

The other intervals are a Poisson bootstrap over items whose weights come from ``random_state``
and each item's row number only (:mod:`pdmetrics._resampling`), so pandas, dask and polars give
the same intervals.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import partial
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats as scipy_stats

from pdmetrics._groups import POOLED_LABEL
from pdmetrics._resampling import N_BUCKETS, percentile_interval, poisson_weights, resampled_sums
from pdmetrics._validation import plain
from pdmetrics.errors import InvalidInputError

__all__ = [
    "AGREEMENT_COLUMNS",
    "ICC_NAMES",
    "LEVELS",
    "RatingPatterns",
    "agreement_rows",
    "check_ratings",
    "rater_values",
    "rating_codes",
    "rating_patterns",
]

#: The levels of measurement (Krippendorff's), each with the metric its alpha uses.
LEVELS = ("nominal", "ordinal", "interval", "ratio")

#: The columns of the agreement table (after ``by, group`` with ``by=``).
AGREEMENT_COLUMNS = ["statistic", "raters", "value", "ci_low", "ci_high", "N_items", "N_raters"]

#: The intraclass correlations (pingouin's ICC(1,1), ICC(A,1), ICC(C,1) and their k-rater forms).
ICC_NAMES = ("ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k")

#: Most category cells (groups or bootstrap cells x categories) a table holds at once.
_MAX_CELLS = 2**27
#: Most categories of the statistics that need a category x category matrix per group.
_MAX_SQUARE = 2048


# ----------------------------------------------------------------------------------------------
# the state: counts of rating patterns per group and bucket
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RatingPatterns:
    """The additive state of :func:`agreement`.

    ``categories``: the values rated, sorted (float64, or object for text); ``labels``: per
    ``by`` column, its groups; ``rows``: one row per distinct pattern, int64 columns: the group
    code of each ``by`` column, the bootstrap bucket, then each rater's category code (-1: not
    rated); ``counts``: the items with that pattern.
    """

    categories: np.ndarray
    labels: tuple
    rows: np.ndarray
    counts: np.ndarray
    #: each pattern once already (what :meth:`reduced` returns)
    distinct: bool = field(default=False, compare=False)

    def combine(self, other: RatingPatterns) -> RatingPatterns:
        categories, at_mine, at_theirs = _union(self.categories, other.categories)
        mine, theirs = self.rows.copy(), other.rows.copy()
        labels = []
        for i, (a, b) in enumerate(zip(self.labels, other.labels)):  # the by columns (a few)
            union, at_a, at_b = _union(a, b, sort=False)
            labels.append(union)
            mine[:, i], theirs[:, i] = at_a[self.rows[:, i]], at_b[other.rows[:, i]]
        start = len(self.labels) + 1
        for rows, at in ((mine, at_mine), (theirs, at_theirs)):  # the rater codes, on the union
            codes = rows[:, start:]
            rows[:, start:] = np.where(codes >= 0, at[np.maximum(codes, 0)] if at.size else -1, -1)
        rows = np.concatenate([mine, theirs])
        return RatingPatterns(
            categories, tuple(labels), rows, np.concatenate([self.counts, other.counts])
        ).reduced()

    def reduced(self) -> RatingPatterns:
        """The same state with each distinct pattern once (its counts added), in the patterns'
        sorted order (the same state whatever the partitions)."""
        if self.distinct or self.rows.shape[0] < 2:
            return self
        shifted = self.rows + 1  # codes -1.. -> 0..
        radix = shifted.max(axis=0) + 1
        if float(np.prod(radix.astype("float64"))) < 2.0**62:
            packed = np.zeros(shifted.shape[0], dtype=np.int64)
            for j in range(shifted.shape[1]):  # one pass per column (raters, groups), not per row
                packed = packed * radix[j] + shifted[:, j]
            _, first, inverse = np.unique(packed, return_index=True, return_inverse=True)
        else:
            _, first, inverse = np.unique(shifted, axis=0, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
        counts = np.bincount(inverse, self.counts, first.size).astype(np.int64)
        return RatingPatterns(self.categories, self.labels, self.rows[first], counts, distinct=True)


def _union(a: np.ndarray, b: np.ndarray, sort: bool = True) -> tuple:
    """The union of two label arrays (sorted, or ``a`` then what ``b`` adds) and where each
    of ``a`` and ``b`` lands in it."""
    text = a.dtype == object or b.dtype == object
    if not text:
        union = np.union1d(a, b)
        return union, np.searchsorted(union, a), np.searchsorted(union, b)
    mine, theirs = pd.Index(a, dtype=object), pd.Index(b, dtype=object)
    union = mine.append(theirs[~theirs.isin(mine)])
    if sort:
        union = pd.Index(_sorted_text(union.to_numpy(dtype=object)), dtype=object)
    return union.to_numpy(dtype=object), union.get_indexer(mine), union.get_indexer(theirs)


def _sorted_text(values: np.ndarray) -> np.ndarray:
    try:
        return np.array(sorted(values), dtype=object)
    except TypeError:
        kinds = sorted({type(v).__name__ for v in values})
        raise InvalidInputError(
            f"`raters` mix kinds of ratings ({', '.join(kinds)}): the categories cannot be ordered. "
            f"Give every rater column one type, e.g. `df[raters].astype(str)`."
        ) from None


def rater_values(series: pd.Series, name, level: str, argument: str = "raters"):
    """A rater column as float64 (NaN: not rated) or, for text on the nominal level, the column
    itself (:func:`rating_codes` factorizes it without a copy of Python objects; ``argument``: the
    argument that named the column, for the messages)."""
    dtype = series.dtype
    numeric = pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
    if numeric and not pd.api.types.is_complex_dtype(dtype):
        values = series.to_numpy(dtype="float64", na_value=np.nan)
        if np.isinf(values).any():
            raise InvalidInputError(
                f"`{argument}` column {plain(name)!r} holds an infinite rating; ratings must be finite "
                f"numbers (a missing value means not rated)."
            )
        return values
    if level == "nominal" and (
        isinstance(dtype, pd.CategoricalDtype)
        or pd.api.types.is_string_dtype(dtype)
        or pd.api.types.is_bool_dtype(dtype)
        or pd.api.types.is_object_dtype(dtype)
    ):
        return series
    kind = "numbers" if level != "nominal" else "numbers, text or categories"
    raise InvalidInputError(
        f"`{argument}` column {plain(name)!r} has dtype {dtype}; at level={level!r} ratings must be "
        f"{kind}. Convert it, e.g. `pd.to_numeric(df[{plain(name)!r}])`"
        + ("" if level == "nominal" else ", or pass level='nominal' for categories")
        + "."
    )


def check_ratings(frame, columns: list, level: str) -> None:
    """Refuse an unknown ``level``, and rating columns whose type the level cannot take, before
    any row is read (on the frame's schema: an empty frame on dask). ``columns``: ``(argument,
    column)`` pairs, the argument naming the column for the messages."""
    if level not in LEVELS:
        raise InvalidInputError(
            f"`level={plain(level)!r}` is not a level of measurement; use one of {list(LEVELS)}."
        )
    for argument, name in columns:
        if isinstance(name, str) and re.search(r"[\ud800-\udfff]", name):
            raise InvalidInputError(
                f"`{argument}=` names the column {name!r}, which holds a lone surrogate (text decoded "
                f"from bytes that are not UTF-8?): the table names its raters and cannot hold it. "
                f"Rename the column first."
            )
        rater_values(frame[name].iloc[:0], name, level, argument)


def rating_codes(columns: list) -> tuple[np.ndarray, np.ndarray]:
    """The sorted categories of the rater columns (as :func:`rater_values` gives them) and each
    rating's code (-1: not rated). Text is factorized column by column (pandas' hash tables, on
    Arrow strings without Python objects), then the few labels found are sorted."""
    n = len(columns[0]) if columns else 0
    if any(not isinstance(c, np.ndarray) or c.dtype == object for c in columns):
        found = [pd.factorize(c.astype(object) if isinstance(c, np.ndarray) else c) for c in columns]
        labels = [np.asarray(uniques, dtype=object) for _, uniques in found]
        categories = _sorted_text(pd.unique(np.concatenate(labels)) if labels else labels)
        index = pd.Index(categories, dtype=object)
        codes = np.full((n, len(columns)), -1, dtype=np.int64)
        for j, ((at, _), own) in enumerate(zip(found, labels)):  # rater columns (a few)
            where = np.append(index.get_indexer(pd.Index(own, dtype=object)), -1)
            codes[:, j] = where[at]  # -1 (not rated) reads the appended -1
        return categories, codes
    stacked = np.column_stack(columns) if columns else np.empty((0, 0))
    present = ~np.isnan(stacked)
    categories = np.sort(pd.unique(stacked[present]))
    codes = np.where(present, np.searchsorted(categories, np.where(present, stacked, 0.0)), -1)
    return categories.astype("float64"), codes.astype(np.int64)


def rating_patterns(categories, codes, groups: list, labels: list, buckets) -> RatingPatterns:
    """The state of the items' rating ``codes`` (items x raters, -1: not rated; from
    :func:`rating_codes`), their ``groups`` (a code array per ``by`` column, with its
    ``labels``) and bootstrap ``buckets``; the items nobody rated are left out."""
    rated = (codes >= 0).any(axis=1)
    rows = np.column_stack([*groups, np.asarray(buckets, dtype=np.int64), codes]).astype(np.int64)
    state = RatingPatterns(categories, tuple(labels), rows[rated], np.ones(int(rated.sum()), dtype=np.int64))
    return state.reduced()


# ----------------------------------------------------------------------------------------------
# the statistics from summed per-item features
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Design:
    """What the statistics of one table need besides the sums: the categories' values, the
    level, the raters' pairs, and which statistics are computed."""

    values: np.ndarray  # the categories as numbers (text categories: their positions)
    level: str
    n_raters: int
    pairs: list
    weighted: bool  # linear and quadratic Cohen's kappa and Gwet's AC2

    @property
    def n_categories(self) -> int:
        return self.values.size


def _distance(design: Design, a: np.ndarray, b: np.ndarray, n_v: np.ndarray | None = None) -> np.ndarray:
    """Krippendorff's squared distance of category codes ``a`` and ``b`` (arrays broadcast);
    ``n_v``: the pairable values of each category (the ordinal metric's)."""
    if design.level == "nominal":
        return (a != b).astype("float64")
    if design.level == "ordinal":
        low, high = np.minimum(a, b), np.maximum(a, b)
        cumulative = np.concatenate([[0.0], np.cumsum(n_v)])
        between = cumulative[high + 1] - cumulative[low]
        return (between - (n_v[low] + n_v[high]) / 2) ** 2
    x, y = design.values[a], design.values[b]
    if design.level == "interval":
        return (x - y) ** 2
    total = x + y
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total != 0, ((x - y) / np.where(total != 0, total, 1.0)) ** 2, 0.0)


class Layout:
    """The per-item features summed per cell, by name: a slice of the feature axis each."""

    def __init__(self, n_categories: int, pairs: list, weighted: bool):
        k = n_categories
        sizes = {"n1": 1, "n2": 1, "pa": 1, "gwet_pi": k, "fleiss_n": 1, "fleiss_sq": 1, "fleiss_counts": k}
        sizes.update({"kripp_do": 1, "kripp_nv": k})
        if weighted:
            sizes.update({"pa_linear": 1, "pa_quadratic": 1})
        for p in range(len(pairs)):
            sizes.update({f"n_{p}": 1, f"rows_{p}": k, f"cols_{p}": k, f"dis_{p}": 1})
            if weighted:
                sizes.update({f"lin_{p}": 1, f"quad_{p}": 1})
        self.slices, start = {}, 0
        for name, size in sizes.items():
            self.slices[name] = slice(start, start + size)
            start += size
        self.size = start

    def scalar(self, sums, name):
        return sums[..., self.slices[name].start]

    def vector(self, sums, name):
        return sums[..., self.slices[name]]


@dataclass(frozen=True)
class GroupParameters:
    """Per group, what the full sample fixes (and every resample keeps): the categories seen
    (Gwet's q and weights), Cohen's category ranks per pair, the pairable values per category
    (Krippendorff's ordinal metric)."""

    seen: np.ndarray  # (groups, K) bool
    ranks: np.ndarray  # (groups, pairs, K) float: rank of each category among the pair's labels
    n_v: np.ndarray  # (groups, K)


#: The features that divide an item's sum by its number of raters ``m``: summed per ``m`` in
#: the bootstrap (whole numbers, which the resampled sums add exactly in float32).
_PER_M = ("pa", "kripp_do", "pa_linear", "pa_quadratic", "gwet_pi")


def _features(
    design: Design, layout: Layout, codes, counts, cell, n_cells, group, params, whole: bool = False
):
    """The features of every cell (``n_cells`` x ``layout.size``): the per-item features of the
    patterns (``codes``: patterns x raters) summed with their ``counts`` into their ``cell``.

    ``whole``: also return, for the features of :data:`_PER_M`, their numerators summed per cell
    and number of raters ``m`` (name -> ``n_cells`` x ``r + 1`` (x K)): the agreeing pairs, the
    disagreement, the gaps of the values (not divided by the range) and their squares, the
    ratings per category; :func:`_collapsed` turns their (resampled) sums into the features."""
    k, r = design.n_categories, design.n_raters
    out = np.zeros((n_cells, layout.size))
    w = counts.astype("float64")
    rated = codes >= 0
    m = rated.sum(axis=1).astype("float64")
    two = m >= 2
    with np.errstate(invalid="ignore", divide="ignore"):
        per_pair = np.where(two, 1.0 / (m * (m - 1)), 0.0)
        inverse_m = np.where(m >= 1, 1.0 / m, 0.0)
        inverse_pairable = np.where(two, 1.0 / (m - 1), 0.0)
    complete = m == r
    safe = np.maximum(codes, 0)
    values = design.values
    if design.weighted:
        spread = _gwet_range(design, params)[group]
    same = np.zeros(m.size)
    linear = np.zeros(m.size)
    quadratic = np.zeros(m.size)
    distance = np.zeros(m.size)
    gaps = np.zeros(m.size) if whole and design.weighted else None
    gaps2 = np.zeros(m.size) if whole and design.weighted else None
    for a, b in combinations(range(r), 2):  # rater pairs (a few), each a vector pass over patterns
        both = rated[:, a] & rated[:, b]
        ca, cb = safe[:, a], safe[:, b]
        same += np.where(both, ca == cb, 0.0)
        if design.weighted:
            raw = np.abs(values[ca] - values[cb])
            gap = raw / spread
            linear += np.where(both, 1.0 - gap, 0.0)
            quadratic += np.where(both, 1.0 - gap**2, 0.0)
            if gaps is not None:
                gaps += np.where(both, raw, 0.0)
                gaps2 += np.where(both, raw * raw, 0.0)
        if design.level == "ordinal":
            d = _ordinal_rows(ca, cb, params.n_v, group)
        else:
            d = _distance(design, ca, cb)
        distance += np.where(both, d, 0.0)
    scalar = {
        "n1": (m >= 1).astype("float64"),
        "n2": two.astype("float64"),
        "pa": 2 * same * per_pair,
        "fleiss_n": complete.astype("float64"),
        "fleiss_sq": np.where(complete, m + 2 * same, 0.0),
        "kripp_do": 2 * distance * inverse_pairable,
    }
    if design.weighted:
        scalar.update({"pa_linear": 2 * linear * per_pair, "pa_quadratic": 2 * quadratic * per_pair})
    for name, feature in scalar.items():
        out[:, layout.slices[name].start] = np.bincount(cell, feature * w, n_cells)
    vector = {
        "gwet_pi": inverse_m,
        "fleiss_counts": complete.astype("float64"),
        "kripp_nv": two.astype("float64"),
    }
    flat = {name: np.zeros(n_cells * k) for name in vector}
    for j in range(r):
        at = cell * k + safe[:, j]
        for name, feature in vector.items():
            flat[name] += np.bincount(at, np.where(rated[:, j], feature * w, 0.0), n_cells * k)
    for name in vector:
        out[:, layout.slices[name]] = flat[name].reshape(n_cells, k)
    for p, (a, b) in enumerate(design.pairs):
        both = (rated[:, a] & rated[:, b]).astype("float64") * w
        ca, cb = safe[:, a], safe[:, b]
        out[:, layout.slices[f"n_{p}"].start] = np.bincount(cell, both, n_cells)
        out[:, layout.slices[f"rows_{p}"]] = np.bincount(cell * k + ca, both, n_cells * k).reshape(n_cells, k)
        out[:, layout.slices[f"cols_{p}"]] = np.bincount(cell * k + cb, both, n_cells * k).reshape(n_cells, k)
        out[:, layout.slices[f"dis_{p}"].start] = np.bincount(cell, both * (ca != cb), n_cells)
        if design.weighted:
            gap = np.abs(params.ranks[group, p, ca] - params.ranks[group, p, cb])
            out[:, layout.slices[f"lin_{p}"].start] = np.bincount(cell, both * gap, n_cells)
            out[:, layout.slices[f"quad_{p}"].start] = np.bincount(cell, both * gap**2, n_cells)
    if not whole:
        return out
    by_m = cell * (r + 1) + m.astype(np.int64)  # the cell and the item's number of raters
    numerators = {"pa": same, "kripp_do": distance}
    if design.weighted:
        numerators.update({"pa_linear": gaps, "pa_quadratic": gaps2})
    parts = {
        name: np.bincount(by_m, value * w, n_cells * (r + 1)).reshape(n_cells, r + 1)
        for name, value in numerators.items()
    }
    per_category = np.zeros(n_cells * (r + 1) * k)
    for j in range(r):
        per_category += np.bincount(by_m * k + safe[:, j], np.where(rated[:, j], w, 0.0), per_category.size)
    parts["gwet_pi"] = per_category.reshape(n_cells, r + 1, k)
    return out, parts


def _per_m(r: int) -> dict:
    """What divides an item's numerator for each feature of :data:`_PER_M`, by number of raters
    ``m = 0..r`` (0 where the item does not count)."""
    m = np.arange(r + 1, dtype="float64")
    with np.errstate(invalid="ignore", divide="ignore"):
        pairs = np.where(m >= 2, 2 * (1.0 / (m * (m - 1))), 0.0)
        return {
            "pa": pairs,
            "kripp_do": np.where(m >= 2, 2 * (1.0 / (m - 1)), 0.0),
            "pa_linear": pairs,
            "pa_quadratic": pairs,
            "gwet_pi": np.where(m >= 1, 1.0 / m, 0.0),
        }


def _value_range(values: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """Per group (row of ``seen``), the range of the values of the categories seen (-inf: none)."""
    with np.errstate(invalid="ignore"):
        return np.where(seen, values, -np.inf).max(axis=1) - np.where(seen, values, np.inf).min(axis=1)


def _gwet_range(design: Design, params: GroupParameters) -> np.ndarray:
    """Per group, the range of the categories seen (1 where they do not spread): what divides
    the gaps of irrCAC's linear weights."""
    spread = _value_range(design.values, params.seen)
    return np.where(spread > 0, spread, 1.0)


def _collapsed(design: Design, layout: Layout, sums: np.ndarray, parts: dict, params) -> np.ndarray:
    """The features (``... x groups x layout.size``) from ``sums`` (the same, with the features
    of :data:`_PER_M` unset) and ``parts`` (their numerators per ``m``, ``... x groups x (r + 1)
    (x K)``, as :func:`_features` gives them with ``whole``)."""
    out = sums.copy()
    coefficient = _per_m(design.n_raters)
    for name, part in parts.items():
        if name == "gwet_pi":
            out[..., layout.slices[name]] = np.einsum("...mk,m->...k", part, coefficient[name])
            continue
        value = part @ coefficient[name]
        if name in ("pa_linear", "pa_quadratic"):  # sum over items of 1 - gap / range
            spread = _gwet_range(design, params) ** (1 if name == "pa_linear" else 2)
            value = layout.scalar(sums, "n2") - value / spread
        out[..., layout.slices[name].start] = value
    return out


def _ordinal_rows(a: np.ndarray, b: np.ndarray, n_v: np.ndarray, group: np.ndarray) -> np.ndarray:
    """The ordinal metric of codes ``a`` and ``b`` of items in ``group`` (each group's marginals)."""
    cumulative = np.concatenate([np.zeros((n_v.shape[0], 1)), np.cumsum(n_v, axis=1)], axis=1)
    low, high = np.minimum(a, b), np.maximum(a, b)
    between = cumulative[group, high + 1] - cumulative[group, low]
    return (between - (n_v[group, low] + n_v[group, high]) / 2) ** 2


def _statistics(design: Design, layout: Layout, sums: np.ndarray, params: GroupParameters) -> dict:
    """Name -> value of every statistic (``(all)`` ones: shape L x groups; pairwise ones: L x
    groups x pairs) from ``sums`` (L x groups x features)."""
    s, v = partial(layout.scalar, sums), partial(layout.vector, sums)
    out = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        n2 = s("n2")
        out["percent_agreement"] = s("pa") / n2
        # Fleiss' kappa on the complete items (statsmodels' fleiss_kappa)
        r = design.n_raters
        n_complete = s("fleiss_n")
        p = v("fleiss_counts") / (n_complete * r)[..., None]
        p_bar = (s("fleiss_sq") - n_complete * r) / (r * (r - 1)) / n_complete
        p_e = (p * p).sum(axis=-1)
        out["fleiss_kappa"] = np.where(n_complete > 0, (p_bar - p_e) / (1 - p_e), np.nan)
        # Krippendorff's alpha: 1 - (N - 1) D_o / (n_v' d n_v)
        n_v = v("kripp_nv")
        total = n_v.sum(axis=-1)
        expected = _expected_disagreement(design, n_v, params)
        out["krippendorff_alpha"] = np.where(
            (total > 0) & (params.seen.sum(axis=1) > 1), 1 - (total - 1) * s("kripp_do") / expected, np.nan
        )
        # Gwet's AC1 / AC2 (irrCAC): pe = sum(W) sum_k pi_k (1 - pi_k) / (q (q - 1))
        q = params.seen.sum(axis=1).astype("float64")
        pi = v("gwet_pi") / s("n1")[..., None]
        spread_pi = (pi * (1 - pi)).sum(axis=-1)
        weight_sums = {"gwet_ac1": (q, "pa")}
        if design.weighted:
            linear, quadratic = _gwet_weight_sums(design.values, params.seen)
            weight_sums.update(
                {"gwet_ac2_linear": (linear, "pa_linear"), "gwet_ac2_quadratic": (quadratic, "pa_quadratic")}
            )
        for name, (weight_sum, agreement) in weight_sums.items():
            pe = weight_sum * spread_pi / (q * (q - 1))
            out[name] = np.where(q >= 2, (s(agreement) / n2 - pe) / (1 - pe), np.nan)
        # Cohen's kappa per pair (scikit-learn): 1 - sum(w C) / sum(w E), E = outer(rows, cols) / n
        kappas = {"cohen_kappa": [], "cohen_kappa_linear": [], "cohen_kappa_quadratic": []}
        for i in range(len(design.pairs)):
            n = s(f"n_{i}")
            rows, cols = v(f"rows_{i}"), v(f"cols_{i}")
            expected_same = (rows * cols).sum(axis=-1)
            kappas["cohen_kappa"].append(1 - s(f"dis_{i}") / ((n * n - expected_same) / n))
            if design.weighted:
                rank = params.ranks[:, i, :]
                kappas["cohen_kappa_linear"].append(
                    1 - s(f"lin_{i}") / (_linear_expected(rows, cols, rank) / n)
                )
                kappas["cohen_kappa_quadratic"].append(
                    1 - s(f"quad_{i}") / (_quadratic_expected(rows, cols, rank) / n)
                )
        for name, values in kappas.items():
            if values:
                out[name] = np.stack(values, axis=-1)
    return out


def _expected_disagreement(design: Design, n_v: np.ndarray, params: GroupParameters) -> np.ndarray:
    """``n_v' d n_v`` (the expected disagreement times ``N - 1``) over the last axis; closed
    forms for the nominal and interval metrics, the category x category sum for the others."""
    total = n_v.sum(axis=-1)
    if design.level == "nominal":
        return total * total - (n_v * n_v).sum(axis=-1)
    if design.level == "interval":  # sum n_k n_l (x_k - x_l)**2 = 2 N sum n_k (x_k - mean)**2
        mean = (n_v * design.values).sum(axis=-1) / total
        return 2 * total * (n_v * (design.values - mean[..., None]) ** 2).sum(axis=-1)
    k = n_v.shape[-1]
    codes = np.arange(k)
    if design.level == "ordinal":
        groups = params.n_v.shape[0]
        d = np.stack(
            [_distance(design, codes[:, None], codes[None, :], params.n_v[g]) for g in range(groups)]
        )
    else:
        d = np.broadcast_to(_distance(design, codes[:, None], codes[None, :]), (n_v.shape[-2], k, k))
    return np.einsum("...gk,gkl,...gl->...g", n_v, d, n_v)


def _gwet_weight_sums(values: np.ndarray, seen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per group, the sums of irrCAC's linear and quadratic weight matrices over its ``q``
    categories (weights ``1 - |x_k - x_l| / (max - min)`` and ``1 - (x_k - x_l)**2 / (max -
    min)**2``): ``q**2`` less the sums of the gaps, in closed form over the sorted values, every
    group at once (``seen``: groups x categories)."""
    x = np.where(seen, values, 0.0)
    q = seen.sum(axis=1).astype("float64")
    rank = np.cumsum(seen, axis=1) - 1  # each seen category's place among its group's
    with np.errstate(invalid="ignore", divide="ignore"):
        absolute = 2 * (x * (2 * rank - q[:, None] + 1)).sum(axis=1)  # sum_kl |x_k - x_l|
        mean = x.sum(axis=1) / q
        squared = 2 * q * (np.where(seen, values - mean[:, None], 0.0) ** 2).sum(axis=1)  # (x_k - x_l)**2
        spread = _value_range(values, seen)
        flat = (q < 2) | ~(spread > 0)
        linear = np.where(flat, q * q, q * q - absolute / spread)
        quadratic = np.where(flat, q * q, q * q - squared / spread**2)
    return linear, quadratic


def _linear_expected(rows, cols, rank) -> np.ndarray:
    """``sum_ij |rank_i - rank_j| rows_i cols_j`` over the last axis (``rank``: groups x K, not
    decreasing along K), from cumulative sums of ``cols``."""
    below_count = np.cumsum(cols, axis=-1) - cols
    above_count = cols.sum(axis=-1, keepdims=True) - below_count - cols
    weighted = cols * rank
    below_sum = np.cumsum(weighted, axis=-1) - weighted
    above_sum = weighted.sum(axis=-1, keepdims=True) - below_sum - weighted
    per_row = rank * (below_count - above_count) - below_sum + above_sum
    return (rows * per_row).sum(axis=-1)


def _quadratic_expected(rows, cols, rank) -> np.ndarray:
    """``sum_ij (rank_i - rank_j)**2 rows_i cols_j`` over the last axis."""
    moments = [(side * rank**power).sum(axis=-1) for side in (rows, cols) for power in (0, 1, 2)]
    r0, r1, r2, c0, c1, c2 = moments
    return r2 * c0 + r0 * c2 - 2 * r1 * c1


# ----------------------------------------------------------------------------------------------
# intraclass correlations (pingouin's two-way ANOVA on the complete items)
# ----------------------------------------------------------------------------------------------
def _intraclass(values, codes, counts, group, n_groups: int, confidence: float) -> dict:
    """ICC name -> (value, low, high, N_items) per group, from the complete items' patterns."""
    complete = (codes >= 0).all(axis=1)
    x = values[np.maximum(codes[complete], 0)]
    w = counts[complete].astype("float64")
    g = group[complete]
    k = codes.shape[1]
    n = np.bincount(g, w, n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.bincount(g, w * x.sum(axis=1), n_groups) / (n * k)
        centred = x - np.where(np.isfinite(mean), mean, 0.0)[g][:, None]
        row = centred.sum(axis=1)
        total = np.bincount(g, w * row, n_groups)
        columns = np.stack([np.bincount(g, w * centred[:, j], n_groups) for j in range(k)], axis=1)
        correction = total * total / (n * k)
        ss_rows = np.bincount(g, w * row * row, n_groups) / k - correction
        ss_raters = (columns * columns).sum(axis=1) / n - correction
        ss_total = np.bincount(g, w * (centred * centred).sum(axis=1), n_groups) - correction
        ss_error = ss_total - ss_rows - ss_raters
        # what cancels to rounding noise is no variance (perfect agreement)
        tiny = 1e-13 * np.abs(ss_total)
        ss_raters = np.where(ss_raters <= tiny, 0.0, ss_raters)
        ss_error = np.where(ss_error <= tiny, 0.0, ss_error)
        msb = ss_rows / (n - 1)
        msj = ss_raters / (k - 1)
        mse = ss_error / ((n - 1) * (k - 1))
        msw = (ss_raters + ss_error) / (n * (k - 1))
        icc = {
            "ICC1": (msb - msw) / (msb + (k - 1) * msw),
            "ICC2": (msb - mse) / (msb + (k - 1) * mse + k * (msj - mse) / n),
            "ICC3": (msb - mse) / (msb + (k - 1) * mse),
            "ICC1k": (msb - msw) / msb,
            "ICC2k": (msb - mse) / (msb + (msj - mse) / n),
            "ICC3k": (msb - mse) / msb,
        }
        alpha = 1 - confidence
        f1, df1, df1kd, df2kd = msb / msw, n - 1, n * (k - 1), (n - 1) * (k - 1)
        f3 = msb / mse
        f1l = f1 / scipy_stats.f.ppf(1 - alpha / 2, df1, df1kd)
        f1u = f1 * scipy_stats.f.ppf(1 - alpha / 2, df1kd, df1)
        f3l = f3 / scipy_stats.f.ppf(1 - alpha / 2, df1, df2kd)
        f3u = f3 * scipy_stats.f.ppf(1 - alpha / 2, df2kd, df1)
        icc2 = icc["ICC2"]
        fj = msj / mse
        vn = df2kd * (k * icc2 * fj + n * (1 + (k - 1) * icc2) - k * icc2) ** 2
        vd = df1 * k**2 * icc2**2 * fj**2 + (n * (1 + (k - 1) * icc2) - k * icc2) ** 2
        v = vn / vd
        f2u = scipy_stats.f.ppf(1 - alpha / 2, n - 1, v)
        f2l = scipy_stats.f.ppf(1 - alpha / 2, v, n - 1)
        l2 = n * (msb - f2u * mse) / (f2u * (k * msj + (k * n - k - n) * mse) + n * msb)
        u2 = n * (f2l * msb - mse) / (k * msj + (k * n - k - n) * mse + n * f2l * msb)
        intervals = {
            "ICC1": ((f1l - 1) / (f1l + (k - 1)), (f1u - 1) / (f1u + (k - 1))),
            "ICC2": (l2, u2),
            "ICC3": ((f3l - 1) / (f3l + (k - 1)), (f3u - 1) / (f3u + (k - 1))),
            "ICC1k": (1 - 1 / f1l, 1 - 1 / f1u),
            "ICC2k": (l2 * k / (1 + l2 * (k - 1)), u2 * k / (1 + u2 * (k - 1))),
            "ICC3k": (1 - 1 / f3l, 1 - 1 / f3u),
        }
    # no error variance (perfect agreement): the F ratio is infinite, every limit is 1
    perfect = {name: ((msw if name in ("ICC1", "ICC1k") else mse) == 0) & (msb > 0) for name in ICC_NAMES}
    defined = n >= 2
    return {
        name: tuple(
            np.where(defined, np.where(perfect[name], 1.0, part), np.nan)
            for part in (icc[name], *intervals[name])
        )
        + (n,)
        for name in ICC_NAMES
    }


# ----------------------------------------------------------------------------------------------
# the table
# ----------------------------------------------------------------------------------------------
#: The statistics of the ``(all)`` rows, in the table's order.
_ALL_RATERS = (
    "percent_agreement",
    "fleiss_kappa",
    "krippendorff_alpha",
    "gwet_ac1",
    "gwet_ac2_linear",
    "gwet_ac2_quadratic",
)
_PAIRWISE = ("cohen_kappa", "cohen_kappa_linear", "cohen_kappa_quadratic")
#: The items each statistic uses (the sums' feature that counts them).
_ITEMS = {
    "percent_agreement": "n2",
    "fleiss_kappa": "fleiss_n",
    "krippendorff_alpha": "n2",
    "gwet_ac1": "n1",
    "gwet_ac2_linear": "n1",
    "gwet_ac2_quadratic": "n1",
}


def _parameters(design: Design, codes, counts, group, n_groups: int) -> GroupParameters:
    """The full-sample quantities each group's statistics fix (also in every resample)."""
    k = design.n_categories
    rated = codes >= 0
    safe = np.maximum(codes, 0)
    w = counts.astype("float64")
    seen = np.zeros(n_groups * k)
    n_v = np.zeros(n_groups * k)
    pairable = rated.sum(axis=1) >= 2
    for j in range(design.n_raters):
        at = group * k + safe[:, j]
        seen += np.bincount(at, np.where(rated[:, j], w, 0.0), n_groups * k)
        n_v += np.bincount(at, np.where(rated[:, j] & pairable, w, 0.0), n_groups * k)
    ranks = np.zeros((n_groups, len(design.pairs), k))
    for p, (a, b) in enumerate(design.pairs):
        both = rated[:, a] & rated[:, b]
        used = np.zeros(n_groups * k, dtype=bool)
        used[(group * k + safe[:, a])[both]] = True
        used[(group * k + safe[:, b])[both]] = True
        ranks[:, p, :] = np.cumsum(used.reshape(n_groups, k), axis=1) - 1
    return GroupParameters(seen.reshape(n_groups, k) > 0, ranks, n_v.reshape(n_groups, k))


def _group_order(labels: np.ndarray, missing_label) -> np.ndarray:
    """The groups' order: sorted, ``missing_label`` (the group of a missing value) last (the
    same on every engine)."""
    known = np.array([label != missing_label for label in labels], dtype=bool)
    try:
        order = np.array(sorted(np.flatnonzero(known), key=lambda i: labels[i]), dtype=np.intp)
    except TypeError:
        order = np.flatnonzero(known)
    return np.concatenate([order, np.flatnonzero(~known)]).astype(np.intp)


def agreement_rows(
    raters: list,
    by: list,
    level: str,
    n_resamples: int,
    confidence: float,
    key: int,
    state,
    missing_label=None,
    weights=None,
):
    """The table of :func:`pdmetrics.scoring.agreement` from its state (a
    :class:`RatingPatterns` whose rater codes are the ``raters``, in order, and whose groups
    are the ``by`` columns', ``missing_label`` the group of a missing value, sorted last),
    without warning about the undefined statistics (the caller does, once). ``weights``: the
    buckets' Poisson weights when the caller drew them already (for several tables of one
    state), at least up to the state's highest bucket."""
    state = state.reduced()
    if state.counts.sum() == 0:
        raise InvalidInputError(
            f"`raters={[plain(r) for r in raters]!r}` hold no rating (the frame is empty or every "
            f"rating is missing); pass columns with ratings (a missing value means not rated)."
        )
    k = state.categories.size
    numeric = state.categories.dtype != object
    values = state.categories.astype("float64") if numeric else np.arange(k, dtype="float64")
    # every statistic is unchanged when the values are scaled; a power of two scales them exactly
    # and keeps the squares of huge (or tiny) ratings finite
    top = float(np.abs(values).max(initial=0.0))
    if top > 0 and not 2.0**-100 <= top <= 2.0**100:
        values = np.ldexp(values, -int(np.frexp(top)[1]))
    weighted = level != "nominal"
    pairs = list(combinations(range(len(raters)), 2))
    design = Design(values, level, len(raters), pairs, weighted)
    if level in ("ordinal", "ratio") and k > _MAX_SQUARE:
        raise InvalidInputError(
            f"The raters gave {k} distinct ratings; level={level!r} compares every pair of them "
            f"(at most {_MAX_SQUARE}). Round the ratings, or use level='interval'."
        )
    n_by = len(by)
    codes, bucket, counts = state.rows[:, n_by + 1 :], state.rows[:, n_by], state.counts
    passes = [(None, np.zeros(counts.size, dtype=np.int64), np.array([POOLED_LABEL], dtype=object))]
    for i, name in enumerate(by):
        labels = state.labels[i]
        order = _group_order(labels, missing_label)
        position = np.empty(order.size, dtype=np.int64)
        position[order] = np.arange(order.size)
        passes.append((name, position[state.rows[:, i]], labels[order]))
    layout = Layout(k, pairs, weighted)
    tables = []
    # the buckets' Poisson weights, drawn once for every grouping
    if weights is None and n_resamples:
        weights = poisson_weights(key, int(bucket.max()) + 1, n_resamples)
    for name, group, labels in passes:
        distinct = not by and bool((bucket == bucket[0]).all())
        tables.append(
            _pass_table(design, layout, codes, counts, bucket, group, labels, weights, confidence, distinct)
        )
        if name is not None:
            pooled = tables[0].copy()
            tables[-1] = pd.concat([pooled, tables[-1]], ignore_index=True)
            tables[-1].insert(0, "by", name)
    result = tables[0].drop(columns="group") if not by else pd.concat(tables[1:], ignore_index=True)
    rater_names = [plain(r) for r in raters]
    result["raters"] = [
        POOLED_LABEL
        if isinstance(i, (int, np.integer)) and i < 0
        else f"{rater_names[pairs[i][0]]} vs {rater_names[pairs[i][1]]}"
        for i in result["raters"]
    ]
    return result.reset_index(drop=True)


def _pass_table(
    design, layout, codes, counts, bucket, group, labels, weights, confidence, distinct=False
) -> pd.DataFrame:
    """The rows of one grouping (the pooled one or one ``by`` column); ``weights``: the
    buckets' Poisson weights (None: no bootstrap); ``distinct``: the patterns differ in their
    group or codes already (one bucket, no other grouping)."""
    n_groups = labels.size
    # the point estimates need the patterns per group only, not per bucket: far fewer rows
    merged = RatingPatterns(np.empty(0), (), np.column_stack([group, codes]), counts, distinct=distinct)
    merged = merged.reduced()
    at, patterns, times = merged.rows[:, 0], merged.rows[:, 1:], merged.counts
    params = _parameters(design, patterns, times, at, n_groups)
    sums = _features(design, layout, patterns, times, at, n_groups, at, params)
    point = _statistics(design, layout, sums, params)
    low = {name: np.full(value.shape, np.nan) for name, value in point.items()}
    high = {name: np.full(value.shape, np.nan) for name, value in point.items()}
    if weights is not None:
        replicates = _replicates(design, layout, codes, counts, bucket, group, n_groups, params, weights)
        for name, samples in replicates.items():
            low[name], high[name] = percentile_interval(samples, confidence)
    frames = []
    used = _raters_used(patterns, times, at, n_groups)
    for name in _ALL_RATERS:
        if name in point:
            n_items = layout.scalar(sums, _ITEMS[name])
            n_raters = (
                used[_ITEMS[name]]
                if _ITEMS[name] != "fleiss_n"
                else np.where(n_items > 0, design.n_raters, 0)
            )
            frames.append(_rows(labels, name, -1, point[name], low[name], high[name], n_items, n_raters))
    if design.level in ("interval", "ratio"):
        icc = _intraclass(design.values, patterns, times, at, n_groups, confidence)
        for name in ICC_NAMES:
            value, lo, hi, n = icc[name]
            frames.append(_rows(labels, name, -1, value, lo, hi, n, np.where(n > 0, design.n_raters, 0)))
    for name in _PAIRWISE:
        if name in point:
            for p in range(len(design.pairs)):
                n = layout.scalar(sums, f"n_{p}")
                rated = np.where(n > 0, 2, 0)  # the pair's raters, where they share an item
                frames.append(
                    _rows(labels, name, p, point[name][:, p], low[name][:, p], high[name][:, p], n, rated)
                )
    table = pd.concat(frames, ignore_index=True)
    order = np.argsort(table["group_position"].to_numpy(), kind="stable")
    return table.iloc[order].drop(columns="group_position").reset_index(drop=True)


def _replicates(design, layout, codes, counts, bucket, group, n_groups: int, params, weights) -> dict:
    """Every statistic in every resample (first axis): the features of the (group, bucket) cells,
    whole numbers only (the features of :data:`_PER_M` by their numerators per ``m``), summed
    with the buckets' Poisson ``weights`` in one product per group, then collapsed."""
    cells, cell = np.unique(group * N_BUCKETS + bucket, return_inverse=True)
    cell = cell.reshape(-1)
    if cells.size * layout.size > _MAX_CELLS:
        raise InvalidInputError(
            f"The bootstrap over {cells.size} item buckets needs {layout.size} sums per bucket "
            f"({design.n_categories} distinct ratings, {len(design.pairs)} pairs of raters): too much "
            f"memory. Round the ratings, pass fewer raters, or pass n_resamples=0 (no intervals)."
        )
    features, parts = _features(design, layout, codes, counts, cell, cells.size, group, params, whole=True)
    fractional = np.zeros(layout.size, dtype=bool)
    for name in parts:
        fractional[layout.slices[name]] = True
    kept = int((~fractional).sum())
    matrix = np.empty((cells.size, kept + sum(part[0].size for part in parts.values())))
    matrix[:, :kept] = features[:, ~fractional]
    start = kept
    for part in parts.values():
        matrix[:, start : start + part[0].size] = part.reshape(cells.size, -1)
        start += part[0].size
    nonzero = matrix.any(axis=0)  # columns of zeros (an m no item has) stay zero
    if nonzero.all():
        nonzero = slice(None)
    cell_bucket = cells % N_BUCKETS
    bounds = np.searchsorted(cells, np.arange(n_groups + 1) * N_BUCKETS)
    resampled = np.zeros((weights.shape[1], n_groups, matrix.shape[1]))
    for g, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:])):
        rows = cell_bucket[lo:hi]
        resampled[:, g, nonzero] = resampled_sums(weights, matrix[lo:hi, nonzero], rows=rows)
    whole = np.zeros(resampled.shape[:2] + (layout.size,))
    whole[..., ~fractional] = resampled[..., :kept]
    split, start = {}, kept
    for name, part in parts.items():
        size = int(np.prod(part.shape[1:]))
        split[name] = resampled[..., start : start + size].reshape(resampled.shape[:2] + part.shape[1:])
        start += size
    return _statistics(design, layout, _collapsed(design, layout, whole, split, params), params)


def _raters_used(codes, counts, group, n_groups: int) -> dict:
    """Per group, the raters with a rating on an item rated at least once (``n1``) and at
    least twice (``n2``)."""
    rated = codes >= 0
    pairable = rated.sum(axis=1) >= 2
    out = {}
    for name, items in (("n1", np.ones(rated.shape[0], dtype=bool)), ("n2", pairable)):
        per_rater = [
            np.bincount(group, counts * (rated[:, j] & items), n_groups) for j in range(codes.shape[1])
        ]
        out[name] = (np.stack(per_rater, axis=1) > 0).sum(axis=1)
    return out


def _rows(labels, statistic, pair, value, low, high, n_items, n_raters) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "group": labels,
            "group_position": np.arange(labels.size),
            "statistic": statistic,
            "raters": pair,
            "value": np.asarray(value, dtype="float64"),
            "ci_low": np.asarray(low, dtype="float64"),
            "ci_high": np.asarray(high, dtype="float64"),
            "N_items": np.asarray(n_items).astype(np.int64),
            "N_raters": np.asarray(n_raters).astype(np.int64),
        }
    )
