"""paddle.distributed.save_state_dict / load_state_dict: a checkpoint written by every trainer of the job at once,
each trainer writing its share of the values to a file of its own, and read back by any number of trainers.

    state = {'fc.w': fc_w_variable, 'step': np.array([7])}     # Variables (their values in the global scope) or arrays
    dist.save_state_dict(state, 'ckpt')                         # ckpt/<rank>_0.distcp on each trainer, ckpt/0.metadata
    dist.load_state_dict(state, 'ckpt')                         # the values back, in place

Paddle 2.6.2's layout: `<rank>_<n>.distcp` (the values a trainer wrote) and `<n>.metadata` (written by
`coordinator_rank`: for every key its pieces, as (global offset, local shape), and the file holding each piece), n
the first number not yet used in the folder. Paddle keeps its dygraph dist-tensors' shards there; in a static data
parallel job every trainer holds the whole of every value, so each value is one piece and is written by one
trainer only (the keys, sorted, are dealt to the trainers in turn): the checkpoint is spread over the trainers'
files and costs each trainer 1/N of the writing. The files are pickles of numpy arrays (Paddle's are paddle.save
pickles of its tensors: not interchangeable). Every trainer must see the folder (one machine or a shared file
system). Loading reads, for each key of `state_dict`, the file that holds it, checks the shape and writes the value
into the state_dict's array or the Variable's scope value (a missing key is an error, as in Paddle).
"""
from __future__ import annotations

import os
import pickle
import re

import numpy as np

from ..framework.collective import get_group
from ..framework.scope import global_scope
from ..framework.variable import Variable
from .group import Group

__all__ = ['save_state_dict', 'load_state_dict']


def _flatten(state_dict: dict, prefix: str = '') -> dict:
    """Nested dicts as one level of dotted keys (Paddle's flatten_state_dict)."""
    flat = {}
    for key, value in state_dict.items():
        if isinstance(value, dict):
            flat.update(_flatten(value, prefix + str(key) + '.'))
        else:
            flat[prefix + str(key)] = value
    return flat


def _value_of(key: str, value) -> np.ndarray | None:
    if isinstance(value, Variable):
        var = global_scope().find_var(value.name)
        if var is None or not isinstance(var.value, np.ndarray):
            return None                 # not initialised: skipped, as Paddle skips uninitialised tensors
        return var.value
    if isinstance(value, np.ndarray):
        return value
    raise TypeError('save_state_dict: the value of %r must be a Variable of the program or a numpy array, got %s'
                    % (key, type(value).__name__))


def _process_group(process_group):
    """(rank, nranks, group) of the trainers taking part; `process_group` a paddle.distributed Group or None."""
    if process_group is None:
        group = get_group(0)
    elif isinstance(process_group, Group):
        if not process_group.is_member():
            raise ValueError('save_state_dict / load_state_dict: this trainer is not in the process_group')
        group = process_group.process_group
    else:
        raise TypeError('process_group must be a paddle.distributed Group or None, got %s'
                        % type(process_group).__name__)
    return group.rank, group.nranks, group


def _write(path: str, obj) -> None:
    """The file appears whole or not at all (written aside, then renamed): trainers write into one folder at once."""
    tmp = '%s.tmp%d' % (path, os.getpid())
    with open(tmp, 'wb') as f:
        pickle.dump(obj, f, protocol=4)
    os.replace(tmp, path)


def save_state_dict(state_dict: dict, path: str, process_group=None, coordinator_rank: int = 0) -> None:
    """Writes `state_dict` to the folder `path`, each trainer its share (see the module docstring)."""
    if not isinstance(state_dict, dict):
        raise AssertionError('The state_dict should be a dictionary.')
    rank, nranks, group = _process_group(process_group)
    values = {k: v for k, v in ((k, _value_of(k, v)) for k, v in _flatten(state_dict).items()) if v is not None}
    os.makedirs(path, exist_ok=True)
    keys = sorted(values)
    if nranks > 1:
        everyone = group.allgather_object(keys)
        if any(theirs != keys for theirs in everyone):
            raise ValueError('save_state_dict: the trainers hold different keys (trainer 0: %s); every trainer must '
                             'save the same state_dict' % everyone[0][:5])
    unique_id = 0
    while os.path.exists(os.path.join(path, '%d_%d.distcp' % (rank, unique_id))):
        unique_id += 1
    if nranks > 1:
        unique_id = max(group.allgather_object(unique_id))     # one number for the whole checkpoint
    writer = {key: k % nranks for k, key in enumerate(keys)}
    mine = {key: np.ascontiguousarray(values[key]) for key in keys if writer[key] == rank}
    _write(os.path.join(path, '%d_%d.distcp' % (rank, unique_id)), mine)
    if rank == coordinator_rank:
        metadata = {'state_dict_metadata': {k: [((0,) * values[k].ndim, tuple(values[k].shape))] for k in keys},
                    'storage_metadata': {(k, (0,) * values[k].ndim): '%d_%d.distcp' % (writer[k], unique_id)
                                         for k in keys}}
        _write(os.path.join(path, '%d.metadata' % unique_id), metadata)
    if nranks > 1:
        group.barrier()                 # the checkpoint is whole when save_state_dict returns on any trainer


def load_state_dict(state_dict: dict, path: str, process_group=None, coordinator_rank: int = 0) -> None:
    """Fills `state_dict`'s arrays and Variables with the values saved in `path` (see the module docstring)."""
    if not isinstance(state_dict, dict):
        raise AssertionError('The state_dict should be a dictionary.')
    names = sorted(f for f in os.listdir(path) if re.fullmatch(r'\d+\.metadata', f)) if os.path.isdir(path) else []
    if not names:
        raise AssertionError('No metadata file found in the checkpoint directory:%s.' % path)
    pieces: dict = {}
    for name in names:
        with open(os.path.join(path, name), 'rb') as f:
            metadata = pickle.load(f)
        for (key, offset), file_name in metadata['storage_metadata'].items():
            pieces[key] = (file_name, metadata['state_dict_metadata'][key][0][1])
    files: dict = {}
    for key, target in _flatten(state_dict).items():
        if key not in pieces:
            raise AssertionError('The key %r of the state_dict is not in the checkpoint %s (it holds %s)'
                                 % (key, path, ', '.join(sorted(pieces)[:8])))
        file_name, shape = pieces[key]
        if file_name not in files:
            with open(os.path.join(path, file_name), 'rb') as f:
                files[file_name] = pickle.load(f)
        value = files[file_name][key]
        _assign(key, target, value, shape)
    _write_back(state_dict, _flatten(state_dict), files, pieces)


def _assign(key: str, target, value: np.ndarray, shape) -> None:
    if isinstance(target, Variable):
        want = target.shape
        if want is not None and (len(want) != len(shape) or any(w >= 0 and w != d for w, d in zip(want, shape))):
            raise ValueError('load_state_dict: %r has shape %s in the checkpoint but the Variable %s has %s'
                             % (key, list(shape), target.name, list(want)))
        global_scope().var(target.name).set_value(np.array(value, copy=True))
        return
    if isinstance(target, np.ndarray):
        if target.shape != tuple(shape):
            raise ValueError('load_state_dict: %r has shape %s in the checkpoint but the array has %s'
                             % (key, list(shape), list(target.shape)))
        np.copyto(target, value)


def _write_back(state_dict: dict, flat: dict, files: dict, pieces: dict, prefix: str = '') -> None:
    """Entries that are neither arrays nor Variables (e.g. None placeholders) take the loaded array."""
    for key in list(state_dict):
        value = state_dict[key]
        if isinstance(value, dict):
            _write_back(value, flat, files, pieces, prefix + str(key) + '.')
        elif not isinstance(value, (np.ndarray, Variable)):
            full = prefix + str(key)
            state_dict[key] = files[pieces[full][0]][full].copy()
