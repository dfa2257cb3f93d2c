"""report(layout=): the tidy tables name the scores by the user's columns ("tidy") or by
RSMTool's names ("rsmtool"); rsmeval's files keep RSMTool's names either way."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from rsmeval_files import RSMEVAL_EXPERIMENTS
from test_rsmeval_tables import _config, run_experiment

import pdmetrics
from pdmetrics.datasets import simulate_scores
from pdmetrics.errors import InvalidInputError
from pdmetrics.rsmeval import report
from pdmetrics.rsmeval.data import rsmeval_names
from pdmetrics.scoring import postprocess

RAW = ("raw", "raw_trim", "raw_trim_round")
SCALE = ("scale", "scale_trim", "scale_trim_round")
#: rsmeval's data tables: their columns are the frame's, under rsmeval's names
DATA_TABLES = (
    "test_metadata",
    "test_other_columns",
    "test_excluded_responses",
    "test_responses_with_excluded_flags",
    "test_excluded_composition",
    "data_composition",
    "data_composition_by_",
)


def expected_names(human, system, second_human=None, scale_with=None) -> dict:
    """RSMTool's names -> the user's, from the columns df.scoring.postprocess adds."""
    derived = list(
        postprocess(
            pd.DataFrame({system: [1.0, 2.0, 3.0]}), system=system, trim_min=1, trim_max=6, scale_with="asis"
        ).columns
    )[1:]  # <system>_trim, _trim_round, _scale, _scale_trim, _scale_trim_round
    if isinstance(scale_with, str) and scale_with == "asis":
        names = dict(zip(SCALE, [system, *derived[:2]]))
    elif scale_with is None:
        names = dict(zip(RAW, [system, *derived[:2]]))
    else:
        names = dict(zip(RAW + SCALE, [system, *derived]))
    names["sc1"] = human
    if second_human is not None:
        names["sc2"] = second_human
    return names


def original_names(columns, id, human, second_human, system) -> dict:
    """rsmeval's name of each renamed column -> its name in the frame."""
    names = rsmeval_names(columns, id, human, second_human, system, None)
    return {rsmeval: column for column, rsmeval in names.items() if rsmeval not in (column, "spkitemid")}


def renamed(name: str, table: pd.DataFrame, names: dict, original: dict) -> pd.DataFrame:
    """A table of the rsmtool layout, renamed as the tidy layout should name it."""
    if name == "eval_short":
        return table.rename(
            columns=lambda c: f"{c.split('.')[0]}.{names[c.split('.')[1]]}" if "." in c else c
        )
    if name in ("pred_processed", "test_human_scores"):
        return table.rename(columns=names)
    if name.startswith(DATA_TABLES):
        return table.rename(columns=original)
    out = table.copy()
    for column in ("system", "human", "second_human") if name == "consistency" else ("system",):
        if column in out.columns:
            out[column] = [names.get(value, value) for value in out[column]]
    return out


def assert_layouts_agree(tidy, rsmtool, names, original) -> None:
    assert tidy.score_names == rsmtool.score_names == names
    assert (tidy.layout, rsmtool.layout) == ("tidy", "rsmtool")
    assert tidy.primary == rsmtool.primary
    assert tidy.info["primary_score"] == names[rsmtool.primary]
    assert list(tidy) == list(rsmtool)
    files, expected_files = tidy.rsmtool_frames(), rsmtool.rsmtool_frames()
    assert list(files) == list(expected_files)
    for name, frame in files.items():  # rsmeval's files: RSMTool's names whatever the layout
        pd.testing.assert_frame_equal(frame, expected_files[name], obj=name)
    for name in rsmtool:
        expected = renamed(name, rsmtool[name], names, original)
        pd.testing.assert_frame_equal(tidy[name], expected, check_dtype=False, obj=name)


@pytest.mark.parametrize("experiment", RSMEVAL_EXPERIMENTS)
def test_both_layouts_on_rsmeval_experiments(experiment):
    tidy, _, _ = run_experiment(experiment)
    rsmtool, _, _ = run_experiment(experiment, layout="rsmtool")
    folder, config = _config(experiment)
    second = config.get("second_human_score_column")
    scale_with = {"frame": pd.DataFrame()}.get(tidy.info["scale_with"], tidy.info["scale_with"])
    names = expected_names("h1", "score", second, scale_with)
    columns = pd.read_csv(folder / config["predictions_file"], nrows=0).columns
    original = original_names(columns, config.get("id_column", "spkitemid"), "h1", second, "score")
    assert_layouts_agree(tidy, rsmtool, names, original)
    derived = {"score_trim", "score_trim_round", "score_scale", "score_scale_trim", "score_scale_trim_round"}
    assert set(tidy["eval"]["system"]) <= {"score"} | derived


def test_scale_with_asis_and_a_training_frame():
    df = simulate_scores(400, seed=3).rename(columns={"raw": "score", "sc1": "h1"})
    asis = df.scoring.report(human="h1", system="score", trim_min=1, trim_max=6, scale_with="asis")
    assert asis.primary == "scale" and asis.info["primary_score"] == "score"
    assert asis["eval"]["system"].tolist() == ["score", "score_trim", "score_trim_round"]
    assert list(asis.rsmtool_frames()["eval"].index) == list(SCALE)
    assert asis.score_names == dict(zip([*SCALE, "sc1"], ["score", "score_trim", "score_trim_round", "h1"]))
    train = df.iloc[:200]
    trained = df.scoring.report(human="h1", system="score", trim_min=1, trim_max=6, scale_with=train)
    processed = postprocess(df, system="score", trim_min=1, trim_max=6, scale_with=train, human="h1")
    processed = processed.drop(columns=df.columns)  # the new columns
    assert trained["eval"]["system"].tolist() == ["score", *processed.columns]
    assert trained.primary == "scale" and trained.info["primary_score"] == "score_scale"
    assert trained["confMatrix"]["system"].unique().tolist() == ["score_scale_trim_round"]
    assert "corr.score_scale_trim" in trained["eval_short"].columns
    assert list(trained["pred_processed"].columns) == ["spkitemid", "h1", "score", *processed.columns]


def test_a_system_column_called_raw_gives_the_same_tables_in_both_layouts():
    df = simulate_scores(600, seed=5)
    options = dict(human="sc1", system="raw", second_human="sc2", by="L1", trim_min=1, trim_max=6)
    tidy, rsmtool = report(df, **options), report(df, **options, layout="rsmtool")
    for name in rsmtool:
        pd.testing.assert_frame_equal(tidy[name], rsmtool[name], obj=name)
    assert tidy.info["primary_score"] == "raw"


@pytest.mark.parametrize("layout", ["RSMTool", "wide", None, ["tidy"]])
def test_an_unknown_layout_names_the_choices(layout):
    df = simulate_scores(50, seed=1)
    with pytest.raises(InvalidInputError, match=r"`layout=.*'tidy'.*'rsmtool'"):
        df.scoring.report(human="sc1", system="raw", trim_min=1, trim_max=6, layout=layout)


def test_a_column_named_as_a_derived_score_is_refused_in_the_tidy_layout():
    df = simulate_scores(200, seed=1).rename(columns={"sc1": "raw_trim"})
    with pytest.raises(InvalidInputError, match=r"`human='raw_trim'` is also the name .*layout='rsmtool'"):
        df.scoring.report(human="raw_trim", system="raw", trim_min=1, trim_max=6)
    kept = df.scoring.report(human="raw_trim", system="raw", trim_min=1, trim_max=6, layout="rsmtool")
    assert kept["eval"]["system"].tolist() == list(RAW)
    clash = df.rename(columns={"raw_trim": "h", "sc2": "raw_trim_round"})
    with pytest.raises(InvalidInputError, match=r"`second_human='raw_trim_round'` is also the name"):
        report(clash, human="h", second_human="raw_trim_round", system="raw", trim_min=1, trim_max=6)


def test_repr_and_html_say_both_names():
    df = simulate_scores(300, seed=2).rename(columns={"raw": "score", "sc1": "h1"})
    result = df.scoring.report(human="h1", system="score", by="L1", trim_min=1, trim_max=6)
    assert "primary score 'score' (RSMTool's 'raw')" in repr(result)
    page = result.to_html()
    assert "primary score <code>raw</code> (<code>score</code>)" in page
    assert "<code>raw_trim</code> = <code>score_trim</code>" in page
    assert 'id="fig-eval-by-l1"' in page  # the metric grid found the tidy rows
    assert page.count('class="bar"') == result.to_html().count('class="bar"') > 0
    assert "(<code>score</code>)" in result._repr_html_()


#: user column names drawn from the tables' own column names and RSMTool's names
NAMES = (
    *RAW,
    *SCALE,
    "sc1",
    "sc2",
    "spkitemid",
    "N",
    "system",
    "human",
    "second_human",
    "score",
    "sys",
    "group",
    "by",
    "corr",
    "candidate",
)
BASE = simulate_scores(120, seed=7).drop(columns="id")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    picked=st.lists(st.sampled_from(NAMES), min_size=4, max_size=4, unique=True),
    double=st.booleans(),
    scaled=st.sampled_from([None, "asis", "frame"]),
)
@example(picked=["raw_trim", "raw", "N", "sc1"], double=True, scaled=None)  # a clash: refused
@example(picked=["sc2", "sc1", "raw", "spkitemid"], double=True, scaled="frame")
def test_any_user_names_give_the_right_tables_or_a_clear_error(picked, double, scaled):
    human, system, second, group = picked
    frame = BASE.rename(columns={"sc1": human, "raw": system, "sc2": second, "L1": group})
    second_human = second if double else None
    scale_with = frame.iloc[:60] if scaled == "frame" else scaled
    canonical_scale = BASE.iloc[:60] if scaled == "frame" else scaled
    options = dict(second_human=second_human, scale_with=scale_with, trim_min=1, trim_max=6, by=group)
    names = expected_names(human, system, second_human, scale_with)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.PdmetricsWarning)
        rsmtool = report(frame, human=human, system=system, layout="rsmtool", **options)
        canonical = report(
            BASE,
            **{
                **options,
                "second_human": "sc2" if double else None,
                "scale_with": canonical_scale,
                "by": "L1",
            },
            human="sc1",
            system="raw",
            layout="rsmtool",
        )
        if len(set(names.values())) < len(names):  # a human column named as a derived score
            with pytest.raises(InvalidInputError, match=r"is also the name .*layout='rsmtool'"):
                report(frame, human=human, system=system, **options)
            tidy = None
        else:
            tidy = report(frame, human=human, system=system, **options)
    # the numbers do not depend on the names
    for name in ("eval", "eval_short", "confMatrix", "score_dist", "consistency", "true_score_eval"):
        if name in canonical:
            pd.testing.assert_frame_equal(
                rsmtool.rsmtool_frames()[name], canonical.rsmtool_frames()[name], obj=name
            )
    if tidy is not None:
        assert_layouts_agree(
            tidy, rsmtool, names, original_names(frame.columns, None, human, second_human, system)
        )
        assert tidy["eval"]["system"].tolist() == [names[t] for t in rsmtool["eval"]["system"]]
        if double:
            assert tidy["consistency"][["human", "second_human"]].iloc[0].tolist() == [human, second]
            assert np.array_equal(tidy["confMatrix_h1h2"]["system"].unique(), [second])


def test_the_data_tables_keep_the_frames_column_names_in_the_tidy_layout():
    df = simulate_scores(100, seed=4).assign(length=1.0)  # "length" is one of rsmeval's names
    tidy = df.scoring.report(human="sc1", system="raw", trim_min=1, trim_max=6)
    rsmtool = df.scoring.report(human="sc1", system="raw", trim_min=1, trim_max=6, layout="rsmtool")
    assert list(tidy["test_other_columns"].columns) == ["spkitemid", "id", "L1", "sc2", "length"]
    assert list(rsmtool["test_other_columns"].columns) == ["spkitemid", "id", "L1", "##sc2##", "##length##"]
    assert list(tidy.rsmtool_frames()["test_other_columns"].columns) == ["id", "L1", "##sc2##", "##length##"]
