"""Score fairness against RSMTool 12: the experiments' fairness files and the unit values."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import CONFORMANCE, assert_close, conformance_path

from pdmetrics.fairness import rsmtool_fairness_tables, score_fairness_tables

EXPERIMENTS = CONFORMANCE / "rsmtool" / "tests" / "data" / "experiments"
CASES = sorted(EXPERIMENTS.glob("*/output/*_fairness_metrics_by_*.csv")) if EXPERIMENTS.exists() else []


def _case_id(path) -> str:
    return f"{path.parts[-3]}:{path.name.split('_fairness_metrics_by_')[1][:-4]}"


def _experiment_inputs(metrics_file):
    prefix, group = metrics_file.name[:-4].split("_fairness_metrics_by_")
    output = metrics_file.parent
    predictions = pd.read_csv(output / f"{prefix}_pred_processed.csv")
    metadata = pd.read_csv(output / f"{prefix}_test_metadata.csv", keep_default_na=False)
    frame = predictions.merge(metadata, on="spkitemid")
    system = "scale_trim" if "scale_trim" in frame.columns else "raw_trim"
    return frame, system, group, output, prefix


@pytest.mark.skipif(not CASES, reason="conformance data not available")
@pytest.mark.parametrize("metrics_file", CASES, ids=[_case_id(p) for p in CASES])
def test_experiment_fairness_files(metrics_file):
    frame, system, group, output, prefix = _experiment_inputs(metrics_file)
    metrics, estimates = score_fairness_tables(frame, human="sc1", system=system, by=group)
    tables = rsmtool_fairness_tables(metrics, estimates, group)
    expected = pd.read_csv(metrics_file, index_col=0)
    actual = tables[f"fairness_metrics_by_{group}"]
    assert list(actual.index) == list(expected.index)
    assert list(actual.columns) == list(expected.columns)
    assert list(actual["base_category"]) == list(expected["base_category"].astype(str))
    numeric = ["Overall score accuracy", "Overall score difference", "Conditional score difference"]
    assert_close(actual[numeric], expected[numeric], what=metrics_file.name)
    for model in ("osa", "osd", "csd"):
        name = f"estimates_{model}_by_{group}"
        expected = pd.read_csv(output / f"{prefix}_{name}.csv", index_col=0)
        actual = tables[name]
        # rows in RSMTool 12's order (reference, then by size, ties alphabetically); some stored
        # files were written by an older RSMTool in another order: compare aligned on the label
        expected.index = [str(v) for v in expected.index]
        assert actual.index[0] == expected.index[0]
        assert sorted(actual.index) == sorted(expected.index)
        assert list(actual.columns) == list(expected.columns)
        assert_close(actual, expected.loc[actual.index], what=name)


def _unit_cases(path_parts, function):
    data = json.loads(conformance_path(*path_parts).read_text())
    return [case for case in data["cases"] if case["function"] == function]


def test_edge_case_dotted_group_label():
    (case,) = _unit_cases(("rsmtool", "unit", "rsmtool_edge_cases_generated.json"), "get_fairness_analyses")
    df = pd.DataFrame(case["args"]["df"])
    metrics, estimates = score_fairness_tables(df, human="sc1", system="raw", by="grp")
    tables = rsmtool_fairness_tables(metrics, estimates, "grp")
    for name, expected in case["result"].items():
        if name.startswith("_"):
            continue
        actual = tables[name]
        assert list(actual.index) == expected["index"]
        for column, values in expected.items():
            if column == "index":
                continue
            if column == "base_category":
                assert list(actual[column]) == values
            else:
                assert_close(actual[column], values, what=f"{name}:{column}")
    # the full label survives in the tidy table
    assert estimates["group"].tolist()[:3] == ["big", "x.y", "z"]
    assert_close(metrics["R2_unadjusted"].iat[0], case["result"]["_plain_R2_osa"])


UNIT = ("rsmtool", "unit", "rsmtool_unit_expected_values.json")


def _approx_zero(value):
    return round(float(value), 4) == 0


def test_unit_fairness_values():
    cases = _unit_cases(UNIT, "get_fairness_analyses")
    assert len(cases) == 6
    for case in cases:
        df = pd.DataFrame(case["args"]["df"])
        metrics, estimates = score_fairness_tables(
            df, human="sc1", system="raw", by="L1", base_group=case["args"].get("base_group")
        )
        sig = dict(zip(metrics["metric"], metrics["sig"]))
        expected = case["expected"]
        for metric, value in expected.get("sig", {}).items():
            if value == 1:
                assert_close(sig[metric], 1.0)
            elif value == ">0.5":
                assert sig[metric] > 0.5
            else:
                assert _approx_zero(sig[metric]), (metric, sig[metric])
        for key, values in expected.items():
            if key.startswith("estimates_"):
                model = key.split("_")[1]
                part = estimates[estimates["model"] == model]
                assert_close(part["estimate"], list(values.values()))
                assert part["rsmtool_label"].tolist() == list(values)
        if "base_category" in expected:
            assert metrics["base_category"].iat[0] == expected["base_category"]
            assert estimates["rsmtool_label"].iat[0] == expected["first_estimates_row"]


def test_unit_category_order():
    (case,) = _unit_cases(UNIT, "convert_to_ordered_category")
    from pdmetrics.errors import InvalidInputError, UndefinedMetricWarning

    for sub in case["cases"]:
        values = sub["values"]
        human = np.tile([1.0, 2.0, 3.0], 3)[: len(values)]
        frame = pd.DataFrame(
            {"human": human, "system": human + 0.5, "group": pd.Series(values, dtype=object)}
        )
        columns = dict(human="human", system="system", by="group")
        if sub.get("expected") == "ValueError":
            with pytest.raises(InvalidInputError, match="base_group"):
                score_fairness_tables(frame, **columns, base_group=sub["base_group"])
            continue
        with warnings.catch_warnings():  # tiny groups: some statistics are undefined, not our concern here
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            metrics, _ = score_fairness_tables(frame, **columns, base_group=sub.get("base_group"))
        assert metrics["base_category"].iat[0] == sub["expected_first_category"]
