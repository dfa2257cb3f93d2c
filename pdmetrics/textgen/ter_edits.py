"""TER's edit count: Tercom's shift search as sacrebleu 2.6 implements it.

Repeatedly apply the word-block shift that lowers the (beam-limited) edit distance most,
until none helps or 1000 candidate shifts have been tried in the segment; edits = shifts +
final edit distance. The search is sequential within a segment (each accepted shift changes
the next search), so it runs in Python over the search steps; the edit distances of all
candidate shifts of a step are computed together with numpy.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["translation_edits"]

# Tercom's algorithm as sacrebleu 2.6 implements it: repeatedly apply the word-block shift
# that lowers the (beam-limited) edit distance most, until none helps or 1000 candidate
# shifts have been tried in the segment; edits = shifts + final edit distance.

_INF = 10**16
_BEAM = 25
_MAX_SHIFT_SIZE = 10
_MAX_SHIFT_DIST = 50
_MAX_CANDIDATES = 1000
# cell operations of the edit-distance table (hypothesis rows, reference columns)
_KEEP, _SUB, _DEL, _INS, _UNSET = 0, 1, 2, 3, 4


class _EditTable:
    """Beam-limited word edit distance of hypotheses of one length against one reference
    (words as integer ids)."""

    def __init__(self, ref: list[int], n_hyp: int):
        self.ref = ref
        self.n_ref = len(ref)
        self.ratio = self.n_ref / n_hyp if n_hyp else 1
        half = self.ratio / 2
        self.beam = math.ceil(half + _BEAM) if _BEAM < half else _BEAM
        self.ref_ids = np.asarray(ref, dtype=np.int64)
        self.first_row = (list(range(self.n_ref + 1)), [_INS] * (self.n_ref + 1))

    def _row(self, i: int, word: int, above: list[int], last: bool) -> tuple[list[int], list[int]]:
        n_ref, ref = self.n_ref, self.ref
        diagonal = math.floor(i * self.ratio)
        lo = max(0, diagonal - self.beam)
        hi = n_ref + 1 if last else min(n_ref + 1, diagonal + self.beam)
        cost = [_INF] * (n_ref + 1)
        ops = [_UNSET] * (n_ref + 1)
        if lo == 0:
            cost[0], ops[0] = above[0] + 1, _DEL
        left = cost[max(lo, 1) - 1]  # the cell before the first computed one
        for j in range(max(lo, 1), hi):
            # preference on equal cost: keep/substitute, then delete, then insert
            if word == ref[j - 1]:
                best, op = above[j - 1], _KEEP
            else:
                best, op = above[j - 1] + 1, _SUB
            if best >= _INF:
                best, op = _INF, _UNSET
            if above[j] + 1 < best:
                best, op = above[j] + 1, _DEL
            if left + 1 < best:
                best, op = left + 1, _INS
            cost[j] = left = best
            ops[j] = op
        return cost, ops

    def traced(self, hyp: list[int]) -> tuple[int, list]:
        """Edit distance of ``hyp`` and its whole table (for the alignment)."""
        rows = [self.first_row]
        n_hyp = len(hyp)
        for i in range(1, n_hyp + 1):
            rows.append(self._row(i, hyp[i - 1], rows[-1][0], i == n_hyp))
        return rows[-1][0][-1], rows

    def distances(self, hyps: np.ndarray) -> np.ndarray:
        """Edit distances of many hypotheses of this table's length (rows of ``hyps``) at once.

        Row by row over the table, vectorized across hypotheses: the substitution/deletion
        cost of every cell comes from the row above; the chain of insertions along the row
        is a running minimum of ``cost - column`` (cell j = min over k <= j of cost_k + j - k).
        Cells outside the beam stay "infinite", as in the traced table.
        """
        count, n_hyp = hyps.shape
        n_ref = self.n_ref
        above = np.broadcast_to(np.arange(n_ref + 1, dtype=np.int64), (count, n_ref + 1))
        for i in range(1, n_hyp + 1):
            diagonal = math.floor(i * self.ratio)
            lo = max(0, diagonal - self.beam)
            hi = n_ref + 1 if i == n_hyp else min(n_ref + 1, diagonal + self.beam)
            row = np.full((count, n_ref + 1), _INF, dtype=np.int64)
            if hi > lo:
                first = max(lo, 1)
                columns = np.arange(lo, hi)
                cost = np.empty((count, hi - lo), dtype=np.int64)
                if lo == 0:
                    cost[:, 0] = above[:, 0] + 1
                j = np.arange(first, hi)
                mismatch = hyps[:, i - 1, None] != self.ref_ids[None, j - 1]
                cost[:, first - lo :] = np.minimum(
                    np.minimum(above[:, j - 1] + mismatch, above[:, j] + 1), _INF
                )
                chained = np.minimum.accumulate(cost - columns, axis=1) + columns
                chained[:, first - lo :] = np.minimum(chained[:, first - lo :], _INF)
                row[:, lo:hi] = chained
            above = row
        return above[:, n_ref]

    def alignment(self, rows) -> tuple[list[int], list[int], list[int]]:
        """Walk the table back from the corner: for every reference position the hypothesis
        position it aligns to, and which reference / hypothesis positions are errors."""
        i, j = len(rows) - 1, self.n_ref
        path = []
        while i > 0 or j > 0:
            op = rows[i][1][j]
            path.append(op)
            if op in (_KEEP, _SUB):
                i, j = i - 1, j - 1
            elif op == _INS:
                j -= 1
            elif op == _DEL:
                i -= 1
            else:  # pragma: no cover - only for a beam that loses the path (sacrebleu raises too)
                raise RuntimeError("TER: the beam lost the alignment path")
        align, ref_err, hyp_err = [0] * self.n_ref, [], []
        h = r = -1
        for op in reversed(path):
            if op in (_KEEP, _SUB):
                h, r = h + 1, r + 1
                align[r] = h
                ref_err.append(op == _SUB)
                hyp_err.append(op == _SUB)
            elif op == _DEL:  # a hypothesis word with no reference word
                h += 1
                hyp_err.append(True)
            else:  # a reference word with no hypothesis word
                r += 1
                align[r] = h
                ref_err.append(True)
        return align, ref_err, hyp_err


def _moved(words: list[str], start: int, length: int, target: int) -> list[str]:
    """``words`` with the block ``[start, start+length)`` cut out and re-inserted before
    position ``target`` of the original list (Tercom's shift)."""
    block = words[start : start + length]
    rest = words[:start] + words[start + length :]
    at = target - length if target > start + length else target
    return rest[:at] + block + rest[at:]


def _best_shift(hyp: list[int], ref: list[int], table: _EditTable, tried: int):
    """The shift that lowers the edit distance most (ties: longer, earlier, earlier target).

    The candidates, and where the 1000-candidate limit stops, depend only on the current
    alignment, so they are listed first and their edit distances computed together.
    Returns (gain, shifted hypothesis) or None, the updated candidate count, and the edit
    distance of ``hyp`` itself."""
    before, rows = table.traced(hyp)
    align, ref_err, hyp_err = table.alignment(rows)
    n_hyp, n_ref = len(hyp), len(ref)
    candidates = []
    for start in range(n_hyp):
        if tried >= _MAX_CANDIDATES:
            break
        for ref_start in range(max(0, start - _MAX_SHIFT_DIST), min(n_ref, start + _MAX_SHIFT_DIST + 1)):
            if tried >= _MAX_CANDIDATES:
                break
            length = 0
            while length < _MAX_SHIFT_SIZE and hyp[start + length] == ref[ref_start + length]:
                length += 1
                if (
                    any(hyp_err[start : start + length])
                    and any(ref_err[ref_start : ref_start + length])
                    and not start <= align[ref_start] < start + length
                ):
                    previous = -1
                    for offset in range(-1, length):
                        if ref_start + offset == -1:
                            target = 0
                        elif ref_start + offset < n_ref:
                            target = align[ref_start + offset] + 1
                        else:
                            break
                        if target != previous:
                            candidates.append((length, start, target))
                            tried += 1
                            previous = target
                    if tried >= _MAX_CANDIDATES:
                        break
                if start + length == n_hyp or ref_start + length == n_ref:
                    break
    if not candidates or tried >= _MAX_CANDIDATES:  # at the limit the search stops unapplied
        return None, tried, before
    positions = list(range(n_hyp))
    order = np.array([_moved(positions, start, length, target) for length, start, target in candidates])
    gains = before - table.distances(np.asarray(hyp, dtype=np.int64)[order])
    keys = [(int(gain), length, -start, -target) for gain, (length, start, target) in zip(gains, candidates)]
    best = max(range(len(keys)), key=keys.__getitem__)
    return (keys[best][0], [hyp[k] for k in order[best]]), tried, before


def translation_edits(hyp: list[str], ref: list[str]) -> int:
    """TER edits (shifts + insertions, deletions, substitutions) turning ``hyp`` into ``ref``."""
    if not ref:
        return len(hyp)
    ids: dict[str, int] = {}
    ref_ids = [ids.setdefault(word, len(ids)) for word in ref]
    hyp_ids = [ids.setdefault(word, len(ids)) for word in hyp]
    table = _EditTable(ref_ids, len(hyp_ids))
    shifts, tried = 0, 0
    while True:
        best, tried, distance = _best_shift(hyp_ids, ref_ids, table, tried)
        if tried >= _MAX_CANDIDATES or best is None or best[0] <= 0:
            break
        shifts += 1
        hyp_ids = best[1]
    # the search stops without applying a shift: the last distance is the final one
    return shifts + distance
