"""``ddf.scoring.report`` and the command line's ``--engine dask``: the pandas report's tables
and files, from one pass over the partitions (and one more for the per-response files).

Real engines: dask's threaded scheduler and a ``distributed.LocalCluster`` of two worker
processes reading parquet files the test writes. Summary tables equal the pandas path's to
1e-12 relative (counts exactly; the differences SMD, DSM and degradation, and R2 near 0, with
an absolute 1e-13 besides, see docs/guide/dask.rst); the per-response files are byte for byte
the pandas path's.
"""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
import test_dask

from pdmetrics import ExcludedRowsWarning, InvalidInputError, NotPartitionableError
from pdmetrics.cli import main
from pdmetrics.datasets import simulate_scores
from pdmetrics.rsmeval import EvaluationReport, report
from pdmetrics.rsmeval.data import PER_RESPONSE_PREFIXES
from pdmetrics.rsmeval.responses_input import read_responses

dd = pytest.importorskip("dask.dataframe")
dask = pytest.importorskip("dask")
pytest.importorskip("pyarrow")
Delayed = pytest.importorskip("dask.delayed").Delayed
dask_report = report  # the core function runs the dask frame

cluster_client = test_dask.cluster_client  # the fixture: a LocalCluster of two worker processes

pytestmark = pytest.mark.filterwarnings("ignore::pdmetrics.UndefinedMetricWarning")

#: Float columns compared with an absolute floor besides 1e-12 relative (differences of means, 1 - SSR/TSS).
NEAR_ZERO = ("SMD", "DSM", "R2", "R2_unadjusted")
#: The tables with one row per response: written partition by partition on dask.
PER_RESPONSE = PER_RESPONSE_PREFIXES


def responses(n: int = 3000, seed: int = 0) -> pd.DataFrame:
    """Double-scored responses with every kind of row report() leaves out, two group columns
    (one with missing and blank values) and a flag column."""
    rng = np.random.default_rng(seed)
    frame = simulate_scores(n, seed=seed)
    frame.loc[rng.random(n) < 0.01, "sc1"] = np.nan
    frame.loc[rng.random(n) < 0.01, "sc1"] = 0
    frame.loc[rng.random(n) < 0.01, "raw"] = np.nan
    frame["grade"] = rng.choice(["g6", "g7", "g8", None, " "], n)
    frame["advisory"] = np.where(rng.random(n) < 0.02, 1, 0)
    frame["id"] = [f"r{i}" for i in range(n)]
    return frame


CASES = {
    "plain": dict(human="sc1", system="raw", trim_min=1, trim_max=6),
    "second human and groups": dict(
        human="sc1", system="raw", second_human="sc2", by=["L1", "grade"], trim_min=1, trim_max=6
    ),
    "scaled, rsmtool layout": dict(
        human="sc1", system="raw", second_human="sc2", by="L1", trim_min=1, trim_max=6, layout="rsmtool"
    ),
    "asis, rater error variance": dict(
        human="sc1", system="raw", trim_min=1, trim_max=6, scale_with="asis", rater_error_variance=0.4
    ),
}


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExcludedRowsWarning)
        return function(*args, **kwargs)


def assert_same_report(dask_result: EvaluationReport, pandas_result: EvaluationReport) -> None:
    """The summary tables (every table but the per-response ones) and the info equal."""
    expected = [name for name in pandas_result if not name.startswith(PER_RESPONSE)]
    assert list(dask_result) == expected
    for name in expected:
        assert_same_table(dask_result[name], pandas_result[name], name)
    assert dask_result.info == pandas_result.info
    assert (dask_result.primary, dask_result.groups, dask_result.score_names) == (
        pandas_result.primary,
        pandas_result.groups,
        pandas_result.score_names,
    )


def assert_same_table(table: pd.DataFrame, expected: pd.DataFrame, name: str = "") -> None:
    assert list(table.columns) == list(expected.columns), name
    assert table.shape == expected.shape, name
    pd.testing.assert_index_equal(table.index, expected.index)
    for column in expected.columns:
        a, b = table[column], expected[column]
        if pd.api.types.is_float_dtype(b.dtype):
            # degradation: every column a difference of two metrics (system minus human-human)
            differences = ("degradation", "fairness_metrics")  # files: R2 and differences of means in rows
            floor = 1e-13 if str(column).split(".")[0] in NEAR_ZERO or name.startswith(differences) else 0.0
            np.testing.assert_allclose(
                a.to_numpy(float), b.to_numpy(float), rtol=1e-12, atol=floor, err_msg=f"{name}: {column}"
            )
        else:
            assert a.tolist() == b.tolist(), f"{name}: {column}"


def partitioned(frame: pd.DataFrame, bounds: list[int]):
    """A dask frame of the rows between consecutive ``bounds`` (equal bounds: an empty partition)."""
    parts = [dask.delayed(frame.iloc[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
    return dd.from_delayed(parts, meta=frame.iloc[:0], verify_meta=False)


def assert_same_files(dask_paths, pandas_paths) -> None:
    """The same files: per-response ones byte for byte, the others' numbers to 1e-12."""
    assert [path.name for path in dask_paths] == [path.name for path in pandas_paths]
    for mine, theirs in zip(dask_paths, pandas_paths):
        if mine.suffix == ".html":
            continue
        if any(f"_{name}." in mine.name for name in PER_RESPONSE) or "composition" in mine.name:
            assert mine.read_bytes() == theirs.read_bytes(), mine.name
        else:
            name = mine.stem.split("_", 1)[1]
            assert_same_table(pd.read_csv(mine), pd.read_csv(theirs), name)


# --------------------------------------------------------------------------------------
# the tables
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", list(CASES))
def test_report_tables_equal_the_pandas_report(case):
    frame = responses()
    kwargs = dict(CASES[case])
    if case.startswith("scaled"):
        kwargs["scale_with"] = simulate_scores(400, seed=5)
    expected = quiet(frame.scoring.report, **kwargs)
    ddf = dd.from_pandas(frame, npartitions=7)
    with dask.config.set(scheduler="threads"):
        result = quiet(ddf.scoring.report, **kwargs)
    assert_same_report(result, expected)


def test_any_partitioning_row_order_empty_partitions_and_a_group_in_one_partition():
    frame = responses(2400, seed=3)
    frame.loc[frame.index[:40], "L1"] = "only here"  # a group in the first partition only
    kwargs = dict(CASES["second human and groups"])
    rng = np.random.default_rng(1)
    for order in (np.arange(len(frame)), rng.permutation(len(frame))):
        shuffled = frame.iloc[order].reset_index(drop=True)
        expected = quiet(report, shuffled, **kwargs)
        bounds = [0, 0, 40, 40, 700, 701, 1900, 2400, 2400]  # empty partitions, one of one row
        with dask.config.set(scheduler="threads"):
            result = quiet(partitioned(shuffled, bounds).scoring.report, **kwargs)
        assert_same_report(result, expected)


def test_flags_and_ids_as_the_command_line_passes_them(tmp_path):
    frame = responses(2000, seed=4)
    kwargs = dict(CASES["second human and groups"], id="id", flag={"advisory": [0]}, min_n_per_group=20)
    expected = quiet(report, frame, **kwargs)
    with dask.config.set(scheduler="threads"):
        result = quiet(dask_report, dd.from_pandas(frame, npartitions=5), **kwargs)
    assert_same_report(result, expected)
    assert "test_responses_with_excluded_flags" in result._streamed[0]
    assert_same_files(
        result.to_csv(tmp_path / "dask", prefix="x"), expected.to_csv(tmp_path / "pandas", prefix="x")
    )


def test_to_csv_writes_the_pandas_files(tmp_path):
    frame = responses(2500, seed=2)
    kwargs = dict(CASES["second human and groups"], layout="rsmtool")
    expected = quiet(frame.scoring.report, **kwargs)
    with dask.config.set(scheduler="threads"):
        result = quiet(dd.from_pandas(frame, npartitions=6).scoring.report, **kwargs)
        for file_format in ("csv", "tsv"):
            mine = result.write(tmp_path / "dask", prefix="x", file_format=file_format)
            theirs = expected.write(tmp_path / "pandas", prefix="x", file_format=file_format)
            if file_format == "csv":
                assert_same_files(mine, theirs)
            else:
                streamed = [p for p in mine if any(f"_{n}." in p.name for n in PER_RESPONSE)]
                assert streamed and all(
                    p.read_bytes() == (tmp_path / "pandas" / p.name).read_bytes() for p in streamed
                )
        page = result.to_html()
    assert page.count("<section") >= 5 and "x_pred_processed.tsv" in page  # the files written last


def test_per_response_tables_are_not_held_in_memory(tmp_path):
    ddf = dd.from_pandas(responses(500), npartitions=2)
    with dask.config.set(scheduler="threads"):
        result = quiet(ddf.scoring.report, human="sc1", system="raw", trim_min=1, trim_max=6)
    assert "pred_processed" not in list(result)
    with pytest.raises(KeyError, match="partition by partition"):
        result["pred_processed"]
    with pytest.raises(InvalidInputError, match="csv, tsv or jsonlines"):
        result.write(tmp_path, file_format="xlsx")
    assert not list(tmp_path.iterdir())  # refused before any file is written


def test_compute_false_returns_a_delayed_report():
    frame = responses(800)
    ddf = dd.from_pandas(frame, npartitions=3)
    lazy = ddf.scoring.report(human="sc1", system="raw", trim_min=1, trim_max=6, compute=False)
    assert isinstance(lazy, Delayed)
    with dask.config.set(scheduler="threads"):
        result = quiet(lazy.compute)
    assert_same_report(result, quiet(frame.scoring.report, human="sc1", system="raw", trim_min=1, trim_max=6))


def test_warned_once_and_errors_before_reading():
    frame = responses(1000)
    ddf = dd.from_pandas(frame, npartitions=4)
    with dask.config.set(scheduler="threads"):
        with pytest.warns(ExcludedRowsWarning, match=r"Left out \d+ of 1000 rows") as caught:
            ddf.scoring.report(human="sc1", system="raw", trim_min=1, trim_max=6)
    assert sum(issubclass(w.category, ExcludedRowsWarning) for w in caught) == 1
    with pytest.raises(KeyError, match="no_such"):
        ddf.scoring.report(human="no_such", system="raw", trim_min=1, trim_max=6)
    with pytest.raises(InvalidInputError, match="layout"):
        ddf.scoring.report(human="sc1", system="raw", trim_min=1, trim_max=6, layout="wide")
    with pytest.raises(NotPartitionableError, match="candidate"):
        dask_report(ddf, human="sc1", system="raw", trim_min=1, trim_max=6, candidate="id")
    with pytest.raises(InvalidInputError, match="No responses left after `flag="):
        dask_report(ddf, human="sc1", system="raw", trim_min=1, trim_max=6, flag={"advisory": [7]})


def test_local_cluster_of_two_worker_processes_reading_parquet(tmp_path, cluster_client):
    frame = responses(3000, seed=6)
    for i, rows in enumerate(np.array_split(np.arange(len(frame)), 4)):
        frame.iloc[rows].to_parquet(tmp_path / f"part-{i}.parquet")
    ddf = dd.read_parquet(str(tmp_path / "*.parquet"))
    assert len(cluster_client.nthreads()) == 2  # asked of the scheduler now (two worker processes)
    kwargs = dict(CASES["second human and groups"], scale_with=ddf.head(500, npartitions=-1))
    result = quiet(ddf.scoring.report, **kwargs)
    assert_same_report(result, quiet(frame.scoring.report, **kwargs))


# --------------------------------------------------------------------------------------
# the command line
# --------------------------------------------------------------------------------------
@pytest.fixture
def parquet_folder(tmp_path):
    frame = responses(3000, seed=8)
    folder = tmp_path / "responses"
    folder.mkdir()
    for i, rows in enumerate(np.array_split(np.arange(len(frame)), 3)):
        frame.iloc[rows].reset_index(drop=True).to_parquet(folder / f"part-{i}.parquet")
    return folder


EVALUATE = ["--human", "sc1", "--system", "raw", "--second-human", "sc2", "--group", "L1", "--trim-min", "1"]
EVALUATE += ["--trim-max", "6"]


def test_cli_dask_engine_writes_the_pandas_files_with_a_progress_bar(parquet_folder, tmp_path, capsys):
    assert main(["evaluate", str(parquet_folder), *EVALUATE, "--out", str(tmp_path / "pandas")]) == 0
    pandas_out = capsys.readouterr()
    glob = str(parquet_folder / "*.parquet")
    assert main(["evaluate", glob, "--engine", "dask", *EVALUATE, "--out", str(tmp_path / "dask")]) == 0
    dask_out = capsys.readouterr()
    assert "% Completed" in dask_out.err and "% Completed" not in pandas_out.err
    assert dask_out.out.split(" written to ")[0] == pandas_out.out.split(" written to ")[0]
    theirs = sorted((tmp_path / "pandas").glob("[!.]*"))  # not the record of the run, .pdmetrics-*.json
    assert [p.name for p in theirs][0] == "responses_confMatrix.csv"
    assert "responses_report.html" in [p.name for p in theirs]  # the page, named by the prefix
    assert_same_files(sorted((tmp_path / "dask").glob("[!.]*")), theirs)


def test_cli_rsmeval_dask_engine_on_a_glob(parquet_folder, tmp_path, capsys):
    config = {
        "experiment_id": "exp",
        "predictions_file": str(parquet_folder / "*.parquet"),
        "system_score_column": "raw",
        "human_score_column": "sc1",
        "id_column": "id",
        "subgroups": ["grade"],
        "trim_min": 1,
        "trim_max": 6,
    }
    (tmp_path / "config.json").write_text(json.dumps(config))
    for engine in ("pandas", "dask"):
        arguments = ["rsmeval", str(tmp_path / "config.json"), str(tmp_path / engine), "--engine", engine]
        assert main(arguments) == 0
    assert "% Completed" in capsys.readouterr().err
    assert_same_files(
        sorted((tmp_path / "dask" / "output").iterdir()), sorted((tmp_path / "pandas" / "output").iterdir())
    )


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ("nothing-*.parquet", "no file matches this pattern"),
        ("folder", "a folder without parquet files"),
        ("table.csv", "--engine dask reads parquet files"),
    ],
)
def test_cli_bad_input_is_a_one_line_error(tmp_path, capsys, monkeypatch, given, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "folder").mkdir()
    (tmp_path / "folder" / "notes.txt").write_text("x")
    responses(50).to_csv(tmp_path / "table.csv", index=False)
    code = main(["evaluate", given, "--engine", "dask", *EVALUATE, "--out", "out"])
    error = capsys.readouterr().err
    assert code == 2
    assert message in error and error.count("\n") == 1 and "Traceback" not in error


def test_missing_text_values_stay_missing_in_parquet_files(tmp_path):
    # read_csv(dtype=str) keeps a missing subgroup missing ("No info" in the report); parquet
    # must too: astype(str) alone makes it the group "None" (pandas 2) or "<NA>" (dask)
    frame = pd.DataFrame({"id": ["a", "b", "c"], "grade": ["g6", None, " "]})
    frame.to_parquet(tmp_path / "part.parquet")
    for engine in ("pandas", "dask"):
        read = read_responses(tmp_path / "part.parquet", text_columns=["id", "grade"], engine=engine)
        grade = read["grade"] if engine == "pandas" else read["grade"].compute()
        assert grade.isna().tolist() == [False, True, False], engine
        assert grade.tolist()[0] == "g6"
