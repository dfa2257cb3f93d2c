"""Benchmark: on-the-fly scoring models (fit EP, fit PP scaling, predict) and the Figure 1 grid.

There is no reference package for Attali's (2007) models; the baseline is what an analyst
would write with pandas and statsmodels (OLS on standardized features, then rescaling),
checked to give the same scores. Prints medians of ``--repeat`` runs and ratios.

    python benchmarks/bench_scoring_model.py --rows 100000 1000000 --repeat 5
"""

from __future__ import annotations

import argparse
import math

import numpy as np
import pandas as pd
from timing import median_time

import pdmetrics  # noqa: F401
from pdmetrics.datasets import simulate_essays
from pdmetrics.scoring import LinearScoringModel, scaling_precision_table, scaling_standard_error

FEATURES = [f"f{i}" for i in range(1, 9)]


def baseline_fit_predict(df: pd.DataFrame) -> pd.Series:
    import statsmodels.api as sm

    x = df[FEATURES]
    h = df[["h1", "h2"]].mean(axis=1)
    z = (x - x.mean()) / x.std()
    fit = sm.OLS(h, sm.add_constant(z)).fit()
    weights = fit.params[FEATURES] / fit.params[FEATURES].sum()
    score = z @ weights
    return (score - score.mean()) / score.std() * h.std() + h.mean()


def pdmetrics_fit_predict(df: pd.DataFrame) -> pd.Series:
    model = df.scoring.fit_ep(features=FEATURES, human=["h1", "h2"])
    return model.predict(df)["e_score"]


GRID_N = np.arange(1, 1001)
GRID_K = np.arange(1, 101)


def baseline_grid() -> np.ndarray:
    out = np.empty((GRID_N.size, GRID_K.size))
    for i, n in enumerate(GRID_N):
        for j, k in enumerate(GRID_K):
            rho = 0.8 * math.sqrt(k / (1 + (k - 1) * 0.64))
            sd = math.sqrt((1 + (k - 1) * 0.64) / k)
            out[i, j] = sd * math.sqrt(1 - rho**2) / math.sqrt(n)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    try:
        import statsmodels.api  # noqa: F401

        have_baseline = True
    except ImportError:
        have_baseline = False
    print(f"{'task':<34}{'rows':>10}{'pdmetrics s':>14}{'baseline s':>14}{'ratio':>8}")
    prior = LinearScoringModel(dict.fromkeys(FEATURES, 1), means=0, sds=1)
    for n in args.rows:
        df = simulate_essays(n, n_features=8, seed=0)
        ours, scores = median_time(lambda df=df: pdmetrics_fit_predict(df), args.repeat)
        base = float("nan")
        if have_baseline:
            base, expected = median_time(lambda df=df: baseline_fit_predict(df), args.repeat)
            np.testing.assert_allclose(scores.to_numpy(), expected.to_numpy(), rtol=1e-9, atol=1e-9)
        print(f"{'fit_ep + predict (8 features)':<34}{n:>10}{ours:>14.4f}{base:>14.4f}{base / ours:>8.1f}")
        ours, _ = median_time(
            lambda df=df: prior.fit_scaling(df, human=["h1", "h2"]).predict(df), args.repeat
        )
        print(f"{'fit_scaling (PP) + predict':<34}{n:>10}{ours:>14.4f}{'':>14}{'':>8}")
    ours, _ = median_time(scaling_precision_table, args.repeat)
    print(f"{'Figure 1 table (60 cells)':<34}{60:>10}{ours:>14.5f}{'':>14}{'':>8}")
    ours, grid = median_time(lambda: scaling_standard_error(GRID_N[:, None], GRID_K[None, :]), args.repeat)
    base, expected = median_time(baseline_grid, args.repeat)
    np.testing.assert_allclose(grid, expected, rtol=1e-12)
    print(f"{'SE grid 1000 n x 100 k':<34}{grid.size:>10}{ours:>14.5f}{base:>14.5f}{base / ours:>8.1f}")


if __name__ == "__main__":
    main()
