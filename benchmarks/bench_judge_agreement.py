"""Benchmark: ``df.textgen.judge_agreement`` — 3 judges x 5 runs on 20,000 and 100,000 answers.

Times the judge-agreement table in process (median of ``--repeats`` runs) from the long verdict
table (one row per answer, judge and run; yes/no verdicts; a human label on a third of the
answers): between the judges, each judge against the human, each judge's runs, and the spread of
the verdict rate over runs — without intervals and with ``--resamples`` bootstrap resamples. The
reference is what a user writes with the libraries the issue names, on the same data in the same
run: a pandas pivot per comparison, scikit-learn's ``cohen_kappa_score`` for every pair (judges,
judge-human, runs), the krippendorff package's alpha over the judges and over each judge's runs,
and a pandas groupby for the rates.

    python benchmarks/bench_judge_agreement.py [--repeats 3] [--resamples 1000]
"""

from __future__ import annotations

import argparse
from itertools import combinations

import numpy as np
import pandas as pd
from timing import median_time

import pdmetrics  # noqa: F401

JUDGES = ("gpt", "claude", "llama")
RUNS = 5


def simulate(answers: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.random(answers) < 0.7
    human = np.where(rng.random(answers) < 1 / 3, np.where(truth, "yes", "no"), None)
    parts = []
    for judge, accuracy, flip in zip(JUDGES, (0.9, 0.88, 0.78), (0.04, 0.06, 0.15)):
        usual = rng.random(answers) < accuracy
        for run in range(1, RUNS + 1):
            correct = np.where(rng.random(answers) >= flip, usual, ~usual)
            verdict = np.where(correct == truth, "yes", "no")
            columns = {"answer": np.arange(answers), "judge": judge, "run": run}
            parts.append(pd.DataFrame({**columns, "verdict": verdict, "human": human}))
    return pd.concat(parts, ignore_index=True)


def reference(frame: pd.DataFrame) -> None:
    import krippendorff
    from sklearn.metrics import cohen_kappa_score

    def codes(table: pd.DataFrame) -> np.ndarray:
        return table.replace({"yes": 1.0, "no": 0.0}).astype("float64").to_numpy()

    def pairs(x: np.ndarray) -> None:
        for a, b in combinations(range(x.shape[1]), 2):
            both = ~np.isnan(x[:, a]) & ~np.isnan(x[:, b])
            cohen_kappa_score(x[both, a], x[both, b])

    first = frame[frame["run"] == 1].pivot(index="answer", columns="judge", values="verdict")
    judges = codes(first)
    pairs(judges)
    krippendorff.alpha(reliability_data=judges.T, level_of_measurement="nominal")
    human = codes(frame.drop_duplicates("answer").set_index("answer")[["human"]].reindex(first.index))
    for j in range(judges.shape[1]):
        pairs(np.column_stack([human[:, 0], judges[:, j]]))
    for judge in JUDGES:
        runs = codes(frame[frame["judge"] == judge].pivot(index="answer", columns="run", values="verdict"))
        pairs(runs)
        krippendorff.alpha(reliability_data=runs.T, level_of_measurement="nominal")
    rates = frame.assign(yes=frame["verdict"] == "yes").groupby(["judge", "run"])["yes"].mean()
    rates.groupby("judge").agg(["mean", "std", "min", "max"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    options = dict(datum="answer", judge="judge", verdict="verdict", run="run", human="human", positive="yes")
    for answers in (20_000, 100_000):
        report(simulate(answers), options, args)


def report(frame: pd.DataFrame, options: dict, args) -> None:
    """Time pdmetrics (without and with the bootstrap) and the reference on one data set."""
    answers = frame["answer"].nunique()
    print(f"== {answers:,} answers x {len(JUDGES)} judges x {RUNS} runs ({len(frame):,} rows)")
    point, _ = median_time(lambda: frame.textgen.judge_agreement(**options, n_resamples=0), args.repeats)
    print(f"pdmetrics judge_agreement, no bootstrap: {point:.3f} s")
    boot, _ = median_time(
        lambda: frame.textgen.judge_agreement(**options, n_resamples=args.resamples), args.repeats
    )
    print(f"pdmetrics judge_agreement, {args.resamples} resamples: {boot:.3f} s")
    ref, _ = median_time(lambda: reference(frame), args.repeats)
    print(
        f"reference (pandas pivots, scikit-learn kappas, krippendorff alphas, groupby rates; no "
        f"intervals): {ref:.3f} s ({ref / point:.1f}x pdmetrics without the bootstrap)"
    )


if __name__ == "__main__":
    main()
