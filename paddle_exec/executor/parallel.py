"""ParallelExecutor and CompiledProgram: data parallelism over CPU places, as Paddle 1.8 runs it.

    compiled = static.CompiledProgram(main).with_data_parallel(loss_name=loss.name, exec_strategy=es)
    loss_values, = exe.run(compiled, feed={'x': x, 'y': y}, fetch_list=[loss])   # one loss per place
    # or, the 1.x way:
    pe = fluid.ParallelExecutor(use_cuda=False, loss_name=loss.name, main_program=main)
    loss_values, = pe.run(fetch_list=[loss.name], feed={'x': x, 'y': y})

With BuildStrategy.num_trainers > 1 (Paddle 1.x's nccl2 mode, set by fluid.incubate.fleet.collective) the
program is one of several trainer processes (paddle_exec.distributed): trainer 0's persistables are broadcast at
the first run and gradients are summed over the places, then across the trainers (passes/collective.py).

After a run that leaves its program a lane (lanes.py: the repeated run as one generated function), a
ParallelExecutor's `run` is that lane itself (`_enter_by`, lanes.make_entry), which falls back to
`ParallelExecutor.run` when one of its checks fails; a subclass overriding `run` keeps its own.

Both are thin: a CompiledProgram checks its arguments and, at its first run, builds a RunConfig (config.py) from
its strategies, its places (`places=` of with_data_parallel, else CPU_NUM) and the environment, and makes a
data-parallel Runner (runner.py: Paddle's C++ ParallelExecutor), which owns the place scopes, the policy (its thread
pool), the compiled plans and the drop-scope counter; see runner.py for a run. `num_threads = 0` becomes
4 * places, written back into the user's ExecutionStrategy. A CompiledProgram without with_data_parallel runs on
the executor's one place.
"""
from __future__ import annotations

import sys
import threading
import weakref

from ..framework.place import CPUPlace
from ..framework.program import Program, default_main_program
from ..framework.scope import Scope, global_scope
from . import lanes
from .config import RunConfig, cpu_place_count
from .executor import Executor, cost_model_of
from .passes.collective import check_trainers
from .runner import Runner
from .strategy import BuildStrategy, ExecutionStrategy, resolve_num_threads

__all__ = ['ParallelExecutor', 'CompiledProgram']


def _validate_build_strategy(bs: BuildStrategy, program: Program, n_places: int) -> None:
    if bs.trainer_id >= bs.num_trainers:
        raise ValueError('BuildStrategy.trainer_id (%d) must be smaller than num_trainers (%d)'
                         % (bs.trainer_id, bs.num_trainers))
    check_trainers(bs.num_trainers, bs.trainer_id)     # several trainers: this process must be one of the job
    if bs.sync_batch_norm and n_places > 1 and any(op.type == 'batch_norm' for op in program.global_block().ops):
        raise NotImplementedError('BuildStrategy.sync_batch_norm is not supported: batch_norm statistics are '
                                  'computed per place')


# --- CompiledProgram --------------------------------------------------------------------------------------------

def _has_backward_op(program: Program) -> bool:
    return any(op.type.endswith('_grad') for block in program.blocks for op in block.ops)


class CompiledProgram:
    """A Program compiled for (data-parallel) execution; run it with `Executor.run(compiled, ...)`."""

    def __init__(self, program_or_graph, build_strategy: BuildStrategy | None = None):
        if not isinstance(program_or_graph, Program):
            raise TypeError('The type of program_to_graph parameter is wrong, expected Graph or Program, but '
                            'received %s' % type(program_or_graph))
        if build_strategy is not None and not isinstance(build_strategy, BuildStrategy):
            raise TypeError('build_strategy must be a BuildStrategy, but received %s' % type(build_strategy))
        self._program = program_or_graph
        self._build_strategy = build_strategy
        self._exec_strategy: ExecutionStrategy | None = None
        self._loss_name = None
        self._share_vars_from = None
        self._places = None
        self._is_data_parallel = False
        self._is_inference = False
        self._compiled = False
        self._scope = None
        self._place = None
        self._executor: Runner | None = None
        self._compile_lock = threading.Lock()

    def with_data_parallel(self, loss_name=None, build_strategy=None, exec_strategy=None, share_vars_from=None,
                           places=None) -> CompiledProgram:
        assert not self._is_data_parallel, 'Already compiled with parallel, cannot be recompiled.'
        if build_strategy is not None and not isinstance(build_strategy, BuildStrategy):
            raise TypeError('build_strategy must be a BuildStrategy, but received %s' % type(build_strategy))
        if exec_strategy is not None and not isinstance(exec_strategy, ExecutionStrategy):
            raise TypeError('exec_strategy must be an ExecutionStrategy, but received %s' % type(exec_strategy))
        if share_vars_from is not None and not isinstance(share_vars_from, CompiledProgram):
            raise TypeError('share_vars_from must be a CompiledProgram, but received %s' % type(share_vars_from))
        self._is_data_parallel = True
        if build_strategy is not None:
            self._build_strategy = build_strategy
        self._exec_strategy = exec_strategy
        self._loss_name = loss_name.name if hasattr(loss_name, 'name') else loss_name
        self._share_vars_from = share_vars_from
        if places is not None:
            if not isinstance(places, (list, tuple)):
                places = [places]
            for p in places:
                if not isinstance(p, CPUPlace):
                    raise TypeError('places must be CPU places (paddle_exec runs on the CPU only), got %r' % (p,))
            assert places, 'No places for execution.'
        self._places = places
        if _has_backward_op(self._program):
            assert self._loss_name is not None, (
                'The loss name of CompiledProgram is None. The loss name should be set if CompiledProgram contains '
                'backward part.')
        return self

    def _compile(self, scope: Scope, place) -> CompiledProgram:
        if not self._compiled:
            with self._compile_lock:           # threads making the first runs at once make one runner
                if not self._compiled:
                    self._make_runner(scope, place)
                    return self
        if scope is not None and self._scope is not scope:
            raise ValueError('Cannot compile program with different scope.')
        return self

    def _make_runner(self, scope: Scope, place) -> None:
        share_from = None
        if self._share_vars_from is not None:
            if scope is not None:
                sys.stderr.write('share_vars_from is set, scope is ignored.\n')
            if not self._share_vars_from._is_data_parallel:
                raise ValueError('The shared Program is not data parallel, cannot share variables from it.')
            if self._share_vars_from._executor is None:
                raise ValueError('The shared Program is not compiled and executed, so there is no variables to '
                                 'share.')
            share_from = self._share_vars_from._executor
        if self._is_data_parallel:
            places = self._places if self._places is not None else [CPUPlace() for _ in range(cpu_place_count())]
        else:
            places = [place if place is not None else CPUPlace()]
        if self._build_strategy is None:
            self._build_strategy = BuildStrategy()
        if self._exec_strategy is None:
            self._exec_strategy = ExecutionStrategy()
        bs, es = self._build_strategy, self._exec_strategy
        _validate_build_strategy(bs, self._program, len(places))
        es.use_cuda = False
        resolve_num_threads(es, len(places))
        config = RunConfig.for_data_parallel(es, bs, len(places), self._loss_name)
        self._executor = Runner(config, scope if scope is not None else global_scope(), share_from)
        self._places = list(places)
        self._scope = scope
        self._place = place
        self._compiled = True

    def _run_with(self, exe, feed=None, fetch_list=None, scope=None, return_numpy=True, return_merged=True):
        """What Executor.run does with a CompiledProgram."""
        if scope is None:
            scope = self._scope if self._compiled else global_scope()
        self._compile(scope, getattr(exe, 'place', None))
        return self._executor.run(self._program, feed, fetch_list, None, return_numpy, return_merged)


# --- ParallelExecutor -------------------------------------------------------------------------------------------

class ParallelExecutor:
    """Paddle 1.x's ParallelExecutor: a data-parallel CompiledProgram and an Executor in one object."""

    def __init__(self, use_cuda, loss_name=None, main_program=None, share_vars_from=None, exec_strategy=None,
                 build_strategy=None, num_trainers=1, trainer_id=0, scope=None):
        if build_strategy is None:
            build_strategy = BuildStrategy()
        if num_trainers != 1 and build_strategy.num_trainers != num_trainers:
            sys.stderr.write('The value of build_strategy.num_trainers[%d] is overwritten by the passed '
                             'num_trainers[%d].\n' % (build_strategy.num_trainers, num_trainers))
            build_strategy.num_trainers = num_trainers
        if trainer_id != 0 and build_strategy.trainer_id != trainer_id:
            sys.stderr.write('The value of build_strategy.trainer_id[%d] is overwritten by the passed '
                             'trainer_id[%d].\n' % (build_strategy.trainer_id, trainer_id))
            build_strategy.trainer_id = trainer_id
        if use_cuda:
            raise RuntimeError('ParallelExecutor(use_cuda=True): paddle_exec runs on the CPU only; pass '
                               'use_cuda=False and set CPU_NUM to the number of CPU places')
        self._places = [CPUPlace() for _ in range(cpu_place_count())]
        self._scope = scope if scope is not None else global_scope()
        main_program = main_program if main_program is not None else default_main_program()
        self._compiled_program = CompiledProgram(main_program)
        if share_vars_from:
            assert isinstance(share_vars_from, ParallelExecutor), 'The share_vars_from should be ParallelExecutor.'
        self._compiled_program.with_data_parallel(
            loss_name=loss_name, build_strategy=build_strategy, exec_strategy=exec_strategy,
            share_vars_from=share_vars_from._compiled_program if share_vars_from else None, places=self._places)
        self._place = CPUPlace()
        self._exe = Executor(self._place)
        self._entry_lane = None                 # the lane `run` is (_enter_by), if any
        self._slow = _slow_run(weakref.ref(self))

    def run(self, fetch_list, feed=None, feed_dict=None, return_numpy=True):
        """Runs the program once on every place; see the module docstring for feeds and fetches."""
        if feed is None and feed_dict is not None:
            feed = feed_dict
        compiled = self._compiled_program
        runner = compiled._executor
        if runner is not None and not self._exe._closed:
            # compiled by an earlier run, in this executor's scope: what Executor.run and _run_with would do; the
            # program's lane first, as Runner.run would call it (one layer fewer for a serving request)
            program = compiled._program
            lane = runner.lanes.get(program._id)
            if lane is not None:
                results = lane(program, feed, fetch_list, None, return_numpy)
                if results is not None:
                    self._enter_by(lane, runner, program)
                    return results
            results = runner.run(program, feed, fetch_list, None, return_numpy, True)
            self._enter_by(runner.lanes.get(program._id), runner, program)
            return results
        return self._exe.run(program=self._compiled_program, scope=self._scope, feed=feed, fetch_list=fetch_list,
                             return_numpy=return_numpy)

    def _enter_by(self, lane, runner, program) -> None:
        """After a run: `run` becomes the program's lane itself (lanes.py make_entry), which falls back to this
        method when a check fails; with no lane, this method again. Not for a subclass that overrides run()."""
        if lane is self._entry_lane or type(self).run is not ParallelExecutor.run:
            return
        entry = lanes.make_entry(lane, program, runner, self._exe, self._slow) if lane is not None else None
        if entry is None:
            self.__dict__.pop('run', None)
        else:
            entry.__doc__ = ParallelExecutor.run.__doc__
            self.run = entry
        self._entry_lane = lane

    @property
    def device_count(self) -> int:
        return len(self._places)

    def _runner(self, method: str) -> Runner:
        runner = self._compiled_program._executor
        if runner is None:
            raise TypeError("The type of 'the Executor of compiled program' in ParallelExecutor.%s must be %s, but "
                            "received %s. " % (method, Runner, type(None)))
        return runner

    def drop_local_exe_scopes(self) -> None:
        """Drops the local execution scopes now (they are dropped every num_iteration_per_drop_scope runs)."""
        self._runner('drop_local_exe_scopes').drop_local_exe_scopes()

    def _need_create_local_exe_scopes(self) -> bool:
        return self._runner('_need_create_local_exe_scopes').need_create_local_exe_scopes()

    def close(self) -> None:
        """Stops the thread pool now (it is also stopped when the executor is garbage collected)."""
        self.__dict__.pop('run', None)
        self._entry_lane = None
        if self._compiled_program._executor is not None:
            self._compiled_program._executor.close()

    def cost_model(self):
        """The cost-model policy's table {(op index, op type): (cost, priority, short)} of the compiled graph, None
        before its statistics window closes or under another policy."""
        return cost_model_of(self._compiled_program._executor)


def _slow_run(executor_ref):
    """ParallelExecutor.run for a lane made its `run` (make_entry) to fall back to, holding the executor weakly (the
    entry is in the executor's own __dict__)."""
    def slow(fetch_list, feed, feed_dict, return_numpy):
        pe = executor_ref()
        if pe is None:
            raise RuntimeError('ParallelExecutor.run of an executor that was garbage collected')
        return ParallelExecutor.run(pe, fetch_list, feed, feed_dict, return_numpy)
    return slow
