"""``ddf.scoring``: the scoring tables on dask DataFrames, partition by partition."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import dask
import numpy as np
import pandas as pd

from pdmetrics._dask.base import DaskAccessor
from pdmetrics._files import atomic_path
from pdmetrics._table_spec import Several
from pdmetrics._validation import plain, require_columns
from pdmetrics.accessors.scoring import ScoringAccessor
from pdmetrics.engines.dask import combined_state, is_dask_frame, partition_table
from pdmetrics.errors import NotPartitionableError
from pdmetrics.rsmeval.data import SHOWN_ROWS, missing_ids_error, repeated_ids_error
from pdmetrics.rsmeval.reporting import (
    ReportOptions,
    report_from_state,
    report_options,
    report_state,
    response_texts,
)
from pdmetrics.scoring.postprocessing import (
    DEFAULT_TRIM_TOLERANCE,
    scaling_from_state,
    scaling_state,
)

__all__ = ["DaskScoringAccessor", "dask_report"]

#: Partitions whose per-response tables are written at a time (their text is held until written).
RESPONSE_BATCH = 4


class DaskScoringAccessor(DaskAccessor, ScoringAccessor):
    """``ddf.scoring``: the scoring tables of :class:`pdmetrics.accessors.scoring.ScoringAccessor`,
    computed partition by partition (same arguments, same numbers, plus ``compute=``)."""

    _name = "scoring"
    _pandas_accessor = ScoringAccessor

    def report(
        self,
        *,
        human,
        system,
        second_human=None,
        by=None,
        id=None,
        candidate=None,
        min_items_per_candidate: int | None = None,
        flag: dict | None = None,
        min_n_per_group: int | dict | None = None,
        trim_min: float,
        trim_max: float,
        trim_tolerance: float = DEFAULT_TRIM_TOLERANCE,
        scale_with=None,
        exclude_zero: bool = True,
        rater_error_variance: float | None = None,
        layout: str = "tidy",
        compute: bool = True,
        row_numbers: bool = False,
    ):
        """RSMTool's whole evaluation of a dask DataFrame, in one pass over the partitions; see
        :meth:`pdmetrics.accessors.scoring.ScoringAccessor.report`.

        The keywords of :func:`pdmetrics.rsmeval.report`, plus ``compute`` and
        ``row_numbers``. ``candidate`` and ``min_items_per_candidate`` raise
        :class:`~pdmetrics.errors.NotPartitionableError` (a candidate's responses may sit in
        several partitions). With ``id``, repeated ids are refused as on pandas (one more
        pass over the id column, its counts hash-partitioned: memory stays bounded). ``row_numbers=True``
        names the responses of the per-response files by their row in the whole frame when
        there is no ``id`` (the index of a parquet folder restarts in every file).

        Returns the same :class:`~pdmetrics.rsmeval.EvaluationReport` (``to_csv``, ``write``,
        ``to_html`` unchanged) with the same summary tables. The tables with one row per
        response (``pred_processed``, ``test_metadata``, ``test_other_columns``,
        ``test_human_scores``, ``test_excluded_responses``,
        ``test_responses_with_excluded_flags``) are never held in memory: ``to_csv`` and
        ``write`` (csv, tsv or jsonlines) write them partition by partition, in one more
        pass, as the pandas path writes them; ``report[name]`` of one of them says so.
        ``scale_with`` may be a dask training frame (its means and SDs from one pass).
        ``compute=False`` returns a :class:`dask.delayed.Delayed` of a report of the
        summary tables only (no per-response files).
        """
        return dask_report(
            self._frame,
            human=human,
            system=system,
            trim_min=trim_min,
            trim_max=trim_max,
            second_human=second_human,
            by=by,
            id=id,
            candidate=candidate,
            min_items_per_candidate=min_items_per_candidate,
            flag=flag,
            min_n_per_group=min_n_per_group,
            trim_tolerance=trim_tolerance,
            scale_with=scale_with,
            exclude_zero=exclude_zero,
            rater_error_variance=rater_error_variance,
            layout=layout,
            compute=compute,
            row_numbers=row_numbers,
        )


def _training_scalings(train, human, names: list) -> dict:
    """Each system column's scaling parameters from a dask training frame, in one pass."""
    columns = [*require_columns(train._meta, "human", human), *require_columns(train._meta, "system", names)]
    chunk = partial(_scaling_chunk, human, names)
    return dict(zip(names, partition_table(train, columns, chunk, _scalings_from_state)))


def _scaling_chunk(human, names: list, part) -> Several:
    return Several(scaling_state(part[human], part[name]) for name in names)


def _scalings_from_state(states: Several) -> list:
    return [scaling_from_state(state) for state in states]


def dask_report(
    frame,
    *,
    scale_with=None,
    compute: bool = True,
    candidate=None,
    min_items_per_candidate=None,
    row_numbers: bool = False,
    **options,
):
    """:func:`pdmetrics.rsmeval.report` of a dask DataFrame (what ``ddf.scoring.report`` runs).

    ``candidate`` and ``min_items_per_candidate`` are refused: counting each candidate's
    responses needs them together (compute those columns first). With ``id``, an id held
    twice anywhere is refused as on pandas (:func:`_repeated_ids`; with ``compute=True``
    before the pass over the scores). ``row_numbers=True``
    (without ``id``) names the responses of the per-response tables by their row in the
    whole frame (0, 1, ...), as the pandas path reading the same files does, instead of by
    the frame's index (which restarts in every parquet file).
    """
    if candidate is not None or min_items_per_candidate is not None:
        raise NotPartitionableError(
            "`candidate=` and `min_items_per_candidate=` do not run on dask DataFrames yet (a candidate's "
            "responses may sit in several partitions). Compute the frame first: "
            "`report(ddf.compute(), ...)`, or leave the candidate column out."
        )
    meta = frame._meta
    scaling = None
    if is_dask_frame(scale_with):  # its means and SDs from one pass, now
        system = _first(options["system"])
        scaling = _training_scalings(scale_with, options["human"], [system])[system]
    report_settings = report_options(meta, scale_with=scale_with, scaling=scaling, **options)
    repeated = None if report_settings.id is None else _repeated_ids(frame, report_settings.id)
    if repeated is not None and compute:  # refused before the pass over the scores
        _check_ids(report_settings.id, repeated.compute())
    columns = [
        report_settings.human,
        report_settings.system,
        *([] if report_settings.second_human is None else [report_settings.second_human]),
        *report_settings.groups,
        *report_settings.flags,
    ]
    chunk = partial(_report_chunk, report_settings)
    if not compute:
        lazy = partition_table(
            frame, columns, chunk, partial(report_from_state, options=report_settings), False
        )
        if repeated is None:
            return lazy
        return dask.delayed(_checked_report, pure=True)(lazy, report_settings.id, repeated)
    finalize = partial(
        report_from_state,
        options=report_settings,
        writer=partial(_write_responses, frame, report_settings, row_numbers),
    )
    return partition_table(frame, columns, chunk, finalize, compute)


#: Repeated ids a refusal shows.
SHOWN_IDS = 20


@dataclass(frozen=True)
class RepeatedIds:
    """Ids held more than once, over some of the hash buckets of the ids, and missing ids
    (their count and the first rows' labels), over some partitions; additive."""

    count: int
    examples: tuple
    missing: int = 0
    missing_rows: tuple = ()

    def combine(self, other: RepeatedIds) -> RepeatedIds:
        return RepeatedIds(
            self.count + other.count,
            (self.examples + other.examples)[:SHOWN_IDS],
            self.missing + other.missing,
            (self.missing_rows + other.missing_rows)[:SHOWN_ROWS],
        )


def _repeated_ids(frame, id_column):
    """A delayed :class:`RepeatedIds` of the ``id`` column. Each partition counts its ids
    (one row per distinct id, so one id repeated everywhere stays one row per partition);
    those counts are hash-partitioned on the id (a task shuffle: it runs on any scheduler),
    so every id's counts meet in one bucket and no task holds every id. The missing ids are
    counted per partition, in the partitions' order (their rows named as pandas names them)."""
    meta = _id_counts(frame._meta[id_column])
    counts = frame[id_column].map_partitions(_id_counts, meta=meta)
    buckets = counts.shuffle(on="id", shuffle_method="tasks")
    missing = [dask.delayed(_missing_in, pure=True)(part) for part in frame[id_column].to_delayed()]
    repeated = [dask.delayed(_repeated_in, pure=True)(part) for part in buckets.to_delayed()]
    return combined_state(missing + repeated)


def _id_counts(ids: pd.Series) -> pd.DataFrame:
    counts = ids.value_counts(dropna=True, sort=False)  # a missing id is refused as missing
    return pd.DataFrame({"id": counts.index, "n": counts.to_numpy(dtype=np.int64)})


def _missing_in(ids: pd.Series) -> RepeatedIds:
    missing = ids.isna().to_numpy(dtype=bool)
    rows = ids.index[np.flatnonzero(missing)[:SHOWN_ROWS]]
    return RepeatedIds(0, (), int(missing.sum()), tuple(rows.tolist()))


def _repeated_in(bucket: pd.DataFrame) -> RepeatedIds:
    totals = bucket.groupby("id", dropna=False, sort=False, observed=True)["n"].sum()
    repeated = totals.index[totals.to_numpy() > 1]
    return RepeatedIds(len(repeated), tuple(repeated[:SHOWN_IDS]))


def _check_ids(id_column, repeated: RepeatedIds) -> None:
    if repeated.missing:
        raise missing_ids_error(
            f"`id={plain(id_column)!r}`", repeated.missing, list(repeated.missing_rows), id_column
        )
    if repeated.count:
        raise repeated_ids_error(f"`id={plain(id_column)!r}`", repeated.count, repeated.examples)


def _checked_report(report, id_column, repeated: RepeatedIds):
    _check_ids(id_column, repeated)
    return report


def _first(names):
    return names[0] if isinstance(names, (list, tuple)) and len(names) == 1 else names


def _report_chunk(options: ReportOptions, part: pd.DataFrame):
    return report_state(part, options)


def _write_responses(
    frame, options: ReportOptions, row_numbers: bool, directory, prefix: str, file_format: str, names
) -> list[Path]:
    """Write the per-response tables ``names`` of a report of ``frame``, partition by
    partition (:data:`RESPONSE_BATCH` partitions at a time); returns their paths."""
    directory = Path(directory)
    paths = {name: directory / f"{prefix}_{name}.{file_format}" for name in names}
    parts = frame.to_delayed()
    starts = [None] * len(parts)
    if row_numbers and options.id is None:  # each partition's first row number
        # (the lengths of these very partitions: dask may merge the partitions of fewer columns)
        lengths = dask.compute(*[dask.delayed(len)(part) for part in parts])
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(int).tolist()
    pieces = [
        dask.delayed(response_texts, pure=True)(part, options, file_format, start)
        for part, start in zip(parts, starts)
    ]
    handles: dict = {}
    with contextlib.ExitStack() as files:  # each file whole or not at all (an error removes them all)
        parts = {name: files.enter_context(atomic_path(path)) for name, path in paths.items()}
        try:
            try:
                for start in range(0, len(pieces), RESPONSE_BATCH):
                    for texts in dask.compute(*pieces[start : start + RESPONSE_BATCH]):
                        for (name, part), (header, body) in texts.items():
                            if name not in paths:
                                continue
                            if (name, part) not in handles:
                                handles[name, part] = open(
                                    _piece(parts[name], part), "w", encoding="utf-8", newline=""
                                )  # noqa: SIM115
                                if part == 0:
                                    handles[name, part].write(header)
                            handles[name, part].write(body)
            finally:
                for handle in handles.values():
                    handle.close()
            for name, path in parts.items():
                if (name, 0) not in handles:
                    path.write_text("", encoding="utf-8")
                for part in sorted(part for key, part in handles if key == name and part):
                    with open(path, "a", encoding="utf-8", newline="") as handle:
                        handle.write(_piece(path, part).read_text(encoding="utf-8"))
        finally:  # every piece, also one opened just before an interruption (not yet in handles)
            _remove_pieces(directory, parts.values())
    return list(paths.values())


def _remove_pieces(directory: Path, parts) -> None:
    """Remove the pieces (``<temporary name>.<n>``) of the temporary files ``parts``."""
    starts = tuple(f"{part.name}." for part in parts)
    with contextlib.suppress(OSError):
        for path in directory.iterdir():
            if path.name.startswith(starts):
                path.unlink(missing_ok=True)


def _piece(path: Path, part: int) -> Path:
    """Where part ``part`` of a per-response table is written before being appended (part 0:
    the table's own temporary file)."""
    return path if part == 0 else path.with_name(f"{path.name}.{part}")
