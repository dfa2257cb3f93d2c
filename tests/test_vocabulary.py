"""One vocabulary: every public function and accessor method spells an option one way.

Groups are ``by=``; resampling is ``n_resamples=``, ``confidence=``, ``random_state=``;
undefined values are ``zero_division=``; the choice of output table is ``table=``. The old
names are gone (no aliases): passing one is refused naming the new one.
"""

from __future__ import annotations

import importlib
import inspect

import numpy as np
import pandas as pd
import pytest
from surface import bound_methods

import pdmetrics  # noqa: F401  (registers the accessors)

#: Old option names and the name that replaced them.
RETIRED = {
    "sensitive": "by",
    "groups": "by",
    "n_boot": "n_resamples",
    "n_samples": "n_resamples",
    "seed": "random_state",
    "on_undefined": "zero_division",
    "kind": "table",
}
TRIO = {"n_resamples", "confidence", "random_state"}
DOMAINS = ("scoring", "fairness", "detection", "textgen")


def _public_methods(accessor) -> list:
    return [
        (name, member)
        for name, member in inspect.getmembers(accessor, inspect.isfunction)
        if not name.startswith("_")
    ]


def _core_functions() -> list:
    found = []
    for domain in DOMAINS:
        module = importlib.import_module(f"pdmetrics.{domain}")
        for name in module.__all__:
            member = getattr(module, name)
            if inspect.isfunction(member):
                found.append((f"{domain}.{name}", member))
            elif inspect.isclass(member):
                found.extend(
                    (f"{domain}.{name}.{method}", function) for method, function in _public_methods(member)
                )
    return found


def _signatures(engine: str) -> list:
    return bound_methods(engine)


@pytest.mark.parametrize("engine", ["pandas", "dask", "polars", "core"])
def test_no_retired_option_names(engine):
    functions = _core_functions() if engine == "core" else _signatures(engine)
    assert len(functions) > 40
    offenders = [
        f"{where}({name}=): use {RETIRED[name]}="
        for where, function in functions
        for name in inspect.signature(function).parameters
        if name in RETIRED
    ]
    assert offenders == []


@pytest.mark.parametrize("engine", ["pandas", "dask", "polars", "core"])
def test_resampling_takes_the_whole_trio(engine):
    functions = _core_functions() if engine == "core" else _signatures(engine)
    resampling = {  # bootstrap_counts only draws the replicates: no interval, no confidence
        where: set(inspect.signature(function).parameters)
        for where, function in functions
        if "n_resamples" in inspect.signature(function).parameters and not where.endswith("bootstrap_counts")
    }
    assert engine == "dask" or any("paired_bootstrap" in where for where in resampling)
    assert any("by_group" in where for where in resampling)
    missing = {where: sorted(TRIO - names) for where, names in resampling.items() if TRIO - names}
    assert missing == {}


def test_the_simulators_keep_seed():
    from pdmetrics import datasets

    assert "seed" in inspect.signature(datasets.simulate_scores).parameters


_LABELS = pd.DataFrame({"y": [1, 0, 1, 1, 0, 0], "pred": [1, 0, 1, 0, 1, 1], "male": [1, 1, 1, 0, 0, 0]})


@pytest.mark.parametrize(
    ("call", "old", "new"),
    [
        (lambda **kw: _LABELS.fairness.by_group(y_true="y", y_pred="pred", **kw), "sensitive", "by"),
        (
            lambda **kw: _LABELS.fairness.classification(y_true="y", y_pred="pred", **kw),
            "sensitive",
            "by",
        ),
        (
            lambda **kw: _LABELS.fairness.by_group(y_true="y", y_pred="pred", by="male", **kw),
            "n_boot",
            "n_resamples",
        ),
        (
            lambda **kw: _LABELS.fairness.classification(y_true="y", y_pred="pred", by="male", **kw),
            "on_undefined",
            "zero_division",
        ),
    ],
)
def test_a_retired_name_is_refused_naming_the_new_one(call, old, new):
    with pytest.raises(TypeError, match=rf"`{old}=` is now `{new}=`"):
        call(**{old: "male" if old == "sensitive" else 10})


def test_fairness_classification_groups_are_by():
    table = _LABELS.fairness.classification(y_true="y", y_pred="pred", by="male")
    assert table.columns[0] == "by"
    assert table["by"].tolist() == ["male", "(all)"]
    assert table["statistical_parity_difference"].iloc[0] == pytest.approx(0.0)


def test_bootstrap_intervals_follow_n_resamples():
    table = _LABELS.fairness.by_group(
        y_true="y", y_pred="pred", by="male", n_resamples=50, confidence=0.9, random_state=1
    )
    again = _LABELS.fairness.by_group(
        y_true="y", y_pred="pred", by="male", n_resamples=50, confidence=0.9, random_state=1
    )
    assert "selection_rate_low" in table.columns
    pd.testing.assert_frame_equal(table, again)
    assert table.attrs["pdmetrics"]["n_resamples"] == 50


def _no_positives_in_a_group() -> pd.DataFrame:
    # the unprivileged group (male=0) has no actual positive: its TPR is undefined
    return pd.DataFrame({"y": [1, 0, 1, 0, 0, 0], "pred": [1, 0, 1, 0, 1, 0], "male": [1, 1, 1, 0, 0, 0]})


def test_undefined_fairness_follows_zero_division():
    df = _no_positives_in_a_group()
    with pytest.warns(pdmetrics.UndefinedMetricWarning, match="zero_division='worst'"):
        worst = df.fairness.classification(y_true="y", y_pred="pred", by="male")
    assert worst["equal_opportunity_difference"].iloc[0] == 1.0
    with pytest.warns(pdmetrics.UndefinedMetricWarning, match="zero_division='warn'"):
        warned = df.fairness.classification(y_true="y", y_pred="pred", by="male", zero_division="warn")
    assert np.isnan(warned["equal_opportunity_difference"].iloc[0])
    number = df.fairness.classification(y_true="y", y_pred="pred", by="male", zero_division=0.5)
    assert number["equal_opportunity_difference"].iloc[0] == 0.5
    assert number.attrs["pdmetrics"]["zero_division"] == 0.5


def test_detection_confusion_table_switch():
    box = {"x": [0], "y": [0], "w": [10], "h": [10]}
    dt = pd.DataFrame({"image": [1], "label": ["cat"], **box, "score": [0.9]})
    gt = pd.DataFrame({"image": [1], "label": ["dog"], **box})
    matrix = dt.detection.confusion(ground_truth=gt, table="matrix")
    assert list(matrix.columns) == ["score_threshold", "truth", "prediction", "count"]
    pair = matrix.dropna()
    assert pair.loc[(pair["truth"] == "dog") & (pair["prediction"] == "cat"), "count"].tolist() == [1]
    with pytest.raises(TypeError, match=r"`kind=` is now `table=`"):
        dt.detection.confusion(ground_truth=gt, kind="matrix")


SCORING_UNDEFINED = [  # (function, arguments that make it undefined)
    ("agreement", ([], [])),
    ("exact_agreement", ([], [])),
    ("adjacent_agreement", ([], [])),
    ("cohen_kappa", ([], [])),
    ("quadratic_weighted_kappa", ([2, 2], [2, 2])),
    ("pearson_r", ([1, 2, 3], [2, 2, 2])),
    ("standardized_mean_difference", ([3, 3, 3], [1, 2, 3])),
    ("mean_squared_error", ([], [])),
    ("root_mean_squared_error", ([], [])),
    ("r2_score", ([3], [2])),
]


@pytest.mark.parametrize(("name", "arguments"), SCORING_UNDEFINED)
def test_scoring_scalars_follow_zero_division(name, arguments):
    from pdmetrics import scoring

    function = getattr(scoring, name)
    with pytest.warns(pdmetrics.UndefinedMetricWarning, match=r"zero_division="):
        assert np.isnan(function(*arguments))
    assert function(*arguments, zero_division=0) == 0.0  # silently (warnings are errors here)
    with pytest.raises(pdmetrics.InvalidInputError, match="zero_division"):
        function(*arguments, zero_division="zero")


def test_dsm_follows_zero_division():
    from pdmetrics.scoring import difference_of_standardized_means

    population = {"population_human_mean": 3, "population_system_mean": 3}
    zero_sd = {"population_human_sd": 0.0, "population_system_sd": 1.0}
    with pytest.warns(pdmetrics.UndefinedMetricWarning, match=r"zero_division="):
        assert np.isnan(difference_of_standardized_means([1, 2], [2, 3], **population, **zero_sd))
    assert difference_of_standardized_means([1, 2], [2, 3], **population, **zero_sd, zero_division=0) == 0.0


def test_scoring_table_warnings_say_what_to_do():
    df = pd.DataFrame({"h": [1, 2, 3, 4], "s": [2, 2, 2, 2]})
    with pytest.warns(pdmetrics.UndefinedMetricWarning, match=r"constant scores.*stay NaN.*fillna"):
        table = df.scoring.evaluate(human="h", system="s")
    assert np.isnan(table.loc[0, "corr"])


def test_disparate_impact_zero_over_zero_follows_a_number():
    df = pd.DataFrame({"y": [1, 0, 1, 0], "pred": [0, 0, 0, 0], "male": [1, 1, 0, 0]})
    with (
        pytest.warns(pdmetrics.UndefinedMetricWarning, match=r"precision.*zero_division="),
        pytest.warns(pdmetrics.UndefinedMetricWarning, match=r"Disparate impact.*zero_division="),
    ):
        warned = df.fairness.classification(y_true="y", y_pred="pred", by="male", zero_division="warn")
    assert np.isnan(warned["disparate_impact"].iloc[0])
    number = df.fairness.classification(y_true="y", y_pred="pred", by="male", zero_division=1.0)
    assert number["disparate_impact"].iloc[0] == 1.0
    assert number["statistical_parity_difference"].iloc[0] == 0.0


def test_scoring_group_tables_take_by():
    from pdmetrics.scoring import consistency_by_group_table, evaluation_by_group_table

    df = pd.DataFrame(
        {
            "sc1": [1, 2, 3, 4, 3, 2],
            "sc2": [1, 2, 4, 4, 3, 3],
            "raw": [1.2, 2.1, 2.9, 4.2, 2.5, 2.4],
            "L1": list("aaabbb"),
        }
    )
    table = evaluation_by_group_table(df["sc1"], df["raw"], by=df["L1"])
    assert table["group"].tolist() == ["(all)", "a", "b"] and table["N"].tolist() == [6, 3, 3]
    table = consistency_by_group_table(df["sc1"], df["sc2"], by=df["L1"])
    assert table["exact_agr"].tolist() == pytest.approx([200 / 3] * 3)
    with pytest.raises(TypeError, match=r"`groups=` is now `by=`"):
        evaluation_by_group_table(df["sc1"], df["raw"], groups=df["L1"])


def test_polars_refuses_a_retired_name_naming_the_new_one():
    pl = pytest.importorskip("polars")
    frame = pl.from_pandas(_LABELS)
    table = frame.fairness.classification(y_true="y", y_pred="pred", by="male")
    assert table["by"].to_list() == ["male", "(all)"]
    with pytest.raises(TypeError, match=r"`sensitive=` is now `by=`"):
        frame.fairness.classification(y_true="y", y_pred="pred", sensitive="male")
