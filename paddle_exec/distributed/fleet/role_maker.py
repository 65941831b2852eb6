"""Role makers: who this process is in the job (Paddle's paddle.distributed.fleet.base.role_maker and 1.8's
fluid.incubate.fleet.base.role_maker).

    PaddleCloudRoleMaker(is_collective=True)   the environment's view (PADDLE_TRAINER_ID, ... or mpiexec's rank)
    UserDefinedRoleMaker(current_id=0, role=Role.WORKER, worker_num=2, ...)
    UserDefinedCollectiveRoleMaker(current_id=0, worker_endpoints=['127.0.0.1:6170', '127.0.0.1:6171'])

Only collective roles (every process a worker) are supported: parameter-server roles raise. Both the 2.x names
(`_worker_index`, `_worker_num`, `_get_trainer_endpoints`, `_barrier`) and the 1.8 names (`worker_index`,
`worker_num`, `get_trainer_endpoints`, `generate_role`) are there. Barriers run on the job's process group.
"""
from __future__ import annotations

import enum

import numpy as np

from ...executor.config import trainer_environment
from ...framework.collective import get_group

__all__ = ['Role', 'RoleMakerBase', 'PaddleCloudRoleMaker', 'UserDefinedRoleMaker', 'UserDefinedCollectiveRoleMaker',
           'MPISymetricRoleMaker']


class Role(enum.IntEnum):
    WORKER = 1
    SERVER = 2
    HETER_WORKER = 3
    ALL = 4
    COORDINATOR = 5


class RoleMakerBase:
    """A collective role: this process is worker `current_id` of `worker_endpoints`."""

    def __init__(self, is_collective: bool = True, current_id: int = 0, worker_endpoints=None):
        if not is_collective:
            raise NotImplementedError('parameter-server training (is_collective=False) is not supported by '
                                      'paddle_exec: use collective training, fleet.init(is_collective=True)')
        self._is_collective = True
        self._current_id = int(current_id)
        self._worker_endpoints = list(worker_endpoints or ['127.0.0.1:6170'])
        self._role = Role.WORKER
        self._role_is_generated = True

    # --- 2.x names -----------------------------------------------------------------------------------------------
    def _worker_index(self) -> int:
        return self._current_id

    def _worker_num(self) -> int:
        return len(self._worker_endpoints)

    def _get_trainer_endpoints(self) -> list:
        return list(self._worker_endpoints)

    def _get_pserver_endpoints(self) -> list:
        return []

    def _is_worker(self) -> bool:
        return True

    def _is_server(self) -> bool:
        return False

    def _is_first_worker(self) -> bool:
        return self._current_id == 0

    def _role_id(self) -> int:
        return self._current_id

    def _server_num(self) -> int:
        return 0

    def _node_num(self) -> int:
        return len({e.split(':')[0] for e in self._worker_endpoints})

    def _local_rank(self) -> int:
        host = self._worker_endpoints[self._current_id].split(':')[0]
        return [e.split(':')[0] for e in self._worker_endpoints][:self._current_id].count(host)

    def _barrier(self, comm_world: str = 'worker') -> None:
        get_group(0).barrier()

    def _barrier_worker(self) -> None:
        self._barrier('worker')

    def _all_reduce(self, value, mode: str = 'sum', comm_world: str = 'worker'):
        return get_group(0).allreduce(np.asarray(value), mode)

    def _generate_role(self) -> None:
        pass

    # --- 1.8 names -----------------------------------------------------------------------------------------------
    def worker_index(self) -> int:
        return self._worker_index()

    def worker_num(self) -> int:
        return self._worker_num()

    def get_trainer_endpoints(self) -> list:
        return self._get_trainer_endpoints()

    def get_pserver_endpoints(self) -> list:
        return []

    def is_worker(self) -> bool:
        return True

    def is_server(self) -> bool:
        return False

    def is_first_worker(self) -> bool:
        return self._is_first_worker()

    def role_id(self) -> int:
        return self._current_id

    def generate_role(self) -> None:
        pass

    def to_string(self) -> str:
        return 'role: %s, current_id: %d, worker_endpoints: %s' % (self._role.name, self._current_id,
                                                                     self._worker_endpoints)


class PaddleCloudRoleMaker(RoleMakerBase):
    """The environment's view of the job (executor/config.py `trainer_environment`)."""

    def __init__(self, is_collective: bool = False, **kwargs):
        env = trainer_environment()
        super().__init__(is_collective, env.trainer_id, env.endpoints)
        self._current_endpoint = env.current_endpoint
        self._trainers_num = env.trainers_num

    def _worker_num(self) -> int:
        return self._trainers_num

    def _get_trainer_endpoints(self) -> list:
        endpoints = list(self._worker_endpoints)
        while len(endpoints) < self._trainers_num:          # PADDLE_TRAINERS_NUM without all the endpoints
            host, port = endpoints[-1].rsplit(':', 1)
            endpoints.append('%s:%d' % (host, int(port) + 1))
        return endpoints


class UserDefinedRoleMaker(RoleMakerBase):
    """2.x: the user states the role; collective workers only."""

    def __init__(self, is_collective: bool = False, init_gloo: bool = False, **kwargs):
        role = kwargs.get('role', Role.WORKER)
        if role != Role.WORKER:
            raise NotImplementedError('only worker roles (collective training) are supported, got %r' % (role,))
        endpoints = kwargs.get('worker_endpoints')
        if endpoints is None:
            endpoints = ['127.0.0.1:%d' % (6170 + i) for i in range(int(kwargs.get('worker_num', 1)))]
        super().__init__(True, kwargs.get('current_id', 0), endpoints)


class UserDefinedCollectiveRoleMaker(RoleMakerBase):
    """1.8: the user states this worker's index and every worker's endpoint."""

    def __init__(self, current_id: int = 0, worker_endpoints=None):
        if not worker_endpoints:
            raise ValueError('worker_endpoints should not be empty')
        if not 0 <= int(current_id) < len(worker_endpoints):
            raise ValueError('current_id must be in [0, %d), got %r' % (len(worker_endpoints), current_id))
        super().__init__(True, current_id, worker_endpoints)


class MPISymetricRoleMaker(PaddleCloudRoleMaker):
    """1.8's MPI role maker: here every process of the mpiexec job is a worker."""

    def __init__(self):
        super().__init__(is_collective=True)
