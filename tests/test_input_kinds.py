"""Values of different kinds in one column: group columns mixing booleans, numbers and text,
complex scores, missing response ids, and the rows a human score of 0 leaves out. Each is
refused (or counted) clearly, on pandas and on dask alike."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import objects_kept, quiet

from pdmetrics import ExcludedRowsWarning, InvalidInputError
from pdmetrics.datasets import simulate_scores

dd = pytest.importorskip("dask.dataframe")
dask = pytest.importorskip("dask")


# --------------------------------------------------------------------------------------
# group columns mixing booleans with numbers, or numbers with text
# --------------------------------------------------------------------------------------
def mixed_groups(values: list) -> pd.DataFrame:
    frame = simulate_scores(len(values), seed=4)
    frame["g"] = pd.Series(values, dtype=object, index=frame.index)
    return frame


BOOL_AND_NUMBER = [1] * 200 + [True] * 200 + [1.0] * 100 + [2] * 100
NUMBER_AND_TEXT = [1] * 300 + ["1"] * 100 + [2] * 200
BOOL_AND_TEXT = ["a"] * 300 + [False] * 300

BOOL_NUMBER_MESSAGE = (
    r"`by='g'` mixes numbers and booleans \(e\.g\. 1 at row 0 and True at row 200\).*"
    r"df\['g'\]\.astype\(str\)"
)
NUMBER_TEXT_MESSAGE = (
    r"`by='g'` mixes numbers and text \(e\.g\. 1 at row 0 and '1' at row 300\).*df\['g'\]\.astype\(str\)"
)
BOOL_TEXT_MESSAGE = r"`by='g'` mixes text and booleans \(e\.g\. 'a' at row 0 and False at row 300\)"


def group_calls(frame):
    yield lambda: frame.scoring.evaluate(human="sc1", system="raw", by="g")
    yield lambda: frame.scoring.report(human="sc1", system="raw", trim_min=1, trim_max=6, by="g")
    yield lambda: frame.fairness.score_fairness(human="sc1", system="raw", by="g")
    yield lambda: frame.fairness.by_group(y_true="sc1", y_pred="sc1", by="g")


@pytest.mark.parametrize(
    "values, message",
    [
        (BOOL_AND_NUMBER, BOOL_NUMBER_MESSAGE),
        (NUMBER_AND_TEXT, NUMBER_TEXT_MESSAGE),
        (BOOL_AND_TEXT, BOOL_TEXT_MESSAGE),
    ],
    ids=["bool-number", "number-text", "bool-text"],
)
def test_group_column_mixing_kinds_is_refused(values, message):
    frame = mixed_groups(values)
    for call in group_calls(frame):
        with pytest.raises(InvalidInputError, match=message):
            quiet(call)
    # a categorical column of mixed categories is refused too
    if values is NUMBER_AND_TEXT:
        categorical = frame.assign(g=frame["g"].astype("category"))
        with pytest.raises(InvalidInputError, match=NUMBER_TEXT_MESSAGE):
            categorical.scoring.evaluate(human="sc1", system="raw", by="g")


def test_missing_values_do_not_count_as_a_kind():
    frame = mixed_groups([True, False, None, np.nan, pd.NA, True] * 100)
    table = quiet(frame.scoring.evaluate, human="sc1", system="raw", by="g")
    assert table["group"].tolist() == ["(all)", False, True, "No info"]
    assert table["N"].tolist() == [600, 100, 200, 300]


@pytest.mark.parametrize(
    "values, dtype",
    [
        ([1, 2, 3] * 200, "int64"),
        ([1, 2, 3] * 200, object),
        ([1, 2.5, np.int64(3)] * 200, object),
        (["a", "b", "c"] * 200, object),
        (["a", "b", "c"] * 200, "category"),
        ([1, 2, None] * 200, "Int64"),
        (["a", "b", None] * 200, "string"),
        ([True, False, True] * 200, object),
        ([True, False, True] * 200, "boolean"),
    ],
)
def test_group_columns_of_one_kind_still_work(values, dtype):
    frame = simulate_scores(600, seed=4)
    frame["g"] = pd.Series(values, dtype=dtype, index=frame.index)
    table = quiet(frame.scoring.evaluate, human="sc1", system="raw", by="g")
    assert table["N"].iloc[1:].sum() == table["N"].iloc[0] == 600
    assert len(table) == 1 + frame["g"].nunique() + frame["g"].isna().any()
    with objects_kept():
        on_dask = quiet(
            dd.from_pandas(frame, npartitions=3).scoring.evaluate, human="sc1", system="raw", by="g"
        )
    pd.testing.assert_frame_equal(on_dask, table, check_dtype=False)


@pytest.mark.parametrize("npartitions", [1, 3, 6])
@pytest.mark.parametrize(
    "values, message",
    [(BOOL_AND_NUMBER, BOOL_NUMBER_MESSAGE), (NUMBER_AND_TEXT, NUMBER_TEXT_MESSAGE)],
    ids=["bool-number", "number-text"],
)
def test_group_column_mixing_kinds_is_refused_on_dask(values, message, npartitions):
    """Kept as objects, each partition (and the groups of all partitions together) is checked
    as pandas checks the whole column: even when every partition holds one kind only."""
    frame = mixed_groups(values)
    with objects_kept():
        ddf = dd.from_pandas(frame, npartitions=npartitions)
        assert ddf["g"].dtype == object
        with pytest.raises(InvalidInputError, match=r"`by='g'` mixes"):
            quiet(ddf.scoring.evaluate, human="sc1", system="raw", by="g")
        with pytest.raises(InvalidInputError, match=r"`by='g'` mixes"):
            quiet(ddf.scoring.report, human="sc1", system="raw", trim_min=1, trim_max=6, by="g")
        with pytest.raises(InvalidInputError, match=r"`by='g'` mixes"):
            quiet(ddf.fairness.score_fairness, human="sc1", system="raw", by="g")
        with pytest.raises(InvalidInputError, match=r"`by='g'` mixes"):
            quiet(ddf.fairness.by_group, y_true="sc1", y_pred="sc1", by="g")
    if npartitions == 1:
        with objects_kept(), pytest.raises(InvalidInputError, match=message):
            quiet(dd.from_pandas(frame, npartitions=1).scoring.evaluate, human="sc1", system="raw", by="g")


def test_dask_string_conversion_makes_mixed_groups_text():
    """dask's default conversion turns an object column into text before pdmetrics reads it:
    the groups are then the texts '1', '1.0' and 'True', distinct as in a CSV file."""
    frame = mixed_groups(BOOL_AND_NUMBER)
    with dask.config.set({"dataframe.convert-string": True, "scheduler": "sync"}):
        ddf = dd.from_pandas(frame, npartitions=3)
        table = quiet(ddf.scoring.evaluate, human="sc1", system="raw", by="g")
    as_text = frame.assign(g=frame["g"].astype(str))
    expected = quiet(as_text.scoring.evaluate, human="sc1", system="raw", by="g")
    assert table["group"].tolist() == ["(all)", "1", "1.0", "2", "True"]
    assert table["N"].tolist() == expected["N"].tolist() == [600, 200, 100, 100, 200]


# --------------------------------------------------------------------------------------
# complex values in score columns
# --------------------------------------------------------------------------------------
COMPLEX_CASES = [
    (pd.Series([1, 2, 3, 100j], dtype=object), r"\(e\.g\. 100j at row 3\)"),
    (pd.Series([1, 2, "3", 4 + 0j], dtype=object), r"\(e\.g\. \(4\+0j\) at row 3\)"),
    (pd.Series(np.array([1, 2, 3, 4 + 100j])), r"\(e\.g\. \(4\+100j\) at row 3\)"),
    (pd.Series(np.array([1, 2, 3, 4], dtype=np.complex64)), r"\(e\.g\. \(1\+0j\) at row 0\)"),
]


@pytest.mark.parametrize(
    "scores, example", COMPLEX_CASES, ids=["object", "object-real", "complex128", "complex64"]
)
def test_complex_scores_are_refused(scores, example):
    frame = pd.DataFrame({"h": [1.0, 2, 3, 4], "s": scores})
    message = r"`system='s'` holds complex numbers " + example + r".*real numbers.*np\.real"
    for call in (
        lambda f: f.scoring.evaluate(human="h", system="s"),
        lambda f: f.scoring.report(human="h", system="s", trim_min=1, trim_max=4),
        lambda f: f.scoring.confusion_matrix(human="h", system="s"),
        lambda f: f.fairness.score_fairness(human="h", system="s", by="g"),
    ):
        with pytest.raises(InvalidInputError, match=message):
            quiet(call, frame.assign(g=list("abab")))
    swapped = frame.rename(columns={"h": "s", "s": "h"})
    with pytest.raises(InvalidInputError, match=r"`human='h'` holds complex numbers " + example):
        quiet(swapped.scoring.evaluate, human="h", system="s")
    with objects_kept():
        ddf = dd.from_pandas(frame, npartitions=2)
        if scores.dtype != object:  # refused on dask's empty sample, before any work: no value to show
            message = r"`system='s'` holds complex numbers \(dtype complex(64|128)\).*real numbers"
        with pytest.raises(InvalidInputError, match=message):
            quiet(ddf.scoring.evaluate, human="h", system="s")


def test_complex_arrays_are_refused_by_the_array_functions():
    from pdmetrics.scoring import metrics

    with pytest.raises(
        InvalidInputError, match=r"`system` holds complex numbers \(e\.g\. 100j at position 3\)"
    ):
        metrics.root_mean_squared_error(np.array([1.0, 2, 3, 4]), np.array([1, 2, 3, 100j]))
    with pytest.raises(InvalidInputError, match=r"`system` holds complex numbers"):
        metrics.root_mean_squared_error([1.0, 2, 3, 4], [1, 2, 3, 100j])
    # text that only looks complex is not a number: left out, as any other text
    frame = pd.DataFrame({"h": [1.0, 2, 3, 4, 5], "s": pd.Series([1, 2, 3, "4j", 5], dtype=object)})
    table = quiet(frame.scoring.evaluate, human="h", system="s")
    assert table["N"].tolist() == [4]


def test_complex_detection_and_classification_scores_are_refused():
    boxes = pd.DataFrame({"y": [0, 1, 0, 1], "p": pd.Series([0.1, 0.9, 0.2, 0.8j], dtype=object)})
    with pytest.raises(InvalidInputError, match=r"holds complex numbers"):
        quiet(boxes.detection.classification, y_true="y", score="p")


def test_complex_fairness_numbers_are_refused():
    frame = pd.DataFrame(
        {"y": [1, 0, 1, 0], "p": [1, 0, 0, 1], "age": pd.Series([20, 30, 40, 50j], dtype=object)}
    )
    with pytest.raises(InvalidInputError, match=r"`by='age'` holds complex numbers \(e\.g\. 50j at row 3\)"):
        quiet(frame.fairness.classification, y_true="y", y_pred="p", by="age", threshold=35)
    with pytest.raises(InvalidInputError, match=r"`by='age'` holds complex numbers \(e\.g\. 50j at row 3\)"):
        quiet(frame.fairness.classification, y_true="y", y_pred="p", by="age", threshold="midrange")


# --------------------------------------------------------------------------------------
# missing response ids
# --------------------------------------------------------------------------------------
REPORT = dict(human="sc1", system="raw", trim_min=1, trim_max=6)


def with_ids(n: int = 400) -> pd.DataFrame:
    frame = simulate_scores(n, seed=2)
    return frame.assign(resp=[f"r{i}" for i in range(n)]).set_axis(pd.RangeIndex(n) + 10)


@pytest.mark.parametrize("missing", [np.nan, None, pd.NA], ids=repr)
@pytest.mark.parametrize("engine", ["pandas", "dask"])
def test_missing_response_ids_are_refused_as_missing(missing, engine):
    """rsmeval reads ids as text: one empty id passes, two are 'duplicate response IDs'.
    pdmetrics refuses any missing id, saying so and naming the rows."""
    frame = with_ids()
    frame["resp"] = frame["resp"].astype(object)
    for rows, expected in (
        ([12], r"\(1 row, row 12\)"),
        ([12, 355], r"\(2 rows, e\.g\. row 12, row 355\)"),
    ):
        broken = frame.copy()
        broken.loc[rows, "resp"] = missing
        message = r"`id='resp'` has missing response ids " + expected + r".*dropna\(subset=\['resp'\]\)"
        if engine == "dask":
            with objects_kept():
                ddf = dd.from_pandas(broken, npartitions=4)
                with pytest.raises(InvalidInputError, match=message) as error:
                    quiet(ddf.scoring.report, id="resp", **REPORT)
                with pytest.raises(InvalidInputError, match=message):
                    quiet(ddf.scoring.report, id="resp", compute=False, **REPORT).compute()
        else:
            with pytest.raises(InvalidInputError, match=message) as error:
                quiet(broken.scoring.report, id="resp", **REPORT)
        assert "repeated" not in str(error.value)
    # missing and repeated ids together: the missing ones are named first
    both = frame.copy()
    both.loc[[12, 13], "resp"] = missing
    both.loc[300, "resp"] = "r1"
    with pytest.raises(InvalidInputError, match=r"missing response ids \(2 rows"):
        quiet(both.scoring.report, id="resp", **REPORT)


def test_missing_ids_in_the_index_are_refused():
    frame = with_ids().set_index("resp")
    frame.index = frame.index.where(frame.index != "r3", None)
    with pytest.raises(InvalidInputError, match=r"the index has missing response ids \(1 row, position 3\)"):
        quiet(frame.scoring.report, **REPORT)


# --------------------------------------------------------------------------------------
# rows left out for a human score of 0 are counted by an ExcludedRowsWarning
# --------------------------------------------------------------------------------------
def zero_scores() -> pd.DataFrame:
    frame = simulate_scores(300, seed=5)
    frame["sc1"] = frame["sc1"].where(frame.index % 50 != 7, 0.0)  # 6 zeros, nothing else missing
    frame["sc2"] = frame["sc1"]
    frame["sc2"] = frame["sc2"].where(frame.index % 50 != 8, 0.0)
    return frame


ZERO_MESSAGE = (
    r"Left out 6 of 300 rows: 6 with a human score of 0 \('sc1'; `exclude_zero=True`, .*`exclude_zero=False`"
)


def zero_calls(frame):
    yield lambda: frame.scoring.evaluate(human="sc1", system="raw")
    yield lambda: frame.scoring.evaluate(human="sc1", system="raw", by="L1")
    yield lambda: frame.scoring.confusion_matrix(human="sc1", system="raw")
    yield lambda: frame.scoring.score_distribution(human="sc1", system="raw")
    yield lambda: frame.scoring.report(human="sc1", system="raw", trim_min=1, trim_max=6)


@pytest.mark.parametrize("engine", ["pandas", "dask"])
def test_zero_human_scores_left_out_are_warned(engine):
    frame = zero_scores()
    if engine == "dask":
        frame = dd.from_pandas(frame, npartitions=3)
    for call in zero_calls(frame):
        with dask.config.set(scheduler="sync"), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        excluded = [str(w.message) for w in caught if w.category.__name__ == "ExcludedRowsWarning"]
        assert len(excluded) == 1, excluded
        assert re.search(ZERO_MESSAGE, excluded[0]), excluded[0]
    with dask.config.set(scheduler="sync"), warnings.catch_warnings():
        warnings.simplefilter("error")
        table = frame.scoring.evaluate(human="sc1", system="raw", exclude_zero=False)
    assert table["N"].tolist() == [300]


def test_zeros_and_missing_scores_are_counted_together():
    frame = zero_scores()
    frame.loc[[1, 2], "raw"] = np.nan
    frame.loc[3, "sc1"] = np.nan
    with pytest.warns(
        ExcludedRowsWarning,
        match=r"Left out 9 of 300 rows: 1 with a missing or non-numeric human score \('sc1'\); "
        r"6 with a human score of 0 .*; 2 with a missing or non-numeric system score",
    ):
        table = frame.scoring.evaluate(human="sc1", system="raw")
    assert table["N"].tolist() == [291]
