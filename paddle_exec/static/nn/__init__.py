"""paddle.static.nn (Paddle 2.x's module path): fc, embedding, conv2d, batch_norm, layer_norm (common.py), the
control-flow builders cond / case / switch_case / while_loop (layers/control_flow.py), py_func
(static/extras.py) and nce (layers/loss_sampled.py)."""
from ...layers.control_flow import case, cond, switch_case, while_loop
from ...layers.loss_sampled import nce
from ..extras import py_func
from . import common
from .common import *

__all__ = list(common.__all__) + ['case', 'cond', 'switch_case', 'while_loop', 'py_func', 'nce']
