"""Records what Paddle 1.8.5 computes for the structured losses and decoders (forward values, output LoD and
compile-time lod_level, gradients) on the small fixed inputs of structured_cases.py, into structured_ops_pd18.json,
which tests/ops/test_structured_ops.py compares paddle_exec with. A case Paddle refuses is recorded with its error.

Runs only where Paddle 1.8.5 is installed:  /work/pd18/bin/python tests/ops/data/record_structured_ops.py
"""
import json
import os
import sys

import paddle.fluid as fluid
from structured_cases import cases, run_case

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = cases(fluid)


def _summary(exc) -> str:
    """The line of Paddle's message that says what is wrong (after its "Error Message Summary")."""
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    said = [line for line in lines if 'Error' in line and ':' in line and 'Summary' not in line]
    return (said or lines or [repr(exc)])[-1][:300]


def main():
    out = {}
    for name in CASES:
        try:
            out[name] = run_case(fluid, CASES, name)
        except Exception as exc:  # noqa: BLE001 - recorded: what Paddle refuses is part of the reference
            out[name] = {'error': _summary(exc)}
        print(name, 'error' if 'error' in out[name] else 'ok', out[name].get('error', ''))
    with open(os.path.join(HERE, 'structured_ops_pd18.json'), 'w') as f:
        json.dump(out, f, sort_keys=True)


if __name__ == '__main__':
    sys.exit(main())
