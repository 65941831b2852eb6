"""paddle.distributed's collectives of Python objects: they run when called, on the job's process group.

    objs = []
    dist.all_gather_object(objs, {'rank': rank})          # objs += every trainer's object, in rank order
    items = [a, b] if rank == 0 else [None, None]
    dist.broadcast_object_list(items, src=0)              # items[:] = trainer 0's items
    out = []
    dist.scatter_object_list(out, [x, y], src=0)          # out == [x] on trainer 0, [y] on trainer 1

Objects are pickled (mpi4py's object collectives), so they must be picklable and every trainer must trust the
others, as with any pickle. Paddle 2.6.2 has these in dygraph only (they pack the pickles into uint8 tensors and
run tensor collectives); a static program has no place for a Python object, so here they act at once, like
fleet.util.all_gather. `group` may name a sub-group (new_group): ranks are job ranks.
"""
from __future__ import annotations

from ..framework.collective import get_group
from .group import ring_and_rank

__all__ = ['all_gather_object', 'broadcast_object_list', 'scatter_object_list']


def all_gather_object(object_list: list, obj, group=None) -> None:
    """Appends every trainer's `obj` to `object_list`, in rank order (as Paddle appends)."""
    where = ring_and_rank(group, None, 'all_gather_object')
    if where is not None:
        object_list.extend(get_group(where[0]).allgather_object(obj))


def broadcast_object_list(object_list: list, src: int, group=None) -> None:
    """Every trainer's `object_list` takes trainer `src`'s items (the lists must have one length everywhere)."""
    where = ring_and_rank(group, int(src), 'broadcast_object_list')
    if where is None:
        return
    items = get_group(where[0]).broadcast_object(list(object_list), where[1])
    if len(items) != len(object_list):
        raise ValueError('broadcast_object_list: trainer %d sent %d objects, but this list holds %d: give every '
                         'trainer a list of the same length' % (src, len(items), len(object_list)))
    object_list[:] = items


def scatter_object_list(out_object_list: list, in_object_list=None, src: int = 0, group=None) -> None:
    """`out_object_list` becomes [item `rank` of trainer `src`'s `in_object_list`] (one item per trainer)."""
    where = ring_and_rank(group, int(src), 'scatter_object_list')
    if where is None:
        return
    process_group = get_group(where[0])
    if process_group.rank == where[1]:
        if in_object_list is None or len(in_object_list) != process_group.nranks:
            raise ValueError('scatter_object_list: trainer %d must give one object per trainer (%d), got %s'
                             % (src, process_group.nranks, None if in_object_list is None else len(in_object_list)))
    out_object_list.clear()
    out_object_list.append(process_group.scatter_object(in_object_list, where[1]))
