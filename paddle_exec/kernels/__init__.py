"""The numerics: pure functions on numpy arrays, most of them numba loops compiled by kernels/jit.py (nogil, cached).

Kernels import only kernels/ (and numpy, numba): no IR, no ops, no executor. One module per family of numerics
(elementwise, reduce, unary/activation, conv, norm, loss, optimizer, ...), called by the op modules of ops/; each
module's docstring states the Paddle semantics it reproduces. The caches kept here (per-shape plans) are bounded.
"""
