"""fluid.layers.rnn (Paddle 1.8's module path): the recurrent layers, implemented once in paddle_exec/layers/rnn.py
(the LoD recurrent ops) and layers/rnn_cells.py (the cells and `rnn`).

`__all__` is the part of 1.8.5's `__all__` for this module that paddle_exec implements.
"""
from ...layers.rnn import dynamic_gru, dynamic_lstm, dynamic_lstmp, gru_unit, lstm_unit
from ...layers.rnn_cells import GRUCell, LSTMCell, RNNCell, rnn

__all__ = ['RNNCell', 'GRUCell', 'LSTMCell', 'rnn', 'dynamic_gru', 'dynamic_lstm', 'dynamic_lstmp', 'gru_unit',
           'lstm_unit']
