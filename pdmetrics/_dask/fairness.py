"""``ddf.fairness``: the fairness tables on dask DataFrames, partition by partition.

Every method checks its column names on the frame's meta and its options, then runs the
core's ``<table>_state`` on each partition and ``<table>_from_state`` once on the combined
state (:func:`pdmetrics.engines.dask.partition_table`).
"""

from __future__ import annotations

from functools import partial

from pdmetrics._dask.base import DaskAccessor
from pdmetrics._division import check_zero_division
from pdmetrics._renamed import renamed
from pdmetrics._resampling import check_bootstrap_options
from pdmetrics.accessors.fairness import FairnessAccessor
from pdmetrics.engines.dask import partition_table
from pdmetrics.fairness.association import context_association_from_state, context_association_state
from pdmetrics.fairness.averages import average_from_state, average_state
from pdmetrics.fairness.group_rates import (
    by_group_columns,
    by_group_from_state,
    group_counts_state,
    group_disparity_from_state,
)
from pdmetrics.fairness.language import language_accuracy_from_state, language_accuracy_state
from pdmetrics.fairness.llm import (
    counterfactual_from_state,
    counterfactual_state,
    llm_fairness_from_state,
    llm_fairness_state,
    valid_answers,
)
from pdmetrics.fairness.parity import check_options, classification_from_state, classification_state
from pdmetrics.fairness.regression import score_fairness_from_state, score_fairness_state

__all__ = ["DaskFairnessAccessor"]


class DaskFairnessAccessor(DaskAccessor):
    """``ddf.fairness``: the fairness tables of :class:`pdmetrics.accessors.fairness.FairnessAccessor`,
    computed partition by partition (same arguments, same numbers, plus ``compute=``).

    """

    _name = "fairness"
    _pandas_accessor = FairnessAccessor

    @renamed("sensitive", "on_undefined", "n_boot")
    def classification(
        self,
        *,
        y_true,
        y_pred,
        by,
        pos_label=1,
        privileged=None,
        threshold=0.0,
        invert=False,
        zero_division="worst",
        n_resamples: int = 0,
        confidence: float = 0.95,
        random_state=None,
        compute: bool = True,
    ):
        """Group fairness of binary predictions (SPD, DI, AOD, EOD) of a dask DataFrame; see
        :meth:`pdmetrics.accessors.fairness.FairnessAccessor.classification` (``threshold="midrange"``
        splits at the midrange of the whole column).

        ``compute=False`` returns a :class:`dask.delayed.Delayed` of the table.
        """
        columns = {
            "y_true": self._one_name("y_true", y_true),
            "y_pred": self._one_name("y_pred", y_pred),
            "by": self._names("by", by),
        }
        zero_division = check_options(zero_division, n_resamples, confidence, random_state)
        options = {"pos_label": pos_label, "privileged": privileged, "threshold": threshold, "invert": invert}
        finalize = partial(
            classification_from_state,
            pos_label=pos_label,
            zero_division=zero_division,
            n_resamples=n_resamples,
            confidence=confidence,
            random_state=random_state,
        )
        return self._table(classification_state, columns, options, finalize, compute)

    @renamed("sensitive", "n_boot")
    def by_group(
        self,
        *,
        y_true,
        y_pred,
        by,
        pos_label=1,
        zero_division="warn",
        n_resamples: int = 0,
        confidence: float = 0.95,
        random_state=None,
        compute: bool = True,
    ):
        """Confusion counts and rates per group of a dask DataFrame; see
        :meth:`pdmetrics.accessors.fairness.FairnessAccessor.by_group` (bootstrap intervals
        come from the combined counts: the same seed gives the same intervals).

        ``compute=False`` returns a :class:`dask.delayed.Delayed` of the table.
        """
        columns = self._label_columns(y_true, y_pred, by)
        zero_division = check_zero_division(zero_division)
        check_bootstrap_options(n_resamples, confidence, random_state)
        options = {"pos_label": pos_label, "result_columns": by_group_columns(n_resamples)}
        finalize = partial(
            by_group_from_state,
            pos_label=pos_label,
            zero_division=zero_division,
            n_resamples=n_resamples,
            confidence=confidence,
            random_state=random_state,
        )
        return self._table(group_counts_state, columns, options, finalize, compute)

    @renamed("sensitive", "n_boot")
    def group_disparity(
        self,
        *,
        y_true,
        y_pred,
        by,
        pos_label=1,
        n_resamples: int = 0,
        confidence: float = 0.95,
        random_state=None,
        compute: bool = True,
    ):
        """Differences and ratios of the groups' rates of a dask DataFrame; see
        :meth:`pdmetrics.accessors.fairness.FairnessAccessor.group_disparity`.

        ``compute=False`` returns a :class:`dask.delayed.Delayed` of the table.
        """
        columns = self._label_columns(y_true, y_pred, by)
        check_bootstrap_options(n_resamples, confidence, random_state)
        finalize = partial(
            group_disparity_from_state,
            pos_label=pos_label,
            n_resamples=n_resamples,
            confidence=confidence,
            random_state=random_state,
        )
        return self._table(group_counts_state, columns, {"pos_label": pos_label}, finalize, compute)

    @renamed("sensitive", "on_undefined")
    def llm_fairness(
        self,
        *,
        y_true,
        response,
        by,
        positive,
        negative,
        error=None,
        pos_label=None,
        privileged=None,
        threshold=0.0,
        invert=False,
        zero_division="worst",
        compute: bool = True,
    ):
        """Classification fairness of an LLM's two-way answers of a dask DataFrame; see
        :meth:`pdmetrics.accessors.fairness.FairnessAccessor.llm_fairness`.

        ``compute=False`` returns a :class:`dask.delayed.Delayed` of the table.
        """
        columns = {
            "y_true": self._one_name("y_true", y_true),
            "response": self._one_name("response", response),
            "by": self._names("by", by),
            "error": self._optional("error", error),
        }
        zero_division = check_options(zero_division, 0, 0.95, None)
        options = {
            "positive": positive,
            "negative": negative,
            "pos_label": pos_label,
            "privileged": privileged,
            "threshold": threshold,
            "invert": invert,
        }
        finalize = partial(llm_fairness_from_state, zero_division=zero_division)
        return self._table(llm_fairness_state, columns, options, finalize, compute)

    def context_association(
        self,
        *,
        response,
        stereotype,
        anti_stereotype,
        unrelated,
        error=None,
        by=None,
        zero_division="warn",
        compute: bool = True,
    ):
        """Context association test counts with LMS, SS and iCAT of a dask DataFrame; see
        :meth:`pdmetrics.accessors.fairness.FairnessAccessor.context_association` (a bad
        option number is refused naming its row in the whole frame).

        ``compute=False`` returns a :class:`dask.delayed.Delayed` of the table.
        """
        columns = {
            "response": self._one_name("response", response),
            "stereotype": self._one_name("stereotype", stereotype),
            "anti_stereotype": self._one_name("anti_stereotype", anti_stereotype),
            "unrelated": self._one_name("unrelated", unrelated),
            "error": self._optional("error", error),
            "by": None if by is None else self._names("by", by),
        }
        zero_division = check_zero_division(zero_division)
        finalize = partial(context_association_from_state, zero_division=zero_division)
        return self._table(context_association_state, columns, {}, finalize, compute)

    def counterfactual(
        self,
        *,
        prediction,
        counterfactual,
        by=None,
        valid=None,
        error=None,
        counterfactual_error=None,
        zero_division="warn",
        compute: bool = True,
    ):
        """Change rate of the answers between each prompt and its counterfactual twin, of a dask
        DataFrame; see :meth:`pdmetrics.accessors.fairness.FairnessAccessor.counterfactual`.

        ``compute=False`` returns a :class:`dask.delayed.Delayed` of the table.
        """
        columns = {
            "prediction": self._one_name("prediction", prediction),
            "counterfactual": self._one_name("counterfactual", counterfactual),
            "by": None if by is None else self._names("by", by),
            "error": self._optional("error", error),
            "counterfactual_error": self._optional("counterfactual_error", counterfactual_error),
        }
        zero_division = check_zero_division(zero_division)
        options = {"valid": None if valid is None else valid_answers(valid)}
        finalize = partial(counterfactual_from_state, zero_division=zero_division)
        return self._table(counterfactual_state, columns, options, finalize, compute)

    def language_accuracy(
        self, *, response, answer, options, error=None, by=None, zero_division="warn", compute: bool = True
    ):
        """Format error rate and accuracy of multiple-choice answers of a dask DataFrame; see
        :meth:`pdmetrics.accessors.fairness.FairnessAccessor.language_accuracy`.

        ``compute=False`` returns a :class:`dask.delayed.Delayed` of the table.
        """
        fixed = isinstance(options, (list, tuple))
        columns = {
            "response": self._one_name("response", response),
            "answer": self._one_name("answer", answer),
            "options": None if fixed else self._one_name("options", options),
            "error": self._optional("error", error),
            "by": None if by is None else self._names("by", by),
        }
        zero_division = check_zero_division(zero_division)
        chosen = {"options": list(options)} if fixed else {}
        if fixed:
            del columns["options"]
        finalize = partial(language_accuracy_from_state, zero_division=zero_division)
        return self._table(language_accuracy_state, columns, chosen, finalize, compute)

    def average_metrics(self, *, metrics=None, by=None, compute: bool = True):
        """Mean of each metric over the rows of a dask DataFrame, NaN skipped; see
        :meth:`pdmetrics.accessors.fairness.FairnessAccessor.average_metrics` (the columns
        are chosen from the frame's dtypes).

        ``compute=False`` returns a :class:`dask.delayed.Delayed` of the table.
        """
        chosen = average_state(self._frame._meta, metrics, by)  # the columns, checked on no rows
        chunk = partial(_average_chunk, metrics, by)
        return partition_table(self._frame, [*chosen.by, *chosen.names], chunk, average_from_state, compute)

    def score_fairness(self, *, human, system, by, base_group=None, compute: bool = True):
        """Score fairness metrics (OSA, OSD, CSD) per group column of a dask DataFrame; see
        :meth:`pdmetrics.accessors.fairness.FairnessAccessor.score_fairness`. The models are
        fitted once, from the per-partition moments of each group x human score cell.

        ``compute=False`` returns a :class:`dask.delayed.Delayed` of the table.
        """
        return self._score_fairness(human, system, by, base_group, 0, compute)

    def score_fairness_estimates(self, *, human, system, by, base_group=None, compute: bool = True):
        """Coefficients of the score fairness models of a dask DataFrame; see
        :meth:`pdmetrics.accessors.fairness.FairnessAccessor.score_fairness_estimates`.

        ``compute=False`` returns a :class:`dask.delayed.Delayed` of the table.
        """
        return self._score_fairness(human, system, by, base_group, 1, compute)

    def _score_fairness(self, human, system, by, base_group, which: int, compute: bool):
        columns = {
            "human": self._one_name("human", human),
            "system": self._one_name("system", system),
            "by": self._names("by", by),
        }
        finalize = partial(
            _score_fairness_table,
            which=which,
            base_group=base_group,
            human=columns["human"],
            system=columns["system"],
        )
        return self._table(score_fairness_state, columns, {}, finalize, compute)

    def _label_columns(self, y_true, y_pred, by) -> dict:
        return {
            "y_true": self._one_name("y_true", y_true),
            "y_pred": self._one_name("y_pred", y_pred),
            "by": self._names("by", by),
        }

    def _optional(self, argument: str, name):
        return None if name is None else self._one_name(argument, name)

    def _table(self, state, columns: dict, options: dict, finalize, compute: bool):
        """``finalize`` of the combined ``state(**columns of each partition, **options)``."""
        names = [name for value in columns.values() if value is not None for name in _as_list(value)]
        chunk = partial(_chunk, state, columns, options)
        return partition_table(self._frame, names, chunk, finalize, compute)


def _as_list(value) -> list:
    return value if isinstance(value, list) else [value]


def _chunk(state, columns: dict, options: dict, part):
    """One partition's state: each argument its column (a list of names: a list of columns)."""
    arguments = {
        argument: None
        if name is None
        else [part[one] for one in name]
        if isinstance(name, list)
        else part[name]
        for argument, name in columns.items()
    }
    return state(**arguments, **options)


def _average_chunk(metrics, by, part):
    return average_state(part, metrics, by)


def _score_fairness_table(state, which: int, base_group, human, system):
    return score_fairness_from_state(state, base_group, human, system)[which]
