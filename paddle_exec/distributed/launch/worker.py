"""One trainer of a launched job with --log_dir: its stdout and stderr go to <log_dir>/workerlog.<trainer id>, then
the training script runs in this process as `python train.py args` would run it.

    python -m paddle_exec.distributed.launch.worker --log_dir D train.py args     (the launcher's command)
"""
from __future__ import annotations

import os
import runpy
import sys

from ...executor.config import trainer_environment


def main(argv: list[str]) -> None:
    if len(argv) < 3 or argv[0] != '--log_dir':
        raise SystemExit('usage: python -m paddle_exec.distributed.launch.worker --log_dir DIR script [args]')
    log_dir, script, args = argv[1], argv[2], argv[3:]
    os.makedirs(log_dir, exist_ok=True)
    path = os.path.join(log_dir, 'workerlog.%d' % trainer_environment().trainer_id)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    sys.argv = [script] + args
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name='__main__')


if __name__ == '__main__':
    main(sys.argv[1:])
