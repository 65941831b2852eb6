"""paddle.utils.flops: the FLOPs of one op from its input shapes and attributes, as Paddle 2.6.2 counts them (the
per-op table its auto-parallel cost model reads; `paddle.flops` of a whole Program is hapi/static_flops.py).

    flops('matmul_v2', {'X': [[3, 4, 5]], 'Y': [[5, 6]]}, {'trans_x': False, 'trans_y': False})   # 720

`input_shapes` maps each input slot to the list of its variables' shapes. An op without a rule, or whose rule
fails on the shapes given, counts 0 (Paddle's behaviour). `register_flops(op_type)` adds or replaces a rule.
"""
from __future__ import annotations

from typing import Callable

__all__ = ['flops', 'register_flops', 'prod']

_FLOPS_COMPUTE_FUNC_MAP: dict[str, Callable] = {}


def prod(s) -> int:
    p = 1
    for v in s:
        p *= v
    return p


def flops(op_type: str, input_shapes: dict, attrs: dict) -> int:
    """The FLOPs of an `op_type` op with these input shapes and attributes (0 when there is no rule for it)."""
    func = _FLOPS_COMPUTE_FUNC_MAP.get(op_type)
    if func is None:
        return 0
    try:
        return func(input_shapes, attrs)
    except Exception:          # Paddle counts an op whose shapes the rule cannot read as 0
        return 0


def register_flops(op_type: str):
    """Decorator: `func(input_shapes, attrs) -> int` becomes the rule of op_type."""
    def register(func):
        _FLOPS_COMPUTE_FUNC_MAP[op_type] = func
        return func
    return register


def _zero(input_shapes, attrs) -> int:
    return 0


for _type in ('c_embedding', 'dropout', 'reshape2', 'transpose2'):
    register_flops(_type)(_zero)


def _per_dim(value, length: int) -> list:
    return value if isinstance(value, list) else [value] * length


@register_flops('conv2d')
def _conv2d_flops(input_shapes, attrs) -> int:
    """2 * kernel MACs per output position, plus one add per output of the bias."""
    bias = input_shapes.get('Bias')[0] if len(input_shapes.get('Bias')) > 0 else None
    input, weight = input_shapes.get('Input')[0], input_shapes.get('Filter')[0]
    batch_size, in_channels, out_channels = input[0], input[1], weight[0]
    kernel_dims, input_dims = list(weight[2:]), list(input[2:])
    length = len(input_dims)
    paddings = _per_dim(attrs.get('paddings'), length)
    strides = _per_dim(attrs.get('strides'), length)
    dilations = _per_dim(attrs.get('dilations'), length)
    output_dims = [(d + 2 * paddings[i] - (dilations[i] * (kernel_dims[i] - 1) + 1)) // strides[i] + 1
                   for i, d in enumerate(input_dims)]
    filters_per_channel = out_channels // attrs.get('groups')
    active_elements = batch_size * prod(output_dims)
    overall_conv_flops = 2 * prod(kernel_dims) * in_channels * filters_per_channel * active_elements
    return overall_conv_flops + (out_channels * active_elements if bias is not None else 0)


def _elementwise_flops_compute(input_shapes, attrs) -> int:
    """The broadcast output's size."""
    input_x, input_y = input_shapes.get('X')[0], input_shapes.get('Y')[0]
    dim_x, dim_y = len(input_x), len(input_y)
    return prod(max(input_x[dim_x - 1 - i] if i < dim_x else 1, input_y[dim_y - 1 - i] if i < dim_y else 1)
                for i in range(max(dim_x, dim_y)))


for _type in ('elementwise_add', 'elementwise_mul', 'elementwise_div'):
    register_flops(_type)(_elementwise_flops_compute)


@register_flops('gelu')
def _gelu_flops(input_shapes, attrs) -> int:
    return prod(input_shapes.get('X')[0]) * 5


@register_flops('layer_norm')
def _layer_norm_flops(input_shapes, attrs) -> int:
    size = prod(input_shapes.get('X')[0])
    return size * 7 + (size if attrs.get('epsilon') else 0)


def _matmul_macs(x_shape: list, y_shape: list, trans_x: bool, trans_y: bool) -> int:
    x_shape, y_shape = list(x_shape), list(y_shape)
    if trans_x:
        x_shape[-1], x_shape[-2] = x_shape[-2], x_shape[-1]
    if trans_y:
        y_shape[-1], y_shape[-2] = y_shape[-2], y_shape[-1]
    dim_x, dim_y = len(x_shape), len(y_shape)
    batch = [max(x_shape[dim_x - idx] if idx <= dim_x else 1, y_shape[dim_y - idx] if idx <= dim_y else 1)
             for idx in range(max(dim_x, dim_y), 2, -1)]
    return prod(batch) * x_shape[-2] * x_shape[-1] * y_shape[-1]


@register_flops('matmul')
def _matmul_flops(input_shapes, attrs) -> int:
    x_shape = input_shapes.get('X', input_shapes.get('x', [[0]]))[0]
    y_shape = input_shapes.get('Y', input_shapes.get('y', [[0]]))[0]
    return 2 * _matmul_macs(x_shape, y_shape, bool(attrs.get('transpose_X') or attrs.get('transpose_x')),
                            bool(attrs.get('transpose_Y') or attrs.get('transpose_y')))


@register_flops('matmul_v2')
def _matmul_v2_flops(input_shapes, attrs) -> int:
    return 2 * _matmul_macs(input_shapes.get('X')[0], input_shapes.get('Y')[0], bool(attrs.get('trans_x')),
                            bool(attrs.get('trans_y')))


def _relu_class_flops(input_shapes, attrs) -> int:
    return prod(input_shapes.get('X')[0])


for _type in ('elu', 'leaky_relu', 'prelu', 'relu', 'relu6', 'silu'):
    register_flops(_type)(_relu_class_flops)


@register_flops('softmax')
def _softmax_flops(input_shapes, attrs) -> int:
    return prod(input_shapes.get('X')[0]) * 3


@register_flops('pool')
def _pool_flops(input_shapes, attrs) -> int:
    return prod(input_shapes.get('X')[0])
