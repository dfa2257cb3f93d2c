"""The dask accessors of the domains whose methods do not run through specs yet (transitional:
each domain's module goes once its methods are one line over a spec)."""
