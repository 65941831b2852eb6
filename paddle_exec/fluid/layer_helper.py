"""fluid.layer_helper (Paddle 1.8's module path): LayerHelper (paddle_exec/layers/helper.py)."""
from ..layers.helper import LayerHelper  # noqa: F401  (1.8's __all__ of this module is empty)

__all__ = []
