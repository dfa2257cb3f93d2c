"""df.scoring.report: the whole rsmeval run, and its files against RSMTool's own."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import assert_close, assert_frame_unchanged

import pdmetrics
from pdmetrics import scoring
from pdmetrics.cli import main
from pdmetrics.datasets import simulate_scores


def test_report_mapping_repr_and_html():
    df = simulate_scores(1500, seed=4)
    report = df.scoring.report(human="sc1", system="raw", second_human="sc2", by="L1", trim_min=1, trim_max=6)
    assert set(report) >= {
        "eval",
        "eval_short",
        "consistency",
        "true_score_eval",
        "eval_by_L1",
        "consistency_by_L1",
        "fairness_metrics_by_L1",
        "estimates_csd_by_L1",
        "degradation",
        "disattenuated_correlations",
        "disattenuated_correlations_by_L1",
        "confMatrix",
        "confMatrix_h1h2",
        "score_dist",
    }
    assert "EvaluationReport: 1,500 of 1,500 responses" in repr(report)
    assert "<table" in report._repr_html_()
    with pytest.raises(KeyError, match="No table 'evl'"):
        report["evl"]
    assert list(report["eval"]["system"]) == ["raw", "raw_trim", "raw_trim_round"]


def test_report_without_second_human_has_no_human_tables():
    df = simulate_scores(500, seed=5)
    report = df.scoring.report(human="sc1", system="raw", trim_min=1, trim_max=6)
    assert "consistency" not in report and "true_score_eval" not in report
    report = df.scoring.report(human="sc1", system="raw", trim_min=1, trim_max=6, rater_error_variance=0.3)
    assert_close(report["true_score_eval"]["Variance of errors"], [0.3] * 3)


def test_cli_evaluate_writes_files(tmp_path, capsys):
    path = tmp_path / "responses.csv"
    simulate_scores(800, seed=6).to_csv(path, index=False)
    out = tmp_path / "out"
    code = main(
        [
            "evaluate",
            str(path),
            "--human",
            "sc1",
            "--system",
            "raw",
            "--second-human",
            "sc2",
            "--group",
            "L1",
            "--trim-min",
            "1",
            "--trim-max",
            "6",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    assert (out / "responses_eval.csv").exists() and (out / "responses_eval_by_L1.csv").exists()
    printed = capsys.readouterr().out
    assert "== eval" in printed and "== fairness_metrics_by_L1" in printed


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.csv"], "no such file"),
        (["{csv}", "--human", "nope"], "`human='nope'`: no such column"),
        (["{csv}", "--human", "L1"], "has no numeric values"),
        (["{csv}", "--human", "zero"], "No rows left to evaluate"),
        (["{csv}", "--group", "nope"], "`by='nope'`: no such column"),
        (["{csv}", "--second-human", "nope"], "`second_human='nope'`: no such column"),
        (["{empty}"], "the file is empty"),
        (["{ragged}"], "not a readable CSV file"),
        (["{dir}"], "a folder without parquet files"),
        (["{csv}", "--scale-with", "{dir}/missing.csv"], "no such file"),
        (["{csv}", "--scale-with", "{train}"], "--scale-with"),
        (["{csv}", "--scale-with", "{empty}"], "the file is empty"),
    ],
)
def test_cli_evaluate_bad_input(tmp_path, capsys, args, message):
    path = tmp_path / "responses.csv"
    simulate_scores(50, seed=6).assign(zero=0.0).to_csv(path, index=False)
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "ragged.csv").write_text("sc1,raw\n1,2\n3,4,5,6\n")
    pd.DataFrame({"foo": [1, 2]}).to_csv(tmp_path / "train.csv", index=False)
    files = {
        "csv": path,
        "empty": tmp_path / "empty.csv",
        "ragged": tmp_path / "ragged.csv",
        "dir": tmp_path,
        "train": tmp_path / "train.csv",
    }
    argv = ["evaluate", *[a.format(**files) for a in args]]
    if "--human" not in argv:
        argv += ["--human", "sc1"]
    argv += ["--system", "raw", "--trim-min", "1", "--trim-max", "6", "--out", str(tmp_path / "o")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and err.startswith("pdmetrics evaluate: error: ")  # one line


def test_report_with_asis_scaling_uses_the_scale_family():
    df = simulate_scores(20_000, seed=8)
    report = df.scoring.report(
        human="sc1", system="raw", second_human="sc2", by="L1", trim_min=1, trim_max=6, scale_with="asis"
    )
    assert report.primary == "scale"
    assert np.isfinite(report["eval"]["corr"]).all()


def test_report_missing_group_is_no_info_in_every_table():
    # RSMTool reads an empty subgroup value as the group "No info", in the subgroup tables
    # and in the fairness fits alike: both must use the same rows
    df = simulate_scores(400, seed=3)
    df["L1"] = df["L1"].where(np.arange(len(df)) % 5 != 0)
    before = df.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.PdmetricsWarning)
        report = df.scoring.report(
            human="sc1", system="raw", second_human="sc2", by="L1", trim_min=1, trim_max=6
        )
    assert_frame_unchanged(before, df)
    assert "No info" in set(report["eval_by_L1"]["group"])
    assert list(report["fairness_metrics_by_L1"]["N"]) == [400] * 3
    assert "No info" in set(report["estimates_osa_by_L1"]["group"])
    numeric = df.assign(g=np.where(np.arange(len(df)) % 5 == 0, np.nan, np.arange(len(df)) % 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.PdmetricsWarning)
        report = numeric.scoring.report(human="sc1", system="raw", by="g", trim_min=1, trim_max=6)
    assert list(report["fairness_metrics_by_g"]["N"]) == [400] * 3
    assert int(report["eval_by_g"].query("group == 'No info'")["N"].iloc[0]) == 80


@pytest.mark.parametrize(
    ("argument", "value"),
    [("system", ["raw", "sc2"]), ("human", ["sc1", "sc2"]), ("second_human", [["sc2"]])],
)
def test_report_takes_one_column_per_score_argument(argument, value):
    df = simulate_scores(100, seed=1)
    arguments = {"human": "sc1", "system": "raw", "trim_min": 1, "trim_max": 6, argument: value}
    with pytest.raises(pdmetrics.InvalidInputError, match=f"report\\(\\) takes one {argument} column"):
        df.scoring.report(**arguments)
    one = df.scoring.report(human="sc1", system=["raw"], trim_min=1, trim_max=6)  # a 1-list is fine
    assert list(one["eval"]["system"]) == ["raw", "raw_trim", "raw_trim_round"]


def test_cli_reads_group_columns_as_text_like_rsmeval(tmp_path):
    # rsmeval reads subgroup columns as text: a numeric group column with blanks gives the
    # labels "8", "9", "10" and "No info" (not 8.0, 9.0, 10.0)
    df = simulate_scores(300, seed=1)
    df["grade"] = pd.array(np.where(np.arange(300) % 7 == 0, None, 8 + np.arange(300) % 3), dtype="Int64")
    df.to_csv(tmp_path / "in.csv", index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.PdmetricsWarning)
        code = main(
            [
                "evaluate",
                str(tmp_path / "in.csv"),
                "--human",
                "sc1",
                "--system",
                "raw",
                "--group",
                "grade",
                "--trim-min",
                "1",
                "--trim-max",
                "6",
                "--out",
                str(tmp_path / "out"),
            ]
        )
    assert code == 0
    written = pd.read_csv(tmp_path / "out" / "in_eval_by_grade.csv", index_col=0, dtype={0: str})
    assert list(written.index) == ["10", "8", "9", "All data", "No info"]
    assert written.loc["No info", "N"] == 43
    estimates = pd.read_csv(tmp_path / "out" / "in_estimates_osa_by_grade.csv", index_col=0)
    assert "No info" in estimates.index and "Intercept (10)" in estimates.index


def test_cli_scale_with_accepts_rsmeval_training_file_layout(tmp_path):
    # rsmeval's scale_with file has the columns sc1 and prediction
    df = simulate_scores(400, seed=2).rename(columns={"sc1": "human", "raw": "score"})
    df.to_csv(tmp_path / "in.csv", index=False)
    train = simulate_scores(500, seed=3)
    rsmeval_layout = train.rename(columns={"raw": "prediction"})[["sc1", "prediction"]]
    rsmeval_layout.to_csv(tmp_path / "train.csv", index=False)
    argv = [
        "evaluate",
        str(tmp_path / "in.csv"),
        "--human",
        "human",
        "--system",
        "score",
        "--trim-min",
        "1",
        "--trim-max",
        "6",
        "--scale-with",
        str(tmp_path / "train.csv"),
        "--out",
        str(tmp_path / "out"),
    ]
    assert main(argv) == 0
    written = pd.read_csv(tmp_path / "out" / "in_eval.csv", index_col=0)
    expected = df.scoring.report(
        human="human",
        system="score",
        trim_min=1,
        trim_max=6,
        scale_with=train.rename(columns={"sc1": "human", "raw": "score"}),
    )
    assert list(written.index) == [
        "raw",
        "raw_trim",
        "raw_trim_round",
        "scale",
        "scale_trim",
        "scale_trim_round",
    ]
    assert_close(written["sys_mean"].to_numpy(), expected["eval"]["sys_mean"].to_numpy())


def _random_scores(seed: int, rows: int) -> pd.DataFrame:
    """Scores with missing values, zeros, a second human on some rows and small groups."""
    rng = np.random.default_rng(seed)
    sc1 = rng.integers(0, 7, rows).astype(float)
    sc1[rng.random(rows) < 0.05] = np.nan
    sc2 = np.clip(sc1 + rng.integers(-1, 2, rows), 0, 6)
    sc2[rng.random(rows) < 0.4] = np.nan
    raw = np.nan_to_num(sc1, nan=3.0) + rng.normal(0, 0.8, rows)
    raw[rng.random(rows) < 0.03] = np.nan
    L1 = rng.choice(np.array(["a", "b", "c"], dtype=object), rows, p=[0.5, 0.3, 0.2])
    L1[rng.random(rows) < 0.02] = None
    L1[:2], sc1[:2], raw[:2] = "tiny", [2.0, 3.0], [2.5, 2.5]  # a group of two responses: NaN cells
    grade = rng.integers(3, 13, rows)
    return pd.DataFrame({"sc1": sc1, "sc2": sc2, "raw": raw, "L1": L1, "grade": grade})


def _same_table(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    # the report's group labels come from a categorical (object), the core's keep the column's dtype
    got, expected = (
        table.reset_index(drop=True).astype({"group": object} if "group" in table else {})
        for table in (got, expected)
    )
    pd.testing.assert_frame_equal(got, expected, check_exact=False, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("seed, rows", [(0, 3000), (1, 400), (2, 20000)])
def test_report_tables_equal_the_core_functions(seed, rows):
    """report() shares one pass of statistics between its tables: each must still equal the
    core function that computes it alone."""
    frame = _random_scores(seed, rows)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = frame.scoring.report(
            human="sc1", system="raw", second_human="sc2", by=["L1", "grade"], trim_min=1, trim_max=6
        )
        processed = frame.scoring.postprocess(system="raw", trim_min=1, trim_max=6)
        kept = processed[processed["sc1"].notna() & (processed["sc1"] != 0) & processed["raw"].notna()]
        kept = kept.assign(sc2=kept["sc2"].replace(0, np.nan)).reset_index(drop=True)
        scores = ["raw", "raw_trim", "raw_trim_round"]
        expected = {
            "eval": scoring.evaluate(kept, human="sc1", system=scores),
            "consistency": scoring.consistency(kept, human="sc1", second_human="sc2"),
            "true_score_eval": scoring.true_score(kept, system=scores, raters=["sc1", "sc2"]),
            "confMatrix": scoring.confusion_matrix(kept, human="sc1", system="raw_trim_round"),
            "confMatrix_h1h2": scoring.confusion_matrix(kept, human="sc1", system="sc2"),
            "score_dist": scoring.score_distribution(kept, human="sc1", system="raw_trim_round"),
        }
        for group in ["L1", "grade"]:
            expected[f"eval_by_{group}"] = scoring.evaluate(kept, human="sc1", system=scores, by=group)
            expected[f"consistency_by_{group}"] = scoring.consistency(
                kept, human="sc1", second_human="sc2", by=group
            )
    assert {"tiny", "No info"} <= set(report["eval_by_L1"]["group"])
    for name, table in expected.items():
        _same_table(report[name], table)
