"""The common neural-network layers with fluid 1.x signatures: fc, embedding, dropout, one_hot, prelu, maxout.

Each builder appends the ops Paddle 1.8.5 appends, with its parameter and temporary names (`fc_0.w_0`,
`embedding_0.w_0`, `prelu_0.w_0`, ...), default initialisers and attributes; `paddle.static.nn` and
`paddle.nn.functional` reuse them. The op builders `lookup_embedding` (lookup_table / lookup_table_v2),
`one_hot_op`, `dropout_op`, `prelu_op` and `maxout_op` serve the 2.x APIs too. (Convolution and pooling:
conv.py; normalisation: norm.py; padding and resizing: image.py.)
"""
from __future__ import annotations

import copy

from ..framework.dtype import VarType, convert_dtype
from ..framework.variable import Variable
from ..initializer import ConstantInitializer
from ..ops._util import prod
from ..param_attr import ParamAttr
from .checks import check_variable_and_dtype
from .helper import LayerHelper


def fc(input, size, num_flatten_dims=1, param_attr=None, bias_attr=None, act=None, name=None):
    """fluid.layers.fc: per input a `mul` with its own weight, a `sum` when several, bias, activation."""
    helper = LayerHelper('fc', input=input, param_attr=param_attr, bias_attr=bias_attr, act=act, name=name)
    inputs = helper.multiple_input()
    dtype = helper.input_dtype()
    attrs = ParamAttr._to_attr(param_attr)
    if not isinstance(attrs, list):
        attrs = [attrs] + [copy.deepcopy(attrs) for _ in inputs[1:]]
    if len(attrs) != len(inputs):
        raise ValueError('fc: %d inputs but %d param_attr' % (len(inputs), len(attrs)))
    mul_results = []
    for input_var, attr in zip(inputs, attrs):
        if not isinstance(input_var, Variable):
            raise TypeError('fc: input must be a Variable, got %s' % type(input_var).__name__)
        nfd = len(input_var.shape) - 1 if num_flatten_dims == -1 else num_flatten_dims
        width = prod(input_var.shape[nfd:])
        if width <= 0:
            raise ValueError('fc: the dimensions of input %r after num_flatten_dims=%d must be known, got shape %s'
                             % (input_var.name, nfd, list(input_var.shape)))
        w = helper.create_parameter(attr, [width, size], dtype, is_bias=False)
        tmp = helper.create_variable_for_type_inference(dtype)
        helper.append_op('mul', {'X': [input_var], 'Y': [w]}, {'Out': [tmp]},
                         {'x_num_col_dims': nfd, 'y_num_col_dims': 1})
        mul_results.append(tmp)
    if len(mul_results) == 1:
        pre_bias = mul_results[0]
    else:
        pre_bias = helper.create_variable_for_type_inference(dtype)
        helper.append_op('sum', {'X': mul_results}, {'Out': [pre_bias]}, {'use_mkldnn': False})
    nfd = len(inputs[0].shape) - 1 if num_flatten_dims == -1 else num_flatten_dims
    pre_act = helper.append_bias_op(pre_bias, dim_start=nfd)
    return helper.append_activation(pre_act)


def _padding_idx(padding_idx, vocab: int) -> int:
    if padding_idx is None:
        return -1
    padding_idx = int(padding_idx)
    if not -vocab <= padding_idx < vocab:
        raise ValueError('padding_idx must be within [-%d, %d), got %d' % (vocab, vocab, padding_idx))
    return padding_idx if padding_idx >= 0 else vocab + padding_idx


def lookup_embedding(op_type: str, input, weight, is_sparse: bool, is_distributed: bool, padding_idx,
                     helper: LayerHelper):
    """Appends `op_type` (lookup_table or lookup_table_v2) reading `weight` at `input`; returns Out."""
    out = helper.create_variable_for_type_inference(weight.dtype)
    helper.append_op(op_type, {'Ids': [input], 'W': [weight]}, {'Out': [out]},
                     {'is_sparse': bool(is_sparse), 'is_distributed': bool(is_distributed),
                      'remote_prefetch': bool(is_sparse) and not is_distributed,
                      'padding_idx': _padding_idx(padding_idx, weight.shape[0])})
    return out


def embedding_layer(op_type: str, api_name: str, input, size, is_sparse=False, is_distributed=False,
                    padding_idx=None, param_attr=None, dtype='float32'):
    """fluid.layers.embedding (lookup_table) and fluid.embedding / static.nn.embedding (lookup_table_v2)."""
    helper = LayerHelper('embedding', param_attr=param_attr)
    check_variable_and_dtype(input, 'input', ['int64'], api_name)
    if convert_dtype(dtype) not in ('float16', 'float32', 'float64'):
        raise TypeError("The data type of 'dtype' in %s must be ['float16', 'float32', 'float64'], but received %s. "
                        % (api_name, convert_dtype(dtype)))
    w = helper.create_parameter(param_attr, list(size), dtype, is_bias=False)
    return lookup_embedding(op_type, input, w, is_sparse, is_distributed, padding_idx, helper)


def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None, param_attr=None,
              dtype='float32'):
    """fluid.layers.embedding: `lookup_table` on ids whose last dimension is 1; the weight `embedding_N.w_0` is
    [vocab, dim] (Xavier). `is_sparse=True` makes its gradient a SelectedRows."""
    return embedding_layer('lookup_table', 'fluid.layers.embedding', input, size, is_sparse, is_distributed,
                           padding_idx, param_attr, dtype)


def dropout(x, dropout_prob, is_test=False, seed=None, name=None, dropout_implementation='downgrade_in_infer'):
    """fluid.layers.dropout: one `dropout` op; Mask (uint8) is a stop_gradient temporary. Without `seed` the
    program's random_seed (when set) fixes the mask, as Paddle does."""
    check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64'], 'dropout')
    return dropout_op(x, dropout_prob, is_test, seed, dropout_implementation, name=name)


def dropout_op(x, dropout_prob, is_test, seed, dropout_implementation: str, name=None):
    if dropout_implementation not in ('downgrade_in_infer', 'upscale_in_train'):
        raise ValueError("dropout_implementation must be 'downgrade_in_infer' or 'upscale_in_train', got %r"
                         % (dropout_implementation,))
    helper = LayerHelper('dropout', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    mask = helper.create_variable_for_type_inference(VarType.UINT8, stop_gradient=True)
    program_seed = helper.main_program.random_seed
    if (seed is None or seed == 0) and program_seed != 0:
        seed = program_seed
    helper.append_op('dropout', {'X': [x]}, {'Out': [out], 'Mask': [mask]},
                     {'dropout_prob': float(dropout_prob), 'is_test': bool(is_test), 'fix_seed': seed is not None,
                      'seed': int(seed) if seed is not None else 0,
                      'dropout_implementation': dropout_implementation})
    return out


def one_hot_op(op_type: str, input, depth, allow_out_of_range: bool, api_name: str):
    """Appends `one_hot` / `one_hot_v2`; `depth` an int (attribute) or a Variable (`depth_tensor`)."""
    check_variable_and_dtype(input, 'input', ['int32', 'int64'], api_name)
    if isinstance(depth, bool) or not isinstance(depth, (int, Variable)):
        raise TypeError("The type of 'depth' in %s must be (<class 'int'>, %s), but received %s. "
                        % (api_name, Variable, type(depth)))
    helper = LayerHelper(op_type)
    out = helper.create_variable_for_type_inference(VarType.FP32)
    inputs = {'X': [input]}
    attrs = {'allow_out_of_range': bool(allow_out_of_range)}
    if isinstance(depth, Variable):
        depth.stop_gradient = True
        inputs['depth_tensor'] = [depth]
    else:
        attrs['depth'] = int(depth)
    helper.append_op(op_type, inputs, {'Out': [out]}, attrs)
    out.stop_gradient = True
    return out


def one_hot(input, depth, allow_out_of_range=False):
    """fluid.layers.one_hot: `one_hot` on ids whose last dimension is 1 -> float32 [..., depth]."""
    return one_hot_op('one_hot', input, depth, allow_out_of_range, 'one_hot')


def prelu(x, mode, param_attr=None, name=None):
    """fluid.layers.prelu: alpha `prelu_N.w_0` (Constant 0.25, float32) of shape [1] ('all'), [1, C, 1, 1]
    ('channel') or [1] + x.shape[1:] ('element')."""
    check_variable_and_dtype(x, 'x', ['float32', 'float64'], 'prelu')
    helper = LayerHelper('prelu', param_attr=param_attr, name=name)
    if mode not in ('all', 'channel', 'element'):
        raise ValueError('mode should be one of all, channel, element.')
    alpha_shape = [1]
    if mode == 'channel':
        if len(x.shape) < 2:
            raise AssertionError("The size of input shape should be equal or larger than 2 in prelu() when mode is "
                                 "'channel'")
        alpha_shape = [1, x.shape[1], 1, 1]
    elif mode == 'element':
        alpha_shape = [1] + list(x.shape)[1:]
    alpha = helper.create_parameter(param_attr, alpha_shape, 'float32', default_initializer=ConstantInitializer(0.25))
    return prelu_op(x, alpha, mode, None, helper)


def prelu_op(x, alpha, mode: str, data_format, helper: LayerHelper):
    """Appends `prelu`; `data_format` (2.x) is set when given."""
    out = helper.create_variable_for_type_inference(x.dtype)
    attrs = {'mode': mode}
    if data_format is not None:
        attrs['data_format'] = data_format
    helper.append_op('prelu', {'X': [x], 'Alpha': [alpha]}, {'Out': [out]}, attrs)
    return out


def maxout(x, groups, name=None, axis=1):
    """fluid.layers.maxout: the max over each group of `groups` consecutive channels (axis 1, or 3 / -1 for
    channels-last)."""
    check_variable_and_dtype(x, 'x', ['float32', 'float64'], 'maxout')
    return maxout_op(x, groups, axis, name)


def maxout_op(x, groups, axis, name=None):
    if axis not in (1, -1, 3):
        raise ValueError('Attr(axis) should be 1 when data format is NCHW, -1 or 3 when data format is NHWC. '
                         'Received Attr(axis): %s.' % str(axis))
    helper = LayerHelper('maxout', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('maxout', {'X': [x]}, {'Out': [out]}, {'groups': int(groups), 'axis': 3 if axis == -1 else axis})
    return out
