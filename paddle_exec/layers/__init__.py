"""The one implementation of every program builder (fluid 1.x signatures); the public packages (fluid/, static/,
nn/, tensor/, optimizer/) only map Paddle's names onto these modules.

The modules import downward only, from the bottom:

    checks        argument checks with Paddle's wording (imports only the IR)
    helper        LayerHelper: names, parameters, temporaries, appending ops
    casting       cast
    creation      fill_constant, assign, zeros / ones, create_*, range, linspace; the `...TensorList` arguments
    math          elementwise, matmul, reductions, comparisons, logical ops, sums, clip, cumsum, dot, bmm
    attribute     shape, size, rank, is_empty          random      randint, uniform_random, gaussian_random,
                                                       random_crop
    manipulation  reshape, transpose, squeeze, concat, split, stack, expand, flip, roll
    activation    relu, sigmoid, softmax, ..., log1p, erf, logsumexp
    indexing      slice, gather, scatter, where, argmax / argmin / argsort
    matrix        eye, tril, triu
    linalg        addcmul, addmm, allclose, cross, diag, diag_embed, dist, elementwise_equal, kron, t, trace
    select        index_sample, multiplex, shard_index, scatter_nd, nonzero, unique, meshgrid, expand_as, crop,
                  crop_tensor, pad_constant_like, full, full_like, randn, randperm, sampling_id, the
                  *_batch_size_like fills, clip_by_norm
    common, conv, conv3d, deform_conv, norm, image, vision, linear_maps, loss, metric, io
                                                   the nn layers, losses, metrics and data layers
    sequence      the sequence (LoD) layers: sequence_pool, sequence_conv, ..., lod_reset, lod_append
    detection     boxes, priors, anchors, YOLO decoding, NMS, RoI align / pool
    detection_targets   the detection training builders: target_assign, ssd_loss, yolov3_loss
    sparse        SelectedRows: merge_selected_rows, get_tensor_from_selected_rows
    features      similarity_focus, hash, fsp_matrix, filter_by_instag
    position_sensitive  psroi_pool, prroi_pool, deformable_roi_pooling     im2sequence   im2sequence
    contrib       fluid.contrib's partial_concat, partial_sum, fused_elemwise_activation
    contrib_rec   fluid.contrib's tdm_child, shuffle_batch, fused_embedding_seq_pool, sequence_topk_avg_pooling,
                  match_matrix_tensor          contrib_conv  var_conv_2d, tree_conv
    encoding      add_position_encoding, continuous_value_model
    loss_ranking, loss_sampled, loss_classification   the other losses (rank, nce, hsigmoid, center, focal, ...)
                                                      and the sequence metrics edit_distance / chunk_eval
    control_flow, learning_rate, distributions     the builders made of the ones above

`Variable`'s operators (`x + y`, `x[1:]`) are not builders: they live with Variable (framework/variable_ops.py).
"""
