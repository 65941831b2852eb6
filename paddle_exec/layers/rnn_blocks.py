"""The recurrent building blocks of fluid 1.8's control_flow module: StaticRNN, DynamicRNN and the LoD-rank-table
layers they are made of (lod_rank_table, max_sequence_len, lod_tensor_to_array, array_to_lod_tensor,
reorder_lod_tensor_by_rank, shrink_memory).

Each builds the ops Paddle 1.8 builds (python/paddle/fluid/layers/control_flow.py; ops/tensor_array.py and
ops/loops.py run them):
- StaticRNN: a step block entered with `step()`; `step_input(x)` declares, inside it, a variable named like x and
  shaped like one time step of x; `memory(init=...)` (or `shape` + `batch_ref`: a fill_constant_batch_size_like
  boot value in the parent) gives the previous state, `update_memory(mem, new)` names the new one,
  `step_output` / `output` collect per-step results through `rnn_memory_helper`. Leaving the block appends one
  `recurrent` op (inputs, initial_states, parameters -> outputs, step_scopes; attrs ex_states, states).
- DynamicRNN: a While over the longest sequence. `step_input(x)` ranks x's sequences (lod_rank_table, once),
  splits x into per-step tensors (lod_tensor_to_array) and reads step `step_idx`; `static_input(x)` reorders x by
  rank and shrinks it to the sequences still running; `memory(init=... | shape=...)` keeps the state in an array,
  shrunk each step; `update_memory`, `output` write arrays, and the outputs are array_to_lod_tensor'ed after the
  loop. The step index is an int64 counter incremented in place, which is what lets the loop's gradient count it
  back (ops/loops.py).

One deviation, as for create_array (layers/control_flow.py): an output array DynamicRNN writes inside its loop is
created by a `create_array` op before the loop, so the loop has a list to write into.
"""
from __future__ import annotations

import contextlib

from ..framework import unique_name
from ..framework.dtype import VarType
from ..framework.variable import Variable
from ..ops.control_flow import as_sub_block_attr
from .checks import check_type
from .control_flow import BlockGuard, While, array_read, array_write
from .creation import fill_constant
from .helper import LayerHelper
from .math import increment, less_than

__all__ = ['StaticRNN', 'DynamicRNN', 'lod_rank_table', 'max_sequence_len', 'lod_tensor_to_array',
           'array_to_lod_tensor', 'reorder_lod_tensor_by_rank', 'shrink_memory']


def _check_variables(value, name: str, op_name: str) -> None:
    check_type(value, name, (Variable, list), op_name)
    if isinstance(value, list):
        for i, v in enumerate(value):
            check_type(v, '%s[%d]' % ('input' if name == 'x' else name, i), Variable, op_name)


def lod_rank_table(x, level=0):
    """The sequences of x's LoD level `level`, ranked by length (a LOD_RANK_TABLE variable)."""
    _check_variables(x, 'x', 'lod_rank_table')
    helper = LayerHelper('lod_rank_table')
    table = helper.create_variable(type=VarType.LOD_RANK_TABLE, name=unique_name.generate('lod_rank_table'))
    helper.append_op('lod_rank_table', {'X': x}, {'Out': [table]}, {'level': level})
    return table


def max_sequence_len(rank_table):
    """The longest sequence's length in the rank table, int64 [1]."""
    helper = LayerHelper('max_seqence_len')         # sic: Paddle 1.8's helper name
    res = helper.create_variable_for_type_inference(dtype='int64')
    helper.append_op('max_sequence_len', {'RankTable': [rank_table]}, {'Out': [res]})
    return res


def lod_tensor_to_array(x, table):
    """A tensor array whose element t holds step t of every sequence longer than t, in rank order."""
    _check_variables(x, 'x', 'lod_tensor_to_array')
    _check_variables(table, 'table', 'lod_tensor_to_array')
    helper = LayerHelper('lod_tensor_to_array')
    array = helper.create_variable(name=unique_name.generate('lod_tensor_to_array'), type=VarType.LOD_TENSOR_ARRAY,
                                   dtype=x.dtype)
    helper.append_op('lod_tensor_to_array', {'X': [x], 'RankTable': [table]}, {'Out': [array]})
    return array


def array_to_lod_tensor(x, table):
    """The inverse of lod_tensor_to_array: a LoD tensor with the sequences back in their order."""
    _check_variables(x, 'x', 'array_to_lod_tensor')
    _check_variables(table, 'table', 'array_to_lod_tensor')
    helper = LayerHelper('array_to_lod_tensor')
    tmp = helper.create_variable_for_type_inference(dtype=x.dtype)
    helper.append_op('array_to_lod_tensor', {'X': [x], 'RankTable': [table]}, {'Out': [tmp]})
    return tmp


def shrink_memory(x, i, table):
    """The first rows of x, one per sequence of the rank table still running at step i."""
    helper = LayerHelper('shrink_memory')
    out = helper.create_variable_for_type_inference(dtype=x.dtype)
    helper.append_op('shrink_rnn_memory', {'X': [x], 'I': [i], 'RankTable': [table]}, {'Out': [out]}, {})
    return out


def reorder_lod_tensor_by_rank(x, rank_table):
    """x's sequences (or rows) in the rank table's order."""
    check_type(x, 'x', (Variable), 'reorder_lod_tensor_by_rank')
    check_type(rank_table, 'rank_table', (Variable), 'reorder_lod_tensor_by_rank')
    if rank_table.type != VarType.LOD_RANK_TABLE:
        raise TypeError("The type of rank_table should be LOD_RANK_TABLE.")
    helper = LayerHelper('reorder_lod_tensor_by_rank')
    out = helper.create_variable_for_type_inference(dtype=x.dtype)
    helper.append_op('reorder_lod_tensor_by_rank', {'X': [x], 'RankTable': [rank_table]}, {'Out': [out]})
    return out


# --- StaticRNN ----------------------------------------------------------------------------------------------------

class StaticRNNMemoryLink:
    def __init__(self, init, pre_mem, mem=None):
        self.init = init
        self.pre_mem = pre_mem
        self.mem = mem


class BlockGuardWithCompletion(BlockGuard):
    """StaticRNN's step block: leaving it appends the recurrent op."""

    def __init__(self, rnn):
        if not isinstance(rnn, StaticRNN):
            raise TypeError("BlockGuardWithCompletion takes a StaticRNN")
        super().__init__(rnn.helper.main_program)
        self.rnn = rnn

    def __enter__(self):
        self.rnn.status = StaticRNN.IN_RNN_BLOCK
        return super().__enter__()

    def __exit__(self, exc_type, exc_val, exc_tb):
        if exc_type is not None:
            return False
        self.rnn.status = StaticRNN.AFTER_RNN_BLOCK
        self.rnn._complete_op()
        return super().__exit__(exc_type, exc_val, exc_tb)


class StaticRNN:
    """An RNN over inputs of a fixed number of steps ([seq_len, batch, ...]), built as one `recurrent` op."""
    BEFORE_RNN_BLOCK = 0
    IN_RNN_BLOCK = 1
    AFTER_RNN_BLOCK = 2

    def __init__(self, name=None):
        check_type(name, 'name', (str, type(None)), 'fluid.layers.StaticRNN')
        self.helper = LayerHelper('static_rnn', name=name)
        self.memories: dict = {}
        self.inputs: list = []
        self.outputs: list = []
        self.status = StaticRNN.BEFORE_RNN_BLOCK
        self.seq_len = None

    def step(self) -> BlockGuardWithCompletion:
        return BlockGuardWithCompletion(self)

    def _assert_in_rnn_block_(self, method):
        if self.status != StaticRNN.IN_RNN_BLOCK:
            raise ValueError("You must invoke {0} in rnn block".format(method))

    def memory(self, init=None, shape=None, batch_ref=None, init_value=0.0, init_batch_dim_idx=0,
               ref_batch_dim_idx=1):
        self._assert_in_rnn_block_('memory')
        check_type(init, 'init', (Variable, type(None)), 'fluid.layers.StaticRNN.memory')
        check_type(shape, 'shape', (list, tuple, type(None)), 'fluid.layers.StaticRNN.memory')
        check_type(batch_ref, 'batch_ref', (Variable, type(None)), 'fluid.layers.StaticRNN.memory')
        if init is None:
            if shape is None or batch_ref is None:
                raise ValueError("if init is None, memory at least need shape and batch_ref")
            parent_block = self._parent_block()
            var_name = unique_name.generate_with_ignorable_key('@'.join([self.helper.name, 'memory_boot']))
            boot_var = parent_block.create_var(name=var_name, shape=shape, dtype=batch_ref.dtype, persistable=False)
            parent_block.append_op('fill_constant_batch_size_like', {'Input': [batch_ref]}, {'Out': [boot_var]},
                                   {'value': init_value, 'shape': list(boot_var.shape), 'dtype': int(boot_var.dtype),
                                    'input_dim_idx': ref_batch_dim_idx, 'output_dim_idx': init_batch_dim_idx})
            return self.memory(init=boot_var)
        pre_mem = self.helper.create_variable(
            name=unique_name.generate_with_ignorable_key('@'.join([self.helper.name, 'mem'])), dtype=init.dtype,
            shape=init.shape)
        self.memories[pre_mem.name] = StaticRNNMemoryLink(init=init, pre_mem=pre_mem)
        return pre_mem

    def step_input(self, x):
        self._assert_in_rnn_block_('step_input')
        check_type(x, 'x', Variable, 'fluid.layers.StaticRNN.step_input')
        if self.seq_len is None:
            self.seq_len = x.shape[0]
        elif x.shape[0] != -1 and self.seq_len != x.shape[0]:
            raise ValueError("Static RNN only take fix seq_len input")
        ipt = self.helper.create_variable(name=x.name, dtype=x.dtype, shape=list(x.shape[1:]), type=x.type)
        self.inputs.append(ipt)
        return ipt

    def step_output(self, o):
        self._assert_in_rnn_block_('step_output')
        check_type(o, 'o', Variable, 'fluid.layers.StaticRNN.step_output')
        tmp_o = self.helper.create_variable_for_type_inference(dtype=o.dtype)
        self.helper.append_op('rnn_memory_helper', {'X': [o]}, {'Out': [tmp_o]}, {'dtype': int(o.dtype)})
        out_var = self._parent_block().create_var(name=tmp_o.name, shape=[self.seq_len] + list(tmp_o.shape),
                                                  dtype=tmp_o.dtype)
        self.outputs.append(out_var)

    def output(self, *outputs):
        for each in outputs:
            self.step_output(each)

    def update_memory(self, mem, var):
        check_type(mem, 'mem', Variable, 'fluid.layers.StaticRNN.update_memory')
        check_type(var, 'var', Variable, 'fluid.layers.StaticRNN.update_memory')
        self.memories[mem.name].mem = var

    def _parent_block(self):
        prog = self.helper.main_program
        parent_idx = prog.current_block().parent_idx
        assert parent_idx >= 0
        return prog.block(parent_idx)

    def __call__(self, *args, **kwargs):
        if self.status != StaticRNN.AFTER_RNN_BLOCK:
            raise ValueError("RNN output can only be retrieved after rnn block")
        if len(self.outputs) == 0:
            raise ValueError("RNN has no output")
        if len(self.outputs) == 1:
            return self.outputs[0]
        return self.outputs

    def _complete_op(self):
        rnn_block = self.helper.main_program.current_block()
        parent_block = self._parent_block()
        local_inputs = {n for op in rnn_block.ops for n in op.output_arg_names}
        local_inputs.update(v.name for v in self.inputs)
        local_inputs.update(self.memories)
        params = []
        for op in rnn_block.ops:
            for name in op.input_arg_names:
                if name not in local_inputs and name not in params:
                    params.append(name)
        parameters = [parent_block._var_recursive(name) for name in params]
        step_scope = parent_block.create_var(type=VarType.STEP_SCOPES)
        inlinks = [parent_block._var_recursive(i.name) for i in self.inputs]
        boot_memories, pre_memories, memories = [], [], []
        for mem in self.memories.values():
            boot_memories.append(mem.init)
            pre_memories.append(mem.pre_mem.name)
            assert mem.mem is not None, "%s should be updated in every step." % mem.init.name
            mem_var = rnn_block.var(mem.mem.name)
            new_mem = self.helper.create_variable_for_type_inference(dtype=mem_var.dtype)
            rnn_block.append_op('rnn_memory_helper', {'X': [mem_var]}, {'Out': [new_mem]},
                                {'dtype': int(mem_var.dtype)})
            memories.append(new_mem.name)
        parent_block.append_op('recurrent',
                               {'inputs': inlinks, 'initial_states': boot_memories, 'parameters': parameters},
                               {'outputs': self.outputs, 'step_scopes': [step_scope]},
                               {'has_states': len(pre_memories) > 0, 'ex_states': pre_memories,
                                'states': memories, 'sub_block': as_sub_block_attr(rnn_block)})


# --- DynamicRNN ---------------------------------------------------------------------------------------------------

class DynamicRNN:
    """An RNN over the sequences of LoD inputs, a While over the longest one (see the module docstring)."""
    BEFORE_RNN = 0
    IN_RNN = 1
    AFTER_RNN = 2

    def __init__(self, name=None):
        self.helper = LayerHelper('dynamic_rnn', name=name)
        self.status = DynamicRNN.BEFORE_RNN
        self.lod_rank_table = None
        self.max_seq_len = None
        self.step_idx = None
        self.zero_idx = None
        self.mem_dict: dict = {}
        self.output_array: list = []
        self.outputs: list = []
        self.cond = self.helper.create_variable_for_type_inference(dtype='bool')
        self.cond.stop_gradient = False
        self.while_op = While(self.cond)
        self.input_array: list = []
        self.mem_link: list = []

    def step_input(self, x, level=0):
        self._assert_in_rnn_block_('step_input')
        if not isinstance(x, Variable):
            raise TypeError("step_input() can only take a Variable as its input.")
        parent_block = self._parent_block_()
        if self.lod_rank_table is None:
            self.lod_rank_table = parent_block.create_var(name=unique_name.generate('lod_rank_table'),
                                                          type=VarType.LOD_RANK_TABLE)
            self.lod_rank_table.stop_gradient = True
            parent_block.append_op('lod_rank_table', {'X': [x]}, {'Out': [self.lod_rank_table]}, {'level': level})
            self.max_seq_len = parent_block.create_var(name=unique_name.generate('dynamic_rnn_max_seq_len'),
                                                       dtype='int64')
            self.max_seq_len.stop_gradient = False
            parent_block.append_op('max_sequence_len', {'RankTable': [self.lod_rank_table]},
                                   {'Out': [self.max_seq_len]})
            self.cond.stop_gradient = True
            parent_block.append_op('less_than', {'X': [self.step_idx], 'Y': [self.max_seq_len]},
                                   {'Out': [self.cond]}, {'force_cpu': True})
        input_array = parent_block.create_var(name=unique_name.generate('dynamic_rnn_input_array'),
                                              type=VarType.LOD_TENSOR_ARRAY, dtype=x.dtype)
        self.input_array.append((input_array, x.dtype))
        parent_block.append_op('lod_tensor_to_array', {'X': [x], 'RankTable': [self.lod_rank_table]},
                               {'Out': [input_array]})
        return array_read(array=input_array, i=self.step_idx)

    def static_input(self, x):
        self._assert_in_rnn_block_('static_input')
        if not isinstance(x, Variable):
            raise TypeError("static_input() can only take a Variable as its input")
        if self.lod_rank_table is None:
            raise RuntimeError("static_input() must be called after step_input().")
        parent_block = self._parent_block_()
        x_reordered = parent_block.create_var(name=unique_name.generate('dynamic_rnn_static_input_reordered'),
                                              type=VarType.LOD_TENSOR, dtype=x.dtype, lod_level=x.lod_level)
        parent_block.append_op('reorder_lod_tensor_by_rank', {'X': [x], 'RankTable': [self.lod_rank_table]},
                               {'Out': [x_reordered]})
        return shrink_memory(x_reordered, self.step_idx, self.lod_rank_table)

    @contextlib.contextmanager
    def block(self):
        if self.status != DynamicRNN.BEFORE_RNN:
            raise ValueError("rnn.block() can only be invoke once")
        self.step_idx = fill_constant(shape=[1], dtype='int64', value=0, force_cpu=True)
        self.step_idx.stop_gradient = False
        self.status = DynamicRNN.IN_RNN
        with self.while_op.block():
            yield
            increment(x=self.step_idx, value=1.0, in_place=True)
            for new_mem, mem_array in self.mem_link:
                array_write(x=new_mem, i=self.step_idx, array=mem_array)
            less_than(x=self.step_idx, y=self.max_seq_len, force_cpu=True, cond=self.cond)
        self.status = DynamicRNN.AFTER_RNN
        for each_array in self.output_array:
            self.outputs.append(array_to_lod_tensor(x=each_array, table=self.lod_rank_table))

    def __call__(self, *args, **kwargs):
        if self.status != DynamicRNN.AFTER_RNN:
            raise ValueError("Output of the dynamic RNN can only be visited outside the rnn block.")
        if len(self.outputs) == 1:
            return self.outputs[0]
        return self.outputs

    def memory(self, init=None, shape=None, value=0.0, need_reorder=False, dtype='float32'):
        self._assert_in_rnn_block_('memory')
        self._init_zero_idx_()
        if init is not None:
            if not isinstance(init, Variable):
                raise TypeError("The input arg `init` of memory() must be a Variable")
            parent_block = self._parent_block_()
            init_tensor = init
            if need_reorder:
                if self.lod_rank_table is None:
                    raise ValueError('If set need_reorder to True, make sure step_input be invoked before '
                                     'memory(init=init, need_reordered=True, ...).')
                init_reordered = parent_block.create_var(name=unique_name.generate('dynamic_rnn_mem_init_reordered'),
                                                         type=VarType.LOD_TENSOR, dtype=init.dtype)
                parent_block.append_op('reorder_lod_tensor_by_rank',
                                       {'X': [init_tensor], 'RankTable': [self.lod_rank_table]},
                                       {'Out': [init_reordered]})
                init_tensor = init_reordered
            mem_array = parent_block.create_var(name=unique_name.generate('dynamic_rnn_mem_array'),
                                                type=VarType.LOD_TENSOR_ARRAY, dtype=init.dtype)
            parent_block.append_op('write_to_array', {'X': [init_tensor], 'I': [self.zero_idx]},
                                   {'Out': [mem_array]})
            retv = array_read(array=mem_array, i=self.step_idx)
            retv = shrink_memory(x=retv, i=self.step_idx, table=self.lod_rank_table)
            self.mem_dict[retv.name] = mem_array
            return retv
        if len(self.input_array) == 0:
            raise ValueError("step_input should be invoked before memory(shape=..., value=...)")
        parent_block = self._parent_block_()
        init = parent_block.create_var(name=unique_name.generate('mem_init'), dtype=dtype)
        arr, in_dtype = self.input_array[0]
        in0 = parent_block.create_var(name=unique_name.generate('in0'), dtype=in_dtype)
        parent_block.append_op('read_from_array', {'X': [arr], 'I': [self.zero_idx]}, {'Out': [in0]})
        parent_block.append_op('fill_constant_batch_size_like', {'Input': [in0]}, {'Out': [init]},
                               {'shape': [-1] + list(shape), 'value': float(value), 'dtype': int(init.dtype)})
        return self.memory(init=init)

    def update_memory(self, ex_mem, new_mem):
        self._assert_in_rnn_block_('update_memory')
        if not isinstance(ex_mem, Variable):
            raise TypeError("The input arg `ex_mem` of update_memory() must be a Variable")
        if not isinstance(new_mem, Variable):
            raise TypeError("The input arg `new_mem` of update_memory() must be a Variable")
        mem_array = self.mem_dict.get(ex_mem.name, None)
        if mem_array is None:
            raise ValueError("Please invoke memory before update_memory")
        if self.lod_rank_table is None:
            raise ValueError("Please invoke step_input before update_memory")
        self.mem_link.append((new_mem, mem_array))

    def output(self, *outputs):
        self._assert_in_rnn_block_('output')
        parent_block = self._parent_block_()
        for each in outputs:
            outside_array = parent_block.create_var(
                name=unique_name.generate_with_ignorable_key('_'.join([self.helper.name, 'output_array', each.name])),
                type=VarType.LOD_TENSOR_ARRAY, dtype=each.dtype)
            parent_block.append_op('create_array', {}, {'Out': [outside_array]})     # see the module docstring
            array_write(x=each, i=self.step_idx, array=outside_array)
            self.output_array.append(outside_array)

    def _init_zero_idx_(self):
        if self.zero_idx is None:
            parent_block = self._parent_block_()
            self.zero_idx = parent_block.create_var(name=unique_name.generate('zero_idx'), dtype='int64')
            parent_block.append_op('fill_constant', {}, {'Out': [self.zero_idx]},
                                   {'shape': [1], 'dtype': int(self.zero_idx.dtype), 'value': 0.0,
                                    'force_cpu': True})

    def _parent_block_(self):
        prog = self.helper.main_program
        parent_idx = prog.current_block().parent_idx
        assert parent_idx >= 0
        return prog.block(parent_idx)

    def _assert_in_rnn_block_(self, method):
        if self.status != DynamicRNN.IN_RNN:
            raise ValueError("{0} can only be invoked inside rnn block.".format(method))
