"""The reStructuredText pages parse cleanly: no docutils warning, no unknown role, no text in
single backticks (what a role split by spaces, ``:mat  h:`H```, turns into), no section
underline broken by spaces (a heading that silently drops out of the navigation), and every
guide page is in the table of contents."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from docutils import nodes
from docutils.core import publish_doctree
from docutils.parsers.rst import Directive, directives, roles

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.rst") if not {"_build", "generated"} & set(p.parts))  # not built

# Sphinx's roles and directives that the pages use, checked by sphinx-build itself; docutils
# alone only needs to know they exist. Any other role is unknown and reported.
SPHINX_ROLES = ["func", "class", "meth", "attr", "mod", "obj", "exc", "data", "doc", "ref", "term"]
SPHINX_DIRECTIVES = ["toctree", "autosummary", "autoclass", "autofunction", "automodule", "currentmodule"]
SPHINX_DIRECTIVES += ["autodata", "plot"]  # plot: matplotlib.sphinxext.plot_directive (docs/conf.py)
ADORNMENT = "=-~^\"'`#*+:._"
SPLIT_UNDERLINE = re.compile(rf"^([{re.escape(ADORNMENT)}])\1+( +\1+)+\s*$")
SIMPLE_TABLE_BORDER = re.compile(r"^=+( +=+)+\s*$")
SPLIT_ROLE = re.compile(r":[a-z]+ +[a-z]+:`")


class _AnyOptions(dict):
    def __contains__(self, key):
        return True

    def __getitem__(self, key):
        return directives.unchanged


class _SphinxDirective(Directive):
    has_content = True
    optional_arguments = 10
    final_argument_whitespace = True
    option_spec = _AnyOptions()

    def run(self):
        return []


def _sphinx_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    return [nodes.literal(rawtext, text)], []


for _role in SPHINX_ROLES:
    roles.register_local_role(_role, _sphinx_role)
for _directive in SPHINX_DIRECTIVES:
    directives.register_directive(_directive, _SphinxDirective)


def doctree(text: str, source: str = "<page>"):
    return publish_doctree(
        text,
        source_path=source,
        settings_overrides={"report_level": 2, "halt_level": 5, "warning_stream": False},
    )


def problems(text: str, source: str = "<page>") -> list[str]:
    """Every problem found in one page's source, as ``source:line: what`` strings."""
    tree = doctree(text, source)
    found = [
        f"{source}:{message.get('line', '?')}: {message.children[0].astext()}"
        for message in tree.findall(nodes.system_message)
        if message["level"] >= 2
    ]
    found += [
        f"{source}: text in single backticks `{node.astext()}` (use ``literal`` or a role)"
        for node in tree.findall(nodes.title_reference)
    ]
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        if SPLIT_ROLE.search(line):
            found.append(f"{source}:{number}: a role split by spaces: {line.strip()}")
        above = lines[number - 2].strip() if number > 1 else ""  # a table may follow a title
        if SPLIT_UNDERLINE.match(line) and above and not set(above) <= set(ADORNMENT):
            if not _in_simple_table(lines, number - 1):
                found.append(f"{source}:{number}: a section underline broken by spaces: {line.strip()}")
    return found


def _in_simple_table(lines: list[str], index: int) -> bool:
    """Whether ``lines[index]`` (a border-like line) belongs to a simple table: a ``===  ===``
    border line comes before it in the same block of lines."""
    start = index
    while start > 0 and lines[start - 1].strip():
        start -= 1
        if SIMPLE_TABLE_BORDER.match(lines[start]):
            return True
    return False


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_page_parses_cleanly(page):
    assert not problems(page.read_text(encoding="utf-8"), str(page.relative_to(DOCS)))


def test_every_guide_page_is_in_the_table_of_contents():
    index = (DOCS / "index.rst").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\s+(guide/\S+)\s*$", index, flags=re.MULTILINE))
    pages = {f"guide/{p.stem}" for p in (DOCS / "guide").glob("*.rst")}
    assert pages <= listed, (
        f"guide pages missing from the toctree in docs/index.rst: {sorted(pages - listed)}"
    )


CORRUPTED = """\
Title
=====

Differences   from RSMTool: a column of spaces.

The ``eval``   table: ``evaluate``
------------  --------------------
``df.scoring  .evaluate(human=, system=)`` gives one row. :mat  h:`H` is the human score.

==========  =======
column      meaning
==========  =======
``N``       count
==========  =======
"""


def test_the_checks_catch_a_column_of_spaces():
    found = "\n".join(problems(CORRUPTED))
    assert "a section underline broken by spaces" in found
    assert "a role split by spaces" in found
    assert "single backticks `H`" in found
    assert "simple table" not in found and found.count("\n") == 2  # the table itself is fine


def test_the_checks_report_unknown_roles_and_bad_markup():
    found = "\n".join(problems("Title\n=====\n\nA :nosuchrole:`x` and ``unclosed literal.\n"))
    assert 'Unknown interpreted text role "nosuchrole"' in found
    assert "Inline literal start-string without end-string" in found
