"""Records what Paddle 1.8.5 computes for fluid.contrib.layers.var_conv_2d (two images of 3x4 and 2x3, 2 -> 3
channels, a 3x2 kernel, strides 1x1 and 2x1: the output, its LoD and the gradients of sum(out ** 2) with respect to
the input and the filter) into var_conv_2d_pd18.json, which tests/ops/test_contrib_conv_ops.py compares paddle_exec
with. Runs only where Paddle 1.8.5 is installed:

    /work/pd18/bin/python tests/golden/api/record_var_conv_2d.py
"""
import json
import os

import numpy as np
import paddle.fluid as fluid

PLACE = fluid.CPUPlace()
ROWS, COLS, CIN, COUT = [3, 2], [4, 3], 2, 3


def main():
    n = sum(CIN * r * c for r, c in zip(ROWS, COLS))
    xv = np.random.RandomState(5).rand(n, 1).astype('float32')
    wv = (np.random.RandomState(6).rand(COUT, CIN * 3 * 2) - 0.5).astype('float32')
    res = {}
    for sh, sw in ((1, 1), (2, 1)):
        main_prog, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(main_prog, startup):
            x = fluid.data('x', [-1, 1], 'float32', lod_level=1)
            x.stop_gradient = False
            r = fluid.data('r', [-1, 1], 'float32', lod_level=1)
            c = fluid.data('c', [-1, 1], 'float32', lod_level=1)
            attr = fluid.ParamAttr(name='vw', initializer=fluid.initializer.NumpyArrayInitializer(wv))
            o = fluid.contrib.layers.var_conv_2d(x, r, c, CIN, COUT, [3, 2], stride=[sh, sw], param_attr=attr)
            loss = fluid.layers.reduce_sum(fluid.layers.square(o))
            gx = fluid.gradients([loss], [x])[0]
            fluid.backward.append_backward(loss)
        exe = fluid.Executor(PLACE)
        exe.run(startup)
        feed = {'x': fluid.create_lod_tensor(xv, [[CIN * a * b for a, b in zip(ROWS, COLS)]], PLACE),
                'r': fluid.create_lod_tensor(np.zeros((sum(ROWS), 1), 'float32'), [ROWS], PLACE),
                'c': fluid.create_lod_tensor(np.zeros((sum(COLS), 1), 'float32'), [COLS], PLACE)}
        out = exe.run(main_prog, feed=feed, fetch_list=[o, gx, 'vw@GRAD'], return_numpy=False)
        res['s%d%d' % (sh, sw)] = {'out': np.array(out[0]).ravel().tolist(),
                                   'lod': out[0].recursive_sequence_lengths(),
                                   'shape': list(np.array(out[0]).shape), 'gx': np.array(out[1]).ravel().tolist(),
                                   'gw': np.array(out[2]).ravel().tolist()}
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'var_conv_2d_pd18.json'), 'w') as f:
        json.dump({'x': xv.ravel().tolist(), 'w': wv.tolist(), 'cases': res}, f)


if __name__ == '__main__':
    main()
