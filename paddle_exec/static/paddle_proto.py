"""Reading real Paddle's ProgramDesc protobuf (an inference model's `__model__` / `*.pdmodel`) into a Program.

The wire format is the `protobuf` runtime's: `framework.proto` beside this file is Paddle's schema (field numbers
compared with Paddle 1.8.5 and 2.6.2) and `framework_pb2` is generated from it. Regenerate after editing the
schema (repository root, `pip install -e '.[dev]'`):

    python -m grpc_tools.protoc -I . --python_out=. paddle_exec/static/framework.proto

This module maps a parsed `ProgramDesc` onto paddle_exec's Program: blocks, variables (shape, dtype, type,
lod_level, persistable; persistable LoD tensors that are not feed targets become Parameters) and ops (slots with
their argument lists, attributes by their declared AttrType, sub-block attributes as Block objects).
Paddle's `feed` / `fetch` ops and the `feed` / `fetch` holder variables are dropped: our Executor takes the feed
dict and fetch list directly. Their `col` attributes order the returned feed names and fetch names.
Parameters: a 2.x file (and paddle_exec's own, `paddle_proto_writer`) flags them with VarDesc.is_parameter and
gives their trainability as `not stop_gradient`; when no variable carries the flag (1.8 never writes it), every
persistable LoD tensor that is not a feed target is taken for a parameter.

Values Paddle's schema does not know (an AttrType or VarType of a later Paddle) are kept by protobuf as unknown
fields, which leaves the enum field unset: such an attribute keeps whichever value field is set, such a variable
becomes a RAW variable, and a tensor of an unknown data type gets the dtype RAW.

`AttrType` and `ATTR_VALUE_FIELD` are shared with the writer (`paddle_proto_writer`).
"""
from __future__ import annotations

import enum

from google.protobuf.message import DecodeError

from ..framework import registry
from ..framework.dtype import VarType
from ..framework.operator import Operator
from ..framework.program import Block, Program
from ..framework.variable import Parameter, Variable
from ..ops.control_flow import as_sub_block_attr
from . import framework_pb2

__all__ = []   # internal: used by static.io.load_inference_model

AttrType = enum.IntEnum('AttrType', framework_pb2.AttrType.items())
AttrType.__doc__ = "framework.proto's enum AttrType (1.8 stops at LONGS; 2.x adds the rest)."

# AttrType -> the OpDesc.Attr field holding the value
ATTR_VALUE_FIELD = {AttrType.INT: 'i', AttrType.FLOAT: 'f', AttrType.STRING: 's', AttrType.INTS: 'ints',
                    AttrType.FLOATS: 'floats', AttrType.STRINGS: 'strings', AttrType.BOOLEAN: 'b',
                    AttrType.BOOLEANS: 'bools', AttrType.BLOCK: 'block_idx', AttrType.LONG: 'l',
                    AttrType.BLOCKS: 'blocks_idx', AttrType.LONGS: 'longs', AttrType.FLOAT64S: 'float64s',
                    AttrType.VAR: 'var_name', AttrType.VARS: 'vars_name', AttrType.FLOAT64: 'float64',
                    AttrType.SCALAR: 'scalar', AttrType.SCALARS: 'scalars'}
_ATTR_FIELDS = framework_pb2.OpDesc.Attr.DESCRIPTOR.fields_by_name
_HOLDER_TYPES = (VarType.FEED_MINIBATCH, VarType.FETCH_LIST)


def is_repeated(field) -> bool:
    """Whether a protobuf field descriptor is a repeated one (`label` went away in protobuf 6)."""
    flag = getattr(field, 'is_repeated', None)
    return flag if flag is not None else field.label == field.LABEL_REPEATED


REPEATED_ATTR_FIELDS = frozenset(name for name, field in _ATTR_FIELDS.items() if is_repeated(field))


def looks_like_program_desc(data: bytes) -> bool:
    """True when `data` starts like a serialized ProgramDesc (field 1, length-delimited: the first BlockDesc),
    which a pickle (first byte 0x80) never does."""
    return len(data) > 1 and data[0] == 0x0A


def parse_program_desc(data: bytes, source: str = 'the ProgramDesc') -> framework_pb2.ProgramDesc:
    """The parsed ProgramDesc message; a ValueError naming `source` when the bytes are not one."""
    desc = framework_pb2.ProgramDesc()
    try:
        desc.ParseFromString(data)
    except DecodeError as e:
        raise ValueError('%s is not a valid Paddle ProgramDesc (%d bytes): %s' % (source, len(data), e)) from None
    return desc


def _scalar_value(s: framework_pb2.Scalar):
    for key in ('b', 'i', 'r'):
        if s.HasField(key):
            return getattr(s, key)
    if s.HasField('c'):
        return complex(s.c.r, s.c.i)
    return None


def _field_value(attr: framework_pb2.OpDesc.Attr, field: str):
    if field in REPEATED_ATTR_FIELDS:
        values = getattr(attr, field)
        return [_scalar_value(s) for s in values] if field == 'scalars' else list(values)
    if not attr.HasField(field):
        return None
    return _scalar_value(attr.scalar) if field == 'scalar' else getattr(attr, field)


def attr_value(attr: framework_pb2.OpDesc.Attr):
    """The Python value of an OpDesc.Attr, read from the field its AttrType names."""
    if not attr.HasField('type'):
        # an AttrType newer than the schema: keep whichever value field is set
        for field in ATTR_VALUE_FIELD.values():
            value = _field_value(attr, field)
            if value not in (None, []):
                return value
        return None
    return _field_value(attr, ATTR_VALUE_FIELD[AttrType(attr.type)])


def _var_type(value: int) -> VarType:
    try:
        return VarType(value)
    except ValueError:      # types paddle_exec does not model (VOCAB, SPARSE_COO, ...)
        return VarType.RAW


def _tensor_of(vtype: framework_pb2.VarType):
    """(TensorDesc or None, lod_level) of a VarType."""
    for holder in ('lod_tensor', 'tensor_array'):
        if vtype.HasField(holder):
            desc = getattr(vtype, holder)
            return desc.tensor if desc.HasField('tensor') else None, desc.lod_level
    if vtype.HasField('selected_rows'):
        return vtype.selected_rows, 0
    return None, 0


def _make_var(block: Block, vd: framework_pb2.VarDesc, feed_names: set, flags_parameters: bool):
    kind = _var_type(vd.type.type) if vd.type.HasField('type') else VarType.RAW
    tensor, lod_level = _tensor_of(vd.type)
    shape = list(tensor.dims) if tensor is not None else None
    # an unset data type is one framework.proto does not know (a required field is never missing otherwise)
    dtype = None if tensor is None else _var_type(tensor.data_type) if tensor.HasField('data_type') else VarType.RAW
    name = vd.name
    is_feed = name in feed_names
    common = {'type': kind, 'persistable': vd.persistable, 'lod_level': lod_level,
              'need_check_feed': vd.need_check_feed or is_feed, 'is_data': is_feed or vd.need_check_feed}
    if flags_parameters:
        is_parameter = vd.is_parameter
        trainable = not vd.stop_gradient
    else:
        # 1.8 writes no is_parameter flag; an inference model's persistable tensors are its parameters
        is_parameter = vd.persistable and kind == VarType.LOD_TENSOR and not is_feed and shape is not None
        trainable = False
    if is_parameter:
        return Parameter(block, name, shape or [], dtype if dtype is not None else VarType.FP32, trainable=trainable,
                         **common)
    return Variable(block, name, shape=shape, dtype=dtype, stop_gradient=vd.stop_gradient, **common)


def _columns(ops, op_type: str, slot: str) -> list[str]:
    """Names fed / fetched by Paddle's feed / fetch ops, in `col` order."""
    found = []
    for od in ops:
        if od.type != op_type:
            continue
        attrs = {a.name: attr_value(a) for a in od.attrs}
        args = [a for v in getattr(od, slot) for a in v.arguments]
        found.append((attrs.get('col', len(found)), args[0] if args else None))
    return [name for _, name in sorted(found, key=lambda t: t[0]) if name is not None]


def program_from_protobuf(data: bytes, source: str = 'the ProgramDesc') -> tuple[Program, list[str], list[str]]:
    """(Program, feed names, fetch names) of a serialized ProgramDesc written by Paddle 1.x or 2.x; `source`
    (the file) names it in errors."""
    desc = parse_program_desc(data, source)
    if not desc.blocks:
        raise ValueError('%s holds no block' % source)
    top_ops = desc.blocks[0].ops
    feed_names = _columns(top_ops, 'feed', 'outputs')
    fetch_names = _columns(top_ops, 'fetch', 'inputs')
    feeds = set(feed_names)
    flags_parameters = any(vd.HasField('is_parameter') for bd in desc.blocks for vd in bd.vars)

    program = Program()
    program.blocks = []
    block_attrs = []
    missing = []
    for bd in desc.blocks:
        block = Block(program, bd.idx if bd.HasField('idx') else len(program.blocks),
                      bd.parent_idx if bd.HasField('parent_idx') else -1)
        block.forward_block_idx = bd.forward_block_idx
        for vd in bd.vars:
            var = _make_var(block, vd, feeds, flags_parameters)
            if var.type in _HOLDER_TYPES:
                continue
            block.vars[var.name] = var
        for od in bd.ops:
            if od.type in ('feed', 'fetch'):
                continue
            # Paddle lists every slot, even unwired ones (`Bias: []`); ours holds wired slots only
            inputs = {v.parameter: list(v.arguments) for v in od.inputs if v.arguments}
            outputs = {v.parameter: list(v.arguments) for v in od.outputs if v.arguments}
            op = Operator(block, od.type, inputs, outputs, {a.name: attr_value(a) for a in od.attrs})
            block_attrs += [(op, a.name) for a in od.attrs
                            if a.HasField('type') and a.type in (AttrType.BLOCK, AttrType.BLOCKS)]
            info = registry.OPS.get(od.type)
            if info is None:
                missing.append(od.type)
            else:
                for name, default in info.attrs.items():
                    op.attrs.setdefault(name, list(default) if isinstance(default, list) else default)
            block.ops.append(op)
        program.blocks.append(block)
    if missing:
        raise NotImplementedError("The model uses operators paddle_exec does not implement: %s"
                                  % ', '.join(sorted(set(missing))))
    for op, name in block_attrs:          # sub-block indices become the Blocks, as the builders make them
        value = op.attrs[name]
        op.attrs[name] = ([as_sub_block_attr(program.blocks[i]) for i in value] if isinstance(value, list)
                          else as_sub_block_attr(program.blocks[value]))
    program._bump()
    return program, feed_names, fetch_names
