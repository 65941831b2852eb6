"""Cases of paddle.* math functions (2.x names), recorded with Paddle 2.6.2 into math.npz.

Inputs are float64 where a gradient is recorded (so that finite differences of the forward program are exact to
~1e-9), with a float32 twin for the dtype rules. Each `build(P, v)` uses only the public API, so the same case
runs on Paddle and on paddle_exec.
"""
import math

import numpy as np

try:
    from .harness import Case
except ImportError:          # run as a script by record.py
    from harness import Case

R = np.random.RandomState(2024)


def U(lo, hi, shape, dtype='float64'):
    return R.uniform(lo, hi, shape).astype(dtype)


X23 = U(-0.9, 0.9, (2, 3))
POS = U(0.2, 2.5, (2, 3))
BIG = U(1.2, 3.0, (2, 3))
WIDE = U(-3.0, 3.0, (2, 3))
UNIT = U(0.05, 0.95, (2, 3))

CASES = []


def add(*args, **kwargs):
    CASES.append(Case(*args, **kwargs))


# --- one-input functions: values and gradients ---------------------------------------------------------------------

_UNARY = [('acos', X23, np.arccos), ('asin', X23, np.arcsin), ('atan', WIDE, np.arctan),
          ('acosh', BIG, np.arccosh), ('asinh', WIDE, np.arcsinh), ('atanh', X23, np.arctanh),
          ('cosh', WIDE, np.cosh), ('sinh', WIDE, np.sinh), ('tan', X23, np.tan), ('expm1', WIDE, np.expm1),
          ('log2', POS, np.log2), ('log10', POS, np.log10), ('digamma', U(-2.7, 3.0, (2, 3)), None),
          ('lgamma', U(0.1, 4.0, (2, 3)), np.vectorize(math.lgamma)), ('erfinv', X23, None),
          ('i0', WIDE, np.i0), ('i0e', WIDE, lambda a: np.i0(a) * np.exp(-np.abs(a))), ('i1', WIDE, None),
          ('i1e', WIDE, None), ('logit', UNIT, lambda a: np.log(a / (1 - a))), ('neg', WIDE, np.negative),
          ('deg2rad', WIDE, np.deg2rad), ('rad2deg', WIDE, np.rad2deg)]


def _unary_build(name):
    return lambda P, v: getattr(P, name)(v['x'])


def _unary_ref(fn):
    return None if fn is None else (lambda f: [fn(f['x'])])


for _name, _x, _ref in _UNARY:
    add(_name, _unary_build(_name), {'x': _x}, grads=['x'], ref=_unary_ref(_ref))
    add(_name + '_f32', _unary_build(_name), {'x': _x.astype('float32')}, tol=(2e-6, 1e-6))

add('trunc', lambda P, v: P.trunc(v['x']), {'x': WIDE}, grads=['x'], ref=lambda f: [np.trunc(f['x'])])
add('trunc_int', lambda P, v: P.trunc(v['x']), {'x': np.array([[3, -2], [0, 7]], 'int64')})
add('frac', lambda P, v: P.frac(v['x']), {'x': WIDE}, grads=['x'], ref=lambda f: [f['x'] - np.trunc(f['x'])])
add('sgn', lambda P, v: P.sgn(v['x']), {'x': np.array([[1.5, 0.0, -2.0]])}, ref=lambda f: [np.sign(f['x'])])
add('polygamma1', lambda P, v: P.polygamma(v['x'], 1), {'x': POS}, grads=['x'])
add('polygamma3', lambda P, v: P.polygamma(v['x'], 3), {'x': BIG}, grads=['x'])
add('polygamma0', lambda P, v: P.polygamma(v['x'], 0), {'x': POS})
add('logit_eps', lambda P, v: P.logit(v['x'], eps=0.2), {'x': UNIT}, grads=['x'],
    ref=lambda f: [np.log(np.clip(f['x'], 0.2, 0.8) / (1 - np.clip(f['x'], 0.2, 0.8)))])
add('deg2rad_int', lambda P, v: P.deg2rad(v['x']), {'x': np.array([[90, -180, 45]], 'int32')})
add('special_points', lambda P, v: [P.digamma(v['x']), P.lgamma(v['x']), P.erfinv(v['y'])],
    {'x': np.array([1.0, 0.5, 10.5, -0.5, 30.0]), 'y': np.array([0.0, 0.999, -0.999, 0.5, -0.25])})
add('bessel_large', lambda P, v: [P.i0(v['x']), P.i0e(v['x']), P.i1(v['x']), P.i1e(v['x'])],
    {'x': np.array([0.0, 7.5, -20.0, 60.0, -80.0])}, tol=(1e-7, 0))

# --- complex numbers -------------------------------------------------------------------------------------------------

CA, CB = U(-2, 2, (2, 3)), U(-2, 2, (2, 3))
add('complex_parts', lambda P, v: [P.real(P.complex(v['a'], v['b'])) * v['a'],
                                   P.imag(P.complex(v['a'], v['b'])) * v['b']],
    {'a': CA, 'b': CB}, grads=['a', 'b'], grad_outs=(0, 1))
add('complex_abs_angle', lambda P, v: [P.abs(P.complex(v['a'], v['b'])), P.angle(P.complex(v['a'], v['b']))],
    {'a': CA, 'b': CB}, grads=['a', 'b'], grad_outs=(0, 1),
    ref=lambda f: [np.hypot(f['a'], f['b']), np.arctan2(f['b'], f['a'])])
add('angle_real', lambda P, v: P.angle(v['x']), {'x': np.array([[1.0, -2.0, 0.0]])}, grads=['x'],
    fd=False)  # a step at 0: Paddle's gradient is 0 everywhere
add('as_real_as_complex', lambda P, v: [P.as_real(P.as_complex(v['x'])) * 2.0, P.as_real(P.conj(P.as_complex(v['x'])))],
    {'x': U(-1, 1, (3, 2))}, grads=['x'], grad_outs=(0, 1))
add('polar', lambda P, v: P.as_real(P.polar(v['r'], v['t'])), {'r': POS, 't': WIDE}, grads=['r', 't'],
    ref=lambda f: [np.stack([f['r'] * np.cos(f['t']), f['r'] * np.sin(f['t'])], -1)])
add('complex_arith', lambda P, v: P.as_real(P.complex(v['a'], v['b']) * P.complex(v['b'], v['a'])
                                           / P.complex(v['a'] + 3.0, v['b']) - P.complex(v['a'], v['a'])),
    {'a': CA, 'b': CB}, grads=['a', 'b'])
add('sgn_complex', lambda P, v: P.as_real(P.sgn(P.complex(v['a'], v['b']))),
    {'a': np.array([0.0, 3.0, -1.0]), 'b': np.array([0.0, 4.0, 1.0])})
add('conj_real', lambda P, v: P.conj(v['x']), {'x': WIDE}, grads=['x'])
