"""Classification metrics as valor-lite defines them, from one long table of label scores.

The input is one row per datum (an image, a document, ...) and candidate label, with the
label's score and the datum's true label repeated on each of its rows: exactly the pairs
valor-lite stores. Every metric below is computed from integer codes of those rows with
``np.bincount`` and cumulative sums over score thresholds: no loop over rows, labels or
datums, and the score thresholds are handled in one pass (a row with score ``s`` is a
positive prediction at every threshold ``t <= s``).

Definitions (valor-lite 0.39.0, ``valor_lite.classification``):

* A row is a *positive prediction* at threshold ``t`` when ``score >= t`` and the score is
  not zero (``|score| > 1e-8``); with ``hardmax=True`` only the datum's top-scored row can
  be positive (ties go to the row that comes first, as valor's ``np.argmax``).
* Per label ``L``: ``tp`` counts positive ``L`` rows on datums whose truth is ``L``;
  ``fp`` positive ``L`` rows on other datums; ``fn`` datums whose truth is ``L`` and that
  have an ``L`` row that is not positive or a positive row of another label; ``tn`` ``L``
  rows that are neither positive nor true.
* Accuracy is the sum of ``tp`` over labels divided by the number of datums.
* ROC AUC (one label against the rest) uses every score of the label as a threshold, ties
  forming one point, and the trapezoid rule.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdmetrics._tables import result_table
from pdmetrics._validation import as_float_array
from pdmetrics._warnings import warn_undefined
from pdmetrics.errors import InvalidInputError

__all__ = [
    "binary_roc_auc",
    "roc_curve",
    "roc_auc",
    "mean_roc_auc",
    "classification_metrics",
    "classification_accuracy",
    "classification_summary",
    "classification_pr_curve",
    "classification_errors",
    "classification_confusion",
    "DEFAULT_CURVE_THRESHOLDS",
]

#: Score thresholds of valor's precision-recall curves: 0.05, 0.10, ..., 0.95.
DEFAULT_CURVE_THRESHOLDS = tuple(np.round(np.arange(1, 20) * 0.05, 2).tolist())

_ZERO_SCORE = 1e-8  # valor: np.isclose(score, 0) -> not a prediction


# --------------------------------------------------------------------------------------
# input preparation
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Pairs:
    """Integer-coded (datum, candidate label) rows."""

    labels: pd.Index  # label values, sorted
    datums: pd.Index  # datum values, order of first appearance
    datum: np.ndarray  # datum code per row
    label: np.ndarray  # label code per row
    score: np.ndarray  # float64 per row
    truth: np.ndarray  # truth label code per datum
    match: np.ndarray  # row's label is its datum's truth
    winner: np.ndarray  # row is its datum's first top-scored row

    @property
    def n_labels(self) -> int:
        return len(self.labels)

    @property
    def n_datums(self) -> int:
        return len(self.datums)


def _values(values, argument: str):
    """A 1-D array (or a Categorical, kept as codes) with no missing entry."""
    if isinstance(values, pd.Series) and isinstance(values.dtype, pd.CategoricalDtype):
        values = values.array
    if isinstance(values, pd.Categorical):
        missing = values.codes < 0
        array = values
    else:
        if isinstance(values, (pd.Series, pd.Index)):
            # extension arrays (Arrow strings) are factorized as they are
            extension = isinstance(values.dtype, pd.api.extensions.ExtensionDtype)
            array = values.array if extension else values.to_numpy()
            missing = np.asarray(values.isna())
        else:
            array = np.asarray(values)
            if array.ndim == 0:
                array = array.reshape(1)
            if array.ndim != 1:
                raise InvalidInputError(f"`{argument}` must be one-dimensional; got shape {array.shape}.")
            missing = pd.isna(array)
    if missing.any():
        raise InvalidInputError(
            f"`{argument}` has {int(missing.sum())} missing value(s) (e.g. at position "
            f"{int(np.flatnonzero(missing)[0])}); every row needs a {argument}. Drop those rows first."
        )
    return array


def _factorize(values) -> tuple[np.ndarray, pd.Index]:
    """Codes and unique values (a plain Index) of an array or a Categorical."""
    if isinstance(values, pd.Categorical):
        codes = values.codes.astype("int64")
        present = np.flatnonzero(np.bincount(codes, minlength=len(values.categories)))
        remap = np.full(len(values.categories), -1, dtype="int64")
        remap[present] = np.arange(present.size)
        uniques = np.asarray(values.categories, dtype=object)[present]
        return remap[codes], pd.Index(uniques.tolist(), dtype=object)
    codes, uniques = pd.factorize(values)
    return codes.astype("int64"), pd.Index(np.asarray(uniques, dtype=object).tolist(), dtype=object)


def _kind(value) -> str:
    return "string" if isinstance(value, (str, np.str_)) else "number"


def _label_index(truth_uniques: pd.Index, label_uniques: pd.Index) -> pd.Index:
    combined = label_uniques.append(truth_uniques).unique()
    kinds = {_kind(v) for v in combined}
    if len(kinds) > 1:
        text = next(v for v in combined if _kind(v) == "string")
        number = next(v for v in combined if _kind(v) == "number")
        raise InvalidInputError(
            f"Labels mix strings and numbers (e.g. {text!r} and {number!r}): '1' and 1 would be two "
            f"different labels. Convert the truth and label columns to one type, e.g. `.astype(str)`."
        )
    try:
        return pd.Index(combined).sort_values()
    except TypeError:
        return pd.Index(combined)


def _prepare(truth, label, score, datum) -> _Pairs:
    truth_v = _values(truth, "truth")
    label_v = _values(label, "label")
    datum_v = _values(datum, "datum")
    scores = as_float_array(score, "score")
    sizes = {"truth": len(truth_v), "label": len(label_v), "score": scores.size, "datum": len(datum_v)}
    if len(set(sizes.values())) > 1:
        raise InvalidInputError(f"truth, label, score and datum must have one entry per row; got {sizes}.")
    if not np.isfinite(scores).all():
        bad = int(np.flatnonzero(~np.isfinite(scores))[0])
        raise InvalidInputError(
            f"`score` holds {scores[bad]!r} at position {bad}; every candidate label needs a finite score. "
            f"Drop the rows of labels that were not scored (a missing row means 'not a candidate')."
        )
    datum_code, datums = _factorize(datum_v)
    truth_code, truth_uniques = _factorize(truth_v)
    label_code, label_uniques = _factorize(label_v)
    labels = _label_index(truth_uniques, label_uniques)
    truth_code = labels.get_indexer(truth_uniques)[truth_code] if len(truth_v) else truth_code
    label_code = labels.get_indexer(label_uniques)[label_code] if len(label_v) else label_code
    n_datums, n_labels = len(datums), len(labels)

    truth_of_datum = np.full(n_datums, -1, dtype="int64")
    truth_of_datum[datum_code] = truth_code
    inconsistent = truth_of_datum[datum_code] != truth_code
    if inconsistent.any():
        row = int(np.flatnonzero(inconsistent)[0])
        raise InvalidInputError(
            f"Datum {datums[datum_code[row]]!r} has more than one truth ({labels[truth_code[row]]!r} and "
            f"{labels[truth_of_datum[datum_code[row]]]!r}); the truth column must repeat the datum's one "
            f"true label on each of its rows."
        )
    key = datum_code.astype("int64") * max(n_labels, 1) + label_code
    if n_datums * n_labels <= 8 * key.size + 1024:
        duplicated = np.bincount(key, minlength=n_datums * n_labels).max(initial=0) > 1
    else:
        duplicated = np.unique(key).size != key.size
    if duplicated:
        counts = pd.Series(key).value_counts()
        first = int(counts.index[0])
        raise InvalidInputError(
            f"Datum {datums[first // n_labels]!r} has {int(counts.iloc[0])} rows for label "
            f"{labels[first % n_labels]!r}; give each (datum, label) pair one row with its score."
        )
    match = label_code == truth_code
    return _Pairs(
        labels,
        pd.Index(datums),
        datum_code.astype("int64"),
        label_code.astype("int64"),
        scores,
        truth_of_datum,
        match,
        _winners(datum_code, scores, n_datums),
    )


def _winners(datum_code: np.ndarray, scores: np.ndarray, n_datums: int) -> np.ndarray:
    """First top-scored row of each datum (valor's ``np.argmax`` over the datum's rows)."""
    winner = np.zeros(scores.size, dtype=bool)
    if scores.size == 0:
        return winner
    order = np.argsort(datum_code, kind="stable")
    sorted_datum = datum_code[order]
    sorted_score = scores[order]
    starts = np.flatnonzero(np.r_[True, sorted_datum[1:] != sorted_datum[:-1]])
    best = np.maximum.reduceat(sorted_score, starts)
    top = np.flatnonzero(sorted_score == np.repeat(best, np.diff(np.r_[starts, scores.size])))
    first = top[np.r_[True, sorted_datum[top][1:] != sorted_datum[top][:-1]]]
    winner[order[first]] = True
    return winner


def _thresholds(score_thresholds, argument: str = "score_thresholds") -> np.ndarray:
    try:
        values = (
            np.atleast_1d(np.asarray(score_thresholds, dtype="float64"))
            if not isinstance(score_thresholds, (int, float))
            else np.array([float(score_thresholds)])
        )
    except (TypeError, ValueError):
        values = np.zeros(0)
    if values.size == 0 or not np.isfinite(values).all():
        raise InvalidInputError(f"`{argument}` must be one or more finite numbers; got {score_thresholds!r}.")
    return np.unique(values)


def _positive_until(pairs: _Pairs, thresholds: np.ndarray, hardmax: bool) -> np.ndarray:
    """Per row, ``k`` such that the row is a positive prediction at thresholds ``0..k-1``."""
    k = np.searchsorted(thresholds, pairs.score, side="right")
    k[np.abs(pairs.score) <= _ZERO_SCORE] = 0
    if hardmax:
        k[~pairs.winner] = 0
    return k


def _positive_counts(codes: np.ndarray, k: np.ndarray, n_codes: int, n_thresholds: int) -> np.ndarray:
    """``(n_codes, T)`` counts of rows with code ``c`` that are positive at threshold ``j`` (``k > j``)."""
    hist = np.bincount(codes * (n_thresholds + 1) + k, minlength=n_codes * (n_thresholds + 1))
    hist = hist.reshape(n_codes, n_thresholds + 1)
    return np.cumsum(hist[:, ::-1], axis=1)[:, ::-1][:, 1:]


def _interval_counts(
    codes: np.ndarray, start: np.ndarray, stop: np.ndarray, n_codes: int, n_thresholds: int
) -> np.ndarray:
    """``(n_codes, T)`` counts of items whose threshold interval ``[start, stop)`` contains ``j``."""
    stop = np.maximum(stop, start)
    width = n_thresholds + 1
    diff = np.bincount(codes * width + start, minlength=n_codes * width) - np.bincount(
        codes * width + stop, minlength=n_codes * width
    )
    return np.cumsum(diff.reshape(n_codes, width), axis=1)[:, :n_thresholds]


def _datum_max(pairs: _Pairs, k: np.ndarray, rows: np.ndarray, default: int) -> np.ndarray:
    out = np.full(pairs.n_datums, default, dtype="int64")
    np.maximum.at(out, pairs.datum[rows], k[rows])
    return out


# --------------------------------------------------------------------------------------
# ratios and undefined values
# --------------------------------------------------------------------------------------
class _Undefined:
    """Collects undefined ratios and emits one warning per call."""

    def __init__(self, zero_division) -> None:
        if isinstance(zero_division, str):
            if zero_division != "warn":
                raise InvalidInputError(
                    f"zero_division={zero_division!r}: use 'warn' (NaN with a warning) "
                    f"or a number such as 0 (valor's convention)."
                )
            self.fill, self.warn = np.nan, True
        else:
            try:
                self.fill, self.warn = float(zero_division), False
            except (TypeError, ValueError):
                raise InvalidInputError(f"zero_division={zero_division!r}: use 'warn' or a number.") from None
        self.notes: list[str] = []

    def ratio(self, numerator, denominator, what: str) -> np.ndarray:
        numerator = np.asarray(numerator, dtype="float64")
        denominator = np.asarray(denominator, dtype="float64")
        zero = denominator == 0
        with np.errstate(invalid="ignore", divide="ignore"):
            value = np.where(zero, self.fill, numerator / np.where(zero, 1.0, denominator))
        if self.warn and zero.any():
            self.notes.append(f"{what} ({int(zero.sum())} of {zero.size})")
        return value

    def emit(self) -> None:
        if self.notes:
            warn_undefined(
                "Undefined (0/0) and returned as NaN: "
                + "; ".join(self.notes)
                + ". Pass zero_division=0 for valor's convention (0 instead of NaN)."
            )


# --------------------------------------------------------------------------------------
# ROC
# --------------------------------------------------------------------------------------
def _roc_points(pairs: _Pairs):
    """ROC points of every label at once (label, score, fp, tp), ties as one point.

    Rows are sorted once by label, then decreasing score; the points are the cumulative
    counts at the end of each run of equal scores, preceded by (0, 0) for every label. A
    datum without a row for a label is scored below every score for that label, so a
    closing point ``(negatives, positives)`` is added where the last run does not reach it.
    """
    n_labels = pairs.n_labels
    positives = np.bincount(pairs.truth, minlength=n_labels) if pairs.n_datums else np.zeros(n_labels, int)
    negatives = pairs.n_datums - positives
    order = np.argsort(-pairs.score)  # ties need no order: only run ends are points
    order = order[np.argsort(pairs.label[order], kind="stable")]
    lab = pairs.label[order]
    sc = pairs.score[order]
    tp = pairs.match[order].astype("int64")
    rows_per_label = np.bincount(lab, minlength=n_labels)
    first_row = np.cumsum(rows_per_label) - rows_per_label
    cum_tp = np.cumsum(tp)
    before_tp = np.r_[0, cum_tp][first_row]  # tp of earlier labels
    cum_tp = cum_tp - np.repeat(before_tp, rows_per_label)
    cum_fp = np.arange(1, lab.size + 1) - np.repeat(first_row, rows_per_label) - cum_tp
    end = np.r_[(lab[1:] != lab[:-1]) | (sc[1:] != sc[:-1]), True] if lab.size else np.zeros(0, bool)
    p_label, p_score, p_fp, p_tp = lab[end], sc[end], cum_fp[end], cum_tp[end]
    points_per_label = np.bincount(p_label, minlength=n_labels)
    last_fp = np.zeros(n_labels, "int64")
    last_tp = np.zeros(n_labels, "int64")
    has = points_per_label > 0
    last_idx = np.cumsum(points_per_label) - 1
    last_fp[has] = p_fp[last_idx[has]]
    last_tp[has] = p_tp[last_idx[has]]
    close = (last_fp != negatives) | (last_tp != positives)
    # layout per label: start point, its score points, the closing point if any
    size = 1 + points_per_label + close
    offset = np.cumsum(size) - size
    total = int(size.sum())
    out_label = np.repeat(np.arange(n_labels), size)
    out_score = np.empty(total)
    out_fp = np.empty(total, dtype="int64")
    out_tp = np.empty(total, dtype="int64")
    out_score[offset], out_fp[offset], out_tp[offset] = np.inf, 0, 0
    first_point = np.cumsum(points_per_label) - points_per_label
    where = offset[p_label] + 1 + np.arange(p_label.size) - first_point[p_label]
    out_score[where], out_fp[where], out_tp[where] = p_score, p_fp, p_tp
    where = (offset + 1 + points_per_label)[close]
    out_score[where], out_fp[where], out_tp[where] = -np.inf, negatives[close], positives[close]
    return out_label, out_score, out_fp, out_tp, positives, negatives


def _roc_auc_per_label(pairs: _Pairs, undefined: _Undefined) -> np.ndarray:
    """Trapezoid areas on integer counts, divided once: ``sum(dfp * (tp + tp_prev)) / (2 P N)``."""
    lab, _, fp, tp, positives, negatives = _roc_points(pairs)
    same = np.r_[False, lab[1:] == lab[:-1]] if lab.size else np.zeros(0, bool)
    prev_fp = np.r_[0, fp[:-1]] if lab.size else fp
    prev_tp = np.r_[0, tp[:-1]] if lab.size else tp
    twice_area = np.where(same, (fp - prev_fp) * (tp + prev_tp), 0).astype("float64")
    numerator = (
        np.bincount(lab, weights=twice_area, minlength=pairs.n_labels)
        if lab.size
        else np.zeros(pairs.n_labels)
    )
    denominator = 2.0 * positives.astype("float64") * negatives
    return undefined.ratio(numerator, denominator, "ROC AUC of a label without positives or negatives")


def _safe_ratio(numerator, denominator) -> np.ndarray:
    numerator = np.asarray(numerator, dtype="float64")
    denominator = np.asarray(denominator, dtype="float64")
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, numerator / np.where(denominator > 0, denominator, 1.0), 0.0)


def binary_roc_auc(y_true, y_score) -> float:
    """Area under the ROC curve of one binary problem (ties form one point, trapezoid rule).

    Every distinct score is a threshold; the curve runs from (0, 0) through one point per
    distinct score, in decreasing order, to (1, 1), and its area is summed with the
    trapezoid rule. This is valor's (and scikit-learn's ``roc_auc_score``) definition.

    Parameters
    ----------
    y_true : array-like of bool or 0/1
        Whether each item is a positive.
    y_score : array-like of float
        The items' scores (higher means more likely positive).

    Returns
    -------
    float
        ROC AUC; NaN with an :class:`~pdmetrics.UndefinedMetricWarning` when there is no
        positive or no negative item.

    Examples
    --------
    >>> from pdmetrics.detection import binary_roc_auc
    >>> binary_roc_auc([1, 0, 1, 0], [0.9, 0.8, 0.4, 0.1])
    0.75
    >>> binary_roc_auc([1, 0, 1, 0], [0.5, 0.5, 0.5, 0.5])  # one tied point: the diagonal
    0.5
    """
    truth = np.asarray(y_true)
    if truth.dtype != bool:
        values = as_float_array(truth, "y_true")
        if not np.isin(values, (0.0, 1.0)).all():
            raise InvalidInputError(
                "`y_true` must hold booleans or 0/1; convert it with `== positive_label`."
            )
        truth = values == 1.0
    scores = as_float_array(y_score, "y_score")
    if truth.shape != scores.shape:
        raise InvalidInputError(f"`y_true` has {truth.size} values but `y_score` has {scores.size}.")
    n = truth.size
    pairs = _prepare(np.where(truth, 1, 0), np.ones(n, dtype="int64"), scores, np.arange(n))
    undefined = _Undefined("warn")
    label_one = int(np.flatnonzero(np.asarray(pairs.labels) == 1)[0]) if (pairs.labels == 1).any() else None
    if label_one is None or pairs.n_labels < 2 or n == 0:
        warn_undefined("ROC AUC is undefined without both positive and negative items; returning NaN.")
        return float("nan")
    value = float(_roc_auc_per_label(pairs, undefined)[label_one])
    undefined.emit()
    return value


def roc_curve(truth, label, score, datum) -> pd.DataFrame:
    """One-vs-rest ROC curve points of every label.

    Parameters
    ----------
    truth, label, score, datum : array-like
        One entry per (datum, candidate label) row: the datum's true label (repeated on
        each of its rows), the candidate label, its score and the datum id.

    Returns
    -------
    DataFrame
        ``label, score, fpr, tpr``: one row per point, from ``(0, 0)`` (score ``inf``)
        through one point per distinct score of the label (decreasing) to ``(1, 1)``; a
        last point with score ``-inf`` holds the datums that have no row for the label.
        A rate is 0 when the label has no positive (or no negative) datum.

    Examples
    --------
    >>> from pdmetrics.detection import roc_curve
    >>> curve = roc_curve(["a", "b"] * 2 + ["b", "b"], ["a", "a", "b", "b", "a", "b"],
    ...                   [0.9, 0.4, 0.2, 0.7, 0.3, 0.8], [1, 2, 1, 2, 3, 3])
    >>> curve.round(2)
      label  score  fpr  tpr
    0     a    inf  0.0  0.0
    1     a    0.9  0.0  1.0
    2     a    0.4  0.5  1.0
    3     a    0.3  1.0  1.0
    4     b    inf  0.0  0.0
    5     b    0.8  0.0  0.5
    6     b    0.7  0.0  1.0
    7     b    0.2  1.0  1.0
    """
    pairs = _prepare(truth, label, score, datum)
    lab, sc, fp, tp, positives, negatives = _roc_points(pairs)
    return result_table(
        {
            "label": pairs.labels[lab],
            "score": sc,
            "fpr": _safe_ratio(fp, negatives[lab]),
            "tpr": _safe_ratio(tp, positives[lab]),
        }
    )


def roc_auc(truth, label, score, datum, zero_division="warn") -> pd.DataFrame:
    """One-vs-rest ROC AUC of every label (valor's ``ROCAUC``).

    For label ``L`` the datums whose truth is ``L`` are the positives, all other datums
    the negatives, and ``L``'s score ranks them; see :func:`binary_roc_auc`. A datum with
    no row for ``L`` ranks below every score.

    Parameters
    ----------
    truth, label, score, datum : array-like
        One entry per (datum, candidate label) row (see :func:`roc_curve`).
    zero_division : "warn" or float, default "warn"
        Value for a label without positive or without negative datums: ``"warn"`` gives
        NaN with an :class:`~pdmetrics.UndefinedMetricWarning`; valor uses 0.

    Returns
    -------
    DataFrame
        ``label, N, n_true, roc_auc`` with ``N`` the datums and ``n_true`` the datums
        whose truth is the label; labels sorted.

    Examples
    --------
    >>> from pdmetrics.detection import roc_auc
    >>> roc_auc(["a", "a", "b", "b"], ["a", "b", "a", "b"], [0.8, 0.2, 0.3, 0.7], [1, 1, 2, 2])
      label  N  n_true  roc_auc
    0     a  2       1      1.0
    1     b  2       1      1.0
    """
    pairs = _prepare(truth, label, score, datum)
    undefined = _Undefined(zero_division)
    auc = _roc_auc_per_label(pairs, undefined)
    undefined.emit()
    n_true = np.bincount(pairs.truth, minlength=pairs.n_labels)
    return result_table(
        {
            "label": pairs.labels,
            "N": np.full(pairs.n_labels, pairs.n_datums),
            "n_true": n_true,
            "roc_auc": auc,
        },
        integer_columns=("N", "n_true"),
    )


def mean_roc_auc(truth, label, score, datum, zero_division="warn") -> float:
    """Mean of the labels' one-vs-rest ROC AUCs (valor's ``mROCAUC``).

    With ``zero_division="warn"`` labels whose AUC is undefined are left out of the mean
    (with a warning); with a number (valor: 0) they count with that value.

    Examples
    --------
    >>> from pdmetrics.detection import mean_roc_auc
    >>> truth = ["bird", "bird", "bird", "dog", "dog", "dog", "cat", "cat", "cat"]
    >>> label = ["bird", "dog", "cat"] * 3
    >>> score = [0.6, 0.2, 0.2, 0.1, 0.5, 0.4, 0.3, 0.3, 0.4]
    >>> round(mean_roc_auc(truth, label, score, [1, 1, 1, 2, 2, 2, 3, 3, 3]), 4)
    1.0
    """
    pairs = _prepare(truth, label, score, datum)
    undefined = _Undefined(zero_division)
    auc = _roc_auc_per_label(pairs, undefined)
    undefined.emit()
    if np.isnan(auc).all():
        warn_undefined("Mean ROC AUC is undefined: no label has a defined ROC AUC; returning NaN.")
        return float("nan")
    return float(np.nanmean(auc))


# --------------------------------------------------------------------------------------
# counts, precision, recall, F1, accuracy at score thresholds
# --------------------------------------------------------------------------------------
def _counts(pairs: _Pairs, thresholds: np.ndarray, hardmax: bool):
    """valor-lite's TP/FP/FN/TN per (label, threshold), arrays of shape (K, T)."""
    n_labels, n_thr = pairs.n_labels, thresholds.size
    k = _positive_until(pairs, thresholds, hardmax)
    match, other = pairs.match, ~pairs.match
    tp = _positive_counts(pairs.label[match], k[match], n_labels, n_thr)
    fp = _positive_counts(pairs.label[other], k[other], n_labels, n_thr)
    tn = np.bincount(pairs.label[other], minlength=n_labels)[:, None] - fp
    # fn: datum flagged at j when its true row is not positive (j >= b) or another label is (j < a)
    a = _datum_max(pairs, k, other, 0)
    b = np.full(pairs.n_datums, n_thr, dtype="int64")
    b[pairs.datum[match]] = k[match]
    zeros = np.zeros(pairs.n_datums, dtype="int64")
    fn = _interval_counts(pairs.truth, zeros, a, n_labels, n_thr) + _interval_counts(
        pairs.truth, np.maximum(b, a), np.full_like(b, n_thr), n_labels, n_thr
    )
    return tp, fp, fn, tn


def _long_by_label(pairs: _Pairs, thresholds: np.ndarray) -> dict:
    n_labels, n_thr = pairs.n_labels, thresholds.size
    return {"label": pairs.labels.repeat(n_thr), "score_threshold": np.tile(thresholds, n_labels)}


def classification_metrics(
    truth, label, score, datum, score_thresholds=(0.0,), hardmax: bool = True, zero_division="warn"
) -> pd.DataFrame:
    """Per-label counts, precision, recall, F1 and ROC AUC at score thresholds (valor-lite).

    Parameters
    ----------
    truth, label, score, datum : array-like
        One entry per (datum, candidate label) row: the datum's true label (the same on
        each of its rows), the candidate label, its score and the datum id. A label with
        no row on a datum is not a candidate there.
    score_thresholds : float or sequence of float, default (0.0,)
        A row is a positive prediction at threshold ``t`` when ``score >= t`` and the
        score is not zero. Results come in increasing threshold order.
    hardmax : bool, default True
        Only the datum's top-scored row can be positive (valor's default); ties go to the
        row that comes first. ``False`` lets every row above the threshold be positive.
    zero_division : "warn" or float, default "warn"
        Value of a 0/0 precision, recall, F1 or ROC AUC: ``"warn"`` gives NaN with an
        :class:`~pdmetrics.UndefinedMetricWarning`; valor uses 0.

    Returns
    -------
    DataFrame
        ``label, score_threshold, N, tp, fp, fn, tn, precision, recall, f1, roc_auc``:
        one row per label and threshold; ``N`` datums whose truth is the label;
        ``precision = tp/(tp+fp)``, ``recall = tp/(tp+fn)``, ``f1 = 2tp/(2tp+fp+fn)``;
        ``roc_auc`` (threshold-free, see :func:`roc_auc`) repeated on each threshold row.
        The counting rules are valor-lite's (module docstring): with ``hardmax=False`` a
        datum can count a ``tp`` and an ``fn`` for its label at once, and a datum with no
        row for its true label and no positive row counts no ``fn``.

    Examples
    --------
    >>> from pdmetrics.detection import classification_metrics
    >>> truth = ["cat", "cat", "dog", "dog"]
    >>> label = ["cat", "dog", "cat", "dog"]
    >>> score = [0.7, 0.3, 0.6, 0.4]
    >>> classification_metrics(truth, label, score, [1, 1, 2, 2], zero_division=0).round(3)
      label  score_threshold  N  tp  fp  fn  tn  precision  recall     f1  roc_auc
    0   cat              0.0  1   1   1   0   0        0.5     1.0  0.667      1.0
    1   dog              0.0  1   0   0   1   1        0.0     0.0  0.000      1.0
    """
    pairs = _prepare(truth, label, score, datum)
    thresholds = _thresholds(score_thresholds)
    undefined = _Undefined(zero_division)
    tp, fp, fn, tn = _counts(pairs, thresholds, bool(hardmax))
    auc = _roc_auc_per_label(pairs, undefined)
    n_true = np.bincount(pairs.truth, minlength=pairs.n_labels)
    columns = _long_by_label(pairs, thresholds)
    columns.update(
        {
            "N": np.repeat(n_true, thresholds.size),
            "tp": tp.ravel(),
            "fp": fp.ravel(),
            "fn": fn.ravel(),
            "tn": tn.ravel(),
            "precision": undefined.ratio(tp, tp + fp, "precision").ravel(),
            "recall": undefined.ratio(tp, tp + fn, "recall").ravel(),
            "f1": undefined.ratio(2 * tp, 2 * tp + fp + fn, "F1").ravel(),
            "roc_auc": np.repeat(auc, thresholds.size),
        }
    )
    undefined.emit()
    return result_table(columns, integer_columns=("N", "tp", "fp", "fn", "tn"))


def classification_accuracy(
    truth, label, score, datum, score_thresholds=(0.0,), hardmax: bool = True
) -> pd.DataFrame:
    """Accuracy at score thresholds: the share of datums whose true label is predicted.

    valor-lite's ``Accuracy``: the true positives of all labels over the number of
    datums. With ``hardmax=True`` (one prediction per datum) this is top-1 accuracy
    among the datums whose top score passes the threshold.

    Returns
    -------
    DataFrame
        ``score_threshold, N, accuracy`` with ``N`` the number of datums; accuracy is NaN
        (with a warning) for empty input.

    Examples
    --------
    >>> from pdmetrics.detection import classification_accuracy
    >>> classification_accuracy(["cat", "cat", "dog", "dog"], ["cat", "dog", "cat", "dog"],
    ...                         [0.7, 0.3, 0.6, 0.4], [1, 1, 2, 2], score_thresholds=[0.0, 0.65])
       score_threshold  N  accuracy
    0             0.00  2       0.5
    1             0.65  2       0.5
    """
    pairs = _prepare(truth, label, score, datum)
    thresholds = _thresholds(score_thresholds)
    tp, _, _, _ = _counts(pairs, thresholds, bool(hardmax))
    undefined = _Undefined("warn")
    accuracy = undefined.ratio(tp.sum(axis=0), np.full(thresholds.size, pairs.n_datums), "accuracy")
    undefined.emit()
    return result_table(
        {"score_threshold": thresholds, "N": np.full(thresholds.size, pairs.n_datums), "accuracy": accuracy},
        integer_columns=("N",),
    )


def classification_summary(
    truth, label, score, datum, score_thresholds=(0.0,), hardmax: bool = True, zero_division="warn"
) -> pd.DataFrame:
    """Accuracy and mean ROC AUC per score threshold, from one pass over the rows.

    Returns
    -------
    DataFrame
        ``score_threshold, N, accuracy, mean_roc_auc``: ``N`` datums, ``accuracy`` as
        :func:`classification_accuracy`, ``mean_roc_auc`` as :func:`mean_roc_auc` (the
        same on every row).

    Examples
    --------
    >>> from pdmetrics.detection import classification_summary
    >>> classification_summary(["cat", "cat", "dog", "dog"], ["cat", "dog", "cat", "dog"],
    ...                        [0.7, 0.3, 0.6, 0.4], [1, 1, 2, 2])
       score_threshold  N  accuracy  mean_roc_auc
    0              0.0  2       0.5           1.0
    """
    pairs = _prepare(truth, label, score, datum)
    thresholds = _thresholds(score_thresholds)
    tp, _, _, _ = _counts(pairs, thresholds, bool(hardmax))
    undefined = _Undefined(zero_division)
    auc = _roc_auc_per_label(pairs, undefined)
    undefined.emit()
    accuracy_undefined = _Undefined("warn")
    accuracy = accuracy_undefined.ratio(tp.sum(axis=0), np.full(thresholds.size, pairs.n_datums), "accuracy")
    accuracy_undefined.emit()
    mean = float(np.nanmean(auc)) if auc.size and not np.isnan(auc).all() else np.nan
    if np.isnan(mean) and pairs.n_datums:
        warn_undefined("Mean ROC AUC is undefined: no label has a defined ROC AUC; returning NaN.")
    return result_table(
        {
            "score_threshold": thresholds,
            "N": np.full(thresholds.size, pairs.n_datums),
            "accuracy": accuracy,
            "mean_roc_auc": np.full(thresholds.size, mean),
        },
        integer_columns=("N",),
    )


# --------------------------------------------------------------------------------------
# precision-recall curves and the detailed breakdown
# --------------------------------------------------------------------------------------
def _binary_parts(pairs: _Pairs, thresholds: np.ndarray, hardmax: bool):
    """Each label as its own binary problem: tp, fp, fn split, per (label, threshold)."""
    n_labels, n_thr = pairs.n_labels, thresholds.size
    k = _positive_until(pairs, thresholds, hardmax)
    match, other = pairs.match, ~pairs.match
    tp = _positive_counts(pairs.label[match], k[match], n_labels, n_thr)
    fp = _positive_counts(pairs.label[other], k[other], n_labels, n_thr)
    a = _datum_max(pairs, k, other, 0)  # another label positive at j < a
    b = np.zeros(pairs.n_datums, dtype="int64")  # own label positive at j < b
    b[pairs.datum[match]] = k[match]
    end = np.full(pairs.n_datums, n_thr, dtype="int64")
    fn_misclassified = _interval_counts(pairs.truth, b, a, n_labels, n_thr)
    fn_no_prediction = _interval_counts(pairs.truth, np.maximum(a, b), end, n_labels, n_thr)
    return k, a, b, tp, fp, fn_misclassified, fn_no_prediction


def classification_pr_curve(
    truth,
    label,
    score,
    datum,
    score_thresholds=DEFAULT_CURVE_THRESHOLDS,
    hardmax: bool = False,
    zero_division="warn",
) -> pd.DataFrame:
    """Precision-recall curve of each label as its own binary problem (valor's ``PrecisionRecallCurve``).

    At threshold ``t`` a datum predicts label ``L`` when its ``L`` score is ``>= t`` (and
    not zero); ``tp``/``fp`` are the datums that predict ``L`` with/without truth ``L``,
    ``fn`` the datums with truth ``L`` that do not predict it and ``tn`` the rest, so the
    four counts add up to the number of datums.

    Parameters
    ----------
    score_thresholds : sequence of float, default 0.05, 0.10, ..., 0.95
    hardmax : bool, default False
        Valor computes its curves without hardmax; ``True`` lets only the top-scored row of
        each datum count.
    zero_division : "warn" or float, default "warn"

    Returns
    -------
    DataFrame
        ``label, score_threshold, N, tp, fp, fn, tn, precision, recall, f1``.

    Examples
    --------
    >>> from pdmetrics.detection import classification_pr_curve
    >>> curve = classification_pr_curve(["cat", "cat", "dog", "dog"], ["cat", "dog", "cat", "dog"],
    ...                                 [0.7, 0.3, 0.6, 0.4], [1, 1, 2, 2], score_thresholds=[0.5],
    ...                                 zero_division=0)
    >>> curve[["label", "tp", "fp", "fn", "tn", "precision", "recall"]]
      label  tp  fp  fn  tn  precision  recall
    0   cat   1   1   0   0        0.5     1.0
    1   dog   0   0   1   1        0.0     0.0
    """
    pairs = _prepare(truth, label, score, datum)
    thresholds = _thresholds(score_thresholds)
    undefined = _Undefined(zero_division)
    _, _, _, tp, fp, fn_m, fn_n = _binary_parts(pairs, thresholds, bool(hardmax))
    fn = fn_m + fn_n
    n_true = np.bincount(pairs.truth, minlength=pairs.n_labels)[:, None]
    tn = pairs.n_datums - n_true - fp
    columns = _long_by_label(pairs, thresholds)
    columns.update(
        {
            "N": np.repeat(n_true[:, 0], thresholds.size),
            "tp": tp.ravel(),
            "fp": fp.ravel(),
            "fn": fn.ravel(),
            "tn": tn.ravel(),
            "precision": undefined.ratio(tp, tp + fp, "precision").ravel(),
            "recall": undefined.ratio(tp, tp + fn, "recall").ravel(),
            "f1": undefined.ratio(2 * tp, 2 * tp + fp + fn, "F1").ravel(),
        }
    )
    undefined.emit()
    return result_table(columns, integer_columns=("N", "tp", "fp", "fn", "tn"))


def _examples(
    keys: np.ndarray,
    datum: np.ndarray,
    start: np.ndarray,
    stop: np.ndarray,
    n_keys: int,
    n_thresholds: int,
    max_examples: int,
) -> dict[tuple[int, int], list[int]]:
    """First ``max_examples`` datum codes per (key, threshold) among items valid on ``[start, stop)``."""
    out: dict[tuple[int, int], list[int]] = {}
    if max_examples <= 0 or keys.size == 0:
        return out
    order = np.lexsort((datum, keys))
    keys, datum, start, stop = keys[order], datum[order], start[order], stop[order]
    key_start = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    block = np.repeat(np.arange(key_start.size), np.diff(np.r_[key_start, keys.size]))
    picked_key, picked_thr, picked_datum = [], [], []
    for j in range(n_thresholds):
        valid = (start <= j) & (j < stop)
        running = np.cumsum(valid)
        before = (running - valid)[key_start]
        rank = running - before[block]
        chosen = valid & (rank <= max_examples)
        picked_key.append(keys[chosen])
        picked_thr.append(np.full(int(chosen.sum()), j))
        picked_datum.append(datum[chosen])
    key_all = np.concatenate(picked_key)
    thr_all = np.concatenate(picked_thr)
    datum_all = np.concatenate(picked_datum)
    order = np.lexsort((thr_all, key_all))
    key_all, thr_all, datum_all = key_all[order], thr_all[order], datum_all[order]
    if key_all.size == 0:
        return out
    cuts = np.flatnonzero(np.r_[True, (key_all[1:] != key_all[:-1]) | (thr_all[1:] != thr_all[:-1])])
    for cut, chunk in zip(cuts, np.split(datum_all, cuts[1:])):
        out[(int(key_all[cut]), int(thr_all[cut]))] = chunk.tolist()
    return out


def _example_column(found: dict, keys: np.ndarray, thr: np.ndarray, datums: pd.Index) -> list:
    values = np.asarray(datums, dtype=object)
    return [values[found.get((int(k), int(j)), [])].tolist() for k, j in zip(keys, thr)]


def classification_errors(
    truth,
    label,
    score,
    datum,
    score_thresholds=DEFAULT_CURVE_THRESHOLDS,
    hardmax: bool = False,
    max_examples: int = 1,
) -> pd.DataFrame:
    """Detailed breakdown of true positives, false positives and false negatives, with examples.

    Valor's ``DetailedPrecisionRecallCurve`` for classification: per label and threshold,
    each label as its own binary problem (see :func:`classification_pr_curve`), with

    * ``tp / all``: datums with truth ``L`` that predict ``L``;
    * ``fp / misclassifications``: datums with another truth that predict ``L`` (every
      datum has a truth, so a classification false positive is never a hallucination);
    * ``fn / misclassifications``: datums with truth ``L`` that do not predict ``L`` but
      predict another label;
    * ``fn / no_predictions``: datums with truth ``L`` where no label passes the threshold.

    Parameters
    ----------
    max_examples : int, default 1
        Up to this many example datum ids per row (the first ones in input order).

    Returns
    -------
    DataFrame
        ``label, score_threshold, outcome, observation, count, examples``: four rows per
        label and threshold, in that order.

    Examples
    --------
    >>> from pdmetrics.detection import classification_errors
    >>> errors = classification_errors(["cat", "cat", "dog", "dog"], ["cat", "dog", "cat", "dog"],
    ...                                [0.7, 0.3, 0.6, 0.4], ["img1", "img1", "img2", "img2"],
    ...                                score_thresholds=[0.5])
    >>> errors
      label  score_threshold outcome        observation  count examples
    0   cat              0.5      tp                all      1   [img1]
    1   cat              0.5      fp  misclassifications      1   [img2]
    2   cat              0.5      fn  misclassifications      0       []
    3   cat              0.5      fn     no_predictions      0       []
    4   dog              0.5      tp                all      0       []
    5   dog              0.5      fp  misclassifications      0       []
    6   dog              0.5      fn  misclassifications      1   [img2]
    7   dog              0.5      fn     no_predictions      0       []
    """
    if not isinstance(max_examples, (int, np.integer)) or max_examples < 0:
        raise InvalidInputError(f"max_examples={max_examples!r}: pass a whole number >= 0.")
    pairs = _prepare(truth, label, score, datum)
    thresholds = _thresholds(score_thresholds)
    n_labels, n_thr = pairs.n_labels, thresholds.size
    k, a, b, tp, fp, fn_m, fn_n = _binary_parts(pairs, thresholds, bool(hardmax))
    match, other = pairs.match, ~pairs.match
    kinds = 4
    counts = np.stack([tp, fp, fn_m, fn_n], axis=2)  # (K, T, 4)
    label_code = np.repeat(np.arange(n_labels), n_thr * kinds)
    thr_code = np.tile(np.repeat(np.arange(n_thr), kinds), n_labels)
    kind_code = np.tile(np.arange(kinds), n_labels * n_thr)
    examples = [[] for _ in range(label_code.size)]
    if max_examples > 0:
        zeros_rows = np.zeros(pairs.score.size, dtype="int64")
        end = np.full(pairs.n_datums, n_thr, dtype="int64")
        found = [
            _examples(
                pairs.label[match],
                pairs.datum[match],
                zeros_rows[match],
                k[match],
                n_labels,
                n_thr,
                max_examples,
            ),
            _examples(
                pairs.label[other],
                pairs.datum[other],
                zeros_rows[other],
                k[other],
                n_labels,
                n_thr,
                max_examples,
            ),
            _examples(pairs.truth, np.arange(pairs.n_datums), b, a, n_labels, n_thr, max_examples),
            _examples(
                pairs.truth, np.arange(pairs.n_datums), np.maximum(a, b), end, n_labels, n_thr, max_examples
            ),
        ]
        values = np.asarray(pairs.datums, dtype=object)
        examples = [
            values[found[c].get((int(lc), int(tc)), [])].tolist()
            for lc, tc, c in zip(label_code, thr_code, kind_code)
        ]
    outcome = np.array(["tp", "fp", "fn", "fn"], dtype=object)
    observation = np.array(
        ["all", "misclassifications", "misclassifications", "no_predictions"], dtype=object
    )
    return result_table(
        {
            "label": pairs.labels[label_code],
            "score_threshold": thresholds[thr_code],
            "outcome": outcome[kind_code],
            "observation": observation[kind_code],
            "count": counts.reshape(-1),
            "examples": examples,
        },
        integer_columns=("count",),
    )


# --------------------------------------------------------------------------------------
# confusion matrix
# --------------------------------------------------------------------------------------
def classification_confusion(
    truth, label, score, datum, score_thresholds=(0.0,), hardmax: bool = True, max_examples: int = 0
) -> pd.DataFrame:
    """Confusion matrix of true against predicted labels at score thresholds (valor-lite).

    Cell ``(truth=g, prediction=p)`` counts the datums with truth ``g`` on which label ``p``
    is a positive prediction (with ``hardmax=False`` a datum can fill several cells);
    the row with a missing ``prediction`` counts the datums of truth ``g`` with no
    positive prediction at all (valor's ``unmatched_ground_truths``).

    Parameters
    ----------
    score_thresholds : float or sequence of float, default (0.0,)
    hardmax : bool, default True
    max_examples : int, default 0
        Up to this many example datum ids per cell, in an ``examples`` column (valor's
        confusion matrix "with examples"); 0 leaves the column out.

    Returns
    -------
    DataFrame
        ``score_threshold, truth, prediction, count[, examples]``: for each threshold,
        every (truth, prediction) pair of labels, then one row per truth label with
        ``prediction`` missing (None). Pivot it with
        ``table.pivot_table(index="truth", columns="prediction", values="count", dropna=False)``.

    Examples
    --------
    >>> from pdmetrics.detection import classification_confusion
    >>> table = classification_confusion(["cat", "cat", "dog", "dog"], ["cat", "dog", "cat", "dog"],
    ...                                  [0.7, 0.3, 0.6, 0.4], [1, 1, 2, 2])
    >>> table.fillna({"prediction": "(none)"})
       score_threshold truth prediction  count
    0              0.0   cat        cat      1
    1              0.0   cat        dog      0
    2              0.0   dog        cat      1
    3              0.0   dog        dog      0
    4              0.0   cat     (none)      0
    5              0.0   dog     (none)      0
    """
    if not isinstance(max_examples, (int, np.integer)) or max_examples < 0:
        raise InvalidInputError(f"max_examples={max_examples!r}: pass a whole number >= 0.")
    pairs = _prepare(truth, label, score, datum)
    thresholds = _thresholds(score_thresholds)
    n_labels, n_thr = pairs.n_labels, thresholds.size
    k = _positive_until(pairs, thresholds, bool(hardmax))
    cell = pairs.truth[pairs.datum] * n_labels + pairs.label
    cells = _positive_counts(cell, k, n_labels * n_labels, n_thr)  # (K*K, T)
    top = _datum_max(pairs, k, np.ones(k.size, dtype=bool), 0)
    unmatched = _interval_counts(pairs.truth, top, np.full(pairs.n_datums, n_thr), n_labels, n_thr)
    n_rows = n_labels * (n_labels + 1)
    thr_code = np.repeat(np.arange(n_thr), n_rows)
    cell_code = np.tile(np.arange(n_rows), n_thr)
    is_cell = cell_code < n_labels * n_labels
    truth_code = np.where(is_cell, cell_code // max(n_labels, 1), cell_code - n_labels * n_labels)
    pred_code = np.where(is_cell, cell_code % max(n_labels, 1), -1)
    count = np.vstack([cells, unmatched]).T.reshape(-1)
    labels = np.asarray(pairs.labels, dtype=object)
    prediction = np.empty(cell_code.size, dtype=object)
    prediction[is_cell] = labels[pred_code[is_cell]]
    columns = {
        "score_threshold": thresholds[thr_code],
        "truth": labels[truth_code] if labels.size else np.empty(0, object),
        "prediction": prediction,
        "count": count,
    }
    if max_examples > 0:
        found = _examples(
            cell, pairs.datum, np.zeros(k.size, dtype="int64"), k, n_labels * n_labels, n_thr, max_examples
        )
        missing = _examples(
            pairs.truth,
            np.arange(pairs.n_datums),
            top,
            np.full(pairs.n_datums, n_thr),
            n_labels,
            n_thr,
            max_examples,
        )
        values = np.asarray(pairs.datums, dtype=object)
        columns["examples"] = [
            values[found.get((int(c), int(j)), []) if inside else missing.get((int(t), int(j)), [])].tolist()
            for c, t, j, inside in zip(cell_code, truth_code, thr_code, is_cell)
        ]
    return result_table(columns, integer_columns=("count",))
