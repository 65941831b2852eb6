"""paddle.nn.functional's extension functions of the recurrent nets: sequence_mask and gather_tree (2.6.2's
nn/functional/extension.py), on the shared builders (layers/sequence.py, layers/rnn_cells.py)."""
from __future__ import annotations

from ...layers.rnn_cells import gather_tree as _gather_tree
from ...layers.sequence import sequence_mask as _sequence_mask

__all__ = ['gather_tree', 'sequence_mask']


def sequence_mask(x, maxlen=None, dtype='int64', name=None):
    """mask[..., j] = j < x[...], over maxlen columns (the largest length when None)."""
    return _sequence_mask(x, maxlen=maxlen, dtype=dtype, name=name)


def gather_tree(ids, parents):
    """ids [time, batch, beam] re-read along each final beam's parents (the gather_tree op)."""
    return _gather_tree(ids, parents)
