"""Keypoints (``iou_type="keypoints"``): pycocotools' ``COCOeval(iouType="keypoints")`` to 1e-12 on
random COCO person-keypoint files, the per-keypoint table, every engine, and the edge cases."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import assert_frame_unchanged, objects_kept, pycocotools_evaluator, quiet
from hypothesis import given, settings
from hypothesis import strategies as st
from keypoint_files import keypoint_files

import pdmetrics  # noqa: F401
from pdmetrics.detection import evaluate, keypoint_similarity, paired_oks
from pdmetrics.detection.options import COCO_ATTRS, COCO_KEYPOINT_SIGMAS
from pdmetrics.errors import ColumnNotFoundError, InvalidInputError
from pdmetrics.io import read_coco


def pycocotools_keypoints(dataset: dict, results: list, sigmas=None):
    """pycocotools' 10 keypoint numbers (NaN where it prints -1) and its evaluator."""
    evaluator = pycocotools_evaluator(dataset, results, "keypoints", sigmas=sigmas)
    return np.where(evaluator.stats == -1, np.nan, evaluator.stats), evaluator


CASES = [
    # seed, K, categories, results with boxes
    (0, 17, 1, False),
    (1, 17, 2, False),
    (2, 17, 1, True),
    (3, 5, 1, False),
    (4, 5, 2, True),
    (5, 3, 1, False),
]


def sigmas_for(k: int):
    return None if k == 17 else np.linspace(0.03, 0.11, k)


@pytest.mark.parametrize(("seed", "k", "categories", "with_bbox"), CASES)
def test_the_ten_numbers_equal_pycocotools(seed, k, categories, with_bbox):
    dataset, results = keypoint_files(seed, 40, k, categories=categories, with_bbox=with_bbox)
    gt, dt = read_coco(dataset, results)
    sigmas = sigmas_for(k)
    table = quiet(dt.detection.evaluate, ground_truth=gt, iou_type="keypoints", sigmas=sigmas)
    expected, _ = pycocotools_keypoints(dataset, results, sigmas)
    assert table["metric"].tolist() == ["AP"] * 5 + ["AR"] * 5
    assert table["iou"].tolist()[:3] == ["0.50:0.95", "0.50", "0.75"]
    assert table["iou"].tolist()[5:8] == ["0.50:0.95", "0.50", "0.75"]
    assert table["area"].tolist() == ["all"] * 3 + ["medium", "large"] + ["all"] * 3 + ["medium", "large"]
    assert (table["max_dets"] == 20).all()
    np.testing.assert_allclose(table["value"].to_numpy(), expected, rtol=0, atol=1e-12)


def test_the_files_have_every_case():
    dataset, results = keypoint_files(0, 40, 17)
    annotations = dataset["annotations"]
    assert any(a["iscrowd"] for a in annotations)
    assert any(a["num_keypoints"] == 0 for a in annotations)
    assert any(0 < a["num_keypoints"] < 17 for a in annotations)
    assert len({a["image_id"] for a in annotations}) < len(dataset["images"])  # empty images
    assert not any("bbox" in r for r in results)


def test_oks_equals_pycocotools_compute_oks():
    dataset, results = keypoint_files(7, 20, 17)
    _, evaluator = pycocotools_keypoints(dataset, results)
    gt, dt = read_coco(dataset, results)
    matched = quiet(dt.detection.match, ground_truth=gt, iou_type="keypoints", max_dets=20)
    checked = 0
    for (image, label), ious in evaluator.ious.items():
        if len(ious) == 0:
            continue
        dts = evaluator._dts[image, label]
        gts = evaluator._gts[image, label]
        order = np.argsort([-d["score"] for d in dts], kind="mergesort")[:20]
        dt_keys = [dts[i]["id"] - 1 for i in order]
        gt_rows = gt.index[gt["id"].isin([g["id"] for g in gts])]
        ours = paired_oks(
            np.repeat(dt.loc[dt_keys, "keypoints"].to_numpy(), len(gts)),
            np.tile(gt.loc[gt_rows, "keypoints"].to_numpy(), len(dts[:20])),
            boxes=np.tile(gt.loc[gt_rows, ["x", "y", "w", "h"]].to_numpy(), (len(dt_keys), 1)),
            areas=np.tile(gt.loc[gt_rows, "area"].to_numpy(), len(dt_keys)),
        )
        np.testing.assert_array_equal(ours.reshape(len(dt_keys), len(gts)), ious)  # the same bits
        checked += 1
    assert checked > 10
    assert matched["iou"].notna().any()


def test_a_table_built_by_hand_needs_no_read_coco():
    dataset, results = keypoint_files(11, 30, 17)
    gt, dt = read_coco(dataset, results)
    expected = quiet(dt.detection.evaluate, ground_truth=gt, iou_type="keypoints")
    plain_gt = pd.DataFrame(gt.drop(columns="num_keypoints"))
    plain_gt.attrs = {}
    plain_dt = pd.DataFrame(dt.drop(columns=["x", "y", "w", "h"]))  # boxes from the keypoints' extent
    table = quiet(
        plain_dt.detection.evaluate,
        ground_truth=plain_gt,
        iou_type="keypoints",
        iscrowd="iscrowd",
        area="area",
        images=[i["id"] for i in dataset["images"]],
        sigmas=list(COCO_KEYPOINT_SIGMAS),
    )
    pd.testing.assert_frame_equal(table, expected)


def test_read_coco_keeps_keypoints_and_skeletons():
    dataset, results = keypoint_files(3, 10, 5)
    gt, dt = read_coco(dataset, results)
    assert gt["keypoints"].map(len).eq(15).all()
    assert gt["num_keypoints"].tolist() == [a["num_keypoints"] for a in dataset["annotations"]]
    roles = gt.attrs["pdmetrics.coco"]
    assert roles["num_keypoints"] == "num_keypoints"
    assert roles["keypoint_names"] == {1: [f"joint{j}" for j in range(5)]}
    assert roles["skeleton"][1][0] == [1, 2]
    first = np.asarray(results[0]["keypoints"]).reshape(-1, 3)
    x0, y0 = first[:, 0].min(), first[:, 1].min()
    assert dt.loc[0, ["x", "y"]].tolist() == [x0, y0]
    assert dt.loc[0, "w"] == first[:, 0].max() - x0


def test_match_pr_curve_and_confusion_run_on_keypoints():
    dataset, results = keypoint_files(5, 20, 17)
    gt, dt = read_coco(dataset, results)
    matched = quiet(dt.detection.match, ground_truth=gt, iou_type="keypoints", max_dets=20)
    assert {"tp", "iou"} <= set(matched.columns)
    assert matched.loc[matched["tp"], "iou"].ge(0.5).all()
    curve = quiet(dt.detection.pr_curve, ground_truth=gt, iou_type="keypoints", max_dets=20)
    assert len(curve)
    confusion = quiet(dt.detection.confusion, ground_truth=gt, iou_type="keypoints", iou_threshold=0.5)
    assert len(confusion)


def test_keypoint_similarity_by_hand():
    dataset, results = keypoint_files(8, 25, 17)
    gt, dt = read_coco(dataset, results)
    table = quiet(dt.detection.keypoint_similarity, ground_truth=gt)
    assert table["keypoint"].tolist()[:2] == ["joint0", "joint1"]
    assert set(table["label"]) == {1, "(all)"}
    # by hand from the match table: the true positives' labelled keypoints
    matched = quiet(dt.detection.match, ground_truth=gt, iou_type="keypoints", max_dets=20)
    tp = matched[matched["tp"] & (matched["iou_threshold"] == 0.5)]
    d = np.stack(dt.loc[tp["detection"], "keypoints"].map(np.asarray).to_list()).reshape(len(tp), 17, 3)
    g = np.stack(gt.loc[tp["ground_truth"], "keypoints"].map(np.asarray).to_list()).reshape(len(tp), 17, 3)
    area = gt.loc[tp["ground_truth"], "area"].to_numpy()[:, None]
    e = ((d[:, :, 0] - g[:, :, 0]) ** 2 + (d[:, :, 1] - g[:, :, 1]) ** 2) / (2 * COCO_KEYPOINT_SIGMAS) ** 2
    similarity = np.exp(-e / (area + np.spacing(1)) / 2)
    labelled = g[:, :, 2] > 0
    pooled = table[table["label"] == "(all)"]
    np.testing.assert_allclose(
        pooled["similarity"], (similarity * labelled).sum(axis=0) / labelled.sum(axis=0), rtol=1e-12
    )
    np.testing.assert_allclose(
        pooled["localised"], ((similarity >= 0.5) & labelled).sum(axis=0) / labelled.sum(axis=0), rtol=1e-12
    )
    assert (pooled["n_pairs"] == len(tp)).all()
    assert pooled["n_labelled"].tolist() == labelled.sum(axis=0).tolist()


def small_tables():
    gt = pd.DataFrame(
        {
            "image": [1, 1],
            "label": [1, 1],
            "x": [0.0, 50],
            "y": [0.0, 50],
            "w": [40.0, 40],
            "h": [40.0, 40],
            "keypoints": [[10, 10, 2, 20, 20, 2], [60, 60, 2, 70, 70, 1]],
        }
    )
    dt = pd.DataFrame(
        {"image": [1, 1], "label": [1, 1], "score": [0.9, 0.5], "keypoints": [[11, 10, 1, 20, 21, 1]] * 2}
    )
    return gt, dt


def test_inputs_are_not_changed():
    gt, dt = small_tables()
    before = gt.copy(), dt.copy()
    quiet(evaluate, dt, ground_truth=gt, iou_type="keypoints", sigmas=[0.1, 0.1])
    quiet(keypoint_similarity, dt, ground_truth=gt, sigmas=[0.1, 0.1])
    assert_frame_unchanged(gt, before[0])
    assert_frame_unchanged(dt, before[1])


def test_one_row_and_empty_detections():
    gt, dt = small_tables()
    one = quiet(evaluate, dt.head(1), ground_truth=gt.head(1), iou_type="keypoints", sigmas=[0.1, 0.1])
    assert one["value"].iloc[0] == pytest.approx(1.0, abs=1e-15)
    none = quiet(evaluate, dt.head(0), ground_truth=gt, iou_type="keypoints", sigmas=[0.1, 0.1])
    assert none["value"].iloc[0] == 0.0
    empty = quiet(keypoint_similarity, dt.head(0), ground_truth=gt, sigmas=[0.1, 0.1])
    assert empty["similarity"].isna().all() and (empty["n_pairs"] == 0).all()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda gt, dt: (gt, dt.drop(columns="keypoints")), "keypoints"),
        (
            lambda gt, dt: (gt, dt.assign(keypoints=[[1, 2, 1]] * 2)),
            "2 keypoints per ground truth but 1 per detection",
        ),
        (lambda gt, dt: (gt.assign(keypoints=[[1, 2, 1, 4]] * 2), dt), "holds 4 numbers"),
        (lambda gt, dt: (gt, dt.assign(keypoints=[[1, 2, 1, np.nan, 2, 1]] * 2)), "missing or infinite"),
        (lambda gt, dt: (gt, dt.assign(keypoints=[None, [1, 2, 1, 3, 2, 1]])), "has None in row 0"),
        (lambda gt, dt: (gt, dt.assign(keypoints=[["a", 2, 1, 3, 2, 1]] * 2)), "not a number"),
    ],
)
def test_bad_keypoints_are_named(change, message):
    gt, dt = change(*small_tables())
    error = ColumnNotFoundError if message == "keypoints" else InvalidInputError
    with pytest.raises(error, match=message):
        evaluate(dt, ground_truth=gt, iou_type="keypoints", sigmas=[0.1, 0.1])


def test_sigmas_of_the_wrong_length_name_both():
    gt, dt = small_tables()
    with pytest.raises(InvalidInputError, match=r"K=2 keypoints.*COCO's 17 person sigmas"):
        evaluate(dt, ground_truth=gt, iou_type="keypoints")
    with pytest.raises(InvalidInputError, match=r"K=2 keypoints.*3 values.*pass `sigmas=` with 2 values"):
        evaluate(dt, ground_truth=gt, iou_type="keypoints", sigmas=[0.1, 0.1, 0.1])
    with pytest.raises(InvalidInputError, match="positive numbers"):
        evaluate(dt, ground_truth=gt, iou_type="keypoints", sigmas=[0.1, -1])
    with pytest.raises(InvalidInputError, match=r"`sigmas=` is read only with iou_type='keypoints'"):
        evaluate(dt.assign(x=0, y=0, w=1, h=1), ground_truth=gt, sigmas=[0.1, 0.1])
    with pytest.raises(InvalidInputError, match="oks_threshold"):
        keypoint_similarity(dt, ground_truth=gt, sigmas=[0.1, 0.1], oks_threshold=2)
    with pytest.raises(InvalidInputError, match="keypoint_names"):
        keypoint_similarity(dt, ground_truth=gt, sigmas=[0.1, 0.1], keypoint_names=["a"])


@pytest.mark.parametrize("method", ["evaluate", "keypoint_similarity", "match"])
def test_dask_gives_the_pandas_table(method):
    dd = pytest.importorskip("dask.dataframe")
    dataset, results = keypoint_files(9, 30, 5)
    gt, dt = read_coco(dataset, results)
    options = {"iou_type": "keypoints"} if method != "keypoint_similarity" else {}
    options["sigmas"] = sigmas_for(5)
    if method == "keypoint_similarity":  # a dask frame has no read_coco record of the names
        options["keypoint_names"] = [f"joint{j}" for j in range(5)]
    expected = quiet(getattr(dt.detection, method), ground_truth=gt, **options)
    with objects_kept():
        ddt = dd.from_pandas(dt, npartitions=3)
        dgt = dd.from_pandas(gt, npartitions=3)
        images = [i["id"] for i in dataset["images"]]
        table = quiet(
            getattr(ddt.detection, method),
            ground_truth=dgt,
            iscrowd="iscrowd",
            area="area",
            images=images,
            **options,
        )
    table = table.compute() if hasattr(table, "compute") else table
    pd.testing.assert_frame_equal(table.reset_index(drop=True), expected, check_dtype=False)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 6),
    st.integers(1, 8),
    st.integers(0, 10_000),
    st.floats(-500, 500),
    st.floats(-500, 500),
)
def test_oks_is_a_similarity(n, k, seed, shift_x, shift_y):
    """In [0, 1]; 1 for a detection on its ground truth's labelled keypoints; the same after
    moving both poses (and the box) by one vector."""
    rng = np.random.default_rng(seed)
    gt = np.stack(
        [rng.uniform(0, 100, (n, k)), rng.uniform(0, 100, (n, k)), rng.integers(0, 3, (n, k))], axis=2
    )
    dt = gt + np.concatenate([rng.normal(0, 5, (n, k, 2)), np.zeros((n, k, 1))], axis=2)
    boxes = np.c_[rng.uniform(0, 50, (n, 2)), rng.uniform(1, 60, (n, 2))]
    areas = rng.uniform(1, 3000, n)
    sigmas = rng.uniform(0.02, 0.2, k)
    oks = paired_oks(dt.reshape(n, -1), gt.reshape(n, -1), boxes=boxes, areas=areas, sigmas=sigmas)
    assert ((oks >= 0) & (oks <= 1)).all()
    same = paired_oks(gt.reshape(n, -1), gt.reshape(n, -1), boxes=boxes, areas=areas, sigmas=sigmas)
    labelled = (gt[:, :, 2] > 0).any(axis=1)
    np.testing.assert_array_equal(same[labelled], 1.0)
    move = np.array([shift_x, shift_y, 0.0])
    moved = paired_oks(
        (dt + move).reshape(n, -1),
        (gt + move).reshape(n, -1),
        boxes=boxes + np.r_[shift_x, shift_y, 0, 0],
        areas=areas,
        sigmas=sigmas,
    )
    np.testing.assert_allclose(moved, oks, rtol=0, atol=1e-9)


def test_dask_poses_turned_into_text_are_named():
    dd = pytest.importorskip("dask.dataframe")
    dask = pytest.importorskip("dask")
    gt, dt = small_tables()
    with dask.config.set({"dataframe.convert-string": True, "scheduler": "sync"}):
        ddt = dd.from_pandas(dt, npartitions=2)
        with pytest.raises(InvalidInputError, match=r"dask turned the poses into text.*convert-string"):
            ddt.detection.evaluate(ground_truth=gt, iou_type="keypoints", sigmas=[0.1, 0.1], images=[1])


def test_average_precision_per_label_equals_pycocotools_precision():
    dataset, results = keypoint_files(12, 40, 17, categories=2)
    gt, dt = read_coco(dataset, results)
    table = quiet(dt.detection.average_precision, ground_truth=gt, iou_type="keypoints", max_dets=20)
    _, evaluator = pycocotools_keypoints(dataset, results)
    precision = evaluator.eval["precision"][:, :, :, 0, -1]  # (T, R, K) at area "all"
    for k, label in enumerate(evaluator.params.catIds):
        values = precision[:, :, k]
        row = table[(table["label"] == label) & (table["area"] == "all")]
        assert row["AP"].iloc[0] == pytest.approx(values[values > -1].mean(), abs=1e-12)


def test_xyxy_boxes_and_detections_without_boxes():
    dataset, results = keypoint_files(13, 30, 17)
    gt, dt = read_coco(dataset, results)
    expected = quiet(dt.detection.evaluate, ground_truth=gt, iou_type="keypoints")
    corners = gt.assign(xmax=gt["x"] + gt["w"], ymax=gt["y"] + gt["h"]).rename(
        columns={"x": "xmin", "y": "ymin"}
    )
    table = quiet(
        dt.drop(columns=["x", "y", "w", "h"]).detection.evaluate,
        ground_truth=corners.drop(columns=["w", "h"]),
        iou_type="keypoints",
        box_format="xyxy",
    )
    np.testing.assert_allclose(table["value"], expected["value"], rtol=0, atol=1e-12)


@pytest.mark.parametrize("method", ["errors", "match", "keypoint_similarity"])
def test_sigmas_whose_squares_are_zero_are_refused(method):
    """A sigma of 1e-300 squares to 0: OKS would be 0/0 (NaN), which broke the error types'
    best match with an index error; it is refused naming the sigmas."""
    gt, dt = small_tables()
    options = {} if method == "keypoint_similarity" else {"iou_type": "keypoints"}
    with pytest.raises(InvalidInputError, match=r"not so small that their squares are 0.*1e-300"):
        getattr(dt.detection, method)(ground_truth=gt, sigmas=[0.1, 1e-300], **options)
    with pytest.raises(InvalidInputError, match="not so small"):
        paired_oks(
            dt["keypoints"],
            gt["keypoints"],
            boxes=gt[["x", "y", "w", "h"]],
            areas=[1, 1],
            sigmas=[1e-300] * 2,
        )


def test_keypoint_names_named_twice_are_refused_and_rows_not_a_multiple_of_3_said_so():
    gt, dt = small_tables()
    with pytest.raises(InvalidInputError, match=r"`keypoint_names=` names 'a' more than once"):
        keypoint_similarity(dt, ground_truth=gt, sigmas=[0.1, 0.1], keypoint_names=["a", "a"])
    with pytest.raises(InvalidInputError, match=r"names '1' more than once"):
        keypoint_similarity(dt, ground_truth=gt, sigmas=[0.1, 0.1], keypoint_names=[1, "1"])
    twice = gt.copy()
    twice.attrs = {COCO_ATTRS: {"keypoint_names": {1: ["head", "head"]}}}  # a file's names, alike
    table = keypoint_similarity(dt, ground_truth=twice, sigmas=[0.1, 0.1])
    assert table["keypoint"].tolist() == ["0", "1", "0", "1"]
    with pytest.raises(InvalidInputError, match="holds 5 numbers in row 0, not a positive multiple of 3"):
        evaluate(
            dt, ground_truth=gt.assign(keypoints=[[1, 2, 1, 4, 5]] * 2), iou_type="keypoints", sigmas=[0.1]
        )


def test_a_label_named_like_the_pooled_row_is_refused():
    gt, dt = small_tables()
    gt, dt = gt.assign(label=["(all)", "b"]), dt.assign(label=["(all)", "b"])
    with pytest.raises(InvalidInputError, match=r"`label` holds the value '\(all\)'"):
        keypoint_similarity(dt, ground_truth=gt, sigmas=[0.1, 0.1])


def test_paired_oks_refuses_negative_or_missing_areas_and_misshapen_boxes():
    """A negative area gave an OKS of 134169 and a NaN area a NaN, silently; boxes of the wrong
    shape or text areas were numpy's ValueError."""
    dt, gt, boxes = [[1, 2, 1, 3, 4, 1]] * 2, [[1, 2, 2, 3, 5, 2]] * 2, [[0, 0, 10, 10]] * 2
    for areas, shown in (([-1, 1], "-1.0"), ([np.nan, 1], "nan"), ([np.inf, 1], "inf")):
        with pytest.raises(
            InvalidInputError, match=rf"`areas` must be finite numbers of 0 or more; entry 0 is {shown}"
        ):
            paired_oks(dt, gt, boxes=boxes, areas=areas, sigmas=[0.1, 0.1])
    with pytest.raises(InvalidInputError, match=r"`boxes` must have shape \(n, 4\).*\(2, 3\)"):
        paired_oks(dt, gt, boxes=[[0, 0, 10]] * 2, areas=[1, 1], sigmas=[0.1, 0.1])
    with pytest.raises(InvalidInputError, match="must be numbers"):
        paired_oks(dt, gt, boxes=boxes, areas=["a", "b"], sigmas=[0.1, 0.1])
    assert paired_oks([], [], boxes=[], areas=[]).size == 0


def test_an_infinite_area_is_refused():
    """An infinite ground-truth area with a far keypoint made OKS inf/inf (NaN): match raised an
    IndexError."""
    gt, dt = small_tables()
    gt = gt.assign(area=[np.inf, 100.0])
    with pytest.raises(
        InvalidInputError, match=r"`area='area'` must hold finite non-negative numbers; row 0"
    ):
        dt.detection.match(ground_truth=gt, area="area", iou_type="keypoints", sigmas=[0.1, 0.1])


def test_keypoint_results_with_masks_but_no_boxes_take_the_masks_box_and_area():
    """A keypoint result file whose entries carry an RLE ``segmentation`` and no ``bbox``: each
    detection's box and area are its mask's (pycocotools' ``loadRes`` takes its segmentation
    branch), and those areas decide which detections the medium and large rows ignore."""
    cm = pytest.importorskip("pycocotools.mask")
    dataset, results = keypoint_files(6, 40, 17)
    rng = np.random.default_rng(6)
    for result in results:
        x0, y0 = rng.uniform(0, 320, 2)
        x1, y1 = x0 + rng.uniform(5, 300), y0 + rng.uniform(5, 300)
        rle = cm.merge(cm.frPyObjects([[x0, y0, x1, y0, x1, y1, x0, y1]], 640, 640))
        result["segmentation"] = {"size": rle["size"], "counts": rle["counts"].decode()}
    gt, dt = read_coco(dataset, results)
    expected_area = [
        float(cm.area({"size": r["segmentation"]["size"], "counts": r["segmentation"]["counts"].encode()}))
        for r in results
    ]
    np.testing.assert_array_equal(np.sort(dt["area"].to_numpy()), np.sort(expected_area))
    table = quiet(dt.detection.evaluate, ground_truth=gt, iou_type="keypoints")
    expected, _ = pycocotools_keypoints(dataset, results)
    np.testing.assert_allclose(table["value"].to_numpy(), expected, rtol=0, atol=1e-12)
