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

from ...layers.loss_classification import center_loss, edit_distance, teacher_student_sigmoid_loss  # noqa: E402
from ...layers.loss_ranking import bpr_loss, margin_rank_loss, npair_loss, rank_loss  # noqa: E402
from ...layers.loss_sampled import hsigmoid, nce, sampled_softmax_with_cross_entropy  # noqa: E402

__all__ += ['bpr_loss', 'center_loss', 'edit_distance', 'hsigmoid', 'margin_rank_loss', 'nce', 'npair_loss',
            'rank_loss', 'sampled_softmax_with_cross_entropy', 'teacher_student_sigmoid_loss']
