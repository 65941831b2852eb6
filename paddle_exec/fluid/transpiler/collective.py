"""fluid.transpiler.collective (Paddle 1.8's module path): the collective transpilers GradAllReduce and LocalSGD.

    t = fluid.transpiler.collective.GradAllReduce(nrings=2)
    t.transpile(startup_program, main_program, rank, endpoints, current_endpoint, wait_port)

`transpile` rewrites both programs in place as Paddle 1.8's does, with the op-for-op rewrites the 1.8 collective
fleet uses (distributed/fleet/transpile.py): the startup program gets per ring a communicator (c_gen_nccl_id,
c_comm_init) and then trainer 0's parameters broadcast (c_broadcast, c_sync_comm_stream); GradAllReduce scales the
loss gradient by 1/nranks and all-reduces every gradient after the op that makes it; LocalSGD keeps a
`<param>@SNAPSHOT` of every parameter and, after each update, averages the parameters' moves over the trainers.
The collective ops run over the process group of the job (ops/collective.py; started by
`python -m paddle_exec.distributed.launch` or mpirun), so a transpiled program trains as 1.8's does across
processes. `wait_port` is accepted and has nothing to wait for: the process group is up before any op runs.
"""
from __future__ import annotations

from ...distributed.fleet import transpile
from ...framework.program import Program, default_main_program, default_startup_program

__all__ = ['GradAllReduce', 'LocalSGD']


class Collective:
    """The transpilers' common part: checks the job description and rewrites the startup program."""

    mode = ''

    def __init__(self, nrings: int) -> None:
        self.nrings = nrings
        self.endpoints = None
        self.current_endpoint = None
        self.nranks = None
        self.rank = None
        self.startup_program = None
        self.main_program = None
        self.wait_port = None

    def transpile(self, startup_program: Program | None, main_program: Program | None, rank: int, endpoints,
                  current_endpoint: str, wait_port) -> None:
        if isinstance(endpoints, str):    # '127.0.0.1:6700,127.0.0.1:6701,...'
            endpoints = endpoints.split(',')
        self.startup_program = startup_program if startup_program is not None else default_startup_program()
        self.main_program = main_program if main_program is not None else default_main_program()
        self.nranks = len(endpoints)
        if self.nranks == 1:
            raise ValueError('the number of endpoints must > 1')
        if rank < 0:
            raise ValueError('rank must >= 0')
        self.rank = rank
        if current_endpoint not in endpoints:
            raise ValueError('current endpoint %s is not in %s' % (current_endpoint, str(endpoints)))
        self.endpoints = list(endpoints)
        self.current_endpoint = current_endpoint
        self.wait_port = wait_port
        self.startup_program._origin_program = self.startup_program.clone()
        self._transpile_startup_program()
        self.main_program._origin_program = self.main_program.clone()
        self._transpile_main_program()

    def _transpile_startup_program(self) -> None:
        for ring_id in range(self.nrings):
            transpile.init_communicator(self.startup_program, self.rank, self.endpoints, self.current_endpoint,
                                        ring_id, sync=False)
        transpile.broadcast_params(self.startup_program, self.nrings, by_name=False)

    def _transpile_main_program(self) -> None:
        raise NotImplementedError('call the inherited method of subclasses')


class GradAllReduce(Collective):
    """Data parallelism by gradient all-reduce: loss@GRAD scaled by 1/nranks, every gradient summed over the
    trainers (c_sync_calc_stream / c_allreduce_sum / c_sync_comm_stream as 1.8 inserts them)."""

    mode = 'grad_allreduce'

    def __init__(self, nrings: int = 2) -> None:
        super().__init__(nrings)

    def _transpile_main_program(self) -> None:
        transpile.scale_loss_grad(self.main_program, self.nranks)
        transpile.allreduce_grads(self.main_program, self.nrings, sync_calc=True, sync_comm=True)


class LocalSGD(Collective):
    """Local SGD: every trainer updates its own parameters, then the parameters' moves since the last average
    (their `@SNAPSHOT`) are averaged over the trainers."""

    mode = 'local_sgd'

    def __init__(self, nrings: int = 2) -> None:
        super().__init__(nrings)
        self.snapshot_key = '@SNAPSHOT'

    def snapshot_name(self, param_name: str) -> str:
        return param_name + self.snapshot_key

    def _transpile_main_program(self) -> None:
        # also appends the snapshots' assigns to the startup program, after the broadcast as in 1.8
        transpile.local_sgd(self.startup_program, self.main_program, self.nranks, self.nrings)
