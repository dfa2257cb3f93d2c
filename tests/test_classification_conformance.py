"""Classification metrics against valor-lite 0.39.0's answers on its own examples."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import assert_close, assert_frame_unchanged, conformance_path

import pdmetrics  # noqa: F401
from pdmetrics.detection import (
    classification_accuracy,
    mean_roc_auc,
    roc_auc,
)
from pdmetrics.detection.label_confusion import classification_confusion
from pdmetrics.detection.label_metrics import classification_metrics

EXAMPLES = ("animal", "color", "tabular", "image")
THRESHOLDS = [0.25, 0.75]


def _load():
    path = conformance_path("valor", "valor_small_examples", "classification_examples.json")
    return json.loads(path.read_text())["examples"]


def _long(example) -> pd.DataFrame:
    rows = []
    for i, (truth, prediction) in enumerate(zip(example["groundtruths"], example["predictions"])):
        for label, score in prediction.items():  # dict order = valor's order (hardmax ties)
            rows.append({"datum": f"uid{i}", "truth": truth, "label": label, "score": score})
    return pd.DataFrame(rows)


def _arrays(frame):
    return frame["truth"], frame["label"], frame["score"], frame["datum"]


@pytest.mark.parametrize("name", EXAMPLES)
def test_roc_auc_matches_valor(name):
    example = _load()[name]
    expected = example["expected_valor_lite_0.39.0"]["rocauc"]
    table = roc_auc(*_arrays(_long(example)), zero_division=0).set_index("label")
    for item in expected["ROCAUC"]:
        assert_close(table.loc[item["parameters"]["label"], "roc_auc"], item["value"], what=name)
    assert len(table) == len(expected["ROCAUC"])
    assert_close(mean_roc_auc(*_arrays(_long(example)), zero_division=0), expected["mROCAUC"][0]["value"])


@pytest.mark.parametrize("hardmax", [True, False])
@pytest.mark.parametrize("name", EXAMPLES)
def test_counts_precision_recall_f1_accuracy_match_valor(name, hardmax):
    example = _load()[name]
    expected = example["expected_valor_lite_0.39.0"][f"precision_recall_hardmax_{hardmax}"]
    table = classification_metrics(
        *_arrays(_long(example)), score_thresholds=THRESHOLDS, hardmax=hardmax, zero_division=0
    ).set_index(["label", "score_threshold"])
    checked = 0
    for item in expected["Counts"]:
        key = (item["parameters"]["label"], item["parameters"]["score_threshold"])
        for field in ("tp", "fp", "fn", "tn"):
            assert table.loc[key, field] == item["value"][field], (name, key, field)
        checked += 1
    assert checked == len(table)
    for metric, column in (("Precision", "precision"), ("Recall", "recall"), ("F1", "f1")):
        for item in expected[metric]:
            key = (item["parameters"]["label"], item["parameters"]["score_threshold"])
            assert_close(table.loc[key, column], item["value"], what=f"{name} {metric} {key}")
    accuracy = classification_accuracy(
        *_arrays(_long(example)), score_thresholds=THRESHOLDS, hardmax=hardmax
    ).set_index("score_threshold")["accuracy"]
    for item in expected["Accuracy"]:
        assert_close(accuracy.loc[item["parameters"]["score_threshold"]], item["value"], what=name)


@pytest.mark.parametrize("hardmax", [True, False])
@pytest.mark.parametrize("name", EXAMPLES)
def test_confusion_matrix_matches_valor(name, hardmax):
    example = _load()[name]
    expected = example["expected_valor_lite_0.39.0"][f"confusion_matrix_hardmax_{hardmax}"]
    table = classification_confusion(*_arrays(_long(example)), score_thresholds=THRESHOLDS, hardmax=hardmax)
    for item in expected:
        at = table[table["score_threshold"] == item["parameters"]["score_threshold"]]
        cells = at[at["prediction"].notna()].set_index(["truth", "prediction"])["count"]
        unmatched = at[at["prediction"].isna()].set_index("truth")["count"]
        for truth, row in item["value"]["confusion_matrix"].items():
            for prediction, count in row.items():
                assert cells.loc[(truth, prediction)] == count, (name, truth, prediction)
        for truth, count in item["value"]["unmatched_ground_truths"].items():
            assert unmatched.loc[truth] == count, (name, truth)
        assert len(cells) == sum(len(r) for r in item["value"]["confusion_matrix"].values())


def _wide(example, order=None) -> pd.DataFrame:
    frame = pd.DataFrame(example["predictions"])
    if order is not None:
        frame = frame[order]
    return frame.assign(truth=example["groundtruths"])


@pytest.mark.parametrize("name", ["animal", "color", "tabular"])
def test_wide_form_matches_valor(name):
    example = _load()[name]
    labels = sorted(example["predictions"][0])
    frame = _wide(example, labels)
    before = frame.copy()
    table = frame.detection.classification(
        y_true="truth", score=labels, score_thresholds=THRESHOLDS, zero_division=0
    )
    assert_frame_unchanged(before, frame)
    expected = example["expected_valor_lite_0.39.0"]["precision_recall_hardmax_True"]
    table = table.set_index(["label", "score_threshold"])
    for item in expected["Counts"]:
        key = (item["parameters"]["label"], item["parameters"]["score_threshold"])
        assert [int(table.loc[key, f]) for f in ("tp", "fp", "fn", "tn")] == [
            item["value"][f] for f in ("tp", "fp", "fn", "tn")
        ]
    for item in example["expected_valor_lite_0.39.0"]["rocauc"]["ROCAUC"]:
        assert_close(table.xs(item["parameters"]["label"], level="label")["roc_auc"].iloc[0], item["value"])


def test_accessor_long_form_summary_matches_valor():
    example = _load()["animal"]
    frame = _long(example)
    before = frame.copy()
    summary = frame.detection.classification(
        y_true="truth",
        label="label",
        score="score",
        datum="datum",
        table="summary",
        score_thresholds=THRESHOLDS,
        zero_division=0,
    )
    assert_frame_unchanged(before, frame)
    assert list(summary.columns) == ["score_threshold", "N", "accuracy", "mean_roc_auc"]
    expected = example["expected_valor_lite_0.39.0"]
    accuracy = expected["precision_recall_hardmax_True"]["Accuracy"]
    assert_close(summary["accuracy"], [a["value"] for a in accuracy])
    assert_close(summary["mean_roc_auc"], expected["rocauc"]["mROCAUC"][0]["value"])
    assert np.all(summary["N"] == 6)
