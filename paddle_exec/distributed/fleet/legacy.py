"""Paddle 1.8's collective fleet (`fluid.incubate.fleet.collective`): `fleet`, `DistributedStrategy`,
`CollectiveOptimizer`.

    from paddle_exec.fluid.incubate.fleet.collective import fleet, DistributedStrategy
    from paddle_exec.fluid.incubate.fleet.base import role_maker
    fleet.init(role_maker.PaddleCloudRoleMaker(is_collective=True))
    opt = fleet.distributed_optimizer(fluid.optimizer.SGD(0.1), DistributedStrategy())
    opt.minimize(loss)
    exe.run(fleet.startup_program); exe.run(fleet.main_program, feed=..., fetch_list=[loss])

`DistributedStrategy.mode` picks Paddle 1.8's transpilation: "nccl2" (default) adds `gen_nccl_id` to the startup
program and makes `fleet.main_program` a CompiledProgram with BuildStrategy.num_trainers = the number of workers
(the ParallelExecutor broadcasts trainer 0's parameters and reduces the gradients across the trainers);
"collective" with collective_mode "grad_allreduce" rewrites the programs as GradAllReduce (c_broadcast at startup,
c_allreduce_sum per gradient) and "local_sgd" as LocalSGD (parameters averaged after each update), and
`fleet.main_program` is the rewritten Program. On one worker the programs stay as the optimizer leaves them.
"""
from __future__ import annotations

from ...executor.parallel import CompiledProgram
from ...executor.strategy import BuildStrategy, ExecutionStrategy
from ...framework.collective import get_group
from ...framework.program import default_startup_program
from ...static.inference_model import save_inference_model as _save_inference_model
from ...static.var_files import load_persistables as _load_persistables
from ...static.var_files import save_persistables as _save_persistables
from . import transpile
from .role_maker import PaddleCloudRoleMaker, RoleMakerBase

__all__ = ['Collective', 'fleet', 'DistributedStrategy', 'CollectiveOptimizer', 'Mode']


class Mode:
    TRANSPILER = 1
    PSLIB = 2
    COLLECTIVE = 3


class DistributedStrategy(BuildStrategy):
    """Paddle 1.8's collective DistributedStrategy: a BuildStrategy with the transpilation mode."""

    _FIELDS = {**BuildStrategy._FIELDS,
               'use_local_sgd': (False, None), 'use_dist_fc': (False, None), 'dist_fc_config': (None, None),
               'mode': ('nccl2', None), 'collective_mode': (None, None), 'forward_recompute': (False, None),
               'recompute_checkpoints': (list, None), 'use_amp': (False, None), 'amp_loss_scaling': (2 ** 15, None),
               'exec_strategy': (ExecutionStrategy, None), '_ut4grad_allreduce': (False, None)}


class Collective:
    """The 1.8 `fleet` object of collective mode."""

    def __init__(self):
        self._role_maker: RoleMakerBase | None = None
        self._mode = Mode.COLLECTIVE
        self._optimizer = None
        self.startup_program = None
        self.main_program = None
        self._origin_program = None
        self._transpiled_program = None
        self._is_initialized = False

    def init(self, role_maker=None) -> None:
        if role_maker is None:
            role_maker = PaddleCloudRoleMaker(is_collective=True)
        if not isinstance(role_maker, RoleMakerBase):
            raise TypeError('role_maker must be an instance of RoleMakerBase')
        self._role_maker = role_maker
        role_maker.generate_role()
        self._is_initialized = True
        if role_maker.worker_num() > 1:
            get_group(0)

    @property
    def _role(self) -> RoleMakerBase:
        if self._role_maker is None:
            raise RuntimeError('fleet.init(role_maker) must be called first')
        return self._role_maker

    def is_first_worker(self) -> bool:
        return self._role.is_first_worker()

    def worker_index(self) -> int:
        return self._role.worker_index()

    def worker_num(self) -> int:
        return self._role.worker_num()

    def is_worker(self) -> bool:
        return True

    def is_server(self) -> bool:
        return False

    def worker_endpoints(self, to_string: bool = False):
        endpoints = self._role.get_trainer_endpoints()
        return ','.join(endpoints) if to_string else endpoints

    def server_num(self) -> int:
        return 0

    def server_index(self) -> int:
        return 0

    def server_endpoints(self, to_string: bool = False):
        return '' if to_string else []

    def barrier_worker(self) -> None:
        self._role._barrier_worker()

    def init_worker(self) -> None:
        """Nothing to do in collective mode (Paddle warns the same)."""

    def run_worker(self, main_programs=None, scopes=None) -> None:
        """Nothing to do in collective mode."""

    def stop_worker(self) -> None:
        """Nothing to do in collective mode."""

    def init_server(self, model_dir=None) -> None:
        raise NotImplementedError('collective mode has no servers (init_server)')

    def run_server(self) -> None:
        raise NotImplementedError('collective mode has no servers (run_server)')

    def distributed_optimizer(self, optimizer, strategy=None) -> CollectiveOptimizer:
        self._optimizer = CollectiveOptimizer(optimizer, strategy)
        return self._optimizer

    def save_inference_model(self, executor, dirname, feeded_var_names=None, target_vars=None, main_program=None,
                             export_for_deployment=True):
        return _save_inference_model(dirname, feeded_var_names, target_vars, executor,
                                     main_program if main_program is not None else self._origin_program)

    def save_persistables(self, executor, dirname, main_program=None, filename=None) -> None:
        _save_persistables(executor, dirname, main_program if main_program is not None else self._origin_program,
                           filename=filename)

    def load_persistables(self, executor, dirname, main_program=None, filename=None) -> None:
        _load_persistables(executor, dirname, main_program if main_program is not None else self._origin_program,
                           filename=filename)


fleet = Collective()


class CollectiveOptimizer:
    """fleet.distributed_optimizer's result: the user's optimizer plus Paddle 1.8's transpilation."""

    def __init__(self, optimizer, strategy=None):
        if strategy is None:
            strategy = DistributedStrategy()
        if not isinstance(strategy, DistributedStrategy):
            raise TypeError('strategy must be DistributedStrategy')
        if not isinstance(strategy.recompute_checkpoints, list):
            raise ValueError('DistStrategy.recompute_checkpoints should be a List')
        self._optimizer = optimizer
        self._strategy = strategy

    def backward(self, loss, startup_program=None, parameter_list=None, no_grad_set=None, callbacks=None):
        return self._optimizer.backward(loss, startup_program, parameter_list, no_grad_set, callbacks)

    def apply_gradients(self, params_grads):
        return self._optimizer.apply_gradients(params_grads)

    def _mode(self) -> tuple[str, str | None]:
        s = self._strategy
        for flag in ('use_dist_fc', 'forward_recompute', 'use_amp'):
            if getattr(s, flag):
                raise NotImplementedError('DistributedStrategy.%s is not supported by paddle_exec' % flag)
        if s.use_local_sgd:
            return 'collective', 'local_sgd'
        if s._ut4grad_allreduce:
            return 'collective', 'grad_allreduce'
        if s.mode == 'collective' and s.collective_mode not in ('grad_allreduce', 'local_sgd'):
            raise ValueError('invalid collective_mode: %s' % s.collective_mode)
        if s.mode not in ('nccl2', 'collective'):
            raise ValueError("DistributedStrategy.mode must be 'nccl2' or 'collective', got %r" % s.mode)
        return s.mode, s.collective_mode

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        mode, collective_mode = self._mode()
        main = loss.block.program
        startup = startup_program if startup_program is not None else default_startup_program()
        fleet.startup_program = startup
        result = self._optimizer.minimize(loss, startup_program=startup, parameter_list=parameter_list,
                                          no_grad_set=no_grad_set)
        fleet._origin_program = main.clone(for_test=False)
        fleet._transpiled_program = main
        fleet.main_program = self._transpile(loss, startup, main, mode, collective_mode)
        return result

    def _transpile(self, loss, startup, main, mode: str, collective_mode):
        nranks, rank = fleet.worker_num(), fleet.worker_index()
        endpoints = fleet.worker_endpoints()
        s = self._strategy
        if mode == 'collective':
            if nranks == 1:
                raise ValueError('invalid trainer number in distributed: 1')
            nrings = s.nccl_comm_num
            for ring_id in range(nrings):
                transpile.init_communicator(startup, rank, endpoints, endpoints[rank], ring_id, sync=False)
            transpile.broadcast_params(startup, nrings)
            if collective_mode == 'local_sgd':
                transpile.local_sgd(startup, main, nranks, nrings)
            else:
                transpile.scale_loss_grad(main, nranks)
                transpile.allreduce_grads(main, nrings, sync_calc=True, sync_comm=True)
            return main
        if nranks > 1:
            transpile.gen_nccl_id(startup, endpoints, rank, s.nccl_comm_num)
        s.exec_strategy.num_threads = s.nccl_comm_num + 1       # Paddle's FLAGS_sync_nccl_allreduce default
        s.num_trainers, s.trainer_id = nranks, rank
        s.trainers_endpoints = list(endpoints)
        s.enable_backward_optimizer_op_deps = True
        return CompiledProgram(main).with_data_parallel(loss_name=loss.name, build_strategy=s,
                                                        exec_strategy=s.exec_strategy)
