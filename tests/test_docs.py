"""The reStructuredText pages parse cleanly: no docutils warning, no unknown role, no text in
single backticks (what a role split by spaces, ``:mat  h:`H```, turns into), no section
underline broken by spaces (a heading that silently drops out of the navigation), every guide
page and every notebook is in the table of contents, every guide page shows a figure, the front
page has the README's quick start and the report's screenshot, and the ``docs`` extra installs
every Sphinx extension that ``docs/conf.py`` loads (CI builds the site from that extra alone)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from docutils import nodes
from docutils.core import publish_doctree
from docutils.parsers.rst import Directive, directives, roles

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.rst") if not {"_build", "generated"} & set(p.parts))  # not built

# Sphinx's roles and directives that the pages use, checked by sphinx-build itself; docutils
# alone only needs to know they exist. Any other role is unknown and reported.
SPHINX_ROLES = ["func", "class", "meth", "attr", "mod", "obj", "exc", "data", "doc", "ref", "term"]
SPHINX_DIRECTIVES = ["toctree", "autosummary", "autoclass", "autofunction", "automodule", "currentmodule"]
# ... and the directives of the extensions in docs/conf.py (matplotlib's plot directive, sphinx-design)
SPHINX_DIRECTIVES += ["autodata", "plot", "grid", "grid-item-card", "card", "button-ref", "button-link"]
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


def toctree_entries(page: Path) -> set[str]:
    """The documents listed in the ``.. toctree::`` directives of one page (glob patterns kept)."""
    entries, inside = set(), False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith(".. toctree::"):
            inside = True
        elif inside and line and not line[0].isspace():
            inside = False
        elif inside and line.strip() and not line.strip().startswith(":"):
            entries.add(line.strip())
    return entries


def listed_documents() -> set[str]:
    """Every document that a top-level page (``docs/*.rst``) lists in a toctree."""
    return set().union(*(toctree_entries(page) for page in DOCS.glob("*.rst")))


def test_every_guide_page_is_in_the_table_of_contents():
    listed = listed_documents()
    pages = {f"guide/{p.stem}" for p in (DOCS / "guide").glob("*.rst")}
    assert pages <= listed, (
        f"guide pages missing from a toctree in docs/*.rst (docs/user_guide.rst): {sorted(pages - listed)}"
    )


def test_the_front_page_lists_every_top_level_page():
    listed = toctree_entries(DOCS / "index.rst")
    top = {p.stem for p in DOCS.glob("*.rst")} - {"index"}
    assert top | {"api/index"} <= listed, f"missing from docs/index.rst's toctree: {sorted(top - listed)}"
    for entry in listed_documents() - {"notebooks/*"}:
        assert (DOCS / f"{entry}.rst").is_file(), f"a toctree lists {entry!r}: no docs/{entry}.rst"


def test_every_notebook_is_in_the_gallery():
    """docs/notebooks links to notebooks/; the gallery's toctree takes them all, and each has a card."""
    assert (DOCS / "notebooks").resolve() == (ROOT / "notebooks").resolve()
    gallery = (DOCS / "gallery.rst").read_text(encoding="utf-8")
    assert "notebooks/*" in toctree_entries(DOCS / "gallery.rst")
    cards = set(re.findall(r":link: (notebooks/\S+)", gallery))
    notebooks = {f"notebooks/{p.stem}" for p in (ROOT / "notebooks").glob("*.ipynb")}
    assert notebooks and cards == notebooks, f"gallery cards {sorted(cards)} != notebooks {sorted(notebooks)}"


def test_the_front_page_has_the_quick_start_and_the_report_screenshot():
    index = (DOCS / "index.rst").read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick_start = (
        "pip install . && pdmetrics demo",
        'pip install -e ".[test,reference,dask,polars]" && python -m pytest',
    )
    for command in quick_start:
        assert command in readme and command in index, command
    assert ".. image:: _static/report.png" in index
    png = (DOCS / "_static" / "report.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "docs/_static/report.png is not a PNG"


def test_the_docs_extra_installs_every_extension_conf_loads():
    tomllib = pytest.importorskip("tomllib")
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]["docs"]
    names = {re.split(r"[<>=!~\[ ]", requirement, maxsplit=1)[0].lower() for requirement in extra}
    conf = (DOCS / "conf.py").read_text(encoding="utf-8")
    # module loaded by conf.py -> the distribution that provides it
    needed = {
        "numpydoc": "numpydoc",
        "matplotlib.sphinxext": "matplotlib",
        "myst_nb": "myst-nb",
        "sphinx_design": "sphinx-design",
        "pydata_sphinx_theme": "pydata-sphinx-theme",
    }
    for module, distribution in needed.items():
        if f'"{module}' in conf:
            assert distribution in names, f"docs/conf.py uses {module}: add {distribution} to the docs extra"
    if "myst_nb" in conf:  # the notebooks are executed in a kernel
        assert "ipykernel" in names, "myst-nb executes the notebooks: add ipykernel to the docs extra"


FIGURE = re.compile(r"^\s*\.\. (plot|image|figure)::", flags=re.MULTILINE)


@pytest.mark.parametrize("page", sorted((DOCS / "guide").glob("*.rst")), ids=lambda p: p.name)
def test_every_guide_page_shows_a_figure(page):
    assert FIGURE.search(page.read_text(encoding="utf-8")), (
        f"docs/guide/{page.name} has no figure: add a ``.. plot::`` block drawing with df.<accessor>.plot"
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


NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_executed(path):
    """A reader of the repository sees every table and figure: each notebook is stored with the
    outputs of one clean run in order (``python docs/execute_notebooks.py``), figures as PNG,
    no error, no execution timestamps, and a moderate size."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    code = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
    counts = [cell["execution_count"] for cell in code]
    assert counts == list(range(1, len(code) + 1)), (
        f"{path.name} is not stored executed in order (execution counts {counts}): run "
        "`python docs/execute_notebooks.py`"
    )
    outputs = [output for cell in code for output in cell["outputs"]]
    assert not [o for o in outputs if o["output_type"] == "error"], f"{path.name} stores an error"
    kinds = {kind for o in outputs for kind in o.get("data", {})}
    assert "image/png" in kinds and "image/svg+xml" not in kinds, f"{path.name}: figures as PNG ({kinds})"
    assert not [cell for cell in code if "execution" in cell["metadata"]], f"{path.name}: timestamps stored"
    assert path.stat().st_size < 400_000, f"{path.name} is {path.stat().st_size} bytes"


def test_the_docs_show_the_stored_notebooks_and_load_nothing_from_a_cdn():
    """The build shows the notebooks' stored outputs (the tests execute them), and formulas are
    MathML written at build time: no MathJax, no script or style from another site."""
    conf = (DOCS / "conf.py").read_text(encoding="utf-8")
    assert re.search(r'^nb_execution_mode = "(off|auto)"', conf, flags=re.MULTILINE), "myst-nb re-executes"
    assert "sphinx.ext.mathjax" not in conf and 'html_math_renderer = "mathml"' in conf
    assert '"mathml_math"' in conf
    sources = [conf, *(p.read_text(encoding="utf-8") for p in (DOCS / "_ext").glob("*.py"))]
    for text in sources:  # no address at all: nothing for the built pages to fetch
        assert not re.findall(r"(?:https?:)?//[\w.-]+\.[a-z]{2,}/", text), re.findall(r"https?://\S+", text)
    tomllib = pytest.importorskip("tomllib")
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]["docs"]
    assert any(requirement.startswith("latex2mathml") for requirement in extra)


def test_formulas_become_mathml():
    pytest.importorskip("sphinx")
    pytest.importorskip("latex2mathml")
    import sys

    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import mathml_math
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    mathml = mathml_math.to_mathml(r"\frac{S_H}{S_Z}", nodes.math(), display="inline")
    assert mathml.startswith("<math") and "<mfrac>" in mathml and "\\frac" not in mathml


def test_the_report_screenshot_ends_at_a_clean_boundary():
    """docs/_static/report.png (docs/make_report_screenshot.py) ends below a whole figure: its
    last rows are plain page background, not the inside of a figure or its frame."""
    image = pytest.importorskip("PIL.Image")
    with image.open(DOCS / "_static" / "report.png") as picture:
        rgb = picture.convert("RGB")
        width, height = rgb.size
        bottom = {rgb.getpixel((x, y)) for y in range(height - 12, height) for x in range(width)}
    assert len(bottom) == 1, f"the screenshot is cut through a figure: {len(bottom)} colours in its last rows"


def test_the_front_page_names_every_accessor_with_a_card():
    index = (DOCS / "index.rst").read_text(encoding="utf-8")
    for accessor in ("df.scoring", "df.fairness", "df.detection", "df.textgen"):
        assert f"``{accessor}``" in index, accessor
    cards = set(re.findall(r"grid-item-card::.*\n\s+:link: (\S+)", index))
    assert {"guide/scoring", "guide/fairness", "guide/detection", "guide/textgen", "guide/dask"} <= cards


def test_install_lists_every_extra_and_nothing_else():
    tomllib = pytest.importorskip("tomllib")
    extras = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
            "optional-dependencies"
        ]
    )
    install = (DOCS / "install.rst").read_text(encoding="utf-8")
    listed = set(re.findall(r"^   \* - ``([a-z]+)``$", install, flags=re.MULTILINE))
    assert listed == extras, f"docs/install.rst lists {sorted(listed)}, pyproject.toml has {sorted(extras)}"
    assert "comes later" not in install
