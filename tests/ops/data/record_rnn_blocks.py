"""Records what Paddle 1.8.5 computes for the recurrent blocks (DynamicRNN, StaticRNN, While gradients, the
rank-table ops: forward values, output LoD, gradients) on the small fixed inputs of rnn_block_cases.py, into
rnn_blocks_pd18.json, which tests/ops/test_rnn_blocks.py compares paddle_exec with.

Runs only where Paddle 1.8.5 is installed:  /work/pd18/bin/python tests/ops/data/record_rnn_blocks.py
"""
import json
import os
import sys

import paddle.fluid as fluid
from rnn_block_cases import cases
from sequence_cases import run_case

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = cases(fluid)


def _message(exc) -> str:
    """Paddle's 'Error: ...' line (its C++ errors end with the operator's name on a line of its own)."""
    lines = [line.strip() for line in str(exc).strip().splitlines()] or [repr(exc)]
    errors = [line for line in lines if line.startswith('Error:')]
    return (errors[-1] if errors else lines[-1])[:300]


def main():
    out = {}
    for name in CASES:
        try:
            out[name] = run_case(fluid, CASES, name)
        except Exception as exc:  # noqa: BLE001 - recorded: what Paddle refuses is part of the reference
            out[name] = {'error': _message(exc)}
        print(name, 'error' if 'error' in out[name] else 'ok', out[name].get('error', ''))
    with open(os.path.join(HERE, 'rnn_blocks_pd18.json'), 'w') as f:
        json.dump(out, f, sort_keys=True)


if __name__ == '__main__':
    sys.exit(main())
