"""fluid.contrib.layers.rnn_impl (Paddle 1.8's module path): BasicGRUUnit, BasicLSTMUnit, basic_gru, basic_lstm
are recurrent nets, issue 11's; nothing is exported yet."""

__all__ = []
