"""Saving and loading a program's state: paddle.static.save / load (also fluid.save / load), load_program_state /
set_program_state, and the `static.io` / `fluid.io` namespace of the modules that own the other formats.

    static.save(main_program, 'ckpt/model')      # ckpt/model.pdparams, .pdopt, .pdmodel
    static.load(main_program, 'ckpt/model', exe)

Formats are Paddle's, so checkpoints move both ways between paddle_exec and real Paddle:
- `.pdparams`: a pickled dict {name: ndarray} of the program's Parameters; `.pdopt`: the same for the other
  persistable variables (optimizer moments, learning rates, counters), data variables excepted
  (`pickled_state`, read through `safe_pickle`: no code from the file runs).
- `.pdmodel`: Paddle's ProgramDesc protobuf (`paddle_proto_writer`).
- fluid.io's save_vars / save_params / save_persistables and load_*: Paddle's LoDTensor stream, a file per
  variable or one combined file (`var_files`, `tensor_file`).
- inference models (`inference_model`), and paddle.save / paddle.load (`pickled_state`).
The three files of static.save are one `atomic_files.FileSet`: a process killed mid-save leaves the previous
checkpoint whole, and every load first finishes or discards what a killed save left (`atomic_files.recover`).
docs/files.md states these guarantees.
"""
from __future__ import annotations

import os

from ..framework.program import Program
from ..framework.scope import global_scope
from .atomic_files import FileSet
from .inference_model import check_model_path, load_inference_model, program_from_model_bytes, save_inference_model
from .paddle_proto_writer import program_to_protobuf
from .pickled_state import read_state
from .safe_pickle import CorruptFileError, UnsafePickleError, dump_portable
from .var_files import (
    array_of,
    get_program_parameter,
    get_program_persistable_vars,
    is_belong_to_optimizer,
    is_parameter,
    is_persistable,
    load_params,
    load_persistables,
    load_vars,
    save_params,
    save_persistables,
    save_vars,
    set_value,
    unique_vars,
)

__all__ = ['save', 'load', 'load_program_state', 'set_program_state', 'save_vars', 'save_params',
           'save_persistables', 'load_vars', 'load_params', 'load_persistables', 'is_parameter', 'is_persistable',
           'is_belong_to_optimizer', 'save_inference_model', 'load_inference_model', 'program_from_model_bytes',
           'UnsafePickleError', 'CorruptFileError', 'get_program_parameter', 'get_program_persistable_vars']


def save(program: Program, model_path: str, protocol: int = 4, **configs) -> None:
    """Writes the program's parameters (`model_path.pdparams`), its other persistable variables
    (`model_path.pdopt`) and its description (`model_path.pdmodel`), reading the values from the global scope.
    The three files replace an earlier checkpoint of the same path together."""
    if not isinstance(program, Program):
        raise TypeError("The type of 'program' in save must be Program, but received %s" % type(program).__name__)
    check_model_path(model_path)
    protocol = configs.get('pickle_protocol', protocol)
    if not isinstance(protocol, int) or not 2 <= protocol <= 4:
        raise ValueError('Expected 1<protocol<5, but received protocol=%r' % (protocol,))
    scope = configs.get('scope') or global_scope()
    model = program_to_protobuf(program)     # first: a program that cannot be written leaves no files behind
    # the scope's own arrays (no copies: the pickles stream straight into the new files)
    params = {v.name: array_of(v, scope) for v in unique_vars(program, is_parameter)}
    opt = {v.name: array_of(v, scope) for v in unique_vars(program, is_belong_to_optimizer)}
    name = os.path.basename(model_path)
    with FileSet(os.path.dirname(model_path) or '.') as files:
        files.add(name + '.pdparams', lambda f: dump_portable(params, f, protocol))
        files.add(name + '.pdopt', lambda f: dump_portable(opt, f, protocol))
        files.add(name + '.pdmodel', model)


def _model_prefix(model_path: str) -> str:
    for suffix in ('.pdparams', '.pdopt', '.pdmodel'):
        if model_path.endswith(suffix):
            return model_path[:-len(suffix)]
    return model_path


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
            load_vars(executor, model_path, program, vars=[v for v in unique_vars(program, is_persistable)
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
    state = read_state(param_file)
    for var in unique_vars(program, is_parameter):
        if var.name not in state:
            raise ValueError('Can not find [%s] in model file [%s]' % (var.name, param_file))
        set_value(var, state[var.name], scope, param_file)
    opt_vars = unique_vars(program, is_belong_to_optimizer)
    if opt_vars:
        opt_file = prefix + '.pdopt'
        if not os.path.exists(opt_file):
            raise ValueError('Optimizer file [%s] not exits' % opt_file)
        state = read_state(opt_file)
        for var in opt_vars:
            if var.name not in state:
                raise ValueError('Can not find [%s] in model file [%s]' % (var.name, opt_file))
            set_value(var, state[var.name], scope, opt_file)


def load_program_state(model_path: str, var_list=None) -> dict:
    """{name: ndarray} of everything `save` wrote under `model_path` (.pdparams and, when present, .pdopt)."""
    prefix = _model_prefix(model_path)
    param_file = prefix + '.pdparams'
    if not os.path.exists(param_file):
        raise ValueError("Parameter file [%s] not exits" % param_file)
    state = dict(read_state(param_file))
    if os.path.exists(prefix + '.pdopt'):
        state.update(read_state(prefix + '.pdopt'))
    return state


def set_program_state(program: Program, state_dict: dict) -> list[str]:
    """Sets the program's persistable variables found in `state_dict`; returns the names it did not find."""
    scope = global_scope()
    missing = []
    for var in unique_vars(program, is_persistable):
        if var.name in state_dict:
            set_value(var, state_dict[var.name], scope, 'the state dict')
        else:
            missing.append(var.name)
    return missing
