"""paddle.nn layer classes for static mode (see layers.py for how a Layer builds its parameters and ops)."""
from . import activation, common, container, conv, distance, loss, norm, pooling, transformer, vision
from .activation import *
from .common import *
from .container import *
from .conv import *
from .distance import *
from .layers import Layer
from .loss import *
from .norm import *
from .pooling import *
from .transformer import *
from .vision import *

__all__ = ['Layer'] + [name for module in (activation, common, container, conv, distance, loss,
                                                      norm, pooling, transformer, vision)
                       for name in module.__all__]
