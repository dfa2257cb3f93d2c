"""``pdmetrics rsmcompare`` and ``pdmetrics rsmsummarize`` against RSMTool 12's rsmcompare and
rsmsummarize (tests/data/rsmcompare12, see its README): every table of the comparison report and
every file of the summary at 1e-9; the paired comparison; what is refused; the folder's state
after an interruption. With RSMTool's commands at hand (``PDMETRICS_RSMTOOL_BIN``, or a virtual
environment ``rsmvenv`` beside the project) the experiments are made again and compared live."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import ROOT
from rsmeval_files import compare_file

import pdmetrics
from pdmetrics._files import INCOMPLETE_SUFFIX, PART_SUFFIX
from pdmetrics.cli import main
from pdmetrics.rsmeval import rsmcompare as rsmcompare_module
from pdmetrics.rsmeval.html_page import comparison_html, comparison_page
from pdmetrics.rsmeval.paired import PAIRED_METRICS
from pdmetrics.rsmeval.tool_configs import TOOLS, check_tool_config

DATA = Path(__file__).parent / "data" / "rsmcompare12"
CONFIGS = DATA / "configs"
RTOL, ATOL = 1e-9, 1e-12

#: rsmcompare's headings (its report's tables) -> pdmetrics' file and the rows to compare
#: ("all", or "old-new": the change rows differ by design, see docs/guide/rsmeval.rst).
HEADINGS = {
    "Human-human agreement": ("consistency", "all"),
    "Degradation": ("degradation", "all"),
    "Disattenuated correlations": ("disattenuated_correlations", "old-new"),
    "Disattenuated correlations by L1": ("disattenuated_correlations_by_L1", "all"),
    "Disattenuated correlations by QUESTION": ("disattenuated_correlations_by_QUESTION", "all"),
    "Score distribution (percentage)": ("score_dist", "all"),
    "Confusion matrix (human-machine) for old model (old_model)": ("confMatrix", "old"),
    "Confusion matrix (human-machine) for new model (new_model)": ("confMatrix", "new"),
    "Confusion matrix (human-machine) (change)": ("confMatrix", "change"),
    "Confusion matrix (human-machine) for old model (features_old)": ("confMatrix", "old"),
    "Confusion matrix (human-machine) for new model (features_new)": ("confMatrix", "new"),
    "Overall association statistics (human-machine)": ("eval_overview", "all"),
    "Association statistics (human-machine) by L1": ("eval_by_L1", "all"),
    "Association statistics (human-machine) by QUESTION": ("eval_by_QUESTION", "all"),
    "Descriptive holistic score statistics by L1": ("eval_by_L1_m_sd", "all"),
    "Descriptive holistic score statistics by QUESTION": ("eval_by_QUESTION_m_sd", "all"),
    "True score evaluations": ("true_score_eval", "old-new"),
}


#: rsmcompare's headings of the sections of rsmtool experiments (features, model, principal
#: components; each a start of the heading) -> pdmetrics' files, in the order they come. Their
#: rows are matched by label and version: rsmcompare sorts the features by name.
FEATURE_HEADINGS = {
    "Overall descriptive feature statistics": ["feature_descriptives"],
    "Prevalence of recoded cases": ["feature_outliers"],
    "Feature value distribution": ["feature_percentiles"],
    "Correlations between feature values between old and new model": ["feature_correlations"],
    "Differences in inter-feature correlations": ["cors_processed"],
    "Overall human-feature marginal correlations": ["margcor_score_overview"],
    "Overall human-feature partial correlations": ["pcor_score_overview"],
    "Human-feature marginal correlations by ": ["margcor_score_by_{}"],
    "Human-feature partial correlations by ": ["pcor_score_by_{}"],
    "Standardized & relative coefficients": ["betas"],
    "Model fit for old and new model": ["model_fit"],
    "Principal component analysis for the new model": ["pca", "pcavar"],
}


def _read(path: Path) -> pd.DataFrame:
    """A table file with its first column as the index when that column has no name."""
    frame = pd.read_csv(path)
    if frame.columns[0].startswith("Unnamed: "):
        frame = frame.set_index(frame.columns[0]).rename_axis(None)
    return frame


def _numbers(frame: pd.DataFrame, columns) -> np.ndarray:
    return frame[columns].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)


def compare_rsmcompare_tables(expected: Path, output: Path, comparison_id: str) -> int:
    """Every table rsmcompare's report shows (``expected``: rsmtool_tables.py's output) equals
    pdmetrics' file of it; returns how many numbers were compared."""
    compared, seen = 0, {}
    for number, heading in json.loads((expected / "tables.json").read_text()):
        if heading not in HEADINGS:
            start = next(start for start in FEATURE_HEADINGS if heading.startswith(start))
            name = FEATURE_HEADINGS[start][seen.get(start, 0)].format(heading[len(start) :])
            seen[start] = seen.get(start, 0) + 1
            theirs = _read(expected / f"{number}.csv")
            compared += compare_by_label(theirs, _read(output / f"{comparison_id}_{name}.csv"), heading)
            continue
        name, rows = HEADINGS[heading]
        theirs = _read(expected / f"{number}.csv")
        ours = _read(output / f"{comparison_id}_{name}.csv")
        if name == "confMatrix":  # one block per version; rsmcompare labels rows and columns the other way
            ours = ours[ours["version"] == rows].drop(columns="version")
            theirs.columns = [c.replace("human", "system") for c in theirs.columns]
        elif rows == "old-new":  # rsmcompare's change of rows of different score types is empty
            theirs = theirs[theirs["version"].isin(["old", "new"])]
            ours = ours[ours["version"].isin(["old", "new"])]
        columns = [c for c in theirs.columns if c not in ("version", "type")]
        assert set(columns) <= set(ours.columns), (heading, columns, list(ours.columns))
        assert len(ours) == len(theirs), heading
        for label in ("version", "type"):
            if label in theirs:
                assert list(ours[label]) == list(theirs[label]), heading
        # rows labelled by both (rsmcompare hides its label of one-row tables: 0 or none)
        labelled = pd.Series(theirs.index).notna().all() and theirs.index.nunique() > 1
        if labelled and name not in ("score_dist", "confMatrix"):
            labels = ours["score"] if "score" in ours else ours.index  # one-row tables: the score type
            assert [str(v) for v in labels] == [str(v) for v in theirs.index], heading
        np.testing.assert_allclose(
            _numbers(ours, columns), _numbers(theirs, columns), rtol=RTOL, atol=ATOL, err_msg=heading
        )
        compared += int(np.isfinite(_numbers(theirs, columns)).sum())
    return compared


def compare_by_label(theirs: pd.DataFrame, ours: pd.DataFrame, heading: str) -> int:
    """A table of rsmcompare's report against pdmetrics' file, rows matched by label and
    version (the label alone without a version column; the version alone for model_fit, whose
    rows rsmcompare labels 0); rsmcompare's "-" (a feature one model lacks) is NaN. Returns how
    many numbers were compared."""

    def keys(frame):
        labels = (
            ["" for _ in range(len(frame))] if heading.startswith("Model fit") else frame.index.astype(str)
        )
        versions = frame["version"] if "version" in frame else [""] * len(frame)
        return pd.MultiIndex.from_arrays([list(labels), list(versions)])

    theirs, ours = theirs.set_axis(keys(theirs)), ours.set_axis(keys(ours))
    assert theirs.index.is_unique and sorted(theirs.index) == sorted(ours.index), heading
    columns = [c for c in theirs.columns if c != "version"]
    assert set(columns) <= set(ours.columns), (heading, columns, list(ours.columns))
    ours = ours.reindex(theirs.index)
    np.testing.assert_allclose(
        _numbers(ours, columns), _numbers(theirs, columns), rtol=RTOL, atol=ATOL, err_msg=heading
    )
    return int(np.isfinite(_numbers(theirs, columns)).sum())


def compare_summary_files(expected: Path, output: Path) -> list[str]:
    """rsmsummarize's files (pdmetrics' paired comparison, which rsmsummarize has not, aside)."""
    names = sorted(path.name for path in expected.iterdir())
    ours = [path.name for path in output.iterdir() if not path.name.endswith("_paired_comparison.csv")]
    assert sorted(ours) == names and len(ours) == len(list(output.iterdir())) - 1
    for name in names:
        if name.endswith(".json"):
            assert (output / name).read_text() == (expected / name).read_text()
        else:
            compare_file(expected / name, output / name, check_order=True)
    return names


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    out = tmp_path_factory.mktemp("rsmcompare")
    assert main(["rsmcompare", str(CONFIGS / "compare.json"), str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def features_compared(tmp_path_factory):
    out = tmp_path_factory.mktemp("rsmcompare-features")
    assert main(["rsmcompare", str(CONFIGS / "features_compare.json"), str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def summarized(tmp_path_factory):
    out = tmp_path_factory.mktemp("rsmsummarize")
    assert main(["rsmsummarize", str(CONFIGS / "summary.json"), str(out)]) == 0
    return out


# ----------------------------------------------------------------------------------------------
# as RSMTool
# ----------------------------------------------------------------------------------------------
def test_every_table_of_the_comparison_report_as_rsmcompare(compared):
    assert compare_rsmcompare_tables(DATA / "expected" / "compare", compared / "output", "old_vs_new") > 700


def test_saved_configuration_and_tree_as_rsmcompare(compared):
    saved = compared / "output" / "old_vs_new_rsmcompare.json"
    assert saved.read_text() == (DATA / "expected" / "compare" / "old_vs_new_rsmcompare.json").read_text()
    assert sorted(p.name for p in compared.iterdir()) == [
        ".pdmetrics-rsmcompare-old_vs_new.json",
        "old_vs_new_report.html",
        "output",
    ]


def test_the_change_rsmcompare_leaves_empty_is_the_difference(compared):
    for name in ("disattenuated_correlations", "true_score_eval"):
        table = _read(compared / "output" / f"old_vs_new_{name}.csv")
        numbers = table.drop(columns=["version", "score"]).to_numpy(dtype=float)
        np.testing.assert_allclose(numbers[2], numbers[1] - numbers[0], rtol=1e-12)
        assert list(table["score"]) == ["raw_trim", "scale_trim", "scale_trim − raw_trim"]


def test_every_file_of_the_summary_as_rsmsummarize(summarized):
    names = compare_summary_files(DATA / "expected" / "summary", summarized / "output")
    assert "three_models_betas.csv" in names and "three_models_model_fit.csv" in names
    assert sorted(p.name for p in summarized.iterdir()) == [
        ".pdmetrics-rsmsummarize-three_models.json",
        "figure",
        "output",
        "report",
    ]
    assert (summarized / "report" / "three_models_report.html").is_file()


# ----------------------------------------------------------------------------------------------
# the sections of rsmtool experiments: features, model, principal components
# ----------------------------------------------------------------------------------------------
FEATURES = DATA / "experiments"
FEATURE_FILES = ["feature_descriptives", "feature_outliers", "feature_percentiles", "feature_correlations",
                 "cors_processed", "margcor_score_overview", "pcor_score_overview", "betas", "model_fit",
                 "pca", "pcavar"]  # fmt: skip


def test_every_table_of_the_feature_sections_as_rsmcompare(features_compared):
    """Two rsmtool experiments (f3 only in the old model, f4 only in the new; the new one trains
    on three responses fewer): every table of rsmcompare's report, the feature sections'
    and the others, at 1e-9."""
    expected = DATA / "expected" / "features_compare"
    output = features_compared / "output"
    assert compare_rsmcompare_tables(expected, output, "features_old_vs_new") > 900
    headings = [heading for _, heading in json.loads((expected / "tables.json").read_text())]
    assert sum(h.startswith(tuple(FEATURE_HEADINGS)) for h in headings) == 13
    saved = "features_old_vs_new_rsmcompare.json"
    assert (output / saved).read_text() == (expected / saved).read_text()
    correlations = _read(output / "features_old_vs_new_feature_correlations.csv")
    assert list(correlations.index) == ["f1", "f2"] and (correlations["N"] == 147).all()  # shared only
    descriptives = _read(output / "features_old_vs_new_feature_descriptives.csv")
    assert descriptives.loc["f3"].set_index("version").loc["new"].drop("N").isna().all()


def test_the_feature_sections_of_the_page(features_compared):
    page = (features_compared / "features_old_vs_new_report.html").read_text()
    for heading in (
        "Overall descriptive feature statistics",
        "Prevalence of recoded cases",
        "Feature value distribution",
        "Correlations between feature values between old and new model",
        "Differences in inter-feature correlations between the old model (features_old) and the new model "
        "(features_new)",
        "Overall human-feature marginal correlations",
        "Human-feature partial correlations by L1",
        "Feature value box plots by L1",
        "Standardized &amp; relative coefficients",
        "Model fit for old and new model",
        "Principal component analysis for the new model (features_new)",
    ):
        assert f">{heading}</h3>" in page, heading
    assert "The training sets differ in size: old N = 150, new N = 147." in page
    assert "3 responses of the old training set are not in the new one" in page
    assert page.count('id="fig-feature-boxes-') == 2
    assert 'id="fig-betas"' in page and 'id="fig-pca-scree"' in page
    assert page.count('class="box"') == 4 * (3 + 3)  # All data and three L1 groups, three features each


def _sides(config_path: Path):
    from pdmetrics.rsmeval.experiments import open_experiment
    from pdmetrics.rsmeval.tool_configs import read_tool_config

    config = read_tool_config(config_path, "rsmcompare")
    return [
        rsmcompare_module.ComparedExperiment(
            open_experiment(config, f"experiment_dir_{v}", f"experiment_id_{v}"),
            bool(config[f"use_scaled_predictions_{v}"]),
            f"use_scaled_predictions_{v}",
            v,
        )
        for v in ("old", "new")
    ]


def test_box_plots_are_matplotlibs_as_rsmtool_draws_them():
    """Quartiles, whiskers and the values beyond them as matplotlib's ``boxplot_stats`` (which
    seaborn's boxplot draws for rsmtool); the thresholds mean ± 4 SD of the values rsmtool plots
    (each group's and all of them again)."""
    cbook = pytest.importorskip("matplotlib.cbook")
    for side in _sides(CONFIGS / "features_compare.json"):
        stats, fliers = rsmcompare_module.feature_boxes(side, "L1")
        output = FEATURES / side.experiment.experiment_id / "output"
        train = pd.read_csv(output / f"{side.experiment.experiment_id}_train_features.csv").merge(
            pd.read_csv(output / f"{side.experiment.experiment_id}_train_metadata.csv"), on="spkitemid"
        )
        features = sorted(c for c in train.columns if c not in ("spkitemid", "sc1", "L1"))
        assert list(dict.fromkeys(stats["feature"])) == features
        assert list(stats["box"][:4]) == ["All data", "Arabic", "Chinese", "Spanish"]
        plotted = pd.concat([train, train.assign(L1="All data")])
        for (feature, box), row in stats.set_index(["feature", "box"]).iterrows():
            values = train[feature] if box == "All data" else train.loc[train["L1"] == box, feature]
            expected = cbook.boxplot_stats(values.to_numpy())[0]
            got = [row["q1"], row["median"], row["q3"], row["low"], row["high"], row["n"]]
            want = [expected["q1"], expected["med"], expected["q3"], expected["whislo"], expected["whishi"]]
            np.testing.assert_allclose(got, [*want, len(values)], rtol=1e-12)
            drawn = fliers[(fliers["feature"] == feature) & (fliers["box"] == box)]["value"]
            assert sorted(drawn) == sorted(expected["fliers"])
            mean, sd = plotted[feature].mean(), plotted[feature].std()
            np.testing.assert_allclose(
                [row["threshold_low"], row["threshold_high"]], [mean - 4 * sd, mean + 4 * sd], rtol=1e-12
            )


def _feature_copy(tmp_path, version: str, edit) -> Path:
    """A copy of one feature experiment with ``edit(train_features)`` applied; the comparison's
    configuration pointing at it."""
    folder = tmp_path / f"features_{version}"
    shutil.copytree(FEATURES / f"features_{version}", folder)
    path = folder / "output" / f"features_{version}_train_features.csv"
    edit(pd.read_csv(path)).to_csv(path, index=False)
    return _config(tmp_path, "features_compare", **{f"experiment_dir_{version}": str(folder)})


def test_a_missing_feature_value_gives_nan_correlations_and_a_note(tmp_path, capsys):
    def edit(frame):
        frame.loc[5, "f2"] = np.nan
        return frame

    assert main(["rsmcompare", str(_feature_copy(tmp_path, "new", edit)), str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert "'f2' has a missing or non-numeric value in a train_features file; its correlations are NaN" in err
    table = _read(tmp_path / "out" / "output" / "features_old_vs_new_feature_correlations.csv")
    assert table.loc["f2", ["human_new", "old_new"]].isna().all() and table.loc["f1"].notna().all()
    assert table.loc["f2", "human_old"] == pytest.approx(0.6922376429704786, rel=1e-12)
    page = (tmp_path / "out" / "features_old_vs_new_report.html").read_text()
    assert "so its correlations are not defined (NaN)" in page and page.count('id="fig-feature-boxes-') == 2


def test_experiments_sharing_no_feature_skip_the_correlations_with_a_note(tmp_path, capsys):
    config = _feature_copy(tmp_path, "new", lambda frame: frame.rename(columns={"f1": "g1", "f2": "g2"}))
    assert main(["rsmcompare", str(config), str(tmp_path / "out")]) == 0
    assert "not computed, the two experiments' training sets share no feature" in capsys.readouterr().err
    page = (tmp_path / "out" / "features_old_vs_new_report.html").read_text()
    assert "Not computed: the two experiments&#x27; training sets share no feature." in page


def test_a_train_features_file_without_the_human_score_is_refused(tmp_path, capsys):
    config = _feature_copy(tmp_path, "old", lambda frame: frame.drop(columns="sc1"))
    assert main(["rsmcompare", str(config), str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "experiment_dir_old: features_old_train_features.csv has no column 'sc1'" in err


def test_without_metadata_one_models_box_plots_are_missing(tmp_path):
    folder = tmp_path / "features_old"
    shutil.copytree(FEATURES / "features_old", folder)
    (folder / "output" / "features_old_train_metadata.csv").unlink()
    config = _config(tmp_path, "features_compare", experiment_dir_old=str(folder))
    assert main(["rsmcompare", str(config), str(tmp_path / "out")]) == 0
    page = (tmp_path / "out" / "features_old_vs_new_report.html").read_text()
    assert "This figure is not available for the old model." in page
    assert page.count('id="fig-feature-boxes-') == 1


def test_rsmeval_experiments_have_no_feature_tables(compared):
    """rsmeval experiments hold no features: no feature file is written and the feature
    sections say so, as rsmcompare's do."""
    written = {path.name for path in (compared / "output").iterdir()}
    assert not {f"old_vs_new_{name}.csv" for name in FEATURE_FILES} & written
    page = (compared / "old_vs_new_report.html").read_text()
    for section in ("feature_descriptives", "features_by_group", "preprocessed_features", "model"):
        body = page.split(f'<section id="{section}">')[1].split("</section>")[0]
        assert "not available" in body, section
    assert "fig-feature-boxes" not in page


def test_skipped_sections_draw_no_box_plots(tmp_path):
    config = _config(tmp_path, "features_compare", general_sections=["feature_descriptives", "model"])
    assert main(["rsmcompare", str(config), str(tmp_path / "out")]) == 0
    page = (tmp_path / "out" / "features_old_vs_new_report.html").read_text()
    assert "fig-feature-boxes" not in page and 'id="fig-betas"' in page
    assert '<section id="pca">' not in page


# ----------------------------------------------------------------------------------------------
# the paired comparison
# ----------------------------------------------------------------------------------------------
def _pred(name: str, experiment: str) -> pd.DataFrame:
    return pd.read_csv(
        DATA / "experiments" / name / "output" / f"{experiment}_pred_processed.csv", dtype={"spkitemid": str}
    )


def test_paired_comparison_is_compare_on_the_common_responses(compared):
    table = _read(compared / "output" / "old_vs_new_paired_comparison.csv")
    assert list(table.columns) == ["by", "group", *pdmetrics._comparison.COLUMNS]
    old, new = _pred("old", "old_model"), _pred("new", "new_model")
    joined = old.merge(new, on="spkitemid", suffixes=("_old", "_new"))
    assert len(joined) == 489 and len(old) == 493 and len(new) == 496
    evaluation = pd.DataFrame(
        {
            "sc1": joined["sc1_old"],
            "old": joined["raw_trim"],
            "new": joined["scale_trim"],
            "old_r": joined["raw_trim_round"],
            "new_r": joined["scale_trim_round"],
        }
    ).scoring.evaluate(human="sc1", system=["old", "new", "old_r", "new_r"], exclude_zero=False)
    pooled = table[(table["by"] == "L1") & (table["group"] == "(all)")].set_index("metric")
    rows = evaluation.set_index("system")
    for metric, score in PAIRED_METRICS.items():
        suffix = "" if score == "trim" else "_r"
        assert math.isclose(
            pooled.loc[metric, "baseline_value"], rows.loc[f"old{suffix}", metric], rel_tol=1e-12
        )
        assert math.isclose(
            pooled.loc[metric, "system_value"], rows.loc[f"new{suffix}", metric], rel_tol=1e-12
        )
    assert (pooled["N"] == 489).all()
    assert list(pooled.index) == list(PAIRED_METRICS)
    assert set(table["group"]) == {"(all)", "Arabic", "Chinese", "Korean", "Spanish", "Q1", "Q2", "Q3"}
    assert (table["ci_low"] <= table["difference"]).all() and (table["difference"] <= table["ci_high"]).all()


def test_the_page_says_the_responses_differ(compared):
    page = (compared / "old_vs_new_report.html").read_text()
    assert "4 only in the old experiment, 7 only in the new one" in page
    assert "489 are in both" in page
    assert page.count('class="difference"') == 8 + 4 * 8 + 3 * 8  # overall, then the groups of L1, QUESTION


def _self_comparison(tmp_path, **changes) -> Path:
    config = json.loads((CONFIGS / "compare.json").read_text())
    config.update(
        experiment_id_new="old_model",
        experiment_dir_new=str(DATA / "experiments" / "old"),
        experiment_dir_old=str(DATA / "experiments" / "old"),
        use_scaled_predictions_new=False,
        **changes,
    )
    path = tmp_path / "self.json"
    path.write_text(json.dumps(config))
    return path


def test_an_experiment_against_itself_gives_rsmtool_values_no_difference_and_p_one(tmp_path):
    assert main(["rsmcompare", str(_self_comparison(tmp_path)), str(tmp_path / "out")]) == 0
    table = _read(tmp_path / "out" / "output" / "old_vs_new_paired_comparison.csv")
    pooled = table[(table["by"] == "L1") & (table["group"] == "(all)")].set_index("metric")
    short = pd.read_csv(
        DATA / "experiments" / "old" / "output" / "old_model_eval_short.csv", index_col=0
    ).iloc[0]
    for metric, score in PAIRED_METRICS.items():
        assert math.isclose(
            pooled.loc[metric, "baseline_value"], short[f"{metric}.raw_{score}"], rel_tol=RTOL
        )
    assert (table["difference"] == 0).all() and (table["p_value"] == 1).all()
    page = (tmp_path / "out" / "old_vs_new_report.html").read_text()
    assert "The responses differ" not in page and "493 are in both" in page


def same_response_experiments(tmp_path) -> int:
    """``pdmetrics rsmeval`` of old.json and new.json on the responses both scored, into
    ``tmp_path/old`` and ``tmp_path/new``; returns how many responses."""
    frame = pd.read_csv(DATA / "data" / "preds.csv")
    frame = frame[
        pd.to_numeric(frame["old"], errors="coerce").notna()
        & pd.to_numeric(frame["new"], errors="coerce").notna()
    ]
    frame.to_csv(tmp_path / "preds.csv", index=False)
    for version in ("old", "new"):
        config = json.loads((CONFIGS / f"{version}.json").read_text())
        config["predictions_file"] = str(tmp_path / "preds.csv")
        (tmp_path / f"{version}.json").write_text(json.dumps(config))
        assert main(["rsmeval", str(tmp_path / f"{version}.json"), str(tmp_path / version)]) == 0
    return len(frame)


def test_with_the_same_responses_the_paired_values_are_the_experiments_own(tmp_path):
    """Two pdmetrics rsmeval runs on the same responses: the paired table's two values are
    those of each experiment's eval_short (RSMTool's definitions, checked elsewhere at 1e-9)."""
    same_response_experiments(tmp_path)
    config = json.loads((CONFIGS / "compare.json").read_text())
    config.update(experiment_dir_old=str(tmp_path / "old"), experiment_dir_new=str(tmp_path / "new"))
    (tmp_path / "compare.json").write_text(json.dumps(config))
    assert (
        main(["rsmcompare", str(tmp_path / "compare.json"), str(tmp_path / "out"), "--correction", "holm"])
        == 0
    )
    table = _read(tmp_path / "out" / "output" / "old_vs_new_paired_comparison.csv")
    pooled = table[(table["by"] == "L1") & (table["group"] == "(all)")].set_index("metric")
    for version, prefix, column in (("old", "raw", "baseline_value"), ("new", "scale", "system_value")):
        short = pd.read_csv(
            tmp_path / version / "output" / f"{version}_model_eval_short.csv", index_col=0
        ).iloc[0]
        for metric, score in PAIRED_METRICS.items():
            assert math.isclose(pooled.loc[metric, column], short[f"{metric}.{prefix}_{score}"], rel_tol=RTOL)
    assert (table["p_adjusted"] >= table["p_value"]).all() and (table["p_adjusted"] > table["p_value"]).any()
    assert "The responses differ" not in (tmp_path / "out" / "old_vs_new_report.html").read_text()


def test_an_rsmtool_experiment_shows_its_model_tables(tmp_path):
    config = _config(
        tmp_path,
        experiment_id_new="lr_model",
        experiment_dir_new=str(DATA / "experiments" / "model"),
        subgroups=["L1"],
    )
    assert main(["rsmcompare", str(config), str(tmp_path / "out")]) == 0
    betas = _read(tmp_path / "out" / "output" / "old_vs_new_betas.csv")
    assert list(betas["version"][:3]) == ["old", "new", "change"] and betas["standardized"].notna().sum() == 3
    page = (tmp_path / "out" / "old_vs_new_report.html").read_text()
    assert "Standardized &amp; relative coefficients" in page and "Model fit for old and new model" in page


# ----------------------------------------------------------------------------------------------
# refusals
# ----------------------------------------------------------------------------------------------
def _config(tmp_path, name="compare", **changes) -> Path:
    config = json.loads((CONFIGS / f"{name}.json").read_text())
    for key in ("experiment_dir_old", "experiment_dir_new"):
        if key in config:
            config[key] = str((CONFIGS / config[key]).resolve())
    if "experiment_dirs" in config:
        config["experiment_dirs"] = [str((CONFIGS / d).resolve()) for d in config["experiment_dirs"]]
    config.update(changes)
    config = {key: value for key, value in config.items() if value is not ...}
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(config))
    return path


@pytest.mark.parametrize(
    ("name", "changes", "message"),
    [
        (
            "compare",
            {"experiment_dir_old": "nowhere"},
            "experiment_dir_old: the directory 'nowhere' does not exist",
        ),
        (
            "compare",
            {"experiment_id_new": "newer"},
            "experiment_id_new: .* has no output of an experiment 'newer'.*it holds 'new_model'",
        ),
        (
            "compare",
            {"experiment_id_new": "../old/output/old_model"},
            r"experiment_id_new '\.\./old/output/old_model' would put files outside",
        ),
        (
            "compare",
            {"comparison_id": "../escape"},
            r"comparison_id '\.\./escape' would put files outside the output folder",
        ),
        ("compare", {"comparison_id": "has space"}, "comparison_id cannot contain any spaces"),
        ("compare", {"subgroups": ["L1", "../x"]}, r"subgroups '\.\./x' would put files outside"),
        ("compare", {"foo": 1}, "Unrecognized field 'foo' in json file"),
        ("compare", {"experiment_dirs": ["a"]}, "Unrecognized field 'experiment_dirs'"),
        ("compare", {"description_new": ...}, "The config file must specify 'description_new'"),
        (
            "compare",
            {"use_scaled_predictions_old": "maybe"},
            "Field use_scaled_predictions_old can only be set to True or False",
        ),
        (
            "compare",
            {"use_scaled_predictions_old": True},
            "use_scaled_predictions_old=true: old_model_eval_short.csv in experiment_dir_old has no column "
            "'sys_mean.scale_trim'; set use_scaled_predictions_old to false",
        ),
        (
            "compare",
            {"general_sections": ["evaluation", "nonsense"]},
            "invalid or not supported for rsmcompare: nonsense",
        ),
        (
            "compare",
            {"subgroups": [], "general_sections": ["features_by_group"]},
            "sections for subgroup analysis but did not specify any subgroups",
        ),
        ("compare", {"section_order": ["evaluation"]}, "'section_order' must list all sections"),
        ("compare", {"use_wandb": True}, "wandb_project"),
        ("summary", {"experiment_names": ["a"]}, "number of specified experiment names should be the same"),
        (
            "summary",
            {"experiment_dirs": ["nowhere"], "experiment_names": ...},
            "experiment_dirs: the directory 'nowhere' does not exist",
        ),
        ("summary", {"summary_id": "/abs"}, "summary_id '/abs' would put files outside"),
        ("summary", {"comparison_id": "x"}, "Unrecognized field 'comparison_id'"),
        (
            "summary",
            {"file_format": "parquet"},
            "file_format 'parquet' is not one of csv, tsv, xlsx, jsonlines",
        ),
    ],
)
def test_refusals_are_one_line_naming_the_key(tmp_path, capsys, name, changes, message):
    tool = "rsmcompare" if name == "compare" else "rsmsummarize"
    out = tmp_path / "out"
    assert main([tool, str(_config(tmp_path, name, **changes)), str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"pdmetrics {tool}: error: ") and err.count("\n") == 1, err
    import re

    assert re.search(message, err), err
    assert not out.exists() or not any(out.rglob("*.csv"))  # nothing written


def test_missing_files_are_named(tmp_path, capsys):
    folder = tmp_path / "old"
    shutil.copytree(DATA / "experiments" / "old", folder)
    (folder / "output" / "old_model_pred_processed.csv").unlink()
    assert (
        main(["rsmcompare", str(_config(tmp_path, experiment_dir_old=str(folder))), str(tmp_path / "o")]) == 1
    )
    err = capsys.readouterr().err
    assert "experiment_dir_old: output/old_model_pred_processed.csv is missing from" in err
    shutil.rmtree(folder / "output")
    assert (
        main(["rsmcompare", str(_config(tmp_path, experiment_dir_old=str(folder))), str(tmp_path / "o")]) == 1
    )
    assert "experiment_dir_old: the directory" in capsys.readouterr().err
    (tmp_path / "file").write_text("x")
    assert (
        main(
            [
                "rsmcompare",
                str(_config(tmp_path, experiment_dir_old=str(tmp_path / "file"))),
                str(tmp_path / "o"),
            ]
        )
        == 1
    )
    assert "experiment_dir_old: " in capsys.readouterr().err


def test_summary_refusals_of_folders(tmp_path, capsys):
    folder = tmp_path / "two"
    shutil.copytree(DATA / "experiments" / "old", folder)
    shutil.copy(DATA / "experiments" / "new" / "output" / "new_model_rsmeval.json", folder / "output")
    config = _config(tmp_path, "summary", experiment_dirs=[str(folder)], experiment_names=["x"])
    assert main(["rsmsummarize", str(config), str(tmp_path / "o")]) == 1
    assert "seems to contain the output of multiple experiments" in capsys.readouterr().err
    (folder / "output" / "new_model_rsmeval.json").write_text("{}")
    config = _config(tmp_path, "summary", experiment_dirs=[str(folder)], experiment_names=...)
    assert main(["rsmsummarize", str(config), str(tmp_path / "o")]) == 1
    assert "new_model_rsmeval.json has no experiment_id" in capsys.readouterr().err


def test_summary_refuses_a_non_empty_output_folder_unless_forced(tmp_path, capsys):
    config = _config(tmp_path, "summary")
    assert main(["rsmsummarize", str(config), str(tmp_path / "o")]) == 0
    assert main(["rsmsummarize", str(config), str(tmp_path / "o")]) == 1
    assert "already contains a non-empty 'output' directory; pass -f" in capsys.readouterr().err
    assert main(["rsmsummarize", str(config), str(tmp_path / "o"), "-f"]) == 0


def test_every_rsmtool_key_is_accepted_and_other_tools_keys_dropped():
    for tool, spec in TOOLS.items():
        base = {key: "x" for key in spec["required"]}
        if tool == "rsmsummarize":
            base["experiment_dirs"] = ["a"]
        checked = check_tool_config({**base, "trim_min": 1, "description": "d", "min_n_per_group": 3}, tool)
        assert set(checked["given"]) <= set(spec["required"] + spec["optional"])


# ----------------------------------------------------------------------------------------------
# files: whole, recorded, never outside
# ----------------------------------------------------------------------------------------------
def test_an_interrupted_run_leaves_a_marked_folder_and_the_next_takes_over(tmp_path, monkeypatch, capsys):
    calls = []
    original = rsmcompare_module.write_table

    def interrupted(*args, **kwargs):
        calls.append(args[1])
        if len(calls) == 3:
            raise KeyboardInterrupt
        return original(*args, **kwargs)

    monkeypatch.setattr(rsmcompare_module, "write_table", interrupted)
    out = tmp_path / "out"
    assert main(["rsmcompare", str(_config(tmp_path)), str(out)]) == 130
    assert "interrupted; the run did not finish" in capsys.readouterr().err
    assert (out / f"old_vs_new{INCOMPLETE_SUFFIX}").is_file()
    assert not (out / "old_vs_new_report.html").exists()  # the page comes last
    assert not list(out.rglob(f"*{PART_SUFFIX}*")) and len(list((out / "output").iterdir())) == 2
    monkeypatch.undo()
    assert main(["rsmcompare", str(_config(tmp_path)), str(out)]) == 0
    assert "from an earlier run that did not finish" in capsys.readouterr().err
    assert (
        not (out / f"old_vs_new{INCOMPLETE_SUFFIX}").exists() and (out / "old_vs_new_report.html").is_file()
    )


def test_a_second_run_removes_the_subgroup_tables_it_no_longer_writes(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["rsmcompare", str(_config(tmp_path)), str(out)]) == 0
    (out / "output" / "mine.csv").write_text("kept")
    assert main(["rsmcompare", str(_config(tmp_path, subgroups=["L1"])), str(out)]) == 0
    err = capsys.readouterr().err
    assert (
        "old_vs_new_eval_by_QUESTION.csv" in err
        and not (out / "output" / "old_vs_new_eval_by_QUESTION.csv").exists()
    )
    assert (out / "output" / "mine.csv").read_text() == "kept"


def test_markup_in_names_and_descriptions_stays_text(tmp_path):
    hostile = "<script>alert(1)</script>"
    config = _config(tmp_path, description_old=hostile, description_new="<img src=x onerror=alert(1)>")
    assert main(["rsmcompare", str(config), str(tmp_path / "out")]) == 0
    page = (tmp_path / "out" / "old_vs_new_report.html").read_text()
    assert hostile not in page and "<img" not in page and "&lt;script&gt;" in page
    assert "http://" not in page.split("<main>")[1] and "https://" not in page.split("<main>")[1]
    summary = _config(tmp_path, "summary", experiment_names=["<b>a</b>", "b", "c"], description=hostile)
    assert main(["rsmsummarize", str(summary), str(tmp_path / "s")]) == 0
    page = (tmp_path / "s" / "report" / "three_models_report.html").read_text()
    assert hostile not in page and "<b>a</b>" not in page


# ----------------------------------------------------------------------------------------------
# the comparison section of any compare table
# ----------------------------------------------------------------------------------------------
def test_comparison_html_draws_one_forest_row_per_metric_with_the_table_numbers():
    rng = np.random.default_rng(4)
    human = rng.integers(1, 7, 400).astype(float)
    frame = pd.DataFrame(
        {
            "sc1": human,
            "a": human + rng.normal(0, 1, 400),
            "b": human + rng.normal(0, 0.6, 400),
            "g": rng.choice(["x", "y"], 400),
        }
    )
    table = frame.scoring.compare(human="sc1", system=["a", "b"], by="g", n_resamples=200)
    html = comparison_html(table)
    assert html.count("<svg") == 1 and html.count('class="difference"') == len(table) == 24
    import re

    values = [float(v) for v in re.findall(r'class="difference"[^>]*data-value="([^"]+)"', html)]
    np.testing.assert_allclose(values, table["difference"], rtol=1e-15)
    apart = re.findall(r'data-apart="(true|false)"', html)
    assert apart == [str(lo > 0 or hi < 0).lower() for lo, hi in zip(table["ci_low"], table["ci_high"])]
    assert html.count('class="zero"') == 1
    page = comparison_page(table, title="<i>t</i>")
    assert page.startswith("<!DOCTYPE html>") and "<i>t</i>" not in page
    with pytest.raises(pdmetrics.InvalidInputError, match="lacks the comparison columns"):
        comparison_html(table.drop(columns="ci_low"))


def test_forest_rows_with_undefined_values_draw_nothing():
    from pdmetrics.rsmeval.figures import forest_panel

    svg = forest_panel((0, 0, 600, 120), ["a", "b"], [0.1, math.nan], [0.05, math.nan], [0.2, math.nan])
    assert svg.count('class="difference"') == 1 and "— [—, —]" in svg


def test_help_names_both_commands(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "rsmcompare" in out and "rsmsummarize" in out
    with pytest.raises(SystemExit):
        main(["rsmcompare", "--help"])
    assert "--n-resamples" in capsys.readouterr().out


# ----------------------------------------------------------------------------------------------
# live: RSMTool's own commands on the same configurations
# ----------------------------------------------------------------------------------------------
def _rsmtool_bin() -> Path | None:
    given = os.environ.get("PDMETRICS_RSMTOOL_BIN")
    for folder in ([Path(given)] if given else []) + [ROOT.parent / "rsmvenv" / "bin"]:
        if all(
            (folder / tool).is_file()
            for tool in ("rsmeval", "rsmtool", "rsmcompare", "rsmsummarize", "python")
        ):
            return folder
    return None


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """The experiments, the comparisons and the summary made again by RSMTool (about 4 minutes)."""
    tools = _rsmtool_bin()
    if tools is None:
        pytest.skip(
            "RSMTool's commands not found (set PDMETRICS_RSMTOOL_BIN to the folder holding rsmeval, "
            "rsmtool, rsmcompare, rsmsummarize and RSMTool's python)"
        )
    root = tmp_path_factory.mktemp("rsmtool-live")
    subprocess.run([sys.executable, str(DATA / "generate.py"), str(root)], check=True)
    configs = root / "configs"
    for tool, config, out in (
        ("rsmeval", "old.json", "../experiments/old"),
        ("rsmeval", "new.json", "../experiments/new"),
        ("rsmtool", "model.json", "../experiments/model"),
        ("rsmtool", "features_old.json", "../experiments/features_old"),
        ("rsmtool", "features_new.json", "../experiments/features_new"),
        ("rsmcompare", "compare.json", "../rsmtool/compare"),
        ("rsmcompare", "features_compare.json", "../rsmtool/features_compare"),
        ("rsmsummarize", "summary.json", "../rsmtool/summary"),
    ):
        done = subprocess.run([str(tools / tool), config, out], cwd=configs, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    for report, tables in (("compare", "tables"), ("features_compare", "features_tables")):
        done = subprocess.run(
            [
                str(tools / "python"),
                str(DATA / "rsmtool_tables.py"),
                str(root / "rsmtool" / report),
                str(root / "rsmtool" / tables),
            ],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr[-2000:]
    for tool, config, out in (
        ("rsmcompare", "compare.json", "rsmcompare"),
        ("rsmcompare", "features_compare.json", "features_compare"),
        ("rsmsummarize", "summary.json", "rsmsummarize"),
    ):
        assert main([tool, str(configs / config), str(root / "pdmetrics" / out)]) == 0
    return root


def test_live_comparison_report_as_rsmcompare(live):
    assert (
        compare_rsmcompare_tables(
            live / "rsmtool" / "tables", live / "pdmetrics" / "rsmcompare" / "output", "old_vs_new"
        )
        > 700
    )
    saved = "old_vs_new_rsmcompare.json"
    assert (live / "pdmetrics" / "rsmcompare" / "output" / saved).read_text() == (
        live / "rsmtool" / "compare" / "output" / saved
    ).read_text()


def test_live_feature_sections_as_rsmcompare(live):
    output = live / "pdmetrics" / "features_compare" / "output"
    assert (
        compare_rsmcompare_tables(live / "rsmtool" / "features_tables", output, "features_old_vs_new") > 900
    )


def test_live_summary_as_rsmsummarize(live):
    compare_summary_files(
        live / "rsmtool" / "summary" / "output", live / "pdmetrics" / "rsmsummarize" / "output"
    )


def test_experiments_without_common_responses_give_no_paired_rows(tmp_path, capsys):
    folder = tmp_path / "other"
    shutil.copytree(DATA / "experiments" / "new", folder)
    for name in ("pred_processed", "test_metadata"):
        path = folder / "output" / f"new_model_{name}.csv"
        frame = pd.read_csv(path, dtype={"spkitemid": str})
        frame["spkitemid"] = "X" + frame["spkitemid"]
        frame.to_csv(path, index=False)
    config = _config(tmp_path, experiment_dir_new=str(folder))
    assert main(["rsmcompare", str(config), str(tmp_path / "o")]) == 0
    table = _read(tmp_path / "o" / "output" / "old_vs_new_paired_comparison.csv")
    assert len(table) == 0 and list(table.columns) == ["by", "group", *pdmetrics._comparison.COLUMNS]
    page = (tmp_path / "o" / "old_vs_new_report.html").read_text()
    assert "0 are in both" in page and "there is nothing to compare paired" in page


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--n-resamples", "0"], r"`--n-resamples 0` must be a positive integer \(e\.g\. 1000\)\."),
        (["--confidence", "2"], r"`--confidence 2\.0` must be between 0 and 1"),
    ],
)
def test_bad_paired_options_are_named_as_the_command_gives_them(tmp_path, capsys, option, message):
    import re

    assert main(["rsmcompare", str(_config(tmp_path)), str(tmp_path / "out"), *option]) == 1
    err = capsys.readouterr().err
    assert re.search(message, err) and err.count("\n") == 1, err
    assert not (tmp_path / "out").exists()
