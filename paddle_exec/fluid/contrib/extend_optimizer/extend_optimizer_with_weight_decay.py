"""fluid.contrib.extend_optimizer.extend_optimizer_with_weight_decay (Paddle 1.8's module path).

extend_with_decoupled_weight_decay(Optimizer class) -> a class that, in minimize, subtracts `coeff * param`
(computed from the parameter before the update) after the base optimizer's step, as 1.8 appends it:
`elementwise_sub(param, param * coeff)` assigned back to the parameter, under `_optimized_guard` and name scope
'weight decay', between backward and the optimizer ops.

    AdamW = fluid.contrib.extend_with_decoupled_weight_decay(fluid.optimizer.Adam)
    AdamW(weight_decay=0.01, learning_rate=0.1).minimize(loss)
"""
from __future__ import annotations

from ....framework.program import name_scope
from ....framework.variable import Variable
from ....layers.creation import assign
from ....layers.math import elementwise_sub
from ....optimizer.base import Optimizer

__all__ = ['extend_with_decoupled_weight_decay']


class DecoupledWeightDecay:
    """The mix-in: keeps coeff and the decayed parameter names, and rewrites minimize."""

    def __init__(self, coeff=0.0, apply_decay_param_fun=None, **kwargs):
        if not isinstance(coeff, (float, Variable)):
            raise TypeError('coeff should be float or Variable.')
        self._params_name = set()
        self._apply_decay_param_fun = apply_decay_param_fun
        self._coeff = coeff
        super().__init__(**kwargs)

    def _scale_parameters(self, params_and_grads) -> list:
        if isinstance(self._coeff, float) and self._coeff == 0.0:
            return []
        scaled = []
        for param, grad in params_and_grads:
            if grad is None:
                continue
            if self._apply_decay_param_fun is not None and not self._apply_decay_param_fun(param.name):
                continue
            if isinstance(self._coeff, Variable) and self._coeff.dtype != param.dtype:
                raise TypeError('the type of coeff(%s) and parameter(%s) is not consistent.'
                                % (self._coeff.dtype, param.dtype))
            with param.block.program._optimized_guard([param, grad]), name_scope('weight decay'):
                assert param.name not in self._params_name
                scaled.append((param, grad, param * self._coeff))
                self._params_name.add(param.name)
        return scaled

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        params_grads = self.backward(loss=loss, startup_program=startup_program, parameter_list=parameter_list,
                                     no_grad_set=no_grad_set)
        for param, grad, scaled in self._scale_parameters(params_grads):
            with param.block.program._optimized_guard([param, grad]), name_scope('weight decay'):
                assign(input=elementwise_sub(x=param, y=scaled), output=param)
        optimize_ops = self.apply_optimize(loss=loss, params_grads=params_grads, startup_program=startup_program)
        return optimize_ops, params_grads

    def __str__(self):
        return ' '.join(['Weight Decay, params:', ','.join(self._params_name)])


def extend_with_decoupled_weight_decay(base_optimizer: type) -> type:
    """An optimizer class: base_optimizer with decoupled weight decay (new = optimized - param_before * coeff)."""
    if not (isinstance(base_optimizer, type) and issubclass(base_optimizer, Optimizer)):
        raise TypeError('The input(base_optimizer) should be a derived class of Optimizer.')

    class OptimizerWithDecoupledWeightDecay(DecoupledWeightDecay, base_optimizer):
        def __init__(self, weight_decay, apply_decay_param_fun=None, **kwargs):
            super().__init__(weight_decay, apply_decay_param_fun, **kwargs)

    return OptimizerWithDecoupledWeightDecay
