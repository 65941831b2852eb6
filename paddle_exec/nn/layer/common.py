"""paddle.nn common layers in static mode: Linear, Embedding, Dropout, Flatten, Identity.

Parameters are created when the layer is built (Layer.create_parameter), with Paddle 2.x's shapes and default
initialisers: Linear's weight is [in_features, out_features], Xavier-uniform, its bias zeros; Embedding's weight is
[num_embeddings, embedding_dim], Xavier-uniform. `forward` appends the ops of the matching nn.functional builder.
"""
from __future__ import annotations

from ...framework.variable import Variable
from ...tensor import manipulation as _manipulation
from .. import functional as F
from .layers import Layer

__all__ = ['Linear', 'Embedding', 'Dropout', 'Flatten', 'Identity']


class Linear(Layer):
    """y = x @ weight + bias, weight [in_features, out_features]; bias_attr=False: no bias."""

    def __init__(self, in_features: int, out_features: int, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        self._in_features, self._out_features = int(in_features), int(out_features)
        self.weight = self.create_parameter([self._in_features, self._out_features], attr=weight_attr)
        self.bias = self.create_parameter([self._out_features], attr=bias_attr, is_bias=True)
        self.name = name

    def forward(self, input):
        return F.linear(input, self.weight, self.bias, name=self.name)

    def extra_repr(self) -> str:
        return 'in_features=%d, out_features=%d, dtype=%s' % (self._in_features, self._out_features, self._dtype)


class Embedding(Layer):
    """Rows of weight [num_embeddings, embedding_dim] at the ids of the input; padding_idx (negative counts from the
    end) gives zeros and no gradient; sparse=True makes the weight's gradient a SelectedRows."""

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx=None, sparse: bool = False,
                 weight_attr=None, name=None):
        super().__init__()
        self._num_embeddings, self._embedding_dim = int(num_embeddings), int(embedding_dim)
        if self._num_embeddings <= 0 or self._embedding_dim <= 0:
            raise ValueError('num_embeddings and embedding_dim must be positive, got %d and %d'
                             % (self._num_embeddings, self._embedding_dim))
        if padding_idx is not None and not -self._num_embeddings <= padding_idx < self._num_embeddings:
            raise ValueError('padding_idx must be within [-{0}, {0})'.format(self._num_embeddings))
        self._padding_idx = padding_idx
        self._sparse = sparse
        self.weight = self.create_parameter([self._num_embeddings, self._embedding_dim], attr=weight_attr)
        self.name = name

    def forward(self, x):
        return F.embedding(x, self.weight, padding_idx=self._padding_idx, sparse=self._sparse, name=self.name)

    def extra_repr(self) -> str:
        return '%d, %d, padding_idx=%s, sparse=%s' % (self._num_embeddings, self._embedding_dim, self._padding_idx,
                                                       self._sparse)


class Dropout(Layer):
    """F.dropout with `training` taken from the layer's mode when the ops are built (eval(): is_test)."""

    def __init__(self, p: float = 0.5, axis=None, mode: str = 'upscale_in_train', name=None):
        super().__init__()
        self.p, self.axis, self.mode, self.name = p, axis, mode, name

    def forward(self, input):
        return F.dropout(input, p=self.p, axis=self.axis, training=self.training, mode=self.mode, name=self.name)

    def extra_repr(self) -> str:
        return 'p=%s, axis=%s, mode=%s' % (self.p, self.axis, self.mode)


class Flatten(Layer):
    """paddle.flatten over dims start_axis..stop_axis (default 1..-1: one row per sample)."""

    def __init__(self, start_axis: int = 1, stop_axis: int = -1):
        super().__init__()
        self.start_axis, self.stop_axis = start_axis, stop_axis

    def forward(self, input):
        return _manipulation.flatten(input, start_axis=self.start_axis, stop_axis=self.stop_axis)


class Identity(Layer):
    """Returns its input; extra constructor arguments are accepted and ignored, as in Paddle."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


__all__ += ['Upsample', 'UpsamplingBilinear2D', 'UpsamplingNearest2D']


class Upsample(Layer):
    """F.interpolate with its arguments fixed at construction."""

    def __init__(self, size=None, scale_factor=None, mode='nearest', align_corners=False, align_mode=0,
                 data_format='NCHW', name=None):
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode.lower()
        self.align_corners, self.align_mode, self.data_format, self.name = align_corners, align_mode, data_format, name

    def forward(self, x):
        return F.interpolate(x, size=self.size, scale_factor=self.scale_factor, mode=self.mode,
                             align_corners=self.align_corners, align_mode=self.align_mode,
                             data_format=self.data_format, name=self.name)

    def extra_repr(self) -> str:
        what = 'scale_factor=%s' % (self.scale_factor,) if self.scale_factor else 'size=%s' % (self.size,)
        return '%s, mode=%s, align_corners=%s, align_mode=%s, data_format=%s' % (
            what, self.mode, self.align_corners, self.align_mode, self.data_format)


class UpsamplingNearest2D(Upsample):
    """Nearest-neighbour resizing of [N, C, H, W] inputs."""

    def __init__(self, size=None, scale_factor=None, data_format='NCHW', name=None):
        super().__init__(size, scale_factor, 'nearest', False, 0, data_format, name)


class UpsamplingBilinear2D(Upsample):
    """Bilinear resizing of [N, C, H, W] inputs with align_corners=True."""

    def __init__(self, size=None, scale_factor=None, data_format='NCHW', name=None):
        super().__init__(size, scale_factor, 'bilinear', True, 0, data_format, name)


__all__ += ['Pad1D', 'Pad2D', 'Pad3D', 'ZeroPad2D', 'Dropout2D', 'Dropout3D', 'AlphaDropout', 'Bilinear',
            'CosineSimilarity', 'Unflatten']


def _pairs(padding, n: int) -> list:
    """Paddle's _npairs: an int repeated over the 2 * n sides, or the given list."""
    if isinstance(padding, int):
        return [padding] * (2 * n)
    return list(padding)


class _Pad(Layer):
    _dims = 2

    def __init__(self, padding, mode='constant', value=0.0, data_format='NCHW', name=None):
        super().__init__()
        self._pad = padding if isinstance(padding, Variable) else _pairs(padding, self._dims)
        self._mode, self._value, self._data_format, self._name = mode, value, data_format, name

    def forward(self, x):
        return F.pad(x, pad=self._pad, mode=self._mode, value=self._value, data_format=self._data_format,
                     name=self._name)

    def extra_repr(self) -> str:
        return 'padding=%s, mode=%s, value=%s, data_format=%s' % (self._pad, self._mode, self._value,
                                                                  self._data_format)


class Pad1D(_Pad):
    """F.pad of [N, C, L] inputs: padding [left, right] (an int: both)."""
    _dims = 1

    def __init__(self, padding, mode='constant', value=0.0, data_format='NCL', name=None):
        super().__init__(padding, mode, value, data_format, name)


class Pad2D(_Pad):
    """F.pad of [N, C, H, W] inputs: padding [left, right, top, bottom]."""
    _dims = 2


class Pad3D(_Pad):
    """F.pad of [N, C, D, H, W] inputs: padding [left, right, top, bottom, front, back]."""
    _dims = 3

    def __init__(self, padding, mode='constant', value=0.0, data_format='NCDHW', name=None):
        super().__init__(padding, mode, value, data_format, name)


class ZeroPad2D(_Pad):
    """Zero padding of [N, C, H, W] inputs: padding [left, right, top, bottom]."""
    _dims = 2

    def __init__(self, padding, data_format='NCHW', name=None):
        super().__init__(padding, 'constant', 0.0, data_format, name)


class Dropout2D(Layer):
    """F.dropout2d (whole channels), training taken from the layer's mode."""

    def __init__(self, p=0.5, data_format='NCHW', name=None):
        super().__init__()
        self.p, self.data_format, self.name = p, data_format, name

    def forward(self, input):
        return F.dropout2d(input, p=self.p, training=self.training, data_format=self.data_format, name=self.name)

    def extra_repr(self) -> str:
        return 'p=%s, data_format=%s' % (self.p, self.data_format)


class Dropout3D(Dropout2D):
    """F.dropout3d (whole channels of 5-D inputs)."""

    def __init__(self, p=0.5, data_format='NCDHW', name=None):
        super().__init__(p, data_format, name)

    def forward(self, input):
        return F.dropout3d(input, p=self.p, training=self.training, data_format=self.data_format, name=self.name)


class AlphaDropout(Layer):
    """F.alpha_dropout, training taken from the layer's mode."""

    def __init__(self, p=0.5, name=None):
        super().__init__()
        self.p, self.name = p, name

    def forward(self, input):
        return F.alpha_dropout(input, p=self.p, training=self.training, name=self.name)

    def extra_repr(self) -> str:
        return 'p=%s' % (self.p,)


class Bilinear(Layer):
    """F.bilinear with weight [out_features, in1_features, in2_features] (Xavier) and bias [1, out_features]."""

    def __init__(self, in1_features, in2_features, out_features, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        self._in1_features, self._in2_features, self._out_features = in1_features, in2_features, out_features
        self._name = name
        self.weight = self.create_parameter([out_features, in1_features, in2_features], attr=weight_attr)
        self.bias = self.create_parameter([1, out_features], attr=bias_attr, is_bias=True)

    def forward(self, x1, x2):
        return F.bilinear(x1, x2, self.weight, self.bias, self._name)

    def extra_repr(self) -> str:
        return 'in1_features=%d, in2_features=%d, out_features=%d, dtype=%s' % (
            self._in1_features, self._in2_features, self._out_features, self._dtype)


class CosineSimilarity(Layer):
    """F.cosine_similarity along axis."""

    def __init__(self, axis=1, eps=1e-8):
        super().__init__()
        self._axis, self._eps = axis, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, axis=self._axis, eps=self._eps)

    def extra_repr(self) -> str:
        return 'axis=%d, eps=%s' % (self._axis, self._eps)


class Unflatten(Layer):
    """Splits dim `axis` into `shape` (one `reshape2`, as paddle.unflatten builds it)."""

    def __init__(self, axis, shape, name=None):
        super().__init__()
        self.axis, self.shape, self.name = axis, shape, name

    def forward(self, input):
        axis = self.axis % len(input.shape)
        shape = list(self.shape.shape if isinstance(self.shape, Variable) else self.shape)
        new_shape = list(input.shape[:axis]) + shape + list(input.shape[axis + 1:])
        return _manipulation.reshape(input, new_shape, name=self.name)

    def extra_repr(self) -> str:
        return 'axis=%s, shape=%s' % (self.axis, self.shape)
