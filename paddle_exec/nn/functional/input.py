"""paddle.nn.functional input layers: one_hot (`one_hot_v2`) and embedding (`lookup_table_v2` on a given weight)."""
from __future__ import annotations

from ...layers.checks import check_variable_and_dtype
from ...layers.common import lookup_embedding, one_hot_op
from ...layers.helper import LayerHelper

__all__ = ['one_hot', 'embedding']


def one_hot(x, num_classes, name=None):
    """F.one_hot: `one_hot_v2` -> float32 `x.shape + [num_classes]`; out-of-range ids raise at run time."""
    return one_hot_op('one_hot_v2', x, num_classes, False, 'one_hot_v2')


def embedding(x, weight, padding_idx=None, sparse=False, name=None):
    """F.embedding: rows of `weight` ([vocab, dim]) at the ids `x` (any shape); `sparse=True` makes the weight's
    gradient a SelectedRows. A negative padding_idx counts from the end of the vocabulary."""
    check_variable_and_dtype(x, 'input', ['uint8', 'int8', 'int16', 'int32', 'int64'], 'embedding')
    helper = LayerHelper('embedding', name=name)
    return lookup_embedding('lookup_table_v2', x, weight, sparse, False, padding_idx, helper)
