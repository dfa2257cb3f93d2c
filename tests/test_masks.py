"""Mask kernels (pdmetrics.detection.masks): COCO RLE, polygon rasterization, area, bbox and
mask IoU, equal to pycocotools.mask bit for bit; round trips; bad input."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import conformance_path
from hypothesis import given, settings
from hypothesis import strategies as st

from pdmetrics.detection import masks as mask_kernels
from pdmetrics.detection.mask_inputs import segmentation_runs
from pdmetrics.detection.masks import (
    MaskRuns,
    box_to_rle,
    mask_area,
    mask_bbox,
    mask_iou,
    mask_runs,
    paired_mask_iou,
    polygon_to_mask,
    polygon_to_rle,
    rle_decode,
    rle_encode,
)
from pdmetrics.errors import InvalidInputError
from pdmetrics.io import read_coco

SETTINGS = settings(max_examples=150, deadline=None)
# pycocotools 2.0.11 under numpy 2 warns about its own __array__
pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")


def coco():
    return pytest.importorskip("pycocotools.mask")


def coco_encode(mask: np.ndarray) -> dict:
    return coco().encode(np.asfortranarray(mask.astype(np.uint8)))


def random_mask(rng: np.random.Generator, h: int, w: int, style: int) -> np.ndarray:
    """Noise, a rectangle (often touching a border), empty or full."""
    if style == 0:
        return rng.random((h, w)) < rng.random()
    if style == 1:
        mask = np.zeros((h, w), dtype=bool)
        top, left = rng.integers(0, h), rng.integers(0, w)
        mask[top : rng.integers(top, h + 1), left : rng.integers(left, w + 1)] = True
        return mask
    return np.full((h, w), style == 3)


masks_args = dict(
    seed=st.integers(0, 2**32 - 1), h=st.integers(1, 25), w=st.integers(1, 25), style=st.integers(0, 3)
)


# ----------------------------------------------------------------------------------------------
# RLE encode / decode


@SETTINGS
@given(**masks_args)
def test_encode_and_decode_equal_pycocotools(seed, h, w, style):
    mask = random_mask(np.random.default_rng(seed), h, w, style)
    ours, theirs = rle_encode(mask), coco_encode(mask)
    assert ours == {"size": [h, w], "counts": theirs["counts"].decode()}
    np.testing.assert_array_equal(rle_decode(theirs), mask)
    np.testing.assert_array_equal(coco().decode({"size": [h, w], "counts": ours["counts"].encode()}), mask)


@SETTINGS
@given(**masks_args)
def test_round_trip(seed, h, w, style):
    mask = random_mask(np.random.default_rng(seed), h, w, style)
    rle = rle_encode(mask)
    decoded = rle_decode(rle)
    assert decoded.dtype == bool and decoded.shape == (h, w)
    np.testing.assert_array_equal(decoded, mask)
    # bytes counts and uncompressed counts decode the same
    np.testing.assert_array_equal(rle_decode({"size": [h, w], "counts": rle["counts"].encode()}), mask)
    counts = mask_runs([mask]).counts()[0]
    np.testing.assert_array_equal(rle_decode({"size": [h, w], "counts": counts.tolist()}), mask)
    assert int(mask_area([rle])[0]) == int(mask.sum())


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), h=st.integers(1, 12), w=st.integers(1, 12), zeros=st.booleans())
def test_uncompressed_rle_equals_pycocotools(seed, h, w, zeros):
    """Uncompressed counts (zero-length runs allowed, as COCO files may hold them)."""
    cm = coco()
    rng = np.random.default_rng(seed)
    cuts = np.sort(rng.integers(0, h * w + 1, rng.integers(0, 8)))
    counts = np.diff(np.concatenate(([0], cuts, [h * w])))
    if zeros:
        counts = np.insert(counts, rng.integers(0, counts.size + 1), 0)
    segmentation = {"size": [h, w], "counts": counts.tolist()}
    theirs = cm.frPyObjects(segmentation, h, w)
    np.testing.assert_array_equal(rle_decode(segmentation), cm.decode(theirs).astype(bool))
    assert int(mask_area([segmentation])[0]) == int(cm.area(theirs))
    other = {"size": [h, w], "counts": rle_encode(rng.random((h, w)) < 0.5)["counts"].encode()}
    np.testing.assert_array_equal(
        mask_iou([segmentation], [other]), np.asarray(cm.iou([theirs], [other], [0])).reshape(1, 1)
    )


def test_large_counts_round_trip():
    # counts needing many characters (and negative differences) in COCO's string format
    mask = np.zeros((300, 700), dtype=bool)
    mask[:, 3] = True
    mask[5:250, 400:650] = True
    mask[299, 699] = True
    rle = rle_encode(mask)
    np.testing.assert_array_equal(rle_decode(rle), mask)
    cm = pytest.importorskip("pycocotools.mask")
    assert rle["counts"] == cm.encode(np.asfortranarray(mask.astype(np.uint8)))["counts"].decode()


@pytest.mark.parametrize(
    ("mask", "counts"),
    [
        (np.zeros((1, 1), bool), "1"),
        (np.ones((1, 1), bool), "01"),
        (np.ones((2, 2), bool), "04"),
        (np.array([[0, 1], [0, 1]], bool), "22"),
    ],
)
def test_tiny_and_full_masks(mask, counts):
    assert rle_encode(mask)["counts"] == counts
    np.testing.assert_array_equal(rle_decode(rle_encode(mask)), mask)


def test_uncompressed_rle_with_zero_runs_is_canonicalized():
    # a zero-length run of 0s between two runs of 1s joins them
    runs = mask_runs([{"size": [2, 3], "counts": [1, 2, 0, 1, 2]}])
    assert runs.starts.tolist() == [1] and runs.stops.tolist() == [4]
    assert (
        runs.to_rle()[0]["counts"] == rle_encode(rle_decode({"size": [2, 3], "counts": [1, 3, 2]}))["counts"]
    )


def test_inputs_are_not_modified():
    mask = np.zeros((4, 5), dtype=bool)
    mask[1:3, 2:] = True
    mask.flags.writeable = False
    rle = rle_encode(mask)
    counts = [2, 3, 15]
    segmentation = {"size": [4, 5], "counts": counts}
    mask_area([segmentation])
    assert counts == [2, 3, 15] and segmentation == {"size": [4, 5], "counts": [2, 3, 15]}
    np.testing.assert_array_equal(rle_decode(rle), mask)


# ----------------------------------------------------------------------------------------------
# polygons


coordinate = st.one_of(
    st.floats(-6, 36, allow_nan=False, allow_infinity=False),
    st.integers(-6, 36).map(float),  # points on pixel borders
    st.integers(-12, 72).map(lambda v: v / 2),  # pixel centres and borders
)
polygon = st.integers(3, 9).flatmap(lambda k: st.lists(coordinate, min_size=2 * k, max_size=2 * k))


@SETTINGS
@given(parts=st.lists(polygon, min_size=1, max_size=4), h=st.integers(1, 30), w=st.integers(1, 30))
def test_polygon_rasterization_equals_pycocotools(parts, h, w):
    cm = coco()
    theirs = cm.merge(cm.frPyObjects(parts, h, w))
    ours = polygon_to_rle(parts, height=h, width=w)
    assert ours == {"size": [h, w], "counts": theirs["counts"].decode()}
    np.testing.assert_array_equal(polygon_to_mask(parts, height=h, width=w), cm.decode(theirs).astype(bool))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 12))
def test_many_polygons_at_once_equal_pycocotools(seed, n):
    """Batched rasterization (several images sizes, concave/self-intersecting shapes, parts
    outside the image) gives each segmentation's own pycocotools RLE."""
    cm = coco()
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 60, (n, 2))
    segmentations = []
    for (h, w), parts in zip(sizes.tolist(), rng.integers(1, 4, n).tolist()):
        segmentations.append(
            [
                (rng.uniform(-10, max(h, w) + 10, 2 * k) * rng.choice([1.0, 0.0], p=[0.9, 0.1]))
                .round(int(rng.integers(0, 3)))
                .tolist()
                for k in rng.integers(3, 12, parts).tolist()
            ]
        )
    ours = mask_runs(segmentations, height=sizes[:, 0], width=sizes[:, 1]).to_rle()
    for (h, w), segmentation, rle in zip(sizes.tolist(), segmentations, ours):
        assert rle["counts"] == cm.merge(cm.frPyObjects(segmentation, h, w))["counts"].decode()


def star_segmentations(rng, n: int, sizes: np.ndarray) -> list:
    """Star-shaped instances of 1 to 3 parts, radius 1 to 200 pixels (long wide and tall edges,
    steep and shallow slopes, parts reaching out of the image)."""
    segmentations = []
    for (h, w), parts in zip(sizes.tolist(), rng.choice([1, 1, 2, 3], n).tolist()):
        segmentation = []
        for _ in range(parts):
            k = int(rng.integers(3, 17))
            angle = np.sort(rng.uniform(0, 2 * np.pi, k))
            radius = np.exp(rng.uniform(0, np.log(200))) * rng.uniform(0.3, 1.0, k)
            centre = rng.uniform(-20, [w + 20, h + 20])
            xy = np.stack([centre[0] + radius * np.cos(angle), centre[1] + radius * np.sin(angle)], axis=1)
            segmentation.append(xy.round(int(rng.integers(0, 4))).reshape(-1).tolist())
        segmentations.append(segmentation)
    return segmentations


def test_large_batch_of_polygons_equals_pycocotools():
    """One batch of 600 instances over images of several sizes: every edge-walk case the
    vectorized crossings take (wide and tall edges, guesses corrected), unions of parts mixed
    with single parts, each equal to pycocotools' RLE."""
    cm = coco()
    rng = np.random.default_rng(20261126)
    sizes = rng.choice([[480, 640], [427, 640], [640, 480], [37, 513], [300, 7]], 600)
    segmentations = star_segmentations(rng, 600, sizes)
    ours = mask_runs(segmentations, height=sizes[:, 0], width=sizes[:, 1]).to_rle()
    for (h, w), segmentation, rle in zip(sizes.tolist(), segmentations, ours):
        assert rle["counts"] == cm.merge(cm.frPyObjects(segmentation, h, w))["counts"].decode()


def test_polygons_spanning_more_than_int32_in_one_batch():
    """Polygons whose boxes add up to more than 2**31 pixels (the toggles then sort by int64
    keys) give the masks each gives alone (int32 keys), equal to pycocotools'."""
    cm = coco()
    side = 32000
    polygons = [[[5.5, 3.2, side - 2.7, 11.0, side - 40.3, side - 1.5, 20.0, side - 9.9]]] * 3 + [
        [[100.4, 200.6, 900.2, 250.0, 400.0, 700.7]]
    ]
    together = mask_runs(polygons, height=side, width=side)
    alone = [mask_runs([p], height=side, width=side) for p in polygons]
    assert together.starts.tolist() == [v for a in alone for v in a.starts.tolist()]
    assert together.stops.tolist() == [v for a in alone for v in a.stops.tolist()]
    expected = cm.merge(cm.frPyObjects(polygons[0], side, side))["counts"].decode()
    assert together.to_rle()[0]["counts"] == expected


def test_uniform_batches_equal_mixed_batches():
    """All-polygon, all-compressed and all-uncompressed batches (the fast kind check) give the
    masks the same segmentations give one at a time."""
    rng = np.random.default_rng(7)
    sizes = np.array([[40, 50]] * 30)
    polygons = star_segmentations(rng, 30, sizes)
    runs = mask_runs(polygons, height=40, width=50)
    compressed = runs.to_rle()
    uncompressed = [{"size": [40, 50], "counts": c.tolist()} for c in runs.counts()]
    for batch in (polygons, compressed, uncompressed):
        together = mask_runs(batch, height=40, width=50)
        alone = [mask_runs([item], height=40, width=50) for item in batch]
        assert together.starts.tolist() == [v for a in alone for v in a.starts.tolist()]
        assert together.stops.tolist() == [v for a in alone for v in a.stops.tolist()]
        assert together.area().tolist() == runs.area().tolist()


def test_missing_cells_fall_back_to_boxes():
    """None and NaN (a Python or a numpy float) cells are drawn from the row's box."""
    cells = [[[1, 1, 6, 1, 6, 5, 1, 5]], None, float("nan"), np.float64("nan")]
    frame = pd.DataFrame({"segmentation": pd.Series(cells, dtype=object)})
    boxes = np.array([[0, 0, 1, 1], [1, 2, 3, 4], [0, 0, 8, 8], [2, 2, 2, 2]], dtype=float)
    runs = segmentation_runs(
        frame,
        "segmentation",
        "detections",
        np.array([1]),
        np.zeros(4, "int64"),
        np.array([10]),
        np.array([10]),
        boxes,
        "xywh",
    )
    expected = [polygon_to_rle(cells[0], 10, 10)] + box_to_rle(boxes[1:], 10, 10)
    assert runs.to_rle() == expected


def test_polygon_examples():
    # a square from pixel border to pixel border covers the pixels inside it
    square = polygon_to_mask([[1, 1, 4, 1, 4, 3, 1, 3]], height=4, width=5)
    assert square[1:3, 1:4].all() and square.sum() == 6
    # a single flat list is one polygon; a polygon entirely outside the image is empty
    assert polygon_to_rle([1, 1, 4, 1, 4, 3, 1, 3], 4, 5) == polygon_to_rle([[1, 1, 4, 1, 4, 3, 1, 3]], 4, 5)
    assert not polygon_to_mask([[50, 50, 60, 50, 60, 60]], height=4, width=5).any()
    # a polygon covering the image fills it (touching every border)
    assert polygon_to_mask([[-5, -5, 20, -5, 20, 20, -5, 20]], height=3, width=4).all()
    # 1 x 1 image
    assert polygon_to_mask([[0, 0, 1, 0, 1, 1, 0, 1]], height=1, width=1).tolist() == [[True]]


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    h=st.integers(1, 30),
    w=st.integers(1, 30),
    n=st.integers(1, 8),
    decimals=st.integers(0, 2),
)
def test_box_rasterization_equals_pycocotools(seed, h, w, n, decimals):
    cm = coco()
    rng = np.random.default_rng(seed)
    boxes = np.column_stack([rng.uniform(-5, 35, (n, 2)), rng.uniform(0, 20, (n, 2))]).round(decimals)
    expected = [r["counts"].decode() for r in cm.frPyObjects(boxes, h, w)]
    assert [r["counts"] for r in box_to_rle(boxes, h, w)] == expected
    corners = np.column_stack([boxes[:, :2], boxes[:, :2] + boxes[:, 2:]])
    assert [r["counts"] for r in box_to_rle(corners, h, w, box_format="xyxy")] == expected


# ----------------------------------------------------------------------------------------------
# area, bbox, IoU


@pytest.mark.parametrize("batch", [1, 7, 300, 1 << 17])
def test_batches_of_any_size_give_pycocotools_masks(monkeypatch, batch):
    """The kernels that take a batch of masks at a time (decoding strings, drawing polygons,
    areas, bounds, pair intersections) give pycocotools' masks, areas, boxes and IoU whatever
    the batch size (one mask a batch, batches cutting through masks of several parts or
    images, one batch for all)."""
    cm = coco()
    rng = np.random.default_rng(batch)
    sizes = rng.choice([[40, 50], [37, 13], [5, 90]], 90)
    segmentations = star_segmentations(rng, 90, sizes)
    expected = [cm.merge(cm.frPyObjects(s, h, w)) for (h, w), s in zip(sizes.tolist(), segmentations)]
    strings = [{"size": e["size"], "counts": e["counts"].decode()} for e in expected]
    monkeypatch.setattr(mask_kernels, "BATCH", batch)
    mask_kernels._last_decoded[0] = None
    drawn = mask_runs(segmentations, height=sizes[:, 0], width=sizes[:, 1])
    assert drawn.to_rle() == strings
    decoded = mask_runs(strings)
    for field in ("height", "width", "offsets", "starts", "stops"):
        np.testing.assert_array_equal(getattr(decoded, field), getattr(drawn, field))
    assert decoded.area().tolist() == [int(cm.area(e)) for e in expected]
    np.testing.assert_array_equal(mask_bbox(decoded), np.array([cm.toBbox(e) for e in expected]))
    for size in np.unique(sizes, axis=0):
        same = np.flatnonzero((sizes == size).all(axis=1))
        dt, gt = same[::2], same[1::2]
        crowd = rng.random(gt.size) < 0.3
        theirs = np.asarray(
            cm.iou([expected[i] for i in dt], [expected[i] for i in gt], crowd.astype(np.uint8))
        )
        ours = mask_iou([strings[i] for i in dt], [strings[i] for i in gt], iscrowd=crowd)
        np.testing.assert_array_equal(ours, theirs)


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    h=st.integers(1, 20),
    w=st.integers(1, 20),
    n_dt=st.integers(0, 5),
    n_gt=st.integers(0, 5),
)
def test_area_bbox_and_iou_equal_pycocotools(seed, h, w, n_dt, n_gt):
    cm = coco()
    rng = np.random.default_rng(seed)
    dts = [random_mask(rng, h, w, int(rng.choice(4, p=[0.4, 0.4, 0.1, 0.1]))) for _ in range(n_dt)]
    gts = [random_mask(rng, h, w, int(rng.choice(4, p=[0.4, 0.4, 0.1, 0.1]))) for _ in range(n_gt)]
    crowd = rng.random(n_gt) < 0.3
    dt_rles = [coco_encode(m) for m in dts]
    gt_rles = [coco_encode(m) for m in gts]
    ours = mask_iou([rle_encode(m) for m in dts], gt_rles, iscrowd=crowd)
    assert ours.shape == (n_dt, n_gt)
    if n_dt and n_gt:
        theirs = np.asarray(cm.iou(dt_rles, gt_rles, crowd.astype(np.uint8)))
        np.testing.assert_array_equal(ours, theirs)
        # dense arrays in, and one pair at a time
        np.testing.assert_array_equal(mask_iou(dts, gts, iscrowd=crowd), theirs)
        d, g = np.meshgrid(np.arange(n_dt), np.arange(n_gt), indexing="ij")
        paired = paired_mask_iou(
            dts, gts, crowd[g.ravel()], detection_index=d.ravel(), ground_truth_index=g.ravel()
        )
        np.testing.assert_array_equal(paired, theirs.ravel())
    for masks, rles in ((dts, dt_rles), (gts, gt_rles)):
        if masks:
            np.testing.assert_array_equal(mask_area(masks), [int(cm.area(r)) for r in rles])
            np.testing.assert_array_equal(mask_bbox(masks), np.array([cm.toBbox(r) for r in rles]))


def test_iou_rules_without_reference():
    a = np.zeros((4, 4), bool)
    a[:2] = True  # rows 0-1
    b = np.zeros((4, 4), bool)
    b[:, :2] = True  # columns 0-1
    empty = np.zeros((4, 4), bool)
    iou = mask_iou([a, empty], [b, a, b, empty], iscrowd=[False, False, True, False])
    # 4 shared pixels of 8 + 8; identical; crowd: shared / area(detection); empty masks give 0
    np.testing.assert_allclose(iou, [[4 / 12, 1.0, 0.5, 0.0], [0.0, 0.0, 0.0, 0.0]])
    assert paired_mask_iou([a, a], [b, a]).tolist() == [4 / 12, 1.0]
    assert mask_iou([], [a]).shape == (0, 1) and mask_iou([a], []).shape == (1, 0)


def test_masks_of_different_images_do_not_mix():
    # the same run positions in masks of other sizes: pairs are computed mask by mask
    small = {"size": [2, 2], "counts": [0, 4]}
    large = {"size": [3, 3], "counts": [0, 4, 5]}
    iou = paired_mask_iou(
        [small, large, large],
        [small, large, {"size": [3, 3], "counts": [4, 5]}],
        detection_index=None,
        ground_truth_index=None,
    )
    assert iou.tolist() == [1.0, 1.0, 0.0]


def test_mask_runs_layout_and_mixed_inputs():
    mask = np.zeros((3, 3), bool)
    mask[1, 1:] = True
    runs = mask_runs(
        [
            {"size": [3, 3], "counts": "09"},
            [[0, 0, 2, 0, 2, 2, 0, 2]],
            mask,
            {"size": [3, 3], "counts": [4, 1, 2, 1, 1]},
        ],
        height=3,
        width=3,
    )
    assert isinstance(runs, MaskRuns) and len(runs) == 4
    assert runs.area().tolist() == [9, 4, 2, 2]
    assert runs.offsets.tolist() == [0, 1, 3, 5, 7]
    assert runs.starts.tolist() == [0, 0, 3, 4, 7, 4, 7] and runs.stops.tolist() == [9, 2, 5, 5, 8, 5, 8]
    np.testing.assert_array_equal(runs.to_masks()[2], mask)
    assert mask_runs(runs) is runs
    # lists handed back by parquet/arrow as numpy arrays
    polygon = np.empty(1, dtype=object)
    polygon[0] = np.array([0.0, 0, 2, 0, 2, 2, 0, 2])
    as_arrays = [
        {"size": np.array([3, 3]), "counts": "09"},
        polygon,
        mask,
        {"size": [3, 3], "counts": np.array([4, 1, 2, 1, 1])},
    ]
    same = mask_runs(as_arrays, height=np.array([3, 3, 3, 3]), width=3)
    assert same.starts.tolist() == runs.starts.tolist() and same.stops.tolist() == runs.stops.tolist()
    taken = runs.take([3, 0])
    assert taken.area().tolist() == [2, 9]
    assert runs.take([-1]).area().tolist() == [2] and len(runs.take([])) == 0


# ----------------------------------------------------------------------------------------------
# the COCO val2014 fixture


@pytest.fixture(scope="module")
def val2014():
    folder = conformance_path("coco", "coco_val2014_100")
    gt = json.loads((folder / "instances_val2014_100.json").read_text())
    dt = json.loads((folder / "instances_val2014_fakesegm100_results.json").read_text())
    return gt, dt


def coco_ann_to_rle(cm, segmentation, h, w):
    """COCO.annToRLE: polygons merged, uncompressed RLE compressed, compressed as is."""
    if isinstance(segmentation, list):
        return cm.merge(cm.frPyObjects(segmentation, h, w))
    if isinstance(segmentation["counts"], list):
        return cm.frPyObjects(segmentation, h, w)
    return segmentation


def test_val2014_segmentations_equal_pycocotools(val2014):
    cm = coco()
    gt, dt = val2014
    images = {image["id"]: image for image in gt["images"]}
    annotations = gt["annotations"]
    h = np.array([images[a["image_id"]]["height"] for a in annotations])
    w = np.array([images[a["image_id"]]["width"] for a in annotations])
    segmentations = [a["segmentation"] for a in annotations]
    theirs = [coco_ann_to_rle(cm, s, hh, ww) for s, hh, ww in zip(segmentations, h.tolist(), w.tolist())]
    runs = mask_runs(segmentations, height=h, width=w)
    assert any(isinstance(s, dict) for s in segmentations) and any(isinstance(s, list) for s in segmentations)
    np.testing.assert_array_equal(runs.area(), [int(cm.area(r)) for r in theirs])
    np.testing.assert_array_equal(mask_bbox(runs), np.array([cm.toBbox(r) for r in theirs]))
    # polygons give pycocotools' strings exactly (its uncompressed RLEs keep their own runs)
    for segmentation, ours, rle in zip(segmentations, runs.to_rle(), theirs):
        if isinstance(segmentation, list):
            assert ours["counts"] == rle["counts"].decode()
    # the detections' compressed RLEs round-trip to the same strings
    dt_runs = mask_runs([d["segmentation"] for d in dt])
    assert [r["counts"] for r in dt_runs.to_rle()] == [d["segmentation"]["counts"] for d in dt]

    # every detection against every ground truth of its image, with the crowd rule
    gt_image = np.array([a["image_id"] for a in annotations])
    dt_image = np.array([d["image_id"] for d in dt])
    crowd = np.array([a["iscrowd"] for a in annotations], dtype=bool)
    assert crowd.any()
    pair_dt, pair_gt = np.nonzero(dt_image[:, None] == gt_image[None, :])
    ours = paired_mask_iou(dt_runs, runs, crowd[pair_gt], detection_index=pair_dt, ground_truth_index=pair_gt)
    expected = np.empty(pair_dt.size)
    for image in np.unique(dt_image).tolist():
        d = np.flatnonzero(dt_image == image)
        g = np.flatnonzero(gt_image == image)
        if g.size:
            matrix = np.asarray(
                cm.iou([dt[i]["segmentation"] for i in d], [theirs[j] for j in g], crowd[g].astype(np.uint8))
            )
            rows = np.flatnonzero(dt_image[pair_dt] == image)
            expected[rows] = matrix[np.searchsorted(d, pair_dt[rows]), np.searchsorted(g, pair_gt[rows])]
    np.testing.assert_array_equal(ours, expected)
    assert (ours > 0).sum() > 100


# ----------------------------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (
            lambda: polygon_to_rle([[0, 0, 1, 1]], 4, 4),
            r"`polygons` has a polygon with 4 numbers.*at least 3 points",
        ),
        (lambda: polygon_to_rle([[0, 0, 1, 1, 2]], 4, 4), r"5 numbers.*even count"),
        (
            lambda: mask_runs([[[0, 0, 1, 0, 1, 1]], [[0, 0, 1]]], 4, 4),
            r"segmentation 1 has a polygon with 3",
        ),
        (
            lambda: mask_runs([[[0, 0, 1, 0, 1, 1]]]),
            r"segmentation 0 is a polygon: pass `height=` and `width=`",
        ),
        (lambda: mask_runs([[[0, 0, 1, 0, 1, np.nan]]], 4, 4), r"missing, infinite"),
        (lambda: mask_runs([[]], 4, 4), r"empty polygon list"),
        (
            lambda: rle_decode({"size": [2, 3], "counts": [1, 2]}),
            r"counts sum to 3 pixels but its size \[2, 3\] has 6",
        ),
        (
            lambda: mask_runs([{"size": [2, 2], "counts": [4]}, {"size": [2, 3], "counts": [1, 2, 4]}]),
            r"segmentation 1: its RLE counts sum to 7",
        ),
        (lambda: rle_decode({"size": [2, 3], "counts": [3, -1, 4]}), r"negative run length"),
        (lambda: rle_decode({"size": [2, 3], "counts": "6~"}), r"malformed compressed `counts`.*'~'"),
        (lambda: rle_decode({"size": [2, 3], "counts": "6a"}), r"malformed.*middle of a number"),
        (lambda: rle_decode({"size": [2, 3], "counts": "6é"}), r"malformed.*non-ASCII"),
        (lambda: rle_decode({"size": [2], "counts": "6"}), r"an RLE needs 'size': \[height, width\]"),
        (lambda: rle_decode({"size": [2, 3], "counts": [1.5, 4.5]}), r"whole numbers"),
        (lambda: rle_decode([1, 2, 3]), r"`rle` must be a dict"),
        (
            lambda: rle_encode(np.array([[0, 2], [1, 0]])),
            r"`mask` is a int64 array with values other than 0 and 1",
        ),
        (lambda: rle_encode(np.zeros(4, bool)), r"`mask` is a 1-D array"),
        (
            lambda: mask_runs([np.zeros((2, 3), bool), np.zeros((3, 3), bool)], height=3, width=3),
            r"segmentation 0 has shape \(2, 3\) but its image is 3 x 3",
        ),
        (
            lambda: mask_runs([{"size": [2, 3], "counts": [6]}], height=3, width=3),
            r"segmentation 0 has size \[2, 3\] but its image is \[3, 3\]",
        ),
        (lambda: mask_runs([{"size": [2, 2], "counts": [4]}], height=3), r"both `height` and `width`"),
        (lambda: mask_runs({"size": [2, 2], "counts": [4]}), r"wrap a single one in a list"),
        (lambda: mask_runs([5]), r"segmentation 0 is a int"),
        (
            lambda: mask_iou([np.zeros((2, 2), bool)], [np.zeros((3, 2), bool)]),
            r"detection mask is 2 x 2 but the ground-truth mask is 3 x 2",
        ),
        (
            lambda: mask_iou([np.zeros((2, 2), bool)], [np.zeros((2, 2), bool)], iscrowd=[0, 1]),
            r"`iscrowd` has 2 flags for 1",
        ),
        (
            lambda: paired_mask_iou([np.zeros((2, 2), bool)], []),
            r"`detections` has 1 masks but `ground_truths` has 0",
        ),
        (
            lambda: paired_mask_iou(
                [np.zeros((2, 2), bool)],
                [np.zeros((2, 2), bool)],
                detection_index=[0, 1],
                ground_truth_index=[0, 0],
            ),
            r"`detection_index` holds 1 \(pair 1\), but there are only 1 masks",
        ),
        (lambda: polygon_to_mask([[0, 0, 1, 0, 1, 1]], 0, 3), r"`height` must be a number of pixels from 1"),
        (
            lambda: mask_runs([np.zeros((2, 2), bool)]).take([1]),
            r"`index` must hold integer positions from 0 to 0",
        ),
        (lambda: box_to_rle([[0, 0, -1, 2]], 3, 3), r"`boxes` has a box with a negative size in row 0"),
        (lambda: box_to_rle([[0, 0, 1]], 3, 3), r"`boxes` must have shape \(n, 4\)"),
        (lambda: box_to_rle([[0, 0, 1, 1]], None, None), r"Pass `height=` and `width=`"),
    ],
)
def test_bad_input_names_the_problem(call, match):
    with pytest.raises(InvalidInputError, match=match):
        call()


def test_bool_masks_accept_zero_one_arrays():
    mask = np.array([[0, 1], [1, 1]], dtype="uint8")
    assert rle_encode(mask) == rle_encode(mask.astype(bool))


def test_a_batch_decoded_again_gives_the_same_runs():
    """The same RLE strings are decoded once (read_coco, then evaluate); a changed string, size
    or a malformed batch is decoded (or refused) afresh."""
    rng = np.random.default_rng(3)
    rles = mask_runs(star_segmentations(rng, 20, np.array([[30, 40]] * 20)), height=30, width=40).to_rle()
    first, again = mask_runs(rles), mask_runs(rles)
    assert first.starts.tolist() == again.starts.tolist() and first.area().tolist() == again.area().tolist()
    again.starts[:] = 0  # what a caller gets is its own copy
    assert mask_runs(rles).starts.tolist() == first.starts.tolist()
    changed = list(rles)
    changed[0] = rles[1]
    assert mask_runs(changed).area().tolist()[:2] == [first.area()[1]] * 2
    resized = [dict(r, size=[40, 30]) for r in rles]
    assert mask_runs(resized).height.tolist() == [40] * 20
    with pytest.raises(InvalidInputError, match="malformed"):
        mask_runs([{"size": [30, 40], "counts": "0" + r["counts"][1:] + "~"} for r in rles])


# --------------------------------------------------------------------------------------
# image sizes of a COCO file and of image_sizes=: errors that name the image and the value
# --------------------------------------------------------------------------------------
_POLYGON = [[0, 0, 5, 0, 5, 5, 0, 5]]


def _sized_file(images):
    annotation = {"id": 1, "image_id": 1, "category_id": 1, "bbox": [0, 0, 5, 5], "area": 25, "iscrowd": 0}
    return {
        "images": images,
        "categories": [{"id": 1, "name": "a"}],
        "annotations": [{**annotation, "segmentation": _POLYGON}],
    }


@pytest.mark.parametrize(
    ("height", "shown"),
    [("60", r"'60' \(str\)"), (-60, r"-60 \(int\)"), (0, r"0 \(int\)"), (60.5, r"60\.5 \(float\)")],
)
@pytest.mark.parametrize("with_boxes", [True, False])
def test_a_size_that_is_not_a_positive_whole_number_names_the_image_and_the_value(height, shown, with_boxes):
    images = [{"id": 7, "height": 60, "width": 80}, {"id": 1, "height": height, "width": 80}]
    result = {"image_id": 1, "category_id": 1, "segmentation": _POLYGON, "score": 0.9}
    if with_boxes:
        result["bbox"] = [0, 0, 5, 5]
    with pytest.raises(
        InvalidInputError,
        match=rf"image 1 \(entry 1 \(0-based\) of 'images'\) has 'height' = {shown}, which is not a positive",
    ):
        read_coco(_sized_file(images), [result])


def test_whole_float_sizes_and_missing_sizes_are_fine():
    gt, _ = read_coco(
        _sized_file([{"id": 1, "height": 60.0, "width": 80}, {"id": 2}, {"id": 3, "height": None}])
    )
    roles = gt.attrs["pdmetrics.coco"]
    assert roles["heights"] == (60, 0, 0) and roles["widths"] == (80, 0, 0)


def test_an_image_listed_twice_with_two_sizes_says_so():
    twice = [{"id": 1, "height": 60, "width": 80}, {"id": 2}, {"id": 1, "height": 50, "width": 80}]
    with pytest.raises(
        InvalidInputError,
        match=r"image 1 is listed twice in 'images' with two sizes \(height x width 60 x 80 \(entry 0\) and "
        r"50 x 80 \(entry 2\)\)",
    ):
        read_coco(_sized_file(twice))
    # the same size twice changes nothing
    same = [{"id": 1, "height": 60, "width": 80}, {"id": 1, "height": 60, "width": 80}]
    gt, dt = read_coco(
        _sized_file(same), [{"image_id": 1, "category_id": 1, "segmentation": _POLYGON, "score": 0.9}]
    )
    table = dt.detection.evaluate(ground_truth=gt, iou_type="segm", area_ranges={"all": (0, 1e10)})
    np.testing.assert_allclose(table["value"], 1.0)
    # image_sizes= as a DataFrame indexed by image
    frame = pd.DataFrame({"height": [60, 50], "width": [80, 80]}, index=[1, 1])
    plain_gt = gt.drop(columns=[]).copy()
    plain_gt.attrs.clear()
    with pytest.raises(
        InvalidInputError, match=r"`image_sizes=` lists image 1 twice, with two sizes \(\(60, 80\) and"
    ):
        dt.detection.evaluate(ground_truth=plain_gt, iou_type="segm", image_sizes=frame)
    ok = dt.detection.evaluate(
        ground_truth=plain_gt, iou_type="segm", image_sizes=frame.iloc[[0, 0]], area_ranges={"all": (0, 1e10)}
    )
    np.testing.assert_allclose(ok["value"], 1.0)


@pytest.mark.parametrize("with_boxes", [True, False])
def test_an_image_too_large_to_draw_is_named(with_boxes):
    images = [{"id": 1, "height": 60, "width": 80}, {"id": 42, "height": 100000, "width": 80}]
    data = _sized_file(images)
    data["annotations"][0]["image_id"] = 42
    result = {"image_id": 42, "category_id": 1, "segmentation": _POLYGON, "score": 0.9}
    if with_boxes:
        result["bbox"] = [0, 0, 5, 5]
    message = r"Image 42 has size \(height, width\) \(100000, 80\).*at most 32768 pixels a side"
    if not with_boxes:  # the result file's masks are drawn when it is read
        with pytest.raises(InvalidInputError, match=message):
            read_coco(data, [result])
        return
    gt, dt = read_coco(data, [result])
    with pytest.raises(InvalidInputError, match=message):
        dt.detection.evaluate(ground_truth=gt, iou_type="segm")
    # boxes need no drawing
    table = dt.detection.evaluate(ground_truth=gt, iou_type="bbox", area_ranges={"all": (0, 1e10)})
    np.testing.assert_allclose(table["value"], 1.0)
