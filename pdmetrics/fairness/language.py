"""Multiple-choice language evaluations (Kaleidoscope-style): format errors and accuracy.

A response is *correct* when, trimmed and compared case-insensitively, it equals the
correct answer; otherwise *incorrect* when it equals one of the question's options, and
*invalid* (a format error) when it matches none. Call errors are left out of every rate.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._division import check_zero_division, divide
from pdmetrics._groups import as_series, named_columns
from pdmetrics._table_spec import table
from pdmetrics._tables import attach_info
from pdmetrics._validation import one_name, plain
from pdmetrics.errors import InvalidInputError
from pdmetrics.fairness._inputs import (
    AnswerState,
    category_state,
    clean_responses,
    column_table,
    group_names,
    optional_name,
    row_problems,
    scored_category_table,
)
from pdmetrics.fairness.llm import call_errors

__all__ = [
    "language_accuracy",
    "language_accuracy_from_state",
    "language_accuracy_state",
    "language_scores",
]

_COUNTS = ["N_error", "N_correct", "N_incorrect", "N_invalid"]
_RATES = ("format_error_rate", "overall_accuracy", "accuracy_on_valid")
_NO_RESPONSE = "{} (no response without a call error in a row of the table)"


def language_scores(correct, incorrect, invalid, zero_division="warn") -> dict[str, np.ndarray]:
    """Format error rate, overall accuracy and accuracy on valid responses from counts.

    ``format_error_rate = invalid / (correct + incorrect + invalid)``,
    ``overall_accuracy = correct / (correct + incorrect + invalid)``,
    ``accuracy_on_valid = correct / (correct + incorrect)`` (call errors are not in any
    denominator). Where a denominator is 0: NaN with an
    :class:`~pdmetrics.UndefinedMetricWarning` (``zero_division="warn"``), or the number given.

    Examples
    --------
    >>> from pdmetrics.fairness import language_scores
    >>> {k: float(v) for k, v in language_scores(8, 2, 0).items()}
    {'format_error_rate': 0.0, 'overall_accuracy': 0.8, 'accuracy_on_valid': 0.8}
    """
    c, i, v = (np.asarray(x, dtype="float64") for x in (correct, incorrect, invalid))
    answered = c + i + v
    return {
        "format_error_rate": divide(
            v, answered, zero_division, what=_NO_RESPONSE.format("format_error_rate")
        ),
        "overall_accuracy": divide(c, answered, zero_division, what=_NO_RESPONSE.format("overall_accuracy")),
        "accuracy_on_valid": divide(
            c, c + i, zero_division, what="accuracy_on_valid (no valid response in a row of the table)"
        ),
    }


def _normalize(series: pd.Series) -> pd.Series:
    return clean_responses(series).str.casefold()


def _matches_an_option(response: pd.Series, options) -> np.ndarray:
    """Whether each normalized response equals one of its row's options (or of a fixed list)."""
    n = len(response)
    if isinstance(options, pd.Series):
        flat = options.reset_index(drop=True).explode()
        position = flat.index.to_numpy(dtype=np.intp)
        values = _normalize(flat.reset_index(drop=True))
        # distinct fillers: a missing option never matches a missing response
        left = values.fillna("\x00option").to_numpy(dtype=object)
        right = response.fillna("\x00response").to_numpy(dtype=object)[position]
        same = np.asarray(left == right, dtype=bool)
        return np.bincount(position[same], minlength=n) > 0
    choices = [str(o).strip().casefold() for o in ([options] if isinstance(options, str) else options)]
    return response.isin(choices).to_numpy(dtype=bool, na_value=False)


@table
def language_accuracy(
    frame, *, response, answer, options, error=None, by=None, zero_division="warn"
) -> pd.DataFrame:
    """Format error rate and accuracy of multiple-choice answers, per group and overall.

    Parameters
    ----------
    frame : DataFrame
        One row per question asked (pandas; dask and polars frames run the same table).
    response : str
        Column of the model's answers (already extracted from any JSON wrapper). A missing
        response counts as a call error; ``<think>`` blocks are dropped before comparing.
    answer : str
        Column of the correct option's text per question; a missing answer on a row without
        a call error raises :class:`~pdmetrics.InvalidInputError`.
    options : str or list of str
        A column holding each question's list of options, or one list of options for every
        question.
    error : str, optional
        Column of call-error flags; those rows are left out of the rates.
    by : str or list of str, optional
        Group columns (e.g. the language): one row per group, then an ``"(all)"`` row.
    zero_division : "warn" or float, default "warn"
        See :func:`language_scores`.

    Returns
    -------
    pandas.DataFrame
        The group columns, ``N, N_error, N_correct, N_incorrect, N_invalid``, then
        ``format_error_rate, overall_accuracy, accuracy_on_valid`` (see
        :func:`language_scores`); undefined rates are NaN with an
        :class:`~pdmetrics.UndefinedMetricWarning`.

    Examples
    --------
    >>> import pdmetrics
    >>> df = pd.DataFrame({"lang": ["en", "en", "es", "es"],
    ...                    "response": ["Paris", "Rome", "parís", "No lo sé"],
    ...                    "answer": ["Paris", "Paris", "París", "París"],
    ...                    "options": [["Paris", "Rome"], ["Paris", "Rome"], ["París", "Roma"],
    ...                                ["París", "Roma"]]})
    >>> out = df.fairness.language_accuracy(response="response", answer="answer", options="options",
    ...                                     by="lang")
    >>> out[["lang", "N_correct", "N_incorrect", "N_invalid", "overall_accuracy"]]
        lang  N_correct  N_incorrect  N_invalid  overall_accuracy
    0     en          1            1          0               0.5
    1     es          1            0          1               0.5
    2  (all)          2            1          1               0.5
    >>> answers = pd.DataFrame({"response": ["Paris", " paris ", "Lyon", "I think Paris"],
    ...                         "answer": ["Paris"] * 4})
    >>> table = pdmetrics.fairness.language_accuracy(answers, response="response", answer="answer",
    ...                                              options=["Paris", "Lyon", "Nice"])
    >>> table[["N", "N_correct", "N_incorrect", "N_invalid"]]
       N  N_correct  N_incorrect  N_invalid
    0  4          2            1          1
    >>> table[["format_error_rate", "overall_accuracy", "accuracy_on_valid"]].round(3)
       format_error_rate  overall_accuracy  accuracy_on_valid
    0               0.25               0.5              0.667
    """
    fixed = isinstance(options, (list, tuple))
    columns = {
        "response": one_name(frame, "response", response),
        "answer": one_name(frame, "answer", answer),
        "options": None if fixed else one_name(frame, "options", options),
        "error": optional_name(frame, "error", error),
        "by": group_names(frame, by),
    }
    zero_division = check_zero_division(zero_division)
    if fixed:
        del columns["options"]
    chosen = {"options": list(options)} if fixed else {}
    finalize = partial(language_accuracy_from_state, zero_division=zero_division)
    return column_table(language_accuracy_state, columns, chosen, finalize)


def language_accuracy_state(response, answer, options, *, error=None, by=None) -> AnswerState:
    """The :class:`~pdmetrics.fairness._inputs.AnswerState` of one chunk of rows (no warning;
    options given as text and missing answers are refused at
    :func:`language_accuracy_from_state`, naming the first row).

    Examples
    --------
    >>> from pdmetrics.fairness.language import language_accuracy_from_state, language_accuracy_state
    >>> first = language_accuracy_state(["Paris", "Rome"], ["Paris", "Paris"], ["Paris", "Rome"])
    >>> second = language_accuracy_state(["no idea"], ["Paris"], ["Paris", "Rome"])
    >>> language_accuracy_from_state(first.combine(second))[["N", "N_correct", "N_invalid"]]
       N  N_correct  N_invalid
    0  3          1          1
    """
    response = as_series(response, "response").reset_index(drop=True)  # rows pair up by position
    answer = as_series(answer, "answer").reset_index(drop=True)
    if len(answer) != len(response):
        raise InvalidInputError(f"`answer` has {len(answer)} values but `response` has {len(response)}.")
    if options is None:
        raise InvalidInputError("`options=` is required: a column of option lists, or one list of options.")
    problems = {}
    if isinstance(options, pd.Series):
        if len(options) != len(response):
            raise InvalidInputError(
                f"`options` has {len(options)} values but `response` has {len(response)}."
            )
        present = options.notna().to_numpy(dtype=bool)
        text = present.any() and pd.api.types.infer_dtype(options, skipna=True) == "string"
        problems["text_options"] = (present & text, lambda row: (options.name, plain(options.iloc[row])))
    groups = None if by is None else named_columns(by, len(response), "by")
    is_error = call_errors(response, error)
    no_answer = answer.isna().to_numpy(dtype=bool) & ~is_error
    problems["no_answer"] = (no_answer, lambda row: answer.name)
    if "text_options" in problems and problems["text_options"][0].any():
        category = np.zeros(len(response), dtype=np.intp)  # refused at finalize: no need to match
    else:
        normalized = _normalize(response)
        correct = (normalized == _normalize(answer)).to_numpy(dtype=bool, na_value=False)
        an_option = _matches_an_option(normalized, options)
        category = np.select([is_error, correct, an_option], [0, 1, 2], default=3)
    counts = category_state(category, 4, groups, ["N", *_COUNTS, *_RATES])
    return AnswerState(counts, int(is_error.sum()), row_problems(len(response), **problems))


def language_accuracy_from_state(state: AnswerState, zero_division="warn") -> pd.DataFrame:
    """The :func:`language_accuracy` table from the state of every row: options given as text
    and missing answers are refused here, then the warnings are raised."""
    found = state.problems.first("text_options")
    if found:
        _, (name, example), _ = found
        raise InvalidInputError(
            f"`options={name!r}` holds text such as {example!r}, not a list of options per row. "
            f"Split it first, e.g. `df.assign({name}=df[{name!r}].str.split('|'))`, or pass "
            f"one list of options for every question."
        )
    found = state.problems.first("no_answer")
    if found:
        row, name, count = found
        raise InvalidInputError(
            f"`answer={name!r}` is missing on {count} row(s) (first: row "
            f"{row}), so those responses cannot be scored. Drop them first, "
            f"e.g. `df.dropna(subset=[{name!r}])`."
        )
    table = scored_category_table(
        state.counts,
        _COUNTS,
        lambda counts: language_scores(counts[:, 1], counts[:, 2], counts[:, 3], zero_division),
        _RATES,
    )
    return attach_info(table, rows=state.problems.rows, rows_error=state.rows_error)
