"""What keeps ``pdmetrics rsmeval`` fast, checked by structure, not by the clock: the fast
CSV/TSV writer gives pandas' ``to_csv`` file byte for byte, and the command does not import
what it does not use."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from pdmetrics import _delimited as delimited
from pdmetrics._delimited import FAST_MIN_ROWS, _formatted_columns, write_delimited
from pdmetrics.rsmeval.reporting import report

ROWS = FAST_MIN_ROWS + 37
#: Floats pandas formats in surprising ways: negative zero, the switch to exponents, huge
#: integers stored as floats, the extremes.
AWKWARD_FLOATS = [
    0.0,
    -0.0,
    1e-5,
    1e-4,
    0.1,
    1e15,
    1e16,
    9007199254740993.0,
    123456789012345678.0,
    -2.5e-300,
    5e-324,
    1.7976931348623157e308,
    np.inf,
    -np.inf,
    np.nan,
    2.0,
    -3.0,
]


def _floats(rng: np.random.Generator, kind: str) -> np.ndarray:
    if kind == "continuous":
        values = rng.standard_normal(ROWS) * 10.0 ** rng.integers(-20, 20, ROWS)
    elif kind == "scores":  # few distinct values, as human scores
        values = rng.integers(0, 7, ROWS).astype(float)
    else:
        values = rng.choice(np.array(AWKWARD_FLOATS), ROWS)
    values[rng.random(ROWS) < 0.05] = np.nan
    return values


def _text(rng: np.random.Generator, awkward: bool) -> list:
    words = ["a", "bb", "", "L1 group", "x" * 30, "ünïcode", "12", "nan"]
    if awkward:
        words += ['with "quotes"', "comma, inside", "new\nline", "tab\there", "cr\rhere"]
    values = rng.choice(np.array(words, dtype=object), ROWS)
    values[rng.random(ROWS) < 0.05] = None
    return values.tolist()


def _frame(seed: int, awkward_text: bool) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "raw": _floats(rng, "continuous"),
            "sc1": _floats(rng, "scores"),
            "odd": _floats(rng, "awkward"),
            "n": rng.integers(-(2**62), 2**62, ROWS),
            "flag": rng.random(ROWS) < 0.5,
            "L1": pd.array(_text(rng, awkward_text), dtype="str"),
            "note": pd.Series(_text(rng, awkward_text), dtype=object),
        },
        index=pd.Index([f"id{i}" for i in range(ROWS)], name="spkitemid"),
    )
    frame["raw_trim"] = frame["raw"].clip(-1, 1)  # equal to raw in some rows
    frame["odd_copy"] = np.where(rng.random(ROWS) < 0.9, frame["odd"], -frame["odd"])
    return frame


def _same_as_pandas(frame: pd.DataFrame, tmp_path, sep: str, index: bool) -> None:
    ours, theirs = tmp_path / "ours.txt", tmp_path / "pandas.txt"
    write_delimited(frame, ours, sep, index)
    frame.to_csv(theirs, sep=sep, index=index)
    assert ours.read_bytes() == theirs.read_bytes()


@pytest.mark.parametrize("sep", [",", "\t"])
@pytest.mark.parametrize("index", [True, False])
@pytest.mark.parametrize("seed", [0, 1])
def test_writer_gives_pandas_file_byte_for_byte(tmp_path, sep, index, seed):
    frame = _frame(seed, awkward_text=False)
    assert _formatted_columns(frame, sep, index) is not None  # the fast path, not pandas
    _same_as_pandas(frame, tmp_path, sep, index)


@pytest.mark.parametrize("sep", [",", "\t"])
def test_writer_gives_pandas_file_with_text_pandas_must_quote(tmp_path, sep):
    frame = _frame(2, awkward_text=True)
    assert _formatted_columns(frame, sep, True) is None
    _same_as_pandas(frame, tmp_path, sep, index=True)
    _same_as_pandas(frame.drop(columns=["L1", "note"]), tmp_path, sep, index=True)


@pytest.mark.parametrize(
    "change",
    [
        lambda f: f.astype({"raw": "float32"}),
        lambda f: f.astype({"n": "Int64"}),
        lambda f: f.assign(when=pd.Timestamp("2024-01-01")),
        lambda f: f.assign(mixed=[1, "a"] * (len(f) // 2) + [2.5] * (len(f) % 2)),
        lambda f: f.set_index("L1", append=True),
        lambda f: f.set_axis(pd.MultiIndex.from_product([["a"], f.columns]), axis=1),
        lambda f: f.iloc[:100],
        lambda f: f[["raw"]].reset_index(drop=True).set_index(pd.Index(np.arange(len(f)) * 0.5)),
        lambda f: f[["sc1"]],
    ],
    ids=["float32", "nullable", "datetime", "mixed", "multiindex", "multicolumns", "small", "floatindex"]
    + ["one"],
)
def test_writer_gives_pandas_file_for_frames_it_hands_to_pandas(tmp_path, change):
    frame = change(_frame(3, awkward_text=False))
    _same_as_pandas(frame, tmp_path, ",", index=True)
    _same_as_pandas(frame, tmp_path, ",", index=False)


@pytest.mark.parametrize("text", ["arrow", "python"])
@pytest.mark.parametrize("sep", [",", "\t"])
def test_both_text_columns_give_pandas_file_byte_for_byte(tmp_path, monkeypatch, text, sep):
    """The arrow columns (pyarrow installed) and the Python strings (without it) write the same
    file: floats across the switches to exponents (repr's 1e-4 and 1e16, arrow's 1e10), whole
    numbers, a column that is the index alone, without or with an empty field."""
    if text == "arrow":
        pytest.importorskip("pyarrow")
    else:
        monkeypatch.setattr(delimited, "_text", delimited._PythonText)
    rng = np.random.default_rng(6)
    edges = rng.choice([1e-4, 1e10, 1e15, 1e16], ROWS) * rng.choice([0.5, 1.0, 1.0 + 2**-52, 9.999], ROWS)
    values = edges * rng.choice([-1.0, 1.0], ROWS)
    frame = pd.DataFrame(
        {"edge": values, "near": np.nextafter(values, np.inf), "whole": np.trunc(values)},
        index=pd.Index([f"r{i}" for i in range(ROWS)], name="spkitemid"),
    )
    assert delimited._formatted_columns(frame, sep, True) is not None
    _same_as_pandas(frame, tmp_path, sep, index=True)
    lone = frame.iloc[:, :0]  # the index alone, as test_other_columns
    assert delimited._formatted_columns(lone, sep, True) is not None
    _same_as_pandas(lone, tmp_path, sep, index=True)
    emptied = frame[["edge"]].reset_index(drop=True).assign(edge=lambda f: f["edge"].where(f.index % 7 > 0))
    assert delimited._formatted_columns(emptied, sep, False) is None  # the csv module quotes "" alone
    _same_as_pandas(emptied, tmp_path, sep, index=False)
    for seed in (0, 1):
        _same_as_pandas(_frame(seed, awkward_text=False), tmp_path, sep, index=True)
    _same_as_pandas(_frame(2, awkward_text=True), tmp_path, sep, index=True)


def test_report_writes_the_per_response_files_as_pandas(tmp_path):
    rng = np.random.default_rng(4)
    human = rng.integers(1, 7, 3 * FAST_MIN_ROWS).astype(float)
    frame = pd.DataFrame(
        {
            "id": [f"r{i}" for i in range(len(human))],
            "sc1": human,
            "raw": human + rng.normal(0, 0.8, len(human)),
            "L1": rng.choice(["A", "B", "C"], len(human)),
        }
    )
    result = report(frame, human="sc1", system="raw", id="id", by="L1", trim_min=1, trim_max=6)
    for file_format, sep in (("csv", ","), ("tsv", "\t")):
        for path in result.write(tmp_path / file_format, prefix="t", file_format=file_format):
            name = path.stem.removeprefix("t_")
            table = result.rsmtool_frames()[name]
            expected = table.to_csv(sep=sep, index=name != "test_excluded_composition")
            assert path.read_text(encoding="utf-8") == expected, name


def _modules_after(code: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\nprint(' '.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(done.stdout.split())


def test_pdmetrics_cli_imports_no_drawing_detection_or_scipy_stats():
    loaded = _modules_after("import pdmetrics.cli")
    heavy = ("matplotlib", "openpyxl", "scipy.stats", "statsmodels", "pdmetrics.plotting.")
    assert not sorted(name for name in loaded if name.startswith(heavy))
    assert not sorted(name for name in loaded if name.startswith("pdmetrics.detection.evaluation"))


def test_rsmeval_run_imports_no_drawing_scipy_stats_or_scipy_special(tmp_path):
    rng = np.random.default_rng(5)
    human = rng.integers(1, 7, 300).astype(float)
    pd.DataFrame(
        {"id": [f"r{i}" for i in range(300)], "sc1": human, "raw": human + rng.normal(0, 0.8, 300)}
        | {"L1": rng.choice(["A", "B"], 300)}
    ).to_csv(tmp_path / "p.csv", index=False)
    config = tmp_path / "c.json"
    config.write_text(
        '{"experiment_id": "t", "predictions_file": "p.csv", "system_score_column": "raw", '
        '"human_score_column": "sc1", "id_column": "id", "subgroups": ["L1"], "trim_min": 1, "trim_max": 6}'
    )
    arguments = ["rsmeval", str(config), str(tmp_path / "out")]
    code = f"from pdmetrics import cli\nassert cli.main({arguments!r}) == 0"
    loaded = _modules_after(code)
    assert (tmp_path / "out" / "report" / "t_report.html").exists()
    assert not sorted(name for name in loaded if name.startswith(("matplotlib", "openpyxl", "scipy.stats")))
    # the fairness p-values come from pdmetrics.fairness.distributions: no scipy.special
    assert "pdmetrics.fairness.distributions" in loaded
    assert not sorted(name for name in loaded if name.startswith("scipy.special"))


def test_lazy_packages_still_give_every_public_name():
    import pdmetrics

    for package in (pdmetrics.detection, pdmetrics.scoring, pdmetrics.fairness):
        assert all(callable(getattr(package, name)) for name in package.__all__)
        assert set(package.__all__) <= set(dir(package))
    assert pdmetrics.plotting.scoring.ScoringPlots.__name__ == "ScoringPlots"
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        pdmetrics.detection.nothing  # noqa: B018
