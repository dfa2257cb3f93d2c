"""Which keypoints (joints) a pose model misses most: the per-keypoint similarity of its matches.

Poses are matched as ``evaluate(iou_type="keypoints")`` matches them (COCO's greedy matching
by OKS, at one threshold, one area range and a per-image limit). For every true positive and
every keypoint its ground truth labels (``v > 0``), the keypoint's own similarity
``exp(-d² / (2 s² κ²))`` (the term OKS averages: ``s²`` the ground truth's area, ``κ = 2 σ``)
is summed, and counted as *localised* when it reaches the threshold itself. The state is
additive (sums per label and keypoint), so every engine gives the same table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from pdmetrics._groups import POOLED_LABEL, check_not_pooled
from pdmetrics._table_spec import table
from pdmetrics._tables import attach_info, result_table
from pdmetrics._validation import plain, preview
from pdmetrics.detection.inputs import BoxColumns, box_columns
from pdmetrics.detection.match_state import (
    RunOptions,
    aligned_ids,
    box_spec,
    check_ground_truth_or_images,
    matched_boxes,
    run_options_of,
)
from pdmetrics.detection.oks import keypoint_similarities
from pdmetrics.detection.options import COCO_ATTRS, one_number
from pdmetrics.errors import InvalidInputError

__all__ = ["keypoint_similarity"]


@dataclass(frozen=True)
class JointState:
    """Sums per label (``labels``, sorted ids) and keypoint: matched pairs ``(L,)``, labelled
    keypoints, their similarities and those localised ``(L, K)``; ``n_gt`` ground truths seen."""

    labels: np.ndarray
    pairs: np.ndarray
    labelled: np.ndarray
    similarity: np.ndarray
    localised: np.ndarray
    n_gt: int
    n_images: int

    def combine(self, *others: JointState) -> JointState:
        states = (self, *others)
        labels, codes = aligned_ids([s.labels for s in states], "label")
        k = max(s.labelled.shape[1] for s in states)
        pairs = np.zeros(labels.size, dtype="int64")
        sums = {name: np.zeros((labels.size, k)) for name in ("labelled", "similarity", "localised")}
        for state, code in zip(states, codes):
            np.add.at(pairs, code, state.pairs)
            for name, total in sums.items():
                if state.labels.size:
                    np.add.at(total, code, getattr(state, name))
        return JointState(
            labels, pairs, **sums, n_gt=sum(s.n_gt for s in states), n_images=sum(s.n_images for s in states)
        )


@dataclass(frozen=True)
class JointTable:
    """The keypoint table's chunk and finalize (run through :func:`box_spec`)."""

    columns: BoxColumns
    options: RunOptions
    threshold: float
    names: object

    def chunk(self, detections, ground_truth, dt_rows=None, gt_rows=None) -> JointState:
        data = self.columns.prepare(detections, ground_truth, partition=dt_rows is not None)
        data, _, m = matched_boxes(data, self.options)
        tp = m.tp[0, 0]
        det, gt = m.det[tp], m.gt_match[0, 0][tp]
        k = data.sigmas.size
        similarity, labelled = keypoint_similarities(
            data.dt_keypoints[det], data.gt_keypoints[gt], data.gt_xywh(gt), data.gt_area[gt], data.sigmas
        )
        label = data.dt_label[det]
        n_labels = data.labels.size

        def per_label(values):
            out = np.zeros((n_labels, k))
            np.add.at(out, label, values)
            return out

        return JointState(
            labels=np.asarray(data.labels),
            pairs=np.bincount(label, minlength=n_labels).astype("int64"),
            labelled=per_label(labelled),
            similarity=per_label(np.where(labelled, similarity, 0.0)),
            localised=per_label(labelled & (similarity >= self.threshold)),
            n_gt=data.n_gt,
            n_images=int(data.images.size),
        )

    def finalize(self, state: JointState) -> pd.DataFrame:
        check_ground_truth_or_images(state.n_gt, self.columns, state.n_images)
        k = state.labelled.shape[1] if state.labelled.ndim == 2 else 0
        names = _keypoint_names(self.names, k)
        check_not_pooled(state.labels, "label")
        labels = [*state.labels.tolist(), POOLED_LABEL]
        pairs = np.r_[state.pairs, state.pairs.sum()]
        sums = {
            name: np.vstack([getattr(state, name), getattr(state, name).sum(axis=0, keepdims=True)])
            for name in ("labelled", "similarity", "localised")
        }
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(sums["labelled"] > 0, sums["similarity"] / sums["labelled"], np.nan)
            share = np.where(sums["labelled"] > 0, sums["localised"] / sums["labelled"], np.nan)
        table = result_table(
            {
                "label": pd.Series(np.repeat(np.asarray(labels, dtype=object), k), dtype=object),
                "keypoint": np.tile(np.asarray(names, dtype=object), len(labels)),
                "n_pairs": np.repeat(pairs, k),
                "n_labelled": sums["labelled"].reshape(-1),
                "similarity": mean.reshape(-1),
                "localised": share.reshape(-1),
            },
            integer_columns=["n_pairs", "n_labelled"],
        )
        return attach_info(table, oks_threshold=self.threshold, max_dets=self.options.max_dets[-1])


def _keypoint_names(names, k: int) -> list:
    if names is None:
        return [str(j) for j in range(k)]
    if len(names) != k:
        raise InvalidInputError(
            f"`keypoint_names=` has {len(names)} names but the keypoints hold K={k} per row; pass one "
            f"name per keypoint."
        )
    shown = [str(n) for n in names]
    twice = sorted({n for n in shown if shown.count(n) > 1})  # K names, not rows
    if twice:
        raise InvalidInputError(
            f"`keypoint_names=` names {preview(twice, 5)} more than once (as text), so their rows "
            f"could not be told apart; pass K different names."
        )
    return shown


def _names_of_file(ground_truth, given):
    """``keypoint_names`` given, else the names a :func:`~pdmetrics.io.read_coco` file gives every
    category alike (``None`` when it has none, or different ones per category)."""
    if given is not None:
        if isinstance(given, str) or not hasattr(given, "__len__"):
            raise InvalidInputError(f"`keypoint_names=` must be a list of names; got {plain(given)!r}.")
        return list(given)
    roles = getattr(ground_truth, "attrs", {}).get(COCO_ATTRS)
    named = roles.get("keypoint_names") if isinstance(roles, Mapping) else None
    distinct = {tuple(v) for v in named.values()} if named else set()
    names = list(distinct.pop()) if len(distinct) == 1 else None
    # a file naming two keypoints alike: numbered instead, as a file without names
    return names if names is not None and len(set(map(str, names))) == len(names) else None


@table
@box_columns(without=("iou_type", "segmentation", "image_sizes"))
def keypoint_similarity(
    frame: pd.DataFrame,
    *,
    ground_truth: pd.DataFrame,
    columns: BoxColumns,
    oks_threshold: float = 0.5,
    max_dets=20,
    area_range=(0.0, 1e10),
    keypoint_names=None,
) -> pd.DataFrame:
    """Per label and keypoint: how close the matched poses' keypoints are (which joints miss most).

    Poses are matched as by :func:`pdmetrics.detection.evaluate` with ``iou_type="keypoints"``
    (COCO's greedy matching by OKS) at ``oks_threshold``. Over the true positives, for each
    keypoint the ground truth labels (``v > 0``): the mean of its similarity
    ``exp(-d² / (2 s² κ²))`` (the term OKS averages; ``d`` the distance, ``s²`` the ground
    truth's area, ``κ = 2 σ``), and the share of those whose similarity reaches
    ``oks_threshold`` (localised).

    Parameters
    ----------
    {box_inputs}
    oks_threshold : float
        The OKS a detection needs to match, and a keypoint's similarity to count as localised.
    max_dets : int or None
        Detections kept per image and label, by descending score (pycocotools' 20 for
        keypoints); ``None``: no limit.
    area_range : (float, float)
        Ground truths whose area lies outside are ignored (as in ``evaluate``).
    keypoint_names : list of str, optional
        One name per keypoint; default the names of a :func:`pdmetrics.io.read_coco` file's
        categories, else ``"0"``, ``"1"``, ...

    Returns
    -------
    DataFrame
        One row per label and keypoint, then per keypoint over every label (label
        ``"(all)"``): ``label, keypoint, n_pairs`` (true-positive pairs), ``n_labelled``
        (their labelled keypoints), ``similarity`` (mean), ``localised`` (share). NaN where
        no matched ground truth labels the keypoint.

    Examples
    --------
    >>> import pandas as pd
    >>> from pdmetrics.detection import keypoint_similarity
    >>> gt = pd.DataFrame({"image": [1, 2], "label": [1, 1], "x": [0, 0], "y": [0, 0],
    ...                    "w": [20, 20], "h": [20, 20], "keypoints": [[5, 5, 2, 15, 15, 2]] * 2})
    >>> dt = pd.DataFrame({"image": [1, 2], "label": [1, 1], "score": [0.9, 0.8],
    ...                    "keypoints": [[5, 5, 1, 15, 16, 1], [5, 6, 1, 15, 21, 1]]})
    >>> keypoint_similarity(dt, ground_truth=gt, sigmas=[0.1, 0.1], keypoint_names=["head", "foot"]).round(3)
       label keypoint  n_pairs  n_labelled  similarity  localised
    0      1     head        2           2       0.985        1.0
    1      1     foot        2           2       0.647        0.5
    2  (all)     head        2           2       0.985        1.0
    3  (all)     foot        2           2       0.647        0.5
    """
    threshold = one_number(oks_threshold, "oks_threshold")
    if not 0 <= threshold <= 1:
        raise InvalidInputError(f"`oks_threshold=` must be in [0, 1]; got {plain(oks_threshold)!r}.")
    if max_dets is not None and not np.isscalar(max_dets):
        raise InvalidInputError(
            f"`max_dets=` must be one positive integer or None here; got {plain(max_dets)!r}."
        )
    options = run_options_of({"iou_thresholds": [threshold], "max_dets": max_dets, "area_range": area_range})
    names = _names_of_file(ground_truth, keypoint_names)
    columns = replace(columns, iou_type="keypoints")
    return box_spec(frame, ground_truth, JointTable(columns, options, threshold, names))
