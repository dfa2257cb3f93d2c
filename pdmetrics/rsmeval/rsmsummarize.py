"""``pdmetrics rsmsummarize CONFIG [OUTPUT_DIR]``: RSMTool's rsmsummarize, several experiments
side by side.

rsmsummarize reads the saved tables of several rsmtool or rsmeval experiments (each folder's
``output/``; a folder may hold several experiments) and puts one row per experiment in each of
its tables: the short evaluation table with the score type and the truncation range, the
true-score evaluation, and for rsmtool experiments the model summary, the standardized
coefficients, the model fit and the feature correlations. pdmetrics reads the same
configuration file and the same tables, writes the same files
(``OUTPUT_DIR/output/<summary_id>_<table>.<file_format>``) and the report as one offline page
(``OUTPUT_DIR/report/<summary_id>_report.html``).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from pdmetrics._comparison import comparison_settings, comparison_table
from pdmetrics._files import (
    check_file_names,
    check_free,
    write_text,
)
from pdmetrics._optional import optional_module
from pdmetrics.errors import InvalidInputError
from pdmetrics.rsmeval.experiments import (
    Experiment,
    experiment_ids,
    open_experiment,
    output_folder,
    read_json,
)
from pdmetrics.rsmeval.paired import join_scores, paired_table, read_scores
from pdmetrics.rsmeval.report_object import write_table
from pdmetrics.rsmeval.run import command_run, refuse_filled_output, send_note
from pdmetrics.rsmeval.tool_configs import (
    chosen_sections,
    custom_names,
    locate_folder,
    read_tool_config,
    saved_tool_config,
)
from pdmetrics.rsmeval.tool_pages import SummaryPage

__all__ = ["run_rsmsummarize", "summary_tables", "summarized_experiments", "paired_summary"]

#: The tables each section writes, in rsmsummarize's order.
SECTION_TABLES = {
    "preprocessed_features": (
        "margcor_score_all_data",
        "pcor_score_all_data",
        "pcor_score_no_length_all_data",
    ),
    "model": ("model_summary", "betas", "model_fit"),
    "evaluation": ("eval_short",),
    "true_score_evaluation": ("true_score_eval",),
}


class _Summarized:
    """One experiment of the summary: its tables, its saved configuration and its name."""

    def __init__(self, experiment: Experiment, name: str, config: dict) -> None:
        self.experiment, self.name, self.config = experiment, name, config

    @property
    def scaled(self) -> bool:
        return self.config.get("use_scaled_predictions") is True or self.config.get("scale_with") is not None

    @property
    def prefix(self) -> str:
        return "scale" if self.scaled else "raw"


def summarized_experiments(config: dict) -> list[_Summarized]:
    """The experiments ``experiment_dirs`` name, in order: one per saved configuration
    (``output/*.json``) of each folder, named by ``experiment_names`` or their id."""
    names = config["experiment_names"] or [None] * len(config["experiment_dirs"])
    found = []
    for k, (folder_name, name) in enumerate(zip(config["experiment_dirs"], names)):
        key = f"experiment_dirs[{k}]"
        folder = locate_folder(config, "experiment_dirs", folder_name)
        output = output_folder(folder, key)
        saved = sorted(output.glob("*.json"))
        if not saved:
            raise InvalidInputError(
                f"{key}: the directory {str(folder)!r} does not contain the .json configuration files for "
                "rsmtool experiments (output/<experiment_id>_rsmtool.json or _rsmeval.json)."
            )
        if name and len(saved) > 1:
            raise InvalidInputError(
                f"{key}: {str(folder)!r} seems to contain the output of multiple experiments "
                f"({', '.join(path.name for path in saved)}). In order to use custom experiment names "
                "(experiment_names), you must have a separate directory for each experiment."
            )
        for path in saved:
            saved_config = read_json(path, key)
            experiment_id = saved_config.get("experiment_id")
            if not isinstance(experiment_id, str) or not experiment_id:
                raise InvalidInputError(
                    f"{key}: {path.name} has no experiment_id: it is not the saved configuration of an "
                    "rsmtool or rsmeval experiment (the folder holds "
                    f"{', '.join(map(repr, experiment_ids(output)))})."
                )
            holder = {**config, "experiment_dirs": folder, "experiment_id": experiment_id}
            experiment = open_experiment(holder, "experiment_dirs", "experiment_id")
            found.append(_Summarized(experiment, name or experiment_id, saved_config))
    return found


def summary_tables(experiments: list[_Summarized], sections) -> tuple[dict, bool]:
    """rsmsummarize's tables (one row per experiment) of the chosen sections, and whether a
    truncation range could not be found."""
    tables, unknown_trims = {}, []
    if "evaluation" in sections:

        def evaluation_rows(item: _Summarized, frame: pd.DataFrame) -> pd.DataFrame:
            frame = _named(item, frame)
            frame["system score type"] = item.prefix
            low, high, unknown = _truncation(item)
            unknown_trims.append(unknown)
            frame["truncation range"] = f"[{low}, {high}]"
            frame.columns = [
                name.split(".")[0] if "round" not in name else f"{name.split('.')[0]} (rounded)"
                for name in map(str, frame.columns)
            ]
            return frame

        tables["eval_short"] = _per_experiment(experiments, "eval_short", evaluation_rows)
    if "true_score_evaluation" in sections:
        tables["true_score_eval"] = _per_experiment(experiments, "true_score_eval", _true_score_row)
    if "model" in sections:
        tables.update(_model_tables(experiments))
    if "preprocessed_features" in sections:
        for name in SECTION_TABLES["preprocessed_features"]:
            tables[name] = _per_experiment(experiments, name, _named)
    return {name: frame for name, frame in tables.items() if frame is not None}, any(unknown_trims)


def _per_experiment(experiments: list[_Summarized], name: str, rows) -> pd.DataFrame | None:
    """The saved table ``name`` of every experiment that has one, as ``rows(item, table)``
    gives its rows, stacked (:func:`_stacked`)."""
    found = [(item, frame) for item in experiments if (frame := item.experiment.table(name)) is not None]
    return _stacked([rows(item, frame) for item, frame in found])


def _named(item: _Summarized, frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``frame``, each named after the experiment."""
    return frame.set_axis([item.name] * len(frame))


def _true_score_row(item: _Summarized, frame: pd.DataFrame) -> pd.DataFrame:
    """The row of the experiment's evaluated (trimmed) scores in its true-score evaluation."""
    if f"{item.prefix}_trim" not in frame.index:
        raise InvalidInputError(
            f"experiment_dirs: {item.experiment.path('true_score_eval')} has no row "
            f"{item.prefix}_trim, the {item.prefix} scores its configuration evaluates; run the "
            "experiment again."
        )
    row = frame.loc[[f"{item.prefix}_trim"]].copy()
    row["system score type"] = item.prefix
    return row.set_axis([item.name])


def _stacked(rows: list):
    """The experiments' rows in one table, the columns of all of them sorted by name (as
    rsmsummarize's ``concat(sort=True)``); None without rows."""
    return pd.concat(rows, sort=True) if rows else None


def _truncation(item: _Summarized) -> tuple:
    """The truncation range ``(min, max, unknown)``: the trimming limits of the experiment's
    postprocessing parameters, else of its configuration, widened by its trim tolerance; "?"
    for a limit neither has."""
    trim_min = trim_max = None
    params = item.experiment.table("postprocessing_params", index=False)
    if params is not None and len(params):
        trim_min, trim_max = params["trim_min"].iloc[0], params["trim_max"].iloc[0]
    trim_min = item.config.get("trim_min") if trim_min is None else trim_min
    trim_max = item.config.get("trim_max") if trim_max is None else trim_max
    tolerance = item.config.get("trim_tolerance", 0.4998)
    low = "?" if trim_min is None else float(trim_min) - tolerance
    high = "?" if trim_max is None else float(trim_max) + tolerance
    return low, high, trim_min is None or trim_max is None


def _model_tables(experiments: list[_Summarized]) -> dict:
    summaries, betas, fits = [], [], []
    for item in experiments:
        coefficients = item.experiment.table("betas", index=False)
        if coefficients is not None:
            summaries.append(
                pd.DataFrame(
                    {
                        "N features": [len(coefficients)],
                        "N negative": int((coefficients["standardized"] < 0).sum()),
                        "learner": item.config.get("model"),
                        "train_label": item.config.get("train_label_column"),
                    },
                    index=[item.name],
                )
            )
            betas.append(
                pd.DataFrame(
                    {item.name: coefficients["standardized"].to_numpy()}, index=coefficients["feature"]
                )
            )
        elif "model" in item.config:
            summaries.append(
                pd.DataFrame(
                    {
                        "N features": "-",
                        "N negative": "-",
                        "learner": item.config["model"],
                        "train_label": item.config.get("train_label_column"),
                    },
                    index=[item.name],
                )
            )
        fit = item.experiment.table("model_fit", index=False)
        if fit is not None:
            fits.append(fit.set_axis([item.name] * len(fit)))
    tables = {"model_summary": _stacked(summaries)}
    if betas:
        table = pd.concat(betas, axis=1, sort=True)
        table.index.name = None
        tables["betas"] = table.astype(object).where(table.notna(), "-")  # rsmsummarize's mark
    tables["model_fit"] = _stacked(fits)
    return tables


# ----------------------------------------------------------------------------------------------
# the paired comparison
# ----------------------------------------------------------------------------------------------
def paired_summary(experiments: list[_Summarized], options: dict) -> tuple[pd.DataFrame, dict]:
    """The experiments' eval metrics compared paired on the responses all of them evaluated
    (their ``pred_processed`` tables joined on the response id; each experiment's scores those
    its eval_short uses, scaled or raw), the first experiment the baseline (``options["pairs"]``
    ``"baseline"``) or every pair (``"all"``), with :func:`pdmetrics.scoring.compare`; and the
    facts of the join (``counts``, ``common``, ``human_differs``, ``disjoint``, ``left_out``:
    experiments without a pred_processed table). An experiment listed twice is named
    ``name (2)`` the second time."""
    usable = [item for item in experiments if item.experiment.has("pred_processed")]
    left_out = [item.name for item in experiments if not item.experiment.has("pred_processed")]
    names, seen = [], {}
    for item in usable:
        seen[item.name] = seen.get(item.name, 0) + 1
        names.append(item.name if seen[item.name] == 1 else f"{item.name} ({seen[item.name]})")
    facts = {"counts": {}, "common": 0, "human_differs": 0, "disjoint": [], "left_out": left_out}
    if len(usable) < 2:
        return comparison_table([], [], options["correction"]), facts
    scores = {
        name: read_scores(
            item.experiment, item.prefix, f"{item.name} ({item.prefix} scores, as its eval_short)"
        )
        for name, item in zip(names, usable)
    }
    joined, joint = join_scores(scores)
    facts.update(joint)
    return paired_table(joined, names, options, pairs=options["pairs"]), facts


# ----------------------------------------------------------------------------------------------
# the command
# ----------------------------------------------------------------------------------------------
def run_rsmsummarize(
    config_path,
    output_dir=".",
    *,
    force: bool = False,
    notes=None,
    pairs: str = "baseline",
    n_resamples: int = 1000,
    confidence: float = 0.95,
    random_state=12345,
    correction="holm",
) -> list[Path]:
    """Run an rsmsummarize configuration file: its tables and its report.

    Writes ``output_dir/output/<summary_id>_<table>.<file_format>`` (``eval_short``,
    ``true_score_eval``, and for rsmtool experiments ``model_summary``, ``betas``,
    ``model_fit``, ``margcor_score_all_data``, ``pcor_score_all_data``; the tables of the
    chosen sections, as rsmsummarize writes them; and pdmetrics' ``paired_comparison``: see
    :func:`paired_summary`), ``output_dir/output/<summary_id>_rsmsummarize.json``,
    ``output_dir/report/<summary_id>_report.html`` (one offline page) and an empty
    ``output_dir/figure/``. A non-empty ``output/`` is refused unless ``force`` (rsmsummarize's
    ``-f``). Every file is written whole or not at all;
    ``output_dir/<summary_id>.pdmetrics-incomplete`` marks the folder until the last one is in
    place. ``pairs``, ``n_resamples``, ``confidence``, ``random_state`` and ``correction`` are
    those of :func:`pdmetrics.scoring.compare` (``correction`` ``"holm"`` by default: several
    experiments make many comparisons; rsmcompare's two experiments have none by default).
    Returns the files written.
    """
    options = comparison_settings(pairs, correction, n_resamples, confidence, random_state, keyed=False)
    output_dir = Path(output_dir)
    csv_dir = output_dir / "output"
    refuse_filled_output(output_dir, force)
    config = read_tool_config(config_path, "rsmsummarize")
    summary_id, file_format = config["summary_id"], config["file_format"]
    check_free(output_dir, summary_id, "rsmsummarize", "output directory", "summary_id")
    experiments = summarized_experiments(config)
    sections = chosen_sections(config, "rsmsummarize")
    custom = custom_names(config)
    if custom:
        send_note(
            notes, f"custom_sections: pdmetrics runs no notebooks; the report leaves out {', '.join(custom)}."
        )
    if file_format == "xlsx":
        optional_module("openpyxl", "excel", "Writing xlsx files")
    tables, missing_trims = summary_tables(experiments, sections)
    tables["paired_comparison"], facts = paired_summary(experiments, options)
    if facts["left_out"]:
        send_note(
            notes,
            f"experiment_dirs: {', '.join(map(repr, facts['left_out']))} have no pred_processed table; the "
            "paired comparison leaves them out.",
        )
    facts["options"] = options
    names = {name: f"{summary_id}_{name}.{file_format}" for name in tables}
    check_file_names(
        [*names.values(), f"{summary_id}_rsmsummarize.json", f"{summary_id}_report.html"],
        "summary_id",
        summary_id,
        kind="rsmsummarize",
    )
    with command_run(output_dir, summary_id, "rsmsummarize", "summary_id", notes):
        for folder in ("output", "figure", "report"):
            (output_dir / folder).mkdir(parents=True, exist_ok=True)
        written = [
            write_text(csv_dir / f"{summary_id}_rsmsummarize.json", saved_tool_config(config, "rsmsummarize"))
        ]
        for name, table in tables.items():
            index = name != "paired_comparison"  # a comparison table has no row labels
            written.append(write_table(table, csv_dir / names[name], file_format, index))
        writer = SummaryPage(config, experiments, tables, missing_trims, written, paired=facts)
        written.append(write_text(output_dir / "report" / f"{summary_id}_report.html", writer.page(sections)))
    return written
