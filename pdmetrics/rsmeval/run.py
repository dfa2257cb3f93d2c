"""Run an rsmeval configuration file: read the predictions, call :func:`report`, write
rsmeval's output tree (``output/``, ``report/``, ``figure/``)."""

from __future__ import annotations

import contextlib
import glob
import warnings
from pathlib import Path

import pandas as pd

from pdmetrics._files import (
    INCOMPLETE_SUFFIX,
    check_file_names,
    check_free,
    is_temporary,
    output_run,
    write_text,
)
from pdmetrics._warnings import emit
from pdmetrics.errors import InvalidInputError, PdmetricsWarning
from pdmetrics.io import read_table
from pdmetrics.rsmeval.config import (
    custom_section_names,
    in_config_terms,
    locate_file,
    read_config,
    report_options,
    report_sections,
    saved_config,
)
from pdmetrics.rsmeval.data import subgroup_values
from pdmetrics.rsmeval.html_page import choose_sections, prefetch_versions, report_html
from pdmetrics.rsmeval.reporting import report
from pdmetrics.rsmeval.responses_input import is_pattern, read_responses

__all__ = ["run_rsmeval", "send_note", "command_run", "refuse_filled_output"]

#: Tables report() has that rsmeval writes only with the fairness_analyses section (its
#: fairness notebook writes them), and one it never writes (rsmtool's, with a scaling file).
_FAIRNESS_TABLES = ("estimates_osa_by_", "estimates_osd_by_", "estimates_csd_by_", "fairness_metrics_by_")
_NOT_RSMEVAL = ("postprocessing_params",)

#: rsmeval's file of the scaling parameters' training predictions must hold these columns.
_SCALING_COLUMNS = ("sc1", "prediction")


def run_rsmeval(
    config_path, output_dir=".", *, force: bool = False, notes=None, engine: str = "pandas"
) -> list[Path]:
    """Run an rsmeval configuration file and write what rsmeval writes under ``output_dir``.

    ``output_dir/output/<experiment_id>_<table>.<file_format>`` (every table, and the
    configuration with its defaults as ``<experiment_id>_rsmeval.json``),
    ``output_dir/report/<experiment_id>_report.html`` and an empty ``output_dir/figure/``
    (the report's figures are inline). An ``output`` folder that is not empty is refused
    unless ``force=True`` (rsmeval's ``-f``). ``notes`` (a callable) receives one line per
    row-exclusion warning. ``engine="dask"`` reads the predictions (a parquet file, or a
    folder or glob of them) as a dask DataFrame and computes the report partition by partition.

    Every file is written whole or not at all; the marker ``<experiment_id>.pdmetrics-incomplete``
    stays in ``output_dir`` until the last file is in place (then the record
    ``.pdmetrics-rsmeval-<experiment_id>.json`` lists the files written), and the files an
    earlier rsmeval run of the experiment wrote there and this one did not are removed (a
    note names them; never a file of a ``pdmetrics evaluate`` run or of ``report.write``).
    The marker is the experiment's lock: while another run of it writes in ``output_dir``,
    this one is refused.

    Returns the files written.
    """
    prefetch_versions()  # the page's sysinfo section, found meanwhile
    output_dir = Path(output_dir)
    csv_dir = output_dir / "output"
    refuse_filled_output(output_dir, force)
    config = read_config(config_path)
    check_free(output_dir, config["experiment_id"], "rsmeval", "output directory", "experiment_id")
    options = report_options(config)
    frame = _predictions(config, options, engine)
    if isinstance(options.get("scale_with"), str) and options["scale_with"] not in ("asis", "raw"):
        options["scale_with"] = _scaling_frame(config, options["human"], options["system"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PdmetricsWarning)
        try:
            result = report(frame, layout="rsmtool", **options)
        except InvalidInputError as error:  # name the configuration's keys, not report()'s keywords
            raise InvalidInputError(in_config_terms(str(error))) from None
    for warning in caught:
        if notes is not None and issubclass(warning.category, PdmetricsWarning):
            notes(str(warning.message))
    experiment = config["experiment_id"]
    # as rsmeval: subgroup and true-score sections the data cannot have are left out; the
    # consistency section stays, saying that no second human score was configured
    applicable = {*choose_sections(result, None), "consistency"}
    sections = [name for name in report_sections(config) if name in applicable]
    custom = custom_section_names(config)
    if custom:
        send_note(
            notes,
            f"custom_sections: pdmetrics runs no notebooks; the report leaves out {', '.join(custom)} "
            "(every other section and file is written).",
        )
    unwritten = _NOT_RSMEVAL + (() if "fairness_analyses" in sections else _FAIRNESS_TABLES)
    # every check that can refuse the files, before the first is written
    result._writable(
        experiment,
        config["file_format"],
        unwritten,
        option="experiment_id",
        group_option="subgroups",
        format_option="file_format",
    )
    check_file_names([f"{experiment}_report.html", f"{experiment}_rsmeval.json"], "experiment_id", experiment)
    # the marker <experiment_id>.pdmetrics-incomplete stays in output_dir until the last file is in place
    with command_run(output_dir, experiment, "rsmeval", "experiment_id", notes):
        for folder in ("output", "figure", "report"):
            (output_dir / folder).mkdir(parents=True, exist_ok=True)
        written = result._write(csv_dir, experiment, config["file_format"], skip=unwritten)
        saved = write_text(csv_dir / f"{experiment}_rsmeval.json", saved_config(config))
        written.append(saved)
        page = output_dir / "report" / f"{experiment}_report.html"
        title = f"{experiment}: {config['description']}" if config["description"] else experiment
        written.append(
            write_text(
                page, report_html(result, sections=sections, title=title, files=written, missing="note")
            )
        )
    return written


def refuse_filled_output(output_dir: Path, force: bool) -> None:
    """RSMTool's refusal of an ``output/`` folder that is not empty, unless ``force`` (its ``-f``);
    a temporary file an interrupted run left there does not count (the run removes it)."""
    csv_dir = output_dir / "output"
    if csv_dir.is_dir() and any(not is_temporary(path.name) for path in csv_dir.iterdir()) and not force:
        unfinished = sorted(path.name for path in output_dir.glob(f"*{INCOMPLETE_SUFFIX}"))
        why = f" (from a run that did not finish: {', '.join(unfinished)})" if unfinished else ""
        raise InvalidInputError(
            f"'{output_dir}' already contains a non-empty 'output' directory{why}; pass -f to overwrite it."
        )


@contextlib.contextmanager
def command_run(
    output_dir: Path, prefix: str, kind: str, prefix_option: str, notes, subfolders=("output", "report")
):
    """The run of an RSMTool command (:func:`pdmetrics._files.output_run`) in ``output_dir`` under
    ``prefix`` (the configuration's id, named ``prefix_option``): its notes, and at the end the
    files an earlier run wrote and this one did not, removed, go to ``notes``."""
    where = {"option": "output directory", "prefix_option": prefix_option, "subfolders": subfolders}
    with output_run(output_dir, prefix, kind, **where) as run:
        for note in run.notes:
            send_note(notes, note)
        yield run
    if run.removed:
        send_note(
            notes,
            f"removed {len(run.removed)} files an earlier run of {prefix!r} wrote in {output_dir} and "
            f"this run did not write again: {', '.join(path.name for path in run.removed)}",
        )


def send_note(notes, message: str) -> None:
    """``notes(message)``, or without ``notes`` a :class:`PdmetricsWarning`."""
    if notes is None:
        emit(message, PdmetricsWarning)
    else:
        notes(message)


def _predictions_path(config: dict):
    """The predictions file (or folder), or a glob pattern of parquet files: as given, or
    relative to the configuration file's folder."""
    given = config["predictions_file"]
    if not is_pattern(given):
        return locate_file(config, "predictions_file")
    return given if glob.glob(str(given)) else str(config["configdir"] / given)


def _predictions(config: dict, options: dict, engine: str = "pandas"):
    """The predictions file, read as rsmeval reads it (id, candidate and subgroup columns as
    text), with the configuration's columns checked."""
    path = _predictions_path(config)
    columns = {
        "id_column": [config["id_column"]],
        "human_score_column": [config["human_score_column"]],
        "system_score_column": [config["system_score_column"]],
        "second_human_score_column": [config["second_human_score_column"]],
        "candidate_column": [config["candidate_column"]],
        "subgroups": config["subgroups"] or [],
        "flag_column": list(config["flag_column"] or {}),
    }
    text = [*columns["id_column"], *columns["subgroups"]]
    if config["candidate_column"]:
        text.append(config["candidate_column"])
    frame = read_responses(path, text_columns=text, engine=engine)
    for key, names in columns.items():
        missing = [name for name in names if name is not None and name not in frame.columns]
        if missing:
            raise InvalidInputError(
                f"{key}: {', '.join(map(repr, missing))} is not a column of the predictions file "
                f"{Path(path).name} (it has: {', '.join(map(str, frame.columns[:20]))})."
            )
    if engine == "dask":  # the same, partition by partition
        groups = columns["subgroups"]
        return frame.assign(**{group: frame[group].map_partitions(subgroup_values) for group in groups})
    for group in columns["subgroups"]:  # blank values are "No info" in every table, as rsmeval
        frame[group] = subgroup_values(frame[group])
    return frame


def _scaling_frame(config: dict, human: str, system: str) -> pd.DataFrame:
    """The ``scale_with`` file's ``sc1`` and ``prediction`` columns, named as ``human`` and
    ``system`` for ``report(scale_with=)``."""
    path = locate_file(config, "scale_with")
    train = read_table(path)
    missing = [name for name in _SCALING_COLUMNS if name not in train.columns]
    if missing:
        raise InvalidInputError(
            f"scale_with: the file {path.name} must have the 'prediction' and the 'sc1' columns; it has no "
            f"{', '.join(map(repr, missing))}."
        )
    return train[list(_SCALING_COLUMNS)].set_axis([human, system], axis=1)
