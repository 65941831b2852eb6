"""Writes small checkpoints with real Paddle, for tests/api/test_checkpoint_files.py. Runs only where Paddle is
installed (from this folder):

    /work/pd18/bin/python make_checkpoints.py v18      # fluid.save, save_persistables (both layouts), save_dygraph
    /work/pd26/bin/python make_checkpoints.py v26      # static.save, paddle.save of state dicts, a Tensor, a Program

Each folder also gets `expected.npz`: every variable's value in Paddle's scope when it saved (np.savez, read with
allow_pickle=False), which the files must load to bit for bit. The model is an fc regression x[3] -> fc(4, relu)
-> fc(1) trained one Adam step from fixed parameter values.
"""
import os
import sys

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), sys.argv[1])
PARAMS = {'fc_0.w_0': np.linspace(-1, 1, 12).reshape(3, 4), 'fc_0.b_0': np.array([0.1, -0.1, 0.2, 0.0]),
          'fc_1.w_0': np.linspace(1, -1, 4).reshape(4, 1), 'fc_1.b_0': np.array([0.05])}
FEED = {'x': (np.arange(6).reshape(2, 3) / 10 - 0.2).astype('float32'), 'y': np.array([[0.5], [-0.5]], 'float32')}


def build(fluid):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data('x', [None, 3], 'float32')
        y = fluid.data('y', [None, 1], 'float32')
        pred = fluid.layers.fc(fluid.layers.fc(x, 4, act='relu'), 1)
        loss = fluid.layers.mean(fluid.layers.square_error_cost(pred, y))
        fluid.optimizer.Adam(0.1).minimize(loss)
    return main, startup, loss


def build_v26(paddle):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        x = paddle.static.data('x', [None, 3], 'float32')
        y = paddle.static.data('y', [None, 1], 'float32')
        pred = paddle.static.nn.fc(paddle.static.nn.fc(x, 4, activation='relu'), 1)
        loss = paddle.mean(paddle.nn.functional.square_error_cost(pred, y))
        paddle.optimizer.Adam(0.1).minimize(loss)
    return main, startup, loss


def train_one_step(fluid, main, startup, loss):
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    scope = fluid.global_scope()
    for name, value in PARAMS.items():
        scope.find_var(name).get_tensor().set(value.astype('float32'), fluid.CPUPlace())
    exe.run(main, feed=FEED, fetch_list=[loss])
    values = {v.name: np.array(scope.find_var(v.name).get_tensor()) for v in main.list_vars()
              if v.persistable and v.name not in ('feed', 'fetch')}
    return exe, values


def v18():
    import paddle.fluid as fluid
    main, startup, loss = build(fluid)
    exe, values = train_one_step(fluid, main, startup, loss)
    fluid.save(main, os.path.join(OUT, 'fluid_save', 'model'))
    fluid.io.save_persistables(exe, os.path.join(OUT, 'persistables'), main)
    fluid.io.save_persistables(exe, os.path.join(OUT, 'combined'), main, filename='__params__')
    with fluid.dygraph.guard():
        layer = fluid.dygraph.Linear(3, 4)
        layer.weight.set_value(PARAMS['fc_0.w_0'].astype('float32'))
        layer.bias.set_value(PARAMS['fc_0.b_0'].astype('float32'))
        fluid.save_dygraph(layer.state_dict(), os.path.join(OUT, 'dygraph'))
    values['linear.weight'] = PARAMS['fc_0.w_0'].astype('float32')
    values['linear.bias'] = PARAMS['fc_0.b_0'].astype('float32')
    np.savez(os.path.join(OUT, 'expected.npz'), **values)


def v26():
    import paddle
    import paddle.static as static
    paddle.enable_static()
    fluid = paddle.base
    main, startup, loss = build_v26(paddle)
    exe, values = train_one_step(fluid, main, startup, loss)
    static.save(main, os.path.join(OUT, 'static_save', 'model'))
    paddle.save(main.state_dict('param'), os.path.join(OUT, 'program_state.pdparams'))
    paddle.save(main.state_dict('param'), os.path.join(OUT, 'program_state_protocol2.pdparams'), protocol=2)
    paddle.save(fluid.global_scope().find_var('fc_0.w_0').get_tensor(), os.path.join(OUT, 'lod_tensor.pdtensor'))
    paddle.save(main, os.path.join(OUT, 'program.pdmodel'))
    paddle.disable_static()
    layer = paddle.nn.Linear(3, 4)
    layer.weight.set_value(PARAMS['fc_0.w_0'].astype('float32'))
    layer.bias.set_value(PARAMS['fc_0.b_0'].astype('float32'))
    paddle.save(layer.state_dict(), os.path.join(OUT, 'layer.pdparams'))
    paddle.save({'nested': {'w': layer.weight}, 'list': [layer.bias], 'step': 3},
                os.path.join(OUT, 'nested.pdparams'))
    values['linear.weight'] = PARAMS['fc_0.w_0'].astype('float32')
    values['linear.bias'] = PARAMS['fc_0.b_0'].astype('float32')
    np.savez(os.path.join(OUT, 'expected.npz'), **values)


if __name__ == '__main__':
    os.makedirs(OUT, exist_ok=True)
    {'v18': v18, 'v26': v26}[sys.argv[1]]()
