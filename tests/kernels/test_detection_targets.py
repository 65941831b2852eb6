"""The detection training builders (target_assign, mine_hard_examples through ssd_loss, yolov3_loss,
locality_aware_nms, the LoD of the NMS ops, generate_proposals,
rpn_target_assign) against the
numbers and gradients Paddle 1.8.5 computed for the same programs (tests/golden/api/detection_targets.npz,
recorded by record_detection_targets.py), and numpy references of the kernels."""
import os

import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.backward import append_backward
from paddle_exec.framework import Program, Scope, program_guard, unique_name
from paddle_exec.kernels import detection as KD
from paddle_exec.kernels import detection_targets as K
from paddle_exec.kernels import nms as KN
from paddle_exec.kernels import proposals as KP
from paddle_exec.kernels import rpn_targets as KR
from paddle_exec.kernels import yolov3_loss as KY
from paddle_exec.layers.helper import LayerHelper
from tests.kernels.gradcheck import check_grad, numeric_grad, projection

L = fluid.layers
GOLDEN = np.load(os.path.join(os.path.dirname(os.path.dirname(__file__)), 'golden', 'api', 'detection_targets.npz'))


def run_case(case, build, grads=()):
    """Builds `case` as record_detection_targets.py does and returns (fetched LoD tensors, golden outputs)."""
    feeds = {k.split('.in.')[1]: GOLDEN[k] for k in GOLDEN.files if k.startswith(case + '.in.')}
    lods = {}                            # name -> the lengths of each of its LoD levels
    for k in sorted(k for k in GOLDEN.files if k.startswith(case + '.inlod.')):
        name = k.split('.inlod.')[1].split('.')[0]
        lods.setdefault(name, []).append(list(GOLDEN[k]))
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        vars_ = {n: fluid.data(n, [None] + list(v.shape[1:]), str(v.dtype), lod_level=len(lods.get(n, ())))
                 for n, v in feeds.items()}
        for n in grads:
            vars_[n].stop_gradient = False
        outs = list(build(**vars_))
        if grads:
            append_backward(L.mean(outs[0]))
            outs += [main.global_block().var(n + '@GRAD') for n in grads]
    exe, scope = fluid.Executor(fluid.CPUPlace()), Scope()
    exe.run(startup, scope=scope)
    place = fluid.CPUPlace()
    feed = {n: fluid.create_lod_tensor(v, lods[n], place) if n in lods else v for n, v in feeds.items()}
    got = exe.run(main, feed=feed, fetch_list=outs, scope=scope, return_numpy=False)
    want = [(GOLDEN['%s.out.%d' % (case, k)], GOLDEN.get('%s.lod.%d' % (case, k))) for k in range(len(outs))]
    return got, want


def assert_matches(got, want, rtol=1e-5, atol=1e-6):
    for k, (g, (w, w_lod)) in enumerate(zip(got, want)):
        np.testing.assert_allclose(np.array(g), w, rtol=rtol, atol=atol, err_msg='fetch %d' % k)
        assert np.array(g).dtype == w.dtype, (k, np.array(g).dtype, w.dtype)
        if w_lod is not None:
            assert list(g.lod()[-1]) == list(w_lod), (k, g.lod(), w_lod)


# --- target_assign ------------------------------------------------------------------------------------------------

def target_assign_ref(x, lengths, match, neg=None, neg_lengths=None, mismatch=0):
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    n, p = match.shape
    out = np.full((n, p, x.shape[2]), mismatch, x.dtype)
    weight = np.zeros((n, p, 1), 'float32')
    for i in range(n):
        for j in range(p):
            if match[i, j] > -1:
                out[i, j] = x[offsets[i] + match[i, j], j % x.shape[1]]
                weight[i, j] = 1
    if neg is not None:
        neg_offsets = np.concatenate([[0], np.cumsum(neg_lengths)])
        for i in range(n):
            for j in neg[neg_offsets[i]:neg_offsets[i + 1], 0]:
                out[i, j] = mismatch
                weight[i, j] = 1
    return out, weight


def test_target_assign_matches_paddle_and_numpy():
    got, want = run_case('target_assign', lambda x, m: L.target_assign(x, m, mismatch_value=3))
    assert_matches(got, want)
    ref = target_assign_ref(GOLDEN['target_assign.in.x'], GOLDEN['target_assign.inlod.x'],
                            GOLDEN['target_assign.in.m'], mismatch=3)
    for g, r in zip(got, ref):
        np.testing.assert_array_equal(np.array(g), r)


def test_target_assign_negative_indices_int_input():
    got, want = run_case('target_assign_neg', lambda x, m, n: L.target_assign(x, m, n, mismatch_value=0))
    assert_matches(got, want)
    g = GOLDEN
    ref = target_assign_ref(g['target_assign_neg.in.x'], g['target_assign_neg.inlod.x'], g['target_assign_neg.in.m'],
                            g['target_assign_neg.in.n'], g['target_assign_neg.inlod.n'])
    for out, r in zip(got, ref):
        np.testing.assert_array_equal(np.array(out), r)


def test_target_assign_needs_lod():
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        x = fluid.data('x', [None, 6, 4], 'float32')
        m = fluid.data('m', [None, 6], 'int32')
        out, _ = L.target_assign(x, m)
    with pytest.raises(Exception, match='TargetAssignOp input\\(X\\) needs 1 level of LoD'):
        fluid.Executor(fluid.CPUPlace()).run(main, feed={'x': np.zeros((2, 6, 4), 'float32'),
                                                         'm': np.zeros((1, 6), 'int32')}, fetch_list=[out],
                                             scope=Scope())


def test_target_assign_shape_checks():
    with program_guard(Program(), Program()):
        x = fluid.data('x', [None, 4], 'float32', lod_level=1)
        m = fluid.data('m', [None, 6], 'int32')
        with pytest.raises(ValueError, match='Expected the rank of Input\\(X\\) is 3'):
            L.target_assign(x, m)


# --- mine_hard_examples -------------------------------------------------------------------------------------------

def mine_ref(cls_loss, loc_loss, match, dist, mining_type, ratio, threshold, sample_size):
    negs, updated = [], match.copy()
    for i in range(match.shape[0]):
        hard = mining_type == 'hard_example'
        eligible = [j for j in range(match.shape[1]) if hard or (match[i, j] == -1 and dist[i, j] < threshold)]
        loss = cls_loss[i] + (loc_loss[i] if hard and loc_loss is not None else 0)
        n_pos = int((match[i] != -1).sum())
        n_sel = min(sample_size, len(eligible)) if hard else min(int(n_pos * ratio), len(eligible))
        chosen = set(sorted(eligible, key=lambda j: -loss[j])[:n_sel])
        if hard:
            for j in range(match.shape[1]):
                if match[i, j] > -1 and j not in chosen:
                    updated[i, j] = -1
            negs.append([j for j in range(match.shape[1]) if match[i, j] == -1 and j in chosen])
        else:
            negs.append(sorted(chosen))
    return negs, updated


@pytest.mark.parametrize('mining_type', ['max_negative', 'hard_example'])
def test_mine_hard_examples_against_numpy(mining_type):
    rng = np.random.RandomState(3)
    match = rng.randint(-1, 3, (4, 12)).astype('int32')
    match[rng.rand(4, 12) < 0.4] = -1
    dist = rng.rand(4, 12).astype('float32')
    cls_loss, loc_loss = rng.rand(4, 12).astype('float32'), rng.rand(4, 12).astype('float32')
    neg, updated, offsets = K.mine_hard_examples(cls_loss, loc_loss, match, dist, mining_type, 1.5, 0.6, 5)
    want_negs, want_updated = mine_ref(cls_loss, loc_loss, match, dist, mining_type, 1.5, 0.6, 5)
    assert [list(neg[offsets[i]:offsets[i + 1], 0]) for i in range(4)] == want_negs
    np.testing.assert_array_equal(updated, want_updated)
    assert neg.dtype == np.int32 and neg.shape == (offsets[-1], 1)


def test_mine_hard_examples_attribute_checks():
    with program_guard(Program(), Program()):
        helper = LayerHelper('mine_hard_examples')
        loss = fluid.data('l', [2, 5], 'float32')
        match = fluid.data('m', [2, 5], 'int32')
        outs = {'NegIndices': helper.create_variable_for_type_inference('int32'),
                'UpdatedMatchIndices': helper.create_variable_for_type_inference('int32')}
        with pytest.raises(ValueError, match='sample_size must greater than zero in hard_example mode'):
            helper.append_op(type='mine_hard_examples',
                             inputs={'ClsLoss': loss, 'MatchIndices': match, 'MatchDist': loss},
                             outputs=outs, attrs={'mining_type': 'hard_example', 'sample_size': 0})
        with pytest.raises(ValueError, match='neg_dist_threshold must less than one'):
            helper.append_op(type='mine_hard_examples',
                             inputs={'ClsLoss': loss, 'MatchIndices': match, 'MatchDist': loss},
                             outputs=outs, attrs={'neg_dist_threshold': 1.5})


# --- bipartite_match over LoD instances, ssd_loss ----------------------------------------------------------------

def test_bipartite_match_per_instance():
    rng = np.random.RandomState(5)
    dist = rng.rand(5, 6).astype('float32')
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        d = fluid.data('d', [None, 6], 'float32', lod_level=1)
        idx, md = L.bipartite_match(d)
    got = fluid.Executor(fluid.CPUPlace()).run(
        main, feed={'d': fluid.create_lod_tensor(dist, [[2, 3]], fluid.CPUPlace())}, fetch_list=[idx, md],
        scope=Scope())
    assert got[0].shape == (2, 6)
    for i, (lo, hi) in enumerate([(0, 2), (2, 5)]):
        one_idx, one_dist = KD.bipartite_match(dist[lo:hi], 'bipartite', 0.5)
        np.testing.assert_array_equal(got[0][i], one_idx[0])
        np.testing.assert_array_equal(got[1][i], one_dist[0])


def _ssd(loc, conf, gt, lbl, p, pv):
    return [L.ssd_loss(loc, conf, gt, lbl, p, pv)]


def _ssd_bipartite(loc, conf, gt, lbl, p, pv):
    return [L.ssd_loss(loc, conf, gt, lbl, p, pv, background_label=0, overlap_threshold=0.3, neg_pos_ratio=2.0,
                       neg_overlap=0.4, loc_loss_weight=0.5, conf_loss_weight=2.0, match_type='bipartite',
                       normalize=False)]


@pytest.mark.parametrize('case,build', [('ssd_loss', _ssd), ('ssd_loss_bipartite', _ssd_bipartite)])
def test_ssd_loss_and_gradients_match_paddle(case, build):
    got, want = run_case(case, build, grads=('loc', 'conf'))
    assert_matches(got, want, rtol=1e-5, atol=1e-6)


def test_ssd_loss_only_max_negative():
    with program_guard(Program(), Program()):
        loc = fluid.data('loc', [2, 3, 4], 'float32')
        conf = fluid.data('conf', [2, 3, 5], 'float32')
        gt = fluid.data('gt', [None, 4], 'float32', lod_level=1)
        lbl = fluid.data('lbl', [None, 1], 'float32', lod_level=1)
        p = fluid.data('p', [3, 4], 'float32')
        with pytest.raises(ValueError, match='Only support mining_type == max_negative now.'):
            L.ssd_loss(loc, conf, gt, lbl, p, p, mining_type='hard_example')


# --- yolov3_loss --------------------------------------------------------------------------------------------------

def _with_masks(loss):
    op = loss.block.ops[-1]
    return [loss, loss.block.var(op.output('ObjectnessMask')[0]), loss.block.var(op.output('GTMatchMask')[0])]


def _yolo(x, box, label):
    return _with_masks(L.yolov3_loss(x, box, label, anchors=[10, 13, 16, 30, 33, 23], anchor_mask=[0, 1],
                                     class_num=3, ignore_thresh=0.7, downsample_ratio=8))


def _yolo_score(x, box, label, score):
    return _with_masks(L.yolov3_loss(x, box, label, anchors=[10, 13, 16, 30, 33, 23], anchor_mask=[1, 2],
                                     class_num=3, ignore_thresh=0.3, downsample_ratio=8, gt_score=score,
                                     use_label_smooth=False, scale_x_y=1.2))


@pytest.mark.parametrize('case,build', [('yolov3_loss', _yolo), ('yolov3_loss_score', _yolo_score)])
def test_yolov3_loss_masks_and_gradient_match_paddle(case, build):
    got, want = run_case(case, build, grads=('x',))
    assert_matches(got, want, rtol=1e-5, atol=1e-6)


def yolov3_loss_ref(x, box, label, score, anchors, mask, class_num, ignore, downsample, smooth, scale_xy):
    """Paddle's yolov3 loss written out in numpy (float64), from the op's documentation."""
    sig = lambda v: 1 / (1 + np.exp(-v))                                           # noqa: E731
    sce = lambda v, t: max(v, 0) - v * t + np.log1p(np.exp(-abs(v)))               # noqa: E731

    def iou(a, b):
        ow = min(a[0] + a[2] / 2, b[0] + b[2] / 2) - max(a[0] - a[2] / 2, b[0] - b[2] / 2)
        oh = min(a[1] + a[3] / 2, b[1] + b[3] / 2) - max(a[1] - a[3] / 2, b[1] - b[3] / 2)
        inter = 0 if ow < 0 or oh < 0 else ow * oh
        return inter / (a[2] * a[3] + b[2] * b[3] - inter)
    n, _, h, w = x.shape
    size = downsample * h
    x = x.reshape(n, len(mask), 5 + class_num, h, w)
    s = min(1 / class_num, 1 / 40) if smooth else 0.0
    loss = np.zeros(n)
    for i in range(n):
        valid = [t for t in range(box.shape[1]) if box[i, t, 2] >= 1e-6 and box[i, t, 3] >= 1e-6]
        obj = np.zeros((len(mask), h, w))
        for j, a in enumerate(mask):
            for k in range(h):
                for c in range(w):
                    p = [(c + sig(x[i, j, 0, k, c]) * scale_xy - 0.5 * (scale_xy - 1)) / h,
                         (k + sig(x[i, j, 1, k, c]) * scale_xy - 0.5 * (scale_xy - 1)) / h,
                         np.exp(x[i, j, 2, k, c]) * anchors[2 * a] / size,
                         np.exp(x[i, j, 3, k, c]) * anchors[2 * a + 1] / size]
                    if max([iou(p, box[i, t]) for t in valid] + [0]) > ignore:
                        obj[j, k, c] = -1
        for t in valid:
            g = box[i, t]
            ious = [iou([0, 0, anchors[2 * q] / size, anchors[2 * q + 1] / size], [0, 0, g[2], g[3]])
                    for q in range(len(anchors) // 2)]
            best = int(np.argmax(ious))
            if best not in mask:
                continue
            j, gi, gj = mask.index(best), int(g[0] * w), int(g[1] * h)
            v = x[i, j, :, gj, gi]
            wt = (2 - g[2] * g[3]) * score[i, t]
            loss[i] += wt * (sce(v[0], g[0] * h - gi) + sce(v[1], g[1] * h - gj)
                             + abs(v[2] - np.log(g[2] * size / anchors[2 * best]))
                             + abs(v[3] - np.log(g[3] * size / anchors[2 * best + 1])))
            loss[i] += score[i, t] * sum(sce(v[5 + c], 1 - s if c == label[i, t] else s) for c in range(class_num))
            obj[j, gj, gi] = score[i, t]
        for j in range(len(mask)):
            for k in range(h):
                for c in range(w):
                    if obj[j, k, c] > 1e-5:
                        loss[i] += sce(x[i, j, 4, k, c], 1.0) * obj[j, k, c]
                    elif obj[j, k, c] > -0.5:
                        loss[i] += sce(x[i, j, 4, k, c], 0.0)
    return loss


def test_yolov3_loss_against_numpy_reference():
    g = GOLDEN
    x, box, label = g['yolov3_loss_score.in.x'], g['yolov3_loss_score.in.box'], g['yolov3_loss_score.in.label']
    score = g['yolov3_loss_score.in.score']
    anchors = [10, 13, 16, 30, 33, 23]
    for mask, smooth, scale_xy, ignore, sc in [([0, 1], True, 1.0, 0.7, None), ([1, 2], False, 1.2, 0.3, score)]:
        loss, _, _ = KY.yolov3_loss(x.astype('float64'), box, label, sc, anchors, mask, 3, ignore, 8, smooth, scale_xy)
        ref = yolov3_loss_ref(x.astype('float64'), box.astype('float64'), label,
                              np.ones((2, 4)) if sc is None else sc.astype('float64'), anchors, mask, 3, ignore, 8,
                              smooth, scale_xy)
        np.testing.assert_allclose(loss, ref, rtol=1e-6)


def test_yolov3_loss_gradient_finite_differences():
    g = GOLDEN
    x = g['yolov3_loss_score.in.x'].astype('float64')
    box, label, score = g['yolov3_loss_score.in.box'], g['yolov3_loss_score.in.label'], g['yolov3_loss_score.in.score']
    args = ([10, 13, 16, 30, 33, 23], [1, 2], 3)
    proj = projection((2,), seed=4)

    def f(xx):
        return float(np.dot(KY.yolov3_loss(xx, box, label, score, *args, 0.3, 8, True, 1.2)[0], proj))
    _, obj_mask, match = KY.yolov3_loss(x, box, label, score, *args, 0.3, 8, True, 1.2)
    dx = KY.yolov3_loss_grad(x, box, label, score, proj, obj_mask, match, *args, 8, True)
    check_grad(dx, numeric_grad(f, [x], 0, eps=1e-6))


def test_yolov3_loss_argument_checks():
    with program_guard(Program(), Program()):
        x = fluid.data('x', [None, 16, 4, 4], 'float32')
        box = fluid.data('box', [None, 4, 4], 'float32')
        label = fluid.data('label', [None, 4], 'int32')
        with pytest.raises(TypeError, match='Attr ignore_thresh of yolov3_loss must be a float number'):
            L.yolov3_loss(x, box, label, [10, 13, 16, 30], [0, 1], 3, 1, 8)
        with pytest.raises(ValueError, match=r'anchor_mask_number \* \(5 \+ class_num\)'):
            L.yolov3_loss(x, box, label, [10, 13, 16, 30], [0, 1], 4, 0.5, 8)


# --- locality_aware_nms; the LoD of multiclass_nms, multiclass_nms2, matrix_nms ------------------------------------

NMS_CASES = {
    'locality_aware_nms': lambda b, s: [L.locality_aware_nms(b, s, score_threshold=0.2, nms_top_k=8, keep_top_k=5,
                                                             nms_threshold=0.3)],
    'locality_aware_nms_pixel': lambda b, s: [L.locality_aware_nms(b * 40, s, score_threshold=0.01, nms_top_k=-1,
                                                                   keep_top_k=-1, nms_threshold=0.5,
                                                                   normalized=False, nms_eta=0.9)],
    'locality_aware_nms_none': lambda b, s: [L.locality_aware_nms(b, s, score_threshold=5.0, nms_top_k=-1,
                                                                  keep_top_k=-1)],
    'nms_lod': lambda b, s: [L.multiclass_nms(b, s, score_threshold=0.3, nms_top_k=5, keep_top_k=6,
                                              nms_threshold=0.4)],
    'nms2_lod': lambda b, s: list(fluid.contrib.multiclass_nms2(b, s, score_threshold=0.3, nms_top_k=5, keep_top_k=6,
                                                                nms_threshold=0.4, return_index=True)),
    'matrix_nms_lod': lambda b, s: list(L.matrix_nms(b, s, score_threshold=0.3, post_threshold=0.2, nms_top_k=5,
                                                     keep_top_k=6, return_index=True)),
}


@pytest.mark.parametrize('case', sorted(NMS_CASES))
def test_nms_outputs_and_lod_match_paddle(case):
    got, want = run_case(case, NMS_CASES[case])
    assert_matches(got, want)


def locality_merge_ref(boxes, scores, threshold):
    """EAST's merge pass in numpy: (merged boxes, summed scores, which boxes survive)."""
    boxes, scores = boxes.astype('float64'), scores.astype('float64')
    keep, index = np.zeros(len(scores), bool), -1
    for i in range(len(scores)):
        if index > -1 and KD.iou_similarity(boxes[i:i + 1], boxes[index:index + 1], True)[0, 0] > threshold:
            boxes[index] = (boxes[i] * scores[i] + boxes[index] * scores[index]) / (scores[i] + scores[index])
            scores[index] += scores[i]
        else:
            if index > -1:
                keep[index] = True
            index = i
    keep[index] = True
    return boxes, scores, keep


def test_locality_aware_nms_against_numpy_reference():
    b, s = GOLDEN['locality_aware_nms.in.b'], GOLDEN['locality_aware_nms.in.s']
    out, offsets = KN.locality_aware_nms(b.astype('float64'), s.astype('float64'), 0.2, 8, 5, 0.3, True, 1.0, -1)
    for n in range(2):
        merged, summed, keep = locality_merge_ref(b[n], s[n, 0], 0.3)
        order = [i for i in np.argsort(-summed, kind='stable') if keep[i] and summed[i] > 0.2][:8]
        kept = []
        for i in order:
            if all(KD.iou_similarity(merged[i:i + 1], merged[j:j + 1], True)[0, 0] <= 0.3 for j in kept):
                kept.append(i)
        kept = sorted(kept, key=lambda i: -summed[i])[:5]
        rows = out[offsets[n]:offsets[n + 1]]
        np.testing.assert_allclose(rows[:, 1], summed[kept], rtol=1e-12)
        np.testing.assert_allclose(rows[:, 2:], merged[kept], rtol=1e-12)


def test_locality_aware_nms_checks():
    with program_guard(Program(), Program()):
        b = fluid.data('b', [2, 10, 4], 'float32')
        s = fluid.data('s', [2, 2, 10], 'float32')
        with pytest.raises(AssertionError, match='locality_aware_nms only support one class'):
            L.locality_aware_nms(b, s, 0.1, 5, 5)
        with pytest.raises(TypeError, match="The type of 'score_threshold' in locality_aware_nms must be"):
            L.locality_aware_nms(b, fluid.data('s1', [2, 1, 10], 'float32'), 1, 5, 5)
        with pytest.raises(NotImplementedError, match='4 coordinates'):
            L.locality_aware_nms(fluid.data('b8', [2, 10, 8], 'float32'), fluid.data('s2', [2, 1, 10], 'float32'),
                                 0.1, 5, 5)


# --- generate_proposals -------------------------------------------------------------------------------------------

PROPOSAL_CASES = {
    'generate_proposals': lambda s, d, im, an, v: list(L.generate_proposals(
        s, d, im, an, v, pre_nms_top_n=60, post_nms_top_n=12, nms_thresh=0.5, min_size=3.0, return_rois_num=True)),
    'generate_proposals_all': lambda s, d, im, an, v: list(L.generate_proposals(
        s, d, im, an, v, pre_nms_top_n=-1, post_nms_top_n=-1, nms_thresh=0.7, min_size=0.1, eta=0.8)),
    'generate_proposals_no_nms': lambda s, d, im, an, v: list(L.generate_proposals(
        s, d, im, an, v, pre_nms_top_n=500, post_nms_top_n=5, nms_thresh=0.0, min_size=6.0)),
}


@pytest.mark.parametrize('case', sorted(PROPOSAL_CASES))
def test_generate_proposals_match_paddle(case):
    got, want = run_case(case, PROPOSAL_CASES[case])
    assert_matches(got, want, rtol=1e-5, atol=1e-4)


def proposals_ref(scores, deltas, im_info, anchors, variances, pre, post, thresh, min_size):
    """One image's proposals in numpy (float64), from the op's documentation."""
    s = scores.transpose(1, 2, 0).reshape(-1)
    d = deltas.transpose(1, 2, 0).reshape(-1, 4)
    an, var = anchors.reshape(-1, 4), variances.reshape(-1, 4)
    order = np.argsort(-s, kind='stable')[:pre]
    aw, ah = an[order, 2] - an[order, 0] + 1, an[order, 3] - an[order, 1] + 1
    cx = var[order, 0] * d[order, 0] * aw + an[order, 0] + aw / 2
    cy = var[order, 1] * d[order, 1] * ah + an[order, 1] + ah / 2
    w = np.exp(np.minimum(var[order, 2] * d[order, 2], np.log(1000 / 16))) * aw
    h = np.exp(np.minimum(var[order, 3] * d[order, 3], np.log(1000 / 16))) * ah
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2 - 1, cy + h / 2 - 1], 1)
    boxes = np.clip(boxes, 0, np.array([im_info[1], im_info[0], im_info[1], im_info[0]]) - 1)
    ws, hs = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
    ok = ((ws / im_info[2] + 1 >= max(min_size, 1)) & (hs / im_info[2] + 1 >= max(min_size, 1))
          & (boxes[:, 0] + (ws + 1) / 2 <= im_info[1]) & (boxes[:, 1] + (hs + 1) / 2 <= im_info[0]))
    boxes, s = boxes[ok], s[order][ok]
    kept = []
    for i in np.argsort(-s, kind='stable'):
        if all(KD.iou_similarity(boxes[i:i + 1], boxes[j:j + 1], False)[0, 0] <= thresh for j in kept):
            kept.append(i)
    return boxes[kept[:post]], s[kept[:post]]


def test_generate_proposals_against_numpy_reference():
    g = {k: GOLDEN['generate_proposals.in.' + k].astype('float64') for k in ('s', 'd', 'im', 'an', 'v')}
    rois, probs, counts = KP.generate_proposals(g['s'], g['d'], g['im'], g['an'], g['v'], 60, 12, 0.5, 3.0, 1.0)
    offsets = [0] + list(np.cumsum(counts))
    for i in range(2):
        boxes, scores = proposals_ref(g['s'][i], g['d'][i], g['im'][i], g['an'], g['v'], 60, 12, 0.5, 3.0)
        np.testing.assert_allclose(rois[offsets[i]:offsets[i + 1]], boxes, rtol=1e-12)
        np.testing.assert_allclose(probs[offsets[i]:offsets[i + 1], 0], scores, rtol=1e-12)


# --- rpn_target_assign --------------------------------------------------------------------------------------------

def _rpn(batch, straddle, fg, pos, neg):
    return lambda bbox, cls, an, v, gt, crowd, im: list(L.rpn_target_assign(
        bbox, cls, an, v, gt, crowd, im, rpn_batch_size_per_im=batch, rpn_straddle_thresh=straddle,
        rpn_fg_fraction=fg, rpn_positive_overlap=pos, rpn_negative_overlap=neg, use_random=False))


RPN_CASES = {'rpn_target_assign': _rpn(32, 0.0, 0.25, 0.5, 0.2),
             'rpn_target_assign_all': _rpn(256, -1.0, 0.5, 0.6, 0.3),
             'rpn_target_assign_fake': _rpn(64, 2.0, 0.5, 0.9, 0.6)}


@pytest.mark.parametrize('case', sorted(RPN_CASES))
def test_rpn_target_assign_matches_paddle(case):
    got, want = run_case(case, RPN_CASES[case])
    assert_matches(got, want)


def test_rpn_sampling_against_numpy_reference():
    """The Faster R-CNN labelling written out: best anchors and high overlaps are foreground, low ones background,
    first-come when sampling is off; a background anchor that was foreground leaves a zero-weight entry."""
    rng = np.random.RandomState(0)
    overlaps = rng.rand(40, 3).astype('float32') * 0.8
    loc, score, labels, gt_index, weights = KR.rpn_sample(overlaps, 12, 0.5, 0.7, 0.5, None, False)
    best = set(np.nonzero((overlaps == overlaps.max(0)).any(1))[0]) | set(np.nonzero(overlaps.max(1) >= 0.7)[0])
    fg = sorted(best)[:6]
    bg = list(np.nonzero(overlaps.max(1) < 0.5)[0])[:12 - len(fg)]
    fake = [fg[0] for i in bg if i in fg]
    real_fg = [i for i in fg if i not in bg]
    assert list(loc) == fake + real_fg
    assert list(score) == real_fg + sorted(bg)
    assert list(labels) == [1] * len(real_fg) + [0] * len(bg)
    np.testing.assert_array_equal(gt_index, overlaps.argmax(1)[fake + real_fg])
    np.testing.assert_array_equal(weights, np.repeat([[0.0]] * len(fake) + [[1.0]] * len(real_fg), 4, 1))


def test_reservoir_sample_keeps_a_subset_of_the_requested_size():
    rng = np.random.default_rng(3)
    picked = KR.reservoir_sample(list(range(50)), 7, rng, True)
    assert len(picked) == 7 and len(set(picked)) == 7 and set(picked) <= set(range(50))
    assert KR.reservoir_sample(list(range(5)), 7, rng, True) == list(range(5))


def test_box_overlaps_and_deltas_against_numpy():
    a = np.array([[0, 0, 9, 9], [5, 5, 14, 20]], 'float64')
    b = np.array([[0, 0, 9, 9], [10, 10, 19, 19], [2, 3, 7, 12]], 'float64')
    np.testing.assert_allclose(KR.bbox_overlaps(a, b), KD.iou_similarity(a, b, False))
    d = KR.box_to_delta(a, b[:2])
    w, h = a[:, 2] - a[:, 0] + 1, a[:, 3] - a[:, 1] + 1
    gw, gh = b[:2, 2] - b[:2, 0] + 1, b[:2, 3] - b[:2, 1] + 1
    np.testing.assert_allclose(d[:, 2], np.log(gw / w))
    np.testing.assert_allclose(d[:, 0], (b[:2, 0] + gw / 2 - a[:, 0] - w / 2) / w)
    np.testing.assert_allclose(d[:, 3], np.log(gh / h))


RETINA_CASES = {
    'retinanet_target_assign': lambda bbox, cls, an, v, gt, lbl, crowd, im: list(L.retinanet_target_assign(
        bbox, cls, an, v, gt, lbl, crowd, im, num_classes=3, positive_overlap=0.5, negative_overlap=0.4)),
    'retinanet_target_assign_low': lambda bbox, cls, an, v, gt, lbl, crowd, im: list(L.retinanet_target_assign(
        bbox, cls, an, v, gt, lbl, crowd, im, num_classes=3, positive_overlap=0.9, negative_overlap=0.6)),
}


@pytest.mark.parametrize('case', sorted(RETINA_CASES))
def test_retinanet_target_assign_matches_paddle(case):
    got, want = run_case(case, RETINA_CASES[case])
    assert_matches(got, want)


def test_retinanet_labels_are_the_best_boxes_classes():
    rng = np.random.RandomState(1)
    overlaps = rng.rand(30, 4).astype('float32')
    classes = np.array([3, 1, 2, 5], np.int32)
    loc, score, labels, gt_index, weights, fg_count = KR.retinanet_sample(overlaps, classes, 0.8, 0.3)
    best = (overlaps == overlaps.max(0)).any(1) | (overlaps.max(1) >= 0.8)
    fg = np.nonzero(best & (overlaps.max(1) >= 0.3))[0]
    bg = np.nonzero(overlaps.max(1) < 0.3)[0]
    np.testing.assert_array_equal(score, np.concatenate([fg, bg]))
    np.testing.assert_array_equal(labels, np.concatenate([classes[overlaps.argmax(1)[fg]], np.zeros(len(bg))]))
    assert fg_count == int(best.sum()) + 1
    assert weights.shape == (len(loc), 4) and weights.sum() == 4 * len(fg)


# --- retinanet_detection_output -----------------------------------------------------------------------------------

RETINA_OUT_CASES = {
    'retinanet_detection_output': lambda b0, s0, a0, b1, s1, a1, im: [L.retinanet_detection_output(
        [b0, b1], [s0, s1], [a0, a1], im, score_threshold=0.3, nms_top_k=10, keep_top_k=12, nms_threshold=0.4)],
    'retinanet_detection_output_one': lambda b0, s0, a0, b1, s1, a1, im: [L.retinanet_detection_output(
        [b0], [s0], [a0], im, score_threshold=0.5, nms_top_k=100, keep_top_k=100, nms_threshold=0.5)],
}


@pytest.mark.parametrize('case', sorted(RETINA_OUT_CASES))
def test_retinanet_detection_output_matches_paddle(case):
    got, want = run_case(case, RETINA_OUT_CASES[case])
    assert_matches(got, want, rtol=1e-5, atol=1e-4)


def test_retinanet_detection_output_against_numpy_reference():
    """One level, one image: every score above the threshold decoded, then per-class NMS, best first."""
    g = {k: GOLDEN['retinanet_detection_output.in.' + k].astype('float64') for k in ('b0', 's0', 'a0', 'im')}
    out, offsets = KN.retinanet_detection_output([g['b0'][:1]], [g['s0'][:1]], [g['a0']], g['im'][:1], 0.5, -1,
                                                 100, 0.45, 1.0)
    h, w, scale = g['im'][0]
    rows = []
    for c in range(3):
        idx = [a for a in np.argsort(-g['s0'][0, :, c], kind='stable') if g['s0'][0, a, c] > 0]   # last level: > 0
        anc, d = g['a0'][idx], g['b0'][0, idx]
        aw, ah = anc[:, 2] - anc[:, 0] + 1, anc[:, 3] - anc[:, 1] + 1
        cx, cy = d[:, 0] * aw + anc[:, 0] + aw / 2, d[:, 1] * ah + anc[:, 1] + ah / 2
        bw, bh = np.exp(d[:, 2]) * aw, np.exp(d[:, 3]) * ah
        box = np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2 - 1, cy + bh / 2 - 1], 1) / scale
        box = np.clip(box, 0, np.array([round(w / scale), round(h / scale)] * 2) - 1)
        kept = []
        for i in range(len(idx)):
            if all(KD.iou_similarity(box[i:i + 1], box[j:j + 1], False)[0, 0] <= 0.45 for j in kept):
                kept.append(i)
        rows += [[c + 1, g['s0'][0, idx[i], c], *box[i]] for i in kept]
    rows.sort(key=lambda r: -r[1])
    assert offsets == [0, len(rows)]
    np.testing.assert_allclose(out, np.array(rows), rtol=1e-12)


# --- generate_proposal_labels -------------------------------------------------------------------------------------

def _labels(**kw):
    return lambda rois, cls, crowd, gt, im: list(L.generate_proposal_labels(rois, cls, crowd, gt, im,
                                                                            use_random=False, **kw))


LABEL_CASES = {
    'proposal_labels': _labels(batch_size_per_im=8, fg_fraction=0.25, fg_thresh=0.5, bg_thresh_hi=0.5,
                               bg_thresh_lo=0.0, class_nums=4),
    'proposal_labels_agnostic': _labels(batch_size_per_im=64, fg_fraction=0.5, fg_thresh=0.3, bg_thresh_hi=0.3,
                                        bg_thresh_lo=0.05, bbox_reg_weights=[1.0, 1.0, 0.5, 0.5], class_nums=2,
                                        is_cls_agnostic=True),
    'proposal_labels_cascade': _labels(batch_size_per_im=64, fg_fraction=0.25, fg_thresh=0.5, bg_thresh_hi=0.5,
                                       bg_thresh_lo=0.0, class_nums=4, is_cascade_rcnn=True),
    'proposal_labels_cascade2': _labels(batch_size_per_im=64, fg_fraction=0.5, fg_thresh=0.4, bg_thresh_hi=0.4,
                                        bg_thresh_lo=0.1, class_nums=4, is_cascade_rcnn=True, is_cls_agnostic=True),
}


@pytest.mark.parametrize('case', sorted(LABEL_CASES))
def test_generate_proposal_labels_matches_paddle(case):
    got, want = run_case(case, LABEL_CASES[case])
    assert_matches(got, want, rtol=1e-5, atol=1e-5)


def test_proposal_labels_against_numpy_reference():
    """Ground truth first, then the RoIs at the original scale; foreground by best overlap (crowd never), first
    come when sampling is off; targets in the label's column block, weights 1 there."""
    g = {k: GOLDEN['proposal_labels.in.' + k] for k in ('rois', 'cls', 'crowd', 'gt', 'im')}
    rois, gt, scale = g['rois'][:12].astype('float64'), g['gt'][:3].astype('float64'), 1.1
    boxes = np.concatenate([gt, rois / scale])
    ov = KD.iou_similarity(boxes, gt, False)
    best = ov.max(1)
    best[:3][g['crowd'][:3, 0] == 1] = -1               # a crowd box is never foreground
    fg = [i for i in range(len(boxes)) if best[i] >= 0.5][:2]
    bg = [i for i in range(len(boxes)) if 0 <= best[i] < 0.5][:8 - len(fg)]
    out_rois, labels, targets, inside, outside = KR.proposal_labels(
        rois, g['cls'][:3, 0], g['crowd'][:3, 0], gt, scale, 8, 0.25, 0.5, 0.5, 0.0, [0.1, 0.1, 0.2, 0.2], 4, None,
        False, False, False)
    np.testing.assert_allclose(out_rois, boxes[fg + bg] * scale)
    gt_of = ov.argmax(1)
    np.testing.assert_array_equal(labels, list(g['cls'][:3, 0][gt_of[fg]]) + [0] * len(bg))
    for r, i in enumerate(fg):
        c = labels[r]
        want = KR.box_to_delta(boxes[i:i + 1], gt[gt_of[i]:gt_of[i] + 1], [0.1, 0.1, 0.2, 0.2])[0]
        np.testing.assert_allclose(targets[r, 4 * c:4 * c + 4], want)
        assert inside[r].sum() == 4 and outside[r, 4 * c:4 * c + 4].sum() == 4
    assert not targets[len(fg):].any() and not inside[len(fg):].any()
