"""Sphinx configuration for pdmetrics.

The site uses pydata-sphinx-theme (the theme of pandas, numpy and scikit-learn; its fonts and
scripts ship inside the package, so the build fetches nothing), sphinx-design for the cards, and
myst-nb to show the notebooks in ``notebooks/`` (reached through the ``docs/notebooks``
symlink), stored with their outputs, figures included, in the gallery; myst-nb reads the
notebooks' Markdown cells itself: no pandoc. Formulas are converted to MathML when the site
is built (docs/_ext/mathml_math.py): no MathJax, nothing from a CDN.
"""

import sys
from pathlib import Path

from docutils import nodes

import pdmetrics

sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))  # mathml_math

project = "pdmetrics"
author = "pdmetrics developers"
copyright = "pdmetrics developers"
release = pdmetrics.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "matplotlib.sphinxext.plot_directive",
    "myst_nb",
    "sphinx_design",
    "mathml_math",  # formulas as MathML at build time: they show offline (no MathJax, no CDN)
]
html_math_renderer = "mathml"
source_suffix = {".rst": "restructuredtext", ".ipynb": "myst-nb"}
# figures in the guide: ``.. plot::`` blocks run with pdmetrics' own plot functions
plot_include_source = True
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 110)]
plot_pre_code = "import matplotlib\nmatplotlib.use('Agg')\nimport pandas as pd\nimport pdmetrics"
plot_rcparams = {"figure.autolayout": True}
autosummary_generate = True
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
exclude_patterns = ["_build", "**.ipynb_checkpoints", "jupyter_execute"]
nitpicky = False

# The notebooks are stored executed (python docs/execute_notebooks.py): the build shows their
# stored outputs and runs nothing; the test suite executes every notebook (tests/test_notebooks.py).
nb_execution_mode = "off"
nb_execution_timeout = 300
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_merge_streams = True
nb_ipywidgets_js = {}  # no widget script tags: the notebooks have no widgets
myst_enable_extensions = ["dollarmath"]

html_theme = "pydata_sphinx_theme"
html_title = f"pdmetrics {release}"
html_static_path = ["_static"]
html_css_files = ["pdmetrics.css"]
html_show_sourcelink = False
html_theme_options = {
    "navbar_align": "left",
    "header_links_before_dropdown": 6,
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version", "theme-version"],
    "pygments_light_style": "tango",
    "pygments_dark_style": "monokai",
}
html_sidebars = {"index": [], "install": [], "gallery": [], "changelog": []}


def gallery_thumbnails(app, doctree, docname):
    """Put each notebook's first figure on top of its card in the gallery.

    myst-nb has written the executed notebooks' figures by the time the gallery is written: the
    card gets a copy of that image node, so Sphinx copies and links the same file.
    """
    if docname != "gallery":
        return
    notebooks = {
        app.builder.get_relative_uri(docname, name): name
        for name in app.env.found_docs
        if name.startswith("notebooks/")
    }
    for card in doctree.findall(nodes.container):
        if card.get("design_component") != "card":
            continue
        link = next((ref for ref in card.findall(nodes.reference) if ref.get("refuri") in notebooks), None)
        if link is None:
            continue
        figure = next(iter(app.env.get_doctree(notebooks[link["refuri"]]).findall(nodes.image)), None)
        if figure is not None:
            thumbnail = figure.deepcopy()
            thumbnail["classes"] = ["sd-card-img-top", "pdm-thumbnail"]
            thumbnail["alt"] = f"the first figure of {notebooks[link['refuri']]}"
            card.insert(0, thumbnail)


def setup(app):
    app.connect("doctree-resolved", gallery_thumbnails)
