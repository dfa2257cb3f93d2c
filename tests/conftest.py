"""Shared test fixtures: the conformance folder and small helpers."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
CONFORMANCE = ROOT.parent / "shared" / "conformance"


def conformance_path(*parts: str) -> Path:
    """Path inside ``../shared/conformance``; skips the test when it is absent."""
    path = CONFORMANCE.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"conformance data not available: {path}")
    return path


def assert_close(actual, expected, rtol: float = 1e-9, atol: float = 1e-12, what: str = "") -> None:
    """Compare numbers/arrays at the project's conformance tolerance (NaN equals NaN)."""
    np.testing.assert_allclose(np.asarray(actual, dtype=float), np.asarray(expected, dtype=float),
                               rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


def assert_frame_unchanged(before: pd.DataFrame, after: pd.DataFrame) -> None:
    """The caller's frame must be exactly as it was (values, dtypes, columns, index)."""
    pd.testing.assert_frame_equal(before, after, check_exact=True)
