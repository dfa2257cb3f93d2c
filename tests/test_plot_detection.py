"""The figures of ``df.detection``: what each one draws, read back from the artists."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from sklearn.metrics import confusion_matrix  # noqa: E402

import pdmetrics  # noqa: E402, F401
from pdmetrics import InvalidInputError  # noqa: E402
from pdmetrics.detection.masks import mask_runs  # noqa: E402
from pdmetrics.plotting import detection as figures  # noqa: E402

CLASSES = ["cat", "dog", "bird", "fish"]


@pytest.fixture(scope="module")
def boxes():
    """A simulated detector: 40 images, 4 classes, jittered hits, some confusions, clutter."""
    rng = np.random.default_rng(3)
    classes = np.array(["car", "person", "bike", "sign"])
    image = np.repeat(np.arange(40), rng.poisson(4, 40))
    n = image.size
    w = rng.uniform(20, 150, n)
    gt = pd.DataFrame(
        {
            "image": image,
            "label": rng.choice(classes, n),
            "x": rng.uniform(0, 500, n),
            "y": rng.uniform(0, 300, n),
            "w": w,
            "h": w,
        }
    )
    src = np.flatnonzero(rng.random(n) < 0.85)
    label = gt["label"].to_numpy()[src].copy()
    swap = rng.random(src.size) < 0.1
    label[swap] = rng.choice(classes, int(swap.sum()))
    hits = gt.iloc[src].assign(
        label=label,
        x=gt["x"].to_numpy()[src] + rng.normal(0, 0.1, src.size) * w[src],
        score=rng.beta(5, 2, src.size),
    )
    clutter = pd.DataFrame(
        {
            "image": rng.integers(0, 40, 60),
            "label": rng.choice(classes, 60),
            "x": rng.uniform(0, 500, 60),
            "y": rng.uniform(0, 300, 60),
            "w": rng.uniform(10, 80, 60),
            "h": rng.uniform(10, 80, 60),
            "score": rng.beta(2, 5, 60),
        }
    )
    return pd.concat([hits, clutter], ignore_index=True), gt


@pytest.fixture(scope="module")
def wide():
    """Softmax scores of 300 datums over 4 classes, the true class boosted."""
    rng = np.random.default_rng(0)
    truth = rng.choice(CLASSES, 300, p=[0.4, 0.3, 0.2, 0.1])
    logits = rng.normal(size=(300, 4))
    logits[np.arange(300), pd.Index(CLASSES).get_indexer(truth)] += 1.5
    scores = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return pd.DataFrame(scores, columns=CLASSES).assign(truth=truth)


@pytest.fixture(scope="module")
def masks():
    rng = np.random.default_rng(1)
    truth = [rng.integers(0, 4, (12, 12)) for _ in range(4)]
    pred = [np.where(rng.random(m.shape) < 0.8, m, rng.integers(0, 4, m.shape)) for m in truth]
    return pd.DataFrame({"gt": truth, "pred": pred})


def texts(labels):
    return [label.get_text() for label in labels]


def legend_texts(ax):
    return texts(ax.get_legend().get_texts())


# ------------------------------------------------------------------------------------------------
# detection PR curves
# ------------------------------------------------------------------------------------------------
def test_pr_curve_draws_one_line_per_label_and_iou_with_the_table_values(boxes):
    dets, gt = boxes
    table = dets.detection.pr_curve(ground_truth=gt, iou_thresholds=[0.5, 0.75])
    ax = figures.pr_curve(table)
    labels = list(pd.unique(table["label"]))
    lines = ax.get_lines()
    assert len(lines) == 2 * len(labels)
    for line, (label, iou) in zip(lines, [(lab, t) for lab in labels for t in (0.5, 0.75)]):
        rows = table[(table["label"] == label) & np.isclose(table["iou"], iou)]
        assert line.get_label() == f"{label}, IoU {iou:.2f}"
        np.testing.assert_array_equal(line.get_xdata(), rows["recall"].to_numpy())
        np.testing.assert_array_equal(line.get_ydata(), rows["precision"].to_numpy())
    assert ax.get_xlim() == (0.0, 1.0) and ax.get_ylim() == (0.0, 1.0)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("recall", "precision")
    assert len(legend_texts(ax)) == 2 * len(labels)


def test_pr_curve_default_and_chosen_iou_thresholds_and_labels(boxes):
    dets, gt = boxes
    table = dets.detection.pr_curve(ground_truth=gt)  # COCO's ten thresholds
    ax = figures.pr_curve(table)
    assert {line.get_label().split("IoU ")[1] for line in ax.get_lines()} == {"0.50", "0.75"}
    ax = figures.pr_curve(table, labels=["sign", "car"], iou_thresholds=0.9)
    assert [line.get_label() for line in ax.get_lines()] == ["sign", "car"]
    assert ax.get_title() == "Precision-recall at IoU 0.90"
    assert len(figures.pr_curve(table, iou_thresholds=0.5, max_labels=2).get_lines()) == 2
    with pytest.raises(InvalidInputError, match=r"`labels=` holds 'horse'.*'car'"):
        figures.pr_curve(table, labels="horse")
    with pytest.raises(InvalidInputError, match=r"`iou_thresholds=0.42` is not in the table's 'iou' column"):
        figures.pr_curve(table, iou_thresholds=[0.5, 0.42])


def test_pr_curve_valor_style_draws_markers(boxes):
    dets, gt = boxes
    table = dets.detection.pr_curve(ground_truth=gt, style="valor", zero_division=0)
    ax = figures.pr_curve(table)
    line = ax.get_lines()[0]
    assert line.get_marker() == "."
    rows = table[table["label"] == table["label"].iloc[0]]
    np.testing.assert_array_equal(line.get_ydata(), rows["precision"].to_numpy())


# ------------------------------------------------------------------------------------------------
# AP bars
# ------------------------------------------------------------------------------------------------
def test_average_precision_bars_sorted_with_the_map_line(boxes):
    dets, gt = boxes
    table = dets.detection.average_precision(ground_truth=gt)
    ax = figures.average_precision(table)
    per_label = table[table["label"] != "(all)"].sort_values("AP", ascending=False)
    assert texts(ax.get_xticklabels()) == per_label["label"].tolist()
    np.testing.assert_allclose([bar.get_height() for bar in ax.patches], per_label["AP"])
    mean = table.loc[table["label"] == "(all)", "AP"].iloc[0]
    (line,) = ax.get_lines()
    np.testing.assert_allclose(line.get_ydata(), [mean, mean])
    assert legend_texts(ax) == [f"mAP = {mean:.3f}"]
    assert texts(ax.texts) == [f"{value:.3f}" for value in per_label["AP"]]
    assert ax.get_ylabel() == "AP"


def test_average_precision_at_one_iou_threshold_and_area(boxes):
    dets, gt = boxes
    areas = {"all": (0, 1e10), "small": (0, 32**2), "large": (32**2, 1e10)}
    table = dets.detection.average_precision(ground_truth=gt, area_ranges=areas)
    ax = figures.average_precision(table, iou_threshold=0.5, area="large")
    large = table[(table["area"] == "large") & (table["label"] != "(all)")]
    np.testing.assert_allclose(sorted(bar.get_height() for bar in ax.patches), sorted(large["AP@0.50"]))
    assert ax.get_ylabel() == "AP@0.50"
    default = figures.average_precision(table)  # area "all"
    everything = table[(table["area"] == "all") & (table["label"] != "(all)")]
    np.testing.assert_allclose(sorted(bar.get_height() for bar in default.patches), sorted(everything["AP"]))
    with pytest.raises(InvalidInputError, match=r"`iou_threshold=0.3`.*no 'AP@0.30' column; pass one of 0.5"):
        figures.average_precision(table, iou_threshold=0.3)
    with pytest.raises(InvalidInputError, match=r"`area='medium'`.*'all', 'small', 'large'"):
        figures.average_precision(table, area="medium")


def test_average_precision_many_labels_turn_horizontal_and_nan_goes_last():
    labels = [f"class{i}" for i in range(12)]
    ap = np.r_[np.nan, np.linspace(0.1, 0.9, 11)]
    table = pd.DataFrame({"label": labels + ["(all)"], "AP": np.r_[ap, 0.5]})
    ax = figures.average_precision(table)
    assert texts(ax.get_yticklabels())[0] == "class11" and texts(ax.get_yticklabels())[-1] == "class0"
    widths = [bar.get_width() for bar in ax.patches]
    np.testing.assert_allclose(widths[:-1], np.sort(ap[1:])[::-1])
    assert np.isnan(widths[-1])
    np.testing.assert_allclose(ax.get_lines()[0].get_xdata(), [0.5, 0.5])
    assert len(figures.average_precision(table, horizontal=False).get_xticklabels()) == 12


# ------------------------------------------------------------------------------------------------
# confusion heatmaps
# ------------------------------------------------------------------------------------------------
def test_detection_confusion_heatmap_has_the_table_counts_and_unmatched_cells(boxes):
    dets, gt = boxes
    table = dets.detection.confusion(ground_truth=gt, table="matrix", score_thresholds=[0.3, 0.5])
    ax = figures.confusion(table)  # default 0.5
    rows = table[table["score_threshold"] == 0.5]
    labels = list(pd.unique(rows["truth"].dropna()))
    assert texts(ax.get_yticklabels()) == labels + ["(none)"]
    assert texts(ax.get_xticklabels()) == labels + ["(none)"]
    expected = (
        rows.fillna({"truth": "(none)", "prediction": "(none)"})
        .pivot(index="truth", columns="prediction", values="count")
        .reindex(index=labels + ["(none)"], columns=labels + ["(none)"])
    )
    drawn = ax.images[0].get_array().filled(np.nan)
    np.testing.assert_array_equal(drawn, expected.to_numpy(float))
    assert np.isnan(drawn[-1, -1])
    assert len(ax.texts) == expected.notna().sum().sum()
    assert ax.get_title() == "Score threshold 0.5"
    assert (ax.get_ylabel(), ax.get_xlabel()) == ("ground truth", "detection")
    low = figures.confusion(table, score_threshold=0.3).images[0].get_array()
    assert low.sum() >= drawn[np.isfinite(drawn)].sum()
    with pytest.raises(InvalidInputError, match=r"`score_threshold=0.9` is not in the table's"):
        figures.confusion(table, score_threshold=0.9)


def test_classification_confusion_equals_scikit_learn_normalized(wide):
    table = wide.detection.classification(y_true="truth", score=CLASSES, table="confusion")
    predicted = np.asarray(CLASSES)[wide[CLASSES].to_numpy().argmax(axis=1)]
    for normalize in (None, "true", "pred", "all"):
        ax = figures.classification_confusion(table, normalize=normalize)
        labels = texts(ax.get_yticklabels())
        assert texts(ax.get_xticklabels()) == labels + ["(none)"]
        expected = confusion_matrix(wide["truth"], predicted, labels=labels, normalize=normalize)
        drawn = ax.images[0].get_array().filled(np.nan)
        np.testing.assert_allclose(drawn[:, :-1], expected)
        assert (ax.get_ylabel(), ax.get_xlabel()) == ("true label", "predicted label")
        plt.close("all")
    assert texts(ax.texts)[0] == f"{expected[0, 0]:.2f}"
    with pytest.raises(InvalidInputError, match=r"`normalize='rows'`: pass None"):
        figures.classification_confusion(table, normalize="rows")


# ------------------------------------------------------------------------------------------------
# ROC, classification PR curves, segmentation
# ------------------------------------------------------------------------------------------------
def test_roc_curve_lines_chance_diagonal_and_auc_in_the_legend(wide):
    table = wide.detection.classification(y_true="truth", score=CLASSES, table="roc_curve")
    auc = wide.detection.classification(y_true="truth", score=CLASSES).set_index("label")["roc_auc"]
    ax = figures.roc_curve(table)
    labels = list(pd.unique(table["label"]))
    *curves, chance = ax.get_lines()
    assert len(curves) == len(labels) == 4
    for line, label in zip(curves, labels):
        rows = table[table["label"] == label]
        np.testing.assert_array_equal(line.get_xdata(), rows["fpr"].to_numpy())
        np.testing.assert_array_equal(line.get_ydata(), rows["tpr"].to_numpy())
        assert line.get_label() == f"{label} (AUC {auc[label]:.3f})"
        assert figures.curve_auc(rows) == pytest.approx(auc[label], rel=1e-12)
    assert chance.get_label() == "chance" and list(chance.get_xdata()) == [0.0, 1.0]
    assert legend_texts(ax)[-1] == "chance"
    with_auc = table.assign(roc_auc=table["label"].map({"cat": 0.5, "dog": 0.6, "bird": 0.7, "fish": 0.8}))
    assert figures.roc_curve(with_auc, labels="fish").get_lines()[0].get_label() == "fish (AUC 0.800)"


def test_roc_curve_of_a_label_without_positives_says_n_a():
    table = pd.DataFrame({"label": ["a", "a"], "fpr": [0.0, 1.0], "tpr": [0.0, 0.0]})
    assert figures.roc_curve(table).get_lines()[0].get_label() == "a (AUC n/a)"


def test_classification_pr_curve_one_line_per_label(wide):
    table = wide.detection.classification(y_true="truth", score=CLASSES, table="pr_curve", zero_division=0)
    ax = figures.classification_pr_curve(table, labels=["fish", "cat"])
    assert [line.get_label() for line in ax.get_lines()] == ["fish", "cat"]
    rows = table[table["label"] == "fish"]
    np.testing.assert_array_equal(ax.get_lines()[0].get_xdata(), rows["recall"].to_numpy())
    np.testing.assert_array_equal(ax.get_lines()[0].get_ydata(), rows["precision"].to_numpy())
    assert ax.get_xlim() == (0.0, 1.0) and ax.get_ylim() == (0.0, 1.0)


def test_segmentation_bars_and_mean_iou_line(masks):
    table = masks.detection.segmentation(y_true="gt", y_pred="pred", background=0)
    summary = masks.detection.segmentation(y_true="gt", y_pred="pred", background=0, table="summary")
    ax = figures.segmentation(table)
    ordered = table.sort_values("iou", ascending=False)
    assert texts(ax.get_xticklabels()) == [str(label) for label in ordered["label"]]
    np.testing.assert_allclose([bar.get_height() for bar in ax.patches], ordered["iou"])
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), [summary["mean_iou"].iloc[0]] * 2, rtol=1e-12)
    f1 = figures.segmentation(table, metric="f1")
    np.testing.assert_allclose(sorted(bar.get_height() for bar in f1.patches), sorted(table["f1"]))
    with pytest.raises(InvalidInputError, match=r"`metric='dice'`"):
        figures.segmentation(table, metric="dice")


def test_operating_points_mark_the_chosen_point_on_each_curve(boxes):
    dets, gt = boxes
    ax = dets.detection.plot.operating_points(ground_truth=gt, objective=("fbeta", 2))
    table = dets.detection.operating_points(ground_truth=gt, objective=("fbeta", 2))
    labels = table["label"].tolist()[:-1]
    lines = ax.get_lines()
    curves = [line for line in lines if line.get_marker() in ("None", None, "")]
    points = [line for line in lines if line.get_marker() in ("o", "*")]
    assert [line.get_label() for line in curves] == [str(label) for label in labels]
    assert len(points) == len(table)
    assert texts(ax.texts) == [f"{t:.3g}" for t in table["score_threshold"]]
    for curve, point in zip(curves, points):  # the chosen point is a vertex of its curve
        at = np.flatnonzero(np.isclose(curve.get_xdata(), point.get_xdata()[0], rtol=0, atol=1e-12))
        assert np.isclose(curve.get_ydata()[at], point.get_ydata()[0], rtol=1e-12).any()
    assert points[-1].get_marker() == "*" and points[-1].get_color() == "black"
    assert ax.get_title() == "Operating points at IoU 0.50"
    plt.close("all")
    with pytest.raises(InvalidInputError, match="`curve=` lacks the column"):
        figures.operating_points(table, curve=table[["label"]])


def test_errors_draw_dap_bars_and_a_pie_of_the_main_errors(boxes):
    dets, gt = boxes
    table = dets.detection.errors(ground_truth=gt)
    ax = figures.errors(table)
    overall = table[table["label"] == "(all)"]
    heights = [bar.get_height() for bar in ax.patches]
    np.testing.assert_allclose(heights, overall["dap"], rtol=1e-12)
    assert texts(ax.get_xticklabels()) == overall["error"].tolist()
    (pie,) = ax.child_axes
    wedges = [text.get_text() for text in pie.texts]
    main = overall[(overall["kind"] == "main") & (overall["dap"] > 0)]
    assert wedges == main["error"].tolist()
    shown = [text.get_text() for text in pie.texts if text.get_visible()]
    assert shown == main.loc[main["dap"] >= 0.03 * main["dap"].sum(), "error"].tolist()  # slivers unnamed
    assert ax.get_title().startswith(f"TIDE errors (AP {overall['ap'].iloc[0]:.3f}")
    plt.close("all")
    one = table["label"].iloc[0]
    ax = figures.errors(table, label=one)
    np.testing.assert_allclose(
        [bar.get_height() for bar in ax.patches], table.loc[table["label"] == one, "dap"], rtol=1e-12
    )
    plt.close("all")
    with pytest.raises(InvalidInputError, match="label"):
        figures.errors(table, label="no such label")


# ------------------------------------------------------------------------------------------------
# every figure: ax=, the table unchanged, a wrong table, the accessor's plot namespace
# ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tables(boxes, wide, masks):
    dets, gt = boxes
    classification = wide.detection.classification
    return {
        "pr_curve": dets.detection.pr_curve(ground_truth=gt, iou_thresholds=[0.5]),
        "operating_points": dets.detection.operating_points(ground_truth=gt),
        "average_precision": dets.detection.average_precision(ground_truth=gt),
        "errors": dets.detection.errors(ground_truth=gt),
        "confusion": dets.detection.confusion(ground_truth=gt, table="matrix"),
        "classification_confusion": classification(y_true="truth", score=CLASSES, table="confusion"),
        "roc_curve": classification(y_true="truth", score=CLASSES, table="roc_curve"),
        "classification_pr_curve": classification(
            y_true="truth", score=CLASSES, table="pr_curve", zero_division=0
        ),
        "segmentation": masks.detection.segmentation(y_true="gt", y_pred="pred", background=0),
    }


# the drawing functions of a table (``masks`` and ``skeletons`` draw the two input tables: tested
# on their own)
NAMES = [name for name in figures.__all__ if name[0].islower() and name not in ("masks", "skeletons")]


@pytest.mark.parametrize("name", NAMES)
def test_given_ax_is_used_and_the_table_is_unchanged(tables, name):
    table = tables[name]
    before = table.copy()
    _, ax = plt.subplots()
    assert getattr(figures, name)(table, ax=ax) is ax
    assert ax.has_data()
    pd.testing.assert_frame_equal(table, before)


PRODUCERS = {
    "pr_curve": r"df\.detection\.pr_curve",
    "operating_points": r"df\.detection\.operating_points",
    "average_precision": r"df\.detection\.average_precision",
    "errors": r"df\.detection\.errors",
    "confusion": r'df\.detection\.confusion\(\.\.\., table="matrix"\)',
    "classification_confusion": r'table="confusion"',
    "roc_curve": r'table="roc_curve"',
    "classification_pr_curve": r'table="pr_curve"',
    "segmentation": r"df\.detection\.segmentation",
}


@pytest.mark.parametrize("name", NAMES)
def test_a_table_missing_a_column_names_the_call_that_makes_it(name):
    table = pd.DataFrame({"label": ["a"], "value": [1.0]})
    with pytest.raises(InvalidInputError, match=r"`table=` lacks the column\(s\) .*" + PRODUCERS[name]):
        getattr(figures, name)(table)
    with pytest.raises(InvalidInputError, match=r"`table=` must be the DataFrame that .* got a list"):
        getattr(figures, name)([1, 2])


def test_the_plot_namespace_draws_the_accessor_tables(boxes, wide, masks, tables):
    dets, gt = boxes
    assert set(NAMES) <= set(dir(dets.detection.plot))
    calls = {
        "pr_curve": lambda: dets.detection.plot.pr_curve(ground_truth=gt, iou_thresholds=[0.5]),
        "average_precision": lambda: dets.detection.plot.average_precision(ground_truth=gt),
        "errors": lambda: dets.detection.plot.errors(ground_truth=gt),
        "confusion": lambda: dets.detection.plot.confusion(ground_truth=gt),
        "classification_confusion": lambda: wide.detection.plot.classification_confusion(
            y_true="truth", score=CLASSES
        ),
        "roc_curve": lambda: wide.detection.plot.roc_curve(y_true="truth", score=CLASSES),
        "classification_pr_curve": lambda: wide.detection.plot.classification_pr_curve(
            y_true="truth", score=CLASSES, zero_division=0
        ),
        "segmentation": lambda: masks.detection.plot.segmentation(y_true="gt", y_pred="pred", background=0),
    }
    for name, call in calls.items():
        mine = call()
        direct = getattr(figures, name)(tables[name])
        assert len(mine.get_lines()) == len(direct.get_lines()), name
        assert len(mine.patches) == len(direct.patches), name
        assert texts(mine.texts) == texts(direct.texts), name
        for a, b in zip(mine.get_lines(), direct.get_lines()):
            np.testing.assert_array_equal(a.get_ydata(), b.get_ydata())
        plt.close("all")


def test_plot_namespace_column_keywords_and_options(boxes):
    dets, gt = boxes
    renamed = dets.rename(columns={"image": "img", "score": "conf"})
    ax = renamed.detection.plot.pr_curve(
        ground_truth=gt.rename(columns={"image": "img"}),
        image="img",
        score="conf",
        iou_thresholds=[0.5, 0.75],
    )
    assert len(ax.get_lines()) == 2 * gt["label"].nunique()
    matrix = dets.detection.plot.confusion(ground_truth=gt, score_threshold=0.3, iou_threshold=0.75)
    expected = dets.detection.confusion(
        ground_truth=gt, table="matrix", score_thresholds=[0.3], iou_threshold=0.75
    )
    assert sum(int(t.get_text()) for t in matrix.texts) == expected["count"].sum()


def _mask_frames():
    square = [[1, 1, 7, 1, 7, 7, 1, 7]]
    gt = pd.DataFrame(
        {
            "image": [1, 1, 2],
            "label": ["cell", "nucleus", "cell"],
            "segmentation": [square, [[10, 10, 14, 10, 14, 14]], square],
        }
    )
    dt = pd.DataFrame(
        {
            "image": [1, 1, 1],
            "label": ["cell", "nucleus", "cell"],
            "segmentation": [[[2, 1, 8, 1, 8, 7, 2, 7]], [[0, 12, 3, 12, 3, 15]], [[15, 0, 19, 0, 19, 4]]],
            "score": [0.9, 0.6, 0.2],
        }
    )
    return gt, dt


def test_masks_fill_ground_truths_and_outline_detections():
    gt, dt = _mask_frames()
    before = dt.copy()
    ax = dt.detection.plot.masks(ground_truth=gt, image=1, image_sizes={1: (16, 20), 2: (16, 20)})
    image = ax.get_images()[0].get_array()
    assert image.shape == (16, 20, 4)
    # the two ground truths of image 1 are tinted, the rest stays white
    tinted = (image[:, :, :3] < 1).any(axis=2)
    expected = mask_runs(gt["segmentation"][:2].tolist(), 16, 20).to_masks()
    np.testing.assert_array_equal(tinted, expected[0] | expected[1])
    texts = sorted(t.get_text() for t in ax.texts)
    assert texts == ["cell 0.20", "cell 0.90 IoU 0.71", "nucleus 0.60"]
    styles = [c.get_linestyle() for c in ax.collections]
    assert len(styles) == 3
    pd.testing.assert_frame_equal(dt, before)
    plt.close("all")
    ax = figures.masks(dt, gt, image=1, image_sizes={1: (16, 20)}, score_threshold=0.5)
    assert len(ax.texts) == 2
    plt.close("all")


def test_masks_refuse_an_unknown_image():
    gt, dt = _mask_frames()
    with pytest.raises(InvalidInputError, match="`image=7` has no row in either table"):
        figures.masks(dt, gt, image=7, image_sizes={1: (16, 20)})


def _pose_frames():
    gt = pd.DataFrame(
        {
            "image": [1, 1, 2],
            "label": ["person", "person", "person"],
            "x": [0.0, 50, 0],
            "y": [0.0, 0, 0],
            "w": [20.0, 20, 20],
            "h": [40.0, 40, 40],
            "keypoints": [[10, 5, 2, 10, 20, 2, 10, 38, 1], [60, 5, 2, 60, 20, 0, 0, 0, 0], [1, 1, 1] * 3],
        }
    )
    dt = pd.DataFrame(
        {
            "image": [1, 1],
            "label": ["person", "person"],
            "score": [0.9, 0.3],
            "keypoints": [[11, 5, 1, 10, 21, 1, 12, 37, 1], [90, 5, 1, 90, 20, 1, 90, 38, 1]],
        }
    )
    return gt, dt


def test_skeletons_draw_labelled_keypoints_and_edges():
    gt, dt = _pose_frames()
    before = dt.copy()
    options = {"sigmas": [0.05, 0.1, 0.1], "skeleton": [(1, 2), (2, 3)]}
    ax = dt.detection.plot.skeletons(ground_truth=gt, image=1, **options)
    lines = ax.get_lines()
    # ground truth 1: 2 edges + markers; ground truth 2: one labelled keypoint (no edge) + markers;
    # each detection: 2 edges + markers
    assert len(lines) == 3 + 1 + 3 + 3
    styles = [line.get_linestyle() for line in lines if line.get_marker() in ("None", None, "")]
    assert styles.count("-") == 2 and styles.count("--") == 2 and styles.count(":") == 2
    assert sorted(t.get_text() for t in ax.texts) == ["person 0.30", "person 0.90 OKS 0.95"]
    assert ax.yaxis_inverted()
    pd.testing.assert_frame_equal(dt, before)
    plt.close("all")
    ax = figures.skeletons(dt, gt, image=1, score_threshold=0.5, **options)
    assert len(ax.texts) == 1
    plt.close("all")


def test_skeletons_refuse_bad_edges_and_images():
    gt, dt = _pose_frames()
    with pytest.raises(InvalidInputError, match=r"`skeleton=` joins keypoints 1, 4.*K=3"):
        figures.skeletons(dt, gt, image=1, sigmas=[0.1] * 3, skeleton=[(1, 4)])
    with pytest.raises(InvalidInputError, match="`image=7` has no row in either table"):
        figures.skeletons(dt, gt, image=7, sigmas=[0.1] * 3)


def test_one_image_figures_name_their_own_thresholds():
    """`oks_threshold=2` was refused as `iou_thresholds=`; a NaN `score_threshold` drew nothing."""
    gt, dt = _pose_frames()
    with pytest.raises(InvalidInputError, match=r"`oks_threshold=` must be one number in \[0, 1\]; got 2"):
        figures.skeletons(dt, gt, image=1, sigmas=[0.1] * 3, oks_threshold=2)
    with pytest.raises(InvalidInputError, match="`score_threshold=`.*nan"):
        figures.skeletons(dt, gt, image=1, sigmas=[0.1] * 3, score_threshold=np.nan)
    plt.close("all")
