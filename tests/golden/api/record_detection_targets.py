"""Records what Paddle 1.8.5 computes for the LoD-bound training builders of fluid.layers.detection (target_assign,
ssd_loss, yolov3_loss, ...) on fixed inputs, gradients included, into detection_targets.npz beside this file. Runs
only where Paddle 1.8.5 is installed:

    /work/pd18/bin/python tests/golden/api/record_detection_targets.py

Keys: '<case>.in.<name>' inputs, '<case>.inlod.<name>' the LoD lengths of a LoD input ('<case>.inlod.<name>.<k>'
for its level k > 0),
'<case>.out.<k>' outputs (k-th fetch), '<case>.lod.<k>' the LoD offsets of a LoD output. A case's fetches may
include gradients ('<name>@GRAD' of an input, after append_backward of the mean of the first output).
tests/kernels/test_detection_targets.py builds the same programs on paddle_exec and compares.
"""
import os

import numpy as np
import paddle.fluid as fluid

L = fluid.layers
rng = np.random.RandomState(7)
OUT = {}


def boxes(n, scale=1.0):
    xy = rng.uniform(0, 0.6, (n, 2))
    wh = rng.uniform(0.1, 0.4, (n, 2))
    return (np.concatenate([xy, xy + wh], 1) * scale).astype('float32')


def run(case, build, feeds, lods=None, grads=()):
    """feeds: name -> array; lods: name -> lengths of one LoD level, or a list of levels' lengths (several levels);
    grads: input names whose gradient is fetched."""
    lods = {n: (v if isinstance(v[0], list) else [v]) for n, v in (lods or {}).items()}
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        vars_ = {n: fluid.data(n, [None] + list(v.shape[1:]), str(v.dtype), lod_level=len(lods.get(n, ())))
                 for n, v in feeds.items()}
        for n in grads:
            vars_[n].stop_gradient = False
        outs = list(build(**vars_))
        if grads:
            fluid.backward.append_backward(L.mean(outs[0]))
            outs += [main.global_block().var(n + '@GRAD') for n in grads]
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    feed = {n: fluid.create_lod_tensor(v, lods[n], fluid.CPUPlace()) if n in lods else v for n, v in feeds.items()}
    res = exe.run(main, feed=feed, fetch_list=outs, return_numpy=False)
    for n, v in feeds.items():
        OUT['%s.in.%s' % (case, n)] = v
        for k, level in enumerate(lods.get(n, ())):
            OUT['%s.inlod.%s' % (case, n) + ('.%d' % k if k else '')] = np.array(level, 'int64')
    for k, r in enumerate(res):
        OUT['%s.out.%d' % (case, k)] = np.array(r)
        if r.lod():
            OUT['%s.lod.%d' % (case, k)] = np.array(r.lod()[-1], 'int64')


# --- target_assign, ssd_loss ---------------------------------------------------------------------------------------
ta_x = rng.uniform(-1, 1, (5, 6, 4)).astype('float32')
ta_match = np.array([[-1, 1, 0, -1, 1, -1], [0, -1, -1, 0, -1, -1], [-1, -1, 1, 1, 0, 0]], 'int32')
run('target_assign', lambda x, m: L.target_assign(x, m, mismatch_value=3), {'x': ta_x, 'm': ta_match},
    lods={'x': [2, 1, 2]})
run('target_assign_neg', lambda x, m, n: L.target_assign(x, m, n, mismatch_value=0),
    {'x': rng.randint(0, 5, (5, 1, 1)).astype('int32'), 'm': ta_match,
     'n': np.array([[0], [3], [1], [2], [5]], 'int32')}, lods={'x': [2, 1, 2], 'n': [2, 3, 0]})
gt = np.concatenate([boxes(3), boxes(1), boxes(2)])
prior = np.concatenate([boxes(10), gt + 0.02])            # some priors close to the ground truth
pvar = np.tile(np.array([[0.1, 0.1, 0.2, 0.2]], 'float32'), (prior.shape[0], 1))
ssd_feed = {'loc': rng.uniform(-1, 1, (3, 16, 4)).astype('float32'),
            'conf': rng.uniform(-2, 2, (3, 16, 4)).astype('float32'),
            'gt': gt, 'lbl': np.array([[1], [3], [2], [1], [2], [3]], 'float32'), 'p': prior, 'pv': pvar}
run('ssd_loss', lambda loc, conf, gt, lbl, p, pv: [L.ssd_loss(loc, conf, gt, lbl, p, pv)], ssd_feed,
    lods={'gt': [3, 1, 2], 'lbl': [3, 1, 2]}, grads=('loc', 'conf'))
run('ssd_loss_bipartite', lambda loc, conf, gt, lbl, p, pv: [L.ssd_loss(
    loc, conf, gt, lbl, p, pv, background_label=0, overlap_threshold=0.3, neg_pos_ratio=2.0, neg_overlap=0.4,
    loc_loss_weight=0.5, conf_loss_weight=2.0, match_type='bipartite', normalize=False)], ssd_feed,
    lods={'gt': [3, 1, 2], 'lbl': [3, 1, 2]}, grads=('loc', 'conf'))


# --- yolov3_loss ---------------------------------------------------------------------------------------------------
def with_masks(loss):
    """The loss and the op's two mask outputs (which the layer does not return)."""
    op = loss.block.ops[-1]
    return [loss, loss.block.var(op.output('ObjectnessMask')[0]), loss.block.var(op.output('GTMatchMask')[0])]


yolo_box_gt = np.array([[[0.30, 0.40, 0.20, 0.30], [0.70, 0.20, 0.45, 0.85], [0.55, 0.60, 0.95, 0.70],
                         [0.0, 0.0, 0.0, 0.0]],
                        [[0.12, 0.85, 0.35, 0.40], [0.60, 0.55, 0.25, 0.20], [0.90, 0.10, 0.15, 0.50],
                         [0.40, 0.30, 0.50, 0.90]]], 'float32')
yolo_feed = {'x': rng.uniform(-1, 1, (2, 2 * (5 + 3), 4, 4)).astype('float32'), 'box': yolo_box_gt,
             'label': np.array([[0, 2, 1, 0], [1, 1, 0, 2]], 'int32')}
run('yolov3_loss', lambda x, box, label: with_masks(L.yolov3_loss(
    x, box, label, anchors=[10, 13, 16, 30, 33, 23], anchor_mask=[0, 1], class_num=3, ignore_thresh=0.7,
    downsample_ratio=8)), yolo_feed, grads=('x',))
run('yolov3_loss_score', lambda x, box, label, score: with_masks(L.yolov3_loss(
    x, box, label, anchors=[10, 13, 16, 30, 33, 23], anchor_mask=[1, 2], class_num=3, ignore_thresh=0.3,
    downsample_ratio=8, gt_score=score, use_label_smooth=False, scale_x_y=1.2)),
    dict(yolo_feed, score=rng.uniform(0.2, 1.0, (2, 4)).astype('float32')), grads=('x',))


# --- locality_aware_nms, and the LoD of multiclass_nms / multiclass_nms2 / matrix_nms ------------------------------
def chain(n, start, step, size=0.3):
    """n boxes sliding by `step`: consecutive ones overlap, so the locality-aware merge has work."""
    xy = start + step * np.arange(n)[:, None] * np.array([[1.0, 0.5]])
    return np.concatenate([xy, xy + size], 1).astype('float32')


lan_boxes = np.stack([np.concatenate([chain(4, 0.05, 0.02), chain(3, 0.5, 0.03), boxes(3)]),
                      np.concatenate([boxes(4), chain(6, 0.2, 0.015)])])
lan_scores = rng.uniform(0.05, 1.0, (2, 1, 10)).astype('float32')
run('locality_aware_nms', lambda b, s: [L.locality_aware_nms(b, s, score_threshold=0.2, nms_top_k=8, keep_top_k=5,
                                                              nms_threshold=0.3)], {'b': lan_boxes, 's': lan_scores})
run('locality_aware_nms_pixel', lambda b, s: [L.locality_aware_nms(b * 40, s, score_threshold=0.01, nms_top_k=-1,
                                                                    keep_top_k=-1, nms_threshold=0.5,
                                                                    normalized=False, nms_eta=0.9)],
    {'b': lan_boxes, 's': lan_scores})
run('locality_aware_nms_none', lambda b, s: [L.locality_aware_nms(b, s, score_threshold=5.0, nms_top_k=-1,
                                                                   keep_top_k=-1)], {'b': lan_boxes, 's': lan_scores})
nms_scores = rng.rand(2, 3, 10).astype('float32')
run('nms_lod', lambda b, s: [L.multiclass_nms(b, s, score_threshold=0.3, nms_top_k=5, keep_top_k=6,
                                              nms_threshold=0.4)], {'b': lan_boxes, 's': nms_scores})
run('nms2_lod', lambda b, s: list(fluid.contrib.multiclass_nms2(b, s, score_threshold=0.3, nms_top_k=5, keep_top_k=6,
                                                                nms_threshold=0.4, return_index=True)),
    {'b': lan_boxes, 's': nms_scores})
run('matrix_nms_lod', lambda b, s: list(L.matrix_nms(b, s, score_threshold=0.3, post_threshold=0.2, nms_top_k=5,
                                                     keep_top_k=6, return_index=True)),
    {'b': lan_boxes, 's': nms_scores})


# --- generate_proposals ---------------------------------------------------------------------------------------------
def rpn_inputs(n, a, h, w, stride=8.0):
    """Scores, deltas, im_info and anchors / variances of an RPN head of a anchors per cell on an h x w map."""
    sizes = np.array([[12, 16], [24, 20], [32, 40]], 'float32')[:a]
    cy, cx = np.meshgrid(np.arange(h) * stride + stride / 2, np.arange(w) * stride + stride / 2, indexing='ij')
    centres = np.stack([cx, cy], -1)[:, :, None, :]
    anchors = np.concatenate([centres - sizes / 2, centres + sizes / 2 - 1], -1).astype('float32')
    variances = np.tile(np.array([0.1, 0.1, 0.2, 0.2], 'float32'), (h, w, a, 1))
    return {'s': rng.rand(n, a, h, w).astype('float32'), 'd': rng.uniform(-2, 2, (n, 4 * a, h, w)).astype('float32'),
            'im': np.array([[h * stride, w * stride, 1.0], [h * stride - 10, w * stride - 6, 0.8]][:n], 'float32'),
            'an': anchors, 'v': variances}


rpn = rpn_inputs(2, 3, 5, 6)
run('generate_proposals', lambda s, d, im, an, v: list(L.generate_proposals(
    s, d, im, an, v, pre_nms_top_n=60, post_nms_top_n=12, nms_thresh=0.5, min_size=3.0, return_rois_num=True)), rpn)
run('generate_proposals_all', lambda s, d, im, an, v: list(L.generate_proposals(
    s, d, im, an, v, pre_nms_top_n=-1, post_nms_top_n=-1, nms_thresh=0.7, min_size=0.1, eta=0.8)), rpn)
run('generate_proposals_no_nms', lambda s, d, im, an, v: list(L.generate_proposals(
    s, d, im, an, v, pre_nms_top_n=500, post_nms_top_n=5, nms_thresh=0.0, min_size=6.0)), rpn)


# --- rpn_target_assign (use_random=False: Paddle seeds its sampling from std::random_device) -----------------------
rpn_gt = np.array([[4, 6, 20, 30], [18, 2, 40, 18], [30, 20, 47, 39], [0, 0, 10, 10],
                   [6, 10, 28, 34], [22, 12, 40, 30]], 'float32')
rpn_feed = {'bbox': rng.uniform(-1, 1, (2, 5 * 6 * 3, 4)).astype('float32'),
            'cls': rng.uniform(-1, 1, (2, 5 * 6 * 3, 1)).astype('float32'),
            'an': rpn['an'].reshape(-1, 4), 'v': rpn['v'].reshape(-1, 4),
            'gt': rpn_gt, 'crowd': np.array([[0], [0], [1], [0], [0], [0]], 'int32'),
            'im': np.array([[40, 48, 1.0], [36, 44, 0.9]], 'float32')}
run('rpn_target_assign', lambda bbox, cls, an, v, gt, crowd, im: list(L.rpn_target_assign(
    bbox, cls, an, v, gt, crowd, im, rpn_batch_size_per_im=32, rpn_straddle_thresh=0.0, rpn_fg_fraction=0.25,
    rpn_positive_overlap=0.5, rpn_negative_overlap=0.2, use_random=False)), rpn_feed,
    lods={'gt': [4, 2], 'crowd': [4, 2]})
run('rpn_target_assign_all', lambda bbox, cls, an, v, gt, crowd, im: list(L.rpn_target_assign(
    bbox, cls, an, v, gt, crowd, im, rpn_batch_size_per_im=256, rpn_straddle_thresh=-1.0, rpn_fg_fraction=0.5,
    rpn_positive_overlap=0.6, rpn_negative_overlap=0.3, use_random=False)), rpn_feed,
    lods={'gt': [3, 3], 'crowd': [3, 3]})
run('rpn_target_assign_fake', lambda bbox, cls, an, v, gt, crowd, im: list(L.rpn_target_assign(
    bbox, cls, an, v, gt, crowd, im, rpn_batch_size_per_im=64, rpn_straddle_thresh=2.0, rpn_fg_fraction=0.5,
    rpn_positive_overlap=0.9, rpn_negative_overlap=0.6, use_random=False)), rpn_feed,
    lods={'gt': [2, 4], 'crowd': [2, 4]})


# --- retinanet_target_assign ----------------------------------------------------------------------------------------
retina_feed = dict(rpn_feed, cls=rng.uniform(-1, 1, (2, 5 * 6 * 3, 3)).astype('float32'),
                   lbl=np.array([[1], [3], [2], [2], [1], [3]], 'int32'))
run('retinanet_target_assign', lambda bbox, cls, an, v, gt, lbl, crowd, im: list(L.retinanet_target_assign(
    bbox, cls, an, v, gt, lbl, crowd, im, num_classes=3, positive_overlap=0.5, negative_overlap=0.4)), retina_feed,
    lods={'gt': [4, 2], 'lbl': [4, 2], 'crowd': [4, 2]})
run('retinanet_target_assign_low', lambda bbox, cls, an, v, gt, lbl, crowd, im: list(L.retinanet_target_assign(
    bbox, cls, an, v, gt, lbl, crowd, im, num_classes=3, positive_overlap=0.9, negative_overlap=0.6)), retina_feed,
    lods={'gt': [3, 3], 'lbl': [3, 3], 'crowd': [3, 3]})


# --- retinanet_detection_output -------------------------------------------------------------------------------------
def level(n, m, c, scale):
    an = boxes(m, scale)
    return rng.uniform(-0.5, 0.5, (n, m, 4)).astype('float32'), rng.rand(n, m, c).astype('float32'), an


lv = [level(2, 12, 3, 40.0), level(2, 6, 3, 40.0)]
retina_out = {'b0': lv[0][0], 's0': lv[0][1], 'a0': lv[0][2], 'b1': lv[1][0], 's1': lv[1][1], 'a1': lv[1][2],
              'im': np.array([[40, 44, 1.0], [36, 40, 1.25]], 'float32')}
run('retinanet_detection_output', lambda b0, s0, a0, b1, s1, a1, im: [L.retinanet_detection_output(
    [b0, b1], [s0, s1], [a0, a1], im, score_threshold=0.3, nms_top_k=10, keep_top_k=12, nms_threshold=0.4)],
    retina_out)
run('retinanet_detection_output_one', lambda b0, s0, a0, b1, s1, a1, im: [L.retinanet_detection_output(
    [b0], [s0], [a0], im, score_threshold=0.5, nms_top_k=100, keep_top_k=100, nms_threshold=0.5)], retina_out)


# --- generate_proposal_labels (use_random=False) --------------------------------------------------------------------
gpl_gt = np.array([[4, 6, 20, 30], [18, 2, 40, 18], [30, 20, 47, 39], [6, 10, 28, 34], [22, 12, 40, 30]], 'float32')
gpl_rois = np.concatenate([gpl_gt[:3] * 1.1 + rng.uniform(-3, 3, (3, 4)), boxes(9, 48.0),
                           gpl_gt[3:] * 0.9 + rng.uniform(-3, 3, (2, 4)), boxes(7, 40.0)]).astype('float32')
gpl_feed = {'rois': gpl_rois, 'cls': np.array([[1], [3], [2], [2], [1]], 'int32'),
            'crowd': np.array([[0], [0], [1], [0], [0]], 'int32'), 'gt': gpl_gt,
            'im': np.array([[48, 48, 1.1], [40, 44, 0.9]], 'float32')}
gpl_lods = {'rois': [12, 9], 'cls': [3, 2], 'crowd': [3, 2], 'gt': [3, 2]}
run('proposal_labels', lambda rois, cls, crowd, gt, im: list(L.generate_proposal_labels(
    rois, cls, crowd, gt, im, batch_size_per_im=8, fg_fraction=0.25, fg_thresh=0.5, bg_thresh_hi=0.5,
    bg_thresh_lo=0.0, class_nums=4, use_random=False)), gpl_feed, lods=gpl_lods)
run('proposal_labels_agnostic', lambda rois, cls, crowd, gt, im: list(L.generate_proposal_labels(
    rois, cls, crowd, gt, im, batch_size_per_im=64, fg_fraction=0.5, fg_thresh=0.3, bg_thresh_hi=0.3,
    bg_thresh_lo=0.05, bbox_reg_weights=[1.0, 1.0, 0.5, 0.5], class_nums=2, use_random=False,
    is_cls_agnostic=True)), gpl_feed, lods=gpl_lods)

# cascade samples nothing; Paddle 1.8.5 still sizes its outputs by images * batch_size_per_im (a smaller batch
# overflows them and its fetch fails), so the batches here are large
run('proposal_labels_cascade', lambda rois, cls, crowd, gt, im: list(L.generate_proposal_labels(
    rois, cls, crowd, gt, im, batch_size_per_im=64, fg_fraction=0.25, fg_thresh=0.5, bg_thresh_hi=0.5,
    bg_thresh_lo=0.0, class_nums=4, use_random=False, is_cascade_rcnn=True)), gpl_feed, lods=gpl_lods)
run('proposal_labels_cascade2', lambda rois, cls, crowd, gt, im: list(L.generate_proposal_labels(
    rois, cls, crowd, gt, im, batch_size_per_im=64, fg_fraction=0.5, fg_thresh=0.4, bg_thresh_hi=0.4,
    bg_thresh_lo=0.1, class_nums=4, use_random=False, is_cascade_rcnn=True, is_cls_agnostic=True)),
    dict(gpl_feed, im=np.array([[48, 48, 0.8], [40, 44, 1.3]], 'float32')),
    lods={'rois': [5, 16], 'cls': [2, 3], 'crowd': [2, 3], 'gt': [2, 3]})

# --- generate_mask_labels -------------------------------------------------------------------------------------------
def polygon(cx, cy, r, n, phase):
    t = phase + 2 * np.pi * np.arange(n) / n
    return np.stack([cx + r * np.cos(t) * (1 + 0.3 * np.sin(3 * t)), cy + r * np.sin(t)], 1).astype('float32')


objects = [[polygon(12, 18, 8, 7, 0.1)], [polygon(30, 10, 6, 5, 0.4), polygon(36, 16, 4, 4, 0.0)],
           [polygon(38, 30, 7, 6, 0.2)],                                              # image 1: 3 objects
           [polygon(16, 20, 9, 8, 0.3)], [polygon(30, 26, 7, 5, 0.7)]]                # image 2: 2 objects
segm_points = np.concatenate([p for obj in objects for p in obj])
mask_feed = {'im': np.array([[48, 48, 1.1], [40, 44, 0.9]], 'float32'),
             'cls': np.array([[1], [2], [3], [2], [1]], 'int32'), 'crowd': np.array([[0], [0], [1], [0], [0]], 'int32'),
             'segms': segm_points,
             'rois': np.array([[4, 9, 22, 30], [24, 2, 44, 22], [10, 10, 30, 30], [0, 0, 8, 8], [30, 22, 48, 40],
                               [8, 10, 26, 30], [20, 18, 38, 34], [1, 1, 9, 9]], 'float32'),
             'labels': np.array([[1], [2], [0], [0], [3], [2], [1], [0]], 'int32')}
mask_lods = {'cls': [3, 2], 'crowd': [3, 2], 'rois': [5, 3], 'labels': [5, 3],
             'segms': [[3, 2], [len(o) for o in objects], [len(p) for o in objects for p in o]]}
run('mask_labels', lambda im, cls, crowd, segms, rois, labels: list(L.generate_mask_labels(
    im, cls, crowd, segms, rois, labels, num_classes=4, resolution=8)), mask_feed, lods=mask_lods)
no_fg = dict(mask_feed, labels=np.array([[0], [0], [0], [0], [0], [2], [1], [0]], 'int32'))
run('mask_labels_no_fg', lambda im, cls, crowd, segms, rois, labels: list(L.generate_mask_labels(
    im, cls, crowd, segms, rois, labels, num_classes=4, resolution=6)), no_fg, lods=mask_lods)


# --- distribute_fpn_proposals, collect_fpn_proposals ----------------------------------------------------------------
fpn_rois = np.concatenate([boxes(5, 300.0), boxes(4, 800.0), boxes(4, 1600.0), boxes(3, 3000.0)])[rng.permutation(16)]
run('distribute_fpn', lambda r: (lambda out: list(out[0]) + [out[1]])(L.distribute_fpn_proposals(
    r, min_level=2, max_level=5, refer_level=4, refer_scale=224)), {'r': fpn_rois}, lods={'r': [9, 7]})
lv_rois = [boxes(6, 200.0), boxes(5, 200.0), boxes(4, 200.0)]
lv_scores = [rng.rand(6, 1).astype('float32'), rng.rand(5, 1).astype('float32'), rng.rand(4, 1).astype('float32')]
coll_feed = {'r0': lv_rois[0], 'r1': lv_rois[1], 'r2': lv_rois[2], 's0': lv_scores[0], 's1': lv_scores[1],
             's2': lv_scores[2]}
coll_lods = {'r0': [4, 2], 's0': [4, 2], 'r1': [2, 3], 's1': [2, 3], 'r2': [1, 3], 's2': [1, 3]}
run('collect_fpn', lambda r0, r1, r2, s0, s1, s2: [L.collect_fpn_proposals(
    [r0, r1, r2], [s0, s1, s2], min_level=2, max_level=4, post_nms_top_n=9)], coll_feed, lods=coll_lods)
run('collect_fpn_all', lambda r0, r1, r2, s0, s1, s2: [L.collect_fpn_proposals(
    [r0, r1, r2], [s0, s1, s2], min_level=3, max_level=4, post_nms_top_n=100)], coll_feed, lods=coll_lods)


# --- roi_perspective_transform --------------------------------------------------------------------------------------
quads = np.array([[1.2, 1.0, 7.5, 2.1, 6.8, 6.9, 0.7, 5.6], [2.0, 2.0, 9.0, 2.0, 9.0, 8.0, 2.0, 8.0],
                  [0.5, 3.0, 5.0, 0.5, 9.5, 5.5, 4.0, 9.2], [3.1, 1.4, 8.7, 3.3, 7.9, 9.4, 1.8, 7.7]], 'float32')
persp_feed = {'x': rng.rand(2, 2, 10, 11).astype('float32'), 'r': quads}
run('perspective', lambda x, r: list(L.roi_perspective_transform(x, r, 5, 6, spatial_scale=1.0)), persp_feed,
    lods={'r': [3, 1]}, grads=('x',))
run('perspective_scaled', lambda x, r: list(L.roi_perspective_transform(x, r, 4, 8, spatial_scale=0.8)),
    persp_feed, lods={'r': [1, 3]}, grads=('x',))

np.savez(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'detection_targets.npz'), **OUT)
print('recorded', len(OUT), 'arrays')
