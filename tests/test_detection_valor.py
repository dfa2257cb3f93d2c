"""valor conformance of df.detection (matching="valor", interpolation="valor", ...)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import conformance_path

import pdmetrics  # noqa: F401
from pdmetrics.detection import pr_curve

BOX = ["xmin", "ymin", "xmax", "ymax"]
VALOR = {"box_format": "xyxy", "max_dets": None, "matching": "valor", "labels_without_ground_truth": "zero"}


def _regression_tables():
    folder = conformance_path("valor", "valor_lite_coco_regression")
    images = json.loads((folder / "coco_input.json").read_text())
    expected = json.loads((folder / "coco_output.json").read_text())
    gt = pd.DataFrame(
        [
            (d["uid"], a["labels"][0], a["xmin"], a["ymin"], a["xmax"], a["ymax"])
            for d in images
            for a in d["groundtruths"]
        ],
        columns=["image", "label", *BOX],
    )
    dt = pd.DataFrame(
        [
            (d["uid"], a["labels"][0], a["xmin"], a["ymin"], a["xmax"], a["ymax"], a["scores"][0])
            for d in images
            for a in d["predictions"]
        ],
        columns=["image", "label", *BOX, "score"],
    )
    return gt, dt, expected


def _by_label(metrics):
    return {m["parameters"]["label"]: m["value"] for m in metrics}


def test_valor_lite_coco_regression_ap_ar_counts_and_curves():
    gt, dt, expected = _regression_tables()
    options = dict(ground_truth=gt, iou_thresholds=[0.1], **VALOR)
    ap = dt.detection.average_precision(interpolation="valor", **options).set_index("label")
    for label, value in _by_label(expected["AP"]).items():
        assert ap.loc[label, "AP@0.10"] == pytest.approx(value, rel=1e-9, abs=1e-12)
    assert len(ap) == 64 + 1
    assert ap.loc["(all)", "AP"] == pytest.approx(expected["mAP"][0]["value"], rel=1e-9)
    assert ap.loc["(all)", "AP"] == pytest.approx(expected["mAPAveragedOverIOUs"][0]["value"], rel=1e-9)

    ar = dt.detection.average_recall(score_threshold=0.5, **options).set_index("label")
    for label, value in _by_label(expected["AR"]).items():
        assert ar.loc[label, "AR"] == pytest.approx(value, rel=1e-9, abs=1e-12)
    assert ar.loc["(all)", "AR"] == pytest.approx(expected["mAR"][0]["value"], rel=1e-9)
    # one score threshold: the averages over score thresholds are the ARs themselves
    for label, value in _by_label(expected["ARAveragedOverScores"]).items():
        assert ar.loc[label, "AR"] == pytest.approx(value, rel=1e-9, abs=1e-12)
    assert ar.loc["(all)", "AR"] == pytest.approx(expected["mARAveragedOverScores"][0]["value"], rel=1e-9)
    for label, value in _by_label(expected["APAveragedOverIOUs"]).items():
        assert ap.loc[label, "AP"] == pytest.approx(value, rel=1e-9, abs=1e-12)

    counts = pr_curve(
        dt,
        gt,
        style="valor",
        iou_thresholds=[0.1],
        score_thresholds=[0.5],
        box_format="xyxy",
        max_dets=None,
        matching="valor",
        zero_division=0,
    ).set_index("label")
    for metric in expected["Counts"]:
        row = counts.loc[metric["parameters"]["label"]]
        assert (row["tp"], row["fp"], row["fn"]) == (
            metric["value"]["tp"],
            metric["value"]["fp"],
            metric["value"]["fn"],
        )
    for key, column in (("Precision", "precision"), ("Recall", "recall"), ("F1", "f1")):
        for label, value in _by_label(expected[key]).items():
            assert counts.loc[label, column] == pytest.approx(value, rel=1e-9, abs=1e-12)

    curve = pr_curve(dt, gt, iou_thresholds=[0.1], interpolation="valor", **VALOR)
    for metric in expected["PrecisionRecallCurve"]:
        rows = curve[curve["label"] == metric["parameters"]["label"]]
        np.testing.assert_allclose(rows["precision"], metric["value"]["precisions"], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(rows["score"], metric["value"]["scores"], rtol=1e-9, atol=1e-12)


def _small_cases():
    folder = conformance_path("valor", "valor_small_examples")
    return json.loads((folder / "detection_small_cases.json").read_text())


def _small_tables(case):
    gt_rows, dt_rows = [], []
    for index, image in enumerate(case["images"]):
        gt_rows += [(index, str(g[4]), *g[:4]) for g in image["gt"]]
        dt_rows += [(index, str(p[4]), *p[:4], p[5]) for p in image["pd"]]
    gt = pd.DataFrame(gt_rows, columns=["image", "label", *BOX])
    dt = pd.DataFrame(dt_rows, columns=["image", "label", *BOX, "score"])
    return gt, dt


@pytest.mark.parametrize("index", [0, 1, 2])
def test_valor_small_cases_valor_answers(index):
    case = _small_cases()[index]
    gt, dt = _small_tables(case)
    expected = case["expected_valor_lite_0.39.0"]
    thresholds = case["iou_thresholds"]
    ap = dt.detection.average_precision(
        ground_truth=gt, iou_thresholds=thresholds, interpolation="valor", **VALOR
    ).set_index("label")
    for metric in expected["AP"]:
        column = f"AP@{metric['parameters']['iou_threshold']:.2f}"
        assert ap.loc[metric["parameters"]["label"], column] == pytest.approx(metric["value"], abs=1e-12)
    for metric in expected["mAP"]:
        column = f"AP@{metric['parameters']['iou_threshold']:.2f}"
        assert ap.loc["(all)", column] == pytest.approx(metric["value"], abs=1e-12)
    assert ap.loc["(all)", "AP"] == pytest.approx(expected["mAPAveragedOverIOUs"][0]["value"], abs=1e-12)
    for label, value in _by_label(expected["APAveragedOverIOUs"]).items():
        assert ap.loc[label, "AP"] == pytest.approx(value, abs=1e-12)
    score_threshold = case["score_thresholds"][0]
    ar = dt.detection.average_recall(
        ground_truth=gt, iou_thresholds=thresholds, score_threshold=score_threshold, **VALOR
    ).set_index("label")
    for label, value in _by_label(expected["AR"]).items():
        assert ar.loc[label, "AR"] == pytest.approx(value, abs=1e-12)
    assert ar.loc["(all)", "AR"] == pytest.approx(expected["mAR"][0]["value"], abs=1e-12)
    counts = pr_curve(
        dt,
        gt,
        style="valor",
        iou_thresholds=thresholds,
        score_thresholds=[score_threshold],
        box_format="xyxy",
        max_dets=None,
        matching="valor",
        zero_division=0,
    ).set_index(["label", "iou"])
    for metric in expected["Counts"]:
        row = counts.loc[(metric["parameters"]["label"], metric["parameters"]["iou_threshold"])]
        assert (row["tp"], row["fp"], row["fn"]) == tuple(metric["value"][k] for k in ("tp", "fp", "fn"))
    for key, column in (("Precision", "precision"), ("Recall", "recall"), ("F1", "f1")):
        for metric in expected[key]:
            row = counts.loc[(metric["parameters"]["label"], metric["parameters"]["iou_threshold"])]
            assert row[column] == pytest.approx(metric["value"], abs=1e-12)
    assert ar.loc["(all)", "AR"] == pytest.approx(expected["mARAveragedOverScores"][0]["value"], abs=1e-12)
    curve = pr_curve(dt, gt, iou_thresholds=thresholds, interpolation="valor", **VALOR)
    for metric in expected["PrecisionRecallCurve"]:
        rows = curve[
            (curve["label"] == metric["parameters"]["label"])
            & (curve["iou"] == metric["parameters"]["iou_threshold"])
        ]
        np.testing.assert_allclose(rows["precision"], metric["value"]["precisions"], atol=1e-12)
        np.testing.assert_allclose(rows["score"], metric["value"]["scores"], atol=1e-12)


@pytest.mark.parametrize("index", [0, 1, 2])
def test_valor_small_cases_coco_answers(index):
    case = _small_cases()[index]
    gt, dt = _small_tables(case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.UndefinedMetricWarning)
        ap = dt.detection.average_precision(
            ground_truth=gt, iou_thresholds=case["iou_thresholds"], box_format="xyxy"
        ).set_index("label")
        ar = dt.detection.average_recall(
            ground_truth=gt, iou_thresholds=case["iou_thresholds"], box_format="xyxy"
        ).set_index("label")
    for key, value in case["expected_pycocotools_2.0.11_AP_per_label_iou"].items():
        label, threshold = key.split("@")
        got = ap.loc[label, f"AP@{float(threshold):.2f}"]
        assert (-1.0 if np.isnan(got) else got) == pytest.approx(value, abs=1e-12)
    for key, value in case["expected_pycocotools_2.0.11_recall_per_label_iou_maxDets100"].items():
        label, threshold = key.split("@")
        got = ar.loc[label, f"AR@{float(threshold):.2f}"]
        assert (-1.0 if np.isnan(got) else got) == pytest.approx(value, abs=1e-12)
