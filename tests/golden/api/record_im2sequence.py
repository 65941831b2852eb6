"""Records what Paddle 1.8.5 computes for fluid.layers.im2sequence (forward for three attribute sets, the gradient
of sum(out ** 2) for a fourth) into im2sequence_pd18.json, which tests/ops/test_im2sequence_op.py compares
paddle_exec with. Runs only where Paddle 1.8.5 is installed:

    /work/pd18/bin/python tests/golden/api/record_im2sequence.py

(Paddle 1.8.5's im2sequence_grad fails for the strided and padded sets, so only the fourth records a gradient.)
"""
import json
import os

import numpy as np
import paddle.fluid as fluid

PLACE = fluid.CPUPlace()
X = np.random.RandomState(4).rand(2, 2, 5, 6).astype('float32')
CASES = (('sym', dict(filter_size=[2, 3], stride=[2, 1], padding=[1, 1]), False, False),
         ('plain', dict(filter_size=[2, 3], stride=[2, 1], padding=[1, 0, 0, 1]), False, False),
         ('real', dict(filter_size=2, stride=1, padding=0, out_stride=2), True, False),
         ('grad', dict(filter_size=2, stride=1, padding=0), False, True))


def main():
    out = {}
    for name, kw, feed_y, grad in CASES:
        main_prog, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(main_prog, startup):
            x = fluid.data('x', [2, 2, 5, 6], 'float32')
            x.stop_gradient = False
            y = fluid.data('y', [2, 2], 'float32') if feed_y else None
            o = fluid.layers.im2sequence(x, input_image_size=y, **kw)
            fetch = [o]
            if grad:
                fetch.append(fluid.gradients([fluid.layers.reduce_sum(fluid.layers.square(o))], [x])[0])
        exe = fluid.Executor(PLACE)
        exe.run(startup)
        feed = {'x': X}
        if feed_y:
            feed['y'] = np.array([[5, 6], [3, 4]], 'float32')
        r = exe.run(main_prog, feed=feed, fetch_list=fetch, return_numpy=False)
        out[name] = {'out': np.array(r[0]).tolist(), 'lod': r[0].recursive_sequence_lengths(),
                     'grad': np.array(r[-1]).tolist()}
        print(name, np.array(r[0]).shape, r[0].recursive_sequence_lengths())
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'im2sequence_pd18.json'), 'w') as f:
        json.dump(out, f)


if __name__ == '__main__':
    main()
