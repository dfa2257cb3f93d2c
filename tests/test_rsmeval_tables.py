"""report(): rsmeval's data tables and options (ids, flags, candidates, min_n_per_group),
every file of RSMTool's eight rsmeval experiments at 1e-9."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import assert_frame_unchanged, conformance_path
from rsmeval_files import RSMEVAL_EXPERIMENTS, compare_output_dir, read_table

import pdmetrics
from pdmetrics.datasets import simulate_scores
from pdmetrics.errors import ColumnNotFoundError, InvalidInputError
from pdmetrics.rsmeval import report
from pdmetrics.rsmeval.rsmtool_files import ALL_DATA, rsmtool_labels

EXPERIMENTS = RSMEVAL_EXPERIMENTS


def _config(name):
    folder = conformance_path("rsmtool", "tests", "data", "experiments", name)
    return folder, json.loads(next(folder.glob("*.json")).read_text())


def run_experiment(name, **options):
    """report() on an experiment's raw predictions, read as rsmeval reads them."""
    folder, config = _config(name)
    groups = config.get("subgroups") or []
    groups = [g.strip() for g in groups.split(",")] if isinstance(groups, str) else groups
    id_column = config.get("id_column", "spkitemid")  # rsmeval's default
    text = [id_column, *groups]
    raw = pd.read_csv(folder / config["predictions_file"], converters=dict.fromkeys(text, str))
    human, system = config["human_score_column"], config["system_score_column"]
    scale_with = config.get("scale_with")
    if scale_with not in (None, "asis"):
        scale_with = pd.read_csv(folder / scale_with).rename(columns={"prediction": system, "sc1": human})
    before = raw.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.PdmetricsWarning)
        result = report(
            raw,
            human=human,
            system=system,
            second_human=config.get("second_human_score_column"),
            by=groups or None,
            id=id_column,
            trim_min=config["trim_min"],
            trim_max=config["trim_max"],
            trim_tolerance=config.get("trim_tolerance", 0.4998),
            scale_with=scale_with,
            exclude_zero=config.get("exclude_zero_scores", True),
            **options,
        )
    assert_frame_unchanged(before, raw)
    return result, folder / "output", config["experiment_id"]


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_every_rsmeval_file_matches(name):
    result, expected_dir, prefix = run_experiment(name)
    compared = compare_output_dir(expected_dir, result, prefix)
    assert {"pred_processed", "test_metadata", "test_other_columns", "data_composition"} <= set(compared)
    assert "test_excluded_composition" in compared and "eval" in compared


def test_excluded_responses_rename_a_user_column_called_sc1():
    result, _, _ = run_experiment("lr-eval-with-missing-scores", layout="rsmtool")
    excluded = result["test_excluded_responses"]
    assert list(excluded.columns) == [
        "spkitemid",
        "##sc1##",
        "L1",
        "QUESTION",
        "raw",
        "sc1",
    ]  # rsmeval 12 sorts them
    assert len(excluded) == 26 and excluded["sc1"].isna().all()
    assert result.info["n_used"] == 174 and result.info["n_input"] == 200


def _frame():
    rng = np.random.default_rng(3)
    n = 60
    return pd.DataFrame(
        {
            "rid": [f"r{i}" for i in range(n)],
            "cand": [f"c{i // 3}" for i in range(n)],
            "g": np.where(np.arange(n) % 2, "a", "b"),
            "flag": np.array([1, "1", "1.0", 0, "x", 2.0], dtype=object)[np.arange(n) % 6],
            "h": rng.integers(1, 5, n).astype(float),
            "s": rng.normal(3, 1, n),
        }
    )


def test_flag_keeps_allowed_values_as_rsmeval_matches_them():
    df = _frame()
    result = report(df, human="h", system="s", id="rid", flag={"flag": [1, "x"]}, trim_min=1, trim_max=6)
    # 1, "1", "1.0" and "x" match; 0 and 2.0 do not
    assert result.info["n_used"] == 40 and result.info["excluded_by_flags"] == 20
    flagged = result["test_responses_with_excluded_flags"]
    assert sorted(flagged["flag"].astype(str).unique()) == ["0", "2.0"]
    with pytest.raises(InvalidInputError, match="No responses left after `flag="):
        report(df, human="h", system="s", flag={"flag": ["nope"]}, trim_min=1, trim_max=6)
    with pytest.raises(ColumnNotFoundError):
        report(df, human="h", system="s", flag={"flags": [1]}, trim_min=1, trim_max=6)


def test_candidates_with_few_items_are_left_out_and_counted():
    df = _frame()
    df.loc[[0, 1, 3], "h"] = np.nan  # c0 keeps 1 response, c1 keeps 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.ExcludedRowsWarning)
        result = report(
            df,
            human="h",
            system="s",
            id="rid",
            candidate="cand",
            min_items_per_candidate=3,
            trim_min=1,
            trim_max=6,
            layout="rsmtool",
        )
    assert result.info["excluded_candidates"] == 3 and result.info["n_used"] == 54
    assert result["data_composition"].to_dict("records") == [
        {"partition": "Evaluation", "responses": 54, "candidates": 18}
    ]
    composition = result["test_excluded_composition"]
    # listwise exclusion: the numeric/numeric cell counts the candidates' responses
    assert composition["numeric system score"].tolist() == [3, 0, 3]
    assert list(result["test_metadata"].columns) == ["spkitemid", "candidate"]
    assert result["test_excluded_responses"]["spkitemid"].tolist() == ["r0", "r1", "r3", "r2", "r4", "r5"]
    with warnings.catch_warnings(), pytest.raises(InvalidInputError, match="No candidate has 30 or more"):
        warnings.simplefilter("ignore", pdmetrics.ExcludedRowsWarning)
        report(
            df, human="h", system="s", candidate="cand", min_items_per_candidate=30, trim_min=1, trim_max=6
        )
    with pytest.raises(InvalidInputError, match="needs `candidate=`"):
        report(df, human="h", system="s", min_items_per_candidate=3, trim_min=1, trim_max=6)


def test_repeated_ids_are_refused():
    df = _frame()
    df.loc[5, "rid"] = "r1"
    with pytest.raises(InvalidInputError, match=r"`id='rid'` holds repeated response ids .*'r1'"):
        report(df, human="h", system="s", id="rid", trim_min=1, trim_max=6)
    with pytest.raises(InvalidInputError, match="the index holds repeated"):
        report(df.set_index("rid"), human="h", system="s", trim_min=1, trim_max=6)


def test_empty_after_filters_is_a_clear_error():
    df = _frame().assign(h=0.0)
    with pytest.raises(InvalidInputError, match="No rows left to evaluate"):
        report(df, human="h", system="s", trim_min=1, trim_max=6)


def test_min_n_per_group_as_rsmeval_checks_it():
    df = _frame()
    result = report(df, human="h", system="s", by="g", min_n_per_group=5, trim_min=1, trim_max=6)
    assert result.min_n_per_group == {"g": 5}
    assert len(result["eval_by_g"]) == 9  # the tables keep every group, as rsmeval's files
    with pytest.raises(InvalidInputError, match="needs subgroup columns"):
        report(df, human="h", system="s", min_n_per_group=5, trim_min=1, trim_max=6)
    with pytest.raises(InvalidInputError, match="one minimum per subgroup column"):
        report(df, human="h", system="s", by="g", min_n_per_group={"L1": 5}, trim_min=1, trim_max=6)


def test_scale_with_raw_is_rsmeval_12s_identity_scaling():
    df = _frame()
    result = report(df, human="h", system="s", scale_with="raw", trim_min=1, trim_max=6, layout="rsmtool")
    assert result.primary == "scale"
    processed = result["pred_processed"]
    types = "raw raw_trim raw_trim_round scale scale_trim scale_trim_round"
    assert " ".join(processed.columns) == f"spkitemid sc1 {types}"
    assert processed["scale"].equals(processed["raw"])


def test_postprocessing_params_with_a_training_frame():
    result, _, _ = run_experiment("lr-eval-with-scaling-and-h2-keep-zeros")
    params = result["postprocessing_params"]
    assert " ".join(params.columns) == (
        "trim_min trim_max trim_tolerance h1_mean h1_sd train_predictions_mean train_predictions_sd"
    )
    folder, config = _config("lr-eval-with-scaling-and-h2-keep-zeros")
    train = read_table(folder / config["scale_with"])
    assert params["h1_mean"].iloc[0] == pytest.approx(train["sc1"].mean(), rel=1e-12)
    assert params["train_predictions_sd"].iloc[0] == pytest.approx(train["prediction"].std(), rel=1e-12)


def test_blank_subgroup_values_are_no_info_in_every_table_as_rsmeval_reads_them():
    frame = simulate_scores(400, seed=5)
    frame.loc[:19, "L1"] = " "
    frame.loc[20:29, "L1"] = ""
    frame.loc[30:39, "L1"] = None
    tables = frame.scoring.report(human="sc1", system="raw", by="L1", trim_min=1, trim_max=6)
    groups = tables["eval_by_L1"]["group"]
    assert " " not in set(groups) and "" not in set(groups)
    assert int(tables["eval_by_L1"].loc[groups == "No info", "N"].iloc[0]) == 40
    assert (tables["test_metadata"]["L1"] == "No info").sum() == 40


@pytest.mark.parametrize(
    "labels",
    [
        np.array(["(all)", "a", "b"], dtype=object),
        np.array(["a", "b"], dtype=object),
        np.array(["(all)", 1, 2], dtype=object),
        np.array([], dtype=object),
        pd.Index(["(all)", "x", None], dtype="str", name="g"),
        pd.Index(["(all)", "x", np.nan], dtype=object),
        pd.Index(["(all)", "No info", "3"], dtype="string"),
        np.array([1, 2, 3]),
        np.array([1.5, np.nan]),
        pd.Index([True, False]),
        pd.CategoricalIndex(["a", "b"]),
        pd.Index(pd.to_datetime(["2020-01-01"])),
    ],
    ids=repr,
)
def test_rsmtool_labels_is_index_where(labels):
    index = pd.Index(labels)
    expected = index.where(index != "(all)", ALL_DATA)
    got = rsmtool_labels(labels)
    pd.testing.assert_index_equal(got, expected, exact=True)
    assert list(map(repr, got)) == list(map(repr, expected))
