"""Benchmark: ``df.detection.compare`` of two detectors on a COCO-scale synthetic set.

The ground truth and the first detector are :mod:`bench_detection`'s (about 7 ground truths
and up to 100 detections per image); the second detector is the first with its boxes jittered
and its scores perturbed. Times ``compare`` (the image-level paired bootstrap, ``--resamples``
resamples) against two ``evaluate`` calls (the point estimates alone), median of ``--repeat``.

    python benchmarks/bench_compare_detection.py --images 5000 --classes 80 --resamples 200
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from bench_detection import simulate
from timing import median_time

import pdmetrics  # noqa: F401  (registers the accessors)


def second_detector(det: pd.DataFrame, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    other = det.copy()
    other["x"] = (other["x"] + rng.normal(0, 0.05, len(other)) * other["w"]).round(2)
    other["score"] = np.clip(other["score"] + rng.normal(0, 0.1, len(other)), 0, 1).round(4)
    return other


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--images", type=int, default=5000)
    parser.add_argument("--classes", type=int, default=80)
    parser.add_argument("--resamples", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    gt, det = simulate(args.images, args.classes, args.seed)
    frame = pd.concat(
        [det.assign(model="a"), second_detector(det, args.seed + 1).assign(model="b")], ignore_index=True
    )
    images = np.arange(1, args.images + 1)
    print(
        f"{args.images} images, {args.classes} classes, {len(gt)} ground truths, "
        f"{len(frame)} detections of 2 systems, {args.resamples} resamples"
    )
    options = dict(ground_truth=gt, iscrowd="iscrowd", area="area", images=images)

    def compare():
        return frame.detection.compare(system="model", n_resamples=args.resamples, **options)

    def evaluate_both():
        return [frame[frame["model"] == s].detection.evaluate(**options) for s in ("a", "b")]

    evaluate_time, _ = median_time(evaluate_both, args.repeat)
    compare_time, table = median_time(compare, args.repeat)
    print(f"two evaluate calls       median {evaluate_time:8.3f} s")
    print(f"compare                  median {compare_time:8.3f} s   ({compare_time / evaluate_time:.1f}x)")
    print(table[table["label"] == "(all)"].round(4).to_string())


if __name__ == "__main__":
    main()
