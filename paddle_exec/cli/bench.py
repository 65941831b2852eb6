"""`paddle-exec bench MODEL`: training steps/s of a model under one strategy setting, and where a step's time goes.

The figure is the median steps/s of `--repeats` rounds of `--steps` steps after a warm-up (timing.py), printed
with the middle half of the rounds (quartiles) and the slowest and fastest round, so the noise is in plain sight.
The per-op table comes from a second, separate run: the cost-model policy's statistics window on one place and
one thread, which times every op alone with time.perf_counter (the `Executor.cost_model()` table; compiled segments
are off for that run, or it would time segments). Its sum is set
against the step time measured around the same runs, and the difference is reported as the executor's own work
(feeding, scheduling, fetching), so the table never claims more than it measured. `--no-ops` skips it; `--json`
writes every number.
"""
from __future__ import annotations

import argparse
import json
import os
from collections import defaultdict

from .common import CliError, format_table
from .models import ModelError, builtin_names, load_model
from .timing import DEFAULT, POLICIES, Setting, measure, profile_ops

EXAMPLES = """examples:
  paddle-exec bench fit_a_line
  paddle-exec bench mlp --cpu-num 2 --threads 2 --steps 100
  paddle-exec bench deepfm --policy inline --repeats 3 --json deepfm.json
  paddle-exec bench my_model.py             (a script defining build_model() -> (loss, feed))
"""


def add_setting_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument('--cpu-num', type=int, default=1, help='CPU places, as CPU_NUM (default: 1)')
    p.add_argument('--threads', type=int, default=0,
                   help='ExecutionStrategy.num_threads (default: 0, which Paddle turns into 4 per place)')
    p.add_argument('--policy', choices=sorted(POLICIES), default='normal',
                   help='ExecutionStrategy.executor_policy: normal (Paddle), inline or cost_model (DeepRec)')
    p.add_argument('--drop-scope', type=int, default=100, help='num_iteration_per_drop_scope (default: 100)')
    p.add_argument('--per-run', type=int, default=1, help='num_iteration_per_run (default: 1)')
    p.add_argument('--reduce', action='store_true', help='BuildStrategy.reduce_strategy = Reduce')
    p.add_argument('--sequential', action='store_true', help='BuildStrategy.enable_sequential_execution = True')


def setting_from_args(args: argparse.Namespace) -> Setting:
    for name in ('cpu_num', 'per_run'):
        if getattr(args, name) < 1:
            raise CliError('--%s must be at least 1' % name.replace('_', '-'))
    if args.threads < 0 or args.drop_scope < 0:
        raise CliError('--threads and --drop-scope must not be negative')
    return Setting(cpu_num=args.cpu_num, num_threads=args.threads, policy=args.policy, drop_scope=args.drop_scope,
                   per_run=args.per_run, reduce='Reduce' if args.reduce else 'AllReduce', sequential=args.sequential)


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        'bench', help='training steps/s of a built-in or scripted model, with a per-op table',
        description='Train MODEL for a few timed rounds under one strategy setting and print steps/s (median, '
                    'middle half of the rounds, slowest and fastest), then a per-op table of one step. Built-in '
                    'models: %s. A SCRIPT.py defining build_model() -> (loss, feed) works too.'
                    % ', '.join(builtin_names()),
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('model', metavar='MODEL|SCRIPT.py', help='a built-in model or a model script')
    p.add_argument('--batch', type=int, help='batch size of a built-in model (default: its own)')
    p.add_argument('--steps', type=int, default=200, help='training steps per timed round (default: 200)')
    p.add_argument('--repeats', type=int, default=5, help='timed rounds (default: 5)')
    add_setting_arguments(p)
    p.add_argument('--no-ops', action='store_true', help='skip the per-op table')
    p.add_argument('--top', type=int, default=12, help='ops shown in the per-op table (default: 12)')
    p.add_argument('--json', metavar='OUT.json', help='write the numbers as JSON')
    p.set_defaults(handler=run)


def op_tables(profile: dict, top: int) -> str:
    ops = profile['ops']
    total = sum(t for _, _, t in ops)
    step = profile['step_seconds']
    rows = [(i, op_type, '%.1f' % (t * 1e6), '%.1f%%' % (100 * t / total if total else 0))
            for i, op_type, t in sorted(ops, key=lambda o: -o[2])[:top]]
    by_type = defaultdict(lambda: [0, 0.0])
    for _, op_type, t in ops:
        by_type[op_type][0] += 1
        by_type[op_type][1] += t
    type_rows = [(op_type, n, '%.1f' % (t * 1e6), '%.1f%%' % (100 * t / total if total else 0))
                 for op_type, (n, t) in sorted(by_type.items(), key=lambda kv: -kv[1][1])[:top]]
    outside = max(0.0, step - total)
    lines = ['per-op times of one step (%d ops; the cost-model window on 1 place, 1 thread, over %d runs; ops one by '
             'one, compiled segments off):'
             % (len(ops), profile['runs']),
             format_table(rows, ['op', 'type', 'us/step', 'share'], 'rlrr'),
             '' if len(ops) <= top else '(%d more not shown)' % (len(ops) - top), '',
             'by op type:', format_table(type_rows, ['type', 'ops', 'us/step', 'share'], 'lrrr'),
             '' if len(by_type) <= top else '(%d more types not shown)' % (len(by_type) - top), '',
             'ops: %.1f us of a %.1f us step (%.0f%%); the rest, %.1f us, is the executor\'s own work (feed, '
             'scheduling, fetch, timers)' % (total * 1e6, step * 1e6, 100 * total / step if step else 0,
                                             outside * 1e6)]
    return '\n'.join(line for line in lines if line is not None)


def run(args: argparse.Namespace) -> int:
    if args.steps < 1 or args.repeats < 1:
        raise CliError('--steps and --repeats must be at least 1')
    try:
        spec = load_model(args.model, args.batch)
    except ModelError as exc:
        raise CliError(str(exc)) from exc
    setting = setting_from_args(args)
    batch = 'batch %d' % spec.batch if spec.batch else 'batch from the script'
    print('model    %s (%s): %s' % (spec.name, batch, spec.description))
    changes = setting.changes()
    print('setting  CPU_NUM=%d num_threads=%d (%s) policy=%s drop_scope=%d per_run=%d build=%s'
          % (setting.cpu_num, setting.threads, 'set' if setting.num_threads else '0: 4 per place',
             POLICIES[setting.policy], setting.drop_scope, setting.per_run, setting.build_text()))
    m, = measure(spec, [setting], args.steps, args.repeats, desc='bench %s' % spec.name)
    print('steps/s  %.1f  (middle half of the rounds %.1f-%.1f, +-%.1f%%; slowest %.1f, fastest %.1f; %d rounds of %d '
          'steps)' % (m.median, m.low, m.high, 100 * m.noise, min(m.rates), max(m.rates), args.repeats, args.steps))
    result = {'model': spec.name, 'batch': spec.batch, 'setting': {k: v for k, v in vars(setting).items()},
              'changed_from_default': changes, 'steps_per_round': args.steps, 'rates': m.rates,
              'median': m.median}
    if not args.no_ops:
        profile = profile_ops(spec)
        print()
        print(op_tables(profile, args.top))
        result['ops'] = [{'index': i, 'type': t, 'seconds': s} for i, t, s in profile['ops']]
        result['profile_step_seconds'] = profile['step_seconds']
    if args.json:
        folder = os.path.dirname(os.path.abspath(args.json))
        os.makedirs(folder, exist_ok=True)
        with open(args.json, 'w') as f:
            json.dump(result, f, indent=2)
        print('\nnumbers written to %s' % args.json)
    return 0


__all__ = ['add_parser', 'run', 'add_setting_arguments', 'setting_from_args', 'op_tables', 'DEFAULT']
