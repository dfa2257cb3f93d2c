"""``ddf.fairness``: the fairness tables on dask DataFrames, partition by partition."""

from __future__ import annotations

from functools import partial

from pdmetrics._dask.base import DaskAccessor
from pdmetrics._dask.driver import partition_table
from pdmetrics._division import check_zero_division
from pdmetrics.fairness.accessor import FairnessAccessor
from pdmetrics.fairness.bootstrap import check_bootstrap_options
from pdmetrics.fairness.group_rates import (
    by_group_columns,
    by_group_from_state,
    group_counts_state,
    group_disparity_from_state,
)
from pdmetrics.fairness.parity import check_options, classification_from_state, classification_state
from pdmetrics.fairness.regression import score_fairness_from_state, score_fairness_state

__all__ = ["DaskFairnessAccessor"]


class DaskFairnessAccessor(DaskAccessor):
    """``ddf.fairness``: the fairness tables of :class:`pdmetrics.fairness.accessor.FairnessAccessor`,
    computed partition by partition (same arguments, same numbers, plus ``compute=``)."""

    _name = "fairness"
    _pandas_accessor = FairnessAccessor

    def classification(
        self,
        *,
        y_true,
        y_pred,
        sensitive,
        pos_label=1,
        privileged=None,
        threshold=0.0,
        invert=False,
        on_undefined: str = "worst",
        zero_division="warn",
        n_boot: int = 0,
        confidence: float = 0.95,
        random_state=None,
        compute: bool = True,
    ):
        """Group fairness of binary predictions (SPD, DI, AOD, EOD) of a dask DataFrame; see
        :meth:`pdmetrics.fairness.accessor.FairnessAccessor.classification` (``threshold="midrange"``
        splits at the midrange of the whole column).

        ``compute=False`` returns a :class:`dask.delayed.Delayed` of the table.
        """
        truth, pred = self._one_name("y_true", y_true), self._one_name("y_pred", y_pred)
        columns = self._names("sensitive", sensitive)
        zero_division = check_options(on_undefined, zero_division, n_boot, confidence, random_state)
        options = {"pos_label": pos_label, "privileged": privileged, "threshold": threshold, "invert": invert}
        chunk = partial(_classification_chunk, truth, pred, columns, options)
        finalize = partial(
            classification_from_state,
            pos_label=pos_label,
            on_undefined=on_undefined,
            zero_division=zero_division,
            n_boot=n_boot,
            confidence=confidence,
            random_state=random_state,
        )
        return partition_table(self._frame, [truth, pred, *columns], chunk, finalize, compute)

    def by_group(
        self,
        *,
        y_true,
        y_pred,
        by,
        pos_label=1,
        zero_division="warn",
        n_boot: int = 0,
        confidence: float = 0.95,
        random_state=None,
        compute: bool = True,
    ):
        """Confusion counts and rates per group of a dask DataFrame; see
        :meth:`pdmetrics.fairness.accessor.FairnessAccessor.by_group` (bootstrap intervals
        come from the combined counts: the same seed gives the same intervals).

        ``compute=False`` returns a :class:`dask.delayed.Delayed` of the table.
        """
        truth, pred, groups = (
            self._one_name("y_true", y_true),
            self._one_name("y_pred", y_pred),
            self._names("by", by),
        )
        zero_division = check_zero_division(zero_division)
        check_bootstrap_options(n_boot, confidence, random_state)
        chunk = partial(_group_counts_chunk, truth, pred, groups, pos_label, by_group_columns(n_boot))
        finalize = partial(
            by_group_from_state,
            pos_label=pos_label,
            zero_division=zero_division,
            n_boot=n_boot,
            confidence=confidence,
            random_state=random_state,
        )
        return partition_table(self._frame, [truth, pred, *groups], chunk, finalize, compute)

    def group_disparity(
        self,
        *,
        y_true,
        y_pred,
        by,
        pos_label=1,
        n_boot: int = 0,
        confidence: float = 0.95,
        random_state=None,
        compute: bool = True,
    ):
        """Differences and ratios of the groups' rates of a dask DataFrame; see
        :meth:`pdmetrics.fairness.accessor.FairnessAccessor.group_disparity`.

        ``compute=False`` returns a :class:`dask.delayed.Delayed` of the table.
        """
        truth, pred, groups = (
            self._one_name("y_true", y_true),
            self._one_name("y_pred", y_pred),
            self._names("by", by),
        )
        check_bootstrap_options(n_boot, confidence, random_state)
        chunk = partial(_group_counts_chunk, truth, pred, groups, pos_label, ())
        finalize = partial(
            group_disparity_from_state,
            pos_label=pos_label,
            n_boot=n_boot,
            confidence=confidence,
            random_state=random_state,
        )
        return partition_table(self._frame, [truth, pred, *groups], chunk, finalize, compute)

    def score_fairness(self, *, human, system, by, base_group=None, compute: bool = True):
        """Score fairness metrics (OSA, OSD, CSD) per group column of a dask DataFrame; see
        :meth:`pdmetrics.fairness.accessor.FairnessAccessor.score_fairness`. The models are
        fitted once, from the per-partition moments of each group x human score cell.

        ``compute=False`` returns a :class:`dask.delayed.Delayed` of the table.
        """
        return self._score_fairness(human, system, by, base_group, 0, compute)

    def score_fairness_estimates(self, *, human, system, by, base_group=None, compute: bool = True):
        """Coefficients of the score fairness models of a dask DataFrame; see
        :meth:`pdmetrics.fairness.accessor.FairnessAccessor.score_fairness_estimates`.

        ``compute=False`` returns a :class:`dask.delayed.Delayed` of the table.
        """
        return self._score_fairness(human, system, by, base_group, 1, compute)

    def _score_fairness(self, human, system, by, base_group, which: int, compute: bool):
        human, system = self._one_name("human", human), self._one_name("system", system)
        groups = self._names("by", by)
        chunk = partial(_score_fairness_chunk, human, system, groups)
        finalize = partial(
            _score_fairness_table, which=which, base_group=base_group, human=human, system=system
        )
        return partition_table(self._frame, [human, system, *groups], chunk, finalize, compute)


def _score_fairness_chunk(human, system, groups: list, part):
    return score_fairness_state(part[human], part[system], {name: part[name] for name in groups})


def _score_fairness_table(state, which: int, base_group, human, system):
    return score_fairness_from_state(state, base_group, human, system)[which]


def _classification_chunk(truth, pred, columns: list, options: dict, part):
    return classification_state(part[truth], part[pred], [part[name] for name in columns], **options)


def _group_counts_chunk(truth, pred, groups: list, pos_label, result_columns, part):
    return group_counts_state(
        part[truth], part[pred], [part[name] for name in groups], pos_label, result_columns
    )
