"""The vectorized COCO evaluation against a slow, loop-by-loop restatement of the algorithm.

The reference below follows the definitions in the user guide one image, label, area
range and threshold at a time (no vectorization), so it is easy to check by reading. It
runs without pycocotools (CI), on random data with ties, crowd regions and area ranges.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from pdmetrics.detection.evaluation import run
from pdmetrics.detection.inputs import BoxColumns


def _iou(d, g, crowd):
    w = min(d[0] + d[2], g[0] + g[2]) - max(d[0], g[0])
    h = min(d[1] + d[3], g[1] + g[3]) - max(d[1], g[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    union = d[2] * d[3] if crowd else d[2] * d[3] + g[2] * g[3] - inter
    return inter / union


def reference_coco(gt, dt, images, labels, thresholds, max_dets, ranges):
    points = np.linspace(0.0, 1.0, 101)
    n_t, n_k, n_a, n_m = len(thresholds), len(labels), len(ranges), len(max_dets)
    precision = np.full((n_t, 101, n_k, n_a, n_m), np.nan)
    recall = np.full((n_t, n_k, n_a, n_m), np.nan)
    read_scores = np.zeros((n_t, 101, n_k, n_a, n_m))
    for k, label in enumerate(labels):
        for a, (low, high) in enumerate(ranges):
            per_image = []  # (scores, tp flags (T, n), ignored flags (T, n)) per image
            positives = 0
            for image in sorted(images):
                g = gt[(gt["image"] == image) & (gt["label"] == label)]
                d = dt[(dt["image"] == image) & (dt["label"] == label)]
                d = d.iloc[np.argsort(-d["score"].to_numpy(), kind="stable")].iloc[: max(max_dets)]
                g_boxes = g[["x", "y", "w", "h"]].to_numpy().tolist()
                g_crowd = g["iscrowd"].astype(bool).tolist()
                g_ignored = [c or not (low <= ar <= high) for c, ar in zip(g_crowd, g["area"])]
                positives += sum(not i for i in g_ignored)
                order = sorted(range(len(g)), key=lambda j: g_ignored[j])  # stable: non-ignored first
                d_boxes = d[["x", "y", "w", "h"]].to_numpy().tolist()
                tp = np.zeros((n_t, len(d)), dtype=bool)
                ignored = np.zeros((n_t, len(d)), dtype=bool)
                for t, threshold in enumerate(thresholds):
                    used = [False] * len(g)
                    for i, box in enumerate(d_boxes):
                        best, best_iou = -1, min(threshold, 1 - 1e-10)
                        for j in order:
                            if used[j] and not g_crowd[j]:
                                continue
                            if best > -1 and not g_ignored[best] and g_ignored[j]:
                                break
                            value = _iou(box, g_boxes[j], g_crowd[j])
                            if value < best_iou:
                                continue
                            best, best_iou = j, value
                        if best == -1:
                            area = box[2] * box[3]
                            ignored[t, i] = not (low <= area <= high)
                            continue
                        used[best] = True
                        ignored[t, i] = g_ignored[best]
                        tp[t, i] = not g_ignored[best]
                per_image.append((d["score"].to_numpy(), tp, ignored))
            if positives == 0:
                continue
            for m, limit in enumerate(max_dets):
                scores = np.concatenate([s[:limit] for s, _, _ in per_image])
                order = np.argsort(-scores, kind="stable")
                tps = np.concatenate([tp[:, :limit] for _, tp, _ in per_image], axis=1)[:, order]
                ign = np.concatenate([ig[:, :limit] for _, _, ig in per_image], axis=1)[:, order]
                for t in range(n_t):
                    tp_cum = np.cumsum(tps[t] & ~ign[t]).astype(float)
                    fp_cum = np.cumsum(~tps[t] & ~ign[t]).astype(float)
                    rc = tp_cum / positives
                    pr = tp_cum / (fp_cum + tp_cum + np.spacing(1))
                    recall[t, k, a, m] = rc[-1] if rc.size else 0.0
                    envelope = np.maximum.accumulate(pr[::-1])[::-1] if pr.size else pr
                    where = np.searchsorted(rc, points, side="left")
                    precision[t, :, k, a, m] = [envelope[w] if w < rc.size else 0.0 for w in where]
                    ranked = scores[order]
                    read_scores[t, :, k, a, m] = [ranked[w] if w < rc.size else 0.0 for w in where]
    return precision, recall, read_scores


def _tables(seed):
    rng = np.random.default_rng(seed)
    n_images, n_labels = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    n_gt, n_dt = int(rng.integers(1, 12)), int(rng.integers(0, 16))

    def boxes(n):
        return {
            "x": rng.integers(0, 20, n).astype(float),
            "y": rng.integers(0, 20, n).astype(float),
            "w": rng.integers(1, 30, n).astype(float),
            "h": rng.integers(1, 30, n).astype(float),
        }

    gt = pd.DataFrame(
        {
            "image": rng.integers(0, n_images, n_gt),
            "label": rng.integers(0, n_labels, n_gt),
            **boxes(n_gt),
            "iscrowd": (rng.random(n_gt) < 0.15).astype(int),
        }
    )
    gt["area"] = gt["w"] * gt["h"] * rng.choice([1.0, 0.5], n_gt)
    dt = pd.DataFrame(
        {
            "image": rng.integers(0, n_images, n_dt),
            "label": rng.integers(0, n_labels, n_dt),
            **boxes(n_dt),
            "score": rng.choice([0.2, 0.5, 0.7, 0.9], n_dt),
        }
    )
    return gt, dt, list(range(n_images))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 100_000), variant=st.integers(0, 1))
def test_vectorized_equals_reference(seed, variant):
    gt, dt, images = _tables(seed)
    thresholds = [0.5, 0.75, 0.95] if variant == 0 else [0.1, 0.3]
    max_dets = [1, 2, 100] if variant == 0 else [3]
    ranges = {"all": (0, 1e10), "small": (0, 150), "big": (150, 1e10)}
    result = run(
        dt,
        gt,
        BoxColumns(iscrowd="iscrowd", area="area", images=images),
        iou_thresholds=thresholds,
        max_dets=max_dets,
        area_ranges=ranges,
        matching="coco",
        interpolation="coco",
    )
    acc = result.accumulation
    precision, recall, scores = reference_coco(
        gt, dt, images, list(acc.labels), thresholds, max_dets, list(ranges.values())
    )
    np.testing.assert_allclose(acc.precision, precision, rtol=0, atol=1e-12)
    np.testing.assert_allclose(acc.recall, recall, rtol=0, atol=1e-12)
    defined = ~np.isnan(precision)
    np.testing.assert_array_equal(acc.scores[defined], scores[defined])
