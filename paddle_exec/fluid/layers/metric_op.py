"""fluid.layers.metric_op (Paddle 1.8's module path): accuracy and auc.

Only maps names: every builder is implemented once, in paddle_exec/layers/. `__all__` is the part of
1.8.5's `__all__` for this module that paddle_exec implements.
"""
from ...layers.metric import accuracy, auc

__all__ = ['accuracy', 'auc']
