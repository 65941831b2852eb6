"""Records what real Paddle computes for a family of API cases: `<family>.npz` next to this file.

    /path/to/paddle-2.6.2/bin/python tests/golden/api/record.py math linalg fft ...   (2.x families)
    /path/to/paddle-1.8.5/bin/python tests/golden/api/record.py fluid_math            (fluid families)

Runs only where Paddle is installed; the project's tests only read the .npz files (tests/api/test_golden_api.py).
Each case's results are stored as '<case>/<key>' (out0, out1, ..., loss, grad_<input>); a case Paddle rejects is
reported and left out, so the test skips it.
"""
import importlib
import os
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import harness  # noqa: E402


def record(family):
    module = importlib.import_module('cases_' + family)
    fluid_api = any(c.api == 'fluid' for c in module.CASES)
    import paddle
    if fluid_api:
        import paddle.fluid as P
    else:
        paddle.enable_static()
        P = paddle
    arrays = {}
    for case in module.CASES:
        if not case.record:
            print('%s/%s: not recorded: Paddle computes it wrongly (see the case)' % (family, case.name))
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                result = harness.run(P, case, with_grads=case.paddle_grads)
        except Exception as exc:  # noqa: BLE001 - reported, the case is left out
            print('%s/%s: not recorded: %s: %s' % (family, case.name, type(exc).__name__, str(exc)[:300]))
            continue
        for key, value in result.items():
            arrays['%s/%s' % (case.name, key)] = value
    path = os.path.join(HERE, family + '.npz')
    np.savez_compressed(path, **arrays)
    print('%s: %d cases, %d arrays -> %s (paddle %s)' % (family, len(module.CASES), len(arrays), path,
                                                        paddle.__version__))


if __name__ == '__main__':
    for fam in sys.argv[1:]:
        record(fam)
