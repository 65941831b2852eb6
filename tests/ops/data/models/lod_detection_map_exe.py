"""fluid.metrics.DetectionMAP and fluid.evaluator.DetectionMAP over 4 batches of 3 images (LoD detections and
ground truth, difficult boxes, an image without detections, detections of a class absent from the image): each
step fetches both metrics' batch mAP and accumulated mAP ('integral' with difficult boxes evaluated, '11point'
without), and the accumulated state (positive counts, true-positive records with their per-class LoD). Format of
tests/golden/cases (run_case.py); numbers recorded with Paddle 1.8.5."""
import numpy as np

API = "fluid"
CPU_NUM = 0
STEPS = 4
RETURN_NUMPY = False  # the accumulated true-positive records are a LoD tensor
CLASSES = 4


def _boxes(rng, n):
    xy = rng.uniform(0.0, 0.6, (n, 2))
    wh = rng.uniform(0.1, 0.4, (n, 2))
    return (xy, xy + wh)


def build(paddle, rng):
    fluid = paddle.fluid
    L = fluid.layers
    det = L.data(name='det', shape=[6], dtype='float32', lod_level=1)
    gt_label = L.data(name='gt_label', shape=[1], dtype='int32', lod_level=1)
    gt_box = L.data(name='gt_box', shape=[4], dtype='float32', lod_level=1)
    difficult = L.data(name='difficult', shape=[1], dtype='int32', lod_level=1)
    integral = fluid.metrics.DetectionMAP(det, gt_label, gt_box, difficult, class_num=CLASSES,
                                          overlap_threshold=0.4, evaluate_difficult=True, ap_version='integral')
    eleven = fluid.evaluator.DetectionMAP(det, gt_label, gt_box, difficult, class_num=CLASSES,
                                          overlap_threshold=0.5, evaluate_difficult=False, ap_version='11point')
    cur, accum = integral.get_map_var()
    cur11, accum11 = eleven.get_map_var()
    feeds = []
    for step in range(STEPS):
        gt_lengths, det_lengths = [int(n) for n in rng.randint(1, 4, 3)], [int(n) for n in rng.randint(1, 6, 3)]
        det_lengths[1] = 0 if step == 1 else det_lengths[1]
        gt_rows, det_rows = [], []
        for n_gt, n_det in zip(gt_lengths, det_lengths):
            lo, hi = _boxes(rng, n_gt)
            labels = rng.randint(1, CLASSES, n_gt)
            for i in range(n_gt):
                gt_rows.append((labels[i], int(rng.rand() < 0.25), lo[i][0], lo[i][1], hi[i][0], hi[i][1]))
            for _ in range(n_det):
                if rng.rand() < 0.7:      # near a ground-truth box of the image, mostly of its class
                    i = rng.randint(n_gt)
                    jitter = rng.uniform(-0.08, 0.08, 4)
                    box = [lo[i][0], lo[i][1], hi[i][0], hi[i][1]] + jitter
                    label = labels[i] if rng.rand() < 0.8 else rng.randint(1, CLASSES)
                else:
                    a, b = _boxes(rng, 1)
                    box = [a[0][0], a[0][1], b[0][0], b[0][1]]
                    label = rng.randint(1, CLASSES)
                det_rows.append([label, round(float(rng.rand()), 4)] + [float(v) for v in box])
        gt = np.array(gt_rows, 'float32')
        dets = np.array(det_rows, 'float32').reshape(-1, 6)
        place = fluid.CPUPlace()
        feeds.append({'det': fluid.create_lod_tensor(dets, [det_lengths], place),
                      'gt_label': fluid.create_lod_tensor(gt[:, :1].astype('int32'), [gt_lengths], place),
                      'difficult': fluid.create_lod_tensor(gt[:, 1:2].astype('int32'), [gt_lengths], place),
                      'gt_box': fluid.create_lod_tensor(gt[:, 2:].astype('float32'), [gt_lengths], place)})
    block = fluid.default_main_program().global_block()
    accum_ops = [op for op in block.ops if op.type == 'detection_map' and op.input('HasState')]
    states = [block.var(accum_ops[0].output('AccumPosCount')[0]), block.var(accum_ops[0].output('AccumTruePos')[0])]
    return {'loss': cur, 'fetch': [cur, accum, cur11, accum11] + states, 'feeds': feeds}
