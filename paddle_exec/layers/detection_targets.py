"""fluid.layers.detection's training builders (fluid 1.8 signatures): yolov3_loss (one op, ops/yolov3_loss.py),
generate_proposals (ops/proposals.py), rpn_target_assign, retinanet_target_assign and
generate_proposal_labels (ops/rpn_targets.py), generate_mask_labels (ops/mask_labels.py),
target_assign, and ssd_loss, which chains
iou_similarity, bipartite_match, target_assign, softmax_with_cross_entropy, mine_hard_examples, box_coder and
smooth_l1 exactly as Paddle 1.8's ssd_loss does (the same ops in the same order, so the same numbers and the same
gradients into location and confidence). The ops are ops/detection_targets.py and ops/detection.py.
"""
from __future__ import annotations

from ..framework.variable import Variable
from .attribute import shape
from .casting import cast
from .checks import check_variable_and_dtype
from .detection import bipartite_match, box_coder, iou_similarity
from .helper import LayerHelper
from .indexing import gather, slice
from .loss import smooth_l1, softmax_with_cross_entropy
from .manipulation import flatten, reshape
from .math import reduce_sum

__all__ = ['target_assign', 'ssd_loss', 'yolov3_loss', 'generate_proposals', 'rpn_target_assign',
           'retinanet_target_assign', 'generate_proposal_labels',
           'generate_mask_labels']


def target_assign(input, matched_indices, negative_indices=None, mismatch_value=None, name=None):
    """(out [N, P, K], out_weight [N, P, 1] float32): the rows of the LoD input `input` [M, P, K] picked per
    instance by matched_indices [N, P] (mismatch_value where -1, weight 0), then the negative_indices of each
    instance set to mismatch_value with weight 1."""
    helper = LayerHelper('target_assign', name=name)
    out = helper.create_variable_for_type_inference(dtype=input.dtype)
    out_weight = helper.create_variable_for_type_inference(dtype='float32')
    helper.append_op(type='target_assign',
                     inputs={'X': input, 'MatchIndices': matched_indices, 'NegIndices': negative_indices},
                     outputs={'Out': out, 'OutWeight': out_weight}, attrs={'mismatch_value': mismatch_value})
    return out, out_weight


def ssd_loss(location, confidence, gt_box, gt_label, prior_box, prior_box_var=None, background_label=0,
             overlap_threshold=0.5, neg_pos_ratio=3.0, neg_overlap=0.5, loc_loss_weight=1.0, conf_loss_weight=1.0,
             match_type='per_prediction', mining_type='max_negative', normalize=True, sample_size=None):
    """SSD's multibox loss [N, 1] (per image, divided by the number of matched priors when `normalize`) of location
    [N, Np, 4] and confidence [N, Np, C] against the LoD ground truth gt_box [Ng, 4] / gt_label [Ng, 1]."""
    helper = LayerHelper('ssd_loss')
    if mining_type != 'max_negative':
        raise ValueError("Only support mining_type == max_negative now.")
    conf_shape = shape(confidence)

    def to_2d(var):
        return flatten(x=var, axis=2)

    # 1. match the priors to the ground truth
    iou = iou_similarity(x=gt_box, y=prior_box)
    matched_indices, matched_dist = bipartite_match(iou, match_type, overlap_threshold)
    # 2. the confidence loss the hard negatives are mined by
    gt_label = reshape(x=gt_label, shape=(len(gt_label.shape) - 1) * (0,) + (-1, 1))
    gt_label.stop_gradient = True
    target_label, _ = target_assign(gt_label, matched_indices, mismatch_value=background_label)
    confidence = to_2d(confidence)
    target_label = to_2d(cast(x=target_label, dtype='int64'))
    target_label.stop_gradient = True
    conf_loss = softmax_with_cross_entropy(confidence, target_label)
    # 3. hard example mining
    actual_shape = slice(conf_shape, axes=[0], starts=[0], ends=[2])
    actual_shape.stop_gradient = True
    conf_loss = reshape(x=conf_loss, shape=(-1, 0), actual_shape=actual_shape)
    conf_loss.stop_gradient = True
    neg_indices = helper.create_variable_for_type_inference(dtype='int32')
    updated_matched_indices = helper.create_variable_for_type_inference(dtype=matched_indices.dtype)
    helper.append_op(type='mine_hard_examples',
                     inputs={'ClsLoss': conf_loss, 'LocLoss': None, 'MatchIndices': matched_indices,
                             'MatchDist': matched_dist},
                     outputs={'NegIndices': neg_indices, 'UpdatedMatchIndices': updated_matched_indices},
                     attrs={'neg_pos_ratio': neg_pos_ratio, 'neg_dist_threshold': neg_overlap,
                            'mining_type': mining_type, 'sample_size': sample_size})
    # 4. regression and classification targets
    encoded_bbox = box_coder(prior_box=prior_box, prior_box_var=prior_box_var, target_box=gt_box,
                             code_type='encode_center_size')
    target_bbox, target_loc_weight = target_assign(encoded_bbox, updated_matched_indices,
                                                   mismatch_value=background_label)
    target_label, target_conf_weight = target_assign(gt_label, updated_matched_indices, negative_indices=neg_indices,
                                                     mismatch_value=background_label)
    # 5. the weighted losses
    target_label = cast(x=to_2d(target_label), dtype='int64')
    conf_loss = softmax_with_cross_entropy(confidence, target_label)
    target_conf_weight = to_2d(target_conf_weight)
    conf_loss = conf_loss * target_conf_weight
    target_label.stop_gradient = True
    target_conf_weight.stop_gradient = True
    location = to_2d(location)
    target_bbox = to_2d(target_bbox)
    loc_loss = smooth_l1(location, target_bbox)
    target_loc_weight = to_2d(target_loc_weight)
    loc_loss = loc_loss * target_loc_weight
    target_bbox.stop_gradient = True
    target_loc_weight.stop_gradient = True
    loss = conf_loss_weight * conf_loss + loc_loss_weight * loc_loss
    loss = reshape(x=loss, shape=(-1, 0), actual_shape=actual_shape)
    loss = reduce_sum(loss, dim=1, keep_dim=True)
    if normalize:
        loss = loss / reduce_sum(target_loc_weight)
    return loss


def yolov3_loss(x, gt_box, gt_label, anchors, anchor_mask, class_num, ignore_thresh, downsample_ratio, gt_score=None,
                use_label_smooth=True, name=None, scale_x_y=1.):
    """YOLOv3's loss [N] of the head output x [N, M*(5+C), H, W] against gt_box [N, B, 4] (cx, cy, w, h relative
    to the image; zero-sized boxes are padding), gt_label [N, B] int32 and the optional mixup gt_score [N, B]."""
    helper = LayerHelper('yolov3_loss', name=name)
    if not isinstance(x, Variable):
        raise TypeError("Input x of yolov3_loss must be Variable")
    if not isinstance(gt_box, Variable):
        raise TypeError("Input gtbox of yolov3_loss must be Variable")
    if not isinstance(gt_label, Variable):
        raise TypeError("Input gtlabel of yolov3_loss must be Variable")
    if gt_score is not None and not isinstance(gt_score, Variable):
        raise TypeError("Input gtscore of yolov3_loss must be Variable")
    if not isinstance(anchors, (list, tuple)):
        raise TypeError("Attr anchors of yolov3_loss must be list or tuple")
    if not isinstance(anchor_mask, (list, tuple)):
        raise TypeError("Attr anchor_mask of yolov3_loss must be list or tuple")
    if not isinstance(class_num, int):
        raise TypeError("Attr class_num of yolov3_loss must be an integer")
    if not isinstance(ignore_thresh, float):
        raise TypeError("Attr ignore_thresh of yolov3_loss must be a float number")
    if not isinstance(use_label_smooth, bool):
        raise TypeError("Attr use_label_smooth of yolov3_loss must be a bool value")
    loss = helper.create_variable_for_type_inference(dtype=x.dtype)
    objectness_mask = helper.create_variable_for_type_inference(dtype='int32')
    gt_match_mask = helper.create_variable_for_type_inference(dtype='int32')
    inputs = {'X': x, 'GTBox': gt_box, 'GTLabel': gt_label}
    if gt_score is not None:
        inputs['GTScore'] = gt_score
    helper.append_op(type='yolov3_loss', inputs=inputs,
                     outputs={'Loss': loss, 'ObjectnessMask': objectness_mask, 'GTMatchMask': gt_match_mask},
                     attrs={'anchors': anchors, 'anchor_mask': anchor_mask, 'class_num': class_num,
                            'ignore_thresh': ignore_thresh, 'downsample_ratio': downsample_ratio,
                            'use_label_smooth': use_label_smooth, 'scale_x_y': scale_x_y})
    return loss


def generate_proposals(scores, bbox_deltas, im_info, anchors, variances, pre_nms_top_n=6000, post_nms_top_n=1000,
                       nms_thresh=0.5, min_size=0.1, eta=1.0, name=None, return_rois_num=False):
    """Faster R-CNN's RPN proposals: (rpn_rois [R, 4], rpn_roi_probs [R, 1]) as LoD tensors, one sequence per
    image, and with return_rois_num the RpnRoisLod output (Paddle 1.8.5 fills it with the cumulative counts)."""
    helper = LayerHelper('generate_proposals', name=name)
    check_variable_and_dtype(scores, 'scores', ['float32'], 'generate_proposals')
    check_variable_and_dtype(bbox_deltas, 'bbox_deltas', ['float32'], 'generate_proposals')
    check_variable_and_dtype(im_info, 'im_info', ['float32', 'float64'], 'generate_proposals')
    check_variable_and_dtype(anchors, 'anchors', ['float32'], 'generate_proposals')
    check_variable_and_dtype(variances, 'variances', ['float32'], 'generate_proposals')
    rpn_rois = helper.create_variable_for_type_inference(dtype=bbox_deltas.dtype)
    rpn_roi_probs = helper.create_variable_for_type_inference(dtype=scores.dtype)
    rpn_rois_lod = helper.create_variable_for_type_inference(dtype='int32')
    helper.append_op(type='generate_proposals',
                     inputs={'Scores': scores, 'BboxDeltas': bbox_deltas, 'ImInfo': im_info, 'Anchors': anchors,
                             'Variances': variances},
                     attrs={'pre_nms_topN': pre_nms_top_n, 'post_nms_topN': post_nms_top_n,
                            'nms_thresh': nms_thresh, 'min_size': min_size, 'eta': eta},
                     outputs={'RpnRois': rpn_rois, 'RpnRoiProbs': rpn_roi_probs, 'RpnRoisLod': rpn_rois_lod})
    rpn_rois.stop_gradient = True
    rpn_roi_probs.stop_gradient = True
    rpn_rois_lod.stop_gradient = True
    if return_rois_num:
        return rpn_rois, rpn_roi_probs, rpn_rois_lod
    return rpn_rois, rpn_roi_probs


def rpn_target_assign(bbox_pred, cls_logits, anchor_box, anchor_var, gt_boxes, is_crowd, im_info,
                      rpn_batch_size_per_im=256, rpn_straddle_thresh=0.0, rpn_fg_fraction=0.5,
                      rpn_positive_overlap=0.7, rpn_negative_overlap=0.3, use_random=True):
    """RPN training targets: (predicted_scores [F + B, 1], predicted_location [F, 4], target_label [F + B, 1],
    target_bbox [F, 4], bbox_inside_weight [F, 4]) for the sampled foreground / background anchors of each image
    (gt_boxes and is_crowd are LoD tensors, one sequence per image)."""
    helper = LayerHelper('rpn_target_assign')
    check_variable_and_dtype(anchor_box, 'anchor_box', ['float32', 'float64'], 'rpn_target_assign')
    check_variable_and_dtype(anchor_var, 'anchor_var', ['float32', 'float64'], 'rpn_target_assign')
    check_variable_and_dtype(gt_boxes, 'gt_boxes', ['float32', 'float64'], 'rpn_target_assign')
    check_variable_and_dtype(is_crowd, 'is_crowd', ['int32'], 'rpn_target_assign')
    check_variable_and_dtype(im_info, 'im_info', ['float32', 'float64'], 'rpn_target_assign')
    loc_index = helper.create_variable_for_type_inference(dtype='int32')
    score_index = helper.create_variable_for_type_inference(dtype='int32')
    target_label = helper.create_variable_for_type_inference(dtype='int32')
    target_bbox = helper.create_variable_for_type_inference(dtype=anchor_box.dtype)
    bbox_inside_weight = helper.create_variable_for_type_inference(dtype=anchor_box.dtype)
    helper.append_op(type='rpn_target_assign',
                     inputs={'Anchor': anchor_box, 'GtBoxes': gt_boxes, 'IsCrowd': is_crowd, 'ImInfo': im_info},
                     outputs={'LocationIndex': loc_index, 'ScoreIndex': score_index, 'TargetLabel': target_label,
                              'TargetBBox': target_bbox, 'BBoxInsideWeight': bbox_inside_weight},
                     attrs={'rpn_batch_size_per_im': rpn_batch_size_per_im,
                            'rpn_straddle_thresh': rpn_straddle_thresh,
                            'rpn_positive_overlap': rpn_positive_overlap,
                            'rpn_negative_overlap': rpn_negative_overlap, 'rpn_fg_fraction': rpn_fg_fraction,
                            'use_random': use_random})
    for var in (loc_index, score_index, target_label, target_bbox, bbox_inside_weight):
        var.stop_gradient = True
    cls_logits = reshape(x=cls_logits, shape=(-1, 1))
    bbox_pred = reshape(x=bbox_pred, shape=(-1, 4))
    predicted_cls_logits = gather(cls_logits, score_index)
    predicted_bbox_pred = gather(bbox_pred, loc_index)
    return predicted_cls_logits, predicted_bbox_pred, target_label, target_bbox, bbox_inside_weight


def retinanet_target_assign(bbox_pred, cls_logits, anchor_box, anchor_var, gt_boxes, gt_labels, is_crowd, im_info,
                            num_classes=1, positive_overlap=0.5, negative_overlap=0.4):
    """RetinaNet training targets: (predicted_scores [F + B, num_classes], predicted_location [F, 4],
    target_label [F + B, 1], target_bbox [F, 4], bbox_inside_weight [F, 4], fg_num [N, 1]) for every foreground and
    background anchor of each image (gt_boxes, gt_labels, is_crowd are LoD tensors, one sequence per image)."""
    op = 'retinanet_target_assign'
    check_variable_and_dtype(bbox_pred, 'bbox_pred', ['float32', 'float64'], op)
    check_variable_and_dtype(cls_logits, 'cls_logits', ['float32', 'float64'], op)
    check_variable_and_dtype(anchor_box, 'anchor_box', ['float32', 'float64'], op)
    check_variable_and_dtype(anchor_var, 'anchor_var', ['float32', 'float64'], op)
    check_variable_and_dtype(gt_boxes, 'gt_boxes', ['float32', 'float64'], op)
    check_variable_and_dtype(gt_labels, 'gt_labels', ['int32'], op)
    check_variable_and_dtype(is_crowd, 'is_crowd', ['int32'], op)
    check_variable_and_dtype(im_info, 'im_info', ['float32', 'float64'], op)
    helper = LayerHelper(op)
    loc_index = helper.create_variable_for_type_inference(dtype='int32')
    score_index = helper.create_variable_for_type_inference(dtype='int32')
    target_label = helper.create_variable_for_type_inference(dtype='int32')
    target_bbox = helper.create_variable_for_type_inference(dtype=anchor_box.dtype)
    bbox_inside_weight = helper.create_variable_for_type_inference(dtype=anchor_box.dtype)
    fg_num = helper.create_variable_for_type_inference(dtype='int32')
    helper.append_op(type=op,
                     inputs={'Anchor': anchor_box, 'GtBoxes': gt_boxes, 'GtLabels': gt_labels, 'IsCrowd': is_crowd,
                             'ImInfo': im_info},
                     outputs={'LocationIndex': loc_index, 'ScoreIndex': score_index, 'TargetLabel': target_label,
                              'TargetBBox': target_bbox, 'BBoxInsideWeight': bbox_inside_weight,
                              'ForegroundNumber': fg_num},
                     attrs={'positive_overlap': positive_overlap, 'negative_overlap': negative_overlap})
    for var in (loc_index, score_index, target_label, target_bbox, bbox_inside_weight, fg_num):
        var.stop_gradient = True
    cls_logits = reshape(x=cls_logits, shape=(-1, num_classes))
    bbox_pred = reshape(x=bbox_pred, shape=(-1, 4))
    predicted_cls_logits = gather(cls_logits, score_index)
    predicted_bbox_pred = gather(bbox_pred, loc_index)
    return predicted_cls_logits, predicted_bbox_pred, target_label, target_bbox, bbox_inside_weight, fg_num


def generate_proposal_labels(rpn_rois, gt_classes, is_crowd, gt_boxes, im_info, batch_size_per_im=256,
                             fg_fraction=0.25, fg_thresh=0.25, bg_thresh_hi=0.5, bg_thresh_lo=0.0,
                             bbox_reg_weights=[0.1, 0.1, 0.2, 0.2], class_nums=None, use_random=True,
                             is_cls_agnostic=False, is_cascade_rcnn=False):
    """Fast R-CNN's sampled RoIs and their targets: (rois [R, 4], labels_int32 [R, 1], bbox_targets,
    bbox_inside_weights, bbox_outside_weights [R, 4 * class_nums]), LoD tensors with one sequence per image.
    is_cascade_rcnn=True gives Paddle 1.8.5's cascade output (ops/rpn_targets.py describes it)."""
    op = 'generate_proposal_labels'
    helper = LayerHelper(op)
    check_variable_and_dtype(rpn_rois, 'rpn_rois', ['float32', 'float64'], op)
    check_variable_and_dtype(gt_classes, 'gt_classes', ['int32'], op)
    check_variable_and_dtype(is_crowd, 'is_crowd', ['int32'], op)
    rois = helper.create_variable_for_type_inference(dtype=rpn_rois.dtype)
    labels_int32 = helper.create_variable_for_type_inference(dtype=gt_classes.dtype)
    bbox_targets = helper.create_variable_for_type_inference(dtype=rpn_rois.dtype)
    bbox_inside_weights = helper.create_variable_for_type_inference(dtype=rpn_rois.dtype)
    bbox_outside_weights = helper.create_variable_for_type_inference(dtype=rpn_rois.dtype)
    helper.append_op(type=op,
                     inputs={'RpnRois': rpn_rois, 'GtClasses': gt_classes, 'IsCrowd': is_crowd, 'GtBoxes': gt_boxes,
                             'ImInfo': im_info},
                     outputs={'Rois': rois, 'LabelsInt32': labels_int32, 'BboxTargets': bbox_targets,
                              'BboxInsideWeights': bbox_inside_weights, 'BboxOutsideWeights': bbox_outside_weights},
                     attrs={'batch_size_per_im': batch_size_per_im, 'fg_fraction': fg_fraction,
                            'fg_thresh': fg_thresh, 'bg_thresh_hi': bg_thresh_hi, 'bg_thresh_lo': bg_thresh_lo,
                            'bbox_reg_weights': bbox_reg_weights, 'class_nums': class_nums,
                            'use_random': use_random, 'is_cls_agnostic': is_cls_agnostic,
                            'is_cascade_rcnn': is_cascade_rcnn})
    for var in (rois, labels_int32, bbox_targets, bbox_inside_weights, bbox_outside_weights):
        var.stop_gradient = True
    return rois, labels_int32, bbox_targets, bbox_inside_weights, bbox_outside_weights


def generate_mask_labels(im_info, gt_classes, is_crowd, gt_segms, rois, labels_int32, num_classes, resolution):
    """Mask R-CNN's mask targets: (mask_rois [F, 4], roi_has_mask_int32 [F, 1], mask_int32
    [F, num_classes * resolution**2]) for the foreground RoIs of each image, from the ground-truth polygons gt_segms
    (a LoD tensor of three levels: objects per image, polygons per object, points per polygon)."""
    helper = LayerHelper('generate_mask_labels')
    mask_rois = helper.create_variable_for_type_inference(dtype=rois.dtype)
    roi_has_mask_int32 = helper.create_variable_for_type_inference(dtype=gt_classes.dtype)
    mask_int32 = helper.create_variable_for_type_inference(dtype=gt_classes.dtype)
    helper.append_op(type='generate_mask_labels',
                     inputs={'ImInfo': im_info, 'GtClasses': gt_classes, 'IsCrowd': is_crowd, 'GtSegms': gt_segms,
                             'Rois': rois, 'LabelsInt32': labels_int32},
                     outputs={'MaskRois': mask_rois, 'RoiHasMaskInt32': roi_has_mask_int32, 'MaskInt32': mask_int32},
                     attrs={'num_classes': num_classes, 'resolution': resolution})
    for var in (mask_rois, roi_has_mask_int32, mask_int32):
        var.stop_gradient = True
    return mask_rois, roi_has_mask_int32, mask_int32
