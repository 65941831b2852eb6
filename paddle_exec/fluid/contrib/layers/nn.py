"""fluid.contrib.layers.nn (Paddle 1.8's module path): the contributed layers paddle_exec implements
(paddle_exec/layers/contrib.py). The LoD ones (fused_embedding_seq_pool, match_matrix_tensor,
sequence_topk_avg_pooling, var_conv_2d, search_pyramid_hash) belong to issue 11; shuffle_batch,
rank_attention, tree_conv and the tdm samplers are not implemented yet."""
from ....layers.contrib import fused_elemwise_activation, partial_concat, partial_sum
from ....layers.detection import multiclass_nms2

__all__ = ['fused_elemwise_activation', 'multiclass_nms2', 'partial_concat', 'partial_sum']
