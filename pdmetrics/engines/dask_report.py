"""The report on dask: :func:`pdmetrics.rsmeval.report`'s spec run partition by partition.

The report's :class:`~pdmetrics.rsmeval.reporting.ReportTable` is a table whose state
(:func:`~pdmetrics.rsmeval.reporting.report_chunk`) is combined over the partitions like any
other, with three things of its own: with ``id``, a pass over the id column refuses ids held
twice anywhere (their counts hash-partitioned, so memory stays bounded); the per-response tables
are never held in memory but written partition by partition when the report is written
(:func:`~pdmetrics.rsmeval.reporting.response_texts`, :data:`RESPONSE_BATCH` partitions at a
time, each file whole or not at all); and what needs all of a candidate's responses at once
(``candidate=``) raises :class:`~pdmetrics.errors.NotPartitionableError` naming what runs
instead.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import dask
import numpy as np
import pandas as pd

from pdmetrics._files import atomic_path
from pdmetrics._validation import plain
from pdmetrics.engines.dask import combined_state, partition_table
from pdmetrics.rsmeval.data import SHOWN_ROWS, missing_ids_error, repeated_ids_error
from pdmetrics.rsmeval.reporting import ReportOptions, ReportTable, response_texts

__all__ = ["RESPONSE_BATCH", "run_report"]

#: Partitions whose per-response tables are written at a time (their text is held until written).
RESPONSE_BATCH = 4


def run_report(spec: ReportTable, frame, function: str, compute: bool = True):
    """The report of the dask DataFrame ``frame`` (``compute=False``: a
    :class:`dask.delayed.Delayed` of a report of the summary tables, no per-response files)."""
    options = spec.options
    if spec.instead:
        raise spec.refuse("dask DataFrames", f"ddf.{function}")
    repeated = None if options.id is None else _repeated_ids(frame, options.id)
    if repeated is not None and compute:  # refused before the pass over the scores
        _check_ids(options.id, repeated.compute())
    chunk = partial(_summary_chunk, spec.chunk)
    columns = options.scores_read
    if not compute:
        lazy = partition_table(frame, columns, chunk, spec.finalize, False)
        if repeated is None:
            return lazy
        return dask.delayed(_checked_report, pure=True)(lazy, options.id, repeated)
    finalize = partial(spec.finalize, writer=partial(_write_responses, frame, options))
    return partition_table(frame, columns, chunk, finalize, compute)


def _summary_chunk(chunk, part: pd.DataFrame):
    """A partition's state without its rows (only the summaries travel)."""
    return chunk(part, responses=False)


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


def _write_responses(
    frame, options: ReportOptions, directory, prefix: str, file_format: str, names
) -> list[Path]:
    """Write the per-response tables ``names`` of a report of ``frame``, partition by
    partition (:data:`RESPONSE_BATCH` partitions at a time); returns their paths."""
    directory = Path(directory)
    paths = {name: directory / f"{prefix}_{name}.{file_format}" for name in names}
    parts = frame.to_delayed()
    starts = [None] * len(parts)
    if options.row_numbers and options.id is None:  # each partition's first row number
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
