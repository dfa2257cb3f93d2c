"""Classification input: integer-coded (datum, candidate label) rows, counted at thresholds.

Every classification metric reads one row per datum (an image, a document, ...) and
candidate label, with the label's score and the datum's true label repeated on each of its
rows: exactly the pairs valor-lite stores. :func:`prepare_pairs` checks and encodes them
once; the counting helpers turn them into ``(labels, thresholds)`` arrays with
``np.bincount`` and cumulative sums (a row with score ``s`` is a positive prediction at
every threshold ``t <= s``): no loop over rows, labels or datums.

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

import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdmetrics._groups import group_codes
from pdmetrics._validation import as_float_array, plain, preview
from pdmetrics.errors import InvalidInputError

__all__ = ["DEFAULT_CURVE_THRESHOLDS"]

#: Score thresholds of valor's precision-recall curves: 0.05, 0.10, ..., 0.95.
DEFAULT_CURVE_THRESHOLDS = tuple(np.round(np.arange(1, 20) * 0.05, 2).tolist())

ZERO_SCORE = 1e-8  # valor: np.isclose(score, 0) -> not a prediction


# --------------------------------------------------------------------------------------
# input preparation
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Pairs:
    """Integer-coded (datum, candidate label) rows."""

    labels: pd.Index  # label values, sorted
    datums: pd.Index  # datum values, order of first appearance
    datum: np.ndarray  # datum code per row
    label: np.ndarray  # label code per row
    score: np.ndarray  # float64 per row
    truth: np.ndarray  # truth label code per datum
    match: np.ndarray  # row's label is its datum's truth
    winner: np.ndarray  # row is its datum's first top-scored row
    seen: pd.Index  # every label of the rows before the ``labels=`` filter, sorted
    order: np.ndarray  # per datum: the key that orders the examples (first appearance)

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


def _factorize(values, argument: str, name) -> tuple[np.ndarray, pd.Index]:
    """Codes and unique values (a plain Index of Python values) of an array or a Categorical.

    Labels are encoded with the package's one group-code encoder (sorted codes; it refuses
    list- or dict-valued cells); datums (``argument="datum"``) keep their order of first
    appearance, which orders the examples.
    """
    if isinstance(values, pd.Categorical):
        codes = values.codes.astype("int64")
        present = np.flatnonzero(np.bincount(codes, minlength=len(values.categories)))
        remap = np.full(len(values.categories), -1, dtype="int64")
        remap[present] = np.arange(present.size)
        uniques = np.asarray(values.categories, dtype=object)[present]
        return remap[codes], pd.Index(uniques.tolist(), dtype=object)
    if argument != "datum":
        codes, keys = group_codes([pd.Series(values, name=name, copy=False)], argument)
        return codes.astype("int64"), pd.Index(keys.iloc[:, 0].tolist(), dtype=object)
    try:
        codes, uniques = pd.factorize(values)
    except TypeError:  # unhashable cells: lists, dicts, arrays
        example = next(v for v in values if isinstance(v, (list, dict, set, np.ndarray)))
        raise InvalidInputError(
            f"`datum={name!r}` holds {type(example).__name__} values (e.g. {example!r}); a datum id must be "
            f"one scalar per row. Explode or join them first, e.g. `df[{name!r}].map(str)`."
        ) from None
    return codes.astype("int64"), pd.Index(np.asarray(uniques, dtype=object).tolist(), dtype=object)


def _kind(value) -> str:
    return "string" if isinstance(value, (str, np.str_)) else "number"


#: Kinds of label values that must not share a column, by the type of the value.
LABEL_KINDS = (("booleans", (bool, np.bool_)), ("strings", (str, bytes)), ("numbers", (numbers.Number,)))
#: What :func:`pandas.api.types.infer_dtype` says of an object column of one kind.
_INFERRED_KINDS = {
    "boolean": "booleans",
    "string": "strings",
    "bytes": "strings",
    **dict.fromkeys(("integer", "floating", "mixed-integer-float", "decimal", "complex"), "numbers"),
}


def _kind_of(kind: type) -> str | None:
    return next((name for name, types in LABEL_KINDS if issubclass(kind, types)), None)


def column_kinds(series: pd.Series) -> dict:
    """``{kind: (count, value, row label)}``: how many booleans, strings and numbers a label
    column (no missing value) holds, with the first of each and its row label.

    Every value counts: the dtype or the column's inferred kind first, then, only for a
    mixed object column, the type of each value (each distinct type looked up once).
    """
    if len(series) == 0:
        return {}
    dtype = series.dtype
    categorical = isinstance(dtype, pd.CategoricalDtype)
    values = pd.Series(dtype.categories, dtype=object) if categorical else series
    if pd.api.types.is_bool_dtype(values.dtype):
        kind = "booleans"
    elif pd.api.types.is_numeric_dtype(values.dtype):
        kind = "numbers"
    elif pd.api.types.is_string_dtype(values.dtype) and values.dtype != object:
        kind = "strings"
    else:
        inferred = pd.api.types.infer_dtype(values, skipna=True)
        kind = _INFERRED_KINDS.get(inferred, "mixed" if inferred in ("mixed", "mixed-integer") else None)
    if kind is None:  # dates and the like: no kind to mix
        return {}
    if kind != "mixed":
        return {kind: (len(series), series.iloc[0], series.index[0])}
    types = values.map(type)
    kinds = types.map({t: _kind_of(t) for t in pd.unique(types)}).to_numpy(dtype=object)
    if categorical:  # the kinds of the rows' categories
        kinds = kinds[series.cat.codes.to_numpy()]
    found = {}
    for name, _ in LABEL_KINDS:
        where = kinds == name
        if where.any():
            first = int(np.argmax(where))
            found[name] = (int(where.sum()), series.iloc[first], series.index[first])
    return found


def mixed_kinds_error(argument: str, column, found: dict) -> InvalidInputError:
    """The error of a label column holding more than one kind (``found`` as :func:`column_kinds`):
    the first value of the odd kind (a boolean, else the rarer kind) and its row, and the fix."""
    odd = "booleans" if "booleans" in found else min(found, key=lambda name: (found[name][0], name))
    other = next(name for name, _ in LABEL_KINDS if name in found and name != odd)
    name = plain(column)
    if {odd, other} == {"booleans", "numbers"}:
        why, fix = "True == 1 and False == 0 would merge two classes", f"df[{name!r}].astype(int)"
    else:
        why, fix = "'1' and 1 would be two different classes", f"df[{name!r}].astype(str)"
    _, value, row = found[odd]
    return InvalidInputError(
        f"`{argument}={name!r}` mixes {odd} and {other}: row {plain(row)!r} holds {plain(value)!r} where "
        f"other rows hold {other} (e.g. {plain(found[other][1])!r}); {why}. Convert the column to one "
        f"type first, e.g. `{fix}`."
    )


def label_index(truth_uniques: pd.Index, label_uniques: pd.Index) -> pd.Index:
    """The sorted labels of both (strings and numbers never mixed)."""
    # an empty side is left out of the append (pandas 2.2 warns that it would count in the dtype)
    parts = [index for index in (label_uniques, truth_uniques) if len(index)]
    combined = (parts[0].append(parts[1:]) if parts else label_uniques).unique()
    kinds = {_kind(v) for v in combined}
    if len(kinds) > 1:
        truth_kinds, label_kinds = {_kind(v) for v in truth_uniques}, {_kind(v) for v in label_uniques}
        if len(truth_kinds) == 1 and len(label_kinds) == 1:  # each side of one kind: name both
            truth, candidate = truth_uniques[0], label_uniques[0]
            raise InvalidInputError(
                f"Labels mix strings and numbers: `y_true` holds {_kind(truth)}s (e.g. {plain(truth)!r}) and "
                f"the candidate labels (the `label=` column, or the `score=` column names of the wide "
                f"layout) hold {_kind(candidate)}s (e.g. {plain(candidate)!r}); '1' and 1 would be two "
                f"different labels. Give both one type, e.g. `.astype(str)` (or rename the score columns)."
            )
        text = next(v for v in combined if _kind(v) == "string")
        number = next(v for v in combined if _kind(v) == "number")
        raise InvalidInputError(
            f"Labels mix strings and numbers (e.g. {plain(text)!r} and {plain(number)!r}): '1' and 1 would "
            f"be two different labels. Convert the y_true and label columns to one type, e.g. `.astype(str)`."
        )
    try:
        return pd.Index(combined).sort_values()
    except TypeError:
        return pd.Index(combined)


TOP_PREDICTIONS = ("filtered", "original")


def prepare_pairs(
    y_true, label, score, datum, *, labels=None, top_prediction="filtered", order=None, strict: bool = True
) -> Pairs:
    """Check and encode the (datum, candidate label) rows once for every metric.

    ``labels`` (a list of label values) keeps only the rows whose candidate label and
    whose datum's truth are among them, as valor's ``Evaluator.filter`` with the same
    labels for ground truths and predictions; a datum left with no row is dropped.
    ``top_prediction`` says which row is the datum's top prediction (for ``hardmax``):
    ``"filtered"`` the top-scored row among those kept (as when the rows are filtered
    first), ``"original"`` the top-scored row before filtering (valor), so a datum whose
    top prediction was filtered out has none.

    For a part of the rows (a partition holding every row of its datums): ``order`` gives
    each row a key in the whole data (a datum's examples order is its smallest key; default
    the order of first appearance), and ``strict=False`` lets ``labels`` list labels absent
    from these rows (the whole data's labels are checked when the parts are combined).
    """
    if not isinstance(top_prediction, str) or top_prediction not in TOP_PREDICTIONS:
        raise InvalidInputError(
            f"`top_prediction={plain(top_prediction)!r}` is not supported: use 'filtered' (the top-scored "
            f"row among the labels kept) or 'original' (the top-scored row before filtering, as valor)."
        )
    names = {
        argument: values.name if isinstance(values, pd.Series) and values.name is not None else argument
        for argument, values in (("y_true", y_true), ("label", label), ("datum", datum))
    }
    truth_v = _values(y_true, "y_true")
    label_v = _values(label, "label")
    datum_v = _values(datum, "datum")
    scores = as_float_array(score, "score")
    sizes = {"y_true": len(truth_v), "label": len(label_v), "score": scores.size, "datum": len(datum_v)}
    if len(set(sizes.values())) > 1:
        raise InvalidInputError(f"y_true, label, score and datum must have one entry per row; got {sizes}.")
    if not np.isfinite(scores).all():
        bad = int(np.flatnonzero(~np.isfinite(scores))[0])
        raise InvalidInputError(
            f"`score` holds {plain(scores[bad])!r} at position {bad}; every candidate label needs a finite "
            f"score. Drop the rows of labels that were not scored (a missing row means 'not a candidate')."
        )
    datum_code, datums = _factorize(datum_v, "datum", names["datum"])
    truth_code, truth_uniques = _factorize(truth_v, "y_true", names["y_true"])
    label_code, label_uniques = _factorize(label_v, "label", names["label"])
    index = label_index(truth_uniques, label_uniques)
    truth_code = index.get_indexer(truth_uniques)[truth_code] if len(truth_v) else truth_code
    label_code = index.get_indexer(label_uniques)[label_code] if len(label_v) else label_code
    n_datums, n_labels = len(datums), len(index)

    truth_of_datum = np.full(n_datums, -1, dtype="int64")
    truth_of_datum[datum_code] = truth_code
    inconsistent = truth_of_datum[datum_code] != truth_code
    if inconsistent.any():
        row = int(np.flatnonzero(inconsistent)[0])
        first, second = index[truth_code[row]], index[truth_of_datum[datum_code[row]]]
        raise InvalidInputError(
            f"Datum {plain(datums[datum_code[row]])!r} of `datum={plain(names['datum'])!r}` has more than "
            f"one truth ({plain(first)!r} and {plain(second)!r}); "
            f"the y_true column must repeat the datum's one true label on each of its rows."
        )
    key = datum_code.astype("int64") * max(n_labels, 1) + label_code
    if n_datums * n_labels <= 8 * key.size + 1024:
        duplicated = np.bincount(key, minlength=n_datums * n_labels).max(initial=0) > 1
    else:
        duplicated = np.unique(key).size != key.size
    if duplicated:
        # the repeated pair met first in the caller's row order (value_counts' tie order varies)
        first = int(key[np.flatnonzero(pd.Series(key).duplicated(keep=False).to_numpy())[0]])
        repeats = int((key == first).sum())
        raise InvalidInputError(
            f"Datum {plain(datums[first // n_labels])!r} of `datum={plain(names['datum'])!r}` has "
            f"{repeats} rows for label {plain(index[first % n_labels])!r}; give each (datum, "
            f"label) pair one row with its score (in the wide layout every row is one datum: a repeated "
            f"`datum=` id scores its labels twice)."
        )
    winner = _winners(datum_code, scores, n_datums)
    seen = index
    if order is None:
        datum_order = np.arange(n_datums, dtype="int64")
    else:
        datum_order = np.full(n_datums, np.iinfo("int64").max, dtype="int64")
        np.minimum.at(datum_order, datum_code, np.asarray(order, dtype="int64"))
    if labels is not None:
        keep_label = kept_labels(labels, index) if strict else _listed(labels, index)
        keep = keep_label[label_code] & keep_label[truth_code]
        datum_code, label_code, truth_code, scores = (
            datum_code[keep],
            label_code[keep],
            truth_code[keep],
            scores[keep],
        )
        # datums and labels that remain, recoded in their order
        present = np.unique(datum_code)
        datums = pd.Index(np.asarray(datums, dtype=object)[present].tolist(), dtype=object)
        datum_code = np.searchsorted(present, datum_code)
        datum_order = datum_order[present]
        kept = np.flatnonzero(keep_label)
        index = index[kept]
        label_code, truth_code = np.searchsorted(kept, label_code), np.searchsorted(kept, truth_code)
        n_datums = present.size
        truth_of_datum = np.full(n_datums, -1, dtype="int64")
        truth_of_datum[datum_code] = truth_code
        winner = winner[keep] if top_prediction == "original" else _winners(datum_code, scores, n_datums)
    match = label_code == truth_code
    return Pairs(
        index,
        pd.Index(datums),
        datum_code.astype("int64"),
        label_code.astype("int64"),
        scores,
        truth_of_datum,
        match,
        winner,
        seen,
        datum_order,
    )


def _listed(labels, index: pd.Index) -> np.ndarray:
    """Boolean mask over ``index``: the labels listed in ``labels`` (absent ones ignored)."""
    wanted = [labels] if isinstance(labels, (str, bytes)) or not np.iterable(labels) else list(labels)
    position = index.get_indexer(pd.Index(wanted, dtype=object))
    keep = np.zeros(len(index), dtype=bool)
    keep[position[position >= 0]] = True
    return keep


def kept_labels(labels, label_index: pd.Index) -> np.ndarray:
    """Boolean mask over ``label_index``: the labels listed in ``labels``."""
    if isinstance(labels, (str, bytes)) or not np.iterable(labels):
        labels = [labels]
    wanted = list(labels)
    if not wanted:
        raise InvalidInputError("`labels=` is empty: list the labels to keep, e.g. labels=['cat', 'dog'].")
    position = label_index.get_indexer(pd.Index(wanted, dtype=object))
    if (position < 0).any():
        unknown = wanted[int(np.flatnonzero(position < 0)[0])]
        raise InvalidInputError(
            f"`labels=` lists {plain(unknown)!r}, which is neither a true nor a candidate label here; "
            f"the labels are {preview(label_index.tolist())}."
        )
    keep = np.zeros(len(label_index), dtype=bool)
    keep[position] = True
    return keep


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


def threshold_array(score_thresholds, argument: str = "score_thresholds") -> np.ndarray:
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


def positive_until(pairs: Pairs, thresholds: np.ndarray, hardmax: bool) -> np.ndarray:
    """Per row, ``k`` such that the row is a positive prediction at thresholds ``0..k-1``."""
    k = np.searchsorted(thresholds, pairs.score, side="right")
    k[np.abs(pairs.score) <= ZERO_SCORE] = 0
    if hardmax:
        k[~pairs.winner] = 0
    return k


def positive_counts(codes: np.ndarray, k: np.ndarray, n_codes: int, n_thresholds: int) -> np.ndarray:
    """``(n_codes, T)`` counts of rows with code ``c`` that are positive at threshold ``j`` (``k > j``)."""
    hist = np.bincount(codes * (n_thresholds + 1) + k, minlength=n_codes * (n_thresholds + 1))
    hist = hist.reshape(n_codes, n_thresholds + 1)
    return np.cumsum(hist[:, ::-1], axis=1)[:, ::-1][:, 1:]


def interval_counts(
    codes: np.ndarray, start: np.ndarray, stop: np.ndarray, n_codes: int, n_thresholds: int
) -> np.ndarray:
    """``(n_codes, T)`` counts of items whose threshold interval ``[start, stop)`` contains ``j``."""
    stop = np.maximum(stop, start)
    width = n_thresholds + 1
    diff = np.bincount(codes * width + start, minlength=n_codes * width) - np.bincount(
        codes * width + stop, minlength=n_codes * width
    )
    return np.cumsum(diff.reshape(n_codes, width), axis=1)[:, :n_thresholds]


def datum_max(pairs: Pairs, k: np.ndarray, rows: np.ndarray, default: int) -> np.ndarray:
    out = np.full(pairs.n_datums, default, dtype="int64")
    np.maximum.at(out, pairs.datum[rows], k[rows])
    return out


def _positives(pairs: Pairs, thresholds: np.ndarray, hardmax: bool):
    """``k`` (:func:`positive_until`), TP and FP per (label, threshold), and per datum ``a``:
    a label other than its truth is positive at the thresholds ``j < a``."""
    n_labels, n_thr = pairs.n_labels, thresholds.size
    k = positive_until(pairs, thresholds, hardmax)
    match, other = pairs.match, ~pairs.match
    tp = positive_counts(pairs.label[match], k[match], n_labels, n_thr)
    fp = positive_counts(pairs.label[other], k[other], n_labels, n_thr)
    return k, tp, fp, datum_max(pairs, k, other, 0)


def label_counts(pairs: Pairs, thresholds: np.ndarray, hardmax: bool):
    """valor-lite's TP/FP/FN/TN per (label, threshold), arrays of shape (K, T)."""
    n_labels, n_thr = pairs.n_labels, thresholds.size
    k, tp, fp, a = _positives(pairs, thresholds, hardmax)
    tn = np.bincount(pairs.label[~pairs.match], minlength=n_labels)[:, None] - fp
    # fn: datum flagged at j when its true row is not positive (j >= b) or another label is (j < a)
    b = np.full(pairs.n_datums, n_thr, dtype="int64")
    b[pairs.datum[pairs.match]] = k[pairs.match]
    zeros = np.zeros(pairs.n_datums, dtype="int64")
    fn = interval_counts(pairs.truth, zeros, a, n_labels, n_thr) + interval_counts(
        pairs.truth, np.maximum(b, a), np.full_like(b, n_thr), n_labels, n_thr
    )
    return tp, fp, fn, tn


def binary_parts(pairs: Pairs, thresholds: np.ndarray, hardmax: bool):
    """Each label as its own binary problem: tp, fp, fn split, per (label, threshold)."""
    n_labels, n_thr = pairs.n_labels, thresholds.size
    k, tp, fp, a = _positives(pairs, thresholds, hardmax)  # another label positive at j < a
    b = np.zeros(pairs.n_datums, dtype="int64")  # own label positive at j < b
    b[pairs.datum[pairs.match]] = k[pairs.match]
    end = np.full(pairs.n_datums, n_thr, dtype="int64")
    fn_misclassified = interval_counts(pairs.truth, b, a, n_labels, n_thr)
    fn_no_prediction = interval_counts(pairs.truth, np.maximum(a, b), end, n_labels, n_thr)
    return k, a, b, tp, fp, fn_misclassified, fn_no_prediction


def first_examples(
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
