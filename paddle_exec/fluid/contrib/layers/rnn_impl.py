"""fluid.contrib.layers.rnn_impl (Paddle 1.8's module path): BasicGRUUnit and BasicLSTMUnit (layers/rnn_cells.py),
basic_gru and basic_lstm (layers/rnn_basic.py)."""
from ....layers.rnn_basic import basic_gru, basic_lstm
from ....layers.rnn_cells import BasicGRUUnit, BasicLSTMUnit

__all__ = ['BasicGRUUnit', 'basic_gru', 'BasicLSTMUnit', 'basic_lstm']
