"""The launcher: `python -m paddle_exec.distributed.launch [options] train.py [args]` starts the trainers of a job
through MPICH's `mpiexec` (hydra), as Paddle's `python -m paddle.distributed.launch` starts them itself.

    --nproc_per_node N   trainers per machine (default 1)
    --ips h1,h2          the machines (default 127.0.0.1); trainer k runs on machine k // N, hydra reaches the
                         others over ssh as for any MPI job
    --started_port P     trainer j of a machine gets the endpoint ip:P+j (default 6170)
    --log_dir D          each trainer's output (stdout and stderr) goes to D/workerlog.<trainer id>; when the job
                         fails, the end of the failed trainers' logs is printed
    --mpiexec PATH       the mpiexec to use (default: the one beside this Python, then PATH)
    --print_command      print the mpiexec command instead of running it

Every trainer gets Paddle's variables, PADDLE_TRAINER_ID, PADDLE_TRAINERS_NUM, PADDLE_TRAINER_ENDPOINTS,
PADDLE_CURRENT_ENDPOINT and PADDLE_RANK_IN_NODE, through one MPMD command line (`-n 1 -env ... : -n 1 -env ...`),
so MPI rank k is trainer k. The launcher exits with mpiexec's status: non-zero when any trainer failed (a failing
trainer ends the whole job, paddle_exec.distributed.communicator). A plain `mpiexec -n N python train.py` is a job
too: the trainers then take their id from the MPI rank.
"""
from __future__ import annotations

import argparse
import glob
import os
import shutil
import subprocess
import sys

from ...executor.config import child_environment

__all__ = ['main', 'build_command', 'parse_args']


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog='python -m paddle_exec.distributed.launch',
                                     description='Start the trainers of a collective training job through mpiexec.')
    parser.add_argument('--nproc_per_node', type=int, default=1, help='trainers per machine')
    parser.add_argument('--ips', '--cluster_node_ips', dest='ips', default='127.0.0.1',
                        help='comma-separated machines of the job')
    parser.add_argument('--node_ip', default=None, help='accepted for Paddle 1.8 scripts; hydra needs no node ip')
    parser.add_argument('--started_port', type=int, default=6170, help='first endpoint port on each machine')
    parser.add_argument('--log_dir', default=None, help="folder of the trainers' logs (workerlog.N)")
    parser.add_argument('--selected_gpus', '--gpus', dest='gpus', default=None,
                        help='accepted for Paddle scripts; paddle_exec runs on CPUs (use --nproc_per_node)')
    parser.add_argument('--mpiexec', default=None, help='the mpiexec to use')
    parser.add_argument('--print_command', action='store_true', help='print the mpiexec command, run nothing')
    parser.add_argument('training_script', help='the training script')
    parser.add_argument('training_script_args', nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    if args.nproc_per_node < 1:
        parser.error('--nproc_per_node must be at least 1')
    return args


def find_mpiexec(explicit: str | None = None) -> str:
    if explicit:
        return explicit
    beside = os.path.join(os.path.dirname(sys.executable), 'mpiexec')
    if os.access(beside, os.X_OK):
        return beside
    found = shutil.which('mpiexec')
    if found is None:
        raise SystemExit('paddle_exec.distributed.launch: mpiexec not found. Install the distributed extra: '
                         "pip install 'paddle_exec[distributed]' (mpi4py and the MPICH wheel, which brings mpiexec)")
    return found


def build_command(args: argparse.Namespace, mpiexec: str, python: str = sys.executable) -> list[str]:
    """The mpiexec command line of the job (see the module docstring)."""
    ips = [ip.strip() for ip in args.ips.split(',') if ip.strip()]
    n = args.nproc_per_node
    endpoints = ['%s:%d' % (ip, args.started_port + j) for ip in ips for j in range(n)]
    cmd = [mpiexec]
    if len(ips) > 1:
        cmd += ['-hosts', ','.join('%s:%d' % (ip, n) for ip in ips)]
    if args.log_dir:
        script = [python, '-u', '-m', 'paddle_exec.distributed.launch.worker', '--log_dir',
                  os.path.abspath(args.log_dir), args.training_script]
    else:
        script = [python, '-u', args.training_script]
    for rank, endpoint in enumerate(endpoints):
        if rank:
            cmd.append(':')
        cmd += ['-n', '1']
        for name, value in (('PADDLE_TRAINER_ID', rank), ('PADDLE_TRAINERS_NUM', len(endpoints)),
                            ('PADDLE_TRAINER_ENDPOINTS', ','.join(endpoints)), ('PADDLE_CURRENT_ENDPOINT', endpoint),
                            ('PADDLE_RANK_IN_NODE', rank % n)):
            cmd += ['-env', name, str(value)]
        cmd += script + list(args.training_script_args)
    return cmd


def _report_failure(log_dir: str, lines: int = 20) -> None:
    for path in sorted(glob.glob(os.path.join(log_dir, 'workerlog.*'))):
        with open(path, errors='replace') as f:
            text = f.read()
        if 'Traceback' in text or 'Error' in text:
            tail = '\n'.join(text.rstrip().splitlines()[-lines:])
            sys.stderr.write('---- %s (last %d lines) ----\n%s\n' % (path, lines, tail))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    cmd = build_command(args, find_mpiexec(args.mpiexec))
    if args.print_command:
        print(' '.join(cmd))
        return 0
    if args.log_dir:
        os.makedirs(args.log_dir, exist_ok=True)
    proc = subprocess.run(cmd, env=child_environment({}))
    if proc.returncode != 0:
        sys.stderr.write('paddle_exec.distributed.launch: the job failed (mpiexec exit status %d)\n'
                         % proc.returncode)
        if args.log_dir:
            _report_failure(args.log_dir)
    return proc.returncode
