"""Lay pdmetrics' tidy tables out as RSMTool's intermediate files (index, columns, names).

pdmetrics returns tidy tables (one row per score column / group, identifier columns
first). RSMTool writes wide CSVs with the score type or group in the index and, for the
short tables, metric names suffixed with the score type (``corr.scale_trim``). These
functions convert one into the other, so that pipelines reading ``rsmeval`` output can
switch without change.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdmetrics._groups import POOLED_LABEL
from pdmetrics.scoring.tables import CONSISTENCY_COLUMNS, EVAL_COLUMNS

__all__ = [
    "ALL_DATA",
    "SHORT_METRICS",
    "group_frame",
    "rsmtool_labels",
    "eval_frame",
    "short_metrics_frame",
    "consistency_frame",
    "confusion_matrix_frame",
    "score_distribution_frame",
]

#: RSMTool's ``filter_metrics``: which metrics of which score type go in ``eval_short`` and
#: ``eval_by_<G>`` (``{X}`` is ``raw`` or ``scale``; SMD becomes DSM in the subgroup tables).
SHORT_METRICS = (
    ("N", "{X}_trim"),
    ("h_mean", "{X}_trim"),
    ("h_sd", "{X}_trim"),
    ("sys_mean", "{X}_trim"),
    ("sys_sd", "{X}_trim"),
    ("wtkappa", "{X}_trim"),
    ("corr", "{X}_trim"),
    ("{D}", "{X}_trim"),
    ("RMSE", "{X}_trim"),
    ("R2", "{X}_trim"),
    ("sys_mean", "{X}_trim_round"),
    ("sys_sd", "{X}_trim_round"),
    ("kappa", "{X}_trim_round"),
    ("exact_agr", "{X}_trim_round"),
    ("adj_agr", "{X}_trim_round"),
    ("{D}", "{X}_trim_round"),
)
_UNSUFFIXED = ("N", "h_mean", "h_sd")

#: RSMTool's label of the row of all responses in its subgroup files (pdmetrics' tidy tables
#: label that row ``"(all)"``).
ALL_DATA = "All data"


def group_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A subgroup file as RSMTool writes it: the pooled row labelled "All data", and the rows
    in the order of RSMTool's groupby (labels sorted as text, "All data" among them)."""
    frame = frame.set_axis(rsmtool_labels(frame.index))
    return frame.iloc[np.argsort(frame.index.astype(str), kind="stable")]


def rsmtool_labels(labels) -> pd.Index:
    """Group labels as RSMTool writes them: the pooled row ``"(all)"`` becomes "All data".

    The Index ``pd.Index(labels).where(labels != "(all)", "All data")`` gives, made with one
    Index: on pandas 3 each Index of text is an arrow array (``where`` took 0.25 ms).
    """
    if isinstance(labels, np.ndarray) and labels.dtype == object:
        return pd.Index(np.where(labels == POOLED_LABEL, ALL_DATA, labels))
    labels = pd.Index(labels)
    pooled = np.asarray(labels == POOLED_LABEL, dtype=bool)
    if not pooled.any():
        return labels
    values = labels.to_numpy(dtype=object, copy=True)
    values[pooled] = ALL_DATA
    return pd.Index(values, dtype=labels.dtype, name=labels.name)


def eval_frame(table: pd.DataFrame, score_types: dict | None = None) -> pd.DataFrame:
    """RSMTool's ``eval`` file: score types in the index, the 17 metric columns.

    ``score_types`` maps pdmetrics' system column names to RSMTool's score-type names
    (e.g. ``{"score_trim": "raw_trim"}``); unmapped names are kept.
    """
    frame = table.set_index("system")[list(EVAL_COLUMNS)]
    frame.index = [(score_types or {}).get(name, name) for name in frame.index]
    return frame


def short_metrics_frame(
    table: pd.DataFrame, trim: str, trim_round: str, prefix: str, difference: str = "SMD", index=None
) -> pd.DataFrame:
    """RSMTool's ``eval_short`` / ``eval_by_<G>`` layout from a tidy eval table.

    Parameters
    ----------
    table : DataFrame
        Output of ``evaluate`` (one row per system column) or of ``evaluate(by=...)``
        restricted to one ``by`` column (one row per system column x group).
    trim, trim_round : str
        The system columns holding the trimmed and the trimmed-rounded primary scores.
    prefix : {"raw", "scale"}
        RSMTool's name of the primary score family.
    difference : {"SMD", "DSM"}
        Which mean-difference column to use (``eval_by_<G>`` uses DSM).
    index : str, optional
        Column that labels the rows (``"group"`` for subgroup tables).
    """
    system = table["system"].to_numpy()
    rows = {source: np.flatnonzero(system == source) for source in (trim, trim_round)}  # one mask each
    columns = {}
    for metric, score_type in SHORT_METRICS:
        metric = metric.format(D=difference)
        score_type = score_type.format(X=prefix)
        source = trim if score_type.endswith("_trim") else trim_round
        name = metric if metric in _UNSUFFIXED else f"{metric}.{score_type}"
        columns[name] = table[metric].to_numpy()[rows[source]]
    labels = None if index is None else rsmtool_labels(table[index].to_numpy()[rows[trim]])
    return pd.DataFrame(columns, index=labels)


def consistency_frame(table: pd.DataFrame, difference: str = "SMD", index=None) -> pd.DataFrame:
    """RSMTool's ``consistency`` / ``consistency_by_<G>`` layout."""
    columns = [c if c != "SMD" else difference for c in CONSISTENCY_COLUMNS]
    frame = table[columns].copy()
    frame.index = rsmtool_labels(table[index].to_numpy()) if index is not None else [""] * len(table)
    return frame


def confusion_matrix_frame(table: pd.DataFrame) -> pd.DataFrame:
    """RSMTool's ``confMatrix`` layout: human scores in the index, system scores as columns."""
    matrix = table.pivot(index="human_score", columns="system_score", values="N")
    matrix.index.name = None
    matrix.columns.name = None
    return matrix


def score_distribution_frame(table: pd.DataFrame, prefix: str) -> pd.DataFrame:
    """RSMTool's ``score_dist`` layout (``sys`` renamed ``sys_<prefix>``, score as index)."""
    frame = table[["score", "human", "sys", "difference"]].rename(columns={"sys": f"sys_{prefix}"})
    frame.index = frame["score"].to_numpy()
    return frame
