"""fluid.layers.loss (Paddle 1.8's module path): the loss layers.

Only maps names: every builder is implemented once, in paddle_exec/layers/. `__all__` is the part of
1.8.5's `__all__` for this module that paddle_exec implements.
"""
from ...layers.loss import (
           cross_entropy,
           huber_loss,
           kldiv_loss,
           mse_loss,
           sigmoid_cross_entropy_with_logits,
           softmax_with_cross_entropy,
           square_error_cost,
)

__all__ = ['cross_entropy', 'huber_loss', 'kldiv_loss', 'mse_loss', 'sigmoid_cross_entropy_with_logits',
           'softmax_with_cross_entropy', 'square_error_cost']
