"""The HTML report with long subgroup labels and a group of one response, laid out by a real
headless Chromium (tests/browser.py): no label is drawn over another or cut at its figure's
edge, and the small group does not squash the others."""

from __future__ import annotations

import browser
import pytest
import test_report_browser
from test_report_html import long_label_frame


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
