"""Shared test fixtures: the conformance folder and small helpers."""

from __future__ import annotations

import contextlib
import copy
import io
import os
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
CONFORMANCE = ROOT.parent / "shared" / "conformance"


def running_in_ci() -> bool:
    """True when the environment variable ``CI`` is ``true`` or ``1`` (as CI services set it)."""
    return os.environ.get("CI", "").strip().lower() in {"true", "1"}


def _missing_in_ci(path: Path) -> str:
    return (
        f"conformance data missing in CI (CI={os.environ.get('CI')}): {path} does not exist. The "
        f"conformance suites (reference inputs and answers from RSMTool, pycocotools, valor and "
        f"AIF360/fai3) live in the `shared/conformance` folder beside the project checkout "
        f"({CONFORMANCE}); CI must provide it. Unset CI to skip these tests instead."
    )


def conformance_path(*parts: str) -> Path:
    """Path inside ``../shared/conformance``; skips the test when it is absent (a user's clone)
    and fails it in CI, where the data must be present."""
    path = CONFORMANCE.joinpath(*parts)
    if not path.exists():
        if running_in_ci():
            pytest.fail(_missing_in_ci(path))
        pytest.skip(f"conformance data not available: {path}")
    return path


def require_conformance_in_ci() -> None:
    """Fail when running in CI without the conformance folder (tests that decide to skip at
    collection time, from an empty list of cases, would otherwise pass by skipping)."""
    if running_in_ci() and not CONFORMANCE.is_dir():
        pytest.fail(_missing_in_ci(CONFORMANCE))


def pytest_sessionstart(session) -> None:
    try:
        require_conformance_in_ci()
    except pytest.fail.Exception as error:
        raise pytest.UsageError(str(error)) from None


def assert_close(actual, expected, rtol: float = 1e-9, atol: float = 1e-12, what: str = "") -> None:
    """Compare numbers/arrays at the project's conformance tolerance (NaN equals NaN)."""
    np.testing.assert_allclose(
        np.asarray(actual, dtype=float),
        np.asarray(expected, dtype=float),
        rtol=rtol,
        atol=atol,
        equal_nan=True,
        err_msg=what,
    )


def assert_frame_unchanged(before: pd.DataFrame, after: pd.DataFrame) -> None:
    """The caller's frame must be exactly as it was (values, dtypes, columns, index)."""
    pd.testing.assert_frame_equal(before, after, check_exact=True)


def slow_true_scores(system, ratings, variance=None):
    """RSMTool's multi-rater true-score formulas written plainly with numpy's NaN-aware
    reductions: a slow, obviously correct reference. Returns (variance of errors, true score
    variance, MSE true, PRMSE true)."""
    ratings = np.asarray(ratings, dtype=float)
    counts = (~np.isnan(ratings)).sum(axis=1)
    multiple = counts > 1
    if variance is None:
        variance = np.average(np.nanvar(ratings[multiple], ddof=1, axis=1), weights=counts[multiple] - 1)
    means = np.nanmean(ratings, axis=1)
    total = counts.sum()
    true_var = ((counts * (means - np.nanmean(ratings)) ** 2).sum() - (len(ratings) - 1) * variance) / (
        total - (counts**2).sum() / total
    )
    mse = ((counts * (means - system) ** 2).sum() - len(system) * variance) / total
    with np.errstate(divide="ignore", invalid="ignore"):  # zero true-score variance: inf/NaN
        return variance, true_var, mse, 1 - mse / true_var


def true_score_of(system, ratings, **options) -> pd.DataFrame:
    """``pdmetrics.scoring.true_score`` of score columns and rating columns given as arrays,
    mappings or frames (put into one frame: the system columns by their names, or ``system``;
    the raters ``r0, r1, ...`` unless named)."""
    from pdmetrics.scoring import true_score

    systems = pd.DataFrame(system if isinstance(system, (dict, pd.DataFrame)) else {"system": system})
    if isinstance(ratings, pd.DataFrame):
        raters = ratings.reset_index(drop=True)
    else:
        matrix = np.array(ratings, dtype=float)
        matrix = matrix.reshape(len(matrix), -1)
        raters = pd.DataFrame({f"r{j}": matrix[:, j] for j in range(matrix.shape[1])})
    frame = pd.concat([systems.reset_index(drop=True), raters], axis=1)
    return true_score(frame, system=list(systems.columns), raters=list(raters.columns), **options)


@pytest.fixture(autouse=True)
def close_figures():
    """Close every matplotlib figure a test drew (without importing matplotlib for the others)."""
    yield
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


def pycocotools_evaluator(dataset: dict, results: list, iou_type: str, area_ranges=None, sigmas=None):
    """pycocotools' ``COCOeval`` of the files, evaluated and accumulated (``sigmas``: its
    ``kpt_oks_sigmas``), and summarized when ``area_ranges`` are its own."""
    coco = pytest.importorskip("pycocotools.coco")
    cocoeval = pytest.importorskip("pycocotools.cocoeval")
    with contextlib.redirect_stdout(io.StringIO()):
        gt = coco.COCO()
        gt.dataset = copy.deepcopy(dataset)
        gt.createIndex()
        evaluator = cocoeval.COCOeval(gt, gt.loadRes(copy.deepcopy(results)), iou_type)
        if area_ranges is not None:
            evaluator.params.areaRng = [list(bounds) for bounds in area_ranges.values()]
            evaluator.params.areaRngLbl = list(area_ranges)
        if sigmas is not None:
            evaluator.params.kpt_oks_sigmas = np.asarray(sigmas, dtype="float64")
        evaluator.evaluate()
        evaluator.accumulate()
        if area_ranges is None:
            evaluator.summarize()
    return evaluator


def pycocotools_stats(dataset: dict, results: list, area_ranges=None, iou_type: str = "bbox") -> np.ndarray:
    """pycocotools' 12 numbers (``summarize``), or the same read-out on other area ranges."""
    evaluator = pycocotools_evaluator(dataset, results, iou_type, area_ranges)
    if area_ranges is None:
        return evaluator.stats
    precision, recall = evaluator.eval["precision"], evaluator.eval["recall"]

    def mean(values):
        values = values[values > -1]
        return float(np.mean(values)) if values.size else -1.0

    iou, others = evaluator.params.iouThrs, range(1, len(area_ranges))
    stats = [mean(precision[:, :, :, 0, -1])]
    stats += [mean(precision[iou == t][:, :, :, 0, -1]) for t in (0.5, 0.75)]
    stats += [mean(precision[:, :, :, a, -1]) for a in others]
    stats += [mean(recall[:, :, 0, m]) for m in range(3)]
    stats += [mean(recall[:, :, a, -1]) for a in others]
    return np.array(stats)


def quiet(function, *args, **kwargs):
    """``function(*args, **kwargs)`` with every warning silenced (the tests that use it check errors)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def objects_kept():
    """dask keeps an object column as objects (by default it turns it into strings)."""
    import dask

    return dask.config.set({"dataframe.convert-string": False, "scheduler": "sync"})
