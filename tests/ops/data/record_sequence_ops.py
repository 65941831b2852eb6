"""Records what Paddle 1.8.5 computes for the sequence ops (forward values, output LoD, gradients) on small fixed
inputs, into sequence_ops_pd18.json, which tests/ops/test_sequence_ops.py compares paddle_exec with.

Runs only where Paddle 1.8.5 is installed:  /work/pd18/bin/python tests/ops/data/record_sequence_ops.py

Every case is a dict of inputs (name -> array, and the LoD as recursive sequence lengths), a builder, and which
inputs to differentiate. The gradient is that of sum(out * w) for a fixed random w of out's shape (the first
forward run gives the shape), so the recorded gradients are exactly d out . w / d input.
"""
import json
import os
import sys

import paddle.fluid as fluid
from sequence_cases import cases, run_case

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = cases(fluid)


def main():
    out = {}
    for name in CASES:
        try:
            out[name] = run_case(fluid, CASES, name)
        except Exception as exc:  # noqa: BLE001 - recorded: what Paddle refuses is part of the reference
            out[name] = {'error': str(exc).strip().splitlines()[-1][:300] if str(exc).strip() else repr(exc)}
        print(name, 'error' if 'error' in out[name] else 'ok', out[name].get('error', ''))
    with open(os.path.join(HERE, 'sequence_ops_pd18.json'), 'w') as f:
        json.dump(out, f, sort_keys=True)


if __name__ == '__main__':
    sys.exit(main())
