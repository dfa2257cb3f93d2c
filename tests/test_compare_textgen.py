"""``df.textgen.compare``: text-generation systems compared on the same prompts.

The two values of each row equal the metric of each system alone (``corpus_bleu``, ``chrf``,
``ter``, the means of ``rouge`` and ``bleu``, the means of the verdict metrics) to 1e-12; the
sacrebleu test's p-value equals ``paired_bootstrap``'s; a system compared with itself differs by
0 with p = 1; swapping the systems flips the sign and keeps p; dask and polars give the pandas
table; the 95% intervals of a per-answer mean cover the true difference in about 95% of
simulated data sets, and p < 0.05 happens in about 5% of them under a true null.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

import pdmetrics
from pdmetrics import ColumnNotFoundError, ExcludedRowsWarning, InvalidInputError, NotPartitionableError
from pdmetrics._comparison import COLUMNS
from tests.test_dask_textgen import ranked_rows, texts, verdict_rows

REFERENCES = ["ref", "ref2"]
TEXT_METRICS = ["bleu", "chrf", "chrf++", "ter", "rouge1", "rouge2", "rougeL", "rougeLsum", "sentence_bleu"]


def outputs(n: int = 60) -> pd.DataFrame:
    """Three systems' outputs (``pred``, ``base``, ``third``) of the same segments."""
    return texts(0, n).assign(base=texts(1, n)["pred"], third=texts(2, n)["pred"])


def judged(metric_columns: bool = False) -> pd.DataFrame:
    """Two systems' verdict rows in one long table (``old`` first), the same 15 data."""
    old, new = verdict_rows(3), verdict_rows(4)
    return pd.concat([old.assign(model="old"), new.assign(model="new")], ignore_index=True)


def compare(frame, **options) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.EmptyTokensWarning)
        return frame.textgen.compare(**options)


def row(table: pd.DataFrame, metric: str, baseline=None, system=None) -> pd.Series:
    found = table[table["metric"] == metric]
    if baseline is not None:
        found = found[(found["baseline"] == baseline) & (found["system"] == system)]
    assert len(found) == 1
    return found.iloc[0]


# ----------------------------------------------------------------------------------------------
# the values are those of each system alone
# ----------------------------------------------------------------------------------------------
def test_the_table_has_the_comparison_columns():
    table = compare(outputs(), prediction=["base", "pred"], reference="ref", metric=["bleu", "rouge1"])
    assert list(table.columns) == COLUMNS
    assert isinstance(table.index, pd.RangeIndex)
    assert table["metric"].tolist() == ["bleu", "rouge1"]
    assert (table["N"] == 60).all() and table["N"].dtype == "int64"
    assert set(table["test"]) == {"paired_bootstrap"}


@pytest.mark.parametrize("reference", ["ref", REFERENCES])
def test_values_equal_the_metrics_of_each_system_alone(reference):
    df = outputs()
    table = compare(df, prediction=["base", "pred"], reference=reference, metric=TEXT_METRICS, n_resamples=50)
    for system, column in (("base", "baseline_value"), ("pred", "system_value")):
        alone = {
            "bleu": df.textgen.corpus_bleu(prediction=system, reference=reference)["score"][0],
            "chrf": df.textgen.chrf(prediction=system, reference=reference)["score"][0],
            "chrf++": df.textgen.chrf(prediction=system, reference=reference, word_order=2)["score"][0],
            "ter": df.textgen.ter(prediction=system, reference=reference)["score"][0],
            "sentence_bleu": df.textgen.bleu(prediction=system, reference=reference)["bleu"].mean(),
        }
        rouge = df.textgen.rouge(prediction=system, reference=reference)
        alone.update({name: rouge[name].mean() for name in ("rouge1", "rouge2", "rougeL", "rougeLsum")})
        for metric, value in alone.items():
            np.testing.assert_allclose(
                row(table, metric)[column], value, rtol=1e-12, atol=1e-15, err_msg=metric
            )
    np.testing.assert_allclose(
        table["difference"], table["system_value"] - table["baseline_value"], rtol=1e-12
    )


def test_use_stemmer_is_rouges():
    df = outputs().assign(pred=lambda d: d["pred"] + " running cats")
    table = compare(df, prediction=["base", "pred"], reference="ref", metric="rouge1", use_stemmer=True)
    expected = df.textgen.rouge(prediction="pred", reference="ref", use_stemmer=True)["rouge1"].mean()
    np.testing.assert_allclose(table["system_value"][0], expected, rtol=1e-12)


def test_rows_missing_an_output_are_left_out_of_every_comparison():
    df = outputs()
    df.loc[[3, 7], "pred"] = None
    df.loc[[5], "base"] = np.nan
    df.loc[[9], ["ref", "ref2"]] = None
    with pytest.warns(ExcludedRowsWarning, match=r"4 of 60 rows.*`prediction='base'`.*`prediction='pred'`"):
        table = df.textgen.compare(
            prediction=["base", "pred"], reference=REFERENCES, metric=["bleu", "rouge1"]
        )
    kept = df.drop(index=[3, 5, 7, 9])
    assert (table["N"] == 56).all()
    expected = kept.textgen.corpus_bleu(prediction="pred", reference=REFERENCES)["score"][0]
    np.testing.assert_allclose(row(table, "bleu")["system_value"], expected, rtol=1e-12)
    expected = kept.textgen.rouge(prediction="base", reference=REFERENCES)["rouge1"].mean()
    np.testing.assert_allclose(row(table, "rouge1")["baseline_value"], expected, rtol=1e-12)


def test_the_sacrebleu_test_is_paired_bootstraps():
    df = outputs(80)
    metrics = ["bleu", "chrf", "ter"]
    table = compare(
        df,
        prediction=["base", "pred"],
        reference=REFERENCES,
        metric=metrics,
        test="paired_bootstrap_sacrebleu",
    )
    expected = df.textgen.paired_bootstrap(
        prediction="pred", baseline="base", reference=REFERENCES, metric=metrics
    )
    for metric in metrics:
        sacre = expected[expected["metric"] == metric].set_index("system")
        got = row(table, metric)
        assert got["test"] == "paired_bootstrap_sacrebleu"
        assert got["p_value"] == sacre.loc["pred", "p_value"]
        assert got["baseline_value"] == sacre.loc["base", "score"]
        assert got["system_value"] == sacre.loc["pred", "score"]
        assert got["ci_low"] <= got["difference"] <= got["ci_high"]


def test_the_poisson_bootstrap_is_drawn_from_the_seed():
    df = outputs()
    options = dict(prediction=["base", "pred"], reference="ref", metric=["chrf", "rougeL"], n_resamples=200)
    first, again = compare(df, **options), compare(df, **options)
    pd.testing.assert_frame_equal(first, again)
    other = compare(df, **options, random_state=7)
    assert not np.array_equal(first["ci_low"], other["ci_low"])
    np.testing.assert_array_equal(first["difference"], other["difference"])


# ----------------------------------------------------------------------------------------------
# self-comparison, swapped systems, several systems
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("test", ["paired_bootstrap", "paired_bootstrap_sacrebleu"])
def test_a_system_compared_with_itself_differs_by_nothing(test):
    df = outputs().assign(copy=lambda d: d["pred"])
    metrics = ["bleu", "ter"] if test != "paired_bootstrap" else TEXT_METRICS
    table = compare(df, prediction=["pred", "copy"], reference=REFERENCES, metric=metrics, test=test)
    assert (table["difference"] == 0).all()
    assert (table["p_value"] == 1).all()
    assert (table["ci_low"] == 0).all() and (table["ci_high"] == 0).all()


@pytest.mark.parametrize("datum", [None, "doc"])
def test_swapping_the_systems_flips_the_sign(datum):
    df = outputs()
    options = dict(reference=REFERENCES, metric=TEXT_METRICS, n_resamples=200, datum=datum)
    forward = compare(df, prediction=["base", "pred"], **options)
    backward = compare(df, prediction=["pred", "base"], **options)
    np.testing.assert_allclose(backward["difference"], -forward["difference"], rtol=1e-12)
    np.testing.assert_allclose(backward["ci_low"], -forward["ci_high"], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(backward["ci_high"], -forward["ci_low"], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(backward["p_value"], forward["p_value"])
    np.testing.assert_array_equal(backward["baseline_value"], forward["system_value"])


def test_swapping_flips_the_sign_of_the_sacrebleu_test():
    df = outputs()
    options = dict(
        reference="ref", metric=["bleu", "chrf"], test="paired_bootstrap_sacrebleu", n_resamples=200
    )
    forward = compare(df, prediction=["base", "pred"], **options)
    backward = compare(df, prediction=["pred", "base"], **options)
    np.testing.assert_array_equal(backward["difference"], -forward["difference"])
    np.testing.assert_array_equal(backward["p_value"], forward["p_value"])
    np.testing.assert_allclose(backward["ci_low"], -forward["ci_high"], rtol=1e-6)


def test_several_systems_all_pairs_and_the_correction():
    df = outputs()
    options = dict(reference="ref", metric=["bleu", "rouge1"], n_resamples=200)
    baseline = compare(df, prediction=["base", "pred", "third"], **options)
    assert list(zip(baseline["baseline"], baseline["system"], baseline["metric"])) == [
        ("base", "pred", "bleu"),
        ("base", "pred", "rouge1"),
        ("base", "third", "bleu"),
        ("base", "third", "rouge1"),
    ]
    pd.testing.assert_frame_equal(baseline.iloc[:2], compare(df, prediction=["base", "pred"], **options))
    every = compare(df, prediction=["base", "pred", "third"], pairs="all", correction="holm", **options)
    assert len(every) == 6 and every[["baseline", "system"]].iloc[4].tolist() == ["pred", "third"]
    np.testing.assert_allclose(every["p_adjusted"], multipletests(every["p_value"], method="holm")[1])
    np.testing.assert_array_equal(baseline["p_adjusted"], baseline["p_value"])


def test_datum_resamples_whole_data():
    df = outputs()
    table = compare(df, prediction=["base", "pred"], reference="ref", metric="rouge1", datum="doc")
    plain = compare(df, prediction=["base", "pred"], reference="ref", metric="rouge1")
    assert table["difference"][0] == plain["difference"][0]
    assert table["ci_low"][0] != plain["ci_low"][0]
    # one datum for all rows: every resample takes all or none of them
    single = compare(
        df.assign(doc=1), prediction=["base", "pred"], reference="ref", metric="rouge1", datum="doc"
    )
    np.testing.assert_allclose(single[["ci_low", "ci_high"]].iloc[0], single["difference"][0], rtol=1e-12)


# ----------------------------------------------------------------------------------------------
# verdict metrics
# ----------------------------------------------------------------------------------------------
VERDICTS = ["faithfulness", "answer_relevance", "toxicity"]


def test_verdict_values_equal_the_verdict_metrics_of_each_system_alone():
    frame = judged()
    table = frame.textgen.compare(
        metric=VERDICTS, datum="id", verdict="verdict", system="model", n_resamples=200
    )
    assert list(table.columns) == COLUMNS
    assert table[["baseline", "system"]].drop_duplicates().values.tolist() == [["old", "new"]]
    for system, column in (("old", "baseline_value"), ("new", "system_value")):
        rows = frame[frame["model"] == system]
        for metric in VERDICTS:
            expected = getattr(rows.textgen, metric)(datum="id", verdict="verdict")[metric].mean()
            np.testing.assert_allclose(row(table, metric)[column], expected, rtol=1e-12)
    assert (table["N"] == 15).all()


@pytest.mark.parametrize(
    ("metric", "options"),
    [
        ("answer_correctness", {"verdict": "tp_fp_fn", "ground_truth": "gt"}),
        ("context_recall", {"verdict": "yes_no", "ground_truth": "gt"}),
        ("context_precision", {"verdict": "yes_no", "rank": "rank", "ground_truth": "gt"}),
    ],
)
def test_verdict_metrics_with_ground_truths_and_ranks(metric, options):
    old, new = ranked_rows(4), ranked_rows(5)
    frame = pd.concat([old.assign(model="old"), new.assign(model="new")], ignore_index=True)
    table = frame.textgen.compare(metric=metric, datum="id", system="model", n_resamples=100, **options)
    for rows, column in ((old, "baseline_value"), (new, "system_value")):
        expected = getattr(rows.textgen, metric)(datum="id", **options)[metric].mean()
        np.testing.assert_allclose(table[column][0], expected, rtol=1e-12)


def test_summary_coherence_reads_the_score_as_the_verdict():
    old, new = ranked_rows(4).drop_duplicates("id"), ranked_rows(5).drop_duplicates("id")
    frame = pd.concat([old.assign(model="old"), new.assign(model="new")], ignore_index=True)
    table = frame.textgen.compare(metric="summary_coherence", datum="id", verdict="coherence", system="model")
    np.testing.assert_allclose(table["baseline_value"][0], old["coherence"].mean(), rtol=1e-12)
    np.testing.assert_allclose(table["system_value"][0], new["coherence"].mean(), rtol=1e-12)


def test_verdict_self_comparison_and_swap():
    frame = judged()
    copy = frame[frame["model"] == "old"].assign(model="copy")
    same = pd.concat([frame[frame["model"] == "old"], copy]).textgen.compare(
        metric=VERDICTS, datum="id", verdict="verdict", system="model"
    )
    assert (same["difference"] == 0).all() and (same["p_value"] == 1).all()
    options = dict(metric=VERDICTS, datum="id", verdict="verdict", n_resamples=300)
    forward = frame.textgen.compare(system="model", **options)
    ordered = frame.assign(model=pd.Categorical(frame["model"], categories=["new", "old"]))
    backward = ordered.textgen.compare(system="model", **options)
    assert backward[["baseline", "system"]].iloc[0].tolist() == ["new", "old"]
    np.testing.assert_allclose(backward["difference"], -forward["difference"], rtol=1e-12)
    np.testing.assert_allclose(backward["ci_low"], -forward["ci_high"], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(backward["p_value"], forward["p_value"])


def test_the_baseline_is_the_system_seen_first():
    frame = judged()
    new_first = pd.concat([frame[frame["model"] == "new"], frame[frame["model"] == "old"]])
    table = new_first.textgen.compare(metric="bias", datum="id", verdict="verdict", system="model")
    assert table[["baseline", "system"]].iloc[0].tolist() == ["new", "old"]


def test_data_without_every_systems_verdicts_are_left_out():
    frame = judged()
    frame = frame[~((frame["model"] == "new") & frame["id"].isin(["0", "1"]))]
    with pytest.warns(ExcludedRowsWarning, match=r"2 of 15 .*verdict rows of every system"):
        table = frame.textgen.compare(metric="bias", datum="id", verdict="verdict", system="model")
    assert table["N"][0] == 13
    old = frame[(frame["model"] == "old") & ~frame["id"].isin(["0", "1"])]
    np.testing.assert_allclose(
        table["baseline_value"][0], old.textgen.bias(datum="id", verdict="verdict")["bias"].mean(), rtol=1e-12
    )


# ----------------------------------------------------------------------------------------------
# engines
# ----------------------------------------------------------------------------------------------
@pytest.fixture
def dask_frame():
    dd = pytest.importorskip("dask.dataframe")
    dask = pytest.importorskip("dask")
    with dask.config.set({"scheduler": "sync", "dataframe.shuffle.method": "tasks"}):
        yield lambda frame: dd.from_pandas(frame, npartitions=3)


@pytest.mark.parametrize("datum", [None, "doc"])
def test_dask_gives_the_pandas_table(dask_frame, datum):
    df = outputs()
    df.loc[4, "pred"] = None
    options = dict(prediction=["base", "pred", "third"], reference=REFERENCES, datum=datum, n_resamples=100)
    options["metric"] = ["bleu", "chrf++", "ter", "rouge2", "sentence_bleu"]
    with pytest.warns(ExcludedRowsWarning, match="left out"):
        expected = df.textgen.compare(**options)
    with pytest.warns(ExcludedRowsWarning, match="left out"):
        got = dask_frame(df).textgen.compare(**options)
    pd.testing.assert_frame_equal(got, expected, rtol=1e-12)


@pytest.mark.parametrize("first", ["old", "new"])
def test_dask_gives_the_pandas_verdict_table(dask_frame, first):
    frame = judged().sample(frac=1, random_state=0)
    frame = pd.concat([frame[frame["model"] == first], frame[frame["model"] != first]], ignore_index=True)
    options = dict(metric=VERDICTS, datum="id", verdict="verdict", system="model", n_resamples=100)
    expected = frame.textgen.compare(**options)
    got = dask_frame(frame).textgen.compare(**options)
    pd.testing.assert_frame_equal(got, expected, rtol=1e-12)
    assert got["baseline"][0] == frame["model"][0]  # the system of the first row, after the shuffle too


def test_the_sacrebleu_test_does_not_run_on_dask(dask_frame):
    with pytest.raises(NotPartitionableError, match="test='paired_bootstrap'"):
        dask_frame(outputs()).textgen.compare(
            prediction=["base", "pred"], reference="ref", test="paired_bootstrap_sacrebleu"
        )


def test_polars_gives_the_pandas_tables():
    pl = pytest.importorskip("polars")
    df = outputs()
    options = dict(
        prediction=["base", "pred"], reference=REFERENCES, metric=["bleu", "rougeL"], n_resamples=100
    )
    got = pl.from_pandas(df).textgen.compare(**options).to_pandas()
    pd.testing.assert_frame_equal(got, compare(df, **options), rtol=1e-12, check_dtype=False)
    frame = judged()
    options = dict(metric=VERDICTS, datum="id", verdict="verdict", system="model", n_resamples=100)
    got = pl.from_pandas(frame).textgen.compare(**options).to_pandas()
    pd.testing.assert_frame_equal(got, frame.textgen.compare(**options), rtol=1e-12, check_dtype=False)


# ----------------------------------------------------------------------------------------------
# validity by simulation: rouge1 = k / 4 where k of the 4 reference words are hit
# ----------------------------------------------------------------------------------------------
WORDS, MISSES = np.array(["w0", "w1", "w2", "w3"]), np.array(["x0", "x1", "x2", "x3"])


def simulated_answers(rng, n: int, shift: float) -> pd.DataFrame:
    """Two systems answering ``n`` prompts of varying difficulty: each reference word is hit with
    probability ``p`` (system a) or ``p + shift`` (system b), so the mean rouge1 differs by ``shift``."""
    p = 0.4 + 0.2 * rng.random(n)

    def answers(hit):
        words = np.where(rng.random((n, 4)) < hit[:, None], WORDS, MISSES)
        return pd.Series(words[:, 0]).str.cat(list(words[:, 1:].T), sep=" ")

    return pd.DataFrame({"ref": " ".join(WORDS), "a": answers(p), "b": answers(p + shift)})


@pytest.mark.parametrize("shift", [0.05, 0.0])
def test_intervals_cover_and_the_test_keeps_its_level(shift):
    rng = np.random.default_rng(2024)
    covered = rejected = 0
    for i in range(400):
        table = simulated_answers(rng, 200, shift).textgen.compare(
            prediction=["a", "b"], reference="ref", metric="rouge1", n_resamples=500, random_state=i
        )
        covered += bool(table["ci_low"][0] <= shift <= table["ci_high"][0])
        rejected += bool(table["p_value"][0] < 0.05)
    assert 0.93 <= covered / 400 <= 0.97
    if shift == 0:
        assert 0.025 <= rejected / 400 <= 0.075
    else:
        assert rejected / 400 > 0.3  # some power at 200 prompts


# ----------------------------------------------------------------------------------------------
# edge cases: a clear error naming the argument, or a documented NaN; never a changed input
# ----------------------------------------------------------------------------------------------
def test_the_input_frame_is_not_changed():
    df = outputs()
    df.loc[2, "pred"] = None
    before = df.copy()
    with pytest.warns(ExcludedRowsWarning, match="left out"):
        compare(df, prediction=["base", "pred"], reference=REFERENCES, metric=TEXT_METRICS, datum="doc")
    pd.testing.assert_frame_equal(df, before)
    frame = judged()
    before = frame.copy()
    frame.textgen.compare(metric="bias", datum="id", verdict="verdict", system="model")
    pd.testing.assert_frame_equal(frame, before)


def test_one_row_and_constant_outputs():
    one = outputs().head(1)
    table = compare(
        one, prediction=["base", "pred"], reference="ref", metric=["bleu", "rouge1"], n_resamples=100
    )
    assert (table["N"] == 1).all()
    assert np.isfinite(table[["difference", "ci_low", "ci_high", "p_value"]].to_numpy()).all()
    same = outputs().assign(pred="the cat", base="the cat")
    table = compare(same, prediction=["base", "pred"], reference="ref", metric=["chrf", "sentence_bleu"])
    assert (table["difference"] == 0).all() and (table["p_value"] == 1).all()


def test_empty_and_all_missing_frames_are_refused():
    with pytest.raises(InvalidInputError, match="no rows"):
        outputs().head(0).textgen.compare(prediction=["base", "pred"], reference="ref")
    df = outputs().assign(pred=None)
    with (
        pytest.raises(InvalidInputError, match="No row left to compare"),
        pytest.warns(ExcludedRowsWarning, match="left out"),
    ):
        df.textgen.compare(prediction=["base", "pred"], reference="ref")


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"prediction": ["base", "nope"]}, ColumnNotFoundError, "`prediction='nope'`: no such column"),
        ({"prediction": ["base", "pred"], "reference": "nope"}, ColumnNotFoundError, "reference='nope'"),
        ({"prediction": "pred"}, InvalidInputError, r"`prediction=` names 1 system.*baseline first"),
        ({"prediction": ["pred", "pred"]}, InvalidInputError, "names the column 'pred' twice"),
        ({"prediction": None}, InvalidInputError, r"pass `prediction=\[baseline, system"),
        ({"reference": None}, InvalidInputError, "`reference=None`"),
        ({"metric": "blue"}, InvalidInputError, "`metric='blue'` is not a metric"),
        ({"metric": []}, InvalidInputError, "`metric=` is empty"),
        ({"metric": ["bleu", "faithfulness"]}, InvalidInputError, "mixes metrics"),
        ({"pairs": "each"}, InvalidInputError, "`pairs='each'`"),
        ({"correction": "sidak"}, InvalidInputError, "`correction='sidak'`"),
        ({"test": "t_test"}, InvalidInputError, "`test='t_test'`"),
        ({"test": "paired_bootstrap_sacrebleu", "metric": "rouge1"}, InvalidInputError, "corpus metrics"),
        ({"test": "paired_bootstrap_sacrebleu", "datum": "doc"}, InvalidInputError, "`datum=`"),
        ({"test": "paired_bootstrap_sacrebleu", "n_resamples": 10}, InvalidInputError, "too few"),
        ({"n_resamples": 0}, InvalidInputError, "`n_resamples=0`"),
        ({"confidence": 1.5}, InvalidInputError, "`confidence=1.5`"),
        ({"random_state": "x"}, InvalidInputError, "`random_state='x'`"),
        ({"verdict": "pred"}, InvalidInputError, "`verdict='pred'` is not used here"),
    ],
)
def test_bad_options_name_the_argument(options, error, match):
    arguments = {"prediction": ["base", "pred"], "reference": "ref", **options}
    with pytest.raises(error, match=match):
        outputs().textgen.compare(**arguments)


def test_bad_cells_name_the_argument_and_the_row():
    df = outputs().astype({"pred": object})
    df.loc[4, "pred"] = 5
    with pytest.raises(InvalidInputError, match=r"`prediction='pred'` row 4 holds 5"):
        df.textgen.compare(prediction=["base", "pred"], reference="ref")
    df = outputs().astype({"doc": float})
    df.loc[3, "doc"] = np.nan
    with pytest.raises(InvalidInputError, match=r"`datum='doc'`, row 3: missing datum id"):
        df.textgen.compare(prediction=["base", "pred"], reference="ref", datum="doc")


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"system": None}, InvalidInputError, r"`system=None`"),
        ({"datum": None}, InvalidInputError, r"`datum=None`"),
        ({"system": "nope"}, ColumnNotFoundError, "`system='nope'`"),
        ({"rank": "id"}, InvalidInputError, "`rank='id'` is not read"),
        ({"prediction": ["a", "b"]}, InvalidInputError, "`prediction=.* is not used here"),
        ({"metric": "context_precision"}, InvalidInputError, "`rank=None`"),
        (
            {"metric": "faithfulness", "test": "paired_bootstrap_sacrebleu"},
            InvalidInputError,
            "corpus metrics",
        ),
    ],
)
def test_bad_verdict_options_name_the_argument(options, error, match):
    arguments = {"metric": "bias", "datum": "id", "verdict": "verdict", "system": "model", **options}
    with pytest.raises(error, match=match):
        judged().textgen.compare(**arguments)


def test_one_system_and_missing_systems_are_refused():
    frame = judged()
    with pytest.raises(InvalidInputError, match=r"`system='model'` holds 1 system.*two or more"):
        frame[frame["model"] == "old"].textgen.compare(
            metric="bias", datum="id", verdict="verdict", system="model"
        )
    frame.loc[5, "model"] = None
    with pytest.raises(InvalidInputError, match=r"`system='model'`, row 5: missing system"):
        frame.textgen.compare(metric="bias", datum="id", verdict="verdict", system="model")
    with pytest.raises(InvalidInputError, match=r"bias verdict 'maybe'"):
        judged().assign(verdict="maybe").textgen.compare(
            metric="bias", datum="id", verdict="verdict", system="model"
        )


def test_systems_without_a_shared_datum_give_a_documented_nan():
    frame = judged()
    apart = frame[((frame["model"] == "old") & frame["id"].isin(["0", "1", "2"])) | (frame["model"] == "new")]
    apart = apart[~((apart["model"] == "new") & apart["id"].isin(["0", "1", "2"]))]
    with pytest.warns(ExcludedRowsWarning, match="verdict rows of every system"):
        table = apart.textgen.compare(metric="bias", datum="id", verdict="verdict", system="model")
    assert table["N"][0] == 0
    assert table[["baseline_value", "system_value", "difference", "ci_low", "p_value"]].isna().all(axis=None)
