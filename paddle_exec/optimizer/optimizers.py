"""The optimizers of `paddle.optimizer` (2.x signatures); `fluid.optimizer` subclasses them with 1.x signatures.

Each creates its accumulators (Paddle's names: `velocity`, `moment1`, `moment2`, `beta1_pow_acc`, `beta2_pow_acc`,
`moment`, `momentum`, `mean_square`, `mean_grad`, `inf_norm`,
`_avg_squared_grad`, `_avg_squared_update`) and appends one update op per parameter; see base.py
for the pass structure and ops/optimizer.py for the update rules.

Version differences, selected by `_paddle2` (False in fluid.optimizer):
- Adam: Paddle 2.x scales epsilon by sqrt(1 - beta2^t) (the op's `scaled_epsilon`);
- Momentum: 2.x fuses an L2Decay weight decay into the momentum op (`regularization_method='l2_decay'`) instead
  of appending scale + sum ops.
- Adadelta: 2.x multiplies the update by the learning rate (the op's LearningRate input); 1.8's op has no
  LearningRate and ignores it.
- Lamb: 2.x bias-corrects the moments and advances the beta pows (the op's `bias_correction`, Beta1PowOut and
  Beta2PowOut); 1.8's op has neither and leaves the pows at their initial values.
"""
from __future__ import annotations

from ..framework.program import name_scope
from ..framework.variable import Variable
from ..regularizer import L2DecayRegularizer
from .base import Optimizer

__all__ = ['SGD', 'Momentum', 'Adam', 'AdamW', 'Adagrad', 'RMSProp', 'Adamax', 'DecayedAdagrad', 'Lamb', 'Adadelta']


def _f(value, name: str) -> float:
    if value is None:
        raise ValueError('%s is not set.' % name)
    return value if isinstance(value, Variable) else float(value)


class SGD(Optimizer):
    """param -= lr * grad (a sparse gradient updates only its rows)."""
    type = 'sgd'

    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None,
                 multi_precision=False, name=None, *, parameter_list=None, regularization=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name, parameter_list=parameter_list,
                         regularization=regularization)

    def _append_optimize_op(self, block, param_and_grad):
        param, grad = param_and_grad
        return block.append_op('sgd', {'Param': [param], 'Grad': [grad],
                                       'LearningRate': [self._create_param_lr(param_and_grad)]},
                               {'ParamOut': [param]})


class Momentum(Optimizer):
    """velocity = mu * velocity + grad; param -= lr * velocity (Nesterov: param -= (grad + mu * velocity) * lr)."""
    type = 'momentum'
    _velocity_acc_str = 'velocity'

    def __init__(self, learning_rate=0.001, momentum=0.9, parameters=None, use_nesterov=False, weight_decay=None,
                 grad_clip=None, multi_precision=False, rescale_grad=1.0, use_multi_tensor=False, name=None, *,
                 parameter_list=None, regularization=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name, parameter_list=parameter_list,
                         regularization=regularization)
        self._momentum = _f(momentum, 'momentum')
        self._use_nesterov = bool(use_nesterov)
        self._rescale_grad = float(rescale_grad)
        # 2.x: an L2Decay weight decay is fused into the momentum op, not appended as scale + sum
        self._regularization_method, self._regularization_coeff = '', 0.0
        if self._paddle2 and isinstance(self.regularization, L2DecayRegularizer):
            self._regularization_method = 'l2_decay'
            self._regularization_coeff = self.regularization._regularization_coeff
            self.regularization = None

    def _create_regularization_of_grad(self, param, grad, regularization=None):
        if self._paddle2 and isinstance(getattr(param, 'regularizer', None), L2DecayRegularizer):
            return grad  # fused into the op below
        return super()._create_regularization_of_grad(param, grad, regularization)

    def _create_accumulators(self, block, parameters):
        for p in parameters:
            self._add_accumulator(self._velocity_acc_str, p)

    def _append_optimize_op(self, block, param_and_grad):
        param, grad = param_and_grad
        velocity = self._get_accumulator(self._velocity_acc_str, param)
        attrs = {'mu': self._momentum, 'use_nesterov': self._use_nesterov}
        if self._paddle2:
            method, coeff = self._regularization_method, self._regularization_coeff
            reg = getattr(param, 'regularizer', None)
            if isinstance(reg, L2DecayRegularizer):
                method, coeff = 'l2_decay', reg._regularization_coeff
            elif reg is not None:
                method, coeff = '', 0.0  # the parameter's own regularizer already ran as ops
            attrs.update({'regularization_method': method, 'regularization_coeff': coeff,
                          'rescale_grad': self._rescale_grad, 'multi_precision': False})
        return block.append_op('momentum', {'Param': [param], 'Grad': [grad], 'Velocity': [velocity],
                                            'LearningRate': [self._create_param_lr(param_and_grad)]},
                               {'ParamOut': [param], 'VelocityOut': [velocity]}, attrs)


class Adam(Optimizer):
    """Adam; the op advances the beta pow accumulators itself (Beta1PowOut/Beta2PowOut)."""
    type = 'adam'
    _moment1_acc_str = 'moment1'
    _moment2_acc_str = 'moment2'
    _beta1_pow_acc_str = 'beta1_pow_acc'
    _beta2_pow_acc_str = 'beta2_pow_acc'

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, parameters=None,
                 weight_decay=None, grad_clip=None, lazy_mode=False, multi_precision=False, use_multi_tensor=False,
                 name=None, *, parameter_list=None, regularization=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name, parameter_list=parameter_list,
                         regularization=regularization)
        self._beta1 = _f(beta1, 'beta1')
        self._beta2 = _f(beta2, 'beta2')
        self._epsilon = _f(epsilon, 'epsilon')
        for label, beta in (('beta1', self._beta1), ('beta2', self._beta2)):
            if not isinstance(beta, Variable) and not 0 <= beta < 1:
                raise ValueError('Invaild value of %s, expect %s in [0,1).' % (label, label))
        if not isinstance(self._epsilon, Variable) and self._epsilon < 0:
            raise ValueError('Invaild value of epsilon, expect epsilon >= 0.')
        self._lazy_mode = bool(lazy_mode)

    def _create_accumulators(self, block, parameters):
        for p in parameters:
            self._add_accumulator(self._moment1_acc_str, p)
            self._add_accumulator(self._moment2_acc_str, p)
            self._add_accumulator(self._beta1_pow_acc_str, p, shape=[1],
                                  fill_value=0.9 if isinstance(self._beta1, Variable) else self._beta1)
            self._add_accumulator(self._beta2_pow_acc_str, p, shape=[1],
                                  fill_value=0.999 if isinstance(self._beta2, Variable) else self._beta2)

    def _adam_io(self, param_and_grad):
        param, grad = param_and_grad
        m1 = self._get_accumulator(self._moment1_acc_str, param)
        m2 = self._get_accumulator(self._moment2_acc_str, param)
        b1p = self._get_accumulator(self._beta1_pow_acc_str, param)
        b2p = self._get_accumulator(self._beta2_pow_acc_str, param)
        inputs = {'Param': [param], 'Grad': [grad], 'LearningRate': [self._create_param_lr(param_and_grad)],
                  'Moment1': [m1], 'Moment2': [m2], 'Beta1Pow': [b1p], 'Beta2Pow': [b2p]}
        outputs = {'ParamOut': [param], 'Moment1Out': [m1], 'Moment2Out': [m2], 'Beta1PowOut': [b1p],
                   'Beta2PowOut': [b2p]}
        attrs = {'epsilon': self._epsilon, 'lazy_mode': self._lazy_mode, 'min_row_size_to_use_multithread': 1000}
        for label, slot, beta in (('beta1', 'Beta1Tensor', self._beta1), ('beta2', 'Beta2Tensor', self._beta2)):
            if isinstance(beta, Variable):
                inputs[slot] = [beta]
            else:
                attrs[label] = beta
        return inputs, outputs, attrs

    def _append_optimize_op(self, block, param_and_grad):
        inputs, outputs, attrs = self._adam_io(param_and_grad)
        attrs['scaled_epsilon'] = self._paddle2
        return block.append_op('adam', inputs, outputs, attrs)


class AdamW(Adam):
    """Paddle 2.x AdamW (the `adamw` op): param -= lr * lr_ratio * coeff * param, then the 2.x Adam update.
    `apply_decay_param_fun(name) -> bool` picks the parameters that decay; `lr_ratio(param) -> float`."""
    type = 'adamw'

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, parameters=None,
                 weight_decay=0.01, lr_ratio=None, apply_decay_param_fun=None, grad_clip=None, lazy_mode=False,
                 multi_precision=False, name=None, *, parameter_list=None):
        if isinstance(weight_decay, int) and not isinstance(weight_decay, bool):
            weight_decay = float(weight_decay)
        if not isinstance(weight_decay, (float, Variable)):
            raise TypeError('weight_decay should be float or Tensor.')
        if isinstance(weight_decay, Variable):
            raise NotImplementedError('AdamW: a Variable weight_decay is not supported by paddle_exec; give a float')
        if lr_ratio is not None and not callable(lr_ratio):
            raise TypeError('lr_ratio must be a function of the parameter, got %r' % (lr_ratio,))
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, None, grad_clip, lazy_mode,
                         multi_precision, name=name, parameter_list=parameter_list)
        self._weight_decay = weight_decay
        self._lr_ratio = lr_ratio
        self._apply_decay_param_fun = apply_decay_param_fun

    def _append_optimize_op(self, block, param_and_grad):
        param = param_and_grad[0]
        inputs, outputs, attrs = self._adam_io(param_and_grad)
        with_decay = self._apply_decay_param_fun is None or bool(self._apply_decay_param_fun(param.name))
        attrs.update({'multi_precision': False, 'with_decay': with_decay, 'coeff': self._weight_decay,
                      'lr_ratio': 1.0 if self._lr_ratio is None else float(self._lr_ratio(param))})
        return block.append_op('adamw', inputs, outputs, attrs)

    def __str__(self):
        return 'Weight Decay, params: ' + ','.join(p.name if isinstance(p, Variable) else str(p)
                                                   for p in self._parameter_list or [])


class Adagrad(Optimizer):
    """moment += grad^2; param -= lr * grad / (sqrt(moment) + epsilon)."""
    type = 'adagrad'
    _moment_acc_str = 'moment'

    def __init__(self, learning_rate, epsilon=1e-6, parameters=None, weight_decay=None, grad_clip=None, name=None,
                 initial_accumulator_value=0.0, *, parameter_list=None, regularization=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name, parameter_list=parameter_list,
                         regularization=regularization)
        self._epsilon = _f(epsilon, 'epsilon')
        self.initial_accumulator_value = float(initial_accumulator_value)

    def _create_accumulators(self, block, parameters):
        for p in parameters:
            self._add_accumulator(self._moment_acc_str, p, fill_value=self.initial_accumulator_value)

    def _append_optimize_op(self, block, param_and_grad):
        param, grad = param_and_grad
        moment = self._get_accumulator(self._moment_acc_str, param)
        return block.append_op('adagrad', {'Param': [param], 'Grad': [grad], 'Moment': [moment],
                                           'LearningRate': [self._create_param_lr(param_and_grad)]},
                               {'ParamOut': [param], 'MomentOut': [moment]}, {'epsilon': self._epsilon})


class DecayedAdagrad(Optimizer):
    """moment = decay * moment + (1 - decay) * grad^2; param -= lr * grad / (sqrt(moment) + epsilon)."""
    type = 'decayed_adagrad'
    _moment_acc_str = 'moment'

    def __init__(self, learning_rate, decay=0.95, epsilon=1e-6, parameters=None, weight_decay=None, grad_clip=None,
                 name=None, *, parameter_list=None, regularization=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name, parameter_list=parameter_list,
                         regularization=regularization)
        self._decay = _f(decay, 'decay')
        self._epsilon = _f(epsilon, 'epsilon')

    def _create_accumulators(self, block, parameters):
        for p in parameters:
            self._add_accumulator(self._moment_acc_str, p)

    def _append_optimize_op(self, block, param_and_grad):
        param, grad = param_and_grad
        moment = self._get_accumulator(self._moment_acc_str, param)
        return block.append_op('decayed_adagrad', {'Param': [param], 'Grad': [grad], 'Moment': [moment],
                                                   'LearningRate': [self._create_param_lr(param_and_grad)]},
                               {'ParamOut': [param], 'MomentOut': [moment]},
                               {'epsilon': self._epsilon, 'decay': self._decay})


class RMSProp(Optimizer):
    """mean_square = rho*ms + (1-rho)*g^2; momentum = mom*momentum + lr*g/sqrt(ms + eps) (centered: ms - mg^2);
    param -= momentum."""
    type = 'rmsprop'
    _momentum_acc_str = 'momentum'
    _mean_square_acc_str = 'mean_square'
    _mean_grad_acc_str = 'mean_grad'

    def __init__(self, learning_rate, rho=0.95, epsilon=1e-6, momentum=0.0, centered=False, parameters=None,
                 weight_decay=None, grad_clip=None, name=None, *, parameter_list=None, regularization=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name, parameter_list=parameter_list,
                         regularization=regularization)
        self._rho = _f(rho, 'rho')
        self._epsilon = _f(epsilon, 'epsilon')
        self._momentum = _f(momentum, 'momentum')
        self._centered = bool(centered)

    def _create_accumulators(self, block, parameters):
        for p in parameters:
            self._add_accumulator(self._momentum_acc_str, p)
            self._add_accumulator(self._mean_square_acc_str, p)
            self._add_accumulator(self._mean_grad_acc_str, p)

    def _append_optimize_op(self, block, param_and_grad):
        param, grad = param_and_grad
        mom = self._get_accumulator(self._momentum_acc_str, param)
        ms = self._get_accumulator(self._mean_square_acc_str, param)
        mg = self._get_accumulator(self._mean_grad_acc_str, param)
        return block.append_op('rmsprop', {'Param': [param], 'Grad': [grad], 'Moment': [mom], 'MeanSquare': [ms],
                                           'MeanGrad': [mg], 'LearningRate': [self._create_param_lr(param_and_grad)]},
                               {'ParamOut': [param], 'MomentOut': [mom], 'MeanSquareOut': [ms],
                                'MeanGradOut': [mg]},
                               {'epsilon': self._epsilon, 'decay': self._rho, 'momentum': self._momentum,
                                'centered': self._centered})


class Adamax(Optimizer):
    """Adamax; the beta1 pow accumulator is advanced by a `scale` op after all updates (`_finish_update`)."""
    type = 'adamax'
    _moment_acc_str = 'moment'
    _inf_norm_acc_str = 'inf_norm'
    _beta1_pow_acc_str = 'beta1_pow_acc'

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, parameters=None,
                 weight_decay=None, grad_clip=None, name=None, *, parameter_list=None, regularization=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name, parameter_list=parameter_list,
                         regularization=regularization)
        self._beta1 = _f(beta1, 'beta1')
        self._beta2 = _f(beta2, 'beta2')
        self._epsilon = _f(epsilon, 'epsilon')

    def _create_accumulators(self, block, parameters):
        for p in parameters:
            self._add_accumulator(self._moment_acc_str, p)
            self._add_accumulator(self._inf_norm_acc_str, p)
            self._add_accumulator(self._beta1_pow_acc_str, p, fill_value=self._beta1, shape=[1])

    def _append_optimize_op(self, block, param_and_grad):
        param, grad = param_and_grad
        moment = self._get_accumulator(self._moment_acc_str, param)
        inf_norm = self._get_accumulator(self._inf_norm_acc_str, param)
        b1p = self._get_accumulator(self._beta1_pow_acc_str, param)
        return block.append_op('adamax', {'Param': [param], 'Grad': [grad],
                                          'LearningRate': [self._create_param_lr(param_and_grad)],
                                          'Moment': [moment], 'InfNorm': [inf_norm], 'Beta1Pow': [b1p]},
                               {'ParamOut': [param], 'MomentOut': [moment], 'InfNormOut': [inf_norm]},
                               {'beta1': self._beta1, 'beta2': self._beta2, 'epsilon': self._epsilon})

    def _finish_update(self, block, parameters_and_grads):
        for param, grad in parameters_and_grads:
            if grad is None or not param.trainable:
                continue
            with param.block.program._optimized_guard([param, grad]), name_scope('adamx'):
                b1p = self._get_accumulator(self._beta1_pow_acc_str, param)
                block.append_op('scale', {'X': [b1p]}, {'Out': [b1p]}, {'scale': self._beta1})


class Lamb(Adam):
    """LAMB: Adam's moments, then a layer-wise trust ratio ||param|| / ||update||; update = m1 / (sqrt(m2) + eps) +
    lamb_weight_decay * param. `exclude_from_weight_decay_fn(param) -> bool` turns the decay off per parameter.
    Accumulators as Adam's (moment1, moment2, beta1_pow_acc, beta2_pow_acc)."""
    type = 'lamb'

    def __init__(self, learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 parameters=None, grad_clip=None, exclude_from_weight_decay_fn=None, multi_precision=False,
                 always_adapt=False, name=None, *, parameter_list=None, regularization=None):
        for label, value in (('learning_rate', learning_rate), ('lamb_weight_decay', lamb_weight_decay),
                             ('beta1', beta1), ('beta2', beta2), ('epsilon', epsilon)):
            if value is None:
                raise AssertionError('Lamb: %s must not be None' % label)
        if isinstance(beta1, Variable) or isinstance(beta2, Variable):
            raise NotImplementedError('Lamb: beta1/beta2 given as Variables are not supported by paddle_exec; give '
                                      'floats')
        if exclude_from_weight_decay_fn is not None and not callable(exclude_from_weight_decay_fn):
            raise TypeError('exclude_from_weight_decay_fn must be a function of the parameter, got %r'
                            % (exclude_from_weight_decay_fn,))
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, None, grad_clip, name=name,
                         parameter_list=parameter_list, regularization=regularization)
        self._lamb_weight_decay = float(lamb_weight_decay)
        self._exclude_from_weight_decay_fn = exclude_from_weight_decay_fn
        self._always_adapt = bool(always_adapt)

    def _append_optimize_op(self, block, param_and_grad):
        param = param_and_grad[0]
        inputs, outputs, _ = self._adam_io(param_and_grad)
        excluded = self._exclude_from_weight_decay_fn is not None and self._exclude_from_weight_decay_fn(param)
        attrs = {'beta1': self._beta1, 'beta2': self._beta2, 'epsilon': self._epsilon,
                 'weight_decay': 0.0 if excluded else self._lamb_weight_decay}
        if self._paddle2:
            attrs.update({'always_adapt': self._always_adapt, 'multi_precision': False, 'bias_correction': True})
        else:  # Paddle 1.8's lamb op: no pow outputs, the pows stay at beta1/beta2
            del outputs['Beta1PowOut'], outputs['Beta2PowOut']
        return block.append_op('lamb', inputs, outputs, attrs)


class Adadelta(Optimizer):
    """E[g^2] = rho*E[g^2] + (1-rho)*g^2; update = -sqrt((E[u^2] + eps) / (E[g^2] + eps)) * g;
    E[u^2] = rho*E[u^2] + (1-rho)*update^2; param += lr * update (Paddle 1.8: param += update)."""
    type = 'adadelta'
    _avg_squared_grad_acc_str = '_avg_squared_grad'
    _avg_squared_update_acc_str = '_avg_squared_update'

    def __init__(self, learning_rate=0.001, epsilon=1.0e-6, rho=0.95, parameters=None, weight_decay=None,
                 grad_clip=None, name=None, *, parameter_list=None, regularization=None):
        if learning_rate is None:
            raise ValueError('learning_rate is not set.')
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name, parameter_list=parameter_list,
                         regularization=regularization)
        self._epsilon = _f(epsilon, 'epsilon')
        self._rho = _f(rho, 'rho')

    def _create_accumulators(self, block, parameters):
        for p in parameters:
            self._add_accumulator(self._avg_squared_grad_acc_str, p)
            self._add_accumulator(self._avg_squared_update_acc_str, p)

    def _append_optimize_op(self, block, param_and_grad):
        param, grad = param_and_grad
        avg_grad = self._get_accumulator(self._avg_squared_grad_acc_str, param)
        avg_update = self._get_accumulator(self._avg_squared_update_acc_str, param)
        inputs = {'Param': [param], 'Grad': [grad], 'AvgSquaredGrad': [avg_grad], 'AvgSquaredUpdate': [avg_update]}
        attrs = {'epsilon': self._epsilon, 'rho': self._rho}
        if self._paddle2:
            inputs['LearningRate'] = [self._create_param_lr(param_and_grad)]
            attrs['multi_precision'] = False
        return block.append_op('adadelta', inputs,
                               {'ParamOut': [param], 'AvgSquaredGradOut': [avg_grad],
                                'AvgSquaredUpdateOut': [avg_update]}, attrs)
