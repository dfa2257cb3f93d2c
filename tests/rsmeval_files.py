"""Compare an output directory (or a report) with rsmeval's files, file by file.

A plain module for the tests (``from rsmeval_files import compare_output_dir``): the
report tests and the ``pdmetrics rsmeval`` tests compare their files with RSMTool's
conformance fixtures through it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

RTOL = 1e-9
ATOL = 1e-12


def read_table(path) -> pd.DataFrame:
    """A CSV as rsmeval wrote it: every column (an index column too) as read, blank names kept."""
    frame = pd.read_csv(path)
    return frame.rename(columns=lambda c: "" if str(c).startswith("Unnamed: ") else c)


def _key(frame: pd.DataFrame):
    """Rows in a comparable order: by the first column when it labels the rows uniquely."""
    if frame.shape[1] and frame.iloc[:, 0].astype(str).is_unique:
        return frame.iloc[np.argsort(frame.iloc[:, 0].astype(str).to_numpy(), kind="stable")].reset_index(
            drop=True
        )
    return frame.reset_index(drop=True)


def compare_file(expected_path, actual_path, *, check_order: bool = False) -> None:
    """Assert two rsmeval files hold the same table (rows sorted by their label; floats at 1e-9).

    Column names must be equal as sets (in the same order with ``check_order``: the fixtures
    of older RSMTool versions list some columns alphabetically); strings compare exactly.
    """
    expected, actual = read_table(expected_path), read_table(actual_path)
    name = Path(expected_path).name
    if check_order:
        assert list(actual.columns) == list(expected.columns), name
    assert sorted(map(str, actual.columns)) == sorted(map(str, expected.columns)), (
        f"{name}: columns {list(actual.columns)} != {list(expected.columns)}"
    )
    assert actual.shape == expected.shape, f"{name}: shape {actual.shape} != {expected.shape}"
    first = expected.columns[0] if len(expected.columns) else None
    if first is not None:
        actual = actual[[first, *[c for c in expected.columns if c != first]]]
    expected, actual = _key(expected), _key(actual[list(expected.columns)])
    for column in expected.columns:
        want, got = expected[column], actual[column]
        numeric = pd.api.types.is_numeric_dtype
        if numeric(want) and numeric(got):
            np.testing.assert_allclose(
                got.to_numpy(float), want.to_numpy(float), rtol=RTOL, atol=ATOL, err_msg=f"{name}: {column}"
            )
        else:
            assert list(got.astype(str)) == list(want.astype(str)), f"{name}: {column}"


def compare_output_dir(expected_dir, actual, experiment_id: str, *, skip=(), check_order=False) -> list[str]:
    """Compare every ``<experiment_id>_*.csv`` of ``expected_dir`` with the same file of ``actual``.

    ``actual`` is a directory of files or a report (anything with ``to_csv(directory,
    prefix=)``), written to a temporary directory first. File names (without the prefix)
    starting with an entry of ``skip`` are not compared. Returns the names compared.
    """
    expected_dir = Path(expected_dir)
    with tempfile.TemporaryDirectory() as scratch:
        if hasattr(actual, "to_csv") and not isinstance(actual, (str, Path)):
            actual.to_csv(scratch, prefix=experiment_id)
            actual = scratch
        actual = Path(actual)
        compared = []
        for path in sorted(expected_dir.glob(f"{experiment_id}_*.csv")):
            name = path.name[len(experiment_id) + 1 : -len(".csv")]
            if any(name.startswith(s) for s in skip):
                continue
            assert (actual / path.name).exists(), f"{path.name} was not written"
            compare_file(path, actual / path.name, check_order=check_order)
            compared.append(name)
    return compared
