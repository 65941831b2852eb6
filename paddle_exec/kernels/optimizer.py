"""Optimizer update kernels with PaddlePaddle's semantics (fluid 1.8 ops; AdamW as in Paddle 2.2-2.4).

Every update is in place: Paddle's ``ParamOut`` is the same variable as ``Param`` (and ``MomentOut`` the same as
``Moment``, ...), so the kernels write into the parameter and accumulator arrays they are given and the wrappers
return those same arrays. Parameters and accumulators must be C-contiguous; the gradient is converted to the
parameter's dtype. ``lr`` is Paddle's ``LearningRate`` tensor, a 1-element array. All arithmetic is done in the
parameter's dtype, in the order of Paddle's CPU kernels, so float32 results match Paddle's to the last bits.

A sparse gradient (Paddle's SelectedRows) is ``rows`` (int64, 1-D, unsorted, duplicates allowed) with ``values``
of shape ``[len(rows), width]`` for a parameter of shape ``[height, width]`` (or ``[height, ...]``, flattened per
row). What each sparse kernel does with duplicates and untouched rows follows Paddle 1.8's CPU kernels:

- ``sgd_sparse``: no merge; each row of ``values`` is subtracted in turn (duplicates accumulate); only those rows.
- ``momentum_sparse``: duplicates merged (summed); then EVERY row is updated, with a zero gradient for the rows
  absent from ``rows`` (the velocity decays and the parameter keeps moving).
- ``adam_sparse``: duplicates merged; ``lazy_mode=False`` updates EVERY row (absent rows: zero gradient, the
  moments decay), ``lazy_mode=True`` only the rows present.
- ``adagrad_sparse``: duplicates merged; only the rows present are updated.
- ``rmsprop_sparse``: duplicates merged; EVERY row is updated (zero gradient for the absent rows).
- ``lamb_sparse``: duplicates merged; EVERY element is updated (absent rows: zero gradient).
- An empty sparse gradient (no rows) leaves everything untouched (Paddle's momentum, adam and lamb return early).

Adam: Paddle 1.8's ``adam`` op reads ``Beta1Pow``/``Beta2Pow`` for the step and writes ``Beta1PowOut =
beta1 * Beta1Pow`` itself (no separate scale op). The kernels here advance them only when asked
(``update_beta_pow=True``), so the caller decides; the sparse kernel then uses the ADVANCED pows for the step
(Paddle writes the pow outputs, in place, before its sparse update loop). The epsilon term differs between
versions: Paddle 1.8 computes ``p -= lr_t * m1 / (sqrt(m2) + epsilon)``; Paddle 2.x (``adamw`` and ``adam``)
uses ``sqrt(m2) + epsilon * sqrt(1 - beta2_pow)``; ``scaled_epsilon`` selects the latter. Both checked against
paddlepaddle 1.8.5 (and the 2.x sources).
"""
import math

import numpy as np

from . import intra_op
from .jit import kernel_jit
from .optimizer_rows import adam_row_range, adam_rows, merge_table_rows

__all__ = [
    'sgd', 'sgd_sparse', 'momentum', 'momentum_sparse', 'adam', 'adam_sparse', 'adamw', 'adamw_sparse',
    'adagrad', 'adagrad_sparse', 'rmsprop', 'rmsprop_sparse', 'merge_rows', 'squared_l2_norm',
    'squared_l2_norm_sparse', 'clip_by_norm', 'lamb', 'lamb_sparse', 'ftrl', 'average_accumulates', 'adadelta',
    'lars_momentum', 'dpsgd', 'dpsgd_noise',
]

# float division without a zero check: the loops vectorize (7x for adam); x / 0 is inf or nan, as in Paddle's C++
_jit = kernel_jit(error_model='numpy')


# ----------------------------------------------------------------------------------------------------------------
# shape preparation

def _flat(a, name):
    """A 1-D view of a contiguous array (the update must land in the caller's array)."""
    if not isinstance(a, np.ndarray) or not a.flags.c_contiguous or not a.flags.writeable:
        raise ValueError('%s must be a writeable C-contiguous numpy array' % name)
    return a.reshape(-1)


def _same(a, param, name):
    if a.shape != param.shape and a.size != param.size:
        raise ValueError('%s has shape %s, the parameter %s' % (name, a.shape, param.shape))
    if a.dtype != param.dtype:
        raise ValueError('%s has dtype %s, the parameter %s' % (name, a.dtype, param.dtype))
    return _flat(a, name)


def _grad(grad, param):
    g = np.ascontiguousarray(grad, dtype=param.dtype)
    if g.size != param.size:
        raise ValueError('gradient has shape %s, the parameter %s' % (g.shape, param.shape))
    return g.reshape(-1)


def _scalar(x, dtype):
    """A 1-element array (Paddle's LearningRate/Beta1Pow tensors) or a Python number -> numpy scalar of dtype."""
    return dtype.type(np.asarray(x).reshape(-1)[0])


def _rows2d(param, rows, values):
    """(param as [height, width] view, rows as int64, values as contiguous [n, width] of param's dtype)."""
    if param.ndim < 1:
        raise ValueError('a sparse update needs a parameter of rank >= 1')
    height = param.shape[0]
    width = param.size // height if height else 0
    p2 = _flat(param, 'param').reshape(height, width)
    rows = np.ascontiguousarray(rows, dtype=np.int64).reshape(-1)
    values = np.ascontiguousarray(values, dtype=param.dtype).reshape(len(rows), width)
    if len(rows) and (rows.min() < 0 or rows.max() >= height):
        raise IndexError('sparse gradient row out of range [0, %d)' % height)
    return p2, rows, values


def merge_rows(rows, values):
    """Paddle's MergeAdd: sorted unique rows and the sum of the duplicates' values (summed in input order)."""
    rows = np.ascontiguousarray(rows, dtype=np.int64).reshape(-1)
    values = np.ascontiguousarray(values)
    values2 = values.reshape(len(rows), -1) if len(rows) else values.reshape(0, 0)
    uniq, inverse = np.unique(rows, return_inverse=True)
    if len(uniq) == len(rows):  # no duplicates: a permutation
        order = np.argsort(rows, kind='stable')
        return uniq, values[order]
    merged = np.zeros((len(uniq), values2.shape[1]), dtype=values.dtype)
    _merge_add(inverse.reshape(-1).astype(np.int64), values2, merged)
    return uniq, merged.reshape((len(uniq),) + values.shape[1:])


@_jit
def _merge_add(inverse, values, out):
    for i in range(values.shape[0]):
        r = inverse[i]
        for k in range(values.shape[1]):
            out[r, k] += values[i, k]


def _merged2d(param, rows, values):
    p2, rows, values = _rows2d(param, rows, values)
    urows, merged = merge_rows(rows, values)
    return p2, urows, np.ascontiguousarray(merged).reshape(len(urows), p2.shape[1])


# ----------------------------------------------------------------------------------------------------------------
# sgd

@_jit
def _sgd_dense(p, g, lr):
    for i in range(p.shape[0]):
        p[i] = p[i] - lr * g[i]


@_jit
def _sgd_rows(p, rows, values, lr):
    for i in range(rows.shape[0]):
        r = rows[i]
        for k in range(values.shape[1]):
            p[r, k] -= lr * values[i, k]


def sgd(param, grad, lr):
    """param -= lr * grad (in place); returns param."""
    _sgd_dense(_flat(param, 'param'), _grad(grad, param), _scalar(lr, param.dtype))
    return param


def sgd_sparse(param, rows, values, lr):
    """param[rows[i]] -= lr * values[i] for each i in order (duplicates accumulate, no merge); returns param."""
    p2, rows, values = _rows2d(param, rows, values)
    _sgd_rows(p2, rows, values, _scalar(lr, param.dtype))
    return param


# ----------------------------------------------------------------------------------------------------------------
# momentum

@_jit
def _momentum_dense(p, g, v, lr, mu, nesterov):
    for i in range(p.shape[0]):
        vo = v[i] * mu + g[i]
        v[i] = vo
        if nesterov:
            p[i] = p[i] - (g[i] + vo * mu) * lr
        else:
            p[i] = p[i] - lr * vo


@_jit
def _momentum_rows(p, v, urows, merged, lr, mu, nesterov, zero):
    # Paddle's SparseMomentumFunctor: every element, gradient 0 on the rows absent from the merged gradient
    j = 0
    n = urows.shape[0]
    for r in range(p.shape[0]):
        present = j < n and urows[j] == r
        for k in range(p.shape[1]):
            g = merged[j, k] if present else zero
            vo = v[r, k] * mu + g
            v[r, k] = vo
            if nesterov:
                p[r, k] = p[r, k] - (g + vo * mu) * lr
            else:
                p[r, k] = p[r, k] - vo * lr
        if present:
            j += 1


def momentum(param, grad, velocity, lr, mu=0.9, use_nesterov=False):
    """v = mu*v + g; p -= lr*v (nesterov: p -= (g + mu*v)*lr), in place; returns (param, velocity)."""
    dt = param.dtype
    _momentum_dense(_flat(param, 'param'), _grad(grad, param), _same(velocity, param, 'velocity'),
                    _scalar(lr, dt), dt.type(mu), bool(use_nesterov))
    return param, velocity


def momentum_sparse(param, rows, values, velocity, lr, mu=0.9, use_nesterov=False):
    """Paddle 1.8 sparse momentum: merge duplicate rows, then update EVERY row (absent rows: zero gradient)."""
    dt = param.dtype
    p2, urows, merged = _merged2d(param, rows, values)
    if len(urows) == 0:
        return param, velocity
    v2 = _same(velocity, param, 'velocity').reshape(p2.shape)
    _momentum_rows(p2, v2, urows, merged, _scalar(lr, dt), dt.type(mu), bool(use_nesterov), dt.type(0))
    return param, velocity


# ----------------------------------------------------------------------------------------------------------------
# adam / adamw

@_jit
def _adam_dense(p, g, m1, m2, lr_t, beta1, beta2, one_minus_b1, one_minus_b2, eps):
    for i in range(p.shape[0]):
        gi = g[i]
        a = beta1 * m1[i] + one_minus_b1 * gi
        b = beta2 * m2[i] + one_minus_b2 * gi * gi
        m1[i] = a
        m2[i] = b
        p[i] = p[i] - lr_t * (a / (math.sqrt(b) + eps))


@_jit
def _decay(p, factor):
    # AdamW's decoupled decay, Paddle 2.2's CPU AdamWFunctor: param -= lr * lr_ratio * coeff * param
    for i in range(p.shape[0]):
        p[i] -= factor * p[i]


def _adam_scalars(dt, lr, beta1_pow, beta2_pow, beta1, beta2, epsilon, scaled_epsilon):
    one = dt.type(1)
    b1p, b2p = _scalar(beta1_pow, dt), _scalar(beta2_pow, dt)
    lr_t = _scalar(lr, dt) * (np.sqrt(one - b2p) / (one - b1p))
    eps = dt.type(epsilon)
    if scaled_epsilon:
        eps = eps * np.sqrt(one - b2p)
    b1, b2 = dt.type(beta1), dt.type(beta2)
    return lr_t, b1, b2, one - b1, one - b2, eps


def _advance_pows(beta1_pow, beta2_pow, beta1, beta2):
    beta1_pow[...] = beta1_pow * beta1_pow.dtype.type(beta1)
    beta2_pow[...] = beta2_pow * beta2_pow.dtype.type(beta2)


def adam(param, grad, moment1, moment2, lr, beta1_pow, beta2_pow, beta1=0.9, beta2=0.999, epsilon=1e-8,
         update_beta_pow=False, scaled_epsilon=False):
    """Paddle's adam op, dense gradient, in place; returns (param, moment1, moment2, beta1_pow, beta2_pow).

    lr_t = lr * sqrt(1 - beta2_pow) / (1 - beta1_pow); m1 = b1*m1 + (1-b1)*g; m2 = b2*m2 + (1-b2)*g*g;
    p -= lr_t * m1 / (sqrt(m2) + eps) with eps = epsilon (Paddle 1.8) or epsilon*sqrt(1 - beta2_pow)
    (``scaled_epsilon``, Paddle 2.x). beta1_pow/beta2_pow (1-element arrays) are multiplied by beta1/beta2 after
    the update only if ``update_beta_pow`` (Paddle's Beta1PowOut/Beta2PowOut).
    """
    dt = param.dtype
    lr_t, b1, b2, c1, c2, eps = _adam_scalars(dt, lr, beta1_pow, beta2_pow, beta1, beta2, epsilon, scaled_epsilon)
    _adam_dense(_flat(param, 'param'), _grad(grad, param), _same(moment1, param, 'moment1'),
                _same(moment2, param, 'moment2'), lr_t, b1, b2, c1, c2, eps)
    if update_beta_pow:
        _advance_pows(beta1_pow, beta2_pow, beta1, beta2)
    return param, moment1, moment2, beta1_pow, beta2_pow


def adam_sparse(param, rows, values, moment1, moment2, lr, beta1_pow, beta2_pow, beta1=0.9, beta2=0.999,
                epsilon=1e-8, lazy_mode=False, update_beta_pow=False, scaled_epsilon=False):
    """Paddle's adam op with a SelectedRows gradient: duplicates merged; lazy_mode=False updates EVERY row (absent
    rows get a zero gradient: the moments decay and the parameter still moves), lazy_mode=True only the rows
    present. An empty gradient changes nothing (not even the beta pows). Returns like ``adam``.

    With ``update_beta_pow`` the pows are advanced FIRST and the update uses the advanced values: Paddle's CPU
    kernel (1.8 and 2.x) writes Beta1PowOut, which is the Beta1Pow variable itself, before it runs the update.
    Without it, the pows are used as given."""
    dt = param.dtype
    p2, rows, values = _rows2d(param, rows, values)
    if len(rows) == 0:
        return param, moment1, moment2, beta1_pow, beta2_pow
    if update_beta_pow:
        # Paddle's CPU sparse kernel writes Beta1PowOut/Beta2PowOut (the same variables as Beta1Pow/Beta2Pow)
        # BEFORE running the update, so the update reads the advanced pows (checked against paddle 1.8.5)
        _advance_pows(beta1_pow, beta2_pow, beta1, beta2)
    lr_t, b1, b2, c1, c2, eps = _adam_scalars(dt, lr, beta1_pow, beta2_pow, beta1, beta2, epsilon, scaled_epsilon)
    m1 = _same(moment1, param, 'moment1').reshape(p2.shape)
    m2 = _same(moment2, param, 'moment2').reshape(p2.shape)
    _adam_rows(p2, m1, m2, rows, values, (lr_t, b1, b2, c1, c2, eps, bool(lazy_mode)))
    return param, moment1, moment2, beta1_pow, beta2_pow


def _adam_rows(p2, m1, m2, rows, values, scalars) -> None:
    """adam_rows; a large table's update (not lazy: every row) as two row ranges on two threads when this thread
    has a fork (kernels/intra_op.py), the merge first: the same bits."""
    height = p2.shape[0]
    h = intra_op.split_point(height) if p2.size >= intra_op.MIN_UPDATE and not scalars[-1] else 0
    if not h or intra_op.current_fork() is None:
        adam_rows(p2, m1, m2, rows, values, *scalars)
        return
    pos, merged = merge_table_rows(rows, values, height)
    intra_op.both(lambda: adam_row_range(p2, m1, m2, pos, merged, 0, h, *scalars),
                  lambda: adam_row_range(p2, m1, m2, pos, merged, h, height, *scalars))


def adamw(param, grad, moment1, moment2, lr, beta1_pow, beta2_pow, beta1=0.9, beta2=0.999, epsilon=1e-8,
          coeff=0.01, lr_ratio=1.0, with_decay=True, update_beta_pow=False):
    """Paddle 2.x adamw op (CPU): first param -= lr * lr_ratio * coeff * param (the raw lr, not the bias-corrected
    one), then the Paddle 2.x adam update (epsilon scaled by sqrt(1 - beta2_pow)). Returns like ``adam``."""
    dt = param.dtype
    if with_decay:
        _decay(_flat(param, 'param'), _scalar(lr, dt) * dt.type(lr_ratio) * dt.type(coeff))
    return adam(param, grad, moment1, moment2, lr, beta1_pow, beta2_pow, beta1, beta2, epsilon,
                update_beta_pow=update_beta_pow, scaled_epsilon=True)


def adamw_sparse(param, rows, values, moment1, moment2, lr, beta1_pow, beta2_pow, beta1=0.9, beta2=0.999,
                 epsilon=1e-8, coeff=0.01, lr_ratio=1.0, with_decay=True, lazy_mode=False, update_beta_pow=False):
    """Paddle 2.x adamw with a SelectedRows gradient on CPU: the decay is applied to the WHOLE parameter, then the
    sparse adam update (2.x epsilon)."""
    dt = param.dtype
    if with_decay:
        _decay(_flat(param, 'param'), _scalar(lr, dt) * dt.type(lr_ratio) * dt.type(coeff))
    return adam_sparse(param, rows, values, moment1, moment2, lr, beta1_pow, beta2_pow, beta1, beta2, epsilon,
                       lazy_mode=lazy_mode, update_beta_pow=update_beta_pow, scaled_epsilon=True)


# ----------------------------------------------------------------------------------------------------------------
# adagrad

@_jit
def _adagrad_dense(p, g, m, lr, eps):
    for i in range(p.shape[0]):
        gi = g[i]
        mo = m[i] + gi * gi
        m[i] = mo
        p[i] = p[i] - lr * gi / (math.sqrt(mo) + eps)


@_jit
def _adagrad_rows(p, m, urows, merged, lr, eps):
    for j in range(urows.shape[0]):
        r = urows[j]
        for k in range(p.shape[1]):
            gi = merged[j, k]
            m[r, k] += gi * gi
        for k in range(p.shape[1]):
            p[r, k] -= lr * merged[j, k] / (math.sqrt(m[r, k]) + eps)


def adagrad(param, grad, moment, lr, epsilon=1e-6):
    """moment += g*g; p -= lr * g / (sqrt(moment) + epsilon), in place; returns (param, moment)."""
    dt = param.dtype
    _adagrad_dense(_flat(param, 'param'), _grad(grad, param), _same(moment, param, 'moment'),
                   _scalar(lr, dt), dt.type(epsilon))
    return param, moment


def adagrad_sparse(param, rows, values, moment, lr, epsilon=1e-6):
    """Paddle 1.8 sparse adagrad: duplicates merged, only the rows present are updated."""
    dt = param.dtype
    p2, urows, merged = _merged2d(param, rows, values)
    m2 = _same(moment, param, 'moment').reshape(p2.shape)
    _adagrad_rows(p2, m2, urows, merged, _scalar(lr, dt), dt.type(epsilon))
    return param, moment


# ----------------------------------------------------------------------------------------------------------------
# rmsprop

@_jit
def _rmsprop_elem(p, ms, mom, mg, idx, g, lr, rho, one_minus_rho, eps, momentum, centered):
    ms_out = rho * ms[idx] + one_minus_rho * g * g
    if centered:
        mg_out = rho * mg[idx] + one_minus_rho * g
        mom_out = momentum * mom[idx] + lr * g / math.sqrt(ms_out - mg_out * mg_out + eps)
        mg[idx] = mg_out
    else:
        mom_out = momentum * mom[idx] + lr * g / math.sqrt(ms_out + eps)
    ms[idx] = ms_out
    mom[idx] = mom_out
    p[idx] = p[idx] - mom_out


@_jit
def _rmsprop_dense(p, g, ms, mom, mg, lr, rho, one_minus_rho, eps, momentum, centered):
    for i in range(p.shape[0]):
        _rmsprop_elem(p, ms, mom, mg, i, g[i], lr, rho, one_minus_rho, eps, momentum, centered)


@_jit
def _rmsprop_rows(p, ms, mom, mg, urows, merged, width, lr, rho, one_minus_rho, eps, momentum, centered, zero):
    j = 0
    n = urows.shape[0]
    height = p.shape[0] // width if width else 0
    for r in range(height):
        present = j < n and urows[j] == r
        for k in range(width):
            g = merged[j, k] if present else zero
            _rmsprop_elem(p, ms, mom, mg, r * width + k, g, lr, rho, one_minus_rho, eps, momentum, centered)
        if present:
            j += 1


def _rmsprop_args(param, mean_square, moment, mean_grad, lr, rho, epsilon, momentum, centered):
    dt = param.dtype
    ms = _same(mean_square, param, 'mean_square')
    mom = _same(moment, param, 'moment')
    if centered:
        if mean_grad is None:
            raise ValueError('centered rmsprop needs mean_grad')
        mg = _same(mean_grad, param, 'mean_grad')
    else:
        mg = ms  # not touched
    return ms, mom, mg, _scalar(lr, dt), dt.type(rho), dt.type(1) - dt.type(rho), dt.type(epsilon), \
        dt.type(momentum), bool(centered)


def rmsprop(param, grad, mean_square, moment, lr, mean_grad=None, rho=0.95, epsilon=1e-6, momentum=0.0,
            centered=False):
    """Paddle's rmsprop op, in place; returns (param, mean_square, moment, mean_grad).

    ms = rho*ms + (1-rho)*g*g; centered: mg = rho*mg + (1-rho)*g, mom = momentum*mom + lr*g/sqrt(ms - mg*mg + eps);
    otherwise mom = momentum*mom + lr*g/sqrt(ms + eps); p -= mom.
    """
    args = _rmsprop_args(param, mean_square, moment, mean_grad, lr, rho, epsilon, momentum, centered)
    _rmsprop_dense(_flat(param, 'param'), _grad(grad, param), *args)
    return param, mean_square, moment, mean_grad


def rmsprop_sparse(param, rows, values, mean_square, moment, lr, mean_grad=None, rho=0.95, epsilon=1e-6,
                   momentum=0.0, centered=False):
    """Paddle 1.8 sparse rmsprop: duplicates merged, EVERY row updated (absent rows: zero gradient)."""
    p2, urows, merged = _merged2d(param, rows, values)
    if len(urows) == 0:
        return param, mean_square, moment, mean_grad
    ms, mom, mg, *rest = _rmsprop_args(param, mean_square, moment, mean_grad, lr, rho, epsilon, momentum, centered)
    _rmsprop_rows(p2.reshape(-1), ms, mom, mg, urows, merged, p2.shape[1], *rest, param.dtype.type(0))
    return param, mean_square, moment, mean_grad


# ----------------------------------------------------------------------------------------------------------------
# norms for gradient clipping

@_jit
def _sum_squares(x):
    s = 0.0  # accumulated in float64
    for i in range(x.shape[0]):
        v = float(x[i])
        s += v * v
    return s


def squared_l2_norm(x):
    """sum(x*x) as a float (accumulated in float64) - Paddle's squared_l2_norm op for a dense tensor."""
    x = np.ascontiguousarray(x)
    return float(_sum_squares(x.reshape(-1)))


def squared_l2_norm_sparse(rows, values):
    """sum of squares of a SelectedRows gradient AFTER merging duplicate rows (Paddle 1.8's clip by global norm
    runs merge_selected_rows first, so a duplicated row counts as (a + b)^2, not a^2 + b^2)."""
    _, merged = merge_rows(rows, values)
    return squared_l2_norm(merged)


def clip_by_norm(x, max_norm):
    """Paddle's clip_by_norm op: x * max_norm / ||x|| if ||x|| > max_norm, else x (a new array either way)."""
    x = np.asarray(x)
    norm = math.sqrt(squared_l2_norm(x))
    if norm > max_norm:
        return x * x.dtype.type(max_norm / norm)
    return x.copy()


# ----------------------------------------------------------------------------------------------------------------
# lamb
#
# Paddle 1.8's lamb op (LambOpKernel): m1 = b1*m1 + (1-b1)*g; m2 = b2*m2 + (1-b2)*g*g;
# r = m1 / (sqrt(m2) + eps) + weight_decay * p; p -= lr * (||p|| / ||r||) * r (ratio 1 when a norm is 0). It reads
# Beta1Pow/Beta2Pow but never uses or advances them. Paddle 2.x's (phi LambKernel) divides the moments by
# (1 - beta_pow) before forming r, takes the trust ratio only when weight_decay > 0 or always_adapt, and advances the
# pows after the update. A sparse gradient updates EVERY element in both (absent rows: zero gradient), after merging
# duplicate rows; an empty one changes nothing.

@_jit
def _lamb_moments(p, g, m1, m2, trust, beta1, beta2, one_minus_b1, one_minus_b2, eps, decay, unbias1, unbias2,
                  bias_correction):
    for i in range(p.shape[0]):
        gi = g[i]
        a = beta1 * m1[i] + one_minus_b1 * gi
        b = beta2 * m2[i] + one_minus_b2 * gi * gi
        m1[i] = a
        m2[i] = b
        if bias_correction:
            a = a / unbias1
            b = b / unbias2
        trust[i] = a / (math.sqrt(b) + eps) + decay * p[i]


@_jit
def _lamb_param(p, trust, lr):
    for i in range(p.shape[0]):
        p[i] = p[i] - lr * trust[i]


def lamb(param, grad, moment1, moment2, lr, beta1_pow, beta2_pow, beta1=0.9, beta2=0.999, epsilon=1e-6,
         weight_decay=0.01, bias_correction=False, always_adapt=False, update_beta_pow=False):
    """Paddle's lamb op, dense gradient, in place; returns (param, moment1, moment2, beta1_pow, beta2_pow).

    ``bias_correction=False`` is Paddle 1.8's kernel (no bias correction, the trust ratio always taken, the pows
    untouched); ``True`` is Paddle 2.x's (moments divided by 1 - beta_pow, the trust ratio only when
    ``weight_decay > 0 or always_adapt``). ``update_beta_pow`` multiplies the pows by beta1/beta2 after the update
    (2.x's Beta1PowOut/Beta2PowOut)."""
    dt = param.dtype
    one = dt.type(1)
    b1, b2 = dt.type(beta1), dt.type(beta2)
    p = _flat(param, 'param')
    trust = np.empty_like(p)
    _lamb_moments(p, _grad(grad, param), _same(moment1, param, 'moment1'), _same(moment2, param, 'moment2'), trust,
                  b1, b2, one - b1, one - b2, dt.type(epsilon), dt.type(weight_decay),
                  one - _scalar(beta1_pow, dt), one - _scalar(beta2_pow, dt), bool(bias_correction))
    rate = _scalar(lr, dt)
    if not bias_correction or weight_decay > 0 or always_adapt:
        p_norm = dt.type(math.sqrt(dt.type(_sum_squares(p))))
        t_norm = dt.type(math.sqrt(dt.type(_sum_squares(trust))))
        if p_norm > 0 and t_norm > 0:
            rate = rate * (p_norm / t_norm)
    _lamb_param(p, trust, rate)
    if update_beta_pow:
        _advance_pows(beta1_pow, beta2_pow, beta1, beta2)
    return param, moment1, moment2, beta1_pow, beta2_pow


def lamb_sparse(param, rows, values, moment1, moment2, lr, beta1_pow, beta2_pow, beta1=0.9, beta2=0.999,
                epsilon=1e-6, weight_decay=0.01, bias_correction=False, always_adapt=False, update_beta_pow=False):
    """Paddle's lamb op with a SelectedRows gradient: duplicates merged, then the dense update with a zero gradient
    on the absent rows (Paddle's SparseLambMomentUpdateFunctor); an empty gradient changes nothing."""
    p2, urows, merged = _merged2d(param, rows, values)
    if len(urows) == 0:
        return param, moment1, moment2, beta1_pow, beta2_pow
    dense = np.zeros(p2.shape, param.dtype)
    dense[urows] = merged
    return lamb(param, dense, moment1, moment2, lr, beta1_pow, beta2_pow, beta1, beta2, epsilon, weight_decay,
                bias_correction, always_adapt, update_beta_pow)


# ----------------------------------------------------------------------------------------------------------------
# ftrl
#
# Paddle's FTRLOpKernel (dense), per element, in the parameter's dtype:
#   new = sq + g*g;  lin += g - ((new^-lr_power - sq^-lr_power) / lr) * p   (sqrt for lr_power == -0.5)
#   p = |lin| > l1 ? (l1*sign(lin) - lin) / (new^-lr_power / lr + 2*l2) : 0;  sq = new
# with l1 and l2 each raised by 1e-10 by the kernel.

@_jit
def _ftrl_dense(p, g, sq, lin, lr, l1, two_l2, neg_power, use_sqrt, zero):
    for i in range(p.shape[0]):
        gi = g[i]
        s = sq[i]
        new_acc = s + gi * gi
        if use_sqrt:
            root_new = math.sqrt(new_acc)
            lin_out = lin[i] + gi - ((root_new - math.sqrt(s)) / lr) * p[i]
            y = root_new / lr + two_l2
        else:
            pow_new = new_acc ** neg_power
            lin_out = lin[i] + gi - ((pow_new - s ** neg_power) / lr) * p[i]
            y = pow_new / lr + two_l2
        lin[i] = lin_out
        if abs(lin_out) > l1:
            # Eigen's l1 * sign(lin) - lin, kept in the parameter's dtype
            x = l1 - lin_out if lin_out > zero else -l1 - lin_out
            p[i] = x / y
        else:
            p[i] = zero
        sq[i] = new_acc


def ftrl(param, grad, squared_accum, linear_accum, lr, l1=0.0, l2=0.0, lr_power=-0.5):
    """Paddle's ftrl op, dense gradient, in place; returns (param, squared_accum, linear_accum)."""
    dt = param.dtype
    eps = dt.type(1e-10)
    power = dt.type(lr_power)
    _ftrl_dense(_flat(param, 'param'), _grad(grad, param), _same(squared_accum, param, 'squared_accum'),
                _same(linear_accum, param, 'linear_accum'), _scalar(lr, dt), dt.type(l1) + eps,
                dt.type(2) * (dt.type(l2) + eps), -power, bool(power == dt.type(-0.5)), dt.type(0))
    return param, squared_accum, linear_accum


# ----------------------------------------------------------------------------------------------------------------
# average_accumulates (ModelAverage)

MAX_NUM_ACCUMULATES = 16384  # Paddle's kMaxNumAccumulates: sum_1 is moved into sum_2 this often (precision)


def average_accumulates(param, sum_1, sum_2, sum_3, num_accumulates, old_num_accumulates, num_updates,
                        average_window, min_average_window, max_average_window):
    """Paddle's average_accumulates op, in place; returns (sum_1, sum_2, sum_3, num_accumulates,
    old_num_accumulates, num_updates).

    sum_1 += param; every 16384th update sum_2 += sum_1 and sum_1 = 0; when num_accumulates reaches
    min_average_window and min(max_average_window, int(num_updates * average_window)) the window restarts:
    sum_3 = sum_1 + sum_2, sum_1 = sum_2 = 0, old_num_accumulates = num_accumulates, num_accumulates = 0. The sums are
    updated in place, as Paddle's kernel does with its aliased in/out tensors, so each step sees the previous one's
    result. The window length is a float32 product truncated to an integer, as in Paddle's C++."""
    updates = int(num_updates.reshape(-1)[0]) + 1
    accumulates = int(num_accumulates.reshape(-1)[0]) + 1
    old_accumulates = int(old_num_accumulates.reshape(-1)[0])
    np.add(sum_1, np.asarray(param, dtype=sum_1.dtype).reshape(sum_1.shape), out=sum_1)
    if updates % MAX_NUM_ACCUMULATES == 0:
        np.add(sum_2, sum_1, out=sum_2)
        sum_1[...] = 0
    window = int(np.float32(updates) * np.float32(average_window))
    if accumulates >= min_average_window and accumulates >= min(int(max_average_window), window):
        np.add(sum_1, sum_2, out=sum_3)
        sum_1[...] = 0
        sum_2[...] = 0
        old_accumulates, accumulates = accumulates, 0
    num_updates[...] = updates
    num_accumulates[...] = accumulates
    old_num_accumulates[...] = old_accumulates
    return sum_1, sum_2, sum_3, num_accumulates, old_num_accumulates, num_updates


# ----------------------------------------------------------------------------------------------------------------
# adadelta, lars_momentum, dpsgd (dense gradients only, as in Paddle)

@_jit
def _adadelta_dense(p, g, avg_g, avg_u, rho, one_minus_rho, eps, lr, paddle18):
    for i in range(p.shape[0]):
        gi = g[i]
        ag = rho * avg_g[i] + one_minus_rho * gi * gi
        update = -math.sqrt((avg_u[i] + eps) / (ag + eps)) * gi
        avg_g[i] = ag
        au = rho * avg_u[i] + one_minus_rho * update * update
        avg_u[i] = au
        if paddle18:
            update = -math.sqrt((au + eps) / (ag + eps)) * gi
        p[i] = p[i] + lr * update


def adadelta(param, grad, avg_squared_grad, avg_squared_update, rho=0.95, epsilon=1e-6, lr=None):
    """Adadelta, in place: E[g^2] = rho*E[g^2] + (1-rho)*g^2; u = -sqrt((E[u^2] + eps) / (E[g^2] + eps)) * g;
    E[u^2] = rho*E[u^2] + (1-rho)*u^2; returns (param, avg_squared_grad, avg_squared_update).

    Paddle 2.x (`lr` given): p += lr * u. Paddle 1.8 (`lr` None): p += u', where u' is u computed again with the
    NEW E[u^2]: its Eigen expression for u is evaluated lazily, after E[u^2] was written in place (checked
    against paddlepaddle 1.8.5 and 2.6.2)."""
    dt = param.dtype
    rate = dt.type(1) if lr is None else _scalar(lr, dt)
    _adadelta_dense(_flat(param, 'param'), _grad(grad, param), _same(avg_squared_grad, param, 'avg_squared_grad'),
                    _same(avg_squared_update, param, 'avg_squared_update'), dt.type(rho), dt.type(1) - dt.type(rho),
                    dt.type(epsilon), rate, lr is None)
    return param, avg_squared_grad, avg_squared_update


@_jit
def _lars_dense(p, g, v, lr, mu, coeff, decay, zero):
    p_sq = zero
    g_sq = zero
    for i in range(p.shape[0]):
        p_sq += p[i] * p[i]
        g_sq += g[i] * g[i]
    p_norm = math.sqrt(p_sq)
    g_norm = math.sqrt(g_sq)
    local_lr = lr
    if p_norm > zero and g_norm > zero:
        local_lr = lr * coeff * p_norm / (g_norm + decay * p_norm)
    for i in range(p.shape[0]):
        vo = v[i] * mu + local_lr * (g[i] + decay * p[i])
        v[i] = vo
        p[i] = p[i] - vo


def lars_momentum(param, grad, velocity, lr, mu=0.9, lars_coeff=0.001, lars_weight_decay=0.0005):
    """LARS momentum, in place (the norms are over the whole parameter): local_lr = lr * coeff * |p| / (|g| +
    decay * |p|) when |p| and |g| are both positive, else lr; v = mu*v + local_lr * (g + decay*p); p -= v.
    Returns (param, velocity)."""
    dt = param.dtype
    _lars_dense(_flat(param, 'param'), _grad(grad, param), _same(velocity, param, 'velocity'), _scalar(lr, dt),
                dt.type(mu), dt.type(lars_coeff), dt.type(lars_weight_decay), dt.type(0))
    return param, velocity


_MINSTD_MODULUS = 2147483647


def dpsgd_noise(seed: int, sigma: float) -> np.float32:
    """The one Gaussian number Paddle's dpsgd op draws per run: std::minstd_rand seeded with `seed`,
    std::uniform_real_distribution<float>(0, 1) pairs (libstdc++: (x - 1) / 2^31 in float), Marsaglia's polar
    method on them, times sigma; all in float32 as the C++ does. The engine is re-seeded at every run, so a fixed
    seed gives the same noise every step."""
    f = np.float32
    state = seed % _MINSTD_MODULUS or 1
    while True:
        state = state * 48271 % _MINSTD_MODULUS
        u1 = f(f(state - 1) / f(2147483648.0))
        state = state * 48271 % _MINSTD_MODULUS
        u2 = f(f(state - 1) / f(2147483648.0))
        v1, v2 = f(f(2) * u1 - f(1)), f(f(2) * u2 - f(1))
        s = f(v1 * v1 + v2 * v2)
        if s < 1 and s != 0:
            break
    x = f(v1 * np.sqrt(f(f(-2) * np.log(s)) / s))
    return f(x * f(sigma))


@_jit
def _sequential_sum_squares_f32(g):
    total = np.float32(0)
    for i in range(g.shape[0]):
        gi = np.float32(g[i])
        total = np.float32(total + gi * gi)
    return total


def dpsgd(param, grad, lr, clip, batch_size, noise):
    """Differentially private SGD as Paddle's dpsgd op, in place: the gradient is scaled down to L2 norm `clip`
    when larger (norm accumulated in float32), then p -= lr * (g / scale + noise / batch_size) with one scalar
    `noise` (see dpsgd_noise). Returns param."""
    f = np.float32
    g = _grad(grad, param)
    norm = f(np.sqrt(_sequential_sum_squares_f32(g)))
    scale = norm / f(clip) if norm > f(clip) else f(1)
    dt = param.dtype
    p = _flat(param, 'param')
    p -= _scalar(lr, dt) * (g / dt.type(scale) + dt.type(noise) / dt.type(batch_size))
    return param
