"""paddle.linalg's ops: cholesky, determinant, slogdeterminant, inverse, svd, qr, eig, eigh, eigvals, eigvalsh,
matrix_power, matrix_rank, lstsq, lu, lu_unpack, solve, triangular_solve, cholesky_solve. All batch over leading
dims. Numerics are numpy.linalg's LAPACK calls (they release the GIL), LU with partial pivoting kernels/linalg.py's
(numpy has none). Slots, attributes and output conventions are Paddle 2.6.2's: slogdeterminant stacks
[sign, log|det|] in a leading dim of 2, lu's pivots are getrf's 1-based int32, lstsq's Rank is empty for the
`gels` driver and its SingularValues only set by `gelsd` / `gelss`.

Gradients (real inputs), as Paddle's grad kernels:
    cholesky         dA = sym(L^-T Phi(L^T dL) L^-1), Phi = lower triangle with a halved diagonal
    determinant      dout det(A) A^-T;   slogdeterminant: dout[1] A^-T
    inverse          -A^-T dout A^-T
    svd              Townsend's formula (distinct singular values), thin SVD
    qr               reduced mode, rows >= cols: (dQ + Q copyltu(M)) R^-T with M = R dR^T - dQ^T Q
    eigh             V (diag(dw) + F o (V^T dV)) V^T with F_ij = 1 / (w_j - w_i), symmetrised; eigvalsh: V diag(dw)
                     V^T
    matrix_power     sum_k (A^T)^k dout (A^T)^(n-1-k); n < 0 through the inverse
    lu / lu_unpack   square matrices: P L^-T (tril(L^T dL, -1) + triu(dU U^T)) U^-T; lu_unpack splits dout
    solve            dB = A^-T dout, dA = -dB X^T
    triangular_solve the same with the triangle kept (and the unit diagonal dropped)
    cholesky_solve   dB = cholesky_solve(dout), dA = -dB X^T, then through A = L L^T to the factor
    eig              V^-H (diag(dw) + P(V^H dV) / conj(w_j - w_i)) V^H, P keeping the eigenvectors' unit norm
eigvals, matrix_rank and lstsq have no gradient (as in Paddle).
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import VarType, complex_dtype, real_dtype
from ..framework.registry import GradSpec, defop, kernel_rule, shape_rule
from ..kernels import linalg as KL
from ._util import sum_to_shape

__all__ = ['lu_unpack_values']


def _t(a):
    return np.swapaxes(a, -1, -2)


def _check_square(xs, op_type: str, what: str = 'Input(X)'):
    if len(xs) < 2:
        raise ValueError("The %s of %s must have at least 2 dimensions, got %d" % (what, op_type, len(xs)))
    if xs[-1] >= 0 and xs[-2] >= 0 and xs[-1] != xs[-2]:
        raise ValueError("The inner-most 2 dimensions of %s of %s should be equal (a square matrix), but received "
                         "%s" % (what, op_type, list(xs)))


def _linalg_error(op_type: str, exc: Exception) -> Exception:
    return ValueError("(PreconditionNotMet) %s failed: %s" % (op_type, exc))


# --- cholesky -------------------------------------------------------------------------------------------------------

defop('cholesky', ['X'], ['Out'], {'upper': False}, grad=GradSpec(('Out', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('cholesky')
def _cholesky_shape(ctx):
    _check_square(ctx.in_shape('X'), 'cholesky')
    ctx.set_output('Out', ctx.in_shape('X'), ctx.in_dtype('X'))


@kernel_rule('cholesky')
def _cholesky_kernel(spec):
    upper = bool(spec.attr('upper'))

    def run(x):
        try:
            low = np.linalg.cholesky(x)
        except np.linalg.LinAlgError as exc:
            raise ValueError('(PreconditionNotMet) The cholesky decomposition failed: the input is not positive '
                             'definite (%s)' % exc) from None
        return (np.ascontiguousarray(_t(low)) if upper else low,)
    return run


def _phi(a):
    out = np.tril(a)
    idx = np.arange(a.shape[-1])
    out[..., idx, idx] *= 0.5
    return out


@kernel_rule('cholesky_grad')
def _cholesky_grad_kernel(spec):
    upper = bool(spec.attr('upper'))

    def run(out, dout):
        low, dlow = (_t(out), _t(dout)) if upper else (out, dout)
        inv = np.linalg.inv(low)
        g = _t(inv) @ _phi(_t(low) @ dlow) @ inv
        return ((0.5 * (g + _t(g))).astype(out.dtype),)
    return run


# --- determinant, slogdeterminant, inverse ------------------------------------------------------------------------

defop('determinant', ['Input'], ['Out'], grad=GradSpec(('Input', 'Out', 'Out@GRAD'), ('Input@GRAD',)))
defop('slogdeterminant', ['Input'], ['Out'], grad=GradSpec(('Input', 'Out', 'Out@GRAD'), ('Input@GRAD',)))
defop('inverse', ['Input'], ['Output'], grad=GradSpec(('Output', 'Output@GRAD'), ('Input@GRAD',)))


@shape_rule('determinant')
def _det_shape(ctx):
    xs = ctx.in_shape('Input')
    _check_square(xs, 'determinant', 'Input(Input)')
    ctx.set_output('Out', tuple(xs[:-2]) or (1,), ctx.in_dtype('Input'))


@shape_rule('slogdeterminant')
def _slogdet_shape(ctx):
    xs = ctx.in_shape('Input')
    _check_square(xs, 'slogdeterminant', 'Input(Input)')
    ctx.set_output('Out', (2,) + tuple(xs[:-2]), ctx.in_dtype('Input'))


@shape_rule('inverse')
def _inverse_shape(ctx):
    xs = ctx.in_shape('Input')
    _check_square(xs, 'inverse', 'Input(Input)')
    ctx.set_output('Output', xs, ctx.in_dtype('Input'))


@kernel_rule('determinant')
def _det_kernel(spec):
    def run(x):
        out = np.asarray(np.linalg.det(x), x.dtype)
        return (out.reshape(1) if out.ndim == 0 else out,)
    return run


@kernel_rule('determinant_grad')
def _det_grad_kernel(spec):
    def run(x, out, dout):
        scale = (np.asarray(out) * np.asarray(dout)).reshape(x.shape[:-2] + (1, 1))
        return ((scale * _t(np.linalg.inv(x))).astype(x.dtype),)
    return run


@kernel_rule('slogdeterminant')
def _slogdet_kernel(spec):
    def run(x):
        sign, logdet = np.linalg.slogdet(x)
        return (np.stack([sign, logdet]).astype(x.dtype),)
    return run


@kernel_rule('slogdeterminant_grad')
def _slogdet_grad_kernel(spec):
    def run(x, out, dout):
        d = np.asarray(dout)[1].reshape(x.shape[:-2] + (1, 1))
        return ((d * _t(np.linalg.inv(x))).astype(x.dtype),)
    return run


@kernel_rule('inverse')
def _inverse_kernel(spec):
    def run(x):
        try:
            return (np.linalg.inv(x).astype(x.dtype, copy=False),)
        except np.linalg.LinAlgError as exc:
            raise _linalg_error('inverse', exc) from None
    return run


@kernel_rule('inverse_grad')
def _inverse_grad_kernel(spec):
    def run(inv, dout):
        it = _t(inv)
        return ((-(it @ dout @ it)).astype(inv.dtype),)
    return run


# --- svd -----------------------------------------------------------------------------------------------------------

defop('svd', ['X'], ['U', 'S', 'VH'], {'full_matrices': False},
      grad=GradSpec(('X', 'U', 'VH', 'S', 'U@GRAD', 'VH@GRAD', 'S@GRAD'), ('X@GRAD',)))


@shape_rule('svd')
def _svd_shape(ctx):
    xs = ctx.in_shape('X')
    if len(xs) < 2:
        raise ValueError('svd: the input must have at least 2 dimensions, got %s' % list(xs))
    m, n = xs[-2], xs[-1]
    k = min(m, n) if m >= 0 and n >= 0 else -1
    full = ctx.attr('full_matrices')
    batch = tuple(xs[:-2])
    dtype = ctx.in_dtype('X')
    ctx.set_output('U', batch + (m, m if full else k), dtype)
    ctx.set_output('S', batch + (k,), real_dtype(dtype))
    ctx.set_output('VH', batch + (n if full else k, n), dtype)


@kernel_rule('svd')
def _svd_kernel(spec):
    full = bool(spec.attr('full_matrices'))

    def run(x):
        u, s, vh = np.linalg.svd(x, full_matrices=full)
        return u.astype(x.dtype, copy=False), s.astype(x.real.dtype, copy=False), vh.astype(x.dtype, copy=False)
    return run


def svd_backward(u, s, vh, du, ds, dvh):
    """Townsend's SVD gradient for the thin SVD of real matrices (missing gradients are zero)."""
    v = _t(vh)
    k = s.shape[-1]
    eye_k = np.eye(k, dtype=s.dtype)
    s2 = s[..., None, :] ** 2 - s[..., :, None] ** 2        # s_j^2 - s_i^2 at [i, j]
    f = np.where(eye_k == 1, 0, 1 / np.where(eye_k == 1, 1, s2))
    smat = s[..., None, :] * eye_k
    inner = np.zeros(u.shape[:-2] + (k, k), u.dtype)
    if ds is not None:
        inner = inner + ds[..., None, :] * eye_k
    s_inv = np.where(eye_k == 1, 1 / np.where(s == 0, 1, s)[..., None, :], 0)
    extra = 0
    if du is not None:
        j = f * (_t(u) @ du - _t(du) @ u)
        inner = inner + j @ smat
        m = u.shape[-2]
        extra = extra + (np.eye(m, dtype=u.dtype) - u @ _t(u)) @ du @ s_inv @ vh
    if dvh is not None:
        dv = _t(dvh)
        kk = f * (_t(v) @ dv - _t(dv) @ v)
        inner = inner + smat @ kk
        n = v.shape[-2]
        extra = extra + u @ s_inv @ _t(dv) @ (np.eye(n, dtype=u.dtype) - v @ vh)
    return u @ inner @ vh + extra


@kernel_rule('svd_grad')
def _svd_grad_kernel(spec):
    if spec.attr('full_matrices'):
        raise NotImplementedError("the gradient of svd with full_matrices=True is not implemented (as in Paddle)")

    def run(x, u, vh, s, du, dvh, ds):
        return (svd_backward(u, s, vh, du, ds, dvh).astype(x.dtype),)
    return run


# --- qr -------------------------------------------------------------------------------------------------------------

defop('qr', ['X'], ['Q', 'R'], {'mode': 'reduced'}, grad=GradSpec(('X', 'Q', 'R', 'Q@GRAD', 'R@GRAD'), ('X@GRAD',)))


@shape_rule('qr')
def _qr_shape(ctx):
    xs = ctx.in_shape('X')
    m, n = xs[-2], xs[-1]
    k = min(m, n) if m >= 0 and n >= 0 else -1
    mode = ctx.attr('mode')
    batch = tuple(xs[:-2])
    ctx.set_output('Q', batch + ((m, m) if mode == 'complete' else ((0,) if mode == 'r' else (m, k))),
                   ctx.in_dtype('X'))
    ctx.set_output('R', batch + ((m, n) if mode == 'complete' else (k, n)), ctx.in_dtype('X'))


@kernel_rule('qr')
def _qr_kernel(spec):
    mode = spec.attr('mode')

    def run(x):
        q, r = np.linalg.qr(x, mode='complete' if mode == 'complete' else 'reduced')
        if mode == 'r':
            q = np.zeros(x.shape[:-2] + (0,), x.dtype)
        return q.astype(x.dtype, copy=False), r.astype(x.dtype, copy=False)
    return run


@kernel_rule('qr_grad')
def _qr_grad_kernel(spec):
    mode = spec.attr('mode')

    def run(x, q, r, dq, dr):
        m, n = x.shape[-2:]
        if mode == 'complete' and m > n or m < n:
            raise NotImplementedError("The derivative of qr is not implemented when mode='%s' and nrows (%d) vs "
                                      "ncols (%d) are as given" % (mode, m, n))
        if mode == 'r':
            q, dq = np.linalg.qr(x)[0], None
        dq = np.zeros(q.shape, x.dtype) if dq is None else dq
        dr = np.zeros(r.shape, x.dtype) if dr is None else dr
        mm = r @ _t(dr) - _t(dq) @ q
        copyltu = np.tril(mm) + _t(np.tril(mm, -1))
        rhs = dq + q @ copyltu
        # rhs R^-T: solve R X^T = rhs^T
        return (_t(np.linalg.solve(r, _t(rhs))).astype(x.dtype),)
    return run


# --- eig, eigh, eigvals, eigvalsh ----------------------------------------------------------------------------------

defop('eig', ['X'], ['Eigenvalues', 'Eigenvectors'],
      grad=GradSpec(('X', 'Eigenvalues', 'Eigenvectors', 'Eigenvalues@GRAD', 'Eigenvectors@GRAD'), ('X@GRAD',)))
defop('eigvals', ['X'], ['Out'])
defop('eigh', ['X'], ['Eigenvalues', 'Eigenvectors'], {'UPLO': 'L'},
      grad=GradSpec(('Eigenvalues', 'Eigenvectors', 'Eigenvalues@GRAD', 'Eigenvectors@GRAD'), ('X@GRAD',)))
defop('eigvalsh', ['X'], ['Eigenvalues', 'Eigenvectors'], {'UPLO': 'L', 'is_test': False},
      grad=GradSpec(('Eigenvectors', 'Eigenvalues@GRAD'), ('X@GRAD',)))


def _eig_shapes(ctx, complex_out: bool):
    xs = ctx.in_shape('X')
    _check_square(xs, ctx.op.type)
    dtype = ctx.in_dtype('X')
    vdtype = complex_dtype(dtype) if complex_out else real_dtype(dtype)
    return tuple(xs[:-1]), tuple(xs), vdtype, (complex_dtype(dtype) if complex_out else dtype)


@shape_rule('eig')
def _eig_shape(ctx):
    wshape, vshape, wdtype, vdtype = _eig_shapes(ctx, True)
    ctx.set_output('Eigenvalues', wshape, wdtype)
    ctx.set_output('Eigenvectors', vshape, vdtype)


@shape_rule('eigvals')
def _eigvals_shape(ctx):
    wshape, _, wdtype, _ = _eig_shapes(ctx, True)
    ctx.set_output('Out', wshape, wdtype)


@shape_rule('eigh')
def _eigh_shape(ctx):
    wshape, vshape, wdtype, vdtype = _eig_shapes(ctx, False)
    ctx.set_output('Eigenvalues', wshape, wdtype)
    ctx.set_output('Eigenvectors', vshape, vdtype)


shape_rule('eigvalsh')(_eigh_shape)


@kernel_rule('eig')
def _eig_kernel(spec):
    def run(x):
        w, v = np.linalg.eig(x)
        ctype = np.result_type(x.dtype, np.complex64)
        return w.astype(ctype), v.astype(ctype)
    return run


@kernel_rule('eig_grad')
def _eig_grad_kernel(spec):
    def run(x, w, v, dw, dv):
        # with unit-norm eigenvectors (LAPACK's geev): V^-H (diag(dw) + P(V^H dV) / conj(w_j - w_i)) V^H, where P
        # removes the part along V^H V Re(diag(V^H dV)) (the norm constraint); real input keeps the real part
        vh = np.conj(_t(v))
        n = w.shape[-1]
        eye = np.eye(n, dtype=bool)
        inner = np.zeros(v.shape, v.dtype)
        if dv is not None:
            vhdv = vh @ dv
            diag_real = np.real(np.diagonal(vhdv, axis1=-2, axis2=-1))
            vhdv = vhdv - (vh @ v) * diag_real[..., None, :]
            e = np.conj(w)[..., None, :] - np.conj(w)[..., :, None]
            inner = inner + np.where(eye, 0, vhdv / np.where(eye, 1, e))
        if dw is not None:
            inner = inner + dw[..., None, :] * eye
        g = np.linalg.solve(vh, inner @ vh)
        return ((np.real(g) if x.dtype.kind != 'c' else g).astype(x.dtype),)
    return run


@kernel_rule('eigvals')
def _eigvals_kernel(spec):
    return lambda x: (np.linalg.eigvals(x).astype(np.result_type(x.dtype, np.complex64)),)


@kernel_rule('eigh', 'eigvalsh')
def _eigh_kernel(spec):
    uplo = spec.attr('UPLO')

    def run(x):
        w, v = np.linalg.eigh(x, UPLO=uplo)
        return w.astype(x.real.dtype, copy=False), v.astype(x.dtype, copy=False)
    return run


@kernel_rule('eigh_grad')
def _eigh_grad_kernel(spec):
    def run(w, v, dw, dv):
        n = w.shape[-1]
        eye = np.eye(n, dtype=w.dtype)
        inner = np.zeros(v.shape, v.dtype)
        if dw is not None:
            inner = inner + dw[..., None, :] * eye
        if dv is not None:
            diff = w[..., None, :] - w[..., :, None]             # w_j - w_i at [i, j]
            f = np.where(eye == 1, 0, 1 / np.where(eye == 1, 1, diff))
            inner = inner + f * (_t(v) @ dv)
        g = v @ inner @ _t(v)
        return ((0.5 * (g + _t(g))).astype(v.dtype),)
    return run


@kernel_rule('eigvalsh_grad')
def _eigvalsh_grad_kernel(spec):
    def run(v, dw):
        return ((v * dw[..., None, :]) @ _t(v),)
    return run


# --- matrix_power, matrix_rank ----------------------------------------------------------------------------------

defop('matrix_power', ['X'], ['Out'], {'n': 1}, grad=GradSpec(('X', 'Out', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('matrix_power')
def _matrix_power_shape(ctx):
    _check_square(ctx.in_shape('X'), 'matrix_power')
    ctx.set_output('Out', ctx.in_shape('X'), ctx.in_dtype('X'))


@kernel_rule('matrix_power')
def _matrix_power_kernel(spec):
    n = int(spec.attr('n'))
    return lambda x: (np.linalg.matrix_power(x, n).astype(x.dtype, copy=False),)


def _power_grad(a, dout, n: int):
    at = _t(a)
    powers = [np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape)]
    for _ in range(n - 1):
        powers.append(powers[-1] @ at)
    return sum(powers[k] @ dout @ powers[n - 1 - k] for k in range(n))


@kernel_rule('matrix_power_grad')
def _matrix_power_grad_kernel(spec):
    n = int(spec.attr('n'))

    def run(x, out, dout):
        if n == 0:
            return (np.zeros(x.shape, x.dtype),)
        if n > 0:
            return (_power_grad(x, dout, n).astype(x.dtype),)
        inv = np.linalg.inv(x)
        d_inv = _power_grad(inv, dout, -n)
        return ((-_t(inv) @ d_inv @ _t(inv)).astype(x.dtype),)
    return run


defop('matrix_rank', ['X', 'TolTensor'], ['Out'], {'tol': 0.0, 'use_default_tol': True, 'hermitian': False},
      dispensable=['TolTensor'])


@shape_rule('matrix_rank')
def _matrix_rank_shape(ctx):
    ctx.set_output('Out', tuple(ctx.in_shape('X')[:-2]) or (1,), VarType.INT32)


@kernel_rule('matrix_rank')
def _matrix_rank_kernel(spec):
    tol_attr, default, hermitian = float(spec.attr('tol')), bool(spec.attr('use_default_tol')), spec.attr('hermitian')

    def run(x, tol_tensor):
        s = np.abs(np.linalg.eigvalsh(x)) if hermitian else np.linalg.svd(x, compute_uv=False)
        smax = s.max(axis=-1, keepdims=True) if s.size else np.zeros(s.shape[:-1] + (1,))
        if tol_tensor is not None:
            tol = np.asarray(tol_tensor, s.dtype)[..., None]
        elif default:
            tol = max(x.shape[-2:]) * np.finfo(x.dtype).eps * smax
        else:
            tol = tol_attr
        out = (s > tol).sum(axis=-1).astype(np.int32)
        return (out.reshape(1) if out.ndim == 0 else out,)
    return run


# --- lstsq -------------------------------------------------------------------------------------------------------

defop('lstsq', ['X', 'Y'], ['Solution', 'Residuals', 'Rank', 'SingularValues'], {'rcond': 0.0, 'driver': 'gels'})


@shape_rule('lstsq')
def _lstsq_shape(ctx):
    xs, ys = ctx.in_shape('X'), ctx.in_shape('Y')
    batch, n, k = tuple(xs[:-2]), xs[-1], ys[-1]
    dtype = ctx.in_dtype('X')
    ctx.set_output('Solution', batch + (n, k), dtype)
    ctx.set_output('Residuals', (-1,), dtype)
    ctx.set_output('Rank', batch or (1,), VarType.INT32)
    ctx.set_output('SingularValues', (-1,), dtype)


@kernel_rule('lstsq')
def _lstsq_kernel(spec):
    rcond, driver = float(spec.attr('rcond')), spec.attr('driver')

    def run(x, y):
        batch = x.shape[:-2]
        xs, ys = x.reshape((-1,) + x.shape[-2:]), y.reshape((-1,) + y.shape[-2:])
        sols, ress, ranks, svs = [], [], [], []
        for a, b in zip(xs, ys):
            sol, res, rank, sv = np.linalg.lstsq(a, b, rcond=rcond if rcond > 0 else None)
            sols.append(sol)
            ress.append(res)
            ranks.append(rank)
            svs.append(sv)
        m, n = x.shape[-2:]
        solution = np.stack(sols).reshape(batch + (n, y.shape[-1])).astype(x.dtype)
        full_rank = all(r == n for r in ranks)
        residuals = (np.stack(ress).reshape(batch + (y.shape[-1],)).astype(x.dtype) if m > n and full_rank
                     else np.zeros((0,), x.dtype))
        rank = (np.zeros((0,), np.int32) if driver == 'gels'
                else np.asarray(ranks, np.int32).reshape(batch or (1,)))
        singular = (np.stack(svs).reshape(batch + (min(m, n),)).astype(x.dtype) if driver in ('gelsd', 'gelss')
                    else np.zeros((0,), x.dtype))
        return solution, residuals, rank, singular
    return run


# --- lu, lu_unpack ------------------------------------------------------------------------------------------------

defop('lu', ['X'], ['Out', 'Pivots', 'Infos'], {'pivots': True},
      grad=GradSpec(('X', 'Out', 'Pivots', 'Out@GRAD'), ('X@GRAD',)))
defop('lu_unpack', ['X', 'Pivots'], ['Pmat', 'L', 'U'], {'unpack_ludata': True, 'unpack_pivots': True},
      grad=GradSpec(('X', 'Pivots', 'L', 'U', 'L@GRAD', 'U@GRAD'), ('X@GRAD',)))


@shape_rule('lu')
def _lu_shape(ctx):
    xs = ctx.in_shape('X')
    if not ctx.attr('pivots'):
        raise ValueError('lu without pivoting is not implemented on the CPU.')
    m, n = xs[-2], xs[-1]
    batch = tuple(xs[:-2])
    ctx.set_output('Out', xs, ctx.in_dtype('X'))
    ctx.set_output('Pivots', batch + (min(m, n) if m >= 0 and n >= 0 else -1,), VarType.INT32)
    ctx.set_output('Infos', batch or (1,), VarType.INT32)


@kernel_rule('lu')
def _lu_kernel(spec):
    def run(x):
        m, n = x.shape[-2:]
        batch = x.shape[:-2]
        a = np.array(x.reshape((-1, m, n)), dtype=x.dtype, order='C', copy=True)
        piv = np.zeros((a.shape[0], min(m, n)), np.int32)
        info = np.zeros(a.shape[0], np.int32)
        if a.size:
            KL.lu_factor(a, piv, info)
        return a.reshape(x.shape), piv.reshape(batch + (min(m, n),)), info.reshape(batch or (1,))
    return run


def _permutation(piv, m: int):
    """P of A = P L U from getrf's pivots, batched."""
    flat = np.asarray(piv).reshape(-1, piv.shape[-1])
    out = np.zeros((flat.shape[0], m, m))
    for b, p in enumerate(flat):
        perm = np.arange(m)
        for i, target in enumerate(p):
            t = int(target) - 1
            perm[i], perm[t] = perm[t], perm[i]
        out[b, perm, np.arange(m)] = 1
    return out.reshape(piv.shape[:-1] + (m, m))


def lu_unpack_values(lu, piv):
    m, n = lu.shape[-2:]
    k = min(m, n)
    low = np.tril(lu[..., :, :k], -1) + np.eye(m, k, dtype=lu.dtype)
    up = np.triu(lu[..., :k, :])
    return _permutation(piv, m).astype(lu.dtype), low, up


@shape_rule('lu_unpack')
def _lu_unpack_shape(ctx):
    xs = ctx.in_shape('X')
    m, n = xs[-2], xs[-1]
    k = min(m, n) if m >= 0 and n >= 0 else -1
    batch, dtype = tuple(xs[:-2]), ctx.in_dtype('X')
    ctx.set_output('Pmat', batch + (m, m), dtype)
    ctx.set_output('L', batch + (m, k), dtype)
    ctx.set_output('U', batch + (k, n), dtype)


@kernel_rule('lu_unpack')
def _lu_unpack_kernel(spec):
    return lambda x, piv: lu_unpack_values(x, piv)


def _lu_packed_grad(lu, piv, dlow, dup):
    """d A for A = P L U (square), from the gradients of L and U."""
    p, low, up = lu_unpack_values(lu, piv)
    inner = np.tril(_t(low) @ dlow, -1) + np.triu(dup @ _t(up))
    left = np.linalg.solve(_t(low), inner)                       # L^-T inner
    return p @ _t(np.linalg.solve(up, _t(left)))                  # ... U^-T


@kernel_rule('lu_grad')
def _lu_grad_kernel(spec):
    def run(x, out, piv, dout):
        if x.shape[-1] != x.shape[-2]:
            raise NotImplementedError('the gradient of lu is implemented for square matrices only')
        return (_lu_packed_grad(out, piv, np.tril(dout, -1), np.triu(dout)).astype(x.dtype),)
    return run


@kernel_rule('lu_unpack_grad')
def _lu_unpack_grad_kernel(spec):
    def run(x, piv, low, up, dlow, dup):
        m, n = x.shape[-2:]
        k = min(m, n)
        dx = np.zeros(x.shape, x.dtype)
        if dlow is not None:
            dx[..., :, :k] += np.tril(dlow, -1)
        if dup is not None:
            dx[..., :k, :] += np.triu(dup)
        return (dx,)
    return run


# --- solve, triangular_solve, cholesky_solve ------------------------------------------------------------------------

for _t_name in ('solve', 'triangular_solve', 'cholesky_solve'):
    defop(_t_name, ['X', 'Y'], ['Out'], grad=GradSpec(('X', 'Y', 'Out', 'Out@GRAD'), ('X@GRAD', 'Y@GRAD')),
          attrs={'triangular_solve': {'upper': True, 'transpose': False, 'unitriangular': False},
                 'cholesky_solve': {'upper': False}}.get(_t_name))


def _as_matrix_rhs(b, a):
    """A 1-D right-hand side as a column (Paddle's solve takes vectors)."""
    return (b[..., None], True) if b.ndim == a.ndim - 1 else (b, False)


@shape_rule('solve')
def _solve_shape(ctx):
    xs, ys = ctx.in_shape('X'), ctx.in_shape('Y')
    _check_square(xs, 'solve')
    if len(ys) == 1:
        ctx.set_output('Out', ys, ctx.in_dtype('X'))
        return
    batch = np.broadcast_shapes(tuple(max(d, 1) for d in xs[:-2]), tuple(max(d, 1) for d in ys[:-2]))
    ctx.set_output('Out', tuple(batch) + tuple(ys[-2:]), ctx.in_dtype('X'))


def _solve(a, b):
    b2, vec = _as_matrix_rhs(b, a)
    out = np.linalg.solve(a, np.broadcast_to(b2, np.broadcast_shapes(a.shape[:-2], b2.shape[:-2]) + b2.shape[-2:]))
    return out[..., 0] if vec else out


@kernel_rule('solve')
def _solve_kernel(spec):
    def run(a, b):
        try:
            return (_solve(a, b).astype(a.dtype, copy=False),)
        except np.linalg.LinAlgError as exc:
            raise _linalg_error('solve', exc) from None
    return run


@kernel_rule('solve_grad')
def _solve_grad_kernel(spec):
    want_a, want_b = spec.has_output('X@GRAD'), spec.has_output('Y@GRAD')

    def run(a, b, out, dout):
        db = _solve(_t(a), dout)
        db2, _ = _as_matrix_rhs(db, a)
        out2, _ = _as_matrix_rhs(out, a)
        da = sum_to_shape(-(db2 @ _t(out2)), a.shape).astype(a.dtype) if want_a else None
        return da, (sum_to_shape(db, b.shape).astype(b.dtype) if want_b else None)
    return run


def _triangle(a, upper: bool, unit: bool):
    t = np.triu(a) if upper else np.tril(a)
    if unit:
        idx = np.arange(a.shape[-1])
        t[..., idx, idx] = 1
    return t


@shape_rule('triangular_solve')
def _triangular_solve_shape(ctx):
    xs, ys = ctx.in_shape('X'), ctx.in_shape('Y')
    _check_square(xs, 'triangular_solve')
    batch = np.broadcast_shapes(tuple(max(d, 1) for d in xs[:-2]), tuple(max(d, 1) for d in ys[:-2]))
    ctx.set_output('Out', tuple(batch) + tuple(ys[-2:]), ctx.in_dtype('X'))


@kernel_rule('triangular_solve')
def _triangular_solve_kernel(spec):
    upper, trans, unit = bool(spec.attr('upper')), bool(spec.attr('transpose')), bool(spec.attr('unitriangular'))

    def run(a, b):
        tri = _triangle(a, upper, unit)
        return (_solve(_t(tri) if trans else tri, b).astype(a.dtype, copy=False),)
    return run


@kernel_rule('triangular_solve_grad')
def _triangular_solve_grad_kernel(spec):
    upper, trans, unit = bool(spec.attr('upper')), bool(spec.attr('transpose')), bool(spec.attr('unitriangular'))
    want_a, want_b = spec.has_output('X@GRAD'), spec.has_output('Y@GRAD')

    def run(a, b, out, dout):
        tri = _triangle(a, upper, unit)
        op = _t(tri) if trans else tri
        db = _solve(_t(op), dout)
        da = None
        if want_a:
            g = -(db @ _t(out)) if not trans else -(out @ _t(db))
            g = np.triu(g) if upper else np.tril(g)
            if unit:
                idx = np.arange(a.shape[-1])
                g[..., idx, idx] = 0
            da = sum_to_shape(g, a.shape).astype(a.dtype)
        return da, (sum_to_shape(db, b.shape).astype(b.dtype) if want_b else None)
    return run


@shape_rule('cholesky_solve')
def _cholesky_solve_shape(ctx):
    bs, fs = ctx.in_shape('X'), ctx.in_shape('Y')
    _check_square(fs, 'cholesky_solve', 'Input(Y)')
    batch = np.broadcast_shapes(tuple(max(d, 1) for d in bs[:-2]), tuple(max(d, 1) for d in fs[:-2]))
    ctx.set_output('Out', tuple(batch) + tuple(bs[-2:]), ctx.in_dtype('X'))


def _chol_matrix(factor, upper: bool):
    return _t(factor) @ factor if upper else factor @ _t(factor)


@kernel_rule('cholesky_solve')
def _cholesky_solve_kernel(spec):
    upper = bool(spec.attr('upper'))
    return lambda b, factor: (_solve(_chol_matrix(factor, upper), b).astype(b.dtype, copy=False),)


@kernel_rule('cholesky_solve_grad')
def _cholesky_solve_grad_kernel(spec):
    upper = bool(spec.attr('upper'))
    want_b, want_f = spec.has_output('X@GRAD'), spec.has_output('Y@GRAD')

    def run(b, factor, out, dout):
        a = _chol_matrix(factor, upper)
        db = _solve(a, dout)                 # A is symmetric
        dfactor = None
        if want_f:
            da = -(db @ _t(out))
            sym = da + _t(da)
            g = factor @ sym if upper else sym @ factor
            dfactor = sum_to_shape(np.triu(g) if upper else np.tril(g), factor.shape).astype(factor.dtype)
        return (sum_to_shape(db, b.shape).astype(b.dtype) if want_b else None), dfactor
    return run
