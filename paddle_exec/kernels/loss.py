"""Loss kernels with PaddlePaddle's semantics (fluid 1.8 CPU kernels, checked against paddlepaddle 1.8.5).

- ``softmax_with_cross_entropy``: the CPU softmax clips the shifted logits at -64 (``ValueClip``) before ``exp``,
  so no softmax value is below ``exp(-64) / sum``; the loss is ``-log(softmax[label])`` of the stored softmax
  (soft: ``-sum(label * log(softmax))``), with ``log`` results of +-inf replaced by +-1e20 (``TolerableValue``).
  ``numeric_stable_mode`` only selects a CUDA path in Paddle and changes nothing here. A hard label equal to
  ``ignore_index`` gives loss 0. Gradient: ``(softmax - onehot(label)) * dLoss`` (soft: ``(softmax - label) *
  dLoss``); for an ignored label Paddle >= 2.0 writes 0, Paddle 1.8 writes ``softmax * dLoss`` (see
  ``legacy_ignore_grad``; 1.8 also subtracts dLoss at the flat offset of the ignored label, outside the row,
  which is a memory bug and not reproduced).
- ``cross_entropy`` (and ``cross_entropy2``, its ``MatchX`` is ``x[label]``): ``-log(x[label])`` with the same
  ``TolerableValue``, 0 for ``ignore_index``; soft ``-sum(label * log(x))``. Gradient ``-dLoss / x[label]`` at the
  label (0 elsewhere and for ignored rows); soft ``-label * dLoss / x``.
- ``sigmoid_cross_entropy_with_logits``: ``max(x, 0) - x * z + log(1 + exp(-|x|))``; an element is ignored (loss
  and gradient 0) when ``int(z) == ignore_index`` (C++ truncation), but ``normalize`` divides by the number of
  elements with ``z != ignore_index`` compared as floats (no epsilon: all ignored gives 0 / 0 = nan), as Paddle
  1.8 does. Gradient ``(sigmoid(x) - z) * dOut`` (same ignore and normalisation).
- ``bce_loss``: ``-(z * max(log(x), -100) + (1 - z) * max(log(1 - x), -100))``, x must be in [0, 1];
  gradient ``dOut * (x - z) / max((1 - x) * x, 1e-12)``.
- ``log_loss``: ``-z * log(p + eps) - (1 - z) * log(1 - p + eps)``.
"""
import numpy as np

from .jit import kernel_jit

__all__ = [
    'softmax_with_cross_entropy_forward', 'softmax_with_cross_entropy_backward',
    'cross_entropy_forward', 'cross_entropy_backward',
    'sigmoid_cross_entropy_with_logits_forward', 'sigmoid_cross_entropy_with_logits_backward',
    'bce_loss_forward', 'bce_loss_backward', 'log_loss_forward', 'log_loss_backward',
]

_jit = kernel_jit(error_model='numpy')

_APPROX_INF = 1e20  # Paddle's TolerableValue


@_jit
def _tolerable_log(v):
    r = np.log(v)
    if r == np.inf:
        return _APPROX_INF
    if r == -np.inf:
        return -_APPROX_INF
    return r


def _split_axis(shape, axis):
    """``(n, d, r)`` for a view ``[prod(shape[:axis]), shape[axis], prod(shape[axis+1:])]``."""
    rank = len(shape)
    if not -rank <= axis < rank:
        raise ValueError('axis %d out of range for rank %d' % (axis, rank))
    axis %= rank
    n = int(np.prod(shape[:axis], dtype=np.int64))
    r = int(np.prod(shape[axis + 1:], dtype=np.int64))
    return axis, n, shape[axis], r


def _label_error(label, depth, ignore_index):
    raise ValueError('label value should be >= 0 and < %d (the size of the class dimension) when it is not '
                     'ignore_index (%d), but received label value %d' % (depth, ignore_index, label))


# ----------------------------------------------------------------------------------------------------------------
# softmax_with_cross_entropy

@_jit
def _softmax3(x3):
    n_, d_, r_ = x3.shape
    sm = np.empty_like(x3)
    for i in range(n_):
        for r in range(r_):
            m = x3[i, 0, r]
            for d in range(1, d_):
                if x3[i, d, r] > m:
                    m = x3[i, d, r]
            s = 0.0
            for d in range(d_):
                t = x3[i, d, r] - m
                if t < -64.0:
                    t = -64.0
                e = np.exp(t)
                sm[i, d, r] = e
                s += e
            inv = 1.0 / s
            for d in range(d_):
                sm[i, d, r] = sm[i, d, r] * inv
    return sm


@_jit
def _hard_xent(p3, label, ignore_index):
    """loss[i, r] = -log(p3[i, label[i, r], r]); returns (loss, bad_label or 0, ok)."""
    n_, d_, r_ = p3.shape
    loss = np.empty((n_, r_), dtype=p3.dtype)
    for i in range(n_):
        for r in range(r_):
            lb = label[i, r]
            if lb == ignore_index:
                loss[i, r] = 0
            elif lb < 0 or lb >= d_:
                return loss, lb, False
            else:
                loss[i, r] = -_tolerable_log(p3[i, lb, r])
    return loss, 0, True


@_jit
def _soft_xent(p3, label3):
    n_, d_, r_ = p3.shape
    loss = np.empty((n_, r_), dtype=p3.dtype)
    for i in range(n_):
        for r in range(r_):
            s = 0.0
            for d in range(d_):
                s -= label3[i, d, r] * _tolerable_log(p3[i, d, r])
            loss[i, r] = s
    return loss


@_jit
def _swce_hard_grad(sm3, label, dloss, ignore_index, legacy):
    n_, d_, r_ = sm3.shape
    dx = np.empty_like(sm3)
    for i in range(n_):
        for r in range(r_):
            g = dloss[i, r]
            lb = label[i, r]
            if lb == ignore_index and not legacy:
                for d in range(d_):
                    dx[i, d, r] = 0
                continue
            for d in range(d_):
                dx[i, d, r] = sm3[i, d, r] * g
            if lb != ignore_index and lb >= 0 and lb < d_:
                dx[i, lb, r] -= g
    return dx


@_jit
def _swce_soft_grad(sm3, label3, dloss):
    n_, d_, r_ = sm3.shape
    dx = np.empty_like(sm3)
    for i in range(n_):
        for r in range(r_):
            g = dloss[i, r]
            for d in range(d_):
                dx[i, d, r] = g * (sm3[i, d, r] - label3[i, d, r])
    return dx


def _loss_shape(shape, axis):
    s = list(shape)
    s[axis] = 1
    return tuple(s)


def _hard_labels(label, n, r):
    return np.ascontiguousarray(label, dtype=np.int64).reshape(n, r)


def softmax_with_cross_entropy_forward(logits, label, soft_label=False, ignore_index=-100, axis=-1,
                                       numeric_stable_mode=True):
    """Paddle op ``softmax_with_cross_entropy`` (Logits, Label -> Softmax, Loss).

    ``label``: int64 with ``logits``' shape but 1 at ``axis`` (hard), or ``logits``' shape (``soft_label``).
    ``ignore_index`` applies to hard labels. Returns ``(softmax, loss)``; loss has ``logits``' shape with 1 at
    ``axis``. ``numeric_stable_mode`` is accepted for compatibility (CPU ignores it).
    """
    x = np.ascontiguousarray(logits)
    axis, n, d, r = _split_axis(x.shape, axis)
    sm3 = _softmax3(x.reshape(n, d, r))
    if soft_label:
        loss = _soft_xent(sm3, np.ascontiguousarray(label, dtype=x.dtype).reshape(n, d, r))
    else:
        loss, bad, ok = _hard_xent(sm3, _hard_labels(label, n, r), int(ignore_index))
        if not ok:
            _label_error(bad, d, ignore_index)
    return sm3.reshape(x.shape), loss.reshape(_loss_shape(x.shape, axis))


def softmax_with_cross_entropy_backward(softmax, label, dloss, soft_label=False, ignore_index=-100, axis=-1,
                                        legacy_ignore_grad=False):
    """Paddle op ``softmax_with_cross_entropy_grad`` (Softmax, Label, Loss@GRAD -> Logits@GRAD).

    ``(softmax - onehot(label)) * dLoss`` (soft: ``(softmax - label) * dLoss``, the true gradient only when
    each soft label sums to 1, as Paddle assumes). Rows whose hard label equals
    ``ignore_index`` get 0 (Paddle >= 2.0); ``legacy_ignore_grad=True`` gives Paddle 1.8's ``softmax * dLoss``
    for them. Returns dLogits in softmax's shape.
    """
    sm = np.ascontiguousarray(softmax)
    axis, n, d, r = _split_axis(sm.shape, axis)
    dl = np.ascontiguousarray(dloss, dtype=sm.dtype).reshape(n, r)
    if soft_label:
        dx = _swce_soft_grad(sm.reshape(n, d, r), np.ascontiguousarray(label, dtype=sm.dtype).reshape(n, d, r), dl)
    else:
        dx = _swce_hard_grad(sm.reshape(n, d, r), _hard_labels(label, n, r), dl, int(ignore_index),
                             bool(legacy_ignore_grad))
    return dx.reshape(sm.shape)


# ----------------------------------------------------------------------------------------------------------------
# cross_entropy / cross_entropy2

@_jit
def _xent_hard_grad(x3, label, dloss, ignore_index):
    n_, d_, r_ = x3.shape
    dx = np.zeros_like(x3)
    for i in range(n_):
        for r in range(r_):
            lb = label[i, r]
            if lb != ignore_index and lb >= 0 and lb < d_:
                dx[i, lb, r] = -dloss[i, r] / x3[i, lb, r]
    return dx


@_jit
def _xent_soft_grad(x3, label3, dloss):
    n_, d_, r_ = x3.shape
    dx = np.empty_like(x3)
    for i in range(n_):
        for r in range(r_):
            for d in range(d_):
                dx[i, d, r] = -label3[i, d, r] * dloss[i, r] / x3[i, d, r]
    return dx


def cross_entropy_forward(x, label, soft_label=False, ignore_index=-100):
    """Paddle ops ``cross_entropy`` / ``cross_entropy2`` (X, Label -> Y) on probabilities over the LAST axis.

    ``x``: ``[..., D]``; ``label``: int64 ``[..., 1]`` (hard) or ``[..., D]`` (``soft_label``). Returns ``y`` of
    shape ``[..., 1]``: ``-log(x[label])`` (log of 0 counted as -1e20), 0 where label == ``ignore_index``.
    ``cross_entropy2``'s ``MatchX`` is ``x[label]`` (0 for ignored rows).
    """
    x = np.ascontiguousarray(x)
    d = x.shape[-1]
    n = x.size // d if d else 0
    x3 = x.reshape(n, d, 1)
    if soft_label:
        loss = _soft_xent(x3, np.ascontiguousarray(label, dtype=x.dtype).reshape(n, d, 1))
    else:
        loss, bad, ok = _hard_xent(x3, _hard_labels(label, n, 1), int(ignore_index))
        if not ok:
            _label_error(bad, d, ignore_index)
    return loss.reshape(x.shape[:-1] + (1,))


def cross_entropy_backward(x, label, dloss, soft_label=False, ignore_index=-100):
    """Paddle ops ``cross_entropy_grad`` / ``cross_entropy_grad2`` (X or MatchX, Label, Y@GRAD -> X@GRAD).

    Hard: ``-dLoss / x[label]`` at the label position, 0 elsewhere and for ignored rows; soft: ``-label * dLoss /
    x``. Returns dX of x's shape.
    """
    x = np.ascontiguousarray(x)
    d = x.shape[-1]
    n = x.size // d if d else 0
    x3 = x.reshape(n, d, 1)
    dl = np.ascontiguousarray(dloss, dtype=x.dtype).reshape(n, 1)
    if soft_label:
        dx = _xent_soft_grad(x3, np.ascontiguousarray(label, dtype=x.dtype).reshape(n, d, 1), dl)
    else:
        dx = _xent_hard_grad(x3, _hard_labels(label, n, 1), dl, int(ignore_index))
    return dx.reshape(x.shape)


# ----------------------------------------------------------------------------------------------------------------
# sigmoid_cross_entropy_with_logits

@_jit
def _sce_count(z, ignore_index):
    c = 0
    ig = np.float64(ignore_index)
    for i in range(z.size):
        if z[i] != ig:
            c += 1
    return c


@_jit
def _sce_fwd(x, z, ignore_index, norm):
    out = np.empty_like(x)
    for i in range(x.size):
        xi = x[i]
        zi = z[i]
        v = 0.0
        if int(zi) != ignore_index:
            t1 = xi if xi > 0 else 0.0
            v = t1 - xi * zi + np.log(1.0 + np.exp(-abs(xi)))
        out[i] = v / norm  # the whole tensor is divided, so 0 / 0 is nan when everything is ignored
    return out


@_jit
def _sce_bwd(x, z, dout, ignore_index, norm):
    dx = np.empty_like(x)
    for i in range(x.size):
        zi = z[i]
        v = 0.0
        if int(zi) != ignore_index:
            sig = 1.0 / (1.0 + np.exp(-x[i]))
            v = (sig - zi) * dout[i]
        dx[i] = v / norm
    return dx


def _sce_norm(z, ignore_index, normalize):
    return float(_sce_count(z, int(ignore_index))) if normalize else 1.0


def sigmoid_cross_entropy_with_logits_forward(x, label, ignore_index=-100, normalize=False):
    """Paddle op ``sigmoid_cross_entropy_with_logits`` (X, Label -> Out), elementwise.

    ``max(x, 0) - x * z + log(1 + exp(-|x|))``; 0 where ``int(z) == ignore_index``; ``normalize`` divides by the
    count of ``z != ignore_index`` (module docstring). Returns Out of x's shape.
    """
    x = np.ascontiguousarray(x)
    z = np.ascontiguousarray(label, dtype=x.dtype).reshape(-1)
    norm = _sce_norm(z, ignore_index, normalize)
    return _sce_fwd(x.reshape(-1), z, int(ignore_index), norm).reshape(x.shape)


def sigmoid_cross_entropy_with_logits_backward(x, label, dout, ignore_index=-100, normalize=False):
    """Paddle op ``sigmoid_cross_entropy_with_logits_grad``: ``(sigmoid(x) - z) * dOut`` (0 for ignored elements,
    divided by the same count as the forward when ``normalize``). Returns dX."""
    x = np.ascontiguousarray(x)
    z = np.ascontiguousarray(label, dtype=x.dtype).reshape(-1)
    norm = _sce_norm(z, ignore_index, normalize)
    d = np.ascontiguousarray(dout, dtype=x.dtype).reshape(-1)
    return _sce_bwd(x.reshape(-1), z, d, int(ignore_index), norm).reshape(x.shape)


# ----------------------------------------------------------------------------------------------------------------
# bce_loss, log_loss

@_jit
def _bce_fwd(x, z):
    out = np.empty_like(x)
    for i in range(x.size):
        xi = x[i]
        if not (xi >= 0 and xi <= 1):
            return out, i
        a = max(np.log(xi), -100.0)
        b = max(np.log(1.0 - xi), -100.0)
        out[i] = -(z[i] * a + (1.0 - z[i]) * b)
    return out, -1


@_jit
def _bce_bwd(x, z, dout):
    dx = np.empty_like(x)
    for i in range(x.size):
        xi = x[i]
        dx[i] = dout[i] * (xi - z[i]) / max((1.0 - xi) * xi, 1e-12)
    return dx


def bce_loss_forward(x, label):
    """Paddle op ``bce_loss`` (X, Label -> Out), elementwise binary cross entropy on probabilities.

    ``-(z * max(log x, -100) + (1 - z) * max(log(1 - x), -100))``; raises ValueError for x outside [0, 1].
    """
    x = np.ascontiguousarray(x)
    z = np.ascontiguousarray(label, dtype=x.dtype).reshape(-1)
    out, bad = _bce_fwd(x.reshape(-1), z)
    if bad >= 0:
        raise ValueError('Illegal input, input must be in [0, 1], but received %s' % x.reshape(-1)[bad])
    return out.reshape(x.shape)


def bce_loss_backward(x, label, dout):
    """Paddle op ``bce_loss_grad``: ``dOut * (x - z) / max((1 - x) * x, 1e-12)``. Returns dX."""
    x = np.ascontiguousarray(x)
    z = np.ascontiguousarray(label, dtype=x.dtype).reshape(-1)
    d = np.ascontiguousarray(dout, dtype=x.dtype).reshape(-1)
    return _bce_bwd(x.reshape(-1), z, d).reshape(x.shape)


@_jit
def _log_loss_fwd(p, z, eps):
    out = np.empty_like(p)
    for i in range(p.size):
        out[i] = -z[i] * np.log(p[i] + eps) - (1.0 - z[i]) * np.log(1.0 - p[i] + eps)
    return out


@_jit
def _log_loss_bwd(p, z, dout, eps):
    dp = np.empty_like(p)
    for i in range(p.size):
        dp[i] = dout[i] * (-(z[i] / (p[i] + eps)) + (1.0 - z[i]) / (1.0 - p[i] + eps))
    return dp


def log_loss_forward(predicted, label, epsilon=1e-4):
    """Paddle op ``log_loss`` (Predicted, Labels -> Loss): ``-z * log(p + eps) - (1 - z) * log(1 - p + eps)``."""
    p = np.ascontiguousarray(predicted)
    z = np.ascontiguousarray(label, dtype=p.dtype).reshape(-1)
    return _log_loss_fwd(p.reshape(-1), z, p.dtype.type(epsilon)).reshape(p.shape)


def log_loss_backward(predicted, label, dloss, epsilon=1e-4):
    """Paddle op ``log_loss_grad``: ``dLoss * (-z / (p + eps) + (1 - z) / (1 - p + eps))``. Returns dPredicted."""
    p = np.ascontiguousarray(predicted)
    z = np.ascontiguousarray(label, dtype=p.dtype).reshape(-1)
    d = np.ascontiguousarray(dloss, dtype=p.dtype).reshape(-1)
    return _log_loss_bwd(p.reshape(-1), z, d, p.dtype.type(epsilon)).reshape(p.shape)


# ----------------------------------------------------------------------------------------------------------------
# smooth_l1_loss, kldiv_loss, label_smooth (Paddle 1.8 smooth_l1_loss_op.h, kldiv_loss_op.h, label_smooth_op.h)
#
# - smooth_l1_loss: per row of x viewed as [N, rest], diff = (x - y) * inside_weight; each element gives
#   0.5 * d^2 * sigma^2 when |d| < 1 / sigma^2, else |d| - 0.5 / sigma^2 (sigma^2 = sigma * sigma in the input's
#   type, the comparisons in double), times outside_weight; Out[N, 1] is the row sum. The weights count only when
#   both are given. Gradient: dOut * (sigma^2 * d if |d| < 1 / sigma^2 else sign(d)) * inside * outside weight;
#   dY = -dX.
# - kldiv_loss: target * (log(target) - x) where target > 0, else 0 (1.8.5 gives 0 for a zero target);
#   reduction 'none' keeps the shape, 'sum' / 'mean' / 'batchmean' (sum / N) give [1]. Gradient -target * dLoss
#   where target > 0, divided by the element count for 'mean' and by N for 'batchmean'.
# - label_smooth: (1 - eps) * x + eps / K (K the last dim), or + eps * prior_dist when given; d = (1 - eps) * dOut.

__all__ += ['smooth_l1_loss_forward', 'smooth_l1_loss_backward', 'kldiv_loss_forward', 'kldiv_loss_backward',
            'label_smooth_forward', 'label_smooth_backward']


@_jit
def _smooth_l1_fwd(x2, y2, iw2, ow2, has_weight, sigma2):
    n, m = x2.shape
    diff = np.empty_like(x2)
    out = np.zeros((n, 1), dtype=x2.dtype)
    inv = 1.0 / np.float64(sigma2)
    for i in range(n):
        acc = x2.dtype.type(0)
        for j in range(m):
            d = x2[i, j] - y2[i, j]
            if has_weight:
                d = d * iw2[i, j]
            diff[i, j] = d
            a = abs(d)
            if a < inv:
                e = x2.dtype.type(0.5 * d * d * sigma2)
            else:
                e = x2.dtype.type(a - 0.5 * inv)
            if has_weight:
                e = e * ow2[i, j]
            acc += e
        out[i, 0] = acc
    return diff, out


@_jit
def _smooth_l1_bwd(diff2, iw2, ow2, has_weight, sigma2, dout):
    n, m = diff2.shape
    dx = np.empty_like(diff2)
    inv = 1.0 / np.float64(sigma2)
    for i in range(n):
        g = dout[i]
        for j in range(m):
            d = diff2[i, j]
            if abs(d) < inv:
                s = sigma2 * d
            else:
                s = diff2.dtype.type((d > 0) - (d < 0))
            v = g * s
            if has_weight:
                v = v * (iw2[i, j] * ow2[i, j])
            dx[i, j] = v
    return dx


def _rows(a):
    a = np.ascontiguousarray(a)
    return a.reshape(a.shape[0], -1)


def smooth_l1_loss_forward(x, y, inside_weight=None, outside_weight=None, sigma=1.0):
    """Paddle op ``smooth_l1_loss``: returns ``(Diff, Out)``; Out is ``[N, 1]``."""
    has_weight = inside_weight is not None and outside_weight is not None
    x2 = _rows(x)
    y2 = _rows(np.asarray(y, dtype=x.dtype))
    iw = _rows(np.asarray(inside_weight, dtype=x.dtype)) if has_weight else x2
    ow = _rows(np.asarray(outside_weight, dtype=x.dtype)) if has_weight else x2
    sigma = x.dtype.type(sigma)
    diff, out = _smooth_l1_fwd(x2, y2, iw, ow, has_weight, sigma * sigma)
    return diff.reshape(x.shape), out


def smooth_l1_loss_backward(diff, dout, inside_weight=None, outside_weight=None, sigma=1.0):
    """Paddle op ``smooth_l1_loss_grad``: returns ``dX`` (``dY`` is its negation)."""
    has_weight = inside_weight is not None and outside_weight is not None
    d2 = _rows(diff)
    iw = _rows(np.asarray(inside_weight, dtype=diff.dtype)) if has_weight else d2
    ow = _rows(np.asarray(outside_weight, dtype=diff.dtype)) if has_weight else d2
    sigma = diff.dtype.type(sigma)
    g = np.ascontiguousarray(dout, dtype=diff.dtype).reshape(-1)
    return _smooth_l1_bwd(d2, iw, ow, has_weight, sigma * sigma, g).reshape(diff.shape)


@_jit
def _kldiv_elems(x, t):
    out = np.empty_like(x)
    for i in range(x.size):
        tv = t[i]
        out[i] = tv * (np.log(tv) - x[i]) if tv > 0 else x.dtype.type(0)
    return out


@_jit
def _kldiv_grad(t, dloss, scale):
    dx = np.empty_like(t)
    expand = t.size // dloss.size
    for i in range(t.size):
        tv = t[i]
        dx[i] = -tv * dloss[i // expand] * scale if tv > 0 else t.dtype.type(0)
    return dx


_KLDIV_REDUCTIONS = ('none', 'batchmean', 'mean', 'sum')


def kldiv_loss_forward(x, target, reduction='mean'):
    """Paddle op ``kldiv_loss``."""
    if reduction not in _KLDIV_REDUCTIONS:
        raise ValueError("kldiv_loss: reduction must be one of %s, got %r" % (list(_KLDIV_REDUCTIONS), reduction))
    elems = _kldiv_elems(np.ascontiguousarray(x).ravel(), np.ascontiguousarray(target, dtype=x.dtype).ravel())
    if reduction == 'none':
        return elems.reshape(x.shape)
    total = elems.sum(dtype=x.dtype)
    if reduction == 'mean':
        total = total / x.dtype.type(elems.size)
    elif reduction == 'batchmean':
        total = total / x.dtype.type(x.shape[0])
    return np.array([total], dtype=x.dtype)


def kldiv_loss_backward(target, dloss, reduction='mean'):
    """Paddle op ``kldiv_loss_grad``: ``dX``."""
    t = np.ascontiguousarray(target)
    scale = {'mean': 1.0 / t.size, 'batchmean': 1.0 / t.shape[0]}.get(reduction, 1.0)
    g = np.ascontiguousarray(dloss, dtype=t.dtype).ravel()
    return _kldiv_grad(t.ravel(), g, t.dtype.type(scale)).reshape(t.shape)


@_jit
def _label_smooth(x2, prior, keep, eps):
    out = np.empty_like(x2)
    for i in range(x2.shape[0]):
        for j in range(x2.shape[1]):
            out[i, j] = keep * x2[i, j] + eps * prior[j]
    return out


def label_smooth_forward(x, prior_dist=None, epsilon=0.1):
    """Paddle op ``label_smooth``: the uniform prior is ``eps / K`` in the input's type."""
    dt = x.dtype.type
    k = x.shape[-1]
    x2 = np.ascontiguousarray(x).reshape(-1, k)
    if prior_dist is None:
        prior, eps = np.full(k, dt(np.float32(epsilon) / np.float32(k)), x.dtype), dt(1)
    else:
        prior, eps = np.ascontiguousarray(prior_dist, dtype=x.dtype).reshape(-1), dt(epsilon)
    return _label_smooth(x2, prior, dt(np.float32(1) - np.float32(epsilon)), eps).reshape(x.shape)


def label_smooth_backward(dout, epsilon=0.1):
    """Paddle op ``label_smooth_grad``: ``(1 - eps) * dOut``."""
    return (dout * dout.dtype.type(np.float32(1) - np.float32(epsilon))).astype(dout.dtype, copy=False)
