"""paddle.static.nn (Paddle 2.x's module path): fc, embedding, conv2d, batch_norm, layer_norm (common.py), the
control-flow builders cond / case / switch_case / while_loop (layers/control_flow.py) and py_func
(static/extras.py), the sequence (LoD) layers sequence_* (layers/sequence.py) and nce (layers/loss_sampled.py)."""
from ..._declined import declined_getattr
from ...layers.control_flow import case, cond, switch_case, while_loop
from ...layers.loss_sampled import nce
from ...layers.pylayer import static_pylayer
from ...layers.sequence import (
                                sequence_concat,
                                sequence_conv,
                                sequence_enumerate,
                                sequence_expand,
                                sequence_expand_as,
                                sequence_first_step,
                                sequence_last_step,
                                sequence_pad,
                                sequence_pool,
                                sequence_reshape,
                                sequence_reverse,
                                sequence_scatter,
                                sequence_slice,
                                sequence_softmax,
                                sequence_unpad,
)
from ..extras import py_func
from . import common
from .common import *

__all__ = list(common.__all__) + ['case', 'cond', 'switch_case', 'while_loop', 'py_func']
__all__ += ['sequence_conv', 'sequence_softmax', 'sequence_pool', 'sequence_concat', 'sequence_first_step',
            'sequence_last_step', 'sequence_slice', 'sequence_expand', 'sequence_expand_as', 'sequence_pad',
            'sequence_unpad', 'sequence_reshape', 'sequence_scatter', 'sequence_enumerate', 'sequence_reverse']
__all__ += ['nce', 'static_pylayer']

__getattr__ = declined_getattr(__name__)  # declined names say why (_declined.py)
