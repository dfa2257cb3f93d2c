"""Benchmark: ``errors`` (TIDE's error breakdown) against tidecv 1.0.1 on the same COCO files.

The files are made by the generator of the test fixture (``tests/data/tide``; every error
type, crowds, empty images) with ``--images`` images and ``--labels`` labels. Times (median of
``--repeat`` runs):

- pdmetrics: ``read_coco`` of both files, then ``errors`` (boxes; ``--segm`` adds masks);
- tidecv: reading both files (``datasets.COCO``/``COCOResult``), ``TIDE().evaluate`` and the
  main and special errors (what ``tide.summarize()`` computes), run by the Python given as
  ``--tidecv-python`` (tidecv needs numpy < 1.24, so it lives in its own environment), in a
  subprocess that times itself. Both overall dAPs are printed side by side.

    python benchmarks/bench_tide.py --tidecv-python path/to/python --images 2000
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import tempfile
import warnings
from pathlib import Path

from timing import median_time

import pdmetrics  # noqa: F401  (registers the accessors)
from pdmetrics.io import read_coco

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "data" / "tide"

TIDECV = """
import json, statistics, sys, time
from tidecv import TIDE, datasets
gt_path, dt_path, mode, repeat = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
times = []
for _ in range(repeat):
    start = time.perf_counter()
    gt = datasets.COCO(gt_path)
    preds = datasets.COCOResult(dt_path)
    tide = TIDE(mode=mode)
    tide.evaluate(gt, preds, mode=mode, name="run")
    errors = tide.get_all_errors()
    times.append(time.perf_counter() - start)
dap = {**errors["main"]["run"], **errors["special"]["run"]}
print(json.dumps({"seconds": statistics.median(times), "dap": dap}))
"""


def generator():
    spec = importlib.util.spec_from_file_location("make_tide_expected", FIXTURE / "make_tide_expected.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--images", type=int, default=2000)
    parser.add_argument("--labels", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--segm", action="store_true", help="also time masks (iou_type='segm')")
    parser.add_argument("--tidecv-python", help="a Python with tidecv 1.0.1 installed")
    args = parser.parse_args()
    warnings.simplefilter("ignore")

    gt_json, dt_json = generator().make_case(args.seed, args.images, args.labels)
    with tempfile.TemporaryDirectory() as folder:
        gt_path, dt_path = Path(folder) / "gt.json", Path(folder) / "dt.json"
        gt_path.write_text(json.dumps(gt_json))
        dt_path.write_text(json.dumps(dt_json))
        print(
            f"{args.images} images, {args.labels} labels, {len(gt_json['annotations'])} ground truths, "
            f"{len(dt_json)} detections"
        )
        for iou_type, mode in [("bbox", "bbox"), *([("segm", "mask")] if args.segm else [])]:

            def ours(iou_type=iou_type):
                gt, dt = read_coco(gt_path, dt_path)
                return dt.detection.errors(ground_truth=gt, iou_type=iou_type, by=None)

            seconds, table = median_time(ours, args.repeat)
            gt, dt = read_coco(gt_path, dt_path)
            alone, _ = median_time(
                lambda dt=dt, gt=gt, kind=iou_type: dt.detection.errors(ground_truth=gt, iou_type=kind),
                args.repeat,
            )
            print(
                f"\n[{iou_type}] pdmetrics read_coco + errors: {seconds:.3f} s (errors alone {alone:.3f} s)"
            )
            if not args.tidecv_python:
                print("tidecv not timed: pass --tidecv-python")
                continue
            out = subprocess.run(
                [args.tidecv_python, "-c", TIDECV, str(gt_path), str(dt_path), mode, str(args.repeat)],
                capture_output=True,
                text=True,
                check=True,
            )
            ref = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"[{iou_type}] tidecv read + evaluate + errors: {ref['seconds']:.3f} s")
            print(f"[{iou_type}] tidecv / pdmetrics: {ref['seconds'] / seconds:.1f}x")
            dap = table.set_index("error")["dap"] * 100
            worst = max(abs(dap[name] - value) for name, value in ref["dap"].items())
            print(f"[{iou_type}] largest dAP difference (AP points): {worst:.2e}")


if __name__ == "__main__":
    main()
