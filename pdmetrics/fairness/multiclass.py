"""Multiclass and ordinal labels: one K x K confusion per group, and every count derived from it.

A chunk of rows codes the values of ``y_true`` and ``y_pred`` together (sorted as group
values sort: category order for a categorical column) and counts ``truth x prediction``
cells per group in one bincount; the cells run along the last axis of the caller's counts
(``truth * V + prediction`` for ``V`` values). :class:`ClassState` holds the values and
realigns the cells when chunks that saw different values combine. At finalize,
:func:`class_counts` turns the ``V x V`` matrices into the one-vs-rest confusion counts
``[TN, FP, FN, TP]`` of each class (``y == c``) and, for ordinal labels, of each cumulative
split (``y >= k``), so the binary formulas (:func:`~pdmetrics.fairness.rates_from_counts`,
:func:`~pdmetrics.fairness.fairness_from_counts`) apply to every class unchanged.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from pdmetrics._docstrings import fill
from pdmetrics._groups import as_series, check_one_kind, check_scalar_cells
from pdmetrics._validation import plain, preview
from pdmetrics._wrappers import keyword_group
from pdmetrics.errors import InvalidInputError
from pdmetrics.fairness._inputs import LabelSummary, aligned_keys, group_keys, plain_keys

__all__ = [
    "CLASS",
    "MACRO",
    "CLASSES_OPTIONS",
    "LABELLED_ROWS",
    "Outcome",
    "outcome_columns",
    "Classes",
    "check_class_table",
    "class_column",
    "resolve_classes",
    "seen_values",
    "ClassState",
    "class_counts",
    "class_label_rows",
    "check_class_options",
    "level_sums",
    "one_vs_rest",
    "cumulative_splits",
    "worst_class",
]

#: The identifier column of the per-class tables.
CLASS = "class"
#: The ``class`` of the rows averaging the classes (unweighted mean over the one-vs-rest classes).
MACRO = "macro"


def check_class_options(classes, ordinal, pos_label) -> tuple | str | None:
    """``classes=`` (None, ``"all"`` or a list of distinct values) and ``ordinal=``, checked
    before any work; a list comes back as a tuple."""
    if classes is None:
        if ordinal:
            raise InvalidInputError(
                '`ordinal=True` needs `classes="all"` (the sorted values) or `classes=[...]` (the order).'
            )
        return None
    if not isinstance(ordinal, (bool, np.bool_)):
        raise InvalidInputError(f"`ordinal={plain(ordinal)!r}`: pass True or False.")
    if not (isinstance(pos_label, numbers.Integral) and not isinstance(pos_label, bool) and pos_label == 1):
        raise InvalidInputError(
            f"`pos_label={plain(pos_label)!r}` and `classes=` together: with `classes=` every class is "
            f"the positive one in turn; leave `pos_label` at its default (or drop `classes=` for one "
            f"binary evaluation of pos_label)."
        )
    if isinstance(classes, str):
        if classes != "all":
            raise InvalidInputError(
                f'`classes={classes!r}`: pass "all" (every value of y_true and y_pred, sorted), a list '
                f"of the classes (e.g. `classes=['low', 'mid', 'high']`), or None for binary labels."
            )
        return "all"
    if isinstance(classes, (pd.Series, pd.Index, np.ndarray)):
        classes = list(classes)
    if not isinstance(classes, (list, tuple)) or not classes:
        raise InvalidInputError(
            f'`classes={plain(classes)!r}`: pass "all" or a non-empty list of class values.'
        )
    values = [plain(value) for value in classes]
    if pd.Index(values, dtype=object).has_duplicates:
        raise InvalidInputError(f"`classes={values!r}` names a class twice; list each class once.")
    return tuple(values)


def class_label_rows(y_true, y_pred):
    """Code one chunk's truth and prediction together.

    Returns ``(cells, n_values, missing, state)``: each row's cell ``truth * V + prediction``
    (0 where ``missing``), the number ``V`` of values seen, the rows missing either label,
    and the :class:`ClassState` to fill with the caller's counts (:meth:`ClassState.with_counts`).
    """
    t_series, p_series = as_series(y_true, "y_true"), as_series(y_pred, "y_pred")
    if len(t_series) != len(p_series):
        raise InvalidInputError(
            f"`y_true` has {len(t_series)} values but `y_pred` has {len(p_series)}; "
            f"pass paired labels of equal length."
        )
    n = len(t_series)
    for series, argument in ((t_series, "y_true"), (p_series, "y_pred")):
        check_scalar_cells(series, argument)
        check_one_kind(series, argument)
    both = pd.concat([t_series, p_series])  # (row labels kept: an error names the rows)
    both.name = CLASS
    try:
        codes, keys = group_keys([both])
    except InvalidInputError as error:  # the two columns' values together: name them both
        together = f"`y_true={plain(t_series.name)!r}` with `y_pred={plain(p_series.name)!r}`"
        raise InvalidInputError(
            str(error).replace(f"`by={CLASS!r}`", together).replace(f"df[{CLASS!r}]", "df[[y_true, y_pred]]")
        ) from None
    t_code, p_code = codes[:n], codes[n:]
    missing = (t_code < 0) | (p_code < 0)
    n_values = len(keys)
    cells = np.where(missing, 0, t_code * n_values + p_code)
    summaries = tuple(
        LabelSummary(series.name, int((code >= 0).sum()), False, ())
        for series, code in ((t_series, t_code), (p_series, p_code))
    )
    return cells, n_values, missing, ClassState(keys, summaries, None)


def _remapped(counts: np.ndarray, where: np.ndarray, size: int) -> np.ndarray:
    """Counts whose last axis holds ``V x V`` cells, moved to a ``size x size`` grid
    (value ``i`` becomes ``where[i]``)."""
    v = where.size
    square = counts.reshape(*counts.shape[:-1], v, v)
    out = np.zeros((*counts.shape[:-1], size, size), dtype=counts.dtype)
    out[..., where[:, None], where[None, :]] = square
    return out.reshape(*counts.shape[:-1], size * size)


@dataclass(frozen=True)
class ClassState:
    """The classes seen in some rows and the caller's counts over their cells; additive.

    Attributes
    ----------
    keys : pandas.DataFrame
        The distinct values of ``y_true`` and ``y_pred``, column ``class``, sorted as group
        values sort (a categorical column keeps its dtype).
    labels : tuple of LabelSummary
        The rows with a ``y_true`` and a ``y_pred`` value (for the checks of usable rows).
    counts
        The caller's additive counts whose arrays end in ``V * V`` cells: an object with
        ``map_cells(function)`` (apply ``function`` to each such array) and ``combine``.
    """

    keys: pd.DataFrame
    labels: tuple
    counts: object

    def with_counts(self, counts) -> ClassState:
        return ClassState(self.keys, self.labels, counts)

    def combine(self, other: ClassState) -> ClassState:
        merged, mine, theirs = aligned_keys(self.keys, other.keys)
        size = len(merged)
        a, b = self.counts, other.counts
        if mine is not None and (mine.size != size or (mine != np.arange(size)).any()):
            a = a.map_cells(lambda c: _remapped(c, mine, size))
        if theirs is not None and (theirs.size != size or (theirs != np.arange(size)).any()):
            b = b.map_cells(lambda c: _remapped(c, theirs, size))
        elif theirs is None:
            b = b.map_cells(lambda c: np.zeros((*c.shape[:-1], size * size), dtype=c.dtype))
        if mine is None:
            a = a.map_cells(lambda c: np.zeros((*c.shape[:-1], size * size), dtype=c.dtype))
        return ClassState(
            merged, tuple(x.combine(y) for x, y in zip(self.labels, other.labels)), a.combine(b)
        )

    def values(self) -> pd.Index:
        """The values seen, as the table shows them (a categorical column's values)."""
        return pd.Index(plain_keys(self.keys)[CLASS], dtype=object)


@dataclass(frozen=True)
class Classes:
    """The classes a table reports, resolved from ``classes=`` and the values seen.

    ``index``: each class's position among the values seen (``-1`` for a listed class that
    never occurs); ``labels``: the classes; ``split_labels``: ``">= k"`` of each cumulative
    split (ordinal only); ``levels``: the level of each class (ordinal only).
    """

    index: np.ndarray
    labels: list
    split_labels: list
    levels: np.ndarray | None


def resolve_classes(values: pd.Index, seen: np.ndarray, classes, ordinal: bool) -> Classes:
    """The classes of the table: ``"all"`` gives every value seen (``seen``: whether a value
    occurs in some used row), in sorted order; a list gives its values in its order. With
    ``ordinal`` every value seen must be listed, and the levels are the class values when all
    are numbers, else their positions 1..C."""
    present = [value for value, used in zip(values, seen) if used]
    if classes == "all":
        labels = present
        index = np.flatnonzero(seen)
    else:
        labels = list(classes)
        lookup = pd.Index(values, dtype=object)
        index = lookup.get_indexer(pd.Index(labels, dtype=object))
        absent = [label for label, i in zip(labels, index) if i < 0 or not seen[i]]
        if absent:
            raise InvalidInputError(
                f"`classes=` lists {preview(absent, 5)}, which occur in neither y_true nor y_pred "
                f"(their values: {preview(present, 8)}). List classes as they are spelled in the data "
                f'(1 and "1" differ), or pass `classes="all"`.'
            )
        if ordinal:
            unlisted = [value for value in present if value not in set(labels)]
            if unlisted:
                raise InvalidInputError(
                    f"With `ordinal=True`, `classes=` must list every value of y_true and y_pred in "
                    f"order; {preview(unlisted, 5)} are not listed. Add them where they rank, or map "
                    f"them to a listed class first."
                )
    splits = [f">= {plain(label)}" for label in labels[1:]] if ordinal else []
    _check_row_labels(labels, splits)
    if not ordinal:
        return Classes(np.asarray(index, dtype=np.intp), labels, [], None)
    if all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in labels):
        levels = np.asarray(labels, dtype="float64")
    else:
        levels = np.arange(1, len(labels) + 1, dtype="float64")
    return Classes(np.asarray(index, dtype=np.intp), labels, splits, levels)


def _check_row_labels(labels: list, splits: list) -> None:
    """Refuse a class spelled like the ``class`` column's own rows: ``"macro"`` or a split."""
    taken = {MACRO, *splits}
    clash = [label for label in labels if isinstance(label, str) and label in taken]  # C labels
    if clash:
        raise InvalidInputError(
            f"The class {clash[0]!r} is spelled like a row the `class` column adds ({MACRO!r}: the "
            f"macro average; '>= k': a cumulative split of ordinal classes), so the two rows could "
            f"not be told apart; rename that value in y_true and y_pred first, e.g. "
            f"`.replace({{{clash[0]!r}: {clash[0].replace('>=', 'at least') + ' (class)'!r}}})`."
        )


def one_vs_rest(square: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``[TN, FP, FN, TP]`` of each class ``index`` (one vs rest) from ``(..., V, V)`` counts
    (truth on the second-last axis): shape ``(..., C, 4)``.

    Examples
    --------
    >>> import numpy as np
    >>> from pdmetrics.fairness.multiclass import one_vs_rest
    >>> one_vs_rest(np.array([[2, 1, 0], [0, 3, 1], [1, 0, 2]]), np.array([0, 2])).tolist()
    [[6, 1, 1, 2], [6, 1, 1, 2]]
    """
    square = np.asarray(square, dtype=np.int64)
    diag = np.diagonal(square, axis1=-2, axis2=-1)[..., index]
    rows = square.sum(axis=-1)[..., index]
    cols = square.sum(axis=-2)[..., index]
    n = square.sum(axis=(-2, -1))[..., None]
    return np.stack([n - rows - cols + diag, cols - diag, rows - diag, diag], axis=-1)


def cumulative_splits(square: np.ndarray) -> np.ndarray:
    """``[TN, FP, FN, TP]`` of each split ``y >= k`` (``k`` = 1..C-1, positions in the
    classes' order) from ``(..., C, C)`` counts in that order: shape ``(..., C - 1, 4)``.

    Examples
    --------
    >>> import numpy as np
    >>> from pdmetrics.fairness.multiclass import cumulative_splits
    >>> cumulative_splits(np.array([[2, 1, 0], [0, 3, 1], [1, 0, 2]])).tolist()
    [[2, 1, 1, 6], [6, 1, 1, 2]]
    """
    square = np.asarray(square, dtype=np.int64)
    if not square.shape[-1]:  # no class (every row left out)
        return np.zeros((*square.shape[:-2], 0, 4), dtype=np.int64)
    # tail[..., i, j] = sum of square[..., i:, j:]
    tail = square[..., ::-1, ::-1].cumsum(axis=-1).cumsum(axis=-2)[..., ::-1, ::-1]
    k = np.arange(1, square.shape[-1])
    n = tail[..., 0, 0][..., None]
    tp = tail[..., k, k]
    truth = tail[..., k, 0]
    pred = tail[..., 0, k]
    return np.stack([n - truth - pred + tp, pred - tp, truth - tp, tp], axis=-1)


def class_counts(cells: np.ndarray, n_values: int, classes: Classes) -> np.ndarray:
    """The one-vs-rest counts of each class, then (ordinal) of each cumulative split, from
    counts whose last axis holds ``V * V`` cells: shape ``(..., C [+ C - 1], 4)``. A listed
    class that never occurs (index -1) has no positive anywhere."""
    square = np.asarray(cells, dtype=np.int64).reshape(*np.shape(cells)[:-1], n_values, n_values)
    square = _with_empty(square)
    index = np.where(classes.index < 0, n_values, classes.index)
    counts = one_vs_rest(square, index)
    if classes.levels is None:
        return counts
    ordered = square[..., index[:, None], index[None, :]]
    return np.concatenate([counts, cumulative_splits(ordered)], axis=-2)


def _with_empty(square: np.ndarray) -> np.ndarray:
    """``square`` with one more, empty value (the place of a listed class that never occurs)."""
    return np.pad(square, [(0, 0)] * (square.ndim - 2) + [(0, 1), (0, 1)])


def level_sums(
    cells: np.ndarray, n_values: int, classes: Classes
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(N, sum of true levels, sum of predicted levels)`` from ``V * V`` cell counts
    (ordinal classes; every value seen is a class)."""
    square = np.asarray(cells, dtype=np.int64).reshape(*np.shape(cells)[:-1], n_values, n_values)
    level = np.zeros(n_values, dtype="float64")
    level[classes.index] = classes.levels
    n = square.sum(axis=(-2, -1))
    return n, square.sum(axis=-1) @ level, square.sum(axis=-2) @ level


def worst_class(values: np.ndarray, ratio: bool) -> np.ndarray:
    """Position of the class furthest from parity along the last axis: the largest
    ``|value|`` (a difference) or ``|ln value|`` (a ratio, so 0.5 and 2 are as far); NaN values
    are skipped, ties go to the first class; -1 where no class is defined.

    Examples
    --------
    >>> import numpy as np
    >>> from pdmetrics.fairness.multiclass import worst_class
    >>> worst_class(np.array([[0.1, -0.3, np.nan], [np.nan, np.nan, np.nan]]), ratio=False).tolist()
    [1, -1]
    >>> int(worst_class(np.array([0.5, 1.9, np.inf]), ratio=True))
    2
    """
    values = np.asarray(values, dtype="float64")
    with np.errstate(divide="ignore", invalid="ignore"):
        distance = np.abs(np.log(values)) if ratio else np.abs(values)
    defined = ~np.isnan(distance)
    position = np.argmax(np.where(defined, distance, -1.0), axis=-1)
    return np.where(defined.any(axis=-1), position, -1)


#: The ``classes`` and ``ordinal`` entries of the Parameters of :func:`~pdmetrics.fairness.classification`
#: and :func:`~pdmetrics.fairness.by_group` (filled in by :func:`pdmetrics._docstrings.fill`).
CLASSES_OPTIONS = """
classes : None, "all" or list, default None
    Multiclass labels: evaluate each class one vs rest (the class favourable, every other
    value not), one row per class in a ``class`` column. ``"all"``: every value of
    ``y_true`` and ``y_pred`` (of the rows used), sorted (category order for a categorical
    column; a polars frame's categories arrive sorted, so give an order as a list);
    a list: those classes, in that order (each must occur; other values count as "rest"
    for every class). None: binary labels and ``pos_label``, as without it. A class
    absent from a group gives that group's undefined rates (``zero_division``), never an error.
ordinal : bool, default False
    The classes are ordered (``classes="all"``: sorted; a list: its order, listing every
    value): adds one row per cumulative split ``y >= k`` (class ``">= k"``, for each class
    ``k`` but the lowest), with the rates of that binary split.
"""

#: The ``frame``, ``y_true`` and ``y_pred`` entries of the Parameters of the tables of labelled
#: rows (:func:`outcome_columns` fills a ``{labelled_rows}`` line with them).
LABELLED_ROWS = """
frame : DataFrame
    The labelled rows (pandas; dask and polars frames give the same table).
y_true, y_pred : str
    Columns of true and predicted binary labels (one of them ``pos_label``); rows with a
    missing value are left out with an :class:`~pdmetrics.ExcludedRowsWarning`.
"""


class Outcome(NamedTuple):
    """The outcome arguments of a fairness table of labelled rows, in one object (what
    :func:`outcome_columns` gives the builder as ``outcome``)."""

    y_true: object
    y_pred: object
    by: object
    pos_label: object = 1
    classes: object = None
    ordinal: bool = False


def outcome_columns(*, classes: bool) -> Callable:
    """Give a fairness table of labelled rows its outcome arguments, written once.

    The decorated builder takes ``outcome`` (an :class:`Outcome`) in the place of
    ``y_true, y_pred, by, pos_label=1`` and, with ``classes=True``, ``classes=None, ordinal:
    bool = False``: its public signature lists those keyword arguments there, and a call's are
    gathered into the ``outcome`` the builder receives. A missing or unknown keyword raises
    Python's usual ``TypeError`` naming the function. With ``classes=True`` the builder's
    docstring needs a ``{classes_options}`` line: it becomes :data:`CLASSES_OPTIONS`; a
    ``{labelled_rows}`` line becomes :data:`LABELLED_ROWS`.

    Examples
    --------
    >>> import inspect
    >>> from pdmetrics.fairness.multiclass import outcome_columns
    >>> @outcome_columns(classes=False)
    ... def rates(frame, *, outcome, zero_division="warn"):
    ...     return outcome.y_true, outcome.classes, zero_division
    >>> list(inspect.signature(rates).parameters)
    ['frame', 'y_true', 'y_pred', 'by', 'pos_label', 'zero_division']
    >>> rates(None, y_true="y", y_pred="pred", by="sex")
    ('y', None, 'warn')
    >>> rates(None, y_true="y", y_pred="pred", by="sex", classes="all")
    Traceback (most recent call last):
    TypeError: rates() got an unexpected keyword argument 'classes'
    """
    gathered = keyword_group("outcome", _outcome if classes else _binary_outcome)

    def decorate(builder: Callable) -> Callable:
        if classes:
            builder = fill(classes_options=CLASSES_OPTIONS)(builder)
        if "{labelled_rows}" in (builder.__doc__ or ""):
            builder = fill(labelled_rows=LABELLED_ROWS)(builder)
        return gathered(builder)

    return decorate


def _outcome(*, y_true, y_pred, by, pos_label=1, classes=None, ordinal: bool = False) -> Outcome:
    return Outcome(y_true, y_pred, by, pos_label, classes, ordinal)


def _binary_outcome(*, y_true, y_pred, by, pos_label=1) -> Outcome:
    return Outcome(y_true, y_pred, by, pos_label)


def check_class_table(classes, ordinal, pos_label, table, choices: tuple, n_resamples) -> tuple | str | None:
    """:func:`check_class_options`, and refuse a ``table=`` that is not one of ``choices`` (the
    first one the binary table, the others per-class tables that need ``classes=``; ``"levels"``
    needs ``ordinal=True``), or bootstrap intervals with ``classes=``."""
    chosen = check_class_options(classes, ordinal, pos_label)
    if not isinstance(table, str) or table not in choices:
        raise InvalidInputError(f"`table={plain(table)!r}`: choose one of {', '.join(map(repr, choices))}.")
    if chosen is None and table != choices[0]:
        raise InvalidInputError(
            f'`table={table!r}` is a per-class table: pass `classes="all"` (or a list of classes) too.'
        )
    if table == "levels" and not ordinal:
        raise InvalidInputError(
            '`table="levels"` is the mean level of ordinal classes: pass `ordinal=True` too.'
        )
    if chosen is not None and n_resamples:
        raise InvalidInputError(
            "`n_resamples=` with `classes=`: bootstrap intervals are not computed per class yet; "
            "drop one of them (or evaluate one class at a time with `pos_label=`)."
        )
    return chosen


def seen_values(cells: np.ndarray, n_values: int) -> np.ndarray:
    """Whether each value occurs as a truth or a prediction in ``V * V`` cell counts (summed over
    every leading axis)."""
    square = np.asarray(cells).reshape(-1, n_values, n_values).sum(axis=0)
    return (square.sum(axis=0) + square.sum(axis=1)) > 0


def class_column(classes: Classes, macro: bool) -> list:
    """The ``class`` labels of one block of rows: the classes, the splits, then ``"macro"``."""
    return [*classes.labels, *classes.split_labels, *([MACRO] if macro else [])]
