"""paddle.distributed.fleet: Paddle 2.x's collective training API in static mode.

    import paddle_exec.distributed.fleet as fleet
    fleet.init(is_collective=True)                       # joins the job (MPI when it has several trainers)
    opt = fleet.distributed_optimizer(paddle.optimizer.Adam(0.01), fleet.DistributedStrategy())
    opt.minimize(loss)                                   # rewrites the startup and main programs
    exe.run(startup); exe.run(main, feed=..., fetch_list=[loss])   # each trainer feeds its share of the batch

`minimize` on a job of N > 1 trainers does what Paddle 2.x's meta optimizers do (distributed/fleet/transpile.py):
with `without_graph_optimization` (the default), RawProgramOptimizer: the startup program sets up ring 0 and
broadcasts trainer 0's parameters, the main program scales loss@GRAD by 1/N and all-reduces every gradient (the
executor fuses them into buckets of `fuse_grad_size_in_MB`); without it, GraphExecutionOptimizer: the main program
runs as a CompiledProgram with BuildStrategy.num_trainers = N (`program._graph`, which Executor.run follows). On
one trainer the programs are left as a plain optimizer leaves them. Only collective training is supported
(every process a worker): parameter-server calls raise.
"""
from __future__ import annotations

from ...executor.parallel import CompiledProgram
from ...executor.strategy import BuildStrategy
from ...framework.collective import CollectiveSettings, get_group, set_settings
from ...framework.program import default_startup_program
from ...static.inference_model import save_inference_model as _save_inference_model
from ...static.var_files import save_persistables as _save_persistables
from . import transpile
from .role_maker import PaddleCloudRoleMaker, RoleMakerBase
from .strategy import DistributedStrategy
from .util import UtilBase

__all__ = ['Fleet', 'DistributedOptimizer']


def _ps_only(name: str):
    def method(self, *args, **kwargs):
        raise NotImplementedError('fleet.%s is for parameter-server training, which paddle_exec does not support '
                                  '(collective training has no servers)' % name)
    method.__name__ = name
    return method


class Fleet:
    def __init__(self):
        self._role_maker: RoleMakerBase | None = None
        self._user_defined_strategy = DistributedStrategy()
        self._util = UtilBase()
        self._optimizer = None
        self._is_collective = True

    # --- setting up ---------------------------------------------------------------------------------------------
    def init(self, role_maker=None, is_collective: bool = False, strategy=None, log_level='INFO'):
        if strategy is not None:
            if not isinstance(strategy, DistributedStrategy):
                raise TypeError('strategy must be a paddle.distributed.fleet.DistributedStrategy, got %r' % (strategy,))
            self._user_defined_strategy = strategy
        if role_maker is None:
            role_maker = PaddleCloudRoleMaker(is_collective=is_collective)
        elif not isinstance(role_maker, RoleMakerBase):
            raise ValueError('`role_maker` should be subclass of `RoleMakerBase`, but got %s' % type(role_maker))
        self._role_maker = role_maker
        self._util._set_role_maker(role_maker)
        if role_maker._worker_num() > 1:
            get_group(0)                    # join the job now: a failure from here on ends every trainer
        return None

    @property
    def _role(self) -> RoleMakerBase:
        if self._role_maker is None:
            raise RuntimeError('fleet.init() must be called first')
        return self._role_maker

    @property
    def util(self) -> UtilBase:
        return self._util

    # --- who am I -------------------------------------------------------------------------------------------------
    def is_first_worker(self) -> bool:
        return self._role._is_first_worker()

    def worker_index(self) -> int:
        return self._role._worker_index()

    def worker_num(self) -> int:
        return self._role._worker_num()

    def node_num(self) -> int:
        return self._role._node_num()

    def local_rank(self) -> int:
        return self._role._local_rank()

    def is_worker(self) -> bool:
        return True

    def is_server(self) -> bool:
        return False

    def is_coordinator(self) -> bool:
        return False

    def worker_endpoints(self, to_string: bool = False):
        endpoints = self._role._get_trainer_endpoints()
        return ','.join(endpoints) if to_string else endpoints

    def server_num(self) -> int:
        return 0

    def server_index(self) -> int:
        return 0

    def server_endpoints(self, to_string: bool = False):
        return '' if to_string else []

    def barrier_worker(self) -> None:
        self._role._barrier('worker')

    def init_worker(self, scopes=None) -> None:
        """Collective training has nothing to set up here (Paddle does nothing either)."""

    def stop_worker(self) -> None:
        """Collective training has nothing to stop here."""

    init_server = _ps_only('init_server')
    run_server = _ps_only('run_server')
    load_model = _ps_only('load_model')

    # --- saving -------------------------------------------------------------------------------------------------------
    def save_persistables(self, executor, dirname, main_program=None, mode=0):
        return _save_persistables(executor, dirname, main_program)

    def save_inference_model(self, executor, dirname, feeded_var_names, target_vars, main_program=None,
                             export_for_deployment=True, mode=0):
        return _save_inference_model(dirname, feeded_var_names, target_vars, executor, main_program)

    # --- the optimizer --------------------------------------------------------------------------------------------
    def distributed_optimizer(self, optimizer, strategy=None) -> DistributedOptimizer:
        if strategy is not None:
            if not isinstance(strategy, DistributedStrategy):
                raise TypeError('strategy must be a paddle.distributed.fleet.DistributedStrategy, got %r' % (strategy,))
            self._user_defined_strategy = strategy
        self._optimizer = DistributedOptimizer(optimizer, self._user_defined_strategy, self)
        return self._optimizer

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        if self._optimizer is None:
            raise RuntimeError('call fleet.distributed_optimizer(optimizer) before fleet.minimize')
        return self._optimizer.minimize(loss, startup_program, parameter_list, no_grad_set)


class DistributedOptimizer:
    """The optimizer fleet.distributed_optimizer returns: the user's optimizer plus the program rewrites."""

    def __init__(self, optimizer, strategy: DistributedStrategy, fleet: Fleet):
        self.user_defined_optimizer = optimizer
        self.user_defined_strategy = strategy
        self._fleet = fleet

    def __getattr__(self, name):
        return getattr(self.__dict__['user_defined_optimizer'], name)

    def backward(self, loss, startup_program=None, parameter_list=None, no_grad_set=None, callbacks=None):
        return self.user_defined_optimizer.backward(loss, startup_program, parameter_list, no_grad_set, callbacks)

    def apply_gradients(self, params_grads):
        return self.user_defined_optimizer.apply_gradients(params_grads)

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        strategy, fleet = self.user_defined_strategy, self._fleet
        unsupported = strategy.switched_on_unsupported()
        if unsupported:
            raise NotImplementedError('DistributedStrategy: %s not supported by paddle_exec; switch %s off'
                                      % (', '.join(unsupported), 'it' if len(unsupported) == 1 else 'them'))
        main = loss.block.program
        startup = startup_program if startup_program is not None else default_startup_program()
        result = self.user_defined_optimizer.minimize(loss, startup, parameter_list, no_grad_set)
        nranks = fleet.worker_num()
        if nranks == 1:
            return result
        rank, endpoints = fleet.worker_index(), fleet.worker_endpoints()
        if strategy.without_graph_optimization:
            transpile.init_communicator(startup, rank, endpoints, endpoints[rank], 0, sync=True)
            transpile.broadcast_params(startup, 1)
            transpile.scale_loss_grad(main, nranks)
            transpile.allreduce_grads(main, 1)
            set_settings(main, CollectiveSettings(bool(strategy.fuse_all_reduce_ops),
                                                  float(strategy.fuse_grad_size_in_MB)))
        else:
            transpile.init_communicator(startup, rank, endpoints, endpoints[rank], 0, sync=False)
            bs = _copy_build_strategy(strategy.build_strategy)
            bs.num_trainers, bs.trainer_id = nranks, rank
            bs.trainers_endpoints = list(endpoints)
            bs.fuse_all_reduce_ops = bool(strategy.fuse_all_reduce_ops)
            main._graph = CompiledProgram(main, bs).with_data_parallel(
                loss_name=loss.name, build_strategy=bs, exec_strategy=strategy.execution_strategy)
        return result


def _copy_build_strategy(bs: BuildStrategy) -> BuildStrategy:
    copy = BuildStrategy()
    for name in BuildStrategy._FIELDS:
        value = getattr(bs, name)
        object.__setattr__(copy, name, list(value) if isinstance(value, list) else
                           set(value) if isinstance(value, set) else value)
    return copy
