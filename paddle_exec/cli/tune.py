"""`paddle-exec tune MODEL|SCRIPT.py`: the strategy search users of ExecutionStrategy do by hand, with the noise shown.

The search is coordinate-wise, one knob at a time in `KNOBS` order (places first, since the thread counts worth
trying depend on them): every value of the knob is timed side by side with the others held at the best so far
(timing.measure: two builds per setting taking turns, a warm-up, `--repeats` rounds of `--steps` steps, rotated
order). The knob moves off its current value only when another value is *clearly* faster: the middle half of its
rounds (quartiles) lies above the current value's. Otherwise the current value stays (Paddle's default, unless an
earlier knob moved it), so a difference inside the noise never becomes advice. A value that wins its sweep is
timed again, afresh, against the current one alone, and is taken only if it wins again (with a dozen values
compared, one beats the noise by luck now and then; the table marks such a value `unconfirmed`). Values whose
middle half overlaps the chosen one's are reported as ties.

A knob that cannot matter for this model is not timed, and the table says why (reduce_strategy with one place;
do_smart_stage without a `staged` in the program). The fusion and memory switches are timed like the rest: where
paddle_exec gives them no effect they come out as ties, which is the honest answer.

The search starts from Paddle's defaults, or from the setting given with bench's options (`--cpu-num 2
--threads 2 ...`), which is how a knob that needs another one set is measured (reduce_strategy needs places).
At the end the best setting and the starting one are timed once more side by side: the speed-up is printed with
its noise when the best wins that too, and otherwise the starting setting is the advice. The advice is printed as
the lines to paste. `--plot out.png` draws every timed setting with the middle half of its rounds (matplotlib, the
plot extra).
"""
from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, replace

from .bench import add_setting_arguments, setting_from_args
from .common import CliError, format_table, progress
from .models import ModelError, builtin_names, load_model
from .timing import DEFAULT, POLICIES, Measurement, Setting, TrainingRun, measure

EXAMPLES = """examples:
  paddle-exec tune fit_a_line --steps 50
  paddle-exec tune mlp --knobs num_threads,executor_policy --repeats 7
  paddle-exec tune my_model.py --plot tune.png     (a script defining build_model() -> (loss, feed))
"""


@dataclass
class Knob:
    name: str               # Paddle's name of the knob
    field: str              # the Setting field
    values: object          # (current Setting, facts) -> values to try
    skip: object = None     # (current Setting, facts) -> why it cannot matter, or None

    def show(self, value) -> str:
        if self.field == 'num_threads':
            return '0 (4 per place)' if value == 0 else str(value)
        if self.field == 'policy':
            return POLICIES[value]
        return str(value)


def _thread_values(current: Setting, facts: dict) -> list:
    wanted = [0, 1, 2, facts['cores']]
    out = []
    for v in wanted:
        resolved = v or 4 * current.cpu_num
        if resolved not in [x or 4 * current.cpu_num for x in out]:
            out.append(v)
    return out


KNOBS = [
    Knob('CPU_NUM', 'cpu_num', lambda s, f: list(range(1, min(f['cores'], 4) + 1))),
    Knob('num_threads', 'num_threads', _thread_values),
    Knob('executor_policy', 'policy', lambda s, f: ['normal', 'inline', 'cost_model']),
    Knob('num_iteration_per_drop_scope', 'drop_scope', lambda s, f: [100, 10, 1]),
    Knob('num_iteration_per_run', 'per_run', lambda s, f: [1, 10]),
    Knob('reduce_strategy', 'reduce', lambda s, f: ['AllReduce', 'Reduce'],
         skip=lambda s, f: 'one place: there is nothing to reduce' if s.cpu_num == 1 else None),
    Knob('enable_sequential_execution', 'sequential', lambda s, f: [False, True]),
    Knob('do_smart_stage', 'smart_stage', lambda s, f: [False, True],
         skip=lambda s, f: None if f['has_stage'] else 'the program has no staged(): there is no IO side to move'),
    Knob('fuse_elewise_add_act_ops', 'fuse_elewise_add_act', lambda s, f: [False, True]),
    Knob('fuse_all_optimizer_ops', 'fuse_all_optimizer', lambda s, f: [False, True]),
    Knob('memory_optimize', 'memory_optimize', lambda s, f: [None, True]),
]
KNOB_NAMES = [k.name for k in KNOBS]


@dataclass
class Row:
    knob: str
    value: str
    setting: Setting
    m: Measurement
    verdict: str


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        'tune', help='search the strategy knobs with short timed runs and print the best as Python to paste',
        description='Search CPU_NUM, ExecutionStrategy (num_threads, executor_policy, num_iteration_per_drop_scope, '
                    'num_iteration_per_run) and BuildStrategy (reduce_strategy, sequential execution, SmartStage, '
                    'fusion and memory switches) one knob at a time with short timed runs, repeated; print steps/s '
                    'per setting with its noise, ties, and the best setting as ExecutionStrategy() lines. Built-in '
                    'models: %s; or a SCRIPT.py defining build_model() -> (loss, feed).' % ', '.join(builtin_names()),
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('model', metavar='MODEL|SCRIPT.py', help='a built-in model or a model script')
    p.add_argument('--steps', type=int, default=100, help='training steps per timed round (default: 100)')
    p.add_argument('--repeats', type=int, default=5, help='timed rounds per setting (default: 5)')
    p.add_argument('--batch', type=int, help='batch size of a built-in model (default: its own)')
    p.add_argument('--knobs', help='comma-separated knobs to search (default: all): ' + ', '.join(KNOB_NAMES))
    p.add_argument('--plot', metavar='OUT.png', help='draw steps/s per setting (needs matplotlib: the plot extra)')
    starting = p.add_argument_group('the starting setting (default: Paddle\'s defaults)')
    add_setting_arguments(starting)
    p.set_defaults(handler=run)


def chosen_knobs(text: str | None) -> list:
    if not text:
        return list(KNOBS)
    names = [n.strip() for n in text.split(',') if n.strip()]
    unknown = [n for n in names if n not in KNOB_NAMES]
    if unknown:
        raise CliError('unknown knob %s; the knobs are: %s' % (', '.join(unknown), ', '.join(KNOB_NAMES)))
    return [k for k in KNOBS if k.name in names]


def pick(current_index: int, measurements: list) -> int:
    """The value to keep: the current one, unless others are clearly faster (then the fastest of those)."""
    current = measurements[current_index]
    better = [i for i, m in enumerate(measurements) if m.clearly_faster(current)]
    return max(better, key=lambda i: measurements[i].median) if better else current_index


def sweep(spec, knob: Knob, current: Setting, facts: dict, steps: int, repeats: int) -> tuple[Setting, list]:
    values = knob.values(current, facts)
    now = getattr(current, knob.field)
    if now not in values:
        values = [now] + values
    settings = [replace(current, **{knob.field: v}) for v in values]
    ms = measure(spec, settings, steps, repeats, desc=knob.name)
    kept = values.index(now)
    best = pick(kept, ms)
    unconfirmed = None
    if best != kept and not confirmed(spec, settings[best], settings[kept], steps, repeats, knob.name):
        best, unconfirmed = kept, best
    rows = []
    for i, (v, s, m) in enumerate(zip(values, settings, ms)):
        if i == best:
            verdict = 'chosen'
        elif i == unconfirmed:
            verdict = 'unconfirmed'
        else:
            verdict = 'tie' if m.ties(ms[best]) else 'slower'
        rows.append(Row(knob.name, knob.show(v), s, m, verdict))
    return settings[best], rows


def confirmed(spec, candidate: Setting, current: Setting, steps: int, repeats: int, name: str) -> bool:
    """A value that won its sweep must win again, timed afresh against the current one alone (new builds): with a
    dozen values compared, one of them beats the noise by luck now and then."""
    again, versus = measure(spec, [candidate, current], steps, repeats, desc='%s again' % name)
    return again.clearly_faster(versus)


def rate_text(x: float) -> str:
    return '%.0f' % x if x >= 100 else '%.1f' % x


def table(rows: list) -> str:
    """One row per timed setting, grouped by the knob swept (named on the group's first row)."""
    chosen = {r.knob: r.m for r in rows if r.verdict == 'chosen'}
    body, previous = [], None
    for r in rows:
        s = r.setting
        versus = chosen.get(r.knob)
        rel = '%+.1f%%' % (100 * (r.m.median / versus.median - 1)) if versus is not None and r.verdict != 'chosen' \
            else ''
        policy = POLICIES[s.policy].replace('USE_', '').replace('_EXECUTOR', '').lower()
        body.append((r.knob if r.knob != previous else '', s.cpu_num, s.threads, policy, s.drop_scope, s.per_run,
                     s.build_text(), rate_text(r.m.median), '%s-%s' % (rate_text(r.m.low), rate_text(r.m.high)),
                     '+-%.1f%%' % (100 * r.m.noise), rel, r.verdict))
        previous = r.knob
    headers = ['knob swept', 'CPU_NUM', 'num_threads', 'policy', 'drop_scope', 'per_run', 'build', 'steps/s',
               'middle half', 'noise', 'vs chosen', 'verdict']
    return format_table(body, headers, 'lrrlrrlrrrrl')


def plot(rows: list, path: str, title: str) -> None:
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        raise CliError("--plot needs matplotlib (pip install 'paddle_exec[plot]')") from None
    labels = ['%s=%s' % (r.knob, r.value) for r in rows]
    medians = [r.m.median for r in rows]
    errors = [[r.m.median - r.m.low for r in rows], [r.m.high - r.m.median for r in rows]]
    colors = {'chosen': '#2e86c1', 'tie': '#85c1e9', 'unconfirmed': '#f5cba7', 'slower': '#bbbbbb'}
    fig, ax = plt.subplots(figsize=(9, 0.35 * len(rows) + 1.5))
    y = list(range(len(rows)))[::-1]
    ax.barh(y, medians, xerr=errors, color=[colors[r.verdict] for r in rows], capsize=3)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in colors.values()]
    ax.legend(handles, ['chosen', 'tie (middle halves overlap)', 'faster once, not again', 'slower'],
              loc='lower right', fontsize=8)
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=8)
    ax.set_xlabel('steps/s (median; whiskers: the middle half of the rounds)')
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def run(args: argparse.Namespace) -> int:
    if args.steps < 1 or args.repeats < 2:
        raise CliError('--steps must be at least 1 and --repeats at least 2 (the noise needs two rounds)')
    knobs = chosen_knobs(args.knobs)
    try:
        spec = load_model(args.model, args.batch)
    except ModelError as exc:
        raise CliError(str(exc)) from exc
    start = setting_from_args(args)
    probe = TrainingRun(spec, start)
    facts = {'cores': os.cpu_count() or 1, 'has_stage': probe.has_stage}
    probe.close()
    del probe
    print('tuning %s (%s): %d rounds of %d steps per setting, one knob at a time'
          % (spec.name, spec.description, args.repeats, args.steps))
    if start != DEFAULT:
        print('starting from: %s' % ', '.join('%s=%s' % kv for kv in start.changes().items()))
    current, rows, skipped = start, [], []
    for knob in progress(knobs, desc='knobs'):
        why = knob.skip(current, facts) if knob.skip else None
        if why:
            skipped.append('%s: not timed, %s' % (knob.name, why))
            continue
        current, knob_rows = sweep(spec, knob, current, facts, args.steps, args.repeats)
        rows += knob_rows
    print()
    print(table(rows))
    for line in skipped:
        print(line)
    base = "Paddle's defaults" if start == DEFAULT else 'the starting setting'
    print()
    if current == start:
        best_m, = measure(spec, [current], args.steps, args.repeats, desc='best')
        print('best: %s (%s steps/s, %s-%s); no knob was clearly faster'
              % (base, rate_text(best_m.median), rate_text(best_m.low), rate_text(best_m.high)))
    else:
        best_m, base_m = measure(spec, [current, start], args.steps, args.repeats, desc='best vs start')
        gain = 100 * (best_m.median / base_m.median - 1)
        if best_m.clearly_faster(base_m):
            print('best: %s steps/s (%s-%s) against %s (%s-%s) with %s: %+.1f%%, beyond the noise'
                  % (rate_text(best_m.median), rate_text(best_m.low), rate_text(best_m.high),
                     rate_text(base_m.median), rate_text(base_m.low), rate_text(base_m.high), base, gain))
        else:
            print('best: %s (%s), since the search\'s pick (%s) was timed again side by side and came out at %s '
                  'steps/s against %s (%+.1f%%): the middle halves of their rounds overlap, a tie within the noise'
                  % (base, ', '.join('%s=%s' % kv for kv in start.changes().items()) or 'nothing changed',
                     ', '.join('%s=%s' % kv for kv in current.changes(start).items()), rate_text(best_m.median),
                     rate_text(base_m.median), gain))
            current = start
    print('\n# the best setting, to paste (fluid = paddle_exec.fluid or paddle.fluid):')
    print('\n'.join(current.python_lines()))
    if args.plot:
        plot(rows, args.plot, 'paddle-exec tune %s: %d rounds of %d steps' % (spec.name, args.repeats, args.steps))
        print('\nplot written to %s' % args.plot)
    return 0
