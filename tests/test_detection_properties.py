"""Properties of df.detection and a cross-check against pycocotools on random data."""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pandas as pd
import pytest
from conftest import assert_frame_unchanged
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import pdmetrics  # noqa: F401
from pdmetrics.detection import box_iou, paired_box_iou
from pdmetrics.detection.evaluation import run
from pdmetrics.detection.inputs import BoxColumns

SETTINGS = settings(max_examples=40, deadline=None)


def _random_tables(seed: int, grid: bool = True):
    rng = np.random.default_rng(seed)
    n_images = int(rng.integers(1, 5))
    n_labels = int(rng.integers(1, 4))
    gt_rows, dt_rows = [], []
    for image in range(1, n_images + 1):
        for _ in range(int(rng.integers(0, 6))):
            x, y = rng.integers(0, 30, 2) if grid else rng.uniform(0, 30, 2)
            w, h = rng.integers(1, 40, 2) if grid else rng.uniform(0.5, 40, 2)
            gt_rows.append(
                (
                    image,
                    int(rng.integers(1, n_labels + 1)),
                    float(x),
                    float(y),
                    float(w),
                    float(h),
                    int(rng.random() < 0.15),
                    float(rng.choice([w * h, rng.uniform(1, 12000)])),
                )
            )
        for _ in range(int(rng.integers(0, 9))):
            x, y = rng.integers(0, 30, 2) if grid else rng.uniform(0, 30, 2)
            w, h = rng.integers(1, 40, 2) if grid else rng.uniform(0.5, 40, 2)
            score = float(rng.choice([0.1, 0.5, 0.9])) if grid else float(rng.random())
            dt_rows.append(
                (image, int(rng.integers(1, n_labels + 1)), float(x), float(y), float(w), float(h), score)
            )
    gt = pd.DataFrame(gt_rows, columns=["image", "label", "x", "y", "w", "h", "iscrowd", "area"])
    dt = pd.DataFrame(dt_rows, columns=["image", "label", "x", "y", "w", "h", "score"])
    return (
        gt.astype({"image": "int64", "label": "int64", "iscrowd": "int64"}),
        dt.astype({"image": "int64", "label": "int64"}),
        n_images,
        n_labels,
    )


def _pycocotools_stats(gt, dt, n_images, n_labels, iou_thrs=None, max_dets=None, area_rng=None):
    pytest.importorskip("pycocotools")
    from pycocotools.coco import COCO
    from pycocotools.cocoeval import COCOeval

    dataset = {
        "images": [{"id": i} for i in range(1, n_images + 1)],
        "categories": [{"id": c} for c in range(1, n_labels + 1)],
        "annotations": [
            {
                "id": i + 1,
                "image_id": int(r.image),
                "category_id": int(r.label),
                "bbox": [r.x, r.y, r.w, r.h],
                "area": r.area,
                "iscrowd": int(r.iscrowd),
            }
            for i, r in enumerate(gt.itertuples(index=False))
        ],
    }
    results = [
        {
            "image_id": int(r.image),
            "category_id": int(r.label),
            "bbox": [r.x, r.y, r.w, r.h],
            "score": r.score,
        }
        for r in dt.itertuples(index=False)
    ]
    with contextlib.redirect_stdout(io.StringIO()):
        coco_gt = COCO()
        coco_gt.dataset = dataset
        coco_gt.createIndex()
        coco_dt = coco_gt.loadRes(results)
        evaluator = COCOeval(coco_gt, coco_dt, "bbox")
        if iou_thrs is not None:
            evaluator.params.iouThrs = np.asarray(iou_thrs)
        if max_dets is not None:
            evaluator.params.maxDets = list(max_dets)
        if area_rng is not None:
            evaluator.params.areaRng = [list(v) for v in area_rng.values()]
            evaluator.params.areaRngLbl = list(area_rng)
        evaluator.evaluate()
        evaluator.accumulate()
    return evaluator


@SETTINGS
@given(seed=st.integers(0, 10_000), grid=st.booleans(), variant=st.integers(0, 2))
def test_matches_pycocotools_precision_and_recall_arrays(seed, grid, variant):
    gt, dt, n_images, n_labels = _random_tables(seed, grid)
    assume(not dt.empty)
    options = [
        {},
        {"iou_thrs": [0.1, 0.3, 0.5], "max_dets": [1, 2, 3]},
        {"max_dets": [1, 3, 100], "area_rng": {"all": (0, 1e10), "tiny": (0, 100), "big": (100, 1e10)}},
    ][variant]
    reference = _pycocotools_stats(gt, dt, n_images, n_labels, **options)
    result = run(
        dt,
        gt,
        BoxColumns(iscrowd="iscrowd", area="area", images=range(1, n_images + 1)),
        iou_thresholds=options.get("iou_thrs"),
        max_dets=options.get("max_dets", (1, 10, 100)),
        area_ranges=options.get("area_rng"),
        matching="coco",
        interpolation="coco",
    )
    acc = result.accumulation
    # our label axis holds the labels present in either table; pycocotools' holds 1..n_labels
    columns = np.asarray(acc.labels, dtype=int) - 1
    ref_precision = reference.eval["precision"][:, :, columns]
    ref_recall = reference.eval["recall"][:, columns]
    ours_precision = np.where(np.isnan(acc.precision), -1, acc.precision)
    ours_recall = np.where(np.isnan(acc.recall), -1, acc.recall)
    np.testing.assert_allclose(ours_precision, ref_precision, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours_recall, ref_recall, rtol=0, atol=1e-12)
    ref_scores = reference.eval["scores"][:, :, columns]
    defined = ~np.isnan(acc.precision)
    np.testing.assert_array_equal(acc.scores[defined], ref_scores[defined])


def test_matches_pycocotools_summary_on_continuous_data():
    pytest.importorskip("pycocotools")
    for seed in range(5):
        gt, dt, n_images, n_labels = _random_tables(seed + 100, grid=False)
        if dt.empty or gt.empty:
            continue
        reference = _pycocotools_stats(gt, dt, n_images, n_labels)
        with contextlib.redirect_stdout(io.StringIO()):
            reference.summarize()
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", pdmetrics.UndefinedMetricWarning)
            table = dt.detection.evaluate(
                ground_truth=gt, iscrowd="iscrowd", area="area", images=range(1, n_images + 1)
            )
        ours = np.where(table["value"].isna(), -1, table["value"])
        np.testing.assert_allclose(ours, reference.stats, rtol=0, atol=1e-12)


def _simple_evaluate(gt, dt, **options):
    table = dt.detection.evaluate(ground_truth=gt, area_ranges={"all": (0, 1e10)}, **options)
    return table["value"].to_numpy()


@SETTINGS
@given(seed=st.integers(0, 10_000))
def test_permuting_rows_changes_nothing(seed):
    gt, dt, n_images, _ = _random_tables(seed, grid=False)  # continuous scores: no ties
    assume(not gt.empty and not gt["iscrowd"].all())
    rng = np.random.default_rng(seed)
    first = _simple_evaluate(gt, dt, iscrowd="iscrowd", images=range(1, n_images + 1))
    second = _simple_evaluate(
        gt.sample(frac=1, random_state=rng.integers(1 << 30)),
        dt.sample(frac=1, random_state=rng.integers(1 << 30)),
        iscrowd="iscrowd",
        images=range(1, n_images + 1),
    )
    np.testing.assert_allclose(first, second, rtol=0, atol=1e-15)


@SETTINGS
@given(seed=st.integers(0, 10_000))
def test_perfect_detector_scores_one_and_duplicates_are_false_positives(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 30))
    gt = pd.DataFrame(
        {
            "image": rng.integers(0, 4, n),
            "label": rng.choice(["a", "b", "c"], n),
            "x": 100.0 * np.arange(n),
            "y": rng.uniform(0, 50, n),
            "w": rng.uniform(5, 90, n),
            "h": rng.uniform(5, 90, n),
        }
    )
    perfect = gt.assign(score=rng.uniform(0.5, 1.0, n))
    np.testing.assert_allclose(_simple_evaluate(gt, perfect, max_dets=[100]), 1.0)
    # each detection twice: the copy, scored lower, cannot match a used ground truth
    doubled = pd.concat([perfect, perfect.assign(score=perfect["score"] - 0.5)], ignore_index=True)
    matches = doubled.detection.match(ground_truth=gt, iou_thresholds=[0.5])
    assert matches["tp"].sum() == n
    assert (~matches.loc[matches["detection"] >= n, "tp"]).all()
    ap = doubled.detection.average_precision(ground_truth=gt, iou_thresholds=[0.5])
    np.testing.assert_allclose(ap["AP"], 1.0)  # false positives only after every true positive
    # duplicates scored higher: they take the matches, the originals become false positives
    swapped = doubled.assign(score=np.r_[perfect["score"] - 0.5, perfect["score"]])
    matches = swapped.detection.match(ground_truth=gt, iou_thresholds=[0.5])
    assert matches["tp"].sum() == n
    assert (~matches.loc[matches["detection"] < n, "tp"]).all()


def test_box_iou_matches_pycocotools():
    pytest.importorskip("pycocotools")
    from pycocotools import mask

    rng = np.random.default_rng(0)
    d = rng.uniform(0, 50, (30, 4))
    g = rng.uniform(0, 50, (20, 4))
    crowd = rng.random(20) < 0.3
    expected = mask.iou(d.tolist(), g.tolist(), crowd.astype(np.uint8).tolist())
    np.testing.assert_array_equal(box_iou(d, g, crowd), expected)
    paired = paired_box_iou(d[:20], g, crowd)
    np.testing.assert_array_equal(paired, np.asarray(expected)[np.arange(20), np.arange(20)])


def test_box_iou_xyxy_and_degenerate_boxes():
    iou = box_iou([[0, 0, 10, 10], [5, 5, 5, 5]], [[0, 0, 10, 10], [20, 20, 30, 30]], box_format="xyxy")
    np.testing.assert_allclose(iou, [[1, 0], [0, 0]])
    with pytest.raises(pdmetrics.InvalidInputError, match="box_format"):
        box_iou([[0, 0, 1, 1]], [[0, 0, 1, 1]], box_format="cxcywh")
    with pytest.raises(pdmetrics.InvalidInputError, match="shape"):
        box_iou([[0, 0, 1]], [[0, 0, 1, 1]])


def test_accessor_leaves_frames_unchanged():
    gt, dt, n_images, _ = _random_tables(3, grid=False)
    gt_before, dt_before = gt.copy(), dt.copy()
    kwargs = {"ground_truth": gt, "iscrowd": "iscrowd", "area": "area", "images": range(1, n_images + 1)}
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.UndefinedMetricWarning)
        dt.detection.evaluate(**kwargs)
        dt.detection.average_precision(**kwargs)
        dt.detection.average_recall(**kwargs)
        dt.detection.match(**kwargs)
    assert_frame_unchanged(gt_before, gt)
    assert_frame_unchanged(dt_before, dt)


@SETTINGS
@given(seed=st.integers(0, 10_000), interpolation=st.sampled_from(["coco", "valor"]))
def test_ap_from_the_match_table_equals_the_per_label_table(seed, interpolation):
    from pdmetrics.detection import interpolated_average_precision

    gt, dt, n_images, _ = _random_tables(seed, grid=True)
    options = {
        "ground_truth": gt,
        "iscrowd": "iscrowd",
        "images": range(1, n_images + 1),
        "iou_thresholds": [0.5],
    }
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.UndefinedMetricWarning)
        table = dt.detection.average_precision(interpolation=interpolation, **options).set_index("label")
    matches = dt.detection.match(**options)
    positives = gt[gt["iscrowd"] == 0].groupby("label").size()
    for label, n_positive in positives.items():
        rows = matches[matches["label"] == label]
        value = interpolated_average_precision(
            rows["tp"], rows["score"], int(n_positive), ignored=rows["ignored"], interpolation=interpolation
        )
        assert value == pytest.approx(table.loc[label, "AP@0.50"], abs=1e-12)


@SETTINGS
@given(seed=st.integers(0, 10_000))
def test_valor_counts_and_confusion_ignore_row_order(seed):
    gt, dt, n_images, _ = _random_tables(seed, grid=False)  # continuous scores: no ties
    gt = gt.drop(columns=["iscrowd", "area"])
    assume(not gt.empty)
    rng = np.random.default_rng(seed)
    shuffled_gt = gt.sample(frac=1, random_state=rng.integers(1 << 30))
    shuffled_dt = dt.sample(frac=1, random_state=rng.integers(1 << 30))
    images = range(1, n_images + 1)
    options = {
        "style": "valor",
        "score_thresholds": [0.25, 0.5],
        "matching": "valor",
        "max_dets": None,
        "zero_division": 0,
        "images": images,
    }
    first = dt.detection.pr_curve(ground_truth=gt, **options)
    second = shuffled_dt.detection.pr_curve(ground_truth=shuffled_gt, **options)
    pd.testing.assert_frame_equal(first, second)
    valor = {
        "iou_thresholds": [0.3, 0.5],
        "matching": "valor",
        "interpolation": "valor",
        "max_dets": None,
        "labels_without_ground_truth": "zero",
        "images": images,
    }
    pd.testing.assert_frame_equal(
        dt.detection.average_precision(ground_truth=gt, **valor),
        shuffled_dt.detection.average_precision(ground_truth=shuffled_gt, **valor),
    )
    counts = [
        "tp",
        "fp",
        "fp_misclassification",
        "fp_hallucination",
        "fn",
        "fn_misclassification",
        "fn_missed",
    ]
    first = dt.detection.confusion(ground_truth=gt, images=images, score_thresholds=[0.25, 0.5])
    second = shuffled_dt.detection.confusion(
        ground_truth=shuffled_gt, images=images, score_thresholds=[0.25, 0.5]
    )
    pd.testing.assert_frame_equal(
        first[["label", "score_threshold", *counts]], second[["label", "score_threshold", *counts]]
    )
    first = dt.detection.confusion(ground_truth=gt, images=images, table="matrix")
    second = shuffled_dt.detection.confusion(ground_truth=shuffled_gt, images=images, table="matrix")
    pd.testing.assert_frame_equal(first, second)
