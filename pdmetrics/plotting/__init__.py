"""Figures of pdmetrics' tidy result tables (matplotlib; the ``plot`` extra).

One module per domain (:mod:`pdmetrics.plotting.scoring`, :mod:`~pdmetrics.plotting.fairness`,
:mod:`~pdmetrics.plotting.detection`). Every drawing function takes a tidy table as the
accessors return it (so a table computed anywhere draws the same way), takes ``ax=None``,
returns the matplotlib Axes it drew on and never calls ``show()``. The accessors reach them as
``df.<accessor>.plot.<name>(...)``, which computes the table and draws it in one call.

matplotlib is imported on the first drawing call, never by ``import pdmetrics``; without it a
drawing call raises :class:`pdmetrics.MissingDependencyError` with the install command.
"""

from pdmetrics._lazy import lazy_attributes

# the domain modules (pdmetrics.plotting.scoring, ...) load when first reached, e.g. by an
# accessor's ``plot``: ``import pdmetrics`` does not pay for them
__getattr__, __dir__, __all__ = lazy_attributes(__name__, {})
