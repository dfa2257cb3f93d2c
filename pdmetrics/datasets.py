"""Seeded simulators of evaluation data, for demos, documentation and tests.

:func:`simulate_scores` generates a double-scored essay-scoring data set with a subgroup
column (human and system scores), as ``pdmetrics demo`` uses it. :func:`simulate_essays`
generates essays with correlated features, a latent true score driven by those features,
and ratings by several human raters of a chosen single-rater reliability, optionally with
subgroups whose human scores the features do not fully explain. It follows the simulation
designs of Attali (2007).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from pdmetrics._validation import finite_number
from pdmetrics.errors import InvalidInputError

__all__ = ["simulate_essays", "simulate_scores"]


def simulate_scores(
    n: int = 2000, *, seed: int = 0, double_scored: float = 0.5, score_range: tuple[int, int] = (1, 6)
) -> pd.DataFrame:
    """Simulate a double-scored essay-scoring data set with a subgroup column.

    Each response has a latent proficiency; two human raters score it with independent
    error (rounded and clipped to the score range); an automated engine produces a
    continuous score that tracks proficiency less closely and runs slightly high for one
    subgroup (so subgroup analyses have something to find).

    Parameters
    ----------
    n : int, default 2000
        Number of responses.
    seed : int, default 0
        Seed of the random generator: the same seed gives the same frame.
    double_scored : float, default 0.5
        Share of responses that a second human also scored (``sc2`` is NaN elsewhere).
    score_range : (int, int), default (1, 6)
        Lowest and highest score point.

    Returns
    -------
    pandas.DataFrame
        Columns ``id`` (str), ``L1`` (first language: four groups of unequal size),
        ``sc1`` and ``sc2`` (human scores, float), ``raw`` (system score, float).

    Examples
    --------
    >>> from pdmetrics.datasets import simulate_scores
    >>> df = simulate_scores(1000, seed=1)
    >>> list(df.columns)
    ['id', 'L1', 'sc1', 'sc2', 'raw']
    >>> int(df["sc2"].notna().sum())
    500
    """
    rng = np.random.default_rng(seed)
    low, high = score_range
    groups = np.array(["Spanish", "Mandarin", "Arabic", "Hindi"])
    group = groups[rng.choice(4, size=n, p=[0.4, 0.3, 0.2, 0.1])]
    middle, spread = (low + high) / 2, (high - low) / 5
    proficiency = rng.normal(middle, spread, n) + np.where(group == "Mandarin", 0.15, 0.0)

    def rate(noise_sd: float) -> np.ndarray:
        return np.clip(np.rint(proficiency + rng.normal(0, noise_sd, n)), low, high)

    sc1 = rate(0.45)
    sc2 = rate(0.45)
    sc2[rng.permutation(n)[: n - int(round(double_scored * n))]] = np.nan
    raw = proficiency + rng.normal(0, 0.5, n) + np.where(group == "Arabic", 0.2, 0.0)
    return pd.DataFrame(
        {"id": [f"R{i:06d}" for i in range(1, n + 1)], "L1": group, "sc1": sc1, "sc2": sc2, "raw": raw}
    )


def _count(value, argument: str, minimum: int) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        number = None
    if number is None or number != value or number < minimum:
        raise InvalidInputError(f"`{argument}={value!r}` must be an integer of at least {minimum}.")
    return number


def _per_feature(value, p: int, argument: str) -> np.ndarray:
    try:
        array = np.asarray(value, dtype="float64")
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"`{argument}=` must be one number or {p} of them (one per feature); got {value!r}."
        ) from None
    if array.ndim == 0:
        array = np.full(p, float(array))
    array = array.reshape(-1)
    if array.size != p or not np.isfinite(array).all():
        raise InvalidInputError(
            f"`{argument}=` must be one finite number or {p} of them (one per feature); got {value!r}."
        )
    return array


def _correlation(feature_corr, p: int) -> np.ndarray:
    if np.ndim(feature_corr) == 0:
        r = float(feature_corr)
        if not -1.0 / max(p - 1, 1) <= r <= 1.0:
            raise InvalidInputError(
                f"`feature_corr={feature_corr!r}`: a common correlation of {p} features "
                f"must lie between {-1.0 / max(p - 1, 1):.3g} and 1."
            )
        matrix = np.full((p, p), r)
        np.fill_diagonal(matrix, 1.0)
        return matrix
    matrix = np.asarray(feature_corr, dtype="float64")
    if matrix.shape != (p, p) or not np.allclose(matrix, matrix.T) or not np.allclose(np.diag(matrix), 1):
        raise InvalidInputError(
            f"`feature_corr=` must be a number or a symmetric {p}x{p} correlation matrix."
        )
    if np.linalg.eigvalsh(matrix).min() < -1e-10:
        raise InvalidInputError(
            "`feature_corr=` is not positive semi-definite: no features have these correlations."
        )
    return matrix


def _group_spec(groups) -> tuple[list, np.ndarray]:
    if isinstance(groups, Mapping):
        labels = list(groups)
        try:
            probs = np.asarray([float(groups[g]) for g in labels], dtype="float64")
        except (TypeError, ValueError):
            raise InvalidInputError(
                f"`groups=` as a mapping gives each label its proportion (label -> number); got "
                f"{groups!r}. For equal proportions pass the labels as a list, e.g. "
                f"`groups=['A', 'B']`."
            ) from None
        if (probs < 0).any() or not probs.sum() > 0:
            raise InvalidInputError("`groups=` proportions must be non-negative with a positive sum.")
        return labels, probs / probs.sum()
    if isinstance(groups, (str, bytes)) or not isinstance(groups, Sequence) or len(groups) == 0:
        raise InvalidInputError(
            f"`groups={groups!r}` must be a list of labels or a mapping label -> proportion."
        )
    labels = list(groups)
    return labels, np.full(len(labels), 1.0 / len(labels))


def simulate_essays(
    n_essays: int = 500,
    *,
    n_features: int = 10,
    feature_names: Sequence[str] | None = None,
    feature_corr=0.35,
    feature_means=0.0,
    feature_sds=1.0,
    true_weights=None,
    true_score_corr: float = 1.0,
    n_raters: int = 2,
    reliability_single: float = 0.64,
    score_mean: float = 3.5,
    score_sd: float = 1.2,
    score_range: tuple | None = (1, 6),
    groups=None,
    group_effects: Mapping | None = None,
    seed=None,
) -> pd.DataFrame:
    r"""Simulate essays with correlated features and ratings by ``n_raters`` human raters.

    The model behind the data:

    1. Standardized features :math:`u \sim N(0, R)` with ``feature_corr`` as :math:`R`
       (one common correlation or a matrix); the reported raw features are
       ``feature_means + feature_sds * u``.
    2. A latent true score :math:`T = c\, C + \sqrt{1-c^2}\, \varepsilon`, where
       :math:`C = \sum_i v_i u_i / \sqrt{v^\top R v}` is the standardized composite of the
       features with ``true_weights`` :math:`v` (default: equal), :math:`c` is
       ``true_score_corr`` and :math:`\varepsilon \sim N(0,1)`. ``group_effects`` add a
       shift (in SD units of :math:`T`) per group, which the features do not see.
    3. Each rating is ``score_mean + score_sd * (sqrt(rel) * T + sqrt(1 - rel) * e_j)``
       with independent errors :math:`e_j`, so two ratings correlate ``rel`` =
       ``reliability_single`` and one rating correlates
       :math:`\sqrt{rel}\, c` with the true composite (0.80 for the defaults, the paper's
       :math:`\rho_{SE}`). With ``score_range=(lo, hi)`` ratings are rounded half to even
       and clipped to the integer scale (which lowers their reliability a little).

    Parameters
    ----------
    n_essays : int
        Number of essays (rows).
    n_features : int, default 10
        Number of features (ignored when ``feature_names`` is given).
    feature_names : list of str, optional
        Feature column names; default ``f1, f2, ...``.
    feature_corr : float or matrix, default 0.35
        Common intercorrelation of the features (the paper's median e-rater feature
        intercorrelation) or a full correlation matrix.
    feature_means, feature_sds : float or sequence, default 0 and 1
        Raw-feature means and SDs.
    true_weights : sequence, optional
        Weights of the features in the true score; default equal.
    true_score_corr : float, default 1.0
        Correlation of the latent true score with the feature composite.
    n_raters : int, default 2
        Number of human ratings per essay: columns ``h1, h2, ...``.
    reliability_single : float, default 0.64
        Correlation between two ratings of the same essay (before rounding).
    score_mean, score_sd : float, default 3.5 and 1.2
        Mean and SD of a single continuous rating.
    score_range : tuple of int or None, default (1, 6)
        Integer score scale; None keeps continuous ratings.
    groups : list or mapping, optional
        Subgroup labels (equal proportions) or label -> proportion; adds a ``group``
        column.
    group_effects : mapping, optional
        Group label -> shift of the human true score in SD units (e.g. ``{"B": -0.3}``):
        the machine scores, which only see the features, are then biased for that group.
    seed : int or numpy.random.Generator, optional
        Seed for reproducible data.

    Returns
    -------
    pandas.DataFrame
        Columns ``essay`` (0..n-1), ``group`` (if ``groups``), the features,
        ``true_score`` (the expected rating given the true score, on the rating scale,
        before rounding), then ``h1 .. hk``.

    Examples
    --------
    >>> from pdmetrics.datasets import simulate_essays
    >>> df = simulate_essays(5, n_features=2, seed=0)
    >>> list(df.columns)
    ['essay', 'f1', 'f2', 'true_score', 'h1', 'h2']
    >>> big = simulate_essays(20000, score_range=None, seed=1)
    >>> round(float(big["h1"].corr(big["h2"])), 2)
    0.64
    """
    try:
        n = int(n_essays)
    except (TypeError, ValueError):
        raise InvalidInputError(f"`n_essays={n_essays!r}` must be a non-negative integer.") from None
    if n < 0 or n != n_essays:
        raise InvalidInputError(f"`n_essays={n_essays!r}` must be a non-negative integer.")
    if feature_names is None:
        names = [f"f{i + 1}" for i in range(_count(n_features, "n_features", 1))]
    else:
        names = list(feature_names)
    p = len(names)
    if p < 1 or len(set(names)) != p:
        raise InvalidInputError(f"Need at least one feature with distinct names; got {names!r}.")
    k = _count(n_raters, "n_raters", 1)
    reserved = {"essay", "group", "true_score"} | {f"h{j + 1}" for j in range(k)}
    if reserved & set(names):
        raise InvalidInputError(
            f"Feature names {sorted(reserved & set(names))!r} clash with the output "
            "columns essay/group/true_score/h1..hk; rename them."
        )
    if not 0.0 <= finite_number(reliability_single, "reliability_single") <= 1.0:
        raise InvalidInputError(f"`reliability_single={reliability_single!r}` must lie between 0 and 1.")
    if not -1.0 <= finite_number(true_score_corr, "true_score_corr") <= 1.0:
        raise InvalidInputError(f"`true_score_corr={true_score_corr!r}` must lie between -1 and 1.")
    score_mean = finite_number(score_mean, "score_mean")
    if not finite_number(score_sd, "score_sd") >= 0:
        raise InvalidInputError(f"`score_sd={score_sd!r}` must be non-negative.")
    score_sd = float(score_sd)
    if score_range is not None:
        try:
            low, high = (finite_number(v, "score_range") for v in score_range)
        except (TypeError, ValueError):
            raise InvalidInputError(
                f"`score_range={score_range!r}` must be a pair (lowest, highest) or None."
            ) from None
        if not low < high:
            raise InvalidInputError(
                f"`score_range={score_range!r}`: the lowest score must be below the highest."
            )
    corr = _correlation(feature_corr, p)
    means = _per_feature(feature_means, p, "feature_means")
    sds = _per_feature(feature_sds, p, "feature_sds")
    if not np.all(sds >= 0):
        raise InvalidInputError(f"`feature_sds=` must be non-negative; got {feature_sds!r}.")
    weights = _per_feature(1.0 if true_weights is None else true_weights, p, "true_weights")
    composite_sd = float(np.sqrt(max(weights @ corr @ weights, 0.0)))
    if not composite_sd > 0:
        raise InvalidInputError(
            "`true_weights=` give a composite with zero variance; use weights that are not all zero."
        )

    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    eigenvalues, eigenvectors = np.linalg.eigh(corr)
    root = eigenvectors * np.sqrt(np.clip(eigenvalues, 0.0, None))
    u = rng.standard_normal((n, p)) @ root.T
    c = float(true_score_corr)
    true = c * (u @ weights) / composite_sd + np.sqrt(1.0 - c * c) * rng.standard_normal(n)

    columns: dict[str, object] = {"essay": np.arange(n)}
    if groups is not None:
        labels, probs = _group_spec(groups)
        codes = rng.choice(len(labels), size=n, p=probs)
        columns["group"] = np.asarray(labels, dtype=object)[codes]
        if group_effects:
            unknown = [g for g in group_effects if g not in labels]
            if unknown:
                raise InvalidInputError(
                    f"`group_effects=` names unknown group(s) {unknown!r}; groups are {labels!r}."
                )
            shifts = np.array([float(group_effects.get(g, 0.0)) for g in labels])
            true = true + shifts[codes]
    elif group_effects:
        raise InvalidInputError("`group_effects=` needs `groups=`.")
    raw = means + sds * u
    for j, name in enumerate(names):
        columns[name] = raw[:, j]
    rel = float(reliability_single)
    columns["true_score"] = score_mean + score_sd * np.sqrt(rel) * true
    ratings = score_mean + score_sd * (
        np.sqrt(rel) * true[:, None] + np.sqrt(1.0 - rel) * rng.standard_normal((n, k))
    )
    if score_range is not None:
        ratings = np.clip(np.rint(ratings), low, high)
    for j in range(k):
        columns[f"h{j + 1}"] = ratings[:, j]
    frame = pd.DataFrame(columns)
    if groups is not None:
        frame["group"] = frame["group"].astype(str)
    return frame
