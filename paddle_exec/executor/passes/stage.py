"""The stage split: which ops of a Block run ahead in producer threads, which run in the step, what crosses.

    split = split_stages(program.global_block(), smart=False)
    split.producer     op indices run by the producer threads (block order): the `stage` ops and every op they
                       depend on, plus, under SmartStage, the ops it moves in front (split.moved)
    split.consumer     the other op indices (block order): the step the executor runs
    split.carried      the values the buffer carries from producer to consumer, in order of production: every
                       producer value a consumer op reads (the edges that cross: `split.crossing`), the stage
                       outputs and the producer's `data` variables (a DataLoader's variables: users fetch them)

Dependencies are data flow: an op depends on the last op before it that wrote each of its inputs.

The producer side must be computable without the step: it may read persistable variables (parameters, reader
handles) and scope variables the program does not declare (a DataLoader's queue), but not a variable the user feeds
at each run: that raises ValueError naming the variable and the op that reads it. A variable written by several ops
(an in-place update) cannot cross the boundary (NotImplementedError), since the consumer would see the last write
rather than the one it read in program order.

SmartStage (`smart=True`, passes/smart_stage.py) then grows the producer side: see that module.

The physical program. `physical_program(program, n_places, smart)` is the compile pass over a whole Program:
    - a program with stages becomes its consumer side behind one `unstage` op, which pops the producers' next batch
      of carried values (its `Stage` input is STAGE_VAR, which the runner binds to its stage runtime); the split
      comes back with it, and the runner's stage runtime runs the producer side (executor/stage.py);
    - under data parallelism (n_places > 1) `read` / `text_line_reader` become `place_read` /
      `place_text_line_reader` and `unstage` takes a `Place` input (PLACE_VAR, a PlaceIndex each place's scope
      holds): place p always gets batch p of a round, as Paddle's ordered reader does, whatever thread runs it;
    - any other program comes back as it is.
The physical program shares the user program's variables and operators; the user's Program is never modified.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field

from ...framework.operator import Operator
from ...framework.program import Program
from ...framework.variable import EMPTY_VAR_NAME
from .dataflow import ancestors_closure, data_flow, is_reader_var, multiply_written
from .smart_stage import grow_producer

__all__ = ['StageSplit', 'split_stages', 'StageSettings', 'physical_program', 'STAGE_VAR', 'PLACE_VAR']

# the runner binds these in every place's scope: its stage runtime (a weak reference) and the place's PlaceIndex
STAGE_VAR = '@STAGE_RUNTIME@'
PLACE_VAR = '@STAGE_PLACE_INDEX@'


@dataclass
class StageSettings:
    """What the stages of one program ask for: one producer pipeline serves them all (they read the same sources
    and must stay in step), with the largest capacity and thread count and the smallest timeout."""
    names: list
    capacity: int
    num_threads: int
    timeout_millis: int


@dataclass
class StageSplit:
    producer: list
    consumer: list
    stage_ops: list
    carried: list
    crossing: list
    moved: list = field(default_factory=list)
    settings: StageSettings | None = None

    def describe(self, block) -> str:
        ops = block.ops
        return ('producer: %s\nconsumer: %s\nstaged values: %s'
                % ([ops[i].type for i in self.producer], [ops[i].type for i in self.consumer], self.carried))


def _settings(block, stage_ops: list) -> StageSettings:
    ops = [block.ops[i] for i in stage_ops]
    return StageSettings([op.attrs.get('stage_name', '') for op in ops],
                         max(int(op.attrs.get('capacity', 1)) for op in ops),
                         max(int(op.attrs.get('num_threads', 1)) for op in ops),
                         min(int(op.attrs.get('timeout_millis', 300000)) for op in ops))


def _check_producer_inputs(block, producer: set, stage_name: str) -> None:
    """A producer op may not read what the user feeds: the producers run ahead of the runs that feed it."""
    written: set[str] = set()
    for j, op in enumerate(block.ops):
        if j in producer:
            for n in op.input_arg_names:
                if n == EMPTY_VAR_NAME or n in written:
                    continue
                var = block._find_var_recursive(n)
                if var is not None and not var.persistable:
                    raise ValueError(
                        "staged '%s': the staged values depend on '%s', which the user feeds at each run (operator "
                        "'%s' reads it). The producer threads run ahead of run() and never see its feed: read the "
                        'data in the graph (a non-iterable DataLoader, text_line_reader) or stage only values that '
                        'do not depend on it' % (stage_name, n, op.type))
        written.update(op.output_arg_names)


def carried_values(block, producer: set, consumer: list, stage_ops: list) -> tuple[list, list]:
    """(carried, crossing): see the module docstring. Persistables and reader handles never cross: the consumer
    reads those from the scope."""
    ops = block.ops
    produced: dict[str, int] = {}
    for j in sorted(producer):
        for n in ops[j].output_arg_names:
            if n != EMPTY_VAR_NAME:
                produced.setdefault(n, j)
    read_by_consumer = {n for j in consumer for n in ops[j].input_arg_names}
    stage_outputs = {n for j in stage_ops for n in ops[j].output_arg_names}
    carried, crossing = [], []
    for n in sorted(produced, key=produced.get):
        var = block._find_var_recursive(n)
        if var is not None and (var.persistable or is_reader_var(var)):
            continue
        if n in read_by_consumer:
            crossing.append(n)
        if n in read_by_consumer or n in stage_outputs or (var is not None and var.is_data):
            carried.append(n)
    return carried, crossing


def split_stages(block, smart: bool = False, targets=()) -> StageSplit | None:
    """The split of `block` at its `stage` ops (None when it has none); see the module docstring."""
    ops = block.ops
    stage_ops = [j for j, op in enumerate(ops) if op.type == 'stage']
    if not stage_ops:
        return None
    settings = _settings(block, stage_ops)
    preds, succs = data_flow(ops)
    producer = ancestors_closure(stage_ops, preds)
    _check_producer_inputs(block, producer, ', '.join(settings.names))
    moved: list = []
    if smart:
        moved = grow_producer(block, producer, preds, succs, set(targets))
        producer |= set(moved)
        producer = ancestors_closure(producer, preds)
    consumer = [j for j in range(len(ops)) if j not in producer]
    carried, crossing = carried_values(block, producer, consumer, stage_ops)
    versioned = multiply_written(ops) & set(carried)
    if versioned:
        name = sorted(versioned)[0]
        writers = [ops[j].type for j in range(len(ops)) if name in ops[j].output_arg_names]
        raise NotImplementedError("staged '%s': the value '%s' crosses the stage boundary but is written by several "
                                  'ops (%s); stage a value that is written once'
                                  % (', '.join(settings.names), name, ', '.join(writers)))
    return StageSplit(sorted(producer), consumer, stage_ops, carried, crossing, sorted(moved), settings)


# --- the physical program ------------------------------------------------------------------------------------------

PLACED_READERS = {'read': 'place_read', 'text_line_reader': 'place_text_line_reader'}


def physical_program(program: Program, n_places: int, smart: bool) -> tuple[Program, StageSplit | None]:
    """(the program to plan, the stage split or None); see the module docstring."""
    info = program._stage_info
    block = program.global_block()
    if not info.get('stages'):
        if smart or info.get('smart'):
            warnings.warn('SmartStage is on but the program has no staged(): nothing is staged (SmartStage needs at '
                          'least one stage boundary to grow)', stacklevel=4)
        if n_places > 1 and any(op.type in PLACED_READERS for op in block.ops):
            return _physical(program, _placed_reads(block.ops, n_places)), None
        return program, None
    split = split_stages(block, smart=smart or bool(info.get('smart')), targets=info.get('targets', ()))
    inputs = {'Stage': [STAGE_VAR]}
    if n_places > 1:
        inputs['Place'] = [PLACE_VAR]
    unstage = Operator(block, 'unstage', inputs, {'Out': list(split.carried)},
                       {'stage_name': ', '.join(split.settings.names), 'op_role': 0, 'op_role_var': [],
                        'op_namescope': '/'})
    consumer = [block.ops[j] for j in split.consumer]
    return _physical(program, [unstage] + _placed_reads(consumer, n_places)), split


def _placed_reads(ops: list, n_places: int) -> list:
    """Each `read` / `text_line_reader` as its place-aware twin (ops/reader.py) when there are several places."""
    if n_places <= 1:
        return list(ops)
    placed = []
    for op in ops:
        kind = PLACED_READERS.get(op.type)
        if kind is None:
            placed.append(op)
            continue
        inputs = {k: list(v) for k, v in op.inputs.items()}
        inputs['Place'] = [PLACE_VAR]
        twin = Operator(op.block, kind, inputs, {'Out': op.output('Out')}, dict(op.attrs, n_places=n_places))
        twin.source = op
        placed.append(twin)
    return placed


def _physical(program: Program, ops: list) -> Program:
    """A Program whose global block holds `ops` over the user program's variables (its other blocks shared)."""
    phys = Program()
    block = phys.global_block()
    block.vars = program.global_block().vars
    block.ops = ops
    phys.blocks = [block] + program.blocks[1:]
    phys.random_seed = program.random_seed
    phys._is_test = program._is_test
    phys._stage_info = {'physical_of': program._id}
    return phys
