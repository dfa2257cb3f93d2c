import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from pdmetrics.cli import main
from pdmetrics.datasets import simulate_essays, simulate_scores
from pdmetrics.errors import InvalidInputError


def test_simulate_scores_is_seeded_and_realistic():
    a, b = simulate_scores(3000, seed=7), simulate_scores(3000, seed=7)
    pd.testing.assert_frame_equal(a, b)
    assert set(a["sc1"].unique()) <= {1.0, 2.0, 3.0, 4.0, 5.0, 6.0}
    assert a["sc2"].notna().sum() == 1500
    assert a["L1"].nunique() == 4
    assert 0.6 < np.corrcoef(a["sc1"], a["raw"])[0, 1] < 0.95


def test_demo_prints_the_tables(capsys):
    assert main(["demo", "--rows", "500"]) == 0
    out = capsys.readouterr().out
    for title in (
        "== eval",
        "== consistency",
        "== confMatrix",
        "== score_dist",
        "df.scoring.report(",
        "== true_score_eval",
        "== fairness_metrics_by_L1",
        "pdmetrics evaluate FILE.csv",
    ):
        assert title in out


def test_demo_with_too_few_rows_is_a_one_line_error(capsys):
    assert main(["demo", "--rows", "1"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "pdmetrics demo: error: --rows 1: the demo needs at least 2 responses (one of them double-scored).\n"
    )


def test_console_script_runs():
    result = subprocess.run(
        [sys.executable, "-m", "pdmetrics.cli", "demo", "--rows", "300"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert "raw_trim_round" in result.stdout


def test_simulated_groups_take_labels_or_proportions_and_refuse_other_mappings():
    listed = simulate_essays(300, groups=["A", "B"], seed=0)
    weighted = simulate_essays(300, groups={"A": 0.9, "B": 0.1}, seed=0)
    assert set(listed["group"]) == {"A", "B"}
    assert (weighted["group"] == "A").mean() > 0.8
    with pytest.raises(InvalidInputError, match=r"label -> number.*groups=\['A', 'B'\]"):
        simulate_essays(300, groups={"L1": ["Arabic", "Chinese"]}, seed=0)
