"""The `paddle-exec` command: look into saved Paddle models, run them, export them to ONNX, and measure and tune
the executor, without writing code.

    paddle-exec inspect PATH [--graphviz out.svg]      feeds, fetches, ops, parameters of a saved model
    paddle-exec run PATH --feed x=x.npy -o out.npz     one inference run
    paddle-exec export PATH --onnx out.onnx            the model as ONNX (the onnx extra)
    paddle-exec bench MODEL                            steps/s of a built-in or scripted model, per-op table
    paddle-exec tune MODEL|SCRIPT.py [--steps N]       searches ExecutionStrategy / BuildStrategy / CPU_NUM
    paddle-exec trace SCRIPT.py -o trace.json          under the profiler (not yet: exits 2)

Each subcommand is one module with `add_parser(subparsers)` (its -h text and an example) and a handler
`run(args) -> exit status`. Errors the user can fix are `CliError`s and print as one line,
`paddle-exec: error: <cause>`, exit status 1; any other exception prints the same way with its type, and
`--traceback` shows the whole trace. Argument errors are argparse's (exit status 2).
"""
from __future__ import annotations

import argparse
import sys

from . import bench, export, inspect_model, run_model, trace, tune
from .common import CliError

__all__ = ['main', 'build_parser', 'CliError']

SUBCOMMANDS = (inspect_model, run_model, export, bench, tune, trace)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog='paddle-exec', description=__doc__.split('\n\n')[0].replace('\n', ' '),
        epilog='Run `paddle-exec COMMAND -h` for the options and an example of each command.')
    parser.add_argument('--traceback', action='store_true', help='show the full Python traceback of an error')
    subparsers = parser.add_subparsers(dest='command', metavar='COMMAND')
    for module in SUBCOMMANDS:
        module.add_parser(subparsers)
    return parser


def _one_line(exc: BaseException) -> str:
    text = ' '.join(str(exc).split())
    return text if isinstance(exc, CliError) else '%s: %s' % (type(exc).__name__, text or repr(exc))


def main(argv=None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    # everything after the first `--` belongs to a script the subcommand runs (trace), not to paddle-exec
    passed = argv[argv.index('--') + 1:] if '--' in argv else []
    argv = argv[:argv.index('--')] if '--' in argv else argv
    args = parser.parse_args(argv)
    args.passed_args = passed
    if args.command is None:
        parser.print_help()
        return 2
    try:
        return args.handler(args)
    except KeyboardInterrupt:
        print('paddle-exec: interrupted', file=sys.stderr)
        return 130
    except Exception as exc:                    # one line with the cause; --traceback for the rest
        if args.traceback:
            raise
        print('paddle-exec %s: error: %s' % (args.command, _one_line(exc)), file=sys.stderr)
        return 1
