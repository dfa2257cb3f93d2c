"""The configuration files of RSMTool's ``rsmcompare`` and ``rsmsummarize``, read unchanged.

As RSMTool 12 reads them: comments allowed, list fields given as comma-separated text,
booleans as ``true``/``false``; every key of any RSMTool tool is accepted (those another tool
uses are dropped), an unknown key is refused; the id (``comparison_id``, ``summary_id``)
starts file names, so it is checked as ``experiment_id`` is. :func:`read_tool_config` returns
the checked configuration with RSMTool's defaults, and :func:`saved_tool_config` the text of
the ``<id>_<tool>.json`` file RSMTool saves.
"""

from __future__ import annotations

import json
from pathlib import Path

from pdmetrics._files import check_name_part
from pdmetrics.errors import InvalidInputError
from pdmetrics.rsmeval.config import (
    DEFAULTS,
    FILE_FORMATS,
    IGNORED_KEYS,
    check_general_sections,
    check_id,
    check_other_tools_keys,
    check_section_order,
    convert_fields,
    parse_config_file,
)

__all__ = [
    "TOOLS",
    "COMPARE_SECTIONS",
    "SUMMARY_SECTIONS",
    "read_tool_config",
    "saved_tool_config",
    "chosen_sections",
    "locate_folder",
]

#: Every key RSMTool 12 has a default for, in its order (``utils/constants.py``): rsmeval's keys
#: and those of the other tools. A configuration of any tool may hold them.
_RSMTOOL_DEFAULTS = {
    "id_column": "spkitemid",
    "description": "",
    "description_old": "",
    "description_new": "",
    "train_label_column": "sc1",
    "test_label_column": "sc1",
    "human_score_column": "sc1",
    "exclude_zero_scores": True,
    "use_scaled_predictions": False,
    "use_scaled_predictions_old": False,
    "use_scaled_predictions_new": False,
    "select_transformations": False,
    "standardize_features": True,
    "truncate_outliers": True,
    "use_thumbnails": False,
    "use_truncation_thresholds": False,
    "scale_with": None,
    "predict_expected_scores": False,
    "sign": None,
    "features": None,
    "length_column": None,
    "second_human_score_column": None,
    "file_format": "csv",
    "form_level_scores": None,
    "candidate_column": None,
    "general_sections": ["all"],
    "custom_sections": None,
    "feature_subset_file": None,
    "feature_subset": None,
    "rater_error_variance": None,
    "trim_min": None,
    "trim_max": None,
    "trim_tolerance": 0.4998,
    "subgroups": [],
    "min_n_per_group": None,
    "skll_fixed_parameters": {},
    "skll_objective": None,
    "section_order": None,
    "flag_column": None,
    "flag_column_test": None,
    "min_items_per_candidate": None,
    "experiment_names": None,
    "folds_file": None,
    "folds": 5,
    "sample_range": None,
    "sample_size": None,
    "sample_ids": None,
    "background_kmeans_size": 500,
    "num_features_to_display": 15,
    "show_auto_cohorts": False,
    "skll_grid_search_jobs": 1,
    "use_wandb": False,
    "wandb_project": None,
    "wandb_entity": None,
}
assert set(_RSMTOOL_DEFAULTS) == {*DEFAULTS, *IGNORED_KEYS, "trim_min", "trim_max"}  # rsmeval's view of it

_LIST_KEYS = ("general_sections", "custom_sections", "subgroups", "section_order", "experiment_dirs",
              "experiment_names")  # fmt: skip
_BOOLEAN_KEYS = (
    "exclude_zero_scores",
    "predict_expected_scores",
    "use_scaled_predictions",
    "use_scaled_predictions_old",
    "use_scaled_predictions_new",
    "use_thumbnails",
    "use_truncation_thresholds",
    "select_transformations",
)

#: rsmcompare's report sections, in its report's order (RSMTool's reporter).
COMPARE_SECTIONS = (
    "feature_descriptives",
    "features_by_group",
    "preprocessed_features",
    "preprocessed_features_by_group",
    "consistency",
    "score_distributions",
    "model",
    "evaluation",
    "true_score_evaluation",
    "pca",
    "notes",
    "sysinfo",
)
#: rsmsummarize's report sections, in its report's order.
SUMMARY_SECTIONS = (
    "preprocessed_features",
    "model",
    "evaluation",
    "true_score_evaluation",
    "intermediate_file_paths",
    "sysinfo",
)

#: Per tool: the id key, the required keys, the optional keys (RSMTool's ``CHECK_FIELDS``),
#: the report's sections, and how the id names files.
TOOLS = {
    "rsmcompare": {
        "id": "comparison_id",
        "required": (
            "comparison_id",
            "experiment_id_old",
            "experiment_dir_old",
            "experiment_id_new",
            "experiment_dir_new",
            "description_old",
            "description_new",
        ),
        "optional": (
            "use_scaled_predictions_old",
            "use_scaled_predictions_new",
            "subgroups",
            "use_thumbnails",
            "general_sections",
            "custom_sections",
            "section_order",
            "use_wandb",
            "wandb_project",
            "wandb_entity",
        ),
        "sections": COMPARE_SECTIONS,
        "files": "<comparison_id>_report.html, output/<comparison_id>_eval_overview.csv, ...",
    },
    "rsmsummarize": {
        "id": "summary_id",
        "required": ("summary_id", "experiment_dirs"),
        "optional": (
            "description",
            "experiment_names",
            "file_format",
            "general_sections",
            "custom_sections",
            "use_thumbnails",
            "subgroups",
            "section_order",
            "use_wandb",
            "wandb_project",
            "wandb_entity",
        ),
        "sections": SUMMARY_SECTIONS,
        "files": "report/<summary_id>_report.html, output/<summary_id>_eval_short.csv, ...",
    },
}


def read_tool_config(path, tool: str) -> dict:
    """Read and check an rsmcompare or rsmsummarize configuration file.

    Returns the tool's keys with RSMTool's defaults filled in, plus ``"configdir"`` (the file's
    folder, for relative paths) and ``"given"`` (the tool's keys as the file gave them, for
    :func:`saved_tool_config`). Whatever RSMTool refuses raises
    :class:`~pdmetrics.errors.InvalidInputError` with one line naming the key.

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> from pdmetrics.rsmeval.tool_configs import read_tool_config
    >>> with tempfile.TemporaryDirectory() as directory:
    ...     path = pathlib.Path(directory) / "summary.json"
    ...     _ = path.write_text(json.dumps({"summary_id": "models", "experiment_dirs": "a, b"}))
    ...     config = read_tool_config(path, "rsmsummarize")
    >>> config["experiment_dirs"], config["file_format"], config["general_sections"]
    (['a', 'b'], 'csv', ['all'])
    """
    config = check_tool_config(parse_config_file(path), tool)
    config["configdir"] = Path(path).resolve().parent
    return config


def check_tool_config(config: dict, tool: str) -> dict:
    """RSMTool's checks of an rsmcompare or rsmsummarize configuration dictionary (see
    :func:`read_tool_config`)."""
    spec = TOOLS[tool]
    config = convert_fields(config, _LIST_KEYS, _BOOLEAN_KEYS)
    for key in spec["required"]:
        if key not in config:
            raise InvalidInputError(f"The config file must specify '{key}'")
    unknown = [key for key in config if key not in _RSMTOOL_DEFAULTS and key not in spec["required"]]
    if unknown:
        raise InvalidInputError(
            f"Unrecognized field '{unknown[0]}' in json file (a {tool} configuration takes "
            f"{', '.join(spec['required'] + spec['optional'])})"
        )
    check_id(
        config,
        spec["id"],
        f"the {spec['id']} starts the name of every file written ({spec['files']}): use a plain name such "
        "as 'old_vs_new' and choose the folder with the command's output directory.",
    )
    full = {**_RSMTOOL_DEFAULTS, **config}
    check_other_tools_keys(full, tool)
    if full["min_items_per_candidate"] and not full["candidate_column"]:
        raise InvalidInputError(
            "If you want to filter out candidates with responses to less than X items, you need to specify "
            "the name of the column which contains candidate IDs."
        )
    names = full["experiment_names"]
    if tool == "rsmsummarize" and names and len(names) != len(_list(full, "experiment_dirs")):
        raise InvalidInputError(
            "The number of specified experiment names should be the same as the number of specified "
            f"experiment directories (experiment_names has {len(names)}, experiment_dirs "
            f"{len(full['experiment_dirs'])})."
        )
    groups = _list(full, "subgroups")
    if isinstance(full["min_n_per_group"], dict) and sorted(full["min_n_per_group"]) != sorted(groups):
        raise InvalidInputError("The keys in `min_n_per_group` must match the subgroups in `subgroups` field")
    if full["use_wandb"] and not (full["wandb_project"] and full["wandb_entity"]):
        raise InvalidInputError(
            "You must specify both `wandb_project` and `wandb_entity` if you want to enable logging to W&B."
        )
    fields = spec["required"] + spec["optional"]
    given = {key: value for key, value in config.items() if key in fields}
    checked = {key: full[key] for key in _RSMTOOL_DEFAULTS if key in fields}
    checked.update({key: config[key] for key in spec["required"]})
    for key in ("experiment_id_old", "experiment_id_new", "experiment_dir_old", "experiment_dir_new"):
        if key in checked and (not isinstance(checked[key], str) or not checked[key]):
            raise InvalidInputError(f"{key} must be a non-empty string (got {checked[key]!r}).")
    for key in ("experiment_id_old", "experiment_id_new"):  # they name the files read
        if key in checked:
            check_name_part(
                checked[key],
                key,
                f"the experiment's files are output/<{key}>_eval_short.csv, ...; give the experiment_id it "
                "was run with.",
            )
    for key in ("description_old", "description_new", "description"):
        if key in checked and not isinstance(checked[key], str):
            checked[key] = "" if checked[key] is None else str(checked[key])
    if tool == "rsmsummarize":
        _check_summary(checked)
    _check_sections(checked, tool)
    checked["subgroups"] = groups
    checked["given"] = given
    return checked


def _list(config: dict, key: str) -> list:
    """A list key's value as a list (RSMTool's lists hold names: anything else is refused)."""
    value = config.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
        raise InvalidInputError(f"{key} must be a list of non-empty names (got {value!r}).")
    return value


def _check_summary(config: dict) -> None:
    dirs = _list(config, "experiment_dirs")
    if not dirs:
        raise InvalidInputError("experiment_dirs must name at least one experiment folder (got []).")
    names = _list(config, "experiment_names")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise InvalidInputError(
            f"experiment_names names {repeated[0]!r} twice: each experiment's name labels its row in "
            "every table; give each a different name."
        )
    file_format = config["file_format"]
    if not isinstance(file_format, str) or file_format.lower() not in FILE_FORMATS:
        raise InvalidInputError(f"file_format {file_format!r} is not one of {', '.join(FILE_FORMATS)}.")
    config["file_format"] = file_format.lower()


def _check_sections(config: dict, tool: str) -> None:
    """RSMTool's checks of ``general_sections`` and ``section_order`` for ``tool``."""
    sections = TOOLS[tool]["sections"]
    by_group = [name for name in sections if name.endswith("by_group")]
    general = _list(config, "general_sections") or ["all"]
    check_general_sections(general, sections, tool, config.get("subgroups"), by_group)
    order = _list(config, "section_order")
    if order:
        check_section_order(order, _selected(config, tool))


def _selected(config: dict, tool: str) -> list:
    """The chosen ``general_sections`` in the tool's order (subgroup sections only with
    ``subgroups``), then the names of the ``custom_sections``."""
    sections = TOOLS[tool]["sections"]
    general = config.get("general_sections") or ["all"]
    chosen = list(sections) if general == ["all"] else [name for name in sections if name in general]
    if not config.get("subgroups"):
        chosen = [name for name in chosen if not name.endswith("by_group")]
    return chosen + custom_names(config)


def chosen_sections(config: dict, tool: str) -> list:
    """The report's sections in order: ``section_order`` if given, else the tool's order of
    the chosen ``general_sections``; the ``custom_sections`` left out (pdmetrics runs no
    notebooks)."""
    chosen = _selected(config, tool)
    order = config.get("section_order") or chosen
    return [name for name in order if name in chosen and name in TOOLS[tool]["sections"]]


def custom_names(config: dict) -> list:
    """The names of the ``custom_sections`` (each notebook's file name without ``.ipynb``)."""
    return [Path(str(path).replace("\\", "/")).stem for path in _list(config, "custom_sections")]


def saved_tool_config(config: dict, tool: str) -> str:
    """The text of the ``<id>_<tool>.json`` RSMTool saves: the tool's keys as the file gave
    them (lists and booleans converted), then every default not given, in RSMTool's order.

    >>> from pdmetrics.rsmeval.tool_configs import check_tool_config, saved_tool_config
    >>> config = check_tool_config({"summary_id": "s", "experiment_dirs": "a, b", "description": "x"},
    ...                            "rsmsummarize")
    >>> saved_tool_config(config, "rsmsummarize").splitlines()[1:4]
    ['    "summary_id": "s",', '    "experiment_dirs": [', '        "a",']
    """
    spec = TOOLS[tool]
    fields = spec["required"] + spec["optional"]
    given = config["given"]
    saved = {
        **given,
        **{key: value for key, value in _RSMTOOL_DEFAULTS.items() if key in fields and key not in given},
    }
    return json.dumps(saved, indent=4, separators=(",", ": "))


def locate_folder(config: dict, key: str, value=None) -> Path:
    """The experiment folder a key names: as given (from the current directory) if it is there,
    else relative to the configuration file's folder, as RSMTool looks for it."""
    given = Path(config[key] if value is None else value)
    for candidate in (given, config["configdir"] / given):
        if candidate.exists():
            if not candidate.is_dir():
                raise InvalidInputError(
                    f"{key}: {str(given)!r} is a file; give the folder of an rsmtool or rsmeval experiment "
                    "(the folder that holds its output/ folder)."
                )
            return candidate.resolve()
    raise InvalidInputError(
        f"{key}: the directory {str(given)!r} does not exist (looked in the current folder and in "
        f"{config['configdir']})."
    )
