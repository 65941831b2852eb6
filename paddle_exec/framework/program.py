"""Program and Block: the static graph, as Paddle builds it.

A Program is a list of Blocks (block 0 is the global block); a Block holds Variables by name and Operators in
order. Builders append to the *current* block of the *default main program* (switched by `program_guard`) and put
initialisation ops in the *default startup program*. `append_op` fills the op's default attributes from the op
registry, stamps Paddle's `op_role` / `op_role_var` / `op_namescope`, and runs the op's shape rule so output
variables get their compile-time shapes.

Every structural change bumps `Program._version`, which executors use to know a cached ExecutionPlan is stale.
"""
from __future__ import annotations

import contextlib
import copy
import itertools

from . import registry, unique_name
from .operator import OP_ROLE_ATTR, OP_ROLE_VAR_ATTR, Operator, OpRole
from .variable import Parameter, Variable

_program_ids = itertools.count()


class Block:
    def __init__(self, program: Program, idx: int, parent_idx: int = -1):
        self.program = program
        self.idx = idx
        self.parent_idx = parent_idx
        self.forward_block_idx = -1
        self.vars: dict[str, Variable] = {}
        self.ops: list[Operator] = []

    # --- variables ---------------------------------------------------------------------------------------------
    def var(self, name: str) -> Variable:
        v = self.vars.get(name)
        if v is None:
            raise ValueError('var %s not in this block' % name)
        return v

    def has_var(self, name: str) -> bool:
        return name in self.vars

    def _find_var_recursive(self, name: str) -> Variable | None:
        block = self
        while block is not None:
            v = block.vars.get(name)
            if v is not None:
                return v
            block = self.program.blocks[block.parent_idx] if block.parent_idx >= 0 else None
        return None

    def _var_recursive(self, name: str) -> Variable:
        v = self._find_var_recursive(name)
        if v is None:
            raise ValueError('var %s is not found recursively' % name)
        return v

    def create_var(self, name: str | None = None, **kwargs) -> Variable:
        """A new Variable, or the existing one of that name (filled in where it had no shape or dtype yet)."""
        if name is None:
            name = unique_name.generate('_generated_var')
        existing = self.vars.get(name)
        if existing is not None:
            if kwargs.get('shape') is not None and not existing.has_shape():
                existing.shape = kwargs['shape']
            if kwargs.get('dtype') is not None and existing._dtype is None:
                existing.dtype = kwargs['dtype']
            if kwargs.get('persistable'):
                existing.persistable = True
            return existing
        v = Variable(self, name, **kwargs)
        self.vars[name] = v
        self.program._bump()
        return v

    def create_parameter(self, shape=None, dtype=None, name: str | None = None, initializer=None,
                         **kwargs) -> Parameter:
        """A Parameter of the program's global block, as Paddle's Block.create_parameter: `initializer`, when
        given, appends its init op to *this* block unless an op there already writes the parameter."""
        global_block = self.program.global_block()
        if name is None:
            name = unique_name.generate('_generated_var')
        p = global_block.vars.get(name)
        if not isinstance(p, Parameter):
            if shape is None or dtype is None:
                raise ValueError('create_parameter: the shape and dtype of parameter %r must be given' % name)
            p = Parameter(global_block, name, shape, dtype, **kwargs)
            global_block.vars[name] = p
            self.program._bump()
        if initializer is not None and not any(name in op.output_arg_names for op in self.ops):
            initializer(p, self)
        return p

    def _remove_var(self, name: str) -> None:
        self.vars.pop(name, None)
        self.program._bump()

    def _rename_var(self, old: str, new: str) -> Variable:
        v = self.vars.pop(old)
        v.name = new
        self.vars[new] = v
        for op in self.ops:
            op._rename_input(old, new)
            op._rename_output(old, new)
        self.program._bump()
        return v

    def all_parameters(self) -> list[Parameter]:
        return [v for v in self.vars.values() if isinstance(v, Parameter)]

    def iter_parameters(self):
        return iter(self.all_parameters())

    # --- operators ---------------------------------------------------------------------------------------------
    def _make_op(self, type: str, inputs=None, outputs=None, attrs=None) -> Operator:
        op = Operator(self, type, inputs, outputs, attrs)
        registry.complete_op(op)
        prog = self.program
        if not prog._op_role & OpRole.Backward:
            # Paddle's Python Operator lists every input slot of the op's proto, absent ones as []
            for slot in registry.get(type).inputs:
                op.inputs.setdefault(slot, [])
        op.attrs.setdefault(OP_ROLE_ATTR, int(prog._op_role))
        op.attrs.setdefault(OP_ROLE_VAR_ATTR, list(prog._op_role_var))
        op.attrs.setdefault('op_namescope', prog._name_scope)
        registry.infer_shape(op)
        return op

    def append_op(self, type: str, inputs=None, outputs=None, attrs=None, **kwargs) -> Operator:
        op = self._make_op(type, inputs, outputs, attrs)
        self.ops.append(op)
        self.program._bump()
        return op

    def _insert_op(self, index: int, type: str, inputs=None, outputs=None, attrs=None, **kwargs) -> Operator:
        op = self._make_op(type, inputs, outputs, attrs)
        self.ops.insert(index, op)
        self.program._bump()
        return op

    def _prepend_op(self, type: str, inputs=None, outputs=None, attrs=None, **kwargs) -> Operator:
        return self._insert_op(0, type, inputs, outputs, attrs)

    def _remove_op(self, index: int, end: int | None = None) -> None:
        del self.ops[index:(index + 1 if end is None else end)]
        self.program._bump()

    def _to_readable_code(self) -> str:
        lines = ['{ // block %d' % self.idx]
        lines += ['    %s' % v._to_readable_code() for v in self.vars.values()]
        lines.append('')
        lines += ['    %s' % op._to_readable_code() for op in self.ops]
        lines.append('}')
        return '\n'.join(lines)

    def __str__(self):
        return self._to_readable_code()

    def to_string(self, throw_on_error=True, with_details=False) -> str:
        return self._to_readable_code()


class Program:
    def __init__(self):
        self.blocks: list[Block] = [Block(self, 0)]
        self.current_block_idx = 0
        self._seed = 0
        self._version = 0
        self._id = next(_program_ids)
        self._op_role = OpRole.Forward
        self._op_role_var: list[str] = []
        self._name_scope = '/'
        self._is_test = False
        self._appending_grad_times = 0
        # filled by staged()/mark_target_node() and used by the SmartStage pass
        self._stage_info: dict = {}
        # learning-rate variable name -> the LR scheduler its `lr_scheduler_value` op reads every run
        self._lr_schedulers: dict = {}

    def _bump(self) -> None:
        self._version += 1

    def _add_lr_scheduler(self, var_name: str, scheduler) -> None:
        """Makes `scheduler` (callable, giving the current learning rate) the source of the variable `var_name`,
        which this program's `lr_scheduler_value` op writes every run. Paddle 2.x keeps one scheduler per program,
        `lr_sheduler`, which its executor reads before each run; it names the last one added."""
        self._lr_schedulers[var_name] = scheduler
        self.lr_sheduler = scheduler

    def _lr_scheduler_of(self, var_name: str):
        """The LR scheduler feeding `var_name`, None if none does."""
        return self._lr_schedulers.get(var_name)

    # --- Paddle's Program surface -----------------------------------------------------------------------------
    @property
    def random_seed(self) -> int:
        """The seed random initializers and dropout use when they are given none (0: a fresh random stream)."""
        return self._seed

    @random_seed.setter
    def random_seed(self, seed: int) -> None:
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError("Program.random_seed's input seed must be an integer, but received %s." % type(seed))
        self._seed = seed

    def global_block(self) -> Block:
        return self.blocks[0]

    def block(self, index: int) -> Block:
        return self.blocks[index]

    def current_block(self) -> Block:
        return self.blocks[self.current_block_idx]

    @property
    def num_blocks(self) -> int:
        return len(self.blocks)

    def _create_block(self, parent_idx: int | None = None) -> Block:
        parent = self.current_block_idx if parent_idx is None else parent_idx
        block = Block(self, len(self.blocks), parent)
        self.blocks.append(block)
        self.current_block_idx = block.idx
        self._bump()
        return block

    def _rollback(self) -> None:
        self.current_block_idx = self.current_block().parent_idx

    def list_vars(self):
        for block in self.blocks:
            yield from block.vars.values()

    def all_parameters(self) -> list[Parameter]:
        return [p for block in self.blocks for p in block.all_parameters()]

    def _to_readable_code(self) -> str:
        return ''.join(block._to_readable_code() + '\n' for block in self.blocks)

    def __str__(self):
        return self._to_readable_code()

    def to_string(self, throw_on_error=True, with_details=False) -> str:
        return self._to_readable_code()

    @contextlib.contextmanager
    def _optimized_guard(self, param_and_grads):
        """Ops appended inside get op_role Optimize and op_role_var = [param, grad]."""
        old_role, old_var = self._op_role, self._op_role_var
        self._op_role = OpRole.Optimize
        self._op_role_var = [v if isinstance(v, str) else v.name for v in param_and_grads if v is not None]
        try:
            yield
        finally:
            self._op_role, self._op_role_var = old_role, old_var

    @contextlib.contextmanager
    def _backward_role_guard(self):
        old_role = self._op_role
        self._op_role = OpRole.Backward
        try:
            yield
        finally:
            self._op_role = old_role

    @contextlib.contextmanager
    def _lr_schedule_guard(self, is_with_opt=False):
        old_role, old_var = self._op_role, self._op_role_var
        self._op_role = OpRole.LRSched | (OpRole.Optimize if is_with_opt else 0)
        self._op_role_var = []
        try:
            yield
        finally:
            self._op_role, self._op_role_var = old_role, old_var

    def clone(self, for_test: bool = False) -> Program:
        """A deep copy. `for_test=True` keeps only forward ops and switches `is_test` ops (dropout, batch_norm)
        to inference behaviour, as Paddle's `clone(for_test=True)` does."""
        p = Program()
        p.random_seed = self.random_seed
        p._stage_info = copy.deepcopy(self._stage_info)
        p._lr_schedulers = dict(self._lr_schedulers)
        p.blocks = []
        for src in self.blocks:
            block = Block(p, src.idx, src.parent_idx)
            block.forward_block_idx = src.forward_block_idx
            for name, v in src.vars.items():
                nv = copy.copy(v)
                nv.block = block
                block.vars[name] = nv
            for op in src.ops:
                if for_test and op.attrs.get(OP_ROLE_ATTR, 0) & (OpRole.Backward | OpRole.Optimize | OpRole.LRSched):
                    continue
                nop = Operator(block, op.type, op.inputs, op.outputs, copy.deepcopy(op.attrs))
                if for_test and 'is_test' in nop.attrs:
                    nop.attrs['is_test'] = True
                block.ops.append(nop)
            if for_test:
                used = {n for op in block.ops for n in op.input_arg_names + op.output_arg_names}
                block.vars = {n: v for n, v in block.vars.items()
                              if n in used or isinstance(v, Parameter) or v.is_data}
            p.blocks.append(block)
        p._is_test = for_test
        return p

    def _inference_optimize(self, prune_read_op=True) -> Program:
        return self.clone(for_test=True)

    def __getstate__(self):
        raise TypeError('a Program is not picklable; save it with paddle_exec.static.save_inference_model')


# --- the default programs ---------------------------------------------------------------------------------------

_main_program = Program()
_startup_program = Program()


def default_main_program() -> Program:
    return _main_program


def default_startup_program() -> Program:
    return _startup_program


def switch_main_program(program: Program) -> Program:
    global _main_program
    old, _main_program = _main_program, program
    return old


def switch_startup_program(program: Program) -> Program:
    global _startup_program
    old, _startup_program = _startup_program, program
    return old


@contextlib.contextmanager
def program_guard(main_program: Program, startup_program: Program | None = None):
    """Inside, builders append to `main_program` (and put initialisers in `startup_program`)."""
    if not isinstance(main_program, Program):
        raise TypeError('program_guard: main_program must be a Program, got %s' % type(main_program).__name__)
    if startup_program is not None and not isinstance(startup_program, Program):
        raise TypeError('program_guard: startup_program must be a Program, got %s'
                        % type(startup_program).__name__)
    old_main = switch_main_program(main_program)
    old_startup = switch_startup_program(startup_program) if startup_program is not None else None
    try:
        yield
    finally:
        switch_main_program(old_main)
        if startup_program is not None:
            switch_startup_program(old_startup)


@contextlib.contextmanager
def name_scope(prefix: str | None = None):
    prog = default_main_program()
    old = prog._name_scope
    prog._name_scope = old + (prefix or 'name_scope') + '/'
    try:
        yield
    finally:
        prog._name_scope = old
