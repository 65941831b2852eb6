"""The `print` op (fluid.layers.Print / paddle.static.Print): Out is In, and each run prints In as Paddle 1.8's
print op does, on stdout:

    1795599705<TAB>hello<TAB>The place is:CPUPlace
    Tensor[x]
    <TAB>shape: [2,3,]
    <TAB>dtype: f
    <TAB>LoD: [[ 0,1,3, ]]          (only for a tensor with LoD; <TAB> is a tab)
    <TAB>data: 0,1,2,3,

The first line is the Unix time in seconds, the message and the place; each other line is one of the
print_tensor_* switches (dtype as C++'s typeid names it: f float32, d float64, i int32, l int64, b bool, ...);
`summarize` elements are printed (-1: all), numbers as C++'s ostream writes them (6 significant digits).
`first_n` > 0 prints only the first n runs of the op (counted per compiled plan, as a ParallelExecutor counts).

Its gradient is a `print` op on Out@GRAD (is_forward False) that prints in the backward phase: an op prints when
print_phase is BOTH, or FORWARD for the forward op, BACKWARD for the gradient one (Paddle's PrintOpGradientMaker).
"""
from __future__ import annotations

import sys
import threading
import time

import numpy as np

from ..framework.registry import defop, grad_rule, kernel_rule, shape_rule
from ..framework.scope import LoDTensor

_PRINT_ATTRS = {'first_n': -1, 'summarize': 20, 'message': '', 'print_tensor_name': True,
                'print_tensor_type': True, 'print_tensor_shape': True, 'print_tensor_lod': True,
                'print_phase': 'BOTH', 'is_forward': True}

_TYPEID = {'float32': 'f', 'float64': 'd', 'int32': 'i', 'int64': 'l', 'bool': 'b', 'int8': 'a', 'uint8': 'h',
           'int16': 's', 'float16': 'N6paddle8platform7float16E'}

defop('print', ['In'], ['Out'], _PRINT_ATTRS, stateful=True)


@shape_rule('print')
def _print_shape(ctx):
    ctx.set_output('Out', ctx.in_shape('In'), ctx.in_dtype('In'))


@grad_rule('print')
def _print_grad(g):
    attrs = dict(g.attrs, is_forward=False)
    return [('print', {'In': g.output_grad('Out')}, {'Out': g.input_grad('In')}, attrs)]


def _number(value) -> str:
    """One element as C++'s default ostream formatting writes it."""
    if isinstance(value, (bool, np.bool_)):
        return '1' if value else '0'
    if isinstance(value, (np.integer, int)):
        return str(int(value))
    return '%g' % float(value)


def format_tensor(name: str, value, attrs: dict) -> str:
    """The text Paddle 1.8's print op writes for one tensor (see the module docstring)."""
    lod = []
    if isinstance(value, LoDTensor):
        lod = value.lod() or []
        value = value.value
    array = np.asarray(value)
    lines = ['%d\t%s\tThe place is:CPUPlace' % (int(time.time()), attrs['message'])]
    if attrs['print_tensor_name']:
        lines.append('Tensor[%s]' % name)
    if attrs['print_tensor_shape']:
        lines.append('\tshape: [%s]' % ''.join('%d,' % d for d in array.shape))
    if attrs['print_tensor_type']:
        lines.append('\tdtype: %s' % _TYPEID.get(array.dtype.name, array.dtype.name))
    if attrs['print_tensor_lod'] and lod:
        lines.append('\tLoD: [%s]' % ', '.join('[ %s ]' % ''.join('%d,' % o for o in level) for level in lod))
    flat = array.reshape(-1)
    n = flat.size if attrs['summarize'] == -1 else min(int(attrs['summarize']), flat.size)
    lines.append('\tdata: %s' % ''.join(_number(v) + ',' for v in flat[:n]))
    return '\n'.join(lines) + '\n'


@kernel_rule('print')
def _print_kernel(spec):
    attrs = {k: spec.attr(k, d) for k, d in _PRINT_ATTRS.items()}
    phase = str(attrs['print_phase']).upper()
    is_forward = bool(attrs['is_forward'])
    prints = phase == 'BOTH' or (phase == 'FORWARD' and is_forward) or (phase == 'BACKWARD' and not is_forward)
    name = spec.op.input('In')[0]
    first_n = int(attrs['first_n'])
    counter = [0]
    lock = threading.Lock()

    def run(x):
        if prints:
            with lock:
                counter[0] += 1
                due = first_n <= 0 or counter[0] <= first_n
            if due:
                sys.stdout.write(format_tensor(name, x, attrs))
                sys.stdout.flush()
        return (x,)
    return run
