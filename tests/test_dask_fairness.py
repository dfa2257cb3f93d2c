"""``ddf.fairness``: the fairness tables on dask DataFrames equal the pandas path's.

Every table is chunk -> additive state -> combine -> finalize in its core module; the pandas
path is the same code with one chunk. Numbers equal the pandas path to 1e-12 relative (counts
exactly, attrs equal) for any partitioning, row order, empty partitions and groups present in
one partition only; warnings are raised once, and the checks of whole columns give the
pandas path's messages. R2 and R2_unadjusted are ``1 - SSR/TSS``: near 0 they carry the float64
rounding of 1 itself (a few 1e-16, whatever the order of summation), so for these two the
comparison also allows an absolute 1e-13 (as SMD and DSM in tests/test_dask.py).
"""

import warnings

import numpy as np
import pandas as pd
import pytest
import test_dask
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from pdmetrics import ColumnNotFoundError, ExcludedRowsWarning, InvalidInputError, NotPartitionableError
from pdmetrics.accessors import FairnessAccessor

dd = pytest.importorskip("dask.dataframe")
dask = pytest.importorskip("dask")
Delayed = pytest.importorskip("dask.delayed").Delayed

#: Differences of nearly equal numbers (see the module docstring).
ABSOLUTE_FLOOR = {"R2": 1e-13, "R2_unadjusted": 1e-13}


def outcomes(n: int, seed: int = 0) -> pd.DataFrame:
    """Labels, predictions, sensitive and group columns, and scores for the fairness tables."""
    rng = np.random.default_rng(seed)
    h = rng.integers(1, 7, n).astype(float)
    frame = pd.DataFrame(
        {
            "y": rng.integers(0, 2, n),
            "p": rng.integers(0, 2, n).astype(float),
            "g": rng.choice(["a", "b", "c", None], n, p=[0.5, 0.3, 0.15, 0.05]),
            "k": rng.integers(6, 10, n),
            "cat": pd.Categorical(rng.choice(["z", "y", "x"], n), categories=["z", "y", "x"]),
            "age": rng.integers(18, 90, n).astype(float),
            "male": rng.integers(0, 2, n),
            "h": h,
            "s": h + rng.normal(0.1, 0.8, n),
        }
    )
    options = np.array([rng.permutation([1, 2, 3]) for _ in range(n)]).reshape(n, 3)
    frame = frame.assign(
        label=rng.choice(["H", "L"], n),
        answer=rng.choice(["H", "L", " H\n", "<think>x</think>L", "maybe", None], n),
        twin=rng.choice(["H", "L", "y", None], n),
        failed=rng.choice([None, "", "HTTP 500"], n, p=[0.45, 0.45, 0.1]),
        option=rng.choice(["1", "2 because", "3", "x", None], n),
        st=options[:, 0],
        an=options[:, 1],
        un=options[:, 2],
        lang=rng.choice(["en", "es", "de"], n),
        correct=rng.choice(["Paris", "Rome"], n),
        said=rng.choice(["Paris", "rome", "xx", None], n),
        metric=rng.normal(0.5, 0.2, n),
    )
    frame.loc[rng.random(n) < 0.03, "p"] = np.nan
    frame.loc[rng.random(n) < 0.03, "age"] = np.nan
    frame.loc[rng.random(n) < 0.02, "s"] = np.nan
    return frame


TABLES = [
    ("classification", {"y_true": "y", "y_pred": "p", "by": "male"}),
    (
        "classification",
        {
            "y_true": "y",
            "y_pred": "p",
            "by": ["male", "age"],
            "threshold": {"age": "midrange"},
            "n_resamples": 30,
            "random_state": 1,
        },
    ),
    (
        "classification",
        {
            "y_true": "y",
            "y_pred": "p",
            "by": ["g", "age"],
            "privileged": {"g": ["a", "c"]},
            "threshold": {"age": 40},
            "invert": {"age": True},
            "zero_division": "warn",
        },
    ),
    ("by_group", {"y_true": "y", "y_pred": "p", "by": "g"}),
    ("by_group", {"y_true": "y", "y_pred": "p", "by": ["g", "k"], "n_resamples": 30, "random_state": 2}),
    ("by_group", {"y_true": "y", "y_pred": "p", "by": ["cat", "male"], "zero_division": 0}),
    (
        "group_disparity",
        {"y_true": "y", "y_pred": "p", "by": ["g", "k"], "n_resamples": 20, "random_state": 0},
    ),
    ("score_fairness", {"human": "h", "system": "s", "by": ["g", "k"]}),
    (
        "llm_fairness",
        {
            "y_true": "label",
            "response": "answer",
            "by": ["male", "age"],
            "positive": "H",
            "negative": "L",
            "error": "failed",
            "threshold": {"age": "midrange"},
        },
    ),
    (
        "context_association",
        {"response": "option", "stereotype": "st", "anti_stereotype": "an", "unrelated": "un", "by": "lang"},
    ),
    ("counterfactual", {"prediction": "answer", "counterfactual": "twin", "by": "male", "valid": ["H", "L"]}),
    (
        "language_accuracy",
        {"response": "said", "answer": "correct", "options": ["Paris", "Rome"], "by": ["lang", "male"]},
    ),
    ("average_metrics", {"metrics": ["metric", "age"], "by": "g"}),
    ("score_fairness_estimates", {"human": "h", "system": "s", "by": "g", "base_group": "b"}),
]
IDS = [f"{method}-{i}" for i, (method, _) in enumerate(TABLES)]


def assert_same_table(dask_table: pd.DataFrame, pandas_table: pd.DataFrame) -> None:
    assert list(dask_table.columns) == list(pandas_table.columns)
    assert dask_table.attrs == pandas_table.attrs
    assert isinstance(dask_table.index, pd.RangeIndex) and dask_table.index.equals(pandas_table.index)
    for column in pandas_table.columns:
        a, b = dask_table[column], pandas_table[column]
        assert a.dtype == b.dtype, column
        if pd.api.types.is_float_dtype(b.dtype):
            np.testing.assert_allclose(
                a.to_numpy(float),
                b.to_numpy(float),
                rtol=1e-12,
                atol=ABSOLUTE_FLOOR.get(column, 0.0),
                err_msg=column,
            )
        else:
            assert a.tolist() == b.tolist(), column


def run(frame, method: str, kwargs: dict):
    """The table and the warnings' messages (in order) of one call."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = getattr(frame.fairness, method)(**kwargs)
    return table, [(w.category, str(w.message)) for w in caught]


def both(ddf, method: str, kwargs: dict, frame: pd.DataFrame | None = None):
    """The dask table and the pandas table of the same data (the frame dask reads back)."""
    frame = ddf.compute() if frame is None else frame
    (table, caught), (expected, expected_caught) = run(ddf, method, kwargs), run(frame, method, kwargs)
    assert caught == expected_caught  # the same warnings, once each
    return table, expected


# --------------------------------------------------------------------------------------
# equal to the pandas path
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize(("method", "kwargs"), TABLES, ids=IDS)
@pytest.mark.parametrize("npartitions", [1, 3, 17])
def test_tables_equal_the_pandas_path(method, kwargs, npartitions):
    ddf = dd.from_pandas(outcomes(3000), npartitions=npartitions)
    assert_same_table(*both(ddf, method, kwargs))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(1, 300),
    npartitions=st.integers(1, 12),
    seed=st.integers(0, 2**16),
    table=st.sampled_from(range(len(TABLES))),
    empty_partitions=st.booleans(),
)
def test_any_partitioning_and_row_order_gives_the_pandas_numbers(
    n, npartitions, seed, table, empty_partitions
):
    method, kwargs = TABLES[table]
    frame = outcomes(n, seed).sample(frac=1.0, random_state=seed).reset_index(drop=True)
    if empty_partitions:  # some partitions hold no row; a group may live in one partition only
        frame = frame.sort_values("k", kind="stable").reset_index(drop=True)
        ddf = dd.from_pandas(frame, npartitions=npartitions, sort=False)
        ddf = ddf[ddf["k"] != 7]
    else:
        ddf = dd.from_pandas(frame, npartitions=npartitions, sort=False)
    frame = ddf.compute()
    assume(len(frame) > 0)
    try:
        expected = run(frame, method, kwargs)[0]
    except InvalidInputError as error:  # e.g. no usable row: the dask path refuses the same way
        with pytest.raises(InvalidInputError) as refused:
            run(ddf, method, kwargs)
        assert str(refused.value) == str(error)
    else:
        assert_same_table(*both(ddf, method, kwargs, frame))
        assert_same_table(run(ddf, method, kwargs)[0], expected)


def test_group_in_one_partition_only():
    frame = outcomes(600)
    frame.loc[:299, "g"] = "aaa"  # the first partition only
    frame.loc[300:, "k"] = 42  # the second partition only
    ddf = dd.from_pandas(frame, npartitions=2)
    for method, kwargs in TABLES:
        table, expected = both(ddf, method, kwargs)
        assert_same_table(table, expected)
    table = run(ddf, "by_group", {"y_true": "y", "y_pred": "p", "by": "g"})[0]
    assert table["g"].tolist() == ["a", "aaa", "b", "c"]


def test_categorical_groups_keep_category_order():
    ddf = dd.from_pandas(outcomes(800), npartitions=5)
    table, expected = both(ddf, "by_group", {"y_true": "y", "y_pred": "p", "by": "cat"})
    assert table["cat"].tolist() == ["z", "y", "x"]
    assert_same_table(table, expected)


def test_categories_that_differ_by_parquet_file(tmp_path):
    pytest.importorskip("pyarrow")
    frame = outcomes(900)
    for i, categories in enumerate([["z", "y"], ["y", "x"], ["x", "w", "z"]]):
        part = frame.iloc[i * 300 : (i + 1) * 300].copy()
        part["cat"] = pd.Categorical(np.resize(categories, 300), categories=categories)
        part.to_parquet(tmp_path / f"part-{i}.parquet")
    ddf = dd.read_parquet(str(tmp_path / "*.parquet"))  # unknown categories, as dask reads them
    frame = ddf.compute()
    for method, kwargs in [
        ("by_group", {"y_true": "y", "y_pred": "p", "by": ["cat", "male"]}),
        ("counterfactual", {"prediction": "answer", "counterfactual": "twin", "by": "cat"}),
        ("average_metrics", {"metrics": ["metric"], "by": "cat"}),
    ]:
        table, expected = both(ddf, method, kwargs, frame)
        assert_same_table(table, expected)
    assert table["cat"].tolist() == ["z", "y", "x", "w"]


def test_midrange_is_the_whole_columns():
    frame = outcomes(900)
    frame.loc[:299, "age"] = frame.loc[:299, "age"] + 100  # the largest ages in one partition
    ddf = dd.from_pandas(frame, npartitions=3)
    kwargs = {"y_true": "y", "y_pred": "p", "by": "age", "threshold": "midrange"}
    table, expected = both(ddf, "classification", kwargs)
    assert_same_table(table, expected)
    assert table["N_privileged"].iloc[0] == expected["N_privileged"].iloc[0] > 0


def test_bootstrap_same_seed_same_intervals():
    ddf = dd.from_pandas(outcomes(2000), npartitions=7)
    kwargs = {"y_true": "y", "y_pred": "p", "by": "g", "n_resamples": 200, "random_state": 11}
    first, expected = both(ddf, "by_group", kwargs)
    again = run(ddf, "by_group", kwargs)[0]
    assert first["tpr_low"].tolist() == again["tpr_low"].tolist() == expected["tpr_low"].tolist()


# --------------------------------------------------------------------------------------
# real engines over parquet
# --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def parquet_folder(tmp_path_factory):
    pytest.importorskip("pyarrow")
    folder = tmp_path_factory.mktemp("outcomes")
    frame = outcomes(12000, seed=5)
    for i in range(4):
        frame.iloc[i * 3000 : (i + 1) * 3000].to_parquet(folder / f"part-{i}.parquet")
    return folder


cluster_client = test_dask.cluster_client  # the fixture: a LocalCluster of two worker processes


FAMILY_METHODS = {
    "classification": ("classification", "by_group", "group_disparity"),
    "score": ("score_fairness", "score_fairness_estimates"),
    "llm": ("llm_fairness", "context_association", "counterfactual", "language_accuracy", "average_metrics"),
}
FAMILIES = {
    family: [(method, kwargs) for method, kwargs in TABLES if method in methods]
    for family, methods in FAMILY_METHODS.items()
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_threaded_scheduler_reads_parquet(parquet_folder, family):
    ddf = dd.read_parquet(str(parquet_folder / "*.parquet"))
    with dask.config.set(scheduler="threads"):
        frame = ddf.compute()
        for method, kwargs in FAMILIES[family]:
            assert_same_table(*both(ddf, method, kwargs, frame))


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_local_cluster_of_two_worker_processes(parquet_folder, cluster_client, family):
    ddf = dd.read_parquet(str(parquet_folder / "*.parquet"))
    assert len(cluster_client.nthreads()) == 2  # asked of the scheduler now (two worker processes)
    frame = ddf.compute()
    for method, kwargs in FAMILIES[family]:
        assert_same_table(*both(ddf, method, kwargs, frame))


# --------------------------------------------------------------------------------------
# laziness, warnings, errors
# --------------------------------------------------------------------------------------
def test_compute_false_returns_a_delayed_table_for_batching():
    ddf = dd.from_pandas(outcomes(1000), npartitions=4)
    frame = ddf.compute()
    lazy = [getattr(ddf.fairness, method)(**kwargs, compute=False) for method, kwargs in TABLES]
    assert all(isinstance(one, Delayed) for one in lazy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tables = dask.compute(*lazy)
    for table, (method, kwargs) in zip(tables, TABLES):
        assert_same_table(table, run(frame, method, kwargs)[0])


def test_warnings_once_at_the_callers_line():
    ddf = dd.from_pandas(outcomes(1000), npartitions=5)
    table, caught = run(ddf, "by_group", {"y_true": "y", "y_pred": "p", "by": "g"})
    messages = [message for _, message in caught]
    assert len(messages) == len(set(messages)) == 2  # missing predictions, missing groups
    assert any(message.endswith("of 1000 rows left out: a group value is missing.") for message in messages)
    with pytest.warns(ExcludedRowsWarning, match="rows left out") as recorded:
        ddf.fairness.classification(y_true="y", y_pred="p", by="age", threshold=40)
    assert {w.filename for w in recorded} == {__file__}


def _exploding(frame: pd.DataFrame):
    """A dask frame with ``frame``'s columns whose only partition raises when computed."""

    def boom():
        raise RuntimeError("a partition was read")

    return dd.from_delayed([dask.delayed(boom)()], meta=frame.iloc[:0])


@pytest.mark.parametrize(
    ("method", "kwargs", "error", "match"),
    [
        ("by_group", {"y_true": "nope", "y_pred": "p", "by": "g"}, ColumnNotFoundError, "`y_true='nope'`"),
        ("by_group", {"y_true": "y", "y_pred": "p", "by": ["g", "nope"]}, ColumnNotFoundError, "`by="),
        (
            "by_group",
            {"y_true": "y", "y_pred": "p", "by": "g", "zero_division": "x"},
            InvalidInputError,
            "zero",
        ),
        (
            "by_group",
            {"y_true": "y", "y_pred": "p", "by": "g", "n_resamples": -1},
            InvalidInputError,
            "n_resamples",
        ),
        ("by_group", {"y_true": "y", "y_pred": "p", "by": "N"}, InvalidInputError, "result table"),
        ("by_group", {"y_true": "y", "y_pred": ["p", "y"], "by": "g"}, InvalidInputError, "one column"),
        (
            "group_disparity",
            {"y_true": "y", "y_pred": "p", "by": "g", "confidence": 2},
            InvalidInputError,
            "conf",
        ),
        (
            "classification",
            {"y_true": "y", "y_pred": "p", "by": "male", "zero_division": "bad"},
            InvalidInputError,
            "zero_division",
        ),
        (
            "classification",
            {"y_true": "y", "y_pred": "p", "by": "male", "threshold": "abc"},
            InvalidInputError,
            "threshold",
        ),
        (
            "classification",
            {"y_true": "y", "y_pred": "p", "by": ["male", "g"], "privileged": "a"},
            InvalidInputError,
            "as a dict",
        ),
        (
            "classification",
            {"y_true": "y", "y_pred": "p", "by": "male", "pos_label": [1, 2]},
            InvalidInputError,
            "single value",
        ),
        (
            "score_fairness",
            {"human": "h", "system": "nope", "by": "g"},
            ColumnNotFoundError,
            "`system='nope'`",
        ),
        ("score_fairness_estimates", {"human": "h", "system": "s", "by": "zz"}, ColumnNotFoundError, "`by="),
    ],
)
def test_errors_before_any_work(method, kwargs, error, match):
    ddf = _exploding(outcomes(20).rename(columns={"k": "N"}).assign(k=1))
    with pytest.raises(error, match=match):
        getattr(ddf.fairness, method)(**kwargs)


def _refusals(frame: pd.DataFrame, npartitions: int, method: str, kwargs: dict) -> tuple[str, str]:
    with pytest.raises(InvalidInputError) as from_pandas:
        run(frame, method, kwargs)
    with pytest.raises(InvalidInputError) as from_dask:
        run(dd.from_pandas(frame, npartitions=npartitions), method, kwargs)
    return str(from_dask.value), str(from_pandas.value)


@pytest.mark.parametrize("method", ["classification", "by_group", "group_disparity"])
def test_pos_label_absent_from_every_partition(method):
    frame = outcomes(400).assign(y=lambda f: f["y"] * 2, p=lambda f: f["p"] * 2)
    option = {"by": "male"} if method == "classification" else {"by": "g"}
    got, expected = _refusals(frame, 4, method, {"y_true": "y", "y_pred": "p", **option})
    assert got == expected
    assert "never occurs in the labels or predictions" in got


@pytest.mark.parametrize("method", ["classification", "by_group"])
def test_third_label_split_across_partitions(method):
    frame = outcomes(400)
    frame.loc[200:, "p"] = frame.loc[200:, "p"].replace(0.0, 3.0)  # 0 in the first half, 3 in the second
    option = {"by": "male"} if method == "classification" else {"by": "g"}
    got, expected = _refusals(frame, 2, method, {"y_true": "y", "y_pred": "p", **option})
    assert got == expected
    assert "holds more than two values" in got


def test_two_values_without_pos_label_split_across_partitions():
    frame = outcomes(400)
    frame["y"] = np.where(np.arange(400) < 200, "low", "high")  # one value per partition, no 1
    got, expected = _refusals(frame, 2, "by_group", {"y_true": "y", "y_pred": "p", "by": "g"})
    assert got == expected
    assert "never holds pos_label=1" in got


def test_score_fairness_whole_data_checks():
    frame = outcomes(300)
    got, expected = _refusals(
        frame, 3, "score_fairness", {"human": "h", "system": "s", "by": "g", "base_group": "q"}
    )
    assert got == expected and "`base_group='q'`" in got
    frame = frame.assign(s=np.nan)
    got, expected = _refusals(frame, 3, "score_fairness", {"human": "h", "system": "s", "by": "g"})
    assert got == expected and "`system='s'` has no numeric value" in got


def test_the_callers_frame_is_unchanged():
    frame = outcomes(300)
    ddf = dd.from_pandas(frame, npartitions=3)
    before = ddf.compute()
    for method, kwargs in TABLES:
        run(ddf, method, kwargs)
    pd.testing.assert_frame_equal(ddf.compute(), before)
    pd.testing.assert_frame_equal(frame, outcomes(300))


def test_every_table_runs_on_dask_and_the_plots_say_so():
    ddf = dd.from_pandas(outcomes(10), npartitions=1)
    tables = [name for name in dir(FairnessAccessor) if not name.startswith("_") and name != "plot"]
    assert all(name in type(ddf.fairness).__dict__ for name in tables)
    with pytest.raises(NotPartitionableError, match=r"`ddf.fairness.plot` does not run on dask"):
        ddf.fairness.plot  # noqa: B018


def test_option_lists_in_a_column():
    frame = outcomes(600)
    frame["choices"] = [["Paris", "Rome"]] * 300 + [["Paris", "Rome", "xx"]] * 300
    with dask.config.set({"dataframe.convert-string": False}):  # keep the lists as lists
        ddf = dd.from_pandas(frame, npartitions=3)
        kwargs = {"response": "said", "answer": "correct", "options": "choices", "by": "lang"}
        assert_same_table(*both(ddf, "language_accuracy", kwargs))


def test_first_bad_row_named_in_the_whole_frame():
    frame = outcomes(900)
    frame.loc[700, "an"] = 7  # a bad option number in the third partition
    frame.loc[650, "st"] = frame.loc[650, "un"]  # a clash before it
    kwargs = {"response": "option", "stereotype": "st", "anti_stereotype": "an", "unrelated": "un"}
    got, expected = _refusals(frame, 3, "context_association", kwargs)
    assert got == expected and "row 700 has 7" in got
    frame.loc[700, "an"] = frame.loc[700, "st"] % 3 + 1
    frame.loc[700, "un"] = 6 - frame.loc[700, "st"] - frame.loc[700, "an"]
    got, expected = _refusals(frame, 3, "context_association", kwargs)
    assert got == expected and got.startswith("Row 650 ")
    frame.loc[[20, 400, 401], "correct"] = None
    frame.loc[[20, 400, 401], "failed"] = None
    frame.loc[[20, 400, 401], "said"] = "Paris"
    got, expected = _refusals(
        frame, 3, "language_accuracy", {"response": "said", "answer": "correct", "options": ["a"]}
    )
    assert got == expected and "missing on 3 row(s) (first: row 20)" in got
