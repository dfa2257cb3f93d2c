"""The evaluation report as ONE self-contained HTML file, as rsmeval's report.

Inline CSS and inline SVG figures (:mod:`pdmetrics.rsmeval.figures`), a table of
contents built here, nothing fetched from anywhere: the file opens on an offline machine.
The writer reads only the report's small tables, so it takes milliseconds whatever the
number of responses. Sections are rsmeval's ``general_sections``, in rsmeval's order.
"""

from __future__ import annotations

import functools
import html
import importlib.metadata
import math
import platform
import re
import sys
import threading
from collections.abc import Sequence

import numpy as np
import pandas as pd

from pdmetrics._comparison import COLUMNS
from pdmetrics._groups import POOLED_LABEL
from pdmetrics.errors import InvalidInputError
from pdmetrics.rsmeval import figures
from pdmetrics.rsmeval.rsmtool_files import rsmtool_labels

__all__ = [
    "SECTIONS",
    "report_html",
    "page_html",
    "comparison_html",
    "comparison_page",
    "notebook_html",
    "table_html",
    "format_value",
    "PageWriter",
    "sysinfo_html",
    "escape",
    "package_version",
]

#: rsmeval's ``general_sections``, in the order of its report (RSMTool's reporter).
SECTIONS = (
    "data_description",
    "data_description_by_group",
    "consistency",
    "evaluation",
    "true_score_evaluation",
    "evaluation_by_group",
    "fairness_analyses",
    "intermediate_file_paths",
    "sysinfo",
)

_TITLES = {
    "data_description": "Description of the data",
    "data_description_by_group": "Data by subgroup",
    "consistency": "Human-human consistency",
    "evaluation": "Evaluation results",
    "true_score_evaluation": "True-score evaluation",
    "evaluation_by_group": "Evaluation by subgroup",
    "fairness_analyses": "Additional fairness analyses",
    "intermediate_file_paths": "Files written",
    "sysinfo": "System information",
}

_DOCS = "https://rsmtool.readthedocs.io/en/stable/"
_PACKAGES = ("pdmetrics", "pandas", "numpy", "scipy", "statsmodels")

#: RSMTool's highlighting rules: a value below ``low`` or above ``high`` is highlighted
#: (on its absolute value when ``absolute``), by metric (the part of a column name before ".").
_SMD_RULE = {"SMD": (-0.15, 0.15, False)}
_AGREEMENT_RULE = {
    "exact_agr": (50.0, 100.0, False),
    "adj_agr": (95.0, 100.0, False),
    "wtkappa": (0.7, math.inf, False),
    "corr": (0.7, math.inf, False),
}
_DEGRADATION_RULE = {"corr": (-0.1, math.inf, False), "wtkappa": (-0.1, math.inf, False)}
_DISTRIBUTION_RULE = {"difference": (-math.inf, 5.0, True)}

#: The row labels of rsmeval's test_excluded_composition (its file has them when a row was left out).
_EXCLUDED_ROWS = ("numeric non-zero human score", "zero human score", "non-numeric human score")

#: Groups with fewer responses than this do not set the axes of the subgroup figures (the
#: metric grid, the fairness estimates): a group of one response has a DSM or an interval
#: far off the scale and would squash every other group. They are drawn hollow, clipped at
#: the axis edge with a marker and their value, and the captions say so.
AXIS_MIN_N = 10

#: RSMTool's subgroup metric grid: metric, score type suffix, reference lines.
_GRID = (
    ("corr", "trim", (0.7,)),
    ("wtkappa", "trim", (0.7,)),
    ("DSM", "trim", (-0.1, 0.1)),
    ("DSM", "trim_round", (-0.1, 0.1)),
    ("R2", "trim", ()),
    ("RMSE", "trim", ()),
)

_DISTRIBUTION_COLUMNS = [
    "N",
    "h_mean",
    "sys_mean",
    "h_sd",
    "sys_sd",
    "h_min",
    "sys_min",
    "h_max",
    "sys_max",
    "SMD",
]

_STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:0;color:#222;
line-height:1.45;background:#fff}
main{max-width:1100px;margin:0 auto;padding:1rem 2rem 4rem}
header{background:#24364b;color:#fff;padding:1.2rem 2rem}header h1{margin:0;font-size:1.6rem}
header p{margin:.3rem 0 0;opacity:.85}
nav#toc{background:#f5f7fa;border:1px solid #dde3ea;border-radius:6px;padding:.6rem 1.2rem;margin:1rem 0}
nav#toc ul{margin:.2rem 0;padding-left:1.2rem}nav#toc a{text-decoration:none;color:#1f5a96}
section{border-top:2px solid #e8ecf1;margin-top:2rem;padding-top:.5rem}
h2{color:#24364b}h3{color:#34495e;margin-top:1.5rem}
table.table{border-collapse:collapse;margin:.6rem 0;font-size:.85rem;font-variant-numeric:tabular-nums}
table.table th,table.table td{border-bottom:1px solid #e1e5ea;padding:.25rem .6rem;text-align:right}
table.table th{background:#f0f3f7}table.table tbody tr:hover{background:#fafbfd}
table.table td.label,table.table th.label{text-align:left;max-width:22em;overflow-wrap:anywhere}
header,nav#toc,main p,main h2,main h3,main li{overflow-wrap:anywhere}
table.table td.long,table.table th.long{min-width:12em;max-width:22em;overflow-wrap:anywhere}
.scroll{overflow-x:auto}
.highlight{color:#c0392b;font-weight:bold}
figure.figure{margin:1rem 0;padding:.5rem;border:1px solid #eef1f4;border-radius:6px;display:inline-block;
max-width:100%;overflow-x:auto}
figcaption{font-size:.85rem;color:#555;margin-top:.3rem;max-width:760px;overflow-wrap:anywhere}
p.note{font-size:.85rem;color:#555}
code{background:#f3f4f6;padding:0 .25rem;border-radius:3px}
header code{background:rgba(255,255,255,.18);color:#fff}
"""


def report_html(
    report, *, sections=None, title=None, files=None, missing: str = "error", comparison=None
) -> str:
    """The whole report as one HTML document (see ``EvaluationReport.to_html``).

    Parameters
    ----------
    report : EvaluationReport
    sections : list of str, optional
        rsmeval ``general_sections`` names, in the order wanted; default: every section
        that applies to the report, in rsmeval's order.
    title : str, optional
        The page title (default: "Evaluation report").
    files : list of path-like, optional
        The files listed in ``intermediate_file_paths``.
    missing : {"error", "note"}, default "error"
        What a section named in ``sections`` that the report cannot have becomes: an
        ``InvalidInputError``, or (rsmeval's way, for ``pdmetrics rsmeval``) the section with a
        note saying why it is empty.
    comparison : DataFrame, optional
        A ``compare`` table (e.g. ``df.scoring.compare(...)`` of the report's systems): a
        section "Comparison of the systems" after the evaluation (:func:`comparison_html`).

    Returns
    -------
    str
    """
    chosen = choose_sections(report, sections, missing=missing)
    writer = _Writer(report, files)
    written = [(name, _TITLES[name], *writer.section(name)) for name in chosen]
    if comparison is not None:  # after the evaluation sections (before the appendices)
        writer.start("comparison")
        body = comparison_html(comparison, writer=writer)
        section = f'<section id="comparison"><h2>{escape(_COMPARISON_TITLE)}</h2>{body}</section>'
        at = next((i for i, (name, *_) in enumerate(written) if name in _APPENDICES), len(written))
        written.insert(at, ("comparison", _COMPARISON_TITLE, section, writer.subsections))
    title = "Evaluation report" if title is None else str(title)
    info = report.info
    return page_html(
        title,
        f"{info['n_used']:,} of {info['n_input']:,} responses evaluated; primary score {_primary(report)}. "
        f"Written by pdmetrics {escape(package_version('pdmetrics'))}, "
        f'following <a href="{_DOCS}" style="color:#cde">rsmeval</a>\'s report.',
        written,
    )


#: The heading of the report's comparison section, and the sections it comes before.
_COMPARISON_TITLE = "Comparison of the systems"
_APPENDICES = ("intermediate_file_paths", "sysinfo")


def page_html(title: str, header: str, sections) -> str:
    """One self-contained HTML document: the style, a header (``title`` and the ``header``
    paragraph, HTML), a table of contents and the sections, each ``(id, heading, body HTML,
    subsections)`` with ``subsections`` a list of ``(id, heading)``."""
    toc = "".join(
        f'<li><a href="#{name}">{escape(heading)}</a>'
        + (
            "<ul>" + "".join(f'<li><a href="#{sid}">{escape(text)}</a></li>' for sid, text in subs) + "</ul>"
            if subs
            else ""
        )
        + "</li>"
        for name, heading, _, subs in sections
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head><body>"
        f"<header><h1>{escape(title)}</h1><p>{header}</p></header><main>"
        f'<nav id="toc"><strong>Contents</strong><ul>{toc}</ul></nav>'
        + "".join(body for _, _, body, _ in sections)
        + "</main></body></html>\n"
    )


def comparison_html(
    table: pd.DataFrame, *, writer: PageWriter | None = None, heading: str | None = None
) -> str:
    """A comparison table of any ``compare`` (:mod:`pdmetrics._comparison`'s layout) as HTML: for
    each pair of systems (and each value of the table's first identifier column, e.g. each
    subgroup column) a forest figure of the differences with their intervals and a zero line,
    then the table.

    Parameters
    ----------
    table : DataFrame
        The identifier columns, then ``metric, baseline, system, N, baseline_value,
        system_value, difference, ci_low, ci_high, p_value, p_adjusted, test``.
    writer : PageWriter, optional
        The page being written (headings become subsections of its current section).
    heading : str, optional
        The start of each block's heading (e.g. "Paired comparison").

    Returns
    -------
    str

    Examples
    --------
    >>> import pdmetrics
    >>> from pdmetrics.datasets import simulate_scores
    >>> from pdmetrics.rsmeval.html_page import comparison_html
    >>> df = simulate_scores(300, seed=0)
    >>> df["new"] = df["sc1"] + df["raw"].sub(df["sc1"]).mul(0.7)
    >>> html = comparison_html(df.scoring.compare(human="sc1", system=["raw", "new"], n_resamples=200))
    >>> html.count("<svg"), html.count('class="difference"'), html.count("<tr>")
    (1, 8, 9)
    """
    missing = [name for name in COLUMNS if name not in table.columns]
    if missing:
        raise InvalidInputError(
            f"`table=` lacks the comparison columns {missing}: pass the table a `compare` method returns "
            f"(its columns end with {', '.join(COLUMNS)})."
        )
    identifiers = list(table.columns[: list(table.columns).index("metric")])
    first, rest = (identifiers[0], identifiers[1:]) if identifiers else (None, [])
    keys = [first] if first is not None else []
    parts = []
    for values, rows in table.groupby([*keys, "baseline", "system"], sort=False, dropna=False):
        *head, baseline, system = values if isinstance(values, tuple) else (values,)
        text = f"{system} against {baseline}"
        if head:
            text += f" by {head[0]}" if first == "by" else f", {first} = {head[0]}"
        text = f"{heading}: {text}" if heading else text
        parts.append(writer.h3(text) if writer is not None else f"<h3>{escape(text)}</h3>")
        # (a frame without columns has no rows to iterate on pandas 2: the identifiers as lists)
        ids = rows[rest].astype(str).to_numpy().tolist() if rest else [[]] * len(rows)
        names = [" · ".join([*values, str(metric)]) for values, metric in zip(ids, rows["metric"])]
        width, height = 760, 60 + 24 * len(names)
        svg = figures.svg(
            width,
            height,
            [
                figures.forest_panel(
                    (0, 0, width, height),
                    names,
                    _floats(rows["difference"]),
                    _floats(rows["ci_low"]),
                    _floats(rows["ci_high"]),
                    title=f"{system} − {baseline}",
                )
            ],
            label=f"Differences, {system} minus {baseline}, with their intervals",
        )
        caption = (
            f"Difference of each metric, <code>{escape(system)}</code> minus "
            f"<code>{escape(baseline)}</code>, "
            "with its confidence interval; the dashed line is no difference. Blue: the interval excludes 0; "
            "grey: it includes 0. Each row has its own scale, written at its ends."
        )
        parts.append(
            writer.figure(f"compare-{text}", svg, caption)
            if writer is not None
            else f'<figure class="figure">{svg}<figcaption>{caption}</figcaption></figure>'
        )
        shown = rows.drop(columns=[*keys, "baseline", "system"]).reset_index(drop=True)
        for name in ("p_value", "p_adjusted"):
            shown[name] = [_p_value(value) for value in _floats(shown[name])]
        parts.append(table_html(shown, index=False))
    return "".join(parts)


def comparison_page(table: pd.DataFrame, *, title: str | None = None) -> str:
    """A comparison table of any ``compare`` as one self-contained HTML page (see
    :func:`comparison_html`); write it with ``pathlib.Path(...).write_text(page)``.

    >>> import pandas as pd
    >>> from pdmetrics.datasets import simulate_scores
    >>> from pdmetrics.rsmeval.html_page import comparison_page
    >>> frame = simulate_scores(300, seed=1)
    >>> frame["new"] = frame["raw"] + 0.1
    >>> page = comparison_page(frame.scoring.compare(human="sc1", system=["raw", "new"], n_resamples=100))
    >>> page.startswith("<!DOCTYPE html>"), "http" in page.split("<main>")[1]
    (True, False)
    """
    writer = PageWriter()
    writer.start("comparison")
    body = comparison_html(table, writer=writer)
    title = "Paired comparison" if title is None else str(title)
    return page_html(
        title,
        f"{len(table):,} comparisons; written by pdmetrics {escape(package_version('pdmetrics'))}.",
        [
            (
                "comparison",
                title,
                f'<section id="comparison"><h2>{escape(title)}</h2>{body}</section>',
                writer.subsections,
            )
        ],
    )


def _p_value(value: float) -> str:
    """A p-value as shown: three decimals, "<0.001" below that, "—" when undefined."""
    if not math.isfinite(value):
        return "—"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _primary(report) -> str:
    """The primary score family, RSMTool's name and (when it differs) the user's."""
    text = f"<code>{escape(report.primary)}</code>"
    user = report.info.get("primary_score", report.primary)
    return text if user == report.primary else f"{text} (<code>{escape(user)}</code>)"


def _names_note(report) -> str:
    """The page's tables name the scores as rsmeval's files; this says which column each is."""
    pairs = [(rsmtool, user) for rsmtool, user in report.score_names.items() if rsmtool != user]
    if not pairs:
        return ""
    listed = ", ".join(f"<code>{escape(a)}</code> = <code>{escape(b)}</code>" for a, b in pairs)
    return f'<p class="note">The tables name the scores as rsmeval does: {listed}.</p>'


def choose_sections(report, sections, *, missing: str = "error") -> list[str]:
    """The sections to write: checked names in the order given, or every applicable one.

    A named section the report cannot have is an error, or kept (``missing="note"``) to be
    written as a note saying why it is empty."""
    if sections is None:
        return [name for name in SECTIONS if _why_not(report, name) is None]
    if isinstance(sections, str):
        sections = [sections]
    sections = list(sections)
    unknown = [name for name in sections if name not in SECTIONS]
    if unknown:
        raise InvalidInputError(
            f"`sections={sections!r}`: unknown section {unknown[0]!r}. The valid sections (rsmeval's "
            f"general_sections) are: {', '.join(SECTIONS)}."
        )
    repeated = sorted({name for name in sections if sections.count(name) > 1})
    if repeated:
        raise InvalidInputError(
            f"`sections={sections!r}` lists {repeated[0]!r} twice; list each section once."
        )
    for name in sections:
        reason = _why_not(report, name)
        if reason is not None and missing != "note":
            raise InvalidInputError(
                f"`sections=[..., {name!r}, ...]`: this report has no {name} section because {reason}. "
                f"Leave {name!r} out of `sections`."
            )
    return sections


def notebook_html(report, *, max_rows: int = 50) -> str:
    """The Jupyter view of a report: the headline and every table in a ``<details>`` element."""
    short = report.rsmtool_frames()["eval_short"]
    headline = pd.DataFrame(
        {"value": [int(v) if name == "N" else float(v) for name, v in short.iloc[0].items()]},
        index=short.columns,
        dtype=object,
    )
    parts = [
        f"<div><p><b>EvaluationReport</b>: {report.info['n_used']:,} of {report.info['n_input']:,} responses "
        f"evaluated; primary score {_primary(report)}. "
        f"<code>report.to_html(path)</code> writes "
        f"the full report.</p><p>Headline (<code>eval_short</code>):</p>",
        table_html(headline, highlight=_SMD_RULE, row_highlight=True),
        f"<p>{len(report)} tables (<code>report[name]</code>); click one to expand:</p>",
    ]
    for name, table in report.items():
        note = ""
        if len(table) > max_rows:
            note = (
                f'<p class="note">First {max_rows} of {len(table):,} rows; '
                f"see <code>report[{escape(repr(name))}]</code>.</p>"
            )
        parts.append(
            f"<details><summary><code>{escape(name)}</code> "
            f"({table.shape[0]} &times; {table.shape[1]})</summary>"
            f"{table_html(table.head(max_rows), index=False)}{note}</details>"
        )
    return "".join(parts) + "</div>"


def table_html(
    frame: pd.DataFrame, *, index: bool = True, highlight: dict | None = None, row_highlight: bool = False
) -> str:
    """A DataFrame as ``<table class="table">``, every label escaped, numbers by :func:`format_value`.

    ``highlight`` maps a metric (a column name before its first ".") to ``(low, high,
    absolute)``: values outside ``[low, high]`` get ``<span class="highlight">``, as RSMTool's
    report highlights them. With ``row_highlight`` the rule is looked up by row label.
    """
    highlight = highlight or {}
    # one conversion to Python objects by column: pandas' per-column access costs more than the table
    values = frame.to_numpy(dtype=object).T.tolist() if frame.shape[1] else []
    texts = [_format_column(column, dtype) for column, dtype in zip(values, frame.dtypes)]
    head = "".join(f"<th>{escape(name)}</th>" for name in frame.columns)
    head = ('<th class="label"></th>' if index else "") + head
    names = [str(name).split(".")[0] for name in frame.columns]
    rows = []
    for i, label in enumerate(frame.index):
        cells = [f'<th class="{_label_class(_label(label))}">{escape(_label(label))}</th>'] if index else []
        row_rule = highlight.get(str(label).split(".")[0]) if row_highlight else None
        for j, name in enumerate(names):
            rule = row_rule if row_highlight else highlight.get(name)
            value, text = values[j][i], escape(texts[j][i])
            if rule is not None and _outside(value, rule):
                text = f'<span class="highlight">{text}</span>'
            cells.append(
                f'<td class="{_label_class(value)}">{text}</td>'
                if isinstance(value, str)
                else f"<td>{text}</td>"
            )
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f'<div class="scroll"><table class="table"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


#: Row labels longer than this wrap anywhere in a column 12 to 22 em wide (class ``long``): a
#: group value of 120 characters without a space would push the numbers out of view.
_LONG_LABEL = 24


def _label_class(text: str) -> str:
    return "label long" if len(text) > _LONG_LABEL else "label"


def format_value(value, integers: bool = False) -> str:
    """One cell: integers without decimals, other numbers with 3 decimals, missing as "—"."""
    if value is None or value is pd.NA or value is pd.NaT:
        return "—"
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            return "—" if math.isnan(value) else str(float(value))
        return str(int(value)) if integers else f"{value:.3f}"
    return str(value)


# --------------------------------------------------------------------------------------
# sections
# --------------------------------------------------------------------------------------
def _why_not(report, name) -> str | None:
    """Why a section does not apply to the report (None when it does)."""
    if (
        name in ("data_description_by_group", "evaluation_by_group", "fairness_analyses")
        and not report.groups
    ):
        return "report() was called without `by=` (no subgroup columns)"
    if name == "consistency" and "consistency" not in report:
        return (
            "report() had no double-scored responses (`second_human=`, rsmeval's "
            "second_human_score_column, not given or all missing)"
        )
    if name == "true_score_evaluation" and "true_score_eval" not in report:
        return "report() was given neither `second_human=` nor `rater_error_variance=`"
    return None


class PageWriter:
    """Writes the sections of one page: unique ids for its subsections (listed in the table of
    contents) and its figures."""

    def __init__(self) -> None:
        self.ids: set[str] = set()
        self.subsections: list[tuple[str, str]] = []
        self.section_name = ""

    def start(self, name: str) -> None:
        """A new section: its subsections are collected afresh."""
        self.section_name, self.subsections = name, []

    def h3(self, text: str) -> str:
        sid = self.unique(f"{self.section_name}-{_slug(text)}")
        self.subsections.append((sid, text))
        return f'<h3 id="{sid}">{escape(text)}</h3>'

    def unique(self, base: str) -> str:
        candidate, k = base, 2
        while candidate in self.ids:
            candidate, k = f"{base}-{k}", k + 1
        self.ids.add(candidate)
        return candidate

    def figure(self, name: str, svg: str, caption: str) -> str:
        fid = self.unique(f"fig-{_slug(name)}")
        return f'<figure class="figure" id="{fid}">{svg}<figcaption>{caption}</figcaption></figure>'

    def sections(self, names, titles: dict) -> list:
        """The ``(id, heading, body, subsections)`` of each named section (for :func:`page_html`),
        its body written by this writer's method of that name."""
        written = []
        for name in names:
            self.start(name)
            body = getattr(self, name)()
            section = f'<section id="{name}"><h2>{escape(titles[name])}</h2>{body}</section>'
            written.append((name, titles[name], section, self.subsections))
        return written


class _Writer(PageWriter):
    """Writes the sections of one report, numbering their figures and subsections."""

    def __init__(self, report, files) -> None:
        super().__init__()
        self.report = report
        self.frames = report.rsmtool_frames(per_response=False)
        self.files = files
        self.min_n = report.info.get("min_n_per_group") or {}
        trim = f"{report.primary}_trim"
        self.trim, self.trim_round = trim, f"{trim}_round"  # RSMTool's names, as the page's tables
        # the names of those scores in the tidy tables (report[name]), read for the figures
        named = report.score_names if report.layout == "tidy" else {}
        self.rows = {name: named.get(name, name) for name in (self.trim, self.trim_round)}

    def section(self, name: str) -> tuple[str, list[tuple[str, str]]]:
        self.start(name)
        reason = _why_not(self.report, name)
        body = f'<p class="note">Nothing to show: {escape(reason)}.</p>' if reason else getattr(self, name)()
        return (
            f'<section id="{name}"><h2>{escape(_TITLES[name])}</h2>{body}</section>',
            self.subsections,
        )

    # sections ---------------------------------------------------------------------------
    def data_description(self) -> str:
        info = self.report.info
        n_input, n_used = info["n_input"], info["n_used"]
        excluded = dict(info.get("excluded", {}))
        excluded |= {key: info[key] for key in ("excluded_by_flags", "excluded_candidates") if info.get(key)}
        reasons = {
            "missing_human": "human score missing or not a number",
            "zero_human": "human score 0 (exclude_zero=True)",
            "missing_system": "system score missing or not a number",
            "excluded_by_flags": "flagged (flag_column)",
            "excluded_candidates": "candidate with too few responses (min_items_per_candidate)",
        }
        rows = pd.DataFrame(
            {
                "reason": [reasons.get(key, key.replace("_", " ")) for key in excluded],
                "N": [int(value) for value in excluded.values()],
                "% of input": [100 * value / n_input if n_input else math.nan for value in excluded.values()],
            }
        )
        left_out = n_input - n_used
        parts = [
            self.h3("Responses excluded"),
            f"<p>{n_input:,} responses were read; {left_out:,} ({_percent(left_out, n_input)}) "
            f"were left out, "
            f"as rsmeval leaves them out. The rest of this report is based on the {n_used:,} responses "
            f"used.</p>",
            table_html(rows, index=False) if len(rows) else "",
        ]
        excluded_frame = self.frames.get("test_excluded_composition")
        if excluded_frame is not None:
            if "Human/System" not in excluded_frame.columns:  # the file has no labels when nothing
                # was left out; the page keeps them, with the zeros, as rsmeval's report does
                excluded_frame = excluded_frame.copy()
                excluded_frame.insert(0, "Human/System", list(_EXCLUDED_ROWS[: len(excluded_frame)]))
            parts.append(_table(excluded_frame))
        parts.append(self.h3("Composition of the evaluation set"))
        composition = self.frames.get("data_composition")
        if composition is not None:
            parts.append(_table(composition))
        else:
            facts = {"responses used": n_used}
            if "consistency" in self.report:
                facts["double-scored responses used"] = int(self.report["consistency"]["N"].iloc[0])
            parts.append(table_html(pd.DataFrame({"N": list(facts.values())}, index=list(facts)), index=True))
        if "consistency" in self.report:
            zeros = "excluded" if info.get("exclude_zero", True) else "included"
            parts.append(f'<p class="note">Human scores of 0 are {zeros}.</p>')
        parts.append(self.h3("Options"))
        options = {
            key: value
            for key, value in info.items()
            if key not in ("n_input", "n_used") and not key.startswith("excluded")
        }
        options = {
            "primary score": self.report.primary,
            "subgroups": ", ".join(map(str, self.report.groups)) or "—",
        } | options
        parts.append(
            table_html(pd.DataFrame({"value": [_option(v) for v in options.values()]}, index=list(options)))
        )
        return "".join(parts)

    def data_description_by_group(self) -> str:
        parts = []
        for group in self.report.groups:
            parts.append(self.h3(f"Responses by {group}"))
            composition = self.frames.get(f"data_composition_by_{group}")
            if composition is None:
                table = self.report[f"eval_by_{group}"]
                table = table[table["system"] == self.rows[self.trim]]
                composition = pd.DataFrame(
                    {group: rsmtool_labels(table["group"].to_numpy()), "N responses": table["N"].to_numpy()}
                )
            parts.append(_table(composition))
            if group in self.min_n:
                parts.append(self.min_n_note(group))
        return "".join(parts)

    def consistency(self) -> str:
        parts = [
            '<p class="note">The first human score is the one the system is evaluated against.</p>',
            self.h3("Human-human agreement"),
            "<p>Agreement between the two human scores on the double-scored responses. Highlighted: "
            "exact agreement below 50%, adjacent agreement below 95%, <code>wtkappa</code> or "
            "<code>corr</code> below 0.7.</p>",
            table_html(self.frames["consistency"], index=False, highlight=_AGREEMENT_RULE),
        ]
        if "confMatrix_h1h2" in self.frames:
            parts.append(
                self.confusion(self.frames["confMatrix_h1h2"], "confmatrix-h1h2", "human 1", "human 2")
            )
        parts += [
            self.h3("Degradation"),
            "<p>Human-machine agreement minus human-human agreement (<code>H-M</code> − <code>H-H</code>); "
            "a positive value means the machine agrees with the first human better than the second human "
            "does. Human-machine agreement uses every response, human-human agreement the double-scored "
            "ones. Highlighted: <code>corr</code> or <code>wtkappa</code> below −0.1.</p>",
            table_html(self.degradation(), index=False, highlight=_DEGRADATION_RULE),
            self.h3("Disattenuated correlations"),
            "<p>Human-machine correlation divided by the square root of the human-human correlation: "
            "the correlation the system would have with a perfectly reliable human score.</p>",
            table_html(self.frames["disattenuated_correlations"]),
        ]
        for group in self.report.groups:
            if f"consistency_by_{group}" in self.frames:
                parts += [
                    self.h3(f"Consistency by {group}"),
                    table_html(self.frames[f"consistency_by_{group}"], highlight=_AGREEMENT_RULE),
                    table_html(self.frames[f"disattenuated_correlations_by_{group}"]),
                ]
        return "".join(parts)

    def degradation(self) -> pd.DataFrame:
        """RSMTool's degradation view: for each score type, the H-H, H-M and diff rows."""
        diff = self.frames["degradation"]
        columns = list(diff.columns)
        human = self.frames["consistency"][columns].iloc[0].to_numpy(dtype=float)
        machine = self.frames["eval"].loc[diff.index, columns].to_numpy(dtype=float)
        values = np.stack([np.tile(human, (len(diff), 1)), machine, diff.to_numpy(dtype=float)], axis=1)
        return pd.DataFrame(
            {
                "score": np.repeat(diff.index.to_numpy(dtype=object), 3),
                "type": ["H-H", "H-M", "diff"] * len(diff),
                **dict(zip(columns, values.reshape(-1, len(columns)).T)),
            }
        )

    def evaluation(self) -> str:
        frame = self.frames["eval"]
        association = ["N"] + [c for c in frame.columns if c not in _DISTRIBUTION_COLUMNS]
        parts = [
            self.h3("Headline"),
            f"<p>The short evaluation table (<code>eval_short</code>): <code>{self.trim}</code> scores are "
            f"trimmed to [{_option(self.report.info.get('trim_min'))} − tolerance, "
            f"{_option(self.report.info.get('trim_max'))} + tolerance]; <code>{self.trim_round}</code> are "
            f"trimmed, then rounded. SMD below −0.15 or above 0.15 is highlighted.</p>",
            _names_note(self.report),
            table_html(self.frames["eval_short"], index=False, highlight=_SMD_RULE),
            self.h3("Descriptive statistics"),
            "<p>Distributions of human and system scores. SMD below −0.15 or above 0.15 is "
            "highlighted; for raw scores it also reflects differences in scale.</p>",
            table_html(frame[[c for c in _DISTRIBUTION_COLUMNS if c in frame.columns]], highlight=_SMD_RULE),
            self.h3("Association statistics"),
            "<p>Agreement between human and system scores (<code>kappa</code> on rounded system scores).</p>",
            table_html(frame[association]),
            self.confusion(self.frames["confMatrix"], "confmatrix", "human", "system", self.trim_round),
            self.h3("Score distributions"),
        ]
        dist = self.frames["score_dist"]
        system = [c for c in dist.columns if c.startswith("sys")][0]
        categories = [format_value(v, True) for v in dist["score"]]
        svg = figures.legend_chart(
            640,
            320,
            lambda box: figures.bar_panel(
                box,
                categories,
                {"human": _floats(dist["human"]), "system": _floats(dist[system])},
                x_title="score",
                y_title="% of responses",
            ),
            ["human", "system"],
            label="Bar chart of the percentage of responses at each score, human and system",
        )
        parts += [
            self.figure(
                "score-dist",
                svg,
                f"Human scores and <code>{self.trim_round}</code> system scores, as % of the responses.",
            ),
            "<p>Differences of more than 5 percentage points are highlighted.</p>",
            table_html(dist, index=False, highlight=_DISTRIBUTION_RULE),
        ]
        return "".join(parts)

    def confusion(self, matrix: pd.DataFrame, name: str, rows: str, columns: str, score: str = "") -> str:
        row_labels = [format_value(v, True) for v in matrix.index]
        column_labels = [format_value(v, True) for v in matrix.columns]
        size = 60 + 46 * max(len(row_labels), len(column_labels), 3)
        svg = figures.svg(
            size + 70,
            size + 50,
            [
                figures.heatmap_panel(
                    (0, 0, size + 70, size + 50),
                    matrix.to_numpy(dtype=float).tolist(),
                    row_labels,
                    column_labels,
                    title=f"{rows} (rows) × {columns} (columns)",
                    row_title=rows,
                    column_title=columns,
                )
            ],
            label=f"Confusion matrix of {rows} and {columns} scores",
        )
        what = f"<code>{escape(score)}</code> " if score else ""
        title = "Confusion matrix" if score else "Human-human confusion matrix"
        return (
            self.h3(title)
            + self.figure(
                name,
                svg,
                f"Number of responses at each pair of {rows} score (rows) and {what}{columns} score "
                "(columns).",
            )
            + table_html(matrix)
        )

    def true_score_evaluation(self) -> str:
        source = (
            "estimated from the double-scored responses"
            if "consistency" in self.report
            else "given (<code>rater_error_variance="
            f"{_option(self.report.info.get('rater_error_variance'))}</code>)"
        )
        return (
            self.h3("Proportional reduction in mean squared error (PRMSE)")
            + f"<p>How well each system score predicts the true score, the average over infinitely many "
            f"human raters. The rater error variance was {source}. See "
            f'<a href="{_DOCS}evaluation.html#true-score-evaluations">RSMTool\'s documentation</a>.</p>'
            + table_html(self.frames["true_score_eval"])
        )

    def evaluation_by_group(self) -> str:
        parts = []
        for group in self.report.groups:
            table = self.report[f"eval_by_{group}"]
            small = self.small_groups(group)
            parts.append(self.h3(f"Evaluation by {group}"))
            if group in self.min_n:
                parts.append(self.min_n_note(group))
            if len(small) == table["group"].nunique() - 1:
                parts.append(f"<p>No {_bdi(group)} group has {self.min_n[group]} or more responses.</p>")
                continue
            table = table[~table["group"].astype(str).isin(small).to_numpy()]
            parts.append(self.metric_grid(group, table))
            file = self.frames[f"eval_by_{group}"]
            parts.append(table_html(file[~file.index.astype(str).isin(small)]))
        return "".join(parts)

    def small_groups(self, group) -> set[str]:
        """The groups with fewer responses than ``min_n_per_group`` (left out of the subgroup
        figures and tables, as rsmeval's report leaves them out)."""
        if group not in self.min_n:
            return set()
        table = self.report[f"eval_by_{group}"]
        rows = table[(table["system"] == self.rows[self.trim]).to_numpy()]
        small = (rows["N"] < self.min_n[group]).to_numpy() & (rows["group"] != POOLED_LABEL).to_numpy()
        return set(rows["group"].astype(str)[small])

    def min_n_note(self, group) -> str:
        return (
            f'<p class="note">The report shows only the {_bdi(group)} groups with at least '
            f"{self.min_n[group]} responses (<code>min_n_per_group</code>); the tables and files keep "
            f"every group.</p>"
        )

    def metric_grid(self, group, table: pd.DataFrame) -> str:
        labels = _bar_order(
            rsmtool_labels(table.loc[table["system"] == self.rows[self.trim], "group"].to_numpy())
        )
        # RSMTool's layout: two panels a row for up to 6 groups, else one wide panel a row
        columns = 2 if len(labels) <= 7 else 1
        width = max(330, 46 + 44 * len(labels))
        height = 250 + figures.category_label_room(width, labels)  # long labels: written vertically
        panels = []
        systems = table["system"].to_numpy()
        by_system = {name: table[systems == row] for name, row in self.rows.items()}
        groups = {name: rsmtool_labels(rows["group"].to_numpy()) for name, rows in by_system.items()}
        sizes = self.group_sizes(group)
        small = [label != "All data" and sizes.get(label, AXIS_MIN_N) < AXIS_MIN_N for label in labels]
        for k, (metric, suffix, lines) in enumerate(_GRID):
            system = self.trim if suffix == "trim" else self.trim_round
            values = dict(zip(groups[system], by_system[system][metric].to_numpy(dtype=float).tolist()))
            column = [values.get(label, math.nan) for label in labels]
            scaled = [value for value, tiny in zip(column, small) if not tiny]
            limits = _grid_limits(metric, scaled, lines) or figures.nice_limits(scaled, (0.0, *lines))
            box = ((k % columns) * width, (k // columns) * height, width, height)
            panels.append(
                figures.bar_panel(
                    box,
                    labels,
                    {metric: column},
                    title=f"{metric}.{system} by {group}",
                    limits=limits,
                    reference_lines=lines,
                    small=small,
                )
            )
        rows = -(-len(_GRID) // columns)
        svg = figures.svg(columns * width, rows * height, panels, label=f"Evaluation metrics by {group}")
        return self.figure(
            f"eval-by-{group}",
            svg,
            f"Evaluation metrics for each {_bdi(group)} group (All data first). Dashed lines: 0.7 for "
            "<code>corr</code> and <code>wtkappa</code>, ±0.1 for DSM, RSMTool's reference lines."
            + self.small_note(labels, small, sizes),
        )

    def group_sizes(self, group) -> dict[str, int]:
        """Responses per group of a subgroup column (RSMTool's labels: "No info" for a blank)."""
        table = self.report[f"eval_by_{group}"]
        rows = table[(table["system"] == self.rows[self.trim]).to_numpy()]
        return dict(zip(rsmtool_labels(rows["group"].to_numpy()), rows["N"].astype(int).tolist()))

    @staticmethod
    def small_note(labels, small, sizes) -> str:
        """The caption's sentence on the groups that do not set the axes (none: no sentence)."""
        named = [f"{_bdi(label)} (N = {sizes[label]})" for label, tiny in zip(labels, small) if tiny]
        if not named:
            return ""
        return (
            f" Hollow: groups of fewer than {AXIS_MIN_N} responses ({', '.join(named)}); they do not set "
            "the axis range, and a value beyond it is drawn to the edge, marked ▲ or ▶, with the value "
            "written."
        )

    def fairness_analyses(self) -> str:
        parts = [
            "<p>The three fairness analyses of "
            '<a href="https://aclanthology.org/W19-4401/">Loukina, Madnani and Zechner (2019)</a>: '
            "overall score accuracy (OSA: how much of the variance of the squared error (S−H)² the "
            "group explains), overall score difference (OSD: the same for the error S−H) and "
            "conditional score difference (CSD: the error S−H after controlling for the human "
            "score).</p>"
        ]
        for group in self.report.groups:
            parts.append(self.h3(f"Fairness by {group}"))
            metrics = self.frames.get(f"fairness_metrics_by_{group}")
            if metrics is not None:
                shown = metrics.drop(columns=["base_category"], errors="ignore")
                base = metrics["base_category"].iloc[0] if "base_category" in metrics else ""
                parts.append(
                    f"<p>R² (share of variance explained by {_bdi(group)}) and its p value "
                    "(<code>sig</code>); "
                    f"reference category: {_bdi(base)}.</p>" + table_html(shown)
                )
            parts.append(self.coefficients(group))
            if f"conditional_means_by_{group}" in self.report:
                parts.append(self.conditional(group, self.report[f"conditional_means_by_{group}"]))
        return "".join(parts)

    def coefficients(self, group) -> str:
        panels, width, height = [], 330, 0
        colours, small = self.group_colours(group), self.small_groups(group)
        groups, tiny = [], []
        sizes = self.group_sizes(group)
        for k, model in enumerate(("osa", "osd", "csd")):
            name = f"estimates_{model}_by_{group}"
            if name not in self.report:
                continue
            table = self.report[name]
            table = table[~table["group"].astype(str).isin(small).to_numpy() | (table["term"] == "Intercept")]
            estimate = table["estimate"].to_numpy(dtype=float)
            intercept = (table["term"] == "Intercept").to_numpy()
            shift = np.where(intercept, 0.0, estimate[intercept][0] if intercept.any() else 0.0)
            error = estimate + shift
            half = np.abs(table["[0.025"].to_numpy(dtype=float) - estimate)
            height = max(height, 80 + 26 * len(table))
            groups = rsmtool_labels(table["group"].to_numpy())
            tiny = [sizes.get(label, AXIS_MIN_N) < AXIS_MIN_N for label in groups]
            panels.append(
                figures.error_bar_panel(
                    (k * width, 0, width, height),
                    [str(v) for v in table["rsmtool_label"]],
                    error.tolist(),
                    (error - half).tolist(),
                    (error + half).tolist(),
                    title=model.upper(),
                    x_title="error estimate",
                    colours=[colours.get(label, "#999") for label in table["group"].astype(str)],
                    small=tiny,
                )
            )
        if not panels:
            return ""
        svg = figures.svg(3 * width, height, panels, label=f"Fairness coefficients by {group}")
        return self.figure(
            f"fairness-{group}",
            svg,
            "Estimated error of each group (squared error for OSA, error for OSD, conditional error for "
            "CSD): the intercept's estimate added to each group's coefficient. Black bars: 95% "
            "confidence intervals of the model." + self.small_note(groups, tiny, sizes),
        )

    def group_colours(self, group) -> dict[str, str]:
        """One palette colour per group of a subgroup column, the same in every figure."""
        table = self.report[f"eval_by_{group}"]
        labels = table.loc[table["system"] == self.rows[self.trim], "group"].astype(str).tolist()
        labels = [label for label in labels if label != POOLED_LABEL]
        return {label: figures.PALETTE[k % len(figures.PALETTE)] for k, label in enumerate(labels)}

    def conditional(self, group, table: pd.DataFrame) -> str:
        x = sorted({float(v) for v in table["human_score"]})
        series = {}
        small = self.small_groups(group)
        for label, rows in table.groupby("group", sort=False):
            if str(label) in small:
                continue
            values = dict(zip(rows["human_score"].astype(float), rows["sys_mean"].astype(float)))
            series[str(label)] = [values.get(v, math.nan) for v in x]
        svg = figures.legend_chart(
            640,
            320,
            lambda box: figures.line_panel(
                box, x, series, x_title="human score", y_title=f"mean {self.trim}"
            ),
            list(series),
            label=f"Mean system score at each human score, by {group}",
            marker="circle",
        )
        return self.figure(
            f"conditional-{group}",
            svg,
            f"Mean <code>{self.trim}</code> score of each {_bdi(group)} group at each human score.",
        )

    def intermediate_file_paths(self) -> str:
        if not self.files:
            return (
                "<p>No files were written for this report. <code>report.to_csv(directory)</code> writes "
                "every table in rsmeval's file names and layout.</p>"
            )
        rows = pd.DataFrame(
            {
                "file": [str(path) for path in self.files],
                "content": [_describe(path) for path in self.files],
            }
        )
        return "<p>The tables of this report, as written to disk.</p>" + table_html(rows, index=False)

    def sysinfo(self) -> str:
        return sysinfo_html()


def sysinfo_html() -> str:
    """The system information section: Python, the platform and the packages' versions (found
    in a background thread while a run computes, see :func:`prefetch_versions`)."""
    versions = _versions()
    return table_html(pd.DataFrame({"version": list(versions.values())}, index=list(versions)))


# --------------------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------------------
_DESCRIPTIONS = {
    "eval": "evaluation metrics for every score type",
    "eval_short": "the short evaluation table",
    "eval_by_": "evaluation metrics by subgroup",
    "confMatrix": "confusion matrix, human × system",
    "confMatrix_h1h2": "confusion matrix, human × human",
    "score_dist": "score distributions",
    "consistency": "human-human agreement",
    "consistency_by_": "human-human agreement by subgroup",
    "degradation": "degradation, human-machine vs human-human",
    "disattenuated_correlations": "disattenuated correlations",
    "disattenuated_correlations_by_": "disattenuated correlations by subgroup",
    "true_score_eval": "true-score evaluation (PRMSE)",
    "fairness_metrics_by_": "fairness R² and p values",
    "estimates_osa_by_": "OSA model coefficients",
    "estimates_osd_by_": "OSD model coefficients",
    "estimates_csd_by_": "CSD model coefficients",
    "data_composition": "composition of the evaluation set",
    "data_composition_by_": "composition of the evaluation set by subgroup",
}


def _table(frame: pd.DataFrame, **options) -> str:
    """A table with its index when the index labels the rows (not a plain RangeIndex)."""
    return table_html(frame, index=not isinstance(frame.index, pd.RangeIndex), **options)


def _describe(path) -> str:
    stem = re.sub(r"\.[A-Za-z]+$", "", str(path).replace("\\", "/").rsplit("/", 1)[-1])
    for key in sorted(_DESCRIPTIONS, key=len, reverse=True):
        if stem.endswith("_" + key) or stem == key or (key.endswith("_") and f"_{key}" in f"_{stem}"):
            return _DESCRIPTIONS[key]
    return ""


def _format_column(values: list, dtype) -> list[str]:
    """A column's cells; integer columns (by dtype, or floats that are all whole) without decimals."""
    numbers = [v for v in values if isinstance(v, (float, np.floating)) and math.isfinite(v)]
    integers = pd.api.types.is_integer_dtype(dtype) or (
        bool(numbers) and all(float(v).is_integer() for v in numbers)
    )
    return [format_value(value, integers) for value in values]


def _outside(value, rule) -> bool:
    low, high, absolute = rule
    if not isinstance(value, (int, float, np.integer, np.floating)) or not math.isfinite(value):
        return False
    value = abs(value) if absolute else value
    return value < low or value > high


def _grid_limits(metric: str, values: Sequence[float], lines) -> tuple[float, float] | None:
    """RSMTool's y limits of the subgroup grid: [0, 1] (or [-1, 1]) for r and kappa, R2 up to 1."""
    finite = [v for v in values if math.isfinite(v)] or [0.0]
    if metric in ("corr", "wtkappa"):
        return (-1.0, 1.0) if min(finite) < 0 else (0.0, 1.0)
    if metric == "R2":
        return (min(finite) - 0.1, 1.0) if min(finite) < 0 else (0.0, 1.0)
    if metric == "RMSE":
        return 0.0, max(max(finite) + 0.1, 1.0)
    return None


def _bar_order(labels) -> list[str]:
    """RSMTool's bar order: All data first, "No info" last, the rest as given."""
    labels = [str(v) for v in labels]
    rest = [v for v in labels if v not in ("All data", "No info")]
    return ["All data"] * ("All data" in labels) + rest + ["No info"] * ("No info" in labels)


def _floats(values) -> list[float]:
    return pd.to_numeric(pd.Series(values), errors="coerce").astype(float).to_list()


def _label(value) -> str:
    if isinstance(value, (float, np.floating)) and math.isfinite(value) and float(value).is_integer():
        return str(int(value))
    return str(value)


def _option(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "—"


def prefetch_versions() -> None:
    """Find what the ``sysinfo`` section shows in a background thread, while the report is
    computed: ``platform.platform()`` runs ``uname -p`` (10 ms) and the versions of packages not
    imported are read from their metadata files."""
    global _prefetch
    if _prefetch is None:
        _prefetch = threading.Thread(target=_found_versions, name="pdmetrics-sysinfo", daemon=True)
        _prefetch.start()


_prefetch: threading.Thread | None = None


def _versions() -> dict[str, str]:
    """The versions the ``sysinfo`` section shows, by name."""
    if _prefetch is not None:
        _prefetch.join()  # found there already, or being found: not twice
    return _found_versions()


@functools.cache
def _found_versions() -> dict[str, str]:
    versions = {"Python": platform.python_version(), "platform": platform.platform()}
    return versions | {name: package_version(name) for name in _PACKAGES}


@functools.cache
def package_version(package: str) -> str:
    """A package's version, from the module when it is imported (fast), else its metadata
    (never importing it): the ``Version`` header of its METADATA file, read without parsing
    the whole file as an e-mail message (scipy's holds its licences: 10 ms)."""
    module = sys.modules.get(package)
    if isinstance(getattr(module, "__version__", None), str):
        return module.__version__
    try:
        text = importlib.metadata.distribution(package).read_text("METADATA") or ""
    except importlib.metadata.PackageNotFoundError:
        return "not installed"
    found = re.search(r"^Version:[ \t]*(\S+)", text.partition("\n\n")[0], re.MULTILINE)
    return found.group(1) if found else importlib.metadata.version(package)


def _slug(text) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", str(text)).strip("-").lower() or "x"


def escape(value) -> str:
    return html.escape(str(value))


def _bdi(value) -> str:
    """A name inside running text, escaped and isolated: a right-to-left name (or one holding
    direction controls) cannot reorder the words around it."""
    return f"<bdi>{escape(value)}</bdi>"
