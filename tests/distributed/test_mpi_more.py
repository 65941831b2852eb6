"""paddle.distributed's reduce / reduce_scatter / scatter / gather / alltoall, send / recv, sub-groups and object
collectives in a real job of two trainers over MPI (mpi_more_cases.py; skipped without the `[distributed]` extra)."""
import os
import sys

import pytest

from .test_mpi import HERE, MPIEXEC, job

pytestmark = pytest.mark.skipif(MPIEXEC is None, reason='mpiexec not found')


@pytest.fixture(scope='module')
def cases():
    """One job runs every case (starting trainers costs seconds)."""
    return job([MPIEXEC, '-n', '2', sys.executable, os.path.join(HERE, 'mpi_more_cases.py')])


@pytest.mark.parametrize('name', ['parts', 'p2p', 'groups', 'objects', 'gloo_checkpoint', 'hybrid', 'transpiler',
                                  'queue'])
def test_two_trainers(cases, name):
    rc, out, _ = cases
    assert rc == 0, out
    assert out.splitlines().count('ok ' + name) == 2, out     # from both trainers
