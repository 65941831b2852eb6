"""paddle.linalg's functions (2.x): the decompositions and solvers as one op each (ops/linalg.py), and what 2.6.2
composes from other ops: norm (frobenius_norm / p_norm, or abs-pow-sum-pow for a matrix p-norm, abs + reduce_max /
reduce_min for inf), cond (svd + reductions, or the norms of x and its inverse), cov and corrcoef, pinv (svd or
eigh, a where on the cutoff, a matmul), householder_product (a loop of rank-1 updates), pca_lowrank (randomised
range finder + svd).

Each checks its arguments with 2.6.2's wording and appends the ops 2.6.2 appends, named after 2.6.2's helpers.
"""
from __future__ import annotations

import math

from ..framework.dtype import VarType, complex_dtype, convert_dtype, real_dtype
from ..framework.variable import Variable
from ..layers.casting import cast
from ..layers.checks import check_variable_and_dtype
from ..layers.creation import fill_constant
from ..layers.math import reduce_op
from ._append import append_op
from .creation import eye
from .manipulation import concat, reshape, squeeze, transpose, unsqueeze
from .math import abs, clip, matmul, pow, sqrt, sum
from .matrix import diag, multi_dot, t
from .random import randn
from .search import where

__all__ = ['cholesky', 'cholesky_solve', 'cond', 'corrcoef', 'cov', 'det', 'eig', 'eigh', 'eigvals', 'eigvalsh',
           'householder_product', 'inv', 'lstsq', 'lu', 'lu_unpack', 'matrix_power', 'matrix_rank', 'multi_dot',
           'norm', 'pca_lowrank', 'pinv', 'qr', 'slogdet', 'solve', 'svd', 'triangular_solve', 'inverse']

_REALS = ('float32', 'float64')
_ALL = _REALS + ('complex64', 'complex128')


def _swap_last(x):
    perm = list(range(len(x.shape)))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return transpose(x, perm)


# --- one op each ----------------------------------------------------------------------------------------------------

def cholesky(x, upper=False, name=None):
    check_variable_and_dtype(x, 'dtype', _REALS, 'cholesky')
    return append_op('cholesky', {'X': x}, {'Out': x.dtype}, {'upper': upper}, name=name)


def cholesky_solve(x, y, upper=False, name=None):
    """paddle.linalg.cholesky_solve: solves A out = x for A = y y^T (y^T y when upper); y is the factor."""
    check_variable_and_dtype(x, 'x', _REALS, 'cholesky_solve')
    check_variable_and_dtype(y, 'y', _REALS, 'cholesky_solve')
    return append_op('cholesky_solve', {'X': x, 'Y': y}, {'Out': x.dtype}, {'upper': upper}, name=name)


def det(x, name=None):
    check_variable_and_dtype(x, 'Input', _REALS, 'det')
    _check_square_input(x, 'det')
    return append_op('determinant', {'Input': x}, {'Out': x.dtype}, name=name)


def slogdet(x, name=None):
    """paddle.linalg.slogdet: [sign, log|det|] stacked in a leading dim of 2."""
    check_variable_and_dtype(x, 'Input', _REALS, 'slogdet')
    _check_square_input(x, 'slogdet')
    return append_op('slogdeterminant', {'Input': x}, {'Out': x.dtype}, name=name)


def _check_square_input(x, api: str):
    shape = list(x.shape)
    if len(shape) < 2:
        raise ValueError("The x must be at least 2-dimensional, but received Input x's dimensional: %s.\n"
                         % len(shape))
    if shape[-1] != shape[-2]:
        raise ValueError("Expect squared input,but received %s's shape: %s.\n" % (api, shape))


def inv(x, name=None):
    check_variable_and_dtype(x, 'x', _REALS, 'inv')
    return append_op('inverse', {'Input': x}, {'Output': x.dtype}, name=name, helper_name='inverse')


inverse = inv


def svd(x, full_matrices=False, name=None):
    """paddle.linalg.svd: (U, S, VH) with x = U diag(S) VH."""
    check_variable_and_dtype(x, 'dtype', _REALS, 'svd')
    u, vh, s = append_op('svd', {'X': x}, {'U': x.dtype, 'VH': x.dtype, 'S': real_dtype(x.dtype)},
                         {'full_matrices': full_matrices}, name=name)
    return u, s, vh


def qr(x, mode='reduced', name=None):
    """paddle.linalg.qr: (Q, R), or R alone for mode 'r'."""
    check_variable_and_dtype(x, 'dtype', _REALS, 'qr')
    if mode not in ('reduced', 'complete', 'r'):
        raise ValueError("The mode of qr should be 'reduced', 'complete' or 'r', but received %r" % mode)
    q, r = append_op('qr', {'X': x}, {'Q': x.dtype, 'R': x.dtype}, {'mode': mode}, name=name)
    return r if mode == 'r' else (q, r)


def eig(x, name=None):
    """paddle.linalg.eig: complex eigenvalues and eigenvectors of a general square matrix."""
    check_variable_and_dtype(x, 'X', _ALL, 'eig')
    ctype = complex_dtype(x.dtype)
    return tuple(append_op('eig', {'X': x}, {'Eigenvalues': ctype, 'Eigenvectors': ctype}, name=name))


def eigvals(x, name=None):
    shape = list(x.shape)
    if len(shape) < 2:
        raise ValueError("The dimension of Input(x) should be at least 2, but received x's dimention = %d, x's shape "
                         "= %s" % (len(shape), shape))
    if shape[-1] != shape[-2]:
        raise ValueError("The last two dimensions of Input(x) should be equal, but received x's shape = %s" % shape)
    check_variable_and_dtype(x, 'dtype', _ALL, 'eigvals')
    return append_op('eigvals', {'X': x}, {'Out': complex_dtype(x.dtype)}, name=name)


def _check_uplo(uplo):
    if uplo not in ('L', 'U'):
        raise ValueError("UPLO must be L or U. But received UPLO is: %s" % uplo)


def eigh(x, UPLO='L', name=None):  # noqa: N803 - Paddle's argument name
    """paddle.linalg.eigh: ascending eigenvalues and eigenvectors of a symmetric matrix."""
    _check_square_input(x, 'eigh')
    _check_uplo(UPLO)
    check_variable_and_dtype(x, 'dtype', _ALL, 'eigh')
    return tuple(append_op('eigh', {'X': x}, {'Eigenvalues': real_dtype(x.dtype), 'Eigenvectors': x.dtype},
                           {'UPLO': UPLO}, name=name))


def eigvalsh(x, UPLO='L', name=None):  # noqa: N803 - Paddle's argument name
    _check_square_input(x, 'eigvalsh')
    _check_uplo(UPLO)
    check_variable_and_dtype(x, 'dtype', _ALL, 'eigvalsh')
    is_test = x.stop_gradient
    w, _ = append_op('eigvalsh', {'X': x}, {'Eigenvalues': real_dtype(x.dtype), 'Eigenvectors': x.dtype},
                     {'UPLO': UPLO, 'is_test': is_test}, name=name)
    return w


def matrix_power(x, n, name=None):
    check_variable_and_dtype(x, 'dtype', _REALS, 'matrix_power')
    if not isinstance(n, int):
        raise TypeError("The type of 'n' in matrix_power must be int, but received %s" % type(n))
    return append_op('matrix_power', {'X': x}, {'Out': x.dtype}, {'n': n}, name=name)


def matrix_rank(x, tol=None, hermitian=False, name=None):
    """paddle.linalg.matrix_rank: the number of singular values above tol (default: the largest times
    max(m, n) * eps), int32."""
    check_variable_and_dtype(x, 'x', _REALS, 'matrix_rank')
    inputs, attrs = {'X': x}, {}
    if tol is None:
        attrs['use_default_tol'] = True
    elif isinstance(tol, Variable):
        attrs['use_default_tol'] = False
        inputs['TolTensor'] = cast(tol, x.dtype) if tol.dtype != x.dtype else tol
    else:
        if not isinstance(tol, float):
            raise TypeError("The type of 'tol' in matrix_rank must be float, but received %s" % type(tol))
        attrs['use_default_tol'] = False
        attrs['tol'] = tol
    if not isinstance(hermitian, bool):
        raise TypeError("The type of 'hermitian' in matrix_rank must be bool, but received %s" % type(hermitian))
    attrs['hermitian'] = hermitian
    return append_op('matrix_rank', inputs, {'Out': VarType.INT32}, attrs, name=name)


def lstsq(x, y, rcond=None, driver=None, name=None):
    """paddle.linalg.lstsq: (solution, residuals, rank, singular_values) of min ||x s - y|| (CPU drivers gels,
    gelsy (the default), gelsd, gelss)."""
    if driver not in (None, 'gels', 'gelss', 'gelsd', 'gelsy'):
        raise ValueError("Only support valid driver is 'gels', 'gelss', 'gelsd', 'gelsy' or None for CPU inputs. "
                         "But got %s" % driver)
    driver = 'gelsy' if driver is None else driver
    if not (x.dtype == y.dtype and convert_dtype(x.dtype) in _REALS):
        raise ValueError("Only support x and y have the same dtype such as 'float32' and 'float64'.")
    xs, ys = list(x.shape), list(y.shape)
    if len(xs) < 2:
        raise ValueError("The shape of x should be (*, M, N), but received ndim is [%d < 2]" % len(xs))
    if len(ys) < 2:
        raise ValueError("The shape of y should be (*, M, K), but received ndim is [%d < 2]" % len(ys))
    if xs[-2] != ys[-2]:
        raise ValueError("x with shape (*, M = %s, N) and y with shape (*, M = %s, K) should have same M."
                         % (xs[-2], ys[-2]))
    if rcond is None:
        rcond = (1e-7 if x.dtype == VarType.FP32 else 1e-15) * max(xs[-2], xs[-1])
    return tuple(append_op('lstsq', {'X': x, 'Y': y},
                           {'Solution': x.dtype, 'Residuals': x.dtype, 'Rank': VarType.INT32,
                            'SingularValues': x.dtype}, {'rcond': float(rcond), 'driver': driver}, name=name))


def lu(x, pivot=True, get_infos=False, name=None):
    """paddle.linalg.lu: the packed LU factors and getrf's 1-based pivots (and infos)."""
    check_variable_and_dtype(x, 'dtype', _REALS, 'lu')
    out, piv, info = append_op('lu', {'X': x}, {'Out': x.dtype, 'Pivots': VarType.INT32, 'Infos': VarType.INT32},
                               {'pivots': pivot}, name=name)
    return (out, piv, info) if get_infos else (out, piv)


def lu_unpack(x, y, unpack_ludata=True, unpack_pivots=True, name=None):
    """paddle.linalg.lu_unpack: (P, L, U) with A = P L U from lu's outputs."""
    if len(x.shape) < 2:
        raise ValueError("The shape of x should be (*, M, N), but received ndim is [%d < 2]" % len(x.shape))
    if len(y.shape) < 1:
        raise ValueError("The shape of Pivots should be (*, K), but received ndim is [%d < 1]" % len(y.shape))
    check_variable_and_dtype(x, 'dtype', _REALS, 'lu_unpack')
    return tuple(append_op('lu_unpack', {'X': x, 'Pivots': y}, {'Pmat': x.dtype, 'L': x.dtype, 'U': x.dtype},
                           {'unpack_ludata': unpack_ludata, 'unpack_pivots': unpack_pivots}, name=name))


def solve(x, y, name=None):
    check_variable_and_dtype(x, 'x', _REALS, 'solve')
    check_variable_and_dtype(y, 'y', _REALS, 'solve')
    return append_op('solve', {'X': x, 'Y': y}, {'Out': x.dtype}, name=name)


def triangular_solve(x, y, upper=True, transpose=False, unitriangular=False, name=None):  # noqa: A002
    check_variable_and_dtype(x, 'x', _REALS, 'triangular_solve')
    check_variable_and_dtype(y, 'y', _REALS, 'triangular_solve')
    return append_op('triangular_solve', {'X': x, 'Y': y}, {'Out': x.dtype},
                     {'upper': upper, 'transpose': transpose, 'unitriangular': unitriangular}, name=name)


# --- norm ---------------------------------------------------------------------------------------------------------

def _p_norm(x, porder, axis, keepdim, asvector, name):
    check_variable_and_dtype(x, 'x', ('float16', 'float32', 'float64'), 'p_norm')
    if not isinstance(porder, (int, float)):
        raise ValueError("only valid p type is string or float, found %s" % type(porder))
    return append_op('p_norm', {'X': x}, {'Out': x.dtype},
                     {'porder': float(porder), 'axis': axis if axis is not None else -1, 'epsilon': 1e-12,
                      'keepdim': keepdim, 'asvector': asvector}, name=name)


def _frobenius(x, dim, keepdim, name):
    if dim is not None and not (isinstance(dim, list) and len(dim) == 2):
        raise ValueError("The dim of frobenius norm op should be None or two elements list!")
    check_variable_and_dtype(x, 'input', _REALS, 'frobenius_norm')
    return append_op('frobenius_norm', {'X': x}, {'Out': x.dtype},
                     {'dim': dim if dim is not None else [0], 'keep_dim': keepdim, 'reduce_all': dim is None},
                     name=name)


def norm(x, p='fro', axis=None, keepdim=False, name=None):
    """paddle.linalg.norm: the vector or matrix norm (2.6.2's dispatch on p and axis)."""
    if axis is None and p is not None:
        if isinstance(p, str):
            if p == 'fro':
                return _frobenius(x, None, keepdim, name)
            raise ValueError("only valid string values are 'fro', found %s" % p)
        return _p_norm(x, p, None, keepdim, True, name)
    if isinstance(axis, tuple):
        axis = list(axis)
    if isinstance(axis, list) and len(axis) == 1:
        axis = axis[0]
    if isinstance(axis, int):
        if isinstance(p, str):
            if p == 'fro':
                return _p_norm(x, 2, axis, keepdim, False, name)
            raise ValueError("only valid string values are 'fro', found %s" % p)
        if isinstance(p, (int, float)):
            return _p_norm(x, p, axis, keepdim, False, name)
        raise ValueError("unspport p for p-order vector norm. except float, found %s" % p)
    if isinstance(axis, list) and len(axis) == 2:
        if p == 'fro':
            return _frobenius(x, axis, keepdim, name)
        if p in (math.inf, -math.inf):
            op_type = 'reduce_max' if p == math.inf else 'reduce_min'
            return reduce_op(op_type, abs(x), axis, keepdim, name, helper_name='inf_norm')
        if p == 0:
            raise ValueError("just support axis type int or list (length of list <=1) if p = 0, found %s" % axis)
        summed = reduce_op('reduce_sum', pow(abs(x), float(p)), axis, keepdim, helper_name='norm',
                           reduce_all=len(axis) == len(x.shape))
        return pow(summed, float(1.0 / p), name=name)
    raise ValueError("except axis type int or list (length of list <=2), found %s" % axis)


# --- cond, cov, corrcoef, pinv, householder_product, pca_lowrank -------------------------------------------------

def cond(x, p=None, name=None):
    """paddle.linalg.cond: the condition number in the p norm (2 by default: the ratio of extreme singular
    values)."""
    shape = list(x.shape)
    if len(shape) < 2:
        raise ValueError("input should be a matrix or batches of matrices, but the dimention of received input is %d"
                         % len(shape))
    p = 2 if p is None else p
    if p in ('fro', 'nuc', 1, -1, math.inf, -math.inf):
        if shape[-1] != shape[-2]:
            raise ValueError("only support p is %s when input is a square matrix or batches of square matrices" % p)
        x_inv = inv(x)
        if p == 'fro':
            return _fro_last2(x) * _fro_last2(x_inv)
        if p == 'nuc':
            return _svd_norm(x, p) * _svd_norm(x_inv, p)
        axis = [-2] if p in (1, -1) else [-1]
        return _mat_norm(x, p, axis) * _mat_norm(x_inv, p, axis)
    if p in (2, -2):
        return _svd_norm(x, p)
    raise ValueError("unsupported %s for p, only supporting ('fro', 'nuc', 1, -1, 2, -2, inf, -inf) or none" % p)


def _fro_last2(x):
    squared = pow(x, 2.0)
    summed = reduce_op('reduce_sum', reduce_op('reduce_sum', squared, [-1], False, helper_name='norm'), [-1], False,
                       helper_name='norm')
    return pow(summed, 0.5)


def _mat_norm(x, p, axis):
    """max / min over the last axis of the absolute row or column sums (1-norm: columns, inf-norm: rows)."""
    summed = reduce_op('reduce_sum', abs(x), axis, False, helper_name='norm')
    return reduce_op('reduce_max' if p > 0 else 'reduce_min', summed, [-1], False, helper_name='norm')


def _svd_norm(x, p):
    _, s, _ = svd(x)
    if p == 'nuc':
        return reduce_op('reduce_sum', s, [-1], False, helper_name='norm')
    big = reduce_op('reduce_max', s, [-1], False, helper_name='norm')
    small = reduce_op('reduce_min', s, [-1], False, helper_name='norm')
    return big / small if p == 2 else small / big


def cov(x, rowvar=True, ddof=True, fweights=None, aweights=None, name=None):
    """paddle.linalg.cov: the covariance of the variables in x's rows (columns when not rowvar), weighted by
    fweights * aweights; ddof subtracts one observation (numpy's rule)."""
    if len(x.shape) > 2 or len(x.shape) < 1:
        raise ValueError("Input(x) only support N-D (1<=N<=2) tensor in cov, but received length of Input(input) is "
                         "%s." % len(x.shape))
    check_variable_and_dtype(x, 'dtype', _REALS, 'cov')
    nx = reshape(x, [1, -1]) if len(x.shape) == 1 else x
    if not rowvar and nx.shape[0] != 1:
        nx = t(nx)
    observations = nx.shape[1]
    w = None
    for weights, kind in ((fweights, 'fweights'), (aweights, 'aweights')):
        if weights is None:
            continue
        if len(weights.shape) > 1:
            raise ValueError("Input(%s) only support N-D (N<=1) tensor in cov, but received shape of Input(input) is "
                             "%s." % (kind, len(weights.shape)))
        if weights.shape[0] != observations:
            raise ValueError("The number of Input(%s) should equal to x's dim[1]: %s, but received size of "
                             "Input(%s) is %s." % (kind, observations, kind, weights.shape[0]))
        cast_w = cast(weights, nx.dtype)
        w = cast_w if w is None else w * cast_w
    if w is None:
        w_sum = fill_constant([1], nx.dtype, float(observations))
        avg = sum(nx, axis=1) / w_sum
        nx_w = nx
        norm_factor = w_sum - float(ddof)
    else:
        w_sum = sum(w)
        nx_w = nx * w
        avg = sum(nx_w, axis=1) / w_sum
        if aweights is not None and ddof:
            norm_factor = w_sum - sum(w * cast(aweights, nx.dtype)) / w_sum
        else:
            norm_factor = w_sum - float(ddof)
    centered = nx - unsqueeze(avg, [1])
    product = matmul(centered, t(nx_w))
    return squeeze(product / norm_factor, name=name)


def corrcoef(x, rowvar=True, name=None):
    """paddle.linalg.corrcoef: cov normalised by the standard deviations, clipped to [-1, 1]."""
    if len(x.shape) > 2 or len(x.shape) < 1:
        raise ValueError("Input(x) only support N-D (1<=N<=2) tensor in corrcoef, but received length of "
                         "Input(input) is %s." % len(x.shape))
    check_variable_and_dtype(x, 'dtype', _REALS, 'corrcoef')
    c = cov(x, rowvar)
    if len(c.shape) == 0 or list(c.shape) == [1]:
        return c / c
    stddev = sqrt(diag(c))
    c = c / unsqueeze(stddev, [1])
    c = c / unsqueeze(stddev, [0])
    return clip(c, -1.0, 1.0, name=name)


def pinv(x, rcond=1e-15, hermitian=False, name=None):
    """paddle.linalg.pinv: the pseudo-inverse from the SVD (eigh when hermitian), singular values below
    rcond * the largest treated as zero."""
    check_variable_and_dtype(x, 'x', _REALS, 'pinv')
    if not hermitian:
        u, s, vh = svd(x)
        largest = reduce_op('reduce_max', s, [-1], True, helper_name='pinv')
        cutoff = fill_constant([1], x.dtype, rcond) * largest
        inverted = where(s > cutoff, 1.0 / s, fill_constant([1], x.dtype, 0.0) * s)
        return matmul(_swap_last(vh) * unsqueeze(inverted, [-2]), u, transpose_y=True, name=name)
    s, u = eigh(x)
    s_abs = abs(s)
    largest = reduce_op('reduce_max', s_abs, [-1], True, helper_name='pinv')
    cutoff = fill_constant([1], x.dtype, rcond) * largest
    inverted = where(s_abs > cutoff, 1.0 / s, fill_constant([1], x.dtype, 0.0) * s)
    return matmul(u * unsqueeze(inverted, [-2]), u, transpose_y=True, name=name)


def householder_product(x, tau, name=None):
    """paddle.linalg.householder_product: the first n columns of H_1 ... H_k, H_i = I - tau_i w_i w_i^T with
    w_i = [0.., 1, x[i+1:, i]] (LAPACK's orgqr). Batches are unrolled, as 2.6.2 does."""
    for v, arg in ((x, 'x'), (tau, 'tau')):
        if convert_dtype(v.dtype) not in _ALL:
            raise TypeError("The data type of '%s' in householder_product must be %s, but received %s"
                            % (arg, list(_ALL), convert_dtype(v.dtype)))
    if x.dtype != tau.dtype:
        raise AssertionError('The input x must have the same dtype with input tau.\n')
    xs, ts = list(x.shape), list(tau.shape)
    if not (len(xs) >= 2 and len(ts) >= 1 and len(xs) == len(ts) + 1):
        raise AssertionError('The input x must have more than 2 dimensions, and input tau must have more than 1 '
                             'dimension,and the dimension of x is 1 larger than the dimension of tau\n')
    if xs[-2] < xs[-1]:
        raise AssertionError('The rows of input x must be greater than or equal to the columns of input x.\n')
    if xs[-1] < ts[-1]:
        raise AssertionError('The last dim of x must be greater than tau.\n')
    if len(xs) == 2:
        return _householder_2d(x, tau)
    flat_x = reshape(x, [-1] + xs[-2:])
    flat_t = reshape(tau, [-1, ts[-1]])
    parts = [unsqueeze(_householder_2d(flat_x[i], flat_t[i]), [0]) for i in range(flat_x.shape[0])]
    return reshape(concat(parts, 0), xs, name=name)


def _householder_2d(x, tau):
    m, n = x.shape
    k = tau.shape[-1]
    q = eye(m, dtype=convert_dtype(x.dtype))
    for i in range(min(k, n)):
        tail = x[i + 1:, i] if i + 1 < m else None
        one = fill_constant([1], x.dtype, 1.0)
        w = reshape(concat([one, tail], 0) if tail is not None else one, [-1, 1])
        block = q[:, i:]
        updated = block - matmul(matmul(block, w), t(w)) * tau[i]
        q = concat([q[:, :i], updated], 1) if i > 0 else updated
    return q[:, :n]


def pca_lowrank(x, q=None, center=True, niter=2, name=None):
    """paddle.linalg.pca_lowrank: (U, S, V) of a rank-q approximation of the (centred) x, by Halko's randomised
    range finder (a gaussian test matrix, `niter` power iterations with QR) and an SVD, as 2.6.2 builds it."""
    m, n = x.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not (q >= 0 and q <= min(m, n)):
        raise ValueError('q(=%d) must be non-negative integer and not greater than min(m, n)=%d' % (q, min(m, n)))
    if not niter >= 0:
        raise ValueError('niter(=%d) must be non-negative integer' % niter)
    a = x - reduce_op('reduce_mean', x, [-2], True, helper_name='mean') if center else x
    a_t = _swap_last(a)
    r = randn([n, q], dtype=convert_dtype(x.dtype))
    basis = qr(matmul(a, r))[0]
    for _ in range(niter):
        basis = qr(matmul(a_t, basis))[0]
        basis = qr(matmul(a, basis))[0]
    u, s, vh = svd(matmul(_swap_last(basis), a))
    return matmul(basis, u), s, _swap_last(vh)

