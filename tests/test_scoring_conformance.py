"""Conformance with RSMTool 12: unit values, edge cases and every experiment's tables."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import assert_close, conformance_path
from rsmeval_files import RSMEVAL_EXPERIMENTS

import pdmetrics  # noqa: F401
from pdmetrics import scoring
from pdmetrics.errors import InvalidInputError

RSMTOOL = ("rsmtool",)


def _cases(filename):
    path = conformance_path(*RSMTOOL, "unit", filename)
    return json.loads(path.read_text())["cases"]


def _expected(value):
    return np.nan if value in ("NaN", None) else value


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.PdmetricsWarning)
        return function(*args, **kwargs)


# --------------------------------------------------------------------------------------
# unit values transcribed from RSMTool's own tests
# --------------------------------------------------------------------------------------
SMD_ARGS = {
    "y_true_observed": "human",
    "y_pred": "system",
    "population_y_true_observed_sd": "population_human_sd",
    "population_y_pred_sd": "population_system_sd",
    "method": "method",
    "ddof": "ddof",
}
DSM_ARGS = {
    "y_true_observed": "human",
    "y_pred": "system",
    "population_y_true_observed_mn": "population_human_mean",
    "population_y_pred_mn": "population_system_mean",
    "population_y_true_observed_sd": "population_human_sd",
    "population_y_pred_sd": "population_system_sd",
    "pop_h_mn": "population_human_mean",
    "pop_s_mn": "population_system_mean",
    "pop_h_sd": "population_human_sd",
    "pop_s_sd": "population_system_sd",
}


def _unit_cases(function):
    return [c for c in _cases("rsmtool_unit_expected_values.json") if c["function"] == function]


@pytest.mark.parametrize("index", range(6))
def test_unit_standardized_mean_difference(index):
    cases = _unit_cases("standardized_mean_difference")
    case = cases[index]
    kwargs = {SMD_ARGS[k]: v for k, v in case["args"].items()}
    assert_close(_quiet(scoring.standardized_mean_difference, **kwargs), _expected(case["expected"]))


@pytest.mark.parametrize("index", range(5))
def test_unit_difference_of_standardized_means(index):
    case = _unit_cases("difference_of_standardized_means")[index]
    kwargs = {DSM_ARGS[k]: v for k, v in case["args"].items()}
    assert_close(_quiet(scoring.difference_of_standardized_means, **kwargs), _expected(case["expected"]))


def test_unit_quadratic_weighted_kappa():
    (case,) = _unit_cases("quadratic_weighted_kappa")
    args = case["args"]
    assert_close(scoring.quadratic_weighted_kappa(args["y_true_observed"], args["y_pred"]), case["expected"])


def _eval_row(human, system):
    frame = pd.DataFrame({"h": list(human), "s": list(system)})
    table = _quiet(scoring.evaluate, frame, human="h", system="s", exclude_zero=False)
    return table.iloc[0]


def test_unit_metrics_helper_population_sds():
    train = pd.read_csv(conformance_path(*RSMTOOL, "tests", "data", "files", "train.csv"))
    case = _unit_cases("Analyzer.metrics_helper")[0]
    row = _eval_row(train["score"], train["score2"])
    for key, value in case["expected"].items():
        assert_close(row[key], value, what=key)
    # call 2: SMD with population SDs (williamson): 0.066259 in RSMTool's test (6 digits)
    smd = scoring.standardized_mean_difference(
        train["score"],
        train["score2"],
        method="williamson",
        population_human_sd=0.5,
        population_system_sd=0.4,
    )
    assert round(smd, 6) == 0.066259


def test_unit_metrics_helper_zero_system_sd():
    case = _unit_cases("Analyzer.metrics_helper")[2]
    row = _eval_row(case["args"]["human_scores"], case["args"]["system_scores"])
    for key, value in case["expected"].items():
        assert_close(row[key], _expected(value), what=key)


def test_unit_metrics_helper_one_row_and_same_label():
    row = _eval_row([3.0], [2.4])
    assert sorted(k for k in row.index if k != "system" and pd.isna(row[k])) == sorted(
        ["SMD", "corr", "R2", "h_sd", "sys_sd"]
    )
    rng = np.random.default_rng(0)
    row = _eval_row([3] * 10, rng.uniform(1, 5, 10))
    assert sorted(k for k in row.index if k != "system" and pd.isna(row[k])) == ["SMD", "corr"]


# --------------------------------------------------------------------------------------
# 41 generated edge cases (RSMTool 12.0.0 + SKLL 5.0.1)
# --------------------------------------------------------------------------------------
def _edge_cases(prefix):
    return [c for c in _cases("rsmtool_edge_cases_generated.json") if c["function"].startswith(prefix)]


def _nan_list(values):
    return [np.nan if v is None else v for v in values]


def test_edge_kappa():
    cases = _edge_cases("skll.metrics.kappa")
    assert len(cases) == 11
    for case in cases:
        args = case["args"]
        y_true = [v if isinstance(v, str) else (np.nan if v is None else v) for v in args["y_true"]]
        if args.get("weights") == "quadratic":
            actual = scoring.quadratic_weighted_kappa(y_true, args["y_pred"])
        elif isinstance(case["result"], dict):
            with pytest.raises(InvalidInputError, match="missing"):
                scoring.cohen_kappa(y_true, args["y_pred"])
            continue
        else:
            actual = scoring.cohen_kappa(y_true, args["y_pred"])
        assert_close(actual, case["result"], what=json.dumps(args))


def test_edge_quadratic_weighted_kappa():
    for case in _edge_cases("quadratic_weighted_kappa"):
        args = case["args"]
        actual = _quiet(
            scoring.quadratic_weighted_kappa, _nan_list(args["y_true_observed"]), _nan_list(args["y_pred"])
        )
        assert_close(actual, _expected(case["result"]), what=json.dumps(args))


def test_edge_agreement():
    for case in _edge_cases("agreement"):
        args = case["args"]
        actual = _quiet(
            scoring.agreement,
            _nan_list(args["score1"]),
            _nan_list(args["score2"]),
            tolerance=args["tolerance"],
        )
        assert_close(actual, case["result"], what=json.dumps(args))


def test_edge_smd_and_dsm():
    for case in _edge_cases("standardized_mean_difference"):
        args = case["args"]
        with pytest.warns(pdmetrics.UndefinedMetricWarning, match="SMD"):
            actual = scoring.standardized_mean_difference(args["y_true_observed"], args["y_pred"])
        assert np.isnan(actual) and case["result"] == "NaN"
    (case,) = _edge_cases("difference_of_standardized_means")
    kwargs = {DSM_ARGS[k]: v for k, v in case["args"].items()}
    with pytest.warns(pdmetrics.UndefinedMetricWarning, match="DSM"):
        assert np.isnan(scoring.difference_of_standardized_means(**kwargs))


def test_edge_metrics_helper():
    cases = _edge_cases("Analyzer.metrics_helper")
    assert len(cases) == 7
    for case in cases:
        args = case["args"]
        human, system = _nan_list(args["human_scores"]), _nan_list(args["system_scores"])
        if isinstance(case["result"], dict) and "raises" in case["result"]:
            # RSMTool's kappa raises on the missing score; the table leaves that row out
            with pytest.warns(pdmetrics.ExcludedRowsWarning, match="1 of 4 rows"):
                table = scoring.evaluate(
                    pd.DataFrame({"h": human, "s": system}), human="h", system="s", exclude_zero=False
                )
            assert table.loc[0, "N"] == 3
            with pytest.raises(InvalidInputError):
                scoring.cohen_kappa(human, system)
            continue
        row = _eval_row(human, system)
        expected = dict(case["result"])
        if "DSM" in expected:
            dsm = scoring.difference_of_standardized_means(
                human,
                system,
                population_human_mean=args["population_human_score_mn"],
                population_system_mean=args["population_system_score_mn"],
                population_human_sd=args["population_human_score_sd"],
                population_system_sd=args["population_system_score_sd"],
            )
            assert_close(dsm, expected.pop("DSM"))
        for key, value in expected.items():
            assert_close(row[key], _expected(value), what=f"{case['function']} {key}")


# --------------------------------------------------------------------------------------
# experiments: eval, consistency, confMatrix, score_dist from RSMTool's processed inputs
# --------------------------------------------------------------------------------------
EXPERIMENTS = [
    *RSMEVAL_EXPERIMENTS,
    "lr-no-h2-and-rater-error-variance",
    "lr-rsmtool-rsmpredict",
    "lr-subgroups-with-edge-cases",
]
SCORE_TYPES = ["raw", "raw_trim", "raw_trim_round", "scale", "scale_trim", "scale_trim_round"]


class Experiment:
    def __init__(self, name):
        self.folder = conformance_path(*RSMTOOL, "tests", "data", "experiments", name)
        self.config = json.loads(next(self.folder.glob("*.json")).read_text())
        self.output = self.folder / "output"
        self.prefix = next(self.output.glob("*_pred_processed.csv")).name[: -len("_pred_processed.csv")]
        self.exclude_zero = self.config.get("exclude_zero_scores", True)

    def table(self, name, **kwargs):
        path = self.output / f"{self.prefix}_{name}.csv"
        if not path.exists():
            pytest.skip(f"{self.prefix} has no {name} table")
        return pd.read_csv(path, **kwargs)

    def predictions(self):
        frame = self.table("pred_processed")
        human_path = self.output / f"{self.prefix}_test_human_scores.csv"
        if human_path.exists():
            frame = frame.merge(pd.read_csv(human_path)[["spkitemid", "sc2"]], on="spkitemid")
        return frame

    def score_columns(self, frame):
        return [c for c in SCORE_TYPES if c in frame.columns]

    @property
    def primary(self):
        scaled = self.config.get("scale_with") is not None or self.config.get("use_scaled_predictions")
        return "scale" if scaled else "raw"


def _compare(actual: pd.DataFrame, expected: pd.DataFrame, what: str):
    assert list(actual.columns) == list(expected.columns), what
    for column in expected.columns:
        assert_close(
            actual[column].to_numpy(float), expected[column].to_numpy(float), what=f"{what}: {column}"
        )


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_experiment_eval(name):
    experiment = Experiment(name)
    expected = experiment.table("eval", index_col=0)
    frame = experiment.predictions()
    before = frame.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.UndefinedMetricWarning)
        actual = frame.scoring.evaluate(
            human="sc1", system=experiment.score_columns(frame), exclude_zero=experiment.exclude_zero
        )
    pd.testing.assert_frame_equal(frame, before)
    assert list(actual["system"]) == list(expected.index)
    _compare(actual.drop(columns="system"), expected[list(actual.columns[1:])], f"{name} eval")


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_experiment_consistency(name):
    experiment = Experiment(name)
    expected = experiment.table("consistency", index_col=0)
    frame = experiment.predictions()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.UndefinedMetricWarning)
        actual = frame.scoring.consistency(
            human="sc1", second_human="sc2", exclude_zero=experiment.exclude_zero
        )
    _compare(
        actual.drop(columns=["human", "second_human"]),
        expected[list(actual.columns[2:])],
        f"{name} consistency",
    )


def _pivot(tidy):
    matrix = tidy.pivot(index="human_score", columns="system_score", values="N")
    matrix.index.name = None
    matrix.columns.name = None
    return matrix


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_experiment_confusion_matrix(name):
    experiment = Experiment(name)
    expected = experiment.table("confMatrix", index_col=0)
    frame = experiment.predictions()
    actual = frame.scoring.confusion_matrix(
        human="sc1", system=f"{experiment.primary}_trim_round", exclude_zero=experiment.exclude_zero
    )
    matrix = _pivot(actual)
    assert list(matrix.index) == [int(float(c)) for c in expected.index]
    assert list(matrix.columns) == [int(float(c)) for c in expected.columns]
    assert (matrix.to_numpy() == expected.to_numpy()).all()


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_experiment_confusion_matrix_h1h2(name):
    experiment = Experiment(name)
    expected = experiment.table("confMatrix_h1h2", index_col=0)
    frame = experiment.predictions()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.ExcludedRowsWarning)  # single-scored rows
        actual = frame.scoring.confusion_matrix(
            human="sc1", system="sc2", exclude_zero=experiment.exclude_zero
        )
    matrix = _pivot(actual.drop(columns="system"))
    assert list(matrix.columns) == [int(float(c)) for c in expected.columns]
    assert (matrix.to_numpy() == expected.to_numpy()).all()


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_experiment_score_distribution(name):
    experiment = Experiment(name)
    expected = experiment.table("score_dist", index_col=0)
    frame = experiment.predictions()
    actual = frame.scoring.score_distribution(
        human="sc1", system=f"{experiment.primary}_trim_round", exclude_zero=experiment.exclude_zero
    )
    actual = actual.drop(columns="system").rename(columns={"sys": f"sys_{experiment.primary}"})
    _compare(actual, expected, f"{name} score_dist")


# --------------------------------------------------------------------------------------
# end to end from the raw prediction files: exclusion, trimming, scaling, evaluation
# --------------------------------------------------------------------------------------
RSMEVAL = [name for name in EXPERIMENTS if not name.startswith(("lr-no-h2", "lr-rsmtool", "lr-subgroups"))]


@pytest.mark.parametrize("name", RSMEVAL)
def test_rsmeval_end_to_end(name):
    experiment = Experiment(name)
    config = experiment.config
    raw = pd.read_csv(experiment.folder / config["predictions_file"])
    human, system = config["human_score_column"], config["system_score_column"]
    scale_with = config.get("scale_with")
    if scale_with not in (None, "asis"):
        train = pd.read_csv(experiment.folder / scale_with)
        scale_with = train.rename(columns={"prediction": system, "sc1": human})
    before = raw.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.PdmetricsWarning)
        processed = raw.scoring.postprocess(
            system=system,
            trim_min=config["trim_min"],
            trim_max=config["trim_max"],
            trim_tolerance=config.get("trim_tolerance", 0.4998),
            scale_with=scale_with,
            human=human,
        )
        expected = experiment.table("eval", index_col=0)
        # raw* -> score, score_trim, ...; scale* -> score_scale, ... (with "asis" RSMTool calls
        # the given, already scaled scores "scale": our score_scale is a copy of them)
        columns = [
            t.replace("raw", system) if t.startswith("raw") else f"{system}_{t}" for t in expected.index
        ]
        actual = processed.scoring.evaluate(human=human, system=columns, exclude_zero=experiment.exclude_zero)
    pd.testing.assert_frame_equal(raw, before)
    _compare(actual.drop(columns="system"), expected[list(actual.columns[1:])], f"{name} end-to-end eval")


def test_postprocessing_matches_pred_processed():
    experiment = Experiment("lr-eval-with-scaling-and-h2-keep-zeros")
    raw = pd.read_csv(experiment.folder / experiment.config["predictions_file"])
    train = pd.read_csv(experiment.folder / experiment.config["scale_with"])
    processed = raw.scoring.postprocess(
        system="score",
        human="h1",
        trim_min=1,
        trim_max=6,
        scale_with=train.rename(columns={"prediction": "score", "sc1": "h1"}),
    )
    expected = experiment.table("pred_processed")
    merged = expected.merge(processed, left_on="spkitemid", right_on="spkitemid")
    for ours, theirs in [
        ("score", "raw"),
        ("score_trim", "raw_trim"),
        ("score_trim_round", "raw_trim_round"),
        ("score_scale", "scale"),
        ("score_scale_trim", "scale_trim"),
        ("score_scale_trim_round", "scale_trim_round"),
    ]:
        assert_close(merged[ours], merged[theirs], what=ours)


def test_real_trimming_with_default_tolerance():
    experiment = Experiment("lr-rsmtool-rsmpredict")
    frame = experiment.table("pred_processed")
    params = experiment.table("postprocessing_params").iloc[0]
    processed = frame.scoring.postprocess(
        system="scale", trim_min=params["trim_min"], trim_max=params["trim_max"]
    )
    assert (frame["scale"] < 0.5002).sum() == 4
    assert_close(processed["scale_trim"], frame["scale_trim"])
    assert_close(processed["scale_trim_round"], frame["scale_trim_round"])


# --------------------------------------------------------------------------------------
# subgroups: eval_by_<G>, consistency_by_<G>
# --------------------------------------------------------------------------------------
def _by_group_cases():
    cases = []
    for name in EXPERIMENTS:
        folder = CONFORMANCE_EXPERIMENTS / name / "output"
        for path in sorted(folder.glob("*_eval_by_*.csv")):
            cases.append((name, path.name.split("_eval_by_")[1][:-4]))
    return cases


from conftest import CONFORMANCE  # noqa: E402

from pdmetrics.rsmeval import rsmtool_files  # noqa: E402

CONFORMANCE_EXPERIMENTS = CONFORMANCE / "rsmtool" / "tests" / "data" / "experiments"
BY_GROUP_CASES = _by_group_cases() if CONFORMANCE_EXPERIMENTS.exists() else [("lr-eval", "QUESTION")]


def _with_metadata(experiment):
    frame = experiment.predictions()
    metadata = experiment.table("test_metadata")
    return frame.merge(metadata, on="spkitemid")


def _compare_sorted(actual: pd.DataFrame, expected: pd.DataFrame, what: str):
    expected.index = expected.index.astype(str)
    actual.index = actual.index.astype(str)
    assert sorted(actual.index) == sorted(expected.index), what
    assert sorted(actual.columns) == sorted(expected.columns), what
    actual = actual.loc[sorted(actual.index), sorted(actual.columns)]
    expected = expected.loc[sorted(expected.index), sorted(expected.columns)]
    for column in expected.columns:
        assert_close(
            actual[column].to_numpy(float), expected[column].to_numpy(float), what=f"{what}: {column}"
        )


@pytest.mark.parametrize(("name", "group"), BY_GROUP_CASES)
def test_experiment_eval_by_group(name, group):
    experiment = Experiment(name)
    expected = experiment.table(f"eval_by_{group}", index_col=0)
    frame = _with_metadata(experiment)
    before = frame.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.UndefinedMetricWarning)
        table = frame.scoring.evaluate(
            human="sc1",
            system=experiment.score_columns(frame),
            by=group,
            exclude_zero=experiment.exclude_zero,
        )
    pd.testing.assert_frame_equal(frame, before)
    prefix = experiment.primary
    actual = rsmtool_files.short_metrics_frame(
        table, f"{prefix}_trim", f"{prefix}_trim_round", prefix, difference="DSM", index="group"
    )
    _compare_sorted(actual, expected, f"{name} eval_by_{group}")


@pytest.mark.parametrize(("name", "group"), BY_GROUP_CASES)
def test_experiment_consistency_by_group(name, group):
    experiment = Experiment(name)
    expected = experiment.table(f"consistency_by_{group}", index_col=0)
    frame = _with_metadata(experiment)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.UndefinedMetricWarning)
        table = frame.scoring.consistency(
            human="sc1", second_human="sc2", by=group, exclude_zero=experiment.exclude_zero
        )
    actual = rsmtool_files.consistency_frame(table, difference="DSM", index="group")
    _compare_sorted(actual, expected, f"{name} consistency_by_{group}")


def test_experiment_eval_short():
    for name in EXPERIMENTS:
        experiment = Experiment(name)
        expected = experiment.table("eval_short", index_col=0)
        frame = experiment.predictions()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", pdmetrics.UndefinedMetricWarning)
            table = frame.scoring.evaluate(
                human="sc1", system=experiment.score_columns(frame), exclude_zero=experiment.exclude_zero
            )
        prefix = experiment.primary
        actual = rsmtool_files.short_metrics_frame(table, f"{prefix}_trim", f"{prefix}_trim_round", prefix)
        _compare_sorted(actual, expected, f"{name} eval_short")


# --------------------------------------------------------------------------------------
# degradation and disattenuated correlations
# --------------------------------------------------------------------------------------
H2_EXPERIMENTS = [
    "lr-eval-system-score-constant",
    "lr-eval-with-continuous-human-scores",
    "lr-eval-with-h2",
    "lr-eval-with-scaling-and-h2-keep-zeros",
    "lr-eval-with-subset-double-scored",
]


@pytest.mark.parametrize("name", H2_EXPERIMENTS)
def test_experiment_degradation_and_disattenuated(name):
    experiment = Experiment(name)
    frame = experiment.predictions()
    systems = experiment.score_columns(frame)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.UndefinedMetricWarning)
        degradation = frame.scoring.degradation(
            human="sc1", second_human="sc2", system=systems, exclude_zero=experiment.exclude_zero
        )
        corrected = frame.scoring.disattenuated_correlations(
            human="sc1", second_human="sc2", system=systems, exclude_zero=experiment.exclude_zero
        )
    _compare_sorted(
        degradation.set_index("system"), experiment.table("degradation", index_col=0), f"{name} degradation"
    )
    _compare_sorted(
        corrected.set_index("system"),
        experiment.table("disattenuated_correlations", index_col=0),
        f"{name} disattenuated",
    )


@pytest.mark.parametrize(("name", "group"), [c for c in BY_GROUP_CASES if c[0] in H2_EXPERIMENTS])
def test_experiment_disattenuated_by_group(name, group):
    experiment = Experiment(name)
    expected = experiment.table(f"disattenuated_correlations_by_{group}", index_col=0)
    frame = _with_metadata(experiment)
    primary = f"{experiment.primary}_trim"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.UndefinedMetricWarning)
        table = frame.scoring.disattenuated_correlations(
            human="sc1", second_human="sc2", system=primary, by=group, exclude_zero=experiment.exclude_zero
        )
    actual = table.set_index("group").drop(columns=["system", "by"])
    actual.index = rsmtool_files.rsmtool_labels(actual.index)  # the tidy "(all)" row is RSMTool's "All data"
    _compare_sorted(actual, expected, f"{name} disattenuated_by_{group}")
