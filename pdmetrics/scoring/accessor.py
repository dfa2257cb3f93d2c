"""The ``df.scoring`` accessor."""

from __future__ import annotations

import pandas as pd


@pd.api.extensions.register_dataframe_accessor("scoring")
class ScoringAccessor:
    """Scoring-engine evaluation on a DataFrame: ``df.scoring.<method>(...)``.

    The accessor holds only the DataFrame; every method returns a new DataFrame and
    leaves the caller's frame unchanged.
    """

    def __init__(self, frame: pd.DataFrame) -> None:
        self._frame = frame

    # on-the-fly scoring models (Attali 2007)
    def weighted_score(self, *, features, means=None, sds=None, name: str = "Z") -> pd.DataFrame:
        r"""Append the standardized weighted score :math:`Z = \sum_i w_i (x_i - \mu_i)/\sigma_i`.

        Parameters
        ----------
        features : mapping of str to float, or LinearScoringModel
            Feature column -> weight (made relative: divided by the sum), or a model whose
            weights, means and SDs are used.
        means, sds : mapping, sequence or float, optional
            Feature means and SDs for standardization. Default: this frame's own means and
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
        >>> import pdmetrics
        >>> df = pd.DataFrame({"A": [110.0, 90.0], "B": [0.35, 0.30]})
        >>> df.scoring.weighted_score(features={"A": 0.7, "B": 0.3}, means={"A": 100, "B": 0.3},
        ...                           sds={"A": 10, "B": 0.1})
               A     B     Z
        0  110.0  0.35  0.85
        1   90.0  0.30 -0.70
        """
        from pdmetrics._validation import require_columns
        from pdmetrics.errors import InvalidInputError
        from pdmetrics.scoring.model import LinearScoringModel, _feature_matrix

        if isinstance(features, LinearScoringModel):
            if means is not None or sds is not None:
                raise InvalidInputError("Pass `means=`/`sds=` only with a mapping of weights; a model "
                                        "already holds them.")
            model = features
        else:
            if not isinstance(features, (dict, pd.Series)) or len(features) == 0:
                raise InvalidInputError(f"`features={features!r}` must be a mapping of feature column -> "
                                        "weight, or a LinearScoringModel.")
            names = require_columns(self._frame, "features", list(features))
            if means is None or sds is None:
                x = pd.DataFrame(_feature_matrix(self._frame, names), columns=names)
                if int(x.notna().all(axis=1).sum()) < 2:
                    raise InvalidInputError(
                        "weighted_score estimates the feature means and SDs from the frame, which needs "
                        f"at least 2 rows with every feature; got {len(x)} rows. Pass `means=` and `sds=`.")
                means = x.mean() if means is None else means
                sds = x.std(ddof=1) if sds is None else sds
            model = LinearScoringModel(dict(features), means, sds)
        if not isinstance(name, str):
            raise InvalidInputError(f"`name={name!r}` must be a string.")
        return self._frame.assign(**{name: model.standardized_scores(self._frame).to_numpy()})

    def fit_pp(self, *, human, model=None, weights=None, means=None, sds=None):
        """Fit the scaling of a predetermined-parameter (PP) model on this scaling sample.

        Keeps the predetermined weights and feature distributions and estimates only the
        scaling (Equations 2-3), so that this frame's scaled scores have its human mean
        and SD. See :meth:`pdmetrics.scoring.LinearScoringModel.fit_scaling`.

        Parameters
        ----------
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
        >>> import pdmetrics
        >>> bench = pd.DataFrame({"A": [95, 110, 102, 120], "B": [0.2, 0.35, 0.3, 0.5],
        ...                       "h1": [2, 4, 3, 6], "h2": [3, 5, 3, 5]})
        >>> pp = bench.scoring.fit_pp(weights={"A": 70, "B": 30}, means={"A": 100, "B": 0.3},
        ...                           sds={"A": 10, "B": 0.1}, human=["h1", "h2"])
        >>> round(pp.scale_mean, 3), round(pp.scale_sd, 3)
        (3.875, 1.377)
        >>> pp.predict(bench).round(2)
             A     B  h1  h2  e_score
        0   95  0.20   2   3     2.36
        1  110  0.35   4   5     4.20
        2  102  0.30   3   3     3.33
        3  120  0.50   6   5     5.61
        """
        from pdmetrics.errors import InvalidInputError
        from pdmetrics.scoring.model import LinearScoringModel

        given = [name for name, value in (("weights", weights), ("means", means), ("sds", sds))
                 if value is not None]
        if model is None:
            if len(given) != 3:
                raise InvalidInputError("Pass the predetermined parameters: either `model=` (a "
                                        "LinearScoringModel) or all of `weights=`, `means=` and `sds=`.")
            model = LinearScoringModel(weights, means, sds)
        elif given:
            raise InvalidInputError(f"Pass either `model=` or {given!r}, not both: the model already holds "
                                    "its weights, means and SDs.")
        elif not isinstance(model, LinearScoringModel):
            raise InvalidInputError(f"`model=` must be a LinearScoringModel; got {type(model).__name__}.")
        return model.fit_scaling(self._frame, human=human)

    def fit_ep(self, *, features, human, weights=None):
        """Fit an estimated-parameter (EP) model on this training sample.

        Means, SDs, intercorrelations, OLS relative weights (or the fixed ``weights=``)
        and the scaling all come from this frame. See
        :meth:`pdmetrics.scoring.LinearScoringModel.fit_ep`.

        Parameters
        ----------
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
        >>> import pdmetrics
        >>> from pdmetrics.datasets import simulate_essays
        >>> df = simulate_essays(2000, n_features=3, true_weights=[0.5, 0.3, 0.2], seed=1)
        >>> ep = df.scoring.fit_ep(features=["f1", "f2", "f3"], human=["h1", "h2"])
        >>> ep.weights.round(1).tolist()
        [0.5, 0.3, 0.2]
        """
        from pdmetrics.scoring.model import LinearScoringModel

        return LinearScoringModel.fit_ep(self._frame, features=features, human=human, weights=weights)
