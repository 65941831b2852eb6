"""The collective pass: gradients averaged across trainers (processes) in fused, non-blocking buckets.

    ops, kinds, extra_deps = plan_collectives(block, ops, kinds, n_places, n_trainers, fuse, bucket_mb)

It runs inside the data-parallel plan builder (passes/data_parallel.py), on the per-place op list, for a program
with cross-process collectives (`c_allreduce_sum` ... inserted by a distributed optimizer, ops/collective.py) or a
CompiledProgram whose BuildStrategy.num_trainers > 1 (Paddle 1.x's nccl2 mode); a plain Executor's program with
collectives is planned the same way on one place.

1. Reduce points. A gradient (the grad of an `op_role_var` pair) is reduced across trainers where the program's
   `c_allreduce_sum` on it stands, or, under num_trainers > 1, where the data-parallel pass put its `all_reduce`
   over local places. A gradient with both is reduced once, at the program's op: places and processes combine
   (summed over the local places in place order, then across the processes), as Horovod does on CPUs.
2. Buckets. Reduce points are taken in program order and fused into buckets of one dtype of at most `bucket_mb`
   megabytes (Paddle's fuse_grad_size_in_MB; one gradient per bucket when fusion is off). A sparse gradient
   (SELECTED_ROWS) is a bucket of its own, gathered rather than summed.
3. Two nodes per bucket, spanning the places: `bucket_start` stands after the bucket's last reduce point: it sums
   each gradient over the places, packs the bucket into one buffer and hands it to the process group's
   communication thread (`allreduce_async`), then returns; backward goes on. (A bucket with no op between its
   two nodes is not handed over: it is reduced at once on the executing thread, `allreduce_now`, with no queue
   entry or thread hand-off.) `bucket_wait` stands before the first op that touches one of the bucket's gradients
   (the optimizer, usually): it waits for the buffer and hands out views of it as every place's gradients. It
   also waits for every op placed between the two, so a parallel policy never parks a thread on it early.
   The buffer is reused from step to step (MPI is slow on fresh pages) with its member views made once; the pack
   is the one copy of the gradients, where a bare MPI_Allreduce(send, recv) copies inside MPI. On one place the
   pack usually goes: the bucket sink pass (passes/bucket_sink.py, after the segment pass) has the compiled segment
   that makes the gradients write them into the views of a free buffer (`BucketSink`), and `bucket_start` finds
   them there and all-reduces the buffer as it stands, in place. The segment pass closes a segment before a
   `bucket_start` that reads it (ASYNC_STARTS), so the backward ops after the start still overlap the transfer.
4. One order. Every trainer must issue its collectives in the same order, whatever its threads do: each
   cross-process node (bucket starts and the program's other collectives) depends on the one before it.

Other collectives of the program (an all-reduce of a metric, c_broadcast, c_allgather, c_reduce_*, barrier) keep
their kernel on one place; on several places they become one node that combines the places first (reduce, place
0's value, or concatenation in (trainer, place) order; a c_reduce's result reaches the root's places only). The ops
that move parts of a tensor or go to one peer (ONE_PLACE_OPS) are refused on several places.

`check_same_program` is the startup check: the first run of a program with cross-process work compares a digest
of its collectives and parameters across the trainers, and names the first difference.
`sync_persistables` broadcasts trainer 0's persistables (Paddle's BCastParamsToDevices across trainers).
"""
from __future__ import annotations

import hashlib
import sys
from operator import is_

import numpy as np

from ...framework.collective import LocalGroup, get_group, ring_ranks
from ...framework.dtype import VarType, to_numpy
from ...framework.operator import OP_ROLE_ATTR, OP_ROLE_VAR_ATTR, Operator, OpRole
from ...framework.registry import OpInfo
from ...framework.scope import SelectedRows
from ...framework.variable import EMPTY_VAR_NAME
from ...ops.collective import (
    ALLREDUCE_OPS,
    CROSS_PROCESS_OPS,
    ONE_PLACE_OPS,
    P2P_OPS,
    ROOT_REDUCE_OPS,
    reduce_selected_rows,
)

__all__ = ['ASYNC_STARTS', 'BUCKET_INFOS', 'BucketSink', 'BucketState', 'has_cross_process_ops', 'plan_collectives',
           'span_node', 'check_same_program', 'sync_persistables', 'check_trainers']

BUCKET_INFOS = {
    'bucket_start': OpInfo('bucket_start', ('X',), ('Handle',), duplicable=frozenset({'X'})),
    'bucket_wait': OpInfo('bucket_wait', ('Handle',), ('Out',), duplicable=frozenset({'Out'})),
}
# node ops that hand work to another thread and return: what runs after them overlaps that work, so the segment
# pass (segments.py, step 2) never moves their successors' ops into a segment that runs before them
ASYNC_STARTS = frozenset({'bucket_start'})
_SPAN_TYPES = CROSS_PROCESS_OPS - {'c_comm_init', 'gen_nccl_id'}
_MB = 1 << 20
_POOL_SIZE = 4          # buffers kept per bucket (more are in use only while fetched gradients hold theirs)


def has_cross_process_ops(program) -> bool:
    return any(op.type in CROSS_PROCESS_OPS for op in program.global_block().ops)


def _grads_of(ops) -> dict[str, str]:
    """gradient -> parameter, from the op_role_var pairs of backward ops."""
    grads = {}
    for op in ops:
        role = int(op.attrs.get(OP_ROLE_ATTR, 0))
        names = op.attrs.get(OP_ROLE_VAR_ATTR) or []
        if role & OpRole.Backward:
            for k in range(0, len(names) - 1, 2):
                if names[k + 1] != EMPTY_VAR_NAME:
                    grads[names[k + 1]] = names[k]
    return grads


class Bucket:
    """Gradients all-reduced together: their names, and per name the numpy dtype and element count."""

    def __init__(self, index: int, sparse: bool = False):
        self.index = index
        self.sparse = sparse
        self.names: list[str] = []
        self.nbytes = 0
        self.dtype = None
        self.overlap = True         # ops run between its start and its wait (else it is reduced at its start)

    @property
    def handle(self) -> str:
        return 'bucket_%d@HANDLE' % self.index


def _var_facts(block, name: str):
    v = block._find_var_recursive(name)
    if v is None:
        return np.dtype('float32'), 0, False
    n = 1
    for d in v.shape or ():
        n *= abs(int(d)) or 1
    return np.dtype(to_numpy(v.dtype)), n, v.type == VarType.SELECTED_ROWS


def _buckets(block, grads_in_order: list[str], fuse: bool, bucket_mb: float) -> list[Bucket]:
    limit = max(bucket_mb, 0.0) * _MB
    buckets: list[Bucket] = []
    current = None
    for name in grads_in_order:
        dtype, n, sparse = _var_facts(block, name)
        if sparse:
            b = Bucket(len(buckets), sparse=True)
            b.names.append(name)
            buckets.append(b)
            continue
        size = n * dtype.itemsize
        if (current is None or not fuse or current.dtype != dtype
                or (current.names and current.nbytes + size > limit)):
            current = Bucket(len(buckets))
            current.dtype = dtype
            buckets.append(current)
        current.names.append(name)
        current.nbytes += size
    return buckets


def plan_collectives(block, ops: list, kinds: list, n_places: int, n_trainers: int, fuse: bool,
                     bucket_mb: float) -> tuple[list, list, dict]:
    """The op list with buckets (see the module docstring), its kinds, and extra dependencies {op index: set}."""
    grads = _grads_of(ops)
    program_reduced = {op.input_arg_names[0] for op in ops
                       if op.type == 'c_allreduce_sum' and op.input_arg_names and op.input_arg_names[0] in grads}
    reduce_at: dict[int, str] = {}          # op index -> gradient reduced there (the op is replaced)
    for j, (op, kind) in enumerate(zip(ops, kinds)):
        if op.type == 'all_reduce' and kind is not None and kind[0] == 'all':
            g = op.input_arg_names[0]
            if g in program_reduced:
                reduce_at[j] = None         # the program's own c_allreduce_sum reduces it: drop the local one
            elif n_trainers > 1:
                reduce_at[j] = g
        elif op.type == 'c_allreduce_sum' and op.input_arg_names and op.input_arg_names[0] in program_reduced:
            reduce_at[j] = op.input_arg_names[0]
    order = [g for j, g in sorted(reduce_at.items()) if g is not None]
    buckets = _buckets(block, list(dict.fromkeys(order)), fuse, bucket_mb)
    bucket_of = {name: b for b in buckets for name in b.names}
    last_point = {}
    for j, g in reduce_at.items():
        if g is not None:
            last_point[bucket_of[g]] = max(last_point.get(bucket_of[g], -1), j)
    starts_after = {}
    for b, j in last_point.items():
        starts_after.setdefault(j, []).append(b)

    new_ops, new_kinds, cross = [], [], []
    waiting: list[Bucket] = []               # started, not yet waited for
    started_at: dict[int, int] = {}          # bucket index -> position of its start in new_ops
    extra: dict[int, set] = {}

    def emit_wait(b: Bucket) -> None:
        j = len(new_ops)
        b.overlap = any(k is None or k[0] != 'bucket_wait' for k in new_kinds[started_at[b.index] + 1:j])
        new_ops.append(Operator(block, 'bucket_wait', {'Handle': [b.handle]}, {'Out': list(b.names)}, {}))
        new_kinds.append(('bucket_wait', b))
        extra[j] = set(range(started_at[b.index] + 1, j))

    for j, (op, kind) in enumerate(zip(ops, kinds)):
        if j not in reduce_at:
            touched = set(op.input_arg_names) | set(op.output_arg_names)
            for b in [b for b in waiting if touched.intersection(b.names)]:
                waiting.remove(b)
                emit_wait(b)
            if op.type in CROSS_PROCESS_OPS:
                cross.append(len(new_ops))
                if n_places > 1 and op.type in ONE_PLACE_OPS:
                    raise NotImplementedError(
                        '%s cannot run on %d places of one trainer: it moves parts of a tensor between trainers '
                        '(or from one to another), which has no meaning over places. Run this program with a '
                        'plain Executor, or a CompiledProgram on one place' % (op.type, n_places))
                if n_places > 1 and op.type in _SPAN_TYPES:
                    kind = ('span', None)
            new_ops.append(op)
            new_kinds.append(kind)
        for b in starts_after.get(j, ()):
            started_at[b.index] = len(new_ops)
            cross.append(len(new_ops))
            new_ops.append(Operator(block, 'bucket_start', {'X': list(b.names)}, {'Handle': [b.handle]}, {}))
            new_kinds.append(('bucket_start', b))
            waiting.append(b)
    for b in waiting:
        emit_wait(b)
    for prev, nxt in zip(cross, cross[1:]):
        extra.setdefault(nxt, set()).add(prev)
    return new_ops, new_kinds, extra


# --- the kernels of the nodes that span the places ----------------------------------------------------------------

def _local_reduce(values: list, op: str, name: str):
    for p, v in enumerate(values):
        if v is None:
            raise RuntimeError("The gradient '%s' has no value on place %d when it is reduced: the op that computes "
                               "it did not run there" % (name, p))
    first = values[0]
    if len(values) == 1:
        return first
    if isinstance(first, SelectedRows):
        return SelectedRows(np.concatenate([v.rows for v in values]), np.concatenate([v.values for v in values]),
                            first.height)
    if op == 'sum':
        total = first + values[1]
        for v in values[2:]:
            total += v
        return total
    fn = {'max': np.maximum, 'min': np.minimum, 'prod': np.multiply}[op]
    total = fn(first, values[1])
    for v in values[2:]:
        fn(total, v, out=total)
    return total


class _Layout:
    """Where a dense bucket's members lie in its buffer: the buffer's dtype and size, and per member (start, stop,
    shape, dtype). Made once per set of member shapes, so a step packs with one call and unpacks into views."""

    __slots__ = ('dtype', 'size', 'pieces', 'casts')

    def __init__(self, arrays: list):
        self.dtype = np.result_type(*arrays)
        pieces, off = [], 0
        for a in arrays:
            pieces.append((off, off + a.size, a.shape, a.dtype))
            off += a.size
        self.size = off
        self.pieces = tuple(pieces)
        self.casts = any(a.dtype != self.dtype for a in arrays)

    def unpack(self, buf: np.ndarray) -> list:
        """The members as views of `buf` (copies in their own dtype where it differs from the buffer's)."""
        if not self.casts:
            return [buf[start:stop].reshape(shape) for start, stop, shape, _ in self.pieces]
        return [buf[start:stop].reshape(shape).astype(dtype, copy=False)
                for start, stop, shape, dtype in self.pieces]


class _BucketBuffer:
    """A bucket's buffer and the views of its members into it (made once: handing out views costs more Python
    than the all-reduce's own call). Free for the next step when nothing outside refers to the buffer or to a
    view: the executor's slots drop them when the run ends, while a view that someone keeps (or an array made
    from one) keeps the buffer out of reuse."""

    __slots__ = ('array', 'views', 'layout')

    def __init__(self, layout: _Layout):
        self.layout = layout
        self.array = np.empty(layout.size, dtype=layout.dtype)
        self.views = tuple(layout.unpack(self.array)) if not layout.casts else None

    def free(self) -> bool:
        # references while nobody else has any: `array` from this entry, one per view's base and the call's
        # argument; each view from `views` and the call's argument (and the loop's name)
        if self.views is None:
            return sys.getrefcount(self.array) == 2
        if sys.getrefcount(self.array) != 2 + len(self.views):
            return False
        for v in self.views:
            if sys.getrefcount(v) != 3:
                return False
        return True


def _bucket_buffer(pool: list, layout: _Layout) -> _BucketBuffer:
    """A free buffer of the bucket's for `layout`, else a new one. Reusing it matters: MPI is many times slower on
    memory it has not touched before (fresh pages), and a fetched gradient keeps its buffer out of reuse."""
    for entry in pool:
        if entry.layout is layout and entry.free():
            return entry
    entry = _BucketBuffer(layout)
    pool.append(entry)
    if len(pool) > _POOL_SIZE:
        pool.pop(0)
    return entry


class BucketSink:
    """Where the one segment that makes all of a dense bucket's gradients writes them (passes/bucket_sink.py): a
    free buffer of the bucket's pool for the member shapes known when the plan is made (`acquire`, before the
    segment runs), and the buffer it filled in this run (`entry`, taken by the bucket's start)."""

    __slots__ = ('layout', 'pool', 'entry')

    def __init__(self, layout: _Layout, pool: list):
        self.layout = layout
        self.pool = pool
        self.entry = None

    def acquire(self) -> _BucketBuffer:
        return _bucket_buffer(self.pool, self.layout)


class BucketState:
    """What a bucket's start kernel keeps between runs, readable by the passes after it: the buffers (`pool`),
    the layouts by member shapes, the sink when a segment writes the gradients into the buffer, and how many runs
    found them there (`sunk`) or packed them (`packed`)."""

    __slots__ = ('bucket', 'n_places', 'pool', 'layouts', 'sink', 'sunk', 'packed')

    def __init__(self, bucket: Bucket, n_places: int):
        self.bucket = bucket
        self.n_places = n_places
        self.pool: list = []
        self.layouts: dict = {}     # ((shape, dtype) of each member) -> _Layout
        self.sink: BucketSink | None = None
        self.sunk = 0
        self.packed = 0

    def make_sink(self, shapes: list) -> BucketSink:
        """The sink for members of these static `shapes` (the bucket's dtype), sharing the pool and the layout
        the pack would use for them."""
        dtype = self.bucket.dtype
        key = tuple((tuple(shape), dtype) for shape in shapes)
        layout = self.layouts.get(key)
        if layout is None:
            layout = self.layouts[key] = _Layout([np.empty(shape, dtype) for shape in shapes])
        self.sink = BucketSink(layout, self.pool)
        return self.sink


def _check_values(per_member: list, names: list) -> None:
    for k, vals in enumerate(per_member):
        for p, v in enumerate(vals):
            if v is None:
                raise RuntimeError("The gradient '%s' has no value on place %d when it is reduced: the op that "
                                   "computes it did not run there" % (names[k], p))


def _bucket_start_kernel(bucket: Bucket, n_places: int):
    """Sums each gradient over the places, packs the bucket into one reused buffer and starts its all-reduce.

    The one-place dense bucket (every trainer with a plain Executor) is the hot path: a layout known from an earlier
    step (the same member shapes) packs with one concatenate into the buffer, with no other per-member Python; the
    all-reduce runs in place in that buffer, and the wait hands out views of it. Its one copy stands for the copy a
    bare `Allreduce(send, recv)` makes inside MPI from the send buffer to the receive buffer.

    With a sink (passes/bucket_sink.py) there is no pack: the segment that made the gradients wrote them into views
    of a buffer of the pool, which this run's values still are (checked by identity: a node that rebound a slot
    in between sends the bucket down the pack path), so the buffer is all-reduced as it stands. The kernel's
    `state` (BucketState) is what the sink pass and the benchmarks reach."""
    names, m = bucket.names, len(bucket.names)
    state = BucketState(bucket, n_places)
    pool = state.pool
    layouts = state.layouts

    def sparse(group, per_member: list):
        totals = [_local_reduce(vals, 'sum', names[k]) for k, vals in enumerate(per_member)]
        overlap = bucket.overlap
        works = [(group.allgather_async(np.ascontiguousarray(t.rows, dtype=np.int64), overlap),
                  group.allgather_async(np.ascontiguousarray(t.values), overlap), t.height) for t in totals]
        return (('sparse', works),)

    def launch(group, entry: _BucketBuffer):
        array = entry.array
        if not bucket.overlap and entry.views is not None:
            now = getattr(group, 'allreduce_now', None)         # the least Python between the pack and MPI
            if now is not None and now(array):
                return (('reduced', entry),)
        return (('dense', group.allreduce_async(array, 'sum', inplace=True, overlap=bucket.overlap), entry),)

    def run(values):
        group = get_group(0)
        sink = state.sink
        if sink is not None:
            entry = sink.entry
            if entry is not None:
                sink.entry = None
                if all(map(is_, values, entry.views)):
                    state.sunk += 1
                    return launch(group, entry)
        state.packed += 1
        layout = None
        if not bucket.sparse:
            try:
                layout = layouts.get(tuple([(v.shape, v.dtype) for v in values[:m]]))
            except AttributeError:              # None (not computed on place 0) or not an array: checked below
                layout = None
        if layout is not None and n_places == 1:
            entry = _bucket_buffer(pool, layout)
            np.concatenate(values, axis=None, out=entry.array)          # the pack: one C loop of copies
            return launch(group, entry)
        per_member = [[values[p * m + k] for p in range(n_places)] for k in range(m)]
        _check_values(per_member, names)
        if bucket.sparse or any(isinstance(vals[0], SelectedRows) for vals in per_member):
            return sparse(group, per_member)
        firsts = [np.asarray(vals[0]) for vals in per_member]
        if layout is None:
            layout = _Layout(firsts)
            if all(type(v) is np.ndarray for v in values[:m]):
                layouts[tuple([(a.shape, a.dtype) for a in firsts])] = layout
        entry = _bucket_buffer(pool, layout)
        buf = entry.array
        if n_places == 1:
            np.concatenate(firsts, axis=None, out=buf)
        else:
            for vals, (start, stop, shape, _) in zip(per_member, layout.pieces):
                target = buf[start:stop].reshape(shape)     # packed, summed over the places in place order
                np.copyto(target, vals[0])
                for v in vals[1:]:
                    target += v
        del buf
        return launch(group, entry)
    run.state = state
    return run


def _bucket_wait_kernel(bucket: Bucket, n_places: int, copies: frozenset):
    names = bucket.names

    def run(handle):
        if handle[0] == 'reduced' and n_places == 1:
            return (handle[1].views,)
        if handle[0] == 'reduced':
            outs = handle[1].views
        elif handle[0] == 'sparse':
            outs = [SelectedRows(np.concatenate(rows.wait()), np.concatenate(vals.wait()), height)
                    for rows, vals, height in handle[1]]
        else:
            entry = handle[2]
            buf = handle[1].wait()
            outs = entry.views if entry.views is not None and buf is entry.array else entry.layout.unpack(buf)
            del buf
        if n_places == 1:
            return (outs,)
        per_place = list(outs)
        for p in range(1, n_places):
            per_place.extend(o.copy() if names[k] in copies and isinstance(o, np.ndarray) else o
                             for k, o in enumerate(outs))
        return (per_place,)
    return run


def _span_kernel(op, n_places: int, copies: bool):
    """A program collective over several places: places first, then the other trainers; out to every place."""
    t = op.type
    ring = int(op.attrs.get('ring_id', 0))
    name = op.input_arg_names[0] if op.input_arg_names else t

    def spread(value):
        return [value] + [value.copy() if copies and isinstance(value, np.ndarray) else value
                          for _ in range(n_places - 1)]

    if t in ALLREDUCE_OPS or t == 'allreduce':
        reduce_op = ALLREDUCE_OPS.get(t) or {0: 'sum', 1: 'prod', 2: 'max', 3: 'min'}[int(op.attrs['reduce_type'])]

        def run(xs):
            group = get_group(ring)
            total = _local_reduce(list(xs), reduce_op, name)
            if isinstance(total, SelectedRows):
                return (spread(reduce_selected_rows(group, total)),)
            return (spread(group.allreduce(np.ascontiguousarray(total), reduce_op)),)
    elif t in ('c_broadcast', 'broadcast'):
        root = int(op.attrs.get('root', 0))

        def run(xs):
            return (spread(get_group(ring).broadcast(np.ascontiguousarray(xs[0]), root)),)
    elif t == 'c_allgather':
        def run(xs):
            local = np.concatenate([np.asarray(x) for x in xs], axis=0)
            return (spread(np.concatenate(get_group(ring).allgather(local), axis=0)),)
    elif t in ROOT_REDUCE_OPS:              # the reduction lands on the root's places; the others keep theirs
        reduce_op, root = ROOT_REDUCE_OPS[t], int(op.attrs.get('root_id', 0))

        def run(xs):
            group = get_group(ring)
            total = group.reduce(np.ascontiguousarray(_local_reduce(list(xs), reduce_op, name)), reduce_op, root)
            return (spread(total) if group.rank == root else list(xs),)
    elif t == 'barrier':
        def run(xs):
            get_group(ring).barrier()
            return (None if xs is None else list(xs),)
    else:
        raise NotImplementedError('%s cannot span %d places of one trainer' % (t, n_places))
    return run


def span_node(op, kind, in_spec, out_spec, stride: int, n_places: int, inplace_written: set):
    """(kernel, input specs, output specs, label) of a node of `kind` spanning the places (see the module
    docstring); specs hold place-major slot tuples."""
    def spread(spec):
        if spec is None:
            return None
        if type(spec) is tuple:
            return tuple(s + p * stride for p in range(n_places) for s in spec if s is not None)
        return tuple(spec + p * stride for p in range(n_places))

    if kind[0] == 'bucket_start':
        b = kind[1]
        return (_bucket_start_kernel(b, n_places), (spread(in_spec[0]),), (out_spec[0],),
                'bucket_start(%d: %s)' % (b.index, ', '.join(b.names)))
    if kind[0] == 'bucket_wait':
        b = kind[1]
        return (_bucket_wait_kernel(b, n_places, frozenset(inplace_written)), (in_spec[0],), (spread(out_spec[0]),),
                'bucket_wait(%d)' % b.index)
    out = op.output_arg_names
    copies = bool(set(out) & inplace_written)
    return (_span_kernel(op, n_places, copies), (spread(in_spec[0]),), (spread(out_spec[0]),),
            '%s (over places and trainers)' % op.type)


# --- startup: the same program everywhere, trainer 0's persistables ------------------------------------------------

def _summary(program) -> list[str]:
    lines = []
    block = program.global_block()
    for p in sorted(program.global_block().all_parameters(), key=lambda v: v.name):
        lines.append('parameter %s %s %s' % (p.name, list(p.shape), np.dtype(to_numpy(p.dtype)).name))
    for j, op in enumerate(block.ops):
        if op.type in CROSS_PROCESS_OPS and _same_on_every_trainer(op):
            attrs = {k: op.attrs[k] for k in ('ring_id', 'root', 'nranks', 'reduce_type') if k in op.attrs}
            shapes = []
            for n in op.input_arg_names:
                v = block._find_var_recursive(n)
                shapes.append('%s%s' % (n, list(v.shape) if v is not None and v.shape is not None else ''))
            lines.append('op %d %s(%s) %s' % (j, op.type, ', '.join(shapes), attrs))
    return lines


def _same_on_every_trainer(op) -> bool:
    """Whether every trainer of the job runs `op`: not a send / recv (the two ends are in different programs), nor a
    collective of a sub-group ring (paddle.distributed.new_group: its members only)."""
    return op.type not in P2P_OPS and ring_ranks(int(op.attrs.get('ring_id', 0))) is None


def check_same_program(program, n_trainers: int = 1, group=None) -> None:
    """Raises on every trainer when the trainers run different programs (different parameters or collectives)."""
    group = get_group(0) if group is None else group
    if isinstance(group, LocalGroup) or group.nranks == 1:
        return
    lines = _summary(program) + ['num_trainers %d' % n_trainers]
    digest = hashlib.sha1('\n'.join(lines).encode()).hexdigest()
    digests = group.allgather_object(digest)
    if len(set(digests)) == 1:
        return
    summaries = group.allgather_object(lines)
    other = next(r for r, d in enumerate(digests) if d != digests[0])
    mine, theirs = summaries[0], summaries[other]
    k = next((i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b), min(len(mine), len(theirs)))
    first = mine[k] if k < len(mine) else '(nothing)'
    second = theirs[k] if k < len(theirs) else '(nothing)'
    raise RuntimeError('The trainers of this job run different programs: trainer 0 has %r where trainer %d has %r. '
                       'Every trainer must build the same program (same layers, parameters and distributed '
                       'optimizer) so their collectives match' % (first, other, second))


def sync_persistables(names: list, scope, group=None) -> None:
    """Trainer 0's values of the persistables `names` (those it has), written into `scope` on every trainer."""
    group = get_group(0) if group is None else group
    if group.nranks == 1:
        return
    facts = []
    for name in sorted(names):
        var = scope.find_var(name)
        value = None if var is None else var.tensor.value
        if isinstance(value, np.ndarray):
            facts.append((name, value.shape, value.dtype.str))
    everyone = group.allgather_object(facts)
    for r, theirs in enumerate(everyone):
        if theirs != everyone[0]:
            diff = sorted(set(theirs) ^ set(everyone[0]))[:3]
            raise RuntimeError('The trainers of this job hold different persistables at startup (trainer 0 vs '
                               'trainer %d: %s): every trainer must build and initialise the same program'
                               % (r, ', '.join('%s %s %s' % d for d in diff)))
    for name, _, _ in facts:
        var = scope.find_var(name)
        var.set_value(group.broadcast(np.ascontiguousarray(var.tensor.value), 0))


def check_trainers(n_trainers: int, trainer_id: int) -> None:
    """BuildStrategy.num_trainers / trainer_id must describe this process's job."""
    if n_trainers <= 1:
        return
    group = get_group(0)
    if group.nranks != n_trainers or group.rank != trainer_id:
        raise RuntimeError(
            'BuildStrategy.num_trainers = %d and trainer_id = %d, but this process is trainer %d of %d. Start the '
            'trainers with `python -m paddle_exec.distributed.launch --nproc_per_node %d train.py` or `mpiexec -n '
            '%d python train.py` (each trainer reads its id from PADDLE_TRAINER_ID or the MPI rank)'
            % (n_trainers, trainer_id, group.rank, group.nranks, n_trainers, n_trainers))
