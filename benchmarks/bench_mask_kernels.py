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

    python benchmarks/bench_mask_kernels.py --repeat 5
"""

from __future__ import annotations

import argparse

import numpy as np
from timing import median_time

from pdmetrics.detection.masks import mask_runs, paired_mask_iou

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


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--images", type=int, default=1000)
    parser.add_argument("--gts", type=int, default=10)
    parser.add_argument("--dts", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
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
    measure(
        "RLE strings -> area",
        lambda: mask_runs(rles).area(),
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

    print(f"{'step':<28}{'pdmetrics (s)':>15}{'pycocotools (s)':>17}{'ratio':>8}  numbers")
    for name, t_ours, t_theirs, same in rows:
        print(f"{name:<28}{t_ours:>15.4f}{t_theirs:>17.4f}{t_ours / t_theirs:>8.2f}  {same}")


if __name__ == "__main__":
    main()
