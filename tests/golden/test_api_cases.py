"""Every API case of tests/golden/api/<family>_cases.py reproduces the numbers real Paddle recorded for it
(<family>.npz, written by record_api_cases.py with paddlepaddle 1.8.5 for fluid families, 2.6.2 for static ones):
forward values, gradients, losses over training steps, final parameters, host-side metric values."""
import glob
import importlib.util
import os

import numpy as np
import pytest

import paddle_exec

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'api')
spec = importlib.util.spec_from_file_location('record_api_cases', os.path.join(HERE, 'record_api_cases.py'))
runner = importlib.util.module_from_spec(spec)
spec.loader.exec_module(runner)

# a family is <family>.npz with its <family>_cases.py (the nn and detection recordings beside them have their own
# runners: tests/api/test_nn_golden.py, tests/kernels/test_detection.py)
FAMILIES = sorted(os.path.basename(p)[:-len('.npz')] for p in glob.glob(os.path.join(HERE, '*.npz'))
                  if os.path.exists(p[:-len('.npz')] + '_cases.py'))
CASES = [(family, name) for family in FAMILIES for name in runner.case_names(runner.load_family(family))]


@pytest.mark.parametrize('family,name', CASES, ids=['%s/%s' % c for c in CASES])
def test_api_case_matches_recorded_paddle(family, name):
    module = runner.load_family(family)
    want = {k[len(name) + 1:]: v for k, v in np.load(os.path.join(HERE, family + '.npz')).items()
            if k.split('/')[0] == name}
    assert want, 'no recorded values for %s/%s: run record_api_cases.py with real Paddle' % (family, name)
    got = runner.run_one(module, name, paddle_exec)
    bad = runner.compare(got, want, getattr(module, 'RTOL', 1e-5), getattr(module, 'ATOL', 1e-6))
    assert not bad, bad
