"""paddle.nn.functional common layers: linear (matmul_v2, then the bias added on the last axis, as Paddle 2.x
builds it) and dropout (Paddle 2.x defaults: p=0.5, training=True, upscale_in_train)."""
from __future__ import annotations

from ...framework.variable import Variable
from ...layers import nn as _nn
from ...layers.helper import LayerHelper

__all__ = ['linear', 'dropout']


def linear(x, weight, bias=None, name=None):
    """F.linear: out = x @ weight (+ bias), weight of shape [in_features, out_features]; ops matmul_v2 and
    elementwise_add (axis -1) from one LayerHelper('linear'), so temporaries are named linear_N.tmp_K."""
    _nn.check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64'], 'linear')
    _nn.check_variable_and_dtype(weight, 'weight', ['float16', 'float32', 'float64'], 'linear')
    helper = LayerHelper('linear', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('matmul_v2', {'X': [x], 'Y': [weight]}, {'Out': [out]}, {'trans_x': False, 'trans_y': False})
    if bias is None:
        return out
    biased = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('elementwise_add', {'X': [out], 'Y': [bias]}, {'Out': [biased]}, {'axis': -1})
    return biased


def dropout(x, p=0.5, axis=None, training=True, mode='upscale_in_train', name=None):
    """F.dropout: one `dropout` op with `is_test = not training`; mode 'downscale_in_infer' is the op's
    'downgrade_in_infer'. p == 0 returns x unchanged, as Paddle does."""
    if not isinstance(p, (float, int, Variable)) or isinstance(p, bool):
        raise TypeError('p argument should be a number or Variable')
    if isinstance(p, Variable):
        raise NotImplementedError('F.dropout: a Variable dropout probability is not supported; pass a float')
    if p == 0:
        return x
    if p < 0 or p > 1:
        raise ValueError('p argument should between 0 and 1')
    if mode not in ('downscale_in_infer', 'upscale_in_train'):
        raise ValueError("mode argument should be 'downscale_in_infer' or 'upscale_in_train'")
    if axis is not None:
        if not isinstance(axis, (int, list, tuple)):
            raise TypeError('datatype of axis argument should be int or list')
        raise NotImplementedError('F.dropout with axis (dropout over chosen axes) is not supported yet')
    _nn.check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64'], 'dropout')
    impl = 'downgrade_in_infer' if mode == 'downscale_in_infer' else mode
    return _nn.dropout_op(x, p, not training, None, impl, name=name)
