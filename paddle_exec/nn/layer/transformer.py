"""paddle.nn Transformer layers in static mode, built as Paddle 2.6 builds them: MultiHeadAttention,
TransformerEncoderLayer / TransformerEncoder, TransformerDecoderLayer / TransformerDecoder and Transformer.

MultiHeadAttention projects q, k, v with Linear layers (`q_proj`, `k_proj`, `v_proj`, `out_proj`), splits heads
with reshape [0, 0, heads, head_dim] and transpose [0, 2, 1, 3], takes softmax((q * head_dim^-0.5) k^T + mask)
(a bool / int mask becomes (mask - 1) * 1e9), applies attention dropout when training, and merges the heads back.
Caches (MultiHeadAttention.Cache for incremental decoding, StaticCache for the memory's keys and values) follow
Paddle's: a Cache's k / v are concatenated with the new ones along the sequence axis. The encoder / decoder stacks
build their further layers from the first one's constructor arguments (`_config`), so each layer has its own
parameters, named in creation order as in Paddle.
"""
from __future__ import annotations

import collections
import copy

import numpy as np

from ...framework.dtype import convert_dtype
from ...param_attr import ParamAttr
from ...tensor import creation as _creation
from ...tensor import manipulation as _manipulation
from ...tensor import math as _math
from .. import functional as F
from .common import Dropout, Linear
from .container import LayerList
from .layers import Layer
from .norm import LayerNorm

__all__ = ['MultiHeadAttention', 'TransformerEncoderLayer', 'TransformerEncoder', 'TransformerDecoderLayer',
           'TransformerDecoder', 'Transformer']


def _param_attrs(param_attr, n: int) -> list:
    """Paddle's _convert_param_attr_to_list: one attribute per sublayer group."""
    if isinstance(param_attr, (list, tuple)):
        if len(param_attr) != n:
            raise AssertionError('length of param_attr should be %d when it is a list/tuple' % n)
        return [(ParamAttr._to_attr(None) if a else False) if isinstance(a, bool) else ParamAttr._to_attr(a)
                for a in param_attr]
    if isinstance(param_attr, bool):
        return [ParamAttr._to_attr(None) for _ in range(n)] if param_attr else [False] * n
    attr = ParamAttr._to_attr(param_attr)
    out = []
    for i in range(n):
        attr_i = copy.deepcopy(attr)
        if attr is not None and attr is not False and getattr(attr, 'name', None):
            attr_i.name = attr_i.name + '_' + str(i)
        out.append(attr_i)
    return out


def _attention_mask(mask, dtype):
    """Paddle's _convert_attention_mask: a bool / int mask becomes (mask - 1) * 1e9 in the scores' dtype."""
    if mask is None or mask.dtype == dtype:
        return mask
    mask_dtype = convert_dtype(mask.dtype)
    if mask_dtype == 'bool' or 'int' in mask_dtype:
        return (_manipulation.cast(mask, dtype) - 1.0) * 1e9
    return _manipulation.cast(mask, dtype)


class MultiHeadAttention(Layer):
    """Attention over `num_heads` heads of embed_dim / num_heads each (see the module docstring)."""

    Cache = collections.namedtuple('Cache', ['k', 'v'])
    StaticCache = collections.namedtuple('StaticCache', ['k', 'v'])

    def __init__(self, embed_dim, num_heads, dropout=0.0, kdim=None, vdim=None, need_weights=False, weight_attr=None,
                 bias_attr=None):
        super().__init__()
        if embed_dim <= 0:
            raise AssertionError('Expected embed_dim to be greater than 0, but received %d' % embed_dim)
        if num_heads <= 0:
            raise AssertionError('Expected num_heads to be greater than 0, but received %d' % num_heads)
        self.embed_dim, self.num_heads, self.dropout, self.need_weights = embed_dim, num_heads, dropout, need_weights
        self.kdim = embed_dim if kdim is None else kdim
        self.vdim = embed_dim if vdim is None else vdim
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError('embed_dim must be divisible by num_heads')
        self.q_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.k_proj = Linear(self.kdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.v_proj = Linear(self.vdim, embed_dim, weight_attr, bias_attr=bias_attr)
        self.out_proj = Linear(embed_dim, embed_dim, weight_attr, bias_attr=bias_attr)

    def _heads(self, x):
        x = _manipulation.reshape(x, [0, 0, self.num_heads, self.head_dim])
        return _manipulation.transpose(x, [0, 2, 1, 3])

    def compute_kv(self, key, value):
        return self._heads(self.k_proj(key)), self._heads(self.v_proj(value))

    def _prepare_qkv(self, query, key, value, cache=None):
        q = self._heads(self.q_proj(query))
        if isinstance(cache, self.StaticCache):
            k, v = cache.k, cache.v
        else:
            k, v = self.compute_kv(key, value)
        if isinstance(cache, self.Cache):
            k = _manipulation.concat([cache.k, k], axis=2)
            v = _manipulation.concat([cache.v, v], axis=2)
            cache = self.Cache(k, v)
        return (q, k, v) if cache is None else (q, k, v, cache)

    def gen_cache(self, key, value=None, type=Cache):  # noqa: A002 - Paddle's argument name
        """A StaticCache of the projected key / value, an empty Cache (value None), or a Cache of the given k / v."""
        if type == MultiHeadAttention.StaticCache:
            return self.StaticCache(*self.compute_kv(key, value))
        if value is None:
            if key.shape[0] < 0:
                raise NotImplementedError('MultiHeadAttention.gen_cache: an empty Cache needs a known batch size '
                                          '(Paddle reads it eagerly); give the key a fixed batch dimension')
            shape = [key.shape[0], self.num_heads, 0, self.head_dim]
            return self.Cache(_creation.full(shape, 0, key.dtype), _creation.full(shape, 0, key.dtype))
        return self.Cache(key, value)

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        key = query if key is None else key
        value = query if value is None else value
        if cache is None:
            q, k, v = self._prepare_qkv(query, key, value)
        else:
            q, k, v, cache = self._prepare_qkv(query, key, value, cache)
        product = _math.matmul(q * self.head_dim ** -0.5, k, transpose_y=True)
        if attn_mask is not None:
            product = product + _attention_mask(attn_mask, product.dtype)
        weights = F.softmax(product)
        if self.dropout:
            weights = F.dropout(weights, self.dropout, training=self.training, mode='upscale_in_train')
        out = _manipulation.transpose(_math.matmul(weights, v), [0, 2, 1, 3])
        out = self.out_proj(_manipulation.reshape(out, [0, 0, out.shape[2] * out.shape[3]]))
        outs = [out] + ([weights] if self.need_weights else []) + ([cache] if cache is not None else [])
        return out if len(outs) == 1 else tuple(outs)


class TransformerEncoderLayer(Layer):
    """Self-attention and a feed-forward block, each with dropout, a residual and LayerNorm (post-norm, or
    pre-norm with normalize_before)."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation='relu', attn_dropout=None,
                 act_dropout=None, normalize_before=False, weight_attr=None, bias_attr=None, layer_norm_eps=1e-5):
        self._config = dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward, dropout=dropout,
                            activation=activation, attn_dropout=attn_dropout, act_dropout=act_dropout,
                            normalize_before=normalize_before, weight_attr=weight_attr, bias_attr=bias_attr,
                            layer_norm_eps=layer_norm_eps)
        super().__init__()
        _check_sizes(d_model, nhead, dim_feedforward)
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        weights, biases = _param_attrs(weight_attr, 2), _param_attrs(bias_attr, 2)
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout, weight_attr=weights[0],
                                            bias_attr=biases[0])
        self.linear1 = Linear(d_model, dim_feedforward, weights[1], bias_attr=biases[1])
        self.dropout = Dropout(act_dropout, mode='upscale_in_train')
        self.linear2 = Linear(dim_feedforward, d_model, weights[1], bias_attr=biases[1])
        self.norm1 = LayerNorm(d_model, epsilon=layer_norm_eps)
        self.norm2 = LayerNorm(d_model, epsilon=layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode='upscale_in_train')
        self.dropout2 = Dropout(dropout, mode='upscale_in_train')
        self.activation = getattr(F, activation)

    def forward(self, src, src_mask=None, cache=None):
        src_mask = _attention_mask(src_mask, src.dtype)
        residual = src
        if self.normalize_before:
            src = self.norm1(src)
        if cache is None:
            src = self.self_attn(src, src, src, src_mask)
        else:
            src, incremental_cache = self.self_attn(src, src, src, src_mask, cache)
        src = residual + self.dropout1(src)
        if not self.normalize_before:
            src = self.norm1(src)
        residual = src
        if self.normalize_before:
            src = self.norm2(src)
        src = self.linear2(self.dropout(self.activation(self.linear1(src))))
        src = residual + self.dropout2(src)
        if not self.normalize_before:
            src = self.norm2(src)
        return src if cache is None else (src, incremental_cache)

    def gen_cache(self, src):
        return self.self_attn.gen_cache(src, type=self.self_attn.Cache)


def _check_sizes(d_model, nhead, dim_feedforward):
    for value, what in ((d_model, 'd_model'), (nhead, 'nhead'), (dim_feedforward, 'dim_feedforward')):
        if value <= 0:
            raise AssertionError('Expected %s to be greater than 0, but received %d' % (what, value))


class TransformerEncoder(Layer):
    """`num_layers` encoder layers (the given one first, then new ones of its configuration), then `norm`."""

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = LayerList([encoder_layer if i == 0 else type(encoder_layer)(**encoder_layer._config)
                                 for i in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def forward(self, src, src_mask=None, cache=None):
        src_mask = _attention_mask(src_mask, src.dtype)
        output, new_caches = src, []
        for i, layer in enumerate(self.layers):
            if cache is None:
                output = layer(output, src_mask=src_mask)
            else:
                output, new_cache = layer(output, src_mask=src_mask, cache=cache[i])
                new_caches.append(new_cache)
        if self.norm is not None:
            output = self.norm(output)
        return output if cache is None else (output, new_caches)

    def gen_cache(self, src):
        return [layer.gen_cache(src) for layer in self.layers]


class TransformerDecoderLayer(Layer):
    """Self-attention, cross-attention over the memory and a feed-forward block, each with dropout, a residual
    and LayerNorm."""

    def __init__(self, d_model, nhead, dim_feedforward, dropout=0.1, activation='relu', attn_dropout=None,
                 act_dropout=None, normalize_before=False, weight_attr=None, bias_attr=None, layer_norm_eps=1e-5):
        self._config = dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward, dropout=dropout,
                            activation=activation, attn_dropout=attn_dropout, act_dropout=act_dropout,
                            normalize_before=normalize_before, weight_attr=weight_attr, bias_attr=bias_attr,
                            layer_norm_eps=layer_norm_eps)
        super().__init__()
        _check_sizes(d_model, nhead, dim_feedforward)
        attn_dropout = dropout if attn_dropout is None else attn_dropout
        act_dropout = dropout if act_dropout is None else act_dropout
        self.normalize_before = normalize_before
        weights, biases = _param_attrs(weight_attr, 3), _param_attrs(bias_attr, 3)
        self.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout, weight_attr=weights[0],
                                            bias_attr=biases[0])
        self.cross_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout, weight_attr=weights[1],
                                             bias_attr=biases[1])
        self.linear1 = Linear(d_model, dim_feedforward, weights[2], bias_attr=biases[2])
        self.dropout = Dropout(act_dropout, mode='upscale_in_train')
        self.linear2 = Linear(dim_feedforward, d_model, weights[2], bias_attr=biases[2])
        self.norm1 = LayerNorm(d_model, epsilon=layer_norm_eps)
        self.norm2 = LayerNorm(d_model, epsilon=layer_norm_eps)
        self.norm3 = LayerNorm(d_model, epsilon=layer_norm_eps)
        self.dropout1 = Dropout(dropout, mode='upscale_in_train')
        self.dropout2 = Dropout(dropout, mode='upscale_in_train')
        self.dropout3 = Dropout(dropout, mode='upscale_in_train')
        self.activation = getattr(F, activation)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        tgt_mask = _attention_mask(tgt_mask, tgt.dtype)
        memory_mask = _attention_mask(memory_mask, memory.dtype)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm1(tgt)
        if cache is None:
            tgt = self.self_attn(tgt, tgt, tgt, tgt_mask, None)
        else:
            tgt, incremental_cache = self.self_attn(tgt, tgt, tgt, tgt_mask, cache[0])
        tgt = residual + self.dropout1(tgt)
        if not self.normalize_before:
            tgt = self.norm1(tgt)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm2(tgt)
        if cache is None:
            tgt = self.cross_attn(tgt, memory, memory, memory_mask, None)
        else:
            tgt, static_cache = self.cross_attn(tgt, memory, memory, memory_mask, cache[1])
        tgt = residual + self.dropout2(tgt)
        if not self.normalize_before:
            tgt = self.norm2(tgt)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm3(tgt)
        tgt = self.linear2(self.dropout(self.activation(self.linear1(tgt))))
        tgt = residual + self.dropout3(tgt)
        if not self.normalize_before:
            tgt = self.norm3(tgt)
        return tgt if cache is None else (tgt, (incremental_cache, static_cache))

    def gen_cache(self, memory):
        return (self.self_attn.gen_cache(memory, type=self.self_attn.Cache),
                self.cross_attn.gen_cache(memory, memory, type=self.cross_attn.StaticCache))


class TransformerDecoder(Layer):
    """`num_layers` decoder layers (the given one first, then new ones of its configuration), then `norm`."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = LayerList([decoder_layer if i == 0 else type(decoder_layer)(**decoder_layer._config)
                                 for i in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        tgt_mask = _attention_mask(tgt_mask, tgt.dtype)
        memory_mask = _attention_mask(memory_mask, memory.dtype)
        output, new_caches = tgt, []
        for i, layer in enumerate(self.layers):
            if cache is None:
                output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask, cache=None)
            else:
                output, new_cache = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask, cache=cache[i])
                new_caches.append(new_cache)
        if self.norm is not None:
            output = self.norm(output)
        return output if cache is None else (output, new_caches)

    def gen_cache(self, memory, do_zip=False):
        cache = [layer.gen_cache(memory) for layer in self.layers]
        return list(zip(*cache)) if do_zip else cache


def _split_attrs(attr, what):
    """(encoder attrs, decoder attrs) of Transformer's weight_attr / bias_attr."""
    if not isinstance(attr, (list, tuple)):
        return attr, attr
    if len(attr) == 1:
        return [attr[0]] * 2, [attr[0]] * 3
    if len(attr) == 2:
        return attr, [attr[0], attr[0], attr[-1]]
    if len(attr) == 3:
        return [attr[0], attr[-1]], attr
    raise AssertionError('length of %s should be 1 or 2 or 3 when it is a list/tuple' % what)


class Transformer(Layer):
    """An encoder-decoder Transformer (encoder and decoder stacks, each ending with a LayerNorm)."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation='relu', attn_dropout=None, act_dropout=None, normalize_before=False,
                 weight_attr=None, bias_attr=None, custom_encoder=None, custom_decoder=None):
        super().__init__()
        _check_sizes(d_model, nhead, dim_feedforward)
        enc_bias, dec_bias = _split_attrs(bias_attr, 'bias_attr')
        enc_weight, dec_weight = _split_attrs(weight_attr, 'weight_attr')
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation, attn_dropout,
                                            act_dropout, normalize_before, enc_weight, enc_bias)
            self.encoder = TransformerEncoder(layer, num_encoder_layers, LayerNorm(d_model))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation, attn_dropout,
                                            act_dropout, normalize_before, dec_weight, dec_bias)
            self.decoder = TransformerDecoder(layer, num_decoder_layers, LayerNorm(d_model))
        self.d_model, self.nhead = d_model, nhead

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None):
        src_mask = _attention_mask(src_mask, src.dtype)
        memory = self.encoder(src, src_mask=src_mask)
        tgt_mask = _attention_mask(tgt_mask, tgt.dtype)
        memory_mask = _attention_mask(memory_mask, memory.dtype)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask)

    def generate_square_subsequent_mask(self, length):
        """[length, length] with -inf above the diagonal and 0 elsewhere (a causal mask)."""
        return _creation.triu(_creation.full([length, length], -np.inf, 'float32'), 1)
