"""The scoring figures: what each draws, read back from the matplotlib artists."""

from __future__ import annotations

import sys

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import pdmetrics  # noqa: E402
from pdmetrics.datasets import simulate_scores  # noqa: E402
from pdmetrics.plotting import scoring as plots  # noqa: E402
from pdmetrics.scoring import scaling_precision_table  # noqa: E402


@pytest.fixture(scope="module")
def frame():
    df = simulate_scores(3000, seed=4).scoring.postprocess(system="raw", trim_min=1, trim_max=6)
    df["grade"] = np.where(np.arange(len(df)) % 3, "g9", "g10")
    return df


def bar_heights(ax, label):
    """Heights of the bars of the container labelled ``label``."""
    (container,) = [c for c in ax.containers if c.get_label() == label]
    return np.array([patch.get_height() for patch in container.patches])


def tick_texts(ticks):
    return [tick.get_text() for tick in ticks]


# ----------------------------------------------------------------------------------------
# score distribution
# ----------------------------------------------------------------------------------------
def test_score_distribution_draws_human_and_each_system(frame):
    table = frame.scoring.score_distribution(human="sc1", system=["raw_trim_round", "raw_trim"])
    before = table.copy()
    ax = plots.score_distribution(table)
    first = table[table["system"] == "raw_trim_round"]
    assert len(ax.patches) == 3 * len(first)
    np.testing.assert_allclose(bar_heights(ax, "human"), first["human"])
    np.testing.assert_allclose(bar_heights(ax, "raw_trim_round"), first["sys"])
    np.testing.assert_allclose(bar_heights(ax, "raw_trim"), table[table["system"] == "raw_trim"]["sys"])
    assert tick_texts(ax.get_xticklabels()) == [str(s) for s in first["score"]]
    assert tick_texts(ax.get_legend().get_texts()) == ["human", "raw_trim_round", "raw_trim"]
    pd.testing.assert_frame_equal(table, before)


def test_score_distribution_uses_the_given_axes(frame):
    _, given = plt.subplots()
    ax = frame.scoring.plot.score_distribution(human="sc1", system="raw_trim_round", ax=given)
    assert ax is given
    assert len(ax.patches) == 2 * len(frame.scoring.score_distribution(human="sc1", system="raw_trim_round"))


def test_score_distribution_names_the_missing_columns():
    with pytest.raises(
        pdmetrics.InvalidInputError, match=r"lacks the column\(s\) 'sys' \(it has .*score_distribution"
    ):
        plots.score_distribution(pd.DataFrame({"system": ["a"], "score": [1], "human": [100.0]}))


# ----------------------------------------------------------------------------------------
# confusion matrix
# ----------------------------------------------------------------------------------------
def cell_values(ax):
    return np.array([float(text.get_text()) for text in ax.texts])


def test_confusion_matrix_counts_and_labels(frame):
    table = frame.scoring.confusion_matrix(human="sc1", system="raw_trim_round")
    before = table.copy()
    ax = plots.confusion_matrix(table)
    wide = table.pivot(index="human_score", columns="system_score", values="N")
    np.testing.assert_array_equal(cell_values(ax), wide.to_numpy().ravel())
    np.testing.assert_array_equal(ax.images[0].get_array(), wide.to_numpy())
    assert tick_texts(ax.get_yticklabels()) == [str(s) for s in wide.index]
    assert tick_texts(ax.get_xticklabels()) == [str(s) for s in wide.columns]
    assert ax.get_xlabel() == "System score (raw_trim_round)"
    pd.testing.assert_frame_equal(table, before)


@pytest.mark.parametrize(
    ("normalize", "axis"), [("true", 1), ("pred", 0), ("all", None)], ids=["true", "pred", "all"]
)
def test_confusion_matrix_normalize_as_scikit_learn(frame, normalize, axis):
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    rows = frame.dropna(subset=["sc1", "raw_trim_round"])
    rows = rows[rows["sc1"] != 0]
    labels = np.arange(1, 7)
    expected = sklearn_metrics.confusion_matrix(
        rows["sc1"], rows["raw_trim_round"], labels=labels, normalize=normalize
    )
    ax = frame.scoring.plot.confusion_matrix(human="sc1", system="raw_trim_round", normalize=normalize)
    drawn = np.asarray(ax.images[0].get_array())
    np.testing.assert_allclose(drawn, expected, atol=1e-12)
    np.testing.assert_allclose(cell_values(ax), expected.ravel(), atol=0.005 + 1e-12)  # 2 decimals
    if axis is not None:
        np.testing.assert_allclose(drawn.sum(axis=axis), 1.0)


def test_confusion_matrix_needs_a_choice_among_several_systems(frame):
    table = frame.scoring.confusion_matrix(human="sc1", system=["raw_trim", "raw_trim_round"])
    with pytest.raises(pdmetrics.InvalidInputError, match="several system values.*`system=`"):
        plots.confusion_matrix(table)
    ax = plots.confusion_matrix(table, system="raw_trim")
    assert ax.get_xlabel() == "System score (raw_trim)"
    with pytest.raises(pdmetrics.InvalidInputError, match="`system='nope'` is not in the table"):
        plots.confusion_matrix(table, system="nope")
    with pytest.raises(pdmetrics.InvalidInputError, match="`normalize='rows'` is not an option"):
        plots.confusion_matrix(table, system="raw_trim", normalize="rows")
    with pytest.raises(pdmetrics.InvalidInputError, match="`system=` takes one column"):
        frame.scoring.plot.confusion_matrix(human="sc1", system=["raw_trim", "raw_trim_round"])


def test_confusion_matrix_missing_column():
    with pytest.raises(pdmetrics.InvalidInputError, match=r"'N' \(it has .*df.scoring.confusion_matrix"):
        plots.confusion_matrix(pd.DataFrame({"system": ["a"], "human_score": [1], "system_score": [1]}))


# ----------------------------------------------------------------------------------------
# evaluation by group
# ----------------------------------------------------------------------------------------
def test_evaluation_by_group_panels_bars_and_reference_lines(frame):
    table = frame.scoring.evaluate(human="sc1", system="raw_trim", by="L1")
    before = table.copy()
    axes = plots.evaluation_by_group(table, metrics=["corr", "wtkappa", "DSM", "RMSE"])
    assert isinstance(axes, np.ndarray) and axes.shape == (4,)
    assert [ax.get_title() for ax in axes] == ["corr by L1", "wtkappa by L1", "DSM by L1", "RMSE by L1"]
    for ax, metric in zip(axes, ["corr", "wtkappa", "DSM", "RMSE"]):
        assert len(ax.patches) == len(table)
        np.testing.assert_allclose(bar_heights(ax, "raw_trim"), table[metric])
        assert tick_texts(ax.get_xticklabels()) == list(table["group"])
    assert tick_texts(axes[0].get_xticklabels())[0] == "(all)"
    dashed = [[line.get_ydata()[0] for line in ax.lines if line.get_linestyle() == "--"] for ax in axes]
    assert dashed[0] == [0.7] and dashed[1] == [0.7]
    assert sorted(dashed[2])[0] == -0.1 and sorted(dashed[2])[-1] == 0.1  # and 0 when a DSM < 0
    assert dashed[3] == []
    assert axes[0].get_ylim() == (0.0, 1.0)
    pd.testing.assert_frame_equal(table, before)


def test_evaluation_by_group_facets_several_by_columns_and_systems(frame):
    table = frame.scoring.evaluate(human="sc1", system=["raw_trim", "raw_trim_round"], by=["L1", "grade"])
    axes = plots.evaluation_by_group(table)
    assert axes.shape == (6,)
    assert [ax.get_title() for ax in axes] == [
        f"{m} by {b}" for b in ("L1", "grade") for m in ("corr", "wtkappa", "DSM")
    ]
    grade = table[(table["by"] == "grade") & (table["system"] == "raw_trim_round")]
    np.testing.assert_allclose(bar_heights(axes[3], "raw_trim_round"), grade["corr"])
    assert tick_texts(axes[2].get_legend().get_texts()) == ["raw_trim", "raw_trim_round"]
    only = plots.evaluation_by_group(table, by="grade", metrics="corr", reference_lines=False)
    assert [ax.get_title() for ax in only] == ["corr by grade"]
    assert not [line for line in only[0].lines if line.get_linestyle() == "--"]


def test_evaluation_by_group_accessor_uses_given_axes(frame):
    _, given = plt.subplots(1, 3)
    axes = frame.scoring.plot.evaluation_by_group(human="sc1", system="raw_trim", by="L1", ax=given)
    assert all(a is b for a, b in zip(axes, given))
    with pytest.raises(pdmetrics.InvalidInputError, match="`ax=` holds 2 Axes but this figure draws 3 panel"):
        frame.scoring.plot.evaluation_by_group(human="sc1", system="raw_trim", by="L1", ax=given[:2])


def test_evaluation_by_group_errors(frame):
    plain = frame.scoring.evaluate(human="sc1", system="raw_trim")
    with pytest.raises(pdmetrics.InvalidInputError, match=r"'by', 'group', 'DSM' \(it has .*by=\)"):
        plots.evaluation_by_group(plain)
    table = frame.scoring.evaluate(human="sc1", system="raw_trim", by="L1")
    with pytest.raises(pdmetrics.InvalidInputError, match=r"lacks the column\(s\) 'QWK' "):
        plots.evaluation_by_group(table, metrics=["QWK"])
    with pytest.raises(pdmetrics.InvalidInputError, match="`by='grade'` is not in the table"):
        plots.evaluation_by_group(table, by="grade")


# ----------------------------------------------------------------------------------------
# score fairness
# ----------------------------------------------------------------------------------------
def error_points(ax):
    """(x, y) of the error-bar markers and the x extent of each interval."""
    (container,) = ax.containers
    marker, _, (bars,) = container.lines
    segments = np.array([segment[:, 0] for segment in bars.get_segments()])
    return marker.get_xdata(), marker.get_ydata(), segments


def test_score_fairness_error_estimates_as_rsmtool(frame):
    table = pdmetrics.fairness.score_fairness_estimates(frame, human="sc1", system="raw_trim", by="L1")
    before = table.copy()
    axes = plots.score_fairness(table)
    assert axes.shape == (3,)
    assert [ax.get_title().splitlines()[0] for ax in axes] == [
        "Overall score accuracy",
        "Overall score difference",
        "Conditional score difference",
    ]
    for ax, model in zip(axes, ("osa", "osd", "csd")):
        rows = table[table["model"] == model]
        intercept = rows["estimate"].iloc[0]
        shift = np.where(rows["term"] == "Intercept", 0.0, intercept)
        x, y, segments = error_points(ax)
        np.testing.assert_allclose(x, rows["estimate"] + shift)
        np.testing.assert_allclose(segments[:, 0], rows["[0.025"] + shift)
        np.testing.assert_allclose(segments[:, 1], rows["0.975]"] + shift)
        np.testing.assert_array_equal(y, np.arange(len(rows)))
        labels = tick_texts(ax.get_yticklabels())
        assert labels[0] == f"{rows['group'].iloc[0]} (reference)"
        assert labels[1:] == list(rows["group"].iloc[1:])
        assert [line.get_xdata()[0] for line in ax.lines if line.get_linestyle() == "--"] == [0.0]
    pd.testing.assert_frame_equal(table, before)


def test_score_fairness_differences_from_the_accessor(frame):
    axes = frame.scoring.plot.score_fairness(human="sc1", system="raw_trim", by="L1", estimate="difference")
    table = frame.fairness.score_fairness_estimates(human="sc1", system="raw_trim", by="L1")
    rows = table[(table["model"] == "osd") & (table["term"] != "Intercept")]
    x, _, segments = error_points(axes[1])
    np.testing.assert_allclose(x, rows["estimate"])
    np.testing.assert_allclose(segments, rows[["[0.025", "0.975]"]].to_numpy())
    assert tick_texts(axes[1].get_yticklabels()) == list(rows["group"])
    assert axes[1].get_xlabel() == "Difference from reference"


def test_score_fairness_errors(frame):
    table = frame.fairness.score_fairness(human="sc1", system="raw_trim", by="L1")
    with pytest.raises(pdmetrics.InvalidInputError, match="score_fairness_estimates"):
        plots.score_fairness(table)
    estimates = frame.fairness.score_fairness_estimates(human="sc1", system="raw_trim", by="L1")
    with pytest.raises(pdmetrics.InvalidInputError, match="`estimate='ci'` is not an option"):
        plots.score_fairness(estimates, estimate="ci")


# ----------------------------------------------------------------------------------------
# true score
# ----------------------------------------------------------------------------------------
def test_true_score_bars_and_human_reference_line(frame):
    table = frame.scoring.true_score(system=["raw", "raw_trim", "raw_trim_round"], raters=["sc1", "sc2"])
    before = table.copy()
    ax = plots.true_score(table)
    assert len(ax.patches) == 3
    np.testing.assert_allclose(bar_heights(ax, "PRMSE (true score)"), table["PRMSE true"])
    assert tick_texts(ax.get_xticklabels()) == ["raw", "raw_trim", "raw_trim_round"]
    (line,) = [line for line in ax.lines if line.get_label() == "one human rater"]
    true_var, error_var = table["True score var"].iloc[0], table["Variance of errors"].iloc[0]
    assert line.get_ydata()[0] == pytest.approx(true_var / (true_var + error_var))
    assert ax.get_ylim() == (0.0, 1.0)
    pd.testing.assert_frame_equal(table, before)


def test_true_score_with_r2_and_given_axes(frame):
    table = frame.scoring.true_score(system=["raw", "raw_trim_round"], raters=["sc1", "sc2"])
    evaluation = frame.scoring.evaluate(human="sc1", system=["raw", "raw_trim_round"])
    merged = table.merge(evaluation[["system", "R2"]], on="system")
    _, given = plt.subplots()
    ax = plots.true_score(merged, ax=given)
    assert ax is given and len(ax.patches) == 4
    np.testing.assert_allclose(bar_heights(ax, "R2 (observed score)"), evaluation["R2"])
    ax = frame.scoring.plot.true_score(system="raw", raters=["sc1", "sc2"])
    assert len(ax.patches) == 1
    with pytest.raises(pdmetrics.InvalidInputError, match=r"'PRMSE true' \(it has .*true_score"):
        plots.true_score(table.drop(columns="PRMSE true"))


# ----------------------------------------------------------------------------------------
# Attali (2007) Figure 1
# ----------------------------------------------------------------------------------------
def test_scaling_standard_error_is_the_papers_figure_1():
    table = scaling_precision_table()
    before = table.copy()
    ax = plots.scaling_standard_error(table)
    assert len(ax.lines) == 6
    assert tick_texts(ax.get_legend().get_texts()) == ["N=1", "N=2", "N=5", "N=10", "N=20", "N=50"]
    for line, n in zip(ax.lines, (1, 2, 5, 10, 20, 50)):
        rows = table[table["n"] == n]
        np.testing.assert_array_equal(line.get_xdata(), np.arange(1, 11))
        np.testing.assert_allclose(line.get_ydata(), rows["se_pp"])
    # the paper's quoted value: 20 essays and 5 raters give 0.06
    assert ax.lines[4].get_ydata()[4] == pytest.approx(0.06, abs=0.005)
    assert ax.get_xlabel() == "Raters (K)"
    pd.testing.assert_frame_equal(table, before)
    _, given = plt.subplots()
    assert plots.scaling_standard_error(table, value="se_ep", ax=given) is given
    with pytest.raises(pdmetrics.InvalidInputError, match=r"'se_xx' \(it has .*scaling_precision_table"):
        plots.scaling_standard_error(table, value="se_xx")


# ----------------------------------------------------------------------------------------
# inter-rater agreement
# ----------------------------------------------------------------------------------------
def test_agreement_heatmap_draws_each_pairs_kappa_once_per_cell(frame):
    raters = ["sc1", "sc2", "raw_trim_round"]
    table = frame.scoring.agreement(raters=raters, level="ordinal", n_resamples=0)
    before = table.copy()
    ax = plots.agreement(table, statistic="cohen_kappa_quadratic")
    pairs = table[table["statistic"] == "cohen_kappa_quadratic"].set_index("raters")["value"]
    expected = np.eye(3)
    for (i, a), (j, b) in [
        ((0, "sc1"), (1, "sc2")),
        ((0, "sc1"), (2, "raw_trim_round")),
        ((1, "sc2"), (2, "raw_trim_round")),
    ]:
        expected[i, j] = expected[j, i] = pairs[f"{a} vs {b}"]
    np.testing.assert_allclose(ax.images[0].get_array(), expected)
    assert [t.get_text() for t in ax.texts] == [f"{v:.2f}" for v in expected.ravel()]
    assert tick_texts(ax.get_xticklabels()) == raters == tick_texts(ax.get_yticklabels())
    pd.testing.assert_frame_equal(table, before)


def test_agreement_heatmap_of_a_group_and_through_the_namespace(frame):
    raters = ["sc1", "sc2"]
    table = frame.scoring.agreement(raters=raters, by="grade", n_resamples=0)
    ax = plots.agreement(table, group="g9")
    kappa = table[(table["group"] == "g9") & (table["statistic"] == "cohen_kappa")]["value"].iloc[0]
    np.testing.assert_allclose(ax.images[0].get_array(), [[1, kappa], [kappa, 1]])
    _, given = plt.subplots()
    assert frame.scoring.plot.agreement(raters=raters, by="grade", group="g9", ax=given) is given
    np.testing.assert_allclose(given.images[0].get_array(), [[1, kappa], [kappa, 1]])
    with pytest.raises(pdmetrics.InvalidInputError, match="`group='g8'` is not in the table's 'group'"):
        plots.agreement(table, group="g8")
    with pytest.raises(pdmetrics.InvalidInputError, match="no 'cohen_kappa_linear' rows"):
        plots.agreement(table, statistic="cohen_kappa_linear")
    with pytest.raises(pdmetrics.InvalidInputError, match="not a pairwise statistic"):
        plots.agreement(table, statistic="fleiss_kappa")


# ----------------------------------------------------------------------------------------
# the plot namespace and the optional dependency
# ----------------------------------------------------------------------------------------
def test_plot_namespace_methods_match_the_drawing_functions(frame):
    namespace = frame.scoring.plot
    assert isinstance(namespace, plots.ScoringPlots)
    methods = {name for name in dir(namespace) if not name.startswith("_")}
    assert methods == {
        "score_distribution",
        "confusion_matrix",
        "evaluation_by_group",
        "score_fairness",
        "true_score",
        "agreement",
        "compare",  # the forest plot of every accessor (pdmetrics.plotting.comparison.compare)
    }
    assert methods - {"compare"} <= set(plots.__all__)
    with pytest.raises(pdmetrics.ColumnNotFoundError, match="`human='nope'`"):
        namespace.score_distribution(human="nope", system="raw")


def test_missing_matplotlib_names_the_plot_extra(frame, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    table = frame.scoring.score_distribution(human="sc1", system="raw_trim_round")
    with pytest.raises(pdmetrics.MissingDependencyError, match=r'pip install "pdmetrics\[plot\]"'):
        plots.score_distribution(table)
    with pytest.raises(pdmetrics.MissingDependencyError, match="matplotlib"):
        frame.scoring.plot.true_score(system="raw", raters=["sc1", "sc2"])
