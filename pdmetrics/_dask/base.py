"""What every dask accessor shares: the frame, its column checks, and the refusal of the
pandas accessor's methods that do not run partition by partition yet."""

from __future__ import annotations

from pdmetrics._validation import preview, require_columns
from pdmetrics.errors import InvalidInputError, NotPartitionableError

__all__ = ["DaskAccessor"]


class DaskAccessor:
    """The frame, its column checks, and the refusal of the methods that need all rows at once."""

    _name = ""
    _pandas_accessor: type = object

    def __init__(self, frame) -> None:
        self._frame = frame

    def _names(self, argument: str, names) -> list:
        """Checked column names (``ColumnNotFoundError`` naming the argument)."""
        return require_columns(self._frame._meta, argument, names)

    def _one_name(self, argument: str, name):
        names = self._names(argument, name)
        if len(names) != 1:
            raise InvalidInputError(f"`{argument}=` takes one column name; got {names!r}.")
        return names[0]

    def __getattr__(self, name: str):
        if name.startswith("_") or not hasattr(self._pandas_accessor, name):
            raise AttributeError(name)
        runs = [n for n in dir(type(self)) if not n.startswith("_")]
        raise NotPartitionableError(
            f"`ddf.{self._name}.{name}` does not run on dask DataFrames yet; on dask, "
            f"`ddf.{self._name}` runs {preview(runs)}. When the columns it needs fit in memory, "
            f"compute them first: `ddf[columns].compute().{self._name}.{name}(...)`."
        )
