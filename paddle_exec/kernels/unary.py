"""The unary kernel machine: each elementwise unary op is an integer opcode run by two jitted loops.

`forward_loop(op, x, out, a, b, c)` and `backward_loop(op, x, out, dout, dx, a, b, c)` walk flat arrays; `a, b, c`
are the op's attributes, already cast to the array's dtype. The math functions of Paddle 2.x (acos ... polygamma,
logit, soft_relu: opcodes from ACOS on) run in loops of their own (`math_forward_loop` / `math_backward_loop`,
`loops_for(op)` picks), so that the activations' loops stay small and compile fast; the special functions among
them are in special.py. The frequent cheap ops (relu, leaky_relu, square,
abs, relu6, scale, clip, sigmoid, tanh, exp) have loops of their own, so LLVM vectorizes them; the others go
through one per-element scalar function (`_fwd_scalar`, `_bwd_scalar`). Loops are compiled lazily per dtype.

`GRAD_DEPENDENCY` says which forward tensor each grad loop reads ("x", "out" or "none"), as Paddle's FwdDeps.
`forward` / `backward` make the output and call a loop once; kernels/activation.py names one entry point per op
on top of them, and ops/activation.py and ops/math.py call the loops directly with their opcodes (which is why
the opcodes are public). Formulas are Paddle's (``activation_op.h``, ``gelu_op.h``, ``clip_op.h``,
``scale_op.h``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import types
from numba.extending import overload

from .jit import kernel_jit
from .special import bessel_i0, bessel_i0e, bessel_i1, bessel_i1e, digamma, erfinv, polygamma

__all__ = [
    "GRAD_DEPENDENCY", "forward_loop", "backward_loop", "math_forward_loop", "math_backward_loop", "loops_for",
    "forward", "backward",
    "RELU", "SIGMOID", "TANH", "GELU", "LEAKY_RELU", "EXP", "LOG", "SQRT", "RSQRT", "ABS",
    "SQUARE", "SOFTPLUS", "SOFTSIGN", "RELU6", "ELU", "HARD_SIGMOID", "SWISH", "SILU", "LOGSIGMOID", "RECIPROCAL",
    "HARD_SWISH", "HARD_SHRINK", "SOFTSHRINK", "TANH_SHRINK", "THRESHOLDED_RELU", "BRELU", "SIN", "COS", "POW", "STANH",
    "MISH", "SELU", "FLOOR", "CEIL", "ROUND", "SIGN", "SCALE", "CLIP",
    "ACOS", "ASIN", "ATAN", "ACOSH", "ASINH", "ATANH", "COSH", "SINH", "TAN", "EXPM1", "LOG2", "LOG10", "TRUNC",
    "DIGAMMA", "LGAMMA", "ERFINV", "I0", "I0E", "I1", "I1E", "POLYGAMMA", "LOGIT", "SOFT_RELU",
]

_jit = kernel_jit(error_model="numpy")

(RELU, SIGMOID, TANH, GELU, LEAKY_RELU, EXP, LOG, SQRT, RSQRT, ABS, SQUARE, SOFTPLUS, SOFTSIGN, RELU6, ELU,
 HARD_SIGMOID, SWISH, SILU, LOGSIGMOID, RECIPROCAL, HARD_SWISH, HARD_SHRINK, SOFTSHRINK, TANH_SHRINK,
 THRESHOLDED_RELU, BRELU, SIN, COS, POW, STANH, MISH, SELU, FLOOR, CEIL, ROUND, SIGN, SCALE, CLIP) = range(38)
# the math functions of Paddle 2.x (trigonometric, hyperbolic, special): the scalar path, after the activations
(ACOS, ASIN, ATAN, ACOSH, ASINH, ATANH, COSH, SINH, TAN, EXPM1, LOG2, LOG10, TRUNC, DIGAMMA, LGAMMA, ERFINV,
 I0, I0E, I1, I1E, POLYGAMMA, LOGIT, SOFT_RELU) = range(38, 61)

# Which forward tensor each grad kernel reads (Paddle's FwdDeps): "x", "out" or "none".
GRAD_DEPENDENCY = {
    "relu": "out", "sigmoid": "out", "tanh": "out", "exp": "out", "sqrt": "out", "rsqrt": "out",
    "reciprocal": "out", "relu6": "out", "hard_sigmoid": "out", "selu": "out",
    "gelu": "x", "leaky_relu": "x", "log": "x", "abs": "x", "square": "x", "softplus": "x", "softsign": "x",
    "elu": "x", "swish": "x", "silu": "x", "logsigmoid": "x", "hard_swish": "x", "hard_shrink": "x",
    "softshrink": "x", "tanh_shrink": "x", "thresholded_relu": "x", "brelu": "x", "sin": "x", "cos": "x",
    "pow": "x", "stanh": "x", "mish": "x", "clip": "x",
    "scale": "none", "floor": "none", "ceil": "none", "round": "none", "sign": "none",
    "acos": "x", "asin": "x", "atan": "x", "acosh": "x", "asinh": "x", "atanh": "x", "cosh": "x", "sinh": "x",
    "tan": "x", "expm1": "out", "log2": "x", "log10": "x", "trunc": "none", "digamma": "x", "lgamma": "x",
    "erfinv": "out", "i0": "x", "i0e": "x", "i1": "x", "i1e": "x", "polygamma": "x", "logit": "x",
    "soft_relu": "out",
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
        return np.floor(v)   # math.floor is an int in numba: wrong for inf and nan
    elif op == CEIL:
        return np.ceil(v)
    elif op == ROUND:
        return _round_half_away(v)
    else:  # SIGN
        return (v > 0) - (v < 0)


_LN2 = 0.69314718055994530942
_LN10 = 2.30258509299404568402


@_jit
def _math_fwd(op, v, a):
    """The math functions (opcodes from ACOS on); `a` is polygamma's n, logit's eps, soft_relu's threshold."""
    if op == ACOS:
        return math.acos(v)
    elif op == ASIN:
        return math.asin(v)
    elif op == ATAN:
        return math.atan(v)
    elif op == ACOSH:
        return math.acosh(v)
    elif op == ASINH:
        return math.asinh(v)
    elif op == ATANH:
        return math.atanh(v)
    elif op == COSH:
        return math.cosh(v)
    elif op == SINH:
        return math.sinh(v)
    elif op == TAN:
        return math.tan(v)
    elif op == EXPM1:
        return math.expm1(v)
    elif op == LOG2:
        return math.log2(v)
    elif op == LOG10:
        return math.log10(v)
    elif op == TRUNC:
        return np.trunc(v)
    elif op == DIGAMMA:
        return digamma(v)
    elif op == LGAMMA:
        return math.lgamma(v)
    elif op == ERFINV:
        return erfinv(v)
    elif op == I0:
        return bessel_i0(v)
    elif op == I0E:
        return bessel_i0e(v)
    elif op == I1:
        return bessel_i1(v)
    elif op == I1E:
        return bessel_i1e(v)
    elif op == POLYGAMMA:
        return polygamma(int(a), v)
    elif op == LOGIT:  # Paddle: x clipped to [eps, 1 - eps] when eps > 0
        if a > 0:
            v = min(max(v, a), 1.0 - a)
        return math.log(v / (1.0 - v))
    else:  # SOFT_RELU (fluid 1.8): log(1 + exp(clip(x, -threshold, threshold)))
        return math.log1p(math.exp(min(max(v, -a), a)))


@_jit
def _math_bwd(op, v, o, d, a):
    """dX of the math functions; `v` is X or Out as GRAD_DEPENDENCY says."""
    if op == ACOS:
        return -d / math.sqrt(1.0 - v * v)
    elif op == ASIN:
        return d / math.sqrt(1.0 - v * v)
    elif op == ATAN:
        return d / (1.0 + v * v)
    elif op == ACOSH:
        return d / math.sqrt(v * v - 1.0)
    elif op == ASINH:
        return d / math.sqrt(v * v + 1.0)
    elif op == ATANH:
        return d / (1.0 - v * v)
    elif op == COSH:
        return d * math.sinh(v)
    elif op == SINH:
        return d * math.cosh(v)
    elif op == TAN:
        c = math.cos(v)
        return d / (c * c)
    elif op == EXPM1:
        return d * (o + 1.0)
    elif op == LOG2:
        return d / (v * _LN2)
    elif op == LOG10:
        return d / (v * _LN10)
    elif op == DIGAMMA:
        return d * polygamma(1, v)
    elif op == LGAMMA:
        return d * digamma(v)
    elif op == ERFINV:  # d erfinv(y) / dy = sqrt(pi) / 2 * exp(erfinv(y)^2)
        return d * 0.88622692545275801365 * math.exp(o * o)
    elif op == I0:
        return d * bessel_i1(v)
    elif op == I0E:
        return d * (bessel_i1e(v) - ((v > 0) - (v < 0)) * bessel_i0e(v))
    elif op == I1:
        if v == 0:
            return 0.5 * d
        return d * (bessel_i0(v) - bessel_i1(v) / v)
    elif op == I1E:
        if v == 0:
            return 0.5 * d
        return d * (bessel_i0e(v) - bessel_i1e(v) * (((v > 0) - (v < 0)) + 1.0 / v))
    elif op == POLYGAMMA:
        return d * polygamma(int(a) + 1, v)
    elif op == LOGIT:
        if a > 0 and (v < a or v > 1.0 - a):
            return 0.0
        return d / (v * (1.0 - v))
    elif op == SOFT_RELU:
        return d * (1.0 - math.exp(-o)) if (o > -a and o < a) else 0.0
    else:  # TRUNC
        return 0.0


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
def forward_loop(op, x, out, a, b, c):
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
def backward_loop(op, x, out, dout, dx, a, b, c):
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


@_jit
def math_forward_loop(op, x, out, a, b, c):
    """forward_loop of the math opcodes (ACOS on): a loop of its own, so that the special functions are compiled
    only when a program uses them, not with every activation."""
    for i in range(x.shape[0]):
        out[i] = _math_fwd(op, x[i], a)


@_jit
def math_backward_loop(op, x, out, dout, dx, a, b, c):
    for i in range(dout.shape[0]):
        dx[i] = _math_bwd(op, x[i], out[i], dout[i], a)


def loops_for(op: int):
    """(forward loop, backward loop) that run opcode `op`."""
    return (math_forward_loop, math_backward_loop) if op >= ACOS else (forward_loop, backward_loop)


# ----------------------------------------------------------------------------------------------------------
# one call of a loop on whole arrays
# ----------------------------------------------------------------------------------------------------------

def forward(op: int, x: np.ndarray, a: float = 0.0, b: float = 0.0, c: float = 0.0) -> np.ndarray:
    out = np.empty(x.shape, dtype=x.dtype)
    if out.size:
        t = x.dtype.type
        loops_for(op)[0](op, x.ravel(), out.reshape(-1), t(a), t(b), t(c))
    return out


def backward(op: int, dep: np.ndarray, dout: np.ndarray, a: float = 0.0, b: float = 0.0,
              c: float = 0.0) -> np.ndarray:
    """``dep`` is whatever the op's grad reads (X or Out); it is passed to the loop in both slots."""
    dx = np.empty(dout.shape, dtype=dout.dtype)
    if dx.size:
        if dep.shape != dout.shape:
            raise ValueError(f"Out@GRAD shape {list(dout.shape)} does not match the input shape {list(dep.shape)}")
        t = dout.dtype.type
        flat = dep.ravel() if dep.dtype == dout.dtype else dep.astype(dout.dtype).ravel()
        loops_for(op)[1](op, flat, flat, dout.ravel(), dx.reshape(-1), t(a), t(b), t(c))
    return dx
