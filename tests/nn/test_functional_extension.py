"""paddle.nn.functional.sequence_mask at its 2.x path, against what Paddle 2.6.2 computed for the same program
(values recorded as literals below): maxlen None (the largest length), an int, and a Variable; int64, float32 and
bool outputs; build-time shapes and stop_gradient."""
from __future__ import annotations

import numpy as np

import paddle_exec as paddle
import paddle_exec.nn.functional as F


def test_sequence_mask_as_paddle_262():
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data('x', [2, 2], 'int64')
        m = paddle.static.data('m', [1], 'int32')
        a = F.sequence_mask(x)
        b = F.sequence_mask(x, maxlen=4, dtype='float32')
        c = F.sequence_mask(x, maxlen=m, dtype='bool')
    # 2.6.2: (2, 2, -1) (2, 2, 4) (2, 2, -1), stop_gradient True
    assert [tuple(v.shape) for v in (a, b, c)] == [(2, 2, -1), (2, 2, 4), (2, 2, -1)]
    assert a.stop_gradient and b.stop_gradient and c.stop_gradient
    exe = paddle.static.Executor(paddle.CPUPlace())
    ra, rb, rc = exe.run(main, feed={'x': np.array([[3, 1], [0, 2]], 'int64'), 'm': np.array([3], 'int32')},
                         fetch_list=[a, b, c])
    np.testing.assert_array_equal(ra, np.array([[[1, 1, 1], [1, 0, 0]], [[0, 0, 0], [1, 1, 0]]], 'int64'))
    assert ra.dtype == np.int64
    np.testing.assert_array_equal(rb, np.array([[[1, 1, 1, 0], [1, 0, 0, 0]], [[0, 0, 0, 0], [1, 1, 0, 0]]],
                                               'float32'))
    assert rb.dtype == np.float32
    np.testing.assert_array_equal(rc, np.array([[[1, 1, 1], [1, 0, 0]], [[0, 0, 0], [1, 1, 0]]], bool))
    assert rc.dtype == np.bool_
    assert F.sequence_mask is paddle.fluid.layers.sequence_mask       # one implementation
