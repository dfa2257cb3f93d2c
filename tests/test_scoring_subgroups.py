"""Subgroup tables (eval_by / consistency_by) and the report's group handling."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import pdmetrics
from pdmetrics._groups import POOLED_LABEL
from pdmetrics._stats import label_histograms, label_index
from pdmetrics.datasets import simulate_scores
from pdmetrics.errors import InvalidInputError
from pdmetrics.rsmeval import report
from pdmetrics.rsmeval.rsmtool_files import ALL_DATA
from pdmetrics.scoring import consistency_by_group_table, evaluation_by_group_table
from pdmetrics.scoring.subgroups import MISSING_GROUP, subgroup_codes
from pdmetrics.scoring.tables import CONSISTENCY_COLUMNS, EVAL_COLUMNS

RESULT_NAMES = sorted(
    {*EVAL_COLUMNS, *CONSISTENCY_COLUMNS, "DSM", "system", "by", "group", "sc1", "sc2", "raw", POOLED_LABEL}
)


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.PdmetricsWarning)
        return function(*args, **kwargs)


def test_subgroup_codes_missing_values_are_the_last_group_no_info():
    codes, labels = subgroup_codes(pd.Series(["b", None, "a", "b"], name="L1"))
    assert labels.tolist() == ["a", "b", MISSING_GROUP]
    assert codes.tolist() == [1, 2, 0, 1]


def test_subgroup_codes_joins_missing_values_to_an_existing_no_info_group():
    codes, labels = subgroup_codes(pd.Series(["No info", None, "a"], name="L1"))
    assert labels.tolist() == ["No info", "a"]
    assert codes.tolist() == [0, 0, 1]


def test_subgroup_codes_keeps_only_groups_on_the_used_rows():
    codes, labels = subgroup_codes(
        pd.Series(["c", "a", "b", "a"], name="L1"), np.array([True, True, False, True])
    )
    assert labels.tolist() == ["a", "c"]
    assert codes.tolist() == [1, 0, 0]


def test_pooled_label_as_a_group_value_is_refused():
    df = simulate_scores(200, seed=1)
    df.loc[:5, "L1"] = POOLED_LABEL
    with pytest.raises(InvalidInputError, match=r"holds the value '\(all\)'"):
        evaluation_by_group_table(df["sc1"], df["raw"], df["L1"])
    with pytest.raises(InvalidInputError, match=r"holds the value '\(all\)'"):
        df.scoring.report(human="sc1", system="raw", by="L1", trim_min=1, trim_max=6)


def test_report_refuses_rsmtool_all_data_label_as_a_group_value():
    df = simulate_scores(200, seed=1)
    df.loc[:5, "L1"] = ALL_DATA
    with pytest.raises(InvalidInputError, match=r"`by='L1'` holds the value 'All data'"):
        df.scoring.report(human="sc1", system="raw", by="L1", trim_min=1, trim_max=6)
    # the tidy table alone has no "All data" row, so the group is fine there
    table = _quiet(evaluation_by_group_table, df["sc1"], df["raw"], df["L1"])
    assert table["group"].tolist()[:2] == [POOLED_LABEL, ALL_DATA]


def test_pooled_row_is_all_in_tables_and_all_data_in_rsmtool_files():
    df = simulate_scores(500, seed=4)
    result = _quiet(
        df.scoring.report, human="sc1", system="raw", second_human="sc2", by="L1", trim_min=1, trim_max=6
    )
    for name in ("eval_by_L1", "consistency_by_L1", "disattenuated_correlations_by_L1"):
        assert result[name]["group"].iloc[0] == POOLED_LABEL
        assert ALL_DATA in result.rsmtool_frames()[name].index
        assert POOLED_LABEL not in result.rsmtool_frames()[name].index


def test_several_group_columns_in_one_call_equal_one_call_each():
    df = simulate_scores(3000, seed=5)
    df["grade"] = np.where(np.arange(len(df)) % 7 == 0, None, (np.arange(len(df)) % 3 + 8).astype(str))
    together = _quiet(evaluation_by_group_table, df["sc1"], df[["raw", "sc2"]].fillna(3), df[["L1", "grade"]])
    for by in ("L1", "grade"):
        alone = _quiet(evaluation_by_group_table, df["sc1"], df[["raw", "sc2"]].fillna(3), df[by])
        part = together[together["by"] == by].reset_index(drop=True)
        pd.testing.assert_frame_equal(part, alone, rtol=1e-12, check_dtype=False)
    both = _quiet(consistency_by_group_table, df["sc1"], df["sc2"], df[["L1", "grade"]])
    for by in ("L1", "grade"):
        alone = _quiet(consistency_by_group_table, df["sc1"], df["sc2"], df[by])
        part = both[both["by"] == by].reset_index(drop=True)
        pd.testing.assert_frame_equal(part, alone, rtol=1e-12, check_dtype=False)


def test_core_report_equals_the_accessor():
    df = simulate_scores(400, seed=6)
    arguments = dict(human="sc1", system="raw", second_human="sc2", by="L1", trim_min=1, trim_max=6)
    core = _quiet(report, df, **arguments)
    accessor = _quiet(df.scoring.report, **arguments)
    assert list(core) == list(accessor)
    for name in core:
        pd.testing.assert_frame_equal(core[name], accessor[name])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(RESULT_NAMES),
    values=st.lists(st.sampled_from([*RESULT_NAMES, ALL_DATA, MISSING_GROUP, "x"]), min_size=1, max_size=3),
    seed=st.integers(0, 1000),
)
def test_group_names_and_values_never_break_the_subgroup_tables(name, values, seed):
    assume(name not in ("sc1", "sc2", "raw"))  # a group column may not replace a score column
    df = simulate_scores(120, seed=seed)
    rng = np.random.default_rng(seed)
    df[name] = np.asarray(values, dtype=object)[rng.integers(0, len(values), len(df))]
    arguments = dict(human="sc1", system="raw", second_human="sc2", by=name, trim_min=1, trim_max=6)
    refused = POOLED_LABEL if POOLED_LABEL in values else ALL_DATA if ALL_DATA in values else None
    if refused is not None:
        with pytest.raises(InvalidInputError, match=f"holds the value '{re.escape(refused)}'"):
            _quiet(df.scoring.report, **arguments)
    else:
        _check_subgroup_report(_quiet(df.scoring.report, **arguments), df, name)


def _check_subgroup_report(result, df, name):
    table = result[f"eval_by_{name}"]
    assert list(table.columns[:3]) == ["system", "by", "group"]
    assert set(table["by"]) == {name}
    counts = df[name].value_counts()
    for _system, rows in table.groupby("system", sort=False):
        assert rows["group"].tolist() == [POOLED_LABEL, *sorted(counts.index)]
        assert rows["N"].tolist() == [len(df), *counts.sort_index().tolist()]
    consistency = result[f"consistency_by_{name}"]
    assert consistency["group"].tolist() == [POOLED_LABEL, *sorted(counts.index)]
    files = result.rsmtool_frames()[f"eval_by_{name}"]
    assert sorted(files.index) == sorted([ALL_DATA, *counts.index])


@given(
    a=st.lists(st.integers(-50, 50), max_size=30),
    b=st.lists(st.one_of(st.integers(-50, 50), st.integers(-(10**12), 10**12)), max_size=30),
)
def test_label_index_equals_union_and_searchsorted(a, b):
    a, b = np.array(a, dtype=np.int64), np.array(b, dtype=np.int64)
    labels, (ia, ib) = label_index(a, b)
    expected = np.union1d(a, b)
    np.testing.assert_array_equal(labels, expected)
    np.testing.assert_array_equal(ia, np.searchsorted(expected, a))
    np.testing.assert_array_equal(ib, np.searchsorted(expected, b))


@given(
    x=st.lists(st.integers(-3, 8), min_size=1, max_size=40),
    shift=st.integers(-2, 2),
    groups=st.integers(1, 4),
    seed=st.integers(0, 100),
)
def test_label_histograms_count_every_label_pair(x, shift, groups, seed):
    x = np.array(x, dtype=np.int64)
    y = np.random.default_rng(seed).permutation(x) + shift
    codes = np.arange(x.size) % groups
    hist_x, hist_y, agree, labels = label_histograms(x, y, codes, groups)
    assert labels.size == hist_x.shape[1] and (np.diff(labels) > 0).all()
    for g in range(groups):
        rows = codes == g
        np.testing.assert_array_equal(hist_x[g], [(x[rows] == v).sum() for v in labels])
        np.testing.assert_array_equal(hist_y[g], [(y[rows] == v).sum() for v in labels])
        assert agree[g] == (x[rows] == y[rows]).sum()
