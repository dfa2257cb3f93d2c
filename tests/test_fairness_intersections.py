"""``df.fairness.intersections``: the crossed cells that drive a gap, ranked.

Every cell's rate equals a pandas groupby over the rows, the contributions ``N (rate -
overall) / N_all`` add up to 0, small cells are flagged or pooled into one row whose numbers
are the sums of theirs; dask (3 partitions) and polars give the pandas table.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pdmetrics  # noqa: F401
from pdmetrics import InvalidInputError, UndefinedMetricWarning
from pdmetrics.fairness import intersections
from pdmetrics.fairness.crossed_groups import SMALL_LABEL

TOL = {"rtol": 1e-12, "atol": 1e-12}


def crossed(n: int = 1500, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sex = rng.choice(["F", "M"], n)
    race = rng.choice(["a", "b", "c", "d"], n, p=[0.6, 0.25, 0.13, 0.02])
    y = (rng.random(n) < 0.4).astype(int)
    lift = 0.2 * (sex == "F") * (race == "b") - 0.15 * (race == "c")
    pred = (rng.random(n) < np.clip(0.3 + 0.3 * y + lift, 0, 1)).astype(int)
    return pd.DataFrame({"y": y, "pred": pred, "sex": sex, "race": race})


def expected_cells(df: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Each cell's numerator and denominator from a pandas groupby of the rows."""
    y, p = df["y"] == 1, df["pred"] == 1
    numerator, denominator = {
        "selection_rate": (p, pd.Series(True, index=df.index)),
        "tpr": (p & y, y),
        "fpr": (p & ~y, ~y),
        "precision": (p & y, p),
    }[metric]
    frame = df[["sex", "race"]].assign(num=numerator & denominator, den=denominator)
    cells = frame.groupby(["sex", "race"]).agg(count=("num", "sum"), N=("den", "sum")).reset_index()
    return cells


@pytest.mark.parametrize("metric", ["selection_rate", "tpr", "fpr", "precision"])
def test_equals_a_groupby_of_the_rows_and_the_contributions_add_up_to_zero(metric):
    df = crossed(1500, seed=1)
    out = df.fairness.intersections(y_true="y", y_pred="pred", by=["sex", "race"], metric=metric, min_size=30)
    cells = expected_cells(df, metric)
    merged = out.merge(cells, on=["sex", "race"], suffixes=("", "_expected"))
    assert len(merged) == len(cells) == len(out)
    np.testing.assert_array_equal(merged["N"], merged["N_expected"])
    np.testing.assert_array_equal(merged["count"], merged["count_expected"])
    overall = cells["count"].sum() / cells["N"].sum()
    rate = merged["count"] / merged["N"]
    np.testing.assert_allclose(merged["rate"], rate, **TOL)
    np.testing.assert_allclose(merged["gap"], rate - overall, **TOL)
    np.testing.assert_allclose(
        merged["contribution"], merged["N"] * (rate - overall) / cells["N"].sum(), **TOL
    )
    assert abs(out["contribution"].sum()) < 1e-12
    assert (np.diff(out["contribution"].abs().to_numpy()) <= 1e-15).all()
    assert out["rank"].tolist() == list(range(1, len(out) + 1))
    assert out["small"].tolist() == (out["N"] < 30).tolist()
    assert out.attrs["pdmetrics"]["N_all"] == cells["N"].sum()


def test_small_cells_pool_into_one_row():
    df = crossed(1500, seed=2)
    flagged = df.fairness.intersections(y_true="y", y_pred="pred", by=["sex", "race"], min_size=100)
    pooled = df.fairness.intersections(
        y_true="y", y_pred="pred", by=["sex", "race"], min_size=100, small="pool"
    )
    small = flagged[flagged["small"]]
    assert len(small) >= 2
    row = pooled[pooled["sex"] == SMALL_LABEL].iloc[0]
    assert row["race"] == SMALL_LABEL and row["small"]
    assert row["N"] == small["N"].sum() and row["count"] == small["count"].sum()
    np.testing.assert_allclose(row["contribution"], small["contribution"].sum(), **TOL)
    assert len(pooled) == len(flagged) - len(small) + 1
    assert abs(pooled["contribution"].sum()) < 1e-12


def test_a_cell_without_denominator_has_no_rate_and_zero_contribution():
    df = crossed(800, seed=3)
    df.loc[(df.sex == "F") & (df.race == "d"), "pred"] = 0
    out = df.fairness.intersections(y_true="y", y_pred="pred", by=["sex", "race"], metric="precision")
    cell = out[(out.sex == "F") & (out.race == "d")].iloc[0]
    assert cell["N"] == 0 and np.isnan(cell["rate"]) and cell["contribution"] == 0 and cell["small"]


def test_one_column_and_a_metric_without_any_denominator():
    df = crossed(300, seed=4)
    one = df.fairness.intersections(y_true="y", y_pred="pred", by="race")
    assert list(one.columns[:2]) == ["race", "N"]
    with pytest.warns(UndefinedMetricWarning, match="no row in its denominator"):
        out = df.assign(y=0).fairness.intersections(y_true="y", y_pred="pred", by="race", metric="tpr")
    assert out["rate"].isna().all()


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"metric": "f1"}, r"`metric='f1'`: choose one of"),
        ({"min_size": -1}, r"`min_size=-1` must be a whole number"),
        ({"min_size": 2.5}, r"`min_size=2.5`"),
        ({"small": "drop"}, r"`small='drop'`: choose 'flag' or 'pool'"),
        ({"by": None}, r"`by=None`: name the group columns"),
    ],
)
def test_bad_options_are_refused(options, match):
    with pytest.raises(InvalidInputError, match=match):
        crossed(100).fairness.intersections(
            **{"y_true": "y", "y_pred": "pred", "by": ["sex", "race"], **options}
        )


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 60), st.sampled_from(["flag", "pool"]))
def test_contributions_add_to_zero_and_rank_by_size(seed, min_size, small):
    df = crossed(200, seed=seed)
    out = intersections(df, y_true="y", y_pred="pred", by=["sex", "race"], min_size=min_size, small=small)
    assert abs(out["contribution"].sum()) < 1e-12
    assert out["N"].sum() == len(df)
    assert (np.diff(out["contribution"].abs().to_numpy()) <= 1e-15).all()


@pytest.mark.parametrize("classes", [None, "all"], ids=["binary", "classes"])
def test_dask_and_polars_give_the_pandas_table(classes):
    df = crossed(1200, seed=5) if classes is None else graded(1200, seed=5)
    options = {"y_true": "y", "y_pred": "pred", "by": ["sex", "race"], "min_size": 60, "small": "pool"}
    if classes is not None:
        options.update(classes=classes, ordinal=True, metric="tpr")
    expected = df.fairness.intersections(**options)
    dd = pytest.importorskip("dask.dataframe")
    on_dask = dd.from_pandas(df, npartitions=3).fairness.intersections(**options)
    pd.testing.assert_frame_equal(
        on_dask, expected, check_dtype=False, check_exact=False, rtol=1e-12, atol=1e-14
    )
    assert on_dask.attrs == expected.attrs
    pl = pytest.importorskip("polars")
    from test_polars import assert_same  # labels of several types arrive as text from polars

    assert_same(pl.from_pandas(df).fairness.intersections(**options), expected)


# ------------------------------------------------------------------------------------------
# classes: one ranked block per class (one vs rest) and per cumulative split
# ------------------------------------------------------------------------------------------
def graded(n: int = 1500, seed: int = 0, values=(1, 2, 3)) -> pd.DataFrame:
    """Three ordered classes; the crossed cell (F, d) never has the last class."""
    df = crossed(n, seed)
    rng = np.random.default_rng(seed + 1)
    y = rng.integers(0, 3, n)
    pred = np.where(rng.random(n) < 0.3 + 0.2 * (df["race"] == "c"), rng.integers(0, 3, n), y)
    cell = ((df["sex"] == "F") & (df["race"] == "d")).to_numpy()
    y[cell], pred[cell] = y[cell] % 2, pred[cell] % 2
    lookup = np.asarray(values, dtype=object)
    return df.assign(y=lookup[y], pred=lookup[pred]).astype(
        {"y": np.asarray(values).dtype, "pred": np.asarray(values).dtype}
    )


@pytest.mark.parametrize("values", [(1, 2, 3), ("lo", "mid", "hi")], ids=["integers", "strings"])
@pytest.mark.parametrize(
    ("metric", "small"), [("selection_rate", "flag"), ("tpr", "pool"), ("precision", "flag")]
)
def test_each_class_and_split_equals_the_binary_table_on_the_binarised_labels(values, metric, small):
    df = graded(values=values)
    options = {
        "y_true": "y",
        "y_pred": "pred",
        "by": ["sex", "race"],
        "metric": metric,
        "min_size": 40,
        "small": small,
    }
    out = df.fairness.intersections(classes=list(values), ordinal=True, **options)
    assert list(out.columns[:3]) == ["sex", "race", "class"]
    for k, value in enumerate(values):
        binary = df.assign(y=(df["y"] == value).astype(int), pred=(df["pred"] == value).astype(int))
        alone = binary.fairness.intersections(**options)
        mine = out[(out["class"] == value).to_numpy()].drop(columns="class").reset_index(drop=True)
        pd.testing.assert_frame_equal(mine, alone, check_dtype=False, check_exact=False, rtol=1e-12)
        assert out.attrs["pdmetrics"]["N_all"][value] == alone.attrs["pdmetrics"]["N_all"]
        if k:  # the split ">= value": the positions in the listed order
            split = df.assign(
                y=df["y"].isin(values[k:]).astype(int), pred=df["pred"].isin(values[k:]).astype(int)
            )
            alone = split.fairness.intersections(**options)
            mine = (
                out[(out["class"] == f">= {value}").to_numpy()].drop(columns="class").reset_index(drop=True)
            )
            pd.testing.assert_frame_equal(mine, alone, check_dtype=False, check_exact=False, rtol=1e-12)


def test_classes_none_keeps_the_binary_table_and_bad_class_options_are_refused():
    df = crossed(600, seed=3)
    options = {"y_true": "y", "y_pred": "pred", "by": ["sex", "race"]}
    pd.testing.assert_frame_equal(
        df.fairness.intersections(classes=None, **options), df.fairness.intersections(**options)
    )
    with pytest.raises(InvalidInputError, match=r"`pos_label=0` and `classes=` together"):
        df.fairness.intersections(classes="all", pos_label=0, **options)
    with pytest.raises(InvalidInputError, match=r"`classes=` lists 7, which occur in neither"):
        df.fairness.intersections(classes=[0, 7], **options)


def test_classes_with_no_group_left_give_an_empty_table():
    """Every group value missing with `classes=`: an empty table with the class column, not a
    concat error."""
    rng = np.random.default_rng(6)
    frame = pd.DataFrame({"y": rng.integers(0, 3, 30), "p": rng.integers(0, 3, 30), "g": np.nan, "h": "x"})
    with pytest.warns(UserWarning, match="30 of 30 rows left out"):
        table = frame.fairness.intersections(y_true="y", y_pred="p", by=["g", "h"], classes="all")
    assert table.empty
    assert list(table.columns[:4]) == ["g", "h", "class", "N"]


def test_a_group_named_like_the_pooled_small_cells_is_refused_when_pooling():
    """A group called "(small cells)" would print like the pooled row of `small="pool"`."""
    rng = np.random.default_rng(8)
    frame = pd.DataFrame(
        {
            "y": rng.integers(0, 2, 80),
            "p": rng.integers(0, 2, 80),
            "g": rng.choice(["a", SMALL_LABEL], 80),
            "h": rng.choice(["x", "y"], 80),
        }
    )
    options = {"y_true": "y", "y_pred": "p", "by": ["g", "h"], "min_size": 5}
    with pytest.raises(InvalidInputError, match=r"`by=` column 'g' holds the value '\(small cells\)'"):
        frame.fairness.intersections(small="pool", **options)
    assert (frame.fairness.intersections(**options)["g"] == SMALL_LABEL).any()  # flag: no pooled row
