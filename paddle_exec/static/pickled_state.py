"""Pickled state dicts: the `.pdparams` / `.pdopt` of static.save and fluid.save, and `paddle.save` /
`paddle.load`.

    paddle.save(layer.state_dict(), 'model.pdparams')        # values read from the global scope
    state = paddle.load('model.pdparams')                     # {name: ndarray}
    layer.set_state_dict(state)

Formats, as Paddle 1.8 / 2.x write them (so files move both ways):
- a state dict is a pickle of {name: ndarray}; Paddle 2.x's paddle.save of a Layer's state dict adds
  `StructuredToParameterName@@` ({attribute path: parameter name}), which paddle.load drops unless
  `keep_name_table=True`; paddle_exec writes it when the values were Variables (a Layer's state_dict()).
- with pickle protocol 2 or 3, an array over 2**30 bytes is split into `name@@.0`, `name@@.1`, ... with
  `UnpackBigParamInfor@@` telling how to join them (Paddle's _unpack_saved_dict); every load joins them again.
- Paddle 2.x pickles a Tensor met outside a state dict as the tuple (name, ndarray): loaded as the ndarray.
- `paddle.save(program, path)` writes the ProgramDesc protobuf; `use_binary_format=True` writes one tensor in
  the LoDTensor stream. paddle.load reads all three, and returns ndarrays where Paddle returns Tensors
  (paddle_exec runs static graphs only).

Reading goes through `safe_pickle` (no code from the file runs); writing through `atomic_files` (a file is
whole or absent). `read_state` is the one reader of state pickles for static.load, load_program_state and
paddle.load.
"""
from __future__ import annotations

import io
import math
import os

import numpy as np

from ..framework.program import Program
from ..framework.scope import LoDTensor, global_scope
from ..framework.variable import Variable
from .atomic_files import recover, write_file
from .paddle_proto import looks_like_program_desc, program_from_protobuf
from .paddle_proto_writer import program_to_protobuf
from .safe_pickle import CorruptFileError, dump_portable, load_pickle, loads
from .tensor_file import read_tensor, tensor_chunks

__all__ = ['save', 'load']

NAME_TABLE = 'StructuredToParameterName@@'
UNPACK_INFO = 'UnpackBigParamInfor@@'
_PICKLE_START = 0x80        # the PROTO opcode that begins every pickle of protocol 2 or later


# --- reading ---------------------------------------------------------------------------------------------------

def join_big_params(state: dict) -> dict:
    """Joins the slices of arrays Paddle split for pickle protocols 2 and 3 (its _pack_loaded_dict)."""
    info = state.get(UNPACK_INFO) if isinstance(state, dict) else None
    if not isinstance(info, dict):
        return state
    for key, spec in info.items():
        slices = [state.pop(part) for part in spec['slices']]
        state[key] = np.concatenate(slices).reshape(spec['OriginShape'])
    del state[UNPACK_INFO]
    return state


def read_state(path: str) -> dict:
    """The state dict pickled in `path` ({name: ndarray}), read without running code from the file."""
    recover(os.path.dirname(path) or '.')
    state = load_pickle(path)
    if not isinstance(state, dict):
        raise ValueError("'%s' holds a %s, not a state dict {name: array}" % (path, type(state).__name__))
    return join_big_params(state)


def _tuples_to_arrays(obj):
    """Paddle 2.x's (name, ndarray) tuples of Tensors, as ndarrays, in nested dicts, lists and tuples."""
    if isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[0], str) and isinstance(obj[1], np.ndarray):
        return obj[1]
    if isinstance(obj, dict):
        for key in list(obj):
            obj[key] = _tuples_to_arrays(obj[key])
        return obj
    if type(obj) in (list, tuple):
        return type(obj)(_tuples_to_arrays(v) for v in obj)
    return obj


def load(path, **configs):
    """paddle.load: the object `paddle.save` (here or in Paddle) wrote to `path` (a file or a BytesIO), with
    ndarrays for Tensors; a ProgramDesc file gives a Program, a LoDTensor file an ndarray."""
    keep_name_table = bool(configs.get('keep_name_table', False))
    if isinstance(path, io.BytesIO):
        data, source = path.getvalue(), 'the buffer'
    elif isinstance(path, str) and os.path.isfile(path):
        recover(os.path.dirname(path) or '.')
        with open(path, 'rb') as f:
            data = f.read()
        source = "'%s'" % path
    elif isinstance(path, str) and os.path.isdir(path):
        raise ValueError('paddle.load reads files; %r is a folder (an inference model or save_persistables folder '
                         'loads with paddle.static.load_inference_model / fluid.io.load_persistables)' % path)
    else:
        raise ValueError("The ``path`` (%r) to load model not exists." % (path,))
    if data[:1] == bytes([_PICKLE_START]):
        obj = loads(data, source)
        if isinstance(obj, dict):
            obj = join_big_params(obj)
            if not keep_name_table:
                obj.pop(NAME_TABLE, None)
        return _tuples_to_arrays(obj)
    try:
        array, _, end = read_tensor(data, 0, source)
        if end == len(data):
            return array
    except CorruptFileError:
        pass
    if looks_like_program_desc(data):
        program, _, _ = program_from_protobuf(data, source)
        return program
    raise ValueError('`paddle.load` can not parse the file:%s.' % source)


# --- writing ---------------------------------------------------------------------------------------------------

def _plain(value, scope, names: dict, key):
    """A state value as an ndarray (Variables read from `scope`, their names noted in `names`), recursively."""
    if isinstance(value, Variable):
        holder = scope.find_var(value.name)
        if holder is None or holder.tensor.value is None:
            raise ValueError("Variable '%s' has no value in the scope: run the startup program (or load the "
                             "variables) before saving" % value.name)
        names[key] = value.name
        return np.array(holder.get_tensor())
    if isinstance(value, LoDTensor):
        return np.array(value)
    if isinstance(value, dict):
        return type(value)((k, _plain(v, scope, {}, k)) for k, v in value.items())
    if type(value) in (list, tuple):
        return type(value)(_plain(v, scope, {}, None) for v in value)
    return value


def _split_big_params(state: dict, protocol: int) -> dict:
    """Paddle's _unpack_saved_dict: protocols 2 and 3 cannot pickle an object over 4 GB."""
    if protocol >= 4:
        return state
    info = {}
    for key, value in list(state.items()):
        if not isinstance(value, np.ndarray):
            continue
        limit = int((2 ** 30 - 1) / value.dtype.itemsize)
        if value.size <= limit:
            continue
        flat = value.reshape(-1)
        parts = ['%s@@.%d' % (key, i) for i in range(int(math.ceil(value.size / limit)))]
        info[key] = {'OriginShape': value.shape, 'slices': parts}
        del state[key]
        for i, part in enumerate(parts):
            state[part] = flat[i * limit:(i + 1) * limit]
    if info:
        state[UNPACK_INFO] = info
    return state


def _check_path(path) -> None:
    if isinstance(path, io.BytesIO):
        return
    if not isinstance(path, str):
        raise ValueError('The input path MUST be a file path or a BytesIO, but received %r' % (path,))
    if os.path.basename(path) == '':
        raise ValueError('The input path MUST be format of dirname/filename [dirname\\filename in Windows system], '
                         'but received filename is empty string.')


def save(obj, path, protocol: int = 4, **configs) -> None:
    """paddle.save: a state dict (values ndarrays, LoDTensors or Variables, read from the global scope), a
    Program, or any nest of dicts, lists and arrays, to the file `path` (written whole) or a BytesIO."""
    protocol = configs.get('pickle_protocol', protocol)
    if not isinstance(protocol, int):
        raise ValueError("The 'protocol' MUST be `int`, but received %s" % type(protocol))
    if protocol < 2 or protocol > 4:
        raise ValueError("Expected 1<'protocol'<5, but received protocol=%s" % protocol)
    _check_path(path)
    scope = configs.get('scope') or global_scope()
    if isinstance(obj, Program):
        data = [program_to_protobuf(obj)]
    elif configs.get('use_binary_format', False):
        value = _plain(obj, scope, {}, None)
        if not isinstance(value, np.ndarray):
            raise NotImplementedError("Don't support saving %s with use_binary_format=True: only a Tensor, "
                                      "LoDTensor or ndarray" % type(obj).__name__)
        data = tensor_chunks(value)
    else:
        names = {}
        if isinstance(obj, dict):
            plain = type(obj)((k, _plain(v, scope, names, k)) for k, v in obj.items())
            if names:
                plain[NAME_TABLE] = names
            plain = _split_big_params(plain, protocol)
        else:
            plain = _plain(obj, scope, {}, None)
        data = lambda f: dump_portable(plain, f, protocol)     # noqa: E731 - streamed into the new file
    if isinstance(path, io.BytesIO):
        if callable(data):
            data(path)
        else:
            for chunk in data:
                path.write(chunk)
        return
    write_file(path, data)
