"""fluid.contrib.extend_optimizer (Paddle 1.8's module path)."""
from . import extend_optimizer_with_weight_decay
from .extend_optimizer_with_weight_decay import extend_with_decoupled_weight_decay

__all__ = ['extend_with_decoupled_weight_decay']
