"""Control-flow builders with fluid 1.8 signatures: ConditionalBlock, cond, case, switch_case, Switch, IfElse,
While / while_loop, and the tensor-array layers (create_array, array_write, array_read, array_length).

Each builder makes the ops Paddle 1.8 makes (python/paddle/fluid/layers/control_flow.py): a sub-block entered with
`Program._create_block()` and left with `_rollback()`, then one `conditional_block` / `while` op in the parent
whose Input / X lists every parent variable the sub-block reads before writing it and whose Out lists every
parent variable it writes (ops/control_flow.py explains why the executor needs exactly that). Paddle builds these
lists from Python sets; here they keep first-use order, so programs are deterministic.

`IfElse` splits rows by a bool mask (split_lod_tensor), runs two non-scalar conditional_blocks (each runs when
its rows are non-empty) and merges the rows back (merge_lod_tensor).

`cond` builds two conditional_blocks (the false one on `logical_not(pred)`), copies each branch's results into
fresh parent variables with `assign` inside the branch, and merges them with `select_input` on `cast(pred,
int32)`. `case` and `switch_case` chain `cond`s; `Switch` chains conditional_blocks on `pre_not & cond`.

Two deviations for tensor arrays (see ops/control_flow.py): `create_array` appends a `create_array` op, and
`array_write` into a given array also lists it in write_to_array's `Array` input slot.
"""
from __future__ import annotations

from functools import partial

from ..framework import unique_name
from ..framework.dtype import VarType, convert_dtype
from ..framework.variable import Variable
from ..ops.control_flow import as_sub_block_attr
from .casting import cast
from .checks import check_variable_and_dtype
from .creation import assign, fill_constant
from .helper import LayerHelper
from .math import equal, logical_and, logical_not

__all__ = ['ConditionalBlock', 'cond', 'case', 'switch_case', 'Switch', 'IfElse', 'While', 'while_loop',
           'create_array', 'array_write', 'array_read', 'array_length', 'select_input', 'select_output',
           'split_lod_tensor', 'merge_lod_tensor', 'Print']


def Print(input, first_n=-1, message=None, summarize=20, print_tensor_name=True, print_tensor_type=True,
          print_tensor_shape=True, print_tensor_lod=True, print_phase='both'):
    """fluid.layers.Print / paddle.static.Print: a `print` op whose output is `input`, printing it (and, through
    its gradient op, its gradient) at each run; ops/debug.py describes the text. Use the returned Variable
    downstream, or the backward print has nothing to print."""
    check_variable_and_dtype(input, 'input', ['float32', 'float64', 'int32', 'int64', 'bool'], 'fluid.layers.Print')
    if str(print_phase).upper() not in ('FORWARD', 'BACKWARD', 'BOTH'):
        raise ValueError("print_phase must be 'forward', 'backward' or 'both', got %r" % (print_phase,))
    helper = LayerHelper('print' + '_' + input.name)
    output = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op(type='print', inputs={'In': input}, outputs={'Out': output},
                     attrs={'first_n': first_n, 'summarize': summarize, 'message': message or '',
                            'print_tensor_name': print_tensor_name, 'print_tensor_type': print_tensor_type,
                            'print_tensor_shape': print_tensor_shape, 'print_tensor_lod': print_tensor_lod,
                            'print_phase': print_phase.upper()})
    return output


def _check_type(value, name: str, types, op_name: str) -> None:
    if not isinstance(value, types):
        raise TypeError("The type of '%s' in %s must be %s, but received %s. " % (name, op_name, types, type(value)))


# --- nested structures of Variables (Paddle's utils.map_structure / assert_same_structure) --------------------

def _flatten(x) -> list:
    if isinstance(x, (list, tuple)):
        return [leaf for item in x for leaf in _flatten(item)]
    if isinstance(x, dict):
        return [leaf for k in sorted(x) for leaf in _flatten(x[k])]
    return [x]


def _pack_like(structure, leaves: list):
    it = iter(leaves)

    def pack(s):
        if isinstance(s, (list, tuple)):
            return type(s)(pack(item) for item in s)
        if isinstance(s, dict):
            return {k: pack(s[k]) for k in sorted(s)}
        return next(it)
    return pack(structure)


def _map_structure(fn, *structures):
    flats = [_flatten(s) for s in structures]
    return _pack_like(structures[0], [fn(*leaves) for leaves in zip(*flats)])


def _same_structure(a, b) -> bool:
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b)
                and all(_same_structure(x, y) for x, y in zip(a, b)))
    if isinstance(a, dict) or isinstance(b, dict):
        return (isinstance(a, dict) and isinstance(b, dict) and sorted(a) == sorted(b)
                and all(_same_structure(a[k], b[k]) for k in a))
    return True


# --- blocks -------------------------------------------------------------------------------------------------------

class BlockGuard:
    """Enters a new sub-block of the main program; leaves it on exit."""

    def __init__(self, main_program):
        self.main_program = main_program

    def __enter__(self):
        self.main_program._create_block()

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.main_program._rollback()
        return exc_type is None


def _reads_and_writes(block) -> tuple[list[str], list[str]]:
    """Names the block's ops read before any op of the block writes them, and names they write (first-use order)."""
    reads, writes, written = [], [], set()
    for op in block.ops:
        for name in op.input_arg_names:
            if name not in written and name not in reads:
                reads.append(name)
        for name in op.output_arg_names:
            if name not in written:
                written.add(name)
                writes.append(name)
    return reads, writes


class ConditionalBlockGuard(BlockGuard):
    def __init__(self, block: ConditionalBlock):
        _check_type(block, 'block', ConditionalBlock, 'ConditionalBlockGuard')
        super().__init__(block.helper.main_program)
        self.block = block

    def __exit__(self, exc_type, exc_val, exc_tb):
        if exc_type is None:
            self.block.complete()
        return super().__exit__(exc_type, exc_val, exc_tb)


class ConditionalBlock:
    """Runs its block when the condition holds: `inputs` are bool conditions (one scalar when
    is_scalar_condition)."""

    def __init__(self, inputs, is_scalar_condition: bool = False, name=None):
        for each_input in inputs:
            _check_type(each_input, 'input', Variable, 'ConditionalBlock')
        self.inputs = list(inputs)
        self.is_scalar_condition = is_scalar_condition
        self.helper = LayerHelper('conditional_block', name=name)

    def block(self) -> ConditionalBlockGuard:
        return ConditionalBlockGuard(self)

    def complete(self) -> None:
        program = self.helper.main_program
        inside = program.current_block()
        parent = program.block(inside.parent_idx)
        reads, writes = _reads_and_writes(inside)
        params = [parent._var_recursive(n) for n in reads]
        outs = [v for v in (parent._find_var_recursive(n) for n in writes) if v is not None]
        step_scope = parent.create_var(type=VarType.STEP_SCOPES)
        parent.append_op('conditional_block', {'Cond': self.inputs, 'Input': params},
                         {'Out': outs, 'Scope': [step_scope]},
                         {'sub_block': as_sub_block_attr(inside), 'is_scalar_condition': self.is_scalar_condition})


def _copy_to_parent_block(var, helper):
    """A new parent-block variable that `var` (made inside a branch) is assigned to, inside the branch."""
    if var is None:
        return None
    program = helper.main_program
    parent_idx = program.current_block().parent_idx
    assert parent_idx >= 0, 'Got wrong parent block index when assigning var to parent scope in control_flow'
    parent_var = program.block(parent_idx).create_var(dtype=var.dtype, shape=var.shape, type=var.type)
    assign(var, parent_var)
    return parent_var


def select_output(input, outputs, mask):
    """Copies `input` into outputs[mask]."""
    helper = LayerHelper('select_output')
    _check_type(input, 'input', Variable, 'select_output')
    check_variable_and_dtype(mask, 'mask', ['int32'], 'select_output')
    _check_type(outputs, 'outputs', (list, tuple), 'select_output')
    helper.append_op('select_output', {'X': [input], 'Mask': [mask]}, {'Out': list(outputs)})
    return outputs


def select_input(inputs, mask):
    """inputs[mask]."""
    helper = LayerHelper('select_input')
    _check_type(inputs, 'inputs', (list, tuple), 'select_input')
    check_variable_and_dtype(mask, 'mask', ['int32'], 'select_input')
    first = inputs[0]
    out = helper.create_variable(dtype=first.dtype, shape=first.shape if first.has_shape() else None,
                                 type=first.type)
    helper.append_op('select_input', {'X': list(inputs), 'Mask': [mask]}, {'Out': [out]})
    return out


def cond(pred, true_fn=None, false_fn=None, name=None):
    """true_fn() if pred else false_fn(), as two conditional_blocks merged by select_input."""
    check_variable_and_dtype(pred, 'pred', ['bool'], 'fluid.layers.cond')
    _check_type(name, 'name', (str, type(None)), 'fluid.layers.cond')
    helper = LayerHelper('cond', name=name)
    true_output = false_output = None
    copy_to_parent = partial(_copy_to_parent_block, helper=helper)
    if true_fn is not None:
        if not callable(true_fn):
            raise TypeError('The true_fn in cond must be callable, but received %s' % type(true_fn).__name__)
        true_block = ConditionalBlock([pred], is_scalar_condition=True)
        with true_block.block():
            origin = true_fn()
            if origin is not None:
                true_output = _map_structure(copy_to_parent, origin)
    if false_fn is not None:
        if not callable(false_fn):
            raise TypeError('The false_fn in cond must be callable, but received %s' % type(false_fn).__name__)
        false_block = ConditionalBlock([logical_not(pred)], is_scalar_condition=True)
        with false_block.block():
            origin = false_fn()
            if origin is not None:
                false_output = _map_structure(copy_to_parent, origin)
    if true_output is None and false_output is None:
        return None
    if true_output is None:
        raise ValueError('Incompatible return values of true_fn and false_fn in cond: true_fn returns None while '
                         'false_fn returns non-None')
    if false_output is None:
        raise ValueError('Incompatible return values of true_fn and false_fn in cond: true_fn returns non-None while '
                         'false_fn returns None')
    if not _same_structure(true_output, false_output):
        raise ValueError('Incompatible return values of true_fn and false_fn in cond: The two structures don\'t '
                         'have the same nested structure')
    mask = cast(pred, dtype='int32')
    return _map_structure(lambda false_var, true_var: select_input([false_var, true_var], mask),
                          false_output, true_output)


def _error_message(what, arg_name, op_name, right_value, error_value) -> str:
    return ("%s of '%s' in Op(%s) must be %s, but received: %s." % (what, arg_name, op_name, right_value,
                                                                    error_value))


def case(pred_fn_pairs, default=None, name=None):
    """The fn of the first true pred (or default; without default, the last pair's fn)."""
    _check_type(pred_fn_pairs, 'pred_fn_pairs', (list, tuple), 'case')
    for pred_fn in pred_fn_pairs:
        if not isinstance(pred_fn, tuple):
            raise TypeError(_error_message("The elements' type", 'pred_fn_pairs', 'case', tuple, type(pred_fn)))
        if len(pred_fn) != 2:
            raise TypeError(_error_message("The tuple's size", 'pred_fn_pairs', 'case', '2',
                                           str(len(pred_fn)) + '-tuple'))
        pred, fn = pred_fn
        if not isinstance(pred, Variable):
            raise TypeError(_error_message("The pred's type", 'pred_fn_pairs', 'case', 'boolean Variable',
                                           type(pred)))
        if not callable(fn):
            raise TypeError('The fn for %s of pred_fn_pairs in Op(case) must be callable.' % pred.name)
    pairs = list(pred_fn_pairs)
    if default is None:
        default = pairs[-1][1]
        pairs = pairs[:-1]
    elif not callable(default):
        raise TypeError('The default in Op(case) must be callable.')
    false_fn = default
    for pred, true_fn in reversed(pairs):
        false_fn = partial(cond, pred=pred, true_fn=true_fn, false_fn=false_fn)
    return false_fn()


def switch_case(branch_index, branch_fns, default=None, name=None):
    """branch_fns[branch_index]() (or default; without default, the fn of the largest key)."""
    check_variable_and_dtype(branch_index, 'branch_index', ['uint8', 'int32', 'int64'], 'switch_case')
    if convert_dtype(branch_index.dtype) != 'int64':
        branch_index = cast(branch_index, 'int64')
    _check_type(branch_fns, 'branch_fns', (list, tuple, dict), 'switch_case')
    fns = list(branch_fns.items()) if isinstance(branch_fns, dict) else list(branch_fns)
    if all(callable(fn) for fn in fns):
        fns = list(enumerate(fns))
    keys = []
    for pair in fns:
        if not isinstance(pair, tuple):
            raise TypeError(_error_message("The elements' type", 'branch_fns', 'switch_case', tuple,
                                           type(branch_fns)))
        if len(pair) != 2:
            raise TypeError(_error_message("The tuple's size", 'branch_fns', 'switch_case', '2',
                                           str(len(pair)) + '-tuple'))
        key, fn = pair
        if not isinstance(key, int):
            raise TypeError(_error_message("The key's type", 'branch_fns', 'switch_case', int, type(key)))
        if key in keys:
            raise ValueError("The key in 'branch_fns' must be unique, but '%s' appears more than once." % key)
        keys.append(key)
        if not callable(fn):
            raise TypeError(_error_message('The type of function for key %s' % key, 'branch_fns', 'switch_case',
                                           'callable', type(fn)))
    if default is None:
        ordered = sorted(fns, key=lambda p: p[0])
        default, fns = ordered[-1][1], ordered[:-1]
    elif not callable(default):
        raise TypeError('The default in Op(case) must be callable.')
    pred_fn_pairs = []
    for index, fn in fns:
        pred_fn_pairs.append((equal(branch_index, fill_constant(shape=[1], dtype='int64', value=index)), fn))
    false_fn = default
    for pred, true_fn in pred_fn_pairs:
        false_fn = partial(cond, pred=pred, true_fn=true_fn, false_fn=false_fn)
    return false_fn()


class Switch:
    """`with Switch() as s: with s.case(c1): ...  with s.default(): ...`: the first true case runs."""

    def __init__(self, name=None):
        self.helper = LayerHelper('switch', name=name)
        self.inside_scope = False
        self.pre_not_conditions: list = []

    def case(self, condition) -> ConditionalBlockGuard:
        if not self.inside_scope:
            raise ValueError('case should be called inside with')
        check_variable_and_dtype(condition, 'condition', ['bool'], 'the member function case of fluid.layers.Switch')
        if not self.pre_not_conditions:
            cond_block = ConditionalBlock([condition], is_scalar_condition=True)
            self.pre_not_conditions.append(logical_not(x=condition))
        else:
            pre_not_cond = self.pre_not_conditions[-1]
            self.pre_not_conditions.append(logical_and(x=pre_not_cond, y=logical_not(x=condition)))
            cond_block = ConditionalBlock([logical_and(x=pre_not_cond, y=condition)], is_scalar_condition=True)
        return ConditionalBlockGuard(cond_block)

    def default(self) -> ConditionalBlockGuard:
        if not self.pre_not_conditions:
            raise ValueError('there should be at least one condition')
        return ConditionalBlockGuard(ConditionalBlock([self.pre_not_conditions[-1]], is_scalar_condition=True))

    def __enter__(self):
        self.inside_scope = True
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.inside_scope = False
        return exc_type is None


# --- IfElse: rows routed by a bool mask -----------------------------------------------------------------------

def split_lod_tensor(input, mask, level: int = 0):
    """(rows of input where mask, rows where not mask)."""
    _check_type(input, 'input', Variable, 'fluid.layers.split_lod_tensor')
    _check_type(mask, 'mask', Variable, 'fluid.layers.split_lod_tensor')
    helper = LayerHelper('split_lod_tensor')
    out_true = helper.create_variable_for_type_inference(dtype=input.dtype)
    out_false = helper.create_variable_for_type_inference(dtype=input.dtype)
    helper.append_op('split_lod_tensor', {'X': [input], 'Mask': [mask]},
                     {'OutTrue': [out_true], 'OutFalse': [out_false]}, {'level': level})
    return out_true, out_false


def merge_lod_tensor(in_true, in_false, x, mask, level: int = 0):
    """The rows of in_true where mask, of in_false elsewhere, in mask order."""
    _check_type(mask, 'mask', Variable, 'fluid.layers.merge_lod_tensor')
    helper = LayerHelper('merge_lod_tensor')
    out = helper.create_variable_for_type_inference(dtype=in_true.dtype)
    helper.append_op('merge_lod_tensor', {'X': [x], 'Mask': [mask], 'InTrue': [in_true], 'InFalse': [in_false]},
                     {'Out': [out]}, {'level': level})
    return out


class IfElseBlockGuard:
    def __init__(self, is_true: bool, ifelse: IfElse):
        if not isinstance(ifelse, IfElse):
            raise TypeError('ifelse must be an instance of IfElse class')
        if ifelse.status != IfElse.OUT_IF_ELSE_BLOCKS:
            raise ValueError('You cannot invoke IfElse.block() inside a block')
        self.is_true = is_true
        self.ie = ifelse
        block = ifelse.conditional_true_block if is_true else ifelse.conditional_false_block
        self.cond_block = block.block()

    def __enter__(self):
        self.ie.status = IfElse.IN_IF_ELSE_TRUE_BLOCKS if self.is_true else IfElse.IN_IF_ELSE_FALSE_BLOCKS
        self.cond_block.__enter__()

    def __exit__(self, exc_type, exc_val, exc_tb):
        if not self.cond_block.__exit__(exc_type, exc_val, exc_tb):
            return False
        if len(self.ie.output_table[1 if self.is_true else 0]) == 0:
            raise ValueError('Must set output inside block')
        self.ie.status = IfElse.OUT_IF_ELSE_BLOCKS
        return True


class IfElse:
    """Row-wise if/else on a bool mask of shape [N, 1]: `input(x)` inside a block gives the rows of x that take
    that branch, `output(...)` the branch's results; calling the IfElse merges them back in row order."""
    OUT_IF_ELSE_BLOCKS = 0
    IN_IF_ELSE_TRUE_BLOCKS = 1
    IN_IF_ELSE_FALSE_BLOCKS = 2

    def __init__(self, cond, name=None):
        _check_type(cond, 'cond', Variable, 'fluid.layers.IfElse')
        _check_type(name, 'name', (str, type(None)), 'fluid.layers.IfElse')
        self.helper = LayerHelper('ifelse', name=name)
        self.cond = cond
        self.input_table: dict = {}
        self.status = IfElse.OUT_IF_ELSE_BLOCKS
        self.conditional_true_block = ConditionalBlock(inputs=[self.cond])
        self.conditional_false_block = ConditionalBlock(inputs=[self.cond])
        self.output_table: tuple = ([], [])     # (false outputs, true outputs)

    def _parent_block(self):
        program = self.helper.main_program
        return program.block(program.current_block().parent_idx)

    def input(self, x):
        if self.status == IfElse.OUT_IF_ELSE_BLOCKS:
            raise ValueError('input must in true/false blocks')
        if id(x) not in self.input_table:
            parent = self._parent_block()
            out_true, out_false = (
                parent.create_var(name=unique_name.generate_with_ignorable_key('ifelse_input' + self.helper.name),
                                  dtype=x.dtype) for _ in range(2))
            parent.append_op('split_lod_tensor', {'X': [x], 'Mask': [self.cond]},
                             {'OutTrue': [out_true], 'OutFalse': [out_false]}, {'level': 0})
            self.input_table[id(x)] = (out_true, out_false)
        out_true, out_false = self.input_table[id(x)]
        return out_true if self.status == IfElse.IN_IF_ELSE_TRUE_BLOCKS else out_false

    def true_block(self) -> IfElseBlockGuard:
        return IfElseBlockGuard(True, self)

    def false_block(self) -> IfElseBlockGuard:
        return IfElseBlockGuard(False, self)

    def output(self, *outs) -> None:
        if self.status == self.OUT_IF_ELSE_BLOCKS:
            raise ValueError('output can only be invoked in the sub-block')
        table = self.output_table[1 if self.status == self.IN_IF_ELSE_TRUE_BLOCKS else 0]
        parent = self._parent_block()
        for each_out in outs:
            _check_type(each_out, 'each output', Variable, 'fluid.layers.IfElse.output')
            outside = parent.create_var(
                name=unique_name.generate_with_ignorable_key('_'.join([self.helper.name, 'output'])),
                dtype=each_out.dtype)
            table.append(outside)
            assign(input=each_out, output=outside)

    def __call__(self) -> list:
        if self.status != self.OUT_IF_ELSE_BLOCKS:
            raise ValueError('IfElse::__call__ must be out of sub-block')
        false_len, true_len = map(len, self.output_table)
        if false_len == 0 and true_len == 0:
            raise ValueError('Must invoke true_block/false_block before __call__')
        if false_len != true_len and false_len != 0 and true_len != 0:
            raise ValueError('The output side must be same')
        if false_len == 0 or true_len == 0:
            return self.output_table[0 if false_len != 0 else 1]
        return [merge_lod_tensor(in_true=t, in_false=f, x=self.cond, mask=self.cond, level=0)
                for f, t in zip(*self.output_table)]


# --- while --------------------------------------------------------------------------------------------------------

def _numel(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


class WhileGuard(BlockGuard):
    def __init__(self, while_op: While):
        _check_type(while_op, 'while_op', While, 'WhileGuard')
        super().__init__(while_op.helper.main_program)
        self.while_op = while_op

    def __enter__(self):
        self.while_op.status = While.IN_WHILE_BLOCK
        return super().__enter__()

    def __exit__(self, exc_type, exc_val, exc_tb):
        if exc_type is not None:
            return False
        self.while_op.status = While.AFTER_WHILE_BLOCK
        self.while_op._complete()
        return super().__exit__(exc_type, exc_val, exc_tb)


class While:
    """`with While(cond).block(): ...`: repeats the block while `cond` (bool, one element) holds; the block must
    update `cond`."""
    BEFORE_WHILE_BLOCK = 0
    IN_WHILE_BLOCK = 1
    AFTER_WHILE_BLOCK = 2

    def __init__(self, cond, is_test: bool = False, name=None):
        self.helper = LayerHelper('while', name=name)
        self.status = While.BEFORE_WHILE_BLOCK
        if not isinstance(cond, Variable):
            raise TypeError('condition should be a variable')
        if cond.dtype != VarType.BOOL:
            raise TypeError('condition should be a boolean variable')
        if _numel(cond.shape) != 1:
            raise TypeError('condition expected shape as [], but given shape as %s.' % list(cond.shape))
        self.cond_var = cond
        self.is_test = is_test

    def block(self) -> WhileGuard:
        return WhileGuard(self)

    def _complete(self) -> None:
        program = self.helper.main_program
        while_block = program.current_block()
        parent = program.block(while_block.parent_idx)
        inner_outputs = [self.cond_var.name]
        x_names = []
        for op in while_block.ops:
            for name in op.input_arg_names:
                if name not in inner_outputs and name not in x_names:
                    x_names.append(name)
            for name in op.output_arg_names:
                if name not in inner_outputs:
                    inner_outputs.append(name)
        out_vars = [v for v in (parent._find_var_recursive(n) for n in inner_outputs) if v is not None]
        step_scope = parent.create_var(type=VarType.STEP_SCOPES)
        parent.append_op('while', {'X': [parent._var_recursive(n) for n in x_names], 'Condition': [self.cond_var]},
                         {'Out': out_vars, 'StepScopes': [step_scope]},
                         {'sub_block': as_sub_block_attr(while_block), 'is_test': self.is_test})


def while_loop(cond, body, loop_vars, is_test: bool = False, name=None):
    """Repeats `loop_vars = body(*loop_vars)` while `cond(*loop_vars)`; returns the final loop_vars."""
    if not callable(cond):
        raise TypeError('cond in while_loop should be callable')
    if not callable(body):
        raise TypeError('body in while_loop should be callable')
    if not isinstance(loop_vars, (list, tuple)):
        raise TypeError('loop_vars in while_loop should be a list or tuple')
    if len(loop_vars) == 0:
        raise ValueError('loop_vars in while_loop should not be empty')
    pre_cond = cond(*loop_vars)
    if not isinstance(pre_cond, Variable):
        raise TypeError('cond in while_loop should return a variable')
    if pre_cond.dtype != VarType.BOOL:
        raise TypeError('cond in while_loop should return a boolean variable')
    if _numel(pre_cond.shape) != 1:
        raise TypeError('the shape of the variable returned by cond should be [],but given shape as %s.'
                        % list(pre_cond.shape))
    while_op = While(pre_cond, is_test, name)
    with while_op.block():
        output_vars = body(*loop_vars)
        if not isinstance(output_vars, (list, tuple)):
            output_vars = [output_vars]
        if not _same_structure(list(output_vars), list(loop_vars)):
            raise ValueError('body in while_loop should return the same arity (length and structure) as loop_vars')
        now_cond = cond(*output_vars)
        _map_structure(assign, list(output_vars), list(loop_vars))
        assign(now_cond, pre_cond)
    return loop_vars


# --- tensor arrays ------------------------------------------------------------------------------------------------

def create_array(dtype) -> Variable:
    """An empty LOD_TENSOR_ARRAY variable, made by a `create_array` op (not in Paddle: see ops/control_flow.py)."""
    helper = LayerHelper('array')
    array = helper.create_variable(name='%s.out' % helper.name, type=VarType.LOD_TENSOR_ARRAY, dtype=dtype)
    helper.append_op('create_array', {}, {'Out': [array]})
    return array


def _check_array(array, op_name: str) -> None:
    if not isinstance(array, Variable) or array.type != VarType.LOD_TENSOR_ARRAY:
        raise TypeError('array should be tensor array vairable%s' % op_name)


def array_write(x, i, array=None) -> Variable:
    """array[i] = x (the array grows as needed); creates the array when none is given."""
    check_variable_and_dtype(i, 'i', ['int64'], 'array_write')
    _check_type(x, 'x', Variable, 'array_write')
    helper = LayerHelper('array_write')
    inputs = {'X': [x], 'I': [i]}
    if array is not None:
        _check_array(array, ' in array_write Op')
        inputs['Array'] = [array]   # not in Paddle's op: hands the kernel the existing list (ops/control_flow.py)
    else:
        array = helper.create_variable(name='%s.out' % helper.name, type=VarType.LOD_TENSOR_ARRAY, dtype=x.dtype)
    helper.append_op('write_to_array', inputs, {'Out': [array]})
    return array


def array_read(array, i) -> Variable:
    """array[i]."""
    check_variable_and_dtype(i, 'i', ['int64'], 'array_read')
    _check_array(array, '')
    helper = LayerHelper('array_read')
    out = helper.create_variable_for_type_inference(dtype=array.dtype)
    helper.append_op('read_from_array', {'X': [array], 'I': [i]}, {'Out': [out]})
    return out


def array_length(array) -> Variable:
    """len(array) as an int64 tensor of shape [1]."""
    _check_array(array, ' in array_length Op')
    helper = LayerHelper('array_length')
    tmp = helper.create_variable_for_type_inference(dtype='int64')
    tmp.stop_gradient = True
    helper.append_op('lod_array_length', {'X': [array]}, {'Out': [tmp]})
    return tmp
