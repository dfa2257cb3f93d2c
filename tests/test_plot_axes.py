"""The helpers every figure shares (pdmetrics.plotting.axes), and the API pages listing every figure."""

import importlib
import pathlib
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from pdmetrics.errors import InvalidInputError  # noqa: E402
from pdmetrics.plotting.axes import axes_for, check_table, choose, panel_axes  # noqa: E402

API = pathlib.Path(__file__).resolve().parents[1] / "docs" / "api"


def test_check_table_names_the_argument_the_missing_columns_the_columns_and_the_call():
    table = pd.DataFrame({"label": ["a"], "AP": [0.5]})
    check_table(table, ["label", "AP"], "`df.detection.average_precision(...)`")
    with pytest.raises(
        InvalidInputError,
        match=r"`rates=` lacks the column\(s\) 'N', 'TP' \(it has 'label', 'AP'\): "
        r"pass the table that `df.fairness.by_group\(...\)` returns\.",
    ):
        check_table(table, ["label", "N", "TP"], "`df.fairness.by_group(...)`", argument="rates")
    with pytest.raises(
        InvalidInputError, match=r"`table=` must be the DataFrame that `f\(\)` returns; got a dict"
    ):
        check_table({"label": ["a"]}, ["label"], "`f()`")
    many = pd.DataFrame({f"c{i}": [0] for i in range(30)})
    with pytest.raises(InvalidInputError, match=r"\.\.\. \(30 in all\)"):
        check_table(many, ["x"], "`f()`")


def test_choose_finds_the_table_value_or_the_default_or_the_only_one():
    table = pd.DataFrame({"iou": [0.5, 0.75, 0.8999999999999999], "system": ["raw"] * 3})
    assert choose(table, "iou", 0.9, "iou_thresholds") == 0.8999999999999999
    assert choose(table, "iou", None, "iou_thresholds", default=0.75) == 0.75
    assert choose(table, "iou", None, "iou_thresholds", default=0.3) == 0.5  # else the first
    assert choose(table, "system", None, "system", only=True) == "raw"
    with pytest.raises(
        InvalidInputError, match=r"`iou_thresholds=0.42` is not in the table's 'iou' column; pass"
    ):
        choose(table, "iou", 0.42, "iou_thresholds")
    with pytest.raises(InvalidInputError, match=r"several iou values \(0.5, 0.75, 0.9"):
        choose(table, "iou", None, "iou", only=True)
    with pytest.raises(InvalidInputError, match="has no 'iou' value to draw"):
        choose(table.iloc[:0], "iou", None, "iou")


def test_panel_axes_makes_a_grid_or_checks_the_given_axes():
    axes = panel_axes(None, 4, ncols=3, panel_size=(2.0, 1.5))
    assert axes.shape == (4,)
    figure = axes[0].figure
    assert [a.get_visible() for a in figure.axes] == [True] * 4 + [False] * 2
    assert tuple(figure.get_size_inches()) == (6.0, 3.0)
    assert figure.get_layout_engine() is not None
    _, given = plt.subplots(1, 2)
    assert all(a is b for a, b in zip(panel_axes(given, 2), given))
    with pytest.raises(
        InvalidInputError, match=r"`ax=` holds 2 Axes but this figure draws 3 panel\(s\): pass 3"
    ):
        panel_axes(given, 3)
    _, ax = plt.subplots()
    assert axes_for(ax) is ax
    assert axes_for(None, (3.0, 2.0)).figure.get_size_inches().tolist() == [3.0, 2.0]


@pytest.mark.parametrize("module", ["axes", "scoring", "fairness", "detection"])
def test_every_public_plotting_name_is_in_the_api_pages(module):
    text = "".join(page.read_text(encoding="utf-8") for page in API.glob("*.rst"))
    names = importlib.import_module(f"pdmetrics.plotting.{module}").__all__
    missing = [
        name for name in names if not re.search(rf"^\s+(\.\. \w+:: )?{name}$", text, flags=re.MULTILINE)
    ]
    assert not missing, f"pdmetrics.plotting.{module}: {missing} not listed in docs/api/*.rst"
