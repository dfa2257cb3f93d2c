"""``ddf.scoring`` on dask DataFrames: true scores (PRMSE) and the on-the-fly scoring model.

:class:`DaskModelMethods` is a mixin of :class:`pdmetrics._dask.scoring.DaskScoringAccessor`.
The tables and fits run partition by partition through
:func:`pdmetrics.engines.dask.partition_table` with the core's additive states
(:mod:`pdmetrics.scoring.true_scores`, :mod:`pdmetrics.scoring.model`): one pass over the
data, the same numbers as the pandas path. The new score columns (``weighted_score``,
``predict``) are added lazily, partition by partition.
"""

from __future__ import annotations

from functools import partial

from pdmetrics._validation import as_list
from pdmetrics.engines.dask import partition_table
from pdmetrics.errors import InvalidInputError
from pdmetrics.scoring.model import (
    LinearScoringModel,
    check_fixed_weights,
    ep_model_from_state,
    ep_state,
    feature_distribution_from_state,
    feature_state,
    predetermined_model,
    weighted_score,
    weighted_score_model,
)
from pdmetrics.scoring.scored_rows import check_distinct_columns, check_exclude_zero
from pdmetrics.scoring.true_scores import check_error_variance, true_score_from_state, true_score_state

__all__ = ["DaskModelMethods"]


class DaskModelMethods:
    """True scores and the on-the-fly scoring model on a dask DataFrame (a mixin of the
    dask ``scoring`` accessor: ``self._frame`` is the dask DataFrame, ``self._names`` checks
    column names on its meta)."""

    def true_score(
        self, *, system, raters, rater_error_variance=None, exclude_zero: bool = True, compute: bool = True
    ):
        """RSMTool's ``true_score_eval`` table (PRMSE) of a dask DataFrame, in one pass; see
        :meth:`pdmetrics.accessors.scoring.ScoringAccessor.true_score`.

        ``compute=False`` returns a :class:`dask.delayed.Delayed` of the table.
        """
        systems = self._names("system", system)
        rater_columns = self._names("raters", raters)
        check_exclude_zero(exclude_zero)
        if rater_error_variance is not None:
            rater_error_variance = check_error_variance(rater_error_variance, "rater_error_variance")
        check_distinct_columns(raters=rater_columns, system=systems)
        chunk = partial(_true_score_chunk, systems, rater_columns, exclude_zero)
        finalize = partial(
            true_score_from_state,
            raters=rater_columns,
            rater_error_variance=rater_error_variance,
            exclude_zero=exclude_zero,
        )
        return partition_table(self._frame, [*systems, *rater_columns], chunk, finalize, compute)

    # ----------------------------------------------------------------------------------
    # the on-the-fly scoring model (Attali 2007)
    # ----------------------------------------------------------------------------------
    def weighted_score(self, *, features, means=None, sds=None, name: str = "Z"):
        """The standardized weighted score column, added lazily partition by partition; see
        :meth:`pdmetrics.accessors.scoring.ScoringAccessor.weighted_score`.

        Returns a new dask DataFrame. Feature means and SDs not given come from one pass
        over the frame, now.
        """
        if not isinstance(name, str):
            raise InvalidInputError(f"`name={name!r}` must be a string.")
        model = weighted_score_model(
            features, means, sds, frame=self._frame._meta, estimate=self._feature_distribution
        )
        meta = weighted_score(self._frame._meta, features=model, name=name)
        return self._frame.map_partitions(_weighted_score, model, name, meta=meta)

    def predict(self, *, model, name: str = "e_score", z_name: str | None = None):
        """Score every row with a scaled :class:`~pdmetrics.scoring.LinearScoringModel`, lazily
        partition by partition: ``model.predict`` (see
        :meth:`pdmetrics.scoring.LinearScoringModel.predict`) on each partition.

        Returns a new dask DataFrame with the ``name`` column (and ``z_name``) appended.
        """
        if not isinstance(model, LinearScoringModel):
            raise InvalidInputError(
                "`model=` must be a LinearScoringModel (from `fit_ep` or `fit_pp`); "
                f"got {type(model).__name__}."
            )
        meta = model.predict(self._frame._meta, name=name, z_name=z_name)  # checked before any work
        return self._frame.map_partitions(_predicted, model, name, z_name, meta=meta)

    def fit_pp(self, *, human, model=None, weights=None, means=None, sds=None, compute: bool = True):
        """Fit the scaling of a predetermined-parameter (PP) model on this scaling sample, in
        one pass; see :meth:`pdmetrics.accessors.scoring.ScoringAccessor.fit_pp`.

        ``compute=False`` returns a :class:`dask.delayed.Delayed` of the model.
        """
        model = predetermined_model(model, weights, means, sds)
        humans = self._names("human", as_list(human, "human"))
        chunk = partial(model.scaling_state, human=humans)
        return partition_table(
            self._frame, [*model.features, *humans], chunk, model.scaled_from_state, compute
        )

    def fit_ep(self, *, features, human, weights=None, compute: bool = True):
        """Fit an estimated-parameter (EP) model on this training sample, in one pass (means and
        centred cross-products of the features and the human score); see
        :meth:`pdmetrics.accessors.scoring.ScoringAccessor.fit_ep`.

        ``compute=False`` returns a :class:`dask.delayed.Delayed` of the model.
        """
        names = self._names("features", as_list(features, "features"))
        humans = self._names("human", as_list(human, "human"))
        weights = check_fixed_weights(weights, names)
        chunk = partial(ep_state, features=names, human=humans)
        finalize = partial(ep_model_from_state, features=names, weights=weights)
        return partition_table(self._frame, [*names, *humans], chunk, finalize, compute)

    def _feature_distribution(self, names: list):
        """The feature means and SDs of the frame (one pass), for :meth:`weighted_score`."""
        chunk = partial(feature_state, features=names)
        return partition_table(
            self._frame, names, chunk, partial(feature_distribution_from_state, features=names)
        )


def _weighted_score(part, model, name: str):
    return weighted_score(part, features=model, name=name)


def _predicted(part, model, name: str, z_name):
    return model.predict(part, name=name, z_name=z_name)


def _true_score_chunk(systems: list, raters: list, exclude_zero: bool, part):
    # mappings of name -> Series: one column at a time costs less than selecting sub-frames
    return true_score_state(
        {name: part[name] for name in systems}, {name: part[name] for name in raters}, exclude_zero
    )
