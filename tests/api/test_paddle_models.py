"""Inference models written by real Paddle (1.8.5 `fluid.io.save_inference_model`, 2.6.2
`paddle.static.save_inference_model`, in tests/golden/models/) load with load_inference_model and reproduce
Paddle's output; plus the reading of hand-built ProgramDesc bytes (encoded by tests/api/wire.py, independently
of the protobuf runtime) through framework.proto."""
import os
import struct

import numpy as np
import pytest

import paddle_exec.fluid as fluid
import paddle_exec.static as static
from paddle_exec.framework import VarType
from paddle_exec.framework.variable import Parameter
from paddle_exec.static import framework_pb2 as fp
from paddle_exec.static import legacy_program
from paddle_exec.static import paddle_proto as pp

from .wire import field, varint

MODELS = os.path.join(os.path.dirname(os.path.dirname(__file__)), 'golden', 'models')

# name, path given to load_inference_model, params_filename, ops after dropping feed/fetch, parameter shapes
CASES = [
    ('fit_a_line_v18', 'fit_a_line_v18', None, ['mul', 'elementwise_add', 'scale'],
     {'fc_0.w_0': (13, 1), 'fc_0.b_0': (1,)}),
    ('mlp_v18', 'mlp_v18', '__params__',
     ['mul', 'elementwise_add', 'relu', 'dropout', 'mul', 'elementwise_add', 'softmax', 'scale'],
     {'fc_0.w_0': (784, 64), 'fc_0.b_0': (64,), 'fc_1.w_0': (64, 10), 'fc_1.b_0': (10,)}),
    ('cnn_v18', 'cnn_v18', '__params__',
     ['conv2d', 'elementwise_add', 'batch_norm', 'relu', 'pool2d', 'mul', 'elementwise_add', 'softmax', 'scale'],
     {'conv2d_0.w_0': (4, 1, 3, 3), 'batch_norm_0.w_1': (4,), 'fc_0.w_0': (144, 10)}),
    ('mlp_v26', os.path.join('mlp_v26', 'inference'), None,
     ['mul', 'elementwise_add', 'gelu', 'dropout', 'mul', 'elementwise_add', 'softmax', 'scale'],
     {'fc_0.w_0': (20, 32), 'fc_1.b_0': (5,)}),
]


@pytest.mark.parametrize('name, path, params_filename, op_types, params', CASES, ids=[c[0] for c in CASES])
def test_paddle_model_reproduces_paddle_output(name, path, params_filename, op_types, params):
    io = np.load(os.path.join(MODELS, name + '.io.npz'))
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        program, feed_names, fetch_targets = static.load_inference_model(
            os.path.join(MODELS, path), exe, params_filename=params_filename)
        block = program.global_block()
        assert feed_names == [k[len('in.'):] for k in io.files if k.startswith('in.')]
        assert len(fetch_targets) == 1 and fetch_targets[0].name.startswith('save_infer_model/scale_')
        # Paddle's feed/fetch ops and their holder variables are dropped
        assert [op.type for op in block.ops] == op_types
        assert not block.has_var('feed') and not block.has_var('fetch')
        for pname, shape in params.items():
            var = block.var(pname)
            assert isinstance(var, Parameter) and var.persistable and var.shape == shape
            assert var.dtype == VarType.FP32
        feed_var = block.var(feed_names[0])
        assert feed_var.shape[0] == -1 and not feed_var.persistable
        got, = exe.run(program, feed={n: io['in.' + n] for n in feed_names}, fetch_list=fetch_targets)
    np.testing.assert_allclose(got, io['out'], rtol=1e-5, atol=1e-6)


def test_paddle_model_attributes_are_decoded_by_their_type():
    with open(os.path.join(MODELS, 'cnn_v18', '__model__'), 'rb') as f:
        program, feeds, fetches = pp.program_from_protobuf(f.read())
    ops = {op.type: op for op in program.global_block().ops}
    conv, bn, pool = ops['conv2d'], ops['batch_norm'], ops['pool2d']
    assert conv.attr('is_test') is True and isinstance(conv.attr('strides'), list)
    assert conv.attr('data_format') == 'NCHW' and conv.attr('groups') == 1
    assert bn.attr('epsilon') == pytest.approx(1e-5) and bn.attr('is_test') is True
    assert pool.attr('pooling_type') in ('max', 'avg') and len(pool.attr('ksize')) == 2
    # unwired slots (conv2d's `Bias: []`) are dropped; wired ones keep their argument lists
    assert 'Bias' not in conv.inputs and conv.input('Filter') == ['conv2d_0.w_0']
    assert bn.output('MeanOut') == ['batch_norm_0.w_1']
    assert feeds == ['img'] and fetches == ['save_infer_model/scale_0.tmp_2']


def test_fluid_io_load_inference_model_reads_paddle_models():
    io = np.load(os.path.join(MODELS, 'fit_a_line_v18.io.npz'))
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        program, feeds, fetches = fluid.io.load_inference_model(os.path.join(MODELS, 'fit_a_line_v18'), exe)
        got, = exe.run(program, feed={'x': io['in.x']}, fetch_list=fetches)
    np.testing.assert_allclose(got, io['out'], rtol=1e-5, atol=1e-6)


# --- the wire format, as framework.proto and the protobuf runtime read it ------------------------------------

def test_varint_multi_byte_and_negative_ints():
    assert varint(300) == b'\xac\x02' and varint(65535) == b'\xff\xff\x03'
    attr = fp.OpDesc.Attr.FromString(field(1, 'a') + field(2, 0) + field(3, -1) + field(13, -(1 << 40))
                                     + field(12, 300))
    assert len(varint(-1)) == 10      # negative int32 is sign-extended to ten bytes, not zigzagged
    assert (attr.i, attr.l, attr.block_idx) == (-1, -(1 << 40), 300)
    assert attr.SerializeToString().startswith(field(1, 'a') + field(2, 0) + b'\x18' + b'\xff' * 9 + b'\x01')
    with pytest.raises(ValueError, match='not a valid Paddle ProgramDesc'):
        pp.parse_program_desc(field(1, field(1, 0))[:-1] + b'\x80\x80', "'truncated'")


def test_repeated_fields_packed_and_unpacked():
    packed_ints = b''.join(varint(v) for v in (1, 300, -2))
    buf = (field(1, 'x') + field(2, 3)
           + field(6, packed_ints) + field(6, 7)                        # a packed run, then an unpacked element
           + field(7, struct.pack('<ff', 0.5, -2.25)) + field(7, struct.pack('<f', 3.0), wire=5)
           + field(8, 'a') + field(8, 'bc')
           + field(16, struct.pack('<d', 0.1), wire=1)
           + field(11, b'\x01\x00\x01'))
    attr = fp.OpDesc.Attr.FromString(buf)
    assert (list(attr.ints), list(attr.floats), list(attr.strings), list(attr.float64s), list(attr.bools)) == \
        ([1, 300, -2, 7], [0.5, -2.25, 3.0], ['a', 'bc'], [0.1], [True, False, True])
    empty = fp.OpDesc.Attr.FromString(field(1, 'x') + field(2, 3))
    assert (list(empty.ints), list(empty.floats), list(empty.strings)) == ([], [], [])
    # written unpacked, one key per element, as proto2's framework.proto declares them and Paddle writes them
    assert fp.OpDesc.Attr(name='x', type=3, ints=[1, 2]).SerializeToString() == \
        field(1, 'x') + field(2, 3) + field(6, 1) + field(6, 2)


def test_nested_messages_unknown_fields_and_last_value_wins():
    tensor = field(1, 5) + field(2, -1) + field(2, 13)
    vtype = field(1, 7) + field(3, field(1, tensor)) + field(20, 'an unknown field')
    buf = (field(1, 'old') + field(99, 'an unknown field') + field(100, 42)
           + field(101, b'\0\0\0\0', wire=5) + field(2, vtype) + field(1, 'x'))
    var = fp.VarDesc.FromString(buf)
    assert var.name == 'x'
    assert (var.type.lod_tensor.tensor.data_type, list(var.type.lod_tensor.tensor.dims)) == (5, [-1, 13])
    # unknown fields survive a round trip (newer Paddle fields are not lost)
    assert fp.VarDesc.FromString(var.SerializeToString()) == var
    assert field(99, 'an unknown field') in var.SerializeToString()
    with pytest.raises(ValueError, match="'broken' is not a valid"):
        pp.parse_program_desc(field(1, field(3, field(1, 'abcdef')))[:-2], "'broken'")     # truncated
    # a varint where a BlockDesc must be: protobuf keeps it as an unknown field, so the program has no block
    with pytest.raises(ValueError, match="'broken' holds no block"):
        pp.program_from_protobuf(field(1, 7), "'broken'")
    with pytest.raises(ValueError, match="'broken' is not a valid"):
        pp.parse_program_desc(varint(1 << 3 | 3), "'broken'")       # wire type 3 (a group) for blocks


# --- a hand-built ProgramDesc -------------------------------------------------------------------------------

def attr(name, atype, value_field):
    return field(1, name) + field(2, atype) + value_field


def var_desc(name, dims=(), dtype=5, kind=7, persistable=False):
    tensor = field(1, dtype) + b''.join(field(2, d) for d in dims)
    vtype = field(1, kind) + (field(3, field(1, tensor)) if kind == 7 else b'')
    return field(1, name) + field(2, vtype) + (field(3, 1) if persistable else b'')


def op_desc(op_type, inputs, outputs, attrs=b''):
    slots = lambda number, d: b''.join(field(number, field(1, k) + b''.join(field(2, a) for a in v))  # noqa: E731
                                       for k, v in d.items())
    return field(3, op_type) + slots(1, inputs) + slots(2, outputs) + attrs


def program_desc(ops, variables):
    block = field(1, 0) + field(2, -1) + b''.join(field(3, v) for v in variables) + b''.join(
        field(4, o) for o in ops)
    return field(1, block) + field(4, field(1, 2006002))


def feed_fetch(op_type, name, col):
    slot = {'X': ['feed' if op_type == 'feed' else name]}, {'Out': [name if op_type == 'feed' else 'fetch']}
    return op_desc(op_type, *slot, field(4, attr('col', 0, field(3, col))))


def test_hand_built_program_orders_feeds_by_col_and_keeps_unknown_attributes():
    variables = [var_desc('feed', kind=9, persistable=True), var_desc('fetch', kind=10, persistable=True),
                 var_desc('b', (-1, 2)), var_desc('a', (-1, 2)), var_desc('w', (2, 2), persistable=True),
                 var_desc('out', (-1, 2))]
    scale_attr = (field(4, attr('scale', 1, field(4, struct.pack('<f', 2.0), wire=5)))
                  + field(4, attr('a_2x_attribute', 15, field(19, struct.pack('<d', 0.25), wire=1)))
                  + field(4, attr('some_ints', 3, field(6, varint(3) + varint(4)))))
    ops = [feed_fetch('feed', 'a', 1), feed_fetch('feed', 'b', 0),
           op_desc('elementwise_add', {'X': ['a'], 'Y': ['b']}, {'Out': ['s']}),
           op_desc('scale', {'X': ['s'], 'ScaleTensor': []}, {'Out': ['out']}, scale_attr),
           feed_fetch('fetch', 'out', 0)]
    variables.append(var_desc('s', (-1, 2)))
    program, feeds, fetches = pp.program_from_protobuf(program_desc(ops, variables))
    assert feeds == ['b', 'a'] and fetches == ['out']
    block = program.global_block()
    assert [op.type for op in block.ops] == ['elementwise_add', 'scale']
    scale = block.ops[1]
    assert scale.attr('scale') == 2.0 and scale.attr('a_2x_attribute') == 0.25 and scale.attr('some_ints') == [3, 4]
    assert scale.attr('bias') == 0.0 and scale.attr('bias_after_scale') is True   # registered defaults fill in
    assert 'ScaleTensor' not in scale.inputs
    assert isinstance(block.var('w'), Parameter) and block.var('a').is_data and not block.var('s').is_data
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        a, b = np.ones((3, 2), 'float32'), np.full((3, 2), 2.0, 'float32')
        got, = exe.run(program, feed={'a': a, 'b': b}, fetch_list=['out'])
    np.testing.assert_array_equal(got, 2.0 * (a + b))


def test_unregistered_operator_is_named():
    ops = [op_desc('fancy_new_op', {'X': ['x']}, {'Out': ['y']}), op_desc('relu', {'X': ['y']}, {'Out': ['z']})]
    with pytest.raises(NotImplementedError, match='fancy_new_op'):
        pp.program_from_protobuf(program_desc(ops, [var_desc('x', (2,)), var_desc('y', (2,)), var_desc('z', (2,))]))


def test_own_format_is_not_mistaken_for_protobuf():
    program = fluid.Program()
    data = legacy_program.program_to_bytes(program)
    assert not pp.looks_like_program_desc(data)
    with open(os.path.join(MODELS, 'mlp_v18', '__model__'), 'rb') as f:
        assert pp.looks_like_program_desc(f.read())


# --- programs with control flow, and values newer than the schema ---------------------------------------------

PROGRAMS = os.path.join(os.path.dirname(os.path.dirname(__file__)), 'golden', 'programs')
SUB_BLOCK_OPS = {
    'control_flow_v18': [['tanh', 'scale', 'assign', 'increment', 'less_than'], ['scale', 'assign'],
                         ['scale', 'assign']],
    'control_flow_v26': [['scale', 'tanh', 'scale', 'less_than', 'assign', 'assign', 'assign'], ['scale', 'assign'],
                         ['scale', 'assign']],
}


@pytest.mark.parametrize('name', sorted(SUB_BLOCK_OPS))
def test_paddle_program_with_control_flow_keeps_its_block_structure_and_runs(name):
    with open(os.path.join(PROGRAMS, name + '.pdmodel'), 'rb') as f:
        program, feeds, fetches = pp.program_from_protobuf(f.read())
    assert feeds == [] and fetches == []
    assert [(b.idx, b.parent_idx, b.forward_block_idx) for b in program.blocks] == \
        [(0, -1, -1), (1, 0, -1), (2, 0, -1), (3, 0, -1)]
    assert [[op.type for op in b.ops] for b in program.blocks[1:]] == SUB_BLOCK_OPS[name]
    top = program.global_block().ops
    # sub_block attributes are the Blocks themselves, as the builders make them
    assert [(op.type, op.attr('sub_block').idx) for op in top if op.type in ('while', 'conditional_block')] == \
        [('while', 1), ('conditional_block', 2), ('conditional_block', 3)]
    assert str(next(op for op in top if op.type == 'while').attr('sub_block')) == 'block[1]'
    slice_op = next(op for op in top if op.type == 'slice')
    assert (slice_op.attr('axes'), slice_op.attr('starts'), slice_op.attr('ends')) == ([0], [1], [5])
    if name.endswith('v18'):
        block = program.global_block()
        assert block.var('embedding_0.w_0@GRAD').type == VarType.SELECTED_ROWS
        assert next(op for op in top if op.type == 'lookup_table').attr('is_sparse') is True
        assert isinstance(block.var('embedding_0.w_0'), Parameter) and block.var('ids').lod_level == 0
    io = np.load(os.path.join(PROGRAMS, name + '.io.npz'))
    out = next(op for op in top if op.type == 'softmax').output('Out')[0]
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        for key in io.files:
            if key.startswith('param.'):
                fluid.global_scope().var(key[len('param.'):]).get_tensor().set(io[key])
        got, = exe.run(program, feed={k[3:]: io[k] for k in io.files if k.startswith('in.')}, fetch_list=[out])
        clone = program.clone()                       # a clone keeps the sub-blocks its ops run
        again, = exe.run(clone, feed={k[3:]: io[k] for k in io.files if k.startswith('in.')}, fetch_list=[out])
    np.testing.assert_allclose(got, io['out'], rtol=1e-5, atol=1e-7)
    np.testing.assert_array_equal(again, got)


def test_types_newer_than_the_schema_are_kept_as_well_as_they_can_be():
    """A later Paddle's AttrType or VarType is an unknown enum value to framework.proto: protobuf keeps it as an
    unknown field. The attribute keeps its value field, the variable becomes RAW, a tensor of an unknown data type
    gets the dtype RAW."""
    variables = [var_desc('x', (2,)), var_desc('future_kind', (2,), kind=40),
                 field(1, 'future_dtype') + field(2, field(1, 7) + field(3, field(1, field(1, 60) + field(2, 2))))]
    attrs = field(4, attr('future_attr', 40, field(13, 1 << 40))) + field(4, attr('alpha', 1, field(4, struct.pack(
        '<f', 0.5), wire=5)))
    program, _, _ = pp.program_from_protobuf(program_desc([op_desc('relu', {'X': ['x']}, {'Out': ['x']}, attrs)],
                                                          variables))
    block = program.global_block()
    assert block.ops[0].attr('future_attr') == 1 << 40 and block.ops[0].attr('alpha') == 0.5
    assert block.var('future_kind').type == VarType.RAW
    assert block.var('future_dtype').dtype == VarType.RAW and block.var('future_dtype').shape == (2,)
