"""The package's own layout rules (DESIGN): no private name imported across modules, no import
inside a function body except to defer a heavy or optional dependency, and no module named like
a public function of its package (``pdmetrics.fairness.classification`` must be the function)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "pdmetrics"
MODULES = sorted(PACKAGE.rglob("*.py"))
#: Imports allowed inside a function: they load a heavy or optional library on first use.
DEFERRED = ("scipy", "statsmodels", "matplotlib", "dask", "distributed", "pyarrow", "polars")


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_private_name_imported_across_modules(path):
    private = [
        f"line {node.lineno}: {node.module}.{alias.name}"
        for node in ast.walk(_tree(path))
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pdmetrics")
        for alias in node.names
        if alias.name.startswith("_")
    ]
    assert not private, private


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_inside_functions_only_defer_heavy_libraries(path):
    inner = []
    for function in ast.walk(_tree(path)):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(function):
                if isinstance(node, ast.ImportFrom):
                    names = [node.module or ""]
                elif isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                else:
                    continue
                inner += [f"line {node.lineno}: {name}" for name in names if not name.startswith(DEFERRED)]
    assert not inner, inner


@pytest.mark.parametrize("package", ["scoring", "fairness", "detection", "textgen"])
def test_no_module_shares_a_name_with_a_public_function(package):
    module = importlib.import_module(f"pdmetrics.{package}")
    submodules = {path.stem for path in (PACKAGE / package).glob("*.py")}
    clashes = sorted(name for name in module.__all__ if name in submodules)
    assert not clashes, clashes
