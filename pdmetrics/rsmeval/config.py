"""rsmeval's configuration file: read, check and map onto :func:`pdmetrics.rsmeval.report`.

``pdmetrics rsmeval CONFIG.json`` reads the configuration file of RSMTool's ``rsmeval``
unchanged. This module reads it as RSMTool 12 does (comments allowed, list fields given as
comma-separated strings, booleans as ``true``/``false``, relative paths first from the
current directory, then from the configuration file's folder), refuses what rsmeval refuses
with one line naming the option, and maps every key onto a ``report()`` keyword
(:data:`REPORT_KEYWORDS`) or onto the writing of the files and the HTML report.
"""

from __future__ import annotations

import json
import re
from numbers import Real
from pathlib import Path

from pdmetrics._files import check_name_part
from pdmetrics.errors import InvalidInputError
from pdmetrics.rsmeval.html_page import SECTIONS  # rsmeval's sections, in its report's order
from pdmetrics.scoring.postprocessing import check_trim_order

__all__ = [
    "REQUIRED_KEYS",
    "DEFAULTS",
    "IGNORED_KEYS",
    "REPORT_KEYWORDS",
    "SECTIONS",
    "FILE_FORMATS",
    "read_config",
    "parse_config_file",
    "convert_fields",
    "check_id",
    "check_other_tools_keys",
    "check_general_sections",
    "check_section_order",
    "check_config",
    "locate_file",
    "saved_config",
    "report_sections",
    "custom_section_names",
    "report_options",
    "in_config_terms",
]

#: Keys rsmeval requires.
REQUIRED_KEYS = ("experiment_id", "predictions_file", "system_score_column", "trim_min", "trim_max")

#: rsmeval's optional keys and their defaults, in RSMTool 12's order (``utils/constants.py``).
DEFAULTS = {
    "id_column": "spkitemid",
    "description": "",
    "human_score_column": "sc1",
    "exclude_zero_scores": True,
    "use_thumbnails": False,
    "scale_with": None,
    "second_human_score_column": None,
    "file_format": "csv",
    "candidate_column": None,
    "general_sections": ["all"],
    "custom_sections": None,
    "rater_error_variance": None,
    "trim_tolerance": 0.4998,
    "subgroups": [],
    "min_n_per_group": None,
    "section_order": None,
    "flag_column": None,
    "min_items_per_candidate": None,
    "use_wandb": False,
    "wandb_project": None,
    "wandb_entity": None,
}

#: Keys of the other RSMTool tools that rsmeval accepts and drops without a word (they have a
#: default in RSMTool's shared table); pdmetrics drops them too.
IGNORED_KEYS = (
    "description_old",
    "description_new",
    "train_label_column",
    "test_label_column",
    "use_scaled_predictions",
    "use_scaled_predictions_old",
    "use_scaled_predictions_new",
    "select_transformations",
    "standardize_features",
    "truncate_outliers",
    "use_truncation_thresholds",
    "predict_expected_scores",
    "sign",
    "features",
    "length_column",
    "form_level_scores",
    "feature_subset_file",
    "feature_subset",
    "skll_fixed_parameters",
    "skll_objective",
    "flag_column_test",
    "experiment_names",
    "folds_file",
    "folds",
    "sample_range",
    "sample_size",
    "sample_ids",
    "background_kmeans_size",
    "num_features_to_display",
    "show_auto_cohorts",
    "skll_grid_search_jobs",
)

#: rsmeval key -> ``report()`` keyword.
REPORT_KEYWORDS = {
    "human_score_column": "human",
    "system_score_column": "system",
    "second_human_score_column": "second_human",
    "subgroups": "by",
    "trim_min": "trim_min",
    "trim_max": "trim_max",
    "trim_tolerance": "trim_tolerance",
    "scale_with": "scale_with",
    "exclude_zero_scores": "exclude_zero",
    "rater_error_variance": "rater_error_variance",
    "id_column": "id",
    "candidate_column": "candidate",
    "min_items_per_candidate": "min_items_per_candidate",
    "flag_column": "flag",
    "min_n_per_group": "min_n_per_group",
}


def in_config_terms(message: str) -> str:
    """A report() message with its keywords named as the configuration's keys
    (```id='L1'``` -> ```id_column='L1'```), for users who wrote a configuration file.

    >>> in_config_terms("`id='L1'` holds repeated response ids")
    "`id_column='L1'` holds repeated response ids"
    """
    for key, keyword in REPORT_KEYWORDS.items():
        message = message.replace(f"`{keyword}=", f"`{key}=")
    return message


_SUBGROUP_SECTIONS = ("data_description_by_group", "evaluation_by_group", "fairness_analyses")

#: ``file_format`` values (rsmeval writes jsonlines too, undocumented; so does pdmetrics).
FILE_FORMATS = ("csv", "tsv", "xlsx", "jsonlines")

_LIST_KEYS = ("general_sections", "custom_sections", "subgroups", "section_order")
_BOOLEAN_KEYS = ("exclude_zero_scores", "use_thumbnails", "use_wandb")
_NUMBER_KEYS = ("trim_min", "trim_max", "trim_tolerance", "rater_error_variance")
# RSMTool's comment pattern (``utils/files.py``): // and /* */, but not inside http(s)://
_COMMENT = re.compile(
    r"(^)?[^\S\n]*(?:/\*(.*?)\*/[^\S\n]*|(?<!https:)(?<!http:)//[^\n]*)($)?", re.DOTALL | re.MULTILINE
)


def read_config(path) -> dict:
    """Read and check an rsmeval configuration file.

    Returns the configuration with every rsmeval default filled in, list keys as lists and
    the keys ``"configdir"`` (the file's folder, for relative paths) and ``"given"`` (the
    keys as the file gave them, for :func:`saved_config`). Raises
    :class:`~pdmetrics.errors.InvalidInputError` with a one-line message naming the option
    for whatever rsmeval refuses.

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> from pdmetrics.rsmeval.config import read_config, report_options
    >>> with tempfile.TemporaryDirectory() as directory:
    ...     path = pathlib.Path(directory) / "eval.json"
    ...     _ = path.write_text(json.dumps({"experiment_id": "demo", "predictions_file": "p.csv",
    ...         "system_score_column": "score", "trim_min": 1, "trim_max": 6, "subgroups": "L1, grade"}))
    ...     config = read_config(path)
    >>> config["subgroups"], config["human_score_column"], config["file_format"]
    (['L1', 'grade'], 'sc1', 'csv')
    >>> options = report_options(config)
    >>> options["by"], options["human"], options["system"], options["trim_min"], options["id"]
    (['L1', 'grade'], 'sc1', 'score', 1.0, 'spkitemid')
    """
    config = check_config(parse_config_file(path))
    config["configdir"] = Path(path).resolve().parent
    return config


def parse_config_file(path) -> dict:
    """The JSON object of an RSMTool configuration file, as RSMTool reads it (``//`` and
    ``/* */`` comments allowed); one-line refusals of a missing file, a folder, another suffix,
    malformed JSON or a value that is not an object."""
    path = Path(path)
    if not path.exists():
        raise InvalidInputError(f"The configuration file {path} was not found.")
    if not path.is_file():
        raise InvalidInputError(f"The given path {path} should be a file, not a directory.")
    if path.suffix.lower() != ".json":
        raise InvalidInputError(
            f"The configuration file must be in `.json` format. You specified: {path.suffix.lower()}."
        )
    text = path.read_text(encoding="utf-8")
    while (match := _COMMENT.search(text)) is not None:
        text = text[: match.start()] + text[match.end() :]
    try:
        config = json.loads(text)
    except ValueError as error:
        raise InvalidInputError(
            f"The configuration file `{path}` exists but is formatted incorrectly ({error}). Please check "
            "that each line ends with a comma, there is no comma at the end of the last line, and that all "
            "quotes match."
        ) from None
    if not isinstance(config, dict):
        raise InvalidInputError(f"The configuration file `{path}` must hold one JSON object {{...}}.")
    return config


def convert_fields(config: dict, list_keys=_LIST_KEYS, boolean_keys=_BOOLEAN_KEYS) -> dict:
    """RSMTool's conversions, in a copy: list keys given as comma-separated text become lists,
    boolean keys given as ``"true"``/``"false"`` (any case) become booleans."""
    config = dict(config)
    for key in list_keys:
        if isinstance(config.get(key), str):
            config[key] = [item.strip() for item in config[key].split(",")]
    for key in boolean_keys:
        value = config.get(key)
        if value is not None and not isinstance(value, bool):
            if not re.fullmatch(r"true|false", str(value).strip(), re.IGNORECASE):
                raise InvalidInputError(f"Field {key} can only be set to True or False (got {value!r}).")
            config[key] = str(value).strip().lower() == "true"
    return config


def check_id(config: dict, key: str, fix: str) -> None:
    """An id that starts file names (``experiment_id``, ``comparison_id``, ``summary_id``): a
    non-empty string of at most 200 characters without spaces (RSMTool's rules) that is a plain
    file name (pdmetrics'); ``fix`` ends the message of a name that is not."""
    value = config[key]
    if not isinstance(value, str) or not value:
        raise InvalidInputError(f"{key} must be a non-empty string (got {value!r}).")
    if len(value) > 200:
        raise InvalidInputError(f"{key} is too long (must be <=200 characters)")
    if re.search(r"\s", value):
        raise InvalidInputError(f"{key} cannot contain any spaces")
    check_name_part(value, key, fix)


def saved_config(config: dict) -> str:
    """The text of rsmeval's ``<experiment_id>_rsmeval.json``: the keys as the file gave them
    (list and boolean keys converted, other tools' keys dropped), then every default not
    given, in RSMTool's order, as RSMTool 12's ``Configuration.save`` writes it.

    >>> from pdmetrics.rsmeval.config import check_config, saved_config
    >>> config = check_config({"experiment_id": "demo", "predictions_file": "p.csv",
    ...     "system_score_column": "score", "trim_min": 1, "trim_max": 6, "subgroups": "L1, grade"})
    >>> lines = saved_config(config).splitlines()
    >>> lines[4:7], lines[-1]
    (['    "trim_min": 1,', '    "trim_max": 6,', '    "subgroups": ['], '}')
    """
    given = config["given"]
    saved = {**given, **{key: value for key, value in DEFAULTS.items() if key not in given}}
    if given.get("min_n_per_group"):  # rsmeval saves a number as its dict per subgroup
        saved["min_n_per_group"] = config["min_n_per_group"]
    return json.dumps(saved, indent=4, separators=(",", ": "))


def check_config(config: dict) -> dict:
    """rsmeval's checks of a configuration dictionary; returns it with the defaults filled in
    and the keys of other tools dropped."""
    config = convert_fields(config)
    for key in REQUIRED_KEYS:
        if key not in config:
            raise InvalidInputError(f"The config file must specify '{key}'")
    unknown = [key for key in config if key not in DEFAULTS and key not in REQUIRED_KEYS + IGNORED_KEYS]
    if unknown:
        raise InvalidInputError(f"Unrecognized field '{unknown[0]}' in json file")
    check_other_tools_keys(config)
    given = {k: v for k, v in config.items() if k not in IGNORED_KEYS}
    config = {**DEFAULTS, **given}
    config["given"] = given
    check_id(
        config,
        "experiment_id",
        "the experiment id starts every file name (output/<experiment_id>_eval.csv, ...): use a plain name "
        "such as 'my_experiment' and choose the folder with the command's output directory.",
    )
    for key in _NUMBER_KEYS:
        config[key] = _number(config, key)
    _check_columns(config)
    _check_candidates(config)
    _check_subgroup_names(config)
    _check_min_n_per_group(config)
    _check_flags(config)
    _check_sections(config)
    if config["use_wandb"] and not (config["wandb_project"] and config["wandb_entity"]):
        raise InvalidInputError(
            "You must specify both `wandb_project` and `wandb_entity` if you want to enable logging to W&B."
        )
    file_format = config["file_format"]
    if not isinstance(file_format, str) or file_format.lower() not in FILE_FORMATS:
        raise InvalidInputError(f"file_format {file_format!r} is not one of {', '.join(FILE_FORMATS)}.")
    config["file_format"] = file_format.lower()
    scale_with = config["scale_with"]
    if scale_with is not None and (not isinstance(scale_with, str) or not scale_with):
        raise InvalidInputError(
            f"scale_with {scale_with!r} must be 'asis', 'raw' or the path of a file with the columns "
            "'sc1' and 'prediction'."
        )
    return config


def check_other_tools_keys(config: dict, tool: str = "rsmeval") -> None:
    """What RSMTool's ``tool`` refuses among the keys of other tools it otherwise drops."""
    if config.get("features") and (config.get("feature_subset_file") or config.get("feature_subset")):
        other = "feature_subset_file" if config.get("feature_subset_file") else "feature_subset"
        raise InvalidInputError(f'You cannot specify BOTH "features" and "{other}".')
    if config.get("feature_subset") and not config.get("feature_subset_file"):
        raise InvalidInputError("If you want to use feature subsets, you must specify a feature subset file")
    if config.get("sign") and not config.get("feature_subset_file"):
        raise InvalidInputError(
            "If you want to specify the expected sign of correlation for each feature, you must specify a "
            "feature subset file"
        )
    for key in ("skll_objective", "skll_fixed_parameters"):
        if config.get(key):  # rsmeval stops on them (it looks for the rsmtool-only key "model")
            raise InvalidInputError(f"{key} is an rsmtool option (it needs 'model'); {tool} cannot use it.")


def _number(config: dict, key: str):
    value = config[key]
    if value is None or (isinstance(value, Real) and not isinstance(value, bool)):
        return None if value is None else float(value)
    try:
        return float(value)
    except (TypeError, ValueError):
        raise InvalidInputError(f"{key} must be a number (got {value!r}).") from None


def _check_columns(config: dict) -> None:
    human, system = config["human_score_column"], config["system_score_column"]
    if human == system:
        raise InvalidInputError("'human_score_column' and 'system_score_column' cannot have the same value.")
    if human == config["second_human_score_column"]:
        raise InvalidInputError(
            "'human_score_column' and 'second_human_score_column' cannot have the same value."
        )
    check_trim_order(config["trim_min"], config["trim_max"])


def _check_candidates(config: dict) -> None:
    minimum = config["min_items_per_candidate"]
    if minimum and not config["candidate_column"]:
        raise InvalidInputError(
            "If you want to filter out candidates with responses to less than X items, you need to specify "
            "the name of the column which contains candidate IDs."
        )
    if minimum is not None and (isinstance(minimum, bool) or not isinstance(minimum, int) or minimum < 0):
        raise InvalidInputError(f"min_items_per_candidate must be a whole number (got {minimum!r}).")


def _check_min_n_per_group(config: dict) -> None:
    value = config["min_n_per_group"]
    if not value:
        return
    groups = config["subgroups"] or []
    if isinstance(value, dict):
        if sorted(value) != sorted(groups):
            raise InvalidInputError(
                "The keys in `min_n_per_group` must match the subgroups in `subgroups` field"
            )
    elif not groups:
        raise InvalidInputError(
            "You must specify a list of subgroups in the `subgroups` field if you want to use the "
            "`min_n_per_group` field"
        )
    else:
        config["min_n_per_group"] = dict.fromkeys(groups, value)


def _check_subgroup_names(config: dict) -> None:
    """Subgroup columns name files (``<experiment_id>_eval_by_<column>.csv``): refuse a name
    that would put a file elsewhere before anything is read or written."""
    groups = config["subgroups"] or []
    if not isinstance(groups, list):
        raise InvalidInputError(f"subgroups must be a list of column names (got {groups!r}).")
    for group in groups:
        check_name_part(
            group,
            "subgroups",
            f"the subgroup column {group!r} names files (<experiment_id>_eval_by_<column>.csv, ...); "
            "rename the column in the predictions file and in `subgroups`.",
        )


def _check_flags(config: dict) -> None:
    flags = config["flag_column"]
    if not flags:
        return
    if not isinstance(flags, dict):
        raise InvalidInputError(
            f'`flag_column` must be a dictionary such as {{"ADVISORY": [0]}} (got {flags!r}).'
        )
    config["flag_column"] = {column: v if isinstance(v, list) else [v] for column, v in flags.items()}


def _check_sections(config: dict) -> None:
    check_general_sections(
        config["general_sections"], SECTIONS, "rsmeval", config["subgroups"], _SUBGROUP_SECTIONS
    )
    if config["section_order"]:
        check_section_order(config["section_order"], _chosen_sections(config))


def check_general_sections(general, available, tool: str, subgroups, subgroup_sections) -> None:
    """RSMTool's checks of ``general_sections`` for ``tool``: every name one of ``available``,
    and no subgroup section (one of ``subgroup_sections``) without ``subgroups``."""
    if general == ["all"]:
        return
    invalid = [name for name in general if name not in available]
    if invalid:
        raise InvalidInputError(
            f"The following general report section names are invalid or not supported for {tool}: "
            f"{', '.join(invalid)}. The available sections are: {', '.join(available)}."
        )
    asked = [name for name in general if name in subgroup_sections]
    if asked and not subgroups:
        raise InvalidInputError(
            "You requested sections for subgroup analysis but did not specify any subgroups. Please "
            "amend the config files to define the subgroups or delete the following sections from "
            f"the list of sections: {', '.join(asked)}"
        )


def check_section_order(order, chosen) -> None:
    """RSMTool's check of ``section_order``: exactly the ``chosen`` sections, in any order."""
    missing = [name for name in chosen if name not in order]
    if missing:
        raise InvalidInputError(
            "'section_order' must list all sections selected for your experiment: Please edit section "
            f"order to include the following missing sections: {', '.join(missing)}"
        )
    extra = [name for name in order if name not in chosen]
    if extra:
        raise InvalidInputError(
            "'section order' can only include sections available for this experiment. The following "
            f"sections are either unavailable or were not selected for this experiment {', '.join(extra)}"
        )


def _chosen_sections(config: dict) -> list:
    general = config["general_sections"]
    chosen = list(SECTIONS) if general == ["all"] else [name for name in SECTIONS if name in general]
    if not config["subgroups"]:
        chosen = [name for name in chosen if name not in _SUBGROUP_SECTIONS]
    return chosen + custom_section_names(config)


def custom_section_names(config: dict) -> list:
    """The names of the ``custom_sections`` (each notebook's file name without ``.ipynb``, as
    rsmeval names them in ``section_order``)."""
    return [Path(str(path).replace("\\", "/")).stem for path in config["custom_sections"] or []]


def report_sections(config: dict) -> list:
    """The report's sections in order: ``section_order`` if given, else rsmeval's order of the
    chosen ``general_sections``. ``custom_sections`` are left out (pdmetrics runs no notebooks;
    the rsmeval command says which)."""
    order = list(config["section_order"]) if config["section_order"] else _chosen_sections(config)
    return [name for name in order if name in SECTIONS]


def locate_file(config: dict, key: str) -> Path:
    """The file a path key names: as given (from the current directory) if it exists, else
    relative to the configuration file's folder, as rsmeval looks for it."""
    given = Path(config[key])
    for candidate in (given, config["configdir"] / given):
        if candidate.exists():
            return candidate.resolve()
    what = "Predictions file" if key == "predictions_file" else "Scaling file"
    raise InvalidInputError(f"{key}: {what} {config[key]} not found (looked in {config['configdir']}).")


def report_options(config: dict) -> dict:
    """The ``report()`` keyword arguments of a checked configuration.

    ``scale_with`` is passed as given (``"asis"``, ``"raw"`` or a path): the caller reads a
    training file.
    """
    options = {keyword: config[key] for key, keyword in REPORT_KEYWORDS.items()}
    options["by"] = options["by"] or None
    return options
