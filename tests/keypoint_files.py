"""Random COCO person-keypoint files (ground truth and results), seeded.

Used by the keypoint tests and ``benchmarks/bench_keypoints.py``. Each image holds 0 to
``max_people`` ground truths (some images none) of one or two categories, with a box, an area
(part of the box area, as a segment's), ``K`` keypoints inside the box, each labelled
(``v`` 1 or 2) or not (``0, 0, 0``), ``num_keypoints`` counting the labelled ones (some 0), and
a few crowd regions. Results: 0 to 3 jittered copies of each ground truth (the noise grows with
the object's size) and some clutter, also on empty images; ``with_bbox`` gives each result its
keypoints' box with a margin (else none: pycocotools' ``loadRes`` takes the keypoints' extent).
"""

from __future__ import annotations

import numpy as np


def keypoint_files(
    seed: int = 0,
    n_images: int = 40,
    k: int = 17,
    *,
    max_people: int = 6,
    categories: int = 1,
    with_bbox: bool = False,
    crowd: float = 0.05,
    clutter: float = 0.5,
) -> tuple[dict, list]:
    """A COCO keypoint annotation dict and a result list."""
    rng = np.random.default_rng(seed)
    names = [f"joint{j}" for j in range(k)]
    skeleton = [[j + 1, j + 2] for j in range(k - 1)]
    cats = [
        {"id": c + 1, "name": f"person{c}", "keypoints": names, "skeleton": skeleton}
        for c in range(categories)
    ]
    images = [{"id": i + 1, "height": 640, "width": 640} for i in range(n_images)]
    per_image = rng.integers(0, max_people + 1, n_images)
    per_image[rng.random(n_images) < 0.15] = 0
    n = int(per_image.sum())
    image_of = np.repeat(np.arange(1, n_images + 1), per_image)
    label_of = rng.integers(1, categories + 1, n)
    w, h = rng.uniform(4, 300, n), rng.uniform(4, 300, n)
    x, y = rng.uniform(0, 600, n), rng.uniform(0, 600, n)
    area = w * h * rng.uniform(0.3, 0.9, n)
    px = x[:, None] + w[:, None] * rng.random((n, k))
    py = y[:, None] + h[:, None] * rng.random((n, k))
    v = rng.choice([0, 1, 2], size=(n, k), p=[0.3, 0.2, 0.5])
    v[rng.random(n) < 0.12] = 0  # no labelled keypoint: num_keypoints 0
    iscrowd = rng.random(n) < crowd
    px, py = np.where(v > 0, px, 0.0), np.where(v > 0, py, 0.0)
    annotations = []
    for i in range(n):
        kp = np.stack([px[i], py[i], v[i]], axis=1).reshape(-1)
        annotations.append(
            {
                "id": i + 1,
                "image_id": int(image_of[i]),
                "category_id": int(label_of[i]),
                "bbox": [float(x[i]), float(y[i]), float(w[i]), float(h[i])],
                "area": float(area[i]),
                "iscrowd": int(iscrowd[i]),
                "keypoints": [float(c) if j % 3 < 2 else int(c) for j, c in enumerate(kp)],
                "num_keypoints": int((v[i] > 0).sum()),
            }
        )
    # results: jittered copies of the ground truths, plus clutter
    copies = rng.integers(0, 4, n)
    src = np.repeat(np.arange(n), copies)
    scale = np.sqrt(area[src])[:, None] * rng.uniform(0.005, 0.25, src.size)[:, None]
    gx = x[src, None] + w[src, None] * rng.random((src.size, k))
    gy = y[src, None] + h[src, None] * rng.random((src.size, k))
    truth_x, truth_y = np.where(v[src] > 0, px[src], gx), np.where(v[src] > 0, py[src], gy)
    dx = truth_x + rng.normal(0, 1, (src.size, k)) * scale
    dy = truth_y + rng.normal(0, 1, (src.size, k)) * scale
    det_image, det_label = image_of[src], label_of[src]
    det_label = np.where(rng.random(src.size) < 0.1, rng.integers(1, categories + 1, src.size), det_label)
    m = rng.poisson(clutter * n_images) if n_images else 0
    cx, cy = rng.uniform(0, 600, (m, 1)), rng.uniform(0, 600, (m, 1))
    cw, ch = rng.uniform(4, 200, (m, 1)), rng.uniform(4, 200, (m, 1))
    dx = np.vstack([dx, cx + cw * rng.random((m, k))])
    dy = np.vstack([dy, cy + ch * rng.random((m, k))])
    det_image = np.r_[det_image, rng.integers(1, n_images + 1, m)]
    det_label = np.r_[det_label, rng.integers(1, categories + 1, m)]
    scores = rng.random(det_image.size)
    results = []
    for i in range(det_image.size):
        kp = np.stack([dx[i], dy[i], np.ones(k)], axis=1).reshape(-1)
        result = {
            "image_id": int(det_image[i]),
            "category_id": int(det_label[i]),
            "keypoints": [float(c) for c in kp],
            "score": float(scores[i]),
        }
        if with_bbox:
            x0, y0 = dx[i].min() - 3, dy[i].min() - 3
            result["bbox"] = [float(x0), float(y0), float(dx[i].max() + 3 - x0), float(dy[i].max() + 3 - y0)]
        results.append(result)
    return {"images": images, "annotations": annotations, "categories": cats}, results
