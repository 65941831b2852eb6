"""fleet's hybrid-parallel topology: trainers laid out on named axes, and a group of trainers along each axis.

    topo = fleet.CommunicateTopology(['data', 'pipe', 'sharding', 'sep', 'model'], [2, 1, 1, 1, 1])
    topo.get_rank(data=1, pipe=0, sharding=0, sep=0, model=0)      # 1: ranks count through the axes, last fastest
    topo.get_coord(1).data; topo.get_comm_list('data')             # [[0, 1]]: the trainers along the axis
    hcg = fleet.HybridCommunicateGroup(topo)                       # a paddle.distributed Group per axis
    hcg.get_data_parallel_group()                                  # e.g. dist.all_reduce(x, group=...)

CommunicateTopology is arithmetic on coordinates (Paddle's layout: itertools.product order over the axes).
HybridCommunicateGroup makes, for each axis, one new_group per line of trainers along it (every trainer makes
every group, in the same order, so the ring ids agree) and keeps the groups this trainer is in; they are real
sub-groups over MPI, usable with every collective. What paddle_exec trains with is the data axis: its distributed
optimizers do data parallelism only, so a topology with model, pipeline, sharding or sep degrees above 1 describes
groups but no tensor / pipeline / sharded training. Paddle's NCCL warm-up all-reduce on the pipeline group (a
dygraph call) is not made, and the four-direction pipeline p2p groups are not built.
"""
from __future__ import annotations

import collections
import itertools
import math

from ..group import new_group
from ..modes import ParallelMode
from ..parallel import get_rank, get_world_size

__all__ = ['CommunicateTopology', 'HybridCommunicateGroup']

_AXES = ['data', 'pipe', 'sharding', 'sep', 'model']


class CommunicateTopology:
    """Trainer ranks <-> coordinates on the named axes of sizes `dims`."""

    def __init__(self, hybrid_group_names=None, dims=None):
        self._parallel_names = list(_AXES if hybrid_group_names is None else hybrid_group_names)
        self._dims = list([1] * len(self._parallel_names) if dims is None else dims)
        self.coordinate = collections.namedtuple('Coordinate', self._parallel_names)
        self._world_size = math.prod(self._dims)
        coords = [self.coordinate(*c) for c in itertools.product(*(range(d) for d in self._dims))]
        self._coord2rank = {c: r for r, c in enumerate(coords)}
        self._rank2coord = dict(enumerate(coords))

    def get_hybrid_group_names(self) -> list:
        return self._parallel_names

    def get_dim(self, axis_name: str) -> int:
        return self._dims[self._parallel_names.index(axis_name)]

    get_dim_size = get_dim

    def world_size(self) -> int:
        return self._world_size

    def get_rank(self, **coords) -> int:
        assert len(coords) == len(self._dims)
        key = self.coordinate(**coords)
        assert key in self._coord2rank
        return self._coord2rank[key]

    def get_coord(self, rank: int):
        assert rank < self._world_size
        assert rank in self._rank2coord
        return self._rank2coord[rank]

    def get_axis_list(self, axis_name: str, index: int) -> list:
        """The ranks whose coordinate on `axis_name` is `index`."""
        axis = self._parallel_names.index(axis_name)
        return sorted(r for c, r in self._coord2rank.items() if c[axis] == index)

    def get_comm_list(self, axis_name: str) -> list:
        """The lines of trainers along `axis_name`: one list per coordinate of the other axes."""
        assert axis_name in self._parallel_names
        axis = self._parallel_names.index(axis_name)
        others = [range(d) if k != axis else [None] for k, d in enumerate(self._dims)]
        lines = []
        for fixed in itertools.product(*others):
            lines.append([self._coord2rank[self.coordinate(*(fixed[:axis] + (i,) + fixed[axis + 1:]))]
                          for i in range(self._dims[axis])])
        return lines

    def get_fused_ranks(self, fused_axis: list) -> list:
        """The lines of trainers spanning the axes `fused_axis` together (one list per coordinate of the rest)."""
        rest = [a for a in self._parallel_names if a not in fused_axis]
        lines = []
        for fixed in itertools.product(*(range(self.get_dim(a)) for a in rest)):
            where = dict(zip(rest, fixed))
            line = []
            for moving in itertools.product(*(range(self.get_dim(a)) for a in fused_axis)):
                where.update(zip(fused_axis, moving))
                line.append(self._coord2rank[self.coordinate(**where)])
            lines.append(line)
        return lines

    def get_rank_from_stage(self, global_rank: int, **kwargs) -> int:
        return self.get_rank(**self.get_coord(global_rank)._replace(**kwargs)._asdict())


class HybridCommunicateGroup:
    """This trainer's place in a CommunicateTopology, with a paddle.distributed Group along each axis."""

    def __init__(self, topology: CommunicateTopology):
        self.nranks, self.global_rank = get_world_size(), get_rank()
        self._topo = topology
        self._dp_degree, self._mp_degree, self._pp_degree, self._sharding_degree, self._sep_degree = (
            topology.get_dim(a) for a in ('data', 'model', 'pipe', 'sharding', 'sep'))
        if topology.world_size() != self.nranks:
            raise AssertionError('mp_num: %d, sharding_num: %d, pp_num: %d, dp_num: %d, sep_num: %d' % (
                self.nranks, self._mp_degree, self._sharding_degree, self._pp_degree, self._dp_degree))
        coord = topology.get_coord(self.global_rank)
        self._data_parallel_id, self._model_parallel_id = coord.data, coord.model
        self._sharding_parallel_id, self._sep_parallel_id, self.stage_id = coord.sharding, coord.sep, coord.pipe
        self._pp_group, self._pp_comm_group = self._axis_groups(topology.get_comm_list('pipe'))
        self._dp_group, self._dp_comm_group = self._axis_groups(topology.get_comm_list('data'))
        self._mp_group, self._mp_comm_group = self._axis_groups(topology.get_comm_list('model'))
        self._sharding_group, self._sharding_comm_group = self._axis_groups(topology.get_comm_list('sharding'))
        self._sep_group = self._sep_comm_group = None
        if self._sep_degree > 1:
            self._sep_group, self._sep_comm_group = self._axis_groups(topology.get_comm_list('sep'))
        self._check_group, self._check_comm_group = self._axis_groups(
            [topology.get_axis_list('data', i) for i in range(self._dp_degree)])
        self.sharding_check_group, self.sharding_check_comm_group = self._axis_groups(
            [topology.get_axis_list('sharding', i) for i in range(self._sharding_degree)])
        self.is_first_stage = self.stage_id == 0
        self.is_last_stage = self.stage_id == self._pp_degree - 1
        if self._pp_degree > 1:
            line = next(line for line in topology.get_comm_list('pipe') if self.global_rank in line)
            k = line.index(self.global_rank)
            self.next_rank, self.prev_rank = line[(k + 1) % len(line)], line[(k - 1) % len(line)]

    def _axis_groups(self, lines: list):
        """Every trainer makes a group of each line (same order everywhere); (this trainer's line, its group)."""
        mine = None
        for line in lines:
            group = new_group(ranks=line)
            if self.global_rank in line:
                mine = (line, group)
        assert mine is not None
        return mine

    def get_parallel_mode(self) -> int | None:
        if self._pp_degree > 1:
            return ParallelMode.PIPELINE_PARALLEL
        if self._mp_degree > 1:
            return ParallelMode.TENSOR_PARALLEL
        if self._sep_degree > 1:
            return ParallelMode.SEGMENT_PARALLEL
        if self._sharding_degree > 1:
            return ParallelMode.SHARDING_PARALLEL
        return ParallelMode.DATA_PARALLEL if self._dp_degree > 1 else None

    def topology(self) -> CommunicateTopology:
        return self._topo

    def get_global_rank(self) -> int:
        return self.global_rank

    def get_data_parallel_rank(self) -> int:
        return self._data_parallel_id

    def get_data_parallel_world_size(self) -> int:
        return self._dp_degree

    def get_data_parallel_group(self):
        return self._dp_comm_group

    def get_data_parallel_group_src_rank(self) -> int:
        return self._dp_comm_group.ranks[0]

    def get_model_parallel_rank(self) -> int:
        return self._model_parallel_id

    def get_model_parallel_world_size(self) -> int:
        return self._mp_degree

    def get_model_parallel_group(self):
        return self._mp_comm_group

    def get_model_parallel_group_src_rank(self) -> int:
        return self._mp_comm_group.ranks[0]

    def get_stage_id(self) -> int:
        return self.stage_id

    def get_pipe_parallel_world_size(self) -> int:
        return self._pp_degree

    def get_pipe_parallel_group(self):
        return self._pp_comm_group

    def get_sharding_parallel_rank(self) -> int:
        return self._sharding_parallel_id

    def get_sharding_parallel_world_size(self) -> int:
        return self._sharding_degree

    def get_sharding_parallel_group(self):
        return self._sharding_comm_group

    def get_sharding_parallel_group_src_rank(self) -> int:
        return self._sharding_comm_group.ranks[0]

    def get_sep_parallel_rank(self) -> int:
        return self._sep_parallel_id

    def get_sep_parallel_world_size(self) -> int:
        return self._sep_degree

    def get_sep_parallel_group(self):
        assert self._sep_degree > 1, 'sep not exist'
        return self._sep_comm_group

    def get_check_parallel_group(self, sharding: bool = False):
        return self.sharding_check_comm_group if sharding else self._check_comm_group

    def get_rank_from_stage(self, stage_id: int, **kwargs) -> int:
        return self._topo.get_rank_from_stage(self.global_rank, pipe=stage_id, **kwargs)
