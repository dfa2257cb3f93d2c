"""Benchmark: ``df.scoring.agreement`` — 5 raters, 1,000,000 items and 200,000 items (1M ratings).

Times the agreement table in process (median of ``--repeats`` runs): the default call
(``agreement(raters=...)``: nominal, 1000 bootstrap resamples; the issue's bar is 1M ratings in
under a second), the point estimates alone (``n_resamples=0``; the ICCs' F-based intervals
included) at ``level="interval"`` (every statistic: percent agreement, Cohen's kappa of the 10
pairs with three weightings, Fleiss, Krippendorff, Gwet AC1/AC2, six ICCs), and with
``--resamples`` bootstrap resamples. The
references, on the same data in the same run: the krippendorff package's alpha, scikit-learn's
``cohen_kappa_score`` on every pair (three weightings), statsmodels' ``fleiss_kappa`` (with its
``aggregate_raters``). Ratings: integers 1..6 around a latent score, 10% missing.

    python benchmarks/bench_agreement.py [--repeats 5] [--resamples 1000]
"""

from __future__ import annotations

import argparse
from itertools import combinations

import numpy as np
import pandas as pd
from timing import median_time

import pdmetrics  # noqa: F401


def simulate(items: int, raters: int = 5, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    latent = rng.normal(3.5, 1.0, items)
    x = np.clip(np.rint(latent[:, None] + rng.normal(0, 0.7, (items, raters))), 1, 6)
    x[rng.random(x.shape) < 0.1] = np.nan
    return pd.DataFrame(x, columns=[f"r{j}" for j in range(raters)])


def references(frame: pd.DataFrame) -> dict:
    import krippendorff
    from sklearn.metrics import cohen_kappa_score
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    x = frame.to_numpy()

    def sklearn_pairs():
        for a, b in combinations(range(x.shape[1]), 2):
            both = ~np.isnan(x[:, a]) & ~np.isnan(x[:, b])
            for weights in (None, "linear", "quadratic"):
                cohen_kappa_score(x[both, a], x[both, b], weights=weights)

    return {
        "krippendorff.alpha (interval)": lambda: krippendorff.alpha(
            reliability_data=x.T, level_of_measurement="interval"
        ),
        "sklearn cohen_kappa_score, 10 pairs x 3 weights": sklearn_pairs,
        "statsmodels fleiss_kappa (complete items)": lambda: fleiss_kappa(
            aggregate_raters(x[~np.isnan(x).any(axis=1)])[0], method="fleiss"
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    raters = [f"r{j}" for j in range(5)]
    for items in (1_000_000, 200_000):
        frame = simulate(items)
        print(f"== {items:,} items x 5 raters ({int(frame.notna().sum().sum()):,} ratings)")
        default, _ = median_time(lambda frame=frame: frame.scoring.agreement(raters=raters), args.repeats)
        print(f"pdmetrics agreement, the default call (nominal, 1000 resamples): {default:.3f} s")
        ours, _ = median_time(
            lambda frame=frame: frame.scoring.agreement(raters=raters, level="interval", n_resamples=0),
            args.repeats,
        )
        print(f"pdmetrics agreement, every statistic, no bootstrap: {ours:.3f} s")
        boot, _ = median_time(
            lambda frame=frame: frame.scoring.agreement(
                raters=raters, level="interval", n_resamples=args.resamples
            ),
            args.repeats,
        )
        print(f"pdmetrics agreement, every statistic, {args.resamples} resamples: {boot:.3f} s")
        total = 0.0
        for name, function in references(frame).items():
            seconds, _ = median_time(function, args.repeats)
            total += seconds
            print(f"reference {name}: {seconds:.3f} s")
        print(f"references together: {total:.3f} s ({total / ours:.1f}x pdmetrics' point estimates)")


if __name__ == "__main__":
    main()
