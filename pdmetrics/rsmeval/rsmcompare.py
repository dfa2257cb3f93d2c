"""``pdmetrics rsmcompare CONFIG [OUTPUT_DIR]``: RSMTool's rsmcompare, plus the paired tests it lacks.

rsmcompare puts the saved tables of two experiments (rsmtool or rsmeval output folders) side
by side: for each table the old experiment's rows, the new one's and their difference
(``change``, new minus old). pdmetrics reads the same configuration file and the same tables
and writes the same comparison as one offline HTML page, ``OUTPUT_DIR/<comparison_id>_report.html``,
and each comparison table as ``OUTPUT_DIR/output/<comparison_id>_<table>.csv``.

Both folders also hold each response's scores (``<experiment_id>_pred_processed``), so the
comparison can be *paired*: :func:`paired_comparison` joins the two on the response id and runs
:func:`pdmetrics.scoring.compare` on the responses both experiments scored, giving each
metric's difference an interval and a p-value (``<comparison_id>_paired_comparison.csv``).

rsmtool experiments also hold their features' and model's tables: :func:`feature_tables` puts
them side by side as rsmcompare's feature, model and principal-component sections do (and
correlates each feature's old and new values, :func:`version_correlations`), and
:func:`feature_boxes` gives the box plots of the training features by subgroup that rsmcompare
shows (rsmtool's figures), drawn here as inline SVG.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from pdmetrics._comparison import comparison_settings
from pdmetrics._files import check_file_names, check_free, check_name_part, write_text
from pdmetrics.errors import InvalidInputError
from pdmetrics.io import read_table
from pdmetrics.rsmeval.data import subgroup_values
from pdmetrics.rsmeval.experiments import Experiment, open_experiment
from pdmetrics.rsmeval.paired import join_scores, paired_table, read_scores
from pdmetrics.rsmeval.report_object import write_table
from pdmetrics.rsmeval.run import command_run, send_note
from pdmetrics.rsmeval.tool_configs import chosen_sections, custom_names, read_tool_config, saved_tool_config
from pdmetrics.rsmeval.tool_pages import ComparisonPage

__all__ = [
    "run_rsmcompare",
    "ComparedExperiment",
    "comparison_tables",
    "feature_tables",
    "version_correlations",
    "correlation_overview",
    "feature_boxes",
    "paired_comparison",
    "old_new_change",
]

#: rsmcompare's names of the short evaluation columns (``{X}``: raw or scale; ``{D}``: SMD, or
#: DSM in the subgroup tables), in RSMTool's order.
EVAL_NAMES = {
    "N": "N",
    "h_mean": "H1 mean",
    "h_sd": "H1 SD",
    "sys_mean.{X}_trim": "score mean(b)",
    "sys_sd.{X}_trim": "score SD(b)",
    "corr.{X}_trim": "Pearson(b)",
    "{D}.{X}_trim": "{D}(b)",
    "sys_mean.{X}_trim_round": "score mean(br)",
    "sys_sd.{X}_trim_round": "score SD(br)",
    "exact_agr.{X}_trim_round": "Agmt.(br)",
    "kappa.{X}_trim_round": "K(br)",
    "wtkappa.{X}_trim": "QWK(b)",
    "adj_agr.{X}_trim_round": "Adj. Agmt.(br)",
    "{D}.{X}_trim_round": "{D}(br)",
    "R2.{X}_trim": "R2(b)",
    "RMSE.{X}_trim": "RMSE(b)",
}
#: The association table's columns (rsmcompare's short list).
OVERVIEW = ["N", "Adj. Agmt.(br)", "Agmt.(br)", "K(br)", "Pearson(b)", "QWK(b)", "R2(b)", "RMSE(b)"]
#: The subgroup descriptives' columns.
M_SD = ["N", "H1 mean", "H1 SD", "score mean(br)", "score SD(br)", "score mean(b)", "score SD(b)", "{D}(br)",
        "{D}(b)"]  # fmt: skip
_VERSIONS = ("old", "new", "change")
#: The box of all the responses (rsmtool's label) in the box plots by subgroup.
POOLED_BOX = "All data"


# ----------------------------------------------------------------------------------------------
# old, new and change
# ----------------------------------------------------------------------------------------------
def old_new_change(old: pd.DataFrame | None, new: pd.DataFrame | None) -> pd.DataFrame | None:
    """rsmcompare's layout of two tables: for each row label (the old table's, then those only
    the new one has) its old row, its new row and their difference ``change`` (new minus old,
    NaN where a row or column is in one table only), a first column ``version``.

    >>> import pandas as pd
    >>> from pdmetrics.rsmeval.rsmcompare import old_new_change
    >>> old = pd.DataFrame({"corr": [0.6, 0.5]}, index=["All data", "A"])
    >>> new = pd.DataFrame({"corr": [0.7, 0.4]}, index=["All data", "A"])
    >>> old_new_change(old, new).round(3)
             version  corr
    All data     old   0.6
    All data     new   0.7
    All data  change   0.1
    A            old   0.5
    A            new   0.4
    A         change  -0.1
    """
    if old is None and new is None:
        return None
    old = new.iloc[:0] if old is None else old
    new = old.iloc[:0] if new is None else new
    labels = old.index.append(new.index[~new.index.isin(old.index)])
    columns = old.columns.append(new.columns[~new.columns.isin(old.columns)])
    o, n = old.reindex(index=labels, columns=columns), new.reindex(index=labels, columns=columns)
    numeric = [
        c for c in columns if pd.api.types.is_numeric_dtype(o[c]) and pd.api.types.is_numeric_dtype(n[c])
    ]
    change = (n[numeric].astype("float64") - o[numeric].astype("float64")).reindex(columns=columns)
    stacked = pd.concat([frame.assign(version=v) for frame, v in zip((o, n, change), _VERSIONS)])
    k = len(labels)
    order = np.lexsort((np.repeat(np.arange(3), k), np.tile(np.arange(k), 3)))
    stacked = stacked.iloc[order][["version", *columns]]
    for column in columns:  # counts stay whole numbers when every row has one
        counts = [frame[column] for frame in (old, new) if column in frame]
        if all(pd.api.types.is_integer_dtype(c) for c in counts) and stacked[column].notna().all():
            stacked[column] = stacked[column].astype("int64")
    if isinstance(old.index, pd.RangeIndex) and isinstance(new.index, pd.RangeIndex):
        stacked = stacked.reset_index(drop=True)  # unlabelled rows (one-row tables)
    return stacked


def _single(frame: pd.DataFrame | None, row) -> pd.DataFrame | None:
    """Row ``row`` of a table whose rows are score types, as a one-row table (column
    ``score``)."""
    if frame is None or row not in frame.index:
        return None
    out = frame.loc[[row]].reset_index(drop=True)
    out.insert(0, "score", row)
    return out


def _one_row_change(old, new) -> pd.DataFrame | None:
    """:func:`old_new_change` of two one-row tables (rows of different score types compared:
    rsmcompare subtracts them by label and shows no change when one experiment uses scaled
    scores and the other raw ones; pdmetrics gives the change)."""
    if old is None and new is None:
        return None
    scores = [
        frame["score"].iloc[0] if frame is not None and "score" in frame else None for frame in (old, new)
    ]
    strip = [
        frame.drop(columns="score", errors="ignore") if frame is not None else None for frame in (old, new)
    ]
    table = old_new_change(*strip)
    if any(score is not None for score in scores):
        change = scores[1] if scores[0] == scores[1] else f"{scores[1]} − {scores[0]}"
        table.insert(1, "score", [scores[0], scores[1], change if None not in scores else None])
    return table.reset_index(drop=True)


# ----------------------------------------------------------------------------------------------
# reading each experiment
# ----------------------------------------------------------------------------------------------
class ComparedExperiment:
    """One experiment of the comparison, its score family and its tables as rsmcompare reads them."""

    def __init__(self, experiment: Experiment, scaled: bool, scaled_key: str, version: str) -> None:
        self.experiment, self.version = experiment, version
        self.prefix = "scale" if scaled else "raw"
        self.scaled_key = scaled_key
        experiment.require("pred_processed", "the paired comparison reads each response's scores from it")
        self.short = self.eval_table("eval_short")

    def eval_table(self, name: str):
        """An eval_short or eval_by_<G> table with rsmcompare's column names."""
        frame = self.experiment.table(name, text_index=name != "eval_short")
        if frame is None:
            return None
        wtkappa_rounded = f"wtkappa.{self.prefix}_trim_round"
        if wtkappa_rounded in frame and f"wtkappa.{self.prefix}_trim" not in frame:
            raise InvalidInputError(
                f"{self.experiment.key}: {self.experiment.path(name).name} holds wtkappa on rounded scores, "
                "as RSMTool before 7.0 computed it; RSMTool now uses unrounded scores. Run the experiment "
                "again."
            )
        difference = "DSM" if any(str(c).startswith("DSM") for c in frame.columns) else "SMD"
        names = {
            key.format(X=self.prefix, D=difference): value.format(D=difference)
            for key, value in EVAL_NAMES.items()
        }
        missing = [key for key in names if key not in frame.columns]
        if missing:
            other = "raw" if self.prefix == "scale" else "scale"
            hint = (
                f"; set {self.scaled_key} to {str(self.prefix == 'raw').lower()}: the file has the {other} "
                "scores"
                if any(str(c).endswith(f".{other}_trim") for c in frame.columns)
                else ""
            )
            raise InvalidInputError(
                f"{self.scaled_key}={str(self.prefix == 'scale').lower()}: {self.experiment.path(name).name} "
                f"in {self.experiment.key} has no column {missing[0]!r}{hint}."
            )
        return frame[list(names)].rename(columns=names)

    def row(self, name: str, *, text_index: bool = False):
        """The row of this experiment's score family (``<prefix>_trim``) of a table by score type."""
        return _single(self.experiment.table(name, text_index=text_index), f"{self.prefix}_trim")

    def scores(self) -> pd.DataFrame:
        """Each response's human score and the experiment's trimmed and trimmed-rounded scores."""
        return read_scores(
            self.experiment, self.prefix, f"{self.scaled_key}={str(self.prefix == 'scale').lower()}"
        )

    def groups(self, subgroups) -> pd.DataFrame | None:
        """The responses' subgroups (``test_metadata``), blank values as "No info"."""
        if not self.experiment.has("test_metadata"):
            return None
        frame = read_table(self.experiment.path("test_metadata"), text_columns=["spkitemid", *subgroups])
        present = [name for name in subgroups if name in frame.columns]
        out = frame[["spkitemid", *present]].rename(columns={"spkitemid": "id"})
        for name in present:
            out[name] = subgroup_values(out[name])
        return out


def comparison_tables(old: ComparedExperiment, new: ComparedExperiment, subgroups) -> dict:
    """rsmcompare's comparison tables (old, new and change rows), by file name."""
    tables = {}
    overview = [frame[OVERVIEW] if frame is not None else None for frame in (old.short, new.short)]
    tables["eval_overview"] = old_new_change(*(_unlabelled(frame) for frame in overview))
    for group in subgroups:
        pair = [side.eval_table(f"eval_by_{group}") for side in (old, new)]
        if all(frame is None for frame in pair):
            continue
        tables[f"eval_by_{group}"] = old_new_change(*(f[OVERVIEW] if f is not None else None for f in pair))
        difference = next(("DSM" if "DSM(b)" in f else "SMD") for f in pair if f is not None)
        columns = [name.format(D=difference) for name in M_SD]
        tables[f"eval_by_{group}_m_sd"] = old_new_change(
            *(f[columns] if f is not None else None for f in pair)
        )
    distributions = [
        _score_distribution(side.experiment.table("score_dist", index_column="score"), side)
        for side in (old, new)
    ]
    tables["score_dist"] = old_new_change(*distributions)
    tables["confMatrix"] = _confusion_matrices(*(side.experiment.table("confMatrix") for side in (old, new)))
    tables["consistency"] = old_new_change(
        *(_unlabelled(s.experiment.table("consistency")) for s in (old, new))
    )
    tables["degradation"] = _degradation(old, new)
    tables["disattenuated_correlations"] = _one_row_change(
        *(s.row("disattenuated_correlations") for s in (old, new))
    )
    for group in subgroups:
        name = f"disattenuated_correlations_by_{group}"
        tables[name] = old_new_change(*(s.experiment.table(name, text_index=True) for s in (old, new)))
    tables["true_score_eval"] = _one_row_change(*(s.row("true_score_eval") for s in (old, new)))
    tables |= feature_tables(old, new, subgroups)
    return {name: table for name, table in tables.items() if table is not None}


# ----------------------------------------------------------------------------------------------
# the tables of rsmtool experiments: features, model, principal components
# ----------------------------------------------------------------------------------------------
#: rsmcompare's names of the outlier counts (``feature_outliers``).
OUTLIER_NAMES = {"upper": "Upper", "lower": "Lower", "both": "Both", "upperperc": "Upper %",
                 "lowerperc": "Lower %", "bothperc": "Both %"}  # fmt: skip
#: The columns of rsmcompare's feature tables.
DESCRIPTIVES = ["N", "mean", "std. dev.", "skewness", "kurtosis"]
PERCENTILES = ["N", "min", "max", "1%", "5%", "25%", "50%", "75%", "95%", "99%", "IQR", "Mild outliers",
               "Mild outliers (%)", "Extreme outliers", "Extreme outliers (%)"]  # fmt: skip
#: The statistics of rsmcompare's overview of a correlation table (each column's, over its rows).
OVERVIEW_STATISTICS = {"MEAN": "mean", "SD": "std", "MEDIAN": "median", "MIN": "min", "MAX": "max"}


def feature_tables(old: ComparedExperiment, new: ComparedExperiment, subgroups) -> dict:
    """rsmcompare's tables of the features and the model (rsmtool experiments; None where
    neither experiment has the file): descriptives, outliers and percentiles of the training
    set's features, the correlations of each feature's old and new values, the inter-feature
    correlations, the overviews of the human-feature correlations, the coefficients and the
    model fit (old, new, change), and the new experiment's principal components."""
    described = [_feature_descriptives(side) for side in (old, new)]
    tables = {
        name: old_new_change(*(d[name] if d is not None else None for d in described))
        for name in ("feature_descriptives", "feature_outliers", "feature_percentiles")
    }
    tables["feature_correlations"] = version_correlations(old, new)
    tables["cors_processed"] = old_new_change(*(s.experiment.table("cors_processed") for s in (old, new)))
    for name in ("margcor_score", "pcor_score"):
        pair = (s.experiment.table(f"{name}_all_data", text_index=True) for s in (old, new))
        tables[f"{name}_overview"] = old_new_change(*(correlation_overview(frame) for frame in pair))
    name = "pcor_score_no_length_all_data"  # rsmcompare shows none: pdmetrics', as the experiments have it
    tables[name] = old_new_change(*(s.experiment.table(name, text_index=True) for s in (old, new)))
    for group in subgroups:
        for name in (f"margcor_score_by_{group}", f"pcor_score_by_{group}"):
            tables[name] = old_new_change(*(s.experiment.table(name, text_index=True) for s in (old, new)))
    tables["betas"] = old_new_change(*(_unnamed(s.experiment.table("betas")) for s in (old, new)))
    tables["model_fit"] = old_new_change(*(s.experiment.table("model_fit", index=False) for s in (old, new)))
    for name in ("pca", "pcavar"):  # rsmcompare shows the new experiment's only
        tables[name] = new.experiment.table(name)
    return tables


def _unnamed(frame):
    """A table without its index's name (rsmcompare drops it)."""
    return None if frame is None else frame.rename_axis(None)


def _feature_descriptives(side: ComparedExperiment) -> dict | None:
    """One experiment's three feature tables as rsmcompare shows them (None without
    ``feature_descriptives``)."""
    experiment = side.experiment
    descriptives = experiment.table("feature_descriptives")
    if descriptives is None:
        return None
    _require_columns(experiment, "feature_descriptives", descriptives, ["N", "min", "max", *DESCRIPTIVES])
    counts = descriptives[["N", "min", "max"]]
    out = {"feature_descriptives": descriptives[DESCRIPTIVES], "feature_outliers": None,
           "feature_percentiles": None}  # fmt: skip
    outliers = experiment.table("feature_outliers")
    if outliers is not None:
        outliers = outliers.rename(columns=OUTLIER_NAMES)
        out["feature_outliers"] = counts[["N"]].join(outliers, how="inner")
    percentiles = experiment.table("feature_descriptivesExtra")
    if percentiles is not None:
        _require_columns(experiment, "feature_descriptivesExtra", percentiles,
                         ["Mild outliers", "Extreme outliers"])  # fmt: skip
        frame = percentiles.join(counts, how="inner")
        n = frame["N"].astype("float64")
        frame["Mild outliers (%)"] = frame["Mild outliers"] / n * 100
        frame["Extreme outliers (%)"] = frame["Extreme outliers"] / n * 100
        out["feature_percentiles"] = frame[[c for c in PERCENTILES if c in frame.columns]]
    return out


def _require_columns(experiment: Experiment, name: str, frame: pd.DataFrame, columns) -> None:
    missing = [column for column in columns if column not in frame.columns]
    if missing:
        raise InvalidInputError(
            f"{experiment.key}: {experiment.path(name).name} has no column {missing[0]!r} (rsmtool writes "
            f"{', '.join(map(repr, columns))}); run the experiment again with rsmtool."
        )


def correlation_overview(frame: pd.DataFrame | None) -> pd.DataFrame | None:
    """rsmcompare's overview of a table of correlations (rows: the data, columns: the
    features): each feature's mean, SD (population), median, minimum and maximum over the
    rows.

    >>> import pandas as pd
    >>> from pdmetrics.rsmeval.rsmcompare import correlation_overview
    >>> correlation_overview(pd.DataFrame({"f1": [0.5], "f2": [0.25]}, index=["All data"]))
        MEAN   SD  MEDIAN   MIN   MAX
    f1  0.50  0.0    0.50  0.50  0.50
    f2  0.25  0.0    0.25  0.25  0.25
    """
    if frame is None:
        return None
    numbers = frame.apply(pd.to_numeric, errors="coerce").astype("float64")
    overview = numbers.agg(list(OVERVIEW_STATISTICS.values())).T
    overview["std"] = numbers.std(ddof=0)  # numpy's SD, as rsmcompare computes it
    overview.columns = list(OVERVIEW_STATISTICS)
    return overview


def version_correlations(old: ComparedExperiment, new: ComparedExperiment) -> pd.DataFrame | None:
    """rsmcompare's correlations of each feature's old and new values: for the features both
    experiments' training sets have (``train_features``), on the responses both kept (joined on
    ``spkitemid``), the number of responses ``N``, each version's correlation with its human
    score (``human_old``, ``human_new``) and the correlation of the two versions (``old_new``).
    None when either experiment has no ``train_features``; an empty table (``attrs["reason"]``
    saying why) when they share no feature or no response. ``attrs["dropped"]`` counts the
    responses each experiment has that the other has not; ``attrs["undefined"]`` lists the
    features with a missing or non-numeric value (their correlations are NaN, as
    ``scipy.stats.pearsonr`` gives)."""
    frames = [side.experiment.table("train_features", index=False) for side in (old, new)]
    if any(frame is None for frame in frames):
        return None
    for side, frame in zip((old, new), frames):
        _require_columns(side.experiment, "train_features", frame, ["spkitemid", "sc1"])
    columns = [[c for c in frame.columns if c not in ("spkitemid", "sc1")] for frame in frames]
    features = [c for c in columns[0] if c in set(columns[1])]
    empty = pd.DataFrame(columns=["N", "human_old", "human_new", "old_new"], dtype="float64")
    if not features:
        empty.attrs["reason"] = "the two experiments' training sets share no feature"
        return empty
    merged = pd.merge(
        *(frame[["spkitemid", "sc1", *features]].astype({"spkitemid": str}) for frame in frames),
        on="spkitemid",
        suffixes=("_old", "_new"),
    ).drop(columns="spkitemid")
    if not len(merged):
        empty.attrs["reason"] = "the two experiments' training sets share no response (spkitemid)"
        return empty
    numbers = merged.apply(pd.to_numeric, errors="coerce").to_numpy(dtype="float64")
    k = len(features)
    human_old, old_values = numbers[:, [0]], numbers[:, 1 : k + 1]
    human_new, new_values = numbers[:, [k + 1]], numbers[:, k + 2 :]
    table = pd.DataFrame(
        {
            "N": len(merged),
            "human_old": _column_correlations(np.broadcast_to(human_old, old_values.shape), old_values),
            "human_new": _column_correlations(np.broadcast_to(human_new, new_values.shape), new_values),
            "old_new": _column_correlations(new_values, old_values),
        },
        index=pd.Index(features),
    )
    table.attrs["dropped"] = {"old": len(frames[0]) - len(merged), "new": len(frames[1]) - len(merged)}
    finite = np.isfinite(np.hstack([old_values, new_values])).reshape(len(merged), 2, k).all(axis=(0, 1))
    table.attrs["undefined"] = [f for f, ok in zip(features, finite) if not ok]
    return table


#: rsmtool draws no box plots of more features than this (without thumbnails).
MAX_BOX_FEATURES = 30


def feature_boxes(side: ComparedExperiment, group: str) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """The box plots of the training set's feature values by ``group`` that rsmtool draws (and
    rsmcompare shows): for each feature (sorted by name) and each box (``All data``, the groups
    sorted, ``No info`` last) the quartiles, the whiskers (the furthest values within 1.5
    interquartile ranges of the box, as matplotlib draws them) and the truncation thresholds
    rsmtool marks (mean ± 4 SD of the values it plots); and the values beyond the whiskers.
    None when the experiment has no ``train_features`` or its ``train_metadata`` has no
    column ``group``. Missing and non-numeric values are left out."""
    experiment = side.experiment
    features = experiment.table("train_features", index=False)
    metadata = experiment.table("train_metadata", index=False)
    if features is None or metadata is None or group not in metadata.columns:
        return None
    _require_columns(experiment, "train_features", features, ["spkitemid"])
    _require_columns(experiment, "train_metadata", metadata, ["spkitemid"])
    names = sorted(c for c in features.columns if c not in ("spkitemid", "sc1"))
    values = features[["spkitemid", *names]].assign(spkitemid=features["spkitemid"].astype(str))
    labels = metadata[["spkitemid", group]].assign(spkitemid=metadata["spkitemid"].astype(str))
    merged = values.merge(labels, on="spkitemid", how="inner")
    merged[group] = subgroup_values(merged[group].astype(str).where(merged[group].notna()))
    levels = sorted(set(merged[group]) - {"No info"})
    order = [POOLED_BOX, *levels, *(["No info"] if (merged[group] == "No info").any() else [])]
    long = merged.melt(id_vars=[group], value_vars=names, var_name="feature", value_name="value")
    long["value"] = pd.to_numeric(long["value"], errors="coerce")
    long = long[long["value"].notna().to_numpy()]
    long = pd.concat([long, long.assign(**{group: POOLED_BOX})], ignore_index=True).rename(
        columns={group: "box"}
    )
    long["box"] = pd.Categorical(long["box"], categories=order)
    long["feature"] = pd.Categorical(long["feature"], categories=names)
    keys = ["feature", "box"]
    grouped = long.groupby(keys, observed=True)["value"]
    stats = grouped.quantile([0.25, 0.5, 0.75]).unstack()
    stats.columns = ["q1", "median", "q3"]
    stats["n"] = grouped.size()
    iqr = stats["q3"] - stats["q1"]
    bounds = stats.assign(lo=stats["q1"] - 1.5 * iqr, hi=stats["q3"] + 1.5 * iqr)
    at = long.join(bounds[["lo", "hi"]], on=keys)
    inside = at[((at["value"] >= at["lo"]) & (at["value"] <= at["hi"])).to_numpy()]
    whiskers = inside.groupby(keys, observed=True)["value"].agg(["min", "max"])
    stats["low"] = whiskers["min"].reindex(stats.index).fillna(stats["q1"])
    stats["high"] = whiskers["max"].reindex(stats.index).fillna(stats["q3"])
    spread = long.groupby("feature", observed=True)["value"].agg(["mean", "std"])
    stats = stats.join(spread, on="feature")
    stats["threshold_low"] = stats["mean"] - 4 * stats["std"]
    stats["threshold_high"] = stats["mean"] + 4 * stats["std"]
    at = at.join(stats[["low", "high"]], on=keys)
    fliers = at[((at["value"] < at["low"]) | (at["value"] > at["high"])).to_numpy()][[*keys, "value"]]
    stats = stats.drop(columns=["mean", "std"]).reset_index()
    return stats, fliers.reset_index(drop=True)


def box_plots(old: ComparedExperiment, new: ComparedExperiment, subgroups) -> dict:
    """:func:`feature_boxes` of each experiment by each subgroup, by ``(version, subgroup)``
    (left out where the experiment has none; a note instead of more than
    :data:`MAX_BOX_FEATURES` features, as rsmtool draws none then)."""
    out = {}
    for group in subgroups:
        for side in (old, new):
            boxes = feature_boxes(side, group)
            if boxes is None:
                continue
            count = boxes[0]["feature"].nunique()
            out[side.version, group] = (
                boxes
                if count <= MAX_BOX_FEATURES
                else f"The {side.version} model has {count} features (more than {MAX_BOX_FEATURES}): rsmtool "
                "draws no box plots of them, nor does pdmetrics."
            )
    return out


def _column_correlations(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pearson's correlation of each column of ``a`` with the same column of ``b`` (NaN for a
    column with a missing value or no variance)."""
    da, db = a - a.mean(axis=0), b - b.mean(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (da * db).sum(axis=0) / np.sqrt((da * da).sum(axis=0) * (db * db).sum(axis=0))


def _unlabelled(frame):
    """A one-row table without its label (rsmcompare shows these without the row label)."""
    return None if frame is None else frame.reset_index(drop=True)


def _score_distribution(frame, side: ComparedExperiment):
    if frame is None:
        return None
    column = f"sys_{side.prefix}"
    if column not in frame:
        raise InvalidInputError(
            f"{side.scaled_key}={str(side.prefix == 'scale').lower()}: "
            f"{side.experiment.path('score_dist').name} "
            f"in {side.experiment.key} has no column {column!r}."
        )
    frame = frame.rename(columns={column: "sys"})[["human", "sys", "difference"]]
    frame.index = [_score_label(v) for v in frame.index]
    return frame


def _score_label(value) -> str:
    number = pd.to_numeric(pd.Series([value]), errors="coerce").iloc[0]
    if pd.notna(number) and float(number).is_integer():
        return str(int(number))
    return str(value)


def _confusion_matrices(old, new):
    """The two confusion matrices (human scores in the rows, system scores in the columns) and
    their difference (a score only one experiment has counts 0 in the other), one block each."""
    if old is None and new is None:
        return None
    blocks = []

    def labelled(frame):
        frame = frame.copy()
        frame.index = [f"human {_score_label(v)}" for v in frame.index]
        frame.columns = [f"system {_score_label(v)}" for v in frame.columns]
        return frame

    old, new = (labelled(f) if f is not None else None for f in (old, new))
    change = new.sub(old, fill_value=0) if old is not None and new is not None else None
    for frame, version in zip((old, new, change), _VERSIONS):
        if frame is not None:
            blocks.append(frame.assign(version=version))
    table = pd.concat(blocks)
    return table[["version", *[c for c in table.columns if c != "version"]]]


def _degradation(old: ComparedExperiment, new: ComparedExperiment):
    """rsmcompare's degradation table: for each score type of each experiment, the human-human
    agreement (H-H), the human-machine one (H-M) and their difference (diff)."""
    parts = []
    for side in (old, new):
        experiment = side.experiment
        consistency, evaluation = experiment.table("consistency"), experiment.table("eval")
        degradation = experiment.table("degradation")
        if consistency is None or evaluation is None or degradation is None:
            continue
        columns = list(degradation.columns)
        k = len(degradation)
        rows = pd.concat(
            [
                pd.DataFrame(np.repeat(consistency[columns].to_numpy()[:1], k, axis=0), columns=columns),
                evaluation.reindex(degradation.index)[columns].reset_index(drop=True),
                degradation[columns].reset_index(drop=True),
            ]
        ).astype("float64")
        rows.index = list(degradation.index) * 3
        rows.insert(0, "type", np.repeat(["H-H", "H-M", "diff"], k))
        rows.insert(1, "version", side.version)
        parts.append(rows)
    if not parts:
        return None
    table = pd.concat(parts)
    scores = pd.Index(table.index).unique()
    order = np.lexsort(
        (
            table["type"].map({"H-H": 0, "H-M": 1, "diff": 2}).to_numpy(),
            (table["version"] == "new").to_numpy(),
            scores.get_indexer(table.index),
        )
    )
    return table.iloc[order]


# ----------------------------------------------------------------------------------------------
# the paired comparison
# ----------------------------------------------------------------------------------------------
def paired_comparison(
    old: ComparedExperiment, new: ComparedExperiment, subgroups, options: dict
) -> tuple[pd.DataFrame, dict]:
    """The eval metrics of the two experiments compared on the responses both scored (joined on
    the response id), each with its interval and p-value (:func:`pdmetrics.scoring.compare`),
    and the facts of the join (responses of each, in common, only in one, human scores that
    differ)."""
    joined, joint = join_scores({"old": old.scores(), "new": new.scores()})
    facts = {
        "old": joint["counts"]["old"],
        "new": joint["counts"]["new"],
        "common": joint["common"],
        "only_old": joint["counts"]["old"] - joint["common"],
        "only_new": joint["counts"]["new"] - joint["common"],
        "human_differs": joint["human_differs"],
    }
    by = _paired_groups(joined["id"], old, new, subgroups, facts)
    return paired_table(joined, ["old", "new"], options, by), facts


def _paired_groups(
    ids: pd.Series, old: ComparedExperiment, new: ComparedExperiment, subgroups, facts: dict
) -> dict:
    """Each subgroup column's values for the joined responses (the old experiment's metadata,
    else the new one's); columns neither has are listed in ``facts["no_groups"]``."""
    out, absent = {}, []
    tables = [side.groups(subgroups) for side in (old, new)]
    for group in subgroups:
        source = next((t for t in tables if t is not None and group in t.columns), None)
        if source is None:
            absent.append(group)
            continue
        values = source.set_index("id")[group].reindex(ids.to_numpy())
        out[group] = subgroup_values(values.fillna("No info")).to_numpy(dtype=object)
    facts["no_groups"] = absent
    return out


# ----------------------------------------------------------------------------------------------
# the command
# ----------------------------------------------------------------------------------------------
def _feature_notes(correlations: pd.DataFrame | None, notes) -> None:
    """The notes of the correlations between the feature versions (nothing computed, or
    features whose correlations are undefined)."""
    if correlations is None:
        return
    if "reason" in correlations.attrs:
        send_note(
            notes, f"feature correlations between versions: not computed, {correlations.attrs['reason']}."
        )
    if correlations.attrs.get("undefined"):
        named = ", ".join(map(repr, correlations.attrs["undefined"]))
        send_note(
            notes,
            f"feature correlations between versions: {named} has a missing or non-numeric value in a "
            "train_features file; its correlations are NaN.",
        )


def run_rsmcompare(
    config_path,
    output_dir=".",
    *,
    notes=None,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    random_state=12345,
    correction=None,
) -> list[Path]:
    """Run an rsmcompare configuration file: the comparison report and its tables.

    Writes ``output_dir/<comparison_id>_report.html`` (one offline page: rsmcompare's sections,
    plus the paired comparison), ``output_dir/output/<comparison_id>_<table>.csv`` (each
    comparison table: ``eval_overview``, ``eval_by_<G>``, ``score_dist``, ``confMatrix``,
    ``consistency``, ``degradation``, ..., for rsmtool experiments those of
    :func:`feature_tables`, and ``paired_comparison``) and
    ``output_dir/output/<comparison_id>_rsmcompare.json`` (the configuration with its defaults,
    as rsmcompare saves it). ``n_resamples``, ``confidence``, ``random_state`` and
    ``correction`` are those of :func:`pdmetrics.scoring.compare`. Every file is written whole
    or not at all; ``output_dir/<comparison_id>.pdmetrics-incomplete`` marks the folder until
    the page, written last, is in place. Returns the files written.
    """
    options = comparison_settings("baseline", correction, n_resamples, confidence, random_state, keyed=False)
    output_dir = Path(output_dir)
    config = read_tool_config(config_path, "rsmcompare")
    comparison_id = config["comparison_id"]
    subgroups = list(config["subgroups"])
    for group in subgroups:
        check_name_part(
            group,
            "subgroups",
            f"the subgroup {group!r} names files (<comparison_id>_eval_by_<subgroup>.csv, ...) and is "
            "read from the experiments' eval_by_<subgroup> files: give the subgroup column's name.",
        )
    check_free(output_dir, comparison_id, "rsmcompare", "output directory", "comparison_id")
    sides = []
    for version in ("old", "new"):
        experiment = open_experiment(config, f"experiment_dir_{version}", f"experiment_id_{version}")
        scaled_key = f"use_scaled_predictions_{version}"
        sides.append(ComparedExperiment(experiment, bool(config[scaled_key]), scaled_key, version))
    old, new = sides
    tables = comparison_tables(old, new, subgroups)
    paired, facts = paired_comparison(old, new, subgroups, options)
    tables["paired_comparison"] = paired
    sections = chosen_sections(config, "rsmcompare")
    boxes = box_plots(old, new, subgroups) if "features_by_group" in sections else {}
    _feature_notes(tables.get("feature_correlations"), notes)
    custom = custom_names(config)
    if custom:
        send_note(
            notes, f"custom_sections: pdmetrics runs no notebooks; the report leaves out {', '.join(custom)}."
        )
    missing = [group for group in subgroups if f"eval_by_{group}" not in tables]
    if missing:
        send_note(
            notes,
            f"subgroups: neither experiment has evaluation tables by {', '.join(map(repr, missing))} "
            "(eval_by_<subgroup>); the report has no subgroup comparison for them.",
        )
    files = {name: f"{comparison_id}_{name}.csv" for name in tables}
    check_file_names(
        [*files.values(), f"{comparison_id}_rsmcompare.json", f"{comparison_id}_report.html"],
        "comparison_id",
        comparison_id,
        groups=subgroups,
        group_option="subgroups",
        kind="rsmcompare",
    )
    with command_run(output_dir, comparison_id, "rsmcompare", "comparison_id", notes, subfolders=("output",)):
        (output_dir / "output").mkdir(parents=True, exist_ok=True)
        written = []
        for name, table in tables.items():
            index = not isinstance(table.index, pd.RangeIndex)
            written.append(write_table(table, output_dir / "output" / files[name], "csv", index))
        written.append(
            write_text(
                output_dir / "output" / f"{comparison_id}_rsmcompare.json",
                saved_tool_config(config, "rsmcompare"),
            )
        )
        page = ComparisonPage(config, old, new, tables, facts, options, written, boxes).page(sections)
        written.append(write_text(output_dir / f"{comparison_id}_report.html", page))
    return written
