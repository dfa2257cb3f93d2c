"""``df.detection.compare``: detectors compared on the same images (image-level paired bootstrap).

The two values of every row are ``evaluate``'s (and ``average_precision``'s per label) for each
system alone; with every weight 1 the resampled precision is ``accumulate``'s bit for bit, and
with any weights it is the AP of the images repeated as often as their weights; engines give
the pandas table; simulated data sets check the intervals' coverage and the p-values' size.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

import pdmetrics  # noqa: F401  (registers the accessors)
from pdmetrics import ColumnNotFoundError, InvalidInputError
from pdmetrics._comparison import COLUMNS
from pdmetrics._resampling import key_buckets, poisson_weights
from pdmetrics.detection import average_precision, compare, evaluate
from pdmetrics.detection.coco import COCO_RECALL_THRESHOLDS
from pdmetrics.detection.comparison import _resampled, prepared, weighted_precision
from pdmetrics.io import read_coco
from tests.conftest import conformance_path
from tests.test_dask_detection import box_tables

REGIONS = {"iscrowd": "iscrowd", "ignore": "ignore", "area": "area"}


def two_systems(seed: int, ties: bool = True):
    """box_tables' ground truth and detections (system "a") and a jittered subset of them ("b"),
    in one frame, rows shuffled. ``ties=False``: scores made distinct."""
    gt, dt, images = box_tables(seed)
    rng = np.random.default_rng(seed + 100)
    other = dt.copy()
    other["x"] = other["x"] + rng.normal(0, 1.5, len(other)).round(1)
    other["score"] = np.round(np.clip(other["score"] + rng.normal(0, 0.2, len(other)), 0, 1), 1)
    other = other.sample(frac=0.8, random_state=seed)
    frame = pd.concat([dt.assign(model="a"), other.assign(model="b")], ignore_index=True)
    if not ties:
        frame["score"] = frame["score"] * 0.9 + rng.permutation(len(frame)) / len(frame) * 0.1
    return gt, frame.sample(frac=1, random_state=seed).reset_index(drop=True), images


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def compared(frame, gt, images, **options):
    """``frame.detection.compare`` of the systems of column ``model``, warnings silenced."""
    return quiet(frame.detection.compare, ground_truth=gt, system="model", images=images, **options)


def system_rows(frame, name):
    return frame[frame["model"] == name].drop(columns="model")


OPTIONS = [
    REGIONS,
    {"matching": "valor", "interpolation": "valor", "labels_without_ground_truth": "zero"},
    {"iscrowd": "iscrowd", "iou_thresholds": [0.5, 0.75, 0.9], "max_dets": 2, "area_range": (0, 400)},
    {"iou_thresholds": [0.3], "max_dets": None, "ignore": "ignore"},
]


# --------------------------------------------------------------------------------------
# the values are evaluate's
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("options", OPTIONS)
def test_values_equal_evaluate_and_average_precision(options):
    gt, frame, images = two_systems(0)
    table = quiet(compare, frame, ground_truth=gt, system="model", images=images, n_resamples=20, **options)
    assert list(table.columns) == ["label", *COLUMNS]
    assert (table["baseline"] == "a").all() and (table["system"] == "b").all()
    assert (table["N"] == len(images)).all() and (table["test"] == "paired_bootstrap").all()
    per_image = dict(options)
    area_range = per_image.pop("area_range", (0, 1e10))
    max_dets = per_image.pop("max_dets", 100)
    for name, column in (("a", "baseline_value"), ("b", "system_value")):
        dt = system_rows(frame, name)
        common = dict(ground_truth=gt, images=images, area_ranges={"all": area_range}, **per_image)
        summary = quiet(evaluate, dt, max_dets=[max_dets], **common)
        per_label = quiet(average_precision, dt, max_dets=max_dets, **common)
        expected = {
            "AP": summary["value"].iloc[0],
            "AR": summary.loc[summary["metric"] == "AR", "value"].iloc[0],
        }
        for metric, iou in (("AP50", "0.50"), ("AP75", "0.75")):
            hit = summary[(summary["metric"] == "AP") & (summary["iou"] == iou)]
            if len(hit) and (len(summary[summary["metric"] == "AP"]) > 1):
                expected[metric] = hit["value"].iloc[-1]
        pooled = table[table["label"] == "(all)"]
        assert pooled["metric"].tolist() == [m for m in ("AP", "AP50", "AP75", "AR") if m in expected]
        np.testing.assert_allclose(pooled[column], [expected[m] for m in pooled["metric"]], rtol=1e-12)
        labels = per_label[(per_label["label"] != "(all)") & (per_label["N"] > 0)]
        rows = table[table["label"] != "(all)"]
        assert rows["label"].tolist() == labels["label"].tolist()
        assert (rows["metric"] == "AP").all()
        np.testing.assert_allclose(rows[column], labels["AP"], rtol=1e-12)
    np.testing.assert_allclose(
        table["difference"], table["system_value"] - table["baseline_value"], rtol=1e-12
    )


def _square(x0, y0, side):
    return [[x0, y0, x0 + side, y0, x0 + side, y0 + side, x0, y0 + side]]


def test_masks_equal_evaluate():
    rng = np.random.default_rng(11)
    n = 60
    corner = rng.integers(0, 20, (n, 2))
    gt = pd.DataFrame(
        {
            "image": np.arange(n) // 3,
            "label": rng.choice(["cat", "dog"], n),
            "segmentation": [_square(x, y, 8) for x, y in corner],
        }
    )
    shifted = {name: corner + rng.integers(-2, 3, (n, 2)) * step for name, step in (("a", 2), ("b", 1))}
    frame = pd.concat(
        [
            gt.assign(
                segmentation=[_square(x, y, 8) for x, y in shifted[name]], score=rng.random(n), model=name
            )
            for name in ("a", "b")
        ],
        ignore_index=True,
    )
    sizes = {i: (32, 32) for i in range(n // 3)}
    options = dict(iou_type="segm", image_sizes=sizes)
    table = compared(frame, gt, None, n_resamples=20, **options)
    for name, column in (("a", "baseline_value"), ("b", "system_value")):
        stats = quiet(evaluate, system_rows(frame, name), ground_truth=gt, **options)["value"].to_numpy()
        pooled = table[table["label"] == "(all)"].set_index("metric")[column]
        np.testing.assert_allclose(pooled, stats[[0, 1, 2, 8]], rtol=1e-12)


@pytest.fixture(scope="module")
def coco_tables():
    folder = conformance_path("coco", "coco_val2014_100")
    return read_coco(
        folder / "instances_val2014_100.json", folder / "instances_val2014_fakebbox100_results.json"
    )


def test_coco_fixture_equals_evaluate(coco_tables):
    """pycocotools' fixture (evaluate equals pycocotools there): stats[0], [1], [2], [8]."""
    gt, dt = coco_tables
    other = dt.assign(score=np.round(dt["score"] ** 2, 3))  # a second detector: rescored
    frame = pd.concat([dt.assign(model="fake"), other.assign(model="rescored")], ignore_index=True)
    table = quiet(
        frame.detection.compare, ground_truth=gt, system="model", systems=["fake", "rescored"], n_resamples=20
    )
    for column, rows in (("baseline_value", dt), ("system_value", other)):
        stats = quiet(evaluate, rows, ground_truth=gt)["value"].to_numpy()
        pooled = table[table["label"] == "(all)"].set_index("metric")[column]
        np.testing.assert_allclose(pooled[["AP", "AP50", "AP75", "AR"]], stats[[0, 1, 2, 8]], rtol=1e-12)
    assert table["N"].iloc[0] == len(
        set(gt.attrs["pdmetrics.coco"]["images"]) | set(gt["image"]) | set(dt["image"])
    )


# --------------------------------------------------------------------------------------
# the resampled AP: evaluate's at weight 1, and the AP of the repeated images at any weights
# --------------------------------------------------------------------------------------
def _prepared(frame, gt, **options):
    """The comparison's prepared matches, its table object and its state (pandas: one chunk)."""
    spec = compare.spec(frame, ground_truth=gt, system="model", **options)
    comparison = spec.finalize.__self__
    state = spec.chunk(frame, ground_truth=gt)
    return prepared(state, comparison), comparison, state


@pytest.mark.parametrize("options", OPTIONS)
def test_weight_one_is_accumulate_bit_for_bit(options):
    gt, frame, images = two_systems(1)
    p, comparison, state = quiet(_prepared, frame, gt, images=images, n_resamples=5, **options)
    ones = np.ones((p.weights.shape[0], 1), dtype=np.uint8)
    positives = p.counts.sum(axis=0)[None, :].astype("float64")
    interpolation = comparison.options.interpolation
    for name in p.names:
        acc = p.runs[name].accumulation
        codes = np.searchsorted(p.labels, acc.labels)
        precision, recall = weighted_precision(p.ranked[name], ones, positives, p.labels.size, interpolation)
        expected = acc.precision[:, :, :, 0, 0]  # (T, R, K)
        defined = ~np.isnan(expected)
        assert np.array_equal(precision[:, :, 0, codes][defined], expected[defined])
        defined = ~np.isnan(acc.recall[:, :, 0, 0])
        assert np.array_equal(recall[:, 0, codes][defined], acc.recall[:, :, 0, 0][defined])
        assert np.array_equal(positives[0, codes], acc.n_positive[0])
    # AP, AP50, AP75, AR and the per-label AP of the all-ones "resample": the table's values
    resampled = _resampled(
        p.ranked,
        p.present,
        p.counts,
        ones,
        comparison.options.iou_thresholds,
        comparison.settings,
        interpolation,
    )
    table = quiet(comparison.finalize, state)
    for name, column in zip(p.names, ("baseline_value", "system_value")):
        pooled = table[table["label"] == "(all)"]
        for metric, value in zip(pooled["metric"], pooled[column]):
            assert resampled[name][metric][0] == pytest.approx(value, rel=1e-15, abs=1e-15)
        labels = table[table["label"] != "(all)"]
        got = resampled[name]["label"][0][
            np.searchsorted(p.labels, labels["label"].to_numpy(dtype=p.labels.dtype))
        ]
        np.testing.assert_allclose(got, labels[column], rtol=1e-15, atol=1e-15)


@pytest.mark.parametrize("matching", ["coco", "valor"])
def test_resampled_ap_is_the_ap_of_the_repeated_images(matching):
    """A resample's AP is evaluate's AP of the data set in which every image appears as often as
    its weight (distinct scores, so the copies of a detection are ranked next to each other)."""
    gt, frame, images = two_systems(2, ties=False)
    options = dict(matching=matching, interpolation=matching, **(REGIONS if matching == "coco" else {}))
    p, comparison, _ = quiet(_prepared, frame, gt, images=images, n_resamples=6, **options)
    resampled = _resampled(
        p.ranked,
        p.present,
        p.counts,
        p.weights,
        comparison.options.iou_thresholds,
        comparison.settings,
        matching,
    )
    buckets = key_buckets(p.images, comparison.settings["key"])
    weight_of = dict(zip(p.images.tolist(), np.searchsorted(np.unique(buckets), buckets)))
    for r in range(p.weights.shape[1]):
        weight = {image: int(p.weights[b, r]) for image, b in weight_of.items()}

        def repeated(table, weight=weight):
            times = table["image"].map(weight).to_numpy()
            out = table.loc[table.index.repeat(times)].copy()
            out["image"] = out["image"] * 100 + out.groupby(level=0).cumcount()
            return out

        copies = [i * 100 + c for i in images for c in range(weight.get(i, 0))]
        for name in p.names:
            summary = quiet(
                evaluate,
                repeated(system_rows(frame, name)),
                ground_truth=repeated(gt),
                images=copies,
                max_dets=[100],
                area_ranges={"all": (0, 1e10)},
                **options,
            )
            assert resampled[name]["AP"][r] == pytest.approx(summary["value"].iloc[0], rel=1e-12)
            assert resampled[name]["AR"][r] == pytest.approx(summary["value"].iloc[-1], rel=1e-12)


@pytest.mark.parametrize(("n_buckets", "n_resamples"), [(65536, 1000), (70000, 7), (100, 3), (5, 10001)])
def test_the_weights_of_some_buckets_are_those_of_the_full_draw(n_buckets, n_resamples):
    full = poisson_weights(123, n_buckets, n_resamples)
    some = np.unique(np.random.default_rng(0).integers(0, n_buckets, 500))
    assert np.array_equal(poisson_weights(123, n_buckets, n_resamples, buckets=some), full[some])
    assert poisson_weights(123, n_buckets, n_resamples, buckets=[]).shape == (0, n_resamples)


# --------------------------------------------------------------------------------------
# pairs: itself, swapped, several systems
# --------------------------------------------------------------------------------------
def test_a_system_against_itself_differs_by_zero_with_p_one():
    gt, frame, images = two_systems(3)
    same = system_rows(frame, "a")
    twice = pd.concat([same.assign(model="x"), same.assign(model="y")], ignore_index=True)
    table = compared(twice, gt, images, n_resamples=50)
    assert (table["difference"] == 0).all()
    assert (table["ci_low"] == 0).all() and (table["ci_high"] == 0).all()
    assert (table["p_value"] == 1).all()


def test_swapping_the_systems_flips_the_sign_and_keeps_the_p_value():
    gt, frame, images = two_systems(4)
    ab = compared(frame, gt, images, n_resamples=200)
    ba = compared(frame, gt, images, systems=["b", "a"], n_resamples=200)
    np.testing.assert_allclose(ba["difference"], -ab["difference"], atol=1e-15)
    np.testing.assert_allclose(ba["ci_low"], -ab["ci_high"], atol=1e-12)
    np.testing.assert_allclose(ba["ci_high"], -ab["ci_low"], atol=1e-12)
    np.testing.assert_array_equal(ba["p_value"], ab["p_value"])
    np.testing.assert_array_equal(ba["baseline_value"], ab["system_value"])


def test_every_pair_with_a_correction_as_statsmodels():
    gt, frame, images = two_systems(5)
    third = system_rows(frame, "a").assign(score=lambda d: 1 - d["score"], model="c")
    frame = pd.concat([frame, third], ignore_index=True)
    table = compared(frame, gt, images, pairs="all", correction="holm", n_resamples=100)
    assert list(dict.fromkeys(zip(table["baseline"], table["system"]))) == [
        ("a", "b"),
        ("a", "c"),
        ("b", "c"),
    ]
    expected = multipletests(table["p_value"], method="holm")[1]
    np.testing.assert_allclose(table["p_adjusted"], expected, rtol=1e-12)
    baseline = compared(frame, gt, images, n_resamples=100)
    assert list(dict.fromkeys(zip(baseline["baseline"], baseline["system"]))) == [("a", "b"), ("a", "c")]
    listed = compared(frame, gt, images, systems=["c", "a"], n_resamples=100)
    assert set(listed["baseline"]) == {"c"} and set(listed["system"]) == {"a"}


def test_the_intervals_do_not_depend_on_the_row_order_and_follow_the_seed():
    gt, frame, images = two_systems(6, ties=False)  # tied scores are ranked in input order
    table = compared(frame, gt, images, n_resamples=100)
    shuffled = compared(
        frame.sample(frac=1, random_state=1), gt.sample(frac=1, random_state=2), images, n_resamples=100
    )
    pd.testing.assert_frame_equal(shuffled, table, rtol=1e-12)
    other = compared(frame, gt, images, n_resamples=100, random_state=7)
    assert not np.allclose(other["ci_low"], table["ci_low"])
    np.testing.assert_array_equal(other["difference"], table["difference"])


def test_the_input_frames_are_not_changed():
    gt, frame, images = two_systems(7)
    before, gt_before = frame.copy(), gt.copy()
    compared(frame, gt, images, n_resamples=10)
    pd.testing.assert_frame_equal(frame, before)
    pd.testing.assert_frame_equal(gt, gt_before)


# --------------------------------------------------------------------------------------
# engines
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("npartitions", [1, 3])
def test_dask_gives_the_pandas_table(npartitions):
    dd = pytest.importorskip("dask.dataframe")
    gt, frame, images = two_systems(8)
    options = dict(system="model", images=images, n_resamples=100, pairs="all", **REGIONS)
    expected = quiet(frame.detection.compare, ground_truth=gt, **options)
    ddf = dd.from_pandas(frame, npartitions=npartitions)
    for truth in (gt, dd.from_pandas(gt, npartitions=2)):
        table = quiet(ddf.detection.compare, ground_truth=truth, **options)
        pd.testing.assert_frame_equal(table, expected, rtol=1e-12)
    lazy = quiet(ddf.detection.compare, ground_truth=gt, compute=False, **options)
    pd.testing.assert_frame_equal(lazy.compute(), expected, rtol=1e-12)
    # a system without detections in most images: parts without it count their ground truth for it
    sparse = frame[(frame["model"] == "a") | (frame["image"] < 3)]
    expected = quiet(sparse.detection.compare, ground_truth=gt, **options)
    table = quiet(
        dd.from_pandas(sparse, npartitions=npartitions).detection.compare, ground_truth=gt, **options
    )
    pd.testing.assert_frame_equal(table, expected, rtol=1e-12)
    b_alone = quiet(evaluate, system_rows(sparse, "b"), ground_truth=gt, images=images, **REGIONS)
    assert table["system_value"].iloc[0] == pytest.approx(b_alone["value"].iloc[0], rel=1e-12)


def test_polars_gives_the_pandas_table():
    pl = pytest.importorskip("polars")
    pytest.importorskip("pyarrow")
    gt, frame, images = two_systems(9)
    options = dict(system="model", images=images, n_resamples=100, **REGIONS)
    expected = quiet(frame.detection.compare, ground_truth=gt, **options)
    table = quiet(
        pl.from_pandas(frame).detection.compare, ground_truth=pl.from_pandas(gt), **options
    ).to_pandas()
    # a polars column holds one type: integer labels beside "(all)" become text, as in average_precision
    expected["label"] = expected["label"].astype(str)
    pd.testing.assert_frame_equal(table, expected, rtol=1e-12, check_dtype=False)


# --------------------------------------------------------------------------------------
# edge cases: a clear error naming the argument, or a documented NaN
# --------------------------------------------------------------------------------------
@pytest.fixture
def small():
    gt, frame, images = two_systems(10)
    return gt, frame, images


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"system": "nope"}, "`system='nope'`: no such column"),
        ({"system": ["model"]}, "names the one column"),
        ({"system": "model", "pairs": "every"}, "`pairs='every'`"),
        ({"system": "model", "correction": "sidak"}, "`correction='sidak'`"),
        ({"system": "model", "systems": ["a"]}, "`systems=` names 1 system"),
        ({"system": "model", "systems": "a"}, "`systems='a'` must list"),
        ({"system": "model", "systems": ["a", "a"]}, "names a system twice"),
        ({"system": "model", "systems": ["a", "zzz"]}, "`systems=` names 'zzz', which has no detection"),
        ({"system": "model", "n_resamples": 0}, "`n_resamples=0`"),
        ({"system": "model", "confidence": 95}, "`confidence=95`"),
        ({"system": "model", "max_dets": [1, 10]}, "`max_dets=` must be one positive integer"),
        ({"system": "model", "labels_without_ground_truth": "drop"}, "labels_without_ground_truth"),
        ({"system": "model", "iou_thresholds": [2]}, "`iou_thresholds=`"),
        ({"system": "model", "box": ["x", "y"]}, "`box=` must name 4 columns"),
    ],
)
def test_bad_options_are_refused(small, options, match):
    gt, frame, images = small
    with pytest.raises((InvalidInputError, ColumnNotFoundError), match=match):
        frame.detection.compare(ground_truth=gt, images=images, **options)


def test_a_missing_column_is_a_column_error(small):
    gt, frame, images = small
    with pytest.raises(ColumnNotFoundError, match="`system='grp'`"):
        frame.detection.compare(ground_truth=gt, system="grp")
    with pytest.raises(ColumnNotFoundError, match="`score='score'`"):
        frame.drop(columns="score").detection.compare(ground_truth=gt, system="model")


def test_one_system_or_none_is_refused(small):
    gt, frame, images = small
    one = frame[frame["model"] == "a"]
    with pytest.raises(InvalidInputError, match=r"holds 1 system \(\['a'\]\); a comparison needs"):
        one.detection.compare(ground_truth=gt, system="model", images=images)
    with pytest.raises(InvalidInputError, match="holds 0 systems"):
        frame.iloc[:0].detection.compare(ground_truth=gt, system="model", images=images)


def test_bad_values_are_refused(small):
    gt, frame, images = small
    missing = frame.assign(model=frame["model"].where(frame.index != 3))
    with pytest.raises(InvalidInputError, match="`system='model'` has missing values"):
        missing.detection.compare(ground_truth=gt, system="model", images=images)
    mixed = frame.assign(model=frame["model"].where(frame["model"] == "a", 2).astype(object))
    with pytest.raises(InvalidInputError, match="mixes value types"):
        mixed.detection.compare(ground_truth=gt, system="model", images=images)
    assert len(compared(mixed, gt, images, systems=[2, "a"]))
    with pytest.raises(InvalidInputError, match="`score='score'` must hold finite numbers; row 5"):
        frame.assign(score=frame["score"].where(frame.index != 5)).detection.compare(
            ground_truth=gt, system="model", images=images
        )
    with pytest.raises(InvalidInputError, match="`score='score'` must hold finite numbers; row 0"):
        frame.assign(score="high").detection.compare(ground_truth=gt, system="model", images=images)
    with pytest.raises(
        InvalidInputError, match="`box=` column 'w' in the detections table holds a non-number"
    ):
        frame.assign(w="wide").detection.compare(ground_truth=gt, system="model", images=images)
    with pytest.raises(InvalidInputError, match="`image=` ids have different types"):
        frame.assign(image=frame["image"].astype(str)).detection.compare(
            ground_truth=gt, system="model", images=images
        )
    with pytest.raises(InvalidInputError, match="ground-truth table is empty"):
        frame.detection.compare(ground_truth=gt.iloc[:0], system="model")
    pooled = gt.assign(label=gt["label"].astype(str).replace({"1": "(all)"}))
    with pytest.raises(InvalidInputError, match="`label` holds the value '\\(all\\)'"):
        frame.assign(label=frame["label"].astype(str)).detection.compare(
            ground_truth=pooled, system="model", images=images
        )
    with pytest.raises(InvalidInputError, match="not in the ground-truth table"):
        frame.detection.compare(ground_truth=gt, system="model")


def test_one_image_and_constant_systems(small):
    gt, frame, images = small
    one = gt[gt["image"] == gt["image"].iloc[0]]
    dets = frame[frame["image"] == one["image"].iloc[0]]
    table = quiet(dets.detection.compare, ground_truth=one, system="model", n_resamples=50)
    assert (table["N"] == 1).all()
    assert np.isfinite(table["difference"]).all()


def test_no_ground_truth_in_the_area_range_is_nan_with_a_warning(small):
    gt, frame, images = small
    with pytest.warns(pdmetrics.UndefinedMetricWarning, match="No label has ground truth"):
        table = frame.detection.compare(ground_truth=gt, system="model", images=images, area_range=(0, 1e-3))
    assert table[table["label"] == "(all)"]["difference"].isna().all()
    assert (table["label"] == "(all)").all()  # no label has ground truth: no label row


def test_labels_without_ground_truth_get_no_row(small):
    gt, frame, images = small
    table = compared(frame, gt, images, n_resamples=10)
    assert 4 in set(frame["label"]) and 4 not in set(table["label"])


# --------------------------------------------------------------------------------------
# validity by simulation: 400 data sets in one call, one label each on their own images
# --------------------------------------------------------------------------------------
def population_ap(p: float) -> float:
    """COCO's 101-point AP of the population of :func:`simulated_sets` (one ground truth per
    image, found with probability ``p``, true positives scoring U(0.3, 1), misses U(0, 0.7))."""
    r = COCO_RECALL_THRESHOLDS
    s = 1 - 0.7 * r / p  # the score down to which recall r is reached
    false = (1 - p) * np.clip((0.7 - s) / 0.7, 0, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(r == 0, 1.0, r / (r + false))
    return float(np.where(r <= p, precision, 0.0).mean())


def simulated_sets(n_sets, n_images, p_a, p_b, shared, seed):
    """``n_sets`` data sets (labels) of ``n_images`` images, each with one ground truth and one
    detection per system: a true positive with probability ``p_a`` / ``p_b`` (``shared``: from
    one uniform per image, so the systems are correlated), else a miss elsewhere."""
    rng = np.random.default_rng(seed)
    n = n_sets * n_images
    image = np.arange(n)
    gt = pd.DataFrame(
        {"image": image, "label": image // n_images, "x": 10.0, "y": 10.0, "w": 40.0, "h": 40.0}
    )
    u = rng.random(n)
    frames = []
    for name, p in (("a", p_a), ("b", p_b)):
        hit = (u if shared else rng.random(n)) < p
        score = np.where(hit, rng.uniform(0.3, 1, n), rng.uniform(0, 0.7, n))
        frames.append(gt.assign(x=np.where(hit, 10.0, 200.0), score=score, model=name))
    return gt, pd.concat(frames, ignore_index=True)


def _label_rows(seeds, p_a, p_b, shared):
    parts = []
    for seed in seeds:
        gt, frame = simulated_sets(400, 200, p_a, p_b, shared=shared, seed=seed)
        table = compare(frame, ground_truth=gt, system="model", iou_thresholds=[0.5], n_resamples=200)
        parts.append(table[table["label"] != "(all)"])
    return pd.concat(parts, ignore_index=True)


def test_intervals_cover_the_known_difference():
    # 800 data sets of 200 images (200 resamples): 93.5% here, 94.6% over 4,800 such sets (the
    # (B + 1) * alpha-th replicate; numpy's default quantile, inside the tails of 200 replicates,
    # gave 93.5% over the 4,800 and 94.7% over 2,400 with the default 1,000 resamples)
    rows = _label_rows((3, 5), 0.6, 0.8, shared=True)
    truth = population_ap(0.8) - population_ap(0.6)
    covered = ((rows["ci_low"] <= truth) & (truth <= rows["ci_high"])).mean()
    assert 0.93 <= covered <= 0.97
    assert rows["difference"].mean() == pytest.approx(truth, abs=0.005)


def test_p_values_under_a_true_null():
    # over 4,800 such sets, p < 0.05 in 5.5% of them
    rows = _label_rows((4, 6), 0.7, 0.7, shared=False)
    assert 0.03 <= (rows["p_value"] < 0.05).mean() <= 0.08
    assert 0.92 <= ((rows["ci_low"] <= 0) & (0 <= rows["ci_high"])).mean() <= 0.97
