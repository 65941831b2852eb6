"""paddle_exec.static: the Paddle 2.x static-graph API.

    import paddle_exec as paddle
    import paddle_exec.static as static
"""
from .._declined import declined_getattr
from ..backward import append_backward, gradients
from ..executor import Executor
from ..executor.parallel import *
from ..executor.places import cpu_places, cuda_places
from ..executor.strategy import *
from ..framework import (
                         CPUPlace,
                         Program,
                         Scope,
                         Variable,
                         default_main_program,
                         default_startup_program,
                         global_scope,
                         name_scope,
                         program_guard,
                         scope_guard,
)
from ..layers.control_flow import Print
from ..layers.io import data_v2 as data
from ..layers.metric import ctr_metric_bundle_v2 as ctr_metric_bundle
from ..optimizer.averaging import ExponentialMovingAverage
from ..param_attr import ParamAttr, WeightNormParamAttr
from . import nn
from .data_source import *
from .extras import *
from .io import *
from .serialize import *

# xpu_places and the IPU names are declined (paddle_exec/_declined.py says why and what to use instead)
__getattr__ = declined_getattr(__name__)
from .metric import *
