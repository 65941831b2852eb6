"""fluid.layers.learning_rate_scheduler (Paddle 1.8's module path): the learning-rate decays.

Only maps names: every builder is implemented once, in paddle_exec/layers/. `__all__` is the part of
1.8.5's `__all__` for this module that paddle_exec implements.
"""
from ...layers.learning_rate import (
           cosine_decay,
           exponential_decay,
           inverse_time_decay,
           linear_lr_warmup,
           natural_exp_decay,
           noam_decay,
           piecewise_decay,
           polynomial_decay,
)

__all__ = ['cosine_decay', 'exponential_decay', 'inverse_time_decay', 'linear_lr_warmup', 'natural_exp_decay',
           'noam_decay', 'piecewise_decay', 'polynomial_decay']
