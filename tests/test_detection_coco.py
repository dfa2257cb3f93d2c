"""COCO conformance of df.detection: the 12 stats of pycocotools / faster-coco-eval fixtures."""

from __future__ import annotations

import contextlib
import copy
import gc
import io
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
    # category 7 is listed without a name: its id as a string
    listed = {**SMALL_COCO, "categories": [*SMALL_COCO["categories"], {"id": 7}]}
    gt, dt = read_coco(
        listed, [*SMALL_RESULTS, {"image_id": 3, "category_id": 7, "bbox": [0, 0, 1, 1], "score": 0.1}]
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


# --------------------------------------------------------------------------------------
# annotations pycocotools leaves out; files without annotations
# --------------------------------------------------------------------------------------
def _val2014(results_file: str):
    folder = conformance_path("coco", "coco_val2014_100")
    annotations = json.loads((folder / "instances_val2014_100.json").read_text())
    return annotations, json.loads((folder / results_file).read_text())


@pytest.mark.parametrize(
    ("iou_type", "results_file"),
    [
        ("segm", "instances_val2014_fakesegm100_results.json"),
        ("bbox", "instances_val2014_fakebbox100_results.json"),
    ],
)
def test_annotations_on_unlisted_images_and_categories_are_left_out_as_pycocotools_does(
    iou_type, results_file
):
    annotations, results = _val2014(results_file)
    # RLE ground truth on an image the file no longer lists (a polygon there would have no size)
    image = annotations["images"].pop(0)["id"]
    category = annotations["categories"].pop(0)["id"]
    on_image = [a for a in annotations["annotations"] if a["image_id"] == image]
    assert on_image and any(a["category_id"] == category for a in annotations["annotations"])
    n_on_category = sum(
        a["category_id"] == category and a["image_id"] != image for a in annotations["annotations"]
    )
    listed_results = [r for r in results if r["image_id"] != image]
    # pycocotools' loadRes refuses results on unlisted images: compare on the others
    expected = pycocotools_stats(annotations, listed_results, iou_type=iou_type)
    n_results_on_category = sum(r["category_id"] == category for r in listed_results)
    with pytest.warns(pdmetrics.ExcludedRowsWarning, match="read_coco left out") as caught:
        gt, dt = read_coco(annotations, listed_results)
    message = str(caught[0].message)
    assert f"{len(on_image) + n_on_category:,} of {len(annotations['annotations']):,} ground-truth" in message
    assert (
        f"({len(on_image):,} on an image_id not in 'images', {n_on_category:,} more on a category_id"
        in message
    )
    assert f"{n_results_on_category:,} of {len(listed_results):,} results (0 on an image_id" in message
    assert len(gt) == len(annotations["annotations"]) - len(on_image) - n_on_category
    assert len(dt) == len(listed_results) - n_results_on_category
    assert not gt["image"].eq(image).any() and not gt["label"].eq(category).any()
    with _quiet():
        table = dt.detection.evaluate(ground_truth=gt, iou_type=iou_type)
    np.testing.assert_allclose(_stats(table), expected, rtol=0, atol=1e-12)
    # results on the unlisted image are left out too (pycocotools refuses the file)
    with pytest.warns(pdmetrics.ExcludedRowsWarning, match=r"results \(\d+ on an image_id not in 'images'"):
        gt2, dt2 = read_coco(annotations, results)
    # the ids still number the results in file order (as pycocotools' loadRes does)
    kept = [i + 1 for i, r in enumerate(results) if r["image_id"] != image and r["category_id"] != category]
    assert dt2["id"].tolist() == kept and len(kept) < len(results)
    with _quiet():
        again = dt2.detection.evaluate(ground_truth=gt2, iou_type=iou_type)
    np.testing.assert_allclose(_stats(again), expected, rtol=0, atol=1e-12)


def test_unlisted_results_without_boxes_are_left_out_before_their_masks_are_drawn():
    annotations = {
        "images": [{"id": 1, "height": 10, "width": 10}],
        "categories": [{"id": 1, "name": "a"}],
        "annotations": [
            {
                "id": 1,
                "image_id": 1,
                "category_id": 1,
                "bbox": [0, 0, 4, 4],
                "area": 16,
                "iscrowd": 0,
                "segmentation": [[0, 0, 4, 0, 4, 4, 0, 4]],
            },
            {
                "id": 2,
                "image_id": 9,
                "category_id": 1,
                "bbox": [0, 0, 4, 4],
                "area": 16,
                "iscrowd": 0,
                "segmentation": [[0, 0, 4, 0, 4, 4, 0, 4]],
            },
        ],
    }
    polygon = [[0, 0, 4, 0, 4, 4, 0, 4]]
    results = [
        {"image_id": 1, "category_id": 1, "segmentation": polygon, "score": 0.9},
        {"image_id": 9, "category_id": 1, "segmentation": polygon, "score": 0.8},  # no size known
        {"image_id": 1, "category_id": 5, "segmentation": polygon, "score": 0.7},
    ]
    with pytest.warns(pdmetrics.ExcludedRowsWarning, match="1 of 2 ground-truth.*2 of 3 results") as caught:
        gt, dt = read_coco(annotations, results)
    assert len(caught) == 1
    assert dt["id"].tolist() == [1] and dt[["x", "y", "w", "h"]].to_numpy().tolist() == [[0, 0, 4, 4]]
    assert gt["id"].tolist() == [1]
    table = dt.detection.evaluate(ground_truth=gt, iou_type="segm", area_ranges={"all": (0, 1e10)})
    np.testing.assert_allclose(table["value"], 1.0)


def test_a_file_with_everything_listed_warns_nothing():
    annotations, results = _val2014("instances_val2014_fakebbox100_results.json")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gt, dt = read_coco(annotations, results)
    assert len(gt) == len(annotations["annotations"]) and len(dt) == len(results)
    # no 'images' or 'categories' list: nothing is left out
    bare = {"annotations": annotations["annotations"]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gt, _ = read_coco(bare)
    assert len(gt) == len(annotations["annotations"])


def _pycocotools_without_ground_truth(dataset: dict, results: list, iou_type: str):
    """pycocotools' stats and printed lines (loadRes cannot take an empty list: a result COCO by hand)."""
    coco = pytest.importorskip("pycocotools.coco")
    cocoeval = pytest.importorskip("pycocotools.cocoeval")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        gt = coco.COCO()
        gt.dataset = copy.deepcopy(dataset)
        gt.createIndex()
        if results:
            dt = gt.loadRes(copy.deepcopy(results))
        else:
            dt = coco.COCO()
            dt.dataset = {**copy.deepcopy(dataset), "annotations": []}
            dt.createIndex()
        evaluator = cocoeval.COCOeval(gt, dt, iou_type)
        evaluator.evaluate()
        evaluator.accumulate()
        evaluator.summarize()
    return evaluator.stats, printed.getvalue()


NO_ANNOTATIONS = {
    "images": [{"id": 1, "height": 20, "width": 20}, {"id": 2, "height": 20, "width": 20}],
    "categories": [{"id": 1, "name": "a"}],
    "annotations": [],
}
SOME_RESULTS = [
    {
        "image_id": 1,
        "category_id": 1,
        "bbox": [0, 0, 5, 5],
        "score": 0.9,
        "segmentation": [[0, 0, 5, 0, 5, 5, 0, 5]],
    },
    {
        "image_id": 2,
        "category_id": 1,
        "bbox": [2, 2, 5, 5],
        "score": 0.4,
        "segmentation": [[2, 2, 7, 2, 7, 7, 2, 7]],
    },
]


@pytest.mark.parametrize("iou_type", ["bbox", "segm"])
@pytest.mark.parametrize("results", [SOME_RESULTS, []], ids=["detections", "no-detections"])
def test_a_file_listing_images_without_annotations_gives_pycocotools_minus_ones(iou_type, results):
    expected, printed = _pycocotools_without_ground_truth(NO_ANNOTATIONS, results, iou_type)
    np.testing.assert_array_equal(expected, [-1.0] * 12)
    assert printed.count("= -1.000") == 12
    gt, dt = read_coco(NO_ANNOTATIONS, results)
    with pytest.warns(UndefinedMetricWarning, match=r"No label has ground truth.*pycocotools prints -1"):
        table = dt.detection.evaluate(ground_truth=gt, iou_type=iou_type)
    np.testing.assert_array_equal(_stats(table), expected)
    assert table["value"].isna().all()


@pytest.mark.parametrize("iou_type", ["bbox", "segm"])
def test_per_label_tables_without_ground_truth(iou_type):
    gt, dt = read_coco(NO_ANNOTATIONS, SOME_RESULTS)
    for method, kind in (("average_precision", "AP"), ("average_recall", "AR")):
        with pytest.warns(UndefinedMetricWarning, match="no ground truth"):
            table = getattr(dt.detection, method)(ground_truth=gt, iou_type=iou_type)
        assert table["label"].tolist() == [1, "(all)"] and table["N"].tolist() == [0, 0]
        assert table["n_detections"].tolist() == [2, 2] and table[kind].isna().all()
        with pytest.warns(UndefinedMetricWarning, match="no label to evaluate"):
            empty = getattr(dt.iloc[:0].detection, method)(ground_truth=gt, iou_type=iou_type)
        assert empty["label"].tolist() == ["(all)"] and empty[kind].isna().all()
    assert dt.detection.pr_curve(ground_truth=gt, iou_type=iou_type).empty
    matches = dt.detection.match(ground_truth=gt, iou_type=iou_type)
    assert len(matches) == 2 * 10 and not matches["tp"].any() and matches["ground_truth"].eq(-1).all()
    assert dt.iloc[:0].detection.match(ground_truth=gt, iou_type=iou_type).empty
    if iou_type == "bbox":
        confusion = dt.detection.confusion(ground_truth=gt, score_thresholds=[0.5])
        assert confusion[["tp", "fp", "fp_hallucination", "fn"]].to_numpy().tolist() == [[0, 1, 1, 0]]
        assert dt.iloc[:0].detection.confusion(ground_truth=gt).empty


def test_a_ground_truth_with_id_0_counts_where_pycocotools_drops_it():
    """pycocotools stores the matched ground truth's id per detection, 0 meaning "none": a
    detection matched to the ground truth whose ``id`` is 0 counts as a false positive there.
    pdmetrics matches rows, not ids: its numbers are pycocotools' on the file renumbered."""
    dataset = copy.deepcopy(SMALL_COCO)
    dataset["annotations"][0]["id"] = 0  # the non-crowd cat matched by the 0.9 detection
    renumbered = copy.deepcopy(SMALL_COCO)
    renumbered["annotations"][0]["id"] = 99
    zero = pycocotools_stats(dataset, SMALL_RESULTS)
    reference = pycocotools_stats(renumbered, SMALL_RESULTS)
    assert zero[1] < reference[1]  # AP@0.5: pycocotools loses the match of id 0
    gt, dt = read_coco(dataset, SMALL_RESULTS)
    assert gt["id"].tolist()[0] == 0
    table = _evaluate(gt, dt, undefined=True)
    np.testing.assert_allclose(_stats(table), reference, rtol=0, atol=1e-12)
    gt99, dt99 = read_coco(renumbered, SMALL_RESULTS)
    pd.testing.assert_frame_equal(_evaluate(gt99, dt99, undefined=True), table)
    matches = dt.detection.match(ground_truth=gt, iou_thresholds=[0.5])
    assert matches.loc[matches["score"] == 0.9, "ground_truth"].tolist() == [0]  # row 0: id 0
    assert matches.loc[matches["score"] == 0.9, "tp"].tolist() == [True]


@pytest.mark.parametrize("enabled", [True, False])
@pytest.mark.parametrize("content", ['{"images": [], "annotations": [], "categories": []}', "{not json"])
def test_reading_a_file_leaves_the_garbage_collector_as_it_was(tmp_path, enabled, content):
    """The collector is paused while a file is parsed, and left as it was after, even when the
    file is not valid JSON."""
    path = tmp_path / "gt.json"
    path.write_text(content)
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        with contextlib.suppress(Exception):
            read_coco(path)
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()
