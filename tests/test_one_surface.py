"""One surface: every accessor method is one line over its domain's public core function, and
every engine (pandas, dask, polars) offers exactly the core function's keywords.

The core function takes the frame first, then keyword arguments only; the accessor method on a
pandas or polars frame takes exactly those keywords, on a dask frame those plus ``compute=``.
An accessor can therefore never lose an option of its core function again.
"""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys

import pytest
from surface import DOMAINS, ENGINES, bound_methods, frame_of, method_names, parameters

from pdmetrics.accessors import ACCESSORS
from pdmetrics.accessors.base import method, namespace

#: What each engine adds to every method.
ENGINE_KEYWORDS = {"pandas": [], "dask": ["compute"], "polars": []}


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_accessor_method_is_one_line_over_its_core_function(domain):
    accessor = ACCESSORS[domain]
    assert method_names(domain)
    for name in method_names(domain):
        declared = inspect.getattr_static(accessor, name)
        assert isinstance(declared, method), f"df.{domain}.{name} is written out instead of `method(...)`"
        core = declared.core()
        assert core.__name__ == name
        assert callable(core.spec), f"pdmetrics.{domain}.{name} has no table spec"
    if hasattr(accessor, "plot"):
        assert isinstance(inspect.getattr_static(accessor, "plot"), namespace)


@pytest.mark.parametrize("domain", DOMAINS)
def test_core_functions_take_the_frame_first_then_keywords(domain):
    for name in method_names(domain):
        core = inspect.getattr_static(ACCESSORS[domain], name).core()
        first, *rest = inspect.signature(core).parameters.values()
        assert first.name == "frame" and first.kind is inspect.Parameter.POSITIONAL_ONLY, name
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in rest), name


@pytest.mark.parametrize("engine", ENGINES)
def test_every_method_on_every_engine_takes_the_core_functions_keywords(engine):
    found = bound_methods(engine)
    assert len(found) > 40
    for where, bound in found:
        domain, name = where.split(".")[-2:]
        core = inspect.getattr_static(ACCESSORS[domain], name).core()
        expected = parameters(core)[1:]
        got = parameters(bound)
        assert [p for p in got if p[0] not in ENGINE_KEYWORDS[engine]] == expected, where
        assert [p[0] for p in got[len(expected) :]] == ENGINE_KEYWORDS[engine], where


@pytest.mark.parametrize("engine", ENGINES)
def test_every_engine_registers_the_same_accessor_classes(engine):
    frame = frame_of(engine)
    for domain, accessor in ACCESSORS.items():
        assert type(getattr(frame, domain)) is accessor, (engine, domain)


def test_positional_arguments_are_refused_naming_the_keywords():
    frame = frame_of("pandas")
    with pytest.raises(TypeError, match=r"evaluate\(\) takes keyword arguments only"):
        frame.scoring.evaluate("x")


def test_an_unknown_keyword_is_the_usual_type_error():
    with pytest.raises(TypeError, match="unexpected keyword argument 'humans'"):
        frame_of("pandas").scoring.evaluate(humans="x", system="x")


def test_import_pdmetrics_imports_no_domain_module():
    code = (
        "import sys, pdmetrics; "
        "print(sorted(m for m in sys.modules if m.startswith('pdmetrics.') and m.count('.') >= 2 "
        "and m.split('.')[1] in ('scoring', 'fairness', 'detection', 'textgen', 'rsmeval', 'plotting')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("domain", DOMAINS)
def test_domain_packages_import_alike(domain):
    package = importlib.import_module(f"pdmetrics.{domain}")
    assert callable(getattr(package, "__getattr__", None)), f"pdmetrics.{domain} loads its modules eagerly"
