"""Records what Paddle 1.8.5 computes for the cases of fluid_rest_cases.py (forward values, output LoD,
gradients) into fluid_rest_pd18.json, which tests/api/test_fluid_rest_golden.py compares paddle_exec with.
Runs only where Paddle 1.8.5 is installed:

    /work/pd18/bin/python tests/golden/api/record_fluid_rest.py [case ...]

The runner is the sequence ops' (tests/ops/data/sequence_cases.py: run_case); a case Paddle refuses is recorded
with its error.
"""
import importlib.util
import json
import os
import sys

import paddle.fluid as fluid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


runner = load(os.path.join(ROOT, 'ops', 'data', 'sequence_cases.py'), 'sequence_cases')
fluid_rest_cases = load(os.path.join(HERE, 'fluid_rest_cases.py'), 'fluid_rest_cases')


def main():
    path = os.path.join(HERE, 'fluid_rest_pd18.json')
    cases = fluid_rest_cases.cases(fluid)
    only = sys.argv[1:]
    out = {}
    if only and os.path.exists(path):
        with open(path) as f:
            out = json.load(f)
    for name in cases:
        if only and name not in only:
            continue
        try:
            out[name] = runner.run_case(fluid, cases, name)
        except Exception as exc:  # noqa: BLE001 - what Paddle refuses is part of the reference
            text = str(exc).strip()
            out[name] = {'error': text.splitlines()[-1][:300] if text else repr(exc)}
        print(name, 'error' if 'error' in out[name] else 'ok', out[name].get('error', ''))
    with open(path, 'w') as f:
        json.dump(out, f, sort_keys=True)


if __name__ == '__main__':
    sys.exit(main())
