"""Records lod_propagation_cases under Paddle 1.8.5 into lod_propagation_pd18.json:
    /work/pd18/bin/python tests/ops/data/record_lod_propagation.py"""
import json
import os

import paddle.fluid as fluid
from lod_propagation_cases import cases, run_case

out = {name: run_case(fluid, build) for name, build in cases(fluid).items()}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'lod_propagation_pd18.json'), 'w') as f:
    json.dump(out, f, sort_keys=True, indent=0)
print(len(out), 'cases')
