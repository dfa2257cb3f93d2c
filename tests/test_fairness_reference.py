"""Optional cross-checks against AIF360 and fairlearn (skipped when they are not installed)."""

from __future__ import annotations

import logging
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import assert_close

import pdmetrics  # noqa: F401

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning")


def _simulate(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    region = rng.integers(0, 6, n)
    y = (rng.random(n) < 0.3 + 0.08 * region).astype(int)
    pred = np.where(rng.random(n) < 0.75, y, 1 - y)
    pred = np.where((region < 2) & (rng.random(n) < 0.2), 0, pred)
    return pd.DataFrame({"y": y, "pred": pred, "region": region, "sex": rng.integers(0, 2, n)})


@pytest.mark.parametrize("seed, column, threshold", [(0, "sex", 0.0), (1, "region", 2.0), (2, "region", 3.5)])
def test_against_aif360(seed, column, threshold):
    logging.getLogger().setLevel(logging.ERROR)  # aif360 logs about optional extras on import
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        aif_datasets = pytest.importorskip("aif360.datasets")
        aif_metrics = pytest.importorskip("aif360.metrics")
    df = _simulate(600, seed)
    frame = pd.DataFrame({"y": df["y"].astype(float), "priv": (df[column] > threshold).astype(float)})
    truth = aif_datasets.BinaryLabelDataset(
        df=frame,
        label_names=["y"],
        protected_attribute_names=["priv"],
        favorable_label=1.0,
        unfavorable_label=0.0,
    )
    predicted = truth.copy()
    predicted.labels = df[["pred"]].to_numpy(dtype=float)
    metric = aif_metrics.ClassificationMetric(
        truth, predicted, unprivileged_groups=[{"priv": 0.0}], privileged_groups=[{"priv": 1.0}]
    )
    table = df.fairness.classification(y_true="y", y_pred="pred", by=column, threshold=threshold)
    row = table.iloc[0]
    for ours, theirs in [
        ("statistical_parity_difference", metric.statistical_parity_difference()),
        ("disparate_impact", metric.disparate_impact()),
        ("average_odds_difference", metric.average_odds_difference()),
        ("average_abs_odds_difference", metric.average_abs_odds_difference()),
        ("equal_opportunity_difference", metric.equal_opportunity_difference()),
        ("accuracy", metric.accuracy()),
        ("precision", metric.precision()),
        ("recall", metric.recall()),
    ]:
        assert_close(row[ours], theirs, what=ours)


def test_against_fairlearn():
    fl = pytest.importorskip("fairlearn.metrics")
    df = _simulate(800, 5)
    sensitive = (df["region"] > 2).astype(int)
    row = df.assign(s=sensitive).fairness.classification(y_true="y", y_pred="pred", by="s").iloc[0]
    args = dict(y_true=df["y"], y_pred=df["pred"], sensitive_features=sensitive)
    assert_close(fl.demographic_parity_difference(**args), abs(row["statistical_parity_difference"]))
    di = row["disparate_impact"]
    assert_close(fl.demographic_parity_ratio(**args), min(di, 1 / di))
    assert_close(fl.equalized_odds_difference(**args, agg="mean"), row["average_abs_odds_difference"])

    rates = df.fairness.by_group(y_true="y", y_pred="pred", by="region")
    frame = fl.MetricFrame(
        metrics={
            "selection_rate": fl.selection_rate,
            "tpr": fl.true_positive_rate,
            "fpr": fl.false_positive_rate,
            "tnr": fl.true_negative_rate,
            "fnr": fl.false_negative_rate,
        },
        y_true=df["y"],
        y_pred=df["pred"],
        sensitive_features=df["region"],
    )
    for name in ("selection_rate", "tpr", "fpr", "tnr", "fnr"):
        assert_close(rates[name], frame.by_group[name].to_numpy(), what=name)
    disparity = df.fairness.group_disparity(y_true="y", y_pred="pred", by="region").set_index("metric")
    for name in ("selection_rate", "tpr", "fpr"):
        assert_close(disparity.loc[name, "difference"], frame.difference()[name], what=name)
        assert_close(disparity.loc[name, "ratio"], frame.ratio()[name], what=name)
        ours = disparity.loc[name]
        assert_close(ours["difference_to_overall"], frame.difference(method="to_overall")[name], what=name)
        assert_close(ours["ratio_to_overall"], frame.ratio(method="to_overall")[name], what=name)
