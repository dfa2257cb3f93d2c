"""The HTML report with long subgroup labels and a group of one response, laid out by a real
headless Chromium (tests/browser.py): no label is drawn over another or cut at its figure's
edge, and the small group does not squash the others."""

from __future__ import annotations

import browser
import pytest
import test_report_browser
from test_report_html import hostile_report, long_label_frame


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    folder = tmp_path_factory.mktemp("labels")
    evaluation = long_label_frame().scoring.report(
        human="sc1", system="raw", by=["QUESTION", "L1"], trim_min=1, trim_max=6
    )
    path = evaluation.to_html(folder / "report.html")
    with browser.launch() as chromium:
        rendered = chromium.render(path)
        rendered.screenshot(folder / "report.png", full_page=True)  # to look at when a test fails
        yield rendered


def test_long_labels_neither_overlap_nor_leave_their_figure(page):
    test_report_browser.test_no_figure_text_overlaps_other_text_or_leaves_its_figure(page)


def test_the_page_fits_the_window_width(page):
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


def test_the_real_groups_fill_the_dsm_panel(page):
    """The DSM bars of the real groups span a good part of the panel's height (one response of
    "No info" with a DSM near 5 would leave them a few pixels)."""
    heights = page.evaluate(
        "[...document.querySelectorAll('#fig-eval-by-question rect.bar[data-series=\"DSM\"]')]"
        ".filter(r => r.dataset.category !== 'No info').map(r => r.getBoundingClientRect().height)"
    )
    assert heights and max(heights) > 25, heights


@pytest.fixture(scope="module")
def hostile_page(tmp_path_factory):
    """A 120-character group value without a space, a 45-character group column name, and
    Chinese, emoji and Arabic group labels (test_report_html.hostile_report)."""
    folder = tmp_path_factory.mktemp("hostile")
    path = hostile_report().to_html(folder / "report.html")
    with browser.launch() as chromium:
        rendered = chromium.render(path, width=1280)
        rendered.screenshot(folder / "report.png", full_page=True)  # to look at when a test fails
        yield rendered


def test_hostile_labels_neither_overlap_nor_leave_their_figure(hostile_page):
    # also: side-by-side titles naming a 45-character column neither overprint nor get cut
    test_report_browser.test_no_figure_text_overlaps_other_text_or_leaves_its_figure(hostile_page)


def test_hostile_labels_keep_the_page_within_the_window(hostile_page):
    assert hostile_page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


def test_hostile_labels_keep_every_table_number_in_view(hostile_page):
    """At 1280 px, every number of every table whose columns fit is in view: a long row label
    wraps in a column of limited width instead of pushing the numbers out of the scroll box."""
    tables = hostile_page.evaluate(
        "[...document.querySelectorAll('table.table')].map(t => {"
        "  const box = t.closest('.scroll').getBoundingClientRect();"
        "  const labels = [...t.querySelectorAll('tbody th.label')];"
        "  return {text: t.innerText.slice(0, 60), right: box.right, width: box.width,"
        "    label: Math.max(0, ...labels.map(l => l.getBoundingClientRect().width)),"
        "    long: labels.some(l => l.textContent.length > 40),"
        "    cells: [...t.querySelectorAll('tbody td:not(.label)')]"
        "      .map(c => c.getBoundingClientRect().right)};"
        "})"
    )
    with_long = [t for t in tables if t["long"]]
    assert len(with_long) >= 2, "the responses-by-group and the evaluation-by-group tables"
    for table in with_long:
        # capped (22em at .85rem), well short of the page; and not squeezed to a letter a line in
        # a table too wide for the page (12em at least)
        assert 150 <= table["label"] <= 330, table["text"]
    # the narrow tables (the responses by group: one column of counts) show every number
    narrow = [t for t in with_long if len(t["cells"]) <= 3 * 5]
    assert narrow, "the responses-by-group table"
    for table in narrow:
        assert max(table["cells"]) <= table["right"] + 1, table["text"]


def test_hostile_labels_wrap_inside_the_figure_captions(hostile_page):
    overflowing = hostile_page.evaluate(
        "[...document.querySelectorAll('figure.figure')].filter(f => {"
        "  const frame = f.getBoundingClientRect(), caption = f.querySelector('figcaption');"
        "  const box = caption.getBoundingClientRect();"
        "  return box.right > frame.right + 1 || caption.scrollWidth > caption.clientWidth + 1;"
        "}).map(f => f.id)"
    )
    assert overflowing == []
    # the small group's 120-character name is in a caption, wrapped onto more lines
    assert hostile_page.evaluate(
        "[...document.querySelectorAll('figcaption')].some(c => c.textContent.includes('QUESTION_yyyy'))"
    )
