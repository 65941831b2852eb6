"""Unary kernels: Paddle's activation ops, ``scale``, ``clip`` and ``cast``, forward and backward.

One function per op and direction, on the opcode loops of kernels/unary.py (log1p and erf have loops of their own
here). Formulas are Paddle's (``activation_op.h``, ``gelu_op.h``, ``clip_op.h``, ``scale_op.h``); the
grad kernels take what Paddle's grad op takes (`GRAD_DEPENDENCY`):

- from ``Out``: relu, sigmoid, tanh, exp, sqrt, rsqrt, reciprocal, relu6, hard_sigmoid, selu
- from ``X``:   gelu, leaky_relu, log, abs, square, softplus, softsign, elu, swish, silu, logsigmoid,
  hard_swish, hard_shrink, softshrink, tanh_shrink, thresholded_relu, brelu, sin, cos, pow, stanh, mish, clip
- nothing:     scale (dX = scale * dOut), floor / ceil / round / sign (zero gradient)

Attributes are cast to the input dtype first, as Paddle's ``static_cast<T>(attr)`` does (so ``scale`` with
scale=0.5 on an int tensor multiplies by 0). Integer inputs work for the ops Paddle registers for them
(relu, abs, square, scale, clip, sign).
"""

from __future__ import annotations

import math

import numpy as np

from . import unary as U
from .jit import kernel_jit
from .unary import GRAD_DEPENDENCY

__all__ = [
    "GRAD_DEPENDENCY",
    "relu_forward", "relu_backward", "sigmoid_forward", "sigmoid_backward", "tanh_forward", "tanh_backward",
    "gelu_forward", "gelu_backward", "leaky_relu_forward", "leaky_relu_backward",
    "exp_forward", "exp_backward", "log_forward", "log_backward", "sqrt_forward", "sqrt_backward",
    "rsqrt_forward", "rsqrt_backward", "abs_forward", "abs_backward", "square_forward", "square_backward",
    "softplus_forward", "softplus_backward", "softsign_forward", "softsign_backward",
    "relu6_forward", "relu6_backward", "elu_forward", "elu_backward",
    "hard_sigmoid_forward", "hard_sigmoid_backward", "swish_forward", "swish_backward",
    "silu_forward", "silu_backward", "logsigmoid_forward", "logsigmoid_backward",
    "reciprocal_forward", "reciprocal_backward", "hard_swish_forward", "hard_swish_backward",
    "hard_shrink_forward", "hard_shrink_backward", "softshrink_forward", "softshrink_backward",
    "tanh_shrink_forward", "tanh_shrink_backward", "thresholded_relu_forward", "thresholded_relu_backward",
    "brelu_forward", "brelu_backward", "sin_forward", "sin_backward", "cos_forward", "cos_backward",
    "pow_forward", "pow_backward", "stanh_forward", "stanh_backward", "mish_forward", "mish_backward",
    "selu_forward", "selu_backward",
    "floor_forward", "ceil_forward", "round_forward", "sign_forward", "zero_grad_backward",
    "scale_forward", "scale_backward", "clip_forward", "clip_backward", "cast_forward", "cast_backward",
]

_jit = kernel_jit(error_model="numpy")


def relu_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``relu``: out = max(x, 0)."""
    return U.forward(U.RELU, x)


def relu_backward(out: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``relu_grad`` (reads Out): dx = dout * (out > 0)."""
    return U.backward(U.RELU, out, dout)


def sigmoid_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``sigmoid``: out = 1 / (1 + exp(-x))."""
    return U.forward(U.SIGMOID, x)


def sigmoid_backward(out: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``sigmoid_grad`` (reads Out): dx = dout * out * (1 - out)."""
    return U.backward(U.SIGMOID, out, dout)


def tanh_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``tanh``."""
    return U.forward(U.TANH, x)


def tanh_backward(out: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``tanh_grad`` (reads Out): dx = dout * (1 - out^2)."""
    return U.backward(U.TANH, out, dout)


def gelu_forward(x: np.ndarray, approximate: bool = False) -> np.ndarray:
    """Paddle ``gelu``: 0.5 x (1 + erf(x / sqrt 2)); approximate: 0.5 x (1 + tanh(sqrt(2/pi)(x + 0.044715 x^3)))."""
    return U.forward(U.GELU, x, 1.0 if approximate else 0.0)


def gelu_backward(x: np.ndarray, dout: np.ndarray, approximate: bool = False) -> np.ndarray:
    """Paddle ``gelu_grad`` (reads X)."""
    return U.backward(U.GELU, x, dout, 1.0 if approximate else 0.0)


def leaky_relu_forward(x: np.ndarray, alpha: float = 0.02) -> np.ndarray:
    """Paddle ``leaky_relu``: x >= 0 ? x : alpha * x (op default alpha 0.02; paddle 2.x API passes 0.01)."""
    return U.forward(U.LEAKY_RELU, x, alpha)


def leaky_relu_backward(x: np.ndarray, dout: np.ndarray, alpha: float = 0.02) -> np.ndarray:
    """Paddle ``leaky_relu_grad`` (reads X): dx = x >= 0 ? dout : alpha * dout."""
    return U.backward(U.LEAKY_RELU, x, dout, alpha)


def exp_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``exp``."""
    return U.forward(U.EXP, x)


def exp_backward(out: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``exp_grad`` (reads Out): dx = dout * out."""
    return U.backward(U.EXP, out, dout)


def log_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``log`` (natural)."""
    return U.forward(U.LOG, x)


def log_backward(x: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``log_grad`` (reads X): dx = dout / x."""
    return U.backward(U.LOG, x, dout)


def sqrt_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``sqrt``."""
    return U.forward(U.SQRT, x)


def sqrt_backward(out: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``sqrt_grad`` (reads Out): dx = 0.5 * dout / out."""
    return U.backward(U.SQRT, out, dout)


def rsqrt_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``rsqrt``: out = 1 / sqrt(x)."""
    return U.forward(U.RSQRT, x)


def rsqrt_backward(out: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``rsqrt_grad`` (reads Out): dx = -0.5 * dout * out^3."""
    return U.backward(U.RSQRT, out, dout)


def abs_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``abs``."""
    return U.forward(U.ABS, x)


def abs_backward(x: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``abs_grad`` (reads X): dx = dout * sign(x) (0 at x = 0)."""
    return U.backward(U.ABS, x, dout)


def square_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``square``."""
    return U.forward(U.SQUARE, x)


def square_backward(x: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``square_grad`` (reads X): dx = 2 * x * dout."""
    return U.backward(U.SQUARE, x, dout)


def softplus_forward(x: np.ndarray, beta: float = 1.0, threshold: float = 20.0) -> np.ndarray:
    """Paddle ``softplus``: beta*x > threshold ? x : log(1 + exp(beta*x)) / beta."""
    return U.forward(U.SOFTPLUS, x, beta, threshold)


def softplus_backward(x: np.ndarray, dout: np.ndarray, beta: float = 1.0, threshold: float = 20.0) -> np.ndarray:
    """Paddle ``softplus_grad`` (reads X): dout * sigmoid(beta*x), or dout above the threshold."""
    return U.backward(U.SOFTPLUS, x, dout, beta, threshold)


def softsign_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``softsign``: x / (1 + |x|)."""
    return U.forward(U.SOFTSIGN, x)


def softsign_backward(x: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``softsign_grad`` (reads X): dout / (1 + |x|)^2."""
    return U.backward(U.SOFTSIGN, x, dout)


def relu6_forward(x: np.ndarray, threshold: float = 6.0) -> np.ndarray:
    """Paddle ``relu6``: min(max(x, 0), threshold)."""
    return U.forward(U.RELU6, x, threshold)


def relu6_backward(out: np.ndarray, dout: np.ndarray, threshold: float = 6.0) -> np.ndarray:
    """Paddle ``relu6_grad`` (reads Out): dout where 0 < out < threshold."""
    return U.backward(U.RELU6, out, dout, threshold)


def elu_forward(x: np.ndarray, alpha: float = 1.0) -> np.ndarray:
    """Paddle ``elu``: max(x, 0) + min(alpha * (exp(x) - 1), 0)."""
    return U.forward(U.ELU, x, alpha)


def elu_backward(x: np.ndarray, dout: np.ndarray, alpha: float = 1.0) -> np.ndarray:
    """Paddle ``elu_grad`` (reads X, 2.x rule): alpha > 0: x > 0 ? dout : dout * alpha * exp(x)."""
    return U.backward(U.ELU, x, dout, alpha)


def hard_sigmoid_forward(x: np.ndarray, slope: float = 0.2, offset: float = 0.5) -> np.ndarray:
    """Paddle ``hard_sigmoid``: clip(slope * x + offset, 0, 1) (op defaults; F.hardsigmoid uses 1/6, 0.5)."""
    return U.forward(U.HARD_SIGMOID, x, slope, offset)


def hard_sigmoid_backward(out: np.ndarray, dout: np.ndarray, slope: float = 0.2, offset: float = 0.5) -> np.ndarray:
    """Paddle ``hard_sigmoid_grad`` (reads Out): dout * slope where 0 < out < 1."""
    return U.backward(U.HARD_SIGMOID, out, dout, slope, offset)


def swish_forward(x: np.ndarray, beta: float = 1.0) -> np.ndarray:
    """Paddle ``swish``: x / (1 + exp(-beta * x))."""
    return U.forward(U.SWISH, x, beta)


def swish_backward(x: np.ndarray, dout: np.ndarray, beta: float = 1.0) -> np.ndarray:
    """Paddle ``swish_grad`` (reads X)."""
    return U.backward(U.SWISH, x, dout, beta)


def silu_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``silu``: x * sigmoid(x)."""
    return U.forward(U.SILU, x)


def silu_backward(x: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``silu_grad`` (reads X): dout * s * (1 + x * (1 - s)), s = sigmoid(x)."""
    return U.backward(U.SILU, x, dout)


def logsigmoid_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``logsigmoid``: -log(1 + exp(-x)), computed with the max(-x, 0) shift."""
    return U.forward(U.LOGSIGMOID, x)


def logsigmoid_backward(x: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``logsigmoid_grad`` (reads X): dout * sigmoid(-x)."""
    return U.backward(U.LOGSIGMOID, x, dout)


def reciprocal_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``reciprocal``: 1 / x."""
    return U.forward(U.RECIPROCAL, x)


def reciprocal_backward(out: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``reciprocal_grad`` (reads Out): -dout * out^2."""
    return U.backward(U.RECIPROCAL, out, dout)


def hard_swish_forward(x: np.ndarray, threshold: float = 6.0, scale: float = 6.0, offset: float = 3.0) -> np.ndarray:
    """Paddle ``hard_swish``: min(max(x + offset, 0), threshold) * x / scale."""
    return U.forward(U.HARD_SWISH, x, threshold, scale, offset)


def hard_swish_backward(x: np.ndarray, dout: np.ndarray, threshold: float = 6.0, scale: float = 6.0,
                        offset: float = 3.0) -> np.ndarray:
    """Paddle ``hard_swish_grad`` (reads X): 0 / (2x + offset) / scale / 1 on the three pieces."""
    return U.backward(U.HARD_SWISH, x, dout, threshold, scale, offset)


def hard_shrink_forward(x: np.ndarray, threshold: float = 0.5) -> np.ndarray:
    """Paddle ``hard_shrink``: x where |x| > threshold, else 0."""
    return U.forward(U.HARD_SHRINK, x, threshold)


def hard_shrink_backward(x: np.ndarray, dout: np.ndarray, threshold: float = 0.5) -> np.ndarray:
    """Paddle ``hard_shrink_grad`` (reads X)."""
    return U.backward(U.HARD_SHRINK, x, dout, threshold)


def softshrink_forward(x: np.ndarray, lambda_: float = 0.5) -> np.ndarray:
    """Paddle ``softshrink``: x - lambda (x > lambda), x + lambda (x < -lambda), else 0."""
    return U.forward(U.SOFTSHRINK, x, lambda_)


def softshrink_backward(x: np.ndarray, dout: np.ndarray, lambda_: float = 0.5) -> np.ndarray:
    """Paddle ``softshrink_grad`` (reads X)."""
    return U.backward(U.SOFTSHRINK, x, dout, lambda_)


def tanh_shrink_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``tanh_shrink``: x - tanh(x)."""
    return U.forward(U.TANH_SHRINK, x)


def tanh_shrink_backward(x: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``tanh_shrink_grad`` (reads X): dout * tanh(x)^2."""
    return U.backward(U.TANH_SHRINK, x, dout)


def thresholded_relu_forward(x: np.ndarray, threshold: float = 1.0) -> np.ndarray:
    """Paddle ``thresholded_relu``: x > threshold ? x : 0."""
    return U.forward(U.THRESHOLDED_RELU, x, threshold)


def thresholded_relu_backward(x: np.ndarray, dout: np.ndarray, threshold: float = 1.0) -> np.ndarray:
    """Paddle ``thresholded_relu_grad`` (reads X)."""
    return U.backward(U.THRESHOLDED_RELU, x, dout, threshold)


def brelu_forward(x: np.ndarray, t_min: float = 0.0, t_max: float = 24.0) -> np.ndarray:
    """Paddle ``brelu`` (2.x ``hardtanh`` with t_min=-1, t_max=1): min(max(x, t_min), t_max)."""
    return U.forward(U.BRELU, x, t_min, t_max)


def brelu_backward(x: np.ndarray, dout: np.ndarray, t_min: float = 0.0, t_max: float = 24.0) -> np.ndarray:
    """Paddle ``brelu_grad`` (reads X): dout where t_min < x < t_max."""
    return U.backward(U.BRELU, x, dout, t_min, t_max)


def sin_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``sin``."""
    return U.forward(U.SIN, x)


def sin_backward(x: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``sin_grad`` (reads X): dout * cos(x)."""
    return U.backward(U.SIN, x, dout)


def cos_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``cos``."""
    return U.forward(U.COS, x)


def cos_backward(x: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``cos_grad`` (reads X): -dout * sin(x)."""
    return U.backward(U.COS, x, dout)


def pow_forward(x: np.ndarray, factor: float = 1.0) -> np.ndarray:
    """Paddle ``pow`` (activation with a scalar ``factor``): x^factor."""
    return U.forward(U.POW, x, factor)


def pow_backward(x: np.ndarray, dout: np.ndarray, factor: float = 1.0) -> np.ndarray:
    """Paddle ``pow_grad`` (reads X): dout * factor * x^(factor - 1)."""
    return U.backward(U.POW, x, dout, factor)


def stanh_forward(x: np.ndarray, scale_a: float = 0.67, scale_b: float = 1.7159) -> np.ndarray:
    """Paddle ``stanh``: scale_b * tanh(scale_a * x)."""
    return U.forward(U.STANH, x, scale_a, scale_b)


def stanh_backward(x: np.ndarray, dout: np.ndarray, scale_a: float = 0.67, scale_b: float = 1.7159) -> np.ndarray:
    """Paddle ``stanh_grad`` (reads X)."""
    return U.backward(U.STANH, x, dout, scale_a, scale_b)


def mish_forward(x: np.ndarray, threshold: float = 20.0) -> np.ndarray:
    """Paddle ``mish``: x * tanh(softplus(x)), softplus(x) = x above ``threshold``."""
    return U.forward(U.MISH, x, threshold)


def mish_backward(x: np.ndarray, dout: np.ndarray, threshold: float = 20.0) -> np.ndarray:
    """Paddle ``mish_grad`` (reads X)."""
    return U.backward(U.MISH, x, dout, threshold)


_SELU_SCALE = 1.0507009873554804934193349852946
_SELU_ALPHA = 1.6732632423543772848170429916717


def selu_forward(x: np.ndarray, scale: float = _SELU_SCALE, alpha: float = _SELU_ALPHA) -> np.ndarray:
    """Paddle ``selu``: scale * (x > 0 ? x : alpha * exp(x) - alpha)."""
    return U.forward(U.SELU, x, scale, alpha)


def selu_backward(out: np.ndarray, dout: np.ndarray, scale: float = _SELU_SCALE,
                  alpha: float = _SELU_ALPHA) -> np.ndarray:
    """Paddle ``selu_grad`` (reads Out): out <= 0 ? dout * (out + alpha * scale) : dout * scale."""
    return U.backward(U.SELU, out, dout, scale, alpha)


def floor_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``floor`` (gradient: `zero_grad_backward`)."""
    return U.forward(U.FLOOR, x)


def ceil_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``ceil`` (gradient: `zero_grad_backward`)."""
    return U.forward(U.CEIL, x)


def round_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``round``: halves away from zero (std::round; numpy rounds halves to even)."""
    return U.forward(U.ROUND, x)


def sign_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``sign``: -1, 0 or 1."""
    return U.forward(U.SIGN, x)


def zero_grad_backward(dout: np.ndarray) -> np.ndarray:
    """Grad of ``floor``, ``ceil``, ``round``, ``sign``: zeros."""
    return np.zeros(dout.shape, dtype=dout.dtype)


def scale_forward(x: np.ndarray, scale: float = 1.0, bias: float = 0.0, bias_after_scale: bool = True) -> np.ndarray:
    """Paddle ``scale``: scale * x + bias if bias_after_scale else scale * (x + bias)."""
    return U.forward(U.SCALE, x, scale, bias, 1.0 if bias_after_scale else 0.0)


def scale_backward(dout: np.ndarray, scale: float = 1.0) -> np.ndarray:
    """Paddle's grad of ``scale`` (a ``scale`` op with bias 0): dx = scale * dout."""
    return U.backward(U.SCALE, dout, dout, scale)


def clip_forward(x: np.ndarray, min: float, max: float) -> np.ndarray:  # noqa: A002 - Paddle's attribute names
    """Paddle ``clip``: x < min ? min : x > max ? max : x."""
    if min > max:
        raise ValueError(f"max should be greater than or equal to min. But received min = {min}, max = {max}")
    return U.forward(U.CLIP, x, min, max)


def clip_backward(x: np.ndarray, dout: np.ndarray, min: float, max: float) -> np.ndarray:  # noqa: A002
    """Paddle ``clip_grad`` (reads X): dout where min < x < max (strict: 0 at x == min or x == max)."""
    return U.backward(U.CLIP, x, dout, min, max)


def cast_forward(x: np.ndarray, out_dtype) -> np.ndarray:
    """Paddle ``cast``: static_cast to ``out_dtype`` (floats to ints truncate; nonzero to bool is True)."""
    return x.astype(out_dtype)


def cast_backward(dout: np.ndarray, in_dtype) -> np.ndarray:
    """Paddle ``cast_grad``: cast the gradient back to the input's dtype."""
    return dout.astype(in_dtype)


# ----------------------------------------------------------------------------------------------------------
# log1p and erf: loops of their own (the opcode table above is shared by many ops; these were added later).
# Both compute in float64 and round once to the input dtype, as Paddle 2.x's std::log1p / std::erf do.
# (Paddle 1.8's log1p was log(1 + x) in the input dtype: log1p(1e-8) gave 0 in float32; this gives 1e-8.)
# Gradients read X: log1p: dout / (1 + x); erf: dout * 2 / sqrt(pi) * exp(-x * x).
# ----------------------------------------------------------------------------------------------------------

@_jit
def _log1p_loop(x, out):
    for i in range(x.size):
        out[i] = math.log1p(np.float64(x[i]))


@_jit
def _log1p_grad_loop(x, dout, dx):
    for i in range(x.size):
        dx[i] = dout[i] / (1.0 + np.float64(x[i]))


@_jit
def _erf_loop(x, out):
    for i in range(x.size):
        out[i] = math.erf(np.float64(x[i]))


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


@_jit
def _erf_grad_loop(x, dout, dx):
    for i in range(x.size):
        v = np.float64(x[i])
        dx[i] = dout[i] * _TWO_OVER_SQRT_PI * math.exp(-v * v)


def _elementwise(loop, x: np.ndarray) -> np.ndarray:
    out = np.empty(x.shape, dtype=x.dtype)
    if out.size:
        loop(np.ascontiguousarray(x).ravel(), out.reshape(-1))
    return out


def _elementwise_grad(loop, x: np.ndarray, dout: np.ndarray) -> np.ndarray:
    if x.shape != dout.shape:
        raise ValueError('Out@GRAD shape %s does not match the input shape %s' % (list(dout.shape), list(x.shape)))
    dx = np.empty(dout.shape, dtype=dout.dtype)
    if dx.size:
        loop(np.ascontiguousarray(x).ravel(), np.ascontiguousarray(dout).ravel(), dx.reshape(-1))
    return dx


def log1p_forward(x: np.ndarray) -> np.ndarray:
    """Paddle op ``log1p``: log(1 + x), accurate for small x."""
    return _elementwise(_log1p_loop, x)


def log1p_backward(x: np.ndarray, dout: np.ndarray) -> np.ndarray:
    return _elementwise_grad(_log1p_grad_loop, x, dout)


def erf_forward(x: np.ndarray) -> np.ndarray:
    """Paddle op ``erf``: the error function."""
    return _elementwise(_erf_loop, x)


def erf_backward(x: np.ndarray, dout: np.ndarray) -> np.ndarray:
    return _elementwise_grad(_erf_grad_loop, x, dout)


__all__ += ["log1p_forward", "log1p_backward", "erf_forward", "erf_backward"]
