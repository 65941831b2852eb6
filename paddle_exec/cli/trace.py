"""`paddle-exec trace SCRIPT.py -o trace.json`: run a user script under the profiler and write a Chrome trace.

paddle_exec has no profiler yet (issue 17: `fluid.profiler` / `paddle.profiler` with a Chrome trace). Until it
has one, the subcommand takes its arguments as it will then, runs nothing, and says so with exit status 2, so a
script or CI job that calls it fails loudly instead of producing an empty trace.
"""
from __future__ import annotations

import argparse
import sys

EXAMPLES = """examples (once the profiler exists):
  paddle-exec trace examples/fit_a_line.py -o trace.json
  paddle-exec trace train.py -o trace.json -- --epochs 1      (arguments after -- go to the script)
"""

NOT_YET = ('paddle-exec trace: paddle_exec has no profiler yet (issue 17: fluid.profiler / paddle.profiler with a '
           'Chrome trace), so nothing was run and no trace was written; for per-op times today use '
           '`paddle-exec bench MODEL` (its per-op table)')


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        'trace', help='run a script under the profiler and write a Chrome trace (needs the profiler: not yet)',
        description='Run SCRIPT.py under the profiler and write a Chrome trace (chrome://tracing, Perfetto). '
                    'paddle_exec has no profiler yet: until it does this exits with status 2 and runs nothing.',
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('script', metavar='SCRIPT.py', help='the script to run')
    p.add_argument('--output', '-o', metavar='TRACE.json', default='trace.json', help='where to write the trace')
    p.add_argument('script_args', nargs=argparse.REMAINDER, help='arguments for the script (after --)')
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    print(NOT_YET, file=sys.stderr)
    return 2
