"""Cases of paddle.einsum, frexp, the in-place *_ functions (out-of-place in static mode) and to_tensor / finfo-like
helpers, recorded with Paddle 2.6.2 into misc.npz."""
import numpy as np

try:
    from .harness import Case
except ImportError:          # run as a script by record.py
    from harness import Case

R = np.random.RandomState(23)


def U(lo, hi, shape, dtype='float64'):
    return R.uniform(lo, hi, shape).astype(dtype)


A, B, C = U(-1, 1, (2, 3)), U(-1, 1, (3, 4)), U(-1, 1, (2, 3, 4))
S = U(-1, 1, (3, 3))

CASES = []


def add(*args, **kwargs):
    CASES.append(Case(*args, **kwargs))


add('einsum_matmul', lambda P, v: [P.einsum('ij,jk->ik', v['a'], v['b']), P.einsum('ij,jk', v['a'], v['b']),
                                   P.einsum('bij,jk->bik', v['c'], v['s']), P.einsum('ij->ji', v['a'])],
    {'a': A, 'b': B, 'c': U(-1, 1, (2, 4, 3)), 's': S}, grads=['a', 'b', 'c', 's'], grad_outs=(0, 1, 2, 3),
    ref=lambda f: [f['a'] @ f['b'], f['a'] @ f['b'], np.einsum('bij,jk->bik', f['c'], f['s']), f['a'].T])
add('einsum_reduce', lambda P, v: [P.einsum('ii->', v['s']), P.einsum('ii->i', v['s']), P.einsum('ijk->j', v['c']),
                                   P.einsum('i,i->', v['u'], v['u']), P.einsum('i,j->ij', v['u'], v['w'])],
    {'s': S, 'c': C, 'u': U(-1, 1, (3,)), 'w': U(-1, 1, (2,))}, grads=['s', 'c', 'u', 'w'], grad_outs=(0, 1, 2, 3, 4),
    ref=lambda f: [np.trace(f['s']), np.diag(f['s']), f['c'].sum((0, 2)), f['u'] @ f['u'],
                   np.outer(f['u'], f['w'])])
add('einsum_ellipsis', lambda P, v: [P.einsum('...ij,...jk->...ik', v['c'], v['d']), P.einsum('b...->...', v['c'])],
    {'c': C, 'd': U(-1, 1, (2, 4, 2))}, grads=['c', 'd'], grad_outs=(0, 1),
    ref=lambda f: [np.einsum('...ij,...jk->...ik', f['c'], f['d']), f['c'].sum(0)])
add('frexp', lambda P, v: list(P.frexp(v['x'])) + list(P.frexp(P.cast(v['x'], 'float32'))),
    {'x': np.array([[0.0, 1.0, -3.5], [1024.0, 0.3, -1e-5]])},
    ref=lambda f: [np.frexp(f['x'])[0], np.frexp(f['x'])[1].astype(np.float64)])
add('inplace', lambda P, v: [P.tanh_(v['x']), P.abs_(v['x']), P.addmm_(v['m'], v['a'], v['b']),
                             P.reshape_(v['x'], [3, 2]), P.scale(P.t_(v['x']), 2.0), P.cumsum_(v['x'], 1),
                             P.clip(P.lgamma_(P.abs(v['x']) + 1.0), -5.0, 5.0), P.where_(v['x'] > 0, v['x'], v['a'])],
    {'x': A, 'm': U(-1, 1, (2, 4)), 'a': A, 'b': B}, grads=['x', 'a'], grad_outs=(0, 2, 4, 5, 6, 7))
