"""Cropping and expanding ops of fluid 1.8's layers.nn: crop, crop_tensor, random_crop, expand_as.

    crop          X, Y? (its shape is the output shape), Offsets? -> Out; attrs shape, offsets. A -1 first dim of
                  the shape takes X's (Paddle's batch rule). Grad: Out@GRAD placed at the offsets in zeros.
    crop_tensor   X, Shape?, Offsets?, ShapeTensor*?, OffsetsTensor*? -> Out; a tensor wins over its attribute;
                  shape -1 means X's dim minus the offset. Grad as crop's.
    random_crop   X, Seed (int64 [1]) -> Out, SeedOut; the trailing dims of X cropped to `shape` at a random
                  offset per instance; SeedOut is the next seed (numpy's stream, not Paddle's). No gradient.
    expand_as     X, target_tensor -> Out: X tiled to target_tensor's shape (each dim a whole multiple);
                  grad sums the tiles back.
"""
from __future__ import annotations

import numpy as np

from ..framework.errors import EnforceNotMet
from ..framework.registry import GradSpec, defop, kernel_rule, shape_rule
from ._util import runtime_ints

__all__: list[str] = []


def _window(x_shape, shape, offsets, op_type: str) -> tuple:
    if len(shape) != len(x_shape) or len(offsets) != len(x_shape):
        raise EnforceNotMet("operator '%s': the shape (%s) and offsets (%s) must have as many entries as the rank "
                            "of Input(X) %s" % (op_type, list(shape), list(offsets), list(x_shape)))
    window = []
    for d, (size, start, full) in enumerate(zip(shape, offsets, x_shape)):
        if start < 0 or start + size > full:
            raise EnforceNotMet("operator '%s': the crop of dim %d (offset %d, size %d) is out of Input(X)'s %d"
                                % (op_type, d, start, size, full))
        window.append(slice(start, start + size))
    return tuple(window)


# --- crop -----------------------------------------------------------------------------------------------------

defop('crop', ['X', 'Y', 'Offsets'], ['Out'], {'offsets': [], 'shape': []}, dispensable=['Y', 'Offsets'],
      grad=GradSpec(('X', 'Offsets', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('crop')
def _crop_shape(ctx):
    x = ctx.in_shape('X')
    if ctx.has_input('Y'):
        shape = ctx.in_shape('Y')
    else:
        shape = tuple(int(d) for d in ctx.attr('shape'))
        if len(shape) != len(x):
            raise ValueError("operator 'crop': the number of elements (%d) of CropOp's 'shape' attribute should be "
                             "equal to the number of dimensions (%d) of the Input(X)" % (len(shape), len(x)))
    if len(shape) != len(x):
        raise ValueError("operator 'crop': the number of dimensions (%d) of Input(Y) should be equal to the number "
                         "of dimensions (%d) of Input(X)" % (len(shape), len(x)))
    ctx.set_output('Out', shape, ctx.in_dtype('X'))


def _crop_window(spec, x_shape, y, offsets_tensor):
    shape = list(y.shape) if y is not None else [int(d) for d in spec.attr('shape')]
    if shape and shape[0] == -1:
        shape[0] = x_shape[0]
    offsets = runtime_ints(offsets_tensor) if offsets_tensor is not None else [int(d) for d in spec.attr('offsets')]
    if not offsets:
        offsets = [0] * len(x_shape)
    return _window(x_shape, shape, offsets, spec.type.replace('_grad', ''))


@kernel_rule('crop')
def _crop_kernel(spec):
    def run(x, y, offsets):
        return (x[_crop_window(spec, x.shape, y, offsets)].copy(),)
    return run


@kernel_rule('crop_grad')
def _crop_grad_kernel(spec):
    def run(x, offsets, dout):
        dx = np.zeros(x.shape, dout.dtype)
        dx[_window(x.shape, dout.shape, _offsets_of(spec, x.shape, offsets), 'crop')] = dout
        return (dx,)
    return run


def _offsets_of(spec, x_shape, offsets_tensor) -> list:
    offsets = runtime_ints(offsets_tensor) if offsets_tensor is not None else [int(d) for d in spec.attr('offsets')]
    return offsets or [0] * len(x_shape)


# --- crop_tensor ----------------------------------------------------------------------------------------------

_CROP_TENSOR_INPUTS = ['X', 'Shape', 'Offsets', 'ShapeTensor', 'OffsetsTensor']
defop('crop_tensor', _CROP_TENSOR_INPUTS, ['Out'], {'offsets': [], 'shape': []},
      dispensable=_CROP_TENSOR_INPUTS[1:], duplicable=['ShapeTensor', 'OffsetsTensor'],
      grad=GradSpec(('X', 'Offsets', 'OffsetsTensor', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('crop_tensor')
def _crop_tensor_shape(ctx):
    x = ctx.in_shape('X')
    if ctx.has_input('Shape'):
        n = ctx.in_shape('Shape')[0]
        ctx.set_output('Out', (-1,) * (n if n >= 0 else len(x)), ctx.in_dtype('X'))
        return
    shape = [int(d) for d in ctx.attr('shape')]
    if len(shape) != len(x):
        raise ValueError("operator 'crop_tensor': The number of elements (%d) of attribute 'shape' for "
                         "CropTensor must be equal to the number of dimensions (%d) of the input." % (len(shape),
                                                                                                   len(x)))
    offsets = [int(d) for d in ctx.attr('offsets')] or [0] * len(x)
    known_offsets = not ctx.has_input('Offsets') and not ctx.has_input('OffsetsTensor')
    out = []
    for size, start, full in zip(shape, offsets, x):
        if size == -1:
            out.append(full - start if known_offsets and full >= 0 and start >= 0 else -1)
        elif size == 0:          # given by a ShapeTensor entry
            out.append(-1)
        else:
            out.append(size)
    ctx.set_output('Out', tuple(out), ctx.in_dtype('X'))


def _crop_tensor_offsets(spec, x_shape, offsets, offsets_list) -> list:
    if offsets is not None:
        return runtime_ints(offsets)
    attr = [int(d) for d in spec.attr('offsets')] or [0] * len(x_shape)
    if offsets_list is not None:
        return runtime_ints(offsets_list)
    return attr


@kernel_rule('crop_tensor')
def _crop_tensor_kernel(spec):
    def run(x, shape, offsets, shape_list, offsets_list):
        starts = _crop_tensor_offsets(spec, x.shape, offsets, offsets_list)
        if shape is not None:
            sizes = runtime_ints(shape)
        elif shape_list is not None:
            sizes = runtime_ints(shape_list)
        else:
            sizes = [int(d) for d in spec.attr('shape')]
        if len(sizes) != x.ndim or len(starts) != x.ndim:
            raise EnforceNotMet("operator 'crop_tensor': the shape %s and offsets %s must have %d entries"
                                % (sizes, starts, x.ndim))
        sizes = [full - start if size == -1 else size for size, start, full in zip(sizes, starts, x.shape)]
        return (x[_window(x.shape, sizes, starts, 'crop_tensor')].copy(),)
    return run


@kernel_rule('crop_tensor_grad')
def _crop_tensor_grad_kernel(spec):
    def run(x, offsets, offsets_list, dout):
        dx = np.zeros(x.shape, dout.dtype)
        starts = _crop_tensor_offsets(spec, x.shape, offsets, offsets_list)
        dx[_window(x.shape, dout.shape, starts, 'crop_tensor')] = dout
        return (dx,)
    return run


# --- random_crop ----------------------------------------------------------------------------------------------

defop('random_crop', ['X', 'Seed'], ['Out', 'SeedOut'], {'shape': [], 'startup_seed': 0}, stateful=True)


@shape_rule('random_crop')
def _random_crop_shape(ctx):
    x, shape = ctx.in_shape('X'), [int(d) for d in ctx.attr('shape')]
    if len(shape) > len(x):
        raise ValueError("operator 'random_crop': the rank of Attr(shape) %s is larger than Input(X)'s %s"
                         % (shape, list(x)))
    lead = len(x) - len(shape)
    for size, full in zip(shape, x[lead:]):
        if full >= 0 and size > full:
            raise ValueError("operator 'random_crop': Attr(shape) %s is larger than Input(X)'s trailing dims %s"
                             % (shape, list(x[lead:])))
    ctx.set_output('Out', tuple(x[:lead]) + tuple(shape), ctx.in_dtype('X'))
    ctx.set_output('SeedOut', (1,), ctx.in_dtype('Seed'))


@kernel_rule('random_crop')
def _random_crop_kernel(spec):
    shape = [int(d) for d in spec.attr('shape')]
    startup_seed = int(spec.attr('startup_seed'))

    def run(x, seed):
        seed_value = int(np.asarray(seed).reshape(-1)[0]) if seed is not None and np.asarray(seed).size else 0
        rng = np.random.default_rng((seed_value or startup_seed) % 2 ** 63)
        lead = x.ndim - len(shape)
        instances = x.reshape((-1,) + x.shape[lead:])
        out = np.empty((instances.shape[0],) + tuple(shape), x.dtype)
        for i in range(instances.shape[0]):
            starts = [int(rng.integers(0, full - size + 1)) for size, full in zip(shape, x.shape[lead:])]
            out[i] = instances[i][tuple(slice(s, s + n) for s, n in zip(starts, shape))]
        next_seed = np.array([int(rng.integers(1, 2 ** 62))], np.int64)
        return out.reshape(x.shape[:lead] + tuple(shape)), next_seed
    return run


# --- expand_as ------------------------------------------------------------------------------------------------

defop('expand_as', ['X', 'target_tensor'], ['Out'], grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('expand_as')
def _expand_as_shape(ctx):
    x, target = ctx.in_shape('X'), ctx.in_shape('target_tensor')
    if len(x) != len(target):
        raise ValueError("operator 'expand_as': The rank of input(target_tensor) must be equal to the rank of "
                         "Input(X), got %s and %s" % (list(target), list(x)))
    if len(x) > 6:
        raise ValueError("operator 'expand_as': The rank of Input(X) must not be greater than 6, got %d" % len(x))
    ctx.set_output('Out', target, ctx.in_dtype('X'))


@kernel_rule('expand_as')
def _expand_as_kernel(spec):
    def run(x, target):
        times = []
        for d, (a, b) in enumerate(zip(x.shape, target.shape)):
            if a == 0 or b % a:
                raise EnforceNotMet("operator 'expand_as': dim %d of target_tensor (%d) must be a multiple of "
                                    "Input(X)'s (%d)" % (d, b, a))
            times.append(b // a)
        return (np.tile(x, times),)
    return run


@kernel_rule('expand_as_grad')
def _expand_as_grad_kernel(spec):
    def run(x, dout):
        split = []
        for a, b in zip(x.shape, dout.shape):
            split += [b // a, a]
        summed = dout.reshape(split).sum(axis=tuple(range(0, 2 * x.ndim, 2)))
        return (summed.astype(dout.dtype, copy=False).reshape(x.shape),)
    return run
