"""``df.detection.operating_points`` and ``df.detection.per_image``.

The chosen points are recomputed from ``match``'s table with plain pandas, from a brute-force
scan over every candidate threshold, and read back from ``pr_curve(style="valor")`` at the
chosen threshold; the per-image counts from ``match``'s table grouped by image. Engines: dask
(3 partitions) and polars give the pandas table.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdmetrics  # noqa: F401
from pdmetrics import InvalidInputError, UndefinedMetricWarning
from pdmetrics.detection import match, operating_points, per_image, pr_curve
from tests.test_dask_detection import box_tables

REGIONS = {"iscrowd": "iscrowd", "ignore": "ignore", "area": "area"}
OBJECTIVES = ["f1", ("fbeta", 2.0), ("fbeta", 0.5), {"precision": 0.6}, {"recall": 0.5}]


def quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args, **kwargs)


def f_beta(tp, fp, fn, beta):
    b2 = beta**2
    return (1 + b2) * tp / ((1 + b2) * tp + b2 * fn + fp)


def brute_force(score, tp, label, n_positive: dict, objective) -> dict:
    """{label or "(all)": (threshold, tp, fp)} by scanning every candidate threshold."""
    out = {}
    groups = {key: label == key for key in n_positive if key != "(all)"}
    groups["(all)"] = np.ones(score.size, dtype=bool)
    for key, rows in groups.items():
        n = n_positive[key]
        best = None
        if n == 0:
            out[key] = None
            continue
        for t in np.unique(score[rows])[::-1]:  # descending: a later equal value never wins
            at = rows & (score >= t)
            n_tp = int(tp[at].sum())
            n_fp = int(at.sum()) - n_tp
            precision, recall = n_tp / (n_tp + n_fp), n_tp / n
            if isinstance(objective, dict):
                ((kind, target),) = objective.items()
                if (precision if kind == "precision" else recall) < target:
                    continue
                value = recall if kind == "precision" else precision
            else:
                value = f_beta(n_tp, n_fp, n - n_tp, 1.0 if objective == "f1" else objective[1])
            if best is None or value > best[0]:
                best = (value, float(t), n_tp, n_fp)
        out[key] = None if best is None else best[1:]
    return out


def assert_points(table: pd.DataFrame, expected: dict) -> None:
    assert table["label"].tolist() == list(expected)
    for row in table.itertuples():
        point = expected[row.label]
        if point is None:
            assert np.isnan(row.score_threshold) and pd.isna(row.tp) and np.isnan(row.precision)
        else:
            assert (row.score_threshold, row.tp, row.fp) == point, row.label


def matched(dt, gt, **kwargs) -> tuple:
    """Counted detections (score, tp, label) and the positives per label, from ``match``."""
    table = match(dt, ground_truth=gt, iou_thresholds=[0.5], **kwargs)
    counted = table[~table["ignored"]]
    n_positive = dict(zip(table.attrs["pdmetrics"]["labels"], table.attrs["pdmetrics"]["n_positive"]))
    n_positive["(all)"] = sum(n_positive.values())
    return counted["score"].to_numpy(), counted["tp"].to_numpy(), counted["label"].to_numpy(), n_positive


@pytest.mark.parametrize("objective", OBJECTIVES, ids=str)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_brute_force_scan_over_every_threshold(seed, objective):
    gt, dt, images = box_tables(seed, n_gt=80, n_dt=160)
    table = quiet(operating_points, dt, ground_truth=gt, images=images, objective=objective, **REGIONS)
    assert_points(table, brute_force(*matched(dt, gt, images=images, **REGIONS), objective))


@pytest.mark.parametrize("objective", ["f1", {"recall": 0.3}], ids=str)
def test_brute_force_with_valor_matching_and_no_limit(objective):
    gt, dt, images = box_tables(11, n_gt=80, n_dt=160)
    options = {"matching": "valor", "max_dets": None}
    table = quiet(operating_points, dt, ground_truth=gt, images=images, objective=objective, **options)
    m = match(dt, ground_truth=gt, images=images, iou_thresholds=[0.5], **options)
    n_positive = dict(zip(m.attrs["pdmetrics"]["labels"], m.attrs["pdmetrics"]["n_positive"]))
    n_positive["(all)"] = sum(n_positive.values())
    score, tp, label = m["score"].to_numpy(), m["tp"].to_numpy(), m["label"].to_numpy()
    assert_points(table, brute_force(score, tp, label, n_positive, objective))


@pytest.mark.parametrize("seed", [0, 3])
def test_recomputed_from_match_with_plain_pandas(seed):
    gt, dt, images = box_tables(seed, n_gt=80, n_dt=160)
    table = quiet(operating_points, dt, ground_truth=gt, images=images, **REGIONS)
    m = match(dt, ground_truth=gt, images=images, iou_thresholds=[0.5], **REGIONS)
    counted = m.loc[~m["ignored"], ["label", "score", "tp"]]
    positives = pd.Series(m.attrs["pdmetrics"]["n_positive"], index=m.attrs["pdmetrics"]["labels"])
    pooled = counted.assign(label="(all)")
    positives["(all)"] = positives.sum()
    both = pd.concat([counted, pooled])
    candidates = both[["label", "score"]].drop_duplicates().rename(columns={"score": "t"})
    grid = candidates.merge(both, on="label")
    grid = grid[grid["score"] >= grid["t"]]
    counts = grid.groupby(["label", "t"])["tp"].agg(tp="sum", n="size").reset_index()
    counts["fp"] = counts["n"] - counts["tp"]
    counts["N"] = counts["label"].map(positives)
    counts["f1"] = 2 * counts["tp"] / (2 * counts["tp"] + counts["fp"] + counts["N"] - counts["tp"])
    best = (
        counts[counts["N"] > 0]
        .sort_values(["label", "f1", "t"], ascending=[True, False, False])
        .groupby("label")
        .head(1)
        .set_index("label")
    )
    for row in table.itertuples():
        if row.label in best.index:
            chosen = best.loc[row.label]
            assert (row.score_threshold, row.tp, row.fp) == (chosen["t"], chosen["tp"], chosen["fp"])
            assert row.f1 == pytest.approx(chosen["f1"], rel=1e-12)
        else:
            assert np.isnan(row.score_threshold)


def test_the_chosen_point_is_a_row_of_pr_curve():
    gt, dt, images = box_tables(4, n_gt=80, n_dt=160)
    table = quiet(operating_points, dt, ground_truth=gt, images=images, **REGIONS).iloc[:-1].dropna()
    for row in table.itertuples():
        curve = pr_curve(
            dt,
            ground_truth=gt,
            images=images,
            style="valor",
            score_thresholds=[row.score_threshold],
            zero_division=0,
            **REGIONS,
        ).set_index("label")
        expected = curve.loc[row.label]
        assert (row.tp, row.fp, row.fn, row.N) == (
            expected["tp"],
            expected["fp"],
            expected["fn"],
            expected["N"],
        )
        for column in ("precision", "recall", "f1"):
            assert getattr(row, column) == pytest.approx(expected[column], rel=1e-12)


def random_tables(seed: int, n_images: int, n_gt: int, n_dt: int, n_scores: int):
    """Small integer boxes on a few images (many overlaps), coarse scores (many ties)."""
    rng = np.random.default_rng(seed)

    def boxes(n: int) -> pd.DataFrame:
        corner = {c: rng.integers(0, 40, n).astype(float) for c in ("x", "y")}
        size = {c: rng.integers(5, 20, n).astype(float) for c in ("w", "h")}
        return pd.DataFrame(
            {"image": rng.integers(0, n_images, n), "label": rng.integers(0, 3, n), **corner, **size}
        )

    gt = boxes(n_gt).assign(iscrowd=(rng.random(n_gt) < 0.1).astype(int))
    dt = boxes(n_dt).assign(score=rng.integers(1, n_scores + 1, n_dt) / n_scores)
    return gt, dt, list(range(n_images))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    n_images=st.integers(1, 5),
    n_gt=st.integers(1, 25),
    n_dt=st.integers(0, 40),
    n_scores=st.integers(1, 6),
    objective=st.sampled_from(OBJECTIVES + [{"precision": 0.0}, {"recall": 1.0}]),
    iou=st.sampled_from([0.1, 0.5]),
)
def test_property_the_chosen_point_is_the_brute_force_one(
    seed, n_images, n_gt, n_dt, n_scores, objective, iou
):
    gt, dt, images = random_tables(seed, n_images, n_gt, n_dt, n_scores)
    table = quiet(
        operating_points,
        dt,
        ground_truth=gt,
        images=images,
        iou_threshold=iou,
        objective=objective,
        iscrowd="iscrowd",
    )
    m = match(dt, ground_truth=gt, images=images, iou_thresholds=[iou], iscrowd="iscrowd")
    counted = m[~m["ignored"]]
    n_positive = dict(zip(m.attrs["pdmetrics"]["labels"], m.attrs["pdmetrics"]["n_positive"]))
    n_positive["(all)"] = sum(n_positive.values())
    score, tp, label = counted["score"].to_numpy(), counted["tp"].to_numpy(), counted["label"].to_numpy()
    assert_points(table, brute_force(score, tp, label, n_positive, objective))
    chosen = table.dropna(subset=["score_threshold"])
    # the ratios from the counts
    np.testing.assert_allclose(chosen["precision"], chosen["tp"] / (chosen["tp"] + chosen["fp"]), rtol=1e-12)
    np.testing.assert_allclose(chosen["recall"], chosen["tp"] / chosen["N"], rtol=1e-12)
    assert (chosen["fn"] == chosen["N"] - chosen["tp"]).all()


def test_fbeta_column_and_info():
    gt, dt, images = box_tables(5)
    table = quiet(operating_points, dt, ground_truth=gt, images=images, objective=("fbeta", 2))
    assert list(table.columns) == [
        "label",
        "iou",
        "N",
        "score_threshold",
        "tp",
        "fp",
        "fn",
        "precision",
        "recall",
        "f1",
        "fbeta",
    ]
    chosen = table.dropna(subset=["score_threshold"])
    expected = f_beta(chosen["tp"].astype(float), chosen["fp"], chosen["fn"], 2.0)
    np.testing.assert_allclose(chosen["fbeta"], expected, rtol=1e-12)
    assert table.attrs["pdmetrics"]["beta"] == 2.0
    assert quiet(operating_points, dt, ground_truth=gt, images=images, by=None)["label"].tolist() == ["(all)"]


# --------------------------------------------------------------------------------------
# edge cases
# --------------------------------------------------------------------------------------
def one_box(**more) -> pd.DataFrame:
    return pd.DataFrame(
        {"image": [1], "label": ["a"], "x": [0.0], "y": [0.0], "w": [10.0], "h": [10.0], **more}
    )


def test_no_detections_gives_nan_rows_with_a_warning():
    gt = one_box()
    dt = one_box(score=[0.5]).iloc[:0]
    with pytest.warns(UndefinedMetricWarning, match="no counted detection: 'a', '\\(all\\)'"):
        table = operating_points(dt, ground_truth=gt)
    assert table["label"].tolist() == ["a", "(all)"]
    assert table["score_threshold"].isna().all() and table["tp"].isna().all()
    assert table["N"].tolist() == [1, 1]
    with pytest.warns(UndefinedMetricWarning, match="Precision \\(an image without a counted detection\\)"):
        images = per_image(dt, ground_truth=gt)
    assert images[["image", "N", "tp", "fp", "fn"]].values.tolist() == [[1, 1, 0, 0, 1]]
    assert np.isnan(images["precision"][0]) and images["recall"][0] == 0


def test_a_label_without_ground_truth_and_no_ground_truth_at_all():
    gt = one_box()
    dt = pd.concat([one_box(score=[0.9]), one_box(score=[0.8]).assign(label="b")], ignore_index=True)
    with pytest.warns(UndefinedMetricWarning, match="no ground truth \\(N = 0\\): 'b'"):
        table = operating_points(dt, ground_truth=gt)
    assert table["score_threshold"].tolist()[0] == 0.9
    assert np.isnan(table["score_threshold"][1])
    # the pooled row counts b's detection as a false positive: threshold 0.9 keeps only a's
    assert table.iloc[2][["score_threshold", "tp", "fp"]].tolist() == [0.9, 1, 0]
    with pytest.warns(UndefinedMetricWarning, match="no ground truth"):
        empty = operating_points(dt, ground_truth=gt.iloc[:0], images=[1])
    assert empty["score_threshold"].isna().all()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        images = per_image(dt, ground_truth=gt.iloc[:0], images=[1, 2])
    said = " ".join(str(w.message) for w in caught)
    assert "Recall (an image without ground truth)" in said and "Precision (an image without" in said
    assert images[["image", "N", "n_detections", "tp", "fp"]].values.tolist() == [
        [1, 0, 2, 0, 2],
        [2, 0, 0, 0, 0],
    ]
    assert per_image(dt, ground_truth=gt.iloc[:0], images=[1, 2], zero_division=0)["recall"].tolist() == [
        0,
        0,
    ]


def test_all_scores_equal_gives_the_one_candidate():
    gt, dt, images = box_tables(6)
    table = quiet(operating_points, dt.assign(score=0.7), ground_truth=gt, images=images)
    chosen = table.dropna(subset=["score_threshold"])
    assert (chosen["score_threshold"] == 0.7).all()
    assert len(chosen) == (table["N"] > 0).sum()


def test_one_image_and_ties_take_the_highest_threshold():
    gt = pd.concat([one_box(), one_box(x=[50.0])], ignore_index=True)
    # 0.9 hits, 0.8 misses, 0.7 hits: F1 is 2/3 at 0.9 and 0.8 -> 0.9; 0.8 at 0.7
    dt = pd.concat(
        [one_box(score=[0.9]), one_box(x=[90.0], score=[0.8]), one_box(x=[50.0], score=[0.7])],
        ignore_index=True,
    )
    table = operating_points(dt, ground_truth=gt)
    assert table["score_threshold"].tolist() == [0.7, 0.7]
    # precision 1 is met only at 0.9: the highest recall there
    high = operating_points(dt, ground_truth=gt, objective={"precision": 1.0}, by=None)
    assert high[["score_threshold", "tp", "fp", "fn"]].values.tolist() == [[0.9, 1, 0, 1]]
    # a tie on recall 0.5 between 0.9 and 0.8 is broken toward 0.9 (fewest detections)
    tie = operating_points(dt.iloc[:2], ground_truth=gt, objective={"recall": 0.5}, by=None)
    assert tie["score_threshold"].tolist() == [0.9]
    # an unmet target is a NaN row
    with pytest.warns(UndefinedMetricWarning, match="no threshold meeting the recall target 1"):
        unmet = operating_points(dt.iloc[:2], ground_truth=gt, objective={"recall": 1.0}, by=None)
    assert np.isnan(unmet["score_threshold"][0])


def test_crowds_are_neither_true_nor_false_positives():
    gt = pd.concat([one_box(iscrowd=[0]), one_box(x=[50.0], w=[40.0], iscrowd=[1])], ignore_index=True)
    dt = pd.concat(
        [one_box(score=[0.9]), one_box(x=[55.0], score=[0.95]), one_box(x=[60.0], score=[0.3])],
        ignore_index=True,
    )
    table = operating_points(dt, ground_truth=gt, iscrowd="iscrowd", by=None)
    assert table[["N", "score_threshold", "tp", "fp", "fn"]].values.tolist() == [[1, 0.9, 1, 0, 0]]
    images = per_image(dt, ground_truth=gt, iscrowd="iscrowd", score_threshold=0.1)
    assert images[["N", "n_detections", "tp", "fp", "fn"]].values.tolist() == [[1, 3, 1, 0, 0]]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"objective": "accuracy"},
            '`objective=\'accuracy\'` is not supported: use "f1", \\("fbeta", beta\\)',
        ),
        ({"objective": ("fbeta", -1)}, "beta must be a positive number"),
        ({"objective": {"precision": 2}}, "the precision target must be a number in \\[0, 1\\]"),
        ({"objective": {"precision": 0.5, "recall": 0.5}}, "is not supported: use"),
        ({"iou_threshold": 1.5}, "`iou_threshold=` must be one number in \\[0, 1\\]; got 1.5"),
        ({"by": "image"}, "`by='image'` is not supported"),
        ({"max_dets": [1, 10]}, "`max_dets=` must be one positive integer or None here"),
        ({"matching": "best"}, "`matching='best'` is not supported"),
    ],
)
def test_wrong_options_raise_naming_the_argument(options, message):
    gt, dt, images = box_tables(0)
    with pytest.raises(InvalidInputError, match=message):
        operating_points(dt, ground_truth=gt, images=images, **options)


def test_per_image_wrong_options():
    gt, dt, images = box_tables(0)
    with pytest.raises(InvalidInputError, match="`zero_division='nan'` is not an option"):
        per_image(dt, ground_truth=gt, images=images, zero_division="nan")
    with pytest.raises(InvalidInputError, match="`score_threshold=` must be"):
        per_image(dt, ground_truth=gt, images=images, score_threshold="high")


# --------------------------------------------------------------------------------------
# per image
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 7])
@pytest.mark.parametrize("score_threshold", [0.5, None])
def test_per_image_recomputed_from_match(seed, score_threshold):
    gt, dt, images = box_tables(seed, n_gt=80, n_dt=160)
    table = quiet(per_image, dt, ground_truth=gt, images=images, score_threshold=score_threshold, **REGIONS)
    m = match(dt, ground_truth=gt, images=images, iou_thresholds=[0.5], **REGIONS)
    if score_threshold is not None:
        m = m[m["score"] >= score_threshold]
    counts = m.assign(fp=~m["tp"] & ~m["ignored"]).groupby("image")[["tp", "fp"]].sum()
    counts["n_detections"] = m.groupby("image").size()
    kept = gt[(gt["iscrowd"] == 0) & ~gt["ignore"]]
    counts = counts.reindex(images).fillna(0).astype(int)
    counts["N"] = kept.groupby("image").size().reindex(images).fillna(0).astype(int)
    assert table["image"].tolist() == images
    for column in ("N", "n_detections", "tp", "fp"):
        assert table[column].tolist() == counts[column].tolist(), column
    assert (table["fn"] == table["N"] - table["tp"]).all()
    with np.errstate(invalid="ignore", divide="ignore"):
        np.testing.assert_allclose(table["precision"], table["tp"] / (table["tp"] + table["fp"]), rtol=1e-12)
        np.testing.assert_allclose(table["recall"], table["tp"] / table["N"], rtol=1e-12)
    # summed over images: the pooled counts of pr_curve at that threshold
    if score_threshold is not None:
        curve = pr_curve(
            dt,
            ground_truth=gt,
            images=images,
            style="valor",
            score_thresholds=[score_threshold],
            zero_division=0,
            **REGIONS,
        )
        assert table[["tp", "fp", "fn"]].sum().tolist() == curve[["tp", "fp", "fn"]].sum().tolist()


def test_per_image_string_ids_and_unsorted_input():
    gt, dt, images = box_tables(8)
    as_text = {"image": lambda f: "img" + f["image"].astype(str)}
    table = quiet(
        per_image,
        dt.assign(**as_text).iloc[::-1],
        ground_truth=gt.assign(**as_text),
        images=["img" + str(i) for i in images],
    )
    assert table["image"].tolist() == sorted("img" + str(i) for i in images)
    expected = quiet(per_image, dt, ground_truth=gt, images=images)
    by_id = table.assign(image=table["image"].str[3:].astype(int)).sort_values("image", ignore_index=True)
    pd.testing.assert_frame_equal(by_id.drop(columns="image"), expected.drop(columns="image"))


# --------------------------------------------------------------------------------------
# engines and masks
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("method", "options"),
    [
        ("operating_points", {"objective": {"recall": 0.4}}),
        ("operating_points", {"matching": "valor", "max_dets": None}),
        ("per_image", {"score_threshold": 0.3}),
    ],
)
def test_dask_and_polars_give_the_pandas_table(method, options):
    dd = pytest.importorskip("dask.dataframe")
    pl = pytest.importorskip("polars")
    gt, dt, images = box_tables(9, n_gt=80, n_dt=160)
    regions = REGIONS if options.get("matching") != "valor" else {}
    expected = quiet(getattr(dt.detection, method), ground_truth=gt, images=images, **regions, **options)
    ddt = dd.from_pandas(dt.sample(frac=1, random_state=1), npartitions=3, sort=False)
    for engine_dt, engine_gt in (
        (ddt, gt),
        (ddt, dd.from_pandas(gt, npartitions=3, sort=False)),
        (pl.from_pandas(dt), pl.from_pandas(gt)),
    ):
        table = quiet(
            getattr(engine_dt.detection, method), ground_truth=engine_gt, images=images, **regions, **options
        )
        if isinstance(table, pl.DataFrame):
            table = table.to_pandas()
            table = table.astype({c: expected[c].dtype for c in ("tp", "fp", "fn")})
            if "label" in table:  # polars holds ids and the pooled row's name as text
                table["label"] = table["label"].astype(object)
                expected = expected.assign(label=expected["label"].astype(str).astype(object))
        pd.testing.assert_frame_equal(
            table.reset_index(drop=True), expected, check_exact=False, rtol=1e-12, check_dtype=False
        )


def test_masks_segm():
    # square masks as polygons: the same numbers as their boxes
    gt, dt, images = box_tables(10)

    def polygons(frame):
        x, y, w, h = (frame[c].to_numpy() for c in ("x", "y", "w", "h"))
        return [[[a, b, a + c, b, a + c, b + d, a, b + d]] for a, b, c, d in zip(x, y, w, h)]

    sizes = {i: (200, 200) for i in images}
    gt = gt.assign(x=gt["x"].round(), y=gt["y"].round(), w=gt["w"].round().clip(1), h=gt["h"].round().clip(1))
    dt = dt.assign(x=dt["x"].round(), y=dt["y"].round(), w=dt["w"].round().clip(1), h=dt["h"].round().clip(1))
    gt_masks = gt.assign(segmentation=polygons(gt))
    dt_masks = dt.assign(segmentation=polygons(dt))
    masks = quiet(
        operating_points, dt_masks, ground_truth=gt_masks, images=images, iou_type="segm", image_sizes=sizes
    )
    m = match(
        dt_masks,
        ground_truth=gt_masks,
        images=images,
        iou_type="segm",
        image_sizes=sizes,
        iou_thresholds=[0.5],
    )
    n_positive = dict(zip(m.attrs["pdmetrics"]["labels"], m.attrs["pdmetrics"]["n_positive"]))
    n_positive["(all)"] = sum(n_positive.values())
    counted = m[~m["ignored"]]
    expected = brute_force(
        counted["score"].to_numpy(), counted["tp"].to_numpy(), counted["label"].to_numpy(), n_positive, "f1"
    )
    assert_points(masks, expected)
    images_table = quiet(
        per_image, dt_masks, ground_truth=gt_masks, images=images, iou_type="segm", image_sizes=sizes
    )
    assert images_table["tp"].sum() == m[m["score"] >= 0.5]["tp"].sum()
