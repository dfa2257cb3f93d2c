"""The output folders of rsmtool and rsmeval experiments, read for rsmcompare and rsmsummarize.

An experiment folder holds ``output/<experiment_id>_<table>.<format>`` (rsmeval's or rsmtool's
tables, in one of the formats they write) and ``output/<experiment_id>_<tool>.json`` (its
configuration). :func:`open_experiment` finds one as RSMTool does (the folder as given, else
relative to the configuration file's folder) and checks, before anything is read, that the
folder, its ``output/`` folder and the experiment's tables are there, naming the configuration
key of whatever is missing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from pdmetrics.errors import InvalidInputError
from pdmetrics.io import read_table
from pdmetrics.rsmeval.tool_configs import locate_folder

__all__ = ["Experiment", "open_experiment", "experiment_ids", "output_folder", "read_json", "TABLE_SUFFIXES"]

#: The file formats of an experiment's tables (rsmtool and rsmeval write these), by suffix.
TABLE_SUFFIXES = {"csv": ".csv", "tsv": ".tsv", "xlsx": ".xlsx", "jsonlines": ".jsonlines"}

#: The first column of a table written with its index and no index name, as pandas reads it.
_INDEX_NAMES = ("", "Unnamed: 0")


@dataclass(frozen=True)
class Experiment:
    """One experiment's output: its folder, id and table format, and how the configuration
    named it (``key``: the folder's key, ``id_key``: the id's, for messages)."""

    folder: Path
    experiment_id: str
    file_format: str
    key: str
    id_key: str

    @property
    def output(self) -> Path:
        return self.folder / "output"

    def path(self, name: str) -> Path:
        """The file of table ``name`` (``eval_short``, ``eval_by_L1``, ...)."""
        return self.output / f"{self.experiment_id}_{name}{TABLE_SUFFIXES[self.file_format]}"

    def has(self, name: str) -> bool:
        return self.path(name).is_file()

    def table(self, name: str, *, index: bool = True, text_index: bool = False, index_column=None):
        """Table ``name`` as RSMTool reads it (its first column as the index, ``index_column``
        another column), or None when the experiment has no such file. ``text_index``: the row
        labels as text (subgroup values: a group ``"01"`` stays ``"01"``)."""
        path = self.path(name)
        if not path.is_file():
            return None
        try:
            frame = read_table(path, text_columns=_INDEX_NAMES if text_index else ())
        except InvalidInputError as error:
            raise InvalidInputError(f"{self.key}: {error}") from None
        if index_column is not None:
            return frame.set_index(index_column)
        if not index or frame.shape[1] < 2:
            return frame
        frame = frame.set_index(frame.columns[0])
        if str(frame.index.name) in _INDEX_NAMES:
            frame.index.name = None
        return frame

    def require(self, name: str, why: str) -> None:
        """Refuse, naming the folder's key, when table ``name`` is missing."""
        if not self.has(name):
            raise InvalidInputError(
                f"{self.key}: {self.path(name).relative_to(self.folder).as_posix()} is missing from "
                f"{str(self.folder)!r}: {why}. Run the experiment again (rsmtool and rsmeval write it), or "
                "point the key at the experiment's folder."
            )

    def configuration(self) -> dict:
        """The experiment's saved configuration (``<id>_rsmtool.json`` or ``<id>_rsmeval.json``;
        an empty dict when there is none)."""
        for tool in ("rsmtool", "rsmeval"):
            path = self.output / f"{self.experiment_id}_{tool}.json"
            if path.is_file():
                return read_json(path, self.key)
        return {}


def read_json(path: Path, key: str) -> dict:
    try:
        content = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise InvalidInputError(f"{key}: {path} is not a readable JSON file ({error}).") from None
    if not isinstance(content, dict):
        raise InvalidInputError(f"{key}: {path} must hold one JSON object {{...}}.")
    return content


def experiment_ids(output: Path) -> list[str]:
    """The experiments whose short evaluation table is in an ``output/`` folder."""
    ids = set()
    for suffix in TABLE_SUFFIXES.values():
        ids |= {path.name[: -len(f"_eval_short{suffix}")] for path in output.glob(f"*_eval_short{suffix}")}
    return sorted(ids)


def output_folder(folder: Path, key: str) -> Path:
    """``folder/output``, refused (naming ``key``) when the folder has none."""
    output = folder / "output"
    if not output.is_dir():
        raise InvalidInputError(
            f"{key}: the directory {str(folder)!r} does not contain the output of an rsmtool or rsmeval "
            "experiment (it has no output/ folder); give the folder the experiment wrote (the one holding "
            "output/, figure/ and report/)."
        )
    return output


def open_experiment(config: dict, key: str, id_key: str | None = None, experiment_id=None) -> Experiment:
    """The experiment that ``config[key]`` (a folder) and ``config[id_key]`` (its id; or
    ``experiment_id``) name, checked: the folder, its ``output/`` folder, the id's short
    evaluation table, and one table format."""
    folder = locate_folder(config, key)
    output = output_folder(folder, key)
    experiment_id = config[id_key] if experiment_id is None else experiment_id
    formats = [
        name
        for name, suffix in TABLE_SUFFIXES.items()
        if (output / f"{experiment_id}_eval_short{suffix}").is_file()
    ]
    if not formats:
        found = experiment_ids(output)
        holds = (
            f"it holds {', '.join(map(repr, found))}"
            if found
            else "it holds no experiment's eval_short table"
        )
        raise InvalidInputError(
            f"{id_key or key}: {str(output)!r} has no output of an experiment {experiment_id!r} (no "
            f"{experiment_id}_eval_short.csv); {holds}. Give the experiment_id the experiment was run with."
        )
    if len(formats) > 1:
        raise InvalidInputError(
            f"{key}: {str(output)!r} holds the tables of {experiment_id!r} in several formats "
            f"({', '.join(formats)}); RSMTool reads one. Remove the others, or run the experiment again."
        )
    return Experiment(folder, experiment_id, formats[0], key, id_key or key)
