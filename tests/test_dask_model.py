"""True scores (PRMSE) and the on-the-fly scoring model on dask: the pandas path's numbers.

``ddf.scoring.true_score``, ``fit_ep`` and ``fit_pp`` run in one pass over the partitions
(additive states: rating histograms and sums of squares, means and centred cross-products);
``weighted_score`` and ``predict`` add their columns lazily, partition by partition. Numbers
equal the pandas path to 1e-12 relative (counts exactly) for any partitioning; ``z_mean`` of a
model fitted on its own training sample is 0 up to float rounding, so it is compared with an
absolute 1e-13 as well.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
import test_dask
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_dask import assert_same_table, quiet

from pdmetrics import (
    ColumnNotFoundError,
    ExcludedRowsWarning,
    InvalidInputError,
    UndefinedMetricWarning,
)
from pdmetrics.datasets import simulate_essays
from pdmetrics.scoring import LinearScoringModel
from pdmetrics.scoring.true_scores import (
    true_score_table,
    true_score_table_from_state,
    true_score_table_state,
)

dd = pytest.importorskip("dask.dataframe")
dask = pytest.importorskip("dask")
Delayed = pytest.importorskip("dask.delayed").Delayed
DaskScoringAccessor = pytest.importorskip("pdmetrics.accessors").ScoringAccessor  # one class, every engine

cluster_client = test_dask.cluster_client  # the fixture: a LocalCluster of two worker processes
pytestmark = pytest.mark.filterwarnings("ignore::pdmetrics.UndefinedMetricWarning")


def scoring(ddf):
    """``ddf.scoring`` (its methods run their specs on the dask engine)."""
    accessor = ddf.scoring
    assert isinstance(accessor, DaskScoringAccessor)
    return accessor


# --------------------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------------------
def rated(n: int, seed: int = 0) -> pd.DataFrame:
    """Responses: three raters (the second on about half, the third on a fifth), two systems,
    some zeros (missing when exclude_zero) and missing system scores."""
    rng = np.random.default_rng(seed)
    true = rng.normal(3.5, 1.1, n)
    ratings = [np.clip(np.rint(true + rng.normal(0, 0.7, n)), 0, 6) for _ in range(3)]
    frame = pd.DataFrame(
        {
            "h1": ratings[0],
            "h2": np.where(rng.random(n) < 0.5, ratings[1], np.nan),
            "h3": np.where(rng.random(n) < 0.2, ratings[2], np.nan),
            "s": true + rng.normal(0, 0.6, n),
            "t": rng.normal(3.5, 1.2, n),
        }
    )
    frame.loc[rng.random(n) < 0.03, "s"] = np.nan
    frame.loc[rng.random(n) < 0.05, "h1"] = np.nan
    return frame


def essays(n: int, seed: int = 0) -> pd.DataFrame:
    frame = simulate_essays(n, n_features=3, true_weights=[0.5, 0.3, 0.2], seed=seed)
    rng = np.random.default_rng(seed)
    frame.loc[rng.random(n) < 0.03, "f2"] = np.nan
    frame.loc[rng.random(n) < 0.03, "h2"] = np.nan
    return frame


def assert_same_model(a: LinearScoringModel, b: LinearScoringModel) -> None:
    assert a.features == b.features
    for attribute in ("weights", "means", "sds"):
        np.testing.assert_allclose(
            getattr(a, attribute), getattr(b, attribute), rtol=1e-12, err_msg=attribute
        )
    if b.intercorrelations is None:
        assert a.intercorrelations is None
    else:
        np.testing.assert_allclose(a.intercorrelations, b.intercorrelations, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(a.z_mean, b.z_mean, rtol=1e-12, atol=1e-13, err_msg="z_mean")
    for attribute in ("z_sd", "scale_mean", "scale_sd"):
        np.testing.assert_allclose(
            getattr(a, attribute), getattr(b, attribute), rtol=1e-12, err_msg=attribute
        )


TRUE_SCORES = [
    {"system": ["s", "t"], "raters": ["h1", "h2"]},
    {"system": "s", "raters": ["h1", "h2", "h3"], "exclude_zero": False},
    {"system": "s", "raters": "h1", "rater_error_variance": 0.4},
]


# --------------------------------------------------------------------------------------
# true scores
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", TRUE_SCORES, ids=range(len(TRUE_SCORES)))
@pytest.mark.parametrize("npartitions", [1, 3, 17])
def test_true_score_equals_the_pandas_path(kwargs, npartitions):
    frame = rated(3000)
    ddf = dd.from_pandas(frame, npartitions=npartitions)
    assert_same_table(
        quiet(scoring(ddf).true_score, **kwargs),
        quiet(frame.scoring.true_score, **kwargs),
    )


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(1, 300),
    npartitions=st.integers(1, 12),
    seed=st.integers(0, 2**16),
    case=st.sampled_from(range(len(TRUE_SCORES))),
    empty_partitions=st.booleans(),
)
def test_true_score_any_partitioning_and_row_order(n, npartitions, seed, case, empty_partitions):
    kwargs = TRUE_SCORES[case]
    frame = rated(n, seed).sample(frac=1.0, random_state=seed).reset_index(drop=True)
    ddf = dd.from_pandas(frame, npartitions=npartitions, sort=False)
    if empty_partitions:  # the rows with a low first rating go: some partitions hold none
        frame = frame.sort_values("h1", kind="stable").reset_index(drop=True)
        ddf = dd.from_pandas(frame, npartitions=npartitions, sort=False)
        ddf, frame = ddf[~(ddf["h1"] <= 3)], frame[~(frame["h1"] <= 3)]
    assume(len(frame) > 0)
    try:
        expected = quiet(frame.scoring.true_score, **kwargs)
    except InvalidInputError as error:  # no usable response: refused the same way
        with pytest.raises(InvalidInputError) as refused:
            quiet(scoring(ddf).true_score, **kwargs)
        assert str(refused.value) == str(error)
    else:
        table = quiet(scoring(ddf).true_score, **kwargs)
        # MSE true and PRMSE are differences of sums: in tiny samples they can be near 0,
        # where the float rounding of the sums is the floor (as SMD and DSM in test_dask.py)
        near_zero = ["True score var", "MSE true", "PRMSE true"]
        for column in near_zero:
            np.testing.assert_allclose(table[column], expected[column], rtol=1e-12, atol=1e-12)
        exact = [c for c in expected.columns if c not in near_zero]
        assert_same_table(table[exact], expected[exact])


@pytest.mark.parametrize("cuts", [[], [1], [0, 700, 700, 1999]])
def test_true_score_table_state_combines_chunks(cuts):
    """The report's table (no response left out; unrated ones make it NaN) from chunk states."""
    frame = rated(2000, seed=2)
    systems, with_unrated = frame[["s", "t"]].fillna(3.0), frame[["h1", "h2", "h3"]].to_numpy()
    every_rated = np.where(np.isnan(with_unrated).all(axis=1, keepdims=True), 4.0, with_unrated)
    assert np.isnan(with_unrated).all(axis=1).any()
    for ratings in (every_rated, with_unrated):
        bounds = [0, *cuts, len(frame)]
        states = [
            true_score_table_state(systems.iloc[a:b], ratings[a:b]) for a, b in zip(bounds[:-1], bounds[1:])
        ]
        state = states[0]
        for other in states[1:]:
            state = state.combine(other)
        with warnings.catch_warnings(record=True) as combined:
            warnings.simplefilter("always")
            table = true_score_table_from_state(state)
        with warnings.catch_warnings(record=True) as whole:
            warnings.simplefilter("always")
            expected = true_score_table(systems, ratings)
        assert [str(w.message) for w in combined] == [str(w.message) for w in whole]
        assert_same_table(table, expected)


def test_true_score_warnings_once_for_the_whole_frame():
    frame = rated(1000)
    ddf = dd.from_pandas(frame, npartitions=5)
    with pytest.warns(ExcludedRowsWarning, match=r"of 1000 responses were left out") as caught:
        scoring(ddf).true_score(system="s", raters=["h1", "h2"])
    assert len(caught) == 1
    with pytest.warns(UndefinedMetricWarning, match="no response has two or more ratings") as caught:
        single = frame.dropna(subset=["s", "h3"])  # one rating each, every row used
        scoring(dd.from_pandas(single, npartitions=4)).true_score(
            system="s", raters=["h3"], exclude_zero=False
        )
    assert len([w for w in caught if issubclass(w.category, UndefinedMetricWarning)]) == 1


def test_true_score_compute_false_is_delayed():
    frame = rated(800)
    ddf = dd.from_pandas(frame, npartitions=4)
    lazy = scoring(ddf).true_score(system="s", raters=["h1", "h2"], compute=False)
    assert isinstance(lazy, Delayed)
    (table,) = quiet(dask.compute, lazy)
    assert_same_table(table, quiet(frame.scoring.true_score, system="s", raters=["h1", "h2"]))


def test_true_score_nothing_usable_refused_like_pandas():
    frame = rated(200).assign(s=np.nan)
    ddf = dd.from_pandas(frame, npartitions=3)
    with pytest.raises(InvalidInputError, match=r"`system='s'`: all 200 values are missing"):
        scoring(ddf).true_score(system="s", raters=["h1", "h2"])


# --------------------------------------------------------------------------------------
# errors before any work: partitions that would fail if read
# --------------------------------------------------------------------------------------
def _unreadable(part):
    raise RuntimeError("a partition was read")


@pytest.fixture
def unreadable():
    frame = rated(50).join(essays(50).drop(columns=["h1", "h2"])).assign(flag=True)
    return dd.from_pandas(frame, npartitions=2).map_partitions(_unreadable, meta=frame.iloc[:0])


def test_bad_arguments_fail_before_any_work(unreadable):
    sc = scoring(unreadable)
    model = LinearScoringModel({"f1": 1, "f2": 1}, means=0, sds=1)
    with pytest.raises(ColumnNotFoundError, match=r"`system='nope'`"):
        sc.true_score(system="nope", raters=["h1", "h2"])
    with pytest.raises(ColumnNotFoundError, match=r"raters="):
        sc.true_score(system="s", raters=["h1", "nope"])
    with pytest.raises(InvalidInputError, match="rater_error_variance"):
        sc.true_score(system="s", raters=["h1"], rater_error_variance=-1)
    with pytest.raises(InvalidInputError, match="exclude_zero"):
        sc.true_score(system="s", raters=["h1", "h2"], exclude_zero="no")
    with pytest.raises(InvalidInputError, match="compared with itself"):
        sc.true_score(system="h1", raters=["h1", "h2"])
    with pytest.raises(InvalidInputError, match="`system='flag'` is a boolean column"):
        sc.true_score(system="flag", raters=["h1", "h2"])
    with pytest.raises(InvalidInputError, match="`raters='flag'` is a boolean column"):
        sc.true_score(system="s", raters=["h1", "flag"])
    with pytest.raises(InvalidInputError, match="`features=` has no numeric|`features='flag'`"):
        sc.fit_ep(features=["f1", "flag"], human="h1")
    with pytest.raises(ColumnNotFoundError, match="features="):
        sc.fit_ep(features=["f1", "nope"], human="h1")
    with pytest.raises(InvalidInputError, match="exactly the features"):
        sc.fit_ep(features=["f1", "f2"], human="h1", weights={"f1": 1})
    with pytest.raises(ColumnNotFoundError, match="human="):
        sc.fit_pp(model=model, human="nope")
    with pytest.raises(InvalidInputError, match="not both"):
        sc.fit_pp(model=model, human="h1", weights={"f1": 1})
    with pytest.raises(InvalidInputError, match="model="):
        sc.predict(model="m")
    with pytest.raises(InvalidInputError, match="no SD of standardized scores"):
        sc.predict(model=model)
    with pytest.raises(InvalidInputError, match="sum to"):
        sc.weighted_score(features={"f1": 1, "f2": -1})
    with pytest.raises(ColumnNotFoundError, match="features="):
        sc.weighted_score(features={"f1": 1, "nope": 1})
    with pytest.raises(InvalidInputError, match="name="):
        sc.weighted_score(features={"f1": 1}, means=0, sds=1, name=3)
    # the lazy columns never read a partition until computed
    scaled = model.replace(z_sd=1.0, scale_mean=3.0, scale_sd=1.0)
    assert isinstance(sc.predict(model=scaled), dd.DataFrame)
    assert isinstance(sc.weighted_score(features={"f1": 1}, means=0, sds=1), dd.DataFrame)


# --------------------------------------------------------------------------------------
# the on-the-fly model
# --------------------------------------------------------------------------------------
FEATURES = ["f1", "f2", "f3"]


@pytest.mark.parametrize("npartitions", [1, 3, 17])
@pytest.mark.parametrize("weights", [None, {"f1": 2, "f2": 1, "f3": 1}])
def test_fit_ep_equals_the_pandas_path(npartitions, weights):
    frame = essays(3000)
    ddf = dd.from_pandas(frame, npartitions=npartitions)
    kwargs = {"features": FEATURES, "human": ["h1", "h2"], "weights": weights}
    assert_same_model(quiet(scoring(ddf).fit_ep, **kwargs), quiet(frame.scoring.fit_ep, **kwargs))


@pytest.mark.parametrize("npartitions", [1, 3, 17])
def test_fit_pp_and_predict_equal_the_pandas_path(npartitions):
    prior = LinearScoringModel({"f1": 50, "f2": 30, "f3": 20}, means=0.1, sds=[1.1, 0.9, 1.0])
    frame = essays(2000, seed=4)
    ddf = dd.from_pandas(frame, npartitions=npartitions)
    model = quiet(scoring(ddf).fit_pp, model=prior, human=["h1", "h2"])
    expected = quiet(frame.scoring.fit_pp, model=prior, human=["h1", "h2"])
    assert_same_model(model, expected)
    given = {"weights": {"f1": 1, "f2": 1}, "means": 0, "sds": 1}
    assert_same_model(
        quiet(scoring(ddf).fit_pp, human="h1", **given), quiet(frame.scoring.fit_pp, human="h1", **given)
    )
    scored = scoring(ddf).predict(model=expected, z_name="Z")
    assert isinstance(scored, dd.DataFrame)
    pd.testing.assert_frame_equal(scored.compute(), expected.predict(frame, z_name="Z"))


@pytest.mark.parametrize("npartitions", [1, 3, 17])
def test_weighted_score_equals_the_pandas_path(npartitions):
    frame = essays(2000, seed=5)
    ddf = dd.from_pandas(frame, npartitions=npartitions)
    estimated = scoring(ddf).weighted_score(features={"f1": 0.7, "f2": 0.3})
    assert isinstance(estimated, dd.DataFrame)
    expected = frame.scoring.weighted_score(features={"f1": 0.7, "f2": 0.3})
    pd.testing.assert_frame_equal(estimated.compute(), expected, check_exact=False, rtol=1e-12, atol=1e-13)
    given = {"features": {"f1": 1, "f3": 3}, "means": {"f1": 0, "f3": 1}, "sds": 2, "name": "W"}
    pd.testing.assert_frame_equal(
        scoring(ddf).weighted_score(**given).compute(), frame.scoring.weighted_score(**given)
    )
    model = LinearScoringModel({"f1": 1, "f2": 1}, means=0, sds=1)
    pd.testing.assert_frame_equal(
        scoring(ddf).weighted_score(features=model).compute(), frame.scoring.weighted_score(features=model)
    )


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(1, 200),
    npartitions=st.integers(1, 10),
    seed=st.integers(0, 2**16),
    fit=st.sampled_from(["ep", "pp", "weighted_score"]),
    empty_partitions=st.booleans(),
)
def test_model_any_partitioning_and_row_order(n, npartitions, seed, fit, empty_partitions):
    frame = essays(n, seed).sample(frac=1.0, random_state=seed).reset_index(drop=True)
    if empty_partitions:
        frame = frame.sort_values("f1", kind="stable").reset_index(drop=True)
        ddf = dd.from_pandas(frame, npartitions=npartitions, sort=False)
        ddf, frame = ddf[ddf["f1"] > 0], frame[frame["f1"] > 0]
    else:
        ddf = dd.from_pandas(frame, npartitions=npartitions, sort=False)
    assume(len(frame) > 0)
    prior = LinearScoringModel({"f1": 50, "f2": 30, "f3": 20}, means=0.1, sds=[1.1, 0.9, 1.0])
    if fit == "ep":
        call = {"method": "fit_ep", "features": FEATURES, "human": ["h1", "h2"]}
    elif fit == "pp":
        call = {"method": "fit_pp", "model": prior, "human": "h1"}
    else:
        call = {"method": "weighted_score", "features": {"f1": 0.7, "f2": 0.3}}
    method = call.pop("method")
    try:
        expected = quiet(getattr(frame.scoring, method), **call)
    except InvalidInputError as error:  # too few rows, constant scores: refused the same way
        with pytest.raises(InvalidInputError) as refused:
            quiet(getattr(scoring(ddf), method), **call)
        assert str(refused.value) == str(error)
    else:
        result = quiet(getattr(scoring(ddf), method), **call)
        if method == "weighted_score":
            pd.testing.assert_frame_equal(
                result.compute(), expected, check_exact=False, rtol=1e-12, atol=1e-12
            )
        else:
            assert_same_model(result, expected)


def test_model_warnings_once():
    frame = essays(1000)
    ddf = dd.from_pandas(frame, npartitions=6)
    with pytest.warns(ExcludedRowsWarning, match=r"Left out \d+ of 1000 rows") as caught:
        scoring(ddf).fit_ep(features=FEATURES, human="h2")
    assert len(caught) == 1
    prior = LinearScoringModel({"f1": 1, "f2": 1}, means=0, sds=1)
    with pytest.warns(ExcludedRowsWarning, match=r"Left out \d+ of 1000 rows") as caught:
        scoring(ddf).fit_pp(model=prior, human="h2")
    assert len(caught) == 1


def test_fits_compute_false_are_delayed_models():
    frame = essays(600)
    ddf = dd.from_pandas(frame, npartitions=3)
    lazy = scoring(ddf).fit_ep(features=FEATURES, human="h1", compute=False)
    assert isinstance(lazy, Delayed)
    (model,) = quiet(dask.compute, lazy)
    assert_same_model(model, quiet(frame.scoring.fit_ep, features=FEATURES, human="h1"))


def test_model_methods_given_a_dask_frame_point_to_the_accessor():
    ddf = dd.from_pandas(essays(100), npartitions=2)
    model = LinearScoringModel({"f1": 1, "f2": 1}, means=0, sds=1, z_sd=1, scale_mean=3, scale_sd=1)
    for call in (
        lambda: model.predict(ddf),
        lambda: model.fit_scaling(ddf, human="h1"),
        lambda: model.relative_influence(ddf),
        lambda: LinearScoringModel.fit_ep(ddf, features=FEATURES, human="h1"),
    ):
        with pytest.raises(InvalidInputError, match=r"got a dask\.DataFrame\. On a dask DataFrame use"):
            call()


def test_too_few_rows_refused_across_partitions():
    frame = essays(40).assign(f3=np.nan)
    frame.loc[:2, "f3"] = 1.0
    ddf = dd.from_pandas(frame, npartitions=4)
    with pytest.raises(InvalidInputError, match=r"at least 5 complete rows .* got 3 of 40"):
        quiet(scoring(ddf).fit_ep, features=FEATURES, human="h1")


# --------------------------------------------------------------------------------------
# a real cluster over parquet
# --------------------------------------------------------------------------------------
def test_local_cluster_of_two_worker_processes_reading_parquet(tmp_path, cluster_client):
    pytest.importorskip("pyarrow")
    frame = rated(12000, seed=3).join(essays(12000, seed=3).rename(columns={"h1": "e1", "h2": "e2"}))
    for i in range(4):
        frame.iloc[i * 3000 : (i + 1) * 3000].to_parquet(tmp_path / f"part-{i}.parquet")
    ddf = dd.read_parquet(str(tmp_path / "*.parquet"))
    assert len(cluster_client.nthreads()) == 2  # asked of the scheduler now (two worker processes)
    sc = scoring(ddf)
    kwargs = {"system": ["s", "t"], "raters": ["h1", "h2", "h3"]}
    assert_same_table(quiet(sc.true_score, **kwargs), quiet(frame.scoring.true_score, **kwargs))
    ep = quiet(sc.fit_ep, features=FEATURES, human=["e1", "e2"])
    assert_same_model(ep, quiet(frame.scoring.fit_ep, features=FEATURES, human=["e1", "e2"]))
    pp = quiet(sc.fit_pp, model=ep, human="e2")
    expected = quiet(frame.scoring.fit_pp, model=ep, human="e2")
    assert_same_model(pp, expected)
    scored = sc.predict(model=expected).compute()
    np.testing.assert_array_equal(scored["e_score"].to_numpy(), expected.predict(frame)["e_score"].to_numpy())
