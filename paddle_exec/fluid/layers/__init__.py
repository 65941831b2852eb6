"""fluid.layers: Paddle 1.8's layer namespace, laid out as 1.8 lays it out: the union of its submodules (nn, tensor,
control_flow, io, ops, loss, metric_op, learning_rate_scheduler, ...), each of which maps its part of Paddle's
names onto the one implementation in paddle_exec/layers/.

Two more groups of names are reachable here, as they were before the submodules existed: the control-flow
building blocks 1.8 defines in control_flow.py outside its `__all__` (ConditionalBlock, select_input, ...), and
paddle_exec's data-source builders (text_line_reader, decode_csv, staged, ...: static/data_source.py).
"""
from ..._declined import declined_getattr
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

# captured before the star imports: `from .rnn import *` rebinds `rnn` to the function, as in 1.8
_SUBMODULES = (nn, io, tensor, control_flow, ops, detection, metric_op, learning_rate_scheduler, distributions,
               sequence_lod, loss, rnn)

from .control_flow import *  # noqa: E402
from .control_flow import ConditionalBlock, merge_lod_tensor, select_input, select_output, split_lod_tensor  # noqa: E402
from .detection import *  # noqa: E402
from .distributions import *  # noqa: E402
from .io import *  # noqa: E402
from .learning_rate_scheduler import *  # noqa: E402
from .loss import *  # noqa: E402
from .metric_op import *  # noqa: E402
from .nn import *  # noqa: E402
from .ops import *  # noqa: E402
from .rnn import *  # noqa: E402
from .sequence_lod import *  # noqa: E402
from .tensor import *  # noqa: E402

__all__ = [name for module in _SUBMODULES for name in module.__all__]
__all__ += ['ConditionalBlock', 'merge_lod_tensor', 'select_input', 'select_output', 'split_lod_tensor']
__all__ += _data_source.__all__

__getattr__ = declined_getattr(__name__)
