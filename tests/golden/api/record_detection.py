"""Records what Paddle 1.8.5 computes for fluid.layers.detection (and roi_align / roi_pool) on fixed inputs, into
detection.npz beside this file. Runs only where Paddle 1.8.5 is installed:

    /work/pd18/bin/python tests/golden/api/record_detection.py

Keys: '<case>.in.<name>' inputs, '<case>.out.<k>' outputs (k-th fetch), '<case>.lod.<k>' the LoD offsets of a
LoD output. tests/kernels/test_detection.py builds the same programs on paddle_exec and compares.
"""
import os
import zlib

import numpy as np
import paddle.fluid as fluid

L = fluid.layers
rng = np.random.RandomState(12)
OUT = {}


def boxes(n, scale=1.0):
    xy = rng.uniform(0, 0.6, (n, 2))
    wh = rng.uniform(0.1, 0.4, (n, 2))
    return (np.concatenate([xy, xy + wh], 1) * scale).astype('float32')


def run(case, build, feeds):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        vars_ = {n: fluid.data(n, list(v.shape), str(v.dtype)) for n, v in feeds.items()}
        outs = build(**vars_)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    for param in main.global_block().all_parameters():       # parameters seeded by their names, not by Paddle
        values = np.random.RandomState(zlib.crc32(param.name.encode())).uniform(-0.5, 0.5, param.shape)
        fluid.global_scope().find_var(param.name).get_tensor().set(values.astype('float32'), fluid.CPUPlace())
    res = exe.run(main, feed=feeds, fetch_list=list(outs), return_numpy=False)
    for n, v in feeds.items():
        OUT['%s.in.%s' % (case, n)] = v
    for k, r in enumerate(res):
        OUT['%s.out.%d' % (case, k)] = np.array(r)
        if r.lod():
            OUT['%s.lod.%d' % (case, k)] = np.array(r.lod()[-1], 'int64')


run('iou', lambda x, y: [L.iou_similarity(x, y)], {'x': boxes(5), 'y': boxes(3)})
run('iou_pixel', lambda x, y: [L.iou_similarity(x, y, box_normalized=False)],
    {'x': boxes(4, 20), 'y': boxes(3, 20)})
prior, pvar = boxes(6), rng.uniform(0.1, 0.3, (6, 4)).astype('float32')
run('encode', lambda p, v, t: [L.box_coder(p, v, t, 'encode_center_size')],
    {'p': prior, 'v': pvar, 't': boxes(4)})
run('encode_list_var', lambda p, t: [L.box_coder(p, [0.1, 0.1, 0.2, 0.2], t, 'encode_center_size',
                                                 box_normalized=False)],
    {'p': boxes(6, 30), 't': boxes(4, 30)})
run('decode', lambda p, v, t: [L.box_coder(p, v, t, 'decode_center_size')],
    {'p': prior, 'v': pvar, 't': rng.uniform(-1, 1, (3, 6, 4)).astype('float32')})
run('decode_axis1', lambda p, t: [L.box_coder(p, [0.1, 0.1, 0.2, 0.2], t, 'decode_center_size', axis=1)],
    {'p': boxes(3), 't': rng.uniform(-1, 1, (3, 5, 4)).astype('float32')})
feat, img = rng.rand(1, 2, 3, 4).astype('float32'), rng.rand(1, 3, 30, 40).astype('float32')
run('prior_box', lambda f, i: list(L.prior_box(f, i, min_sizes=[4.0, 8.0], max_sizes=[9.0, 12.0],
                                               aspect_ratios=[2.0], flip=True, clip=True)), {'f': feat, 'i': img})
run('prior_box_order', lambda f, i: list(L.prior_box(f, i, min_sizes=[4.0], max_sizes=[9.0],
                                                     aspect_ratios=[2.0, 3.0], steps=[8.0, 8.0], offset=0.3,
                                                     min_max_aspect_ratios_order=True)), {'f': feat, 'i': img})
run('anchor', lambda f: list(L.anchor_generator(f, anchor_sizes=[32.0, 64.0], aspect_ratios=[0.5, 1.0],
                                                 stride=[16.0, 16.0], variance=[0.1, 0.1, 0.2, 0.2])),
    {'f': feat})
run('density_prior_box', lambda f, i: list(L.density_prior_box(f, i, densities=[2, 1], fixed_sizes=[6.0, 12.0],
                                                               fixed_ratios=[1.0, 2.0], clip=True)),
    {'f': feat, 'i': img})
yx = rng.uniform(-2, 2, (2, 2 * (5 + 3), 3, 4)).astype('float32')
run('yolo_box', lambda x, s: list(L.yolo_box(x, s, anchors=[10, 13, 16, 30], class_num=3, conf_thresh=0.3,
                                             downsample_ratio=8)),
    {'x': yx, 's': np.array([[24, 32], [40, 30]], 'int32')})
run('yolo_box_noclip', lambda x, s: list(L.yolo_box(x, s, anchors=[10, 13, 16, 30], class_num=3, conf_thresh=0.1,
                                                    downsample_ratio=8, clip_bbox=False)),
    {'x': yx, 's': np.array([[24, 32], [40, 30]], 'int32')})
nb = np.stack([boxes(8), boxes(8)])
ns = rng.rand(2, 3, 8).astype('float32')
nb[0, 1] = nb[0, 0] + 0.01           # overlapping pairs, so suppression happens
nb[1, 5] = nb[1, 2] * 1.02
run('nms', lambda b, s: [L.multiclass_nms(b, s, score_threshold=0.2, nms_top_k=6, keep_top_k=7,
                                          nms_threshold=0.4)], {'b': nb, 's': ns})
run('nms_pixel', lambda b, s: [L.multiclass_nms(b * 20, s, score_threshold=0.1, nms_top_k=-1, keep_top_k=-1,
                                                nms_threshold=0.3, normalized=False, background_label=-1)],
    {'b': nb, 's': ns})
run('polygon', lambda x: [L.polygon_box_transform(x)], {'x': rng.rand(1, 8, 2, 3).astype('float32')})
fmap = rng.rand(1, 2, 8, 8).astype('float32')
rois = np.array([[0.5, 1.0, 5.2, 6.1], [2.0, 2.0, 7.5, 4.5], [0.0, 0.0, 3.0, 3.0]], 'float32')
lod = np.array([0, 3], 'int64')
run('roi_align', lambda x, r, l: [L.roi_align(x, r, 2, 3, spatial_scale=0.9, sampling_ratio=2, rois_lod=l)],
    {'x': fmap, 'r': rois, 'l': lod})
run('roi_align_adaptive', lambda x, r, l: [L.roi_align(x, r, 3, 2, spatial_scale=1.0, sampling_ratio=-1,
                                                       rois_lod=l)], {'x': fmap, 'r': rois, 'l': lod})
run('roi_pool', lambda x, r, l: [L.roi_pool(x, r, 2, 3, spatial_scale=0.9, rois_lod=l)],
    {'x': fmap, 'r': rois, 'l': lod})
dist = rng.rand(3, 5).astype('float32')
run('bipartite', lambda d: list(L.bipartite_match(d)), {'d': dist})
run('bipartite_per_prediction', lambda d: list(L.bipartite_match(d, 'per_prediction', 0.3)), {'d': dist})
run('focal', lambda x, y, n: [L.sigmoid_focal_loss(x, y, n, gamma=2.0, alpha=0.25)],
    {'x': rng.uniform(-2, 2, (6, 3)).astype('float32'), 'y': np.array([[0], [1], [3], [2], [0], [1]], 'int32'),
     'n': np.array([4], 'int32')})
run('detection_output', lambda loc, sc, p, v: [L.detection_output(loc, sc, p, v, nms_threshold=0.45, nms_top_k=10,
                                                                  keep_top_k=8, score_threshold=0.05)],
    {'loc': rng.uniform(-1, 1, (2, 6, 4)).astype('float32'), 'sc': rng.uniform(-2, 2, (2, 6, 3)).astype('float32'),
     'p': prior, 'v': pvar})
run('box_decoder_and_assign', lambda p, v, t, sc: list(L.box_decoder_and_assign(p, v, t, sc, 4.135)),
    {'p': boxes(4, 30), 'v': np.array([0.1, 0.1, 0.2, 0.2], 'float32'),
     't': rng.uniform(-1, 1, (4, 12)).astype('float32'), 'sc': rng.rand(4, 3).astype('float32')})
feats = {'f1': rng.rand(2, 3, 4, 4).astype('float32'), 'f2': rng.rand(2, 5, 2, 2).astype('float32'),
         'im': rng.rand(2, 3, 32, 32).astype('float32')}
run('multi_box_head', lambda f1, f2, im: list(L.multi_box_head([f1, f2], im, base_size=32, num_classes=3,
                                                               aspect_ratios=[[2.0], [2.0, 3.0]],
                                                               min_sizes=[6.0, 12.0], max_sizes=[12.0, 24.0],
                                                               flip=True, clip=True)), feats)
run('nms2', lambda b, s: list(fluid.contrib.multiclass_nms2(b, s, score_threshold=0.2, nms_top_k=6, keep_top_k=7,
                                                             nms_threshold=0.4, return_index=True)), {'b': nb, 's': ns})
run('matrix_nms', lambda b, s: list(L.matrix_nms(b, s, score_threshold=0.2, post_threshold=0.1, nms_top_k=6,
                                                 keep_top_k=7, return_index=True)), {'b': nb, 's': ns})
run('matrix_nms_gaussian', lambda b, s: [L.matrix_nms(b * 20, s, score_threshold=0.1, post_threshold=0.3,
                                                      nms_top_k=-1, keep_top_k=-1, use_gaussian=True,
                                                      gaussian_sigma=1.5, normalized=False, background_label=-1)],
    {'b': nb, 's': ns})
np.savez(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'detection.npz'), **OUT)
print('recorded', len(OUT), 'arrays')
