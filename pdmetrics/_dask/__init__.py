"""The accessors on dask DataFrames: ``ddf.scoring``, ``ddf.fairness``, ``ddf.detection``, ``ddf.textgen``.

Importing dask.dataframe takes more than a second, so ``import pdmetrics`` never does: it
calls :func:`install`, which registers the dask accessors at once when dask.dataframe is
already imported, and otherwise when it is first imported (an import hook that only waits
for that one module). Without dask installed nothing happens. The accessors and the
partition driver live in :mod:`pdmetrics._dask.accessors` and :mod:`pdmetrics._dask.driver`.
"""

from __future__ import annotations

import importlib
import sys

from pdmetrics._import_hook import when_imported

_MODULE = "dask.dataframe"
_ACCESSORS = "pdmetrics._dask.accessors"


def install() -> None:
    """Register the dask accessors now (dask.dataframe imported) or when dask.dataframe is imported."""
    when_imported(_MODULE, register)


def register() -> None:
    """Register ``scoring``, ``fairness``, ``detection`` and ``textgen`` on dask DataFrames."""
    accessors = sys.modules.get(_ACCESSORS)
    if accessors is not None and not hasattr(accessors, "register"):
        return  # that module is being imported (it imported dask.dataframe): it registers at its end
    # the accessors module imports dask: loaded here, once dask.dataframe is imported
    importlib.import_module(_ACCESSORS).register()
