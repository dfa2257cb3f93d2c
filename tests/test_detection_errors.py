"""``df.detection.errors``: TIDE's error breakdown equals tidecv 1.0.1 on COCO files of our own.

The files and tidecv's numbers are in ``tests/data/tide`` (made by its
``make_tide_expected.py`` with tidecv 1.0.1; tidecv prints AP points, 100 times ours).
"""

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pdmetrics  # noqa: F401
from pdmetrics import ColumnNotFoundError, InvalidInputError, UndefinedMetricWarning
from pdmetrics.detection import errors
from pdmetrics.detection.error_types import MAIN_ERRORS, SPECIAL_ERRORS
from pdmetrics.io import read_coco

HERE = Path(__file__).resolve().parent / "data" / "tide"
EXPECTED = json.loads((HERE / "expected.json").read_text())
CASES = [(case, mode) for case in EXPECTED for mode in EXPECTED[case]]
NAMES = [*MAIN_ERRORS, *SPECIAL_ERRORS]
BOX = ["image", "label", "x", "y", "w", "h"]


def tables(case: str):
    return read_coco(HERE / f"{case}_gt.json", HERE / f"{case}_dt.json")


def options(mode: str) -> dict:
    return {
        "iou_type": "segm" if mode == "segm" else "bbox",
        **({"max_dets": 3} if mode.endswith("_3") else {}),
    }


def assert_tidecv(table: pd.DataFrame, ref: dict) -> None:
    overall = table[table["label"] == "(all)"].set_index("error")
    assert overall.index.tolist() == NAMES
    assert overall["ap"].iloc[0] == pytest.approx(ref["ap"] / 100, abs=1e-9)
    for name, value in {**ref["main"], **ref["special"]}.items():
        assert overall.loc[name, "dap"] == pytest.approx(value / 100, abs=1e-9), name
    for name, count in ref["counts"].items():
        assert overall.loc[name, "count"] == count, name
    per_label = table[table["label"] != "(all)"]
    assert sorted(per_label["label"].astype(str).unique()) == sorted(ref["labels"])
    for label, numbers in ref["labels"].items():
        rows = per_label[per_label["label"].astype(str) == label].set_index("error")
        assert rows["ap"].iloc[0] == pytest.approx(numbers["ap"] / 100, abs=1e-9)
        for name in NAMES:
            assert rows.loc[name, "dap"] == pytest.approx(numbers[name] / 100, abs=1e-9), (label, name)
        for name, count in numbers.get("counts", {}).items():
            assert rows.loc[name, "count"] == count, (label, name)


@pytest.mark.parametrize(("case", "mode"), CASES)
def test_equals_tidecv(case, mode):
    gt, dt = tables(case)
    assert_tidecv(dt.detection.errors(ground_truth=gt, **options(mode)), EXPECTED[case][mode])


@pytest.mark.parametrize("case", list(EXPECTED))
def test_box_only_tables_give_the_box_numbers(case):
    # tidecv needs masks in the ground truth even for boxes (tide issues #49, #52); we do not
    gt, dt = tables(case)
    images = list(gt.attrs["pdmetrics.coco"]["images"])
    plain_gt = pd.DataFrame(gt[[*BOX, "iscrowd"]].to_dict("list"))
    plain_dt = pd.DataFrame(dt[[*BOX, "score"]].to_dict("list"))
    table = errors(plain_dt, ground_truth=plain_gt, iscrowd="iscrowd", images=images)
    assert_tidecv(table, EXPECTED[case]["bbox"])


def test_tidecv_itself_on_new_data(tmp_path):
    pytest.importorskip("tidecv", reason="tidecv 1.0.1 is not installed (it needs numpy < 1.24)")
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_tide", HERE / "make_tide_expected.py")
    make = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make)
    gt_json, dt_json = make.make_case(11, 40, 4)
    (tmp_path / "gt.json").write_text(json.dumps(gt_json))
    (tmp_path / "dt.json").write_text(json.dumps(dt_json))
    ref = make.tidecv_numbers(tmp_path / "gt.json", tmp_path / "dt.json", "bbox")
    gt, dt = read_coco(tmp_path / "gt.json", tmp_path / "dt.json")
    assert_tidecv(dt.detection.errors(ground_truth=gt, iou_type="bbox"), ref)


def test_table_shape_and_accessor():
    gt, dt = tables("small")
    table = dt.detection.errors(ground_truth=gt, iou_type="bbox")
    assert table.columns.tolist() == ["label", "error", "kind", "N", "count", "ap", "dap"]
    assert isinstance(table.index, pd.RangeIndex)
    assert table["kind"].tolist()[:8] == ["main"] * 6 + ["special"] * 2
    assert (table.loc[table["kind"] == "main", "dap"] >= 0).all()
    pooled = errors(dt, ground_truth=gt, iou_type="bbox", by=None)
    pd.testing.assert_frame_equal(pooled, table[table["label"] == "(all)"].reset_index(drop=True))
    assert table.attrs["pdmetrics"]["foreground_threshold"] == 0.5


def test_inputs_are_not_changed():
    gt, dt = tables("small")
    before_gt, before_dt = gt.copy(), dt.copy()
    errors(dt, ground_truth=gt, iou_type="segm")
    pd.testing.assert_frame_equal(gt, before_gt)
    pd.testing.assert_frame_equal(dt, before_dt)


def test_thresholds_change_the_types():
    gt, dt = tables("medium")
    strict = errors(dt, ground_truth=gt, iou_type="bbox", foreground_threshold=0.75, by=None)
    loose = errors(dt, ground_truth=gt, iou_type="bbox", foreground_threshold=0.5, by=None)
    assert strict.set_index("error").loc["Loc", "count"] > loose.set_index("error").loc["Loc", "count"]
    assert strict["ap"].iloc[0] < loose["ap"].iloc[0]


# --------------------------------------------------------------------------------------
# the match table's error column
# --------------------------------------------------------------------------------------
def test_match_types_every_false_positive_as_errors_counts_them():
    gt, dt = tables("medium")
    matches = dt.detection.match(ground_truth=gt, iou_type="bbox", iou_thresholds=[0.5, 0.75])
    assert matches.columns[-1] == "error"
    counted = ~matches["ignored"]
    assert matches.loc[counted & matches["tp"], "error"].isna().all()
    assert matches.loc[counted & ~matches["tp"], "error"].notna().all()
    at_half = matches[matches["iou_threshold"] == 0.5]
    table = errors(dt, ground_truth=gt, iou_type="bbox", by=None).set_index("error")
    for name in MAIN_ERRORS[:-1]:
        assert (at_half["error"] == name).sum() == table.loc[name, "count"], name
    loc_75 = (matches.loc[matches["iou_threshold"] == 0.75, "error"] == "Loc").sum()
    strict = errors(dt, ground_truth=gt, iou_type="bbox", foreground_threshold=0.75, by=None)
    assert loc_75 == strict.set_index("error").loc["Loc", "count"]


# --------------------------------------------------------------------------------------
# edge cases
# --------------------------------------------------------------------------------------
GT = pd.DataFrame({"image": [1, 1, 2], "label": [0, 1, 0], "x": [0, 50, 0], "y": 0, "w": 20, "h": 20})
DT = pd.DataFrame(
    {
        "image": [1, 1, 2],
        "label": [0, 1, 0],
        "x": [0, 40, 90],
        "y": 0,
        "w": 20,
        "h": 20,
        "score": [0.9, 0.8, 0.7],
    }
)


def test_no_detections_miss_everything():
    table = errors(DT.iloc[:0], ground_truth=GT, by=None).set_index("error")
    assert table["ap"].iloc[0] == 0
    assert table.loc["Miss", "count"] == 3
    assert table.loc["FalseNeg", "count"] == 3
    assert table.loc[["Cls", "Loc", "Both", "Dupe", "Bkg"], "count"].eq(0).all()


def test_one_row_each():
    table = errors(DT.iloc[:1], ground_truth=GT.iloc[:1], by=None).set_index("error")
    assert table["ap"].iloc[0] == 1
    assert table["dap"].eq(0).all()


def test_label_without_ground_truth_counts_as_ap_zero():
    dt = DT.assign(label=[0, 1, 7])
    table = errors(dt, ground_truth=GT)
    seven = table[table["label"] == 7].set_index("error")
    assert seven["N"].iloc[0] == 0 and seven["ap"].iloc[0] == 0
    assert seven.loc["Bkg", "count"] == 1


def test_no_ground_truth_with_images_listed():
    # every detection is on background; fixing them leaves no label to average
    table = errors(DT, ground_truth=GT.iloc[:0], images=[1, 2], by=None).set_index("error")
    assert table["ap"].iloc[0] == 0
    assert table.loc["Bkg", "count"] == 3
    assert np.isnan(table.loc["Bkg", "dap"])


def test_nothing_to_average_is_nan_with_a_warning():
    with pytest.warns(UndefinedMetricWarning, match="No label"):
        table = errors(DT.iloc[:0], ground_truth=GT.iloc[:0], images=[1])
    assert table["ap"].isna().all()


def test_empty_ground_truth_without_images_is_refused():
    with pytest.raises(InvalidInputError, match="ground-truth table is empty"):
        errors(DT, ground_truth=GT.iloc[:0])


def test_nan_score_is_refused():
    with pytest.raises(InvalidInputError, match="score"):
        errors(DT.assign(score=[0.9, np.nan, 0.1]), ground_truth=GT)


def test_missing_column_names_the_argument():
    with pytest.raises(ColumnNotFoundError, match="confidence"):
        errors(DT, ground_truth=GT, score="confidence")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"background_threshold": 0.6}, "background_threshold <= foreground_threshold"),
        ({"foreground_threshold": 0}, "positive"),
        ({"foreground_threshold": 1.5}, "foreground_threshold"),
        ({"background_threshold": "a"}, "background_threshold"),
        ({"max_dets": 0}, "max_dets"),
        ({"max_dets": 2.5}, "max_dets"),
        ({"by": "image"}, "by="),
    ],
)
def test_bad_options(kwargs, match):
    with pytest.raises(InvalidInputError, match=match):
        errors(DT, ground_truth=GT, **kwargs)


def test_max_dets_keeps_the_best_of_each_image_over_labels():
    dt = pd.concat([DT, DT.assign(label=1 - DT["label"], score=DT["score"] / 2)], ignore_index=True)
    table = errors(dt, ground_truth=GT, max_dets=1, by=None).set_index("error")
    whole = errors(dt, ground_truth=GT, max_dets=100, by=None).set_index("error")
    assert table.loc["FalsePos", "count"] < whole.loc["FalsePos", "count"]


# --------------------------------------------------------------------------------------
# engines
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("npartitions", [1, 3])
def test_dask_equals_pandas(npartitions):
    dd = pytest.importorskip("dask.dataframe")
    gt, dt = tables("medium")
    images = list(gt.attrs["pdmetrics.coco"]["images"])
    expected = errors(dt, ground_truth=gt, iou_type="bbox")
    shuffled = dt[[*BOX, "score"]].sample(frac=1, random_state=npartitions)
    ddt = dd.from_pandas(shuffled, npartitions=npartitions, sort=False)
    dgt = dd.from_pandas(gt[[*BOX, "iscrowd"]], npartitions=2, sort=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = ddt.detection.errors(ground_truth=dgt, images=images, iscrowd="iscrowd")
    pd.testing.assert_frame_equal(table, expected, check_exact=False, rtol=1e-12)
    matches = ddt.detection.match(ground_truth=dgt, images=images, iscrowd="iscrowd", iou_thresholds=[0.5])
    whole = shuffled.detection.match(
        ground_truth=gt[[*BOX, "iscrowd"]], images=images, iscrowd="iscrowd", iou_thresholds=[0.5]
    )
    assert matches["error"].tolist() == whole["error"].tolist()


def test_polars_equals_pandas():
    pl = pytest.importorskip("polars")
    gt, dt = tables("small")
    images = list(gt.attrs["pdmetrics.coco"]["images"])
    expected = errors(dt, ground_truth=gt, iou_type="bbox")
    table = pl.from_pandas(dt[[*BOX, "score"]]).detection.errors(
        ground_truth=pl.from_pandas(gt[[*BOX, "iscrowd"]]), iscrowd="iscrowd", images=images
    )
    table = table.to_pandas() if hasattr(table, "to_pandas") else table
    for column in expected.columns:
        if column in ("ap", "dap"):
            np.testing.assert_allclose(table[column], expected[column], rtol=1e-12)
        else:  # polars holds the label column ("(all)" among integer labels) as text
            assert table[column].astype(str).tolist() == expected[column].astype(str).tolist(), column


# --------------------------------------------------------------------------------------
# invariants
# --------------------------------------------------------------------------------------
def _random_tables(seed: int, n_images: int = 6):
    rng = np.random.default_rng(seed)
    n_gt = int(rng.integers(1, 25))
    gt = pd.DataFrame(
        {
            "image": rng.integers(0, n_images, n_gt),
            "label": rng.choice(["a", "b", "c"], n_gt),
            "x": rng.uniform(0, 60, n_gt),
            "y": rng.uniform(0, 60, n_gt),
            "w": rng.uniform(5, 30, n_gt),
            "h": rng.uniform(5, 30, n_gt),
            "iscrowd": (rng.random(n_gt) < 0.1).astype(int),
        }
    )
    near = gt.sample(n=int(rng.integers(0, 2 * n_gt + 1)), replace=True, random_state=seed)
    near = near.assign(
        x=near["x"] + rng.normal(0, 4, len(near)),
        label=np.where(rng.random(len(near)) < 0.2, rng.choice(["a", "b", "c"], len(near)), near["label"]),
    )
    far = gt.sample(n=int(rng.integers(0, 6)), replace=True, random_state=seed + 1).assign(
        x=lambda d: d["x"] + 80
    )
    dt = pd.concat([near, far], ignore_index=True).drop(columns="iscrowd")
    dt["score"] = rng.random(len(dt))  # distinct scores: no tie to break
    return gt, dt, list(range(n_images))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), permute=st.booleans())
def test_row_order_does_not_matter_and_main_gains_are_not_negative(seed, permute):
    gt, dt, images = _random_tables(seed)
    kwargs = {"iscrowd": "iscrowd", "images": images}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = errors(dt, ground_truth=gt, **kwargs)
        rng = np.random.default_rng(seed)
        shuffled = errors(
            dt.iloc[rng.permutation(len(dt))], ground_truth=gt.iloc[rng.permutation(len(gt))], **kwargs
        )
    pd.testing.assert_frame_equal(shuffled, table, check_exact=False, rtol=1e-12)
    main = table[table["kind"] == "main"]["dap"]
    assert (main.dropna() >= 0).all()
    counts = table.set_index(["label", "error"])["count"]
    false_positives = counts.xs("FalsePos", level="error")
    typed = sum(counts.xs(name, level="error") for name in ["Cls", "Loc", "Both", "Dupe", "Bkg"])
    assert (typed >= false_positives).all()  # ignored detections get a type too


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n_dt_parts=st.integers(1, 7), n_gt_parts=st.integers(1, 5))
def test_dask_any_partitioning(seed, n_dt_parts, n_gt_parts):
    dd = pytest.importorskip("dask.dataframe")
    gt, dt, images = _random_tables(seed)
    kwargs = {"iscrowd": "iscrowd", "images": images}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = errors(dt, ground_truth=gt, **kwargs)
        table = dd.from_pandas(dt, npartitions=n_dt_parts, sort=False).detection.errors(
            ground_truth=dd.from_pandas(gt, npartitions=n_gt_parts, sort=False), **kwargs
        )
    pd.testing.assert_frame_equal(table, expected, check_exact=False, rtol=1e-12)


def test_dask_masks_equal_pandas():
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    gt, dt = tables("small")
    expected = errors(dt, ground_truth=gt, iou_type="segm")
    coco = gt.attrs["pdmetrics.coco"]
    sizes = {i: (h, w) for i, h, w in zip(coco["images"], coco["heights"], coco["widths"])}
    with dask.config.set({"dataframe.convert-string": False}):  # polygons and RLEs stay objects
        ddt = dd.from_pandas(dt, npartitions=3, sort=False)
        table = ddt.detection.errors(
            ground_truth=gt,
            iou_type="segm",
            images=list(coco["images"]),
            image_sizes=sizes,
            iscrowd="iscrowd",
        )
    pd.testing.assert_frame_equal(table, expected, check_exact=False, rtol=1e-12)
