"""Seeded predictions files and rsmeval configs exercising every option."""

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/rsmeval12")
    data = root / "data"
    cfg = root / "configs"
    data.mkdir(parents=True, exist_ok=True)
    cfg.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(11)
    n = 600
    true = rng.normal(3.5, 1.0, n)
    sc1 = np.clip(np.rint(true + rng.normal(0, 0.6, n)), 1, 6).astype(object)
    sc2 = np.clip(np.rint(true + rng.normal(0, 0.6, n)), 1, 6).astype(float)
    score = true + rng.normal(0, 0.5, n)
    sc1[rng.choice(n, 15, replace=False)] = 0
    sc1[rng.choice(n, 8, replace=False)] = "TD"
    human_ok = np.clip(np.rint(true + rng.normal(0, 0.6, n)), 1, 6)
    sc2[rng.choice(n, 20, replace=False)] = 0
    sc2[rng.choice(n, 300, replace=False)] = np.nan
    score_na = score.astype(object)
    score_na[rng.choice(n, 6, replace=False)] = "missing"
    cand = np.array([f"C{i:03d}" for i in rng.integers(0, 150, n)])
    L1 = rng.choice(
        ["Arabic", "Chinese", "Spanish", "Korean", "", " "], n, p=[0.3, 0.3, 0.25, 0.1, 0.03, 0.02]
    ).astype(object)
    L1[rng.choice(n, 10, replace=False)] = None
    Q = rng.choice(["Q1", "Q2", "Q3"], n)
    flag_num = rng.choice([0, 1, 2], n, p=[0.8, 0.15, 0.05])
    flag_str = rng.choice(["ok", "review", "1"], n, p=[0.85, 0.1, 0.05])
    frame = pd.DataFrame(
        {
            "ID": [f"R{i:05d}" for i in range(n)],
            "human": sc1,
            "human2": sc2,
            "system": score,
            "human_ok": human_ok,
            "system_na": score_na,
            "cand": cand,
            "L1": L1,
            "QUESTION": Q,
            "ADVISORY": flag_num,
            "STATUS": flag_str,
            "length": rng.integers(50, 300, n),
            "notes": rng.choice(["a", "b"], n),
        }
    )
    frame.to_csv(data / "preds.csv", index=False)
    frame.to_csv(data / "preds.tsv", sep="\t", index=False)
    frame.to_excel(data / "preds.xlsx", index=False)
    frame.to_json(data / "preds.jsonl", orient="records", lines=True)
    # nested jsonlines: scores in a nested dict
    with open(data / "preds_nested.jsonl", "w") as out:
        for rec in frame.to_dict("records"):
            rec = {k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in rec.items()}
            out.write(
                json.dumps(
                    {
                        "ID": rec.pop("ID"),
                        "scores": {"human": rec.pop("human"), "system": rec.pop("system")},
                        **rec,
                    }
                )
                + "\n"
            )
    dup = frame.copy()
    dup.loc[5, "ID"] = dup.loc[3, "ID"]
    dup.to_csv(data / "preds_dup.csv", index=False)
    # a clean file for scaling / constant scores
    m = 400
    t = rng.normal(3, 1, m)
    clean = pd.DataFrame(
        {
            "spkitemid": [f"S{i}" for i in range(m)],
            "sc1": np.clip(np.rint(t + rng.normal(0, 0.5, m)), 1, 5),
            "prediction": t * 0.8 + 0.3 + rng.normal(0, 0.4, m),
            "sc2": np.clip(np.rint(t + rng.normal(0, 0.5, m)), 1, 5),
            "grade": rng.choice(["6", "7", "8", ""], m),
        }
    )
    clean.to_csv(data / "clean.csv", index=False)
    train = pd.DataFrame(
        {"sc1": np.clip(np.rint(t[:300] + 0.2), 1, 5), "prediction": t[:300] * 0.9 + rng.normal(0, 0.3, 300)}
    )
    train.to_csv(data / "train.csv", index=False)

    base = {
        "predictions_file": "../data/preds.csv",
        "id_column": "ID",
        "human_score_column": "human",
        "system_score_column": "system",
        "trim_min": 1,
        "trim_max": 6,
    }
    cl = {
        "predictions_file": "../data/clean.csv",
        "system_score_column": "prediction",
        "trim_min": 1,
        "trim_max": 5,
    }
    configs = {
        "cand": {
            **base,
            "human_score_column": "human_ok",
            "candidate_column": "cand",
            "min_items_per_candidate": 4,
            "subgroups": ["L1", "QUESTION"],
            "min_n_per_group": 20,
        },
        "flags": {
            **base,
            "human_score_column": "human_ok",
            "system_score_column": "system_na",
            "flag_column": {"ADVISORY": [0, 1], "STATUS": ["ok", 1]},
            "subgroups": ["L1"],
            "trim_tolerance": 0.1,
        },
        "h2keep": {
            **base,
            "second_human_score_column": "human2",
            "exclude_zero_scores": False,
            "subgroups": "L1, QUESTION",
            "min_n_per_group": {"L1": 30, "QUESTION": 10},
            "rater_error_variance": 0.3,
        },
        "h2excl": {
            **base,
            "second_human_score_column": "human2",
            "exclude_zero_scores": True,
            "scale_with": "asis",
            "general_sections": ["data_description", "consistency", "evaluation", "true_score_evaluation"],
            "section_order": ["evaluation", "consistency", "true_score_evaluation", "data_description"],
        },
        "scaletrain": {
            **cl,
            "scale_with": "../data/train.csv",
            "subgroups": ["grade"],
            "second_human_score_column": "sc2",
        },
        "scaleraw": {**cl, "scale_with": "raw", "file_format": "tsv"},
        "sectnoh2": {
            **cl,
            "general_sections": ["data_description", "consistency", "evaluation", "evaluation_by_group"],
            "subgroups": ["grade"],
        },
        "xlsx": {
            **base,
            "predictions_file": "../data/preds.xlsx",
            "file_format": "xlsx",
            "subgroups": ["QUESTION"],
        },
        "tsvin": {**base, "predictions_file": "../data/preds.tsv", "candidate_column": "cand"},
        "jsonl": {**base, "predictions_file": "../data/preds.jsonl", "flag_column": {"STATUS": "ok"}},
        "nested": {
            **base,
            "predictions_file": "../data/preds_nested.jsonl",
            "human_score_column": "human",
            "system_score_column": "system",
        },
        # refusals
        "r_dup": {**base, "predictions_file": "../data/preds_dup.csv"},
        "r_unknown": {**base, "foo": 1},
        "r_missing": {k: v for k, v in base.items() if k != "trim_max"},
        "r_bool": {**base, "exclude_zero_scores": "maybe"},
        "r_minitems": {**base, "min_items_per_candidate": 3},
        "r_minn": {**base, "subgroups": ["L1"], "min_n_per_group": {"QUESTION": 3}},
        "r_section": {**base, "general_sections": ["evaluation", "nonsense"]},
        "r_order": {**base, "section_order": ["evaluation"]},
        "r_column": {**base, "system_score_column": "nope"},
        "r_spaces": {**base},
        "r_subsect": {**base, "general_sections": ["evaluation_by_group"]},
    }
    for name, c in configs.items():
        c = {"experiment_id": name if name != "r_spaces" else "has space", **c}
        (cfg / f"{name}.json").write_text(json.dumps(c, indent=2))
    print(len(configs))


if __name__ == "__main__":  # run as a script only (pytest imports it)
    main()
