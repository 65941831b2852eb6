"""fluid.layers.nn (Paddle 1.8's module path): the nn layers, math, shape and loss builders 1.8 keeps in nn.py.

Only maps names: every builder is implemented once, in paddle_exec/layers/. `__all__` is the part of
1.8.5's `__all__` for this module that paddle_exec implements.
"""
from ...layers.activation import (
           brelu,
           elu,
           hard_sigmoid,
           hard_swish,
           leaky_relu,
           log,
           log1p,
           log_softmax,
           logsumexp,
           mish,
           pow,
           relu,
           relu6,
           selu,
           soft_relu,
           softmax,
           stanh,
           swish,
)
from ...layers.attribute import rank, shape, size
from ...layers.common import dropout, embedding, fc, maxout, one_hot, prelu
from ...layers.conv import conv2d, conv2d_transpose, pool2d
from ...layers.image import image_resize, pad, pad2d, pixel_shuffle, resize_bilinear, resize_nearest
from ...layers.indexing import gather, gather_nd, index_select, scatter, scatter_nd_add, slice, strided_slice, where
from ...layers.learning_rate import autoincreased_step_counter
from ...layers.linalg import addcmul, addmm, allclose, cross, diag_embed, dist, elementwise_equal, t
from ...layers.loss import label_smooth, log_loss, smooth_l1
from ...layers.manipulation import (
           expand,
           flatten,
           flip,
           reshape,
           roll,
           split,
           squeeze,
           stack,
           transpose,
           unsqueeze,
           unstack,
)
from ...layers.math import (
           bmm,
           clamp,
           clip,
           dot,
           elementwise_add,
           elementwise_div,
           elementwise_floordiv,
           elementwise_max,
           elementwise_min,
           elementwise_mod,
           elementwise_mul,
           elementwise_pow,
           elementwise_sub,
           logical_and,
           logical_not,
           logical_or,
           logical_xor,
           matmul,
           mean,
           mul,
           reduce_all,
           reduce_any,
           reduce_max,
           reduce_mean,
           reduce_min,
           reduce_prod,
           reduce_sum,
           scale,
           sign,
           sum,
)
from ...layers.metric import topk
from ...layers.norm import batch_norm, group_norm, instance_norm, l2_normalize, layer_norm, lrn
from ...layers.random import gaussian_random, randint, uniform_random
from ...layers.select import (
           clip_by_norm,
           crop,
           crop_tensor,
           expand_as,
           gaussian_random_batch_size_like,
           get_tensor_from_selected_rows,
           index_sample,
           merge_selected_rows,
           meshgrid,
           multiplex,
           nonzero,
           pad_constant_like,
           randn,
           randperm,
           sampling_id,
           scatter_nd,
           shard_index,
           uniform_random_batch_size_like,
           unique,
           unique_with_counts,
)
from ...static.extras import py_func

__all__ = ['addcmul', 'addmm', 'allclose', 'autoincreased_step_counter', 'batch_norm', 'bmm', 'brelu', 'clamp', 'clip',
           'clip_by_norm', 'conv2d', 'conv2d_transpose', 'crop', 'crop_tensor', 'cross', 'diag_embed', 'dist', 'dot',
           'dropout', 'elementwise_add', 'elementwise_div', 'elementwise_equal', 'elementwise_floordiv',
           'elementwise_max', 'elementwise_min', 'elementwise_mod', 'elementwise_mul', 'elementwise_pow',
           'elementwise_sub', 'elu', 'embedding', 'expand', 'expand_as', 'fc', 'flatten', 'flip', 'gather', 'gather_nd',
           'gaussian_random', 'gaussian_random_batch_size_like', 'get_tensor_from_selected_rows', 'group_norm',
           'hard_sigmoid', 'hard_swish', 'image_resize', 'index_sample', 'index_select', 'instance_norm',
           'l2_normalize', 'label_smooth', 'layer_norm', 'leaky_relu', 'log', 'log1p', 'log_loss', 'log_softmax',
           'logical_and', 'logical_not', 'logical_or', 'logical_xor', 'logsumexp', 'lrn', 'matmul', 'maxout', 'mean',
           'merge_selected_rows', 'meshgrid', 'mish', 'mul', 'multiplex', 'nonzero', 'one_hot', 'pad', 'pad2d',
           'pad_constant_like', 'pixel_shuffle', 'pool2d', 'pow', 'prelu', 'py_func', 'randint', 'randn', 'randperm',
           'rank', 'reduce_all', 'reduce_any', 'reduce_max', 'reduce_mean', 'reduce_min', 'reduce_prod', 'reduce_sum',
           'relu', 'relu6', 'reshape', 'resize_bilinear', 'resize_nearest', 'roll', 'sampling_id', 'scale', 'scatter',
           'scatter_nd', 'scatter_nd_add', 'selu', 'shape', 'shard_index', 'sign', 'size', 'slice', 'smooth_l1',
           'soft_relu', 'softmax', 'split', 'squeeze', 'stack', 'stanh', 'strided_slice', 'sum', 'swish', 't', 'topk',
           'transpose', 'uniform_random', 'uniform_random_batch_size_like', 'unique', 'unique_with_counts', 'unsqueeze',
           'unstack', 'where']
