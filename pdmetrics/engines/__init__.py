"""How a spec runs on another library's frames: dask (:mod:`pdmetrics.engines.dask`) and polars
(:mod:`pdmetrics.engines.polars`). pandas, the default, is the one-chunk case in
:mod:`pdmetrics._table_spec`. These are the only modules that import dask or polars; each
registers its engine when it is imported, which :mod:`pdmetrics.accessors` does the first time
dask.dataframe or polars is imported.
"""
