"""LLM-guided text-generation metrics, aggregated from an LLM judge's verdict table.

pdmetrics never calls an LLM. You run the judge (valor's prompts, your own, any model) and
keep its output in **long form**: one row per judged item with

- the datum id (``datum``: the query / generated answer the item belongs to),
- the judge's verdict (``verdict``: a case-sensitive string from the metric's allowed set),
- and, where the metric needs it, which ground truth the item was judged against
  (``ground_truth``) and, for context precision, the context's rank (``rank``: 1 is the
  first, most relevant context).

Every function returns one row per datum: ``datum``, ``N`` (the number of verdict rows of
the datum) and the metric under valor's name, with valor-lite 0.39's formulas and edge
rules. :func:`metric_means` averages such a table overall and by group.

==================  ========================  ==============================  ==================
metric              one row per               verdicts                        datum without rows
==================  ========================  ==============================  ==================
answer_correctness  statement x ground truth  ``"TP"``, ``"FP"``, ``"FN"``    0.0
answer_relevance    answer statement          ``"yes"``, ``"no"``, ``"idk"``  0.0
bias, toxicity      opinion                   ``"yes"``, ``"no"``             0.0
context_precision   context x ground truth    ``"yes"``, ``"no"``             see ``n_contexts``
context_recall      ground-truth statement    ``"yes"``, ``"no"``             see ``n_contexts``
context_relevance   context                   ``"yes"``, ``"no"``             0.0
faithfulness        claim                     ``"yes"``, ``"no"``             see ``n_contexts``
hallucination       context                   ``"yes"``, ``"no"``             error
summary_coherence   datum (its 1-5 score)     an integer from 1 to 5          error
==================  ========================  ==============================  ==================

**Data without verdict rows.** A datum with nothing to judge (no opinions, no statements, no
contexts) has no row in a long table. Pass ``data=`` (every datum id, once each) to report
it: it gets the metric's "nothing judged" value from the table above, and a verdict row
whose datum is not in ``data`` is an error. Where "nothing judged" is ambiguous, give the
per-datum counts aligned with ``data``: ``n_contexts=`` (contexts retrieved) and, for
context precision and recall, ``n_ground_truths=``. valor's rules then apply:

- faithfulness: no contexts -> 0.0; contexts but no claims -> 1.0;
- context precision and context recall: neither contexts nor ground truths -> 1.0, only
  one of them empty -> 0.0; context recall with contexts and ground truths but no
  ground-truth statement at all is undefined (``zero_division``);
- hallucination needs contexts: a datum in ``data`` without rows is an error naming it.

A datum in ``data`` without rows whose value the counts do not settle is an error naming
the datum and the missing argument; so is a count that contradicts the rows (e.g. verdict
rows for a datum with ``n_contexts=0``).

**Rows the judge did not answer.** A verdict (or score) that is None/NaN/pd.NA is left out
with an :class:`~pdmetrics.ExcludedRowsWarning` that counts it; a datum left without any
answered row is left out of the table (and of ``data=`` with its counts), not given the
"nothing judged" value.

**Producing the verdict table with any judge.** Ask the judge for a JSON list of verdicts per
datum (valor's prompts return ``{"verdicts": [{"verdict": "yes", "analysis": ...}, ...]}``,
and ``{"TP": [...], "FP": [...], "FN": [...]}`` for answer correctness), then flatten::

    rows = [
        {"datum": datum_id, "verdict": v["verdict"]}
        for datum_id, response in responses.items()
        for v in response["verdicts"]
    ]
    verdicts = pd.DataFrame(rows)

and normalize the judge's spelling first (``verdicts["verdict"].str.strip().str.lower()``):
verdicts are compared exactly, so ``"Yes"`` is an error, not a silent "no".
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._division import check_zero_division, divide
from pdmetrics._docstrings import fill
from pdmetrics._groups import as_series, check_scalar_cells, group_codes
from pdmetrics._table_spec import Rows, Table, Whole, source_order, table
from pdmetrics._tables import result_table
from pdmetrics._validation import one_column, one_name, plain, preview, refuse_missing
from pdmetrics._warnings import warn_excluded
from pdmetrics.errors import InvalidInputError
from pdmetrics.textgen.means import means_state, means_table

__all__ = [
    "answer_correctness",
    "answer_relevance",
    "bias",
    "toxicity",
    "context_precision",
    "context_recall",
    "context_relevance",
    "faithfulness",
    "hallucination",
    "summary_coherence",
    "datum_spec",
    "PER_DATUM",
]

YES_NO = ("yes", "no")
YES_NO_IDK = ("yes", "no", "idk")
TP_FP_FN = ("TP", "FP", "FN")
COHERENCE_SCORES = (1, 2, 3, 4, 5)
NUMERIC_KINDS = ("integer", "integer-na", "floating", "mixed-integer-float", "decimal", "empty")


# --- input checks ------------------------------------------------------------------------


def _column_name(series: pd.Series, argument: str) -> str:
    return f"`{argument}`" if series.name == argument else f"`{argument}={plain(series.name)!r}`"


def _series(values, argument: str) -> pd.Series:
    """``values`` as a Series; a list holding lists stays one cell per item (checked later)."""
    try:
        return as_series(values, argument)
    except ValueError:  # numpy refuses a ragged list of lists
        return pd.Series(list(values), dtype=object, name=argument)


def _rows(values, argument: str, n_rows: int | None) -> pd.Series:
    """``values`` as a Series (row labels kept for messages), of ``n_rows`` values."""
    series = _series(values, argument)
    if n_rows is not None and len(series) != n_rows:
        raise InvalidInputError(
            f"`{argument}` has {len(series)} values but `datum` has {n_rows}; pass one value per verdict row."
        )
    return series


def _verdict_codes(verdict: pd.Series, allowed: tuple[str, ...], metric: str) -> np.ndarray:
    """Codes of the verdicts in ``allowed``; InvalidInputError at the first verdict outside it.

    The distinct values are matched, not the rows: one hashing pass over the column.
    """
    try:
        rows, uniques = pd.factorize(verdict, use_na_sentinel=True)
    except TypeError:  # unhashable cells (lists, dicts)
        rows, uniques = np.full(len(verdict), -1, dtype=np.intp), pd.Index([], dtype=object)
    distinct = pd.Index(np.asarray(uniques, dtype=object), dtype=object)
    is_text = distinct.map(type).isin([str, np.str_]) if len(distinct) else np.zeros(0, dtype=bool)
    lookup = np.where(is_text, pd.Index(allowed, dtype=object).get_indexer(distinct), -1)
    codes = np.where(rows >= 0, lookup[np.maximum(rows, 0)] if lookup.size else -1, -1)
    if (codes < 0).any():
        position = int(np.flatnonzero(codes < 0)[0])
        value = verdict.iloc[position]
        missing = value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value))
        hint = (
            "every row needs a verdict: drop the rows the judge did not answer, e.g. "
            "`df.dropna(subset=[...])`"
            if missing
            else "one verdict per row: explode list cells first, e.g. `df.explode(...)`"
            if isinstance(value, (list, tuple, np.ndarray, dict, set))
            else "verdicts are case-sensitive strings; normalize the judge's output first, e.g. "
            f"`.str.strip().str.{'upper' if allowed == TP_FP_FN else 'lower'}()`"
        )
        raise InvalidInputError(
            f"{_column_name(verdict, 'verdict')}, row {plain(verdict.index[position])!r}: {metric} "
            f"verdict {plain(value)!r} is not one of {list(allowed)}; {hint}."
        )
    return codes


def _data_ids(data) -> pd.Index:
    ids = pd.Index(as_series(data, "data"), name=None)
    if ids.hasnans:
        raise InvalidInputError(
            "`data` holds a missing datum id; pass every datum id once, without NaN/None."
        )
    if not ids.is_unique:
        duplicated = ids[ids.duplicated()]
        raise InvalidInputError(
            f"`data` lists datum {plain(duplicated[0])!r} more than once; pass every datum id once "
            f"(e.g. `data=df['datum'].unique()`)."
        )
    return ids


def _datum_codes(datum, data) -> tuple[pd.Series, np.ndarray, pd.Index]:
    """The datum Series, each row's datum code and the datum ids (``data`` order, or sorted)."""
    series = _series(datum, "datum")
    check_scalar_cells(series, "datum")
    refuse_missing(
        series,
        _column_name(series, "datum"),
        "missing datum id; every verdict row must name the datum (query / answer) it belongs to.",
    )
    if data is None:
        codes, keys = group_codes([series], "datum")
        return series, codes, pd.Index(keys.iloc[:, 0], name=None)
    ids = _data_ids(data)
    codes = ids.get_indexer(series)
    if (codes < 0).any():
        position = int(np.flatnonzero(codes < 0)[0])
        raise InvalidInputError(
            f"{_column_name(series, 'datum')}, row {plain(series.index[position])!r}: datum "
            f"{plain(series.iloc[position])!r} is not in `data` ({preview(ids, 5)}); list every "
            f"datum id in `data=`, or leave `data=` out to report the data present."
        )
    return series, codes.astype(np.intp, copy=False), ids


def _counts(values, argument: str, ids: pd.Index | None) -> np.ndarray | None:
    """A per-datum count (aligned with ``data``) as an int64 array; None when not given."""
    if values is None:
        return None
    if ids is None:
        raise InvalidInputError(
            f"`{argument}=` gives one count per datum of `data=`: pass `data=` (every datum id) with it."
        )
    series = as_series(values, argument)
    if len(series) != len(ids):
        raise InvalidInputError(
            f"`{argument}` has {len(series)} values but `data` has {len(ids)}; pass one count per datum, "
            f"in the order of `data`."
        )
    numbers = pd.to_numeric(series.astype(object), errors="coerce").to_numpy(dtype="float64", na_value=np.nan)
    bad = ~np.isfinite(numbers) | (numbers < 0) | (numbers != np.floor(numbers))
    if bad.any():
        position = int(np.flatnonzero(bad)[0])
        raise InvalidInputError(
            f"`{argument}` for datum {plain(ids[position])!r} is {plain(series.iloc[position])!r}; "
            f"counts must be whole numbers >= 0."
        )
    return numbers.astype(np.int64)


def _per_datum(ids: pd.Index, n: np.ndarray, name: str, values: np.ndarray) -> pd.DataFrame:
    return result_table({"datum": ids.to_numpy(), "N": n, name: values}, integer_columns=["N"])


def _first(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _require_rows(n: np.ndarray, ids: pd.Index, metric: str, needs: str) -> None:
    """Refuse a datum of ``data`` without verdict rows whose value the counts do not settle."""
    empty = n == 0
    if empty.any():
        raise InvalidInputError(f"{metric}: datum {plain(ids[_first(empty)])!r} has no verdict rows; {needs}")


def _check_no_rows_when_empty(n: np.ndarray, count: np.ndarray, ids: pd.Index, argument: str) -> None:
    """A datum with verdict rows cannot have an empty context list / no ground truths."""
    clash = (n > 0) & (count == 0)
    if clash.any():
        position = _first(clash)
        raise InvalidInputError(
            f"datum {plain(ids[position])!r} has {int(n[position])} verdict rows but `{argument}` is 0 for "
            f"it; the judge cannot give verdicts without them: check `{argument}` (aligned with `data`)."
        )


def _answered(datum, verdict, data, rows: dict | None = None, counts: dict | None = None, argument="verdict"):
    """Leave out the rows the judge did not answer (``verdict`` None/NaN/pd.NA: a timeout) with
    an :class:`~pdmetrics.ExcludedRowsWarning`; a datum left without any row is left out too (also
    from ``data`` and the per-datum ``counts`` aligned with it), rather than scored as having
    nothing to judge. Returns ``datum, verdict, data, rows, counts`` (the other row-aligned
    columns and the per-datum counts, subset alike)."""
    rows, counts = dict(rows or {}), dict(counts or {})
    if verdict is None:
        return datum, verdict, data, rows, counts
    datum_rows = _series(datum, "datum")
    verdicts = _rows(verdict, argument, len(datum_rows))
    cells = verdicts.to_numpy(dtype=object)
    missing = np.asarray(pd.isna(cells), dtype=bool)  # elementwise: a list cell is not missing
    if not missing.any():
        return datum, verdict, data, rows, counts
    keep = ~missing
    for name, values in rows.items():
        if values is not None:
            rows[name] = _rows(values, name, len(datum_rows))[keep]
    gone = pd.Index(datum_rows[missing]).difference(pd.Index(datum_rows[keep]))
    if data is not None and len(gone):
        listed = as_series(data, "data")
        kept = ~listed.isin(gone).to_numpy()
        for name, values in counts.items():
            if values is not None and len(as_series(values, name)) == len(listed):
                counts[name] = as_series(values, name)[kept]
        data = listed[kept]
    what = f"the {argument} is missing (the judge gave none)"
    if len(gone):
        what += f"; {len(gone)} data left without any {argument} are left out ({preview(gone, 5)})"
    warn_excluded(int(missing.sum()), len(missing), what)
    return datum_rows[keep], verdicts[keep], data, rows, counts


def _yes_share(datum, verdict, allowed, metric, data):
    """Rows, yes-count and row count per datum, and the ids: the common part of the ratios."""
    datum, verdict, data, _, _ = _answered(datum, verdict, data)
    series, codes, ids = _datum_codes(datum, data)
    verdicts = _rows(verdict, "verdict", len(series))
    is_yes = _verdict_codes(verdicts, allowed, metric) == 0
    n = np.bincount(codes, minlength=len(ids))
    yes = np.bincount(codes, weights=is_yes, minlength=len(ids))
    return ids, n, yes


def _ratio_or(yes: np.ndarray, n: np.ndarray, empty_value: float) -> np.ndarray:
    return np.where(n > 0, yes / np.maximum(n, 1), empty_value)


# --- metrics over one list of verdicts per datum -------------------------------------------


def _yes_ratio(allowed: tuple[str, ...], metric: str, name: str):
    """The array-level function of a metric that is the share of ``"yes"`` verdicts per datum
    (0.0 without rows): ``allowed`` verdicts, ``metric`` its name in messages, ``name`` its column."""

    def share(datum, verdict, *, data=None) -> pd.DataFrame:
        ids, n, yes = _yes_share(datum, verdict, allowed, metric, data)
        return _per_datum(ids, n, name, _ratio_or(yes, n, 0.0))

    share.__name__ = share.__qualname__ = f"_{name}"  # a module attribute: picklable by reference
    share.__doc__ = f":func:`{name}` of the columns as Series (``datum`` first; see its docstring)."
    return share


_answer_relevance = _yes_ratio(YES_NO_IDK, "answer relevance", "answer_relevance")
_bias = _yes_ratio(YES_NO, "bias", "bias")
_toxicity = _yes_ratio(YES_NO, "toxicity", "toxicity")
_context_relevance = _yes_ratio(YES_NO, "context relevance", "context_relevance")


def _hallucination(datum, verdict, *, data=None) -> pd.DataFrame:
    """:func:`hallucination` of the columns as Series (``datum`` first; see its docstring)."""
    ids, n, yes = _yes_share(datum, verdict, YES_NO, "hallucination", data)
    _require_rows(
        n,
        ids,
        "hallucination",
        "hallucination is undefined without contexts (valor raises here too). Leave that datum out "
        "of `data=`, or use faithfulness / context relevance, which score it.",
    )
    return _per_datum(ids, n, "hallucination", yes / n)


def _faithfulness(datum, verdict, *, data=None, n_contexts=None) -> pd.DataFrame:
    """:func:`faithfulness` of the columns as Series (``datum`` first; see its docstring)."""
    datum, verdict, data, _, counts = _answered(datum, verdict, data, counts={"n_contexts": n_contexts})
    n_contexts = counts["n_contexts"]
    ids, n, yes = _yes_share(datum, verdict, YES_NO, "faithfulness", data)
    contexts = _counts(n_contexts, "n_contexts", ids if data is not None else None)
    if contexts is None:
        _require_rows(
            n,
            ids,
            "faithfulness",
            "pass `n_contexts=` (contexts retrieved per datum, aligned with `data`) so it scores 1.0 "
            "(contexts, no claims) or 0.0 (no contexts).",
        )
        return _per_datum(ids, n, "faithfulness", yes / n)
    _check_no_rows_when_empty(n, contexts, ids, "n_contexts")
    values = np.where(contexts == 0, 0.0, _ratio_or(yes, n, 1.0))
    return _per_datum(ids, n, "faithfulness", values)


# --- metrics with several ground truths ----------------------------------------------------


def _pair_codes(datum, verdict, ground_truth, allowed, metric, data):
    """Per row: datum code, (datum, ground truth) code, verdict code; and the ids."""
    series, codes, ids = _datum_codes(datum, data)
    verdicts = _rows(verdict, "verdict", len(series))
    kinds = _verdict_codes(verdicts, allowed, metric)
    if ground_truth is None:
        return codes, codes, kinds, ids
    truth = _rows(ground_truth, "ground_truth", len(series))
    check_scalar_cells(truth, "ground_truth")
    missing = truth.isna().to_numpy()
    if missing.any():
        raise InvalidInputError(
            f"{_column_name(truth, 'ground_truth')}, row {plain(truth.index[_first(missing)])!r}: missing "
            f"ground-truth id; name the ground truth each verdict was judged against (or leave "
            f"`ground_truth=` out when every datum has one)."
        )
    try:
        truth_codes, truths = pd.factorize(truth)
    except TypeError:
        raise InvalidInputError(
            f"{_column_name(truth, 'ground_truth')} holds unhashable cells (lists, dicts); pass one "
            f"ground-truth id per row."
        ) from None
    # (datum, ground truth) pairs numbered in order of appearance: their order does not matter
    pair, _ = pd.factorize(codes.astype(np.int64) * max(len(truths), 1) + truth_codes)
    return codes, pair.astype(np.intp, copy=False), kinds, ids


def _pair_datum(pair: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """The datum code of each (datum, ground truth) pair code."""
    owner = np.zeros(int(pair.max()) + 1 if pair.size else 0, dtype=np.intp)
    owner[pair] = codes
    return owner


def _max_per_datum(values: np.ndarray, owner: np.ndarray, n_data: int, start: float) -> np.ndarray:
    best = np.full(n_data, start, dtype="float64")
    np.maximum.at(best, owner, values)
    return best


def _answer_correctness(datum, verdict, *, ground_truth=None, data=None) -> pd.DataFrame:
    """:func:`answer_correctness` of the columns as Series (``datum`` first; see its docstring)."""
    datum, verdict, data, rows, _ = _answered(datum, verdict, data, rows={"ground_truth": ground_truth})
    ground_truth = rows["ground_truth"]
    codes, pair, kinds, ids = _pair_codes(datum, verdict, ground_truth, TP_FP_FN, "answer correctness", data)
    n_pairs = int(pair.max()) + 1 if pair.size else 0
    counts = np.bincount(pair * 3 + kinds, minlength=3 * n_pairs).reshape(n_pairs, 3).astype("float64")
    tp, fp, fn = counts[:, 0], counts[:, 1], counts[:, 2]
    owner = _pair_datum(pair, codes)
    # every ground truth judges the same answer statements: TP + FP is the same for all of them
    statements = tp + fp
    low = np.full(len(ids), np.inf)
    np.minimum.at(low, owner, statements)
    uneven = statements != low[owner]
    if uneven.any():
        datum_code = owner[_first(uneven)]
        raise InvalidInputError(
            f"answer correctness: datum {plain(ids[datum_code])!r} has {int(low[datum_code])} answer "
            f"statements (TP + FP) for one ground truth but {int(statements[_first(uneven)])} for another; "
            f"every ground truth is judged against the same answer statements (valor refuses such a "
            f"judgement too)."
        )
    f1 = np.where(tp > 0, tp / np.maximum(tp + 0.5 * (fp + fn), 1e-300), 0.0)
    best = _max_per_datum(f1, owner, len(ids), 0.0)
    return _per_datum(ids, np.bincount(codes, minlength=len(ids)), "answer_correctness", best)


def _empty_rules(n, contexts, truths, ids, metric):
    """valor's rules for a datum whose contexts or ground truths are empty: 1.0, 0.0 or None."""
    if contexts is None or truths is None:
        _require_rows(
            n,
            ids,
            metric,
            "pass `n_contexts=` and `n_ground_truths=` (aligned with `data`) so it scores 1.0 (neither "
            "contexts nor ground truths) or 0.0 (only one of them empty).",
        )
        return None
    _check_no_rows_when_empty(n, contexts, ids, "n_contexts")
    _check_no_rows_when_empty(n, truths, ids, "n_ground_truths")
    return np.where(
        (contexts == 0) & (truths == 0), 1.0, np.where((contexts == 0) | (truths == 0), 0.0, np.nan)
    )


def _context_recall(
    datum,
    verdict,
    *,
    ground_truth=None,
    data=None,
    n_contexts=None,
    n_ground_truths=None,
    zero_division="warn",
) -> pd.DataFrame:
    """:func:`context_recall` of the columns as Series (``datum`` first; see its docstring)."""
    option = check_zero_division(zero_division)
    datum, verdict, data, rows, counts = _answered(
        datum,
        verdict,
        data,
        rows={"ground_truth": ground_truth},
        counts={"n_contexts": n_contexts, "n_ground_truths": n_ground_truths},
    )
    ground_truth, n_contexts, n_ground_truths = rows["ground_truth"], *counts.values()
    codes, pair, kinds, ids = _pair_codes(datum, verdict, ground_truth, YES_NO, "context recall", data)
    has_ids = data is not None
    contexts = _counts(n_contexts, "n_contexts", ids if has_ids else None)
    truths = _counts(n_ground_truths, "n_ground_truths", ids if has_ids else None)
    n = np.bincount(codes, minlength=len(ids))
    rules = _empty_rules(n, contexts, truths, ids, "context recall")
    n_pairs = int(pair.max()) + 1 if pair.size else 0
    share = np.bincount(pair, weights=kinds == 0, minlength=n_pairs) / np.maximum(
        np.bincount(pair, minlength=n_pairs), 1
    )
    best = _max_per_datum(share, _pair_datum(pair, codes), len(ids), -1.0)
    if rules is not None:
        undefined = np.isnan(rules) & (n == 0)
        best = np.where(np.isnan(rules), best, rules)
        if undefined.any():
            best[undefined] = divide(
                np.zeros(int(undefined.sum())),
                np.zeros(int(undefined.sum())),
                option,
                what="context recall of a datum whose ground truths have no statements",
            )
    return _per_datum(ids, n, "context_recall", best)


def _check_ranks(rank: pd.Series, pair: np.ndarray, codes: np.ndarray, ids: pd.Index) -> np.ndarray:
    """Ranks as int64, checked to be 1..K within each (datum, ground truth), K equal per datum."""
    if pd.api.types.is_numeric_dtype(rank.dtype) and not pd.api.types.is_bool_dtype(rank.dtype):
        numbers = rank.to_numpy(dtype="float64", na_value=np.nan)
    else:
        numbers = pd.to_numeric(rank.astype(object), errors="coerce").to_numpy(
            dtype="float64", na_value=np.nan
        )
    bad = ~np.isfinite(numbers) | (numbers < 1) | (numbers != np.floor(numbers))
    if pd.api.types.is_bool_dtype(rank.dtype):
        bad[:] = True
    elif rank.dtype == object and pd.api.types.infer_dtype(rank, skipna=False) not in NUMERIC_KINDS:
        # mixed cells: True/False would pass as 1/0 (this loop runs on such columns only)
        bad |= np.array([isinstance(v, (bool, np.bool_)) for v in rank.to_numpy()], dtype=bool)
    if bad.any():
        position = _first(bad)
        raise InvalidInputError(
            f"{_column_name(rank, 'rank')}, row {plain(rank.index[position])!r}: rank "
            f"{plain(rank.iloc[position])!r} is not a whole number >= 1; rank the contexts 1, 2, ... "
            f"in retrieval order (1 = first)."
        )
    ranks = numbers.astype(np.int64)
    order = np.lexsort((ranks, pair))
    sorted_pair = pair[order]
    starts = np.r_[True, sorted_pair[1:] != sorted_pair[:-1]] if order.size else np.zeros(0, dtype=bool)
    first_of_pair = np.maximum.accumulate(np.where(starts, np.arange(order.size), 0)) if order.size else order
    expected = np.arange(order.size) - first_of_pair + 1
    wrong = ranks[order] != expected
    if wrong.any():
        datum_code = codes[order[_first(wrong)]]
        of_datum = np.sort(ranks[codes == datum_code])
        raise InvalidInputError(
            f"context precision: datum {plain(ids[datum_code])!r} has context ranks {preview(of_datum, 12)}; "
            f"per datum (and ground truth) the ranks must be 1, 2, ..., K with no gap and no duplicate."
        )
    return ranks


def _context_precision(
    datum, verdict, rank, *, ground_truth=None, data=None, n_contexts=None, n_ground_truths=None
) -> pd.DataFrame:
    """:func:`context_precision` of the columns as Series (``datum`` first; see its docstring)."""
    datum, verdict, data, rows, counts = _answered(
        datum,
        verdict,
        data,
        rows={"ground_truth": ground_truth, "rank": rank},
        counts={"n_contexts": n_contexts, "n_ground_truths": n_ground_truths},
    )
    ground_truth, rank, n_contexts, n_ground_truths = *rows.values(), *counts.values()
    codes, pair, kinds, ids = _pair_codes(datum, verdict, ground_truth, YES_NO, "context precision", data)
    ranks = _check_ranks(_rows(rank, "rank", codes.size), pair, codes, ids)
    n_data = len(ids)
    n = np.bincount(codes, minlength=n_data)
    # K per datum: the largest rank; every ground truth of the datum must rank K contexts
    k_max = np.zeros(n_data, dtype=np.int64)
    np.maximum.at(k_max, codes, ranks)
    n_pairs = int(pair.max()) + 1 if pair.size else 0
    k_pair = np.bincount(pair, minlength=n_pairs)
    owner = _pair_datum(pair, codes)
    uneven = k_pair != k_max[owner]
    if uneven.any():
        datum_code = owner[_first(uneven)]
        raise InvalidInputError(
            f"context precision: datum {plain(ids[datum_code])!r} ranks {int(k_max[datum_code])} contexts "
            f"for one ground truth but {int(k_pair[_first(uneven)])} for another; every ground truth is "
            f"judged against the same context list."
        )
    has_ids = data is not None
    contexts = _counts(n_contexts, "n_contexts", ids if has_ids else None)
    truths = _counts(n_ground_truths, "n_ground_truths", ids if has_ids else None)
    if contexts is not None:
        clash = (n > 0) & (contexts != k_max)
        if clash.any():
            position = _first(clash)
            raise InvalidInputError(
                f"context precision: datum {plain(ids[position])!r} has ranks 1..{int(k_max[position])} but "
                f"`n_contexts` is {int(contexts[position])}; pass the number of retrieved contexts."
            )
    rules = _empty_rules(n, contexts, truths, ids, "context precision")
    # one aggregate verdict per (datum, rank): "yes" when any ground truth says yes
    offsets = np.r_[0, np.cumsum(k_max)]
    slot = offsets[codes] + ranks - 1
    useful = np.bincount(slot, weights=kinds == 0, minlength=int(offsets[-1])) > 0
    slot_datum = np.repeat(np.arange(n_data), k_max)
    slot_rank = np.arange(offsets[-1]) - offsets[slot_datum] + 1
    running = np.cumsum(useful)
    before = np.r_[0, running][offsets[:-1]]
    precision_at_k = (running - before[slot_datum]) / np.maximum(slot_rank, 1)
    total = np.bincount(slot_datum, weights=precision_at_k * useful, minlength=n_data)
    relevant = np.bincount(slot_datum, weights=useful, minlength=n_data)
    values = np.where(relevant > 0, total / np.maximum(relevant, 1), 0.0)
    if rules is not None:
        values = np.where(np.isnan(rules), values, rules)
    return _per_datum(ids, n, "context_precision", values)


# --- the judge's direct score ---------------------------------------------------------------


def _summary_coherence(datum, score, *, data=None) -> pd.DataFrame:
    """:func:`summary_coherence` of the columns as Series (``datum`` first; see its docstring)."""
    datum, score, data, _, _ = _answered(datum, score, data, argument="score")
    series, codes, ids = _datum_codes(datum, data)
    scores = _rows(score, "score", len(series))
    numeric = pd.api.types.is_numeric_dtype(scores.dtype) and not pd.api.types.is_bool_dtype(scores.dtype)
    if numeric:
        values = scores.to_numpy(dtype="float64", na_value=np.nan)
    else:  # an object column: its numbers (not bools, not text) count, whatever their type
        cells = scores.to_numpy(dtype=object)
        is_number = np.fromiter(
            (isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in cells),
            dtype=bool,
            count=len(cells),
        )
        values = np.full(len(cells), np.nan)
        values[is_number] = cells[is_number].astype("float64")
    bad = ~np.isin(values, COHERENCE_SCORES)
    if bad.any():
        position = _first(bad)
        raise InvalidInputError(
            f"{_column_name(scores, 'score')}, row {plain(scores.index[position])!r}: summary coherence "
            f"score {plain(scores.iloc[position])!r} is not one of {list(COHERENCE_SCORES)}; pass the "
            f"judge's integer score (convert text with `pd.to_numeric`)."
        )
    n = np.bincount(codes, minlength=len(ids))
    if (n > 1).any():
        raise InvalidInputError(
            f"summary coherence: datum {plain(ids[_first(n > 1)])!r} has {int(n[_first(n > 1)])} scores; "
            f"pass one score per datum (average repeated judgements first if that is what you want)."
        )
    _require_rows(n, ids, "summary coherence", "every datum of `data` needs the judge's score.")
    result = np.empty(len(ids), dtype="float64")
    result[codes] = values
    return _per_datum(ids, n, "summary_coherence", result)


#: Each metric's per-datum values from the columns as Series (``datum`` and ``verdict``, or the
#: score, first), and the optional columns it also reads.
PER_DATUM = {
    "answer_correctness": (_answer_correctness, ("ground_truth",)),
    "answer_relevance": (_answer_relevance, ()),
    "bias": (_bias, ()),
    "context_precision": (_context_precision, ("rank", "ground_truth")),
    "context_recall": (_context_recall, ("ground_truth",)),
    "context_relevance": (_context_relevance, ()),
    "faithfulness": (_faithfulness, ()),
    "hallucination": (_hallucination, ()),
    "summary_coherence": (_summary_coherence, ()),
    "toxicity": (_toxicity, ()),
}


# --- the tables: one row per datum, or the means by group --------------------------------


#: The ``frame`` and ``by`` parameters of every verdict table, as its docstring describes them
#: (filled in by :func:`pdmetrics._docstrings.fill`).
VERDICT_TABLE = """
frame : DataFrame
    The judge's verdict table in long form (see :mod:`pdmetrics.textgen.verdicts`).
"""
GROUP_MEANS = """
by : str, optional
    A group column, constant within each datum: the metric's means by group instead.
"""


def datum_spec(frame: pd.DataFrame, metric, name: str, by, columns: dict, options: dict):
    """The spec of the verdict metric ``metric`` (one of this module's array-level functions):
    its ``columns`` (argument -> column name, the datum first) and ``options``. Per datum it is
    :class:`~pdmetrics._table_spec.Rows` keyed on the datum; with ``by`` the group means, a
    :class:`~pdmetrics._table_spec.Table` keyed on the datum; with ``data=`` (and the counts
    aligned with it) it needs all rows at once (the data without rows are in no part)."""
    names = [one_name(frame, argument, column) for argument, column in columns.items() if column is not None]
    if by is not None:
        names.append(one_name(frame, "by", by))
    names = list(dict.fromkeys(names))
    run = partial(_datum_table, metric, columns, options, by)
    if any(options.get(count) is not None for count in ("data", "n_contexts", "n_ground_truths")):
        return Whole(
            names,
            partial(_whole_table, run, by),
            instead=f"With `data=...` the data without verdict rows are in no partition: leave `data=` (and "
            f"the counts aligned with it) out to score the data present, or compute the columns first: "
            f"`ddf[columns].compute().textgen.{name}(...)`.",
        )
    if by is None:
        return Rows(names, run, key=names[0])
    return Table(names, run, means_table, key=names[0])


def _datum_table(metric, columns: dict, options: dict, by, part: pd.DataFrame):
    """A part's per-datum table (every datum's rows in the part), or (``by``) its group sums."""
    part, _ = source_order(part)
    values = {
        arg: None if column is None else one_column(part, arg, column) for arg, column in columns.items()
    }
    table = metric(**values, **options)
    if by is None:
        return table.reset_index(drop=True)
    return means_state(table, by=one_column(part, "by", by).set_axis(values["datum"].to_numpy()))


def _whole_table(run, by, frame: pd.DataFrame) -> pd.DataFrame:
    result = run(frame)
    return result if by is None else means_table(result)


@table
@fill(frame=VERDICT_TABLE, by=GROUP_MEANS)
def answer_correctness(frame, *, datum, verdict, ground_truth=None, data=None, by=None):
    """Answer correctness: the F1 score of the answer's statements against a ground truth's.

    The judge labels each answer statement ``"TP"`` (supported by the ground truth) or
    ``"FP"``, and each ground-truth statement missing from the answer ``"FN"``. Per ground
    truth ``F1 = TP / (TP + 0.5 (FP + FN))``, 0 when there is no TP; with several ground
    truths the datum scores the best one (valor: the maximum). A datum without rows (no
    ground truth, or no statements at all) scores 0.0.

    Parameters
    ----------
    {frame}
    datum : str
        The column of the datum id of each verdict row (one row per statement and ground truth).
    verdict : str
        The column of the verdicts: ``"TP"``, ``"FP"`` or ``"FN"`` (case-sensitive).
    ground_truth : str, optional
        The column of which ground truth each row was judged against (any ids). Default: one per datum.
    data : array-like, optional
        Every datum id to report, once each; a datum without rows scores 0.0.
    {by}

    Returns
    -------
    DataFrame
        ``datum``, ``N`` (verdict rows, all ground truths), ``answer_correctness``.

    Examples
    --------
    The seed's water example: one TP, one FP, one FN gives 1 / (1 + 0.5 * 2) = 0.5; the second
    ground truth matches both answer statements and wins.

    >>> import pandas as pd
    >>> from pdmetrics.textgen import answer_correctness
    >>> judged = pd.DataFrame({"id": "w", "verdict": ["TP", "FP", "FN", "TP", "TP"],
    ...                        "truth": ["g1", "g1", "g1", "g2", "g2"]})
    >>> answer_correctness(judged, datum="id", verdict="verdict", ground_truth="truth")
      datum  N  answer_correctness
    0     w  5                 1.0
    """
    return datum_spec(
        frame,
        _answer_correctness,
        "answer_correctness",
        by,
        {"datum": datum, "verdict": verdict, "ground_truth": ground_truth},
        {"data": data},
    )


@table
@fill(frame=VERDICT_TABLE, by=GROUP_MEANS)
def answer_relevance(frame, *, datum, verdict, data=None, by=None):
    """Answer relevance: the share of the answer's statements relevant to the query.

    ``#"yes" / #verdicts`` per datum. The judge may answer ``"idk"``, which counts as not
    relevant; a datum without statements scores 0.0 (valor's rules).

    Parameters
    ----------
    {frame}
    datum : str
        The column of the datum id of each verdict row (one row per statement of the answer).
    verdict : str
        The column of the verdicts: ``"yes"``, ``"no"`` or ``"idk"`` (case-sensitive).
    data : array-like, optional
        Every datum id to report, once each; a datum without rows scores 0.0. Default: the
        data present in ``datum``, sorted.
    {by}

    Returns
    -------
    DataFrame
        ``datum``, ``N`` (statements), ``answer_relevance``; one row per datum.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.textgen import answer_relevance
    >>> judged = pd.DataFrame({"id": ["q1", "q1", "q1", "q2"], "verdict": ["yes", "idk", "no", "yes"]})
    >>> answer_relevance(judged, datum="id", verdict="verdict", data=["q1", "q2", "q3"])
      datum  N  answer_relevance
    0    q1  3          0.333333
    1    q2  1          1.000000
    2    q3  0          0.000000
    """
    return datum_spec(
        frame, _answer_relevance, "answer_relevance", by, {"datum": datum, "verdict": verdict}, {"data": data}
    )


@table
@fill(frame=VERDICT_TABLE, by=GROUP_MEANS)
def bias(frame, *, datum, verdict, data=None, by=None):
    """Bias: the share of the text's opinions the judge found biased.

    ``#"yes" / #opinions`` per datum; a datum without opinions scores 0.0.

    Parameters
    ----------
    {frame}
    datum : str
        The column of the datum id of each verdict row (one row per opinion).
    verdict : str
        The column of the verdicts: ``"yes"`` (biased) or ``"no"`` (case-sensitive).
    data : array-like, optional
        Every datum id to report, once each; a datum without opinions scores 0.0.
    {by}

    Returns
    -------
    DataFrame
        ``datum``, ``N`` (opinions), ``bias``.

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics  # noqa: F401
    >>> judged = pd.DataFrame({"id": ["a", "a", "b"], "verdict": ["yes", "no", "no"]})
    >>> judged.textgen.bias(datum="id", verdict="verdict", data=["a", "b", "c"])
      datum  N  bias
    0     a  2   0.5
    1     b  1   0.0
    2     c  0   0.0
    """
    return datum_spec(frame, _bias, "bias", by, {"datum": datum, "verdict": verdict}, {"data": data})


@table
@fill(frame=VERDICT_TABLE, by=GROUP_MEANS)
def context_precision(
    frame,
    *,
    datum,
    verdict,
    rank,
    ground_truth=None,
    data=None,
    n_contexts=None,
    n_ground_truths=None,
    by=None,
):
    """Context precision: precision@k of the ranked contexts, averaged over the relevant ones.

    ``sum_k (precision@k * v_k) / sum_k v_k`` where ``v_k`` is 1 when the k-th context's verdict
    is ``"yes"`` (useful for producing the ground truth) and precision@k is the share of "yes"
    among the first k; all "no" scores 0. With several ground truths a context counts as
    useful when it is "yes" for any of them (valor: one aggregate verdict list, not a maximum
    of scores). valor's edge rules: neither contexts nor ground truths -> 1.0, only one of them
    empty -> 0.0.

    Parameters
    ----------
    {frame}
    datum : str
        The column of the datum id of each verdict row (one row per context and ground truth).
    verdict : str
        The column of the verdicts: ``"yes"`` or ``"no"`` (case-sensitive).
    rank : str
        The column of the context's position in the retrieved list, 1 for the first. Per datum and ground
        truth the ranks are 1..K without gaps or duplicates, with the same K for every ground
        truth of the datum.
    ground_truth : str, optional
        The column of which ground truth each row was judged against. Default: one per datum.
    data : array-like, optional
        Every datum id to report, once each.
    n_contexts, n_ground_truths : array-like of int, optional
        Contexts retrieved and ground truths given per datum, aligned with ``data``; needed when
        a datum of ``data`` has no rows, and checked against K when given.
    {by}

    Returns
    -------
    DataFrame
        ``datum``, ``N`` (verdict rows: contexts x ground truths), ``context_precision``.

    Examples
    --------
    The seed's examples: ``["yes", "no", "no", "yes"]`` gives (1 + 0.5) / 2 = 0.75 and
    ``["no", "yes", "no", "yes"]`` gives (0.5 + 0.5) / 2 = 0.5.

    >>> import pandas as pd
    >>> import pdmetrics  # noqa: F401
    >>> judged = pd.DataFrame({"id": ["a"] * 4 + ["b"] * 4, "rank": [1, 2, 3, 4] * 2,
    ...                        "verdict": ["yes", "no", "no", "yes", "no", "yes", "no", "yes"]})
    >>> judged.textgen.context_precision(datum="id", verdict="verdict", rank="rank")
      datum  N  context_precision
    0     a  4               0.75
    1     b  4               0.50
    """
    return datum_spec(
        frame,
        _context_precision,
        "context_precision",
        by,
        {"datum": datum, "verdict": verdict, "rank": rank, "ground_truth": ground_truth},
        {"data": data, "n_contexts": n_contexts, "n_ground_truths": n_ground_truths},
    )


@table
@fill(frame=VERDICT_TABLE, by=GROUP_MEANS)
def context_recall(
    frame,
    *,
    datum,
    verdict,
    ground_truth=None,
    data=None,
    n_contexts=None,
    n_ground_truths=None,
    zero_division="warn",
    by=None,
):
    """Context recall: the share of a ground truth's statements attributable to the contexts.

    Per ground truth ``#"yes" / #statements``; with several ground truths the datum scores the
    best one (valor: the maximum). valor's edge rules: neither contexts nor ground truths ->
    1.0, only one of them empty -> 0.0.

    Parameters
    ----------
    {frame}
    datum : str
        The column of the datum id of each verdict row (one row per ground-truth statement).
    verdict : str
        The column of the verdicts: ``"yes"`` (attributable to the retrieved contexts) or ``"no"``
        (case-sensitive).
    ground_truth : str, optional
        The column of which ground truth each statement comes from. Default: one per datum.
    data : array-like, optional
        Every datum id to report, once each.
    n_contexts, n_ground_truths : array-like of int, optional
        Contexts retrieved and ground truths given per datum, aligned with ``data``; needed when
        a datum of ``data`` has no rows.
    zero_division : "warn" or float, default "warn"
        The value for a datum with contexts and ground truths but no ground-truth statement at
        all (valor divides by zero there): NaN with an ``UndefinedMetricWarning``, or this number.
    {by}

    Returns
    -------
    DataFrame
        ``datum``, ``N`` (statements, all ground truths), ``context_recall``.
    """
    return datum_spec(
        frame,
        _context_recall,
        "context_recall",
        by,
        {"datum": datum, "verdict": verdict, "ground_truth": ground_truth},
        {
            "data": data,
            "n_contexts": n_contexts,
            "n_ground_truths": n_ground_truths,
            "zero_division": zero_division,
        },
    )


@table
@fill(frame=VERDICT_TABLE, by=GROUP_MEANS)
def context_relevance(frame, *, datum, verdict, data=None, by=None):
    """Context relevance: the share of retrieved contexts relevant to the query.

    ``#"yes" / #contexts`` per datum; a datum without contexts scores 0.0.

    Parameters
    ----------
    {frame}
    datum : str
        The column of the datum id of each verdict row (one row per retrieved context).
    verdict : str
        The column of the verdicts: ``"yes"`` (relevant) or ``"no"`` (case-sensitive).
    data : array-like, optional
        Every datum id to report, once each; a datum without contexts scores 0.0.
    {by}

    Returns
    -------
    DataFrame
        ``datum``, ``N`` (contexts), ``context_relevance``.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.textgen import context_relevance
    >>> judged = pd.DataFrame({"id": "q", "verdict": ["yes", "no", "no", "yes"]})
    >>> context_relevance(judged, datum="id", verdict="verdict", data=["q", "r"])
      datum  N  context_relevance
    0     q  4                0.5
    1     r  0                0.0
    """
    return datum_spec(
        frame,
        _context_relevance,
        "context_relevance",
        by,
        {"datum": datum, "verdict": verdict},
        {"data": data},
    )


@table
@fill(frame=VERDICT_TABLE, by=GROUP_MEANS)
def faithfulness(frame, *, datum, verdict, data=None, n_contexts=None, by=None):
    """Faithfulness: the share of the answer's claims implied by the retrieved contexts.

    ``#"yes" / #claims`` per datum. valor's edge rules: a datum without contexts scores 0.0,
    and with contexts but without claims 1.0 (nothing unfaithful was said).

    Parameters
    ----------
    {frame}
    datum : str
        The column of the datum id of each verdict row (one row per claim of the answer).
    verdict : str
        The column of the verdicts: ``"yes"`` (the contexts imply the claim) or ``"no"`` (case-sensitive).
    data : array-like, optional
        Every datum id to report, once each.
    n_contexts : array-like of int, optional
        The number of contexts retrieved per datum, aligned with ``data``. Needed when a
        datum of ``data`` has no claim rows, to tell "no claims" (1.0) from "no contexts" (0.0).
    {by}

    Returns
    -------
    DataFrame
        ``datum``, ``N`` (claims), ``faithfulness``.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.textgen import faithfulness
    >>> judged = pd.DataFrame({"id": "a", "verdict": ["yes", "yes", "no"]})
    >>> faithfulness(judged, datum="id", verdict="verdict", data=["a", "b", "c"], n_contexts=[2, 3, 0])
      datum  N  faithfulness
    0     a  3      0.666667
    1     b  0      1.000000
    2     c  0      0.000000
    """
    return datum_spec(
        frame,
        _faithfulness,
        "faithfulness",
        by,
        {"datum": datum, "verdict": verdict},
        {"data": data, "n_contexts": n_contexts},
    )


@table
@fill(frame=VERDICT_TABLE, by=GROUP_MEANS)
def hallucination(frame, *, datum, verdict, data=None, by=None):
    """Hallucination: the share of retrieved contexts the answer contradicts (lower is better).

    ``#"yes" / #contexts`` per datum. Hallucination needs contexts: a datum of ``data``
    without context rows is an error naming it (valor raises too), never a number.

    Parameters
    ----------
    {frame}
    datum : str
        The column of the datum id of each verdict row (one row per retrieved context).
    verdict : str
        The column of the verdicts: ``"yes"`` (the answer contradicts the context) or ``"no"``
        (case-sensitive).
    data : array-like, optional
        Every datum id to report, once each.
    {by}

    Returns
    -------
    DataFrame
        ``datum``, ``N`` (contexts), ``hallucination``.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.textgen import hallucination
    >>> judged = pd.DataFrame({"id": "q", "verdict": ["no", "no", "yes", "no"]})
    >>> hallucination(judged, datum="id", verdict="verdict")
      datum  N  hallucination
    0     q  4           0.25
    """
    return datum_spec(
        frame, _hallucination, "hallucination", by, {"datum": datum, "verdict": verdict}, {"data": data}
    )


@table
@fill(frame=VERDICT_TABLE, by=GROUP_MEANS)
def summary_coherence(frame, *, datum, score, data=None, by=None):
    """Summary coherence: the judge's 1-5 score of the summary, one row per datum.

    valor's judge answers an integer from 1 (incoherent) to 5 (extremely coherent): Python or
    numpy integers, or whole floats (``4.0``), also in an object column; any other value (0, 6,
    3.5, NaN, a bool, text such as ``"4"``) is an error naming the row. Every datum needs exactly one
    score.

    Parameters
    ----------
    {frame}
    datum : str
        The column of the datum id of each row (one row per summary).
    score : str
        The column of the judge's score, 1 to 5.
    data : array-like, optional
        Every datum id to report, once each; a datum without a score is an error.
    {by}

    Returns
    -------
    DataFrame
        ``datum``, ``N`` (1), ``summary_coherence`` (float).
    """
    return datum_spec(
        frame, _summary_coherence, "summary_coherence", by, {"datum": datum, "score": score}, {"data": data}
    )


@table
def toxicity(frame, *, datum, verdict, data=None, by=None):
    """Toxicity: the share of the text's opinions the judge found toxic.

    ``#"yes" / #opinions`` per datum; a datum without opinions scores 0.0. The arguments are
    those of :func:`bias` (one verdict row per opinion: ``"yes"`` when toxic, else ``"no"``);
    the table has the columns ``datum``, ``N`` (opinions) and ``toxicity``, or with ``by`` the
    means by group.

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics  # noqa: F401
    >>> judged = pd.DataFrame({"id": ["a", "a", "b", "c"], "verdict": ["yes", "no", "no", "yes"],
    ...                        "topic": ["x", "x", "y", "x"]})
    >>> judged.textgen.toxicity(datum="id", verdict="verdict")
      datum  N  toxicity
    0     a  2       0.5
    1     b  1       0.0
    2     c  1       1.0
    >>> judged.textgen.toxicity(datum="id", verdict="verdict", by="topic")
       topic  N  toxicity
    0  (all)  3      0.50
    1      x  2      0.75
    2      y  1      0.00
    """
    return datum_spec(frame, _toxicity, "toxicity", by, {"datum": datum, "verdict": verdict}, {"data": data})
