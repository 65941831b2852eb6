"""fluid.contrib.layers.nn (Paddle 1.8's module path): the contributed layers paddle_exec implements
(paddle_exec/layers/contrib.py, paddle_exec/layers/contrib_rec.py, ...)."""
from ....layers.contrib import fused_elemwise_activation, partial_concat, partial_sum
from ....layers.contrib_conv import tree_conv, var_conv_2d
from ....layers.contrib_rec import (
    fused_embedding_seq_pool,
    match_matrix_tensor,
    rank_attention,
    search_pyramid_hash,
    sequence_topk_avg_pooling,
    shuffle_batch,
    tdm_child,
    tdm_sampler,
)
from ....layers.detection import multiclass_nms2

__all__ = ['fused_elemwise_activation', 'fused_embedding_seq_pool', 'match_matrix_tensor', 'multiclass_nms2',
           'partial_concat', 'partial_sum', 'rank_attention', 'search_pyramid_hash', 'sequence_topk_avg_pooling',
           'shuffle_batch', 'tdm_child', 'tdm_sampler', 'tree_conv', 'var_conv_2d']
