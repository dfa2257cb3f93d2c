"""Texts and verdicts given as arrays, put in a frame for the frame-first textgen functions.

The metric tests state their cases as arrays (a list of predictions, a Series of references,
a list of datum ids); :func:`on_texts` and :func:`on_verdicts` put them in one frame (the
prediction's index kept, the references' column names kept) and call the public function on
it with the column names, as a user does.
"""

from __future__ import annotations

import pandas as pd


def _column(values, index=None) -> pd.Series:
    if isinstance(values, pd.Series):
        return values if index is None else values.set_axis(index)
    return pd.Series(list(values), index=index)


def texts_frame(prediction, reference) -> tuple[pd.DataFrame, dict]:
    """A frame of ``prediction`` (a column ``prediction``, its index kept) and ``reference`` (a
    column ``reference`` or the name of a named Series, or the columns of a reference
    DataFrame), and the column arguments."""
    predictions = _column(prediction)
    frame = pd.DataFrame({"prediction": predictions}, index=predictions.index)
    if isinstance(reference, pd.DataFrame):
        frame = pd.concat([frame, reference.set_axis(frame.index)], axis=1)
        return frame, {"prediction": "prediction", "reference": list(reference.columns)}
    name = getattr(reference, "name", None)
    name = "reference" if name is None or name == "prediction" else name  # a named Series keeps its name
    frame[name] = _column(reference, frame.index)
    return frame, {"prediction": "prediction", "reference": name}


def on_texts(function, prediction, reference, **options):
    """``function(frame, prediction=..., reference=..., **options)`` on a frame of the texts."""
    frame, columns = texts_frame(prediction, reference)
    return function(frame, **columns, **options)


def verdicts_frame(**columns) -> tuple[pd.DataFrame, dict]:
    """A frame with one column per given argument (a named Series keeps its name)."""
    given = {argument: values for argument, values in columns.items() if values is not None}
    index = next((values.index for values in given.values() if isinstance(values, pd.Series)), None)
    names = {
        argument: values.name if isinstance(values, pd.Series) and values.name is not None else argument
        for argument, values in given.items()
    }
    series = {names[argument]: _column(values, index) for argument, values in given.items()}
    return pd.DataFrame(series, index=index), names


def on_verdicts(function, datum, verdict=None, rank=None, *, ground_truth=None, score=None, **options):
    """``function(frame, datum=..., verdict=..., ...)`` on a frame of the verdict columns."""
    columns = {"datum": datum, "verdict": verdict, "rank": rank, "ground_truth": ground_truth, "score": score}
    frame, names = verdicts_frame(**columns)
    return function(frame, **names, **options)
