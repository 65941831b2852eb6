"""One side of the Paddle comparison, in a process of its own: training steps/s of a benchmarks/models.py model on a
ParallelExecutor at CPU_NUM=1, with paddle_exec or with real Paddle 1.8.5 (this file runs on Python 3.8 too).

    python pe_child.py paddle_exec|paddle MODEL SECONDS [compile mode [fuse]]     # prints one JSON line

`fuse` turns on BuildStrategy.fuse_all_optimizer_ops and fuse_bn_act_ops (a compile mode of '-' keeps the default).

Twenty untimed steps first (Paddle builds its graph, paddle_exec compiles its segments: in the background, and
the child waits for them, so the timed steps are the steady state a training run spends its time in); then as many
steps as fit in SECONDS, feeds drawn beforehand and cycled. Prints the wall time and the process's CPU time (all its
threads) of the timed steps: on a machine shared with other work the CPU time says what a step costs, the wall
time also how the scheduler shared the cores.
"""
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def _models():
    """paddle_exec/cli/models.py (the yardstick models) loaded by its path: importing it as part of paddle_exec would
    import the package, which the Paddle 1.8 interpreter does not have (nor numba)."""
    import importlib.util
    path = os.path.join(os.path.dirname(HERE), 'paddle_exec', 'cli', 'models.py')
    spec = importlib.util.spec_from_file_location('_yardstick_models', path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main(argv):
    side, name, seconds = argv[0], argv[1], float(argv[2])
    mode = argv[3] if len(argv) > 3 else None
    fuse = len(argv) > 4 and argv[4] == 'fuse'
    os.environ['CPU_NUM'] = '1'
    if mode is not None and mode != '-':
        os.environ['PADDLE_EXEC_COMPILE'] = mode
    if side == 'paddle':
        import paddle.fluid as fluid
        wait = None
    else:
        sys.path.insert(0, os.path.dirname(HERE))
        import paddle_exec.fluid as fluid
        from paddle_exec.executor.jit_service import SERVICE
        wait = SERVICE.wait
    MODELS = _models().MODELS
    build, batch = MODELS[name]
    main_program, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main_program, startup):
        with fluid.unique_name.guard():
            loss, feed = build(fluid, batch)
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(scope):
        exe.run(startup)
        build_strategy = fluid.BuildStrategy()
        build_strategy.fuse_all_optimizer_ops = build_strategy.fuse_bn_act_ops = fuse
        pe = fluid.ParallelExecutor(use_cuda=False, loss_name=loss.name, main_program=main_program,
                                    build_strategy=build_strategy)
        feeds = [feed() for _ in range(4)]
        for i in range(20):
            pe.run(fetch_list=[loss.name], feed=feeds[i % 4])
            if wait is not None and i == 2:
                wait(600)
        start, cpu_start = time.perf_counter(), time.process_time()
        n = 0
        while time.perf_counter() - start < seconds:
            pe.run(fetch_list=[loss.name], feed=feeds[n % 4])
            n += 1
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    print(json.dumps({'side': side, 'model': name, 'steps': n, 'seconds': elapsed, 'cpu_seconds': cpu}))


if __name__ == '__main__':
    main(sys.argv[1:])
