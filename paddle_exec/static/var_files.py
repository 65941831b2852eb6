"""fluid.io's variable files: save_vars / save_params / save_persistables and their load_*, in Paddle's LoDTensor
stream (`tensor_file`), one file per variable in a folder, or all of them in name order in one file (`filename`).

    fluid.io.save_persistables(exe, 'ckpt', main_program)       # ckpt/fc_0.w_0, ckpt/fc_0.b_0, ...
    fluid.io.load_persistables(exe, 'ckpt', main_program)

The files of one save are one `atomic_files.FileSet`: a process killed mid-save leaves the previous checkpoint
whole. A variable name that would leave the folder (`..`, separators, absolute paths) is refused on save and on
load (`check_file_name`); the names come from the program, which for load_inference_model is read from a file.
Also here: which variables are saved (`is_parameter`, `is_persistable`, `is_belong_to_optimizer`) and reading
and writing values of the global scope, shared with static.save / static.load.
"""
from __future__ import annotations

import os

import numpy as np

from ..framework.dtype import VarType
from ..framework.program import Program, default_main_program
from ..framework.scope import global_scope
from ..framework.variable import Parameter, Variable
from .atomic_files import FileSet, check_file_name, path_inside, recover
from .safe_pickle import CorruptFileError
from .tensor_file import read_tensor, tensor_chunks

__all__ = ['save_vars', 'save_params', 'save_persistables', 'load_vars', 'load_params', 'load_persistables',
           'is_parameter', 'is_persistable', 'is_belong_to_optimizer']

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


def unique_vars(program: Program, predicate) -> list[Variable]:
    seen, out = set(), []
    for var in program.list_vars():
        if predicate(var) and var.name not in seen:
            seen.add(var.name)
            out.append(var)
    return out


# --- scope access ---------------------------------------------------------------------------------------------

def _holder_of(var: Variable, scope):
    holder = scope.find_var(var.name)
    if holder is None or holder.tensor.value is None:
        raise ValueError("Variable '%s' has no value in the scope: run the startup program (or load the variables) "
                         "before saving" % var.name)
    return holder


def array_of(var: Variable, scope) -> np.ndarray:
    """`var`'s value in `scope`, without a copy when it is a plain array (only read, to write it out)."""
    tensor = _holder_of(var, scope).get_tensor()
    return tensor.value if isinstance(tensor.value, np.ndarray) else np.array(tensor)


def set_value(var: Variable, value, scope, source: str) -> None:
    """Sets `var` in `scope` to `value` (a copy) after checking its shape. A 0-d value for a [1] variable and the
    reverse are the same number: Paddle 2.x keeps learning rates and counters 0-d, 1.x and paddle_exec [1]."""
    value = np.asarray(value)
    want = tuple(var.shape)
    if {value.shape, want} == {(), (1,)}:
        value = value.reshape(want)
    if len(want) != value.ndim or any(w >= 0 and w != s for w, s in zip(want, value.shape)):
        raise ValueError("Variable '%s' receives a shape %s from %s, but the expected shape is %s"
                         % (var.name, list(value.shape), source, list(want)))
    scope.var(var.name).get_tensor().set(value)


# --- writing ------------------------------------------------------------------------------------------------

def _vars_to_save(main_program, vars, predicate) -> tuple[Program, list[Variable]]:
    program = default_main_program() if main_program is None else main_program
    if not isinstance(program, Program):
        raise TypeError('main_program should be an instance of Program, but received %s'
                        % type(program).__name__)
    if vars is None:
        return program, unique_vars(program, predicate or is_persistable)
    out = []
    for v in vars:
        out.append(program.global_block()._var_recursive(v) if isinstance(v, str) else v)
    return program, out


def add_var_files(files: FileSet, variables: list[Variable], scope, filename: str | None = None) -> None:
    """Writes the variables' values into `files`: one file per variable, or all of them (sorted by name) in
    `filename`."""
    if filename is None:
        for var in variables:
            check_file_name(var.name)
            holder = scope.find_var(var.name)
            lod = holder.get_tensor().lod() if holder is not None else ()
            files.add(var.name, tensor_chunks(array_of(var, scope), lod, var.name))
        return
    chunks = []
    for var in sorted(variables, key=lambda v: v.name):
        chunks += tensor_chunks(array_of(var, scope), (), var.name)
    files.add(filename, chunks)


def _split(dirname: str, filename: str | None) -> tuple[str, str | None]:
    """(folder, file name) of a combined file given as `dirname` / `filename`, which may hold a sub-folder."""
    if filename is None:
        return dirname, None
    path = os.path.join(dirname, filename)
    return os.path.dirname(path) or '.', os.path.basename(path)


def save_vars(executor, dirname, main_program=None, vars=None, predicate=None, filename=None) -> None:
    """fluid.io.save_vars: each variable's value from the global scope in Paddle's tensor format, one file per
    variable in `dirname`, or all of them (sorted by name) in `dirname/filename`; the files replace the previous
    ones together."""
    _, variables = _vars_to_save(main_program, vars, predicate)
    folder, name = _split(dirname, filename)
    with FileSet(folder) as files:
        add_var_files(files, variables, global_scope(), name)


def save_params(executor, dirname, main_program=None, filename=None) -> None:
    save_vars(executor, dirname, main_program, predicate=is_parameter, filename=filename)


def save_persistables(executor, dirname, main_program=None, filename=None) -> None:
    save_vars(executor, dirname, main_program, predicate=is_persistable, filename=filename)


# --- reading ------------------------------------------------------------------------------------------------

def _read(path: str) -> bytes:
    with open(path, 'rb') as f:
        return f.read()


def load_vars(executor, dirname, main_program=None, vars=None, predicate=None, filename=None) -> None:
    """fluid.io.load_vars: the inverse of save_vars, into the global scope (shapes checked)."""
    _, variables = _vars_to_save(main_program, vars, predicate)
    scope = global_scope()
    folder, name = _split(dirname, filename)
    recover(folder)
    if name is None:
        for var in variables:
            path = path_inside(folder, var.name)
            if not os.path.exists(path):
                raise RuntimeError('Cannot open file %s for load op: variable %r was not saved there'
                                   % (path, var.name))
            buf = _read(path)
            array, lod, end = read_tensor(buf, 0, "'%s'" % path, var.name)
            if end != len(buf):
                raise CorruptFileError("'%s' (variable '%s') holds %d bytes after its tensor, which Paddle's files "
                                       "never do" % (path, var.name, len(buf) - end))
            set_value(var, array, scope, path)
            if lod:
                scope.var(var.name).get_tensor().set_lod(lod)
        return
    path = os.path.join(folder, name)
    if not variables and not os.path.exists(path):
        return          # Paddle writes no params file for a model without persistables (and reads none)
    buf = _read(path)
    pos = 0
    ordered = sorted(variables, key=lambda v: v.name)
    for i, var in enumerate(ordered):
        if pos >= len(buf):
            raise CorruptFileError("'%s' holds fewer variables than the %d to load: it ends after %d bytes, before "
                                   "variable '%s' (number %d in name order)" % (path, len(ordered), len(buf),
                                                                                 var.name, i + 1))
        array, _, pos = read_tensor(buf, pos, "'%s'" % path, var.name)
        set_value(var, array, scope, path)
    if pos != len(buf):
        raise CorruptFileError("'%s' holds %d more bytes than the %d variables loaded from it"
                               % (path, len(buf) - pos, len(ordered)))


def load_params(executor, dirname, main_program=None, filename=None) -> None:
    load_vars(executor, dirname, main_program, predicate=is_parameter, filename=filename)


def load_persistables(executor, dirname, main_program=None, filename=None) -> None:
    load_vars(executor, dirname, main_program, predicate=is_persistable, filename=filename)
