"""Run a family of API cases on a backend, and record (real Paddle) or compare (paddle_exec) their numbers.

A case file (`<family>_cases.py` next to this one) sets API ('fluid': recorded with paddlepaddle 1.8.5 under
/work/pd18, Python 3.8; 'static': paddlepaddle 2.6.2 under /work/pd26), optionally RTOL / ATOL, and defines
functions `case_<name>(paddle, rng)` that build a program in the current program guard and return a dict:

- 'feeds': one feed dict, or a list of them (one run per feed: optimizer cases train several steps);
- 'fetch': the variables fetched at every run;
- 'out' and 'wrt' (optional): the gradient of `sum(out * proj)` (`proj` a fixed random array fed as `proj@case`)
  with respect to every variable in `wrt` (data variables get stop_gradient=False) is fetched too;
- 'before_run' (optional): `before_run(i)` is called before run i (an LR scheduler's step());
- 'after' (optional): `after(fetched_runs)` -> {key: array} of host-side values (Python metric classes, ...);
- 'values' (optional): {key: array} computed without running the program (host-only cases);
- 'keep_params' (optional): parameter names left as the startup program made them (constant tables);
- 'param_copies' (optional): suffixes of variables the startup program fills from each parameter (Lookahead's
  `<param>@SLOW`), set to the parameter's new value too.

Parameters are not left to each framework's initialisers: after the startup program every parameter is set from
a numpy generator seeded by its name (run_case.init_value), unless the case sets 'keep_init'. Feeds and
projections come from `rng`, seeded by the case name, so both frameworks see the same numbers.

    /work/pd18/bin/python tests/golden/api/record_api_cases.py fluid_losses --backend paddle --record
    .venv/bin/python tests/golden/api/record_api_cases.py fluid_losses            # compare with the record

The file must stay Python 3.8 compatible: the 1.8.5 reference runs there.
"""
import argparse
import importlib
import importlib.util
import os
import sys
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


run_case = _load(os.path.join(os.path.dirname(HERE), 'run_case.py'), 'run_case')


def load_family(family):
    return _load(os.path.join(HERE, family + '_cases.py'), family + '_cases')


def case_names(module):
    return sorted(n[len('case_'):] for n in dir(module) if n.startswith('case_'))


def _np_dtype(var):
    text = str(var.dtype).split('.')[-1].lower()
    return {'fp32': 'float32', 'fp64': 'float64', 'float32': 'float32', 'float64': 'float64'}.get(text, 'float32')


def run_one(module, name, paddle):
    """Runs case `name` of `module` on the backend module `paddle`; returns {key: array}."""
    api = paddle.fluid if module.API == 'fluid' else paddle.static
    if module.API == 'static':
        paddle.enable_static()
    rng = np.random.RandomState(zlib.crc32(name.encode()))
    main, startup, scope = api.Program(), api.Program(), api.Scope()
    # paddle 2.6 has no paddle.fluid; paddle_exec has no paddle.utils yet
    unique = getattr(getattr(paddle, 'utils', None), 'unique_name', None) or paddle.fluid.unique_name
    with unique.guard(), api.scope_guard(scope), api.program_guard(main, startup):
        spec = getattr(module, 'case_' + name)(paddle, rng)
        out = {}
        for key, value in spec.get('values', {}).items():
            out[key] = np.asarray(value)
        if not spec.get('fetch'):
            return out
        fetch = list(spec['fetch'])
        feeds = spec['feeds'] if isinstance(spec['feeds'], list) else [spec['feeds']]
        if spec.get('out') is not None:
            target = spec['out']
            shape = [d if d > 0 else 1 for d in target.shape]
            proj_value = rng.uniform(-1.0, 1.0, shape).astype(_np_dtype(target))
            proj = api.data('proj@case', shape, _np_dtype(target))
            layers = paddle.fluid.layers if module.API == 'fluid' else paddle
            total = layers.reduce_sum(layers.elementwise_mul(target, proj)) if module.API == 'fluid' else \
                paddle.sum(paddle.multiply(target, proj))
            for v in spec['wrt']:
                v.stop_gradient = False
            (paddle.fluid.backward if module.API == 'fluid' else api).append_backward(total)
            fetch += [main.global_block().var(v.name + '@GRAD') for v in spec['wrt']]
            feeds = [dict(f, **{'proj@case': proj_value}) for f in feeds]
        place = api.CPUPlace() if hasattr(api, "CPUPlace") else paddle.CPUPlace()
        exe = api.Executor(place)
        exe.run(startup)
        params = sorted(p.name for p in main.global_block().all_parameters())
        if not spec.get('keep_init'):
            for pname in params:
                if pname in spec.get('keep_params', ()):
                    continue
                tensor = api.global_scope().find_var(pname).get_tensor()
                current = np.array(tensor)
                value = run_case.init_value(pname, current.shape, current.dtype)
                tensor.set(value, place)
                for suffix in spec.get('param_copies', ()):
                    api.global_scope().find_var(pname + suffix).get_tensor().set(value, place)
        runs = []
        for i, feed in enumerate(feeds):
            if spec.get('before_run') is not None:
                spec['before_run'](i)
            values = exe.run(main, feed=feed, fetch_list=fetch)
            runs.append([np.array(v) for v in values])
            for j, value in enumerate(runs[-1]):
                out['step%d.fetch%d' % (i, j)] = value
        for pname in params:
            out['final.' + pname] = np.array(api.global_scope().find_var(pname).get_tensor())
        if spec.get('after') is not None:
            for key, value in spec['after'](runs).items():
                out[key] = np.asarray(value)
    return out


def run_family(family, paddle, only=None):
    module = load_family(family)
    got = {}
    for name in case_names(module):
        if only and name not in only:
            continue
        try:
            results = run_one(module, name, paddle)
        except Exception:
            sys.stderr.write('case %s failed\n' % name)
            raise
        for key, value in results.items():
            got[name + '/' + key] = value
    return module, got


def compare(got, want, rtol, atol):
    """Mismatch descriptions (empty when everything agrees), as run_case.compare but without the float cast of
    integer and boolean results."""
    bad = []
    for key in sorted(want):
        if key not in got:
            bad.append('%s: missing' % key)
            continue
        g, w = np.asarray(got[key]), np.asarray(want[key])
        if g.size != w.size:
            bad.append('%s: %d values, expected %d' % (key, g.size, w.size))
        elif not np.allclose(g.astype(np.float64).ravel(), w.astype(np.float64).ravel(), rtol=rtol, atol=atol,
                             equal_nan=True):
            diff = np.abs(g.astype(np.float64).ravel() - w.astype(np.float64).ravel())
            bad.append('%s: max abs diff %.3g' % (key, np.nanmax(diff)))
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('family')
    ap.add_argument('--backend', default='paddle_exec')
    ap.add_argument('--record', action='store_true', help='write <family>.npz (only with real Paddle)')
    ap.add_argument('--only', nargs='*')
    args = ap.parse_args()
    paddle = importlib.import_module(args.backend)
    module, got = run_family(args.family, paddle, args.only)
    path = os.path.join(HERE, args.family + '.npz')
    if args.record:
        if args.backend == 'paddle_exec':
            sys.exit('recording is for real Paddle only')
        np.savez(path, **got)
        print('recorded %d arrays -> %s' % (len(got), path))
        return
    want = dict(np.load(path))
    if args.only:
        want = {k: v for k, v in want.items() if k.split('/')[0] in args.only}
    bad = compare(got, want, getattr(module, 'RTOL', 1e-5), getattr(module, 'ATOL', 1e-6))
    for line in bad:
        print('MISMATCH', line)
    print('%s: %s' % (args.family, 'ok' if not bad else '%d mismatches' % len(bad)))
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    main()
