"""paddle.nn.Layer in static mode: an object that owns Parameters and sublayers and appends ops when called.

    class Net(nn.Layer):
        def __init__(self):
            super().__init__()                       # full name net_0 (unique_name of the snake-cased class name)
            self.fc = nn.Linear(13, 1)               # a sublayer: parameters linear_0.w_0, linear_0.b_0
        def forward(self, x):
            return self.fc(x)

    with static.program_guard(main, startup):
        y = Net()(x)                                 # appends the ops to main; initialisers went to startup

This is how Paddle 2.x runs a Layer after `paddle.enable_static()`: building a layer creates its parameters at once
(in the main program's global block, their initialiser ops in the startup program, both the programs current at
construction), and calling it runs `forward`, which appends ops through nn.functional to the current program.
Nothing is computed here; an Executor runs the programs.

Naming follows Paddle: a layer's full name is `unique_name.generate(name_scope or snake_case(class name))`
(`Linear` -> `linear_0`, `BatchNorm1D` -> `batch_norm1d_0`, `ReLU` -> `re_lu_0`); its parameters are
`<full name>.w_K` / `.b_K` (LayerHelper.create_parameter). `state_dict()` is keyed by attribute path
(`fc.weight`, `bn._mean`), as Paddle's.

State: `_parameters`, `_sub_layers` and `_buffers` are ordered dicts filled by attribute assignment
(`__setattr__` sorts a Parameter, a Layer or a registered buffer into its dict), `training` is switched by
train()/eval() over the whole tree (read by Dropout and BatchNorm when they build ops, so call eval() before
building an inference program, or use `program.clone(for_test=True)` as usual).
"""
from __future__ import annotations

import collections
import re

import numpy as np

from ...framework import unique_name
from ...framework.dtype import to_numpy, to_var_type
from ...framework.scope import global_scope
from ...framework.variable import Parameter, Variable
from ...layers.helper import LayerHelper

__all__ = ['Layer', 'HookRemoveHelper']


def camel_to_snake(name: str) -> str:
    """Paddle's _convert_camel_to_snake: 'BatchNorm1D' -> 'batch_norm1d', 'ReLU' -> 're_lu'."""
    s1 = re.sub('(.)([A-Z][a-z]+)', r'\1_\2', name)
    return re.sub('([a-z])([A-Z])', r'\1_\2', s1).lower()


class HookRemoveHelper:
    """What register_forward_*_hook returns: `remove()` takes the hook out again."""

    _next_id = 0

    def __init__(self, hooks: dict):
        self._hooks = hooks
        self._id = HookRemoveHelper._next_id
        HookRemoveHelper._next_id += 1

    def remove(self) -> None:
        self._hooks.pop(self._id, None)


class Layer:
    """See the module docstring."""

    def __init__(self, name_scope: str | None = None, dtype='float32'):
        self.training = True
        self._full_name = unique_name.generate(name_scope or camel_to_snake(type(self).__name__))
        self._dtype = dtype
        self._helper = LayerHelper(self._full_name, name=self._full_name)
        self._parameters: collections.OrderedDict = collections.OrderedDict()
        self._sub_layers: collections.OrderedDict = collections.OrderedDict()
        self._buffers: collections.OrderedDict = collections.OrderedDict()
        self._non_persistable_buffer_names: set = set()
        self._forward_pre_hooks: collections.OrderedDict = collections.OrderedDict()
        self._forward_post_hooks: collections.OrderedDict = collections.OrderedDict()

    # --- names and modes -------------------------------------------------------------------------------------
    def full_name(self) -> str:
        return self._full_name

    def train(self):
        for layer in self.sublayers(include_self=True):
            layer.training = True
        return self

    def eval(self):
        for layer in self.sublayers(include_self=True):
            layer.training = False
        return self

    # --- making parameters and buffers ----------------------------------------------------------------------------
    def create_parameter(self, shape, attr=None, dtype=None, is_bias: bool = False, default_initializer=None):
        """A Parameter named `<full name>.w_K` (or `.b_K` with is_bias), created in the current programs: None
        when `attr` is False (no bias)."""
        self._check_built()
        dtype = self._dtype if dtype is None else dtype
        return self._helper.create_parameter(attr, shape, to_var_type(dtype), is_bias=is_bias,
                                             default_initializer=default_initializer)

    def create_variable(self, name=None, persistable=None, dtype=None):
        """A variable of the current main program's global block (Paddle: `<full name>.var_K` when unnamed)."""
        self._check_built()
        name = name or unique_name.generate(self._full_name + '.var')
        dtype = self._dtype if dtype is None else dtype
        return self._helper.main_program.global_block().create_var(name=name, persistable=bool(persistable),
                                                                  dtype=to_var_type(dtype))

    create_tensor = create_variable

    def _check_built(self) -> None:
        if '_parameters' not in self.__dict__:
            raise RuntimeError("super(%s, self).__init__() should be called first" % type(self).__name__)

    def add_parameter(self, name: str, parameter):
        if '.' in name:
            raise KeyError('The parameter name can not contain "."')
        if parameter is not None and not isinstance(parameter, Parameter):
            raise TypeError('parameter assignment requires Parameter or None, but got %r' % type(parameter).__name__)
        self._parameters[name] = parameter
        return parameter

    def add_sublayer(self, name: str, sublayer):
        if sublayer is not None and not isinstance(sublayer, Layer):
            raise TypeError('The sublayer %r must be a Layer, got %s' % (name, type(sublayer).__name__))
        self._sub_layers[str(name)] = sublayer
        return sublayer

    def register_buffer(self, name: str, tensor, persistable: bool = True) -> None:
        """A variable kept by the layer and listed in state_dict() when persistable (BatchNorm's statistics)."""
        if '.' in name:
            raise KeyError('The name of buffer can not contain "."')
        if tensor is not None and not isinstance(tensor, Variable):
            raise TypeError('The registered buffer should be a Tensor, but received %s' % type(tensor).__name__)
        self._buffers[name] = tensor
        if persistable:
            self._non_persistable_buffer_names.discard(name)
        else:
            self._non_persistable_buffer_names.add(name)

    # --- attribute access ---------------------------------------------------------------------------------------
    def __setattr__(self, name, value):
        params = self.__dict__.get('_parameters')
        if isinstance(value, Parameter):
            if params is None:
                raise ValueError('super(%s, self).__init__() should be called first' % type(self).__name__)
            self._drop_attr(name)
            params[name] = value
        elif isinstance(value, Layer):
            layers = self.__dict__.get('_sub_layers')
            if layers is None:
                raise ValueError('super(%s, self).__init__() should be called first' % type(self).__name__)
            self._drop_attr(name)
            layers[name] = value
        elif params is not None and name in params:
            if value is not None:
                raise TypeError("assignment to parameter '%s' should be of type Parameter or None, but got '%s'"
                                % (name, type(value).__name__))
            params[name] = None
        elif self.__dict__.get('_buffers') is not None and name in self._buffers:
            if value is not None and not isinstance(value, Variable):
                raise TypeError("assignment to buffer '%s' should be of type Tensor or None, but got '%s'"
                                % (name, type(value).__name__))
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _drop_attr(self, name: str) -> None:
        self.__dict__.pop(name, None)
        for store in ('_parameters', '_sub_layers', '_buffers'):
            self.__dict__[store].pop(name, None)

    def __getattr__(self, name):
        d = self.__dict__
        for store in ('_parameters', '_sub_layers', '_buffers'):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError("'%s' object has no attribute '%s'" % (type(self).__name__, name))

    def __delattr__(self, name):
        for store in ('_parameters', '_sub_layers', '_buffers'):
            if name in self.__dict__.get(store, {}):
                del self.__dict__[store][name]
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._sub_layers) | set(self._buffers))

    # --- walking the tree -----------------------------------------------------------------------------------
    def named_sublayers(self, prefix: str = '', include_self: bool = False, layers_set=None):
        """(path, layer) for every distinct layer below this one, depth first in assignment order."""
        layers_set = set() if layers_set is None else layers_set
        if include_self and id(self) not in layers_set:
            layers_set.add(id(self))
            yield prefix, self
        for key, layer in self._sub_layers.items():
            if layer is None or id(layer) in layers_set:
                continue
            path = prefix + ('.' if prefix else '') + key
            layers_set.add(id(layer))
            yield path, layer
            yield from layer.named_sublayers(path, False, layers_set)

    def sublayers(self, include_self: bool = False) -> list:
        return [layer for _, layer in self.named_sublayers(include_self=include_self)]

    def named_children(self):
        seen = set()
        for name, layer in self._sub_layers.items():
            if layer is not None and id(layer) not in seen:
                seen.add(id(layer))
                yield name, layer

    def children(self):
        for _, layer in self.named_children():
            yield layer

    def named_parameters(self, prefix: str = '', include_sublayers: bool = True):
        """(path, Parameter), each parameter once, this layer's first."""
        seen = set()
        walk = self.named_sublayers(prefix=prefix, include_self=True) if include_sublayers else [(prefix, self)]
        for path, layer in walk:
            for name, param in layer._parameters.items():
                if param is None or id(param) in seen:
                    continue
                seen.add(id(param))
                yield path + ('.' if path else '') + name, param

    def parameters(self, include_sublayers: bool = True) -> list:
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def named_buffers(self, prefix: str = '', include_sublayers: bool = True):
        seen = set()
        walk = self.named_sublayers(prefix=prefix, include_self=True) if include_sublayers else [(prefix, self)]
        for path, layer in walk:
            for name, buf in layer._buffers.items():
                if buf is None or id(buf) in seen:
                    continue
                seen.add(id(buf))
                yield path + ('.' if path else '') + name, buf

    def buffers(self, include_sublayers: bool = True) -> list:
        return [b for _, b in self.named_buffers(include_sublayers=include_sublayers)]

    def apply(self, fn):
        for layer in self.children():
            layer.apply(fn)
        fn(self)
        return self

    # --- calling ----------------------------------------------------------------------------------------------
    def register_forward_pre_hook(self, hook) -> HookRemoveHelper:
        """hook(layer, inputs) runs before forward; a non-None result replaces the inputs."""
        handle = HookRemoveHelper(self._forward_pre_hooks)
        self._forward_pre_hooks[handle._id] = hook
        return handle

    def register_forward_post_hook(self, hook) -> HookRemoveHelper:
        """hook(layer, inputs, outputs) runs after forward; a non-None result replaces the outputs."""
        handle = HookRemoveHelper(self._forward_post_hooks)
        self._forward_post_hooks[handle._id] = hook
        return handle

    def __call__(self, *inputs, **kwargs):
        for hook in list(self._forward_pre_hooks.values()):
            result = hook(self, inputs)
            if result is not None:
                inputs = result if isinstance(result, tuple) else (result,)
        outputs = self.forward(*inputs, **kwargs)
        for hook in list(self._forward_post_hooks.values()):
            result = hook(self, inputs, outputs)
            if result is not None:
                outputs = result
        return outputs

    def forward(self, *inputs, **kwargs):
        raise NotImplementedError('%s.forward is not defined: a Layer subclass builds its ops in forward()'
                                  % type(self).__name__)

    # --- state ------------------------------------------------------------------------------------------------
    def state_dict(self, destination=None, include_sublayers: bool = True, structured_name_prefix: str = '',
                   use_hook: bool = True) -> collections.OrderedDict:
        """{attribute path: Parameter or persistable buffer}, this layer's parameters and buffers first, then each
        sublayer's (Paddle's order)."""
        out = collections.OrderedDict() if destination is None else destination
        for name, param in self._parameters.items():
            if param is not None:
                out[structured_name_prefix + name] = param
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistable_buffer_names:
                out[structured_name_prefix + name] = buf
        if include_sublayers:
            for name, layer in self._sub_layers.items():
                if layer is not None:
                    layer.state_dict(out, True, structured_name_prefix + name + '.')
        return out

    def set_state_dict(self, state_dict: dict, use_structured_name: bool = True):
        """Writes arrays into the global scope's variables of this layer (static mode: the values the next run
        reads). Keys are attribute paths, or variable names with use_structured_name=False. Returns
        (missing keys, unexpected keys)."""
        own = self.state_dict()
        by_key = own if use_structured_name else {v.name: v for v in own.values()}
        missing = [k for k in by_key if k not in state_dict]
        unexpected = [k for k in state_dict if k not in by_key]
        scope = global_scope()
        for key, var in by_key.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            arr = np.asarray(value.numpy() if hasattr(value, 'numpy') else value)
            if list(arr.shape) != list(var.shape):
                raise ValueError('%s receives a shape %s, but the expected shape is %s'
                                 % (key, list(arr.shape), list(var.shape)))
            scope.var(var.name).set_value(np.array(arr, dtype=_numpy_dtype(var), copy=True))
        return missing, unexpected

    set_dict = set_state_dict
    load_dict = set_state_dict

    # --- printing ---------------------------------------------------------------------------------------------
    def extra_repr(self) -> str:
        return ''

    def __repr__(self):
        lines = []
        for name, layer in self._sub_layers.items():
            body = repr(layer).replace('\n', '\n  ')
            lines.append('(%s): %s' % (name, body))
        extra = self.extra_repr()
        head = type(self).__name__ + '(' + extra
        if not lines:
            return head + ')'
        return head + '\n  ' + '\n  '.join(lines) + '\n)'


def _numpy_dtype(var):
    return to_numpy(var.dtype)
