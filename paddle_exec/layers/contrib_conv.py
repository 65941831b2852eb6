"""fluid.contrib.layers' convolutions (ops/contrib_conv.py): var_conv_2d over LoD images of different sizes,
tree_conv over trees."""
from __future__ import annotations

from ..framework.variable import Variable
from .checks import check_type
from .helper import LayerHelper

__all__ = ['var_conv_2d', 'tree_conv']


def _pair(value, name: str) -> list:
    if isinstance(value, int):
        return [value, value]
    value = list(value)
    if len(value) != 2 or not all(isinstance(v, int) for v in value):
        raise ValueError("The %s's type must be list or tuple with length 2 of ints. Received: %s" % (name, value))
    return value


def var_conv_2d(input, row, col, input_channel, output_channel, filter_size, stride=1,  # noqa: A002
                param_attr=None, act=None, dtype='float32', name=None) -> Variable:
    """[sum output_channel * oh_i * ow_i, 1] LoD: each image of `input` (LoD, input_channel x rows_i x cols_i
    values; rows_i and cols_i from the LoD of `row` and `col`) convolved with a centred filter_size kernel."""
    helper = LayerHelper('var_conv_2d', name=name, act=act)
    if len(input.shape) != 2:
        raise ValueError('var_conv_2d: input must be a 2-D LoD tensor, got shape %s' % list(input.shape))
    filter_size = _pair(filter_size, 'filter_size')
    stride = _pair(stride, 'stride')
    w = helper.create_parameter(attr=param_attr, dtype=dtype,
                                shape=[int(output_channel), int(input_channel) * filter_size[0] * filter_size[1]])
    conv_res = helper.create_variable_for_type_inference(dtype)
    tmp_res = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op(type='var_conv_2d', inputs={'X': [input], 'ROW': [row], 'COLUMN': [col], 'W': [w]},
                     outputs={'Out': [conv_res], 'Col': [tmp_res]},
                     attrs={'InputChannel': input_channel, 'OutputChannel': output_channel, 'StrideH': stride[0],
                            'StrideW': stride[1], 'KernelH': filter_size[0], 'KernelW': filter_size[1]})
    return helper.append_activation(conv_res)


def tree_conv(nodes_vector, edge_set, output_size, num_filters=1, max_depth=2, act='tanh', param_attr=None,
              bias_attr=None, name=None) -> Variable:
    """[B, max_nodes, output_size, num_filters]: the tree-based convolution (TBCNN) of the node features
    nodes_vector [B, max_nodes, F] over the trees of edge_set [B, edges, 2], plus a bias over the output's
    dims after the batch, then `act`."""
    check_type(nodes_vector, 'nodes_vector', (Variable), 'tree_conv')
    check_type(edge_set, 'edge_set', (Variable), 'tree_conv')
    helper = LayerHelper('tree_conv', name=name, act=act, bias_attr=bias_attr)
    dtype = nodes_vector.dtype
    w = helper.create_parameter(attr=param_attr, shape=[nodes_vector.shape[2], 3, output_size, num_filters],
                                dtype=dtype, is_bias=False)
    out = helper.create_variable_for_type_inference(dtype=dtype)
    helper.append_op(type='tree_conv', inputs={'NodesVector': [nodes_vector], 'EdgeSet': [edge_set], 'Filter': [w]},
                     outputs={'Out': [out]}, attrs={'max_depth': max_depth})
    pre_activation = helper.append_bias_op(out) if bias_attr is not False else out
    return helper.append_activation(pre_activation)
