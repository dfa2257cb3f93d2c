"""LinearScoringModel: standardized weighted scores, Equation 1, PP scaling, EP fitting, adjustment."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import assert_close, assert_frame_unchanged
from hypothesis import given, settings
from hypothesis import strategies as st

import pdmetrics  # noqa: F401
from pdmetrics.datasets import simulate_essays
from pdmetrics.errors import (
    ColumnNotFoundError,
    ExcludedRowsWarning,
    InvalidInputError,
    UndefinedMetricWarning,
)
from pdmetrics.scoring import LinearScoringModel, relative_influence, weighted_score_sd

FEATURES = [f"f{i}" for i in range(1, 6)]


def table1_model(**changes) -> LinearScoringModel:
    arguments = dict(
        weights={"A": 70, "B": 30},
        means={"A": 100.0, "B": 0.30},
        sds={"A": 10.0, "B": 0.10},
        intercorrelations=0.5,
        scale_mean=3.5,
        scale_sd=1.2,
    )
    arguments.update(changes)
    return LinearScoringModel(**arguments)


@pytest.fixture(scope="module")
def essays() -> pd.DataFrame:
    return simulate_essays(
        400,
        n_features=5,
        feature_means=[10, 20, 0, 5, 1],
        feature_sds=[2, 5, 1, 0.5, 0.1],
        true_weights=[0.4, 0.3, 0.1, 0.1, 0.1],
        seed=7,
    )


# --------------------------------------------------------------------------------------
# Table 1 of the paper
# --------------------------------------------------------------------------------------
def test_table1_example_essay():
    model = table1_model()
    essay = pd.DataFrame({"A": [110.0], "B": [0.35]})
    z = model.standardized_scores(essay)
    assert_close(z.iloc[0], 0.85)  # 1.0 x 70% + 0.5 x 30%
    assert_close(model.implied_z_sd, np.sqrt(0.79))  # Equation 1: .49 + .09 + .21
    assert round(model.z_sd, 2) == 0.89
    scored = model.predict(essay)
    assert round(float(scored["e_score"].iloc[0]), 2) == 4.65
    assert_close(scored["e_score"].iloc[0], 1.2 / np.sqrt(0.79) * 0.85 + 3.5)
    assert round(model.rescale(0.85), 2) == 4.65
    assert model.z_mean == 0.0 and model.scale_mean == 3.5 and model.scale_sd == 1.2


def test_table1_standardized_feature_values_and_relative_weights():
    model = table1_model()
    assert_close(model.weights, [0.7, 0.3])
    assert model.weights.index.tolist() == ["A", "B"]
    essay = pd.DataFrame({"A": [110.0], "B": [0.35]})
    assert_close((essay - model.means) / model.sds, [[1.0, 0.5]])


def test_weighted_score_sd_equation_1():
    assert_close(weighted_score_sd([0.7, 0.3], 0.5), np.sqrt(0.79))
    r = np.array([[1, 0.2, 0.4], [0.2, 1, 0.1], [0.4, 0.1, 1]])
    w = np.array([0.5, 0.3, 0.2])
    pairwise = sum(w[i] ** 2 for i in range(3)) + 2 * sum(
        w[i] * w[j] * r[i, j] for i in range(3) for j in range(i + 1, 3)
    )
    assert_close(weighted_score_sd(w, r), np.sqrt(pairwise))
    assert_close(weighted_score_sd({"a": 1.0}, 0.3), 1.0)


def test_weighted_score_sd_not_psd_raises():
    with pytest.raises(InvalidInputError, match="positive semi-definite"):
        weighted_score_sd([1, 1, 1], -0.9)  # variance would be negative
    with pytest.raises(InvalidInputError, match="positive semi-definite"):
        weighted_score_sd([1, 1, 1], [[1, 0.9, 0.9], [0.9, 1, -0.9], [0.9, -0.9, 1]])  # or positive


def test_implied_sd_equals_sample_sd_of_z(essays):
    x = essays[FEATURES]
    model = LinearScoringModel(
        dict(zip(FEATURES, [5, 4, 3, 2, 1])), means=x.mean(), sds=x.std(), intercorrelations=x.corr()
    )
    assert_close(model.standardized_scores(essays).std(), model.implied_z_sd)


# --------------------------------------------------------------------------------------
# PP scaling
# --------------------------------------------------------------------------------------
def prior_model(essays) -> LinearScoringModel:
    # "predetermined" parameters: expert weights and rough feature distributions
    return LinearScoringModel(
        dict(zip(FEATURES, [40, 30, 10, 10, 10])), means=[9, 21, 0.2, 5, 1.1], sds=[2.2, 4.5, 1.1, 0.55, 0.09]
    )


def test_pp_scaling_sample_gets_human_mean_and_sd(essays):
    sample = essays.iloc[:30]
    pp = prior_model(essays).fit_scaling(sample, human=["h1", "h2"])
    human = sample[["h1", "h2"]].mean(axis=1)
    e = pp.predict(sample)["e_score"]
    assert_close(e.mean(), human.mean())
    assert_close(e.std(), human.std())
    z = prior_model(essays).standardized_scores(sample)
    assert_close(
        [pp.z_mean, pp.z_sd, pp.scale_mean, pp.scale_sd], [z.mean(), z.std(), human.mean(), human.std()]
    )
    # Equations 2 and 3 give the same scores
    assert_close(e, (human.std() / z.std()) * (z - z.mean()) + human.mean())
    assert_close(pp.slope, human.std() / z.std())
    assert_close(pp.intercept, human.mean() - z.mean() * human.std() / z.std())


def test_pp_scores_do_not_depend_on_assumed_means(essays):
    # "Discrepancies in feature means ... should not have an effect on scores"
    sample, rest = essays.iloc[:30], essays.iloc[30:]
    base = prior_model(essays)
    shifted = base.replace(means=base.means + np.array([3.0, -7.0, 0.5, 1.0, -0.2]))
    a = base.fit_scaling(sample, human="h1").predict(rest)["e_score"]
    b = shifted.fit_scaling(sample, human="h1").predict(rest)["e_score"]
    assert_close(a, b)


def test_pp_single_human_column_and_missing_ratings(essays):
    sample = essays.iloc[:20].copy()
    sample.loc[sample.index[0], "h2"] = np.nan  # one rating missing: average of the other
    pp = prior_model(essays).fit_scaling(sample, human=["h1", "h2"])
    human = sample[["h1", "h2"]].mean(axis=1)  # pandas skips NaN, as we do
    assert_close(pp.scale_mean, human.mean())
    sample.loc[sample.index[1], ["h1", "h2"]] = np.nan  # no rating at all: row left out
    with pytest.warns(ExcludedRowsWarning, match="1 of 20"):
        pp = prior_model(essays).fit_scaling(sample, human=["h1", "h2"])
    assert_close(pp.scale_mean, sample[["h1", "h2"]].mean(axis=1).dropna().mean())


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), a=st.floats(0.2, 5.0), b=st.floats(-5.0, 5.0))
def test_pp_scaling_is_permutation_invariant_and_affine_equivariant(essays, seed, a, b):
    rng = np.random.default_rng(seed)
    sample = essays.iloc[rng.choice(len(essays), 25, replace=False)]
    base = prior_model(essays)
    pp = base.fit_scaling(sample, human="h1")
    shuffled = base.fit_scaling(sample.sample(frac=1.0, random_state=seed), human="h1")
    assert_close(
        [pp.z_mean, pp.z_sd, pp.scale_mean, pp.scale_sd],
        [shuffled.z_mean, shuffled.z_sd, shuffled.scale_mean, shuffled.scale_sd],
    )
    transformed = base.fit_scaling(sample.assign(h1=a * sample["h1"] + b), human="h1")
    assert_close(transformed.predict(essays)["e_score"], a * pp.predict(essays)["e_score"] + b)


# --------------------------------------------------------------------------------------
# EP fitting
# --------------------------------------------------------------------------------------
def test_ep_fit_matches_ols_reference(essays):
    sm = pytest.importorskip("statsmodels.api")
    ep = LinearScoringModel.fit_ep(essays, features=FEATURES, human=["h1", "h2"])
    x = essays[FEATURES]
    h = essays[["h1", "h2"]].mean(axis=1)
    standardized = (x - x.mean()) / x.std()
    ols = sm.OLS(h.to_numpy(), sm.add_constant(standardized.to_numpy())).fit()
    betas = ols.params[1:]
    assert_close(ep.weights, betas / betas.sum())
    assert_close(ep.means, x.mean())
    assert_close(ep.sds, x.std())
    assert_close(ep.intercorrelations, x.corr())
    assert ep.z_mean == 0.0
    # the EP scores are the OLS predictions rescaled to the human mean and SD
    e = ep.predict(essays)["e_score"]
    assert_close(e.mean(), h.mean())
    assert_close(e.std(), h.std())
    assert_close(np.corrcoef(e, ols.fittedvalues)[0, 1], 1.0)
    assert_close(ep.z_sd, ep.standardized_scores(essays).std())


def test_ep_recovers_true_weights():
    df = simulate_essays(
        20000,
        n_features=4,
        true_weights=[0.4, 0.3, 0.2, 0.1],
        feature_sds=[1, 2, 3, 4],
        score_range=None,
        seed=5,
    )
    ep = df.scoring.fit_ep(features=["f1", "f2", "f3", "f4"], human=["h1", "h2"])
    assert_close(ep.weights, [0.4, 0.3, 0.2, 0.1], atol=0.02)


def test_ep_with_fixed_weights_is_semi_optimal(essays):
    weights = dict(zip(FEATURES, [1, 1, 1, 1, 1]))
    ep = essays.scoring.fit_ep(features=FEATURES, human="h1", weights=weights)
    assert_close(ep.weights, [0.2] * 5)
    x = essays[FEATURES]
    assert_close(ep.means, x.mean())
    with pytest.raises(InvalidInputError, match="exactly the features"):
        essays.scoring.fit_ep(features=FEATURES, human="h1", weights={"f1": 1})


def test_ep_collinear_and_constant_features(essays):
    df = essays.assign(f6=essays["f1"] * 2.0, const=1.0)
    with pytest.raises(InvalidInputError, match="collinear"):
        df.scoring.fit_ep(features=FEATURES + ["f6"], human="h1")
    with pytest.raises(InvalidInputError, match="'const' is constant"):
        df.scoring.fit_ep(features=FEATURES + ["const"], human="h1")


def test_ep_weights_summing_to_zero():
    df = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6], "b": [2.0, 1, 4, 3, 6, 5], "h": [3.0, 3, 3, 3, 3, 3.5]})
    df = df.assign(h=df["a"] - df["b"] + 0.0)
    with pytest.raises(InvalidInputError, match="sum"):
        df.scoring.fit_ep(features=["a", "b"], human="h")


# --------------------------------------------------------------------------------------
# adjustment (interactive steps 3 and 4)
# --------------------------------------------------------------------------------------
def test_adjust_mean_and_sd(essays):
    pp = prior_model(essays).fit_scaling(essays.iloc[:30], human="h1")
    adjusted = pp.adjust(mean=3.0, sd=1.5)
    e = adjusted.predict(essays.iloc[:30])["e_score"]
    assert_close([e.mean(), e.std()], [3.0, 1.5])
    shifted = pp.adjust(mean_shift=0.25, sd_factor=0.5)
    assert_close([shifted.scale_mean, shifted.scale_sd], [pp.scale_mean + 0.25, pp.scale_sd * 0.5])
    before = pp.predict(essays)["e_score"].rank()
    assert_close(shifted.predict(essays)["e_score"].rank(), before)  # rank order unchanged
    assert pp.scale_mean != shifted.scale_mean  # the original is immutable


def test_adjust_unscaled_needs_both():
    model = LinearScoringModel({"a": 1}, means=0, sds=1)
    with pytest.raises(InvalidInputError, match="mean=.*sd="):
        model.adjust(mean=3)
    assert model.adjust(mean=3, sd=1).scale_mean == 3.0
    with pytest.raises(InvalidInputError, match="sd_factor"):
        table1_model().adjust(sd_factor=-1)


# --------------------------------------------------------------------------------------
# relative influence (Table 3 machinery)
# --------------------------------------------------------------------------------------
def test_relative_influence_of_exact_linear_composite():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(500, 3)) * [1.0, 2.0, 0.5]
    table = relative_influence(pd.DataFrame(x, columns=["a", "b", "c"]), x @ [1.0, 1.0, 4.0])
    assert table.columns.tolist() == ["feature", "std_beta", "influence"]
    assert table["feature"].tolist() == ["a", "b", "c"]
    sd = x.std(axis=0, ddof=1)
    expected = np.array([1.0, 1.0, 4.0]) * sd
    assert_close(table["influence"], expected / expected.sum())
    assert_close(table["std_beta"], expected / (x @ [1.0, 1.0, 4.0]).std(ddof=1))
    assert_close(table["influence"].sum(), 1.0)


def test_model_relative_influence_reflects_sd_discrepancy(essays):
    x = essays[FEATURES]
    right = LinearScoringModel(dict.fromkeys(FEATURES, 1), means=x.mean(), sds=x.std())
    table = right.relative_influence(essays)
    assert table.columns.tolist() == ["feature", "weight", "std_beta", "influence", "influence_ratio"]
    assert_close(table["influence"], [0.2] * 5)
    assert_close(table["influence_ratio"], [1.0] * 5)
    wrong = right.replace(sds=x.std() * [2, 1, 1, 1, 1])  # feature 1's SD overstated: less influence
    ratio = wrong.relative_influence(essays)["influence_ratio"]
    assert ratio.iloc[0] < 1 < ratio.iloc[1]
    assert_close(ratio.iloc[1] / ratio.iloc[0], 2.0)


def test_relative_influence_constant_composite_warns():
    x = np.random.default_rng(1).normal(size=(20, 2))
    with pytest.warns(UndefinedMetricWarning, match="Relative influence"):
        table = relative_influence(x, np.ones(20))
    assert table["influence"].isna().all()


def test_relative_influence_bad_shapes():
    with pytest.raises(InvalidInputError, match="two-dimensional"):
        relative_influence([1, 2, 3], [1, 2, 3])
    with pytest.raises(InvalidInputError, match="rows"):
        relative_influence(np.ones((5, 2)), [1, 2])
    with pytest.raises(InvalidInputError, match="at least 4"):
        relative_influence(np.ones((3, 2)), [1, 2, 3])


# --------------------------------------------------------------------------------------
# construction and validation
# --------------------------------------------------------------------------------------
def test_constructor_forms():
    a = LinearScoringModel(
        {"a": 2, "b": 2}, means=[1, 2], sds={"a": 1, "b": 3}, intercorrelations=[[1, 0.3], [0.3, 1]]
    )
    b = LinearScoringModel(
        pd.Series({"a": 0.5, "b": 0.5}),
        means=pd.Series({"b": 2, "a": 1}),
        sds=[1, 3],
        intercorrelations=pd.DataFrame([[1, 0.3], [0.3, 1]], index=["b", "a"], columns=["b", "a"]),
    )
    for m in (a, b):
        assert_close(m.weights, [0.5, 0.5])
        assert_close(m.means, [1, 2])
        assert_close(m.sds, [1, 3])
        assert_close(m.implied_z_sd, np.sqrt(0.5 + 0.5 * 0.3))
    assert "LinearScoringModel" in repr(a) and "unscaled" in repr(a)
    assert a.to_frame().columns.tolist() == ["feature", "weight", "mean", "sd"]
    assert LinearScoringModel({"a": 1}, means=0, sds=1).z_sd is None
    assert LinearScoringModel({"a": 1}, means=0, sds=1).intercorrelations is None


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(weights={}, means=0, sds=1), "non-empty mapping"),
        (dict(weights=[0.5, 0.5], means=0, sds=1), "mapping"),
        (dict(weights={"a": 1, "b": -1}, means=0, sds=1), "sum"),
        (dict(weights={"a": np.nan}, means=0, sds=1), "finite"),
        (dict(weights={"a": 1}, means={"b": 0}, sds=1), "no value for feature"),
        (dict(weights={"a": 1, "b": 1}, means=[0, 1, 2], sds=1), "one finite number per feature"),
        (dict(weights={"a": 1}, means=0, sds=0), "positive"),
        (dict(weights={"a": 1}, means=0, sds=1, intercorrelations=[[1, 2], [2, 1]]), "shape"),
        (dict(weights={"a": 1, "b": 1}, means=0, sds=1, intercorrelations=[[1, 2], [2, 1]]), "correlation"),
        (dict(weights={"a": 1}, means=0, sds=1, z_sd=0), "positive"),
        (dict(weights={"a": 1}, means=0, sds=1, scale_mean=3), "both"),
        (dict(weights={"a": 1}, means=0, sds=1, z_sd=1, scale_mean=3, scale_sd=-1), "non-negative"),
    ],
)
def test_constructor_rejects_bad_parameters(kwargs, match):
    with pytest.raises(InvalidInputError, match=match):
        LinearScoringModel(**kwargs)


def test_replace_unknown_parameter():
    with pytest.raises(InvalidInputError, match="unknown"):
        table1_model().replace(slope=2)


def test_unscaled_model_cannot_predict():
    model = LinearScoringModel({"A": 1}, means=0, sds=1)
    df = pd.DataFrame({"A": [1.0, 2.0]})
    with pytest.raises(InvalidInputError, match="z_sd"):
        model.predict(df)
    with pytest.raises(InvalidInputError, match="score scale"):
        model.replace(z_sd=1.0).rescale(0.3)
    assert_close(model.standardized_scores(df), [1.0, 2.0])


# --------------------------------------------------------------------------------------
# data edge cases
# --------------------------------------------------------------------------------------
def test_predict_missing_feature_gives_nan_and_keeps_index():
    df = pd.DataFrame({"A": [110.0, np.nan], "B": [0.35, 0.3], "id": ["x", "y"]}, index=[10, 10])
    out = table1_model().predict(df, z_name="Z")
    assert out.columns.tolist() == ["A", "B", "id", "Z", "e_score"]
    assert out.index.tolist() == [10, 10]
    assert np.isnan(out["e_score"].iloc[1]) and round(out["e_score"].iloc[0], 2) == 4.65


def test_predict_replaces_existing_column_and_leaves_input_unchanged():
    df = pd.DataFrame({"A": [110.0, 95.0], "B": [0.35, 0.2], "e_score": ["old", "old"]})
    before = df.copy(deep=True)
    out = table1_model().predict(df)
    assert_frame_unchanged(before, df)
    assert out.columns.tolist() == ["A", "B", "e_score"]
    assert out["e_score"].dtype == "float64"
    with pytest.raises(InvalidInputError, match="strings"):
        table1_model().predict(df, name=3)


def test_empty_and_tiny_scaling_samples(essays):
    model = prior_model(essays)
    with pytest.raises(InvalidInputError, match="at least 2"):
        model.fit_scaling(essays.iloc[:0], human="h1")
    with pytest.raises(InvalidInputError, match="at least 2"):
        model.fit_scaling(essays.iloc[:1], human="h1")
    with pytest.raises(InvalidInputError, match="at least 7"):
        LinearScoringModel.fit_ep(essays.iloc[:6], features=FEATURES, human="h1")
    constant = pd.concat([essays.iloc[:1]] * 3, ignore_index=True)
    with pytest.raises(InvalidInputError, match="same standardized"):
        model.fit_scaling(constant, human="h1")
    assert len(model.replace(z_sd=1.0, scale_mean=3, scale_sd=1).predict(essays.iloc[:0])) == 0


def test_wrong_dtypes_and_missing_columns(essays):
    model = prior_model(essays)
    with pytest.raises(ColumnNotFoundError, match="f9"):
        LinearScoringModel({"f9": 1}, means=0, sds=1).standardized_scores(essays)
    with pytest.raises(ColumnNotFoundError, match="human='score'"):
        model.fit_scaling(essays, human="score")
    text = essays.assign(f1=["good"] * len(essays))
    with pytest.raises(InvalidInputError, match="no numeric values"):
        model.fit_scaling(text, human="h1")
    flags = essays.assign(h1=essays["h1"] > 3)
    with pytest.raises(InvalidInputError, match="boolean"):
        model.fit_scaling(flags, human="h1")
    numeric_strings = essays.assign(h1=essays["h1"].astype(str))
    assert_close(model.fit_scaling(numeric_strings, human="h1").scale_mean, essays["h1"].mean())


# --------------------------------------------------------------------------------------
# invalid parameters and degenerate samples (clear errors, no internal tracebacks)
# --------------------------------------------------------------------------------------
def test_constructor_rejects_correlations_no_features_can_have():
    not_psd = [[1, 0.9, 0.9], [0.9, 1, -0.9], [0.9, -0.9, 1]]  # Equation 1 still gives a positive SD
    with pytest.raises(InvalidInputError, match="positive semi-definite"):
        LinearScoringModel({"a": 1, "b": 1, "c": 1}, means=0, sds=1, intercorrelations=not_psd)
    with pytest.raises(InvalidInputError, match="positive semi-definite"):
        LinearScoringModel({"a": 1, "b": 1, "c": 1}, means=0, sds=1, intercorrelations=-0.9)
    # singular but valid: perfectly correlated features are fine for Equation 1
    assert_close(LinearScoringModel({"a": 7, "b": 3}, means=0, sds=1, intercorrelations=1.0).z_sd, 1.0)
    assert_close(LinearScoringModel({"a": 7, "b": 3}, means=0, sds=1, intercorrelations=-1.0).z_sd, 0.4)


def test_singular_correlations_implying_zero_sd_raise_instead_of_dividing_by_zero():
    with pytest.raises(InvalidInputError, match="SD of Z is 0"):
        LinearScoringModel({"a": 1, "b": 1}, means=0, sds=1, intercorrelations=-1.0, scale_mean=3, scale_sd=1)
    # an explicit z_sd is still accepted
    model = LinearScoringModel({"a": 1, "b": 1}, means=0, sds=1, intercorrelations=-1.0, z_sd=1.0)
    assert model.z_sd == 1.0


def test_messages_show_plain_numbers():
    with pytest.raises(InvalidInputError, match=r"`sds\['a'\]` is -1.0;"):
        LinearScoringModel({"a": 1}, means=0, sds=-1)
    with pytest.raises(InvalidInputError, match=r"sum to -0.5;"):
        LinearScoringModel({"a": 0.5, "b": -1}, means=0, sds=1)


def test_constant_human_scores_raise(essays):
    constant = essays.iloc[:10].assign(h1=3.0)
    with pytest.raises(InvalidInputError, match="same human score"):
        prior_model(essays).fit_scaling(constant, human="h1")
    with pytest.raises(InvalidInputError, match="all equal"):
        essays.assign(h1=3.0).scoring.fit_ep(
            features=FEATURES, human="h1", weights=dict.fromkeys(FEATURES, 1)
        )


def test_ep_ols_weights_summing_to_negative_names_the_fix(essays):
    reversed_human = essays.assign(h=-essays[FEATURES].sum(axis=1))
    with pytest.raises(InvalidInputError, match="OLS weights.*reverse the sign"):
        reversed_human.scoring.fit_ep(features=FEATURES, human="h")


@pytest.mark.parametrize(
    "call",
    [
        lambda: table1_model().rescale("high"),
        lambda: table1_model().rescale(["a", "b"]),
        lambda: table1_model().rescale(pd.Series([True, False])),
        lambda: weighted_score_sd(["a", 0.3], 0.5),
        lambda: weighted_score_sd([0.7, 0.3], [["a", 1], [1, 1]]),
        lambda: relative_influence([["a", "b"], ["c", "d"]], [1, 2]),
        lambda: relative_influence(np.ones((6, 2)), ["x"] * 6),
        lambda: LinearScoringModel({"a": 1, "b": 1}, means=["x", 0], sds=1),
    ],
)
def test_non_numeric_arguments_raise_invalid_input(call):
    with pytest.raises(InvalidInputError):
        call()


def test_rescale_series_keeps_index():
    z = pd.Series([0.85, 0.0], index=[5, 9], name="Z")
    out = table1_model().rescale(z)
    assert out.index.tolist() == [5, 9] and out.name == "Z"
    assert_close(out, [1.2 / np.sqrt(0.79) * 0.85 + 3.5, 3.5])
