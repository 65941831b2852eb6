"""paddle.nn.utils in static mode: weight_norm / remove_weight_norm, spectral_norm, parameters_to_vector and
vector_to_parameters.

Paddle writes these for dygraph (they copy tensors eagerly); here each does what it means in a static program:
- weight_norm(layer, name, dim) replaces the parameter `name` by `name_v` (initialised as the weight was) and
  `name_g` (filled by ops appended to the startup program: the norm of v over every axis but `dim`), and a forward
  pre-hook that rebuilds `name = g * v / ||v||` in the program being built each time the layer is called.
  remove_weight_norm folds g and v back into one parameter whose value is computed from the scope's current g and v
  (so run the startup program, and train, before removing it).
- spectral_norm(layer, ...) keeps the weight as `name_orig` and adds persistable buffers `name_u` / `name_v`
  (Normal(0, 1), normalised in the startup program); each call appends the power iterations (writing u and v back
  when the layer is training) and `name = name_orig / (u . W v)`.
- parameters_to_vector: one `concat` of the flattened parameters; vector_to_parameters: `split` of the vector and
  `assign`s of the pieces into the parameters, appended to the current program.

clip_grad_norm_ and clip_grad_value_ clip `param.grad` tensors eagerly, which static programs do not have: they
are declined (paddle_exec/_declined.py: reading them raises AttributeError saying to pass
nn.ClipGradByGlobalNorm / nn.ClipGradByValue to the optimizer's grad_clip instead).
"""
from __future__ import annotations

import numpy as np

from ..._declined import declined_getattr
from ...framework import unique_name
from ...framework.program import program_guard
from ...framework.scope import global_scope
from ...framework.variable import Parameter
from ...initializer import NormalInitializer, NumpyArrayInitializer
from ...layers import activation as _activation
from ...layers import manipulation as _manipulation
from ...layers import math as _math
from ...layers.creation import assign
from ...ops._util import prod
from ...param_attr import ParamAttr
from .. import functional as F

__all__ = ['weight_norm', 'remove_weight_norm', 'spectral_norm', 'parameters_to_vector', 'vector_to_parameters']

__getattr__ = declined_getattr(__name__)  # clip_grad_norm_ / clip_grad_value_ say why (_declined.py)


# ---------------------------------------------------------------------------------------------------------------
# weight_norm

def _rows(x, dim: int):
    """x with axis `dim` moved first, as [shape[dim], rest]."""
    perm = [dim] + [i for i in range(len(x.shape)) if i != dim]
    moved = _manipulation.transpose(x, perm) if dim != 0 else x
    return _manipulation.reshape(moved, [x.shape[dim], -1]), perm


def norm_except_dim(x, dim: int):
    """||x|| over every axis but `dim` (all axes for dim -1): sqrt(sum(x^2) + 1e-12), as Paddle's `norm` op."""
    if dim == -1:
        return _activation.sqrt(_math.scale(_math.reduce_sum(_activation.square(x)), bias=1e-12))
    rows, _ = _rows(x, dim)
    return _activation.sqrt(_math.scale(_math.reduce_sum(_activation.square(rows), dim=[1]), bias=1e-12))


def _normalised_weight(v, g, dim: int):
    """g * v / ||v|| (F.normalize over every axis but dim), g broadcast along dim."""
    if dim == -1:
        return _math.elementwise_mul(_math.elementwise_div(v, norm_except_dim(v, -1)), g)
    rows, perm = _rows(v, dim)
    unit = F.normalize(rows, axis=1)
    unit = _manipulation.reshape(unit, [v.shape[p] for p in perm])
    if dim != 0:
        unit = _manipulation.transpose(unit, list(np.argsort(perm)))
    return _math.elementwise_mul(unit, g, axis=dim)


class WeightNorm:
    """The forward pre-hook of weight_norm: rebuilds `name` from `name_g` and `name_v` when the layer is called."""

    def __init__(self, name: str, dim: int):
        self.name, self.dim = name, dim

    def compute_weight(self, layer):
        return _normalised_weight(getattr(layer, self.name + '_v'), getattr(layer, self.name + '_g'), self.dim)

    def __call__(self, layer, inputs):
        object.__setattr__(layer, self.name, self.compute_weight(layer))


def weight_norm(layer, name='weight', dim=0):
    """Reparameterises layer.<name> as g * v / ||v|| (see the module docstring); dim None means -1 (one norm)."""
    for hook in layer._forward_pre_hooks.values():
        if isinstance(hook, WeightNorm) and hook.name == name:
            raise RuntimeError('Cannot register two weight_norm hooks on the same parameter %s' % name)
    dim = -1 if dim is None else dim
    w = layer._parameters[name]
    rank = len(w.shape)
    if not -rank <= dim < rank:
        raise AssertionError('dim must set between [-R, R), R means the dimension of weight.')
    if dim != -1:
        dim = (dim + rank) % rank
    del layer._parameters[name]
    v = layer.create_parameter(list(w.shape), attr=ParamAttr(initializer=w.initializer), dtype=w.dtype)
    layer.add_parameter(name + '_v', v)
    g = layer.create_parameter([1] if dim == -1 else [w.shape[dim]], dtype=w.dtype)
    layer.add_parameter(name + '_g', g)
    startup = layer._helper.startup_program
    with program_guard(startup, startup):
        block = startup.global_block()
        assign(norm_except_dim(block.var(v.name), dim), block.var(g.name))
    hook = WeightNorm(name, dim)
    layer.register_forward_pre_hook(hook)
    return layer


def remove_weight_norm(layer, name='weight'):
    """Folds g * v / ||v|| back into one parameter `name`, valued from the scope's current g and v."""
    for key, hook in list(layer._forward_pre_hooks.items()):
        if isinstance(hook, WeightNorm) and hook.name == name:
            v, g = layer._parameters[name + '_v'], layer._parameters[name + '_g']
            scope = global_scope()
            if scope.find_var(v.name) is None or scope.find_var(g.name) is None:
                raise RuntimeError('remove_weight_norm folds the current values of %s and %s: run the startup '
                                   'program first' % (v.name, g.name))
            value = _fold(np.asarray(scope.find_var(v.name).get_tensor()), np.asarray(scope.find_var(g.name)
                                                                                        .get_tensor()), hook.dim)
            del layer._parameters[name + '_v'], layer._parameters[name + '_g']
            layer.__dict__.pop(name, None)
            w = layer.create_parameter(list(value.shape), dtype=v.dtype,
                                       attr=ParamAttr(initializer=NumpyArrayInitializer(value)))
            layer.add_parameter(name, w)
            scope.var(w.name).set_value(value)
            del layer._forward_pre_hooks[key]
            return layer
    raise ValueError("weight_norm of '%s' not found in %s" % (name, layer))


def _fold(v, g, dim):
    if dim == -1:
        return (v / np.sqrt(np.sum(v * v) + 1e-12) * g).astype(v.dtype)
    moved = np.moveaxis(v, dim, 0)
    norm = np.maximum(np.sqrt(np.sum(moved.reshape(moved.shape[0], -1) ** 2, axis=1)), 1e-12)
    shape = [1] * v.ndim
    shape[dim] = -1
    return (v / norm.reshape(shape) * g.reshape(shape)).astype(v.dtype)


# ---------------------------------------------------------------------------------------------------------------
# spectral_norm

class SpectralNorm:
    """The forward pre-hook of spectral_norm (see the module docstring)."""

    def __init__(self, name='weight', n_power_iterations=1, dim=0, eps=1e-12):
        if n_power_iterations <= 0:
            raise ValueError('Expected n_power_iterations to be positive, but got n_power_iterations=%d'
                             % n_power_iterations)
        self.name, self.dim, self.n_power_iterations, self.eps = name, dim, n_power_iterations, eps

    def compute_weight(self, layer, do_power_iteration: bool):
        weight = getattr(layer, self.name + '_orig')
        u, v = getattr(layer, self.name + '_u'), getattr(layer, self.name + '_v')
        mat, _ = _rows(weight, self.dim)
        if do_power_iteration:
            for _ in range(self.n_power_iterations):
                new_v = F.normalize(_math.matmul(mat, _manipulation.unsqueeze(u, [1]), transpose_x=True), axis=0,
                                    epsilon=self.eps)
                assign(_manipulation.reshape(new_v, [-1]), v)
                new_u = F.normalize(_math.matmul(mat, _manipulation.unsqueeze(v, [1])), axis=0, epsilon=self.eps)
                assign(_manipulation.reshape(new_u, [-1]), u)
        wv = _manipulation.reshape(_math.matmul(mat, _manipulation.unsqueeze(v, [1])), [-1])
        sigma = _math.reduce_sum(_math.elementwise_mul(u, wv))
        return _math.elementwise_div(weight, sigma)

    def __call__(self, layer, inputs):
        object.__setattr__(layer, self.name, self.compute_weight(layer, layer.training))


def spectral_norm(layer, name='weight', n_power_iterations=1, eps=1e-12, dim=None):
    """Divides layer.<name> by its spectral norm at every call (power iterations on persistable u, v)."""
    from_class = type(layer).__name__
    if dim is None:
        dim = 1 if from_class in ('Conv1DTranspose', 'Conv2DTranspose', 'Conv3DTranspose', 'Linear') else 0
    for hook in layer._forward_pre_hooks.values():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            raise RuntimeError('Cannot register two spectral_norm hooks on the same parameter %s' % name)
    hook = SpectralNorm(name, n_power_iterations, dim, eps)
    weight = layer._parameters[name]
    h = weight.shape[dim]
    w = prod(weight.shape) // h
    buffers = []
    helper = layer._helper
    startup = helper.startup_program
    for suffix, size in (('_u', h), ('_v', w)):
        buf = helper.main_program.global_block().create_var(
            name=unique_name.generate(layer.full_name() + '.w'), shape=[size], dtype=weight.dtype, persistable=True,
            stop_gradient=True)
        helper.set_variable_initializer(buf, NormalInitializer(0.0, 1.0))
        with program_guard(startup, startup):
            block = startup.global_block()
            assign(F.normalize(block.var(buf.name), axis=0, epsilon=eps), block.var(buf.name))
        buffers.append((suffix, buf))
    del layer._parameters[name]
    layer.add_parameter(name + '_orig', weight)
    for suffix, buf in buffers:
        layer.register_buffer(name + suffix, buf)
    layer.register_forward_pre_hook(hook)
    return layer


# ---------------------------------------------------------------------------------------------------------------
# parameters <-> vector

def parameters_to_vector(parameters, name=None):
    """One 1-D Variable holding every parameter flattened, in order (`reshape2` + `concat`)."""
    flat = [_manipulation.reshape(p, [-1]) for p in parameters]
    return _manipulation.concat(flat, axis=0, name=name)


def vector_to_parameters(vec, parameters, name=None):
    """Writes consecutive pieces of `vec` into `parameters` (`split`, `reshape2`, `assign` ops)."""
    sections = [prod(p.shape) for p in parameters]
    pieces = _manipulation.split(vec, sections, dim=0) if len(sections) > 1 else [vec]
    for piece, param in zip(pieces, parameters):
        if not isinstance(param, Parameter):
            raise TypeError('vector_to_parameters expects Parameters, got %s' % type(param).__name__)
        assign(_manipulation.reshape(piece, list(param.shape)), param)
