"""Benchmark: ``evaluate`` (COCO's 12 numbers) on dask DataFrames against the pandas path, from parquet.

Writes seeded synthetic boxes as parquet (file by file): ``--images`` images (default 50,000),
20 classes, about 20 ground truths and 40 detections per image (default 1M and 2M): half the
detections are jittered copies of ground truths (sometimes with the wrong class), half are
random boxes; scores rounded to 3 decimals, so there are many exact ties (input order decides).
Ground truth gets COCO's ``iscrowd`` (1%) and an ``area``. Then, each in a fresh child process
(its peak RSS is its own):

- ``pandas``: ``pd.read_parquet`` of both folders, then ``dt.detection.evaluate(...)``;
- ``dask``: ``dd.read_parquet`` of both folders, then ``ddt.detection.evaluate(...)`` with the
  ground truth as a dask frame too (dask's threaded scheduler).

Prints the median wall time and peak RSS of each and checks that the 12 numbers and the counts
agree (rtol 1e-12).

    python benchmarks/bench_dask_detection.py [--images 50000] [--repeats 3] [--files 10]
        [--folder /tmp/pdmetrics-bench-dask-detection]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

N_CLASSES = 20
GT_PER_IMAGE = 20
DT_PER_IMAGE = 40


def _boxes(rng, n: int) -> np.ndarray:
    w = rng.uniform(4, 200, n)
    h = rng.uniform(4, 200, n)
    return np.column_stack([rng.uniform(0, 640 - w), rng.uniform(0, 480 - h), w, h])


def write_parquet(folder: Path, n_images: int, files: int, seed: int = 0) -> Path:
    """Ground truths and detections of ``n_images`` images in ``folder/<n_images>/{gt,dt}``."""
    target = folder / str(n_images)
    done = target / "_complete"
    if done.exists():
        return target
    for name in ("gt", "dt"):
        (target / name).mkdir(parents=True, exist_ok=True)
    for i, images in enumerate(np.array_split(np.arange(n_images), files)):
        rng = np.random.default_rng([seed, i])
        n_gt = rng.poisson(GT_PER_IMAGE, images.size)
        gt_image = np.repeat(images, n_gt)
        gt_boxes = _boxes(rng, gt_image.size)
        gt = pd.DataFrame(
            {
                "image": gt_image,
                "label": rng.integers(1, N_CLASSES + 1, gt_image.size),
                "x": gt_boxes[:, 0],
                "y": gt_boxes[:, 1],
                "w": gt_boxes[:, 2],
                "h": gt_boxes[:, 3],
                "iscrowd": (rng.random(gt_image.size) < 0.01).astype("int8"),
            }
        )
        gt["area"] = gt["w"] * gt["h"] * rng.uniform(0.6, 1.0, len(gt))
        # detections: jittered ground truths (10% with another class) and random boxes
        copies = gt.sample(n=len(gt), replace=False, random_state=i)
        jitter = rng.normal(0, 0.08, (len(copies), 4)) * copies[["w", "h", "w", "h"]].to_numpy()
        near = pd.DataFrame(
            {
                "image": copies["image"].to_numpy(),
                "label": np.where(
                    rng.random(len(copies)) < 0.1,
                    rng.integers(1, N_CLASSES + 1, len(copies)),
                    copies["label"].to_numpy(),
                ),
                "x": copies["x"].to_numpy() + jitter[:, 0],
                "y": copies["y"].to_numpy() + jitter[:, 1],
                "w": np.abs(copies["w"].to_numpy() + jitter[:, 2]),
                "h": np.abs(copies["h"].to_numpy() + jitter[:, 3]),
                "score": np.round(rng.beta(5, 2, len(copies)), 3),
            }
        )
        n_far = images.size * DT_PER_IMAGE - len(near)
        far_boxes = _boxes(rng, n_far)
        far = pd.DataFrame(
            {
                "image": rng.choice(images, n_far),
                "label": rng.integers(1, N_CLASSES + 1, n_far),
                "x": far_boxes[:, 0],
                "y": far_boxes[:, 1],
                "w": far_boxes[:, 2],
                "h": far_boxes[:, 3],
                "score": np.round(rng.beta(2, 5, n_far), 3),
            }
        )
        dt = pd.concat([near, far], ignore_index=True).sample(frac=1, random_state=i)
        gt.to_parquet(target / "gt" / f"part-{i:04d}.parquet", index=False)
        dt.to_parquet(target / "dt" / f"part-{i:04d}.parquet", index=False)
    done.touch()
    return target


OPTIONS = {"iscrowd": "iscrowd", "area": "area"}


def run_child(engine: str, folder: Path) -> dict:
    """One timed run in this process: read both tables, ``evaluate``."""
    import pdmetrics  # noqa: F401, PLC0415

    warnings.simplefilter("ignore")
    if engine == "dask":  # imported before the clock starts, as pandas is
        import dask  # noqa: PLC0415
        import dask.dataframe as dd  # noqa: PLC0415
    start = time.perf_counter()
    if engine == "pandas":
        gt = pd.read_parquet(folder / "gt")
        dt = pd.read_parquet(folder / "dt")
        table = dt.detection.evaluate(ground_truth=gt, **OPTIONS)
    else:
        gt = dd.read_parquet(str(folder / "gt" / "*.parquet"))
        dt = dd.read_parquet(str(folder / "dt" / "*.parquet"))
        with dask.config.set(scheduler="threads"):
            table = dt.detection.evaluate(ground_truth=gt, **OPTIONS)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux -> MB
    table_file = folder / f"evaluate-{engine}.pickle"  # for the comparison
    pd.to_pickle(table, table_file)
    return {"seconds": seconds, "peak_mb": peak, "table": str(table_file)}


def child(engine: str, folder: Path) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", engine, "--folder", str(folder)], capture_output=True, text=True
    )
    if out.returncode:
        raise RuntimeError(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def same_tables(a: str, b: str) -> bool:
    a, b = pd.read_pickle(a), pd.read_pickle(b)
    if a.attrs != b.attrs:
        print(f"  counts differ: {a.attrs} vs {b.attrs}")
        return False
    if not np.allclose(a["value"], b["value"], rtol=1e-12, atol=0, equal_nan=True):
        print("  values differ")
        return False
    return a.drop(columns="value").equals(b.drop(columns="value"))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--images", type=int, default=50_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--files", type=int, default=10)
    parser.add_argument("--folder", type=Path, default=Path("/tmp/pdmetrics-bench-dask-detection"))
    parser.add_argument("--child", choices=["pandas", "dask"])
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_child(args.child, args.folder)))
        return
    start = time.perf_counter()
    folder = write_parquet(args.folder, args.images, args.files)
    print(
        f"{args.images:,} images: parquet in {folder} ({time.perf_counter() - start:.1f} s to write or find)"
    )
    runs = {engine: [child(engine, folder) for _ in range(args.repeats)] for engine in ("dask", "pandas")}
    table = pd.read_pickle(runs["pandas"][-1]["table"])
    info = table.attrs["pdmetrics"]
    print(f"  {info['n_detections']:,} detections, {info['n_ground_truth']:,} ground truths")
    summary = {}
    for engine, rs in runs.items():
        seconds, peak = statistics.median(r["seconds"] for r in rs), max(r["peak_mb"] for r in rs)
        summary[engine] = seconds
        print(f"  {engine:6s} median {seconds:7.2f} s   peak RSS {peak:7.0f} MB  ({len(rs)} runs)")
    equal = same_tables(runs["dask"][-1]["table"], runs["pandas"][-1]["table"])
    print(f"  dask / pandas time: {summary['dask'] / summary['pandas']:.2f}x   tables equal: {equal}")
    print(table.round(4).to_string())


if __name__ == "__main__":
    main()
