"""Score post-processing as RSMTool does it: linear scaling, trimming and rounding.

RSMTool evaluates up to six *score types* derived from one raw system score:

============================  =====================================================
pdmetrics column              RSMTool score type and meaning
============================  =====================================================
``<system>``                  ``raw``: the score as given
``<system>_trim``             ``raw_trim``: clipped to ``[min - tol, max + tol]``
``<system>_trim_round``       ``raw_trim_round``: the trimmed score rounded half to even
``<system>_scale``            ``scale``: linearly scaled to the human mean and SD
``<system>_scale_trim``       ``scale_trim``: the scaled score, trimmed
``<system>_scale_trim_round`` ``scale_trim_round``: the scaled trimmed score, rounded
============================  =====================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._additive import Additive
from pdmetrics._stats import Moments
from pdmetrics._table_spec import NewColumns, Several, Table, engine_of, run_spec, table
from pdmetrics._validation import as_float_array, numeric_values, plain, require_columns
from pdmetrics.errors import ColumnNotFoundError, InvalidInputError
from pdmetrics.scoring.scored_rows import check_flat_names, check_listed_once

__all__ = [
    "trim_scores",
    "round_scores",
    "scaling_parameters",
    "scale_scores",
    "postprocess",
    "SCORE_TYPE_SUFFIXES",
]

#: Suffix of each derived column, in RSMTool's order of score types.
SCORE_TYPE_SUFFIXES = ("_trim", "_trim_round", "_scale", "_scale_trim", "_scale_trim_round")

DEFAULT_TRIM_TOLERANCE = 0.4998


def check_trim_order(trim_min: float, trim_max: float) -> None:
    """Refuse ``trim_min >= trim_max`` in rsmeval's words (every score would be trimmed to one
    point); the one check of the order, for the accessors, the CLI and rsmeval's config."""
    if trim_min >= trim_max:
        raise InvalidInputError(
            f"trim_min ({trim_min:g}) must be smaller than trim_max ({trim_max:g}): pass the lowest "
            "and the highest score point of the scale, in that order, e.g. trim_min=1, trim_max=6."
        )


def check_trim_range(trim_min, trim_max, tolerance) -> tuple[float, float, float]:
    values = {}
    for name, value in (("trim_min", trim_min), ("trim_max", trim_max), ("trim_tolerance", tolerance)):
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float, np.integer, np.floating))
            or not np.isfinite(value)
        ):
            raise InvalidInputError(
                f"`{name}={plain(value)!r}` must be a finite number, e.g. trim_min=1, "
                "trim_max=6 for a 1-6 score scale."
            )
        values[name] = float(value)
    check_trim_order(values["trim_min"], values["trim_max"])
    if values["trim_tolerance"] < 0:
        raise InvalidInputError(
            f"`trim_tolerance={plain(tolerance)!r}` must be >= 0 "
            f"(RSMTool's default is {DEFAULT_TRIM_TOLERANCE})."
        )
    return values["trim_min"], values["trim_max"], values["trim_tolerance"]


def trim_scores(
    scores, trim_min: float, trim_max: float, tolerance: float = DEFAULT_TRIM_TOLERANCE
) -> np.ndarray:
    """Clip scores to ``[trim_min - tolerance, trim_max + tolerance]``, as RSMTool trims.

    Parameters
    ----------
    scores : array-like
        System scores; NaN stays NaN.
    trim_min, trim_max : float
        Lowest and highest score points of the scale.
    tolerance : float, default 0.4998
        How far past the scale a trimmed score may lie. RSMTool's default 0.4998 keeps
        trimmed scores strictly inside the rounding interval of the end points.

    Returns
    -------
    numpy.ndarray
        A new float array.

    Examples
    --------
    >>> from pdmetrics.scoring import trim_scores
    >>> trim_scores([0.2, 3.7, 7.9], trim_min=1, trim_max=6).tolist()
    [0.5002, 3.7, 6.4998]
    """
    low, high, tol = check_trim_range(trim_min, trim_max, tolerance)
    return np.clip(as_float_array(scores, "scores"), low - tol, high + tol)


def round_scores(scores) -> np.ndarray:
    """Round scores to the nearest integer, halves to even (``numpy.rint``), as RSMTool.

    Examples
    --------
    >>> from pdmetrics.scoring import round_scores
    >>> round_scores([1.5, 2.5, 3.4999, -0.5]).tolist()
    [2.0, 2.0, 3.0, -0.0]
    """
    return np.rint(as_float_array(scores, "scores"))


def scaling_parameters(human, system) -> dict[str, float]:
    """Means and SDs (``ddof=1``) for RSMTool's linear scaling, from a training sample.

    Missing values are skipped (as pandas' ``mean``/``std``).

    Returns
    -------
    dict
        ``human_mean``, ``human_sd``, ``system_mean``, ``system_sd``.

    Raises
    ------
    InvalidInputError
        When a side has fewer than two values or zero SD (the scaling would divide by 0).

    Examples
    --------
    >>> from pdmetrics.scoring import scaling_parameters
    >>> scaling_parameters(human=[2, 3, 4], system=[0.1, 0.2, 0.3])  # doctest: +ELLIPSIS
    {'human_mean': 3.0, 'human_sd': 1.0, 'system_mean': 0.2..., 'system_sd': 0.1...}
    """
    return scaling_from_state(scaling_state(human, system))


@dataclass(frozen=True)
class ScalingState(Additive):
    """The additive state of :func:`scaling_parameters`: count, mean and centred sum of
    squares of each side's numeric scores (:class:`~pdmetrics._stats.Moments` of the side
    with itself), combined exactly over chunks of rows."""

    human: Moments
    system: Moments


def scaling_state(human, system) -> ScalingState:
    """The :class:`ScalingState` of one chunk of training rows (missing values skipped)."""
    sides = []
    for side, values in (("human", human), ("system", system)):
        array = as_float_array(values, f"scale_with {side} scores")
        array = array[np.isfinite(array)]
        sides.append(Moments.from_arrays(array, array))
    return ScalingState(*sides)


def scaling_from_state(state: ScalingState) -> dict[str, float]:
    """The means and SDs of :func:`scaling_parameters` from its :class:`ScalingState`."""
    params = {}
    for side, moments in (("human", state.human), ("system", state.system)):
        n = int(moments.n[0])
        sd = float(np.sqrt(moments.variance_x()[0])) if n > 1 else np.nan
        if not sd > 0:
            raise InvalidInputError(
                f"Cannot scale: the training {side} scores have {n} numeric values and "
                f"SD {plain(sd)}. Pass a training frame with at least two different {side} scores."
            )
        params[f"{side}_mean"] = float(moments.mean_x[0])
        params[f"{side}_sd"] = sd
    return params


def scale_scores(
    scores, system_mean: float, system_sd: float, human_mean: float, human_sd: float
) -> np.ndarray:
    """Linearly rescale scores: ``(s - system_mean) / system_sd * human_sd + human_mean``.

    Examples
    --------
    >>> from pdmetrics.scoring import scale_scores
    >>> scale_scores([0.1, 0.3], system_mean=0.2, system_sd=0.1, human_mean=3, human_sd=1).round(6).tolist()
    [2.0, 4.0]
    """
    values = as_float_array(scores, "scores")
    return (values - system_mean) / system_sd * human_sd + human_mean


def derived_scores(
    scores,
    trim_min: float,
    trim_max: float,
    trim_tolerance: float = DEFAULT_TRIM_TOLERANCE,
    scaling: Mapping[str, float] | str | None = None,
    name: str = "system",
) -> pd.DataFrame:
    """RSMTool's derived score types of one score column, named ``<name>_trim`` and so on.

    ``scaling``: None (no ``_scale*`` columns), ``"asis"`` (``_scale`` equals the input) or
    the mapping of :func:`scaling_parameters`. The index is the Series' index, if any.
    """
    values = as_float_array(scores, "system")
    index = scores.index if isinstance(scores, pd.Series) else None
    columns = {f"{name}_trim": trim_scores(values, trim_min, trim_max, trim_tolerance)}
    columns[f"{name}_trim_round"] = round_scores(columns[f"{name}_trim"])
    if scaling is not None:
        if isinstance(scaling, str):
            check_scale_with(scaling)
            scaled = values.copy()
        else:
            missing = {"human_mean", "human_sd", "system_mean", "system_sd"} - set(scaling)
            if missing:
                raise InvalidInputError(
                    f"Scaling parameters lack {sorted(missing)}; build them "
                    "with `pdmetrics.scoring.scaling_parameters`."
                )
            scaled = scale_scores(
                values,
                scaling["system_mean"],
                scaling["system_sd"],
                scaling["human_mean"],
                scaling["human_sd"],
            )
        columns[f"{name}_scale"] = scaled
        columns[f"{name}_scale_trim"] = trim_scores(scaled, trim_min, trim_max, trim_tolerance)
        columns[f"{name}_scale_trim_round"] = round_scores(columns[f"{name}_scale_trim"])
    return pd.DataFrame(columns, index=index, copy=False)  # the new arrays, not copied into one block


def check_scale_with(scale_with, human=None):
    """Check RSMTool's ``scale_with`` option: None, ``"asis"``, a training DataFrame or the
    scaling parameters themselves (the mapping :func:`scaling_parameters` returns).

    A training DataFrame needs ``human``, the name of its human score column.
    """
    if isinstance(scale_with, Mapping):
        missing = sorted({"human_mean", "human_sd", "system_mean", "system_sd"} - set(scale_with))
        if missing:
            raise InvalidInputError(
                f"`scale_with=` parameters lack {missing}; build them with "
                "`pdmetrics.scoring.scaling_parameters`."
            )
    elif isinstance(scale_with, pd.DataFrame):
        if human is None:
            raise InvalidInputError(
                "`scale_with=<DataFrame>` needs `human=`: the name of the human score "
                "column in the training frame."
            )
    elif scale_with is not None and not (isinstance(scale_with, str) and scale_with == "asis"):
        shown = (
            type(scale_with).__name__
            if isinstance(scale_with, (pd.Series, np.ndarray))
            else plain(scale_with)
        )
        raise InvalidInputError(
            f"`scale_with={shown!r}`: pass None, 'asis', a training DataFrame with the same "
            "human and system columns, or scaling parameters (`scaling_parameters`)."
        )
    return scale_with


def scaling_from_frame(train: pd.DataFrame, human, system) -> dict[str, float]:
    """Scaling parameters from a training DataFrame's ``human`` and ``system`` columns."""
    check_scale_with(train, human)
    try:
        require_columns(train, "human", human)
        require_columns(train, "system", system)
    except ColumnNotFoundError as error:  # say which frame lacks the column
        raise ColumnNotFoundError(f"In the `scale_with` training frame: {error.args[0]}") from None
    return scaling_parameters(numeric_values(train[human], "human"), numeric_values(train[system], "system"))


@table
def postprocess(
    frame,
    *,
    system,
    trim_min: float,
    trim_max: float,
    trim_tolerance: float = DEFAULT_TRIM_TOLERANCE,
    scale_with=None,
    human=None,
):
    """Add RSMTool's trimmed, rounded and (optionally) scaled score columns.

    Parameters
    ----------
    frame : DataFrame
        The scored responses (pandas; on a dask frame the columns are added lazily, part by
        part; polars frames run the same columns).
    system : str or list of str
        Raw system score column(s) (NaN stays NaN; non-numeric entries become NaN).
    trim_min, trim_max : float
        Lowest and highest score points of the scale.
    trim_tolerance : float, default 0.4998
        Trimmed scores lie in ``[trim_min - trim_tolerance, trim_max + trim_tolerance]``.
    scale_with : {None, "asis"}, DataFrame or mapping, optional
        ``None``: add ``<system>_trim`` and ``<system>_trim_round``. ``"asis"``: the
        scores are already on the human scale; also add ``<system>_scale`` (a copy),
        ``<system>_scale_trim`` and ``<system>_scale_trim_round``. A training DataFrame
        with the same ``human`` and ``system`` columns: scale linearly so that its
        system scores would have its human mean and SD (RSMTool's ``scale_with``; a dask
        training frame's means and SDs come from one pass over it, when the function is
        called). A mapping: those means and SDs themselves (:func:`scaling_parameters`' keys),
        applied to every system column.
    human : str, optional
        Human score column of the training frame; required when ``scale_with`` is a
        DataFrame.

    Returns
    -------
    pandas.DataFrame
        A copy of the frame with the new columns appended, per system column in RSMTool's
        order (existing columns of the same name are replaced). Rounding is half to even;
        rounded columns are float so that missing scores stay NaN.

    Examples
    --------
    >>> import pandas as pd
    >>> import pdmetrics
    >>> df = pd.DataFrame({"sc1": [1, 3, 6], "raw": [0.3, 3.5, 6.8]})
    >>> df.scoring.postprocess(system="raw", trim_min=1, trim_max=6)
       sc1  raw  raw_trim  raw_trim_round
    0    1  0.3    0.5002             1.0
    1    3  3.5    3.5000             4.0
    2    6  6.8    6.4998             6.0

    The function takes the frame first and the accessor's keywords:

    >>> pdmetrics.scoring.postprocess(df, system="raw", trim_min=1, trim_max=6).columns.tolist()
    ['sc1', 'raw', 'raw_trim', 'raw_trim_round']
    """
    names = require_columns(frame, "system", system)
    check_trim_range(trim_min, trim_max, trim_tolerance)
    if isinstance(scale_with, pd.DataFrame) or not _other_frame(scale_with):
        check_scale_with(scale_with, human)
    check_listed_once(names, "system")
    check_flat_names(names, "system", "postprocess (it names new columns after them)")
    if isinstance(scale_with, pd.DataFrame):
        scalings = {name: scaling_from_frame(scale_with, human, name) for name in names}
    elif _other_frame(scale_with):  # a dask training frame: its means and SDs from one pass, now
        found = run_spec(scale_with, _training_scalings, {"human": human, "system": names})
        scalings = dict(zip(names, found))
    else:
        scalings = dict.fromkeys(names, scale_with)
    return NewColumns(names, partial(_derived_columns, names, trim_min, trim_max, trim_tolerance, scalings))


def _other_frame(value) -> bool:
    """Whether ``value`` is a frame of another engine than pandas (a dask training frame)."""
    if value is None or isinstance(value, (pd.DataFrame, Mapping, str)):
        return False
    try:
        engine_of(value)
    except InvalidInputError:
        return False
    return True


def _derived_columns(names: list, trim_min, trim_max, trim_tolerance, scalings: dict, part) -> pd.DataFrame:
    parts = [  # a handful of score columns
        derived_scores(part[name], trim_min, trim_max, trim_tolerance, scalings[name], name=str(name))
        for name in names
    ]
    return pd.concat(parts, axis=1)


def _training_scalings(train, *, human, system: list) -> Table:
    """The scaling parameters of each ``system`` column of a training frame (one pass)."""
    columns = [*require_columns(train, "human", human), *require_columns(train, "system", system)]
    return Table(columns, partial(_scaling_chunk, human, system), _scalings_from_state)


def _scaling_chunk(human, names: list, part) -> Several:
    return Several(scaling_state(part[human], part[name]) for name in names)


def _scalings_from_state(states: Several) -> list:
    return [scaling_from_state(state) for state in states]
