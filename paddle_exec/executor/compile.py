"""Program -> ExecutionPlan: the ordered passes, and the one bounded cache of what they produce.

    physical = prepare_program(program, config)                       # the program passes
    plan = compile_plan(physical, feed_names, fetch_names, n_run, config, feed_lod)   # the plan passes
    plan = compile_program(program, feed_names, fetch_names, config)  # both, uncached
    cache = PlanCache(); plan = cache.plan(program, feed_names, fetch_names, n_run, config, feed_lod)

`feed_lod` is ((fed name, LoD levels), ...) for the fed values that carry LoD, () when none does (feed.py
`feed_lod_levels`): part of a plan's identity, since which values carry LoD is decided when the plan is made.

Compiling is pure: it reads the Program and the RunConfig and builds new objects; it starts no thread and touches
no scope. The passes, in order:

  program passes (once per program version and configuration)
    1. stage split (passes/stage.py; passes/smart_stage.py when SmartStage is on): a program with `staged`
       compiles as its consumer side behind an `unstage` op; its producer side becomes a StageSpec (a plan of its
       own, split into the reader `sources` and the `rest`) that the runner's stage runtime runs ahead
    2. placed readers (passes/stage.py): on several places `read` / `text_line_reader` become their place-aware
       twins, so place p reads batch p of each round
    3. startup check (passes/collective.py): a program with cross-process collectives, or run by several
       trainers, is compared across the trainers at its first run (the same parameters and collectives)
  plan passes (once per fed names and their LoD levels, fetched names and number of places run)
    4. analysis (plan.py BlockAnalysis): the LoD pass (passes/lod.py: which values carry LoD, companion slots),
       slots, slot specs, dependencies, scope bindings, frees
    5. data parallel (passes/data_parallel.py): replicas per place, collectives, the loss@GRAD seed, and the
       gradient buckets across trainers (passes/collective.py); a plain Executor's program is planned on one place
       as it is (plan.py), or, when it has cross-process collectives, as one place of the data-parallel pass
    5b. fusion (BuildStrategy.fuse_bn_act_ops, fuse_all_optimizer_ops; before 5, on the program): batch_norm +
       relu and their gradients as fused_batch_norm_act(_grad) (passes/fuse_bn_act.py, sparing the fetched
       values), same-type optimizer ops as one update over coalesced buffers (passes/fuse_optimizer.py)
    6. segments (passes/segments.py, unless RunConfig.compile.mode is 'off'): runs of ops with numba kernels become
       one node each, running generated code (codegen.py) compiled in tiers (segment_node.py, jit_service.py);
       ops handling LoD stay ordinary nodes; while it is on, kernels of ops that have a segment rule are made at
       their first call (registry.DeferredKernel), so ops that end up inside a segment never compile kernels of
       their own
    6b. bucket sinks (passes/bucket_sink.py): a segment that makes all of a gradient bucket's members writes them
       into the bucket's all-reduce buffer (no pack before the all-reduce)
    7. feed bindings (feed.py FeedBinding): per place, how each fed name reaches its slot
Debug output: BuildStrategy.debug_graphviz_path makes the data-parallel plan pass write the program and the compiled
graph, and the stage pass the split, as Graphviz text.

Kernels are made through the registry with a KernelContext: control-flow ops compile their sub-blocks through it
(`spec.compile_block`) into plans they run in order, so ops never import the executor.

The cache is one bounded LRU per runner (an Executor, a compiled program's runner): entries are keyed by the
program's id, the configuration's compile key, and for plans the fed names, their LoD levels, the fetched names and
the number of places run; an entry made for an older version of the program (a structural change bumps it) is
rebuilt. The least recently used entry goes first.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from ..framework.program import Program
from ..framework.registry import SEGMENT_RULES
from ..ops import reader as reader_ops
from .config import RunConfig
from .feed import FeedBinding
from .graphs import plan_dot, program_dot, split_dot
from .passes.bucket_sink import sink_buckets
from .passes.collective import check_same_program, has_cross_process_ops
from .passes.data_parallel import build_data_parallel_plan, is_inference_program
from .passes.fuse_bn_act import fuse_bn_act_ops
from .passes.fuse_optimizer import fuse_optimizer_ops
from .passes.segments import compile_segments
from .passes.stage import StageSplit, physical_program
from .plan import BlockAnalysis, ExecutionPlan, build_plan, plan_of

__all__ = ['KernelContext', 'StageSpec', 'Physical', 'prepare_program', 'compile_plan', 'compile_program',
           'PlanCache', 'PLAN_CACHE_SIZE']

PLAN_CACHE_SIZE = 64


class KernelContext:
    """What kernel factories may ask of the compiler: `compile_block` (control-flow sub-blocks); and what
    registry.make_kernel asks of it: whether to defer a kernel (segments: see pass 5)."""

    def __init__(self, defer: bool = False):
        self.defer = defer

    def compile_block(self, block, feed_names, fetch_names, feed_lod=()) -> ExecutionPlan:
        return build_plan(block, feed_names, fetch_names, KERNEL_CONTEXT, feed_lod)

    def defers(self, op) -> bool:
        return self.defer and op.type in SEGMENT_RULES


KERNEL_CONTEXT = KernelContext()
SEGMENT_CONTEXT = KernelContext(defer=True)


@dataclass
class StageSpec:
    """The producer side of a staged program: what the stage runtime (stage.py) runs in its threads.

    plan     the producer ops as an ExecutionPlan whose fetches are the carried values, its nodes split in two:
             `sources` (reader ops and what they depend on, run under one lock so batches stay in order) and `rest`
    """
    split: StageSplit
    plan: ExecutionPlan
    sources: list
    rest: list
    block: object
    smart: bool
    n_places: int
    physical: Program | None = None

    @property
    def name(self) -> str:
        return "staged '%s'" % ', '.join(self.split.settings.names)

    def dot(self) -> tuple[str, str]:
        """(before, after): the program as written and its physical split, as Graphviz text."""
        title = 'after SmartStage' if self.smart else 'after the stage split'
        return program_dot(self.block, 'the program as written'), split_dot(self.block, self.split, title)


@dataclass
class Physical:
    """A program after the program passes: what to plan, its stage (None when it has none), whether it has no
    backward or optimizer op (data parallelism may then run fewer places than it has), whether its ops read the
    place index (placed readers, a data-parallel `unstage`)."""
    program: Program
    stage: StageSpec | None = None
    is_inference: bool = False
    placed: bool = False


def _stage_spec(program: Program, split: StageSplit, smart: bool, n_places: int) -> StageSpec:
    block = program.global_block()
    a = BlockAnalysis(block, [], split.carried, skip_ops=set(split.consumer))
    plan = plan_of(a, KERNEL_CONTEXT)
    seeds = [j for j, op in enumerate(a.ops) if op.type in reader_ops.SOURCE_OPS]
    sources, todo = set(), list(seeds)
    while todo:
        j = todo.pop()
        if j not in sources:
            sources.add(j)
            todo.extend(a.deps[j])
    nodes = plan.nodes
    return StageSpec(split, plan, [nodes[j] for j in sorted(sources)],
                     [nodes[j] for j in range(len(nodes)) if j not in sources], block, smart, n_places)


def prepare_program(program: Program, config: RunConfig) -> Physical:
    """The program passes (see the module docstring)."""
    smart = config.smart_stage or bool(program._stage_info.get('smart'))
    n_places = config.n_places if config.data_parallel else 1
    physical, split = physical_program(program, n_places, smart)
    is_inference = is_inference_program(program)
    placed = physical is not program and n_places > 1
    if config.n_trainers > 1 or has_cross_process_ops(program):
        check_same_program(program, config.n_trainers)
    if split is None:
        return Physical(physical, None, is_inference, placed)
    spec = _stage_spec(program, split, smart, n_places)
    spec.physical = physical
    path = config.debug_graphviz_path or program._stage_info.get('debug_graphviz_path', '')
    if path:
        for suffix, text in zip(('_stage_before.dot', '_stage_after.dot'), spec.dot()):
            with open(path + suffix, 'w') as f:
                f.write(text)
    return Physical(physical, spec, is_inference, placed)


def compile_plan(physical: Physical, feed_names, fetch_names, n_run: int, config: RunConfig,
                 feed_lod=()) -> ExecutionPlan:
    """The plan passes (see the module docstring)."""
    program = physical.program
    if config.fuse_bn_act:
        program = fuse_bn_act_ops(program, keep=fetch_names)
    if config.fuse_optimizer:
        program = fuse_optimizer_ops(program)
    context = SEGMENT_CONTEXT if config.compile.enabled else KERNEL_CONTEXT
    if config.data_parallel:
        plan = build_data_parallel_plan(program, n_run, feed_names, fetch_names, loss_name=config.loss_name,
                                        reduce_mode=config.reduce_mode, gradient_scale=config.gradient_scale,
                                        n_ranks=config.n_places * config.n_trainers, context=context,
                                        feed_lod=feed_lod, n_trainers=config.n_trainers,
                                        fuse_all_reduce=config.fuse_all_reduce,
                                        fuse_grad_size_mb=config.fuse_grad_size_mb)
    elif has_cross_process_ops(program):
        plan = build_data_parallel_plan(program, 1, feed_names, fetch_names, context=context,
                                        feed_lod=feed_lod, fuse_all_reduce=config.fuse_all_reduce,
                                        fuse_grad_size_mb=config.fuse_grad_size_mb)
    else:
        plan = build_plan(program.global_block(), feed_names, fetch_names, context, feed_lod)
    block = program.global_block()
    if config.compile.enabled:
        compile_segments(plan, config.compile, context)
        sink_buckets(plan, block, config.compile)
    if config.data_parallel and config.debug_graphviz_path:
        _write_graphs(config.debug_graphviz_path, block, plan)
    if not config.data_parallel:      # data-parallel feeds are converted and checked while split (feed.split_feeds)
        lod = plan.places[0].lod
        plan.feed_bindings = [FeedBinding(block, plan.places[0].feed_slots, lod.feed_slots if lod else None)]
    plan.stage = physical.stage
    plan.binds_runtimes = physical.stage is not None or physical.placed
    return plan


def _write_graphs(path: str, block, plan: ExecutionPlan) -> None:
    """BuildStrategy.debug_graphviz_path: `<path>_original_graph` (the program) and `<path>_multi_devices_graph`
    (the compiled multi-place graph), as Graphviz text, rewritten by each new plan."""
    for suffix, text in (('_original_graph', program_dot(block)), ('_multi_devices_graph', plan_dot(plan))):
        with open(path + suffix, 'w') as f:
            f.write(text)


def compile_program(program: Program, feed_names, fetch_names, config: RunConfig,
                    n_run: int | None = None, feed_lod=()) -> ExecutionPlan:
    """Both kinds of passes, uncached."""
    n_run = (config.n_places if config.data_parallel else 1) if n_run is None else n_run
    return compile_plan(prepare_program(program, config), tuple(feed_names), tuple(fetch_names), n_run, config,
                        tuple(feed_lod))


class PlanCache:
    """The bounded LRU of one runner's compiled programs and plans (see the module docstring)."""

    def __init__(self, maxsize: int = PLAN_CACHE_SIZE):
        self.maxsize = maxsize
        self._entries: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def _get(self, key):
        entries = self._entries
        entry = entries.get(key)
        if entry is not None:
            try:
                entries.move_to_end(key)        # one C call: atomic under the GIL
            except KeyError:                    # evicted by another thread meanwhile: still a valid plan
                pass
        return entry

    def _put(self, key, value):
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.maxsize:
                self._entries.popitem(last=False)
        return value

    def physical(self, program: Program, config: RunConfig) -> Physical:
        key = ('program', program._id, config.compile_key)
        entry = self._get(key)
        if entry is None or entry[0] != program._version:
            entry = self._put(key, (program._version, prepare_program(program, config)))
        return entry[1]

    def plan(self, program: Program, feed_names: tuple, fetch_names: tuple, n_run: int,
             config: RunConfig, feed_lod: tuple = ()) -> ExecutionPlan:
        key = (program._id, feed_names, fetch_names, n_run, config.compile_key, feed_lod)
        entry = self._get(key)
        if entry is None or entry[0] != program._version:
            entry = self._put(key, (program._version, compile_plan(self.physical(program, config), feed_names,
                                                                   fetch_names, n_run, config, feed_lod)))
        return entry[1]

    def plans(self) -> list[ExecutionPlan]:
        """The cached plans, least recently used first."""
        return [v[1] for k, v in list(self._entries.items()) if k[0] != 'program']

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self):
        return len(self._entries)
