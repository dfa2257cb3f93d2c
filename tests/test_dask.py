"""The dask accessors: the same tables as the pandas path, partition by partition.

Real engines: dask's threaded scheduler and a ``distributed.LocalCluster`` with two worker
processes, reading parquet files this test writes. Numbers equal the pandas path to 1e-12
relative (counts exactly) for any partitioning; the two metrics that are differences of means
(SMD, DSM) are compared with an absolute floor of 1e-13 besides, the float64 floor of a
difference of two means near 3 (see docs/guide/dask.rst).
"""

import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import pdmetrics
from pdmetrics import ColumnNotFoundError, ExcludedRowsWarning, InvalidInputError, NotPartitionableError
from pdmetrics.scoring.human_baseline import DEGRADATION_METRICS

dd = pytest.importorskip("dask.dataframe")
dask = pytest.importorskip("dask")
Delayed = pytest.importorskip("dask.delayed").Delayed

pytestmark = pytest.mark.filterwarnings("ignore::pdmetrics.UndefinedMetricWarning")


def responses(n: int, seed: int = 0) -> pd.DataFrame:
    """Scored responses: human 1-6, a second human on half, two systems, two group columns."""
    rng = np.random.default_rng(seed)
    h = rng.integers(1, 7, n).astype(float)
    frame = pd.DataFrame(
        {
            "h": h,
            "h2": np.where(rng.random(n) < 0.5, np.clip(h + rng.integers(-1, 2, n), 1, 6), np.nan),
            "s": h + rng.normal(0.1, 0.8, n),
            "t": rng.normal(3.5, 1.2, n),
            "L1": rng.choice(["ara", "spa", "zho", None, " "], n),
            "grade": rng.integers(6, 11, n),
        }
    )
    frame.loc[rng.random(n) < 0.02, "s"] = np.nan
    return frame


def assert_same_table(dask_table: pd.DataFrame, pandas_table: pd.DataFrame) -> None:
    assert list(dask_table.columns) == list(pandas_table.columns)
    assert dask_table.attrs == pandas_table.attrs
    # the degradation table holds differences of two metrics (corr ~0.78 - 0.78): their
    # rounding error is absolute, as SMD's and DSM's (and so do the comparison tables: values,
    # differences and intervals of SMD among them)
    differences = (
        list(pandas_table.columns) == ["system", *DEGRADATION_METRICS] or "difference" in pandas_table
    )
    for column in pandas_table.columns:
        a, b = dask_table[column], pandas_table[column]
        if pd.api.types.is_float_dtype(b.dtype):
            floor = 1e-13 if column in ("SMD", "DSM") or differences else 0.0
            np.testing.assert_allclose(
                a.to_numpy(float), b.to_numpy(float), rtol=1e-12, atol=floor, err_msg=column
            )
        else:
            assert a.tolist() == b.tolist(), column
            assert a.dtype == b.dtype, column


def quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExcludedRowsWarning)
        return call(*args, **kwargs)


TABLES = [
    ("evaluate", {"human": "h", "system": ["s", "t"]}),
    ("evaluate", {"human": "h", "system": "s", "by": ["L1", "grade"]}),
    ("consistency", {"human": "h", "second_human": "h2"}),
    ("consistency", {"human": "h", "second_human": "h2", "by": ["L1", "grade"]}),
    ("confusion_matrix", {"human": "h", "system": ["s", "t"]}),
    ("degradation", {"human": "h", "second_human": "h2", "system": ["s", "t"]}),
    ("disattenuated_correlations", {"human": "h", "second_human": "h2", "system": "s", "by": "L1"}),
    ("score_distribution", {"human": "h", "system": "s"}),
    ("compare", {"human": "h", "system": ["s", "t"], "by": "L1", "n_resamples": 50}),
]


def both(frame: pd.DataFrame, ddf, method: str, kwargs: dict):
    return (
        quiet(getattr(ddf.scoring, method), **kwargs),
        quiet(getattr(frame.scoring, method), **kwargs),
    )


# --------------------------------------------------------------------------------------
# registration
# --------------------------------------------------------------------------------------
def run_python(code: str) -> str:
    result = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_import_pdmetrics_does_not_import_dask():
    assert run_python("import sys, pdmetrics; print('dask' in sys.modules)") == "False"


@pytest.mark.parametrize(
    "imports",
    [
        "import pdmetrics; import dask.dataframe as dd",
        "import dask.dataframe as dd; import pdmetrics",
        "import pdmetrics.engines.dask; import dask.dataframe as dd",  # the engine module first
    ],
)
def test_accessors_registered_whatever_the_import_order(imports):
    code = (
        f"{imports}; import pandas as pd; d = dd.from_pandas(pd.DataFrame({{'a': [1.0]}}), npartitions=1); "
    )
    code += "print(type(d.scoring).__name__, type(d.fairness).__name__, type(d.detection).__name__)"
    names = run_python(code).split()
    assert [name.removeprefix("Dask") for name in names] == [
        "ScoringAccessor",
        "FairnessAccessor",
        "DetectionAccessor",
    ]


# --------------------------------------------------------------------------------------
# equal to the pandas path
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize(("method", "kwargs"), TABLES, ids=[f"{m}-{i}" for i, (m, _) in enumerate(TABLES)])
@pytest.mark.parametrize("npartitions", [1, 3, 17])
def test_tables_equal_the_pandas_path(method, kwargs, npartitions):
    frame = responses(3000)
    ddf = dd.from_pandas(frame, npartitions=npartitions)
    assert_same_table(*both(frame, ddf, method, kwargs))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(1, 400),
    npartitions=st.integers(1, 12),
    seed=st.integers(0, 2**16),
    table=st.sampled_from(range(len(TABLES))),
    empty_partitions=st.booleans(),
)
def test_any_partitioning_and_row_order_gives_the_pandas_numbers(
    n, npartitions, seed, table, empty_partitions
):
    method, kwargs = TABLES[table]
    frame = responses(n, seed).sample(frac=1.0, random_state=seed).reset_index(drop=True)
    assume(frame["h"].notna().sum() > 0)
    if "second_human" in kwargs:
        assume(frame["h2"].notna().any())
    if empty_partitions:  # some partitions hold no row at all; groups may live in one partition
        frame = frame.sort_values("grade", kind="stable").reset_index(drop=True)
        ddf = dd.from_pandas(frame, npartitions=npartitions, sort=False)
        ddf = ddf[ddf["grade"] != 8]
        frame = frame[frame["grade"] != 8]
        assume(len(frame) > 0 and (frame["h"] != 0).any())
    else:
        ddf = dd.from_pandas(frame, npartitions=npartitions, sort=False)
    try:
        expected = quiet(getattr(frame.scoring, method), **kwargs)
    except InvalidInputError as error:  # e.g. no usable row: the dask path refuses the same way
        with pytest.raises(InvalidInputError) as refused:
            quiet(getattr(ddf.scoring, method), **kwargs)
        assert str(refused.value) == str(error)
    else:
        assert_same_table(quiet(getattr(ddf.scoring, method), **kwargs), expected)


def test_group_in_one_partition_only_and_no_info_sorts_last():
    frame = responses(600)
    frame.loc[:299, "L1"] = "aaa"  # first partition only; "No info" (missing/blank) in both
    ddf = dd.from_pandas(frame, npartitions=2)
    table, expected = both(frame, ddf, "evaluate", {"human": "h", "system": "s", "by": "L1"})
    assert table["group"].tolist()[-1] == "No info"
    assert_same_table(table, expected)


def test_categorical_groups_keep_category_order():
    frame = responses(500)
    frame["L1"] = pd.Categorical(frame["L1"], categories=["zho", "spa", "ara", " "])
    ddf = dd.from_pandas(frame, npartitions=4)
    table, expected = both(frame, ddf, "evaluate", {"human": "h", "system": "s", "by": "L1"})
    assert table["group"].tolist()[1:3] == ["zho", "spa"]
    assert_same_table(table, expected)


# --------------------------------------------------------------------------------------
# real engines over parquet
# --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def parquet_folder(tmp_path_factory):
    pytest.importorskip("pyarrow")
    folder = tmp_path_factory.mktemp("responses")
    frame = responses(20000, seed=7)
    for i in range(5):
        frame.iloc[i * 4000 : (i + 1) * 4000].to_parquet(folder / f"part-{i}.parquet")
    return folder, frame


def test_threaded_scheduler_reads_parquet(parquet_folder):
    folder, frame = parquet_folder
    ddf = dd.read_parquet(str(folder / "*.parquet"))
    with dask.config.set(scheduler="threads"):
        for method, kwargs in TABLES:
            table, expected = both(frame, ddf, method, kwargs)
            assert_same_table(table, expected)


@pytest.fixture(scope="module")
def cluster_client():
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        client.wait_for_workers(2, timeout=120)
        yield client


def test_local_cluster_of_two_worker_processes(parquet_folder, cluster_client):
    folder, frame = parquet_folder
    ddf = dd.read_parquet(str(folder / "*.parquet"))
    assert len(cluster_client.nthreads()) == 2  # asked of the scheduler now (two worker processes)
    for method, kwargs in TABLES:
        table, expected = both(frame, ddf, method, kwargs)
        assert_same_table(table, expected)


# --------------------------------------------------------------------------------------
# laziness, warnings, errors
# --------------------------------------------------------------------------------------
def test_compute_false_returns_a_delayed_table_for_batching():
    frame = responses(1000)
    ddf = dd.from_pandas(frame, npartitions=4)
    lazy_eval = ddf.scoring.evaluate(human="h", system="s", compute=False)
    lazy_dist = ddf.scoring.score_distribution(human="h", system="s", compute=False)
    assert isinstance(lazy_eval, Delayed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExcludedRowsWarning)
        table, distribution = dask.compute(lazy_eval, lazy_dist)
    assert_same_table(table, quiet(frame.scoring.evaluate, human="h", system="s"))
    assert_same_table(distribution, quiet(frame.scoring.score_distribution, human="h", system="s"))


def test_excluded_rows_warned_once_for_the_whole_frame():
    frame = responses(1000)
    ddf = dd.from_pandas(frame, npartitions=5)
    with pytest.warns(ExcludedRowsWarning, match=r"Left out \d+ of 1000 rows") as caught:
        ddf.scoring.evaluate(human="h", system="s")
    assert len([w for w in caught if issubclass(w.category, ExcludedRowsWarning)]) == 1


def test_errors_before_any_work():
    ddf = dd.from_pandas(responses(100).assign(flag=True), npartitions=2)
    with pytest.raises(ColumnNotFoundError, match=r"`system='nope'`: no such column"):
        ddf.scoring.evaluate(human="h", system="nope")
    with pytest.raises(InvalidInputError, match="boolean column"):
        ddf.scoring.evaluate(human="h", system="flag")
    with pytest.raises(InvalidInputError, match="compared with itself"):
        ddf.scoring.evaluate(human="h", system="h")
    with pytest.raises(InvalidInputError, match="exclude_zero"):
        ddf.scoring.confusion_matrix(human="h", system="s", exclude_zero="no")


def test_all_missing_column_refused_across_partitions():
    frame = responses(200).assign(s=np.nan)
    ddf = dd.from_pandas(frame, npartitions=3)
    with pytest.raises(InvalidInputError, match=r"`system='s'`: all 200 values are missing"):
        ddf.scoring.evaluate(human="h", system="s")


def test_methods_that_do_not_run_on_dask_say_so():
    ddf = dd.from_pandas(responses(10), npartitions=1)
    with pytest.raises(NotPartitionableError, match=r"`ddf.scoring.plot` does not run on dask"):
        ddf.scoring.plot  # noqa: B018
    with pytest.raises(NotPartitionableError, match=r"ddf.detection.plot"):
        ddf.detection.plot  # noqa: B018
    with pytest.raises(AttributeError):
        ddf.scoring.no_such_method  # noqa: B018
    assert issubclass(pdmetrics.NotPartitionableError, NotImplementedError)


def test_the_callers_frame_is_unchanged():
    frame = responses(300)
    ddf = dd.from_pandas(frame, npartitions=3)
    before = ddf.compute()
    quiet(ddf.scoring.evaluate, human="h", system="s", by="L1")
    pd.testing.assert_frame_equal(ddf.compute(), before)


# --------------------------------------------------------------------------------------
# postprocess: lazy, per partition
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("scale_with", [None, "asis", "pandas", "dask", "mapping"])
def test_postprocess_is_lazy_and_equals_the_pandas_columns(scale_with):
    frame = responses(2000)
    train = responses(1500, seed=3)
    options = {
        None: None,
        "asis": "asis",
        "pandas": train,
        "dask": dd.from_pandas(train, npartitions=4),
        "mapping": {"human_mean": 3.5, "human_sd": 1.7, "system_mean": 3.6, "system_sd": 1.9},
    }
    pandas_option = train if scale_with == "dask" else options[scale_with]
    ddf = dd.from_pandas(frame, npartitions=5)
    lazy = ddf.scoring.postprocess(
        system=["s", "t"], trim_min=1, trim_max=6, scale_with=options[scale_with], human="h"
    )
    assert isinstance(lazy, dd.DataFrame)
    expected = frame.scoring.postprocess(
        system=["s", "t"], trim_min=1, trim_max=6, scale_with=pandas_option, human="h"
    )
    result = lazy.compute()
    assert list(result.columns) == list(expected.columns)
    # (dask stores the text column L1 as its own string dtype: compared by value)
    assert result["L1"].fillna("-").tolist() == expected["L1"].fillna("-").tolist()
    pd.testing.assert_frame_equal(
        result.drop(columns="L1"), expected.drop(columns="L1"), check_exact=False, rtol=1e-12
    )
    chained = quiet(lazy.scoring.evaluate, human="h", system=["s_trim", "s_trim_round"])
    assert_same_table(chained, quiet(expected.scoring.evaluate, human="h", system=["s_trim", "s_trim_round"]))


def test_postprocess_bad_options_fail_before_any_work():
    ddf = dd.from_pandas(responses(100), npartitions=2)
    with pytest.raises(InvalidInputError, match="trim"):
        ddf.scoring.postprocess(system="s", trim_min=6, trim_max=1)
    with pytest.raises(InvalidInputError, match="scale_with"):
        ddf.scoring.postprocess(system="s", trim_min=1, trim_max=6, scale_with="raw")
    with pytest.raises(InvalidInputError, match="lack"):
        ddf.scoring.postprocess(system="s", trim_min=1, trim_max=6, scale_with={"human_mean": 3})
    with pytest.raises(ColumnNotFoundError, match="system="):
        ddf.scoring.postprocess(system="nope", trim_min=1, trim_max=6)
