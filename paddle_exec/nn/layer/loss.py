"""paddle.nn loss layers: CrossEntropyLoss, MSELoss, BCELoss, BCEWithLogitsLoss, each the nn.functional loss of
the same name with its options fixed at construction; called as loss_fn(input, label)."""
from __future__ import annotations

from .. import functional as F
from .layers import Layer

__all__ = ['CrossEntropyLoss', 'MSELoss', 'BCELoss', 'BCEWithLogitsLoss']


def _check_reduction(reduction: str, layer: str) -> str:
    if reduction not in ('sum', 'mean', 'none'):
        raise ValueError("The value of 'reduction' in %s should be 'sum', 'mean' or 'none', but received %s, "
                         "which is not allowed." % (layer, reduction))
    return reduction


class CrossEntropyLoss(Layer):
    def __init__(self, weight=None, ignore_index=-100, reduction='mean', soft_label=False, axis=-1,
                 use_softmax=True, name=None):
        super().__init__()
        self._args = dict(weight=weight, ignore_index=ignore_index,
                          reduction=_check_reduction(reduction, 'CrossEntropyLoss'), soft_label=soft_label,
                          axis=axis, use_softmax=use_softmax, name=name)

    def forward(self, input, label):
        return F.cross_entropy(input, label, **self._args)


class MSELoss(Layer):
    def __init__(self, reduction='mean'):
        super().__init__()
        self._reduction = _check_reduction(reduction, 'MSELoss')

    def forward(self, input, label):
        return F.mse_loss(input, label, reduction=self._reduction)


class BCELoss(Layer):
    def __init__(self, weight=None, reduction='mean', name=None):
        super().__init__()
        self._args = dict(weight=weight, reduction=_check_reduction(reduction, 'BCELoss'), name=name)

    def forward(self, input, label):
        return F.binary_cross_entropy(input, label, **self._args)


class BCEWithLogitsLoss(Layer):
    def __init__(self, weight=None, reduction='mean', pos_weight=None, name=None):
        super().__init__()
        self._args = dict(weight=weight, reduction=_check_reduction(reduction, 'BCEWithLogitsLoss'),
                          pos_weight=pos_weight, name=name)

    def forward(self, logit, label):
        return F.binary_cross_entropy_with_logits(logit, label, **self._args)
