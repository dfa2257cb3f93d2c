"""The score threshold to deploy, per label: the operating point that maximises F1 (or F-beta),
or meets a precision or recall target.

The detections are matched once at one IoU threshold (the matching of :func:`match` and
:func:`pr_curve`): a detection's match never depends on the detections ranked after it, so
the true positives at a score threshold ``t`` are the matched detections scoring at least
``t``. Sorted by label and descending score, the counts at every candidate threshold are
cumulative sums; the chosen one is read off with one sort, for every label at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from pdmetrics._groups import POOLED_LABEL, check_not_pooled
from pdmetrics._table_spec import table
from pdmetrics._tables import attach_info, result_table
from pdmetrics._validation import plain
from pdmetrics._warnings import warn_undefined
from pdmetrics.detection.inputs import BoxColumns, box_columns
from pdmetrics.detection.match_state import BoxTable, Run, box_spec, run_options_of
from pdmetrics.detection.options import one_number
from pdmetrics.errors import InvalidInputError

__all__ = [
    "operating_points",
    "Objective",
    "objective_of",
    "one_iou_threshold",
    "check_one_max_dets",
    "best_points",
]

#: What ``objective=`` accepts, for messages.
OBJECTIVES = '"f1", ("fbeta", beta), {"precision": p} or {"recall": r}'


@dataclass(frozen=True)
class Objective:
    """A checked ``objective=``: ``kind`` is ``"f"`` (maximise F-beta), ``"precision"`` (a
    precision target ``target``: maximise recall) or ``"recall"`` (a recall target: maximise
    precision)."""

    kind: str
    beta: float = 1.0
    target: float = np.nan


def objective_of(objective) -> Objective:
    """Check ``objective=`` (see :func:`operating_points`)."""

    def refuse(why: str = ""):
        raise InvalidInputError(f"`objective={plain(objective)!r}` is not supported{why}: use {OBJECTIVES}.")

    if isinstance(objective, str):
        if objective != "f1":
            refuse()
        return Objective("f")
    if isinstance(objective, tuple) and len(objective) == 2 and objective[0] == "fbeta":
        try:
            beta = one_number(objective[1], "objective")
        except InvalidInputError:
            beta = np.nan
        if not (np.isfinite(beta) and beta > 0):
            refuse(" (beta must be a positive number)")
        return Objective("f", beta=beta)
    if isinstance(objective, Mapping) and len(objective) == 1:
        ((kind, target),) = objective.items()
        if kind in ("precision", "recall"):
            try:
                value = one_number(target, "objective")
            except InvalidInputError:
                value = np.nan
            if not 0 <= value <= 1:
                refuse(f" (the {kind} target must be a number in [0, 1])")
            return Objective(kind, target=value)
    refuse()


def one_iou_threshold(iou_threshold, argument: str = "iou_threshold") -> float:
    """``iou_threshold=`` (or the IoU threshold named ``argument``): one number in [0, 1]."""
    try:
        value = one_number(iou_threshold, argument)
    except InvalidInputError:
        value = np.nan
    if not 0 <= value <= 1:
        raise InvalidInputError(f"`{argument}=` must be one number in [0, 1]; got {plain(iou_threshold)!r}.")
    return value


def check_one_max_dets(max_dets) -> None:
    """``max_dets=``: one limit (checked further by the run options) or ``None``."""
    if max_dets is not None and not np.isscalar(max_dets):
        raise InvalidInputError(
            f"`max_dets=` must be one positive integer or None here; got {plain(max_dets)!r}."
        )


def check_by_label(by) -> None:
    """``by=``: ``"label"`` (a row per label and the pooled row) or ``None`` (the pooled row)."""
    if by not in ("label", None):
        raise InvalidInputError(
            f"`by={plain(by)!r}` is not supported: use by='label' (one row per label plus the pooled "
            f"row {POOLED_LABEL!r}) or by=None (the pooled row only)."
        )


@table
@box_columns()
def operating_points(
    frame: pd.DataFrame,
    *,
    ground_truth: pd.DataFrame,
    columns: BoxColumns,
    iou_threshold=0.5,
    objective="f1",
    by="label",
    max_dets=100,
    area_range=(0.0, 1e10),
    matching: str = "coco",
) -> pd.DataFrame:
    """The score threshold that maximises F1 (or F-beta, or meets a precision/recall target),
    per label and over all labels pooled, with precision, recall, F1 and the counts there.

    A detection counts at threshold ``t`` when its score is at least ``t``; the candidate
    thresholds are the detections' own scores. The detections are matched as by
    :func:`match` at ``iou_threshold`` (a detection matched to an ignored ground truth, a
    crowd, or outside ``area_range``, counts neither as true nor as false positive), so the
    chosen point is a row of :func:`pr_curve` with ``style="valor"`` at that threshold.

    Parameters
    ----------
    {box_inputs}
    iou_threshold : float, default 0.5
        Minimum IoU of a true positive.
    objective : "f1", ("fbeta", beta), {"precision": p} or {"recall": r}
        ``"f1"``: the highest F1 = 2 TP / (2 TP + FP + FN). ``("fbeta", beta)``: the highest
        F-beta = (1 + b²) TP / ((1 + b²) TP + b² FN + FP) (beta > 1 weighs recall more).
        ``{"precision": p}``: among the thresholds with precision at least ``p``, the one with
        the highest recall. ``{"recall": r}``: among those with recall at least ``r``, the
        one with the highest precision.
    by : "label" or None
        One row per label and the pooled row (default), or the pooled row only.
    max_dets : int or None
        Detections kept per image and label, by descending score (``None``: all); the others
        never count, as in :func:`match`.
    area_range : (float, float)
        Ground truths with an area outside are ignored.
    matching : {"coco", "valor"}
        As in :func:`pdmetrics.detection.evaluate`.

    Returns
    -------
    DataFrame
        Columns ``label, iou, N, score_threshold, tp, fp, fn, precision, recall, f1`` (and
        ``fbeta`` for an F-beta objective): one row per label in sorted order, then the row
        ``label="(all)"``, where one threshold applies to every label's detections pooled
        (micro over labels: TP, FP and FN summed over labels, ``N`` the ground truths of
        every label). ``N`` counts the ground truths that are not ignored; ``fn = N - tp``.

        Ties: among thresholds with the same objective value (equal as computed), the highest
        threshold (the fewest detections). A row without a chosen point has NaN
        ``score_threshold``, ``precision``, ``recall`` and F-scores and missing (``<NA>``)
        counts, with an :class:`~pdmetrics.UndefinedMetricWarning`: a label without ground
        truth (``N = 0``: recall is undefined), a label without a counted detection (no
        threshold to choose), or a target no threshold meets.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.detection import operating_points
    >>> gt = pd.DataFrame({"image": [1, 1, 2], "label": [0, 0, 0], "x": [0, 50, 0], "y": 0,
    ...                    "w": 10, "h": 10})
    >>> dt = pd.DataFrame({"image": [1, 1, 1, 2], "label": 0, "x": [0, 90, 50, 0], "y": 0,
    ...                    "w": 10, "h": 10, "score": [0.9, 0.8, 0.3, 0.2]})
    >>> operating_points(dt, ground_truth=gt, by=None).round(3)
       label  iou  N  score_threshold  tp  fp  fn  precision  recall     f1
    0  (all)  0.5  3              0.2   3   1   0       0.75     1.0  0.857
    >>> operating_points(dt, ground_truth=gt, objective={"precision": 0.9}, by=None).round(3)
       label  iou  N  score_threshold  tp  fp  fn  precision  recall   f1
    0  (all)  0.5  3              0.9   1   0   2        1.0   0.333  0.5
    """
    threshold = one_iou_threshold(iou_threshold)
    goal = objective_of(objective)
    check_by_label(by)
    check_one_max_dets(max_dets)
    options = run_options_of(locals(), iou_thresholds=[threshold])
    finish = partial(_operating_points, goal=goal, by=by)
    return box_spec(frame, ground_truth, BoxTable(columns, options, finish))


def best_points(group, score, tp, n_positive, goal: Objective) -> dict:
    """The chosen point of each group (its code ``0..G-1``) from counted detections.

    ``group``, ``score`` and ``tp`` describe the detections that count (true or false
    positives, not ignored), sorted by group, then descending score; ``n_positive`` the
    ground truths of each group. Returns arrays of length ``G``: ``score_threshold`` (NaN
    where none is chosen), ``tp``, ``fp``, and ``chosen`` (a boolean mask).
    """
    n_groups = n_positive.size
    g, s, n = group, score, group.size
    starts = np.searchsorted(g, np.arange(n_groups))  # first detection of each group
    cum_tp = np.cumsum(tp, dtype="int64")
    tps = cum_tp - np.r_[0, cum_tp][starts][g]  # minus the true positives of the groups before
    fps = np.arange(1, n + 1) - starts[g] - tps
    # a candidate threshold: the last detection of each run of one score within a group
    last = np.ones(n, dtype=bool)
    last[:-1] = (g[1:] != g[:-1]) | (s[1:] != s[:-1])
    g, s, tps, fps = g[last], s[last], tps[last], fps[last]
    positives = n_positive[g]
    b2 = goal.beta**2
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = tps / (tps + fps)
        recall = tps / positives
        f = (1 + b2) * tps / ((1 + b2) * tps + b2 * (positives - tps) + fps)
    if goal.kind == "f":
        value, eligible = f, positives > 0
    elif goal.kind == "precision":
        value, eligible = recall, (positives > 0) & (precision >= goal.target)
    else:
        value, eligible = precision, (positives > 0) & (recall >= goal.target)
    # per group: the highest value, then the highest threshold (the first in descending order)
    value = np.where(eligible, value, -np.inf)
    out = {
        "score_threshold": np.full(n_groups, np.nan),
        "tp": np.zeros(n_groups, dtype="int64"),
        "fp": np.zeros(n_groups, dtype="int64"),
        "chosen": np.zeros(n_groups, dtype=bool),
    }
    if not eligible.any():
        return out
    present = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])  # first candidate of each group present
    best = np.maximum.reduceat(value, present)
    sizes = np.diff(np.r_[present, g.size])
    at_best = eligible & (value == np.repeat(best, sizes))
    pick = np.minimum.reduceat(np.where(at_best, np.arange(g.size), g.size), present)
    pick = pick[pick < g.size]
    out["chosen"][g[pick]] = True
    out["score_threshold"][g[pick]] = s[pick]
    out["tp"][g[pick]] = tps[pick]
    out["fp"][g[pick]] = fps[pick]
    return out


def _operating_points(result: Run, goal: Objective, by) -> pd.DataFrame:
    labels = result.data.labels
    check_not_pooled(labels, "label")
    m, data = result.matches, result.data
    n_lab = labels.size
    counted = ~m.ignored[0, 0]
    det = m.det[counted]  # in ranking order: by label, then descending score
    label = data.dt_label[det]
    score = data.dt_score[det]
    tp = m.tp[0, 0][counted]
    positives = m.n_positive[0].astype("int64")
    # groups 0..K-1: the labels; group K: every detection pooled (one threshold for all labels)
    pooled = np.argsort(-score, kind="stable")
    group = np.r_[label, np.full(label.size, n_lab)]
    n_positive = np.r_[positives, positives.sum()]
    points = best_points(group, np.r_[score, score[pooled]], np.r_[tp, tp[pooled]], n_positive, goal)
    chosen = points["chosen"]
    tps, fps = points["tp"], points["fp"]
    fns = n_positive - tps
    b2 = goal.beta**2
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(chosen, tps / np.maximum(tps + fps, 1), np.nan)
        recall = np.where(chosen, tps / np.maximum(n_positive, 1), np.nan)
        f1 = np.where(chosen, 2 * tps / np.maximum(2 * tps + fps + fns, 1), np.nan)
        fbeta = np.where(chosen, (1 + b2) * tps / ((1 + b2) * tps + b2 * fns + fps), np.nan)

    def count(values: np.ndarray) -> pd.Series:
        return pd.Series(values, dtype="Int64").mask(~chosen)

    columns = {
        "label": pd.Series([*labels.tolist(), POOLED_LABEL], dtype=object),
        "iou": np.full(n_lab + 1, float(m.iou_thresholds[0])),
        "N": n_positive,
        "score_threshold": points["score_threshold"],
        "tp": count(tps),
        "fp": count(fps),
        "fn": count(fns),
        "precision": precision,
        "recall": recall,
        "f1": f1,
    }
    if goal.kind == "f" and goal.beta != 1:
        columns["fbeta"] = fbeta
    table = result_table(columns, integer_columns=["N"])
    _warn_unchosen(table, chosen, n_positive, np.bincount(group, minlength=n_lab + 1), goal)
    if by is None:
        table = table.iloc[[-1]].reset_index(drop=True)
    return attach_info(
        table,
        objective=goal.kind,
        beta=goal.beta,
        target=goal.target,
        n_ground_truth=data.n_gt,
        n_detections=data.n_dt,
        matching=result.options.matching,
    )


def _warn_unchosen(table: pd.DataFrame, chosen, n_positive, n_counted, goal: Objective) -> None:
    """One warning naming the rows without a chosen point, and why."""
    if chosen.all():
        return
    labels = table["label"].to_numpy()
    reasons = []
    for what, mask in (
        ("no ground truth (N = 0)", ~chosen & (n_positive == 0)),
        ("no counted detection", ~chosen & (n_positive > 0) & (n_counted == 0)),
        (
            f"no threshold meeting the {goal.kind} target {goal.target:g}",
            ~chosen & (n_positive > 0) & (n_counted > 0),
        ),
    ):
        if mask.any():
            shown = ", ".join(repr(plain(v)) for v in labels[mask][:5]) + (", ..." if mask.sum() > 5 else "")
            reasons.append(f"{what}: {shown}")
    warn_undefined(
        "No operating point for some rows (score_threshold and the ratios NaN, counts <NA>): "
        + "; ".join(reasons)
        + "."
    )
