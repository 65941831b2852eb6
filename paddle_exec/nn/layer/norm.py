"""paddle.nn normalisation layers in static mode: BatchNorm (the 1.x-style class), BatchNorm1D / 2D / 3D,
SyncBatchNorm, LayerNorm, GroupNorm, InstanceNorm1D / 2D / 3D, LocalResponseNorm and SpectralNorm.

BatchNorm's parameters, in Paddle's order and names: weight (`.w_0`, ones), bias (`.b_0`, zeros), the running mean
(`.w_1`, zeros) and variance (`.w_2`, ones); the running statistics are non-trainable Parameters with
stop_gradient, listed in state_dict() as `_mean` / `_variance`. `training` (train()/eval()) decides when the op
is built whether it normalises with the batch's statistics and updates the running ones, or uses the running ones.
SyncBatchNorm appends `batch_norm` on CPU places (see its docstring).
"""
from __future__ import annotations

from ...initializer import ConstantInitializer, NormalInitializer
from ...layers.checks import check_variable_and_dtype
from ...layers.norm import batch_norm_op
from ...ops._util import prod
from ...param_attr import ParamAttr
from .. import functional as F
from .layers import Layer

__all__ = ['BatchNorm1D', 'BatchNorm2D', 'BatchNorm3D', 'LayerNorm', 'BatchNorm', 'SyncBatchNorm', 'GroupNorm',
           'InstanceNorm1D', 'InstanceNorm2D', 'InstanceNorm3D', 'LocalResponseNorm', 'SpectralNorm']


class _BatchNormBase(Layer):
    _ranks: tuple = ()
    _formats: tuple = ()

    def __init__(self, num_features: int, momentum: float = 0.9, epsilon: float = 1e-05, weight_attr=None,
                 bias_attr=None, data_format: str = 'NCHW', use_global_stats=None, name=None):
        super().__init__()
        if data_format not in self._formats:
            raise ValueError('%s: data_format must be one of %s, got %r'
                             % (type(self).__name__, ', '.join(self._formats), data_format))
        self._num_features = int(num_features)
        self._momentum, self._epsilon = momentum, epsilon
        self._data_format, self._use_global_stats, self._name = data_format, use_global_stats, name
        shape = [self._num_features]
        self.weight = self.create_parameter(shape, attr=weight_attr, default_initializer=ConstantInitializer(1.0))
        self.bias = self.create_parameter(shape, attr=bias_attr, is_bias=True)
        if weight_attr is False or bias_attr is False:
            raise NotImplementedError('%s without a weight or bias (attr False) is not supported'
                                      % type(self).__name__)
        self._mean = self.create_parameter(shape, attr=ParamAttr(initializer=ConstantInitializer(0.0),
                                                                 trainable=False))
        self._variance = self.create_parameter(shape, attr=ParamAttr(initializer=ConstantInitializer(1.0),
                                                                     trainable=False))
        self._mean.stop_gradient = self._variance.stop_gradient = True

    def forward(self, input):
        if len(input.shape) not in self._ranks:
            raise ValueError('%s expects an input of rank %s, but received input with shape %s'
                             % (type(self).__name__, ' or '.join(map(str, self._ranks)), list(input.shape)))
        return F.batch_norm(input, self._mean, self._variance, self.weight, self.bias, training=self.training,
                            momentum=self._momentum, epsilon=self._epsilon, data_format=self._op_format(),
                            use_global_stats=self._use_global_stats, name=self._name)

    def _op_format(self) -> str:
        return self._data_format

    def extra_repr(self) -> str:
        return 'num_features=%d, momentum=%s, epsilon=%s, data_format=%s' % (
            self._num_features, self._momentum, self._epsilon, self._data_format)


class BatchNorm1D(_BatchNormBase):
    """Batch normalisation of [N, C] or [N, C, L] inputs over the channel C."""
    _ranks = (2, 3)
    _formats = ('NC', 'NCL', 'NLC')

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format='NCL', use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, use_global_stats,
                         name)


class BatchNorm2D(_BatchNormBase):
    """Batch normalisation of [N, C, H, W] (or NHWC) inputs over the channel C."""
    _ranks = (4,)
    _formats = ('NCHW', 'NHWC')


class LayerNorm(Layer):
    """Normalises over the trailing `normalized_shape` dims; weight ones and bias zeros of their product's size
    (weight_attr / bias_attr False: none)."""

    def __init__(self, normalized_shape, epsilon: float = 1e-05, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        self._normalized_shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
        self._epsilon, self._name = epsilon, name
        size = [prod(self._normalized_shape)]
        self.weight = self.create_parameter(size, attr=weight_attr, default_initializer=ConstantInitializer(1.0))
        self.bias = self.create_parameter(size, attr=bias_attr, is_bias=True)

    def forward(self, input):
        return F.layer_norm(input, self._normalized_shape, self.weight, self.bias, self._epsilon, name=self._name)

    def extra_repr(self) -> str:
        return 'normalized_shape=%s, epsilon=%s' % (self._normalized_shape, self._epsilon)


class BatchNorm3D(_BatchNormBase):
    """Batch normalisation of [N, C, D, H, W] (or NDHWC) inputs over the channel C."""
    _ranks = (5,)
    _formats = ('NCDHW', 'NDHWC')

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format='NCDHW', use_global_stats=None, name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, use_global_stats,
                         name)

    def _op_format(self) -> str:
        return 'NHWC' if self._data_format == 'NDHWC' else 'NCHW'


class SyncBatchNorm(_BatchNormBase):
    """Batch normalisation whose statistics span every device. Paddle appends `sync_batch_norm`, an op its CPU
    build does not have (2.6.2 cannot run the layer without a GPU); on CPU places the layer appends `batch_norm`
    with the same inputs and attributes, each place normalising with its own batch. (A program holding
    `sync_batch_norm`, saved on GPUs, still runs: the op is batch_norm's numbers, ops/normalization.py.)
    weight_attr / bias_attr False give a fixed (stop_gradient) weight of ones / bias of zeros, as Paddle does."""
    _ranks = (2, 3, 4, 5)
    _formats = ('NC', 'NCL', 'NCHW', 'NCDHW', 'NLC', 'NHWC', 'NDHWC')

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format='NCHW', name=None):
        fixed = {'weight_attr': weight_attr is False, 'bias_attr': bias_attr is False}
        super().__init__(num_features, momentum, epsilon, None if fixed['weight_attr'] else weight_attr,
                         None if fixed['bias_attr'] else bias_attr, data_format, None, name)
        if fixed['weight_attr']:
            self.weight.stop_gradient = True
        if fixed['bias_attr']:
            self.bias.stop_gradient = True

    def forward(self, x):
        check_variable_and_dtype(x, 'input', ['float16', 'float32', 'float64'], 'SyncBatchNorm')
        layout = 'NCHW' if self._data_format in ('NC', 'NCL', 'NCHW', 'NCDHW') else 'NHWC'
        return batch_norm_op(x, self.weight, self.bias, self._mean, self._variance, self._momentum, self._epsilon,
                             not self.training, layout, False, self._helper, trainable_statistics=False)

    @classmethod
    def convert_sync_batchnorm(cls, layer):
        """The model with every BatchNorm*D sublayer replaced by a SyncBatchNorm sharing its parameters."""
        if isinstance(layer, _BatchNormBase) and not isinstance(layer, SyncBatchNorm):
            converted = cls.__new__(cls)
            converted.__dict__.update(layer.__dict__)
            if isinstance(layer, BatchNorm3D):
                converted._data_format = layer._op_format()
            return converted
        for name, sub in list(layer._sub_layers.items()):
            if sub is not None:
                layer._sub_layers[name] = cls.convert_sync_batchnorm(sub)
        return layer


class BatchNorm(Layer):
    """paddle.nn.BatchNorm (the fluid.dygraph.BatchNorm signature): parameters as BatchNorm2D's, `act` applied
    after the `batch_norm` op; is_test fixes inference mode regardless of train()/eval(), as in Paddle."""

    def __init__(self, num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None,
                 bias_attr=None, dtype='float32', data_layout='NCHW', in_place=False, moving_mean_name=None,
                 moving_variance_name=None, do_model_average_for_mean_and_var=True, use_global_stats=False,
                 trainable_statistics=False):
        super().__init__(dtype=dtype)
        shape = [int(num_channels)]
        self._act, self._is_test, self._momentum, self._epsilon = act, is_test, momentum, epsilon
        self._data_layout, self._in_place = data_layout, in_place
        self._use_global_stats, self._trainable_statistics = use_global_stats, trainable_statistics
        self.weight = None if param_attr is False else self.create_parameter(
            shape, attr=param_attr, default_initializer=ConstantInitializer(1.0))
        self.bias = None if bias_attr is False else self.create_parameter(shape, attr=bias_attr, is_bias=True)
        if self.weight is None or self.bias is None:
            raise NotImplementedError('BatchNorm without a weight or bias (attr False) is not supported')
        stats = []
        for stat_name, value in ((moving_mean_name, 0.0), (moving_variance_name, 1.0)):
            var = self.create_parameter(shape, attr=ParamAttr(name=stat_name, initializer=ConstantInitializer(value),
                                                              trainable=False,
                                                              do_model_average=do_model_average_for_mean_and_var))
            var.stop_gradient = True
            stats.append(var)
        self._mean, self._variance = stats

    def forward(self, input):
        check_variable_and_dtype(input, 'input', ['float16', 'float32', 'float64'], 'BatchNorm')
        y = batch_norm_op(input, self.weight, self.bias, self._mean, self._variance, self._momentum, self._epsilon,
                          self._is_test, self._data_layout, self._use_global_stats, self._helper,
                          trainable_statistics=self._trainable_statistics, out=input if self._in_place else None)
        return self._helper.append_activation(y, self._act)


class GroupNorm(Layer):
    """Group normalisation (`group_norm`) with weight (ones) and bias (zeros) of [num_channels]; attr False keeps
    the parameter but fixes it (stop_gradient), as Paddle 2.6 does."""

    def __init__(self, num_groups, num_channels, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format='NCHW', name=None):
        super().__init__()
        if data_format not in ('NCHW', 'NHWC'):
            raise ValueError('unsupported data layout:' + data_format)
        self._epsilon, self._num_channels, self._num_groups = epsilon, num_channels, num_groups
        self._data_format = data_format
        shape = [int(num_channels)]
        self.weight = self.create_parameter(shape, attr=None if weight_attr is False else weight_attr,
                                            default_initializer=ConstantInitializer(1.0))
        self.bias = self.create_parameter(shape, attr=None if bias_attr is False else bias_attr, is_bias=True)
        self.weight.stop_gradient = weight_attr is False or _frozen(weight_attr)
        self.bias.stop_gradient = bias_attr is False or _frozen(bias_attr)

    def forward(self, input):
        helper = self._helper
        mean = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
        variance = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
        out = helper.create_variable_for_type_inference(input.dtype)
        helper.append_op('group_norm', {'X': [input], 'Bias': [self.bias], 'Scale': [self.weight]},
                         {'Y': [out], 'Mean': [mean], 'Variance': [variance]},
                         {'epsilon': float(self._epsilon), 'groups': int(self._num_groups),
                          'data_layout': self._data_format})
        return out

    def extra_repr(self) -> str:
        return 'num_groups=%d, num_channels=%d, epsilon=%s' % (self._num_groups, self._num_channels, self._epsilon)


def _frozen(attr) -> bool:
    return attr is not None and getattr(attr, 'learning_rate', None) == 0.0


class _InstanceNormBase(Layer):
    _ranks: tuple = ()

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None,
                 data_format='NCHW', name=None):
        super().__init__()
        if (weight_attr is False or bias_attr is False) and weight_attr != bias_attr:
            raise AssertionError('weight_attr and bias_attr must be set to False at the same time in InstanceNorm')
        self._momentum, self._epsilon, self._num_features = momentum, epsilon, num_features
        self._data_format = data_format
        self.scale = self.bias = None
        if weight_attr is not False:
            self.scale = self.create_parameter([num_features], attr=weight_attr,
                                               default_initializer=ConstantInitializer(1.0))
            self.bias = self.create_parameter([num_features], attr=bias_attr, is_bias=True,
                                              default_initializer=ConstantInitializer(0.0))

    def forward(self, input):
        if len(input.shape) not in self._ranks:
            raise ValueError('expected %s input (got %dD input)' % (' or '.join('%dD' % r for r in self._ranks),
                                                                    len(input.shape)))
        return F.instance_norm(input, weight=self.scale, bias=self.bias, momentum=self._momentum, eps=self._epsilon,
                               data_format=self._data_format)

    def extra_repr(self) -> str:
        return 'num_features=%d, epsilon=%s' % (self._num_features, self._epsilon)


class InstanceNorm1D(_InstanceNormBase):
    """Instance normalisation of [N, C] / [N, C, L] inputs."""
    _ranks = (2, 3)

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None,
                 data_format='NCL', name=None):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format, name)


class InstanceNorm2D(_InstanceNormBase):
    """Instance normalisation of [N, C, H, W] inputs."""
    _ranks = (4,)


class InstanceNorm3D(_InstanceNormBase):
    """Instance normalisation of [N, C, D, H, W] inputs."""
    _ranks = (5,)

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None,
                 data_format='NCDHW', name=None):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format, name)


class LocalResponseNorm(Layer):
    """F.local_response_norm with its arguments fixed at construction."""

    def __init__(self, size, alpha=0.0001, beta=0.75, k=1.0, data_format='NCHW', name=None):
        super().__init__()
        self.size, self.alpha, self.beta, self.k, self.data_format, self.name = size, alpha, beta, k, data_format, name

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k, self.data_format, self.name)


class SpectralNorm(Layer):
    """`spectral_norm` of the weight passed to forward(); U [h] and V [w] are fixed Normal(0, 1) parameters of the
    layer (`spectral_norm_N.w_0`, `.w_1`)."""

    def __init__(self, weight_shape, dim=0, power_iters=1, eps=1e-12, dtype='float32'):
        super().__init__(dtype=dtype)
        self._power_iters, self._eps, self._dim = power_iters, eps, dim
        self._weight_shape = list(weight_shape)
        if prod(self._weight_shape) <= 0:
            raise AssertionError('Any dimension of `weight_shape` cannot be equal to 0.')
        if dim >= len(self._weight_shape):
            raise AssertionError('The input `dim` should be less than the length of `weight_shape`, but received '
                                 'dim=%d' % dim)
        h = self._weight_shape[dim]
        w = prod(self._weight_shape) // h
        self.weight_u = self.create_parameter([h], attr=ParamAttr(), default_initializer=NormalInitializer(0.0, 1.0))
        self.weight_u.stop_gradient = True
        self.weight_v = self.create_parameter([w], attr=ParamAttr(), default_initializer=NormalInitializer(0.0, 1.0))
        self.weight_v.stop_gradient = True

    def forward(self, x):
        check_variable_and_dtype(x, 'weight', ['float32', 'float64'], 'SpectralNorm')
        out = self._helper.create_variable_for_type_inference(x.dtype)
        self._helper.append_op('spectral_norm', {'Weight': [x], 'U': [self.weight_u], 'V': [self.weight_v]},
                               {'Out': [out]}, {'dim': int(self._dim), 'power_iters': int(self._power_iters),
                                                'eps': float(self._eps)})
        return out
