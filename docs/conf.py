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
    "matplotlib.sphinxext.plot_directive",
]
# figures in the guide: ``.. plot::`` blocks run with pdmetrics' own plot functions
plot_include_source = True
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 110)]
plot_pre_code = "import matplotlib\nmatplotlib.use('Agg')\nimport pandas as pd\nimport pdmetrics"
autosummary_generate = True
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
html_theme = "alabaster"
exclude_patterns = ["_build"]
nitpicky = False
