"""Records what Paddle 1.8.5's pyramid_hash gives in pyramid_hash_cases.py (Out, its LoD, DropPos and the weight
after one training step) into pyramid_hash_pd18.json, which tests/ops/test_pyramid_hash_ops.py compares paddle_exec
with.

Runs only where Paddle 1.8.5 is installed:  /work/pd18/bin/python tests/ops/data/record_pyramid_hash.py
"""
import json
import os
import sys

import paddle.fluid as fluid
from pyramid_hash_cases import CASES, run

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    cases = {name: run(fluid, name) for name in CASES}
    with open(os.path.join(HERE, 'pyramid_hash_pd18.json'), 'w') as f:
        json.dump(cases, f, sort_keys=True)


if __name__ == '__main__':
    sys.exit(main())
