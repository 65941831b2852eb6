"""fluid.optimizer: the Paddle 1.8 optimizer names and signatures, over the classes of paddle_exec.optimizer.

Each 1.x class subclasses its 2.x counterpart with `_paddle2 = False` (Paddle 1.8's numerics: Adam's plain epsilon,
Momentum's weight decay as scale + sum ops) and takes 1.8's positional order (`parameter_list`, `regularization`);
the 2.x keywords (`parameters`, `weight_decay`) are accepted too.

FtrlOptimizer exists only here (paddle.optimizer 2.x has no Ftrl). ModelAverage and ExponentialMovingAverage live in
paddle_exec.optimizer.averaging, LarsMomentum, Dpsgd and DGCMomentum in paddle_exec.optimizer.legacy, the wrapping
optimizers (Lookahead, Recompute, Pipeline) in paddle_exec.optimizer.meta; they are re-exported here, where Paddle
1.8 has them.
"""
from __future__ import annotations

from ..optimizer import optimizers as _v2
from ..optimizer.averaging import ExponentialMovingAverage, ModelAverage
from ..optimizer.base import Optimizer, _either
from ..optimizer.legacy import DGCMomentumOptimizer, DpsgdOptimizer, LarsMomentumOptimizer
from ..optimizer.meta import LookaheadOptimizer, PipelineOptimizer, RecomputeOptimizer

__all__ = ['SGD', 'Momentum', 'Adagrad', 'Adam', 'Adamax', 'DecayedAdagrad', 'RMSProp', 'SGDOptimizer',
           'MomentumOptimizer', 'AdagradOptimizer', 'AdamOptimizer', 'AdamaxOptimizer', 'DecayedAdagradOptimizer',
           'RMSPropOptimizer', 'Optimizer', 'Lamb', 'LambOptimizer', 'Ftrl', 'FtrlOptimizer', 'ModelAverage',
           'ExponentialMovingAverage', 'Adadelta', 'AdadeltaOptimizer', 'LarsMomentum', 'LarsMomentumOptimizer',
           'Dpsgd', 'DpsgdOptimizer', 'DGCMomentumOptimizer', 'LookaheadOptimizer', 'RecomputeOptimizer',
           'PipelineOptimizer']


class SGDOptimizer(_v2.SGD):
    _paddle2 = False

    def __init__(self, learning_rate, parameter_list=None, regularization=None, grad_clip=None, name=None, *,
                 parameters=None, weight_decay=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name=name,
                         parameter_list=parameter_list, regularization=regularization)


class MomentumOptimizer(_v2.Momentum):
    _paddle2 = False

    def __init__(self, learning_rate, momentum, parameter_list=None, use_nesterov=False, regularization=None,
                 grad_clip=None, name=None, *, parameters=None, weight_decay=None):
        super().__init__(learning_rate, momentum, parameters, use_nesterov, weight_decay, grad_clip, name=name,
                         parameter_list=parameter_list, regularization=regularization)


class AdagradOptimizer(_v2.Adagrad):
    _paddle2 = False

    def __init__(self, learning_rate, epsilon=1.0e-6, parameter_list=None, regularization=None, grad_clip=None,
                 name=None, initial_accumulator_value=0.0, *, parameters=None, weight_decay=None):
        super().__init__(learning_rate, epsilon, parameters, weight_decay, grad_clip, name,
                         initial_accumulator_value, parameter_list=parameter_list, regularization=regularization)


class AdamOptimizer(_v2.Adam):
    _paddle2 = False

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, parameter_list=None,
                 regularization=None, grad_clip=None, name=None, lazy_mode=False, *, parameters=None,
                 weight_decay=None):
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, weight_decay, grad_clip, lazy_mode,
                         name=name, parameter_list=parameter_list, regularization=regularization)


class AdamaxOptimizer(_v2.Adamax):
    _paddle2 = False

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, parameter_list=None,
                 regularization=None, grad_clip=None, name=None, *, parameters=None, weight_decay=None):
        super().__init__(learning_rate, beta1, beta2, epsilon, parameters, weight_decay, grad_clip, name,
                         parameter_list=parameter_list, regularization=regularization)


class DecayedAdagradOptimizer(_v2.DecayedAdagrad):
    _paddle2 = False

    def __init__(self, learning_rate, decay=0.95, epsilon=1.0e-6, parameter_list=None, regularization=None,
                 grad_clip=None, name=None, *, parameters=None, weight_decay=None):
        super().__init__(learning_rate, decay, epsilon, parameters, weight_decay, grad_clip, name,
                         parameter_list=parameter_list, regularization=regularization)


class RMSPropOptimizer(_v2.RMSProp):
    _paddle2 = False

    def __init__(self, learning_rate, rho=0.95, epsilon=1.0e-6, momentum=0.0, centered=False, parameter_list=None,
                 regularization=None, grad_clip=None, name=None, *, parameters=None, weight_decay=None):
        super().__init__(learning_rate, rho, epsilon, momentum, centered, parameters, weight_decay, grad_clip, name,
                         parameter_list=parameter_list, regularization=regularization)


class LambOptimizer(_v2.Lamb):
    """Paddle 1.8's lamb: no bias correction, the beta pow accumulators are created but never advanced."""
    _paddle2 = False

    def __init__(self, learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 parameter_list=None, regularization=None, grad_clip=None, exclude_from_weight_decay_fn=None,
                 name=None, *, parameters=None, weight_decay=None):
        regularization = _either(regularization, weight_decay, 'regularization', 'weight_decay')
        super().__init__(learning_rate, lamb_weight_decay, beta1, beta2, epsilon, parameters, grad_clip,
                         exclude_from_weight_decay_fn, name=name, parameter_list=parameter_list,
                         regularization=regularization)


class AdadeltaOptimizer(_v2.Adadelta):
    """Paddle 1.8's adadelta: the update is not multiplied by the learning rate (the op has no LearningRate)."""
    _paddle2 = False

    def __init__(self, learning_rate, epsilon=1.0e-6, rho=0.95, parameter_list=None, regularization=None,
                 grad_clip=None, name=None, *, parameters=None, weight_decay=None):
        if epsilon is None:
            raise ValueError('epsilon is not set.')
        if rho is None:
            raise ValueError('rho is not set.')
        super().__init__(learning_rate, epsilon, rho, parameters, weight_decay, grad_clip, name,
                         parameter_list=parameter_list, regularization=regularization)


class FtrlOptimizer(Optimizer):
    """FTRL-proximal (the `ftrl` op, accumulators `squared` and `linear`); dense gradients only, as in Paddle 1.8.

    Paddle 1.8 passes `l1` as the op's `l2` attribute too (`"l2": self._l1`), so the `l2` argument has no effect
    there; this class does the same, so scripts get the numbers Paddle 1.8 gives them."""
    type = 'ftrl'
    _squared_acc_str = 'squared'
    _linear_acc_str = 'linear'

    def __init__(self, learning_rate, l1=0.0, l2=0.0, lr_power=-0.5, parameter_list=None, regularization=None,
                 grad_clip=None, name=None, *, parameters=None, weight_decay=None):
        if learning_rate is None:
            raise ValueError('learning_rate is not set.')
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name, parameter_list=parameter_list,
                         regularization=regularization)
        self._l1 = float(l1)
        self._l2 = float(l2)
        self._lr_power = float(lr_power)

    def _create_accumulators(self, block, parameters):
        for p in parameters:
            self._add_accumulator(self._squared_acc_str, p)
            self._add_accumulator(self._linear_acc_str, p)

    def _append_optimize_op(self, block, param_and_grad):
        param, grad = param_and_grad
        squared = self._get_accumulator(self._squared_acc_str, param)
        linear = self._get_accumulator(self._linear_acc_str, param)
        return block.append_op('ftrl', {'Param': [param], 'Grad': [grad], 'SquaredAccumulator': [squared],
                                        'LinearAccumulator': [linear],
                                        'LearningRate': [self._create_param_lr(param_and_grad)]},
                               {'ParamOut': [param], 'SquaredAccumOut': [squared], 'LinearAccumOut': [linear]},
                               {'l1': self._l1, 'l2': self._l1, 'lr_power': self._lr_power})


SGD = SGDOptimizer
Momentum = MomentumOptimizer
Adagrad = AdagradOptimizer
Adam = AdamOptimizer
Adamax = AdamaxOptimizer
DecayedAdagrad = DecayedAdagradOptimizer
RMSProp = RMSPropOptimizer
Lamb = LambOptimizer
Ftrl = FtrlOptimizer
Adadelta = AdadeltaOptimizer
LarsMomentum = LarsMomentumOptimizer
Dpsgd = DpsgdOptimizer
