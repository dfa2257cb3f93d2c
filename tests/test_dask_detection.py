"""``ddf.detection``: the box tables on dask DataFrames equal the pandas path.

Both tables are shuffled on the image, so boxes of one image may start in any partitions;
results must equal the pandas path on the computed frames to 1e-12 relative, counts
exactly, rows in the same order (``match``), for any partitioning and row order.
"""

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import pdmetrics  # noqa: F401
from pdmetrics import ColumnNotFoundError, InvalidInputError, NotPartitionableError
from pdmetrics.detection.masks import mask_runs
from pdmetrics.io import read_coco
from tests import test_dask
from tests.conftest import conformance_path

dd = pytest.importorskip("dask.dataframe")
dask = pytest.importorskip("dask")
Delayed = pytest.importorskip("dask.delayed").Delayed

pytestmark = pytest.mark.filterwarnings("ignore::pdmetrics.UndefinedMetricWarning")

BOX_TABLES = [
    ("evaluate", {}),
    ("evaluate", {"matching": "valor", "interpolation": "valor", "labels_without_ground_truth": "zero"}),
    ("average_precision", {}),
    ("average_precision", {"by": None, "max_dets": 2, "area_ranges": {"all": (0, 1e10), "small": (0, 400)}}),
    ("average_recall", {"matching": "valor"}),
    ("average_recall", {"score_threshold": [0.3, 0.6, 0.1]}),
    ("average_recall", {"score_threshold": 0.4}),
    ("match", {}),
    ("match", {"matching": "valor", "iou_thresholds": [0.1, 0.5], "max_dets": None}),
    ("pr_curve", {}),
    ("pr_curve", {"style": "valor", "zero_division": 0}),
    ("confusion", {"score_thresholds": [0.2, 0.5], "max_examples": 3}),
    ("confusion", {"table": "matrix", "max_examples": 2, "iou_threshold": 0.3}),
    ("operating_points", {"objective": {"precision": 0.5}}),
    ("per_image", {"score_threshold": 0.3, "iou_threshold": 0.75}),
]
#: options of the box tables besides the columns (confusion takes no crowd, area or ignore)
REGION_OPTIONS = {"iscrowd": "iscrowd", "ignore": "ignore", "area": "area"}


def region_options(method: str) -> dict:
    return {} if method == "confusion" else REGION_OPTIONS


IDS = [f"{m}-{i}" for i, (m, _) in enumerate(BOX_TABLES)]


def assert_same_table(dask_table: pd.DataFrame, pandas_table: pd.DataFrame) -> None:
    assert list(dask_table.columns) == list(pandas_table.columns)
    assert dask_table.attrs == pandas_table.attrs
    assert len(dask_table) == len(pandas_table)
    for column in pandas_table.columns:
        a, b = dask_table[column], pandas_table[column]
        assert a.dtype == b.dtype, column
        if pd.api.types.is_float_dtype(b.dtype):
            np.testing.assert_allclose(a.to_numpy(float), b.to_numpy(float), rtol=1e-12, err_msg=column)
        else:
            assert a.tolist() == b.tolist(), column


def quiet(call, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(**kwargs)


def both(ddt, gt, method: str, kwargs: dict, pandas_gt=None):
    """The table on dask and on the computed frames (pandas)."""
    dask_table = quiet(getattr(ddt.detection, method), ground_truth=gt, **kwargs)
    pandas_gt = gt.compute() if isinstance(gt, dd.DataFrame) else gt
    pandas_table = quiet(getattr(ddt.compute().detection, method), ground_truth=pandas_gt, **kwargs)
    return dask_table, pandas_table


def boxes(n_images: int, n_boxes: int, rng, labels, score: bool) -> pd.DataFrame:
    centres = rng.uniform(0, 60, (n_boxes, 2))
    sizes = rng.uniform(2, 30, (n_boxes, 2))
    frame = pd.DataFrame(
        {
            "image": rng.integers(0, n_images, n_boxes),
            "label": rng.choice(labels, n_boxes),
            "x": np.round(centres[:, 0], 1),
            "y": np.round(centres[:, 1], 1),
            "w": np.round(sizes[:, 0], 1),
            "h": np.round(sizes[:, 1], 1),
        }
    )
    if score:
        # rounded scores: many ties, decided by the input order
        frame["score"] = np.round(rng.uniform(0, 1, n_boxes), 1)
    return frame


def box_tables(seed: int, n_images: int = 12, n_gt: int = 60, n_dt: int = 90, labels=(1, 2, 3)):
    """Ground truth with crowd and ignore flags and an area column; detections near them.

    Images 0..n_images-1 may hold ground truth; detections also fall on images with none
    (listed in ``images``), and some images have ground truth but no detection.
    """
    rng = np.random.default_rng(seed)
    gt = boxes(n_images, n_gt, rng, list(labels), score=False)
    gt["iscrowd"] = (rng.random(n_gt) < 0.1).astype(int)
    gt["ignore"] = rng.random(n_gt) < 0.05
    gt["area"] = gt["w"] * gt["h"] * rng.uniform(0.5, 1.0, n_gt)
    near = gt.sample(n=n_dt // 2, replace=True, random_state=seed)[["image", "label", "x", "y", "w", "h"]]
    near = near.assign(
        x=near["x"] + rng.normal(0, 2, len(near)), w=near["w"] * rng.uniform(0.8, 1.2, len(near))
    )
    near["score"] = np.round(rng.uniform(0, 1, len(near)), 1)
    far = boxes(n_images + 3, n_dt - len(near), rng, list(labels) + [4], score=True)
    dt = pd.concat([near, far], ignore_index=True)
    dt = dt.sample(frac=1, random_state=seed).reset_index(drop=True)
    return gt, dt, list(range(n_images + 3))


# --------------------------------------------------------------------------------------
# the COCO conformance fixture
# --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def coco_tables():
    folder = conformance_path("coco", "coco_val2014_100")
    return read_coco(
        folder / "instances_val2014_100.json", folder / "instances_val2014_fakebbox100_results.json"
    )


@pytest.mark.parametrize(("method", "kwargs"), BOX_TABLES, ids=IDS)
@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_coco_fixture_equals_the_pandas_path(coco_tables, method, kwargs, npartitions):
    gt, dt = coco_tables
    shuffled = dt.sample(frac=1, random_state=npartitions)
    ddt = dd.from_pandas(shuffled, npartitions=npartitions, sort=False)
    # the ground truth as pandas (its read_coco image list in attrs) and as dask
    assert_same_table(*both(ddt, gt, method, kwargs))
    dgt = dd.from_pandas(gt, npartitions=max(npartitions - 1, 1), sort=False)
    assert_same_table(*both(ddt, dgt, method, kwargs, pandas_gt=gt))


def test_coco_fixture_gives_pycocotools_numbers(coco_tables):
    gt, dt = coco_tables
    ddt = dd.from_pandas(dt, npartitions=5, sort=False)
    table = ddt.detection.evaluate(ground_truth=dd.from_pandas(gt, npartitions=2, sort=False))
    expected = dt.detection.evaluate(ground_truth=gt)
    assert table.attrs["pdmetrics"]["n_detections"] == len(dt)
    np.testing.assert_allclose(table["value"], expected["value"], rtol=1e-12)


# --------------------------------------------------------------------------------------
# generated data, any partitioning and row order
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize(("method", "kwargs"), BOX_TABLES, ids=IDS)
@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_generated_tables_equal_the_pandas_path(method, kwargs, npartitions):
    gt, dt, images = box_tables(npartitions)
    ddt = dd.from_pandas(dt, npartitions=npartitions, sort=False)
    dgt = dd.from_pandas(gt, npartitions=npartitions, sort=False)
    options = dict(kwargs, **region_options(method), images=images)
    assert_same_table(*both(ddt, dgt, method, options))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    n_dt_parts=st.integers(1, 9),
    n_gt_parts=st.integers(1, 9),
    table=st.integers(0, len(BOX_TABLES) - 1),
    string_ids=st.booleans(),
)
def test_any_partitioning_and_row_order(seed, n_dt_parts, n_gt_parts, table, string_ids):
    method, kwargs = BOX_TABLES[table]
    gt, dt, images = box_tables(seed, n_images=8, n_gt=25, n_dt=40)
    assume(len(dt) > 0)
    if string_ids:
        gt = gt.assign(image="im" + gt["image"].astype(str), label="c" + gt["label"].astype(str))
        dt = dt.assign(image="im" + dt["image"].astype(str), label="c" + dt["label"].astype(str))
        images = [f"im{i}" for i in images]
    rng = np.random.default_rng(seed)
    dt = dt.iloc[rng.permutation(len(dt))]  # one image's boxes straddle partitions
    gt = gt.iloc[rng.permutation(len(gt))]
    # more partitions than images: some partitions are empty after the shuffle
    ddt = dd.from_pandas(dt, npartitions=n_dt_parts, sort=False)
    dgt = dd.from_pandas(gt, npartitions=n_gt_parts, sort=False)
    options = dict(kwargs, **region_options(method), images=images)
    assert_same_table(*both(ddt, dgt, method, options))


def test_empty_input_partitions():
    gt, dt, images = box_tables(5)
    empty = dt.iloc[:0]
    pieces = [empty, dt.iloc[:30], empty, dt.iloc[30:], empty]
    ddt = dd.from_delayed([dask.delayed(p) for p in pieces], meta=empty, verify_meta=False)
    for method, kwargs in BOX_TABLES:
        assert_same_table(*both(ddt, gt, method, dict(kwargs, images=images)))


def test_match_row_positions_are_those_of_the_whole_frames():
    gt, dt, images = box_tables(2)
    ddt = dd.from_pandas(dt.set_axis(np.arange(len(dt)) * 10 + 3), npartitions=4, sort=False)
    table = ddt.detection.match(ground_truth=gt, images=images, iou_thresholds=[0.5])
    assert table["detection_id"].tolist() == (table["detection"] * 10 + 3).tolist()
    matched = table["ground_truth"] >= 0
    assert table.loc[matched, "ground_truth_id"].tolist() == table.loc[matched, "ground_truth"].tolist()
    whole = dt.iloc[table["detection"]]
    assert whole["score"].tolist() == table["score"].tolist()


def test_match_positions_skip_nothing_when_valor_drops_zero_scores():
    gt, dt, images = box_tables(3)
    dt.loc[:5, "score"] = 0.0  # valor never counts these: they get no row, the others keep theirs
    table = dt.detection.match(ground_truth=gt, images=images, matching="valor", iou_thresholds=[0.5])
    assert dt["score"].iloc[table["detection"]].tolist() == table["score"].tolist()
    assert table["detection_id"].tolist() == table["detection"].tolist()


# --------------------------------------------------------------------------------------
# laziness, errors before work
# --------------------------------------------------------------------------------------
def test_compute_false_returns_a_delayed_table():
    gt, dt, images = box_tables(1)
    ddt = dd.from_pandas(dt, npartitions=3, sort=False)
    lazy = ddt.detection.evaluate(ground_truth=gt, images=images, compute=False)
    assert isinstance(lazy, Delayed)
    (table,) = dask.compute(lazy)
    assert_same_table(table, quiet(dt.detection.evaluate, ground_truth=gt, images=images))


def _boom(part):
    raise RuntimeError("a partition was computed")


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"score": "confidence"}, ColumnNotFoundError, "confidence"),
        ({"box": ["x", "y", "w", "height"]}, ColumnNotFoundError, "height"),
        ({"iscrowd": "crowd"}, ColumnNotFoundError, "crowd"),
        ({"matching": "hungarian"}, InvalidInputError, "matching"),
        ({"iou_thresholds": [0.5, 1.5]}, InvalidInputError, "iou_thresholds"),
        ({"max_dets": [0]}, InvalidInputError, "max_dets"),
        ({"labels_without_ground_truth": "drop"}, InvalidInputError, "labels_without_ground_truth"),
        ({"area_ranges": {"all": (10, 1)}}, InvalidInputError, "area_ranges"),
    ],
)
def test_bad_arguments_fail_before_any_work(kwargs, error, match):
    gt, dt, _ = box_tables(0)
    ddt = dd.from_pandas(dt, npartitions=2).map_partitions(_boom, meta=dt.iloc[:0])
    dgt = dd.from_pandas(gt, npartitions=2).map_partitions(_boom, meta=gt.iloc[:0])
    with pytest.raises(error, match=match):
        ddt.detection.evaluate(ground_truth=dgt, **kwargs)


def test_per_label_options_fail_before_any_work():
    gt, dt, _ = box_tables(0)
    ddt = dd.from_pandas(dt, npartitions=2).map_partitions(_boom, meta=dt.iloc[:0])
    with pytest.raises(InvalidInputError, match="by="):
        ddt.detection.average_precision(ground_truth=gt, by="image")
    with pytest.raises(InvalidInputError, match="style"):
        ddt.detection.pr_curve(ground_truth=gt, style="voc")
    with pytest.raises(InvalidInputError, match="ground_truth="):
        ddt.detection.match(ground_truth=[1, 2])


def test_a_boolean_score_column_fails_before_any_work():
    gt, dt, _ = box_tables(0)
    dt = dt.assign(score=dt["score"] > 0.5)
    ddt = dd.from_pandas(dt, npartitions=2).map_partitions(_boom, meta=dt.iloc[:0])
    with pytest.raises(InvalidInputError, match="boolean"):
        ddt.detection.evaluate(ground_truth=gt)


def test_data_errors_of_the_whole_table():
    gt, dt, images = box_tables(0)
    ddt = dd.from_pandas(dt, npartitions=3, sort=False)
    with pytest.raises(InvalidInputError, match="not in the ground-truth table"):
        ddt.detection.evaluate(ground_truth=gt)  # detections on images without ground truth
    with pytest.raises(InvalidInputError, match="ground-truth table is empty"):
        dd.from_pandas(dt.iloc[:0], npartitions=1).detection.evaluate(ground_truth=gt.iloc[:0])
    mixed = pd.concat([gt.iloc[:30], gt.iloc[30:].assign(label=lambda f: "c" + f["label"].astype(str))])
    with pytest.raises(InvalidInputError, match="label="):
        ddt.detection.evaluate(ground_truth=dd.from_pandas(mixed, npartitions=2, sort=False), images=images)


def test_other_methods_say_they_do_not_run_on_dask():
    _, dt, _ = box_tables(0)
    ddt = dd.from_pandas(dt, npartitions=2)
    with pytest.raises(NotPartitionableError, match="classification"):  # listed among those that run
        ddt.detection.plot  # noqa: B018


# --------------------------------------------------------------------------------------
# a real cluster, reading parquet
# --------------------------------------------------------------------------------------
def test_local_cluster_reading_parquet(tmp_path):
    distributed = pytest.importorskip("distributed")
    gt, dt, images = box_tables(7, n_images=40, n_gt=300, n_dt=500)
    for name, frame, n in [("dt", dt, 4), ("gt", gt, 3)]:
        folder = tmp_path / name
        folder.mkdir()
        for i, piece in enumerate(np.array_split(np.arange(len(frame)), n)):
            frame.iloc[piece].to_parquet(folder / f"part{i}.parquet", index=False)
    options = {"images": images, "iscrowd": "iscrowd", "area": "area"}
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster),
    ):
        ddt = dd.read_parquet(tmp_path / "dt")
        dgt = dd.read_parquet(tmp_path / "gt")
        evaluation = ddt.detection.evaluate(ground_truth=dgt, **options)
        matches = ddt.detection.match(ground_truth=dgt, **options)
    assert_same_table(evaluation, quiet(dt.detection.evaluate, ground_truth=gt, **options))
    # the frames as read (each file's index starts at 0: those are the ids of `match`)
    dt, gt = dd.read_parquet(tmp_path / "dt").compute(), dd.read_parquet(tmp_path / "gt").compute()
    assert_same_table(matches, quiet(dt.detection.match, ground_truth=gt, **options))


# --------------------------------------------------------------------------------------
# semantic segmentation: pixel counts added over partitions
# --------------------------------------------------------------------------------------
def masks(seed: int, n: int = 30) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    shapes = rng.integers(2, 9, (n, 2))
    frame = pd.DataFrame(
        {
            "gt": [rng.integers(0, 4, shape) for shape in shapes],
            "pred": [rng.integers(0, 5, shape) for shape in shapes],
        }
    )
    frame.loc[0, "gt"][0, 0] = 255
    return frame


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"background": 0},
        {"table": "summary", "ignore_index": 255, "zero_division": 0},
        {"table": "confusion"},
        {"labels": [1, 7], "table": "summary"},
    ],
)
@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_segmentation_equals_the_pandas_path(kwargs, npartitions):
    frame = masks(npartitions)
    with dask.config.set({"dataframe.convert-string": False}):
        ddf = dd.from_pandas(frame, npartitions=npartitions)
    table = quiet(ddf.detection.segmentation, y_true="gt", y_pred="pred", **kwargs)
    assert_same_table(table, quiet(frame.detection.segmentation, y_true="gt", y_pred="pred", **kwargs))


def test_segmentation_errors_before_any_work():
    frame = masks(0)
    with dask.config.set({"dataframe.convert-string": False}):
        ddf = dd.from_pandas(frame, npartitions=2).map_partitions(_boom, meta=frame.iloc[:0])
    with pytest.raises(InvalidInputError, match="table="):
        ddf.detection.segmentation(y_true="gt", y_pred="pred", table="pixels")
    with pytest.raises(ColumnNotFoundError, match="prediction"):
        ddf.detection.segmentation(y_true="gt", y_pred="prediction")
    with pytest.raises(InvalidInputError, match="convert-string"):
        dd.from_pandas(frame, npartitions=2).detection.segmentation(y_true="gt", y_pred="pred")


# --------------------------------------------------------------------------------------
# valor's classification tables: rows shuffled on the datum
# --------------------------------------------------------------------------------------
CLASSIFICATION_TABLES = ["labels", "summary", "roc_curve", "pr_curve", "errors", "confusion"]
CLASSIFICATION_OPTIONS = [
    {},
    {"labels": ["a", "c"]},
    {"labels": ["b", "c", "d"], "top_prediction": "original", "max_examples": 3, "zero_division": 0},
    {"hardmax": False, "score_thresholds": [0.1, 0.5, 0.9], "max_examples": 2},
]
LABELS = ["a", "b", "c", "d"]


def classified(seed: int, n: int = 40, numbers: bool = False):
    """A long table (one row per datum and candidate label, shuffled) and a wide one."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(LABELS, n)
    score = np.round(rng.random((n, len(LABELS))), 1)  # ties on purpose
    candidate = rng.random((n, len(LABELS))) < 0.7
    datum = np.arange(n) * 7 if numbers else np.array([f"d{i}" for i in range(n)], dtype=object)
    rows, columns = np.nonzero(candidate)
    long = pd.DataFrame(
        {
            "datum": datum[rows],
            "truth": truth[rows],
            "label": np.asarray(LABELS, dtype=object)[columns],
            "score": score[rows, columns],
        }
    )
    long = long.iloc[rng.permutation(len(long))].reset_index(drop=True)  # a datum's rows straddle partitions
    wide = pd.DataFrame(
        {"truth": truth, **{c: np.where(candidate[:, i], score[:, i], np.nan) for i, c in enumerate(LABELS)}}
    )
    return long, wide


LONG = {"y_true": "truth", "score": "score", "label": "label", "datum": "datum"}
WIDE = {"y_true": "truth", "score": LABELS}


def classification_both(frame, npartitions: int, **kwargs):
    ddf = dd.from_pandas(frame, npartitions=npartitions, sort=False)
    return quiet(ddf.detection.classification, **kwargs), quiet(frame.detection.classification, **kwargs)


@pytest.mark.parametrize("table", CLASSIFICATION_TABLES)
@pytest.mark.parametrize(
    "options", CLASSIFICATION_OPTIONS, ids=["default", "labels", "original", "no-hardmax"]
)
@pytest.mark.parametrize("npartitions", [1, 4])
def test_classification_tables_equal_the_pandas_path(table, options, npartitions):
    long, wide = classified(npartitions)
    assert_same_table(*classification_both(long, npartitions, **LONG, table=table, **options))
    assert_same_table(*classification_both(wide, npartitions, **WIDE, table=table, **options))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    npartitions=st.integers(1, 9),
    table=st.sampled_from(CLASSIFICATION_TABLES),
    options=st.sampled_from(CLASSIFICATION_OPTIONS),
    layout=st.sampled_from(["long", "wide", "wide-datum"]),
    numbers=st.booleans(),
    n_empty=st.integers(0, 2),
)
def test_classification_any_partitioning_row_order_and_empty_partitions(
    seed, npartitions, table, options, layout, numbers, n_empty
):
    long, wide = classified(seed, n=int(np.random.default_rng(seed).integers(1, 30)), numbers=numbers)
    frame, columns = (long, LONG) if layout == "long" else (wide, WIDE)
    if layout == "wide-datum":  # a wide datum id column: rows shuffled on it
        frame = wide.assign(datum=np.arange(len(wide))[::-1] * 3).sample(frac=1, random_state=seed)
        columns = dict(WIDE, datum="datum")
    assume(len(frame) > 0)
    labels = options.get("labels")
    # a label is a candidate where it has a score: a wide column of NaN scores names none
    candidates = set(frame["label"]) if layout == "long" else {c for c in LABELS if frame[c].notna().any()}
    assume(labels is None or set(labels) <= set(frame["truth"]) | candidates)
    ddf = dd.from_pandas(frame, npartitions=min(npartitions, len(frame)), sort=False)
    if n_empty:
        ddf = dd.concat([*[ddf.partitions[0].head(0, compute=False)] * n_empty, ddf])
    kwargs = dict(columns, table=table, **options)
    assert_same_table(
        quiet(ddf.detection.classification, **kwargs), quiet(frame.detection.classification, **kwargs)
    )


def test_classification_examples_are_row_positions_of_the_whole_frame():
    _, wide = classified(3, n=50)
    ddf = dd.from_pandas(wide, npartitions=5)
    table = quiet(ddf.detection.classification, **WIDE, table="errors", max_examples=4)
    expected = quiet(wide.detection.classification, **WIDE, table="errors", max_examples=4)
    assert table["examples"].tolist() == expected["examples"].tolist()
    assert max(max(x, default=0) for x in table["examples"]) > 10  # not positions within one partition


def test_classification_label_errors_of_the_whole_data():
    long, _ = classified(4)
    ddf = dd.from_pandas(long, npartitions=3)
    with pytest.raises(InvalidInputError, match="`labels=` lists 'zebra'"):
        ddf.detection.classification(**LONG, labels=["zebra"])
    mixed = pd.DataFrame(
        {"datum": ["x", "x", "y"], "truth": ["a", "a", 1], "label": ["a", "b", 1], "score": [0.5, 0.2, 0.9]},
        dtype=object,
    ).astype({"score": float})
    with dask.config.set({"dataframe.convert-string": False}):  # keep the object columns' numbers
        mixed = dd.from_pandas(mixed, npartitions=2, sort=False)
    with pytest.raises(InvalidInputError, match=r"`y_true='truth'` mixes numbers and strings: row 2 holds 1"):
        quiet(mixed.detection.classification, **LONG)
    twice = long.assign(truth=np.where(long.index == 5, "zz", long["truth"]))
    with pytest.raises(InvalidInputError, match="more than one truth"):
        dd.from_pandas(twice, npartitions=3).detection.classification(**LONG)


def test_classification_checks_before_any_work():
    long, _ = classified(5)
    ddf = dd.from_pandas(long, npartitions=2).map_partitions(_boom, meta=long.iloc[:0])
    with pytest.raises(ColumnNotFoundError, match="datum"):
        ddf.detection.classification(**dict(LONG, datum="nope"))
    with pytest.raises(InvalidInputError, match="not a classification table"):
        ddf.detection.classification(**LONG, table="nope")
    with pytest.raises(InvalidInputError, match="top_prediction"):
        ddf.detection.classification(**LONG, top_prediction="nope")


def test_classification_compute_false():
    long, _ = classified(6)
    ddf = dd.from_pandas(long, npartitions=3)
    lazy = ddf.detection.classification(**LONG, table="summary", compute=False)
    assert isinstance(lazy, Delayed)
    assert_same_table(quiet(lazy.compute), quiet(long.detection.classification, **LONG, table="summary"))


cluster_client = test_dask.cluster_client  # the fixture: a LocalCluster of two worker processes


def test_classification_on_a_local_cluster_reading_parquet(tmp_path, cluster_client):
    long, wide = classified(8, n=60)
    for name, frame in (("long", long), ("wide", wide)):
        folder = tmp_path / name
        folder.mkdir()
        for i, piece in enumerate(np.array_split(np.arange(len(frame)), 3)):
            frame.iloc[piece].to_parquet(folder / f"part{i}.parquet", index=False)
    assert len(cluster_client.nthreads()) == 2
    for name, frame, columns in (("long", long, LONG), ("wide", wide, WIDE)):
        ddf = dd.read_parquet(str(tmp_path / name / "*.parquet"))
        for table in ("labels", "confusion"):
            result = quiet(ddf.detection.classification, **columns, table=table, max_examples=2)
            assert_same_table(
                result, quiet(frame.detection.classification, **columns, table=table, max_examples=2)
            )


# ----------------------------------------------------------------------------------------------
# instance segmentation (iou_type="segm") on dask


@pytest.fixture(scope="module")
def segm_tables():
    folder = conformance_path("coco", "coco_val2014_100")
    return read_coco(
        folder / "instances_val2014_100.json", folder / "instances_val2014_fakesegm100_results.json"
    )


@pytest.mark.parametrize(
    "method,kwargs", BOX_TABLES[:1] + BOX_TABLES[2:3] + BOX_TABLES[7:8] + BOX_TABLES[11:12]
)
def test_segm_equals_the_pandas_path(segm_tables, method, kwargs):
    gt, dt = segm_tables
    # dask turns object columns into text unless told not to (the masks are lists and dicts)
    with dask.config.set({"dataframe.convert-string": False}):
        ddt = dd.from_pandas(dt, npartitions=3, sort=False)
        dgt = dd.from_pandas(gt, npartitions=2, sort=False)
        expected = quiet(getattr(dt.detection, method), ground_truth=gt, iou_type="segm", **kwargs)
        # the image sizes and the results' areas of read_coco reach the partitions
        assert_same_table(
            quiet(getattr(ddt.detection, method), ground_truth=gt, iou_type="segm", **kwargs), expected
        )
        if method != "match":
            assert_same_table(
                quiet(getattr(ddt.detection, method), ground_truth=dgt, iou_type="segm", **kwargs), expected
            )


def test_segm_from_parquet_polygons_and_rles(tmp_path):
    rng = np.random.default_rng(5)
    n = 60
    image = rng.integers(0, 12, n)
    x, y = rng.uniform(0, 30, n), rng.uniform(0, 20, n)
    side = rng.uniform(3, 12, n)
    polygons = [[[a, b, a + s, b, a + s, b + s * 0.8, a, b + s]] for a, b, s in zip(x, y, side)]
    gt = pd.DataFrame({"image": image, "label": rng.choice(["a", "b"], n), "segmentation": polygons})
    jitter = rng.normal(0, 1.5, (n, 1))
    moved = [[list(np.asarray(p[0]) + j)] for p, j in zip(polygons, jitter)]
    sizes = {i: (32, 48) for i in range(12)}
    rles = mask_runs(moved, 32, 48).to_rle()
    dt = pd.DataFrame(
        {"image": image, "label": gt["label"], "segmentation": rles, "score": rng.uniform(0.05, 1, n)}
    )
    gt.to_parquet(tmp_path / "gt.parquet")
    dt.to_parquet(tmp_path / "dt.parquet")
    expected = quiet(dt.detection.evaluate, ground_truth=gt, iou_type="segm", image_sizes=sizes)
    ddt = dd.read_parquet(tmp_path / "dt.parquet").repartition(npartitions=4)
    dgt = dd.read_parquet(tmp_path / "gt.parquet")
    table = quiet(ddt.detection.evaluate, ground_truth=dgt, iou_type="segm", image_sizes=sizes)
    assert_same_table(table, expected)


def test_segm_masks_turned_into_text_are_refused_before_any_work(segm_tables):
    gt, dt = segm_tables
    with dask.config.set({"dataframe.convert-string": True}):
        ddt = dd.from_pandas(dt, npartitions=2)
    with pytest.raises(InvalidInputError, match=r"dask turned the masks into text.*convert-string"):
        ddt.detection.evaluate(ground_truth=gt, iou_type="segm")


def test_segm_on_a_local_cluster(cluster_client, segm_tables):
    # a distributed cluster shuffles with p2p (arrow) by default, which cannot carry a column
    # mixing polygon lists and RLE dicts (COCO's crowds): masks are shuffled as tasks
    assert len(cluster_client.nthreads()) == 2
    test_segm_equals_the_pandas_path(segm_tables, "evaluate", {})


# --------------------------------------------------------------------------------------
# a COCO file listing images without annotations: pycocotools' undefined numbers
# --------------------------------------------------------------------------------------
NO_ANNOTATIONS = {
    "images": [{"id": 1, "height": 20, "width": 20}, {"id": 2, "height": 20, "width": 20}],
    "categories": [{"id": 1, "name": "a"}],
    "annotations": [],
}
SOME_RESULTS = [
    {
        "image_id": i,
        "category_id": 1,
        "bbox": [i, i, 5, 5],
        "score": s,
        "segmentation": [[i, i, i + 5, i, i + 5, i + 5]],
    }
    for i, s in ((1, 0.9), (2, 0.4), (1, 0.3))
]


@pytest.mark.parametrize("iou_type", ["bbox", "segm"])
@pytest.mark.parametrize("n_results", [3, 0])
@pytest.mark.parametrize(
    "method", ["evaluate", "average_precision", "average_recall", "pr_curve", "match", "confusion"]
)
def test_no_ground_truth_in_a_file_listing_images_equals_the_pandas_path(iou_type, n_results, method):
    if method == "confusion" and iou_type == "segm":
        pytest.skip("confusion pairs boxes")
    gt, dt = read_coco(NO_ANNOTATIONS, SOME_RESULTS[:n_results])
    kwargs = {} if method == "confusion" else {"iou_type": iou_type}
    with dask.config.set({"dataframe.convert-string": False}):
        ddt = dd.from_pandas(dt, npartitions=2, sort=False)
        dgt = dd.from_pandas(gt, npartitions=1)
    dask_table, pandas_table = both(ddt, gt, method, kwargs)
    assert_same_table(dask_table, pandas_table)
    if method == "evaluate":
        assert dask_table["value"].isna().all() and len(dask_table) == 12
        with pytest.warns(pdmetrics.UndefinedMetricWarning, match="pycocotools prints -1"):
            ddt.detection.evaluate(ground_truth=dgt, **kwargs)


@pytest.mark.parametrize("table", CLASSIFICATION_TABLES)
@pytest.mark.parametrize("npartitions", [1, 3])
@pytest.mark.parametrize("dtype", ["int", "bool"])
def test_one_probability_column_equals_the_pandas_path(table, npartitions, dtype):
    rng = np.random.default_rng(npartitions)
    y = rng.integers(0, 2, 30)
    # a partition may hold a single class: the two classes come from the dtype (0/1, False/True)
    y[:12] = 1
    frame = pd.DataFrame({"y": y.astype(bool) if dtype == "bool" else y, "risk": np.round(rng.random(30), 1)})
    assert_same_table(*classification_both(frame, npartitions, y_true="y", score="risk", table=table))
    dask_table, pandas_table = classification_both(
        frame.assign(d=np.arange(30) * 3), npartitions, y_true="y", score=["risk"], datum="d", table=table
    )
    assert_same_table(dask_table, pandas_table)


def classification_errors(frame, npartitions: int, **kwargs) -> tuple[str, str]:
    """The messages of the errors the dask and the pandas paths raise (object columns kept)."""
    with dask.config.set({"dataframe.convert-string": False}):
        ddf = dd.from_pandas(frame, npartitions=npartitions, sort=False)
    messages = []
    for data in (ddf, frame):
        with pytest.raises(InvalidInputError) as raised:
            quiet(data.detection.classification, **kwargs)
        messages.append(str(raised.value))
    return messages[0], messages[1]


@pytest.mark.parametrize("npartitions", [1, 3])
@pytest.mark.parametrize("datum", [None, "d"])
def test_one_text_named_column_with_other_classes_is_refused_as_on_pandas(npartitions, datum):
    # one "b" among the rows: every partition but one holds only the column's name
    frame = pd.DataFrame({"y": ["risk"] * 8 + ["b"], "risk": np.linspace(0, 1, 9)}, index=np.arange(9) + 50)
    frame = frame.assign(d=np.arange(9) * 2)
    kwargs = {"y_true": "y", "score": "risk", "datum": datum}
    on_dask, on_pandas = classification_errors(frame, npartitions, **kwargs)
    assert on_dask == on_pandas
    assert re.search(r"`score='risk'` is the only score column.*classes: 'risk', 'b'.*long layout", on_dask)
    on_dask, _ = classification_errors(frame.assign(y=list("abababab") + ["a"]), npartitions, **kwargs)
    assert re.search(
        r"`score='risk'` is one column and not a class of `y_true='y'` \(classes: '[ab]', '[ab]'\)", on_dask
    )
    # every row of the column's own class: the wide layout, as on pandas
    only = frame.assign(y="risk")
    assert_same_table(*classification_both(only, npartitions, **kwargs))


@pytest.mark.parametrize("npartitions", [1, 3])
@pytest.mark.parametrize("datum", [None, "d"])
def test_a_boolean_among_numbers_in_y_true_is_named_as_on_pandas(npartitions, datum):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"y": [0, 1] * 30, "p": rng.random(60)}, index=np.arange(60) + 1000, dtype=object)
    frame = frame.astype({"p": float}).assign(d=np.arange(60))
    frame.loc[1059, "y"] = True
    kwargs = {"y_true": "y", "score": "p", "datum": datum}
    on_dask, on_pandas = classification_errors(frame, npartitions, **kwargs)
    pattern = r"`y_true='y'` mixes booleans and numbers: row 1059 holds True.*astype\(int\)"
    assert re.search(pattern, on_dask) and re.search(pattern, on_pandas)
    # the booleans all in one partition, the numbers in the others: refused alike
    split = frame.assign(y=pd.Series([0, 1] * 20 + [True, False] * 10, index=frame.index, dtype=object))
    on_dask, on_pandas = classification_errors(split, npartitions, **kwargs)
    pattern = r"`y_true='y'` mixes booleans and numbers: row {} holds {} where other rows hold numbers"
    assert re.search(pattern.format(r"10[45]\d", "(True|False)"), on_dask)
    assert re.search(pattern.format("1040", "True"), on_pandas)
    if datum is None:  # rows in their source order: the same message
        assert on_dask == on_pandas
    # strings and numbers in separate partitions of a wide layout, and of a long label column
    wide = pd.DataFrame({"y": pd.Series(["a", "b"] * 20 + [1, 2] * 10, dtype=object), "a": 0.4, "b": 0.6})
    on_dask, on_pandas = classification_errors(wide, npartitions, y_true="y", score=["a", "b"])
    assert "y_true" in on_dask and re.search(
        r"`y_true='y'` mixes numbers and strings: row 40 holds 1", on_pandas
    )
    long = pd.DataFrame(
        {"d": np.arange(60), "y": "a", "label": pd.Series(["a"] * 40 + [1] * 20, dtype=object), "s": 0.5}
    )
    on_dask, on_pandas = classification_errors(
        long, npartitions, y_true="y", label="label", score="s", datum="d"
    )
    assert re.search(r"`label='label'` mixes numbers and strings: row \d+ holds 1", on_dask)
    assert re.search(r"`label='label'` mixes numbers and strings: row 40 holds 1", on_pandas)


def test_mixed_label_columns_on_a_local_cluster(cluster_client):
    # a distributed cluster shuffles with p2p (arrow) by default, which cannot carry an object
    # column mixing booleans, numbers and strings: such columns are shuffled as tasks and refused
    # by name, not with p2p's "failed during transfer phase"
    assert len(cluster_client.nthreads()) == 2
    test_a_boolean_among_numbers_in_y_true_is_named_as_on_pandas(3, "d")
