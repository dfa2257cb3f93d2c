"""Which responses rsmeval evaluates, and its data tables.

rsmeval reads the predictions file, refuses repeated response ids, drops the responses
whose flag columns hold a value not allowed (``flag_column``), then the responses with a
non-numeric (or zero) human score, then those with a non-numeric system score, then, with
``min_items_per_candidate``, the responses of candidates left with fewer items. It writes
the responses it used and the ones it left out as data tables (``pred_processed``,
``test_metadata``, ``test_other_columns``, ``test_human_scores``,
``test_excluded_responses``, ``test_responses_with_excluded_flags``) and counts them
(``data_composition``, ``data_composition_by_<G>``, ``test_excluded_composition``).
This module builds those tables, in rsmeval's names and layout, with whole-column
operations (flag values are converted once per distinct value, never once per row).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from pdmetrics._validation import plain, preview, require_columns
from pdmetrics.errors import InvalidInputError

__all__ = ["NO_INFO", "RESERVED_NAMES", "PER_RESPONSE_PREFIXES", "subgroup_values"]

#: The starts of the names of rsmeval's data tables with one row per response (the others,
#: ``test_excluded_composition`` and ``data_composition*``, summarise).
PER_RESPONSE_PREFIXES = (
    "pred_processed",
    "test_metadata",
    "test_other_columns",
    "test_human_scores",
    "test_excluded_responses",
    "test_responses_with_excluded_flags",
)

#: rsmeval's names for the columns it knows; a user column already called so is renamed
#: ``##name##`` in rsmeval's files (``rename_default_columns``).
RESERVED_NAMES = ("spkitemid", "sc1", "sc2", "length", "raw", "candidate")

#: rsmeval's label for an empty subgroup value.
NO_INFO = "No info"

_BLANK = re.compile(r"\s*")
_HUMAN_ROWS = ("numeric non-zero human score", "zero human score", "non-numeric human score")
_SYSTEM_COLUMNS = ("numeric system score", "non-numeric system score")


@dataclass(frozen=True)
class Selection:
    """The rows rsmeval evaluates and why the others were left out (boolean masks over all rows).

    ``flag_out``: a flag value not allowed; ``human_bad``/``human_zero``/``system_bad``:
    left out by the score filters (among the rows the flags kept); ``few_items``: the
    candidate has fewer than ``min_items_per_candidate`` evaluated responses.
    """

    keep: np.ndarray
    flag_out: np.ndarray | None
    human_bad: np.ndarray
    human_zero: np.ndarray
    system_bad: np.ndarray
    few_items: np.ndarray | None


def response_ids(frame: pd.DataFrame, id) -> pd.Index:
    """The response ids (``id`` column, or the index when None); missing and repeated ids
    are refused."""
    if id is None:
        ids, where = frame.index, "the index"
    else:
        name = require_columns(frame, "id", id)[0]
        ids, where = pd.Index(frame[name]), f"`id={plain(id)!r}`"
    missing = ids.isna()
    if missing.any():
        rows = np.flatnonzero(missing)[:SHOWN_ROWS]
        labels = rows.tolist() if id is None else frame.index[rows].tolist()
        raise missing_ids_error(where, int(missing.sum()), labels, None if id is None else name)
    if not ids.is_unique:
        repeated = ids[ids.duplicated()].unique()
        raise repeated_ids_error(where, len(repeated), repeated)
    return ids


#: Rows of missing ids a refusal names.
SHOWN_ROWS = 5


def missing_ids_error(where: str, count: int, rows: list, column=None) -> InvalidInputError:
    """The error for ``count`` responses without an id (``rows``: the labels of some; of
    the index, their positions, ``column=None``)."""
    kind = "row" if column is not None else "position"
    shown = ", ".join(f"{kind} {plain(row)!r}" for row in rows[:SHOWN_ROWS])
    fix = f"`df.dropna(subset=[{plain(column)!r}])`" if column is not None else "`df[df.index.notna()]`"
    return InvalidInputError(
        f"{where} has missing response ids ({count} row{'s' * (count > 1)}, "
        f"{'e.g. ' * (count > 1)}{shown}); every response needs its own id. Leave those rows out or "
        f"give them ids first, e.g. {fix}."
    )


def repeated_ids_error(where: str, count: int, examples) -> InvalidInputError:
    """The error for ``count`` response ids held more than once (``examples``: some of them)."""
    return InvalidInputError(
        f"{where} holds repeated response ids ({count} ids, e.g. {preview(list(examples))}); rsmeval "
        "refuses them too. Make every response id unique, or pass `id=` naming a unique column."
    )


def _as_number(value):
    """RSMTool's ``convert_to_float``: the text of the value as int, then float, else the text."""
    text = str(value)
    try:
        return float(int(text))
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def _allowed(value, allowed: list) -> bool:
    if isinstance(value, float) and math.isnan(value):
        return any(isinstance(a, float) and math.isnan(a) for a in allowed)
    return any(type(a) is type(value) and a == value for a in allowed)


def check_flags(frame: pd.DataFrame, flag) -> dict:
    """Check ``flag`` (rsmeval's ``flag_column``): a dict ``{column: allowed value(s)}``."""
    if flag is None:
        return {}
    if not isinstance(flag, Mapping):
        raise InvalidInputError(
            f"`flag={plain(flag)!r}` must be a dict {{column: [allowed values]}} (rsmeval's `flag_column`), "
            "e.g. `flag={'ASR_flag': [0]}`."
        )
    require_columns(frame, "flag", list(flag))
    return {column: list(values) if isinstance(values, list) else [values] for column, values in flag.items()}


def flag_mask(frame: pd.DataFrame, flag: dict) -> np.ndarray | None:
    """Rows whose every flag column holds an allowed value, with RSMTool's matching rule.

    Values and allowed values are compared after RSMTool's ``convert_to_float`` (the text
    of the value read as an integer, then a float, else kept as text), so ``1``, ``"1"``,
    ``1.0`` and ``"1.0"`` all match each other while ``"x"`` only matches ``"x"``. Each
    distinct value is converted once.
    """
    keep = flag_rows(frame, flag)
    if keep is not None:
        check_flagged_rows(int(keep.sum()), flag)
    return keep


def flag_rows(frame: pd.DataFrame, flag: dict) -> np.ndarray | None:
    """:func:`flag_mask` of one chunk of rows: no error when no row passes (the whole frame's
    count is checked by :func:`check_flagged_rows`)."""
    if not flag:
        return None
    keep = np.ones(len(frame), dtype=bool)
    for column, values in flag.items():
        allowed = [_as_number(v) for v in values]
        codes, uniques = pd.factorize(frame[column], use_na_sentinel=False)
        passes = np.array([_allowed(_as_number(u), allowed) for u in uniques], dtype=bool)
        keep &= passes[codes] if passes.size else False
    return keep


def check_flagged_rows(n_kept: int, flag: dict) -> None:
    """Refuse flags that leave no response (``n_kept``: the rows they keep)."""
    if not n_kept:
        raise InvalidInputError(
            f"No responses left after `flag={flag!r}`: no row holds an allowed value in every flag column. "
            "Check the allowed values (compared as rsmeval does: 1, '1' and '1.0' match)."
        )


def candidate_mask(candidates: pd.Series, used: np.ndarray, min_items: int) -> np.ndarray:
    """Among the ``used`` rows, those whose candidate has at least ``min_items`` of them."""
    if isinstance(min_items, bool) or not isinstance(min_items, (int, np.integer)) or min_items < 1:
        raise InvalidInputError(
            f"`min_items_per_candidate={plain(min_items)!r}` must be a positive whole number of responses."
        )
    codes, _ = pd.factorize(candidates)
    counted = used & (codes >= 0)  # a missing candidate id has no items (rsmeval's value_counts)
    counts = np.bincount(codes[counted], minlength=codes.max() + 1 if codes.size else 0)
    enough = np.zeros(codes.size, dtype=bool)
    enough[counted] = counts[codes[counted]] >= min_items
    if not enough.any():
        raise InvalidInputError(
            f"No candidate has {min_items} or more evaluated responses "
            f"(`min_items_per_candidate={min_items}`); lower it, or check "
            f"`candidate={plain(candidates.name)!r}`."
        )
    return enough


def check_min_n_per_group(min_n_per_group, groups: list) -> dict:
    """rsmeval's ``min_n_per_group`` as ``{group column: n}`` (an int applies to every column)."""
    if min_n_per_group is None:
        return {}
    if not groups:
        raise InvalidInputError(
            f"`min_n_per_group={plain(min_n_per_group)!r}` needs subgroup columns: pass `by=` too (rsmeval "
            "refuses min_n_per_group without subgroups)."
        )
    if isinstance(min_n_per_group, Mapping):
        if sorted(map(str, min_n_per_group)) != sorted(map(str, groups)):
            raise InvalidInputError(
                f"`min_n_per_group` names {preview(list(min_n_per_group))} but the subgroup columns are "
                f"{preview(groups)}: give one minimum per subgroup column (as rsmeval), or one number."
            )
        sizes = dict(min_n_per_group)
    else:
        sizes = dict.fromkeys(groups, min_n_per_group)
    for group, n in sizes.items():
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise InvalidInputError(
                f"`min_n_per_group` for {plain(group)!r} is {plain(n)!r}: pass a positive whole number."
            )
    return sizes


def rsmeval_names(columns, id, human, second_human, system, candidate) -> dict:
    """RSMTool's ``rename_default_columns``: each column's name in rsmeval's files."""
    used = {id: "spkitemid", human: "sc1", second_human: "sc2", system: "raw", candidate: "candidate"}
    used = {column: name for column, name in used.items() if column is not None}
    names = {}
    for column in columns:
        if column in used:
            names[column] = used[column]
        elif isinstance(column, str) and column in RESERVED_NAMES:
            names[column] = f"##{column}##"
        else:
            names[column] = column
    return names


def subgroup_values(column: pd.Series) -> pd.Series:
    """Subgroup labels as rsmeval reads them: missing or blank values are "No info".

    RSMTool's ``check_subgroups`` does this to the whole predictions file, before any row is
    left out, so the excluded and flagged responses show "No info" too. The text test runs
    once per distinct value (factorized first), not once per row.
    """
    blank = column.isna().to_numpy(copy=True)
    if column.dtype == object or isinstance(column.dtype, pd.StringDtype):
        codes, uniques = pd.factorize(column)  # a missing value has code -1 (already blank)
        if len(uniques):
            blank_unique = np.array([_BLANK.fullmatch(str(u)) is not None for u in uniques], dtype=bool)
            blank |= (codes >= 0) & blank_unique[codes]
    return column.where(~blank, NO_INFO) if blank.any() else column


def response_tables(
    frame: pd.DataFrame,
    ids: pd.Index,
    selection: Selection,
    *,
    names: dict,
    human: np.ndarray,
    second_human: np.ndarray | None,
    scores: dict,
    groups: list,
    candidate,
    exclude_zero: bool,
) -> dict[str, pd.DataFrame]:
    """rsmeval's per-response tables (one row per response), keyed by file name:
    ``pred_processed``, ``test_metadata``, ``test_other_columns``, ``test_human_scores``,
    ``test_excluded_responses``, ``test_responses_with_excluded_flags``.

    ``human``/``second_human``: numeric human scores of every row; ``scores``: the score
    types (``raw``, ``raw_trim``, ...) of every row, in rsmeval's order.
    """
    keep = selection.keep
    used_ids = pd.Index(ids[keep], name="spkitemid")  # text ids stay arrow text: the CSV writer's own
    files: dict[str, pd.DataFrame] = {}
    predictions = {"sc1": human[keep]}
    for name, values in scores.items():
        values = values[keep]
        predictions[name] = values.astype(np.int64) if name.endswith("_round") else values
    files["pred_processed"] = pd.DataFrame(predictions, index=used_ids)

    metadata = _metadata(frame, keep, names, groups, candidate)
    files["test_metadata"] = pd.DataFrame(metadata, index=used_ids)

    if second_human is not None:
        h2 = second_human[keep]
        files["test_human_scores"] = pd.DataFrame(
            {"sc1": predictions["sc1"], "sc2": np.where(h2 == 0, np.nan, h2) if exclude_zero else h2},
            index=used_ids,
        )

    not_other = {"sc1", *scores, *metadata, *({"sc2"} if second_human is not None else ())}
    other = [c for c in frame.columns if names[c] not in not_other and names[c] != "spkitemid"]
    files["test_other_columns"] = pd.DataFrame(
        {names[c]: frame[c].array[keep] for c in other}, index=used_ids
    )

    excluded = _excluded_rows(selection)
    if excluded.size:
        files["test_excluded_responses"] = _original_rows(frame, ids, names, excluded, human, scores)
    if selection.flag_out is not None and selection.flag_out.any():
        files["test_responses_with_excluded_flags"] = _original_rows(
            frame, ids, names, np.flatnonzero(selection.flag_out)
        )
    return files


def composition_tables(
    frame: pd.DataFrame,
    selection: Selection,
    *,
    names: dict,
    human: np.ndarray,
    scores: dict,
    groups: list,
    candidate,
    exclude_zero: bool,
) -> tuple[dict[str, pd.DataFrame], set]:
    """rsmeval's summary data tables, keyed by file name (``test_excluded_composition``,
    ``data_composition``, ``data_composition_by_<G>``), and the names of those written
    without index. They need no per-response frame, so the HTML report does not build one."""
    keep = selection.keep
    metadata = _metadata(frame, keep, names, groups, candidate)
    files = {
        "test_excluded_composition": _excluded_composition(
            selection, _excluded_rows(selection), human, scores, exclude_zero
        )
    }
    composition = {"partition": ["Evaluation"], "responses": [int(keep.sum())]}
    if candidate is not None:
        composition["candidates"] = [pd.Series(metadata["candidate"]).unique().size]
    for g in groups:
        composition[names[g]] = [pd.Series(metadata[names[g]]).unique().size]
    files["data_composition"] = pd.DataFrame(composition).set_index("partition")
    for g in groups:
        counts = pd.Series(metadata[names[g]]).value_counts().sort_index()
        files[f"data_composition_by_{g}"] = pd.DataFrame(
            {"N responses": counts.to_numpy()}, index=pd.Index(counts.index, name=names[g])
        )
    return files, {"test_excluded_composition"}


def _metadata(frame: pd.DataFrame, keep: np.ndarray, names: dict, groups: list, candidate) -> dict:
    """The evaluated rows' subgroup (and candidate) values, under rsmeval's column names."""
    metadata = {names[g]: subgroup_values(frame[g]).array[keep] for g in groups}
    if candidate is not None:
        metadata["candidate"] = frame[candidate].array[keep]
    return metadata


def _excluded_rows(selection: Selection) -> np.ndarray:
    """Positions of the rows left out by the score and candidate filters, in rsmeval's order."""
    parts = [selection.human_bad, selection.human_zero, selection.system_bad]
    if selection.few_items is not None:
        parts.append(selection.few_items)
    return np.concatenate([np.flatnonzero(part) for part in parts])


def _original_rows(frame, ids, names, rows, human=None, scores=None) -> pd.DataFrame:
    """The original columns of ``rows`` under rsmeval's names, ``spkitemid`` first.

    With ``human``, the human and system score columns hold their numeric values (NaN where
    not a number) and the other columns are sorted by name, as rsmeval 12 writes its
    excluded responses (its ``pd.concat(..., sort=True)``).
    """
    columns = {names[c]: frame[c].array[rows] for c in frame.columns if names[c] != "spkitemid"}
    if human is not None:
        columns["sc1"] = human[rows]
        columns["raw"] = scores["raw"][rows] if "raw" in scores else scores["scale"][rows]
        columns = {name: columns[name] for name in sorted(columns, key=str)}
    return pd.DataFrame(columns, index=pd.Index(ids[rows], name="spkitemid"))


def _excluded_composition(selection, excluded, human, scores, exclude_zero) -> pd.DataFrame:
    """rsmeval's ``test_excluded_composition`` (``analyze_excluded_responses``)."""
    counts = excluded_counts(excluded, human, scores)
    return excluded_composition_table(counts, selection.few_items is not None, exclude_zero)


def excluded_counts(excluded: np.ndarray, human: np.ndarray, scores: dict) -> np.ndarray:
    """The 3 x 2 counts of ``test_excluded_composition`` (human score numeric non-zero / zero /
    not numeric x system score numeric / not) of the rows at positions ``excluded``; the
    counts of disjoint chunks of rows add."""
    counts = np.zeros((3, 2), dtype=np.int64)
    if excluded.size:
        h = human[excluded]
        raw = (scores["raw"] if "raw" in scores else scores["scale"])[excluded]
        row = np.where(np.isnan(h), 2, np.where(h == 0, 1, 0))
        np.add.at(counts, (row, np.isnan(raw).astype(np.intp)), 1)
    return counts


def excluded_composition_table(counts: np.ndarray, listwise: bool, exclude_zero: bool) -> pd.DataFrame:
    """rsmeval's ``test_excluded_composition`` from :func:`excluded_counts` (``listwise``: a
    candidate filter was applied)."""
    excluded = int(counts.sum())
    table = pd.DataFrame(counts, columns=list(_SYSTEM_COLUMNS))
    if not listwise:
        first = table[_SYSTEM_COLUMNS[0]].astype(float)
        first.iloc[0] = np.nan
        if not exclude_zero:
            first.iloc[1] = np.nan
        table[_SYSTEM_COLUMNS[0]] = first
    if excluded:
        table.insert(0, "Human/System", list(_HUMAN_ROWS))
    return table
