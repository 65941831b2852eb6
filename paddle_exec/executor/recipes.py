"""The lean run(): what a run does after the feeds' first check, cached by the feed's signature.

    sig = feed_signature(feed)                         # (name, shape, dtype) per fed array, or None
    recipe = recipes.get(program, fetch_names, sig)    # a RunRecipe, or None the first time
    results = recipe.run(policy, feed, scope, return_numpy)
    recipes.put(program, fetch_names, sig, RunRecipe(plan))   # after a checked run of that signature

A run whose feed has been seen with the same names, shapes and dtypes (every value a numpy array) skips what
cannot change: dropping unknown feed names (they are not in a signature that gets a recipe), Paddle's shape and
dtype checks (they passed for this signature), converting values (an array of the declared dtype is used as it
is), and the plan lookup (the recipe holds its plan). What remains is the run itself: the fed arrays into their
slots, the scope inputs read, the policy, the persistables written back, the fetches. A feed of another kind (a
list, a scalar, a LoDTensor, a persistable variable, a dtype needing conversion) takes the full path every time.

What a recipe keeps besides: the scope's variable holders (LoDTensors) it found for the persistables it reads
and writes, with the scope they belong to and its `erasures` count (a ScopeVar stays its name's variable until
an erase; a name found only in a parent scope is looked up every run, as a kid variable made later shadows it);
how the policy runs the plan (a one-node plan under a policy that runs one node as a plain call: the node's step
itself); fetched arrays that need no copy handed out without feed.as_fetch_result's general checks; and the lane
made from it (lanes.py: the next runs of the program with this signature, as one generated function), remade only
when the binding or the policy changes.

This is the per-call cost outside the compiled segments: the issue's "few microseconds". JAX's jit caches its
executables the same way, by the abstract signature of the arguments; TorchScript's profiling executor
specialises on the shapes and dtypes it has seen.

The cache is bounded (RECIPE_CACHE_SIZE, least recently made dropped first) and keyed by the program's id and
version, so an edited program never meets an old recipe.
"""
from __future__ import annotations

import threading

import numpy as np

from ..framework.dtype import to_numpy
from ..framework.fetched_array import fetched_view
from . import feed as feeding
from .policies.base import op_failure

__all__ = ['feed_signature', 'RunRecipe', 'RecipeCache', 'RECIPE_CACHE_SIZE', 'can_keep']

RECIPE_CACHE_SIZE = 256
_ndarray = np.ndarray


def feed_signature(feed) -> tuple | None:
    """((name, shape, dtype), ...) of a dict of numpy arrays, in the dict's order; None for anything else."""
    if type(feed) is not dict:
        return None
    if len(feed) == 1:              # the serving case: no loop
        (name, value), = feed.items()
        return ((name, value.shape, value.dtype),) if type(value) is _ndarray else None
    sig = [(name, value.shape, value.dtype) for name, value in feed.items() if type(value) is _ndarray]
    return tuple(sig) if len(sig) == len(feed) else None


class RunRecipe:
    """One plan's run on one place for fed arrays whose checks have passed (see the module docstring)."""

    __slots__ = ('plan', 'feed_slots', 'scope_inputs', 'scope_outputs', 'fetch_slots', 'fetch_copy', 'n_slots',
                 'bound', 'fetches', 'runs_with', 'lane', 'lane_key')

    def __init__(self, plan, feed_names):
        place = plan.places[0]
        self.plan = plan
        self.feed_slots = tuple((name, place.feed_slots[name]) for name in feed_names)
        self.scope_inputs = tuple(place.scope_inputs)
        self.scope_outputs = tuple(place.scope_outputs)
        self.fetch_slots = tuple(place.fetch_slots)
        self.fetch_copy = tuple(plan.analysis.fetch_copy)
        self.n_slots = plan.n_slots
        self.bound = None           # (scope, its erasures, inputs, outputs): the holders `bind` found
        self.fetches = tuple(zip(self.fetch_slots, self.fetch_copy))
        self.runs_with = (None, None)   # (policy, run(values)): how `policy` runs the plan (`runner_for`)
        self.lane = None                # the lane made from this recipe (lanes.py), for lane_key's binding and policy
        self.lane_key = (None, None)

    def runner_for(self, policy):
        """run(values) running the plan as `policy.run(plan, values)` does. A plan of one node, under a policy that
        runs such a plan as a plain call of its step (`runs_one_node_inline`), is that call, the failure named as
        run_in_order names it: no policy layer between the run and the compiled segment."""
        nodes = self.plan.nodes
        if len(nodes) == 1 and getattr(policy, 'runs_one_node_inline', False):
            node = nodes[0]
            step = node.step

            def run(values):
                try:
                    step(values)
                except Exception as exc:
                    raise op_failure(node, exc) from exc
        else:
            plan = self.plan
            policy_run = policy.run

            def run(values):
                policy_run(plan, values)
        self.runs_with = (policy, run)
        return run

    def bind(self, scope):
        """The LoDTensors the run reads and writes in `scope`, when each is a variable of `scope` itself (not of a
        parent): (scope, scope.erasures, ((slot, tensor, name, op), ...), ((slot, tensor), ...)); else None. A
        ScopeVar stays its name's variable until an erase (Scope.erasures), so later runs in the same scope read
        the holders instead of looking 2 x N names up."""
        have = scope.vars
        erasures = scope.erasures
        ins, outs = [], []
        for slot, name, op in self.scope_inputs:
            sv = have.get(name)
            if sv is None:
                return None
            ins.append((slot, sv.tensor, name, op))
        for slot, name in self.scope_outputs:
            sv = have.get(name)
            if sv is None:          # made by the first run that writes it (scope.var), then bound
                return None
            outs.append((slot, sv.tensor))
        bound = self.bound = (scope, erasures, tuple(ins), tuple(outs))
        return bound

    @property
    def writes_scope(self) -> bool:
        return bool(self.scope_outputs)

    def run(self, policy, feed: dict, scope, return_numpy: bool) -> list:
        values = [None] * self.n_slots
        for name, slot in self.feed_slots:
            values[slot] = feed[name]
        bound = self.bound
        if bound is None or bound[0] is not scope or bound[1] != scope.erasures:
            bound = self.bind(scope)
        if bound is None:
            return self._run_unbound(policy, values, scope, return_numpy)
        for slot, tensor, name, op in bound[2]:
            value = tensor.value
            if value is None:
                feeding.raise_missing(name, op)
            values[slot] = value
        runs_with = self.runs_with
        (runs_with[1] if runs_with[0] is policy else self.runner_for(policy))(values)
        for slot, tensor in bound[3]:
            value = values[slot]
            if value is not None:
                tensor.value = value
        return self._fetch(values, return_numpy)

    def _run_unbound(self, policy, values: list, scope, return_numpy: bool) -> list:
        """The run with every scope variable looked up by name (some are a parent's, or not made yet)."""
        get = scope.vars.get                      # the scope's own variables first, its parents through find_var
        for slot, name, op in self.scope_inputs:
            sv = get(name)
            if sv is None:
                sv = scope.find_var(name)
            value = None if sv is None else sv.tensor.value
            if value is None:
                feeding.raise_missing(name, op)
            values[slot] = value
        policy.run(self.plan, values)
        for slot, name in self.scope_outputs:
            value = values[slot]
            if value is not None:
                sv = get(name)
                (scope.var(name) if sv is None else sv).tensor.value = value
        return self._fetch(values, return_numpy)

    def _fetch(self, values: list, return_numpy: bool) -> list:
        """feed.as_fetch_result of each fetched value; a plain writeable array that is no view and needs no copy (a
        segment's fresh output) the short way, with the same result."""
        results = []
        for s, copy in self.fetches:
            value = values[s]
            if (not copy and return_numpy and type(value) is _ndarray and value.flags.writeable
                    and not isinstance(value.base, _ndarray)):
                results.append(fetched_view(value))
            else:
                results.append(feeding.as_fetch_result(value, return_numpy, copy))
        return results


class RecipeCache:
    """(program id, version, fetch names, feed signature) -> RunRecipe, bounded."""

    def __init__(self, maxsize: int = RECIPE_CACHE_SIZE):
        self.maxsize = maxsize
        self._entries: dict = {}
        self._lock = threading.Lock()

    def get(self, program, names: tuple, sig: tuple):
        return self._entries.get((program._id, program._version, names, sig))

    def put(self, program, names: tuple, sig: tuple, recipe: RunRecipe) -> None:
        with self._lock:
            entries = self._entries
            while len(entries) >= self.maxsize:
                entries.pop(next(iter(entries)))
            entries[(program._id, program._version, names, sig)] = recipe

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self):
        return len(self._entries)


def can_keep(plan, block, feed: dict) -> bool:
    """Whether runs of `plan` with this feed may take the lean path: every fed name a variable of the block that is
    not persistable (a persistable feed is copied into the scope every run), no stage runtime or place index to
    bind, no LoD, and arrays already of the declared dtypes."""
    if plan.binds_runtimes or plan.n_places != 1 or plan.places[0].lod is not None:
        return False                # the recipe binds no runtimes and no LoD
    have = block.vars
    for name, value in feed.items():
        var = have.get(name)
        if var is None or var.persistable:
            return False
        try:
            if value.dtype != to_numpy(var.dtype):
                return False
        except (TypeError, KeyError, ValueError):
            return False
    return True
