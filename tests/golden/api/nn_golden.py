"""Golden numbers of the nn builders (conv / pool / norm / resize / vision / common layers) recorded with real Paddle.

A case (nn_cases_fluid.py for fluid 1.8 names, recorded with paddlepaddle 1.8.5; nn_cases_static.py for 2.x names,
recorded with 2.6.2) is a function `case(paddle, rng) -> dict` that builds a small program inside the runner's
program guard and returns

    {'feeds': {name: array}, 'out': [Variables to differentiate], 'fetch': [other Variables to fetch],
     'wrt': [fed Variables whose gradients are compared], 'init': {parameter name: value} (optional)}

The runner seeds `loss = sum(out_i * proj_i)` with fixed random projections, asks the framework's `gradients` for
d loss / d (wrt + every parameter), overwrites every parameter after the startup program with the case's `init`
value or values drawn from a numpy generator seeded by the parameter's name (so parameter names must be Paddle's),
runs one step and keeps every output and gradient under `<case>.<what>`. The same code runs on paddle_exec
(tests/api/test_nn_golden.py) and on real Paddle (recording):

    /work/pd18/bin/python tests/golden/api/nn_golden.py fluid    # -> tests/golden/api/nn_fluid.npz
    /work/pd26/bin/python tests/golden/api/nn_golden.py static   # -> tests/golden/api/nn_static.npz

The script imports only numpy and the framework given to it, so it runs where Paddle is installed.
"""
import importlib.util
import os
import sys
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def load_cases(api: str) -> dict:
    """{case name: function} of nn_cases_<api>.py, in file order."""
    path = os.path.join(HERE, 'nn_cases_%s.py' % api)
    spec = importlib.util.spec_from_file_location('nn_cases_%s' % api, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {name[len('case_'):]: fn for name, fn in vars(module).items() if name.startswith('case_')}


def init_value(name, shape, dtype):
    rng = np.random.RandomState(zlib.crc32(name.encode()))
    fan_in = shape[0] if len(shape) > 1 else max(shape[0], 1)
    return (rng.uniform(-1.0, 1.0, shape) / np.sqrt(fan_in)).astype(dtype)


def _numpy_dtype(var) -> str:
    text = str(var.dtype).lower()
    for name in ('float64', 'fp64'):
        if name in text:
            return 'float64'
    return 'float32'


def run_case(paddle, api: str, name: str, fn) -> dict:
    """Builds and runs one case on `paddle` (real Paddle or paddle_exec); returns {key: array}."""
    if api == 'static':
        paddle.enable_static()
        static = paddle.static
        data, gradients = static.data, static.gradients
        utils = getattr(paddle, 'utils', None)
        names = utils.unique_name if utils is not None and hasattr(utils, 'unique_name') else paddle.fluid.unique_name
        program_guard, guard = static.program_guard, names.guard
        Program, Executor, Scope, scope_guard = static.Program, static.Executor, static.Scope, static.scope_guard
        mul, total = paddle.multiply, paddle.sum
        add_n = paddle.add_n
    else:
        fluid = paddle.fluid
        data, gradients = fluid.data, fluid.gradients
        program_guard, guard = fluid.program_guard, fluid.unique_name.guard
        Program, Executor, Scope, scope_guard = fluid.Program, fluid.Executor, fluid.Scope, fluid.scope_guard
        mul, total, add_n = fluid.layers.elementwise_mul, fluid.layers.reduce_sum, fluid.layers.sums
    rng = np.random.RandomState(zlib.crc32(name.encode()))
    main, startup, scope = Program(), Program(), Scope()
    main.random_seed = startup.random_seed = 1
    with scope_guard(scope), program_guard(main, startup), guard():
        spec = fn(paddle, rng)
        outs = list(spec.get('out', []))
        feeds = dict(spec['feeds'])
        terms = []
        for i, out in enumerate(outs):
            shape = [int(d) for d in out.shape]
            if min(shape, default=0) < 0:
                raise ValueError('%s: out[%d] (%s) has an unknown dim %s: fetch it instead' % (name, i, out.name,
                                                                                            shape))
            proj = data('proj@%d' % i, shape, _numpy_dtype(out))
            feeds['proj@%d' % i] = rng.uniform(-1, 1, shape).astype(_numpy_dtype(out))
            terms.append(total(mul(out, proj)))
        params = sorted((p for p in main.global_block().all_parameters()), key=lambda p: p.name)
        grad_of = {}
        if terms:
            loss = terms[0] if len(terms) == 1 else add_n(terms)
            targets = list(spec.get('wrt', [])) + [p for p in params if p.trainable]
            for var, grad in zip(targets, gradients([loss], targets)):
                if grad is not None:
                    grad_of['grad.' + var.name] = grad
        place = paddle.CPUPlace() if api == 'static' else paddle.fluid.CPUPlace()
        exe = Executor(place)
        exe.run(startup)
        chosen = spec.get('init', {})
        for p in params:
            tensor = scope.find_var(p.name).get_tensor()
            value = np.array(tensor)
            init = chosen[p.name] if p.name in chosen else init_value(p.name, value.shape, value.dtype)
            tensor.set(np.asarray(init, dtype=value.dtype).reshape(value.shape), place)
        fetch = outs + list(spec.get('fetch', [])) + list(grad_of.values())
        keys = (['out%d' % i for i in range(len(outs))] + ['fetch%d' % i for i in range(len(spec.get('fetch', [])))]
                + list(grad_of))
        values = exe.run(main, feed=feeds, fetch_list=fetch)
    return {'%s.%s' % (name, k): np.array(v) for k, v in zip(keys, values)}


def run_all(paddle, api: str, only=None) -> dict:
    out = {}
    for name, fn in load_cases(api).items():
        if only is None or name in only:
            out.update(run_case(paddle, api, name, fn))
    return out


def main():
    api = sys.argv[1]
    only = sys.argv[2:] or None
    import paddle
    got = run_all(paddle, api, only)
    path = os.path.join(HERE, 'nn_%s.npz' % api)
    if only and os.path.exists(path):
        got = {**dict(np.load(path)), **got}
    np.savez_compressed(path, **got)
    print('recorded %d arrays -> %s' % (len(got), path))


if __name__ == '__main__':
    main()
