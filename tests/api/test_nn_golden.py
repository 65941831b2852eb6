"""The nn builders (conv / pool / norm / resize / vision / common layers) against numbers recorded with real Paddle:
every case of tests/golden/api/nn_cases_fluid.py (paddlepaddle 1.8.5) and nn_cases_static.py (2.6.2) is built and
run on paddle_exec by the same runner that recorded it (tests/golden/api/nn_golden.py), and every output, every
input gradient and every parameter gradient must match: same values, same shapes, same parameter names."""
from __future__ import annotations

import os

import numpy as np
import pytest

import paddle_exec
from tests.golden.api import nn_golden

HERE = os.path.dirname(nn_golden.__file__)
RECORDED = {api: dict(np.load(os.path.join(HERE, 'nn_%s.npz' % api))) for api in ('fluid', 'static')
            if os.path.exists(os.path.join(HERE, 'nn_%s.npz' % api))}
CASES = [(api, name, fn) for api in ('fluid', 'static') for name, fn in nn_golden.load_cases(api).items()]


@pytest.mark.parametrize('api,name,fn', CASES, ids=['%s-%s' % (a, n) for a, n, _ in CASES])
def test_case_matches_real_paddle(api, name, fn):
    want = {k: v for k, v in RECORDED.get(api, {}).items() if k.startswith(name + '.')}
    assert want, 'no recorded values for %s case %s: run nn_golden.py %s under real Paddle' % (api, name, api)
    got = nn_golden.run_case(paddle_exec, api, name, fn)
    assert sorted(got) == sorted(want)
    for key in sorted(want):
        g, w = np.asarray(got[key]), np.asarray(want[key])
        assert g.shape == w.shape, (key, g.shape, w.shape)
        if w.dtype.kind in 'iub':
            np.testing.assert_array_equal(g, w, err_msg=key)
        else:
            np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=2e-4, atol=2e-5,
                                       err_msg=key)
