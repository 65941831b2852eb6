"""Writes an inference model holding a `pylayer` op with Paddle 2.6.2 (pylayer_model.pdmodel beside this file; it
has no persistables, so Paddle writes no .pdiparams) and what it computes (pylayer_model.npz). Runs only where
Paddle 2.6.2 is installed:

    /work/pd26/bin/python tests/golden/api/record_pylayer.py

tests/ops/test_pylayer.py loads the model on paddle_exec and compares.
"""
import os

import numpy as np
import paddle

paddle.enable_static()
HERE = os.path.dirname(os.path.abspath(__file__))
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    x = paddle.static.data('x', [2, 3], 'float32')
    y = paddle.static.nn.static_pylayer(lambda a: paddle.exp(a) * 2.0 + 1.0, [x], lambda g: g * 3.0)
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
paddle.static.save_inference_model(os.path.join(HERE, 'pylayer_model'), [x], [y], exe, program=main)
xv = (np.arange(6).reshape(2, 3) * 0.1 - 0.2).astype('float32')
out, = exe.run(main, feed={'x': xv}, fetch_list=[y])
np.savez(os.path.join(HERE, 'pylayer_model.npz'), x=xv, y=out)
print('recorded with Paddle', paddle.__version__)
