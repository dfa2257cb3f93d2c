"""COCO conformance of df.detection: the 12 stats of pycocotools / faster-coco-eval fixtures."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import assert_frame_unchanged, conformance_path

import pdmetrics  # noqa: F401
from pdmetrics.errors import UndefinedMetricWarning
from pdmetrics.io import read_coco

COCO_OPTIONS = {"iscrowd": "iscrowd", "area": "area"}


def _stats(table: pd.DataFrame) -> np.ndarray:
    return np.where(table["value"].isna(), -1.0, table["value"].to_numpy(dtype=float))


def _evaluate(gt, dt, **options):
    with pytest.warns(UndefinedMetricWarning) if options.pop("undefined", False) else _nullcontext():
        return dt.detection.evaluate(ground_truth=gt, **COCO_OPTIONS, **options)


class _nullcontext:
    def __enter__(self):
        return self

    def __exit__(self, *args):
        return False


def test_coco_val2014_100_bbox_stats():
    folder = conformance_path("coco", "coco_val2014_100")
    gt, dt = read_coco(
        folder / "instances_val2014_100.json", folder / "instances_val2014_fakebbox100_results.json"
    )
    before = dt.copy()
    table = _evaluate(gt, dt)
    expected = [
        0.5045806987249628,
        0.6969727247299577,
        0.5729816669904824,
        0.5856257209410443,
        0.5193996948036719,
        0.5013978986347466,
        0.38681277964578054,
        0.5936795762842003,
        0.595352982877607,
        0.6398109626113442,
        0.5664205978994309,
        0.5642905982905982,
    ]
    np.testing.assert_allclose(_stats(table), expected, rtol=0, atol=1e-12)
    assert list(table.columns) == ["metric", "iou", "area", "max_dets", "value"]
    assert table["metric"].tolist() == ["AP"] * 6 + ["AR"] * 6
    assert table["iou"].tolist()[:3] == ["0.50:0.95", "0.50", "0.75"]
    assert table["area"].tolist() == ["all"] * 3 + ["small", "medium", "large"] + ["all"] * 3 + [
        "small",
        "medium",
        "large",
    ]
    assert table["max_dets"].tolist() == [100] * 6 + [1, 10, 100] + [100] * 3
    assert_frame_unchanged(before, dt)


def test_coco_val2014_100_area_must_come_from_the_file():
    folder = conformance_path("coco", "coco_val2014_100")
    gt, dt = read_coco(
        folder / "instances_val2014_100.json", folder / "instances_val2014_fakebbox100_results.json"
    )
    # without the file's area column, the box area is used instead of the mask area
    table = dt.detection.evaluate(ground_truth=gt.drop(columns="area"), iscrowd="iscrowd")
    np.testing.assert_allclose(_stats(table)[3:6], [0.5938, 0.5595, 0.4894], atol=5e-5)


def test_detectron2_small_bbox_stats():
    folder = conformance_path("coco", "detectron2_small")
    gt, dt = read_coco(folder / "gt.json", folder / "dt.json")
    expected = json.loads((folder / "expected.json").read_text())["bbox"]
    assert expected == [0.7504950495049505, 1.0, 1.0, 0.7, 0.8, -1.0, 0.4, 0.75, 0.75, 0.7, 0.8, -1.0]
    table = _evaluate(gt, dt, undefined=True)
    np.testing.assert_allclose(_stats(table), expected, rtol=0, atol=1e-12)


def test_faster_coco_eval_small_bbox_stats():
    folder = conformance_path("coco", "faster_coco_eval_small")
    gt, dt = read_coco(folder / "gt_dataset.json", folder / "dt_dataset.json")
    table = _evaluate(gt, dt, undefined=True)
    expected = [
        0.6947194719471946,
        0.6947194719471946,
        0.6947194719471946,
        -1.0,
        0.7920792079207921,
        0.0,
        0.6666666666666666,
        0.75,
        0.75,
        -1.0,
        0.7916666666666666,
        0.0,
    ]
    np.testing.assert_allclose(_stats(table), expected, rtol=0, atol=1e-12)


def test_faster_coco_eval_ignore_case_refuses_mixed_image_ids_then_matches():
    folder = conformance_path("coco", "faster_coco_eval_small")
    gt, dt = read_coco(folder / "gt_ignore_test.json", folder / "dt_ignore_test.json")
    with pytest.raises(pdmetrics.InvalidInputError, match="2299"):
        dt.detection.evaluate(ground_truth=gt, **COCO_OPTIONS)
    gt = gt.assign(image=gt["image"].astype(int))
    dt = dt[dt["score"] >= 0.1]  # loadRes(min_score=0.1)
    table = _evaluate(gt, dt, undefined=True)
    expected = [
        0.7099009900990099,
        1.0,
        0.8415841584158416,
        -1,
        0.7099009900990099,
        -1,
        0.0,
        0.45384615384615384,
        0.7153846153846154,
        -1,
        0.7153846153846154,
        -1,
    ]
    np.testing.assert_allclose(_stats(table), expected, rtol=0, atol=1e-12)


def test_string_ids_and_xyxy_give_the_same_numbers():
    folder = conformance_path("coco", "coco_val2014_100")
    gt, dt = read_coco(
        folder / "instances_val2014_100.json", folder / "instances_val2014_fakebbox100_results.json"
    )
    reference = _stats(_evaluate(gt, dt))

    def as_xyxy(frame):
        return frame.assign(
            xmin=frame["x"], ymin=frame["y"], xmax=frame["x"] + frame["w"], ymax=frame["y"] + frame["h"]
        )

    names = {1: "person"}
    gt2 = as_xyxy(gt).assign(
        image=gt["image"].map(lambda i: f"img{i:012d}"),
        label=gt["label"].map(lambda c: names.get(c, f"c{c:03d}")),
    )
    dt2 = as_xyxy(dt).assign(
        image=dt["image"].map(lambda i: f"img{i:012d}"),
        label=dt["label"].map(lambda c: names.get(c, f"c{c:03d}")),
    )
    table = dt2.detection.evaluate(ground_truth=gt2, box_format="xyxy", **COCO_OPTIONS)
    np.testing.assert_allclose(_stats(table), reference, rtol=0, atol=1e-12)


def test_per_label_tables_agree_with_the_summary():
    folder = conformance_path("coco", "coco_val2014_100")
    gt, dt = read_coco(
        folder / "instances_val2014_100.json", folder / "instances_val2014_fakebbox100_results.json"
    )
    summary = _stats(_evaluate(gt, dt))
    with pytest.warns(UndefinedMetricWarning):  # some categories have no ground truth here
        ap = dt.detection.average_precision(ground_truth=gt, **COCO_OPTIONS)
    assert list(ap.columns[:5]) == ["label", "area", "N", "n_detections", "AP"]
    mean = ap[ap["label"] == "(all)"].iloc[0]
    np.testing.assert_allclose(
        [mean["AP"], mean["AP@0.50"], mean["AP@0.75"]], summary[:3], rtol=0, atol=1e-12
    )
    with pytest.warns(UndefinedMetricWarning):
        ar = dt.detection.average_recall(ground_truth=gt, **COCO_OPTIONS)
    np.testing.assert_allclose(ar.loc[ar["label"] == "(all)", "AR"].iloc[0], summary[8], rtol=0, atol=1e-12)
    assert ap.loc[ap["label"] != "(all)", "N"].sum() == ap.loc[ap["label"] == "(all)", "N"].iloc[0]


def test_ignore_flag_is_honoured_when_passed():
    # pycocotools and faster-coco-eval overwrite `ignore` with `iscrowd` (AP 0.505 here);
    # passing ignore= makes the detection on the ignored box neither true nor false positive
    gt = pd.DataFrame(
        {
            "image": [1, 1],
            "label": [1, 1],
            "x": [0.0, 50],
            "y": [0.0, 0],
            "w": [10.0, 10],
            "h": [10.0, 10],
            "ignore": [1, 0],
        }
    )
    dt = gt.iloc[:1].drop(columns="ignore").assign(score=0.9)
    options = {"ground_truth": gt, "area_ranges": {"all": (0, 1e10)}, "iou_thresholds": [0.5]}
    assert dt.detection.evaluate(**options)["value"].iloc[0] == pytest.approx(51 / 101 * 1.0)
    assert dt.detection.evaluate(ignore="ignore", **options)["value"].iloc[0] == 0.0
