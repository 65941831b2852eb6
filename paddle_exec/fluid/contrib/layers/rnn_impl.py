"""fluid.contrib.layers.rnn_impl (Paddle 1.8's module path): BasicGRUUnit and BasicLSTMUnit, implemented in
paddle_exec/layers/rnn_cells.py. basic_gru and basic_lstm (multi-layer, bidirectional nets of them) are not
built yet."""
from ....layers.rnn_cells import BasicGRUUnit, BasicLSTMUnit

__all__ = ['BasicGRUUnit', 'BasicLSTMUnit']
