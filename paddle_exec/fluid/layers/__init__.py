"""fluid.layers: the 1.x layer builders (shared with paddle.static and paddle.nn.functional)."""
from ...layers import math_patch as _math_patch
from ...layers.activation import *
from ...layers.control_flow import *
from ...layers.io import *
from ...layers.learning_rate import *
from ...layers.loss import *
from ...layers.math import *
from ...layers.metric import *
from ...layers.nn import *
from ...layers.tensor import *
from ...static.data_source import *
from ...static.extras import create_parameter, py_func
