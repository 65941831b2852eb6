"""Cases of paddle.linalg and the paddle.* matrix functions (2.x names), recorded with Paddle 2.6.2 into
linalg.npz. Decompositions whose factors are defined up to signs (svd, eigh, qr) are compared through quantities
that do not depend on the signs (products of factors, squares of their entries), gradients included."""
import numpy as np

try:
    from .harness import Case
except ImportError:          # run as a script by record.py
    from harness import Case

R = np.random.RandomState(11)


def U(lo, hi, shape, dtype='float64'):
    return R.uniform(lo, hi, shape).astype(dtype)


M3 = U(-1, 1, (3, 3)) + 3 * np.eye(3)
M3B = U(-1, 1, (2, 3, 3)) + 3 * np.eye(3)
G43 = U(-1, 1, (4, 3))
B32 = U(-1, 1, (3, 2))
V3 = U(-1, 1, (3,))
X23, Y23 = U(-1, 1, (2, 3)), U(-1, 1, (2, 3))

CASES = []


def add(*args, **kwargs):
    CASES.append(Case(*args, **kwargs))


def spd(P, x):
    """x x^T + 3 I: symmetric positive definite, differentiable in x."""
    return P.matmul(x, x, transpose_y=True) + P.eye(x.shape[-1], dtype='float64') * 3.0


# --- paddle.* matrix functions ---------------------------------------------------------------------------------------

add('kron', lambda P, v: P.kron(v['a'], v['b']), {'a': X23, 'b': B32}, grads=['a', 'b'],
    ref=lambda f: [np.kron(f['a'], f['b'])])
add('kron_ranks', lambda P, v: P.kron(v['a'], v['v']), {'a': X23, 'v': V3}, grads=['a', 'v'])
add('cross', lambda P, v: P.cross(v['a'], v['b']), {'a': U(-1, 1, (3, 2)), 'b': U(-1, 1, (3, 2))}, grads=['a', 'b'],
    ref=lambda f: [np.cross(f['a'], f['b'], axis=0)])
add('cross_axis', lambda P, v: P.cross(v['a'], v['b'], axis=1), {'a': U(-1, 1, (2, 3)), 'b': U(-1, 1, (2, 3))},
    grads=['a', 'b'])
add('dist', lambda P, v: [P.dist(v['a'], v['b']), P.dist(v['a'], v['b'], p=1), P.dist(v['a'], v['b'], p=3.5)],
    {'a': X23, 'b': Y23}, grads=['a', 'b'], grad_outs=(0, 1, 2))
add('dist_inf', lambda P, v: [P.dist(v['a'], v['b'], p=float('inf')), P.dist(v['a'], v['b'], p=0)],
    {'a': X23, 'b': Y23}, grads=['a'], grad_outs=(0,))
add('trace', lambda P, v: [P.trace(v['m']), P.trace(v['m'], offset=1), P.trace(v['b'], 0, 1, 2)],
    {'m': M3, 'b': M3B}, grads=['m', 'b'], grad_outs=(0, 1, 2))
add('diagonal', lambda P, v: [P.diagonal(v['m'], offset=-1), P.diagonal(v['b'], 0, 2, 0)], {'m': M3, 'b': M3B},
    grads=['m', 'b'], grad_outs=(0, 1), ref=lambda f: [np.diagonal(f['m'], -1), np.diagonal(f['b'], 0, 2, 0)])
add('diag', lambda P, v: [P.diag(v['v']), P.diag(v['v'], offset=1, padding_value=7), P.diag(v['m'], offset=-1)],
    {'v': V3, 'm': M3}, grads=['v', 'm'], grad_outs=(0, 1, 2), paddle_grads=False)   # no diag_v2_grad in 2.6.2
add('diag_embed', lambda P, v: [P.diag_embed(v['a']), P.diag_embed(v['a'], offset=1, dim1=0, dim2=2)],
    {'a': X23}, grads=['a'], grad_outs=(0, 1))
add('diagflat', lambda P, v: [P.diagflat(v['a']), P.diagflat(v['v'], offset=-1)], {'a': X23, 'v': V3},
    grads=['a', 'v'], grad_outs=(0, 1), paddle_grads=False)
add('mv', lambda P, v: P.mv(v['m'], v['v']), {'m': M3, 'v': V3}, grads=['m', 'v'], ref=lambda f: [f['m'] @ f['v']])
add('addmm', lambda P, v: P.addmm(v['i'], v['a'], v['b'], beta=0.5, alpha=2.0),
    {'i': U(-1, 1, (2, 2)), 'a': X23, 'b': B32}, grads=['i', 'a', 'b'],
    ref=lambda f: [0.5 * f['i'] + 2.0 * f['a'] @ f['b']])
add('addmm_broadcast', lambda P, v: P.addmm(v['i'], v['a'], v['b']), {'i': U(-1, 1, (1, 2)), 'a': X23, 'b': B32},
    grads=['i', 'a', 'b'])
add('inner_outer', lambda P, v: [P.inner(v['a'], v['b']), P.outer(v['v'], v['v'])], {'a': X23, 'b': Y23, 'v': V3},
    grads=['a', 'b', 'v'], grad_outs=(0, 1), ref=lambda f: [np.inner(f['a'], f['b']), np.outer(f['v'], f['v'])])
add('tensordot', lambda P, v: [P.tensordot(v['a'], v['b'], axes=1), P.tensordot(v['a'], v['c'], axes=[[1], [1]]),
                               P.tensordot(v['c'], v['c'], axes=2)],
    {'a': X23, 'b': B32, 'c': Y23}, grads=['a', 'b', 'c'], grad_outs=(0, 1, 2),
    ref=lambda f: [np.tensordot(f['a'], f['b'], 1), np.tensordot(f['a'], f['c'], [[1], [1]]),
                   np.tensordot(f['c'], f['c'], 2).reshape(1)])
add('cdist', lambda P, v: [P.cdist(v['a'], v['g']), P.cdist(v['a'], v['g'], p=1.0)],
    {'a': X23, 'g': G43}, grads=['a', 'g'], grad_outs=(0, 1))
add('t', lambda P, v: [P.t(v['a']), P.t(v['v'])], {'a': X23, 'v': V3}, grads=['a'], grad_outs=(0,))

# --- paddle.linalg ---------------------------------------------------------------------------------------------------

add('norm', lambda P, v: [P.linalg.norm(v['a']), P.linalg.norm(v['a'], p=1, axis=1),
                          P.linalg.norm(v['a'], p=float('inf')), P.linalg.norm(v['a'], p='fro', axis=[0, 1]),
                          P.linalg.norm(v['a'], p=3, axis=[0, 1]), P.linalg.norm(v['a'], p=float('inf'), axis=[0, 1]),
                          P.linalg.norm(v['a'], p=0.5, axis=0, keepdim=True)],
    {'a': X23}, grads=['a'], grad_outs=(0, 1, 2, 3, 4, 5, 6))
# 2.6.2's compile-time shapes of determinant / slogdeterminant are wrong ([3, 3]), so its loss cannot be built:
# gradients against finite differences only
add('det_slogdet', lambda P, v: [P.linalg.det(v['m']), P.linalg.slogdet(v['m']), P.linalg.det(v['b'])],
    {'m': M3, 'b': M3B}, grads=['m', 'b'], grad_outs=(0, 1, 2), paddle_grads=False,
    ref=lambda f: [np.linalg.det(f['m']), np.stack(np.linalg.slogdet(f['m'])), np.linalg.det(f['b'])])
add('inv', lambda P, v: P.linalg.inv(v['b']), {'b': M3B}, grads=['b'], ref=lambda f: [np.linalg.inv(f['b'])])
add('cholesky', lambda P, v: [P.linalg.cholesky(spd(P, v['a'])), P.linalg.cholesky(spd(P, v['a']), upper=True)],
    {'a': M3}, grads=['a'], grad_outs=(0, 1))
add('solve', lambda P, v: [P.linalg.solve(v['m'], v['b']), P.linalg.solve(v['m'], v['v'])],
    {'m': M3, 'b': B32, 'v': V3}, grads=['m', 'b', 'v'], grad_outs=(0, 1),
    ref=lambda f: [np.linalg.solve(f['m'], f['b']), np.linalg.solve(f['m'], f['v'])])
add('triangular_solve', lambda P, v: [P.linalg.triangular_solve(v['m'], v['b']),
                                      P.linalg.triangular_solve(v['m'], v['b'], upper=False, transpose=True),
                                      P.linalg.triangular_solve(v['m'], v['b'], unitriangular=True)],
    {'m': M3, 'b': B32}, grads=['m', 'b'], grad_outs=(0, 1, 2))
add('cholesky_solve', lambda P, v: [P.linalg.cholesky_solve(v['b'], P.linalg.cholesky(spd(P, v['a']))),
                                    P.linalg.cholesky_solve(v['b'], P.linalg.cholesky(spd(P, v['a']), upper=True),
                                                            upper=True)],
    {'a': M3, 'b': B32}, grads=['a', 'b'], grad_outs=(0, 1))
add('matrix_power', lambda P, v: [P.linalg.matrix_power(v['m'], 3), P.linalg.matrix_power(v['m'], -2),
                                  P.linalg.matrix_power(v['m'], 0)], {'m': M3 / 2}, grads=['m'], grad_outs=(0, 1))
add('matrix_rank', lambda P, v: [P.linalg.matrix_rank(v['m']), P.linalg.matrix_rank(v['s']),
                                 P.linalg.matrix_rank(v['s'], tol=0.5), P.linalg.matrix_rank(v['m'], hermitian=True)],
    {'m': M3, 's': np.array([[1.0, 2, 3], [2, 4, 6.0000001], [0, 1, 0.3]])})
add('svd', lambda P, v: [P.linalg.svd(v['g'])[1], P.linalg.svd(v['g'])[0] ** 2, P.linalg.svd(v['g'])[2] ** 2,
                         P.matmul(P.linalg.svd(v['g'])[0] * P.unsqueeze(P.linalg.svd(v['g'])[1], [0]),
                                  P.linalg.svd(v['g'])[2])],
    {'g': G43}, grads=['g'], grad_outs=(0, 1, 2), tol=(1e-5, 1e-8))
add('qr', lambda P, v: [P.linalg.qr(v['g'])[0] ** 2, P.linalg.qr(v['g'])[1] ** 2, P.linalg.qr(v['g'], mode='r') ** 2,
                        P.matmul(*P.linalg.qr(v['g']))],
    {'g': G43}, grads=['g'], grad_outs=(0, 1))
add('eigh', lambda P, v: [P.linalg.eigh(spd(P, v['a']))[0], P.linalg.eigh(spd(P, v['a']))[1] ** 2,
                          P.linalg.eigvalsh(spd(P, v['a'])), P.linalg.eigh(spd(P, v['a']), UPLO='U')[0]],
    {'a': M3}, grads=['a'], grad_outs=(0, 1, 2))
# eigenvalues come in LAPACK's order, which differs between builds: compare symmetric functions of them
add('eig', lambda P, v: [P.sum(P.abs(P.linalg.eigvals(v['m']))), P.sum(P.real(P.linalg.eig(v['m'])[0])),
                         P.prod(P.abs(P.linalg.eig(v['m'])[0])), P.abs(P.linalg.eig(v['m'])[1]) ** 0],
    {'m': M3}, ref=lambda f: [np.abs(np.linalg.eigvals(f['m'])).sum(), np.trace(f['m']), abs(np.linalg.det(f['m'])),
                              np.ones((3, 3))])
# order- and phase-free functions of eig's outputs: each eigenvalue weighs the squared modulus of its own vector
add('eig_grad', lambda P, v: [P.sum(P.abs(P.linalg.eig(v['m'])[0]) * P.abs(P.linalg.eig(v['m'])[1][0]) ** 2),
                              P.sum(P.abs(P.linalg.eig(v['m'])[0]) ** 3)],
    {'m': M3}, grads=['m'], grad_outs=(0, 1))
add('lu', lambda P, v: list(P.linalg.lu(v['m'], get_infos=True)) + list(P.linalg.lu_unpack(*P.linalg.lu(v['m']))),
    {'m': np.array([[1.0, 2, 3], [4, 5, 6], [7, 8, 10]])})
add('lu_grad', lambda P, v: [P.linalg.lu(v['m'])[0], P.linalg.lu_unpack(*P.linalg.lu(v['m']))[1],
                             P.linalg.lu_unpack(*P.linalg.lu(v['m']))[2]], {'m': M3}, grads=['m'], grad_outs=(0, 1, 2))
add('lu_rect', lambda P, v: list(P.linalg.lu(v['g'])) + list(P.linalg.lu_unpack(*P.linalg.lu(v['g']))), {'g': G43})
add('lstsq', lambda P, v: [P.linalg.lstsq(v['g'], v['r'], driver=d)[k] for d in ('gelsy', 'gelsd', 'gelss')
                           for k in (0, 1, 2)] + [P.linalg.lstsq(v['g'], v['r'], driver='gelsd')[3]],
    {'g': G43, 'r': U(-1, 1, (4, 2))}, tol=(1e-6, 1e-9))
add('multi_dot', lambda P, v: [P.linalg.multi_dot([v['a'], v['b'], v['m']]),
                               P.linalg.multi_dot([v['v'], v['m'], v['v']])],
    {'a': X23, 'b': B32, 'm': U(-1, 1, (2, 2)), 'v': U(-1, 1, (2,))}, grads=['a', 'b', 'm', 'v'], grad_outs=(0, 1))
add('cond', lambda P, v: [P.linalg.cond(v['m']), P.linalg.cond(v['m'], p='fro'), P.linalg.cond(v['m'], p=1),
                          P.linalg.cond(v['m'], p=float('inf')), P.linalg.cond(v['m'], p='nuc'),
                          P.linalg.cond(v['m'], p=-2)],
    {'m': M3}, grads=['m'], grad_outs=(0, 1, 2, 4))
add('cov_corrcoef', lambda P, v: [P.linalg.cov(v['g']), P.linalg.cov(v['g'], rowvar=False, ddof=False),
                                  P.linalg.corrcoef(v['g'])],
    {'g': U(-1, 1, (3, 4))}, grads=['g'], grad_outs=(0, 1, 2), record=False,
    ref=lambda f: [np.cov(f['g']), np.cov(f['g'], rowvar=False, ddof=0), np.corrcoef(f['g'])])
# (2.6.2's static cov divides by zero: its `if norm_factor <= 0` tests a Variable, which is always true)
# 2.6.2's static cov cannot take weights (its checks compare Variables in Python): numpy is the reference here
add('cov_weights', lambda P, v: P.linalg.cov(v['g'], fweights=v['f'], aweights=v['w']),
    {'g': U(-1, 1, (3, 4)), 'f': np.array([1, 2, 1, 3], 'int64'), 'w': U(0.5, 1.5, (4,))}, grads=['g', 'w'],
    paddle_grads=False, ref=lambda f: [np.cov(f['g'], fweights=f['f'], aweights=f['w'])])
add('pinv', lambda P, v: [P.linalg.pinv(v['g']), P.linalg.pinv(spd(P, v['a']), hermitian=True)],
    {'g': G43, 'a': M3}, grads=['g', 'a'], grad_outs=(0, 1), ref=lambda f: [np.linalg.pinv(f['g'])])
add('householder_product', lambda P, v: P.linalg.householder_product(v['g'], v['tau']),
    {'g': G43, 'tau': U(0.5, 1.5, (3,))}, grads=['g', 'tau'])
