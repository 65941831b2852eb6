"""paddle.static.nn (Paddle 2.x's module path): fc, embedding, conv2d, batch_norm, layer_norm (common.py), the
control-flow builders cond / case / switch_case / while_loop (layers/control_flow.py) and py_func
(static/extras.py)."""
from ...layers.control_flow import case, cond, switch_case, while_loop
from ..extras import py_func
from . import common
from .common import *

__all__ = list(common.__all__) + ['case', 'cond', 'switch_case', 'while_loop', 'py_func']
