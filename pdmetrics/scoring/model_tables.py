"""The frame-level functions of the linear scoring models: ``df.scoring.weighted_score``,
``predict``, ``fit_pp`` and ``fit_ep`` (Attali, 2007).

Each is a table spec (:mod:`pdmetrics._table_spec`) over :class:`~pdmetrics.scoring.LinearScoringModel`
and the additive statistics of :mod:`pdmetrics.scoring.model_states`: the fits are
:class:`~pdmetrics._table_spec.Table` specs whose result is the fitted model (one pass over a
dask frame's partitions), the score columns :class:`~pdmetrics._table_spec.NewColumns` (added
part by part, lazily on dask).
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._table_spec import ColumnsAfterTable, NewColumns, Table, table
from pdmetrics._validation import as_list, require_columns
from pdmetrics.errors import InvalidInputError
from pdmetrics.scoring.model import (
    LinearScoringModel,
    check_fixed_weights,
    ep_model_from_state,
    predetermined_model,
)
from pdmetrics.scoring.model_states import ep_state, feature_distribution_from_state, feature_state

__all__ = ["fit_ep", "fit_pp", "predict", "weighted_score", "weighted_score_model"]


@table
def weighted_score(frame, *, features, means=None, sds=None, name: str = "Z"):
    r"""Append the standardized weighted score :math:`Z = \sum_i w_i (x_i - \mu_i)/\sigma_i`.

    Parameters
    ----------
    frame : DataFrame
        One row per essay, with the feature columns (pandas; dask and polars frames run the
        same columns, a dask frame part by part: its feature means and SDs, when estimated,
        from one pass over it first).
    features : mapping of str to float, or LinearScoringModel
        Feature column -> weight (made relative: divided by the sum), or a model whose
        weights, means and SDs are used.
    means, sds : mapping, sequence or float, optional
        Feature means and SDs for standardization. Default: the frame's own means and
        SDs (``ddof=1``). Not allowed together with a model.
    name : str, default "Z"
        Name of the new column.

    Returns
    -------
    pandas.DataFrame
        A copy of the frame with the column appended (a column of the same name is
        replaced). Rows with a missing feature get NaN.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.scoring import weighted_score
    >>> df = pd.DataFrame({"A": [110.0, 90.0], "B": [0.35, 0.30]})
    >>> weighted_score(df, features={"A": 0.7, "B": 0.3}, means={"A": 100, "B": 0.3},
    ...                sds={"A": 10, "B": 0.1})
           A     B     Z
    0  110.0  0.35  0.85
    1   90.0  0.30 -0.70
    """
    if not isinstance(name, str):
        raise InvalidInputError(f"`name={name!r}` must be a string.")
    fixed = weighted_score_model(features, means, sds, frame=frame)
    if fixed is not None:
        return _weighted_columns(name, fixed)
    weights = dict(features)
    names = require_columns(frame, "features", list(weights))
    statistics = Table(
        names,
        partial(feature_state, features=names),
        partial(feature_distribution_from_state, features=names),
    )
    then = partial(_estimated_model, weights, means, sds, name)
    return ColumnsAfterTable(names, None, statistics, then)


def _estimated_model(weights: dict, means, sds, name: str, estimated: tuple) -> NewColumns:
    means = estimated[0] if means is None else means
    sds = estimated[1] if sds is None else sds
    return _weighted_columns(name, LinearScoringModel(weights, means, sds))


def _weighted_columns(name: str, model: LinearScoringModel) -> NewColumns:
    return NewColumns(list(model.features), partial(_standardized, model, name))


def _standardized(model: LinearScoringModel, name: str, part: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({name: model.standardized_scores(part).to_numpy()}, index=part.index)


def weighted_score_model(features, means=None, sds=None, *, frame) -> LinearScoringModel | None:
    """The (unscaled) model whose standardized scores :func:`weighted_score` appends, checked on
    ``frame`` (or its empty schema); None when the feature means or SDs are to be estimated from
    the frame (its weights and feature names checked already)."""
    if isinstance(features, LinearScoringModel):
        if means is not None or sds is not None:
            raise InvalidInputError(
                "Pass `means=`/`sds=` only with a mapping of weights; a model already holds them."
            )
        features.standardized_scores(frame.iloc[:0])  # its feature columns checked on no rows
        return features
    if not isinstance(features, (dict, pd.Series)) or len(features) == 0:
        shown = type(features).__name__ if isinstance(features, (pd.DataFrame, np.ndarray)) else features
        raise InvalidInputError(
            f"`features={shown!r}` must be a mapping of feature column -> weight, or a LinearScoringModel."
        )
    weights = dict(features)
    require_columns(frame, "features", list(weights))
    LinearScoringModel(weights, 0.0, 1.0)  # the weights checked before any data is read
    if means is None or sds is None:
        return None
    return LinearScoringModel(weights, means, sds)


@table
def predict(frame, *, model, name: str = "e_score", z_name: str | None = None):
    """Score every row with a scaled :class:`~pdmetrics.scoring.LinearScoringModel`.

    The frame-level form of :meth:`LinearScoringModel.predict
    <pdmetrics.scoring.LinearScoringModel.predict>`, for every engine (on dask: lazily, part by
    part).

    Parameters
    ----------
    frame : DataFrame
        The essays, with every feature column of the model.
    model : LinearScoringModel
        A scaled model (from :func:`fit_ep` or :func:`fit_pp`).
    name, z_name : str
        The new columns' names: the scaled score :math:`E` (default ``"e_score"``) and, when
        given, the standardized weighted score :math:`Z`.

    Returns
    -------
    pandas.DataFrame
        A copy of the frame with the column(s) appended (a column of the same name is
        replaced). Rows with a missing feature get NaN.

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> from pdmetrics.scoring import LinearScoringModel
    >>> m = LinearScoringModel({"A": 70, "B": 30}, means={"A": 100, "B": 0.3}, sds={"A": 10, "B": 0.1},
    ...                        intercorrelations=0.5, scale_mean=3.5, scale_sd=1.2)
    >>> pd.DataFrame({"A": [110.0, 90.0], "B": [0.35, 0.30]}).scoring.predict(model=m).round(2)
           A     B  e_score
    0  110.0  0.35     4.65
    1   90.0  0.30     2.55
    """
    if not isinstance(model, LinearScoringModel):
        raise InvalidInputError(
            f"`model=` must be a LinearScoringModel (from `fit_ep` or `fit_pp`); got {type(model).__name__}."
        )
    model.predict(frame.iloc[:0], name=name, z_name=z_name)  # checked on no rows
    return NewColumns(list(model.features), partial(_predicted, model, name, z_name))


def _predicted(model: LinearScoringModel, name: str, z_name, part: pd.DataFrame) -> pd.DataFrame:
    new = [name] if z_name is None else [z_name, name]
    return model.predict(part[list(model.features)], name=name, z_name=z_name)[new]


@table
def fit_pp(frame, *, human, model=None, weights=None, means=None, sds=None):
    """Fit the scaling of a predetermined-parameter (PP) model on a scaling sample.

    Keeps the predetermined weights and feature distributions and estimates only the
    scaling (Equations 2-3), so that the frame's scaled scores have its human mean and SD.
    See :meth:`LinearScoringModel.fit_scaling`.

    Parameters
    ----------
    frame : DataFrame
        The scaling sample: human-scored benchmark essays with the feature columns (pandas,
        dask: one pass over the partitions, or polars).
    human : str or list of str
        Human score column, or rater columns averaged per essay.
    model : LinearScoringModel, optional
        The predetermined parameters (from an earlier EP model or expert judgment).
    weights, means, sds : mapping, optional
        Instead of ``model``: feature column -> weight, and the assumed feature means
        and SDs (mappings, sequences in weight order, or single numbers).

    Returns
    -------
    LinearScoringModel
        The scaled model; score new essays with ``model.predict(new_df)``.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.scoring import fit_pp
    >>> bench = pd.DataFrame({"A": [95, 110, 102, 120], "B": [0.2, 0.35, 0.3, 0.5],
    ...                       "h1": [2, 4, 3, 6], "h2": [3, 5, 3, 5]})
    >>> pp = fit_pp(bench, weights={"A": 70, "B": 30}, means={"A": 100, "B": 0.3},
    ...             sds={"A": 10, "B": 0.1}, human=["h1", "h2"])
    >>> round(pp.scale_mean, 3), round(pp.scale_sd, 3)
    (3.875, 1.377)
    """
    model = predetermined_model(model, weights, means, sds)
    require_columns(frame, "features", list(model.features))
    humans = require_columns(frame, "human", as_list(human, "human"))
    return Table(
        [*model.features, *humans], partial(model.scaling_state, human=humans), model.scaled_from_state
    )


@table
def fit_ep(frame, *, features, human, weights=None):
    """Fit an estimated-parameter (EP) model on a training sample.

    Means, SDs, intercorrelations, OLS relative weights (or the fixed ``weights=``) and
    the scaling all come from the frame; see :meth:`LinearScoringModel.fit_ep`.

    Parameters
    ----------
    frame : DataFrame
        The training sample (pandas, dask: one pass over the partitions, or polars).
    features : list of str
        Feature columns.
    human : str or list of str
        Human score column, or rater columns averaged per essay.
    weights : mapping, optional
        Fixed weights (the paper's semi-optimal EP model); default OLS.

    Returns
    -------
    LinearScoringModel

    Examples
    --------
    >>> from pdmetrics.datasets import simulate_essays
    >>> from pdmetrics.scoring import fit_ep
    >>> df = simulate_essays(2000, n_features=3, true_weights=[0.5, 0.3, 0.2], seed=1)
    >>> fit_ep(df, features=["f1", "f2", "f3"], human=["h1", "h2"]).weights.round(1).tolist()
    [0.5, 0.3, 0.2]
    """
    names = require_columns(frame, "features", as_list(features, "features"))
    weights = check_fixed_weights(weights, names)
    humans = require_columns(frame, "human", as_list(human, "human"))
    return Table(
        [*names, *humans],
        partial(ep_state, features=names, human=humans),
        partial(ep_model_from_state, features=names, weights=weights),
    )
