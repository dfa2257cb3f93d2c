"""Benchmark: ``df.fairness.inequality``, ``.differential_fairness`` (1,000,000 rows, 10 groups)
and ``.consistency`` (50,000 rows, 5 features) against AIF360 0.6.1 in the same run.

Medians of ``--repeats`` runs (at least 5). pdmetrics is timed from the DataFrame (column
checks, the bincount, the table); AIF360 from its datasets, built once outside the timing
(``BinaryLabelDataset``), a new ``ClassificationMetric``/``BinaryLabelDatasetMetric`` per run
(AIF360 memoizes each metric object's results): for
``inequality`` the generalized entropy, Theil index, coefficient of variation and the
between-group generalized entropy and Theil index over every intersection
(``between_all_groups_...``); for differential fairness
``smoothed_empirical_differential_fairness``; for consistency ``consistency(n_neighbors=5)``.

    python benchmarks/bench_inequality.py [--repeats 5] [--rows 1000000] [--knn-rows 50000]
"""

from __future__ import annotations

import argparse
import logging
import warnings

import numpy as np
import pandas as pd
from timing import median_time

import pdmetrics  # noqa: F401


def simulate(rows: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 10, rows)
    y = (rng.random(rows) < 0.3 + 0.03 * group).astype(np.int8)
    pred = np.where(rng.random(rows) < 0.8, y, 1 - y).astype(np.int8)
    frame = pd.DataFrame({"y": y, "pred": pred, "sex": group % 2, "race": group // 2})
    for i in range(5):
        frame[f"x{i}"] = rng.normal(size=rows) + 0.3 * pred
    return frame


def aif360_objects(frame: pd.DataFrame, features: list[str]):
    """Makers of AIF360's metric objects of ``frame``, over datasets built once, outside the timing."""
    logging.getLogger().setLevel(logging.ERROR)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from aif360.datasets import BinaryLabelDataset
        from aif360.metrics import BinaryLabelDatasetMetric, ClassificationMetric

    def dataset(columns, label):
        return BinaryLabelDataset(
            df=frame[[*columns, label]].astype(float),
            label_names=[label],
            protected_attribute_names=["sex", "race"],
            favorable_label=1.0,
            unfavorable_label=0.0,
        )

    truth = dataset(["sex", "race"], "y")
    predicted = truth.copy()
    predicted.labels = frame[["pred"]].to_numpy(dtype=float)
    groups = {"unprivileged_groups": [{"sex": 0.0}], "privileged_groups": [{"sex": 1.0}]}
    outcomes = dataset(["sex", "race"], "pred")
    with_features = dataset([*features, "sex", "race"], "pred")
    return (
        lambda: ClassificationMetric(truth, predicted, **groups),
        lambda: BinaryLabelDatasetMetric(outcomes),
        lambda: BinaryLabelDatasetMetric(with_features),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--knn-rows", type=int, default=50_000)
    args = parser.parse_args()
    repeats = max(args.repeats, 5)
    frame = simulate(args.rows)
    knn = frame.head(args.knn_rows)
    features = [f"x{i}" for i in range(5)]
    make_classification, make_outcomes, _ = aif360_objects(frame, features)
    _, _, make_neighbours = aif360_objects(knn, features)
    frame.head(1000).fairness.inequality(y_true="y", y_pred="pred", by=["sex", "race"])  # imports
    print(
        f"== inequality and differential fairness: {args.rows:,} rows x 10 groups; medians of {repeats} runs"
    )

    def aif_inequality():
        classification = make_classification()
        with np.errstate(divide="ignore", invalid="ignore"):
            return [
                classification.generalized_entropy_index(alpha=2),
                classification.theil_index(),
                classification.coefficient_of_variation(),
                classification.between_all_groups_generalized_entropy_index(alpha=2),
                classification.between_all_groups_theil_index(),
            ]

    ours, table = median_time(
        lambda: frame.fairness.inequality(y_true="y", y_pred="pred", by=["sex", "race"]), repeats
    )
    theirs, values = median_time(aif_inequality, repeats)
    gap = abs(table["generalized_entropy"].iloc[-1] - values[0])
    print(f"pdmetrics inequality (GE, Theil, CV per group and all, between/within): {ours:.3f} s")
    print(
        f"AIF360 GE, Theil, CV, between-all-groups GE and Theil: {theirs:.3f} s "
        f"({theirs / ours:.1f}x pdmetrics)"
    )
    print(f"  |GE(2) difference| = {gap:.1e}")

    ours, table = median_time(
        lambda: frame.fairness.differential_fairness(y_pred="pred", by=["sex", "race"]), repeats
    )
    theirs, value = median_time(lambda: make_outcomes().smoothed_empirical_differential_fairness(), repeats)
    print(f"pdmetrics differential_fairness: {ours:.3f} s")
    print(f"AIF360 smoothed_empirical_differential_fairness: {theirs:.3f} s ({theirs / ours:.1f}x pdmetrics)")
    print(f"  |difference| = {abs(table['differential_fairness'].item() - value):.1e}")

    print(f"== consistency: {args.knn_rows:,} rows x 7 features (5 continuous, sex, race), k = 5")
    columns = [*features, "sex", "race"]
    ours, table = median_time(lambda: knn.fairness.consistency(features=columns, y_pred="pred"), repeats)
    theirs, value = median_time(lambda: make_neighbours().consistency(n_neighbors=5), repeats)
    print(f"pdmetrics consistency (scipy cKDTree): {ours:.3f} s")
    print(
        f"AIF360 consistency (scikit-learn ball tree, a loop over rows): {theirs:.3f} s "
        f"({theirs / ours:.1f}x pdmetrics)"
    )
    print(f"  |difference| = {abs(table['consistency'].item() - float(np.ravel(value)[0])):.1e}")


if __name__ == "__main__":
    main()
