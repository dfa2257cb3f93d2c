"""Linear scoring models in the style of e-rater V.2, estimated or predetermined (Attali, 2007).

An essay's score is a weighted average of its standardized feature values,

.. math:: Z = \\sum_i w_i \\frac{x_i - \\mu_i}{\\sigma_i},

linearly scaled to the human score scale,

.. math:: E = \\frac{S_H}{S_Z} (Z - M_Z) + M_H .

:class:`LinearScoringModel` holds every parameter of that recipe: relative feature
weights :math:`w_i` (summing to 1), feature means :math:`\\mu_i` and SDs
:math:`\\sigma_i`, optional feature intercorrelations, and the paired scaling
parameters :math:`(M_Z, S_Z)` and :math:`(M_H, S_H)`.

- *Estimated-parameter* (EP) scoring estimates all of them from one large training
  sample: :meth:`LinearScoringModel.fit_ep`.
- *Predetermined-parameter* (PP, "on-the-fly") scoring takes the weights and feature
  distributions from earlier models or expert judgment and estimates only the scaling,
  from a small scaling sample of human-scored benchmark essays:
  :meth:`LinearScoringModel.fit_scaling`.

Models are immutable: fitting, scaling and adjusting return new models. The additive statistics
of the fits are in :mod:`pdmetrics.scoring.model_states`; the frame-level functions behind
``df.scoring.weighted_score``, ``predict``, ``fit_pp`` and ``fit_ep`` in
:mod:`pdmetrics.scoring.model_tables`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdmetrics._tables import result_table
from pdmetrics._validation import as_list, finite_number, numeric_values, require_columns
from pdmetrics._warnings import warn_undefined
from pdmetrics.errors import InvalidInputError
from pdmetrics.scoring.model_states import (
    SampleState,
    complete_rows,
    ep_state,
    feature_matrix,
    human_mean,
    report_complete,
    sample_state,
)

__all__ = [
    "LinearScoringModel",
    "weighted_score_sd",
    "relative_influence",
    "ep_model_from_state",
    "check_fixed_weights",
    "predetermined_model",
]


# --------------------------------------------------------------------------------------
# parameter parsing
# --------------------------------------------------------------------------------------
def _float_array(values, argument: str) -> np.ndarray:
    try:
        return np.array(values, dtype="float64")
    except (TypeError, ValueError):
        raise InvalidInputError(f"`{argument}` must hold numbers only; got {values!r:.200}.") from None


def _parse_weights(weights) -> tuple[tuple, np.ndarray]:
    if isinstance(weights, pd.Series):
        weights = weights.to_dict()
    if not isinstance(weights, Mapping) or not weights:
        raise InvalidInputError(
            f"`weights={weights!r}` must be a non-empty mapping of feature column -> weight, "
            "e.g. {'grammar': 0.3, 'organization': 0.7}."
        )
    features = tuple(weights)
    values = np.array([finite_number(weights[f], f"weights[{f!r}]") for f in features], dtype="float64")
    total = values.sum()
    if not total > 1e-12 * max(1.0, np.abs(values).sum()):
        raise InvalidInputError(
            f"The weights sum to {float(total)!r}; relative weights are the weights divided by their sum, "
            "so the sum must be positive. Pass positive weights (e.g. percentages)."
        )
    return features, values / total


def _parse_vector(values, features: tuple, argument: str) -> np.ndarray:
    if isinstance(values, pd.Series):
        values = values.to_dict()
    if isinstance(values, Mapping):
        missing = [f for f in features if f not in values]
        if missing:
            raise InvalidInputError(
                f"`{argument}=` has no value for feature(s) {missing!r}; give one "
                f"for every weighted feature {list(features)!r}."
            )
        return np.array([finite_number(values[f], f"{argument}[{f!r}]") for f in features], dtype="float64")
    if np.ndim(values) == 0:
        return np.full(len(features), finite_number(values, argument))
    array = _float_array(values, argument).reshape(-1)
    if array.size != len(features) or not np.isfinite(array).all():
        raise InvalidInputError(
            f"`{argument}=` must give one finite number per feature "
            f"({len(features)}: {list(features)!r}); got {values!r}."
        )
    return array


def _parse_corr(intercorrelations, features: tuple) -> np.ndarray | None:
    if intercorrelations is None:
        return None
    p = len(features)
    if isinstance(intercorrelations, pd.DataFrame):
        labels = intercorrelations
        missing = [f for f in features if f not in labels.index or f not in labels.columns]
        if missing:
            raise InvalidInputError(f"`intercorrelations=` has no row/column for feature(s) {missing!r}.")
        matrix = intercorrelations.loc[list(features), list(features)].to_numpy(dtype="float64", copy=True)
    elif np.ndim(intercorrelations) == 0:
        r = finite_number(intercorrelations, "intercorrelations")
        matrix = np.full((p, p), r)
        np.fill_diagonal(matrix, 1.0)
    else:
        matrix = _float_array(intercorrelations, "intercorrelations")
    if matrix.shape != (p, p):
        raise InvalidInputError(
            f"`intercorrelations=` must be a number or a {p}x{p} matrix "
            f"(features {list(features)!r}); got shape {matrix.shape}."
        )
    ok = (
        np.isfinite(matrix).all()
        and np.allclose(matrix, matrix.T)
        and np.allclose(np.diag(matrix), 1.0)
        and np.all(np.abs(matrix) <= 1.0 + 1e-12)
    )
    if not ok:
        raise InvalidInputError(
            "`intercorrelations=` must be a symmetric correlation matrix: ones on the "
            "diagonal, values between -1 and 1."
        )
    matrix.flags.writeable = False
    return matrix


def _require_psd(matrix: np.ndarray) -> None:
    if np.linalg.eigvalsh(matrix).min() < -1e-10:
        raise InvalidInputError(
            "`intercorrelations=` is not a valid correlation matrix: it is not "
            "positive semi-definite (no set of features has these correlations). "
            "Use a correlation matrix estimated from data, e.g. "
            "`df[features].corr()`."
        )


def weighted_score_sd(weights, intercorrelations) -> float:
    r"""SD of a weighted sum of standardized features (Equation 1).

    .. math:: S_Z = \sqrt{\sum_i w_i^2 + 2 \sum_{i<j} w_i w_j r_{ij}} = \sqrt{w^\top R w}

    Parameters
    ----------
    weights : array-like or mapping
        Feature weights, used as given (relative weights sum to 1).
    intercorrelations : float or array-like
        A common correlation between every pair of features, or the full correlation
        matrix ``R``.

    Returns
    -------
    float
        The SD.

    Raises
    ------
    InvalidInputError
        When ``R`` is not a correlation matrix: not symmetric, not ones on the diagonal,
        values outside [-1, 1], or not positive semi-definite (no features can have these
        correlations, and the "variance" may come out negative).

    Examples
    --------
    The paper's Table 1: weights 70% and 30%, correlation .5.

    >>> from pdmetrics.scoring import weighted_score_sd
    >>> round(weighted_score_sd([0.7, 0.3], 0.5), 2)
    0.89
    """
    if isinstance(weights, pd.Series):
        weights = weights.to_dict()
    if isinstance(weights, Mapping):
        features = tuple(weights)
        w = np.array([finite_number(weights[f], f"weights[{f!r}]") for f in features], dtype="float64")
    else:
        w = _float_array(weights, "weights").reshape(-1)
        features = tuple(range(w.size))
        if not np.isfinite(w).all():
            raise InvalidInputError("`weights` must be finite numbers.")
    matrix = _parse_corr(intercorrelations, features)
    _require_psd(matrix)
    return float(np.sqrt(max(float(w @ matrix @ w), 0.0)))


def _with_column(frame: pd.DataFrame, columns: dict) -> pd.DataFrame:
    for name in columns:
        if not isinstance(name, str):
            raise InvalidInputError(f"Output column names must be strings; got {name!r}.")
    return frame.assign(**columns)


@dataclass(frozen=True)
class _Regression:
    """Centred cross-products of features ``x`` and a criterion ``y``: everything OLS needs.

    ``means``, ``sds`` (ddof=1) and ``corr`` of the features, ``sd_y`` and ``r_xy`` (the
    feature-criterion correlations). Standardized regression coefficients are
    ``solve(corr, r_xy)``: one p x p solve instead of a least-squares fit on n rows.
    """

    n: int
    means: np.ndarray
    sds: np.ndarray
    corr: np.ndarray
    sd_y: float
    r_xy: np.ndarray

    @classmethod
    def fit(cls, x: np.ndarray, y: np.ndarray) -> _Regression:
        """The regression of ``y`` on the columns of ``x`` (complete rows)."""
        return cls.from_state(sample_state([*x.T, y]))

    @classmethod
    def from_state(cls, state: SampleState) -> _Regression:
        """The regression of the last column of a :class:`SampleState` on the others."""
        n, p = state.n, state.means.size - 1
        cross = state.cross[:p, :p]
        ss = np.diag(cross).copy()
        ss_y = float(state.cross[p, p])
        with np.errstate(invalid="ignore", divide="ignore"):
            scale = np.sqrt(ss)
            corr = cross / np.outer(scale, scale)
            r_xy = state.cross[:p, p] / (scale * np.sqrt(ss_y))
        corr = (corr + corr.T) / 2
        np.fill_diagonal(corr, 1.0)
        return cls(
            n,
            state.means[:p].copy(),
            np.sqrt(ss / (n - 1)),
            np.clip(corr, -1.0, 1.0),
            float(np.sqrt(ss_y / (n - 1))),
            r_xy,
        )

    def std_betas(self) -> np.ndarray:
        if np.linalg.eigvalsh(self.corr).min() <= 1e-10:
            raise InvalidInputError(
                "The features are collinear: their regression coefficients are not "
                "identified. Drop a redundant feature."
            )
        return np.linalg.solve(self.corr, self.r_xy)


def relative_influence(features, composite) -> pd.DataFrame:
    r"""Observed relative influence of each feature on a composite score (the paper's Table 3).

    Regresses the composite on the features by ordinary least squares, converts the
    coefficients to standardized betas :math:`\beta_i = b_i\, s(x_i) / s(y)` and divides
    them by their sum, so that the influences sum to 1 and can be compared with relative
    weights. (The paper's "standardized betas" are relative in this sense: with ten
    equally weighted features its actual values are all 0.1.)

    Parameters
    ----------
    features : DataFrame or 2-D array-like
        One column per feature (DataFrame column names become the ``feature`` labels,
        array columns are numbered from 0).
    composite : array-like
        The composite score of each row.

    Returns
    -------
    pandas.DataFrame
        ``feature, std_beta, influence``: one row per feature. Rows with a missing value
        are left out (with an :class:`~pdmetrics.ExcludedRowsWarning`).

    Raises
    ------
    InvalidInputError
        For fewer rows than features plus two, or collinear features.

    Examples
    --------
    >>> import numpy as np
    >>> from pdmetrics.scoring import relative_influence
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(200, 2))
    >>> relative_influence(x, 3 * x[:, 0] + x[:, 1]).round(2)
       feature  std_beta  influence
    0        0      0.93       0.74
    1        1      0.32       0.26
    """
    if isinstance(features, pd.DataFrame):
        names = list(features.columns)
        x = feature_matrix(features, names)
    else:
        x = _float_array(features, "features")
        if x.ndim != 2:
            raise InvalidInputError(
                f"`features` must be two-dimensional (rows x features); got shape {x.shape}."
            )
        names = list(range(x.shape[1]))
    if isinstance(composite, pd.Series):
        y = numeric_values(composite, "composite")
    else:
        y = _float_array(composite, "composite").reshape(-1)
    if y.size != x.shape[0]:
        raise InvalidInputError(f"`composite` has {y.size} values but `features` has {x.shape[0]} rows.")
    keep = np.isfinite(x).all(axis=1) & np.isfinite(y)
    complete_rows(keep, "feature or composite value", x.shape[1] + 2, "relative_influence")
    if not keep.all():
        x, y = x[keep], y[keep]
    stats = _Regression.fit(x, y)
    if not np.all(stats.sds > 0):
        raise InvalidInputError(
            f"Feature {names[int(np.argmin(stats.sds > 0))]!r} is constant: its "
            "regression coefficient is not identified. Drop it."
        )
    sd_y = stats.sd_y
    std_beta = stats.std_betas() if sd_y > 0 else np.full(x.shape[1], np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        total = std_beta.sum()
        influence = std_beta / total
    if not (sd_y > 0 and abs(total) > 1e-12):
        warn_undefined(
            "Relative influence is undefined when the composite is constant or the "
            "standardized betas sum to 0; returning NaN. Check the weights (not all 0, not "
            "cancelling out) and that the features vary."
        )
        influence = np.full_like(std_beta, np.nan)
    return result_table({"feature": names, "std_beta": std_beta, "influence": influence})


# --------------------------------------------------------------------------------------
# the model
# --------------------------------------------------------------------------------------
class LinearScoringModel:
    r"""A linear (e-rater V.2 style) scoring model: weights, feature distributions, scaling.

    Parameters
    ----------
    weights : mapping of str to float
        Feature column -> weight. Weights are stored as *relative* weights (divided by
        their sum), so percentages, fractions or regression coefficients all work; their
        sum must be positive.
    means, sds : mapping, sequence or float
        Feature means :math:`\mu_i` and SDs :math:`\sigma_i` used to standardize the
        features (mapping keyed by feature, sequence in the order of ``weights``, or one
        number for all). SDs must be positive.
    intercorrelations : float or matrix or DataFrame, optional
        Feature intercorrelations: one common correlation, a matrix in the order of
        ``weights``, or a DataFrame indexed by feature. Needed only for the implied SD of
        :math:`Z` (Equation 1) when no scaling sample sets ``z_sd``.
    z_mean : float, default 0.0
        :math:`M_Z`, mean of the standardized weighted scores (0 by definition in the
        population the feature distributions come from).
    z_sd : float, optional
        :math:`S_Z`, SD of the standardized weighted scores. Default: the SD implied by
        the weights and intercorrelations (:attr:`implied_z_sd`), if given.
    scale_mean, scale_sd : float, optional
        :math:`M_H` and :math:`S_H`: mean and SD of the human score scale the scores are
        mapped to. Without them the model only gives standardized scores.

    Notes
    -----
    Scaled scores are :math:`E = \text{slope}\cdot Z + \text{intercept}` with
    ``slope = scale_sd / z_sd`` and ``intercept = scale_mean - slope * z_mean``
    (Equations 2 and 3). All SDs estimated from data use ``ddof=1``; the scaled scores do
    not depend on that choice.

    Examples
    --------
    The paper's Table 1: two features, weights 70%/30%, correlation .5, scale mean 3.5
    and SD 1.2; an essay with raw values 110 and .35.

    >>> import pandas as pd
    >>> from pdmetrics.scoring import LinearScoringModel
    >>> model = LinearScoringModel(weights={"A": 70, "B": 30}, means={"A": 100, "B": 0.30},
    ...                            sds={"A": 10, "B": 0.10}, intercorrelations=0.5,
    ...                            scale_mean=3.5, scale_sd=1.2)
    >>> essay = pd.DataFrame({"A": [110.0], "B": [0.35]})
    >>> round(float(model.standardized_scores(essay)[0]), 2), round(model.z_sd, 2)
    (0.85, 0.89)
    >>> model.predict(essay).round(2)
           A     B  e_score
    0  110.0  0.35     4.65
    """

    __slots__ = (
        "_features",
        "_weights",
        "_means",
        "_sds",
        "_corr",
        "_z_mean",
        "_z_sd",
        "_scale_mean",
        "_scale_sd",
    )

    def __init__(
        self,
        weights,
        means,
        sds,
        *,
        intercorrelations=None,
        z_mean: float = 0.0,
        z_sd: float | None = None,
        scale_mean: float | None = None,
        scale_sd: float | None = None,
    ) -> None:
        features, w = _parse_weights(weights)
        m = _parse_vector(means, features, "means")
        s = _parse_vector(sds, features, "sds")
        if not np.all(s > 0):
            bad = features[int(np.argmin(s > 0))]
            raise InvalidInputError(
                f"`sds[{bad!r}]` is {float(s[features.index(bad)])!r}; feature SDs "
                "must be positive (a constant feature cannot be standardized)."
            )
        corr = _parse_corr(intercorrelations, features)
        if corr is not None:
            _require_psd(corr)
        for array in (w, m, s):
            array.flags.writeable = False
        self._features, self._weights, self._means, self._sds, self._corr = features, w, m, s, corr
        self._z_mean = finite_number(z_mean, "z_mean")
        if z_sd is None:
            z_sd = self.implied_z_sd
            if z_sd is not None and not z_sd > 1e-12:
                raise InvalidInputError(
                    "The weights and `intercorrelations=` imply that every essay has the same standardized "
                    "weighted score (SD of Z is 0), so scores cannot be scaled. Check the correlations "
                    "(perfectly correlated features whose weights cancel), or pass `z_sd=`."
                )
        elif not finite_number(z_sd, "z_sd") > 0:
            raise InvalidInputError(f"`z_sd={z_sd!r}` must be positive.")
        self._z_sd = None if z_sd is None or np.isnan(z_sd) else float(z_sd)
        if (scale_mean is None) != (scale_sd is None):
            raise InvalidInputError("Give both `scale_mean=` and `scale_sd=` (the human scale), or neither.")
        self._scale_mean = None if scale_mean is None else finite_number(scale_mean, "scale_mean")
        self._scale_sd = None if scale_sd is None else finite_number(scale_sd, "scale_sd")
        if self._scale_sd is not None and self._scale_sd < 0:
            raise InvalidInputError(f"`scale_sd={scale_sd!r}` must be non-negative.")

    # ----------------------------------------------------------------------------------
    # parameters
    # ----------------------------------------------------------------------------------
    @property
    def features(self) -> tuple:
        """Feature column names, in weight order."""
        return self._features

    @property
    def weights(self) -> pd.Series:
        """Relative weights (sum to 1), indexed by feature."""
        return pd.Series(self._weights, index=list(self._features), name="weight")

    @property
    def means(self) -> pd.Series:
        """Feature means used for standardization."""
        return pd.Series(self._means, index=list(self._features), name="mean")

    @property
    def sds(self) -> pd.Series:
        """Feature SDs used for standardization."""
        return pd.Series(self._sds, index=list(self._features), name="sd")

    @property
    def intercorrelations(self) -> pd.DataFrame | None:
        """Feature intercorrelation matrix, or None."""
        if self._corr is None:
            return None
        return pd.DataFrame(self._corr.copy(), index=list(self._features), columns=list(self._features))

    @property
    def implied_z_sd(self) -> float | None:
        """SD of :math:`Z` implied by the weights and intercorrelations (Equation 1); None without them."""
        if self._corr is None:
            return None
        return weighted_score_sd(self._weights, self._corr)

    @property
    def z_mean(self) -> float:
        """:math:`M_Z`, the mean of standardized weighted scores the scaling maps to ``scale_mean``."""
        return self._z_mean

    @property
    def z_sd(self) -> float | None:
        """:math:`S_Z`, the SD of standardized weighted scores the scaling maps to ``scale_sd``."""
        return self._z_sd

    @property
    def scale_mean(self) -> float | None:
        """:math:`M_H`, the mean of the human score scale (None when the model is unscaled)."""
        return self._scale_mean

    @property
    def scale_sd(self) -> float | None:
        """:math:`S_H`, the SD of the human score scale (None when the model is unscaled)."""
        return self._scale_sd

    @property
    def is_scaled(self) -> bool:
        """Whether the model can produce scaled scores (it has ``z_sd``, ``scale_mean``, ``scale_sd``)."""
        return self._z_sd is not None and self._scale_mean is not None

    @property
    def slope(self) -> float:
        """Slope of the scaling, ``scale_sd / z_sd`` (Equation 3)."""
        self._require_scaled()
        return self._scale_sd / self._z_sd

    @property
    def intercept(self) -> float:
        """Intercept of the scaling, ``scale_mean - slope * z_mean`` (Equation 3)."""
        return self._scale_mean - self.slope * self._z_mean

    def _require_scaled(self) -> None:
        if self._z_sd is None:
            raise InvalidInputError(
                "The model has no SD of standardized scores (z_sd): fit the scaling on human-scored "
                "essays with `fit_scaling` / `df.scoring.fit_pp`, or give `intercorrelations=` or `z_sd=`."
            )
        if self._scale_mean is None:
            raise InvalidInputError(
                "The model has no score scale: fit it on human-scored essays with `fit_scaling` / "
                "`df.scoring.fit_pp`, or set it with `adjust(mean=..., sd=...)`."
            )

    def to_frame(self) -> pd.DataFrame:
        """The feature parameters as a table: ``feature, weight, mean, sd``.

        Examples
        --------
        >>> from pdmetrics.scoring import LinearScoringModel
        >>> LinearScoringModel({"A": 3, "B": 1}, means=0, sds=[1, 2]).to_frame()
          feature  weight  mean   sd
        0       A    0.75   0.0  1.0
        1       B    0.25   0.0  2.0
        """
        return result_table(
            {
                "feature": list(self._features),
                "weight": self._weights.copy(),
                "mean": self._means.copy(),
                "sd": self._sds.copy(),
            }
        )

    def replace(self, **changes) -> LinearScoringModel:
        """A copy of the model with some constructor arguments changed.

        Examples
        --------
        >>> from pdmetrics.scoring import LinearScoringModel
        >>> m = LinearScoringModel({"A": 1}, means=0, sds=1, z_sd=1, scale_mean=3, scale_sd=1)
        >>> m.replace(scale_mean=4).scale_mean
        4.0
        """
        arguments = {
            "weights": dict(zip(self._features, self._weights)),
            "means": self._means,
            "sds": self._sds,
            "intercorrelations": self._corr,
            "z_mean": self._z_mean,
            "z_sd": self._z_sd,
            "scale_mean": self._scale_mean,
            "scale_sd": self._scale_sd,
        }
        unknown = set(changes) - set(arguments)
        if unknown:
            raise InvalidInputError(
                f"replace() got unknown parameter(s) {sorted(unknown)!r}; use {sorted(arguments)!r}."
            )
        arguments.update(changes)
        return LinearScoringModel(**arguments)

    def __repr__(self) -> str:
        weights = ", ".join(f"{f!r}: {w:.3g}" for f, w in zip(self._features, self._weights))
        scale = (
            f"scale_mean={self._scale_mean:.4g}, scale_sd={self._scale_sd:.4g}"
            if self._scale_mean is not None
            else "unscaled"
        )
        z_sd = "None" if self._z_sd is None else f"{self._z_sd:.4g}"
        return f"LinearScoringModel(weights={{{weights}}}, z_mean={self._z_mean:.4g}, z_sd={z_sd}, {scale})"

    # ----------------------------------------------------------------------------------
    # scoring
    # ----------------------------------------------------------------------------------
    def _z(self, frame: pd.DataFrame) -> np.ndarray:
        x = feature_matrix(frame, self._features)
        scaled = self._weights / self._sds
        return x @ scaled - float(self._means @ scaled)

    def standardized_scores(self, frame: pd.DataFrame, name: str = "Z") -> pd.Series:
        r"""Standardized weighted scores :math:`Z = \sum_i w_i (x_i - \mu_i)/\sigma_i` of every row.

        A row with a missing feature value gets NaN.

        Returns
        -------
        pandas.Series
            Aligned with ``frame.index``, named ``name``.

        Examples
        --------
        >>> import pandas as pd
        >>> from pdmetrics.scoring import LinearScoringModel
        >>> m = LinearScoringModel({"A": 70, "B": 30}, means={"A": 100, "B": 0.3}, sds={"A": 10, "B": 0.1})
        >>> m.standardized_scores(pd.DataFrame({"A": [110.0, 90.0], "B": [0.35, 0.30]})).round(2).tolist()
        [0.85, -0.7]
        """
        return pd.Series(self._z(frame), index=frame.index, name=name)

    def rescale(self, z):
        """Map standardized weighted scores to the score scale: ``slope * z + intercept``.

        Examples
        --------
        >>> from pdmetrics.scoring import LinearScoringModel
        >>> m = LinearScoringModel({"A": 7, "B": 3}, means=0, sds=1, intercorrelations=0.5,
        ...                        scale_mean=3.5, scale_sd=1.2)
        >>> round(m.rescale(0.85), 2)
        4.65
        """
        self._require_scaled()
        if np.ndim(z) == 0:
            return float(self.slope * finite_number(z, "z") + self.intercept)
        if isinstance(z, pd.Series):
            return pd.Series(numeric_values(z, "z") * self.slope + self.intercept, index=z.index, name=z.name)
        return _float_array(z, "z") * self.slope + self.intercept

    def predict(
        self, frame: pd.DataFrame, *, name: str = "e_score", z_name: str | None = None
    ) -> pd.DataFrame:
        """Score every row: a copy of ``frame`` with the scaled score column appended.

        Parameters
        ----------
        frame : DataFrame
            Must contain every feature column of the model.
        name : str, default "e_score"
            Name of the scaled-score column :math:`E`.
        z_name : str, optional
            Also append the standardized weighted score :math:`Z` under this name.

        Returns
        -------
        pandas.DataFrame
            A new frame (the input is not modified; a column of the same name is
            replaced), so the result chains into ``.scoring.postprocess`` and
            ``.scoring.evaluate``. Rows with a missing feature get NaN.

        Examples
        --------
        >>> import pandas as pd
        >>> from pdmetrics.scoring import LinearScoringModel
        >>> m = LinearScoringModel({"A": 70, "B": 30}, means={"A": 100, "B": 0.3}, sds={"A": 10, "B": 0.1},
        ...                        intercorrelations=0.5, scale_mean=3.5, scale_sd=1.2)
        >>> m.predict(pd.DataFrame({"A": [110.0, 90.0], "B": [0.35, 0.30]}), z_name="Z").round(2)
               A     B     Z  e_score
        0  110.0  0.35  0.85     4.65
        1   90.0  0.30 -0.70     2.55
        """
        self._require_scaled()
        z = self._z(frame)
        columns = {} if z_name is None else {z_name: z}
        columns[name] = z * self.slope + self.intercept
        return _with_column(frame, columns)

    # ----------------------------------------------------------------------------------
    # fitting and adjusting
    # ----------------------------------------------------------------------------------
    def fit_scaling(self, frame: pd.DataFrame, *, human) -> LinearScoringModel:
        r"""PP scaling: fit :math:`(M_Z, S_Z)` and :math:`(M_H, S_H)` on a scaling sample.

        The weights and feature distributions stay as they are (predetermined); the
        standardized weighted scores of the scaling sample give :math:`M_Z` and
        :math:`S_Z`, their human scores :math:`M_H` and :math:`S_H` (Equations 2-3), so the
        scaled scores of the scaling sample have exactly the human mean and SD.

        Parameters
        ----------
        frame : DataFrame
            The scaling sample (benchmark essays): the feature columns and human scores.
        human : str or list of str
            Human score column, or several rater columns whose available ratings are
            averaged per essay.

        Returns
        -------
        LinearScoringModel
            A new, scaled model. Rows with a missing feature or no human rating are left
            out (with an :class:`~pdmetrics.ExcludedRowsWarning`).

        Raises
        ------
        InvalidInputError
            With fewer than two complete rows, or when every essay has the same
            standardized score or the same human score.

        Examples
        --------
        >>> import pandas as pd
        >>> from pdmetrics.scoring import LinearScoringModel
        >>> prior = LinearScoringModel({"A": 70, "B": 30}, means={"A": 100, "B": 0.3},
        ...                            sds={"A": 10, "B": 0.1})
        >>> bench = pd.DataFrame({"A": [95, 110, 102, 120], "B": [0.2, 0.35, 0.3, 0.5], "h": [2, 4, 3, 6]})
        >>> pp = prior.fit_scaling(bench, human="h")
        >>> round(pp.z_mean, 3), round(pp.z_sd, 3), round(pp.scale_mean, 3), round(pp.scale_sd, 3)
        (0.585, 1.125, 3.75, 1.708)
        >>> pp.predict(bench)["e_score"].round(2).tolist()
        [1.87, 4.15, 3.07, 5.9]
        """
        return self.scaled_from_state(self.scaling_state(frame, human))

    def scaling_state(self, frame: pd.DataFrame, human) -> SampleState:
        """The :class:`SampleState` of a chunk of the scaling sample: the standardized weighted
        scores and the (mean) human scores of its rows, for :meth:`scaled_from_state`.

        Examples
        --------
        >>> import pandas as pd
        >>> from pdmetrics.scoring import LinearScoringModel
        >>> prior = LinearScoringModel({"A": 1}, means=0, sds=1)
        >>> part_1, part_2 = pd.DataFrame({"A": [0, 1], "h": [2, 3]}), pd.DataFrame({"A": [3], "h": [5]})
        >>> state = prior.scaling_state(part_1, "h").combine(prior.scaling_state(part_2, "h"))
        >>> round(prior.scaled_from_state(state).scale_sd, 3)
        1.528
        """
        return sample_state([self._z(frame), human_mean(frame, human)])

    def scaled_from_state(self, state: SampleState) -> LinearScoringModel:
        """The model scaled on the rows summed in ``state`` (:meth:`scaling_state`): the PP
        scaling of :meth:`fit_scaling`, its warnings and errors raised here."""
        report_complete(state.n, state.n_input, "feature value or human score", 2, "PP scaling")
        z_sd, h_sd = (float(sd) for sd in state.sds())
        z_size, h_size = state.largest_magnitude()
        if not z_sd > 1e-12 * max(1.0, float(z_size)):
            raise InvalidInputError(
                "Every essay of the scaling sample has the same standardized weighted "
                "score, so its SD is 0 and the scaling is undefined. Use essays that "
                "differ in quality."
            )
        if not h_sd > 1e-12 * max(1.0, float(h_size)):
            raise InvalidInputError(
                f"Every essay of the scaling sample has the same human score "
                f"({float(state.low[1])!r}), so the human SD is 0 and every scaled score would "
                "equal it. Use essays that differ in quality (or set the scale with "
                "`adjust(mean=, sd=)`)."
            )
        return self.replace(
            z_mean=float(state.means[0]), z_sd=z_sd, scale_mean=float(state.means[1]), scale_sd=h_sd
        )

    def adjust(
        self,
        *,
        mean: float | None = None,
        sd: float | None = None,
        mean_shift: float = 0.0,
        sd_factor: float = 1.0,
    ) -> LinearScoringModel:
        """Adjust the scoring standards (mean) and variability (SD) of the scaled scores.

        The paper's interactive application, steps 3 and 4: ``mean`` / ``sd`` set the target
        human mean and SD (:math:`M_H`, :math:`S_H`); ``mean_shift`` adds to the mean and
        ``sd_factor`` multiplies the SD. Weights and feature distributions are unchanged,
        so the rank order of essays is too.

        Examples
        --------
        >>> from pdmetrics.scoring import LinearScoringModel
        >>> m = LinearScoringModel({"A": 1}, means=0, sds=1, z_sd=1, scale_mean=3.5, scale_sd=1.2)
        >>> stricter = m.adjust(mean_shift=-0.5, sd_factor=1.25)
        >>> stricter.scale_mean, stricter.scale_sd
        (3.0, 1.5)
        """
        if mean is None:
            mean = self._scale_mean
        if sd is None:
            sd = self._scale_sd
        if mean is None or sd is None:
            raise InvalidInputError("The model has no score scale yet: pass both `mean=` and `sd=`.")
        factor = finite_number(sd_factor, "sd_factor")
        if factor < 0:
            raise InvalidInputError(f"`sd_factor={sd_factor!r}` must be non-negative.")
        return self.replace(
            scale_mean=finite_number(mean, "mean") + finite_number(mean_shift, "mean_shift"),
            scale_sd=finite_number(sd, "sd") * factor,
        )

    @classmethod
    def fit_ep(cls, frame: pd.DataFrame, *, features, human, weights=None) -> LinearScoringModel:
        r"""EP scoring: estimate every parameter from one training sample.

        Feature means, SDs (``ddof=1``) and intercorrelations come from the sample. The
        weights are the OLS coefficients of the human score on the standardized features,
        divided by their sum (relative weights); or, with ``weights=``, fixed weights
        (the paper's "semi-optimal" EP model). The scaling maps :math:`Z` (mean 0, SD from
        Equation 1) to the sample's human mean and SD.

        Parameters
        ----------
        frame : DataFrame
            Training sample.
        features : list of str
            Feature columns.
        human : str or list of str
            Human score column, or rater columns averaged per essay.
        weights : mapping, optional
            Fixed weights for the features (keys must be ``features``); default: OLS.

        Returns
        -------
        LinearScoringModel
            Rows with a missing value are left out (with an
            :class:`~pdmetrics.ExcludedRowsWarning`).

        Notes
        -----
        As in e-rater V.2, the scaled scores have the human SD, not the (smaller) SD of the
        OLS predictions: :math:`E` is the standardized prediction rescaled to the human
        scale.

        Raises
        ------
        InvalidInputError
            With fewer rows than features plus two, a constant or collinear feature,
            human scores that are all equal, or OLS weights summing to a non-positive number.

        Examples
        --------
        >>> from pdmetrics.datasets import simulate_essays
        >>> from pdmetrics.scoring import LinearScoringModel
        >>> train = simulate_essays(1000, n_features=2, true_weights=[0.7, 0.3], seed=3)
        >>> ep = LinearScoringModel.fit_ep(train, features=["f1", "f2"], human=["h1", "h2"])
        >>> ep.weights.round(2).tolist(), round(ep.z_mean, 2), round(ep.scale_mean, 2)
        ([0.69, 0.31], 0.0, 3.49)
        """
        names = require_columns(frame, "features", as_list(features, "features"))
        weights = check_fixed_weights(weights, names)
        return ep_model_from_state(ep_state(frame, names, human), names, weights)

    def relative_influence(self, frame: pd.DataFrame) -> pd.DataFrame:
        """Observed relative influence of each feature on this model's scores in ``frame``.

        When the assumed feature SDs differ from those of ``frame``, a feature's observed
        influence differs from its weight in proportion to the actual-to-assumed SD ratio
        (the paper's Table 3). See :func:`relative_influence`.

        Returns
        -------
        pandas.DataFrame
            ``feature, weight, std_beta, influence, influence_ratio`` where
            ``influence_ratio = influence / weight``.

        Examples
        --------
        Feature ``f1`` standardized with an assumed SD of 0.5 while its actual SD is 1:
        it gets about twice the influence of ``f2`` despite equal weights.

        >>> from pdmetrics.datasets import simulate_essays
        >>> from pdmetrics.scoring import LinearScoringModel
        >>> essays = simulate_essays(1000, n_features=2, seed=0)
        >>> wrong = LinearScoringModel({"f1": 1, "f2": 1}, means=0, sds=[0.5, 1.0])
        >>> wrong.relative_influence(essays).round(2)
          feature  weight  std_beta  influence  influence_ratio
        0      f1     0.5      0.80       0.67             1.34
        1      f2     0.5      0.39       0.33             0.66
        """
        x = feature_matrix(frame, self._features)
        table = relative_influence(x, ((x - self._means) / self._sds) @ self._weights)
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = table["influence"].to_numpy() / self._weights
        return result_table(
            {
                "feature": list(self._features),
                "weight": self._weights.copy(),
                "std_beta": table["std_beta"].to_numpy(),
                "influence": table["influence"].to_numpy(),
                "influence_ratio": ratio,
            }
        )


def ep_model_from_state(
    state: SampleState, features: list, weights: dict | None = None
) -> LinearScoringModel:
    """The EP model of :meth:`LinearScoringModel.fit_ep` from its :class:`SampleState`
    (``weights``: from :func:`check_fixed_weights`); the warnings and errors about the whole
    training sample are raised here."""
    p = len(features)
    report_complete(state.n, state.n_input, "feature value or human score", p + 2, "EP fitting")
    stats = _Regression.from_state(state)
    constant = (state.low == state.high) | ~(np.append(stats.sds, stats.sd_y) > 0)
    if constant[:p].any():
        bad = features[int(np.argmax(constant[:p]))]
        raise InvalidInputError(
            f"Feature {bad!r} is constant in the training sample; drop it from `features=`."
        )
    if constant[p]:
        raise InvalidInputError(
            "The human scores of the training sample are all equal (SD 0): no OLS "
            "weights can be estimated and every scaled score would be the same. "
            "Use essays that differ in quality."
        )
    if weights is None:
        betas = stats.std_betas()
        if not betas.sum() > 1e-12 * np.abs(betas).sum():
            raise InvalidInputError(
                f"The OLS weights of the features {features!r} sum to {float(betas.sum()):.4g}, so they "
                "cannot be made relative (divided by their sum). The features mostly predict the human "
                "score negatively: reverse the sign of such features or pass fixed `weights=`."
            )
        weights = dict(zip(features, betas))
    return LinearScoringModel(
        weights,
        stats.means,
        stats.sds,
        intercorrelations=stats.corr,
        z_mean=0.0,
        scale_mean=float(state.means[p]),
        scale_sd=stats.sd_y,
    )


def predetermined_model(model=None, weights=None, means=None, sds=None) -> LinearScoringModel:
    """The predetermined (PP) model of :func:`fit_pp`: ``model``, or one built from
    ``weights``, ``means`` and ``sds`` (all three)."""
    given = [
        name for name, value in (("weights", weights), ("means", means), ("sds", sds)) if value is not None
    ]
    if model is None:
        if len(given) != 3:
            raise InvalidInputError(
                "Pass the predetermined parameters: either `model=` (a "
                "LinearScoringModel) or all of `weights=`, `means=` and `sds=`."
            )
        return LinearScoringModel(weights, means, sds)
    if given:
        raise InvalidInputError(
            f"Pass either `model=` or {given!r}, not both: the model already holds its weights, "
            "means and SDs."
        )
    if not isinstance(model, LinearScoringModel):
        raise InvalidInputError(f"`model=` must be a LinearScoringModel; got {type(model).__name__}.")
    return model


def check_fixed_weights(weights, features: list) -> dict | None:
    """The fixed weights of an EP fit as a mapping in feature order (None: OLS weights)."""
    if weights is None:
        return None
    if isinstance(weights, pd.Series):
        weights = weights.to_dict()
    if not isinstance(weights, Mapping) or set(weights) != set(features):
        raise InvalidInputError(
            f"`weights=` must be a mapping with exactly the features {features!r} as keys."
        )
    return {name: weights[name] for name in features}
