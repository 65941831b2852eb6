"""Detection ops (fluid.layers.detection, and roi_align / roi_pool of fluid.layers.nn), with Paddle 1.8's slots
and attributes; the numerics are kernels/detection.py, checked against Paddle 1.8.5 (tests/golden/api).

    iou_similarity         X [N,4], Y [M,4] -> Out [N,M]
    box_coder              PriorBox [M,4], PriorBoxVar [M,4] (or attr `variance`), TargetBox -> OutputBox:
                           encode_center_size ([N,4] -> [N,M,4]) or decode_center_size ([N,M,4] -> [N,M,4],
                           prior per column (axis 0) or per row (axis 1))
    prior_box, density_prior_box   Input [N,C,H,W], Image -> Boxes, Variances [H,W,P,4] (flatten_to_2d: [H*W*P,4])
    anchor_generator       Input -> Anchors, Variances [H,W,A,4]
    yolo_box               X [N,A*(5+C),H,W], ImgSize [N,2] int32 -> Boxes [N,A*H*W,4], Scores [N,A*H*W,C]
    box_clip               Input [N,M,4] (or [M,4]), ImInfo [N,3] -> Output
    polygon_box_transform  Input [N,C,H,W] -> Output
    multiclass_nms         BBoxes [N,M,4], Scores [N,C,M] -> Out [K,6] (label, score, box), the images' rows one
                           after the other (Paddle gives them as a LoD tensor; the LoD is not carried here);
                           multiclass_nms2 adds Index [K,1] (the kept boxes in the flattened N*M boxes)
    matrix_nms             the same slots as multiclass_nms2, boxes kept by Matrix NMS (kernels/nms.py)
    roi_align, roi_pool    X [N,C,H,W], ROIs [R,4], RoisLod (LoD offsets of the RoIs over the images; optional
                           for one image) -> Out [R,C,ph,pw] (roi_pool also Argmax). Both differentiable in X.

    bipartite_match        DistMat [N,M] -> ColToRowMatchIndices [1,M] int32, ColToRowMatchDist [1,M] (one instance:
                           the LoD of several is not carried)
    box_decoder_and_assign PriorBox [R,4], PriorBoxVar [4], TargetBox [R,C*4], BoxScore [R,C] -> DecodeBox,
                           OutputAssignBox

Only roi_align and roi_pool have gradients in Paddle, so only they have them here (sigmoid_focal_loss, which
fluid.layers.detection lists too, is a loss: ops/loss_classification.py).
"""
from __future__ import annotations

from ..framework.dtype import VarType
from ..framework.registry import GradSpec, defop, kernel_rule, shape_rule
from ..kernels import detection as KD
from ..kernels import nms as KN

# --- iou_similarity ---------------------------------------------------------------------------------------------

defop('iou_similarity', ['X', 'Y'], ['Out'], {'box_normalized': True})


@shape_rule('iou_similarity')
def _iou_shape(ctx):
    ctx.set_output('Out', (ctx.in_shape('X')[0], ctx.in_shape('Y')[0]), ctx.in_dtype('X'))


@kernel_rule('iou_similarity')
def _iou_kernel(spec):
    normalized = bool(spec.attr('box_normalized'))
    return lambda x, y: (KD.iou_similarity(x, y.astype(x.dtype, copy=False), normalized),)


# --- box_coder --------------------------------------------------------------------------------------------------

defop('box_coder', ['PriorBox', 'PriorBoxVar', 'TargetBox'], ['OutputBox'],
      {'code_type': 'encode_center_size', 'box_normalized': True, 'axis': 0, 'variance': []},
      dispensable=['PriorBoxVar'])


@shape_rule('box_coder')
def _box_coder_shape(ctx):
    code_type = str(ctx.attr('code_type')).lower()
    prior, target = ctx.in_shape('PriorBox'), ctx.in_shape('TargetBox')
    if code_type == 'encode_center_size':
        if len(target) != 2:
            raise ValueError("operator 'box_coder': the rank of Input(TargetBox) must be 2 for encode_center_size, "
                             "got %s" % list(target))
        shape = (target[0], prior[0], 4)
    elif code_type == 'decode_center_size':
        if len(target) != 3:
            raise ValueError("operator 'box_coder': the rank of Input(TargetBox) must be 3 for decode_center_size, "
                             "got %s" % list(target))
        shape = tuple(target)
    else:
        raise ValueError("operator 'box_coder': code_type must be encode_center_size or decode_center_size, got %r"
                         % code_type)
    ctx.set_output('OutputBox', shape, ctx.in_dtype('TargetBox'))


@kernel_rule('box_coder')
def _box_coder_kernel(spec):
    encode = str(spec.attr('code_type')).lower() == 'encode_center_size'
    normalized, axis = bool(spec.attr('box_normalized')), int(spec.attr('axis'))
    variance = [float(v) for v in spec.attr('variance') or []]

    def run(prior, prior_var, target):
        if encode:
            return (KD.box_encode_center_size(target, prior, prior_var, variance, normalized),)
        return (KD.box_decode_center_size(target, prior, prior_var, variance, normalized, axis),)
    return run


# --- prior_box, density_prior_box, anchor_generator ------------------------------------------------------------

defop('prior_box', ['Input', 'Image'], ['Boxes', 'Variances'],
      {'min_sizes': [], 'max_sizes': [], 'aspect_ratios': [1.0], 'variances': [0.1, 0.1, 0.2, 0.2], 'flip': True,
       'clip': True, 'step_w': 0.0, 'step_h': 0.0, 'offset': 0.5, 'min_max_aspect_ratios_order': False})


@shape_rule('prior_box')
def _prior_box_shape(ctx):
    ars = KD.expand_aspect_ratios(ctx.attr('aspect_ratios'), bool(ctx.attr('flip')))
    num = len(ars) * len(ctx.attr('min_sizes')) + len(ctx.attr('max_sizes') or [])
    if ctx.attr('max_sizes') and len(ctx.attr('max_sizes')) != len(ctx.attr('min_sizes')):
        raise ValueError("operator 'prior_box': the number of max_sizes (%d) must equal the number of min_sizes (%d)"
                         % (len(ctx.attr('max_sizes')), len(ctx.attr('min_sizes'))))
    h, w = ctx.in_shape('Input')[2:4]
    for slot in ('Boxes', 'Variances'):
        ctx.set_output(slot, (h, w, num, 4), VarType.FP32)


@kernel_rule('prior_box')
def _prior_box_kernel(spec):
    a = {k: spec.attr(k) for k in ('min_sizes', 'max_sizes', 'aspect_ratios', 'variances', 'flip', 'clip',
                                   'offset', 'min_max_aspect_ratios_order')}
    steps = (float(spec.attr('step_w')), float(spec.attr('step_h')))
    cache = {}

    def run(feature, image):
        key = (feature.shape[2:4], image.shape[2:4])
        if key not in cache:
            cache.clear()
            cache[key] = KD.prior_box(key[0], key[1], a['min_sizes'], a['max_sizes'], a['aspect_ratios'],
                                      a['variances'], a['flip'], a['clip'], steps, float(a['offset']),
                                      a['min_max_aspect_ratios_order'])
        return cache[key]
    return run


defop('density_prior_box', ['Input', 'Image'], ['Boxes', 'Variances'],
      {'variances': [0.1, 0.1, 0.2, 0.2], 'clip': True, 'step_w': 0.0, 'step_h': 0.0, 'offset': 0.5,
       'flatten_to_2d': False, 'fixed_sizes': [], 'fixed_ratios': [], 'densities': []})


@shape_rule('density_prior_box')
def _density_prior_box_shape(ctx):
    num = sum(len(ctx.attr('fixed_ratios')) * d * d for d in ctx.attr('densities'))
    h, w = ctx.in_shape('Input')[2:4]
    shape = (h * w * num if h >= 0 and w >= 0 else -1, 4) if ctx.attr('flatten_to_2d') else (h, w, num, 4)
    for slot in ('Boxes', 'Variances'):
        ctx.set_output(slot, shape, VarType.FP32)


@kernel_rule('density_prior_box')
def _density_prior_box_kernel(spec):
    a = {k: spec.attr(k) for k in ('densities', 'fixed_sizes', 'fixed_ratios', 'variances', 'clip', 'offset',
                                   'flatten_to_2d')}
    steps = (float(spec.attr('step_w')), float(spec.attr('step_h')))

    def run(feature, image):
        boxes, var = KD.density_prior_box(feature.shape[2:4], image.shape[2:4], a['densities'], a['fixed_sizes'],
                                          a['fixed_ratios'], a['variances'], a['clip'], steps, float(a['offset']))
        if a['flatten_to_2d']:
            return boxes.reshape(-1, 4), var.reshape(-1, 4)
        return boxes, var
    return run


defop('anchor_generator', ['Input'], ['Anchors', 'Variances'],
      {'anchor_sizes': [64.0, 128.0, 256.0, 512.0], 'aspect_ratios': [0.5, 1.0, 2.0],
       'variances': [0.1, 0.1, 0.2, 0.2], 'stride': [16.0, 16.0], 'offset': 0.5})


@shape_rule('anchor_generator')
def _anchor_shape(ctx):
    num = len(ctx.attr('anchor_sizes')) * len(ctx.attr('aspect_ratios'))
    h, w = ctx.in_shape('Input')[2:4]
    for slot in ('Anchors', 'Variances'):
        ctx.set_output(slot, (h, w, num, 4), ctx.in_dtype('Input'))


@kernel_rule('anchor_generator')
def _anchor_kernel(spec):
    a = {k: spec.attr(k) for k in ('anchor_sizes', 'aspect_ratios', 'variances', 'stride', 'offset')}

    def run(feature):
        anchors, var = KD.anchor_generator(feature.shape[2:4], a['anchor_sizes'], a['aspect_ratios'],
                                           a['variances'], a['stride'], float(a['offset']))
        return anchors.astype(feature.dtype, copy=False), var.astype(feature.dtype, copy=False)
    return run


# --- yolo_box, box_clip, polygon_box_transform -------------------------------------------------------------------

defop('yolo_box', ['X', 'ImgSize'], ['Boxes', 'Scores'],
      {'anchors': [], 'class_num': 1, 'conf_thresh': 0.01, 'downsample_ratio': 32, 'clip_bbox': True,
       'scale_x_y': 1.0})


@shape_rule('yolo_box')
def _yolo_box_shape(ctx):
    n, c, h, w = ctx.in_shape('X')
    anchors, class_num = ctx.attr('anchors'), int(ctx.attr('class_num'))
    an_num = len(anchors) // 2
    if c >= 0 and c != an_num * (5 + class_num):
        raise ValueError("operator 'yolo_box': Input(X) dim[1] should be equal to (anchor_mask_number * (5 + "
                         "class_num)), got %d for %d anchors and %d classes" % (c, an_num, class_num))
    box_num = an_num * h * w if h >= 0 and w >= 0 else -1
    ctx.set_output('Boxes', (n, box_num, 4), ctx.in_dtype('X'))
    ctx.set_output('Scores', (n, box_num, class_num), ctx.in_dtype('X'))


@kernel_rule('yolo_box')
def _yolo_box_kernel(spec):
    a = {k: spec.attr(k) for k in ('anchors', 'class_num', 'conf_thresh', 'downsample_ratio', 'clip_bbox',
                                   'scale_x_y')}
    return lambda x, img_size: KD.yolo_box(x, img_size, a['anchors'], a['class_num'], a['conf_thresh'],
                                           a['downsample_ratio'], a['clip_bbox'], a['scale_x_y'])


defop('box_clip', ['Input', 'ImInfo'], ['Output'])


@shape_rule('box_clip')
def _box_clip_shape(ctx):
    ctx.set_output('Output', ctx.in_shape('Input'), ctx.in_dtype('Input'))


@kernel_rule('box_clip')
def _box_clip_kernel(spec):
    return lambda boxes, im_info: (KD.box_clip(boxes, im_info),)


defop('polygon_box_transform', ['Input'], ['Output'])


@shape_rule('polygon_box_transform')
def _polygon_shape(ctx):
    ctx.set_output('Output', ctx.in_shape('Input'), ctx.in_dtype('Input'))


@kernel_rule('polygon_box_transform')
def _polygon_kernel(spec):
    return lambda x: (KD.polygon_box_transform(x),)


# --- multiclass_nms ---------------------------------------------------------------------------------------------

defop('multiclass_nms', ['BBoxes', 'Scores'], ['Out'],
      {'background_label': 0, 'score_threshold': 0.0, 'nms_top_k': -1, 'nms_threshold': 0.3, 'nms_eta': 1.0,
       'keep_top_k': -1, 'normalized': True})


@shape_rule('multiclass_nms')
def _nms_shape(ctx):
    boxes, scores = ctx.in_shape('BBoxes'), ctx.in_shape('Scores')
    if len(scores) != 3:
        raise ValueError("operator 'multiclass_nms': paddle_exec takes Input(Scores) as [N, C, M] (the LoD form "
                         "[M, C] with LoD BBoxes is not carried), got %s" % list(scores))
    if boxes[-1] >= 0 and boxes[-1] != 4:
        raise ValueError("operator 'multiclass_nms': the last dimension of Input(BBoxes) must be 4, got %s"
                         % list(boxes))
    ctx.set_output('Out', (-1, boxes[-1] + 2 if boxes[-1] >= 0 else 6), ctx.in_dtype('BBoxes'), lod_level=1)


@kernel_rule('multiclass_nms')
def _nms_kernel(spec):
    a = {k: spec.attr(k) for k in ('background_label', 'score_threshold', 'nms_top_k', 'nms_threshold', 'nms_eta',
                                   'keep_top_k', 'normalized')}

    def run(bboxes, scores):
        out, _, _ = KN.multiclass_nms(bboxes, scores.astype(bboxes.dtype, copy=False), a['score_threshold'],
                                      a['nms_top_k'], a['keep_top_k'], a['nms_threshold'], a['normalized'],
                                      a['nms_eta'], a['background_label'])
        return (out,)
    return run


# multiclass_nms2: multiclass_nms with the Index of each kept box in the flattened [N*M] boxes
defop('multiclass_nms2', ['BBoxes', 'Scores'], ['Out', 'Index'],
      {'background_label': 0, 'score_threshold': 0.0, 'nms_top_k': -1, 'nms_threshold': 0.3, 'nms_eta': 1.0,
       'keep_top_k': -1, 'normalized': True})


@shape_rule('multiclass_nms2')
def _nms2_shape(ctx):
    _nms_shape(ctx)
    ctx.set_output('Index', (-1, 1), VarType.INT32, lod_level=1)


@kernel_rule('multiclass_nms2')
def _nms2_kernel(spec):
    a = {k: spec.attr(k) for k in ('background_label', 'score_threshold', 'nms_top_k', 'nms_threshold', 'nms_eta',
                                   'keep_top_k', 'normalized')}

    def run(bboxes, scores):
        out, _, index = KN.multiclass_nms(bboxes, scores.astype(bboxes.dtype, copy=False), a['score_threshold'],
                                          a['nms_top_k'], a['keep_top_k'], a['nms_threshold'], a['normalized'],
                                          a['nms_eta'], a['background_label'])
        return out, index
    return run


defop('matrix_nms', ['BBoxes', 'Scores'], ['Out', 'Index'],
      {'background_label': 0, 'score_threshold': 0.0, 'post_threshold': 0.0, 'nms_top_k': -1, 'keep_top_k': -1,
       'normalized': True, 'use_gaussian': False, 'gaussian_sigma': 2.0})


@shape_rule('matrix_nms')
def _matrix_nms_shape(ctx):
    _nms_shape(ctx)
    ctx.set_output('Index', (-1, 1), VarType.INT32, lod_level=1)


@kernel_rule('matrix_nms')
def _matrix_nms_kernel(spec):
    a = {k: spec.attr(k) for k in ('background_label', 'score_threshold', 'post_threshold', 'nms_top_k',
                                   'keep_top_k', 'normalized', 'use_gaussian', 'gaussian_sigma')}

    def run(bboxes, scores):
        out, _, index = KN.matrix_nms(bboxes, scores.astype(bboxes.dtype, copy=False), a['score_threshold'],
                                      a['post_threshold'], a['nms_top_k'], a['keep_top_k'], a['use_gaussian'],
                                      a['gaussian_sigma'], a['background_label'], a['normalized'])
        return out, index
    return run


# --- roi_align, roi_pool ----------------------------------------------------------------------------------------

_ROI_ATTRS = {'spatial_scale': 1.0, 'pooled_height': 1, 'pooled_width': 1}

defop('roi_align', ['X', 'ROIs', 'RoisLod'], ['Out'], dict(_ROI_ATTRS, sampling_ratio=-1), dispensable=['RoisLod'],
      grad=GradSpec(('X', 'ROIs', 'RoisLod', 'Out@GRAD'), ('X@GRAD',)))
defop('roi_pool', ['X', 'ROIs', 'RoisLod'], ['Out', 'Argmax'], dict(_ROI_ATTRS), dispensable=['RoisLod'],
      grad=GradSpec(('X', 'ROIs', 'RoisLod', 'Argmax', 'Out@GRAD'), ('X@GRAD',)))


def _roi_shape(ctx, outputs):
    x, rois = ctx.in_shape('X'), ctx.in_shape('ROIs')
    if len(x) != 4:
        raise ValueError("operator '%s': the format of Input(X) must be NCHW, got %s" % (ctx.op.type, list(x)))
    if len(rois) != 2 or (rois[1] >= 0 and rois[1] != 4):
        raise ValueError("operator '%s': ROIs must be [num_rois, 4], got %s" % (ctx.op.type, list(rois)))
    ph, pw = int(ctx.attr('pooled_height')), int(ctx.attr('pooled_width'))
    if ph <= 0 or pw <= 0 or float(ctx.attr('spatial_scale')) <= 0:
        raise ValueError("operator '%s': pooled_height, pooled_width and spatial_scale must be greater than 0"
                         % ctx.op.type)
    shape = (rois[0], x[1], ph, pw)
    ctx.set_output('Out', shape, ctx.in_dtype('X'))
    if 'Argmax' in outputs:
        ctx.set_output('Argmax', shape, VarType.INT64)


@shape_rule('roi_align')
def _roi_align_shape(ctx):
    _roi_shape(ctx, ('Out',))


@shape_rule('roi_pool')
def _roi_pool_shape(ctx):
    _roi_shape(ctx, ('Out', 'Argmax'))


def _roi_attrs(spec):
    return int(spec.attr('pooled_height')), int(spec.attr('pooled_width')), float(spec.attr('spatial_scale'))


@kernel_rule('roi_align')
def _roi_align_kernel(spec):
    ph, pw, scale = _roi_attrs(spec)
    sampling = int(spec.attr('sampling_ratio'))

    def run(x, rois, rois_lod):
        ids = KD.roi_batch_ids(rois.shape[0], x.shape[0], rois_lod)
        return (KD.roi_align_forward(x, rois, ids, ph, pw, scale, sampling),)
    return run


@kernel_rule('roi_align_grad')
def _roi_align_grad_kernel(spec):
    ph, pw, scale = _roi_attrs(spec)
    sampling = int(spec.attr('sampling_ratio'))

    def run(x, rois, rois_lod, dout):
        ids = KD.roi_batch_ids(rois.shape[0], x.shape[0], rois_lod)
        return (KD.roi_align_backward(x.shape, x.dtype, rois, ids, dout, ph, pw, scale, sampling),)
    return run


@kernel_rule('roi_pool')
def _roi_pool_kernel(spec):
    ph, pw, scale = _roi_attrs(spec)

    def run(x, rois, rois_lod):
        ids = KD.roi_batch_ids(rois.shape[0], x.shape[0], rois_lod)
        return KD.roi_pool_forward(x, rois, ids, ph, pw, scale)
    return run


@kernel_rule('roi_pool_grad')
def _roi_pool_grad_kernel(spec):
    def run(x, rois, rois_lod, argmax, dout):
        ids = KD.roi_batch_ids(rois.shape[0], x.shape[0], rois_lod)
        return (KD.roi_pool_backward(x.shape, x.dtype, ids, argmax, dout),)
    return run



# --- bipartite_match, box_decoder_and_assign -------------------------------------------------

defop('bipartite_match', ['DistMat'], ['ColToRowMatchIndices', 'ColToRowMatchDist'],
      {'match_type': 'bipartite', 'dist_threshold': 0.5})


@shape_rule('bipartite_match')
def _bipartite_shape(ctx):
    d = ctx.in_shape('DistMat')
    if len(d) != 2:
        raise ValueError("operator 'bipartite_match': the rank of Input(DistMat) must be 2, got %s" % list(d))
    ctx.set_output('ColToRowMatchIndices', (-1, d[1]), VarType.INT32)
    ctx.set_output('ColToRowMatchDist', (-1, d[1]), ctx.in_dtype('DistMat'))


@kernel_rule('bipartite_match')
def _bipartite_kernel(spec):
    match_type = spec.attr('match_type') or 'bipartite'
    threshold = spec.attr('dist_threshold')
    threshold = 0.5 if threshold is None else float(threshold)
    return lambda dist: KD.bipartite_match(dist, match_type, threshold)


defop('box_decoder_and_assign', ['PriorBox', 'PriorBoxVar', 'TargetBox', 'BoxScore'],
      ['DecodeBox', 'OutputAssignBox'], {'box_clip': 4.135})


@shape_rule('box_decoder_and_assign')
def _box_decoder_and_assign_shape(ctx):
    target = ctx.in_shape('TargetBox')
    ctx.set_output('DecodeBox', target, ctx.in_dtype('TargetBox'))
    ctx.set_output('OutputAssignBox', (target[0], 4), ctx.in_dtype('TargetBox'))


@kernel_rule('box_decoder_and_assign')
def _box_decoder_and_assign_kernel(spec):
    clip = float(spec.attr('box_clip'))
    return lambda prior, var, target, score: KD.box_decoder_and_assign(prior, var, target, score, clip)
