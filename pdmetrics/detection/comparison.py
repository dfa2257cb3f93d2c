"""Is detector B better than detector A? Several systems' detections compared on the same images.

The detections of every system sit in one table, a column naming the system of each row;
every system is evaluated against the same ground truth, so the comparison is *paired* by
image. For each pair of systems the table gives COCO's AP, AP50, AP75 and AR (the values of
:func:`~pdmetrics.detection.evaluate` for each system alone) and the AP of every label, the
difference (``system - baseline``), its interval and the p-value of "no difference", from the
image-level paired Poisson bootstrap:

- each image gets a Poisson(1) weight per resample, from ``random_state`` and its id only
  (:func:`~pdmetrics._resampling.key_buckets`), so pandas, dask and polars give the same
  intervals; every detection and ground truth of an image carries the image's weight, in both
  systems;
- the matching does not depend on the weights, so every system's detections are matched once
  (by the code behind ``evaluate``); a resample's AP is COCO's 101-point interpolated AP of the
  weighted counts: ranked by score as ``evaluate`` ranks them, each detection counts as many
  true or false positives as its image's weight, each ground truth as many positives;
- all the resamples of a block are one (detections x resamples) array: the weighted true
  positives so far are cumulative sums down it (restarting at every label), the detections
  ranked before each true positive one sparse product of the weights with the (gap, image
  bucket) counts, the recall points each true positive reaches a look-up in the counts that
  reach them (``first_count_reaching``, as ``accumulate`` reads them), and the best precision
  at each of COCO's 101 recall points a maximum scattered on (recall points reached, resample,
  label), then over the points reached from each point on: no loop over images, detections or
  resamples (one over the IoU thresholds, as COCO's accumulation has, and one over blocks of
  resamples, which bounds the memory);
- the interval is the percentile interval of the resampled differences, its ends the
  ``(B + 1) * alpha``-th smallest and largest (:data:`~pdmetrics._resampling.ORDER_STATISTIC`),
  the p-value the centred bootstrap p-value (:func:`~pdmetrics._resampling.bootstrap_p_value`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from pdmetrics._comparison import (
    COMPARISON_OPTIONS,
    compared_pairs,
    comparison_settings,
    comparison_table,
)
from pdmetrics._docstrings import fill
from pdmetrics._groups import POOLED_LABEL, check_not_pooled
from pdmetrics._resampling import (
    key_buckets,
    paired_interval,
    poisson_weights,
    resampled_sums,
)
from pdmetrics._table_spec import table
from pdmetrics._validation import plain, require_columns
from pdmetrics._warnings import warn_undefined
from pdmetrics.detection.coco import COCO_RECALL_THRESHOLDS, first_count_reaching
from pdmetrics.detection.evaluation import fill_missing_labels
from pdmetrics.detection.inputs import BoxColumns, box_columns
from pdmetrics.detection.match_state import (
    MatchState,
    Run,
    RunOptions,
    aligned_ids,
    box_spec,
    keep_detections,
    match_state,
    row_arrays,
    run_from_state,
    run_options_of,
)
from pdmetrics.detection.matching import match_boxes
from pdmetrics.detection.options import LABELS_WITHOUT_GT, check_choice
from pdmetrics.errors import InvalidInputError

__all__ = ["compare"]

#: The overall metrics compared (those whose IoU threshold is among ``iou_thresholds``), in order.
METRICS = ("AP", "AP50", "AP75", "AR")
_SPECIAL = {"AP50": 0.5, "AP75": 0.75}

# cells of one detections x resamples block (float64: 16 MB)
_BLOCK_CELLS = 2**21


# ----------------------------------------------------------------------------------------------
# the state: every system's matches of a chunk of images, and the chunk's positives
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ComparisonState:
    """The matches of one chunk of images: ``systems`` maps each system to its
    :class:`~pdmetrics.detection.match_state.MatchState` (what ``evaluate`` keeps of the system's
    detections); ``standin`` is the state of a system without detections in the chunk (its
    ground truth only), which stands for a system absent from the chunk when chunks combine;
    ``positive_images`` / ``positive_labels`` the image and label of each ground truth counted
    as a positive (not a crowd, not ignored, in the area range)."""

    standin: MatchState
    systems: dict
    positive_images: np.ndarray
    positive_labels: np.ndarray

    def combine(self, *others: ComparisonState) -> ComparisonState:
        states = (self, *others)
        standin = self.standin.combine(*(s.standin for s in others))  # refuses mixed id types first
        names = dict.fromkeys(name for s in states for name in s.systems)
        systems = {}
        for name in names:
            first, *rest = (s.systems.get(name, s.standin) for s in states)
            systems[name] = first.combine(*rest)
        return ComparisonState(
            standin,
            systems,
            np.concatenate([s.positive_images for s in states]),
            np.concatenate([s.positive_labels for s in states]),
        )


@dataclass(frozen=True)
class ComparisonTable:
    """The comparison of the systems of column ``system`` (see :func:`compare`): a box table
    that :func:`~pdmetrics.detection.match_state.box_spec` keys on the image."""

    columns: BoxColumns
    options: RunOptions
    system: object
    systems: list | None
    settings: dict

    def chunk(self, detections, ground_truth, dt_rows=None, gt_rows=None) -> ComparisonState:
        """Every system's matches in a chunk holding every box of its images."""
        columns, options = self.columns, self.options
        values = detections[self.system]
        missing = values.isna().to_numpy()
        if missing.any():
            raise InvalidInputError(
                f"`system={self.system!r}` has missing values (row {int(np.flatnonzero(missing)[0])}); "
                f"every detection needs the name of its system."
            )
        # every box checked once, in the caller's rows (a system's rows are checked again below)
        data = columns.prepare(detections, ground_truth, partition=dt_rows is not None)
        ground = match_boxes(
            keep_detections(data, np.zeros(data.n_dt, dtype=bool)),
            options.iou_thresholds,
            options.area_bounds,
            max(options.max_dets),
            matching=options.matching,
        )
        positive = ~ground.gt_ignored[0]
        part, pos = row_arrays(dt_rows, len(detections))
        none = np.zeros(0, dtype="int64")
        standin = match_state(
            detections.iloc[:0], ground_truth, columns, options, dt_rows=(none, none), gt_rows=gt_rows
        )
        codes, names = pd.factorize(values.to_numpy(dtype=object))
        systems = {}
        for code, name in enumerate(names.tolist()):  # one matching per system
            if self.systems is not None and name not in self.systems:
                continue
            rows = codes == code
            systems[name] = match_state(
                detections[rows],
                ground_truth,
                columns,
                options,
                dt_rows=(part[rows], pos[rows]),
                gt_rows=gt_rows,
            )
        return ComparisonState(
            standin,
            systems,
            data.images[data.gt_image[positive]],
            data.labels[data.gt_label[positive]],
        )

    def finalize(self, state: ComparisonState) -> pd.DataFrame:
        return _comparison_from_state(state, self)


# ----------------------------------------------------------------------------------------------
# the table
# ----------------------------------------------------------------------------------------------
@table
@fill(comparison_options=COMPARISON_OPTIONS)
@box_columns()
def compare(
    frame: pd.DataFrame,
    *,
    ground_truth: pd.DataFrame,
    system,
    systems=None,
    columns: BoxColumns,
    iou_thresholds=None,
    max_dets=100,
    area_range=(0.0, 1e10),
    matching: str = "coco",
    interpolation: str = "coco",
    labels_without_ground_truth: str = "exclude",
    pairs: str = "baseline",
    correction=None,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    random_state=12345,
) -> pd.DataFrame:
    """Is detector B better than baseline A? COCO's AP, AP50, AP75, AR and the per-label AP of
    several systems compared on the same images, with paired bootstrap intervals and p-values.

    Parameters
    ----------
    frame : DataFrame
        The detections of every system: one row per detected box, with the column ``system``
        naming the system that made it (pandas; dask and polars frames run the same table and
        give the same numbers for the same ``random_state``).
    ground_truth : DataFrame
        The ground-truth boxes, shared by every system (as in :func:`evaluate`).
    system : str
        The column of ``frame`` holding each detection's system (e.g. ``"model"``).
    systems : list, optional
        The systems compared, the baseline first (detections of other systems are left out).
        Default: every system of the column, in sorted order (the first is the baseline).
    {box_columns}
    iou_thresholds : sequence of float, optional
        Default COCO's ten (0.50:0.95). AP50 and AP75 are compared when 0.5 and 0.75 are among them.
    max_dets : int or None, default 100
        Detections kept per image and label, by descending score (AP and AR both use it: with
        100, AR is pycocotools' ``stats[8]``); None for no limit.
    area_range : (float, float), default (0, 1e10)
        Ground truths with an area outside it are ignored (COCO's "all" range by default).
    matching, interpolation, labels_without_ground_truth
        As in :func:`evaluate`.
    {comparison_options}
    random_state : int, numpy.random.Generator or None, default 12345
        Seed of the images' bootstrap weights (None: fresh entropy, so the intervals change per call).

    Returns
    -------
    DataFrame
        Columns ``label, metric, baseline, system, N, baseline_value, system_value, difference,
        ci_low, ci_high, p_value, p_adjusted, test``. Per pair of systems: the rows
        ``label="(all)"`` for ``AP``, ``AP50``, ``AP75`` and ``AR`` (the numbers of
        :func:`evaluate` for each system alone, ``AR`` at ``max_dets``), then one ``AP`` row per
        label with ground truth, in sorted label order (the ``AP`` column of
        :func:`average_precision`). ``N`` counts the images (the resampled units: every image of
        the ground truth, of any system's detections and of ``images``); ``difference`` is
        ``system_value - baseline_value``, ``ci_low``/``ci_high`` its percentile interval (the
        ``(B + 1) * alpha``-th smallest and largest of the ``B`` resampled differences),
        ``p_value`` the centred bootstrap p-value of no difference; ``test`` is
        ``"paired_bootstrap"``.

    Notes
    -----
    In a resample each image counts as many times as its Poisson(1) weight, in both systems:
    its ground truths as that many positives, each of its detections as that many true or false
    positives, at the detection's rank: the AP of the images repeated as often as their weights
    (when scores are distinct; on a tie within an image the copies of a detection stay
    together). The labels averaged over stay those of the data; a label
    without a positive in a resample is left out of that resample's means (or counted as 0 with
    ``labels_without_ground_truth="zero"``), and its AP is NaN there (percentile intervals and
    p-values skip such resamples). Images whose ids hash to the same one of 65,536 buckets share
    their weights.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import pdmetrics
    >>> rng = np.random.default_rng(0)
    >>> gt = pd.DataFrame({"image": np.repeat(np.arange(40), 2), "label": ["cat", "dog"] * 40,
    ...                    "x": 10.0, "y": 10.0, "w": 50.0, "h": 50.0})
    >>> def detector(name, noise):
    ...     shift = rng.normal(0, noise, len(gt))
    ...     return gt.assign(x=gt["x"] + shift, score=rng.uniform(0, 1, len(gt)), model=name)
    >>> dt = pd.concat([detector("old", 12.0), detector("new", 4.0)], ignore_index=True)
    >>> table = dt.detection.compare(ground_truth=gt, system="model", systems=["old", "new"],
    ...                              n_resamples=200)
    >>> table[["label", "metric", "baseline_value", "system_value", "ci_low", "ci_high", "p_value"]].round(3)
       label metric  baseline_value  system_value  ci_low  ci_high  p_value
    0  (all)     AP           0.329         0.722   0.275    0.491    0.005
    1  (all)   AP50           0.786         1.000   0.102    0.337    0.005
    2  (all)   AP75           0.232         0.849   0.407    0.773    0.005
    3  (all)     AR           0.475         0.795   0.226    0.422    0.005
    4    cat     AP           0.311         0.716   0.218    0.545    0.005
    5    dog     AP           0.347         0.728   0.237    0.511    0.005
    """
    if isinstance(system, (list, tuple, set, dict, pd.Index, np.ndarray)):
        raise InvalidInputError(
            f"`system=` names the one column holding each detection's system; got {plain(system)!r}. "
            f"Stack the systems' detections into one frame with that column first, e.g. "
            f"`pd.concat([a.assign(model='a'), b.assign(model='b')])`."
        )
    require_columns(frame, "system", system)
    if systems is not None:
        if isinstance(systems, (str, bytes)) or not pd.api.types.is_list_like(systems):
            raise InvalidInputError(
                f"`systems={plain(systems)!r}` must list the systems compared, the baseline first, "
                f"e.g. `systems=['old', 'new']`."
            )
        systems = list(systems)
        if len(set(systems)) != len(systems):
            raise InvalidInputError(f"`systems={plain(systems)!r}` names a system twice; name each once.")
    check_choice(labels_without_ground_truth, "labels_without_ground_truth", LABELS_WITHOUT_GT)
    settings = comparison_settings(pairs, correction, n_resamples, confidence, random_state)
    if systems is not None:
        compared_pairs(systems, pairs, "systems")
    if max_dets is not None and not np.isscalar(max_dets):
        raise InvalidInputError(
            f"`max_dets=` must be one positive integer or None here; got {plain(max_dets)!r}."
        )
    options = run_options_of(locals())
    settings["labels_without_ground_truth"] = labels_without_ground_truth
    spec = box_spec(frame, ground_truth, ComparisonTable(columns, options, system, systems, settings))
    return replace(spec, columns=[*spec.columns, system])


# ----------------------------------------------------------------------------------------------
# the finalize step
# ----------------------------------------------------------------------------------------------
def _system_names(state: ComparisonState, spec: ComparisonTable) -> list:
    """The systems compared, the baseline first."""
    found = list(state.systems)
    if spec.systems is not None:
        absent = [name for name in spec.systems if name not in state.systems]
        if absent:
            raise InvalidInputError(
                f"`systems=` names {plain(absent[0])!r}, which has no detection in column "
                f"`system={spec.system!r}`; that column holds {plain(sorted(found, key=repr))!r}."
            )
        return list(spec.systems)
    if len(found) < 2:
        raise InvalidInputError(
            f"Column `system={spec.system!r}` holds {len(found)} system"
            f"{'' if len(found) == 1 else 's'} ({plain(found)!r}); a comparison needs the detections "
            f"of two or more systems in that column."
        )
    try:
        return sorted(found)
    except TypeError:
        raise InvalidInputError(
            f"Column `system={spec.system!r}` mixes value types ({plain(found)!r}), which have no "
            f"order: pass `systems=[...]` to name the systems, the baseline first."
        ) from None


@dataclass(frozen=True)
class Threshold:
    """One system's matches at one IoU threshold, in ranking order: each true positive's row
    among the gaps (``gap``), label and image bucket, where each label's run of them starts
    (``starts``); the ignored detections' buckets and runs, and per true positive the last
    ignored detection ranked before it in its label (``before``, an index into them; -1 for
    none)."""

    gap: np.ndarray
    label: np.ndarray
    bucket: np.ndarray
    starts: np.ndarray
    ignored_bucket: np.ndarray
    ignored_starts: np.ndarray
    before: np.ndarray


@dataclass(frozen=True)
class Ranked:
    """One system's matched detections in ranking order, all that does not depend on the
    weights. ``gaps``: a sparse (gaps x buckets) count matrix, a gap being the detections of a
    label ranked after one true positive (at any IoU threshold) up to the next one, with the
    image bucket of each; ``starts``: where each label's run of gaps starts; ``thresholds``:
    the matches at every IoU threshold (:class:`Threshold`)."""

    gaps: object
    starts: np.ndarray
    thresholds: list


def _runs(labels: np.ndarray) -> np.ndarray:
    """Where each run of equal (sorted) labels starts."""
    return np.flatnonzero(np.r_[True, labels[1:] != labels[:-1]]) if labels.size else np.zeros(0, np.intp)


def _ranked(run: Run, label_codes: np.ndarray, image_bucket: np.ndarray, n_buckets: int) -> Ranked:
    from scipy.sparse import csr_matrix

    det = run.matches.det
    label = label_codes[run.data.dt_label[det]]
    bucket = image_bucket[run.data.dt_image[det]]
    # every detection belongs to the gap ending at the next true positive of its label
    ends = np.flatnonzero(run.matches.tp[0].any(axis=0))
    gap = np.searchsorted(ends, np.arange(det.size))
    inside = np.r_[label[ends], -1][gap] == label
    gaps = csr_matrix(
        (np.ones(int(inside.sum()), dtype=np.int32), (gap[inside], bucket[inside])),
        shape=(ends.size, n_buckets),
    )
    thresholds = []
    for tp_row, ignored_row in zip(run.matches.tp[0], run.matches.ignored[0]):
        tp, ignored = np.flatnonzero(tp_row), np.flatnonzero(ignored_row)
        before = np.searchsorted(ignored, tp) - 1
        same = (before >= 0) & (np.r_[label[ignored], -1][before] == label[tp])
        thresholds.append(
            Threshold(
                gap=np.searchsorted(ends, tp),
                label=label[tp],
                bucket=bucket[tp],
                starts=_runs(label[tp]),
                ignored_bucket=bucket[ignored],
                ignored_starts=_runs(label[ignored]),
                before=np.where(same, before, -1),
            )
        )
    return Ranked(gaps, _runs(label[ends]), thresholds)


def _within_runs(values: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative sums down the columns of ``values`` (integers, overwritten) restarting at
    each run start, and each run's sum ``(runs, columns)``: exact."""
    if not starts.size:
        return values, np.zeros((0, values.shape[1]), dtype=values.dtype)
    sums = np.add.reduceat(values, starts, axis=0)
    values[starts[1:]] -= sums[:-1]  # the running sum restarts at every run
    np.cumsum(values, axis=0, dtype=values.dtype, out=values)
    return values, sums


_POINTS = COCO_RECALL_THRESHOLDS


def _points_reached(positives: np.ndarray, interpolation: str) -> tuple[np.ndarray, np.ndarray]:
    """How many recall points ``k`` true positives reach, for every ``k`` from 0 to each
    (resample, label)'s positives ``p``: a table of the ``p + 1`` values of every (resample,
    label) one after the other, and where each starts ``(b, labels)``. From
    :func:`~pdmetrics.detection.coco.first_count_reaching`, the counts ``accumulate`` reads."""
    p = positives.astype(np.int64).ravel()
    first = first_count_reaching(p, _POINTS, interpolation)  # (points, b * labels)
    sizes = p + 1
    start = np.cumsum(sizes) - sizes
    reached = first <= p  # a point reached by some count up to p
    steps = np.bincount((start + first)[reached], minlength=int(sizes.sum())).astype(np.int32)
    steps[start[1:]] -= reached.sum(axis=0)[:-1].astype(np.int32)  # every table counts from 0
    return np.cumsum(steps, dtype=np.int32), start.reshape(positives.shape)


def weighted_precision(
    ranked: Ranked, weights: np.ndarray, positives: np.ndarray, n_labels: int, interpolation: str = "coco"
) -> tuple[np.ndarray, np.ndarray]:
    """COCO's interpolated precision and recall of every resample of a block of weights.

    ``weights``: each bucket's weight (a count) in each resample, ``(buckets, b)``;
    ``positives``: each resample's weighted positives per label ``(b, n_labels)``. Returns
    the precision at the 101 recall points ``(T, 101, b, n_labels)`` and the recall ``(T, b,
    n_labels)`` (0 for labels without positives: the caller masks them). With every weight 1
    they are :func:`~pdmetrics.detection.coco.accumulate`'s, bit for bit.

    Arrays are (detections x resamples): the true positives' cumulative weighted counts are
    cumulative sums down the columns, the detections counted before each true positive one
    sparse product (the gaps' weighted sizes), the recall points each reaches a look-up, and
    the best precision at each recall point a maximum scattered on (recall points reached,
    resample, label), then taken over the points reached from each point on.
    """
    b = weights.shape[1]
    points = _POINTS.size
    w = np.ascontiguousarray(weights, dtype=np.int32)
    # the detections counted so far in their label (true, false and ignored positives) at each gap's end
    so_far, _ = _within_runs(np.asarray(ranked.gaps @ w, dtype=np.int32), ranked.starts)
    reached, table_start = _points_reached(positives, interpolation)
    table_start = np.ascontiguousarray(table_start.T)  # (labels, b)
    divisor = np.ascontiguousarray(np.maximum(positives, 1.0).T)  # no positive: no true positive
    cell = np.arange(b) * n_labels  # (resample, label) cells, resample-major
    precision = np.zeros((len(ranked.thresholds), points, b, n_labels))
    recall = np.zeros((len(ranked.thresholds), b, n_labels))
    for t, th in enumerate(ranked.thresholds):  # the IoU thresholds, as COCO's accumulation loops
        k, found = _within_runs(w[th.bucket], th.starts)  # the weighted true positives so far
        counted = so_far[th.gap]
        if th.ignored_bucket.size:  # ignored detections count neither way
            skipped, _ = _within_runs(w[th.ignored_bucket], th.ignored_starts)
            counted -= np.r_[skipped, np.zeros((1, b), skipped.dtype)][th.before]
        with np.errstate(invalid="ignore", divide="ignore"):
            if interpolation == "coco":
                pr = k / (counted + np.spacing(1))
            else:
                pr = np.where(k > 0, k / counted, 0.0)
        points_of = reached[table_start[th.label] + k]  # recall points each true positive reaches
        best = np.zeros((points + 1) * b * n_labels)
        np.maximum.at(best, (points_of * (b * n_labels) + (th.label[:, None] + cell)).ravel(), pr.ravel())
        best = best.reshape(points + 1, b, n_labels)
        # the best precision at a recall point: over every true positive reaching it
        precision[t] = np.maximum.accumulate(best[::-1], axis=0)[::-1][1:]
        if th.starts.size:
            present = th.label[th.starts]
            recall[t][:, present] = (found / divisor[present]).T
    return precision, recall


def _mean_over(values: np.ndarray, axes) -> np.ndarray:
    """The mean of the defined (not NaN) values over ``axes``; NaN when none is."""
    defined = ~np.isnan(values)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(defined, values, 0.0).sum(axis=axes) / defined.sum(axis=axes)


def _summary(ap: np.ndarray, recall: np.ndarray, thresholds: np.ndarray) -> dict:
    """The metrics from the AP and recall per (IoU threshold, label) ``(..., T, K)`` (NaN: undefined)."""
    out = {"AP": _mean_over(ap, (-2, -1))}
    for name, value in _SPECIAL.items():
        hit = np.flatnonzero(thresholds == value)
        if hit.size:
            out[name] = _mean_over(ap[..., hit, :], (-2, -1))
    out["AR"] = _mean_over(recall, (-2, -1))
    out["label"] = ap.mean(axis=-2)
    return out


def _observed(run: Run, codes: np.ndarray, n_labels: int, labels_without_ground_truth: str) -> dict:
    """The metrics of one system, from the accumulation of :func:`evaluate` (labels ``codes``
    of the union): its AP, AP50, AP75 and AR, and :func:`average_precision`'s AP per label."""
    acc = run.accumulation
    ap = np.full((acc.iou_thresholds.size, n_labels), np.nan)
    recall = ap.copy()
    ap[:, codes] = fill_missing_labels(acc.precision[:, :, :, 0, 0], labels_without_ground_truth).mean(axis=1)
    recall[:, codes] = fill_missing_labels(acc.recall[:, :, 0, 0], labels_without_ground_truth)
    return {name: values[0] for name, values in _summary(ap[None], recall[None], acc.iou_thresholds).items()}


def _resampled(ranked: dict, present: dict, counts, weights, thresholds, settings, interpolation) -> dict:
    """Every system's metrics in every resample: ``{system: {metric: (B,), "label": (B, K)}}``."""
    n_resamples = weights.shape[1]
    n_labels = counts.shape[1]
    n_dets = max([r.gaps.shape[0] for r in ranked.values()] + [1])
    per_resample = max(n_dets, thresholds.size * n_labels * 101, int(counts.sum()) + n_labels)
    step = max(1, _BLOCK_CELLS // per_resample)
    zero = settings["labels_without_ground_truth"] == "zero"
    all_positives = resampled_sums(weights, counts)  # (resamples, labels)
    out = {}
    for lo in range(0, n_resamples, step):  # blocks of resamples bound the memory
        block = weights[:, lo : lo + step]
        positives = all_positives[lo : lo + step]
        for name, r in ranked.items():
            precision, recall = weighted_precision(r, block, positives, n_labels, interpolation)
            ap = precision.mean(axis=1).transpose(1, 0, 2)  # (b, T, labels)
            recall = recall.transpose(1, 0, 2)
            undefined = (positives == 0)[:, None, :]
            fill = np.where(zero & present[name], 0.0, np.nan)[None, None, :]
            ap = np.where(undefined, fill, ap)
            recall = np.where(undefined, fill, recall)
            for metric, values in _summary(ap, recall, thresholds).items():
                if metric not in out.setdefault(name, {}):
                    out[name][metric] = np.empty((n_resamples, *values.shape[1:]))
                out[name][metric][lo : lo + step] = values
    return out


@dataclass(frozen=True)
class Prepared:
    """What the comparison reads of the combined state: the systems (the baseline first) and
    their runs, the labels and images (sorted unions), each image's bootstrap weights row
    (``weights``: Poisson weights of the buckets used, ``(buckets, resamples)``), the positives
    per (bucket, label) and every system's ranked matches and labels."""

    names: list
    runs: dict
    labels: np.ndarray
    images: np.ndarray
    weights: np.ndarray
    counts: np.ndarray
    ranked: dict
    present: dict


def prepared(state: ComparisonState, spec: ComparisonTable) -> Prepared:
    """The combined matches of every system, accumulated as :func:`evaluate` does, and ready
    to be weighted."""
    settings, options = spec.settings, spec.options
    names = _system_names(state, spec)
    runs = {name: run_from_state(state.systems[name], options, spec.columns) for name in names}
    labels, label_codes = aligned_ids([runs[n].data.labels for n in names] + [state.positive_labels], "label")
    images, image_codes = aligned_ids([runs[n].data.images for n in names] + [state.positive_images], "image")
    check_not_pooled(labels, "label")
    n_labels = labels.size
    # the images' bootstrap buckets, numbered by the buckets used
    used, bucket_of_image = np.unique(key_buckets(images, settings["key"]), return_inverse=True)
    weights = poisson_weights(
        settings["key"], int(used.max()) + 1 if used.size else 0, settings["n_resamples"], buckets=used
    )
    counts = np.bincount(
        bucket_of_image[image_codes[-1]] * n_labels + label_codes[-1], minlength=used.size * n_labels
    ).reshape(used.size, n_labels)
    ranked, present = {}, {}
    for i, name in enumerate(names):
        ranked[name] = _ranked(runs[name], label_codes[i], bucket_of_image[image_codes[i]], used.size)
        present[name] = np.isin(np.arange(n_labels), label_codes[i])
    return Prepared(names, runs, labels, images, weights, counts, ranked, present)


def _comparison_from_state(state: ComparisonState, spec: ComparisonTable) -> pd.DataFrame:
    settings, options = spec.settings, spec.options
    p = prepared(state, spec)
    names, labels = p.names, p.labels
    compared = compared_pairs(names, settings["pairs"], "systems")
    observed = {
        name: _observed(
            p.runs[name],
            np.searchsorted(labels, p.runs[name].data.labels),
            labels.size,
            settings["labels_without_ground_truth"],
        )
        for name in names
    }
    thresholds = options.iou_thresholds
    resampled = _resampled(
        p.ranked, p.present, p.counts, p.weights, thresholds, settings, options.interpolation
    )
    with_truth = np.flatnonzero(p.counts.sum(axis=0) > 0)
    metrics = [m for m in METRICS if m in observed[names[0]]]
    parts = []
    for a, b in compared:
        value_a = np.r_[[observed[a][m] for m in metrics], observed[a]["label"][with_truth]]
        value_b = np.r_[[observed[b][m] for m in metrics], observed[b]["label"][with_truth]]
        samples = np.column_stack(
            [resampled[b][m] - resampled[a][m] for m in metrics]
            + [resampled[b]["label"][:, with_truth] - resampled[a]["label"][:, with_truth]]
        )
        difference = value_b - value_a
        low, high, p_value = paired_interval(samples, difference, settings["confidence"])
        parts.append(
            pd.DataFrame(
                {
                    "label": pd.Series(
                        [POOLED_LABEL] * len(metrics) + labels[with_truth].tolist(), dtype=object
                    ),
                    "metric": metrics + ["AP"] * with_truth.size,
                    "baseline": pd.Series([a] * difference.size, dtype=object),
                    "system": pd.Series([b] * difference.size, dtype=object),
                    "N": p.images.size,
                    "baseline_value": value_a,
                    "system_value": value_b,
                    "difference": difference,
                    "ci_low": low,
                    "ci_high": high,
                    "p_value": p_value,
                    "test": "paired_bootstrap",
                }
            )
        )
    undefined = [name for name in names if np.isnan(observed[name]["AP"])]
    if undefined:
        warn_undefined(
            f"No label has ground truth in `area_range=` (nothing to average): AP and AR are NaN "
            f"for {plain(undefined)!r} (pycocotools prints -1)."
        )
    return comparison_table(parts, ["label"], settings["correction"])
