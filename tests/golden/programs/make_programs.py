"""Writes programs with control flow as real Paddle serializes them, for tests/api/test_paddle_models.py, and
`NAME.io.npz`: the feed (`in.<name>`), the persistable values before the run (`param.<name>`: parameters set to
fixed values, the rest as the startup program made them) and the softmax output real Paddle computed (`out`).
Runs only where Paddle is installed (from this folder):

    /work/pd18/bin/python make_programs.py      # control_flow_v18.pdmodel: While, cond, sparse embedding, Momentum
    /work/pd26/bin/python make_programs.py      # control_flow_v26.pdmodel: while_loop, cond, slice, softmax
"""
import sys

import numpy as np

FEED = {'x': np.linspace(-1, 1, 8).reshape(2, 4).astype('float32'), 'ids': np.array([[1], [3]], 'int64')}

if sys.version_info < (3, 9):
    import paddle.fluid as fluid
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data('x', [None, 4], 'float32')
        i = fluid.layers.fill_constant([1], 'int64', 0)
        n = fluid.layers.fill_constant([1], 'int64', 3)
        h = fluid.layers.assign(x)
        c = fluid.layers.less_than(i, n)
        loop = fluid.layers.While(c)
        with loop.block():
            fluid.layers.assign(fluid.layers.tanh(h) * 2.0, h)
            fluid.layers.increment(i, in_place=True)
            fluid.layers.less_than(i, n, cond=c)
        y = fluid.layers.cond(fluid.layers.reduce_mean(h) > 0, lambda: h * 3, lambda: h - 1)
        e = fluid.layers.embedding(fluid.data('ids', [None, 1], 'int64'), [10, 4], is_sparse=True)
        out = fluid.layers.softmax(fluid.layers.slice(fluid.layers.reshape(fluid.layers.transpose(y, [1, 0]), [-1]),
                                                      axes=[0], starts=[1], ends=[5]))
        fluid.optimizer.Momentum(0.1, 0.9).minimize(fluid.layers.mean(fluid.layers.fc(e, 3)))
    name = 'control_flow_v18.pdmodel'
else:
    import paddle
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data('x', [None, 4], 'float32')
        i = paddle.full([1], 0, 'int64')
        n = paddle.full([1], 3, 'int64')
        _, h = paddle.static.nn.while_loop(lambda i, h: i < n, lambda i, h: (i + 1, paddle.tanh(h) * 2.0), [i, x])
        y = paddle.static.nn.cond(paddle.mean(h) > 0, lambda: h * 3, lambda: h - 1)
        out = paddle.nn.functional.softmax(paddle.slice(paddle.reshape(paddle.transpose(y, [1, 0]), [-1]), axes=[0],
                                                        starts=[1], ends=[5]))
    name = 'control_flow_v26.pdmodel'
    fluid = paddle.base
with open(name, 'wb') as f:
    f.write(main.desc.serialize_to_string())
exe = fluid.Executor(fluid.CPUPlace())
exe.run(startup)
scope, record = fluid.global_scope(), {}
for param in main.global_block().all_parameters():
    value = np.linspace(-0.5, 0.5, int(np.prod(param.shape))).reshape(param.shape).astype('float32')
    scope.find_var(param.name).get_tensor().set(value, fluid.CPUPlace())
for var in main.list_vars():
    if var.persistable and scope.find_var(var.name) is not None and var.name not in ('feed', 'fetch'):
        record['param.' + var.name] = np.array(scope.find_var(var.name).get_tensor())
feed = {k: v for k, v in FEED.items() if main.global_block().has_var(k)}
got, = exe.run(main, feed=feed, fetch_list=[out])
record.update({'in.' + k: v for k, v in feed.items()})
np.savez(name.replace('.pdmodel', '.io.npz'), out=np.array(got), **record)
