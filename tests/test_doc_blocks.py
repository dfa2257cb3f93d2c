"""Every Python code block of the docs and of README.md compiles, and the blocks that run, run.

The blocks (the convention is also in docs/install.rst, "Code examples in these pages"):

- In ``docs/**/*.rst``: ``.. code-block:: python`` blocks, ``.. plot::`` blocks and ``>>>``
  (doctest) blocks. A bare ``::`` literal block is refused: every literal block names its
  language (``.. code-block:: console`` for a shell, ``text`` for output), so no Python
  block goes unnoticed. In README.md: the fenced `````python`` blocks.
- Every Python block compiles (``>>>`` / ``...`` prompts stripped).
- Every ``code-block:: python`` says whether it runs as written: ``:class: runs`` (the test
  executes it in a fresh namespace, in an empty folder) or ``:class: partial`` (it uses data
  the reader has, such as ``df``, or elides: it is only compiled). In README.md the marker
  is an HTML comment on the line above the fence: ``<!-- runs -->`` or ``<!-- partial -->``.
- ``.. plot::`` blocks always run (the docs build runs them, after conf.py's
  ``plot_pre_code``); ``>>>`` blocks run as doctests (their output is compared).
- In a ``runs`` block, a top-level expression followed by a comment that is a Python literal
  (``x.tolist()  # ['a', 'b']``, ``model.z_sd  # 0.89``) must give that value (floats to the
  decimals shown; a one-row table is compared by its last column, the metric).
- A page that says its block runs ("runs as written", "run as written", "runs as is") marks
  that block ``runs``.
"""

from __future__ import annotations

import ast
import contextlib
import doctest
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import test_docs  # registers Sphinx's roles and directives with docutils
from docutils import nodes
from docutils.parsers.rst import Directive, directives

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = test_docs.PAGES
MARKERS = ("runs", "partial")
SAYS_IT_RUNS = re.compile(r"\bruns? as (written|is)\b", re.IGNORECASE)
PROMPT = re.compile(r"^(>>>|\.\.\.)( |$)")


@dataclass
class Block:
    """One code block: where it is, its kind (``code``, ``plot``, ``doctest``, ``literal``,
    ``markdown``), its language, its classes (markers) and its text."""

    source: str
    line: int
    kind: str
    language: str
    text: str
    classes: list[str] = field(default_factory=list)
    before: str = ""  # the text of the lines just above the block

    def __str__(self) -> str:
        return f"{self.source}:{self.line}"

    @property
    def is_python(self) -> bool:
        return self.kind in {"plot", "doctest"} or self.language in {"python", "python3", "py", "pycon"}

    @property
    def code(self) -> str:
        """The Python source: prompts stripped when the block is a console session."""
        lines = self.text.splitlines()
        if any(PROMPT.match(line) for line in lines):
            lines = [PROMPT.sub("", line) for line in lines if PROMPT.match(line)]
        return "\n".join(lines) + "\n"


class _Capture(Directive):
    """Stands in for ``code-block``/``plot``/...: keeps the block as a literal_block with its
    language, options and line (Sphinx's own directives accept the same options)."""

    has_content = True
    optional_arguments = 1
    final_argument_whitespace = False
    option_spec = test_docs._AnyOptions(alt=directives.unchanged)  # not empty: options are parsed

    def run(self):
        text = "\n".join(self.content)
        node = nodes.literal_block(text, text)
        node["pdm_kind"] = "plot" if self.name == "plot" else "code"
        node["pdm_language"] = self.arguments[0].strip() if self.arguments else ""
        node["pdm_classes"] = self.options.get("class", "").split()
        node["pdm_line"] = self.lineno
        return [node]


CAPTURED = ("code-block", "code", "sourcecode", "plot")


@contextlib.contextmanager
def _capturing():
    saved = {name: directives._directives.get(name) for name in CAPTURED}
    for name in CAPTURED:
        directives.register_directive(name, _Capture)
    try:
        yield
    finally:
        for name, directive in saved.items():
            if directive is None:
                directives._directives.pop(name, None)
            else:
                directives._directives[name] = directive


def _line_of(node) -> int:
    """A literal or doctest block's first line (its parent's when docutils gives none)."""
    while node is not None and node.line is None:
        node = node.parent
    return node.line if node is not None else 0


def rst_blocks(text: str, source: str = "<page>") -> list[Block]:
    with _capturing():
        tree = test_docs.doctree(text, source)
    lines = text.splitlines()
    found = []
    for node in tree.findall(lambda n: isinstance(n, nodes.literal_block | nodes.doctest_block)):
        if isinstance(node, nodes.doctest_block):
            kind, language, classes = "doctest", "pycon", []
            line = _line_of(node)
        elif "pdm_kind" in node:
            kind, language, classes = node["pdm_kind"], node["pdm_language"], node["pdm_classes"]
            line = node["pdm_line"]
        else:
            kind, language, classes = "literal", "", []
            line = _line_of(node)
        before = "\n".join(lines[max(0, line - 6) : max(0, line - 1)])
        found.append(Block(source, line, kind, language, node.astext(), classes, before))
    return found


FENCE = re.compile(
    r"^(?:<!-- (?P<marker>[\w-]+) -->\n)?```(?P<language>[\w+-]*)[^\n]*\n(?P<text>.*?)^```", re.S | re.M
)


def markdown_blocks(text: str, source: str = "README.md") -> list[Block]:
    found = []
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start("text"))
        marker = [match["marker"]] if match["marker"] else []
        before = "\n".join(text[: match.start()].splitlines()[-4:])
        found.append(Block(source, line, "markdown", match["language"], match["text"], marker, before))
    return found


def all_blocks() -> list[Block]:
    blocks = []
    for page in PAGES:
        blocks += rst_blocks(page.read_text(encoding="utf-8"), f"docs/{page.relative_to(DOCS)}")
    blocks += markdown_blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    return blocks


BLOCKS = all_blocks()
PYTHON = [block for block in BLOCKS if block.is_python]
RUNS = [block for block in PYTHON if block.kind in {"plot", "doctest"} or "runs" in block.classes]


def test_the_pages_have_python_blocks_and_some_run():
    assert len(PYTHON) >= 40 and len(RUNS) >= 15, (len(PYTHON), len(RUNS))
    assert any(b.source == "README.md" for b in PYTHON)
    assert any(b.source == "docs/guide/textgen.rst" and "runs" in b.classes for b in PYTHON)


def test_no_bare_literal_block():
    bare = [f"{b}: {b.text.splitlines()[0] if b.text else ''}" for b in BLOCKS if b.kind == "literal"]
    assert not bare, (
        "a `::` literal block hides its language (Sphinx highlights it as Python): write "
        "`.. code-block:: python` (with :class: runs or partial), `console` or `text`:\n" + "\n".join(bare)
    )


@pytest.mark.parametrize("block", PYTHON, ids=str)
def test_python_block_compiles(block):
    try:
        compile(block.code, str(block), "exec")
    except SyntaxError as error:
        pytest.fail(f"{block}: the Python block does not compile: {error}\n{block.text}")


def test_every_python_code_block_says_whether_it_runs():
    unmarked = [
        f"{b} ({b.kind}, markers {b.classes})"
        for b in PYTHON
        if b.kind in {"code", "markdown"} and len(set(b.classes) & set(MARKERS)) != 1
    ]
    assert not unmarked, (
        "mark each Python block `:class: runs` (the tests execute it) or `:class: partial` "
        "(compiled only; README.md: `<!-- runs -->` / `<!-- partial -->` above the fence):\n"
        + "\n".join(unmarked)
    )


def test_a_block_the_page_says_runs_is_marked_runs():
    said = [str(b) for b in PYTHON if SAYS_IT_RUNS.search(b.before) and b not in RUNS]
    assert not said, f"the page says these blocks run as written; mark them `:class: runs`: {said}"


def _plot_pre_code() -> str:
    conf = ast.parse((DOCS / "conf.py").read_text(encoding="utf-8"))
    for statement in conf.body:
        if isinstance(statement, ast.Assign) and statement.targets[0].id == "plot_pre_code":
            return ast.literal_eval(statement.value)
    return ""


def _shown(value):
    """A value as a comment may show it: numpy scalars as Python numbers, arrays as lists, a
    one-row table as the value of its last column (the metric)."""
    if hasattr(value, "columns") and len(value) == 1:
        value = value.iloc[0, -1]
    if hasattr(value, "tolist") and not hasattr(value, "columns"):
        return value.tolist()
    return value


def _matches(actual, expected) -> bool:
    """``actual`` equals the literal ``expected``; a float to the decimals it is written with."""
    actual = _shown(actual)
    if isinstance(expected, float) and isinstance(actual, int | float):
        decimals = len(repr(expected).split(".")[1]) if "." in repr(expected) else 0
        return math.isclose(actual, expected, abs_tol=0.5 * 10**-decimals + 1e-12)
    if isinstance(expected, tuple | list) and isinstance(actual, tuple | list):
        return len(actual) == len(expected) and all(map(_matches, actual, expected))
    try:
        return bool(actual == expected)
    except (ValueError, TypeError):  # a frame or an array against a number
        return False


def _claims(code: str) -> list[tuple[int, str]]:
    """(line, literal) of each top-level expression whose line ends with a literal comment."""
    lines = code.splitlines()
    claims = []
    for statement in ast.parse(code).body:
        if not isinstance(statement, ast.Expr):
            continue
        last = lines[statement.end_lineno - 1]
        if "#" not in last:
            continue
        comment = last[last.index("#") + 1 :].strip()
        try:
            ast.literal_eval(comment)
        except (ValueError, SyntaxError):
            continue
        claims.append((statement.lineno, comment))
    return claims


def run_block(block: Block) -> None:
    """Execute one block: plot blocks after conf.py's plot_pre_code, doctests as doctests, and a
    ``runs`` block statement by statement, checking the values its comments claim."""
    if block.kind == "doctest":
        test = doctest.DocTestParser().get_doctest(block.text, {}, str(block), block.source, block.line)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        runner.run(test)
        assert runner.failures == 0, f"{block}: the doctest fails"
        return
    code = (_plot_pre_code() + "\n" if block.kind == "plot" else "") + block.code
    offset = code.count("\n") - block.code.count("\n")
    namespace: dict = {"__name__": "__doc_block__"}
    claims = dict(_claims(code))
    for statement in ast.parse(code).body:
        module = ast.Module(body=[statement], type_ignores=[])
        if statement.lineno in claims:
            source = ast.Expression(body=statement.value)
            value = eval(compile(source, str(block), "eval"), namespace)  # noqa: S307
            expected = ast.literal_eval(claims[statement.lineno])
            assert _matches(value, expected), (
                f"{block} (line {statement.lineno - offset} of the block): the comment says "
                f"{claims[statement.lineno]}, the code gives {value!r}"
            )
        else:
            exec(compile(module, str(block), "exec"), namespace)  # noqa: S102


@pytest.fixture
def in_empty_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    yield tmp_path
    if "matplotlib.pyplot" in __import__("sys").modules:
        __import__("matplotlib.pyplot").pyplot.close("all")


@pytest.mark.parametrize("block", RUNS, ids=str)
def test_block_runs_as_written(block, in_empty_folder):
    if block.kind == "plot":
        pytest.importorskip("matplotlib")
        import matplotlib

        matplotlib.use("Agg")
    run_block(block)


# the checks themselves


PAGE = """\
Title
=====

Each runs as written:

.. code-block:: python
   :class: runs

   x = [1, 2]
   sum(x)  # 3

A bare block::

   print("hello")

.. code-block:: python

   df.scoring.evaluate(human=, system="raw")

>>> 1 + 1
2

.. plot::

   import matplotlib.pyplot as plt
"""


def test_the_extractor_finds_every_kind_of_block():
    blocks = rst_blocks(PAGE)
    assert [(b.kind, b.language, b.classes, b.line) for b in blocks] == [
        ("code", "python", ["runs"], 6),
        ("literal", "", [], 14),
        ("code", "python", [], 16),
        ("doctest", "pycon", [], 20),
        ("plot", "", [], 23),
    ]
    assert SAYS_IT_RUNS.search(blocks[0].before)
    assert blocks[3].code == "1 + 1\n"
    with pytest.raises(SyntaxError):
        compile(blocks[2].code, "x", "exec")
    readme = "Text\n\n<!-- runs -->\n```python\nx = 1\n```\n\n```bash\nls\n```\n"
    assert [(b.language, b.classes, b.text) for b in markdown_blocks(readme)] == [
        ("python", ["runs"], "x = 1\n"),
        ("bash", [], "ls\n"),
    ]


def test_a_wrong_claimed_value_fails():
    good = "x = [1, 2]\nsum(x)  # 3\nx  # [1, 2]\n0.745  # 0.75"
    run_block(Block("<page>", 1, "code", "python", good, ["runs"]))
    with pytest.raises(AssertionError, match="the comment says 4, the code gives 3"):
        run_block(Block("<page>", 1, "code", "python", "x = [1, 2]\nsum(x)  # 4", ["runs"]))
    with pytest.raises(AssertionError, match="the doctest fails"):
        run_block(Block("<page>", 1, "doctest", "pycon", ">>> 1 + 1\n3\n"))
