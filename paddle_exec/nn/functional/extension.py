"""paddle.nn.functional's extension functions (Paddle's nn/functional/extension.py): `sequence_mask`, the fluid
builder of layers/sequence.py, whose 2.x signature is the same (x, maxlen=None, dtype='int64', name=None)."""
from ...layers.sequence import sequence_mask

__all__ = ['sequence_mask']
