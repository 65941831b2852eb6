"""Inference models: save_inference_model / load_inference_model, in both of Paddle's signatures.

- Paddle 2.x: `save_inference_model(path_prefix, [x], [y], exe, program=...)` writes `path_prefix.pdmodel`
  (the ProgramDesc protobuf) and `path_prefix.pdiparams` (the persistables in one LoDTensor stream).
- fluid 1.8: `save_inference_model(dirname, ['x'], [y], exe, main_program=...)` writes `dirname/__model__` and one
  file per persistable, or all of them in `dirname/params_filename`.

The saved program is the forward needed for the fetch targets from the feeds, in test mode (without the `scale` op
Paddle appends to each fetch target: the fetch names stay the targets' own), with Paddle's feed / fetch ops
(`paddle_proto_writer`). The model and its parameters are one `atomic_files.FileSet`: replaced together.
load_inference_model reads Paddle's protobuf (`paddle_proto`, written by Paddle 1.8 / 2.x or here) or the pickle
of earlier paddle_exec versions (`legacy_program`, read without running code), told apart by the first byte; the
parameter files are named after the model's variables, and a name that would leave the folder is refused.
"""
from __future__ import annotations

import os

from ..framework.program import Program, default_main_program
from ..framework.scope import global_scope
from ..framework.variable import Variable
from . import legacy_program
from .atomic_files import FileSet, recover
from .paddle_proto import looks_like_program_desc, program_from_protobuf
from .paddle_proto_writer import program_to_protobuf
from .var_files import add_var_files, is_persistable, load_persistables, unique_vars

__all__ = ['save_inference_model', 'load_inference_model', 'program_from_model_bytes']


def check_model_path(model_path: str) -> None:
    if not isinstance(model_path, str) or os.path.basename(model_path) == '':
        raise ValueError('The input model_path MUST be format of dirname/filename [dirname\\filename in Windows '
                         'system], but received model_path is %r' % (model_path,))


def program_from_model_bytes(data: bytes, source: str = 'the model') -> tuple[Program, list[str], list[str]]:
    """(Program, feed names, fetch names) of a `.pdmodel` / `__model__`: Paddle's ProgramDesc protobuf (written
    by Paddle or by paddle_exec) or the pickle earlier paddle_exec versions wrote."""
    if looks_like_program_desc(data):
        return program_from_protobuf(data, source)
    desc = legacy_program.program_desc(data, source)
    return legacy_program.program_from_bytes(data, source), list(desc['feed_names']), list(desc['fetch_names'])


def prune_for_inference(program: Program, feed_names: list[str], fetch_names: list[str]) -> Program:
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
    pruned = prune_for_inference(program, feed_names, fetch_names)
    model = program_to_protobuf(pruned, feed_names, fetch_names)
    if fluid_style:
        folder = path_prefix
        model_name = os.path.basename(model_filename or '__model__')
        params_name = os.path.basename(params_filename) if params_filename else None
    else:
        check_model_path(path_prefix)
        folder = os.path.dirname(path_prefix) or '.'
        model_name = os.path.basename(path_prefix) + '.pdmodel'
        params_name = os.path.basename(path_prefix) + '.pdiparams'
    with FileSet(folder) as files:
        files.add(model_name, model)
        if not program_only:
            add_var_files(files, unique_vars(pruned, is_persistable), global_scope(), params_name)
    return fetch_names


def load_inference_model(path_prefix, executor, model_filename=None, params_filename=None, pass_name=None,
                         **kwargs) -> list:
    """[program, feed names, fetch Variables] of a model saved by save_inference_model, its persistable values
    loaded into the global scope. A folder is read as fluid 1.8 writes it, anything else as a 2.x path prefix.
    The model file is a ProgramDesc protobuf (Paddle's or ours) or the pickle of earlier paddle_exec versions."""
    folder_model = os.path.join(path_prefix, os.path.basename(model_filename or '__model__'))
    # a folder beside `<folder>.pdmodel` (paddle.Model's inference save writes both) is read as 2.6.2 reads it
    if os.path.isdir(path_prefix) and (os.path.exists(folder_model) or not os.path.exists(path_prefix + '.pdmodel')):
        folder, model_path = path_prefix, os.path.join(path_prefix, os.path.basename(model_filename or '__model__'))
        params = os.path.basename(params_filename) if params_filename else None
    else:
        folder = os.path.dirname(path_prefix) or '.'
        model_path = path_prefix + '.pdmodel'
        params = os.path.basename(path_prefix) + '.pdiparams'
    recover(folder)
    if not os.path.exists(model_path):
        raise ValueError("There is no model file '%s'" % model_path)
    with open(model_path, 'rb') as f:
        data = f.read()
    program, feed_names, fetch_names = program_from_model_bytes(data, "'%s'" % model_path)
    load_persistables(executor, folder, program, params)
    block = program.global_block()
    return [program, feed_names, [block.var(n) for n in fetch_names]]
