"""The smaller builders of paddle.static / fluid: py_func, device_guard, InputSpec, and fluid's DataFeeder;
create_parameter and create_global_var (layers/creation.py) are exported from here too.

    out = main.current_block().create_var(name='y', dtype='float32', shape=x.shape)
    static.py_func(func=np.tanh, x=x, out=out, backward_func=lambda x, y, dy: dy * (1 - y * y))

`py_func` appends one `py_func` op (ops/io.py) whose attributes hold the ids of the registered callables.
`DataFeeder(feed_list, place).feed(minibatch)` turns a list of per-sample tuples into the feed dict of
LoDTensors, as fluid 1.8 does: one array per variable, reshaped to the variable's shape when it has at most one
unknown dimension.
"""
from __future__ import annotations

import contextlib

import numpy as np

from ..executor.config import cpu_place_count
from ..framework.dtype import convert_dtype, to_var_type
from ..framework.lod import flatten_nested
from ..framework.program import default_main_program
from ..framework.scope import LoDTensor
from ..framework.variable import Variable
from ..layers.creation import create_global_var, create_parameter
from ..layers.helper import LayerHelper
from ..layers.io import data_v2
from ..ops.io import PyFuncRegistry

__all__ = ['py_func', 'create_parameter', 'create_global_var', 'device_guard', 'InputSpec', 'DataFeeder']


# --- py_func ------------------------------------------------------------------------------------------------------

def _as_var_list(value, what: str) -> list[Variable]:
    if value is None:
        return []
    if isinstance(value, Variable):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(v, Variable) for v in value):
        return list(value)
    raise TypeError("The type of '%s' in py_func must be Variable, list(Variable) or tuple(Variable), but received %s"
                    % (what, type(value).__name__))


def py_func(func, x, out, backward_func=None, skip_vars_in_backward_input=None):
    """Runs the Python `func` as an op: `out = func(*x)` (numpy arrays in, arrays out). `out` must be created by
    the caller with its shape and dtype. With `backward_func`, the op is differentiable: it is called with the
    inputs and outputs not in `skip_vars_in_backward_input`, then the output gradients, and returns one gradient
    per input (None where none is wanted). Returns `out`."""
    helper = LayerHelper('py_func')
    xs = _as_var_list(x, 'X')
    outs = _as_var_list(out, 'Out')
    fwd_id = PyFuncRegistry(func).id
    bwd_id = PyFuncRegistry(backward_func).id if backward_func is not None else -1
    for v in outs:
        if len(v.shape) == 0:
            raise ValueError('Output shapes of py_func op should be provided by users manually (output %r has no '
                             'shape)' % v.name)
    skip = []
    if backward_func is not None and skip_vars_in_backward_input is not None:
        fwd_names = {v.name for v in xs + outs}
        for v in _as_var_list(skip_vars_in_backward_input, 'skip_vars_in_backward_input'):
            if v.name not in fwd_names:
                raise ValueError('Variable {} is not found in forward inputs and outputs'.format(v.name))
            if v.name not in skip:
                skip.append(v.name)
    helper.append_op('py_func', {'X': xs}, {'Out': outs},
                     {'forward_callable_id': fwd_id, 'backward_callable_id': bwd_id, 'backward_skip_vars': skip})
    return out


py_func.registered_func = PyFuncRegistry.registered_func
py_func.registered_func_num = PyFuncRegistry.registered_func_num


# --- small 2.x helpers -------------------------------------------------------------------------------------------

@contextlib.contextmanager
def device_guard(device=None):
    """Paddle places the ops built inside on `device`; paddle_exec has only the CPU, so this only checks the name."""
    if device is not None and not isinstance(device, str):
        raise TypeError("The type of 'device' in device_guard must be str, but received %s" % type(device).__name__)
    if device is not None and device.split(':')[0] not in ('cpu', 'gpu', 'xpu', 'npu'):
        raise ValueError("The Attr(device) should be 'cpu', 'gpu', 'xpu' or 'npu', and it can also be empty "
                         "string or None when there is no need to specify device. But received %s" % device)
    yield


class InputSpec:
    """paddle.static.InputSpec: the shape, dtype and name of an input (used to declare model inputs)."""

    def __init__(self, shape, dtype='float32', name=None):
        self.shape = tuple(-1 if d is None else int(d) for d in shape)
        self.dtype = to_var_type(dtype)
        self.name = name

    @classmethod
    def from_numpy(cls, ndarray, name=None):
        return cls(ndarray.shape, ndarray.dtype, name)

    def batch(self, batch_size):
        return InputSpec((batch_size,) + self.shape, self.dtype, self.name)

    def unbatch(self):
        if not self.shape:
            raise ValueError('Not support to unbatch a InputSpec when len(shape) == 0.')
        return InputSpec(self.shape[1:], self.dtype, self.name)

    def _create_feed_layer(self):
        return data_v2(self.name, list(self.shape), convert_dtype(self.dtype))

    def __eq__(self, other):
        return (type(other) is InputSpec and
                (self.shape, self.dtype, self.name) == (other.shape, other.dtype, other.name))

    def __hash__(self):
        return hash((self.shape, self.dtype, self.name))

    def __repr__(self):
        return 'InputSpec(shape=%s, dtype=%s, name=%s)' % (self.shape, self.dtype, self.name)


# --- DataFeeder -------------------------------------------------------------------------------------------------

class _Converter:
    """Collects one field of every sample and turns it into a LoDTensor (fluid's DataToLoDTensorConverter): a
    variable with lod_level L takes per sample a list of sequences L deep (one id list for L = 1), whose innermost
    items are the rows; the LoD is their lengths. A sample nested too shallow, or rows that make no regular array,
    raise naming the variable."""

    def __init__(self, name: str, lod_level: int, shape, dtype):
        self.name = name
        self.lod_level = lod_level
        # reshaping to the variable's shape only works with at most one unknown dimension
        self.shape = list(shape) if sum(1 for d in shape if d < 0) <= 1 else None
        self.dtype = convert_dtype(dtype)
        self.data: list = []
        self.lod: list = [[] for _ in range(lod_level)]

    def feed(self, data) -> None:
        if self.lod_level == 0:
            self.data.append(data)
            return
        rows, lengths = flatten_nested([data], self.lod_level, self.name)
        self.data.extend(rows)
        for level, more in zip(self.lod, lengths):
            level.extend(more)

    def done(self) -> LoDTensor:
        try:
            arr = np.array(self.data, dtype=self.dtype)
        except ValueError:
            raise ValueError("DataFeeder: the samples of '%s' (lod_level=%d, shape %s) do not make a regular array: "
                             "nested lists of the wrong depth, or rows of different sizes"
                             % (self.name, self.lod_level, self.shape)) from None
        if self.shape and len(arr.shape) != len(self.shape):
            try:
                arr = arr.reshape(self.shape)
            except ValueError:
                raise ValueError('Reshape error. What is defined in data layer is {}, but receive {}'
                                 .format(self.shape, arr.shape)) from None
        tensor = LoDTensor()
        tensor.set(arr)
        if self.lod_level > 0:
            tensor.set_recursive_sequence_lengths(self.lod)
        return tensor


class DataFeeder:
    """fluid.DataFeeder: converts a minibatch (an iterable of per-sample tuples, one field per fed variable)
    into the feed dict {name: LoDTensor} of Executor.run."""

    def __init__(self, feed_list, place, program=None):
        program = default_main_program() if program is None else program
        self.feed_names, self.feed_shapes, self.feed_dtypes, self.feed_lod_level = [], [], [], []
        for var in feed_list:
            if isinstance(var, str):
                var = program.block(0).var(var)
            if not isinstance(var, Variable):
                raise TypeError('Feed list should contain a list of variable')
            self.feed_names.append(var.name)
            self.feed_shapes.append(var.shape)
            self.feed_dtypes.append(var.dtype)
            self.feed_lod_level.append(var.lod_level)
        self.place = place

    def feed(self, iterable) -> dict:
        converters = [_Converter(name, lod, shape, dtype) for name, lod, shape, dtype
                      in zip(self.feed_names, self.feed_lod_level, self.feed_shapes, self.feed_dtypes)]
        for sample in iterable:
            if len(sample) != len(converters):
                raise ValueError('The number of fields in data (%d) does not match len(feed_list) (%d)'
                                 % (len(sample), len(converters)))
            for conv, field in zip(converters, sample):
                conv.feed(field)
        return {name: conv.done() for name, conv in zip(self.feed_names, converters)}

    def feed_parallel(self, iterable, num_places=None):
        """One feed dict per place, from one minibatch per place."""
        num = self._get_number_of_places_(num_places)
        if len(iterable) != num:
            raise ValueError('feed_parallel takes multiple mini-batches. Each mini-batch will be feed on each '
                             'device. The number of devices and number of mini-batches must be same.')
        for batch in iterable:
            yield self.feed(batch)

    def _get_number_of_places_(self, num_places=None) -> int:
        if num_places is not None:
            return int(num_places)
        return cpu_place_count()

    def decorate_reader(self, reader, multi_devices, num_places=None, drop_last=True):
        """A reader of feed dicts (one per place and step with `multi_devices`) from a reader of minibatches."""
        def reader_creator():
            if not multi_devices:
                for batch in reader():
                    yield self.feed(batch)
                return
            num = self._get_number_of_places_(num_places)
            group = []
            for batch in reader():
                group.append(batch)
                if len(group) == num:
                    yield list(self.feed_parallel(group, num))
                    group = []
            if not drop_last and group:
                raise ValueError('The data batch which cannot fit for devices will be dropped is not '
                                 'implementation. Other strategies are not implemented')
        return reader_creator
