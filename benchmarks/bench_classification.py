"""Benchmark: valor-style classification metrics from a DataFrame.

Generates ``--datums`` datums x ``--classes`` classes of softmax-like scores (seeded) and
times pdmetrics' ``df.detection.classification`` tables against valor-lite (load +
finalize + compute) and scikit-learn (one-vs-rest ROC AUC, precision/recall/F1 of the
argmax) when they are installed. Prints medians over ``--repeat`` runs, the ratios, and
the largest difference between the numbers.

    python benchmarks/bench_classification.py --datums 100000 --classes 10

``--images N`` also times semantic-segmentation IoU on N random 512 x 512 label masks
(5 classes, 0 = background) against valor-lite's semantic segmentation.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd
from timing import median_time

import pdmetrics  # noqa: F401

THRESHOLDS = [0.0, 0.25, 0.5, 0.75]


def simulate(n_datums: int, n_classes: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_classes, n_datums)
    logits = rng.normal(size=(n_datums, n_classes))
    logits[np.arange(n_datums), truth] += 1.5
    scores = np.exp(logits)
    scores /= scores.sum(axis=1, keepdims=True)
    labels = [f"c{j}" for j in range(n_classes)]
    frame = pd.DataFrame(scores, columns=labels)
    frame.insert(0, "truth", np.array(labels, dtype=object)[truth])
    return frame


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datums", type=int, default=100_000)
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--reference-repeat", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--images", type=int, default=0, help="also benchmark segmentation on N images")
    args = parser.parse_args()

    frame = simulate(args.datums, args.classes, args.seed)
    labels = [c for c in frame.columns if c != "truth"]
    long = frame.melt(id_vars="truth", var_name="label", value_name="score", ignore_index=False)
    long = long.rename_axis("datum").reset_index()
    print(
        f"{args.datums:,} datums x {args.classes} classes = {len(long):,} (datum, label) rows; "
        f"thresholds {THRESHOLDS}; median of {args.repeat}"
    )

    results = {}

    def run(name, function, repeat=args.repeat):
        seconds, value = median_time(function, repeat)
        results[name] = (seconds, value)
        print(f"  {name:<52s} {seconds:8.3f} s")

    run(
        "pdmetrics labels table (wide, P/R/F1/counts + ROC AUC)",
        lambda: frame.detection.classification(y_true="truth", score=labels, score_thresholds=THRESHOLDS),
    )
    run(
        "pdmetrics labels table (long)",
        lambda: long.detection.classification(
            y_true="truth", label="label", score="score", datum="datum", score_thresholds=THRESHOLDS
        ),
    )
    run(
        "pdmetrics summary (accuracy + mean ROC AUC)",
        lambda: frame.detection.classification(
            y_true="truth", score=labels, table="summary", score_thresholds=THRESHOLDS
        ),
    )
    run(
        "pdmetrics confusion matrix",
        lambda: frame.detection.classification(
            y_true="truth", score=labels, table="confusion", score_thresholds=THRESHOLDS, max_examples=0
        ),
    )
    run(
        "pdmetrics PR curve (19 thresholds)",
        lambda: frame.detection.classification(
            y_true="truth", score=labels, table="pr_curve", zero_division=0
        ),
    )
    run(
        "pdmetrics errors breakdown (19 thresholds, 1 example)",
        lambda: frame.detection.classification(y_true="truth", score=labels, table="errors"),
    )
    ours = results["pdmetrics labels table (wide, P/R/F1/counts + ROC AUC)"]

    try:
        from valor_lite.classification import Classification, Loader
    except ImportError:
        print("  valor-lite not installed: skipped")
    else:
        scores = frame[labels].to_numpy()
        truth = frame["truth"].to_numpy()

        def valor():
            loader = Loader.in_memory()
            loader.add_data(
                [
                    Classification(
                        uid=str(i), groundtruth=truth[i], predictions=labels, scores=scores[i].tolist()
                    )
                    for i in range(len(truth))
                ]
            )
            evaluator = loader.finalize()
            pr = evaluator.compute_precision_recall(score_thresholds=THRESHOLDS, hardmax=True)
            roc = evaluator.compute_rocauc()
            return pr, roc

        run("valor-lite load + precision_recall + rocauc", valor, args.reference_repeat)
        seconds, (pr, roc) = results["valor-lite load + precision_recall + rocauc"]
        table = ours[1].set_index(["label", "score_threshold"])
        worst_count = 0
        for metric in pr[list(pr)[1]]:  # Counts
            key = (metric.parameters["label"], metric.parameters["score_threshold"])
            worst_count = max(
                worst_count,
                max(abs(int(table.loc[key, f]) - metric.value[f]) for f in ("tp", "fp", "fn", "tn")),
            )
        auc = table.groupby(level="label")["roc_auc"].first()
        worst_auc = max(abs(auc[m.parameters["label"]] - m.value) for m in roc[list(roc)[0]])
        print(
            f"    ratio valor-lite / pdmetrics: {seconds / ours[0]:.1f}x; largest difference: counts "
            f"{worst_count}, ROC AUC {worst_auc:.2e}"
        )

    try:
        from sklearn.metrics import precision_recall_fscore_support, roc_auc_score
    except ImportError:
        print("  scikit-learn not installed: skipped")
    else:
        scores = frame[labels].to_numpy()
        truth = frame["truth"].to_numpy()

        def sklearn():
            auc = roc_auc_score(truth, scores, multi_class="ovr", average=None, labels=labels)
            predicted = np.array(labels, dtype=object)[scores.argmax(axis=1)]
            prf = precision_recall_fscore_support(truth, predicted, labels=labels, zero_division=0)
            return auc, prf

        run("scikit-learn roc_auc_score(ovr) + P/R/F1 at argmax", sklearn)
        seconds, (auc, prf) = results["scikit-learn roc_auc_score(ovr) + P/R/F1 at argmax"]
        table = ours[1][ours[1]["score_threshold"] == 0.0].set_index("label").loc[labels]
        print(
            f"    ratio scikit-learn / pdmetrics: {seconds / ours[0]:.1f}x; largest difference: ROC AUC "
            f"{np.max(np.abs(table['roc_auc'].to_numpy() - auc)):.2e}, precision "
            f"{np.max(np.abs(table['precision'].to_numpy() - prf[0])):.2e}, recall "
            f"{np.max(np.abs(table['recall'].to_numpy() - prf[1])):.2e}"
        )

    if args.images:
        segmentation(args)


def segmentation(args) -> None:
    rng = np.random.default_rng(args.seed)
    truth = [rng.integers(0, 5, (512, 512)).astype(np.uint16) for _ in range(args.images)]
    prediction = [
        np.where(rng.random(t.shape) < 0.8, t, rng.integers(0, 5, t.shape)).astype(np.uint16) for t in truth
    ]
    masks = pd.DataFrame({"gt": truth, "pred": prediction})
    print(f"segmentation: {args.images} images of 512 x 512 pixels, 4 classes + background")
    ours, table = median_time(
        lambda: masks.detection.segmentation(y_true="gt", y_pred="pred", background=0, table="summary"),
        args.repeat,
    )
    print(f"  {'pdmetrics segmentation summary (mean IoU)':<52s} {ours:8.3f} s")
    try:
        from valor_lite.semantic_segmentation import Loader, Segmentation
    except ImportError:
        print("  valor-lite not installed: skipped")
        return

    def valor():
        loader = Loader.in_memory()
        loader.add_data(
            [
                Segmentation(uid=str(i), groundtruths=t, predictions=p, labels=["1", "2", "3", "4"])
                for i, (t, p) in enumerate(zip(truth, prediction))
            ]
        )
        return loader.finalize().compute_precision_recall_iou()

    seconds, metrics = median_time(valor, args.reference_repeat)
    miou = next(m.value for ms in metrics.values() for m in ms if m.type == "mIOU")
    print(f"  {'valor-lite semantic segmentation':<52s} {seconds:8.3f} s")
    print(
        f"    ratio valor-lite / pdmetrics: {seconds / ours:.1f}x; mean IoU difference "
        f"{abs(miou - table['mean_iou'].iloc[0]):.2e}"
    )


if __name__ == "__main__":
    main()
