"""`python -m paddle_exec.compat [--no-md5-check] script.py args...`: runs a Paddle script unchanged on paddle_exec.

The script runs as `__main__` with `sys.argv` = [script.py, args...] and its folder first on sys.path, as
`python script.py` would, after the `paddle` import alias (alias.py) is installed. `-m module args...` runs a
module instead. `--no-md5-check` makes paddle.dataset trust the files already in its cache whatever their md5
(small fixture files in the real formats, or partial copies); downloads still happen for missing files.

One thing the alias cannot fix: numpy >= 2.3 refuses `float(a)` and `'%f' % a` for one-element arrays with ndim > 0
that the script builds itself (the book's fit_a_line prints rows of its own label array that way). Fetched values
are FetchedArrays and convert; for the script's own arrays the TypeError gets a note that says so (numpy < 2.3
only warns).
"""
from __future__ import annotations

import argparse
import os
import runpy
import sys

from ..dataset import common
from .alias import install_paddle_alias

NUMPY_SCALAR_HINT = ('numpy >= 2.3 refuses float(), int() and %-formatting of one-element arrays with ndim > 0, '
                     'which numpy 1.x (Paddle 1.8\'s) accepted. Values fetched from paddle_exec accept them; this '
                     'array was made by the script itself. Run such scripts with numpy<2.3 (it only warns).')


def _run_with_hint(run) -> None:
    """Runs `run()`; numpy's size-1 conversion TypeError gets a note on why and what to do (Python >= 3.11)."""
    try:
        run()
    except TypeError as exc:
        if 'only 0-dimensional arrays can be converted' in str(exc) and hasattr(exc, 'add_note'):
            exc.add_note(NUMPY_SCALAR_HINT)
        raise


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog='python -m paddle_exec.compat',
                                     description='Run a Paddle script with `import paddle` resolving to paddle_exec.')
    parser.add_argument('--no-md5-check', action='store_true',
                        help='paddle.dataset uses cached files without checking their md5')
    parser.add_argument('-m', dest='module', help='run a module (as python -m) instead of a script')
    parser.add_argument('script', nargs='?', help='the script to run')
    parser.add_argument('args', nargs=argparse.REMAINDER, help="the script's own arguments")
    opts = parser.parse_args(argv)
    if opts.module is None and opts.script is None:
        parser.error('give a script to run (or -m module)')
    if opts.no_md5_check:
        common.verify_md5 = False
    install_paddle_alias()
    if opts.module is not None:
        rest = ([opts.script] if opts.script is not None else []) + opts.args
        sys.argv = [opts.module] + rest
        _run_with_hint(lambda: runpy.run_module(opts.module, run_name='__main__', alter_sys=True))
        return
    script = os.path.abspath(opts.script)
    sys.argv = [opts.script] + opts.args
    sys.path.insert(0, os.path.dirname(script))
    _run_with_hint(lambda: runpy.run_path(script, run_name='__main__'))


if __name__ == '__main__':
    main()
