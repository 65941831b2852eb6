"""fluid.layers.rnn (Paddle 1.8's module path): the recurrent layers, implemented once in paddle_exec/layers/rnn.py.

`__all__` is the part of 1.8.5's `__all__` for this module that paddle_exec implements.
"""
from ...layers.rnn import dynamic_gru, dynamic_lstm, dynamic_lstmp, gru_unit, lstm_unit

__all__ = ['dynamic_gru', 'dynamic_lstm', 'dynamic_lstmp', 'gru_unit', 'lstm_unit']
