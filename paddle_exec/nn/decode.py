"""paddle.nn's decoding API in static mode: BeamSearchDecoder and dynamic_decode (2.6.2's nn/decode.py), the same
beam search and While loop as fluid 1.8's (layers/rnn_decode.py), over paddle.nn cells and layers (a cell called as
cell(inputs, states), an Embedding as embedding_fn, a Linear as output_fn). Decoder, the base class, is reachable as
paddle.nn.decode.Decoder, as in 2.6.2."""
from ..layers.rnn_decode import BeamSearchDecoder, Decoder, dynamic_decode  # noqa: F401  (Decoder: see above)

__all__ = ['BeamSearchDecoder', 'dynamic_decode']
