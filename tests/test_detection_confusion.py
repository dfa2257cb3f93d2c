"""Confusion breakdown and matrix of df.detection against valor's answers."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import assert_frame_unchanged, conformance_path
from hypothesis import given, settings
from hypothesis import strategies as st

import pdmetrics  # noqa: F401

BOX = ["xmin", "ymin", "xmax", "ymax"]


def _small_case(index):
    folder = conformance_path("valor", "valor_small_examples")
    case = json.loads((folder / "detection_small_cases.json").read_text())[index]
    gt_rows, dt_rows = [], []
    for image, content in enumerate(case["images"]):
        gt_rows += [(image, str(g[4]), *g[:4]) for g in content["gt"]]
        dt_rows += [(image, str(p[4]), *p[:4], p[5]) for p in content["pd"]]
    gt = pd.DataFrame(gt_rows, columns=["image", "label", *BOX])
    dt = pd.DataFrame(dt_rows, columns=["image", "label", *BOX, "score"])
    return case, gt, dt


@pytest.mark.parametrize("index", [0, 1, 2])
def test_confusion_matrix_matches_valor_lite(index):
    case, gt, dt = _small_case(index)
    for expected in case["expected_valor_lite_0.39.0_confusion_matrix"]:
        parameters, value = expected["parameters"], expected["value"]
        matrix = dt.detection.confusion(
            ground_truth=gt,
            box_format="xyxy",
            table="matrix",
            iou_threshold=parameters["iou_threshold"],
            score_thresholds=[parameters["score_threshold"]],
        )
        cells = matrix.dropna(subset=["truth", "prediction"]).set_index(["truth", "prediction"])["count"]
        unmatched_gt = matrix[matrix["prediction"].isna()].set_index("truth")["count"]
        unmatched_pd = matrix[matrix["truth"].isna()].set_index("prediction")["count"]
        for gt_label, row in value["confusion_matrix"].items():
            for pd_label, count in row.items():
                assert cells.loc[(gt_label, pd_label)] == count, (gt_label, pd_label, parameters)
        for label, count in value["unmatched_predictions"].items():
            assert unmatched_pd.loc[label] == count
        for label, count in value["unmatched_ground_truths"].items():
            assert unmatched_gt.loc[label] == count
        # no count beyond the expected cells
        assert cells.sum() == sum(sum(row.values()) for row in value["confusion_matrix"].values())
        assert unmatched_pd.sum() == sum(value["unmatched_predictions"].values())
        assert unmatched_gt.sum() == sum(value["unmatched_ground_truths"].values())


def _detailed_example():
    folder = conformance_path("valor", "valor_small_examples")
    example = json.loads((folder / "valor_core_detailed_pr_curve_example.json").read_text())
    boxes = example["boxes_xmin_ymin_xmax_ymax"]
    gt = pd.DataFrame(
        [(g["datum"], g["label"], *boxes[g["box"]]) for g in example["groundtruths"]],
        columns=["image", "label", *BOX],
    )
    dt = pd.DataFrame(
        [(p["datum"], p["label"], *boxes[p["box"]], p["score"]) for p in example["predictions"]],
        columns=["image", "label", *BOX, "score"],
    )
    return example, gt, dt


COLUMN = {
    ("tp", "total"): "tp",
    ("fp", "total"): "fp",
    ("fn", "total"): "fn",
    ("fp", "observations", "hallucinations", "count"): "fp_hallucination",
    ("fp", "observations", "misclassifications", "count"): "fp_misclassification",
    ("fn", "observations", "no_predictions", "count"): "fn_missed",
    ("fn", "observations", "misclassifications", "count"): "fn_misclassification",
}


@pytest.mark.parametrize("iou_threshold", [0.5, 0.45])
def test_detailed_breakdown_matches_valor_core_example(iou_threshold):
    example, gt, dt = _detailed_example()
    key = next(k for k in example if k.startswith(f"expected_at_pr_curve_iou_threshold_{iou_threshold}"))
    before = dt.copy()
    table = dt.detection.confusion(
        ground_truth=gt, box_format="xyxy", iou_threshold=iou_threshold, max_examples=1
    )
    assert_frame_unchanged(before, dt)
    table = table.set_index(["label", "score_threshold"])
    for path, count in example[key]:
        label, threshold, *rest = path
        assert table.loc[(label, float(threshold)), COLUMN[tuple(rest)]] == count, path
    assert (table["fp"] == table["fp_hallucination"] + table["fp_misclassification"]).all()
    assert (table["fn"] == table["fn_missed"] + table["fn_misclassification"]).all()
    row = table.loc[("v1", 0.3)]
    assert row["tp_examples"] == [0]  # the index label of the v1 detection
    assert row["fn_missed_examples"] == []
    assert table.loc[("missed_detection", 0.05), "fn_missed_examples"] == [1]


def test_confusion_bad_input():
    _, gt, dt = _detailed_example()
    with pytest.raises(pdmetrics.InvalidInputError, match="table"):
        dt.detection.confusion(ground_truth=gt, box_format="xyxy", table="table")
    with pytest.raises(pdmetrics.InvalidInputError, match="max_examples"):
        dt.detection.confusion(ground_truth=gt, box_format="xyxy", max_examples=-1)
    empty = dt.iloc[:0]
    table = empty.detection.confusion(ground_truth=gt, box_format="xyxy", score_thresholds=[0.5])
    assert table["fn_missed"].sum() == len(gt)
    assert np.all(table["tp"] == 0)


def test_confusion_without_ground_truth_counts_every_detection_unmatched():
    _, gt, dt = _detailed_example()
    empty = gt.iloc[:0]
    images = dt["image"].unique().tolist()
    table = dt.detection.confusion(
        ground_truth=empty, images=images, box_format="xyxy", score_thresholds=[0.0]
    )
    assert table["fp_hallucination"].sum() == len(dt)
    assert table["tp"].sum() == 0 and table["fn"].sum() == 0
    matrix = dt.detection.confusion(
        ground_truth=empty, images=images, box_format="xyxy", table="matrix", score_thresholds=[0.0]
    )
    assert matrix.loc[matrix["truth"].isna(), "count"].sum() == len(dt)
    assert matrix.loc[matrix["truth"].notna(), "count"].sum() == 0


@pytest.mark.parametrize("iou_threshold", [2, -0.1, [0.5, 0.6], "high", float("nan")])
def test_confusion_refuses_iou_threshold_outside_0_1(iou_threshold):
    _, gt, dt = _detailed_example()
    with pytest.raises(pdmetrics.InvalidInputError, match="iou_threshold"):
        dt.detection.confusion(ground_truth=gt, box_format="xyxy", iou_threshold=iou_threshold)


RESULT_NAMES = [
    "label",
    "score_threshold",
    "truth",
    "prediction",
    "count",
    "unmatched_predictions",
    "unmatched_ground_truths",
    "tp",
    "fp",
    "fn",
    "(all)",
]


@settings(max_examples=40, deadline=None)
@given(names=st.lists(st.sampled_from(RESULT_NAMES), min_size=2, max_size=4, unique=True))
def test_class_names_equal_to_result_columns_stay_values(names):
    gt = pd.DataFrame(
        {
            "image": [0, 0, 1],
            "label": [names[0], names[1], names[-1]],
            "x": [0, 50, 0],
            "y": [0, 0, 0],
            "w": [10, 10, 10],
            "h": [10, 10, 10],
        }
    )
    dt = pd.DataFrame(
        {
            "image": [0, 0, 1],
            "label": [names[0], names[0], names[1]],
            "x": [0, 50, 0],
            "y": [0, 0, 0],
            "w": [10, 10, 10],
            "h": [10, 10, 10],
            "score": [0.9, 0.6, 0.7],
        }
    )
    matrix = dt.detection.confusion(ground_truth=gt, table="matrix")
    assert list(matrix.columns) == ["score_threshold", "truth", "prediction", "count"]
    labels = sorted(set(names[:2]) | {names[-1]})
    k = len(labels)
    assert len(matrix) == k * k + 2 * k
    cells = matrix.dropna(subset=["truth", "prediction"]).set_index(["truth", "prediction"])["count"]
    # image 0: both detections pair with their overlapping ground truths; image 1: a mislabel
    expected = pd.Series(0, index=pd.MultiIndex.from_product([labels, labels]))
    for g, p in [(names[0], names[0]), (names[1], names[0]), (names[-1], names[1])]:
        expected[(g, p)] += 1
    assert cells.sort_index().tolist() == expected.sort_index().tolist()
    breakdown = dt.detection.confusion(ground_truth=gt, score_thresholds=[0.5])
    assert sorted(breakdown["label"]) == labels
    assert breakdown["tp"].sum() == 1 + (names[-1] == names[1])


# --------------------------------------------------------------------------------------
# (ground-truth id, detection id) pairs, valor's examples
# --------------------------------------------------------------------------------------
def test_confusion_pairs_columns_and_edge_cases():
    gt = pd.DataFrame(
        {"image": [0], "label": ["a"], "xmin": [0.0], "ymin": [0.0], "xmax": [10.0], "ymax": [10.0]}
    )
    dt = gt.assign(score=0.9).set_axis([42])
    table = dt.detection.confusion(ground_truth=gt, box_format="xyxy", score_thresholds=[0.5])
    assert list(table.columns)[-3:] == [
        "tp_pairs",
        "fp_misclassification_pairs",
        "fn_misclassification_pairs",
    ]
    assert table.loc[0, "tp_pairs"] == [(0, 42)]
    # the matrix gets examples only when asked
    matrix = dt.detection.confusion(ground_truth=gt, box_format="xyxy", table="matrix")
    assert "examples" not in matrix.columns
    matrix = dt.detection.confusion(ground_truth=gt, box_format="xyxy", table="matrix", max_examples=1)
    assert matrix["examples"].tolist() == [[(0, 42)], [], []]
    # no detection / no ground truth: one-sided pairs
    matrix = dt.iloc[:0].detection.confusion(
        ground_truth=gt, box_format="xyxy", table="matrix", max_examples=1
    )
    assert matrix["examples"].tolist() == [[], [(0, None)], []]
    matrix = dt.detection.confusion(
        ground_truth=gt.iloc[:0], images=[0], box_format="xyxy", table="matrix", max_examples=1
    )
    assert matrix["examples"].tolist() == [[], [], [(None, 42)]]
    assert (
        dt.detection.confusion(ground_truth=gt, box_format="xyxy", max_examples=0)["tp_pairs"].tolist()[0]
        == []
    )


# --------------------------------------------------------------------------------------
# valor-lite 0.39's confusion matrix on random cases, scores near valor's 1e-9 cut-off
# --------------------------------------------------------------------------------------
TINY_SCORES = [0.0, 1e-12, 5e-10, 1e-9, 1.0000001e-9, 2e-9, 1e-8]


def _random_case(seed: int):
    rng = np.random.default_rng(seed)

    def table(n, scored):
        x, y = rng.uniform(0, 40, n), rng.uniform(0, 40, n)
        w, h = rng.uniform(2, 15, n), rng.uniform(2, 15, n)
        frame = pd.DataFrame(
            {
                "image": rng.integers(0, 3, n),
                "label": rng.choice(["a", "b", "c"], n),
                "xmin": x,
                "ymin": y,
                "xmax": x + w,
                "ymax": y + h,
            }
        )
        if scored:
            # distinct scores (valor and pdmetrics order exact ties differently; see the module),
            # a share of them at or just around 1e-9
            score = rng.uniform(0, 1, n)
            tiny = rng.random(n) < 0.35
            score[tiny] = rng.choice(TINY_SCORES, int(tiny.sum()), replace=False) if tiny.sum() <= 7 else 0
            frame["score"] = score
        return frame

    gt = table(int(rng.integers(1, 9)), False)
    dt = table(int(rng.integers(1, 11)), True)
    # a copy of a ground-truth box with a tiny score: it would be a true positive if counted
    copy_of = gt.sample(1, random_state=seed).assign(score=float(rng.choice(TINY_SCORES)))
    dt = pd.concat([dt, copy_of], ignore_index=True)
    dt = dt[~dt["score"].duplicated() | (dt["score"] <= 1e-9)].reset_index(drop=True)
    return gt, dt


def _valor_lite_matrices(gt, dt, iou_thresholds, score_thresholds):
    from test_detection_valor import _valor_evaluator

    metrics = _valor_evaluator(gt, dt).compute_confusion_matrix(
        iou_thresholds=iou_thresholds, score_thresholds=score_thresholds
    )
    counts = {}
    for metric in metrics:
        key = (metric.parameters["iou_threshold"], metric.parameters["score_threshold"])
        value = metric.value
        cells = {(t, p): n for t, row in value["confusion_matrix"].items() for p, n in row.items() if n}
        cells |= {(None, p): n for p, n in value["unmatched_predictions"].items() if n}
        cells |= {(t, None): n for t, n in value["unmatched_ground_truths"].items() if n}
        counts[key] = cells
    return counts


def _our_matrices(gt, dt, iou_thresholds, score_thresholds):
    counts = {}
    for iou in iou_thresholds:
        matrix = dt.detection.confusion(
            ground_truth=gt,
            box_format="xyxy",
            table="matrix",
            iou_threshold=iou,
            score_thresholds=score_thresholds,
            images=[0, 1, 2],
        )
        for score, rows in matrix.groupby("score_threshold"):
            rows = rows[rows["count"] > 0]
            counts[(iou, score)] = {
                (None if pd.isna(t) else t, None if pd.isna(p) else p): n
                for t, p, n in zip(rows["truth"], rows["prediction"], rows["count"])
            }
    return counts


@pytest.mark.parametrize("seed", range(60))
def test_confusion_matrix_equals_valor_lite_on_random_cases_with_scores_near_1e_9(seed):
    pytest.importorskip("valor_lite.object_detection")
    gt, dt = _random_case(seed)
    iou_thresholds, score_thresholds = [0.1, 0.5], [0.0, 5e-10, 1e-9, 0.5]
    expected = _valor_lite_matrices(gt, dt, iou_thresholds, score_thresholds)
    assert _our_matrices(gt, dt, iou_thresholds, score_thresholds) == expected
    # the breakdown adds up to the same matrix
    table = dt.detection.confusion(
        ground_truth=gt, box_format="xyxy", score_thresholds=score_thresholds, images=[0, 1, 2]
    )
    for score, rows in table.groupby("score_threshold"):
        cells = expected[(0.5, score)]
        assert rows["tp"].sum() == sum(n for (t, p), n in cells.items() if t == p and t is not None)
        assert rows["fp_hallucination"].sum() == sum(n for (t, _), n in cells.items() if t is None)
        assert rows["fn_missed"].sum() == sum(n for (_, p), n in cells.items() if p is None)


def test_confusion_drops_scores_at_or_below_1e_9_as_valor_does():
    gt = pd.DataFrame(
        {
            "image": [0, 0],
            "label": ["a", "a"],
            "xmin": [0.0, 20.0],
            "ymin": [0.0, 0.0],
            "xmax": [10.0, 30.0],
            "ymax": [10.0, 10.0],
        }
    )
    dt = gt.assign(score=[0.9, 1e-9])
    table = dt.detection.confusion(ground_truth=gt, box_format="xyxy", score_thresholds=[0.0])
    # the 1e-9 detection is neither a true positive nor a hallucination: its ground truth is missed
    assert table[["tp", "fp", "fn_missed"]].to_numpy().tolist() == [[1, 0, 1]]
    assert table["fn_missed_examples"].tolist() == [[1]]
    matrix = dt.detection.confusion(
        ground_truth=gt, box_format="xyxy", table="matrix", score_thresholds=[0.0]
    )
    assert matrix["count"].tolist() == [1, 1, 0]
    just_above = dt.assign(score=[0.9, 1.0000001e-9])
    table = just_above.detection.confusion(ground_truth=gt, box_format="xyxy", score_thresholds=[0.0])
    assert table[["tp", "fp", "fn_missed"]].to_numpy().tolist() == [[2, 0, 0]]
