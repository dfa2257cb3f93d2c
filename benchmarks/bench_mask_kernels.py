"""Benchmark: the mask kernels of ``pdmetrics.detection.masks`` against ``pycocotools.mask``.

Generates (seeded) ``--images`` images of 640 x 480 with ``--gts`` ground-truth and
``--dts`` detected instance polygons per image (star-shaped, 8 to 16 vertices, radius 8 to
120 pixels; detections are jittered copies of ground truths or clutter), then times, on the
whole set:

- ``polygons``: rasterizing every polygon to RLE (pycocotools: ``frPyObjects`` + ``merge``
  per segmentation; pdmetrics: one ``mask_runs`` call);
- ``encode``: 200 dense boolean masks to compressed RLE;
- ``area``: the area of every mask from its compressed RLE dict (parses every string);
- ``iou``: the IoU of every detection with every ground truth of its image, from the
  compressed RLE dicts (pycocotools: one ``mask.iou`` call per image, as COCOeval does;
  pdmetrics: strings parsed once, then one ``paired_mask_iou`` over all pairs), and the
  pdmetrics kernel alone on runs already parsed.

Prints medians (s), the ratio pdmetrics / pycocotools and checks that the numbers are equal.
``--options`` also times the other pure-numpy IoU kernel considered, packed bits: every mask
as 64-bit words per column of its bounding box, a pair's intersection the ``np.bitwise_count``
of the AND over the columns and words both boxes share. Its pair kernel is faster than the
run-length one, but building the words costs more than the run-length kernel saves, so
pdmetrics keeps the run lengths. ``--options`` also times the optional accelerator that was
considered for polygons, pycocotools' C rasterizer followed by pdmetrics' decoding of its RLE
strings (in the "pycocotools" column: pdmetrics' own rasterization); it is not faster, so
pdmetrics has none.

    python benchmarks/bench_mask_kernels.py --repeat 5
"""

from __future__ import annotations

import argparse
import json
from itertools import cycle

import numpy as np
from timing import median_time

from pdmetrics.detection.masks import MaskRuns, mask_bbox, mask_runs, paired_mask_iou

HEIGHT, WIDTH = 480, 640


def star_polygons(rng, centers: np.ndarray, radii: np.ndarray) -> list[list[list[float]]]:
    """One star-shaped polygon (a single part) around each centre."""
    n = centers.shape[0]
    k = rng.integers(8, 17, n)
    owner = np.repeat(np.arange(n), k)
    angle = np.sort(rng.uniform(0, 2 * np.pi, owner.size) + owner * 10.0) - owner * 10.0
    radius = radii[owner] * rng.uniform(0.5, 1.0, owner.size)
    x = (centers[owner, 0] + radius * np.cos(angle)).round(2)
    y = (centers[owner, 1] + radius * np.sin(angle)).round(2)
    xy = np.stack([x, y], axis=1).reshape(-1)
    bounds = np.concatenate(([0], np.cumsum(2 * k))).tolist()
    values = xy.tolist()
    return [[values[a:b]] for a, b in zip(bounds[:-1], bounds[1:])]


def segment_arange(lengths: np.ndarray) -> np.ndarray:
    ends = np.cumsum(lengths)
    return np.arange(int(ends[-1]) if ends.size else 0) - np.repeat(ends - lengths, lengths)


def packed_bits(runs: MaskRuns):
    """Each mask as words of 64 rows, per column of its bounding box (the alternative layout)."""
    h = int(runs.height[0])
    per_column = (h + 63) // 64
    box = mask_bbox(runs).astype("int64")
    x0, n_columns = box[:, 0], box[:, 2]
    base = np.concatenate(([0], np.cumsum(n_columns * per_column)))
    owner = np.repeat(np.arange(len(runs)), np.diff(runs.offsets))
    first_col, last_col = runs.starts // h, (runs.stops - 1) // h
    n_pieces = last_col - first_col + 1
    run = np.repeat(np.arange(runs.starts.size), n_pieces)
    column = first_col[run] + segment_arange(n_pieces)
    row0 = np.maximum(runs.starts[run] - column * h, 0)
    row1 = np.minimum(runs.stops[run] - column * h, h)
    word0, word1 = row0 // 64, (row1 - 1) // 64
    piece = np.repeat(np.arange(run.size), word1 - word0 + 1)
    word = word0[piece] + segment_arange(word1 - word0 + 1)
    low = np.maximum(row0[piece] - 64 * word, 0)
    high = np.minimum(row1[piece] - 64 * word, 64)
    bits = (np.uint64(2**64 - 1) >> (64 - (high - low)).astype(np.uint64)) << low.astype(np.uint64)
    mask = owner[run][piece]
    position = base[mask] + (column[piece] - x0[mask]) * per_column + word
    order = np.argsort(position, kind="stable")
    position = position[order]
    first = np.flatnonzero(np.concatenate(([True], position[1:] != position[:-1])))
    words = np.zeros(int(base[-1]), dtype=np.uint64)
    words[position[first]] = np.bitwise_or.reduceat(bits[order], first)
    return words, base, box, per_column


def packed_bits_iou(runs: MaskRuns, packed, first, second, crowd) -> np.ndarray:
    words, base, box, per_column = packed
    x0, y0, x1, y1 = box[:, 0], box[:, 1], box[:, 0] + box[:, 2] - 1, box[:, 1] + box[:, 3] - 1
    left, right = np.maximum(x0[first], x0[second]), np.minimum(x1[first], x1[second])
    top, bottom = np.maximum(y0[first], y0[second]), np.minimum(y1[first], y1[second])
    pairs = np.flatnonzero((left <= right) & (top <= bottom))
    f, s = first[pairs], second[pairs]
    left, top, bottom = left[pairs], top[pairs] // 64, bottom[pairs] // 64
    n_words = bottom - top + 1
    count = (right[pairs] - left + 1) * n_words
    pair = np.repeat(np.arange(pairs.size), count)
    k = segment_arange(count)
    column = left[pair] + k // n_words[pair]
    word = top[pair] + k % n_words[pair]
    a = words[base[f][pair] + (column - x0[f][pair]) * per_column + word]
    b = words[base[s][pair] + (column - x0[s][pair]) * per_column + word]
    inter = np.bincount(pair, weights=np.bitwise_count(a & b), minlength=pairs.size).astype("int64")
    area = runs.area()
    union = np.where(crowd[pairs], area[f], area[f] + area[s] - inter)
    iou = np.zeros(first.size)
    iou[pairs] = inter / np.where(inter > 0, union, 1)
    return iou


def simulate(n_images: int, n_gt: int, n_dt: int, seed: int):
    rng = np.random.default_rng(seed)
    n_g = n_images * n_gt
    centers = np.stack([rng.uniform(0, WIDTH, n_g), rng.uniform(0, HEIGHT, n_g)], axis=1)
    radii = np.exp(rng.uniform(np.log(8), np.log(120), n_g))
    gt_polygons = star_polygons(rng, centers, radii)
    # detections: per image, jittered copies of its ground truths, then clutter
    image_of_dt = np.repeat(np.arange(n_images), n_dt)
    slot = np.tile(np.arange(n_dt), n_images)
    copy = slot < n_gt * 1.5
    source = image_of_dt * n_gt + (slot % n_gt)
    dt_centers = np.where(
        copy[:, None],
        centers[source] + rng.normal(0, 0.15, (image_of_dt.size, 2)) * radii[source, None],
        np.stack([rng.uniform(0, WIDTH, image_of_dt.size), rng.uniform(0, HEIGHT, image_of_dt.size)], axis=1),
    )
    dt_radii = np.where(copy, radii[source] * np.exp(rng.normal(0, 0.15, image_of_dt.size)), radii[source])
    dt_polygons = star_polygons(rng, dt_centers, dt_radii)
    crowd = rng.random(n_g) < 0.02
    return gt_polygons, dt_polygons, crowd


def _concat_runs(a: MaskRuns, b: MaskRuns) -> MaskRuns:
    return MaskRuns(
        np.concatenate((a.height, b.height)),
        np.concatenate((a.width, b.width)),
        np.concatenate((a.offsets[:-1], b.offsets + a.offsets[-1])),
        np.concatenate((a.starts, b.starts)),
        np.concatenate((a.stops, b.stops)),
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--images", type=int, default=1000)
    parser.add_argument("--gts", type=int, default=10)
    parser.add_argument("--dts", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--options", action="store_true", help="also time the packed-bits IoU kernel")
    args = parser.parse_args()
    n_images, n_gt, n_dt = args.images, args.gts, args.dts
    gt_polygons, dt_polygons, crowd = simulate(n_images, n_gt, n_dt, args.seed)
    all_polygons = gt_polygons + dt_polygons
    print(
        f"{n_images} images {HEIGHT}x{WIDTH}, {len(gt_polygons)} ground truths, {len(dt_polygons)} detections"
    )

    try:
        from pycocotools import mask as coco_mask
    except ImportError:
        coco_mask = None
        print("pycocotools is not installed: timing pdmetrics only")

    rows = []

    def measure(name, ours, theirs, same):
        t_ours, r_ours = median_time(ours, args.repeat)
        if coco_mask is None:
            rows.append((name, t_ours, float("nan"), ""))
            return r_ours, None
        t_theirs, r_theirs = median_time(theirs, args.repeat)
        rows.append((name, t_ours, t_theirs, "equal" if same(r_ours, r_theirs) else "DIFFERENT"))
        return r_ours, r_theirs

    def coco_polygons():
        return [coco_mask.merge(coco_mask.frPyObjects(p, HEIGHT, WIDTH)) for p in all_polygons]

    runs, coco_rles = measure(
        "polygons -> RLE",
        lambda: mask_runs(all_polygons, HEIGHT, WIDTH),
        coco_polygons,
        lambda ours, theirs: [r["counts"] for r in ours.to_rle()] == [r["counts"].decode() for r in theirs],
    )
    rles = runs.to_rle()
    dense = np.asfortranarray(np.stack(runs.take(np.arange(min(200, len(runs)))).to_masks(), axis=2))
    measure(
        f"encode {dense.shape[2]} dense masks",
        lambda: mask_runs(list(np.moveaxis(dense, 2, 0))).to_rle(),
        lambda: coco_mask.encode(dense.view(np.uint8)),
        lambda ours, theirs: [r["counts"] for r in ours] == [r["counts"].decode() for r in theirs],
    )
    # pdmetrics keeps the last batch of strings it decoded (the same string objects decode to
    # the same runs); alternate two copies so that every call parses its strings
    batches = cycle([rles, json.loads(json.dumps(rles))])
    measure(
        "RLE strings -> area",
        lambda: mask_runs(next(batches)).area(),
        lambda: np.array([coco_mask.area(r) for r in rles]),
        lambda ours, theirs: np.array_equal(ours, theirs),
    )

    n_g = len(gt_polygons)
    gt_rles, dt_rles = rles[:n_g], rles[n_g:]
    pair_dt = np.repeat(np.arange(n_images * n_dt), n_gt)
    pair_gt = (pair_dt // n_dt) * n_gt + np.tile(np.arange(n_gt), n_images * n_dt)

    def ours_iou():
        return paired_mask_iou(
            dt_rles, gt_rles, crowd[pair_gt], detection_index=pair_dt, ground_truth_index=pair_gt
        )

    def coco_iou():
        out = []
        for i in range(n_images):
            d = dt_rles[i * n_dt : (i + 1) * n_dt]
            g = gt_rles[i * n_gt : (i + 1) * n_gt]
            out.append(
                np.asarray(coco_mask.iou(d, g, crowd[i * n_gt : (i + 1) * n_gt].astype(np.uint8))).reshape(-1)
            )
        return np.concatenate(out)

    measure("IoU from RLE dicts", ours_iou, coco_iou, lambda ours, theirs: np.array_equal(ours, theirs))
    dt_runs, gt_runs = mask_runs(dt_rles), mask_runs(gt_rles)
    measure(
        "IoU kernel (runs parsed)",
        lambda: paired_mask_iou(
            dt_runs, gt_runs, crowd[pair_gt], detection_index=pair_dt, ground_truth_index=pair_gt
        ),
        coco_iou,
        lambda ours, theirs: np.array_equal(ours, theirs),
    )

    if args.options:
        both = _concat_runs(dt_runs, gt_runs)
        second = pair_gt + len(dt_runs)
        packed, _ = measure(
            "option: build packed bits", lambda: packed_bits(both), lambda: None, lambda a, b: True
        )
        measure(
            "option: packed-bits IoU",
            lambda: packed_bits_iou(both, packed, pair_dt, second, crowd[pair_gt]),
            coco_iou,
            lambda ours, theirs: np.array_equal(ours, theirs),
        )
        if coco_mask is not None:
            # the accelerator considered: pycocotools rasterizes (one call for all parts of one
            # image size), pdmetrics decodes its strings to runs
            measure(
                "option: polygons via C RLE",
                lambda: mask_runs(coco_mask.frPyObjects([p for [p] in all_polygons], HEIGHT, WIDTH)),
                lambda: mask_runs(all_polygons, HEIGHT, WIDTH),
                lambda ours, theirs: np.array_equal(ours.starts, theirs.starts),
            )

    print(f"{'step':<28}{'pdmetrics (s)':>15}{'pycocotools (s)':>17}{'ratio':>8}  numbers")
    for name, t_ours, t_theirs, same in rows:
        ratio = t_ours / t_theirs if t_theirs > 1e-3 else float("nan")
        print(f"{name:<28}{t_ours:>15.4f}{t_theirs:>17.4f}{ratio:>8.2f}  {same}")


if __name__ == "__main__":
    main()
