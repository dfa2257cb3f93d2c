"""Formulas as MathML, written into the HTML when the site is built: no script, no CDN.

Sphinx's default, MathJax, loads a script from a CDN and leaves the LaTeX source on the page
for it to typeset: offline a reader sees raw LaTeX. This extension converts every ``:math:``
role, ``.. math::`` block and notebook ``$...$`` to MathML with latex2mathml at build time;
browsers draw MathML natively (Chromium 109+, Firefox, Safari), so the pages need nothing from
the network. A formula latex2mathml cannot convert is a build warning (an error under ``-W``)
naming the formula, and is shown as its LaTeX source.

In ``conf.py``: ``extensions += ["mathml_math"]`` with ``docs/_ext`` on ``sys.path``; the
extension sets ``html_math_renderer = "mathml"``.
"""

from __future__ import annotations

import html

from docutils import nodes
from latex2mathml.converter import convert
from sphinx.locale import _
from sphinx.util import logging
from sphinx.util.math import get_node_equation_number

logger = logging.getLogger(__name__)


def to_mathml(latex: str, node: nodes.Node, *, display: str) -> str:
    """MathML of one formula; its escaped LaTeX source (and a warning) when it does not convert."""
    try:
        return convert(latex, display=display)
    except Exception as error:  # latex2mathml raises its own exceptions and plain ones
        logger.warning("cannot convert the formula %r to MathML: %s", latex, error, location=node)
        return f"<code>{html.escape(latex)}</code>"


def html_visit_math(self, node: nodes.math) -> None:
    self.body.append(self.starttag(node, "span", "", CLASS="math notranslate"))
    self.body.append(to_mathml(node.astext(), node, display="inline") + "</span>")
    raise nodes.SkipNode


def html_visit_displaymath(self, node: nodes.math_block) -> None:
    self.body.append(self.starttag(node, "div", CLASS="math notranslate"))
    if node["number"]:
        number = get_node_equation_number(self, node)
        self.body.append(f'<span class="eqno">({number})')
        self.add_permalink_ref(node, _("Link to this equation"))
        self.body.append("</span>")
    # blank lines separate equations (as in Sphinx's MathJax output); ``\\`` breaks a line
    for part in (p for p in node.astext().split("\n\n") if p.strip()):
        latex = rf"\begin{{aligned}}{part}\end{{aligned}}" if r"\\" in part else part
        self.body.append(to_mathml(latex, node, display="block"))
    self.body.append("</div>\n")
    raise nodes.SkipNode


def setup(app):
    app.add_html_math_renderer("mathml", (html_visit_math, None), (html_visit_displaymath, None))
    app.config.html_math_renderer = "mathml"
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
