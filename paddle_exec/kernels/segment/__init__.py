"""Kernels for compiled segments: numba functions that generated segment code calls, and their numpy references.

executor/passes/segments.py joins runs of ops into one generated numba function per segment (the GIL released for
the whole segment); each op's SEGMENT_RULES entry (ops/) names a function of these modules and its constant
arguments. Every function here

    - is compiled with kernels/jit.py and callable from other numba code: it takes arrays and constants, allocates
      its outputs (or updates its in-place arguments) and returns them; it never raises for a shape it accepts and
      raises ValueError for one it does not, so compiled code cannot read out of bounds;
    - has a numpy twin `<name>_ref` with the same signature and results, which calls no numba code: the first tier
      of a segment runs the references while the segment compiles in the background (executor/jit_service.py), so
      the numbers of the two tiers agree (identical for elementwise arithmetic, to float rounding of a different
      libm for transcendental functions, and the matrix products call the same BLAS routine in both tiers);
    - reuses the loops of the per-op kernels (kernels/*.py) where they fit, so a compiled run computes what the
      plain executor computes.

Modules: `blas` (matrix products through the BLAS numpy itself loads), `elementwise` (Paddle's axis broadcasting,
the fused add + activation), `activation`, `reduce` (mean, reduce_sum/mean, softmax), `loss`, `optimizer`,
`tensor` (fill_constant, reshape, concat, sum, scale, transpose).
"""
