"""Classification loss kernels with Paddle's semantics: teacher_student_sigmoid_loss, sigmoid_focal_loss,
center_loss (fluid 1.8 CPU kernels), nll_loss and margin_cross_entropy (Paddle 2.x). Numbers checked against
paddlepaddle 1.8.5 / 2.6.2 (tests/golden/api/).

- teacher_student_sigmoid_loss: a label < -1 means "no teacher score, not clicked" (loss = softplus(x)), < 0
  "no teacher score, clicked" (softplus(x) - x), else label = click + teacher score q in [0, 1]: both losses
  added (2 softplus(x) - x * label). Softplus is max(x, 0) + log(1 + exp(-|x|)). The gradient clips x to
  [soft_max_lower_bound, soft_max_up_bound] and is 0 outside; inside it is sigmoid-based as Paddle writes it.
- sigmoid_focal_loss (RetinaNet, Paddle's detection op): X [N, C] logits, Label [N, 1] int32 in 0..C (0 background,
  -1 ignored), FgNum the foreground count (at least 1): the class d + 1 == label is positive, scaled alpha /
  fg_num, the others negative, scaled (1 - alpha) / fg_num.
- center_loss: SampleCenterDiff = x - centers[label]; Loss = |diff|^2 / 2; with need_update the centers move
  by alpha * (sum of their samples' diffs) / (1 + their sample count), in place (CentersOut is Centers).
  X@GRAD = Loss@GRAD * SampleCenterDiff.
- nll_loss: picks -x[label] (times weight[label]) per sample (and per pixel for [N, C, H, W]), 0 where label ==
  ignore_index; 'sum' adds them, 'mean' divides by the summed weights (unless 0); Total_weight is that sum.
- margin_cross_entropy (ArcFace / CosFace / SphereFace, one card): the logit of the true class becomes
  cos(m1 * acos(x) + m2) - m3, every logit is multiplied by `scale`, then softmax cross entropy.
"""
import numpy as np

__all__ = ['teacher_student_sigmoid_loss_forward', 'teacher_student_sigmoid_loss_backward',
           'sigmoid_focal_loss_forward', 'sigmoid_focal_loss_backward', 'center_loss_forward', 'nll_loss_forward',
           'nll_loss_backward', 'margin_cross_entropy_forward', 'margin_cross_entropy_backward']

_FLT_MIN = np.float32(1.1754943508222875e-38)


def _softplus(x):
    return np.maximum(x, 0) + np.log(1.0 + np.exp(-np.abs(x)))


def teacher_student_sigmoid_loss_forward(x, label):
    x = np.asarray(x)
    lab = np.asarray(label, x.dtype).reshape(x.shape)
    sp = _softplus(x)
    y = np.where(lab < -1.0, sp,
                 np.where(lab < 0.0, sp - x,
                          np.where(lab < 1.0, 2 * sp - x * lab, 2 * sp - x - x * (lab - 1.0))))
    return y.astype(x.dtype).reshape(x.shape[0], 1)


def teacher_student_sigmoid_loss_backward(x, label, dy, lower: float, upper: float):
    x = np.asarray(x)
    lab = np.asarray(label, x.dtype).reshape(x.shape)
    clipped = np.clip(x, lower, upper)
    pred = 1.0 / (1.0 + np.exp(-clipped))
    dx = np.where(lab < -1.0, -pred, np.where(lab < 0.0, 1.0 - pred, lab - 2.0 * pred))
    dx = np.where((clipped >= upper) | (clipped <= lower), 0.0, dx)
    return (dx * -np.asarray(dy, x.dtype).reshape(x.shape)).astype(x.dtype)


def _focal_parts(x, label, fg_num, alpha):
    n, c = x.shape
    g = np.asarray(label, np.int64).reshape(n, 1)
    d = np.arange(c)[None, :]
    c_pos = (g == d + 1).astype(x.dtype)
    c_neg = ((g != -1) & (g != d + 1)).astype(x.dtype)
    fg = max(int(np.asarray(fg_num).reshape(-1)[0]), 1)
    s_neg = x.dtype.type((1.0 - alpha) / fg)
    s_pos = x.dtype.type(alpha / fg)
    p = 1.0 / (1.0 + np.exp(-x))
    log_1mp = -x * (x >= 0) - np.log(1.0 + np.exp(x - 2.0 * x * (x >= 0)))   # log(1 - p), stable
    return c_pos, c_neg, s_pos, s_neg, p, log_1mp


def sigmoid_focal_loss_forward(x, label, fg_num, gamma: float, alpha: float):
    c_pos, c_neg, s_pos, s_neg, p, log_1mp = _focal_parts(x, label, fg_num, alpha)
    term_pos = np.power(1.0 - p, gamma) * np.log(np.maximum(p, _FLT_MIN))
    term_neg = np.power(p, gamma) * log_1mp
    return (-c_pos * term_pos * s_pos - c_neg * term_neg * s_neg).astype(x.dtype)


def sigmoid_focal_loss_backward(x, label, fg_num, dout, gamma: float, alpha: float):
    c_pos, c_neg, s_pos, s_neg, p, log_1mp = _focal_parts(x, label, fg_num, alpha)
    term_pos = np.power(1.0 - p, gamma) * (1.0 - p - p * gamma * np.log(np.maximum(p, _FLT_MIN)))
    term_neg = np.power(p, gamma) * (log_1mp * (1.0 - p) * gamma - p)
    return ((-c_pos * s_pos * term_pos - c_neg * s_neg * term_neg) * dout).astype(x.dtype)


def center_loss_forward(x, label, centers, alpha, need_update: bool, cluster_num: int):
    """Returns (sample_center_diff, loss [N, 1], centers_out); centers_out is `centers` updated in place."""
    lab = np.asarray(label, np.int64).reshape(-1)
    if lab.size and (lab.min() < 0 or lab.max() >= cluster_num):
        raise ValueError("operator 'center_loss': labels must be in [0, cluster_num=%d), got %s"
                         % (cluster_num, lab[(lab < 0) | (lab >= cluster_num)][:3]))
    diff = (x - centers[lab]).astype(x.dtype)
    loss = (np.einsum('ij,ij->i', diff, diff) / 2).astype(x.dtype).reshape(-1, 1)
    if need_update:
        acc = np.zeros_like(centers)
        np.add.at(acc, lab, diff)
        count = np.ones(cluster_num, np.int64)
        np.add.at(count, lab, 1)
        rate = np.asarray(alpha, centers.dtype).reshape(-1)[0]
        centers += acc * (rate / count.astype(centers.dtype))[:, None]
    return diff, loss, centers


def _nll_view(x, label):
    """x as [N, C, P] and label as [N, P] (P = pixels of a 4-D input, 1 otherwise)."""
    n, c = x.shape[0], x.shape[1]
    return x.reshape(n, c, -1), np.asarray(label, np.int64).reshape(n, -1)


def _check_nll_labels(lab, kept, c):
    bad = kept & ((lab < 0) | (lab >= c))
    if np.any(bad):
        raise ValueError('label should not be out of bounds (class number %d), but received %d'
                         % (c, lab[bad][0]))


def nll_loss_forward(x, label, weight, ignore_index: int, reduction: str):
    """Returns (out, total_weight)."""
    x3, lab = _nll_view(x, label)
    n, c, pixels = x3.shape
    kept = lab != ignore_index
    _check_nll_labels(lab, kept, c)
    safe = np.where(kept, lab, 0)
    picked = np.take_along_axis(x3, safe[:, None, :], axis=1)[:, 0, :]
    w = np.ones(c, x.dtype) if weight is None else np.asarray(weight, x.dtype).reshape(-1)
    wt = np.where(kept, w[safe], 0).astype(x.dtype)
    losses = (-picked * wt).astype(x.dtype)
    if reduction == 'none':
        shape = (n,) if x.ndim == 2 else (n,) + x.shape[2:]
        return losses.reshape(shape), np.zeros((), x.dtype)
    total_weight = wt.sum(dtype=x.dtype)
    out = losses.sum(dtype=x.dtype)
    if reduction == 'mean' and total_weight != 0:
        out = out / total_weight
    return np.asarray(out, x.dtype).reshape(()), np.asarray(total_weight, x.dtype).reshape(())


def nll_loss_backward(x, label, weight, total_weight, dout, ignore_index: int, reduction: str):
    x3, lab = _nll_view(x, label)
    n, c, pixels = x3.shape
    kept = lab != ignore_index
    safe = np.where(kept, lab, 0)
    w = np.ones(c, x.dtype) if weight is None else np.asarray(weight, x.dtype).reshape(-1)
    wt = np.where(kept, w[safe], 0).astype(x.dtype)
    if reduction == 'none':
        g = -np.asarray(dout, x.dtype).reshape(n, pixels) * wt
    else:
        g = -np.asarray(dout, x.dtype).reshape(-1)[0] * wt
        tw = np.asarray(total_weight, x.dtype).reshape(-1)[0]
        if reduction == 'mean' and tw != 0:
            g = g / tw
    dx = np.zeros_like(x3)
    np.put_along_axis(dx, safe[:, None, :], g[:, None, :].astype(x.dtype), axis=1)
    dx = np.where(kept[:, None, :], dx, 0)
    return dx.reshape(x.shape).astype(x.dtype)


def margin_cross_entropy_forward(logits, label, m1: float, m2: float, m3: float, scale: float):
    """Returns (softmax, loss [N, 1])."""
    dt = logits.dtype
    n, c = logits.shape
    lab = np.asarray(label, np.int64).reshape(-1)
    if np.any((lab < 0) | (lab >= c)):
        raise ValueError("operator 'margin_cross_entropy': label must be in [0, %d)" % c)
    z = logits.astype(np.float64)
    rows = np.arange(n)
    target = z[rows, lab]
    theta = np.arccos(np.clip(target, -1.0, 1.0))
    z = z.copy()
    z[rows, lab] = np.cos(m1 * theta + m2) - m3
    z *= scale
    z -= z.max(axis=1, keepdims=True)
    log_softmax = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    softmax = np.exp(log_softmax)
    loss = -log_softmax[rows, lab].reshape(n, 1)
    return softmax.astype(dt), loss.astype(dt)


def margin_cross_entropy_backward(logits, label, softmax, dloss, m1: float, m2: float, m3: float, scale: float):
    dt = logits.dtype
    n = logits.shape[0]
    lab = np.asarray(label, np.int64).reshape(-1)
    rows = np.arange(n)
    d = softmax.astype(np.float64).copy()
    d[rows, lab] -= 1.0
    d *= np.asarray(dloss, np.float64).reshape(n, 1) * scale
    x = np.clip(logits[rows, lab].astype(np.float64), -1.0 + 1e-12, 1.0 - 1e-12)
    theta = np.arccos(x)
    # d cos(m1 * theta + m2) / dx = sin(m1 * theta + m2) * m1 / sqrt(1 - x^2)
    d[rows, lab] *= np.sin(m1 * theta + m2) * m1 / np.sqrt(1.0 - x * x)
    return d.astype(dt)

