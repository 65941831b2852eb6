"""Cropping and expanding builders of fluid 1.8's layers.nn (ops/cropping.py): crop, crop_tensor, random_crop,
expand_as, with Paddle 1.8's inputs, attributes and argument checks.
"""
from __future__ import annotations

import numpy as np

from ..framework import unique_name
from ..framework.variable import Variable
from .checks import check_type, check_variable_and_dtype, contains_var
from .creation import fill_constant
from .helper import LayerHelper

__all__ = ['crop', 'crop_tensor', 'random_crop', 'expand_as']


def crop(x, shape=None, offsets=None, name=None):
    """x cropped to `shape` (a list, or a Variable whose shape is taken) at `offsets` (a list or a Variable)."""
    check_variable_and_dtype(x, 'x', ['float32'], 'crop')
    check_type(shape, 'shape', (list, tuple, Variable), 'crop')
    helper = LayerHelper('crop', name=name)
    if offsets is None:
        offsets = [0] * len(x.shape)
    out = helper.create_variable_for_type_inference(x.dtype)
    inputs, attrs = {'X': [x]}, {}
    if isinstance(shape, Variable):
        inputs['Y'] = [shape]
    else:
        attrs['shape'] = list(shape)
    if isinstance(offsets, Variable):
        inputs['Offsets'] = [offsets]
    else:
        attrs['offsets'] = list(offsets)
    helper.append_op(type='crop', inputs=inputs, outputs={'Out': [out]}, attrs=attrs)
    return out


def _check_shape_value(value) -> None:
    if not isinstance(value, int):
        raise TypeError("Attr(shape)'s dtype of Op(crop_tensor) should be int32, but received: %s." % type(value))
    if value == 0:
        raise ValueError('Attr(shape) of Op(crop_tensor) should not be zero, but received: %s.' % str(value))
    if value < -1:
        raise ValueError('When the element in Attr(shape) of Op(crop_tensor) is negative, only -1 is supported, '
                         'but received: %s.' % str(value))


def _check_offset_value(value) -> None:
    if not isinstance(value, int):
        raise TypeError("Attr(offsets)'s dtype of Op(crop_tensor) should be int32, but received: %s."
                        % type(value))
    if value < 0:
        raise ValueError('Attr(offsets) of Op(crop_tensor) should be greater or equal to zero, but received: %s.'
                         % str(value))


def _int_tensor_list(helper, values, check, unknown: int):
    """A list mixing ints and Variables: ([1]-int32 Variables, attribute values with `unknown` for Variables)."""
    tensors, attr = [], []
    for value in values:
        if isinstance(value, Variable):
            value.stop_gradient = True
            tensors.append(value)
            attr.append(unknown)
        else:
            check(value)
            tmp = helper.create_variable_for_type_inference('int32')
            fill_constant([1], 'int32', value, force_cpu=True, out=tmp)
            tensors.append(tmp)
            attr.append(value)
    return tensors, attr


def crop_tensor(x, shape=None, offsets=None, name=None):
    """x cropped to `shape` at `offsets`; either may be a list of ints and Variables or one int Variable; a -1 in
    shape keeps the rest of that dimension."""
    helper = LayerHelper('crop_tensor', name=name)
    check_variable_and_dtype(x, 'x', ['float32', 'float64', 'int32', 'int64'], 'crop_tensor')
    check_type(shape, 'shape', (list, tuple, Variable), 'crop_tensor')
    check_type(offsets, 'offsets', (list, tuple, Variable, type(None)), 'crop_tensor')
    if offsets is None:
        offsets = [0] * len(x.shape)
    out = helper.create_variable_for_type_inference(x.dtype)
    inputs, attrs = {'X': [x]}, {}
    if isinstance(offsets, Variable):
        offsets.stop_gradient = True
        inputs['Offsets'] = [offsets]
        attrs['offsets'] = [-1] * len(x.shape)
    elif contains_var(offsets):
        inputs['OffsetsTensor'], attrs['offsets'] = _int_tensor_list(helper, offsets, _check_offset_value, -1)
    else:
        for offset in offsets:
            _check_offset_value(offset)
        attrs['offsets'] = list(offsets)
    if isinstance(shape, Variable):
        shape.stop_gradient = True
        inputs['Shape'] = [shape]
    elif contains_var(shape):
        inputs['ShapeTensor'], attrs['shape'] = _int_tensor_list(helper, shape, _check_shape_value, 0)
    else:
        for size in shape:
            _check_shape_value(size)
        attrs['shape'] = list(shape)
    helper.append_op(type='crop_tensor', inputs=inputs, outputs={'Out': [out]}, attrs=attrs)
    return out


def random_crop(x, shape, seed=None):
    """The trailing dims of every instance of x cropped to `shape` at a random offset; `seed` an int (kept in a
    persistable `random_crop_seed` variable the op updates) or an int64 Variable."""
    check_variable_and_dtype(x, 'x', ['float32', 'float64', 'uint8', 'int16', 'int32'], 'random_crop')
    check_type(shape, 'shape', (list, Variable), 'random_crop')
    helper = LayerHelper('random_crop')
    out = helper.create_variable_for_type_inference(x.dtype)
    if seed is None:
        seed = int(np.random.randint(-65536, 65536))
    attrs = {'shape': list(shape)}
    if isinstance(seed, int):
        attrs['startup_seed'] = seed
        seed = helper.create_variable(name=unique_name.generate('random_crop_seed'), dtype='int64',
                                      persistable=True)
    elif not isinstance(seed, Variable):
        raise ValueError("'seed' must be a Variable or an int.")
    helper.append_op(type='random_crop', inputs={'X': [x], 'Seed': [seed]},
                     outputs={'Out': [out], 'SeedOut': [seed]}, attrs=attrs)
    return out


def expand_as(x, target_tensor, name=None):
    """x tiled to target_tensor's shape (each of its dims a multiple of x's)."""
    dtypes = ['float32', 'float64', 'int32', 'int64', 'bool']
    check_variable_and_dtype(x, 'x', dtypes, 'expand_as')
    check_variable_and_dtype(target_tensor, 'target_tensor', dtypes, 'expand_as')
    helper = LayerHelper('expand_as', name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(type='expand_as', inputs={'X': [x], 'target_tensor': [target_tensor]}, outputs={'Out': [out]})
    return out
