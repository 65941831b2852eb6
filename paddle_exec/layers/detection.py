"""Detection builders (fluid 1.x signatures): iou_similarity, box_coder, prior_box, density_prior_box,
anchor_generator, yolo_box, box_clip, polygon_box_transform, multiclass_nms (fluid.layers.detection), and
roi_align / roi_pool (fluid.layers.nn). Each appends the op of ops/detection.py with Paddle 1.8's inputs,
attributes and output names; the argument checks use Paddle's wording.
"""
from __future__ import annotations

from ..framework.dtype import VarType
from ..framework.variable import Variable
from .activation import softmax
from .checks import check_variable_and_dtype
from .conv import conv2d
from .helper import LayerHelper
from .manipulation import concat, flatten, reshape, transpose

__all__ = ['iou_similarity', 'box_coder', 'prior_box', 'density_prior_box', 'anchor_generator', 'yolo_box',
           'box_clip', 'polygon_box_transform', 'multiclass_nms', 'roi_align', 'roi_pool', 'bipartite_match',
           'detection_output', 'box_decoder_and_assign', 'multi_box_head', 'matrix_nms',
           'multiclass_nms2']


def _as_list(value, name: str) -> list:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, (int, float)):
        return [value]
    raise TypeError('%s must be a list, tuple or number, got %s' % (name, type(value).__name__))


def iou_similarity(x, y, box_normalized=True, name=None):
    """[N, M] IoU of the boxes of x [N, 4] with those of y [M, 4]."""
    helper = LayerHelper('iou_similarity', name=name)
    out = helper.create_variable_for_type_inference(dtype=x.dtype)
    helper.append_op(type='iou_similarity', inputs={'X': x, 'Y': y}, outputs={'Out': out},
                     attrs={'box_normalized': box_normalized})
    return out


def box_coder(prior_box, prior_box_var, target_box, code_type='encode_center_size', box_normalized=True,
              name=None, axis=0):
    """Encodes target boxes against prior boxes or decodes offsets into boxes; prior_box_var is a Variable
    [M, 4] or a list of 4 variances (the `variance` attribute)."""
    check_variable_and_dtype(prior_box, 'prior_box', ['float32', 'float64'], 'box_coder')
    check_variable_and_dtype(target_box, 'target_box', ['float32', 'float64'], 'box_coder')
    helper = LayerHelper('box_coder', name=name)
    output_box = helper.create_variable_for_type_inference(dtype=prior_box.dtype)
    inputs = {'PriorBox': prior_box, 'TargetBox': target_box}
    attrs = {'code_type': code_type, 'box_normalized': box_normalized, 'axis': axis}
    if isinstance(prior_box_var, Variable):
        inputs['PriorBoxVar'] = prior_box_var
    elif isinstance(prior_box_var, (list, tuple)):
        attrs['variance'] = [float(v) for v in prior_box_var]
    elif prior_box_var is not None:
        raise TypeError('Input variance of box_coder must be Variable or lisz')
    helper.append_op(type='box_coder', inputs=inputs, attrs=attrs, outputs={'OutputBox': output_box})
    return output_box


def _generator(op_type, input, image, attrs, name):
    helper = LayerHelper(op_type, name=name)
    boxes = helper.create_variable_for_type_inference(input.dtype)
    var = helper.create_variable_for_type_inference(input.dtype)
    inputs = {'Input': input} if image is None else {'Input': input, 'Image': image}
    outputs = {'Anchors': boxes, 'Variances': var} if op_type == 'anchor_generator' else \
        {'Boxes': boxes, 'Variances': var}
    helper.append_op(type=op_type, inputs=inputs, outputs=outputs, attrs=attrs)
    boxes.stop_gradient = True
    var.stop_gradient = True
    return boxes, var


def prior_box(input, image, min_sizes, max_sizes=None, aspect_ratios=[1.0], variance=[0.1, 0.1, 0.2, 0.2],
              flip=False, clip=False, steps=[0.0, 0.0], offset=0.5, name=None, min_max_aspect_ratios_order=False):
    """(boxes, variances) [H, W, num_priors, 4]: SSD prior boxes of the feature map `input` over `image`."""
    check_variable_and_dtype(input, 'input', ['uint8', 'int8', 'float32', 'float64'], 'prior_box')
    min_sizes = _as_list(min_sizes, 'min_sizes')
    max_sizes = _as_list(max_sizes, 'max_sizes')
    aspect_ratios = _as_list(aspect_ratios, 'aspect_ratios')
    if not (isinstance(steps, (list, tuple)) and len(steps) == 2):
        raise ValueError('steps should be a list or tuple with length 2, (step_width, step_height).')
    attrs = {'min_sizes': [float(v) for v in min_sizes], 'aspect_ratios': [float(v) for v in aspect_ratios],
             'variances': [float(v) for v in variance], 'flip': flip, 'clip': clip, 'step_w': float(steps[0]),
             'step_h': float(steps[1]), 'offset': float(offset),
             'min_max_aspect_ratios_order': min_max_aspect_ratios_order}
    if max_sizes and max_sizes[0] > 0:
        attrs['max_sizes'] = [float(v) for v in max_sizes]
    return _generator('prior_box', input, image, attrs, name)


def density_prior_box(input, image, densities=None, fixed_sizes=None, fixed_ratios=None,
                      variance=[0.1, 0.1, 0.2, 0.2], clip=False, steps=[0.0, 0.0], offset=0.5, flatten_to_2d=False,
                      name=None):
    """(boxes, variances): density x density shifted boxes per fixed size and ratio at each feature cell."""
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'density_prior_box')
    densities, fixed_sizes = _as_list(densities, 'densities'), _as_list(fixed_sizes, 'fixed_sizes')
    fixed_ratios = _as_list(fixed_ratios, 'fixed_ratios')
    if len(densities) != len(fixed_sizes):
        raise ValueError('densities and fixed_sizes length should be euqal.')
    if not (isinstance(steps, (list, tuple)) and len(steps) == 2):
        raise ValueError('steps should be a list or tuple with length 2, (step_width, step_height).')
    attrs = {'variances': [float(v) for v in variance], 'clip': clip, 'step_w': float(steps[0]),
             'step_h': float(steps[1]), 'offset': float(offset), 'densities': [int(d) for d in densities],
             'fixed_sizes': [float(v) for v in fixed_sizes], 'fixed_ratios': [float(v) for v in fixed_ratios],
             'flatten_to_2d': flatten_to_2d}
    return _generator('density_prior_box', input, image, attrs, name)


def anchor_generator(input, anchor_sizes=None, aspect_ratios=None, variance=[0.1, 0.1, 0.2, 0.2], stride=None,
                     offset=0.5, name=None):
    """(anchors, variances) [H, W, len(aspect_ratios) * len(anchor_sizes), 4]: Faster R-CNN anchors in pixels."""
    anchor_sizes = _as_list(anchor_sizes, 'anchor_sizes')
    aspect_ratios = _as_list(aspect_ratios, 'aspect_ratios')
    if not (isinstance(stride, (list, tuple)) and len(stride) == 2):
        raise ValueError('stride should be a list or tuple ', 'with length 2, (stride_width, stride_height).')
    attrs = {'anchor_sizes': [float(v) for v in anchor_sizes], 'aspect_ratios': [float(v) for v in aspect_ratios],
             'variances': [float(v) for v in variance], 'stride': [float(v) for v in stride],
             'offset': float(offset)}
    return _generator('anchor_generator', input, None, attrs, name)


def yolo_box(x, img_size, anchors, class_num, conf_thresh, downsample_ratio, clip_bbox=True, name=None,
             scale_x_y=1.0):
    """(boxes [N, M, 4], scores [N, M, class_num]) decoded from a YOLOv3 head; img_size [N, 2] int32 (h, w)."""
    helper = LayerHelper('yolo_box', name=name)
    if not isinstance(x, Variable):
        raise TypeError('Input x of yolo_box must be Variable')
    if not isinstance(img_size, Variable):
        raise TypeError('Input img_size of yolo_box must be Variable')
    if not isinstance(anchors, (list, tuple)):
        raise TypeError('Attr anchors of yolo_box must be list or tuple')
    if not isinstance(class_num, int):
        raise TypeError('Attr class_num of yolo_box must be an integer')
    if not isinstance(conf_thresh, float):
        raise TypeError('Attr ignore_thresh of yolo_box must be a float number')
    boxes = helper.create_variable_for_type_inference(dtype=x.dtype)
    scores = helper.create_variable_for_type_inference(dtype=x.dtype)
    helper.append_op(type='yolo_box', inputs={'X': x, 'ImgSize': img_size},
                     outputs={'Boxes': boxes, 'Scores': scores},
                     attrs={'anchors': [int(a) for a in anchors], 'class_num': class_num,
                            'conf_thresh': conf_thresh, 'downsample_ratio': downsample_ratio,
                            'clip_bbox': clip_bbox, 'scale_x_y': float(scale_x_y)})
    return boxes, scores


def box_clip(input, im_info, name=None):
    """Boxes clipped to their image (im_info rows: height, width, scale)."""
    check_variable_and_dtype(input, 'input_box', ['float32', 'float64'], 'box_clip')
    check_variable_and_dtype(im_info, 'im_info', ['float32', 'float64'], 'box_clip')
    helper = LayerHelper('box_clip', name=name)
    output = helper.create_variable_for_type_inference(dtype=input.dtype)
    helper.append_op(type='box_clip', inputs={'Input': input, 'ImInfo': im_info}, outputs={'Output': output})
    return output


def polygon_box_transform(input, name=None):
    """EAST geometry offsets to absolute quadrilateral coordinates."""
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'polygon_box_transform')
    helper = LayerHelper('polygon_box_transform', name=name)
    output = helper.create_variable_for_type_inference(dtype=input.dtype)
    helper.append_op(type='polygon_box_transform', inputs={'Input': input}, outputs={'Output': output})
    return output


def multiclass_nms(bboxes, scores, score_threshold, nms_top_k, keep_top_k, nms_threshold=0.3, normalized=True,
                   nms_eta=1.0, background_label=0, name=None):
    """[K, 6] rows (label, score, xmin, ymin, xmax, ymax) kept by per-class NMS, image after image."""
    check_variable_and_dtype(bboxes, 'BBoxes', ['float32', 'float64'], 'multiclass_nms')
    check_variable_and_dtype(scores, 'Scores', ['float32', 'float64'], 'multiclass_nms')
    helper = LayerHelper('multiclass_nms', name=name)
    output = helper.create_variable_for_type_inference(dtype=bboxes.dtype)
    helper.append_op(type='multiclass_nms', inputs={'BBoxes': bboxes, 'Scores': scores},
                     attrs={'background_label': background_label, 'score_threshold': score_threshold,
                            'nms_top_k': nms_top_k, 'nms_threshold': nms_threshold, 'nms_eta': nms_eta,
                            'keep_top_k': keep_top_k, 'normalized': normalized},
                     outputs={'Out': output})
    output.stop_gradient = True
    return output


def roi_align(input, rois, pooled_height=1, pooled_width=1, spatial_scale=1.0, sampling_ratio=-1, name=None,
              rois_lod=None):
    """[R, C, pooled_height, pooled_width]: bilinear RoI align; rois_lod (int64 LoD offsets of the RoIs over the
    images) is needed for a batch of more than one image."""
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'roi_align')
    check_variable_and_dtype(rois, 'rois', ['float32', 'float64'], 'roi_align')
    helper = LayerHelper('roi_align', name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    inputs = {'X': input, 'ROIs': rois}
    if rois_lod is not None:
        inputs['RoisLod'] = rois_lod
    helper.append_op(type='roi_align', inputs=inputs, outputs={'Out': out},
                     attrs={'pooled_height': pooled_height, 'pooled_width': pooled_width,
                            'spatial_scale': spatial_scale, 'sampling_ratio': sampling_ratio})
    return out


def roi_pool(input, rois, pooled_height=1, pooled_width=1, spatial_scale=1.0, rois_lod=None):
    """[R, C, pooled_height, pooled_width]: max over each bin of the rounded RoI."""
    check_variable_and_dtype(input, 'input', ['float32'], 'roi_pool')
    check_variable_and_dtype(rois, 'rois', ['float32'], 'roi_pool')
    helper = LayerHelper('roi_pool')
    out = helper.create_variable_for_type_inference(input.dtype)
    argmaxes = helper.create_variable_for_type_inference(dtype=VarType.INT64)
    inputs = {'X': input, 'ROIs': rois}
    if rois_lod is not None:
        inputs['RoisLod'] = rois_lod
    helper.append_op(type='roi_pool', inputs=inputs, outputs={'Out': out, 'Argmax': argmaxes},
                     attrs={'pooled_height': pooled_height, 'pooled_width': pooled_width,
                            'spatial_scale': spatial_scale})
    return out


def bipartite_match(dist_matrix, match_type=None, dist_threshold=None, name=None):
    """(match_indices [1, M] int32, match_distance [1, M]) of the distance matrix [N, M]."""
    helper = LayerHelper('bipartite_match', name=name)
    match_indices = helper.create_variable_for_type_inference(dtype='int32')
    match_distance = helper.create_variable_for_type_inference(dtype=dist_matrix.dtype)
    helper.append_op(type='bipartite_match', inputs={'DistMat': dist_matrix},
                     attrs={'match_type': match_type, 'dist_threshold': dist_threshold},
                     outputs={'ColToRowMatchIndices': match_indices, 'ColToRowMatchDist': match_distance})
    return match_indices, match_distance


def detection_output(loc, scores, prior_box, prior_box_var, background_label=0, nms_threshold=0.3, nms_top_k=400,
                     keep_top_k=200, score_threshold=0.01, nms_eta=1.0, return_index=False):
    """SSD's output: loc decoded against the priors (box_coder), scores softmaxed and transposed to [N, C, M],
    then multiclass_nms. return_index (multiclass_nms2's Index output) is not supported."""
    if return_index:
        raise NotImplementedError('detection_output(return_index=True) needs multiclass_nms2, which paddle_exec '
                                  'does not implement yet')
    helper = LayerHelper('detection_output')
    decoded_box = box_coder(prior_box=prior_box, prior_box_var=prior_box_var, target_box=loc,
                            code_type='decode_center_size')
    scores = transpose(softmax(input=scores), perm=[0, 2, 1])
    scores.stop_gradient = True
    nmsed_outs = helper.create_variable_for_type_inference(dtype=decoded_box.dtype)
    # Paddle 1.8 passes background_label 0 and nms_eta 1.0 whatever the arguments say; so does this
    helper.append_op(type='multiclass_nms', inputs={'Scores': scores, 'BBoxes': decoded_box},
                     outputs={'Out': nmsed_outs},
                     attrs={'background_label': 0, 'nms_threshold': nms_threshold, 'nms_top_k': nms_top_k,
                            'keep_top_k': keep_top_k, 'score_threshold': score_threshold, 'nms_eta': 1.0})
    nmsed_outs.stop_gradient = True
    return nmsed_outs


def box_decoder_and_assign(prior_box, prior_box_var, target_box, box_score, box_clip, name=None):
    """(decode_box [R, C*4], output_assign_box [R, 4]) as Faster R-CNN's per-class box decoding and assignment."""
    check_variable_and_dtype(prior_box, 'prior_box', ['float32', 'float64'], 'box_decoder_and_assign')
    check_variable_and_dtype(target_box, 'target_box', ['float32', 'float64'], 'box_decoder_and_assign')
    check_variable_and_dtype(box_score, 'box_score', ['float32', 'float64'], 'box_decoder_and_assign')
    helper = LayerHelper('box_decoder_and_assign', name=name)
    decoded_box = helper.create_variable_for_type_inference(dtype=prior_box.dtype)
    output_assign_box = helper.create_variable_for_type_inference(dtype=prior_box.dtype)
    helper.append_op(type='box_decoder_and_assign',
                     inputs={'PriorBox': prior_box, 'PriorBoxVar': prior_box_var, 'TargetBox': target_box,
                             'BoxScore': box_score},
                     attrs={'box_clip': box_clip},
                     outputs={'DecodeBox': decoded_box, 'OutputAssignBox': output_assign_box})
    return decoded_box, output_assign_box


def _check_per_layer(value, n: int, what: str) -> None:
    if not (isinstance(value, (list, tuple)) and len(value) == n):
        raise ValueError('%s should be list or tuple, and the length of inputs and %s should be the same.'
                         % (what, what))


def multi_box_head(inputs, image, base_size, num_classes, aspect_ratios, min_ratio=None, max_ratio=None,
                   min_sizes=None, max_sizes=None, steps=None, step_w=None, step_h=None, offset=0.5,
                   variance=[0.1, 0.1, 0.2, 0.2], flip=True, clip=False, kernel_size=1, pad=0, stride=1, name=None,
                   min_max_aspect_ratios_order=False):
    """SSD's head over several feature maps, as 1.8 builds it: per map a prior_box and two conv2d (box offsets and
    class scores) transposed to NHWC and flattened; returns (mbox_locs [N, P, 4], mbox_confs [N, P, num_classes],
    boxes [P, 4], variances [P, 4]) concatenated over the maps."""
    if not isinstance(inputs, (list, tuple)):
        raise ValueError('inputs should be a list or tuple.')
    num_layer = len(inputs)
    if num_layer <= 2:
        assert min_sizes is not None and max_sizes is not None
        assert len(min_sizes) == num_layer and len(max_sizes) == num_layer
    elif min_sizes is None and max_sizes is None:
        min_sizes, max_sizes = [], []
        step = int((max_ratio - min_ratio) // (num_layer - 2))
        for ratio in range(min_ratio, max_ratio + 1, step):
            min_sizes.append(base_size * ratio / 100.)
            max_sizes.append(base_size * (ratio + step) / 100.)
        min_sizes = [base_size * .10] + min_sizes
        max_sizes = [base_size * .20] + max_sizes
    if aspect_ratios:
        _check_per_layer(aspect_ratios, num_layer, 'aspect_ratios')
    if step_h is not None:
        _check_per_layer(step_h, num_layer, 'step_h')
    if step_w is not None:
        _check_per_layer(step_w, num_layer, 'step_w')
    if steps is not None:
        _check_per_layer(steps, num_layer, 'steps')
        step_w = step_h = steps
    mbox_locs, mbox_confs, box_results, var_results = [], [], [], []
    for i, input in enumerate(inputs):
        min_size = min_sizes[i] if isinstance(min_sizes[i], (list, tuple)) else [min_sizes[i]]
        max_size = max_sizes[i] if isinstance(max_sizes[i], (list, tuple)) else [max_sizes[i]]
        aspect_ratio = []
        if aspect_ratios is not None:
            aspect_ratio = aspect_ratios[i]
            if not isinstance(aspect_ratio, (list, tuple)):
                aspect_ratio = [aspect_ratio]
        step = [step_w[i] if step_w else 0.0, step_h[i] if step_w else 0.0]   # 1.8 tests step_w for both
        box, var = prior_box(input, image, min_size, max_size, aspect_ratio, variance, flip, clip, step, offset,
                             None, min_max_aspect_ratios_order)
        box_results.append(box)
        var_results.append(var)
        num_boxes = box.shape[2]
        for outputs, per_box in ((mbox_locs, 4), (mbox_confs, num_classes)):
            conv = conv2d(input=input, num_filters=num_boxes * per_box, filter_size=kernel_size, padding=pad,
                          stride=stride)
            outputs.append(flatten(transpose(conv, perm=[0, 2, 3, 1]), axis=1))
    if len(box_results) == 1:
        box, var = box_results[0], var_results[0]
        mbox_locs_concat, mbox_confs_concat = mbox_locs[0], mbox_confs[0]
    else:
        box = concat([flatten(b, axis=3) for b in box_results])
        var = concat([flatten(v, axis=3) for v in var_results])
        mbox_locs_concat = reshape(concat(mbox_locs, axis=1), shape=[0, -1, 4])
        mbox_confs_concat = reshape(concat(mbox_confs, axis=1), shape=[0, -1, num_classes])
    box.stop_gradient = True
    var.stop_gradient = True
    return mbox_locs_concat, mbox_confs_concat, box, var


def _nms_with_index(op_type, bboxes, scores, attrs, return_index, name):
    check_variable_and_dtype(bboxes, 'BBoxes', ['float32', 'float64'], op_type)
    check_variable_and_dtype(scores, 'Scores', ['float32', 'float64'], op_type)
    helper = LayerHelper(op_type, name=name)
    output = helper.create_variable_for_type_inference(dtype=bboxes.dtype)
    index = helper.create_variable_for_type_inference(dtype='int32')
    helper.append_op(type=op_type, inputs={'BBoxes': bboxes, 'Scores': scores}, attrs=attrs,
                     outputs={'Out': output, 'Index': index})
    output.stop_gradient = True
    index.stop_gradient = True
    return (output, index) if return_index else output


def matrix_nms(bboxes, scores, score_threshold, post_threshold, nms_top_k, keep_top_k, use_gaussian=False,
               gaussian_sigma=2.0, background_label=0, normalized=True, return_index=False, name=None):
    """Matrix NMS (SOLOv2): rows (label, decayed score, box), and with return_index the kept boxes' indices."""
    for value, what, types in ((score_threshold, 'score_threshold', float), (post_threshold, 'post_threshold', float),
                               (nms_top_k, 'nms_top_k', int), (keep_top_k, 'keep_top_k', int),
                               (normalized, 'normalized', bool), (use_gaussian, 'use_gaussian', bool),
                               (gaussian_sigma, 'gaussian_sigma', float), (background_label, 'background_label', int)):
        if not isinstance(value, types):
            raise TypeError("The type of '%s' in matrix_nms must be %s, but received %s. "
                            % (what, types, type(value)))
    attrs = {'background_label': background_label, 'score_threshold': score_threshold,
             'post_threshold': post_threshold, 'nms_top_k': nms_top_k, 'gaussian_sigma': gaussian_sigma,
             'use_gaussian': use_gaussian, 'keep_top_k': keep_top_k, 'normalized': normalized}
    return _nms_with_index('matrix_nms', bboxes, scores, attrs, return_index, name)


def multiclass_nms2(bboxes, scores, score_threshold, nms_top_k, keep_top_k, nms_threshold=0.3, normalized=True,
                    nms_eta=1., background_label=0, return_index=False, name=None):
    """multiclass_nms that can also return the kept boxes' indices in the flattened [N*M] boxes."""
    attrs = {'background_label': background_label, 'score_threshold': score_threshold, 'nms_top_k': nms_top_k,
             'nms_threshold': nms_threshold, 'nms_eta': nms_eta, 'keep_top_k': keep_top_k,
             'normalized': normalized}
    return _nms_with_index('multiclass_nms2', bboxes, scores, attrs, return_index, name)
