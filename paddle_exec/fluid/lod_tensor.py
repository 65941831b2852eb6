"""fluid.create_lod_tensor and fluid.create_random_int_lodtensor (Paddle 1.8's fluid/lod_tensor.py).

A LoDTensor here is the array plus its LoD (framework/scope.py). Executors feed the array; the LoD travels with
the tensor for the sequence ops that read it. The length-based LoD is checked as Paddle does: each level's lengths
sum to the number of entries of the next level, and the last level's to the rows of the data.
"""
from __future__ import annotations

import numpy as np

from ..framework.scope import LoDTensor

__all__ = ['create_lod_tensor', 'create_random_int_lodtensor']


def _valid_lengths(recursive_seq_lens, rows: int) -> bool:
    for level, next_level in zip(recursive_seq_lens, list(recursive_seq_lens[1:]) + [None]):
        total = sum(int(n) for n in level)
        if total != (rows if next_level is None else len(next_level)):
            return False
    return True


def create_lod_tensor(data, recursive_seq_lens, place) -> LoDTensor:
    """A LoDTensor of `data` (ndarray, list of sequences or LoDTensor) with the length-based LoD
    `recursive_seq_lens`, e.g. data of 5 rows and [[2, 3]] for two sequences of 2 and 3 rows."""
    recursive_seq_lens = [[int(n) for n in level] for level in recursive_seq_lens]
    if isinstance(data, LoDTensor):
        return create_lod_tensor(np.array(data), recursive_seq_lens, place)
    if isinstance(data, list):
        flat, lengths = [], []
        for seq in data:
            lengths.append(len(seq))
            flat.extend(seq)
        assert [lengths] == recursive_seq_lens, 'data and recursive_seq_lens do not match'
        arr = np.array(flat)
        data = arr.reshape(arr.shape + (1,))
    elif not isinstance(data, np.ndarray):
        raise TypeError('data should be either a LoDTensor, a Numpy array or a list')
    tensor = LoDTensor()
    tensor.set(data, place)
    tensor.set_recursive_sequence_lengths(recursive_seq_lens)
    assert _valid_lengths(recursive_seq_lens, tensor.value.shape[0] if tensor.value.ndim else 0), \
        'the provided lod info is invalid'
    return tensor


def create_random_int_lodtensor(recursive_seq_lens, base_shape, place, low: int, high: int) -> LoDTensor:
    """A LoDTensor of random int64 in [low, high] shaped [sum of the last level's lengths] + base_shape."""
    overall_shape = [sum(recursive_seq_lens[-1])] + list(base_shape)
    data = np.random.randint(low, high + 1, overall_shape).astype('int64')     # Paddle's random_integers(low, high)
    return create_lod_tensor(data, recursive_seq_lens, place)
