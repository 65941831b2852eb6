"""What the profiler's events become: Paddle's summary tables and a chrome trace.

    print(summary_1x(events, sorted_key='total'))     # fluid.profiler's "Profiling Report"
    print(summary_2x(events, sorted_by='CPUTotal'))   # paddle.profiler.Profiler.summary's tables
    write_chrome_trace(events, path)                  # chrome://tracing, Perfetto: one complete event per op run

Threads are numbered as Paddle numbers them, in the order they first recorded an event (thread0 is usually the
caller's). Rows group events by thread and name; 'op' events are computation, feed/fetch/scope events are the
framework's work around the ops, 'run' events the wall time of whole run() calls.
"""
from __future__ import annotations

import json
import os
from collections import OrderedDict

__all__ = ['summary_1x', 'summary_2x', 'chrome_trace', 'write_chrome_trace', 'SORT_KEYS_1X']

# fluid.profiler's sorted_key -> (how the report says it, the row statistic sorted by)
SORT_KEYS_1X = {None: ('event first end time', None), 'calls': ('number of calls', 'calls'),
                'total': ('total time', 'total'), 'max': ('maximum time', 'max'), 'min': ('minimum time', 'min'),
                'ave': ('average time', 'ave')}
TABLE_CATS = ('op', 'feed', 'fetch', 'scope', 'stage', 'user')


def thread_numbers(events) -> dict:
    """thread ident -> its number, in the order threads first recorded an event."""
    numbers: dict = OrderedDict()
    for e in sorted(events, key=lambda e: e.start_ns):
        numbers.setdefault(e.tid, len(numbers))
    return numbers


def _rows(events, thread_sep: bool = True) -> list[dict]:
    """One row per (thread, name) of the events a table shows, in order of first end time."""
    numbers = thread_numbers(events)
    rows: dict = OrderedDict()
    for e in sorted((e for e in events if e.cat in TABLE_CATS), key=lambda e: e.end_ns):
        key = (numbers[e.tid] if thread_sep else 0, e.name)
        ms = (e.end_ns - e.start_ns) / 1e6
        row = rows.get(key)
        if row is None:
            row = rows[key] = {'thread': key[0], 'name': e.name, 'cat': e.cat, 'calls': 0, 'total': 0.0,
                               'min': ms, 'max': ms}
        row['calls'] += 1
        row['total'] += ms
        row['min'] = min(row['min'], ms)
        row['max'] = max(row['max'], ms)
    for row in rows.values():
        row['ave'] = row['total'] / row['calls']
    return list(rows.values())


def _times(events) -> tuple[float, float]:
    """(total, computation) in ms: the wall time inside run() calls (or the events' span when no run was
    recorded) and the time of op events."""
    runs = [e for e in events if e.cat == 'run']
    compute = sum(e.end_ns - e.start_ns for e in events if e.cat == 'op') / 1e6
    if runs:
        total = sum(e.end_ns - e.start_ns for e in runs) / 1e6
    elif events:
        total = (max(e.end_ns for e in events) - min(e.start_ns for e in events)) / 1e6
    else:
        total = 0.0
    return max(total, compute), compute


def _g(x: float) -> str:
    return '%.6g' % x


def summary_1x(events, sorted_key: str | None = None) -> str:
    """fluid.profiler's report: the overhead summary and the event table, per thread, sorted by `sorted_key`
    ('calls', 'total', 'max', 'min', 'ave' or None for first end time)."""
    if sorted_key not in SORT_KEYS_1X:
        raise ValueError("The sorted_key must be None or in 'calls', 'total', 'max', 'min' and 'ave', but got %r"
                         % (sorted_key,))
    domain, stat = SORT_KEYS_1X[sorted_key]
    rows = _rows(events)
    if stat is not None:
        rows.sort(key=lambda r: (r['thread'], -r[stat]))
    else:
        rows.sort(key=lambda r: r['thread'])
    per_thread: dict = {}
    for r in rows:
        per_thread[r['thread']] = per_thread.get(r['thread'], 0.0) + r['total']
    total, compute = _times(events)
    overhead = max(total - compute, 0.0)
    width = max([len('thread%d::%s' % (r['thread'], r['name'])) for r in rows] + [30]) + 4
    out = ['', '------------------------->     Profiling Report     <-------------------------', '',
           'Place: CPU', 'Time unit: ms', 'Sorted by %s in descending order in the same thread' % domain, '',
           'Total time: %s' % _g(total),
           '  Computation time       Total: %-12sRatio: %s%%' % (_g(compute), _g(100 * compute / total if total
                                                                             else 0.0)),
           '  Framework overhead     Total: %-12sRatio: %s%%' % (_g(overhead), _g(100 * overhead / total if total
                                                                              else 0.0)),
           '', '-------------------------       Event Summary       -------------------------', '',
           'Event'.ljust(width) + ''.join(h.ljust(12) for h in ('Calls', 'Total', 'Min.', 'Max.', 'Ave.',
                                                                 'Ratio.'))]
    for r in rows:
        ratio = r['total'] / per_thread[r['thread']] if per_thread[r['thread']] else 0.0
        out.append(('thread%d::%s' % (r['thread'], r['name'])).ljust(width) +
                   ''.join(_g(v).ljust(12) for v in (r['calls'], r['total'], r['min'], r['max'], r['ave'], ratio)))
    return '\n'.join(out) + '\n'


SORT_KEYS_2X = {'CPUTotal': 'total', 'CPUAvg': 'ave', 'CPUMax': 'max', 'CPUMin': 'min',
                'GPUTotal': 'total', 'GPUAvg': 'ave', 'GPUMax': 'max', 'GPUMin': 'min'}


def summary_2x(events, sorted_by: str = 'CPUTotal', thread_sep: bool = False, time_unit: str = 'ms',
               op_detail: bool = True) -> str:
    """paddle.profiler's summary: an overview by event type, then an operator table (and the user-defined events),
    sorted by `sorted_by` (a SortedKeys name; the GPU keys sort by the CPU times: there is no GPU here).
    `op_detail` is accepted (Paddle splits an op into its kernel's parts; an op here is one kernel call)."""
    scale = {'s': 1e-3, 'ms': 1.0, 'us': 1e3, 'ns': 1e6}.get(time_unit)
    if scale is None:
        raise ValueError("time_unit must be one of 's', 'ms', 'us', 'ns', got %r" % (time_unit,))
    stat = SORT_KEYS_2X[sorted_by]
    total, compute = _times(events)
    rows = _rows(events, thread_sep)
    by_cat: dict = OrderedDict()
    for r in rows:
        calls, t = by_cat.get(r['cat'], (0, 0.0))
        by_cat[r['cat']] = (calls + r['calls'], t + r['total'])
    names = {'op': 'Operator', 'feed': 'Feed', 'fetch': 'Fetch', 'scope': 'Scope', 'stage': 'Stage producer',
             'user': 'UserDefined'}
    line = '-' * 100
    out = [line, 'Overview Summary'.center(100), line, 'Time unit: %s' % time_unit, line,
           '%-28s%-16s%-24s%s' % ('Event Type', 'Calls', 'CPU Time', 'Ratio (%)'), line,
           '%-28s%-16s%-24s%s' % ('ProfileStep (run)', len([e for e in events if e.cat == 'run']),
                                   '%.3f' % (total * scale), '100.00')]
    for cat, (calls, t) in by_cat.items():
        out.append('  %-26s%-16s%-24s%.2f' % (names.get(cat, cat), calls, '%.3f' % (t * scale),
                                               100 * t / total if total else 0.0))
    out.append(line)
    for cat, title in (('op', 'Operator Summary'), ('user', 'UserDefined Summary')):
        table = [r for r in rows if r['cat'] == cat]
        if not table:
            continue
        table.sort(key=lambda r: -r[stat])
        part = sum(r['total'] for r in table)
        out += ['', line, title.center(100), line, 'Time unit: %s' % time_unit, line,
                '%-40s%-8s%-44s%s' % ('Name', 'Calls', 'CPU Total / Avg / Max / Min', 'Ratio(%)'), line]
        for r in table:
            name = ('thread%d::%s' % (r['thread'], r['name'])) if thread_sep else r['name']
            times = ' / '.join('%.3f' % (r[k] * scale) for k in ('total', 'ave', 'max', 'min'))
            out.append('%-40s%-8s%-44s%.2f' % (name[:39], r['calls'], times, 100 * r['total'] / part if part
                                               else 0.0))
        out.append(line)
    return '\n'.join(out) + '\n'


def chrome_trace(events, pid: int | None = None) -> dict:
    """The events as a chrome trace (the JSON chrome://tracing and Perfetto open): one complete event ('X') per
    event, on its thread, named by thread metadata events."""
    pid = os.getpid() if pid is None else pid
    if not events:
        return {'traceEvents': [], 'displayTimeUnit': 'ms'}
    origin = min(e.start_ns for e in events)
    numbers = thread_numbers(events)
    names = {}
    trace = []
    for e in events:
        names.setdefault(e.tid, e.thread_name)
        args = dict(e.args)
        args['place'] = e.place
        trace.append({'name': e.name, 'cat': e.cat, 'ph': 'X', 'ts': (e.start_ns - origin) / 1e3,
                      'dur': (e.end_ns - e.start_ns) / 1e3, 'pid': pid, 'tid': numbers[e.tid], 'args': args})
    meta = [{'name': 'thread_name', 'ph': 'M', 'pid': pid, 'tid': numbers[tid],
             'args': {'name': 'thread%d (%s)' % (numbers[tid], name)}} for tid, name in names.items()]
    meta.append({'name': 'process_name', 'ph': 'M', 'pid': pid, 'args': {'name': 'paddle_exec (CPU)'}})
    return {'traceEvents': meta + trace, 'displayTimeUnit': 'ms'}


def write_chrome_trace(events, path: str) -> str:
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    with open(path, 'w') as f:
        json.dump(chrome_trace(events), f)
    return path
