"""`paddle-exec trace SCRIPT.py -o trace.json`: run a user script under the profiler and write a Chrome trace.

The script runs as `__main__` (its folder first on sys.path, `sys.argv` = [SCRIPT.py, args...], as
`python SCRIPT.py` would) with fluid.profiler's recorder on from its first line to its last: every run() it makes
records its op events, feed/scope/fetch work and stage producers (docs/profiler.md). At the end the trace is
written (chrome://tracing, Perfetto) and Paddle's report printed to stderr, sorted by `--sorted-key`. With
`--paddle-alias`, `import paddle` in the script resolves to paddle_exec (the alias of `python -m
paddle_exec.compat`), for scripts that cannot be edited. A script that fails still gets its trace written, then
its error reported with status 1.
"""
from __future__ import annotations

import argparse
import os
import runpy
import sys

from ..compat.alias import install_paddle_alias, uninstall_paddle_alias
from ..executor.instrument import INSTRUMENTS, Recorder
from ..executor.profile_report import SORT_KEYS_1X, summary_1x, write_chrome_trace

EXAMPLES = """examples:
  paddle-exec trace examples/fit_a_line.py -o trace.json
  paddle-exec trace train.py -o trace.json --sorted-key calls -- --epochs 1     (arguments after -- go to the script)
  paddle-exec trace --paddle-alias old_script.py -o trace.json                   (its `import paddle` is paddle_exec)
"""


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        'trace', help='run a script under the profiler and write a Chrome trace',
        description='Run SCRIPT.py under the profiler and write a Chrome trace (chrome://tracing, Perfetto) of every '
                    'run() it makes; print Paddle\'s profiling report to stderr.',
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('script', metavar='SCRIPT.py', help='the script to run')
    p.add_argument('--output', '-o', metavar='TRACE.json', default='trace.json', help='where to write the trace')
    p.add_argument('--sorted-key', choices=[k for k in SORT_KEYS_1X if k], default='total',
                   help="the report's order (fluid.profiler's sorted_key; default total)")
    p.add_argument('--no-report', action='store_true', help='write the trace only')
    p.add_argument('--paddle-alias', action='store_true', help='make `import paddle` resolve to paddle_exec')
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    script = os.path.abspath(args.script)
    if not os.path.isfile(script):
        print('paddle-exec trace: %s: no such script' % args.script, file=sys.stderr)
        return 1
    script_args = args.passed_args
    saved_argv, saved_path = sys.argv, list(sys.path)
    recorder = Recorder()
    failure = None
    if args.paddle_alias:
        install_paddle_alias()
    INSTRUMENTS.recorder = recorder
    try:
        sys.argv = [script] + script_args
        sys.path.insert(0, os.path.dirname(script))
        runpy.run_path(script, run_name='__main__')
    except SystemExit as exc:
        if exc.code not in (None, 0):
            failure = 'the script exited with status %s' % exc.code
    except Exception as exc:  # noqa: BLE001 - reported after the trace is written
        failure = '%s: %s' % (type(exc).__name__, exc)
    finally:
        if INSTRUMENTS.recorder is recorder:
            INSTRUMENTS.recorder = None
        sys.argv, sys.path[:] = saved_argv, saved_path
        if args.paddle_alias:
            uninstall_paddle_alias()
    write_chrome_trace(recorder.events, args.output)
    ops = sum(1 for e in recorder.events if e.cat == 'op')
    if not args.no_report:
        sys.stderr.write(summary_1x(recorder.events, args.sorted_key))
    print('paddle-exec trace: %d op events (%d events in all) written to %s' % (ops, len(recorder.events),
                                                                              args.output))
    if failure:
        print('paddle-exec trace: %s: %s' % (args.script, failure), file=sys.stderr)
        return 1
    return 0
