"""Classification metrics: slow references, properties, valor-lite cross-check and bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import assert_close, assert_frame_unchanged
from hypothesis import given, settings
from hypothesis import strategies as st

import pdmetrics  # noqa: F401
from pdmetrics.detection import (
    binary_roc_auc,
    classification_accuracy,
    mean_roc_auc,
    roc_auc,
    roc_curve,
)
from pdmetrics.detection.label_confusion import classification_confusion
from pdmetrics.detection.label_curves import classification_errors, classification_pr_curve
from pdmetrics.detection.label_metrics import classification_metrics, classification_summary
from pdmetrics.errors import ColumnNotFoundError, InvalidInputError, UndefinedMetricWarning

LABELS = ["a", "b", "c", "d"]
GRID = [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0]  # coarse: forces ties
THRESHOLDS = [0.0, 0.25, 0.5, 0.8]


# --------------------------------------------------------------------------------------
# random data and slow references written from valor's rules
# --------------------------------------------------------------------------------------
@st.composite
def long_tables(draw, complete: bool = False, tied: bool = True):
    n_datums = draw(st.integers(1, 7))
    rows = []
    for d in range(n_datums):
        truth = draw(st.sampled_from(LABELS))
        candidates = (
            LABELS
            if complete
            else draw(st.lists(st.sampled_from(LABELS), min_size=1, max_size=4, unique=True))
        )
        for label in candidates:
            # untied: distinct scores, so hardmax has no tie to break by row order
            score = draw(st.sampled_from(GRID)) if tied else draw(st.floats(0.001, 0.99)) + 1e-6 * len(rows)
            rows.append((f"d{d}", truth, label, score))
    return pd.DataFrame(rows, columns=["datum", "truth", "label", "score"])


def _datums(frame):
    out = []
    for datum, rows in frame.groupby("datum", sort=False):
        out.append((datum, rows["truth"].iloc[0], list(zip(rows["label"], rows["score"]))))
    return out


def _positive(rows, threshold, hardmax):
    top = int(np.argmax([s for _, s in rows]))
    return {
        label
        for i, (label, s) in enumerate(rows)
        if s >= threshold and abs(s) > 1e-8 and (not hardmax or i == top)
    }


def slow_counts(frame, threshold, hardmax):
    counts = {label: dict(tp=0, fp=0, fn=0, tn=0) for label in sorted(set(frame.truth) | set(frame.label))}
    for _, truth, rows in _datums(frame):
        positive = _positive(rows, threshold, hardmax)
        flagged = False
        for label, _ in rows:
            if label == truth:
                counts[label]["tp"] += label in positive
                flagged |= label not in positive
            else:
                counts[label]["fp"] += label in positive
                counts[label]["tn"] += label not in positive
                flagged |= label in positive
        counts[truth]["fn"] += flagged
    return counts


def slow_auc(frame, label):
    """P(score_pos > score_neg) + P(tie)/2 over datums; a missing row scores -inf."""
    pos, neg = [], []
    for _, truth, rows in _datums(frame):
        score = dict(rows).get(label, -np.inf)
        (pos if truth == label else neg).append(score)
    if not pos or not neg:
        return np.nan
    wins = sum((p > q) + 0.5 * (p == q) for p in pos for q in neg)
    return wins / (len(pos) * len(neg))


# --------------------------------------------------------------------------------------
# agreement with the slow references
# --------------------------------------------------------------------------------------
def _args(frame):
    return frame["truth"], frame["label"], frame["score"], frame["datum"]


@settings(max_examples=40, deadline=None)
@given(long_tables(), st.booleans())
def test_counts_match_slow_reference(frame, hardmax):
    table = classification_metrics(
        *_args(frame), score_thresholds=THRESHOLDS, hardmax=hardmax, zero_division=0
    )
    for threshold in THRESHOLDS:
        expected = slow_counts(frame, threshold, hardmax)
        got = table[table.score_threshold == threshold].set_index("label")
        for label, counts in expected.items():
            assert got.loc[label, ["tp", "fp", "fn", "tn"]].tolist() == list(counts.values())
            p = counts["tp"] / (counts["tp"] + counts["fp"]) if counts["tp"] + counts["fp"] else 0.0
            assert_close(got.loc[label, "precision"], p)
        accuracy = classification_accuracy(*_args(frame), score_thresholds=[threshold], hardmax=hardmax)
        n = frame["datum"].nunique()
        assert_close(accuracy["accuracy"].iloc[0], sum(c["tp"] for c in expected.values()) / n)


@settings(max_examples=40, deadline=None)
@given(long_tables())
def test_roc_auc_matches_slow_reference(frame):
    table = roc_auc(*_args(frame), zero_division=np.nan).set_index("label")
    for label in table.index:
        assert_close(table.loc[label, "roc_auc"], slow_auc(frame, label), what=label)
    curve = roc_curve(*_args(frame))
    assert ((curve.fpr >= 0) & (curve.fpr <= 1) & (curve.tpr >= 0) & (curve.tpr <= 1)).all()


@settings(max_examples=40, deadline=None)
@given(long_tables(), st.booleans())
def test_confusion_and_curves_match_slow_reference(frame, hardmax):
    confusion = classification_confusion(*_args(frame), score_thresholds=THRESHOLDS, hardmax=hardmax)
    curve = classification_pr_curve(
        *_args(frame), score_thresholds=THRESHOLDS, hardmax=hardmax, zero_division=0
    )
    errors = classification_errors(
        *_args(frame), score_thresholds=THRESHOLDS, hardmax=hardmax, max_examples=2
    )
    labels = sorted(set(frame.truth) | set(frame.label))
    for threshold in THRESHOLDS:
        cells = {(t, p): 0 for t in labels for p in labels}
        unmatched = dict.fromkeys(labels, 0)
        binary = {label: dict(tp=0, fp=0, fn=0, tn=0, fn_mis=0, fn_none=0) for label in labels}
        examples = {}
        for datum, truth, rows in _datums(frame):
            positive = _positive(rows, threshold, hardmax)
            for label in positive:
                cells[(truth, label)] += 1
            unmatched[truth] += not positive
            for label in labels:
                if label in positive:
                    kind = "tp" if label == truth else "fp"
                elif label == truth:
                    kind = "fn_mis" if positive else "fn_none"
                    binary[label]["fn"] += 1
                else:
                    kind = "tn"
                binary[label][kind] += 1
                examples.setdefault((label, kind), []).append(datum)
        at = confusion[confusion.score_threshold == threshold]
        got = {(t, p): c for t, p, c in zip(at.truth, at.prediction, at["count"]) if isinstance(p, str)}
        assert got == cells
        assert dict(zip(at.truth[at.prediction.isna()], at["count"][at.prediction.isna()])) == unmatched
        at = curve[curve.score_threshold == threshold].set_index("label")
        at_errors = errors[errors.score_threshold == threshold]
        for label in labels:
            b = binary[label]
            assert at.loc[label, ["tp", "fp", "fn", "tn"]].tolist() == [b["tp"], b["fp"], b["fn"], b["tn"]]
            rows = at_errors[at_errors.label == label]
            assert rows["count"].tolist() == [b["tp"], b["fp"], b["fn_mis"], b["fn_none"]]
            for (_, row), kind in zip(rows.iterrows(), ["tp", "fp", "fn_mis", "fn_none"]):
                assert row["examples"] == examples.get((label, kind), [])[:2]


# --------------------------------------------------------------------------------------
# properties
# --------------------------------------------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(long_tables(tied=False), st.randoms(use_true_random=False))
def test_row_order_does_not_matter(frame, random):
    order = list(range(len(frame)))
    random.shuffle(order)
    shuffled = frame.iloc[order].reset_index(drop=True)
    for kwargs in (
        {"table": "labels", "zero_division": 0},
        {"table": "summary", "zero_division": 0},
        {"table": "confusion", "max_examples": 0},
        {"table": "pr_curve", "zero_division": 0},
        {"table": "roc_curve"},
    ):
        a = frame.detection.classification(
            y_true="truth", label="label", score="score", datum="datum", **kwargs
        )
        b = shuffled.detection.classification(
            y_true="truth", label="label", score="score", datum="datum", **kwargs
        )
        pd.testing.assert_frame_equal(a, b)


@settings(max_examples=30, deadline=None)
@given(long_tables(complete=True))
def test_bounds_and_identities(frame):
    table = classification_metrics(*_args(frame), score_thresholds=THRESHOLDS, hardmax=True, zero_division=0)
    for column in ("precision", "recall", "f1", "roc_auc"):
        assert ((table[column] >= 0) & (table[column] <= 1)).all()
    curve = classification_pr_curve(*_args(frame), score_thresholds=THRESHOLDS, zero_division=0)
    n = frame["datum"].nunique()
    assert (curve[["tp", "fp", "fn", "tn"]].sum(axis=1) == n).all()
    # with hardmax at threshold 0 the positives are the datums' top labels: the confusion matrix
    # holds one count per datum whose top score is not zero
    confusion = classification_confusion(*_args(frame))
    assert confusion["count"].sum() == n


def test_perfect_classifier_scores_one():
    truth = np.repeat(["x", "y", "z"], 3)
    frame = pd.DataFrame(
        {
            "truth": truth,
            "x": (truth == "x") * 0.9 + 0.05,
            "y": (truth == "y") * 0.9 + 0.05,
            "z": (truth == "z") * 0.9 + 0.05,
        }
    )
    table = frame.detection.classification(y_true="truth", score=["x", "y", "z"])
    assert (table[["precision", "recall", "f1", "roc_auc"]] == 1.0).all().all()
    summary = frame.detection.classification(y_true="truth", score=["x", "y", "z"], table="summary")
    assert summary["accuracy"].iloc[0] == 1.0


def test_binary_roc_auc_matches_sklearn():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 500)
    s = np.round(rng.random(500) + 0.3 * y, 1)  # many ties
    assert_close(binary_roc_auc(y, s), metrics.roc_auc_score(y, s))
    assert_close(binary_roc_auc(y.astype(bool), s), metrics.roc_auc_score(y, s))


def _valor_evaluator(truth, labels, scores):
    """A valor-lite classification evaluator: datum i has truth[i] and scores[i] over labels."""
    valor = pytest.importorskip("valor_lite.classification")
    loader = valor.Loader.in_memory()
    loader.add_data(
        [
            valor.Classification(uid=str(i), groundtruth=t, predictions=labels, scores=row.tolist())
            for i, (t, row) in enumerate(zip(truth, scores))
        ]
    )
    return loader.finalize()


def test_random_data_matches_valor_lite():
    valor = pytest.importorskip("valor_lite.classification")
    rng = np.random.default_rng(7)
    n, labels = 60, ["p", "q", "r", "s"]
    scores = rng.dirichlet(np.ones(4), n)
    truth = rng.choice(labels, n)
    evaluator = _valor_evaluator(truth, labels, scores)
    frame = pd.DataFrame(scores, columns=labels).assign(truth=truth)
    for hardmax in (True, False):
        expected = evaluator.compute_precision_recall(score_thresholds=[0.1, 0.3, 0.6], hardmax=hardmax)
        table = frame.detection.classification(
            y_true="truth", score=labels, score_thresholds=[0.1, 0.3, 0.6], hardmax=hardmax, zero_division=0
        )
        table = table.set_index(["label", "score_threshold"])
        for metric in expected[valor.metric.MetricType.Counts]:
            key = (metric.parameters["label"], metric.parameters["score_threshold"])
            assert table.loc[key, ["tp", "fp", "fn", "tn"]].tolist() == [
                metric.value[f] for f in ("tp", "fp", "fn", "tn")
            ]
        for kind, column in ((valor.metric.MetricType.F1, "f1"), (valor.metric.MetricType.Recall, "recall")):
            for metric in expected[kind]:
                key = (metric.parameters["label"], metric.parameters["score_threshold"])
                assert_close(table.loc[key, column], metric.value)
    rocauc = evaluator.compute_rocauc()
    table = frame.detection.classification(y_true="truth", score=labels).set_index("label")
    for metric in rocauc[valor.metric.MetricType.ROCAUC]:
        assert_close(table.loc[metric.parameters["label"], "roc_auc"], metric.value)


# --------------------------------------------------------------------------------------
# edge cases and bad input
# --------------------------------------------------------------------------------------
def _frame():
    return pd.DataFrame(
        {
            "datum": [1, 1, 2, 2],
            "truth": ["cat", "cat", "dog", "dog"],
            "label": ["cat", "dog", "cat", "dog"],
            "score": [0.7, 0.3, 0.6, 0.4],
        }
    )


@pytest.mark.parametrize("table", ["labels", "summary", "roc_curve", "pr_curve", "errors", "confusion"])
def test_accessor_tables_leave_frame_unchanged(table):
    frame = _frame()
    before = frame.copy()
    out = frame.detection.classification(
        y_true="truth", label="label", score="score", datum="datum", table=table, zero_division=0
    )
    assert_frame_unchanged(before, frame)
    assert isinstance(out.index, pd.RangeIndex) and len(out) > 0


def test_undefined_precision_warns_and_is_nan():
    with pytest.warns(UndefinedMetricWarning, match="zero_division=0"):
        table = classification_metrics(*_args(_frame()))
    assert np.isnan(table.loc[table.label == "dog", "precision"]).all()


def test_one_row_and_empty_input():
    with pytest.warns(UndefinedMetricWarning, match="ROC AUC"):
        table = classification_metrics(["a"], ["a"], [0.9], [1])
    assert table[["tp", "fp", "fn", "tn"]].iloc[0].tolist() == [1, 0, 0, 0]
    assert np.isnan(table["roc_auc"].iloc[0])
    with pytest.warns(UndefinedMetricWarning, match="accuracy"):
        empty = classification_accuracy([], [], [], [])
    assert len(empty) == 1 and np.isnan(empty["accuracy"].iloc[0])
    assert len(classification_metrics([], [], [], [])) == 0
    with (
        pytest.warns(UndefinedMetricWarning, match="accuracy"),
        pytest.warns(UndefinedMetricWarning, match="Mean ROC AUC"),
    ):
        summary = classification_summary([], [], [], [])
    assert summary["N"].tolist() == [0] and np.isnan(summary["accuracy"].iloc[0])
    assert len(classification_confusion([], [], [], [])) == 0
    assert len(roc_curve([], [], [], [])) == 0
    with pytest.warns(UndefinedMetricWarning, match="ROC AUC"):
        assert np.isnan(binary_roc_auc([1, 1], [0.3, 0.4]))
    with pytest.warns(UndefinedMetricWarning, match="ROC AUC"):
        assert np.isnan(mean_roc_auc(["a"], ["a"], [0.9], [1]))


def test_bad_input_messages():
    frame = _frame()
    with pytest.raises(ColumnNotFoundError, match="y_true=.nope."):
        frame.detection.classification(y_true="nope", label="label", score="score", datum="datum")
    with pytest.raises(InvalidInputError, match="needs `datum=`"):
        frame.detection.classification(y_true="truth", label="label", score="score")
    with pytest.raises(InvalidInputError, match="not a classification table"):
        frame.detection.classification(
            y_true="truth", label="label", score="score", datum="datum", table="roc"
        )
    with pytest.raises(InvalidInputError, match="finite score"):
        classification_metrics(frame.truth, frame.label, frame.score.where(frame.index != 1), frame.datum)
    with pytest.raises(InvalidInputError, match="more than one truth"):
        classification_metrics(["cat", "dog"], ["cat", "dog"], [0.5, 0.5], [1, 1])
    with pytest.raises(InvalidInputError, match="rows for label"):
        classification_metrics(["cat", "cat"], ["cat", "cat"], [0.5, 0.4], [1, 1])
    with pytest.raises(InvalidInputError, match="mix strings and numbers"):
        classification_metrics(["1", "1"], [1, 2], [0.5, 0.4], [1, 1])
    with pytest.raises(InvalidInputError, match="missing value"):
        classification_metrics(["a", None], ["a", "a"], [0.5, 0.4], [1, 2])
    with pytest.raises(InvalidInputError, match="zero_division"):
        classification_metrics(*_args(frame), zero_division="zero")
    with pytest.raises(InvalidInputError, match="max_examples"):
        classification_errors(*_args(frame), max_examples=-1)
    with pytest.raises(InvalidInputError, match="score_thresholds"):
        classification_metrics(*_args(frame), score_thresholds=[np.nan])
    with pytest.raises(InvalidInputError, match="boolean"):
        frame.assign(score=frame.score > 0.5).detection.classification(
            y_true="truth", label="label", score="score", datum="datum"
        )


def test_wide_missing_score_means_not_a_candidate():
    wide = pd.DataFrame({"truth": ["a", "b"], "a": [0.8, np.nan], "b": [0.2, 0.9]})
    long = pd.DataFrame(
        {"datum": [0, 0, 1], "truth": ["a", "a", "b"], "label": ["a", "b", "b"], "score": [0.8, 0.2, 0.9]}
    )
    a = wide.detection.classification(y_true="truth", score=["a", "b"], zero_division=0)
    b = long.detection.classification(
        y_true="truth", label="label", score="score", datum="datum", zero_division=0
    )
    pd.testing.assert_frame_equal(a, b)


def test_errors_examples_and_confusion_examples():
    frame = _frame()
    errors = frame.detection.classification(
        y_true="truth", label="label", score="score", datum="datum", table="errors", score_thresholds=[0.5]
    )
    fp = errors[(errors.label == "cat") & (errors.outcome == "fp")]
    assert fp["examples"].iloc[0] == [2]
    confusion = frame.detection.classification(
        y_true="truth", label="label", score="score", datum="datum", table="confusion", max_examples=3
    )
    row = confusion[(confusion.truth == "dog") & (confusion.prediction == "cat")]
    assert row["count"].iloc[0] == 1 and row["examples"].iloc[0] == [2]
    assert list(confusion.columns) == ["score_threshold", "truth", "prediction", "count", "examples"]


@pytest.mark.parametrize(
    "options,match",
    [
        ({"score_thresholds": ["high"]}, "score_thresholds"),
        ({"score_thresholds": [[0.1], [0.2, 0.3]]}, "score_thresholds"),
        ({"hardmax": "yes"}, "hardmax"),
        ({"hardmax": 1}, "hardmax"),
    ],
)
def test_bad_options_are_clear_errors(options, match):
    frame = _frame()
    with pytest.raises(InvalidInputError, match=match):
        frame.detection.classification(
            y_true="truth", label="label", score="score", datum="datum", zero_division=0, **options
        )


def test_wide_layout_refuses_text_in_a_score_column():
    wide = pd.DataFrame({"truth": ["a", "b", "a"], "a": [0.8, "high", 0.4], "b": [0.2, 0.9, 0.6]})
    with pytest.raises(InvalidInputError, match="'high'"):
        wide.detection.classification(y_true="truth", score=["a", "b"], zero_division=0)
    with pytest.raises(InvalidInputError, match="inf"):
        wide.assign(a=[0.8, np.inf, 0.4]).detection.classification(y_true="truth", score=["a", "b"])


@pytest.mark.parametrize("column", ["truth", "label", "datum"])
@pytest.mark.parametrize("cell", [["cat"], {"a": 1}])
def test_list_or_dict_cells_are_a_clear_error(column, cell):
    long = pd.DataFrame(
        {
            "truth": ["cat", "cat", "dog"],
            "label": ["cat", "dog", "cat"],
            "score": [0.6, 0.4, 0.3],
            "datum": [1, 1, 2],
        }
    )
    long[column] = long[column].astype(object)
    long.at[0, column] = cell
    with pytest.raises(InvalidInputError, match=f"{column}"):
        long.detection.classification(y_true="truth", label="label", score="score", datum="datum")
    if column == "truth":
        wide = pd.DataFrame({"truth": [cell, "dog"], "cat": [0.6, 0.3], "dog": [0.4, 0.7]})
        with pytest.raises(InvalidInputError, match="y_true='truth'"):
            wide.detection.classification(y_true="truth", score=["cat", "dog"])


def test_options_are_checked_before_the_columns():
    frame = pd.DataFrame({"truth": ["a"], "a": [1.0]})
    with pytest.raises(InvalidInputError, match="zero_division"):
        frame.detection.classification(y_true="missing", score=["a"], zero_division="zero")
    with pytest.raises(InvalidInputError, match="max_examples=-1"):
        frame.detection.classification(y_true="missing", score=["a"], max_examples=-1)


# --------------------------------------------------------------------------------------
# labels= and top_prediction= (valor's label filter)
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("kept", [["p", "q"], ["q"], ["p", "r", "s"]])
def test_label_filter_with_original_top_prediction_matches_valor_lite(kept):
    valor = pytest.importorskip("valor_lite.classification")
    pc = pytest.importorskip("pyarrow.compute")
    rng = np.random.default_rng(11)
    n, labels = 50, ["p", "q", "r", "s"]
    scores = np.round(rng.dirichlet(np.ones(4), n), 2)
    truth = rng.choice(labels, n)
    evaluator = _valor_evaluator(truth, labels, scores).filter(
        groundtruths=pc.field("gt_label").isin(kept), predictions=pc.field("pd_label").isin(kept)
    )
    frame = pd.DataFrame(scores, columns=labels).assign(truth=truth)
    thresholds = [0.0, 0.3, 0.6]
    options = dict(y_true="truth", score=labels, labels=kept, score_thresholds=thresholds, zero_division=0)
    for hardmax in (True, False):
        expected = evaluator.compute_precision_recall(score_thresholds=thresholds, hardmax=hardmax)
        table = frame.detection.classification(hardmax=hardmax, top_prediction="original", **options)
        assert sorted(set(table["label"])) == sorted(kept)
        table = table.set_index(["label", "score_threshold"])
        checked = 0
        for metric in expected[valor.metric.MetricType.Counts]:
            key = (metric.parameters["label"], metric.parameters["score_threshold"])
            if key[0] not in kept:
                continue
            assert table.loc[key, ["tp", "fp", "fn", "tn"]].tolist() == [
                metric.value[f] for f in ("tp", "fp", "fn", "tn")
            ]
            checked += 1
        assert checked == len(kept) * len(thresholds)
        summary = frame.detection.classification(
            table="summary", hardmax=hardmax, top_prediction="original", **options
        )
        for metric in expected[valor.metric.MetricType.Accuracy]:
            row = summary[summary["score_threshold"] == metric.parameters["score_threshold"]]
            assert_close(row["accuracy"].item(), metric.value)
        if hardmax:  # re-picking the top prediction among the kept labels gives other counts
            filtered = frame.detection.classification(hardmax=True, **options).set_index(
                ["label", "score_threshold"]
            )
            assert not filtered[["tp", "fp", "fn"]].equals(table[["tp", "fp", "fn"]])
    for metric in evaluator.compute_rocauc()[valor.metric.MetricType.ROCAUC]:
        if metric.parameters["label"] in kept:
            assert_close(table.loc[(metric.parameters["label"], 0.0), "roc_auc"], metric.value)


def test_label_filter_filtered_equals_dropping_rows_first():
    frame = pd.DataFrame(
        {
            "datum": [1, 1, 1, 2, 2, 3, 3, 4],
            "truth": ["a", "a", "a", "b", "b", "c", "c", "b"],
            "label": ["a", "b", "c", "a", "b", "b", "c", "c"],
            "score": [0.2, 0.5, 0.3, 0.6, 0.4, 0.9, 0.1, 0.8],
        }
    )
    columns = dict(y_true="truth", label="label", score="score", datum="datum", zero_division=0)
    by_hand = frame[frame["label"].isin(["a", "b"]) & frame["truth"].isin(["a", "b"])]
    for table in ("labels", "summary", "roc_curve", "pr_curve", "errors", "confusion"):
        filtered = frame.detection.classification(table=table, labels=["a", "b"], **columns)
        pd.testing.assert_frame_equal(filtered, by_hand.detection.classification(table=table, **columns))
    # the original top prediction: datum 1's top row (b, 0.5) stays its prediction; datum 2's
    # top row (a, 0.6) too; datum 4 (truth b) only had a c row, so it is gone
    original = frame.detection.classification(labels=["a", "b"], top_prediction="original", **columns)
    filtered = frame.detection.classification(labels=["a", "b"], **columns)
    pd.testing.assert_frame_equal(original, filtered)  # the kept top rows are the same here
    original = frame.detection.classification(labels=["a", "c"], top_prediction="original", **columns)
    # datum 1 (truth a): its top row b is filtered out, so it predicts nothing: a fn, not a tp
    row = original.set_index("label").loc["a"]
    assert (row["tp"], row["fn"], row["N"]) == (0, 1, 1)
    filtered = frame.detection.classification(labels=["a", "c"], **columns).set_index("label").loc["a"]
    assert (filtered["tp"], filtered["fn"]) == (0, 1)  # c (0.3) beats a (0.2) among the kept rows
    # datum 3 (truth c): its top row b (0.9) is filtered out: no prediction under "original",
    # the c row (0.1) under "filtered"
    assert original.set_index("label").loc["c", "tp"] == 0
    assert frame.detection.classification(labels=["a", "c"], **columns).set_index("label").loc["c", "tp"] == 1


@pytest.mark.parametrize(
    "options,match",
    [
        ({"labels": ["a", "zebra"]}, "zebra"),
        ({"labels": []}, "labels="),
        ({"labels": ["a"], "top_prediction": "first"}, "top_prediction"),
    ],
)
def test_label_filter_bad_input(options, match):
    frame = _frame()
    frame["truth"] = frame["truth"].replace({"cat": "a", "dog": "b"})
    frame["label"] = frame["label"].replace({"cat": "a", "dog": "b"})
    with pytest.raises(InvalidInputError, match=match):
        frame.detection.classification(y_true="truth", label="label", score="score", datum="datum", **options)


def test_label_filter_edge_cases():
    frame = pd.DataFrame({"datum": [1, 1], "truth": ["a", "a"], "label": ["a", "b"], "score": [0.4, 0.6]})
    columns = dict(y_true="truth", label="label", score="score", datum="datum", zero_division=0)
    # one label: the datum keeps its a row; its original top prediction (b) is gone
    table = frame.detection.classification(labels="a", top_prediction="original", **columns)
    assert table[["label", "N", "tp", "fp", "fn", "tn"]].values.tolist() == [["a", 1, 0, 0, 1, 0]]
    table = frame.detection.classification(labels="a", **columns)
    assert table[["label", "N", "tp", "fp", "fn", "tn"]].values.tolist() == [["a", 1, 1, 0, 0, 0]]
    # a label kept only as a candidate: the datum (truth a) is dropped, nothing is left
    table = frame.detection.classification(labels=["b"], **columns)
    assert table[["label", "N", "tp", "fp", "fn", "tn"]].values.tolist() == [["b", 0, 0, 0, 0, 0]]
    summary = frame.detection.classification(table="summary", labels=["b"], **columns)
    assert summary["N"].tolist() == [0]


# --------------------------------------------------------------------------------------
# errors that name the caller's row and argument; one probability column (binary)
# --------------------------------------------------------------------------------------
def test_wide_layout_errors_name_the_row_label_and_the_column():
    wide = pd.DataFrame(
        {"truth": ["cat", "dog", None, "dog"], "cat": [0.8, 0.3, 0.6, 0.1], "dog": [0.2, 0.7, 0.4, 0.9]},
        index=[10, 11, 12, 13],
    )
    # the third row (index label 12) misses its truth; position 4 of the internal long rows before
    with pytest.raises(
        InvalidInputError, match=r"`y_true='truth'` has 1 missing value\(s\) \(e\.g\. at row 12\)"
    ):
        wide.detection.classification(y_true="truth", score=["cat", "dog"])
    bad = wide.dropna().assign(dog=[0.2, np.inf, 0.9])
    with pytest.raises(InvalidInputError, match=r"column 'dog' holds inf at row 11"):
        bad.detection.classification(y_true="truth", score=["cat", "dog"])
    long = pd.DataFrame(
        {
            "d": [1, 1, 2, 2],
            "truth": ["a", "a", "b", None],
            "label": ["a", "b", "a", "b"],
            "s": [0.9, 0.1, 0.2, 0.8],
        },
        index=list("wxyz"),
    )
    with pytest.raises(InvalidInputError, match=r"`y_true='truth'`.*at row 'z'"):
        long.detection.classification(y_true="truth", label="label", score="s", datum="d")
    with pytest.raises(InvalidInputError, match=r"`score='s'` holds nan at row 'x'"):
        long.assign(truth="a", s=[0.9, np.nan, 0.2, 0.8]).detection.classification(
            y_true="truth", label="label", score="s", datum="d"
        )


def test_repeated_datum_errors_name_datum():
    wide = pd.DataFrame(
        {"truth": ["cat", "dog", "cat", "dog"], "cat": [0.8, 0.3, 0.6, 0.1], "dog": [0.2, 0.7, 0.4, 0.9]}
    )
    with pytest.raises(InvalidInputError, match=r"Datum 2 of `datum='d'` has 2 rows for label 'cat'.*datum="):
        wide.assign(d=[1, 2, 3, 2]).detection.classification(y_true="truth", score=["cat", "dog"], datum="d")
    # the first repeated pair in row order is named, not the most repeated one
    long = pd.DataFrame(
        {
            "d": [7, 1, 7, 1, 1],
            "truth": ["dog", "cat", "dog", "cat", "cat"],
            "label": ["dog", "cat"] * 2 + ["cat"],
        }
    )
    with pytest.raises(InvalidInputError, match=r"Datum 7 of `datum='d'` has 2 rows for label 'dog'"):
        long.assign(s=0.5).detection.classification(y_true="truth", label="label", score="s", datum="d")
    with pytest.raises(InvalidInputError, match=r"Datum 2 of `datum='d'` has more than one truth"):
        wide.assign(d=[1, 2, 3, 2], truth=["cat", "dog", "cat", "cat"]).detection.classification(
            y_true="truth", score=["cat", "dog"], datum="d"
        )


def _valor_binary(y, p, thresholds, hardmax=True):
    """valor-lite 0.39 given the two-column layout: class 0 (False) scores 1 - p, class 1 (True) p."""
    vc = pytest.importorskip("valor_lite.classification")
    loader = vc.Loader.in_memory()
    loader.add_data(
        [
            vc.Classification(uid=str(i), groundtruth=str(int(t)), predictions=["0", "1"], scores=[1 - s, s])
            for i, (t, s) in enumerate(zip(y, p))
        ]
    )
    evaluator = loader.finalize()
    metrics = evaluator.compute_precision_recall(score_thresholds=thresholds, hardmax=hardmax)
    kinds = {"Precision": "precision", "Recall": "recall", "F1": "f1"}
    out = {}
    for kind, values in metrics.items():
        for m in values:
            if kind.value == "Counts":
                for name in ("tp", "fp", "fn", "tn"):
                    out[(m.parameters["label"], m.parameters["score_threshold"], name)] = m.value[name]
            elif kind.value in kinds:
                out[(m.parameters["label"], m.parameters["score_threshold"], kinds[kind.value])] = m.value
    for kind, values in evaluator.compute_rocauc().items():
        for m in values:
            if kind.value == "ROCAUC":
                out[(m.parameters["label"], None, "roc_auc")] = m.value
    return out


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("dtype", ["int", "bool", "float"])
def test_one_probability_column_is_the_positive_class_of_a_binary_truth(seed, dtype):
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 40))
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    p = np.round(rng.uniform(0, 1, n), 2)  # ties, and sometimes exactly 0.5
    p[2] = 0.5
    truth = {"int": y, "bool": y.astype(bool), "float": y.astype(float)}[dtype]
    frame = pd.DataFrame({"y": truth, "risk": p}, index=rng.permutation(n) + 100)
    before = frame.copy()
    thresholds = [0.0, 0.3, 0.7]
    table = frame.detection.classification(
        y_true="y", score="risk", score_thresholds=thresholds, zero_division=0
    )
    assert_frame_unchanged(before, frame)
    negative, positive = {"int": (0, 1), "bool": (False, True), "float": (0.0, 1.0)}[dtype]
    assert table["label"].tolist() == [negative] * 3 + [positive] * 3
    # valor's numbers on the two-column layout it would be given
    expected = _valor_binary(y, p, thresholds)
    for row in table.itertuples():
        key = str(int(row.label))
        for name in ("tp", "fp", "fn", "tn", "precision", "recall", "f1"):
            assert getattr(row, name) == pytest.approx(expected[(key, row.score_threshold, name)], abs=1e-12)
        assert row.roc_auc == pytest.approx(expected[(key, None, "roc_auc")], abs=1e-12)
    # scikit-learn's numbers for the positive class: predicted positive when p > 0.5 (argmax,
    # a tie at 0.5 goes to the negative class, as LogisticRegression.predict)
    at_zero = table[(table["label"] == positive) & (table["score_threshold"] == 0.0)].iloc[0]
    predicted = p > 0.5
    assert at_zero["precision"] == pytest.approx(
        sklearn_metrics.precision_score(y, predicted, zero_division=0)
    )
    assert at_zero["recall"] == pytest.approx(sklearn_metrics.recall_score(y, predicted))
    assert at_zero["f1"] == pytest.approx(sklearn_metrics.f1_score(y, predicted))
    assert at_zero["roc_auc"] == pytest.approx(sklearn_metrics.roc_auc_score(y, p), abs=1e-12)
    summary = frame.detection.classification(y_true="y", score=["risk"], table="summary")
    assert summary["accuracy"].iloc[0] == pytest.approx(sklearn_metrics.accuracy_score(y, predicted))
    # the same as giving both columns by hand
    two = pd.DataFrame({0: 1 - p, 1: p, "y": y})
    by_hand = two.detection.classification(
        y_true="y", score=[0, 1], score_thresholds=thresholds, zero_division=0
    )
    pd.testing.assert_frame_equal(
        table.drop(columns="label"), by_hand.drop(columns="label"), check_exact=False, rtol=1e-12
    )


def test_one_probability_column_edges():
    frame = pd.DataFrame({"y": [1, 1, 1], "risk": [0.9, 0.2, np.nan]})
    # one class present: 0/1 truths still have two classes; a missing probability scores nothing
    with (
        pytest.warns(UndefinedMetricWarning, match="zero denominator"),
        pytest.warns(
            pdmetrics.ExcludedRowsWarning, match=r"1 of 3 rows left out: no probability in `score='risk'`"
        ),
    ):
        table = frame.detection.classification(y_true="y", score="risk")
    assert table["label"].tolist() == [0, 1] and table["N"].tolist() == [0, 2]
    assert table.loc[1, ["tp", "fn"]].tolist() == [1, 1]
    with pytest.raises(InvalidInputError, match=r"must lie in \[0, 1\]; row 1 holds 1.5"):
        frame.assign(risk=[0.9, 1.5, 0.1]).detection.classification(y_true="y", score="risk")
    # other classes: say which layout to use instead of "Labels mix strings and numbers"
    for truth in ([1, 2, 1], [0, 1, 2], [0.0, 1.0, 2.5]):
        with pytest.raises(
            InvalidInputError, match=r"not a class of `y_true='y'`.*0/1 or False/True.*wide layout"
        ):
            frame.assign(y=truth, risk=[0.9, 0.2, 0.4]).detection.classification(y_true="y", score="risk")
    # a column named by one class while y_true holds others: no score for them, refused alike
    named = pd.DataFrame({"y": ["a", "b"], "a": [0.9, 0.2]})
    with pytest.raises(InvalidInputError, match=r"`score='a'` is the only score column.*classes: 'a', 'b'"):
        named.detection.classification(y_true="y", score="a")
    empty = frame.iloc[:0].detection.classification(y_true="y", score="risk", zero_division=0)
    assert empty["N"].tolist() == [0, 0] or empty.empty


ONE_COLUMN_LAYOUTS = r"0/1 or False/True.*one score column per class.*long layout"


@pytest.mark.parametrize(
    "truth", [["a", "b", "a"], ["risk", "b", "risk"], ["yes", "no", "no"]], ids=["other", "some", "yes-no"]
)
@pytest.mark.parametrize("dtype", [object, "category", "string"])
def test_one_text_named_column_with_other_classes_is_refused(truth, dtype):
    frame = pd.DataFrame({"y": pd.Series(truth, dtype=dtype, index=[7, 8, 9]), "risk": [0.1, 0.8, 0.6]})
    classes = ", ".join(f"'{c}'" for c in dict.fromkeys(truth))
    for options in ({"score": "risk"}, {"score": ["risk"]}, {"score": "risk", "datum": "y"}):
        if "datum" in options:
            options = {"score": "risk", "datum": "d"}
            frame = frame.assign(d=[3, 1, 2])
        with pytest.raises(InvalidInputError, match=rf"`score='risk'`.*`y_true='y'`.*classes: {classes}\)"):
            frame.detection.classification(y_true="y", **options)
        with pytest.raises(InvalidInputError, match=ONE_COLUMN_LAYOUTS):
            frame.detection.classification(y_true="y", **options)


def test_one_column_named_by_the_only_class_keeps_the_wide_layout():
    frame = pd.DataFrame({"y": ["risk", "risk"], "risk": [0.9, 0.2]})
    table = frame.detection.classification(y_true="y", score="risk", zero_division=0)
    assert table["label"].tolist() == ["risk"]
    assert table[["N", "tp", "fp", "fn", "tn"]].iloc[0].tolist() == [2, 2, 0, 0, 0]


def test_a_boolean_among_numbers_in_y_true_names_the_value_and_its_row():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"y": [0, 1] * 750, "p": rng.random(1500)}, index=np.arange(1500) + 1000)
    frame["y"] = frame["y"].astype(object)
    frame.loc[2499, "y"] = True
    for options in ({"score": "p"}, {"score": ["p"], "datum": "d"}):
        with pytest.raises(
            InvalidInputError,
            match=r"`y_true='y'` mixes booleans and numbers: row 2499 holds True.*\(e.g. 0\).*astype\(int\)",
        ):
            frame.assign(d=np.arange(1500)).detection.classification(y_true="y", **options)
    # wide layout with a column per class, and the long layout's label column
    wide = pd.DataFrame({"y": pd.Series([0, 1, True], dtype=object), 0: [0.2, 0.4, 0.1], 1: [0.8, 0.6, 0.9]})
    with pytest.raises(InvalidInputError, match=r"`y_true='y'` mixes booleans and numbers: row 2 holds True"):
        wide.detection.classification(y_true="y", score=[0, 1])
    long = pd.DataFrame(
        {"d": [1, 1, 2], "y": [0, 0, 1], "label": [0, False, 1], "s": [0.3, 0.7, 0.9]},
        index=["r", "s", "t"],
        dtype=object,
    ).astype({"s": float})
    with pytest.raises(
        InvalidInputError, match=r"`label='label'` mixes booleans and numbers: row 's' holds False"
    ):
        long.detection.classification(y_true="y", label="label", score="s", datum="d")


@pytest.mark.parametrize(
    "values, message",
    [
        (
            [1, "1", 1],
            r"`y_true='y'` mixes strings and numbers: row 11 holds '1'.*\(e\.g\. 1\).*\.astype\(str\)",
        ),
        (["a", True, "a"], r"`y_true='y'` mixes booleans and strings: row 11 holds True.*\(e\.g\. 'a'\)"),
        (
            [1.5, 0, 1.0],
            r"`score='p'` is one column and not a class of `y_true='y'` \(classes: 1.5, 0, 1.0\)",
        ),
    ],
)
def test_other_label_mixes_name_the_argument(values, message):
    frame = pd.DataFrame({"y": pd.Series(values, dtype=object, index=[10, 11, 12]), "p": [0.1, 0.5, 0.9]})
    with pytest.raises(InvalidInputError, match=message):
        frame.detection.classification(y_true="y", score="p")


def test_text_truth_and_number_columns_name_both_arguments():
    wide = pd.DataFrame({"y": ["1", "0"], 0: [0.2, 0.4], 1: [0.8, 0.6]})
    with pytest.raises(InvalidInputError, match=r"`y_true` holds strings \(e.g. '0'\).*numbers \(e.g. 0\)"):
        wide.detection.classification(y_true="y", score=[0, 1])


def test_a_wrong_keyword_names_the_function_as_python_does():
    with pytest.raises(
        TypeError, match=r"^classification_metrics\(\) got an unexpected keyword argument 'thresholdz'"
    ):
        classification_metrics(["a"], ["a"], [0.9], [0], thresholdz=1)
