"""Bound parameters: a lane's scope arrays handed to its compiled segment as one table, not one argument each.

    binder = Binder(segment, holders, dtypes)      # the lane's segment and its scope holders, in argument order
    state = binder.state[0]                        # (tick, fn, table, arrays, outputs)
    if state[0] != HOLDER_TICK[0]:                 # a holder replaced (or never bound): look again
        state = binder.rebind(fed)                 # the same arrays (a new tick), a new table, or fn None
    res = state[1](state[2], *fed)                 # when fn is not None; (progress, table, *fed) if tracked
    status = state[1](state[2], *fed, *outs)       # the into variant, when outputs is not None (below)

Why. numba's dispatch types and unboxes every argument in Python, with the GIL held: ~70 ns an array, 1.0 us for the
serving tower's 14 parameters and its feed, against 0.25 us for one int64 table and the feed (measured in one
process, a trivial body). On two cores, with several serving threads, the time a request holds the GIL decides how
far it scales (docs/compiled.md, "What a serving request is made of").

The table. Per bound argument, its data address and its dimensions: `[address, d0, d1, ..., address, d0, ...]`
(int64), then, for a lane that takes serving turns (a gated lane: policies/serving_turn.py), the turn word's
address. The bound variant of the segment's code (codegen.segment_source with `bound`) starts with one
`carray(address_at(table[i]), (table[i + 1], ...), dtype)` per bound argument (C-contiguous arrays of the dtype and
rank written in the text), then is the segment's own text. The addresses are never in the code: it stays the same
text for every process and numba caches it on disk as it caches the segment (the same key rules: the text, the
kernels' fingerprint, and this file's source in the title line).

When a table may be used, and what keeps it right:
- the holders still hold the arrays the table was made from: `HOLDER_TICK[0]` (framework/scope.py) still reads
  the tick read before they were. Every replacement of a tensor's value and every erase stores a new tick; an
  update in place keeps the array and its address. When the tick moved, `rebind` compares the holders' arrays
  with the table's (identity): the same arrays take the new tick, others a new table. Reshaping a holder's array
  in place (`a.shape = ...`, same size) is not seen: the table keeps the old dimensions;
- every bound array is a C-contiguous, aligned, writeable ndarray of rank >= 1 (what carray makes); otherwise the
  lane runs its usual path (the arrays as arguments);
- the table and the arrays it points into live in the state tuple, which the lane holds, and every request in
  flight holds the tuple it read: a table never outlives its arrays. numba keeps no owner for a carray, so a value
  the segment returns must not be one of them (or a view of one): only segments whose every output is a fresh
  array of one of its calls (`returns_fresh`) are bound;
- the bound code is used once it is compiled (loaded from numba's cache at once, else compiled in the background
  thread as the segment was; at once in 'sync' mode); until then, and for any other types (a feed of another
  layout: numba's no-match error), the lane's usual path runs;
- results: an untracked segment (no in-place update: the serving case) whose results are small arrays
  (INTO_BYTES in all) is bound in its *into* variant (codegen.py `into`): the lane allocates the result arrays in
  Python, of the shapes and dtypes the segment's usual call returned for this feed signature (`learn`, the
  binder's `outputs`), and the code writes them and returns 0, so numba boxes no result (~0.45 us a result,
  against ~0.15 us for np.empty). The first request of a lane takes the usual path and so learns them, and so does
  the first after a holder changed shape (its results may change shape with it). A value of another shape (a shape
  that depends on the data) returns 1: the lane takes its usual path for that request and
  the binder the plain variant from then on (`mismatch`; rerunning is safe: an untracked segment changes nothing
  in place). Larger results are returned as before: copying them would cost more than boxing them;
- a compile is asked for only once the lane is hot: after BIND_AFTER requests that found no bound code. Binding
  saves ~1 us a request and its compile costs 0.5-2 s of CPU, mostly with the GIL held (numba compiles in
  Python), so a lane that serves a handful of requests (a script's few runs, a test) never pays for it, and a
  serving lane binds within its first milliseconds. Code already in numba's disk cache is loaded at once.
"""
from __future__ import annotations

import hashlib
import threading

import numba
import numpy as np
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from ..framework.fetched_array import views_when_fetched
from ..framework.scope import HOLDER_TICK
from .codegen import segment_key, segment_source
from .jit_service import SERVICE, segment_code

__all__ = ['Binder', 'address_at', 'returns_fresh', 'BOUND_FINGERPRINT']


@intrinsic
def address_at(typingctx, address):
    """The int64 `address` as a void pointer (for numba.carray with a dtype)."""
    if not isinstance(address, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)
    return types.voidptr(address), codegen


def _fingerprint() -> str:
    with open(__file__, 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


BOUND_FINGERPRINT = _fingerprint()      # in the bound code's title: a change here changes its key
_TABLE_TYPE = numba.typeof(np.zeros(1, np.int64))
_PROGRESS_TYPE = _TABLE_TYPE
_UNBOUND = (None, None, None, (), None)     # never equal to a tick: the next request looks again
_BINDING_MODES = ('tiered', 'sync')     # CompileOptions.mode values whose segments have compiled code
BIND_AFTER = 64                         # requests without bound code before its compile is asked for (docstring)
INTO_BYTES = 4096                       # results up to this size in all are written into arrays the lane makes


def returns_fresh(segment) -> bool:
    """Whether every value the segment returns is an array one of its calls allocated (codegen.Call.fresh), never an
    input passed through or a view of one: a returned carray of a bound argument would have no owner."""
    inputs = set(segment.in_locals)
    maker = {}
    for call in segment.calls:
        for spec in call.outs:
            for s in (spec if type(spec) is tuple else (spec,)):
                if s is not None:
                    maker[s] = call
    for s in segment.out_locals:
        call = maker.get(s)
        if s in inputs or call is None or not call.fresh:
            return False
    return True


def _bindable(value) -> bool:
    if type(value) is not np.ndarray or not value.ndim:
        return False
    flags = value.flags
    return flags.c_contiguous and flags.aligned and flags.writeable


class Binder:
    """The bound state of one lane's segment (see the module docstring). `positions` are the segment's argument
    positions read from the scope (the rest are fed, in order), `tensors` their holders (LoDTensors)."""

    def __init__(self, segment, positions: tuple, tensors: tuple, turn: int | None = None):
        self.segment = segment
        self.turn = turn                         # the serving turn's word (policies/serving_turn.py), or None
        self.positions = tuple(positions)
        self.tensors = tuple(tensors)
        self.state = [_UNBOUND]                  # one tuple, replaced whole: readers never see half a state
        self._codes: dict = {}                   # (dtype, ndim) per bound argument -> its SegmentCode
        self._lock = threading.Lock()
        self._misses = 0                         # requests that found no bound code (BIND_AFTER)
        self.outputs = None     # the into variant's results ((shape, dtype, view) each), False: none; None: unknown
        self._learned_for = None                 # the holders' shapes when `outputs` was learned

    def learn(self, results: tuple) -> None:
        """The segment's results of a usual call for the lane's feed signature: the into variant's output arrays
        (the module docstring) when the segment is untracked and they are small arrays; else False."""
        if self.outputs is not None:
            return
        self._learned_for = tuple(getattr(t.value, 'shape', None) for t in self.tensors)
        if (self.segment.tracked or not all(type(r) is np.ndarray for r in results)
                or sum(r.nbytes for r in results) > INTO_BYTES):
            self.outputs = False
        else:
            self.outputs = tuple((r.shape, r.dtype, views_when_fetched(r.ndim, r.size)) for r in results)

    def mismatch(self) -> None:
        """The into variant met a result of another shape (it depends on the data): the plain variant from now on."""
        self.outputs = False
        self.state[0] = _UNBOUND

    def rebind(self, fed: tuple) -> tuple:
        """The state for the holders as they are now (the tick read first, then the arrays), kept for the next
        requests unless it may change without a tick (the segment or the bound code still compiling). Its fn is
        None when this request takes the usual path. `fed` are the request's fed arrays (their numba types
        complete the bound code's signature)."""
        tick = HOLDER_TICK[0]
        arrays = tuple(t.value for t in self.tensors)
        old = self.state[0]
        outputs = self.outputs or None
        if old[1] is not None and old[4] is outputs and all(a is b for a, b in zip(arrays, old[3])):
            state = self.state[0] = (tick, old[1], old[2], old[3], outputs)
            return state
        if self.outputs is not None and tuple(getattr(a, 'shape', None) for a in arrays) != self._learned_for:
            self.outputs = outputs = None       # parameters of other shapes: results of other shapes, learn again
        segment = self.segment
        if segment.compiled is None or (self.outputs is None and not segment.tracked):
            return _UNBOUND             # no compiled tier yet, or results not seen yet (learn): the usual path
        if segment.mode not in _BINDING_MODES or not all(_bindable(a) for a in arrays):
            state = self.state[0] = (tick, None, None, (), None)      # the usual path until a holder changes
            return state
        layout = tuple((a.dtype, a.ndim) for a in arrays)
        results = () if outputs is None else tuple(np.empty(shape, dtype) for shape, dtype, _ in outputs)
        fn = self._ready(self._code(layout, outputs is not None), fed + results)
        if fn is None:
            return _UNBOUND             # compiling: look again at the next request
        table = []
        for a in arrays:
            table.append(a.ctypes.data)
            table.extend(a.shape)
        if self.turn is not None:
            table.append(self.turn)
        state = self.state[0] = (tick, fn, np.array(table, np.int64), arrays, outputs)
        return state

    def _code(self, layout: tuple, into: bool):
        code = self._codes.get((layout, into))
        if code is None:
            segment = self.segment
            positions = set(self.positions)
            bound = [(segment.in_locals[p], dtype, ndim) for p, (dtype, ndim) in zip(self.positions, layout)]
            rest = [s for p, s in enumerate(segment.in_locals) if p not in positions]
            title = '%s; parameters bound%s%s (bound.py %s)' % (
                segment.label, ', results into' if into else '', ', serving turns' if self.turn is not None else '',
                BOUND_FINGERPRINT)
            source = segment_source(segment.calls, rest, segment.out_locals, title, bound=bound, into=into,
                                    turn=self.turn is not None)
            code = self._codes[(layout, into)] = segment_code(source, segment_key(source), segment.code.folder)
        return code

    def _ready(self, code, args: tuple):
        """The bound code's runtime dispatcher when its signature is compiled; else None (and, once the lane is hot,
        a compile on the way: now in 'sync' mode, else in the background; code in numba's cache is loaded now).
        `args`: the arguments after the table (the fed arrays, then the into variant's results)."""
        signature = ((_PROGRESS_TYPE,) if self.segment.tracked else ()) + (_TABLE_TYPE,) + tuple(
            numba.typeof(f) for f in args)
        if signature in code.ready:
            return code.runtime
        if signature in code.failed:
            return None
        with self._lock:
            self._misses += 1
            hot = self._misses > BIND_AFTER
            # the disk cache is read at the first miss and once hot (reading its index costs a file load)
            if ((hot or self._misses == 1) and code.is_cached(signature)) or (hot and self.segment.mode == 'sync'):
                code.compile(signature)
            elif hot:
                SERVICE.request(code, signature)
        return code.runtime if signature in code.ready else None
