"""fluid.layers: Paddle 1.8's layer namespace, laid out as 1.8 lays it out: the union of its submodules (nn, tensor,
control_flow, io, ops, loss, metric_op, learning_rate_scheduler, ...), each of which maps its part of Paddle's
names onto the one implementation in paddle_exec/layers/.

Two more groups of names are reachable here, as they were before the submodules existed: the control-flow
building blocks 1.8 defines in control_flow.py outside its `__all__` (ConditionalBlock, select_input, ...), and
paddle_exec's data-source builders (text_line_reader, decode_csv, staged, ...: static/data_source.py).
"""
from ...static import data_source as _data_source
from ...static.data_source import *
from . import (
    control_flow,
    detection,
    distributions,
    io,
    learning_rate_scheduler,
    loss,
    metric_op,
    nn,
    ops,
    rnn,
    sequence_lod,
    tensor,
    utils,
)
from .control_flow import *
from .control_flow import ConditionalBlock, merge_lod_tensor, select_input, select_output, split_lod_tensor
from .detection import *
from .distributions import *
from .io import *
from .learning_rate_scheduler import *
from .loss import *
from .metric_op import *
from .nn import *
from .ops import *
from .rnn import *
from .sequence_lod import *
from .tensor import *

__all__ = [name for module in (nn, io, tensor, control_flow, ops, detection, metric_op, learning_rate_scheduler,
                               distributions, sequence_lod, loss, rnn) for name in module.__all__]
__all__ += ['ConditionalBlock', 'merge_lod_tensor', 'select_input', 'select_output', 'split_lod_tensor']
__all__ += _data_source.__all__
