"""``ddf.scoring`` on dask DataFrames: true scores (PRMSE) and the on-the-fly scoring model.

:class:`DaskModelMethods` is a mixin of :class:`pdmetrics._dask.scoring.DaskScoringAccessor`.
The tables and fits run partition by partition through
:func:`pdmetrics._dask.driver.partition_table` with the core's additive states
(:mod:`pdmetrics.scoring.true_scores`, :mod:`pdmetrics.scoring.model`): one pass over the
data, the same numbers as the pandas path. The new score columns (``weighted_score``,
``predict``) are added lazily, partition by partition.
"""

from __future__ import annotations

from functools import partial

from pdmetrics._dask.driver import partition_table
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
        :meth:`pdmetrics.scoring.accessor.ScoringAccessor.true_score`.

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


def _true_score_chunk(systems: list, raters: list, exclude_zero: bool, part):
    return true_score_state(part[systems], part[raters], exclude_zero)
