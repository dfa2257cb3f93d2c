"""The text-generation figures: what each draws, read back from the matplotlib artists."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import pdmetrics  # noqa: E402
from pdmetrics.plotting import scoring as scoring_plots  # noqa: E402
from pdmetrics.plotting import textgen as plots  # noqa: E402
from tests.test_textgen_judge_agreement import long_verdicts, run  # noqa: E402


def test_judge_stability_draws_a_dot_per_run_and_the_mean_and_sd_per_judge():
    frame = long_verdicts(20)
    table = run(frame, run="run")
    before = table.copy()
    ax = plots.judge_stability(table)
    per_run = frame.groupby(["judge", "run"])["verdict"].mean()
    summary = per_run.groupby("judge").agg(["mean", "std"])
    (dots,) = [c for c in ax.collections if c.get_label() == "one run"]
    assert len(dots.get_offsets()) == len(per_run) == 9
    np.testing.assert_allclose(dots.get_offsets()[:, 1], per_run.to_numpy())
    np.testing.assert_allclose([bar.get_height() for bar in ax.patches], summary["mean"])
    (bars,) = [c for c in ax.containers if c.get_label() == "± SD"]
    segments = bars.lines[2][0].get_segments()
    np.testing.assert_allclose([s[1, 1] - s[0, 1] for s in segments], 2 * summary["std"])
    assert [t.get_text() for t in ax.get_xticklabels()] == list(summary.index)
    pd.testing.assert_frame_equal(table, before)


def test_judge_stability_through_the_namespace_and_without_spread_rows():
    frame = long_verdicts(21)
    frame["verdict"] = np.where(frame["verdict"].isna(), None, np.where(frame["verdict"] >= 3, "yes", "no"))
    _, given = plt.subplots()
    ax = frame.textgen.plot.judge_stability(
        datum="datum", judge="judge", verdict="verdict", run="run", positive="yes", ax=given
    )
    assert ax is given
    (dots,) = [c for c in ax.collections if c.get_label() == "one run"]
    shares = frame.dropna(subset=["verdict"]).assign(hit=lambda f: f["verdict"] == "yes")
    np.testing.assert_allclose(dots.get_offsets()[:, 1], shares.groupby(["judge", "run"])["hit"].mean())
    with pytest.raises(pdmetrics.InvalidInputError, match="positive="):
        plots.judge_stability(run(frame, run="run"))
    with pytest.raises(pdmetrics.InvalidInputError, match="judge_agreement"):
        plots.judge_stability(pd.DataFrame({"value": [1.0]}))


def test_the_judges_heatmap_of_a_judge_agreement_table():
    frame = long_verdicts(22)
    table = run(frame, run="run", human="human")
    ax = scoring_plots.agreement(table)
    judges = table[(table["comparison"] == "judges") & (table["statistic"] == "cohen_kappa")]
    assert len(ax.texts) == 9
    off_diagonal = ax.images[0].get_array()[np.triu_indices(3, 1)]
    np.testing.assert_allclose(off_diagonal, judges["value"])


def test_plot_namespace_methods():
    frame = long_verdicts(23)
    methods = {name for name in dir(frame.textgen.plot) if not name.startswith("_")}
    assert methods == {"compare", "judge_stability"}
