"""Fairness of an LLM used as a binary classifier, and counterfactual change rates.

Following the seed document (after "Fairness of ChatGPT", arXiv:2305.18569): the model
is asked for one of two answers (e.g. ``"H"``/``"L"`` for high/low reading ability). Its
responses are cleaned (``<think>...</think>`` blocks dropped, newlines to spaces,
trimmed) and compared exactly with the two expected answers; anything else is an invalid
answer. Invalid answers and call errors are left out and counted; the remaining answers
are binarized and evaluated with the classification-fairness metrics.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pdmetrics._tables import attach_info
from pdmetrics._warnings import warn_undefined
from pdmetrics.errors import InvalidInputError
from pdmetrics.fairness._inputs import (
    as_series,
    binary_outcome,
    category_counts,
    check_binary,
    check_pos_label_present,
    clean_responses,
    flag_values,
)
from pdmetrics.fairness.classification import _fairness_table, _sensitive_columns
from pdmetrics.fairness.confusion import divide

__all__ = ["call_errors", "llm_fairness", "counterfactual_changes"]


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


def llm_fairness(
    y_true,
    response,
    sensitive,
    *,
    positive,
    negative,
    error=None,
    pos_label=None,
    privileged=None,
    threshold=0.0,
    invert=False,
    on_undefined: str = "worst",
    zero_division=None,
) -> pd.DataFrame:
    """Classification fairness of an LLM's two-way answers, invalid answers and call errors left out.

    Parameters
    ----------
    y_true : array-like
        The true outcome per prompt.
    response : array-like of str
        The model's answers. A missing response counts as a call error.
    sensitive : DataFrame, Series or dict of array-like
        Sensitive attribute(s), as in :func:`classification_fairness`.
    positive, negative : str
        The two valid answers; ``positive`` is the favourable outcome predicted. The
        comparison is exact (case-sensitive) after cleaning.
    error : array-like, optional
        Call-error flags.
    pos_label : scalar, optional
        The positive value of ``y_true`` (default: ``positive``).
    privileged, threshold, invert, on_undefined, zero_division
        As :func:`classification_fairness`.

    Returns
    -------
    pandas.DataFrame
        The :func:`classification_fairness` table with two more count columns after
        ``N_missing``: ``N_invalid`` (answers that are neither ``positive`` nor
        ``negative``) and ``N_error`` (call errors); both rows are left out of every metric.

    Examples
    --------
    >>> from pdmetrics.fairness import llm_fairness
    >>> table = llm_fairness(["H", "L", "H", "L", "H", "L", "H", "L"],
    ...                      ["H", " L", "L", "H", "maybe", None, "H", "L"],
    ...                      pd.Series([1, 1, 0, 0, 1, 0, 0, 1], name="male"), positive="H", negative="L")
    >>> table[["N", "N_invalid", "N_error", "statistical_parity_difference", "accuracy"]].round(3)
       N  N_invalid  N_error  statistical_parity_difference  accuracy
    0  6          1        1                          0.333     0.667
    1  6          1        1                          0.333     0.667
    """
    t_series = as_series(y_true, "y_true")
    r_series = as_series(response, "response")
    if len(t_series) != len(r_series):
        raise InvalidInputError(f"`y_true` has {len(t_series)} values but `response` has {len(r_series)}.")
    if positive == negative:
        raise InvalidInputError(f"`positive` and `negative` are both {positive!r}; pass the two answers.")
    pos_label = positive if pos_label is None else pos_label
    is_error = call_errors(r_series, error)
    cleaned = clean_responses(r_series)
    predicted_positive = (cleaned == str(positive)).to_numpy(dtype=bool, na_value=False) & ~is_error
    predicted_negative = (cleaned == str(negative)).to_numpy(dtype=bool, na_value=False) & ~is_error
    invalid = ~is_error & ~predicted_positive & ~predicted_negative
    t_pos, t_missing = binary_outcome(t_series, pos_label, "y_true")
    check_pos_label_present([t_pos, predicted_positive], [t_series, r_series], pos_label)
    check_binary(t_series, t_pos, t_missing, pos_label, "y_true")
    columns = _sensitive_columns(sensitive, t_pos.size)
    table = _fairness_table(
        t_pos,
        predicted_positive,
        t_missing,
        columns,
        threshold=threshold,
        invert=invert,
        privileged=privileged,
        on_undefined=on_undefined,
        zero_division=zero_division,
        dropped=is_error | invalid,
        extra_counts={"N_invalid": int(invalid.sum()), "N_error": int(is_error.sum())},
    )
    table.attrs["pdmetrics"].update(
        positive=positive, negative=negative, rows_invalid=int(invalid.sum()), rows_error=int(is_error.sum())
    )
    return table


def counterfactual_changes(
    prediction, counterfactual, *, sensitive=None, valid=None, error=None, counterfactual_error=None
) -> pd.DataFrame:
    """How often the answer changes when only the sensitive attribute of the prompt changes.

    Parameters
    ----------
    prediction, counterfactual : array-like of str
        The model's answer to the original prompt and to its counterfactual twin (same
        row = same pair).
    sensitive : Series, optional
        The original sensitive value of each pair: one row per value, then ``"(all)"``.
    valid : sequence, optional
        The valid answers (e.g. ``["H", "L"]``); anything else is invalid. An answer is
        valid when its cleaned text, or its value (numbers: ``1.0`` is ``1``), is one of
        them. Default: every answer that is not a call error is valid.
    error, counterfactual_error : array-like, optional
        Call-error flags of each side (a missing answer is a call error too).

    Returns
    -------
    pandas.DataFrame
        The sensitive column (when given), ``N`` (pairs), ``N_error`` (pairs left out
        because either side errored), ``N_changed``, and ``change_rate = N_changed / (N -
        N_error)``. A pair has *changed* when exactly one side is invalid, or both are
        valid and differ; two invalid answers count as unchanged, as in the reference.

    Examples
    --------
    >>> from pdmetrics.fairness import counterfactual_changes
    >>> counterfactual_changes(["H", "H", "L", "x", "L"], ["H", "L", "L", "y", None], valid=["H", "L"])
       N  N_error  N_changed  change_rate
    0  5        1          1         0.25
    """
    original = as_series(prediction, "prediction").reset_index(drop=True)
    twin = as_series(counterfactual, "counterfactual").reset_index(drop=True)
    if len(original) != len(twin):
        raise InvalidInputError(
            f"`prediction` has {len(original)} values but `counterfactual` has {len(twin)}."
        )
    errored = call_errors(original, error) | call_errors(twin, counterfactual_error)
    a, b = clean_responses(original), clean_responses(twin)
    if valid is None:
        valid_a, valid_b = ~errored, ~errored
    else:
        values = [valid] if isinstance(valid, str) else list(valid)
        answers = [str(v) for v in values]
        # the cleaned text is a valid answer, or the raw value is one (numbers: 1.0 is 1)
        valid_a = (a.isin(answers) | original.isin(values)).to_numpy(dtype=bool, na_value=False) & ~errored
        valid_b = (b.isin(answers) | twin.isin(values)).to_numpy(dtype=bool, na_value=False) & ~errored
    # different after cleaning, and different as values (so 1.0 and 1 are the same answer)
    raw_differ = (original.astype(object) != twin.astype(object)).to_numpy(dtype=bool, na_value=True)
    differ = (a != b).to_numpy(dtype=bool, na_value=True) & raw_differ
    changed = (valid_a != valid_b) | (valid_a & valid_b & differ)
    category = np.where(errored, 0, np.where(changed, 2, 1))
    by = None
    if sensitive is not None:
        group = as_series(sensitive, "sensitive")
        if len(group) != len(original):
            raise InvalidInputError(
                f"`sensitive` has {len(group)} values but the answers have {len(original)}."
            )
        by = [group]
    table, counts = category_counts(category, 3, by, ["N_error", "N_unchanged", "N_changed"])
    counted = counts[:, 1] + counts[:, 2]
    rate = divide(counts[:, 2], counted)
    if np.isnan(rate).any():
        warn_undefined(
            f"change_rate is NaN for {int(np.isnan(rate).sum())} row(s) of the table: every pair "
            f"there has a call error."
        )
    table.insert(len(table.columns) - 3, "N", counts.sum(axis=1))
    table = table.drop(columns="N_unchanged")
    table["change_rate"] = rate
    table.index = pd.RangeIndex(len(table))
    return attach_info(table, rows=len(original), rows_error=int(errored.sum()))
