"""fluid.layer_helper_base (Paddle 1.8's module path). It exports nothing in 1.8 either; the LayerHelper of
paddle_exec (paddle_exec/layers/helper.py, fluid.layer_helper) carries what 1.8 splits between LayerHelperBase
and LayerHelper, so LayerHelperBase names the same class."""
from ..layers.helper import LayerHelper as LayerHelperBase  # noqa: F401  (1.8 defines it here, outside __all__)

__all__ = []
