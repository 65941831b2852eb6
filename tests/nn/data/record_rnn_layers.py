"""Records what Paddle 2.6.2 computes for paddle.nn's recurrent layers on the fixed inputs of rnn_layer_cases.py,
into rnn_layers_pd26.json, which tests/nn/test_rnn_layers.py compares paddle_exec with.

Runs only where Paddle 2.6.2 is installed:  /work/pd26/bin/python tests/nn/data/record_rnn_layers.py
"""
import json
import os
import sys

import numpy  # noqa: F401  (before paddle: 2.6.2 crashes in zlib when paddle is imported first)
import paddle
from rnn_layer_cases import run_cases

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    with open(os.path.join(HERE, 'rnn_layers_pd26.json'), 'w') as f:
        json.dump(run_cases(paddle), f, sort_keys=True)


if __name__ == '__main__':
    sys.exit(main())
