"""Privileged and unprivileged groups from a sensitive column.

The seed document defines groups with a threshold: a row is privileged when its sensitive
value is greater than the threshold (default 0.0), or less than it with ``invert=True``;
values equal to the threshold are unprivileged either way. For categorical columns the
privileged value(s) can be named instead.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from pdmetrics._groups import check_scalar_cells
from pdmetrics._validation import check_not_complex, plain
from pdmetrics.errors import InvalidInputError

__all__ = ["privileged_groups"]


def _per_column(option, name, default):
    """Look up a per-column option given either as one value or as a ``{column: value}`` dict."""
    if isinstance(option, Mapping):
        return option.get(name, default)
    return option


def _numeric_sensitive(series: pd.Series) -> np.ndarray:
    check_not_complex(series, "by")
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_numeric_dtype(dtype):
        return series.to_numpy(dtype="float64", na_value=np.nan)
    converted = pd.to_numeric(series.astype("object"), errors="coerce")
    values = np.asarray(converted, dtype="float64")
    bad = np.isnan(values) & series.notna().to_numpy(dtype=bool)
    if bad.any():
        example = plain(series[bad].iloc[0])
        raise InvalidInputError(
            f"`by={series.name!r}`: the group column holds {example!r}, which is not a number, so it "
            f"cannot be compared with a threshold. Name the privileged value(s) instead, e.g. "
            f"`privileged={{{series.name!r}: {example!r}}}`."
        )
    return values


def privileged_groups(
    series: pd.Series, threshold: float = 0.0, invert: bool = False, privileged=None
) -> tuple[np.ndarray, np.ndarray]:
    """Split the rows of a group column (``by=``) into privileged and unprivileged.

    Parameters
    ----------
    series : pandas.Series
        The group column (one column of ``by=``), e.g. a sensitive attribute.
    threshold : float or "midrange", default 0.0
        Rows with a value greater than ``threshold`` are privileged (less than, with
        ``invert=True``); values equal to the threshold are unprivileged. ``"midrange"``
        uses ``(min + max) / 2`` of the column, what the reference code does when it is
        given no threshold.
    invert : bool, default False
        Privileged means *below* the threshold.
    privileged : scalar or list, optional
        The privileged value(s). When given, the threshold is not used: rows whose value is
        one of these are privileged, every other non-missing row unprivileged.

    Returns
    -------
    (privileged, missing) : tuple of bool ndarray
        ``privileged[i]`` is True for a privileged row; ``missing[i]`` for a row whose
        sensitive value is missing (it belongs to neither group).

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.fairness import privileged_groups
    >>> privileged_groups(pd.Series([0, 1, 2, None]), threshold=1)
    (array([False, False,  True, False]), array([False, False, False,  True]))
    >>> privileged_groups(pd.Series(["F", "M", "M"]), privileged="M")[0]
    array([False,  True,  True])
    """
    check_scalar_cells(series, "by")
    missing = np.asarray(series.isna().to_numpy(dtype=bool), dtype=bool)
    if privileged is not None:
        values = (
            list(privileged)
            if isinstance(privileged, (list, tuple, set, frozenset, np.ndarray, pd.Index, pd.Series))
            else [privileged]
        )
        is_privileged = np.asarray(series.isin(values).to_numpy(dtype=bool, na_value=False), dtype=bool)
        return is_privileged & ~missing, missing
    midrange = is_midrange(threshold)
    if not midrange:
        threshold = checked_threshold(threshold, series.name)
    values = _numeric_sensitive(series)
    missing = missing | np.isnan(values)
    if midrange:  # the reference code's default: halfway between the smallest and largest value
        threshold = midrange_threshold(values[~missing])
    return split_at_threshold(values, missing, threshold, invert), missing


def is_midrange(threshold) -> bool:
    """Whether ``threshold`` asks for the column's midrange."""
    return isinstance(threshold, str) and threshold == "midrange"


def checked_threshold(threshold, name) -> float:
    """A numeric threshold as a float; anything else is refused."""
    try:
        threshold = float(threshold)
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"`threshold={plain(threshold)!r}` for column {plain(name)!r} of `by=` must be "
            f"a number or 'midrange'."
        ) from None
    if np.isnan(threshold):
        raise InvalidInputError(
            f"`threshold=nan` for column {plain(name)!r} of `by=`: every row would "
            f"be unprivileged. Pass a number or 'midrange'."
        )
    return threshold


def sensitive_values(series: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """A sensitive column as float64 values and its missing rows (for a threshold)."""
    check_scalar_cells(series, "by")
    values = _numeric_sensitive(series)
    return values, np.asarray(series.isna().to_numpy(dtype=bool), dtype=bool) | np.isnan(values)


def midrange_threshold(present: np.ndarray) -> float:
    """``(min + max) / 2`` of the present values (0.0 when there is none)."""
    return (present.min() + present.max()) / 2 if present.size else 0.0


def split_at_threshold(values: np.ndarray, missing: np.ndarray, threshold: float, invert: bool) -> np.ndarray:
    """Privileged rows: a value above the threshold (below it with ``invert``), not missing."""
    with np.errstate(invalid="ignore"):
        is_privileged = values < threshold if invert else values > threshold
    return np.asarray(is_privileged & ~missing, dtype=bool)


def resolve_group_options(name, threshold, invert, privileged, single: bool):
    """The threshold, invert flag and privileged values that apply to one sensitive column."""
    if isinstance(privileged, Mapping):
        chosen = privileged.get(name)
    elif privileged is not None and not single:
        raise InvalidInputError(
            "With several columns in `by=` pass `privileged=` as a dict, e.g. "
            "`privileged={'gender': 'M', 'race': ['White', 'Asian']}`."
        )
    else:
        chosen = privileged
    inv = _per_column(invert, name, False)
    if not (isinstance(inv, (bool, np.bool_)) or (isinstance(inv, (int, np.integer)) and inv in (0, 1))):
        raise InvalidInputError(
            f"`invert={plain(inv)!r}` for column {plain(name)!r} of `by=` must be True or False."
        )
    return _per_column(threshold, name, 0.0), bool(inv), chosen
