"""paddle.static's in-memory model format: normalize_program, serialize_program / deserialize_program,
serialize_persistables / deserialize_persistables, save_to_file / load_from_file (Paddle 2.x).

    program_bytes = static.serialize_program([x], [y])            # a ProgramDesc protobuf, as a .pdmodel holds
    params_bytes = static.serialize_persistables([x], [y], exe)   # the persistables combined, as a .pdiparams
    static.save_to_file('m.pdmodel', program_bytes)
    program = static.deserialize_program(static.load_from_file('m.pdmodel'))
    static.deserialize_persistables(program, params_bytes, exe)   # into the global scope

The bytes are those save_inference_model writes (static/io.py): the normalized program is the test-mode forward
from the feeds to the fetch targets, the persistables are Paddle's LoDTensor streams in name order, so they load
in real Paddle and Paddle's load here.
"""
from __future__ import annotations

import os
import warnings

from ..framework.program import Program, default_main_program
from ..framework.scope import global_scope
from ..framework.variable import Parameter, Variable
from .atomic_files import write_file
from .inference_model import program_from_model_bytes
from .inference_model import prune_for_inference as _prune_for_inference
from .paddle_proto_writer import program_to_protobuf
from .tensor_file import tensor_from_bytes, tensor_to_bytes
from .var_files import array_of as _value_of
from .var_files import is_persistable
from .var_files import set_value as _set_value

__all__ = ['normalize_program', 'serialize_program', 'serialize_persistables', 'deserialize_program',
           'deserialize_persistables', 'save_to_file', 'load_from_file']


def _as_var_list(value, what: str) -> list[Variable]:
    values = value if isinstance(value, list) else [value]
    if not all(isinstance(v, Variable) for v in values):
        raise TypeError('%s type must be a Variable or a list of Variable.' % what)
    return values


def _program_of(kwargs) -> Program:
    program = kwargs.get('program')
    if program is None:
        return default_main_program()
    if not isinstance(program, Program):
        raise TypeError("program type must be `base.Program`, but received `%s`" % type(program))
    return program


def normalize_program(program: Program, feed_vars, fetch_vars, **kwargs) -> Program:
    """The test-mode forward of `program` that computes fetch_vars from feed_vars (a new Program; `program` is
    left as it is)."""
    if not isinstance(program, Program):
        raise TypeError("program type must be `base.Program`, but received `%s`" % type(program))
    feed_vars = _as_var_list(feed_vars, 'feed_vars')
    fetch_vars = _as_var_list(fetch_vars, 'fetch_vars')
    if any(op.type == 'auc' for op in program.global_block().ops):
        warnings.warn('Be sure that you have set auc states to 0 before saving inference model.')
    normalized = _prune_for_inference(program, [v.name for v in feed_vars], [v.name for v in fetch_vars])
    normalized._inference_feed_names = [v.name for v in feed_vars]
    normalized._inference_fetch_names = [v.name for v in fetch_vars]
    return normalized


def serialize_program(feed_vars, fetch_vars, **kwargs) -> bytes:
    """The normalized program (kwargs 'program', default the main program) as ProgramDesc protobuf bytes."""
    feed_vars = _as_var_list(feed_vars, 'feed_vars')
    fetch_vars = _as_var_list(fetch_vars, 'fetch_vars')
    program = normalize_program(_program_of(kwargs), feed_vars, fetch_vars)
    return program_to_protobuf(program, [v.name for v in feed_vars], [v.name for v in fetch_vars])


def _persistables(program: Program) -> list[Variable]:
    seen = {}
    for block in program.blocks:
        for var in block.vars.values():
            if is_persistable(var) and var.name not in seen:
                seen[var.name] = var
    return [seen[n] for n in sorted(seen)]


def serialize_persistables(feed_vars, fetch_vars, executor, **kwargs) -> bytes | None:
    """The values of the normalized program's persistables (from the global scope), combined in name order as a
    .pdiparams file holds them. None, with a warning, when there are none."""
    feed_vars = _as_var_list(feed_vars, 'feed_vars')
    fetch_vars = _as_var_list(fetch_vars, 'fetch_vars')
    program = normalize_program(_program_of(kwargs), feed_vars, fetch_vars)
    variables = _persistables(program)
    if not variables:
        warnings.warn('no variable in your model, please ensure there are any variables in your model to save')
        return None
    scope = global_scope()
    return b''.join(tensor_to_bytes(_value_of(v, scope)) for v in variables)


def deserialize_program(data: bytes) -> Program:
    """The Program of serialize_program's bytes (or of a .pdmodel / __model__ file's content)."""
    program, feed_names, fetch_names = program_from_model_bytes(data)
    program._inference_feed_names, program._inference_fetch_names = feed_names, fetch_names
    return program


def deserialize_persistables(program: Program, data: bytes, executor) -> None:
    """Loads serialize_persistables' bytes into the global scope, checking each shape against `program`."""
    if not isinstance(program, Program):
        raise TypeError("program type must be `base.Program`, but received `%s`" % type(program))
    variables = _persistables(program)
    if data is None:
        if any(isinstance(v, Parameter) for v in variables):
            raise AssertionError("Required 'data' shall be not None if program contains parameter, but received "
                                 "'data' is None.")
        return
    scope, pos = global_scope(), 0
    for var in variables:
        if pos >= len(data):
            raise RuntimeError("deserialize_persistables: the data ends before variable '%s'" % var.name)
        array, _, pos = tensor_from_bytes(data, pos)
        _set_value(var, array, scope, 'the serialized persistables')
    if pos != len(data):
        raise RuntimeError('deserialize_persistables: %d bytes are left after the last of %d variables'
                           % (len(data) - pos, len(variables)))


def save_to_file(path: str, content: bytes) -> None:
    """Writes bytes to `path`, whole or not at all (atomic_files.write_file: a temporary renamed into place)."""
    if not isinstance(content, bytes):
        raise ValueError("'content' type should be bytes.")
    write_file(path, content)


def load_from_file(path: str) -> bytes:
    """The bytes of the file at `path`."""
    if not os.path.isfile(path):
        raise ValueError("The file '%s' does not exist" % path)
    with open(path, 'rb') as f:
        return f.read()
