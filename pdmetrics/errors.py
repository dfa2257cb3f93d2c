"""Exceptions and warnings raised by pdmetrics.

Every error a user can trigger with wrong input is one of these, and its message names
the argument or column, the offending value and the fix.
"""

from __future__ import annotations

__all__ = [
    "PdmetricsError",
    "ColumnNotFoundError",
    "InvalidInputError",
    "MissingDependencyError",
    "PdmetricsWarning",
    "UndefinedMetricWarning",
    "ExcludedRowsWarning",
]


class PdmetricsError(Exception):
    """Base class of every error pdmetrics raises on purpose."""


class ColumnNotFoundError(PdmetricsError, KeyError):
    """A column named in an argument is not in the DataFrame.

    Subclasses :class:`KeyError`, so ``except KeyError`` keeps working.
    """

    def __str__(self) -> str:  # KeyError would wrap the message in quotes
        return str(self.args[0]) if self.args else ""


class InvalidInputError(PdmetricsError, ValueError):
    """An argument or a column holds a value pdmetrics cannot use.

    Subclasses :class:`ValueError`.
    """


class MissingDependencyError(PdmetricsError, ImportError):
    """An optional library a feature needs is not installed; the message names the
    ``pip install`` command (for example ``pip install "pdmetrics[plot]"``).

    Subclasses :class:`ImportError`.
    """


class PdmetricsWarning(UserWarning):
    """Base class of every warning pdmetrics emits."""


class UndefinedMetricWarning(PdmetricsWarning):
    """A metric is undefined for the data (zero variance, empty group, ...) and is NaN."""


class ExcludedRowsWarning(PdmetricsWarning):
    """Rows were left out of an evaluation because a score was missing or not numeric."""


class NotPartitionableError(PdmetricsError, NotImplementedError):
    """A method of a dask DataFrame accessor that does not run partition by partition.

    The message names the method, the methods that do run on dask, and how to run this one
    on a pandas frame (``ddf[columns].compute()`` when the columns fit in memory).
    """


class EmptyTokensWarning(PdmetricsWarning):
    """A non-blank text produced no tokens (for ROUGE: it has no ASCII letter or digit), so
    it scores 0 against everything (``pdmetrics.textgen``)."""
