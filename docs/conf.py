"""Sphinx configuration for pdmetrics."""

import pdmetrics

project = "pdmetrics"
author = "pdmetrics developers"
release = pdmetrics.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
]
autosummary_generate = True
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
html_theme = "alabaster"
exclude_patterns = ["_build"]
nitpicky = False
