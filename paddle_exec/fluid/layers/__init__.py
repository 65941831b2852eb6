"""fluid.layers: the 1.x layer builders (shared with paddle.static and paddle.nn.functional)."""
from ...layers.activation import *
from ...layers.attribute import *
from ...layers.casting import *
from ...layers.common import *
from ...layers.control_flow import *
from ...layers.conv import *
from ...layers.creation import *
from ...layers.image import *
from ...layers.indexing import *
from ...layers.io import *
from ...layers.learning_rate import *
from ...layers.learning_rate import autoincreased_step_counter
from ...layers.loss import *
from ...layers.manipulation import *
from ...layers.math import *
from ...layers.matrix import *
from ...layers.metric import *
from ...layers.norm import *
from ...layers.random import *
from ...static.data_source import *
from ...static.extras import create_parameter, py_func
