"""Records what Paddle 1.8.5 computes for fluid.layers.prroi_pool (two images, three RoIs given by LoD, and the
same RoIs by batch_roi_nums; spatial_scale 0.5, a 2 x 3 output: the output and the gradients of sum(out * w) with
respect to the input and the RoIs) into prroi_pool_pd18.json, which tests/ops/test_position_sensitive_ops.py
compares paddle_exec with. Runs only where Paddle 1.8.5 is installed:

    /work/pd18/bin/python tests/golden/api/record_prroi_pool.py
"""
import json
import os

import numpy as np
import paddle.fluid as fluid

PLACE = fluid.CPUPlace()


def main():
    xv = np.random.RandomState(9).rand(2, 3, 6, 7).astype('float32')
    rv = np.array([[1.2, 0.6, 9.5, 8.1], [0.0, 0.0, 13.0, 11.0], [4.6, 3.2, 7.7, 9.4]], 'float32')
    wv = (np.arange(3 * 3 * 2 * 3, dtype='float32').reshape(3, 3, 2, 3) % 7 - 3) / 4
    res = {}
    for mode in ('lod', 'nums'):
        main_prog, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(main_prog, startup):
            x = fluid.data('x', [2, 3, 6, 7], 'float32')
            x.stop_gradient = False
            rois = fluid.data('rois', [-1, 4], 'float32', lod_level=1 if mode == 'lod' else 0)
            rois.stop_gradient = False
            nums = fluid.data('nums', [2], 'int64') if mode == 'nums' else None
            o = fluid.layers.prroi_pool(x, rois, 0.5, 2, 3, batch_roi_nums=nums)
            loss = fluid.layers.reduce_sum(o * fluid.layers.assign(wv))
            gx, gr = fluid.gradients([loss], [x, rois])
        exe = fluid.Executor(PLACE)
        exe.run(startup)
        feed = {'x': xv, 'rois': fluid.create_lod_tensor(rv, [[2, 1]], PLACE) if mode == 'lod' else rv}
        if mode == 'nums':
            feed['nums'] = np.array([2, 1], 'int64')
        r = exe.run(main_prog, feed=feed, fetch_list=[o, gx] + ([gr] if gr is not None else []))
        res[mode] = {'out': r[0].tolist(), 'gx': r[1].tolist(), 'grois': r[2].tolist() if len(r) > 2 else None}
        print(mode, r[0].shape, None if gr is None else r[2])
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'prroi_pool_pd18.json'), 'w') as f:
        json.dump({'x': xv.tolist(), 'rois': rv.tolist(), 'w': wv.tolist(), 'cases': res}, f)


if __name__ == '__main__':
    main()
