"""COCO conformance of df.detection: the 12 stats of pycocotools / faster-coco-eval fixtures."""

from __future__ import annotations

import contextlib
import json
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import assert_frame_unchanged, conformance_path, pycocotools_stats
from hypothesis import given, settings
from hypothesis import strategies as st

import pdmetrics  # noqa: F401
from pdmetrics.errors import UndefinedMetricWarning
from pdmetrics.io import coco_image_ids, read_coco

COCO_OPTIONS = {"iscrowd": "iscrowd", "area": "area"}


def _stats(table: pd.DataFrame) -> np.ndarray:
    return np.where(table["value"].isna(), -1.0, table["value"].to_numpy(dtype=float))


def _evaluate(gt, dt, **options):
    """COCO's natural path: the tables of ``read_coco`` and no other argument."""
    undefined = options.pop("undefined", False)
    with pytest.warns(UndefinedMetricWarning, match="pycocotools prints -1") if undefined else _nullcontext():
        return dt.detection.evaluate(ground_truth=gt, **options)


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
    with pytest.warns(UndefinedMetricWarning, match="no ground truth"):
        ap = dt.detection.average_precision(ground_truth=gt, **COCO_OPTIONS)
    assert list(ap.columns[:5]) == ["label", "area", "N", "n_detections", "AP"]
    mean = ap[ap["label"] == "(all)"].iloc[0]
    np.testing.assert_allclose(
        [mean["AP"], mean["AP@0.50"], mean["AP@0.75"]], summary[:3], rtol=0, atol=1e-12
    )
    with pytest.warns(UndefinedMetricWarning, match="no ground truth"):
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


SMALL_COCO = {
    "images": [{"id": 1}, {"id": 2}, {"id": 3}],
    "categories": [{"id": 1, "name": "cat"}, {"id": 2, "name": "dog"}],
    "annotations": [
        {"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 40, 40], "area": 900.0, "iscrowd": 0},
        {"id": 2, "image_id": 1, "category_id": 1, "bbox": [50, 50, 100, 100], "area": 9000.0, "iscrowd": 1},
        {"id": 3, "image_id": 2, "category_id": 2, "bbox": [10, 10, 20, 20], "area": 100.0, "iscrowd": 0},
    ],
}
SMALL_RESULTS = [
    {"image_id": 1, "category_id": 1, "bbox": [2, 0, 40, 40], "score": 0.9},
    {"image_id": 1, "category_id": 1, "bbox": [60, 60, 30, 30], "score": 0.8},
    {"image_id": 2, "category_id": 2, "bbox": [10, 12, 20, 20], "score": 0.7},
    {"image_id": 3, "category_id": 2, "bbox": [0, 0, 20, 20], "score": 0.95},
    {"image_id": 3, "category_id": 1, "bbox": [0, 0, 20, 20], "score": 0.3},
]


def test_read_coco_then_evaluate_alone_equals_pycocotools_with_empty_images_and_crowds():
    gt, dt = read_coco(SMALL_COCO, SMALL_RESULTS)
    with pytest.warns(UndefinedMetricWarning, match="pycocotools prints -1"):
        table = dt.detection.evaluate(ground_truth=gt)
    np.testing.assert_allclose(
        _stats(table), pycocotools_stats(SMALL_COCO, SMALL_RESULTS), rtol=0, atol=1e-12
    )
    # the same numbers with the explicit arguments (a table built by hand needs them)
    plain_gt = pd.DataFrame(gt)
    plain_gt.attrs.clear()
    with pytest.warns(UndefinedMetricWarning, match="pycocotools prints -1"):
        explicit = dt.detection.evaluate(
            ground_truth=plain_gt, iscrowd="iscrowd", area="area", images=coco_image_ids(SMALL_COCO)
        )
    pd.testing.assert_frame_equal(explicit, table)
    # without the record, image 3 is unknown: the error names the way out
    with pytest.raises(pdmetrics.InvalidInputError, match="images=.*coco_image_ids"):
        dt.detection.evaluate(ground_truth=plain_gt)


def test_read_coco_category_names_for_the_tables():
    gt, dt = read_coco(
        SMALL_COCO, [*SMALL_RESULTS, {"image_id": 3, "category_id": 7, "bbox": [0, 0, 1, 1], "score": 0.1}]
    )
    assert gt["category"].tolist() == ["cat", "cat", "dog"]
    assert dt["category"].tolist() == ["cat", "cat", "dog", "dog", "cat", "7"]
    with pytest.warns(UndefinedMetricWarning, match="no ground truth"):
        by_name = dt.detection.average_precision(ground_truth=gt, label="category", iou_thresholds=[0.5])
    with pytest.warns(UndefinedMetricWarning, match="no ground truth"):
        by_id = dt.detection.average_precision(ground_truth=gt, iou_thresholds=[0.5])
    assert by_name["label"].tolist() == ["7", "cat", "dog", "(all)"]
    np.testing.assert_allclose(by_name["AP"], by_id["AP"].to_numpy()[[2, 0, 1, 3]])


@pytest.mark.parametrize(
    "folder,annotations,results",
    [
        ("coco_val2014_100", "instances_val2014_100.json", "instances_val2014_fakebbox100_results.json"),
        ("detectron2_small", "gt.json", "dt.json"),
        ("faster_coco_eval_small", "gt_dataset.json", "dt_dataset.json"),
    ],
)
def test_natural_path_equals_pycocotools_on_the_conformance_files(folder, annotations, results):
    path = conformance_path("coco", folder)
    gt, dt = read_coco(path / annotations, path / results)
    with _quiet():
        table = dt.detection.evaluate(ground_truth=gt)
    dataset = json.loads((path / annotations).read_text())
    expected = pycocotools_stats(dataset, json.loads((path / results).read_text()))
    np.testing.assert_allclose(_stats(table), expected, rtol=0, atol=1e-12)


@contextlib.contextmanager
def _quiet():
    """Undefined area ranges warn on some files; the numbers are what is checked."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        yield


RANGES = {"all": (0, 1e10), "small": (0, 32), "big": (32, 1e10)}


@st.composite
def _coco_files(draw):
    n_images = draw(st.integers(1, 4))
    coordinate = st.integers(0, 12).map(float)
    size = st.integers(1, 8).map(float)
    annotations = []
    for index in range(draw(st.integers(1, 8))):
        bbox = [draw(coordinate), draw(coordinate), draw(size), draw(size)]
        annotations.append(
            {
                "id": index + 1,
                "image_id": draw(st.integers(1, n_images)),
                "category_id": draw(st.integers(1, 2)),
                "bbox": bbox,
                "area": draw(st.sampled_from([bbox[2] * bbox[3], 1.0, 30.0, 2000.0])),
                "iscrowd": draw(st.sampled_from([0, 0, 0, 1])),
            }
        )
    results = [
        {
            "image_id": draw(st.integers(1, n_images)),
            "category_id": draw(st.integers(1, 2)),
            "bbox": [draw(coordinate), draw(coordinate), draw(size), draw(size)],
            "score": draw(st.sampled_from([0.1, 0.5, 0.5, 0.9])),
        }
        for _ in range(draw(st.integers(1, 10)))
    ]
    dataset = {
        "images": [{"id": i} for i in range(1, n_images + 1)],
        "categories": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}],
        "annotations": annotations,
    }
    return dataset, results


@settings(max_examples=40, deadline=None)
@given(files=_coco_files())
def test_natural_path_equals_pycocotools_on_random_files(files):
    dataset, results = files
    gt, dt = read_coco(dataset, results)
    with _quiet():
        table = dt.detection.evaluate(ground_truth=gt, area_ranges=RANGES)
    reference = pycocotools_stats(dataset, results, RANGES)
    np.testing.assert_allclose(_stats(table), reference, rtol=0, atol=1e-12)
