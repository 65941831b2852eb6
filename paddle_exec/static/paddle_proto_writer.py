"""Writing a Program as Paddle's ProgramDesc protobuf, the `__model__` / `*.pdmodel` real Paddle 1.8 and 2.x load.

The mirror of `paddle_proto`, on the same schema (`framework_pb2`, generated from `framework.proto`): this module
builds the messages and the `protobuf` runtime serializes them (fields in number order, repeated scalars
unpacked as proto2 declares them, negative ints as ten-byte varints, the bytes Paddle's C++ writes).

`program_desc(program, feed_names, fetch_names)` builds the ProgramDesc message:
- Blocks with idx, parent_idx (forward_block_idx when set); each variable's VarType (LOD_TENSOR with its
  TensorDesc dims and data type and lod_level, SELECTED_ROWS, LOD_TENSOR_ARRAY; holder types such as
  FEED_MINIBATCH by type alone), persistable always (as Paddle writes it), need_check_feed, stop_gradient and
  is_parameter when true. 1.8 does not know the last two fields and keeps them as unknown fields; 2.x reads
  them back into Parameters.
- Ops with every slot, empty ones too, slots and attributes sorted by name as Paddle's maps hold them.
  An attribute's AttrType is Paddle's declared one: the bookkeeping attributes' fixed types, then
  `DECLARED_ATTR_TYPES` (what a Python value cannot tell), then the type of the op's registered default,
  then the value's own type (an empty list of unknown kind is INTS, as Paddle's pybind makes of `[]`). The
  value is converted to that type (`scale=2` is written as FLOAT 2.0, as Paddle's Operator does); a value
  that does not convert raises a TypeError naming the op and the attribute. None values are left out, as
  Paddle's Operator leaves them out.
- For an inference model (`feed_names` / `fetch_names` given), what Paddle's save_inference_model adds:
  a persistable `feed` variable (FEED_MINIBATCH) and one `feed` op per feed target, each *prepended* in turn
  (so `col` n-1 comes first, `col` 0 last), and a persistable `fetch` variable (FETCH_LIST) with one `fetch`
  op per target appended in `col` order.
- `version` 0 (the proto default: a program of no particular Paddle release) and no op_version_map. Both
  1.8.5 and 2.6.2 accept any version (`_is_program_version_supported` is true for all). 2.x's
  program_converter.cc takes a program without op_version_map for a legacy one and stamps the current map on
  it; it rewrites only set_value / fill_any_like ops listed at an older version, so nothing here. Checked side
  by side: 2.6.2's load_inference_model + Executor and its inference predictor (IR passes on) run these files.

    data = program_to_protobuf(pruned, ['x'], ['fc_0.tmp_1'])      # loads in fluid.io.load_inference_model
"""
from __future__ import annotations

import numbers

import numpy as np

from ..framework import registry
from ..framework.dtype import VarType
from ..framework.program import Block, Program
from ..framework.variable import Parameter, Variable
from . import framework_pb2
from .paddle_proto import ATTR_VALUE_FIELD, REPEATED_ATTR_FIELDS, AttrType

__all__ = []   # internal: used by static.io (save, save_inference_model)

PROGRAM_VERSION = 0
FEED_HOLDER, FETCH_HOLDER = 'feed', 'fetch'

# --- attribute types ------------------------------------------------------------------------------------------

# Paddle's OpProtoAndCheckerMaker adds these to every op
_BOOKKEEPING_TYPES = {'op_role': AttrType.INT, 'op_role_var': AttrType.STRINGS, 'op_namescope': AttrType.STRING,
                      'op_callstack': AttrType.STRINGS, 'op_device': AttrType.STRING,
                      'with_quant_attr': AttrType.BOOLEAN}

# The AttrTypes of Paddle's ops that neither a registered default nor a value tells: scalars Paddle keeps as int64
# or float64, and lists that are not INTS (an empty list is INTS unless listed here). Recorded from the OpProtos of
# Paddle 1.8.5 and 2.6.2 (`core.get_all_op_protos()`), every op of either, so ops added to paddle_exec later are
# covered. Where the two disagree (reduce_all / reduce_any `dim`: INTS in 1.8, LONGS in 2.6) the narrower type is
# kept: both widen int32 to int64 when they check an op's attributes, neither narrows. `bool_values` is INTS in
# both although it holds bools. A grad op takes its forward op's entry.
_DECLARED_ATTR_SPEC = """
adam: min_row_size_to_use_multithread=LONG
adamw: min_row_size_to_use_multithread=LONG
anchor_generator: anchor_sizes=FLOATS aspect_ratios=FLOATS stride=FLOATS variances=FLOATS
arg_max: axis=LONG
arg_min: axis=LONG
as_strided: dims=LONGS offset=LONG stride=LONGS
assert: summarize=LONG
assign_value: bool_values=INTS fp32_values=FLOATS fp64_values=FLOAT64S int64_values=LONGS
average_accumulates: max_average_window=LONG min_average_window=LONG
bernoulli_p: shape=LONGS
bicubic_interp_v2: scale=FLOATS
bilinear_interp_v2: scale=FLOATS
box_coder: variance=FLOATS
broadcast_p: shape=LONGS
c_embedding: start_index=LONG vocab_size=LONG
c_gen_xccl_id: other_endpoints=STRINGS
c_softmax_with_cross_entropy: ignore_index=LONG
checkpoint_notify: epmap=STRINGS
coalesce_tensor: concated_ranks=LONGS concated_shapes=LONGS
concat_p: axis=LONG
conditional_block: skip_eager_deletion_vars=STRINGS sub_block=BLOCK
conditional_block_infer: skip_eager_deletion_vars=STRINGS sub_block=BLOCK
conv2d: Scale_weights=FLOATS
conv2d_transpose_xpu: output_size=LONGS
data: shape=LONGS
density_prior_box: fixed_ratios=FLOATS fixed_sizes=FLOATS variances=FLOATS
depthwise_conv2d: Scale_weights=FLOATS
distributed_fused_lamb: nranks=LONG
distributed_lookup_table: endpoints=STRINGS height_sections=LONGS padding_idx=LONG table_names=STRINGS
distributed_push_sparse: padding_idx=LONG
embedding_with_eltwise_add_xpu: padding_idx=LONG
empty: shape=LONGS
eye: num_columns=LONG num_rows=LONG
fake_init: shape=LONGS
fc: Scale_weights=FLOATS
fetch_barrier: endpoints=STRINGS
fft_c2c: axes=LONGS
fft_c2r: axes=LONGS last_dim_size=LONG
fft_r2c: axes=LONGS
fill: value=FLOATS
fill_constant: shape=LONGS
fill_constant_p: shape=LONGS
fill_diagonal_tensor: offset=LONG
filter_by_instag: out_val_if_empty=LONG
fl_listen_and_serv: optimize_blocks=BLOCKS
flash_attn_unpadded: max_seqlen_k=LONG max_seqlen_q=LONG
full_int_array: value=LONGS
fused_elemwise_activation: functor_list=STRINGS
fused_elemwise_add_activation: functor_list=STRINGS
fused_embedding_seq_pool: padding_idx=LONG
fused_scale_bias_relu_conv_bn: accumulation_count=LONG
fusion_gru: Scale_weights=FLOATS
fusion_lstm: Scale_weights=FLOATS
gather_p: axis=LONG index=LONGS
gaussian_random: shape=LONGS
generate_proposal_labels: bbox_reg_weights=FLOATS
graph_send_recv: out_size=LONGS
graph_send_ue_recv: out_size=LONGS
hash: mod_by=LONG
heter_listen_and_serv: message_to_block_id=STRINGS optimize_blocks=BLOCKS
hierarchical_sigmoid: epmap=STRINGS height_sections=LONGS table_names=STRINGS
histogram: bins=LONG
index_select_strided: index=LONG
linear_interp_v2: scale=FLOATS
listen_and_serv: grad_to_block_id=STRINGS optimize_blocks=BLOCKS prefetch_var_name_to_block_id=STRINGS
    sparse_grad_to_param=STRINGS
load: seek=LONG shape=LONGS
lookup_sparse_table: padding_idx=LONG
lookup_table: epmap=STRINGS height_sections=LONGS padding_idx=LONG table_names=STRINGS
lookup_table_dequant: padding_idx=LONG
lookup_table_v2: epmap=STRINGS height_sections=LONGS padding_idx=LONG table_names=STRINGS
memory_efficient_attention: dropout_p=FLOAT64
merged_momentum: regularization_coeff=FLOATS regularization_method=STRINGS
mul: scale_y=FLOATS
nce: epmap=STRINGS height_sections=LONGS table_names=STRINGS
nearest_interp_v2: scale=FLOATS
nll_loss: ignore_index=LONG
pow2_decay_with_linear_warmup: total_steps=LONG warmup_steps=LONG
prefetch: epmap=STRINGS
prior_box: aspect_ratios=FLOATS max_sizes=FLOATS min_sizes=FLOATS variances=FLOATS
prune_gate_by_capacity: n_expert=LONG n_worker=LONG
pull_sparse: InputNames=STRINGS
pull_sparse_v2: InputNames=STRINGS
push_dense: InputNames=STRINGS
py_func: backward_skip_vars=STRINGS
pylayer: blocks=BLOCKS
quant_linear: scale_weights=FLOATS
queue_generator: names=STRINGS
randint: shape=LONGS
recurrent: ex_states=STRINGS skip_eager_deletion_vars=STRINGS states=STRINGS sub_block=BLOCK
recv: epmap=STRINGS recv_varnames=STRINGS varnames=STRINGS
recv_save: endpoints=STRINGS remote_varnames=STRINGS shape=LONGS slice_shapes=STRINGS slice_varnames=STRINGS
reduce_amax: dim=LONGS
reduce_amin: dim=LONGS
reduce_sum_p: axis=LONGS
reshape_p: shape=LONGS
roll: axis=LONGS dims=LONGS shifts=LONGS
run_program: backward_global_block=BLOCK cuda_graph_pool_id=LONG end_op_index=LONG forward_global_block=BLOCK
    global_block=BLOCK out_grad_names=STRINGS param_grad_names=STRINGS program_id=LONG start_op_index=LONG
    x_grad_names=STRINGS x_names=STRINGS
scatter_add_p: axis=LONG index=LONGS
send: epmap=STRINGS sections=LONGS send_varnames=STRINGS
send_and_recv: endpoints=STRINGS next_endpoints=STRINGS previous_endpoints=STRINGS recv_var_name=STRINGS
    send_var_name=STRINGS
send_barrier: endpoints=STRINGS
set_value: axes=LONGS decrease_axes=LONGS ends=LONGS none_axes=LONGS shape=LONGS starts=LONGS steps=LONGS
    values=SCALARS
share_buffer: share_dims_and_dtype=BOOLEANS
slice_assign_p: axis=LONGS ends=LONGS starts=LONGS strides=LONGS
slice_select_p: axis=LONGS ends=LONGS starts=LONGS strides=LONGS
space_to_depth: blocksize=LONG
sparse_reshape: shape=LONGS
sparse_slice: axes=LONGS ends=LONGS starts=LONGS
sparse_sparse_coo_tensor: shape=LONGS
sparse_sum: axis=LONGS
sparse_to_sparse_coo: sparse_dim=LONG
split_p: axis=LONG num_or_sections=LONGS
split_selected_rows: height_sections=LONGS
squeeze_excitation_block: act_param=FLOATS
tensor_unfold: axis=LONG size=LONG step=LONG
transpose_p: axis=LONGS
trilinear_interp_v2: scale=FLOATS
uniform_random: shape=LONGS
uniform_random_p: shape=LONGS
view_shape: dims=LONGS
while: skip_eager_deletion_vars=STRINGS sub_block=BLOCK
"""


def _parse_declared(spec: str) -> dict[str, dict[str, AttrType]]:
    table, op_type = {}, None
    for line in spec.strip().splitlines():
        if not line.startswith(' '):
            op_type, line = line.split(':', 1)
        for item in line.split():
            name, type_name = item.split('=')
            table.setdefault(op_type, {})[name] = AttrType[type_name]
    return table


DECLARED_ATTR_TYPES = _parse_declared(_DECLARED_ATTR_SPEC)

_LIST_OF = {AttrType.INT: AttrType.INTS, AttrType.LONG: AttrType.LONGS, AttrType.FLOAT: AttrType.FLOATS,
            AttrType.STRING: AttrType.STRINGS, AttrType.BOOLEAN: AttrType.BOOLEANS, AttrType.BLOCK: AttrType.BLOCKS,
            AttrType.FLOAT64: AttrType.FLOAT64S}
_ELEMENT_OF = {v: k for k, v in _LIST_OF.items()}
_INT32 = (-2 ** 31, 2 ** 31 - 1)
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def _type_of_value(value) -> AttrType | None:
    """The AttrType a Python value would get (None: nothing tells, as for an empty list)."""
    if isinstance(value, (bool, np.bool_)):
        return AttrType.BOOLEAN
    if isinstance(value, numbers.Integral):
        return AttrType.INT if _INT32[0] <= int(value) <= _INT32[1] else AttrType.LONG
    if isinstance(value, numbers.Real):
        return AttrType.FLOAT
    if isinstance(value, str):
        return AttrType.STRING
    if isinstance(value, Block):
        return AttrType.BLOCK
    if isinstance(value, (list, tuple, np.ndarray)):
        kinds = {_type_of_value(v) for v in value}
        if not kinds:
            return None
        if kinds <= {AttrType.INT, AttrType.LONG}:
            return AttrType.LONGS if AttrType.LONG in kinds else AttrType.INTS
        if kinds <= {AttrType.INT, AttrType.LONG, AttrType.FLOAT}:
            return AttrType.FLOATS
        if len(kinds) == 1 and next(iter(kinds)) in _LIST_OF:
            return _LIST_OF[next(iter(kinds))]
    return None


def _forward_type(op_type: str) -> str:
    while op_type.endswith('_grad'):
        op_type = op_type[:-len('_grad')]
    return op_type


def attr_type(op_type: str, name: str, value) -> AttrType:
    """The AttrType Paddle declares for attribute `name` of `op_type` (see the module docstring for the order)."""
    if name in _BOOKKEEPING_TYPES:
        return _BOOKKEEPING_TYPES[name]
    declared = DECLARED_ATTR_TYPES.get(_forward_type(op_type), {}).get(name)
    if declared is not None:
        return declared
    for candidate in (op_type, _forward_type(op_type)):
        info = registry.OPS.get(candidate)
        if info is not None and name in info.attrs:
            by_default = _type_of_value(info.attrs[name])
            if by_default is not None:
                return by_default
            break
    by_value = _type_of_value(value)
    if by_value is None:
        if isinstance(value, (list, tuple, np.ndarray)):
            return AttrType.INTS
        raise TypeError("Attribute '%s' of operator '%s' holds %r (%s), which a Paddle ProgramDesc cannot store"
                        % (name, op_type, value, type(value).__name__))
    return by_value


def _convert(atype: AttrType, value):
    """`value` as the Python value of AttrType `atype`; ValueError when it is not one."""
    if atype in _ELEMENT_OF:
        if not isinstance(value, (list, tuple, np.ndarray)):
            raise ValueError('a list is expected')
        return [_convert(_ELEMENT_OF[atype], v) for v in value]
    if atype in (AttrType.INT, AttrType.LONG):
        if isinstance(value, numbers.Integral) or isinstance(value, np.bool_):
            number = int(value)
        elif isinstance(value, numbers.Real) and float(value).is_integer():
            number = int(value)
        else:
            raise ValueError('an integer is expected')
        low, high = _INT32 if atype == AttrType.INT else (-2 ** 63, 2 ** 63 - 1)
        if not low <= number <= high:
            raise ValueError('%d does not fit the %s Paddle declares' % (number, atype.name))
        return number
    if atype in (AttrType.FLOAT, AttrType.FLOAT64):
        if not isinstance(value, (numbers.Real, np.bool_)):
            raise ValueError('a number is expected')
        number = float(value)
        if atype == AttrType.FLOAT and np.isfinite(number) and abs(number) > _FLOAT32_MAX:
            raise ValueError('%r is beyond the range of the float32 Paddle declares' % number)
        return number
    if atype == AttrType.BOOLEAN:
        if isinstance(value, (bool, np.bool_)) or (isinstance(value, numbers.Integral) and int(value) in (0, 1)):
            return bool(value)
        raise ValueError('a bool is expected')
    if atype == AttrType.STRING:
        if isinstance(value, str):
            return value
        raise ValueError('a string is expected')
    if atype == AttrType.BLOCK:
        if isinstance(value, Block):
            return value.idx
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            return int(value)
        raise ValueError('a Block is expected')
    raise ValueError('paddle_exec writes no %s attributes' % atype.name)


def attr_desc(op_type: str, name: str, value) -> framework_pb2.OpDesc.Attr:
    """The OpDesc.Attr message for attribute `name` of an op of type `op_type`."""
    atype = attr_type(op_type, name, value)
    try:
        converted = _convert(atype, value)
    except ValueError as e:
        raise TypeError("Attribute '%s' of operator '%s' holds %r, which cannot be written as Paddle's %s: %s"
                        % (name, op_type, value, atype.name, e)) from None
    attr = framework_pb2.OpDesc.Attr(name=name, type=int(atype))
    field = ATTR_VALUE_FIELD[atype]
    if field in REPEATED_ATTR_FIELDS:
        getattr(attr, field).extend(converted)
    else:
        setattr(attr, field, converted)
    return attr


# --- variables ----------------------------------------------------------------------------------------------

_TYPE_ONLY = (VarType.FEED_MINIBATCH, VarType.FETCH_LIST, VarType.STEP_SCOPES, VarType.LOD_RANK_TABLE,
              VarType.PLACE_LIST, VarType.READER, VarType.RAW)
_DATA_TYPES = frozenset((VarType.BOOL, VarType.INT16, VarType.INT32, VarType.INT64, VarType.FP16, VarType.FP32,
                         VarType.FP64, VarType.SIZE_T, VarType.UINT8, VarType.INT8, VarType.BF16, VarType.COMPLEX64,
                         VarType.COMPLEX128))


def tensor_desc(name: str, dtype, dims) -> framework_pb2.VarType.TensorDesc:
    """The TensorDesc of a tensor named `name` (for the error) with data type `dtype` and shape `dims`."""
    if dtype not in _DATA_TYPES:
        raise TypeError("Variable '%s' has data type %s, which a Paddle TensorDesc cannot describe"
                        % (name, dtype.name if isinstance(dtype, VarType) else dtype))
    return framework_pb2.VarType.TensorDesc(data_type=int(dtype), dims=[int(d) for d in dims])


def var_desc(var: Variable) -> framework_pb2.VarDesc:
    """The VarDesc message of `var`."""
    kind = var.type
    desc = framework_pb2.VarDesc(name=var.name, persistable=bool(var.persistable))
    desc.type.type = int(kind)
    if kind in (VarType.LOD_TENSOR, VarType.LOD_TENSOR_ARRAY, VarType.SELECTED_ROWS):
        tensor = tensor_desc(var.name, var.dtype, var.shape if var.has_shape() else [])
        if kind == VarType.SELECTED_ROWS:
            desc.type.selected_rows.CopyFrom(tensor)
        else:
            holder = desc.type.lod_tensor if kind == VarType.LOD_TENSOR else desc.type.tensor_array
            holder.tensor.CopyFrom(tensor)
            holder.lod_level = int(var.lod_level)
    elif kind not in _TYPE_ONLY:
        raise TypeError("Variable '%s' has type %s, which paddle_exec cannot write to a Paddle ProgramDesc"
                        % (var.name, getattr(kind, 'name', kind)))
    if var.need_check_feed:
        desc.need_check_feed = True
    if isinstance(var, Parameter):
        desc.is_parameter = True
    if var.stop_gradient:
        desc.stop_gradient = True
    return desc


def _holder_var(name: str, kind: VarType) -> framework_pb2.VarDesc:
    return framework_pb2.VarDesc(name=name, type=framework_pb2.VarType(type=int(kind)), persistable=True)


# --- ops and blocks -------------------------------------------------------------------------------------------

def op_desc(op_type: str, inputs: dict, outputs: dict, attrs: dict) -> framework_pb2.OpDesc:
    """The OpDesc message of an op: slots and attributes in name order."""
    slot = framework_pb2.OpDesc.Var
    return framework_pb2.OpDesc(
        type=op_type,
        inputs=[slot(parameter=name, arguments=list(inputs[name])) for name in sorted(inputs)],
        outputs=[slot(parameter=name, arguments=list(outputs[name])) for name in sorted(outputs)],
        attrs=[attr_desc(op_type, name, attrs[name]) for name in sorted(attrs) if attrs[name] is not None])


def _holder_op(op_type: str, col: int, inputs: dict, outputs: dict) -> framework_pb2.OpDesc:
    attrs = {'col': col, 'op_role': 0, 'op_role_var': [], 'op_namescope': '/', 'op_device': ''}
    return op_desc(op_type, inputs, outputs, attrs)


def block_desc(block: Block, extra_vars=(), ops_before=(), ops_after=()) -> framework_pb2.BlockDesc:
    """The BlockDesc message of `block`; the extras are Paddle's feed / fetch holders and ops."""
    ops = [op_desc(op.type, op.inputs, op.outputs, op.attrs) for op in block.ops]
    desc = framework_pb2.BlockDesc(idx=block.idx, parent_idx=block.parent_idx,
                                   vars=[var_desc(v) for v in block.vars.values()] + list(extra_vars),
                                   ops=list(ops_before) + ops + list(ops_after))
    if block.forward_block_idx != -1:
        desc.forward_block_idx = block.forward_block_idx
    return desc


def _holders(program: Program, feed_names, fetch_names) -> dict:
    """block_desc's extras for the global block of an inference model."""
    holders = {'extra_vars': [], 'ops_before': [], 'ops_after': []}
    for names, holder, kind in ((feed_names, FEED_HOLDER, VarType.FEED_MINIBATCH),
                                (fetch_names, FETCH_HOLDER, VarType.FETCH_LIST)):
        if names is None or (holder == FEED_HOLDER and not names):
            continue
        if holder in program.global_block().vars:
            raise ValueError("the program already has a variable named '%s', the name of Paddle's %s holder"
                             % (holder, holder))
        holders['extra_vars'].append(_holder_var(holder, kind))
    for col, name in enumerate(feed_names or ()):
        holders['ops_before'].insert(0, _holder_op('feed', col, {'X': [FEED_HOLDER]}, {'Out': [name]}))
    for col, name in enumerate(fetch_names or ()):
        holders['ops_after'].append(_holder_op('fetch', col, {'X': [name]}, {'Out': [FETCH_HOLDER]}))
    return holders


def program_desc(program: Program, feed_names=None, fetch_names=None) -> framework_pb2.ProgramDesc:
    """The ProgramDesc message of `program`, with Paddle's feed and fetch ops when names are given."""
    blocks = [block_desc(b, **(_holders(program, feed_names, fetch_names) if i == 0 else {}))
              for i, b in enumerate(program.blocks)]
    desc = framework_pb2.ProgramDesc(blocks=blocks)
    desc.version.version = PROGRAM_VERSION
    return desc


def program_to_protobuf(program: Program, feed_names=None, fetch_names=None) -> bytes:
    """The serialized ProgramDesc of `program`: an inference model's `__model__` / `.pdmodel` when feed and fetch
    names are given, else the plain program (`static.save`'s `.pdmodel`)."""
    if not isinstance(program, Program):
        raise TypeError('program_to_protobuf expects a Program, got %s' % type(program).__name__)
    return program_desc(program, feed_names, fetch_names).SerializeToString()
