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
from test_detection_confusion import COLUMN, _detailed_example
from test_detection_valor import _small_cases, _small_tables, _valor_counts, _valor_lite

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
            cells.append(
                {"size": [height, width], "counts": _rectangle_counts(x0, y0, x1, y1, height, width)}
            )
    if kind == "rle" and cells:  # compressed counts strings, as pycocotools writes them
        cells = mask_runs(cells).to_rle()
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
                dt, ground_truth=gt, iou_thresholds=iou_thresholds, interpolation="valor", **zero, **options
            ),
            "ar": average_recall(
                dt,
                ground_truth=gt,
                iou_thresholds=iou_thresholds,
                score_threshold=score_thresholds,
                **zero,
                **options,
            ),
            "counts": pr_curve(
                dt,
                ground_truth=gt,
                style="valor",
                iou_thresholds=iou_thresholds,
                score_thresholds=score_thresholds,
                zero_division=0,
                **options,
            ),
            "curve": pr_curve(
                dt, ground_truth=gt, iou_thresholds=iou_thresholds, interpolation="valor", **zero, **options
            ),
            "match": match(dt, ground_truth=gt, iou_thresholds=iou_thresholds, **options),
        }
    for kind in ("breakdown", "matrix"):
        tables[kind] = confusion(
            dt,
            ground_truth=gt,
            images=images,
            box_format="xyxy",
            table=kind,
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


def _assert_geometry_parity(gt, dt, iou_thresholds, score_thresholds, images, kinds=GEOMETRIES, sizes=None):
    """Boxes (``iou_type="bbox"``) and each geometry kind (``"segm"``) give the same tables."""
    sizes = _image_sizes(gt, dt) if sizes is None else sizes
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
def _case_tables(index):
    """valor small case ``index``: its two box tables and image ids (0, 1, ...)."""
    case = _small_cases()[index]
    gt, dt = _small_tables(case)
    return case, gt, dt, list(range(len(case["images"])))


def _is_integer(*frames):
    return all(np.array_equal(f[BOX], np.round(f[BOX])) for f in frames)


@pytest.mark.parametrize("index", [0, 1, 2])
def test_valor_small_cases_same_numbers_for_every_geometry(index):
    case, gt, dt, images = _case_tables(index)
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
    case, gt, dt, images = _case_tables(0)
    gt, dt = _rounded_outward(gt), _rounded_outward(dt)
    sizes = _image_sizes(gt, dt)
    thresholds, scores = case["iou_thresholds"], case["score_thresholds"]
    metrics = _valor_lite(gt, dt, thresholds, scores)
    ap = average_precision(
        _as_geometry(dt, "polygon", sizes),
        ground_truth=_as_geometry(gt, "polygon", sizes),
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
    _, gt, dt, _ = _case_tables(0)
    gt, dt = gt[gt["image"] == 0], dt[dt["image"] == 0]
    boxes = match(dt, ground_truth=gt, iou_thresholds=[0.5], **VALOR)
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
        polygons["dt"],
        ground_truth=polygons["gt"],
        iou_thresholds=[0.5],
        iou_type="segm",
        image_sizes=sizes,
        **VALOR,
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


@pytest.mark.parametrize("kind", ["boxes", *GEOMETRIES])
def test_valor_core_detailed_example_for_every_geometry(kind):
    """valor_core's detailed PR-curve example (IoU of rect3 and rect5 0.4815, between the two
    thresholds): the breakdown counts upstream asserts, with boxes and with each geometry."""
    example, gt, dt = _detailed_example()
    images = ["uid1", "uid2"]
    if kind == "boxes":
        tables = _assert_geometry_parity(
            gt, dt, [0.5, 0.45], example["parameters"]["confidence_thresholds"], images
        )
        assert tables["match"]["iou"].notna().any()
        return
    sizes = _image_sizes(gt, dt)
    assert sizes == {"uid1": (821, 159), "uid2": (41, 71)}
    masks_gt, masks_dt = _as_geometry(gt, kind, sizes), _as_geometry(dt, kind, sizes)
    for iou_threshold in (0.5, 0.45):
        key = next(k for k in example if k.startswith(f"expected_at_pr_curve_iou_threshold_{iou_threshold}"))
        table = masks_dt.detection.confusion(
            ground_truth=masks_gt,
            iou_type="segm",
            image_sizes=sizes,
            iou_threshold=iou_threshold,
            max_examples=1,
        ).set_index(["label", "score_threshold"])
        for path, count in example[key]:
            label, threshold, *rest = path
            assert table.loc[(label, float(threshold)), COLUMN[tuple(rest)]] == count, path


def _regression_boxes():
    folder = conformance_path("valor", "valor_lite_coco_regression")
    images = json.loads((folder / "coco_input.json").read_text())

    def table(role, scored):
        rows = [
            (d["uid"], a["labels"][0], a["xmin"], a["ymin"], a["xmax"], a["ymax"], *a["scores"][:1])
            for d in images
            for a in d[role]
        ]
        return pd.DataFrame(rows, columns=["image", "label", *BOX] + (["score"] if scored else []))

    return table("groundtruths", False), table("predictions", True), [d["uid"] for d in images]


def test_valor_lite_coco_regression_rounded_same_numbers_for_every_geometry():
    """valor-lite's regression fixture (15 images, 4240 predictions, 64 labels): its boxes are
    fractional, so they are rounded outward; polygons and RLEs on every image, dense bitmasks
    (640 x 480 each) on the three images with fewest predictions."""
    gt, dt, images = _regression_boxes()
    gt, dt = _rounded_outward(gt), _rounded_outward(dt)
    _assert_geometry_parity(gt, dt, [0.1, 0.5], [0.5, 0.05], images, kinds=("polygon", "rle"))
    few = dt["image"].value_counts().nsmallest(3).index.tolist()
    gt, dt = gt[gt["image"].isin(few)], dt[dt["image"].isin(few)]
    _assert_geometry_parity(gt, dt, [0.1, 0.5], [0.5, 0.05], few, kinds=("bitmask", "rle_counts"))


# --------------------------------------------------------------------------------------
# generated integer-aligned boxes
# --------------------------------------------------------------------------------------
SIZES = {0: (14, 17), 1: (14, 17)}


@st.composite
def integer_box_cases(draw):
    """Two small images; integer boxes inside them; labels a/b; tied and zero scores."""

    def table(n, scored):
        rows = []
        for _ in range(n):
            x0, y0 = draw(st.integers(0, 11)), draw(st.integers(0, 8))
            x1, y1 = x0 + draw(st.integers(1, 5)), y0 + draw(st.integers(1, 5))
            row = (draw(st.integers(0, 1)), draw(st.sampled_from("ab")), x0, y0, x1, y1)
            rows.append(row + ((draw(st.sampled_from([0.0, 0.3, 0.5, 0.8, 1.0])),) if scored else ()))
        return pd.DataFrame(rows, columns=["image", "label", *BOX] + (["score"] if scored else []))

    gt, dt = table(draw(st.integers(1, 7)), False), table(draw(st.integers(0, 9)), True)
    return gt.astype({c: float for c in BOX}), dt.astype({c: float for c in BOX})


@settings(max_examples=25, deadline=None)
@given(case=integer_box_cases(), kind=st.sampled_from(GEOMETRIES))
def test_generated_integer_boxes_same_numbers_for_every_geometry(case, kind):
    gt, dt = case
    _assert_geometry_parity(gt, dt, [0.1, 0.5, 0.75], [0.0, 0.4, 0.9], [0, 1], kinds=(kind,), sizes=SIZES)


# --------------------------------------------------------------------------------------
# valor-lite 0.39 with its Bitmask and Polygon annotations
# --------------------------------------------------------------------------------------
def _valor_lite_geometry(gt, dt, kind, sizes):
    """A valor-lite evaluator of two tables as ``kind`` ("bitmask" or "polygon") annotations.

    The annotation uids are the tables' index labels; a "segmentation" column holds the
    boolean masks (bitmask), else the integer boxes become shapely rectangles (polygon).
    """
    od = pytest.importorskip("valor_lite.object_detection")
    geometry = pytest.importorskip("shapely.geometry")

    def annotations(frame, scored):
        out = []
        for uid, row in frame.iterrows():
            extra = {"scores": [row["score"]]} if scored else {}
            if kind == "bitmask":
                out.append(od.Bitmask(uid=uid, mask=row["segmentation"], labels=[row["label"]], **extra))
            else:
                shape = geometry.box(row["xmin"], row["ymin"], row["xmax"], row["ymax"])
                out.append(od.Polygon(uid=uid, shape=shape, labels=[row["label"]], **extra))
        return out

    loader = od.Loader.in_memory()
    add = loader.add_bitmasks if kind == "bitmask" else loader.add_polygons
    add(
        [
            od.Detection(
                uid=str(image),
                groundtruths=annotations(gt[gt["image"] == image], False),
                predictions=annotations(dt[dt["image"] == image], True),
            )
            for image in sorted(sizes)
        ]
    )
    return loader.finalize()


def _random_masks(rng, n, sizes):
    """n ground-truth masks: a random rectangle united with scattered pixels near it (never empty)."""
    rows = []
    for _ in range(n):
        image = list(sizes)[int(rng.integers(0, len(sizes)))]
        height, width = sizes[image]
        mask = np.zeros((height, width), dtype=bool)
        x0, y0 = rng.integers(0, width - 2), rng.integers(0, height - 2)
        mask[y0 : y0 + rng.integers(2, 7), x0 : x0 + rng.integers(2, 7)] = True
        window = np.zeros_like(mask)
        window[max(y0 - 2, 0) : y0 + 8, max(x0 - 2, 0) : x0 + 8] = True
        mask |= window & (rng.random((height, width)) < 0.15)
        rows.append((image, str(rng.choice(["a", "b"])), mask))
    return pd.DataFrame(rows, columns=["image", "label", "segmentation"])


def _noisy_copies(rng, gt, n):
    """n scored masks: most a ground truth shifted by up to a pixel with some pixels flipped
    (sometimes relabelled), the others new random masks; distinct scores."""
    fresh = _random_masks(rng, n, {i: m.shape for i, m in zip(gt["image"], gt["segmentation"])})
    rows = []
    for k in range(n):
        if rng.random() < 0.3:
            rows.append(tuple(fresh.iloc[k]))
            continue
        image, label, mask = gt.iloc[int(rng.integers(0, len(gt)))]
        copy = np.roll(mask, (int(rng.integers(-1, 2)), int(rng.integers(-1, 2))), axis=(0, 1))
        copy = copy ^ (rng.random(copy.shape) < 0.05)
        copy[int(rng.integers(0, copy.shape[0])), int(rng.integers(0, copy.shape[1]))] = True
        rows.append((image, label if rng.random() < 0.8 else str(rng.choice(["a", "b"])), copy))
    frame = pd.DataFrame(rows, columns=["image", "label", "segmentation"])
    # distinct scores: on exact score ties valor-lite's confusion pairing differs on purpose
    # (box_confusion docstring); AP and counts under ties: test_detection_valor
    return frame.assign(score=rng.permutation(n) / n * 0.9 + 0.05)


def _compare_with_valor_lite(evaluator, tables, iou_thresholds, score_thresholds):
    od = pytest.importorskip("valor_lite.object_detection")
    metrics = evaluator.compute_precision_recall(
        iou_thresholds=iou_thresholds, score_thresholds=score_thresholds
    )
    ap = tables["ap"].set_index("label")
    for metric in metrics[od.MetricType.AP]:
        label, threshold = metric.parameters["label"], metric.parameters["iou_threshold"]
        ours = ap.loc[label, f"AP@{threshold:.2f}"] if label in ap.index else 0.0
        assert ours == pytest.approx(metric.value, abs=1e-12), (label, threshold)
    counts = tables["counts"]
    ours = {(r.label, r.iou, r.score_threshold): (r.tp, r.fp, r.fn) for r in counts.itertuples()}
    expected = _valor_counts(metrics)
    assert {key: ours.get(key, (0, 0, 0)) for key in expected} == expected
    per = tables["ar"].dropna(subset=["score_threshold"]).set_index(["label", "score_threshold"])
    for metric in metrics[od.MetricType.AR]:
        key = (metric.parameters["label"], metric.parameters["score_threshold"])
        assert (per.loc[key, "AR"] if key in per.index else 0.0) == pytest.approx(metric.value, abs=1e-12)
    (matrix,) = evaluator.compute_confusion_matrix(
        iou_thresholds=[iou_thresholds[0]], score_thresholds=[score_thresholds[0]]
    )
    theirs = matrix.value
    table = tables["matrix"]
    for row in table[table["score_threshold"] == score_thresholds[0]].itertuples():
        if pd.isna(row.prediction):
            expected = theirs["unmatched_ground_truths"].get(row.truth, 0)
        elif pd.isna(row.truth):
            expected = theirs["unmatched_predictions"].get(row.prediction, 0)
        else:
            expected = theirs["confusion_matrix"].get(row.truth, {}).get(row.prediction, 0)
        assert row.count == expected, row


@pytest.mark.parametrize("seed", range(10))
def test_bitmasks_equal_valor_lite(seed):
    """Arbitrary bitmasks (not rectangles): pdmetrics' mask IoU is valor-lite's pixel count."""
    rng = np.random.default_rng(seed)
    sizes = {0: (12, 15), 1: (10, 9)}
    gt = _random_masks(rng, int(rng.integers(1, 9)), sizes)
    dt = _noisy_copies(rng, gt, int(rng.integers(3, 14)))
    gt, dt = gt.set_axis([f"g{i}" for i in range(len(gt))]), dt.set_axis([f"p{i}" for i in range(len(dt))])
    ious, scores = [0.1, 0.5, 0.75], [0.5, 0.25, 0.75]
    tables = _valor_tables(dt, gt, ious, scores, [0, 1], iou_type="segm")
    _compare_with_valor_lite(_valor_lite_geometry(gt, dt, "bitmask", sizes), tables, ious, scores)


@pytest.mark.parametrize("seed", range(6))
def test_pixel_aligned_polygons_equal_valor_lite(seed):
    """Integer rectangles as polygons: shapely's exact IoU equals the rasterized one."""
    rng = np.random.default_rng(seed)

    def rectangles(n, scored):
        x0, y0 = rng.integers(0, 12, n), rng.integers(0, 9, n)
        frame = pd.DataFrame(
            {
                "image": rng.integers(0, 2, n),
                "label": rng.choice(["a", "b"], n),
                "xmin": x0.astype(float),
                "ymin": y0.astype(float),
                "xmax": (x0 + rng.integers(1, 6, n)).astype(float),
                "ymax": (y0 + rng.integers(1, 6, n)).astype(float),
            }
        )
        return frame.assign(score=rng.permutation(n) / n * 0.9 + 0.05) if scored else frame

    gt, dt = rectangles(int(rng.integers(1, 9)), False), rectangles(int(rng.integers(1, 12)), True)
    gt, dt = gt.set_axis([f"g{i}" for i in range(len(gt))]), dt.set_axis([f"p{i}" for i in range(len(dt))])
    ious, scores = [0.1, 0.5, 0.75], [0.5, 0.25]
    tables = _valor_tables(
        _as_geometry(dt, "polygon", SIZES),
        _as_geometry(gt, "polygon", SIZES),
        ious,
        scores,
        [0, 1],
        iou_type="segm",
        image_sizes=SIZES,
    )
    _compare_with_valor_lite(_valor_lite_geometry(gt, dt, "polygon", SIZES), tables, ious, scores)


def test_non_aligned_polygon_differs_from_valor_lite():
    """valor computes polygon IoU exactly (shapely areas), COCO and pdmetrics rasterize.

    Ground truth the square (0, 0)-(10, 10), detection the triangle (0, 0), (10, 0), (0, 10).
    Exactly, the triangle covers half the square: IoU 0.5 (valor-lite). Drawn as pixels, the
    triangle keeps the pixels whose centre is inside: the 45 pixels with row + column <= 8
    (the 10 centres on the hypotenuse fall outside), so IoU = 45 / 100 = 0.45, as
    pycocotools gives. At IoU threshold 0.5 valor counts a true positive, pdmetrics (and
    COCO) a false positive and a missed ground truth.
    """
    od = pytest.importorskip("valor_lite.object_detection")
    geometry = pytest.importorskip("shapely.geometry")
    square, triangle = [[0, 0, 10, 0, 10, 10, 0, 10]], [[0, 0, 10, 0, 0, 10]]
    gt = pd.DataFrame({"image": ["i"], "label": ["a"], "segmentation": [square]})
    dt = pd.DataFrame({"image": ["i"], "label": ["a"], "segmentation": [triangle], "score": [0.9]})
    sizes = {"i": (12, 12)}
    table = dt.detection.match(
        ground_truth=gt, iou_type="segm", image_sizes=sizes, iou_thresholds=[0.1, 0.5], **VALOR
    )
    assert table["iou"].tolist()[0] == pytest.approx(0.45, abs=1e-15)
    assert table["tp"].tolist() == [True, False]
    assert polygon_to_mask(triangle, 12, 12).sum() == 45
    loader = od.Loader.in_memory()
    loader.add_polygons(
        [
            od.Detection(
                uid="i",
                groundtruths=[
                    od.Polygon(
                        uid="g", shape=geometry.Polygon([(0, 0), (10, 0), (10, 10), (0, 10)]), labels=["a"]
                    )
                ],
                predictions=[
                    od.Polygon(
                        uid="p",
                        shape=geometry.Polygon([(0, 0), (10, 0), (0, 10)]),
                        labels=["a"],
                        scores=[0.9],
                    )
                ],
            )
        ]
    )
    metrics = loader.finalize().compute_precision_recall(iou_thresholds=[0.5], score_thresholds=[0.5])
    assert _valor_counts(metrics)[("a", 0.5, 0.5)] == (1, 0, 0)  # exact IoU 0.5 >= 0.5
    ours = dt.detection.pr_curve(
        ground_truth=gt,
        iou_type="segm",
        image_sizes=sizes,
        style="valor",
        iou_thresholds=[0.5],
        score_thresholds=[0.5],
        zero_division=0,
        **VALOR,
    )
    assert ours[["tp", "fp", "fn"]].values.tolist() == [[0, 1, 1]]
    mask = pytest.importorskip("pycocotools.mask")
    rles = mask.frPyObjects([triangle[0], square[0]], 12, 12)
    assert mask.iou(rles[:1], rles[1:], [0])[0, 0] == pytest.approx(0.45, abs=1e-15)


@pytest.mark.parametrize("order", [[0, 1], [1, 0]])
def test_confusion_exact_iou_tie_takes_the_earlier_ground_truth(order):
    """A detection overlapping two ground truths exactly equally (1/3 each; ties like this are
    common with masks, whose IoUs are ratios of small integers): valor-lite pairs it with the
    earlier one in input order, and so does the confusion table, with boxes and with masks."""
    gt = pd.DataFrame(
        [(0, "b", 0.0, 0.0, 4.0, 4.0), (0, "a", 4.0, 0.0, 8.0, 4.0)], columns=["image", "label", *BOX]
    ).set_axis(["g0", "g1"])
    gt = gt.iloc[order]
    dt = pd.DataFrame([(0, "a", 2.0, 0.0, 6.0, 4.0, 0.9)], columns=["image", "label", *BOX, "score"])
    dt = dt.set_axis(["p0"])
    earlier = gt.index[0]
    sizes = _image_sizes(gt, dt)
    masks = (_as_geometry(dt, "rle", sizes), _as_geometry(gt, "rle", sizes))
    for frames, options in (((dt, gt), {}), (masks, {"iou_type": "segm", "image_sizes": sizes})):
        table = confusion(
            frames[0],
            ground_truth=frames[1],
            box_format="xyxy",
            table="matrix",
            iou_threshold=0.3,
            score_thresholds=[0.5],
            max_examples=10,
            **options,
        )
        paired = table[table["truth"].notna() & table["prediction"].notna() & (table["count"] > 0)]
        assert paired["examples"].tolist() == [[(earlier, "p0")]]
    pytest.importorskip("valor_lite.object_detection")
    (metric,) = _valor_lite_geometry(gt, dt, "polygon", sizes).compute_confusion_matrix_with_examples(
        iou_thresholds=[0.3], score_thresholds=[0.5]
    )
    cell = metric.value["confusion_matrix"][gt.loc[earlier, "label"]]["a"]
    assert [(e["ground_truth_id"], e["prediction_id"]) for e in cell["examples"]] == [(earlier, "p0")]


# --------------------------------------------------------------------------------------
# cross-type IoU: every geometry becomes a COCO mask of its image
# --------------------------------------------------------------------------------------
def _cross_type_tables():
    """One 20 x 24 image; three labels, each a ground truth and a detection of two kinds:

    - "a": raster ground truth (the 10 x 10 block at the origin) vs polygon detection (the
      triangle (0, 0), (10, 0), (0, 10): 45 pixels, those with row + column <= 8): 45 / 100;
    - "b": box ground truth (no segmentation: the box (3.6, 2.6)-(9.4, 8.4) is drawn, the
      pixels whose centre is inside: rows 3-7, columns 4-8) vs raster detection (an L: rows
      2-7 x columns 2-4 and rows 5-7 x columns 5-9, 33 pixels): 17 shared, 41 covered;
    - "c": uncompressed-RLE ground truth (rows 10-15 x columns 12-19, and pixel (2, 22): 49)
      vs polygon detection (the rectangle (11.2, 9.4)-(18.6, 13.6): rows 9-13 x columns
      11-18, 40 pixels): 28 shared, 61 covered.
    """
    height, width = 20, 24
    block = np.zeros((height, width), dtype=bool)
    block[:10, :10] = True
    ell = np.zeros((height, width), dtype=bool)
    ell[2:8, 2:5] = True
    ell[5:8, 5:10] = True
    patch = np.zeros((height, width), dtype=bool)
    patch[10:16, 12:20] = True
    patch[2, 22] = True
    flat = patch.ravel(order="F").astype(int)  # column-major, as COCO's RLE counts run
    edges = np.flatnonzero(np.diff(np.r_[0, flat, 0]))
    counts = np.diff(np.r_[0, edges, flat.size]).tolist()
    assert counts[0] > 0 and sum(counts) == height * width
    gt = pd.DataFrame(
        {
            "image": ["im"] * 3,
            "label": ["a", "b", "c"],
            "segmentation": [block, None, {"size": [height, width], "counts": counts}],
            "xmin": [0.0, 3.6, 12.0],
            "ymin": [0.0, 2.6, 2.0],
            "xmax": [10.0, 9.4, 23.0],
            "ymax": [10.0, 8.4, 16.0],
        }
    )
    triangle, rectangle = [[0, 0, 10, 0, 0, 10]], [[11.2, 9.4, 18.6, 9.4, 18.6, 13.6, 11.2, 13.6]]
    dt = pd.DataFrame(
        {
            "image": ["im"] * 3,
            "label": ["a", "b", "c"],
            "segmentation": [triangle, ell, rectangle],
            "xmin": [0.0, 2.0, 11.0],
            "ymin": [0.0, 2.0, 9.0],
            "xmax": [10.0, 10.0, 19.0],
            "ymax": [10.0, 8.0, 14.0],
            "score": [0.9, 0.8, 0.7],
        }
    )
    return gt, dt, {"im": (height, width)}


def test_cross_type_iou_polygon_raster_box_rle():
    gt, dt, sizes = _cross_type_tables()
    table = dt.detection.match(
        ground_truth=gt, iou_type="segm", image_sizes=sizes, box_format="xyxy", iou_thresholds=[0.1]
    ).set_index("label")
    assert table["ground_truth"].tolist() == [0, 1, 2]
    by_hand = {"a": 45 / 100, "b": 17 / 41, "c": 28 / 61}
    for label, value in by_hand.items():
        assert table.loc[label, "iou"] == pytest.approx(value, rel=1e-15), label
    # valor's conventions pair the same masks
    valor = dt.detection.match(
        ground_truth=gt, iou_type="segm", image_sizes=sizes, iou_thresholds=[0.1], **VALOR
    )
    assert valor.set_index("label")["iou"].to_dict() == pytest.approx(by_hand, rel=1e-15)


def test_cross_type_iou_equals_pycocotools():
    mask = pytest.importorskip("pycocotools.mask")
    gt, dt, sizes = _cross_type_tables()
    height, width = sizes["im"]

    def coco(cell, row):
        if cell is None:  # the row's box, as pycocotools draws an (x, y, w, h) box
            box = [[row.xmin, row.ymin, row.xmax - row.xmin, row.ymax - row.ymin]]
            return mask.frPyObjects(np.array(box), height, width)[0]
        if isinstance(cell, np.ndarray):
            return mask.encode(np.asfortranarray(cell.astype(np.uint8)))
        if isinstance(cell, dict):
            return mask.frPyObjects(cell, height, width)
        return mask.merge(mask.frPyObjects(cell, height, width))

    truths = [coco(c, r) for c, r in zip(gt["segmentation"], gt.itertuples())]
    found = [coco(c, r) for c, r in zip(dt["segmentation"], dt.itertuples())]
    expected = mask.iou(found, truths, [0, 0, 0]).diagonal()
    table = dt.detection.match(
        ground_truth=gt, iou_type="segm", image_sizes=sizes, box_format="xyxy", iou_thresholds=[0.1]
    )
    np.testing.assert_allclose(table["iou"], expected, rtol=1e-15)
    assert mask.area(truths).tolist() == [100, 25, 49]
    assert mask.area(found).tolist() == [45, 33, 40]
