"""``ddf.scoring``, ``ddf.fairness`` and ``ddf.detection`` on dask DataFrames.

Each method checks its column names on the frame's meta, then runs the core's table state
partition by partition through :func:`pdmetrics._dask.driver.partition_table`: the same
functions as the pandas accessor, with one chunk per partition. Results are ordinary pandas
DataFrames (``compute=False``: a dask Delayed of one). A method of the pandas accessor that
does not run partition by partition raises :class:`pdmetrics.errors.NotPartitionableError`
saying so and what to do.
"""

from __future__ import annotations

from functools import partial

from dask.dataframe.extensions import register_dataframe_accessor

from pdmetrics._dask.driver import partition_table
from pdmetrics._validation import preview, require_columns
from pdmetrics.detection.accessor import DetectionAccessor
from pdmetrics.errors import NotPartitionableError
from pdmetrics.fairness.accessor import FairnessAccessor
from pdmetrics.scoring.accessor import ScoringAccessor
from pdmetrics.scoring.scored_rows import check_distinct_columns, check_exclude_zero, check_flat_names
from pdmetrics.scoring.table_states import evaluation_from_state, evaluation_state
from pdmetrics.scoring.tables import (
    confusion_from_state,
    consistency_from_state,
    consistency_state,
    distribution_from_state,
    score_pair_state,
)

__all__ = ["DaskScoringAccessor", "DaskFairnessAccessor", "DaskDetectionAccessor", "register"]


class _DaskAccessor:
    """The frame, its column checks, and the refusal of the methods that need all rows at once."""

    _name = ""
    _pandas_accessor: type = object

    def __init__(self, frame) -> None:
        self._frame = frame

    def _names(self, argument: str, names) -> list:
        """Checked column names (``ColumnNotFoundError`` naming the argument)."""
        return require_columns(self._frame._meta, argument, names)

    def _one_name(self, argument: str, name):
        names = self._names(argument, name)
        if len(names) != 1:
            raise NotPartitionableError(f"`{argument}=` takes one column name; got {names!r}.")
        return names[0]

    def __getattr__(self, name: str):
        if name.startswith("_") or not hasattr(self._pandas_accessor, name):
            raise AttributeError(name)
        runs = [n for n in dir(type(self)) if not n.startswith("_")]
        raise NotPartitionableError(
            f"`ddf.{self._name}.{name}` does not run on dask DataFrames yet; on dask, "
            f"`ddf.{self._name}` runs {preview(runs)}. When the columns it needs fit in memory, "
            f"compute them first: `ddf[columns].compute().{self._name}.{name}(...)`."
        )


class DaskScoringAccessor(_DaskAccessor):
    """``ddf.scoring``: the scoring tables of :class:`pdmetrics.scoring.accessor.ScoringAccessor`,
    computed partition by partition (same arguments, same numbers, plus ``compute=``)."""

    _name = "scoring"
    _pandas_accessor = ScoringAccessor

    def evaluate(self, *, human, system, by=None, exclude_zero: bool = True, compute: bool = True):
        """RSMTool's ``eval`` table (with ``by``: ``eval_by``) of a dask DataFrame; see
        :meth:`pdmetrics.scoring.accessor.ScoringAccessor.evaluate`.

        ``compute=False`` returns a :class:`dask.delayed.Delayed` of the table.
        """
        human = self._one_name("human", human)
        systems = self._names("system", system)
        groups = [] if by is None else self._names("by", by)
        check_exclude_zero(exclude_zero)
        check_distinct_columns(human=human, system=systems)
        check_flat_names(systems if groups else [], "system", "the subgroup table")
        check_flat_names(groups, "by", "the subgroup table")
        chunk = partial(_evaluation_chunk, human, systems, groups, exclude_zero)
        finalize = partial(evaluation_from_state, human_name=human, exclude_zero=exclude_zero)
        return partition_table(self._frame, [human, *systems, *groups], chunk, finalize, compute)

    def consistency(self, *, human, second_human, exclude_zero: bool = True, compute: bool = True):
        """RSMTool's ``consistency`` table (human-human agreement) of a dask DataFrame; see
        :meth:`pdmetrics.scoring.accessor.ScoringAccessor.consistency` (``by=`` does not run
        on dask yet).

        ``compute=False`` returns a :class:`dask.delayed.Delayed` of the table.
        """
        human = self._one_name("human", human)
        second = self._one_name("second_human", second_human)
        check_exclude_zero(exclude_zero)
        check_distinct_columns(human=human, second_human=second)
        chunk = partial(_consistency_chunk, human, second, exclude_zero)
        finalize = partial(
            consistency_from_state, human_name=human, second_name=second, exclude_zero=exclude_zero
        )
        return partition_table(self._frame, [human, second], chunk, finalize, compute)

    def confusion_matrix(self, *, human, system, exclude_zero: bool = True, compute: bool = True):
        """RSMTool's ``confMatrix`` as a tidy table, of a dask DataFrame; see
        :meth:`pdmetrics.scoring.accessor.ScoringAccessor.confusion_matrix`."""
        return self._score_pairs(human, system, exclude_zero, confusion_from_state, compute)

    def score_distribution(self, *, human, system, exclude_zero: bool = True, compute: bool = True):
        """RSMTool's ``score_dist`` of a dask DataFrame; see
        :meth:`pdmetrics.scoring.accessor.ScoringAccessor.score_distribution`."""
        return self._score_pairs(human, system, exclude_zero, distribution_from_state, compute)

    def _score_pairs(self, human, system, exclude_zero, from_state, compute):
        human = self._one_name("human", human)
        systems = self._names("system", system)
        check_exclude_zero(exclude_zero)
        check_distinct_columns(human=human, system=systems)
        chunk = partial(_score_pair_chunk, human, systems, exclude_zero)
        finalize = partial(from_state, human_name=human, exclude_zero=exclude_zero)
        return partition_table(self._frame, [human, *systems], chunk, finalize, compute)


def _consistency_chunk(human, second, exclude_zero: bool, part):
    return consistency_state(part[human], part[second], exclude_zero)


def _score_pair_chunk(human, systems: list, exclude_zero: bool, part):
    return score_pair_state(part[human], {name: part[name] for name in systems}, exclude_zero)


def _evaluation_chunk(human, systems: list, groups: list, exclude_zero: bool, part):
    by = {name: part[name] for name in groups} or None
    return evaluation_state(part[human], {name: part[name] for name in systems}, by, exclude_zero)


class DaskFairnessAccessor(_DaskAccessor):
    """``ddf.fairness``: the fairness tables computed partition by partition."""

    _name = "fairness"
    _pandas_accessor = FairnessAccessor


class DaskDetectionAccessor(_DaskAccessor):
    """``ddf.detection``: the detection tables computed partition by partition."""

    _name = "detection"
    _pandas_accessor = DetectionAccessor


def register() -> None:
    """Register the three accessors on dask DataFrames (dask's own registration)."""
    for accessor in (DaskScoringAccessor, DaskFairnessAccessor, DaskDetectionAccessor):
        register_dataframe_accessor(accessor._name)(accessor)
