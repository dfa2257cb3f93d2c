"""The report object: :class:`EvaluationReport` (RSMTool's tables by name, an HTML summary in
Jupyter, the HTML page) and its writers (``to_csv``/``write``: rsmeval's own files, each whole or
not at all), and the names of the tables in the tidy and RSMTool layouts.

:func:`pdmetrics.rsmeval.report` (:mod:`pdmetrics.rsmeval.reporting`) makes it; nothing here
reads the responses."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path

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
from pdmetrics._warnings import emit
from pdmetrics.errors import InvalidInputError, PdmetricsWarning
from pdmetrics.rsmeval import data as rsmeval_data
from pdmetrics.rsmeval import html_page as html_report

__all__ = [
    "DataBuilder",
    "EvaluationReport",
    "STREAMED_FORMATS",
    "named_report",
    "is_per_response",
    "with_index_column",
    "write_table",
]

#: Why a report computed on dask writes no xlsx file.
STREAMED_FORMATS = (
    "a report computed on dask writes its per-response tables partition by partition, as csv, tsv "
    "or jsonlines; pass one of those."
)


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
        """Build the data tables' files: those of ``name``'s builder, or (None) every one."""
        pending = []
        for builder in self._data_builders:
            if name is not None and name not in builder.names:
                pending.append(builder)
                continue
            files, unindexed = builder()
            self._unindexed |= unindexed
            self._files.update(
                {table_name: files[table_name] for table_name in builder.names if table_name in files}
            )
        self._data_builders = pending

    def _data_table(self, name: str) -> None:
        """The tidy table of the data table ``name`` (its file's frame, the index as a column),
        made on first use: writing the files needs only the frames."""
        if name not in self._files:
            self._load_data(name)
        if name in self._files:
            frame = self._files[name]
            table = frame if name in self._unindexed else frame.reset_index()
            renames = self._data_renames.get(name)
            self._tables[name] = table.rename(columns=renames) if renames else table

    def __getitem__(self, name: str) -> pd.DataFrame:
        if name in self._data_names and name not in self._tables:
            self._data_table(name)
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

    def to_html(self, path=None, *, sections=None, title=None, files=None, comparison=None):
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
        comparison : DataFrame, optional
            A comparison table (``df.scoring.compare(human=..., system=[...])``, or any
            accessor's ``compare``): a section "Comparison of the systems" after the evaluation
            sections, a forest figure per pair of systems (each metric's difference and interval
            around a zero line) and the table.

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
            self,
            sections=sections,
            title=title,
            files=self._written if files is None else files,
            comparison=comparison,
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
        data = [name for name in self._data_names if per_response or not is_per_response(name)]
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
                raise InvalidInputError(f"{shown(format_option, 'xlsx')}: {STREAMED_FORMATS}")
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
                written.append(write_table(frame, path, file_format, name not in self._unindexed))
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


def write_table(frame: pd.DataFrame, path, file_format: str = "csv", index: bool = True) -> Path:
    """Write one table as rsmeval writes its files (``file_format``: csv, tsv, xlsx or
    jsonlines; the index as the first column with ``index``), whole or not at all."""
    with atomic_path(path) as part:
        _FILE_WRITERS[file_format](frame, part, index)
    return Path(path)


def with_index_column(frame: pd.DataFrame, index: bool) -> pd.DataFrame:
    """With ``index``, the index as the first column, headed by its name or "" (rsmeval's
    ``reset_index``)."""
    return frame.rename_axis(index=frame.index.name or "").reset_index() if index else frame


#: How each ``file_format`` is written (rsmeval's ``DataWriter.write_frame_to_file``), with
#: or without the index as the first column. csv and tsv are pandas' ``to_csv`` files, byte
#: for byte, written faster for the large per-response tables.
_FILE_WRITERS = {
    "csv": lambda frame, path, index: write_delimited(frame, path, ",", index),
    "tsv": lambda frame, path, index: write_delimited(frame, path, "\t", index),
    "xlsx": lambda frame, path, index: with_index_column(frame, index).to_excel(path, index=False),
    "jsonlines": lambda frame, path, index: with_index_column(frame, index).to_json(
        path, orient="records", lines=True
    ),
}


def named_report(tables, files, primary, groups, info, data, names, score_names, layout) -> EvaluationReport:
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


def is_per_response(name: str) -> bool:
    """A data table with one row per response (the HTML report does without them)."""
    return name.startswith(rsmeval_data.PER_RESPONSE_PREFIXES)


class DataBuilder:
    """A deferred builder of some of rsmeval's data tables: called, it returns
    ``({name: frame}, names written without index)``; ``names`` are the tables it makes."""

    def __init__(self, build, names) -> None:
        self.build = build
        self.names = tuple(names)

    def __call__(self):
        return self.build()


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
