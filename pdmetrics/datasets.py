"""Seeded simulators of realistic evaluation data, for demos, docs and tests."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["simulate_scores"]


def simulate_scores(n: int = 2000, *, seed: int = 0, double_scored: float = 0.5,
                    score_range: tuple[int, int] = (1, 6)) -> pd.DataFrame:
    """Simulate a double-scored essay-scoring data set with a subgroup column.

    Each response has a latent proficiency; two human raters score it with independent
    error (rounded and clipped to the score range); an automated engine produces a
    continuous score that tracks proficiency less closely and runs slightly high for one
    subgroup (so subgroup analyses have something to find).

    Parameters
    ----------
    n : int, default 2000
        Number of responses.
    seed : int, default 0
        Seed of the random generator: the same seed gives the same frame.
    double_scored : float, default 0.5
        Share of responses that a second human also scored (``sc2`` is NaN elsewhere).
    score_range : (int, int), default (1, 6)
        Lowest and highest score point.

    Returns
    -------
    pandas.DataFrame
        Columns ``id`` (str), ``L1`` (first language: four groups of unequal size),
        ``sc1`` and ``sc2`` (human scores, float), ``raw`` (system score, float).

    Examples
    --------
    >>> from pdmetrics.datasets import simulate_scores
    >>> df = simulate_scores(1000, seed=1)
    >>> list(df.columns)
    ['id', 'L1', 'sc1', 'sc2', 'raw']
    >>> int(df["sc2"].notna().sum())
    500
    """
    rng = np.random.default_rng(seed)
    low, high = score_range
    groups = np.array(["Spanish", "Mandarin", "Arabic", "Hindi"])
    group = groups[rng.choice(4, size=n, p=[0.4, 0.3, 0.2, 0.1])]
    middle, spread = (low + high) / 2, (high - low) / 5
    proficiency = rng.normal(middle, spread, n) + np.where(group == "Mandarin", 0.15, 0.0)

    def rate(noise_sd: float) -> np.ndarray:
        return np.clip(np.rint(proficiency + rng.normal(0, noise_sd, n)), low, high)

    sc1 = rate(0.45)
    sc2 = rate(0.45)
    sc2[rng.permutation(n)[: n - int(round(double_scored * n))]] = np.nan
    raw = proficiency + rng.normal(0, 0.5, n) + np.where(group == "Arabic", 0.2, 0.0)
    return pd.DataFrame({"id": [f"R{i:06d}" for i in range(1, n + 1)], "L1": group,
                         "sc1": sc1, "sc2": sc2, "raw": raw})
