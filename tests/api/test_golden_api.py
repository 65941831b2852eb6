"""Every API case of tests/golden/api/cases_<family>.py run on paddle_exec and compared with what real Paddle
computed (the <family>.npz recorded by record.py): outputs, loss and gradients, with the case's tolerance; the
outputs against the case's numpy reference where it has one; and every recorded gradient of a float64 case
against central finite differences of the same forward program run by paddle_exec."""
import importlib
import os
import warnings

import numpy as np
import pytest

import paddle_exec
import paddle_exec.fluid
from tests.golden.api import harness

HERE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'golden', 'api')
FAMILIES = sorted(f[len('cases_'):-len('.py')] for f in os.listdir(HERE) if f.startswith('cases_'))


def _load():
    params = []
    for family in FAMILIES:
        module = importlib.import_module('tests.golden.api.cases_' + family)
        path = os.path.join(HERE, family + '.npz')
        recorded = dict(np.load(path)) if os.path.exists(path) else {}
        for case in module.CASES:
            params.append(pytest.param(case, {k.split('/', 1)[1]: v for k, v in recorded.items()
                                              if k.split('/', 1)[0] == case.name}, id='%s-%s' % (family, case.name)))
    return params


CASES = _load()


def _module(case):
    return paddle_exec.fluid if case.api == 'fluid' else paddle_exec


def _same(got, want, tol, what):
    got, want = np.asarray(got), np.asarray(want)
    # Paddle 2.6 gives 0-d results where 2.4 (and paddle_exec) give [1]
    if got.shape != want.shape and not (got.size == want.size == 1):
        raise AssertionError('%s: shape %s, Paddle %s' % (what, got.shape, want.shape))
    if want.dtype.kind in 'biu':
        np.testing.assert_array_equal(got.reshape(want.shape), want, err_msg=what)
        return
    assert got.dtype.kind == want.dtype.kind, (what, got.dtype, want.dtype)
    np.testing.assert_allclose(got.reshape(want.shape), want, rtol=tol[0], atol=tol[1], equal_nan=True,
                               err_msg=what)


@pytest.mark.parametrize('case,recorded', CASES)
def test_matches_paddle(case, recorded):
    if not recorded and case.ref is None:
        pytest.skip('not recorded with Paddle (record.py reported why) and no numpy reference')
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        got = harness.run(_module(case), case)
    keys = [k for k in recorded if case.check is None or not k.startswith('out') or int(k[3:]) in case.check]
    for key in keys:
        assert key in got, (case.name, key, sorted(got))
        _same(got[key], recorded[key], case.tol, '%s %s' % (case.name, key))
    if case.ref is not None:
        feeds = {k: np.asarray(v) for k, v in case.feeds.items()}
        for i, want in enumerate(case.ref(feeds)):
            _same(got['out%d' % i], np.asarray(want, dtype=got['out%d' % i].dtype), case.tol,
                  '%s out%d vs numpy' % (case.name, i))


FD_CASES = [p for p in CASES if p.values[0].grads and p.values[0].fd
            and all(np.asarray(p.values[0].feeds[n]).dtype == np.float64 for n in p.values[0].grads)]


@pytest.mark.parametrize('case,recorded', FD_CASES)
def test_gradient_matches_finite_differences(case, recorded):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        got = harness.run(_module(case), case)
        loss = harness.loss_of(_module(case), case)
    feeds = {k: np.array(v, dtype=np.asarray(v).dtype) for k, v in case.feeds.items()}
    eps = 1e-6
    for name in case.grads:
        base = feeds[name]
        num = np.zeros(base.shape)
        flat = num.reshape(-1)
        for i in range(base.size):
            plus, minus = base.copy(), base.copy()
            plus.reshape(-1)[i] += eps
            minus.reshape(-1)[i] -= eps
            flat[i] = (loss(dict(feeds, **{name: plus})) - loss(dict(feeds, **{name: minus}))) / (2 * eps)
        np.testing.assert_allclose(got['grad_' + name], num, rtol=1e-5, atol=1e-6,
                                   err_msg='%s: d loss / d %s' % (case.name, name))
