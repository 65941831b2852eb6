"""The op types the fusion passes write (executor/passes/fuse_bn_act.py, fuse_optimizer.py), with Paddle's names.

- `fused_batch_norm_act` / `fused_batch_norm_act_grad` (Paddle's fused_bn_activation_op): batch_norm + relu in
  training mode, and their gradients, as one op each (kernels/norm.py, `act='relu'`). Paddle's op is channel-last (NHWC)
  and has no `data_layout` attribute; its pass copies batch_norm's attributes onto it, so `data_layout` (default
  'NHWC') says where the channel is. `act_type` 'relu' only, as Paddle's kernel. `ReserveSpace` is cuDNN's
  workspace: accepted, left empty.
- `coalesce_tensor` (Paddle's coalesce_tensor_op): `Input` tensors laid end to end in one contiguous buffer
  (`FusedOutput`, 1-D), each `Output` a view of its part (`Output` names the same variables as `Input`), copied
  in when `copy_data`, every element set to `constant` when `set_constant`. When the inputs already are the
  consecutive parts of one buffer (the parameters and moments after the first step: the scope holds the views),
  that buffer is the FusedOutput and nothing is copied, so the fused optimizer updates the parameters in place.
  Paddle aligns each part to the allocator's chunk; here the parts touch (one pass of the fused kernel covers
  no padding). Inside a compiled segment (fresh, non-persistable inputs: the gradients) it is one copy into a new
  buffer (kernels/segment/tensor.py coalesce).
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import to_numpy
from ..framework.registry import GradSpec, defop, kernel_rule, segment_rule, shape_rule
from ..kernels import norm as KN
from ..kernels.segment import tensor as ST
from ._util import segment_op, var_dtype

__all__ = ['coalesced_buffer']

# --- fused_batch_norm_act ------------------------------------------------------------------------------------------

_BN_ACT_ATTRS = {'momentum': 0.9, 'epsilon': 1e-5, 'act_type': 'relu', 'data_layout': 'NHWC'}
defop('fused_batch_norm_act', ['X', 'Scale', 'Bias', 'Mean', 'Variance'],
      ['Y', 'MeanOut', 'VarianceOut', 'SavedMean', 'SavedVariance', 'ReserveSpace'], _BN_ACT_ATTRS,
      dispensable=['ReserveSpace'], inplace={'MeanOut': 'Mean', 'VarianceOut': 'Variance'},
      grad=GradSpec(('X', 'Scale', 'Bias', 'Y', 'SavedMean', 'SavedVariance', 'ReserveSpace', 'Y@GRAD'),
                    ('X@GRAD', 'Scale@GRAD', 'Bias@GRAD')))


def _act_type(spec) -> str:
    act = spec.attr('act_type')
    if act != 'relu':
        raise ValueError("operator '%s': act_type must be 'relu', got %r" % (spec.type, act))
    return act


def _channels(shape, layout: str) -> int:
    return shape[1] if layout in ('NCHW', 'NCL', 'NC', 'AnyLayout') else shape[-1]


@shape_rule('fused_batch_norm_act')
def _bn_act_shape(ctx):
    xs = ctx.in_shape('X')
    if not 2 <= len(xs) <= 5:
        raise ValueError("ShapeError: the dimension of input X must be between 2 and 5 (operator "
                         "'fused_batch_norm_act'), but received X's shape [%s]" % ', '.join(map(str, xs)))
    c = _channels(xs, ctx.op.attrs.get('data_layout', 'NHWC'))
    for slot in ('Scale', 'Bias'):
        s = ctx.in_shape(slot)
        if len(s) != 1 or (c >= 0 and s[0] >= 0 and s[0] != c):
            raise ValueError("ShapeError: the shape of %s must equal to [%d] (operator 'fused_batch_norm_act'), but "
                             "received [%s]" % (slot.lower(), c, ', '.join(map(str, s))))
    dtype = ctx.in_dtype('X')
    ctx.set_output('Y', xs, dtype)
    ctx.set_output('MeanOut', (c,), ctx.in_dtype('Mean'))
    ctx.set_output('VarianceOut', (c,), ctx.in_dtype('Variance'))
    ctx.set_output('SavedMean', (c,), ctx.in_dtype('Scale'))
    ctx.set_output('SavedVariance', (c,), ctx.in_dtype('Scale'))


@kernel_rule('fused_batch_norm_act')
def _bn_act_kernel(spec):
    _act_type(spec)
    momentum, eps = float(spec.attr('momentum')), float(spec.attr('epsilon'))
    layout = spec.attr('data_layout', 'NHWC')

    def run(x, scale, bias, mean, variance):
        y, mean_out, var_out, saved_mean, saved_inv_std = KN.batch_norm_forward(
            x, scale, bias, mean, variance, momentum=momentum, epsilon=eps, data_layout=layout, act='relu')
        return y, mean_out.reshape(mean.shape), var_out.reshape(variance.shape), saved_mean, saved_inv_std, None
    return run


@kernel_rule('fused_batch_norm_act_grad')
def _bn_act_grad_kernel(spec):
    _act_type(spec)
    layout = spec.attr('data_layout', 'NHWC')

    def run(x, scale, bias, y, saved_mean, saved_inv_std, reserve_space, dy):
        dx, dscale, dbias = KN.batch_norm_backward(x, scale, saved_mean, saved_inv_std, dy, data_layout=layout,
                                                   act='relu', y=y)
        return dx, dscale.reshape(scale.shape), dbias.reshape(bias.shape)
    return run


# --- coalesce_tensor -----------------------------------------------------------------------------------------------

defop('coalesce_tensor', ['Input'], ['Output', 'FusedOutput'],
      {'dtype': 5, 'copy_data': False, 'set_constant': False, 'constant': 0.0, 'check_name': False},
      duplicable=['Input', 'Output'])


@shape_rule('coalesce_tensor')
def _coalesce_shape(ctx):
    inputs = ctx.input_vars('Input')
    sizes = [int(np.prod(v.shape)) if v.has_shape() else -1 for v in inputs]
    total = -1 if any(s < 0 for s in sizes) else sum(sizes)
    for i, v in enumerate(inputs):
        ctx.set_output('Output', v.shape, v.dtype, i=i)
    ctx.set_output('FusedOutput', (total,), ctx.attr('dtype'))


def coalesced_buffer(arrays: list) -> np.ndarray | None:
    """The 1-D buffer whose consecutive parts `arrays` are (in order, touching, covering all of it), or None."""
    if not arrays:
        return None
    base = arrays[0].base
    if not isinstance(base, np.ndarray) or base.ndim != 1 or not base.flags.c_contiguous \
            or not base.flags.writeable or base.dtype != arrays[0].dtype:
        return None
    address, item = base.ctypes.data, base.itemsize
    for a in arrays:
        if a.base is not base or not a.flags.c_contiguous or a.dtype != base.dtype or a.ctypes.data != address:
            return None
        address += a.size * item
    return base if address == base.ctypes.data + base.size * item else None


@kernel_rule('coalesce_tensor')
def _coalesce_kernel(spec):
    dtype = to_numpy(spec.attr('dtype'))
    copy_data, set_constant = bool(spec.attr('copy_data')), bool(spec.attr('set_constant'))
    constant = dtype.type(spec.attr('constant'))

    last = [None]       # (the arrays, their buffer) of the last run: an array's memory never moves, so the same
                        # array objects are views of the same buffer again (persistable inputs, run after run)

    def run(inputs):
        arrays = [np.asarray(a) for a in inputs]
        seen = last[0]
        if seen is not None and len(seen[0]) == len(arrays) and all(a is b for a, b in zip(arrays, seen[0])):
            fused = seen[1]
        else:
            fused = coalesced_buffer(arrays) if all(a.dtype == dtype for a in arrays) else None
        if fused is not None:
            last[0] = (tuple(arrays), fused)
            if set_constant:
                fused.fill(constant)
            return arrays, fused
        fused = np.empty(sum(a.size for a in arrays), dtype=dtype)
        if set_constant:
            fused.fill(constant)
        views, start = [], 0
        for a in arrays:
            part = fused[start:start + a.size].reshape(a.shape)
            if copy_data:
                part[...] = a
            views.append(part)
            start += a.size
        last[0] = (tuple(views), fused)
        return views, fused
    return run


@segment_rule('coalesce_tensor')
def _coalesce_segment(spec):
    """Fresh gradients copied into their fused buffer (fuse_all_optimizer_ops) run inside a segment, so the copy no
    longer cuts the backward from the fused update. Parameters and accumulators (persistable) stay ordinary nodes:
    after the first run they already are views of one buffer, which only the per-op kernel sees (and copies
    nothing). The `Output` views are not made: they name the inputs, which hold the same values. When the fused update
    is the buffer's only reader, passes/segments.py makes the two one call that reads the gradients where they lie
    (kernels/segment/optimizer.py, the parts variants): the buffer is then never made."""
    if not spec.attr('copy_data') or spec.attr('set_constant'):
        return None
    names = spec.op.inputs.get('Input') or []
    dtype = to_numpy(spec.attr('dtype'))
    for i in range(len(names)):
        var = spec.input_var('Input', i)
        if var is None or var.persistable or var_dtype(spec, 'Input', i) != dtype:
            return None
    if not names or spec.op.outputs.get('Output') != names:
        return None
    return segment_op(ST.coalesce, ['Input'], ['FusedOutput'], views=True, fusion=('coalesce',))
