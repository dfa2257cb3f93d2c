"""Instance masks as run lengths: COCO's RLE, polygon rasterization, area and mask IoU.

A COCO segmentation is a polygon (a list of flat coordinate lists ``[x1, y1, x2, y2, ...]``,
several parts meaning their union), an uncompressed RLE (``{"size": [h, w], "counts": [...]}``)
or a compressed RLE (``counts`` a string). All of them describe a binary ``h x w`` mask read in
*column-major* order (down the first column, then the second, ...): the counts alternate runs of
0s and 1s, starting with 0s (a first count of 0 when pixel ``(0, 0)`` is set).

Internally every mask becomes a :class:`MaskRuns`: the runs of 1s as half-open intervals
``[start, stop)`` of column-major flat indices (pixel ``(row, col)`` is ``col * h + row``), all
masks' runs stored back to back with ``offsets`` (CSR layout). Everything is computed on those
arrays with numpy, vectorized across runs, masks and pairs:

- the compressed counts string is COCO's: each count (from the fourth on, minus the count two
  before) in 5-bit groups, least significant first, as characters ``48 + group`` with ``32``
  added while more groups follow (a signed LEB128 with 6-bit characters);
- polygons are rasterized exactly as pycocotools' C ``rleFrPoly`` does: vertices scaled by 5 and
  rounded (``int(5 * x + 0.5)``, truncated toward zero), every edge walked one step per upsampled
  unit along its longer axis, and a boundary kept wherever the walk crosses a pixel column centre
  (``(u + 0.5) / 5 - 0.5`` an integer in ``[0, w - 1]``), at row ``ceil((v + 0.5) / 5 - 0.5)``
  clipped to ``[0, h]``; boundaries toggle the mask (an even number of toggles at one index
  cancel). Several parts are united (COCO's ``merge``). A box is rasterized as the polygon of
  its corners (COCO's ``frBbox``);
- mask IoU is COCO's: intersection over union, ``intersection / area(detection)`` for a crowd
  ground truth, 0 when the masks do not intersect (empty masks included). Only pairs whose
  bounding boxes overlap are intersected; the intersection of a pair sums, over the runs of the
  mask with fewer runs that reach into the columns both boxes share, the other mask's
  cumulative area at the run's ends (one ``np.searchsorted`` over all runs of all masks).
  Packed bits (``np.bitwise_count`` of ANDed 64-row words) make a faster pair kernel, but
  building the words costs more than it saves (``benchmarks/bench_mask_kernels.py --options``).

The kernels that pass over every run or character (decoding strings, drawing polygons, areas,
bounds, pair intersections) take the masks a batch at a time (about :data:`BATCH` items): their
temporaries then stay a few megabytes and are reused from batch to batch, where one pass over
all the masks of a file would take hundreds of megabytes of fresh memory from the system (on
Linux, large numpy arrays ask for huge pages, and the faults then cost more than the work).

The last call's compressed strings decoded are kept with their runs: strings are immutable, so
the same string objects decode to the same runs, and a result file that
:func:`pdmetrics.io.read_coco` parsed for its boxes and areas is not parsed again by
``evaluate(iou_type="segm")``. Everything is pure numpy: handing polygons to
``pycocotools.mask`` and decoding its strings was measured no faster
(``benchmarks/bench_segmentation.py`` times the whole evaluation).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain, repeat
from operator import is_

import numpy as np

from pdmetrics.detection.iou import check_box_values, check_format
from pdmetrics.errors import InvalidInputError

__all__ = [
    "MaskRuns",
    "mask_runs",
    "rle_encode",
    "rle_decode",
    "polygon_to_rle",
    "polygon_to_mask",
    "mask_area",
    "mask_bbox",
    "box_to_rle",
    "mask_iou",
    "paired_mask_iou",
]

#: pycocotools upsamples polygons by this factor before walking their edges.
POLYGON_SCALE = 5
#: Largest image side accepted.
MAX_SIDE = 2**15
#: Items (characters, runs) the batched kernels take at a time (see :func:`_batches`).
BATCH = 1 << 17
#: Largest absolute polygon coordinate accepted (the x5 upsampled walk stays in int32, as in C).
MAX_COORDINATE = 2**26


@dataclass(frozen=True)
class MaskRuns:
    """Many binary masks as runs of 1s in column-major order (the layout every kernel uses).

    Mask ``i`` is ``height[i] x width[i]``; its runs are ``starts[offsets[i]:offsets[i + 1]]``
    and ``stops[offsets[i]:offsets[i + 1]]``: half-open intervals of column-major flat indices
    (pixel ``(row, col)`` is ``col * height + row``), sorted, non-empty and not touching (the
    canonical form COCO's encoder produces). Build one with :func:`mask_runs`; all arrays are
    int64.
    """

    height: np.ndarray
    width: np.ndarray
    offsets: np.ndarray
    starts: np.ndarray
    stops: np.ndarray

    def __len__(self) -> int:
        return int(self.height.size)

    def area(self) -> np.ndarray:
        """Number of pixels set in each mask (int64)."""
        area = np.empty(len(self), dtype="int64")
        for a, b in _batches(self.offsets):
            lo, hi = self.offsets[a], self.offsets[b]
            cumulative = np.concatenate(([0], np.cumsum(self.stops[lo:hi] - self.starts[lo:hi])))
            area[a:b] = np.diff(cumulative[self.offsets[a : b + 1] - lo])
        return area

    def take(self, index) -> MaskRuns:
        """The masks ``index`` (an integer array), in that order (repeats allowed)."""
        index = np.asarray(index).reshape(-1)
        if index.size and (
            index.dtype.kind not in "iu" or index.min() < -len(self) or index.max() >= len(self)
        ):
            raise InvalidInputError(
                f"`index` must hold integer positions from 0 to {len(self) - 1} "
                f"(there are {len(self)} masks)."
            )
        index = np.where(index < 0, index + len(self), index).astype("int64")
        lengths = self.offsets[index + 1] - self.offsets[index]
        source = np.repeat(self.offsets[index], lengths) + _segment_arange(lengths)
        return MaskRuns(
            self.height[index], self.width[index], _offsets(lengths), self.starts[source], self.stops[source]
        )

    def counts(self) -> list[np.ndarray]:
        """Each mask's uncompressed RLE counts (COCO's canonical runs, 0s first)."""
        offsets = _counts_offsets(self)
        return np.split(_counts_flat(self), offsets[1:-1])

    def to_rle(self) -> list[dict]:
        """Each mask as a compressed COCO RLE ``{"size": [h, w], "counts": str}``."""
        strings = _counts_strings(_counts_flat(self), _counts_offsets(self))
        sizes = zip(self.height.tolist(), self.width.tolist())
        return [{"size": [h, w], "counts": s} for (h, w), s in zip(sizes, strings)]

    def to_masks(self) -> list[np.ndarray]:
        """Each mask as a boolean ``(h, w)`` array."""
        return [_dense(self, i) for i in range(len(self))]


# ----------------------------------------------------------------------------------------------
# small array helpers


def _segment_arange(lengths: np.ndarray) -> np.ndarray:
    """``0, 1, ..., n_k - 1`` for every segment length ``n_k``, concatenated."""
    lengths = np.asarray(lengths, dtype="int64")
    ends = np.cumsum(lengths)
    total = int(ends[-1]) if ends.size else 0
    return np.arange(total, dtype="int64") - np.repeat(ends - lengths, lengths)


def _offsets(lengths: np.ndarray) -> np.ndarray:
    return np.concatenate(([0], np.cumsum(lengths, dtype="int64")))


def _batches(offsets: np.ndarray) -> list[tuple[int, int]]:
    """Consecutive segments ``[a, b)`` of the CSR ``offsets`` holding about :data:`BATCH` items each
    (whole segments; one larger segment alone), for kernels that work a batch at a time: their
    temporaries stay small enough to be reused from one batch to the next, where one pass over
    millions of items would take fresh memory from the system (slower than the work itself)."""
    cuts = np.searchsorted(offsets, np.arange(BATCH, int(offsets[-1]), BATCH), side="right") - 1
    bounds = np.unique(np.concatenate(([0], cuts, [offsets.size - 1]))).tolist()
    return list(zip(bounds[:-1], bounds[1:]))


def _empty_runs() -> MaskRuns:
    z = np.zeros(0, dtype="int64")
    return MaskRuns(z, z, np.zeros(1, dtype="int64"), z, z)


def _concat(parts: list[MaskRuns]) -> MaskRuns:
    if not parts:
        return _empty_runs()
    lengths = np.concatenate([np.diff(p.offsets) for p in parts])
    return MaskRuns(
        np.concatenate([p.height for p in parts]),
        np.concatenate([p.width for p in parts]),
        _offsets(lengths),
        np.concatenate([p.starts for p in parts]),
        np.concatenate([p.stops for p in parts]),
    )


def _dense(runs: MaskRuns, i: int) -> np.ndarray:
    h, w = int(runs.height[i]), int(runs.width[i])
    lo, hi = runs.offsets[i], runs.offsets[i + 1]
    lengths = runs.stops[lo:hi] - runs.starts[lo:hi]
    flat = np.zeros(h * w, dtype=bool)
    flat[np.repeat(runs.starts[lo:hi], lengths) + _segment_arange(lengths)] = True
    return flat.reshape(w, h).T.copy()


def _row_of(offsets: np.ndarray, position: int) -> int:
    """The segment (mask) that flat ``position`` falls in."""
    return int(np.searchsorted(offsets, position, side="right") - 1)


# ----------------------------------------------------------------------------------------------
# counts <-> runs <-> strings


def _last_stop(runs: MaskRuns) -> np.ndarray:
    """End of each mask's last run (0 for an empty mask)."""
    n_runs = np.diff(runs.offsets)
    last_stop = np.zeros(len(runs), dtype="int64")
    last_stop[n_runs > 0] = runs.stops[runs.offsets[1:][n_runs > 0] - 1]
    return last_stop


def _counts_offsets(runs: MaskRuns) -> np.ndarray:
    """Offsets of each mask's counts in :func:`_counts_flat`: two per run, plus the final run of
    0s unless the mask ends with a run of 1s (an empty mask has the single count ``h * w``)."""
    n_runs = np.diff(runs.offsets)
    trailing = (n_runs == 0) | (_last_stop(runs) < runs.height * runs.width)
    return _offsets(2 * n_runs + trailing)


def _counts_flat(runs: MaskRuns) -> np.ndarray:
    """All masks' canonical counts back to back: ``start0, len0, start1 - stop0, ..., rest``."""
    n_runs = np.diff(runs.offsets)
    out_offsets = _counts_offsets(runs)
    out = np.empty(int(out_offsets[-1]), dtype="int64")
    position = 2 * _segment_arange(n_runs) + np.repeat(out_offsets[:-1], n_runs)
    previous_stop = np.empty_like(runs.stops)
    previous_stop[1:] = runs.stops[:-1]
    has = n_runs > 0
    previous_stop[runs.offsets[:-1][has]] = 0
    out[position] = runs.starts - previous_stop
    out[position + 1] = runs.stops - runs.starts
    rest = runs.height * runs.width - _last_stop(runs)
    trailing = np.diff(out_offsets) > 2 * n_runs
    out[out_offsets[1:][trailing] - 1] = rest[trailing]
    return out


def _pad_even(counts: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each mask's counts followed by a 0 when there is an odd number of them, so every mask
    starts at an even position (its 0-runs at even, its 1-runs at odd positions)."""
    lengths = np.diff(offsets)
    padded = _offsets(lengths + (lengths & 1))
    out = np.insert(counts.astype("int64", copy=False), offsets[1:][(lengths & 1) == 1], 0)
    return out, padded


def _segment_cumsum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Running sums of int64 ``values`` restarting at every segment ``offsets[k]:offsets[k + 1]``,
    in place (each segment's first value less the previous segment's total, then one running
    sum)."""
    starts = offsets[:-1][np.diff(offsets) > 0]
    if starts.size > 1:
        values[starts[1:]] -= np.add.reduceat(values, starts)[:-1]
    return np.cumsum(values, out=values)


def _runs_from_pairs(
    zeros: np.ndarray, ones: np.ndarray, pair_offsets: np.ndarray, height: np.ndarray, width: np.ndarray, what
) -> MaskRuns:
    """Canonical runs of masks given as (run of 0s, run of 1s) length pairs (int64, the arrays
    are changed): every mask's counts checked (none negative, summing to its ``h * w``),
    zero-length runs dropped, touching runs joined."""
    negative = (zeros < 0) | (ones < 0)
    if negative.any():
        row = _row_of(pair_offsets, int(np.flatnonzero(negative)[0]))
        raise InvalidInputError(
            f"{what(row)} has a negative run length in its RLE counts; counts are pixel counts >= 0. "
            f"Pass the counts exactly as COCO wrote them."
        )
    del negative
    # each pair's end, counted from its mask's first pixel
    ends = _segment_cumsum(np.add(zeros, ones, out=zeros), pair_offsets)
    n_pairs = np.diff(pair_offsets)
    total = np.zeros(n_pairs.size, dtype="int64")
    total[n_pairs > 0] = ends[pair_offsets[1:][n_pairs > 0] - 1]
    expected = height * width
    bad = total != expected
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InvalidInputError(
            f"{what(row)}: its RLE counts sum to {int(total[row])} pixels but its size "
            f"[{int(height[row])}, {int(width[row])}] has {int(expected[row])}. The counts must cover "
            f"the whole image, column by column; check `size` (it is [height, width]) and the counts."
        )
    kept = np.flatnonzero(ones)  # pairs whose run of 1s is not empty
    stops = ends[kept]
    starts = stops - ones[kept]
    run_offsets = np.searchsorted(kept, pair_offsets)
    # join runs that touch (a zero-length run of 0s between two runs of 1s), within a mask
    touching = starts[1:] == stops[:-1]
    boundary = run_offsets[1:-1]
    touching[boundary[(boundary > 0) & (boundary < starts.size)] - 1] = False
    if touching.any():
        keep_start = np.concatenate(([True], ~touching))
        starts, stops = starts[keep_start], stops[np.concatenate((~touching, [True]))]
        run_offsets = np.concatenate(([0], np.cumsum(keep_start)))[run_offsets]
    return MaskRuns(height, width, run_offsets, starts, stops)


def _pair_columns(counts: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each mask's counts as (run of 0s, run of 1s) pairs: the 0-runs, the 1-runs (int64, new
    arrays) and the masks' offsets in them; an odd count list ends with an empty run of 1s."""
    padded, padded_offsets = _pad_even(counts, offsets)
    pairs = padded.reshape(-1, 2)
    return pairs[:, 0].copy(), pairs[:, 1].copy(), padded_offsets // 2


def _counts_strings(counts: np.ndarray, offsets: np.ndarray) -> list[str]:
    """COCO's compressed counts strings of many masks (``rleToString``), vectorized."""
    index = _segment_arange(np.diff(offsets))
    values = counts.astype("int64")
    later = np.flatnonzero(index > 2)
    values[later] = counts[later] - counts[later - 2]
    # characters per value: the fewest 5-bit groups holding it as a signed number
    n_chars = np.ones(values.size, dtype="int64")
    for k in range(1, 8):
        limit = 1 << (5 * k - 1)
        n_chars += (values >= limit) | (values < -limit)
    position = _segment_arange(n_chars)
    groups = (np.repeat(values, n_chars) >> (5 * position)) & 0x1F
    more = position < np.repeat(n_chars - 1, n_chars)
    text = (48 + (groups | (more.astype("int64") << 5))).astype("uint8").tobytes().decode("ascii")
    bounds = np.concatenate(([0], np.cumsum(n_chars)))[offsets].tolist()
    return [text[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def _malformed(what, row: int, why: str) -> InvalidInputError:
    return InvalidInputError(
        f"{what(row)} has a malformed compressed `counts` string ({why}). Pass the string exactly as "
        f"COCO wrote it (pycocotools' encode), or the counts as a list of integers."
    )


def _string_runs(strings: list, height: np.ndarray, width: np.ndarray, what) -> MaskRuns:
    """Runs of masks given as COCO compressed counts strings (``rleFrString``), checked."""
    joined = "".join(strings) if set(map(type, strings)) == {str} else None
    if joined is not None and joined.isascii():  # the common case, checked at C speed
        encoded, joined = strings, joined.encode("ascii")
    else:
        encoded = []
        for row, s in enumerate(strings):
            if isinstance(s, str):
                if not s.isascii():
                    raise _malformed(what, row, "non-ASCII characters")
                s = s.encode("ascii")
            encoded.append(s)
        joined = b"".join(encoded)
    lengths = np.fromiter(map(len, encoded), dtype="int64", count=len(encoded))
    char_offsets = _offsets(lengths)
    c = np.frombuffer(joined, dtype="uint8") - np.uint8(48)  # below '0' wraps past 63
    # a string of L characters holds at most L numbers, so at most (L + 1) // 2 runs of 1s; the
    # part of these arrays never written is never touched
    bound = (c.size + len(encoded)) // 2
    starts, stops = np.empty(bound, dtype="int64"), np.empty(bound, dtype="int64")
    run_offsets = np.zeros(len(encoded) + 1, dtype="int64")
    at = 0
    for a, b in _batches(char_offsets):  # whole strings, about BATCH characters at a time
        name = (lambda row, a=a: what(row + a)) if a else what
        pairs = _decode_chunk(
            c[char_offsets[a] : char_offsets[b]], char_offsets[a : b + 1] - char_offsets[a], name
        )
        part = _runs_from_pairs(*pairs, height[a:b], width[a:b], name)
        n = part.starts.size
        starts[at : at + n], stops[at : at + n] = part.starts, part.stops
        run_offsets[a + 1 : b + 1] = part.offsets[1:] + at
        at += n
    return MaskRuns(height, width, run_offsets, starts[:at], stops[:at])


def _decode_chunk(c: np.ndarray, char_offsets: np.ndarray, what):
    """Some compressed counts strings as (run of 0s, run of 1s) pairs: the 0-runs, the 1-runs
    and each string's offsets in them (:func:`_pair_columns`). ``c`` holds the strings'
    characters less 48, string ``k`` being ``c[char_offsets[k]:char_offsets[k + 1]]``."""
    lengths = np.diff(char_offsets)
    if c.size and c.max() > 63:
        bad = np.flatnonzero(c > 63)
        character = chr((int(c[bad[0]]) + 48) % 256)
        raise _malformed(
            what, _row_of(char_offsets, int(bad[0])), f"character {character!r} is not one of '0'..'o'"
        )
    last = c < 32  # no continuation bit: a number's last character
    nonempty = lengths > 0
    open_end = np.flatnonzero(nonempty)[~last[char_offsets[1:][nonempty] - 1]]
    if open_end.size:
        raise _malformed(what, int(open_end[0]), "it ends in the middle of a number")
    value_end = np.flatnonzero(last)  # each number's last character (its end, less one)
    del last
    # 5 bits a character, least significant first; the last character's bit 4 is the sign, so
    # it holds the top bits sign-extended (most numbers are that one character)
    top = c[value_end]
    top ^= 0x10
    top -= 0x10
    values = top.view("int8").astype("int64")
    del top
    value_end += 1
    n_chars = np.diff(value_end, prepend=0)
    if n_chars.size and n_chars.max() > 7:
        too_long = np.flatnonzero(n_chars > 7)
        start = int(value_end[too_long[0]] - n_chars[too_long[0]])
        raise _malformed(what, _row_of(char_offsets, start), "a number longer than 7 characters")
    longer = np.flatnonzero(n_chars > 1)
    if longer.size:
        size = n_chars[longer]
        start = value_end[longer] - size
        value = values[longer] << (5 * (size - 1))
        for k in range(6):
            lower = np.flatnonzero(size > k + 1)
            if not lower.size:
                break
            value[lower] += (c[start[lower] + k] & 0x1F).astype("int64") << (5 * k)
        values[longer] = value
    per_string = np.diff(np.searchsorted(value_end, char_offsets, side="right"))
    # undo the differences: a mask's count i > 2 is its value i plus its count i - 2, i.e.
    # running sums down the two columns of its (run of 0s, run of 1s) pairs, the 0-runs from the
    # second pair on (the first count stands alone)
    zeros, ones, pair_offsets = _pair_columns(values, _offsets(per_string))
    del values
    first = pair_offsets[:-1]
    second = np.minimum(first + 1, pair_offsets[1:])
    _segment_cumsum(zeros, np.append(np.stack((first, second), axis=1).reshape(-1), pair_offsets[-1]))
    _segment_cumsum(ones, pair_offsets)
    ones[pair_offsets[1:][per_string & 1 == 1] - 1] = 0  # an odd count list's padding stays empty
    return zeros, ones, pair_offsets


# ----------------------------------------------------------------------------------------------
# polygons (pycocotools' rleFrPoly, vectorized)


def _scaled_vertices(xy: np.ndarray, vertex_offsets: np.ndarray):
    """Upsampled, rounded vertices and, per vertex, the index of the next one (closing each part)."""
    x = np.trunc(POLYGON_SCALE * xy[0::2] + 0.5).astype("int64")
    y = np.trunc(POLYGON_SCALE * xy[1::2] + 0.5).astype("int64")
    following = np.arange(1, x.size + 1)
    following[vertex_offsets[1:] - 1] = vertex_offsets[:-1]
    return x, y, following


def _walk(start: np.ndarray, slope: np.ndarray, t: np.ndarray) -> np.ndarray:
    """COCO's walked coordinate ``(int)(start + slope * t + 0.5)`` (float64, truncated toward 0)."""
    return np.trunc(start + slope * t + 0.5).astype("int64")


def _polygon_toggles(xy: np.ndarray, vertex_offsets: np.ndarray, height: np.ndarray, width: np.ndarray):
    """(part, column-major index) of every boundary COCO's edge walk puts in each part.

    pycocotools walks every upsampled edge point by point and keeps a boundary where two
    consecutive points ``(u, v)`` change column ``u`` across a pixel centre: ``c = min(u)``
    with ``c = 5 q + 2`` for an image column ``q``, at row ``ceil((min(v) + 0.5) / 5 - 0.5)``.
    Only those crossings are computed here, straight from the edge's equation: along a wide
    edge (``|dx| >= |dy|``, ``u = xs + t``) the crossing of ``c`` is the step ``t = c - xs``;
    along a tall edge (``v = ys + t``, ``u = (int)(xs + s t + 0.5)``) it is the first step
    whose ``u`` passes ``c``, found from the line's equation and checked with COCO's own
    arithmetic. Crossings at negative ``u`` (outside the image) are never kept, so the
    rounding toward zero there does not matter.
    """
    n_parts = vertex_offsets.size - 1
    x, y, following = _scaled_vertices(xy, vertex_offsets)
    xs, ys, xe, ye = x, y, x[following], y[following]
    dx, dy = np.abs(xe - xs), np.abs(ys - ye)
    wide = dx >= dy
    flip = (wide & (xs > xe)) | (~wide & (ys > ye))
    xs, xe = np.where(flip, xe, xs), np.where(flip, xs, xe)
    ys, ye = np.where(flip, ye, ys), np.where(flip, ys, ye)
    steps = np.where(wide, dx, dy)
    # a repeated vertex (0 steps) crosses no column
    slope = np.where(wide, ye - ys, xe - xs) / np.maximum(steps, 1)
    part_of_edge = np.repeat(np.arange(n_parts), np.diff(vertex_offsets))
    w = width[part_of_edge]
    # the range of column values c crossed (c -> c + 1 or back) along each edge
    u_first, u_last = _walk(xs, slope, 0), _walk(xs, slope, steps)
    c_low = np.where(wide, xs, np.minimum(u_first, u_last))
    c_high = np.where(wide, xe, np.maximum(u_first, u_last)) - 1
    scale = POLYGON_SCALE
    q_low = np.maximum(-((2 - c_low) // scale), 0)  # ceil((c_low - 2) / 5)
    q_high = np.minimum((c_high - 2) // scale, w - 1)
    n_cross = np.maximum(q_high - q_low + 1, 0)
    h = height[part_of_edge]
    parts, indices = [], []
    # wide edges: the pair of steps (t, t + 1) with u = c, c + 1; the lower row of the two,
    # which is the row at t when v grows along the edge and at t + 1 when it falls (the
    # walked v is monotone: floating-point + and * are)
    wide_edges = np.flatnonzero(wide & (n_cross > 0))
    if wide_edges.size:
        n = n_cross[wide_edges]
        # (in-place arithmetic: these arrays have one entry per crossing; the float operations
        # are COCO's, (ys + s * t) + 0.5, in an order giving the same bits)
        q = _expand(q_low[wide_edges], n)
        t = np.repeat((2 - (xs - (slope < 0)))[wide_edges], n)
        t += scale * q
        v_min = np.repeat(slope[wide_edges], n)
        v_min *= t
        v_min += np.repeat(ys[wide_edges], n)
        v_min += 0.5
        np.trunc(v_min, out=v_min)
        parts.append(np.repeat(part_of_edge[wide_edges], n))
        indices.append(_row_index(q, v_min, np.repeat(h[wide_edges], n)))
    tall_edges = np.flatnonzero(~wide & (n_cross > 0))
    if tall_edges.size:
        # tall edges: the first step t whose u is past c (u >= c + 1 going right, <= c going left)
        n = n_cross[tall_edges]
        q = _expand(q_low[tall_edges], n)
        cc = scale * q + 2
        start, s, last = (np.repeat(a[tall_edges], n) for a in (xs, slope, steps))
        rightward = s > 0

        def past(i, step):
            z = start[i] + s[i] * step + 0.5
            return np.where(rightward[i], z >= cc[i] + 1, z < cc[i] + 1)

        with np.errstate(divide="ignore", invalid="ignore"):
            guess = np.ceil((cc + 0.5 - start) / s)
        guess = np.where(rightward, guess, np.floor((cc + 0.5 - start) / np.where(s == 0, -1, s)) + 1)
        step = np.clip(np.nan_to_num(guess), 1, last).astype("int64")
        # the guess is almost always right; move the others one step at a time
        pending = np.arange(step.size)
        while pending.size:
            current = step[pending]
            back = past(pending, current - 1) & (current > 1)
            ahead = ~past(pending, current) & (current < last[pending])
            step[pending] = current - back + ahead
            pending = pending[back | ahead]
        v_min = np.repeat(ys[tall_edges], n) + step - 1
        parts.append(np.repeat(part_of_edge[tall_edges], n))
        indices.append(_row_index(q, v_min, np.repeat(h[tall_edges], n)))
    if not parts:
        return np.zeros(0, dtype="int64"), np.zeros(0, dtype="int64")
    return np.concatenate(parts), np.concatenate(indices)


def _expand(first: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``first[k], first[k] + 1, ...`` (``lengths[k]`` values) for every k, concatenated."""
    ends = np.cumsum(lengths)
    return np.arange(int(ends[-1]), dtype="int64") + np.repeat(first - (ends - lengths), lengths)


def _row_index(q: np.ndarray, v_min: np.ndarray, h: np.ndarray) -> np.ndarray:
    """Column-major index of the boundary in image column ``q`` at walked row ``v_min``.

    COCO's row ``ceil((v + 0.5) / 5 - 0.5)`` is ``ceil((v - 2) / 5)``, equal in floating point too
    (exact when 5 divides ``v - 2``, else at least 1/5 from an integer), clipped to ``[0, h]``.
    """
    row = v_min.astype("float64", copy=False)  # our own temporary: changed in place
    row -= 2
    row /= POLYGON_SCALE
    np.ceil(row, out=row)
    np.clip(row, 0, h, out=row)
    index = q * h
    index += row.astype("int64")
    return index


def _runs_from_toggles(
    part: np.ndarray, index: np.ndarray, height: np.ndarray, width: np.ndarray
) -> MaskRuns:
    """Runs of each part from its toggle indices (an even number at one index cancel).

    The toggles are sorted by one key a toggle: the part's first toggle index moved to the
    end of the previous part's range, so that the keys of all parts fit in int32 (sorted
    faster than int64) unless their ranges add up to more.
    """
    n_parts = height.size
    total = height * width
    per_part = np.bincount(part, minlength=n_parts)
    low, high = np.full(n_parts, np.iinfo("int64").max), np.full(n_parts, -1)
    np.minimum.at(low, part, index)
    np.maximum.at(high, part, index)
    base = _offsets(np.where(per_part > 0, high - low + 1, 0))
    shift = base[:-1] - np.where(per_part > 0, low, 0)
    key = shift[part]
    key += index
    key = key.astype("int32" if base[-1] <= np.iinfo("int32").max else "int64")
    key.sort(kind="stable")  # runs along each edge: a merge of sorted runs
    # the keys of part k fill [base[k], base[k + 1]): sorted, each part keeps its toggles' place
    part = np.repeat(np.arange(n_parts), per_part)
    distinct = np.ones(key.size, dtype=bool)
    distinct[1:] = key[1:] != key[:-1]
    first = np.flatnonzero(distinct)
    kept = first[np.diff(np.append(first, key.size)) % 2 == 1]
    part = part[kept]
    index = key[kept] - shift[part]
    per_part = np.bincount(part, minlength=n_parts)
    if np.any(per_part % 2):  # an odd number of toggles: the last run reaches the image's end
        open_part = np.flatnonzero(per_part % 2 == 1)
        at = _offsets(per_part)[open_part + 1]
        part, index = np.insert(part, at, open_part), np.insert(index, at, total[open_part])
        per_part = np.bincount(part, minlength=n_parts)
    starts, stops = index[0::2], index[1::2]
    keep = starts < stops  # a toggle at the very end of the image (index h * w) toggles nothing
    return MaskRuns(
        height, width, _offsets(np.bincount(part[0::2][keep], minlength=n_parts)), starts[keep], stops[keep]
    )


def _union(runs: MaskRuns, owner: np.ndarray, n: int) -> MaskRuns:
    """Union of the masks of each ``owner`` (sorted, one per mask of ``runs``): COCO's ``merge``."""
    run_owner = np.repeat(owner, np.diff(runs.offsets))
    stride = 2 * (int((runs.height * runs.width).max()) + 1)
    # events sorted by owner, index, then starts (even keys) before stops (odd keys): touching
    # runs join. Each part's events, start and stop of each run in turn, are already in order:
    # the stable sort merges those sorted runs
    base = run_owner * stride
    key = np.stack((base + 2 * runs.starts, base + 2 * runs.stops + 1), axis=1).reshape(-1)
    key.sort(kind="stable")
    event_owner, rest = np.divmod(key, stride)
    positions, is_stop = np.divmod(rest, 2)
    delta = 1 - 2 * is_stop
    cover = np.cumsum(delta)
    opening = (cover - delta == 0) & (cover > 0)
    closing = cover == 0
    first_part = np.searchsorted(owner, np.arange(n))
    return MaskRuns(
        runs.height[first_part],
        runs.width[first_part],
        _offsets(np.bincount(event_owner[opening], minlength=n)),
        positions[opening],
        positions[closing],
    )


def _mask_batch_runs(xy, vertex_offsets, part_offsets, height, width, a: int, b: int) -> MaskRuns:
    """Runs of polygon segmentations ``a`` to ``b - 1``: each part drawn, the parts of a
    segmentation united. Segmentation ``k`` has parts ``part_offsets[k]`` to
    ``part_offsets[k + 1] - 1``, part ``j`` the vertices ``vertex_offsets[j]`` on of ``xy``
    (flat x, y)."""
    parts_per = np.diff(part_offsets[a : b + 1])
    first, last = part_offsets[a], part_offsets[b]
    lo, hi = vertex_offsets[first], vertex_offsets[last]
    part_h, part_w = np.repeat(height[a:b], parts_per), np.repeat(width[a:b], parts_per)
    toggles = _polygon_toggles(xy[2 * lo : 2 * hi], vertex_offsets[first : last + 1] - lo, part_h, part_w)
    runs = _runs_from_toggles(*toggles, part_h, part_w)
    if np.all(parts_per == 1):
        return runs
    # only segmentations of several parts need their union; the others are their one part
    owner = np.repeat(np.arange(b - a), parts_per)
    several = parts_per[owner] > 1
    alone, joined = np.flatnonzero(~several), np.flatnonzero(several)
    owners = np.unique(owner[joined])
    merged = _union(runs.take(joined), np.searchsorted(owners, owner[joined]), owners.size)
    combined = _concat([runs.take(alone), merged])
    return combined.take(np.argsort(np.concatenate((owner[alone], owners)), kind="stable"))


def _polygon_runs(polygons: list, height: np.ndarray, width: np.ndarray, what) -> MaskRuns:
    """Rasterize many polygon segmentations (each a list of flat coordinate lists)."""
    n = len(polygons)
    parts_per = np.fromiter(map(len, polygons), dtype="int64", count=n)
    if np.any(parts_per == 0):
        raise InvalidInputError(
            f"{what(int(np.flatnonzero(parts_per == 0)[0]))} is an empty polygon list; pass at least one "
            f"polygon [x1, y1, x2, y2, x3, y3, ...]."
        )
    parts = list(chain.from_iterable(polygons))
    owner = np.repeat(np.arange(n), parts_per)
    if not all(isinstance(p, (list, tuple, np.ndarray)) for p in parts):
        j = next(i for i, p in enumerate(parts) if not isinstance(p, (list, tuple, np.ndarray)))
        raise InvalidInputError(
            f"{what(int(owner[j]))} is not a list of polygons: a polygon segmentation is "
            f"[[x1, y1, x2, y2, ...], ...] (a list of flat coordinate lists)."
        )
    numbers = np.fromiter(map(len, parts), dtype="int64", count=len(parts))
    bad = np.flatnonzero((numbers < 6) | (numbers % 2 == 1))
    if bad.size:
        j = int(bad[0])
        raise InvalidInputError(
            f"{what(int(owner[j]))} has a polygon with {int(numbers[j])} numbers; a polygon is a flat list "
            f"[x1, y1, x2, y2, ...] of at least 3 points (6 numbers, an even count). Drop degenerate "
            f"polygons, and check that points are not nested as [[x, y], ...]."
        )
    try:
        xy = np.fromiter(chain.from_iterable(parts), dtype="float64", count=int(numbers.sum()))
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"{what(0)}: polygon coordinates must be numbers (flat lists [x1, y1, x2, y2, ...])."
        ) from None
    bad_value = np.flatnonzero(~np.isfinite(xy) | (np.abs(xy) > MAX_COORDINATE))
    if bad_value.size:
        j = _row_of(_offsets(numbers), int(bad_value[0]))
        raise InvalidInputError(
            f"{what(int(owner[j]))} has a polygon coordinate that is missing, infinite or beyond "
            f"{MAX_COORDINATE} in absolute value ({xy[bad_value[0]]!r}). Fix or drop that polygon."
        )
    vertex_offsets = _offsets(numbers // 2)
    # a batch of segmentations at a time, about BATCH boundaries each (a part crosses each
    # column of its width about twice, more where it is not convex)
    x = xy[0::2]
    part_width = np.maximum.reduceat(x, vertex_offsets[:-1]) - np.minimum.reduceat(x, vertex_offsets[:-1])
    cost = np.bincount(owner, weights=4 * part_width + 4, minlength=n).astype("int64")
    height, width = (np.broadcast_to(np.asarray(v, "int64"), (n,)) for v in (height, width))
    return _concat(
        [
            _mask_batch_runs(xy, vertex_offsets, _offsets(parts_per), height, width, a, b)
            for a, b in _batches(_offsets(cost))
        ]
    )


# ----------------------------------------------------------------------------------------------
# arrays and RLE dicts


def _run_edges(array: np.ndarray) -> np.ndarray:
    """Column-major indices where a boolean mask switches on or off (its runs' starts and stops)."""
    flat = np.ravel(array, order="F")
    edges = np.flatnonzero(flat[1:] != flat[:-1]) + 1
    if flat.size and flat[0]:
        edges = np.concatenate(([0], edges))
    if flat.size and flat[-1]:
        edges = np.append(edges, flat.size)
    return edges


def _encode_arrays(arrays: list[np.ndarray]) -> MaskRuns:
    """Runs of many boolean arrays (column-major): one comparison pass over each mask's pixels."""
    heights = np.array([a.shape[0] for a in arrays], dtype="int64")
    widths = np.array([a.shape[1] for a in arrays], dtype="int64")
    edges = [_run_edges(a) for a in arrays]
    n_runs = np.fromiter((e.size // 2 for e in edges), dtype="int64", count=len(edges))
    edges = np.concatenate(edges).astype("int64") if edges else np.zeros(0, dtype="int64")
    return MaskRuns(heights, widths, _offsets(n_runs), edges[0::2], edges[1::2])


def _array_runs(masks: list, height, width, what) -> MaskRuns:
    arrays = []
    for row, mask in enumerate(masks):
        array = np.asarray(mask)
        if array.ndim != 2:
            raise InvalidInputError(
                f"{what(row)} is a {array.ndim}-D array; a mask is a 2-D (height, width) array."
            )
        if array.dtype != bool:
            if array.dtype.kind not in "iuf" or not np.isin(array, (0, 1)).all():
                raise InvalidInputError(
                    f"{what(row)} is a {array.dtype} array with values other than 0 and 1; pass a boolean "
                    f"mask (e.g. `probabilities > 0.5`, or `label_map == k` for one label of a label map)."
                )
            array = array != 0
        if height is not None and (array.shape[0] != _at(height, row) or array.shape[1] != _at(width, row)):
            raise InvalidInputError(
                f"{what(row)} has shape {array.shape} but its image is {_at(height, row)} x "
                f"{_at(width, row)} (height x width); pass masks the size of their image."
            )
        arrays.append(array)
    return _encode_arrays(arrays)


def _at(values, row: int) -> int:
    values = np.asarray(values).reshape(-1)
    return int(values[row] if values.size > 1 else values[0])


def _rle_runs(rles: list, compressed: bool, height, width, what) -> MaskRuns:
    sizes = [r.get("size") for r in rles]
    try:
        array = np.array(sizes)
    except ValueError:
        array = np.zeros(0)
    if array.shape != (len(rles), 2) or array.dtype.kind not in "iu":
        row = next((i for i, v in enumerate(sizes) if not _is_size(v)), 0)
        raise InvalidInputError(
            f"{what(row)} has `size` {sizes[row]!r}; an RLE needs 'size': [height, width] "
            f"(two whole numbers)."
        )
    sizes = array.astype("int64")
    bad = np.flatnonzero(((sizes < 0) | (sizes > MAX_SIDE)).any(axis=1))
    if bad.size:
        raise InvalidInputError(
            f"{what(int(bad[0]))} has size {sizes[bad[0]].tolist()}; sides must be 0 to {MAX_SIDE}."
        )
    h, w = sizes[:, 0].copy(), sizes[:, 1].copy()
    if height is not None:
        mismatch = np.flatnonzero((h != height) | (w != width))
        if mismatch.size:
            row = int(mismatch[0])
            raise InvalidInputError(
                f"{what(row)} has size {sizes[row].tolist()} but its image is [{_at(height, row)}, "
                f"{_at(width, row)}] ([height, width]); pass the mask of that image (or fix its `size`)."
            )
    if compressed:
        strings = [r["counts"] for r in rles]
        last = _last_decoded[0]
        if last is not None and _same_batch(last, strings, h, w):
            return last[3]
        runs = _string_runs(strings, h, w, what)
        for array in (runs.height, runs.width, runs.offsets, runs.starts, runs.stops):
            array.flags.writeable = False
        _last_decoded[0] = (strings, h, w, runs)
        return runs
    else:
        lists = [r["counts"] for r in rles]
        lengths = np.fromiter(map(len, lists), dtype="int64", count=len(lists))
        offsets = _offsets(lengths)
        try:
            values = np.fromiter(chain.from_iterable(lists), dtype="float64", count=int(offsets[-1]))
        except (TypeError, ValueError):
            raise InvalidInputError(f"{what(0)}: uncompressed RLE counts must be whole numbers.") from None
        fraction = np.flatnonzero(~np.isfinite(values) | (values != np.trunc(values)))
        if fraction.size:
            raise InvalidInputError(
                f"{what(_row_of(offsets, int(fraction[0])))}: uncompressed RLE counts must be whole numbers "
                f"(got {values[fraction[0]]!r})."
            )
        return _runs_from_pairs(*_pair_columns(values.astype("int64"), offsets), h, w, what)


#: The compressed RLEs of the last call decoded: ``(counts strings, heights, widths, runs)``. Strings
#: are immutable, so the very same string objects with the same sizes decode to the same runs
#: (kept read-only): a result file read by :func:`pdmetrics.io.read_coco`, which parses every
#: mask for its box and area, is not parsed again when the detections are evaluated. One batch
#: is kept (its strings and runs stay in memory until the next batch is decoded).
_last_decoded: list = [None]


def _same_batch(last: tuple, strings: list, h: np.ndarray, w: np.ndarray) -> bool:
    """``strings`` are the very objects of the ``last`` batch, with the same sizes."""
    return (
        len(strings) == len(last[0])
        and all(map(is_, strings, last[0]))
        and np.array_equal(h, last[1])
        and np.array_equal(w, last[2])
    )


def _is_size(size) -> bool:
    return (
        isinstance(size, (list, tuple, np.ndarray))
        and len(size) == 2
        and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in size)
    )


def _kind(segmentation) -> int:
    """0 polygon, 1 compressed RLE, 2 uncompressed RLE, 3 array, -1 unknown."""
    if isinstance(segmentation, dict):
        counts = segmentation.get("counts")
        if isinstance(counts, (str, bytes)):
            return 1
        return 2 if isinstance(counts, (list, tuple, np.ndarray)) else -1
    if isinstance(segmentation, np.ndarray):
        # an object array is a list of polygons (as parquet/arrow hand lists back)
        if segmentation.dtype == object:
            return 0 if segmentation.ndim in (1, 2) else -1
        return 3
    return 0 if isinstance(segmentation, (list, tuple)) else -1


def _kinds(items: list) -> np.ndarray:
    """:func:`_kind` of every item; one check at C speed when all are polygons or all RLEs of one kind."""
    types = set(map(type, items))
    if types == {list}:
        return np.zeros(len(items), dtype="int64")
    if types == {dict}:
        counts = set(map(type, map(dict.get, items, repeat("counts"))))
        if counts <= {str, bytes}:
            return np.ones(len(items), dtype="int64")
        if counts == {list}:
            return np.full(len(items), 2, dtype="int64")
    return np.fromiter(map(_kind, items), dtype="int64", count=len(items))


def _size(value, argument: str):
    if value is None:
        return None
    array = np.asarray(value)
    if array.dtype.kind not in "iu" and not (array.dtype.kind == "f" and np.all(array == np.trunc(array))):
        raise InvalidInputError(f"`{argument}` must be a whole number of pixels; got {value!r}.")
    array = array.astype("int64")
    if array.ndim > 1 or np.any(array < 1) or np.any(array > MAX_SIDE):
        raise InvalidInputError(
            f"`{argument}` must be a number of pixels from 1 to {MAX_SIDE} (or one per mask); got {value!r}."
        )
    return array


def mask_runs(segmentations, height=None, width=None) -> MaskRuns:
    """Convert COCO segmentations (or boolean masks) to :class:`MaskRuns`.

    Parameters
    ----------
    segmentations : list or MaskRuns
        One entry per mask, each a COCO polygon (a list of flat coordinate lists
        ``[x1, y1, x2, y2, ...]``, several parts meaning their union), an RLE dict
        ``{"size": [h, w], "counts": ...}`` with ``counts`` a string/bytes (compressed) or a
        list of ints (uncompressed), or a 2-D boolean (or 0/1) numpy array. A
        :class:`MaskRuns` is returned unchanged.
    height, width : int or array-like of int, optional
        Image size: one number, or one per segmentation. Polygons need it; RLEs and arrays
        are checked against it when given.

    Returns
    -------
    MaskRuns

    Examples
    --------
    >>> from pdmetrics.detection.masks import mask_runs
    >>> runs = mask_runs([[[0, 0, 2, 0, 2, 2, 0, 2]], {"size": [3, 3], "counts": [4, 1, 4]}],
    ...                  height=3, width=3)
    >>> runs.area().tolist(), runs.starts.tolist(), runs.stops.tolist()
    ([4, 1], [0, 3, 4], [2, 5, 5])
    """
    return _build_runs(segmentations, height, width, shared=False)


def shared_mask_runs(segmentations, height=None, width=None) -> MaskRuns:
    """:func:`mask_runs` for the library's own use: a batch of compressed RLEs decoded before
    is given as is (its arrays read-only, its bounds kept), not copied.

    :func:`pdmetrics.io.read_coco` decodes a result file's masks for their boxes and areas;
    evaluating them then uses the very same runs.
    """
    return _build_runs(segmentations, height, width, shared=True)


def _build_runs(segmentations, height, width, shared: bool) -> MaskRuns:
    if isinstance(segmentations, MaskRuns):
        return segmentations
    if isinstance(segmentations, (dict, str, bytes)) or (
        isinstance(segmentations, np.ndarray) and segmentations.ndim == 2
    ):
        raise InvalidInputError(
            "`segmentations` must be a list with one segmentation per mask; wrap a single one in a list."
        )
    items = list(segmentations)
    n = len(items)
    h, w = _size(height, "height"), _size(width, "width")
    if (h is None) != (w is None):
        raise InvalidInputError("Pass both `height` and `width` (the image size), or neither.")
    for value, name in ((h, "height"), (w, "width")):
        if value is not None and value.ndim and value.size != n:
            raise InvalidInputError(
                f"`{name}` has {value.size} values for {n} segmentations; pass one per mask."
            )
    kinds = _kinds(items)
    unknown = np.flatnonzero(kinds < 0)
    if unknown.size:
        row = int(unknown[0])
        raise InvalidInputError(
            f"segmentation {row} is a {type(items[row]).__name__}; a segmentation is a polygon list "
            f"[[x1, y1, ...], ...], an RLE dict {{'size': [h, w], 'counts': ...}} or a 2-D boolean array."
        )
    pieces, order = [], []
    for kind in (0, 1, 2, 3):
        rows = np.flatnonzero(kinds == kind)
        if not rows.size:
            continue
        chosen = [items[i] for i in rows.tolist()]
        hh = None if h is None else np.broadcast_to(h if not h.ndim else h[rows], rows.shape)
        ww = None if w is None else np.broadcast_to(w if not w.ndim else w[rows], rows.shape)

        def what(i, rows=rows):
            return f"segmentation {int(rows[i])}"

        if kind == 0:
            if hh is None:
                raise InvalidInputError(
                    f"segmentation {int(rows[0])} is a polygon: pass `height=` and `width=` (the image "
                    f"size) to rasterize it."
                )
            pieces.append(_polygon_runs(chosen, hh, ww, what))
        elif kind == 3:
            pieces.append(_array_runs(chosen, hh, ww, what))
        else:
            pieces.append(_rle_runs(chosen, kind == 1, hh, ww, what))
        order.append(rows)
    runs = pieces[0] if shared and len(pieces) == 1 else _concat(pieces)
    order = np.concatenate(order) if order else np.zeros(0, dtype="int64")
    if np.array_equal(order, np.arange(n)):
        return runs
    return runs.take(np.argsort(order, kind="stable"))


# ----------------------------------------------------------------------------------------------
# public single-mask functions


def rle_encode(mask) -> dict:
    """Compressed COCO RLE of a boolean mask (``pycocotools.mask.encode``).

    Parameters
    ----------
    mask : array-like of shape (h, w)
        Boolean (or 0/1) mask.

    Returns
    -------
    dict
        ``{"size": [h, w], "counts": str}``; the string is byte-identical to
        ``pycocotools.mask.encode(np.asfortranarray(mask))["counts"].decode()``.

    Examples
    --------
    >>> import numpy as np
    >>> from pdmetrics.detection.masks import rle_encode
    >>> rle_encode(np.array([[0, 1, 1], [0, 1, 0]], dtype=bool))
    {'size': [2, 3], 'counts': '231'}
    """
    return _array_runs([mask], None, None, lambda i: "`mask`").to_rle()[0]


def rle_decode(rle) -> np.ndarray:
    """Boolean mask of a COCO RLE (``pycocotools.mask.decode``).

    Parameters
    ----------
    rle : dict
        ``{"size": [h, w], "counts": ...}`` with ``counts`` a compressed string (str or bytes)
        or a list of run lengths (uncompressed RLE).

    Returns
    -------
    numpy.ndarray of bool, shape (h, w)

    Examples
    --------
    >>> from pdmetrics.detection.masks import rle_decode
    >>> rle_decode({"size": [2, 3], "counts": [2, 2, 1, 1]}).astype(int)
    array([[0, 1, 0],
           [0, 1, 1]])
    """
    if not isinstance(rle, dict) or _kind(rle) not in (1, 2):
        raise InvalidInputError(
            "`rle` must be a dict {'size': [height, width], 'counts': ...} with counts a string or a "
            f"list of integers; got {type(rle).__name__}. Use `polygon_to_mask` for polygons."
        )
    return _dense(_rle_runs([rle], _kind(rle) == 1, None, None, lambda i: "`rle`"), 0)


def _single_polygon(polygons, height, width) -> MaskRuns:
    if not isinstance(polygons, (list, tuple, np.ndarray)) or len(polygons) == 0:
        raise InvalidInputError(
            "`polygons` must be a list of flat coordinate lists [[x1, y1, x2, y2, ...], ...]."
        )
    if np.ndim(polygons[0]) == 0:
        polygons = [polygons]
    h, w = _size(height, "height"), _size(width, "width")
    if h is None or w is None or h.ndim or w.ndim:
        raise InvalidInputError("`height` and `width` must be single whole numbers (the image size).")
    return _polygon_runs([polygons], h.reshape(1), w.reshape(1), lambda i: "`polygons`")


def polygon_to_rle(polygons, height: int, width: int) -> dict:
    """Rasterize a COCO polygon segmentation as pycocotools does (``frPyObjects`` + ``merge``).

    Parameters
    ----------
    polygons : list of list of float
        One or more flat coordinate lists ``[x1, y1, x2, y2, ...]`` (at least 3 points each);
        several parts are united. A single flat list is one part.
    height, width : int
        Image size in pixels.

    Returns
    -------
    dict
        Compressed RLE ``{"size": [height, width], "counts": str}``, equal to pycocotools'.

    Examples
    --------
    >>> from pdmetrics.detection.masks import polygon_to_rle, rle_decode
    >>> rle = polygon_to_rle([[1, 1, 4, 1, 4, 3, 1, 3]], height=4, width=5)
    >>> rle_decode(rle).astype(int)
    array([[0, 0, 0, 0, 0],
           [0, 1, 1, 1, 0],
           [0, 1, 1, 1, 0],
           [0, 0, 0, 0, 0]])
    """
    return _single_polygon(polygons, height, width).to_rle()[0]


def polygon_to_mask(polygons, height: int, width: int) -> np.ndarray:
    """Boolean ``(height, width)`` mask of a COCO polygon segmentation (see :func:`polygon_to_rle`).

    Parameters
    ----------
    polygons : list of list of float
        One or more flat coordinate lists ``[x1, y1, x2, y2, ...]``.
    height, width : int
        Image size in pixels.

    Returns
    -------
    numpy.ndarray of bool, shape (height, width)

    Examples
    --------
    >>> from pdmetrics.detection.masks import polygon_to_mask
    >>> polygon_to_mask([[0, 0, 3, 0, 0, 3]], height=3, width=3).astype(int)
    array([[1, 1, 0],
           [1, 0, 0],
           [0, 0, 0]])
    """
    return _dense(_single_polygon(polygons, height, width), 0)


def mask_area(segmentations, height=None, width=None) -> np.ndarray:
    """Number of pixels in each mask (``pycocotools.mask.area``).

    Parameters
    ----------
    segmentations : list or MaskRuns
        Segmentations as :func:`mask_runs` takes them (polygons need ``height``/``width``).
    height, width : int or array-like of int, optional
        Image size (one, or one per segmentation).

    Returns
    -------
    numpy.ndarray of int64

    Examples
    --------
    >>> from pdmetrics.detection.masks import mask_area
    >>> mask_area([{"size": [2, 3], "counts": "231"}, [[0, 0, 2, 0, 2, 2, 0, 2]]],
    ...           height=2, width=3).tolist()
    [3, 4]
    """
    return mask_runs(segmentations, height, width).area()


def mask_bbox(segmentations, height=None, width=None) -> np.ndarray:
    """Tight bounding box ``(x, y, width, height)`` of each mask (``pycocotools.mask.toBbox``).

    Parameters
    ----------
    segmentations : list or MaskRuns
        Segmentations as :func:`mask_runs` takes them.
    height, width : int or array-like of int, optional
        Image size, needed for polygons.

    Returns
    -------
    numpy.ndarray of shape (n, 4)
        Pixel-aligned boxes (float64); ``(0, 0, 0, 0)`` for an empty mask.

    Examples
    --------
    >>> from pdmetrics.detection.masks import mask_bbox
    >>> mask_bbox([{"size": [2, 3], "counts": "231"}]).tolist()
    [[1.0, 0.0, 2.0, 2.0]]
    """
    x0, y0, x1, y1 = _bounds(mask_runs(segmentations, height, width))
    box = np.stack([x0, y0, x1 - x0 + 1, y1 - y0 + 1], axis=1).astype("float64")
    box[x1 < x0] = 0.0
    return box


def box_to_rle(boxes, height, width, box_format: str = "xywh") -> list[dict]:
    """Rasterize boxes as COCO does (``pycocotools.mask.frPyObjects`` of an ``(n, 4)`` array).

    COCO draws a box as the polygon of its four corners, so a pixel is in the mask when its
    centre is inside the box (with the polygon rounding of :func:`polygon_to_rle`). This is
    the conversion to compare boxes with masks (e.g. a box detection against a raster ground
    truth).

    Parameters
    ----------
    boxes : array-like of shape (n, 4)
        Boxes in ``box_format``.
    height, width : int or array-like of int
        Image size (one, or one per box).
    box_format : {"xywh", "xyxy"}
        ``(x, y, width, height)`` (COCO) or ``(x_min, y_min, x_max, y_max)`` (valor).

    Returns
    -------
    list of dict
        One compressed RLE per box.

    Examples
    --------
    >>> from pdmetrics.detection.masks import box_to_rle, rle_decode
    >>> rle = box_to_rle([[1, 0, 2, 2]], height=3, width=4)[0]
    >>> rle_decode(rle).astype(int)
    array([[0, 1, 1, 0],
           [0, 1, 1, 0],
           [0, 0, 0, 0]])
    """
    check_format(box_format)
    try:
        array = np.asarray(boxes, dtype="float64")
    except (TypeError, ValueError):
        raise InvalidInputError("`boxes` must hold numbers (4 box coordinates per row).") from None
    array = array.reshape(-1, 4) if array.size % 4 == 0 and array.ndim <= 2 else array
    if array.ndim != 2 or array.shape[1] != 4:
        raise InvalidInputError(f"`boxes` must have shape (n, 4); got shape {np.shape(boxes)}.")
    check_box_values(array, box_format, "`boxes`")
    x0, y0 = array[:, 0], array[:, 1]
    x1, y1 = (x0 + array[:, 2], y0 + array[:, 3]) if box_format == "xywh" else (array[:, 2], array[:, 3])
    corners = np.stack([x0, y0, x0, y1, x1, y1, x1, y0], axis=1)
    too_far = np.flatnonzero((np.abs(corners) > MAX_COORDINATE).any(axis=1))
    if too_far.size:
        raise InvalidInputError(
            f"`boxes` row {int(too_far[0])} ({array[too_far[0]].tolist()!r}) reaches beyond {MAX_COORDINATE} "
            f"pixels; clip boxes to (near) their image first."
        )
    h, w = _size(height, "height"), _size(width, "width")
    if h is None or w is None:
        raise InvalidInputError("Pass `height=` and `width=` (the image size) to rasterize boxes.")
    n = array.shape[0]
    for value, name in ((h, "height"), (w, "width")):
        if value.ndim and value.size != n:
            raise InvalidInputError(f"`{name}` has {value.size} values for {n} boxes; pass one per box.")
    h, w = np.broadcast_to(h, (n,)).copy(), np.broadcast_to(w, (n,)).copy()
    part, index = _polygon_toggles(corners.reshape(-1), np.arange(0, 4 * n + 1, 4), h, w)
    return _runs_from_toggles(part, index, h, w).to_rle()


def _bounds(runs: MaskRuns):
    """Inclusive pixel bounds (x0, y0, x1, y1) of each mask; x1 < x0 for an empty mask.

    Computed once per :class:`MaskRuns` (kept with it, read-only): the masks of a result file
    get their boxes when read and their bounds are reused when they are evaluated
    (:func:`shared_mask_runs`).
    """
    cached = runs.__dict__.get("_bounds")
    if cached is None:
        cached = _compute_bounds(runs)
        for array in cached:
            array.flags.writeable = False
        object.__setattr__(runs, "_bounds", cached)  # a cache, not a field: equality ignores it
    return cached


def _compute_bounds(runs: MaskRuns):
    parts = [
        _batch_bounds(runs.height[a:b], runs.offsets[a : b + 1], runs.starts, runs.stops)
        for a, b in _batches(runs.offsets)
    ]
    if not parts:
        return tuple(np.zeros(0, dtype="int64") for _ in range(4))
    return tuple(np.concatenate(column) for column in zip(*parts))


def _batch_bounds(height: np.ndarray, offsets: np.ndarray, all_starts: np.ndarray, all_stops: np.ndarray):
    """:func:`_compute_bounds` of the masks whose runs are ``all_starts[offsets[0]:offsets[-1]]``."""
    n = height.size
    n_runs = np.diff(offsets)
    has = n_runs > 0
    x0, y0 = np.zeros(n, dtype="int64"), np.zeros(n, dtype="int64")
    x1, y1 = np.full(n, -1, dtype="int64"), np.full(n, -1, dtype="int64")
    if not has.any():
        return x0, y0, x1, y1
    starts, stops = all_starts[offsets[0] : offsets[-1]], all_stops[offsets[0] : offsets[-1]]
    lo, hi = offsets[:-1][has] - offsets[0], offsets[1:][has] - offsets[0]
    x0[has], x1[has] = starts[lo] // height[has], (stops[hi - 1] - 1) // height[has]
    # per run, the index of its first column's top (float division is exact here, indices
    # < 2**31, and much faster than integer division); in place, one temporary a step
    h = np.repeat(height.astype("float64"), n_runs)
    base = starts / h
    np.floor(base, out=base)
    base *= h
    top = starts - base
    bottom = stops - base  # the run's end, rows from its first column's top (exclusive)
    top[bottom > h] = 0  # a run over several columns covers every row
    np.minimum(bottom, h, out=bottom)
    y0[has] = np.minimum.reduceat(top, lo)
    y1[has] = np.maximum.reduceat(bottom, lo) - 1
    return x0, y0, x1, y1


# ----------------------------------------------------------------------------------------------
# IoU


def _pair_intersection(pieces: list[MaskRuns], first: np.ndarray, second: np.ndarray, columns) -> np.ndarray:
    """Pixels shared by masks ``first[p]`` and ``second[p]`` of the masks of ``pieces`` one after
    the other (same size), whose bounding boxes share the columns ``columns[0][p]`` to
    ``columns[1][p]``."""
    n_runs = np.concatenate([np.diff(p.offsets) for p in pieces])
    height = np.concatenate([p.height for p in pieces])
    # walk the runs of the mask with fewer runs; look the other one up. Pairs are visited by
    # looked-up mask, so that consecutive searches land close together
    swap = n_runs[first] > n_runs[second]
    walk = np.where(swap, second, first)
    look = np.where(swap, first, second)
    order = np.argsort(look, kind="stable")
    walk, look = walk[order], look[order]
    low, high = columns[0][order], columns[1][order]
    stride = int(max((p.height * p.width).max(initial=0) for p in pieces)) + 1
    inter = np.empty(first.size, dtype="int64")
    # a batch of pairs at a time, with the runs of their masks only
    for a, b in _batches(_offsets(n_runs[walk] + n_runs[look])):
        masks, local = np.unique(np.concatenate((walk[a:b], look[a:b])), return_inverse=True)
        inter[order[a:b]] = _batch_intersection(
            _take_sorted(pieces, masks),
            local[: b - a],
            local[b - a :],
            height[walk[a:b]],
            low[a:b],
            high[a:b],
            stride,
        )
    return inter


def _take_sorted(pieces: list[MaskRuns], masks: np.ndarray) -> MaskRuns:
    """The masks ``masks`` (sorted positions in the masks of ``pieces`` one after the other)."""
    parts, at = [], 0
    for piece in pieces:
        lo, hi = np.searchsorted(masks, [at, at + len(piece)])
        parts.append(piece.take(masks[lo:hi] - at))
        at += len(piece)
    return _concat(parts)


def _batch_intersection(runs: MaskRuns, walk, look, height, low, high, stride: int) -> np.ndarray:
    """:func:`_pair_intersection` of masks ``walk[p]`` and ``look[p]`` of ``runs`` (``walk[p]``
    the one with fewer runs, ``height`` its height, ``low``/``high`` the shared columns)."""
    n_runs = np.diff(runs.offsets)
    # every run as global positions (mask * stride + position), with one more start past the
    # end, and the masks' cumulative areas
    global_stops = np.repeat(np.arange(n_runs.size, dtype="int64") * stride, n_runs)
    global_starts = np.empty(global_stops.size + 1, dtype="int64")
    global_starts[-1] = np.iinfo("int64").max
    np.add(runs.starts, global_stops, out=global_starts[:-1])
    global_stops += runs.stops
    cumulative = np.empty(global_stops.size + 1, dtype="int64")
    cumulative[0] = 0
    np.subtract(runs.stops, runs.starts, out=cumulative[1:])
    np.cumsum(cumulative[1:], out=cumulative[1:])
    # only the walked runs that reach into the shared columns
    begin = np.searchsorted(global_stops, walk * stride + low * height, side="right")
    end = np.searchsorted(global_starts[:-1], walk * stride + (high + 1) * height, side="left")
    counts = np.maximum(end - begin, 0)
    source = np.repeat(begin, counts) + _segment_arange(counts)
    # each walked run's start and stop, moved into the looked-up mask: the pixels of that mask
    # before a position are its runs' total before it plus the part of the run it falls in
    ends = np.repeat((look - walk) * stride, 2 * counts)
    ends[0::2] += global_starts[source]
    ends[1::2] += global_stops[source]
    i = np.searchsorted(global_stops, ends, side="right")
    covered = global_starts[i]
    np.subtract(ends, covered, out=covered)
    np.maximum(covered, 0, out=covered)
    covered += cumulative[i]
    per_run = covered[1::2] - covered[0::2]
    pair = np.repeat(np.arange(walk.size), counts)
    return np.bincount(pair, weights=per_run, minlength=walk.size).astype("int64")


def _iou_of_pairs(
    dt: MaskRuns, gt: MaskRuns, first: np.ndarray, second: np.ndarray, crowd: np.ndarray
) -> np.ndarray:
    """IoU of masks ``(dt[first[p]], gt[second[p]])`` (COCO's rule), bbox-prefiltered."""
    same = (dt.height[first] == gt.height[second]) & (dt.width[first] == gt.width[second])
    if not same.all():
        p = int(np.flatnonzero(~same)[0])
        raise InvalidInputError(
            f"pair {p}: the detection mask is {int(dt.height[first[p]])} x {int(dt.width[first[p]])} but "
            f"the ground-truth mask is {int(gt.height[second[p]])} x {int(gt.width[second[p]])} "
            f"(height x width); masks compared must come from the same image."
        )
    (dx0, dy0, dx1, dy1), (gx0, gy0, gx1, gy1) = _bounds(dt), _bounds(gt)
    left, right = np.maximum(dx0[first], gx0[second]), np.minimum(dx1[first], gx1[second])
    overlap = (left <= right) & (np.maximum(dy0[first], gy0[second]) <= np.minimum(dy1[first], gy1[second]))
    iou = np.zeros(first.size, dtype="float64")
    candidates = np.flatnonzero(overlap)
    if candidates.size:
        f, s = first[candidates], second[candidates]
        inter = _pair_intersection([dt, gt], f, s + len(dt), (left[candidates], right[candidates]))
        dt_area = dt.area()[f]
        union = np.where(crowd[candidates], dt_area, dt_area + gt.area()[s] - inter)
        iou[candidates] = inter / np.where(inter > 0, union, 1)
    return iou


def _crowd_flags(iscrowd, n: int, per: str = "ground truth") -> np.ndarray:
    if iscrowd is None:
        return np.zeros(n, dtype=bool)
    crowd = np.asarray(iscrowd)
    if crowd.ndim != 1 or crowd.size != n:
        raise InvalidInputError(f"`iscrowd` has {crowd.size} flags for {n} {per}s; pass one per {per}.")
    if crowd.dtype != bool and not np.isin(crowd, (0, 1)).all():
        raise InvalidInputError("`iscrowd` must hold booleans or 0/1 flags.")
    return crowd.astype(bool)


def mask_iou(detections, ground_truths, iscrowd=None, height=None, width=None) -> np.ndarray:
    """IoU matrix of every detection mask against every ground-truth mask (``pycocotools.mask.iou``).

    Parameters
    ----------
    detections, ground_truths : list or MaskRuns
        Segmentations as :func:`mask_runs` takes them (RLE dicts, polygons, boolean arrays),
        all of one image size.
    iscrowd : array-like of bool of length n_gt, optional
        Crowd flag of each ground truth: its IoU is ``intersection / area(detection)``.
    height, width : int, optional
        Image size, needed for polygons.

    Returns
    -------
    numpy.ndarray of shape (n_dt, n_gt)
        0 where the masks do not intersect (empty masks included).

    Examples
    --------
    >>> import numpy as np
    >>> from pdmetrics.detection.masks import mask_iou
    >>> a = np.zeros((4, 4), bool); a[:2] = True
    >>> b = np.zeros((4, 4), bool); b[:, :2] = True
    >>> mask_iou([a], [b, a, b], iscrowd=[False, False, True]).round(4)
    array([[0.3333, 1.    , 0.5   ]])
    """
    dt = mask_runs(detections, height, width)
    gt = mask_runs(ground_truths, height, width)
    crowd = _crowd_flags(iscrowd, len(gt))
    n_dt, n_gt = len(dt), len(gt)
    if not n_dt or not n_gt:
        return np.zeros((n_dt, n_gt))
    first = np.repeat(np.arange(n_dt), n_gt)
    second = np.tile(np.arange(n_gt), n_dt)
    iou = _iou_of_pairs(dt, gt, first, second, np.tile(crowd, n_dt))
    return iou.reshape(n_dt, n_gt)


def paired_mask_iou(
    detections,
    ground_truths,
    iscrowd=None,
    height=None,
    width=None,
    *,
    detection_index=None,
    ground_truth_index=None,
) -> np.ndarray:
    """IoU of paired masks: ``detections[i]`` against ``ground_truths[i]``.

    With ``detection_index`` and ``ground_truth_index`` the pairs are
    ``(detections[detection_index[p]], ground_truths[ground_truth_index[p]])``: the kernel for
    many images at once (parse each side's segmentations once with :func:`mask_runs`, pass the
    candidate pairs as indices; no mask is copied).

    Parameters
    ----------
    detections, ground_truths : list or MaskRuns
        Segmentations as :func:`mask_runs` takes them.
    iscrowd : array-like of bool, optional
        Per pair, whether the ground truth is a crowd region (its IoU is then
        ``intersection / area(detection)``).
    height, width : int or array-like, optional
        Image sizes (one, or one per segmentation), needed for polygons.
    detection_index, ground_truth_index : array-like of int, optional
        The pairs, as positions in ``detections`` and ``ground_truths`` (both or neither).

    Returns
    -------
    numpy.ndarray
        One IoU in ``[0, 1]`` per pair, equal to ``pycocotools.mask.iou`` of that pair.

    Examples
    --------
    >>> from pdmetrics.detection.masks import paired_mask_iou
    >>> half = {"size": [2, 2], "counts": [0, 2, 2]}
    >>> full = {"size": [2, 2], "counts": [0, 4]}
    >>> paired_mask_iou([half, half], [full, full], iscrowd=[False, True]).tolist()
    [0.5, 1.0]
    >>> paired_mask_iou([half, full], [full], detection_index=[0, 1, 1],
    ...                 ground_truth_index=[0, 0, 0]).tolist()
    [0.5, 1.0, 1.0]
    """
    dt = mask_runs(detections, height, width)
    gt = mask_runs(ground_truths, height, width)
    if (detection_index is None) != (ground_truth_index is None):
        raise InvalidInputError(
            "Pass both `detection_index` and `ground_truth_index` (the pairs), or neither."
        )
    if detection_index is None:
        if len(dt) != len(gt):
            raise InvalidInputError(
                f"`detections` has {len(dt)} masks but `ground_truths` has {len(gt)}; pass row-aligned "
                f"pairs, or the pairs as `detection_index=` and `ground_truth_index=` (or use `mask_iou` "
                f"for all pairs)."
            )
        first = second = np.arange(len(dt))
    else:
        first = _pair_index(detection_index, len(dt), "detection_index")
        second = _pair_index(ground_truth_index, len(gt), "ground_truth_index")
        if first.size != second.size:
            raise InvalidInputError(
                f"`detection_index` has {first.size} pairs but `ground_truth_index` has {second.size}; "
                f"pass one entry per pair in each."
            )
    crowd = _crowd_flags(iscrowd, first.size, "pair")
    if not first.size:
        return np.zeros(0)
    return _iou_of_pairs(dt, gt, first, second, crowd)


def _pair_index(index, n: int, argument: str) -> np.ndarray:
    array = np.asarray(index)
    if array.ndim != 1 or (array.size and array.dtype.kind not in "iu"):
        raise InvalidInputError(f"`{argument}` must be a 1-D array of integer positions.")
    bad = np.flatnonzero((array < 0) | (array >= n))
    if bad.size:
        raise InvalidInputError(
            f"`{argument}` holds {int(array[bad[0]])} (pair {int(bad[0])}), but there are only {n} masks; "
            f"pass positions from 0 to {n - 1}."
        )
    return array.astype("int64")
