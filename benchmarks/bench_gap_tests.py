"""Benchmark: df.fairness.gap_tests against fairlearn's MetricFrame + statsmodels per group.

Simulates a binary classifier on ``--rows`` rows with ``--groups`` groups and times
``df.fairness.gap_tests`` (four rates, every group against the largest, Holm's correction,
intervals and group sizes needed) against what a user writes today: fairlearn's
``MetricFrame`` for the rates and their counts per group, then per group and rate statsmodels'
``proportions_ztest`` (SciPy's ``fisher_exact`` for small tables), ``confint_proportions_2indep``
and ``NormalIndPower().solve_power``, then ``multipletests``. Medians of ``--repeat`` runs;
the two tables' p-values are checked to agree.

    python benchmarks/bench_gap_tests.py --rows 1000000 --groups 10 --repeat 5
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd
from timing import median_time

import pdmetrics  # noqa: F401

METRICS = ("selection_rate", "tpr", "fpr", "precision")


def simulate(rows: int, groups: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    weights = np.linspace(1.0, 0.05, groups)
    g = rng.choice(groups, rows, p=weights / weights.sum())
    y = (rng.random(rows) < 0.4).astype(np.int64)
    lift = 0.03 * (g % 3) - 0.02 * (g == groups - 1)
    pred = (rng.random(rows) < np.clip(0.2 + 0.5 * y + lift, 0, 1)).astype(np.int64)
    return pd.DataFrame({"y": y, "pred": pred, "g": g})


def user_today(df: pd.DataFrame, counting: str = "fairlearn") -> pd.DataFrame:
    """fairlearn's MetricFrame (or, ``counting="pandas"``, one pandas groupby) for the counts
    per group, then statsmodels group by group."""
    from scipy.stats import fisher_exact
    from statsmodels.stats.multitest import multipletests
    from statsmodels.stats.power import NormalIndPower
    from statsmodels.stats.proportion import (
        confint_proportions_2indep,
        proportion_effectsize,
        proportions_ztest,
    )

    def counter(which):
        def count(y_true, y_pred):
            y_true, y_pred = np.asarray(y_true) == 1, np.asarray(y_pred) == 1
            return int(which(y_true, y_pred).sum())

        return count

    cells = {
        "n": counter(lambda t, p: np.ones_like(t)),
        "selected": counter(lambda t, p: p),
        "tp": counter(lambda t, p: t & p),
        "fp": counter(lambda t, p: ~t & p),
        "pos": counter(lambda t, p: t),
        "neg": counter(lambda t, p: ~t),
    }
    if counting == "fairlearn":
        from fairlearn.metrics import MetricFrame

        frame = MetricFrame(metrics=cells, y_true=df["y"], y_pred=df["pred"], sensitive_features=df["g"])
        counts = frame.by_group
    else:
        t, p = df["y"] == 1, df["pred"] == 1
        flags = pd.DataFrame({"n": 1, "selected": p, "tp": t & p, "fp": ~t & p, "pos": t, "neg": ~t})
        counts = flags.groupby(df["g"]).sum()
    reference = counts["n"].idxmax()
    pairs = {
        "selection_rate": ("selected", "n"),
        "tpr": ("tp", "pos"),
        "fpr": ("fp", "neg"),
        "precision": ("tp", "selected"),
    }
    rows = []
    power = NormalIndPower()
    for metric in METRICS:
        numerator, denominator = pairs[metric]
        c, n2 = counts.loc[reference, numerator], counts.loc[reference, denominator]
        for group in counts.index:
            if group == reference:
                continue
            a, n1 = counts.loc[group, numerator], counts.loc[group, denominator]
            table = np.array([[a, n1 - a], [c, n2 - c]])
            expected = table.sum(axis=1)[:, None] * table.sum(axis=0)[None, :] / table.sum()
            if expected.min() < 5:
                p = fisher_exact(table).pvalue
            else:
                p = proportions_ztest([a, c], [n1, n2])[1]
            low, high = confint_proportions_2indep(a, n1, c, n2, method="newcomb")
            h = proportion_effectsize(a / n1, c / n2)
            needed = power.solve_power(h, alpha=0.05, power=0.8, ratio=n2 / n1) if h else np.nan
            rows.append(
                {
                    "g": group,
                    "metric": metric,
                    "p_value": p,
                    "ci_low": low,
                    "ci_high": high,
                    "N_needed": needed,
                }
            )
    out = pd.DataFrame(rows)
    out["p_adjusted"] = multipletests(out["p_value"], method="holm")[1]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--groups", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    df = simulate(args.rows, args.groups)
    print(
        f"{args.rows:,} rows, {args.groups} groups, rates {', '.join(METRICS)}; medians of {args.repeat} runs"
    )

    def ours():
        return df.fairness.gap_tests(y_true="y", y_pred="pred", by="g", metrics=METRICS)

    ours()  # warm-up (imports)
    t_ours, table = median_time(ours, args.repeat)
    print(f"pdmetrics gap_tests                               median {t_ours * 1000:9.1f} ms")
    try:
        import fairlearn  # noqa: F401
    except ImportError:
        print("fairlearn not installed: no comparison")
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        user_today(df.head(1000))  # warm-up (imports)
        t_ref, reference = median_time(lambda: user_today(df), args.repeat)
    print(f"fairlearn MetricFrame + statsmodels per group     median {t_ref * 1000:9.1f} ms")
    print(f"ratio (reference / pdmetrics)                     {t_ref / t_ours:9.1f} x")
    t_lean, _ = median_time(lambda: user_today(df, "pandas"), args.repeat)
    print(f"pandas groupby + statsmodels per group            median {t_lean * 1000:9.1f} ms")
    print(f"ratio (reference / pdmetrics)                     {t_lean / t_ours:9.1f} x")
    merged = table.merge(reference, on=["g", "metric"], suffixes=("", "_reference"))
    assert len(merged) == len(table) == len(reference)
    for column in ("p_value", "p_adjusted", "ci_low", "ci_high"):
        gap = np.nanmax(np.abs(merged[column] - merged[f"{column}_reference"]))
        print(f"  largest |difference| of {column:<10} {gap:.2e}")


if __name__ == "__main__":
    main()
