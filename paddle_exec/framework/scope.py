"""Scopes hold the values of variables between runs: Paddle's Scope / Variable / LoDTensor surface.

A `Scope` maps names to `ScopeVar`s and has kid scopes (`new_scope`, `drop_kids`); `find_var` looks up through the
parents. A `ScopeVar` holds one value: a `LoDTensor` (a numpy array plus LoD) or `SelectedRows`. Executors keep
persistable variables here; temporaries live in the execution plan's slots and never touch a scope.

The holder tick. Every replacement of a tensor's value (`tensor.value = ...`, `set`, `set_value`, the executors'
write-backs, the load functions, all of which assign `value`) and every `Scope.erase` stores a fresh tick in
`HOLDER_TICK[0]`. Whoever has read some holders' arrays after reading the tick knows, while the tick still reads the
same, that none of them has been replaced since: one integer compare instead of one identity test per holder (the
serving lane's bound parameters, executor/bound.py). Ticks come from one itertools.count (atomic under the GIL), so
no two stores write the same tick and the tick never returns to a value it had: a store that lost a race with
another only makes readers look again. Updates in place (`tensor.value[...] = x`) keep the array, and need no tick.
"""
from __future__ import annotations

import contextlib
import itertools
import threading

import numpy as np

from .dtype import to_var_type
from .fetched_array import FetchedArray
from .lod import NO_LOD, Lod, as_lod, check_lengths, check_lod, lengths_of, lod_from_lengths, lod_is_valid, lod_to_list

HOLDER_TICK = [0]                   # see the module docstring; read it as HOLDER_TICK[0]
_TICKS = itertools.count(1)


def bump_holder_tick() -> None:
    """Store a fresh tick: some holder's array was replaced, or a variable erased."""
    HOLDER_TICK[0] = next(_TICKS)


class RowIndices(np.ndarray):
    """SelectedRows.rows: the int64 array paddle_exec's kernels use, also callable as Paddle's pybind method
    `rows()`, which returns the rows as a list (scripts that inspect sparse gradients call it)."""

    def __call__(self) -> list:
        return self.tolist()


class Height(int):
    """SelectedRows.height: an int, also callable as Paddle's pybind method `height()`."""

    def __call__(self) -> int:
        return int(self)


class SelectedRows:
    """A sparse row-slice of a [height, width] tensor: `rows` (int64, duplicates allowed) and `values`.
    `rows` and `height` read as an array and an int, and may also be called, `rows()` / `height()`, as in Paddle."""

    __slots__ = ('_rows', 'values', '_height')

    def __init__(self, rows=None, values=None, height: int = 0):
        self.rows = np.zeros(0, np.int64) if rows is None else rows
        self.values = values
        self.height = height

    @property
    def rows(self) -> RowIndices:
        return self._rows

    @rows.setter
    def rows(self, rows) -> None:
        self._rows = np.asarray(rows, np.int64).view(RowIndices)

    @property
    def height(self) -> Height:
        return self._height

    @height.setter
    def height(self, height) -> None:
        self._height = Height(height)

    # the pybind surface of core.SelectedRows
    def get_tensor(self):
        """The values as a tensor; `set` on it replaces the values (Paddle's `get_tensor()` shares memory)."""
        return _RowValuesTensor(self)

    def set_height(self, height):
        self.height = height

    def set_rows(self, rows):
        self.rows = rows

    def to_dense(self) -> np.ndarray:
        dense = np.zeros((self.height,) + self.values.shape[1:], self.values.dtype)
        np.add.at(dense, self.rows, self.values)
        return dense

    @property
    def shape(self):
        return (self.height,) + tuple(self.values.shape[1:])

    @property
    def dtype(self):
        return self.values.dtype

    def __repr__(self):
        return 'SelectedRows(height=%d, rows=%s, values shape=%s)' % (self.height, self.rows.tolist(),
                                                                     getattr(self.values, 'shape', None))


class LoDTensor:
    """A dense tensor: a numpy array (`value`) and its LoD (framework/lod.py; `()` when it has none).

    As with Paddle's pybind tensor, `np.array(tensor)` and `np.asarray(tensor)` give a copy (writing to it never
    changes the scope) and `set` copies its argument; an uninitialised tensor reads as an empty array of shape [0].
    `set_lod` / `set_recursive_sequence_lengths` check the LoD against the rows, as Paddle 1.8 does (EnforceNotMet
    naming the LoD; an uninitialised tensor takes any well-formed LoD). `lod()` gives offsets and
    `recursive_sequence_lengths()` lengths, as lists. Executors reach the array through `.value` and the LoD, a
    tuple of read-only int64 offset arrays, through `._lod`."""

    __slots__ = ('value', '_lod')

    def __init__(self, value=None, lod: Lod = NO_LOD):
        _store_value(self, value)       # a new holder replaces nobody's array: no tick
        self._lod = lod

    def __setattr__(self, name: str, value) -> None:
        # reads of `value` stay the slot's (9 ns; a property would take 39); a replacement stores a tick after the
        # store, so a reader that saw the old tick looks again (the module docstring)
        if name == 'value':
            _store_value(self, value)
            HOLDER_TICK[0] = next(_TICKS)
        else:
            object.__setattr__(self, name, value)

    def set(self, array, place=None) -> None:
        self.value = np.array(array, copy=True)

    def shape(self) -> list:
        if self.value is None:
            return [0]
        return list(np.shape(self.value))

    def _dtype(self):
        return to_var_type(self.value.dtype)

    def _rows(self) -> int | None:
        value = self.value
        if value is None or isinstance(value, SelectedRows) or np.ndim(value) == 0:
            return None
        return int(np.shape(value)[0])

    def lod(self) -> list:
        return lod_to_list(self._lod)

    def set_lod(self, lod) -> None:
        new = as_lod(lod)
        check_lod(new, self._rows(), 'this LoDTensor')
        self._lod = new

    def recursive_sequence_lengths(self) -> list:
        return lengths_of(self._lod)

    def set_recursive_sequence_lengths(self, lengths) -> None:
        new = lod_from_lengths(lengths)
        check_lengths(new, self._rows(), 'this LoDTensor')
        self._lod = new

    def has_valid_recursive_sequence_lengths(self) -> bool:
        return lod_is_valid(self._lod, self._rows())

    def _is_initialized(self) -> bool:
        return self.value is not None

    def __array__(self, dtype=None, copy=None):
        if self.value is None:
            return np.empty((0,), dtype=dtype)
        if isinstance(self.value, SelectedRows):
            return np.asarray(self.value.to_dense(), dtype=dtype)
        if copy is False:
            return np.asarray(self.value, dtype=dtype)
        return np.array(self.value, dtype=dtype, copy=True)

    # A one-element tensor converts as a fetched one-element array does (fetched_array.py): float(t), int(t), '%f' % t.
    # np.array(t) / np.asarray(t) always build a base-class ndarray, so those stay numpy's (docs/compat.md).
    def _as_fetched(self) -> FetchedArray:
        return np.asarray(self.__array__(copy=False)).view(FetchedArray)

    def __float__(self) -> float:
        return float(self._as_fetched())

    def __int__(self) -> int:
        return int(self._as_fetched())

    def __complex__(self) -> complex:
        return complex(self._as_fetched())

    def __index__(self) -> int:
        return self._as_fetched().__index__()

    def __round__(self, ndigits=None):
        return round(self._as_fetched(), ndigits)

    def __format__(self, spec: str) -> str:
        return format(self._as_fetched(), spec) if spec else str(self)

    def __repr__(self):
        if self._lod:
            return 'LoDTensor(%r, lod=%s)' % (self.value, self.lod())
        return 'LoDTensor(%r)' % (self.value,)


_store_value = LoDTensor.value.__set__         # the slot itself, without the tick


class ScopeVar:
    """What `scope.var(name)` returns: a named holder of one tensor."""

    __slots__ = ('name', 'tensor')

    def __init__(self, name: str):
        self.name = name
        self.tensor = LoDTensor()

    def get_tensor(self) -> LoDTensor:
        return self.tensor

    def get_selected_rows(self) -> SelectedRows:
        if not isinstance(self.tensor.value, SelectedRows):
            self.tensor.value = SelectedRows()
        return self.tensor.value

    def set_value(self, value) -> None:
        self.tensor.value = value

    @property
    def value(self):
        return self.tensor.value

    def is_initialized(self) -> bool:
        return self.tensor.value is not None


class Scope:
    """Names -> ScopeVar, with kid scopes. Creating a variable is guarded: executor threads may do it at once.
    `erasures` counts erase() calls: a ScopeVar found in `vars` stays the variable of its name until then, so the
    executor's lean run may keep the holders it found (executor/recipes.py)."""

    def __init__(self, parent: Scope | None = None):
        self.parent = parent
        self.vars: dict[str, ScopeVar] = {}
        self.kids: list[Scope] = []
        self.erasures = 0
        self._lock = threading.Lock()

    def var(self, name: str) -> ScopeVar:
        """The variable called `name` in this scope, created if missing."""
        v = self.vars.get(name)
        if v is None:
            with self._lock:
                v = self.vars.get(name)
                if v is None:
                    v = self.vars[name] = ScopeVar(name)
        return v

    def find_var(self, name: str) -> ScopeVar | None:
        scope = self
        while scope is not None:
            v = scope.vars.get(name)
            if v is not None:
                return v
            scope = scope.parent
        return None

    def find_local_var(self, name: str) -> ScopeVar | None:
        return self.vars.get(name)

    def erase(self, names) -> None:
        for name in names:
            self.vars.pop(name, None)
        self.erasures += 1
        bump_holder_tick()

    def local_var_names(self) -> list[str]:
        return list(self.vars)

    def new_scope(self) -> Scope:
        kid = Scope(self)
        with self._lock:
            self.kids.append(kid)
        return kid

    def drop_kids(self) -> None:
        with self._lock:
            self.kids = []

    def __repr__(self):
        return 'Scope(%d vars, %d kids)' % (len(self.vars), len(self.kids))


_global_scope = Scope()


def global_scope() -> Scope:
    return _global_scope


def _switch_scope(scope: Scope) -> Scope:
    global _global_scope
    old, _global_scope = _global_scope, scope
    return old


@contextlib.contextmanager
def scope_guard(scope: Scope):
    """Inside, `global_scope()` is `scope`."""
    old = _switch_scope(scope)
    try:
        yield
    finally:
        _switch_scope(old)


class _RowValuesTensor(LoDTensor):
    """The value tensor of a SelectedRows: reads and writes go to the SelectedRows' `values`."""

    __slots__ = ('_owner',)

    def __init__(self, owner: SelectedRows):
        super().__init__(owner.values)
        self._owner = owner

    def set(self, array, place=None) -> None:
        super().set(array, place)
        self._owner.values = self.value


class LoDTensorArray(list):
    """Paddle's LoDTensorArray (`fluid.LoDTensorArray`, `core.LoDTensorArray`): the value of a LOD_TENSOR_ARRAY
    variable, a list of tensors. The tensor-array ops (ops/control_flow.py) keep numpy arrays in it; `append`
    also takes a LoDTensor (its array is kept, as Paddle keeps the tensor) and `_move_to_list` gives the items as
    a plain list, as Paddle's does."""

    def append(self, tensor) -> None:
        super().append(tensor.value if isinstance(tensor, LoDTensor) else np.asarray(tensor))

    def _move_to_list(self) -> list:
        items = list(self)
        self.clear()
        return items
