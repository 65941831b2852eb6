"""fluid.contrib.layers.metric_op (Paddle 1.8's module path): ctr_metric_bundle, from paddle_exec/layers/metric.py
(paddle.static.ctr_metric_bundle is the same function)."""
from ....layers.metric import ctr_metric_bundle

__all__ = ['ctr_metric_bundle']
