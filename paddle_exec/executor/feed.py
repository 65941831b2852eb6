"""Feeding and fetching: Paddle's feed checks and conversions, shared by every executor.

    place_feeds, n_run = split_feeds(block, feed, n_places, is_inference, scopes)   # data parallel: per-place dicts
    binding = FeedBinding(block, plan.places[p].feed_slots, lod_slots)               # once per plan and place
    binding.bind(place_feeds[p], values, scopes[p])                                  # every run
    result = fetch_results(plan, values, names, n_run, return_numpy, return_merged, merged=...)

LoD (framework/lod.py): `feed_lod_levels(block, feed)` says which fed values carry LoD (a LoDTensor with a LoD, a
nested list fed to a variable with lod_level > 0); it is part of the plan's key, and is () for plain arrays, the
common case, at the cost of one type check per fed value. A LoD feed's array goes to its slot and its LoD, checked
against the rows (an error naming the variable), to its companion slot. Nested lists are converted as Paddle's
DataFeeder converts a batch: a list of sequences, `lod_level` deep, whose innermost items are the rows. The data-
parallel split cuts a LoD feed between whole top-level sequences (Paddle's SplitLoDTensor: ceil rule over the
sequences) and the fetch merge joins LoDs back (MergeLoDTensor). A fetched value with a LoD comes back as a
LoDTensor with it (return_numpy=False); with return_numpy=True it raises Paddle 1.8's RuntimeError.


Feeds are checked like Paddle's `check_feed_shape_type`: a `data` variable fed an array of the wrong rank or of a
wrong (non -1) dimension, or of another dtype, raises ValueError naming the variable and both shapes or dtypes.
A feed name the program does not have is dropped with Paddle's warning; Python scalars and lists are converted
to arrays of the variable's dtype as Paddle 2.x's `_as_lodtensor` does. The scope side of a run (plan inputs read
from the scope, persistables written back, the error for a value nobody provides) is here too: every executor and
the stage producers share it.
"""
from __future__ import annotations

import warnings

import numpy as np

from ..framework import registry
from ..framework.dtype import convert_dtype, to_numpy
from ..framework.fetched_array import fetched_view
from ..framework.lod import NO_LOD, check_lod, flatten_nested, lod_from_lengths, merge_lods, rows_array, slice_lod
from ..framework.scope import LoDTensor, SelectedRows
from ..framework.variable import Variable

__all__ = ['fetch_names', 'as_array', 'check_feed', 'as_fetch_result', 'FeedBinding', 'known_feeds', 'split_feeds',
           'split_batch', 'fetch_results', 'bind_scope_inputs', 'write_scope_outputs', 'raise_missing',
           'FeedCountError', 'feed_lod_levels', 'lod_feed', 'split_lod_batch', 'LOD_FETCH_ERROR',
           'bind_lods', 'write_scope_lods']


def fetch_name(item) -> str:
    if isinstance(item, Variable):
        return item.name
    if isinstance(item, str):
        return item
    raise TypeError('fetch_list items must be Variables or variable names, got %s' % type(item).__name__)


def fetch_names(fetch_list) -> list[str]:
    if type(fetch_list) is list and len(fetch_list) == 1:      # the usual one fetch, without the loop
        f = fetch_list[0]
        return [f] if type(f) is str else [f.name if type(f) is Variable else fetch_name(f)]
    if fetch_list is None:
        return []
    if isinstance(fetch_list, (str, Variable)):
        fetch_list = [fetch_list]
    return [f.name if type(f) is Variable else fetch_name(f) for f in fetch_list]


def as_array(value, var: Variable | None):
    """A feed value as the array the executor stores (Paddle 2.x's _as_lodtensor): arrays, SelectedRows and the
    array of a LoDTensor as they are; a Python scalar as a [1] array and a (nested) list as an array, both of the
    variable's dtype."""
    if isinstance(value, LoDTensor):
        return value.value
    if isinstance(value, SelectedRows):
        return value
    dtype = to_numpy(var.dtype) if var is not None else None
    if isinstance(value, np.ndarray):
        # unchecked data vars (fluid.layers.data) take any numeric feed, converted to their declared dtype
        if (dtype is not None and value.dtype != dtype and var.is_data and not var.need_check_feed
                and value.dtype.kind in 'biuf' and dtype.kind in 'biuf'):
            return value.astype(dtype)
        return value
    if np.isscalar(value):
        return np.array([value], dtype=dtype)
    if isinstance(value, (list, tuple)):
        try:
            arr = np.array(value)
        except ValueError:
            arr = np.array(value, dtype=object)
        if arr.dtype == object:
            raise TypeError("\n\tFaild to convert input data to a regular ndarray :\n\t* Usually this means the "
                            "input data contains nested lists with different lengths. Please check the input data "
                            "and make sure it is not a nested list.\n\t* Check the reason for this error, look at "
                            "the list output of the input data.\n\t* If the input data is a list, it need to be "
                            "converted to numpy array, then feed it in the Paddle program.")
        return arr.astype(dtype) if dtype is not None else arr
    raise TypeError('Convert data of type %s to Tensor is not supported (feeding %r)'
                    % (type(value), var.name if var is not None else '?'))


def diff_shape(var: Variable, shape) -> list | None:
    """None when `shape` fits `var.shape` (-1 matches anything), else the fed shape as a list."""
    want = var.shape
    if len(want) != len(shape) or any(w >= 0 and w != s for w, s in zip(want, shape)):
        return list(shape)
    return None


def check_feed(var: Variable, value, per_device_shape=None) -> None:
    if not var.need_check_feed or not isinstance(value, np.ndarray):
        return
    shape = value.shape if per_device_shape is None else per_device_shape
    bad = diff_shape(var, shape)
    if bad is not None:
        raise ValueError('The fed Variable %r should have dimensions = %d, shape = %r, but received fed shape %r '
                         'on each device' % (var.name, len(var.shape), var.shape, bad))
    if value.dtype != to_numpy(var.dtype):
        raise ValueError('The data type of fed Variable %r must be %r, but received %r'
                         % (var.name, convert_dtype(var.dtype), str(value.dtype)))


LOD_FETCH_ERROR = ("Some of your fetched tensors hold LoD information.             They can not be completely cast to "
                   "Python ndarray.             Please set the parameter 'return_numpy' as 'False' to             "
                   "return LoDTensor itself directly.")


def as_fetch_result(value, return_numpy: bool, copy: bool, lod=NO_LOD, name: str | None = None):
    """A fetched value as the caller gets it. Copied when asked (it outlives the run) or when it is a view of
    another array (a reshape of a parameter): the caller's result must not change with later runs. A value with a
    LoD comes back as a LoDTensor holding it; asked for as an array, it raises Paddle's RuntimeError. A tensor array
    comes back as a list of its tensors (arrays, or LoDTensors with return_numpy=False), as in Paddle 1.8."""
    if value is None:
        return None
    if lod and return_numpy:
        raise RuntimeError(LOD_FETCH_ERROR + " (the fetched variable '%s' holds the LoD %s)"
                           % (name, [level.tolist() for level in lod]))
    if isinstance(value, SelectedRows):
        return value.to_dense() if return_numpy else value
    if isinstance(value, list):   # a tensor array (LoDTensorArray): Paddle 1.8 gives a list, one item per tensor
        return [as_fetch_result(item, return_numpy, True) for item in value]
    arr = np.asarray(value)
    if copy or isinstance(arr.base, np.ndarray) or not arr.flags.writeable:
        arr = arr.copy()
    if not return_numpy:
        return LoDTensor(arr, lod or NO_LOD)
    return fetched_view(arr)


class FeedBinding:
    """How a plan's fed names reach their slots, worked out once per plan (the Executor caches it with the plan):
    for each name its slot, its Variable, the numpy dtype it is stored as and whether the scope keeps a copy.
    `bind` is the per-run part: an ndarray of the right dtype goes through as it is (after the shape check), any
    other value through `as_array`; a persistable feed is copied into the scope (an optimizer's ParamOut must not
    write into the caller's array). A fed name the block lacks is the ValueError of Paddle's executor.
    The names that carry LoD in this plan (`lod_slots`: name -> companion slot) are bound apart (`lod_items`)."""

    __slots__ = ('items', 'lod_items')

    def __init__(self, block, feed_slots: dict, lod_slots: dict | None = None):
        items, lod_items = [], []
        for name, slot in feed_slots.items():
            var = block.vars.get(name)
            if var is None:
                raise ValueError("Feed variable '%s' is not found in the program: feed may only name variables "
                                 "of the program being run" % name)
            try:
                dtype = to_numpy(var.dtype)
            except (TypeError, KeyError, ValueError):   # strings, readers: every value goes through as_array
                dtype = None
            item = (name, slot, var, dtype, bool(var.persistable))
            if lod_slots and name in lod_slots:
                lod_items.append(item + (lod_slots[name],))
            else:
                items.append(item)
        self.items = tuple(items)
        self.lod_items = tuple(lod_items)

    def bind(self, feed: dict, values: list, scope) -> None:
        for name, slot, var, dtype, persistable in self.items:
            arr = feed[name]
            if type(arr) is not np.ndarray or arr.dtype != dtype:
                arr = as_array(arr, var)
            check_feed(var, arr)
            if persistable:
                arr = np.array(arr, copy=True)
                scope.var(name).set_value(arr)
            values[slot] = arr
        if self.lod_items:
            self._bind_lod(feed, values, scope)

    def _bind_lod(self, feed: dict, values: list, scope) -> None:
        for name, slot, var, dtype, persistable, lod_slot in self.lod_items:
            arr, lod = lod_feed(feed[name], var, name)
            check_feed(var, arr)
            if persistable:
                arr = np.array(arr, copy=True)
                tensor = scope.var(name).tensor
                tensor.value, tensor._lod = arr, lod
            values[slot] = arr
            values[lod_slot] = lod


# --- LoD feeds ----------------------------------------------------------------------------------------------------

def feed_lod_levels(block, feed: dict) -> tuple:
    """((name, LoD levels), ...) for the fed values that carry LoD, () when none does (see the module docstring)."""
    levels = ()
    for name, value in feed.items():
        kind = type(value)
        if kind is np.ndarray:
            continue
        if kind is LoDTensor or isinstance(value, LoDTensor):
            if value._lod:
                levels += ((name, len(value._lod)),)
        elif kind is list or kind is tuple:
            var = block._find_var_recursive(name)
            if var is not None and var.lod_level:
                levels += ((name, int(var.lod_level)),)
    return levels


def lod_feed(value, var: Variable | None, name: str) -> tuple:
    """(array, LoD) of a fed value that carries LoD: a LoDTensor (its LoD checked against its rows) or a nested
    list (converted as the DataFeeder converts a batch, `var.lod_level` levels deep)."""
    if isinstance(value, LoDTensor):
        arr = as_array(value, var)
        if type(arr) is np.ndarray and var is not None and value.value is not None:
            arr = _as_var_dtype(arr, var)
        lod = value._lod
        if lod:
            check_lod(lod, arr.shape[0] if getattr(arr, 'ndim', 0) else None, name)
        return arr, lod
    if isinstance(value, (list, tuple)) and var is not None and var.lod_level:
        rows, lengths = flatten_nested(value, int(var.lod_level), name)
        dtype = to_numpy(var.dtype)
        shape = list(var.shape[1:]) if var.has_shape() else []
        return rows_array(rows, dtype, shape, name, int(var.lod_level)), lod_from_lengths(lengths)
    return as_array(value, var), NO_LOD


def _as_var_dtype(arr: np.ndarray, var: Variable) -> np.ndarray:
    """A LoDTensor's array converted to an unchecked data variable's dtype, as as_array does for arrays."""
    try:
        dtype = to_numpy(var.dtype)
    except (TypeError, KeyError, ValueError):
        return arr
    if (arr.dtype != dtype and var.is_data and not var.need_check_feed and arr.dtype.kind in 'biuf'
            and dtype.kind in 'biuf'):
        return arr.astype(dtype)
    return arr


def split_lod_batch(arr: np.ndarray, lod, n_places: int) -> list:
    """Paddle's SplitLoDTensor: (array, LoD) chunks of ceil(sequences / n_places) whole top-level sequences each;
    fewer chunks when there are few sequences; an empty batch gives every place an empty chunk."""
    sequences = lod[0].shape[0] - 1
    if sequences == 0 or n_places == 1:
        return [(arr, lod)] * (n_places if sequences == 0 else 1)
    step = -(-sequences // n_places)
    chunks = []
    for begin in range(0, sequences, step):
        sub, row_begin, row_end = slice_lod(lod, begin, min(begin + step, sequences))
        chunks.append((arr[row_begin:row_end], sub))
    return chunks


def known_feeds(block, feed: dict) -> dict:
    """The feed without the names the program does not have, each dropped with Paddle's warning."""
    have = block.vars
    unknown = [name for name in feed if name not in have]
    if not unknown:
        return feed
    for name in unknown:
        warnings.warn('The variable %s is not found in program. It is not declared or is pruned.' % name)
    return {k: v for k, v in feed.items() if k not in unknown}


# --- the scope side of a run: values no op produces come from the scope, persistables go back to it ------------

def bind_scope_inputs(scope_inputs, values: list, scope) -> None:
    """Puts each plan input that no op produces and nobody feeds into its slot, from `scope` (None: no scope)."""
    for slot, name, op in scope_inputs:
        sv = scope.find_var(name) if scope is not None else None
        if sv is None or sv.tensor.value is None:
            if not _may_be_uninitialized(name, op):
                raise_missing(name, op)
            values[slot] = None
            continue
        values[slot] = sv.tensor.value


def _may_be_uninitialized(name: str, op) -> bool:
    """Whether `op` reads `name` through an input slot its kernel accepts without a value (OpInfo.uninitialized_ok)."""
    info = registry.OPS.get(op.type) if op is not None else None
    return info is not None and any(name in op.inputs.get(s, ()) for s in info.uninitialized_ok)


def bind_lods(lod_binding, fed_lods: dict | None, values: list, scope) -> None:
    """The LoDs a run starts from: those of fed values already split (`fed_lods`, data parallel; the plain
    Executor's FeedBinding binds its own) and those of the scope's tensors the plan reads."""
    if fed_lods:
        slots = lod_binding.feed_slots
        for name, lod in fed_lods.items():
            values[slots[name]] = lod
    for slot, name in lod_binding.scope_inputs:
        sv = scope.find_var(name) if scope is not None else None
        values[slot] = sv.tensor._lod if sv is not None else NO_LOD


def write_scope_lods(scope_outputs, values: list, scope) -> None:
    """The LoDs of persistables a run wrote, into their scope tensors."""
    for slot, name in scope_outputs:
        value = values[slot]
        if value is not None:
            scope.var(name).tensor._lod = value


def write_scope_outputs(scope_outputs, values: list, scope) -> None:
    for slot, name in scope_outputs:
        value = values[slot]
        if value is not None:
            scope.var(name).tensor.value = value


def raise_missing(name: str, op) -> None:
    """The error for a value a run needs that nobody provides: a missing feed (named with the op and slot that
    read it, in the words of Paddle's "not initialized" error) or an unknown fetch (Paddle's NotFoundError)."""
    if op is None:
        raise RuntimeError("Input variable(%s) cannot be found in scope for operator 'Fetch'. Confirm that you have "
                           "used the fetch `Variable` format instead of the string literal('%s') in `fetch_list` "
                           "parameter when using `executor.run` method: it is neither a variable of the program "
                           "being run nor held by the scope" % (name, name))
    slot = next((k for k, names in op.inputs.items() if name in names), '?')
    var = op.block._find_var_recursive(name)
    hint = ('run the startup program first' if var is not None and var.persistable
            else "feed it, e.g. feed={'%s': ...}" % name)
    raise RuntimeError("The Tensor in the %s Op's Input Variable %s(%s) is not initialized: the variable '%s' has "
                       "no value (it is not fed, no earlier op computes it and the scope does not hold it); %s"
                       % (op.type, slot, name, name, hint))


# --- data parallelism: the feed split over places, the fetch merge --------------------------------------------------

class FeedCountError(ValueError, NotImplementedError):
    """A list of feeds whose length is not the number of places. Paddle 1.8 documents ValueError; Paddle 2.x raises
    NotImplementedError (UnimplementedError): either `except` catches it."""


def split_batch(value, n_places: int) -> list:
    """Paddle's SplitLoDTensor: chunks of ceil(batch / n_places) rows; fewer chunks when the batch is small.
    An empty batch gives every place an empty chunk; a 0-d value or a SelectedRows is one chunk."""
    if n_places == 1 or not isinstance(value, np.ndarray) or value.ndim == 0:
        return [value]
    batch = value.shape[0]
    if batch == 0:
        return [value] * n_places
    step = -(-batch // n_places)
    return [value[i:i + step] for i in range(0, batch, step)]


def _feed_var(block, name: str):
    var = block._find_var_recursive(name)
    if var is None:
        raise ValueError('var %s not in this block: the fed variable %r is not a variable of the program being run'
                         % (name, name))
    return var


def split_feeds(block, feed, n_places: int, is_inference: bool, scopes: list) -> tuple[list[dict], int, list]:
    """Paddle's ParallelExecutor feed: per-place dicts of the non-persistable feeds, how many places run, and per
    place the LoDs of the fed values that carry one (name -> LoD). A dict is split along axis 0 (ceil rule, checked
    per device), a LoD feed between whole sequences; a list gives one dict per place. Persistable feeds go straight
    into the place scopes (one sample is copied to every place). Programs without backward or optimizer ops may be
    fed fewer chunks than places: only the fed places run."""
    if feed is None:
        return [{} for _ in range(n_places)], n_places, [{} for _ in range(n_places)]
    if isinstance(feed, dict):
        chunks: dict[str, list] = {}
        lod_chunks: dict[str, list] = {}
        for name, value in feed.items():
            var = _feed_var(block, name)
            lod = NO_LOD
            if type(value) is np.ndarray:
                arr = as_array(value, var)
            else:
                arr, lod = lod_feed(value, var, name)
            if lod:
                check_feed(var, arr)
                pieces = split_lod_batch(arr, lod, n_places)
                parts = [a for a, _ in pieces]
                lod_chunks[name] = [sub for _, sub in pieces]
            else:
                if n_places > 1 and isinstance(arr, np.ndarray) and arr.ndim:
                    check_feed(var, arr, (-(-arr.shape[0] // n_places),) + arr.shape[1:])
                else:
                    check_feed(var, arr)
                parts = split_batch(arr, n_places)
            if var.persistable:
                _feed_persistable(name, parts, arr, scopes)
                lod_chunks.pop(name, None)
            else:
                chunks[name] = parts
        counts = {name: len(parts) for name, parts in chunks.items()}
        n_run = n_places
        short = [name for name, c in counts.items() if c < n_places]
        if short:
            if not is_inference:
                name = short[0]
                raise RuntimeError(
                    'The number(%d) of samples[%s] of current batch is less than the count(%d) of devices(CPU), '
                    'currently, it is not allowed. You should set the environment variable CPU_NUM in the system '
                    'to determine the number of devices you need.' % (counts[name], name, n_places))
            if len(set(counts.values())) > 1:
                low, high = min(counts, key=counts.get), max(counts, key=counts.get)
                raise RuntimeError("The fed variables split into different numbers of chunks over the %d places "
                                   "('%s' into %d, '%s' into %d): feed the same batch size for every variable"
                                   % (n_places, low, counts[low], high, counts[high]))
            n_run = counts[short[0]]
        return ([{name: parts[p] for name, parts in chunks.items()} for p in range(n_run)], n_run,
                [{name: parts[p] for name, parts in lod_chunks.items()} for p in range(n_run)])
    if isinstance(feed, (list, tuple)):
        if len(feed) != n_places and not (is_inference and 0 < len(feed) < n_places):
            raise FeedCountError(
                'The feed data number %d does not match the device number %d. If you are using DataLoader to '
                'feed data, this may be because you set drop_last=False in training network. Currently, '
                'drop_last=False for DataLoader is not supported for training network. Please set '
                'drop_last=True when defining DataLoader.' % (len(feed), n_places))
        per_place, per_place_lod = [], []
        for p, each in enumerate(feed):
            if not isinstance(each, dict):
                raise TypeError('Each element of feed list should be a dict')
            place_feed, place_lod = {}, {}
            for name, value in each.items():
                var = _feed_var(block, name)
                arr, lod = (as_array(value, var), NO_LOD) if type(value) is np.ndarray else lod_feed(value, var, name)
                check_feed(var, arr)
                if var.persistable:
                    scopes[p].var(name).set_value(np.array(arr, copy=True))
                else:
                    place_feed[name] = arr
                    if lod:
                        place_lod[name] = lod
            per_place.append(place_feed)
            per_place_lod.append(place_lod)
        names = set(per_place[0])
        for p, place_feed in enumerate(per_place):
            if set(place_feed) != names:
                odd = sorted(names ^ set(place_feed))[0]
                raise ValueError("The feed list must feed the same variables on every place: '%s' is fed on "
                                 "some places but not on place %d" % (odd, p))
        levels = {name: len(lod) for name, lod in per_place_lod[0].items()}
        for p, place_lod in enumerate(per_place_lod):
            if {name: len(lod) for name, lod in place_lod.items()} != levels:
                raise ValueError('The feed list must feed values with as many LoD levels on every place: place 0 '
                                 'feeds %s, place %d %s' % (levels, p,
                                                            {name: len(lod) for name, lod in place_lod.items()}))
        return per_place, len(per_place), per_place_lod
    raise TypeError('feed requires a dict, or a list of dicts (one per place), but received %s'
                    % type(feed).__name__)


def _feed_persistable(name: str, parts: list, whole, scopes: list) -> None:
    n = len(scopes)
    if len(parts) == 1:
        parts = [whole] * n
    if len(parts) != n:
        raise RuntimeError(
            'The number(%d) of samples[%s] of the current batch does not match the count(%d) of devices(CPU). '
            'Because that %s is a persistable variable, you can feed just one sample, in that case, the input '
            'sample will be copied in %d copies and be sent to different places separately. If you need that '
            'different place has different value, you should feed %d samples.' % (len(parts), name, n, name, n, n))
    for scope, part in zip(scopes, parts):
        scope.var(name).set_value(np.array(part, copy=True))


def merge_fetch(name: str, per_place: list) -> np.ndarray:
    """Paddle's MergeLoDTensor: the places' values concatenated along axis 0 (merge_lods joins their LoDs)."""
    arrays = []
    for p, v in enumerate(per_place):
        if v is None:
            raise RuntimeError("The fetched variable '%s' has no value on place %d" % (name, p))
        arrays.append(v.to_dense() if isinstance(v, SelectedRows) else np.asarray(v))
    if arrays[0].ndim == 0:
        return np.stack(arrays)
    return np.concatenate(arrays, axis=0)


def fetch_results(plan, values: list, names: list, n_run: int, return_numpy: bool, return_merged: bool,
                  data_parallel: bool, convert=None) -> list:
    """What run() returns: one value per fetched name (data parallel: merged over the places that ran, or with
    return_merged=False a list with one value per place). `convert` replaces as_fetch_result (the profiler's
    recorded one)."""
    as_fetch_result_ = convert or as_fetch_result
    places, copies = plan.places, plan.analysis.fetch_copy
    if places[0].lod is not None:
        return _lod_fetch_results(plan, values, names, n_run, return_numpy, return_merged, data_parallel)
    if not data_parallel:
        return [as_fetch_result_(values[s], return_numpy, copy) for s, copy in zip(places[0].fetch_slots, copies)]
    results = []
    for k, name in enumerate(names):
        per_place = [values[places[p].fetch_slots[k]] for p in range(n_run)]
        if not return_merged:
            results.append([as_fetch_result_(v, return_numpy, copies[k]) for v in per_place])
        elif n_run == 1:
            results.append(as_fetch_result_(per_place[0], return_numpy, copies[k]))
        else:
            merged = merge_fetch(name, per_place)
            results.append(merged if return_numpy else LoDTensor(merged))
    return results


def _lod_fetch_results(plan, values: list, names: list, n_run: int, return_numpy: bool, return_merged: bool,
                       data_parallel: bool) -> list:
    """fetch_results of a plan where values carry LoD."""
    places, copies = plan.places, plan.analysis.fetch_copy

    def lod_of(p: int, k: int):
        s = places[p].lod.fetch_slots[k]
        return NO_LOD if s is None else (values[s] or NO_LOD)

    results = []
    for k, name in enumerate(names):
        if not data_parallel or n_run == 1 or not return_merged:
            per_place = [as_fetch_result(values[places[p].fetch_slots[k]], return_numpy, copies[k], lod_of(p, k), name)
                         for p in range(n_run if data_parallel else 1)]
            results.append(per_place if data_parallel and not return_merged else per_place[0])
            continue
        lods = [lod_of(p, k) for p in range(n_run)]
        merged_lod = merge_lods(lods, name) if any(lods) else NO_LOD
        if merged_lod and return_numpy:
            raise RuntimeError(LOD_FETCH_ERROR + " (the fetched variable '%s' holds a LoD)" % name)
        merged = merge_fetch(name, [values[places[p].fetch_slots[k]] for p in range(n_run)])
        results.append(merged if return_numpy else LoDTensor(merged, merged_lod))
    return results
