"""Metrics of the 2.x static API: paddle.static.accuracy / auc (fluid's, as Paddle 2.x re-exports them) and
paddle.topk (`top_k_v2`: any axis, largest or smallest; values stay differentiable, indices do not).

    values, indices = paddle.topk(x, k=5)                 # top_k_v2_N.tmp_0 / .tmp_1
    acc = paddle.static.accuracy(input=prob, label=y, k=1)
"""
from __future__ import annotations

from ..framework.dtype import VarType
from ..framework.variable import Variable
from ..layers.helper import LayerHelper
from ..layers.metric import accuracy, auc
from ..layers.metric import ctr_metric_bundle_v2 as ctr_metric_bundle

# paddle.topk is exported at the top level (paddle_exec/utils_compat.py), not by paddle.static
__all__ = ['accuracy', 'auc', 'ctr_metric_bundle']


def topk(x, k, axis=None, largest=True, sorted=True, name=None) -> tuple[Variable, Variable]:
    """paddle.topk: the k largest (`largest=False`: smallest) entries along `axis` (default: the last) and their
    int64 indices, as one `top_k_v2` op. `k` may be an int or an int32 [1] Variable."""
    helper = LayerHelper('top_k_v2', name=name)
    inputs, attrs = {'X': [x]}, {}
    if isinstance(k, Variable):
        inputs['K'] = [k]
    else:
        attrs['k'] = int(k)
    attrs['largest'] = bool(largest)
    attrs['sorted'] = bool(sorted)
    if axis is not None:
        attrs['axis'] = int(axis)
    values = helper.create_variable_for_type_inference(x.dtype)
    indices = helper.create_variable_for_type_inference(VarType.INT64)
    helper.append_op('top_k_v2', inputs, {'Out': [values], 'Indices': [indices]}, attrs)
    indices.stop_gradient = True
    return values, indices
