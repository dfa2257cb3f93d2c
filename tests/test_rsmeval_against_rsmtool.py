"""``pdmetrics rsmeval`` against the files the real rsmeval 12.0.0 wrote for generated
configurations (tests/data/rsmeval12, see its README): every file, in order, at 1e-9."""

from __future__ import annotations

from pathlib import Path

import pytest
from rsmeval_files import compare_file

from pdmetrics.cli import main

DATA = Path(__file__).parent / "data" / "rsmeval12"
NAMES = sorted(p.name for p in (DATA / "expected").iterdir())


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Every configuration run once in-process; returns name -> its output folder."""
    root = tmp_path_factory.mktemp("rsmeval12")
    for name in NAMES:
        assert main(["rsmeval", str(DATA / "configs" / f"{name}.json"), str(root / name)]) == 0
    return lambda name: root / name / "output"


@pytest.mark.parametrize("name", NAMES)
def test_same_files_as_rsmeval(runs, name):
    expected = sorted(p.name for p in (DATA / "expected" / name).iterdir())
    assert sorted(p.name for p in runs(name).iterdir()) == expected


@pytest.mark.parametrize(
    ("name", "file"),
    [(n, p.name) for n in NAMES for p in sorted((DATA / "expected" / n).glob("*.csv"))],
)
def test_every_table_as_rsmeval(runs, name, file):
    compare_file(DATA / "expected" / name / file, runs(name) / file, check_order=True)


@pytest.mark.parametrize("name", NAMES)
def test_saved_configuration_text_as_rsmeval(runs, name):
    file = f"{name}_rsmeval.json"
    assert (runs(name) / file).read_text() == (DATA / "expected" / name / file).read_text()
