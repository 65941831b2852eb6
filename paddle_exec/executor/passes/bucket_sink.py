"""The bucket sink pass: backward writes a bucket's gradients straight into the bucket's all-reduce buffer.

    sink_buckets(plan, block, options)       # compile.py, after the segment pass

A dense gradient bucket (passes/collective.py) is all-reduced from one contiguous buffer. Without this pass the
bucket's start packs the gradients into it (one copy of the bucket's bytes, of gradients made a while ago and
no longer in cache) and all-reduces it in place. With it, the compiled segment that makes the gradients (Paddle's
coalesce_grad_tensor, Horovod's fusion buffer) writes each one into its view of a free buffer of the bucket's pool
right after the call that makes it, while the bytes are in cache and with the GIL released, and returns the
views themselves as the gradients; the bucket's start finds its values are those views and all-reduces the
buffer as it stands: no pack, no Python loop over the members (one identity check each, in C),
MPI_Allreduce(IN_PLACE).

Which buckets. One place per trainer (a plain Executor or a CompiledProgram on one place); a dense bucket whose
members all have static shapes and the bucket's dtype, all made by ONE segment node that updates nothing in place
(its generated code records no progress, so a failed compiled call can be run again from the same inputs), each
member written by one call of the segment and by no other node before the bucket's start. Anything else keeps the
pack. One segment may fill several buckets (small buckets, or fusion off: a bucket per gradient); its sink variant
takes all their views.

Run time (`_SinkStep`). The segment node's step becomes the sink step. Until the sink variant of the segment's code
is compiled for this run's argument types, it runs the segment's own step (tiers as segment_node.py describes) and
the bucket packs; the first run after the segment's own code went compiled requests the sink variant (loaded at
once from numba's cache when there, else compiled by the segment compile service in the background, or at once in
the 'sync' mode). Then each run takes a free buffer of each bucket's pool (`BucketSink.acquire`: one whose views
nobody outside still holds, e.g. a fetched gradient keeps its buffer), calls the compiled sink variant with the
views, stores its outputs (the views for the members) and hands each buffer to its bucket's start
(`BucketSink.entry`).
A compiled call that raises runs the segment's own step instead, which reports an op's error as it always did;
arguments of types the sink variant was not compiled for turn the sink off for the plan (the pack path remains).

The numbers are the segment's own (the copy into the view is exact), so a run with sinks is bit-identical to one
with the pack. A run of the plan is assumed not to overlap another run of the same plan (the collectives' order
already demands it of a job).
"""
from __future__ import annotations

from operator import itemgetter

import numba
import numpy as np

from ..codegen import segment_key, segment_source
from ..jit_service import SERVICE, segment_code
from ..plan import spec_slots
from ..segment_node import SegmentNode, no_matching_definition
from .collective import BucketState

__all__ = ['sink_buckets', 'sink_state']


def sink_state(node) -> BucketState | None:
    """The BucketState of a bucket_start node's kernel, else None."""
    state = getattr(node.kernel, 'state', None)
    return state if isinstance(state, BucketState) else None


def _static_shape(block, name: str) -> tuple | None:
    var = block._find_var_recursive(name)
    if var is None or var.shape is None or any(int(d) < 0 for d in var.shape):
        return None
    return tuple(int(d) for d in var.shape)


def _writers(nodes) -> dict:
    """slot -> indices of the nodes that bind it (segments: their outputs; others: their output specs). The plan's
    dependencies order every writer of a slot with its readers, so the writers before a reader in the node order
    are the ones whose value it can read."""
    writers: dict = {}
    for i, nd in enumerate(nodes):
        specs = nd.segment.outputs if isinstance(nd, SegmentNode) else nd.out_spec
        for spec in specs:
            for s in spec_slots(spec):
                writers.setdefault(s, set()).add(i)
    return writers


def _sink_locals(segment, slots: tuple) -> list | None:
    """The segment's output locals of the bucket's slots, when each is made by exactly one of its calls."""
    if segment.tracked or any(s not in segment.outputs for s in slots):
        return None
    locals_ = [segment.out_locals[segment.outputs.index(s)] for s in slots]
    made: dict = {}
    for call in segment.calls:
        for spec in call.outs:
            for s in spec_slots(spec):
                made[s] = made.get(s, 0) + 1
    if any(made.get(s, 0) != 1 for s in locals_) or len(set(locals_)) != len(locals_):
        return None
    return locals_


def sink_buckets(plan, block, options) -> None:
    """Gives each bucket that qualifies (see the module docstring) a sink in the segment that makes it."""
    if options.mode not in ('tiered', 'sync'):
        return
    nodes = plan.nodes
    writers = None
    wanted: dict = {}           # segment node index -> [(state, sink locals, member shapes)] in bucket order
    for at, node in enumerate(nodes):
        state = sink_state(node)
        if state is None or state.n_places != 1 or state.bucket.sparse or state.sink is not None:
            continue
        slots = node.in_spec[0]
        if type(slots) is not tuple or len(slots) != len(state.bucket.names):
            continue
        shapes = [_static_shape(block, name) for name in state.bucket.names]
        if any(shape is None for shape in shapes):
            continue
        if writers is None:
            writers = _writers(nodes)
        # the nodes that bind the members before the start (the bucket's wait binds them again after it)
        makers = {frozenset(i for i in writers.get(s, ()) if i < at) for s in slots}
        if len(makers) != 1:
            continue
        maker = next(iter(makers))
        if len(maker) != 1:
            continue
        j = next(iter(maker))
        if not isinstance(nodes[j], SegmentNode):
            continue
        locals_ = _sink_locals(nodes[j].segment, slots)
        if locals_ is not None:
            wanted.setdefault(j, []).append((state, locals_, shapes, slots))
    for j, buckets in wanted.items():
        segment = nodes[j].segment
        sunk = [s for _, locals_, _, _ in buckets for s in locals_]
        indices = ', '.join(str(state.bucket.index) for state, _, _, _ in buckets)
        title = '%s; gradients into buckets %s' % (segment.label, indices)
        source = segment_source(segment.calls, segment.in_locals, segment.out_locals, title, sinks=sunk)
        code = segment_code(source, segment_key(source), options.cache_dir)
        sinks = [state.make_sink(shapes) for state, _, shapes, _ in buckets]
        slots = [s for _, _, _, bucket_slots in buckets for s in bucket_slots]
        nodes[j].step = _SinkStep(segment, sinks, slots, code, options.mode)


class _SinkStep:
    """A segment node's step that writes a bucket's gradients into the bucket's buffer (see the module docstring).
    `fn` is the compiled sink variant once it is ready; `off` when it may not be used for this plan."""

    __slots__ = ('segment', 'sinks', 'slots', 'sink', 'code', 'mode', 'base', 'gather', 'outs', 'frees', 'fn',
                 'signature', 'off')

    def __init__(self, segment, sinks: list, slots: list, code, mode: str):
        self.segment = segment
        self.sinks = tuple(sinks)
        self.slots = tuple(slots)           # the sunk members' slots, in the order of the sinks' views
        self.sink = sinks[0] if len(sinks) == 1 else None       # the one bucket: the shortest path
        self.code = code
        self.mode = mode
        self.base = segment.make_step()
        inputs = segment.inputs
        if len(inputs) > 1:
            self.gather = itemgetter(*inputs)
        else:
            s0 = inputs[0]
            self.gather = lambda values: (values[s0],)
        self.outs = tuple(enumerate(segment.outputs))
        self.frees = tuple(segment.frees)
        self.fn = None
        self.signature = None
        self.off = False

    def __call__(self, values: list) -> None:
        fn = self.fn
        if fn is None:
            self._before_sink(values)
            return
        args = self.gather(values)
        sink = self.sink
        if sink is not None:
            entry = sink.acquire()
            views = entry.views
        else:
            entries = [s.acquire() for s in self.sinks]
            views = tuple(v for e in entries for v in e.views)
        try:
            res = fn(*args, *views)
        except Exception as exc:
            if no_matching_definition(exc):
                self.fn, self.off = None, True      # other argument types from now on: the pack path
            self.base(values)
            return
        if sink is not None:
            sink.entry = entry
        else:
            for s, e in zip(self.sinks, entries):
                s.entry = e
        for k, s in self.outs:
            values[s] = res[k]
        for s in self.frees:
            values[s] = None

    def _before_sink(self, values: list) -> None:
        """The segment's own step; once its code runs compiled, the sink variant is requested and then used."""
        args = self.gather(values) if not self.off and self.segment.compiled is not None else None
        self.base(values)
        if args is None:
            return
        code = self.code
        if self.signature is None:
            views = tuple(v for s in self.sinks for v in s.acquire().views)
            if not all(isinstance(a, np.ndarray) for a in args) or not self._fits(values, views):
                return
            self.signature = tuple(numba.typeof(a) for a in args + views)
            if self.mode == 'sync' or code.is_cached(self.signature):
                code.compile(self.signature)
            else:
                SERVICE.request(code, self.signature)
        if self.signature in code.ready:
            self.fn = code.runtime
        elif self.signature in code.failed:
            self.off = True

    def _fits(self, values: list, views: tuple) -> bool:
        """Whether the gradients the segment made in this run have the views' dtypes and shapes (a copy into the
        views could cast where the pack would have kept a dtype the program did not declare): else the sink is off."""
        for s, view in zip(self.slots, views):
            v = values[s]
            if type(v) is not np.ndarray or v.dtype != view.dtype or v.shape != view.shape:
                self.off = True
                return False
        return True
