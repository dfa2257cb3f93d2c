"""Paired bootstrap comparison against sacrebleu 2.6's ``PairedTest(test_type="bs")``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pdmetrics import textgen
from pdmetrics.errors import InvalidInputError
from tests.textgen_frames import texts_frame

sacrebleu = pytest.importorskip("sacrebleu")
if sacrebleu.__version__ != "2.6.0":
    pytest.skip(
        f"cross-checks pinned to sacrebleu 2.6.0, found {sacrebleu.__version__}", allow_module_level=True
    )
significance = pytest.importorskip("sacrebleu.significance")


def paired_bootstrap(prediction_a, prediction_b, reference, **options):
    """``pdmetrics.textgen.paired_bootstrap`` of system A (the baseline) and system B, put in a
    frame: a named Series is the column of that name, else ``prediction_a`` and ``prediction_b``."""
    frame, columns = texts_frame(prediction_b, reference)
    names = [
        getattr(p, "name", None) or f"prediction_{s}" for p, s in ((prediction_a, "a"), (prediction_b, "b"))
    ]
    frame = frame.rename(columns={"prediction": names[1]})
    frame.insert(0, names[0], list(prediction_a))
    return textgen.paired_bootstrap(
        frame, baseline=names[0], prediction=names[1], reference=columns["reference"], **options
    )


SACREBLEU_NAMES = {"bleu": "BLEU", "chrf": "chrF2", "chrf++": "chrF2++", "ter": "TER"}


def scorers():
    metrics = sacrebleu.metrics
    return {
        "BLEU": metrics.BLEU(),
        "chrF2": metrics.CHRF(),
        "chrF2++": metrics.CHRF(word_order=2),
        "TER": metrics.TER(),
    }


def corpus(seed: int, n: int = 80):
    """Two systems that differ on a few segments only, so p-values are far from 0."""
    rng = np.random.default_rng(seed)
    words = np.array("the a of to in cat dog sat mat on and it was is big small red , .".split())
    references = [" ".join(rng.choice(words, size=rng.integers(4, 25))) for _ in range(n)]
    second = [
        None if rng.random() < 0.3 else " ".join(rng.choice(words, size=rng.integers(4, 25)))
        for _ in range(n)
    ]
    a = [
        r if rng.random() < 0.4 else " ".join(rng.choice(words, size=rng.integers(4, 25))) for r in references
    ]
    b = list(a)
    for i in rng.choice(n, size=6, replace=False):
        b[i] = references[i] if rng.random() < 0.5 else " ".join(rng.choice(words, size=rng.integers(4, 25)))
    return a, b, references, second


def sacrebleu_paired(a, b, references, n_samples=1000):
    signatures, scores = significance.PairedTest(
        [("A", a), ("B", b)], scorers(), references, test_type="bs", n_samples=n_samples
    )()
    return signatures, scores


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_equals_sacrebleu_paired_bs_on_every_metric(seed, monkeypatch):
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    a, b, references, second = corpus(seed)
    signatures, expected = sacrebleu_paired(a, b, [references, second])
    table = paired_bootstrap(
        pd.Series(a, name="A"),
        pd.Series(b, name="B"),
        pd.DataFrame({"r1": references, "r2": second}),
        metric=list(SACREBLEU_NAMES),
    )
    assert table.columns.tolist() == [
        "metric",
        "system",
        "baseline",
        "N",
        "score",
        "mean",
        "ci",
        "ci_low",
        "ci_high",
        "p_value",
        "signature",
    ]
    p_values = []
    for metric, name in SACREBLEU_NAMES.items():
        rows = table[table["metric"] == metric]
        assert rows["system"].tolist() == ["A", "B"] and rows["baseline"].tolist() == [True, False]
        for row, result in zip(rows.itertuples(), expected[name]):
            assert row.score == pytest.approx(result.score, rel=1e-12)
            assert row.mean == pytest.approx(float(result.mean), rel=1e-12)
            assert row.ci == pytest.approx(float(result.ci), rel=1e-12, abs=1e-12)
            assert row.ci_high - row.ci_low == pytest.approx(2 * row.ci, rel=1e-9, abs=1e-12)
        assert np.isnan(rows["p_value"].iloc[0])
        assert rows["p_value"].iloc[1] == expected[name][1].p_value
        p_values.append(expected[name][1].p_value)
        assert rows["signature"].iloc[0] == str(signatures[name])
    assert min(p_values) > 10 / 1001  # the example exercises non-trivial p-values


def test_seed_and_sample_count_follow_sacrebleu(monkeypatch):
    monkeypatch.setenv("SACREBLEU_SEED", "7")
    a, b, references, _ = corpus(5, n=40)
    signatures, expected = sacrebleu_paired(a, b, [references], n_samples=300)
    table = paired_bootstrap(a, b, references, metric="bleu", n_resamples=300, random_state=7)
    assert table["score"].tolist() == pytest.approx([r.score for r in expected["BLEU"]], rel=1e-12)
    assert table["mean"].tolist() == pytest.approx([float(r.mean) for r in expected["BLEU"]], rel=1e-12)
    assert table["p_value"].iloc[1] == expected["BLEU"][1].p_value
    assert table["signature"].iloc[0] == str(signatures["BLEU"])
    assert "bs:300|seed:7|" in table["signature"].iloc[0]
    assert table["system"].tolist() == ["prediction_a", "prediction_b"]


def test_identical_copy_is_not_significant(monkeypatch):
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    a, _, references, _ = corpus(4, n=30)
    table = paired_bootstrap(a, list(a), references, metric=["bleu", "chrf", "ter"], n_resamples=200)
    systems = table[~table["baseline"]]
    assert systems["p_value"].tolist() == [1.0, 1.0, 1.0]
    baseline = table[table["baseline"]]
    np.testing.assert_array_equal(
        systems[["score", "mean", "ci"]].to_numpy(), baseline[["score", "mean", "ci"]]
    )
    # sacrebleu reports the smallest possible p-value here (it counts strictly larger differences)
    _, expected = sacrebleu_paired(a, list(a), [references], n_samples=200)
    assert expected["BLEU"][1].p_value == pytest.approx(1 / 201)


def test_bad_input():
    with pytest.raises(InvalidInputError, match=r"`n_resamples=0` must be a positive integer"):
        paired_bootstrap(["x"], ["x"], ["x"], n_resamples=0)
    with pytest.raises(
        InvalidInputError,
        match=r"`random_state=-1` must be a non-negative integer seed, a numpy.random.Generator, or None",
    ):
        paired_bootstrap(["x"], ["x"], ["x"], random_state=-1)
    with pytest.raises(InvalidInputError, match=r"`confidence=1.5` must be a number in \(0, 1\)"):
        paired_bootstrap(["x"], ["x"], ["x"], confidence=1.5)
    with pytest.raises(TypeError, match=r"`seed=` is now `random_state=`"):
        paired_bootstrap(["x"], ["x"], ["x"], seed=1)
    with pytest.raises(TypeError, match=r"`n_samples=` is now `n_resamples=`"):
        paired_bootstrap(["x"], ["x"], ["x"], n_samples=10)
    with pytest.raises(InvalidInputError, match=r"`metric='meteor'` is not supported"):
        paired_bootstrap(["x"], ["x"], ["x"], metric="meteor")
    with pytest.raises(InvalidInputError, match=r"`prediction='prediction_b'` row 1 holds 3 \(int\)"):
        paired_bootstrap(["x", "y"], ["x", 3], ["x", "y"])
    frame = pd.DataFrame({"new": ["x", "y"], "ref": ["x", "y"]})
    with pytest.raises(InvalidInputError, match=r"`baseline=None`: name the column of the baseline"):
        textgen.paired_bootstrap(frame, prediction="new", baseline=None, reference="ref")


def test_confidence_sets_the_interval(monkeypatch):
    monkeypatch.delenv("SACREBLEU_SEED", raising=False)
    a, b, references, _ = corpus(5, n=40)
    wide = paired_bootstrap(a, b, references, n_resamples=400, random_state=3)
    default = paired_bootstrap(a, b, references, n_resamples=400, confidence=0.95, random_state=3)
    pd.testing.assert_frame_equal(wide, default)
    narrow = paired_bootstrap(a, b, references, n_resamples=400, confidence=0.5, random_state=3)
    # 400 resamples: the 95% bounds are the 10th smallest and largest scores, the 50% ones the 100th
    rng = np.random.default_rng(3)
    indices = rng.choice(40, size=(400, 40), replace=True)
    scores = np.sort([corpus_bleu_of(a, references, rows) for rows in indices])
    assert wide["ci_low"].iloc[0] == pytest.approx(scores[10], rel=1e-6)
    assert narrow["ci_low"].iloc[0] == pytest.approx(scores[100], rel=1e-6)
    assert narrow["ci_high"].iloc[0] == pytest.approx(scores[299], rel=1e-6)
    assert (narrow["ci"] < wide["ci"]).all()
    assert narrow["score"].tolist() == wide["score"].tolist()


def corpus_bleu_of(hypotheses, references, rows) -> float:
    """sacrebleu's BLEU of the segments ``rows`` (a resample)."""
    return sacrebleu.corpus_bleu([hypotheses[i] for i in rows], [[references[i] for i in rows]]).score


def test_too_few_resamples_for_the_confidence_are_refused():
    # 1000 resamples at 0.999999 leave less than one resample in each tail: the interval would be min-max
    with pytest.raises(
        InvalidInputError,
        match=r"`n_resamples=1000` is too few for `confidence=0.999999`.*pass `n_resamples=2000000` or more",
    ):
        paired_bootstrap(["a b"], ["a b"], ["a b"], n_resamples=1000, confidence=0.999999)
    with pytest.raises(InvalidInputError, match=r"`n_resamples=39` is too few for `confidence=0.95`.*40"):
        paired_bootstrap(["a b"], ["a b"], ["a b"], n_resamples=39)
    assert paired_bootstrap(["a b"], ["a b"], ["a b"], n_resamples=40)["N"].tolist() == [1, 1]


def test_random_state_takes_a_generator_as_the_fairness_bootstrap_does():
    a, b, references = (
        ["a b c d", "e f g", "h i j k"],
        ["a b c x", "e f g", "h i y k"],
        ["a b c d", "e f g", "h i j k"],
    )
    seeded = paired_bootstrap(a, b, references, n_resamples=100, random_state=5)
    drawn = paired_bootstrap(a, b, references, n_resamples=100, random_state=np.random.default_rng(5))
    # a Generator seeded 5 draws the same resamples as the seed 5
    pd.testing.assert_frame_equal(seeded.drop(columns="signature"), drawn.drop(columns="signature"))
    assert drawn["signature"][0].split("|")[2] == "seed:generator"
    assert seeded["signature"][0].split("|")[2] == "seed:5"
    with pytest.raises(InvalidInputError, match=r"`random_state=True` must be a non-negative integer seed"):
        paired_bootstrap(a, b, references, random_state=True)
