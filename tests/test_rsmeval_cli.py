"""``pdmetrics rsmeval CONFIG [OUTPUT_DIR]``: RSMTool's own rsmeval experiments run from their
configuration files give every file; what rsmeval refuses is refused in one line."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import CONFORMANCE
from rsmeval_files import compare_file, compare_output_dir, read_table

import pdmetrics
from pdmetrics.cli import main
from pdmetrics.io import read_table as read_any
from pdmetrics.rsmeval.config import DEFAULTS, IGNORED_KEYS, REPORT_KEYWORDS, REQUIRED_KEYS

EXPERIMENTS_DIR = CONFORMANCE / "rsmtool" / "tests" / "data" / "experiments"
EXPERIMENTS = sorted(p.name for p in EXPERIMENTS_DIR.glob("lr-eval*")) if EXPERIMENTS_DIR.is_dir() else []


def _config_path(name: str) -> Path:
    return next((EXPERIMENTS_DIR / name).glob("*.json"))


def _experiment_id(name: str) -> str:
    return json.loads(_config_path(name).read_text())["experiment_id"]


def _cases():
    for name in EXPERIMENTS:
        prefix = f"{_experiment_id(name)}_"
        for path in sorted((EXPERIMENTS_DIR / name / "output").glob(f"{prefix}*.csv")):
            table = path.stem[len(prefix) :]
            yield pytest.param(name, table, id=f"{name}:{table}")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Each experiment run once in-process (``main([...])``) into its own folder."""
    done = {}

    def run(name):
        if name not in done:
            out = tmp_path_factory.mktemp(name)
            assert main(["rsmeval", str(_config_path(name)), str(out)]) == 0
            done[name] = out
        return done[name]

    return run


@pytest.mark.parametrize(("name", "table"), list(_cases()))
def test_every_file_of_every_experiment(runs, name, table):
    experiment = _experiment_id(name)
    out = runs(name)
    compare_file(
        EXPERIMENTS_DIR / name / "output" / f"{experiment}_{table}.csv",
        out / "output" / f"{experiment}_{table}.csv",
    )


def test_output_tree_as_rsmeval(runs):
    if not EXPERIMENTS:
        pytest.skip("conformance data not available")
    out = runs("lr-eval-with-h2")
    # rsmeval's three folders, and the record of what the run wrote (written last)
    assert sorted(p.name for p in out.iterdir()) == [
        ".pdmetrics-rsmeval-lr_eval_with_h2.json",
        "figure",
        "output",
        "report",
    ]
    saved = json.loads((out / "output" / "lr_eval_with_h2_rsmeval.json").read_text())
    assert saved["subgroups"] == ["QUESTION", "L1"] and saved["trim_tolerance"] == 0.4998
    assert saved["file_format"] == "csv" and "configdir" not in saved
    if hasattr(pdmetrics.rsmeval.EvaluationReport, "to_html"):
        assert (out / "report" / "lr_eval_with_h2_report.html").is_file()


def test_real_subprocess_in_the_config_folder(tmp_path):
    if not EXPERIMENTS:
        pytest.skip("conformance data not available")
    name = "lr-eval-with-scaling-and-h2-keep-zeros"  # scale_with is a relative path
    result = subprocess.run(
        [sys.executable, "-m", "pdmetrics.cli", "rsmeval", _config_path(name).name, str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=EXPERIMENTS_DIR / name,
    )
    assert result.returncode == 0, result.stderr
    assert "files written under" in result.stdout
    compared = compare_output_dir(
        EXPERIMENTS_DIR / name / "output", tmp_path / "output", _experiment_id(name)
    )
    assert {
        "eval",
        "eval_short",
        "consistency",
        "true_score_eval",
        "confMatrix_h1h2",
        "pred_processed",
    } <= set(compared)


def test_default_output_dir_is_the_current_directory(tmp_path, monkeypatch):
    if not EXPERIMENTS:
        pytest.skip("conformance data not available")
    monkeypatch.chdir(tmp_path)
    assert main(["rsmeval", str(_config_path("lr-eval"))]) == 0
    assert (tmp_path / "output" / "lr_evaluation_eval.csv").is_file()
    assert (tmp_path / "figure").is_dir() and (tmp_path / "report").is_dir()


def _copy_experiment(tmp_path, name="lr-eval-with-h2", **changes) -> tuple[Path, dict]:
    """The experiment's config in ``tmp_path`` with its predictions file beside it."""
    config = json.loads(_config_path(name).read_text())
    source = (EXPERIMENTS_DIR / name / config["predictions_file"]).resolve()
    shutil.copy(source, tmp_path / source.name)
    config["predictions_file"] = source.name
    config.update(changes)
    for key in [k for k, v in changes.items() if v is None]:
        del config[key]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    return path, config


@pytest.mark.parametrize("file_format", ["tsv", "xlsx"])
def test_file_format_round_trip(tmp_path, runs, file_format):
    if not EXPERIMENTS:
        pytest.skip("conformance data not available")
    if file_format == "xlsx":
        pytest.importorskip("openpyxl")
    config, _ = _copy_experiment(tmp_path, file_format=file_format)
    assert main(["rsmeval", str(config), str(tmp_path / "run")]) == 0
    csv_dir = runs("lr-eval-with-h2") / "output"
    written = sorted((tmp_path / "run" / "output").glob(f"*.{file_format}"))
    assert len(written) == len(list(csv_dir.glob("*.csv")))
    for path in written:
        back = read_any(path)
        back.to_csv(tmp_path / "back.csv", index=False)
        compare_file(csv_dir / f"{path.stem}.csv", tmp_path / "back.csv", check_order=True)


def _nested(frame: pd.DataFrame) -> list[dict]:
    """Records with the score columns nested one level down, as RSMTool's nested jsonlines."""
    scores = ["h1", "h2", "score"]
    rest = [c for c in frame.columns if c not in scores]
    return [
        {**{c: row[c] for c in rest}, "scores": {c: row[c] for c in scores}}
        for row in frame.astype(object).where(frame.notna(), None).to_dict("records")
    ]


@pytest.mark.parametrize("kind", ["tsv", "xlsx", "jsonlines", "nested", "parquet"])
def test_every_input_format_gives_the_csv_tables(tmp_path, runs, kind):
    if not EXPERIMENTS:
        pytest.skip("conformance data not available")
    pytest.importorskip({"xlsx": "openpyxl", "parquet": "pyarrow"}.get(kind, "json"))
    _, config = _copy_experiment(tmp_path)
    frame = pd.read_csv(tmp_path / config["predictions_file"], dtype={"id": str, "QUESTION": str, "L1": str})
    target = tmp_path / f"predictions.{'jsonlines' if kind == 'nested' else kind}"
    if kind == "tsv":
        frame.to_csv(target, sep="\t", index=False)
    elif kind == "xlsx":
        frame.to_excel(target, index=False)
    elif kind == "parquet":
        frame.to_parquet(target)
    elif kind == "jsonlines":
        frame.to_json(target, orient="records", lines=True)
    else:
        target.write_text("".join(json.dumps(record) + "\n" for record in _nested(frame)))
    path, _ = _copy_experiment(tmp_path, predictions_file=target.name)
    assert main(["rsmeval", str(path), str(tmp_path / "run")]) == 0
    compared = compare_output_dir(
        runs("lr-eval-with-h2") / "output", tmp_path / "run" / "output", "lr_eval_with_h2"
    )
    assert "eval_by_L1" in compared and "fairness_metrics_by_QUESTION" in compared


def test_read_table_flattens_nested_jsonlines_and_reads_text_columns(tmp_path):
    path = tmp_path / "p.jsonlines"
    path.write_text(
        '{"id": 1, "g": 10, "s": {"h1": 3, "raw": 2.5}}\n{"id": 2, "g": 11, "s": {"h1": 4, "raw": 4}}\n'
    )
    frame = read_any(path, text_columns=["g"])
    assert list(frame.columns) == ["id", "g", "h1", "raw"]
    assert list(frame["g"]) == ["10", "11"] and list(frame["raw"]) == [2.5, 4.0]


@pytest.mark.parametrize("sep, suffix", [(",", "csv"), ("\t", "tsv")])
def test_read_table_text_columns_are_read_csv_with_dtype_str(tmp_path, sep, suffix):
    """The text columns as ``read_csv(dtype=str)`` reads them, whether pandas would read them as
    text or not: numbers with leading zeros, booleans, a column of missing values, a repeated
    column name; and a file with numbers in the first rows of a column and text after (pandas
    infers its chunks apart)."""
    rows = 300_000  # more than pandas' first chunk
    numbers = np.arange(rows)
    columns = {
        "id": [f"r{n}" for n in numbers],
        "zeros": [f"{n % 50:03d}" for n in numbers],
        "flag": np.where(numbers % 3 == 0, "True", "False"),
        "empty": [""] * rows,
        "score": numbers % 5 + 0.5,
        "dup": ["a"] * rows,
    }
    for late in (False, True):
        if late:
            columns["late"] = np.where(numbers < rows - 5, (numbers % 7).astype(str), "x")
        names = [*columns, "dup"]
        values = [*(map(str, v) for v in columns.values()), columns["dup"]]
        path = tmp_path / f"p{late}.{suffix}"
        path.write_text("\n".join([sep.join(names), *(sep.join(row) for row in zip(*values))]) + "\n")
        for text in (["id", "zeros", "flag", "empty", "late", "nothing"], ["id"], ["dup.1"], []):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", pd.errors.DtypeWarning)  # "late": numbers, then text
                expected = pd.read_csv(path, sep=sep, dtype={name: str for name in text} or None)
                pd.testing.assert_frame_equal(read_any(path, text_columns=text), expected)


def test_read_table_refusals(tmp_path, monkeypatch):
    with pytest.raises(
        pdmetrics.InvalidInputError, match=r"unknown file type '\.txt'; pass a file ending in"
    ):
        read_any(tmp_path / "p.txt")
    with pytest.raises(pdmetrics.InvalidInputError, match="no such file; pass a CSV file"):
        read_any(tmp_path / "p.csv")
    (tmp_path / "p.jsonlines").write_text("[1, 2\n")
    with pytest.raises(pdmetrics.InvalidInputError, match="not a readable jsonlines file"):
        read_any(tmp_path / "p.jsonlines")
    (tmp_path / "p.xlsx").write_bytes(b"")
    monkeypatch.setitem(sys.modules, "openpyxl", None)
    with pytest.raises(pdmetrics.MissingDependencyError, match=r'pip install "pdmetrics\[excel\]"'):
        read_any(tmp_path / "p.xlsx")


def test_comments_and_ignored_keys_are_accepted(tmp_path):
    if not EXPERIMENTS:
        pytest.skip("conformance data not available")
    path, config = _copy_experiment(
        tmp_path, name="lr-eval", standardize_features=True, use_thumbnails="TRUE"
    )
    text = json.dumps(config, indent=1).replace('"trim_min"', '// rsmeval allows comments\n "trim_min"')
    path.write_text("/* a block comment */\n" + text)
    assert main(["rsmeval", str(path), str(tmp_path / "run")]) == 0
    saved = json.loads((tmp_path / "run" / "output" / "lr_evaluation_rsmeval.json").read_text())
    assert "standardize_features" not in saved and saved["use_thumbnails"] is True


def test_every_rsmeval_key_is_mapped_or_documented():
    keys = set(REQUIRED_KEYS) | set(DEFAULTS)
    handled_elsewhere = {
        "experiment_id",
        "predictions_file",
        "description",
        "file_format",
        "use_thumbnails",
        "general_sections",
        "custom_sections",
        "section_order",
        "use_wandb",
        "wandb_project",
        "wandb_entity",
    }
    assert keys == set(REPORT_KEYWORDS) | handled_elsewhere
    assert not keys & set(IGNORED_KEYS)
    guide = (Path(__file__).resolve().parents[1] / "docs" / "guide" / "rsmeval.rst").read_text()
    for key in keys:
        assert f"``{key}``" in guide, key


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"colour": "red"}, "Unrecognized field 'colour' in json file"),
        ({"trim_max": None}, "The config file must specify 'trim_max'"),
        ({"experiment_id": "with space"}, "experiment_id cannot contain any spaces"),
        ({"exclude_zero_scores": "maybe"}, "Field exclude_zero_scores can only be set to True or False"),
        ({"trim_min": "one"}, "trim_min must be a number (got 'one')"),
        ({"file_format": "xls"}, "file_format 'xls' is not one of csv, tsv, xlsx, jsonlines"),
        (
            {"human_score_column": "score"},
            "'human_score_column' and 'system_score_column' cannot have the same",
        ),
        ({"second_human_score_column": "h1"}, "'human_score_column' and 'second_human_score_column' cannot"),
        (
            {"min_items_per_candidate": 2},
            "you need to specify the name of the column which contains candidate",
        ),
        ({"min_n_per_group": {"L1": 5}}, "The keys in `min_n_per_group` must match the subgroups"),
        ({"flag_column": "ADVISORY"}, "`flag_column` must be a dictionary"),
        (
            {"general_sections": ["evaluation", "model"]},
            "section names are invalid or not supported for rsmeval: model",
        ),
        ({"section_order": ["evaluation"]}, "'section_order' must list all sections selected"),
        ({"use_wandb": True}, "You must specify both `wandb_project` and `wandb_entity`"),
        ({"skll_objective": "f1"}, "skll_objective is an rsmtool option"),
        ({"predictions_file": "nowhere.csv"}, "predictions_file: Predictions file nowhere.csv not found"),
        ({"scale_with": "nowhere.csv"}, "scale_with: Scaling file nowhere.csv not found"),
        (
            {"scale_with": "train.csv"},
            "scale_with: the file train.csv must have the 'prediction' and the 'sc1'",
        ),
        (
            {"human_score_column": "nope"},
            "human_score_column: 'nope' is not a column of the predictions file",
        ),
        ({"subgroups": "L1, nope"}, "subgroups: 'nope' is not a column of the predictions file"),
        ({"id_column": "L1"}, "`id_column='L1'` holds repeated response ids"),
    ],
)
def test_refusals_are_one_line(tmp_path, capsys, changes, message):
    if not EXPERIMENTS:
        pytest.skip("conformance data not available")
    pd.DataFrame({"foo": [1.0, 2.0]}).to_csv(tmp_path / "train.csv", index=False)
    path, _ = _copy_experiment(tmp_path, **changes)
    assert main(["rsmeval", str(path), str(tmp_path / "run")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("pdmetrics rsmeval: error: ") and err.count("\n") == 1, err
    assert message in err
    assert not (tmp_path / "run").exists()  # nothing written


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("missing", "The configuration file {tmp}/absent.json was not found."),
        ("folder", "should be a file, not a directory"),
        ("yaml", "The configuration file must be in `.json` format. You specified: .yaml."),
        ("broken", "exists but is formatted incorrectly"),
        ("full", "already contains a non-empty 'output' directory; pass -f to overwrite it"),
    ],
)
def test_refusals_before_the_config_is_read(tmp_path, capsys, setup, message):
    target = {
        "missing": tmp_path / "absent.json",
        "folder": tmp_path,
        "yaml": tmp_path / "c.yaml",
        "broken": tmp_path / "c.json",
        "full": tmp_path / "c.json",
    }[setup]
    if setup in ("yaml", "broken", "full"):
        target.write_text('{"experiment_id": "x",}')
    if setup == "full":
        (tmp_path / "output").mkdir()
        (tmp_path / "output" / "old.csv").write_text("a\n")
    assert main(["rsmeval", str(target), str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert message.format(tmp=tmp_path) in err and err.count("\n") == 1


def test_force_overwrites(tmp_path):
    if not EXPERIMENTS:
        pytest.skip("conformance data not available")
    config = str(_config_path("lr-eval"))
    assert main(["rsmeval", config, str(tmp_path)]) == 0
    assert main(["rsmeval", config, str(tmp_path)]) == 1
    assert main(["rsmeval", config, str(tmp_path), "-f"]) == 0


# ----------------------------------------------------------------------------------------
# pdmetrics evaluate: every input format, --file-format, the new report() options
# ----------------------------------------------------------------------------------------
def _evaluate(tmp_path, source, *extra):
    options = "--human sc1 --system raw --trim-min 1 --trim-max 6".split()
    return main(["evaluate", str(source), *options, "--out", str(tmp_path / "out"), *extra])


def test_evaluate_reads_jsonlines_and_writes_tsv(tmp_path):
    frame = pdmetrics.datasets.simulate_scores(300, seed=4)
    frame.to_json(tmp_path / "r.jsonlines", orient="records", lines=True)
    assert _evaluate(tmp_path, tmp_path / "r.jsonlines", "--file-format", "tsv") == 0
    written = pd.read_csv(tmp_path / "out" / "r_eval.tsv", sep="\t", index_col=0)
    expected = frame.scoring.report(human="sc1", system="raw", trim_min=1, trim_max=6).rsmtool_frames()[
        "eval"
    ]
    pd.testing.assert_frame_equal(written, expected, check_exact=False, rtol=1e-12)


def test_evaluate_bad_flag_is_one_line(tmp_path, capsys):
    pdmetrics.datasets.simulate_scores(50, seed=4).to_csv(tmp_path / "r.csv", index=False)
    assert _evaluate(tmp_path, tmp_path / "r.csv", "--flag", "ADVISORY") == 2
    err = capsys.readouterr().err
    assert err.startswith("pdmetrics evaluate: error: --flag 'ADVISORY': write COLUMN=VALUE[,VALUE...]")
    assert err.count("\n") == 1


def test_evaluate_refuses_repeated_ids_or_takes_the_id_column(tmp_path, capsys):
    frame = pdmetrics.datasets.simulate_scores(50, seed=4).assign(rid=[f"r{i}" for i in range(50)])
    frame.to_csv(tmp_path / "r.csv", index=False)
    code = _evaluate(tmp_path, tmp_path / "r.csv", "--id", "rid")
    err = capsys.readouterr().err
    assert (
        code == 0 or err == "pdmetrics evaluate: error: --id is not supported by this version of report().\n"
    )


def test_read_table_helper_is_the_one_read(tmp_path):
    # the comparison helper reads rsmeval's CSVs with blank index headers kept
    pd.DataFrame({"N": [1]}, index=["raw"]).to_csv(tmp_path / "x.csv")
    assert list(read_table(tmp_path / "x.csv").columns) == ["", "N"]


def test_evaluate_layout_rsmtool_runs_a_file_whose_human_column_is_named_like_a_derived_score(
    tmp_path, capsys
):
    frame = pdmetrics.datasets.simulate_scores(200, seed=4).rename(columns={"sc1": "raw_trim"})
    frame.to_csv(tmp_path / "r.csv", index=False)
    options = "--human raw_trim --system raw --trim-min 1 --trim-max 6".split()
    assert main(["evaluate", str(tmp_path / "r.csv"), *options, "--out", str(tmp_path / "a")]) == 2
    assert "layout='rsmtool'" in capsys.readouterr().err
    out = str(tmp_path / "b")
    assert main(["evaluate", str(tmp_path / "r.csv"), *options, "--out", out, "--layout", "rsmtool"]) == 0
    assert (tmp_path / "b" / "r_eval.csv").exists()


def test_the_command_flushes_its_output_and_keeps_the_exit_code_when_it_skips_teardown(tmp_path):
    # the console entry point ends with os._exit: nothing printed may be lost, codes must survive
    command = [sys.executable, "-m", "pdmetrics.cli"]
    refused = subprocess.run(
        [*command, "rsmeval", str(tmp_path / "none.json")], capture_output=True, text=True
    )
    assert refused.returncode == 1
    assert refused.stderr.startswith("pdmetrics rsmeval: error: ") and refused.stderr.endswith("\n")
    demo = subprocess.run([*command, "demo", "--rows", "300"], capture_output=True, text=True)
    assert demo.returncode == 0, demo.stderr
    assert demo.stdout.rstrip().splitlines()[-1].strip()  # the last table reached the pipe
    assert "true_score_eval" in demo.stdout
