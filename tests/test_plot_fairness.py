"""Fairness figures: what is drawn equals the table (bars, intervals, pooled line, bands)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.container import BarContainer  # noqa: E402

import pdmetrics  # noqa: E402, F401
from pdmetrics import InvalidInputError  # noqa: E402
from pdmetrics.fairness import by_group as by_group_table  # noqa: E402
from pdmetrics.fairness import classification as classification_table  # noqa: E402
from pdmetrics.fairness import group_disparity as group_disparity_table  # noqa: E402
from pdmetrics.plotting import fairness as plots  # noqa: E402


@pytest.fixture
def frame() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    n = 3000
    sex = rng.choice(["F", "M"], n, p=[0.45, 0.55])
    region = rng.choice(["north", "south", "west"], n)
    y = (rng.random(n) < 0.5).astype(int)
    score = y + rng.normal(0, 0.8, n) - 0.5 * (sex == "F") + 0.2 * (region == "west")
    return pd.DataFrame({"y": y, "pred": (score > 0.5).astype(int), "sex": sex, "region": region})


def _containers(ax) -> list:
    return [container for container in ax.containers if isinstance(container, BarContainer)]


def _bars(ax, container: int = 0) -> list:
    return list(_containers(ax)[container].patches)


def _band(ax) -> tuple[float, float]:
    (band,) = [patch for patch in ax.patches if patch.get_gid() == "band"]
    return band.get_y(), band.get_y() + band.get_height()


def _pooled(ax) -> float:
    (line,) = [line for line in ax.get_lines() if line.get_label() == "(all)"]
    return float(line.get_ydata()[0])


def test_by_group_bars_pooled_line_and_four_fifths_band(frame):
    table = by_group_table(frame, y_true="y", y_pred="pred", by="sex")
    before = table.copy()
    ax = plots.by_group(table)
    heights = [bar.get_height() for bar in _bars(ax)]
    np.testing.assert_allclose(heights, table["selection_rate"], rtol=1e-12)
    assert [label.get_text() for label in ax.get_xticklabels()] == ["F", "M"]
    assert ax.get_title() == "selection_rate" and ax.get_xlabel() == "sex"
    pooled = (table["TP"] + table["FP"]).sum() / table["N"].sum()
    assert _pooled(ax) == pytest.approx(pooled, rel=1e-12)
    assert _band(ax) == pytest.approx((0.8 * pooled, 1.25 * pooled), rel=1e-12)
    low, high = _band(ax)
    outside = [not low <= value <= high for value in table["selection_rate"]]
    red = matplotlib.colors.to_rgba("C3")
    assert [bar.get_facecolor() == red for bar in _bars(ax)] == outside
    assert _containers(ax)[0].errorbar is None  # no bootstrap: no error bars
    pd.testing.assert_frame_equal(table, before)


def test_by_group_error_bars_are_the_bootstrap_intervals(frame):
    table = by_group_table(frame, y_true="y", y_pred="pred", by="sex", n_resamples=200, random_state=0)
    ax = plots.by_group(table, metrics="tpr")
    segments = _containers(ax)[0].errorbar.lines[2][0].get_segments()
    np.testing.assert_allclose([segment[0][1] for segment in segments], table["tpr_low"], rtol=1e-12)
    np.testing.assert_allclose([segment[1][1] for segment in segments], table["tpr_high"], rtol=1e-12)


def test_by_group_grid_one_panel_per_metric_on_given_axes(frame):
    table = by_group_table(frame, y_true="y", y_pred="pred", by=["sex", "region"])
    metrics = ["selection_rate", "tpr", "fpr", "precision"]
    axes = plots.by_group(table, metrics=metrics)
    assert isinstance(axes, np.ndarray) and len(axes) == 4
    assert [ax.get_title() for ax in axes] == metrics
    assert axes[0].get_xticklabels()[0].get_text() == "F, north"
    for ax, metric in zip(axes, metrics):
        np.testing.assert_allclose([bar.get_height() for bar in _bars(ax)], table[metric], rtol=1e-12)
    _, given = plt.subplots(1, 2)
    returned = plots.by_group(table, metrics=["tpr", "fpr"], ax=given)
    assert list(returned) == list(given)
    with pytest.raises(InvalidInputError, match="`ax=` holds 2 Axes but this figure draws 3 panel"):
        plots.by_group(table, metrics=["tpr", "fpr", "tnr"], ax=given)


def test_by_group_reference_group_and_difference_band(frame):
    table = by_group_table(frame, y_true="y", y_pred="pred", by="sex")
    _, ax = plt.subplots()
    assert plots.by_group(table, reference="M", band=0.05, ax=ax) is ax
    male = float(table.loc[table["sex"] == "M", "selection_rate"].iloc[0])
    assert _band(ax) == pytest.approx((male - 0.05, male + 0.05), rel=1e-12)
    no_band = plots.by_group(table, band=None)
    assert not [patch for patch in no_band.patches if patch.get_gid() == "band"]
    with pytest.raises(
        InvalidInputError, match=r"`reference='X'` is not a group of the table; its groups are 'F', 'M'"
    ):
        plots.by_group(table, reference="X")
    with pytest.raises(InvalidInputError, match=r"`band=\(1.2, 0.8\)`"):
        plots.by_group(table, band=(1.2, 0.8))
    with pytest.raises(InvalidInputError, match="`band=-0.1`: pass a positive tolerance"):
        plots.by_group(table, band=-0.1)
    with pytest.raises(InvalidInputError, match="`metrics='auc'`: choose one or more of 'selection_rate'"):
        plots.by_group(table, metrics="auc")


def test_classification_bars_start_at_the_fair_value_and_flag_values_outside_the_band(frame):
    table = classification_table(
        frame, y_true="y", y_pred="pred", by=["sex", "region"], privileged={"sex": "M", "region": "west"}
    )
    before = table.copy()
    ax = plots.classification(table)
    metrics = list(pdmetrics.fairness.parity.FAIRNESS_METRICS)
    assert [label.get_text() for label in ax.get_yticklabels()] == metrics
    assert len(_containers(ax)) == len(table) == 3
    assert [container.get_label() for container in _containers(ax)] == ["sex", "region", "(all)"]
    fair = np.array([1.0 if name == "disparate_impact" else 0.0 for name in metrics])
    for container, (_, row) in zip(_containers(ax), table.iterrows()):
        lefts = np.array([bar.get_x() for bar in container.patches])
        ends = lefts + np.array([bar.get_width() for bar in container.patches])
        np.testing.assert_array_equal(lefts, fair)
        np.testing.assert_allclose(ends, row[metrics].to_numpy(dtype=float), rtol=1e-12)
        values = row[metrics].to_numpy(dtype=float)
        outside = np.where(fair == 1, (values < 0.8) | (values > 1.25), np.abs(values) > 0.1)
        assert [bar.get_hatch() == "//" for bar in container.patches] == outside.tolist()
    assert any(bar.get_hatch() == "//" for bar in _containers(ax)[0].patches)  # the sex bias shows
    fair_lines = [line for line in ax.get_lines() if line.get_gid() == "fair"]
    assert [line.get_xdata()[0] for line in fair_lines] == fair.tolist()
    bands = [collection for collection in ax.collections if collection.get_gid() == "band"]
    extents = [
        (path.vertices[:, 0].min(), path.vertices[:, 0].max()) for band in bands for path in band.get_paths()
    ]
    assert extents == [(0.8, 1.25) if name == "disparate_impact" else (-0.1, 0.1) for name in metrics]
    pd.testing.assert_frame_equal(table, before)


def test_classification_options_intervals_and_infinite_ratio():
    y = [1, 0, 1, 0, 1, 0, 1, 0]
    pred = [0, 0, 0, 0, 1, 1, 0, 1]
    male = [1, 1, 1, 1, 0, 0, 0, 0]
    labels = pd.DataFrame({"y": y, "pred": pred, "male": male})
    table = classification_table(labels, y_true="y", y_pred="pred", by="male", n_resamples=50, random_state=0)
    ax = plots.classification(
        table, metrics=["disparate_impact", "statistical_parity_difference"], ratio_band=None
    )
    assert [text.get_text() for text in ax.texts] == [" inf", " inf"]  # no privileged selection
    assert not [
        c for c in ax.collections if c.get_gid() == "band" and c.get_paths()[0].vertices[:, 0].max() > 1
    ]
    spd = _containers(ax)[0].patches[1]
    assert spd.get_x() + spd.get_width() == pytest.approx(
        float(table["statistical_parity_difference"].iloc[0])
    )
    assert _containers(ax)[0].errorbar is not None
    with pytest.raises(InvalidInputError, match="`ratio_band=0.8`: pass \\(low, high\\)"):
        plots.classification(table, ratio_band=0.8)
    with pytest.raises(
        InvalidInputError, match="`difference_band=\\(0.1, 0.2\\)`: pass a positive tolerance"
    ):
        plots.classification(table, difference_band=(0.1, 0.2))


def test_group_disparity_differences_and_ratios(frame):
    table = group_disparity_table(
        frame, y_true="y", y_pred="pred", by="region", n_resamples=100, random_state=1
    )
    difference, ratio = plots.group_disparity(table, metrics=["selection_rate", "tpr", "fpr"])
    rows = table.set_index("metric").loc[["selection_rate", "tpr", "fpr"]]
    np.testing.assert_allclose([bar.get_width() for bar in _bars(difference)], rows["difference"], rtol=1e-12)
    ends = [bar.get_x() + bar.get_width() for bar in _bars(ratio)]
    np.testing.assert_allclose(ends, rows["ratio"], rtol=1e-12)
    assert [label.get_text() for label in difference.get_yticklabels()] == ["selection_rate", "tpr", "fpr"]
    assert _containers(difference)[0].errorbar is not None
    with pytest.raises(InvalidInputError, match="`metrics=\\['auc'\\]`"):
        plots.group_disparity(table, metrics=["auc"])


def test_accessor_plot_namespace_computes_the_table_and_draws_it(frame):
    before = frame.copy()
    _, ax = plt.subplots()
    assert frame.fairness.plot.by_group(y_true="y", y_pred="pred", by="sex", metrics="tpr", ax=ax) is ax
    table = frame.fairness.by_group(y_true="y", y_pred="pred", by="sex")
    np.testing.assert_allclose([bar.get_height() for bar in _bars(ax)], table["tpr"], rtol=1e-12)
    ax = frame.fairness.plot.classification(y_true="y", y_pred="pred", by="sex", privileged="M")
    assert [container.get_label() for container in _containers(ax)] == ["sex", "(all)"]
    axes = frame.fairness.plot.group_disparity(y_true="y", y_pred="pred", by="region")
    assert len(axes) == 2 and len(_bars(axes[0])) == 8
    pd.testing.assert_frame_equal(frame, before)


@pytest.mark.parametrize(
    ("function", "producer"),
    [
        (plots.by_group, "df.fairness.by_group"),
        (plots.classification, "df.fairness.classification"),
        (plots.group_disparity, "df.fairness.group_disparity"),
        (plots.inequality, "df.fairness.inequality"),
    ],
)
def test_a_table_without_the_needed_columns_is_refused(function, producer):
    with pytest.raises(InvalidInputError, match=f"`table=` lacks the column.*{producer}"):
        function(pd.DataFrame({"group": ["a"], "value": [1.0]}))
    with pytest.raises(InvalidInputError, match=f"`table=` must be the DataFrame that `{producer}"):
        function([1, 2, 3])


def test_by_group_reference_is_an_intersection_given_as_a_tuple(frame):
    table = by_group_table(frame, y_true="y", y_pred="pred", by=["sex", "region"])
    _, ax = plt.subplots()
    plots.by_group(table, reference=("M", "west"), band=0.05, ax=ax)
    rows = (table["sex"] == "M") & (table["region"] == "west")
    chosen = float(table.loc[rows, "selection_rate"].iloc[0])
    assert _band(ax) == pytest.approx((chosen - 0.05, chosen + 0.05), rel=1e-12)
    for wrong in ("M", ("M", "east"), ("M", "west", "x")):
        with pytest.raises(InvalidInputError, match="is not a group of the table"):
            plots.by_group(table, reference=wrong)


def _scored(frame: pd.DataFrame) -> pd.DataFrame:
    rng = np.random.default_rng(5)
    return frame.assign(p=np.round(np.clip(0.3 + 0.4 * frame["y"] + rng.normal(0, 0.2, len(frame)), 0, 1), 2))


def test_score_cdf_draws_each_groups_ecdf_and_the_pooled_one(frame):
    df = _scored(frame)
    table = df.fairness.score_distributions(score="p", by="sex", table="cdf")
    ax = plots.score_cdf(table)
    lines = ax.get_lines()
    sizes = df["sex"].value_counts()
    assert [line.get_label() for line in lines] == [f"F (n={sizes['F']})", f"M (n={sizes['M']})", "(all)"]
    for line, group in zip(lines, ["F", "M"]):
        values = np.sort(df.loc[df["sex"] == group, "p"].to_numpy())
        x, y = line.get_xdata()[1:], line.get_ydata()[1:]  # after the leading 0
        np.testing.assert_array_equal(x, np.unique(values))
        np.testing.assert_allclose(y, np.searchsorted(values, x, side="right") / values.size, rtol=1e-12)
        assert line.get_ydata()[0] == 0 and line.get_drawstyle() == "steps-post"
    assert lines[2].get_linestyle() == "--"
    axes = df.fairness.plot.score_distributions(score="p", by=["sex", "region"])
    assert len(axes) == 2 and [a.get_title() for a in axes] == [
        "score distribution by sex",
        "score distribution by region",
    ]
    assert len(axes[1].get_lines()) == 4


def test_reliability_draws_the_non_empty_bins_and_the_diagonal(frame):
    df = _scored(frame)
    curve = df.fairness.score_distributions(score="p", by="sex", y_true="y", n_bins=5, table="reliability")
    _, ax = plt.subplots()
    assert (
        df.fairness.plot.score_distributions(
            score="p", by="sex", y_true="y", n_bins=5, kind="reliability", ax=ax
        )
        is ax
    )
    lines = ax.get_lines()
    assert [line.get_label() for line in lines[:3]] == ["F", "M", "(all)"]
    for line, group in zip(lines, ["F", "M"]):
        rows = curve[(curve["group"] == group) & (curve["N"] > 0)]
        np.testing.assert_allclose(line.get_xdata(), rows["score_mean"], rtol=1e-12)
        np.testing.assert_allclose(line.get_ydata(), rows["observed_rate"], rtol=1e-12)
    assert lines[3].get_gid() == "diagonal" and list(lines[3].get_xdata()) == [0, 1]
    with pytest.raises(InvalidInputError, match="kind='pdf'"):
        df.fairness.plot.score_distributions(score="p", by="sex", kind="pdf")
    with pytest.raises(InvalidInputError, match="`table=` lacks the column"):
        plots.reliability(curve.drop(columns="observed_rate"))


def test_inequality_draws_each_groups_share_of_the_between_and_within_terms(frame):
    table = frame.fairness.inequality(y_true="y", y_pred="pred", by=["sex", "region"], alpha=3)
    ax = frame.fairness.plot.inequality(y_true="y", y_pred="pred", by=["sex", "region"], alpha=3)
    between, within = _bars(ax, 0), _bars(ax, 1)
    assert len(between) == len(within) == len(table) == 7
    np.testing.assert_allclose(
        [bar.get_width() for bar in between], table["between_group_generalized_entropy"], rtol=1e-12
    )
    np.testing.assert_allclose(
        [bar.get_width() for bar in within], table["within_group_generalized_entropy"], rtol=1e-12
    )
    labels = [label.get_text() for label in ax.get_yticklabels()]
    assert labels[0] == "F, north" and labels[-1] == "(all)"
    assert ax.get_title() == "generalized_entropy (alpha=3): shares by group"
    _, theil = plt.subplots()
    assert plots.inequality(table, index="theil_index", ax=theil) is theil
    np.testing.assert_allclose(
        [bar.get_width() for bar in _bars(theil)], table["between_group_theil_index"], rtol=1e-12
    )
    with pytest.raises(InvalidInputError, match="`index='cv'`"):
        plots.inequality(table, index="cv")
    without_groups = frame.fairness.inequality(y_true="y", y_pred="pred")
    with pytest.raises(InvalidInputError, match="`table=` lacks the column.*by="):
        plots.inequality(without_groups)
    with pytest.raises(InvalidInputError, match=r"draws each group's share, so it needs `by=`"):
        frame.fairness.plot.inequality(y_true="y", y_pred="pred")


def test_class_gaps_heatmap_is_the_table_centred_on_parity():
    rng = np.random.default_rng(4)
    n = 900
    frame = pd.DataFrame(
        {
            "y": rng.choice(["lo", "mid", "hi"], n),
            "pred": rng.choice(["lo", "mid", "hi"], n),
            "sex": rng.choice(["F", "M"], n),
            "age": rng.integers(18, 80, n),
        }
    )
    table = classification_table(
        frame,
        y_true="y",
        y_pred="pred",
        by=["sex", "age"],
        privileged={"sex": "M"},
        threshold={"age": 40},
        classes="all",
        ordinal=False,
    )
    before = table.copy()
    ax = plots.class_gaps(table)
    pd.testing.assert_frame_equal(table, before)
    (image,) = ax.images
    drawn = np.asarray(image.get_array(), dtype=float)
    expected = table[table["class"] != "macro"].pivot(
        index="by", columns="class", values="statistical_parity_difference"
    )
    expected = expected.reindex(index=["sex", "age", "(all)"], columns=["hi", "lo", "mid"])
    np.testing.assert_allclose(drawn, expected.to_numpy(float), rtol=1e-12)
    assert [label.get_text() for label in ax.get_yticklabels()] == ["sex", "age", "(all)"]
    assert image.norm(0.0) == pytest.approx(0.5) and image.norm.vmin == -image.norm.vmax
    assert image.cmap.name == "RdBu_r"
    ax = frame.fairness.plot.class_gaps(
        y_true="y", y_pred="pred", by="sex", privileged="M", metric="disparate_impact"
    )
    assert ax.images[0].norm(1.0) == pytest.approx(0.5)
    assert ax.images[0].norm(0.5) == pytest.approx(1 - ax.images[0].norm(2.0))
    plt.close("all")
    with pytest.raises(InvalidInputError, match="class"):
        plots.class_gaps(
            classification_table(
                frame.assign(y=frame["y"] == "hi", pred=frame["pred"] == "hi"),
                y_true="y",
                y_pred="pred",
                by="sex",
                pos_label=True,
                privileged="M",
            )
        )
    with pytest.raises(InvalidInputError, match="metric"):
        plots.class_gaps(table, metric="tpr")


def test_gap_tests_forest_plot_draws_each_difference_and_interval(frame):
    from matplotlib.container import ErrorbarContainer

    table = frame.fairness.gap_tests(y_true="y", y_pred="pred", by="region", privileged="north")
    axes = plots.gap_tests(table)
    assert [panel.get_title() for panel in axes] == ["selection_rate", "tpr", "fpr", "precision"]
    for panel, metric in zip(axes, ["selection_rate", "tpr", "fpr", "precision"]):
        rows = table[table["metric"] == metric]
        drawn = {}
        for container in panel.containers:
            assert isinstance(container, ErrorbarContainer)
            line, _, (bars,) = container
            colour = "C3" if container.get_label() == "significant" else "C0"
            assert matplotlib.colors.same_color(line.get_color(), colour)
            for x, segment in zip(line.get_xdata(), bars.get_segments()):
                drawn[round(float(x), 12)] = (segment[0][0], segment[1][0], container.get_label())
        assert len(drawn) == len(rows)
        for row in rows.itertuples():
            low, high, label = drawn[round(row.difference, 12)]
            assert (low, high) == pytest.approx((row.ci_low, row.ci_high), rel=1e-12)
            assert label == ("significant" if row.reject else "not significant")
        assert [t.get_text() for t in panel.get_yticklabels()] == ["south", "west"]
        assert panel.get_xlabel() == "difference to north"
    assert "significant" in {c.get_label() for panel in axes for c in panel.containers}


def test_gap_tests_through_the_accessor_and_a_bad_table(frame):
    _, ax = plt.subplots()
    drawn = frame.fairness.plot.gap_tests(y_true="y", y_pred="pred", by="sex", metrics="tpr", ax=ax)
    assert drawn is ax and ax.get_title() == "tpr"
    with pytest.raises(InvalidInputError, match="`table=` lacks the column.*df.fairness.gap_tests"):
        plots.gap_tests(pd.DataFrame({"group": ["a"], "value": [1.0]}))
    table = frame.fairness.gap_tests(y_true="y", y_pred="pred", by="sex")
    with pytest.raises(InvalidInputError, match="metrics"):
        plots.gap_tests(table, metrics="auc")


def test_class_gaps_annotates_an_infinite_disparate_impact():
    """A class the privileged group is never given has an infinite disparate impact: its cell
    was drawn without text though every cell is annotated."""
    frame = pd.DataFrame(
        {
            "y": ["a", "b", "c"] * 4,
            "pred": ["a", "b", "a", "a", "c", "c"] * 2,
            "sex": ["M"] * 3 + ["F"] * 3 + ["M"] * 3 + ["F"] * 3,
        }
    )
    table = frame.fairness.classification(y_true="y", y_pred="pred", by="sex", privileged="M", classes="all")
    assert np.isinf(table.loc[(table["by"] == "sex") & (table["class"] == "c"), "disparate_impact"]).all()
    ax = plots.class_gaps(table, metric="disparate_impact")
    assert sorted(text.get_text() for text in ax.texts).count("inf") == 2  # the sex row and (all)
    plt.close("all")
