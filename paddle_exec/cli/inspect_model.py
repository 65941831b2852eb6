"""`paddle-exec inspect PATH`: what a saved model holds, read from its program description alone.

Sections, in the order a reader needs them (netron's side panel, as text): the files, the feeds and fetches with
dtypes and shapes, the ops of every block in program order with their inputs, outputs and attributes, and the
parameters (persistable values) with shapes, element counts and sizes. Attributes that only steer Paddle's
own machinery (op_role, op_callstack, use_mkldnn, ...) are left out unless --all-attrs. `--json` prints the same
facts as one JSON document; `--graphviz out.dot|out.svg` draws block 0 with the project's graph writer.
"""
from __future__ import annotations

import argparse
import enum
import json

import numpy as np

from ..framework.dtype import VarType, to_numpy
from ..framework.graph_writer import GraphvizUnavailable, block_graph, write_graph
from .common import CliError, dtype_text, format_table, human_bytes, locate_model, read_program, shape_text

EXAMPLES = """examples:
  paddle-exec inspect tests/golden/models/mlp_v18
  paddle-exec inspect tests/golden/models/mlp_v26/inference.pdmodel --json
  paddle-exec inspect tests/golden/models/cnn_v18 --graphviz cnn.svg
"""

# attributes of Paddle's own machinery, not of what the op computes
MACHINERY_ATTRS = frozenset({
    'op_role', 'op_role_var', 'op_namescope', 'op_callstack', 'op_device', 'with_quant_attr', 'use_mkldnn',
    'use_quantizer', 'mkldnn_data_type', 'use_cudnn', 'workspace_size_MB', 'exhaustive_search', 'fuse_with_relu',
    'fuse_relu', 'fuse_activation', 'fuse_alpha', 'fuse_beta', 'fuse_residual_connection', 'fuse_brelu',
    'fuse_brelu_threshold', 'Scale_in', 'Scale_out', 'Scale_in_eltwise', 'Scale_weights', 'force_fp32_output',
    'use_addto', 'use_cudnn_v8', 'scale_x', 'scale_y', 'scale_out'})

_NOT_VALUES = (VarType.FEED_MINIBATCH, VarType.FETCH_LIST, VarType.READER, VarType.RAW, VarType.STEP_SCOPES)


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        'inspect', help='show the feeds, fetches, ops and parameters of a saved model',
        description='Show what a saved model holds: feeds, fetches, ops in order with their inputs and outputs, '
                    'parameters with shapes and sizes. PATH is a Paddle 1.8 model folder (__model__), a Paddle 2.x '
                    'NAME.pdmodel or its prefix, or a folder holding one.',
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('path', metavar='PATH', help='the saved model')
    p.add_argument('--model-filename', help='the model file inside PATH (default: __model__ or the one .pdmodel)')
    p.add_argument('--json', action='store_true', help='print the facts as JSON')
    p.add_argument('--all-attrs', action='store_true', help="also show attributes of Paddle's machinery "
                   '(op_role, op_callstack, use_mkldnn, ...)')
    p.add_argument('--graphviz', metavar='OUT', help='draw block 0 to OUT.dot (Graphviz text) or OUT.svg/.png/.pdf '
                   "(needs the graphviz extra and Graphviz's dot program)")
    p.set_defaults(handler=run)


def _plain(value):
    """An attribute value as JSON-friendly Python data."""
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, bytes):
        return value.decode('utf-8', 'replace')
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    idx = getattr(value, 'idx', None)          # a sub-block attribute
    return 'block %d' % idx if isinstance(idx, int) else str(value)


def _var_facts(block, name: str) -> dict:
    var = block._find_var_recursive(name)
    if var is None:
        return {'name': name, 'dtype': None, 'shape': None}
    return {'name': name, 'dtype': dtype_text(var), 'shape': list(var.shape) if var.has_shape() else None,
            'lod_level': var.lod_level}


def _parameter_facts(program) -> list:
    seen, params = set(), []
    for block in program.blocks:
        for var in block.vars.values():
            if not var.persistable or var.type in _NOT_VALUES or var.name in seen:
                continue
            seen.add(var.name)
            shape = list(var.shape) if var.has_shape() else []
            count = int(np.prod(shape)) if shape and min(shape) >= 0 else None
            try:
                itemsize = np.dtype(to_numpy(var.dtype)).itemsize
            except (TypeError, ValueError, KeyError):
                itemsize = None
            params.append({'name': var.name, 'dtype': dtype_text(var), 'shape': shape, 'size': count,
                           'bytes': count * itemsize if count is not None and itemsize else None})
    return sorted(params, key=lambda p: p['name'])


def model_facts(path: str, model_filename: str | None = None, all_attrs: bool = False) -> dict:
    """Everything inspect shows, as plain data."""
    model = locate_model(path, model_filename)
    program, feed_names, fetch_names = read_program(model)
    block0 = program.global_block()
    data_vars = not feed_names
    if data_vars:       # not an inference model: a run must feed what some op reads and no op writes
        written = {n for op in block0.ops for n in op.output_arg_names}
        feed_names = []
        for op in block0.ops:
            for name in op.input_arg_names:
                var = block0.vars.get(name)
                if name not in written and name not in feed_names and var is not None and not var.persistable:
                    feed_names.append(name)
    blocks = []
    for block in program.blocks:
        ops = []
        for j, op in enumerate(block.ops):
            attrs = {k: _plain(v) for k, v in sorted(op.attrs.items()) if all_attrs or k not in MACHINERY_ATTRS}
            ops.append({'index': j, 'type': op.type, 'inputs': {k: list(v) for k, v in sorted(op.inputs.items())},
                        'outputs': {k: list(v) for k, v in sorted(op.outputs.items())}, 'attrs': attrs})
        blocks.append({'idx': block.idx, 'parent_idx': block.parent_idx, 'ops': ops})
    return {'model': model.describe(), 'kind': model.kind, 'model_file': model.model_file,
            'feeds_inferred': data_vars,
            'feeds': [_var_facts(block0, n) for n in feed_names],
            'fetches': [_var_facts(block0, n) for n in fetch_names],
            'blocks': blocks, 'parameters': _parameter_facts(program), '_program': program}


def _slots(slots: dict) -> str:
    return ', '.join('%s=[%s]' % (k, ', '.join(v)) for k, v in slots.items())


def _attr_text(value) -> str:
    if isinstance(value, float):
        return '%g' % value
    if isinstance(value, str):
        return repr(value)
    return json.dumps(value) if isinstance(value, (list, dict)) else str(value)


def render_text(facts: dict) -> str:
    out = ['model     %s' % facts['model'], '']

    def vars_table(title, entries):
        out.append('%s (%d)' % (title, len(entries)) if '(' not in title else '%s: %d' % (title, len(entries)))
        if entries:
            rows = [(e['name'], e['dtype'] or '?', shape_text(e['shape']) if e['shape'] is not None else '?')
                    for e in entries]
            out.append(format_table(rows, ['name', 'dtype', 'shape']))
        out.append('')

    vars_table('feeds' + (' (what its ops read and none writes: not an inference model)'
                          if facts['feeds_inferred'] else ''), facts['feeds'])
    vars_table('fetches', facts['fetches'])
    for block in facts['blocks']:
        where = '' if block['idx'] == 0 else ', block %d (parent %d)' % (block['idx'], block['parent_idx'])
        out.append('ops (%d%s)' % (len(block['ops']), where))
        for op in block['ops']:
            out.append('  %3d  %s' % (op['index'], op['type']))
            out.append('         in   %s' % _slots(op['inputs']))
            out.append('         out  %s' % _slots(op['outputs']))
            if op['attrs']:
                out.append('         attr %s' % ', '.join('%s=%s' % (k, _attr_text(v)) for k, v in op['attrs'].items()))
        out.append('')
    params = facts['parameters']
    total_values = sum(p['size'] or 0 for p in params)
    total_bytes = sum(p['bytes'] or 0 for p in params)
    out.append('parameters (%d, %s values, %s)' % (len(params), format(total_values, ','), human_bytes(total_bytes)))
    if params:
        rows = [(p['name'], p['dtype'], shape_text(p['shape']),
                 format(p['size'], ',') if p['size'] is not None else '?',
                 human_bytes(p['bytes']) if p['bytes'] is not None else '?') for p in params]
        out.append(format_table(rows, ['name', 'dtype', 'shape', 'values', 'size'], 'lllrr'))
    return '\n'.join(out)


def run(args: argparse.Namespace) -> int:
    facts = model_facts(args.path, args.model_filename, args.all_attrs)
    program = facts.pop('_program')
    if args.graphviz:
        graph = block_graph(program.global_block(), feeds=[f['name'] for f in facts['feeds']],
                            fetches=[f['name'] for f in facts['fetches']], title=facts['model_file'])
        try:
            write_graph(graph, args.graphviz)
        except (GraphvizUnavailable, ValueError) as exc:
            raise CliError(str(exc)) from exc
    if args.json:
        print(json.dumps(facts, indent=2))
    else:
        print(render_text(facts))
        if args.graphviz:
            print('\ngraph written to %s' % args.graphviz)
    return 0
