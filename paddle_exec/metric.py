"""paddle.metric (static graphs): `accuracy`, as Paddle 2.x builds it, a `top_k_v2` (paddle.topk) then an
`accuracy` op. The dygraph metric classes (Accuracy, Precision, Recall, Auc) need eager tensors and are not here.

    import paddle_exec as paddle
    acc = paddle.metric.accuracy(input=prob, label=y, k=5)
"""
from __future__ import annotations

from .framework.variable import Variable
from .layers.checks import check_variable_and_dtype
from .layers.helper import LayerHelper
from .layers.metric import accuracy_op
from .static.metric import topk

__all__ = ['accuracy']


def accuracy(input, label, k=1, correct=None, total=None, name=None) -> Variable:
    """paddle.metric.accuracy: the fraction of rows whose `label` is among the top `k` of `input` ([1] float32)."""
    helper = LayerHelper('accuracy', name=name)
    check_variable_and_dtype(input, 'input', ['float16', 'float32', 'float64'], 'accuracy')
    topk_out, topk_indices = topk(input, k=k)
    return accuracy_op(helper, topk_out, topk_indices, label, correct, total)
