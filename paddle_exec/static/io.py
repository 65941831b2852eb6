"""Saving and loading a program's state: paddle.static.save / load (also fluid.save / load), load_program_state /
set_program_state, and fluid.io's save_vars / save_params / save_persistables and their load_* (one file per
variable, or one combined file).

    static.save(main_program, 'ckpt/model')      # ckpt/model.pdparams, .pdopt, .pdmodel
    static.load(main_program, 'ckpt/model', exe)

Formats are Paddle's, so checkpoints move both ways between paddle_exec and real Paddle:
- `.pdparams`: a pickled dict {name: ndarray} of the program's Parameters; `.pdopt`: the same for the other
  persistable variables (optimizer moments, learning rates, counters), data variables excepted.
- save_vars / save_params / save_persistables: Paddle's LoDTensor stream per variable (uint32 version, uint64
  LoD level count and levels, uint32 tensor version, int32 size of a TensorDesc protobuf, the protobuf, the raw
  data), in a file named after the variable, or all of them in name order in one file (`filename`).
- `.pdmodel` (and an inference model's `__model__`): Paddle's ProgramDesc protobuf, written by
  `paddle_proto_writer` (an inference model with Paddle's feed / fetch ops and holder variables) and read by
  `paddle_proto`, so models saved here load in real Paddle 1.8 / 2.x and theirs load here. Files written by
  earlier paddle_exec versions hold its own description instead (a pickle of plain dicts, `program_to_bytes`);
  `program_from_model_bytes` and load_inference_model read both, told apart by the first byte.
save_inference_model / load_inference_model take both signatures: Paddle 2.x's (`path_prefix`, feed Variables;
files `path_prefix.pdmodel` and `.pdiparams`, the persistables combined) and fluid 1.8's (`dirname`, feed names;
`dirname/__model__` and one file per persistable, or `params_filename`). The saved program is the forward needed
for the fetch targets from the feeds, in test mode (without the `scale` op Paddle appends to each fetch target:
the fetch names stay the targets' own).
Every file is written atomically: to a temporary file in the same folder, then `os.replace`.
"""
from __future__ import annotations

import io
import os
import pickle
import struct
import tempfile

import numpy as np

from ..framework.dtype import VarType, to_numpy, to_var_type
from ..framework.operator import Operator
from ..framework.program import Block, Program, default_main_program
from ..framework.scope import global_scope
from ..framework.variable import Parameter, Variable
from .paddle_proto import TENSOR_DESC, looks_like_program_desc, parse_message, program_from_protobuf
from .paddle_proto_writer import encode_message, program_to_protobuf

__all__ = ['save', 'load', 'load_program_state', 'set_program_state', 'save_vars', 'save_params',
           'save_persistables', 'load_vars', 'load_params', 'load_persistables', 'is_parameter', 'is_persistable',
           'is_belong_to_optimizer', 'save_inference_model', 'load_inference_model', 'program_from_model_bytes',
           'get_program_parameter', 'get_program_persistable_vars']

_NOT_SAVED_TYPES = (VarType.FEED_MINIBATCH, VarType.FETCH_LIST, VarType.READER, VarType.RAW)


# --- which variables ----------------------------------------------------------------------------------------------

def is_parameter(var: Variable) -> bool:
    return isinstance(var, Parameter)


def is_persistable(var: Variable) -> bool:
    return var.persistable and var.type not in _NOT_SAVED_TYPES


def is_belong_to_optimizer(var: Variable) -> bool:
    """Persistable, but neither a parameter nor a data variable: optimizer state (Paddle's definition)."""
    return not (isinstance(var, Parameter) or var.need_check_feed) and is_persistable(var)


def get_program_parameter(program: Program) -> list[Variable]:
    """fluid.io.get_program_parameter: the program's Parameters (list_vars order)."""
    return list(filter(is_parameter, program.list_vars()))


def get_program_persistable_vars(program: Program) -> list[Variable]:
    """fluid.io.get_program_persistable_vars: the program's persistable variables (list_vars order)."""
    return list(filter(is_persistable, program.list_vars()))


def _unique_vars(program: Program, predicate) -> list[Variable]:
    seen, out = set(), []
    for var in program.list_vars():
        if predicate(var) and var.name not in seen:
            seen.add(var.name)
            out.append(var)
    return out


# --- atomic files -------------------------------------------------------------------------------------------------

def _write_atomic(path: str, data: bytes) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix='.' + os.path.basename(path) + '.', suffix='.tmp', dir=folder)
    try:
        with os.fdopen(fd, 'wb') as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


# --- pickles any numpy reads ------------------------------------------------------------------------------------

class _PortablePickler(pickle.Pickler):
    """Pickles arrays as `numpy.ndarray(shape, dtype, bytearray)`: numpy 2 pickles name `numpy._core`, which the
    numpy 1.x of a Paddle installation cannot import."""

    def reducer_override(self, obj):
        if type(obj) is np.ndarray and obj.dtype != object:
            arr = np.ascontiguousarray(obj)
            return np.ndarray, (arr.shape, arr.dtype.str, bytearray(arr.tobytes()))
        return NotImplemented


def _pickle_dumps(obj, protocol: int) -> bytes:
    buf = io.BytesIO()
    _PortablePickler(buf, protocol=protocol).dump(obj)
    return buf.getvalue()


# --- scope access ---------------------------------------------------------------------------------------------

def _scope(scope=None):
    return global_scope() if scope is None else scope


def _value_of(var: Variable, scope) -> np.ndarray:
    holder = scope.find_var(var.name)
    if holder is None or holder.tensor.value is None:
        raise ValueError("Variable '%s' has no value in the scope: run the startup program (or load the variables) "
                         "before saving" % var.name)
    return np.array(holder.get_tensor())


def _set_value(var: Variable, value, scope, source: str) -> None:
    value = np.asarray(value)
    want = tuple(var.shape)
    if len(want) != value.ndim or any(w >= 0 and w != s for w, s in zip(want, value.shape)):
        raise ValueError("Variable '%s' receives a shape %s from %s, but the expected shape is %s"
                         % (var.name, list(value.shape), source, list(want)))
    scope.var(var.name).get_tensor().set(value)


# --- static.save / static.load -------------------------------------------------------------------------------

def _check_model_path(model_path: str) -> None:
    if not isinstance(model_path, str) or os.path.basename(model_path) == '':
        raise ValueError('The input model_path MUST be format of dirname/filename [dirname\\filename in Windows '
                         'system], but received model_path is %r' % (model_path,))


def save(program: Program, model_path: str, protocol: int = 4, **configs) -> None:
    """Writes the program's parameters (`model_path.pdparams`), its other persistable variables
    (`model_path.pdopt`) and its description (`model_path.pdmodel`), reading the values from the global scope."""
    if not isinstance(program, Program):
        raise TypeError("The type of 'program' in save must be Program, but received %s" % type(program).__name__)
    _check_model_path(model_path)
    protocol = configs.get('pickle_protocol', protocol)
    if not isinstance(protocol, int) or not 2 <= protocol <= 4:
        raise ValueError('Expected 1<protocol<5, but received protocol=%r' % (protocol,))
    scope = _scope(configs.get('scope'))
    model = program_to_protobuf(program)     # first: a program that cannot be written leaves no files behind
    params = {v.name: _value_of(v, scope) for v in _unique_vars(program, is_parameter)}
    opt = {v.name: _value_of(v, scope) for v in _unique_vars(program, is_belong_to_optimizer)}
    _write_atomic(model_path + '.pdparams', _pickle_dumps(params, protocol))
    _write_atomic(model_path + '.pdopt', _pickle_dumps(opt, protocol))
    _write_atomic(model_path + '.pdmodel', model)


def _model_prefix(model_path: str) -> str:
    for suffix in ('.pdparams', '.pdopt', '.pdmodel'):
        if model_path.endswith(suffix):
            return model_path[:-len(suffix)]
    return model_path


def _read_pickle(path: str) -> dict:
    with open(path, 'rb') as f:
        return pickle.load(f, encoding='latin1')


def load(program: Program, model_path: str, executor=None, var_list=None) -> None:
    """Sets the program's parameters and optimizer state in the global scope from `model_path.pdparams` /
    `.pdopt` (written by `save`, here or by Paddle); a folder written by save_params / save_persistables /
    save_vars is read with load_vars."""
    if not isinstance(program, Program):
        raise TypeError("The type of 'program' in load must be Program, but received %s" % type(program).__name__)
    prefix = _model_prefix(model_path)
    param_file = prefix + '.pdparams'
    scope = global_scope()
    if not os.path.exists(param_file):
        if os.path.isdir(model_path):
            if executor is None:
                raise ValueError('executor is required when loading model file saved with [ save_params, '
                                 'save_persistables, save_vars ]')
            files = set(os.listdir(model_path))
            load_vars(executor, model_path, program, vars=[v for v in _unique_vars(program, is_persistable)
                                                           if v.name in files])
            return
        if os.path.isfile(model_path):
            if var_list is None:
                raise ValueError('var_list is required when loading model file saved with [ save_params, '
                                 'save_persistables, save_vars ]')
            load_vars(executor, os.path.dirname(model_path), program, vars=var_list,
                      filename=os.path.basename(model_path))
            return
        raise ValueError("Parameter file [%s] not exits" % param_file)
    state = _read_pickle(param_file)
    for var in _unique_vars(program, is_parameter):
        if var.name not in state:
            raise ValueError('Can not find [%s] in model file [%s]' % (var.name, param_file))
        _set_value(var, state[var.name], scope, param_file)
    opt_vars = _unique_vars(program, is_belong_to_optimizer)
    if opt_vars:
        opt_file = prefix + '.pdopt'
        if not os.path.exists(opt_file):
            raise ValueError('Optimizer file [%s] not exits' % opt_file)
        state = _read_pickle(opt_file)
        for var in opt_vars:
            if var.name not in state:
                raise ValueError('Can not find [%s] in model file [%s]' % (var.name, opt_file))
            _set_value(var, state[var.name], scope, opt_file)


def load_program_state(model_path: str, var_list=None) -> dict:
    """{name: ndarray} of everything `save` wrote under `model_path` (.pdparams and, when present, .pdopt)."""
    prefix = _model_prefix(model_path)
    param_file = prefix + '.pdparams'
    if not os.path.exists(param_file):
        raise ValueError("Parameter file [%s] not exits" % param_file)
    state = dict(_read_pickle(param_file))
    if os.path.exists(prefix + '.pdopt'):
        state.update(_read_pickle(prefix + '.pdopt'))
    return state


def set_program_state(program: Program, state_dict: dict) -> list[str]:
    """Sets the program's persistable variables found in `state_dict`; returns the names it did not find."""
    scope = global_scope()
    missing = []
    for var in _unique_vars(program, is_persistable):
        if var.name in state_dict:
            _set_value(var, state_dict[var.name], scope, 'the state dict')
        else:
            missing.append(var.name)
    return missing


# --- Paddle's LoDTensor stream (save_vars / load_vars) -------------------------------------------------------

def tensor_to_bytes(array: np.ndarray, lod=()) -> bytes:
    """Paddle's SerializeToStream of a LoDTensor."""
    array = np.ascontiguousarray(array)
    out = [struct.pack('<I', 0), struct.pack('<Q', len(lod))]
    for level in lod:
        data = np.asarray(level, dtype=np.uint64).tobytes()
        out += [struct.pack('<Q', len(data)), data]
    desc = encode_message({'data_type': int(to_var_type(array.dtype)), 'dims': list(array.shape)}, TENSOR_DESC)
    out += [struct.pack('<I', 0), struct.pack('<i', len(desc)), desc, array.tobytes()]
    return b''.join(out)


def tensor_from_bytes(buf: bytes, pos: int = 0) -> tuple[np.ndarray, list, int]:
    """(array, lod, position after it) of the LoDTensor stream at `pos`."""
    (version,) = struct.unpack_from('<I', buf, pos)
    if version != 0:
        raise ValueError('unsupported LoDTensor version %d' % version)
    (levels,) = struct.unpack_from('<Q', buf, pos + 4)
    pos += 12
    lod = []
    for _ in range(levels):
        (size,) = struct.unpack_from('<Q', buf, pos)
        lod.append(np.frombuffer(buf, np.uint64, size // 8, pos + 8).tolist())
        pos += 8 + size
    (_, desc_size) = struct.unpack_from('<Ii', buf, pos)
    pos += 8
    end = pos + desc_size
    desc = parse_message(buf[pos:end], TENSOR_DESC)
    dims = desc['dims']
    np_dtype = to_numpy(VarType(desc.get('data_type', VarType.FP32)))
    count = int(np.prod(dims)) if dims else 1
    array = np.frombuffer(buf, np_dtype, count, end).reshape(dims).copy()
    return array, lod, end + count * np_dtype.itemsize


def _vars_to_save(main_program, vars, predicate) -> tuple[Program, list[Variable]]:
    program = default_main_program() if main_program is None else main_program
    if not isinstance(program, Program):
        raise TypeError('main_program should be an instance of Program, but received %s'
                        % type(program).__name__)
    if vars is None:
        return program, _unique_vars(program, predicate or is_persistable)
    out = []
    for v in vars:
        out.append(program.global_block()._var_recursive(v) if isinstance(v, str) else v)
    return program, out


def save_vars(executor, dirname, main_program=None, vars=None, predicate=None, filename=None) -> None:
    """fluid.io.save_vars: each variable's value from the global scope in Paddle's tensor format, one file per
    variable in `dirname`, or all of them (sorted by name) in `dirname/filename`."""
    _, variables = _vars_to_save(main_program, vars, predicate)
    scope = global_scope()
    if filename is None:
        for var in variables:
            holder = scope.find_var(var.name)
            lod = holder.get_tensor().lod() if holder is not None else ()
            _write_atomic(os.path.join(dirname, var.name), tensor_to_bytes(_value_of(var, scope), lod))
        return
    blobs = [tensor_to_bytes(_value_of(v, scope)) for v in sorted(variables, key=lambda v: v.name)]
    _write_atomic(os.path.join(dirname, filename), b''.join(blobs))


def save_params(executor, dirname, main_program=None, filename=None) -> None:
    save_vars(executor, dirname, main_program, predicate=is_parameter, filename=filename)


def save_persistables(executor, dirname, main_program=None, filename=None) -> None:
    save_vars(executor, dirname, main_program, predicate=is_persistable, filename=filename)


def load_vars(executor, dirname, main_program=None, vars=None, predicate=None, filename=None) -> None:
    """fluid.io.load_vars: the inverse of save_vars, into the global scope (shapes checked)."""
    _, variables = _vars_to_save(main_program, vars, predicate)
    scope = global_scope()
    if filename is None:
        for var in variables:
            path = os.path.join(dirname, var.name)
            if not os.path.exists(path):
                raise RuntimeError('Cannot open file %s for load op: variable %r was not saved there'
                                   % (path, var.name))
            with open(path, 'rb') as f:
                array, lod, _ = tensor_from_bytes(f.read())
            _set_value(var, array, scope, path)
            if lod:
                scope.var(var.name).get_tensor().set_lod(lod)
        return
    path = os.path.join(dirname, filename)
    with open(path, 'rb') as f:
        buf = f.read()
    pos = 0
    for var in sorted(variables, key=lambda v: v.name):
        if pos >= len(buf):
            raise RuntimeError('file %s holds fewer variables than the %d to load (ran out at %r)'
                               % (path, len(variables), var.name))
        array, _, pos = tensor_from_bytes(buf, pos)
        _set_value(var, array, scope, path)
    if pos != len(buf):
        raise RuntimeError('file %s holds more data than the %d variables loaded from it' % (path, len(variables)))


def load_params(executor, dirname, main_program=None, filename=None) -> None:
    load_vars(executor, dirname, main_program, predicate=is_parameter, filename=filename)


def load_persistables(executor, dirname, main_program=None, filename=None) -> None:
    load_vars(executor, dirname, main_program, predicate=is_persistable, filename=filename)


# --- the program description (.pdmodel) ------------------------------------------------------------------------
# Written as Paddle's ProgramDesc (paddle_proto_writer). program_to_bytes / program_from_bytes are paddle_exec's
# former format, still read for files saved by earlier versions.

_VAR_FIELDS = ('shape', 'dtype', 'type', 'persistable', 'stop_gradient', 'lod_level', 'need_check_feed', 'is_data')


def program_to_bytes(program: Program, feed_names=(), fetch_names=()) -> bytes:
    """paddle_exec's former program format: a pickle of plain dicts describing the program's blocks, variables and
    ops (and an inference model's feed and fetch names). Saving now writes Paddle's protobuf."""
    blocks = []
    for block in program.blocks:
        variables = []
        for v in block.vars.values():
            d = {'name': v.name, 'shape': list(v.shape) if v.has_shape() else None,
                 'dtype': int(v.dtype), 'type': int(v.type), 'persistable': v.persistable,
                 'stop_gradient': v.stop_gradient, 'lod_level': v.lod_level,
                 'need_check_feed': v.need_check_feed, 'is_data': v.is_data}
            if isinstance(v, Parameter):
                d['parameter'] = {'trainable': v.trainable, 'optimize_attr': dict(v.optimize_attr)}
            variables.append(d)
        ops = [{'type': op.type, 'inputs': {k: list(n) for k, n in op.inputs.items()},
                'outputs': {k: list(n) for k, n in op.outputs.items()}, 'attrs': dict(op.attrs)}
               for op in block.ops]
        blocks.append({'idx': block.idx, 'parent_idx': block.parent_idx,
                       'forward_block_idx': block.forward_block_idx, 'vars': variables, 'ops': ops})
    return pickle.dumps({'format': 'paddle_exec.program', 'version': 1, 'random_seed': program.random_seed,
                         'blocks': blocks, 'feed_names': list(feed_names), 'fetch_names': list(fetch_names)},
                        protocol=4)


def _program_desc(data: bytes) -> dict:
    try:
        desc = pickle.loads(data)
    except Exception:
        desc = None
    if not isinstance(desc, dict) or desc.get('format') != 'paddle_exec.program':
        raise ValueError('not a program description written by paddle_exec (program_from_bytes reads only '
                         'those; load_inference_model also reads the ProgramDesc protobuf of real Paddle)')
    return desc


def program_from_model_bytes(data: bytes) -> tuple[Program, list[str], list[str]]:
    """(Program, feed names, fetch names) of a `.pdmodel` / `__model__`: Paddle's ProgramDesc protobuf (written
    by Paddle or by paddle_exec) or the pickle earlier paddle_exec versions wrote."""
    if looks_like_program_desc(data):
        return program_from_protobuf(data)
    desc = _program_desc(data)
    return program_from_bytes(data), list(desc['feed_names']), list(desc['fetch_names'])


def program_from_bytes(data: bytes) -> Program:
    desc = _program_desc(data)
    program = Program()
    program.random_seed = desc['random_seed']
    program.blocks = []
    for bd in desc['blocks']:
        block = Block(program, bd['idx'], bd['parent_idx'])
        block.forward_block_idx = bd['forward_block_idx']
        for vd in bd['vars']:
            kwargs = {k: vd[k] for k in _VAR_FIELDS}
            kwargs['type'] = VarType(kwargs['type'])
            if 'parameter' in vd:
                kwargs.pop('stop_gradient')
                v = Parameter(block, vd['name'], kwargs.pop('shape'), kwargs.pop('dtype'), **vd['parameter'],
                              **kwargs)
            else:
                v = Variable(block, vd['name'], **kwargs)
            block.vars[v.name] = v
        block.ops = [Operator(block, od['type'], od['inputs'], od['outputs'], od['attrs']) for od in bd['ops']]
        program.blocks.append(block)
    program._bump()
    return program


# --- inference models -----------------------------------------------------------------------------------------

def _prune_for_inference(program: Program, feed_names: list[str], fetch_names: list[str]) -> Program:
    """The test-mode forward that computes the fetch targets from the feeds, and the variables it uses."""
    pruned = program.clone(for_test=True)
    block = pruned.global_block()
    needed, kept = set(fetch_names), []
    feeds = set(feed_names)
    for op in reversed(block.ops):
        if any(n in needed for n in op.output_arg_names):
            kept.append(op)
            needed.update(n for n in op.input_arg_names if n not in feeds)
    block.ops = kept[::-1]
    used = feeds | set(fetch_names) | {n for op in block.ops for n in op.input_arg_names + op.output_arg_names}
    block.vars = {n: v for n, v in block.vars.items() if n in used}
    for name in feed_names + fetch_names:
        if name not in block.vars:
            raise ValueError("save_inference_model: variable '%s' is not in the program" % name)
    pruned._bump()
    return pruned


def _names_of(items, what: str) -> list[str]:
    items = [items] if isinstance(items, (str, Variable)) else list(items)
    out = []
    for v in items:
        if not isinstance(v, (str, Variable)):
            raise TypeError('%s must be Variables or variable names, got %s' % (what, type(v).__name__))
        out.append(v if isinstance(v, str) else v.name)
    return out


def save_inference_model(path_prefix, feed_vars, fetch_vars, executor, main_program=None, model_filename=None,
                         params_filename=None, export_for_deployment=True, program_only=False, **kwargs) -> list:
    """Saves the forward that computes `fetch_vars` from `feed_vars`, and its persistable values. Returns the
    fetch names. Paddle 2.x: `save_inference_model(path_prefix, [x], [y], exe, program=...)`; fluid 1.8:
    `save_inference_model(dirname, ['x'], [y], exe, main_program=...)`."""
    program = kwargs.get('program', main_program) or default_main_program()
    fluid_style = isinstance(feed_vars, str) or (isinstance(feed_vars, (list, tuple)) and
                                                 all(isinstance(v, str) for v in feed_vars))
    feed_names = _names_of(feed_vars, 'feed_vars')
    fetch_names = _names_of(fetch_vars, 'fetch_vars')
    pruned = _prune_for_inference(program, feed_names, fetch_names)
    model = program_to_protobuf(pruned, feed_names, fetch_names)
    if fluid_style:
        dirname = path_prefix
        _write_atomic(os.path.join(dirname, os.path.basename(model_filename or '__model__')), model)
        if not program_only:
            save_persistables(executor, dirname, pruned,
                              os.path.basename(params_filename) if params_filename else None)
        return fetch_names
    _check_model_path(path_prefix)
    _write_atomic(path_prefix + '.pdmodel', model)
    if not program_only:
        save_persistables(executor, os.path.dirname(path_prefix) or '.', pruned,
                          os.path.basename(path_prefix) + '.pdiparams')
    return fetch_names


def load_inference_model(path_prefix, executor, model_filename=None, params_filename=None, pass_name=None,
                         **kwargs) -> list:
    """[program, feed names, fetch Variables] of a model saved by save_inference_model, its persistable values
    loaded into the global scope. A folder is read as fluid 1.8 writes it, anything else as a 2.x path prefix.
    The model file is a ProgramDesc protobuf (Paddle's or ours) or the pickle of earlier paddle_exec versions."""
    if os.path.isdir(path_prefix):
        folder, model_path = path_prefix, os.path.join(path_prefix, os.path.basename(model_filename or '__model__'))
        params = os.path.basename(params_filename) if params_filename else None
    else:
        folder = os.path.dirname(path_prefix) or '.'
        model_path = path_prefix + '.pdmodel'
        params = os.path.basename(path_prefix) + '.pdiparams'
    if not os.path.exists(model_path):
        raise ValueError("There is no model file '%s'" % model_path)
    with open(model_path, 'rb') as f:
        data = f.read()
    program, feed_names, fetch_names = program_from_model_bytes(data)
    load_persistables(executor, folder, program, params)
    block = program.global_block()
    return [program, feed_names, [block.var(n) for n in fetch_names]]
