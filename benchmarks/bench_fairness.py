"""Benchmark: df.fairness.classification + df.fairness.by_group on simulated data.

Simulates a biased binary classifier on ``--rows`` rows with a 2-level and an 8-level
sensitive column, times pdmetrics, and, when they are installed, fairlearn's MetricFrame
and AIF360's ClassificationMetric on the same data (ratios printed against pdmetrics).

    python benchmarks/bench_fairness.py --rows 1000000 --repeat 5
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd
from timing import median_time

import pdmetrics  # noqa: F401


def simulate(rows: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sex = rng.integers(0, 2, rows)
    region = rng.integers(0, 8, rows)
    y = (rng.random(rows) < 0.4 + 0.1 * sex).astype(np.int64)
    flip = rng.random(rows) < 0.15 + 0.05 * (region == 3)
    pred = np.where(flip, 1 - y, y)
    pred = np.where((sex == 0) & (rng.random(rows) < 0.1), 0, pred)  # the bias
    return pd.DataFrame({"y": y, "pred": pred, "sex": sex, "region": region})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--reference-repeat", type=int, default=1, help="repeats for fairlearn/AIF360 (slow)")
    parser.add_argument("--skip-fairlearn", action="store_true")
    args = parser.parse_args()
    df = simulate(args.rows)
    print(f"{args.rows:,} rows; sensitive columns: sex (2 levels), region (8 levels)")

    def ours_classification():
        return df.fairness.classification(
            y_true="y", y_pred="pred", by=["sex", "region"], threshold={"region": 3}
        )

    def ours_by_group():
        return [df.fairness.by_group(y_true="y", y_pred="pred", by=column) for column in ("sex", "region")]

    def ours_both():
        return ours_classification(), ours_by_group()

    ours_both()  # warm-up
    t_cls, table = median_time(ours_classification, args.repeat)
    t_grp, _ = median_time(ours_by_group, args.repeat)
    t_both, _ = median_time(ours_both, args.repeat)
    print(f"pdmetrics classification (2 columns)         median {t_cls * 1000:8.1f} ms")
    print(f"pdmetrics by_group (sex, region)             median {t_grp * 1000:8.1f} ms")
    print(f"pdmetrics classification + by_group          median {t_both * 1000:8.1f} ms  (target < 100 ms)")
    t_boot, _ = median_time(
        lambda: df.fairness.by_group(
            y_true="y", y_pred="pred", by="region", n_resamples=1000, random_state=0
        ),
        args.repeat,
    )
    print(f"pdmetrics by_group region, n_resamples=1000       median {t_boot * 1000:8.1f} ms")

    try:
        from fairlearn.metrics import MetricFrame, false_positive_rate, selection_rate, true_positive_rate
        from sklearn.metrics import accuracy_score, precision_score, recall_score
    except ImportError:
        print("fairlearn not installed: no comparison")
    else:
        if not args.skip_fairlearn:
            metrics = {
                "selection_rate": selection_rate,
                "tpr": true_positive_rate,
                "fpr": false_positive_rate,
                "accuracy": accuracy_score,
                "precision": precision_score,
                "recall": recall_score,
            }

            def fairlearn_both():
                return [
                    MetricFrame(
                        metrics=metrics, y_true=df["y"], y_pred=df["pred"], sensitive_features=df[column]
                    ).by_group
                    for column in ("sex", "region")
                ]

            t_fl, _ = median_time(fairlearn_both, args.reference_repeat)
            print(
                f"fairlearn MetricFrame (sex, region; 6 metrics) median {t_fl * 1000:8.1f} ms  "
                f"ratio {t_fl / t_both:6.1f}x slower than pdmetrics classification + by_group"
            )

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from aif360.datasets import BinaryLabelDataset
            from aif360.metrics import ClassificationMetric
    except ImportError:
        print("aif360 not installed: no comparison")
    else:

        def aif360_metrics():
            out = {}
            for column, threshold in (("sex", 0), ("region", 3)):
                frame = pd.DataFrame({"y": df["y"], column: (df[column] > threshold).astype(float)})
                truth = BinaryLabelDataset(
                    df=frame,
                    label_names=["y"],
                    protected_attribute_names=[column],
                    favorable_label=1,
                    unfavorable_label=0,
                )
                predicted = truth.copy()
                predicted.labels = df[["pred"]].to_numpy(dtype=float)
                metric = ClassificationMetric(
                    truth, predicted, unprivileged_groups=[{column: 0.0}], privileged_groups=[{column: 1.0}]
                )
                out[column] = (
                    metric.statistical_parity_difference(),
                    metric.disparate_impact(),
                    metric.average_odds_difference(),
                    metric.equal_opportunity_difference(),
                    metric.accuracy(),
                    metric.precision(),
                    metric.recall(),
                )
            return out

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t_aif, values = median_time(aif360_metrics, args.reference_repeat)
        print(
            f"AIF360 ClassificationMetric (2 columns)      median {t_aif * 1000:8.1f} ms  "
            f"ratio {t_aif / t_cls:6.1f}x slower than pdmetrics classification"
        )
        ours = table.set_index("by")
        for column, reference in values.items():
            mine = ours.loc[
                column,
                [
                    "statistical_parity_difference",
                    "disparate_impact",
                    "average_odds_difference",
                    "equal_opportunity_difference",
                    "accuracy",
                    "precision",
                    "recall",
                ],
            ].to_numpy(dtype=float)
            print(f"  {column}: max |pdmetrics - AIF360| = {np.max(np.abs(mine - np.array(reference))):.2e}")


if __name__ == "__main__":
    main()
