"""``classification``: the classification tables of ``df.detection``, from a DataFrame.

One public function reads the long or the wide layout, checks every option, and returns
the table asked for, built by the label-pair modules (:mod:`~pdmetrics.detection.label_metrics`,
:mod:`~pdmetrics.detection.roc`, :mod:`~pdmetrics.detection.label_curves`,
:mod:`~pdmetrics.detection.label_confusion`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._division import check_zero_division
from pdmetrics._groups import group_codes
from pdmetrics._table_spec import PART, POS, Table, source_order, table
from pdmetrics._validation import numeric_values, plain, preview, require_columns
from pdmetrics._warnings import warn_excluded
from pdmetrics.detection.label_confusion import confusion_from_state
from pdmetrics.detection.label_curves import errors_table, pr_curve_table
from pdmetrics.detection.label_metrics import metrics_table, summary_table
from pdmetrics.detection.label_pairs import (
    DEFAULT_CURVE_THRESHOLDS,
    column_kinds,
    mixed_kinds_error,
    prepare_pairs,
    threshold_array,
)
from pdmetrics.detection.label_state import LabelState, label_state
from pdmetrics.detection.match_state import added_counts
from pdmetrics.detection.roc import curve_table
from pdmetrics.errors import InvalidInputError

__all__ = ["classification", "ClassificationTable"]

TABLES = ("labels", "summary", "roc_curve", "pr_curve", "errors", "confusion")


@table
def classification(
    frame: pd.DataFrame,
    *,
    y_true,
    score,
    label=None,
    datum=None,
    table: str = "labels",
    score_thresholds=None,
    hardmax: bool | None = None,
    zero_division="warn",
    max_examples: int = 1,
    labels=None,
    top_prediction: str = "filtered",
) -> pd.DataFrame:
    """Classification metrics as valor-lite computes them, as a tidy table.

    Two layouts are accepted. *Long*: one row per datum and candidate label, with
    ``label=`` (the candidate), ``score=`` (one column), ``datum=`` (the datum id) and
    ``y_true=`` (the datum's true label, repeated on its rows). *Wide*: one row per
    datum, ``score=`` a list of score columns whose names are the labels, ``y_true=``
    the true label (``label=`` not given; ``datum=`` optional, default the row
    position); a missing score means the label is not a candidate for that row.

    Parameters
    ----------
    frame : DataFrame
    y_true, score, label, datum : column names
        See above.
    table : {"labels", "summary", "roc_curve", "pr_curve", "errors", "confusion"}
        ``"labels"``: per label and threshold ``label, score_threshold, N, tp, fp, fn,
        tn, precision, recall, f1, roc_auc``
        (:func:`~pdmetrics.detection.label_metrics.classification_metrics`); ``"summary"``:
        per threshold ``score_threshold, N, accuracy, mean_roc_auc``
        (:func:`~pdmetrics.detection.label_metrics.classification_summary`);
        ``"roc_curve"``: :func:`~pdmetrics.detection.roc_curve`; ``"pr_curve"``:
        :func:`~pdmetrics.detection.label_curves.classification_pr_curve`; ``"errors"``:
        :func:`~pdmetrics.detection.label_curves.classification_errors`; ``"confusion"``:
        :func:`~pdmetrics.detection.label_confusion.classification_confusion` (labels in
        the ``truth`` and ``prediction`` columns, never as column names).
    score_thresholds : float or sequence, optional
        Default ``[0.0]`` (valor's) for ``labels``, ``summary`` and ``confusion``;
        0.05, 0.10, ..., 0.95 for ``pr_curve`` and ``errors``.
    hardmax : bool, optional
        Default True for ``labels``, ``summary`` and ``confusion`` (valor's default),
        False for ``pr_curve`` and ``errors`` (valor's curves treat each label as its
        own binary problem).
    zero_division : "warn" or float, default "warn"
        Value of 0/0 ratios: NaN with a warning, or a number (valor: 0).
    max_examples : int, default 1
        Example datum ids per row of the ``errors`` and ``confusion`` tables.
    labels : sequence, optional
        Evaluate only these labels (valor's ``Evaluator.filter`` with the same labels for
        ground truths and predictions): the rows whose candidate label is not listed are
        dropped, and so are the datums whose true label is not listed; the table has a
        row per listed label. Default: every label.
    top_prediction : {"filtered", "original"}, default "filtered"
        With ``labels`` and ``hardmax``, which row is the datum's one prediction.
        ``"filtered"``: its top-scored row among the labels kept, exactly as when the rows
        are filtered before the call. ``"original"``: its top-scored row before filtering,
        as valor's filter keeps it, so a datum whose top prediction is not listed
        predicts nothing (no ``tp`` or ``fp``; its label row, if any, counts a ``fn``).

    Returns
    -------
    DataFrame
        A new table (see ``table``); ``frame`` is not changed.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.detection import classification
    >>> df = pd.DataFrame({"truth": ["cat", "dog", "dog"], "cat": [0.8, 0.3, 0.6],
    ...                    "dog": [0.2, 0.7, 0.4]})
    >>> classification(df, y_true="truth", score=["cat", "dog"]).round(3)
      label  score_threshold  N  tp  fp  fn  tn  precision  recall     f1  roc_auc
    0   cat              0.0  1   1   1   0   1        0.5     1.0  0.667      1.0
    1   dog              0.0  2   1   0   1   1        1.0     0.5  0.667      1.0

    Only the dogs, keeping each datum's original top prediction (valor's filter): the
    third datum's top prediction was ``cat``, so it predicts nothing:

    >>> table = classification(df, y_true="truth", score=["cat", "dog"], labels=["dog"],
    ...                        top_prediction="original", zero_division=0)
    >>> table[["label", "N", "tp", "fp", "fn", "recall"]]
      label  N  tp  fp  fn  recall
    0   dog  2   1   0   1     0.5
    >>> table = classification(df, y_true="truth", score=["cat", "dog"], labels=["dog"], zero_division=0)
    >>> table[["label", "N", "tp", "fp", "fn", "recall"]]
      label  N  tp  fp  fn  recall
    0   dog  2   2   0   0     1.0
    """
    if table not in TABLES:
        raise InvalidInputError(f"`table={table!r}` is not a classification table; use one of {TABLES}.")
    curve = table in ("pr_curve", "errors")
    if hardmax is None:
        hardmax = not curve
    if not isinstance(hardmax, (bool, np.bool_)):
        raise InvalidInputError(
            f"`hardmax={plain(hardmax)!r}`: pass True (one prediction per datum, valor's "
            f"default) or False (every label scored above the threshold)."
        )
    if score_thresholds is None:
        score_thresholds = DEFAULT_CURVE_THRESHOLDS if curve else (0.0,)
    threshold_array(score_thresholds)
    zero_division = check_zero_division(zero_division)
    if (
        isinstance(max_examples, (bool, np.bool_))
        or not isinstance(max_examples, (int, np.integer))
        or max_examples < 0
    ):
        raise InvalidInputError(f"`max_examples={plain(max_examples)!r}`: pass a whole number >= 0.")
    spec = ClassificationTable(
        y_true,
        score,
        label,
        datum,
        table,
        threshold_array(score_thresholds),
        bool(hardmax),
        zero_division,
        int(max_examples) if table in ("errors", "confusion") else 0,
        labels,
        top_prediction,
    )
    spec.chunk(frame.iloc[:0], strict=False)  # columns, dtypes and options checked on no rows
    scores = [score] if isinstance(score, (str, int)) else list(score)
    names = [y_true, *([] if label is None else [label]), *scores, *([] if datum is None else [datum])]
    names = list(dict.fromkeys(names))
    if datum is None and label is None:  # wide, each row its own datum: the rows stay where they are
        return Table(names, partial(_row_chunk, spec), partial(_finalize_rows, spec), key=POS)
    return Table(names, partial(_datum_chunk, spec), spec.finalize, key=datum)


@dataclass(frozen=True)
class ClassificationTable:
    """One classification table with its checked options, as chunk -> state -> finalize.

    ``chunk`` reads a frame holding every row of its datums (the whole frame, or a
    partition shuffled on the datum) into a :class:`~pdmetrics.detection.label_state.LabelState`;
    states of disjoint sets of datums combine (``state.combine(other)``), and ``finalize``
    makes the table of the combined state. :func:`classification` is the one-chunk case.
    """

    y_true: object
    score: object
    label: object
    datum: object
    table: str
    thresholds: np.ndarray
    hardmax: bool
    zero_division: object
    max_examples: int
    labels: object
    top_prediction: str

    def chunk(self, frame: pd.DataFrame, order=None, strict: bool = True) -> LabelState:
        """The state of ``frame``; ``order`` (per row, optional) orders the examples in the whole data,
        ``strict=False`` lets ``labels=`` list labels absent from ``frame``."""
        *arrays, rows = long_arrays(frame, self.y_true, self.score, self.label, self.datum)
        pairs = prepare_pairs(
            *arrays,
            labels=self.labels,
            top_prediction=self.top_prediction,
            order=None if order is None else np.asarray(order, dtype="int64")[rows],
            strict=strict,
        )
        state = label_state(pairs, self.table, self.thresholds, self.hardmax, self.max_examples)
        # the kinds of the label columns' values: parts of one column must not hold two kinds
        columns = [("y_true", self.y_true)] + ([] if self.label is None else [("label", self.label)])
        kinds = tuple(
            (argument, column, kind, *found)
            for argument, column in columns
            for kind, found in _one_kind(frame[column], argument).items()
        )
        return replace(state, kinds=kinds)

    def finalize(self, state: LabelState) -> pd.DataFrame:
        """The table of a (combined) state."""
        state = state.finalized(self.labels)
        thresholds, zero_division = self.thresholds, self.zero_division
        if self.table == "labels":
            return metrics_table(state, thresholds, zero_division)
        if self.table == "summary":
            return summary_table(state, thresholds, zero_division)
        if self.table == "roc_curve":
            return curve_table(state.labels, state.roc_points())
        if self.table == "pr_curve":
            return pr_curve_table(state, thresholds, zero_division)
        if self.table == "errors":
            return errors_table(state, thresholds)
        return confusion_from_state(state, thresholds)


#: A row's key in the whole frame: its partition number times this, plus its position.
ROW_KEY = 1 << 40
#: The datum column of the wide layout without ``datum=`` on a part of the rows (each row its own datum).
ROW = "__pdmetrics_datum__"


def _datum_chunk(spec: ClassificationTable, part: pd.DataFrame) -> LabelState:
    """The state of the whole frame (one chunk), or of a part holding every row of its datums
    (each datum's first row keyed by its source order, for the order of the examples)."""
    if PART not in part.columns:
        return spec.chunk(part)
    part, (number, position) = source_order(part)
    return spec.chunk(part, order=number * ROW_KEY + position, strict=False)


@dataclass(frozen=True)
class RowCounted:
    """The state of some rows of the wide layout without ``datum=``, and the number of rows of
    each partition of the caller's frame (to turn the examples' row keys into row positions)."""

    state: LabelState
    rows: np.ndarray

    def combine(self, *others: RowCounted) -> RowCounted:
        states = (self, *others)
        return RowCounted(
            self.state.combine(*(s.state for s in others)), added_counts([s.rows for s in states])
        )


def _row_chunk(spec: ClassificationTable, part: pd.DataFrame) -> RowCounted:
    if PART not in part.columns:
        return RowCounted(spec.chunk(part), np.array([len(part)], dtype="int64"))
    part, (number, position) = source_order(part)
    keys = number * ROW_KEY + position
    state = replace(spec, datum=ROW).chunk(part.assign(**{ROW: keys}), order=keys, strict=False)
    return RowCounted(state, np.bincount(number, minlength=1))


def _finalize_rows(spec: ClassificationTable, counted: RowCounted) -> pd.DataFrame:
    """The table, the examples' row keys turned into row positions in the whole frame (on one
    chunk the keys are the positions already)."""
    state = counted.state
    if state.examples:
        offsets = np.cumsum(counted.rows) - counted.rows
        examples = {
            cell: [(order, int(offsets[row // ROW_KEY] + row % ROW_KEY)) for order, row in found]
            for cell, found in state.examples.items()
        }
        state = replace(state, examples=examples)
    return spec.finalize(state)


def _wide_scores(series: pd.Series) -> np.ndarray:
    """One wide score column as floats: missing means "not a candidate"; text or inf is an error."""
    values = numeric_values(series, "score")
    bad = ~np.isfinite(values) & series.notna().to_numpy()
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InvalidInputError(
            f"`score=` column {series.name!r} holds {plain(series.iloc[row])!r} at row "
            f"{plain(series.index[row])!r}, not a finite number; leave a cell missing (NaN) when the label "
            f"is not a candidate, otherwise give a number."
        )
    return values


def _no_missing(frame: pd.DataFrame, argument: str, column) -> None:
    """Refuse a missing value in a column every row needs, naming the caller's row (index label)."""
    missing = frame[column].isna().to_numpy()
    if missing.any():
        rows = frame.index[missing]
        raise InvalidInputError(
            f"`{argument}={plain(column)!r}` has {int(missing.sum())} missing value(s) (e.g. at row "
            f"{plain(rows[0])!r}); every row needs a {argument}. Drop those rows first, e.g. "
            f"`df.dropna(subset=[{plain(column)!r}])`."
        )


def _one_kind(series: pd.Series, argument: str) -> dict:
    """The kinds of a label column (:func:`~pdmetrics.detection.label_pairs.column_kinds`);
    a column mixing booleans, strings and numbers is refused, naming the odd value and its row
    (``True == 1`` would merge two classes silently, ``'1' != 1`` split one)."""
    found = column_kinds(series)
    if len(found) > 1:
        raise mixed_kinds_error(argument, series.name, found)
    return found


def _truth_kind(truth: pd.Series) -> str | None:
    """ "bool", "number" or None (text, mixed or no values) for the classes of ``y_true``."""
    dtype, values = truth.dtype, truth
    if isinstance(dtype, pd.CategoricalDtype):
        dtype, values = dtype.categories.dtype, pd.Series(dtype.categories)
    if pd.api.types.is_bool_dtype(dtype):
        return "bool"
    if pd.api.types.is_numeric_dtype(dtype):
        return "number"
    inferred = pd.api.types.infer_dtype(values, skipna=True)
    if inferred == "boolean":
        return "bool"
    return "number" if inferred in ("integer", "floating", "mixed-integer-float") else None


def _binary_classes(truth: pd.Series, column):
    """``(negative, positive)`` when one score column is the probability of the positive class.

    That is the case when the column is named by text (so by no class) and ``y_true`` holds
    False/True or 0/1 (numbers): the positive class is True or 1, as scikit-learn's. The
    classes come from the dtype and the values 0/1, so every part of the rows (a dask
    partition) reads them alike. Otherwise None (the wide layout).
    """
    if not isinstance(column, str):
        return None
    kind = _truth_kind(truth)
    if kind == "bool":
        return False, True
    if kind != "number" or not truth.isin([0, 1]).all():
        return None
    dtype = truth.dtype.categories.dtype if isinstance(truth.dtype, pd.CategoricalDtype) else truth.dtype
    return (0.0, 1.0) if pd.api.types.is_float_dtype(dtype) else (0, 1)


def _one_column_layout_error(truth: pd.Series, y_true, column) -> InvalidInputError:
    present = pd.unique(truth.to_numpy(dtype=object)).tolist()
    classes = preview(present)
    named = isinstance(column, str) and column in present
    what = (
        f"the only score column and `y_true={plain(y_true)!r}` holds other classes too"
        if named
        else f"one column and not a class of `y_true={plain(y_true)!r}`"
    )
    return InvalidInputError(
        f"`score={plain(column)!r}` is {what} (classes: {classes}). One probability column is read "
        f"as the probability of the positive class of a binary y_true holding 0/1 or False/True (1 or "
        f"True is positive); map the classes to those "
        f"first, e.g. `df.assign(positive=df[{plain(y_true)!r}] == positive_class)`. For more classes "
        f"give one score column per class, named by the class (wide layout), or `label=` and `datum=` "
        f"(long layout)."
    )


def long_arrays(frame: pd.DataFrame, y_true, score, label, datum):
    """Long (y_true, label, score, datum) arrays from the long or the wide layout, and the
    position in ``frame`` of each long row."""
    require_columns(frame, "y_true", y_true)
    _no_missing(frame, "y_true", y_true)
    _one_kind(frame[y_true], "y_true")
    if label is not None:
        if not isinstance(score, (str, int)) and not (isinstance(score, list) and len(score) == 1):
            raise InvalidInputError(
                "With `label=` (long layout) pass one score column as `score=`; "
                "for one score column per class leave `label=` out (wide layout)."
            )
        score = score[0] if isinstance(score, list) else score
        require_columns(frame, "label", label)
        require_columns(frame, "score", score)
        if datum is None:
            raise InvalidInputError(
                "The long layout (one row per datum and candidate label) needs `datum=`: "
                "the column that says which rows belong to the same datum."
            )
        require_columns(frame, "datum", datum)
        _no_missing(frame, "label", label)
        _one_kind(frame[label], "label")
        _no_missing(frame, "datum", datum)
        values = numeric_values(frame[score], "score")
        if not np.isfinite(values).all():
            at = int(np.flatnonzero(~np.isfinite(values))[0])
            raise InvalidInputError(
                f"`score={plain(score)!r}` holds {plain(frame[score].iloc[at])!r} at row "
                f"{plain(frame.index[at])!r}; every candidate label needs a finite score. Drop the rows of "
                f"labels that were not scored (a missing row means 'not a candidate')."
            )
        return frame[y_true], frame[label], values, frame[datum], np.arange(len(frame))
    columns = require_columns(frame, "score", score)
    if datum is not None:
        require_columns(frame, "datum", datum)
        _no_missing(frame, "datum", datum)
    n, k = len(frame), len(columns)
    if k == 1:
        binary = _binary_classes(frame[y_true], columns[0])
        if binary is not None:
            return _binary_arrays(frame, y_true, columns[0], datum, binary)
        if isinstance(columns[0], str) and frame[y_true].ne(columns[0]).to_numpy(dtype=bool).any():
            # a row whose class has no score column: neither one probability nor a wide layout
            # (true of the whole frame exactly when it is true of some part of it)
            raise _one_column_layout_error(frame[y_true], y_true, columns[0])
    matrix = np.column_stack([_wide_scores(frame[c]) for c in columns]) if n else np.zeros((0, k))
    keep = np.isfinite(matrix).reshape(-1)
    # categoricals: the core factorizes their codes instead of a million Python objects
    datum_codes = np.repeat(np.arange(n), k)[keep]
    datum_names = frame[datum].to_numpy(dtype=object) if datum is not None else np.arange(n)
    truth_codes, truth_keys = group_codes([frame[y_true]], "y_true")
    truth_long = pd.Categorical.from_codes(
        np.repeat(truth_codes, k)[keep], pd.Index(truth_keys.iloc[:, 0].tolist(), dtype=object)
    )
    label_long = pd.Categorical.from_codes(
        np.tile(np.arange(k), n)[keep], pd.Index(pd.Series(columns, dtype=object))
    )
    try:
        repeated = datum is not None and pd.Index(datum_names).has_duplicates
    except TypeError:  # unhashable datum ids: the core names the column and the fix
        repeated = True
    if repeated:
        datum_long = pd.Series(np.repeat(datum_names, k)[keep], name=datum)
    else:
        datum_long = pd.Categorical.from_codes(datum_codes, pd.Index(pd.Series(datum_names, dtype=object)))
    return truth_long, label_long, matrix.reshape(-1)[keep], datum_long, np.repeat(np.arange(n), k)[keep]


def _binary_arrays(frame: pd.DataFrame, y_true, column, datum, classes):
    """The long arrays of one probability column: each datum scores ``1 - p`` for the negative
    class and ``p`` for the positive one (the two-column wide layout valor would be given)."""
    probability = _wide_scores(frame[column])
    bad = (probability < 0) | (probability > 1)
    if bad.any():
        at = int(np.flatnonzero(bad)[0])
        raise InvalidInputError(
            f"`score={plain(column)!r}` is read as the probability of the positive class "
            f"({plain(classes[1])!r}) of a binary y_true, so it must lie in [0, 1]; row "
            f"{plain(frame.index[at])!r} holds {plain(frame[column].iloc[at])!r}."
        )
    missing = np.isnan(probability)
    if missing.any():
        warn_excluded(
            int(missing.sum()),
            len(frame),
            f"no probability in `score={plain(column)!r}` (such a datum is not scored)",
        )
    two = pd.DataFrame({classes[0]: 1.0 - probability, classes[1]: probability}, index=frame.index)
    two[y_true] = frame[y_true].to_numpy()
    if datum is not None:
        two[datum] = frame[datum].to_numpy()
    return long_arrays(two, y_true, list(classes), None, datum)
