"""Cases of paddle.* two-input elementwise functions (2.x names), recorded with Paddle 2.6.2 into
elementwise.npz."""
import numpy as np

try:
    from .harness import Case
except ImportError:          # run as a script by record.py
    from harness import Case

R = np.random.RandomState(7)


def U(lo, hi, shape, dtype='float64'):
    return R.uniform(lo, hi, shape).astype(dtype)


A, B = U(-2, 2, (2, 3)), U(-2, 2, (2, 3))
ROW = U(-2, 2, (3,))
NANS = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, -1.0]])
I1 = np.array([[12, -18, 0], [7, 0, 35]], 'int64')
I2 = np.array([[8, 24, 5], [0, 0, -21]], 'int64')

CASES = []


def add(*args, **kwargs):
    CASES.append(Case(*args, **kwargs))


add('atan2', lambda P, v: P.atan2(v['a'], v['b']), {'a': A, 'b': B}, grads=['a', 'b'],
    ref=lambda f: [np.arctan2(f['a'], f['b'])])
add('atan2_int', lambda P, v: P.atan2(v['a'], v['b']), {'a': I1.astype('int32'), 'b': I2.astype('int32')})
add('fmax', lambda P, v: P.fmax(v['a'], v['b']), {'a': A, 'b': B}, grads=['a', 'b'],
    ref=lambda f: [np.fmax(f['a'], f['b'])])
add('fmin', lambda P, v: P.fmin(v['a'], v['r']), {'a': A, 'r': ROW}, grads=['a', 'r'])
add('fmax_nan', lambda P, v: [P.fmax(v['a'], v['n']), P.fmin(v['n'], v['a'])], {'a': A, 'n': NANS})
add('heaviside', lambda P, v: P.heaviside(v['a'], v['b']), {'a': np.array([[-1.0, 0.0, 2.0], [0.0, 3.0, -0.5]]),
                                                          'b': B}, grads=['b'], fd=False)
add('nextafter', lambda P, v: [P.nextafter(v['a'], v['b']), P.nextafter(P.cast(v['a'], 'float32'),
                                                                         P.cast(v['b'], 'float32'))],
    {'a': A, 'b': B}, tol=(0, 0))
add('lerp', lambda P, v: P.lerp(v['a'], v['b'], v['w']), {'a': A, 'b': B, 'w': U(0, 1, (2, 3))},
    grads=['a', 'b'], ref=lambda f: [f['a'] + f['w'] * (f['b'] - f['a'])])
add('lerp_float_weight', lambda P, v: P.lerp(v['a'], v['r'], 0.25), {'a': A, 'r': ROW}, grads=['a', 'r'])
add('bitwise', lambda P, v: [P.bitwise_and(v['i'], v['j']), P.bitwise_or(v['i'], v['j']),
                             P.bitwise_xor(v['i'], v['j']), P.bitwise_not(v['i'])], {'i': I1, 'j': I2},
    ref=lambda f: [f['i'] & f['j'], f['i'] | f['j'], f['i'] ^ f['j'], ~f['i']])
add('bitwise_bool', lambda P, v: [P.bitwise_and(v['p'], v['q']), P.bitwise_not(v['p'])],
    {'p': np.array([True, False, True]), 'q': np.array([True, True, False])})
add('isclose', lambda P, v: [P.isclose(v['a'], v['c']), P.isclose(v['a'], v['c'], rtol=0.1, atol=0.01),
                             P.isclose(v['n'], v['n'], equal_nan=True)],
    {'a': A, 'c': A + np.array([[1e-9, 1e-3, 0.5], [0.0, 1e-7, -0.05]]), 'n': NANS})
add('allclose', lambda P, v: [P.allclose(v['a'], v['a'] + 1e-9), P.allclose(v['a'], v['b']),
                              P.allclose(v['n'], v['n'], equal_nan=True)], {'a': A, 'b': B, 'n': NANS})
add('equal_all', lambda P, v: [P.equal_all(v['a'], v['a']), P.equal_all(v['a'], v['b'])], {'a': A, 'b': B})
add('hypot', lambda P, v: P.hypot(v['a'], v['b']), {'a': A, 'b': B}, grads=['a', 'b'],
    ref=lambda f: [np.hypot(f['a'], f['b'])])
add('logaddexp', lambda P, v: P.logaddexp(v['a'], v['b']), {'a': A, 'b': B}, grads=['a', 'b'],
    ref=lambda f: [np.logaddexp(f['a'], f['b'])])
add('ldexp', lambda P, v: [P.ldexp(v['a'], v['i']), P.ldexp(P.cast(v['a'], 'float32'), v['i'])],
    {'a': A, 'i': np.array([[1, -2, 3], [0, 4, -1]], 'int32')})
add('gcd_lcm', lambda P, v: [P.gcd(v['i'], v['j']), P.lcm(v['i'], v['j'])], {'i': I1, 'j': I2},
    ref=lambda f: [np.gcd(f['i'], f['j']), np.lcm(f['i'], f['j'])])
add('gcd_broadcast', lambda P, v: P.gcd(v['i'], v['k']), {'i': I1, 'k': np.array([6, 4, 10], 'int64')})
