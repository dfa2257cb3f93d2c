"""Seeded responses and the configurations of the rsmcompare / rsmsummarize cross-checks.

``python generate.py FOLDER`` writes ``FOLDER/data/preds.csv`` (two systems, ``old`` and
``new``, scoring the same 500 double-scored responses; a few responses lack one system's
score, so the two experiments' responses differ) and ``FOLDER/data/train.csv`` and
``test.csv`` (three features, for one rsmtool experiment), and the configurations in
``FOLDER/configs``: ``old.json`` and ``new.json`` (rsmeval), ``model.json`` (rsmtool),
``compare.json`` (rsmcompare of old and new) and ``summary.json`` (rsmsummarize of all three).
"""

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "rsmcompare12")
    data, configs = root / "data", root / "configs"
    data.mkdir(parents=True, exist_ok=True)
    configs.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(23)
    n = 500
    true = rng.normal(3.5, 1.0, n)
    sc1 = np.clip(np.rint(true + rng.normal(0, 0.6, n)), 1, 6)
    sc2 = np.clip(np.rint(true + rng.normal(0, 0.6, n)), 1, 6)
    sc2[rng.choice(n, 250, replace=False)] = np.nan  # half double-scored
    old = (true + rng.normal(0, 0.8, n)).astype(object)
    new = (0.9 * true + 0.4 + rng.normal(0, 0.6, n)).astype(object)
    old[rng.choice(n, 7, replace=False)] = "missing"  # responses only the new experiment has
    new[rng.choice(n, 4, replace=False)] = "missing"  # and only the old one has
    frame = pd.DataFrame(
        {
            "ID": [f"R{i:04d}" for i in range(n)],
            "sc1": sc1,
            "sc2": sc2,
            "old": old,
            "new": new,
            "L1": rng.choice(["Arabic", "Chinese", "Spanish", "Korean"], n, p=[0.3, 0.3, 0.3, 0.1]),
            "QUESTION": rng.choice(["Q1", "Q2", "Q3"], n),
        }
    )
    frame.to_csv(data / "preds.csv", index=False)
    features = pd.DataFrame(
        {
            "ID": frame["ID"],
            "sc1": sc1,
            "f1": true + rng.normal(0, 0.7, n),
            "f2": 2 * true + rng.normal(0, 2.0, n),
            "f3": rng.normal(0, 1, n) - 0.3 * true,
            "L1": frame["L1"],
        }
    )
    features.iloc[:300].to_csv(data / "train.csv", index=False)
    features.iloc[300:].to_csv(data / "test.csv", index=False)
    evaluation = {
        "predictions_file": "../data/preds.csv",
        "id_column": "ID",
        "human_score_column": "sc1",
        "second_human_score_column": "sc2",
        "trim_min": 1,
        "trim_max": 6,
        "subgroups": ["L1", "QUESTION"],
    }
    written = {
        "old": {
            "experiment_id": "old_model",
            "description": "The model in production.",
            "system_score_column": "old",
            **evaluation,
        },
        "new": {
            "experiment_id": "new_model",
            "description": "The retrained model, scaled.",
            "system_score_column": "new",
            "scale_with": "asis",
            **evaluation,
        },
        "model": {
            "experiment_id": "lr_model",
            "description": "A linear regression on three features.",
            "model": "LinearRegression",
            "train_file": "../data/train.csv",
            "test_file": "../data/test.csv",
            "id_column": "ID",
            "train_label_column": "sc1",
            "test_label_column": "sc1",
            "features": ["f1", "f2", "f3"],
            "trim_min": 1,
            "trim_max": 6,
            "use_scaled_predictions": True,
        },
        "compare": {
            "comparison_id": "old_vs_new",
            "experiment_id_old": "old_model",
            "experiment_dir_old": "../experiments/old",
            "description_old": "In production.",
            "use_scaled_predictions_old": False,
            "experiment_id_new": "new_model",
            "experiment_dir_new": "../experiments/new",
            "description_new": "Retrained.",
            "use_scaled_predictions_new": True,
            "subgroups": ["L1", "QUESTION"],
        },
        "summary": {
            "summary_id": "three_models",
            "description": "Three scoring models.",
            "experiment_dirs": ["../experiments/old", "../experiments/new", "../experiments/model"],
            "experiment_names": ["production", "retrained", "linear"],
        },
    }
    for name, config in written.items():
        (configs / f"{name}.json").write_text(json.dumps(config, indent=2) + "\n")
    feature_experiments(data, configs)


def feature_experiments(data: Path, configs: Path) -> None:
    """Two small rsmtool experiments for rsmcompare's feature sections (their own seed, so the
    files above stay as they are): 240 double-scored responses by L1; the old model uses f1, f2
    and f3, the new one f1, a re-extracted f2 and f4 (f3 only in the old, f4 only in the new);
    f4 is missing for three training responses (the new model trains on fewer)."""
    rng = np.random.default_rng(2323)
    n, n_train = 240, 150
    true = rng.normal(3.5, 1.0, n)
    sc1 = np.clip(np.rint(true + rng.normal(0, 0.6, n)), 1, 6)
    sc2 = np.clip(np.rint(true + rng.normal(0, 0.6, n)), 1, 6)
    f2 = 2 * true + rng.normal(0, 2.0, n)
    common = {
        "ID": [f"F{i:03d}" for i in range(n)],
        "sc1": sc1,
        "sc2": sc2,
        "L1": rng.choice(["Arabic", "Chinese", "Spanish"], n, p=[0.4, 0.35, 0.25]),
        "f1": true + rng.normal(0, 0.7, n),
    }
    old = pd.DataFrame({**common, "f2": f2, "f3": rng.normal(0, 1, n) - 0.3 * true})
    f4 = (0.5 * true + rng.normal(0, 0.8, n)).astype(object)
    f4[[3, 40, 77]] = "NA"  # training responses the new model leaves out
    new = pd.DataFrame({**common, "f2": f2 + rng.normal(0, 0.5, n), "f4": f4})
    for name, frame in (("old", old), ("new", new)):
        frame.iloc[:n_train].to_csv(data / f"features_{name}_train.csv", index=False)
        frame.iloc[n_train:].to_csv(data / f"features_{name}_test.csv", index=False)
    for name, features, scaled in (("old", ["f1", "f2", "f3"], False), ("new", ["f1", "f2", "f4"], True)):
        config = {
            "experiment_id": f"features_{name}",
            "description": f"A linear regression on {', '.join(features)}.",
            "model": "LinearRegression",
            "train_file": f"../data/features_{name}_train.csv",
            "test_file": f"../data/features_{name}_test.csv",
            "id_column": "ID",
            "train_label_column": "sc1",
            "test_label_column": "sc1",
            "second_human_score_column": "sc2",
            "features": features,
            "subgroups": ["L1"],
            "trim_min": 1,
            "trim_max": 6,
            "use_scaled_predictions": scaled,
        }
        (configs / f"features_{name}.json").write_text(json.dumps(config, indent=2) + "\n")
    compare = {
        "comparison_id": "features_old_vs_new",
        "experiment_id_old": "features_old",
        "experiment_dir_old": "../experiments/features_old",
        "description_old": "Three features.",
        "use_scaled_predictions_old": False,
        "experiment_id_new": "features_new",
        "experiment_dir_new": "../experiments/features_new",
        "description_new": "f3 replaced by f4.",
        "use_scaled_predictions_new": True,
        "subgroups": ["L1"],
    }
    (configs / "features_compare.json").write_text(json.dumps(compare, indent=2) + "\n")


if __name__ == "__main__":  # run as a script only (pytest imports it)
    main()
