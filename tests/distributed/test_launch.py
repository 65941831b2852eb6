"""The launcher's command line (no MPI needed): one MPMD mpiexec command with Paddle's variables per trainer,
hosts for --ips, the log-writing worker for --log_dir; and the worker itself."""
import subprocess
import sys

import pytest

from paddle_exec.distributed.launch import build_command, parse_args


def env_of(cmd, rank):
    """The -env pairs of trainer `rank`'s part of the MPMD command."""
    parts, part = [], []
    for arg in cmd[1:]:
        if arg == ':':
            parts.append(part)
            part = []
        else:
            part.append(arg)
    parts.append(part)
    mine = parts[rank]
    return {mine[i + 1]: mine[i + 2] for i, a in enumerate(mine) if a == '-env'}


def test_one_machine():
    cmd = build_command(parse_args(['--nproc_per_node', '2', 'train.py', '--lr', '0.1']), 'mpiexec', 'py')
    assert cmd[0] == 'mpiexec' and '-hosts' not in cmd and cmd.count(':') == 1
    assert env_of(cmd, 1) == {'PADDLE_TRAINER_ID': '1', 'PADDLE_TRAINERS_NUM': '2',
                              'PADDLE_TRAINER_ENDPOINTS': '127.0.0.1:6170,127.0.0.1:6171',
                              'PADDLE_CURRENT_ENDPOINT': '127.0.0.1:6171', 'PADDLE_RANK_IN_NODE': '1'}
    assert cmd[-5:] == ['py', '-u', 'train.py', '--lr', '0.1']


def test_two_machines_and_logs():
    cmd = build_command(parse_args(['--ips', 'h1,h2', '--nproc_per_node', '2', '--started_port', '7000',
                                    '--log_dir', '/tmp/logs', 'train.py']), 'mpiexec', 'py')
    assert cmd[1:3] == ['-hosts', 'h1:2,h2:2']
    assert [env_of(cmd, r)['PADDLE_CURRENT_ENDPOINT'] for r in range(4)] == ['h1:7000', 'h1:7001', 'h2:7000',
                                                                             'h2:7001']
    assert env_of(cmd, 3)['PADDLE_RANK_IN_NODE'] == '1'
    assert cmd[-7:] == ['py', '-u', '-m', 'paddle_exec.distributed.launch.worker', '--log_dir', '/tmp/logs',
                        'train.py']


def test_bad_arguments():
    with pytest.raises(SystemExit):
        parse_args(['--nproc_per_node', '0', 'train.py'])


def test_print_command():
    out = subprocess.run([sys.executable, '-m', 'paddle_exec.distributed.launch', '--mpiexec', 'mpiexec',
                          '--print_command', '--nproc_per_node', '2', 'train.py'], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith('mpiexec -n 1 -env PADDLE_TRAINER_ID 0 ')


def test_worker_writes_the_log(tmp_path):
    script = tmp_path / 'hello.py'
    script.write_text('import sys\nprint("out", sys.argv[1:])\nsys.stderr.write("err\\n")\n')
    proc = subprocess.run([sys.executable, '-m', 'paddle_exec.distributed.launch.worker', '--log_dir',
                           str(tmp_path / 'logs'), str(script), 'a', 'b'], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / 'logs' / 'workerlog.0').read_text() == "out ['a', 'b']\nerr\n"
