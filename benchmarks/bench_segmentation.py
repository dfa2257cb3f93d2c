"""Benchmark: COCO instance-segmentation (``iouType="segm"``) evaluation from COCO JSON files.

Writes (seeded) a synthetic COCO instance-segmentation set to a temporary directory:
``--images`` images of a few sizes (480 x 640, 427 x 640, 640 x 480, 512 x 512), about
``--gts`` ground-truth instances per image over ``--classes`` classes, and two result files.

- ground truths: star-shaped polygons (8 to 16 vertices, radius 6 to 150 pixels), 15 % of
  them in two or three parts; 1 % are crowd regions stored as uncompressed RLE (as COCO's
  instance files store them); ``area`` is the mask area and ``bbox`` its box;
- detections: jittered copies of ground truths (0 to 4 per instance, 10 % with another
  class) plus clutter, at most 100 per image (the highest scores). ``results_rle.json``
  holds them as detectors write them: compressed RLE (``counts`` a string), no ``bbox``
  (pycocotools' ``loadRes`` then gives each its mask's box and area);
  ``results_polygon.json`` holds the same detections as polygons with their ``bbox`` (then
  ``loadRes`` keeps the boxes and uses the box area).

Each timed run starts from the files and does everything: loading the JSON, parsing the
segmentations (polygons rasterized, RLE strings decoded), the mask IoU of every detection
with every ground truth of its image and class, matching at the ten IoU thresholds,
accumulating precision/recall and the 12 stats:

- pdmetrics: ``read_coco(gt_file, results_file)`` + ``evaluate(dt, ground_truth=gt, iou_type="segm")``;
- faster-coco-eval: ``COCO(gt_file)``, ``loadRes(results_file)``,
  ``COCOeval_faster(..., "segm")`` ``evaluate(); accumulate(); summarize()``;
- pycocotools: the same with ``COCOeval``.

Prints the median time of each over ``--repeat`` runs, the ratios, and the largest difference
in the 12 stats (checked equal to 1e-12); pdmetrics and faster-coco-eval run in turn, and their
ratio is also given as the median of the paired ratios in wall and in CPU time (the steadier on
a loaded machine). pdmetrics is pure numpy here (no accelerator: handing
polygons to ``pycocotools.mask`` and decoding its strings was measured no faster than
rasterizing them with numpy). ``--profile`` prints a pyinstrument profile of one pdmetrics run.

    python benchmarks/bench_segmentation.py --repeat 5

``--write FOLDER`` only writes the files, to time whole processes (start-up and imports
included) with a tool of your own, e.g. ``hyperfine``::

    python benchmarks/bench_segmentation.py --write /tmp/segm
    hyperfine "python -c \"import pdmetrics; from pdmetrics.io import read_coco; \
    gt, dt = read_coco('/tmp/segm/gt.json', '/tmp/segm/rle.json'); \
    dt.detection.evaluate(ground_truth=gt, iou_type='segm')\"" \
        "python -c \"from faster_coco_eval import COCO, COCOeval_faster; g = COCO('/tmp/segm/gt.json'); \
    e = COCOeval_faster(g, g.loadRes('/tmp/segm/rle.json'), 'segm'); \
    e.evaluate(); e.accumulate(); e.summarize()\""
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import statistics
import tempfile
from itertools import chain
from pathlib import Path

import numpy as np
import pandas as pd
from bench_mask_kernels import star_polygons
from timing import median_time, paired_times

import pdmetrics  # noqa: F401  (registers the accessors)
from pdmetrics.detection.masks import mask_bbox, mask_runs
from pdmetrics.io import read_coco

SIZES = np.array([[480, 640], [427, 640], [640, 480], [512, 512]])


def instances(rng, centers, radii, multi: np.ndarray) -> list[list[list[float]]]:
    """Polygon segmentations: one part, or (where ``multi`` > 1) that many nearby parts."""
    n_parts = np.where(multi > 1, multi, 1)
    owner = np.repeat(np.arange(centers.shape[0]), n_parts)
    first = np.concatenate(([True], owner[1:] != owner[:-1]))
    shift = np.where(first[:, None], 0.0, rng.normal(0, 1.2, (owner.size, 2)) * radii[owner, None])
    parts = [
        p for [p] in star_polygons(rng, centers[owner] + shift, radii[owner] * np.where(first, 1.0, 0.5))
    ]
    bounds = np.concatenate(([0], np.cumsum(n_parts))).tolist()
    return [parts[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def jittered(rng, polygons: list, centers: np.ndarray, radii: np.ndarray) -> list[list[list[float]]]:
    """Detections of these instances: each one shifted, scaled and its vertices moved a little."""
    n = len(polygons)
    parts_per = np.fromiter(map(len, polygons), dtype="int64", count=n)
    parts = list(chain.from_iterable(polygons))
    numbers = np.fromiter(map(len, parts), dtype="int64", count=len(parts))
    xy = np.fromiter(chain.from_iterable(parts), dtype="float64").reshape(-1, 2)
    owner = np.repeat(np.repeat(np.arange(n), parts_per), numbers // 2)
    scale = np.exp(rng.normal(0, 0.08, n))[owner, None]
    shift = rng.normal(0, 0.08, (n, 2))[owner] * radii[owner, None]
    noise = rng.normal(0, 0.04, xy.shape) * radii[owner, None]
    moved = (centers[owner] + scale * (xy - centers[owner]) + shift + noise).round(2).reshape(-1).tolist()
    bounds = np.concatenate(([0], np.cumsum(numbers))).tolist()
    flat_parts = [moved[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    part_bounds = np.concatenate(([0], np.cumsum(parts_per))).tolist()
    return [flat_parts[a:b] for a, b in zip(part_bounds[:-1], part_bounds[1:])]


def simulate(n_images: int, n_gt: float, n_classes: int, seed: int):
    rng = np.random.default_rng(seed)
    image_size = SIZES[rng.integers(0, len(SIZES), n_images)]
    per_image = rng.poisson(n_gt, n_images)
    gt_image = np.repeat(np.arange(n_images), per_image)
    n = gt_image.size
    h, w = image_size[gt_image, 0], image_size[gt_image, 1]
    centers = np.stack([rng.uniform(0, 1, n) * w, rng.uniform(0, 1, n) * h], axis=1)
    radii = np.exp(rng.uniform(np.log(6), np.log(150), n))
    multi = np.where(rng.random(n) < 0.15, rng.integers(2, 4, n), 1)
    gt_polygons = instances(rng, centers, radii, multi)
    crowd = rng.random(n) < 0.01
    gt_label = rng.integers(1, n_classes + 1, n)
    # detections: jittered copies of ground truths (some with another class), then clutter
    copies = rng.integers(0, 5, n)
    source = np.repeat(np.arange(n), copies)
    m = source.size
    dt_polygons = jittered(rng, [gt_polygons[i] for i in source.tolist()], centers[source], radii[source])
    dt_label = gt_label[source].copy()
    wrong = rng.random(m) < 0.1
    dt_label[wrong] = rng.integers(1, n_classes + 1, int(wrong.sum()))
    dt_image, dt_score = gt_image[source], rng.beta(4, 2, m)
    n_clutter = rng.integers(0, 41, n_images)
    k = int(n_clutter.sum())
    clutter_image = np.repeat(np.arange(n_images), n_clutter)
    ch, cw = image_size[clutter_image, 0], image_size[clutter_image, 1]
    clutter_centers = np.stack([rng.uniform(0, 1, k) * cw, rng.uniform(0, 1, k) * ch], axis=1)
    clutter = instances(
        rng, clutter_centers, np.exp(rng.uniform(np.log(6), np.log(120), k)), np.ones(k, dtype="int64")
    )
    det = pd.DataFrame(
        {
            "image": np.concatenate((dt_image, clutter_image)),
            "label": np.concatenate((dt_label, rng.integers(1, n_classes + 1, k))),
            "score": np.concatenate((dt_score, rng.beta(2, 4, k))).round(4),
            "polygon": dt_polygons + clutter,
        }
    )
    # at most 100 detections per image (the highest scores), as detectors emit
    det = det.sort_values(["image", "score"], ascending=[True, False], kind="stable")
    det = det[det.groupby("image").cumcount() < 100].sort_index().reset_index(drop=True)
    gt = pd.DataFrame(
        {"image": gt_image, "label": gt_label, "iscrowd": crowd.astype(int), "polygon": gt_polygons}
    )
    return image_size, gt, det


def write_files(directory: Path, image_size, gt: pd.DataFrame, det: pd.DataFrame) -> dict[str, Path]:
    """The annotation file and the two result files (RLE and polygon detections)."""
    gh, gw = image_size[gt["image"], 0], image_size[gt["image"], 1]
    gt_runs = mask_runs(gt["polygon"].tolist(), gh, gw)
    gt_rles = gt_runs.to_rle()
    crowd = gt["iscrowd"].to_numpy().astype(bool)
    segmentations = [
        {"size": r["size"], "counts": c.tolist()} if is_crowd else p
        for p, r, c, is_crowd in zip(gt["polygon"], gt_rles, gt_runs.counts(), crowd)
    ]
    boxes, areas = mask_bbox(gt_runs).tolist(), gt_runs.area().tolist()
    annotations = [
        {
            "id": i + 1,
            "image_id": image + 1,
            "category_id": label,
            "segmentation": seg,
            "area": float(area),
            "bbox": box,
            "iscrowd": c,
        }
        for i, (image, label, c, seg, area, box) in enumerate(
            zip(
                gt["image"].tolist(),
                gt["label"].tolist(),
                gt["iscrowd"].tolist(),
                segmentations,
                areas,
                boxes,
            )
        )
    ]
    n_classes = int(max(gt["label"].max(), det["label"].max()))
    dataset = {
        "images": [
            {"id": i + 1, "height": int(h), "width": int(w)} for i, (h, w) in enumerate(image_size.tolist())
        ],
        "annotations": annotations,
        "categories": [{"id": c, "name": f"class {c}"} for c in range(1, n_classes + 1)],
    }
    dh, dw = image_size[det["image"], 0], image_size[det["image"], 1]
    dt_runs = mask_runs(det["polygon"].tolist(), dh, dw)
    dt_boxes = mask_bbox(dt_runs).tolist()
    common = list(zip((det["image"] + 1).tolist(), det["label"].tolist(), det["score"].tolist()))
    results_rle = [
        {"image_id": i, "category_id": c, "segmentation": rle, "score": s}
        for (i, c, s), rle in zip(common, dt_runs.to_rle())
    ]
    results_polygon = [
        {"image_id": i, "category_id": c, "segmentation": p, "bbox": b, "score": s}
        for (i, c, s), p, b in zip(common, det["polygon"].tolist(), dt_boxes)
    ]
    paths = {}
    for name, content in (("gt", dataset), ("rle", results_rle), ("polygon", results_polygon)):
        paths[name] = directory / f"{name}.json"
        paths[name].write_text(json.dumps(content))
    return paths


def pdmetrics_runner(gt_file: Path, results_file: Path):
    def run():
        gt, dt = read_coco(gt_file, results_file)
        return dt.detection.evaluate(ground_truth=gt, iou_type="segm")["value"].to_numpy()

    return run


#: Where each reference's COCO and COCOeval classes live.
REFERENCES = {
    "faster_coco_eval": ("faster_coco_eval", "COCO", "faster_coco_eval", "COCOeval_faster"),
    "pycocotools": ("pycocotools.coco", "COCO", "pycocotools.cocoeval", "COCOeval"),
}


def reference_runner(
    module: str, gt_file: Path, results_file: Path, iou_type: str = "segm", n_stats: int = 12
):
    """The files loaded (``COCO``, ``loadRes``), then ``iou_type`` evaluate + accumulate + summarize."""
    coco_module, coco_name, eval_module, eval_name = REFERENCES[module]
    coco_class = getattr(importlib.import_module(coco_module), coco_name)
    eval_class = getattr(importlib.import_module(eval_module), eval_name)

    def run():
        with contextlib.redirect_stdout(io.StringIO()):
            ground_truth = coco_class(str(gt_file))
            evaluator = eval_class(ground_truth, ground_truth.loadRes(str(results_file)), iou_type)
            for step in (evaluator.evaluate, evaluator.accumulate, evaluator.summarize):
                step()
        return np.asarray(evaluator.stats[:n_stats], dtype=float)

    return run


def compare_timings(ours, gt_file: Path, results_file: Path, repeat: int, skip, iou_type="segm", n_stats=12):
    """Time ``ours`` and the references (but ``skip``) on the files; print the medians, the
    ratios and the largest difference in the stats. pdmetrics and faster-coco-eval run in turn
    (both see the same load of the machine): their ratio is the median of the paired ratios, in
    wall and in CPU time."""
    rows, paired = [], None
    for module in ("faster_coco_eval", "pycocotools"):
        if module in skip:
            continue
        try:
            run = reference_runner(module, gt_file, results_file, iou_type=iou_type, n_stats=n_stats)
        except ImportError:
            print(f"{module:25s} not installed")
            continue
        if module == "faster_coco_eval":
            ours_times, ref_times, stats, ref_stats = paired_times(ours, run, repeat)
            paired = (ours_times, ref_times)
            rows.append((module, statistics.median(ref_times["wall"]), ref_stats))
        else:
            rows.append((module, *median_time(run, repeat)))
    if paired is None:
        ours_time, stats = median_time(ours, repeat)
    else:
        ours_time = statistics.median(paired[0]["wall"])
    rows.insert(0, ("pdmetrics", ours_time, stats))
    print(f"{'':25s}{'median (s)':>11s}{'vs pdmetrics':>14s}  max |stat difference|")
    for name, seconds, values in rows:
        values = np.where(values == -1, np.nan, values)
        diff = np.nanmax(np.abs(values - stats))
        flag = "" if diff <= 1e-12 else "  DIFFERENT"
        print(f"{name:25s}{seconds:11.3f}{seconds / ours_time:13.2f}x  {diff:.1e}{flag}")
    if paired is not None:
        for clock in ("wall", "cpu"):
            ours_median, ref_median = (statistics.median(t[clock]) for t in paired)
            ratio = statistics.median(r / o for r, o in zip(paired[1][clock], paired[0][clock]))
            print(
                f"in turn, {clock:4s} time: pdmetrics {ours_median:.3f} s, faster-coco-eval "
                f"{ref_median:.3f} s, median paired ratio {ratio:.2f}x"
            )
    print("stats:", np.round(stats, 4).tolist())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--images", type=int, default=1000)
    parser.add_argument("--gts", type=float, default=21.0, help="mean ground truths per image")
    parser.add_argument("--classes", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--detections", nargs="*", default=["rle", "polygon"], help="rle polygon")
    parser.add_argument(
        "--skip", nargs="*", default=[], help="references to skip: pycocotools faster_coco_eval"
    )
    parser.add_argument("--profile", action="store_true", help="print a pyinstrument profile of pdmetrics")
    parser.add_argument("--write", type=Path, help="write the files to this folder and stop")
    args = parser.parse_args()

    image_size, gt, det = simulate(args.images, args.gts, args.classes, args.seed)
    n_parts = gt["polygon"].map(len)
    print(
        f"{args.images} images, {args.classes} classes, {len(gt)} ground-truth masks "
        f"({int((n_parts > 1).sum())} in several parts, {int(gt['iscrowd'].sum())} crowd RLE), "
        f"{len(det)} detection masks"
    )
    if args.write:
        args.write.mkdir(parents=True, exist_ok=True)
        paths = write_files(args.write, image_size, gt, det)
        print("written:", ", ".join(str(p) for p in paths.values()))
        return
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_files(Path(tmp), image_size, gt, det)
        sizes = ", ".join(f"{k} {p.stat().st_size / 1e6:.1f} MB" for k, p in paths.items())
        print(f"files: {sizes}")
        print("timed: JSON loading + parsing + mask IoU + matching + accumulate + 12 stats")
        for kind in args.detections:
            results_file = paths[kind]
            print(f"\n{kind} detections")
            ours = pdmetrics_runner(paths["gt"], results_file)
            if args.profile:
                from pyinstrument import Profiler

                profiler = Profiler()
                with profiler:
                    ours()
                print(profiler.output_text(unicode=False, color=False))
            compare_timings(ours, paths["gt"], results_file, args.repeat, args.skip)


if __name__ == "__main__":
    main()
