"""df.scoring.weighted_score / fit_pp / fit_ep and the simulate_essays data set."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import assert_close, assert_frame_unchanged

import pdmetrics  # noqa: F401
from pdmetrics.datasets import simulate_essays
from pdmetrics.errors import ColumnNotFoundError, ExcludedRowsWarning, InvalidInputError
from pdmetrics.scoring import LinearScoringModel, cohen_kappa, exact_agreement, pearson_r

FEATURES = ["f1", "f2", "f3"]


@pytest.fixture
def essays() -> pd.DataFrame:
    return simulate_essays(
        300, n_features=3, feature_means=[5, 50, 0], feature_sds=[1, 10, 0.2], groups=["A", "B"], seed=2
    )


# --------------------------------------------------------------------------------------
# accessor
# --------------------------------------------------------------------------------------
def test_weighted_score_with_frame_statistics(essays):
    before = essays.copy(deep=True)
    out = essays.scoring.weighted_score(features={"f1": 2, "f2": 1, "f3": 1})
    assert_frame_unchanged(before, essays)
    assert out.columns.tolist() == essays.columns.tolist() + ["Z"]
    x = essays[FEATURES]
    expected = ((x - x.mean()) / x.std()) @ np.array([0.5, 0.25, 0.25])
    assert_close(out["Z"], expected)
    assert abs(out["Z"].mean()) < 1e-12
    assert_close(out["Z"].std(), weighted_score_sd_of(x, [0.5, 0.25, 0.25]))


def weighted_score_sd_of(x: pd.DataFrame, w) -> float:
    return float(np.sqrt(np.asarray(w) @ x.corr().to_numpy() @ np.asarray(w)))


def test_weighted_score_with_given_statistics_and_model(essays):
    weights = {"f1": 1, "f2": 1, "f3": 1}
    out = essays.scoring.weighted_score(features=weights, means=[5, 50, 0], sds=[1, 10, 0.2], name="z")
    model = LinearScoringModel(weights, means=[5, 50, 0], sds=[1, 10, 0.2])
    assert_close(out["z"], model.standardized_scores(essays))
    assert_close(essays.scoring.weighted_score(features=model)["Z"], out["z"])
    with pytest.raises(InvalidInputError, match="already holds"):
        essays.scoring.weighted_score(features=model, means=[0, 0, 0])


def test_weighted_score_errors(essays):
    with pytest.raises(ColumnNotFoundError, match="features='nope'"):
        essays.scoring.weighted_score(features={"nope": 1})
    with pytest.raises(InvalidInputError, match="mapping"):
        essays.scoring.weighted_score(features=["f1", "f2"])
    with pytest.raises(InvalidInputError, match="string"):
        essays.scoring.weighted_score(features={"f1": 1}, name=0)
    with pytest.raises(InvalidInputError, match="at least 2 rows"):
        essays.iloc[:1].scoring.weighted_score(features={"f1": 1})
    with pytest.raises(InvalidInputError, match="SDs must be positive"):
        essays.assign(f1=1.0).scoring.weighted_score(features={"f1": 1})
    empty = essays.iloc[:0].scoring.weighted_score(features={"f1": 1}, means=0, sds=1)
    assert len(empty) == 0 and "Z" in empty.columns
    holes = essays.assign(f1=essays["f1"].where(essays.index > 0))
    out = holes.scoring.weighted_score(features={"f1": 1, "f2": 1})
    assert np.isnan(out["Z"].iloc[0]) and out["Z"].iloc[1:].notna().all()
    # the message counts complete rows, not all rows
    sparse = essays.assign(f1=essays["f1"].where(essays.index == 0))
    with pytest.raises(InvalidInputError, match=r"got 1 of 300 rows"):
        sparse.scoring.weighted_score(features={"f1": 1, "f2": 1})


def test_fit_pp_and_predict_chain(essays):
    before = essays.copy(deep=True)
    prior = LinearScoringModel({"f1": 1, "f2": 1, "f3": 1}, means=[5, 50, 0], sds=[1, 10, 0.2])
    scaling, rest = essays.iloc[:30], essays.iloc[30:]
    pp = scaling.scoring.fit_pp(model=prior, human=["h1", "h2"])
    assert_close(pp.scale_mean, scaling[["h1", "h2"]].mean(axis=1).mean())
    scored = pp.predict(rest)
    assert_frame_unchanged(before, essays)
    assert scored.columns.tolist() == rest.columns.tolist() + ["e_score"]
    rounded = np.clip(np.rint(scored["e_score"]), 1, 6)
    assert pearson_r(scored["h1"], scored["e_score"]) > 0.6
    assert cohen_kappa(scored["h1"], rounded) > 0.2
    with pytest.raises(InvalidInputError, match="LinearScoringModel"):
        essays.scoring.fit_pp(model={"f1": 1}, human="h1")
    same = scaling.scoring.fit_pp(
        weights={"f1": 1, "f2": 1, "f3": 1}, means=[5, 50, 0], sds=[1, 10, 0.2], human=["h1", "h2"]
    )
    assert_close(
        [same.z_mean, same.z_sd, same.scale_mean, same.scale_sd],
        [pp.z_mean, pp.z_sd, pp.scale_mean, pp.scale_sd],
    )
    with pytest.raises(InvalidInputError, match="all of `weights=`"):
        essays.scoring.fit_pp(weights={"f1": 1}, human="h1")
    with pytest.raises(InvalidInputError, match="not both"):
        essays.scoring.fit_pp(model=prior, means=[0, 0, 0], human="h1")
    # df.scoring.predict is the model's predict on the accessor's frame (and pdmetrics.scoring.predict)
    pd.testing.assert_frame_equal(rest.scoring.predict(model=pp, z_name="Z"), pp.predict(rest, z_name="Z"))
    core = pdmetrics.scoring.predict(rest, model=pp, name="E")
    pd.testing.assert_frame_equal(core, pp.predict(rest, name="E"))
    assert_frame_unchanged(before, essays)
    with pytest.raises(InvalidInputError, match="`model=` must be a LinearScoringModel"):
        rest.scoring.predict(model="m")
    with pytest.raises(InvalidInputError, match="no SD of standardized scores"):
        rest.scoring.predict(model=prior)


def test_fit_ep_accessor_equals_classmethod(essays):
    before = essays.copy(deep=True)
    a = essays.scoring.fit_ep(features=FEATURES, human=["h1", "h2"])
    b = LinearScoringModel.fit_ep(essays, features=FEATURES, human=["h1", "h2"])
    assert_frame_unchanged(before, essays)
    assert_close(a.weights, b.weights)
    assert_close([a.z_sd, a.scale_mean, a.scale_sd], [b.z_sd, b.scale_mean, b.scale_sd])
    with pytest.raises(ColumnNotFoundError):
        essays.scoring.fit_ep(features=FEATURES + ["f9"], human="h1")


def test_fit_ep_excludes_incomplete_rows(essays):
    holes = essays.copy()
    holes.loc[holes.index[:3], "f2"] = np.nan
    with pytest.warns(ExcludedRowsWarning, match="3 of 300"):
        a = holes.scoring.fit_ep(features=FEATURES, human="h1")
    b = essays.iloc[3:].scoring.fit_ep(features=FEATURES, human="h1")
    assert_close(a.weights, b.weights)


def test_chain_into_postprocess_and_evaluate(essays):
    # the paper's agreement tables (5, 8, 12): kappa, correlation and exact agreement of the
    # rounded scaled scores with a human score, all from one chain
    pp = essays.iloc[:30].scoring.fit_pp(
        model=essays.scoring.fit_ep(features=FEATURES, human="h1"), human="h1"
    )
    rest = essays.iloc[30:]
    before = rest.copy(deep=True)
    scored = pp.predict(rest).scoring.postprocess(system="e_score", trim_min=1, trim_max=6)
    table = scored.scoring.evaluate(human="h1", system=["e_score", "e_score_trim_round"])
    assert_frame_unchanged(before, rest)
    assert table["N"].tolist() == [270, 270]
    e = pp.predict(rest)["e_score"]
    rounded = np.clip(np.rint(e), 1, 6)
    assert_close(table.loc[0, "corr"], pearson_r(rest["h1"], e))
    assert_close(table.loc[1, "kappa"], cohen_kappa(rest["h1"], rounded))
    assert_close(table.loc[1, "exact_agr"], exact_agreement(rest["h1"], rounded))


# --------------------------------------------------------------------------------------
# simulate_essays
# --------------------------------------------------------------------------------------
def test_simulate_essays_is_seeded_and_shaped():
    a = simulate_essays(50, n_features=4, n_raters=3, seed=1)
    b = simulate_essays(50, n_features=4, n_raters=3, seed=1)
    pd.testing.assert_frame_equal(a, b)
    assert a.columns.tolist() == ["essay", "f1", "f2", "f3", "f4", "true_score", "h1", "h2", "h3"]
    assert isinstance(a.index, pd.RangeIndex)
    assert a[["h1", "h2", "h3"]].isin([1, 2, 3, 4, 5, 6]).all().all()
    assert not simulate_essays(50, n_features=4, seed=2).equals(a)
    assert len(simulate_essays(0)) == 0


def test_simulate_essays_statistics():
    df = simulate_essays(
        20000,
        n_features=10,
        feature_means=3.0,
        feature_sds=2.0,
        score_range=None,
        score_mean=3.5,
        score_sd=1.2,
        seed=4,
    )
    x = df[[f"f{i}" for i in range(1, 11)]]
    assert_close(x.mean(), [3.0] * 10, atol=0.05)
    assert_close(x.std(), [2.0] * 10, atol=0.05)
    corr = x.corr().to_numpy()
    assert_close(corr[np.triu_indices(10, 1)].mean(), 0.35, atol=0.01)
    assert_close([df["h1"].mean(), df["h1"].std()], [3.5, 1.2], atol=0.03)
    assert_close(df["h1"].corr(df["h2"]), 0.64, atol=0.015)  # single-rater reliability
    assert_close(df["h1"].corr(x.sum(axis=1)), 0.80, atol=0.015)  # the paper's rho_SE
    assert_close(df["true_score"].corr(x.sum(axis=1)), 1.0)


def test_simulate_essays_groups_and_effects():
    df = simulate_essays(
        6000, groups={"A": 0.75, "B": 0.25}, group_effects={"B": -0.5}, score_range=None, seed=8
    )
    assert df.columns[1] == "group"
    assert_close((df["group"] == "B").mean(), 0.25, atol=0.02)
    features = df[[f"f{i}" for i in range(1, 11)]].sum(axis=1)
    by_group = df.assign(c=features).groupby("group")[["c", "h1"]].mean()
    assert abs(by_group.loc["A", "c"] - by_group.loc["B", "c"]) < 0.3  # features don't see it
    assert_close(by_group.loc["A", "h1"] - by_group.loc["B", "h1"], 0.5 * 1.2 * 0.8, atol=0.1)
    assert set(simulate_essays(20, groups=["x", "y", "z"], seed=0)["group"]) <= {"x", "y", "z"}


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(n_essays=-1), "n_essays"),
        (dict(n_essays=2.5), "n_essays"),
        (dict(n_raters=0), "n_raters"),
        (dict(reliability_single=1.5), "reliability_single"),
        (dict(true_score_corr=2), "true_score_corr"),
        (dict(feature_corr=-0.5), "feature_corr"),
        (dict(n_features=2, feature_corr=[[1, 0.9], [0.1, 1]]), "symmetric"),
        (dict(n_features=3, feature_corr=[[1, 0.9, -0.9], [0.9, 1, 0.9], [-0.9, 0.9, 1]]), "semi-definite"),
        (dict(n_features=2, feature_sds=[1, 2, 3]), "feature_sds"),
        (dict(n_features=2, true_weights=[0, 0]), "zero variance"),
        (dict(feature_names=["a", "a"]), "distinct"),
        (dict(feature_names=["h1", "x"]), "clash"),
        (dict(groups="AB"), "groups"),
        (dict(groups=["A"], group_effects={"C": 1}), "unknown"),
        (dict(group_effects={"A": 1}), "needs `groups=`"),
        (dict(score_sd=-1), "score_sd"),
        (dict(n_features="x"), "n_features"),
        (dict(n_features=2.5), "n_features"),
        (dict(n_features=0), "n_features"),
        (dict(n_raters="x"), "n_raters"),
        (dict(n_raters=1.5), "n_raters"),
        (dict(reliability_single="high"), "reliability_single"),
        (dict(score_mean="a"), "score_mean"),
        (dict(score_sd=float("nan")), "score_sd"),
        (dict(score_range=(1,)), "score_range"),
        (dict(score_range=(6, 1)), "score_range"),
        (dict(feature_sds=-1.0), "feature_sds"),
        (dict(feature_means=["a"] * 10), "feature_means"),
    ],
)
def test_simulate_essays_rejects_bad_arguments(kwargs, match):
    kwargs.setdefault("n_essays", 10)
    with pytest.raises(InvalidInputError, match=match):
        simulate_essays(**kwargs)


def test_accessor_methods_accept_pandas_dtypes_and_leave_the_frame_unchanged(essays):
    # nullable Int64/Float64, numeric strings and categoricals give the same numbers as float64
    plain = essays.assign(h1=essays["h1"].astype("float64"))
    odd = plain.assign(
        f1=plain["f1"].astype("Float64"),
        f2=plain["f2"].astype(str),
        f3=pd.Categorical(plain["f3"]),
        h1=plain["h1"].astype("Int64"),
    )
    before = odd.copy(deep=True)
    weights = {"f1": 2, "f2": 1, "f3": 1}
    assert_close(
        odd.scoring.weighted_score(features=weights)["Z"], plain.scoring.weighted_score(features=weights)["Z"]
    )
    ep_odd = odd.scoring.fit_ep(features=FEATURES, human="h1")
    ep = plain.scoring.fit_ep(features=FEATURES, human="h1")
    assert_close(ep_odd.weights, ep.weights)
    pp_odd = odd.iloc[:30].scoring.fit_pp(model=ep, human="h1")
    pp = plain.iloc[:30].scoring.fit_pp(model=ep, human="h1")
    assert_close(
        [pp_odd.z_mean, pp_odd.z_sd, pp_odd.scale_mean, pp_odd.scale_sd],
        [pp.z_mean, pp.z_sd, pp.scale_mean, pp.scale_sd],
    )
    assert_close(pp_odd.predict(odd)["e_score"], pp.predict(plain)["e_score"])
    assert_frame_unchanged(before, odd)
    with pytest.raises(InvalidInputError, match="boolean"):
        plain.assign(h1=plain["h1"] > 3).scoring.fit_pp(model=ep, human="h1")
