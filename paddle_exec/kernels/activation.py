"""Unary kernels: Paddle's activation ops, ``scale``, ``clip`` and ``cast``, forward and backward.

Each op is an integer opcode for two jitted loops (`_act_forward_loop`, `_act_backward_loop`), compiled lazily
per dtype. The frequent cheap ops have loops of their own (so LLVM vectorizes them); the others go through a
per-element scalar function. Formulas are Paddle's (``activation_op.h``, ``gelu_op.h``, ``clip_op.h``,
``scale_op.h``); the grad kernels take what Paddle's grad op takes (`GRAD_DEPENDENCY`):

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
from numba import types
from numba.extending import overload

from .jit import kernel_jit

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

(RELU, SIGMOID, TANH, GELU, LEAKY_RELU, EXP, LOG, SQRT, RSQRT, ABS, SQUARE, SOFTPLUS, SOFTSIGN, RELU6, ELU,
 HARD_SIGMOID, SWISH, SILU, LOGSIGMOID, RECIPROCAL, HARD_SWISH, HARD_SHRINK, SOFTSHRINK, TANH_SHRINK,
 THRESHOLDED_RELU, BRELU, SIN, COS, POW, STANH, MISH, SELU, FLOOR, CEIL, ROUND, SIGN, SCALE, CLIP) = range(38)

# Which forward tensor each grad kernel reads (Paddle's FwdDeps): "x", "out" or "none".
GRAD_DEPENDENCY = {
    "relu": "out", "sigmoid": "out", "tanh": "out", "exp": "out", "sqrt": "out", "rsqrt": "out",
    "reciprocal": "out", "relu6": "out", "hard_sigmoid": "out", "selu": "out",
    "gelu": "x", "leaky_relu": "x", "log": "x", "abs": "x", "square": "x", "softplus": "x", "softsign": "x",
    "elu": "x", "swish": "x", "silu": "x", "logsigmoid": "x", "hard_swish": "x", "hard_shrink": "x",
    "softshrink": "x", "tanh_shrink": "x", "thresholded_relu": "x", "brelu": "x", "sin": "x", "cos": "x",
    "pow": "x", "stanh": "x", "mish": "x", "clip": "x",
    "scale": "none", "floor": "none", "ceil": "none", "round": "none", "sign": "none",
}

_SQRT1_2 = 0.70710678118654752440          # M_SQRT1_2
_GELU_K = 0.5 * 1.12837916709551257390 * _SQRT1_2   # 0.5 * M_2_SQRTPI * M_SQRT1_2 = 1/sqrt(2*pi)
_GELU_ALPHA = 1.12837916709551257390 * _SQRT1_2     # M_2_SQRTPI * M_SQRT1_2 = sqrt(2/pi)
_GELU_C = 0.044715


def _tanh(v):  # pragma: no cover - replaced by the overload inside jitted code
    raise NotImplementedError


@overload(_tanh)
def _tanh_impl(v):
    if v == types.float32:
        # Eigen's generic_fast_tanh_float, which Paddle's CPU kernels use for float32 (a 13/6-degree rational
        # function, accurate to a couple of ulps). Unlike libm's tanhf it vectorizes: ~7x faster here.
        def impl(v):
            x = min(max(v, np.float32(-9.0)), np.float32(9.0))
            x2 = x * x
            p = x2 * np.float32(-2.76076847742355e-16) + np.float32(2.00018790482477e-13)
            p = x2 * p + np.float32(-8.60467152213735e-11)
            p = x2 * p + np.float32(5.12229709037114e-08)
            p = x2 * p + np.float32(1.48572235717979e-05)
            p = x2 * p + np.float32(6.37261928875436e-04)
            p = x2 * p + np.float32(4.89352455891786e-03)
            p = x * p
            q = x2 * np.float32(1.19825839466702e-06) + np.float32(1.18534705686654e-04)
            q = x2 * q + np.float32(2.26843463243900e-03)
            q = x2 * q + np.float32(4.89352518554385e-03)
            return p / q
        return impl

    def impl_f(v):
        return math.tanh(v)
    return impl_f


@_jit
def _round_half_away(v):
    """std::round: halves go away from zero (numpy/Python round to even)."""
    t = math.trunc(v)
    if abs(v - t) >= 0.5:
        t += 1.0 if v > 0 else -1.0
    return t


@_jit
def _fwd_scalar(op, v, a, b, c):
    if op == SIGMOID:
        return 1.0 / (1.0 + math.exp(-v))
    elif op == TANH:
        return _tanh(v)
    elif op == GELU:
        if a != 0:  # approximate=True
            return v * 0.5 * (1.0 + math.tanh(_GELU_ALPHA * (v + _GELU_C * v * v * v)))
        return v * 0.5 * (1.0 + math.erf(v * _SQRT1_2))
    elif op == EXP:
        return math.exp(v)
    elif op == LOG:
        return math.log(v)
    elif op == SQRT:
        return math.sqrt(v)
    elif op == RSQRT:
        return 1.0 / math.sqrt(v)
    elif op == SOFTPLUS:  # a = beta, b = threshold (Paddle 2.x; 1.8 is beta=1 without threshold)
        xb = v * a
        return v if xb > b else math.log1p(math.exp(xb)) / a
    elif op == SOFTSIGN:
        return v / (1.0 + abs(v))
    elif op == ELU:  # max(x, 0) + min(alpha * (exp(x) - 1), 0)
        return max(v, 0.0) + min(a * (math.exp(v) - 1.0), 0.0)
    elif op == HARD_SIGMOID:  # a = slope, b = offset
        return min(max(v * a + b, 0.0), 1.0)
    elif op == SWISH:
        return v / (1.0 + math.exp(-a * v))
    elif op == SILU:
        return v / (1.0 + math.exp(-v))
    elif op == LOGSIGMOID:
        t = max(-v, 0.0)
        return -t - math.log(math.exp(-t) + math.exp(-v - t))
    elif op == RECIPROCAL:
        return 1.0 / v
    elif op == HARD_SWISH:  # a = threshold, b = scale, c = offset
        return min(max(v + c, 0.0), a) * v / b
    elif op == HARD_SHRINK:
        return v if (v < -a or v > a) else 0.0
    elif op == SOFTSHRINK:
        if v > a:
            return v - a
        elif v < -a:
            return v + a
        return 0.0
    elif op == TANH_SHRINK:
        return v - math.tanh(v)
    elif op == THRESHOLDED_RELU:
        return v if v > a else 0.0
    elif op == BRELU:  # a = t_min, b = t_max
        return min(max(v, a), b)
    elif op == SIN:
        return math.sin(v)
    elif op == COS:
        return math.cos(v)
    elif op == POW:
        return v ** a
    elif op == STANH:  # a = scale_a, b = scale_b
        return b * math.tanh(a * v)
    elif op == MISH:  # a = threshold
        sp = v if v > a else math.log1p(math.exp(v))
        return v * math.tanh(sp)
    elif op == SELU:  # a = scale, b = alpha
        return a * v if v > 0 else a * (b * math.exp(v) - b)
    elif op == FLOOR:
        return math.floor(v)
    elif op == CEIL:
        return math.ceil(v)
    elif op == ROUND:
        return _round_half_away(v)
    else:  # SIGN
        return (v > 0) - (v < 0)


@_jit
def _bwd_scalar(op, v, o, d, a, b, c):
    """dX for one element; ``v`` is X and ``o`` is Out (only the one the op depends on is meaningful)."""
    if op == SIGMOID:
        return d * o * (1.0 - o)
    elif op == TANH:
        return d * (1.0 - o * o)
    elif op == GELU:
        if a != 0:
            kb = _GELU_ALPHA * _GELU_C * 3.0
            x2 = v * v
            t = math.tanh(_GELU_ALPHA * (_GELU_C * x2 * v + v))
            return 0.5 * d * (1.0 + t + (v - v * t * t) * (_GELU_ALPHA + kb * x2))
        first = 0.5 * (1.0 + math.erf(v * _SQRT1_2))
        second = _GELU_K * v * math.exp(-0.5 * v * v)
        return d * (first + second)
    elif op == EXP:
        return d * o
    elif op == LOG:
        return d * (1.0 / v)
    elif op == SQRT:
        return 0.5 * d / o
    elif op == RSQRT:
        return -0.5 * d * o * o * o
    elif op == ABS:
        return d * ((v > 0) - (v < 0))
    elif op == SOFTPLUS:
        xb = v * a
        if xb > b:
            return d
        e = math.exp(xb)
        return d * e / (1.0 + e)
    elif op == SOFTSIGN:
        t = 1.0 + abs(v)
        return d / (t * t)
    elif op == RELU6:
        return d if (o > 0 and o < a) else 0.0
    elif op == ELU:  # Paddle 2.x ELUGradFunctor (also covers alpha <= 0)
        if a > 0:
            return d if v > 0 else d * a * math.exp(v)
        return d * (1.0 + a * math.exp(v)) if v > 0 else 0.0
    elif op == HARD_SIGMOID:
        return d * a if (o > 0 and o < 1) else 0.0
    elif op == SWISH:
        t1 = 1.0 / (1.0 + math.exp(-a * v))
        out = v * t1
        return d * (a * out + t1 * (1.0 - a * out))
    elif op == SILU:
        s = 1.0 / (1.0 + math.exp(-v))
        return d * s * (1.0 + v * (1.0 - s))
    elif op == LOGSIGMOID:
        t = max(-v, 0.0)
        e = math.exp(-v - t)
        return d * e / (math.exp(-t) + e)
    elif op == RECIPROCAL:
        return -d * o * o
    elif op == HARD_SWISH:
        t = v + c
        if t >= a:
            return d
        return d * (2.0 * v + c) / b if t > 0 else 0.0
    elif op == HARD_SHRINK:
        return d if (v < -a or v > a) else 0.0
    elif op == SOFTSHRINK:
        return d if (v > a or v < -a) else 0.0
    elif op == TANH_SHRINK:
        t = math.tanh(v)
        return d * t * t
    elif op == THRESHOLDED_RELU:
        return d if v > a else 0.0
    elif op == BRELU:
        return d if (v > a and v < b) else 0.0
    elif op == SIN:
        return d * math.cos(v)
    elif op == COS:
        return -d * math.sin(v)
    elif op == POW:
        return d * a * v ** (a - 1.0)
    elif op == STANH:
        t = math.tanh(a * v)
        return d * a * b * (1.0 - t * t)
    elif op == MISH:
        sp = v if v > a else math.log1p(math.exp(v))
        tsp = math.tanh(sp)
        return d * (tsp + v * (1.0 - tsp * tsp) * (1.0 - math.exp(-sp)))
    elif op == SELU:
        return d * (o + a * b) if o <= 0 else d * a
    elif op == CLIP:
        return d if (v > a and v < b) else 0.0
    else:  # FLOOR, CEIL, ROUND, SIGN
        return 0.0


@_jit
def _act_forward_loop(op, x, out, a, b, c):
    n = x.shape[0]
    if op == RELU:
        for i in range(n):
            v = x[i]
            out[i] = v if v > 0 else 0
    elif op == LEAKY_RELU:  # Paddle: alpha < 1 ? max(x, alpha*x) : min(x, alpha*x), i.e. x >= 0 ? x : alpha*x
        for i in range(n):
            v = x[i]
            out[i] = v if v >= 0 else a * v
    elif op == SQUARE:
        for i in range(n):
            out[i] = x[i] * x[i]
    elif op == ABS:
        for i in range(n):
            out[i] = abs(x[i])
    elif op == RELU6:
        for i in range(n):
            v = x[i]
            v = v if v > 0 else 0
            out[i] = v if v < a else a
    elif op == SCALE:  # c != 0: bias after scale
        if c != 0:
            for i in range(n):
                out[i] = a * x[i] + b
        else:
            for i in range(n):
                out[i] = a * (x[i] + b)
    elif op == CLIP:  # Paddle: x < min ? min : x > max ? max : x
        for i in range(n):
            v = x[i]
            out[i] = a if v < a else (b if v > b else v)
    elif op == SIGMOID:
        for i in range(n):
            out[i] = 1 / (1 + math.exp(-x[i]))
    elif op == TANH:
        for i in range(n):
            out[i] = _tanh(x[i])
    elif op == EXP:
        for i in range(n):
            out[i] = math.exp(x[i])
    else:
        for i in range(n):
            out[i] = _fwd_scalar(op, x[i], a, b, c)


@_jit
def _act_backward_loop(op, x, out, dout, dx, a, b, c):
    n = dout.shape[0]
    if op == RELU:
        for i in range(n):
            dx[i] = dout[i] if out[i] > 0 else 0
    elif op == SIGMOID:
        for i in range(n):
            o = out[i]
            dx[i] = dout[i] * o * (1 - o)
    elif op == TANH:
        for i in range(n):
            o = out[i]
            dx[i] = dout[i] * (1 - o * o)
    elif op == LEAKY_RELU:
        for i in range(n):
            dx[i] = dout[i] if x[i] >= 0 else a * dout[i]
    elif op == SQUARE:
        for i in range(n):
            dx[i] = dout[i] * 2 * x[i]
    elif op == SCALE:
        for i in range(n):
            dx[i] = a * dout[i]
    else:
        for i in range(n):
            dx[i] = _bwd_scalar(op, x[i], out[i], dout[i], a, b, c)


# ----------------------------------------------------------------------------------------------------------
# wrappers
# ----------------------------------------------------------------------------------------------------------

def _forward(op: int, x: np.ndarray, a: float = 0.0, b: float = 0.0, c: float = 0.0) -> np.ndarray:
    out = np.empty(x.shape, dtype=x.dtype)
    if out.size:
        t = x.dtype.type
        _act_forward_loop(op, x.ravel(), out.reshape(-1), t(a), t(b), t(c))
    return out


def _backward(op: int, dep: np.ndarray, dout: np.ndarray, a: float = 0.0, b: float = 0.0,
              c: float = 0.0) -> np.ndarray:
    """``dep`` is whatever the op's grad reads (X or Out); it is passed to the loop in both slots."""
    dx = np.empty(dout.shape, dtype=dout.dtype)
    if dx.size:
        if dep.shape != dout.shape:
            raise ValueError(f"Out@GRAD shape {list(dout.shape)} does not match the input shape {list(dep.shape)}")
        t = dout.dtype.type
        flat = dep.ravel() if dep.dtype == dout.dtype else dep.astype(dout.dtype).ravel()
        _act_backward_loop(op, flat, flat, dout.ravel(), dx.reshape(-1), t(a), t(b), t(c))
    return dx


def relu_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``relu``: out = max(x, 0)."""
    return _forward(RELU, x)


def relu_backward(out: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``relu_grad`` (reads Out): dx = dout * (out > 0)."""
    return _backward(RELU, out, dout)


def sigmoid_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``sigmoid``: out = 1 / (1 + exp(-x))."""
    return _forward(SIGMOID, x)


def sigmoid_backward(out: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``sigmoid_grad`` (reads Out): dx = dout * out * (1 - out)."""
    return _backward(SIGMOID, out, dout)


def tanh_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``tanh``."""
    return _forward(TANH, x)


def tanh_backward(out: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``tanh_grad`` (reads Out): dx = dout * (1 - out^2)."""
    return _backward(TANH, out, dout)


def gelu_forward(x: np.ndarray, approximate: bool = False) -> np.ndarray:
    """Paddle ``gelu``: 0.5 x (1 + erf(x / sqrt 2)); approximate: 0.5 x (1 + tanh(sqrt(2/pi)(x + 0.044715 x^3)))."""
    return _forward(GELU, x, 1.0 if approximate else 0.0)


def gelu_backward(x: np.ndarray, dout: np.ndarray, approximate: bool = False) -> np.ndarray:
    """Paddle ``gelu_grad`` (reads X)."""
    return _backward(GELU, x, dout, 1.0 if approximate else 0.0)


def leaky_relu_forward(x: np.ndarray, alpha: float = 0.02) -> np.ndarray:
    """Paddle ``leaky_relu``: x >= 0 ? x : alpha * x (op default alpha 0.02; paddle 2.x API passes 0.01)."""
    return _forward(LEAKY_RELU, x, alpha)


def leaky_relu_backward(x: np.ndarray, dout: np.ndarray, alpha: float = 0.02) -> np.ndarray:
    """Paddle ``leaky_relu_grad`` (reads X): dx = x >= 0 ? dout : alpha * dout."""
    return _backward(LEAKY_RELU, x, dout, alpha)


def exp_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``exp``."""
    return _forward(EXP, x)


def exp_backward(out: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``exp_grad`` (reads Out): dx = dout * out."""
    return _backward(EXP, out, dout)


def log_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``log`` (natural)."""
    return _forward(LOG, x)


def log_backward(x: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``log_grad`` (reads X): dx = dout / x."""
    return _backward(LOG, x, dout)


def sqrt_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``sqrt``."""
    return _forward(SQRT, x)


def sqrt_backward(out: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``sqrt_grad`` (reads Out): dx = 0.5 * dout / out."""
    return _backward(SQRT, out, dout)


def rsqrt_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``rsqrt``: out = 1 / sqrt(x)."""
    return _forward(RSQRT, x)


def rsqrt_backward(out: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``rsqrt_grad`` (reads Out): dx = -0.5 * dout * out^3."""
    return _backward(RSQRT, out, dout)


def abs_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``abs``."""
    return _forward(ABS, x)


def abs_backward(x: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``abs_grad`` (reads X): dx = dout * sign(x) (0 at x = 0)."""
    return _backward(ABS, x, dout)


def square_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``square``."""
    return _forward(SQUARE, x)


def square_backward(x: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``square_grad`` (reads X): dx = 2 * x * dout."""
    return _backward(SQUARE, x, dout)


def softplus_forward(x: np.ndarray, beta: float = 1.0, threshold: float = 20.0) -> np.ndarray:
    """Paddle ``softplus``: beta*x > threshold ? x : log(1 + exp(beta*x)) / beta."""
    return _forward(SOFTPLUS, x, beta, threshold)


def softplus_backward(x: np.ndarray, dout: np.ndarray, beta: float = 1.0, threshold: float = 20.0) -> np.ndarray:
    """Paddle ``softplus_grad`` (reads X): dout * sigmoid(beta*x), or dout above the threshold."""
    return _backward(SOFTPLUS, x, dout, beta, threshold)


def softsign_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``softsign``: x / (1 + |x|)."""
    return _forward(SOFTSIGN, x)


def softsign_backward(x: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``softsign_grad`` (reads X): dout / (1 + |x|)^2."""
    return _backward(SOFTSIGN, x, dout)


def relu6_forward(x: np.ndarray, threshold: float = 6.0) -> np.ndarray:
    """Paddle ``relu6``: min(max(x, 0), threshold)."""
    return _forward(RELU6, x, threshold)


def relu6_backward(out: np.ndarray, dout: np.ndarray, threshold: float = 6.0) -> np.ndarray:
    """Paddle ``relu6_grad`` (reads Out): dout where 0 < out < threshold."""
    return _backward(RELU6, out, dout, threshold)


def elu_forward(x: np.ndarray, alpha: float = 1.0) -> np.ndarray:
    """Paddle ``elu``: max(x, 0) + min(alpha * (exp(x) - 1), 0)."""
    return _forward(ELU, x, alpha)


def elu_backward(x: np.ndarray, dout: np.ndarray, alpha: float = 1.0) -> np.ndarray:
    """Paddle ``elu_grad`` (reads X, 2.x rule): alpha > 0: x > 0 ? dout : dout * alpha * exp(x)."""
    return _backward(ELU, x, dout, alpha)


def hard_sigmoid_forward(x: np.ndarray, slope: float = 0.2, offset: float = 0.5) -> np.ndarray:
    """Paddle ``hard_sigmoid``: clip(slope * x + offset, 0, 1) (op defaults; F.hardsigmoid uses 1/6, 0.5)."""
    return _forward(HARD_SIGMOID, x, slope, offset)


def hard_sigmoid_backward(out: np.ndarray, dout: np.ndarray, slope: float = 0.2, offset: float = 0.5) -> np.ndarray:
    """Paddle ``hard_sigmoid_grad`` (reads Out): dout * slope where 0 < out < 1."""
    return _backward(HARD_SIGMOID, out, dout, slope, offset)


def swish_forward(x: np.ndarray, beta: float = 1.0) -> np.ndarray:
    """Paddle ``swish``: x / (1 + exp(-beta * x))."""
    return _forward(SWISH, x, beta)


def swish_backward(x: np.ndarray, dout: np.ndarray, beta: float = 1.0) -> np.ndarray:
    """Paddle ``swish_grad`` (reads X)."""
    return _backward(SWISH, x, dout, beta)


def silu_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``silu``: x * sigmoid(x)."""
    return _forward(SILU, x)


def silu_backward(x: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``silu_grad`` (reads X): dout * s * (1 + x * (1 - s)), s = sigmoid(x)."""
    return _backward(SILU, x, dout)


def logsigmoid_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``logsigmoid``: -log(1 + exp(-x)), computed with the max(-x, 0) shift."""
    return _forward(LOGSIGMOID, x)


def logsigmoid_backward(x: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``logsigmoid_grad`` (reads X): dout * sigmoid(-x)."""
    return _backward(LOGSIGMOID, x, dout)


def reciprocal_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``reciprocal``: 1 / x."""
    return _forward(RECIPROCAL, x)


def reciprocal_backward(out: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``reciprocal_grad`` (reads Out): -dout * out^2."""
    return _backward(RECIPROCAL, out, dout)


def hard_swish_forward(x: np.ndarray, threshold: float = 6.0, scale: float = 6.0, offset: float = 3.0) -> np.ndarray:
    """Paddle ``hard_swish``: min(max(x + offset, 0), threshold) * x / scale."""
    return _forward(HARD_SWISH, x, threshold, scale, offset)


def hard_swish_backward(x: np.ndarray, dout: np.ndarray, threshold: float = 6.0, scale: float = 6.0,
                        offset: float = 3.0) -> np.ndarray:
    """Paddle ``hard_swish_grad`` (reads X): 0 / (2x + offset) / scale / 1 on the three pieces."""
    return _backward(HARD_SWISH, x, dout, threshold, scale, offset)


def hard_shrink_forward(x: np.ndarray, threshold: float = 0.5) -> np.ndarray:
    """Paddle ``hard_shrink``: x where |x| > threshold, else 0."""
    return _forward(HARD_SHRINK, x, threshold)


def hard_shrink_backward(x: np.ndarray, dout: np.ndarray, threshold: float = 0.5) -> np.ndarray:
    """Paddle ``hard_shrink_grad`` (reads X)."""
    return _backward(HARD_SHRINK, x, dout, threshold)


def softshrink_forward(x: np.ndarray, lambda_: float = 0.5) -> np.ndarray:
    """Paddle ``softshrink``: x - lambda (x > lambda), x + lambda (x < -lambda), else 0."""
    return _forward(SOFTSHRINK, x, lambda_)


def softshrink_backward(x: np.ndarray, dout: np.ndarray, lambda_: float = 0.5) -> np.ndarray:
    """Paddle ``softshrink_grad`` (reads X)."""
    return _backward(SOFTSHRINK, x, dout, lambda_)


def tanh_shrink_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``tanh_shrink``: x - tanh(x)."""
    return _forward(TANH_SHRINK, x)


def tanh_shrink_backward(x: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``tanh_shrink_grad`` (reads X): dout * tanh(x)^2."""
    return _backward(TANH_SHRINK, x, dout)


def thresholded_relu_forward(x: np.ndarray, threshold: float = 1.0) -> np.ndarray:
    """Paddle ``thresholded_relu``: x > threshold ? x : 0."""
    return _forward(THRESHOLDED_RELU, x, threshold)


def thresholded_relu_backward(x: np.ndarray, dout: np.ndarray, threshold: float = 1.0) -> np.ndarray:
    """Paddle ``thresholded_relu_grad`` (reads X)."""
    return _backward(THRESHOLDED_RELU, x, dout, threshold)


def brelu_forward(x: np.ndarray, t_min: float = 0.0, t_max: float = 24.0) -> np.ndarray:
    """Paddle ``brelu`` (2.x ``hardtanh`` with t_min=-1, t_max=1): min(max(x, t_min), t_max)."""
    return _forward(BRELU, x, t_min, t_max)


def brelu_backward(x: np.ndarray, dout: np.ndarray, t_min: float = 0.0, t_max: float = 24.0) -> np.ndarray:
    """Paddle ``brelu_grad`` (reads X): dout where t_min < x < t_max."""
    return _backward(BRELU, x, dout, t_min, t_max)


def sin_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``sin``."""
    return _forward(SIN, x)


def sin_backward(x: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``sin_grad`` (reads X): dout * cos(x)."""
    return _backward(SIN, x, dout)


def cos_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``cos``."""
    return _forward(COS, x)


def cos_backward(x: np.ndarray, dout: np.ndarray) -> np.ndarray:
    """Paddle ``cos_grad`` (reads X): -dout * sin(x)."""
    return _backward(COS, x, dout)


def pow_forward(x: np.ndarray, factor: float = 1.0) -> np.ndarray:
    """Paddle ``pow`` (activation with a scalar ``factor``): x^factor."""
    return _forward(POW, x, factor)


def pow_backward(x: np.ndarray, dout: np.ndarray, factor: float = 1.0) -> np.ndarray:
    """Paddle ``pow_grad`` (reads X): dout * factor * x^(factor - 1)."""
    return _backward(POW, x, dout, factor)


def stanh_forward(x: np.ndarray, scale_a: float = 0.67, scale_b: float = 1.7159) -> np.ndarray:
    """Paddle ``stanh``: scale_b * tanh(scale_a * x)."""
    return _forward(STANH, x, scale_a, scale_b)


def stanh_backward(x: np.ndarray, dout: np.ndarray, scale_a: float = 0.67, scale_b: float = 1.7159) -> np.ndarray:
    """Paddle ``stanh_grad`` (reads X)."""
    return _backward(STANH, x, dout, scale_a, scale_b)


def mish_forward(x: np.ndarray, threshold: float = 20.0) -> np.ndarray:
    """Paddle ``mish``: x * tanh(softplus(x)), softplus(x) = x above ``threshold``."""
    return _forward(MISH, x, threshold)


def mish_backward(x: np.ndarray, dout: np.ndarray, threshold: float = 20.0) -> np.ndarray:
    """Paddle ``mish_grad`` (reads X)."""
    return _backward(MISH, x, dout, threshold)


_SELU_SCALE = 1.0507009873554804934193349852946
_SELU_ALPHA = 1.6732632423543772848170429916717


def selu_forward(x: np.ndarray, scale: float = _SELU_SCALE, alpha: float = _SELU_ALPHA) -> np.ndarray:
    """Paddle ``selu``: scale * (x > 0 ? x : alpha * exp(x) - alpha)."""
    return _forward(SELU, x, scale, alpha)


def selu_backward(out: np.ndarray, dout: np.ndarray, scale: float = _SELU_SCALE,
                  alpha: float = _SELU_ALPHA) -> np.ndarray:
    """Paddle ``selu_grad`` (reads Out): out <= 0 ? dout * (out + alpha * scale) : dout * scale."""
    return _backward(SELU, out, dout, scale, alpha)


def floor_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``floor`` (gradient: `zero_grad_backward`)."""
    return _forward(FLOOR, x)


def ceil_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``ceil`` (gradient: `zero_grad_backward`)."""
    return _forward(CEIL, x)


def round_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``round``: halves away from zero (std::round; numpy rounds halves to even)."""
    return _forward(ROUND, x)


def sign_forward(x: np.ndarray) -> np.ndarray:
    """Paddle ``sign``: -1, 0 or 1."""
    return _forward(SIGN, x)


def zero_grad_backward(dout: np.ndarray) -> np.ndarray:
    """Grad of ``floor``, ``ceil``, ``round``, ``sign``: zeros."""
    return np.zeros(dout.shape, dtype=dout.dtype)


def scale_forward(x: np.ndarray, scale: float = 1.0, bias: float = 0.0, bias_after_scale: bool = True) -> np.ndarray:
    """Paddle ``scale``: scale * x + bias if bias_after_scale else scale * (x + bias)."""
    return _forward(SCALE, x, scale, bias, 1.0 if bias_after_scale else 0.0)


def scale_backward(dout: np.ndarray, scale: float = 1.0) -> np.ndarray:
    """Paddle's grad of ``scale`` (a ``scale`` op with bias 0): dx = scale * dout."""
    return _backward(SCALE, dout, dout, scale)


def clip_forward(x: np.ndarray, min: float, max: float) -> np.ndarray:  # noqa: A002 - Paddle's attribute names
    """Paddle ``clip``: x < min ? min : x > max ? max : x."""
    if min > max:
        raise ValueError(f"max should be greater than or equal to min. But received min = {min}, max = {max}")
    return _forward(CLIP, x, min, max)


def clip_backward(x: np.ndarray, dout: np.ndarray, min: float, max: float) -> np.ndarray:  # noqa: A002
    """Paddle ``clip_grad`` (reads X): dout where min < x < max (strict: 0 at x == min or x == max)."""
    return _backward(CLIP, x, dout, min, max)


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
