"""Activation layers with Paddle 1.8's fluid.layers signatures: relu, sigmoid, tanh, softmax, gelu, leaky_relu, ...;
acos / asin / atan and soft_relu; the other one-input elementwise functions log1p and erf, and logsumexp (built
from exp, reduce_sum and log).

Each appends one activation op named after the layer (`relu_0.tmp_0`, `<name>.tmp_0` when `name` is given) with
the attributes 1.8 passes; unset optional attributes are left to the op's defaults, as 1.8's generated layers
do. Behaviours of 1.8 kept on purpose:
- `swish(x, beta)` passes its beta as an attribute `slope` the op does not have, so the op runs with beta=1.0
  whatever the caller asked (verified with fluid 1.8.5); the op is appended with beta=1.0.
- `log_softmax` is a `softmax` followed by a `log` (2.x's F.log_softmax is the `log_softmax` op).
- `softshrink(x, alpha)` sets the op's `lambda`.
"""
from __future__ import annotations

from ..framework.dtype import to_var_type
from ..framework.variable import Variable
from .checks import check_variable_and_dtype
from .helper import LayerHelper, named_output
from .math import reduce_sum, unary

_FLOATS = ('float16', 'float32', 'float64')

# activations without attributes; abs, exp and square also take integers
_NO_ATTR = ['sigmoid', 'logsigmoid', 'exp', 'tanh', 'tanh_shrink', 'sqrt', 'rsqrt', 'abs', 'ceil', 'floor', 'cos',
            'sin', 'round', 'reciprocal', 'square', 'softplus', 'softsign', 'acos', 'asin', 'atan']


def activation(op_type: str, x, attrs=None, name=None, dtypes=_FLOATS, helper_name=None):
    """Checks x's dtype the way Paddle does for `op_type` and appends the op."""
    check_variable_and_dtype(x, 'x', dtypes, helper_name or op_type)
    return unary(op_type, x, attrs, name=name, helper_name=helper_name)


def _no_attr_layer(op_type: str):
    dtypes = _FLOATS + ('int32', 'int64') if op_type in ('abs', 'exp', 'square') else _FLOATS

    def layer(x, name=None):
        return activation(op_type, x, name=name, dtypes=dtypes)
    layer.__name__ = layer.__qualname__ = op_type
    layer.__doc__ = 'fluid.layers.%s(x, name=None): the `%s` op.' % (op_type, op_type)
    return layer


(sigmoid, logsigmoid, exp, tanh, tanh_shrink, sqrt, rsqrt, abs, ceil, floor, cos, sin, round, reciprocal,  # noqa: A001
 square, softplus, softsign, acos, asin, atan) = (_no_attr_layer(op_type) for op_type in _NO_ATTR)


def relu(x, name=None):
    return activation('relu', x, name=name)


def log(x, name=None):
    return activation('log', x, name=name, dtypes=('float32', 'float64'))


def relu6(x, threshold=6.0, name=None):
    return activation('relu6', x, {'threshold': threshold}, name)


def elu(x, alpha=1.0, name=None):
    return activation('elu', x, {'alpha': alpha}, name)


def hard_sigmoid(x, slope=0.2, offset=0.5, name=None):
    return activation('hard_sigmoid', x, {'slope': slope, 'offset': offset}, name)


def swish(x, beta=1.0, name=None):
    """fluid 1.8's swish ignores `beta` (see the module docstring): the op always runs with beta=1.0."""
    return activation('swish', x, {'beta': 1.0}, name)


def hard_swish(x, threshold=6.0, scale=6.0, offset=3.0, name=None):
    return activation('hard_swish', x, {'threshold': threshold, 'scale': scale, 'offset': offset}, name)


def stanh(x, scale_a=0.67, scale_b=1.7159, name=None):
    return activation('stanh', x, {'scale_a': scale_a, 'scale_b': scale_b}, name)


def brelu(x, t_min=0.0, t_max=24.0, name=None):
    return activation('brelu', x, {'t_min': t_min, 't_max': t_max}, name)


def selu(x, scale=None, alpha=None, name=None):
    attrs = {k: v for k, v in (('scale', scale), ('alpha', alpha)) if v is not None}
    return activation('selu', x, attrs, name, dtypes=('float32', 'float64'))


def mish(x, threshold=20, name=None):
    if not isinstance(threshold, (int, float)) or threshold <= 0:
        raise ValueError('threshold of mish should be greater than 0, but got %s' % (threshold,))
    return activation('mish', x, {'threshold': float(threshold)}, name, dtypes=('float32', 'float64'))


def pow(x, factor=1.0, name=None):  # noqa: A001 - Paddle's name
    """fluid.layers.pow: x ** factor; a Variable factor (float32, one element) is read at run time."""
    check_variable_and_dtype(x, 'x', ('int32', 'int64', 'float32', 'float64'), 'pow')
    helper = LayerHelper('pow', name=name)
    inputs, attrs = {'X': [x]}, {}
    if isinstance(factor, Variable):
        check_variable_and_dtype(factor, 'factor', ('float32',), 'pow')
        factor.stop_gradient = True
        inputs['FactorTensor'] = [factor]
    else:
        attrs['factor'] = float(factor)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('pow', inputs, {'Out': [out]}, attrs)
    return out


def soft_relu(x, threshold=40.0, name=None):
    """fluid.layers.soft_relu: log(1 + exp(clip(x, -threshold, threshold))), the `soft_relu` op."""
    check_variable_and_dtype(x, 'input', _FLOATS, 'soft_relu')
    return unary('soft_relu', x, {'threshold': float(threshold)}, name=name)


def leaky_relu(x, alpha=0.02, name=None):
    return activation('leaky_relu', x, {'alpha': alpha}, name)


def gelu(x, approximate=False):
    return activation('gelu', x, {'approximate': approximate})


def thresholded_relu(x, threshold=None):
    return activation('thresholded_relu', x, {} if threshold is None else {'threshold': threshold})


def hard_shrink(x, threshold=None):
    return activation('hard_shrink', x, {} if threshold is None else {'threshold': threshold})


def softshrink(x, alpha=None):
    return activation('softshrink', x, {} if alpha is None else {'lambda': alpha})


def softmax(input, use_cudnn=False, name=None, axis=-1):
    check_variable_and_dtype(input, 'input', _FLOATS, 'softmax')
    return unary('softmax', input, {'axis': axis, 'use_cudnn': use_cudnn}, name=name)


def log_softmax(input, axis=None, dtype=None, name=None):
    """fluid 1.8's log_softmax: an optional `cast`, then `softmax` and `log` under one helper name."""
    axis = -1 if axis is None else axis
    if dtype is None:
        check_variable_and_dtype(input, 'input', _FLOATS, 'log_softmax')
    helper = LayerHelper('log_softmax', name=name)
    x = input
    if dtype is not None:
        x = helper.create_variable_for_type_inference(to_var_type(dtype))
        helper.append_op('cast', {'X': [input]}, {'Out': [x]},
                         {'in_dtype': int(input.dtype), 'out_dtype': int(to_var_type(dtype))})
    probs = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op('softmax', {'X': [x]}, {'Out': [probs]}, {'axis': axis, 'use_cudnn': False})
    out = helper.create_variable_for_type_inference(probs.dtype)
    helper.append_op('log', {'X': [probs]}, {'Out': [out]})
    return out


# --- log1p, erf, logsumexp -------------------------------------------------------------------------------------------

def log1p(x, out=None, name=None) -> Variable:
    """fluid.layers.log1p: `log1p`, log(1 + x)."""
    check_variable_and_dtype(x, 'x', ['float32', 'float64'], 'log1p')
    helper = LayerHelper('log1p', name=name)
    if out is None:
        out = named_output(helper, x.dtype, name)
    helper.append_op('log1p', {'X': [x]}, {'Out': [out]})
    return out


def erf(x) -> Variable:
    """fluid.layers.erf: the `erf` op."""
    return activation('erf', x)


def logsumexp(x, dim=None, keepdim=False, out=None, name=None) -> Variable:
    """fluid.layers.logsumexp (1.8): exp, reduce_sum and log ops (no logsumexp op in 1.8)."""
    sum_out = reduce_sum(exp(x), dim, keepdim)
    if out is not None:
        LayerHelper('logsumexp').append_op('log', {'X': [sum_out]}, {'Out': [out]})
        return out
    return log(sum_out, name)
