"""paddle.static.nn builders (Paddle 2.x) over the shared fluid builders.

As in Paddle 2.x, `conv2d`, `batch_norm` and `layer_norm` are the fluid layers themselves; `embedding` is
`fluid.embedding` (`lookup_table_v2`: ids of any shape, no trailing dimension of 1); `fc` takes 2.x keywords.
"""
from __future__ import annotations

from ...layers import common as _common
from ...layers import conv as _conv
from ...layers import norm as _norm
from ...layers.common import embedding_layer

__all__ = ['fc', 'embedding', 'conv2d', 'batch_norm', 'layer_norm']

conv2d = _conv.conv2d
batch_norm = _norm.batch_norm
layer_norm = _norm.layer_norm


def fc(x, size, num_flatten_dims=1, weight_attr=None, bias_attr=None, activation=None, name=None):
    return _common.fc(x, size, num_flatten_dims=num_flatten_dims, param_attr=weight_attr, bias_attr=bias_attr,
                      act=activation, name=name)


def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None, param_attr=None,
              dtype='float32'):
    """paddle.static.nn.embedding: `lookup_table_v2` (Out = ids.shape + [dim]); weight `embedding_N.w_0`."""
    return embedding_layer('lookup_table_v2', 'fluid.embedding', input, size, is_sparse, is_distributed,
                           padding_idx, param_attr, dtype)
