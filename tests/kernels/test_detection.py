"""Detection ops (ops/detection.py, kernels/detection.py) against the numbers Paddle 1.8.5 computed for the same
programs (tests/golden/api/detection.npz, recorded by record_detection.py), a numpy reference for the box coder
and IoU, and finite-difference gradients of roi_align / roi_pool."""
import os
import zlib

import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.framework import Program, Scope, program_guard, unique_name
from tests.ops.test_math_ops import check_op_grad

L = fluid.layers
GOLDEN = np.load(os.path.join(os.path.dirname(os.path.dirname(__file__)), 'golden', 'api', 'detection.npz'))


def _run(case, build):
    feeds = {k.split('.in.')[1]: GOLDEN[k] for k in GOLDEN.files if k.startswith(case + '.in.')}
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        vars_ = {n: fluid.data(n, list(v.shape), str(v.dtype)) for n, v in feeds.items()}
        outs = build(**vars_)
    exe, scope = fluid.Executor(fluid.CPUPlace()), Scope()
    exe.run(startup, scope=scope)
    for param in main.global_block().all_parameters():       # seeded by name, as record_detection.py does
        values = np.random.RandomState(zlib.crc32(param.name.encode())).uniform(-0.5, 0.5, param.shape)
        scope.var(param.name).get_tensor().set(values.astype('float32'))
    return exe.run(main, feed=feeds, fetch_list=list(outs), scope=scope), feeds


CASES = {
    'iou': lambda x, y: [L.iou_similarity(x, y)],
    'iou_pixel': lambda x, y: [L.iou_similarity(x, y, box_normalized=False)],
    'encode': lambda p, v, t: [L.box_coder(p, v, t, 'encode_center_size')],
    'encode_list_var': lambda p, t: [L.box_coder(p, [0.1, 0.1, 0.2, 0.2], t, 'encode_center_size',
                                                 box_normalized=False)],
    'decode': lambda p, v, t: [L.box_coder(p, v, t, 'decode_center_size')],
    'decode_axis1': lambda p, t: [L.box_coder(p, [0.1, 0.1, 0.2, 0.2], t, 'decode_center_size', axis=1)],
    'prior_box': lambda f, i: list(L.prior_box(f, i, min_sizes=[4.0, 8.0], max_sizes=[9.0, 12.0],
                                               aspect_ratios=[2.0], flip=True, clip=True)),
    'prior_box_order': lambda f, i: list(L.prior_box(f, i, min_sizes=[4.0], max_sizes=[9.0],
                                                     aspect_ratios=[2.0, 3.0], steps=[8.0, 8.0], offset=0.3,
                                                     min_max_aspect_ratios_order=True)),
    'anchor': lambda f: list(L.anchor_generator(f, anchor_sizes=[32.0, 64.0], aspect_ratios=[0.5, 1.0],
                                                stride=[16.0, 16.0], variance=[0.1, 0.1, 0.2, 0.2])),
    'density_prior_box': lambda f, i: list(L.density_prior_box(f, i, densities=[2, 1], fixed_sizes=[6.0, 12.0],
                                                               fixed_ratios=[1.0, 2.0], clip=True)),
    'yolo_box': lambda x, s: list(L.yolo_box(x, s, anchors=[10, 13, 16, 30], class_num=3, conf_thresh=0.3,
                                             downsample_ratio=8)),
    'yolo_box_noclip': lambda x, s: list(L.yolo_box(x, s, anchors=[10, 13, 16, 30], class_num=3, conf_thresh=0.1,
                                                    downsample_ratio=8, clip_bbox=False)),
    'nms': lambda b, s: [L.multiclass_nms(b, s, score_threshold=0.2, nms_top_k=6, keep_top_k=7,
                                          nms_threshold=0.4)],
    'nms_pixel': lambda b, s: [L.multiclass_nms(b * 20, s, score_threshold=0.1, nms_top_k=-1, keep_top_k=-1,
                                                nms_threshold=0.3, normalized=False, background_label=-1)],
    'polygon': lambda x: [L.polygon_box_transform(x)],
    'roi_align': lambda x, r, l: [L.roi_align(x, r, 2, 3, spatial_scale=0.9, sampling_ratio=2, rois_lod=l)],
    'roi_align_adaptive': lambda x, r, l: [L.roi_align(x, r, 3, 2, spatial_scale=1.0, sampling_ratio=-1,
                                                       rois_lod=l)],
    'roi_pool': lambda x, r, l: [L.roi_pool(x, r, 2, 3, spatial_scale=0.9, rois_lod=l)],
    'bipartite': lambda d: list(L.bipartite_match(d)),
    'bipartite_per_prediction': lambda d: list(L.bipartite_match(d, 'per_prediction', 0.3)),
    'focal': lambda x, y, n: [L.sigmoid_focal_loss(x, y, n, gamma=2.0, alpha=0.25)],
    'detection_output': lambda loc, sc, p, v: [L.detection_output(loc, sc, p, v, nms_threshold=0.45, nms_top_k=10,
                                                                  keep_top_k=8, score_threshold=0.05)],
    'box_decoder_and_assign': lambda p, v, t, sc: list(L.box_decoder_and_assign(p, v, t, sc, 4.135)),
    'nms2': lambda b, s: list(fluid.contrib.multiclass_nms2(b, s, score_threshold=0.2, nms_top_k=6, keep_top_k=7,
                                                             nms_threshold=0.4, return_index=True)),
    'matrix_nms': lambda b, s: list(L.matrix_nms(b, s, score_threshold=0.2, post_threshold=0.1, nms_top_k=6,
                                                 keep_top_k=7, return_index=True)),
    'matrix_nms_gaussian': lambda b, s: [L.matrix_nms(b * 20, s, score_threshold=0.1, post_threshold=0.3,
                                                      nms_top_k=-1, keep_top_k=-1, use_gaussian=True,
                                                      gaussian_sigma=1.5, normalized=False, background_label=-1)],
    'multi_box_head': lambda f1, f2, im: list(L.multi_box_head([f1, f2], im, base_size=32, num_classes=3,
                                                               aspect_ratios=[[2.0], [2.0, 3.0]],
                                                               min_sizes=[6.0, 12.0], max_sizes=[12.0, 24.0],
                                                               flip=True, clip=True)),
}


@pytest.mark.parametrize('case', sorted(CASES))
def test_matches_paddle_1_8(case):
    got, _ = _run(case, CASES[case])
    for k, value in enumerate(got):
        want = GOLDEN['%s.out.%d' % (case, k)]
        assert value.shape == want.shape, (case, k)
        np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-5, err_msg='%s output %d' % (case, k))


def test_nms_rows_per_image_follow_paddles_lod():
    got, _ = _run('nms', CASES['nms'])
    lod = GOLDEN['nms.lod.0']
    from paddle_exec.kernels.nms import multiclass_nms
    b, s = GOLDEN['nms.in.b'], GOLDEN['nms.in.s']
    rows, offsets, _ = multiclass_nms(b, s, 0.2, 6, 7, 0.4, True, 1.0, 0)
    assert offsets == lod.tolist()
    np.testing.assert_allclose(rows, got[0])


def test_nms_without_detections_gives_minus_one():
    from paddle_exec.kernels.nms import multiclass_nms
    rows, offsets, _ = multiclass_nms(np.zeros((1, 2, 4), 'float32'), np.zeros((1, 2, 2), 'float32'), 0.5, -1, -1,
                                   0.3, True, 1.0, 0)
    assert rows.tolist() == [[-1.0]] and offsets == [0, 1]


def test_iou_and_encode_against_numpy():
    rng = np.random.default_rng(0)
    xy = rng.uniform(0, 0.5, (4, 2))
    x = np.concatenate([xy, xy + rng.uniform(0.1, 0.4, (4, 2))], 1).astype('float32')
    y = x[::-1].copy()
    from paddle_exec.kernels import detection as KD
    inter_w = np.clip(np.minimum(x[:, None, 2], y[None, :, 2]) - np.maximum(x[:, None, 0], y[None, :, 0]), 0, None)
    inter_h = np.clip(np.minimum(x[:, None, 3], y[None, :, 3]) - np.maximum(x[:, None, 1], y[None, :, 1]), 0, None)
    area = lambda b: (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    inter = inter_w * inter_h
    np.testing.assert_allclose(KD.iou_similarity(x, y), inter / (area(x)[:, None] + area(y)[None] - inter),
                               rtol=1e-6)
    enc = KD.box_encode_center_size(x, y, None, [0.1, 0.1, 0.2, 0.2])
    dec = KD.box_decode_center_size(enc, y, None, [0.1, 0.1, 0.2, 0.2])
    np.testing.assert_allclose(dec, np.broadcast_to(x[:, None], dec.shape), rtol=1e-5, atol=1e-6)


def test_box_clip_against_numpy():
    boxes = np.array([[[-3.0, 2.0, 50.0, 70.0], [5.0, -1.0, 10.0, 12.0]]], 'float32')
    im_info = np.array([[30.0, 40.0, 2.0]], 'float32')          # h 30, w 40, scale 2 -> 20 x 15 pixels
    (out,), _ = _run_feed(lambda b, im: [L.box_clip(b, im)], {'b': boxes, 'im': im_info})
    assert out.tolist() == [[[0.0, 2.0, 19.0, 14.0], [5.0, 0.0, 10.0, 12.0]]]


def _run_feed(build, feeds):
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        vars_ = {n: fluid.data(n, list(v.shape), str(v.dtype)) for n, v in feeds.items()}
        outs = build(**vars_)
    return fluid.Executor(fluid.CPUPlace()).run(main, feed=feeds, fetch_list=list(outs), scope=Scope()), feeds


def test_roi_align_grad_against_finite_differences():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 2, 6, 6))
    rois = np.array([[0.7, 1.2, 4.3, 5.1], [2.1, 0.4, 5.6, 3.3]])
    check_op_grad('roi_align', {'X': x, 'ROIs': rois}, wrt=('x',),
                  attrs={'pooled_height': 2, 'pooled_width': 2, 'spatial_scale': 1.0, 'sampling_ratio': 2})


def test_roi_pool_grad_against_finite_differences():
    rng = np.random.default_rng(4)
    x = rng.permutation(72).reshape(1, 2, 6, 6).astype('float64') / 7.0      # distinct values: argmax is stable
    rois = np.array([[0.0, 1.0, 4.0, 5.0], [2.0, 0.0, 5.0, 3.0]])
    check_op_grad('roi_pool', {'X': x, 'ROIs': rois}, wrt=('x',),
                  attrs={'pooled_height': 2, 'pooled_width': 2, 'spatial_scale': 1.0},
                  outputs=('Out', 'Argmax'))


def test_rois_of_several_images_need_their_lod():
    from paddle_exec.kernels.detection import roi_batch_ids
    assert roi_batch_ids(3, 2, [0, 1, 3]).tolist() == [0, 1, 1]
    assert roi_batch_ids(3, 2, [1, 2]).tolist() == [0, 1, 1]       # counts per image (2.x's boxes_num)
    with pytest.raises(ValueError, match='need their LoD'):
        roi_batch_ids(3, 2)
    with pytest.raises(ValueError, match='does not match'):
        roi_batch_ids(3, 2, [0, 1, 2])


def test_sigmoid_focal_loss_grad_against_finite_differences():
    rng = np.random.default_rng(5)
    x = rng.uniform(-2, 2, (5, 3))
    label = np.array([[0], [1], [3], [-1], [2]], 'int32')
    check_op_grad('sigmoid_focal_loss', {'X': x, 'Label': label, 'FgNum': np.array([3], 'int32')}, wrt=('x',),
                  attrs={'gamma': 2.0, 'alpha': 0.25})
