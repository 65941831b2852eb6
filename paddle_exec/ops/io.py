"""io ops: `py_func`, a user's Python function run as an op (Paddle's py_func_op).

The callables live in one process-wide list, as Paddle's `core._append_python_callable_object_and_return_id`
keeps them; the op stores only their index (`forward_callable_id`, `backward_callable_id`, -1 for none), so a
Program stays plain data. `PyFuncRegistry(func).id` registers a function and gives its id.

Forward: `Out = func(*X)`. Each input reaches the function as a read-only numpy array (an absent value as None);
the function returns one value per output (a single value, a tuple or a list; arrays, LoDTensors or anything
`np.array` accepts), cast to the output variable's declared dtype. A function with no outputs returns None.

Backward (when `backward_callable_id` >= 0): the grad op is another `py_func` whose function is the user's
`backward_func`, called with the forward inputs and outputs not listed in `backward_skip_vars`, then the gradient
of every output; it returns one gradient per forward input (None where none is wanted). Positions of inputs that
need no gradient are `@EMPTY@` in the grad op's output list, as in Paddle.
"""
from __future__ import annotations

import numpy as np

from ..framework.dtype import to_numpy
from ..framework.registry import defop, grad_rule, kernel_rule, shape_rule
from ..framework.scope import LoDTensor
from ..framework.variable import EMPTY_VAR_NAME, GRAD_SUFFIX

__all__ = ['PyFuncRegistry']


class PyFuncRegistry:
    """Registers a Python callable; `id` is its index in the process-wide list (Paddle's PyFuncRegistry)."""

    _register_funcs: list = []

    def __init__(self, func):
        if func is None or not callable(func):
            raise TypeError('func must be a Python function')
        self._func = func
        self._id = len(PyFuncRegistry._register_funcs)
        PyFuncRegistry._register_funcs.append(self)

    @property
    def id(self) -> int:
        return self._id

    @classmethod
    def registered_func(cls, idx: int):
        return cls._register_funcs[idx]._func

    @classmethod
    def registered_func_num(cls) -> int:
        return len(cls._register_funcs)

    def __call__(self, *args):
        return self._func(*args)


defop('py_func', ['X'], ['Out'],
      {'forward_callable_id': -1, 'backward_callable_id': -1, 'backward_skip_vars': []},
      duplicable=['X', 'Out'], dispensable=['X', 'Out'], stateful=True)


def _strip_grad(name: str) -> str:
    return name[:name.find(GRAD_SUFFIX)]


@shape_rule('py_func')
def _py_func_shape(ctx):
    """Forward outputs are declared by the user; a backward py_func's `X@GRAD` outputs take X's shape and dtype."""
    for k, name in enumerate(ctx.op.outputs.get('Out', [])):
        if GRAD_SUFFIX not in name:
            continue
        fwd = ctx.block._find_var_recursive(_strip_grad(name))
        if fwd is not None:
            ctx.set_output('Out', fwd.shape if fwd.has_shape() else None, fwd.dtype, i=k)


@grad_rule('py_func')
def _py_func_grad(g):
    """Paddle's PyFuncOpGradDescMaker: no grad op without a backward function."""
    backward_id = g.attrs.get('backward_callable_id', -1)
    if backward_id is None or backward_id < 0:
        return []
    skip = set(g.attrs.get('backward_skip_vars') or ())
    ins = [n for n in g.input('X') + g.output('Out') if n not in skip] + g.output_grad('Out')
    return [('py_func', {'X': ins}, {'Out': g.input_grad('X')},
             {'forward_callable_id': backward_id, 'backward_callable_id': -1, 'backward_skip_vars': []})]


def _as_output(value, dtype, name: str, k: int, what: str):
    if name == EMPTY_VAR_NAME:
        return None                     # a gradient nobody wants: whatever was returned is dropped
    if value is None:
        raise ValueError("py_func: the Python function %s returned None for output %d (%s), which the program "
                         "needs" % (what, k, name))
    if isinstance(value, LoDTensor):
        value = value.value
    arr = np.asarray(value)
    if dtype is not None and arr.dtype != dtype:
        arr = arr.astype(dtype)
    return arr


def _read_only(value):
    if not isinstance(value, np.ndarray):
        return value
    view = value.view()
    view.flags.writeable = False   # the array is shared with other ops of the run
    return view


@kernel_rule('py_func')
def _py_func_kernel(spec):
    func_id = spec.attr('forward_callable_id')
    if func_id is None or not 0 <= func_id < PyFuncRegistry.registered_func_num():
        raise ValueError("operator 'py_func' refers to Python callable %r, which is not registered in this process"
                         % (func_id,))
    func = PyFuncRegistry.registered_func(func_id)
    out_names = list(spec.op.outputs.get('Out', []))
    dtypes = []
    for name in out_names:
        var = spec.op.block._find_var_recursive(name) if name != EMPTY_VAR_NAME else None
        dtypes.append(to_numpy(var.dtype) if var is not None and var._dtype is not None else None)
    what = getattr(func, '__name__', repr(func))

    def run(xs):
        args = [_read_only(x) for x in xs] if xs else []
        ret = func(*args)
        if not out_names:
            return (None,)
        if not isinstance(ret, (list, tuple)):
            ret = (ret,)
        if len(ret) != len(out_names):
            raise ValueError("py_func: the Python function %s returned %d value(s), but operator 'py_func' has "
                             "%d output(s) %s" % (what, len(ret), len(out_names), out_names))
        return ([_as_output(v, dt, n, k, what) for k, (v, dt, n) in enumerate(zip(ret, dtypes, out_names))],)
    return run
