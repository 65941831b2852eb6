"""fluid.contrib.layers.nn (Paddle 1.8's module path): contributed layers. paddle_exec implements none of them yet:
the LoD ones (fused_embedding_seq_pool, match_matrix_tensor, sequence_topk_avg_pooling, var_conv_2d,
search_pyramid_hash) belong to issue 11, multiclass_nms2 to the detection layers."""

__all__ = []
