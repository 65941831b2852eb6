"""Activation ops (out = f(x), elementwise) and `clip`, on the opcode loops of kernels/unary.py (log1p and erf on
their own loops in kernels/activation.py).

Every op has Paddle's type, attribute names and defaults (1.8's, plus 2.x attributes such as softplus's
beta/threshold), and a grad op `<type>_grad` that reads what Paddle's reads (kernels' `GRAD_DEPENDENCY`):

    relu_grad(Out, Out@GRAD) -> X@GRAD        'out': relu sigmoid tanh exp sqrt rsqrt reciprocal relu6 ...
    gelu_grad(X, Out@GRAD) -> X@GRAD          'x':   gelu leaky_relu log abs square softplus elu swish ...
    floor_grad(Out@GRAD) -> X@GRAD            'none' (zero gradient): floor ceil round
    pow(X, FactorTensor?) and clip(X, Min?, Max?): a wired tensor replaces the attribute at run time.

(Paddle 1.8's leaky_relu_grad read Out; this follows 2.x and the kernel, which read X. They differ only at
x == 0 and for a negative alpha, where 1.8's rule was wrong.)

Speed: a kernel factory runs once per plan. It reads the attributes and casts them the way Paddle does
(float32 attribute, then static_cast<T> to the input dtype), caching the cast constants per dtype, and
returns a `run` that allocates the output and makes one call into the jitted loop. The per-op functions of
kernels/activation.py cast the attributes on every call (about 1 us of numpy scalar construction), which is
why the factories call the loops and opcodes directly.
"""
from __future__ import annotations

import numba
import numpy as np

from ..framework.dtype import real_dtype, to_numpy
from ..framework.registry import GradSpec, defop, kernel_rule, segment_rule, shape_rule
from ..framework.scope import SelectedRows
from ..kernels import activation as KA
from ..kernels import unary as K
from ..kernels.embedding import merge_rows
from ..kernels.segment import activation as SA
from ._util import f32, same_shape_as_x, segment_op

_CUDNN = {'use_cudnn': False, 'use_mkldnn': False}

# op type -> (opcode, default attributes, attributes passed to the loop as its constants a, b, c)
ACTIVATIONS: dict[str, tuple[int, dict, tuple]] = {
    'relu': (K.RELU, _CUDNN, ()),
    'sigmoid': (K.SIGMOID, _CUDNN, ()),
    'tanh': (K.TANH, _CUDNN, ()),
    'exp': (K.EXP, _CUDNN, ()),
    'sqrt': (K.SQRT, _CUDNN, ()),
    'rsqrt': (K.RSQRT, _CUDNN, ()),
    'reciprocal': (K.RECIPROCAL, _CUDNN, ()),
    'relu6': (K.RELU6, {'threshold': 6.0}, ('threshold',)),
    'hard_sigmoid': (K.HARD_SIGMOID, {'slope': 0.2, 'offset': 0.5}, ('slope', 'offset')),
    'selu': (K.SELU, {'scale': 1.0507009873554804934193349852946, 'alpha': 1.6732632423543772848170429916717},
             ('scale', 'alpha')),
    'gelu': (K.GELU, {'approximate': False, **_CUDNN}, ('approximate',)),
    'leaky_relu': (K.LEAKY_RELU, {'alpha': 0.02, 'use_mkldnn': False}, ('alpha',)),
    'log': (K.LOG, _CUDNN, ()),
    'abs': (K.ABS, _CUDNN, ()),
    'square': (K.SQUARE, _CUDNN, ()),
    'softplus': (K.SOFTPLUS, {'beta': 1.0, 'threshold': 20.0, **_CUDNN}, ('beta', 'threshold')),
    'softsign': (K.SOFTSIGN, _CUDNN, ()),
    'elu': (K.ELU, {'alpha': 1.0}, ('alpha',)),
    'swish': (K.SWISH, {'beta': 1.0, 'use_mkldnn': False}, ('beta',)),
    'silu': (K.SILU, _CUDNN, ()),
    'logsigmoid': (K.LOGSIGMOID, _CUDNN, ()),
    'hard_swish': (K.HARD_SWISH, {'threshold': 6.0, 'scale': 6.0, 'offset': 3.0}, ('threshold', 'scale', 'offset')),
    'hard_shrink': (K.HARD_SHRINK, {'threshold': 0.5}, ('threshold',)),
    'softshrink': (K.SOFTSHRINK, {'lambda': 0.5}, ('lambda',)),
    'tanh_shrink': (K.TANH_SHRINK, _CUDNN, ()),
    'thresholded_relu': (K.THRESHOLDED_RELU, {'threshold': 1.0}, ('threshold',)),
    'brelu': (K.BRELU, {'t_min': 0.0, 't_max': 24.0}, ('t_min', 't_max')),
    'sin': (K.SIN, _CUDNN, ()),
    'cos': (K.COS, _CUDNN, ()),
    'stanh': (K.STANH, {'scale_a': 0.67, 'scale_b': 1.7159}, ('scale_a', 'scale_b')),
    'mish': (K.MISH, {'threshold': 20.0}, ('threshold',)),
    'floor': (K.FLOOR, _CUDNN, ()),
    'ceil': (K.CEIL, _CUDNN, ()),
    'round': (K.ROUND, _CUDNN, ()),
}



# --- attribute constants -----------------------------------------------------------------------------------------

def paddle_attr_constants(values, dtype) -> tuple:
    """The loop constants (a, b, c) for `values`: float32 first (Paddle stores float attributes as float32),
    then cast to the input dtype, as Paddle's kernels `static_cast<T>(attr)`."""
    t = np.dtype(dtype).type
    padded = list(values) + [0.0] * (3 - len(values))
    return tuple(t(np.float32(float(v))) for v in padded)


class _Constants:
    """The cast attribute constants per input dtype, made at most once per dtype (plan building knows the
    declared dtype, but a run may feed another)."""
    __slots__ = ('values', 'by_dtype')

    def __init__(self, values):
        self.values = tuple(values)
        self.by_dtype: dict = {}

    def get(self, dtype) -> tuple:
        k = self.by_dtype.get(dtype)
        if k is None:
            k = self.by_dtype[dtype] = paddle_attr_constants(self.values, dtype)
        return k


def compiled_entry(dispatcher, *example_args):
    """The machine-code entry of a numba dispatcher for exactly the types of `example_args`, compiled now.

    Calling it skips the dispatcher's per-call typing of every argument (0.6 -> 0.4 us for the activation loop
    on a small array; with a trivial op costing ~2 us in all, that matters). It unboxes arguments as the
    compiled types without checking them, so callers use it only for arrays of the dtype it was compiled for
    and fall back to the dispatcher otherwise. None when it cannot be had (a dtype the loop does not support,
    a numba without `overloads`)."""
    try:
        dispatcher(*example_args)
        return dispatcher.overloads[tuple(numba.typeof(a) for a in example_args)].entry_point
    except Exception:   # noqa: BLE001 - any failure only means: use the dispatcher
        return None


def unary_kernel(opcode: int, values=(), dtype=None):
    """A kernel `run(x, *unused) -> (out,)` that calls the forward loop once (values: the loop's a, b, c
    attributes; `unused`: absent dispensable inputs such as scale's ScaleTensor, so that no wrapper is needed).

    For `dtype`, the declared input dtype, the constants are cast and the loop compiled now, and a run of that
    dtype calls the compiled loop directly; other dtypes go through the dispatcher."""
    consts = _Constants(values)
    loop = K.loops_for(opcode)[0]
    dtype0 = None if dtype is None else np.dtype(dtype)
    k0 = fast = None
    if dtype0 is not None:
        k0 = consts.get(dtype0)
        fast = compiled_entry(loop, opcode, np.zeros(1, dtype0), np.empty(1, dtype0), *k0)
    if fast is not None:
        a0, b0, c0 = k0

        def run(x, *unused):
            dt = x.dtype
            out = np.empty(x.shape, dt)
            if out.size:
                if dt is dtype0:
                    fast(opcode, x.ravel(), out.reshape(-1), a0, b0, c0)
                else:
                    a, b, c = consts.get(dt)
                    loop(opcode, x.ravel(), out.reshape(-1), a, b, c)
            return (out,)
        return run

    def run_any(x, *unused):
        a, b, c = consts.get(x.dtype)
        out = np.empty(x.shape, x.dtype)
        if out.size:
            loop(opcode, x.ravel(), out.reshape(-1), a, b, c)
        return (out,)
    return run_any


def unary_forward(opcode: int, values=(), dtype=None):
    """`forward(x) -> out`, the array of `unary_kernel`'s run."""
    run = unary_kernel(opcode, values, dtype)
    return lambda x: run(x)[0]


def unary_backward(opcode: int, values=(), dtype=None):
    """`backward(dep, dout) -> dx`; `dep` is X or Out, whichever the op's gradient reads. `dtype` as for
    `unary_kernel` (the gradient's dtype)."""
    consts = _Constants(values)
    loop = K.loops_for(opcode)[1]
    dtype0 = None if dtype is None else np.dtype(dtype)
    fast = None
    if dtype0 is not None:
        probe = np.zeros(1, dtype0)
        fast = compiled_entry(loop, opcode, probe, probe, probe, np.empty(1, dtype0), *consts.get(dtype0))

    def backward(dep, dout):
        dt = dout.dtype
        dx = np.empty(dout.shape, dt)
        if dx.size:
            if dep.shape != dout.shape:
                raise ValueError('Out@GRAD shape %s does not match the input shape %s'
                                 % (list(dout.shape), list(dep.shape)))
            a, b, c = consts.get(dt)
            flat = dep.ravel() if dep.dtype == dt else dep.astype(dt).ravel()
            (fast if dt is dtype0 and fast is not None else loop)(opcode, flat, flat, dout.ravel(), dx.reshape(-1),
                                                                   a, b, c)
        return dx
    return backward


def _scalar(value, what: str, op_type: str) -> float:
    arr = np.asarray(value)
    if arr.size != 1:
        raise ValueError("%s of operator '%s' must hold one element, got shape %s" % (what, op_type, list(arr.shape)))
    return float(arr.reshape(-1)[0])


# --- schema and shape ----------------------------------------------------------------------------------------------

def _grad_spec(dep: str) -> GradSpec:
    reads = {'x': ('X', 'Out@GRAD'), 'out': ('Out', 'Out@GRAD'), 'none': ('Out@GRAD',)}[dep]
    return GradSpec(reads, ('X@GRAD',))


def _abs_shape(ctx):
    """abs of a complex tensor is real (Paddle 2.x)."""
    ctx.set_output('Out', ctx.in_shape('X'), real_dtype(ctx.in_dtype('X')))


for _t, (_code, _attrs, _) in ACTIVATIONS.items():
    defop(_t, ['X'], ['Out'], _attrs, grad=_grad_spec(K.GRAD_DEPENDENCY[_t]))
    shape_rule(_t)(_abs_shape if _t == 'abs' else same_shape_as_x)

defop('pow', ['X', 'FactorTensor'], ['Out'], {'factor': 1.0}, dispensable=['FactorTensor'],
      grad=GradSpec(('X', 'FactorTensor', 'Out@GRAD'), ('X@GRAD',)))
shape_rule('pow')(same_shape_as_x)

# clip's min and max have no defaults in Paddle: the builders always set them
defop('clip', ['X', 'Min', 'Max'], ['Out'], dispensable=['Min', 'Max'],
      grad=GradSpec(('X', 'Min', 'Max', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('clip')
def _clip_shape(ctx):
    for name, slot in (('min', 'Min'), ('max', 'Max')):
        if name not in ctx.op.attrs and not ctx.has_input(slot):
            raise ValueError("operator 'clip' needs the attribute '%s' or the input %s" % (name, slot))
    lo, hi = ctx.op.attrs.get('min'), ctx.op.attrs.get('max')
    if not ctx.has_input('Min') and not ctx.has_input('Max') and lo is not None and hi is not None and lo > hi:
        raise ValueError('max should be greater than or equal to min. But received min = %s, max = %s' % (lo, hi))
    ctx.set_output('Out', ctx.in_shape('X'), ctx.in_dtype('X'))


# --- kernels -------------------------------------------------------------------------------------------------------

def _loop_values(spec, names) -> list:
    return [float(spec.attr(n)) for n in names]


def declared_dtype(spec, slot: str = 'X'):
    """The numpy dtype of the op's input variable, or None when it is not known."""
    var = spec.input_var(slot)
    try:
        return to_numpy(var.dtype) if var is not None else None
    except (KeyError, TypeError, ValueError):
        return None


def _activation_kernel(spec):
    opcode, _, names = ACTIVATIONS[spec.type]
    run = unary_kernel(opcode, _loop_values(spec, names), declared_dtype(spec))
    if spec.type == 'abs':   # |z| of complex input (Paddle 2.x), numpy's
        return lambda x: (np.abs(x),) if x.dtype.kind == 'c' else run(x)
    return run


def _activation_grad_kernel(spec):
    fwd_type = spec.type[:-len('_grad')]
    opcode, _, names = ACTIVATIONS[fwd_type]
    if K.GRAD_DEPENDENCY[fwd_type] == 'none':
        return lambda dout: (np.zeros(dout.shape, dout.dtype),)
    backward = unary_backward(opcode, _loop_values(spec, names), declared_dtype(spec, 'Out@GRAD'))
    if fwd_type == 'abs':    # complex x: dout * x / |x| (0 at 0), Paddle's AbsGrad for complex
        return lambda x, dout: (_complex_abs_grad(x, dout),) if x.dtype.kind == 'c' else (backward(x, dout),)
    return lambda dep, dout: (backward(dep, dout),)


def _complex_abs_grad(x, dout):
    norm = np.abs(x)
    return np.where(norm == 0, 0, dout * x / np.where(norm == 0, 1, norm)).astype(x.dtype)


kernel_rule(*ACTIVATIONS)(_activation_kernel)
kernel_rule(*(t + '_grad' for t in ACTIVATIONS))(_activation_grad_kernel)


@kernel_rule('pow')
def _pow_kernel(spec):
    fixed = unary_forward(K.POW, [float(spec.attr('factor'))])

    def run(x, factor_tensor):
        if factor_tensor is None:
            return (fixed(x),)
        return (unary_forward(K.POW, [_scalar(factor_tensor, 'FactorTensor', 'pow')])(x),)
    return run


@kernel_rule('pow_grad')
def _pow_grad_kernel(spec):
    fixed = unary_backward(K.POW, [float(spec.attr('factor'))])

    def run(x, factor_tensor, dout):
        if factor_tensor is None:
            return (fixed(x, dout),)
        return (unary_backward(K.POW, [_scalar(factor_tensor, 'FactorTensor', 'pow')])(x, dout),)
    return run


def _clip_bounds(spec, min_tensor, max_tensor) -> tuple[float, float]:
    lo = spec.attr('min') if min_tensor is None else _scalar(min_tensor, 'Min', 'clip')
    hi = spec.attr('max') if max_tensor is None else _scalar(max_tensor, 'Max', 'clip')
    if lo > hi:
        raise ValueError('max should be greater than or equal to min. But received min = %s, max = %s' % (lo, hi))
    return float(lo), float(hi)


@kernel_rule('clip')
def _clip_kernel(spec):
    def run(x, min_tensor, max_tensor):
        clip = unary_forward(K.CLIP, _clip_bounds(spec, min_tensor, max_tensor))
        if isinstance(x, SelectedRows):
            # Paddle's clip of a sparse gradient: duplicate rows are merged (summed) first, then values clipped
            rows, values = merge_rows(x.rows, x.values)
            return (SelectedRows(rows, clip(np.ascontiguousarray(values)), x.height),)
        return (clip(x),)
    if not spec.has_input('Min') and not spec.has_input('Max'):
        fixed = unary_forward(K.CLIP, _clip_bounds(spec, None, None))
        return lambda x, min_tensor, max_tensor: (fixed(x),) if not isinstance(x, SelectedRows) else run(
            x, None, None)
    return run


@kernel_rule('clip_grad')
def _clip_grad_kernel(spec):
    if not spec.has_input('Min') and not spec.has_input('Max'):
        fixed = unary_backward(K.CLIP, _clip_bounds(spec, None, None))
        return lambda x, min_tensor, max_tensor, dout: (fixed(x, dout),)

    def run(x, min_tensor, max_tensor, dout):
        return (unary_backward(K.CLIP, _clip_bounds(spec, min_tensor, max_tensor))(x, dout),)
    return run


__all__ = ['ACTIVATIONS', 'unary_kernel', 'unary_forward', 'unary_backward', 'paddle_attr_constants',
           'same_shape_as_x', 'declared_dtype']


# --- log1p and erf (Paddle 2.x's log1p has no attributes; 1.8's carried use_cudnn / use_mkldnn) -------------------
# Loops of their own in kernels/activation.py; both gradients read X.

_SEPARATE_UNARY = {'log1p': (KA.log1p_forward, KA.log1p_backward, _CUDNN),
                   'erf': (KA.erf_forward, KA.erf_backward, {})}

for _t, (_, _, _attrs) in _SEPARATE_UNARY.items():
    defop(_t, ['X'], ['Out'], _attrs, grad=_grad_spec('x'))
    shape_rule(_t)(same_shape_as_x)


@kernel_rule(*_SEPARATE_UNARY)
def _separate_unary_kernel(spec):
    forward = _SEPARATE_UNARY[spec.type][0]
    return lambda x: (forward(x),)


@kernel_rule(*(t + '_grad' for t in _SEPARATE_UNARY))
def _separate_unary_grad_kernel(spec):
    backward = _SEPARATE_UNARY[spec.type[:-len('_grad')]][1]
    return lambda x, dout: (backward(x, dout),)


# --- segment rules: the opcode loops inside compiled segments (the opcodes with numpy twins) -----------------------

def _segment_constants(spec, fwd_type: str) -> tuple:
    opcode, _, names = ACTIVATIONS[fwd_type]
    values = [f32(spec.attr(n)) for n in names]
    return (opcode,) + tuple(values + [0.0] * (3 - len(values)))


@segment_rule(*ACTIVATIONS)
def _activation_segment(spec):
    constants = _segment_constants(spec, spec.type)
    if constants[0] not in SA.REFERENCED:
        return None
    return segment_op(SA.forward, ['X'], ['Out'], constants, fusion=('act',) + constants,
                      reuse=(SA.forward_inplace, 0))


@segment_rule(*(t + '_grad' for t in ACTIVATIONS if K.GRAD_DEPENDENCY[t] != 'none'))
def _activation_grad_segment(spec):
    fwd_type = spec.type[:-len('_grad')]
    constants = _segment_constants(spec, fwd_type)
    if constants[0] not in SA.REFERENCED:
        return None
    dep = 'Out' if K.GRAD_DEPENDENCY[fwd_type] == 'out' else 'X'
    return segment_op(SA.backward, [dep, 'Out@GRAD'], ['X@GRAD'], constants, fusion=('act_grad',) + constants + (dep,),
                      reuse=(SA.backward_inplace, 1))
