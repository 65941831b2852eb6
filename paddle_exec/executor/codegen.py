"""Code generation for compiled segments: a list of kernel calls -> the Python source of one numba function.

    source = segment_source(calls, inputs, outputs, title)     # what passes/segments.py hands over
    key = segment_key(source)                                   # names the file, and so numba's cache of it

A segment (passes/segments.py) is a run of ops that each have a numba kernel (kernels/segment/); its code calls
the kernels in order on local variables, one per slot of the plan (`v<slot>`), and returns the values the rest of
the plan needs:

    from paddle_exec.kernels.segment.blas import mul as k0
    ...
    def segment(progress, v3, v7, v8):
        progress[0] = 0
        v9 = k0(v3, v7, 1, 1)
        progress[0] = 1
        v10 = k1(0, v9, v8, -1)
        ...
        return (v10, v12)

Everything a call needs that does not change from run to run is in the text as a literal (attributes, opcodes,
which gradients are wanted, the BLAS variant), so the text alone decides what the function computes; numba adds
the argument types (dtypes, ranks, layouts) as the signature. Shapes are not part of either: a new batch size runs
the same machine code. In a segment that updates anything in place, `progress[0]` records the call in flight, so a
failure is reported against its op and the runner knows whether the calls before it changed anything in place
(executor/segment_node.py); a segment without in-place updates has no `progress` argument.

Sinks (`sinks`, passes/bucket_sink.py): outputs the function writes into arrays it is given rather than returning
arrays of its own: a parameter `s<local>` after the inputs per sink, `sink_write(s<local>, v<local>)`
(kernels/segment/sink.py) right after the call that makes the value (the bytes still in cache), and `s<local>`
returned in its place, so the caller gets the very array it passed. The gradient all-reduce hands views of a
bucket's buffer this way. Without sinks the text is what it always was.

Bound arguments (`bound`, executor/bound.py): inputs read from a table of addresses and dimensions instead of
being arguments: `segment([progress,] table, *other inputs)` starts with `v<local> = carray(address_at(table[i]),
(table[i + 1], ...), np.<dtype>)` per bound input, then is the same text. A serving lane dispatches one table
instead of its parameters. Only the layout (dtype, rank, position in the table) is in the text, never an address.

Into (`into`, executor/bound.py): every output is written into an array the caller made for the shape it expects
(`o<local>` after the inputs; `if not write_same(o<local>, v<local>): return 1` right after the call that makes
the value) and the function returns 0, so numba boxes no result. A serving lane allocates the arrays in Python
(~0.15 us each, against ~0.45 us for numba to box a returned array) and on 1 (a value of another shape: its shape
depends on the data) takes its usual path.

Turn (`turn`, executor/policies/serving_turn.py; with `bound` only): the serving turn's word is the table's last
entry; the function starts with `turn_end(table[k])` (its thread's Python part is over) and, on its way out with
its results, ends with `turn_take(table[k])` (it waits, without the GIL, for another serving thread's Python part
to end, so its reacquire of the GIL finds the GIL free).

The key is a hash of the text and of a fingerprint of the kernels' sources and the numba/numpy versions: numba's
cache checks only the generated file, so a change in a kernel it calls must change the file's name.
"""
from __future__ import annotations

import hashlib
import math
import sys
from dataclasses import dataclass

import numpy as np

from ..kernels.jit import kernel_fingerprint
from ..kernels.segment.sink import write_into, write_same

__all__ = ['Call', 'segment_source', 'tracks_progress', 'segment_key', 'kernel_fingerprint', 'render_constant',
           'FUNCTION_NAME']

FUNCTION_NAME = 'segment'
SINK_ALIAS = 'sink_write'
INTO_ALIAS = 'write_same'
ADDRESS_ALIAS = 'address_at'
TURN_MODULE = 'paddle_exec.kernels.segment.turn'
BOUND_MODULE = 'paddle_exec.executor.bound'      # named, not imported: bound.py imports this module


@dataclass
class Call:
    """One kernel call of a segment.

    nodes      the plan nodes it stands for (several when fused), for errors and the per-op fallback
    kernel     the numba function; `reference` its numpy twin (the first tier)
    ins        per kernel input: a slot, or a tuple of slots (a duplicable input, passed as a tuple)
    outs       per kernel output: a slot, a tuple of slots (a duplicable output: a list, @EMPTY@ entries None),
               or None (an output nobody wants); one entry means the kernel returns the value itself
    args       the constant arguments after the inputs
    in_place   the call writes into its inputs (an optimizer update): a failure after it cannot be retried
    updates    the slots it updates in place (an output the same slot as the input it writes into)
    fresh      its outputs are arrays it allocated (not views of inputs): memory reuse may write into them
    label      how errors and listings name it
    fusion     the op's fusion tag (registry.SegmentOp.fusion), reuse its memory-reuse variant (until codegen)
    """
    nodes: list
    kernel: object
    reference: object
    ins: list
    outs: list
    args: tuple = ()
    in_place: bool = False
    fresh: bool = True
    label: str = ''
    fusion: tuple | None = None
    reuse: tuple | None = None
    updates: tuple = ()


def render_constant(value) -> str:
    """A constant as Python source that numba compiles to the same value."""
    if isinstance(value, (bool, np.bool_)):
        return 'True' if value else 'False'
    if isinstance(value, (int, np.integer)):
        return repr(int(value))
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isnan(value):
            return "float('nan')"
        if math.isinf(value):
            return "float('inf')" if value > 0 else "float('-inf')"
        return repr(value)
    if isinstance(value, tuple):
        inner = ', '.join(render_constant(v) for v in value)
        return '(%s,)' % inner if len(value) == 1 else '(%s)' % inner
    if isinstance(value, type) and issubclass(value, np.generic):
        return 'np.' + np.dtype(value).name
    if isinstance(value, str):
        return repr(value)
    raise TypeError('a segment constant must be a bool, int, float, str, numpy scalar type or a tuple of them, got '
                    '%r' % (value,))


def _import_name(kernel) -> tuple[str, str]:
    """(module, attribute) through which the generated code imports `kernel`."""
    module_name = kernel.py_func.__module__
    module = sys.modules[module_name]
    for name, value in vars(module).items():
        if value is kernel:
            return module_name, name
    raise ValueError('segment kernel %r is not a module-level name of %s' % (kernel, module_name))


def _slot_expr(spec) -> str:
    if type(spec) is tuple:
        items = ', '.join('v%d' % s for s in spec)
        return '(%s,)' % items if len(spec) == 1 else '(%s)' % items
    return 'v%d' % spec


def _assign(lines: list, target: str, out) -> None:
    """Statements binding the result expression `target` to the slots `out` names."""
    if out is None:
        return
    if type(out) is tuple:
        for i, s in enumerate(out):
            if s is not None:
                lines.append('    v%d = %s[%d]' % (s, target, i))
    else:
        lines.append('    v%d = %s' % (out, target))


def tracks_progress(calls: list) -> bool:
    """Whether the generated function records the call in flight (`progress`): only when some call updates its
    inputs in place. Without one, a failure is always retried from the same inputs by the numpy tier, which names
    the op itself, so nothing needs to know how far the compiled run got (one argument and one store per call
    fewer: the serving case)."""
    return any(c.in_place for c in calls)


def _made_locals(outs: list):
    """The locals a call's `outs` bind (a duplicable output's entries; None, an unwanted output, skipped)."""
    for spec in outs:
        for s in (spec if type(spec) is tuple else (spec,)):
            if s is not None:
                yield s


def _sink_lines(lines: list, outs: list, sinks: frozenset) -> None:
    """`write_into(s<local>, v<local>)` for the sunk values a call just made (see the module docstring)."""
    for s in _made_locals(outs):
        if s in sinks:
            lines.append('    %s(s%d, v%d)' % (SINK_ALIAS, s, s))


def _into_lines(lines: list, outs: list, outputs: list) -> None:
    """`if not write_same(o<local>, v<local>): return 1` for the outputs a call just made (see the docstring)."""
    for s in _made_locals(outs):
        if s in outputs:
            lines += ['    if not %s(o%d, v%d):' % (INTO_ALIAS, s, s), '        return 1']


def _bound_lines(bound) -> list:
    """`v<local> = carray(...)` per bound input, in table order (see the module docstring)."""
    lines, at = [], 0
    for local, dtype, ndim in bound:
        dims = ', '.join('table[%d]' % (at + 1 + d) for d in range(ndim))
        # the scalar type's own name (np.bool_ on numpy 1.x, where np.bool is gone; np.float32 ...)
        lines.append('    v%d = carray(%s(table[%d]), (%s,), np.%s)' % (local, ADDRESS_ALIAS, at, dims,
                                                                       np.dtype(dtype).type.__name__))
        at += 1 + ndim
    return lines


def segment_source(calls: list, inputs: list, outputs: list, title: str = '', sinks=(), bound=(),
                   into: bool = False, turn: bool = False) -> str:
    """The module text of one segment: imports, then `segment([progress,] [table,] *inputs, *sinks) ->
    tuple(outputs)`; `sinks` are output locals written into arrays passed after the inputs, `bound` (local, dtype,
    ndim) per input read from `table` instead, `into`: every output written into an array passed after the inputs,
    0 returned (1: a value of another shape), `turn`: the serving turn ended and taken with the word at the end of
    the table (see the module docstring)."""
    aliases: dict = {}
    imports = []
    for call in calls:
        if id(call.kernel) not in aliases:
            module, name = _import_name(call.kernel)
            alias = 'k%d' % len(aliases)
            aliases[id(call.kernel)] = alias
            imports.append('from %s import %s as %s' % (module, name, alias))
    sinks = tuple(sinks)
    sunk = frozenset(sinks)
    if sinks:
        module, name = _import_name(write_into)
        imports.append('from %s import %s as %s' % (module, name, SINK_ALIAS))
    if into:
        module, name = _import_name(write_same)
        imports.append('from %s import %s as %s' % (module, name, INTO_ALIAS))
    if bound:
        imports += ['from numba import carray', 'from %s import address_at as %s' % (BOUND_MODULE, ADDRESS_ALIAS)]
    if turn:
        if not bound:
            raise ValueError('a segment takes serving turns only with bound parameters (the word is in the table)')
        imports.append('from %s import turn_end, turn_take' % TURN_MODULE)
        word = 'table[%d]' % sum(1 + ndim for _, _, ndim in bound)
    head = ['"""paddle_exec compiled segment (generated; do not edit): %s"""' % title.replace('"', "'"),
            'import numpy as np', ''] + imports + ['', '']
    tracked = tracks_progress(calls)
    params = ', '.join((['progress'] if tracked else []) + (['table'] if bound else []) + ['v%d' % s for s in inputs]
                       + ['s%d' % s for s in sinks] + (['o%d' % s for s in outputs] if into else []))
    body = ['def %s(%s):' % (FUNCTION_NAME, params)] + (['    turn_end(%s)' % word] if turn else [])
    body += _bound_lines(bound)
    for k, call in enumerate(calls):
        args = [_slot_expr(s) for s in call.ins] + [render_constant(a) for a in call.args]
        expr = '%s(%s)' % (aliases[id(call.kernel)], ', '.join(args))
        if tracked:
            body.append('    progress[0] = %d' % k)
        if len(call.outs) == 1 and type(call.outs[0]) is not tuple:
            body.append('    v%d = %s' % (call.outs[0], expr) if call.outs[0] is not None else '    ' + expr)
        else:
            body.append('    r%d = %s' % (k, expr))
            if len(call.outs) == 1:
                _assign(body, 'r%d' % k, call.outs[0])
            else:
                for i, out in enumerate(call.outs):
                    _assign(body, 'r%d[%d]' % (k, i), out)
        if sunk:
            _sink_lines(body, call.outs, sunk)
        if into:
            _into_lines(body, call.outs, outputs)
    if turn:
        body.append('    turn_take(%s)' % word)
    if into:
        body.append('    return 0')
    else:
        rets = ', '.join(('s%d' if s in sunk else 'v%d') % s for s in outputs)
        body.append('    return (%s,)' % rets if len(outputs) == 1 else '    return (%s)' % rets)
    return '\n'.join(head + body) + '\n'


def segment_key(source: str) -> str:
    """The cache key of a segment: its text and the kernels it can call."""
    return hashlib.sha256((kernel_fingerprint() + '\0' + source).encode()).hexdigest()[:32]
