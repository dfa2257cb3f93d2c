"""Division with one rule for undefined results (``zero_division``).

Every ratio in pdmetrics that can meet a zero denominator goes through :func:`divide`, and
every public function that can produce such a ratio takes ``zero_division=`` with one
vocabulary: ``"warn"`` (the default: NaN and an :class:`~pdmetrics.UndefinedMetricWarning`
naming the option) or a number to return instead, silently.
"""

from __future__ import annotations

import numpy as np

from pdmetrics._validation import plain
from pdmetrics._warnings import warn_undefined
from pdmetrics.errors import InvalidInputError

WARN = "warn"


def check_zero_division(zero_division, argument: str = "zero_division"):
    """Return ``zero_division`` as ``"warn"`` or a Python float (finite, or NaN as scikit-learn
    takes it); refuse anything else (an infinity, a bool, a string other than ``"warn"``)."""
    if isinstance(zero_division, str) and zero_division == WARN:
        return WARN
    if (
        isinstance(zero_division, (bool, np.bool_))
        or zero_division is None
        or not isinstance(zero_division, (int, float, np.number))
        or isinstance(zero_division, np.complexfloating)
        or np.isinf(zero_division)
    ):
        raise InvalidInputError(
            f'`{argument}={plain(zero_division)!r}` is not an option: pass "warn" (NaN with a warning, the '
            f"default) or the finite number to report when a ratio is 0/0 or x/0, e.g. `{argument}=0` (NaN: "
            "NaN without a warning)."
        )
    return float(zero_division)


def divide(
    numerator, denominator, zero_division="warn", *, what: str = "a ratio", argument: str = "zero_division"
) -> np.ndarray:
    """``numerator / denominator`` element-wise, with ``zero_division`` where the denominator is 0.

    NaN in either operand stays NaN. With ``zero_division="warn"`` the undefined cells are
    NaN and one short :class:`~pdmetrics.UndefinedMetricWarning` names ``what`` and the
    option; with a number (finite, or NaN) they take that number silently.

    >>> divide([1.0, 2.0], [4.0, 0.0], zero_division=0.0).tolist()
    [0.25, 0.0]
    """
    option = check_zero_division(zero_division, argument)
    num = np.asarray(numerator, dtype="float64")
    den = np.asarray(denominator, dtype="float64")
    zero = den == 0
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        out = num / np.where(zero, 1.0, den)
    if not zero.any():
        return out
    fill = np.nan if option == WARN else option
    out = np.where(zero, fill, out)
    if option == WARN:
        count = int(np.count_nonzero(np.broadcast_to(zero, out.shape)))
        cells = "" if out.ndim == 0 else f" in {count} of {out.size} cells"
        warn_undefined(
            f"{what} has a zero denominator{cells}; returning NaN. "
            f"Pass `{argument}=0` (or another number) to report that number instead."
        )
    return out
