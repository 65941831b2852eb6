"""fluid.transpiler.collective (Paddle 1.8's module path): the collective transpilers that rewrite a trainer's
programs for data-parallel training across processes, on the program rewrites of distributed/fleet/transpile.py
(the ones fluid.incubate.fleet.collective's "collective" mode writes).

    t = GradAllReduce(nrings=2)           # or LocalSGD(nrings=2)
    t.transpile(startup, main, rank=fleet.worker_index(), endpoints='127.0.0.1:6170,127.0.0.1:6171',
                current_endpoint='127.0.0.1:6170', wait_port=False)
    exe.run(startup); exe.run(main, feed=..., fetch_list=[loss])        # in each trainer of an MPI job

Startup: c_gen_nccl_id + c_comm_init per ring (they check the MPI job is the one the endpoints describe, see
docs/distributed.md), then a c_broadcast of every parameter from trainer 0. Main: GradAllReduce scales loss@GRAD
by 1/nranks and all-reduces each gradient (c_sync_calc_stream, c_allreduce_sum on rings in turn,
c_sync_comm_stream before the first update); LocalSGD averages the parameters after each update. As in Paddle,
the programs before the rewrite are kept as `_origin_program`. `wait_port` (Paddle waits for the other trainers'
NCCL ports) has nothing to wait for: the trainers meet through mpiexec. SingleProcessMultiThread (not in Paddle's
`__all__`) is the ParallelExecutor's business here (CompiledProgram.with_data_parallel).
"""
from __future__ import annotations

from ...distributed.fleet import transpile
from ...framework.program import default_main_program, default_startup_program

__all__ = ['GradAllReduce', 'LocalSGD']


class Collective:
    """The steps every collective transpiler shares (Paddle 1.8's base class)."""

    mode = ''

    def __init__(self, nrings: int):
        self.nrings = nrings
        self.endpoints = self.current_endpoint = self.nranks = self.rank = None
        self.startup_program = self.main_program = None
        self.wait_port = None

    def transpile(self, startup_program, main_program, rank: int, endpoints, current_endpoint: str,
                  wait_port) -> None:
        if isinstance(endpoints, str):
            endpoints = endpoints.split(',')
        self.startup_program = default_startup_program() if startup_program is None else startup_program
        self.main_program = default_main_program() if main_program is None else main_program
        self.nranks = len(endpoints)
        if self.nranks == 1:
            raise ValueError('the number of endpoints must > 1')
        if rank < 0:
            raise ValueError('rank must >= 0')
        if current_endpoint not in endpoints:
            raise ValueError('current endpoint %s is not in %s' % (current_endpoint, str(endpoints)))
        self.rank, self.endpoints, self.current_endpoint, self.wait_port = rank, list(endpoints), current_endpoint, \
            wait_port
        self.startup_program._origin_program = self.startup_program.clone()
        self._transpile_startup_program()
        self.main_program._origin_program = self.main_program.clone()
        self._transpile_main_program()

    def _transpile_startup_program(self) -> None:
        for ring_id in range(self.nrings):
            transpile.init_communicator(self.startup_program, self.rank, self.endpoints, self.current_endpoint,
                                        ring_id, sync=False)
        transpile.broadcast_params(self.startup_program, self.nrings)

    def _transpile_main_program(self) -> None:
        raise NotImplementedError('call the inherited method of subclasses')


class GradAllReduce(Collective):
    """Gradients summed over the trainers (loss@GRAD scaled by 1/nranks first), before the optimizer runs."""

    mode = 'grad_allreduce'

    def __init__(self, nrings: int = 2):
        super().__init__(nrings)

    def _transpile_main_program(self) -> None:
        transpile.scale_loss_grad(self.main_program, self.nranks)
        transpile.allreduce_grads(self.main_program, self.nrings, sync_calc=True, sync_comm=True)


class LocalSGD(Collective):
    """Each trainer updates on its own gradients; the parameters are averaged over the trainers after each update."""

    mode = 'local_sgd'

    def __init__(self, nrings: int = 2):
        super().__init__(nrings)

    def _transpile_main_program(self) -> None:
        transpile.local_sgd(self.startup_program, self.main_program, self.nranks, self.nrings)
