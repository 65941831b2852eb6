"""fluid.layers.learning_rate_scheduler: 1.8's module path of the learning-rate decays (layers/learning_rate.py)."""
from ...layers.learning_rate import (
    autoincreased_step_counter,
    cosine_decay,
    exponential_decay,
    inverse_time_decay,
    linear_lr_warmup,
    natural_exp_decay,
    noam_decay,
    piecewise_decay,
    polynomial_decay,
)

__all__ = ['exponential_decay', 'natural_exp_decay', 'inverse_time_decay', 'polynomial_decay', 'piecewise_decay',
           'noam_decay', 'cosine_decay', 'linear_lr_warmup', 'autoincreased_step_counter']
