"""Special functions as jitted scalar functions: digamma, the Hurwitz zeta and polygamma, erfinv, and the modified
Bessel functions I0, I1 and their exponentially scaled forms. The unary opcode machine (unary.py) calls them per
element; they work in float64 whatever the array's dtype (the loops cast the result back), which keeps float32
results within an ulp of Paddle's Eigen / Cephes kernels.

Methods (no table of fitted coefficients to get wrong):
    digamma(x)      reflection psi(1-x) - pi/tan(pi x) for x < 0.5, recurrence up to x >= 10, then the
                    asymptotic series log x - 1/2x - sum B_2k / (2k x^2k); poles (0, -1, ...) give nan, as Paddle
    zeta(s, q)      Cephes' Euler-Maclaurin summation (the 12 coefficients are (2k)! / B_2k)
    polygamma(n,x)  (-1)^(n+1) n! zeta(n+1, x) for n >= 1, digamma for n = 0
    erfinv(y)       Giles' approximation, then two Newton steps on erf (double precision); +-1 -> +-inf
    i0, i1          the power series (all terms positive: no cancellation) up to |x| = 50; above, the asymptotic
    i0e, i1e        series of e^-|x| I_v(|x|) (it converges to double precision there before it diverges)

numba's on-disk cache checks only the source file of the function it compiled: after editing this file, touch
unary.py (whose loops inline these functions) or its cached loops keep the old code.
"""
from __future__ import annotations

import math

from .jit import kernel_jit

__all__ = ['digamma', 'zeta', 'polygamma', 'erfinv', 'bessel_i0', 'bessel_i0e', 'bessel_i1', 'bessel_i1e']

_jit = kernel_jit(error_model='numpy')

_MACHEP = 1.11022302462515654042e-16
# (2k)! / B_2k for k = 1..12: the Euler-Maclaurin terms of Cephes' zeta
_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
           -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
           1.8152105401943546773e17, -7.1661652561756670113e18)
# B_2k / 2k for the asymptotic series of digamma
_PSI_B = (1.0 / 12.0, -1.0 / 120.0, 1.0 / 252.0, -1.0 / 240.0, 1.0 / 132.0, -691.0 / 32760.0, 1.0 / 12.0)


@_jit
def digamma(x):
    x = float(x)
    if math.isnan(x):
        return x
    if x == math.inf:
        return x
    if x <= 0.0 and x == math.floor(x):
        return math.nan
    result = 0.0
    if x < 0.5:
        # psi(x) = psi(1 - x) - pi / tan(pi x)
        result -= math.pi / math.tan(math.pi * x)
        x = 1.0 - x
    while x < 10.0:
        result -= 1.0 / x
        x += 1.0
    inv2 = 1.0 / (x * x)
    series = 0.0
    power = inv2
    for b in _PSI_B:
        series += b * power
        power *= inv2
    return result + math.log(x) - 0.5 / x - series


@_jit
def zeta(s, q):
    """The Hurwitz zeta function sum_k (k + q)^-s, s > 1."""
    s, q = float(s), float(q)
    if s == 1.0:
        return math.inf
    if s < 1.0 or math.isnan(s) or math.isnan(q):
        return math.nan
    if q <= 0.0:
        if q == math.floor(q):
            return math.inf
        if s != math.floor(s):
            return math.nan
    total = q ** -s
    a = q
    b = 0.0
    i = 0
    while i < 9 or a <= 9.0:
        i += 1
        a += 1.0
        b = a ** -s
        total += b
        if abs(b / total) < _MACHEP:
            return total
    w = a
    total += b * w / (s - 1.0)
    total -= 0.5 * b
    fact = 1.0
    k = 0.0
    for coef in _ZETA_A:
        fact *= s + k
        b /= w
        t = fact * b / coef
        total += t
        if abs(t / total) < _MACHEP:
            return total
        k += 1.0
        fact *= s + k
        b /= w
        k += 1.0
    return total


@_jit
def polygamma(n, x):
    """The n-th derivative of digamma."""
    if n == 0:
        return digamma(x)
    sign = 1.0 if n % 2 == 1 else -1.0
    return sign * math.gamma(n + 1.0) * zeta(n + 1.0, x)


@_jit
def erfinv(y):
    y = float(y)
    if math.isnan(y) or y < -1.0 or y > 1.0:
        return math.nan
    if y == 1.0:
        return math.inf
    if y == -1.0:
        return -math.inf
    # Giles, "Approximating the erfinv function" (single precision), then Newton on erf in double precision
    w = -math.log((1.0 - y) * (1.0 + y))
    if w < 5.0:
        w -= 2.5
        p = 2.81022636e-08
        p = 3.43273939e-07 + p * w
        p = -3.5233877e-06 + p * w
        p = -4.39150654e-06 + p * w
        p = 0.00021858087 + p * w
        p = -0.00125372503 + p * w
        p = -0.00417768164 + p * w
        p = 0.246640727 + p * w
        p = 1.50140941 + p * w
    else:
        w = math.sqrt(w) - 3.0
        p = -0.000200214257
        p = 0.000100950558 + p * w
        p = 0.00134934322 + p * w
        p = -0.00367342844 + p * w
        p = 0.00573950773 + p * w
        p = -0.0076224613 + p * w
        p = 0.00943887047 + p * w
        p = 1.00167406 + p * w
        p = 2.83297682 + p * w
    x = p * y
    for _ in range(2):
        err = math.erf(x) - y
        x -= err / (1.1283791670955126 * math.exp(-x * x))
    return x


@_jit
def _bessel_series(order, ax):
    """I_order(ax) for ax >= 0 by its power series."""
    if math.isnan(ax):
        return ax
    half = 0.5 * ax
    term = 1.0 if order == 0 else half
    total = term
    q = half * half
    k = 1.0
    while k < 400.0:        # |x| <= 50 needs about 100 terms; a zero term (x = 0) ends it at once
        term *= q / (k * (k + order))
        total += term
        if term <= total * 1e-17:
            break
        k += 1.0
    return total


@_jit
def _bessel_scaled_asymptotic(order, ax):
    """e^-ax I_order(ax) for large ax: 1/sqrt(2 pi ax) sum_k (-1)^k a_k / ax^k."""
    mu = 4.0 * order * order
    term = 1.0
    total = 1.0
    k = 1.0
    while k < 60.0:
        term *= -(mu - (2.0 * k - 1.0) ** 2) / (k * 8.0 * ax)
        total += term
        if abs(term) < abs(total) * 1e-17:
            break
        k += 1.0
    return total / math.sqrt(2.0 * math.pi * ax)


@_jit
def _bessel_scaled(order, ax):
    if ax > 50.0:
        return _bessel_scaled_asymptotic(order, ax)
    return _bessel_series(order, ax) * math.exp(-ax)


@_jit
def bessel_i0(x):
    ax = abs(float(x))
    if ax > 50.0:
        return _bessel_scaled_asymptotic(0, ax) * math.exp(ax)
    return _bessel_series(0, ax)


@_jit
def bessel_i0e(x):
    return _bessel_scaled(0, abs(float(x)))


@_jit
def bessel_i1(x):
    x = float(x)
    ax = abs(x)
    v = _bessel_scaled_asymptotic(1, ax) * math.exp(ax) if ax > 50.0 else _bessel_series(1, ax)
    return -v if x < 0 else v


@_jit
def bessel_i1e(x):
    x = float(x)
    v = _bessel_scaled(1, abs(x))
    return -v if x < 0 else v
