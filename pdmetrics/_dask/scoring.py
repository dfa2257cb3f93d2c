"""``ddf.scoring``: the scoring tables on dask DataFrames, partition by partition."""

from __future__ import annotations

from functools import partial

import pandas as pd

from pdmetrics._dask.base import DaskAccessor
from pdmetrics._dask.scoring_model import DaskModelMethods
from pdmetrics._table_spec import Several
from pdmetrics._validation import require_columns
from pdmetrics.accessors.scoring import ScoringAccessor
from pdmetrics.engines.dask import is_dask_frame, partition_table
from pdmetrics.scoring.postprocessing import (
    DEFAULT_TRIM_TOLERANCE,
    check_scale_with,
    check_trim_range,
    scaling_from_frame,
    scaling_from_state,
    scaling_state,
)
from pdmetrics.scoring.scored_rows import (
    check_flat_names,
    check_listed_once,
)

__all__ = ["DaskScoringAccessor"]


class DaskScoringAccessor(DaskModelMethods, DaskAccessor, ScoringAccessor):
    """``ddf.scoring``: the scoring tables of :class:`pdmetrics.accessors.scoring.ScoringAccessor`,
    computed partition by partition (same arguments, same numbers, plus ``compute=``)."""

    _name = "scoring"
    _pandas_accessor = ScoringAccessor

    def _names(self, argument: str, names) -> list:
        """Checked column names, each listed once (as the pandas accessor refuses
        ``by=["L1", "L1"]`` and ``system=["raw", "raw"]``)."""
        names = super()._names(argument, names)
        check_listed_once(names, argument)
        return names

    def postprocess(
        self,
        *,
        system,
        trim_min: float,
        trim_max: float,
        trim_tolerance: float = DEFAULT_TRIM_TOLERANCE,
        scale_with=None,
        human=None,
    ):
        """RSMTool's derived score columns, added lazily partition by partition; see
        :meth:`pdmetrics.accessors.scoring.ScoringAccessor.postprocess`.

        Returns a new dask DataFrame (nothing is computed). ``scale_with`` may also be a dask
        DataFrame of training scores: its means and SDs come from one pass over it, now.
        """
        names = self._names("system", system)
        check_trim_range(trim_min, trim_max, trim_tolerance)
        check_flat_names(names, "system", "postprocess (it names new columns after them)")
        if is_dask_frame(scale_with):
            scalings = _training_scalings(scale_with, human, names)
        elif isinstance(scale_with, pd.DataFrame):
            scalings = {name: scaling_from_frame(scale_with, human, name) for name in names}
        else:
            scalings = dict.fromkeys(names, check_scale_with(scale_with, human))
        options = (names, trim_min, trim_max, trim_tolerance, scalings)
        meta = _postprocessed(self._frame._meta, *options)
        return self._frame.map_partitions(_postprocessed, *options, meta=meta)


def _postprocessed(part: pd.DataFrame, names: list, trim_min, trim_max, trim_tolerance, scalings: dict):
    """One partition with the derived scores of each system column (the pandas accessor's)."""
    for name in names:
        part = part.scoring.postprocess(
            system=name,
            trim_min=trim_min,
            trim_max=trim_max,
            trim_tolerance=trim_tolerance,
            scale_with=scalings[name],
        )
    return part


def _training_scalings(train, human, names: list) -> dict:
    """Each system column's scaling parameters from a dask training frame, in one pass."""
    columns = [*require_columns(train._meta, "human", human), *require_columns(train._meta, "system", names)]
    chunk = partial(_scaling_chunk, human, names)
    return dict(zip(names, partition_table(train, columns, chunk, _scalings_from_state)))


def _scaling_chunk(human, names: list, part) -> Several:
    return Several(scaling_state(part[human], part[name]) for name in names)


def _scalings_from_state(states: Several) -> list:
    return [scaling_from_state(state) for state in states]
