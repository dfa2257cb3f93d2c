"""Instance segmentation (``iou_type="segm"``): pycocotools' numbers from COCO files and frames."""

from __future__ import annotations

import contextlib
import copy
import json
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import assert_frame_unchanged, conformance_path, pycocotools_stats
from hypothesis import given, settings
from hypothesis import strategies as st

import pdmetrics  # noqa: F401
from pdmetrics.detection import evaluate
from pdmetrics.detection.masks import mask_runs, rle_encode
from pdmetrics.errors import ColumnNotFoundError, InvalidInputError, PdmetricsWarning, UndefinedMetricWarning
from pdmetrics.io import read_coco

VAL2014_SEGM = [
    0.3195452758576433,
    0.5622883972521636,
    0.29892653412086784,
    0.3873740315997838,
    0.31018272403369485,
    0.3269339071005138,
    0.2682297225711534,
    0.41544868114906375,
    0.4168394992198818,
    0.4694498622754236,
    0.37675922666197265,
    0.3814715099715099,
]


def _stats(table: pd.DataFrame) -> np.ndarray:
    return np.where(table["value"].isna(), -1.0, table["value"].to_numpy(dtype=float))


@contextlib.contextmanager
def _quiet():
    """Undefined area ranges warn on small files; the numbers are what is checked."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        yield


def test_coco_val2014_100_segm_stats():
    folder = conformance_path("coco", "coco_val2014_100")
    gt, dt = read_coco(
        folder / "instances_val2014_100.json", folder / "instances_val2014_fakesegm100_results.json"
    )
    before_gt, before_dt = gt.copy(), dt.copy()
    table = dt.detection.evaluate(ground_truth=gt, iou_type="segm")
    np.testing.assert_allclose(_stats(table), VAL2014_SEGM, rtol=0, atol=1e-12)
    assert_frame_unchanged(before_gt, gt)
    assert_frame_unchanged(before_dt, dt)


def test_read_coco_keeps_segmentations_sizes_and_result_areas():
    folder = conformance_path("coco", "coco_val2014_100")
    annotations = json.loads((folder / "instances_val2014_100.json").read_text())
    results = json.loads((folder / "instances_val2014_fakesegm100_results.json").read_text())
    gt, dt = read_coco(annotations, results)
    assert gt["segmentation"].tolist() == [a["segmentation"] for a in annotations["annotations"]]
    assert dt["segmentation"].tolist() == [r["segmentation"] for r in results]
    roles = gt.attrs["pdmetrics.coco"]
    assert roles["heights"][:3] == tuple(i["height"] for i in annotations["images"][:3])
    # a result file without boxes: pycocotools' loadRes gives each result its mask's box and area
    mask = pytest.importorskip("pycocotools.mask")
    rles = [r["segmentation"] for r in results]
    np.testing.assert_array_equal(dt[["x", "y", "w", "h"]].to_numpy(), mask.toBbox(rles))
    np.testing.assert_array_equal(dt["area"].to_numpy(), [float(mask.area(r)) for r in rles])


def test_detectron2_small_segm_stats():
    # results with both a box and a mask: pycocotools takes each result's area from its box
    folder = conformance_path("coco", "detectron2_small")
    gt, dt = read_coco(folder / "gt.json", folder / "dt.json")
    expected = json.loads((folder / "expected.json").read_text())["segm"]
    assert expected == [0.7252475247524752, 1.0, 1.0, 0.8, 0.7, -1.0, 0.35, 0.75, 0.75, 0.8, 0.7, -1.0]
    with pytest.warns(UndefinedMetricWarning, match="pycocotools prints -1"):
        table = dt.detection.evaluate(ground_truth=gt, iou_type="segm")
    np.testing.assert_allclose(_stats(table), expected, rtol=0, atol=1e-12)


def test_faster_coco_eval_small_segm_with_polygon_detections():
    # faster-coco-eval's test drops the boxes of these polygon results; the polygons are
    # drawn on the images of the annotation file
    folder = conformance_path("coco", "faster_coco_eval_small")
    results = json.loads((folder / "dt_dataset.json").read_text())
    results = [{k: v for k, v in r.items() if k != "bbox"} for r in results]
    gt, dt = read_coco(folder / "gt_dataset.json", results)
    with _quiet():
        table = dt.detection.evaluate(ground_truth=gt, iou_type="segm")
    expected = [0.6947194719471946] * 3 + [-1.0, 0.7367986798679867, 0.0, 0.6666666666666666, 0.75, 0.75]
    expected += [-1.0, 0.7916666666666666, 0.0]
    np.testing.assert_allclose(_stats(table), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "folder,annotations,results",
    [
        ("coco_val2014_100", "instances_val2014_100.json", "instances_val2014_fakesegm100_results.json"),
        ("detectron2_small", "gt.json", "dt.json"),
        ("faster_coco_eval_small", "gt_dataset.json", "dt_dataset.json"),
    ],
)
def test_natural_path_equals_pycocotools_segm_on_the_conformance_files(folder, annotations, results):
    path = conformance_path("coco", folder)
    gt, dt = read_coco(path / annotations, path / results)
    with _quiet():
        table = dt.detection.evaluate(ground_truth=gt, iou_type="segm")
    dataset = json.loads((path / annotations).read_text())
    expected = pycocotools_stats(dataset, json.loads((path / results).read_text()), iou_type="segm")
    np.testing.assert_allclose(_stats(table), expected, rtol=0, atol=1e-12)


def test_the_other_tables_take_masks():
    folder = conformance_path("coco", "coco_val2014_100")
    gt, dt = read_coco(
        folder / "instances_val2014_100.json", folder / "instances_val2014_fakesegm100_results.json"
    )
    with _quiet():
        ap = dt.detection.average_precision(ground_truth=gt, iou_type="segm", by=None)
        ar = dt.detection.average_recall(ground_truth=gt, iou_type="segm", by=None)
        curve = dt.detection.pr_curve(ground_truth=gt, iou_type="segm")
        matches = dt.detection.match(ground_truth=gt, iou_type="segm", iou_thresholds=[0.5])
        confusion = dt.detection.confusion(ground_truth=gt, iou_type="segm")
    # AP over IoU 0.50:0.95 and area "all" with 100 detections is the first COCO number
    assert ap["AP"].mean() == pytest.approx(VAL2014_SEGM[0], abs=1e-12)
    assert ar["AR"].mean() == pytest.approx(VAL2014_SEGM[8], abs=1e-12)
    assert len(curve) and len(confusion)
    # the IoU of each match is pycocotools' mask IoU of that pair
    mask = pytest.importorskip("pycocotools.mask")
    pairs = matches.dropna(subset=["iou"])
    assert len(pairs) > 100
    roles = gt.attrs["pdmetrics.coco"]
    size_of = {i: (h, w) for i, h, w in zip(roles["images"], roles["heights"], roles["widths"])}

    def rle(segmentation, image):
        if isinstance(segmentation, list):
            return mask.merge(mask.frPyObjects(segmentation, *size_of[image]))
        if isinstance(segmentation["counts"], list):
            return mask.frPyObjects(segmentation, *size_of[image])
        return segmentation

    dt_rows = dt.iloc[pairs["detection"].to_numpy()]
    gt_rows = gt.iloc[pairs["ground_truth"].to_numpy()]
    expected = [
        mask.iou([rle(d, i)], [rle(g, i)], [bool(c)])[0, 0]
        for d, g, c, i in zip(
            dt_rows["segmentation"], gt_rows["segmentation"], gt_rows["iscrowd"], gt_rows["image"]
        )
    ]
    np.testing.assert_array_equal(pairs["iou"].to_numpy(), expected)


# ----------------------------------------------------------------------------------------------
# random COCO files, checked against pycocotools

RANGES = {"all": (0, 1e10), "small": (0, 40), "big": (40, 1e10)}


@st.composite
def _polygon(draw, height, width):
    """One or two parts, each a triangle or a quadrilateral, possibly crossing the border."""
    parts = []
    for _ in range(draw(st.integers(1, 2))):
        n = draw(st.integers(3, 4))
        xs = [draw(st.floats(-2, width + 2, allow_nan=False).map(lambda v: round(v, 1))) for _ in range(n)]
        ys = [draw(st.floats(-2, height + 2, allow_nan=False).map(lambda v: round(v, 1))) for _ in range(n)]
        parts.append([c for xy in zip(xs, ys) for c in xy])
    return parts


@st.composite
def _dense(draw, height, width):
    """A rectangle mask (maybe empty, maybe touching the border)."""
    x0, x1 = sorted(draw(st.integers(0, width)) for _ in range(2))
    y0, y1 = sorted(draw(st.integers(0, height)) for _ in range(2))
    array = np.zeros((height, width), dtype=bool)
    array[y0:y1, x0:x1] = True
    return array


@st.composite
def _segm_files(draw):
    n_images = draw(st.integers(1, 3))
    sizes = {i: (draw(st.integers(4, 14)), draw(st.integers(4, 14))) for i in range(1, n_images + 1)}
    annotations = []
    for index in range(draw(st.integers(1, 7))):
        image = draw(st.integers(1, n_images))
        h, w = sizes[image]
        crowd = draw(st.sampled_from([0, 0, 0, 1]))
        if crowd:
            # COCO files hold crowd regions as uncompressed RLE
            counts = mask_runs([draw(_dense(h, w))]).counts()[0]
            segmentation = {"size": [h, w], "counts": [int(c) for c in counts]}
        else:
            segmentation = draw(_polygon(h, w))
        area = float(mask_runs([segmentation], h, w).area()[0])
        annotations.append(
            {
                "id": index + 1,
                "image_id": image,
                "category_id": draw(st.integers(1, 2)),
                "segmentation": segmentation,
                "bbox": [0.0, 0.0, 1.0, 1.0],
                "area": draw(st.sampled_from([area, area, 10.0, 90.0])),
                "iscrowd": crowd,
            }
        )
    results = []
    for _ in range(draw(st.integers(1, 8))):
        image = draw(st.integers(1, n_images))
        h, w = sizes[image]
        results.append(
            {
                "image_id": image,
                "category_id": draw(st.integers(1, 2)),
                "segmentation": rle_encode(draw(_dense(h, w))),
                "score": draw(st.sampled_from([0.1, 0.5, 0.5, 0.9])),
            }
        )
    dataset = {
        "images": [{"id": i, "height": h, "width": w} for i, (h, w) in sizes.items()],
        "categories": [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}],
        "annotations": annotations,
    }
    return dataset, results


@settings(max_examples=40, deadline=None)
@given(files=_segm_files())
def test_natural_path_equals_pycocotools_segm_on_random_files(files):
    dataset, results = files
    gt, dt = read_coco(copy.deepcopy(dataset), copy.deepcopy(results))
    with _quiet():
        table = dt.detection.evaluate(ground_truth=gt, iou_type="segm", area_ranges=RANGES)
    reference = pycocotools_stats(dataset, results, RANGES, iou_type="segm")
    np.testing.assert_allclose(_stats(table), reference, rtol=0, atol=1e-12)


# ----------------------------------------------------------------------------------------------
# frames built by hand


def _square(x0, y0, side):
    return [[x0, y0, x0 + side, y0, x0 + side, y0 + side, x0, y0 + side]]


def _frames():
    gt = pd.DataFrame(
        {
            "image": [1, 1, 2],
            "label": ["cat", "dog", "cat"],
            "segmentation": [_square(0, 0, 4), _square(5, 5, 4), _square(2, 2, 6)],
        }
    )
    dt = pd.DataFrame(
        {
            "image": [1, 1, 2],
            "label": ["cat", "dog", "cat"],
            "segmentation": [_square(0, 0, 4), _square(6, 6, 4), _square(2, 2, 5)],
            "score": [0.9, 0.8, 0.7],
        }
    )
    return gt, dt


def test_polygons_arrays_and_rles_in_one_column_give_the_same_numbers():
    gt, dt = _frames()
    sizes = {1: (12, 12), 2: (12, 12)}
    polygons = evaluate(
        dt, ground_truth=gt, iou_type="segm", image_sizes=sizes, area_ranges={"all": (0, 1e10)}
    )
    runs = mask_runs(dt["segmentation"].tolist(), 12, 12)
    as_arrays = dt.assign(segmentation=runs.to_masks())
    cells = [runs.to_rle()[0], runs.to_masks()[1], {"size": [12, 12], "counts": runs.counts()[2].tolist()}]
    mixed = dt.assign(segmentation=pd.Series(cells, dtype=object))
    frame_sizes = pd.DataFrame({"height": [12, 12], "width": [12, 12]}, index=[1, 2])
    for other in (as_arrays, mixed):
        table = evaluate(
            other, ground_truth=gt, iou_type="segm", image_sizes=frame_sizes, area_ranges={"all": (0, 1e10)}
        )
        pd.testing.assert_frame_equal(table, polygons)
    # IoUs 1 and 25/36 for the cats, 9/23 for the dog: AP@0.5 is (1 + 0) / 2
    assert polygons["value"].iloc[1] == 0.5


def test_a_missing_cell_uses_the_box_drawn_as_a_mask():
    gt, dt = _frames()
    dt = dt.assign(x=[0.0, 6.0, 2.0], y=[0.0, 6.0, 2.0], w=[4.0, 4.0, 5.0], h=[4.0, 4.0, 5.0])
    gt = gt.assign(x=0.0, y=0.0, w=1.0, h=1.0)
    with_boxes = dt.assign(segmentation=[None, dt["segmentation"][1], np.nan])
    sizes = {1: (12, 12), 2: (12, 12)}
    with _quiet():
        expected = evaluate(dt, ground_truth=gt, iou_type="segm", image_sizes=sizes)
        table = evaluate(with_boxes, ground_truth=gt, iou_type="segm", image_sizes=sizes)
    pd.testing.assert_frame_equal(table, expected)


def test_masks_need_no_box_columns_and_frames_stay_unchanged():
    gt, dt = _frames()
    before_gt, before_dt = gt.copy(), dt.copy()
    with _quiet():
        table = dt.detection.match(
            ground_truth=gt, iou_type="segm", image_sizes={1: (12, 12), 2: (12, 12)}, iou_thresholds=[0.3]
        )
    first = table.sort_values("detection")
    # 16/16 pixels; 9 shared of 16 + 16 - 9; 25 shared of 36 + 25 - 25
    assert first["iou"].tolist() == [1.0, 9 / 23, 25 / 36]
    assert_frame_unchanged(before_gt, gt)
    assert_frame_unchanged(before_dt, dt)


# ----------------------------------------------------------------------------------------------
# bad input: a clear error naming the row


SIZES = {1: (12, 12), 2: (12, 12)}


@pytest.mark.parametrize(
    "table,cell,match",
    [
        ("dt", [[0, 0, 4, 0]], r"detections table.*row 1 \(0-based\).*3 points"),
        (
            "gt",
            {"size": [12, 12], "counts": [3, 4]},
            r"ground-truth table.*row 1 \(0-based\): its RLE counts sum to 7 pixels but its size "
            r"\[12, 12\] has 144",
        ),
        (
            "dt",
            np.zeros((5, 5), dtype=bool),
            r"detections table.*row 1 \(0-based\) has shape \(5, 5\) but its image is 12 x 12",
        ),
        ("gt", "not a mask", r"ground-truth table.*row 1 \(0-based\) is a str"),
    ],
)
def test_bad_masks_name_the_row(table, cell, match):
    gt, dt = _frames()
    frame = {"gt": gt, "dt": dt}[table]
    frame["segmentation"] = frame["segmentation"].astype(object)
    frame.at[1, "segmentation"] = cell
    with pytest.raises(InvalidInputError, match=match):
        evaluate(dt, ground_truth=gt, iou_type="segm", image_sizes=SIZES)


def test_a_polygon_on_an_image_without_size_names_the_row_and_the_fix():
    gt, dt = _frames()
    with pytest.raises(
        InvalidInputError, match=r"Row 0 \(0-based\) of the ground-truth table holds a polygon"
    ):
        evaluate(dt, ground_truth=gt, iou_type="segm")
    with pytest.raises(InvalidInputError, match="image 2.*image_sizes="):
        evaluate(dt, ground_truth=gt, iou_type="segm", image_sizes={1: (12, 12)})


def test_a_missing_cell_without_boxes_names_the_row():
    gt, dt = _frames()
    dt.at[2, "segmentation"] = None
    with pytest.raises(
        InvalidInputError, match=r"Row 2 \(0-based\) of the detections table has no segmentation"
    ):
        evaluate(dt, ground_truth=gt, iou_type="segm", image_sizes=SIZES)


def test_bad_options():
    gt, dt = _frames()
    with pytest.raises(InvalidInputError, match="iou_type"):
        evaluate(dt, ground_truth=gt, iou_type="mask", image_sizes=SIZES)
    with pytest.raises(ColumnNotFoundError, match="masks"):
        evaluate(dt, ground_truth=gt, iou_type="segm", segmentation="masks", image_sizes=SIZES)
    with pytest.raises(InvalidInputError, match="image_sizes=.*got list"):
        evaluate(dt, ground_truth=gt, iou_type="segm", image_sizes=[(12, 12)])
    with pytest.raises(InvalidInputError, match="image 1 maps to"):
        evaluate(dt, ground_truth=gt, iou_type="segm", image_sizes={1: 12, 2: (12, 12)})
    with pytest.raises(InvalidInputError, match="'width' column"):
        evaluate(dt, ground_truth=gt, iou_type="segm", image_sizes=pd.DataFrame({"height": [12]}, index=[1]))


def test_read_coco_result_polygon_without_image_size_is_an_error():
    dataset = {
        "images": [{"id": 1}],
        "categories": [{"id": 1}],
        "annotations": [
            {"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 2, 2], "segmentation": _square(0, 0, 2)}
        ],
    }
    results = [{"image_id": 1, "category_id": 1, "segmentation": _square(0, 0, 2), "score": 0.5}]
    with pytest.raises(InvalidInputError, match="results_json: entry 0.*no 'height'/'width'"):
        read_coco(dataset, results)


def test_the_default_on_a_masks_only_result_file_says_it_scores_boxes():
    # pycocotools' COCOeval scores masks by default; evaluate() scores boxes: never silently
    folder = conformance_path("coco", "coco_val2014_100")
    gt, dt = read_coco(
        folder / "instances_val2014_100.json", folder / "instances_val2014_fakesegm100_results.json"
    )
    with pytest.warns(PdmetricsWarning, match=r"masks and no boxes.*iou_type='segm'"):
        boxes = dt.detection.evaluate(ground_truth=gt)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        explicit = dt.detection.evaluate(ground_truth=gt, iou_type="bbox")
        masks = dt.detection.evaluate(ground_truth=gt, iou_type="segm")
    pd.testing.assert_frame_equal(boxes, explicit)
    # the box numbers are pycocotools' iouType="bbox" on the same files
    expected = pycocotools_stats(
        json.loads((folder / "instances_val2014_100.json").read_text()),
        json.loads((folder / "instances_val2014_fakesegm100_results.json").read_text()),
    )
    np.testing.assert_allclose(_stats(boxes), expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(_stats(masks), VAL2014_SEGM, rtol=0, atol=1e-12)
