"""Side-by-side check that real Paddle reads the checkpoints paddle_exec writes, bit for bit. Two steps:

    .venv/bin/python tests/golden/checkpoints/paddle_reads_ours.py write /tmp/sbs    # paddle_exec saves
    /work/pd18/bin/python tests/golden/checkpoints/paddle_reads_ours.py check /tmp/sbs
    /work/pd26/bin/python tests/golden/checkpoints/paddle_reads_ours.py check /tmp/sbs

`write` trains the fc regression of make_checkpoints.py one Adam step and saves it with static.save,
save_persistables (both layouts) and paddle.save (protocols 4 and 2); `check` loads each into the same program
built with that Paddle, compares every variable's bytes with what paddle_exec had, and runs the next step.
Recorded (tests/api/test_checkpoint_files.py): every load bit-equal in 1.8.5 and 2.6.2, next loss
0.11201077699661255 in both. (2.6.2's set_program_state refuses learning_rate_0, [1] here and 0-d in a 2.6
program, whoever wrote the file; its static.load takes it.)
"""
import sys

import numpy as np

PARAMS = {'fc_0.w_0': np.linspace(-1, 1, 12).reshape(3, 4), 'fc_0.b_0': np.array([0.1, -0.1, 0.2, 0.0]),
          'fc_1.w_0': np.linspace(1, -1, 4).reshape(4, 1), 'fc_1.b_0': np.array([0.05])}
FEED = {'x': (np.arange(6).reshape(2, 3) / 10 - 0.2).astype('float32'), 'y': np.array([[0.5], [-0.5]], 'float32')}


def write(folder):
    import paddle_exec as paddle
    import paddle_exec.fluid as fluid
    import paddle_exec.static as static
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data('x', [None, 3], 'float32')
        y = fluid.data('y', [None, 1], 'float32')
        loss = fluid.layers.mean(fluid.layers.square_error_cost(fluid.layers.fc(fluid.layers.fc(x, 4, act='relu'),
                                                                                1), y))
        fluid.optimizer.Adam(0.1).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    scope = fluid.global_scope()
    for name, value in PARAMS.items():
        scope.var(name).get_tensor().set(value.astype('float32'))
    exe.run(main, feed=FEED, fetch_list=[loss])
    values = {v.name: np.array(scope.find_var(v.name).get_tensor()) for v in main.list_vars() if v.persistable}
    np.savez(folder + '/expected.npz', **values)
    static.save(main, folder + '/static_save/model')
    fluid.io.save_persistables(exe, folder + '/persist', main)
    fluid.io.save_persistables(exe, folder + '/combined', main, filename='__params__')
    paddle.save({k: values[k] for k in PARAMS}, folder + '/state.pdparams')
    paddle.save({k: values[k] for k in PARAMS}, folder + '/state2.pdparams', protocol=2)
    print('next loss here', float(exe.run(main, feed=FEED, fetch_list=[loss])[0].reshape(-1)[0]))


def check(folder):
    want = dict(np.load(folder + '/expected.npz'))
    v18 = sys.version_info < (3, 9)
    if v18:
        import paddle.fluid as fluid
        data = lambda n, s: fluid.data(n, s, 'float32')                             # noqa: E731
        fc = lambda x, size, act=None: fluid.layers.fc(x, size, act=act)            # noqa: E731
        mean, sq, guard = fluid.layers.mean, fluid.layers.square_error_cost, fluid.unique_name.guard
        adam = lambda: fluid.optimizer.Adam(0.1)                                     # noqa: E731
    else:
        import paddle
        paddle.enable_static()
        fluid = paddle.base
        data = lambda n, s: paddle.static.data(n, s, 'float32')                     # noqa: E731
        fc = lambda x, size, act=None: paddle.static.nn.fc(x, size, activation=act)  # noqa: E731
        mean, sq, guard = paddle.mean, paddle.nn.functional.square_error_cost, paddle.utils.unique_name.guard
        adam = lambda: paddle.optimizer.Adam(0.1)                                    # noqa: E731

    def build():
        main, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(main, startup), guard():
            x, y = data('x', [None, 3]), data('y', [None, 1])
            loss = mean(sq(fc(fc(x, 4, 'relu'), 1), y))
            adam().minimize(loss)
        return main, startup, loss

    def persistables(main):
        return [v for v in main.list_vars() if v.persistable and v.name in want]
    if v18:
        loads = {'fluid.load': lambda main, exe: fluid.load(main, folder + '/static_save/model', exe),
                 'save_persistables': lambda main, exe: fluid.io.load_persistables(exe, folder + '/persist', main),
                 'combined': lambda main, exe: fluid.io.load_persistables(exe, folder + '/combined', main,
                                                                          filename='__params__'),
                 'load_program_state': lambda main, exe: fluid.io.set_program_state(
                     main, fluid.io.load_program_state(folder + '/static_save/model'))}
    else:
        loads = {'static.load': lambda main, exe: paddle.static.load(main, folder + '/static_save/model', exe),
                 'save_persistables': lambda main, exe: paddle.static.load(main, folder + '/persist', exe),
                 'combined': lambda main, exe: paddle.static.load(main, folder + '/combined/__params__', exe,
                                                                  persistables(main)),
                 'load_program_state': lambda main, exe: paddle.static.set_program_state(main, {
                     k: v for k, v in paddle.static.load_program_state(folder + '/static_save/model').items()
                     if k != 'learning_rate_0'}),
                 'paddle.load': lambda main, exe: paddle.static.set_program_state(main, {
                     k: np.array(v) for k, v in paddle.load(folder + '/state.pdparams').items()}),
                 'paddle.load protocol 2': lambda main, exe: paddle.static.set_program_state(main, {
                     k: np.array(v) for k, v in paddle.load(folder + '/state2.pdparams').items()})}
    for name, load in loads.items():
        main, startup, loss = build()
        exe = fluid.Executor(fluid.CPUPlace())
        with fluid.scope_guard(fluid.Scope()):
            exe.run(startup)
            load(main, exe)
            scope = fluid.global_scope()
            names = [v.name for v in persistables(main) if not name.startswith('paddle.load') or v.name in PARAMS]
            same = all(np.array(scope.find_var(n).get_tensor()).tobytes() == want[n].tobytes() for n in names)
            next_loss = float(np.asarray(exe.run(main, feed=FEED, fetch_list=[loss])[0]).reshape(-1)[0])
        print('%-24s %2d variables bit-equal: %s, next loss %r' % (name, len(names), same, next_loss))


if __name__ == '__main__':
    {'write': write, 'check': check}[sys.argv[1]](sys.argv[2])
