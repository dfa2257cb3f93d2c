"""Bad and edge inputs of scoring and fairness: every value checked, clear errors naming the
argument, the column and the fix, on pandas and on dask alike."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import objects_kept, quiet

import pdmetrics
from pdmetrics import ExcludedRowsWarning, InvalidInputError, NotPartitionableError
from pdmetrics import rsmeval as rsmeval_core

dd = pytest.importorskip("dask.dataframe")
dask = pytest.importorskip("dask")


# --------------------------------------------------------------------------------------
# 1. every value of a score column is checked (not the first 1,000)
# --------------------------------------------------------------------------------------
def late_booleans(n: int = 1200) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    human = rng.integers(1, 6, n + 2).astype(float)
    system = np.array([*human[:n].tolist(), True, False], dtype=object)
    return pd.DataFrame({"sc1": human, "raw": system}, index=pd.RangeIndex(n + 2) + 100)


BOOLEAN_MESSAGE = r"`system='raw'` holds booleans .*True.* at row 1300.*\.astype\(float\)"


@pytest.mark.parametrize("method", ["evaluate", "score_distribution", "confusion_matrix"])
def test_booleans_after_the_first_thousand_values_are_refused(method):
    frame = late_booleans()
    with pytest.raises(InvalidInputError, match=BOOLEAN_MESSAGE):
        getattr(frame.scoring, method)(human="sc1", system="raw")
    with pytest.raises(InvalidInputError, match=BOOLEAN_MESSAGE):
        frame.scoring.report(human="sc1", system="raw", trim_min=1, trim_max=5)


@pytest.mark.parametrize("npartitions", [1, 2, 5])
def test_booleans_after_the_first_thousand_values_are_refused_on_dask(npartitions):
    frame = late_booleans()
    with objects_kept():
        ddf = dd.from_pandas(frame, npartitions=npartitions)
        assert ddf["raw"].dtype == object
        with pytest.raises(InvalidInputError, match=BOOLEAN_MESSAGE):
            ddf.scoring.evaluate(human="sc1", system="raw")
        with pytest.raises(InvalidInputError, match=BOOLEAN_MESSAGE):
            ddf.scoring.report(human="sc1", system="raw", trim_min=1, trim_max=5)


@pytest.mark.parametrize(
    "value", [np.bool_(True), pd.NA, None, np.nan, "3", 3, np.int64(2), 2.5, "TD"], ids=repr
)
def test_other_object_values_are_not_taken_for_booleans(value):
    frame = late_booleans(1200)
    frame["raw"] = pd.Series([*frame["sc1"].iloc[:-1].tolist(), value], dtype=object, index=frame.index)
    if isinstance(value, np.bool_):
        with pytest.raises(InvalidInputError, match=r"holds booleans \(1 value, e.g. True at row 1301\)"):
            frame.scoring.evaluate(human="sc1", system="raw")
        return
    table = quiet(frame.scoring.evaluate, human="sc1", system="raw")
    usable = pd.to_numeric(pd.Series([value], dtype=object), errors="coerce").notna().iloc[0]
    assert table.loc[0, "N"] == 1202 if usable else 1201


def test_nullable_and_arrow_boolean_columns_are_refused():
    frame = late_booleans(10)
    for dtype in ("boolean", "bool"):
        bools = frame.assign(raw=(frame["sc1"] > 2).astype(dtype))
        with pytest.raises(InvalidInputError, match="`system='raw'` is a boolean column"):
            bools.scoring.evaluate(human="sc1", system="raw")


def test_the_check_of_a_million_row_object_column_is_vectorized():
    import time

    values = pd.Series(np.arange(1_000_000) % 5 + 1.0, dtype=object)
    frame = pd.DataFrame({"sc1": np.arange(1_000_000) % 5 + 1.0, "raw": values})
    start = time.perf_counter()
    frame.scoring.evaluate(human="sc1", system="raw")
    assert time.perf_counter() - start < 10  # a Python loop over the rows with the metrics took longer


# --------------------------------------------------------------------------------------
# 2. dask: a repeated id across partitions is refused, as pandas refuses it
# --------------------------------------------------------------------------------------
def responses_with_ids(n: int = 400) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    human = rng.integers(1, 6, n).astype(float)
    return pd.DataFrame(
        {"resp": [f"r{i}" for i in range(n)], "sc1": human, "raw": human + rng.normal(0, 0.7, n)}
    )


REPORT = dict(human="sc1", system="raw", trim_min=1, trim_max=5)


def test_repeated_id_in_two_partitions_is_refused_on_dask():
    frame = responses_with_ids()
    frame.loc[350, "resp"] = "r3"  # partition 0 and partition 3 of 4
    with pytest.raises(
        InvalidInputError, match=r"`id='resp'` holds repeated response ids \(1 ids, e.g. 'r3'\)"
    ):
        frame.scoring.report(id="resp", **REPORT)
    with dask.config.set(scheduler="sync"):
        ddf = dd.from_pandas(frame, npartitions=4)
        with pytest.raises(
            InvalidInputError, match=r"`id='resp'` holds repeated response ids \(1 ids, e.g. 'r3'\)"
        ):
            ddf.scoring.report(id="resp", **REPORT)
        lazy = ddf.scoring.report(id="resp", compute=False, **REPORT)
        with pytest.raises(InvalidInputError, match="repeated response ids"):
            lazy.compute()
        # within one partition, as pandas
        frame.loc[[1, 2], "resp"] = "r0"
        ddf = dd.from_pandas(frame, npartitions=4)
        with pytest.raises(InvalidInputError, match=r"repeated response ids \(2 ids"):
            frame.scoring.report(id="resp", **REPORT)
        with pytest.raises(InvalidInputError, match=r"repeated response ids \(2 ids"):
            ddf.scoring.report(id="resp", **REPORT)


def test_unique_ids_on_dask_give_the_pandas_report():
    frame = responses_with_ids()
    expected = quiet(frame.scoring.report, id="resp", **REPORT)
    with dask.config.set(scheduler="sync"):
        result = quiet(dd.from_pandas(frame, npartitions=4).scoring.report, id="resp", **REPORT)
    pd.testing.assert_frame_equal(result["eval"], expected["eval"])
    integer_ids = frame.assign(resp=np.arange(len(frame)) * 7)
    with dask.config.set(scheduler="sync"):
        quiet(dd.from_pandas(integer_ids, npartitions=3).scoring.report, id="resp", **REPORT)


# --------------------------------------------------------------------------------------
# 3. the accessor methods take their core function's arguments
# --------------------------------------------------------------------------------------
# test_one_surface.py checks every accessor method against its core function on every engine.


def test_report_accessor_takes_ids_flags_candidates_and_group_sizes():
    frame = responses_with_ids(300).assign(
        cand=np.repeat(np.arange(100), 3), advisory=np.tile([0, 0, 1], 100), L1=np.tile(["a", "b", "c"], 100)
    )
    frame.loc[frame.index[:6], "cand"] = 999  # candidate 999 has six responses, the others three
    options = dict(
        id="resp",
        candidate="cand",
        min_items_per_candidate=4,
        flag={"advisory": [0]},
        min_n_per_group=5,
        by="L1",
    )
    mine = quiet(frame.scoring.report, **options, **REPORT)
    theirs = quiet(rsmeval_core.report, frame, **options, **REPORT)
    assert mine["eval"]["N"].tolist() == theirs["eval"]["N"].tolist() == [4, 4, 4]
    assert set(mine) == set(theirs)
    with pytest.raises(InvalidInputError, match="repeated response ids"):
        frame.assign(resp="same").scoring.report(id="resp", **REPORT)
    with dask.config.set(scheduler="sync"):
        ddf = dd.from_pandas(frame, npartitions=3)
        with pytest.raises(NotPartitionableError, match="candidate"):
            ddf.scoring.report(candidate="cand", **REPORT)
        on_dask = quiet(
            ddf.scoring.report, id="resp", flag={"advisory": [0]}, min_n_per_group=5, by="L1", **REPORT
        )
    pandas_too = quiet(
        frame.scoring.report, id="resp", flag={"advisory": [0]}, min_n_per_group=5, by="L1", **REPORT
    )
    pd.testing.assert_frame_equal(on_dask["eval"], pandas_too["eval"])


# --------------------------------------------------------------------------------------
# 4. fairness: no usable rows, all-missing columns, MultiIndex columns, unknown privileged
# --------------------------------------------------------------------------------------
def labels_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "y": [1, 0, 1, 0, 1, 0, 1, 1],
            "p": [1, 0, 0, 0, 1, 1, 1, 0],
            "sex": list("FMFMFMFM"),
            "answer": ["yes", "no", "no", "no", "yes", "yes", "yes", "no"],
            "truth": ["yes", "no", "yes", "no", "yes", "no", "yes", "yes"],
        }
    )


def run_fairness(frame, engine: str, method: str, **kwargs):
    if engine == "dask":
        with dask.config.set(scheduler="sync"):
            return getattr(dd.from_pandas(frame, npartitions=2).fairness, method)(**kwargs)
    return getattr(frame.fairness, method)(**kwargs)


CLASSIFICATION = dict(y_true="y", y_pred="p", by="sex", privileged="M")
LLM = dict(y_true="truth", response="answer", by="sex", positive="yes", negative="no", privileged="M")


@pytest.mark.parametrize("engine", ["pandas", "dask"])
def test_classification_without_usable_rows_is_refused(engine):
    frame = labels_frame()
    with pytest.raises(InvalidInputError, match=r"`y_true='y'` has no value \(all 8 rows are missing\)"):
        run_fairness(frame.assign(y=np.nan), engine, "classification", **CLASSIFICATION)
    with pytest.raises(InvalidInputError, match=r"`y_pred='p'` has no value \(all 8 rows are missing\)"):
        run_fairness(frame.assign(p=None), engine, "classification", **CLASSIFICATION)
    with pytest.raises(InvalidInputError, match=r"no rows.*no usable rows"):
        run_fairness(frame.iloc[:0], engine, "classification", **CLASSIFICATION)
    apart = frame.assign(y=[1, 0, 1, 0, None, None, None, None], p=[None] * 4 + [1, 0, 1, 0])
    with pytest.raises(InvalidInputError, match=r"No row has both a `y_true` \('y'\) and a `y_pred` \('p'\)"):
        run_fairness(apart, engine, "classification", **CLASSIFICATION)
    one = quiet(
        run_fairness, frame.iloc[:1], engine, "classification", **{**CLASSIFICATION, "privileged": "F"}
    )
    assert one["N"].tolist() == [1, 1]
    # the privileged value only in the last partition
    late = frame.assign(sex=list("FFFFFFFM"))
    table = quiet(run_fairness, late, engine, "classification", **CLASSIFICATION)
    assert table["N_privileged"].tolist()[0] == 1


@pytest.mark.parametrize("engine", ["pandas", "dask"])
def test_llm_fairness_without_usable_rows_is_refused(engine):
    frame = labels_frame()
    with pytest.raises(InvalidInputError, match=r"no rows.*no usable rows"):
        run_fairness(frame.iloc[:0], engine, "llm_fairness", **LLM)
    with pytest.raises(InvalidInputError, match=r"`y_true='truth'` has no value \(all 8 rows are missing\)"):
        run_fairness(frame.assign(truth=None), engine, "llm_fairness", **LLM)


@pytest.mark.parametrize("engine", ["pandas", "dask"])
def test_score_fairness_names_the_column_without_numbers(engine):
    frame = pd.DataFrame({"h": [1, 2, 3, 4, 1, 2, 3, 4.0], "s": [np.nan] * 8, "g": list("aabbaabb")})
    for method in ("score_fairness", "score_fairness_estimates"):
        with pytest.raises(InvalidInputError, match=r"`system='s'` has no numeric value \(all 8 rows"):
            run_fairness(frame, engine, method, human="h", system="s", by="g")
        with pytest.raises(InvalidInputError, match=r"`human='h'` has no numeric value \(all 8 rows"):
            run_fairness(frame.assign(h=np.nan, s=1.0), engine, method, human="h", system="s", by="g")
        with pytest.raises(InvalidInputError, match=r"no rows"):
            run_fairness(frame.iloc[:0], engine, method, human="h", system="s", by="g")
        with pytest.raises(InvalidInputError, match=r"value in `by='g'`"):
            run_fairness(frame.assign(s=1.0, g=None), engine, method, human="h", system="s", by="g")


def multiindex_frame() -> pd.DataFrame:
    frame = labels_frame().assign(h=[1, 2, 3, 4, 1, 2, 3, 4.0], s=[1.5, 2, 3, 3.5, 1, 2.5, 3, 4])
    frame.columns = pd.MultiIndex.from_tuples(
        [("o", "y"), ("o", "p"), ("g", "sex"), ("o", "answer"), ("o", "truth"), ("o", "h"), ("o", "s")]
    )
    return frame


FLATTEN = re.escape("df.columns = ['_'.join(map(str, c)) for c in df.columns]")


@pytest.mark.parametrize(
    ("method", "kwargs"),
    [
        ("by_group", dict(y_true=("o", "y"), y_pred=("o", "p"), by=("g", "sex"))),
        ("group_disparity", dict(y_true=("o", "y"), y_pred=("o", "p"), by=[("g", "sex")])),
        ("score_fairness", dict(human=("o", "h"), system=("o", "s"), by=("g", "sex"))),
        ("score_fairness_estimates", dict(human=("o", "h"), system=("o", "s"), by=[("g", "sex")])),
    ],
)
@pytest.mark.parametrize("engine", ["pandas", "dask"])
def test_multiindex_group_columns_give_one_clear_error(method, kwargs, engine):
    frame = multiindex_frame()
    if engine == "dask":
        pytest.importorskip("pyarrow")
    with pytest.raises(InvalidInputError, match=r"`by=\('g', 'sex'\)` is a MultiIndex column.*" + FLATTEN):
        run_fairness(frame, engine, method, **kwargs)


@pytest.mark.parametrize("argument", ["y_true", "y_pred", "by"])
def test_a_level_of_multiindex_columns_is_not_taken_for_a_column(argument):
    frame = multiindex_frame()
    kwargs = dict(y_true=("o", "y"), y_pred=("o", "p"), by=("g", "sex"))
    kwargs[argument] = "o"
    with pytest.raises(
        InvalidInputError,
        match=rf"`{argument}='o'` names a level of the MultiIndex columns.*"
        rf"\('o', 'y'\).*full name.*" + FLATTEN,
    ):
        frame.fairness.by_group(**kwargs)
    kwargs[argument] = ("o", "nothing")
    with pytest.raises(KeyError, match=rf"`{argument}=\('o', 'nothing'\)`: no such column"):
        frame.fairness.by_group(**kwargs)


def test_multiindex_columns_still_work_where_names_are_values():
    frame = multiindex_frame()
    flat = labels_frame()
    table = quiet(
        frame.fairness.classification,
        y_true=("o", "y"),
        y_pred=("o", "p"),
        by=("g", "sex"),
        privileged="M",
    )
    expected = quiet(flat.fairness.classification, **CLASSIFICATION)
    assert table["by"].tolist() == [("g", "sex"), "(all)"]
    pd.testing.assert_frame_equal(table.drop(columns="by"), expected.drop(columns="by"))


@pytest.mark.parametrize("engine", ["pandas", "dask"])
def test_a_privileged_value_absent_from_the_column_is_refused(engine):
    frame = labels_frame()
    message = r"`privileged='male'` is not a value of column 'sex' \(it has 'F', 'M'\)"
    with pytest.raises(InvalidInputError, match=message):
        run_fairness(frame, engine, "classification", **{**CLASSIFICATION, "privileged": "male"})
    with pytest.raises(InvalidInputError, match=message):
        run_fairness(frame, engine, "llm_fairness", **{**LLM, "privileged": "male"})
    with pytest.raises(
        InvalidInputError, match=r"`privileged=\['male', 'man'\]` is not a value of column 'sex'"
    ):
        run_fairness(frame, engine, "classification", **{**CLASSIFICATION, "privileged": ["male", "man"]})
    with pytest.raises(InvalidInputError, match=r"`privileged=\{'sex': 1\}` is not a value of column 'sex'"):
        run_fairness(frame, engine, "classification", **{**CLASSIFICATION, "privileged": {"sex": 1}})
    # one of several named values present: fine; a value present only where the label is missing: warned
    table = quiet(
        run_fairness, frame, engine, "classification", **{**CLASSIFICATION, "privileged": ["M", "male"]}
    )
    assert table.loc[0, "N_privileged"] == 4
    masked = frame.assign(y=[1, None, 1, None, 1, None, 1, None])
    with pytest.warns(ExcludedRowsWarning, match="left out"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", pdmetrics.UndefinedMetricWarning)
            table = run_fairness(masked, engine, "classification", **CLASSIFICATION)
    assert table.loc[0, "N_privileged"] == 0


def test_privileged_on_categorical_and_numeric_sensitive_columns():
    frame = labels_frame()
    categorical = frame.assign(sex=pd.Categorical(frame["sex"], categories=["F", "M", "X"]))
    with pytest.raises(
        InvalidInputError, match=r"`privileged='X'` is not a value of column 'sex' \(it has 'F', 'M'\)"
    ):
        categorical.fairness.classification(**{**CLASSIFICATION, "privileged": "X"})
    numeric = frame.assign(sex=np.tile([0, 1], 4))
    with pytest.raises(
        InvalidInputError, match=r"`privileged='1'` is not a value of column 'sex' \(it has 0, 1\)"
    ):
        numeric.fairness.classification(**{**CLASSIFICATION, "privileged": "1"})
    table = quiet(numeric.fairness.classification, **{**CLASSIFICATION, "privileged": 1})
    assert table.loc[0, "N_privileged"] == 4


# ---- second adversarial pass (issue 21): names, trims, resampling sizes, zero_division ----
def _scores_with_group():
    return pd.DataFrame(
        {"L1": list("xyxyxy"), "h": [1, 2, 3, 4, 2, 3], "raw": [1.0, 2.5, 3.0, 3.5, 2.0, 3.0]}
    )


@pytest.mark.parametrize("method", ["evaluate", "disattenuated_correlations"])
def test_a_tuple_by_naming_one_flat_column_is_refused_not_split(method):
    frame = _scores_with_group().assign(h2=[1, 2, 3, 4, 2, 2])
    frame[("a", "b")] = frame["L1"]
    kwargs = {"second_human": "h2"} if method != "evaluate" else {}
    with pytest.raises(InvalidInputError) as refused:
        getattr(frame.scoring, method)(human="h", system="raw", by=("a", "b"), **kwargs)
    message = str(refused.value)
    assert message.startswith("`by=('a', 'b')`: the column is named by a tuple")
    assert "df.rename(columns={('a', 'b'): 'a_b'}) and by='a_b'" in message
    with pytest.raises(InvalidInputError, match=r"^`by=\('a', 'b'\)`: the column is named by a tuple"):
        frame.fairness.by_group(y_true="h", y_pred="h2", by=("a", "b"))


@pytest.mark.parametrize("engine", ["pandas", "dask"])
@pytest.mark.parametrize(
    ("kwargs", "argument", "name"),
    [({"system": "raw", "by": ["L1", "L1"]}, "by", "L1"), ({"system": ["raw", "raw"]}, "system", "raw")],
)
def test_a_column_listed_twice_is_refused_alike_on_pandas_and_dask(engine, kwargs, argument, name):
    frame = _scores_with_group()
    if engine == "dask":
        frame = dd.from_pandas(frame, npartitions=2)
    with pytest.raises(InvalidInputError) as refused:
        frame.scoring.evaluate(human="h", **kwargs)
    assert str(refused.value) == f"`{argument}=` names {name!r} more than once; pass each column once."


def test_dask_refuses_a_repeated_group_in_every_scoring_table():
    frame = dd.from_pandas(_scores_with_group().assign(h2=[1, 2, 3, 4, 2, 2]), npartitions=2)
    for call in (
        lambda: frame.scoring.consistency(human="h", second_human="h2", by=["L1", "L1"]),
        lambda: frame.scoring.disattenuated_correlations(
            human="h", second_human="h2", system="raw", by=["L1", "L1"]
        ),
        lambda: frame.scoring.report(human="h", system="raw", by=["L1", "L1"], trim_min=1, trim_max=4),
    ):
        with pytest.raises(InvalidInputError, match=r"^`by=` names 'L1' more than once"):
            call()


TRIM_ORDER = r"^trim_min \(3\) must be smaller than trim_max \(3\): pass the lowest and the highest"


@pytest.mark.parametrize("engine", ["pandas", "dask"])
def test_equal_trims_are_refused_as_rsmeval_refuses_them(engine):
    frame = _scores_with_group()
    if engine == "dask":
        frame = dd.from_pandas(frame, npartitions=2)
    with pytest.raises(InvalidInputError, match=TRIM_ORDER):
        frame.scoring.postprocess(system="raw", trim_min=3, trim_max=3)
    with pytest.raises(InvalidInputError, match=TRIM_ORDER):
        frame.scoring.report(human="h", system="raw", trim_min=3, trim_max=3)


def test_equal_trims_are_refused_on_the_command_line(tmp_path, capsys):
    from pdmetrics.cli import main

    path = tmp_path / "r.csv"
    _scores_with_group().to_csv(path, index=False)
    args = ["evaluate", str(path), "--human", "h", "--system", "raw", "--trim-min", "3", "--trim-max", "3"]
    assert main([*args, "--out", str(tmp_path / "out")]) != 0
    assert "trim_min (3) must be smaller than trim_max (3)" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_rsmeval_config_and_the_accessors_share_the_trim_order_message():
    from pdmetrics.scoring.postprocessing import check_trim_order

    with pytest.raises(InvalidInputError, match=r"^trim_min \(6\) must be smaller than trim_max \(1\)"):
        check_trim_order(6, 1)


def _fairness_frame():
    return pd.DataFrame({"g": [0, 1, 0, 1, 0, 1], "y": [0, 1, 1, 0, 1, 1], "p": [0, 1, 0, 0, 1, 0]})


@pytest.mark.parametrize("engine", ["pandas", "dask"])
def test_a_resampling_count_too_large_for_memory_names_n_resamples(engine):
    frame = _fairness_frame()
    if engine == "dask":
        frame = dd.from_pandas(frame, npartitions=2)
    calls = (
        lambda: frame.fairness.classification(
            y_true="y", y_pred="p", by="g", privileged={"g": 0}, n_resamples=10**12
        ),
        lambda: frame.fairness.by_group(y_true="y", y_pred="p", by="g", n_resamples=10**12),
    )
    for call in calls:
        with pytest.raises(InvalidInputError, match=r"^`n_resamples=1000000000000`: the bootstrap would"):
            call()


def test_a_memory_error_while_resampling_names_n_resamples(monkeypatch):
    from pdmetrics.fairness import bootstrap

    class NoMemory:
        def multinomial(self, *args, **kwargs):
            raise MemoryError("Unable to allocate")

    monkeypatch.setattr(np.random, "default_rng", lambda seed=None: NoMemory())
    with pytest.raises(InvalidInputError, match=r"^`n_resamples=10`: .*does not fit in the memory left"):
        bootstrap.bootstrap_counts([[5, 1, 2, 12]], n_resamples=10)


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), np.inf, -np.float32("inf"), True, np.True_])
def test_zero_division_must_be_warn_or_a_finite_number(value):
    from pdmetrics._division import check_zero_division

    with pytest.raises(InvalidInputError, match=r"^`zero_division=.*` is not an option: .*finite number"):
        check_zero_division(value)
    frame = _fairness_frame()
    with pytest.raises(InvalidInputError, match=r"is not an option"):
        frame.fairness.by_group(y_true="y", y_pred="p", by="g", zero_division=value)


def test_zero_division_nan_stays_a_silent_nan():
    from pdmetrics._division import check_zero_division, divide

    assert np.isnan(check_zero_division(float("nan")))
    assert np.isnan(divide([1.0], [0.0], zero_division=np.nan)).all()


def test_detection_classification_refuses_an_infinite_zero_division():
    frame = pd.DataFrame(
        {"datum": ["d0", "d1"], "truth": ["a", "b"], "label": ["a", "a"], "score": [0.9, 0.2]}
    )
    with pytest.raises(InvalidInputError, match=r"^`zero_division=inf` is not an option"):
        frame.detection.classification(
            y_true="truth", label="label", score="score", datum="datum", zero_division=float("inf")
        )
