"""fluid.lod_tensor (Paddle 1.8's module path): making LoD tensors from numpy arrays, nested lists or other
LoD tensors.

    t = fluid.create_lod_tensor(np.arange(5).reshape(5, 1), [[2, 3]], fluid.CPUPlace())   # two sequences
    t = fluid.create_lod_tensor([[1, 2], [3, 4, 5]], [[2, 3]], fluid.CPUPlace())         # the same, from lists
    t.lod()                        # [[0, 2, 5]]
    t.recursive_sequence_lengths() # [[2, 3]]

As in 1.8, a nested list becomes an array with a trailing dimension of 1 ([5, 1] above), and the lengths given must
be those of the nesting (AssertionError "data and recursive_seq_lens do not match"); a list nested several levels
deep is checked level by level (1.8 compared the top level only). Lengths that do not sum to the rows raise
EnforceNotMet ("the provided recursive_sequence_lengths info is invalid"), naming what is wrong.
"""
from __future__ import annotations

import numpy as np

from ..framework.lod import flatten_nested
from ..framework.scope import LoDTensor

__all__ = ['create_lod_tensor', 'create_random_int_lodtensor']


def create_lod_tensor(data, recursive_seq_lens, place) -> LoDTensor:
    """A LoDTensor holding `data` (a numpy array, a nested list, or a LoDTensor whose data is copied) with the LoD
    given as recursive sequence lengths (a list of length lists, one per level)."""
    if isinstance(data, LoDTensor):
        return create_lod_tensor(np.array(data), recursive_seq_lens, place)
    if isinstance(data, list):
        lengths = [list(level) for level in recursive_seq_lens]
        rows, nested = flatten_nested(data, len(lengths), 'data')
        assert nested == lengths, 'data and recursive_seq_lens do not match'
        arr = np.array(rows)
        # 1.8 appends a dimension of 1 (its FIXME: "maybe it is not a right way"); scripts rely on the shape
        arr = arr.reshape(arr.shape + (1,))
        tensor = LoDTensor()
        tensor.set(arr, place)
        tensor.set_recursive_sequence_lengths(lengths)
        return tensor
    if isinstance(data, np.ndarray):
        tensor = LoDTensor()
        tensor.set(data, place)
        tensor.set_recursive_sequence_lengths(recursive_seq_lens)
        assert tensor.has_valid_recursive_sequence_lengths(), 'the provided lod info is invalid'
        return tensor
    raise TypeError('data should be either a LoDTensor, a Numpy array or a list')


def create_random_int_lodtensor(recursive_seq_lens, base_shape, place, low, high) -> LoDTensor:
    """A LoDTensor of int64 drawn uniformly from [low, high] (numpy's global generator), shaped
    [sum of the last level's lengths] + base_shape."""
    assert isinstance(base_shape, list), 'base_shape should be a list'
    overall_shape = [sum(recursive_seq_lens[-1])] + base_shape
    data = np.random.randint(low, high + 1, overall_shape).astype('int64')
    return create_lod_tensor(data, recursive_seq_lens, place)
