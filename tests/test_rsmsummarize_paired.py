"""``pdmetrics rsmsummarize``'s paired comparison (pdmetrics', rsmsummarize has none): the
experiments' pred_processed tables joined on the response id and compared with
``pdmetrics.scoring.compare`` (tests/data/rsmcompare12, see its README)."""

from __future__ import annotations

import errno
import math
import re
import shutil

import pandas as pd
import pytest
from test_rsmcompare_cli import DATA, RTOL, _config, _read, same_response_experiments

from pdmetrics._comparison import COLUMNS
from pdmetrics._files import INCOMPLETE_SUFFIX, PART_SUFFIX
from pdmetrics.cli import main
from pdmetrics.rsmeval import rsmsummarize as rsmsummarize_module
from pdmetrics.rsmeval.paired import PAIRED_METRICS


def _run(tmp_path, *options, **changes):
    out = tmp_path / "out"
    assert main(["rsmsummarize", str(_config(tmp_path, "summary", **changes)), str(out), *options]) == 0
    table = _read(out / "output" / "three_models_paired_comparison.csv")
    return table, (out / "report" / "three_models_report.html").read_text()


def _pred(name: str, experiment: str) -> pd.DataFrame:
    return pd.read_csv(
        DATA / "experiments" / name / "output" / f"{experiment}_pred_processed.csv", dtype={"spkitemid": str}
    )


def test_the_paired_section_compares_each_experiment_with_the_first_on_the_common_responses(tmp_path):
    table, page = _run(tmp_path)
    assert list(table.columns) == COLUMNS and len(table) == 2 * len(PAIRED_METRICS)
    assert set(zip(table["baseline"], table["system"])) == {
        ("production", "retrained"),
        ("production", "linear"),
    }
    assert list(table["metric"][:8]) == list(PAIRED_METRICS) and (table["N"] == 195).all()
    assert "Responses evaluated: production 493, retrained 496, linear 200; 195 are in all of them." in page
    assert "The responses differ" in page and page.count('class="difference"') == 16
    assert "p_adjusted" in page and "adjusted by holm" in page  # holm by default: many comparisons
    # the values are scoring.evaluate's on the common responses, each experiment on its eval_short's scores
    data = None
    for name, folder, experiment, prefix in (("production", "old", "old_model", "raw"),
                                             ("retrained", "new", "new_model", "scale"),
                                             ("linear", "model", "lr_model", "scale")):  # fmt: skip
        frame = _pred(folder, experiment)[["spkitemid", "sc1", f"{prefix}_trim", f"{prefix}_trim_round"]]
        frame.columns = ["spkitemid", f"sc1 {name}", name, f"{name}_r"]
        data = frame if data is None else data.merge(frame, on="spkitemid")
    assert len(data) == 195 and (data["sc1 production"] == data["sc1 linear"]).all()
    data = data.drop(columns=["spkitemid", "sc1 retrained", "sc1 linear"]).rename(
        columns={"sc1 production": "sc1"}
    )
    evaluation = data.scoring.evaluate(
        human="sc1", system=[c for c in data.columns if c != "sc1"], exclude_zero=False
    ).set_index("system")
    for row in table.itertuples():
        suffix = "" if PAIRED_METRICS[row.metric] == "trim" else "_r"
        assert math.isclose(
            row.baseline_value, evaluation.loc[f"{row.baseline}{suffix}", row.metric], rel_tol=1e-12
        )
        assert math.isclose(
            row.system_value, evaluation.loc[f"{row.system}{suffix}", row.metric], rel_tol=1e-12
        )
    assert (table["ci_low"] <= table["difference"]).all() and (table["difference"] <= table["ci_high"]).all()


def test_pairs_all_and_no_correction(tmp_path):
    table, page = _run(tmp_path, "--pairs", "all", "--correction", "none", "--n-resamples", "200")
    assert list(dict.fromkeys(zip(table["baseline"], table["system"]))) == [
        ("production", "retrained"),
        ("production", "linear"),
        ("retrained", "linear"),
    ]
    assert (table["p_adjusted"] == table["p_value"]).all() and "every pair of experiments" in page


def test_with_the_same_responses_the_paired_values_are_each_experiments_own_eval_short(tmp_path):
    n = same_response_experiments(tmp_path)
    dirs = [str(tmp_path / "old"), str(tmp_path / "new")]
    table, page = _run(tmp_path, experiment_dirs=dirs, experiment_names=["old", "new"])
    for version, prefix, column in (("old", "raw", "baseline_value"), ("new", "scale", "system_value")):
        short = pd.read_csv(
            tmp_path / version / "output" / f"{version}_model_eval_short.csv", index_col=0
        ).iloc[0]
        for row in table.itertuples():
            expected = short[f"{row.metric}.{prefix}_{PAIRED_METRICS[row.metric]}"]
            assert math.isclose(getattr(row, column), expected, rel_tol=RTOL)
    assert (table["N"] == n).all() and "The responses differ" not in page


def test_an_experiment_listed_twice_or_copied_differs_by_zero_with_p_one(tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(DATA / "experiments" / "old", copy)
    dirs = [str(DATA / "experiments" / "old"), str(DATA / "experiments" / "old"), str(copy)]
    table, page = _run(tmp_path, "--pairs", "all", experiment_dirs=dirs, experiment_names=...)
    assert list(dict.fromkeys(zip(table["baseline"], table["system"]))) == [
        ("old_model", "old_model (2)"),
        ("old_model", "old_model (3)"),
        ("old_model (2)", "old_model (3)"),
    ]
    assert (
        (table["difference"] == 0).all()
        and (table["p_value"] == 1).all()
        and (table["p_adjusted"] == 1).all()
    )
    short = pd.read_csv(
        DATA / "experiments" / "old" / "output" / "old_model_eval_short.csv", index_col=0
    ).iloc[0]
    for row in table.itertuples():
        assert math.isclose(
            row.system_value, short[f"{row.metric}.raw_{PAIRED_METRICS[row.metric]}"], rel_tol=RTOL
        )
    assert "493 are in all of them" in page and "The responses differ" not in page


def test_experiments_without_common_responses_give_an_empty_table_and_a_note(tmp_path):
    folder = tmp_path / "other"
    shutil.copytree(DATA / "experiments" / "new", folder)
    path = folder / "output" / "new_model_pred_processed.csv"
    frame = pd.read_csv(path, dtype={"spkitemid": str})
    frame["spkitemid"] = "X" + frame["spkitemid"]
    frame.to_csv(path, index=False)
    dirs = [str(DATA / "experiments" / "old"), str(folder), str(DATA / "experiments" / "model")]
    table, page = _run(tmp_path, experiment_dirs=dirs)
    assert len(table) == 0 and list(table.columns) == COLUMNS
    assert "production and retrained share no response" in page and "retrained and linear share no" in page
    assert "0 are in all of them" in page and "nothing to compare paired" in page


def test_an_experiment_without_pred_processed_is_left_out_with_a_note(tmp_path, capsys):
    folder = tmp_path / "bare"
    shutil.copytree(DATA / "experiments" / "new", folder)
    (folder / "output" / "new_model_pred_processed.csv").unlink()
    dirs = [str(DATA / "experiments" / "old"), str(folder), str(DATA / "experiments" / "model")]
    table, page = _run(tmp_path, experiment_dirs=dirs)
    assert "'retrained' have no pred_processed table" in capsys.readouterr().err
    assert set(table["system"]) == {"linear"} and "Left out (no pred_processed table): retrained." in page
    dirs = [str(DATA / "experiments" / "old"), str(folder)]
    table, page = _run(tmp_path, "-f", experiment_dirs=dirs, experiment_names=["production", "retrained"])
    assert len(table) == 0 and "fewer than two experiments" in page


def test_the_paired_file_is_whole_or_absent(tmp_path, monkeypatch, capsys):
    original = rsmsummarize_module.write_table

    def interrupted(table, path, *args, **kwargs):
        if path.name.endswith("_paired_comparison.csv"):
            raise KeyboardInterrupt
        return original(table, path, *args, **kwargs)

    monkeypatch.setattr(rsmsummarize_module, "write_table", interrupted)
    out = tmp_path / "out"
    assert main(["rsmsummarize", str(_config(tmp_path, "summary")), str(out)]) == 130
    assert (out / f"three_models{INCOMPLETE_SUFFIX}").is_file()
    assert not list(out.rglob(f"*{PART_SUFFIX}*")) and not list(out.rglob("*_paired_comparison*"))
    monkeypatch.undo()
    capsys.readouterr()
    table, _ = _run(tmp_path, "-f")
    text = (out / "output" / "three_models_paired_comparison.csv").read_text()
    assert text.endswith("\n") and text.count("\n") == len(table) + 1 == 17


def test_a_full_disk_says_what_to_do_whichever_file_it_stops(tmp_path, capsys, monkeypatch):
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(rsmsummarize_module, "write_table", full)
    assert main(["rsmsummarize", str(_config(tmp_path, "summary")), str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "No space left on device; free some space or choose an output folder" in err
    assert err.count("\n") == 1, err


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--n-resamples", "0"], r"`--n-resamples 0` must be a positive integer"),
        (["--confidence", "2"], r"`--confidence 2\.0` must be between 0 and 1"),
    ],
)
def test_bad_paired_options_are_named_as_the_command_gives_them(tmp_path, capsys, option, message):
    assert main(["rsmsummarize", str(_config(tmp_path, "summary")), str(tmp_path / "out"), *option]) == 1
    err = capsys.readouterr().err
    assert re.search(message, err) and err.count("\n") == 1, err
    assert not (tmp_path / "out").exists()


def test_help_names_the_paired_options(capsys):
    with pytest.raises(SystemExit):
        main(["rsmsummarize", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for option in (
        "--pairs {baseline,all}",
        "--n-resamples",
        "--confidence",
        "--random-state",
        "--correction",
    ):
        assert option in text
    assert "default: holm" in text
