"""fluid.layers.detection (Paddle 1.8's module path): the detection layers paddle_exec implements.

Only maps names: every builder is implemented once, in paddle_exec/layers/.
"""
from ...layers.loss_classification import sigmoid_focal_loss

__all__ = ['sigmoid_focal_loss']
