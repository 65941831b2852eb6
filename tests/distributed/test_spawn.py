"""paddle.distributed.spawn: a function of the main script runs as both trainers of a new MPI job (its args, the
script's own class included, pickled across); a trainer that raises fails spawn; lambdas are refused."""
import os
import sys

import pytest

import paddle_exec.distributed as dist

from .test_mpi import MPIEXEC, job

JOB = '''
import sys
import paddle_exec.distributed as dist


class Scale:
    def __init__(self, k):
        self.k = k


def train(scale, fail):
    dist.init_parallel_env()
    if fail and dist.get_rank() == 1:
        raise ValueError('trainer 1 fails on purpose')
    out = []
    dist.all_gather_object(out, dist.get_rank() * scale.k)
    sys.stdout.write('trainer %d of %d %s\\n' % (dist.get_rank(), dist.get_world_size(), out))


if __name__ == '__main__':
    print('main block runs once')
    context = dist.spawn(train, args=(Scale(10), len(sys.argv) > 1), nprocs=2)
    print('joined', context.join())
'''


@pytest.mark.skipif(MPIEXEC is None, reason='mpiexec not found')
def test_spawn_runs_the_function_as_every_trainer(tmp_path):
    script = tmp_path / 'job.py'
    script.write_text(JOB)
    rc, out, _ = job([sys.executable, str(script)], cwd=str(tmp_path))
    assert rc == 0, out
    assert 'trainer 0 of 2 [0, 10]' in out and 'trainer 1 of 2 [0, 10]' in out, out
    assert out.count('main block runs once') == 1 and 'joined True' in out, out
    assert not [f for f in os.listdir(tmp_path) if f.endswith('.pkl')]


@pytest.mark.skipif(MPIEXEC is None, reason='mpiexec not found')
def test_a_failing_trainer_fails_spawn(tmp_path):
    script = tmp_path / 'job.py'
    script.write_text(JOB)
    rc, out, _ = job([sys.executable, str(script), 'fail'], cwd=str(tmp_path))
    assert rc != 0 and 'trainer 1 fails on purpose' in out and 'spawn: the job failed' in out, out


def test_spawn_refuses_what_a_trainer_cannot_import():
    with pytest.raises(ValueError, match='module-level function'):
        dist.spawn(lambda: None, nprocs=2)
