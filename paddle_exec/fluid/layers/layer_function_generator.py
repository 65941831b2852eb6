"""fluid.layers.layer_function_generator (Paddle 1.8's module path): layer functions made from an op's schema.

    relu6_like = generate_activation_fn('relu')        # fn(x, name=None): one op, X -> Out
    scale_fn = generate_layer_fn('scale')              # fn(x, scale=2.0): inputs by their snake_case slot name
                                                       # (or positionally), the rest are the op's attributes

1.8 reads the op's protobuf proto; paddle_exec reads the same facts (input and output slots, which are
duplicable) from its op registry (framework/registry.py). `autodoc` / `templatedoc` fill a function's docstring
from the op, `deprecated` warns at every call.
"""
from __future__ import annotations

import functools
import re
import warnings
from typing import Callable

from ...framework import registry
from ...framework.variable import Variable
from ...layers.checks import check_variable_and_dtype
from ...layers.helper import LayerHelper

__all__ = ['deprecated', 'generate_layer_fn', 'generate_activation_fn', 'autodoc', 'templatedoc']

_FIRST_CAP = re.compile('(.)([A-Z][a-z]+)')
_ALL_CAP = re.compile('([a-z0-9])([A-Z])')


def _convert_(name: str) -> str:
    """An op slot name as a Python argument name: 'X' -> 'x', 'SeqLen' -> 'seq_len' (1.8's rule)."""
    return _ALL_CAP.sub(r'\1_\2', _FIRST_CAP.sub(r'\1_\2', name)).lower()


def _op_doc(op_type: str) -> str:
    info = registry.get(op_type)
    return ('%s operator.\n\nInputs: %s\nOutputs: %s\nAttributes: %s\n'
            % (op_type, ', '.join(info.inputs), ', '.join(info.outputs), ', '.join(sorted(info.attrs))))


def generate_layer_fn(op_type: str) -> Callable:
    """A layer function for `op_type`: its inputs by their snake_case slot names (or positionally, in slot order),
    its one output created by type inference (dtype of the first input), every other keyword an attribute.
    Raises ValueError, as 1.8 does, when the op has more than one output (all but the first are treated as
    intermediate there only when the proto marks them; here every output beyond 'Out' gets a temporary)."""
    info = registry.get(op_type)
    if not info.outputs:
        raise ValueError('Only one non intermediate output operator can be automatically generated. %s' % op_type)
    out_name = 'Out' if 'Out' in info.outputs else info.outputs[0]
    extra_outputs = [o for o in info.outputs if o != out_name]

    def func(*args, **kwargs):
        helper = LayerHelper(op_type, **kwargs)
        kwargs.pop('name', None)
        act = kwargs.pop('act', None)
        inputs, dtype, args = {}, None, list(args)
        for slot in info.inputs:
            val = kwargs.pop(_convert_(slot), [])
            if not isinstance(val, (list, tuple)):
                val = [val]
            if len(val) == 0 and args:
                val = args.pop(0)
                val = list(val) if isinstance(val, (list, tuple)) else [val]
            if val:
                for v in val:
                    if not isinstance(v, Variable):
                        raise TypeError("The input '%s' of %s must be Variable, but received %s"
                                        % (_convert_(slot), op_type, type(v).__name__))
                dtype = dtype if dtype is not None else val[0].dtype
                inputs[slot] = val
        out = kwargs.pop(_convert_(out_name), None)
        if out is None:
            out = helper.create_variable_for_type_inference(dtype=dtype)
        outputs = {out_name: [out]}
        for slot in extra_outputs:
            outputs[slot] = [helper.create_variable_for_type_inference(dtype=dtype)]
        helper.append_op(type=op_type, inputs=inputs, outputs=outputs, attrs=kwargs)
        return helper.append_activation(out, act)

    func.__name__ = op_type
    func.__doc__ = _op_doc(op_type)
    return func


def generate_activation_fn(op_type: str) -> Callable:
    """fn(x, name=None) appending `op_type` with X -> Out, x of a float dtype (1.8's check)."""
    registry.get(op_type)

    def func(x, name=None):
        check_variable_and_dtype(x, 'x', ['float16', 'float32', 'float64'], op_type)
        helper = LayerHelper(op_type, name=name)
        output = helper.create_variable_for_type_inference(dtype=x.dtype)
        helper.append_op(type=op_type, inputs={'X': x}, outputs={'Out': output})
        return output

    func.__name__ = op_type
    func.__doc__ = _op_doc(op_type)
    return func


def deprecated(func_or_class: Callable) -> Callable:
    """Warns 'Call to deprecated function NAME.' (DeprecationWarning, always shown) at every call."""

    @functools.wraps(func_or_class)
    def func_wrapper(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter('always', DeprecationWarning)
            warnings.warn('Call to deprecated function {}.'.format(func_or_class.__name__),
                          category=DeprecationWarning, stacklevel=2)
        return func_or_class(*args, **kwargs)

    return func_wrapper


def autodoc(comment: str = '') -> Callable:
    """Sets a function's docstring to its op's description followed by `comment`."""

    def __impl__(func):
        func.__doc__ = _op_doc(func.__name__) + comment
        return func

    return __impl__


def templatedoc(op_type: str | None = None) -> Callable:
    """Fills ${comment} and ${<slot>_comment} / ${<slot>_type} in a docstring from the op (`op_type`, or the
    function's name)."""

    def __impl__(func):
        info = registry.get(op_type or func.__name__)
        doc = func.__doc__ or ''
        doc = doc.replace('${comment}', '%s operator.' % info.type)
        for slot in info.inputs + info.outputs:
            doc = doc.replace('${%s_comment}' % _convert_(slot), 'the %s of %s' % (slot, info.type))
            doc = doc.replace('${%s_type}' % _convert_(slot), 'Variable')
        for attr, default in info.attrs.items():
            doc = doc.replace('${%s_comment}' % attr, 'the attribute %s (default %r)' % (attr, default))
            doc = doc.replace('${%s_type}' % attr, type(default).__name__)
        func.__doc__ = doc
        return func

    return __impl__
