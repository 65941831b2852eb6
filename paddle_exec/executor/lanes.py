"""Lanes: the whole of a repeated run() as one function per recipe, checks first, no generic dispatch.

    lane = make_lane(recipe, version, sig, names, policy, drops, run_lock, scope)  # after a run by recipe
    results = lane(program, feed, fetch_list, scope, return_numpy)    # a list, or None: take the usual path

A recipe (recipes.py) already skips what a feed signature seen before cannot change; what was left around it was
the run's generic machinery, paid on every call: the feed's signature built and hashed, the recipe looked up, the
values list filled slot by slot, the policy (or the one node's step) gathering the arguments from it and scattering
the results back, the fetch and write-back loops over it. Measured on fit-a-line's training step (a 3.0 us
generated segment): 7.4 us a run, 4.4 us of it Python (5.2 us with a lane). A runner keeps, per program, the lane
of the last recipe it ran by: a function generated for the recipe's shape (how many feeds and fetches, one segment
or not, data parallel or not; the text is `_lane_source`'s, compiled once per shape) whose constants are what the
recipe fixes. It does, in order:

  1. checks: the program's version, the fetched names, a dict of the recipe's fed names whose values are numpy
     arrays of its shapes and dtypes, the scope's holders still bound (recipes.py `bind`), no instrument on
     (the profiler, FLAGS_check_nan_inf: they need the full path), the executors' BLAS hold at the flag's value
     (policies/base.py MATH_THREADS). Any check failing returns None before anything happened, and the caller
     takes the usual path (which checks everything, and switches to the lane of the recipe it runs by: each
     recipe keeps its lane, made again only when the recipe binds other holders or the policy changed);
  2. Paddle's drop-scope count (data parallel); for a direct lane of an inline-policy runner, this thread's place
     at the serving admission gate (policies/admission.py: a clock read while its quantum lasts, else a wait); then
     the run lock if the run writes the scope;
  3. the run. A plan that is one compiled segment (the serving tower and MLP, fit-a-line's training step) under a
     policy that runs one node as a plain call is the *direct* lane: the segment's arguments straight from the feed
     and the bound holders, its generated function called, its results written to the holders and fetched, no
     values list at all. A direct lane that writes no holder and whose segment returns only fresh arrays hands
     its scope inputs over as one table (bound.py): while the holder tick (framework/scope.py) reads as when the
     table was made, the request dispatches the table and the feed, not every parameter; a moved tick rebinds
     first, and a state without bound code (compiling, or arrays a table cannot describe) takes the usual call.
     Whenever the segment is not on its compiled tier, and after a failure, the lane falls back to the segment's
     own handling on a values list (segment_node.py: the tiers, the op named); any other plan runs as the recipe
     runs it (`RunRecipe.run`).

A ParallelExecutor calls no lane: it *is* one. `make_entry` makes the lane's text with run()'s signature, the
program, the runner and the executor its constants, and ParallelExecutor.run itself where a lane returns None;
parallel.py sets it as the executor's own `run` after a run that left the program a lane (one call frame fewer
a request), and again whenever the program's lane changes.

What a lane keeps is what the recipe keeps (the plan, the slots, the holders through `recipe.bound`); it holds no
reference to the runner (a runner must stay collectable: its BLAS lease ends then). JAX's C++ jit dispatch does
the same for its cache hit: the argument signature checked in place, then the executable called.
"""
from __future__ import annotations

import numpy as np

from ..framework.fetched_array import FetchedArray, fetched_view
from ..framework.scope import HOLDER_TICK
from . import feed as feeding
from .bound import Binder, returns_fresh
from .instrument import INSTRUMENTS
from .policies.admission import clock as admission_clock
from .policies.base import MATH_THREADS, op_failure
from .segment_node import PROGRESS_LOCAL, SegmentNode, thread_progress

__all__ = ['make_lane', 'make_entry', 'LANE_CACHE_SIZE']

LANE_CACHE_SIZE = 64        # lanes a runner keeps (one per program run by recipe); all dropped when full
_ndarray = np.ndarray


def _direct_plan(recipe, policy):
    """(segment, how each argument, fetch and write-back is found) when the recipe's plan is one segment the
    policy would call as a plain call; None otherwise. Sources: ('fed', i) the i-th checked feed, ('scope', j) the
    j-th bound input holder's value, ('res', k) the k-th value the segment returns, ('arg', a) its a-th argument."""
    nodes = recipe.plan.nodes
    if len(nodes) != 1 or not isinstance(nodes[0], SegmentNode) or not getattr(policy, 'runs_one_node_inline',
                                                                               False):
        return None
    segment = nodes[0].segment
    fed_slot = {slot: i for i, (_, slot) in enumerate(recipe.feed_slots)}
    scope_slot = {slot: j for j, (slot, _, _) in enumerate(recipe.scope_inputs)}
    n_fed = len(recipe.feed_slots)
    pool = []                           # argument a's position in [fed..., scope values...]
    for slot in segment.inputs:
        if slot in fed_slot:
            pool.append(fed_slot[slot])
        elif slot in scope_slot:
            pool.append(n_fed + scope_slot[slot])
        else:
            return None
    res_of = {slot: k for k, slot in enumerate(segment.outputs)}
    arg_of = {slot: a for a, slot in enumerate(segment.inputs)}
    fetches = []
    for slot, copy in recipe.fetches:
        if slot in res_of:
            fetches.append((True, res_of[slot], copy))
        elif slot in arg_of:
            fetches.append((False, arg_of[slot], copy))
        else:
            return None
    # write-backs: a returned value goes to its holder; an argument updated in place is its holder's own array
    writes = tuple(res_of.get(slot, -1) for slot, _ in recipe.scope_outputs)
    return segment, tuple(pool), tuple(fetches), writes, len(recipe.scope_inputs)


def make_lane(recipe, version: int, sig: tuple, names: list, policy, drops, run_lock, scope=None, gate=None):
    """The lane of `recipe` (see the module docstring): `sig` its feed signature, `names` its fetched names,
    `drops` the runner's DropScopeCounter (data parallel) or None, `run_lock` the lock a run writing the scope
    takes (or None), `scope` the scope every run uses (data parallel) or None (the one passed to each run). The
    recipe must be bound (`recipe.bound`): the lane reads the holders it found. `gate`: the serving admission gate
    (policies/admission.py) a direct lane passes before its run, or None."""
    bound = recipe.bound
    direct = _direct_plan(recipe, policy)
    gated = gate is not None and direct is not None
    form = (len(sig), len(names), direct, drops is not None, bool(recipe.scope_outputs), scope is not None,
            _binds(direct), gated)        # the lane's shape: what its text depends on
    maker = _maker(_lane_source(*form))
    consts = dict(
        V=version, NAMES=list(names), SC=bound[0], E=bound[1], B=bound, recipe=recipe, policy=policy,
        drops=None if drops is None else drops.ticks.__next__,     # a run's count: one C call (runner.py)
        lock=run_lock, math=MATH_THREADS, instruments=INSTRUMENTS, ndarray=_ndarray,
        fetch_names=feeding.fetch_names, fetched_view=fetched_view, as_fetch_result=feeding.as_fetch_result,
        raise_missing=feeding.raise_missing, after_failure=_after_failure, progress_of=thread_progress,
        local=PROGRESS_LOCAL)
    if gated:
        consts.update(GATE=gate, GL=gate.local, clock=admission_clock)
    for i, (name, shape, dtype) in enumerate(sig):
        consts['N%d' % i], consts['S%d' % i], consts['D%d' % i] = name, shape, dtype
    if names and len(names) == 1:
        consts['F0'] = names[0]
    binder = _binder(direct, bound, recipe, gate.turn if gated else None)
    if binder is not None:
        consts.update(BS=binder.state, HT=HOLDER_TICK, rebind=binder.rebind, BN=binder, empty=np.empty,
                      FA=FetchedArray)
    if direct is not None:
        segment = direct[0]
        consts.update(segment=segment, node=recipe.plan.nodes[0])
        for j, (_, tensor, name, op) in enumerate(bound[2]):
            consts['T%d' % j], consts['TN%d' % j], consts['TO%d' % j] = tensor, name, op
        for j, (_, tensor) in enumerate(bound[3]):
            consts['W%d' % j] = tensor
    lane = maker(**consts)
    lane.binder = binder        # its bound state (bound.py), or None: for tests and benchmarks
    lane.entry_args = (form, consts) if scope is not None else None       # make_entry's (data parallel only)
    return lane


def make_entry(lane, program, runner, exe, slow):
    """`lane` as a ParallelExecutor's own `run` (parallel.py): the lane's text with run()'s signature,
    `program`, `runner` and `exe` its constants, and every failed check `slow(fetch_list, feed, feed_dict,
    return_numpy)` (ParallelExecutor.run itself) instead of None. One call frame fewer a request than run() calling
    the lane. It also checks what run() checked before calling the lane: the runner still has the lanes it had
    (close() and use_policy() replace them) and the executor is not closed. None for a lane of one place."""
    if lane.entry_args is None:
        return None
    form, consts = lane.entry_args
    maker = _maker(_lane_source(*form, entry=True))
    return maker(P=program, R=runner, LANES=runner.lanes, EXE=exe, SLOW=slow, **consts)


_MAKERS: dict = {}      # lane source -> its make(**consts): one compile per shape of lane


def _maker(source: str):
    maker = _MAKERS.get(source)
    if maker is None:
        env: dict = {}
        exec(compile(source, '<paddle_exec lane>', 'exec'), env)     # noqa: S102 - our own template, no input
        if len(_MAKERS) >= LANE_CACHE_SIZE:
            _MAKERS.clear()
        maker = _MAKERS[source] = env['make']
    return maker


def _binds(direct) -> bool:
    """Whether a direct lane hands its scope inputs to the segment as a table (bound.py): it has some, writes no
    holder (a write-back replaces an array: a new tick every run), and the segment returns only fresh arrays."""
    if direct is None:
        return False
    segment, _, _, writes, n_scope = direct
    return n_scope > 0 and all(k < 0 for k in writes) and returns_fresh(segment)


def _binder(direct, bound, recipe, turn):
    """The Binder of a lane that binds (`_binds`): the segment's arguments read from the scope and their holders;
    `turn` the serving turn's word its code takes turns with (a gated lane's, policies/serving_turn.py) or None."""
    if not _binds(direct):
        return None
    segment, pool, n_feed = direct[0], direct[1], len(recipe.feed_slots)
    positions = tuple(a for a, p in enumerate(pool) if p >= n_feed)
    tensors = tuple(bound[2][pool[a] - n_feed][1] for a in positions)
    return Binder(segment, positions, tensors, turn)


def _lane_source(n_feed: int, n_fetch: int, direct, counts: bool, writes_scope: bool, fixed_scope: bool,
                 binds: bool = False, gated: bool = False, entry: bool = False) -> str:
    """The text of `make(**consts) -> lane`: the checks and the run written out for one shape of recipe (how many
    feeds and fetches; direct or not; data parallel or not), every name, shape, dtype, holder and slot a constant of
    the closure. Reading it is the quickest way to see what a lane does. `entry`: the text of make_entry's
    ParallelExecutor.run instead (its signature, its extra checks, SLOW where a lane returns None)."""
    params = ['V', 'NAMES', 'SC', 'E', 'B', 'recipe', 'policy', 'drops', 'lock', 'math', 'instruments', 'ndarray',
              'fetch_names', 'fetched_view', 'as_fetch_result', 'raise_missing', 'after_failure', 'progress_of',
              'local']
    params += ['%s%d' % (c, i) for i in range(n_feed) for c in 'NSD']
    if n_fetch == 1:
        params.append('F0')
    if entry:
        params += ['P', 'R', 'LANES', 'EXE', 'SLOW']
        miss = 'return SLOW(fetch_list, feed, feed_dict, return_numpy)'
        lines = ['    def lane(fetch_list, feed=None, feed_dict=None, return_numpy=True):',
                 '        if (P._version != V or R.lanes is not LANES or EXE._closed or type(feed) is not dict',
                 '                or len(feed) != %d or instruments.on or math.held != math.n):' % n_feed]
    else:
        miss = 'return None'
        lines = ['    def lane(program, feed, fetch_list, scope, return_numpy):',
                 '        if (program._version != V or type(feed) is not dict or len(feed) != %d' % n_feed,
                 '                or instruments.on or math.held != math.n):']
    lines += ['            ' + miss]
    if n_fetch == 1:          # the usual one fetch: a name, or a Variable of that name
        lines += ['        if type(fetch_list) is not list or len(fetch_list) != 1:',
                  '            ' + miss,
                  '        f = fetch_list[0]',
                  "        if f is not F0 and (f if type(f) is str else getattr(f, 'name', None)) != F0:",
                  '            ' + miss]
    else:
        lines += ['        if fetch_names(fetch_list) != NAMES:', '            ' + miss]
    for i in range(n_feed):
        lines += ['        f%d = feed.get(N%d)' % (i, i),
                  '        if type(f%d) is not ndarray or f%d.shape != S%d:' % (i, i, i),
                  '            ' + miss,
                  '        if f%d.dtype is not D%d and f%d.dtype != D%d:' % (i, i, i, i),
                  '            ' + miss]
    if fixed_scope:           # data parallel: the place scope, whatever run() was given
        lines += ['        scope = SC', '        if SC.erasures != E:', '            ' + miss]
    else:
        lines += ['        if scope is not SC or SC.erasures != E:', '            ' + miss]
    if counts:                # Paddle's drop-scope count (runner.py DropScopeCounter)
        lines += ['        drops()']
    if gated:                 # serving admission (policies/admission.py): this thread's place, asked for when ended
        params += ['GATE', 'GL', 'clock']
        lines += ['        t = GL.ticket', '        if t.until <= clock():', '            GATE.enter(t)']
    indent = '        '
    if writes_scope and counts:
        lines += ['        with lock:']
        indent += '    '
    body = []
    if direct is None:
        body += ['return recipe.run(policy, feed, scope, return_numpy)']
    else:
        segment, pool, fetches, writes, n_scope = direct
        params += ['segment', 'node']
        params += ['%s%d' % (c, j) for j in range(n_scope) for c in ('T', 'TN', 'TO')]
        params += ['W%d' % j for j in range(len(writes))]
        if binds:
            params += ['BS', 'HT', 'rebind', 'BN', 'empty', 'FA']
            body += _bound_body(n_feed, pool, fetches, segment.tracked, len(segment.outputs))
        body += ['fn = segment.compiled',
                 'if fn is None:            # a slower tier this run (segment_node.py): the recipe runs it',
                 '    return recipe.run(policy, feed, scope, return_numpy)']
        for j in range(n_scope):          # every holder the recipe reads: a missing value raises as in a run
            body += ['s%d = T%d.value' % (j, j), 'if s%d is None:' % j, '    raise_missing(TN%d, TO%d)' % (j, j)]
        names_of = ['f%d' % p if p < n_feed else 's%d' % (p - n_feed) for p in pool]
        body += ['args = (%s)' % ''.join(n + ', ' for n in names_of)]
        if segment.tracked:
            body += ['try:', '    progress = local.progress', 'except AttributeError:',
                     '    progress = progress_of()', 'try:', '    res = fn(progress, *args)']
        else:
            body += ['progress = None', 'try:', '    res = fn(*args)']
        body += ['except Exception as exc:',
                 '    return after_failure(recipe, segment, node, args, [%s], B, progress, exc, return_numpy)'
                 % ''.join('f%d, ' % i for i in range(n_feed))]
        if binds and not segment.tracked:     # the results' layout, for the into variant (bound.py learn)
            body += ['if BN.outputs is None:', '    BN.learn(res)']
        for j, k in enumerate(writes):
            if k >= 0:
                body += ['W%d.value = res[%d]' % (j, k)]
        body += _fetch_lines(fetches, lambda k: 'args[%d]' % k)
    lines += [indent + line for line in body]
    head = ['def make(%s):' % ', '.join(params)]
    return '\n'.join(head + lines + ['    return lane', ''])


def _fetch_lines(fetches, arg_expr, fresh: bool = False) -> list:
    """The fetched results from `res` (the segment's values) and the arguments (`arg_expr(k)`), and the return.
    `fresh`: every value in `res` is an array the segment allocated (bound.returns_fresh), so a fetch of one that
    needs no copy is its FetchedArray view without the checks."""
    body, outs = [], []
    for m, (is_res, k, copy) in enumerate(fetches):
        body += ['r%d = %s' % (m, ('res[%d]' % k) if is_res else arg_expr(k))]
        if fresh and is_res and not copy:
            body += ['r%d = fetched_view(r%d) if return_numpy else as_fetch_result(r%d, False, False)' % (m, m, m)]
        else:
            body += _fetch_value(m, copy)
        outs.append('r%d' % m)
    return body + ['return [%s]' % ', '.join(outs)]


def _fetch_value(m: int, copy: bool) -> list:
    """`r<m>` as the fetch hands it back: copied when `copy`, else a fresh array the short way (recipes.py _fetch),
    anything else the general way."""
    if copy:
        return ['r%d = as_fetch_result(r%d, return_numpy, True)' % (m, m)]
    return ['if (return_numpy and type(r%d) is ndarray and r%d.flags.writeable' % (m, m),
            '        and not isinstance(r%d.base, ndarray)):' % m,
            '    r%d = fetched_view(r%d)' % (m, m),
            'else:',
            '    r%d = as_fetch_result(r%d, return_numpy, False)' % (m, m)]


def _bound_body(n_feed: int, pool: tuple, fetches: tuple, tracked: bool, n_out: int) -> list:
    """The bound call (bound.py): the holders' tick compared, the segment's bound code called with the table and
    the fed arrays (and, in its into variant, the result arrays made here); the usual direct path follows it for a
    state without code (fn None) and after an into call that met a result of another shape."""
    fed = ''.join('f%d, ' % i for i in range(n_feed))
    # argument a of the segment: a fed array, or the bound array of the state tuple
    arg = ['f%d' % p if p < n_feed else 'b[3][%d]' % sum(1 for q in pool[:a] if q >= n_feed)
           for a, p in enumerate(pool)]
    body = ['b = BS[0]',
            'if b[0] != HT[0]:         # a holder replaced since the table was made (or none made yet)',
            '    b = rebind((%s))' % fed,
            'if b[1] is not None:']
    failure = ['except Exception as exc:',
               '    args = (%s)' % ''.join(x + ', ' for x in arg),
               '    return after_failure(recipe, segment, node, args, [%s], B, progress, exc, return_numpy)' % fed]
    call = ['try:', '    res = b[1](%sb[2], %s)' % ('progress, ' if tracked else '', fed)] + failure
    call += _fetch_lines(fetches, lambda k: arg[k], fresh=True)
    if tracked:
        body += ['    try:', '        progress = local.progress', '    except AttributeError:',
                 '        progress = progress_of()']
        return body + ['    ' + line for line in call]
    # untracked: the into variant when the state has its results' layout (bound.py learn)
    body += ['    progress = None', '    q = b[4]', '    if q is None:'] + ['        ' + line for line in call]
    into = []
    for k in range(n_out):
        into += ['q%d = q[%d]' % (k, k), 'o%d = empty(q%d[0], q%d[1])' % (k, k, k)]
    into += ['try:', '    st = b[1](b[2], %s%s)' % (fed, ''.join('o%d, ' % k for k in range(n_out)))] + failure
    into += ['if st == 0:'] + ['    ' + line for line in _into_fetch_lines(fetches, lambda k: arg[k])]
    into += ['BN.mismatch()         # a result of another shape: the usual path, and the plain variant from now on']
    return body + ['    ' + line for line in into]


def _into_fetch_lines(fetches, arg_expr) -> list:
    """The fetched results of an into call: its result arrays `o<k>` (made here: a FetchedArray view when `q<k>`
    says one is due, no checks) and the arguments (`arg_expr(k)`), and the return."""
    body, outs = [], []
    for m, (is_res, k, copy) in enumerate(fetches):
        if not is_res or copy:
            body += ['r%d = %s' % (m, arg_expr(k) if not is_res else 'o%d' % k)] + _fetch_value(m, copy)
        else:
            body += ['if not return_numpy:',
                     '    r%d = as_fetch_result(o%d, False, False)' % (m, k),
                     'elif q%d[2]:' % k,
                     '    r%d = o%d.view(FA)' % (m, k),
                     'else:',
                     '    r%d = o%d' % (m, k)]
        outs.append('r%d' % m)
    return body + ['return [%s]' % ', '.join(outs)]


def _after_failure(recipe, segment, node, args: tuple, fed: list, bound: tuple, progress, exc: Exception,
                   return_numpy: bool) -> list:
    """The compiled call raised: the step's handling (segment_node.py after_failure: another tier, or the op
    named) on a values list, then the recipe's write-back and fetches from it."""
    values = [None] * recipe.n_slots
    for (_, slot), value in zip(recipe.feed_slots, fed):
        values[slot] = value
    for slot, value in zip(segment.inputs, args):
        values[slot] = value
    try:
        res = segment.after_failure(args, values, progress, exc)
    except Exception as failure:
        raise op_failure(node, failure) from failure
    if res is not None:                 # else the ops tier stored its results itself
        for k, slot in enumerate(segment.outputs):
            values[slot] = res[k]
        for slot in segment.frees:
            values[slot] = None
    for slot, tensor in bound[3]:
        value = values[slot]
        if value is not None:
            tensor.value = value
    return recipe._fetch(values, return_numpy)
