"""Write random COCO files and tidecv 1.0.1's error breakdown of them (the test fixture).

Run with a Python that has tidecv 1.0.1 (it needs numpy < 1.24, opencv-python < 4.9 and
pycocotools < 2.0.9): ``python tests/data/tide/make_tide_expected.py``. It writes, beside itself,
``<case>_gt.json`` and ``<case>_dt.json`` for each case and ``expected.json``: per case and
mode, tidecv's AP and dAPs (overall, and per label from its per-class AP objects), in tidecv's
AP points (0–100), and its error counts.

The data are made so that every error type occurs: per object, detections that are right,
poorly placed, of another label, duplicated, of another label and poorly placed, plus
background detections, crowd regions with detections over them, images without annotations,
images with detections only, and a label that has detections but no ground truth; the
``ties`` case has many equal scores and whole-pixel boxes.
"""

import json
import sys
from pathlib import Path

import numpy as np
from pycocotools import mask as mask_utils

HERE = Path(__file__).resolve().parent
SIZE = 200  # images are SIZE x SIZE


def _rle(box):
    x, y, w, h = box
    poly = [[x, y, x + w, y, x + w, y + h, x, y + h]]
    rle = mask_utils.merge(mask_utils.frPyObjects(poly, SIZE, SIZE))
    return {"size": rle["size"], "counts": rle["counts"].decode("ascii")}


def _poly(box, rng):
    x, y, w, h = box
    # a hexagon inside the box (not the box itself, so masks and boxes differ)
    a, b = rng.uniform(0.1, 0.3) * w, rng.uniform(0.1, 0.3) * h
    return [[x + a, y, x + w - a, y, x + w, y + b, x + w - a, y + h, x + a, y + h, x, y + h - b]]


def _box(rng, x=None, y=None):
    w, h = rng.uniform(15, 60, size=2)
    x = rng.uniform(0, SIZE - w) if x is None else x
    y = rng.uniform(0, SIZE - h) if y is None else y
    return [float(x), float(y), float(w), float(h)]


def _jitter(box, rng, scale):
    x, y, w, h = box
    dx, dy = rng.normal(0, scale * w), rng.normal(0, scale * h)
    dw, dh = np.exp(rng.normal(0, scale, size=2))
    nw, nh = max(w * dw, 2.0), max(h * dh, 2.0)
    nx = float(np.clip(x + dx, 0, SIZE - nw))
    ny = float(np.clip(y + dy, 0, SIZE - nh))
    return [nx, ny, float(nw), float(nh)]


def make_case(seed: int, n_images: int, n_labels: int, ties: bool = False):
    """A ground-truth file and a result file; ``ties``: scores on a 0.1 grid and whole-pixel boxes."""
    rng = np.random.default_rng(seed)
    labels = list(range(1, n_labels + 1))
    extra_label = n_labels + 1  # detections only
    images, anns, dets = [], [], []
    for image in range(1, n_images + 1):
        images.append({"id": image, "file_name": f"{image}.jpg", "height": SIZE, "width": SIZE})
        kind = rng.random()
        if kind < 0.08:
            continue  # an image without annotations or detections
        if kind < 0.16:  # detections only
            for _ in range(rng.integers(1, 4)):
                dets.append((image, int(rng.choice(labels)), _box(rng), float(rng.random())))
            continue
        for _ in range(rng.integers(1, 6)):
            label = int(rng.choice(labels))
            box = _box(rng)
            anns.append((image, label, box, 0))
            r = rng.random()
            other = int(rng.choice([c for c in labels if c != label] or [extra_label]))
            if r < 0.45:
                dets.append((image, label, _jitter(box, rng, 0.05), float(rng.random())))
            elif r < 0.6:
                dets.append((image, label, _jitter(box, rng, 0.35), float(rng.random())))
            elif r < 0.7:
                dets.append((image, other, _jitter(box, rng, 0.05), float(rng.random())))
            elif r < 0.78:
                dets.append((image, other, _jitter(box, rng, 0.45), float(rng.random())))
            # else: missed
            if rng.random() < 0.15:  # a duplicate
                dets.append((image, label, _jitter(box, rng, 0.05), float(rng.random())))
        if rng.random() < 0.3:  # background
            dets.append((image, int(rng.choice(labels)), _box(rng), float(rng.random())))
        if rng.random() < 0.2:  # a crowd, with a detection over it
            label = int(rng.choice(labels))
            crowd = _box(rng)
            anns.append((image, label, crowd, 1))
            inner = [crowd[0] + 1, crowd[1] + 1, crowd[2] * 0.6, crowd[3] * 0.6]
            dets.append((image, label, inner, float(rng.random())))
        if rng.random() < 0.1:
            dets.append((image, extra_label, _box(rng), float(rng.random())))
    if ties:
        anns = [(image, label, [float(round(v)) for v in box], crowd) for image, label, box, crowd in anns]
        dets = [
            (image, label, [float(round(v)) for v in box], round(score, 1))
            for image, label, box, score in dets
        ]
    gt = {
        "images": images,
        "categories": [{"id": c, "name": f"c{c}"} for c in [*labels, extra_label]],
        "annotations": [
            {
                "id": i + 1,
                "image_id": image,
                "category_id": label,
                "bbox": box,
                "area": box[2] * box[3],
                "iscrowd": crowd,
                "segmentation": _rle(box) if crowd else _poly(box, rng),
            }
            for i, (image, label, box, crowd) in enumerate(anns)
        ],
    }
    dt = [
        {"image_id": image, "category_id": label, "bbox": box, "score": score, "segmentation": _rle(box)}
        for image, label, box, score in dets
    ]
    return gt, dt


CASES = {
    "small": (1, 25, 3, False),
    "medium": (2, 120, 5, False),
    "large": (3, 200, 8, False),
    "ties": (4, 80, 3, True),
}


def tidecv_numbers(gt_path: Path, dt_path: Path, mode: str, max_dets: int = 100):
    from tidecv import TIDE, datasets
    from tidecv.errors.main_errors import MissedError

    gt = datasets.COCO(str(gt_path))
    gt.max_dets = max_dets
    preds = datasets.COCOResult(str(dt_path))
    tide = TIDE(mode=mode)
    run = tide.evaluate(gt, preds, mode=mode, name="run")
    main = tide.get_main_errors()["run"]
    special = tide.get_special_errors()["run"]
    base = {k: obj.get_ap() for k, obj in run.ap_data.objs.items() if not obj.is_empty()}
    per_label = {str(k): {"ap": v} for k, v in base.items()}
    for error in TIDE._error_types:
        fixed = run.fix_errors(lambda e, error=error: isinstance(e, error)).objs
        for k in base:
            per_label[str(k)][error.short_name] = max(fixed[k].get_ap() - base[k], 0)
    fp = run.fix_errors(transform=TIDE._special_error_types[0].fix).objs
    fn = run.fix_errors(false_neg_dict=run.false_negatives).objs
    for k in base:
        per_label[str(k)]["FalsePos"] = fp[k].get_ap() - base[k]
        per_label[str(k)]["FalseNeg"] = fn[k].get_ap() - base[k]
    counts = {err.short_name: n for err, n in run.count_errors().items()}
    label_counts = {}
    for error in run.errors:
        owner = error.gt if isinstance(error, MissedError) else error.pred
        key = (str(owner["class"]), type(error).short_name)
        label_counts[key] = label_counts.get(key, 0) + 1
    for (k, name), n in label_counts.items():
        per_label.setdefault(k, {}).setdefault("counts", {})[name] = n
    return {"ap": run.ap, "main": main, "special": special, "counts": counts, "labels": per_label}


def main():
    expected = {}
    for name, (seed, n_images, n_labels, ties) in CASES.items():
        gt, dt = make_case(seed, n_images, n_labels, ties)
        gt_path, dt_path = HERE / f"{name}_gt.json", HERE / f"{name}_dt.json"
        gt_path.write_text(json.dumps(gt, separators=(",", ":")))
        dt_path.write_text(json.dumps(dt, separators=(",", ":")))
        expected[name] = {
            "bbox": tidecv_numbers(gt_path, dt_path, "bbox"),
            "segm": tidecv_numbers(gt_path, dt_path, "mask"),
            "bbox_max_dets_3": tidecv_numbers(gt_path, dt_path, "bbox", max_dets=3),
        }
    (HERE / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")
    print(json.dumps({k: v["bbox"]["main"] for k, v in expected.items()}), file=sys.stderr)


if __name__ == "__main__":
    main()
