"""Files complete or clearly absent: real signals sent to a real ``pdmetrics`` process in the
middle of writing, a real full disk (a 2 MB tmpfs when the machine lets us mount one), and the
record of a run that lets an overwrite remove what an earlier run wrote (and nothing else)."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import pdmetrics
from pdmetrics._files import INCOMPLETE_SUFFIX, PART_SUFFIX, atomic_path, output_run
from pdmetrics.cli import main
from pdmetrics.datasets import simulate_scores
from pdmetrics.errors import PdmetricsWarning

ROOT = Path(__file__).resolve().parents[1]
EVALUATE = ["--human", "sc1", "--system", "raw", "--trim-min", "1", "--trim-max", "6"]
ROWS = 300_000  # writing its per-response tables takes about a second


def _command(*arguments) -> list[str]:
    return [sys.executable, "-m", "pdmetrics.cli", *map(str, arguments)]


def _environment() -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """A large input file and the folder of an uninterrupted run of it (the reference)."""
    folder = tmp_path_factory.mktemp("big")
    frame = simulate_scores(ROWS, seed=3)
    frame.loc[frame.index[:50], "sc1"] = 0  # a few excluded responses: one more per-response file
    frame.to_csv(folder / "resp.csv", index=False)
    done = subprocess.run(
        _command("evaluate", folder / "resp.csv", *EVALUATE, "--group", "L1", "--out", folder / "reference"),
        capture_output=True,
        text=True,
        env=_environment(),
    )
    assert done.returncode == 0, done.stderr
    return folder


def _interrupt(arguments, folder: Path, ready, signum, timeout=60.0) -> subprocess.CompletedProcess:
    """Run the command, send ``signum`` as soon as ``ready(folder)`` is true, wait for it."""
    process = subprocess.Popen(
        _command(*arguments), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_environment()
    )
    deadline = time.monotonic() + timeout
    try:
        while not ready(folder):
            if process.poll() is not None:
                pytest.fail(f"the run ended before the signal: {process.communicate()}")
            if time.monotonic() > deadline:
                pytest.fail("the run never reached the point to interrupt")
            time.sleep(0.002)
        process.send_signal(signum)
        out, err = process.communicate(timeout=timeout)
    finally:
        if process.poll() is None:
            process.kill()
    return subprocess.CompletedProcess(arguments, process.returncode, out, err)


def _entries(folder: Path) -> list[Path]:
    return sorted(path for path in folder.rglob("*") if path.is_file()) if folder.is_dir() else []


def _assert_nothing_half_written(folder: Path, reference: Path) -> None:
    """No temporary file left; every file of the run present equals the uninterrupted run's."""
    for path in _entries(folder):
        assert PART_SUFFIX not in path.name, f"temporary file left: {path.name}"
        if path.name.endswith(INCOMPLETE_SUFFIX) or path.name.startswith(".pdmetrics-"):
            continue
        expected = reference / path.relative_to(folder)
        if path.suffix == ".html":
            assert path.read_text(encoding="utf-8").rstrip().endswith("</html>"), path.name
        else:
            assert path.read_bytes() == expected.read_bytes(), f"{path.name} is not the complete table"


def _first_table(folder: Path) -> bool:
    """True once the first table file is created (its temporary file, then the table)."""
    return any(path.suffix == ".csv" for path in _entries(folder))


def _writing(name: str):
    """True once the file ``name`` (its temporary file) holds some of its rows."""

    def ready(folder: Path) -> bool:
        try:
            return any(path.stat().st_size > 100_000 for path in _entries(folder) if name in path.name)
        except FileNotFoundError:  # renamed meanwhile
            return False

    return ready


def test_sigint_right_after_the_first_file_leaves_no_partial_file_and_a_marker(big, tmp_path):
    out = tmp_path / "out"
    arguments = ["evaluate", big / "resp.csv", *EVALUATE, "--group", "L1", "--out", out]
    done = _interrupt(arguments, out, _first_table, signal.SIGINT)
    assert done.returncode == 130, done.stderr
    assert (
        f"interrupted; the run did not finish; {out / 'resp'}{INCOMPLETE_SUFFIX} marks its folder"
        in done.stderr
    )
    assert (out / f"resp{INCOMPLETE_SUFFIX}").is_file()  # recognisably unfinished
    assert not (out / ".pdmetrics-evaluate-resp.json").exists()
    _assert_nothing_half_written(out, big / "reference")
    # the marker lists the files written so far; running again completes the folder and drops it
    listed = [
        json.loads(line)["path"] for line in (out / f"resp{INCOMPLETE_SUFFIX}").read_text().splitlines()[2:]
    ]
    assert set(listed) <= {path.name for path in _entries(out)}
    rerun = subprocess.run(_command(*arguments), capture_output=True, text=True, env=_environment())
    assert rerun.returncode == 0, rerun.stderr
    assert not (out / f"resp{INCOMPLETE_SUFFIX}").exists()
    names = sorted(path.name for path in _entries(out))
    assert names == sorted(path.name for path in _entries(big / "reference"))


def test_sigterm_mid_write_of_a_large_table_removes_it(big, tmp_path):
    out = tmp_path / "out"
    arguments = ["evaluate", big / "resp.csv", *EVALUATE, "--group", "L1", "--out", out]
    done = _interrupt(arguments, out, _writing("resp_pred_processed"), signal.SIGTERM)
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert "terminated; the run did not finish" in done.stderr
    assert not (out / "resp_pred_processed.csv").exists()
    assert (out / f"resp{INCOMPLETE_SUFFIX}").is_file()
    _assert_nothing_half_written(out, big / "reference")


def test_rsmeval_sigterm_mid_write_leaves_the_run_unfinished(big, tmp_path):
    config = {
        "experiment_id": "exp",
        "predictions_file": str(big / "resp.csv"),
        "id_column": "id",
        "system_score_column": "raw",
        "subgroups": ["L1"],
        "trim_min": 1,
        "trim_max": 6,
    }
    (tmp_path / "config.json").write_text(json.dumps(config))
    out = tmp_path / "out"
    done = _interrupt(
        ["rsmeval", tmp_path / "config.json", out], out, _writing("exp_test_metadata"), signal.SIGTERM
    )
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert (out / f"exp{INCOMPLETE_SUFFIX}").is_file() and not (out / ".pdmetrics-rsmeval-exp.json").exists()
    assert not (out / "output" / "exp_test_metadata.csv").exists()
    assert not [path for path in _entries(out) if PART_SUFFIX in path.name]
    rows = pd.read_csv(out / "output" / "exp_pred_processed.csv")  # written before: whole
    assert len(rows) == ROWS - 50
    again = subprocess.run(
        _command("rsmeval", tmp_path / "config.json", out), capture_output=True, text=True, env=_environment()
    )
    assert again.returncode == 1
    assert f"(from a run that did not finish: exp{INCOMPLETE_SUFFIX}); pass -f" in again.stderr


def test_dask_streamed_writer_sigterm_mid_write_leaves_no_partial_file(big, tmp_path):
    pytest.importorskip("dask.dataframe")
    frame = pd.read_csv(big / "resp.csv")
    (tmp_path / "pq").mkdir()
    for number, start in enumerate(range(0, ROWS, ROWS // 4)):
        frame.iloc[start : start + ROWS // 4].to_parquet(tmp_path / "pq" / f"part{number}.parquet")
    out = tmp_path / "out"
    arguments = ["evaluate", tmp_path / "pq", "--engine", "dask", *EVALUATE, "--out", out]
    done = _interrupt(arguments, out, _writing("pq_pred_processed"), signal.SIGTERM)
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert (out / f"pq{INCOMPLETE_SUFFIX}").is_file()
    assert not (out / "pq_pred_processed.csv").exists()
    assert not [path for path in _entries(out) if PART_SUFFIX in path.name or ".pdmetrics-part" in path.name]
    assert (out / "pq_eval.csv").is_file()  # the summaries, written before: whole


# ----------------------------------------------------------------------------------------
# a full disk
# ----------------------------------------------------------------------------------------
@pytest.fixture(params=["tmpfs", "simulated"])
def small_disk(request, tmp_path, monkeypatch):
    """A 2 MB file system (a tmpfs: root can mount one, as in CI); where mounting is not
    allowed, and in the "simulated" case, the CSV writer fails with ENOSPC half-way through a
    large table, as a full disk makes it."""
    folder = tmp_path / "disk"
    folder.mkdir()
    if request.param == "tmpfs" and shutil.which("mount") and os.geteuid() == 0:
        mounted = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(folder)], capture_output=True
        )
        if mounted.returncode == 0:
            yield folder
            subprocess.run(["umount", str(folder)], check=True)
            return
    import pdmetrics.rsmeval.report_object as reporting

    original = reporting.write_delimited

    def write_delimited(frame, path, sep=",", index=True):
        if len(frame) < 10_000:
            return original(frame, path, sep, index)
        original(frame.iloc[: len(frame) // 2], path, sep, index)  # half the rows reach the disk
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(reporting, "write_delimited", write_delimited)
    yield folder


def test_a_full_disk_leaves_no_partial_file(small_disk, capsys, tmp_path, monkeypatch):
    frame = simulate_scores(60_000, seed=5)  # pred_processed alone is about 2.5 MB
    frame.to_csv(tmp_path / "resp.csv", index=False)
    out = small_disk / "out"
    assert main(["evaluate", str(tmp_path / "resp.csv"), *EVALUATE, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pdmetrics evaluate: error: ") and "No space left on device" in err
    assert f"({out / 'resp'}{INCOMPLETE_SUFFIX} marks the folder as unfinished" in err
    assert (out / f"resp{INCOMPLETE_SUFFIX}").is_file()
    assert not (out / "resp_pred_processed.csv").exists()
    assert not [path for path in _entries(out) if PART_SUFFIX in path.name]
    monkeypatch.undo()  # the simulated full disk
    # the reference is the same command on a disk with room: it reads the CSV as the run did (a
    # report of the frame in memory can differ in the last digit, pandas 2.2 parses floats so)
    reference = tmp_path / "reference"
    assert main(["evaluate", str(tmp_path / "resp.csv"), *EVALUATE, "--out", str(reference)]) == 0
    _assert_nothing_half_written(out, reference)


def test_atomic_path_removes_the_temporary_file_on_any_error(tmp_path):
    target = tmp_path / "t.csv"
    target.write_text("old\n")
    for error in (OSError(errno.ENOSPC, "No space left on device"), KeyboardInterrupt()):
        with pytest.raises(type(error)), atomic_path(target) as part:
            part.write_text("half")
            raise error
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"] and target.read_text() == "old\n"
    with atomic_path(target) as part:
        part.write_text("new\n")
    assert target.read_text() == "new\n"
    assert oct(target.stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_to_csv_interrupted_by_an_error_keeps_the_marker(tmp_path, monkeypatch):
    report = simulate_scores(3000, seed=1).scoring.report(human="sc1", system="raw", trim_min=1, trim_max=6)
    import pdmetrics.rsmeval.report_object as reporting

    def failing(frame, path, index):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setitem(reporting._FILE_WRITERS, "csv", failing)
    with pytest.raises(OSError, match="No space"):
        report.to_csv(tmp_path, prefix="demo")
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"demo{INCOMPLETE_SUFFIX}"]
    monkeypatch.undo()
    with pytest.warns(
        PdmetricsWarning, match=r"demo\.pdmetrics-incomplete .* earlier call in this process.*takes over"
    ):
        written = report.to_csv(tmp_path, prefix="demo")
    assert sorted(p.name for p in tmp_path.glob("[!.]*")) == sorted(p.name for p in written)
    assert [
        entry["path"] for entry in json.loads((tmp_path / ".pdmetrics-write-demo.json").read_text())["files"]
    ] == [p.name for p in written]


# ----------------------------------------------------------------------------------------
# overwriting an earlier run
# ----------------------------------------------------------------------------------------
def _rsmeval_config(tmp_path, **changes) -> Path:
    frame = simulate_scores(400, seed=2)
    frame.to_csv(tmp_path / "p.csv", index=False)
    config = {
        "experiment_id": "exp",
        "predictions_file": "p.csv",
        "id_column": "id",
        "system_score_column": "raw",
        "trim_min": 1,
        "trim_max": 6,
        **changes,
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    return path


def test_rsmeval_force_removes_the_earlier_runs_subgroup_tables_and_nothing_else(tmp_path, capsys):
    config = _rsmeval_config(tmp_path, subgroups=["L1"])
    out = tmp_path / "out"
    assert main(["rsmeval", str(config), str(out)]) == 0
    by_group = sorted(p.name for p in (out / "output").glob("*_by_L1.csv"))
    assert len(by_group) >= 5
    mine = out / "output" / "exp_mine_by_L1.csv"  # the user's own file
    mine.write_text("a\n1\n")
    edited = out / "output" / "exp_eval_by_L1.csv"  # a pdmetrics file the user changed since
    edited.write_text(edited.read_text() + "# checked\n")
    capsys.readouterr()
    _rsmeval_config(tmp_path)  # no subgroups now
    assert main(["rsmeval", str(config), str(out), "-f"]) == 0
    err = capsys.readouterr().err
    left = sorted(p.name for p in (out / "output").glob("*_by_L1.csv"))
    assert left == ["exp_eval_by_L1.csv", "exp_mine_by_L1.csv"]
    removed = sorted(set(by_group) - {"exp_eval_by_L1.csv"})
    assert f"note: removed {len(removed)} files an earlier run of 'exp'" in err
    assert all(name in err for name in removed)
    page = (out / "report" / "exp_report.html").read_text()
    assert "by_L1" not in page.split("Files written")[-1].replace("exp_eval_by_L1", "")


def test_evaluate_over_an_earlier_run_removes_its_stale_tables(tmp_path, capsys):
    simulate_scores(300, seed=2).to_csv(tmp_path / "resp.csv", index=False)
    out = tmp_path / "out"
    base = ["evaluate", str(tmp_path / "resp.csv"), *EVALUATE, "--out", str(out)]
    assert main([*base, "--group", "L1"]) == 0
    other = ["evaluate", str(tmp_path / "resp.csv"), *EVALUATE, "--out", str(out), "--prefix", "other"]
    assert main(other) == 0  # another prefix in the same folder: its own run
    capsys.readouterr()
    assert main(base) == 0
    assert "note: removed" in capsys.readouterr().err
    assert not list(out.glob("resp_*_by_L1.csv"))
    assert (out / "other_eval.csv").is_file()  # the other prefix's files are not this run's
    assert not list(out.glob(f"*{INCOMPLETE_SUFFIX}"))


def test_a_nested_run_counts_in_the_outer_one(tmp_path):
    with output_run(tmp_path, "outer") as run:
        pdmetrics.datasets.simulate_scores(100, seed=1).scoring.report(
            human="sc1", system="raw", trim_min=1, trim_max=6
        ).to_csv(tmp_path / "output", prefix="inner")
        assert (tmp_path / f"outer{INCOMPLETE_SUFFIX}").is_file()
    assert not list(tmp_path.rglob(f"*{INCOMPLETE_SUFFIX}"))
    assert not (tmp_path / "output" / ".pdmetrics-inner.json").exists()
    assert all(name.startswith("output/inner_") for name in run.files)


def test_write_replaces_the_earlier_files_of_its_prefix_and_format_only(tmp_path):
    frame = simulate_scores(300, seed=6)
    with_groups = frame.scoring.report(human="sc1", system="raw", by="L1", trim_min=1, trim_max=6)
    without = frame.scoring.report(human="sc1", system="raw", trim_min=1, trim_max=6)
    with_groups.write(tmp_path, prefix="demo", file_format="tsv")
    with_groups.to_csv(tmp_path, prefix="demo")
    with_groups.to_csv(tmp_path, prefix="other")
    written = without.to_csv(tmp_path, prefix="demo")
    csv = sorted(p.name for p in tmp_path.glob("demo_*.csv"))
    assert csv == sorted(p.name for p in written) and not any("_by_L1" in name for name in csv)
    assert len(list(tmp_path.glob("demo_*_by_L1.tsv"))) >= 5  # another format: left alone
    assert len(list(tmp_path.glob("other_*_by_L1.csv"))) >= 5  # another prefix: left alone
    recorded = [
        entry["path"] for entry in json.loads((tmp_path / ".pdmetrics-write-demo.json").read_text())["files"]
    ]
    assert sorted(recorded) == sorted(p.name for p in tmp_path.glob("demo_*"))


# ----------------------------------------------------------------------------------------
# one kind of run never removes another kind's files; the marker is the prefix's lock
# ----------------------------------------------------------------------------------------
def _small_input(tmp_path) -> Path:
    simulate_scores(300, seed=2).to_csv(tmp_path / "small.csv", index=False)
    return tmp_path / "small.csv"


def test_evaluate_and_rsmeval_never_remove_each_others_files(tmp_path, capsys):
    config = _rsmeval_config(tmp_path, experiment_id="e", subgroups=["L1"])
    both = tmp_path / "R"
    assert main(["rsmeval", str(config), str(both)]) == 0
    theirs = _entries(both)
    assert len(theirs) >= 12
    capsys.readouterr()
    evaluate = ["evaluate", str(_small_input(tmp_path)), *EVALUATE, "--prefix", "e", "--out"]
    assert main([*evaluate, str(both)]) == 0
    assert "removed" not in capsys.readouterr().err
    assert set(theirs) <= set(_entries(both))  # every rsmeval file is still there
    # the other way round: rsmeval (no -f, no output/ yet) over an evaluate run of the same prefix
    other = tmp_path / "R3"
    assert main([*evaluate, str(other), "--group", "L1"]) == 0
    tables = _entries(other)
    capsys.readouterr()
    assert main(["rsmeval", str(config), str(other)]) == 0
    assert "removed" not in capsys.readouterr().err
    assert set(tables) <= set(_entries(other))
    # and report.write of the same prefix (its own kind) leaves both alone
    report = simulate_scores(200, seed=1).scoring.report(human="sc1", system="raw", trim_min=1, trim_max=6)
    report.to_csv(other, prefix="e")
    assert {path.name for path in tables} <= {path.name for path in _entries(other)}
    records = sorted(path.name for path in other.glob(".pdmetrics-*.json"))
    assert records == [".pdmetrics-evaluate-e.json", ".pdmetrics-rsmeval-e.json", ".pdmetrics-write-e.json"]


def test_evaluate_writes_its_page_under_its_prefix(tmp_path):
    data = _small_input(tmp_path)
    out = tmp_path / "out"
    for prefix in ("A", "B"):
        assert main(["evaluate", str(data), *EVALUATE, "--out", str(out), "--prefix", prefix]) == 0
    assert (out / "A_report.html").is_file() and (out / "B_report.html").is_file()
    assert not (out / "report.html").exists()
    recorded = [
        entry["path"] for entry in json.loads((out / ".pdmetrics-evaluate-A.json").read_text())["files"]
    ]
    assert "A_report.html" in recorded and (out / "A_report.html").read_text().rstrip().endswith("</html>")


def _marker(folder: Path, prefix: str, kind: str, pid: int, host: str | None = None) -> Path:
    import socket

    owner = {"run": kind, "prefix": prefix, "pid": pid, "host": host or socket.gethostname(), "started": "x"}
    marker = folder / f"{prefix}{INCOMPLETE_SUFFIX}"
    folder.mkdir(parents=True, exist_ok=True)
    marker.write_text("# pdmetrics: not finished\n" + json.dumps(owner) + "\n")
    return marker


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_a_live_run_of_the_prefix_refuses_another_and_a_dead_one_is_taken_over(tmp_path):
    report = simulate_scores(200, seed=1).scoring.report(human="sc1", system="raw", trim_min=1, trim_max=6)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        marker = _marker(tmp_path / "out", "demo", "write", sleeper.pid)
        with pytest.raises(pdmetrics.PdmetricsError) as refused:
            report.to_csv(tmp_path / "out", prefix="demo")
        message = str(refused.value)
        assert message.startswith(f"directory={str(tmp_path / 'out')!r} with prefix='demo': another ")
        assert f"process {sleeper.pid}" in message and "Wait until it finishes" in message
        assert sorted(path.name for path in (tmp_path / "out").iterdir()) == [marker.name]
    finally:
        sleeper.kill()
        sleeper.wait()
    # the same marker once its process is gone: an interrupted run, taken over
    _marker(tmp_path / "out", "demo", "write", _dead_pid())
    with pytest.warns(
        PdmetricsWarning, match=r"did not finish \(process \d+ no longer runs\); this run takes over"
    ):
        written = report.to_csv(tmp_path / "out", prefix="demo")
    assert not marker.exists() and all(path.is_file() for path in written)
    # a marker another command left: its files are not this run's to remove
    _marker(tmp_path / "out", "demo", "evaluate", _dead_pid())
    with pytest.raises(pdmetrics.PdmetricsError, match="from an interrupted `pdmetrics evaluate` run"):
        report.to_csv(tmp_path / "out", prefix="demo")


def test_two_concurrent_evaluate_runs_of_one_prefix_do_not_mix(big, tmp_path):
    out = tmp_path / "conc"
    base = ["evaluate", big / "resp.csv", *EVALUATE, "--out", out, "--prefix", "resp"]
    first = subprocess.Popen(
        _command(*base, "--group", "L1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_environment(),
    )
    deadline = time.monotonic() + 60
    while not (out / f"resp{INCOMPLETE_SUFFIX}").exists():
        assert first.poll() is None and time.monotonic() < deadline, first.communicate()
        time.sleep(0.002)
    first.send_signal(signal.SIGSTOP)  # the first run holds the prefix for as long as the second takes
    try:
        second = subprocess.run(_command(*base), capture_output=True, text=True, env=_environment())
    finally:
        first.send_signal(signal.SIGCONT)
    out_first, err_first = first.communicate(timeout=120)
    assert first.returncode == 0, err_first
    assert second.returncode == 2, second.stderr
    assert second.stderr.splitlines()[-1].startswith(
        f"pdmetrics evaluate: error: --out {str(out)!r} with --prefix 'resp': another"
    )
    assert f"pdmetrics evaluate run (process {first.pid} " in second.stderr
    assert "Traceback" not in second.stderr
    names = sorted(path.name for path in _entries(out))
    assert names == sorted(path.name for path in _entries(big / "reference"))  # the first run's only
    assert not list(out.glob(f"*{INCOMPLETE_SUFFIX}"))


def test_sigkill_leftovers_are_removed_by_the_next_run_of_the_prefix(big, tmp_path):
    out = tmp_path / "out"
    arguments = ["evaluate", big / "resp.csv", *EVALUATE, "--group", "L1", "--out", out]
    done = _interrupt(arguments, out, _writing("resp_pred_processed"), signal.SIGKILL)
    assert done.returncode == -signal.SIGKILL
    left = [path.name for path in _entries(out) if PART_SUFFIX in path.name]
    assert left  # what a killed process cannot clean up
    mine = out / ".resp_notes.txt"  # the user's own hidden file, and another prefix's temporary file
    mine.write_text("x")
    foreign = out / f".other_eval.0123abcd{PART_SUFFIX}.csv"
    foreign.write_text("x")
    rerun = subprocess.run(_command(*arguments), capture_output=True, text=True, env=_environment())
    assert rerun.returncode == 0, rerun.stderr
    assert "this run takes over" in rerun.stderr
    assert f"temporary files an interrupted run of 'resp' left in {out}: " in rerun.stderr
    assert all(name in rerun.stderr for name in left)
    assert not [path for path in _entries(out) if PART_SUFFIX in path.name and path != foreign]
    assert mine.is_file() and foreign.is_file()
    assert sorted(path.name for path in _entries(out) if path not in (mine, foreign)) == sorted(
        path.name for path in _entries(big / "reference")
    )


def test_rsmeval_does_not_count_leftover_temporary_files_as_output(tmp_path, capsys):
    config = _rsmeval_config(tmp_path)
    out = tmp_path / "out"
    (out / "output").mkdir(parents=True)
    left = out / "output" / f".exp_test_metadata.1ea540cc{PART_SUFFIX}.csv"
    left.write_text("id,sc1\n1,")
    assert main(["rsmeval", str(config), str(out)]) == 0  # no -f needed: nothing of a finished run there
    assert not left.exists()
    err = capsys.readouterr().err
    assert f"removed 1 temporary files an interrupted run of 'exp' left in {out}: output/{left.name}" in err


# ----------------------------------------------------------------------------------------
# signals: a second one while cleaning up, one after the run finished, one while starting
# ----------------------------------------------------------------------------------------
def test_a_second_signal_while_cleaning_up_gives_no_traceback(big, tmp_path):
    for number, second in enumerate((signal.SIGINT, signal.SIGTERM, signal.SIGINT)):
        out = tmp_path / f"out{number}"
        process = subprocess.Popen(
            _command("evaluate", big / "resp.csv", *EVALUATE, "--out", out),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_environment(),
        )
        deadline = time.monotonic() + 60
        while not _writing("resp_pred_processed")(out):
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.002)
        process.send_signal(signal.SIGINT)
        time.sleep(0.001 * number)
        process.send_signal(second)
        _, err = process.communicate(timeout=60)
        assert process.returncode == 130, err
        assert "Traceback" not in err and err.strip().endswith("No file was left half-written."), err
        assert not [path for path in _entries(out) if PART_SUFFIX in path.name]


def test_a_signal_after_the_files_are_written_does_not_fail_the_run(tmp_path, monkeypatch, capsys):
    import pdmetrics.cli as cli

    original = cli._show

    def show(title, table):  # Ctrl-C while the tables are printed, after every file is in place
        os.kill(os.getpid(), signal.SIGINT)
        original(title, table)

    monkeypatch.setattr(cli, "_show", show)
    code = main(["evaluate", str(_small_input(tmp_path)), *EVALUATE, "--out", str(tmp_path / "out")])
    assert code == 0, capsys.readouterr().err
    assert (tmp_path / "out" / ".pdmetrics-evaluate-small.json").is_file()


def test_a_signal_while_the_command_starts_gives_one_line(tmp_path):
    """SIGINT while the command imports pandas and the accessors (Python's own start-up, before
    any pdmetrics code runs, is out of reach: the first delay is well after it)."""
    for delay in (0.3, 0.2, 0.12):  # shorter only when the imports were done already
        process = subprocess.Popen(
            _command("evaluate", "x.csv", *EVALUATE, "--out", tmp_path / "out"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_environment(),
        )
        time.sleep(delay)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
        assert "Traceback" not in err and err.count("\n") == 1, err
        if process.returncode == 130:
            assert err == "pdmetrics: interrupted while starting; nothing was written.\n"
            break
        assert process.returncode == 2, err  # the command had already read its arguments
    else:
        pytest.skip("the imports were always done before the signal")
    assert not (tmp_path / "out").exists()


def test_dask_writer_interrupted_between_batches_leaves_no_piece(tmp_path, monkeypatch):
    dd = pytest.importorskip("dask.dataframe")
    import pdmetrics.engines.dask_report as dask_scoring

    data = simulate_scores(4000, seed=1)
    data.loc[::50, "sc1"] = 0  # excluded responses: test_excluded_responses is written in pieces
    data.loc[1::50, "raw"] = float("nan")  # (.1 the zeros, .2 the missing system scores)
    frame = dd.from_pandas(data, npartitions=8)
    with pytest.warns(pdmetrics.ExcludedRowsWarning, match="Left out"):
        report = frame.scoring.report(human="sc1", system="raw", trim_min=1, trim_max=6)
    monkeypatch.setattr(dask_scoring, "RESPONSE_BATCH", 1)  # one partition a batch
    original, calls = dask_scoring.dask.compute, []

    def compute(*args, **kwargs):
        calls.append(1)
        if len(calls) == 4:  # after three batches: the pieces of partitions 1 and 2 are on disk
            raise KeyboardInterrupt
        return original(*args, **kwargs)

    monkeypatch.setattr(dask_scoring.dask, "compute", compute)
    with pytest.raises(KeyboardInterrupt):
        report.to_csv(tmp_path, prefix="d")
    assert len(calls) == 4
    left = sorted(path.name for path in tmp_path.iterdir())
    assert not [name for name in left if PART_SUFFIX in name], left
    assert f"d{INCOMPLETE_SUFFIX}" in left


def test_leftovers_of_a_live_run_of_a_longer_prefix_are_kept(tmp_path):
    report = simulate_scores(200, seed=1).scoring.report(human="sc1", system="raw", trim_min=1, trim_max=6)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        _marker(tmp_path, "a_b", "write", sleeper.pid)  # "a_b" writes now: its temporary files are its own
        theirs = tmp_path / f".a_b_eval.0123abcd{PART_SUFFIX}.csv"
        mine = tmp_path / f".a_eval.0123abcd{PART_SUFFIX}.csv"
        record = tmp_path / f"..pdmetrics-write-a.0123abcd{PART_SUFFIX}.json"
        for path in (theirs, mine, record):
            path.write_text("x")
        with pytest.warns(PdmetricsWarning, match=r"removed 2 temporary files an interrupted run of 'a'"):
            report.to_csv(tmp_path, prefix="a")
        assert theirs.is_file() and not mine.exists() and not record.exists()
    finally:
        sleeper.kill()
        sleeper.wait()
