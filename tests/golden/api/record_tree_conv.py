"""Records what Paddle 1.8.5 computes for fluid.contrib.layers.tree_conv (two trees of 6 nodes, 4 features,
output_size 5, 2 filters, max_depth 2 and 3, no bias, no activation: the output and the gradients of sum(out ** 2)
with respect to the node features and the filter) into tree_conv_pd18.json, which
tests/ops/test_contrib_conv_ops.py compares paddle_exec with. Runs only where Paddle 1.8.5 is installed:

    /work/pd18/bin/python tests/golden/api/record_tree_conv.py

Both trees fill the 6 rows: for a tree with fewer nodes than rows, Paddle 1.8.5's matmul reads the rows past the
patch matrix from stale memory (the output rows past the tree repeat an earlier tree's), which is no reference.
"""
import json
import os

import numpy as np
import paddle.fluid as fluid


def main():
    feat = np.random.RandomState(7).rand(2, 6, 4).astype('float32')
    edges = np.array([[[1, 2], [1, 3], [2, 4], [2, 5], [3, 6]], [[1, 2], [2, 3], [1, 4], [4, 5], [4, 6]]], 'int32')
    wv = (np.random.RandomState(8).rand(4, 3, 5, 2) - 0.5).astype('float32')
    res = {}
    for depth in (2, 3):
        main_prog, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(main_prog, startup):
            x = fluid.data('x', [2, 6, 4], 'float32')
            x.stop_gradient = False
            e = fluid.data('e', [2, 5, 2], 'int32')
            attr = fluid.ParamAttr(name='tw', initializer=fluid.initializer.NumpyArrayInitializer(wv))
            o = fluid.contrib.layers.tree_conv(x, e, 5, num_filters=2, max_depth=depth, act=None, bias_attr=False,
                                               param_attr=attr)
            loss = fluid.layers.reduce_sum(fluid.layers.square(o))
            gx = fluid.gradients([loss], [x])[0]
            fluid.backward.append_backward(loss)
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(startup)
        r = exe.run(main_prog, feed={'x': feat, 'e': edges}, fetch_list=[o, gx, 'tw@GRAD'])
        res['d%d' % depth] = {'out': r[0].tolist(), 'gx': r[1].tolist(), 'gw': r[2].tolist()}
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'tree_conv_pd18.json'), 'w') as f:
        json.dump({'feat': feat.tolist(), 'edges': edges.tolist(), 'w': wv.tolist(), 'cases': res}, f)


if __name__ == '__main__':
    main()
