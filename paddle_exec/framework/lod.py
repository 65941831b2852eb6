"""LoD (level of detail): how variable-length sequences ride along a dense tensor, as Paddle 1.8 keeps them.

A LoD is a list of levels, each an ascending list of offsets starting at 0. The last level indexes the tensor's
rows; every higher level indexes the entries of the level below it (its offsets end at that level's number of
sequences). Two sentences of 2 and 3 words over a [5, D] tensor: `[[0, 2, 5]]`; a paragraph of those two
sentences and one of a 1-word sentence over [6, D]: `[[0, 2, 3], [0, 2, 5, 6]]`. The same LoD written as
*recursive sequence lengths* is `[[2, 1], [2, 3, 1]]`.

At run time a LoD is a `Lod`: a tuple of int64 offset arrays, one per level, which nobody changes after it is made
(arrays are marked read-only). An empty tuple means "no LoD". The executor keeps it in a slot of its own next to the
variable's value (executor/passes/lod.py); numba kernels get the offset arrays, never a LoD object.

    lod = lod_from_lengths([[2, 3]])       # (array([0, 2, 5]),)
    lengths_of(lod)                        # [[2, 3]]
    check_lod(lod, rows=5, name='words')   # raises EnforceNotMet naming 'words' when it does not fit
"""
from __future__ import annotations

import numpy as np

from .errors import EnforceNotMet

__all__ = ['Lod', 'NO_LOD', 'LOD_SUFFIX', 'companion', 'as_lod', 'lod_from_lengths', 'lod_to_list', 'lengths_of',
           'lod_is_valid', 'check_lod', 'check_lengths', 'top_level_sequences', 'slice_lod', 'merge_lods',
           'flatten_nested', 'rows_array']

Lod = tuple          # of read-only int64 offset arrays, one per level
NO_LOD: Lod = ()
LOD_SUFFIX = '@LOD'  # an execution plan keeps a value's LoD under the value's name + LOD_SUFFIX (its companion)


def companion(name: str) -> str:
    """The name of the plan slot holding `name`'s LoD (executor/passes/lod.py)."""
    return name + LOD_SUFFIX


def _offsets(level) -> np.ndarray:
    arr = np.array(level, dtype=np.int64).reshape(-1)
    arr.flags.writeable = False
    return arr


def as_lod(levels) -> Lod:
    """A LoD from offsets: a Lod, or lists (or arrays) of offsets per level. Not checked (see check_lod)."""
    if type(levels) is tuple and all(type(a) is np.ndarray and not a.flags.writeable for a in levels):
        return levels
    return tuple(_offsets(level) for level in levels)


def lod_from_lengths(lengths) -> Lod:
    """A LoD from recursive sequence lengths (a list of length lists, one per level)."""
    out = []
    for level in lengths:
        n = np.asarray(level, dtype=np.int64).reshape(-1)
        offsets = np.zeros(n.shape[0] + 1, np.int64)
        np.cumsum(n, out=offsets[1:])
        offsets.flags.writeable = False
        out.append(offsets)
    return tuple(out)


def lod_to_list(lod: Lod) -> list:
    """Offsets as Python lists, as Paddle's `LoDTensor.lod()` returns them."""
    return [level.tolist() for level in lod]


def lengths_of(lod: Lod) -> list:
    """Recursive sequence lengths as Python lists."""
    return [np.diff(level).tolist() for level in lod]


def lod_is_valid(lod: Lod, rows: int | None) -> bool:
    """Paddle's CheckLoD: every level starts at 0 and never decreases, has at least one sequence, ends at the size
    of the level below (the last at `rows`, when `rows` is known)."""
    for k, level in enumerate(lod):
        if level.shape[0] < 2 or level[0] != 0 or np.any(level[1:] < level[:-1]):
            return False
        if k + 1 < len(lod) and level[-1] != lod[k + 1].shape[0] - 1:
            return False
    if lod and rows is not None and lod[-1][-1] != rows:
        return False
    return True


def check_lod(lod: Lod, rows: int | None, name: str, what: str = 'lod') -> None:
    """Raises EnforceNotMet (Paddle's "the provided lod info is invalid") naming `name` and saying what is wrong
    when `lod` does not fit a tensor of `rows` rows."""
    if lod_is_valid(lod, rows):
        return
    raise EnforceNotMet('the provided %s info is invalid: %s' % (what, _why_invalid(lod, rows, name)))


def check_lengths(lod: Lod, rows: int | None, name: str) -> None:
    """check_lod for LoDs given as recursive sequence lengths (the error says so)."""
    check_lod(lod, rows, name, 'recursive_sequence_lengths')


def _why_invalid(lod: Lod, rows: int | None, name: str) -> str:
    where = "the LoD %s of '%s'" % (lod_to_list(lod), name)
    for k, level in enumerate(lod):
        if level.shape[0] < 2:
            return '%s: level %d holds no sequence' % (where, k)
        if level[0] != 0:
            return '%s: level %d does not start at 0' % (where, k)
        if np.any(level[1:] < level[:-1]):
            return '%s: the offsets of level %d decrease' % (where, k)
        if k + 1 < len(lod) and level[-1] != lod[k + 1].shape[0] - 1:
            return ('%s: level %d ends at %d but level %d holds %d sequences'
                    % (where, k, level[-1], k + 1, lod[k + 1].shape[0] - 1))
    return ('%s does not cover the rows: its last level ends at %d (the lengths sum to %d) but the tensor has %d '
            'rows' % (where, lod[-1][-1], lod[-1][-1], rows))


def top_level_sequences(lod: Lod, rows: int) -> int:
    """How many sequences the top level holds (rows when there is no LoD): what the feed split counts."""
    return lod[0].shape[0] - 1 if lod else rows


def slice_lod(lod: Lod, begin: int, end: int) -> tuple[Lod, int, int]:
    """Paddle's GetSubLoDAndAbsoluteOffset: the LoD of top-level sequences [begin, end), rebased to start at 0,
    and the rows [row_begin, row_end) they cover."""
    out = []
    for level in lod:
        part = level[begin:end + 1]
        begin, end = int(part[0]), int(part[-1])
        rebased = part - part[0]
        rebased.flags.writeable = False
        out.append(rebased)
    return tuple(out), begin, end


def merge_lods(lods: list, name: str = '?') -> Lod:
    """Paddle's MergeLoDTensor: the LoDs of consecutive pieces of one tensor joined into one (each piece's offsets
    shifted by where the previous pieces end). All pieces must have as many levels."""
    first = lods[0]
    for k, lod in enumerate(lods):
        if len(lod) != len(first):
            raise EnforceNotMet("MergeLoDTensor of '%s': piece %d has %d LoD levels, piece 0 has %d"
                                % (name, k, len(lod), len(first)))
    merged = []
    for j in range(len(first)):
        parts, shift = [first[j]], int(first[j][-1])
        for lod in lods[1:]:
            parts.append(lod[j][1:] + shift)
            shift += int(lod[j][-1])
        level = np.concatenate(parts)
        level.flags.writeable = False
        merged.append(level)
    return tuple(merged)


def flatten_nested(batch, lod_level: int, name: str) -> tuple[list, list]:
    """(rows, recursive sequence lengths) of a batch given as nested lists: a list of top-level sequences, each a
    list of sequences of the level below, `lod_level` levels deep; what lies below the last level are the rows.
    A list that is not nested deep enough raises TypeError naming `name` and where the nesting stops."""
    lengths: list[list[int]] = [[] for _ in range(lod_level)]
    rows: list = []

    def walk(seq, depth: int, path: tuple) -> None:
        if not isinstance(seq, (list, tuple, np.ndarray)):
            raise TypeError("the data of '%s' (lod_level=%d) should be nested %d deep, but item %s is %r, not a "
                            "list of sequences: nested lists of the wrong depth"
                            % (name, lod_level, lod_level + 1, list(path), seq))
        lengths[depth].append(len(seq))
        if depth + 1 == lod_level:
            rows.extend(seq)
            return
        for k, sub in enumerate(seq):
            walk(sub, depth + 1, path + (k,))

    if not isinstance(batch, (list, tuple, np.ndarray)):
        raise TypeError("the data of '%s' (lod_level=%d) should be a list of sequences, got %s"
                        % (name, lod_level, type(batch).__name__))
    for k, seq in enumerate(batch):
        walk(seq, 0, (k,))
    return rows, lengths


def rows_array(rows: list, dtype, row_shape, name: str, lod_level: int) -> np.ndarray:
    """The rows of a nested batch as one array of `dtype` shaped [len(rows)] + row_shape (a row may be given flat or
    as a scalar when that fits). Rows that do not fit raise ValueError naming `name`."""
    row_shape = tuple(int(d) for d in row_shape)
    try:
        arr = np.array(rows, dtype=dtype)
        if arr.shape[:1] != (len(rows),):
            raise ValueError
        return arr.reshape((len(rows),) + row_shape) if arr.shape[1:] != row_shape else arr
    except (ValueError, TypeError):
        pass
    raise ValueError("the rows of '%s' (lod_level=%d) should each have shape %s, but they are %s: nested lists of "
                     "the wrong depth, or rows of different sizes"
                     % (name, lod_level, list(row_shape), _describe_rows(rows)))


def _describe_rows(rows: list) -> str:
    shapes = []
    for row in rows[:3]:
        try:
            shapes.append(list(np.shape(row)))
        except ValueError:
            shapes.append('ragged')
    return 'of shapes %s%s' % (shapes, '...' if len(rows) > 3 else '')
