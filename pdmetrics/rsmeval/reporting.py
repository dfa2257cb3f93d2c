"""The whole RSMTool evaluation from one call: :func:`report` and the
:class:`EvaluationReport` it returns (tidy tables by RSMTool name, an HTML summary in
Jupyter, and ``to_csv`` writing rsmeval's own files)."""

from __future__ import annotations

import dataclasses
import os
import tempfile
import warnings
from collections.abc import Hashable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from pdmetrics._delimited import write_delimited
from pdmetrics._files import (
    atomic_path,
    check_file_names,
    check_name_part,
    output_run,
    shown,
    write_text,
)
from pdmetrics._optional import optional_module
from pdmetrics._stats import smallest_integer_type
from pdmetrics._tables import attach_info
from pdmetrics._validation import numeric_values, plain, refuse_tuple_name, require_columns
from pdmetrics._warnings import emit
from pdmetrics.errors import InvalidInputError, PdmetricsWarning
from pdmetrics.fairness.regression import (
    ScoreFairnessState,
    rsmtool_fairness_tables,
    score_fairness_from_state,
    score_fairness_state,
    score_fairness_tables_of_codes,
)
from pdmetrics.rsmeval import data as rsmeval_data
from pdmetrics.rsmeval import html_page as html_report
from pdmetrics.rsmeval import rsmtool_files
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
    report_exclusions,
    select_scored_rows,
)
from pdmetrics.scoring.subgroups import (
    group_passes,
    grouped_consistency,
    grouped_evaluation,
    mean_and_sd,
    subgroup_codes,
)
from pdmetrics.scoring.table_states import (
    ConsistencyState,
    EvaluationState,
    consistency_from_state,
    consistency_state,
    consistency_table,
    evaluation_from_state,
    evaluation_state,
    evaluation_table,
)
from pdmetrics.scoring.tables import (
    ScorePairState,
    confusion_from_state,
    confusion_table,
    distribution_from_state,
    distribution_table,
    score_pair_state,
)
from pdmetrics.scoring.true_scores import (
    TrueScoreState,
    check_error_variance,
    column_statistics,
    true_score_table_from_state,
    true_score_table_of_statistics,
    true_score_table_state,
)

__all__ = [
    "EvaluationReport",
    "ReportOptions",
    "ReportState",
    "report",
    "report_from_state",
    "report_options",
    "report_state",
    "response_texts",
]

_RAW_TYPES = ("raw", "raw_trim", "raw_trim_round")
_SCALE_TYPES = ("scale", "scale_trim", "scale_trim_round")
# rsmeval's scale_with="raw": scaling with the defaults it starts from (mean 0, SD 1)
_IDENTITY_SCALING = {"human_mean": 0.0, "human_sd": 1.0, "system_mean": 0.0, "system_sd": 1.0}
#: Why a report computed on dask writes no xlsx file.
_STREAMED_FORMATS = (
    "a report computed on dask writes its per-response tables partition by partition, as csv, tsv "
    "or jsonlines; pass one of those."
)
#: report()'s ``layout``: the names its tidy tables give the scores
LAYOUTS = ("tidy", "rsmtool")


class EvaluationReport(Mapping):
    """RSMTool's intermediate tables, by RSMTool's table names.

    A read-only mapping ``name -> DataFrame`` (``report["eval"]``, ``report["eval_by_L1"]``,
    ...) of tidy tables. With ``layout="tidy"`` (the default) they name the scores by the
    user's columns: the system scores as ``df.scoring.postprocess`` names them
    (``score``, ``score_trim``, ``score_trim_round``, ``score_scale``, ...) and the human
    scores by their own columns; with ``layout="rsmtool"`` by RSMTool's names (``raw``,
    ``raw_trim``, ``raw_trim_round``, ``scale``, ..., ``sc1``, ``sc2``). In Jupyter it
    shows an HTML summary; :meth:`to_csv`, :meth:`write` and :meth:`rsmtool_frames` always
    use RSMTool's names and layout, as rsmeval writes them.

    Attributes
    ----------
    primary : {"raw", "scale"}
        RSMTool's score family used for the short, subgroup, fairness and confusion tables
        (``info["primary_score"]`` is the user's name of that family's untrimmed score).
    score_names : dict
        RSMTool's name of each score evaluated -> the user's name: the score types
        (``"raw_trim"`` -> ``"score_trim"``, ...), ``"sc1"`` -> the human score column and,
        with ``second_human``, ``"sc2"`` -> the second human score column.
    layout : {"tidy", "rsmtool"}
        Which of the two the tidy tables use.
    groups : list
        The subgroup columns.
    info : dict
        Rows used and left out, and the options.

    Examples
    --------
    >>> import tempfile
    >>> import pdmetrics
    >>> from pdmetrics.datasets import simulate_scores
    >>> report = simulate_scores(500, seed=1).scoring.report(human="sc1", system="raw", trim_min=1,
    ...                                                      trim_max=6)
    >>> list(report)[:4]
    ['eval', 'eval_short', 'confMatrix', 'score_dist']
    >>> list(report)[4:]  # rsmeval's data tables, built on first use
    ['pred_processed', 'test_metadata', 'test_other_columns', 'test_excluded_composition', 'data_composition']
    >>> report.primary
    'raw'
    >>> renamed = simulate_scores(500, seed=1).rename(columns={"raw": "score", "sc1": "h1"})
    >>> named = renamed.scoring.report(human="h1", system="score", trim_min=1, trim_max=6)
    >>> named["eval"]["system"].tolist(), named.primary, named.info["primary_score"]
    (['score', 'score_trim', 'score_trim_round'], 'raw', 'score')
    >>> named.score_names
    {'raw': 'score', 'raw_trim': 'score_trim', 'raw_trim_round': 'score_trim_round', 'sc1': 'h1'}
    >>> list(named.rsmtool_frames()["eval"].index)  # the files keep RSMTool's names
    ['raw', 'raw_trim', 'raw_trim_round']
    >>> with tempfile.TemporaryDirectory() as directory:
    ...     [path.name for path in report.to_csv(directory, prefix="demo")][:4]
    ['demo_eval.csv', 'demo_eval_short.csv', 'demo_confMatrix.csv', 'demo_score_dist.csv']
    """

    _written: tuple = ()  # the files to_csv wrote last (listed by to_html); replaced, never mutated
    #: a report computed on dask: ``(names, writer)`` of the per-response tables, never held in
    #: memory; :meth:`write` has ``writer(directory, prefix, file_format)`` write them
    #: partition by partition (it returns their paths, in ``names``' order)
    _streamed: tuple = ((), None)

    def __init__(
        self,
        tables: dict[str, pd.DataFrame],
        files: dict[str, pd.DataFrame],
        primary: str,
        groups: list,
        info: dict,
        data=None,
        *,
        score_names: dict | None = None,
        layout: str = "rsmtool",
    ) -> None:
        self._tables = tables
        self._files = files
        self.primary = primary
        self.groups = groups
        self.info = info
        self.score_names = dict(score_names or {})
        self.layout = layout
        # rsmeval's data tables (names, builders, each table's column renames in the tidy
        # layout): built on first use, so report() stays fast; the builders make
        # {name: frame} and the names written without index, the summary tables apart from
        # the per-response ones (the HTML report needs only the summaries)
        self._data_names, self._data_builders, *renames = data if data is not None else ((), [])
        self._data_renames = renames[0] if renames else {}
        self._unindexed: set = set()
        #: rsmeval's ``min_n_per_group`` as ``{group column: n}``: the subgroup sections of the
        #: HTML report leave out smaller groups (the tables and files keep every group, as rsmeval's).
        self.min_n_per_group = info.get("min_n_per_group") or {}

    def _load_data(self, name=None) -> None:
        """Build the data tables: those of ``name``'s builder, or (None) every one."""
        pending = []
        for builder in self._data_builders:
            if name is not None and name not in builder.names:
                pending.append(builder)
                continue
            files, unindexed = builder()
            self._unindexed |= unindexed
            for table_name in builder.names:
                if table_name not in files:
                    continue
                frame = files[table_name]
                self._files[table_name] = frame
                table = frame if table_name in unindexed else frame.reset_index()
                renames = self._data_renames.get(table_name)
                self._tables[table_name] = table.rename(columns=renames) if renames else table
        self._data_builders = pending

    def __getitem__(self, name: str) -> pd.DataFrame:
        if name in self._data_names and name not in self._tables:
            self._load_data(name)
        try:
            return self._tables[name]
        except KeyError:
            if name in self._streamed[0]:
                raise KeyError(
                    f"{name!r} has one row per response: a report computed on dask does not hold it in "
                    "memory. `report.to_csv(directory)` writes it partition by partition; or compute "
                    "the columns and call report() on the pandas frame."
                ) from None
            raise KeyError(f"No table {name!r} in this report; it has: {', '.join(self)}.") from None

    def __iter__(self) -> Iterator[str]:
        yield from (name for name in self._tables if name not in self._data_names)
        yield from self._data_names

    def __len__(self) -> int:
        return len(set(self._tables) | set(self._data_names))

    def __repr__(self) -> str:
        lines = [
            f"EvaluationReport: {self.info['n_used']:,} of {self.info['n_input']:,} responses, "
            f"primary score {self.info.get('primary_score', self.primary)!r} (RSMTool's {self.primary!r}), "
            f"{len(self)} tables"
        ]
        lines += [f"  {name}: {table.shape[0]} x {table.shape[1]}" for name, table in self.items()]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        return html_report.notebook_html(self)

    def to_html(self, path=None, *, sections=None, title=None, files=None):
        """The report as one self-contained HTML page, as rsmeval's report.

        Inline CSS and inline SVG figures, nothing fetched from anywhere: the file opens on an
        offline machine and can be handed on as it is. Sections are rsmeval's
        ``general_sections``: ``data_description``, ``data_description_by_group``,
        ``consistency``, ``evaluation``, ``true_score_evaluation``, ``evaluation_by_group``,
        ``fairness_analyses``, ``intermediate_file_paths``, ``sysinfo``.

        Parameters
        ----------
        path : str or path-like, optional
            The file to write (UTF-8). None returns the HTML instead, as pandas' ``to_html``.
        sections : list of str, optional
            The sections, in the order wanted. Default: every section that applies, in
            rsmeval's order (no ``consistency`` without a second human score, no subgroup
            sections without ``by=``); naming one that does not apply is an error.
        title : str, optional
            The page's title (default "Evaluation report").
        files : list of path-like, optional
            The files listed in ``intermediate_file_paths``; default: those :meth:`to_csv`
            wrote last.

        Returns
        -------
        str or pathlib.Path
            The HTML when ``path`` is None, else the path written.

        Examples
        --------
        >>> import pdmetrics
        >>> from pdmetrics.datasets import simulate_scores
        >>> report = simulate_scores(500, seed=1).scoring.report(human="sc1", system="raw", by="L1",
        ...                                                      trim_min=1, trim_max=6)
        >>> page = report.to_html(sections=["evaluation", "evaluation_by_group"])
        >>> page.count("<section"), page.count("<svg")
        (2, 3)
        """
        page = html_report.report_html(
            self, sections=sections, title=title, files=self._written if files is None else files
        )
        if path is None:
            return page
        path = _html_path(path)
        write_text(path, page)  # whole or not at all
        return path

    def rsmtool_frames(self, *, per_response: bool = True) -> dict[str, pd.DataFrame]:
        """Every table in RSMTool's file layout (index and column names as rsmeval writes).

        ``test_excluded_composition`` is written without its index (as rsmeval does); every
        other frame with it. ``per_response=False`` leaves out (and does not build) the tables
        with one row per response (``pred_processed``, ``test_metadata``, ...).
        """
        data = [name for name in self._data_names if per_response or not _per_response(name)]
        if data:
            self._load_data(None if per_response else data[0])
        names = [name for name in self._files if name not in self._data_names] + data
        return {name: self._files[name] for name in names if name in self._files}

    def to_csv(self, directory, prefix: str = "pdmetrics") -> list[Path]:
        """Write every table as ``<directory>/<prefix>_<name>.csv``, in RSMTool's layout.

        The file names, index, column names and values are those of ``rsmeval``'s output
        directory, so pipelines that read those files can switch without change. The same
        as ``write(directory, prefix, file_format="csv")``.

        Returns
        -------
        list of pathlib.Path
            The files written.
        """
        return self.write(directory, prefix, file_format="csv")

    def write(self, directory, prefix: str = "pdmetrics", file_format: str = "csv") -> list[Path]:
        """Write every table as ``<directory>/<prefix>_<name>.<file_format>``, as rsmeval does.

        Parameters
        ----------
        directory : str or path-like
            Created if missing.
        prefix : str, default "pdmetrics"
            The start of every file name (rsmeval's ``experiment_id``).
        file_format : {"csv", "tsv", "xlsx", "jsonlines"}, default "csv"
            rsmeval's ``file_format``. Each table's index is the first column, headed by the
            index's name (empty when it has none), as rsmeval writes it; xlsx needs openpyxl
            (``pip install "pdmetrics[excel]"``).

        Returns
        -------
        list of pathlib.Path
            The files written.

        Notes
        -----
        Each file is written whole or not at all (a temporary file beside it, renamed). The
        marker ``<prefix>.pdmetrics-incomplete`` stays in ``directory`` until the last file is
        in place; then ``.pdmetrics-<prefix>.json`` records the files, and those an earlier
        write of ``prefix`` in ``file_format`` left there and this one did not write are
        removed. A ``prefix``
        or subgroup column name that is not a plain file name (a ``/`` or ``\\``, ``..``, an
        absolute path) raises :class:`~pdmetrics.errors.InvalidInputError` before anything
        is written.

        Examples
        --------
        >>> import tempfile
        >>> import pandas as pd
        >>> import pdmetrics
        >>> from pdmetrics.datasets import simulate_scores
        >>> report = simulate_scores(300, seed=2).scoring.report(human="sc1", system="raw", trim_min=1,
        ...                                                      trim_max=6)
        >>> with tempfile.TemporaryDirectory() as directory:
        ...     paths = report.write(directory, prefix="demo", file_format="tsv")
        ...     back = pd.read_csv(paths[0], sep="\\t", index_col=0)
        >>> paths[0].name, list(back.index)
        ('demo_eval.tsv', ['raw', 'raw_trim', 'raw_trim_round'])
        """
        return self._write(directory, prefix, file_format)

    def _writable(
        self,
        prefix,
        file_format,
        skip=(),
        option: str = "prefix=",
        group_option: str = "by=",
        format_option: str = "file_format=",
    ) -> tuple[dict, list]:
        """The tables :meth:`write` writes and the names of the streamed ones, once every
        check that can refuse them has passed (nothing is written before): the format, the
        prefix and subgroup names as file names, the length of every file name. The options
        are named as the caller gave them (``--prefix``, ``--group``, ``--file-format`` on the
        command line)."""
        if file_format not in _FILE_WRITERS:
            raise InvalidInputError(
                f"{shown(format_option, file_format)}: write one of {', '.join(map(repr, _FILE_WRITERS))}."
            )
        names = self._streamed[0]
        if file_format == "xlsx":
            if names:
                raise InvalidInputError(f"{shown(format_option, 'xlsx')}: {_STREAMED_FORMATS}")
            optional_module("openpyxl", "excel", "Writing xlsx files")
        check_name_part(prefix, option, whole=True)
        for group in self.groups:
            check_name_part(group, group_option, _GROUP_NAME_FIX.format(group=group))
        tables = {name: frame for name, frame in self.rsmtool_frames().items() if not name.startswith(skip)}
        streamed = [name for name in names if not name.startswith(skip)]
        check_file_names(
            [f"{prefix}_{name}.{file_format}" for name in [*tables, *streamed]],
            option,
            prefix,
            groups=self.groups,
            group_option=group_option,
        )
        return tables, streamed

    def _write(self, directory, prefix, file_format, skip=()) -> list[Path]:
        """:meth:`write`, leaving out the tables whose names start with one of ``skip``."""
        if os.fspath(directory) == "":  # Path("") is the current folder: a forgotten value, not a choice
            raise InvalidInputError("directory='': give a folder, e.g. directory='results'.")
        tables, streamed = self._writable(prefix, file_format, skip)
        names, writer = self._streamed
        directory = Path(directory)
        written = []
        # inside a command's run (evaluate, rsmeval): that run
        with output_run(directory, prefix, "write", only=f".{file_format}") as run:
            for name, frame in tables.items():
                path = directory / f"{prefix}_{name}.{file_format}"
                with atomic_path(path) as part:
                    _FILE_WRITERS[file_format](frame, part, name not in self._unindexed)
                written.append(path)
            if (
                streamed
            ):  # in rsmeval's order: before the summaries of the data (test_excluded_composition, ...)
                at = next(
                    (i for i, path in enumerate(written) if path.stem.endswith("_test_excluded_composition")),
                    0,
                )
                written[at:at] = writer(directory, prefix, file_format, names=streamed)
        if run.notes and run.kind == "write":  # its own run (a command prints the notes of its run)
            for note in run.notes:
                emit(f"{note}.", PdmetricsWarning)
        self._written = written
        return written


def _html_path(path) -> Path:
    """``to_html``'s ``path``, refused clearly when it cannot be a file to write."""
    if os.fspath(path) == "":
        raise InvalidInputError("path='': give the file to write, e.g. path='report.html'.")
    path = Path(path)
    if path.is_dir():
        raise InvalidInputError(
            f"path={str(path)!r} is a folder: give a file in it, e.g. path={str(path / 'report.html')!r}."
        )
    if not path.parent.is_dir():
        what = "is a file, not a folder" if path.parent.exists() else "does not exist"
        raise InvalidInputError(
            f"path={str(path)!r}: the folder {str(path.parent)!r} {what}; create the folder first, or "
            f"write into an existing one, e.g. path={path.name!r}."
        )
    return path


#: The end of the message refusing a group column whose name cannot be part of a file name.
_GROUP_NAME_FIX = (
    "the subgroup column {group!r} names files (<prefix>_eval_by_<column>.csv, ...); rename the column "
    "(e.g. df.rename(columns={{{group!r}: 'L1'}})) before writing the files. The report itself can be "
    "computed and shown with this name."
)


def _with_index_column(frame: pd.DataFrame, index: bool) -> pd.DataFrame:
    """With ``index``, the index as the first column, headed by its name or "" (rsmeval's
    ``reset_index``)."""
    return frame.rename_axis(index=frame.index.name or "").reset_index() if index else frame


#: How each ``file_format`` is written (rsmeval's ``DataWriter.write_frame_to_file``), with
#: or without the index as the first column. csv and tsv are pandas' ``to_csv`` files, byte
#: for byte, written faster for the large per-response tables.
_FILE_WRITERS = {
    "csv": lambda frame, path, index: write_delimited(frame, path, ",", index),
    "tsv": lambda frame, path, index: write_delimited(frame, path, "\t", index),
    "xlsx": lambda frame, path, index: _with_index_column(frame, index).to_excel(path, index=False),
    "jsonlines": lambda frame, path, index: _with_index_column(frame, index).to_json(
        path, orient="records", lines=True
    ),
}


def _score_types(scale_with) -> tuple[tuple[str, ...], str]:
    if scale_with is None:
        return _RAW_TYPES, "raw"
    if isinstance(scale_with, str) and scale_with == "asis":
        return _SCALE_TYPES, "scale"
    return _RAW_TYPES + _SCALE_TYPES, "scale"


def _processed_scores(frame, system, trim_min, trim_max, trim_tolerance, scale_with, human) -> tuple:
    """RSMTool's score types of ``system``, keyed by type name, and the scaling used.

    ``scale_with="raw"`` is what rsmeval 12 does with it: no training file is read, the
    predictions are "scaled" with mean 0 and SD 1 (so ``scale`` equals ``raw``) and all six
    score types are evaluated, the ``scale`` ones as primary.
    """
    scaling = _scaling(scale_with, human, system)
    raw = numeric_values(frame[system], "system")
    return _score_arrays(raw, trim_min, trim_max, trim_tolerance, scaling, scale_with), scaling


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
) -> EvaluationReport:
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
    """
    human, system, second_human, groups = _report_columns(
        frame, human, system, second_human, by, scale_with, layout
    )
    score_names = _score_names(human, second_human, system, scale_with)
    if candidate is not None:
        candidate = _one_column(frame, "candidate", candidate)
    elif min_items_per_candidate is not None:
        raise InvalidInputError(
            f"`min_items_per_candidate={plain(min_items_per_candidate)!r}` needs `candidate=`: the column "
            "of candidate ids whose responses are counted."
        )
    sizes = rsmeval_data.check_min_n_per_group(min_n_per_group, groups)
    ids = rsmeval_data.response_ids(frame, id)
    flags = rsmeval_data.check_flags(frame, flag)
    flagged = rsmeval_data.flag_mask(frame, flags)
    scores, scaling = _processed_scores(frame, system, trim_min, trim_max, trim_tolerance, scale_with, human)
    _, primary = _score_types(scale_with)

    h = numeric_values(frame[human], "human")
    s = numeric_values(frame[system], "system")
    rows = _filtered_rows(h, s, flagged, exclude_zero)  # rsmeval filters on the flags first
    report_exclusions(rows, "system score", human, repr(system))
    keep = rows.mask
    few_items = None
    if candidate is not None and min_items_per_candidate:
        few_items = keep & ~rsmeval_data.candidate_mask(frame[candidate], keep, min_items_per_candidate)
        keep = keep & ~few_items
    selection = _selection(h, s, flagged, rows.mask, few_items, keep, exclude_zero)
    everything = bool(keep.all())  # then no row selection (and no copy) is needed
    h1 = h if everything else h[keep]
    systems = {name: values if everything else values[keep] for name, values in scores.items()}
    # each group column encoded once, so every subgroup table and fit reuses the codes
    encoded = {g: _group_codes(frame[g], None if everything else keep) for g in groups}
    h2 = None
    if second_human is not None:
        h2 = numeric_values(frame[second_human], "second_human")
        h2 = h2 if everything else h2[keep]  # only read below: no copy when every row is kept
        if exclude_zero:
            h2 = np.where(h2 == 0, np.nan, h2)

    trim, trim_round = f"{primary}_trim", f"{primary}_trim_round"
    tables: dict[str, pd.DataFrame] = {}
    files: dict[str, pd.DataFrame] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # undefined cells are expected in small groups; the tables show NaN
        # one pass per score column serves eval, eval_by's pooled row, confMatrix and score_dist
        scored = select_scored_rows(h1, list(systems.values()), exclude_zero)
        if not scored.mask.all():  # a derived score overflowed: leave those rows out of every table
            h1, h2 = h1[scored.mask], None if h2 is None else h2[scored.mask]
            systems = {name: values[scored.mask] for name, values in systems.items()}
            encoded = {
                g: _present_groups(codes[scored.mask], labels) for g, (codes, labels) in encoded.items()
            }
        buffers = work_buffers(h1.size)  # one set of work arrays for every pass of statistics
        h_labels = kappa_labels(h1, "human", buffers[0])
        labels = {name: kappa_labels(values, "system", buffers[0]) for name, values in systems.items()}
        pooled = pair_statistics_many(
            h1, systems, human_labels=h_labels, system_labels=labels, buffers=buffers
        )
        tables["eval"] = evaluation_table(pooled, scored, exclude_zero)
        double = h2 is not None and bool(np.isfinite(h2).any())
        if double:
            doubled = select_scored_rows(h1, [h2], exclude_zero)
            pair = h1[doubled.mask], h2[doubled.mask]
            pair_labels = h_labels[doubled.mask], kappa_labels(pair[1], "system", buffers[0])
            human_pair = pair_statistics(
                *pair, human_labels=pair_labels[0], system_labels=pair_labels[1], buffers=buffers
            )
            tables["consistency"] = consistency_table(human_pair, "sc1", "sc2", doubled, exclude_zero)
        if double or rater_error_variance is not None:
            ratings = column_statistics([h1, h2] if double else [h1], h1.size, buffers)
            tables["true_score_eval"] = true_score_table_of_statistics(
                systems,
                ratings,
                rater_error_variance,
                buffers[1],  # buffers[0] holds the means
            )
        if groups:  # every group column in one pass over the rows, then one table per column
            passes = group_passes(encoded)  # the cell codes of both the eval and consistency passes
            by_table = attach_info(
                grouped_evaluation(h1, systems, encoded, h_labels, labels, pooled, buffers, passes),
                **scored.info("system"),
                exclude_zero=exclude_zero,
            )
            by_consistency = None
            if double:
                population = (*mean_and_sd(h1, buffers[0]), *mean_and_sd(pair[1], buffers[0]))
                by_consistency = attach_info(
                    grouped_consistency(
                        *pair, doubled.mask, encoded, population, human_pair, pair_labels, buffers, passes
                    ),
                    **doubled.second_human_info(),
                    exclude_zero=exclude_zero,
                )
            fairness = score_fairness_tables_of_codes(
                pd.Series(h1, name="sc1", copy=False),
                pd.Series(systems[trim], name=trim, copy=False),
                encoded,
                buffers,
            )
        for group in groups:
            _subgroup_tables(
                tables,
                files,
                group,
                fairness[group],
                _one_group_column(by_table, group),
                None if by_consistency is None else _one_group_column(by_consistency, group),
                trim,
                trim_round,
                primary,
            )
            # the fairness section's conditional score plot: mean trimmed score by human score and group
            tables[f"conditional_means_by_{group}"] = conditional_means_of_codes(
                h_labels, systems[trim], *encoded[group], group
            )
        primary_labels = {trim_round: labels[trim_round]}
        work = buffers[0].view(np.intp)  # a free work array for the label counts
        tables["confMatrix"] = confusion_table(h_labels, primary_labels, scored, exclude_zero, work)
        if double:
            tables["confMatrix_h1h2"] = confusion_table(
                pair_labels[0], {"sc2": pair_labels[1]}, _all_rows(pair_labels[0].size), exclude_zero, work
            )
        tables["score_dist"] = distribution_table(h_labels, primary_labels, scored, exclude_zero, work)
        _summary_files(tables, files, primary)
    info = {
        **rows.info("system"),
        "n_used": int(keep.sum()),
        "n_input": int(h.size),
        "excluded_by_flags": 0 if flagged is None else int(h.size - flagged.sum()),
        "excluded_candidates": 0 if few_items is None else int(few_items.sum()),
        "min_n_per_group": sizes,
        "exclude_zero": exclude_zero,
        "trim_min": trim_min,
        "trim_max": trim_max,
        "trim_tolerance": trim_tolerance,
        "scale_with": "frame" if isinstance(scale_with, pd.DataFrame) else scale_with,
        "rater_error_variance": rater_error_variance,
        "layout": layout,
        "primary_score": score_names[primary],
    }
    if isinstance(scale_with, pd.DataFrame):
        files["postprocessing_params"] = _postprocessing_params(scaling, trim_min, trim_max, trim_tolerance)
        tables["postprocessing_params"] = files["postprocessing_params"]
    data_names = _data_names(selection, second_human is not None, groups)
    names = rsmeval_data.rsmeval_names(frame.columns, id, human, second_human, system, candidate)
    common = dict(names=names, human=h, scores=scores, groups=groups, candidate=candidate)

    def responses():
        second = None if second_human is None else numeric_values(frame[second_human], "second_human")
        tables = rsmeval_data.response_tables(
            frame, ids, selection, second_human=second, exclude_zero=exclude_zero, **common
        )
        return tables, set()

    def summaries():
        return rsmeval_data.composition_tables(frame, selection, exclude_zero=exclude_zero, **common)

    builders = [
        _DataBuilder(summaries, [name for name in data_names if not _per_response(name)]),
        _DataBuilder(responses, [name for name in data_names if _per_response(name)]),
    ]
    return _named_report(
        tables, files, primary, groups, info, (data_names, builders), names, score_names, layout
    )


def _named_report(tables, files, primary, groups, info, data, names, score_names, layout) -> EvaluationReport:
    """The :class:`EvaluationReport` of tables of RSMTool's names, renamed for ``layout``
    (``data``: the data tables' names and builders; ``names``: ``rsmeval_names``)."""
    data_names, builders = data
    renames = {}
    if layout == "tidy":  # the data tables renamed on first use; the others now, unless nothing changes
        renames = _data_renames(data_names, names, score_names)
        if any(name != score_type for score_type, name in score_names.items()):
            tables = {name: _tidy_table(name, table, score_names) for name, table in tables.items()}
    return EvaluationReport(
        tables,
        files,
        primary,
        groups,
        info,
        (data_names, builders, renames),
        score_names=score_names,
        layout=layout,
    )


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


def _per_response(name: str) -> bool:
    """A data table with one row per response (the HTML report does without them)."""
    return name.startswith(rsmeval_data.PER_RESPONSE_PREFIXES)


class _DataBuilder:
    """A deferred builder of some of rsmeval's data tables: called, it returns
    ``({name: frame}, names written without index)``; ``names`` are the tables it makes."""

    def __init__(self, build, names) -> None:
        self.build = build
        self.names = tuple(names)

    def __call__(self):
        return self.build()


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


def _tidy_table(name: str, table: pd.DataFrame, score_names: dict) -> pd.DataFrame:
    """A table of RSMTool's names with the scores named by the user's names."""
    if name == "eval_short":  # columns "<metric>.<score type>"
        return table.set_axis([_suffixed(column, score_names) for column in table.columns], axis=1)
    columns = ("system", "human", "second_human") if name == "consistency" else ("system",)
    relabelled = {
        column: [score_names.get(value, value) for value in table[column]]
        for column in columns
        if column in table.columns
    }
    return table.assign(**relabelled) if relabelled else table


def _suffixed(column: str, score_names: dict) -> str:
    metric, dot, score_type = column.partition(".")
    return f"{metric}.{score_names[score_type]}" if dot and score_type in score_names else column


def _data_renames(data_names, names: dict, score_names: dict) -> dict[str, dict]:
    """The column renames that give rsmeval's data tables the user's names: the scores in
    ``pred_processed`` and ``test_human_scores``, every column's name in ``frame`` elsewhere
    (undoing RSMTool's ``rename_default_columns``; the response ids stay ``spkitemid``)."""
    original = {rsmeval: column for column, rsmeval in names.items() if rsmeval not in (column, "spkitemid")}
    renames = {name: original for name in data_names}
    renames.update({name: score_names for name in ("pred_processed", "test_human_scores")})
    return {name: {k: v for k, v in rename.items() if k != v} for name, rename in renames.items()}


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


def _data_names(selection: rsmeval_data.Selection, double: bool, groups: list) -> tuple[str, ...]:
    """The names of rsmeval's data tables for this run (in the order rsmeval writes them)."""
    excluded = selection.human_bad.any() or selection.human_zero.any() or selection.system_bad.any()
    excluded = excluded or (selection.few_items is not None and selection.few_items.any())
    flagged_out = selection.flag_out is not None and selection.flag_out.any()
    return _data_names_of(bool(excluded), bool(flagged_out), double, groups)


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


def _all_rows(n: int) -> ScoredRows:
    """Rows of which none was left out (for tables of rows already selected)."""
    return ScoredRows(np.ones(n, dtype=bool), n, 0, 0, 0)


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
# report() chunk by chunk: chunk of rows -> ReportState -> combine -> the report
# --------------------------------------------------------------------------------------
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
    id: Hashable | None = None

    @property
    def primary(self) -> str:
        return _score_types(self.scale_with)[1]


def report_options(
    meta: pd.DataFrame,
    *,
    human,
    system,
    second_human=None,
    by=None,
    id=None,
    flag=None,
    min_n_per_group=None,
    trim_min: float,
    trim_max: float,
    trim_tolerance: float = DEFAULT_TRIM_TOLERANCE,
    scale_with=None,
    scaling=None,
    exclude_zero: bool = True,
    rater_error_variance: float | None = None,
    layout: str = "tidy",
) -> ReportOptions:
    """report()'s arguments checked on ``meta`` (a frame with the columns, e.g. no rows);
    ``scaling``: the scaling parameters of a training frame already summarised."""
    human, system, second_human, groups = _report_columns(
        meta, human, system, second_human, by, scale_with, layout
    )
    check_exclude_zero(exclude_zero)
    check_trim_range(trim_min, trim_max, trim_tolerance)
    if rater_error_variance is not None:
        check_error_variance(rater_error_variance, "rater_error_variance")
    if scaling is None:
        scaling = _scaling(scale_with, human, system)
    return ReportOptions(
        human,
        system,
        second_human,
        tuple(groups),
        rsmeval_data.check_flags(meta, flag),
        trim_min,
        trim_max,
        trim_tolerance,
        scale_with if scale_with is None or isinstance(scale_with, (str, Mapping)) else "frame",
        scaling,
        exclude_zero,
        rater_error_variance,
        rsmeval_data.check_min_n_per_group(min_n_per_group, groups),
        layout,
        rsmeval_data.rsmeval_names(meta.columns, id, human, second_human, system, None),
        None if id is None else _one_column(meta, "id", id),
    )


@dataclass(frozen=True)
class ReportState:
    """The additive state of report()'s summary tables over some rows.

    Attributes
    ----------
    n_input, n_flagged_out : int
        Rows seen, and rows left out by the flags.
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
        Group column -> ``(group, human_score) -> [N, sum of the trimmed score]``.
    composition : dict
        Group column -> responses evaluated per group (``data_composition_by``).
    """

    n_input: int
    n_flagged_out: int
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

    def combine(self, other: ReportState) -> ReportState:
        """The state of the union of two disjoint row sets."""
        return ReportState(
            self.n_input + other.n_input,
            self.n_flagged_out + other.n_flagged_out,
            self.rows.combine(other.rows),
            self.excluded + other.excluded,
            self.evaluation.combine(other.evaluation),
            _combined(self.consistency, other.consistency),
            self.pairs.combine(other.pairs),
            _combined(self.human_pairs, other.human_pairs),
            _combined(self.true_score, other.true_score),
            _combined(self.fairness, other.fairness),
            {g: _added(table, other.conditional[g]) for g, table in self.conditional.items()},
            {g: _added(counts, other.composition[g]) for g, counts in self.composition.items()},
        )


def _combined(a, b):
    return None if a is None else a.combine(b)


def _added(a: pd.Series, b: pd.Series) -> pd.Series:
    """Counts (or sums) by key of two chunks."""
    return a.add(b, fill_value=0) if len(a) and len(b) else (a if len(a) else b)


def report_state(frame: pd.DataFrame, options: ReportOptions) -> ReportState:
    """The :class:`ReportState` of one chunk of rows (``frame``: any rows of the whole frame;
    no warning raised here, a chunk may have no usable row).

    report() chunk by chunk: :func:`report_options` checks the arguments on the columns,
    each chunk gives its state, the states combine, :func:`report_from_state` makes the
    report (what ``ddf.scoring.report`` does partition by partition).

    Examples
    --------
    >>> import pdmetrics
    >>> from pdmetrics.datasets import simulate_scores
    >>> from pdmetrics.rsmeval.reporting import report_from_state, report_options, report_state
    >>> df = simulate_scores(1000, seed=0)
    >>> options = report_options(df.iloc[:0], human="sc1", system="raw", by="L1", trim_min=1, trim_max=6)
    >>> state = report_state(df.iloc[:400], options).combine(report_state(df.iloc[400:], options))
    >>> chunked = report_from_state(state, options)
    >>> whole = df.scoring.report(human="sc1", system="raw", by="L1", trim_min=1, trim_max=6)
    >>> bool((chunked["eval"]["corr"] - whole["eval"]["corr"]).abs().max() < 1e-12)
    True
    """
    o = options
    flagged = rsmeval_data.flag_rows(frame, o.flags)
    h = numeric_values(frame[o.human], "human")
    s = numeric_values(frame[o.system], "system")
    scores = _score_arrays(s, o.trim_min, o.trim_max, o.trim_tolerance, o.scaling, o.scale_with)
    rows = _filtered_rows(h, s, flagged, o.exclude_zero)
    keep = rows.mask
    selection = _selection(h, s, flagged, keep, None, keep, o.exclude_zero)
    left_out = np.flatnonzero(selection.human_bad | selection.human_zero | selection.system_bad)
    by = {g: _rows_of(frame[g], keep) for g in o.groups}
    h1 = h[keep]
    systems = {name: values[keep] for name, values in scores.items()}
    evaluation = evaluation_state(pd.Series(h1, name="sc1"), _named(systems), by or None, o.exclude_zero)
    finite = np.logical_and.reduce([np.isfinite(values) for values in systems.values()])
    if not finite.all():  # a derived score overflowed: those rows are left out of every other table
        h1, systems = h1[finite], {name: values[finite] for name, values in systems.items()}
        by = {g: _rows_of(column, finite) for g, column in by.items()}
    primary = o.primary
    trim, trim_round = f"{primary}_trim", f"{primary}_trim_round"
    human = pd.Series(h1, name="sc1")
    consistency = human_pairs = None
    if o.second_human is not None:
        h2 = numeric_values(frame[o.second_human], "second_human")[keep]
        h2 = h2[finite] if not finite.all() else h2
        if o.exclude_zero:
            h2 = np.where(h2 == 0, np.nan, h2)
        consistency = consistency_state(human, pd.Series(h2, name="sc2"), o.exclude_zero, by or None)
        double = np.isfinite(h2)
        human_pairs = score_pair_state(
            pd.Series(h1[double], name="sc1"), {"sc2": pd.Series(h2[double], name="sc2")}, o.exclude_zero
        )
    true_score = None
    if o.second_human is not None or o.rater_error_variance is not None:
        ratings = np.column_stack([h1, h2]) if o.second_human is not None else h1[:, None]
        true_score = true_score_table_state(systems, ratings)
    fairness = None
    conditional = {}
    if by:
        fairness = score_fairness_state(
            human,
            pd.Series(systems[trim], name=trim),
            {g: rsmeval_data.subgroup_values(c) for g, c in by.items()},
        )
        h_labels = kappa_labels(h1, "human")
        for g, column in by.items():
            means = conditional_means_of_codes(h_labels, systems[trim], *subgroup_codes(column), g)
            sums = pd.DataFrame({"N": means["N"], "sum": means["N"] * means["sys_mean"]})
            conditional[g] = sums.set_axis(pd.MultiIndex.from_frame(means[["group", "human_score"]]))
    composition = {
        g: pd.Series(rsmeval_data.subgroup_values(frame[g]).array[keep]).value_counts() for g in o.groups
    }
    return ReportState(
        len(frame),
        0 if flagged is None else int(flagged.size - flagged.sum()),
        rows.counts(),
        rsmeval_data.excluded_counts(left_out, h, scores),
        evaluation,
        consistency,
        score_pair_state(
            human, {trim_round: pd.Series(systems[trim_round], name=trim_round)}, o.exclude_zero
        ),
        human_pairs,
        true_score,
        fairness,
        conditional,
        composition,
    )


def _named(arrays: dict) -> dict:
    return {name: pd.Series(values, name=name, copy=False) for name, values in arrays.items()}


def _rows_of(column: pd.Series, mask: np.ndarray) -> pd.Series:
    """The rows of ``mask``, numbered from 0."""
    return column[mask].reset_index(drop=True)


def _filtered_rows(h: np.ndarray, s: np.ndarray, flagged, exclude_zero: bool) -> ScoredRows:
    """rsmeval's score filters, on the rows the flags keep (``flagged``; None: every row)."""
    if flagged is None:
        return select_scored_rows(h, [s], exclude_zero)
    rows = select_scored_rows(h[flagged], [s[flagged]], exclude_zero)
    mask = np.zeros(h.size, dtype=bool)
    mask[flagged] = rows.mask
    return dataclasses.replace(rows, mask=mask)


def report_from_state(state: ReportState, options: ReportOptions, writer=None) -> EvaluationReport:
    """The :class:`EvaluationReport` of the summary tables from the state of every row.

    The per-response data tables (``pred_processed``, ...) are not in the state: with
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
            labels = {g: evaluation.groups[g].in_order().labels for g in groups}
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
            tables[f"conditional_means_by_{group}"] = _conditional_means(
                state.conditional[group], labels[group], group
            )
        tables["confMatrix"] = confusion_from_state(state.pairs, "sc1", o.exclude_zero)
        if double:
            tables["confMatrix_h1h2"] = confusion_from_state(state.human_pairs, "sc1", o.exclude_zero)
        tables["score_dist"] = distribution_from_state(state.pairs, "sc1", o.exclude_zero)
        _summary_files(tables, files, primary)
    info = {
        **state.rows.info("system"),
        "n_used": state.rows.n_used,
        "n_input": state.n_input,
        "excluded_by_flags": state.n_flagged_out,
        "excluded_candidates": 0,
        "min_n_per_group": o.min_n_per_group,
        "exclude_zero": o.exclude_zero,
        "trim_min": o.trim_min,
        "trim_max": o.trim_max,
        "trim_tolerance": o.trim_tolerance,
        "scale_with": o.scale_with,
        "rater_error_variance": o.rater_error_variance,
        "layout": o.layout,
    }
    score_names = _score_names(o.human, o.second_human, o.system, o.scale_with)
    info["primary_score"] = score_names[primary]
    if o.scale_with == "frame":
        files["postprocessing_params"] = _postprocessing_params(
            o.scaling, o.trim_min, o.trim_max, o.trim_tolerance
        )
        tables["postprocessing_params"] = files["postprocessing_params"]
    excluded = bool(state.excluded.sum())
    data_names = _data_names_of(excluded, bool(state.n_flagged_out), o.second_human is not None, groups)
    summary_names = [name for name in data_names if not _per_response(name)]
    builders = [_DataBuilder(partial(_composition_tables, state, o), summary_names)]
    result = _named_report(
        tables, files, primary, groups, info, (tuple(summary_names), builders), o.names, score_names, o.layout
    )
    if writer is not None:
        streamed = tuple(name for name in data_names if _per_response(name))
        result._streamed = (streamed, partial(writer, names=streamed))
    return result


def _conditional_means(sums: pd.DataFrame, labels: np.ndarray, group) -> pd.DataFrame:
    """``conditional_means_by_<group>`` from the combined counts and sums, groups in ``labels``' order."""
    keys = sums.index.to_frame(index=False)
    rank = pd.Series(np.arange(len(labels)), index=pd.Index(labels, dtype=object))
    order = np.lexsort(
        (keys["human_score"].to_numpy(), rank.reindex(keys["group"].astype(object)).to_numpy())
    )
    keys, n, total = keys.iloc[order], sums["N"].to_numpy()[order], sums["sum"].to_numpy()[order]
    return pd.DataFrame(
        {
            "by": group,
            "group": keys["group"].to_numpy(),
            "human_score": keys["human_score"].to_numpy(),
            "N": n.astype(np.int64),
            "sys_mean": total / n,
        }
    )


def _composition_tables(state: ReportState, options: ReportOptions) -> tuple[dict, set]:
    """rsmeval's summary data tables from the state (as ``rsmeval_data.composition_tables``)."""
    names = options.names
    files = {
        "test_excluded_composition": rsmeval_data.excluded_composition_table(
            state.excluded, False, options.exclude_zero
        )
    }
    composition = {"partition": ["Evaluation"], "responses": [state.rows.n_used]}
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
    o = options
    if start is not None:
        frame = frame.set_axis(pd.RangeIndex(start, start + len(frame)))
    flagged = rsmeval_data.flag_rows(frame, o.flags)
    h = numeric_values(frame[o.human], "human")
    s = numeric_values(frame[o.system], "system")
    scores = _score_arrays(s, o.trim_min, o.trim_max, o.trim_tolerance, o.scaling, o.scale_with)
    keep = _filtered_rows(h, s, flagged, o.exclude_zero).mask
    selection = _selection(h, s, flagged, keep, None, keep, o.exclude_zero)
    second = None if o.second_human is None else numeric_values(frame[o.second_human], "second_human")
    tables = rsmeval_data.response_tables(
        frame,
        rsmeval_data.response_ids(frame, o.id),
        selection,
        names=o.names,
        human=h,
        second_human=second,
        scores=scores,
        groups=list(o.groups),
        candidate=None,
        exclude_zero=o.exclude_zero,
    )
    texts = {}
    for name, table in tables.items():
        if name == "test_excluded_responses":
            ends = np.cumsum([int(m.sum()) for m in (selection.human_bad, selection.human_zero)])
            pieces = enumerate(np.split(np.arange(len(table)), ends))
            parts = [(part, table.iloc[rows]) for part, rows in pieces]
        else:
            parts = [(0, table)]
        for part, piece in parts:
            texts[name, part] = _text(piece, file_format)
    return texts


def _text(frame: pd.DataFrame, file_format: str) -> tuple[str, str]:
    """A frame (written with its index) as ``(header, body)`` text in ``file_format``."""
    if file_format == "jsonlines":
        return "", _with_index_column(frame, True).to_json(orient="records", lines=True) if len(frame) else ""
    if file_format not in ("csv", "tsv"):
        raise InvalidInputError(f"`file_format={file_format!r}`: {_STREAMED_FORMATS}")
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "part"
        write_delimited(frame, path, "," if file_format == "csv" else "\t", True)
        text = path.read_text(encoding="utf-8")
    header, _, body = text.partition("\n")
    return header + "\n", body
