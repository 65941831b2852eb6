"""Jobs of two real trainer processes over MPI (the `[distributed]` extra; skipped without it): training and
collectives equal one process (mpi_cases.py), the launcher (logs, two hosts), a failing trainer ending the job,
trainers with different programs stopped at startup."""
import os
import shutil
import subprocess
import sys
import time

import pytest

pytest.importorskip('mpi4py')
HERE = os.path.dirname(os.path.abspath(__file__))
MPIEXEC = (os.path.join(os.path.dirname(sys.executable), 'mpiexec')
           if os.access(os.path.join(os.path.dirname(sys.executable), 'mpiexec'), os.X_OK) else shutil.which('mpiexec'))
pytestmark = pytest.mark.skipif(MPIEXEC is None, reason='mpiexec not found')
ENV = {**os.environ, 'CPU_NUM': '1'}


def job(args, timeout=300, cwd=None, env=None):
    start = time.time()
    proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env or ENV, cwd=cwd)
    return proc.returncode, proc.stdout + proc.stderr, time.time() - start


def launch(*args):
    return [sys.executable, '-m', 'paddle_exec.distributed.launch', *args]


@pytest.fixture(scope='module')
def cases():
    """One job runs every case of mpi_cases.py (starting trainers costs seconds)."""
    return job([MPIEXEC, '-n', '2', sys.executable, os.path.join(HERE, 'mpi_cases.py')])


@pytest.mark.parametrize('name', ['fleet', 'fleet_unfused', 'fleet_small_buckets', 'fleet_graph', 'fleet_places',
                                  'sparse', 'fleet18_nccl2', 'fleet18_grad_allreduce', 'fleet18_local_sgd',
                                  'num_trainers', 'collectives', 'sink'])
def test_two_trainers_equal_one_process(cases, name):
    rc, out, _ = cases
    assert rc == 0, out
    assert out.splitlines().count('ok ' + name) == 2, out     # from both trainers


def test_gradients_written_into_the_bucket_over_mpi_equal_one_process():
    """Segments compiled at the first run, so the bucket sink is taken (mpi_cases.py case_sink checks it was)."""
    rc, out, _ = job([MPIEXEC, '-n', '2', sys.executable, os.path.join(HERE, 'mpi_cases.py'), 'sink'],
                     env={**ENV, 'PADDLE_EXEC_COMPILE': 'sync'})
    assert rc == 0, out
    assert out.splitlines().count('ok sink') == 2, out


def test_launcher_runs_the_job_with_per_trainer_logs(tmp_path):
    logs = tmp_path / 'logs'
    rc, out, _ = job(launch('--nproc_per_node', '2', '--log_dir', str(logs), os.path.join(HERE, 'mpi_cases.py'),
                            'collectives'))
    assert rc == 0, out
    for rank in (0, 1):
        assert 'ok collectives' in (logs / ('workerlog.%d' % rank)).read_text()


def test_launcher_on_two_hosts(tmp_path):
    """--ips: one trainer per host (127.0.0.1 and localhost are both this machine, which hydra runs directly).
    Each trainer's lines are read from its own log: on the job's shared stdout the two trainers' writes interleave."""
    script = tmp_path / 'whoami.py'
    script.write_text('import paddle_exec.distributed as dist\n'
                      'env = dist.ParallelEnv()\n'
                      'print("trainer", env.rank, env.world_size, env.current_endpoint,\n'
                      '      ",".join(env.trainer_endpoints))\n')
    logs = tmp_path / 'logs'
    rc, out, _ = job(launch('--ips', '127.0.0.1,localhost', '--started_port', '7000', '--log_dir', str(logs),
                            str(script)))
    assert rc == 0, out
    endpoints = '127.0.0.1:7000,localhost:7000'
    assert (logs / 'workerlog.0').read_text() == 'trainer 0 2 127.0.0.1:7000 %s\n' % endpoints
    assert (logs / 'workerlog.1').read_text() == 'trainer 1 2 localhost:7000 %s\n' % endpoints


FAILING = '''
import sys, numpy as np
import paddle_exec.distributed.fleet as fleet
fleet.init(is_collective=True)
if fleet.worker_index() == 1:
    raise ValueError('trainer 1 gives up')
fleet.util.all_reduce(np.ones(3))      # trainer 0 waits here for a peer that is gone
'''


def test_a_failing_trainer_ends_the_job(tmp_path):
    script = tmp_path / 'failing.py'
    script.write_text(FAILING)
    rc, out, took = job([MPIEXEC, '-n', '2', sys.executable, str(script)], timeout=120)
    assert rc not in (0, 124) and took < 60, out
    assert 'ValueError: trainer 1 gives up' in out and 'trainer 1 of 2 failed; ending the job' in out
    rc, out, _ = job(launch('--nproc_per_node', '2', '--log_dir', str(tmp_path / 'logs'), str(script)), timeout=120)
    assert rc != 0
    assert 'the job failed' in out and 'workerlog.1' in out and 'ValueError: trainer 1 gives up' in out


DIFFERENT = '''
import paddle_exec as paddle, paddle_exec.static as static
import paddle_exec.distributed.fleet as fleet
fleet.init(is_collective=True)
main, startup = static.Program(), static.Program()
with static.program_guard(main, startup):
    x = static.data(name='x', shape=[-1, 4], dtype='float32')
    loss = paddle.mean(static.nn.fc(x, 3 + fleet.worker_index()))
    fleet.distributed_optimizer(paddle.optimizer.SGD(0.1)).minimize(loss)
static.Executor(paddle.CPUPlace()).run(startup)
'''


def test_trainers_with_different_programs_stop_at_startup(tmp_path):
    script = tmp_path / 'different.py'
    script.write_text(DIFFERENT)
    rc, out, took = job([MPIEXEC, '-n', '2', sys.executable, str(script)], timeout=120)
    assert rc != 0 and took < 60, out
    assert ("The trainers of this job run different programs: trainer 0 has 'parameter fc_0.b_0 [3] float32' where "
            "trainer 1 has 'parameter fc_0.b_0 [4] float32'") in out
