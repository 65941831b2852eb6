"""paddle_exec's former program format, still read for `__model__` / `.pdmodel` files of earlier versions.

Before the ProgramDesc writer (`paddle_proto_writer`), paddle_exec saved a program as a pickle of plain dicts:
blocks, variables (shape, dtype, type, flags, a Parameter's trainable and optimize_attr), ops (type, slots,
attributes), and an inference model's feed and fetch names. Such a file is read through `safe_pickle`, which
allows here one more global than in a checkpoint: `VarType`, the enum attribute values were pickled as (building
one calls `VarType(number)`, nothing else). `program_to_bytes` still writes the format, for the tests that check
that such files load.
"""
from __future__ import annotations

import pickle

from ..framework.dtype import VarType
from ..framework.operator import Operator
from ..framework.program import Block, Program
from ..framework.variable import Parameter, Variable
from .safe_pickle import CorruptFileError, UnsafePickleError, loads

__all__ = []   # internal: used by static.inference_model

_VAR_FIELDS = ('shape', 'dtype', 'type', 'persistable', 'stop_gradient', 'lod_level', 'need_check_feed', 'is_data')
_PROGRAM_GLOBALS = {('paddle_exec.framework.dtype', 'VarType'): VarType}


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


def program_desc(data: bytes, source: str = 'the program description') -> dict:
    """The dict of a file in the former format; UnsafePickleError for a pickle naming other globals."""
    try:
        desc = loads(data, source, _PROGRAM_GLOBALS)
    except UnsafePickleError:
        raise
    except CorruptFileError:
        desc = None
    if not isinstance(desc, dict) or desc.get('format') != 'paddle_exec.program':
        raise ValueError('%s is not a program description written by paddle_exec (program_from_bytes reads only '
                         'those; load_inference_model also reads the ProgramDesc protobuf of real Paddle)' % source)
    return desc


def program_from_bytes(data: bytes, source: str = 'the program description') -> Program:
    desc = program_desc(data, source)
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
