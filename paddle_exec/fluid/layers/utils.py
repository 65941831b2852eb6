"""fluid.layers.utils (Paddle 1.8's module path). It exports nothing in 1.8 either; scripts reach for its nested
structure helpers, which are here: flatten, pack_sequence_as, map_structure, convert_to_list, is_sequence."""
from __future__ import annotations

from collections.abc import Sequence

__all__ = []


def is_sequence(seq) -> bool:
    """A list, tuple or dict (not a string), as 1.8's nest utilities count them."""
    if isinstance(seq, dict):
        return True
    return isinstance(seq, Sequence) and not isinstance(seq, str)


def _sorted(d: dict) -> list:
    return sorted(d)


def _yield_flat(nest):
    for item in ([nest[k] for k in _sorted(nest)] if isinstance(nest, dict) else nest):
        if is_sequence(item):
            yield from _yield_flat(item)
        else:
            yield item


def flatten(nest) -> list:
    """The leaves of a nested structure, dict values in key order."""
    return list(_yield_flat(nest)) if is_sequence(nest) else [nest]


def _pack(structure, flat, index):
    packed = []
    for s in ([structure[k] for k in _sorted(structure)] if isinstance(structure, dict) else structure):
        if is_sequence(s):
            index, child = _pack(s, flat, index)
            packed.append(_rebuild(s, child))
        else:
            packed.append(flat[index])
            index += 1
    return index, packed


def _rebuild(instance, args):
    if isinstance(instance, dict):
        return type(instance)(zip(_sorted(instance), args))
    if isinstance(instance, tuple) and hasattr(instance, '_fields'):
        return type(instance)(*args)
    return type(instance)(args)


def pack_sequence_as(structure, flat_sequence):
    """flat_sequence laid out as `structure`."""
    if not is_sequence(flat_sequence):
        raise TypeError('flat_sequence must be a sequence')
    if not is_sequence(structure):
        if len(flat_sequence) != 1:
            raise ValueError('Structure is a scalar but len(flat_sequence) == %d > 1' % len(flat_sequence))
        return flat_sequence[0]
    n = len(flatten(structure))
    if n != len(flat_sequence):
        raise ValueError('Could not pack sequence. Structure had %d elements, but flat_sequence had %d elements.'
                         % (n, len(flat_sequence)))
    return _rebuild(structure, _pack(structure, list(flat_sequence), 0)[1])


def map_structure(func, *structure):
    """func applied leaf by leaf to structures of the same layout."""
    flat = [flatten(s) for s in structure]
    return pack_sequence_as(structure[0], [func(*leaves) for leaves in zip(*flat)])


def convert_to_list(value, n: int, name: str, dtype=int) -> list:
    """[value] * n for a number, else the n values of a list/tuple, each converted to dtype."""
    if isinstance(value, dtype):
        return [value] * n
    try:
        values = list(value)
    except TypeError:
        raise ValueError('The %s\'s type must be list or tuple. Received: %s' % (name, value)) from None
    if len(values) != n:
        raise ValueError('The %s\'s length must be %d. Received: %s' % (name, n, value))
    out = []
    for v in values:
        try:
            out.append(dtype(v))
        except (ValueError, TypeError):
            raise ValueError('The %s\'s type must be a list or tuple of %d %s. Received: %s ...'
                             % (name, n, dtype, value)) from None
    return out
