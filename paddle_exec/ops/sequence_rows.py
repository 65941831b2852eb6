"""Sequence ops that move rows between sequences, and the LoD ops lod_reset / lod_append, as Paddle 1.8 runs them.

    sequence_expand(X, Y) -> Out          ref_level (-1: Y's last): sequence i of X (a row when X has no LoD)
                                          repeated as often as Y's level has items in sequence i; Out gets the
                                          repeated lengths as its LoD when X has a LoD, none otherwise
    sequence_expand_as(X, Y) -> Out       row i of X repeated over sequence i of Y's top level; Out gets that level
    sequence_concat(X[]) -> Out           sequence i of every input, one after the other
    sequence_reshape(X) -> Out            new_dim: each sequence's data re-cut into rows of new_dim
    sequence_pad(X, PadValue) -> Out, Length    padded_length (-1: the longest); Out and Length carry no LoD
    sequence_unpad(X, Length) -> Out      the first Length[i] steps of X[i]; Out's LoD are those lengths
    sequence_mask(X, MaxLenTensor?) -> Y  maxlen (-1: max of X), out_dtype; no LoD, no gradient
    sequence_reverse(X) -> Y              one-level LoD only; its gradient is a sequence_reverse of Y@GRAD
    sequence_slice(X, Offset, Length) -> Out     rows Offset[i]:Offset[i]+Length[i] of sequence i
    sequence_enumerate(X) -> Out          win_size, pad_value: windows of ids (int input, no gradient)
    sequence_erase(X) -> Out              tokens: the ids removed, the last LoD level recomputed (no gradient)
    sequence_scatter(X, Ids, Updates) -> Out     Out = X; Out[i, Ids[j]] += Updates[j] over sequence i of Ids
    lod_reset(X, Y?) -> Out               target_lod / append: Out = X with the LoD of Y, or Y's data as offsets,
                                          or target_lod (append: added below X's levels); fluid.layers.lod_append
                                          is lod_reset with append=True

Each op reads the LoDs it needs as kernel inputs and computes its output's LoD as a kernel output (LoD rules
below); the numerics are kernels/sequence.py. Gradient ops read the forward input's LoD the same way.
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import to_numpy
from ..framework.errors import EnforceNotMet
from ..framework.lod import NO_LOD, as_lod
from ..framework.registry import GradSpec, defop, grad_rule, kernel_rule, lod_rule, shape_rule
from ..kernels import sequence as KS
from ._lod import check_rows, input_name, last_level, require_lod, rows2d

__all__ = []


def _lod_of(offsets: np.ndarray):
    return as_lod([offsets])


def _share_grad(ctx):
    """A grad op that needs the forward X's LoD: it reads it, and X@GRAD gets it."""
    ctx.read('X')
    ctx.share('X', 'X@GRAD')


# --- sequence_expand -------------------------------------------------------------------------------------------------

defop('sequence_expand', ['X', 'Y'], ['Out'], {'ref_level': -1},
      grad=GradSpec(('X', 'Y', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('sequence_expand')
def _expand_shape(ctx):
    x = ctx.input_var('X')
    ctx.set_output('Out', (-1,) + tuple(x.shape[1:]), x.dtype)


@lod_rule('sequence_expand')
def _expand_lod(ctx):
    ctx.read('X')
    ctx.read('Y')
    ctx.compute('Out', 1 if ctx.levels('X') > 0 else 0)


def _expand_offsets(spec, x, x_lod, y_lod):
    """(x offsets, the referred level of Y) of sequence_expand, with Paddle's checks."""
    x_name, y_name = input_name(spec, 'X'), input_name(spec, 'Y')
    if not y_lod:
        raise EnforceNotMet("sequence_expand: Level number of Input(Y)'s lod should be greater than 0: '%s' has no "
                            "LoD" % y_name)
    if x_lod and len(x_lod) > 1:
        raise EnforceNotMet("sequence_expand: Level number of Input(X)'s lod should not be greater than 1: '%s' has "
                            "%d levels" % (x_name, len(x_lod)))
    ref_level = int(spec.attr('ref_level'))
    if not (ref_level == -1 or 0 <= ref_level < len(y_lod)):
        raise EnforceNotMet("sequence_expand: Invlid `ref_level`, which should be either equal to -1 or in [0, %d) "
                            "(Y '%s'), got %d" % (len(y_lod), y_name, ref_level))
    ref = y_lod[ref_level]
    if x_lod:
        x_offsets = x_lod[0]
        check_rows(x_offsets, x.shape[0], 'sequence_expand', x_name)
        if x_offsets.shape[0] != ref.shape[0]:
            raise EnforceNotMet("sequence_expand: Level number of Input(X)'s lod could be 0. Otherwise size of "
                                "Input(X)'s first level lod should be equal to size of Input(Y)'s referred level lod: "
                                "'%s' has %d sequences, level %d of '%s' has %d"
                                % (x_name, x_offsets.shape[0] - 1, ref_level, y_name, ref.shape[0] - 1))
    else:
        if x.shape[0] != ref.shape[0] - 1:
            raise EnforceNotMet("sequence_expand: When Input(X)'s lod is null, the dims[0] of Input(X) should match "
                                "the size of Input(Y)'s referred level lod: '%s' has %d rows, level %d of '%s' has "
                                "%d sequences" % (x_name, x.shape[0], ref_level, y_name, ref.shape[0] - 1))
        x_offsets = np.arange(x.shape[0] + 1, dtype=np.int64)
    return x_offsets, ref


@kernel_rule('sequence_expand')
def _expand_kernel(spec):
    def run(x, y, x_lod, y_lod):
        x_offsets, ref = _expand_offsets(spec, x, x_lod, y_lod)
        if ref.shape[0] <= 1:
            return x, x_lod or NO_LOD
        out, out_offsets = KS.expand_forward(rows2d(x), x_offsets, ref)
        return out.reshape((out.shape[0],) + x.shape[1:]), (_lod_of(out_offsets) if x_lod else NO_LOD)
    return run


@lod_rule('sequence_expand_grad')
def _expand_grad_lod(ctx):
    _share_grad(ctx)
    ctx.read('Y')


@kernel_rule('sequence_expand_grad')
def _expand_grad_kernel(spec):
    def run(x, y, dout, x_lod, y_lod):
        x_offsets, ref = _expand_offsets(spec, x, x_lod, y_lod)
        if ref.shape[0] <= 1:
            return (dout,)
        return (KS.expand_backward(rows2d(dout), x_offsets, ref, x.shape[0]).reshape(x.shape),)
    return run


# --- sequence_expand_as ----------------------------------------------------------------------------------------------

defop('sequence_expand_as', ['X', 'Y'], ['Out'], grad=GradSpec(('X', 'Y', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('sequence_expand_as')
def _expand_as_shape(ctx):
    x = ctx.input_var('X')
    ctx.set_output('Out', (-1,) + tuple(x.shape[1:]), x.dtype)


@lod_rule('sequence_expand_as')
def _expand_as_lod(ctx):
    ctx.read('Y')
    ctx.compute('Out', 1)


def _expand_as_ref(spec, x, y_lod) -> np.ndarray:
    y_name = input_name(spec, 'Y')
    ref = require_lod(y_lod, 'SequenceExpandAsOp', y_name, 'Y')[0]
    if ref.shape[0] - 1 != x.shape[0]:
        raise EnforceNotMet("sequence_expand_as: the size of Input(Y)'s first level lod should be equal to "
                            "Input(X)'s first dimension: '%s' has %d sequences, '%s' has %d rows"
                            % (y_name, ref.shape[0] - 1, input_name(spec, 'X'), x.shape[0]))
    return ref


@kernel_rule('sequence_expand_as')
def _expand_as_kernel(spec):
    def run(x, y, y_lod):
        ref = _expand_as_ref(spec, x, y_lod)
        out = KS.expand_as_forward(rows2d(x), ref)
        return out.reshape((out.shape[0],) + x.shape[1:]), _lod_of(ref)
    return run


@lod_rule('sequence_expand_as_grad')
def _expand_as_grad_lod(ctx):
    ctx.read('Y')


@kernel_rule('sequence_expand_as_grad')
def _expand_as_grad_kernel(spec):
    def run(x, y, dout, y_lod):
        ref = _expand_as_ref(spec, x, y_lod)
        return (KS.expand_as_backward(rows2d(dout), ref, x.shape[0]).reshape(x.shape),)
    return run


# --- sequence_concat -------------------------------------------------------------------------------------------------

defop('sequence_concat', ['X'], ['Out'], duplicable=['X'], grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('sequence_concat')
def _concat_shape(ctx):
    xs = ctx.input_vars('X')
    if not xs:
        raise ValueError("sequence_concat: Input(X) should not be empty")
    ctx.set_output('Out', (-1,) + tuple(xs[0].shape[1:]), xs[0].dtype)


@lod_rule('sequence_concat')
def _concat_lod(ctx):
    ctx.read('X')
    ctx.compute('Out', 1)


def _concat_offsets(spec, xs, lods) -> list:
    names = spec.op.input('X')
    offsets_list = []
    for x, lod, name in zip(xs, lods, names):
        offsets_list.append(last_level(lod, x, 'SequenceConcatOp', name, max_levels=1))
    n = offsets_list[0].shape[0]
    for offsets, name in zip(offsets_list, names):
        if offsets.shape[0] != n:
            raise EnforceNotMet("sequence_concat: the number of sequences must be the same in every input: '%s' has "
                                "%d, '%s' has %d" % (names[0], n - 1, name, offsets.shape[0] - 1))
    return offsets_list


@kernel_rule('sequence_concat')
def _concat_kernel(spec):
    def run(xs, lods):
        offsets_list = _concat_offsets(spec, xs, lods)
        out, out_offsets = KS.concat_forward([rows2d(x) for x in xs], offsets_list)
        return out.reshape((out.shape[0],) + xs[0].shape[1:]), _lod_of(out_offsets)
    return run


@lod_rule('sequence_concat_grad')
def _concat_grad_lod(ctx):
    ctx.read('X')
    for src, dst in zip(ctx.input_names('X'), ctx.op.outputs.get('X@GRAD') or []):
        ctx.actions.append(('share', src, dst, False))


@kernel_rule('sequence_concat_grad')
def _concat_grad_kernel(spec):
    wanted = [n != '@EMPTY@' for n in spec.op.outputs.get('X@GRAD') or []]

    def run(xs, dout, lods):
        offsets_list = _concat_offsets(spec, xs, lods)
        grads = KS.concat_backward(rows2d(dout), offsets_list, [x.shape[0] for x in xs])
        return ([g.reshape(x.shape) if w else None for g, x, w in zip(grads, xs, wanted)],)
    return run


# --- sequence_reshape ------------------------------------------------------------------------------------------------

defop('sequence_reshape', ['X'], ['Out'], {'new_dim': 0}, grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('sequence_reshape')
def _reshape_shape(ctx):
    x = ctx.input_var('X')
    if len(x.shape) != 2:
        raise ValueError("sequence_reshape: Input(X) '%s' must be 2-D, got shape %s" % (x.name, list(x.shape)))
    ctx.set_output('Out', (-1, int(ctx.attr('new_dim'))), x.dtype)


@lod_rule('sequence_reshape')
def _reshape_lod(ctx):
    ctx.read('X')
    ctx.compute('Out', 1)


@kernel_rule('sequence_reshape')
def _reshape_kernel(spec):
    new_dim = int(spec.attr('new_dim'))
    name = input_name(spec, 'X')

    def run(x, x_lod):
        offsets = last_level(x_lod, x, 'SequenceReshapeOp', name, max_levels=1)
        width = x.shape[1]
        sizes = offsets * width
        if np.any(sizes % new_dim):
            bad = int(np.argmax(sizes % new_dim != 0))
            raise EnforceNotMet("sequence_reshape: Total size of each sequence must be a multiple of new_dim: the "
                                "sequences of '%s' up to %d hold %d values, new_dim is %d"
                                % (name, bad, int(sizes[bad]), new_dim))
        return x.reshape(-1, new_dim), _lod_of(sizes // new_dim)
    return run


lod_rule('sequence_reshape_grad')(lambda ctx: ctx.share('X', 'X@GRAD'))


@kernel_rule('sequence_reshape_grad')
def _reshape_grad_kernel(spec):
    return lambda x, dout: (dout.reshape(x.shape),)


# --- sequence_pad / sequence_unpad -----------------------------------------------------------------------------------

defop('sequence_pad', ['X', 'PadValue'], ['Out', 'Length'], {'padded_length': -1},
      grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('sequence_pad')
def _pad_shape(ctx):
    x, pad = ctx.input_var('X'), ctx.input_var('PadValue')
    step = tuple(x.shape[1:])
    if pad is not None and pad.has_shape() and tuple(pad.shape) not in ((1,), step):
        raise ValueError("The Input(PadValue) must be a scalar or a tensor whose shape equals to time steps in "
                         "sequences: PadValue '%s' has shape %s, the time steps of '%s' %s"
                         % (pad.name, list(pad.shape), x.name, list(step)))
    padded = int(ctx.attr('padded_length'))
    ctx.set_output('Out', (-1, padded) + step, x.dtype)
    ctx.set_output('Length', (-1,), 'int64')


@lod_rule('sequence_pad')
def _pad_lod(ctx):
    ctx.read('X')


def _pad_offsets(x_lod, x, name: str, op_name: str) -> np.ndarray:
    lod = require_lod(x_lod, op_name, name)
    offsets = KS.absolute_offsets(lod, 0)
    check_rows(lod[-1], x.shape[0], op_name, name)
    return offsets


@kernel_rule('sequence_pad')
def _pad_kernel(spec):
    padded_attr = int(spec.attr('padded_length'))
    name = input_name(spec, 'X')

    def run(x, pad_value, x_lod):
        offsets = _pad_offsets(x_lod, x, name, 'SequencePadOp')
        lengths = np.diff(offsets)
        longest = int(lengths.max()) if lengths.size else 0
        padded = longest if padded_attr == -1 else padded_attr
        if padded < longest:
            raise EnforceNotMet("The Attr(padded_length) must be -1 or an int greater than the length of the longest "
                                "original sequence. But the padded_length received is (%d), the length of the longest "
                                "original sequence is (%d) (X '%s')" % (padded, longest, name))
        out = KS.pad_forward(rows2d(x), offsets, pad_value, padded)
        return out.reshape((out.shape[0], padded) + x.shape[1:]), lengths.astype(np.int64)
    return run


lod_rule('sequence_pad_grad')(_share_grad)


@kernel_rule('sequence_pad_grad')
def _pad_grad_kernel(spec):
    name = input_name(spec, 'X')

    def run(x, dout, x_lod):
        offsets = _pad_offsets(x_lod, x, name, 'SequencePadGradOp')
        width = rows2d(x).shape[1] if x.shape[0] else int(np.prod(x.shape[1:]))
        return (KS.pad_backward(dout.reshape(dout.shape[0], -1), offsets, width).reshape(x.shape),)
    return run


defop('sequence_unpad', ['X', 'Length'], ['Out'], grad=GradSpec(('X', 'Length', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('sequence_unpad')
def _unpad_shape(ctx):
    x = ctx.input_var('X')
    if len(x.shape) < 2:
        raise ValueError("sequence_unpad: the rank of Input(X) '%s' can't be less than 2, got shape %s"
                         % (x.name, list(x.shape)))
    ctx.set_output('Out', (-1,) + tuple(x.shape[2:]), x.dtype)


@lod_rule('sequence_unpad')
def _unpad_lod(ctx):
    ctx.compute('Out', 1)


def _unpad_offsets(spec, x, length) -> np.ndarray:
    lengths = np.asarray(length, np.int64).reshape(-1)
    if lengths.shape[0] != x.shape[0] or np.any(lengths < 0) or np.any(lengths > x.shape[1]):
        raise EnforceNotMet("sequence_unpad: Length '%s' must hold one length in [0, %d] per row of X '%s' (%d "
                            "rows), got %s" % (input_name(spec, 'Length'), x.shape[1], input_name(spec, 'X'),
                                               x.shape[0], lengths.tolist()))
    return KS.lengths_to_offsets(lengths)


@kernel_rule('sequence_unpad')
def _unpad_kernel(spec):
    def run(x, length):
        offsets = _unpad_offsets(spec, x, length)
        step = x.shape[2:]
        width = int(np.prod(step)) if step else 1
        out = KS.unpad_forward(x.reshape(x.shape[0], -1), offsets, width)
        return out.reshape((out.shape[0],) + step), _lod_of(offsets)
    return run


@kernel_rule('sequence_unpad_grad')
def _unpad_grad_kernel(spec):
    def run(x, length, dout):
        offsets = _unpad_offsets(spec, x, length)
        dx = KS.pad_forward(rows2d(dout), offsets, np.zeros(1, dout.dtype), x.shape[1])
        return (dx.reshape(x.shape),)
    return run


lod_rule('sequence_unpad_grad')(lambda ctx: None)


# --- sequence_mask ---------------------------------------------------------------------------------------------------

defop('sequence_mask', ['X', 'MaxLenTensor'], ['Y'], {'maxlen': -1, 'out_dtype': 3}, dispensable=['MaxLenTensor'])


@shape_rule('sequence_mask')
def _mask_shape(ctx):
    x = ctx.input_var('X')
    maxlen = -1 if ctx.has_input('MaxLenTensor') else int(ctx.attr('maxlen'))
    ctx.set_output('Y', tuple(x.shape) + (maxlen if maxlen > 0 else -1,), ctx.attr('out_dtype'))


@kernel_rule('sequence_mask')
def _mask_kernel(spec):
    maxlen_attr, dtype = int(spec.attr('maxlen')), to_numpy(spec.attr('out_dtype'))

    def run(x, maxlen_tensor):
        maxlen = int(np.asarray(maxlen_tensor).reshape(-1)[0]) if maxlen_tensor is not None else maxlen_attr
        if maxlen < 0:
            maxlen = int(np.max(x)) if np.size(x) else 0
        return (KS.mask_forward(x, maxlen, dtype),)
    return run


# --- sequence_reverse ------------------------------------------------------------------------------------------------

defop('sequence_reverse', ['X'], ['Y'])


@shape_rule('sequence_reverse')
def _reverse_shape(ctx):
    x = ctx.input_var('X')
    ctx.set_output('Y', x.shape, x.dtype)


@lod_rule('sequence_reverse')
def _reverse_lod(ctx):
    ctx.read('X')
    ctx.share('X', 'Y')


@kernel_rule('sequence_reverse')
def _reverse_kernel(spec):
    name = input_name(spec, 'X')

    def run(x, x_lod):
        lod = require_lod(x_lod, 'SequenceReverseOp', name)
        if len(lod) != 1:
            raise EnforceNotMet("SequenceReverse Op only support one level lod. Input(X) '%s' lod is(%d)"
                                % (name, len(lod)))
        check_rows(lod[0], x.shape[0], 'SequenceReverseOp', name)
        return (KS.reverse(rows2d(x), lod[0]).reshape(x.shape),)
    return run


@grad_rule('sequence_reverse')
def _reverse_grad_maker(g):
    return [('sequence_reverse', {'X': g.output_grad('Y')}, {'Y': g.input_grad('X')}, {})]


# --- sequence_slice --------------------------------------------------------------------------------------------------

defop('sequence_slice', ['X', 'Offset', 'Length'], ['Out'],
      grad=GradSpec(('X', 'Offset', 'Length', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('sequence_slice')
def _slice_shape(ctx):
    x = ctx.input_var('X')
    ctx.set_output('Out', (-1,) + tuple(x.shape[1:]), x.dtype)


@lod_rule('sequence_slice')
def _slice_lod(ctx):
    ctx.read('X')
    ctx.compute('Out', 1)


def _slice_args(spec, x, x_lod, offset, length):
    name = input_name(spec, 'X')
    offsets = last_level(x_lod, x, 'SequenceSliceOp', name, max_levels=1)
    start = np.asarray(offset, np.int64).reshape(-1)
    size = np.asarray(length, np.int64).reshape(-1)
    n = offsets.shape[0] - 1
    if start.shape[0] != n or size.shape[0] != n:
        raise EnforceNotMet("sequence_slice: The size of input X's lod should be equal to the number of Offset and "
                            "Length: '%s' has %d sequences, Offset %d, Length %d" % (name, n, start.shape[0],
                                                                                     size.shape[0]))
    lengths = np.diff(offsets)
    bad = np.nonzero((start < 0) | (size < 0) | (start + size > lengths))[0]
    if bad.size:
        i = int(bad[0])
        raise EnforceNotMet("sequence_slice: The target tensor's length overflow: sequence %d of '%s' has %d rows, "
                            "offset %d, length %d" % (i, name, lengths[i], start[i], size[i]))
    return offsets, start, size


@kernel_rule('sequence_slice')
def _slice_kernel(spec):
    def run(x, offset, length, x_lod):
        offsets, start, size = _slice_args(spec, x, x_lod, offset, length)
        out, out_offsets = KS.slice_forward(rows2d(x), offsets, start, size)
        return out.reshape((out.shape[0],) + x.shape[1:]), _lod_of(out_offsets)
    return run


lod_rule('sequence_slice_grad')(_share_grad)


@kernel_rule('sequence_slice_grad')
def _slice_grad_kernel(spec):
    def run(x, offset, length, dout, x_lod):
        offsets, start, size = _slice_args(spec, x, x_lod, offset, length)
        return (KS.slice_backward(rows2d(dout), offsets, start, size, x.shape[0]).reshape(x.shape),)
    return run


# --- sequence_enumerate / sequence_erase (int ids, no gradient) ------------------------------------------------------

defop('sequence_enumerate', ['X'], ['Out'], {'win_size': 2, 'pad_value': 0})
defop('sequence_erase', ['X'], ['Out'], {'tokens': []})


@shape_rule('sequence_enumerate')
def _enumerate_shape(ctx):
    x = ctx.input_var('X')
    win = int(ctx.attr('win_size'))
    if win < 2:
        raise ValueError("sequence_enumerate: The window size should be not less than 2, got %d" % win)
    ctx.set_output('Out', (x.shape[0], win), x.dtype)


@lod_rule('sequence_enumerate')
def _enumerate_lod(ctx):
    ctx.read('X')
    ctx.share('X', 'Out')


def _ids(x, name: str, op_name: str) -> np.ndarray:
    if x.size != x.shape[0] or x.dtype.kind not in 'iu':
        raise EnforceNotMet("%s: Input(X) '%s' must hold one int id per row, got %s of shape %s"
                            % (op_name, name, x.dtype, list(x.shape)))
    return x.reshape(-1)


@kernel_rule('sequence_enumerate')
def _enumerate_kernel(spec):
    win, pad_value = int(spec.attr('win_size')), int(spec.attr('pad_value'))
    name = input_name(spec, 'X')

    def run(x, x_lod):
        offsets = last_level(x_lod, x, 'SequenceEnumerateOp', name)
        return (KS.enumerate_forward(_ids(x, name, 'SequenceEnumerateOp'), offsets, win, pad_value),)
    return run


@shape_rule('sequence_erase')
def _erase_shape(ctx):
    x = ctx.input_var('X')
    ctx.set_output('Out', (-1,) + tuple(x.shape[1:]), x.dtype)


@lod_rule('sequence_erase')
def _erase_lod(ctx):
    ctx.read('X')
    ctx.compute('Out', ctx.levels('X'))


@kernel_rule('sequence_erase')
def _erase_kernel(spec):
    tokens = np.asarray(spec.attr('tokens') or [], np.int64)
    name = input_name(spec, 'X')

    def run(x, x_lod):
        offsets = last_level(x_lod, x, 'SequenceEraseOp', name)
        out, out_offsets = KS.erase_forward(_ids(x, name, 'SequenceEraseOp'), offsets, tokens)
        return out.reshape((out.shape[0],) + x.shape[1:]), x_lod[:-1] + _lod_of(out_offsets)
    return run


# --- sequence_scatter ------------------------------------------------------------------------------------------------

defop('sequence_scatter', ['X', 'Ids', 'Updates'], ['Out'],
      grad=GradSpec(('X', 'Ids', 'Updates', 'Out@GRAD'), ('X@GRAD', 'Updates@GRAD')))


@shape_rule('sequence_scatter')
def _scatter_shape(ctx):
    x = ctx.input_var('X')
    ctx.set_output('Out', x.shape, x.dtype)


@lod_rule('sequence_scatter')
def _scatter_lod(ctx):
    ctx.read('Ids')


def _scatter_offsets(spec, x, ids, ids_lod) -> np.ndarray:
    name = input_name(spec, 'Ids')
    offsets = last_level(ids_lod, ids, 'SequenceScatterOp', name, 'Ids')
    if offsets.shape[0] - 1 != x.shape[0]:
        raise EnforceNotMet("sequence_scatter: the number of sequences of Ids '%s' (%d) must equal the rows of X "
                            "'%s' (%d)" % (name, offsets.shape[0] - 1, input_name(spec, 'X'), x.shape[0]))
    flat = np.asarray(ids).reshape(-1)
    width = rows2d(x).shape[1]
    if flat.size and (flat.min() < 0 or flat.max() >= width):
        raise EnforceNotMet("sequence_scatter: the ids of '%s' must be in [0, %d), got %s"
                            % (name, width, flat.tolist()))
    return offsets


@kernel_rule('sequence_scatter')
def _scatter_kernel(spec):
    def run(x, ids, updates, ids_lod):
        offsets = _scatter_offsets(spec, x, ids, ids_lod)
        if np.size(updates) != np.size(ids):
            raise EnforceNotMet("sequence_scatter: Updates '%s' must hold one value per id of '%s' (%d), got %d"
                                % (input_name(spec, 'Updates'), input_name(spec, 'Ids'), np.size(ids),
                                   np.size(updates)))
        return (KS.scatter_forward(rows2d(x), ids, updates, offsets).reshape(x.shape),)
    return run


@lod_rule('sequence_scatter_grad')
def _scatter_grad_lod(ctx):
    ctx.read('Ids')
    ctx.share('Updates', 'Updates@GRAD')


@kernel_rule('sequence_scatter_grad')
def _scatter_grad_kernel(spec):
    want_x, want_upd = spec.has_output('X@GRAD'), spec.has_output('Updates@GRAD')

    def run(x, ids, updates, dout, ids_lod):
        offsets = _scatter_offsets(spec, x, ids, ids_lod)
        dupd = KS.scatter_backward(rows2d(dout), ids, offsets).reshape(updates.shape) if want_upd else None
        return (dout if want_x else None), dupd
    return run


# --- lod_reset / lod_append ------------------------------------------------------------------------------------------

defop('lod_reset', ['X', 'Y'], ['Out'], {'target_lod': [], 'append': False}, dispensable=['Y'],
      grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('lod_reset')
def _lod_reset_shape(ctx):
    x = ctx.input_var('X')
    ctx.set_output('Out', x.shape, x.dtype)


@lod_rule('lod_reset')
def _lod_reset_lod(ctx):
    ctx.read('X')
    ctx.read('Y')
    if ctx.has_input('Y') and ctx.levels('Y') > 0:
        levels = ctx.levels('Y')
    else:
        levels = 1 + (ctx.levels('X') if ctx.attr('append', False) else 0)
    ctx.compute('Out', levels)


@kernel_rule('lod_reset')
def _lod_reset_kernel(spec):
    append = bool(spec.attr('append'))
    target = [int(v) for v in spec.attr('target_lod') or []]
    x_name = input_name(spec, 'X')

    def run(x, y, x_lod, y_lod):
        if y is not None and y_lod:
            last = y_lod[-1]
            if int(last[-1]) != x.shape[0]:
                raise EnforceNotMet("The last value of Input(Y)'s last level LoD should be equal to the first "
                                    "dimension of Input(X). But received the last value of Input(Y)'s last level "
                                    "LoD is %d, the first dimension of Input(X) '%s' is %d."
                                    % (int(last[-1]), x_name, x.shape[0]))
            return x, y_lod
        level0 = np.asarray(y, np.int64).reshape(-1) if y is not None else np.asarray(target, np.int64)
        if level0.shape[0] < 2:
            raise EnforceNotMet("The size of target LoD should be greater than 1. But received the size of target "
                                "LoD is %d." % level0.shape[0])
        if level0[0] != 0:
            raise EnforceNotMet("Target LoD should be a vector starting from 0. But target LoD starts from %d."
                                % level0[0])
        if level0[-1] != x.shape[0]:
            raise EnforceNotMet("The last value of 'Target LoD''s last level LoD should be equal to the first "
                                "dimension of Input(X). But received the 'Target LoD' is %s, Input(X) '%s''s shape "
                                "is %s." % (level0.tolist(), x_name, list(x.shape)))
        if np.any(level0[1:] < level0[:-1]):
            raise EnforceNotMet("'Target LoD' should be an ascending vector. But received the Target LoD is %s."
                                % level0.tolist())
        new = _lod_of(level0)
        return x, ((x_lod or NO_LOD) + new if append else new)
    return run


lod_rule('lod_reset_grad')(lambda ctx: ctx.share('X', 'X@GRAD'))


@kernel_rule('lod_reset_grad')
def _lod_reset_grad_kernel(spec):
    return lambda x, dout: (dout,)
