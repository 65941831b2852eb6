"""paddle.nn loss layers: each the nn.functional loss of the same name with its options fixed at construction,
called as loss_fn(input, label) (CrossEntropyLoss, MSELoss, BCELoss, BCEWithLogitsLoss, L1Loss, NLLLoss,
KLDivLoss, SmoothL1Loss, PoissonNLLLoss, GaussianNLLLoss, SoftMarginLoss, HingeEmbeddingLoss,
MultiLabelSoftMarginLoss, MultiMarginLoss, MarginRankingLoss, CosineEmbeddingLoss, TripletMarginLoss,
TripletMarginWithDistanceLoss, RNNTLoss); HSigmoidLoss also owns its tree's weight [C, feature_size] and bias
[C, 1] (C = num_classes - 1, or num_classes for a custom tree)."""
from __future__ import annotations

from .. import functional as F
from .layers import Layer

__all__ = ['CrossEntropyLoss', 'MSELoss', 'BCELoss', 'BCEWithLogitsLoss', 'L1Loss', 'NLLLoss', 'KLDivLoss',
           'SmoothL1Loss', 'PoissonNLLLoss', 'GaussianNLLLoss', 'SoftMarginLoss', 'HingeEmbeddingLoss',
           'MultiLabelSoftMarginLoss', 'MultiMarginLoss', 'MarginRankingLoss', 'CosineEmbeddingLoss',
           'TripletMarginLoss', 'TripletMarginWithDistanceLoss', 'RNNTLoss', 'HSigmoidLoss']


def _check_reduction(reduction: str, layer: str) -> str:
    if reduction not in ('sum', 'mean', 'none'):
        raise ValueError("The value of 'reduction' in %s should be 'sum', 'mean' or 'none', but received %s, "
                         "which is not allowed." % (layer, reduction))
    return reduction


class CrossEntropyLoss(Layer):
    def __init__(self, weight=None, ignore_index=-100, reduction='mean', soft_label=False, axis=-1,
                 use_softmax=True, label_smoothing=0.0, name=None):
        super().__init__()
        self._args = dict(weight=weight, ignore_index=ignore_index,
                          reduction=_check_reduction(reduction, 'CrossEntropyLoss'), soft_label=soft_label,
                          axis=axis, use_softmax=use_softmax, label_smoothing=label_smoothing, name=name)

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


class _FunctionalLoss(Layer):
    """A loss layer calling `_loss(*inputs, **options)`; subclasses set `_loss` and store their options."""
    _loss = None

    def __init__(self, **options):
        super().__init__()
        self._options = options

    def forward(self, *inputs):
        return type(self)._loss(*inputs, **self._options)


class L1Loss(_FunctionalLoss):
    _loss = staticmethod(F.l1_loss)

    def __init__(self, reduction='mean', name=None):
        if reduction not in ('sum', 'mean', 'none'):
            raise ValueError("The value of 'reduction' in L1Loss should be 'sum', 'mean' or 'none', but received %s, "
                             "which is not allowed." % reduction)
        super().__init__(reduction=reduction, name=name)


class NLLLoss(_FunctionalLoss):
    _loss = staticmethod(F.nll_loss)

    def __init__(self, weight=None, ignore_index=-100, reduction='mean', name=None):
        if reduction not in ('sum', 'mean', 'none'):
            raise ValueError("The value of 'reduction' in nll_loss should be 'sum', 'mean' or 'none', but received "
                             "%s, which is not allowed." % reduction)
        super().__init__(weight=weight, ignore_index=ignore_index, reduction=reduction, name=name)


class KLDivLoss(_FunctionalLoss):
    _loss = staticmethod(F.kl_div)

    def __init__(self, reduction='mean'):
        super().__init__(reduction=reduction)


class SmoothL1Loss(_FunctionalLoss):
    _loss = staticmethod(F.smooth_l1_loss)

    def __init__(self, reduction='mean', delta=1.0, name=None):
        super().__init__(reduction=reduction, delta=delta, name=name)


class PoissonNLLLoss(_FunctionalLoss):
    _loss = staticmethod(F.poisson_nll_loss)

    def __init__(self, log_input=True, full=False, epsilon=1e-8, reduction='mean', name=None):
        if epsilon <= 0:
            raise ValueError('The value of `epsilon` in PoissonNLLLoss should be positve, but received %f, which is '
                             'not allowed' % epsilon)
        if reduction not in ('sum', 'mean', 'none'):
            raise ValueError("The value of 'reduction' in PoissonNLLLoss should be 'sum', 'mean' or 'none', but "
                             "received %s, which is not allowed." % reduction)
        super().__init__(log_input=log_input, full=full, epsilon=epsilon, reduction=reduction, name=name)


class GaussianNLLLoss(_FunctionalLoss):
    _loss = staticmethod(F.gaussian_nll_loss)

    def __init__(self, full=False, epsilon=1e-6, reduction='mean', name=None):
        if reduction not in ('sum', 'mean', 'none'):
            raise ValueError("The value of 'reduction' in GaussianNLLLoss should be 'sum', 'mean' or 'none', but "
                             "received %s, which is not allowed." % reduction)
        super().__init__(full=full, epsilon=epsilon, reduction=reduction, name=name)


class SoftMarginLoss(_FunctionalLoss):
    _loss = staticmethod(F.soft_margin_loss)

    def __init__(self, reduction='mean', name=None):
        if reduction not in ('sum', 'mean', 'none'):
            raise ValueError("The value of 'reduction' in SoftMarginLoss should be 'sum', 'mean' or 'none', but "
                             "received %s, which is not allowed." % reduction)
        super().__init__(reduction=reduction, name=name)


class HingeEmbeddingLoss(_FunctionalLoss):
    _loss = staticmethod(F.hinge_embedding_loss)

    def __init__(self, margin=1.0, reduction='mean', name=None):
        super().__init__(margin=margin, reduction=reduction, name=name)


class MultiLabelSoftMarginLoss(_FunctionalLoss):
    _loss = staticmethod(F.multi_label_soft_margin_loss)

    def __init__(self, weight=None, reduction='mean', name=None):
        if reduction not in ('sum', 'mean', 'none'):
            raise ValueError("'reduction' in 'MultiLabelSoftMarginloss' should be 'sum', 'mean' or 'none', but "
                             "received {}.".format(reduction))
        super().__init__(weight=weight, reduction=reduction, name=name)


class MultiMarginLoss(_FunctionalLoss):
    _loss = staticmethod(F.multi_margin_loss)

    def __init__(self, p: int = 1, margin: float = 1.0, weight=None, reduction='mean', name=None):
        if reduction not in ('sum', 'mean', 'none'):
            raise ValueError("'reduction' in 'MultiMarginLoss' should be 'sum', 'mean' or 'none', but received "
                             "{}.".format(reduction))
        super().__init__(p=p, margin=margin, weight=weight, reduction=reduction, name=name)


class MarginRankingLoss(_FunctionalLoss):
    _loss = staticmethod(F.margin_ranking_loss)

    def __init__(self, margin=0.0, reduction='mean', name=None):
        if reduction not in ('sum', 'mean', 'none'):
            raise ValueError("The value of 'reduction' in MarginRankingLoss should be 'sum', 'mean' or 'none', but "
                             "received %s, which is not allowed." % reduction)
        super().__init__(margin=margin, reduction=reduction, name=name)


class CosineEmbeddingLoss(_FunctionalLoss):
    _loss = staticmethod(F.cosine_embedding_loss)

    def __init__(self, margin=0, reduction='mean', name=None):
        if margin > 1 or margin < -1:
            raise ValueError('The value of \'margin\' should be in the interval of [-1, 1], but received %f, which '
                             'is not allowed.' % margin)
        if reduction not in ('sum', 'mean', 'none'):
            raise ValueError("The value of 'reduction' should be 'sum', 'mean' or 'none', but received %s, which is "
                             "not allowed." % reduction)
        super().__init__(margin=margin, reduction=reduction, name=name)


class TripletMarginLoss(_FunctionalLoss):
    _loss = staticmethod(F.triplet_margin_loss)

    def __init__(self, margin=1.0, p=2.0, epsilon=1e-6, swap=False, reduction='mean', name=None):
        if reduction not in ('sum', 'mean', 'none'):
            raise ValueError("The value of 'reduction' in TripletMarginLoss should be 'sum', 'mean' or 'none', but "
                             "received %s, which is not allowed." % reduction)
        super().__init__(margin=margin, p=p, epsilon=epsilon, swap=swap, reduction=reduction, name=name)


class TripletMarginWithDistanceLoss(_FunctionalLoss):
    _loss = staticmethod(F.triplet_margin_with_distance_loss)

    def __init__(self, distance_function=None, margin=1.0, swap=False, reduction='mean', name=None):
        if reduction not in ('sum', 'mean', 'none'):
            raise ValueError("The value of 'reduction' in TripletMarginWithDistanceLoss should be 'sum', 'mean' or "
                             "'none', but received %s, which is not allowed." % reduction)
        super().__init__(distance_function=distance_function, margin=margin, swap=swap, reduction=reduction,
                         name=name)


class RNNTLoss(_FunctionalLoss):
    _loss = staticmethod(F.rnnt_loss)

    def __init__(self, blank=0, fastemit_lambda=0.001, reduction='mean', name=None):
        super().__init__(blank=blank, fastemit_lambda=fastemit_lambda, reduction=reduction, name=name)


class HSigmoidLoss(Layer):
    """Hierarchical sigmoid with its own tree parameters; forward(input, label, path_table=None, path_code=None)."""

    def __init__(self, feature_size, num_classes, weight_attr=None, bias_attr=None, is_custom=False, is_sparse=False,
                 name=None):
        super().__init__()
        if num_classes < 2 and not is_custom:
            raise ValueError('num_classes must not be less than 2 with default tree')
        if not is_custom and is_sparse:
            is_sparse = False      # Paddle prints "Sparse mode should not be used without custom tree"
        self._num_classes = num_classes
        self._is_sparse = is_sparse
        self._name = name
        rows = num_classes if is_custom else num_classes - 1
        self.weight = self.create_parameter([rows, feature_size], attr=weight_attr, is_bias=False)
        self.bias = self.create_parameter([rows, 1], attr=bias_attr, is_bias=True)

    def forward(self, input, label, path_table=None, path_code=None):
        return F.hsigmoid_loss(input, label, self._num_classes, self.weight, self.bias, path_table=path_table,
                               path_code=path_code, is_sparse=self._is_sparse, name=self._name)
