"""valor's geometries: the same detection cases as boxes, polygons, bitmasks and RLEs.

valor's own unit tests run every detection case three times (boxes, polygons, bitmasks) and
expect the same numbers. With ``iou_type="segm"`` pdmetrics draws polygons as COCO does; an
integer-aligned rectangle ``[x0, x1) x [y0, y1)`` drawn that way is exactly the pixel block
``mask[y0:y1, x0:x1]``, so its mask IoU with another such rectangle is the box IoU. Boxes with
fractional corners do not have that property (rasterizing moves their edges to pixel
boundaries), so the cases with fractional boxes are compared on their boxes rounded outward
(floor of the minima, ceiling of the maxima), and one test shows the IoU change.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import conformance_path
from hypothesis import given, settings
from hypothesis import strategies as st
from test_detection_valor import _our_counts, _valor_counts

import pdmetrics  # noqa: F401
from pdmetrics.detection import (
    average_precision,
    average_recall,
    confusion,
    mask_runs,
    match,
    polygon_to_mask,
    pr_curve,
)

BOX = ["xmin", "ymin", "xmax", "ymax"]
GEOMETRIES = ("polygon", "bitmask", "rle", "rle_counts")
VALOR = {"box_format": "xyxy", "max_dets": None, "matching": "valor"}


# --------------------------------------------------------------------------------------
# the same table as boxes, polygons, bitmasks and RLEs
# --------------------------------------------------------------------------------------
def _image_sizes(*frames):
    """(height, width) of each image: just large enough to hold every box."""
    both = pd.concat([f[["image", "xmax", "ymax"]] for f in frames])
    extent = both.groupby("image")[["ymax", "xmax"]].max()
    return {image: (int(np.ceil(h)) + 1, int(np.ceil(w)) + 1) for image, (h, w) in extent.iterrows()}


def _rectangle_counts(x0, y0, x1, y1, height, width):
    """Uncompressed COCO RLE counts (column-major runs, 0s first) of ``mask[y0:y1, x0:x1]``."""
    tall, wide = y1 - y0, x1 - x0
    if tall <= 0 or wide <= 0:
        return [height * width]
    counts = [x0 * height + y0] + [tall, height - tall] * wide
    counts[-1] = height * width - (x1 - 1) * height - y1
    return counts


def _as_geometry(frame, kind, sizes):
    """``frame`` with its integer boxes as a ``segmentation`` column of ``kind`` (boxes dropped)."""
    cells = []
    for row in frame.itertuples():
        x0, y0, x1, y1 = (int(v) for v in (row.xmin, row.ymin, row.xmax, row.ymax))
        height, width = sizes[row.image]
        if kind == "polygon":
            cells.append([[x0, y0, x1, y0, x1, y1, x0, y1]])
        elif kind == "bitmask":
            mask = np.zeros((height, width), dtype=bool)
            mask[y0:y1, x0:x1] = True
            cells.append(mask)
        else:
            rle = {"size": [height, width], "counts": _rectangle_counts(x0, y0, x1, y1, height, width)}
            cells.append(rle if kind == "rle_counts" else mask_runs([rle]).to_rle()[0])
    return frame.drop(columns=BOX).assign(segmentation=cells)


def _rounded_outward(frame):
    return frame.assign(
        xmin=np.floor(frame["xmin"]),
        ymin=np.floor(frame["ymin"]),
        xmax=np.ceil(frame["xmax"]),
        ymax=np.ceil(frame["ymax"]),
    )


def _valor_tables(dt, gt, iou_thresholds, score_thresholds, images, **geometry):
    """Every valor-convention table of pdmetrics for one case (classification is not geometric)."""
    options = dict(images=images, **VALOR, **geometry)
    zero = dict(labels_without_ground_truth="zero")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.UndefinedMetricWarning)
        tables = {
            "ap": average_precision(
                dt, gt, iou_thresholds=iou_thresholds, interpolation="valor", **zero, **options
            ),
            "ar": average_recall(
                dt, gt, iou_thresholds=iou_thresholds, score_threshold=score_thresholds, **zero, **options
            ),
            "counts": pr_curve(
                dt,
                gt,
                style="valor",
                iou_thresholds=iou_thresholds,
                score_thresholds=score_thresholds,
                zero_division=0,
                **options,
            ),
            "curve": pr_curve(
                dt, gt, iou_thresholds=iou_thresholds, interpolation="valor", **zero, **options
            ),
            "match": match(dt, gt, iou_thresholds=iou_thresholds, **options),
        }
    for kind in ("breakdown", "matrix"):
        tables[kind] = confusion(
            dt,
            gt,
            images=images,
            box_format="xyxy",
            kind=kind,
            iou_threshold=iou_thresholds[0],
            score_thresholds=score_thresholds,
            max_examples=100,
            **geometry,
        )
    return tables


def _assert_same_tables(ours, expected, what):
    assert ours.keys() == expected.keys()
    for name, table in expected.items():
        try:
            pd.testing.assert_frame_equal(ours[name], table, check_exact=False, rtol=1e-12, atol=1e-12)
        except AssertionError as error:
            raise AssertionError(f"{what}: table {name!r} differs\n{error}") from None


def _assert_geometry_parity(gt, dt, iou_thresholds, score_thresholds, images, kinds=GEOMETRIES):
    """Boxes (``iou_type="bbox"``) and each geometry kind (``"segm"``) give the same tables."""
    sizes = _image_sizes(gt, dt)
    boxes = _valor_tables(dt, gt, iou_thresholds, score_thresholds, images)
    for kind in kinds:
        masks = _valor_tables(
            _as_geometry(dt, kind, sizes),
            _as_geometry(gt, kind, sizes),
            iou_thresholds,
            score_thresholds,
            images,
            iou_type="segm",
            image_sizes=sizes,
        )
        _assert_same_tables(masks, boxes, kind)
    return boxes


# --------------------------------------------------------------------------------------
# valor's cases
# --------------------------------------------------------------------------------------
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
    return gt, dt, list(range(len(case["images"])))


def _is_integer(*frames):
    return all(np.array_equal(f[BOX], np.round(f[BOX])) for f in frames)


@pytest.mark.parametrize("index", [0, 1, 2])
def test_valor_small_cases_same_numbers_for_every_geometry(index):
    case = _small_cases()[index]
    gt, dt, images = _small_tables(case)
    if not _is_integer(gt, dt):  # the torchmetrics example has boxes with 2 decimals
        assert case["name"] == "torchmetrics_4_image_example"
        gt, dt = _rounded_outward(gt), _rounded_outward(dt)
    thresholds = case["iou_thresholds"]
    tables = _assert_geometry_parity(gt, dt, thresholds, [*case["score_thresholds"], 0.25, 0.9], images)
    if index == 0:
        return
    # integer boxes: the mask tables are also valor-lite's answers
    ap = tables["ap"].set_index("label")
    for metric in case["expected_valor_lite_0.39.0"]["AP"]:
        column = f"AP@{metric['parameters']['iou_threshold']:.2f}"
        assert ap.loc[metric["parameters"]["label"], column] == pytest.approx(metric["value"], abs=1e-12)
    counts = tables["counts"].set_index(["label", "iou", "score_threshold"])
    for metric in case["expected_valor_lite_0.39.0"]["Counts"]:
        p = metric["parameters"]
        row = counts.loc[(p["label"], p["iou_threshold"], p["score_threshold"])]
        assert (row["tp"], row["fp"], row["fn"]) == tuple(metric["value"][k] for k in ("tp", "fp", "fn"))


def test_torchmetrics_case_rounded_equals_valor_lite_on_the_rounded_boxes():
    """The rounded torchmetrics case as masks gives valor-lite's answers on the rounded boxes."""
    od = pytest.importorskip("valor_lite.object_detection")
    from test_detection_valor import _valor_lite

    case = _small_cases()[0]
    gt, dt, images = _small_tables(case)
    gt, dt = _rounded_outward(gt), _rounded_outward(dt)
    sizes = _image_sizes(gt, dt)
    thresholds, scores = case["iou_thresholds"], case["score_thresholds"]
    metrics = _valor_lite(gt, dt, thresholds, scores)
    ap = average_precision(
        _as_geometry(dt, "polygon", sizes),
        _as_geometry(gt, "polygon", sizes),
        iou_thresholds=thresholds,
        interpolation="valor",
        labels_without_ground_truth="zero",
        iou_type="segm",
        image_sizes=sizes,
        **VALOR,
    ).set_index("label")
    for metric in metrics[od.MetricType.AP]:
        column = f"AP@{metric.parameters['iou_threshold']:.2f}"
        assert ap.loc[metric.parameters["label"], column] == pytest.approx(metric.value, abs=1e-12)
    (overall,) = metrics[od.MetricType.mAPAveragedOverIOUs]
    assert ap.loc["(all)", "AP"] == pytest.approx(overall.value, abs=1e-12)


def test_fractional_boxes_change_iou_when_drawn():
    """Rasterizing a box with fractional corners moves its edges to pixel boundaries.

    The first torchmetrics image: box IoU 304.26 / 392.26 = 0.77564..., the same corners drawn
    as COCO draws polygons (a pixel is in when its centre is inside, after pycocotools' x5
    rounding) 304 / 392 = 0.77551...
    That is why the parity tests round such boxes outward first.
    """
    case = _small_cases()[0]
    gt, dt, _ = _small_tables(case)
    gt, dt = gt[gt["image"] == 0], dt[dt["image"] == 0]
    boxes = match(dt, gt, iou_thresholds=[0.5], **VALOR)
    sizes = {0: (300, 620)}
    polygons = {
        name: frame.assign(
            segmentation=[
                [[r.xmin, r.ymin, r.xmax, r.ymin, r.xmax, r.ymax, r.xmin, r.ymax]] for r in frame.itertuples()
            ]
        )
        for name, frame in (("gt", gt), ("dt", dt))
    }
    drawn = match(
        polygons["dt"], polygons["gt"], iou_thresholds=[0.5], iou_type="segm", image_sizes=sizes, **VALOR
    )
    box_iou, mask_iou = boxes["iou"].iloc[0], drawn["iou"].iloc[0]
    assert box_iou == pytest.approx((562.41 - 258.15) / (606.41 - 214.15), rel=1e-12)
    gt_mask = polygon_to_mask(polygons["gt"]["segmentation"].iloc[0], 300, 620)
    dt_mask = polygon_to_mask(polygons["dt"]["segmentation"].iloc[0], 300, 620)
    by_hand = (gt_mask & dt_mask).sum() / (gt_mask | dt_mask).sum()
    assert mask_iou == pytest.approx(by_hand, rel=1e-15)
    # columns 258..561 shared, 214..605 covered (the rows are the same): 304 / 392
    assert mask_iou == pytest.approx(304 / 392, rel=1e-15)
    assert abs(mask_iou - box_iou) > 1e-4
