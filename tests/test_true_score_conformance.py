"""True-score evaluation against RSMTool 12: experiments, PRMSE benchmark data, unit and edge values."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import CONFORMANCE, assert_close, conformance_path, slow_true_scores, true_score_of

import pdmetrics  # noqa: F401
from pdmetrics.errors import UndefinedMetricWarning
from pdmetrics.scoring import (
    mse_true,
    prmse_true,
    true_score,
    true_score_variance,
    variance_of_errors,
)

EXPERIMENTS = CONFORMANCE / "rsmtool" / "tests" / "data" / "experiments"
CASES = sorted(EXPERIMENTS.glob("*/output/*_true_score_eval.csv")) if EXPERIMENTS.exists() else []
SCORE_TYPES = ["raw", "raw_trim", "raw_trim_round", "scale", "scale_trim", "scale_trim_round"]


def _config(experiment_dir):
    (config_file,) = experiment_dir.glob("*.json")
    return json.loads(config_file.read_text())


@pytest.mark.skipif(not CASES, reason="conformance data not available")
@pytest.mark.parametrize("expected_file", CASES, ids=[p.parts[-3] for p in CASES])
def test_experiment_true_score_eval(expected_file):
    prefix = expected_file.name[: -len("_true_score_eval.csv")]
    output = expected_file.parent
    config = _config(output.parent)
    frame = pd.read_csv(output / f"{prefix}_pred_processed.csv")
    human_file = output / f"{prefix}_test_human_scores.csv"
    raters = ["sc1"]
    if human_file.exists():
        humans = pd.read_csv(human_file)
        frame = frame.drop(columns="sc1").merge(humans, on="spkitemid")
        raters = ["sc1", "sc2"]
    systems = [c for c in SCORE_TYPES if c in frame.columns]
    before = frame.copy()
    table = frame.scoring.true_score(
        system=systems,
        raters=raters,
        rater_error_variance=config.get("rater_error_variance"),
        exclude_zero=config.get("exclude_zero_scores", True),
    )
    pd.testing.assert_frame_equal(frame, before)
    expected = pd.read_csv(expected_file, index_col=0)
    actual = table.set_index("system").loc[expected.index]
    assert list(actual.columns) == list(expected.columns)
    assert_close(actual, expected, what=expected_file.name)


UNIT = ("rsmtool", "unit", "rsmtool_unit_expected_values.json")
EDGE = ("rsmtool", "unit", "rsmtool_edge_cases_generated.json")


def _cases(parts):
    return json.loads(conformance_path(*parts).read_text())["cases"]


@pytest.mark.parametrize("name", ["prmse_data.csv", "prmse_data_sparse_matrix.csv"])
def test_prmse_benchmark_data(name):
    data = pd.read_csv(conformance_path("rsmtool", "tests", "data", "files", name))
    (case,) = [c for c in _cases(UNIT) if c.get("input_file", "").endswith("/" + name)]
    expected = case["expected"]
    ratings = data[case["human_columns"]]
    table = true_score(data, system="system", raters=case["human_columns"], exclude_zero=False)
    row = table.iloc[0]
    for column in ("N", "N raters", "N single", "N multiple"):
        assert row[column] == expected[column]
    for column in ("Variance of errors", "True score var", "MSE true", "PRMSE true"):
        assert round(row[column], 7) == pytest.approx(expected[column], abs=1e-7), column
    # the published values have 7 decimals: check at 1e-9 against the reference formulas too
    reference = slow_true_scores(data["system"].to_numpy(), ratings.to_numpy())
    assert_close(
        [
            variance_of_errors(ratings),
            true_score_variance(ratings),
            mse_true(data["system"], ratings),
            prmse_true(data["system"], ratings),
        ],
        reference,
    )


def test_unit_values():
    for case in _cases(UNIT):
        args = case.get("args", {})
        if case["function"] == "prmse_true":
            assert_close(
                prmse_true(
                    args["system"], args["human_scores"], variance_errors=args["variance_errors_human"]
                ),
                case["expected"],
            )
        elif case["function"] == "get_n_human_scores":
            table = true_score_of(
                [0.0] * 4, pd.DataFrame(args["human_scores"]), rater_error_variance=0.5, exclude_zero=False
            )
            counts = case["expected"]
            assert table["N raters"].iat[0] == max(counts)
            assert table["N single"].iat[0] == counts.count(1)
        elif case["function"] == "variance_of_errors / prmse_true":
            ratings = np.column_stack([args["sc1"], args["sc2"]]).astype(float)
            with pytest.warns(UndefinedMetricWarning, match="variance_errors"):
                assert np.isnan(variance_of_errors(ratings))
            with pytest.warns(UndefinedMetricWarning, match="variance_errors"):
                assert np.isnan(prmse_true(args["system"], ratings))


def _edge_ratings(values):
    return np.array(
        [[np.nan if v is None else v for v in (row if isinstance(row, list) else [row])] for row in values],
        dtype=float,
    )


def test_edge_cases():
    functions = {"variance_of_errors": variance_of_errors, "true_score_variance": true_score_variance}
    checked = 0
    for case in _cases(EDGE):
        name, args, result = case["function"], case["args"], case["result"]
        if "human_scores" not in args:
            continue
        ratings = _edge_ratings(args["human_scores"])
        system = (
            None
            if "system" not in args
            else np.array([np.nan if v is None else v for v in args["system"]], dtype=float)
        )
        variance = args.get("variance_errors_human")
        expected_nan = result in (None, "NaN")
        if name in functions:
            value = functions[name](ratings)
        elif name == "mse_true":
            value = mse_true(system, ratings)
        elif name.startswith("prmse_true"):
            if expected_nan:
                with pytest.warns(UndefinedMetricWarning, match="PRMSE|rater error variance"):
                    value = prmse_true(system, ratings, variance_errors=variance)
            else:
                value = prmse_true(system, ratings, variance_errors=variance)
        else:
            continue
        checked += 1
        if expected_nan:
            assert np.isnan(value), name
        else:
            assert_close(value, result, what=name)
    assert checked == 9
