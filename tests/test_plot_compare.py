"""The forest plot of every ``compare`` table (``df.<accessor>.plot.compare``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import pdmetrics  # noqa: E402
from pdmetrics.errors import InvalidInputError  # noqa: E402
from pdmetrics.plotting.comparison import compare  # noqa: E402


@pytest.fixture(scope="module")
def scores():
    rng = np.random.default_rng(0)
    human = rng.integers(1, 7, 600).astype(float)
    return pd.DataFrame(
        {
            "sc1": human,
            "old": human + rng.normal(0, 1.0, 600),
            "new": human + rng.normal(0, 0.7, 600),
            "g": rng.choice(["a", "b"], 600),
        }
    )


def test_one_panel_per_metric_one_row_per_pair_and_group(scores):
    table = scores.scoring.compare(human="sc1", system=["old", "new"], by="g", n_resamples=100)
    axes = compare(table, metrics=["corr", "RMSE"])
    assert [a.get_title() for a in axes] == ["corr", "RMSE"]
    labels = [t.get_text() for t in axes[0].get_yticklabels()]
    assert labels == ["(all) · new − old", "a · new − old", "b · new − old"]
    segments = axes[1].collections[0].get_segments()  # the intervals, top row first
    rows = table[table["metric"] == "RMSE"]
    np.testing.assert_allclose([s[0][0] for s in segments], rows["ci_low"])
    np.testing.assert_allclose([s[1][0] for s in segments], rows["ci_high"])


def test_the_tolerance_band_and_the_zero_line(scores):
    axes = scores.scoring.plot.compare(
        human="sc1", system=["old", "new"], metrics="wtkappa", tolerance=0.02, n_resamples=50
    )
    (axis,) = axes
    band = [p for p in axis.patches]
    assert band and np.allclose(band[0].get_x(), -0.02) and np.allclose(band[0].get_width(), 0.04)
    assert any(np.allclose(line.get_xdata(), 0.0) for line in axis.lines)


def test_every_accessor_has_compare_and_its_figure():
    for domain in ("scoring", "fairness", "detection", "textgen"):
        accessor = getattr(pdmetrics.accessors, f"{domain.capitalize()}Accessor")
        assert callable(accessor.compare), domain
        figure = getattr(pd.DataFrame(), domain).plot.compare
        assert figure.__name__ == "compare" and f"pdmetrics.{domain}.comparison" in figure.__doc__, domain


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"metrics": "nope"}, "`metrics='nope'` names no metric"),
        ({"metrics": []}, "names no metric"),
        ({"tolerance": -1}, "`tolerance=` must be a non-negative number"),
        ({"tolerance": {"corr": "x"}}, "got 'x' for 'corr'"),
    ],
)
def test_bad_options_are_refused(scores, kwargs, message):
    table = scores.scoring.compare(human="sc1", system=["old", "new"], n_resamples=20)
    with pytest.raises(InvalidInputError, match=message):
        compare(table, **kwargs)


def test_a_table_that_is_no_comparison_is_refused(scores):
    with pytest.raises(InvalidInputError, match="lacks the column"):
        compare(scores.scoring.evaluate(human="sc1", system="old"))


def test_dask_refuses_the_figure_naming_the_table():
    dd = pytest.importorskip("dask.dataframe")
    ddf = dd.from_pandas(
        pd.DataFrame({"sc1": [1.0, 2.0], "old": [1.0, 2.0], "new": [1.0, 2.0]}), npartitions=1
    )
    with pytest.raises(pdmetrics.NotPartitionableError, match="compare"):
        ddf.scoring.plot.compare(human="sc1", system=["old", "new"])
