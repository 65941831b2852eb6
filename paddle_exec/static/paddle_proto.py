"""Reading real Paddle's ProgramDesc protobuf (an inference model's `__model__` / `*.pdmodel`) into a Program.

Two layers, no dependency on the protobuf package:

1. A wire-format decoder. `decode_fields(buf)` splits a message into (field number, wire type, raw value):
   varints (wire type 0), fixed64 (1), length-delimited (2) and fixed32 (5); groups (3, 4) are obsolete and
   rejected. `parse_message(buf, schema)` applies a schema, `{field number: (name, kind, repeated)}` where kind
   is a scalar kind ('int32', 'int64', 'bool', 'enum', 'float', 'double', 'string', 'bytes') or a nested
   schema dict. Repeated scalars are accepted both packed (one length-delimited run, proto3's and `[packed]`
   encoding) and unpacked (one entry per element, proto2's default, which Paddle uses). Signed ints are two's
   complement 64-bit varints (int32 -1 is ten bytes), so zigzag is never needed. Unknown fields are skipped, so
   the newer fields of 2.x (VarDesc.attrs, Attr.scalar, ...) never break an older reader.

2. The mapping of `paddle/fluid/framework/framework.proto` (field numbers checked against Paddle 1.8 and 2.6;
   2.x only adds fields) onto paddle_exec's Program: blocks, variables (shape, dtype, type, lod_level,
   persistable; persistable LoD tensors that are not feed targets become Parameters) and ops (slots with their
   argument lists, attributes by their declared AttrType, sub-block attributes as Block objects).
   Paddle's `feed` / `fetch` ops and the `feed` / `fetch` holder variables are dropped: our Executor takes the
   feed dict and fetch list directly. Their `col` attributes order the returned feed names and fetch names.
   Parameters: a 2.x file (and paddle_exec's own, `paddle_proto_writer`) flags them with VarDesc.is_parameter and
   gives their trainability as `not stop_gradient`; when no variable carries the flag (1.8 never writes it),
   every persistable LoD tensor that is not a feed target is taken for a parameter.

The schemas below and `AttrType` are the one description of framework.proto in paddle_exec: the writer
(`paddle_proto_writer`) encodes with the same dicts.
"""
from __future__ import annotations

import enum
import struct

from ..framework import registry
from ..framework.dtype import VarType
from ..framework.operator import Operator
from ..framework.program import Block, Program
from ..framework.variable import Parameter, Variable

__all__ = []   # internal: used by static.io.load_inference_model

WIRE_VARINT, WIRE_FIXED64, WIRE_LEN, WIRE_FIXED32 = 0, 1, 2, 5


# --- wire format ------------------------------------------------------------------------------------------------

def read_varint(buf: bytes, pos: int) -> tuple[int, int]:
    """(unsigned value, position after it) of the base-128 varint at `pos`."""
    result = shift = 0
    while True:
        if pos >= len(buf):
            raise ValueError('truncated varint in protobuf message')
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            raise ValueError('varint longer than 10 bytes in protobuf message')


def decode_fields(buf: bytes) -> list[tuple[int, int, object]]:
    """[(field number, wire type, value)] of a message: an int for varints, bytes for the other wire types."""
    fields, pos, end = [], 0, len(buf)
    while pos < end:
        key, pos = read_varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == WIRE_VARINT:
            value, pos = read_varint(buf, pos)
        elif wire == WIRE_FIXED64:
            value, pos = bytes(buf[pos:pos + 8]), pos + 8
        elif wire == WIRE_LEN:
            size, pos = read_varint(buf, pos)
            value, pos = bytes(buf[pos:pos + size]), pos + size
        elif wire == WIRE_FIXED32:
            value, pos = bytes(buf[pos:pos + 4]), pos + 4
        else:
            raise ValueError('unsupported protobuf wire type %d (field %d)' % (wire, number))
        if pos > end:
            raise ValueError('truncated protobuf message (field %d)' % number)
        fields.append((number, wire, value))
    return fields


def _signed64(n: int) -> int:
    return n - (1 << 64) if n >= 1 << 63 else n


_FIXED = {'float': ('<f', 4, WIRE_FIXED32), 'double': ('<d', 8, WIRE_FIXED64)}
_VARINT_KINDS = ('int32', 'int64', 'bool', 'enum', 'uint32', 'uint64')


def _scalar(kind: str, wire: int, raw):
    if kind in _VARINT_KINDS:
        if wire != WIRE_VARINT:
            raise ValueError('expected a varint for a %s field, got wire type %d' % (kind, wire))
        if kind == 'bool':
            return bool(raw)
        return raw if kind.startswith('uint') else _signed64(raw)
    if kind in _FIXED:
        fmt, _, want = _FIXED[kind]
        if wire != want:
            raise ValueError('expected wire type %d for a %s field, got %d' % (want, kind, wire))
        return struct.unpack(fmt, raw)[0]
    if kind == 'string':
        try:
            return raw.decode('utf-8')
        except UnicodeDecodeError:
            return raw
    if kind == 'bytes':
        return raw
    raise ValueError('unknown protobuf field kind %r' % kind)


def _packed(kind: str, raw: bytes) -> list:
    """The elements of a packed repeated scalar field."""
    if kind in _FIXED:
        fmt, size, _ = _FIXED[kind]
        return [v for (v,) in struct.iter_unpack(fmt, raw[:len(raw) - len(raw) % size])]
    out, pos = [], 0
    while pos < len(raw):
        value, pos = read_varint(raw, pos)
        out.append(_scalar(kind, WIRE_VARINT, value))
    return out


def parse_message(buf: bytes, schema: dict) -> dict:
    """The message as {field name: value}; repeated fields are lists (empty when absent), absent optional fields
    are left out. Nested messages are parsed with their own schema; unknown fields are ignored."""
    out = {name: [] for name, _, repeated in schema.values() if repeated}
    for number, wire, raw in decode_fields(buf):
        spec = schema.get(number)
        if spec is None:
            continue
        name, kind, repeated = spec
        if isinstance(kind, dict):
            if wire != WIRE_LEN:
                raise ValueError('field %s must be a message, got wire type %d' % (name, wire))
            value = parse_message(raw, kind)
        elif repeated and wire == WIRE_LEN and kind not in ('string', 'bytes'):
            out[name].extend(_packed(kind, raw))
            continue
        else:
            value = _scalar(kind, wire, raw)
        if repeated:
            out[name].append(value)
        else:
            out[name] = value       # protobuf: the last occurrence of a singular field wins
    return out


# --- framework.proto ------------------------------------------------------------------------------------------

TENSOR_DESC = {1: ('data_type', 'enum', False), 2: ('dims', 'int64', True)}
LOD_TENSOR_DESC = {1: ('tensor', TENSOR_DESC, False), 2: ('lod_level', 'int32', False)}
VAR_TYPE = {1: ('type', 'enum', False), 2: ('selected_rows', TENSOR_DESC, False),
            3: ('lod_tensor', LOD_TENSOR_DESC, False), 4: ('tensor_array', LOD_TENSOR_DESC, False)}
VAR_DESC = {1: ('name', 'string', False), 2: ('type', VAR_TYPE, False), 3: ('persistable', 'bool', False),
            4: ('need_check_feed', 'bool', False), 5: ('is_parameter', 'bool', False),
            6: ('stop_gradient', 'bool', False)}
SCALAR = {1: ('type', 'enum', False), 2: ('b', 'bool', False), 3: ('i', 'int64', False), 4: ('r', 'double', False)}
ATTR = {1: ('name', 'string', False), 2: ('type', 'enum', False), 3: ('i', 'int32', False),
        4: ('f', 'float', False), 5: ('s', 'string', False), 6: ('ints', 'int32', True),
        7: ('floats', 'float', True), 8: ('strings', 'string', True), 10: ('b', 'bool', False),
        11: ('bools', 'bool', True), 12: ('block_idx', 'int32', False), 13: ('l', 'int64', False),
        14: ('blocks_idx', 'int32', True), 15: ('longs', 'int64', True), 16: ('float64s', 'double', True),
        17: ('var_name', 'string', False), 18: ('vars_name', 'string', True), 19: ('float64', 'double', False),
        20: ('scalar', SCALAR, False), 21: ('scalars', SCALAR, True)}
OP_VAR = {1: ('parameter', 'string', False), 2: ('arguments', 'string', True)}
OP_DESC = {3: ('type', 'string', False), 1: ('inputs', OP_VAR, True), 2: ('outputs', OP_VAR, True),
           4: ('attrs', ATTR, True), 5: ('is_target', 'bool', False)}
BLOCK_DESC = {1: ('idx', 'int32', False), 2: ('parent_idx', 'int32', False), 3: ('vars', VAR_DESC, True),
              4: ('ops', OP_DESC, True), 5: ('forward_block_idx', 'int32', False)}
VERSION = {1: ('version', 'int64', False)}
PROGRAM_DESC = {1: ('blocks', BLOCK_DESC, True), 4: ('version', VERSION, False)}



class AttrType(enum.IntEnum):
    """framework.proto's enum AttrType (1.8 stops at LONGS; 2.x adds the rest)."""
    INT = 0
    FLOAT = 1
    STRING = 2
    INTS = 3
    FLOATS = 4
    STRINGS = 5
    BOOLEAN = 6
    BOOLEANS = 7
    BLOCK = 8
    LONG = 9
    BLOCKS = 10
    LONGS = 11
    FLOAT64S = 12
    VAR = 13
    VARS = 14
    FLOAT64 = 15
    SCALAR = 16
    SCALARS = 17


# AttrType -> the Attr field holding the value
ATTR_VALUE_FIELD = {AttrType.INT: 'i', AttrType.FLOAT: 'f', AttrType.STRING: 's', AttrType.INTS: 'ints',
                    AttrType.FLOATS: 'floats', AttrType.STRINGS: 'strings', AttrType.BOOLEAN: 'b',
                    AttrType.BOOLEANS: 'bools', AttrType.BLOCK: 'block_idx', AttrType.LONG: 'l',
                    AttrType.BLOCKS: 'blocks_idx', AttrType.LONGS: 'longs', AttrType.FLOAT64S: 'float64s',
                    AttrType.VAR: 'var_name', AttrType.VARS: 'vars_name', AttrType.FLOAT64: 'float64',
                    AttrType.SCALAR: 'scalar', AttrType.SCALARS: 'scalars'}
_REPEATED_ATTR_FIELDS = {name: repeated for name, _, repeated in ATTR.values()}
_HOLDER_TYPES = (VarType.FEED_MINIBATCH, VarType.FETCH_LIST)


def looks_like_program_desc(data: bytes) -> bool:
    """True when `data` starts like a serialized ProgramDesc (field 1, length-delimited: the first BlockDesc),
    which a pickle (first byte 0x80) never does."""
    return len(data) > 1 and data[0] == 0x0A


def _scalar_value(s: dict):
    for key in ('b', 'i', 'r'):
        if key in s:
            return s[key]
    return None


def _attr_value(attr: dict):
    atype = attr.get('type')
    field = ATTR_VALUE_FIELD.get(atype)
    if field is None:
        # an AttrType newer than this reader: keep whichever value field is set
        field = next((k for k in attr if k not in ('name', 'type') and attr[k] != []), None)
        return attr.get(field) if field else None
    if atype == AttrType.SCALAR:
        return _scalar_value(attr.get('scalar', {}))
    if atype == AttrType.SCALARS:
        return [_scalar_value(s) for s in attr.get('scalars', [])]
    return attr.get(field, [] if _REPEATED_ATTR_FIELDS[field] else None)


def _var_type(value: int) -> VarType:
    try:
        return VarType(value)
    except ValueError:      # types paddle_exec does not model (FETCH_VAR_LIST, VOCAB, ...)
        return VarType.RAW


def _make_var(block: Block, vd: dict, feed_names: set, flags_parameters: bool):
    vtype = vd.get('type', {})
    kind = _var_type(vtype.get('type', int(VarType.LOD_TENSOR)))
    tensor = (vtype.get('lod_tensor') or vtype.get('tensor_array') or {}).get('tensor')
    if tensor is None and 'selected_rows' in vtype:
        tensor = vtype['selected_rows']
    lod_level = (vtype.get('lod_tensor') or vtype.get('tensor_array') or {}).get('lod_level', 0)
    shape = list(tensor.get('dims', [])) if tensor is not None else None
    dtype = _var_type(tensor['data_type']) if tensor is not None and 'data_type' in tensor else None
    name = vd['name']
    persistable = vd.get('persistable', False)
    is_feed = name in feed_names
    need_check_feed = vd.get('need_check_feed', False)
    stop_gradient = vd.get('stop_gradient', False)
    common = {'type': kind, 'persistable': persistable, 'lod_level': lod_level,
              'need_check_feed': need_check_feed or is_feed, 'is_data': is_feed or need_check_feed}
    if flags_parameters:
        is_parameter = vd.get('is_parameter', False)
        trainable = not stop_gradient
    else:
        # 1.8 writes no is_parameter flag; an inference model's persistable tensors are its parameters
        is_parameter = persistable and kind == VarType.LOD_TENSOR and not is_feed and shape is not None
        trainable = False
    if is_parameter:
        return Parameter(block, name, shape or [], dtype if dtype is not None else VarType.FP32, trainable=trainable,
                         **common)
    return Variable(block, name, shape=shape, dtype=dtype, stop_gradient=stop_gradient, **common)


def _columns(ops: list, op_type: str, slot: str) -> list[str]:
    """Names fed / fetched by Paddle's feed / fetch ops, in `col` order."""
    found = []
    for od in ops:
        if od.get('type') != op_type:
            continue
        attrs = {a['name']: _attr_value(a) for a in od.get('attrs', [])}
        args = [a for v in od.get(slot, []) for a in v['arguments']]
        found.append((attrs.get('col', len(found)), args[0] if args else None))
    return [name for _, name in sorted(found, key=lambda t: t[0]) if name is not None]


def program_from_protobuf(data: bytes) -> tuple[Program, list[str], list[str]]:
    """(Program, feed names, fetch names) of a serialized ProgramDesc written by Paddle 1.x or 2.x."""
    desc = parse_message(data, PROGRAM_DESC)
    if not desc['blocks']:
        raise ValueError('the ProgramDesc holds no block')
    top_ops = desc['blocks'][0].get('ops', [])
    feed_names = _columns(top_ops, 'feed', 'outputs')
    fetch_names = _columns(top_ops, 'fetch', 'inputs')
    feeds = set(feed_names)
    flags_parameters = any('is_parameter' in vd for bd in desc['blocks'] for vd in bd['vars'])

    program = Program()
    program.blocks = []
    block_attrs = []
    missing = []
    for bd in desc['blocks']:
        block = Block(program, bd.get('idx', len(program.blocks)), bd.get('parent_idx', -1))
        block.forward_block_idx = bd.get('forward_block_idx', -1)
        for vd in bd['vars']:
            var = _make_var(block, vd, feeds, flags_parameters)
            if var.type in _HOLDER_TYPES:
                continue
            block.vars[var.name] = var
        for od in bd['ops']:
            op_type = od.get('type', '')
            if op_type in ('feed', 'fetch'):
                continue
            # Paddle lists every slot, even unwired ones (`Bias: []`); ours holds wired slots only
            inputs = {v['parameter']: v['arguments'] for v in od['inputs'] if v['arguments']}
            outputs = {v['parameter']: v['arguments'] for v in od['outputs'] if v['arguments']}
            attrs = {}
            for a in od['attrs']:
                attrs[a['name']] = _attr_value(a)
                if a.get('type') in (AttrType.BLOCK, AttrType.BLOCKS):
                    block_attrs.append((attrs, a['name']))
            op = Operator(block, op_type, inputs, outputs, attrs)
            info = registry.OPS.get(op_type)
            if info is None:
                missing.append(op_type)
            else:
                for name, default in info.attrs.items():
                    op.attrs.setdefault(name, list(default) if isinstance(default, list) else default)
            block.ops.append(op)
        program.blocks.append(block)
    if missing:
        raise NotImplementedError("The model uses operators paddle_exec does not implement: %s"
                                  % ', '.join(sorted(set(missing))))
    for attrs, name in block_attrs:
        value = attrs[name]
        attrs[name] = [program.blocks[i] for i in value] if isinstance(value, list) else program.blocks[value]
    program._bump()
    return program, feed_names, fetch_names
