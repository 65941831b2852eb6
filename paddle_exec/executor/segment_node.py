"""A compiled segment at run time: one plan node that runs a run of ops as one numba function, in tiers.

    segment = Segment(calls, inputs, outputs, in_locals, out_locals, frees, members, code, mode, compile_after, label)
    node = SegmentNode(index, segment, place)          # node.step(values), as any PlanNode

Tiers (the first that applies runs the call):
    compiled    the generated function, when the segment's code has the arguments' signature (dtypes, ranks,
                layouts): the inputs go in, the GIL is released for the whole segment, the outputs come back
    reference   the numpy twins of the kernels, call by call (no numba at all): the first runs of a segment, and
                any run whose signature is still compiling. At the `compile_after`-th run the signature is
                requested: loaded at once when numba's cache holds it (a few milliseconds), else compiled in the
                background thread (jit_service.py); the next run after it is ready is compiled. Mode 'sync'
                compiles at the first run instead and never uses this tier.
    ops         the member nodes' own kernels, one by one on the plan's values: for inputs the kernels cannot
                take (a SelectedRows gradient, a LoD value, anything not an ndarray) and for a signature that failed
                to compile.

Both numeric tiers compute the same numbers (kernels/segment/: the twins repeat the kernels' arithmetic; a BLAS
product calls the same routine). Which tier ran is never visible in the results beyond that.

Failures. A kernel raises ValueError for inputs it cannot take (shapes); the generated code of a segment that
updates anything in place records the call in flight in `progress[0]` (a per-thread array; other segments have
no such argument). When no call before it updated anything in place, the reference tier runs the segment
again from the same inputs: it raises the op's own error (Paddle's wording) naming the op, or, if the kernel was
stricter than the op, computes the result. Otherwise the error is raised naming the op that failed.

State: the tier counters and `compiled` are written by whichever thread runs the segment; a lost update only
delays a switch by a run. A segment is shared by the runs of its plan (the runner's PlanCache); its code by every
plan with the same key (jit_service.py).
"""
from __future__ import annotations

import threading
from operator import itemgetter

import numba
import numpy as np

from .codegen import tracks_progress
from .jit_service import SERVICE
from .plan import PlanNode
from .policies.base import op_failure, run_in_order

__all__ = ['PROGRESS_LOCAL', 'Segment', 'SegmentNode', 'TIERS', 'thread_progress']

TIERS = ('compiled', 'reference', 'ops')
_INT64 = np.int64
PROGRESS_LOCAL = threading.local()          # each thread's `progress` array (one per thread: runs of a segment overlap)


def thread_progress():
    """This thread's `progress` array (the first argument of a segment that updates in place)."""
    try:
        return PROGRESS_LOCAL.progress
    except AttributeError:
        progress = PROGRESS_LOCAL.progress = np.zeros(1, _INT64)
        return progress


def _signature(args: tuple) -> tuple:
    return tuple(numba.typeof(a) for a in args)


def no_matching_definition(exc: BaseException) -> bool:
    """numba's error for arguments the runtime dispatcher has no machine code for."""
    return isinstance(exc, TypeError) and 'No matching definition' in str(exc)


class Segment:
    """The calls of one segment and its tier state (see the module docstring)."""

    def __init__(self, calls: list, inputs: list, outputs: list, in_locals: list, out_locals: list, frees: list,
                 members: list, code, mode: str, compile_after: int, label: str, updated: list = ()):
        self.calls = calls                  # in local names (codegen.py): what the generated function does
        self.inputs = list(inputs)          # plan slots read, in the function's argument order
        self.outputs = list(outputs)        # plan slots written, in the order the function returns them
        self.in_locals = list(in_locals)
        self.out_locals = list(out_locals)
        self.frees = list(frees)
        self.members = members
        self.code = code
        self.mode = mode
        self.compile_after = max(1, compile_after)
        self.label = label
        self.compiled = None
        self.runs = 0
        # runs of the slower tiers, and of the compiled tier when entered from them (the compiled tier's own runs are
        # not counted: a counter costs on the path that matters); for tests, benchmarks and debugging
        self.counts = {tier: 0 for tier in TIERS}
        first = [k for k, c in enumerate(calls) if c.in_place]
        self.first_in_place = first[0] if first else len(calls)
        self.tracked = tracks_progress(calls)      # the generated function's first argument is `progress`
        self.updated = tuple(updated)       # argument positions updated in place (not returned)
        # shared by the segments of one plan (passes/segments.py): counts switches to the compiled tier, so the
        # threaded policy measures its parallel / in-order choice again on the plan as it now runs
        self.tier_changes = [0]

    # --- the step ---------------------------------------------------------------------------------------------------
    def make_step(self):
        """The node's step(values): gather the inputs, run a tier, store the outputs, free what died here."""
        inputs = self.inputs
        if len(inputs) > 1:
            gather = itemgetter(*inputs)
        elif inputs:
            s0 = inputs[0]
            gather = lambda values: (values[s0],)
        else:
            gather = lambda values: ()
        outs = tuple(enumerate(self.outputs))
        frees = tuple(self.frees)
        segment = self
        if not self.tracked:
            def untracked_step(values):
                args = gather(values)
                fn = segment.compiled
                if fn is not None:
                    try:
                        res = fn(*args)
                    except Exception as exc:
                        res = segment.after_failure(args, values, None, exc)
                else:
                    res = segment.slow(args, values)
                if res is None:
                    return
                for k, s in outs:
                    values[s] = res[k]
                for s in frees:
                    values[s] = None
            return untracked_step

        def step(values):
            args = gather(values)
            fn = segment.compiled
            if fn is not None:
                try:
                    progress = PROGRESS_LOCAL.progress
                except AttributeError:
                    progress = thread_progress()
                try:
                    res = fn(progress, *args)
                except Exception as exc:
                    res = segment.after_failure(args, values, progress, exc)
            else:
                res = segment.slow(args, values)
            if res is None:            # the ops tier stored its results itself
                return
            for k, s in outs:
                values[s] = res[k]
            for s in frees:
                values[s] = None
        return step

    # --- tiers ------------------------------------------------------------------------------------------------------
    def slow(self, args: tuple, values: list):
        """No compiled code for this run yet (or for these types): request it, run the reference (or ops) tier."""
        if not all(isinstance(a, np.ndarray) and a.ndim for a in args) or not self._updatable(args):
            return self.run_ops(values)         # also 0-D arrays: the kernels take rank >= 1
        if self.mode == 'reference':
            return self.run_reference(args)
        code = self.code
        self.runs += 1
        if self.mode == 'sync' or self.runs >= self.compile_after:
            signature = _signature(((np.zeros(1, _INT64),) if self.tracked else ()) + args)
            if signature in code.failed:
                return self.run_ops(values)
            if signature not in code.ready:
                if self.mode == 'sync' or code.is_cached(signature):
                    code.compile(signature)         # now: compiling (sync mode) or loading numba's cached code
                else:
                    SERVICE.request(code, signature)
            if signature in code.ready:
                self.compiled = code.runtime
                self.tier_changes[0] += 1
                return self.run_compiled(args, values)
            if signature in code.failed:
                return self.run_ops(values)
        return self.run_reference(args)

    def _updatable(self, args: tuple) -> bool:
        """The arrays updated in place can be written as they are (C-contiguous, writeable): the segment returns
        no new array for them. Otherwise the ops' own kernels run (they copy, as Paddle's executor would not)."""
        for k in self.updated:
            flags = args[k].flags
            if not (flags.c_contiguous and flags.writeable):
                return False
        return True

    def run_compiled(self, args: tuple, values: list):
        progress = thread_progress() if self.tracked else None
        try:
            res = self.compiled(progress, *args) if self.tracked else self.compiled(*args)
        except Exception as exc:
            return self.after_failure(args, values, progress, exc)
        self.counts['compiled'] += 1
        return res

    def after_failure(self, args: tuple, values: list, progress, exc: Exception):
        """The compiled call raised: other types (a tier below), or an op failed (see the module docstring)."""
        if not all(isinstance(a, np.ndarray) for a in args):
            return self.run_ops(values)
        if no_matching_definition(exc):
            return self.slow(args, values)
        k = int(progress[0]) if progress is not None else 0     # untracked: no call updates in place
        if k <= self.first_in_place:
            return self.run_reference(args)
        raise op_failure(self.calls[k].nodes[0], exc) from exc

    def run_reference(self, args: tuple) -> tuple:
        env = dict(zip(self.in_locals, args))
        with np.errstate(all='ignore'):     # numba's kernels compute inf and nan silently: so do their twins
            self._reference_calls(env)
        self.counts['reference'] += 1
        return tuple(env[s] for s in self.out_locals)

    def _reference_calls(self, env: dict) -> None:
        for call in self.calls:
            ins = [env[s] if type(s) is int else tuple(env[x] for x in s) for s in call.ins]
            try:
                res = call.reference(*ins, *call.args)
            except Exception as exc:
                raise op_failure(call.nodes[0], exc) from exc
            if len(call.outs) == 1:
                _store(env, call.outs[0], res)
            else:
                for out, value in zip(call.outs, res):
                    _store(env, out, value)

    def run_ops(self, values: list) -> None:
        """The member nodes one by one on the plan's values (they store their outputs and free their slots)."""
        run_in_order(self.members, values)
        self.counts['ops'] += 1
        return None


def _store(env: dict, out, value) -> None:
    if out is None:
        return
    if type(out) is tuple:
        for s, v in zip(out, value):
            if s is not None:
                env[s] = v
    else:
        env[out] = value


class SegmentNode(PlanNode):
    """A plan node running a Segment; `in_spec` / `out_spec` are its input and output slots."""

    __slots__ = ('segment',)

    def __init__(self, index: int, segment: Segment, place: int = 0):
        super().__init__(index, None, None, tuple(segment.inputs), tuple(segment.outputs), segment.frees, place,
                         label=segment.label)
        self.segment = segment
        self.step = segment.make_step()

    def describe(self) -> str:
        where = ' on place %d' % self.place if self.place else ''
        return self.label + where

    @property
    def op_nodes(self) -> list:
        """The member nodes the segment runs, in order."""
        return self.segment.members
