"""fluid.data_feeder (Paddle 1.8's module path): DataFeeder (paddle_exec/static/extras.py), and the argument checks
1.8 keeps here outside its `__all__` (check_variable_and_dtype, convert_dtype)."""
from ..framework.dtype import convert_dtype  # noqa: F401  (outside __all__ in 1.8)
from ..layers.checks import check_variable_and_dtype  # noqa: F401  (outside __all__ in 1.8)
from ..static.extras import DataFeeder

__all__ = ['DataFeeder']
