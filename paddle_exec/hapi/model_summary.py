"""paddle.summary: the table of a network's layers, their input / output shapes and parameter counts (Paddle 2.6's
hapi model_summary), as 2.6.2 makes it in static mode.

A forward post hook on every layer (but the Sequential / LayerList containers, and the network itself when it has
sublayers) records the shapes of what it received and built while the network is called once on `paddle.rand`
inputs of the given sizes; parameter counts come from each layer's state_dict (so a container layer counts its
children's). The shapes are the programs' compile-time shapes. Paddle 2.6.2 builds that call into the default main
program; here it goes into a copy of the program that holds the parameters, so summary() leaves the user's programs
as they were. Like 2.6.2
in static mode it warns that the information may be inexact.

    ---------------------------------------------------------------------------
     Layer (type)       Input Shape          Output Shape         Param #
    ===========================================================================
       Conv2D-1       [[1, 1, 28, 28]]      [1, 6, 28, 28]          60
    ...
    Total params: 61,610
"""
from __future__ import annotations

import numbers
import warnings
from collections import OrderedDict

import numpy as np

from ..framework import Program, program_guard
from ..framework.variable import Variable
from ..nn.layer.container import LayerList, Sequential
from ..static.extras import InputSpec
from ..tensor.manipulation import cast
from ..tensor.random import rand

__all__ = ['summary']


def _all_numbers(items) -> bool:
    return all(isinstance(item, numbers.Number) for item in items)


def _normalise_size(input_size):
    if isinstance(input_size, InputSpec):
        return tuple(input_size.shape)
    if isinstance(input_size, list):
        out = []
        for item in input_size:
            if isinstance(item, int):
                item = (item,)
            assert isinstance(item, (tuple, InputSpec)), \
                'When input_size is list, expect item in input_size is a tuple or InputSpec, but got %s' % type(item)
            out.append(tuple(item.shape) if isinstance(item, InputSpec) else item)
        return out
    if isinstance(input_size, int):
        return (input_size,)
    return input_size


def _check_shape(shape) -> tuple:
    num_unknown, new_shape = 0, []
    for item in shape:
        if item is None or item == -1:
            num_unknown += 1
            if num_unknown > 1:
                raise ValueError('Option input_size only the dim of batch_size can be None or -1.')
            item = 1
        elif isinstance(item, numbers.Number) and item <= 0:
            raise ValueError('Expected element in input size greater than zero, but got %s' % item)
        new_shape.append(item)
    return tuple(new_shape)


def _check_input(input_size):
    if isinstance(input_size, (list, tuple)) and not any(isinstance(i, (list, tuple)) for i in input_size):
        return _check_shape(input_size)
    return [_check_input(i) for i in input_size]


def summary(net, input_size=None, dtypes=None, input=None) -> dict:
    """Prints the summary table of `net` called on inputs of `input_size` (a shape, an InputSpec or a list of
    them; the batch dim may be None / -1) or on `input`; returns {'total_params', 'trainable_params'}."""
    if input_size is None and input is None:
        raise ValueError('input_size and input cannot be None at the same time')
    if input_size is None:
        if isinstance(input, Variable):
            input_size = tuple(input.shape)
        elif isinstance(input, (list, tuple)):
            input_size = [tuple(x.shape) for x in input]
        elif isinstance(input, dict):
            input_size = [tuple(x.shape) for x in input.values()]
        else:
            raise ValueError('Input is not tensor, list, tuple and dict, unable to determine input_size, please '
                             'input input_size.')
    warnings.warn('Your model was created in static graph mode, this may not get correct summary information!')
    result, params_info = summary_string(net, _check_input(_normalise_size(input_size)), dtypes, input)
    print(result)
    return params_info


def _build_dtypes(input_size, dtype):
    if isinstance(input_size, (list, tuple)) and _all_numbers(input_size):
        return [dtype or 'float32']
    return [_build_dtypes(i, dtype) for i in input_size]


def _build_input(input_size, dtypes):
    if isinstance(input_size, (list, tuple)) and _all_numbers(input_size):
        dtype = dtypes[0] if isinstance(dtypes, (list, tuple)) else dtypes
        return cast(rand(list(input_size)), dtype)
    return [_build_input(i, dtype) for i, dtype in zip(input_size, dtypes)]


def _shape_of(x):
    if isinstance(x, Variable):
        return list(x.shape)
    if isinstance(x, (list, tuple)):
        return [_shape_of(xx) for xx in x]
    return None


def _output_shape(output):
    if isinstance(output, (list, tuple)):
        return [_output_shape(o) for o in output]
    return list(output.shape) if hasattr(output, 'shape') else []


def _record_layers(model, input_size, dtypes, input) -> tuple[OrderedDict, list]:
    """Calls the model once with a hook on each layer; {'<Class>-<n>': shapes and parameter counts}."""
    table = OrderedDict()
    depth = len(list(model.sublayers()))

    def hook(layer, inputs, output):
        class_name = type(layer).__name__
        try:
            layer_idx = int(layer._full_name.split('_')[-1])
        except ValueError:
            layer_idx = len(table)
        row = table['%s-%i' % (class_name, layer_idx + 1)] = OrderedDict()
        row['input_shape'] = _shape_of(inputs)
        row['output_shape'] = _output_shape(output)
        params, row['trainable_params'], trainable_flag = 0, 0, False
        for key, value in layer.state_dict().items():
            params += np.prod(value.shape)
            owner = getattr(layer, key, None)
            if owner is None:
                row['trainable'] = True
            elif owner.trainable and not owner.stop_gradient:
                row['trainable_params'] += np.prod(value.shape)
                row['trainable'] = trainable_flag = True
            elif not trainable_flag:
                row['trainable'] = False
        row['nb_params'] = params

    hooks = []

    def register(layer):
        if not isinstance(layer, (Sequential, LayerList)) and (layer is not model or depth < 1):
            hooks.append(layer.register_forward_post_hook(hook))

    if isinstance(input_size, tuple):
        input_size = [input_size]
    if not isinstance(dtypes, (list, tuple)):
        dtypes = _build_dtypes(input_size, dtypes)
    model.apply(register)
    # a copy of the program that holds the parameters: the ops are built there and dropped with it
    params = model.parameters()
    scratch = params[0].block.program.clone() if params else Program()
    try:
        with program_guard(scratch, Program()):
            if input is not None:
                model(input)
            else:
                model(*_build_input(input_size, dtypes))
    finally:
        for h in hooks:
            h.remove()
    return table, input_size


def _input_megabytes(input_size) -> float:
    if isinstance(input_size, (list, tuple)) and _all_numbers(input_size):
        return abs(np.prod(input_size) * 4.0 / (1024 ** 2.0))
    return sum(_input_megabytes(i) for i in input_size)


def summary_string(model, input_size=None, dtypes=None, input=None) -> tuple[str, dict]:
    table, input_size = _record_layers(model, input_size, dtypes, input)
    width = {'layer_width': 15, 'input_shape_width': 20, 'output_shape_width': 20, 'params_width': 15}
    for layer, row in table.items():
        width['output_shape_width'] = max(width['output_shape_width'], len(str(row['output_shape'])))
        width['input_shape_width'] = max(width['input_shape_width'], len(str(row['input_shape'])))
        width['layer_width'] = max(width['layer_width'], len(str(layer)))
        width['params_width'] = max(width['params_width'], len(str(row['nb_params'])))
    table_width = max(75, sum(width.values()) + 5)

    def line(*cells):
        return '{:^{}} {:^{}} {:^{}} {:^{}}'.format(
            cells[0], width['layer_width'], cells[1], width['input_shape_width'], cells[2],
            width['output_shape_width'], cells[3], width['params_width']) + '\n'

    out = '-' * table_width + '\n' + line('Layer (type)', 'Input Shape', 'Output Shape', 'Param #')
    out += '=' * table_width + '\n'
    total_params = total_output = trainable_params = 0
    for layer, row in table.items():
        out += line(layer, str(row['input_shape']), str(row['output_shape']), '{:,}'.format(row['nb_params']))
        total_params += row['nb_params']
        try:
            total_output += np.sum(np.prod(row['output_shape'], axis=-1))
        except ValueError:
            for shape in row['output_shape']:
                total_output += np.sum(np.prod(shape, axis=-1))
        if row.get('trainable'):
            trainable_params += row['trainable_params']
    total_input_size = _input_megabytes(input_size)
    total_output_size = abs(2.0 * total_output * 4.0 / (1024 ** 2.0))    # x2 for gradients
    total_params_size = abs(total_params * 4.0 / (1024 ** 2.0))
    total_size = total_params_size + total_output_size + total_input_size
    out += '=' * table_width + '\n'
    out += 'Total params: {:,}\n'.format(total_params)
    out += 'Trainable params: {:,}\n'.format(trainable_params)
    out += 'Non-trainable params: {:,}\n'.format(total_params - trainable_params)
    out += '-' * table_width + '\n'
    out += 'Input size (MB): %0.2f\n' % total_input_size
    out += 'Forward/backward pass size (MB): %0.2f\n' % total_output_size
    out += 'Params size (MB): %0.2f\n' % total_params_size
    out += 'Estimated Total Size (MB): %0.2f\n' % total_size
    out += '-' * table_width + '\n'
    return out, {'total_params': total_params, 'trainable_params': trainable_params}
