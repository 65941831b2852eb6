"""paddle_exec.static.paddle_proto_writer: programs written as Paddle's ProgramDesc protobuf.

The bytes are checked three ways: against the reader (`paddle_proto`, the same framework.proto schema), field by
field against framework.proto with an independent wire decoder (tests/api/wire.py) on a small fixed program whose
bytes real Paddle re-serializes identically, and by outputs: models saved here reload here with identical outputs,
and give the numbers real Paddle 1.8.5 / 2.6.2 computed from the same files (recorded below)."""
import os

import numpy as np
import pytest

import paddle_exec.fluid as fluid
import paddle_exec.static as static
from paddle_exec.framework import VarType, registry, unique_name
from paddle_exec.framework.operator import Operator
from paddle_exec.framework.program import Program
from paddle_exec.framework.variable import Parameter, Variable
from paddle_exec.static import framework_pb2 as fp
from paddle_exec.static import paddle_proto as pp
from paddle_exec.static import paddle_proto_writer as pw
from paddle_exec.static.paddle_proto import AttrType

from . import wire

L = fluid.layers


# --- wire format ------------------------------------------------------------------------------------------------

def test_encoding_mirrors_the_decoder():
    attr = fp.OpDesc.Attr(name='héllo', type=AttrType.LONGS, i=-1, longs=[2 ** 40, -3, 0], b=True,
                          floats=[0.5, -2.0], float64=0.1, scalars=[fp.Scalar(type=2, i=1), fp.Scalar(type=2, i=-2)])
    data = attr.SerializeToString()
    assert fp.OpDesc.Attr.FromString(data) == attr
    # field 1 first; int32 -1 is a ten-byte two's-complement varint, as protobuf writes it
    assert data.startswith(wire.field(1, 'héllo') + wire.field(2, AttrType.LONGS) + b'\x18' + b'\xff' * 9 + b'\x01')
    # repeated scalars are written unpacked (proto2's default, framework.proto's), one key per element
    assert [n for n, _, _ in wire.decode_fields(data)] == [1, 2, 3, 7, 7, 10, 15, 15, 15, 19, 21, 21]
    assert fp.OpDesc.Attr().SerializePartialToString() == b''
    with pytest.raises((ValueError, AttributeError), match='nope'):
        fp.OpDesc.Attr(nope=1)
    with pytest.raises(ValueError, match='out of range'):
        fp.OpDesc.Attr(i=2 ** 31)


# --- a small fixed program, byte by byte -------------------------------------------------------------------------

def fixed_program():
    program = Program()
    block = program.global_block()
    block.vars['x'] = Variable(block, 'x', shape=[-1, 2], dtype='float32', need_check_feed=True, is_data=True,
                               stop_gradient=True)
    block.vars['w'] = Parameter(block, 'w', [2], 'float32')
    block.vars['y'] = Variable(block, 'y', shape=[-1, 2], dtype='float32')
    block.ops.append(Operator(block, 'elementwise_mul', {'X': ['x'], 'Y': ['w']}, {'Out': ['y']},
                              {'axis': -1, 'op_role': 0, 'op_role_var': [], 'use_mkldnn': False}))
    return program


# program_to_protobuf(fixed_program(), ['x'], ['y']). Paddle 1.8.5's and 2.6.2's framework_pb2 parse these bytes and
# SerializeToString gives them back unchanged (checked side by side): canonical protobuf, fields in Paddle's order.
FIXED_HEX = (
    '0ad703080010ffffffffffffffffff011a220a0178121708071a130a0f080510ffffffffffffffffff01100210001800200130011a150a'
    '0177120c08071a080a04080510021000180128011a1e0a0179121708071a130a0f080510ffffffffffffffffff011002100018001a0c0a'
    '04666565641202080918011a0d0a0566657463681202080a1801226c0a090a015812046665656412080a034f75741201781a0466656564'
    '22090a03636f6c10001800220f0a096f705f64657669636510022a0022130a0c6f705f6e616d6573636f706510022a012f220d0a076f70'
    '5f726f6c6510001800220f0a0b6f705f726f6c655f766172100522720a060a01581201780a060a015912017712080a034f75741201791a'
    '0f656c656d656e74776973655f6d756c22130a0461786973100018ffffffffffffffffff01220d0a076f705f726f6c6510001800220f0a'
    '0b6f705f726f6c655f766172100522100a0a7573655f6d6b6c646e6e10065000226e0a060a0158120179120c0a034f7574120566657463'
    '681a05666574636822090a03636f6c10001800220f0a096f705f64657669636510022a0022130a0c6f705f6e616d6573636f706510022a'
    '012f220d0a076f705f726f6c6510001800220f0a0b6f705f726f6c655f766172100522020800')

MINUS_ONE = (1 << 64) - 1     # an int32 / int64 -1 on the wire, before sign conversion


def fields(data):
    return wire.decode_fields(data)


def test_fixed_program_decodes_field_by_field_as_framework_proto_says():
    data = pw.program_to_protobuf(fixed_program(), ['x'], ['y'])
    assert data.hex() == FIXED_HEX
    # ProgramDesc: blocks = 1, version = 4 (a Version message: version = 1, here 0); no op_version_map (5)
    top = fields(data)
    assert [(n, w) for n, w, _ in top] == [(1, wire.WIRE_LEN), (4, wire.WIRE_LEN)]
    assert top[1][2] == b'\x08\x00'
    # BlockDesc: idx = 1, parent_idx = 2 (-1), vars = 3, ops = 4
    block = fields(top[0][2])
    assert block[:2] == [(1, wire.WIRE_VARINT, 0), (2, wire.WIRE_VARINT, MINUS_ONE)]
    assert [n for n, _, _ in block[2:]] == [3] * 5 + [4] * 3
    var_x, var_w, _, var_feed, var_fetch = [fields(v) for _, _, v in block[2:7]]
    # VarDesc: name = 1, type = 2, persistable = 3, need_check_feed = 4, is_parameter = 5, stop_gradient = 6
    assert [(n, v) for n, _, v in var_x if n != 2] == [(1, b'x'), (3, 0), (4, 1), (6, 1)]
    assert [(n, v) for n, _, v in var_w if n != 2] == [(1, b'w'), (3, 1), (5, 1)]
    # VarType: type = 1 (LOD_TENSOR 7), lod_tensor = 3 {tensor = 1 {data_type = 1 (FP32 5), dims = 2}, lod_level = 2}
    var_type = fields(var_x[1][2])
    assert var_type[0] == (1, wire.WIRE_VARINT, 7) and var_type[1][0] == 3
    lod_tensor = fields(var_type[1][2])
    assert [n for n, _, _ in lod_tensor] == [1, 2] and lod_tensor[1][2] == 0
    assert fields(lod_tensor[0][2]) == [(1, 0, 5), (2, 0, MINUS_ONE), (2, 0, 2)]
    # the holders: FEED_MINIBATCH 9 and FETCH_LIST 10, by type alone, persistable
    assert var_feed == [(1, 2, b'feed'), (2, 2, b'\x08\x09'), (3, 0, 1)]
    assert var_fetch == [(1, 2, b'fetch'), (2, 2, b'\x08\x0a'), (3, 0, 1)]
    # OpDesc: inputs = 1 {parameter = 1, arguments = 2}, outputs = 2, type = 3, attrs = 4
    feed_op, mul_op, fetch_op = [fields(v) for _, _, v in block[7:]]
    assert [n for n, _, _ in mul_op] == [1, 1, 2, 3, 4, 4, 4, 4]
    assert fields(mul_op[1][2]) == [(1, 2, b'Y'), (2, 2, b'w')]
    assert mul_op[3][2] == b'elementwise_mul'
    # Attr: name = 1, type = 2 (AttrType), then the value field: i = 3 (int32), s = 5, strings = 8, b = 10
    attrs = {fields(a)[0][2]: fields(a)[1:] for _, _, a in mul_op[4:]}
    assert attrs[b'axis'] == [(2, 0, AttrType.INT), (3, 0, MINUS_ONE)]
    assert attrs[b'op_role_var'] == [(2, 0, AttrType.STRINGS)]                 # an empty list: the type alone
    assert attrs[b'use_mkldnn'] == [(2, 0, AttrType.BOOLEAN), (10, 0, 0)]
    assert feed_op[2][2] == b'feed' and fetch_op[2][2] == b'fetch'
    assert fields(feed_op[0][2]) == [(1, 2, b'X'), (2, 2, b'feed')]
    assert fields(fetch_op[1][2]) == [(1, 2, b'Out'), (2, 2, b'fetch')]
    assert fields(fetch_op[3][2]) == [(1, 2, b'col'), (2, 0, AttrType.INT), (3, 0, 0)]


def test_feed_and_fetch_ops_are_added_as_paddles_save_inference_model_does():
    program = Program()
    block = program.global_block()
    for name in ('a', 'b', 'p', 'q'):
        block.vars[name] = Variable(block, name, shape=[-1, 2], dtype='float32')
    block.ops.append(Operator(block, 'elementwise_add', {'X': ['a'], 'Y': ['b']}, {'Out': ['p']}, {'axis': -1}))
    block.ops.append(Operator(block, 'relu', {'X': ['p']}, {'Out': ['q']}, {}))
    desc = fp.ProgramDesc.FromString(pw.program_to_protobuf(program, ['a', 'b'], ['q', 'p']))
    ops = desc.blocks[0].ops

    def col(od):
        return next(a.i for a in od.attrs if a.name == 'col')
    # each feed op is prepended in turn, so col 1 comes first; fetch ops are appended in col order
    assert [(od.type, col(od)) for od in ops if od.type in ('feed', 'fetch')] == \
        [('feed', 1), ('feed', 0), ('fetch', 0), ('fetch', 1)]
    assert [od.type for od in ops] == ['feed', 'feed', 'elementwise_add', 'relu', 'fetch', 'fetch']
    assert list(ops[0].outputs) == [fp.OpDesc.Var(parameter='Out', arguments=['b'])]
    assert list(ops[5].inputs) == [fp.OpDesc.Var(parameter='X', arguments=['p'])]
    holders = {vd.name: vd for vd in desc.blocks[0].vars if vd.name in ('feed', 'fetch')}
    assert holders['feed'] == fp.VarDesc(name='feed', type=fp.VarType(type=int(VarType.FEED_MINIBATCH)),
                                         persistable=True)
    assert holders['fetch'] == fp.VarDesc(name='fetch', type=fp.VarType(type=int(VarType.FETCH_LIST)),
                                          persistable=True)
    _, feed_names, fetch_names = pp.program_from_protobuf(pw.program_to_protobuf(program, ['a', 'b'], ['q', 'p']))
    assert feed_names == ['a', 'b'] and fetch_names == ['q', 'p']
    # a plain program (static.save's .pdmodel) gets neither
    plain = fp.ProgramDesc.FromString(pw.program_to_protobuf(program)).blocks[0]
    assert [od.type for od in plain.ops] == ['elementwise_add', 'relu']
    assert [vd.name for vd in plain.vars] == ['a', 'b', 'p', 'q']


# --- attribute types -----------------------------------------------------------------------------------------------

# (op type, attribute, value) -> (AttrType, value written). The types are those Paddle 1.8.5 / 2.6.2 declare in
# their OpProtos (core.get_all_op_protos()).
ATTR_CASES = [
    ('scale', 'scale', 2, AttrType.FLOAT, 2.0),                     # an int given for a FLOAT attribute
    ('scale', 'bias_after_scale', 1, AttrType.BOOLEAN, True),
    ('fill_constant', 'shape', [2, 3], AttrType.LONGS, [2, 3]),
    ('fill_constant', 'dtype', VarType.INT64, AttrType.INT, 3),
    ('lookup_table', 'padding_idx', -1, AttrType.LONG, -1),
    ('lookup_table_grad', 'padding_idx', 4, AttrType.LONG, 4),      # a grad op takes its forward op's type
    ('lookup_table', 'epmap', [], AttrType.STRINGS, []),
    ('reshape2', 'shape', [], AttrType.INTS, []),
    ('reshape2', 'shape', (0, -1), AttrType.INTS, [0, -1]),
    ('reduce_all', 'dim', [0], AttrType.INTS, [0]),                 # INTS in 1.8, LONGS in 2.6: the narrower
    ('assign_value', 'bool_values', [True, False], AttrType.INTS, [1, 0]),
    ('mul', 'scale_y', [1], AttrType.FLOATS, [1.0]),
    ('dropout', 'dropout_implementation', 'upscale_in_train', AttrType.STRING, 'upscale_in_train'),
    ('relu', 'op_role_var', [], AttrType.STRINGS, []),
    ('relu', 'op_role', 256, AttrType.INT, 256),
    ('relu', 'op_namescope', '/', AttrType.STRING, '/'),
    ('my_op', 'big', 2 ** 40, AttrType.LONG, 2 ** 40),              # unregistered: by the value
    ('my_op', 'ratios', [1, 0.5], AttrType.FLOATS, [1.0, 0.5]),
    ('my_op', 'flags', [True], AttrType.BOOLEANS, [True]),
    ('my_op', 'names', ['a'], AttrType.STRINGS, ['a']),
    ('my_op', 'nothing', [], AttrType.INTS, []),                    # as Paddle's pybind makes of []
    ('my_op', 'f32', np.float32(0.25), AttrType.FLOAT, 0.25),
    ('my_op', 'i64', np.int64(7), AttrType.INT, 7),
]


@pytest.mark.parametrize('op_type, name, value, atype, written', ATTR_CASES,
                         ids=['%s.%s' % c[:2] for c in ATTR_CASES])
def test_attribute_is_written_with_paddles_declared_type(op_type, name, value, atype, written):
    desc = pw.attr_desc(op_type, name, value)
    assert desc.type == atype
    assert pp.attr_value(desc) == written
    assert fp.OpDesc.Attr.FromString(desc.SerializeToString()).type == atype


def test_sub_block_attribute_is_written_as_its_index():
    program = Program()
    sub = program._create_block()
    assert pw.attr_desc('conditional_block', 'sub_block', sub) == fp.OpDesc.Attr(name='sub_block',
                                                                                  type=AttrType.BLOCK, block_idx=1)
    assert list(pw.attr_desc('my_op', 'blocks', [program.global_block(), sub]).blocks_idx) == [0, 1]


def test_what_cannot_be_encoded_is_named(tmp_path):
    with pytest.raises(TypeError, match=r"Attribute 'callback' of operator 'my_op' holds .*cannot store"):
        pw.attr_desc('my_op', 'callback', {'a': 1})
    with pytest.raises(TypeError, match=r"Attribute 'scale' of operator 'scale' holds 'x'.*Paddle's FLOAT"):
        pw.attr_desc('scale', 'scale', 'x')
    with pytest.raises(TypeError, match=r"Attribute 'seed' of operator 'dropout' .*does not fit the INT"):
        pw.attr_desc('dropout', 'seed', 2 ** 40)
    with pytest.raises(TypeError, match=r"Attribute 'epsilon' of operator 'batch_norm' .*float32"):
        pw.attr_desc('batch_norm', 'epsilon', 1e300)
    program = Program()
    block = program.global_block()
    block.vars['t'] = Variable(block, 't', type=VarType.TUPLE)
    with pytest.raises(TypeError, match="Variable 't' has type TUPLE"):
        pw.program_to_protobuf(program)
    block.vars['t'] = Variable(block, 't', shape=[2], dtype=VarType.FP32)
    block.ops.append(Operator(block, 'scale', {'X': ['t']}, {'Out': ['t']}, {'scale': object()}))
    with pytest.raises(TypeError, match="Attribute 'scale' of operator 'scale'"):
        static.save(program, str(tmp_path / 'ckpt' / 'model'))          # fails before anything is written
    assert not (tmp_path / 'ckpt').exists()


def test_every_registered_default_attribute_is_encodable():
    for op_type, info in registry.OPS.items():
        for name, default in info.attrs.items():
            if default is None:
                continue                                            # left out, as Paddle leaves None out
            desc = pw.attr_desc(op_type, name, default)
            value_field = pp.ATTR_VALUE_FIELD[AttrType(desc.type)]
            assert desc.IsInitialized()
            if value_field in pp.REPEATED_ATTR_FIELDS:
                assert len(getattr(desc, value_field)) == len(default), (op_type, name)
            else:
                assert desc.HasField(value_field), (op_type, name)


# --- whole programs: round trip through the reader, and saved models --------------------------------------------

def fit_a_line():
    x = L.data('x', [13], 'float32')
    return {'x': np.random.RandomState(1).randn(5, 13).astype('float32')}, L.fc(x, 1)


def mlp():
    img = fluid.data('img', [None, 20], 'float32')
    hidden = L.dropout(L.fc(img, 16, act='relu'), 0.3)
    return {'img': np.random.RandomState(2).rand(4, 20).astype('float32')}, L.fc(hidden, 10, act='softmax')


def conv_net():
    img = fluid.data('img', [None, 1, 8, 8], 'float32')
    c = L.batch_norm(L.conv2d(img, num_filters=4, filter_size=3, padding=1), act='relu')
    c = L.pool2d(c, pool_size=2, pool_type='max', pool_stride=2)
    return {'img': np.random.RandomState(3).rand(3, 1, 8, 8).astype('float32')}, L.fc(c, 5, act='softmax')


MODELS = {'fit_a_line': fit_a_line, 'mlp': mlp, 'conv_net': conv_net}


def build(make, train=False):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        feed, out = make()
        if train:
            fluid.optimizer.Adam(0.01).minimize(L.mean(out))
    return main, startup, feed, out


def var_facts(v):
    return (type(v).__name__, v.name, v.shape if v.has_shape() else None, v.dtype, v.type, v.persistable,
            v.stop_gradient, v.lod_level, v.need_check_feed, getattr(v, 'trainable', None))


def op_facts(op):
    attrs = {k: float(np.float32(v)) if type(v) is float else v for k, v in op.attrs.items()}   # FLOAT is float32
    return (op.type, {k: v for k, v in op.inputs.items() if v}, {k: v for k, v in op.outputs.items() if v}, attrs)


@pytest.mark.parametrize('model', sorted(MODELS) + ['mlp_training'])
def test_round_trip_through_the_reader_gives_the_same_program(model):
    main, _, _, _ = build(MODELS[model.replace('_training', '')], train=model.endswith('_training'))
    loaded, feeds, fetches = pp.program_from_protobuf(pw.program_to_protobuf(main))
    assert feeds == [] and fetches == []
    for mine, back in zip(main.blocks, loaded.blocks, strict=True):
        assert [var_facts(v) for v in back.vars.values()] == [var_facts(v) for v in mine.vars.values()]
        assert [op_facts(op) for op in back.ops] == [op_facts(op) for op in mine.ops]
    if model == 'mlp_training':
        assert {p.name: p.trainable for p in loaded.all_parameters()} == \
            {'fc_0.w_0': True, 'fc_0.b_0': True, 'fc_1.w_0': True, 'fc_1.b_0': True}
        assert not isinstance(loaded.global_block().var('learning_rate_0'), Parameter)


STYLES = ['fluid_dirname', 'fluid_params_filename', 'path_prefix']


def save_model(style, folder, main, feed, out, exe):
    names = list(feed)
    if style == 'path_prefix':
        prefix = os.path.join(folder, 'model')
        static.save_inference_model(prefix, [main.global_block().var(n) for n in names], [out], exe, program=main)
        return prefix, None
    params = '__params__' if style == 'fluid_params_filename' else None
    fluid.io.save_inference_model(folder, names, [out], exe, main_program=main, params_filename=params)
    return folder, params


@pytest.mark.parametrize('style', STYLES)
@pytest.mark.parametrize('model', sorted(MODELS))
def test_saved_inference_model_reloads_with_identical_outputs(model, style, tmp_path):
    main, startup, feed, out = build(MODELS[model])
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        want, = exe.run(main.clone(for_test=True), feed=feed, fetch_list=[out])
        path, params = save_model(style, str(tmp_path), main, feed, out, exe)
    model_file = os.path.join(path, '__model__') if style != 'path_prefix' else path + '.pdmodel'
    with open(model_file, 'rb') as f:
        assert pp.looks_like_program_desc(f.read())
    with fluid.scope_guard(fluid.Scope()):
        program, feed_names, fetch_targets = static.load_inference_model(path, exe, params_filename=params)
        assert feed_names == list(feed) and [v.name for v in fetch_targets] == [out.name]
        got, = exe.run(program, feed=feed, fetch_list=fetch_targets)
    np.testing.assert_array_equal(got, want)


# Outputs of fluid.io.load_inference_model (Paddle 1.8.5) and paddle.static.load_inference_model (Paddle 2.6.2) on
# this model as saved by paddle_exec, in both styles: the four runs printed the same numbers.
TINY_PARAMS = {'fc_0.w_0': np.linspace(-1, 1, 12).reshape(3, 4), 'fc_0.b_0': [0.1, -0.1, 0.2, 0.0],
               'fc_1.w_0': np.linspace(1, -1, 8).reshape(4, 2), 'fc_1.b_0': [0.05, -0.05]}
REAL_PADDLE_OUT = [[0.5801469683647156, 0.4198530912399292], [0.580779492855072, 0.41922053694725037]]


@pytest.mark.parametrize('style', ['fluid_dirname', 'path_prefix'])
def test_model_saved_here_gives_real_paddles_numbers(style, tmp_path):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = static.data('x', [None, 3], 'float32')
        out = L.fc(L.fc(x, 4, act='relu'), 2, act='softmax')
    feed = {'x': (np.arange(6).reshape(2, 3) / 10 - 0.2).astype('float32')}
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        for name, value in TINY_PARAMS.items():
            fluid.global_scope().var(name).get_tensor().set(np.asarray(value, 'float32'))
        path, params = save_model(style, str(tmp_path), main, feed, out, exe)
    with fluid.scope_guard(fluid.Scope()):
        program, _, fetch_targets = static.load_inference_model(path, exe, params_filename=params)
        got, = exe.run(program, feed=feed, fetch_list=fetch_targets)
    np.testing.assert_allclose(got, REAL_PADDLE_OUT, rtol=1e-6)


def test_transpose2_and_concat_grads_carry_the_attributes_paddle_1_8_checks():
    """1.8.5 refuses to run a saved training program whose transpose2_grad / concat_grad lack use_mkldnn and
    use_quantizer (Paddle's Python Operator fills them in; paddle_exec's Operator keeps what the builder gives, and
    grad ops copy the forward's attributes), so the builders set them."""
    main, startup = fluid.Program(), fluid.Program()
    with unique_name.guard(), fluid.program_guard(main, startup):
        w = fluid.layers.create_parameter([2, 3], 'float32')
        v = fluid.layers.create_parameter([3, 2], 'float32')
        h = fluid.layers.concat([fluid.layers.transpose(w, [1, 0]), v], axis=0)
        fluid.backward.append_backward(fluid.layers.mean(h))
    ops = {op.type: op for op in main.global_block().ops}
    for op_type in ('transpose2', 'transpose2_grad', 'concat', 'concat_grad'):
        assert ops[op_type].attr('use_mkldnn') is False and ops[op_type].attr('use_quantizer') is False, op_type
        encoded = pw.op_desc(op_type, ops[op_type].inputs, ops[op_type].outputs, ops[op_type].attrs)
        assert {'use_mkldnn', 'use_quantizer'} <= {a.name for a in encoded.attrs}, op_type
