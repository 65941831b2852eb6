"""The detection losses inside training programs: a small head trained through ssd_loss and yolov3_loss with an
optimizer (the backward passes through reshape with actual_shape, the target ops and the LoD inputs); the loss
must fall. And ssd_loss data-parallel over two places, each with whole images."""
import numpy as np

import paddle_exec.fluid as fluid
from paddle_exec.framework import Program, Scope, program_guard, unique_name
from tests.kernels.test_detection_targets import GOLDEN

L = fluid.layers


def _train(build, feed, steps=25):
    main, startup = Program(), Program()
    main.random_seed = startup.random_seed = 5
    with program_guard(main, startup), unique_name.guard():
        loss = build()
        fluid.optimizer.Adam(learning_rate=0.05).minimize(loss)
    exe, scope = fluid.Executor(fluid.CPUPlace()), Scope()
    exe.run(startup, scope=scope)
    return [float(np.asarray(exe.run(main, feed=feed, fetch_list=[loss], scope=scope)[0]).reshape(-1)[0])
            for _ in range(steps)]


def test_ssd_loss_trains():
    rng = np.random.RandomState(0)
    priors = np.array([[0.1, 0.1, 0.4, 0.4], [0.5, 0.5, 0.9, 0.9], [0.1, 0.5, 0.4, 0.9], [0.5, 0.1, 0.9, 0.4],
                       [0.2, 0.2, 0.8, 0.8], [0.0, 0.0, 0.3, 0.3]], 'float32')
    gt = np.array([[0.12, 0.1, 0.42, 0.38], [0.55, 0.5, 0.88, 0.92], [0.48, 0.12, 0.9, 0.42]], 'float32')
    place = fluid.CPUPlace()
    feed = {'img': rng.rand(2, 8).astype('float32'),
            'gt': fluid.create_lod_tensor(gt, [[2, 1]], place),
            'lbl': fluid.create_lod_tensor(np.array([[1], [2], [1]], 'float32'), [[2, 1]], place)}

    def build():
        img = fluid.data('img', [2, 8], 'float32')
        gt_box = fluid.data('gt', [None, 4], 'float32', lod_level=1)
        gt_label = fluid.data('lbl', [None, 1], 'float32', lod_level=1)
        prior = L.assign(priors)
        var = L.assign(np.tile(np.array([[0.1, 0.1, 0.2, 0.2]], 'float32'), (6, 1)))
        loc = L.reshape(L.fc(img, 6 * 4), [2, 6, 4])
        conf = L.reshape(L.fc(img, 6 * 3), [2, 6, 3])
        return L.reduce_mean(L.ssd_loss(loc, conf, gt_box, gt_label, prior, var))

    losses = _train(build, feed)
    assert np.isfinite(losses).all() and losses[-1] < 0.5 * losses[0], losses


def test_yolov3_loss_trains():
    rng = np.random.RandomState(1)
    feed = {'img': rng.rand(2, 3, 4, 4).astype('float32'),
            'box': np.array([[[0.3, 0.4, 0.3, 0.4], [0.7, 0.7, 0.2, 0.3]], [[0.5, 0.5, 0.6, 0.5], [0, 0, 0, 0]]],
                            'float32'),
            'label': np.array([[0, 1], [1, 0]], 'int32')}

    def build():
        img = fluid.data('img', [2, 3, 4, 4], 'float32')
        box = fluid.data('box', [2, 2, 4], 'float32')
        label = fluid.data('label', [2, 2], 'int32')
        head = L.conv2d(img, num_filters=2 * (5 + 2), filter_size=1)
        loss = L.yolov3_loss(head, box, label, anchors=[10, 13, 16, 30, 33, 23], anchor_mask=[0, 1],
                             class_num=2, ignore_thresh=0.7, downsample_ratio=8)
        return L.reduce_mean(loss)

    losses = _train(build, feed)
    assert np.isfinite(losses).all() and losses[-1] < 0.5 * losses[0], losses


def test_ssd_loss_on_two_places_splits_the_ground_truth_by_image():
    """With data parallelism each place gets whole images (the LoD ground truth is cut between sequences): each
    place's loss is that image's loss alone, normalised by its own matched priors."""
    g = {k: GOLDEN['ssd_loss.in.' + k] for k in ('loc', 'conf', 'gt', 'lbl', 'p', 'pv')}
    place = fluid.CPUPlace()
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name.guard():
        loc = fluid.data('loc', [None, 16, 4], 'float32')
        conf = fluid.data('conf', [None, 16, 4], 'float32')
        gt = fluid.data('gt', [None, 4], 'float32', lod_level=1)
        lbl = fluid.data('lbl', [None, 1], 'float32', lod_level=1)
        loss = L.ssd_loss(loc, conf, gt, lbl, L.assign(g['p']), L.assign(g['pv']))
    exe, scope = fluid.Executor(place), Scope()
    exe.run(startup, scope=scope)

    def feed(images, lengths):
        rows = slice(0, sum(lengths)) if images.start == 0 else slice(3, 3 + sum(lengths))
        return {'loc': g['loc'][images], 'conf': g['conf'][images],
                'gt': fluid.create_lod_tensor(g['gt'][rows], [lengths], place),
                'lbl': fluid.create_lod_tensor(g['lbl'][rows], [lengths], place)}
    parallel = fluid.CompiledProgram(main).with_data_parallel(places=[place, place])
    both = np.asarray(exe.run(parallel, feed=feed(slice(0, 2), [3, 1]), fetch_list=[loss], scope=scope)[0]).ravel()
    first = np.asarray(exe.run(main, feed=feed(slice(0, 1), [3]), fetch_list=[loss], scope=scope)[0]).ravel()
    second = np.asarray(exe.run(main, feed=feed(slice(1, 2), [1]), fetch_list=[loss], scope=scope)[0]).ravel()
    np.testing.assert_allclose(both, np.concatenate([first, second]), rtol=1e-6)
