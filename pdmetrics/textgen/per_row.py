"""The text columns of a frame, and the table spec of a metric with one row per generated answer.

ROUGE and BLEU score each row (a prediction against its reference(s)). Their spec is, without
``by=``, :class:`~pdmetrics._table_spec.Rows`: the scored rows, indexed like the caller's rows
(the ``datum`` ids first when given), with the rows left out (no prediction, no reference)
counted by an :class:`Exclusions` table that warns once; with ``by=``, a
:class:`~pdmetrics._table_spec.Table` of the group means (:class:`~pdmetrics.textgen.means.MeansState`,
each row its own datum), which counts the rows left out in its state and warns once too.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial

import pandas as pd

from pdmetrics._additive import Additive
from pdmetrics._table_spec import Rows, Table
from pdmetrics._validation import one_column, one_name, require_columns
from pdmetrics.textgen.means import means_state, means_table
from pdmetrics.textgen.tokens import text_rows, warn_left_out

__all__ = ["Exclusions", "per_row_spec", "text_names", "texts"]


def text_names(frame: pd.DataFrame, prediction, reference) -> list:
    """The prediction column and the reference column(s) of ``frame``, checked
    (:class:`~pdmetrics.ColumnNotFoundError` naming the argument)."""
    names = [one_name(frame, "prediction", prediction)]
    if isinstance(reference, list):
        return names + require_columns(frame, "reference", reference)
    return names + [one_name(frame, "reference", reference)]


def texts(part: pd.DataFrame, prediction, reference) -> tuple:
    """A part's prediction column and its reference column (a Series) or columns (a DataFrame)."""
    if isinstance(reference, list):
        references = part[require_columns(part, "reference", reference)]
    else:
        references = one_column(part, "reference", reference)
    return one_column(part, "prediction", prediction), references


@dataclass(frozen=True)
class Exclusions(Additive):
    """The rows a per-row text metric leaves out, over some parts: counts of rows without a
    prediction and without any reference, the first labels, and the number of rows seen."""

    no_prediction: int
    no_reference: int
    labels: tuple = field(metadata={"combine": lambda mine, theirs: (mine + theirs)[:10]})
    total: int

    def warn(self) -> None:
        """The :class:`~pdmetrics.ExcludedRowsWarning` of the rows left out, with the totals."""
        warn_left_out(self.no_prediction, self.no_reference, self.total, self.labels)


def per_row_spec(frame: pd.DataFrame, score, prediction, reference, datum, by):
    """The spec of a per-row text metric. ``score(prediction, references)`` gives the table of
    the rows it scores (indexed like them) and their
    :class:`~pdmetrics.textgen.tokens.TextRows`, without a warning."""
    names = []
    for argument, name in (("datum", datum), ("by", by)):  # wrong names fail before the texts'
        if name is not None:
            names.append(one_name(frame, argument, name))
    text = text_names(frame, prediction, reference)
    columns = list(dict.fromkeys(text + names))
    if by is not None:
        return Table(columns, partial(_row_means, score, prediction, reference, by), means_table)
    exclusions = Table(text, partial(_exclusions_of, prediction, reference), Exclusions.warn)
    compute = partial(_scored_rows, score, prediction, reference, datum)
    identifiers = {} if datum is None else {"datum": names[0]}
    return Rows(columns, compute, exclusions, identifiers=identifiers)


def _exclusions_of(prediction, reference, part: pd.DataFrame) -> Exclusions:
    """The rows of one part that the per-row metric leaves out (the texts are not scored)."""
    rows = text_rows(*texts(part, prediction, reference))
    return Exclusions(rows.no_prediction, rows.no_reference, tuple(rows.dropped[:10]), rows.total)


def _scored_rows(score, prediction, reference, datum, part: pd.DataFrame) -> pd.DataFrame:
    """The per-row table of one part (indexed like the rows kept, the ``datum`` ids first),
    without a warning: the rows left out are warned about once (:class:`Exclusions`)."""
    table, kept = score(*texts(part, prediction, reference))
    if datum is not None:
        table.insert(0, "datum", one_column(part, "datum", datum).to_numpy()[kept.positions])
    return table


def _row_means(score, prediction, reference, by, part: pd.DataFrame):
    """The group sums of a part's per-row table (each row its own datum); the rows left out
    are counted in the state, and warned about once, by ``means_table``."""
    table, kept = score(*texts(part, prediction, reference))
    rows = pd.RangeIndex(len(table))
    groups = one_column(part, "by", by).iloc[kept.positions].set_axis(rows)
    state = means_state(table.set_axis(rows).assign(datum=rows), by=groups)
    return replace(state, excluded=(kept.no_prediction, kept.no_reference, tuple(kept.dropped[:10])))
