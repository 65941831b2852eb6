"""paddle.nn.functional: 2.x functional builders over the shared layer builders.

`declined` lists the names of Paddle 2.6's nn.functional that paddle_exec does not provide, each with the reason
and what to use instead; reading one raises AttributeError saying so (the module's `__getattr__`), so a script
fails at the line that uses it with an explanation rather than with a stub that misbehaves later.
"""
from .activation import *
from .common import *
from .conv import *
from .distance import *
from .input import *
from .loss import *
from .loss_classification import *
from .loss_metric import *
from .loss_regression import *
from .norm import *
from .pooling import *
from .vision import *

_IN_PLACE = ('a dygraph-only in-place variant: static programs have no in-place tensor updates from Python; '
             'use paddle.nn.functional.%s, which appends the same op')

# name -> why it is declined and what to use instead (sorted)
declined = {
    'elu_': _IN_PLACE % 'elu',
    'hardtanh_': _IN_PLACE % 'hardtanh',
    'leaky_relu_': _IN_PLACE % 'leaky_relu',
    'relu_': _IN_PLACE % 'relu',
    'softmax_': _IN_PLACE % 'softmax',
    'sparse_attention': 'a CUDA-only kernel (Paddle builds it only with CUDA >= 11.3); use '
                        'paddle.nn.functional.scaled_dot_product_attention or MultiHeadAttention on CPU',
    'tanh_': _IN_PLACE % 'tanh',
    'thresholded_relu_': _IN_PLACE % 'thresholded_relu',
}


def __getattr__(name):
    if name in declined:
        raise AttributeError('paddle_exec.nn.functional.%s is not provided: it is %s.' % (name, declined[name]))
    raise AttributeError("module 'paddle_exec.nn.functional' has no attribute '%s'" % name)
