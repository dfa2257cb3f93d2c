"""report()'s memory-saving paths (narrow integer codes and labels, shared work arrays, group
codes encoded once) give the same numbers as the plain paths."""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdmetrics._stats import label_counts, label_histograms, label_index, smallest_integer_type
from pdmetrics.fairness.regression import score_fairness_tables, score_fairness_tables_of_codes
from pdmetrics.scoring.metrics import kappa_labels, pair_statistics_many, work_buffers
from pdmetrics.scoring.subgroups import subgroup_codes
from pdmetrics.scoring.true_scores import column_statistics, rating_statistics


def test_smallest_integer_type():
    assert smallest_integer_type(-1, 100) is np.int8
    assert smallest_integer_type(0, 200) is np.int16
    assert smallest_integer_type(-(2**40), 0) is np.int64


def test_narrow_labels_give_the_int64_results():
    rng = np.random.default_rng(0)
    h, s = rng.integers(-3, 120, 500).astype(float), rng.integers(-3, 120, 500).astype(float)
    narrow_h, narrow_s = kappa_labels(h, "human"), kappa_labels(s, "system")
    assert narrow_h.dtype == np.int8
    wide_h, wide_s = narrow_h.astype(np.int64), narrow_s.astype(np.int64)
    codes = rng.integers(0, 30, 500).astype(np.int8)
    for narrow, wide in zip(
        label_histograms(narrow_h, narrow_s, codes, 30),
        label_histograms(wide_h, wide_s, codes.astype(np.intp), 30),
    ):
        np.testing.assert_array_equal(narrow, wide)
    labels, positions = label_index(narrow_h, narrow_s)
    wide_labels, wide_positions = label_index(wide_h, wide_s)
    assert labels.dtype == np.int64
    np.testing.assert_array_equal(labels, wide_labels)
    for a, b in zip(positions, wide_positions):
        np.testing.assert_array_equal(a, b)


def test_shared_work_arrays_give_the_same_statistics():
    rng = np.random.default_rng(1)
    h = rng.integers(1, 7, 1000).astype(float)
    systems = {"a": h + rng.normal(0, 1, 1000), "b": rng.uniform(1, 6, 1000)}
    codes = rng.integers(0, 5, 1000)
    buffers = work_buffers(1500)
    buffers.fill(np.nan)  # leftovers of another pass must not matter
    shared = pair_statistics_many(h, systems, codes, 5, buffers=buffers)
    alone = pair_statistics_many(h, systems, codes, 5)
    for name in systems:
        for field in ("n", "mean_x", "mean_y", "m2_x", "m2_y", "c_xy"):
            np.testing.assert_array_equal(
                getattr(shared[name].moments, field), getattr(alone[name].moments, field)
            )
        np.testing.assert_array_equal(shared[name].hist_h, alone[name].hist_h)
        np.testing.assert_array_equal(shared[name].sse, alone[name].sse)


def test_column_statistics_equal_rating_statistics():
    rng = np.random.default_rng(2)
    h1 = rng.integers(1, 7, 400).astype(float)
    h2 = np.where(rng.random(400) < 0.5, np.nan, rng.integers(1, 7, 400).astype(float))
    h2[3] = np.inf  # an infinite rating counts as missing in both
    matrix = np.column_stack([h1, h2])
    expected = rating_statistics(matrix)
    got = column_statistics([h1, h2], 400, work_buffers(400))
    for field in ("n", "n_unrated", "n_raters", "n_single", "n_multiple", "n_ratings", "within_df"):
        assert getattr(got, field) == getattr(expected, field)
    np.testing.assert_allclose(got.within_ss, expected.within_ss, rtol=1e-12)
    np.testing.assert_allclose(got.between_ss, expected.between_ss, rtol=1e-12)


def test_fairness_of_codes_equals_fairness_of_labels():
    rng = np.random.default_rng(3)
    human = pd.Series(rng.integers(1, 7, 600).astype(float), name="sc1")
    system = pd.Series(human + rng.normal(0, 0.8, 600), name="raw_trim")
    group = pd.Series(rng.choice(["a", "b", "c"], 600), name="L1")
    frame = pd.DataFrame({"sc1": human, "raw_trim": system, "L1": group})
    metrics, estimates = score_fairness_tables(frame, human="sc1", system="raw_trim", by="L1")
    codes, labels = subgroup_codes(group)
    got_metrics, got_estimates = score_fairness_tables_of_codes(
        human, system, {"L1": (codes.astype(np.int8), labels)}, work_buffers(600)
    )["L1"]
    pd.testing.assert_frame_equal(got_metrics, metrics)
    pd.testing.assert_frame_equal(got_estimates, estimates)


def test_whole_number_extremes_from_histograms_equal_group_min_max():
    rng = np.random.default_rng(3)
    h = rng.integers(-2, 7, 400).astype(float)
    whole = rng.integers(0, 9, 400).astype(float)
    sparse = rng.choice([-(10.0**12), 0.0, 10.0**12], 400)  # labels compressed: the plain path
    codes = rng.integers(0, 9, 400)  # group 8 is left empty below: NaN extremes
    codes[codes == 8] = 7
    systems = {"whole": whole, "float": whole + 0.25, "sparse": sparse}
    stats = pair_statistics_many(h, systems, codes, 9)
    for name, s in systems.items():
        for g in range(9):
            rows = codes == g
            expected = (
                [h[rows].min(), h[rows].max(), s[rows].min(), s[rows].max()] if rows.any() else [np.nan] * 4
            )
            got = [stats[name].h_min[g], stats[name].h_max[g], stats[name].s_min[g], stats[name].s_max[g]]
            np.testing.assert_array_equal(got, expected)


def test_label_counts_and_work_array_equal_label_index_and_bincount():
    rng = np.random.default_rng(4)
    for a, b in [
        (rng.integers(-3, 9, 300).astype(np.int8), rng.integers(0, 12, 200).astype(np.int8)),
        (np.array([-(10**12), 0, 10**12]), np.array([5, 0])),  # sparse: sorted, not counted
        (np.zeros(0, dtype=np.int8), np.array([2, 2], dtype=np.int8)),
    ]:
        labels, positions = label_index(a, b)
        work = np.empty(300, dtype=np.intp)
        with_work = label_index(a, b, out=work)
        np.testing.assert_array_equal(with_work[0], labels)
        for p, q in zip(positions, with_work[1]):
            np.testing.assert_array_equal(p, q)
        counted, counts = label_counts(a, b, out=work)
        np.testing.assert_array_equal(counted, labels)
        for p, c in zip(positions, counts):
            np.testing.assert_array_equal(c, np.bincount(p.astype(np.intp), minlength=labels.size))
