"""The test suite cannot pass by accident: conformance data is required in CI, hypothesis tests
filter with ``assume()``, every ``pytest.warns`` pins its message, and CI installs the reference
libraries the cross-checks need and the Chromium the HTML report is opened in."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import browser
import conftest
import pytest

TESTS = Path(__file__).resolve().parent
REFERENCE_MODULES = [
    "pycocotools",
    "faster_coco_eval",
    "valor_lite",
    "aif360",
    "fairlearn",
    "sklearn",
    "dask",
    "distributed",
    "polars",
]


def _test_modules():
    return sorted(TESTS.glob("test_*.py"))


def _is_given(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
    return name == "given"


def _own_nodes(function: ast.FunctionDef):
    """Every node in a function's body, not descending into nested functions or classes."""
    stack = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def early_returns_in_given_tests(source: str, filename: str = "<test>") -> list[str]:
    """``file:line`` of every ``return`` inside a ``@given`` test (use ``assume()`` instead)."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            _is_given(d) for d in node.decorator_list
        ):
            found += [f"{filename}:{n.lineno}" for n in _own_nodes(node) if isinstance(n, ast.Return)]
    return found


def warns_without_match(source: str, filename: str = "<test>") -> list[str]:
    """``file:line`` of every ``pytest.warns(...)`` call without ``match=``."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "warns"
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "pytest"
            and not any(k.arg == "match" for k in node.keywords)
        ):
            found.append(f"{filename}:{node.lineno}")
    return found


def test_hypothesis_tests_filter_with_assume():
    found = [hit for p in _test_modules() for hit in early_returns_in_given_tests(p.read_text(), p.name)]
    assert not found, f"use hypothesis.assume() instead of an early return in a @given test: {found}"


def test_every_pytest_warns_pins_its_message():
    found = [hit for p in _test_modules() for hit in warns_without_match(p.read_text(), p.name)]
    assert not found, f"give pytest.warns a match= regex for the message: {found}"


def test_the_source_checks_find_what_they_look_for():
    source = (
        "@settings(max_examples=5)\n"
        "@given(st.integers())\n"
        "def test_a(x):\n"
        "    def helper():\n"
        "        return 1\n"  # a nested function may return
        "    if x < 0:\n"
        "        return\n"
        "    with pytest.warns(UserWarning):\n"
        "        pass\n"
        "    with pytest.warns(UserWarning, match='pinned'):\n"
        "        pass\n"
    )
    assert early_returns_in_given_tests(source) == ["<test>:7"]
    assert warns_without_match(source) == ["<test>:8"]


@pytest.mark.parametrize("value, expected", [("true", True), ("1", True), ("TRUE", True), ("", False)])
def test_ci_is_read_from_the_environment(monkeypatch, value, expected):
    monkeypatch.setenv("CI", value)
    assert conftest.running_in_ci() is expected


def test_missing_conformance_data_fails_in_ci(monkeypatch, tmp_path):
    monkeypatch.setattr(conftest, "CONFORMANCE", tmp_path / "missing")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="conformance data missing in CI"):
        conftest.conformance_path("coco", "file.json")
    with pytest.raises(pytest.fail.Exception, match="shared/conformance"):
        conftest.require_conformance_in_ci()


def test_missing_conformance_data_skips_in_a_users_clone(monkeypatch, tmp_path):
    monkeypatch.setattr(conftest, "CONFORMANCE", tmp_path / "missing")
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="conformance data not available"):
        conftest.conformance_path("coco", "file.json")
    conftest.require_conformance_in_ci()  # no error outside CI


def test_present_conformance_data_is_returned(monkeypatch, tmp_path):
    (tmp_path / "coco").mkdir()
    (tmp_path / "coco" / "file.json").write_text("{}")
    monkeypatch.setattr(conftest, "CONFORMANCE", tmp_path)
    monkeypatch.setenv("CI", "true")
    assert conftest.conformance_path("coco", "file.json") == tmp_path / "coco" / "file.json"
    conftest.require_conformance_in_ci()


def test_missing_chromium_fails_in_ci(monkeypatch):
    monkeypatch.setattr(browser, "find_chromium", lambda: None)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="chromium missing in CI"):
        browser.require_chromium()


def test_missing_chromium_skips_in_a_users_clone(monkeypatch):
    monkeypatch.setattr(browser, "find_chromium", lambda: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="chromium not found: install Chromium"):
        browser.require_chromium()


@pytest.mark.skipif(not conftest.running_in_ci(), reason="CI installs Chromium (.ci/run)")
def test_ci_has_chromium():
    assert browser.find_chromium() is not None, f"chromium missing: {browser.INSTALL_HINT}"


@pytest.mark.skipif(not conftest.running_in_ci(), reason="CI installs the `reference` extra")
@pytest.mark.parametrize("module", REFERENCE_MODULES)
def test_ci_has_the_reference_libraries(module):
    missing = f"{module} missing: install '.[test,reference,dask,polars]'"
    assert importlib.util.find_spec(module) is not None, missing
