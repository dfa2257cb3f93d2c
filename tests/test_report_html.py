"""EvaluationReport.to_html (rsmeval's report as one self-contained page) and _repr_html_."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

import pdmetrics  # noqa: F401  (registers the accessors)
from pdmetrics.datasets import simulate_scores
from pdmetrics.errors import InvalidInputError
from pdmetrics.rsmeval import figures
from pdmetrics.rsmeval import html_page as html_report
from pdmetrics.rsmeval.html_page import report_html
from pdmetrics.scoring.conditional_scores import conditional_means_of_codes

ALL_SECTIONS = list(html_report.SECTIONS)


class Page(HTMLParser):
    """The parts of the report the DOM contract names, read with the stdlib parser."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.stack: list[tuple[str, dict]] = []
        self.sections: list[str] = []
        self.section_h2: dict[str, str] = {}
        self.ids: list[str] = []
        self.toc_links: list[str] = []
        self.figures: dict[str, dict] = {}
        self.tables: list[dict] = []  # {"section", "class", "rows": [[cell text]]}
        self.tags: list[str] = []
        self.bars: list[dict] = []
        self.text: list[str] = []
        self.feed(text)

    def _inside(self, tag, **attrs) -> dict | None:
        for name, values in reversed(self.stack):
            if name == tag and all(values.get(k) == v for k, v in attrs.items()):
                return values
        return None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        if "id" in attrs:
            self.ids.append(attrs["id"])
        if tag == "section":
            self.sections.append(attrs.get("id"))
        if tag == "a" and self._inside("nav", id="toc"):
            self.toc_links.append(attrs.get("href"))
        if tag == "figure":
            self.figures[attrs.get("id")] = {"class": attrs.get("class"), "svg": 0, "caption": ""}
        figure = self._inside("figure")
        if tag == "svg" and figure is not None:
            self.figures[figure["id"]]["svg"] += 1
        if tag == "rect" and attrs.get("class") == "bar":
            self.bars.append({"figure": figure and figure["id"], **attrs})
        if tag == "table":
            self.tables.append({"section": self._section(), "class": attrs.get("class"), "rows": []})
        if tag == "tr" and self.tables:
            self.tables[-1]["rows"].append([])
        if tag in ("td", "th"):
            self.tables[-1]["rows"][-1].append("")
        self.stack.append((tag, {**attrs, "": tag}))  # never empty, so always true

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_endtag(self, tag):
        while self.stack:
            name, _ = self.stack.pop()
            if name == tag:
                break

    def handle_data(self, data):
        self.text.append(data)
        if self._inside("h2") and self._inside("section"):
            self.section_h2[self._section()] = self.section_h2.get(self._section(), "") + data
        if self._inside("figcaption"):
            self.figures[self._inside("figure")["id"]]["caption"] += data
        if self._inside("td") or self._inside("th"):
            if self._inside("table") and self.tables and self.tables[-1]["rows"]:
                self.tables[-1]["rows"][-1][-1] += data

    def _section(self):
        section = self._inside("section")
        return section and section["id"]

    def table_with_header(self, header: list[str]) -> list[list[str]]:
        for table in self.tables:
            if table["rows"] and table["rows"][0][-len(header) :] == header:
                return table["rows"]
        raise AssertionError(f"no table with header {header}")


@pytest.fixture(scope="module")
def frame():
    return simulate_scores(3000, seed=0)


@pytest.fixture(scope="module")
def full(frame):
    return frame.scoring.report(
        human="sc1", system="raw", second_human="sc2", by="L1", trim_min=1, trim_max=6
    )


@pytest.fixture(scope="module")
def page(full):
    return Page(full.to_html())


def test_every_section_has_an_id_a_heading_and_a_toc_link(page):
    assert page.sections == ALL_SECTIONS
    assert set(page.section_h2) == set(ALL_SECTIONS) and all(page.section_h2.values())
    targets = [link[1:] for link in page.toc_links]
    assert all(link.startswith("#") for link in page.toc_links)
    assert [t for t in targets if t in ALL_SECTIONS] == ALL_SECTIONS
    assert len(targets) > len(ALL_SECTIONS)  # subsections too
    assert set(targets) <= set(page.ids)
    assert len(page.ids) == len(set(page.ids))


def test_figures_are_inline_svg_with_captions(page):
    expected = {
        "fig-score-dist",
        "fig-confmatrix",
        "fig-confmatrix-h1h2",
        "fig-eval-by-l1",
        "fig-fairness-l1",
    }
    assert expected | {"fig-conditional-l1"} == set(page.figures)
    for figure in page.figures.values():
        assert figure["class"] == "figure"
        assert figure["svg"] == 1
        assert figure["caption"].strip()
    assert all(table["class"] == "table" for table in page.tables)


def test_nothing_is_fetched(full):
    text = full.to_html()
    assert text.count("<style>") == 1
    for pattern in (
        r"<script",
        r"<link",
        r"<img",
        r"@import",
        r"url\(",
        r"<iframe",
        r"<object",
        r"@font-face",
    ):
        assert not re.search(pattern, text, re.IGNORECASE), pattern
    assert not re.search(r"\ssrc\s*=", text, re.IGNORECASE)
    for href in re.findall(r'href\s*=\s*"([^"]*)"', text):
        assert href.startswith("#") or href.startswith("https://"), href
    assert all(
        href.startswith(("https://rsmtool.readthedocs.io/", "https://aclanthology.org/"))
        for href in re.findall(r'href="(https://[^"]*)"', text)
    )
    assert "http://" not in text


def test_headline_numbers_equal_eval_short(full, page):
    short = full.rsmtool_frames()["eval_short"]
    rows = page.table_with_header(list(short.columns))
    values = dict(zip(rows[0], rows[1]))
    assert values["N"] == str(int(short["N"].iloc[0])) == "3000"
    assert values["corr.raw_trim"] == f"{short['corr.raw_trim'].iloc[0]:.3f}"
    assert values["wtkappa.raw_trim"] == f"{short['wtkappa.raw_trim'].iloc[0]:.3f}"


def test_consistency_and_confusion_numbers(full, page):
    consistency = full.rsmtool_frames()["consistency"]
    rows = page.table_with_header(list(consistency.columns))
    assert rows[1][list(consistency.columns).index("N")] == str(int(consistency["N"].iloc[0]))
    matrix = full.rsmtool_frames()["confMatrix"]
    heat = [
        float(v)
        for v in re.findall(r'class="cell"[^>]*data-value="([^"]*)"', full.to_html(sections=["evaluation"]))
    ]
    assert heat == matrix.to_numpy(dtype=float).ravel().tolist()


def test_score_distribution_bars_are_the_table(full, page):
    dist = full["score_dist"]
    bars = [bar for bar in page.bars if bar["figure"] == "fig-score-dist"]
    human = [float(bar["data-value"]) for bar in bars if bar["data-series"] == "human"]
    system = [float(bar["data-value"]) for bar in bars if bar["data-series"] == "system"]
    assert human == dist["human"].tolist()
    assert system == dist["sys"].tolist()
    assert [bar["data-category"] for bar in bars if bar["data-series"] == "human"] == [
        str(v) for v in dist["score"]
    ]


def test_metric_grid_shows_each_group_with_all_data_first(full, page):
    bars = [bar for bar in page.bars if bar["figure"] == "fig-eval-by-l1"]
    assert len(bars) == 6 * 5  # six panels, All data + four groups
    corr = [bar for bar in bars if bar["data-series"] == "corr"][:5]
    assert [bar["data-category"] for bar in corr] == ["All data", "Arabic", "Hindi", "Mandarin", "Spanish"]
    table = full["eval_by_L1"]
    expected = table.loc[table["system"] == "raw_trim", "corr"].tolist()
    assert [float(bar["data-value"]) for bar in corr] == expected


def test_highlighting_follows_rsmtool(frame):
    shifted = frame.assign(raw=frame["raw"] + 0.5)  # SMD well above 0.15
    text = shifted.scoring.report(human="sc1", system="raw", trim_min=1, trim_max=6).to_html(
        sections=["evaluation"]
    )
    smd = shifted.scoring.report(human="sc1", system="raw", trim_min=1, trim_max=6)["eval_short"]
    assert f'<span class="highlight">{smd["SMD.raw_trim"].iloc[0]:.3f}</span>' in text
    assert (
        html_report.table_html(pd.DataFrame({"SMD": [0.1]}), highlight={"SMD": (-0.15, 0.15, False)}).count(
            "highlight"
        )
        == 0
    )


def test_sections_order_and_errors(full, frame):
    order = ["sysinfo", "evaluation", "data_description"]
    assert Page(full.to_html(sections=order)).sections == order
    with pytest.raises(InvalidInputError, match="unknown section 'evaluations'.*data_description, "):
        full.to_html(sections=["evaluations"])
    with pytest.raises(InvalidInputError, match="twice"):
        full.to_html(sections=["sysinfo", "sysinfo"])
    single = frame.scoring.report(human="sc1", system="raw", trim_min=1, trim_max=6)
    with pytest.raises(InvalidInputError, match="no consistency section because.*second_human"):
        single.to_html(sections=["consistency"])
    with pytest.raises(InvalidInputError, match="no evaluation_by_group section because.*by="):
        single.to_html(sections=["evaluation", "evaluation_by_group"])
    with pytest.raises(InvalidInputError, match="true_score_evaluation.*rater_error_variance"):
        single.to_html(sections=["true_score_evaluation"])


def test_default_sections_leave_out_what_does_not_apply(frame):
    single = frame.scoring.report(human="sc1", system="raw", trim_min=1, trim_max=6)
    page = Page(single.to_html())
    assert page.sections == [
        "data_description",
        "evaluation",
        "intermediate_file_paths",
        "sysinfo",
    ]
    assert set(page.figures) == {"fig-score-dist", "fig-confmatrix"}
    known = frame.scoring.report(
        human="sc1", system="raw", by="L1", trim_min=1, trim_max=6, rater_error_variance=0.3
    )
    assert "true_score_evaluation" in Page(known.to_html()).sections
    assert "consistency" not in Page(known.to_html()).sections


def test_files_listed(frame, tmp_path):
    report = frame.scoring.report(human="sc1", system="raw", trim_min=1, trim_max=6)
    assert "No files were written" in report.to_html(sections=["intermediate_file_paths"])
    written = report.to_csv(tmp_path, prefix="demo")
    rows = Page(report.to_html(sections=["intermediate_file_paths"])).table_with_header(["file", "content"])
    assert [row[0] for row in rows[1:]] == [str(path) for path in written]
    assert rows[1][1] == "evaluation metrics for every score type"
    given = ["out/a_eval.xlsx", "out/a_score_dist.xlsx"]
    rows = Page(report.to_html(sections=["intermediate_file_paths"], files=given)).table_with_header(
        ["file", "content"]
    )
    assert [row[0] for row in rows[1:]] == given


def test_returns_a_string_or_writes_one_utf8_file(full, tmp_path):
    text = full.to_html(title="Engine <v2> & co")
    assert isinstance(text, str) and text.startswith("<!DOCTYPE html>")
    assert "<title>Engine &lt;v2&gt; &amp; co</title>" in text
    path = full.to_html(tmp_path / "report.html", title="Engine <v2> & co")
    assert path == tmp_path / "report.html"
    assert path.read_text(encoding="utf-8").count("<section") == len(ALL_SECTIONS)
    assert "<title>Evaluation report</title>" in full.to_html(sections=["sysinfo"])


def test_the_frame_is_untouched(frame):
    before = frame.copy()
    frame.scoring.report(
        human="sc1", system="raw", second_human="sc2", by="L1", trim_min=1, trim_max=6
    ).to_html()
    pd.testing.assert_frame_equal(frame, before)


def test_scaled_scores(frame):
    asis = frame.rename(columns={"raw": "score"}).scoring.report(
        human="sc1", system="score", trim_min=1, trim_max=6, scale_with="asis", by="L1"
    )
    text = asis.to_html()
    assert "scale_trim_round" in text and "raw_trim" not in text
    # the page's tables keep rsmeval's names; a note says which column each score is
    assert "<code>scale_trim</code> = <code>score_trim</code>" in text
    short = asis.rsmtool_frames()["eval_short"]
    values = dict(zip(*Page(text).table_with_header(list(short.columns))[:2]))
    assert values["corr.scale_trim"] == f"{short['corr.scale_trim'].iloc[0]:.3f}"
    assert "fig-eval-by-l1" in Page(text).figures
    both = frame.scoring.report(
        human="sc1", system="raw", trim_min=1, trim_max=6, scale_with=frame[["sc1", "raw"]]
    )
    text = both.to_html()
    rows = Page(text).table_with_header(
        ["N", "corr", "wtkappa", "R2", "kappa", "exact_agr", "adj_agr", "RMSE"]
    )
    assert [row[0] for row in rows[1:]] == list(both.rsmtool_frames()["eval"].index)  # rsmeval names
    assert "scale_trim_round" in text


def test_labels_are_escaped(frame):
    odd = frame.assign(L1=frame["L1"].replace({"Hindi": "<b>Hindi</b> & co"}))
    text = odd.scoring.report(human="sc1", system="raw", by="L1", trim_min=1, trim_max=6).to_html()
    assert "<b>Hindi</b>" not in text
    assert "&lt;b&gt;Hindi&lt;/b&gt; &amp; co" in text
    Page(text)  # still parses


def test_system_information(page):
    rows = page.table_with_header(["version"])
    names = [row[0] for row in rows[1:]]
    assert names == ["Python", "platform", "pdmetrics", "pandas", "numpy", "scipy", "statsmodels"]
    assert dict((row[0], row[1]) for row in rows[1:])["pandas"] == pd.__version__


def test_conditional_means_equal_a_groupby(full, frame):
    table = full["conditional_means_by_L1"]
    trimmed = frame["raw"].clip(1 - 0.4998, 6 + 0.4998)
    expected = trimmed.groupby([frame["L1"], frame["sc1"]]).agg(["size", "mean"]).reset_index()
    assert table["group"].tolist() == expected["L1"].tolist()
    assert table["human_score"].tolist() == expected["sc1"].astype(int).tolist()
    assert table["N"].tolist() == expected["size"].tolist()
    np.testing.assert_allclose(table["sys_mean"], expected["mean"], rtol=1e-12)
    assert "conditional_means_by_L1" not in full.rsmtool_frames()  # not an rsmeval file


def test_repr_html_shows_headline_with_integer_n_and_every_table(full):
    text = full._repr_html_()
    rows = Page(text).table_with_header(["value"])
    values = {row[0]: row[1] for row in rows[1:]}
    assert values["N"] == "3000"
    assert values["corr.raw_trim"] == f"{full['eval_short']['corr.raw_trim'].iloc[0]:.3f}"
    assert "3000.000" not in text
    assert text.count("<details>") == len(full)
    assert Page(text).tags.count("table") == len(full) + 1


def test_repr_html_caps_big_tables(frame):
    many = frame.assign(G=(np.arange(len(frame)) % 30).astype(str))
    report = many.scoring.report(human="sc1", system="raw", by="G", trim_min=1, trim_max=6)
    text = report._repr_html_()
    assert f"First 50 of {len(report['eval_by_G'])} rows" in text
    page = Page(text)
    eval_by = [t for t in page.tables if t["rows"] and t["rows"][0][:3] == ["system", "by", "group"]][0]
    assert len(eval_by["rows"]) == 51


def test_importing_the_writer_imports_neither_matplotlib_nor_scipy():
    code = (
        "import sys, pdmetrics.rsmeval.html_page, pdmetrics.rsmeval.figures; "
        "print([m for m in ('matplotlib', 'scipy') if m in sys.modules])"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_degradation_shows_human_machine_and_difference(full, page):
    rows = page.table_with_header(
        ["score", "type", "corr", "kappa", "wtkappa", "exact_agr", "adj_agr", "SMD"]
    )
    assert [row[1] for row in rows[1:4]] == ["H-H", "H-M", "diff"]
    degradation = full.rsmtool_frames()["degradation"]
    diffs = {row[0]: row[2] for row in rows[1:] if row[1] == "diff"}
    assert diffs == {name: f"{value:.3f}" for name, value in degradation["corr"].items()}


def test_conditional_means_with_sparse_score_labels():
    table = conditional_means_of_codes(
        np.array([-2, 3, 10**9, 3]),
        np.array([1.0, 2.0, 5.0, 4.0]),
        np.array([0, 1, 1, 1], dtype=np.int8),
        np.array(["a", "b"], dtype=object),
        "G",
    )
    assert table["human_score"].tolist() == [-2, 3, 10**9]
    assert table["N"].tolist() == [1, 2, 1]
    assert table["sys_mean"].tolist() == [1.0, 3.0, 5.0]


def test_min_n_per_group_leaves_small_groups_out_of_the_subgroup_sections(frame):
    report = frame.scoring.report(human="sc1", system="raw", by="L1", trim_min=1, trim_max=6)
    report.info["min_n_per_group"] = {"L1": 500}  # as report(min_n_per_group=500) records it; Hindi has 293
    text = report.to_html(sections=["evaluation_by_group", "fairness_analyses"])
    page = Page(text)
    grid = [bar for bar in page.bars if bar["figure"] == "fig-eval-by-l1"]
    assert {bar["data-category"] for bar in grid} == {"All data", "Arabic", "Mandarin", "Spanish"}
    coefficients = [bar for bar in page.bars if bar["figure"] == "fig-fairness-l1"]
    assert "Hindi" not in {bar["data-category"] for bar in coefficients}
    assert len(coefficients) == 3 * 3  # intercept + two groups, three models
    assert 'data-series="Hindi"' not in text
    assert "at least 500 responses" in text
    rows = page.table_with_header(list(report.rsmtool_frames()["eval_by_L1"].columns))
    assert [row[0] for row in rows[1:]] == ["All data", "Arabic", "Mandarin", "Spanish"]


def test_a_section_the_report_cannot_have_is_a_note_when_asked_so_as_rsmeval_does():
    single = simulate_scores(300, seed=3).scoring.report(human="sc1", system="raw", trim_min=1, trim_max=6)
    with pytest.raises(InvalidInputError, match="no consistency section"):
        single.to_html(sections=["consistency", "evaluation"])
    page = report_html(single, sections=["consistency", "evaluation"], missing="note")
    assert page.index('id="consistency"') < page.index('id="evaluation"')
    assert "Nothing to show: report() had no double-scored responses" in page
    assert "second_human_score_column" in page


def test_the_page_needs_only_the_summary_data_tables():
    frame = simulate_scores(500, seed=4)
    tables = frame.scoring.report(human="sc1", system="raw", by="L1", trim_min=1, trim_max=6)
    summaries = tables.rsmtool_frames(per_response=False)
    assert {"data_composition", "data_composition_by_L1", "test_excluded_composition"} <= set(summaries)
    assert not {"pred_processed", "test_metadata", "test_other_columns"} & set(summaries)
    assert "pred_processed" in tables.rsmtool_frames()
    assert list(tables.rsmtool_frames(per_response=False)) == [
        name for name in tables.rsmtool_frames() if name in summaries
    ]


def long_label_frame():
    """Five QUESTION_<k> groups, four L1 groups with names up to 36 characters, and one
    response without a QUESTION (RSMTool's "No info", N = 1) whose scores are far apart."""
    frame = simulate_scores(3000, seed=1)
    rng = np.random.default_rng(0)
    frame["QUESTION"] = rng.choice([f"QUESTION_{k}" for k in range(1, 6)], len(frame))
    frame["L1"] = frame["L1"].map(
        {
            "Arabic": "Arabic speakers from the Gulf region",
            "Hindi": "Hindi",
            "Mandarin": "Mandarin Chinese (Beijing)",
            "Spanish": "Spanish",
        }
    )
    frame.loc[frame.index[0], ["QUESTION", "sc1", "raw"]] = [np.nan, 1, 6.5]
    return frame


@pytest.fixture(scope="module")
def long_labels():
    report = long_label_frame().scoring.report(
        human="sc1", system="raw", by=["QUESTION", "L1"], trim_min=1, trim_max=6
    )
    return report, report.to_html()


def _figure(text: str, figure_id: str) -> str:
    start = text.index(f'id="{figure_id}"')
    return text[start : text.index("</figure>", start)]


def test_long_group_labels_are_written_vertically_or_cut_with_a_tooltip(long_labels):
    _, text = long_labels
    grid = _figure(text, "fig-eval-by-question")
    labels = re.findall(r'<text class="category"([^>]*)>(?:<title>([^<]*)</title>)?([^<]*)</text>', grid)
    shown = [label for _, _, label in labels]
    assert shown[:7] == ["All data", *(f"QUESTION_{k}" for k in range(1, 6)), "No info"]
    # seven labels of up to 10 characters do not fit side by side under a 330-pixel panel:
    # they read upwards, with the room below the axis the figure adds for them
    assert all("rotate(-90)" in attributes for attributes, _, _ in labels)
    height = float(re.search(r'<svg width="[^"]*" height="([^"]*)"', grid)[1])
    assert height == pytest.approx(3 * (250 + figures.text_width("QUESTION_1") - 12), abs=1)
    assert height > 3 * 250 + 150
    # a 36-character group name is cut, its full name kept as the tooltip, in every figure
    for figure_id in ("fig-eval-by-l1", "fig-fairness-l1", "fig-conditional-l1"):
        part = _figure(text, figure_id)
        assert "<title>Arabic speakers from the Gulf region</title>" in part, figure_id
        cut = re.findall(r"<title>Arabic speakers from the Gulf region</title>([^<]*)</text>", part)
        assert cut and all(c.endswith("…") and len(c) <= figures.LABEL_CHARS + 4 for c in cut), (
            figure_id,
            cut,
        )
    # short labels stay horizontal (the demo's L1 names)
    demo = simulate_scores(500, seed=0).scoring.report(
        human="sc1", system="raw", by="L1", trim_min=1, trim_max=6
    )
    assert (
        "rotate(-90)"
        not in _figure(demo.to_html(sections=["evaluation_by_group"]), "fig-eval-by-l1").split(
            '<text class="category"'
        )[1]
    )


def _ticks(svg_part: str) -> list[float]:
    return [float(v) for v in re.findall(r'text-anchor="(?:end|middle)">(-?[0-9.]+)</text>', svg_part)]


def test_a_group_of_one_response_does_not_set_the_axes(long_labels):
    report, text = long_labels
    table = report["eval_by_QUESTION"]
    rows = table[table["system"] == "raw_trim"].set_index("group")
    assert rows.loc["No info", "N"] == 1 and rows.loc["No info", "DSM"] > 4  # far off the scale
    grid = _figure(text, "fig-eval-by-question")
    dsm = [m for m in re.finditer(r'<rect class="bar"[^>]*data-series="DSM"[^>]*>', grid)]
    no_info = [m[0] for m in dsm if 'data-category="No info"' in m[0]]
    assert len(no_info) == 2  # DSM of the trimmed and of the trimmed-rounded scores
    assert all('data-small="true"' in bar and 'data-clipped="true"' in bar for bar in no_info)
    assert float(re.search(r'data-value="([^"]*)"', no_info[0])[1]) == rows.loc["No info", "DSM"]
    # the DSM axis is set by the real groups and RSMTool's ±0.1 lines, not by the N = 1 group
    panel = grid[grid.index("DSM.raw_trim by QUESTION") : grid.index("DSM.raw_trim_round by QUESTION")]
    assert max(_ticks(panel)) <= 0.15
    assert f">{html_report.figures.tick(rows.loc['No info', 'DSM'])}</text>" in grid  # its value, written
    assert all("data-small" not in m[0] for m in dsm if 'data-category="No info"' not in m[0])
    # fairness: the N = 1 group's interval is clipped, the axis fits the real groups
    fairness = _figure(text, "fig-fairness-question")
    osa = fairness[: fairness.index(">OSD<")]
    assert max(_ticks(osa)) <= 1.0
    assert re.search(
        r'<rect class="bar"[^>]*data-small="true"[^>]*data-clipped="true"[^>]*data-category="No info"', osa
    )
    assert (
        "fewer than 10 responses (No info (N = 1))" in Page(text).figures["fig-fairness-question"]["caption"]
    )
    assert (
        "fewer than 10 responses (No info (N = 1))" in Page(text).figures["fig-eval-by-question"]["caption"]
    )
    # groups of 10 or more responses: no note, nothing hollow
    assert "fewer than" not in Page(text).figures["fig-eval-by-l1"]["caption"]
    assert "data-small" not in _figure(text, "fig-eval-by-l1")


def test_the_excluded_composition_keeps_its_row_labels_when_nothing_is_excluded(frame):
    clean = frame.dropna(subset=["sc1", "raw"])
    clean = clean[clean["sc1"] != 0]
    page = Page(clean.scoring.report(human="sc1", system="raw", trim_min=1, trim_max=6).to_html())
    rows = page.table_with_header(["Human/System", "numeric system score", "non-numeric system score"])
    assert [row[0] for row in rows[1:]] == [
        "numeric non-zero human score",
        "zero human score",
        "non-numeric human score",
    ]
    assert [row[1:] for row in rows[1:]] == [["—", "0"], ["0", "0"], ["0", "0"]]


def test_the_excluded_composition_labels_are_rsmevals(frame):
    dirty = frame.copy()
    dirty.loc[dirty.index[:3], "raw"] = np.nan
    with pytest.warns(pdmetrics.ExcludedRowsWarning, match="Left out 3 of 3000 rows"):
        table = dirty.scoring.report(human="sc1", system="raw", trim_min=1, trim_max=6).rsmtool_frames()[
            "test_excluded_composition"
        ]
    assert tuple(table["Human/System"]) == html_report._EXCLUDED_ROWS


#: A group column name of 45 characters, a group value of 120 characters without a space (and a
#: small group named like it), and labels in Chinese, emoji and Arabic (right to left).
HOSTILE_COLUMN = "the_very_long_subgroup_column_name_of_45_char"
HOSTILE_VALUE = "QUESTION_" + "x" * 111
HOSTILE_SMALL = "QUESTION_" + "y" * 111
UNICODE_LABELS = [
    "中文标签测试长名字中文标签测试长名字",
    "😀🎉 emoji group 🚀🚀🚀🚀",
    "مجموعة باللغة العربية طويلة جدا",
]


def hostile_label_frame():
    frame = simulate_scores(3000, seed=1)
    rng = np.random.default_rng(0)
    frame[HOSTILE_COLUMN] = rng.choice([HOSTILE_VALUE, "QUESTION_2", "QUESTION_3"], len(frame))
    frame.loc[frame.index[:3], HOSTILE_COLUMN] = HOSTILE_SMALL  # a small group: named in the captions
    frame["U"] = rng.choice([*UNICODE_LABELS, "plain"], len(frame))
    return frame


def hostile_report():
    return hostile_label_frame().scoring.report(
        human="sc1", system="raw", by=[HOSTILE_COLUMN, "L1", "U"], trim_min=1, trim_max=6
    )


@pytest.fixture(scope="module")
def hostile_labels():
    return hostile_report().to_html()


def test_a_long_group_column_name_keeps_each_figure_title_inside_its_panel(hostile_labels):
    grid = _figure(hostile_labels, f"fig-eval-by-{HOSTILE_COLUMN}")
    panel = float(re.search(r'<svg width="([^"]*)"', grid)[1]) / 2  # two panels side by side
    titles = re.findall(r'<text class="title"[^>]*>(?:<title>([^<]*)</title>)?([^<]*)</text>', grid)
    assert len(titles) == 6
    for full, shown in titles:
        # cut with an ellipsis, the whole title kept as the tooltip, and narrower than the panel
        # even in bold (about 10% wider than the estimate)
        assert full.endswith(f" by {HOSTILE_COLUMN}") and shown.endswith("…"), (full, shown)
        assert full.startswith(shown[:-1]) and shown.split(".")[0] in {"corr", "wtkappa", "DSM", "R2", "RMSE"}
        assert 1.1 * figures.text_width(shown) <= panel - 8, shown
    # a short title is not cut and has no tooltip
    assert ">corr.raw_trim by L1</text>" in _figure(hostile_labels, "fig-eval-by-l1")


def test_wide_characters_count_wider_than_latin_letters():
    # Chinese characters and emoji take a whole em (11 px) at the figures' font size
    assert figures.text_width("中文标签") >= 4 * 11
    assert figures.text_width("😀🎉") >= 2 * 11 * 1.25  # colour emoji are wider still
    assert figures.text_width("abcd") < 4 * 11 * 0.7


def test_row_labels_and_captions_wrap_inside_their_boxes(hostile_labels):
    # long table row labels have a width cap and break anywhere; captions break anywhere
    style = html_report._STYLE
    label_rule = re.search(r"table\.table td\.long,table\.table th\.long\{([^}]*)\}", style)[1]
    assert "max-width:22em" in label_rule and "overflow-wrap:anywhere" in label_rule
    assert f'<th class="label long">{HOSTILE_VALUE}</th>' in hostile_labels
    assert '<th class="label">QUESTION_2</th>' in hostile_labels  # short labels never break mid-word
    caption_rule = re.search(r"figcaption\{([^}]*)\}", style)[1]
    assert "overflow-wrap:anywhere" in caption_rule


def test_hostile_labels_stay_escaped_and_whole_in_the_tables(hostile_labels):
    page = Page(hostile_labels)
    cells = [cell for table in page.tables for row in table["rows"] for cell in row]
    assert HOSTILE_VALUE in cells and all(label in cells for label in UNICODE_LABELS)
    assert HOSTILE_SMALL in page.figures[f"fig-eval-by-{HOSTILE_COLUMN}"]["caption"]


def test_wide_labels_are_cut_to_the_width_of_twenty_capitals(hostile_labels):
    grid = _figure(hostile_labels, "fig-eval-by-u")
    chinese = re.findall(rf"<title>{UNICODE_LABELS[0]}</title>([^<]*)</text>", grid)
    assert chinese and all(c.endswith("…") and len(c) < 18 for c in chinese), chinese
    assert all(figures.text_width(c) <= figures.LABEL_CHARS * figures.CHAR_WIDTH for c in chinese)
    # the room below the axis is that of the widest label as shown, not of the whole label
    height = float(re.search(r'<svg width="[^"]*" height="([^"]*)"', grid)[1])
    assert height <= 3 * (250 + figures.LABEL_CHARS * figures.CHAR_WIDTH - 12) + 1


def test_names_in_running_text_are_isolated_from_the_words_around_them():
    # a right-to-left override in a group name would otherwise reverse the rest of the caption
    frame = simulate_scores(500, seed=2)
    frame.loc[frame.index[:3], "L1"] = "\u202eevil"
    text = frame.scoring.report(human="sc1", system="raw", by="L1", trim_min=1, trim_max=6).to_html()
    caption = _figure(text, "fig-eval-by-l1")
    assert "(<bdi>\u202eevil</bdi> (N = 3))" in caption
    assert "Evaluation metrics for each <bdi>L1</bdi> group" in caption
    assert "reference category: <bdi>" in text


def test_a_comparison_table_becomes_a_section_after_the_evaluation():
    df = simulate_scores(1500, seed=3)
    df["new"] = df["sc1"] + np.random.default_rng(1).normal(0, 0.6, len(df))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pdmetrics.ExcludedRowsWarning)
        report = df.scoring.report(human="sc1", system="raw", by="L1", trim_min=1, trim_max=6)
        table = df.scoring.compare(human="sc1", system=["raw", "new"], by="L1", n_resamples=50)
    page = Page(report.to_html(comparison=table))
    assert page.sections.index("comparison") == page.sections.index("fairness_analyses") + 1
    assert page.sections[-2:] == ["intermediate_file_paths", "sysinfo"]
    assert page.section_h2["comparison"] == "Comparison of the systems"
    assert "#comparison" in page.toc_links
    with pytest.raises(InvalidInputError, match="lacks the comparison columns"):
        report.to_html(comparison=df.scoring.evaluate(human="sc1", system="raw"))
