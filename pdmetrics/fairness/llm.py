"""Fairness of an LLM used as a binary classifier, and counterfactual change rates.

Following the seed document (after "Fairness of ChatGPT", arXiv:2305.18569): the model
is asked for one of two answers (e.g. ``"H"``/``"L"`` for high/low reading ability). Its
responses are cleaned (``<think>...</think>`` blocks dropped, newlines to spaces,
trimmed) and compared exactly with the two expected answers; anything else is an invalid
answer. Invalid answers and call errors are left out and counted; the remaining answers
are binarized and evaluated with the classification-fairness metrics.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._additive import Additive, first
from pdmetrics._division import check_zero_division, divide
from pdmetrics._groups import as_series, named_columns
from pdmetrics._renamed import renamed
from pdmetrics._table_spec import table
from pdmetrics._tables import attach_info
from pdmetrics._validation import one_name, plain
from pdmetrics.errors import InvalidInputError
from pdmetrics.fairness._inputs import (
    AnswerState,
    binary_outcome,
    category_state,
    category_table,
    check_binary_summary,
    check_pos_label_summaries,
    check_usable_rows,
    clean_responses,
    column_table,
    flag_values,
    group_names,
    label_summary,
    optional_name,
    presence_summary,
    row_problems,
)
from pdmetrics.fairness.parity import (
    SensitiveCounts,
    check_options,
    fairness_table_from_counts,
    sensitive_columns,
    sensitive_counts,
)

__all__ = [
    "LLMFairnessState",
    "call_errors",
    "counterfactual",
    "counterfactual_from_state",
    "counterfactual_state",
    "llm_fairness",
    "llm_fairness_from_state",
    "llm_fairness_state",
]


def call_errors(response: pd.Series, error=None) -> np.ndarray:
    """Rows whose call failed: a missing response, or a set error flag.

    ``error`` holds True/False, 0/1 or error messages (a non-empty message is an error).

    Examples
    --------
    >>> from pdmetrics.fairness import call_errors
    >>> call_errors(pd.Series(["H", None, "L", "L"]), error=[None, None, "HTTP 500", ""])
    array([False,  True,  True, False])
    """
    is_error = response.isna().to_numpy(dtype=bool)
    if error is None:
        return is_error
    flags = flag_values(as_series(error, "error"), "error")
    if flags.size != is_error.size:
        raise InvalidInputError(f"`error` has {flags.size} values but the responses have {is_error.size}.")
    return is_error | flags


@table
@renamed("sensitive", "on_undefined")
def llm_fairness(
    frame,
    *,
    y_true,
    response,
    by,
    positive,
    negative,
    error=None,
    pos_label=None,
    privileged=None,
    threshold=0.0,
    invert=False,
    zero_division="worst",
) -> pd.DataFrame:
    """Classification fairness of an LLM's two-way answers, invalid answers and call errors left out.

    Parameters
    ----------
    frame : DataFrame
        One row per prompt (pandas; dask and polars frames run the same table).
    y_true : str
        Column of the true outcome per prompt.
    response : str
        Column of the model's answers. A missing response counts as a call error.
    by : str or list of str
        Sensitive attribute column(s), as in :func:`classification`.
    positive, negative : str
        The two valid answers; ``positive`` is the favourable outcome predicted. The
        comparison is exact (case-sensitive) after cleaning.
    error : str, optional
        Column of call-error flags (True/False, 0/1 or error messages).
    pos_label : scalar, optional
        The positive value of ``y_true`` (default: ``positive``).
    privileged, threshold, invert, zero_division
        As :func:`classification`.

    Returns
    -------
    pandas.DataFrame
        The :func:`classification` table with two more count columns after
        ``N_missing``: ``N_invalid`` (answers that are neither ``positive`` nor
        ``negative``) and ``N_error`` (call errors); both rows are left out of every metric.

    Examples
    --------
    >>> import pdmetrics
    >>> df = pd.DataFrame({"label": ["H", "L", "H", "L", "H", "L", "H", "L"],
    ...                    "answer": ["H", " L", "L", "H", "maybe", None, "H", "L"],
    ...                    "male": [1, 1, 0, 0, 1, 0, 0, 1]})
    >>> table = df.fairness.llm_fairness(y_true="label", response="answer", by="male",
    ...                                  positive="H", negative="L")
    >>> table[["by", "N", "N_invalid", "N_error"]]
          by  N  N_invalid  N_error
    0   male  6          1        1
    1  (all)  6          1        1
    >>> table = pdmetrics.fairness.llm_fairness(df, y_true="label", response="answer", by="male",
    ...                                         positive="H", negative="L")
    >>> table[["statistical_parity_difference", "accuracy"]].round(3)
       statistical_parity_difference  accuracy
    0                          0.333     0.667
    1                          0.333     0.667
    """
    columns = {
        "y_true": one_name(frame, "y_true", y_true),
        "response": one_name(frame, "response", response),
        "by": group_names(frame, by),
        "error": optional_name(frame, "error", error),
    }
    zero_division = check_options(zero_division, 0, 0.95, None)
    options = {
        "positive": positive,
        "negative": negative,
        "pos_label": pos_label,
        "privileged": privileged,
        "threshold": threshold,
        "invert": invert,
    }
    finalize = partial(llm_fairness_from_state, zero_division=zero_division)
    return column_table(llm_fairness_state, columns, options, finalize)


@dataclass(frozen=True)
class LLMFairnessState(Additive):
    """The additive state of :func:`llm_fairness` over some rows: the summaries of the truth and
    response columns (:class:`~pdmetrics.fairness._inputs.LabelSummary`), the counts of the
    valid answers (:class:`~pdmetrics.fairness.parity.SensitiveCounts`), and the rows with
    an invalid answer or a call error."""

    labels: tuple
    counts: SensitiveCounts
    rows_invalid: int
    rows_error: int
    options: tuple = field(metadata={"combine": first})


def llm_fairness_state(
    y_true,
    response,
    by,
    *,
    positive,
    negative,
    error=None,
    pos_label=None,
    privileged=None,
    threshold=0.0,
    invert=False,
) -> LLMFairnessState:
    """The :class:`LLMFairnessState` of one chunk of rows (no warning, no whole-column check).

    Examples
    --------
    >>> from pdmetrics.fairness.llm import llm_fairness_from_state, llm_fairness_state
    >>> df = pd.DataFrame({"label": ["H", "L", "H", "L", "H", "L"], "answer": ["H", "L", "L", "H", "H?", "L"],
    ...                    "male": [1, 1, 0, 0, 1, 0]})
    >>> first, second = (llm_fairness_state(p["label"], p["answer"], p[["male"]], positive="H", negative="L")
    ...                  for p in (df[:3], df[3:]))
    >>> llm_fairness_from_state(first.combine(second))[["by", "N", "N_invalid"]]
          by  N  N_invalid
    0   male  5          1
    1  (all)  5          1
    """
    t_series = as_series(y_true, "y_true")
    r_series = as_series(response, "response")
    if len(t_series) != len(r_series):
        raise InvalidInputError(f"`y_true` has {len(t_series)} values but `response` has {len(r_series)}.")
    if positive == negative:
        raise InvalidInputError(
            f"`positive` and `negative` are both {plain(positive)!r}; pass the two answers."
        )
    pos_label = positive if pos_label is None else pos_label
    is_error = call_errors(r_series, error)
    cleaned = clean_responses(r_series)
    predicted_positive = (cleaned == str(positive)).to_numpy(dtype=bool, na_value=False) & ~is_error
    predicted_negative = (cleaned == str(negative)).to_numpy(dtype=bool, na_value=False) & ~is_error
    invalid = ~is_error & ~predicted_positive & ~predicted_negative
    t_pos, t_missing = binary_outcome(t_series, pos_label, "y_true")
    labels = (label_summary(t_series, t_pos, t_missing), presence_summary(r_series, predicted_positive))
    columns = sensitive_columns(by, t_pos.size)
    counts = sensitive_counts(
        t_pos, predicted_positive, t_missing, columns, threshold, invert, privileged, is_error | invalid
    )
    return LLMFairnessState(
        labels, counts, int(invalid.sum()), int(is_error.sum()), (positive, negative, pos_label)
    )


def llm_fairness_from_state(state: LLMFairnessState, *, zero_division="worst") -> pd.DataFrame:
    """The :func:`llm_fairness` table from the state of every row (options checked with
    :func:`~pdmetrics.fairness.parity.check_options`): the checks of the whole label columns
    and the warnings are raised here."""
    positive, negative, pos_label = state.options
    check_usable_rows(state.counts.n_rows, {"y_true": state.labels[0]}, None, "LLM fairness")
    check_pos_label_summaries(list(state.labels), pos_label)
    check_binary_summary(state.labels[0], pos_label, "y_true")
    table = fairness_table_from_counts(
        state.counts,
        zero_division=zero_division,
        extra_counts={"N_invalid": state.rows_invalid, "N_error": state.rows_error},
    )
    table.attrs["pdmetrics"].update(
        positive=positive, negative=negative, rows_invalid=state.rows_invalid, rows_error=state.rows_error
    )
    return table


_COUNTERFACTUAL_COLUMNS = ("N", "N_error", "N_changed", "change_rate")


def valid_answers(valid) -> list:
    """``valid=`` as a list of answers: one answer (str) or a list-like of scalars."""
    if isinstance(valid, str):
        return [valid]
    if isinstance(valid, (list, tuple, set, frozenset, np.ndarray, pd.Index, pd.Series)):
        values = list(valid)
        if values and all(np.ndim(v) == 0 and not isinstance(v, dict) for v in values):
            return values
    raise InvalidInputError(
        f"`valid={plain(valid)!r}` must be the list of valid answers, e.g. `valid=['H', 'L']` "
        f"(or None: every answer without a call error is valid)."
    )


@table
def counterfactual(
    frame,
    *,
    prediction,
    counterfactual,
    by=None,
    valid=None,
    error=None,
    counterfactual_error=None,
    zero_division="warn",
) -> pd.DataFrame:
    """How often the answer changes when only the sensitive attribute of the prompt changes.

    Parameters
    ----------
    frame : DataFrame
        One row per pair of prompts (pandas; dask and polars frames run the same table).
    prediction, counterfactual : str
        Columns of the model's answer to the original prompt and to its counterfactual twin
        (same row = same pair).
    by : str or list of str, optional
        Group column(s), e.g. the original sensitive value of each pair: one row per group,
        then an ``"(all)"`` row pooling every pair.
    valid : sequence, optional
        The valid answers (e.g. ``["H", "L"]``); anything else is invalid. An answer is
        valid when its cleaned text, or its value (numbers: ``1.0`` is ``1``), is one of
        them. Default: every answer that is not a call error is valid.
    error, counterfactual_error : str, optional
        Columns of call-error flags of each side (a missing answer is a call error too).
    zero_division : "warn" or float, default "warn"
        ``change_rate`` of a row where every pair has a call error: NaN with an
        :class:`~pdmetrics.UndefinedMetricWarning`, or this number.

    Returns
    -------
    pandas.DataFrame
        The group columns (when given), ``N`` (pairs), ``N_error`` (pairs left out
        because either side errored), ``N_changed``, and ``change_rate = N_changed / (N -
        N_error)``. A pair has *changed* when exactly one side is invalid, or both are
        valid and differ; two invalid answers count as unchanged, as in the reference.

    Examples
    --------
    >>> import pdmetrics
    >>> df = pd.DataFrame({"answer": ["H", "H", "L", "x", "L"], "answer_cf": ["H", "L", "L", "y", None],
    ...                    "male": [0, 1, 1, 0, 0]})
    >>> df.fairness.counterfactual(prediction="answer", counterfactual="answer_cf", by="male",
    ...                            valid=["H", "L"])
        male  N  N_error  N_changed  change_rate
    0      0  3        1          0         0.00
    1      1  2        0          1         0.50
    2  (all)  5        1          1         0.25
    >>> pdmetrics.fairness.counterfactual(df, prediction="answer", counterfactual="answer_cf")
       N  N_error  N_changed  change_rate
    0  5        1          2          0.5
    """
    columns = {
        "prediction": one_name(frame, "prediction", prediction),
        "counterfactual": one_name(frame, "counterfactual", counterfactual),
        "by": group_names(frame, by),
        "error": optional_name(frame, "error", error),
        "counterfactual_error": optional_name(frame, "counterfactual_error", counterfactual_error),
    }
    zero_division = check_zero_division(zero_division)
    options = {"valid": None if valid is None else valid_answers(valid)}
    finalize = partial(counterfactual_from_state, zero_division=zero_division)
    return column_table(counterfactual_state, columns, options, finalize)


def counterfactual_state(
    prediction, counterfactual, *, by=None, valid=None, error=None, counterfactual_error=None
) -> AnswerState:
    """The :class:`~pdmetrics.fairness._inputs.AnswerState` of one chunk of pairs (``valid``
    checked, or None).

    Examples
    --------
    >>> from pdmetrics.fairness.llm import counterfactual_from_state, counterfactual_state
    >>> answers, twins = ["H", "H", "L", "x", "L"], ["H", "L", "L", "y", None]
    >>> first = counterfactual_state(answers[:2], twins[:2])
    >>> second = counterfactual_state(answers[2:], twins[2:])
    >>> counterfactual_from_state(first.combine(second))
       N  N_error  N_changed  change_rate
    0  5        1          2          0.5
    """
    values = None if valid is None else valid_answers(valid)
    original = as_series(prediction, "prediction").reset_index(drop=True)
    twin = as_series(counterfactual, "counterfactual").reset_index(drop=True)
    if len(original) != len(twin):
        raise InvalidInputError(
            f"`prediction` has {len(original)} values but `counterfactual` has {len(twin)}."
        )
    groups = None if by is None else named_columns(by, len(original), "by")
    errored = call_errors(original, error) | call_errors(twin, counterfactual_error)
    a, b = clean_responses(original), clean_responses(twin)
    if values is None:
        valid_a, valid_b = ~errored, ~errored
    else:
        answers = [str(v) for v in values]
        # the cleaned text is a valid answer, or the raw value is one (numbers: 1.0 is 1)
        valid_a = (a.isin(answers) | original.isin(values)).to_numpy(dtype=bool, na_value=False) & ~errored
        valid_b = (b.isin(answers) | twin.isin(values)).to_numpy(dtype=bool, na_value=False) & ~errored
    # different after cleaning, and different as values (so 1.0 and 1 are the same answer)
    raw_differ = (original.astype(object) != twin.astype(object)).to_numpy(dtype=bool, na_value=True)
    differ = (a != b).to_numpy(dtype=bool, na_value=True) & raw_differ
    changed = (valid_a != valid_b) | (valid_a & valid_b & differ)
    category = np.where(errored, 0, np.where(changed, 2, 1))
    counts = category_state(category, 3, groups, _COUNTERFACTUAL_COLUMNS)
    return AnswerState(counts, int(errored.sum()), row_problems(len(original)))


def counterfactual_from_state(state: AnswerState, zero_division="warn") -> pd.DataFrame:
    """The :func:`counterfactual` table from the state of every pair (warnings raised here)."""
    table, counts = category_table(state.counts, ["N_error", "N_unchanged", "N_changed"])
    rate = divide(
        counts[:, 2],
        counts[:, 1] + counts[:, 2],
        zero_division,
        what="change_rate (every pair of a row has a call error)",
    )
    table.insert(len(table.columns) - 3, "N", counts.sum(axis=1))
    table = table.drop(columns="N_unchanged")
    table["change_rate"] = rate
    table.index = pd.RangeIndex(len(table))
    return attach_info(table, rows=state.problems.rows, rows_error=state.rows_error)
