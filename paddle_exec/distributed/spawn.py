"""paddle.distributed.spawn: runs a function as every trainer of a new job of `nprocs` processes, over MPI.

    def train(lr):
        dist.init_parallel_env()
        ...                                   # dist.get_rank(), fleet, collectives: a trainer of the job
    if __name__ == '__main__':
        dist.spawn(train, args=(0.1,), nprocs=2)

Paddle starts multiprocessing children that meet over NCCL / gloo; paddle_exec's trainers meet through mpiexec,
so spawn builds the launcher's command (launch/__init__.py: PADDLE_TRAINER_ID, endpoints, ... per rank) with
launch/spawned.py as the program: each trainer loads the function's module (the main script is run under the name
`__mp_main__`, so its `if __name__ == '__main__':` block does not run again, as with multiprocessing's spawn), and
calls it with `args`, unpickled. So `func` must be a module-level function and `args` picklable. `join=True`
waits for the job and raises when it failed (any trainer raising ends the job); `join=False` returns at once and
the context's join() waits. `nprocs=-1` is the number of CPUs (Paddle's CPU default). Options: `ips` (machines, as
the launcher's --ips) and `started_port`; Paddle's `backend` / `gpus` options are accepted (MPI, CPUs).
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import pickle
import subprocess
import sys
import tempfile

from ..executor.config import child_environment
from .launch import build_command, find_mpiexec

__all__ = ['spawn', 'MultiprocessContext']

_WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'launch', 'spawned.py')


class MultiprocessContext:
    """The spawned job: join() waits for it (True when it has ended), raising if it failed."""

    def __init__(self, process: subprocess.Popen, payload: str):
        self.process, self._payload = process, payload

    def join(self, timeout=None) -> bool:
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        if os.path.exists(self._payload):
            os.remove(self._payload)
        if code != 0:
            raise RuntimeError('paddle.distributed.spawn: the job failed (mpiexec exit status %d); the failing '
                               "trainer's traceback is printed above" % code)
        return True


def _where(func) -> dict:
    """How a trainer finds `func`: its module (the main script's path when it is defined there) and name."""
    qualname = getattr(func, '__qualname__', '')
    if not callable(func) or '<' in qualname:
        raise ValueError('spawn: func must be a module-level function (the trainers import it by name), got %r'
                         % (func,))
    module = func.__module__
    if module == '__main__':
        path = getattr(sys.modules['__main__'], '__file__', None)
        if path is None:
            raise ValueError('spawn: %s is defined in an interactive session; define it in a script or module'
                             % qualname)
        return {'path': os.path.abspath(path), 'module': None, 'qualname': qualname}
    return {'path': None, 'module': module, 'qualname': qualname}


def spawn(func, args=(), nprocs: int = -1, join: bool = True, daemon: bool = False, **options):
    """Starts `nprocs` trainers running func(*args) (see the module docstring); returns the MultiprocessContext."""
    nprocs = multiprocessing.cpu_count() if nprocs is None or nprocs < 1 else int(nprocs)
    where = _where(func)
    fd, payload = tempfile.mkstemp(prefix='paddle_exec_spawn_', suffix='.pkl')
    with os.fdopen(fd, 'wb') as f:
        pickle.dump(where, f)               # read first: the args may need the function's module to unpickle
        pickle.dump(tuple(args), f)
    launch = argparse.Namespace(ips=options.get('ips', '127.0.0.1'), nproc_per_node=nprocs,
                                started_port=int(options.get('started_port', 6170)), log_dir=None,
                                training_script=_WORKER, training_script_args=[payload])
    cmd = build_command(launch, find_mpiexec(options.get('mpiexec')))
    context = MultiprocessContext(subprocess.Popen(cmd, env=child_environment({})), payload)
    if join:
        context.join()
    return context
