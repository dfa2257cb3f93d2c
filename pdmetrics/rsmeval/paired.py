"""The paired comparison of experiments, shared by ``pdmetrics rsmcompare`` and ``pdmetrics
rsmsummarize``: each experiment's scores read from its ``<experiment_id>_pred_processed`` table
(:func:`read_scores`), the experiments joined on the response id (:func:`join_scores`) and
their eval metrics compared on the common responses with :func:`pdmetrics.scoring.compare`
(:func:`paired_table`)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from pdmetrics import scoring
from pdmetrics._comparison import comparison_table
from pdmetrics.errors import InvalidInputError, PdmetricsWarning
from pdmetrics.io import read_table
from pdmetrics.rsmeval.experiments import Experiment

__all__ = ["PAIRED_METRICS", "read_scores", "join_scores", "paired_table"]

#: The paired comparison's metrics: each on the score eval_short evaluates it on (b: trimmed,
#: br: trimmed and rounded).
PAIRED_METRICS = {
    "corr": "trim",
    "wtkappa": "trim",
    "kappa": "trim_round",
    "exact_agr": "trim_round",
    "adj_agr": "trim_round",
    "R2": "trim",
    "RMSE": "trim",
    "SMD": "trim",
}
_SCORES = ("trim", "trim_round")


def read_scores(experiment: Experiment, prefix: str, reading: str) -> pd.DataFrame:
    """Each response's id, human score and the experiment's trimmed and trimmed-rounded
    ``prefix`` (``raw`` or ``scale``) scores, columns ``id, human, trim, trim_round``.
    ``reading`` starts the message of a missing column (what chose ``prefix``)."""
    path = experiment.path("pred_processed")
    frame = read_table(path, text_columns=["spkitemid"])
    columns = ["spkitemid", "sc1", f"{prefix}_trim", f"{prefix}_trim_round"]
    missing = [name for name in columns if name not in frame.columns]
    if missing:
        raise InvalidInputError(
            f"{reading}: {path.name} in {experiment.key} has no column {missing[0]!r} "
            f"(it has {', '.join(map(str, frame.columns[:12]))})."
        )
    if frame["spkitemid"].duplicated().any():
        repeated = frame.loc[frame["spkitemid"].duplicated(), "spkitemid"].iloc[0]
        raise InvalidInputError(
            f"{experiment.key}: {path.name} lists the response {repeated!r} twice; the paired comparison "
            "joins the experiments on the response id."
        )
    return frame[columns].set_axis(["id", "human", *_SCORES], axis=1)


def join_scores(scores: dict) -> tuple[pd.DataFrame, dict]:
    """The experiments' scores (``{name: read_scores(...)}``, the baseline first) joined on the
    response id: columns ``id, human`` and ``<name>_trim, <name>_trim_round`` for the responses
    every experiment scored with the same human score (the first experiment's), and the facts
    of the join: ``counts`` (responses of each), ``common`` (in all), ``human_differs`` (common
    responses left out: their human scores differ) and ``disjoint`` (pairs sharing no response).

    >>> import pandas as pd
    >>> from pdmetrics.rsmeval.paired import join_scores
    >>> a = pd.DataFrame({"id": ["r1", "r2", "r3"], "human": [1, 2, 3], "trim": [1.2, 2.1, 2.9],
    ...                   "trim_round": [1, 2, 3]})
    >>> joined, facts = join_scores({"old": a, "new": a.iloc[1:]})
    >>> list(joined.columns), len(joined), facts["counts"], facts["common"]
    (['id', 'human', 'old_trim', 'old_trim_round', 'new_trim', 'new_trim_round'], 2, {'old': 3, 'new': 2}, 2)
    """
    names = list(scores)
    joined = None
    for k, name in enumerate(names):
        part = scores[name].rename(columns={"human": f"human {k}", **{s: f"{name}_{s}" for s in _SCORES}})
        joined = part if joined is None else joined.merge(part, on="id", validate="one_to_one")
    humans = [pd.to_numeric(joined[f"human {k}"], errors="coerce").to_numpy(dtype="float64") for k in
              range(len(names))]  # fmt: skip
    differs = np.zeros(len(joined), dtype=bool)
    with np.errstate(invalid="ignore"):
        for other in humans[1:]:
            differs |= ~np.isclose(humans[0], other, rtol=0, atol=1e-9, equal_nan=True)
    ids = {name: pd.Index(scores[name]["id"]) for name in names}
    facts = {
        "counts": {name: len(scores[name]) for name in names},
        "common": len(joined),
        "human_differs": int(differs.sum()),
        "disjoint": [
            (a, b) for i, a in enumerate(names) for b in names[i + 1 :] if not ids[a].isin(ids[b]).any()
        ],
    }
    kept = joined[~differs]
    frame = pd.DataFrame({"id": kept["id"].to_numpy(), "human": humans[0][~differs]})
    for name in names:
        for score in _SCORES:
            frame[f"{name}_{score}"] = pd.to_numeric(kept[f"{name}_{score}"], errors="coerce").to_numpy()
    return frame, facts


def paired_table(frame: pd.DataFrame, names: list, options: dict, by: dict | None = None, pairs="baseline"):
    """:func:`pdmetrics.scoring.compare` of the joined experiments (:func:`join_scores`; the
    first of ``names`` the baseline): each metric of :data:`PAIRED_METRICS` on its score,
    ``baseline`` and ``system`` the experiments' names, overall or by each column of ``by``
    (``{column: values}``), in eval_short's order within each group and pair. ``options``:
    ``n_resamples``, ``confidence``, ``random_state``, ``correction``. Without a response to
    pair: the empty table."""
    by = by or {}
    identifiers = ["by", "group"] if by else []
    if not len(frame):  # nothing to pair: an empty table (the page says why)
        return comparison_table([], identifiers, options["correction"])
    settings = {key: options[key] for key in ("n_resamples", "confidence", "random_state")}
    data = frame[["human"]].copy()
    for k, name in enumerate(names):  # positional columns: names may be anything
        for score in _SCORES:
            data[f"s{k}_{score}"] = frame[f"{name}_{score}"].to_numpy()
    for column, values in by.items():
        data[column] = values
    parts = []
    for score in _SCORES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PdmetricsWarning)  # undefined values are NaN, said on the page
            table = scoring.compare(  # scipy and statsmodels load here, not with the command
                data,
                human="human",
                system=[f"s{k}_{score}" for k in range(len(names))],
                by=list(by) or None,
                pairs=pairs,
                exclude_zero=False,  # the files hold the responses each experiment evaluated
                **settings,
            )
        table = table[table["metric"].map(PAIRED_METRICS) == score]
        back = {f"s{k}_{score}": name for k, name in enumerate(names)}
        table = table.assign(baseline=table["baseline"].map(back), system=table["system"].map(back))
        parts.append(table.drop(columns="p_adjusted"))
    order = {metric: k for k, metric in enumerate(PAIRED_METRICS)}
    table = pd.concat(parts, ignore_index=True)
    # the groups in compare's order, then the pairs in compare's order, the metrics in eval_short's
    zeros = np.zeros(len(table))
    first = table.groupby(identifiers, sort=False).ngroup().to_numpy() if identifiers else zeros
    pair = table.groupby(["baseline", "system"], sort=False).ngroup().to_numpy()
    table = table.iloc[np.lexsort((table["metric"].map(order).to_numpy(), pair, first))]
    return comparison_table([table], identifiers, options["correction"])
