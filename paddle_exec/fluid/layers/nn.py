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
from ...layers.detection import roi_align, roi_pool
from ...layers.encoding import add_position_encoding, continuous_value_model
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
           index_sample,
           meshgrid,
           multiplex,
           nonzero,
           randn,
           randperm,
           sampling_id,
           scatter_nd,
           shard_index,
           uniform_random_batch_size_like,
           unique,
           unique_with_counts,
)
from ...layers.sequence import lod_append, lod_reset
from ...layers.sparse import get_tensor_from_selected_rows, merge_selected_rows
from ...static.extras import py_func

__all__ = ['addcmul', 'addmm', 'allclose', 'autoincreased_step_counter', 'batch_norm', 'bmm', 'brelu', 'clamp', 'clip',
           'clip_by_norm', 'conv2d', 'conv2d_transpose', 'crop', 'crop_tensor', 'cross', 'diag_embed', 'dist', 'dot',
           'dropout', 'elementwise_add', 'elementwise_div', 'elementwise_equal', 'elementwise_floordiv',
           'elementwise_max', 'elementwise_min', 'elementwise_mod', 'elementwise_mul', 'elementwise_pow',
           'elementwise_sub', 'elu', 'embedding', 'expand', 'expand_as', 'fc', 'flatten', 'flip', 'gather', 'gather_nd',
           'gaussian_random', 'gaussian_random_batch_size_like', 'group_norm',
           'hard_sigmoid', 'hard_swish', 'image_resize', 'index_sample', 'index_select', 'instance_norm',
           'l2_normalize', 'label_smooth', 'layer_norm', 'leaky_relu',
           'lod_append', 'lod_reset', 'log', 'log1p', 'log_loss', 'log_softmax',
           'logical_and', 'logical_not', 'logical_or', 'logical_xor', 'logsumexp', 'lrn', 'matmul', 'maxout', 'mean',
           'meshgrid', 'mish', 'mul', 'multiplex', 'nonzero', 'one_hot', 'pad', 'pad2d',
           'pixel_shuffle', 'pool2d', 'pow', 'prelu', 'py_func', 'randint', 'randn', 'randperm',
           'rank', 'reduce_all', 'reduce_any', 'reduce_max', 'reduce_mean', 'reduce_min', 'reduce_prod', 'reduce_sum',
           'relu', 'relu6', 'reshape', 'resize_bilinear', 'resize_nearest', 'roll', 'sampling_id', 'scale', 'scatter',
           'scatter_nd', 'scatter_nd_add', 'selu', 'shape', 'shard_index', 'sign', 'size', 'slice', 'smooth_l1',
           'soft_relu', 'softmax', 'split', 'squeeze', 'stack', 'stanh', 'strided_slice', 'sum', 'swish', 't', 'topk',
           'transpose', 'uniform_random', 'uniform_random_batch_size_like', 'unique', 'unique_with_counts', 'unsqueeze',
           'unstack', 'where']

# 3-D convolution and pooling, adaptive pooling, normalisation, resizing and vision layers (issue 12)
from ...layers.conv3d import adaptive_pool2d, adaptive_pool3d, conv3d, conv3d_transpose, pool3d  # noqa: E402

__all__ += ['adaptive_pool2d', 'adaptive_pool3d', 'conv3d', 'conv3d_transpose', 'pool3d']
from ...layers.norm import affine_channel, data_norm, inplace_abn, spectral_norm  # noqa: E402

__all__ += ['affine_channel', 'data_norm', 'inplace_abn', 'spectral_norm']
from ...layers.image import image_resize_short, interpolate, resize_trilinear  # noqa: E402

__all__ += ['image_resize_short', 'interpolate', 'resize_trilinear']
from ...layers.vision import (  # noqa: E402
           affine_grid,
           grid_sampler,
           shuffle_channel,
           space_to_depth,
           temporal_shift,
           unfold,
)

__all__ += ['affine_grid', 'grid_sampler', 'shuffle_channel', 'space_to_depth', 'temporal_shift', 'unfold']
from ...layers.image import pad_constant_like  # noqa: E402
from ...layers.linear_maps import bilinear_tensor_product, cos_sim, row_conv  # noqa: E402

__all__ += ['bilinear_tensor_product', 'cos_sim', 'pad_constant_like', 'row_conv']
from ...layers.deform_conv import deformable_conv  # noqa: E402

__all__ += ['deformable_conv']
__all__ += ['add_position_encoding', 'continuous_value_model', 'get_tensor_from_selected_rows',
            'merge_selected_rows', 'roi_align', 'roi_pool']
# losses and sequence metrics (issue 12, S3)
from ...layers.loss_classification import chunk_eval, dice_loss  # noqa: E402
from ...layers.metric import mean_iou  # noqa: E402

__all__ += ['chunk_eval', 'dice_loss', 'mean_iou']
