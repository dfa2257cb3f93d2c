"""The pages of ``pdmetrics rsmcompare`` and ``pdmetrics rsmsummarize`` opened in a headless
Chromium (tests/browser.py): the evaluation report's browser checks (nothing fetched, nothing
logged, every contents link with its target, the page within the window, no figure label over
another or cut off), and the forest figures and box plots drawn."""

from __future__ import annotations

from pathlib import Path

import browser
import pytest
from test_report_browser import (  # the report's checks, run on these pages too
    test_every_table_of_contents_link_has_its_target,  # noqa: F401
    test_no_figure_text_overlaps_other_text_or_leaves_its_figure,  # noqa: F401
    test_the_page_fits_the_window_width,  # noqa: F401
    test_the_report_fetches_nothing,  # noqa: F401
    test_the_report_logs_no_error_or_warning,  # noqa: F401
)

from pdmetrics.cli import main

CONFIGS = Path(__file__).parent / "data" / "rsmcompare12" / "configs"
PAGES = {
    "rsmcompare": ("compare.json", "old_vs_new_report.html"),
    "rsmcompare-features": ("features_compare.json", "features_old_vs_new_report.html"),
    "rsmsummarize": ("summary.json", "report/three_models_report.html"),
}


@pytest.fixture(scope="module")
def chromium():
    with browser.launch() as started:
        yield started


@pytest.fixture(scope="module", params=list(PAGES))
def page(request, chromium, tmp_path_factory):
    config, written = PAGES[request.param]
    folder = tmp_path_factory.mktemp(request.param)
    assert main([request.param.split("-")[0], str(CONFIGS / config), str(folder)]) == 0
    rendered = chromium.render(folder / written)
    rendered.screenshot(folder / "page.png")  # for a person to look at when a test fails
    return rendered


def test_every_figure_is_drawn_with_its_caption(page):
    figures = page.evaluate(
        "[...document.querySelectorAll('figure.figure')].map(f => {"
        "  const box = f.querySelector('svg').getBoundingClientRect();"
        "  return [f.id, box.width, box.height, f.querySelector('figcaption').innerText.trim(),"
        "          f.querySelectorAll('circle.difference').length,"
        "          f.querySelectorAll('rect.bar').length + f.querySelectorAll('rect.box').length];"
        "})"
    )
    assert figures and all(width > 0 and height > 0 and text for _, width, height, text, _, _ in figures)
    assert all(circles + bars > 0 for *_, circles, bars in figures), figures


def test_the_comparison_page_draws_a_forest_row_per_compared_metric(chromium, tmp_path):
    assert main(["rsmcompare", str(CONFIGS / "compare.json"), str(tmp_path)]) == 0
    page = chromium.render(tmp_path / "old_vs_new_report.html")
    rows = page.evaluate(
        "[...document.querySelectorAll('circle.difference')].map(c => {"
        "  const b = c.getBoundingClientRect(); return [b.width > 0 && b.height > 0, c.dataset.apart]; })"
    )
    assert len(rows) == 8 + 4 * 8 + 3 * 8 and all(visible for visible, _ in rows)
    assert {apart for _, apart in rows} == {"true", "false"}
