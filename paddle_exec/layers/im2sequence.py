"""fluid.layers.im2sequence (ops/im2sequence.py): the patches of each image as one sequence of a LoD tensor."""
from __future__ import annotations

from ..framework.variable import Variable
from .checks import check_variable_and_dtype
from .helper import LayerHelper

__all__ = ['im2sequence']


def im2sequence(input, filter_size=1, stride=1, padding=0, input_image_size=None, out_stride=1,  # noqa: A002
                name=None) -> Variable:
    """[patches, C * kh * kw] LoD: every filter_size patch of each image (padding [up, left, down, right], or two
    values for both sides), one sequence per image; input_image_size ([N, 2] real sizes) with out_stride limits
    each image's patches to its real size."""
    check_variable_and_dtype(input, 'input', ['float32'], 'im2sequence')
    if isinstance(filter_size, int):
        filter_size = [filter_size, filter_size]
    if isinstance(stride, int):
        stride = [stride, stride]
    if isinstance(padding, int):
        padding = [padding, padding]
    padding = list(padding)
    if len(padding) == 2:
        padding = padding + padding
    inputs = {'X': [input]}
    attrs = {'kernels': list(filter_size), 'strides': list(stride), 'paddings': padding}
    if input_image_size is not None:
        if isinstance(out_stride, int):
            out_stride = [out_stride, out_stride]
        inputs['Y'] = [input_image_size]
        attrs['out_stride'] = list(out_stride)
    helper = LayerHelper('im2sequence', name=name)
    out = helper.create_variable_for_type_inference(dtype=input.dtype)
    helper.append_op(type='im2sequence', inputs=inputs, outputs={'Out': [out]}, attrs=attrs)
    return out
