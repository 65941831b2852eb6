"""fluid.contrib.extend_optimizer.extend_optimizer_with_weight_decay (Paddle 1.8's module path).

extend_with_decoupled_weight_decay(Optimizer class) -> a class that, in minimize, subtracts `coeff * param`
(computed from the parameter before the update) after the base optimizer's step, as 1.8 appends it:
`elementwise_sub(param, param * coeff)` assigned back to the parameter, under `_optimized_guard` and name scope
'weight decay', between backward and the optimizer ops.

    AdamW = fluid.contrib.extend_with_decoupled_weight_decay(fluid.optimizer.Adam)
    AdamW(weight_decay=0.01, learning_rate=0.1).minimize(loss)

The implementation is paddle_exec.optimizer.meta's (the one the optimizer package also exposes); this module is
its fluid 1.8 import path.
"""
from __future__ import annotations

from ....optimizer.meta import DecoupledWeightDecay, extend_with_decoupled_weight_decay  # noqa: F401 - 1.8's names

__all__ = ['extend_with_decoupled_weight_decay']
