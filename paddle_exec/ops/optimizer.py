"""Optimizer update ops and the gradient-clipping ops: Paddle's slot and attribute names, numba kernels.

Update ops (`sgd`, `momentum`, `adam`, `adamw`, `adagrad`, `decayed_adagrad`, `rmsprop`, `adamax`, `lamb`, `ftrl`,
`average_accumulates`, `adadelta`, `lars_momentum`, `dpsgd`) are in place:
`ParamOut` is the variable `Param` (and `Moment1Out` is `Moment1`, ...), declared with `inplace=` in `defop`. The
kernels of `paddle_exec.kernels.optimizer` write into the arrays they are given, so each `run` makes sure those
arrays are writeable and C-contiguous (copying only when they are not) and returns them as the outputs; the plan
writes them back to the same slots and the executor to the scope.

A gradient is a dense array or a `SelectedRows`; which rows a sparse update touches follows Paddle 1.8's CPU
kernels (see `kernels/optimizer.py`). Attributes are float32 in Paddle (`mu=0.9` is stored as 0.89999998), so
they are rounded through float32 before use, as Paddle's `static_cast<T>(ctx.Attr<float>(...))` does.

The adam op has one attribute Paddle does not: `scaled_epsilon`. Paddle 1.8's adam computes
`p -= lr_t * m1 / (sqrt(m2) + epsilon)`; Paddle 2.x's computes `... / (sqrt(m2) + epsilon * sqrt(1 - beta2_pow))`.
`fluid.optimizer.Adam` leaves it False (1.8), `paddle.optimizer.Adam` sets it True (2.x). With it set, a sparse
gradient in non-lazy mode follows Paddle 2.x's CPU kernel exactly: rows present use the scaled epsilon, absent
rows the plain one. `momentum` has the 2.x attributes (`regularization_method='l2_decay'`, `rescale_grad`).
Every update op was run side by side with paddlepaddle 1.8.5 and 2.6.2 (dense and sparse) and agrees to float32
rounding.

`lr_scheduler_value` writes a Python LR scheduler's current value into the learning-rate variable each run.

Clipping and regularization need `clip_by_norm`, `squared_l2_norm` (with its grad), `merge_selected_rows` and
`get_tensor_from_selected_rows`, defined here, and `sign` (L1Decay), defined with the math ops (ops/math.py).
"""
from __future__ import annotations

import time

import numpy as np

from ..framework.dtype import VarType, to_numpy
from ..framework.registry import GradSpec, defop, kernel_rule, segment_rule, shape_rule
from ..framework.scope import SelectedRows
from ..kernels import optimizer as K
from ..kernels.segment import optimizer as SO
from ._util import segment_op


def _f32(value) -> float:
    """A float attribute as Paddle stores it (float32), back as a Python float."""
    return float(np.float32(value))


def _writable(a: np.ndarray) -> np.ndarray:
    """`a` itself when a kernel may update it in place, else a C-contiguous writeable copy."""
    if isinstance(a, np.ndarray) and a.flags.c_contiguous and a.flags.writeable:
        return a
    return np.array(a, order='C', copy=True)


def _scalar_input(value, default: float) -> float:
    """A [1] tensor input (Beta1Tensor, ...) when wired, else the attribute."""
    return default if value is None else float(np.asarray(value).reshape(-1)[0])


def _check_rows(op_type: str, grad: SelectedRows, param: np.ndarray) -> None:
    if grad.height and param.ndim and grad.height != param.shape[0]:
        raise ValueError("operator '%s': the SelectedRows gradient has height %d but the parameter has %d rows"
                         % (op_type, grad.height, param.shape[0]))


def _dense_grad(grad, param: np.ndarray) -> np.ndarray:
    """A SelectedRows gradient as a dense array of the parameter's shape (duplicate rows summed)."""
    if not isinstance(grad, SelectedRows):
        return np.asarray(grad, dtype=param.dtype).reshape(param.shape)
    rows, merged = K.merge_rows(grad.rows, grad.values)
    dense = np.zeros(param.shape, param.dtype)
    dense.reshape(param.shape[0], -1)[rows] = merged.reshape(len(rows), -1)
    return dense


# --- shape rules ----------------------------------------------------------------------------------------------

def _update_shape_rule(*pairs):
    """Outputs take the shape/dtype of the input they update; LearningRate holds one element; a dense Grad has
    Param's shape (Paddle's InferShape checks)."""
    def rule(ctx):
        op_type = ctx.op.type
        if ctx.has_input('LearningRate'):
            lr = ctx.input_var('LearningRate')
            if lr is not None and lr.has_shape() and all(d > 0 for d in lr.shape) and int(np.prod(lr.shape)) != 1:
                raise ValueError("operator '%s': LearningRate (variable '%s') should have one element, got shape %s"
                                 % (op_type, lr.name, list(lr.shape)))
        param, grad = ctx.input_var('Param'), ctx.input_var('Grad')
        if (param is not None and grad is not None and grad.type != VarType.SELECTED_ROWS and grad.has_shape()
                and param.has_shape() and all(d > 0 for d in grad.shape + param.shape)
                and int(np.prod(grad.shape)) != int(np.prod(param.shape))):
            raise ValueError("operator '%s': Param and Grad should have the same dimension, but Param '%s' has %s "
                             "and Grad '%s' has %s" % (op_type, param.name, list(param.shape), grad.name,
                                                       list(grad.shape)))
        for out_slot, in_slot in pairs:
            if ctx.has_output(out_slot) and ctx.has_input(in_slot):
                src = ctx.input_var(in_slot)
                ctx.set_output(out_slot, src.shape if src.has_shape() else None, src.dtype)
    return rule


# --- sgd ---------------------------------------------------------------------------------------------------------

defop('sgd', ['Param', 'LearningRate', 'Grad'], ['ParamOut'], inplace={'ParamOut': 'Param'})
shape_rule('sgd')(_update_shape_rule(('ParamOut', 'Param')))


@kernel_rule('sgd')
def _sgd(spec):
    def run(param, lr, grad):
        param = _writable(param)
        if isinstance(grad, SelectedRows):
            _check_rows('sgd', grad, param)
            K.sgd_sparse(param, grad.rows, grad.values, lr)
        else:
            K.sgd(param, grad, lr)
        return (param,)
    return run


# --- momentum ----------------------------------------------------------------------------------------------------
# 2.x attributes: regularization_method 'l2_decay' fuses L2Decay into the op (paddle.optimizer.Momentum with
# weight_decay=L2Decay); rescale_grad scales a sparse gradient (Paddle's CPU dense functor ignores it).

defop('momentum', ['Param', 'Grad', 'Velocity', 'LearningRate'], ['ParamOut', 'VelocityOut'],
      {'mu': 0.9, 'use_nesterov': False, 'regularization_method': '', 'regularization_coeff': 0.0,
       'rescale_grad': 1.0, 'multi_precision': False},
      inplace={'ParamOut': 'Param', 'VelocityOut': 'Velocity'})
shape_rule('momentum')(_update_shape_rule(('ParamOut', 'Param'), ('VelocityOut', 'Velocity')))


def _momentum_l2_dense(param, grad, velocity, lr, mu, coeff, nesterov):
    # Paddle 2.x (phi) CPUDenseMomentumFunctor: g = param * coeff + grad, then the plain update with g
    # (rescale_grad is ignored on this path, as Paddle's CPU kernel ignores it)
    dt = param.dtype
    mu, coeff, rate = dt.type(mu), dt.type(coeff), dt.type(np.asarray(lr).reshape(-1)[0])
    g = param * coeff + grad.reshape(param.shape)
    velocity[...] = velocity * mu + g
    if nesterov:
        param -= (g + velocity * mu) * rate
    else:
        param -= rate * velocity


def _momentum_l2_sparse(param, grad, velocity, lr, mu, coeff, nesterov, rescale):
    # Paddle 2.x SparseMomentumFunctor: every row, g = (row's gradient or 0) * rescale + coeff * param
    dt = param.dtype
    mu, coeff, rate = dt.type(mu), dt.type(coeff), dt.type(np.asarray(lr).reshape(-1)[0])
    g = _dense_grad(grad, param) * dt.type(rescale) + coeff * param
    velocity[...] = velocity * mu + g
    if nesterov:
        param -= (g + velocity * mu) * rate
    else:
        param -= rate * velocity


@kernel_rule('momentum')
def _momentum(spec):
    mu, nesterov = _f32(spec.attr('mu')), bool(spec.attr('use_nesterov'))
    l2 = spec.attr('regularization_method') == 'l2_decay'
    coeff, rescale = _f32(spec.attr('regularization_coeff')), _f32(spec.attr('rescale_grad'))

    def run(param, grad, velocity, lr):
        param, velocity = _writable(param), _writable(velocity)
        if isinstance(grad, SelectedRows):
            _check_rows('momentum', grad, param)
            if l2:
                if len(grad.rows):
                    _momentum_l2_sparse(param, grad, velocity, lr, mu, coeff, nesterov, rescale)
            else:
                values = grad.values if rescale == 1.0 else grad.values * param.dtype.type(rescale)
                K.momentum_sparse(param, grad.rows, values, velocity, lr, mu, nesterov)
        elif l2:
            _momentum_l2_dense(param, np.asarray(grad, dtype=param.dtype), velocity, lr, mu, coeff, nesterov)
        else:
            K.momentum(param, grad, velocity, lr, mu, nesterov)
        return param, velocity
    return run


# --- adam / adamw -------------------------------------------------------------------------------------------------

_ADAM_INPUTS = ['Param', 'Grad', 'LearningRate', 'Moment1', 'Moment2', 'Beta1Pow', 'Beta2Pow', 'Beta1Tensor',
                'Beta2Tensor']
_ADAM_OUTPUTS = ['ParamOut', 'Moment1Out', 'Moment2Out', 'Beta1PowOut', 'Beta2PowOut']
_ADAM_ATTRS = {'beta1': 0.9, 'beta2': 0.999, 'epsilon': 1e-8, 'lazy_mode': False,
               'min_row_size_to_use_multithread': 1000, 'use_global_beta_pow': False, 'multi_precision': False,
               'scaled_epsilon': False}
_ADAM_INPLACE = {'ParamOut': 'Param', 'Moment1Out': 'Moment1', 'Moment2Out': 'Moment2',
                 'Beta1PowOut': 'Beta1Pow', 'Beta2PowOut': 'Beta2Pow'}
_ADAM_SHAPES = _update_shape_rule(*_ADAM_INPLACE.items())

defop('adam', _ADAM_INPUTS, _ADAM_OUTPUTS, _ADAM_ATTRS, dispensable=['Beta1Tensor', 'Beta2Tensor'],
      inplace=_ADAM_INPLACE)
defop('adamw', _ADAM_INPUTS, _ADAM_OUTPUTS,
      {**_ADAM_ATTRS, 'scaled_epsilon': True, 'coeff': 0.01, 'lr_ratio': 1.0, 'with_decay': False},
      dispensable=['Beta1Tensor', 'Beta2Tensor'], inplace=_ADAM_INPLACE)
shape_rule('adam')(_ADAM_SHAPES)
shape_rule('adamw')(_ADAM_SHAPES)


def _adam2_sparse_all_rows(param, grad, m1, m2, lr, b1p, b2p, b1, b2, eps, advance):
    """Paddle 2.x's CPU SparseAdamFunctor (lazy_mode=False): the rows present get the 2.x update (scaled epsilon),
    the absent rows decay their moments and move with the PLAIN epsilon (its `else` branch was never changed);
    both with the pows advanced first. Checked against paddlepaddle 2.6.2."""
    if not len(grad.rows):
        return
    K.adam_sparse(param, grad.rows, grad.values, m1, m2, lr, b1p, b2p, b1, b2, eps, lazy_mode=True,
                  update_beta_pow=advance, scaled_epsilon=True)
    absent = np.setdiff1d(np.arange(param.shape[0], dtype=np.int64), grad.rows)
    if len(absent):
        zeros = np.zeros((len(absent),) + param.shape[1:], param.dtype)
        # a zero gradient leaves b*m + (1-b)*0 == b*m exactly, so this is the absent-row branch
        K.adam_sparse(param, absent, zeros, m1, m2, lr, b1p, b2p, b1, b2, eps, lazy_mode=True,
                      update_beta_pow=False, scaled_epsilon=False)


@kernel_rule('adam', 'adamw')
def _adam(spec):
    op_type = spec.type
    beta1, beta2, eps = _f32(spec.attr('beta1')), _f32(spec.attr('beta2')), _f32(spec.attr('epsilon'))
    lazy, scaled = bool(spec.attr('lazy_mode')), bool(spec.attr('scaled_epsilon'))
    advance = not spec.attr('use_global_beta_pow')
    is_adamw = op_type == 'adamw'
    coeff, lr_ratio, with_decay = _f32(spec.attr('coeff', 0.0)), _f32(spec.attr('lr_ratio', 1.0)), \
        bool(spec.attr('with_decay', False))

    def run(param, grad, lr, m1, m2, b1p, b2p, b1_tensor, b2_tensor):
        param, m1, m2, b1p, b2p = _writable(param), _writable(m1), _writable(m2), _writable(b1p), _writable(b2p)
        b1, b2 = _scalar_input(b1_tensor, beta1), _scalar_input(b2_tensor, beta2)
        if isinstance(grad, SelectedRows):
            _check_rows(op_type, grad, param)
            if is_adamw:
                K.adamw_sparse(param, grad.rows, grad.values, m1, m2, lr, b1p, b2p, b1, b2, eps, coeff, lr_ratio,
                               with_decay, lazy_mode=lazy, update_beta_pow=advance)
            elif scaled and not lazy:
                _adam2_sparse_all_rows(param, grad, m1, m2, lr, b1p, b2p, b1, b2, eps, advance)
            else:
                K.adam_sparse(param, grad.rows, grad.values, m1, m2, lr, b1p, b2p, b1, b2, eps, lazy_mode=lazy,
                              update_beta_pow=advance, scaled_epsilon=scaled)
        elif is_adamw:
            K.adamw(param, grad, m1, m2, lr, b1p, b2p, b1, b2, eps, coeff, lr_ratio, with_decay,
                    update_beta_pow=advance)
        else:
            K.adam(param, grad, m1, m2, lr, b1p, b2p, b1, b2, eps, update_beta_pow=advance, scaled_epsilon=scaled)
        return param, m1, m2, b1p, b2p
    return run


# --- adagrad / decayed_adagrad --------------------------------------------------------------------------------

defop('adagrad', ['Param', 'Grad', 'Moment', 'LearningRate'], ['ParamOut', 'MomentOut'], {'epsilon': 1e-6},
      inplace={'ParamOut': 'Param', 'MomentOut': 'Moment'})
shape_rule('adagrad')(_update_shape_rule(('ParamOut', 'Param'), ('MomentOut', 'Moment')))


@kernel_rule('adagrad')
def _adagrad(spec):
    eps = _f32(spec.attr('epsilon'))

    def run(param, grad, moment, lr):
        param, moment = _writable(param), _writable(moment)
        if isinstance(grad, SelectedRows):
            _check_rows('adagrad', grad, param)
            K.adagrad_sparse(param, grad.rows, grad.values, moment, lr, eps)
        else:
            K.adagrad(param, grad, moment, lr, eps)
        return param, moment
    return run


defop('decayed_adagrad', ['Param', 'Grad', 'Moment', 'LearningRate'], ['ParamOut', 'MomentOut'],
      {'decay': 0.95, 'epsilon': 1e-6}, inplace={'ParamOut': 'Param', 'MomentOut': 'Moment'})
shape_rule('decayed_adagrad')(_update_shape_rule(('ParamOut', 'Param'), ('MomentOut', 'Moment')))


@kernel_rule('decayed_adagrad')
def _decayed_adagrad(spec):
    # Paddle's DecayedAdagradOpKernel (dense gradients only): m = decay*m + (1-decay)*g*g;
    # p -= lr * g / (sqrt(m) + epsilon); float32 numpy in Paddle's order (no numba kernel for this rare one)
    decay, eps = _f32(spec.attr('decay')), _f32(spec.attr('epsilon'))

    def run(param, grad, moment, lr):
        if isinstance(grad, SelectedRows):
            raise TypeError("operator 'decayed_adagrad' supports only dense (LoDTensor) gradients")
        param, moment = _writable(param), _writable(moment)
        dt = param.dtype.type
        g = np.asarray(grad, dtype=param.dtype).reshape(param.shape)
        d = dt(decay)
        moment[...] = d * moment + (dt(1) - d) * g * g
        param -= dt(np.asarray(lr).reshape(-1)[0]) * g / (np.sqrt(moment) + dt(eps))
        return param, moment
    return run


# --- rmsprop -------------------------------------------------------------------------------------------------------

defop('rmsprop', ['Param', 'MeanSquare', 'MeanGrad', 'LearningRate', 'Grad', 'Moment'],
      ['ParamOut', 'MomentOut', 'MeanSquareOut', 'MeanGradOut'],
      {'epsilon': 1e-10, 'decay': 0.9, 'momentum': 0.0, 'centered': False}, dispensable=['MeanGrad', 'MeanGradOut'],
      inplace={'ParamOut': 'Param', 'MomentOut': 'Moment', 'MeanSquareOut': 'MeanSquare',
               'MeanGradOut': 'MeanGrad'})
shape_rule('rmsprop')(_update_shape_rule(('ParamOut', 'Param'), ('MomentOut', 'Moment'),
                                         ('MeanSquareOut', 'MeanSquare'), ('MeanGradOut', 'MeanGrad')))


@kernel_rule('rmsprop')
def _rmsprop(spec):
    eps, rho = _f32(spec.attr('epsilon')), _f32(spec.attr('decay'))
    momentum, centered = _f32(spec.attr('momentum')), bool(spec.attr('centered'))
    if centered and not spec.has_input('MeanGrad'):
        raise ValueError("operator 'rmsprop' with centered=True needs the input MeanGrad")

    def run(param, mean_square, mean_grad, lr, grad, moment):
        param, mean_square, moment = _writable(param), _writable(mean_square), _writable(moment)
        if centered:
            mean_grad = _writable(mean_grad)
        if isinstance(grad, SelectedRows):
            _check_rows('rmsprop', grad, param)
            K.rmsprop_sparse(param, grad.rows, grad.values, mean_square, moment, lr, mean_grad, rho, eps, momentum,
                             centered)
        else:
            K.rmsprop(param, grad, mean_square, moment, lr, mean_grad, rho, eps, momentum, centered)
        return param, moment, mean_square, mean_grad
    return run


# --- adamax ----------------------------------------------------------------------------------------------------------

defop('adamax', ['Param', 'Grad', 'LearningRate', 'Moment', 'InfNorm', 'Beta1Pow'],
      ['ParamOut', 'MomentOut', 'InfNormOut'], {'beta1': 0.9, 'beta2': 0.999, 'epsilon': 1e-8},
      inplace={'ParamOut': 'Param', 'MomentOut': 'Moment', 'InfNormOut': 'InfNorm'})
shape_rule('adamax')(_update_shape_rule(('ParamOut', 'Param'), ('MomentOut', 'Moment'), ('InfNormOut', 'InfNorm')))


@kernel_rule('adamax')
def _adamax(spec):
    # Paddle's AdamaxOpKernel (dense only); Beta1Pow is advanced by a separate `scale` op the optimizer appends:
    # m = b1*m + (1-b1)*g; u = max(|g|, b2*u + eps); p -= lr / (1 - b1pow) * (m / u)
    beta1, beta2, eps = _f32(spec.attr('beta1')), _f32(spec.attr('beta2')), _f32(spec.attr('epsilon'))

    def run(param, grad, lr, moment, inf_norm, beta1_pow):
        if isinstance(grad, SelectedRows):
            raise TypeError("operator 'adamax' supports only dense (LoDTensor) gradients")
        param, moment, inf_norm = _writable(param), _writable(moment), _writable(inf_norm)
        dt = param.dtype.type
        g = np.asarray(grad, dtype=param.dtype).reshape(param.shape)
        b1, b2 = dt(beta1), dt(beta2)
        moment[...] = b1 * moment + (dt(1) - b1) * g
        inf_norm[...] = np.maximum(np.abs(g), b2 * inf_norm + dt(eps))
        lr_t = dt(np.asarray(lr).reshape(-1)[0]) / (dt(1) - dt(np.asarray(beta1_pow).reshape(-1)[0]))
        param -= lr_t * (moment / inf_norm)
        return param, moment, inf_norm
    return run


# --- learning rate from a Python LR scheduler ------------------------------------------------------------------------
# Paddle 2.x's Executor writes `program.lr_sheduler()` into the learning-rate variable before every run. Here the
# program reads it through this op (op_role LRSched, appended by the optimizer), so any executor, scope or place
# sees the scheduler's current value without executor support. The op finds its scheduler on its program, by the
# name of the variable it writes (Program._add_lr_scheduler, called by the optimizer).

defop('lr_scheduler_value', [], ['Out'], {'dtype': int(VarType.FP32)}, stateful=True)


@shape_rule('lr_scheduler_value')
def _lr_value_shape(ctx):
    ctx.set_output('Out', (1,), ctx.attr('dtype'))


@kernel_rule('lr_scheduler_value')
def _lr_value(spec):
    out_name = spec.op.output('Out')[0]
    scheduler = spec.op.block.program._lr_scheduler_of(out_name)
    if scheduler is None:
        raise ValueError("operator 'lr_scheduler_value' (output '%s'): its program has no learning-rate scheduler "
                         "for this variable (a program read back from a file keeps none)" % out_name)
    dtype = to_numpy(spec.attr('dtype'))
    return lambda: (np.array([scheduler()], dtype=dtype),)


# --- gradient clipping: clip_by_norm, squared_l2_norm ---------------------------------------------------------------

defop('clip_by_norm', ['X'], ['Out'], {'max_norm': 1.0})


@shape_rule('clip_by_norm')
def _clip_by_norm_shape(ctx):
    x = ctx.input_var('X')
    ctx.set_output('Out', x.shape if x.has_shape() else None, x.dtype, type=x.type)


@kernel_rule('clip_by_norm')
def _clip_by_norm(spec):
    # Paddle: out = x * max_norm / ||x|| when ||x|| > max_norm; a SelectedRows input is merged first and stays sparse
    max_norm = _f32(spec.attr('max_norm'))

    def run(x):
        if isinstance(x, SelectedRows):
            rows, merged = K.merge_rows(x.rows, x.values)
            return (SelectedRows(rows, K.clip_by_norm(merged, max_norm), x.height),)
        return (K.clip_by_norm(x, max_norm),)
    return run


defop('squared_l2_norm', ['X'], ['Out'], grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('squared_l2_norm')
def _squared_l2_norm_shape(ctx):
    ctx.set_output('Out', (1,), ctx.in_dtype('X'))


@kernel_rule('squared_l2_norm')
def _squared_l2_norm(spec):
    def run(x):
        if isinstance(x, SelectedRows):
            return (np.array([K.squared_l2_norm_sparse(x.rows, x.values)], dtype=x.values.dtype),)
        return (np.array([K.squared_l2_norm(x)], dtype=x.dtype),)
    return run


@kernel_rule('squared_l2_norm_grad')
def _squared_l2_norm_grad(spec):
    def run(x, dout):
        return ((x * (x.dtype.type(2) * np.asarray(dout, dtype=x.dtype).reshape(-1)[0])),)
    return run


# l1_norm: Out [1] = sum(|X|) (ctr_metric_bundle's absolute error); grad: sign(X) * Out@GRAD
defop('l1_norm', ['X'], ['Out'], grad=GradSpec(('X', 'Out@GRAD'), ('X@GRAD',)))


@shape_rule('l1_norm')
def _l1_norm_shape(ctx):
    ctx.set_output('Out', (1,), ctx.in_dtype('X'))


@kernel_rule('l1_norm')
def _l1_norm(spec):
    def run(x):
        return (np.array([np.abs(x).sum()], dtype=x.dtype),)
    return run


@kernel_rule('l1_norm_grad')
def _l1_norm_grad(spec):
    def run(x, dout):
        return (np.sign(x) * np.asarray(dout, dtype=x.dtype).reshape(-1)[0],)
    return run


# --- SelectedRows helpers ------------------------------------------------------------------------------------------

defop('merge_selected_rows', ['X'], ['Out'])


@shape_rule('merge_selected_rows')
def _merge_selected_rows_shape(ctx):
    x = ctx.input_var('X')
    ctx.set_output('Out', x.shape if x.has_shape() else None, x.dtype, type=VarType.SELECTED_ROWS)


@kernel_rule('merge_selected_rows')
def _merge_selected_rows(spec):
    def run(x):
        if not isinstance(x, SelectedRows):
            raise TypeError("operator 'merge_selected_rows' needs a SelectedRows input, got %s" % type(x).__name__)
        rows, merged = K.merge_rows(x.rows, x.values)
        return (SelectedRows(rows, merged, x.height),)
    return run


defop('get_tensor_from_selected_rows', ['X'], ['Out'])


@shape_rule('get_tensor_from_selected_rows')
def _get_tensor_shape(ctx):
    x = ctx.input_var('X')
    shape = (-1,) + tuple(x.shape[1:]) if x.has_shape() else None
    ctx.set_output('Out', shape, x.dtype, type=VarType.LOD_TENSOR)


@kernel_rule('get_tensor_from_selected_rows')
def _get_tensor_from_selected_rows(spec):
    def run(x):
        if not isinstance(x, SelectedRows):
            raise TypeError("operator 'get_tensor_from_selected_rows' needs a SelectedRows input, got %s"
                            % type(x).__name__)
        return (x.values,)
    return run


# --- lamb ----------------------------------------------------------------------------------------------------------
# Paddle 1.8's op has no Beta1PowOut/Beta2PowOut (its kernel never touches the pows); Paddle 2.x's has them and
# advances the pows. `bias_correction` is ours, as adam's `scaled_epsilon`: False is 1.8's kernel, True 2.x's (see
# kernels/optimizer.py); paddle.optimizer.Lamb sets it, fluid.optimizer.Lamb does not.

defop('lamb', ['Param', 'Grad', 'LearningRate', 'Moment1', 'Moment2', 'Beta1Pow', 'Beta2Pow'],
      ['ParamOut', 'Moment1Out', 'Moment2Out', 'Beta1PowOut', 'Beta2PowOut'],
      {'beta1': 0.9, 'beta2': 0.999, 'epsilon': 1e-6, 'weight_decay': 0.01, 'always_adapt': False,
       'multi_precision': False, 'bias_correction': False},
      dispensable=['Beta1PowOut', 'Beta2PowOut'], inplace=_ADAM_INPLACE)
shape_rule('lamb')(_ADAM_SHAPES)


@kernel_rule('lamb')
def _lamb(spec):
    beta1, beta2, eps = _f32(spec.attr('beta1')), _f32(spec.attr('beta2')), _f32(spec.attr('epsilon'))
    decay = _f32(spec.attr('weight_decay'))
    bias_correction, always_adapt = bool(spec.attr('bias_correction')), bool(spec.attr('always_adapt'))
    advance = spec.has_output('Beta1PowOut') and spec.has_output('Beta2PowOut')

    def run(param, grad, lr, m1, m2, b1p, b2p):
        param, m1, m2 = _writable(param), _writable(m1), _writable(m2)
        if advance:
            b1p, b2p = _writable(b1p), _writable(b2p)
        if isinstance(grad, SelectedRows):
            _check_rows('lamb', grad, param)
            K.lamb_sparse(param, grad.rows, grad.values, m1, m2, lr, b1p, b2p, beta1, beta2, eps, decay,
                          bias_correction, always_adapt, advance)
        else:
            K.lamb(param, grad, m1, m2, lr, b1p, b2p, beta1, beta2, eps, decay, bias_correction, always_adapt,
                   advance)
        return param, m1, m2, (b1p if advance else None), (b2p if advance else None)
    return run


# --- ftrl ----------------------------------------------------------------------------------------------------------
# Dense gradients only: Paddle 1.8's InferShape rejects a SelectedRows Grad when the op is appended.

defop('ftrl', ['Param', 'SquaredAccumulator', 'LinearAccumulator', 'Grad', 'LearningRate'],
      ['ParamOut', 'SquaredAccumOut', 'LinearAccumOut'], {'l1': 0.0, 'l2': 0.0, 'lr_power': -0.5},
      inplace={'ParamOut': 'Param', 'SquaredAccumOut': 'SquaredAccumulator',
               'LinearAccumOut': 'LinearAccumulator'})
_FTRL_SHAPES = _update_shape_rule(('ParamOut', 'Param'), ('SquaredAccumOut', 'SquaredAccumulator'),
                                  ('LinearAccumOut', 'LinearAccumulator'))


@shape_rule('ftrl')
def _ftrl_shape(ctx):
    grad = ctx.input_var('Grad')
    if grad is not None and grad.type == VarType.SELECTED_ROWS:
        raise ValueError("operator 'ftrl': The input var's type should be LoDTensor, but the received is %s "
                         "(SelectedRows); ftrl supports only dense gradients" % grad.name)
    _FTRL_SHAPES(ctx)


@kernel_rule('ftrl')
def _ftrl(spec):
    l1, l2, lr_power = _f32(spec.attr('l1')), _f32(spec.attr('l2')), _f32(spec.attr('lr_power'))

    def run(param, sq_accum, lin_accum, grad, lr):
        if isinstance(grad, SelectedRows):
            raise TypeError("operator 'ftrl' supports only dense (LoDTensor) gradients")
        param, sq_accum, lin_accum = _writable(param), _writable(sq_accum), _writable(lin_accum)
        K.ftrl(param, grad, sq_accum, lin_accum, lr, l1, l2, lr_power)
        return param, sq_accum, lin_accum
    return run


# --- average_accumulates (fluid.optimizer.ModelAverage) ------------------------------------------------------------
# The sums are updated in place (each out_* is its in_* variable), as Paddle's kernel does through aliased tensors.

_AVG_PAIRS = (('out_sum_1', 'in_sum_1'), ('out_sum_2', 'in_sum_2'), ('out_sum_3', 'in_sum_3'),
              ('out_num_accumulates', 'in_num_accumulates'), ('out_old_num_accumulates', 'in_old_num_accumulates'),
              ('out_num_updates', 'in_num_updates'))

defop('average_accumulates', ['param'] + [i for _, i in _AVG_PAIRS], [o for o, _ in _AVG_PAIRS],
      {'average_window': 0.0, 'max_average_window': 2 ** 63 - 1, 'min_average_window': 10000},
      inplace=dict(_AVG_PAIRS))


@shape_rule('average_accumulates')
def _average_accumulates_shape(ctx):
    low, high = int(ctx.attr('min_average_window')), int(ctx.attr('max_average_window'))
    if low > high:
        raise ValueError("operator 'average_accumulates' (param '%s'): min_average_window shouldn't be larger than "
                         "max_average_window (min_average_window is %d, max_average_window is %d)"
                         % (ctx.input_var('param').name, low, high))
    for out_slot, in_slot in _AVG_PAIRS:
        if ctx.has_output(out_slot):
            src = ctx.input_var(in_slot)
            ctx.set_output(out_slot, src.shape if src.has_shape() else None, src.dtype)


@kernel_rule('average_accumulates')
def _average_accumulates(spec):
    window = _f32(spec.attr('average_window'))
    low, high = int(spec.attr('min_average_window')), int(spec.attr('max_average_window'))

    def run(param, sum_1, sum_2, sum_3, num_accumulates, old_num_accumulates, num_updates):
        sums = [_writable(s) for s in (sum_1, sum_2, sum_3)]
        counts = [_writable(c) for c in (num_accumulates, old_num_accumulates, num_updates)]
        return K.average_accumulates(param, *sums, *counts, window, low, high)
    return run


# --- segment rules: dense updates inside compiled segments (a SelectedRows gradient runs the op's own kernel) -----

def _grad_is_dense(spec) -> bool:
    grad = spec.input_var('Grad')
    return grad is not None and grad.type != VarType.SELECTED_ROWS


@segment_rule('sgd')
def _sgd_segment(spec):
    if not _grad_is_dense(spec):
        return None
    return segment_op(SO.sgd, ['Param', 'LearningRate', 'Grad'], ['ParamOut'], inplace={'ParamOut': 'Param'},
                      fusion=('grad_parts', 2, SO.sgd_parts, SO.sgd_parts_ref))


@segment_rule('momentum')
def _momentum_segment(spec):
    if not _grad_is_dense(spec) or spec.attr('regularization_method') == 'l2_decay':
        return None
    return segment_op(SO.momentum, ['Param', 'Grad', 'Velocity', 'LearningRate'], ['ParamOut', 'VelocityOut'],
                      (_f32(spec.attr('mu')), bool(spec.attr('use_nesterov'))),
                      inplace={'ParamOut': 'Param', 'VelocityOut': 'Velocity'},
                      fusion=('grad_parts', 1, SO.momentum_parts, SO.momentum_parts_ref))


@segment_rule('adam')
def _adam_segment(spec):
    if not _grad_is_dense(spec) or spec.has_input('Beta1Tensor') or spec.has_input('Beta2Tensor'):
        return None
    outputs = [slot if spec.has_output(slot) else None for slot in _ADAM_OUTPUTS]
    return segment_op(SO.adam, _ADAM_INPUTS[:7], outputs,
                      (_f32(spec.attr('beta1')), _f32(spec.attr('beta2')), _f32(spec.attr('epsilon')),
                       not spec.attr('use_global_beta_pow'), bool(spec.attr('scaled_epsilon'))),
                      inplace=_ADAM_INPLACE, fusion=('grad_parts', 1, SO.adam_parts, SO.adam_parts_ref))


# --- adadelta, lars_momentum, dpsgd (dense gradients only, as Paddle's CPU kernels) -----------------------------

def _dense_only(op_type: str, grad) -> None:
    if isinstance(grad, SelectedRows):
        raise TypeError("operator '%s' supports only dense (LoDTensor) gradients, got a SelectedRows gradient"
                        % op_type)


# Paddle 1.8's adadelta has no LearningRate (p += update); 2.x's reads it (p += lr * update)
defop('adadelta', ['Param', 'Grad', 'AvgSquaredGrad', 'AvgSquaredUpdate', 'LearningRate'],
      ['ParamOut', 'AvgSquaredGradOut', 'AvgSquaredUpdateOut'], {'rho': 0.95, 'epsilon': 1e-6,
                                                                  'multi_precision': False},
      dispensable=['LearningRate'],
      inplace={'ParamOut': 'Param', 'AvgSquaredGradOut': 'AvgSquaredGrad', 'AvgSquaredUpdateOut': 'AvgSquaredUpdate'})
shape_rule('adadelta')(_update_shape_rule(('ParamOut', 'Param'), ('AvgSquaredGradOut', 'AvgSquaredGrad'),
                                          ('AvgSquaredUpdateOut', 'AvgSquaredUpdate')))


@kernel_rule('adadelta')
def _adadelta(spec):
    rho, eps = _f32(spec.attr('rho')), _f32(spec.attr('epsilon'))

    def run(param, grad, avg_grad, avg_update, lr):
        _dense_only('adadelta', grad)
        param, avg_grad, avg_update = _writable(param), _writable(avg_grad), _writable(avg_update)
        return K.adadelta(param, grad, avg_grad, avg_update, rho, eps, lr)
    return run


defop('lars_momentum', ['Param', 'Grad', 'Velocity', 'LearningRate'], ['ParamOut', 'VelocityOut'],
      {'mu': 0.9, 'lars_coeff': 0.001, 'lars_weight_decay': 0.0005, 'epsilon': 0.0},
      inplace={'ParamOut': 'Param', 'VelocityOut': 'Velocity'})
shape_rule('lars_momentum')(_update_shape_rule(('ParamOut', 'Param'), ('VelocityOut', 'Velocity')))


@kernel_rule('lars_momentum')
def _lars_momentum(spec):
    mu, coeff, decay = _f32(spec.attr('mu')), _f32(spec.attr('lars_coeff')), _f32(spec.attr('lars_weight_decay'))

    def run(param, grad, velocity, lr):
        _dense_only('lars_momentum', grad)
        param, velocity = _writable(param), _writable(velocity)
        return K.lars_momentum(param, grad, velocity, lr, mu, coeff, decay)
    return run


defop('dpsgd', ['Param', 'Grad', 'LearningRate'], ['ParamOut'],
      {'clip': 10.0, 'batch_size': 16.0, 'sigma': 1.0, 'seed': 0}, inplace={'ParamOut': 'Param'}, stateful=True)
shape_rule('dpsgd')(_update_shape_rule(('ParamOut', 'Param')))


@kernel_rule('dpsgd')
def _dpsgd(spec):
    # seed 0 means Paddle's time(NULL): a new seed each second; any other seed gives the same noise every run
    clip, batch_size, sigma = _f32(spec.attr('clip')), _f32(spec.attr('batch_size')), _f32(spec.attr('sigma'))
    seed = int(spec.attr('seed'))

    def run(param, grad, lr):
        _dense_only('dpsgd', grad)
        param = _writable(param)
        noise = K.dpsgd_noise(seed if seed else int(time.time()), sigma)
        return (K.dpsgd(param, grad, lr, clip, batch_size, noise),)
    return run
