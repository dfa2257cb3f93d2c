"""``ddf.textgen``: the text-generation tables on dask DataFrames equal the pandas path.

ROUGE and BLEU per row equal the pandas path exactly (``==``); group means and corpus scores
to 1e-12 relative; the verdict metrics per datum exactly, for any partitioning, row order,
empty partitions and a datum's rows spread over partitions.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import pdmetrics  # noqa: F401
from pdmetrics import ColumnNotFoundError, InvalidInputError, NotPartitionableError
from tests import test_dask

dd = pytest.importorskip("dask.dataframe")
dask = pytest.importorskip("dask")
Delayed = pytest.importorskip("dask.delayed").Delayed

pytestmark = pytest.mark.filterwarnings("ignore::pdmetrics.UndefinedMetricWarning")

cluster_client = test_dask.cluster_client  # the fixture: a LocalCluster of two worker processes

WORDS = "the cat sat on a mat dog ran far away quickly today.".split()


@pytest.fixture(autouse=True)
def threads(request):
    """dask's threaded scheduler, except where a test runs on the cluster."""
    if "cluster_client" in request.fixturenames:
        yield
        return
    with dask.config.set({"scheduler": "threads", "dataframe.shuffle.method": "tasks"}):  # not a left p2p
        yield


def texts(seed: int, n: int = 40) -> pd.DataFrame:
    rng = np.random.default_rng(seed)

    def sentence():
        return " ".join(rng.choice(WORDS, rng.integers(1, 10)))

    return pd.DataFrame(
        {
            "pred": [sentence() for _ in range(n)],
            "ref": [sentence() for _ in range(n)],
            "ref2": [sentence() if rng.random() < 0.7 else None for _ in range(n)],
            "grp": rng.choice(["x", "y", "z"], n),
            "doc": rng.integers(0, 1000, n),
        }
    )


def verdict_rows(seed: int, n: int = 120, n_data: int = 15) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    datum = rng.integers(0, n_data, n)
    frame = pd.DataFrame(
        {
            "id": datum.astype(str),
            "verdict": rng.choice(["yes", "no"], n),
            "topic": np.where(datum % 3 == 0, "a", "b"),
        }
    )
    return frame.sample(frac=1, random_state=seed).reset_index(drop=True)


def ranked_rows(seed: int, n_data: int = 12) -> pd.DataFrame:
    """Context precision, correctness and coherence need per-datum structure: built per datum."""
    rng = np.random.default_rng(seed)
    pieces = []
    for d in range(n_data):  # a handful of data in a test fixture
        k = int(rng.integers(1, 5))
        statements = ["TP", *rng.choice(["TP", "FP"], k - 1)]  # the same answer for every ground truth
        for g in range(int(rng.integers(1, 3))):
            pieces.append(
                pd.DataFrame(
                    {
                        "id": f"q{d}",
                        "gt": f"g{g}",
                        "rank": np.arange(1, k + 1),
                        "yes_no": rng.choice(["yes", "no"], k),
                        "tp_fp_fn": statements,
                        "coherence": int(rng.integers(1, 6)),
                        "topic": "a" if d % 2 else "b",
                    }
                )
            )
    frame = pd.concat(pieces, ignore_index=True)
    return frame.sample(frac=1, random_state=seed).reset_index(drop=True)


def quiet(call, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(**kwargs)


def assert_same(actual: pd.DataFrame, expected: pd.DataFrame, exact: bool = False) -> None:
    assert list(actual.columns) == list(expected.columns)
    assert len(actual) == len(expected)
    for column in expected.columns:
        a, b = actual[column], expected[column]
        assert a.dtype == b.dtype, column
        if pd.api.types.is_float_dtype(b.dtype) and not exact:
            np.testing.assert_allclose(a.to_numpy(float), b.to_numpy(float), rtol=1e-12, err_msg=column)
        else:
            assert a.tolist() == b.tolist() or np.array_equal(a.to_numpy(), b.to_numpy(), equal_nan=True), (
                column
            )


def by_datum(table: pd.DataFrame) -> pd.DataFrame:
    return table.sort_values("datum", kind="stable").reset_index(drop=True)


ROW_TABLES = [
    ("rouge", {"reference": "ref"}),
    ("rouge", {"reference": ["ref", "ref2"], "rouge_types": ["rouge1", "rougeLsum"], "details": True}),
    ("bleu", {"reference": "ref"}),
    ("bleu", {"reference": ["ref", "ref2"], "weights": (0.5, 0.5), "datum": "doc"}),
]
CORPUS_TABLES = [
    ("corpus_bleu", {"reference": "ref"}),
    ("corpus_bleu", {"reference": ["ref", "ref2"]}),
    ("chrf", {"reference": "ref"}),
    ("chrf", {"reference": ["ref", "ref2"], "word_order": 2}),
    ("ter", {"reference": ["ref", "ref2"]}),
]
YES_SHARES = ["answer_relevance", "bias", "toxicity", "context_relevance", "hallucination", "faithfulness"]
RANKED = [
    ("answer_correctness", {"verdict": "tp_fp_fn", "ground_truth": "gt"}),
    ("context_recall", {"verdict": "yes_no", "ground_truth": "gt", "zero_division": 0}),
    ("context_precision", {"verdict": "yes_no", "rank": "rank", "ground_truth": "gt"}),
    ("summary_coherence", {"score": "coherence"}),
]


@pytest.mark.parametrize(("method", "kwargs"), ROW_TABLES)
@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_per_row_tables_are_lazy_and_equal(method, kwargs, npartitions):
    frame = texts(0)
    ddf = dd.from_pandas(frame, npartitions=npartitions)
    lazy = getattr(ddf.textgen, method)(prediction="pred", **kwargs)
    assert isinstance(lazy, dd.DataFrame)
    expected = getattr(frame.textgen, method)(prediction="pred", **kwargs)
    assert list(lazy.columns) == list(expected.columns)
    assert_same(lazy.compute(), expected, exact=True)  # ROUGE and BLEU: ==


@pytest.mark.parametrize(("method", "kwargs"), ROW_TABLES)
def test_per_row_means_by_group(method, kwargs):
    frame = texts(1)
    ddf = dd.from_pandas(frame, npartitions=4)
    table = getattr(ddf.textgen, method)(prediction="pred", by="grp", **kwargs)
    assert_same(table, getattr(frame.textgen, method)(prediction="pred", by="grp", **kwargs))
    assert table["grp"].iloc[0] == "(all)"


@pytest.mark.parametrize(("method", "kwargs"), CORPUS_TABLES)
@pytest.mark.parametrize("npartitions", [1, 5])
def test_corpus_scores_from_summed_statistics(method, kwargs, npartitions):
    frame = texts(2)
    ddf = dd.from_pandas(frame, npartitions=npartitions)
    table = getattr(ddf.textgen, method)(prediction="pred", **kwargs)
    assert_same(table, getattr(frame.textgen, method)(prediction="pred", **kwargs))


@pytest.mark.parametrize("method", YES_SHARES)
def test_yes_share_metrics_per_datum_and_by_group(method):
    rows = verdict_rows(3)
    ddf = dd.from_pandas(rows, npartitions=5)
    lazy = getattr(ddf.textgen, method)(datum="id", verdict="verdict")
    assert isinstance(lazy, dd.DataFrame)
    assert_same(
        by_datum(lazy.compute()), getattr(rows.textgen, method)(datum="id", verdict="verdict"), exact=True
    )
    grouped = getattr(ddf.textgen, method)(datum="id", verdict="verdict", by="topic")
    assert_same(grouped, getattr(rows.textgen, method)(datum="id", verdict="verdict", by="topic"))


@pytest.mark.parametrize(("method", "kwargs"), RANKED)
@pytest.mark.parametrize("npartitions", [1, 4])
def test_metrics_over_ground_truths_and_ranks(method, kwargs, npartitions):
    rows = ranked_rows(4)
    ddf = dd.from_pandas(rows, npartitions=npartitions)
    if method == "summary_coherence":  # one row per datum
        rows = rows.drop_duplicates("id")
        ddf = dd.from_pandas(rows, npartitions=npartitions)
    lazy = getattr(ddf.textgen, method)(datum="id", **kwargs)
    assert_same(by_datum(lazy.compute()), getattr(rows.textgen, method)(datum="id", **kwargs), exact=True)
    grouped = getattr(ddf.textgen, method)(datum="id", by="topic", **kwargs)
    assert_same(grouped, getattr(rows.textgen, method)(datum="id", by="topic", **kwargs))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    npartitions=st.integers(1, 9),
    n_empty=st.integers(0, 2),
    method=st.sampled_from(["toxicity", "answer_relevance", "bleu", "corpus_bleu", "chrf"]),
)
def test_any_partitioning_row_order_and_empty_partitions(seed, npartitions, n_empty, method):
    rng = np.random.default_rng(seed)
    if method in ("toxicity", "answer_relevance"):
        frame = verdict_rows(seed, n=int(rng.integers(1, 60)))
        assume(frame["topic"].nunique() >= 1)
        kwargs = {"datum": "id", "verdict": "verdict", "by": "topic"}
    else:
        frame = texts(seed, n=int(rng.integers(1, 30))).sample(frac=1, random_state=seed)
        kwargs = {"prediction": "pred", "reference": "ref"}
        if method == "bleu":
            kwargs["by"] = "grp"
    npartitions = min(npartitions, len(frame))
    ddf = dd.from_pandas(frame, npartitions=npartitions, sort=False)
    if n_empty:  # partitions with no rows
        ddf = dd.concat([ddf, *[ddf.partitions[0].head(0, compute=False)] * n_empty])
    table = quiet(getattr(ddf.textgen, method), **kwargs)
    assert_same(table, quiet(getattr(frame.textgen, method), **kwargs))


def test_compute_false_returns_a_delayed_table():
    frame = texts(5)
    ddf = dd.from_pandas(frame, npartitions=3)
    lazy = [
        ddf.textgen.corpus_bleu(prediction="pred", reference="ref", compute=False),
        ddf.textgen.rouge(prediction="pred", reference="ref", by="grp", compute=False),
    ]
    assert all(isinstance(x, Delayed) for x in lazy)
    bleu, rouge = dask.compute(*lazy)
    assert_same(bleu, frame.textgen.corpus_bleu(prediction="pred", reference="ref"))
    assert_same(rouge, frame.textgen.rouge(prediction="pred", reference="ref", by="grp"))


def _boom(part):
    raise AssertionError("a partition was read")


def test_bad_arguments_fail_before_any_work():
    frame = texts(6)
    ddf = dd.from_pandas(frame, npartitions=2).map_partitions(_boom, meta=frame.iloc[:0])
    with pytest.raises(ColumnNotFoundError, match="prediction"):
        ddf.textgen.rouge(prediction="nope", reference="ref")
    with pytest.raises(ColumnNotFoundError, match="reference"):
        ddf.textgen.corpus_bleu(prediction="pred", reference=["ref", "nope"])
    with pytest.raises(InvalidInputError, match="ROUGE type"):
        ddf.textgen.rouge(prediction="pred", reference="ref", rouge_types=["rouge0x"], by="grp")
    with pytest.raises(InvalidInputError, match="word_order"):
        ddf.textgen.chrf(prediction="pred", reference="ref", word_order=1)
    with pytest.raises(ColumnNotFoundError, match="datum"):
        ddf.textgen.toxicity(datum="nope", verdict="ref")


def test_data_errors_name_the_value():
    rows = verdict_rows(7).assign(verdict=lambda f: f["verdict"].where(f.index != 5, "Yes"))
    ddf = dd.from_pandas(rows, npartitions=3)
    with pytest.raises(InvalidInputError, match="'Yes'"):
        ddf.textgen.toxicity(datum="id", verdict="verdict", by="topic")


def test_methods_that_do_not_run_on_dask_say_so():
    frame = texts(8)
    ddf = dd.from_pandas(frame, npartitions=2)
    with pytest.raises(NotPartitionableError, match="paired_bootstrap.*sample"):
        ddf.textgen.paired_bootstrap(prediction="pred", baseline="pred", reference="ref")
    rows = dd.from_pandas(verdict_rows(8), npartitions=2)
    with pytest.raises(NotPartitionableError, match=r"data=\.\.\."):
        rows.textgen.toxicity(datum="id", verdict="verdict", data=["1", "2"])
    assert issubclass(NotPartitionableError, NotImplementedError)


def holey_texts(seed: int) -> pd.DataFrame:
    """Texts with missing predictions and references, filtered so the index is not 0..n."""
    frame = texts(seed, n=60).astype({"pred": object, "ref": object})
    rng = np.random.default_rng(seed)
    frame.loc[rng.random(60) < 0.15, "pred"] = None
    frame.loc[rng.random(60) < 0.15, "ref"] = np.nan
    frame = frame[frame["doc"] % 5 != 0]
    return frame.set_axis(frame.index * 7 + 3)


@pytest.mark.parametrize(("method", "kwargs"), ROW_TABLES)
@pytest.mark.parametrize("npartitions", [1, 4])
def test_per_row_tables_keep_the_index_and_leave_out_missing_rows(method, kwargs, npartitions):
    frame = holey_texts(3)
    ddf = dd.from_pandas(frame, npartitions=npartitions)
    with pytest.warns(pdmetrics.ExcludedRowsWarning, match="left out") as pandas_warnings:
        expected = getattr(frame.textgen, method)(prediction="pred", **kwargs)
    # one warning with the totals, at the user's line, when the call is made (the pandas one)
    with pytest.warns(pdmetrics.ExcludedRowsWarning, match="left out") as dask_warnings:
        lazy = getattr(ddf.textgen, method)(prediction="pred", **kwargs)
    assert [str(w.message) for w in dask_warnings] == [str(w.message) for w in pandas_warnings]
    assert [w.filename for w in dask_warnings] == [__file__]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the partitions do not warn again
        got = lazy.compute()
    assert got.index.tolist() == expected.index.tolist()
    assert_same(got, expected, exact=True)
    assert frame.join(got).dropna(subset=[expected.columns[-1]]).shape[0] == len(expected)


@pytest.mark.parametrize(("method", "kwargs"), ROW_TABLES)
def test_per_row_means_leave_out_missing_rows_with_one_warning(method, kwargs):
    frame = holey_texts(4)
    ddf = dd.from_pandas(frame, npartitions=4)
    with pytest.warns(pdmetrics.ExcludedRowsWarning, match="left out") as pandas_warnings:
        expected = getattr(frame.textgen, method)(prediction="pred", by="grp", **kwargs)
    with pytest.warns(pdmetrics.ExcludedRowsWarning, match="left out") as dask_warnings:
        table = getattr(ddf.textgen, method)(prediction="pred", by="grp", **kwargs)
    assert_same(table, expected)
    excluded = [w for w in dask_warnings if issubclass(w.category, pdmetrics.ExcludedRowsWarning)]
    assert len(excluded) == 1
    count = str(pandas_warnings[0].message).split(" rows left out")[0]
    assert str(excluded[0].message).startswith(count + " rows left out")
    with pytest.raises(InvalidInputError, match="No rows to average"):
        getattr(dd.from_pandas(frame.iloc[:0], npartitions=1).textgen, method)(
            prediction="pred", by="grp", **kwargs
        )


@pytest.mark.parametrize(("method", "kwargs"), CORPUS_TABLES)
def test_corpus_scores_leave_out_missing_rows_with_one_warning(method, kwargs):
    frame = holey_texts(5)
    ddf = dd.from_pandas(frame, npartitions=4)
    with pytest.warns(pdmetrics.ExcludedRowsWarning, match="left out") as pandas_warnings:
        expected = getattr(frame.textgen, method)(prediction="pred", **kwargs)
    with pytest.warns(pdmetrics.ExcludedRowsWarning, match="left out") as dask_warnings:
        table = getattr(ddf.textgen, method)(prediction="pred", **kwargs)
    assert_same(table, expected)
    assert [str(w.message) for w in dask_warnings] == [str(w.message) for w in pandas_warnings]


@pytest.mark.parametrize("method", YES_SHARES)
def test_missing_verdicts_are_left_out_as_on_pandas(method):
    rows = verdict_rows(9).astype({"verdict": object})
    rows.loc[rows.index % 7 == 0, "verdict"] = None
    ddf = dd.from_pandas(rows, npartitions=4)
    with pytest.warns(pdmetrics.ExcludedRowsWarning, match="left out"):
        expected = getattr(rows.textgen, method)(datum="id", verdict="verdict", by="topic")
        per_datum = by_datum(getattr(rows.textgen, method)(datum="id", verdict="verdict"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.ExcludedRowsWarning)  # once per partition on dask
        table = getattr(ddf.textgen, method)(datum="id", verdict="verdict", by="topic")
        lazy = getattr(ddf.textgen, method)(datum="id", verdict="verdict").compute()
    assert_same(table, expected)
    assert_same(by_datum(lazy), per_datum, exact=True)


def test_local_cluster_reading_parquet(tmp_path, cluster_client):
    frame = texts(9, n=60)
    rows = verdict_rows(9, n=200)
    for name, table in (("texts", frame), ("rows", rows)):
        folder = tmp_path / name
        folder.mkdir()
        for i, piece in enumerate(np.array_split(np.arange(len(table)), 3)):
            table.iloc[piece].to_parquet(folder / f"part{i}.parquet", index=False)
    ddf = dd.read_parquet(str(tmp_path / "texts" / "*.parquet"))
    drows = dd.read_parquet(str(tmp_path / "rows" / "*.parquet"))
    assert len(cluster_client.nthreads()) == 2
    assert_same(
        ddf.textgen.corpus_bleu(prediction="pred", reference=["ref", "ref2"]),
        frame.textgen.corpus_bleu(prediction="pred", reference=["ref", "ref2"]),
    )
    assert_same(
        ddf.textgen.rouge(prediction="pred", reference="ref", by="grp"),
        frame.textgen.rouge(prediction="pred", reference="ref", by="grp"),
    )
    assert_same(
        drows.textgen.toxicity(datum="id", verdict="verdict", by="topic"),
        rows.textgen.toxicity(datum="id", verdict="verdict", by="topic"),
    )
    per_datum = drows.textgen.toxicity(datum="id", verdict="verdict").compute()
    assert_same(by_datum(per_datum), rows.textgen.toxicity(datum="id", verdict="verdict"), exact=True)
