"""paddle.nn.functional's extension functions (Paddle's nn/functional/extension.py): `sequence_mask`, the fluid
builder of layers/sequence.py, whose 2.x signature is the same (x, maxlen=None, dtype='int64', name=None), and
`gather_tree` (ids [time, batch, beam] re-read along each final beam's parents: layers/rnn_cells.py)."""
from ...layers.rnn_cells import gather_tree
from ...layers.sequence import sequence_mask

__all__ = ['sequence_mask', 'gather_tree']
