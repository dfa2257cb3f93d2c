"""The polars engine: ``pl_df.scoring``, ``pl_df.fairness``, ``pl_df.detection``, ``pl_df.textgen``.

Every public method of every pandas accessor, run on a polars frame read with
``pl.read_parquet``, equals the pandas method on the same file read with
``pd.read_parquet`` (1e-12 relative, counts and labels exactly) and comes back as polars;
per-row results have the caller's height and row order. The frames are those of the dask
tests (tests/test_dask*.py) and pdmetrics.datasets.
"""

import dataclasses
import functools
import inspect
import subprocess
import sys
import types
import warnings

import numpy as np
import pandas as pd
import pytest

import pdmetrics
from pdmetrics import ColumnNotFoundError, ExcludedRowsWarning, InvalidInputError
from pdmetrics._table_spec import Rows, Table, Whole, table
from pdmetrics.accessors import base
from pdmetrics.datasets import simulate_essays, simulate_scores
from pdmetrics.io import read_coco

pl = pytest.importorskip("polars")
pytest.importorskip("pyarrow")

from tests.keypoint_files import keypoint_files  # noqa: E402
from tests.test_dask_detection import box_tables, classified  # noqa: E402
from tests.test_dask_fairness import outcomes  # noqa: E402
from tests.test_dask_textgen import ranked_rows, texts, verdict_rows  # noqa: E402
from tests.test_textgen_judge_agreement import long_verdicts  # noqa: E402

DOMAINS = ("scoring", "fairness", "detection", "textgen")


def pandas_accessor(domain: str) -> type:
    return getattr(pd.DataFrame, domain)


def public_methods(cls: type) -> list[str]:
    return [name for name, member in inspect.getmembers(cls) if not name.startswith("_")]


# --------------------------------------------------------------------------------------
# the frames, written to parquet and read back by each library
# --------------------------------------------------------------------------------------
def build_frames() -> dict[str, pd.DataFrame]:
    scores = simulate_scores(600, seed=3)
    scores["grade"] = np.random.default_rng(3).integers(6, 11, len(scores))
    scores.loc[[5, 17, 40], "raw"] = np.nan  # rows the pandas path leaves out
    gt, dt, _ = box_tables(0)
    long, wide = classified(1)
    kp_gt, kp_dt = (pd.DataFrame(t) for t in read_coco(*keypoint_files(2, 15, 5)))
    rng = np.random.default_rng(4)
    shapes = rng.integers(2, 6, 20)
    masks = pd.DataFrame(
        {
            "gt": [rng.integers(0, 3, (s, s)).tolist() for s in shapes],
            "pred": [rng.integers(0, 3, (s, s)).tolist() for s in shapes],
        }
    )
    return {
        "scores": scores,
        "essays": simulate_essays(
            300, n_features=3, feature_means=[5, 50, 0], feature_sds=[1, 10, 0.2], groups=["A", "B"], seed=2
        ),
        "outcomes": outcomes(800, seed=5),
        "gt": gt,
        "dt": dt,
        "detectors": pd.concat(
            [dt.assign(model="a"), dt.assign(model="b", score=dt["score"].to_numpy()[::-1])],
            ignore_index=True,
        ),
        "long": long,
        "wide": wide,
        "masks": masks,
        "kp_gt": kp_gt.drop(columns="num_keypoints"),  # read_coco's record is lost in a file
        "kp_dt": kp_dt,
        "texts": texts(0).assign(base=texts(1)["pred"]),
        "verdicts": verdict_rows(3),
        "ranked": ranked_rows(4),
        "coherence": ranked_rows(4).drop_duplicates("id"),  # one score per datum
        "judges": long_verdicts(3),
    }


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("polars")
    paths = {}
    for name, frame in build_frames().items():
        paths[name] = folder / f"{name}.parquet"
        frame.to_parquet(paths[name])
    return paths


def read_polars(path) -> "pl.DataFrame":
    """The file as polars reads it; a pandas categorical as the polars Enum of its categories
    (a polars Categorical keeps no category order; an Enum does)."""
    frame = pl.read_parquet(path)
    categories = {
        name: list(dtype.categories)
        for name, dtype in pd.read_parquet(path).dtypes.items()
        if isinstance(dtype, pd.CategoricalDtype)
    }
    return frame.with_columns(pl.col(name).cast(pl.Enum(values)) for name, values in categories.items())


ESSAY_FEATURES = ["f1", "f2", "f3"]
#: A scaled scoring model of the essays' features (for ``predict``).
SCALED_MODEL = pdmetrics.scoring.LinearScoringModel(
    {"f1": 1, "f2": 1, "f3": 1}, means=[5, 50, 0], sds=[1, 10, 0.2], z_sd=1.0, scale_mean=3.0, scale_sd=1.0
)
IMAGES = list(range(15))  # the images of box_tables(0), some without ground truth
#: the keypoint tables of keypoint_files(2, 15, 5): 15 images, 5 keypoints
KEYPOINTS = {
    "ground_truth": ("frame", "kp_gt"),
    "images": list(range(1, 16)),
    "iscrowd": "iscrowd",
    "area": "area",
    "sigmas": [0.03, 0.05, 0.07, 0.09, 0.11],
}

#: (domain, method, frame, keyword arguments): every public method at least once; a value
#: ("frame", name) is that frame (polars on the polars side, pandas on the pandas side).
CASES = [
    ("scoring", "evaluate", "scores", {"human": "sc1", "system": "raw"}),
    ("scoring", "evaluate", "scores", {"human": "sc1", "system": ["raw", "sc2"], "by": ["L1", "grade"]}),
    (
        "scoring",
        "compare",
        "scores",
        {"human": "sc1", "system": ["raw", "sc2"], "by": "L1", "n_resamples": 50},
    ),
    ("scoring", "consistency", "scores", {"human": "sc1", "second_human": "sc2", "by": "L1"}),
    (
        "scoring",
        "agreement",
        "scores",
        {"raters": ["sc1", "sc2"], "level": "ordinal", "by": "L1", "n_resamples": 20},
    ),
    ("scoring", "confusion_matrix", "scores", {"human": "sc1", "system": "sc2"}),
    ("scoring", "degradation", "scores", {"human": "sc1", "second_human": "sc2", "system": "raw"}),
    (
        "scoring",
        "disattenuated_correlations",
        "scores",
        {"human": "sc1", "second_human": "sc2", "system": "raw", "by": "L1"},
    ),
    ("scoring", "score_distribution", "scores", {"human": "sc1", "system": "raw"}),
    ("scoring", "postprocess", "scores", {"system": "raw", "trim_min": 1, "trim_max": 6}),
    (
        "scoring",
        "postprocess",
        "scores",
        {"system": "raw", "trim_min": 1, "trim_max": 6, "scale_with": ("frame", "scores"), "human": "sc1"},
    ),
    ("scoring", "true_score", "essays", {"system": "f1", "raters": ["h1", "h2"]}),
    ("scoring", "weighted_score", "essays", {"features": {"f1": 2, "f2": 1, "f3": 1}}),
    ("scoring", "fit_ep", "essays", {"features": ESSAY_FEATURES, "human": ["h1", "h2"]}),
    (
        "scoring",
        "fit_pp",
        "essays",
        {"weights": {"f1": 1, "f2": 1, "f3": 1}, "means": [5, 50, 0], "sds": [1, 10, 0.2], "human": "h1"},
    ),
    ("scoring", "predict", "essays", {"model": SCALED_MODEL, "z_name": "Z"}),
    (
        "scoring",
        "report",
        "scores",
        {"human": "sc1", "system": "raw", "second_human": "sc2", "by": "L1", "trim_min": 1, "trim_max": 6},
    ),
    ("fairness", "classification", "outcomes", {"y_true": "y", "y_pred": "p", "by": ["male", "age"]}),
    ("fairness", "by_group", "outcomes", {"y_true": "y", "y_pred": "p", "by": ["g", "cat"]}),
    (
        "fairness",
        "classification",
        "outcomes",
        {"y_true": "st", "y_pred": "an", "by": ["male", "g"], "privileged": {"g": "a"}, "classes": "all"},
    ),
    (
        "fairness",
        "classification",
        "outcomes",
        {"y_true": "label", "y_pred": "twin", "by": "male", "classes": ["L", "H"], "table": "worst"},
    ),
    (
        "fairness",
        "by_group",
        "outcomes",
        {"y_true": "st", "y_pred": "an", "by": ["g", "cat"], "classes": "all", "ordinal": True},
    ),
    (
        "fairness",
        "by_group",
        "outcomes",
        {"y_true": "st", "y_pred": "an", "by": "g", "classes": "all", "table": "macro"},
    ),
    (
        "fairness",
        "by_group",
        "outcomes",
        {"y_true": "st", "y_pred": "an", "by": "g", "classes": [1, 2, 3], "ordinal": True, "table": "levels"},
    ),
    (
        "fairness",
        "compare",
        "outcomes",
        {
            "y_true": "y",
            "y_pred": ["p", "male"],
            "by": ["g", "cat", "age"],
            "privileged": {"g": "a", "cat": "z"},
            "threshold": {"age": 50},
            "n_resamples": 50,
        },
    ),
    (
        "fairness",
        "by_group",
        "outcomes",
        {"y_true": "y", "y_pred": "p", "by": "g", "n_resamples": 20, "random_state": 1},
    ),
    (
        "fairness",
        "group_disparity",
        "outcomes",
        {"y_true": "y", "y_pred": "p", "by": ["g", "k"], "n_resamples": 20, "random_state": 0},
    ),
    (
        "fairness",
        "gap_tests",
        "outcomes",
        {"y_true": "y", "y_pred": "p", "by": ["g", "cat"], "privileged": {"g": "a", "cat": "z"}},
    ),
    (
        "fairness",
        "gap_tests",
        "outcomes",
        {"y_true": "st", "y_pred": "an", "by": ["g", "cat"], "classes": [3, 1, 2], "ordinal": True},
    ),
    (
        "fairness",
        "intersections",
        "outcomes",
        {"y_true": "y", "y_pred": "p", "by": ["g", "cat"], "min_size": 80, "small": "pool"},
    ),
    (
        "fairness",
        "intersections",
        "outcomes",
        {
            "y_true": "st",
            "y_pred": "an",
            "by": ["g", "cat"],
            "classes": "all",
            "min_size": 30,
            "metric": "tpr",
        },
    ),
    ("fairness", "score_fairness", "outcomes", {"human": "h", "system": "s", "by": ["g", "k"]}),
    ("fairness", "score_distributions", "outcomes", {"score": "metric", "by": ["g", "k"]}),
    (
        "fairness",
        "score_distributions",
        "outcomes",
        {"score": "metric", "by": "cat", "y_true": "y", "n_bins": None, "against": "rest"},
    ),
    ("fairness", "score_fairness_estimates", "outcomes", {"human": "h", "system": "s", "by": "g"}),
    ("fairness", "inequality", "outcomes", {"y_true": "y", "y_pred": "p", "by": ["g", "cat"], "alpha": 1.5}),
    ("fairness", "inequality", "outcomes", {"y_true": "y", "y_pred": "p"}),
    (
        "fairness",
        "differential_fairness",
        "outcomes",
        {"y_pred": "p", "by": ["g", "k"], "concentration": 0.5},
    ),
    (
        "fairness",
        "consistency",
        "outcomes",
        {"features": ["metric", "s"], "y_pred": "male", "n_neighbors": 4},
    ),
    (
        "fairness",
        "llm_fairness",
        "outcomes",
        {
            "y_true": "label",
            "response": "answer",
            "by": ["male", "age"],
            "positive": "H",
            "negative": "L",
            "error": "failed",
            "threshold": {"age": "midrange"},
        },
    ),
    (
        "fairness",
        "context_association",
        "outcomes",
        {"response": "option", "stereotype": "st", "anti_stereotype": "an", "unrelated": "un", "by": "lang"},
    ),
    (
        "fairness",
        "counterfactual",
        "outcomes",
        {"prediction": "answer", "counterfactual": "twin", "by": "male", "valid": ["H", "L"]},
    ),
    (
        "fairness",
        "language_accuracy",
        "outcomes",
        {"response": "said", "answer": "correct", "options": ["Paris", "Rome"], "by": ["lang", "male"]},
    ),
    ("fairness", "average_metrics", "outcomes", {"metrics": ["metric", "age"], "by": "g"}),
    (
        "detection",
        "evaluate",
        "dt",
        {"ground_truth": ("frame", "gt"), "images": IMAGES, "iscrowd": "iscrowd", "area": "area"},
    ),
    (
        "detection",
        "average_precision",
        "dt",
        {"ground_truth": ("frame", "gt"), "images": IMAGES, "ignore": "ignore"},
    ),
    (
        "detection",
        "average_recall",
        "dt",
        {"ground_truth": ("frame", "gt"), "images": IMAGES, "matching": "valor"},
    ),
    ("detection", "match", "dt", {"ground_truth": ("frame", "gt"), "images": IMAGES}),
    (
        "detection",
        "compare",
        "detectors",
        {"ground_truth": ("frame", "gt"), "images": IMAGES, "system": "model", "n_resamples": 50},
    ),
    ("detection", "pr_curve", "dt", {"ground_truth": ("frame", "gt"), "images": IMAGES}),
    ("detection", "confusion", "dt", {"ground_truth": ("frame", "gt"), "images": IMAGES, "max_examples": 2}),
    (
        "detection",
        "operating_points",
        "dt",
        {"ground_truth": ("frame", "gt"), "images": IMAGES, "iscrowd": "iscrowd", "objective": ("fbeta", 2)},
    ),
    ("detection", "per_image", "dt", {"ground_truth": ("frame", "gt"), "images": IMAGES, "ignore": "ignore"}),
    ("detection", "errors", "dt", {"ground_truth": ("frame", "gt"), "images": IMAGES, "iscrowd": "iscrowd"}),
    ("detection", "confusion", "dt", {"ground_truth": ("frame", "gt"), "images": IMAGES, "table": "matrix"}),
    (
        "detection",
        "classification",
        "long",
        {"y_true": "truth", "score": "score", "label": "label", "datum": "datum", "table": "errors"},
    ),
    ("detection", "classification", "wide", {"y_true": "truth", "score": ["a", "b", "c", "d"]}),
    ("detection", "evaluate", "kp_dt", {**KEYPOINTS, "iou_type": "keypoints"}),
    ("detection", "keypoint_similarity", "kp_dt", KEYPOINTS),
    ("textgen", "rouge", "texts", {"prediction": "pred", "reference": ["ref", "ref2"], "details": True}),
    ("textgen", "rouge", "texts", {"prediction": "pred", "reference": "ref", "by": "grp"}),
    ("textgen", "bleu", "texts", {"prediction": "pred", "reference": ["ref", "ref2"], "datum": "doc"}),
    ("textgen", "corpus_bleu", "texts", {"prediction": "pred", "reference": ["ref", "ref2"]}),
    ("textgen", "chrf", "texts", {"prediction": "pred", "reference": "ref", "word_order": 2}),
    ("textgen", "ter", "texts", {"prediction": "pred", "reference": ["ref", "ref2"]}),
    (
        "textgen",
        "paired_bootstrap",
        "texts",
        {"prediction": "pred", "baseline": "base", "reference": "ref", "n_resamples": 50},
    ),
    (
        "textgen",
        "compare",
        "texts",
        {
            "prediction": ["base", "pred"],
            "reference": ["ref", "ref2"],
            "metric": ["bleu", "rouge1"],
            "n_resamples": 50,
        },
    ),
    *[
        ("textgen", method, "verdicts", {"datum": "id", "verdict": "verdict", "by": "topic"})
        for method in ("answer_relevance", "bias", "toxicity", "context_relevance", "hallucination")
    ],
    ("textgen", "faithfulness", "verdicts", {"datum": "id", "verdict": "verdict"}),
    ("textgen", "answer_correctness", "ranked", {"datum": "id", "verdict": "tp_fp_fn", "ground_truth": "gt"}),
    (
        "textgen",
        "context_recall",
        "ranked",
        {"datum": "id", "verdict": "yes_no", "ground_truth": "gt", "zero_division": 0},
    ),
    (
        "textgen",
        "context_precision",
        "ranked",
        {"datum": "id", "verdict": "yes_no", "rank": "rank", "ground_truth": "gt"},
    ),
    ("textgen", "summary_coherence", "coherence", {"datum": "id", "score": "coherence", "by": "topic"}),
    (
        "textgen",
        "judge_agreement",
        "judges",
        {
            "datum": "datum",
            "judge": "judge",
            "verdict": "verdict",
            "run": "run",
            "human": "human",
            "n_resamples": 20,
        },
    ),
]
#: masks read from parquet (by pandas or polars alike) arrive as arrays of rows; the pandas path
#: wants one 2-D array per image, so segmentation cannot run on a file's masks yet
SEGMENTATION = [
    ("detection", "segmentation", "masks", {"y_true": "gt", "y_pred": "pred"}),
    ("detection", "segmentation", "masks", {"y_true": "gt", "y_pred": "pred", "table": "confusion"}),
]
IDS = [f"{domain}.{method}-{i}" for i, (domain, method, _, _) in enumerate(CASES)]


def arguments(kwargs: dict, read) -> dict:
    return {
        key: read(value[1]) if isinstance(value, tuple) and value[:1] == ("frame",) else value
        for key, value in kwargs.items()
    }


def quiet(call, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(**kwargs)


def as_pandas_engine_would(table: pd.DataFrame, height: int) -> pd.DataFrame:
    """The pandas table as the polars engine documents its result (labels as columns, rows)."""
    if table.index.name == "__pdmetrics_row__":
        return table.reindex(pd.RangeIndex(height)).reset_index(drop=True)
    if isinstance(table.index, pd.RangeIndex) and table.index.start == 0 and table.index.name is None:
        return table
    return table.reset_index()


def assert_same(result: "pl.DataFrame", expected: pd.DataFrame) -> None:
    """The polars result against the pandas table: numbers to 1e-12, integers as integers,
    labels equal (labels of several types, which polars holds as text, as text)."""
    actual = result.to_pandas()
    assert list(actual.columns) == [str(c) for c in expected.columns]
    assert len(actual) == len(expected)
    for name, column in zip(actual.columns, expected.columns, strict=True):
        a, b = actual[name], expected[column]
        if pd.api.types.is_numeric_dtype(b.dtype) and not pd.api.types.is_bool_dtype(b.dtype):
            np.testing.assert_allclose(a.to_numpy(float), b.to_numpy(float), rtol=1e-12, err_msg=name)
            if pd.api.types.is_integer_dtype(b.dtype):  # counts exactly, as integers
                assert result.schema[name].is_integer(), name
        else:
            left = [None if _missing(v) else _plain(v) for v in a.tolist()]
            right = [None if _missing(v) else _plain(v) for v in b.tolist()]
            if len({type(v) for v in right if v is not None}) > 1:
                assert result.schema[name] == pl.String, name
                right = [None if v is None else str(v) for v in right]
            assert left == right, name


def _missing(value) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value))


def _plain(value):
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


@pytest.mark.parametrize(("domain", "method", "frame", "kwargs"), CASES, ids=IDS)
def test_every_method_gives_the_pandas_result(files, domain, method, frame, kwargs):
    check_against_pandas(files, domain, method, frame, kwargs)


@pytest.mark.xfail(raises=InvalidInputError, strict=True, reason="the pandas path wants 2-D mask arrays")
@pytest.mark.parametrize(("domain", "method", "frame", "kwargs"), SEGMENTATION)
def test_segmentation_of_masks_read_from_a_file(files, domain, method, frame, kwargs):
    check_against_pandas(files, domain, method, frame, kwargs)


def check_against_pandas(files, domain, method, frame, kwargs):
    pl_frame = read_polars(files[frame])
    pd_frame = pd.read_parquet(files[frame])
    result = quiet(
        getattr(getattr(pl_frame, domain), method), **arguments(kwargs, lambda n: read_polars(files[n]))
    )
    # the pandas path on the frame as pandas reads the file; its row labels marked as the engine's
    marked = pd_frame.set_axis(pd.RangeIndex(len(pd_frame), name="__pdmetrics_row__"))
    expected = quiet(
        getattr(getattr(marked, domain), method), **arguments(kwargs, lambda n: pd.read_parquet(files[n]))
    )
    plain = quiet(
        getattr(getattr(pd_frame, domain), method), **arguments(kwargs, lambda n: pd.read_parquet(files[n]))
    )
    if isinstance(plain, pd.DataFrame):  # the marked row labels change nothing but the index's name
        pd.testing.assert_frame_equal(expected, plain, check_names=False)
        assert list(expected.columns) == list(plain.columns)
    if isinstance(expected, pd.DataFrame):
        assert isinstance(result, pl.DataFrame)
        assert_same(result, as_pandas_engine_would(expected, len(pd_frame)))
    else:  # a report, a fitted model: as the pandas path returns it
        assert type(result) is type(expected)
        assert not isinstance(result, (pd.DataFrame, pl.DataFrame))


def test_every_public_method_is_covered():
    covered = {(domain, method) for domain, method, _, _ in CASES + SEGMENTATION}
    for domain in DOMAINS:
        for method in public_methods(pandas_accessor(domain)):
            if method != "plot":
                assert (domain, method) in covered, f"{domain}.{method} has no polars case"


# --------------------------------------------------------------------------------------
# the namespaces: registration, signatures, the kind of frame handed back
# --------------------------------------------------------------------------------------
def run_python(code: str) -> str:
    result = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.parametrize(
    "imports",
    [
        "import pdmetrics; import polars as pl",
        "import polars as pl; import pdmetrics",
        "import pdmetrics.engines.polars; import polars as pl",  # the registering module first
    ],
)
def test_namespaces_registered_whatever_the_import_order(imports):
    code = f"{imports}; d = pl.DataFrame({{'a': [1.0]}}); "
    code += "print(*(type(getattr(d, n)).__name__ for n in ('scoring', 'fairness', 'detection', 'textgen')))"
    code += "; print(type(d.lazy().scoring).__name__)"
    names = ["ScoringAccessor", "FairnessAccessor", "DetectionAccessor", "TextgenAccessor", "ScoringAccessor"]
    assert run_python(code).split() == names  # the pandas accessor classes themselves


@pytest.mark.parametrize("domain", DOMAINS)
def test_signatures_equal_the_pandas_accessors(domain):
    pd_namespace = getattr(pd.DataFrame({"a": [1.0]}), domain)
    pl_namespace = getattr(pl.DataFrame({"a": [1.0]}), domain)
    names = public_methods(pandas_accessor(domain))
    assert public_methods(type(pl_namespace)) == names  # the polars engine adds nothing
    for name in names:
        if name == "plot":
            for method in public_methods(type(pd_namespace.plot)):
                pandas_method = getattr(pd_namespace.plot, method)
                assert inspect.signature(getattr(pl_namespace.plot, method)) == inspect.signature(
                    pandas_method
                )
            continue
        pandas_method = getattr(pd_namespace, name)
        assert inspect.signature(getattr(pl_namespace, name)) == inspect.signature(pandas_method), name
        assert getattr(pl_namespace, name).__doc__ == pandas_method.__doc__


def test_a_new_option_of_a_core_function_reaches_polars(monkeypatch):
    """No list of methods or arguments: an accessor method is its core function, on every engine."""
    module = types.ModuleType("pdmetrics_test_tables")

    def table_of(frame, *, column, new_option: int = 2):
        return Table(
            [column],
            lambda part: Count(len(part), float(part[column].sum())),
            lambda state: pd.DataFrame({"N": [state.n], "value": [new_option * state.total]}),
        )

    module.table = table(table_of)
    module.table.__name__ = "table"
    monkeypatch.setitem(sys.modules, module.__name__, module)

    class Accessor(base.Accessor):
        _domain = "test"
        table = base.method(module.__name__)

    namespace = Accessor(pl.DataFrame({"x": [1, 2, 3]}))
    assert str(inspect.signature(namespace.table)) == "(*, column, new_option: int = 2)"
    assert namespace.table(column="x", new_option=3).to_dicts() == [{"N": 3, "value": 18.0}]


@dataclasses.dataclass(frozen=True)
class Count:
    n: int
    total: float

    def combine(self, other: "Count") -> "Count":
        return Count(self.n + other.n, self.total + other.total)


def scored(n: int = 50, seed: int = 0) -> "pl.DataFrame":
    frame = simulate_scores(n, seed=seed)
    frame.loc[[1, 4], "raw"] = np.nan
    return pl.from_pandas(frame)


def test_per_row_results_align_with_the_callers_rows_after_a_filter():
    df = scored(60).filter(pl.col("L1") != "Hindi")
    texts_df = pl.DataFrame(
        {
            "pred": ["the cat sat", "a dog", None, "ran far"],
            "ref": ["the cat sat down", "a dog ran", "x", "far"],
        }
    ).filter(pl.col("ref") != "x")
    processed = df.scoring.postprocess(system="raw", trim_min=1, trim_max=6)
    assert processed.height == df.height and processed.columns == df.columns + ["raw_trim", "raw_trim_round"]
    assert processed["raw"].to_list() == df["raw"].to_list()
    assert processed.schema["id"] == pl.String and processed.schema["sc1"] == df.schema["sc1"]
    scores = texts_df.textgen.rouge(prediction="pred", reference="ref")
    both = pl.concat([texts_df, scores], how="horizontal")
    expected = texts_df.to_pandas().textgen.rouge(prediction="pred", reference="ref")
    assert both.height == texts_df.height
    assert both["rouge1"].to_list() == expected["rouge1"].tolist()


def doubled_rows(part: pd.DataFrame, column) -> pd.DataFrame:
    """A per-row result that leaves rows out, as the row policy allows."""
    kept = part[part[column].notna()]
    return pd.DataFrame({"double": kept[column] * 2, "n": np.arange(len(kept))}, index=kept.index)


def namespace_over(frame: "pl.DataFrame"):
    """An accessor whose ``scores`` are per row (some rows left out) and whose ``repeated`` table
    is labelled by rows of the caller, some twice (not a per-row result)."""
    module = types.ModuleType("pdmetrics_test_rows")

    def scores(frame, *, column):
        return Rows([column], functools.partial(doubled_rows, column=column))

    def repeated(frame, *, column):
        return Whole([column], lambda part: part[[column]].iloc[[0, 0, 2]])

    module.scores, module.repeated = table(scores), table(repeated)
    sys.modules[module.__name__] = module

    class RowsAccessor(base.Accessor):
        scores = base.method(module.__name__)
        repeated = base.method(module.__name__)

    return RowsAccessor(frame)


def test_rows_the_pandas_path_leaves_out_are_null():
    df = pl.DataFrame({"x": [1.0, None, 3.0, float("nan"), 5.0], "keep": list("abcde")}).filter(
        pl.col("keep") != "c"
    )
    scores = namespace_over(df).scores(column="x")
    assert scores.height == df.height == 4
    assert scores.to_dict(as_series=False) == {"double": [2.0, None, None, 10.0], "n": [0, None, None, 1]}
    assert scores.schema["n"] == pl.Int64  # integers stay integers, nulls where rows were left out
    both = pl.concat([df, scores], how="horizontal")
    assert both.filter(pl.col("keep") == "e")["double"].to_list() == [10.0]
    # repeated row labels: a table with the row as its first column, named as pandas would
    table = namespace_over(df).repeated(column="keep")
    assert table.to_dict(as_series=False) == {"index": [0, 0, 2], "keep": ["a", "a", "d"]}


def test_a_lazy_frame_is_collected_and_results_are_eager():
    df = scored(200)
    lazy = df.lazy().filter(pl.col("sc1") > 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExcludedRowsWarning)
        table = lazy.scoring.evaluate(human="sc1", system="raw", by="L1")
        expected = lazy.collect().to_pandas().scoring.evaluate(human="sc1", system="raw", by="L1")
        processed = lazy.scoring.postprocess(system="raw", trim_min=1, trim_max=6)
    assert isinstance(table, pl.DataFrame) and isinstance(processed, pl.DataFrame)
    assert_same(table, expected)
    assert processed.height == lazy.collect().height


def test_polars_frames_as_arguments_and_results_that_are_not_frames():
    df = scored(300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExcludedRowsWarning)
        scaled = df.scoring.postprocess(system="raw", trim_min=1, trim_max=6, scale_with=df, human="sc1")
        expected = df.to_pandas().scoring.postprocess(
            system="raw", trim_min=1, trim_max=6, scale_with=df.to_pandas(), human="sc1"
        )
        report = df.scoring.report(human="sc1", system="raw", trim_min=1, trim_max=6)
    np.testing.assert_allclose(scaled["raw_scale"].to_numpy(), expected["raw_scale"].to_numpy(), rtol=1e-12)
    assert type(report).__name__ == "EvaluationReport"


# --------------------------------------------------------------------------------------
# edge cases: the pandas path's numbers, errors and warnings
# --------------------------------------------------------------------------------------
def outcome(call, **kwargs):
    """The table (as pandas) or the error of a call, and the warnings it raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = call(**kwargs)
        except Exception as error:  # noqa: BLE001 - the error is the outcome compared
            result = (type(error), str(error))
    return result, [(w.category, str(w.message)) for w in caught]


def assert_same_outcome(df: "pl.DataFrame", domain: str, method: str, **kwargs):
    (result, caught) = outcome(getattr(getattr(df, domain), method), **kwargs)
    (expected, expected_caught) = outcome(getattr(getattr(df.to_pandas(), domain), method), **kwargs)
    assert caught == expected_caught
    if isinstance(expected, pd.DataFrame):
        assert_same(result, expected)
    else:
        assert result == expected
    return result


def test_empty_frame_and_one_row():
    for frame in (scored(20).head(0), scored(20).slice(0, 1)):
        for kwargs in ({"human": "sc1", "system": "sc2"}, {"human": "sc1", "system": "raw", "by": "L1"}):
            assert_same_outcome(frame, "scoring", "evaluate", **kwargs)
        processed = assert_same_outcome(frame, "scoring", "postprocess", system="raw", trim_min=1, trim_max=6)
        assert processed.height == frame.height
        assert_same_outcome(frame, "textgen", "rouge", prediction="id", reference="L1")


def test_nulls_in_every_kind_of_column(tmp_path):
    from pdmetrics.engines.polars import to_pandas

    df = pl.DataFrame(
        {
            "h": [1, None, 3, 4, 2, 5, 3],  # an integer column with a null: float with NaN in pandas
            "s": [1.1, 2.0, float("nan"), 3.9, None, 4.6, 3.2],  # NaN and null: both missing
            "flag": [True, None, False, True, False, True, True],
            "group": pl.Series(["a", "b", None, "a", "b", "a", "b"], dtype=pl.Enum(["b", "a"])),
            "label": ["x", None, "y", "x", "y", "x", "y"],
            "boxes": [[1.0, 2.0, 3.0, 4.0], None, [0.0, 0.0, 1.0, 1.0], [], [1.0], [2.0], [3.0]],
            "meta": [{"k": 1}, None, {"k": 3}, {"k": 4}, {"k": 5}, {"k": 6}, {"k": 7}],
        }
    )
    # the frame arrives as pandas reads the same data from a file
    df.write_parquet(tmp_path / "nulls.parquet")
    pd.testing.assert_frame_equal(to_pandas(df), pd.read_parquet(tmp_path / "nulls.parquet"))
    assert list(to_pandas(df)["group"].cat.categories) == ["b", "a"]  # the Enum's order
    for kwargs in ({"human": "h", "system": "s"}, {"human": "h", "system": "s", "by": ["group", "label"]}):
        assert_same_outcome(df, "scoring", "evaluate", **kwargs)
    assert_same_outcome(df, "fairness", "by_group", y_true="flag", y_pred="flag", by="group")


def test_a_categorical_column_groups_as_the_pandas_categorical_of_its_sorted_values():
    rng = np.random.default_rng(0)
    n = 300
    df = pd.DataFrame(
        {
            "g": pd.Categorical(rng.choice(["e", "a", "c", "b"], n)),
            "s": rng.random(n),
            "y": rng.integers(0, 2, n),
        }
    )
    calls = [("fairness", "score_distributions", dict(score="s", by="g", y_true="y"))]
    calls.append(("fairness", "by_group", dict(y_true="y", y_pred="y", by="g")))
    for domain, method, kwargs in calls:
        expected = quiet(getattr(getattr(df, domain), method), **kwargs)
        result = quiet(getattr(getattr(pl.from_pandas(df), domain), method), **kwargs)
        assert_same(result, expected)


def test_a_missing_column_names_the_argument():
    df = scored(20)
    with pytest.raises(ColumnNotFoundError) as polars_error:
        df.scoring.evaluate(human="sc1", system="nope")
    with pytest.raises(ColumnNotFoundError) as pandas_error:
        df.to_pandas().scoring.evaluate(human="sc1", system="nope")
    assert str(polars_error.value) == str(pandas_error.value)
    assert "system" in str(polars_error.value)


def test_a_text_score_column_gives_the_pandas_error():
    assert_same_outcome(
        pl.DataFrame({"h": [1.0, 2.0, 3.0, 4.0], "s": ["1.5", "two", "3", "4"]}),
        "scoring",
        "evaluate",
        human="h",
        system="s",
    )
    assert_same_outcome(
        pl.DataFrame({"h": [1.0, 2.0, 3.0], "s": ["1.5", "2", "3"]}),
        "scoring",
        "evaluate",
        human="h",
        system="s",
    )


def test_warnings_point_at_the_users_line():
    df = scored(40)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df.scoring.evaluate(human="sc1", system="raw")
        df.textgen.bleu(prediction="id", reference="L1", details=False)
    excluded = [w for w in caught if issubclass(w.category, ExcludedRowsWarning)]
    assert excluded and all(w.filename == __file__ for w in caught), [
        (w.filename, str(w.message)) for w in caught
    ]
    with pytest.warns(ExcludedRowsWarning, match="2 of 40 rows"):
        df.scoring.evaluate(human="sc1", system="raw")


def test_plots_draw_a_table_computed_on_polars():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    df = scored(300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExcludedRowsWarning)
        ax = df.scoring.plot.score_distribution(human="sc1", system="raw")
    assert isinstance(ax, matplotlib.axes.Axes)
    plt.close("all")


def test_import_pdmetrics_does_not_import_polars():
    assert run_python("import sys, pdmetrics; print('polars' in sys.modules)") == "False"
    assert pdmetrics.engines.__name__ == "pdmetrics.engines"


def test_coco_fixture_with_the_pandas_ground_truth_and_its_image_list():
    """A pandas argument passes as it is (read_coco's image list in its attrs reaches the call)."""
    from pdmetrics.io import read_coco
    from tests.conftest import conformance_path

    folder = conformance_path("coco", "coco_val2014_100")
    gt, dt = read_coco(
        folder / "instances_val2014_100.json", folder / "instances_val2014_fakebbox100_results.json"
    )
    pl_dt = pl.from_pandas(dt)
    for method in ("evaluate", "average_precision"):
        expected = quiet(getattr(dt.detection, method), ground_truth=gt)
        assert_same(quiet(getattr(pl_dt.detection, method), ground_truth=gt), expected)
    # as polars, the ground truth loses its attrs: what read_coco kept there is passed instead
    coco = gt.attrs["pdmetrics.coco"]
    options = {"images": list(coco["images"]), "iscrowd": coco["iscrowd"], "area": coco["area"]}
    table = quiet(
        pl_dt.detection.evaluate, ground_truth=pl.from_pandas(gt.drop(columns="segmentation")), **options
    )
    assert_same(table, quiet(dt.detection.evaluate, ground_truth=gt))


@pytest.mark.parametrize("method", ["rouge", "bleu"])
def test_per_row_textgen_keeps_the_datum_of_the_rows_it_leaves_out(method):
    df = pl.DataFrame(
        {
            "id": ["q1", "q2", "q3", "q4"],
            "pred": ["the cat sat", None, "a dog ran", "far"],
            "ref": ["the cat sat down", "a dog", None, "far"],
        }
    )
    with pytest.warns(ExcludedRowsWarning, match=r"^2 of 4 rows left out: 1 without a prediction and 1"):
        table = getattr(df.textgen, method)(prediction="pred", reference="ref", datum="id")
    assert table.height == 4
    # the rows left out keep their id; only the metric columns are null
    assert table["datum"].to_list() == ["q1", "q2", "q3", "q4"]
    assert table.schema["datum"] == pl.String
    metric = table.columns[1]
    assert table[metric].is_null().to_list() == [False, True, True, False]
