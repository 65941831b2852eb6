"""The one implementation of every program builder (fluid 1.x signatures); the public packages (fluid/, static/,
nn/, tensor/, optimizer/) only map Paddle's names onto these modules.

The modules import downward only, from the bottom:

    checks        argument checks with Paddle's wording (imports only the IR)
    helper        LayerHelper: names, parameters, temporaries, appending ops
    casting       cast
    creation      fill_constant, assign, zeros / ones, create_*, range, linspace; the `...TensorList` arguments
    math          elementwise, matmul, reductions, comparisons, logical ops, sums, clip, cumsum, dot, bmm
    attribute     shape, size, rank, is_empty          random      randint, uniform_random, gaussian_random
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
    sparse        SelectedRows: merge_selected_rows, get_tensor_from_selected_rows
    contrib       fluid.contrib's partial_concat, partial_sum, fused_elemwise_activation
    encoding      add_position_encoding, continuous_value_model
    loss_ranking, loss_sampled, loss_classification   the other losses (rank, nce, hsigmoid, center, focal, ...)
                                                      and the sequence metrics edit_distance / chunk_eval
    control_flow, learning_rate, distributions     the builders made of the ones above

`Variable`'s operators (`x + y`, `x[1:]`) are not builders: they live with Variable (framework/variable_ops.py).
"""
