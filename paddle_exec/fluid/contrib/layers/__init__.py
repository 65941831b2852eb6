"""fluid.contrib.layers (Paddle 1.8's module path): the union of metric_op, nn and rnn_impl."""
from . import metric_op, nn, rnn_impl
from .metric_op import *
from .nn import *
from .rnn_impl import *

__all__ = metric_op.__all__ + nn.__all__ + rnn_impl.__all__
