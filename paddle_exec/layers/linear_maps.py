"""Builders of small linear / bilinear maps with fluid 1.8's signatures (paddle.static.nn keeps the same ones):
cos_sim, bilinear_tensor_product, row_conv; `bilinear_op` serves F.bilinear and nn.Bilinear too.

bilinear_tensor_product creates its weight `bilinear_tensor_product_N.w_0` [size, M, N] (Xavier) and, unless
bias_attr is False, its bias `.b_0` [1, size]; row_conv its filter `row_conv_N.w_0` [future_context_size + 1, D].
"""
from __future__ import annotations

from .checks import check_variable_and_dtype
from .helper import LayerHelper


def cos_sim(X, Y):
    """fluid.layers.cos_sim: the cosine similarity of the rows of X and Y ([N, 1]; `cos_sim` op)."""
    check_variable_and_dtype(X, 'X', ['float32'], 'cos_sim')
    check_variable_and_dtype(Y, 'Y', ['float32'], 'cos_sim')
    helper = LayerHelper('cos_sim')
    out, xnorm, ynorm = (helper.create_variable_for_type_inference(X.dtype) for _ in range(3))
    helper.append_op('cos_sim', {'X': [X], 'Y': [Y]}, {'Out': [out], 'XNorm': [xnorm], 'YNorm': [ynorm]})
    return out


def bilinear_op(x, y, weight, bias, helper: LayerHelper):
    """Appends `bilinear_tensor_product` (Bias optional); returns Out."""
    inputs = {'X': [x], 'Y': [y], 'Weight': [weight]}
    if bias is not None:
        inputs['Bias'] = [bias]
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('bilinear_tensor_product', inputs, {'Out': [out]})
    return out


def bilinear_tensor_product(x, y, size, act=None, name=None, param_attr=None, bias_attr=None):
    """fluid.layers.bilinear_tensor_product: out[b, k] = x[b] W[k] y[b]^T + bias[k], then the activation."""
    if len(x.shape) != 2 or len(y.shape) != 2:
        raise ValueError('Input x and y should be 2D tensor, but received x with the shape of %s, y with the shape of '
                         '%s' % (list(x.shape), list(y.shape)))
    helper = LayerHelper('bilinear_tensor_product', act=act, name=name)
    w = helper.create_parameter(param_attr, [size, x.shape[1], y.shape[1]], x.dtype)
    bias = None if bias_attr is False else helper.create_parameter(bias_attr, [1, size], x.dtype, is_bias=True)
    return helper.append_activation(bilinear_op(x, y, w, bias, helper))


def row_conv(input, future_context_size, param_attr=None, act=None):
    """fluid.layers.row_conv: the lookahead convolution of DeepSpeech 2 over each sequence (`row_conv` op)."""
    check_variable_and_dtype(input, 'input', ['float32'], 'row_conv')
    helper = LayerHelper('row_conv', act=act)
    filt = helper.create_parameter(param_attr, [future_context_size + 1, input.shape[-1]], input.dtype)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op('row_conv', {'X': [input], 'Filter': [filt]}, {'Out': [out]})
    return helper.append_activation(out)
