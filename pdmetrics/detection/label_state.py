"""The classification tables' additive state: chunk -> state -> combine -> finalize.

A chunk is a set of (datum, candidate label) rows holding every row of its datums (the
whole data on the pandas path; a partition shuffled on the datum on dask). Its
:class:`LabelState` holds what the tables are made of, all of it additive once the labels
are aligned: per (label, threshold) counts, the number of datums, the ROC curves' score
histogram (per label and distinct score, the rows of positive and of negative datums) and
the examples (per table cell, the first datums with their order in the whole data). States
combine by aligning their labels on the sorted union and adding; the table modules
(:mod:`~pdmetrics.detection.label_metrics`, :mod:`~pdmetrics.detection.label_curves`,
:mod:`~pdmetrics.detection.label_confusion`, :mod:`~pdmetrics.detection.roc`) finalize a
combined state into their table.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdmetrics._docstrings import fill
from pdmetrics._wrappers import in_module_of
from pdmetrics.detection.label_pairs import (
    Pairs,
    binary_parts,
    datum_max,
    first_examples,
    interval_counts,
    kept_labels,
    label_counts,
    label_index,
    mixed_kinds_error,
    positive_counts,
    positive_until,
    prepare_pairs,
    threshold_array,
)
from pdmetrics.detection.roc import histogram_points, pairs_histogram, points_auc, score_histogram
from pdmetrics.errors import InvalidInputError

__all__ = ["LabelState", "label_state", "label_rows", "rows_state", "example_ids", "TABLE_COUNTS"]

#: The count arrays of each table (``n_true``, the datums of each truth label, always).
TABLE_COUNTS = {
    "labels": ("tp", "fp", "fn", "tn"),
    "summary": ("tp",),
    "roc_curve": (),
    "pr_curve": ("tp", "fp", "fn_misclassified", "fn_no_prediction"),
    "errors": ("tp", "fp", "fn_misclassified", "fn_no_prediction"),
    "confusion": ("cells", "unmatched"),
}
#: The tables that need the ROC curves' score histogram.
ROC_TABLES = ("labels", "summary", "roc_curve")
#: Count arrays with two leading label axes (truth x prediction); the others have one.
PAIR_COUNTS = ("cells",)


@dataclass(frozen=True)
class LabelState:
    """What the classification tables of some datums are made of (see the module docstring).

    ``examples`` maps a table cell ``(kind, label code, label code or -1, threshold
    position)`` to its first datums, as ``(order, datum id)`` pairs sorted by order.
    """

    seen: pd.Index  # every label of the rows before the ``labels=`` filter, sorted
    labels: pd.Index  # the labels of the counts, sorted
    n_datums: int
    counts: dict
    histogram: tuple | None
    examples: dict | None
    max_examples: int = 0
    #: ``(argument, column, kind, count, first value, its row label)`` of the label columns
    #: (see :func:`~pdmetrics.detection.label_pairs.column_kinds`)
    kinds: tuple = ()

    @property
    def n_labels(self) -> int:
        return len(self.labels)

    def aligned(self, labels: pd.Index) -> LabelState:
        """The state over ``labels`` (which hold every label of the state), zeros elsewhere."""
        where = labels.get_indexer(self.labels)
        if where.size and (where < 0).any():
            raise ValueError("aligned() needs every label of the state")
        k = len(labels)
        counts = {}
        for name, array in self.counts.items():
            axes = 2 if name in PAIR_COUNTS else 1
            out = np.zeros((k,) * axes + array.shape[axes:], dtype=array.dtype)
            out[np.ix_(*[where] * axes)] = array
            counts[name] = out
        histogram = None
        if self.histogram is not None:
            code, score, positive, negative = self.histogram
            histogram = (where[code], score, positive, negative)
        examples = None
        if self.examples is not None:
            lookup = np.r_[where, -1]  # code -1 stays -1
            examples = {
                (kind, int(lookup[first]), int(lookup[second]), thr): found
                for (kind, first, second, thr), found in self.examples.items()
            }
        return LabelState(
            self.seen, labels, self.n_datums, counts, histogram, examples, self.max_examples, self.kinds
        )

    def combine(self, *others: LabelState) -> LabelState:
        """The state of the datums of all states (none shared): counts added over the union of labels."""
        states = (self, *others)
        kinds = _combined_kinds(states)
        seen = label_index(_union([s.seen for s in states]), pd.Index([], dtype=object))
        labels = label_index(_union([s.labels for s in states]), pd.Index([], dtype=object))
        states = [s.aligned(labels) for s in states]
        counts = {name: sum(s.counts[name] for s in states) for name in self.counts}
        histogram = None
        if self.histogram is not None:
            parts = [s.histogram for s in states]
            histogram = score_histogram(*(np.concatenate([p[i] for p in parts]) for i in range(4)))
        examples = None
        if self.examples is not None:
            examples = {}
            for state in states:  # a handful of states, one entry per table cell
                for key, found in state.examples.items():
                    examples[key] = sorted(examples.get(key, []) + found)[: self.max_examples]
        n_datums = sum(s.n_datums for s in states)
        return LabelState(seen, labels, n_datums, counts, histogram, examples, self.max_examples, kinds)

    def finalized(self, labels=None) -> LabelState:
        """The state over the table's labels: every label seen, or those of ``labels=``
        (an unknown one raises, naming the labels there are)."""
        full = label_index(self.seen, pd.Index([], dtype=object))
        if labels is not None:
            full = full[kept_labels(labels, full)]
        return self.aligned(full)

    def roc_points(self):
        """ROC points of every label (see :func:`pdmetrics.detection.roc.histogram_points`)."""
        positives = self.counts["n_true"]
        return histogram_points(self.histogram, self.n_labels, positives, self.n_datums - positives)

    def roc_auc(self, zero_division) -> np.ndarray:
        return points_auc(self.roc_points(), self.n_labels, zero_division)


def _combined_kinds(states) -> tuple:
    """The label columns' kinds of all states: counts added, the first value kept; a column
    holding two kinds across states (booleans in one partition, numbers in another) is refused
    as on one frame."""
    found: dict = {}
    for state in states:
        for argument, column, kind, count, value, row in state.kinds:
            kinds = found.setdefault((argument, column), {})
            before = kinds.get(kind)
            kinds[kind] = (count, value, row) if before is None else (before[0] + count, *before[1:])
    for (argument, column), kinds in found.items():
        if len(kinds) > 1:
            raise mixed_kinds_error(argument, column, kinds)
    return tuple((*key, kind, *entry) for key, kinds in found.items() for kind, entry in kinds.items())


def _union(indexes: list) -> pd.Index:
    values = [v for index in indexes for v in index.tolist()]
    return pd.Index(values, dtype=object).unique()


def rows_state(table: str, rows: dict, max_examples: int = 0) -> tuple[LabelState, np.ndarray]:
    """The finalized :class:`LabelState` of ``table`` over every row given (one chunk), and the
    score thresholds as an array. ``rows``: the :func:`label_rows` arguments of an array-level
    function (``y_true, label, score, datum, score_thresholds, hardmax, labels,
    top_prediction``)."""
    if not isinstance(max_examples, (int, np.integer)) or max_examples < 0:
        raise InvalidInputError(f"max_examples={max_examples!r}: pass a whole number >= 0.")
    thresholds = threshold_array(rows["score_thresholds"])
    columns = (rows[name] for name in ("y_true", "label", "score", "datum"))
    labels = rows["labels"]
    pairs = prepare_pairs(*columns, labels=labels, top_prediction=rows["top_prediction"])
    state = label_state(pairs, table, thresholds, bool(rows["hardmax"]), max_examples)
    return state.finalized(labels), thresholds


#: valor's row arguments of the array-level classification functions: the positional ones
#: (before the function's own) and the label filter (keyword-only, before the function's own).
ROW_ARGUMENTS = ("y_true", "label", "score", "datum", "score_thresholds", "hardmax")
FILTER_ARGUMENTS = ("labels", "top_prediction")


def label_rows(*, score_thresholds, hardmax: bool) -> Callable:
    """Give an array-level classification function valor's row arguments, written once.

    The decorated builder takes ``rows`` (a dict of those arguments, for :func:`rows_state`)
    first, then its own arguments; its public signature lists :data:`ROW_ARGUMENTS` in
    ``rows``' place (with these defaults of ``score_thresholds`` and ``hardmax``), then the
    builder's own positional arguments, then the keyword-only :data:`FILTER_ARGUMENTS`
    (``labels=None, top_prediction="filtered"``) and the builder's own keyword-only ones. A
    ``{label_filter}`` line of the builder's docstring becomes the filter's description.

    Examples
    --------
    >>> import inspect
    >>> from pdmetrics.detection.label_state import label_rows
    >>> @label_rows(score_thresholds=(0.0,), hardmax=True)
    ... def table(rows, zero_division="warn"):
    ...     return rows["hardmax"], rows["labels"], zero_division
    >>> list(inspect.signature(table).parameters)  # doctest: +NORMALIZE_WHITESPACE
    ['y_true', 'label', 'score', 'datum', 'score_thresholds', 'hardmax', 'zero_division',
     'labels', 'top_prediction']
    >>> table([], [], [], [], None, False, 0, labels=["cat"])
    (False, ['cat'], 0)
    """
    positional, keyword = inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY
    shared = [inspect.Parameter(name, positional) for name in ROW_ARGUMENTS[:4]]
    shared.append(inspect.Parameter("score_thresholds", positional, default=score_thresholds))
    shared.append(inspect.Parameter("hardmax", positional, default=hardmax, annotation="bool"))
    label_filter = [
        inspect.Parameter("labels", keyword, default=None),
        inspect.Parameter("top_prediction", keyword, default="filtered", annotation="str"),
    ]
    described = """
    labels, top_prediction
        valor's label filter: see :func:`~pdmetrics.detection.classification`.
    """
    names = ROW_ARGUMENTS + FILTER_ARGUMENTS  # read through the closure, as the signature

    def decorate(builder: Callable) -> Callable:
        if "{label_filter}" in (builder.__doc__ or ""):
            builder = fill(label_filter=described)(builder)
        signature = inspect.signature(builder)
        _, *own = signature.parameters.values()
        parameters = [*shared, *(p for p in own if p.kind == positional), *label_filter]
        parameters.extend(p for p in own if p.kind == keyword)
        public_signature = signature.replace(parameters=parameters)

        def wrapper(*args, **kwargs):
            try:
                bound = public_signature.bind(*args, **kwargs)
            except TypeError as error:  # named as Python names a plain function's call errors
                raise TypeError(f"{builder.__name__}() {error}") from None
            bound.apply_defaults()
            arguments = bound.arguments
            rows = {name: arguments.pop(name) for name in names}
            return builder(rows, **arguments)

        public = in_module_of(builder, wrapper)
        public.__signature__ = public_signature
        del public.__wrapped__
        return public

    return decorate


def label_state(
    pairs: Pairs, table: str, thresholds: np.ndarray, hardmax: bool, max_examples: int = 0
) -> LabelState:
    """The :class:`LabelState` of ``table`` (a name of :data:`TABLE_COUNTS`) of the rows ``pairs``."""
    n_labels, n_thr = pairs.n_labels, thresholds.size
    counts = {"n_true": np.bincount(pairs.truth, minlength=n_labels).astype("int64")}
    examples = None
    if table in ("labels", "summary"):
        named = dict(zip(("tp", "fp", "fn", "tn"), label_counts(pairs, thresholds, hardmax)))
        counts.update({name: named[name] for name in TABLE_COUNTS[table]})
    elif table in ("pr_curve", "errors"):
        k, a, b, tp, fp, fn_m, fn_n = binary_parts(pairs, thresholds, hardmax)
        counts.update(tp=tp, fp=fp, fn_misclassified=fn_m, fn_no_prediction=fn_n)
        if table == "errors":
            examples = _error_examples(pairs, k, a, b, n_thr, max_examples)
    elif table == "confusion":
        k = positive_until(pairs, thresholds, hardmax)
        cell = pairs.truth[pairs.datum] * n_labels + pairs.label
        cells = positive_counts(cell, k, n_labels * n_labels, n_thr)
        top = datum_max(pairs, k, np.ones(k.size, dtype=bool), 0)
        end = np.full(pairs.n_datums, n_thr)
        counts["cells"] = cells.reshape(n_labels, n_labels, n_thr)
        counts["unmatched"] = interval_counts(pairs.truth, top, end, n_labels, n_thr)
        if max_examples > 0:
            found = first_examples(
                cell,
                pairs.datum,
                np.zeros(k.size, dtype="int64"),
                k,
                n_labels * n_labels,
                n_thr,
                max_examples,
            )
            missing = first_examples(
                pairs.truth, np.arange(pairs.n_datums), top, end, n_labels, n_thr, max_examples
            )
            width = max(n_labels, 1)
            examples = _named(pairs, {(0, c // width, c % width, j): d for (c, j), d in found.items()})
            examples.update(_named(pairs, {(1, t, -1, j): d for (t, j), d in missing.items()}))
        else:
            examples = {}
    histogram = pairs_histogram(pairs) if table in ROC_TABLES else None
    counts = {name: np.asarray(array, dtype="int64") for name, array in counts.items()}
    return LabelState(pairs.seen, pairs.labels, pairs.n_datums, counts, histogram, examples, max_examples)


def _error_examples(pairs: Pairs, k, a, b, n_thr: int, max_examples: int) -> dict:
    """The first datums of each (kind, label, threshold) of the errors table."""
    if max_examples <= 0:
        return {}
    n_labels = pairs.n_labels
    match, other = pairs.match, ~pairs.match
    zeros_rows = np.zeros(pairs.score.size, dtype="int64")
    end = np.full(pairs.n_datums, n_thr, dtype="int64")
    datums = np.arange(pairs.n_datums)
    found = [
        first_examples(
            pairs.label[match], pairs.datum[match], zeros_rows[match], k[match], n_labels, n_thr, max_examples
        ),
        first_examples(
            pairs.label[other], pairs.datum[other], zeros_rows[other], k[other], n_labels, n_thr, max_examples
        ),
        first_examples(pairs.truth, datums, b, a, n_labels, n_thr, max_examples),
        first_examples(pairs.truth, datums, np.maximum(a, b), end, n_labels, n_thr, max_examples),
    ]
    examples = {}
    for kind, cells in enumerate(found):  # four kinds
        examples.update(_named(pairs, {(kind, label, -1, j): d for (label, j), d in cells.items()}))
    return examples


def _named(pairs: Pairs, found: dict) -> dict:
    """Datum codes as ``(order, datum id)`` pairs."""
    values = np.asarray(pairs.datums, dtype=object)
    return {
        key: list(zip(pairs.order[codes].tolist(), values[codes].tolist())) for key, codes in found.items()
    }


def example_ids(state: LabelState, key: tuple) -> list:
    """The datum ids of one table cell's examples, in order."""
    return [datum for _, datum in state.examples.get(key, [])]
