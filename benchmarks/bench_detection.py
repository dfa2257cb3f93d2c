"""Benchmark: COCO bbox evaluation of a COCO-scale synthetic set from DataFrames.

Generates (seeded) ``--images`` images with ``--classes`` classes, about 7 ground truths
and up to 100 detections per image (jittered copies of the ground truths plus up to
``--clutter`` other boxes per image: the default gives about 44 detections per image,
``--clutter 200`` about 100, as a detector's result file on COCO val), then times
``dets.detection.evaluate(...)``. When faster-coco-eval is installed, it and pdmetrics run in
turn ``--repeat`` times (evaluate + accumulate + summarize on the same data) and the medians
and the median of the paired ratios are printed; pycocotools runs once. The largest
difference in any of the 12 stats is printed too.

    python benchmarks/bench_detection.py --repeat 5
    python benchmarks/bench_detection.py --repeat 5 --clutter 200
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics

import numpy as np
import pandas as pd
from timing import median_time, paired_times

import pdmetrics  # noqa: F401  (registers the accessors)


def simulate(
    n_images: int, n_classes: int, seed: int, clutter: int = 60
) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    n_gt = rng.poisson(7, n_images)
    gt_image = np.repeat(np.arange(1, n_images + 1), n_gt)
    n = gt_image.size
    w = np.exp(rng.uniform(np.log(8), np.log(400), n))
    h = w * np.exp(rng.normal(0, 0.4, n))
    x = rng.uniform(0, 640, n)
    y = rng.uniform(0, 480, n)
    gt = pd.DataFrame(
        {
            "image": gt_image,
            "label": rng.integers(1, n_classes + 1, n),
            "x": x.round(2),
            "y": y.round(2),
            "w": w.round(2),
            "h": h.round(2),
            "iscrowd": (rng.random(n) < 0.01).astype(int),
        }
    )
    gt["area"] = (gt["w"] * gt["h"] * rng.uniform(0.5, 0.9, n)).round(2)
    # detections: jittered copies of ground truths (some with the wrong label) plus clutter
    copies = rng.integers(0, 5, n)
    src = np.repeat(np.arange(n), copies)
    m = src.size
    jitter = rng.normal(0, 0.12, (m, 4))
    label = gt["label"].to_numpy()[src].copy()
    wrong = rng.random(m) < 0.1
    label[wrong] = rng.integers(1, n_classes + 1, int(wrong.sum()))
    det = pd.DataFrame(
        {
            "image": gt_image[src],
            "label": label,
            "x": (x[src] + jitter[:, 0] * w[src]).round(2),
            "y": (y[src] + jitter[:, 1] * h[src]).round(2),
            "w": (w[src] * np.exp(jitter[:, 2])).round(2),
            "h": (h[src] * np.exp(jitter[:, 3])).round(2),
            "score": rng.beta(4, 2, m).round(4),
        }
    )
    n_clutter = rng.integers(0, clutter + 1, n_images)
    k = int(n_clutter.sum())
    cw = np.exp(rng.uniform(np.log(8), np.log(300), k))
    clutter = pd.DataFrame(
        {
            "image": np.repeat(np.arange(1, n_images + 1), n_clutter),
            "label": rng.integers(1, n_classes + 1, k),
            "x": rng.uniform(0, 640, k).round(2),
            "y": rng.uniform(0, 480, k).round(2),
            "w": cw.round(2),
            "h": (cw * np.exp(rng.normal(0, 0.4, k))).round(2),
            "score": rng.beta(2, 4, k).round(4),
        }
    )
    det = pd.concat([det, clutter], ignore_index=True)
    # at most 100 detections per image (the highest scores), as detectors emit
    det = det.sort_values(["image", "score"], ascending=[True, False], kind="stable")
    det = det[det.groupby("image").cumcount() < 100].sort_index().reset_index(drop=True)
    return gt, det


def to_coco(gt: pd.DataFrame, det: pd.DataFrame, n_classes: int, n_images: int) -> tuple[dict, list]:
    annotations = [
        {
            "id": i + 1,
            "image_id": int(r.image),
            "category_id": int(r.label),
            "bbox": [r.x, r.y, r.w, r.h],
            "area": r.area,
            "iscrowd": int(r.iscrowd),
        }
        for i, r in enumerate(gt.itertuples(index=False))
    ]
    images = [{"id": i} for i in range(1, n_images + 1)]
    dataset = {
        "images": images,
        "annotations": annotations,
        "categories": [{"id": c} for c in range(1, n_classes + 1)],
    }
    results = [
        {
            "image_id": int(r.image),
            "category_id": int(r.label),
            "bbox": [r.x, r.y, r.w, r.h],
            "score": r.score,
        }
        for r in det.itertuples(index=False)
    ]
    return dataset, results


def reference_runner(module: str, dataset: dict, results: list):
    if module == "pycocotools":
        from pycocotools.coco import COCO
        from pycocotools.cocoeval import COCOeval
    else:
        from faster_coco_eval import COCO
        from faster_coco_eval import COCOeval_faster as COCOeval
    with contextlib.redirect_stdout(io.StringIO()):
        coco_gt = COCO()
        coco_gt.dataset = dataset
        coco_gt.createIndex()
        coco_dt = coco_gt.loadRes(results)

    def run():
        with contextlib.redirect_stdout(io.StringIO()):
            evaluator = COCOeval(coco_gt, coco_dt, "bbox")
            evaluator.evaluate()
            evaluator.accumulate()
            evaluator.summarize()
        return np.asarray(evaluator.stats[:12], dtype=float)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--images", type=int, default=5000)
    parser.add_argument("--classes", type=int, default=80)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--clutter", type=int, default=60, help="most clutter boxes per image")
    parser.add_argument(
        "--skip", nargs="*", default=[], help="references to skip: pycocotools faster_coco_eval"
    )
    args = parser.parse_args()

    gt, det = simulate(args.images, args.classes, args.seed, args.clutter)
    print(
        f"{args.images} images, {args.classes} classes, {len(gt)} ground truths, {len(det)} detections "
        f"({len(det) / args.images:.0f} per image)"
    )
    all_images = np.arange(1, args.images + 1)

    def ours():
        return det.detection.evaluate(ground_truth=gt, iscrowd="iscrowd", area="area", images=all_images)

    ours()  # imports out of the timing
    dataset, results = to_coco(gt, det, args.classes, args.images)
    references = [m for m in ("faster_coco_eval", "pycocotools") if m not in args.skip]
    runners = {}
    for module in references:
        try:
            runners[module] = reference_runner(module, dataset, results)
        except ImportError:
            print(f"{module:25s} not installed")
    if "faster_coco_eval" in runners:
        ours_times, ref_times, table, ref_stats = paired_times(ours, runners["faster_coco_eval"], args.repeat)
        for clock in ("wall", "cpu"):
            ours_time = statistics.median(ours_times[clock])
            ratio = statistics.median(r / o for r, o in zip(ref_times[clock], ours_times[clock]))
            print(f"{clock} time: median of {args.repeat} runs in turn, ratio = median of the paired ratios")
            print(
                f"pdmetrics evaluate        median {ours_time:8.3f} s   (runs: {_seconds(ours_times[clock])})"
            )
            _print_reference("faster_coco_eval", statistics.median(ref_times[clock]), ratio, ref_stats, table)
            print(f"{'':25s} runs: {_seconds(ref_times[clock])}")
        ours_time = statistics.median(ours_times["wall"])
    else:
        ours_time, table = median_time(ours, args.repeat)
        print(f"pdmetrics evaluate        median {ours_time:8.3f} s")
    if "pycocotools" in runners:
        ref_time, ref_stats = median_time(runners["pycocotools"], 1)
        _print_reference("pycocotools", ref_time, ref_time / ours_time, ref_stats, table)


def _seconds(times: list) -> str:
    return " ".join(f"{t:.3f}" for t in times)


def _print_reference(module: str, seconds: float, ratio: float, ref_stats, table) -> None:
    ref_stats = np.where(ref_stats == -1, np.nan, ref_stats)
    diff = np.nanmax(np.abs(ref_stats - table["value"].to_numpy()))
    print(f"{module:25s} median {seconds:8.3f} s   ratio {ratio:6.2f}x   max |stat difference| {diff:.2e}")


if __name__ == "__main__":
    main()
