"""report(): RSMTool's whole evaluation as one table spec, and the state it is made of.

:func:`report` is the builder of a :class:`ReportTable`: its arguments checked on the frame's
columns (:class:`ReportOptions`), then ``chunk(rows) -> ReportState`` (one pass over the rows:
every group column encoded once, one set of work arrays for every statistic),
``state.combine(other)`` and ``finalize(state) -> EvaluationReport``
(:func:`report_from_state`: the tables, the errors and the warnings about the whole data).
On pandas the frame is one chunk, whose state also keeps its rows for the per-response tables
(built on first use); an engine that splits the rows (dask, see
:mod:`pdmetrics.engines.dask_report`) combines the partitions' states and writes the
per-response tables partition by partition (:func:`response_texts`). The report object and
its writers are in :mod:`pdmetrics.rsmeval.report_object`.
"""

from __future__ import annotations

import dataclasses
import tempfile
import warnings
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from pdmetrics._delimited import write_delimited
from pdmetrics._stats import Moments, smallest_integer_type
from pdmetrics._table_spec import Table, table
from pdmetrics._validation import numeric_values, plain, refuse_tuple_name, require_columns
from pdmetrics.errors import InvalidInputError, NotPartitionableError
from pdmetrics.fairness.regression import (
    ScoreFairnessState,
    rsmtool_fairness_tables,
    score_fairness_from_state,
    score_fairness_state_of_codes,
)
from pdmetrics.rsmeval import data as rsmeval_data
from pdmetrics.rsmeval import rsmtool_files
from pdmetrics.rsmeval.report_object import (
    STREAMED_FORMATS,
    DataBuilder,
    EvaluationReport,
    is_per_response,
    named_report,
    with_index_column,
)
from pdmetrics.scoring.conditional_scores import conditional_means_of_codes
from pdmetrics.scoring.human_baseline import degradation_from_tables, disattenuated_from_tables
from pdmetrics.scoring.metrics import kappa_labels, pair_statistics, pair_statistics_many, work_buffers
from pdmetrics.scoring.postprocessing import (
    DEFAULT_TRIM_TOLERANCE,
    check_scale_with,
    check_trim_range,
    derived_scores,
    scaling_from_frame,
)
from pdmetrics.scoring.scored_rows import (
    RowCounts,
    ScoredRows,
    check_distinct_columns,
    check_exclude_zero,
    check_listed_once,
    numeric_count,
    report_exclusions,
    select_scored_rows,
)
from pdmetrics.scoring.subgroups import (
    MISSING_GROUP,
    group_passes,
    grouped_consistency_statistics,
    grouped_statistics,
    subgroup_codes,
)
from pdmetrics.scoring.table_states import (
    ConsistencyState,
    EvaluationState,
    consistency_from_state,
    consistency_table,
    evaluation_from_state,
    evaluation_table,
)
from pdmetrics.scoring.tables import (
    ScorePairState,
    confusion_from_state,
    distribution_from_state,
    pair_counts,
)
from pdmetrics.scoring.true_scores import (
    TrueScoreState,
    check_error_variance,
    column_statistics,
    true_score_table_from_state,
)

__all__ = [
    "EvaluationReport",
    "LAYOUTS",
    "ReportOptions",
    "ReportState",
    "ReportTable",
    "report",
    "report_chunk",
    "report_from_state",
    "response_texts",
]

_RAW_TYPES = ("raw", "raw_trim", "raw_trim_round")
_SCALE_TYPES = ("scale", "scale_trim", "scale_trim_round")
# rsmeval's scale_with="raw": scaling with the defaults it starts from (mean 0, SD 1)
_IDENTITY_SCALING = {"human_mean": 0.0, "human_sd": 1.0, "system_mean": 0.0, "system_sd": 1.0}
#: report()'s ``layout``: the names its tidy tables give the scores
LAYOUTS = ("tidy", "rsmtool")
#: What runs instead of ``candidate=`` on an engine that splits the rows.
_CANDIDATES_INSTEAD = (
    "`candidate=` and `min_items_per_candidate=` need all of a candidate's responses at once (they may sit "
    "in several partitions). Compute the frame first: `report(ddf.compute(), ...)`, or leave the candidate "
    "column out."
)


# --------------------------------------------------------------------------------------
# the spec
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ReportTable(Table):
    """The report's spec: a :class:`~pdmetrics._table_spec.Table` (``columns``: every column of
    the frame, as the per-response tables show them) with its checked ``options``; ``instead``
    (empty when every row set can be split) says what runs instead on an engine that splits
    the rows."""

    options: ReportOptions | None = None
    instead: str = ""

    def refuse(self, where: str, function: str) -> NotPartitionableError:
        """The :class:`~pdmetrics.errors.NotPartitionableError` of running it on ``where``."""
        return NotPartitionableError(
            f"`{function}` does not run on {where} with these options. {self.instead}"
        )


@table
def report(
    frame: pd.DataFrame,
    *,
    human,
    system,
    second_human=None,
    by=None,
    id=None,
    candidate=None,
    min_items_per_candidate: int | None = None,
    flag: dict | None = None,
    min_n_per_group: int | dict | None = None,
    trim_min: float,
    trim_max: float,
    trim_tolerance: float = DEFAULT_TRIM_TOLERANCE,
    scale_with=None,
    exclude_zero: bool = True,
    rater_error_variance: float | None = None,
    layout: str = "tidy",
    row_numbers: bool = False,
) -> ReportTable:
    """Run RSMTool's whole evaluation (``rsmeval``) on a DataFrame.

    Post-processes the raw system score (trim, round, optional scaling), leaves out the
    responses RSMTool leaves out (missing or non-numeric human or system score; human
    score 0 unless ``exclude_zero=False``), and computes every rsmeval table on the
    remaining responses.

    Parameters
    ----------
    frame : DataFrame
        One row per response.
    human, system : str
        Human score column and raw system score column.
    second_human : str, optional
        Second human score column (double-scored responses where not missing).
    by : str or list of str, optional
        Subgroup columns.
    id : str, optional
        The response id column (rsmeval's ``id_column``); None: the frame's index. Repeated
        ids are refused.
    candidate : str, optional
        The candidate id column (rsmeval's ``candidate_column``).
    min_items_per_candidate : int, optional
        With ``candidate``: after the score filters, the responses of candidates with fewer
        evaluated responses are left out.
    flag : dict, optional
        ``{column: [allowed values]}`` (rsmeval's ``flag_column``): rows whose value is not
        allowed are left out first.
    min_n_per_group : int or dict, optional
        The smallest group shown in the subgroup figures of the HTML report (an int, or
        ``{group column: n}``); the tables keep every group.
    trim_min, trim_max, trim_tolerance, scale_with
        Post-processing options, as ``df.scoring.postprocess``. ``scale_with="asis"``
        evaluates the ``scale`` score types (the given scores are already scaled); a
        training DataFrame evaluates all six; ``None`` the ``raw`` types.
    exclude_zero : bool, default True
        Leave out human scores of 0 (and treat second human scores of 0 as missing).
    rater_error_variance : float, optional
        Rater error variance for the true-score evaluation, when it is known from
        elsewhere (RSMTool's ``rater_error_variance``).
    layout : {"tidy", "rsmtool"}, default "tidy"
        The names of the scores in the tidy tables (``report[name]``). ``"tidy"``: the
        user's names, as ``df.scoring.postprocess`` names the derived columns: the system
        scores ``<system>``, ``<system>_trim``, ``<system>_trim_round`` and, scaled with a
        training frame (or ``scale_with="raw"``), ``<system>_scale``,
        ``<system>_scale_trim``, ``<system>_scale_trim_round`` (with ``scale_with="asis"``
        the given scores are RSMTool's ``scale`` family, named ``<system>``,
        ``<system>_trim``, ``<system>_trim_round``); the human scores by their columns
        (``consistency``, ``confMatrix_h1h2``, ``pred_processed``, ...); the other columns
        of the data tables by their names in ``frame`` (the response id stays
        ``spkitemid``). ``"rsmtool"``: RSMTool's names (``raw``, ``raw_trim``, ...,
        ``scale_trim_round``, ``sc1``, ``sc2``, ``##sc1##`` for another column called
        ``sc1``), as in rsmeval's files. :meth:`EvaluationReport.to_csv`,
        :meth:`~EvaluationReport.write` and :meth:`~EvaluationReport.rsmtool_frames` use
        RSMTool's names whatever the layout; ``report.score_names`` maps one to the other.
        A system column called ``raw`` and human columns ``sc1``/``sc2`` (without scaling)
        give the same score tables in both layouts. In the tidy layout a human column
        named as a derived score (``human="score_trim"`` with ``system="score"``) is
        refused.
    row_numbers : bool, default False
        Without ``id``: name the responses of the per-response tables (``pred_processed``, ...)
        by their position in the whole frame (0, 1, ...) instead of by the frame's index (on
        dask, the index of a folder of parquet files restarts in every file).

    Returns
    -------
    EvaluationReport
        Tables ``eval``, ``eval_short``, ``confMatrix``, ``score_dist``; with
        ``second_human``: ``consistency``, ``degradation``, ``disattenuated_correlations``,
        ``confMatrix_h1h2``; with ``second_human`` or ``rater_error_variance``:
        ``true_score_eval``; per subgroup column G: ``eval_by_G``, ``fairness_metrics_by_G``,
        ``estimates_osa_by_G``, ``estimates_osd_by_G``, ``estimates_csd_by_G`` and, with
        ``second_human``, ``consistency_by_G`` and ``disattenuated_correlations_by_G``;
        ``conditional_means_by_G`` (the mean trimmed system score at each human score, per
        group: the fairness section's conditional score plot; not an rsmeval file).

    Notes
    -----
    On a dask DataFrame the report is computed in one pass over the partitions (with ``id``,
    one more over the id column refuses repeated ids); ``compute=False`` returns a
    :class:`dask.delayed.Delayed` of a report of the summary tables. The tables with one row
    per response are never held in memory there: ``to_csv`` and ``write`` (csv, tsv or
    jsonlines) write them partition by partition, and ``report[name]`` of one of them says
    so. ``candidate=`` and ``min_items_per_candidate=`` raise
    :class:`~pdmetrics.errors.NotPartitionableError` on dask (a candidate's responses may
    sit in several partitions); a dask training frame as ``scale_with`` is computed first.

    Examples
    --------
    >>> import pdmetrics
    >>> from pdmetrics.datasets import simulate_scores
    >>> from pdmetrics.rsmeval import report
    >>> df = simulate_scores(2000, seed=0)
    >>> tables = report(df, human="sc1", system="raw", second_human="sc2", by="L1",
    ...                 trim_min=1, trim_max=6)
    >>> sorted(tables)[:5]
    ['conditional_means_by_L1', 'confMatrix', 'confMatrix_h1h2', 'consistency', 'consistency_by_L1']
    >>> tables["eval"][["system", "N", "corr"]].round(3)
               system     N   corr
    0             raw  2000  0.788
    1        raw_trim  2000  0.789
    2  raw_trim_round  2000  0.765
    >>> df.scoring.report(human="sc1", system="raw", second_human="sc2", trim_min=1,
    ...                   trim_max=6)["true_score_eval"][["system", "PRMSE true"]].round(2)
               system  PRMSE true
    0             raw        0.73
    1        raw_trim        0.74
    2  raw_trim_round        0.66
    """
    options = _options(frame, locals())
    return ReportTable(
        list(frame.columns),
        partial(report_chunk, options),
        partial(report_from_state, options=options),
        options=options,
        instead="" if candidate is None else _CANDIDATES_INSTEAD,
    )


@dataclass(frozen=True)
class ReportOptions:
    """report()'s checked arguments, as a chunk of rows needs them (no frame, no data)."""

    human: Hashable
    system: Hashable
    second_human: Hashable | None
    groups: tuple
    flags: dict
    trim_min: float
    trim_max: float
    trim_tolerance: float
    scale_with: object  # None, "asis", "raw", a dict, or "frame" (a training frame, see scaling)
    scaling: object
    exclude_zero: bool
    rater_error_variance: float | None
    min_n_per_group: dict
    layout: str
    names: dict  # rsmeval's name of each column of the frame
    score_names: dict  # RSMTool's name of each score -> the user's
    id: Hashable | None = None
    candidate: Hashable | None = None
    min_items_per_candidate: int | None = None
    row_numbers: bool = False

    @property
    def primary(self) -> str:
        return _score_types(self.scale_with)[1]

    @property
    def scores_read(self) -> list:
        """The columns the summary tables read (the per-response tables read every column)."""
        second = [] if self.second_human is None else [self.second_human]
        candidate = [] if self.candidate is None else [self.candidate]
        return list(dict.fromkeys([self.human, self.system, *second, *self.groups, *self.flags, *candidate]))


def _options(meta: pd.DataFrame, arguments: dict) -> ReportOptions:
    """report()'s ``arguments`` checked on ``meta`` (a frame with the columns; its values are not
    read); a training frame ``scale_with`` is summarised (means and SDs) here."""
    a = dict(arguments)
    human, system, second_human, by = a["human"], a["system"], a["second_human"], a["by"]
    id, candidate, min_items_per_candidate = a["id"], a["candidate"], a["min_items_per_candidate"]
    trim_min, trim_max, trim_tolerance = a["trim_min"], a["trim_max"], a["trim_tolerance"]
    scale_with, exclude_zero, layout = a["scale_with"], a["exclude_zero"], a["layout"]
    rater_error_variance = a["rater_error_variance"]
    human, system, second_human, groups = _report_columns(
        meta, human, system, second_human, by, scale_with, layout
    )
    if candidate is not None:
        candidate = _one_column(meta, "candidate", candidate)
    elif min_items_per_candidate is not None:
        raise InvalidInputError(
            f"`min_items_per_candidate={plain(min_items_per_candidate)!r}` needs `candidate=`: the column "
            "of candidate ids whose responses are counted."
        )
    sizes = rsmeval_data.check_min_n_per_group(a["min_n_per_group"], groups)
    if id is not None:
        id = require_columns(meta, "id", id)[0]
    flags = rsmeval_data.check_flags(meta, a["flag"])
    check_exclude_zero(exclude_zero)
    check_trim_range(trim_min, trim_max, trim_tolerance)
    if rater_error_variance is not None:
        check_error_variance(rater_error_variance, "rater_error_variance")
    if not isinstance(scale_with, (pd.DataFrame, str, Mapping)) and hasattr(scale_with, "compute"):
        scale_with = scale_with[[human, system]].compute()  # a training frame of another engine (dask)
    scaling = _scaling(scale_with, human, system)
    return ReportOptions(
        human,
        system,
        second_human,
        tuple(groups),
        flags,
        trim_min,
        trim_max,
        trim_tolerance,
        scale_with if scale_with is None or isinstance(scale_with, (str, Mapping)) else "frame",
        scaling,
        exclude_zero,
        rater_error_variance,
        sizes,
        layout,
        rsmeval_data.rsmeval_names(meta.columns, id, human, second_human, system, candidate),
        _score_names(human, second_human, system, scale_with),
        id,
        candidate,
        min_items_per_candidate,
        bool(a["row_numbers"]),
    )


# --------------------------------------------------------------------------------------
# the arguments
# --------------------------------------------------------------------------------------


def _report_columns(frame, human, system, second_human, by, scale_with, layout) -> tuple:
    """report()'s column arguments checked: ``(human, system, second_human, groups)``."""
    _check_layout(layout)
    human = _one_column(frame, "human", human)
    system = _one_column(frame, "system", system)
    if second_human is not None:
        second_human = _one_column(frame, "second_human", second_human)
    _check_group_names(frame, by)
    groups = [] if by is None else require_columns(frame, "by", by)
    check_listed_once(groups, "by")
    check_distinct_columns(human=human, second_human=second_human, system=system)
    if layout == "tidy":
        _check_distinct_names(_score_names(human, second_human, system, scale_with))
    return human, system, second_human, groups


def _check_group_names(frame, by) -> None:
    """A subgroup column named by a tuple (a column of a MultiIndex-like frame) names the
    report's tables (``eval_by_<column>``) and files: refuse it clearly, whether ``by=`` is
    the tuple or a list holding it."""
    named = [by] if isinstance(by, tuple) and by in frame.columns else by if isinstance(by, list) else []
    for group in named:
        if isinstance(group, tuple):
            why = "the report names its tables and files by the column (eval_by_<column>)"
            refuse_tuple_name("by", group, why, "subgroup column")


def _check_layout(layout) -> None:
    if not (isinstance(layout, str) and layout in LAYOUTS):
        raise InvalidInputError(
            f"`layout={plain(layout)!r}`: pass 'tidy' (the tables name the scores by your columns, as "
            "df.scoring.postprocess names them) or 'rsmtool' (RSMTool's names: raw, raw_trim, sc1, ...)."
        )


def _score_names(human, second_human, system, scale_with) -> dict:
    """RSMTool's name of each score evaluated -> the user's name (``df.scoring.postprocess``'s)."""
    types, _ = _score_types(scale_with)
    asis = isinstance(scale_with, str) and scale_with == "asis"
    names = {}
    for score_type in types:
        family, suffix = score_type.split("_", 1) if "_" in score_type else (score_type, "")
        if not asis and family == "scale":
            suffix = f"scale_{suffix}" if suffix else "scale"
        names[score_type] = f"{system}_{suffix}" if suffix else system
    names["sc1"] = human
    if second_human is not None:
        names["sc2"] = second_human
    return names


def _check_distinct_names(score_names: dict) -> None:
    """The tidy layout needs one name per score: a human column named as a derived system
    score (``human="score_trim"`` with ``system="score"``) is refused."""
    arguments = {"sc1": "human", "sc2": "second_human"}
    seen: dict = {}
    for score_type, name in score_names.items():  # the system's scores first, then sc1, sc2
        if name in seen:
            system = score_names.get("raw", score_names.get("scale"))
            raise InvalidInputError(
                f"`{arguments[score_type]}={plain(name)!r}` is also the name report() gives the "
                f"{seen[name]} scores of `system={plain(system)!r}` (as df.scoring.postprocess names them). "
                "Rename that column, or pass `layout='rsmtool'` (RSMTool's names: raw, raw_trim, sc1, ...)."
            )
        seen[name] = score_type


def _score_types(scale_with) -> tuple[tuple[str, ...], str]:
    if scale_with is None:
        return _RAW_TYPES, "raw"
    if isinstance(scale_with, str) and scale_with == "asis":
        return _SCALE_TYPES, "scale"
    return _RAW_TYPES + _SCALE_TYPES, "scale"


def _scaling(scale_with, human, system):
    """The scaling ``scale_with`` asks for: a dict of means and SDs, "asis" or None."""
    if isinstance(scale_with, str) and scale_with == "raw":
        return _IDENTITY_SCALING
    check_scale_with(scale_with, human)
    return (
        scaling_from_frame(scale_with, human, system) if isinstance(scale_with, pd.DataFrame) else scale_with
    )


def _score_arrays(raw: np.ndarray, trim_min, trim_max, trim_tolerance, scaling, scale_with) -> dict:
    """RSMTool's score types of the raw system scores ``raw``, keyed by type name."""
    derived = derived_scores(raw, trim_min, trim_max, trim_tolerance, scaling, name="raw")
    scores = {"raw": raw, **{name: derived[name].to_numpy() for name in derived.columns}}
    if isinstance(scaling, str):  # "asis": the given scores are the scaled ones
        scores = {
            "scale": raw,
            "scale_trim": scores["raw_scale_trim"],
            "scale_trim_round": scores["raw_scale_trim_round"],
        }
    else:
        scores = {name.replace("raw_scale", "scale"): values for name, values in scores.items()}
    types, _ = _score_types(scale_with)
    return {name: scores[name] for name in types}


def _filtered_rows(h: np.ndarray, s: np.ndarray, flagged, exclude_zero: bool) -> ScoredRows:
    """rsmeval's score filters, on the rows the flags keep (``flagged``; None: every row)."""
    if flagged is None:
        return select_scored_rows(h, [s], exclude_zero)
    rows = select_scored_rows(h[flagged], [s[flagged]], exclude_zero)
    mask = np.zeros(h.size, dtype=bool)
    mask[flagged] = rows.mask
    return dataclasses.replace(rows, mask=mask)


def _selection(h, s, flagged, scored, few_items, keep, exclude_zero) -> rsmeval_data.Selection:
    """Why each row was left out, in rsmeval's order (flags, human score, system score, candidate)."""
    considered = np.ones(h.size, dtype=bool) if flagged is None else flagged
    valid = np.isfinite(h)
    human_bad = considered & ~valid
    human_zero = considered & valid & (h == 0) if exclude_zero else np.zeros(h.size, dtype=bool)
    system_bad = considered & valid & ~human_zero & ~np.isfinite(s)
    return rsmeval_data.Selection(
        keep, None if flagged is None else ~flagged, human_bad, human_zero, system_bad, few_items
    )


def _data_names_of(excluded: bool, flagged_out: bool, double: bool, groups: list) -> tuple[str, ...]:
    """:func:`_data_names` from whether rows were left out by the score filters or the flags."""
    names = ["pred_processed", "test_metadata", "test_other_columns"]
    if double:
        names.append("test_human_scores")
    if excluded:
        names.append("test_excluded_responses")
    if flagged_out:
        names.append("test_responses_with_excluded_flags")
    names += ["test_excluded_composition", "data_composition", *(f"data_composition_by_{g}" for g in groups)]
    return tuple(names)


def _postprocessing_params(scaling: Mapping, trim_min, trim_max, trim_tolerance) -> pd.DataFrame:
    """RSMTool's ``postprocessing_params`` file: trimming options and the scaling means and SDs."""
    return pd.DataFrame(
        {
            "trim_min": [float(trim_min)],
            "trim_max": [float(trim_max)],
            "trim_tolerance": [float(trim_tolerance)],
            "h1_mean": [scaling["human_mean"]],
            "h1_sd": [scaling["human_sd"]],
            "train_predictions_mean": [scaling["system_mean"]],
            "train_predictions_sd": [scaling["system_sd"]],
        }
    )


def _one_column(frame: pd.DataFrame, argument: str, name):
    """Check that ``name`` is one column of ``frame`` (a 1-list is fine) and return it."""
    names = name if isinstance(name, (list, tuple)) else [name]
    if len(names) != 1 or not isinstance(names[0], Hashable):
        raise InvalidInputError(
            f"`{argument}={name!r}`: report() takes one {argument} column. To evaluate several system "
            "columns, use `df.scoring.evaluate(system=[...])` or call report() once per column."
        )
    return require_columns(frame, argument, names)[0]


def _group_codes(column: pd.Series, keep: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """A subgroup column's ``subgroup_codes`` on the evaluated rows.

    Missing labels become the group ``"No info"``, as RSMTool reads empty subgroup values,
    so the subgroup tables and the fairness fits use the same groups and rows. A label equal
    to RSMTool's "All data" (the pooled row of its files) is refused.
    """
    codes, labels = subgroup_codes(column, keep)
    _check_all_data(labels, column.name)
    return codes.astype(smallest_integer_type(-1, labels.size)), labels  # few groups: one byte per row


def _check_all_data(labels: np.ndarray, name) -> None:
    """Refuse a group called RSMTool's "All data" (the pooled row of its files)."""
    if (labels == rsmtool_files.ALL_DATA).any():
        raise InvalidInputError(
            f"`by={plain(name)!r}` holds the value {rsmtool_files.ALL_DATA!r}, which RSMTool's "
            f"files use for the row of all responses; rename that value first, e.g. "
            f"`.replace({{{rsmtool_files.ALL_DATA!r}: 'all data (group)'}})`."
        )


def _present_groups(codes: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes and labels renumbered over the groups present in ``codes``."""
    present = np.bincount(codes, minlength=labels.size) > 0
    if present.all():
        return codes, labels
    return (np.cumsum(present) - 1)[codes], labels[present]


def _one_group_column(table: pd.DataFrame, group) -> pd.DataFrame:
    """The rows of a subgroup table that belong to one group column."""
    return table[(table["by"] == group).to_numpy()].reset_index(drop=True)


def _subgroup_tables(
    tables, files, group, fairness, by_table, consistency, trim, trim_round, primary
) -> None:
    tables[f"eval_by_{group}"] = by_table
    short = rsmtool_files.short_metrics_frame(
        by_table, trim, trim_round, primary, difference="DSM", index="group"
    )
    files[f"eval_by_{group}"] = rsmtool_files.group_frame(short)
    if consistency is not None:
        tables[f"consistency_by_{group}"] = consistency
        files[f"consistency_by_{group}"] = rsmtool_files.group_frame(
            rsmtool_files.consistency_frame(consistency, difference="DSM", index="group")
        )
        corrected = disattenuated_from_tables(
            by_table[by_table["system"] == trim], consistency, on=["by", "group"]
        )
        tables[f"disattenuated_correlations_by_{group}"] = corrected
        files[f"disattenuated_correlations_by_{group}"] = rsmtool_files.group_frame(
            corrected.set_index("group")[["corr_HM", "corr_HH", "sqrt_HH", "corr_disattenuated"]].rename_axis(
                None
            )
        )
    metrics, estimates = fairness
    tables[f"fairness_metrics_by_{group}"] = metrics
    for name, value in rsmtool_fairness_tables(metrics, estimates, group).items():
        files[name] = value
        if name.startswith("estimates_"):  # estimates_<model>_by_<group>
            model = name.split("_")[1]
            tables[name] = estimates[estimates["model"] == model].reset_index(drop=True)


# --------------------------------------------------------------------------------------
# the state of a chunk of rows: one pass over them
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ChunkRows:
    """A chunk's rows as report() reads them: the part, the response ids (None: not checked
    here), the human scores, RSMTool's score types and why each row was left out."""

    frame: pd.DataFrame
    ids: pd.Index | None
    human: np.ndarray
    scores: dict
    rows: ScoredRows  # the score filters, on the rows the flags keep
    selection: rsmeval_data.Selection

    @classmethod
    def of(cls, part: pd.DataFrame, options: ReportOptions, ids: bool = True, start: int | None = None):
        """The rows of ``part`` (``ids``: check the response ids; ``start``: number the rows
        from it instead of naming them by the index)."""
        o = options
        if start is not None:
            part = part.set_axis(pd.RangeIndex(start, start + len(part)))
        found = rsmeval_data.response_ids(part, o.id) if ids else None
        flagged = rsmeval_data.flag_rows(part, o.flags)
        h = numeric_values(part[o.human], "human")
        s = numeric_values(part[o.system], "system")
        scores = _score_arrays(s, o.trim_min, o.trim_max, o.trim_tolerance, o.scaling, o.scale_with)
        rows = _filtered_rows(h, s, flagged, o.exclude_zero)  # rsmeval filters on the flags first
        keep = rows.mask
        few_items = None
        if o.candidate is not None and o.min_items_per_candidate:
            few_items = keep & ~rsmeval_data.candidate_mask(
                part[o.candidate], keep, o.min_items_per_candidate
            )
            keep = keep & ~few_items
        selection = _selection(h, s, flagged, rows.mask, few_items, keep, o.exclude_zero)
        return cls(part, found, h, scores, rows, selection)

    def tables(self, options: ReportOptions) -> dict:
        """rsmeval's per-response tables of these rows."""
        o = options
        second = (
            None if o.second_human is None else numeric_values(self.frame[o.second_human], "second_human")
        )
        return rsmeval_data.response_tables(
            self.frame,
            self.ids,
            self.selection,
            names=o.names,
            human=self.human,
            second_human=second,
            scores=self.scores,
            groups=list(o.groups),
            candidate=o.candidate,
            exclude_zero=o.exclude_zero,
        )


@dataclass(frozen=True)
class ReportState:
    """The additive state of report()'s summary tables over some rows.

    Attributes
    ----------
    n_input, n_flagged_out, n_few_items : int
        Rows seen, rows left out by the flags, and by ``min_items_per_candidate``.
    rows : RowCounts
        The score filters on the rows the flags keep.
    excluded : ndarray
        ``test_excluded_composition``'s 3 x 2 counts.
    evaluation : EvaluationState
        The ``eval`` and ``eval_by`` tables' state (system scores: RSMTool's score types).
    consistency : ConsistencyState or None
        The human-human tables' (with ``second_human``).
    pairs, human_pairs : ScorePairState
        ``confMatrix`` and ``score_dist`` (the primary rounded score); ``confMatrix_h1h2``.
    true_score : TrueScoreState or None
        ``true_score_eval`` (with ``second_human`` or ``rater_error_variance``).
    fairness : ScoreFairnessState or None
        The score fairness tables of every group column.
    conditional : dict
        Group column -> ``N`` and ``sys_mean`` (the trimmed score) by ``(group, human_score)``.
    composition : dict
        Group column -> responses evaluated per group (``data_composition_by``).
    candidates : Index or None
        The candidates of the evaluated responses (with ``candidate``).
    responses : ChunkRows or None
        The rows of a state of one chunk (the per-response tables are built from them on
        first use); a combined state holds none.
    """

    n_input: int
    n_flagged_out: int
    n_few_items: int
    rows: RowCounts
    excluded: np.ndarray
    evaluation: EvaluationState
    consistency: ConsistencyState | None
    pairs: ScorePairState
    human_pairs: ScorePairState | None
    true_score: TrueScoreState | None
    fairness: ScoreFairnessState | None
    conditional: dict
    composition: dict
    candidates: pd.Index | None = None
    responses: ChunkRows | None = None

    def combine(self, other: ReportState) -> ReportState:
        """The state of the union of two disjoint row sets (without their rows)."""
        return ReportState(
            self.n_input + other.n_input,
            self.n_flagged_out + other.n_flagged_out,
            self.n_few_items + other.n_few_items,
            self.rows.combine(other.rows),
            self.excluded + other.excluded,
            self.evaluation.combine(other.evaluation),
            _combined(self.consistency, other.consistency),
            self.pairs.combine(other.pairs),
            _combined(self.human_pairs, other.human_pairs),
            _combined(self.true_score, other.true_score),
            _combined(self.fairness, other.fairness),
            {g: _weighted_means(table, other.conditional[g]) for g, table in self.conditional.items()},
            {g: _added(counts, other.composition[g]) for g, counts in self.composition.items()},
            None if self.candidates is None else self.candidates.append(other.candidates).unique(),
        )

    def summary(self) -> ReportState:
        """The state without the chunk's rows (what an engine that splits the rows combines)."""
        return dataclasses.replace(self, responses=None)


def _combined(a, b):
    return None if a is None else a.combine(b)


def _added(a: pd.Series, b: pd.Series) -> pd.Series:
    """Counts (or sums) by key of two chunks."""
    return a.add(b, fill_value=0) if len(a) and len(b) else (a if len(a) else b)


def _weighted_means(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    """``N`` and ``sys_mean`` by key of two chunks."""
    if not (len(a) and len(b)):
        return a if len(a) else b
    n = a["N"].add(b["N"], fill_value=0)
    total = (a["N"] * a["sys_mean"]).add(b["N"] * b["sys_mean"], fill_value=0)
    return pd.DataFrame({"N": n.astype(np.int64), "sys_mean": total / n})


def report_chunk(options: ReportOptions, part: pd.DataFrame, *, responses: bool = True) -> ReportState:
    """The :class:`ReportState` of one chunk of rows (any rows of the whole frame; no warning
    raised here, a chunk may have no usable row), in one pass: every group column encoded
    once, one set of work arrays for every statistic. ``responses``: keep the chunk's rows (and
    check its response ids) for the per-response tables, as the pandas path does.

    Examples
    --------
    >>> from pdmetrics.datasets import simulate_scores
    >>> from pdmetrics.rsmeval import report
    >>> df = simulate_scores(1000, seed=0)
    >>> spec = report.spec(df.iloc[:0], human="sc1", system="raw", by="L1", trim_min=1, trim_max=6)
    >>> state = spec.chunk(df.iloc[:400]).combine(spec.chunk(df.iloc[400:]))
    >>> chunked = spec.finalize(state)
    >>> whole = df.scoring.report(human="sc1", system="raw", by="L1", trim_min=1, trim_max=6)
    >>> bool((chunked["eval"]["corr"] - whole["eval"]["corr"]).abs().max() < 1e-12)
    True
    """
    o = options
    chunk = ChunkRows.of(part, o, ids=responses)
    h, scores, selection = chunk.human, chunk.scores, chunk.selection
    keep = selection.keep
    everything = bool(keep.all())  # then no row selection (and no copy) is needed
    h1 = h if everything else h[keep]
    systems = {name: values if everything else values[keep] for name, values in scores.items()}
    # each group column encoded once, so every subgroup table and fit reuses the codes
    encoded = {g: _group_codes(part[g], None if everything else keep) for g in o.groups}
    missing_last = {
        g: _missing_last(part[g], None if everything else keep, *codes) for g, codes in encoded.items()
    }
    h2 = None
    if o.second_human is not None:
        h2 = numeric_values(part[o.second_human], "second_human")
        h2 = h2 if everything else h2[keep]  # only read below: no copy when every row is kept
        if o.exclude_zero:
            h2 = np.where(h2 == 0, np.nan, h2)
    # one pass per score column serves eval, eval_by's pooled row, confMatrix and score_dist
    scored = select_scored_rows(h1, list(systems.values()), o.exclude_zero)
    human_numeric = (h1.size, h1.size)  # the kept rows have a human score
    all_finite = scored.mask.all()  # else a derived score overflowed somewhere
    system_numeric = {
        name: (v.size, v.size) if all_finite else numeric_count(v) for name, v in systems.items()
    }
    codes_kept = encoded
    if not all_finite:  # a derived score overflowed: leave those rows out of every table
        h1, h2 = h1[scored.mask], None if h2 is None else h2[scored.mask]
        systems = {name: values[scored.mask] for name, values in systems.items()}
        encoded = {g: _present_groups(codes[scored.mask], labels) for g, (codes, labels) in encoded.items()}
    buffers = work_buffers(h1.size)  # one set of work arrays for every pass of statistics
    h_labels = kappa_labels(h1, "human", buffers[0])
    labels = {name: kappa_labels(values, "system", buffers[0]) for name, values in systems.items()}
    pooled = pair_statistics_many(h1, systems, human_labels=h_labels, system_labels=labels, buffers=buffers)
    passes = group_passes(encoded) if encoded else None  # the cell codes of the eval and consistency passes
    groups = {}
    if encoded:
        _, groups = grouped_statistics(h1, systems, encoded, h_labels, labels, pooled, buffers, passes)
        groups = _described(groups, part, missing_last)
    evaluation = EvaluationState(scored.counts(), human_numeric, system_numeric, pooled, groups)
    composition = {  # responses per group: the group counts of the pass (bincount if rows overflowed)
        g: pd.Series(
            next(iter(stats.statistics.values())).n.astype(np.int64)
            if all_finite
            else np.bincount(codes_kept[g][0], minlength=codes_kept[g][1].size),
            index=pd.Index(stats.labels, dtype=object),
        )
        for g, stats in groups.items()
    }
    primary = o.primary
    trim, trim_round = f"{primary}_trim", f"{primary}_trim_round"
    work = buffers[0].view(np.intp)  # a free work array for the label counts
    points, counts = pair_counts(h_labels, labels[trim_round], work)
    finite = (h1.size, h1.size)  # the scores left are all numbers
    pairs = ScorePairState(
        scored.counts(), finite, {trim_round: finite}, {trim_round: points}, {trim_round: counts}
    )
    consistency = human_pairs = None
    if h2 is not None:
        doubled = select_scored_rows(h1, [h2], o.exclude_zero)
        pair = h1[doubled.mask], h2[doubled.mask]
        pair_labels = h_labels[doubled.mask], kappa_labels(pair[1], "system", buffers[0])
        statistics = pair_statistics(
            *pair, human_labels=pair_labels[0], system_labels=pair_labels[1], buffers=buffers
        )
        first, pair_groups = None, {}
        if encoded:
            statistics, pair_groups = grouped_consistency_statistics(
                *pair, doubled.mask, encoded, statistics, pair_labels, buffers, passes
            )
            m = next(iter(pooled.values())).moments  # the first human score's, over the same rows
            first = Moments(m.n, m.mean_x, m.mean_x, m.m2_x, m.m2_x, m.m2_x)
            pair_groups = _described(pair_groups, part, missing_last)
        consistency = ConsistencyState(
            doubled.counts(), finite, numeric_count(h2), statistics, first, pair_groups
        )
        points, counts = pair_counts(*pair_labels, work)
        all_rows = ScoredRows(np.ones(pair[0].size, dtype=bool), pair[0].size, 0, 0, 0)
        both = (pair[0].size, pair[0].size)
        human_pairs = ScorePairState(all_rows.counts(), both, {"sc2": both}, {"sc2": points}, {"sc2": counts})
    true_score = None
    if h2 is not None or o.rater_error_variance is not None:
        true_score = _true_score_state(h1, h2, systems, buffers)
    fairness = None
    conditional = {}
    if encoded:
        fairness = score_fairness_state_of_codes(
            pd.Series(h1, name="sc1", copy=False),
            pd.Series(systems[trim], name=trim, copy=False),
            encoded,
            buffers,
        )
        for g, (codes, group_labels) in encoded.items():
            means = conditional_means_of_codes(h_labels, systems[trim], codes, group_labels, g)
            index = pd.MultiIndex.from_frame(means[["group", "human_score"]])
            conditional[g] = pd.DataFrame(
                {"N": means["N"].to_numpy(), "sys_mean": means["sys_mean"].to_numpy()}, index=index
            )
    candidates = None
    if o.candidate is not None:
        candidates = pd.Index(part[o.candidate].array[keep]).unique()
    few_items = selection.few_items
    return ReportState(
        len(part),
        0 if selection.flag_out is None else int(selection.flag_out.sum()),
        0 if few_items is None else int(few_items.sum()),
        chunk.rows.counts(),
        rsmeval_data.excluded_counts(
            np.empty(0, np.intp) if everything else _excluded_rows(selection), h, scores
        ),
        evaluation,
        consistency,
        pairs,
        human_pairs,
        true_score,
        fairness,
        conditional,
        composition,
        candidates,
        chunk if responses else None,
    )


def _true_score_state(h1, h2, systems: dict, buffers) -> TrueScoreState:
    """The ``true_score_eval`` state of the evaluated rows, summed rater by rater in the work
    arrays (no ratings matrix): every score left is a number."""
    stats = column_statistics([h1] if h2 is None else [h1, h2], h1.size, buffers)
    work = buffers[1, : h1.size]  # buffers[0] holds the means
    sse = []
    with np.errstate(invalid="ignore"):
        for values in systems.values():
            np.subtract(stats.means, values, out=work)
            np.multiply(work, work, out=work)
            sse.append(np.sum(np.multiply(stats.counts, work, out=work)))
    return TrueScoreState(
        stats.n,
        0,
        0,
        {name: (values.size, values.size) for name, values in systems.items()},
        stats.per_count,
        stats.within_ss,
        stats.ratings_mean,
        stats.between_ss,
        np.array(sse),
        np.zeros(len(systems), dtype=np.int64),
    )


def _described(groups: dict, part: pd.DataFrame, missing_last: dict) -> dict:
    """Each group column's :class:`~pdmetrics.scoring.subgroups.GroupStatistics` with what
    combining them with another chunk's needs: the column's name and dtype (its sort order),
    whether ``"No info"`` holds only missing values."""
    return {
        g: dataclasses.replace(stats, missing_last=missing_last[g], dtype=part[g].dtype, name=g)
        for g, stats in groups.items()
    }


def _missing_last(column: pd.Series, keep, codes: np.ndarray, labels: np.ndarray) -> bool:
    """Whether the group ``"No info"`` (if any) holds only missing or blank values, not the
    value itself (then it sorts last); only its rows are looked at."""
    at = np.flatnonzero(labels == MISSING_GROUP)
    if not at.size:
        return True
    rows = np.flatnonzero(codes == at[0])
    if keep is not None:
        rows = np.flatnonzero(keep)[rows]
    return not bool((column.iloc[rows] == MISSING_GROUP).any())


def _excluded_rows(selection: rsmeval_data.Selection, none: bool = False) -> np.ndarray:
    """The rows left out by the score and candidate filters (``none``: every row was kept)."""
    if none:
        return np.empty(0, dtype=np.intp)
    left_out = selection.human_bad | selection.human_zero | selection.system_bad
    if selection.few_items is not None:
        left_out = left_out | selection.few_items
    return np.flatnonzero(left_out)


# --------------------------------------------------------------------------------------
# the report from the state of every row
# --------------------------------------------------------------------------------------
def report_from_state(state: ReportState, options: ReportOptions, writer=None) -> EvaluationReport:
    """The :class:`EvaluationReport` of the summary tables from the state of every row.

    The per-response data tables (``pred_processed``, ...) are built on first use from the
    rows of a state of one chunk (the pandas path). A combined state holds no rows: with
    ``writer``, :meth:`EvaluationReport.write` calls ``writer(directory, prefix, file_format,
    names=...)`` to write them (and returns their paths); without, the report leaves them out.
    The errors and the warnings about the whole data are raised here, once.
    """
    o = options
    if o.flags:
        rsmeval_data.check_flagged_rows(state.n_input - state.n_flagged_out, o.flags)
    report_exclusions(state.rows, "system score", o.human, repr(o.system))
    primary = o.primary
    trim, trim_round = f"{primary}_trim", f"{primary}_trim_round"
    groups = list(o.groups)
    tables: dict[str, pd.DataFrame] = {}
    files: dict[str, pd.DataFrame] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # undefined cells are expected in small groups; the tables show NaN
        evaluation = state.evaluation
        for group, statistics in evaluation.groups.items():
            _check_all_data(statistics.labels, group)
        tables["eval"] = evaluation_table(evaluation.pooled, evaluation.rows, o.exclude_zero)
        consistency = state.consistency
        double = consistency is not None and consistency.rows.n_used > 0
        if double:
            tables["consistency"] = consistency_table(
                consistency.statistics, "sc1", "sc2", consistency.rows, o.exclude_zero
            )
        if double or o.rater_error_variance is not None:
            tables["true_score_eval"] = true_score_table_from_state(state.true_score, o.rater_error_variance)
        if groups:
            by_table = evaluation_from_state(evaluation, "sc1", o.exclude_zero)
            by_consistency = (
                consistency_from_state(consistency, "sc1", "sc2", o.exclude_zero) if double else None
            )
        for group in groups:
            fairness = ScoreFairnessState({group: state.fairness.columns[group]})
            _subgroup_tables(
                tables,
                files,
                group,
                score_fairness_from_state(fairness, None, "sc1", trim),
                _one_group_column(by_table, group),
                None if by_consistency is None else _one_group_column(by_consistency, group),
                trim,
                trim_round,
                primary,
            )
            ordered = tables[f"eval_by_{group}"]  # the groups in order, after the pooled row
            tables[f"conditional_means_by_{group}"] = _conditional_means(
                state.conditional[group], pd.unique(ordered["group"].to_numpy())[1:], group
            )
        tables["confMatrix"] = confusion_from_state(state.pairs, "sc1", o.exclude_zero)
        if double:
            tables["confMatrix_h1h2"] = confusion_from_state(state.human_pairs, "sc1", o.exclude_zero)
        tables["score_dist"] = distribution_from_state(state.pairs, "sc1", o.exclude_zero)
        _summary_files(tables, files, primary)
    info = {
        **state.rows.info("system"),
        "n_used": state.rows.n_used - state.n_few_items,
        "n_input": state.n_input,
        "excluded_by_flags": state.n_flagged_out,
        "excluded_candidates": state.n_few_items,
        "min_n_per_group": o.min_n_per_group,
        "exclude_zero": o.exclude_zero,
        "trim_min": o.trim_min,
        "trim_max": o.trim_max,
        "trim_tolerance": o.trim_tolerance,
        "scale_with": o.scale_with,
        "rater_error_variance": o.rater_error_variance,
        "layout": o.layout,
    }
    info["primary_score"] = o.score_names[primary]
    if o.scale_with == "frame":
        files["postprocessing_params"] = _postprocessing_params(
            o.scaling, o.trim_min, o.trim_max, o.trim_tolerance
        )
        tables["postprocessing_params"] = files["postprocessing_params"]
    excluded = bool(state.excluded.sum())
    data_names = _data_names_of(excluded, bool(state.n_flagged_out), o.second_human is not None, groups)
    summary_names = [name for name in data_names if not is_per_response(name)]
    builders = [DataBuilder(partial(_composition_tables, state, o), summary_names)]
    streamed = tuple(name for name in data_names if is_per_response(name))
    if state.responses is not None:  # one chunk: its per-response tables, built on first use
        builders.append(DataBuilder(lambda: (state.responses.tables(o), set()), streamed))
        summary_names = data_names
    data = (tuple(summary_names), builders)
    result = named_report(tables, files, primary, groups, info, data, o.names, o.score_names, o.layout)
    if writer is not None and state.responses is None:
        result._streamed = (streamed, partial(writer, names=streamed))
    return result


def _conditional_means(means: pd.DataFrame, labels: np.ndarray, group) -> pd.DataFrame:
    """``conditional_means_by_<group>`` from the combined counts and means, groups in ``labels``' order."""
    keys = means.index.to_frame(index=False)
    rank = pd.Series(np.arange(len(labels)), index=pd.Index(labels, dtype=object))
    order = np.lexsort(
        (keys["human_score"].to_numpy(), rank.reindex(keys["group"].astype(object)).to_numpy())
    )
    keys, n, mean = keys.iloc[order], means["N"].to_numpy()[order], means["sys_mean"].to_numpy()[order]
    return pd.DataFrame(
        {
            "by": group,
            "group": keys["group"].to_numpy(),
            "human_score": keys["human_score"].to_numpy(),
            "N": n.astype(np.int64),
            "sys_mean": mean,
        }
    )


def _composition_tables(state: ReportState, options: ReportOptions) -> tuple[dict, set]:
    """rsmeval's summary data tables from the state (as ``rsmeval_data.composition_tables``)."""
    names = options.names
    files = {
        "test_excluded_composition": rsmeval_data.excluded_composition_table(
            state.excluded, _listwise(options), options.exclude_zero
        )
    }
    composition = {"partition": ["Evaluation"], "responses": [state.rows.n_used - state.n_few_items]}
    if state.candidates is not None:
        composition["candidates"] = [state.candidates.size]
    for g in options.groups:
        composition[names[g]] = [len(state.composition[g])]
    files["data_composition"] = pd.DataFrame(composition).set_index("partition")
    for g in options.groups:
        counts = state.composition[g].sort_index()
        files[f"data_composition_by_{g}"] = pd.DataFrame(
            {"N responses": counts.to_numpy().astype(np.int64)},
            index=pd.Index(
                counts.index.tolist(), name=names[g]
            ),  # the default dtype of the labels, as pandas reads them
        )
    return files, {"test_excluded_composition"}


def _listwise(options: ReportOptions) -> bool:
    """Whether a candidate filter was applied (rsmeval's ``test_excluded_composition`` then
    counts every row)."""
    return options.candidate is not None and bool(options.min_items_per_candidate)


def _summary_files(tables: dict, files: dict, primary: str) -> None:
    """Add to ``tables`` those made from others (``eval_short``, ``degradation``,
    ``disattenuated_correlations``) and to ``files`` the RSMTool layout of the tables that are
    not by subgroup; the dict order is the order of the tables."""
    trim, trim_round = f"{primary}_trim", f"{primary}_trim_round"
    order = list(tables)
    made = {"eval": rsmtool_files.eval_frame(tables["eval"])}
    made["eval_short"] = rsmtool_files.short_metrics_frame(tables["eval"], trim, trim_round, primary)
    derived = {"eval_short": made["eval_short"].reset_index(drop=True)}
    if "consistency" in tables:
        made["consistency"] = rsmtool_files.consistency_frame(tables["consistency"])
        derived["degradation"] = degradation_from_tables(tables["eval"], tables["consistency"])
        derived["disattenuated_correlations"] = disattenuated_from_tables(
            tables["eval"], tables["consistency"]
        )
        for name in ("degradation", "disattenuated_correlations"):
            made[name] = derived[name].set_index("system").rename_axis(None)
    if "true_score_eval" in tables:
        made["true_score_eval"] = tables["true_score_eval"].set_index("system").rename_axis(None)
    for name in ("confMatrix", "confMatrix_h1h2"):
        if name in tables:
            made[name] = rsmtool_files.confusion_matrix_frame(tables[name])
    dist = rsmtool_files.score_distribution_frame(tables["score_dist"], primary)
    made["score_dist"] = dist.astype(float).set_axis(dist.index.astype(float))
    # rsmeval's order: eval, eval_short, consistency, degradation, disattenuated, true score, ...
    first = [
        "eval",
        "eval_short",
        "consistency",
        "degradation",
        "disattenuated_correlations",
        "true_score_eval",
    ]
    ordered = {**{name: None for name in first}, **{name: None for name in order}}
    everything = {**tables, **derived}
    for name in ordered:
        if name in everything:
            tables.pop(name, None)
            tables[name] = everything[name]
    existing = dict(files)  # the subgroup files: after the whole set's, before the score counts
    files.clear()
    files.update({name: made[name] for name in first if name in made})
    files.update(existing)
    files.update(
        {name: made[name] for name in ("confMatrix", "confMatrix_h1h2", "score_dist") if name in made}
    )


# --------------------------------------------------------------------------------------
# the per-response tables of a chunk, as text (an engine that splits the rows writes them)
# --------------------------------------------------------------------------------------
def response_texts(
    frame: pd.DataFrame, options: ReportOptions, file_format: str, start: int | None = None
) -> dict:
    """rsmeval's per-response tables of one chunk of rows, as text in ``file_format``.

    Returns ``{(name, part): (header, body)}``: the files are the header of any chunk, then
    each part's bodies in chunk order, parts in order (``test_excluded_responses`` lists the
    responses by the reason they were left out, rsmeval's order: part 0 a missing human
    score, 1 a zero, 2 a missing system score; other tables have one part). ``start``: the
    chunk's rows are numbered from it (the response ids without ``id``) instead of by its index.
    """
    chunk = ChunkRows.of(frame, options, start=start)
    tables, selection = chunk.tables(options), chunk.selection
    texts = {}
    for name, frame_of_rows in tables.items():
        if name == "test_excluded_responses":
            ends = np.cumsum([int(m.sum()) for m in (selection.human_bad, selection.human_zero)])
            pieces = enumerate(np.split(np.arange(len(frame_of_rows)), ends))
            parts = [(part, frame_of_rows.iloc[rows]) for part, rows in pieces]
        else:
            parts = [(0, frame_of_rows)]
        for part, piece in parts:
            texts[name, part] = _text(piece, file_format)
    return texts


def _text(frame: pd.DataFrame, file_format: str) -> tuple[str, str]:
    """A frame (written with its index) as ``(header, body)`` text in ``file_format``."""
    if file_format == "jsonlines":
        return "", with_index_column(frame, True).to_json(orient="records", lines=True) if len(frame) else ""
    if file_format not in ("csv", "tsv"):
        raise InvalidInputError(f"`file_format={file_format!r}`: {STREAMED_FORMATS}")
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "part"
        write_delimited(frame, path, "," if file_format == "csv" else "\t", True)
        text = path.read_text(encoding="utf-8")
    header, _, body = text.partition("\n")
    return header + "\n", body
