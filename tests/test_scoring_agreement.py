"""df.scoring.agreement: inter-rater agreement, exact against the reference libraries.

scikit-learn, statsmodels and krippendorff (0.9.0) run here; irrCAC 0.4.4 and pingouin pin
older pandas and scipy, so their numbers on our matrices are kept in
``tests/data/agreement/reference.json``, written by ``tests/data/agreement/make_reference.py``
(the matrices are in the file too).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import pdmetrics
from pdmetrics.errors import ColumnNotFoundError, InvalidInputError
from pdmetrics.scoring.inter_rater import agreement

REFERENCE = json.loads((Path(__file__).parent / "data" / "agreement" / "reference.json").read_text())
LEVELS = ["nominal", "ordinal", "interval", "ratio"]


def frame_of(x: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame(x, columns=[f"r{j}" for j in range(x.shape[1])])


def random_matrices():
    rng = np.random.default_rng(7)
    out = []
    for _ in range(16):
        n, r, k = int(rng.integers(5, 50)), int(rng.integers(2, 6)), int(rng.integers(2, 6))
        categories = np.sort(rng.choice(np.arange(-3, 10), k, replace=False)).astype(float)
        x = categories[rng.integers(0, k, (n, r))]
        x[rng.random((n, r)) < 0.25] = np.nan
        out.append(x)
    edge = [case["ratings"] for case in REFERENCE["cases"].values()]
    return out + [np.array(e, dtype=float) for e in edge]


MATRICES = random_matrices()


def quiet(frame, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.UndefinedMetricWarning)
        return agreement(frame, n_resamples=0, **options)


def value(table, statistic, raters="(all)"):
    return table.loc[(table["statistic"] == statistic) & (table["raters"] == raters), "value"].iloc[0]


def close(ours, reference):
    if np.isnan(reference):
        return np.isnan(ours)
    return abs(ours - reference) <= 1e-12


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("index", range(len(MATRICES)))
def test_krippendorff_alpha_equals_the_krippendorff_package(level, index):
    krippendorff = pytest.importorskip("krippendorff")
    x = MATRICES[index]
    table = quiet(frame_of(x), raters=list(frame_of(x).columns), level=level)
    try:
        reference = krippendorff.alpha(reliability_data=x.T, level_of_measurement=level)
    except ValueError:  # one value in the domain: our rule is NaN (see test_single_category)
        reference = np.nan
    with np.errstate(all="ignore"):
        assert close(value(table, "krippendorff_alpha"), reference)


@pytest.mark.parametrize("index", range(len(MATRICES)))
def test_cohen_kappa_equals_scikit_learn_on_the_items_both_rated(index):
    from sklearn.metrics import cohen_kappa_score

    x = MATRICES[index]
    frame = frame_of(x)
    table = quiet(frame, raters=list(frame.columns), level="ordinal")
    for a in range(x.shape[1]):
        for b in range(a + 1, x.shape[1]):
            both = ~np.isnan(x[:, a]) & ~np.isnan(x[:, b])
            for weights, name in [
                (None, "cohen_kappa"),
                ("linear", "cohen_kappa_linear"),
                ("quadratic", "cohen_kappa_quadratic"),
            ]:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    reference = (
                        cohen_kappa_score(x[both, a], x[both, b], weights=weights) if both.any() else np.nan
                    )
                assert close(value(table, name, f"r{a} vs r{b}"), reference), (name, a, b)


@pytest.mark.parametrize("index", range(len(MATRICES)))
def test_fleiss_kappa_equals_statsmodels_on_the_complete_items(index):
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    x = MATRICES[index]
    frame = frame_of(x)
    table = quiet(frame, raters=list(frame.columns))
    complete = x[~np.isnan(x).any(axis=1)]
    with np.errstate(all="ignore"):
        reference = fleiss_kappa(aggregate_raters(complete)[0], method="fleiss") if len(complete) else np.nan
    assert close(value(table, "fleiss_kappa"), reference)
    assert table.loc[table["statistic"] == "fleiss_kappa", "N_items"].iloc[0] == len(complete)


@pytest.mark.parametrize("case", sorted(REFERENCE["cases"]))
def test_gwet_and_percent_agreement_equal_irrcac(case):
    x = np.array(REFERENCE["cases"][case]["ratings"], dtype=float)
    reference = REFERENCE["cases"][case]["reference"]
    table = quiet(frame_of(x), raters=list(frame_of(x).columns), level="ordinal")
    assert close(value(table, "percent_agreement"), reference["percent_agreement"])
    assert close(value(table, "gwet_ac1"), reference["gwet_identity"])
    assert close(value(table, "gwet_ac2_linear"), reference["gwet_linear"])
    assert close(value(table, "gwet_ac2_quadratic"), reference["gwet_quadratic"])


@pytest.mark.parametrize("case", sorted(REFERENCE["cases"]))
def test_intraclass_correlations_and_their_intervals_equal_pingouin(case):
    x = np.array(REFERENCE["cases"][case]["ratings"], dtype=float)
    reference = REFERENCE["cases"][case]["reference"]
    table = quiet(frame_of(x), raters=list(frame_of(x).columns), level="interval")
    for name in ("ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k"):
        row = table[table["statistic"] == name].iloc[0]
        for ours, theirs in zip(row[["value", "ci_low", "ci_high"]], reference[name]):
            assert close(ours, theirs), (name, ours, theirs)


def test_single_category_is_nan_with_a_warning():
    """One category: every chance-corrected statistic is 0/0. We return NaN and warn; irrCAC
    sets its chance agreement to 1 - 1e-15 (a number that only reflects the rounding),
    krippendorff raises, statsmodels and scikit-learn give NaN."""
    frame = pd.DataFrame({"a": [2.0, 2, 2, np.nan], "b": [2.0, 2, np.nan, 2], "c": [2.0, 2, 2, 2]})
    with pytest.warns(pdmetrics.UndefinedMetricWarning, match="undefined"):
        table = agreement(frame, raters=["a", "b", "c"], level="ordinal", n_resamples=0)
    assert value(table, "percent_agreement") == 1.0
    for name in ("fleiss_kappa", "krippendorff_alpha", "gwet_ac1", "gwet_ac2_linear"):
        assert np.isnan(value(table, name)), name
    assert np.isnan(value(table, "cohen_kappa", "a vs b"))


def test_items_rated_once_count_for_gwet_but_not_for_alpha_or_percent_agreement():
    x = np.array([[1.0, 1.0], [2.0, 2.0], [1.0, 2.0], [3.0, np.nan], [np.nan, np.nan]])
    table = quiet(frame_of(x), raters=["r0", "r1"])
    n_items = table.set_index("statistic")["N_items"]
    assert n_items["percent_agreement"] == 3  # items rated at least twice
    assert n_items["krippendorff_alpha"] == 3
    assert n_items["gwet_ac1"] == 4  # items rated at least once (the item rated by nobody is out)
    assert n_items["fleiss_kappa"] == 3


def test_perfect_agreement_is_one():
    x = np.tile(np.array([[1.0], [2.0], [3.0]]), (3, 4))
    table = quiet(frame_of(x), raters=list(frame_of(x).columns), level="interval")
    assert np.allclose(table["value"], 1.0, atol=1e-12)


def test_text_ratings_on_the_nominal_level():
    frame = pd.DataFrame({"a": ["x", "y", "y", None, "z"], "b": ["x", "y", "z", "z", "z"]})
    numeric = pd.DataFrame({"a": [0, 1, 1, np.nan, 2], "b": [0, 1, 2, 2, 2]})
    text = quiet(frame, raters=["a", "b"])
    numbers = quiet(numeric, raters=["a", "b"])
    pd.testing.assert_frame_equal(text, numbers)


def test_bootstrap_interval_is_reproducible_and_brackets_the_value():
    rng = np.random.default_rng(3)
    latent = rng.integers(1, 5, 400)
    x = np.column_stack([np.clip(latent + rng.integers(-1, 2, 400), 1, 4) for _ in range(3)]).astype(float)
    x[rng.random(x.shape) < 0.1] = np.nan
    frame = frame_of(x)
    one = agreement(frame, raters=["r0", "r1", "r2"], level="ordinal", n_resamples=200)
    two = agreement(frame, raters=["r0", "r1", "r2"], level="ordinal", n_resamples=200)
    pd.testing.assert_frame_equal(one, two)
    assert ((one["ci_low"] <= one["value"]) & (one["value"] <= one["ci_high"])).all()


def test_by_gives_a_pooled_row_then_each_group():
    rng = np.random.default_rng(5)
    x = rng.integers(1, 4, (60, 3)).astype(float)
    frame = frame_of(x).assign(site=np.repeat(["b", "a", "c"], 20))
    table = quiet(frame, raters=["r0", "r1", "r2"], by="site")
    assert list(table.columns[:2]) == ["by", "group"]
    assert table["group"].unique().tolist() == ["(all)", "a", "b", "c"]
    pooled = quiet(frame, raters=["r0", "r1", "r2"])
    alone = quiet(frame[frame["site"] == "a"], raters=["r0", "r1", "r2"])
    a = table[table["group"] == "a"].drop(columns=["by", "group"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, alone)
    everything = table[table["group"] == "(all)"].drop(columns=["by", "group"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(everything, pooled)


def test_the_accessor_and_the_input_is_unchanged():
    frame = frame_of(MATRICES[0])
    before = frame.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.UndefinedMetricWarning)
        table = frame.scoring.agreement(raters=list(frame.columns), n_resamples=0)
    pd.testing.assert_frame_equal(frame, before)
    assert list(table.columns) == ["statistic", "raters", "value", "ci_low", "ci_high", "N_items", "N_raters"]


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"raters": ["a"]}, InvalidInputError, "at least two raters"),
        ({"raters": ["a", "a"]}, InvalidInputError, "at least two raters"),
        ({"raters": ["a", "zz"]}, ColumnNotFoundError, "zz"),
        ({"raters": ["a", "b"], "level": "metric"}, InvalidInputError, "level='metric'"),
        ({"raters": ["a", "when"]}, InvalidInputError, "when"),
        ({"raters": ["a", "text"], "level": "interval"}, InvalidInputError, "level='interval'"),
        ({"raters": ["a", "b"], "by": "nope"}, ColumnNotFoundError, "nope"),
        ({"raters": ["a", "b"], "by": "a"}, InvalidInputError, "rater column"),
        ({"raters": ["a", "b"], "n_resamples": -1}, InvalidInputError, "n_resamples"),
    ],
)
def test_bad_input_is_refused_by_name(options, error, match):
    frame = pd.DataFrame(
        {
            "a": [1.0, 2.0],
            "b": [1.0, 3.0],
            "text": ["x", "y"],
            "when": pd.to_datetime(["2020-01-01", "2021-01-01"]),
        }
    )
    with pytest.raises(error, match=match):
        agreement(frame, **options)


@pytest.mark.parametrize(
    "frame", [pd.DataFrame({"a": [], "b": []}, dtype=float), pd.DataFrame({"a": [np.nan], "b": [np.nan]})]
)
def test_no_rating_is_refused(frame):
    with pytest.raises(InvalidInputError, match="hold no rating"):
        agreement(frame, raters=["a", "b"])


def engine_frames():
    rng = np.random.default_rng(11)
    x = rng.integers(1, 5, (300, 4)).astype(float)
    x[rng.random(x.shape) < 0.2] = np.nan
    return frame_of(x).assign(site=rng.choice(["n", "s", None], 300))


def assert_engines_give(frame: pd.DataFrame, options: dict, text_groups: bool = False) -> None:
    """dask (3 partitions) and polars give the pandas table (``text_groups``: polars holds a
    column of labels of several types, "(all)" and numbers, as text)."""
    expected = quiet_bootstrap(frame, **options)
    dd = pytest.importorskip("dask.dataframe")
    got = quiet_bootstrap(dd.from_pandas(frame, npartitions=3), **options)
    got = got.compute() if hasattr(got, "compute") else got
    pd.testing.assert_frame_equal(got.reset_index(drop=True), expected, rtol=1e-12)
    pl = pytest.importorskip("polars")
    got = quiet_bootstrap(pl.from_pandas(frame), **options)
    got = got.to_pandas() if hasattr(got, "to_pandas") else got
    if text_groups:
        expected = expected.assign(group=expected["group"].astype(str))
    pd.testing.assert_frame_equal(got, expected, rtol=1e-12, check_dtype=False)


def quiet_bootstrap(frame, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.UndefinedMetricWarning)
        return agreement(frame, **options)


@pytest.mark.parametrize("level", ["nominal", "interval"])
def test_dask_and_polars_give_the_pandas_table(level):
    options = {"raters": ["r0", "r1", "r2", "r3"], "level": level, "by": "site", "n_resamples": 50}
    assert_engines_give(engine_frames(), options)


# ----------------------------------------------------------------------------------------------
# the additive state, properties
# ----------------------------------------------------------------------------------------------
ratings_matrices = st.integers(2, 4).flatmap(
    lambda r: st.lists(
        st.lists(st.one_of(st.none(), st.integers(0, 4)), min_size=r, max_size=r), min_size=2, max_size=40
    )
)


def matrix_frame(rows) -> pd.DataFrame:
    x = np.array([[np.nan if v is None else float(v) for v in row] for row in rows])
    return frame_of(x)


@settings(max_examples=60, deadline=None)
@given(rows=ratings_matrices, cut=st.lists(st.integers(0, 40), max_size=3), level=st.sampled_from(LEVELS))
def test_any_split_into_parts_combines_to_the_whole(rows, cut, level):
    """The state of parts with different categories and groups, combined, is the whole's."""
    frame = matrix_frame(rows).assign(site=lambda f: np.where(np.arange(len(f)) % 3 == 0, "x", "y"))
    raters = [c for c in frame.columns if c != "site"]
    assume(not frame[raters].isna().all().all())
    spec = agreement.spec(frame, raters=raters, level=level, by="site", n_resamples=0)
    bounds = sorted({0, len(frame), *(c for c in cut if c < len(frame))})
    states = [spec.chunk(frame.iloc[lo:hi]) for lo, hi in zip(bounds[:-1], bounds[1:])]
    combined = states[0]
    for state in states[1:]:
        combined = combined.combine(state)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.UndefinedMetricWarning)
        pd.testing.assert_frame_equal(spec.finalize(combined), spec.finalize(spec.chunk(frame)), rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(rows=ratings_matrices, seed=st.integers(0, 2**16))
def test_the_order_of_items_and_of_raters_does_not_matter(rows, seed):
    frame = matrix_frame(rows)
    assume(not frame.isna().all().all())
    rng = np.random.default_rng(seed)
    raters = list(frame.columns)
    table = quiet(frame, raters=raters, level="interval")
    shuffled = quiet(frame.iloc[rng.permutation(len(frame))], raters=raters[::-1], level="interval")
    pooled = table[table["raters"] == "(all)"].reset_index(drop=True)
    pooled_shuffled = shuffled[shuffled["raters"] == "(all)"].reset_index(drop=True)
    pd.testing.assert_frame_equal(pooled, pooled_shuffled, rtol=1e-9, atol=1e-12)


def test_a_missing_group_value_is_the_group_no_info():
    frame = pd.DataFrame(
        {"a": [1.0, 2, 3, 1, 2], "b": [1.0, 2, 3, 2, 2], "site": ["s", None, "s", "t", None]}
    )
    table = quiet(frame, raters=["a", "b"], by="site")
    assert table["group"].unique().tolist() == ["(all)", "s", "t", "No info"]


def test_categorical_and_boolean_ratings_on_the_nominal_level():
    frame = pd.DataFrame({"a": pd.Categorical(["x", "y", "y", "x"]), "b": [True, False, False, True]})
    codes = pd.DataFrame({"a": pd.Categorical(["x", "y", "y", "x"]), "b": ["x", "y", "y", "x"]})
    table = quiet(codes, raters=["a", "b"])
    assert value(table, "cohen_kappa", "a vs b") == 1.0
    with pytest.raises(InvalidInputError, match="mix kinds"):
        quiet(frame, raters=["a", "b"])


def test_ordinal_with_too_many_distinct_ratings_is_refused():
    frame = pd.DataFrame({"a": np.arange(3000.0), "b": np.arange(3000.0) + 0.5})
    with pytest.raises(InvalidInputError, match="distinct ratings"):
        agreement(frame, raters=["a", "b"], level="ordinal", n_resamples=0)


def test_text_ratings_and_number_groups_on_dask_and_polars():
    rng = np.random.default_rng(2)
    labels = np.array(["good", "fair", "poor", None], dtype=object)
    frame = pd.DataFrame({f"judge_{j}": labels[rng.integers(0, 4, 90)] for j in range(3)})
    frame["batch"] = rng.integers(1, 4, 90)
    options = {"raters": ["judge_0", "judge_1", "judge_2"], "by": "batch", "n_resamples": 30}
    assert_engines_give(frame, options, text_groups=True)


def test_n_raters_counts_the_raters_with_a_rating_the_statistic_uses():
    x = np.array([[1.0, 1.0, np.nan], [2.0, 2.0, np.nan], [1.0, 2.0, np.nan], [np.nan, np.nan, 3.0]])
    table = quiet(frame_of(x), raters=["r0", "r1", "r2"], level="interval")
    n_raters = table[table["raters"] == "(all)"].set_index("statistic")["N_raters"]
    assert n_raters["krippendorff_alpha"] == 2  # r2 rated only an item nobody else rated
    assert n_raters["gwet_ac1"] == 3
    assert n_raters["fleiss_kappa"] == 0  # no item rated by all three
    assert n_raters["ICC1"] == 0


def test_cohen_weights_use_the_ranks_of_the_labels_as_scikit_learn_does():
    """scikit-learn weighs the ranks of the labels the pair used (1, 2, 4 like 1, 2, 3); Gwet's
    AC2 (irrCAC) and Krippendorff's interval alpha use the values, so they change."""
    gapped = pd.DataFrame({"a": [1.0, 2, 4, 4, 2, 1], "b": [1.0, 4, 4, 2, 2, 2]})
    ranked = gapped.replace(4.0, 3.0)
    one = quiet(gapped, raters=["a", "b"], level="interval").set_index(["statistic", "raters"])["value"]
    two = quiet(ranked, raters=["a", "b"], level="interval").set_index(["statistic", "raters"])["value"]
    for name in ("cohen_kappa", "cohen_kappa_linear", "cohen_kappa_quadratic"):
        assert one[(name, "a vs b")] == pytest.approx(two[(name, "a vs b")], abs=1e-12)
    assert one[("gwet_ac2_linear", "(all)")] != pytest.approx(two[("gwet_ac2_linear", "(all)")])
    assert one[("krippendorff_alpha", "(all)")] != pytest.approx(two[("krippendorff_alpha", "(all)")])


def test_rsmtool_kappa_and_qwk_are_the_pairs_cohen_kappas_on_a_full_integer_scale():
    from pdmetrics.scoring import cohen_kappa, quadratic_weighted_kappa

    rng = np.random.default_rng(0)
    a = rng.integers(1, 6, 300).astype(float)
    b = np.clip(a + rng.integers(-1, 2, 300), 1, 5)
    table = quiet(pd.DataFrame({"a": a, "b": b}), raters=["a", "b"], level="ordinal").set_index("statistic")
    assert table.loc["cohen_kappa", "value"] == pytest.approx(cohen_kappa(a, b), abs=1e-12)
    assert table.loc["cohen_kappa_quadratic", "value"] == pytest.approx(
        quadratic_weighted_kappa(a, b), abs=1e-12
    )


def test_continuous_ratings_give_point_estimates_and_refuse_an_oversized_bootstrap():
    rng = np.random.default_rng(4)
    latent = rng.normal(0, 1, 5000)
    frame = pd.DataFrame({"a": latent + rng.normal(0, 0.5, 5000), "b": latent + rng.normal(0, 0.5, 5000)})
    table = quiet(frame, raters=["a", "b"], level="interval").set_index("statistic")
    assert table.loc["krippendorff_alpha", "value"] == pytest.approx(table.loc["ICC1", "value"], abs=1e-3)
    with pytest.raises(InvalidInputError, match="n_resamples=0"):
        agreement(frame, raters=["a", "b"], level="interval")


def test_huge_and_tiny_ratings_give_the_numbers_of_the_same_ratings_rescaled():
    # every statistic is scale-free; the squares of 1e300 would overflow float64
    base = pd.DataFrame(
        {"a": [1.0, 2, 3, 1, 2, 3], "b": [1.0, 2, 2, 1, 3, 3], "c": [2.0, 2, 3, 1, 2, np.nan]}
    )
    expected = quiet(base, raters=["a", "b", "c"], level="interval")
    for scale in (1e300, 1e-300):
        table = quiet(base * scale, raters=["a", "b", "c"], level="interval")
        assert table["value"].notna().sum() == expected["value"].notna().sum()
        np.testing.assert_allclose(table["value"], expected["value"], rtol=1e-12, atol=1e-15)


def test_a_rater_column_named_with_a_lone_surrogate_is_refused_naming_it():
    frame = pd.DataFrame({"a": [1.0, 2, 3], "b": [1.0, 2, 2]})
    frame.columns = pd.Index(["\ud800", "b"], dtype=object)
    with pytest.raises(InvalidInputError, match=r"raters=.*lone surrogate"):
        frame.scoring.agreement(raters=["\ud800", "b"])


def test_a_pair_without_a_shared_item_has_no_raters():
    frame = pd.DataFrame({"a": [1.0, 2, np.nan, np.nan], "b": [np.nan, np.nan, 1.0, 2], "c": [1.0, 2, 1, 2]})
    table = quiet(frame, raters=["a", "b", "c"])
    row = table[(table["statistic"] == "cohen_kappa") & (table["raters"] == "a vs b")].iloc[0]
    assert (row["N_items"], row["N_raters"]) == (0, 0)
