"""Semantic segmentation IoU: slow reference, valor-lite cross-check, properties, bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import assert_close, assert_frame_unchanged
from hypothesis import given, settings
from hypothesis import strategies as st

import pdmetrics  # noqa: F401
from pdmetrics.detection import mean_iou, pixel_confusion_matrix, segmentation, segmentation_iou
from pdmetrics.errors import ColumnNotFoundError, InvalidInputError, UndefinedMetricWarning


@st.composite
def mask_sets(draw):
    n = draw(st.integers(1, 4))
    truth, prediction = [], []
    for _ in range(n):
        h, w = draw(st.integers(1, 5)), draw(st.integers(1, 5))
        seed = draw(st.integers(0, 2**31))
        rng = np.random.default_rng(seed)
        truth.append(rng.integers(0, 4, (h, w)))
        prediction.append(rng.integers(0, 4, (h, w)))
    return truth, prediction


def slow_iou(truth, prediction, background=None):
    t = np.concatenate([m.ravel() for m in truth])
    p = np.concatenate([m.ravel() for m in prediction])
    out = {}
    for c in sorted(set(t) | set(p)):
        if c == background:
            continue
        inter = sum(1 for a, b in zip(t, p) if a == c and b == c)
        union = sum(1 for a, b in zip(t, p) if a == c or b == c)
        out[int(c)] = inter / union
    return out


@settings(max_examples=40, deadline=None)
@given(mask_sets(), st.sampled_from([None, 0, 3]))
def test_iou_matches_slow_reference(masks, background):
    truth, prediction = masks
    expected = slow_iou(truth, prediction, background)
    table = segmentation_iou(truth, prediction, background=background, zero_division=0)
    assert table["label"].tolist() == list(expected)
    assert_close(table["iou"], list(expected.values()))
    if expected:
        assert_close(
            mean_iou(truth, prediction, background=background, zero_division=0),
            np.mean(list(expected.values())),
        )
    t = np.concatenate([m.ravel() for m in truth])
    p = np.concatenate([m.ravel() for m in prediction])
    masks = pd.DataFrame({"gt": list(truth), "pd": list(prediction)})
    summary = segmentation(
        masks, y_true="gt", y_pred="pd", background=background, table="summary", zero_division=0
    )
    assert_close(summary["pixel_accuracy"].iloc[0], np.mean(t == p))
    confusion = pixel_confusion_matrix(truth, prediction)
    assert confusion["count"].sum() == t.size


@settings(max_examples=20, deadline=None)
@given(mask_sets(), st.randoms(use_true_random=False))
def test_image_order_does_not_matter(masks, random):
    truth, prediction = masks
    frame = pd.DataFrame({"gt": pd.Series(truth, dtype=object), "pd": pd.Series(prediction, dtype=object)})
    order = list(range(len(frame)))
    random.shuffle(order)
    a = frame.detection.segmentation(y_true="gt", y_pred="pd", zero_division=0)
    b = frame.iloc[order].detection.segmentation(y_true="gt", y_pred="pd", zero_division=0)
    pd.testing.assert_frame_equal(a, b)


def test_matches_valor_lite():
    valor = pytest.importorskip("valor_lite.semantic_segmentation")
    rng = np.random.default_rng(11)
    truth = [rng.integers(0, 4, (20, 30)) for _ in range(3)]
    prediction = [np.where(rng.random(t.shape) < 0.7, t, rng.integers(0, 4, t.shape)) for t in truth]
    loader = valor.Loader.in_memory()
    # valor-lite's label maps: 0 is background, value i is labels[i - 1]
    loader.add_data(
        [
            valor.Segmentation(
                uid=str(i),
                groundtruths=t.astype(np.uint16),
                predictions=p.astype(np.uint16),
                labels=["1", "2", "3"],
            )
            for i, (t, p) in enumerate(zip(truth, prediction))
        ]
    )
    metrics = loader.finalize().compute_precision_recall_iou()
    table = segmentation_iou(truth, prediction, background=0).set_index("label")
    by_type = {m.type: m for ms in metrics.values() for m in ms if m.type in ("mIOU", "Accuracy")}
    for m in metrics[valor.MetricType.IOU]:
        assert_close(table.loc[int(m.parameters["label"]), "iou"], m.value)
    for m in metrics[valor.MetricType.Precision]:
        assert_close(table.loc[int(m.parameters["label"]), "precision"], m.value)
    for m in metrics[valor.MetricType.Recall]:
        assert_close(table.loc[int(m.parameters["label"]), "recall"], m.value)
    masks = pd.DataFrame({"gt": list(truth), "pd": list(prediction)})
    summary = segmentation(masks, y_true="gt", y_pred="pd", background=0, table="summary")
    assert_close(summary["mean_iou"].iloc[0], by_type["mIOU"].value)
    assert_close(summary["pixel_accuracy"].iloc[0], by_type["Accuracy"].value)


def test_ignore_index_labels_and_large_values():
    truth = np.array([[1, 1, 255], [2, 2, 255]])
    prediction = np.array([[1, 2, 1], [2, 2, 2]])
    table = segmentation_iou(truth, prediction, ignore_index=255)
    assert table["label"].tolist() == [1, 2]
    assert_close(table["iou"], [0.5, 2 / 3])
    with pytest.warns(UndefinedMetricWarning, match="zero_division=0"):
        table = segmentation_iou(truth, prediction, ignore_index=255, labels=[2, 7])
    assert table["label"].tolist() == [2, 7] and np.isnan(table["iou"].iloc[1])
    table = segmentation_iou(truth, prediction, ignore_index=255, labels=[7], zero_division=0)
    assert table["iou"].tolist() == [0.0]
    sparse = segmentation_iou(truth * 100_000, prediction * 100_000, zero_division=0)  # sparse path
    assert sparse["label"].tolist() == [100_000, 200_000, 25_500_000]


def test_accessor_leaves_frame_unchanged_and_tables():
    frame = pd.DataFrame(
        {
            "gt": [np.array([[0, 1], [1, 1]]), np.array([[2, 2], [0, 0]])],
            "pd": [np.array([[0, 1], [0, 1]]), np.array([[2, 2], [2, 0]])],
        }
    )
    before = frame.copy()
    for table in ("labels", "summary", "confusion"):
        out = frame.detection.segmentation(y_true="gt", y_pred="pd", table=table)
        assert isinstance(out.index, pd.RangeIndex)
    pd.testing.assert_frame_equal(frame.drop(columns=["gt", "pd"]), before.drop(columns=["gt", "pd"]))
    for a, b in zip(frame["gt"], before["gt"]):
        np.testing.assert_array_equal(a, b)
    assert_frame_unchanged(frame[[]], before[[]])


def test_bad_input():
    frame = pd.DataFrame({"gt": [np.zeros((2, 2), int)], "pd": [np.zeros((2, 3), int)]})
    with pytest.raises(InvalidInputError, match="shape"):
        frame.detection.segmentation(y_true="gt", y_pred="pd")
    with pytest.raises(ColumnNotFoundError):
        frame.detection.segmentation(y_true="mask", y_pred="pd")
    with pytest.raises(InvalidInputError, match="integers"):
        segmentation_iou([np.full((2, 2), 0.5)], [np.zeros((2, 2))])
    with pytest.raises(InvalidInputError, match="2-D"):
        segmentation_iou([np.zeros(4, int)], [np.zeros(4, int)])
    with pytest.raises(InvalidInputError, match="images"):
        segmentation_iou([np.zeros((2, 2), int)], [])
    with pytest.raises(InvalidInputError, match="segmentation table"):
        frame.detection.segmentation(y_true="gt", y_pred="gt", table="iou")
    with (
        pytest.warns(UndefinedMetricWarning, match="zero denominator|pixel"),
        pytest.warns(UndefinedMetricWarning, match="Mean IoU"),
    ):
        summary = segmentation(pd.DataFrame({"gt": [], "pd": []}), y_true="gt", y_pred="pd", table="summary")
    assert summary["N"].iloc[0] == 0 and np.isnan(summary["pixel_accuracy"].iloc[0])
    assert len(segmentation_iou([], [])) == 0


@pytest.mark.parametrize("labels", ["abc", 3, [1.5], ["a"], [1, 1]])
def test_bad_labels_are_a_clear_error(labels):
    frame = pd.DataFrame({"gt": [np.zeros((2, 2), int)], "pd": [np.zeros((2, 2), int)]})
    with pytest.raises(InvalidInputError, match="labels="):
        frame.detection.segmentation(y_true="gt", y_pred="pd", labels=labels)


def test_image_without_foreground_is_undefined_or_valors_zero():
    frame = pd.DataFrame({"gt": [np.zeros((2, 2), int)], "pd": [np.zeros((2, 2), int)]})
    with pytest.warns(UndefinedMetricWarning, match="zero_division=0"):
        summary = frame.detection.segmentation(y_true="gt", y_pred="pd", background=0, table="summary")
    assert summary["n_classes"].iloc[0] == 0 and np.isnan(summary["mean_iou"].iloc[0])
    assert summary["pixel_accuracy"].iloc[0] == 1.0
    valor_like = frame.detection.segmentation(
        y_true="gt", y_pred="pd", background=0, table="summary", zero_division=0
    )
    assert valor_like["mean_iou"].iloc[0] == 0.0  # valor-lite's mIOU without labels
    with pytest.warns(UndefinedMetricWarning, match="Mean IoU"):
        assert np.isnan(mean_iou([np.zeros((2, 2), int)], [np.zeros((2, 2), int)], background=0))
