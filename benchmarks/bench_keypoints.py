"""Benchmark: COCO keypoint (``iouType="keypoints"``) evaluation from COCO JSON files.

Writes (seeded) a synthetic COCO person-keypoint set to a temporary directory with the
generator of the tests (``tests/keypoint_files.py``): ``--images`` images, 0 to 6 people per
image (15 % of the images empty), 17 keypoints each (30 % unlabelled, 12 % of the people with
none: ``num_keypoints`` 0), 5 % crowd regions; results are 0 to 3 jittered copies of each
person plus clutter, without ``bbox`` (pycocotools' ``loadRes`` then takes the keypoints'
extent; ``--with-bbox`` gives each result a box).

Each timed run starts from the files and does everything: loading the JSON, the OKS of every
detection with every ground truth of its image and category, matching at the ten thresholds,
accumulating precision/recall and the 10 stats:

- pdmetrics: ``read_coco(gt_file, results_file)`` + ``evaluate(dt, ground_truth=gt, iou_type="keypoints")``;
- faster-coco-eval: ``COCO(gt_file)``, ``loadRes(results_file)``,
  ``COCOeval_faster(..., "keypoints")`` ``evaluate(); accumulate(); summarize()``;
- pycocotools: the same with ``COCOeval``.

Prints the median time of each over ``--repeat`` runs, the ratios, and the largest difference
in the 10 stats (checked equal to 1e-12).

    python benchmarks/bench_keypoints.py --images 5000 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from bench_segmentation import compare_timings

import pdmetrics  # noqa: F401  (registers the accessors)
from pdmetrics.io import read_coco

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from keypoint_files import keypoint_files  # noqa: E402  (the tests' generator)


def pdmetrics_runner(gt_file: Path, results_file: Path):
    def run():
        gt, dt = read_coco(gt_file, results_file)
        return dt.detection.evaluate(ground_truth=gt, iou_type="keypoints")["value"].to_numpy()

    return run


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--images", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--with-bbox", action="store_true", help="results carry a bbox")
    parser.add_argument(
        "--skip", nargs="*", default=[], help="references to skip: pycocotools faster_coco_eval"
    )
    args = parser.parse_args()
    dataset, results = keypoint_files(args.seed, args.images, 17, with_bbox=args.with_bbox)
    print(
        f"{args.images} images, {len(dataset['annotations'])} people "
        f"({sum(a['num_keypoints'] == 0 for a in dataset['annotations'])} without labelled keypoints, "
        f"{sum(a['iscrowd'] for a in dataset['annotations'])} crowd), {len(results)} results"
    )
    with tempfile.TemporaryDirectory() as tmp:
        gt_file, results_file = Path(tmp) / "gt.json", Path(tmp) / "results.json"
        gt_file.write_text(json.dumps(dataset))
        results_file.write_text(json.dumps(results))
        print("timed: JSON loading + OKS + matching + accumulate + 10 stats")
        runner = pdmetrics_runner(gt_file, results_file)
        compare_timings(
            runner, gt_file, results_file, args.repeat, args.skip, iou_type="keypoints", n_stats=10
        )


if __name__ == "__main__":
    main()
