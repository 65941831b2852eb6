"""paddle.nn: `functional`, `initializer`, `utils`, gradient clipping, and the Layer classes, which in static mode
create their parameters when built and append ops when called (nn/layer/)."""
from ..clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue
from . import functional, initializer, utils
from .layer import *
from .layer import __all__ as _layer_names

__all__ = ['ClipGradByGlobalNorm', 'ClipGradByNorm', 'ClipGradByValue', 'functional', 'initializer'] + _layer_names
