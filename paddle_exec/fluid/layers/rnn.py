"""fluid.layers.rnn (Paddle 1.8's module path): the recurrent layers, implemented once in paddle_exec/layers/rnn.py
(the LoD recurrent ops), layers/rnn_cells.py (the cells, `rnn`, the beam-search layers) and layers/rnn_decode.py
(the decoders).

`__all__` is the part of 1.8.5's `__all__` for this module that paddle_exec implements; `lstm` (cudnn_lstm, CUDA only
in 1.8.5) is declined (paddle_exec/_declined.py).
"""
from ..._declined import declined_getattr
from ...layers.rnn import dynamic_gru, dynamic_lstm, dynamic_lstmp, gru_unit, lstm_unit
from ...layers.rnn_cells import GRUCell, LSTMCell, RNNCell, beam_search, beam_search_decode, rnn
from ...layers.rnn_decode import (
    BasicDecoder,
    BeamSearchDecoder,
    DecodeHelper,
    Decoder,
    GreedyEmbeddingHelper,
    SampleEmbeddingHelper,
    TrainingHelper,
    dynamic_decode,
)

__all__ = ['RNNCell', 'GRUCell', 'LSTMCell', 'Decoder', 'BeamSearchDecoder', 'rnn', 'dynamic_decode', 'DecodeHelper',
           'TrainingHelper', 'GreedyEmbeddingHelper', 'SampleEmbeddingHelper', 'BasicDecoder', 'beam_search',
           'beam_search_decode', 'dynamic_gru', 'dynamic_lstm', 'dynamic_lstmp', 'gru_unit', 'lstm_unit']

__getattr__ = declined_getattr(__name__)
