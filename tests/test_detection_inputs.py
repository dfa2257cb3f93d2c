"""Input handling of df.detection and pdmetrics.io.read_coco: clear errors, edge cases."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import assert_frame_unchanged
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import pdmetrics
from pdmetrics._groups import POOLED_LABEL
from pdmetrics.errors import ColumnNotFoundError, InvalidInputError, UndefinedMetricWarning
from pdmetrics.io import coco_image_ids, read_coco

ALL = {"all": (0, 1e10)}


def _tables():
    gt = pd.DataFrame(
        {
            "image": [1, 1, 2],
            "label": [1, 2, 1],
            "x": [0.0, 50, 0],
            "y": [0.0, 0, 0],
            "w": [10.0, 10, 10],
            "h": [10.0, 10, 10],
        }
    )
    dt = pd.DataFrame(
        {
            "image": [1, 2, 2],
            "label": [1, 1, 2],
            "x": [0.0, 1, 30],
            "y": [0.0, 0, 0],
            "w": [10.0, 10, 10],
            "h": [10.0, 10, 10],
            "score": [0.9, 0.8, 0.7],
        }
    )
    return gt, dt


def test_missing_columns_name_the_argument():
    gt, dt = _tables()
    with pytest.raises(ColumnNotFoundError, match="score='conf'"):
        dt.detection.evaluate(ground_truth=gt, score="conf")
    with pytest.raises(ColumnNotFoundError, match="box='x1'"):
        dt.detection.evaluate(ground_truth=gt, box=["x1", "y1", "x2", "y2"])
    with pytest.raises(ColumnNotFoundError, match="iscrowd='crowd'"):
        dt.detection.evaluate(ground_truth=gt, iscrowd="crowd")
    with pytest.raises(InvalidInputError, match="4 columns"):
        dt.detection.evaluate(ground_truth=gt, box=["x", "y"])


@pytest.mark.parametrize(
    "table,column,value,match",
    [
        ("gt", "w", -1.0, "negative size"),
        ("dt", "h", -0.5, "negative size"),
        ("gt", "x", np.nan, "missing or infinite"),
        ("dt", "y", np.inf, "missing or infinite"),
        ("dt", "score", np.nan, "finite numbers"),
        ("dt", "score", "high", "finite numbers"),
        ("gt", "x", "left", "non-number"),
    ],
)
def test_bad_box_values(table, column, value, match):
    gt, dt = _tables()
    frame = gt if table == "gt" else dt
    if isinstance(value, str):
        frame[column] = frame[column].astype(object)
    frame.loc[1, column] = value
    with pytest.raises(InvalidInputError, match=match):
        dt.detection.evaluate(ground_truth=gt)


def test_xyxy_with_inverted_corners_is_refused():
    gt = pd.DataFrame(
        {"image": [1], "label": [1], "xmin": [10.0], "ymin": [0.0], "xmax": [0.0], "ymax": [5.0]}
    )
    dt = gt.assign(score=0.5, xmax=20.0)
    with pytest.raises(InvalidInputError, match="x_max - x_min"):
        dt.detection.evaluate(ground_truth=gt, box_format="xyxy")
    with pytest.raises(InvalidInputError, match="box_format"):
        dt.detection.evaluate(ground_truth=gt, box_format="cxcywh")


def test_detection_on_an_image_without_ground_truth():
    gt, dt = _tables()
    extra = pd.concat([dt, dt.iloc[[0]].assign(image=3, score=0.95)], ignore_index=True)
    with pytest.raises(InvalidInputError, match="images="):
        extra.detection.evaluate(ground_truth=gt)
    # listing the image makes its detection a false positive
    ap = extra.detection.average_precision(ground_truth=gt, images=[1, 2, 3], iou_thresholds=[0.5])
    baseline = dt.detection.average_precision(ground_truth=gt, images=[1, 2, 3], iou_thresholds=[0.5])
    assert ap.loc[0, "AP"] < baseline.loc[0, "AP"]


def test_mixed_id_types_are_refused():
    gt, dt = _tables()
    with pytest.raises(InvalidInputError, match="different types"):
        dt.assign(image=dt["image"].astype(str)).detection.evaluate(ground_truth=gt)
    mixed = gt.assign(image=pd.Series(["1", 1, 2], dtype=object))
    with pytest.raises(InvalidInputError, match="mixes value types"):
        dt.detection.evaluate(ground_truth=mixed)
    with pytest.raises(InvalidInputError, match="missing values"):
        dt.detection.evaluate(ground_truth=gt.assign(label=[1, None, 1]))


def test_string_ids_work():
    gt, dt = _tables()
    names = {1: "cat", 2: "dog"}
    ap_int = dt.detection.average_precision(ground_truth=gt, iou_thresholds=[0.5])
    gt_str = gt.assign(label=gt["label"].map(names), image=gt["image"].map("img{}".format))
    dt_str = dt.assign(label=dt["label"].map(names), image=dt["image"].map("img{}".format))
    ap_str = dt_str.detection.average_precision(ground_truth=gt_str, iou_thresholds=[0.5])
    np.testing.assert_allclose(ap_int["AP"], ap_str["AP"])
    assert ap_str["label"].tolist() == ["cat", "dog", "(all)"]


def test_empty_tables():
    gt, dt = _tables()
    with pytest.raises(InvalidInputError, match="ground-truth table is empty"):
        dt.detection.evaluate(ground_truth=gt.iloc[:0])
    table = dt.iloc[:0].detection.evaluate(ground_truth=gt, area_ranges=ALL)
    np.testing.assert_array_equal(table["value"], 0.0)
    matches = dt.iloc[:0].detection.match(ground_truth=gt)
    assert matches.empty and list(matches.columns)[:3] == ["detection", "image", "label"]


def test_one_row_and_constant_scores():
    gt, dt = _tables()
    table = dt.iloc[:1].detection.evaluate(ground_truth=gt.iloc[:1], area_ranges=ALL)
    np.testing.assert_allclose(table["value"], 1.0)
    same = dt.assign(score=0.5)
    assert same.detection.evaluate(ground_truth=gt, area_ranges=ALL)["value"].notna().all()


def test_bad_options():
    gt, dt = _tables()
    for options, match in [
        ({"iou_thresholds": [1.5]}, "iou_thresholds"),
        ({"max_dets": [0]}, "max_dets"),
        ({"area_ranges": [(0, 1)]}, "area_ranges"),
        ({"matching": "hungarian"}, "matching"),
        ({"interpolation": "11-point"}, "interpolation"),
        ({"labels_without_ground_truth": "drop"}, "labels_without_ground_truth"),
        ({"area_ranges": {"all": (10, 1)}}, "low <= high"),
    ]:
        with pytest.raises(InvalidInputError, match=match):
            dt.detection.evaluate(ground_truth=gt, **options)
    with pytest.raises(InvalidInputError, match="style"):
        dt.detection.pr_curve(ground_truth=gt, style="sklearn")
    with pytest.raises(InvalidInputError, match="ground_truth="):
        dt.detection.evaluate(ground_truth=[1, 2])


def test_labels_without_ground_truth():
    gt, dt = _tables()
    extra = pd.concat([dt, dt.iloc[[0]].assign(label=9)], ignore_index=True)
    with pytest.warns(UndefinedMetricWarning, match="labels_without_ground_truth"):
        ap = extra.detection.average_precision(ground_truth=gt, iou_thresholds=[0.5])
    assert np.isnan(ap.loc[ap["label"] == 9, "AP"]).all()
    zero = extra.detection.average_precision(
        ground_truth=gt, iou_thresholds=[0.5], labels_without_ground_truth="zero"
    )
    assert zero.loc[zero["label"] == 9, "AP"].item() == 0.0
    assert zero.loc[zero["label"] == "(all)", "AP"].item() == pytest.approx(
        ap.loc[ap["label"] == "(all)", "AP"].item() * 2 / 3
    )


def test_evaluate_warns_for_an_empty_area_range():
    gt, dt = _tables()
    with pytest.warns(UndefinedMetricWarning, match="area_ranges="):
        table = dt.detection.evaluate(ground_truth=gt)
    assert table.loc[(table["area"] == "large"), "value"].isna().all()


def test_match_table_and_frames_unchanged():
    gt, dt = _tables()
    gt_before, dt_before = gt.copy(), dt.copy()
    matches = dt.detection.match(ground_truth=gt, iou_thresholds=[0.5, 0.95])
    assert list(matches.columns) == [
        "detection",
        "image",
        "label",
        "score",
        "rank",
        "iou_threshold",
        "ground_truth",
        "detection_id",
        "ground_truth_id",
        "iou",
        "tp",
        "ignored",
        "error",
    ]
    assert len(matches) == 2 * len(dt)
    first = matches[matches["iou_threshold"] == 0.5].set_index("detection")
    assert first.loc[0, "ground_truth"] == 0 and first.loc[0, "tp"]
    assert first.loc[2, "ground_truth"] == -1 and np.isnan(first.loc[2, "iou"])
    for method in ("evaluate", "average_precision", "average_recall", "match", "pr_curve", "confusion"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            getattr(dt.detection, method)(ground_truth=gt)
    assert_frame_unchanged(gt_before, gt)
    assert_frame_unchanged(dt_before, dt)


def test_read_coco_from_paths_and_dicts(tmp_path):
    dataset = {
        "images": [{"id": 1}, {"id": 2}],
        "categories": [{"id": 1}],
        "annotations": [
            {"id": 5, "image_id": 1, "category_id": 1, "bbox": [0, 0, 4, 5], "iscrowd": 0},
            {
                "id": 6,
                "image_id": 1,
                "category_id": 1,
                "bbox": [10, 0, 4, 5],
                "area": 3.0,
                "iscrowd": 1,
                "ignore": 1,
            },
        ],
    }
    results = [{"image_id": 2, "category_id": 1, "bbox": [0, 0, 4, 5], "score": 0.3}]
    path = tmp_path / "gt.json"
    path.write_text(json.dumps(dataset))
    gt, dt = read_coco(path, results)
    assert " ".join(gt.columns) == "id image label category x y w h area iscrowd ignore"
    assert gt["area"].tolist() == [20.0, 3.0] and gt["ignore"].tolist() == [0, 1]
    assert dt["id"].tolist() == [1]
    assert coco_image_ids(path) == [1, 2]
    table = dt.detection.evaluate(
        ground_truth=gt, iscrowd="iscrowd", area="area", images=coco_image_ids(path), area_ranges=ALL
    )
    np.testing.assert_array_equal(table["value"], 0.0)
    gt_only, empty = read_coco(dataset)
    assert empty.empty and " ".join(empty.columns) == "id image label category x y w h score"
    with pytest.raises(InvalidInputError, match="no such file"):
        read_coco(tmp_path / "missing.json")
    with pytest.raises(InvalidInputError, match="bbox"):
        read_coco({"annotations": [{"image_id": 1}]})
    with pytest.raises(InvalidInputError, match="annotations"):
        read_coco({"images": []})


def test_public_namespace():
    for name in (
        "box_iou",
        "paired_box_iou",
        "box_area",
        "evaluate",
        "average_precision",
        "average_recall",
        "match",
        "pr_curve",
        "confusion",
    ):
        assert hasattr(pdmetrics.detection, name)


def test_by_option_of_the_per_label_tables():
    gt, dt = _tables()
    mean_only = dt.detection.average_precision(ground_truth=gt, iou_thresholds=[0.5], by=None)
    full = dt.detection.average_precision(ground_truth=gt, iou_thresholds=[0.5])
    assert mean_only["label"].tolist() == ["(all)"]
    assert mean_only.loc[0, "AP"] == full.loc[full["label"] == "(all)", "AP"].item()
    with pytest.raises(InvalidInputError, match="match"):
        dt.detection.average_recall(ground_truth=gt, by="image")


def test_interpolated_average_precision_edge_cases():
    from pdmetrics.detection import interpolated_average_precision

    with pytest.warns(UndefinedMetricWarning, match="n_positive"):
        assert np.isnan(interpolated_average_precision([True], [0.5], 0))
    with pytest.raises(InvalidInputError, match="one per"):
        interpolated_average_precision([True, False], [0.5], 1)
    assert interpolated_average_precision([], [], 3) == 0.0
    assert interpolated_average_precision([True, True], [0.9, 0.1], 2) == pytest.approx(1.0)
    value = interpolated_average_precision([False, True], [0.9, 0.1], 1, ignored=[True, False])
    assert value == pytest.approx(1.0)


def test_valor_curve_zero_division_follows_the_project_convention():
    gt, dt = _tables()
    options = {"ground_truth": gt, "style": "valor", "score_thresholds": [0.5, 0.95]}
    with pytest.warns(UndefinedMetricWarning, match="zero_division=0"):
        curve = dt.detection.pr_curve(**options)
    high = curve[curve["score_threshold"] == 0.95]
    assert high["precision"].isna().all()  # no detection at or above 0.95: 0/0
    assert (high["recall"] == 0).all() and (high["f1"] == 0).all()  # defined: tp = 0 of N > 0
    valor = dt.detection.pr_curve(zero_division=0, **options)
    assert (valor.loc[valor["score_threshold"] == 0.95, "precision"] == 0).all()
    pd.testing.assert_frame_equal(valor[curve["precision"].notna()], curve[curve["precision"].notna()])
    with pytest.raises(InvalidInputError, match="zero_division"):
        dt.detection.pr_curve(zero_division="zero", **options)


@pytest.mark.parametrize(
    "method,options,match",
    [
        ("pr_curve", {"style": "valor", "score_thresholds": ["high"]}, "score_thresholds="),
        ("pr_curve", {"style": "valor", "score_thresholds": []}, "score_thresholds="),
        ("average_recall", {"score_threshold": "high"}, "score_threshold="),
        ("average_recall", {"score_threshold": [0.1, "x"]}, "score_threshold="),
        ("match", {"area_range": 5}, "area_range="),
        ("pr_curve", {"area_range": ("a", "b")}, "area_range="),
    ],
)
def test_bad_threshold_options_are_clear_errors(method, options, match):
    gt, dt = _tables()
    with pytest.raises(InvalidInputError, match=match):
        getattr(dt.detection, method)(ground_truth=gt, **options)


@pytest.mark.parametrize("column", ["label", "image"])
def test_categorical_ids_work_like_their_categories(column):
    gt, dt = _tables()
    expected = dt.detection.average_precision(ground_truth=gt, iou_thresholds=[0.5])
    for cat_dt, cat_gt in [(True, True), (True, False)]:
        d = dt.astype({column: "category"}) if cat_dt else dt
        g = gt.astype({column: "category"}) if cat_gt else gt
        before = d.copy()
        got = d.detection.average_precision(ground_truth=g, iou_thresholds=[0.5])
        pd.testing.assert_frame_equal(got, expected)
        assert_frame_unchanged(before, d)


def test_read_coco_refuses_a_result_without_score():
    annotations = {"annotations": [{"image_id": 1, "category_id": 1, "bbox": [1, 2, 3, 4]}]}
    results = [
        {"image_id": 1, "category_id": 1, "bbox": [1, 2, 3, 4], "score": 0.5},
        {"image_id": 1, "category_id": 1, "bbox": [1, 2, 3, 4]},
    ]
    with pytest.raises(InvalidInputError, match="entry 1 .* of 'results' has no 'score'"):
        read_coco(annotations, results)


@pytest.mark.parametrize("table,column", [("dt", "score"), ("dt", "x"), ("gt", "w")])
def test_boolean_score_or_box_columns_are_refused(table, column):
    gt, dt = _tables()
    if table == "dt":
        dt = dt.assign(**{column: dt[column] > 0.5})
    else:
        gt = gt.assign(**{column: gt[column] > 0.5})
    with pytest.raises(InvalidInputError, match="boolean"):
        dt.detection.evaluate(ground_truth=gt)


@pytest.mark.parametrize(
    "function,args,match",
    [
        ("box_iou", ([[np.nan, 0, 1, 1]], [[0, 0, 1, 1]]), "missing or infinite"),
        ("box_iou", ([[0, 0, 1, 1]], [[0, 0, -1, 1]]), "negative size"),
        ("paired_box_iou", ([[0, 0, 1, 1]], [[5, 0, 1, -1]]), "negative size"),
        ("box_area", ([[0, 0, np.inf, 1]],), "missing or infinite"),
        ("interpolated_average_precision", ([True], [np.nan], 1), "finite"),
        ("interpolated_average_precision", ([True], [0.5], -1), "n_positive"),
        ("interpolated_average_precision", ([True], [0.5], 1.5), "n_positive"),
        ("interpolated_average_precision", ([True, True], [0.5, 0.4], 1), "matched once"),
    ],
)
def test_public_helpers_refuse_bad_values(function, args, match):
    with pytest.raises(InvalidInputError, match=match):
        getattr(pdmetrics.detection, function)(*args)
    with pytest.raises(InvalidInputError, match="ignored"):
        pdmetrics.detection.interpolated_average_precision([True, False], [0.5, 0.4], 1, ignored=[True])


def test_close_iou_thresholds_get_distinct_columns():
    gt, dt = _tables()
    ap = dt.detection.average_precision(ground_truth=gt, iou_thresholds=[0.5, 0.501])
    assert [c for c in ap.columns if c.startswith("AP@")] == ["AP@0.500", "AP@0.501"]
    ar = dt.detection.average_recall(ground_truth=gt, iou_thresholds=[0.5, 0.75])
    assert [c for c in ar.columns if c.startswith("AR@")] == ["AR@0.50", "AR@0.75"]
    with pytest.raises(InvalidInputError, match="twice"):
        dt.detection.average_precision(ground_truth=gt, iou_thresholds=[0.5, 0.5])


@pytest.mark.parametrize(
    "extra,match",
    [
        ({"iscrowd": None}, "'iscrowd' = None"),
        ({"area": "big"}, "'area' = 'big'"),
        ({"ignore": "x"}, "'ignore' = 'x'"),
        ({"image_id": None}, "no 'image_id'"),
        ({"category_id": None}, "no 'category_id'"),
    ],
)
def test_read_coco_names_the_bad_field(extra, match):
    good = {"image_id": 1, "category_id": 1, "bbox": [1, 2, 3, 4]}
    bad = {**good, **extra}
    if "image_id" in extra or "category_id" in extra:  # the id field is absent
        bad = {k: v for k, v in bad.items() if v is not None}
    with pytest.raises(InvalidInputError, match=match):
        read_coco({"annotations": [good, bad]})


GOOD_ANNOTATION = {"image_id": 1, "category_id": 1, "bbox": [1, 2, 3, 4]}


@pytest.mark.parametrize(
    "annotations,results,match",
    [
        ({"annotations": {"a": 1}}, None, "'annotations' must be a list of objects; got dict"),
        (
            {"annotations": [GOOD_ANNOTATION, [1, 2]]},
            None,
            r"entry 1 .* of 'annotations' is a list of 2 values",
        ),
        (
            {"annotations": [GOOD_ANNOTATION, {**GOOD_ANNOTATION, "bbox": {"x": 1}}]},
            None,
            r"entry 1 .* 'bbox' that is an object \(dict\)",
        ),
        (
            {"annotations": [{**GOOD_ANNOTATION, "bbox": [1, 2, 3]}]},
            None,
            r"entry 0 .* 'bbox' that has 3 values",
        ),
        (
            {"annotations": [{**GOOD_ANNOTATION, "bbox": [1, "2", 3, 4]}]},
            None,
            r"'bbox' that holds '2' \(str\)",
        ),
        (
            {"annotations": [GOOD_ANNOTATION]},
            [{**GOOD_ANNOTATION, "score": float("nan")}],
            r"'score' = nan.*finite",
        ),
        (
            {"annotations": [GOOD_ANNOTATION]},
            [{**GOOD_ANNOTATION, "score": "high"}],
            r"'score' = 'high' \(str\)",
        ),
        (
            {"annotations": [GOOD_ANNOTATION]},
            [{**GOOD_ANNOTATION}],
            r"entry 0 .* of 'results' has no 'score'",
        ),
        (
            {"annotations": [GOOD_ANNOTATION]},
            [{**GOOD_ANNOTATION, "score": 1, "image_id": [1]}],
            r"'image_id' = a list",
        ),
        ({"annotations": [GOOD_ANNOTATION], "images": [{"file": "a.jpg"}]}, None, r"entry 0 .* of 'images'"),
    ],
)
def test_read_coco_errors_name_the_entry_and_the_cause(annotations, results, match):
    with pytest.raises(InvalidInputError, match=match):
        read_coco(annotations, results)


@pytest.mark.parametrize("scale", [1e200, 1e155, -1e200])
def test_huge_coordinates_give_a_clear_error_or_a_plain_number(scale):
    gt, dt = _tables()
    every = {"area_ranges": {"all": (0, 1e10)}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no numpy RuntimeWarning may leak
        overflowing = dt.assign(x=scale, w=abs(scale), h=abs(scale))
        with pytest.raises(InvalidInputError, match="too large for float64.*Rescale"):
            overflowing.detection.evaluate(ground_truth=gt, **every)
        with pytest.raises(InvalidInputError, match="too large for float64"):
            dt.detection.evaluate(ground_truth=gt.assign(y=scale, h=abs(scale), w=abs(scale)), **every)
        # huge but representable boxes, and boxes far apart: plain numbers
        far = dt.assign(x=dt["x"] + scale, w=abs(scale) / 1e10)
        table = far.detection.average_precision(
            ground_truth=gt.assign(x=gt["x"] - scale), iou_thresholds=[0.5]
        )
        assert (table["AP"] == 0).all()
        same = dt.assign(x=dt["x"] * 0 + scale, w=abs(scale) / 1e10)
        table = same.detection.average_precision(
            ground_truth=same.drop(columns="score"), iou_thresholds=[0.5], area_ranges={"all": (0, np.inf)}
        )
        np.testing.assert_allclose(table["AP"], 1.0)


def test_options_are_checked_before_any_work():
    gt, dt = _tables()
    no_columns = dt.drop(columns=["x", "score"])
    for method, options, match in [
        ("evaluate", {"labels_without_ground_truth": "none"}, "labels_without_ground_truth"),
        ("evaluate", {"iou_thresholds": [0.5, 0.5]}, "twice"),
        ("average_precision", {"labels_without_ground_truth": "none"}, "labels_without_ground_truth"),
        ("average_recall", {"score_threshold": "high"}, "score_threshold"),
        ("average_recall", {"by": "image"}, "by="),
        ("match", {"area_range": 5}, "area_range"),
        ("pr_curve", {"zero_division": None}, "zero_division"),
        ("pr_curve", {"style": "voc"}, "style"),
    ]:
        with pytest.raises(InvalidInputError, match=match):
            getattr(no_columns.detection, method)(ground_truth=gt, **options)


def test_messages_print_plain_numbers():
    gt, dt = _tables()
    with pytest.raises(InvalidInputError, match=r"got \[0\.5, 2\.0\]"):
        dt.detection.evaluate(ground_truth=gt, iou_thresholds=np.array([0.5, 2.0]))
    with pytest.raises(InvalidInputError, match=r"got 0\.5\.") as error:
        dt.detection.average_precision(ground_truth=gt, max_dets=np.float64(0.5))
    assert "np." not in str(error.value)


RESULT_NAMES = ["label", "area", "N", "n_detections", "AP", "AP@0.50", "AR", "AR@0.50", "mAP", "mAR"]


@settings(max_examples=30, deadline=None)
@given(
    names=st.lists(st.sampled_from([*RESULT_NAMES, "cat", POOLED_LABEL]), min_size=1, max_size=3, unique=True)
)
def test_labels_named_like_result_columns_or_summaries_never_collide(names):
    gt, dt = _tables()
    codes = {1: names[0], 2: names[-1] if len(names) > 1 else "other"}
    gt = gt.assign(label=gt["label"].map(codes))
    dt = dt.assign(label=dt["label"].map(codes))
    labels = sorted(set(codes.values()))
    for method, kind in (("average_precision", "AP"), ("average_recall", "AR")):
        if POOLED_LABEL in labels:
            with pytest.raises(InvalidInputError, match=r"\(all\)"):
                getattr(dt.detection, method)(ground_truth=gt, iou_thresholds=[0.5])
            continue
        table = getattr(dt.detection, method)(ground_truth=gt, iou_thresholds=[0.5])
        assert list(table.columns) == ["label", "area", "N", "n_detections", kind, f"{kind}@0.50"]
        assert table["label"].tolist() == [*labels, POOLED_LABEL]
        assert table["N"].tolist() == [int((gt["label"] == name).sum()) for name in labels] + [len(gt)]
        mean = getattr(dt.detection, method)(ground_truth=gt, iou_thresholds=[0.5], by=None)
        assert mean["label"].tolist() == [POOLED_LABEL]
        assert mean[kind].item() == table[kind].iloc[-1]
    assume(POOLED_LABEL not in labels)


@pytest.mark.parametrize(
    "gt_index,dt_index,dtype",
    [
        (None, None, "Int64"),
        (["g0", "g1", "g2"], ["d0", "d1", "d2"], None),
        ([1.5, 2.5, 3.5], [0.5, 0.25, 0.125], "float64"),
    ],
)
def test_match_names_the_paired_ground_truth(gt_index, dt_index, dtype):
    gt, dt = _tables()
    gt = gt.iloc[:3] if gt_index is None else gt.iloc[:3].set_axis(gt_index)
    dt = dt.iloc[:3] if dt_index is None else dt.iloc[:3].set_axis(dt_index)
    matches = dt.detection.match(ground_truth=gt, iou_thresholds=[0.5, 0.95])
    matched = matches["ground_truth"] >= 0
    assert matched.any() and not matched.all()
    assert (
        matches.loc[matched, "ground_truth_id"].tolist()
        == gt.index[matches.loc[matched, "ground_truth"]].tolist()
    )
    assert matches.loc[~matched, "ground_truth_id"].isna().all()
    assert matches["detection_id"].tolist() == dt.index[matches["detection"]].tolist()
    if dtype is not None:
        assert matches["ground_truth_id"].dtype == dtype
    empty = dt.iloc[:0].detection.match(ground_truth=gt, iou_thresholds=[0.5])
    assert len(empty) == 0 and "ground_truth_id" in empty.columns
