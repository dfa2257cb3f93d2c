"""Write ``reference.json``: irrCAC 0.4.4's and pingouin's numbers on rating matrices of our own.

irrCAC and pingouin pin older pandas and scipy, so they run in an environment of their own:

    python3 -m venv venv-irr
    venv-irr/bin/pip install irrCAC==0.4.4 pingouin==0.6.1 "pandas<2.3"
    venv-irr/bin/python tests/data/agreement/make_reference.py

The matrices are written with the numbers (items x raters, null: not rated), so the test reads
both from the file. irrCAC rounds what it returns (``digits=``); the rounding is switched off by
replacing its module's ``round`` and ``np.round`` with the identity while it runs.
"""

from __future__ import annotations

import json
import types
from pathlib import Path

import irrCAC
import numpy as np
import pandas as pd
import pingouin
from irrCAC import raw

raw.round = lambda x, digits=None: x  # irrCAC's coefficient, pa and pe unrounded
raw.np = types.SimpleNamespace(**{name: getattr(np, name) for name in dir(np) if not name.startswith("__")})
raw.np.round = lambda x, digits=None: x
pingouin.options["round"] = None  # pingouin rounds its intervals to 2 decimals by default
pingouin.options["round.column.CI95"] = None


def matrices() -> dict:
    """Random rating matrices with missing ratings, and the edge cases."""
    rng = np.random.default_rng(20251128)
    out = {}
    for i in range(8):
        n, r, k = int(rng.integers(12, 60)), int(rng.integers(2, 6)), int(rng.integers(2, 7))
        categories = np.sort(rng.choice(np.arange(-2, 12), k, replace=False)).astype(float)
        x = categories[rng.integers(0, k, (n, r))]
        # raters agree with a latent score more often than chance, so the ICCs are not all ~0
        latent = rng.integers(0, k, n)
        close = rng.random((n, r)) < 0.6
        x = np.where(close, categories[latent][:, None], x)
        x[rng.random((n, r)) < 0.2] = np.nan
        out[f"random_{i}"] = x
    x = np.tile(np.array([[1.0], [2.0], [3.0], [2.0], [4.0]]), (4, 3))
    out["perfect"] = x
    constant = np.column_stack(
        [np.full(20, 3.0), rng.integers(1, 5, 20).astype(float), rng.integers(1, 5, 20)]
    )
    out["constant_rater"] = constant
    once = rng.integers(1, 4, (25, 4)).astype(float)
    once[:6, 1:] = np.nan  # six items rated once
    once[6:9] = np.nan  # three items rated by nobody
    once[10:14, 2] = np.nan
    out["items_rated_once"] = once
    complete = rng.integers(1, 6, (30, 4)).astype(float)
    complete[:, 1] = np.clip(complete[:, 0] + rng.integers(-1, 2, 30), 1, 5)
    out["complete"] = complete
    return out


def references(x: np.ndarray) -> dict:
    frame = pd.DataFrame(x, columns=[f"r{j}" for j in range(x.shape[1])])
    out = {}
    for weights in ("identity", "linear", "quadratic"):
        cac = irrCAC.raw.CAC(frame.copy(), weights=weights)
        cac.gwet()
        out[f"gwet_{weights}"] = float(cac.coefficient_value)
        if weights == "identity":
            out["percent_agreement"] = float(cac.pa)
    complete = frame.dropna()
    if len(complete) >= 2:
        long = complete.reset_index().melt(id_vars="index", var_name="rater", value_name="rating")
        icc = pingouin.intraclass_corr(data=long, targets="index", raters="rater", ratings="rating")
        for name, (_, row) in zip(("ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k"), icc.iterrows()):
            out[name] = [float(row["ICC"]), float(row["CI95"][0]), float(row["CI95"][1])]
    return out


def main() -> None:
    cases = {}
    for name, x in matrices().items():
        cases[name] = {
            "ratings": [[None if np.isnan(v) else float(v) for v in row] for row in x],
            "reference": references(x),
        }
    info = {
        "irrCAC": irrCAC.__version__ if hasattr(irrCAC, "__version__") else "0.4.4",
        "pingouin": pingouin.__version__,
    }
    path = Path(__file__).with_name("reference.json")
    path.write_text(json.dumps({"versions": info, "cases": cases}) + "\n")


if __name__ == "__main__":
    main()
