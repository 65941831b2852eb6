"""Optimizers only Paddle 1.8's fluid.optimizer has: LarsMomentum, Dpsgd and DGCMomentum (fluid.optimizer maps
their names; their 1.x signatures are kept here).

- LarsMomentumOptimizer: the `lars_momentum` op (layer-wise adaptive rate: local_lr = lr * lars_coeff * ||p|| /
  (||g|| + lars_weight_decay * ||p||)), accumulator `velocity`.
- DpsgdOptimizer: the `dpsgd` op (gradient clipped to L2 norm `clip`, plus one Gaussian number times sigma /
  batch_size). As in Paddle, `_seed` is a debugging hook: None becomes 0 at minimize, which the op reads as "seed
  from the clock"; set it to get the same noise every run.
- DGCMomentumOptimizer: Deep Gradient Compression only changes what is sent between nodes; on one node (the only
  case here: there is no collective communication) Paddle's DGC reduces to plain momentum, which is what this
  builds (the `momentum` op with 1.8's numerics, accumulator `_dgc_u_`). Paddle 1.8 refuses to build it without
  CUDA; the arguments are checked as Paddle checks them (grad_clip must be GradientClipByNorm, with num_trainers),
  and the sparsity schedule (rampup_begin_step, rampup_step, sparsity) has nothing to act on.
"""
from __future__ import annotations

from ..clip import GradientClipByNorm
from ..regularizer import L1DecayRegularizer, L2DecayRegularizer
from .base import Optimizer
from .optimizers import Momentum

__all__ = ['LarsMomentumOptimizer', 'DpsgdOptimizer', 'DGCMomentumOptimizer']


class LarsMomentumOptimizer(Optimizer):
    """v = mu * v + local_lr * (g + lars_weight_decay * p); p -= v (see kernels/optimizer.lars_momentum)."""
    type = 'lars_momentum'
    _paddle2 = False
    _velocity_acc_str = 'velocity'

    def __init__(self, learning_rate, momentum, lars_coeff=0.001, lars_weight_decay=0.0005, parameter_list=None,
                 regularization=None, grad_clip=None, name=None, *, parameters=None, weight_decay=None):
        if learning_rate is None or momentum is None:
            raise AssertionError('LarsMomentumOptimizer needs learning_rate and momentum')
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name, parameter_list=parameter_list,
                         regularization=regularization)
        self._momentum = momentum
        self._lars_coeff = float(lars_coeff)
        self._lars_weight_decay = float(lars_weight_decay)

    def _create_accumulators(self, block, parameters):
        for p in parameters:
            self._add_accumulator(self._velocity_acc_str, p)

    def _append_optimize_op(self, block, param_and_grad):
        param, grad = param_and_grad
        velocity = self._get_accumulator(self._velocity_acc_str, param)
        return block.append_op('lars_momentum', {'Param': [param], 'Grad': [grad], 'Velocity': [velocity],
                                                 'LearningRate': [self._create_param_lr(param_and_grad)]},
                               {'ParamOut': [param], 'VelocityOut': [velocity]},
                               {'mu': self._momentum, 'lars_coeff': self._lars_coeff,
                                'lars_weight_decay': self._lars_weight_decay})


class DpsgdOptimizer(Optimizer):
    """Differentially private SGD (Abadi et al. 2016) as Paddle 1.8's `dpsgd` op."""
    type = 'dpsgd'
    _paddle2 = False

    def __init__(self, learning_rate=0.001, clip=0.9, batch_size=0.999, sigma=1e-8, parameter_list=None, *,
                 parameters=None):
        for label, value in (('learning_rate', learning_rate), ('clip', clip), ('batch_size', batch_size),
                             ('sigma', sigma)):
            if value is None:
                raise AssertionError('DpsgdOptimizer: %s must not be None' % label)
        super().__init__(learning_rate, parameters, parameter_list=parameter_list)
        self._clip = clip
        self._batch_size = batch_size
        self._sigma = sigma
        self._seed = None

    def _append_optimize_op(self, block, param_and_grad):
        if self._seed is None:
            self._seed = 0
        param, grad = param_and_grad
        return block.append_op('dpsgd', {'Param': [param], 'Grad': [grad],
                                         'LearningRate': [self._create_param_lr(param_and_grad)]},
                               {'ParamOut': [param]},
                               {'clip': self._clip, 'batch_size': self._batch_size, 'sigma': self._sigma,
                                'seed': self._seed})


class DGCMomentumOptimizer(Momentum):
    """Plain momentum on one node (see the module docstring); Paddle 1.8's signature and argument checks."""
    _paddle2 = False
    _u_velocity_acc_str = '_dgc_u_'
    _velocity_acc_str = _u_velocity_acc_str

    def __init__(self, learning_rate, momentum, rampup_begin_step, rampup_step=1, sparsity=(0.999,),
                 parameter_list=None, use_nesterov=False, num_trainers=None, regularization=None, grad_clip=None,
                 name=None, *, parameters=None, weight_decay=None):
        if learning_rate is None or momentum is None:
            raise AssertionError('DGCMomentumOptimizer needs learning_rate and momentum')
        if rampup_begin_step < 0:
            raise AssertionError('rampup_begin_step must >= 0')
        if grad_clip is not None:
            if not isinstance(grad_clip, GradientClipByNorm):
                raise TypeError("The type of grad_clip should be 'GradientClipByNorm', because DGCMomentumOptimizer "
                                "only support GradientClipByNorm")
            if not isinstance(num_trainers, int):
                raise AssertionError("The type of num_trainers should be 'int', but received %s"
                                     % type(num_trainers))
            if num_trainers <= 0:
                raise AssertionError('The value of num_trainers should be greater than 0!')
        super().__init__(learning_rate, momentum, parameters, use_nesterov, weight_decay, grad_clip, name=name,
                         parameter_list=parameter_list, regularization=regularization)
        if self.regularization is not None and not isinstance(self.regularization,
                                                              (L1DecayRegularizer, L2DecayRegularizer)):
            raise AssertionError('regularization must be None|L1Decay|L2Deacy')
        self._rampup_begin_step = rampup_begin_step
        self._rampup_step = rampup_step
        self._sparsity = list(sparsity)
        self._num_trainers = num_trainers
