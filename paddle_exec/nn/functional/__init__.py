"""paddle.nn.functional: 2.x functional builders over the shared layer builders.

The in-place activations (relu_, elu_, ...) append the out-of-place op with 2.6.2's static-mode warning, as
2.6.2 does. sparse_attention (a CUDA-only kernel) is declined: reading it raises AttributeError saying why and
what to use instead (paddle_exec/_declined.py).
"""
from ..._declined import declined_getattr as _declined_getattr
from ...tensor.inplace import in_place_variant as _in_place_variant
from .activation import *
from .common import *
from .conv import *
from .distance import *
from .extension import *
from .input import *
from .loss import *
from .loss_classification import *
from .loss_metric import *
from .loss_regression import *
from .norm import *
from .pooling import *
from .vision import *

# the in-place activations as 2.6.2 runs them in static mode: its warning, then the out-of-place op
_IN_PLACE = ['elu_', 'hardtanh_', 'leaky_relu_', 'relu_', 'softmax_', 'tanh_', 'thresholded_relu_']
globals().update({_name: _in_place_variant(_name, globals()[_name[:-1]]) for _name in _IN_PLACE})
__getattr__ = _declined_getattr(__name__)  # sparse_attention (CUDA only) says why (_declined.py)
