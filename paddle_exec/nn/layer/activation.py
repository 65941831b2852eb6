"""paddle.nn activation layers: each wraps the nn.functional builder of the same name with its arguments fixed
at construction (nn.ReLU() -> F.relu, nn.LeakyReLU(0.1) -> F.leaky_relu(x, 0.1)).

One table, `ACTIVATIONS`: class name -> (functional name, constructor arguments with Paddle's defaults, in order);
`_activation_class` makes each class from its row.
"""
from __future__ import annotations

from ...initializer import ConstantInitializer
from .. import functional as F
from .layers import Layer

# class name -> (nn.functional name, ((argument, default), ...)); every class also takes name=None
ACTIVATIONS = {
    'ReLU': ('relu', ()),
    'ReLU6': ('relu6', ()),
    'Sigmoid': ('sigmoid', ()),
    'Tanh': ('tanh', ()),
    'GELU': ('gelu', (('approximate', False),)),
    'LeakyReLU': ('leaky_relu', (('negative_slope', 0.01),)),
    'ELU': ('elu', (('alpha', 1.0),)),
    'SELU': ('selu', (('scale', 1.0507009873554804934193349852946), ('alpha', 1.6732632423543772848170429916717))),
    'Softplus': ('softplus', (('beta', 1), ('threshold', 20))),
    'Softsign': ('softsign', ()),
    'SiLU': ('silu', ()),
    'Swish': ('swish', ()),
    'Mish': ('mish', ()),
    'Hardswish': ('hardswish', ()),
    'Hardsigmoid': ('hardsigmoid', (('slope', 0.1666667), ('offset', 0.5))),
    'Hardtanh': ('hardtanh', (('min', -1.0), ('max', 1.0))),
    'Hardshrink': ('hardshrink', (('threshold', 0.5),)),
    'Softshrink': ('softshrink', (('threshold', 0.5),)),
    'Tanhshrink': ('tanhshrink', ()),
    'ThresholdedReLU': ('thresholded_relu', (('threshold', 1.0),)),
    'LogSigmoid': ('log_sigmoid', ()),
    'Softmax': ('softmax', (('axis', -1),)),
    'LogSoftmax': ('log_softmax', (('axis', -1),)),
    'CELU': ('celu', (('alpha', 1.0),)),
    'GLU': ('glu', (('axis', -1),)),
    'Silu': ('silu', ()),
    'Maxout': ('maxout', (('groups', None), ('axis', 1))),
}

__all__ = list(ACTIVATIONS)


def _activation_class(class_name: str, functional_name: str, params: tuple) -> type:
    names = [p for p, _ in params]
    defaults = dict(params)

    def __init__(self, *args, name=None, **kwargs):
        Layer.__init__(self)
        if len(args) > len(names):
            raise TypeError('%s takes at most %d arguments (%d given)' % (class_name, len(names), len(args)))
        unknown = set(kwargs) - set(names)
        if unknown:
            raise TypeError('%s got unexpected keyword arguments %s' % (class_name, sorted(unknown)))
        values = dict(defaults, **dict(zip(names, args)), **kwargs)
        self._args = [values[p] for p in names]
        self._name = name

    def forward(self, x):
        return getattr(F, functional_name)(x, *self._args, name=self._name)

    def extra_repr(self) -> str:
        return ', '.join('%s=%r' % (p, v) for p, v in zip(names, self._args))

    doc = 'nn.functional.%s(x%s) as a layer.' % (functional_name, ''.join(', %s=%r' % p for p in params))
    return type(class_name, (Layer,), {'__init__': __init__, 'forward': forward, 'extra_repr': extra_repr,
                                       '__doc__': doc, '__module__': __name__})


for _class_name, (_functional, _params) in ACTIVATIONS.items():
    globals()[_class_name] = _activation_class(_class_name, _functional, _params)


__all__ += ['PReLU', 'RReLU', 'Softmax2D']


class PReLU(Layer):
    """F.prelu with a learnt weight `prelu_N.w_0` of [num_parameters] (Constant(init)): one slope for all
    (num_parameters 1) or one per channel."""

    def __init__(self, num_parameters=1, init=0.25, weight_attr=None, data_format='NCHW', name=None):
        super().__init__()
        self._num_parameters, self._init, self._data_format, self._name = num_parameters, init, data_format, name
        self._weight = self.create_parameter([num_parameters], attr=weight_attr,
                                             default_initializer=ConstantInitializer(init))

    def forward(self, x):
        return F.prelu(x, self._weight, data_format=self._data_format)

    def extra_repr(self) -> str:
        return 'num_parameters=%d, data_format=%s, init=%s, dtype=%s' % (self._num_parameters, self._data_format,
                                                                        self._init, self._dtype)


class RReLU(Layer):
    """F.rrelu with random slopes when training (train()) and their mean in eval()."""

    def __init__(self, lower=1.0 / 8.0, upper=1.0 / 3.0, name=None):
        super().__init__()
        self._lower, self._upper, self._name = lower, upper, name

    def forward(self, x):
        return F.rrelu(x, lower=self._lower, upper=self._upper, training=self.training)

    def extra_repr(self) -> str:
        return 'lower=%s, upper=%s, training=%s' % (self._lower, self._upper, self.training)


class Softmax2D(Layer):
    """Softmax over the channels (axis -3) of a 3-D or 4-D input."""

    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        if len(x.shape) not in (3, 4):
            raise AssertionError('Softmax2D requires a 3D or 4D tensor as input. Received: %dD.' % len(x.shape))
        return F.softmax(x, axis=-3, name=self._name)
