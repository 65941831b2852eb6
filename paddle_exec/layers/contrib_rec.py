"""fluid.contrib.layers' recommendation and text-matching builders: tdm_child, tdm_sampler, shuffle_batch,
fused_embedding_seq_pool, sequence_topk_avg_pooling, match_matrix_tensor, rank_attention (ops/contrib_rec.py) and
search_pyramid_hash (ops/pyramid_hash.py), with Paddle 1.8's parameters, inputs and attributes."""
from __future__ import annotations

import numpy as np

from ..framework import unique_name
from ..framework.dtype import convert_dtype, to_var_type
from ..framework.variable import Variable
from ..initializer import ConstantInitializer
from .helper import LayerHelper
from .indexing import slice as slice_
from .manipulation import reshape

__all__ = ['tdm_child', 'tdm_sampler', 'shuffle_batch', 'fused_embedding_seq_pool', 'sequence_topk_avg_pooling',
           'match_matrix_tensor', 'rank_attention', 'search_pyramid_hash']


def tdm_child(x, node_nums, child_nums, param_attr=None, dtype='int32'):
    """(child, leaf_mask): the children of each node id of x in the tree parameter TreeInfo ([node_nums,
    3 + child_nums]: item_id, layer_id, parent_id, children), and 1 where a child is an item."""
    if convert_dtype(dtype) not in ('int32', 'int64'):
        raise TypeError("The data type of 'dtype' in fluid.contrib.layers.tdm_child must be ['int32', 'int64'], "
                        "but received %s." % convert_dtype(dtype))
    helper = LayerHelper('tdm_child')
    tree_info = helper.create_parameter(attr=param_attr, shape=[node_nums, 3 + child_nums], dtype=dtype,
                                        default_initializer=ConstantInitializer(0))
    tree_info.stop_gradient = True
    child = helper.create_variable_for_type_inference(dtype=dtype)
    leaf_mask = helper.create_variable_for_type_inference(dtype=dtype)
    helper.append_op(type='tdm_child', inputs={'X': [x], 'TreeInfo': [tree_info]},
                     outputs={'Child': [child], 'LeafMask': [leaf_mask]},
                     attrs={'child_nums': child_nums, 'dtype': int(to_var_type(dtype))})
    child.stop_gradient = leaf_mask.stop_gradient = True
    return child, leaf_mask


def tdm_sampler(x, neg_samples_num_list, layer_node_num_list, leaf_node_num, tree_travel_attr=None,
                tree_layer_attr=None, output_positive=True, output_list=True, seed=0, tree_dtype='int32',
                dtype='int32'):
    """(out, labels, mask): for each leaf id of x, per tree layer its ancestor (label 1, unless
    output_positive=False) and neg_samples_num_list[l] other nodes of the layer (label 0); with output_list one
    [N, samples, 1] tensor per layer, else [N, all samples]. The tree is two int parameters: Travel [leaves,
    layers] and Layer [nodes, 1]."""
    for value, arg in ((tree_dtype, 'tree_dtype'), (dtype, 'dtype')):
        if convert_dtype(value) not in ('int32', 'int64'):
            raise TypeError("The data type of '%s' in fluid.contrib.layers.tdm_sampler must be ['int32', 'int64'], "
                            "but received %s." % (arg, convert_dtype(value)))
    if len(neg_samples_num_list) != len(layer_node_num_list):
        raise ValueError('The shape of negative samples list must match the shape of layers. But received len of '
                         'neg_samples_num_list: {},and len of layer_node_num_list: {}, please check your input.'
                         .format(len(neg_samples_num_list), len(layer_node_num_list)))
    if leaf_node_num is None:
        raise ValueError('leaf_node_num should not be None here.')
    offsets = [0]
    for idx, nodes in enumerate(layer_node_num_list):
        offsets.append(offsets[-1] + nodes)
        if neg_samples_num_list[idx] >= nodes:
            raise ValueError('The number of negative samples must be less than the number of nodes in the layer {}, '
                             'But received negative nums {}, and num of node at layer {} is {}, please check your '
                             'input.'.format(idx, neg_samples_num_list[idx], idx, nodes))
    if leaf_node_num >= offsets[-1]:
        raise ValueError('leaf_node_num must be less than total node nums.')
    helper = LayerHelper('tdm_sampler')
    travel = helper.create_parameter(attr=tree_travel_attr, shape=[leaf_node_num, len(layer_node_num_list)],
                                     dtype=tree_dtype, default_initializer=ConstantInitializer(0))
    layer = helper.create_parameter(attr=tree_layer_attr, shape=[offsets[-1], 1], dtype=tree_dtype,
                                    default_initializer=ConstantInitializer(0))
    out, labels, mask = (helper.create_variable_for_type_inference(dtype=dtype, stop_gradient=True) for _ in range(3))
    helper.append_op(type='tdm_sampler', inputs={'X': [x], 'Travel': [travel], 'Layer': [layer]},
                     outputs={'Out': [out], 'Labels': [labels], 'Mask': [mask]},
                     attrs={'neg_samples_num_list': list(neg_samples_num_list), 'output_positive': output_positive,
                            'layer_offset_lod': offsets, 'seed': seed, 'dtype': int(to_var_type(dtype))})
    if not output_list:
        return out, labels, mask
    lists = ([], [], [])
    start, flag = 0, 1 if output_positive else 0
    for neg in neg_samples_num_list:
        end = start + neg + flag
        for target, value in zip(lists, (out, labels, mask)):
            part = reshape(slice_(value, axes=[1], starts=[start], ends=[end]), [-1, neg + flag, 1])
            part.stop_gradient = True
            target.append(part)
        start = end
    return lists


def shuffle_batch(x, seed=None):
    """The rows of x (as [-1, last dim]) in a random order; `seed` an int (kept in a persistable
    `shuffle_batch_seed` variable the op advances; default the program's random_seed, else a random one) or an int64
    Variable. The startup program sets the seed variable to the int (Paddle's kernel reads `startup_seed` while the
    variable is uninitialized: the same draws)."""
    helper = LayerHelper('shuffle_batch')
    out = helper.create_variable_for_type_inference(dtype=x.dtype)
    shuffle_idx = helper.create_variable_for_type_inference(dtype=np.int64)
    if seed is None and helper.main_program.random_seed != 0:
        seed = helper.main_program.random_seed
    if seed is None:
        seed = int(np.random.randint(-65536, 65535))
    attrs = {}
    if isinstance(seed, int):
        attrs['startup_seed'] = seed
        seed_value = seed
        seed = helper.create_variable(name=unique_name.generate('shuffle_batch_seed'), dtype='int64',
                                      persistable=True, shape=[1])
        helper.set_variable_initializer(seed, ConstantInitializer(float(seed_value)))
    elif not isinstance(seed, Variable):
        raise ValueError("'seed' must be a Variable or an int.")
    helper.append_op(type='shuffle_batch', inputs={'X': [x], 'Seed': [seed]},
                     outputs={'Out': [out], 'ShuffleIdx': [shuffle_idx], 'SeedOut': [seed]}, attrs=attrs)
    return out


def fused_embedding_seq_pool(input, size, is_sparse=False, padding_idx=None, combiner='sum',  # noqa: A002
                             param_attr=None, dtype='float32'):
    """[sequences, size[1]]: the embedding rows of each sequence of the LoD ids `input` summed (one op); a
    negative padding_idx counts from the vocabulary's end."""
    helper = LayerHelper('fused_embedding_seq_pool')
    w = helper.create_parameter(attr=param_attr, shape=size, dtype=dtype, is_bias=False)
    out = helper.create_variable_for_type_inference(dtype)
    padding_idx = -1 if padding_idx is None else padding_idx if padding_idx >= 0 else size[0] + padding_idx
    helper.append_op(type='fused_embedding_seq_pool', inputs={'Ids': [input], 'W': [w]}, outputs={'Out': [out]},
                     attrs={'is_sparse': is_sparse, 'combiner': combiner, 'padding_idx': padding_idx})
    return out


def sequence_topk_avg_pooling(input, row, col, topks, channel_num):  # noqa: A002 - Paddle's argument name
    """[rows, channel_num * len(topks)]: per row of each channel of the match matrices in `input` (LoD; row and
    col give each sequence's rows and columns as LoD), the averages of its top-k values for each k of topks."""
    helper = LayerHelper('sequence_topk_avg_pooling')
    out = helper.create_variable_for_type_inference(dtype=input.dtype)
    pos = helper.create_variable_for_type_inference(dtype=input.dtype, stop_gradient=True)
    helper.append_op(type='sequence_topk_avg_pooling', inputs={'X': [input], 'ROW': [row], 'COLUMN': [col]},
                     outputs={'Out': [out], 'pos': [pos]}, attrs={'topks': list(topks), 'channel_num': channel_num})
    return out


def match_matrix_tensor(x, y, channel_num, act=None, param_attr=None, dtype='float32', name=None):
    """(out, tmp): the channel_num match matrices x_b W_t y_b^T of each pair of sequences of the LoD inputs x and
    y (W the [x width, channel_num, y width] parameter), flattened into a LoD [-1, 1] tensor, then `act`."""
    helper = LayerHelper('match_matrix_tensor', name=name, act=act)
    w = helper.create_parameter(attr=param_attr, shape=[x.shape[1], channel_num, y.shape[1]], dtype=dtype,
                                is_bias=False)
    mm_res = helper.create_variable_for_type_inference(dtype)
    tmp_res = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op(type='match_matrix_tensor', inputs={'X': [x], 'Y': [y], 'W': [w]},
                     outputs={'Out': [mm_res], 'Tmp': [tmp_res]}, attrs={'dim_t': channel_num})
    return helper.append_activation(mm_res), tmp_res


def rank_attention(input, rank_offset, rank_param_shape, rank_param_attr, max_rank=3):  # noqa: A002
    """[N, rank_param_shape[1]]: each instance's rank-aware attention over the instances rank_offset names, through
    the parameter RankParam (rank_param_shape = [D * max_rank^2, cols])."""
    helper = LayerHelper('rank_attention')
    if input.shape[1] * max_rank * max_rank != rank_param_shape[0]:
        raise ValueError('rank_attention: rank_param_shape[0] must be input.shape[1] * max_rank * max_rank = %d, '
                         'got %d' % (input.shape[1] * max_rank * max_rank, rank_param_shape[0]))
    rank_param = helper.create_parameter(attr=rank_param_attr, shape=rank_param_shape, dtype=input.dtype)
    rank_param.stop_gradient = False
    output = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op(type='rank_attention', inputs={'X': [input], 'RankOffset': [rank_offset],
                                                    'RankParam': [rank_param]},
                     outputs={'Out': [output]}, attrs={'MaxRank': max_rank})
    return output


def search_pyramid_hash(input, num_emb, space_len, pyramid_layer, rand_len, drop_out_percent,  # noqa: A002
                        is_training, use_filter, white_list_len, black_list_len, seed, lr, param_attr=None,
                        param_attr_wl=None, param_attr_bl=None, name=None, distribute_update_vars=None,
                        dtype='float32'):
    """LoD [rows, num_emb]: the hashed embeddings of the n-grams (n = 2..pyramid_layer) of each sequence of the
    int32 LoD ids `input`, from the weight [space_len + rand_len, 1] (rand_len values per hash); white/black bloom
    filters ([*_list_len, 1] parameters) keep or drop n-grams when use_filter; in training n-grams are dropped
    with probability drop_out_percent (glibc rand_r from `seed`), else the output is scaled by it. The weight's
    update is the op's own (lr), not the optimizer's. Paddle also creates an empty [0, 1] BlackList parameter for
    black_list_len 0 (the op ignores it); here parameters have positive sizes, so there is none. Without
    white_list_len > 0 there is no WhiteList; Paddle 1.8.5 then fails to build the op ("Input WhiteList not
    found"), this op runs without the filter."""
    helper = LayerHelper('search_pyramid_hash', **locals())
    w = helper.create_parameter(attr=param_attr, shape=[space_len + rand_len, 1], dtype=dtype, is_bias=False)
    w.stop_gradient = True
    input_vars = {'X': input, 'W': w}
    if white_list_len > 0:
        white_list = helper.create_parameter(attr=param_attr_wl, shape=[white_list_len, 1], dtype=dtype,
                                             is_bias=False)
        white_list.stop_gradient = True
        input_vars['WhiteList'] = white_list
    if black_list_len > 0:
        black_list = helper.create_parameter(attr=param_attr_bl, shape=[black_list_len, 1], dtype=dtype,
                                             is_bias=False)
        black_list.stop_gradient = True
        input_vars['BlackList'] = black_list
    update_vars = ''
    if distribute_update_vars:
        assert isinstance(distribute_update_vars, list)
        known = [attr.name for attr in (param_attr, param_attr_wl, param_attr_bl) if attr]
        for param in distribute_update_vars:
            if param not in known:
                raise ValueError('Pyramid Hash layer didn\'t have parameter {}'.format(param))
        update_vars = ','.join(distribute_update_vars)
    res = helper.create_variable_for_type_inference(dtype)
    drop_pos = helper.create_variable_for_type_inference(dtype)
    x_temp_out = helper.create_variable_for_type_inference(dtype)
    helper.append_op(type='pyramid_hash', inputs=input_vars,
                     outputs={'Out': res, 'X_Temp_Out': x_temp_out, 'DropPos': drop_pos},
                     attrs={'num_emb': num_emb, 'space_len': space_len, 'pyramid_layer': pyramid_layer,
                            'rand_len': rand_len, 'drop_out_percent': drop_out_percent, 'is_training': is_training,
                            'use_filter': use_filter, 'white_list_len': white_list_len,
                            'black_list_len': black_list_len, 'seed': seed, 'lr': lr,
                            'distribute_update_vars': update_vars})
    return res
