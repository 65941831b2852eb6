"""Records lod_parallel_case.run under Paddle 1.8.5 into lod_parallel_pd18.json:
    /work/pd18/bin/python tests/executor/data/record_lod_parallel.py"""
import json
import os

import paddle.fluid as fluid
from lod_parallel_case import run

steps, final = run(fluid)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'lod_parallel_pd18.json'), 'w') as f:
    json.dump({'steps': steps, 'final': final}, f, sort_keys=True)
print([s['loss'] for s in steps], [s['emb_lod'] for s in steps])
