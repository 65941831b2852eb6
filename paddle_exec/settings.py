"""Process-wide settings and conveniences of the paddle namespace that no op family owns, as Paddle 2.6.2 behaves
in static mode:

- get_default_dtype / set_default_dtype (stored in framework/dtype.py, read by the 2.x builders that default a
  float dtype), finfo / iinfo;
- the autograd mode switches no_grad, enable_grad, set_grad_enabled, is_grad_enabled: in a static graph gradients
  come from append_backward / gradients, so the context managers change nothing and is_grad_enabled() is False
  (2.6.2's answer outside dygraph);
- get_rng_state / set_rng_state: snapshots of paddle.seed's generator (framework/random.py), one per place;
- set_printoptions: fetched values are numpy arrays, so it sets numpy's print options (precision, threshold,
  edgeitems, linewidth; sci_mode False suppresses scientific notation);
- LazyGuard: in a static program parameters are initialised only when the startup program runs, which is what
  LazyGuard asks for, so it is an empty context;
- disable_signal_handler: paddle_exec installs no signal handlers, so there is nothing to disable;
- check_shape: Paddle's argument check for a shape (a list / tuple of ints and int Variables, or an int Variable);
- Tensor: the type of a static program's tensors, Variable (in Paddle, paddle.Tensor is the dygraph tensor type).
"""
from __future__ import annotations

import contextlib
import functools

import numpy as np

from .framework.dtype import convert_dtype, finfo, get_default_dtype, iinfo, set_default_dtype
from .framework.random import default_cpu_generator
from .framework.variable import Variable

__all__ = ['get_default_dtype', 'set_default_dtype', 'finfo', 'iinfo', 'no_grad', 'enable_grad', 'set_grad_enabled',
           'is_grad_enabled', 'get_rng_state', 'set_rng_state', 'set_printoptions', 'LazyGuard',
           'disable_signal_handler', 'check_shape', 'Tensor']

Tensor = Variable


class _NoOpGradMode(contextlib.ContextDecorator):
    """A context manager and decorator with no effect in a static graph (see the module docstring)."""

    def __init__(self, func=None):
        self._func = func
        if func is not None:
            functools.update_wrapper(self, func)

    def __call__(self, *args, **kwargs):
        if self._func is not None:       # used as @no_grad without parentheses
            return self._func(*args, **kwargs)
        return super().__call__(*args, **kwargs)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class no_grad(_NoOpGradMode):  # noqa: N801 - Paddle's name
    """paddle.no_grad: a context manager / decorator; static programs get gradients only from append_backward."""


class enable_grad(_NoOpGradMode):  # noqa: N801 - Paddle's name
    """paddle.enable_grad: as no_grad, no effect in a static graph."""


class set_grad_enabled(_NoOpGradMode):  # noqa: N801 - Paddle's name
    """paddle.set_grad_enabled(mode): as no_grad, no effect in a static graph."""

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError('set_grad_enabled expects a bool mode, got %s' % type(mode).__name__)
        super().__init__()
        self.mode = mode


def is_grad_enabled() -> bool:
    """paddle.is_grad_enabled: False, as Paddle 2.6.2 answers outside dynamic mode."""
    return False


def get_rng_state(device=None) -> list:
    """paddle.get_rng_state: [the state of the CPU generator]."""
    _check_cpu(device)
    return [default_cpu_generator().get_state()]


def set_rng_state(state_list, device=None) -> None:
    """paddle.set_rng_state: restores get_rng_state's snapshot (one state per place: one CPU place)."""
    _check_cpu(device)
    states = list(state_list)
    if len(states) != 1:
        raise ValueError('Length of cpu state list should be equal to the number of cpu device, got %d' % len(states))
    default_cpu_generator().set_state(states[0])


def _check_cpu(device) -> None:
    if device is not None and str(device).split(':')[0] not in ('cpu',):
        raise ValueError('paddle_exec has CPU places only; got device %r' % (device,))


def set_printoptions(precision=None, threshold=None, edgeitems=None, sci_mode=None, linewidth=None) -> None:
    """paddle.set_printoptions: numpy's print options for the fetched arrays."""
    options = {}
    for key, value, kind in (('precision', precision, int), ('threshold', threshold, int),
                             ('edgeitems', edgeitems, int), ('linewidth', linewidth, int)):
        if value is not None:
            if not isinstance(value, kind):
                raise TypeError('%s should be %s, but received %s' % (key, kind.__name__, type(value).__name__))
            options[key] = value
    if sci_mode is not None:
        if not isinstance(sci_mode, bool):
            raise TypeError('sci_mode should be bool, but received %s' % type(sci_mode).__name__)
        options['suppress'] = not sci_mode
    np.set_printoptions(**options)


class LazyGuard(contextlib.ContextDecorator):
    """paddle.LazyGuard: parameters created inside are initialised later, by the startup program, which in a
    static graph is always so."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def disable_signal_handler() -> None:
    """paddle.disable_signal_handler: paddle_exec installs no signal handlers; nothing to disable."""


def check_shape(shape, op_name, expected_shape_type=(list, tuple, Variable), expected_element_type=(int, Variable),
                expected_tensor_dtype=('int32', 'int64')) -> None:
    """Paddle's check of a shape argument: TypeError with Paddle's wording when it is not one."""
    if isinstance(shape, Variable):
        if convert_dtype(shape.dtype) not in expected_tensor_dtype:
            raise TypeError("The data type of 'shape' in %s must be %s, but received %s."
                            % (op_name, list(expected_tensor_dtype), convert_dtype(shape.dtype)))
        return
    if not isinstance(shape, expected_shape_type):
        raise TypeError("The type of 'shape' in %s must be %s, but received %s. "
                        % (op_name, expected_shape_type, type(shape)))
    for item in shape:
        if not isinstance(item, expected_element_type) or isinstance(item, bool):
            raise TypeError("The type of 'element of shape' in %s must be %s, but received %s. "
                            % (op_name, expected_element_type, type(item)))
        if isinstance(item, Variable) and convert_dtype(item.dtype) not in expected_tensor_dtype:
            raise TypeError("The data type of 'element of shape' in %s must be %s, but received %s."
                            % (op_name, list(expected_tensor_dtype), convert_dtype(item.dtype)))
