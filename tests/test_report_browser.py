"""The HTML report opened in a real headless Chromium (tests/browser.py): it fetches nothing, logs
no error or warning, and every section, table-of-contents target and figure is rendered."""

from __future__ import annotations

import re

import browser
import numpy as np
import pytest

from pdmetrics.datasets import simulate_scores
from pdmetrics.errors import ExcludedRowsWarning
from pdmetrics.rsmeval import report

# rsmeval's general_sections (the report's own tests check their order); with a second human,
# subgroups and a training frame every one of them applies
SECTIONS = [
    "data_description",
    "data_description_by_group",
    "consistency",
    "evaluation",
    "evaluation_by_group",
    "fairness_analyses",
    "true_score_evaluation",
    "intermediate_file_paths",
    "sysinfo",
]


def demo_report():
    """A report with every section: second human, two group columns, a training frame to scale
    with, and a few responses rsmeval leaves out (human score 0, system score missing)."""
    frame = simulate_scores(3000, seed=11)
    frame["grade"] = np.random.default_rng(11).choice(["6", "8", "10"], size=len(frame))
    frame.loc[frame.index[:7], "sc1"] = 0
    frame.loc[frame.index[7:12], "raw"] = np.nan
    training = simulate_scores(1000, seed=12)
    with pytest.warns(ExcludedRowsWarning, match="Left out 12 of 3000 rows"):
        return report(
            frame,
            human="sc1",
            system="raw",
            second_human="sc2",
            by=["L1", "grade"],
            trim_min=1,
            trim_max=6,
            scale_with=training,
        )


@pytest.fixture(scope="module")
def evaluation():
    return demo_report()


@pytest.fixture(scope="module")
def page(evaluation, tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    path = evaluation.to_html(folder / "report.html")
    with browser.launch() as chromium:
        rendered = chromium.render(path)
        rendered.screenshot(folder / "report.png")  # for a person to look at when a test fails
        yield rendered


def test_the_report_fetches_nothing(page):
    assert page.requests == [], f"the report requested {page.requests}: it must open offline"


def test_the_report_logs_no_error_or_warning(page):
    logged = [m for m in page.console if m.level in {"error", "warning"}]
    assert logged == []


def sections(page) -> list[list[str]]:
    """``[id, heading]`` of every section of the rendered page, in page order."""
    return page.evaluate(
        "[...document.querySelectorAll('section[id]')].map(s => "
        "[s.id, (s.querySelector('h2') || {innerText: ''}).innerText.trim()])"
    )


def test_every_section_is_rendered_with_its_heading(page):
    found = sections(page)
    assert sorted(section for section, _ in found if section in SECTIONS) == sorted(SECTIONS)
    assert all(heading for _, heading in found), f"sections without an <h2>: {found}"


def test_every_table_of_contents_link_has_its_target(page):
    targets = page.evaluate("[...document.querySelectorAll('nav#toc a')].map(a => a.getAttribute('href'))")
    in_page = [f"#{section}" for section, _ in sections(page)]
    assert [t for t in targets if t in in_page] == in_page, "the contents list the sections in page order"
    missing = page.evaluate(
        "[...document.querySelectorAll('nav#toc a')].map(a => a.getAttribute('href'))"
        ".filter(h => !h.startsWith('#') || !document.getElementById(decodeURIComponent(h.slice(1))))"
    )
    assert missing == [], f"table-of-contents links without a target in the page: {missing}"


def test_every_figure_is_an_inline_svg_with_a_visible_box(page):
    figures = page.evaluate(
        "[...document.querySelectorAll('figure.figure')].map(f => {"
        "  const svg = f.querySelector('svg');"
        "  const box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};"
        "  return {id: f.id, section: (f.closest('section[id]') || {}).id, width: box.width,"
        "          height: box.height, caption: (f.querySelector('figcaption') || {innerText: ''}).innerText,"
        "          marks: svg ? svg.querySelectorAll('rect,path,line,circle,polyline,polygon').length : 0};"
        "})"
    )
    assert figures, "the report has no figure"
    empty = [f for f in figures if not (f["width"] > 0 and f["height"] > 0 and f["marks"] > 0)]
    assert empty == [], f"figures not drawn: {empty}"
    assert all(f["caption"].strip() for f in figures), f"figures without a caption: {figures}"
    with_figures = {f["section"] for f in figures}
    assert {"evaluation_by_group", "fairness_analyses"} <= with_figures
    assert page.evaluate("document.querySelectorAll('svg image, svg use[href^=\"http\"]').length") == 0


def test_the_number_of_responses_shows_as_an_integer(page, evaluation):
    n = evaluation.info["n_used"]
    assert n == 2988  # 3000 minus 7 human scores of 0 and 5 missing system scores
    text = page.evaluate("document.getElementById('data_description').innerText").replace(",", "")
    assert re.search(rf"(?<![\d.]){n}(?![\d.])", text), f"N={n} not shown as an integer: {text[:500]}"
    assert f"{n}.0" not in text


def test_the_page_fits_the_window_width(page):
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


def test_no_figure_text_overlaps_other_text_or_leaves_its_figure(page):
    # what only a browser can tell: the laid-out boxes of every label of every svg
    labels = page.evaluate(
        "[...document.querySelectorAll('figure.figure svg')].map(svg => {"
        "  const frame = svg.getBoundingClientRect();"
        "  return [svg.closest('figure').id, [frame.left, frame.top, frame.right, frame.bottom],"
        "          [...svg.querySelectorAll('text')].filter(t => t.textContent.trim()).map(t => {"
        "            const b = t.getBoundingClientRect();"
        "            return [t.textContent.trim(), [b.left, b.top, b.right, b.bottom]]; })];"
        "})"
    )
    overlapping, outside = [], []
    for figure, frame, texts in labels:
        for i, (text, box) in enumerate(texts):
            if (
                box[0] < frame[0] - 1
                or box[1] < frame[1] - 1
                or box[2] > frame[2] + 1
                or box[3] > frame[3] + 1
            ):
                outside.append((figure, text))
            for other, other_box in texts[i + 1 :]:
                width = min(box[2], other_box[2]) - max(box[0], other_box[0])
                height = min(box[3], other_box[3]) - max(box[1], other_box[1])
                if width > 1 and height > 1:
                    overlapping.append((figure, text, other))
    assert overlapping == [], f"labels drawn over each other: {overlapping}"
    assert outside == [], f"labels cut off at the figure's edge: {outside}"
