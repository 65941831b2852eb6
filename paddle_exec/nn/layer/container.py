"""paddle.nn containers: Sequential, LayerList, LayerDict, ParameterList.

Each keeps its members as sublayers (or parameters) under their index or key as a string, so parameters(),
state_dict() keys ('0.weight', 'fc.bias') and eval() reach them.
"""
from __future__ import annotations

import collections

from ...framework.variable import Parameter
from .layers import Layer

__all__ = ['Sequential', 'LayerList', 'LayerDict', 'ParameterList']


def _index(n: int, idx: int, what: str) -> int:
    if not -n <= idx < n:
        raise IndexError('index %d is out of range for a %s of %d' % (idx, what, n))
    return idx + n if idx < 0 else idx


class Sequential(Layer):
    """Calls its layers in order, each on the previous one's output. Sequential(l1, l2) names them '0', '1';
    Sequential(('fc', l1), ('act', l2)) by the given names."""

    def __init__(self, *layers):
        super().__init__()
        if layers and isinstance(layers[0], (list, tuple)):
            for name, layer in layers:
                self.add_sublayer(name, layer)
        else:
            for k, layer in enumerate(layers):
                self.add_sublayer(str(k), layer)

    def __getitem__(self, name):
        if isinstance(name, slice):
            return self.__class__(*list(self._sub_layers.values())[name])
        if isinstance(name, str):
            return self._sub_layers[name]
        return list(self._sub_layers.values())[_index(len(self._sub_layers), name, 'Sequential')]

    def __setitem__(self, name, layer):
        self.add_sublayer(str(name), layer)

    def __delitem__(self, name):
        del self._sub_layers[str(name)]

    def __len__(self) -> int:
        return len(self._sub_layers)

    def forward(self, input):
        for layer in self._sub_layers.values():
            input = layer(input)
        return input


class LayerList(Layer):
    """A list of layers (registered as sublayers '0', '1', ...); it is not callable itself."""

    def __init__(self, sublayers=None):
        super().__init__()
        for layer in sublayers or ():
            self.append(layer)

    def _layers(self) -> list:
        return list(self._sub_layers.values())

    def _renumber(self, layers: list) -> None:
        self._sub_layers.clear()
        for k, layer in enumerate(layers):
            self._sub_layers[str(k)] = layer

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(self._layers()[idx])
        return self._layers()[_index(len(self), idx, 'LayerList')]

    def __setitem__(self, idx, sublayer):
        self.add_sublayer(str(_index(len(self), idx, 'LayerList')), sublayer)

    def __delitem__(self, idx):
        layers = self._layers()
        del layers[idx]
        self._renumber(layers)

    def __len__(self) -> int:
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._layers())

    def append(self, sublayer):
        self.add_sublayer(str(len(self)), sublayer)
        return self

    def insert(self, index: int, sublayer) -> None:
        layers = self._layers()
        layers.insert(index, sublayer)
        self._renumber(layers)

    def extend(self, sublayers):
        for layer in sublayers:
            self.append(layer)
        return self


class LayerDict(Layer):
    """An ordered dict of layers (registered as sublayers under their keys)."""

    def __init__(self, sublayers=None):
        super().__init__()
        if sublayers is not None:
            self.update(sublayers)

    def __getitem__(self, key):
        return self._sub_layers[key]

    def __setitem__(self, key, sublayer):
        self.add_sublayer(key, sublayer)

    def __delitem__(self, key):
        del self._sub_layers[key]

    def __len__(self) -> int:
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers)

    def __contains__(self, key) -> bool:
        return key in self._sub_layers

    def keys(self):
        return self._sub_layers.keys()

    def values(self):
        return self._sub_layers.values()

    def items(self):
        return self._sub_layers.items()

    def pop(self, key):
        return self._sub_layers.pop(key)

    def clear(self) -> None:
        self._sub_layers.clear()

    def update(self, sublayers) -> None:
        items = sublayers.items() if isinstance(sublayers, (dict, collections.OrderedDict, LayerDict)) else sublayers
        for key, layer in items:
            self.add_sublayer(key, layer)


class ParameterList(Layer):
    """A list of Parameters (registered as this layer's parameters '0', '1', ...)."""

    def __init__(self, parameters=None):
        super().__init__()
        for param in parameters or ():
            self.append(param)

    def __getitem__(self, idx):
        return list(self._parameters.values())[_index(len(self), idx, 'ParameterList')]

    def __setitem__(self, idx, param):
        self.add_parameter(str(_index(len(self), idx, 'ParameterList')), param)

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self):
        return iter(list(self._parameters.values()))

    def append(self, parameter):
        if not isinstance(parameter, Parameter):
            raise TypeError('ParameterList holds Parameters, got %s' % type(parameter).__name__)
        self.add_parameter(str(len(self)), parameter)
        return self
