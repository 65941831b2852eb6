"""paddle.nn common layers in static mode: Linear, Embedding, Dropout, Flatten, Identity.

Parameters are created when the layer is built (Layer.create_parameter), with Paddle 2.x's shapes and default
initialisers: Linear's weight is [in_features, out_features], Xavier-uniform, its bias zeros; Embedding's weight is
[num_embeddings, embedding_dim], Xavier-uniform. `forward` appends the ops of the matching nn.functional builder.
"""
from __future__ import annotations

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
