"""valor conformance of df.detection (matching="valor", interpolation="valor", ...)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import conformance_path

import pdmetrics  # noqa: F401
from pdmetrics.detection import average_recall, pr_curve

BOX = ["xmin", "ymin", "xmax", "ymax"]
VALOR = {"box_format": "xyxy", "max_dets": None, "matching": "valor", "labels_without_ground_truth": "zero"}


def _regression_tables():
    folder = conformance_path("valor", "valor_lite_coco_regression")
    images = json.loads((folder / "coco_input.json").read_text())
    expected = json.loads((folder / "coco_output.json").read_text())
    gt = pd.DataFrame(
        [
            (d["uid"], a["labels"][0], a["xmin"], a["ymin"], a["xmax"], a["ymax"])
            for d in images
            for a in d["groundtruths"]
        ],
        columns=["image", "label", *BOX],
    )
    dt = pd.DataFrame(
        [
            (d["uid"], a["labels"][0], a["xmin"], a["ymin"], a["xmax"], a["ymax"], a["scores"][0])
            for d in images
            for a in d["predictions"]
        ],
        columns=["image", "label", *BOX, "score"],
    )
    return gt, dt, expected


def _by_label(metrics):
    return {m["parameters"]["label"]: m["value"] for m in metrics}


def test_valor_lite_coco_regression_ap_ar_counts_and_curves():
    gt, dt, expected = _regression_tables()
    options = dict(ground_truth=gt, iou_thresholds=[0.1], **VALOR)
    ap = dt.detection.average_precision(interpolation="valor", **options).set_index("label")
    for label, value in _by_label(expected["AP"]).items():
        assert ap.loc[label, "AP@0.10"] == pytest.approx(value, rel=1e-9, abs=1e-12)
    assert len(ap) == 64 + 1
    assert ap.loc["(all)", "AP"] == pytest.approx(expected["mAP"][0]["value"], rel=1e-9)
    assert ap.loc["(all)", "AP"] == pytest.approx(expected["mAPAveragedOverIOUs"][0]["value"], rel=1e-9)

    ar = dt.detection.average_recall(score_threshold=0.5, **options).set_index("label")
    for label, value in _by_label(expected["AR"]).items():
        assert ar.loc[label, "AR"] == pytest.approx(value, rel=1e-9, abs=1e-12)
    assert ar.loc["(all)", "AR"] == pytest.approx(expected["mAR"][0]["value"], rel=1e-9)
    # one score threshold: the averages over score thresholds are the ARs themselves
    for label, value in _by_label(expected["ARAveragedOverScores"]).items():
        assert ar.loc[label, "AR"] == pytest.approx(value, rel=1e-9, abs=1e-12)
    assert ar.loc["(all)", "AR"] == pytest.approx(expected["mARAveragedOverScores"][0]["value"], rel=1e-9)
    for label, value in _by_label(expected["APAveragedOverIOUs"]).items():
        assert ap.loc[label, "AP"] == pytest.approx(value, rel=1e-9, abs=1e-12)

    counts = pr_curve(
        dt,
        ground_truth=gt,
        style="valor",
        iou_thresholds=[0.1],
        score_thresholds=[0.5],
        box_format="xyxy",
        max_dets=None,
        matching="valor",
        zero_division=0,
    ).set_index("label")
    for metric in expected["Counts"]:
        row = counts.loc[metric["parameters"]["label"]]
        assert (row["tp"], row["fp"], row["fn"]) == (
            metric["value"]["tp"],
            metric["value"]["fp"],
            metric["value"]["fn"],
        )
    for key, column in (("Precision", "precision"), ("Recall", "recall"), ("F1", "f1")):
        for label, value in _by_label(expected[key]).items():
            assert counts.loc[label, column] == pytest.approx(value, rel=1e-9, abs=1e-12)

    curve = pr_curve(dt, ground_truth=gt, iou_thresholds=[0.1], interpolation="valor", **VALOR)
    for metric in expected["PrecisionRecallCurve"]:
        rows = curve[curve["label"] == metric["parameters"]["label"]]
        np.testing.assert_allclose(rows["precision"], metric["value"]["precisions"], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(rows["score"], metric["value"]["scores"], rtol=1e-9, atol=1e-12)


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
    return gt, dt


@pytest.mark.parametrize("index", [0, 1, 2])
def test_valor_small_cases_valor_answers(index):
    case = _small_cases()[index]
    gt, dt = _small_tables(case)
    expected = case["expected_valor_lite_0.39.0"]
    thresholds = case["iou_thresholds"]
    ap = dt.detection.average_precision(
        ground_truth=gt, iou_thresholds=thresholds, interpolation="valor", **VALOR
    ).set_index("label")
    for metric in expected["AP"]:
        column = f"AP@{metric['parameters']['iou_threshold']:.2f}"
        assert ap.loc[metric["parameters"]["label"], column] == pytest.approx(metric["value"], abs=1e-12)
    for metric in expected["mAP"]:
        column = f"AP@{metric['parameters']['iou_threshold']:.2f}"
        assert ap.loc["(all)", column] == pytest.approx(metric["value"], abs=1e-12)
    assert ap.loc["(all)", "AP"] == pytest.approx(expected["mAPAveragedOverIOUs"][0]["value"], abs=1e-12)
    for label, value in _by_label(expected["APAveragedOverIOUs"]).items():
        assert ap.loc[label, "AP"] == pytest.approx(value, abs=1e-12)
    score_threshold = case["score_thresholds"][0]
    ar = dt.detection.average_recall(
        ground_truth=gt, iou_thresholds=thresholds, score_threshold=score_threshold, **VALOR
    ).set_index("label")
    for label, value in _by_label(expected["AR"]).items():
        assert ar.loc[label, "AR"] == pytest.approx(value, abs=1e-12)
    assert ar.loc["(all)", "AR"] == pytest.approx(expected["mAR"][0]["value"], abs=1e-12)
    counts = pr_curve(
        dt,
        ground_truth=gt,
        style="valor",
        iou_thresholds=thresholds,
        score_thresholds=[score_threshold],
        box_format="xyxy",
        max_dets=None,
        matching="valor",
        zero_division=0,
    ).set_index(["label", "iou"])
    for metric in expected["Counts"]:
        row = counts.loc[(metric["parameters"]["label"], metric["parameters"]["iou_threshold"])]
        assert (row["tp"], row["fp"], row["fn"]) == tuple(metric["value"][k] for k in ("tp", "fp", "fn"))
    for key, column in (("Precision", "precision"), ("Recall", "recall"), ("F1", "f1")):
        for metric in expected[key]:
            row = counts.loc[(metric["parameters"]["label"], metric["parameters"]["iou_threshold"])]
            assert row[column] == pytest.approx(metric["value"], abs=1e-12)
    assert ar.loc["(all)", "AR"] == pytest.approx(expected["mARAveragedOverScores"][0]["value"], abs=1e-12)
    curve = pr_curve(dt, ground_truth=gt, iou_thresholds=thresholds, interpolation="valor", **VALOR)
    for metric in expected["PrecisionRecallCurve"]:
        rows = curve[
            (curve["label"] == metric["parameters"]["label"])
            & (curve["iou"] == metric["parameters"]["iou_threshold"])
        ]
        np.testing.assert_allclose(rows["precision"], metric["value"]["precisions"], atol=1e-12)
        np.testing.assert_allclose(rows["score"], metric["value"]["scores"], atol=1e-12)


@pytest.mark.parametrize("index", [0, 1, 2])
def test_valor_small_cases_coco_answers(index):
    case = _small_cases()[index]
    gt, dt = _small_tables(case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.UndefinedMetricWarning)
        ap = dt.detection.average_precision(
            ground_truth=gt, iou_thresholds=case["iou_thresholds"], box_format="xyxy"
        ).set_index("label")
        ar = dt.detection.average_recall(
            ground_truth=gt, iou_thresholds=case["iou_thresholds"], box_format="xyxy"
        ).set_index("label")
    for key, value in case["expected_pycocotools_2.0.11_AP_per_label_iou"].items():
        label, threshold = key.split("@")
        got = ap.loc[label, f"AP@{float(threshold):.2f}"]
        assert (-1.0 if np.isnan(got) else got) == pytest.approx(value, abs=1e-12)
    for key, value in case["expected_pycocotools_2.0.11_recall_per_label_iou_maxDets100"].items():
        label, threshold = key.split("@")
        got = ar.loc[label, f"AR@{float(threshold):.2f}"]
        assert (-1.0 if np.isnan(got) else got) == pytest.approx(value, abs=1e-12)


def _valor_evaluator(gt, dt, prefixes=("g", "p")):
    """A valor-lite 0.39 evaluator of two xyxy box tables; box uids: prefix + index label."""
    od = pytest.importorskip("valor_lite.object_detection")

    def boxes(frame, scored):
        return [
            od.BoundingBox(
                uid=f"{prefixes[scored]}{i}",
                xmin=r.xmin,
                xmax=r.xmax,
                ymin=r.ymin,
                ymax=r.ymax,
                labels=[r.label],
                **({"scores": [r.score]} if scored else {}),
            )
            for i, r in frame.iterrows()
        ]

    loader = od.Loader.in_memory()
    loader.add_bounding_boxes(
        [
            od.Detection(
                uid=str(image),
                groundtruths=boxes(gt[gt["image"] == image], False),
                predictions=boxes(dt[dt["image"] == image], True),
            )
            for image in sorted(set(gt["image"]) | set(dt["image"]))
        ]
    )
    return loader.finalize()


def _valor_lite(gt, dt, iou_thresholds, score_thresholds):
    """valor-lite 0.39's precision/recall metrics for two xyxy box tables."""
    return _valor_evaluator(gt, dt).compute_precision_recall(
        iou_thresholds=iou_thresholds, score_thresholds=score_thresholds
    )


def _valor_counts(metrics):
    od = pytest.importorskip("valor_lite.object_detection")
    return {
        (m.parameters["label"], m.parameters["iou_threshold"], m.parameters["score_threshold"]): (
            m.value["tp"],
            m.value["fp"],
            m.value["fn"],
        )
        for m in metrics[od.MetricType.Counts]
    }


def _our_counts(dt, gt, iou_thresholds, score_thresholds, images):
    table = pr_curve(
        dt,
        ground_truth=gt,
        style="valor",
        iou_thresholds=iou_thresholds,
        score_thresholds=score_thresholds,
        images=images,
        box_format="xyxy",
        max_dets=None,
        matching="valor",
        zero_division=0,
    )
    return {(row.label, row.iou, row.score_threshold): (row.tp, row.fp, row.fn) for row in table.itertuples()}


def _box_table(rows, scored):
    columns = ["image", "label", *BOX] + (["score"] if scored else [])
    return pd.DataFrame(rows, columns=columns)


def test_valor_drops_zero_scores_from_every_count():
    gt = _box_table([(0, "a", 0.0, 0.0, 10.0, 10.0), (0, "a", 20.0, 0.0, 30.0, 10.0)], False)
    dt = _box_table([(0, "a", 0.0, 0.0, 10.0, 10.0, 0.9), (0, "a", 20.0, 0.0, 30.0, 10.0, 1e-9)], True)
    ours = _our_counts(dt, gt, [0.5], [0.0, 0.5], [0])
    assert ours == _valor_counts(_valor_lite(gt, dt, [0.5], [0.0, 0.5]))
    assert ours[("a", 0.5, 0.0)] == (1, 0, 1)  # the 1e-9 detection is neither a tp nor a fp
    ar = dt.detection.average_recall(ground_truth=gt, iou_thresholds=[0.5], **VALOR)
    assert ar["AR"].tolist() == [0.5, 0.5]  # agrees with the curve: recall 1/2
    assert ar["n_detections"].tolist() == [1, 1]
    coco = dt.detection.average_recall(ground_truth=gt, iou_thresholds=[0.5], box_format="xyxy")
    assert coco["AR"].tolist() == [1.0, 1.0]  # COCO counts every detection


def test_valor_iou_threshold_zero_needs_overlap():
    gt = _box_table([(0, "a", 0.0, 0.0, 10.0, 10.0)], False)
    dt = _box_table([(0, "a", 10.0, 0.0, 20.0, 10.0, 0.9), (0, "a", 50.0, 50.0, 60.0, 60.0, 0.8)], True)
    ours = _our_counts(dt, gt, [0.0], [0.5], [0])
    assert ours[("a", 0.0, 0.5)] == (0, 2, 1)  # touching or far boxes never match
    # valor-lite 0.39 itself finds no true positive at all at iou_threshold=0 (its test
    # `previous IoU < threshold` starts from 0); we follow "IoU > 0", which is valor at any
    # threshold in (0, 1e-9]
    overlapping = _box_table([(0, "a", 5.0, 0.0, 15.0, 10.0, 0.9)], True)
    assert _our_counts(overlapping, gt, [0.0], [0.5], [0])[("a", 0.0, 0.5)] == (1, 0, 0)
    reference = _valor_counts(_valor_lite(gt, overlapping, [0.0, 1e-9], [0.5]))
    assert reference[("a", 0.0, 0.5)] == (0, 1, 1)
    assert reference[("a", 1e-9, 0.5)] == (1, 0, 0)


@pytest.mark.parametrize("seed", range(20))
def test_valor_score_ties_follow_valor_lite(seed):
    """Score ties everywhere (scores in {0, 0.5, 1}, boxes on a small grid, two labels).

    valor ranks by score, then IoU, where a detection overlapping no ground truth of its label
    takes its best IoU with a ground truth of another label; then image and input order.
    """
    rng = np.random.default_rng(seed)

    def table(n, scored):
        x, y = rng.integers(0, 6, n).astype(float), rng.integers(0, 6, n).astype(float)
        frame = pd.DataFrame(
            {
                "image": rng.integers(0, 2, n),
                "label": rng.choice(["a", "b"], n),
                "xmin": x,
                "ymin": y,
                "xmax": x + rng.integers(1, 4, n),
                "ymax": y + rng.integers(1, 4, n),
            }
        )
        return frame.assign(score=rng.choice([0.0, 0.5, 1.0], n)) if scored else frame

    gt, dt = table(int(rng.integers(1, 8)), False), table(int(rng.integers(1, 10)), True)
    thresholds = [0.1, 0.5]
    metrics = _valor_lite(gt, dt, thresholds, [0.5])
    od = pytest.importorskip("valor_lite.object_detection")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.UndefinedMetricWarning)
        ap = dt.detection.average_precision(
            ground_truth=gt, iou_thresholds=thresholds, interpolation="valor", images=[0, 1], **VALOR
        ).set_index("label")
    for metric in metrics[od.MetricType.AP]:
        label, threshold = metric.parameters["label"], metric.parameters["iou_threshold"]
        ours = ap.loc[label, f"AP@{threshold:.2f}"] if label in ap.index else 0.0
        assert ours == pytest.approx(metric.value, abs=1e-12)
    expected = _valor_counts(metrics)
    ours = _our_counts(dt, gt, thresholds, [0.5], [0, 1])
    assert {key: ours.get(key, (0, 0, 0)) for key in expected} == expected


# --------------------------------------------------------------------------------------
# average recall over several score thresholds (valor's score_thresholds)
# --------------------------------------------------------------------------------------
def _random_boxes(rng, n, scored, images=3, labels=("a", "b", "c"), span=20, sizes=(2, 8)):
    x, y = rng.integers(0, span, n).astype(float), rng.integers(0, span, n).astype(float)
    frame = pd.DataFrame(
        {
            "image": rng.integers(0, images, n),
            "label": rng.choice(list(labels), n),
            "xmin": x,
            "ymin": y,
            "xmax": x + rng.integers(*sizes, n),
            "ymax": y + rng.integers(*sizes, n),
        }
    )
    return frame.assign(score=np.round(rng.random(n), 2)) if scored else frame


@pytest.mark.parametrize("seed", range(12))
def test_average_recall_over_score_thresholds_matches_valor_lite(seed):
    od = pytest.importorskip("valor_lite.object_detection")
    rng = np.random.default_rng(seed)
    gt = _random_boxes(rng, int(rng.integers(1, 25)), False)
    dt = _random_boxes(rng, int(rng.integers(1, 40)), True)
    ious, scores = [0.1, 0.5, 0.75], [0.25, 0.0, 0.6, 0.9]
    metrics = _valor_lite(gt, dt, ious, scores)
    table = average_recall(dt, ground_truth=gt, iou_thresholds=ious, score_threshold=scores, **VALOR)
    per = table.dropna(subset=["score_threshold"]).set_index(["label", "score_threshold"])
    mean = table[table["score_threshold"].isna()].set_index("label")
    for metric in metrics[od.MetricType.AR]:
        key = (metric.parameters["label"], metric.parameters["score_threshold"])
        assert per.loc[key, "AR"] == pytest.approx(metric.value, abs=1e-12)
    for metric in metrics[od.MetricType.mAR]:
        assert per.loc[("(all)", metric.parameters["score_threshold"]), "AR"] == pytest.approx(
            metric.value, abs=1e-12
        )
    for metric in metrics[od.MetricType.ARAveragedOverScores]:
        assert mean.loc[metric.parameters["label"], "AR"] == pytest.approx(metric.value, abs=1e-12)
    (overall,) = metrics[od.MetricType.mARAveragedOverScores]
    assert mean.loc["(all)", "AR"] == pytest.approx(overall.value, abs=1e-12)
    for metric in metrics[od.MetricType.Recall]:
        p = metric.parameters
        column = f"AR@{p['iou_threshold']:.2f}"
        assert per.loc[(p["label"], p["score_threshold"]), column] == pytest.approx(metric.value, abs=1e-12)


@pytest.mark.parametrize("matching", ["coco", "valor"])
def test_average_recall_score_threshold_list_agrees_with_the_scalar_form(matching):
    rng = np.random.default_rng(5)
    gt, dt = _random_boxes(rng, 15, False), _random_boxes(rng, 30, True)
    options = dict(iou_thresholds=[0.3, 0.5], box_format="xyxy", matching=matching, max_dets=3)
    options["area_ranges"] = {"all": (0, 1e10), "small": (0, 20)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.UndefinedMetricWarning)
        table = average_recall(dt, ground_truth=gt, score_threshold=[0.7, 0.2], **options)
        for threshold in (0.7, 0.2):
            scalar = average_recall(dt, ground_truth=gt, score_threshold=threshold, **options)
            rows = table[table["score_threshold"] == threshold].drop(columns="score_threshold")
            pd.testing.assert_frame_equal(rows.reset_index(drop=True), scalar)
    assert list(table.columns) == [
        "label",
        "area",
        "score_threshold",
        "N",
        "n_detections",
        "AR",
        "AR@0.30",
        "AR@0.50",
    ]
    # the rows with a missing score_threshold average the score thresholds
    mean = table.groupby(["area", "label"], sort=False)
    averaged = table[table["score_threshold"].isna()].set_index(["area", "label"])["AR"]
    expected = mean.apply(lambda g: g.loc[g["score_threshold"].notna(), "AR"].mean())
    assert averaged.tolist() == pytest.approx(expected.loc[averaged.index].tolist(), abs=1e-15)


def test_average_recall_over_score_thresholds_edge_cases():
    gt = _box_table([(0, "a", 0.0, 0.0, 10.0, 10.0)], False)
    one = _box_table([(0, "a", 0.0, 0.0, 10.0, 9.0, 0.5)], True)
    table = average_recall(one, ground_truth=gt, iou_thresholds=[0.5], score_threshold=[0.4, 0.6], **VALOR)
    assert table["AR"].tolist() == [1.0, 0.0, 0.5] * 2
    assert table["n_detections"].tolist() == [1, 0, 1] * 2
    assert table["label"].tolist() == ["a"] * 3 + ["(all)"] * 3
    # no detection: recall 0 at every threshold
    empty = one.iloc[:0]
    table = average_recall(
        empty, ground_truth=gt, iou_thresholds=[0.5], score_threshold=[0.4, 0.6], **VALOR, by=None
    )
    assert table["AR"].tolist() == [0.0, 0.0, 0.0]
    assert table["score_threshold"].isna().tolist() == [False, False, True]
    # no ground truth: undefined (NaN with a warning) unless counted as 0
    with pytest.warns(pdmetrics.UndefinedMetricWarning, match="no ground truth"):
        table = average_recall(
            one,
            ground_truth=gt.iloc[:0],
            images=[0],
            iou_thresholds=[0.5],
            score_threshold=[0.4],
            box_format="xyxy",
        )
    assert table["AR"].isna().all()
    table = average_recall(
        one, ground_truth=gt.iloc[:0], images=[0], iou_thresholds=[0.5], score_threshold=[0.4], **VALOR
    )
    assert table["AR"].tolist() == [0.0, 0.0, 0.0, 0.0]


@pytest.mark.parametrize("bad", [[], ["high"], [0.5, np.nan]])
def test_average_recall_bad_score_thresholds(bad):
    gt = _box_table([(0, "a", 0.0, 0.0, 10.0, 10.0)], False)
    dt = _box_table([(0, "a", 0.0, 0.0, 10.0, 9.0, 0.5)], True)
    with pytest.raises(pdmetrics.InvalidInputError, match="score_threshold"):
        average_recall(dt, ground_truth=gt, score_threshold=bad, box_format="xyxy")


# --------------------------------------------------------------------------------------
# confusion: (ground-truth id, detection id) pairs against valor-lite's examples
# --------------------------------------------------------------------------------------
def _random_named_boxes(seed):
    """Two box tables indexed by box ids ("g0", ..., "p0", ...), with distinct scores."""
    rng = np.random.default_rng(seed)
    gt = _random_boxes(rng, int(rng.integers(1, 12)), False, labels=("a", "b"), span=12, sizes=(2, 6))
    dt = _random_boxes(rng, int(rng.integers(1, 15)), False, labels=("a", "b"), span=12, sizes=(2, 6))
    # distinct scores: valor-lite and pdmetrics order score ties differently (box_confusion docstring)
    dt = dt.assign(score=rng.permutation(len(dt)) / len(dt) * 0.9 + 0.05)
    return gt.set_axis([f"g{i}" for i in range(len(gt))]), dt.set_axis([f"p{i}" for i in range(len(dt))])


def _valor_matrix_examples(gt, dt, iou_threshold, score_threshold):
    (metric,) = _valor_evaluator(gt, dt, prefixes=("", "")).compute_confusion_matrix_with_examples(
        iou_thresholds=[iou_threshold], score_thresholds=[score_threshold]
    )
    value = metric.value
    cells = {
        (g, p): {(e["ground_truth_id"], e["prediction_id"]) for e in cell["examples"]}
        for g, row in value["confusion_matrix"].items()
        for p, cell in row.items()
    }
    unmatched_gt = {
        g: {e["ground_truth_id"] for e in c["examples"]} for g, c in value["unmatched_ground_truths"].items()
    }
    unmatched_pd = {
        p: {e["prediction_id"] for e in c["examples"]} for p, c in value["unmatched_predictions"].items()
    }
    return cells, unmatched_gt, unmatched_pd


@pytest.mark.parametrize("seed", range(10))
def test_confusion_pairs_match_valor_lite_examples(seed):
    gt, dt = _random_named_boxes(seed)
    cells, unmatched_gt, unmatched_pd = _valor_matrix_examples(gt, dt, 0.3, 0.5)
    matrix = dt.detection.confusion(
        ground_truth=gt,
        images=[0, 1, 2],
        box_format="xyxy",
        table="matrix",
        iou_threshold=0.3,
        score_thresholds=[0.5],
        max_examples=100,
    )
    for row in matrix.itertuples():
        found = set(row.examples)
        assert len(found) == row.count
        if not pd.isna(row.truth) and not pd.isna(row.prediction):
            assert found == cells.get((row.truth, row.prediction), set())
        elif pd.isna(row.prediction):
            assert found == {(g, None) for g in unmatched_gt.get(row.truth, set())}
        else:
            assert found == {(None, p) for p in unmatched_pd.get(row.prediction, set())}
    breakdown = dt.detection.confusion(
        ground_truth=gt,
        images=[0, 1, 2],
        box_format="xyxy",
        iou_threshold=0.3,
        score_thresholds=[0.5],
        max_examples=100,
    ).set_index("label")
    for label, row in breakdown.iterrows():
        assert [p for _, p in row["tp_pairs"]] == row["tp_examples"]
        assert set(row["tp_pairs"]) == cells.get((label, label), set())
        assert [p for _, p in row["fp_misclassification_pairs"]] == row["fp_misclassification_examples"]
        assert [g for g, _ in row["fn_misclassification_pairs"]] == row["fn_misclassification_examples"]
        others = {pair for (g, p), pairs in cells.items() if g != p for pair in pairs}
        assert set(row["fp_misclassification_pairs"]) == {
            (g, p) for g, p in others if dt.loc[p, "label"] == label
        }
        assert set(row["fn_misclassification_pairs"]) == {
            (g, p) for g, p in others if gt.loc[g, "label"] == label
        }
