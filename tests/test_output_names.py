"""Nothing written outside the output folder: names that become file names (prefixes,
experiment ids, subgroup columns) are checked before anything is written; and the command
line's other options of issue 21 (``--scale-with raw``, ``custom_sections``)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from pdmetrics.cli import main
from pdmetrics.datasets import simulate_scores
from pdmetrics.errors import InvalidInputError, PdmetricsWarning
from pdmetrics.rsmeval import report

EVALUATE = ["--human", "sc1", "--system", "raw", "--trim-min", "1", "--trim-max", "6"]
HOSTILE = [
    "../x",
    "../../x",
    "/nonexistent-pdmetrics/x",
    "a/b",
    "x/",
    "./x",
    "a\\b",
    "..\\x",
    "..",
    ".",
    "",
    "x\x00y",
    "C:x",
]


def _files(folder):
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file())


@pytest.fixture(scope="module")
def small_report():
    return simulate_scores(200, seed=1).scoring.report(human="sc1", system="raw", trim_min=1, trim_max=6)


@pytest.mark.parametrize("prefix", HOSTILE)
def test_to_csv_and_write_refuse_a_prefix_that_leaves_the_folder(small_report, tmp_path, prefix):
    target = tmp_path / "a" / "b"
    for call in (small_report.to_csv, lambda d, prefix: small_report.write(d, prefix, file_format="tsv")):
        with pytest.raises(InvalidInputError) as refused:
            call(target, prefix=prefix)
        assert str(refused.value).startswith(f"prefix={prefix!r} ")
    assert _files(tmp_path) == [] and not target.exists()  # nothing written, not even the folder


def test_hostile_but_harmless_names_are_written_inside_the_folder(small_report, tmp_path):
    for prefix in ("résumé_ü", "a..b", "x.y", "-n", "名前"):
        written = small_report.to_csv(tmp_path / "out", prefix=prefix)
        assert all(path.parent == tmp_path / "out" and path.name.startswith(prefix) for path in written)
    assert all(name.startswith("out/") for name in _files(tmp_path))


def test_a_prefix_too_long_for_a_file_name_is_refused_before_writing(small_report, tmp_path):
    with pytest.raises(InvalidInputError, match="at most 255"):
        small_report.to_csv(tmp_path / "out", prefix="p" * 240)
    assert not (tmp_path / "out").exists()


def test_a_group_column_with_a_separator_computes_but_is_not_written(tmp_path):
    frame = simulate_scores(300, seed=1).rename(columns={"L1": "L1/score"})
    result = report(frame, human="sc1", system="raw", by="L1/score", trim_min=1, trim_max=6)
    assert "eval_by_L1/score" in result and len(result["eval_by_L1/score"]) == 15  # in memory: fine
    with pytest.raises(InvalidInputError) as refused:
        result.to_csv(tmp_path / "out")
    message = str(refused.value)
    assert message.startswith("by='L1/score' would put files outside the output folder")
    assert "rename the column" in message and "df.rename(columns={'L1/score': 'L1'})" in message
    assert _files(tmp_path) == []


@pytest.mark.parametrize("prefix", ["../x", "/nonexistent-pdmetrics/x", "a\\b", "", "NUL", "a\u202eb"])
def test_evaluate_refuses_a_hostile_prefix_before_writing(tmp_path, capsys, prefix):
    simulate_scores(100, seed=1).to_csv(tmp_path / "r.csv", index=False)
    out = tmp_path / "in" / "out"
    code = main(["evaluate", str(tmp_path / "r.csv"), *EVALUATE, "--out", str(out), "--prefix", prefix])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"pdmetrics evaluate: error: --prefix {prefix!r} ") and err.count("\n") == 1
    assert "plain name" in err
    assert _files(tmp_path) == ["r.csv"]


def test_evaluate_refuses_a_group_column_with_a_separator_before_writing(tmp_path, capsys):
    simulate_scores(100, seed=1).rename(columns={"L1": "L1/score"}).to_csv(tmp_path / "r.csv", index=False)
    code = main(
        ["evaluate", str(tmp_path / "r.csv"), *EVALUATE, "--group", "L1/score", "--out", str(tmp_path / "o")]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith(
        "pdmetrics evaluate: error: --group 'L1/score' would put files outside the output folder"
    )
    assert "rename the column" in err
    assert _files(tmp_path) == ["r.csv"]


def _config(folder, **changes):
    simulate_scores(100, seed=1).to_csv(folder / "p.csv", index=False)
    config = {
        "experiment_id": "exp",
        "predictions_file": "p.csv",
        "id_column": "id",
        "system_score_column": "raw",
        "trim_min": 1,
        "trim_max": 6,
        **changes,
    }
    (folder / "config.json").write_text(json.dumps(config))
    return folder / "config.json"


@pytest.mark.parametrize(
    "experiment_id", ["../../x", "/nonexistent-pdmetrics/x", "a\\b", "..", "C:x", ".exp", "exp."]
)
def test_rsmeval_refuses_an_experiment_id_that_leaves_the_folder(tmp_path, capsys, experiment_id):
    config = _config(tmp_path, experiment_id=experiment_id)
    assert main(["rsmeval", str(config), str(tmp_path / "a" / "b")]) == 1
    err = capsys.readouterr().err
    assert (
        err.startswith(f"pdmetrics rsmeval: error: experiment_id {experiment_id!r} ") and err.count("\n") == 1
    )
    assert "use a plain name" in err
    assert _files(tmp_path) == ["config.json", "p.csv"]


def test_rsmeval_refuses_a_subgroup_column_with_a_separator(tmp_path, capsys):
    config = _config(tmp_path, subgroups=["L1/score"])
    assert main(["rsmeval", str(config), str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("pdmetrics rsmeval: error: subgroups 'L1/score' would put files outside")
    assert "rename the column" in err
    assert _files(tmp_path) == ["config.json", "p.csv"]


def test_rsmeval_reads_a_predictions_file_by_an_absolute_or_parent_path(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    simulate_scores(100, seed=1).to_csv(data / "p.csv", index=False)
    (tmp_path / "conf").mkdir()
    for given in ("../data/p.csv", str(data / "p.csv")):
        config = {
            "experiment_id": "exp",
            "predictions_file": given,
            "id_column": "id",
            "system_score_column": "raw",
            "trim_min": 1,
            "trim_max": 6,
        }
        (tmp_path / "conf" / "config.json").write_text(json.dumps(config))
        assert main(["rsmeval", str(tmp_path / "conf" / "config.json"), str(tmp_path / "out"), "-f"]) == 0
    assert (tmp_path / "out" / "output" / "exp_eval.csv").is_file()


# ----------------------------------------------------------------------------------------
# --scale-with raw, custom_sections
# ----------------------------------------------------------------------------------------
def test_evaluate_scale_with_raw_is_report_scale_with_raw(tmp_path):
    frame = simulate_scores(300, seed=4)
    frame.to_csv(tmp_path / "r.csv", index=False)
    assert (
        main(
            [
                "evaluate",
                str(tmp_path / "r.csv"),
                *EVALUATE,
                "--scale-with",
                "raw",
                "--out",
                str(tmp_path / "o"),
            ]
        )
        == 0
    )
    written = pd.read_csv(tmp_path / "o" / "r_eval.csv", index_col=0)
    expected = report(frame, human="sc1", system="raw", trim_min=1, trim_max=6, scale_with="raw")
    pd.testing.assert_frame_equal(written, expected.rsmtool_frames()["eval"], check_exact=False, rtol=1e-12)
    assert list(written.index) == [
        "raw",
        "raw_trim",
        "raw_trim_round",
        "scale",
        "scale_trim",
        "scale_trim_round",
    ]


def test_custom_sections_are_left_out_with_a_note_and_may_be_named_in_section_order(tmp_path, capsys):
    # RSMTool's lr-eval-with-custom-sections-and-order, on simulated data
    config = _config(
        tmp_path,
        subgroups=["L1"],
        second_human_score_column="sc2",
        human_score_column="sc1",
        general_sections=["consistency", "evaluation", "evaluation_by_group", "data_description", "sysinfo"],
        custom_sections=["custom1.ipynb", "notebooks/custom2.ipynb"],
        section_order=[
            "consistency",
            "evaluation",
            "custom1",
            "evaluation_by_group",
            "data_description",
            "custom2",
            "sysinfo",
        ],
    )
    assert main(["rsmeval", str(config), str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert "note: custom_sections: pdmetrics runs no notebooks; the report leaves out custom1, custom2" in err
    page = (tmp_path / "out" / "report" / "exp_report.html").read_text(encoding="utf-8")
    order = [page.index(f'id="{name}"') for name in ("consistency", "evaluation", "evaluation_by_group")]
    assert order == sorted(order)
    assert (tmp_path / "out" / "output" / "exp_eval_by_L1.csv").is_file()
    # section_order must still list the custom sections, as rsmeval checks
    config = _config(
        tmp_path,
        custom_sections=["custom1.ipynb"],
        general_sections=["evaluation"],
        section_order=["evaluation"],
    )
    assert main(["rsmeval", str(config), str(tmp_path / "out2")]) == 1
    assert "missing sections: custom1" in capsys.readouterr().err


def test_run_rsmeval_without_notes_warns_about_custom_sections(tmp_path):
    from pdmetrics.rsmeval.run import run_rsmeval

    config = _config(tmp_path, custom_sections=["custom1.ipynb"])
    with pytest.warns(PdmetricsWarning, match="custom_sections: pdmetrics runs no notebooks"):
        run_rsmeval(config, tmp_path / "out")


def test_names_too_long_for_the_file_system_are_refused_before_writing(tmp_path, capsys):
    simulate_scores(100, seed=1).to_csv(tmp_path / "r.csv", index=False)
    code = main(
        ["evaluate", str(tmp_path / "r.csv"), *EVALUATE, "--out", str(tmp_path / "o"), "--prefix", "p" * 240]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("pdmetrics evaluate: error: --prefix 'ppp") and "use a prefix of at most" in err
    config = _config(tmp_path, experiment_id="é" * 120)  # 120 characters (rsmeval takes 200), 240 bytes
    assert main(["rsmeval", str(config), str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("pdmetrics rsmeval: error: experiment_id 'ééé") and "at most 255" in err
    assert _files(tmp_path) == ["config.json", "p.csv", "r.csv"]
    # the longest name that fits is written, temporary files included
    written = simulate_scores(100, seed=1).scoring.report(human="sc1", system="raw", trim_min=1, trim_max=6)
    longest = max(len(path.name) for path in written.to_csv(tmp_path / "probe", prefix="p"))
    prefix = "p" * (255 - longest + 1)
    assert max(len(path.name) for path in written.to_csv(tmp_path / "fits", prefix=prefix)) == 255


# ----------------------------------------------------------------------------------------
# every message names the option, the value and a fix that is not the refused value
# ----------------------------------------------------------------------------------------
def test_a_long_group_column_name_blames_the_group_option(tmp_path, capsys):
    long = "g" * 240
    frame = simulate_scores(200, seed=1).rename(columns={"L1": long})
    result = report(frame, human="sc1", system="raw", by=long, trim_min=1, trim_max=6)
    with pytest.raises(InvalidInputError) as refused:
        result.to_csv(tmp_path / "out")
    assert str(refused.value).startswith("by='ggg") and "rename it to a name of at most" in str(refused.value)
    frame.to_csv(tmp_path / "r.csv", index=False)
    code = main(
        ["evaluate", str(tmp_path / "r.csv"), *EVALUATE, "--group", long, "--out", str(tmp_path / "o")]
    )
    assert code == 2
    assert capsys.readouterr().err.startswith("pdmetrics evaluate: error: --group 'ggg")
    assert not (tmp_path / "out").exists() and not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("prefix", "reason"),
    [
        (" ", "is blank"),
        ("   ", "is blank"),
        (".hidden", "starts with a dot"),
        ("x ", "ends with a space"),
        ("x.", "ends with a dot"),
        ("a:b", "absolute path or a drive"),
        ("\ud800", "lone surrogate"),
        ("x\u202etxt.exe", "bidirectional control character"),
        ("a\nb", "control character"),
        ("NUL.txt", "device name on Windows"),
        ("con", "device name on Windows"),
        ("COM1", "device name on Windows"),
    ],
)
def test_prefixes_that_are_not_portable_file_names_are_refused_with_another_name(
    small_report, tmp_path, prefix, reason
):
    with pytest.raises(InvalidInputError) as refused:
        small_report.to_csv(tmp_path / "out", prefix=prefix)
    message = str(refused.value)
    assert message.startswith(f"prefix={prefix!r} ") and reason in message
    suggested = message.rsplit("e.g. ", 1)[1].rstrip(".")
    assert suggested != repr(prefix)
    assert small_report.to_csv(tmp_path / "fixed", prefix=eval(suggested))  # the fix works
    assert not (tmp_path / "out").exists()


def test_a_prefix_that_is_not_a_string_is_refused(small_report, tmp_path):
    for prefix in (None, 3, b"x"):
        with pytest.raises(InvalidInputError, match=r"^prefix=.*must be a string, e\.g\. prefix='run1'"):
            small_report.to_csv(tmp_path / "out", prefix=prefix)
    assert not (tmp_path / "out").exists()


def test_a_group_column_named_like_a_device_is_fine(tmp_path):
    frame = simulate_scores(200, seed=1).rename(columns={"L1": "CON"})
    written = report(frame, human="sc1", system="raw", by="CON", trim_min=1, trim_max=6).to_csv(tmp_path)
    assert "pdmetrics_eval_by_CON.csv" in [path.name for path in written]


def test_a_tuple_group_column_is_refused_clearly():
    frame = simulate_scores(200, seed=1)
    frame[("a", "b")] = frame["L1"]
    for by in (("a", "b"), [("a", "b")]):
        with pytest.raises(InvalidInputError) as refused:
            frame.scoring.report(human="sc1", system="raw", by=by, trim_min=1, trim_max=6)
        assert str(refused.value).startswith("`by=('a', 'b')`: the subgroup column is named by a tuple")
        assert "df.rename(columns={('a', 'b'): 'a_b'})" in str(refused.value)


def test_evaluate_output_folder_errors_name_the_option_and_no_temporary_file(tmp_path, capsys):
    simulate_scores(100, seed=1).to_csv(tmp_path / "r.csv", index=False)
    (tmp_path / "afile").write_text("x")
    base = ["evaluate", str(tmp_path / "r.csv"), *EVALUATE, "--out"]
    for out, expected in [
        ("", "--out '': give the folder to write the files in, e.g. --out results."),
        (
            str(tmp_path / "afile"),
            f"--out {str(tmp_path / 'afile')!r}: {str(tmp_path / 'afile')!r} is a file, ",
        ),
        (
            str(tmp_path / "afile" / "sub"),
            f"--out {str(tmp_path / 'afile' / 'sub')!r}: {str(tmp_path / 'afile')!r} is a file, not a folder",
        ),
    ]:
        assert main([*base, out]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"pdmetrics evaluate: error: {expected}"), err
        assert "pdmetrics-part" not in err and err.count("\n") == 1
    assert sorted(path.name for path in tmp_path.iterdir()) == ["afile", "r.csv"]


def test_a_read_only_output_folder_names_the_option(tmp_path, capsys, monkeypatch):
    import os

    simulate_scores(100, seed=1).to_csv(tmp_path / "r.csv", index=False)
    (tmp_path / "ro").mkdir(mode=0o555)
    if os.geteuid() == 0:  # root writes in read-only folders: the file system refuses as it would
        original = os.open

        def refusing(path, flags, *args, **kwargs):
            if str(path).startswith(str(tmp_path / "ro")) and flags & os.O_CREAT:
                raise PermissionError(13, "Permission denied", str(path))
            return original(path, flags, *args, **kwargs)

        monkeypatch.setattr(os, "open", refusing)
    assert main(["evaluate", str(tmp_path / "r.csv"), *EVALUATE, "--out", str(tmp_path / "ro")]) == 2
    monkeypatch.undo()
    err = capsys.readouterr().err
    assert err.startswith(
        f"pdmetrics evaluate: error: --out {str(tmp_path / 'ro')!r}: pdmetrics cannot write"
    )
    assert "give a folder you can write to" in err and "pdmetrics-part" not in err and "incomplete" not in err


def test_to_html_paths_that_cannot_be_written_are_refused_clearly(small_report, tmp_path):
    (tmp_path / "adir").mkdir()
    cases = [
        ("", "path='': give the file to write, e.g. path='report.html'."),
        (tmp_path / "adir", f"path={str(tmp_path / 'adir')!r} is a folder: give a file in it"),
        (tmp_path / "nodir" / "x.html", f"the folder {str(tmp_path / 'nodir')!r} does not exist; create"),
    ]
    for path, expected in cases:
        with pytest.raises(InvalidInputError) as refused:
            small_report.to_html(path)
        assert expected in str(refused.value) and "pdmetrics-part" not in str(refused.value)
    assert sorted(path.name for path in tmp_path.rglob("*")) == ["adir"]


def test_to_csv_refuses_an_empty_directory_or_a_file(small_report, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("x")
    cases = [
        ("", "directory='': give a folder, e.g. directory='results'."),
        (
            "afile",
            "directory='afile': 'afile' is a file, not a folder; give a folder "
            "(e.g. directory='afile_results').",
        ),
        (
            "afile/sub",
            "directory='afile/sub': 'afile' is a file, not a folder; give a folder "
            "(e.g. directory='afile_results').",
        ),
    ]
    for directory, expected in cases:
        with pytest.raises(InvalidInputError) as refused:
            small_report.to_csv(directory)
        assert str(refused.value) == expected
    assert sorted(path.name for path in tmp_path.iterdir()) == ["afile"]


def test_a_write_error_names_the_file_not_the_temporary_one(small_report, tmp_path, monkeypatch):
    import errno

    import pdmetrics.rsmeval.report_object as reporting

    def failing(frame, path, index):
        raise OSError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setitem(reporting._FILE_WRITERS, "csv", failing)
    with pytest.raises(PermissionError) as refused:
        small_report.to_csv(tmp_path, prefix="demo")
    assert refused.value.filename == str(tmp_path / "demo_eval.csv")
    assert "pdmetrics-part" not in str(refused.value)


def test_dask_xlsx_on_the_command_line_names_the_option(tmp_path, capsys):
    pytest.importorskip("dask.dataframe")
    pytest.importorskip("openpyxl")
    simulate_scores(200, seed=1).to_parquet(tmp_path / "r.parquet")
    code = main(
        ["evaluate", str(tmp_path / "r.parquet"), "--engine", "dask", *EVALUATE, "--file-format", "xlsx"]
        + ["--out", str(tmp_path / "o")]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1].startswith(
        "pdmetrics evaluate: error: --file-format 'xlsx': a report computed on dask"
    )
    assert "file_format=" not in err and not (tmp_path / "o").exists()


@pytest.mark.parametrize("group", [" ", ".L1", "L1 ", "L1."])
def test_a_blank_hidden_or_windows_stripped_group_column_is_not_written(tmp_path, group):
    frame = simulate_scores(200, seed=1).rename(columns={"L1": group})
    made = report(frame, human="sc1", system="raw", by=group, trim_min=1, trim_max=6)
    with pytest.raises(InvalidInputError, match=r"^by=.*(blank|starts with a dot|ends with a)"):
        made.to_csv(tmp_path / "out")
    assert not (tmp_path / "out").exists()
